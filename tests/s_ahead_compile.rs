//! The Hopper prefill kernels' second score buffer (kernels/prefill_sm90.cu `S_AHEAD`, session
//! 58, an experiment off by default), switched on by `BLASST_PREFILL_S_AHEAD=1`: the switch
//! reaches the Hopper prefill kernels' source only and changes their disk-cache key, and the
//! kernels it changes (d = 128, skip and dense) compile for sm_90a without ptxas serialising a
//! wgmma pipeline (C7512: too few registers, which P as an array of its own gave; C7514/C7515/
//! C7520: O rescaled before the wait for S_{t+1} gave C7515), and the contiguous skip kernel
//! without spills (the paged skip kernel spills 4 bytes and the contiguous dense one 12, outside
//! their loops; the paged dense one 28, a few of them in its loop). Its own test binary:
//! the switch is read from the environment at every compile, so it must not leak into other
//! tests. No GPU needed; without NVRTC it checks the source alone.

use blasst::cuda::nvrtc::Family;

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_s_ahead_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    let (_, on) = source_switch::set_and_check(
        "BLASST_PREFILL_S_AHEAD",
        "1",
        |v| v.family == Family::PrefillSm90,
        None,
        "#define PREFILL90_S_AHEAD 1\n",
    );

    if !source_switch::nvrtc() {
        return;
    }
    // The kernels whose code it changes: d = 128, skip and dense, contiguous and paged (bf16;
    // fp16 shares every line but the operand type).
    let picked: Vec<_> = on
        .iter()
        .filter(|v| v.bf16 && v.head_dim == 128 && v.dim == 128 && !v.sweep)
        .collect();
    assert!(picked.iter().any(|v| v.paged && v.skip) && picked.iter().any(|v| !v.paged && !v.skip));
    for v in picked {
        source_switch::compiles_unserialised(v, v.skip && !v.paged);
    }
}
