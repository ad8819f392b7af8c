//! Cutoff 1.0 with no published timestep: dense, and exactly one warning per resolver.
//! (Its own test binary: the log callback is process-global.)

use blasst::Resolver;
use blasst::attn::Phase;
use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

static WARNINGS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_log(level: u32, msg: *const c_char, _: *mut c_void) {
    let m = unsafe { CStr::from_ptr(msg) }.to_string_lossy();
    if level == 2 && m.contains("no timestep") {
        WARNINGS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn unpublished_timestep_is_dense_and_warns_once_per_resolver() {
    blasst::log::set_callback(Some(on_log), std::ptr::null_mut());
    let r = Resolver::new(
        r#"{"threshold": 0.01, "disabled_until_timestep": 1.0}"#,
        None,
        &[],
    )
    .unwrap();
    for _ in 0..5 {
        assert_eq!(
            r.factor("blocks.0.attn1", Phase::Prefill, 4096, None)
                .unwrap(),
            0.0
        );
    }
    assert_eq!(WARNINGS.load(Ordering::SeqCst), 1);
    let r2 = Resolver::new(
        r#"{"threshold": 0.01, "disabled_until_timestep": 1.0}"#,
        None,
        &[],
    )
    .unwrap();
    assert_eq!(
        r2.factor("blocks.0.attn1", Phase::Decode, 4096, None)
            .unwrap(),
        0.0
    );
    assert_eq!(
        WARNINGS.load(Ordering::SeqCst),
        2,
        "a second resolver warns once too"
    );
    blasst::log::set_callback(None, std::ptr::null_mut());
}
