//! The Hopper prefill kernel's integer row maxima with their check voted on after the quad
//! shuffles (kernels/prefill_sm90.cu `LATE_CHECK`, on by default since session 68) and its off
//! switch, `BLASST_PREFILL_LATE_CHECK=0`: the switch reaches the Hopper prefill kernels' source
//! only, changes their disk-cache key, and the kernels it brings back (the check before the
//! shuffles, as before session 68) still compile for sm_90a without spills and without ptxas
//! serialising a wgmma pipeline. Its own test binary: the switch is read from the
//! environment at every compile, so it must not leak into other tests. No GPU needed; without
//! NVRTC it checks the source alone. That the maxima stay the float tree's bit for bit is
//! tests/gpu.rs `integer_row_maxima_match_the_float_tree_bit_for_bit`, on the GPU machine (with
//! the check after the shuffles: run 325, bench/runs/session68/, together with a `&` for `&&`
//! in the votes that was not kept; on the default kernels alone with every other GPU test: run 327,
//! bench/runs/session69/).

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_late_check_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    // Every head dim's kernels: dense, Skip-Softmax and the calibration sweep.
    source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_LATE_CHECK",
        "0",
        "#define PREFILL90_LATE_CHECK 0\n",
        |_| true,
        |_| true,
    );
}
