//! The plan: tile shape, KV visiting order and KV splits. Pure and host-side, so it can be
//! printed, tested and handed to the CPU reference (FlashInfer's plan/run split).
//!
//! Default plans (the GPU kernels are built for exactly these):
//! * prefill (`max_seqlen_q > 8`): 16 query rows x 64 keys per tile, one KV split, KV tiles
//!   visited last to first (so for causal calls the diagonal, usually the hottest tile, sets
//!   the running maximum first). A GPU CTA computes eight such row tiles (128 rows; the Hopper
//!   kernel twelve, 192 rows, at d = 64); the 16
//!   rows of a tile are one warp's share of the tensor-core tile, so a skip decision is a warp
//!   vote: no warp ever waits for another's (a barrier per visit cost the Hopper kernel ~10 %
//!   with 64-row tiles), and a 16-row tile skips more often than a larger one.
//! * decode (`max_seqlen_q <= 8` and `max_seqlen_q * group <= 64`): the query tokens of a
//!   sequence times the query heads that share a KV head are packed into one tile of rows,
//!   64 keys per tile, last to first, and the KV range is split into as many splits as keep the
//!   work units within one wave of the decode kernel's CTAs on the GPU (multiprocessors x the
//!   CTAs per multiprocessor of the kernel that runs the call, `cuda::decode_ctas_per_sm`; on an
//!   H100/H200 264 at d = 128, 396 at d = 64, 132 at d = 256): no partial wave, each CTA's
//!   pipeline start paid once, and long splits, whose running maxima skip more (measured on the
//!   H200 against 2 and 4 waves, bench/RESULTS.md), with at least 16 tiles per split (each
//!   split has its own running max, and short splits lose sparsity to their first tiles).
//!   The split count depends on the call's sizes and the GPU's (`Desc::gpu`): a CUDA call's
//!   plan is made for the current context's GPU, the CPU backend's default plan for an
//!   H100/H200 (`GpuShape::nominal()`), and the CPU reproduces any GPU's decisions when given
//!   that GPU's plan (`blasst_attn_plan` of the CUDA call). Other calls use the prefill plan.

use super::{AttnParams, AttnPlanInfo, Desc, Device, Phase};
use crate::{Result, invalid};

pub const DECODE_MAX_SEQLEN_Q: usize = 8;
pub const PREFILL_BLOCK_M: u32 = 16;
pub const PREFILL_BLOCK_N: u32 = 64;
pub const DECODE_MAX_BLOCK_M: usize = 64;
pub const DECODE_BLOCK_N: u32 = 64;
/// The row tiles of calls on the row-tile warps decode kernel (`decode_warps`): 8 packed rows,
/// one warp's MMA tile.
pub(crate) const DECODE_WARPS_BLOCK_M: usize = 8;
/// Row tiles per CTA of that kernel (its consumer warps).
const DECODE_WARPS_TILES_PER_CTA: usize = 4;

/// The CTAs per (sequence, KV head) of the row-tile warps decode kernel for `row_tiles` tiles.
pub fn decode_warps_groups(row_tiles: usize) -> usize {
    row_tiles.div_ceil(DECODE_WARPS_TILES_PER_CTA)
}

/// Whether a decode call runs the row-tile warps kernel (kernels/decode_warps_sm90.cu) with a plan
/// of 8-row tiles (the plan and the launch both ask): on Hopper at head dim 128, calls of more
/// packed rows than one tile of the Hopper decode kernel holds (17-64: speculative decoding with
/// GQA), which that kernel runs as 16-row tiles of one CTA each, bound by each CTA's dependent chain
/// per KV tile (runs 244, 249). The warps kernel's warps each walk one 8-row tile alone and read
/// K and V once per CTA of up to 32 rows; its prototype ran dense 32-row calls 1.16-1.35x faster
/// (run 250, bench/RESULTS.md session 45), the kernel in the library 1.08-1.39x dense and
/// 1.34-1.50x Skip-Softmax (run 251). Decisions are per 8-row tile (a plan the CPU follows).
/// Contiguous and paged caches (its paged copies read each tile's block-table entries a tile
/// ahead: runs 253-255, on an H100).
/// `BLASST_DECODE_WARPS=0` keeps those calls on 16-row tiles (an A/B switch), as does
/// `BLASST_DECODE_KERNEL=mma`.
pub fn decode_warps(d: &Desc) -> bool {
    let rows = d.max_lq * d.group;
    let kd = d.kernel_dim();
    is_decode(d.max_lq, d.group)
        && rows > crate::cuda::nvrtc::decode90_max_rows(kd) as usize
        && rows <= crate::cuda::nvrtc::decode90_tiled_rows(kd)
        && crate::cuda::nvrtc::decode_warps(kd, d.head_dim)
        && crate::cuda::use_sm90_decode(d.gpu.sm90a, DECODE_WARPS_BLOCK_M as u32, kd)
        && !crate::switches::DECODE_WARPS.is("0")
}
/// The decode plan's target work units: one wave of `per_sm` CTAs per multiprocessor on `d.gpu`
/// (the kernel's fit, or one: `dense_one_cta_per_sm`, `warps_one_cta_per_sm`), or
/// `BLASST_DECODE_UNITS` (a tuning switch for benchmarks, read once per process; the CPU backend
/// reads the same value).
fn decode_target_units(d: &Desc, per_sm: usize) -> usize {
    units_override().unwrap_or(d.gpu.sms * per_sm)
}

/// `BLASST_DECODE_UNITS`, read once per process.
fn units_override() -> Option<usize> {
    static UNITS: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *UNITS.get_or_init(|| {
        std::env::var("BLASST_DECODE_UNITS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|&u| (1..=4096).contains(&u))
    })
}

/// The smallest page (keys) whose paged dense decode calls take `dense_one_cta_per_sm`'s rule.
const PAGED_ONE_PER_SM_MIN_PAGE: usize = 64;

/// Dense decode calls on the Hopper decode kernel at d = 128 with a contiguous cache (or a paged
/// one of pages of `PAGED_ONE_PER_SM_MIN_PAGE` = 64 keys or more) and one row tile of
/// `block_m` rows (at most 16 packed rows)
/// size their splits for one CTA per multiprocessor rather than the two that fit, where that
/// gives 2 or more than 4 splits. Why (session 19, runs 127-128, Nsight Compute on the H200): at
/// 16 x 32K the kernel's 256 CTAs (128 (sequence, KV head) units x 2 splits, two per SM) read DRAM
/// at 93-95 % of peak, PyTorch SDPA's 128 (one per unit and SM) at 94.7-94.8 %. Measured (runs
/// 129-130, interleaved against two CTAs per SM): 1 x 128K (16 splits instead of 33) +2.0-2.2 %,
/// 2 x 32K +1.2 %, 3 x 16K +1.9 %, 7-8 x 8K (2 splits instead of 4) +3.0-5.7 %; but plans of 3-4
/// splits, which the Hopper kernel merges in clusters of that many CTAs, ran 35 % slower (4 x
/// 16K, 4 splits), and 16 x 32K with 1 split moved +1.8 % on one GPU lease, -1.6 % on another,
/// +1.5 % on a third (run 136, the same in six processes there) and +0.55 % on a fourth (run
/// 161, four processes), 0.979-0.997x PyTorch SDPA, never above it, and deeper pipelines did not
/// help it (run 162): those keep two CTAs per SM. Skip calls keep two CTAs per SM:
/// one CTA's decisions and V loads overlap the other's K stream (one per SM cost them 5-7 %), and
/// so does the calibration sweep, which counts what skip calls would skip; paged calls over 16-
/// and 32-key pages too (one CTA per SM: 18-38 % slower, runs 223-226 and 228, where each of a
/// tile's 2-4 block-table entries is read by its copies). Pages of 64 keys or more, whose entries
/// the kernel holds a batch ahead in its warps' lanes (`kernels/decode_sm90.cu` `PageEntries`),
/// take the rule (run 228, `bench/micro/paged_layout.py`, shuffled pages: 64-key pages 1.018x /
/// 1.001x / 0.997x of the contiguous call at 1 x 128K / 2 x 32K / 8 x 8K, 0.985x / 0.972x /
/// 0.926x at two CTAs per SM with each entry read before its copies; 256-key pages
/// 1.016-1.028x); before the entries were held in lanes, 64-key pages were 3-5 % slower at one
/// per SM (each read waited behind the copies in flight: Nsight Compute, run 227) and only
/// pages of 256 keys or more took it (session 39); and the other head dims (d = 64
/// measured faster with more CTAs, session 12; d = 256 runs one CTA per SM anyway).
/// Head dim 96 (on the d = 128 kernel, 192-byte rows) takes the rule as well, and there one
/// split is allowed too (`one_per_sm_splits_allowed`): run 211 (session 35, interleaved, one CTA
/// per SM from `BLASST_DECODE_UNITS=132`) measured it +8-9 % at 16 x 16K and 16 x 32K (1 split
/// instead of 2; 1.04x PyTorch SDPA) and +10 % at 1 x 64K (16 splits instead of 33); paged over
/// 64-key pages +7.5-12 % at 1 x 128K, 2 x 32K, 8 x 8K, 16 x 16K and 16 x 32K (run 233, session
/// 40, against `BLASST_DECODE_PAGED_ONE_PER_SM=0`; 0.99-1.59x SDPA on the contiguous cache); against
/// d = 80 -9 % at 1 x 64K and +0-3.5 % elsewhere (d = 80 keeps two CTAs per SM).
/// Calls of several row tiles (speculative decoding with GQA: 17-64 packed rows) do not take this
/// rule (since session 40; at d = 128 they run the row-tile warps kernel, `decode_warps`, since
/// sessions 45-47; sessions 44-47 ran them on a three-CTAs-per-SM build of the Hopper decode
/// kernel where that wave filled, removed in session 48): their kernel is bound by each tile's dependent chain,
/// which more CTAs per SM hide (session 13, run 244), and in run 234 (`paged_layout.py --tokens 4 --heads 32/4`, 32 rows as
/// two tiles) the contiguous 1 x 128K call on this plan (16 splits, 128 CTAs) took 141.6 us
/// against 93.2 us for 4 x 32K, the same bytes on 256 CTAs, and 126.4 us for the same call over
/// 16-key pages on the two-per-SM plan (33 splits), whose kernel was then 26 % slower than the
/// contiguous one at 4 x 32K; timed as an A/B in run 235 (session 41), the two-per-SM plan took
/// the contiguous call from 141.9 to 94.3 us and the 64-key paged one from 143.1 to 97.7 us.
/// `BLASST_DECODE_PAGED_ONE_PER_SM=1` extends the rule to paged calls of any page size, `=0`
/// keeps every paged call at two CTAs per SM (A/B switches).
/// `BLASST_DECODE_DENSE_ONE_PER_SM=0` turns it off (an A/B switch, read once per process or, with
/// `BLASST_LIVE_SWITCHES=1`, at every call: `crate::switches`).
fn dense_one_cta_per_sm(d: &Desc, block_m: usize) -> bool {
    dense_on_whole_pages(d)
        && d.max_lq * d.group <= block_m
        && (d.head_dim == 128 || d.head_dim == 96)
        && crate::cuda::use_sm90_decode(d.gpu.sm90a, block_m as u32, d.kernel_dim())
        && !crate::switches::DECODE_DENSE_ONE_PER_SM.is("0")
}

/// A dense call (no factor) over a contiguous cache or pages of `PAGED_ONE_PER_SM_MIN_PAGE` keys
/// or more (`BLASST_DECODE_PAGED_ONE_PER_SM=1`: any page, `=0`: none): the calls that both
/// one-CTA-per-SM rules (`dense_one_cta_per_sm`, `warps_one_cta_per_sm`) take.
fn dense_on_whole_pages(d: &Desc) -> bool {
    d.factor == 0.0
        && d.paged.as_ref().is_none_or(|pg| {
            crate::switches::DECODE_PAGED_ONE_PER_SM
                .forced_or(|| pg.page_size >= PAGED_ONE_PER_SM_MIN_PAGE)
        })
}

/// Whether a call on the row-tile warps decode kernel (`decode_warps`) sizes its splits for one
/// CTA per multiprocessor rather than the two that fit: dense calls over a contiguous cache or
/// pages of 64 keys or more (`dense_on_whole_pages`). Measured (run 263, session 51, an H100,
/// interleaved against two per SM, with `BLASST_DECODE_WARPS_ONE_PER_SM=1`): 4 tokens x GQA 8
/// (`paged_layout.py --tokens 4 --heads 32/4`) +2.6-4.8 % at 4 x 32K and 1 x 128K, contiguous,
/// 64-key pages shuffled and in order, 16 x 32K -0.5 % contiguous, +1.6-2.2 % paged; 8 tokens
/// x GQA 4 (`ab_decode.py --tokens 8`) dense +0.8 % / +2.7 % at 4 x 32K (contiguous / 64-key
/// pages), -0.2 % / +1.6 % at 1 x 128K, +3.4 % / +5.5 % at 16 x 16K. Run 264, this rule against
/// `=0`: 64-key pages +0.4..+5.7 %, contiguous -1.6..+2.3 %; over 16-key pages one per SM was
/// 5-12 % slower (each tile's page entries read at its copies), so small pages keep two. Skip
/// calls keep two per SM: one per SM made them 13-14 % slower (each CTA's decisions and V loads
/// no longer overlap another CTA's K stream, as in the one-token kernel), and so does the
/// calibration sweep, which counts what skip calls skip.
/// `BLASST_DECODE_WARPS_ONE_PER_SM=0` keeps every call at two per SM, `=1` puts skip calls
/// and calls over small pages at one per SM too (A/B switches).
fn warps_one_cta_per_sm(d: &Desc) -> bool {
    crate::switches::DECODE_WARPS_ONE_PER_SM.forced_or(|| dense_on_whole_pages(d))
}

/// The split counts a one-CTA-per-SM dense plan may take (`dense_one_cta_per_sm`): 2 or more
/// than the cluster merge's 4 (3-4 splits merged in clusters ran 35 % slower at d = 128); at
/// d = 96 also 1 (measured faster there, run 211; at d = 128 1 split was within +-1.8 %).
fn one_per_sm_splits_allowed(d: &Desc, splits: usize) -> bool {
    splits == 2
        || splits > crate::cuda::MAX_CLUSTER_MERGE_SPLITS
        || (splits == 1 && d.head_dim == 96)
}
const DECODE_MIN_TILES_PER_SPLIT: usize = 16;
const MAX_SPLITS: usize = 128;

/// Whether a call of `max_lq` query rows per sequence and `group` query heads per KV head runs
/// the decode plan.
pub fn is_decode(max_lq: usize, group: usize) -> bool {
    max_lq <= DECODE_MAX_SEQLEN_Q && max_lq * group <= DECODE_MAX_BLOCK_M
}

/// The plan of a call on `d.gpu`: prefill (16-row tiles of one query head, 64-key tiles, one
/// split) for calls of many query rows, and for decode-shaped ones where no decode kernel fits
/// the GPU (`cuda::decode_fits`: none of the GPUs blasst runs on); otherwise the decode plan
/// below (its tiles 32 keys at d = 256 on the GPUs of 100 KB: `cuda::decode_block_n`).
pub fn default_plan(d: &Desc) -> AttnPlanInfo {
    if !is_decode(d.max_lq, d.group) || !crate::cuda::decode_fits(&d.gpu, d.kernel_dim()) {
        return AttnPlanInfo {
            phase: Phase::Prefill.as_u32(),
            block_m: PREFILL_BLOCK_M,
            block_n: PREFILL_BLOCK_N,
            num_kv_splits: 1,
            reverse_kv: 1,
            ..AttnPlanInfo::default()
        };
    }
    let rows = d.max_lq * d.group;
    // Row tiles of the decode kernel that runs the call (on the portable kernel one tile where
    // it fits the GPU's shared memory, else the fewest that do; on Hopper's up to four of 16
    // rows: `cuda::decode_block_m`).
    let warps = decode_warps(d);
    let block_m = if warps {
        DECODE_WARPS_BLOCK_M
    } else {
        crate::cuda::decode_block_m(&d.gpu, d.kernel_dim(), rows)
    };
    let row_tiles = rows.div_ceil(block_m);
    // Work units: a CTA per row tile, on the warps kernel per four.
    let units = d.batch
        * d.hkv
        * if warps {
            decode_warps_groups(row_tiles)
        } else {
            row_tiles
        };
    // Keys per tile: 64, 32 on the portable kernel where 64-key tiles do not fit the GPU
    // (`cuda::decode_block_n`: d = 256 on the GPUs of 100 KB).
    let block_n = if warps {
        DECODE_BLOCK_N
    } else {
        crate::cuda::decode_block_n(&d.gpu, d.kernel_dim(), block_m as u32)
    };
    let kv_tiles = d.max_lk.div_ceil(block_n as usize);
    let max_by_len = (kv_tiles / DECODE_MIN_TILES_PER_SPLIT).max(1);
    // The splits that fill `target` CTA slots with `units` work units.
    let splits_filling = |target: usize| (target / units).min(max_by_len).clamp(1, MAX_SPLITS);
    let splits_for = |per_sm| splits_filling(decode_target_units(d, per_sm));
    // The kernel's own fit (two CTAs per SM at d = 128).
    let kernel_fit = || {
        splits_for(crate::cuda::decode_ctas_per_sm(
            &d.gpu,
            d.kernel_dim(),
            block_m as u32,
        ))
    };
    let splits = if warps {
        splits_for(if warps_one_cta_per_sm(d) {
            1
        } else {
            crate::cuda::decode_warps_ctas_per_sm(&d.gpu, d.kernel_dim())
        })
    } else if dense_one_cta_per_sm(d, block_m) {
        Some(splits_for(1))
            .filter(|&s| one_per_sm_splits_allowed(d, s))
            .unwrap_or_else(kernel_fit)
    } else {
        kernel_fit()
    };
    AttnPlanInfo {
        phase: Phase::Decode.as_u32(),
        block_m: block_m as u32,
        block_n,
        num_kv_splits: splits as u32,
        reverse_kv: 1,
        ..AttnPlanInfo::default()
    }
}

/// The plan a call runs with: the caller's (CPU only; on the GPU only the default plan is
/// accepted) or the default one.
pub fn effective_plan(p: &AttnParams, d: &Desc) -> Result<AttnPlanInfo> {
    let default = default_plan(d);
    if p.plan.is_null() {
        return Ok(default);
    }
    // SAFETY: non-null, caller-provided host pointer; alignment is checked first.
    if !(p.plan as usize).is_multiple_of(std::mem::align_of::<AttnPlanInfo>()) {
        return Err(invalid!("plan = {:p} is misaligned", p.plan));
    }
    let given = unsafe { *p.plan };
    check_plan(&given)?;
    if d.device == Device::Cuda && given != default {
        return Err(invalid!(
            "plan: the GPU runs only its default plan ({default:?}); a custom plan is CPU only"
        ));
    }
    Ok(given)
}

pub fn check_plan(pl: &AttnPlanInfo) -> Result<()> {
    let expected = std::mem::size_of::<AttnPlanInfo>() as u32;
    if pl.struct_size != expected {
        return Err(invalid!(
            "plan->struct_size = {} is not sizeof(blasst_attn_plan_info) = {expected}",
            pl.struct_size
        ));
    }
    Phase::try_from(pl.phase).map_err(|e| invalid!("plan->{}", e.message()))?;
    for (name, v, max) in [
        ("block_m", pl.block_m, 4096),
        ("block_n", pl.block_n, 4096),
        ("num_kv_splits", pl.num_kv_splits, 4096),
    ] {
        if v == 0 || v > max {
            return Err(invalid!("plan->{name} = {v} must be in 1..={max}"));
        }
    }
    if pl.reverse_kv > 1 {
        return Err(invalid!(
            "plan->reverse_kv = {} must be 0 or 1",
            pl.reverse_kv
        ));
    }
    Ok(())
}

/// A bf16 CUDA call's description for unit tests (d = 128, non-causal, dense, contiguous), with
/// its default plan.
#[cfg(test)]
pub(crate) fn test_desc(batch: usize, hq: usize, hkv: usize, lq: usize, lk: usize) -> Desc {
    let mut d = Desc {
        device: super::Device::Cuda,
        dtype: super::DType::BF16,
        batch,
        hq,
        hkv,
        group: hq / hkv,
        head_dim: 128,
        max_lq: lq,
        max_lk: lk,
        causal: false,
        scale: 1.0,
        factor: 0.0,
        ragged_q: false,
        ragged_kv: false,
        paged: None,
        gpu: crate::cuda::GpuShape::nominal(),
        plan: AttnPlanInfo::default(),
    };
    d.plan = default_plan(&d);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A skip call's description (`test_desc` with a factor): the plans below are the skip
    /// calls' (two CTAs per multiprocessor on Hopper at d = 128).
    fn desc(batch: usize, hq: usize, hkv: usize, lq: usize, lk: usize) -> Desc {
        let mut d = test_desc(batch, hq, hkv, lq, lk);
        d.factor = 1.0;
        d.plan = default_plan(&d);
        d
    }

    /// `d` with a cache of `page`-key pages for `lk` keys per sequence.
    fn with_pages(d: &Desc, lk: usize, page: usize) -> Desc {
        Desc {
            paged: Some(super::super::validate::Paged {
                page_size: page,
                table_stride: lk.div_ceil(page),
                num_pages: 0,
            }),
            ..d.clone()
        }
    }

    #[test]
    fn dense_contiguous_decode_at_d128_plans_one_cta_per_sm() {
        // (batch, hq, hkv, lq, lk) -> (skip splits, dense splits) at d = 128 on an H100/H200:
        // dense contiguous calls fill 132 CTAs (one per multiprocessor), skip calls 264; but
        // only where that gives 2 or more than 4 splits (16 x 32K would have 1, 4 x 16K 4: they
        // keep the skip calls' 2 and 8; 3 x 16K has 5, merged by the merge kernel).
        for (b, hq, hkv, lq, lk, skip, dense) in [
            (1, 32, 8, 1, 131072, 33, 16),
            (16, 32, 8, 1, 32768, 2, 2),
            (64, 32, 8, 1, 8192, 1, 1),
            (1, 32, 8, 1, 2048, 2, 2),
            (7, 32, 8, 1, 8192, 4, 2),
            (4, 32, 8, 1, 16384, 8, 8),
            (3, 32, 8, 1, 16384, 11, 5),
            (2, 32, 8, 1, 32768, 16, 8),
            // 32 packed rows run the row-tile warps kernel (decode_warps: four 8-row tiles per
            // CTA), dense calls at one CTA per SM, skip calls at two (warps_one_cta_per_sm).
            (4, 64, 8, 4, 32768, 8, 4),
            (1, 32, 4, 4, 131072, 66, 33),
            // One row tile of 16 rows takes the rule.
            (1, 32, 8, 4, 131072, 33, 16),
        ] {
            let d = desc(b, hq, hkv, lq, lk);
            assert_eq!(
                d.plan.num_kv_splits, skip,
                "skip {b}x{lk} {hq}/{hkv} lq {lq}"
            );
            let dense_d = Desc { factor: 0.0, ..d };
            assert_eq!(
                default_plan(&dense_d).num_kv_splits,
                dense,
                "dense {b}x{lk} {hq}/{hkv} lq {lq}"
            );
            // Paged dense calls over 16- and 32-key pages, other head dims and other GPUs keep
            // the skip calls' plan; over 64-key pages and more, the dense one. (32 packed rows
            // over pages run the row-tile warps kernel as contiguous ones do, by the same rule.)
            if lq * hq / hkv > 16 {
                for (page, splits) in [(16, skip), (32, skip), (64, dense), (256, dense)] {
                    let paged = with_pages(&dense_d, lk, page);
                    assert!(decode_warps(&paged), "{page}-key pages");
                    assert_eq!(
                        default_plan(&paged).num_kv_splits,
                        splits,
                        "{page}-key pages"
                    );
                }
                continue;
            }
            for (page, splits) in [
                (16, skip),
                (32, skip),
                (64, dense),
                (128, dense),
                (256, dense),
                (1024, dense),
            ] {
                let paged = with_pages(&dense_d, lk, page);
                assert_eq!(
                    default_plan(&paged).num_kv_splits,
                    splits,
                    "paged dense {b}x{lk} {hq}/{hkv} lq {lq}, {page}-key pages"
                );
            }
            let mut portable = dense_d;
            portable.gpu.sm90a = false;
            let mut portable_skip = d;
            portable_skip.gpu.sm90a = false;
            assert_eq!(
                default_plan(&portable).num_kv_splits,
                default_plan(&portable_skip).num_kv_splits
            );
        }
        for hd in [64, 256] {
            let mut d = desc(16, 32, 8, 1, 32768);
            d.head_dim = hd;
            let dense_d = Desc { factor: 0.0, ..d };
            assert_eq!(default_plan(&dense_d), default_plan(&d), "d {hd}");
        }
    }

    /// A head dim below a kernel's plans as that kernel's (the GPU runs it there, zero-padded):
    /// 40 as 64, 96 as 128, 160 as 256; the one-CTA-per-SM dense rule is d = 128's and 96's, the
    /// row-tile warps kernel of several row tiles d = 128's alone (`decode_warps`).
    #[test]
    fn padded_head_dims_plan_as_their_kernel() {
        for (d, kd) in [(40, 64), (96, 128), (160, 256)] {
            for (b, hq, lq, lk) in [(1, 32, 1, 131072), (16, 32, 1, 32768), (1, 32, 8, 65536)] {
                let mut padded = desc(b, hq, 8, lq, lk);
                padded.head_dim = d;
                let mut kernel = padded.clone();
                kernel.head_dim = kd;
                assert_eq!(padded.kernel_dim(), kd);
                let (pp, pk) = (default_plan(&padded), default_plan(&kernel));
                let label = format!("d {d} {b}x{lk} lq {lq}");
                // With a factor (the dense plan of d = 128 differs: dense_one_cta_per_sm).
                if kd == 128 && lq == 8 {
                    // 32 rows: d = 128 plans the row-tile warps kernel (four 8-row tiles per CTA,
                    // 8 units x 33 splits), d = 96 two 16-row tiles at two CTAs per SM (16 x 16).
                    assert!(decode_warps(&kernel) && !decode_warps(&padded), "{label}");
                    assert_eq!(
                        (pk.block_m, pk.num_kv_splits, pp.block_m, pp.num_kv_splits),
                        (8, 33, 16, 16),
                        "{label}"
                    );
                } else {
                    assert_eq!(pp, pk, "{label}");
                }
            }
        }
        // Dense contiguous calls: d = 96 takes d = 128's one-CTA-per-SM rule, with one split
        // allowed (16 x 32K: 1, where d = 128 keeps 2); d = 80 and 40 keep two CTAs per SM.
        for (hd, b, lk, splits) in [
            (96, 1, 131072, 16),
            (96, 16, 32768, 1),
            (96, 16, 16384, 1),
            (96, 4, 16384, 8),
            (96, 7, 8192, 2),
            (128, 16, 32768, 2),
            (80, 1, 131072, 33),
            (80, 16, 32768, 2),
            (40, 1, 131072, 49),
        ] {
            let mut dense = desc(b, 32, 8, 1, lk);
            dense.head_dim = hd;
            dense.factor = 0.0;
            assert_eq!(
                default_plan(&dense).num_kv_splits,
                splits,
                "dense d {hd} {b}x{lk}"
            );
            // Paged over 16-key pages: the skip calls' plan; over 64-key pages: the dense
            // contiguous one where the rule applies (d = 96 and 128, the same kernel).
            let mut skip = dense.clone();
            skip.factor = 1.0;
            assert_eq!(
                default_plan(&with_pages(&dense, lk, 16)),
                default_plan(&skip),
                "paged 16 d {hd} {b}x{lk}"
            );
            let paged_64 = if hd >= 96 { &dense } else { &skip };
            assert_eq!(
                default_plan(&with_pages(&dense, lk, 64)).num_kv_splits,
                default_plan(paged_64).num_kv_splits,
                "paged 64 d {hd} {b}x{lk}"
            );
        }
    }

    /// Calls of several row tiles at d = 128 on an H100/H200 plan the row-tile warps kernel: 8-row
    /// tiles, four per CTA, skip calls' splits filling two CTAs per SM (264 slots; dense calls
    /// one: `warps_one_cta_per_sm`). Calls of one tile, and
    /// other head dims, keep their plans. (batch, hq, hkv, lq, lk) -> (block_m, splits).
    #[test]
    fn several_row_tiles_plan_the_row_tile_warps_kernel() {
        for (b, hq, hkv, lq, lk, bm, splits) in [
            // speculative decode, 4 tokens x GQA 8 (the benchmark's 4 x 32K): 16 units x 16
            (4, 32, 4, 4, 32768, 8, 16),
            (1, 32, 4, 4, 131072, 8, 66),
            (16, 32, 4, 4, 32768, 8, 4),
            // 8 tokens x GQA 4 at 16 x 16K: 128 units x 2
            (16, 32, 8, 8, 16384, 8, 2),
            // a short cache: 4 units x 5 splits (its length's limit)
            (2, 16, 2, 4, 6000, 8, 5),
            // 64 rows: two CTAs per KV head (8 units; 32 splits: its length's limit)
            (4, 64, 1, 1, 32768, 8, 32),
            // one row tile
            (1, 32, 8, 1, 131072, 4, 33),
            (16, 32, 8, 2, 32768, 8, 2),
            (1, 32, 8, 4, 131072, 16, 33),
        ] {
            let d = desc(b, hq, hkv, lq, lk);
            let pl = default_plan(&d);
            let label = format!("{b}x{lk} {hq}/{hkv} lq {lq}");
            assert_eq!((pl.block_m, pl.num_kv_splits), (bm, splits), "{label}");
            assert_eq!(decode_warps(&d), lq * hq / hkv > 16, "{label}");
            for hd in [64, 96, 256] {
                let mut o = d.clone();
                o.head_dim = hd;
                assert!(!decode_warps(&o), "d {hd} {label}");
            }
        }
    }

    #[test]
    fn decode_splits_fill_one_wave_of_long_splits() {
        // (batch, hq, hkv, lq, lk) -> (block_m, splits): the benchmark's decode sizes, a short
        // cache (at least 16 tiles per split), speculative decoding (32 rows: two row tiles of
        // the Hopper decode kernel), 64 rows (four).
        for (b, hq, hkv, lq, lk, bm, splits) in [
            (1, 32, 8, 1, 131072, 4, 33),
            (16, 32, 8, 1, 32768, 4, 2),
            (64, 32, 8, 1, 8192, 4, 1),
            (1, 32, 8, 1, 2048, 4, 2),
            (1, 32, 8, 1, 1000, 4, 1),
            (2, 16, 2, 4, 6000, 8, 5),
            (1, 64, 1, 1, 50000, 8, 48),
        ] {
            let pl = default_plan(&desc(b, hq, hkv, lq, lk));
            assert_eq!(pl.phase, Phase::Decode.as_u32());
            assert_eq!(
                (pl.block_m, pl.num_kv_splits),
                (bm, splits),
                "{b}x{lk} {hq}/{hkv} lq {lq}"
            );
            let units = b * hkv * (lq * (hq / hkv)).div_ceil(bm as usize) * splits as usize;
            assert!(units <= 264 || splits == 1 || units <= 396 && lq * hq / hkv > bm as usize);
            let tiles = lk.div_ceil(DECODE_BLOCK_N as usize);
            assert!(splits == 1 || tiles / splits as usize >= DECODE_MIN_TILES_PER_SPLIT);
        }
        // One wave of the decode kernel's CTAs on an H100/H200: the Hopper kernel holds 3 per
        // multiprocessor at d = 64 (396 units), 2 at d = 128 (264), 1 at d = 256 (132); 32 rows
        // at d = 128 are two row tiles (64 units of 4 x 8 KV heads x 2: 4 splits), 16 rows at
        // d = 256 two of 8 (16 units: 8 splits).
        for (hd, b, hq, lq, lk, splits) in [
            (64, 16, 32, 1, 16384, 3),
            (64, 1, 32, 1, 65536, 49),
            (256, 1, 32, 1, 65536, 16),
            (256, 16, 32, 1, 16384, 1),
            (256, 1, 32, 1, 131072, 16),
            (256, 2, 32, 1, 32768, 8),
            (256, 1, 128, 1, 65536, 8),
            (128, 4, 64, 4, 32768, 8),
        ] {
            let mut d = desc(b, hq, 8, lq, lk);
            d.head_dim = hd;
            assert_eq!(
                default_plan(&d).num_kv_splits,
                splits,
                "d {hd} {b}x{lk} {hq}/8 lq {lq}"
            );
        }
        // Another GPU: an A100 (108 multiprocessors of 164 KB), where the portable kernel runs
        // 2 stages at d = 128 (78 KB) to keep two CTAs per multiprocessor: 216 units, 27 splits
        // at 1 x 128K (with 3 stages, until session 31, 111 KB left one: 108 units, 13 splits;
        // 264 units were 2.4 waves there).
        let mut d = desc(1, 32, 8, 1, 131072);
        d.gpu = crate::cuda::GpuShape {
            sms: 108,
            sm90a: false,
            smem_per_sm: 164 * 1024,
        };
        assert_eq!(default_plan(&d).num_kv_splits, 27);
        // Row tiles on an H100/H200 (GQA 4, 1-8 tokens): at d <= 128 up to 64 rows as tiles
        // of 16 (at d = 128 more than 16 rows as tiles of 8, the row-tile warps kernel's), at
        // d = 256 up to 16 as tiles of 8, more as one tile of the portable kernel.
        for (hd, lq, bm) in [
            (128, 4, 16),
            (128, 8, 8),
            (64, 8, 16),
            (256, 2, 8),
            (256, 4, 8),
            (256, 8, 32),
        ] {
            let mut d = desc(1, 32, 8, lq, 65536);
            d.head_dim = hd;
            assert_eq!(default_plan(&d).block_m, bm, "d {hd} lq {lq}");
        }
        // Elsewhere the portable kernel takes all packed rows as one tile where it fits: 32 rows,
        // 1 tile.
        let mut d = desc(2, 16, 2, 4, 6000);
        d.gpu.sm90a = false;
        assert_eq!(default_plan(&d).block_m, 32);
        // Where it does not (`cuda::portable_decode_block_m`), row tiles, each a work unit: on an
        // A100 at d = 256, 6 tokens x GQA 8 (48 rows) as two tiles of 32, so 2 sequences x 2 KV
        // heads x 2 tiles = 8 units, and the splits fill the GPU's CTA slots with those.
        let mut d = desc(2, 32, 4, 6, 65536);
        d.head_dim = 256;
        d.gpu = crate::cuda::GpuShape {
            sms: 108,
            sm90a: false,
            smem_per_sm: 164 * 1024,
        };
        let pl = default_plan(&d);
        let per_sm = crate::cuda::decode_ctas_per_sm(&d.gpu, 256, 32);
        assert_eq!(pl.block_m, 32);
        assert_eq!(
            pl.num_kv_splits as usize,
            (108 * per_sm / 16).min(MAX_SPLITS),
            "{per_sm} per SM"
        );
        // Prefill: one split, 16 x 64 tiles, last to first.
        let pl = default_plan(&desc(1, 32, 8, 9, 4096));
        assert_eq!(
            (
                pl.phase,
                pl.block_m,
                pl.block_n,
                pl.num_kv_splits,
                pl.reverse_kv
            ),
            (Phase::Prefill.as_u32(), 16, 64, 1, 1)
        );
    }

    /// On a GPU of 100 KB (an RTX 4090, an L40S) the portable decode kernel runs d = 256 (and
    /// 160, which runs on the d = 256 kernel) on 32-key tiles, the plan's block_n 32 (64-key tiles
    /// do not fit there); d = 128 keeps 64-key tiles there, as does an A100 at d = 256. Where not
    /// even 32-key tiles fit (a GPU of 64 KB, none that blasst runs on), decode-shaped calls take
    /// the prefill plan.
    #[test]
    fn decode_at_d256_on_gpus_of_100_kb_runs_32_key_tiles() {
        let gpu = |sms, smem_kb: usize| crate::cuda::GpuShape {
            sms,
            sm90a: false,
            smem_per_sm: smem_kb * 1024,
        };
        for (hd, lq, g, phase, bn) in [
            (256, 1, gpu(128, 100), Phase::Decode, 32),
            (160, 1, gpu(128, 100), Phase::Decode, 32),
            (256, 8, gpu(128, 100), Phase::Decode, 32),
            (128, 1, gpu(128, 100), Phase::Decode, 64),
            (128, 8, gpu(128, 100), Phase::Decode, 64),
            (256, 1, gpu(108, 164), Phase::Decode, 64),
            (256, 1, crate::cuda::GpuShape::nominal(), Phase::Decode, 64),
            (256, 1, gpu(128, 64), Phase::Prefill, 64),
        ] {
            let mut d = desc(2, 32, 8, lq, 30000);
            d.head_dim = hd;
            d.gpu = g;
            let pl = default_plan(&d);
            assert_eq!(
                (pl.phase, pl.block_n),
                (phase.as_u32(), bn),
                "d {hd} lq {lq} on {g:?}"
            );
            if phase == Phase::Prefill {
                assert_eq!((pl.block_m, pl.num_kv_splits, pl.reverse_kv), (16, 1, 1));
            }
        }
        // 1 x 30000 keys at d = 256 on 128 multiprocessors of 100 KB: 938 tiles of 32 keys,
        // one CTA per multiprocessor (80 KB each), 2 x 8 units: 8 splits of >= 16 tiles.
        let mut d = desc(2, 32, 8, 1, 30000);
        d.head_dim = 256;
        d.gpu = gpu(128, 100);
        assert_eq!(default_plan(&d).num_kv_splits, 8);
    }
}
