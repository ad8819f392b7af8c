//! Every kernel specialisation compiles with NVRTC for sm_80 and sm_90a (and the portable decode
//! kernels of shallower pipelines for sm_86; the kernels of padded head dims; the portable kernels
//! for Blackwell's sm_100 and sm_120) — no GPU needed.
//! CI installs NVRTC from PyPI (nvidia-cuda-nvrtc) and puts it on LD_LIBRARY_PATH; without it
//! the test prints why it skipped (BLASST_REQUIRE_NVRTC=1 turns that into a failure).

use blasst::cuda::KERNEL_PARAMS_LAYOUT;
use blasst::cuda::nvrtc::{
    Family, Variant, arch_smem_per_sm, available, compile, compile_with_log,
};
use rayon::prelude::*;

/// Whether NVRTC loaded; without it a test prints why it skipped (BLASST_REQUIRE_NVRTC=1 turns
/// that into a failure).
fn nvrtc_or_skip() -> bool {
    if available() {
        return true;
    }
    assert!(
        std::env::var_os("BLASST_REQUIRE_NVRTC").is_none(),
        "NVRTC is required but libnvrtc.so.13 could not be loaded"
    );
    println!("skipped: NVRTC (libnvrtc.so.13) not found");
    false
}

#[test]
fn all_variants_compile_for_sm80_and_sm90a() {
    if !nvrtc_or_skip() {
        return;
    }
    // 2 dtypes x 3 head dims x (4 families x 3 modes x 2 layouts + 3 modes of the Hopper decode
    // kernel over 16- and 32-key pages + 2 merges), and the d = 128 Hopper prefill kernel's dense
    // and Skip-Softmax over pages under 64 keys (2 dtypes x 2 modes); the two Hopper
    // families (wgmma prefill, decode on mbarrier-completed copies) only for sm_90a. Each
    // architecture's list sizes the portable decode kernel's pipeline for its GPUs' shared
    // memory; sm_86 (100 KB: also sm_89 and sm_120) adds the portable decode kernels of the
    // shallower pipelines those GPUs run (d = 64 and 128; at d = 256 the kernel of 32-key tiles,
    // `nvrtc::decode_block_n`) and the compact portable prefill kernels (d = 128 and 256). At d = 128 the Hopper decode kernel also has
    // the row-tile warps kernel beside it (`Family::DecodeWarps`: 2 dtypes x 3 modes x 2
    // layouts, sm_90a; sessions 44-47 also built a three-CTAs-per-SM decode kernel, 12 more).
    let mut jobs: Vec<(&str, Variant)> = vec![];
    let tuned = Variant::all(arch_smem_per_sm("sm_90a"));
    for arch in ["sm_80", "sm_90a", "sm_86"] {
        let variants = Variant::all(arch_smem_per_sm(arch));
        assert_eq!(variants.len(), 2 * 3 * 29 + 12 + 4);
        jobs.extend(
            variants
                .into_iter()
                .filter(|v| v.supports(arch) && (arch != "sm_86" || !tuned.contains(v)))
                .map(|v| (arch, v)),
        );
    }
    // Head dims below a kernel's (`attn::gpu_kernel_dim`): 40, 96 and 160 on the d = 64, 128 and 256
    // kernels, bf16, dense and Skip-Softmax, contiguous and paged (the Hopper decode kernel over
    // small pages too, and at 96 the Hopper prefill kernel's) (their code differs from the
    // kernel's own only in the copies and stores of the columns past the call's head dim).
    let padded: Vec<(&str, Variant)> = ["sm_80", "sm_90a"]
        .into_iter()
        .flat_map(|arch| {
            [40, 96, 160].into_iter().flat_map(move |dim| {
                Variant::for_head_dim(arch_smem_per_sm(arch), dim)
                    .unwrap()
                    .into_iter()
                    .filter(move |v| v.bf16 && !v.sweep && v.supports(arch))
                    .map(move |v| (arch, v))
            })
        })
        .collect();
    assert_eq!(
        padded.len(),
        3 * (2 * 2 * 2 + 2) + 3 * (4 * 2 * 2 + 2 + 2) + 2
    );
    // And d = 160 on the d = 256 kernel's compact prefill layout, which the GPUs of 100 KB run
    // (sm_86; bf16, dense and Skip-Softmax, contiguous and paged).
    let compact160: Vec<(&str, Variant)> = Variant::for_head_dim(arch_smem_per_sm("sm_86"), 160)
        .unwrap()
        .into_iter()
        .filter(|v| v.compact && v.bf16 && !v.sweep)
        .map(|v| ("sm_86", v))
        .collect();
    assert_eq!(compact160.len(), 4);
    assert!(
        padded
            .iter()
            .chain(&compact160)
            .all(|(_, v)| v.name().contains(&format!("_d{}p{}", v.dim, v.head_dim)))
    );
    jobs.extend(padded);
    jobs.extend(compact160);
    let n = jobs.len();
    // Compiled on all cores at once (rayon), as an engine's threads may make their first calls
    // (the library's caches compile different variants concurrently; NVRTC is thread-safe
    // across programs). This also halves the test's time on CI's two cores.
    let t0 = std::time::Instant::now();
    jobs.par_iter()
        .for_each(|(arch, v)| compiles_cleanly(v, arch));
    assert_eq!(
        n,
        2 * 3 * 29 * 2 - 2 * 3 * 15 + 2 * 2 * 6 + 2 * 6 + 90 + 12 + 12 + 12 + 4 + 4 + 2
    );
    println!(
        "{n} (variant, architecture) pairs compiled on {} threads in {:.1} s",
        rayon::current_num_threads(),
        t0.elapsed().as_secs_f64()
    );
}

/// Blackwell (sm_100: B200, 228 KB per SM; sm_120: RTX 50, 100 KB) runs the portable kernels
/// (blasst has no tcgen05 kernels; `Variant::supports` gives the Hopper families sm_90a only):
/// every bf16 variant of their lists compiles, and spills no more than ptxas (NVRTC 13.0) did for
/// it in session 54, when they were first compiled for these targets: at sm_100 the d = 128
/// prefill kernels at 255 registers 24-84 bytes and two d = 256 ones 20-28 (at sm_80 only the
/// paged and sweep ones spill; at sm_90a, where they are the fallback, 8-76), sm_120 none. Never
/// run on such a GPU (none lent); f16 compiles alike (session 54, all 84 of each list).
#[test]
fn portable_kernels_compile_for_blackwell() {
    if !nvrtc_or_skip() {
        return;
    }
    let budget = |arch: &str, v: &Variant| -> usize {
        if arch != "sm_100" || v.family != Family::Prefill || v.sweep {
            return 0;
        }
        // (head dim, Skip-Softmax, paged)
        match (v.head_dim, v.skip, v.paged) {
            (128, false, false) => 84,
            (128, false, true) => 60,
            (128, true, false) => 24,
            (256, false, false) => 20,
            (256, false, true) => 28,
            _ => 0,
        }
    };
    let jobs: Vec<(&str, Variant)> = ["sm_100", "sm_120"]
        .into_iter()
        .flat_map(|arch| {
            Variant::all(arch_smem_per_sm(arch))
                .into_iter()
                .filter(move |v| v.bf16 && v.supports(arch))
                .map(move |v| (arch, v))
        })
        .collect();
    assert!(jobs.iter().all(|(_, v)| matches!(
        v.family,
        Family::Prefill | Family::Decode | Family::Merge | Family::MergeStates
    )));
    assert_eq!(jobs.len(), 2 * 42);
    jobs.par_iter().for_each(|(arch, v)| {
        let (bin, log) =
            compile_with_log(v, arch, true).unwrap_or_else(|e| panic!("{}", e.message()));
        assert!(bin.len() > 1000, "{} for {arch}", v.name());
        let (spilled, most) = (spill_stores(&log), budget(arch, v));
        assert!(
            spilled <= most,
            "{} for {arch}: {spilled} bytes of spill stores, more than its {most}:\n{log}",
            v.name()
        );
    });
}

/// Every padded head dim (each multiple of 8 below 256 but the kernels' own) compiles its prefill
/// kernels, whose matrix products are cut to the head dim (S over ceil(dim / 16) steps of 16
/// columns; on Hopper, P V's last block of O columns an m64nNk16 MMA of N = the columns that hold
/// data, one text per N in kernels/prefill_sm90.cu): the Hopper kernel for sm_90a (bf16 dense:
/// its P V is the skip and sweep kernels' too) and the portable one for sm_80, with
/// `compiles_cleanly`'s checks (no serialised wgmma, no spill beyond the budgets).
#[test]
fn every_padded_head_dim_compiles_its_prefill_kernels() {
    if !nvrtc_or_skip() {
        return;
    }
    let mut jobs: Vec<(&str, Variant)> = vec![];
    for dim in (8..256).step_by(8).filter(|d| ![64, 128].contains(d)) {
        for (arch, family) in [("sm_90a", Family::PrefillSm90), ("sm_80", Family::Prefill)] {
            let v = Variant::for_head_dim(arch_smem_per_sm(arch), dim)
                .unwrap()
                .into_iter()
                .find(|v| v.family == family && v.bf16 && !v.skip && !v.sweep && !v.paged)
                .unwrap_or_else(|| panic!("no {family:?} variant at head dim {dim}"));
            assert_eq!(v.dim as usize, dim);
            jobs.push((arch, v));
        }
    }
    assert_eq!(jobs.len(), 2 * 29);
    jobs.par_iter()
        .for_each(|(arch, v)| compiles_cleanly(v, arch));
}

/// One variant compiles for `arch`, and the Hopper kernels keep what makes them fast.
fn compiles_cleanly(v: &Variant, arch: &str) {
    // The Hopper kernel only pays off while ptxas keeps its wgmma pipeline asynchronous: a
    // change that makes ptxas serialise it (warnings C7510-C7520, "wgmma.mma_async instructions
    // are serialized") still computes the right numbers, so the GPU tests would not notice.
    // ptxas says so at compile time (with -v); refuse it here. The Hopper decode kernel is
    // checked for spills too (it is bandwidth-bound only while its registers hold the
    // probabilities of the tiles in flight). The portable kernels, at sm_80 and sm_86 (where
    // they are the only kernels), may spill no more than they did when they were last measured
    // (`portable_spill_budget`).
    let hopper = matches!(
        v.family,
        Family::PrefillSm90 | Family::DecodeSm90 | Family::DecodeWarps
    );
    let verbose = hopper || arch == "sm_80" || arch == "sm_86";
    let (bin, log) =
        compile_with_log(v, arch, verbose).unwrap_or_else(|e| panic!("{}", e.message()));
    assert!(
        bin.len() > 1000,
        "{} for {arch}: {} bytes",
        v.name(),
        bin.len()
    );
    if v.family == Family::PrefillSm90 {
        assert!(
            !log.contains("serialized"),
            "{}: ptxas serialises the wgmma pipeline:\n{log}",
            v.name()
        );
    }
    if verbose {
        // The Hopper kernels may not spill at all; the portable ones their budget.
        let budget = if hopper { 0 } else { portable_spill_budget(v) };
        let spilled = spill_stores(&log);
        assert!(
            spilled <= budget,
            "{} for {arch}: {spilled} bytes of spill stores, more than its {budget}:\n{log}",
            v.name()
        );
    }
}

/// The bytes of spill stores ptxas reports (-v) for the one entry point of a log.
fn spill_stores(log: &str) -> usize {
    let at = log
        .find(" bytes spill stores")
        .unwrap_or_else(|| panic!("no spill report in the ptxas log:\n{log}"));
    let number = log[..at].rsplit(|c: char| !c.is_ascii_digit()).next();
    number
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no byte count before \"bytes spill stores\":\n{log}"))
}

/// What the portable kernels spilled at sm_80 with NVRTC 13.0 (`BLASST_PTXAS_VERBOSE=1
/// cargo run --release --example ptxas_report -- sm_80`), the most each may spill: the d = 128
/// prefill kernels over paged caches and the sweep 16-40 bytes (session 30); the d = 128 decode
/// kernels of the 2-stage pipeline that keeps an A100 at two CTAs per SM, 4 (paged and sweep,
/// under the 128 registers two CTAs leave: session 31; at 2 stages on the H200 that pipeline
/// read within 1-2 % of the 3-stage one, run 198); every other one none, at sm_86 too (the
/// d = 256 decode kernels spilled 108-124 until session 31 gave them launch bounds of the one CTA
/// per SM their shared memory holds: `nvrtc::decode_ctas_bound`). Their cost on sm_80-89 has
/// not been measured (no such GPU was lent); a change that spills more fails here.
fn portable_spill_budget(v: &Variant) -> usize {
    match (v.family, v.head_dim) {
        (Family::Prefill, 128) if v.paged || v.sweep => 40,
        (Family::Decode, 128) if v.stages == 2 => 4,
        // Padded head dims just below 128 on the portable prefill at 255 registers: d = 112
        // spills 16 bytes, d = 120 72 (both as much before session 33 cut its matrix products
        // to the head dim; d <= 104 and 40, 96, 160 none).
        (Family::Prefill, 128) if v.dim > 104 && v.dim < 128 => 72,
        _ => 0,
    }
}

/// src/cuda/mod.rs launches the kernels of an attention call with programmatic stream
/// serialisation on sm_90 and newer, so each may start while the previous kernel of the stream
/// is still running: each must call `pdl_wait()` (kernels/common.cuh) at its top, before it
/// reads inputs that kernel may still be writing. Text only, no NVRTC needed.
#[test]
fn attention_kernels_wait_for_the_previous_kernel() {
    for v in Variant::all(arch_smem_per_sm("sm_90a"))
        .iter()
        .filter(|v| v.family != Family::MergeStates)
    {
        let src = v.source();
        // (The last entry: the row-tile warps kernel follows kernels/decode_sm90.cu, whose own
        // entry it leaves out.)
        let entry = src
            .rfind("KERNEL_NAME(const __grid_constant__ KernelParams p)")
            .unwrap_or_else(|| panic!("{}: no kernel entry", v.name()));
        let body = &src[entry..];
        let wait = body
            .find("pdl_wait();")
            .unwrap_or_else(|| panic!("{}: the kernel never calls pdl_wait()", v.name()));
        // Nothing but declarations before it: no load_seq, no pointer use.
        assert!(
            !body[..wait].contains("p."),
            "{}: the kernel reads its parameters' memory before pdl_wait()",
            v.name()
        );
    }
}

/// The kernels read their one parameter, `KernelParams` (kernels/common.cuh), at the offsets the C
/// compiler gives it; the host fills the Rust mirror in src/cuda/mod.rs. A field or alignment that
/// differs moves everything after it (run 95: CUDA 13 aligns CUtensorMap to 128 bytes, the kernel
/// struct had 64, and every TMA copy faulted). Every family's PTX must declare the parameter
/// with the Rust struct's size and alignment.
#[test]
fn kernel_parameter_layout_matches_the_host() {
    if !available() {
        println!("skipped: NVRTC (libnvrtc.so.13) not found");
        return;
    }
    let (size, align) = KERNEL_PARAMS_LAYOUT;
    let mut seen = std::collections::HashSet::new();
    for v in Variant::all(arch_smem_per_sm("sm_90a")) {
        if v.family == Family::MergeStates || !seen.insert(v.family) {
            continue;
        }
        let ptx = compile(&v, "compute_90a").unwrap_or_else(|e| panic!("{}", e.message()));
        let ptx = String::from_utf8_lossy(&ptx);
        let decl = format!(".param .align {align} .b8 {}_param_0[{size}]", v.name());
        assert!(
            ptx.contains(&decl),
            "{}: the PTX does not declare `{decl}`",
            v.name()
        );
    }
    assert!(seen.len() >= 5, "families checked: {seen:?}");
}
