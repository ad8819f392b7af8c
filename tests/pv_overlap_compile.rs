//! The Hopper prefill kernel's P V overlap (kernels/prefill_sm90.cu `PV_OVERLAP`, on by default
//! since session 56) and its off switch, `BLASST_PREFILL_PV_OVERLAP=0`: the switch reaches the
//! Hopper prefill kernels' source only, changes their disk-cache key, and the kernels it brings
//! back (the ones before session 56) still compile for sm_90a without spills and without ptxas
//! serialising a wgmma pipeline (the warnings tests/kernels_compile.rs rejects in the default
//! kernels, overlapped ones included), so the way back stays open. Its own test binary: the
//! switch is read from the environment at every compile, so it must not leak into other tests.
//! No GPU needed; without NVRTC it checks the source alone.

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_pv_overlap_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    // The kernels the switch changes: d = 128, not the calibration sweep (over pages under 64
    // keys too, `_paged_small`, whose split overlap it takes away as well); and d = 64, whose
    // code it leaves as it is (no overlap there: its skip kernel, of three consumer warpgroups at
    // 160 registers, spilled 224 bytes with it). The switch reaches every Hopper prefill kernel.
    let off = source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_PV_OVERLAP",
        "0",
        "#define PREFILL90_PV_OVERLAP 0\n",
        |_| true,
        |v| v.head_dim <= 128 && !v.sweep,
    );
    for v in &off {
        assert!(
            !v.source().contains("#define PREFILL90_OVERLAP_SPLIT 1\n"),
            "{}",
            v.name()
        );
    }
}
