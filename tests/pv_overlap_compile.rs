//! The Hopper prefill kernel's P V overlap (`BLASST_PREFILL_PV_OVERLAP=1`,
//! kernels/prefill_sm90.cu `PV_OVERLAP`, off by default) reaches the Hopper prefill kernels' source
//! only, changes their disk-cache key, and compiles for sm_90a without spills and without ptxas
//! serialising a wgmma pipeline (the warnings tests/kernels_compile.rs rejects): the switch is
//! measured on the GPU machine (bench/RESULTS.md, session 55), so a kernel that no longer
//! compiles with it would only fail there. Its own test binary: the switch is read from the
//! environment at every compile, so it must not leak into other tests. No GPU needed; without
//! NVRTC it checks the source alone.

use blasst::cuda::nvrtc::{Family, Variant, arch_smem_per_sm, available, compile_with_log};

#[test]
fn the_pv_overlap_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    let all = || Variant::all(arch_smem_per_sm("sm_90a"));
    let prefill90 = |vs: Vec<Variant>| -> Vec<Variant> {
        vs.into_iter()
            .filter(|v| v.family == Family::PrefillSm90)
            .collect()
    };
    let plain = prefill90(all());
    assert!(!plain.is_empty());
    let plain_sources: Vec<String> = plain.iter().map(Variant::source).collect();
    assert!(
        plain_sources
            .iter()
            .all(|src| !src.contains("#define PREFILL90_PV_OVERLAP 1\n"))
    );
    let others_before: Vec<String> = all()
        .iter()
        .filter(|v| v.family != Family::PrefillSm90)
        .map(Variant::source)
        .collect();

    // SAFETY: this test binary holds this one test, so no other thread reads the environment.
    // (Set until the end: a variant's source, and so its compile, reads it at every call.)
    unsafe { std::env::set_var("BLASST_PREFILL_PV_OVERLAP", "1") };
    let overlapped = prefill90(all());
    let overlapped_sources: Vec<String> = overlapped.iter().map(Variant::source).collect();
    let others_after: Vec<String> = all()
        .iter()
        .filter(|v| v.family != Family::PrefillSm90)
        .map(Variant::source)
        .collect();
    for (v, src) in overlapped.iter().zip(&overlapped_sources) {
        assert!(
            src.contains("#define PREFILL90_PV_OVERLAP 1\n"),
            "{}",
            v.name()
        );
    }
    // A different source: a kernel cached without the overlap is never loaded with it.
    assert!(
        plain
            .iter()
            .zip(&plain_sources)
            .zip(overlapped.iter().zip(&overlapped_sources))
            .all(|((a, a_src), (b, b_src))| a.name() == b.name() && a_src != b_src)
    );
    assert_eq!(
        others_before, others_after,
        "the switch changes the Hopper prefill kernels only"
    );

    if !available() {
        assert!(
            std::env::var_os("BLASST_REQUIRE_NVRTC").is_none(),
            "NVRTC is required but libnvrtc.so.13 could not be loaded"
        );
        println!("compile skipped: NVRTC (libnvrtc.so.13) not found");
        return;
    }
    // The kernels the switch changes: d = 128, not the calibration sweep (bf16; fp16 shares
    // every line but the operand type); and d = 64, which keeps its code (its skip kernel, of
    // three consumer warpgroups at 160 registers, spilled 224 bytes with the overlap).
    for v in overlapped
        .iter()
        .filter(|v| v.bf16 && v.head_dim <= 128 && !v.sweep)
    {
        let (bin, log) =
            compile_with_log(v, "sm_90a", true).unwrap_or_else(|e| panic!("{}", e.message()));
        assert!(bin.len() > 1000, "{}: {} bytes", v.name(), bin.len());
        for warning in ["C7514", "C7515", "C7520"] {
            assert!(
                !log.contains(warning),
                "{}: ptxas {warning}:\n{log}",
                v.name()
            );
        }
        assert!(
            log.contains("0 bytes spill stores"),
            "{}: spills:\n{log}",
            v.name()
        );
    }
}
