//! The C ABI from Rust: any struct_size or enum value is an error, never a crash; NULLs
//! everywhere; random spec strings through blasst_resolver_new.

use blasst::AttnParams;
use blasst::ffi::*;
use blasst::synth::Rng;
use std::ffi::{CStr, CString};

fn last_error() -> String {
    unsafe { CStr::from_ptr(blasst_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn valid(buf: &mut [f32]) -> AttnParams {
    let mut p = AttnParams::default();
    p.device = blasst::attn::BLASST_DEVICE_CPU;
    p.dtype = blasst::attn::BLASST_DTYPE_F32;
    (
        p.batch_size,
        p.num_q_heads,
        p.num_kv_heads,
        p.head_dim,
        p.max_seqlen_q,
        p.max_seqlen_kv,
    ) = (1, 2, 1, 32, 4, 4);
    let ptr = buf.as_mut_ptr();
    (p.q, p.k, p.v, p.o) = (ptr.cast(), ptr.cast(), ptr.cast(), ptr.cast());
    (
        p.q_row_stride,
        p.q_head_stride,
        p.o_row_stride,
        p.o_head_stride,
    ) = (64, 32, 64, 32);
    (
        p.k_row_stride,
        p.k_head_stride,
        p.v_row_stride,
        p.v_head_stride,
    ) = (32, 32, 32, 32);
    p
}

#[test]
fn any_struct_size_or_enum_value_is_an_error() {
    let mut buf = vec![0.5f32; 1024];
    let mut out = vec![0f32; 256];
    let good = valid(&mut buf);
    let mut rng = Rng::new(1);
    let run = |p: &AttnParams| unsafe { blasst_attn_run(p, std::ptr::null_mut()) };
    let mut g = good;
    g.o = out.as_mut_ptr().cast();
    assert_eq!(run(&g), blasst_status::BLASST_OK, "{}", last_error());
    for size in [
        0u32,
        1,
        4,
        10_000,
        u32::MAX,
        std::mem::size_of::<AttnParams>() as u32 - 8,
    ] {
        let mut p = g;
        p.struct_size = size;
        assert_eq!(run(&p), blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
        assert!(last_error().contains(&format!("struct_size = {size}")));
    }
    for _ in 0..2000 {
        let mut p = g;
        let x = rng.next_u64() as u32;
        match rng.below(4) {
            0 => p.device = x | 2,
            1 => p.dtype = x | 4,
            2 => p.causal = x | 2,
            _ => p.struct_size = x | 0x1000,
        }
        assert_eq!(run(&p), blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
    }
    // A struct smaller than ours: only its first field is read.
    let tiny: [u32; 1] = [12];
    let st = unsafe { blasst_attn_run(tiny.as_ptr().cast(), std::ptr::null_mut()) };
    assert_eq!(st, blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
    assert!(out.iter().all(|x| x.is_finite()));
}

#[test]
fn nulls_everywhere() {
    unsafe {
        assert_eq!(
            blasst_attn_run(std::ptr::null(), std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_attn_plan(std::ptr::null(), std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_attn_workspace_size(std::ptr::null(), std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        blasst_attn_params_init(std::ptr::null_mut());
        blasst_resolver_free(std::ptr::null_mut());
        assert_eq!(
            blasst_resolver_factor(
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
                0,
                f64::NAN,
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_resolver_describe(
                std::ptr::null(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_schedule_flow_shift(1.0, 3, std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_calibration_fit(
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                5,
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_calibration_write(
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                0
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_merge_states(
                1,
                2,
                std::ptr::null(),
                std::ptr::null(),
                1,
                1,
                1,
                1,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_debug_trigger_panic(),
            blasst_status::BLASST_ERROR_INTERNAL
        );
        assert!(last_error().contains("caught panic"));
    }
}

#[test]
fn random_spec_strings_never_crash() {
    let mut rng = Rng::new(7);
    for _ in 0..3000 {
        let n = rng.below(40);
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 255 + 1) as u8).collect();
        let c = CString::new(bytes).unwrap();
        let mut r: *mut blasst_resolver = std::ptr::null_mut();
        let st = unsafe {
            blasst_resolver_new(c.as_ptr(), std::ptr::null(), std::ptr::null(), 0, &mut r)
        };
        if st == blasst_status::BLASST_OK {
            unsafe { blasst_resolver_free(r) };
        } else {
            assert!(r.is_null());
            assert!(matches!(
                st,
                blasst_status::BLASST_ERROR_CONFIG | blasst_status::BLASST_ERROR_INVALID_ARGUMENT
            ));
        }
    }
}

/// Eight threads call at once, each with its own inputs: every thread reads its own failure
/// message from `blasst_last_error` (per thread; a successful call does not clear it) and gets
/// its own results, the same as when it calls alone.
#[test]
fn threads_keep_their_own_errors_and_results() {
    // Thread t's input values and what a call alone gives for them.
    let input = |t: usize| -> Vec<f32> {
        let mut rng = Rng::new(100 + t as u64);
        (0..1024).map(|_| rng.normal()).collect()
    };
    let alone = |t: usize| -> Vec<f32> {
        let mut buf = input(t);
        let mut out = vec![0f32; 256];
        let mut p = valid(&mut buf);
        p.o = out.as_mut_ptr().cast();
        let st = unsafe { blasst_attn_run(&p, std::ptr::null_mut()) };
        assert_eq!(st, blasst_status::BLASST_OK, "{}", last_error());
        out
    };
    let expected: Vec<Vec<f32>> = (0..8).map(alone).collect();
    assert_ne!(expected[0], expected[1]);
    std::thread::scope(|s| {
        for (t, want) in expected.iter().enumerate() {
            s.spawn(move || {
                let mut buf = input(t);
                for i in 0..300u32 {
                    let mut bad = valid(&mut buf);
                    let head_dim = 1000 + 100 * t as u32 + i;
                    bad.head_dim = head_dim;
                    let st = unsafe { blasst_attn_run(&bad, std::ptr::null_mut()) };
                    assert_eq!(st, blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
                    let mut out = vec![0f32; 256];
                    let mut good = valid(&mut buf);
                    good.o = out.as_mut_ptr().cast();
                    let st = unsafe { blasst_attn_run(&good, std::ptr::null_mut()) };
                    assert_eq!(st, blasst_status::BLASST_OK, "{}", last_error());
                    assert_eq!(&out, want, "thread {t}, call {i}");
                    let e = last_error();
                    assert!(
                        e.contains(&format!("head_dim = {head_dim} ")),
                        "thread {t}, call {i}: {e}"
                    );
                }
            });
        }
    });
}
