//! What a compile-time switch read from the environment (e.g.
//! `BLASST_DECODE_WARPS_PRODUCER_DELAY_NS`, `BLASST_PREFILL_PV_OVERLAP`,
//! `BLASST_PREFILL_INT_MAXIMA`, `BLASST_PREFILL_OVERLAP_SPLIT`, `BLASST_PREFILL_LATE_CHECK`) does
//! to the kernel sources, for the test binaries that hold one such switch each
//! (tests/warps_delay_compile.rs, tests/pv_overlap_compile.rs, tests/int_maxima_compile.rs,
//! tests/overlap_split_compile.rs, tests/late_check_compile.rs):
//! `#[path = "common/source_switch.rs"] mod source_switch;`.

use blasst::cuda::nvrtc::{Variant, arch_smem_per_sm, available, compile_with_log};

/// Sets `var` to `value` (for the rest of the process) and checks that it changes the sources of
/// the sm_90a variants that `changed` selects, and only theirs: each gains `on_line` (and, where
/// `off_line` is given, had it before), each one's name stays while its source (and so its
/// disk-cache key) differs, every other variant's source stays the same. Returns those variants
/// before and after.
///
/// The caller's test binary must hold that one test: the environment is process-wide.
pub fn set_and_check(
    var: &str,
    value: &str,
    changed: impl Fn(&Variant) -> bool,
    off_line: Option<&str>,
    on_line: &str,
) -> (Vec<Variant>, Vec<Variant>) {
    let all = || Variant::all(arch_smem_per_sm("sm_90a"));
    let pick =
        |vs: Vec<Variant>| -> Vec<Variant> { vs.into_iter().filter(|v| changed(v)).collect() };
    let others = || -> Vec<String> {
        all()
            .iter()
            .filter(|v| !changed(v))
            .map(Variant::source)
            .collect()
    };
    let plain = pick(all());
    assert!(!plain.is_empty(), "no variant for {var}");
    let plain_sources: Vec<String> = plain.iter().map(Variant::source).collect();
    for (v, src) in plain.iter().zip(&plain_sources) {
        assert!(
            !src.contains(on_line),
            "{}: {on_line:?} without {var}",
            v.name()
        );
        if let Some(off) = off_line {
            assert!(src.contains(off), "{}: no {off:?}", v.name());
        }
    }
    let others_before = others();

    // SAFETY: the caller's test binary holds this one test, so no other thread reads the
    // environment. (Set until the end: a variant's source, and so its compile, reads it at
    // every call.)
    unsafe { std::env::set_var(var, value) };
    let switched = pick(all());
    for v in &switched {
        assert!(v.source().contains(on_line), "{}: no {on_line:?}", v.name());
    }
    // A different source: a kernel cached without the switch is never loaded with it.
    assert_eq!(plain.len(), switched.len());
    for ((a, a_src), b) in plain.iter().zip(&plain_sources).zip(&switched) {
        assert_eq!(a.name(), b.name());
        assert_ne!(
            a_src,
            &b.source(),
            "{}: {var} left its source as it was",
            a.name()
        );
    }
    assert_eq!(
        others_before,
        others(),
        "{var} changes other kernels' sources"
    );
    (plain, switched)
}

/// Whether NVRTC is here to compile the switched kernels; without it (and without
/// `BLASST_REQUIRE_NVRTC`, which CI sets) the caller checks the sources alone.
pub fn nvrtc() -> bool {
    if !available() {
        assert!(
            std::env::var_os("BLASST_REQUIRE_NVRTC").is_none(),
            "NVRTC is required but libnvrtc.so.13 could not be loaded"
        );
        println!("compile skipped: NVRTC (libnvrtc.so.13) not found");
        return false;
    }
    true
}

/// A switched Hopper prefill kernel compiles for sm_90a without ptxas serialising its wgmma
/// pipeline (any of its "wgmma.mma_async instructions are serialized" warnings: C7511/C7512 too
/// few registers, C7514/C7515/C7520 other code touching an unfinished wgmma's registers, ...),
/// and without spilling. (Not for the warps decode kernel's switch test,
/// whose kernels are not wgmma pipelines.) Session 58 checked four codes by name and missed
/// C7511, so an experiment it reported as unserialised ran with every wgmma serialised (run 299,
/// bench/RESULTS.md "Session 59"): the text is what is checked now, as tests/kernels_compile.rs
/// does for the default kernels.
#[allow(dead_code)]
pub fn compiles_unserialised(v: &Variant) {
    let (bin, log) =
        compile_with_log(v, "sm_90a", true).unwrap_or_else(|e| panic!("{}", e.message()));
    assert!(bin.len() > 1000, "{}: {} bytes", v.name(), bin.len());
    assert!(
        !log.contains("serialized"),
        "{}: ptxas serialises the wgmma pipeline:\n{log}",
        v.name()
    );
    assert!(
        log.contains("0 bytes spill stores"),
        "{}: spills:\n{log}",
        v.name()
    );
}

/// A Hopper prefill switch `var=value` (e.g. `BLASST_PREFILL_PV_OVERLAP=0`): `set_and_check`
/// over the Hopper prefill kernels (those of them that `reaches` selects) with `on_line` (the
/// define it brings), then, where NVRTC is here, the switched bf16 kernels that `compiled`
/// selects compile unserialised and without spills (fp16 shares every line but the operand
/// type). Returns the switched kernels.
#[allow(dead_code)]
pub fn prefill90_switch_compiles(
    var: &str,
    value: &str,
    on_line: &str,
    reaches: impl Fn(&Variant) -> bool,
    compiled: impl Fn(&Variant) -> bool,
) -> Vec<Variant> {
    use blasst::cuda::nvrtc::Family;
    let changed = |v: &Variant| v.family == Family::PrefillSm90 && reaches(v);
    let (_, switched) = set_and_check(var, value, changed, None, on_line);
    if nvrtc() {
        for v in switched.iter().filter(|v| v.bf16 && compiled(v)) {
            compiles_unserialised(v);
        }
    }
    switched
}
