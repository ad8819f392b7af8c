//! The CPU reference backend against float64 attention, its skip decisions against an
//! independent model of SPEC section 1, split-KV merging, and bad input.

mod common;
use blasst::StatusKind;
use blasst::attn::{
    AttnPlanInfo, BLASST_DTYPE_BF16, BLASST_DTYPE_F16, BLASST_DTYPE_F32, BLASST_PHASE_DECODE,
    BLASST_PHASE_PREFILL,
};
use blasst::synth::{self, Rng};
use common::*;
use half::bf16;

fn seed() -> u64 {
    let s = std::env::var("BLASST_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!("seed {s} (BLASST_TEST_SEED to repeat)");
    s
}

fn normal(rng: &mut Rng, _: char, _: usize, _: usize, _: usize) -> f32 {
    rng.normal()
}

fn cases() -> Vec<Case> {
    let mut v = vec![];
    let f32t = BLASST_DTYPE_F32;
    for &(hq, hkv) in &[(2, 2), (4, 1), (6, 2)] {
        for &causal in &[false, true] {
            for layout in [
                Layout::Bshd,
                Layout::Bhsd,
                Layout::Ragged,
                Layout::Paged(16),
                Layout::Paged(7),
            ] {
                let (lq, lk) = match layout {
                    Layout::Ragged => (vec![1, 200, 37], vec![300, 130, 37]),
                    Layout::Paged(_) => (vec![5, 5], vec![170, 33]),
                    _ => (vec![150, 150], vec![150, 150]),
                };
                v.push(Case {
                    hq,
                    hkv,
                    d: 32,
                    lq,
                    lk,
                    causal,
                    layout,
                    dtype: f32t,
                });
            }
        }
    }
    // Lq > Lk causal: leading rows see no key at all (fully masked, lse -inf, zero output).
    v.push(Case {
        hq: 2,
        hkv: 1,
        d: 64,
        lq: vec![40],
        lk: vec![10],
        causal: true,
        layout: Layout::Bshd,
        dtype: f32t,
    });
    // Shorter than one tile, decode shapes, odd head dims.
    v.push(Case {
        hq: 8,
        hkv: 2,
        d: 128,
        lq: vec![1, 1, 1],
        lk: vec![3, 500, 64],
        causal: false,
        layout: Layout::Paged(16),
        dtype: f32t,
    });
    v.push(Case {
        hq: 3,
        hkv: 3,
        d: 40,
        lq: vec![3],
        lk: vec![3],
        causal: true,
        layout: Layout::Bshd,
        dtype: f32t,
    });
    v
}

/// K/V heads or sequences that share memory (stride 0) are read as such.
#[test]
fn kv_shared_across_heads_or_sequences_matches_float64() {
    let mut rng = Rng::new(seed());
    for (shared, hq, hkv, lq, lk, layout) in [
        (SharedKv::Heads, 6, 2, vec![70], vec![150], Layout::Bshd),
        (
            SharedKv::Heads,
            4,
            4,
            vec![1, 1],
            vec![90, 200],
            Layout::Bhsd,
        ),
        (
            SharedKv::Sequences,
            2,
            2,
            vec![33, 33],
            vec![100, 100],
            Layout::Bshd,
        ),
    ] {
        let c = Case {
            hq,
            hkv,
            d: 64,
            lq,
            lk,
            causal: true,
            layout,
            dtype: BLASST_DTYPE_F32,
        };
        let mut bt = c.build(&mut rng, &mut normal);
        bt.share_kv(shared);
        let out = run::<f32>(&bt, 0.0, None).unwrap();
        let (eo, el) = max_err(&bt, &out, &reference(&bt));
        assert!(
            eo < 2e-5 && el < 2e-5,
            "{c:?} shared {shared:?}: o {eo:e} lse {el:e}"
        );
    }
}

#[test]
fn dense_matches_float64_in_every_layout() {
    let mut rng = Rng::new(seed());
    for c in cases() {
        let bt = c.build(&mut rng, &mut normal);
        let r = reference(&bt);
        let out = run::<f32>(&bt, 0.0, None).unwrap();
        let (eo, el) = max_err(&bt, &out, &r);
        assert!(
            eo < 2e-5 && el < 2e-5,
            "{c:?}: max |err| o {eo:e} lse {el:e}"
        );
        assert_eq!(out.stats[1], 0, "dense skips nothing");
        assert!(out.stats[0] > 0);
    }
}

#[test]
fn half_types_within_rounding() {
    let mut rng = Rng::new(seed());
    for dtype in [BLASST_DTYPE_BF16, BLASST_DTYPE_F16] {
        for layout in [Layout::Bshd, Layout::Ragged, Layout::Paged(32)] {
            let c = Case {
                hq: 4,
                hkv: 2,
                d: 64,
                lq: vec![130, 130],
                lk: vec![257, 200],
                causal: true,
                layout,
                dtype,
            };
            let bt = c.build(&mut rng, &mut normal);
            let r = reference(&bt);
            let out = run_of_dtype(&bt, 0.0, None).unwrap();
            let (eo, el) = max_err(&bt, &out, &r);
            // Outputs are |o| < ~3: one bf16 ulp at 2 is 2^-6.
            let tol = if dtype == BLASST_DTYPE_BF16 {
                1.6e-2
            } else {
                2e-3
            };
            assert!(eo < tol && el < 1e-4, "{c:?}: o {eo:e} lse {el:e}");
        }
    }
}

#[test]
fn kv_splits_merge_to_the_unsplit_result() {
    let mut rng = Rng::new(seed());
    let c = Case {
        hq: 4,
        hkv: 1,
        d: 64,
        lq: vec![3, 3],
        lk: vec![1000, 77],
        causal: true,
        layout: Layout::Paged(16),
        dtype: BLASST_DTYPE_F32,
    };
    let bt = c.build(&mut rng, &mut normal);
    let r = reference(&bt);
    let base = run::<f32>(&bt, 0.0, None).unwrap();
    for splits in [1, 2, 5, 64] {
        for reverse in [0, 1] {
            let plan = AttnPlanInfo {
                phase: BLASST_PHASE_DECODE,
                block_m: 12,
                block_n: 64,
                num_kv_splits: splits,
                reverse_kv: reverse,
                ..Default::default()
            };
            let out = run::<f32>(&bt, 0.0, Some(&plan)).unwrap();
            let (eo, el) = max_err(&bt, &out, &r);
            assert!(eo < 2e-5 && el < 2e-5, "splits {splits}: {eo:e} {el:e}");
            let diff = out
                .o
                .iter()
                .zip(&base.o)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            assert!(diff < 1e-5, "splits {splits} vs default: {diff}");
        }
    }
}

/// The hot/cold class of every key, from the structured generator.
struct Hot(Vec<Vec<bool>>);

/// Independent model of the skip test on clear-margin inputs: a row votes to skip when it
/// sees no key of the tile, or when it has already accumulated a hot key and the tile holds no
/// visible hot key for it. Walks the plan's work units as SPEC section 1 defines them.
fn model(c: &Case, hot: &Hot, plan: &AttnPlanInfo) -> (u64, u64) {
    let (mut vis, mut skp) = (0, 0);
    let g = c.hq / c.hkv;
    let (bm, bn, splits) = (
        plan.block_m as usize,
        plan.block_n as usize,
        plan.num_kv_splits as usize,
    );
    for bi in 0..c.lq.len() {
        let (lq, lk) = (c.lq[bi], c.lk[bi]);
        for kh in 0..c.hkv {
            // Row tiles: lists of tokens (the head does not matter for the decision).
            let mut tiles: Vec<Vec<usize>> = vec![];
            if plan.phase == BLASST_PHASE_DECODE {
                let rows: Vec<usize> = (0..lq * g).map(|r| r / g).collect();
                tiles.extend(rows.chunks(bm).map(|c| c.to_vec()));
            } else {
                for _ in 0..g {
                    let rows: Vec<usize> = (0..lq).collect();
                    tiles.extend(rows.chunks(bm).map(|c| c.to_vec()));
                }
            }
            for rows in &tiles {
                let limit = |t: usize| {
                    if c.causal {
                        t as i64 + lk as i64 - lq as i64
                    } else {
                        lk as i64 - 1
                    }
                };
                let max_limit = rows.iter().map(|&t| limit(t)).max().unwrap();
                let total = lk.div_ceil(bn);
                let visible = if max_limit < 0 {
                    0
                } else {
                    (max_limit as usize / bn + 1).min(total)
                };
                let per = total.div_ceil(splits).max(1);
                for s in 0..splits {
                    let mut order: Vec<usize> =
                        ((s * per).min(visible)..((s + 1) * per).min(visible)).collect();
                    if plan.reverse_kv == 1 {
                        order.reverse();
                    }
                    let mut seen_any = vec![false; rows.len()];
                    let mut seen_hot = vec![false; rows.len()];
                    for j in order {
                        vis += 1;
                        let keys = j * bn..((j + 1) * bn).min(lk);
                        let view = |i: usize| -> Vec<usize> {
                            let lim = limit(rows[i]);
                            keys.clone().filter(|&k| (k as i64) <= lim).collect()
                        };
                        let skip = (0..rows.len()).all(|i| {
                            let vw = view(i);
                            let n = vw.len();
                            let any_hot = vw.iter().any(|&k| hot.0[kh][k]);
                            n == 0 || (seen_any[i] && seen_hot[i] && !any_hot)
                        });
                        if skip {
                            skp += 1;
                            continue;
                        }
                        for i in 0..rows.len() {
                            let vw = view(i);
                            if !vw.is_empty() {
                                seen_any[i] = true;
                            }
                            if vw.iter().any(|&k| hot.0[kh][k]) {
                                seen_hot[i] = true;
                            }
                        }
                    }
                }
            }
        }
    }
    (vis, skp)
}

/// A single-sequence structured case (the generator makes one sequence; batch via ragged
/// concatenation would change nothing in the decisions).
///
/// Margin 24 nats: the model above is exact only while every cold tile sits clearly below
/// lambda against a hot running max and every hot tile clearly above it. With margin 16 and
/// ln lambda = -8 the noise tail of a cold key against a single hot max reached -7.7 on rare
/// seeds (CI seed 1796364518230425690 skipped one tile fewer than the model). With margin 24
/// a sweep over 61 seeds gave the model's counts for every ln lambda from -4 to -16, so the
/// exact-count test uses -10, midway.
fn structured_case(
    lq: usize,
    lk: usize,
    hq: usize,
    hkv: usize,
    causal: bool,
    hot_fraction: f64,
    seed: u64,
) -> (Case, Built, Hot) {
    let s = synth::structured(lq, lk, hq, hkv, 64, hot_fraction, 24.0, seed);
    let c = Case {
        hq,
        hkv,
        d: 64,
        lq: vec![lq],
        lk: vec![lk],
        causal,
        layout: Layout::Bshd,
        dtype: BLASST_DTYPE_BF16,
    };
    let mut rng = Rng::new(seed);
    let bt = c.build(&mut rng, &mut |_, which, _, t, hi| match which {
        'q' => s.q[t * hq * 64 + hi],
        'k' => s.k[t * hkv * 64 + hi],
        _ => s.v[t * hkv * 64 + hi],
    });
    (c, bt, Hot(s.hot))
}

#[test]
fn skips_exactly_the_modelled_tiles() {
    let sd = seed();
    // Midway in the band where the margin-24 inputs make the model exact (see structured_case).
    let ln_lambda = -10.0f64;
    let mut total = (0u64, 0u64);
    for (i, &(lq, lk, hq, hkv, causal, plan)) in [
        (700, 700, 2, 2, false, None),
        (2000, 2000, 2, 2, true, None),
        (
            300,
            1100,
            4,
            2,
            true,
            Some((BLASST_PHASE_PREFILL, 64, 32, 1, 0)),
        ),
        (
            256,
            1024,
            2,
            1,
            false,
            Some((BLASST_PHASE_PREFILL, 128, 64, 3, 1)),
        ),
        (1, 4000, 8, 2, false, None),
        // A decode-shaped call on the prefill plan (what a GPU where no decode kernel fits would
        // run: `cuda::decode_fits`; a GPU of 100 KB at d = 256 did in session 53).
        (
            1,
            4000,
            8,
            2,
            false,
            Some((BLASST_PHASE_PREFILL, 16, 64, 1, 1)),
        ),
        // A decode plan of 32-key tiles (what a GPU of 100 KB runs at d = 256:
        // `cuda::decode_block_n`), one token x GQA 4, 8 splits.
        (
            1,
            4000,
            8,
            2,
            false,
            Some((BLASST_PHASE_DECODE, 4, 32, 8, 1)),
        ),
        (4, 3000, 8, 1, true, None),
        (
            2,
            2000,
            4,
            4,
            false,
            Some((BLASST_PHASE_DECODE, 8, 32, 4, 0)),
        ),
    ]
    .iter()
    .enumerate()
    {
        let (c, bt, hot) =
            structured_case(lq, lk, hq, hkv, causal, 0.25, sd.wrapping_add(i as u64));
        let plan_info = plan.map(|(phase, bm, bn, s, r)| AttnPlanInfo {
            phase,
            block_m: bm,
            block_n: bn,
            num_kv_splits: s,
            reverse_kv: r,
            ..Default::default()
        });
        let factor = (ln_lambda.exp() * lk as f64) as f32;
        let out = run::<bf16>(&bt, factor, plan_info.as_ref()).unwrap();
        let used_plan = match plan_info {
            Some(p) => p,
            None => {
                let mut p = bt.params;
                let buf = [0u64; 1];
                (p.q, p.k, p.v, p.o) = (
                    buf.as_ptr().cast(),
                    buf.as_ptr().cast(),
                    buf.as_ptr().cast(),
                    buf.as_ptr() as *mut _,
                );
                blasst::attn::plan(&p).unwrap()
            }
        };
        let (vis, skp) = model(&c, &hot, &used_plan);
        assert_eq!(
            (out.stats[0], out.stats[1]),
            (vis, skp),
            "case {i} {c:?} plan {used_plan:?}"
        );
        let frac = skp as f64 / vis as f64;
        println!(
            "case {i}: skipped {skp} of {vis} tiles ({:.1}%)",
            frac * 100.0
        );
        assert!(
            skp > 0,
            "case {i}: a sparse test that skips nothing proves nothing"
        );
        total.0 += vis;
        total.1 += skp;

        // Output error against dense is bounded by the omitted mass: every skipped tile of a
        // row holds at most block_n keys of weight < lambda relative to the row's max.
        let dense = run::<bf16>(&bt, 0.0, plan_info.as_ref()).unwrap();
        let lambda = ln_lambda.exp();
        let bound = (skp as f64) * used_plan.block_n as f64 * lambda * 2.0 * 5.0 + 1.6e-2;
        let err = out
            .o
            .iter()
            .zip(&dense.o)
            .map(|(a, b)| (a - b).abs() as f64)
            .fold(0.0, f64::max);
        assert!(
            err <= bound.min(0.05),
            "case {i}: err {err} > bound {bound}"
        );
    }
    let frac = total.1 as f64 / total.0 as f64;
    assert!(
        frac > 0.25,
        "overall skipped fraction {frac} is too small to prove anything"
    );
}

#[test]
fn sparsity_is_monotone_and_huge_factors_are_finite() {
    let (c, bt, _) = structured_case(512, 2048, 2, 1, true, 0.3, seed());
    let mut last = 0.0;
    let base = run::<bf16>(&bt, 0.0, None).unwrap();
    for ln in [-30.0f64, -12.0, -8.0, -4.0, -1.0, 0.0, 2.0, 60.0] {
        let factor = (ln.exp() * 2048.0) as f32;
        let out = run::<bf16>(&bt, factor.min(f32::MAX), None).unwrap();
        let frac = out.stats[1] as f64 / out.stats[0] as f64;
        assert!(
            frac >= last,
            "{c:?}: sparsity fell from {last} to {frac} at ln lambda {ln}"
        );
        last = frac;
        assert!(
            out.o.iter().all(|x| x.is_finite()),
            "non-finite output at ln lambda {ln}"
        );
        // The first tile of every work unit is always accumulated.
        let units = 2 * 512usize.div_ceil(128) as u64;
        assert!(out.stats[0] - out.stats[1] >= units);
        if ln == -30.0 {
            assert_eq!(out.stats[1], 0);
            assert_eq!(
                out.o, base.o,
                "a skip run that skips nothing is bit-identical to dense"
            );
        }
    }
    assert!(last > 0.5);
}

#[test]
fn bad_host_arrays_are_rejected_and_nothing_is_written() {
    let mut rng = Rng::new(seed());
    let c = Case {
        hq: 2,
        hkv: 1,
        d: 32,
        lq: vec![10, 20],
        lk: vec![30, 40],
        causal: false,
        layout: Layout::Ragged,
        dtype: BLASST_DTYPE_F32,
    };
    let mut bt = c.build(&mut rng, &mut normal);
    bt.cu_q = vec![0, 20, 10];
    let e = run::<f32>(&bt, 0.0, None).err().unwrap();
    assert_eq!(e.kind(), StatusKind::InvalidArgument);
    assert!(
        e.message().contains("cu_seqlens_q is not monotone"),
        "{}",
        e.message()
    );

    let c = Case {
        hq: 2,
        hkv: 1,
        d: 32,
        lq: vec![4, 4],
        lk: vec![30, 40],
        causal: false,
        layout: Layout::Paged(16),
        dtype: BLASST_DTYPE_F32,
    };
    let mut bt = c.build(&mut rng, &mut normal);
    bt.table[1] = 999;
    let e = run::<f32>(&bt, 0.0, None).err().unwrap();
    assert!(
        e.message().contains("block_table[0][1] = 999"),
        "{}",
        e.message()
    );
    bt.table[1] = -1;
    assert!(
        run::<f32>(&bt, 0.0, None)
            .err()
            .unwrap()
            .message()
            .contains("block_table[0][1] = -1")
    );

    let mut bt = c.build(&mut rng, &mut normal);
    bt.used = vec![30, 41];
    let e = run::<f32>(&bt, 0.0, None).err().unwrap();
    assert!(
        e.message().contains("seqused_kv[1] = 41"),
        "{}",
        e.message()
    );
}

/// `o` may be `q` itself (the same pointer and strides): every query row is read by the work
/// units that write its output row, before they write it, and by no others. In every layout,
/// with the default plans, with KV splits, dense and while skipping: the same bits as out of
/// place.
#[test]
fn output_may_overwrite_the_queries() {
    let mut rng = Rng::new(seed());
    let mut skipped = 0;
    let splits = AttnPlanInfo {
        phase: BLASST_PHASE_DECODE,
        block_m: 8,
        block_n: 64,
        num_kv_splits: 3,
        reverse_kv: 1,
        ..Default::default()
    };
    for c in cases() {
        let bt = c.build(&mut rng, &mut normal);
        let decode = c.lq.iter().all(|&l| l <= 8);
        let lk = *c.lk.iter().max().unwrap() as f32;
        for (factor, plan) in [
            (0.0, None),
            (0.5 * lk, None),
            (0.5 * lk, decode.then_some(&splits)),
        ] {
            let apart = run::<f32>(&bt, factor, plan).unwrap();
            let same = run_in_place::<f32>(&bt, factor, plan).unwrap();
            assert!(
                same_out(&apart, &same),
                "{c:?} factor {factor} plan {plan:?}: stats {:?} vs {:?}",
                apart.stats,
                same.stats
            );
            skipped += apart.stats[1];
        }
    }
    assert!(skipped > 0, "no case skipped a tile");
}
