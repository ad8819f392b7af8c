//! GPU kernels against the CPU reference: dense values in every layout, skip decisions tile by
//! tile (same plan, clear margins), the dense/skip specialisations, paged vs contiguous decode,
//! calls captured in a CUDA graph.
//! Prints "skipped: no CUDA device" and passes where there is no GPU (CI); runs for real on the
//! GPU machine (scripts/device-check.sh).

mod common;
use blasst::attn::{
    BLASST_DEVICE_CUDA, BLASST_DTYPE_BF16, BLASST_DTYPE_F16, BLASST_PHASE_DECODE,
    BLASST_PHASE_PREFILL,
};
use blasst::cuda::DeviceBuffer;
use blasst::synth::{self, Rng};
use common::*;
use half::bf16;

fn seed() -> u64 {
    let s = std::env::var("BLASST_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed);
    println!("seed {s}");
    s
}

fn normal(rng: &mut Rng, _: char, _: usize, _: usize, _: usize) -> f32 {
    rng.normal()
}

fn max_diff(a: &[f32], b: &[f32], offs: &Built) -> f32 {
    // Only elements that belong to some row (strided gaps are never written).
    let mut m = 0f32;
    for s in &offs.q_off {
        for hs in s {
            for &o in hs {
                for i in 0..offs.case.d {
                    m = m.max((a[o + i] - b[o + i]).abs());
                }
            }
        }
    }
    m
}

/// The head dims the GPU tests cover: 64, 128 and 256, or those listed in `BLASST_TEST_HEAD_DIMS`
/// (e.g. `128`; on a GPU of 100 KB shared memory per SM, or the H200 emulating one with
/// `BLASST_SMEM_PER_SM=102400`, head dim 256 runs the compact prefill kernel since session 53,
/// and its decode calls the decode kernel of 32-key tiles since session 54).
fn head_dims() -> Vec<usize> {
    usizes_from_env("BLASST_TEST_HEAD_DIMS", &[64, 128, 256])
}

/// The head dims below a kernel's that the GPU tests cover: 40, 96 and 160, which run on the
/// d = 64, 128 and 256 kernels with their columns past the head dim zero-filled
/// (`blasst::attn::gpu_kernel_dim`), or those listed in `BLASST_TEST_PADDED_HEAD_DIMS` (empty:
/// none).
fn padded_head_dims() -> Vec<usize> {
    usizes_from_env("BLASST_TEST_PADDED_HEAD_DIMS", &[40, 96, 160])
}

/// The comma-separated numbers (head dims, case indices) in environment variable `var`, or
/// `default` when it is unset.
fn usizes_from_env(var: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(var) {
        Ok(v) => v
            .split(',')
            .filter(|d| !d.trim().is_empty())
            .map(|d| {
                d.trim().parse().unwrap_or_else(|_| {
                    panic!("{var}: comma-separated numbers, e.g. 64,128 (got {v:?})")
                })
            })
            .collect(),
        Err(_) => default.to_vec(),
    }
}

fn gpu_cases(dtype: u32) -> Vec<Case> {
    // (hq, hkv, lq per sequence, lk per sequence, layout), each for d 64, 128 and 256, causal or
    // not.
    let shapes: [(usize, usize, &[usize], &[usize], Layout); 23] = [
        // prefill: padded, odd lengths (not multiples of 128), GQA 4
        (8, 2, &[300, 300], &[300, 300], Layout::Bshd),
        // prefill with more CTAs (128 rows x head x sequence) than the H200 has multiprocessors
        // (132): padded (160) and ragged (240, the shorter sequences' upper row blocks without
        // rows)
        (16, 8, &[520, 520], &[520, 520], Layout::Bshd),
        (16, 4, &[600, 130, 260], &[600, 900, 260], Layout::Ragged),
        // Lq > Lk: causal, the first sequence's rows 0-399 see no key, so its first row blocks
        // have no KV tile to visit and only write zeros and -inf
        (16, 4, &[700, 50], &[300, 600], Layout::Ragged),
        // prefill: Lq < Lk (prefill with cache), [b, h, s, d] layout, MQA
        (4, 1, &[200], &[1000], Layout::Bhsd),
        // ragged prefill
        (4, 4, &[17, 260, 129], &[40, 260, 700], Layout::Ragged),
        // paged prefill-with-cache, 16- and 256-key pages (padded queries: every sequence has
        // max_seqlen_q rows, the only count a padded layout can express)
        (4, 2, &[130, 130], &[500, 333], Layout::Paged(16)),
        (4, 2, &[200, 200], &[700, 450], Layout::Paged(256)),
        // decode: contiguous and paged, several page sizes, lengths not multiples of 64
        // (2 and 4 KV splits: on Hopper merged inside a thread-block cluster)
        (32, 8, &[1, 1, 1], &[5000, 77, 1], Layout::Bshd),
        (32, 8, &[1, 1], &[3000, 200], Layout::Paged(16)),
        (32, 8, &[1, 1], &[3000, 200], Layout::Paged(32)),
        (32, 8, &[1, 1], &[3000, 200], Layout::Paged(64)),
        (32, 8, &[1, 1], &[3000, 200], Layout::Paged(256)),
        // a short cache: one KV split on every GPU and tile length (at d = 256 on GPUs of
        // 100 KB the 32-key decode kernel splits the cases above into 2 or more)
        (32, 8, &[1, 1], &[300, 77], Layout::Paged(32)),
        // 19 splits: more than a cluster merges (MAX_CLUSTER_MERGE_SPLITS = 4), so the Hopper
        // kernel writes the workspace and kernels/merge.cu merges
        (8, 2, &[1], &[20000], Layout::Bshd),
        // 2 tokens x GQA 8 = 16 rows (the largest row tile of the Hopper decode kernel; at
        // d = 256 two row tiles of 8, and the second sequence's second tile empty)
        (16, 2, &[2, 1], &[1900, 4100], Layout::Ragged),
        // speculative decode: 4 tokens x GQA 8 = 32 rows (on Hopper at d = 128 four row tiles of
        // 8 in one CTA of the row-tile warps kernel (contiguous and paged caches), at d = 64 two
        // row tiles of 16; at d = 256
        // and elsewhere one tile of the portable kernel); MHA decode
        (16, 2, &[4, 4], &[2500, 900], Layout::Bshd),
        // 3 tokens x GQA 8 = 24 rows: the second row tile half full, paged
        (16, 2, &[3, 3], &[1500, 2200], Layout::Paged(64)),
        // 16-row tiles over 16- and 32-key pages (on Hopper the small-page kernel with its
        // block-table entries in lanes, each warp copying its own page of a tile)
        (16, 2, &[2, 2], &[1900, 4100], Layout::Paged(16)),
        (16, 2, &[3, 3], &[1500, 2200], Layout::Paged(32)),
        (4, 4, &[2, 1, 2], &[700, 64, 1500], Layout::Ragged),
        // Several row tiles of ragged sequences (on Hopper 16-row tiles at d = 64; at d = 128 8-row
        // tiles, four per CTA of the row-tile warps kernel, whose warps of empty tiles return):
        // 6 tokens x GQA 8 = 48 rows, the second sequence's 3 tokens (24 rows) leaving tiles
        // without rows; 8 tokens = 64 rows (two CTAs per KV head at d = 128), the second
        // sequence's one token (8 rows) only its first tile, the third sequence's 64 keys one KV
        // tile
        (16, 2, &[6, 3], &[3000, 700], Layout::Ragged),
        (16, 2, &[8, 1, 2], &[2100, 5000, 64], Layout::Ragged),
    ];
    // Long calls of 32 packed rows at d = 128 (on Hopper the row-tile warps kernel, 4 KV heads x
    // 48 splits = 192 CTAs; with BLASST_DECODE_WARPS=0, two 16-row tiles on the Hopper decode
    // kernel, two CTAs per SM): 4 tokens x GQA 8, contiguous, over 16-key pages, and ragged (two
    // sequences).
    let long_spec: [(usize, usize, &[usize], &[usize], Layout); 3] = [
        (32, 4, &[4], &[50000], Layout::Bshd),
        (32, 4, &[4], &[50000], Layout::Paged(16)),
        (32, 4, &[4, 3], &[30000, 26000], Layout::Ragged),
    ];
    let mut v = vec![];
    for d in head_dims() {
        for causal in [false, true] {
            let extra: &[_] = if d == 128 { &long_spec } else { &[] };
            for &(hq, hkv, lq, lk, layout) in shapes.iter().chain(extra) {
                v.push(Case::of((hq, hkv, lq, lk, layout), d, causal, dtype));
            }
        }
    }
    v
}

/// Runs `bt` dense on the GPU and on the CPU backend with the GPU's plan (made for this GPU's
/// multiprocessors), and checks the GPU output and LSE against float64 attention and the CPU's
/// (bf16 within 2.5e-2, fp16 within 4e-3) and its visited tiles against the CPU's, none skipped.
/// `label` names the case in a failure. Returns the GPU run and its error against float64.
fn dense_checked(bt: &Built, label: &str) -> (RunOut, f64, f64) {
    let bf16 = bt.case.dtype == BLASST_DTYPE_BF16;
    let g = run_gpu_of_dtype(bt, 0.0).unwrap_or_else(|e| panic!("{label}: {}", e.message()));
    let cpu = run_of_dtype(bt, 0.0, Some(&g.plan)).unwrap();
    let (eo, el) = max_err(bt, &g, &reference(bt));
    let tol = if bf16 { 2.5e-2 } else { 4e-3 };
    assert!(
        eo < tol && el < 2e-3,
        "{label}: GPU vs float64: o {eo:e}, lse {el:e}"
    );
    let d = max_diff(&g.o, &cpu.o, bt);
    assert!((d as f64) < tol, "{label}: GPU vs CPU {d:e}");
    assert_eq!(
        g.stats,
        [cpu.stats[0], 0],
        "{label}: visited tiles differ from the CPU plan, or some skipped"
    );
    (g, eo, el)
}

#[test]
fn dense_matches_cpu_and_float64() {
    if !gpu() {
        return;
    }
    let mut rng = Rng::new(seed());
    // KV split counts of decode plans seen: 1, 2-4 (Hopper: merged inside a thread-block
    // cluster) and more (merged by kernels/merge.cu) must all be covered, unless no decode kernel
    // fits this GPU at the head dims tested (where decode-shaped calls take the prefill plan:
    // their phase is checked instead); decode plans' tiles are 32 keys at d = 256 on a GPU of
    // 100 KB, else 64.
    let mut splits_seen = std::collections::BTreeSet::new();
    let decode_runs = head_dims().iter().any(|&d| decode_kernel_fits_here(d));
    for dtype in [BLASST_DTYPE_BF16, BLASST_DTYPE_F16] {
        for c in gpu_cases(dtype) {
            let bt = c.build(&mut rng, &mut normal);
            let (g, eo, el) = dense_checked(&bt, &format!("{c:?}"));
            let splits = g.plan.num_kv_splits;
            let decode_shaped =
                blasst::attn::plan::is_decode(*c.lq.iter().max().unwrap(), c.hq / c.hkv);
            let phase = if decode_shaped && decode_kernel_fits_here(c.d) {
                BLASST_PHASE_DECODE
            } else {
                BLASST_PHASE_PREFILL
            };
            assert_eq!(g.plan.phase, phase, "{c:?}: phase");
            if phase == BLASST_PHASE_DECODE {
                splits_seen.insert(splits);
                assert_eq!(g.plan.block_n, decode_block_n_here(c.d), "{c:?}: block_n");
            }
            println!(
                "ok {:?} d={} causal={} lq={:?} lk={:?} phase={} splits={splits}: o err {eo:.2e} lse err {el:.2e}",
                c.layout, c.d, c.causal, c.lq, c.lk, g.plan.phase
            );
        }
    }
    assert!(
        !decode_runs
            || (splits_seen.contains(&1)
                && splits_seen.iter().any(|s| (2..=4).contains(s))
                && splits_seen.iter().any(|&s| s > 4)),
        "decode split counts covered: {splits_seen:?}"
    );
}

/// The shared memory per SM the GPU tests run under: `BLASST_SMEM_PER_SM` (the H100/H200
/// emulating a GPU of less), or no limit.
fn emulated_smem() -> usize {
    std::env::var("BLASST_SMEM_PER_SM")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(usize::MAX)
}

/// Whether a decode kernel runs head dim `d` on this GPU: everywhere a 16-row CTA of the
/// portable kernel at 32-key tiles fits (80896 bytes per SM at d = 256), so on every GPU blasst
/// runs on; below that, d > 128 (the d = 256 kernel) takes the prefill plan
/// (`blasst::cuda::decode_fits`).
fn decode_kernel_fits_here(d: usize) -> bool {
    d <= 128 || emulated_smem() >= 80896
}

/// The decode plan's keys per tile at head dim `d` on this GPU: 64, but 32 at d > 128 (the
/// d = 256 kernel) where 64-key tiles do not fit: on a GPU of 100 KB, which the GPU tests meet
/// as the H100/H200 emulating one (`BLASST_SMEM_PER_SM=102400`).
fn decode_block_n_here(d: usize) -> u32 {
    if d > 128 && emulated_smem() <= 102400 {
        32
    } else {
        64
    }
}

/// Head dims below a kernel's (40, 96, 160 on the d = 64, 128, 256 kernels, zero-padded): dense
/// output against float64 and the CPU in the main layouts (prefill padded, ragged, [b, h, s, d]
/// and paged; decode contiguous and paged, 1, 2-4 and 19 KV splits, row tiles), causal or not;
/// with every head's row followed by a gap (`Layout::BshdGaps`) that holds `GAP` in Q, K and V
/// (a gap read into a score would swamp it) and is never written in O. Then Skip-Softmax on
/// clear-margin inputs skips exactly the CPU's tiles.
#[test]
fn padded_head_dims_match_cpu_and_float64() {
    if !gpu() {
        return;
    }
    let dims = padded_head_dims();
    if dims.is_empty() {
        println!("skipped: BLASST_TEST_PADDED_HEAD_DIMS is empty");
        return;
    }
    let mut rng = Rng::new(seed());
    let mut splits_seen = std::collections::BTreeSet::new();
    for &d in &dims {
        let gaps = Layout::BshdGaps(d + 24);
        let shapes: [(usize, usize, &[usize], &[usize], Layout); 12] = [
            (8, 2, &[300, 300], &[300, 300], Layout::Bshd),
            (16, 4, &[600, 130, 260], &[600, 900, 260], Layout::Ragged),
            (4, 1, &[200], &[1000], Layout::Bhsd),
            (4, 2, &[130, 130], &[500, 333], Layout::Paged(16)),
            (4, 2, &[200, 200], &[700, 450], gaps),
            (32, 8, &[1, 1, 1], &[5000, 77, 1], Layout::Bshd),
            (32, 8, &[1, 1], &[3000, 200], Layout::Paged(64)),
            (32, 8, &[1, 1], &[3000, 200], gaps),
            (8, 2, &[1], &[20000], gaps),
            (16, 2, &[2, 1], &[1900, 4100], Layout::Ragged),
            (16, 2, &[4, 4], &[2500, 900], Layout::Bshd),
            (16, 2, &[3, 3], &[1500, 2200], gaps),
        ];
        for causal in [false, true] {
            for shape in shapes {
                let (_, _, lq, lk, layout) = shape;
                let c = Case::of(shape, d, causal, BLASST_DTYPE_BF16);
                let bt = c.build(&mut rng, &mut normal);
                let (g, eo, el) = dense_checked(&bt, &format!("{c:?}"));
                splits_seen.insert(g.plan.num_kv_splits);
                if let Layout::BshdGaps(w) = layout {
                    // Every head's gap of O is as it was (poisoned): nothing past the head dim
                    // is stored.
                    let mut gaps_seen = 0;
                    for s in &bt.q_off {
                        for hs in s {
                            for &o in hs {
                                for i in d..w {
                                    assert!(
                                        (g.o[o + i] - POISON).abs() < 64.0,
                                        "{c:?}: o[{}] past the head dim was written: {}",
                                        o + i,
                                        g.o[o + i]
                                    );
                                    gaps_seen += 1;
                                }
                            }
                        }
                    }
                    assert!(gaps_seen > 0);
                }
                println!(
                    "ok {:?} d={d} causal={causal} lq={lq:?} lk={lk:?} splits={}: o err {eo:.2e} lse err {el:.2e}",
                    layout, g.plan.num_kv_splits
                );
            }
        }
    }
    assert!(
        splits_seen.contains(&1)
            && splits_seen.iter().any(|s| (2..=4).contains(s))
            && splits_seen.iter().any(|&s| s > 4),
        "split counts covered: {splits_seen:?}"
    );
    let shapes: [Shape; 5] = [
        (1024, 1024, 4, 2, true, 0.2, Layout::Bshd),
        (900, 2000, 24, 8, true, 0.2, Layout::Paged(64)),
        (1, 8192, 32, 8, false, 0.2, Layout::Bshd),
        (1, 20000, 32, 8, false, 0.3, Layout::Paged(16)),
        (4, 6000, 16, 2, true, 0.2, Layout::Bshd),
    ];
    for_each_structured_at(&dims, &shapes, |label, bt, factor| {
        let (g, diff) = gpu_matches_cpu(bt, factor, label);
        println!(
            "{label}: skipped {} of {} tiles, |GPU - CPU| {diff:.2e}",
            g.stats[1], g.stats[0]
        );
        g.stats
    });
}

/// `o` may be `q` itself (the same pointer and strides): each query row is read by the CTAs
/// that write its output row, before they write it (prefill: one CTA; decode: the splits of a
/// row tile, merged in their cluster after all have read Q, or by the merge kernel), and by no
/// others. Every layout of `gpu_cases` at d = 128 (1, 2-4 and 19 KV splits; at the first of
/// `BLASST_TEST_HEAD_DIMS` when it leaves 128 out), dense and while skipping: the same bits as
/// out of place.
#[test]
fn output_may_overwrite_the_queries() {
    if !gpu() {
        return;
    }
    let dims = head_dims();
    let d = if dims.contains(&128) { 128 } else { dims[0] };
    let mut rng = Rng::new(seed());
    let mut skipped = 0;
    for c in gpu_cases(BLASST_DTYPE_BF16)
        .into_iter()
        .filter(|c| c.d == d)
    {
        let bt = c.build(&mut rng, &mut normal);
        let lk = *c.lk.iter().max().unwrap() as f32;
        for factor in [0.0, 0.5 * lk] {
            let apart =
                run_gpu::<bf16>(&bt, factor).unwrap_or_else(|e| panic!("{c:?}: {}", e.message()));
            let same = run_gpu_in_place::<bf16>(&bt, factor).unwrap();
            assert!(
                same_out(&apart, &same),
                "{c:?} factor {factor}: in place differs (splits {}, stats {:?} vs {:?})",
                apart.plan.num_kv_splits,
                apart.stats,
                same.stats
            );
            skipped += apart.stats[1];
        }
    }
    assert!(skipped > 0, "no case skipped a tile");
}

/// Paged prefill without `num_pages` (0: unknown): the Hopper kernel's tensor maps then span
/// `i32::MAX` pages (src/cuda/mod.rs tensor_maps), and its output and skip counts must be those of
/// the same call with `num_pages` given, bit for bit, dense and skipping (structured inputs,
/// 16-, 64- and 256-key pages, d 64, 128, 256). (That both calls take the TMA copies, rather than
/// one falling back to cp.async, bench/check_paged_prefill.py checks by timing them.)
#[test]
fn paged_prefill_without_num_pages_matches_with() {
    if !gpu() {
        return;
    }
    let shapes: [Shape; 3] = [
        (700, 1500, 8, 2, true, 0.2, Layout::Paged(16)),
        (300, 1000, 4, 1, false, 0.2, Layout::Paged(64)),
        (500, 1200, 8, 2, false, 0.25, Layout::Paged(256)),
    ];
    for_each_structured(&shapes, |label, bt, factor| {
        let num_pages = bt.params.num_pages;
        assert!(num_pages > 0);
        let mut skipped = [0u64; 2];
        for f in [0.0, factor] {
            bt.params.num_pages = num_pages;
            let given =
                run_gpu::<bf16>(bt, f).unwrap_or_else(|e| panic!("{label}: {}", e.message()));
            bt.params.num_pages = 0;
            let unknown =
                run_gpu::<bf16>(bt, f).unwrap_or_else(|e| panic!("{label}: {}", e.message()));
            assert!(
                same_out(&given, &unknown),
                "{label} factor {f}: num_pages 0 differs (stats {:?} vs {:?})",
                given.stats,
                unknown.stats
            );
            if f > 0.0 {
                skipped = given.stats;
            }
        }
        skipped
    });
}

/// K/V heads or sequences that share memory (stride 0: valid for inputs, e.g. one KV head or one
/// cached prompt broadcast). A tensor map cannot describe them (src/cuda/mod.rs tma_strides), so
/// the Hopper prefill kernel copies them with cp.async; every kernel must read the shared rows.
/// Dense output vs the CPU backend (same plan) and float64; the skip kernel with nothing skipped
/// gives the dense output bit for bit.
#[test]
fn kv_shared_across_heads_or_sequences() {
    if !gpu() {
        return;
    }
    let mut rng = Rng::new(seed());
    // (shared dimension, hq, hkv, lq, lk): GQA 4 prefill, two sequences of 260, GQA 4 decode.
    let shapes: [(SharedKv, usize, usize, &[usize], &[usize]); 3] = [
        (SharedKv::Heads, 8, 2, &[300], &[300]),
        (SharedKv::Sequences, 4, 4, &[260, 260], &[260, 260]),
        (SharedKv::Heads, 32, 8, &[1], &[3000]),
    ];
    for d in [64usize, 128] {
        for causal in [false, true] {
            for (shared, hq, hkv, lq, lk) in shapes {
                let c = Case::of(
                    (hq, hkv, lq, lk, Layout::Bshd),
                    d,
                    causal,
                    BLASST_DTYPE_BF16,
                );
                let mut bt = c.build(&mut rng, &mut normal);
                bt.share_kv(shared);
                let (g, eo, el) = dense_checked(&bt, &format!("{c:?} shared {shared:?}"));
                // The skip kernel (its own copies) with a factor that skips nothing: the dense
                // kernel's output bit for bit.
                let sk = run_gpu::<bf16>(&bt, 1e-30).unwrap();
                assert_eq!(
                    sk.stats,
                    [g.stats[0], 0],
                    "{c:?} shared {shared:?}: skip stats"
                );
                assert!(
                    same_bits(&sk.o, &g.o),
                    "{c:?} shared {shared:?}: skip kernel output differs from dense"
                );
                println!(
                    "ok shared {shared:?} d={d} causal={causal} lq={lq:?} lk={lk:?}: o err {eo:.2e} lse err {el:.2e}"
                );
            }
        }
    }
}

/// More sequences than the grid's z dimension holds (65535): the call is several launches, each
/// told its first sequence (src/cuda/mod.rs launch_seqs). Ragged prefill of 70000 short sequences
/// and ragged decode of 70000 one-token sequences vs the CPU backend and float64; the visited
/// tile counts cover every sequence.
#[test]
fn more_sequences_than_one_grid_holds() {
    if !gpu() {
        return;
    }
    let mut rng = Rng::new(seed());
    const N: usize = 70_000;
    // 1-4 tokens, every 5000th sequence 12 (more than a decode call's 8 query tokens: prefill).
    let short: Vec<usize> = (0..N)
        .map(|i| if i % 5000 == 4999 { 12 } else { 1 + i % 4 })
        .collect();
    // Decode keys: 3 or 17, every 16th sequence 70 (two key tiles); few keys keep the inputs'
    // generation and the float64 reference quick.
    let keys: Vec<usize> = (0..N)
        .map(|i| if i % 16 == 0 { 70 } else { [3, 17][i % 2] })
        .collect();
    // (hq, hkv, lq, lk, causal, phase): prefill with GQA 2, decode with GQA 4.
    for (hq, hkv, lq, lk, causal, phase) in [
        (
            2,
            1,
            short.clone(),
            short.clone(),
            true,
            BLASST_PHASE_PREFILL,
        ),
        (4, 1, vec![1; N], keys, false, BLASST_PHASE_DECODE),
    ] {
        let c = Case {
            hq,
            hkv,
            d: 64,
            lq,
            lk,
            causal,
            layout: Layout::Ragged,
            dtype: BLASST_DTYPE_BF16,
        };
        let bt = c.build(&mut rng, &mut normal);
        let g = run_gpu::<bf16>(&bt, 0.0)
            .unwrap_or_else(|e| panic!("{hq}/{hkv} causal {causal}: {}", e.message()));
        assert_eq!(g.plan.phase, phase, "{N} sequences {hq}/{hkv}: phase");
        let cpu = run::<bf16>(&bt, 0.0, Some(&g.plan)).unwrap();
        let (eo, el) = max_err(&bt, &g, &reference(&bt));
        let diff = max_diff(&g.o, &cpu.o, &bt);
        assert!(
            eo < 2.5e-2 && el < 2e-3 && diff < 2.5e-2,
            "{N} sequences, {hq}/{hkv} causal {causal}: vs float64 o {eo:e} lse {el:e}, vs CPU {diff:e}"
        );
        assert_eq!(g.stats[0], cpu.stats[0], "{N} sequences: visited tiles");
        assert!(g.stats[0] >= N as u64);
        println!(
            "ok {N} sequences {hq}/{hkv} causal {causal} phase {}: o err {eo:.2e} lse err {el:.2e}, {} tiles",
            g.plan.phase, g.stats[0]
        );
    }
}

/// Structured clear-margin inputs (synth): the GPU skips exactly what the CPU skips.
#[test]
fn skip_decisions_match_the_cpu_tile_by_tile() {
    if !gpu() {
        return;
    }
    let shapes: [Shape; 16] = [
        (1024, 1024, 4, 4, false, 0.2, Layout::Bshd),
        (1024, 1024, 4, 2, true, 0.2, Layout::Bshd),
        // more CTAs than multiprocessors (256 and 192, GQA 4 and 3), paged among them
        (1024, 1024, 32, 8, true, 0.2, Layout::Bshd),
        (900, 2000, 24, 8, true, 0.2, Layout::Paged(64)),
        (300, 2000, 8, 2, true, 0.15, Layout::Bshd),
        (700, 3000, 4, 1, false, 0.3, Layout::Paged(64)),
        (1, 8192, 32, 8, false, 0.2, Layout::Bshd),
        (1, 20000, 32, 8, false, 0.3, Layout::Paged(16)),
        (4, 6000, 16, 2, true, 0.2, Layout::Bshd),
        (2, 6000, 16, 2, true, 0.2, Layout::Bshd),
        (3, 6000, 16, 2, false, 0.2, Layout::Paged(64)),
        (1, 9000, 16, 8, false, 0.25, Layout::Paged(64)),
        // row tiles of 16 over 16-key pages (3 tokens x GQA 8: two tiles, the second half full)
        (3, 6000, 16, 2, false, 0.2, Layout::Paged(16)),
        // several row tiles (6 tokens x GQA 8: three of 16 at d = 64, six of 8 at d = 128), each
        // deciding alone
        (6, 6000, 16, 2, true, 0.2, Layout::Bshd),
        // prefill over pages under 64 keys (at d = 128 the overlapped Skip-Softmax kernel with
        // split K and V barriers, and the dense one over 16-key pages: `Variant::with_small_pages`)
        (700, 1500, 8, 2, true, 0.2, Layout::Paged(16)),
        (500, 1200, 8, 2, false, 0.2, Layout::Paged(32)),
    ];
    let mut check = |label: &str, bt: &mut Built, factor: f32| {
        let (g, _) = gpu_matches_cpu(bt, factor, label);
        let dense = run_gpu::<bf16>(bt, 0.0).unwrap();
        let err = max_diff(&g.o, &dense.o, bt);
        assert!(err < 5e-2, "{label}: sparse vs dense {err}");
        println!(
            "{label}: skipped {} of {} tiles, |sparse - dense| {err:.2e}",
            g.stats[1], g.stats[0]
        );
        g.stats
    };
    for_each_structured(&shapes, &mut check);
    // Long calls of 32 packed rows at d = 128 (on Hopper the row-tile warps kernel; with
    // BLASST_DECODE_WARPS=0 two 16-row tiles on the Hopper decode kernel).
    let long_spec: [Shape; 2] = [
        (4, 50000, 32, 4, false, 0.2, Layout::Bshd),
        (4, 50000, 32, 4, true, 0.2, Layout::Paged(64)),
    ];
    if head_dims().contains(&128) {
        for_each_structured_at(&[128], &long_spec, &mut check);
    }
}

/// A structured clear-margin case without its head dim: (lq, lk, hq, hkv, causal, hot fraction,
/// layout).
type Shape = (usize, usize, usize, usize, bool, f64, Layout);

/// Builds each of `shapes` at head dims 64, 128 and 256 (shape i's inputs from seed + i) and
/// hands it to `check` with a label and the factor that skips the tiles whose best score is more
/// than 8 nats below the running maximum (e^-8 x lk). `check` returns the (visited, skipped)
/// tiles of its skipping call: a sparse test that skips nothing proves nothing, so every case
/// must skip some tile, and all of them together more than 30 %.
fn for_each_structured(shapes: &[Shape], check: impl FnMut(&str, &mut Built, f32) -> [u64; 2]) {
    for_each_structured_at(&head_dims(), shapes, check)
}

/// `for_each_structured` at head dims `dims`: every shape, or those whose indices in `shapes`
/// `BLASST_TEST_CASES` lists (e.g. `1,10,12`: the cases a memcheck run must fit into its time
/// limit; session 47).
fn for_each_structured_at(
    dims: &[usize],
    shapes: &[Shape],
    mut check: impl FnMut(&str, &mut Built, f32) -> [u64; 2],
) {
    let sd = seed();
    let cases = usizes_from_env("BLASST_TEST_CASES", &(0..shapes.len()).collect::<Vec<_>>());
    let mut total = [0u64; 2];
    for (i, &(lq, lk, hq, hkv, causal, hot, layout)) in shapes.iter().enumerate() {
        if !cases.contains(&i) {
            continue;
        }
        for &d in dims {
            let mut bt = structured_case(
                (lq, lk, hq, hkv, d, causal, hot, layout),
                sd,
                sd.wrapping_add(i as u64),
            );
            let factor = ((-8.0f64).exp() * lk as f64) as f32;
            let label = format!("case {i} d {d}");
            let stats = check(&label, &mut bt, factor);
            assert!(
                stats[1] > 0,
                "{label}: a sparse test that skips nothing proves nothing ({stats:?})"
            );
            total[0] += stats[0];
            total[1] += stats[1];
        }
    }
    if total[0] == 0 {
        println!(
            "no case run: BLASST_TEST_CASES lists none of these {} shapes",
            shapes.len()
        );
        return;
    }
    let frac = total[1] as f64 / total[0] as f64;
    assert!(frac > 0.3, "overall skipped fraction {frac}");
}

/// Runs `bt` with `factor` on the GPU and on the CPU backend (same plan): the same tiles are
/// visited and skipped, and the outputs agree within bf16 tolerance. Returns the GPU run and
/// the largest difference.
fn gpu_matches_cpu(bt: &Built, factor: f32, label: &str) -> (RunOut, f32) {
    let g = run_gpu::<bf16>(bt, factor).unwrap_or_else(|e| panic!("{}", e.message()));
    let cpu = run::<bf16>(bt, factor, Some(&g.plan)).unwrap();
    assert_eq!(
        g.stats, cpu.stats,
        "{label}: GPU {:?} vs CPU {:?}",
        g.stats, cpu.stats
    );
    let diff = max_diff(&g.o, &cpu.o, bt);
    assert!(diff < 3e-2, "{label}: sparse GPU vs sparse CPU {diff}");
    (g, diff)
}

/// lambda > 1 (the Hopper prefill kernel votes in a chain there, in parallel for lambda <= 1):
/// with lambda = e^8 every tile whose best score is less than 8 nats above the running maximum
/// is skipped, i.e. all but the first tiles (hot scores sit ~16 nats above the noise and within
/// a few nats of each other: clear margins). GPU and CPU skip the same tiles and agree.
#[test]
fn skip_decisions_match_the_cpu_with_lambda_above_one() {
    if !gpu() {
        return;
    }
    let sd = seed();
    for (i, &case) in [
        (
            1024usize,
            1024usize,
            4usize,
            4usize,
            128usize,
            false,
            0.3,
            Layout::Bshd,
        ),
        (1024, 2048, 4, 2, 64, true, 0.3, Layout::Bshd),
        (1, 8192, 32, 8, 128, false, 0.3, Layout::Bshd),
    ]
    .iter()
    .enumerate()
    {
        let bt = structured_case(case, sd, sd.wrapping_add(100 + i as u64));
        let factor = (8.0f64.exp() * case.1 as f64) as f32;
        let (g, diff) = gpu_matches_cpu(&bt, factor, &format!("lambda e^8 case {i}"));
        assert!(
            g.stats[1] * 2 > g.stats[0],
            "case {i}: lambda = e^8 should skip most tiles: {:?}",
            g.stats
        );
        println!(
            "lambda e^8 case {i}: skipped {} of {} tiles, |GPU - CPU| {diff:.2e}",
            g.stats[1], g.stats[0]
        );
    }
}

/// The skip specialisation with a threshold so small nothing is skipped is bit-identical to the
/// dense specialisation, and factor 0 is the dense kernel.
#[test]
fn skip_kernel_that_skips_nothing_is_bit_identical_to_dense() {
    if !gpu() {
        return;
    }
    let mut rng = Rng::new(seed());
    let shapes: [(usize, usize, &[usize], &[usize], Layout, bool); 4] = [
        // 224 CTAs: more than the H200's 132 multiprocessors
        (32, 8, &[777], &[777], Layout::Bshd, true),
        (32, 8, &[1, 1], &[9000, 3000], Layout::Bshd, false),
        // Prefill over 16- and 32-key pages: on Hopper the Skip-Softmax kernel is the small-page
        // one at both, the dense kernel at 16 only; at 32 it is the `_paged` kernel
        // (`Variant::with_small_pages`, session 66), whose arithmetic is the same.
        (8, 2, &[700], &[1500], Layout::Paged(16), true),
        (8, 2, &[500], &[1200], Layout::Paged(32), false),
    ];
    for (hq, hkv, lq, lk, layout, causal) in shapes {
        let c = Case::of((hq, hkv, lq, lk, layout), 128, causal, BLASST_DTYPE_BF16);
        let bt = c.build(&mut rng, &mut normal);
        let dense = run_gpu::<bf16>(&bt, 0.0).unwrap();
        let tiny = run_gpu::<bf16>(&bt, 1e-30).unwrap();
        assert_eq!(tiny.stats[1], 0);
        assert!(same_bits(&dense.o, &tiny.o), "{c:?}: outputs differ");
    }
}

/// Engines capture decode in CUDA graphs: a captured call (programmatic dependent launch,
/// thread-block clusters, the merge kernel, a stream-ordered workspace allocation) replays to
/// the same bits as a direct call, and its skip statistics count each replay.
#[test]
fn calls_replay_inside_a_cuda_graph() {
    if !gpu() {
        return;
    }
    let mut rng = Rng::new(seed());
    let shapes: [(usize, usize, &[usize], &[usize], Layout, bool); 3] = [
        // decode, 2 KV splits (on Hopper merged inside a cluster), paged
        (32, 8, &[1, 1], &[3000, 200], Layout::Paged(64), false),
        // decode, 19 splits (workspace and kernels/merge.cu)
        (8, 2, &[1], &[20000], Layout::Bshd, false),
        // prefill, causal, 192 CTAs (more than one wave on the H200)
        (32, 8, &[300, 300], &[300, 300], Layout::Bshd, true),
    ];
    for (hq, hkv, lq, lk, layout, causal) in shapes {
        let c = Case::of((hq, hkv, lq, lk, layout), 128, causal, BLASST_DTYPE_BF16);
        let bt = c.build(&mut rng, &mut normal);
        for factor in [0.0, 1e-30] {
            let direct = run_gpu::<bf16>(&bt, factor).unwrap();
            let splits = direct.plan.num_kv_splits;
            for workspace in [true, false] {
                let g = run_gpu_with::<bf16>(&bt, factor, &|p| run_in_graph(p, workspace))
                    .unwrap_or_else(|e| panic!("{c:?}: {}", e.message()));
                assert!(
                    same_bits(&g.o, &direct.o),
                    "{c:?} factor {factor} workspace {workspace}: graph output differs"
                );
                assert_eq!(
                    g.stats,
                    [2 * direct.stats[0], 2 * direct.stats[1]],
                    "{c:?}: two replays count twice"
                );
            }
            println!(
                "ok graph {layout:?} lq={lq:?} lk={lk:?} splits={splits} factor={factor}: visited {}",
                direct.stats[0]
            );
        }
    }
}

#[test]
fn host_pointers_are_rejected() {
    if !gpu() {
        return;
    }
    let mut rng = Rng::new(1);
    let c = Case {
        hq: 2,
        hkv: 2,
        d: 64,
        lq: vec![8],
        lk: vec![8],
        causal: false,
        layout: Layout::Bshd,
        dtype: BLASST_DTYPE_BF16,
    };
    let bt = c.build(&mut rng, &mut normal);
    let host = vec![bf16::ZERO; 4096];
    let mut p = bt.params;
    p.device = BLASST_DEVICE_CUDA;
    let ptr = host.as_ptr().cast();
    (p.q, p.k, p.v, p.o) = (ptr, ptr, ptr, ptr as *mut _);
    let e = unsafe { blasst::attn::run(&p, std::ptr::null_mut()) }.unwrap_err();
    assert_eq!(e.kind(), blasst::StatusKind::InvalidArgument);
    assert!(e.message().contains("is host memory"), "{}", e.message());
    // And the reverse: device memory on the CPU path is rejected, not dereferenced.
    let dev = DeviceBuffer::new(4096 * 2).unwrap();
    let mut p = bt.params;
    let ptr = dev.ptr();
    (p.q, p.k, p.v, p.o) = (ptr, ptr, ptr, ptr);
    let e = unsafe { blasst::attn::run(&p, std::ptr::null_mut()) }.unwrap_err();
    assert!(e.message().contains("is device memory"), "{}", e.message());
}

/// The plan `blasst_attn_plan` gives a contiguous bf16 CUDA skip call of `shape` on this GPU (the
/// plan the calibration sweep runs).
fn gpu_plan(
    shape: blasst::cpu::Shape,
    q: &[bf16],
    k: &[bf16],
    v: &[bf16],
) -> blasst::attn::AttnPlanInfo {
    let opts = blasst::cpu::Options::default();
    let mut p = blasst::cpu::contiguous_params(shape, BLASST_DTYPE_BF16, BLASST_DEVICE_CUDA, &opts)
        .unwrap();
    let bufs: Vec<DeviceBuffer> = [q, k, v, q]
        .iter()
        .map(|x| DeviceBuffer::from_slice(x).unwrap())
        .collect();
    (p.q, p.k, p.v, p.o) = (bufs[0].ptr(), bufs[1].ptr(), bufs[2].ptr(), bufs[3].ptr());
    // The sweep runs a skip call's plan (a dense decode call's splits can differ).
    p.threshold_scale_factor = 1.0;
    blasst::attn::plan(&p).unwrap()
}

/// The GPU calibration sweep (one launch of the sweep specialisation) counts exactly what the
/// CPU sweep counts and what separate GPU skip runs skip (lambda <= 1, powers of two).
#[test]
fn calibration_sweep_matches_cpu_and_separate_runs() {
    if !gpu() {
        return;
    }
    use blasst::cpu::Options;
    let lambdas: Vec<f32> = (1..=12).map(|k| 2f32.powi(-k)).chain([1.0, 4.0]).collect();
    for (name, lq, lk, (heads, kv_heads), d) in [
        ("prefill", 1024usize, 2048usize, (4usize, 4usize), 128usize),
        ("prefill d64 causal-free", 700, 3000, (2, 2), 64),
        // 192 CTAs (more than one wave): every CTA's sweep counts reach the totals
        ("prefill many tiles", 1024, 1024, (24, 24), 128),
        ("decode split-KV", 1, 16384, (8, 8), 128),
        // 4 tokens x GQA 8: on Hopper four 8-row tiles of the row-tile warps kernel, whose sweep
        // and skip builds run the same plan
        ("speculative decode", 4, 50000, (32, 4), 128),
        ("prefill d256", 600, 1500, (2, 2), 256),
        ("decode d256", 1, 8192, (8, 8), 256),
    ]
    .into_iter()
    .filter(|c| head_dims().contains(&c.4))
    {
        let s = synth::structured(lq, lk, heads, kv_heads, d, 0.2, 16.0, 21);
        let (q, k, v) = s.to_bf16();
        let shape = s.shape;
        let mut o = vec![bf16::ZERO; q.len()];
        let (gv, gc) = blasst::host::calibrate_sweep(
            blasst::Device::Cuda,
            shape,
            &q,
            &k,
            &v,
            &mut o,
            Options::default(),
            &lambdas,
        )
        .unwrap();
        // The CPU runs the GPU's plan (its decode splits are made for this GPU).
        let plan = gpu_plan(shape, &q, &k, &v);
        let warps_switched_off = [
            ("BLASST_DECODE_KERNEL", "mma"),
            ("BLASST_DECODE_WARPS", "0"),
        ]
        .iter()
        .any(|(k, v)| std::env::var(k).is_ok_and(|x| x.trim() == *v));
        if name == "speculative decode"
            && blasst::cuda::current_arch().unwrap() == "sm_90a"
            && !warps_switched_off
        {
            // The row-tile warps kernel's plan: 8-row tiles (4 KV heads x 1 CTA x 48 splits);
            // not with the portable kernels (`BLASST_DECODE_KERNEL=mma`: one 32-row tile) or
            // `BLASST_DECODE_WARPS=0` (16-row tiles), which scripts/device-check.sh also runs.
            assert_eq!(plan.block_m, 8, "{name}: {plan:?}");
        }
        let mut oc = vec![bf16::ZERO; q.len()];
        let (cv, cc) = blasst::host::calibrate_sweep(
            blasst::Device::Cpu,
            shape,
            &q,
            &k,
            &v,
            &mut oc,
            Options {
                plan: Some(&plan),
                ..Default::default()
            },
            &lambdas,
        )
        .unwrap();
        assert_eq!((gv, &gc), (cv, &cc), "{name}: GPU sweep vs CPU sweep");
        for (lam, &count) in lambdas.iter().zip(&gc) {
            if *lam > 1.0 {
                continue;
            }
            let st = blasst::host::attention(
                blasst::Device::Cuda,
                shape,
                &q,
                &k,
                &v,
                &mut o,
                None,
                Options {
                    threshold_scale_factor: lam * lk as f32,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(
                (st.visited, st.skipped),
                (gv, count),
                "{name}: lambda {lam}"
            );
        }
        assert!(gc.iter().filter(|&&c| c > 0).count() >= 3, "{name}: {gc:?}");
        println!("{name}: visited {gv}, skipped per lambda {gc:?}");
    }
}

/// blasst_merge_states on the GPU equals the CPU merge, and merging the two KV halves of a call
/// reproduces the whole call.
#[test]
fn merge_states_on_the_gpu() {
    if !gpu() {
        return;
    }
    for d in head_dims().into_iter().chain(padded_head_dims()) {
        merge_states_case(d);
    }
}

fn merge_states_case(d: usize) {
    use blasst::cpu::{Options, Shape};
    use blasst::ffi::{blasst_merge_states, blasst_status};
    let (lq, lk, h) = (37usize, 600usize, 4usize);
    let mut rng = Rng::new(5);
    let q: Vec<bf16> = (0..lq * h * d)
        .map(|_| bf16::from_f32(rng.normal()))
        .collect();
    let k: Vec<bf16> = (0..lk * h * d)
        .map(|_| bf16::from_f32(rng.normal()))
        .collect();
    let v: Vec<bf16> = (0..lk * h * d)
        .map(|_| bf16::from_f32(rng.normal()))
        .collect();
    let half = 256;
    let part = |k0: usize, k1: usize| {
        let shape = Shape {
            batch: 1,
            seqlen_q: lq,
            seqlen_kv: k1 - k0,
            num_q_heads: h,
            num_kv_heads: h,
            head_dim: d,
        };
        let mut o = vec![bf16::ZERO; lq * h * d];
        let mut lse = vec![0f32; lq * h];
        blasst::cpu::attention(
            shape,
            &q,
            &k[k0 * h * d..k1 * h * d],
            &v[k0 * h * d..k1 * h * d],
            &mut o,
            Some(&mut lse),
            Options::default(),
        )
        .unwrap();
        (o, lse)
    };
    let (full, full_lse) = part(0, lk);
    let (o1, l1) = part(0, half);
    let (o2, l2) = part(half, lk);
    let states: Vec<bf16> = o1.iter().chain(&o2).copied().collect();
    let lses: Vec<f32> = l1.iter().chain(&l2).copied().collect();
    let dv = DeviceBuffer::from_slice(&states).unwrap();
    let ds = DeviceBuffer::from_slice(&lses).unwrap();
    let dout = DeviceBuffer::new(lq * h * d * 2).unwrap();
    let dlse = DeviceBuffer::new(lq * h * 4).unwrap();
    let st = unsafe {
        blasst_merge_states(
            0,
            1,
            dv.ptr(),
            ds.ptr().cast(),
            2,
            lq as u32,
            h as u32,
            d as u32,
            dout.ptr(),
            dlse.ptr().cast(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(st, blasst_status::BLASST_OK);
    let mut out = vec![bf16::ZERO; lq * h * d];
    let mut out_lse = vec![0f32; lq * h];
    dout.copy_to(&mut out).unwrap();
    dlse.copy_to(&mut out_lse).unwrap();
    let mut cpu_out = vec![bf16::ZERO; lq * h * d];
    let mut cpu_lse = vec![0f32; lq * h];
    // The same host-memory states merged on `device` (1 = CPU, 0 = CUDA).
    let merge_host = |device: u32, out: &mut [bf16], lse: &mut [f32]| unsafe {
        blasst_merge_states(
            device,
            1,
            states.as_ptr().cast(),
            lses.as_ptr(),
            2,
            lq as u32,
            h as u32,
            d as u32,
            out.as_mut_ptr().cast(),
            lse.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    let st = merge_host(1, &mut cpu_out, &mut cpu_lse);
    assert_eq!(st, blasst_status::BLASST_OK);
    let diff = |a: &[bf16], b: &[bf16]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x.to_f32() - y.to_f32()).abs())
            .fold(0f32, f32::max)
    };
    assert!(
        diff(&out, &cpu_out) <= 8e-3,
        "d {d}: GPU vs CPU merge {}",
        diff(&out, &cpu_out)
    );
    assert!(
        diff(&out, &full) <= 1.6e-2,
        "d {d}: merged halves vs whole {}",
        diff(&out, &full)
    );
    let dl = out_lse
        .iter()
        .zip(&full_lse)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(dl < 1e-4, "d {d}: lse {dl}");
    // Host memory passed as device memory is rejected.
    let st = merge_host(0, &mut cpu_out, &mut cpu_lse);
    assert_eq!(st, blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
}

/// The decode plan sizes its KV splits for one wave of the decode kernel's CTAs, counting the
/// CTAs per SM from the kernel's launch bounds and shared memory: the driver reports the same
/// for every decode specialisation at every packed-row count this GPU runs it for.
#[test]
fn decode_plan_counts_the_ctas_the_driver_fits() {
    if !gpu() {
        return;
    }
    let report = blasst::cuda::decode_occupancy_report().unwrap();
    assert!(report.len() >= 24, "{} entries", report.len());
    let wrong: Vec<_> = report
        .iter()
        .filter(|(_, driver, plan)| driver != plan)
        .collect();
    for (name, driver, plan) in &report {
        println!("{name}: driver {driver}, plan {plan}");
    }
    assert!(wrong.is_empty(), "CTAs per SM, driver vs plan: {wrong:?}");
}

/// Where a child process of `integer_row_maxima_match_the_float_tree_bit_for_bit` writes its
/// outputs (set only in that child).
const INT_MAXIMA_CHILD_OUT: &str = "BLASST_TEST_INT_MAXIMA_OUT";

/// The calls of `integer_row_maxima_match_the_float_tree_bit_for_bit` at head dim `d`: queries
/// whose first channel is +16; keys whose first channel is -16 for every key of KV head 0 (its
/// query heads' raw scores about 256 below zero, at least 16 standard deviations of the other
/// channels' sum at d <= 256, so each lane's 16 scores of a row and half are negative: the float
/// tree's case; -8 left scores above zero at d = 256, run 305) and for the keys of every third
/// 64-key block of KV head 1 (visits that mix negative halves with halves of N(0, 1) scores);
/// in every other one of those blocks (blocks 1, 7, 13, ...) key 5 is all zero (scores of
/// exactly zero: maxima of zero, the float tree's case too, but a zero lies within a few nats of
/// the running maximum, so such a block is kept; the negative blocks without one, 4, 10, ..., are
/// the ones skipped: run 306 put the zero key in every negative block and nothing was skipped);
/// the other keys' first channel is 0. Masked and unmasked visits (causal, a length off the tile
/// grid), a paged cache.
fn int_maxima_calls(d: usize) -> Vec<(Built, f32)> {
    let mut rng = Rng::new(seed());
    let mut make = |rng: &mut Rng, which: char, _: usize, t: usize, idx: usize| -> f32 {
        let (head, ch) = (idx / d, idx % d);
        match (which, ch) {
            ('q', 0) => 16.0,
            ('k', _) if head == 1 && t % 64 == 5 && (t / 64) % 6 == 1 => 0.0,
            ('k', 0) if head == 0 || (t / 64) % 3 == 1 => -16.0,
            ('k', 0) => 0.0,
            _ => rng.normal(),
        }
    };
    let shapes: [(&[usize], &[usize], bool, Layout, u32); 4] = [
        (&[700], &[700], false, Layout::Bshd, BLASST_DTYPE_BF16),
        (&[650], &[1000], true, Layout::Bshd, BLASST_DTYPE_BF16),
        (&[700], &[700], true, Layout::Paged(64), BLASST_DTYPE_BF16),
        (&[700], &[700], false, Layout::Bshd, BLASST_DTYPE_F16),
    ];
    shapes
        .iter()
        .map(|&(lq, lk, causal, layout, dtype)| {
            let bt = Case::of((8, 2, lq, lk, layout), d, causal, dtype).build(&mut rng, &mut make);
            // lambda = e^-4: the negative blocks of KV head 1 lie 16-32 nats below the others.
            (bt, ((-4.0f64).exp() * lk[0] as f64) as f32)
        })
        .collect()
}

/// The inputs of `int_maxima_calls` take both paths and skip: every score of KV head 0's first
/// query head is negative, KV head 1's first query head has scores of both signs (each checked
/// over the first sequence's rows and keys), and the CPU backend skips some tile in every call
/// (a sparse test that skips nothing proves nothing; run 306 learnt that on the GPU).
fn assert_int_maxima_inputs() {
    for d in head_dims() {
        let calls = int_maxima_calls(d);
        for (i, (bt, factor)) in calls.iter().enumerate() {
            let stats = run_of_dtype(bt, *factor, None).unwrap().stats;
            assert!(
                stats[1] > 0,
                "d {d} call {i}: the CPU backend skips nothing ({stats:?})"
            );
        }
        let bt = &calls[0].0;
        let (lq, lk) = (bt.case.lq[0], bt.case.lk[0]);
        let score = |h: usize, t: usize, j: usize| -> f32 {
            let (qo, ko) = (bt.q_off[0][t][h], bt.kv_off[0][j][h / 4]);
            (0..d).map(|i| bt.q[qo + i] * bt.k[ko + i]).sum::<f32>()
        };
        let mut max0 = f32::NEG_INFINITY;
        let (mut neg1, mut pos1) = (0usize, 0usize);
        for t in 0..lq {
            for j in 0..lk {
                max0 = max0.max(score(0, t, j));
                if score(4, t, j) < 0.0 {
                    neg1 += 1
                } else {
                    pos1 += 1
                }
            }
        }
        assert!(max0 < 0.0, "d {d}: KV head 0's largest score {max0}");
        assert!(
            neg1 > 0 && pos1 > 0,
            "d {d}: KV head 1's scores: {neg1} negative, {pos1} not"
        );
    }
}

/// `int_maxima_calls`' inputs, checked without a GPU (so CI catches inputs that would waste a
/// GPU run).
#[test]
fn integer_row_maxima_inputs_take_both_paths_and_skip() {
    assert_int_maxima_inputs();
}

/// The Hopper prefill kernel takes an unmasked visit's row maxima as integer maxima of three
/// scores (kernels/prefill_sm90.cu `INT_MAXIMA`), falling back to the float tree where a lane's
/// scores are all negative or zero; `BLASST_PREFILL_INT_MAXIMA=0` builds the float tree alone.
/// Both give the same outputs, LSEs and skip counts bit for bit, dense and Skip-Softmax, on
/// inputs that take both paths. The switch is read at compile time and compiled kernels are
/// cached per process, so each form runs in a child process (this test binary, this test, with
/// `BLASST_TEST_INT_MAXIMA_OUT` naming the file it writes its outputs to).
#[test]
fn integer_row_maxima_match_the_float_tree_bit_for_bit() {
    if !gpu() {
        return;
    }
    if let Ok(path) = std::env::var(INT_MAXIMA_CHILD_OUT) {
        let mut bytes = Vec::new();
        for d in head_dims() {
            // A sparse test that skips nothing proves nothing: the calls of each head dim
            // together skip some tiles (the child's panic fails the test).
            let mut skipped = 0;
            for (bt, factor) in int_maxima_calls(d) {
                for f in [0.0, factor] {
                    let out = run_gpu_of_dtype(&bt, f).unwrap();
                    for x in out.o.iter().chain(&out.lse) {
                        bytes.extend_from_slice(&x.to_bits().to_le_bytes());
                    }
                    bytes.extend_from_slice(&out.stats[0].to_le_bytes());
                    bytes.extend_from_slice(&out.stats[1].to_le_bytes());
                    skipped += out.stats[1];
                }
            }
            println!("d {d}: skipped {skipped} tiles");
            assert!(skipped > 0, "d {d}: nothing skipped");
        }
        std::fs::write(&path, bytes).unwrap();
        return;
    }
    assert_int_maxima_inputs();
    let dir = std::env::temp_dir().join(format!("blasst-int-maxima-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    let child = |switch: Option<&str>, file: &str| -> Vec<u8> {
        let path = dir.join(file);
        let mut cmd = std::process::Command::new(&exe);
        cmd.args([
            "--exact",
            "integer_row_maxima_match_the_float_tree_bit_for_bit",
            "--test-threads=1",
        ])
        .env(INT_MAXIMA_CHILD_OUT, &path)
        .env_remove("BLASST_PREFILL_INT_MAXIMA");
        if let Some(v) = switch {
            cmd.env("BLASST_PREFILL_INT_MAXIMA", v);
        }
        let st = cmd.status().unwrap();
        assert!(st.success(), "child process ({file}): {st}");
        std::fs::read(&path).unwrap()
    };
    let int = child(None, "int.bin");
    let float = child(Some("0"), "float.bin");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!int.is_empty());
    assert_eq!(int.len(), float.len());
    let first = int.iter().zip(&float).position(|(a, b)| a != b);
    assert!(
        first.is_none(),
        "integer and float maxima differ from byte {first:?}"
    );
}
