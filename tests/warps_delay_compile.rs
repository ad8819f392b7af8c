//! The row-tile warps decode kernel's test delay (`BLASST_DECODE_WARPS_PRODUCER_DELAY_NS`,
//! kernels/decode_warps_sm90.cu) reaches the kernel source, changes its disk-cache key, and its
//! code compiles for sm_90a: the GPU machine's script runs the tile-by-tile decisions with it, so
//! a kernel that no longer compiles with it would only fail there. Its own test binary: the
//! switch is read from the environment at every compile, so it must not leak into other tests.
//! No GPU needed; without NVRTC it checks the source alone.

use blasst::cuda::nvrtc::{Family, Variant, arch_smem_per_sm, available, compile_with_log};

#[test]
fn the_producer_delay_reaches_the_warps_kernels_only_and_compiles() {
    let all = || Variant::all(arch_smem_per_sm("sm_90a"));
    let warps = |vs: Vec<Variant>| -> Vec<Variant> {
        vs.into_iter()
            .filter(|v| v.family == Family::DecodeWarps && v.skip)
            .collect()
    };
    let plain = warps(all());
    assert_eq!(
        plain.len(),
        2 * 2,
        "bf16/fp16 x contiguous/paged skip kernels"
    );
    let plain_sources: Vec<String> = plain.iter().map(Variant::source).collect();
    assert!(
        plain_sources
            .iter()
            .all(|src| src.contains("#define WARPS_PRODUCER_DELAY_NS 0\n"))
    );
    let others_before: Vec<String> = all()
        .iter()
        .filter(|v| v.family != Family::DecodeWarps)
        .map(Variant::source)
        .collect();

    // SAFETY: this test binary holds this one test, so no other thread reads the environment.
    // (Set until the end: a variant's source, and so its compile, reads it at every call.)
    unsafe { std::env::set_var("BLASST_DECODE_WARPS_PRODUCER_DELAY_NS", "20000") };
    let delayed = warps(all());
    let delayed_sources: Vec<String> = delayed.iter().map(Variant::source).collect();
    let others_after: Vec<String> = all()
        .iter()
        .filter(|v| v.family != Family::DecodeWarps)
        .map(Variant::source)
        .collect();
    for (v, src) in delayed.iter().zip(&delayed_sources) {
        assert!(
            src.contains("#define WARPS_PRODUCER_DELAY_NS 20000\n"),
            "{}",
            v.name()
        );
    }
    // A different source: a kernel cached without the delay is never loaded with it.
    assert!(
        plain
            .iter()
            .zip(&plain_sources)
            .zip(delayed.iter().zip(&delayed_sources))
            .all(|((a, a_src), (b, b_src))| a.name() == b.name() && a_src != b_src)
    );
    assert_eq!(
        others_before, others_after,
        "the switch changes the warps kernels only"
    );

    if !available() {
        assert!(
            std::env::var_os("BLASST_REQUIRE_NVRTC").is_none(),
            "NVRTC is required but libnvrtc.so.13 could not be loaded"
        );
        println!("compile skipped: NVRTC (libnvrtc.so.13) not found");
        return;
    }
    for v in &delayed {
        let (bin, _) =
            compile_with_log(v, "sm_90a", false).unwrap_or_else(|e| panic!("{}", e.message()));
        assert!(bin.len() > 1000, "{}: {} bytes", v.name(), bin.len());
    }
}
