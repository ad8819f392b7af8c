//! The Hopper prefill kernel's 192-key visits (`BLASST_PREFILL_VISIT192=1`, an experiment of
//! session 69: src/cuda/nvrtc.rs `prefill90_ring`): the switch reaches the d = 128 dense and
//! Skip-Softmax kernels over contiguous caches only (not the paged ones, whose page chunks assume
//! a visit of 128 keys or fewer, nor the calibration sweep), changes their disk-cache key, and the
//! kernels it makes (S 64 x 192 per warpgroup, three plan tiles a visit, a ring of two slots)
//! compile for sm_90a without spills and without ptxas serialising a wgmma pipeline. Its own test
//! binary: the switch is read from the environment at every compile. No GPU needed; without NVRTC
//! it checks the source alone. Their decisions and outputs are tests/gpu.rs's, run on the GPU
//! machine with the switch set (bench/runs/session69/).

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_visit192_switch_reaches_the_contiguous_d128_prefill_kernels_only_and_compiles() {
    let switched = source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_VISIT192",
        "1",
        "#define PREFILL90_SLOT_KEYS 192\n",
        |v| v.head_dim == 128 && !v.paged && !v.sweep,
        |_| true,
    );
    // dense and Skip-Softmax, bf16 and fp16
    assert_eq!(switched.len(), 4);
    for v in &switched {
        assert!(
            v.source().contains("#define PREFILL90_SLOTS 2\n"),
            "{}",
            v.name()
        );
    }
}
