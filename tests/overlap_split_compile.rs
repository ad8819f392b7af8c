//! The overlapped Hopper prefill kernel's split K and V barriers (kernels/prefill_sm90.cu
//! `OVERLAP_SPLIT`, session 65, off by default) and its switch, `BLASST_PREFILL_OVERLAP_SPLIT=1`:
//! it reaches the d = 128 dense and Skip-Softmax kernels only (the ones with the P V overlap),
//! over pages under 64 keys too, which it gives the overlap back; it changes their disk-cache
//! key; and the kernels it makes compile for sm_90a without spills and without ptxas serialising
//! a wgmma pipeline. Its own test binary: the switch is read from the environment at every
//! compile, so it must not leak into other tests. No GPU needed; without NVRTC it checks the
//! source alone. That the split kernels skip the CPU's tiles and match dense is tests/gpu.rs
//! (`BLASST_PREFILL_OVERLAP_SPLIT=1` on the GPU machine: bench/runs/session65/run310.sh).

#[path = "common/source_switch.rs"]
mod source_switch;

use blasst::cuda::nvrtc::Family;

#[test]
fn the_overlap_split_switch_reaches_the_overlapped_prefill_kernels_only_and_compiles() {
    const SPLIT: &str = "#define PREFILL90_OVERLAP_SPLIT 1\n";
    const NO_OVERLAP: &str = "#define PREFILL90_PV_OVERLAP 0\n";
    let changed = |v: &blasst::cuda::nvrtc::Variant| {
        v.family == Family::PrefillSm90 && v.head_dim == 128 && !v.sweep
    };
    // Pages under 64 keys: without the overlap before the switch, with it (and the split) after.
    let all = blasst::cuda::nvrtc::Variant::all(blasst::cuda::nvrtc::arch_smem_per_sm("sm_90a"));
    let before: Vec<(bool, bool)> = all
        .iter()
        .filter(|v| changed(v))
        .map(|v| (v.small_pages, v.source().contains(NO_OVERLAP)))
        .collect();
    assert!(before.iter().any(|&(small, _)| small));
    assert!(
        before.iter().all(|&(small, off)| small == off),
        "{before:?}"
    );
    let (_, split) =
        source_switch::set_and_check("BLASST_PREFILL_OVERLAP_SPLIT", "1", changed, None, SPLIT);
    for v in &split {
        assert!(!v.source().contains(NO_OVERLAP), "{}", v.name());
    }
    if !source_switch::nvrtc() {
        return;
    }
    for v in split.iter().filter(|v| v.bf16) {
        source_switch::compiles_unserialised(v);
    }
}
