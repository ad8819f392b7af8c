//! The Hopper prefill kernel's integer row maxima with their check acted on after the quad
//! shuffles (kernels/prefill_sm90.cu `LATE_CHECK`, session 68, an experiment:
//! `BLASST_PREFILL_LATE_CHECK=1`): the switch reaches the Hopper prefill kernels' source only,
//! changes their disk-cache key, and the kernels it makes compile for sm_90a without spills and
//! without ptxas serialising a wgmma pipeline. Its own test binary: the switch is read from the
//! environment at every compile, so it must not leak into other tests. No GPU needed; without
//! NVRTC it checks the source alone. That the maxima stay the float tree's bit for bit is
//! tests/gpu.rs `integer_row_maxima_match_the_float_tree_bit_for_bit` run with the switch, on the
//! GPU machine (bench/runs/session68/run325.sh).

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_late_check_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    // Every head dim's kernels: dense, Skip-Softmax and the calibration sweep.
    source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_LATE_CHECK",
        "1",
        "#define PREFILL90_LATE_CHECK 1\n",
        |_| true,
        |_| true,
    );
}
