//! The Hopper prefill skip kernel's V on demand (kernels/prefill_sm90.cu `V_DEMAND`, session 57,
//! an experiment off by default), switched on by `BLASST_PREFILL_V_ON_DEMAND=1`: the switch
//! reaches the Hopper prefill kernels' source only and changes their disk-cache key, and the
//! kernels it changes (the d = 128 contiguous skip kernels) compile for sm_90a without spills and
//! without ptxas serialising a wgmma pipeline (C7514/C7515/C7520: a wait for V between S_t's
//! issue and P V_{t-1}'s made it C7520). Its own test binary: the switch is read from the
//! environment at every compile, so it must not leak into other tests. No GPU needed; without
//! NVRTC it checks the source alone.

use blasst::cuda::nvrtc::{Family, compile_with_log};

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_v_on_demand_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    let (_, on) = source_switch::set_and_check(
        "BLASST_PREFILL_V_ON_DEMAND",
        "1",
        |v| v.family == Family::PrefillSm90,
        None,
        "#define PREFILL90_V_ON_DEMAND 1\n",
    );

    if !source_switch::nvrtc() {
        return;
    }
    // The kernels whose code it changes: d = 128 skip, contiguous and ragged (bf16; fp16 shares
    // every line but the operand type).
    let picked: Vec<_> = on
        .iter()
        .filter(|v| v.bf16 && v.head_dim == 128 && v.dim == 128 && v.skip && !v.paged && !v.sweep)
        .collect();
    assert!(!picked.is_empty());
    for v in picked {
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
