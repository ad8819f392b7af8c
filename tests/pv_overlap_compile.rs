//! The Hopper prefill kernel's P V overlap (`BLASST_PREFILL_PV_OVERLAP=1`,
//! kernels/prefill_sm90.cu `PV_OVERLAP`, off by default) reaches the Hopper prefill kernels' source
//! only, changes their disk-cache key, and compiles for sm_90a without spills and without ptxas
//! serialising a wgmma pipeline (the warnings tests/kernels_compile.rs rejects): the switch is
//! measured on the GPU machine (bench/RESULTS.md, session 55), so a kernel that no longer
//! compiles with it would only fail there. Its own test binary: the switch is read from the
//! environment at every compile, so it must not leak into other tests. No GPU needed; without
//! NVRTC it checks the source alone.

use blasst::cuda::nvrtc::{Family, compile_with_log};

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_pv_overlap_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    let (_, overlapped) = source_switch::set_and_check(
        "BLASST_PREFILL_PV_OVERLAP",
        "1",
        |v| v.family == Family::PrefillSm90,
        None,
        "#define PREFILL90_PV_OVERLAP 1\n",
    );

    if !source_switch::nvrtc() {
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
