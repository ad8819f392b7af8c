//! The overlapped Hopper prefill kernel's split K and V barriers (kernels/prefill_sm90.cu
//! `OVERLAP_SPLIT`, session 65): the d = 128 small-page kernels take them by default (since
//! session 66, run 310: Skip-Softmax under 64 keys, dense under 32), the others with the switch
//! `BLASST_PREFILL_OVERLAP_SPLIT=1`, which reaches those d = 128 kernels only (the ones with the
//! P V overlap), changes their disk-cache key, and makes kernels that compile for sm_90a without
//! spills and without ptxas serialising a wgmma pipeline (the small-page ones are default kernels:
//! tests/kernels_compile.rs). Its own test binary: the switch is read from the environment at
//! every compile, so it must not leak into other tests. No GPU needed; without NVRTC it checks
//! the source alone. That the split kernels skip the CPU's tiles and match dense is tests/gpu.rs
//! (over small pages in every run; with the switch in bench/runs/session65/run310.sh).

#[path = "common/source_switch.rs"]
mod source_switch;

use blasst::cuda::nvrtc::{Family, Variant};

#[test]
fn the_overlap_split_switch_reaches_the_overlapped_prefill_kernels_only_and_compiles() {
    const SPLIT: &str = "#define PREFILL90_OVERLAP_SPLIT 1\n";
    const NO_OVERLAP: &str = "#define PREFILL90_PV_OVERLAP 0\n";
    let overlapped = |v: &Variant| v.family == Family::PrefillSm90 && v.head_dim == 128 && !v.sweep;
    // Without the switch: the small-page kernels split, no other kernel.
    let all = Variant::all(blasst::cuda::nvrtc::arch_smem_per_sm("sm_90a"));
    assert!(all.iter().any(|v| v.small_pages && overlapped(v)));
    for v in &all {
        assert_eq!(
            v.source().contains(SPLIT),
            v.small_pages && overlapped(v),
            "{}",
            v.name()
        );
        assert!(!v.source().contains(NO_OVERLAP), "{}", v.name());
    }
    let split = source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_OVERLAP_SPLIT",
        "1",
        SPLIT,
        |v| overlapped(v) && !v.small_pages,
        |_| true,
    );
    assert!(split.iter().any(|v| v.paged) && split.iter().any(|v| !v.paged));
    for v in &split {
        assert!(!v.source().contains(NO_OVERLAP), "{}", v.name());
    }
}
