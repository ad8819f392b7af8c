//! The row-tile warps decode kernel's test delay (`BLASST_DECODE_WARPS_PRODUCER_DELAY_NS`,
//! kernels/decode_warps_sm90.cu) reaches the kernel source, changes its disk-cache key, and its
//! code compiles for sm_90a: the GPU machine's script runs the tile-by-tile decisions with it, so
//! a kernel that no longer compiles with it would only fail there. Its own test binary: the
//! switch is read from the environment at every compile, so it must not leak into other tests.
//! No GPU needed; without NVRTC it checks the source alone.

use blasst::cuda::nvrtc::{Family, compile_with_log};

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_producer_delay_reaches_the_warps_kernels_only_and_compiles() {
    let (plain, delayed) = source_switch::set_and_check(
        "BLASST_DECODE_WARPS_PRODUCER_DELAY_NS",
        "20000",
        |v| v.family == Family::DecodeWarps,
        Some("#define WARPS_PRODUCER_DELAY_NS 0\n"),
        "#define WARPS_PRODUCER_DELAY_NS 20000\n",
    );
    let delayed: Vec<_> = delayed.into_iter().filter(|v| v.skip).collect();
    assert_eq!(
        delayed.len(),
        2 * 2,
        "bf16/fp16 x contiguous/paged skip kernels (of {} warps kernels)",
        plain.len()
    );

    if !source_switch::nvrtc() {
        return;
    }
    for v in &delayed {
        let (bin, _) =
            compile_with_log(v, "sm_90a", false).unwrap_or_else(|e| panic!("{}", e.message()));
        assert!(bin.len() > 1000, "{}: {} bytes", v.name(), bin.len());
    }
}
