//! The overlapped Hopper Skip-Softmax prefill kernel's P V retired after the softmax's branches
//! (kernels/prefill_sm90.cu `ALIGNED_RETIRE`, session 66, off by default) and its switch,
//! `BLASST_PREFILL_ALIGNED_RETIRE=1`: it reaches the d = 128 Skip-Softmax kernels only (the
//! skipping ones with the P V overlap), every layout, changes their disk-cache key, and the
//! contiguous ones compile for sm_90a without spills and without ptxas serialising a wgmma
//! pipeline. (Over paged caches ptxas spills 36 bytes with it, in the producer's copies: why it is
//! off until timed.) Its own test binary: the switch is read from the environment at every
//! compile, so it must not leak into other tests. No GPU needed; without NVRTC it checks the
//! source alone. Whether synccheck then passes, and the switched kernels' decisions and speed:
//! bench/runs/session66/run312.sh on the GPU machine.

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_aligned_retire_switch_reaches_the_overlapped_skip_kernels_only_and_compiles() {
    let switched = source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_ALIGNED_RETIRE",
        "1",
        "#define PREFILL90_ALIGNED_RETIRE 1\n",
        |v| v.skip && v.head_dim == 128 && !v.sweep,
        |v| !v.paged,
    );
    assert!(switched.iter().any(|v| v.paged && v.small_pages));
    assert!(switched.iter().any(|v| !v.paged));
}
