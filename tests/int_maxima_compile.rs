//! The Hopper prefill kernel's integer row maxima (kernels/prefill_sm90.cu `INT_MAXIMA`, on by
//! default since session 61) and its off switch, `BLASST_PREFILL_INT_MAXIMA=0`: the switch
//! reaches the Hopper prefill kernels' source only, changes their disk-cache key, and the
//! kernels it brings back (the float tree alone, as before session 61) still compile for sm_90a
//! without spills and without ptxas serialising a wgmma pipeline. Its own test binary: the switch
//! is read from the environment at every compile, so it must not leak into other tests. No GPU
//! needed; without NVRTC it checks the source alone. (That both forms give the same bits:
//! tests/gpu.rs `integer_row_maxima_match_the_float_tree_bit_for_bit`, on the GPU machine.)

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_int_maxima_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    // Every head dim's kernels: dense, Skip-Softmax and the calibration sweep.
    source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_INT_MAXIMA",
        "#define PREFILL90_INT_MAXIMA 0\n",
        |_| true,
    );
}
