//! The CPU reference backend: the executable definition of Skip-Softmax attention
//! (SPEC section 1). Given a plan it makes exactly the skip decisions the GPU kernels make,
//! so the kernels are tested against it tile by tile.
//!
//! Structure: for each (sequence, KV head) the KV rows are gathered into contiguous f32
//! (this is where contiguous, ragged and paged layouts become one), then every row tile of
//! the plan runs its KV splits as independent work units, merged by LSE; neighbouring row
//! tiles share their matrix products (`Blocking`), not their decisions. Matrix products go
//! through `matrixmultiply` (runtime AVX2/FMA dispatch); the exponentials are vectorised.

mod elem;
pub mod merge;

pub use elem::Elem;
use elem::exp_f32;

use crate::attn::{AttnParams, AttnPlanInfo, Desc, Phase};
use crate::{Result, invalid};
use half::{bf16, f16};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// One sequence of the batch, resolved from the layout arrays.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seq {
    /// Row of this sequence's first query in q/o/lse (ragged: cu_seqlens_q[b]; padded: b*max_lq).
    pub q_row0: usize,
    pub lq: usize,
    pub lk: usize,
    /// Ragged KV: cu_seqlens_kv[b]; otherwise 0.
    pub kv_row0: usize,
}

/// Reads `n` int32 values from a host array.
unsafe fn host_array<'a>(ptr: *const i32, n: usize) -> &'a [i32] {
    // SAFETY: caller guarantees `n` readable values.
    unsafe { std::slice::from_raw_parts(ptr, n) }
}

fn read_cu(name: &str, cu: &[i32], max_len: usize) -> Result<()> {
    if cu[0] < 0 {
        return Err(invalid!("{name}[0] = {} is negative", cu[0]));
    }
    for b in 0..cu.len() - 1 {
        let len = cu[b + 1] as i64 - cu[b] as i64;
        if len < 0 {
            return Err(invalid!(
                "{name} is not monotone: {name}[{}] = {} < {name}[{b}] = {}",
                b + 1,
                cu[b + 1],
                cu[b]
            ));
        }
        if len as usize > max_len {
            return Err(invalid!(
                "{name}[{}] - {name}[{b}] = {len} exceeds the maximum sequence length {max_len}",
                b + 1
            ));
        }
    }
    Ok(())
}

/// Resolves and checks every per-sequence value (host arrays) before anything is written.
pub(crate) unsafe fn sequences(p: &AttnParams, d: &Desc) -> Result<Vec<Seq>> {
    let cu_q = if d.ragged_q {
        // SAFETY: documented size batch+1.
        let cu = unsafe { host_array(p.cu_seqlens_q, d.batch + 1) };
        read_cu("cu_seqlens_q", cu, d.max_lq)?;
        Some(cu)
    } else {
        None
    };
    let cu_kv = if d.ragged_kv {
        let cu = unsafe { host_array(p.cu_seqlens_kv, d.batch + 1) };
        read_cu("cu_seqlens_kv", cu, d.max_lk)?;
        Some(cu)
    } else {
        None
    };
    let used = if p.seqused_kv.is_null() {
        None
    } else {
        Some(unsafe { host_array(p.seqused_kv, d.batch) })
    };
    let mut seqs = Vec::with_capacity(d.batch);
    for b in 0..d.batch {
        let (q_row0, lq) = match cu_q {
            Some(cu) => (cu[b] as usize, (cu[b + 1] - cu[b]) as usize),
            None => (b * d.max_lq, d.max_lq),
        };
        let (kv_row0, cap) = match (cu_kv, &d.paged) {
            (Some(cu), _) => (cu[b] as usize, (cu[b + 1] - cu[b]) as usize),
            (None, Some(pg)) => (0, pg.table_stride * pg.page_size),
            (None, None) => (0, d.max_lk),
        };
        let lk = match used {
            Some(u) => {
                let v = u[b];
                if v < 0 || v as usize > cap || v as usize > d.max_lk {
                    return Err(invalid!(
                        "seqused_kv[{b}] = {v} is outside 0..={} (the cache holds {cap} keys, max_seqlen_kv = {})",
                        cap.min(d.max_lk),
                        d.max_lk
                    ));
                }
                v as usize
            }
            None => cap.min(d.max_lk),
        };
        if let Some(pg) = &d.paged {
            let table = unsafe {
                host_array(
                    p.block_table.add(b * pg.table_stride),
                    lk.div_ceil(pg.page_size),
                )
            };
            for (i, &page) in table.iter().enumerate() {
                if page < 0 || (pg.num_pages > 0 && page as usize >= pg.num_pages) {
                    return Err(invalid!(
                        "block_table[{b}][{i}] = {page} is not a page index (num_pages = {})",
                        pg.num_pages
                    ));
                }
            }
        }
        seqs.push(Seq {
            q_row0,
            lq,
            lk,
            kv_row0,
        });
    }
    Ok(seqs)
}

/// Runs a validated call on host memory.
///
/// # Safety
/// As `attn::run`, with every pointer in host memory.
pub unsafe fn run(p: &AttnParams, d: &Desc) -> Result<()> {
    let (visited, skipped) = unsafe { run_counting(p, d, &[]) }?;
    add_stats(p.skip_stats, visited, skipped[0]);
    Ok(())
}

/// Adds to a caller's {visited, skipped} counters (host memory, 8-byte aligned: validated).
pub(crate) fn add_stats(stats: *mut u64, visited: u64, skipped: u64) {
    if !stats.is_null() {
        // SAFETY: non-null, aligned, two counters; other threads may add to the same
        // counters, hence atomics.
        unsafe {
            AtomicU64::from_ptr(stats).fetch_add(visited, Ordering::Relaxed);
            AtomicU64::from_ptr(stats.add(1)).fetch_add(skipped, Ordering::Relaxed);
        }
    }
}

/// The calibration sweep (SPEC section 6) for a dense `d` (factor 0, set by
/// `attn::calibrate_sweep`): one dense pass that counts, for each candidate
/// `ln(lambda)`, the tiles its skip test would skip, evaluated against the dense running
/// maximum. Writes the dense output like `run`. Returns (visited, skipped per candidate).
///
/// For lambda <= 1 the counts equal those of separate skip runs exactly: a tile a skip run
/// skips has every row's best score below its running max, so skipping it never changes any
/// running max, and the dense and skip runs see the same maxima at every decision. For
/// lambda > 1 a skip run may skip a tile that would have raised a max, and later decisions of
/// the two can differ.
///
/// # Safety
/// As `run`.
pub(crate) unsafe fn sweep(
    p: &AttnParams,
    d: &Desc,
    ln_lambdas: &[f32],
) -> Result<(u64, Vec<u64>)> {
    debug_assert_eq!(d.factor, 0.0);
    unsafe { run_counting(p, d, ln_lambdas) }
}

/// Runs the call; returns (visited, counts) where counts is [skipped] for a normal call and
/// one count per candidate for a sweep.
unsafe fn run_counting(p: &AttnParams, d: &Desc, sweep: &[f32]) -> Result<(u64, Vec<u64>)> {
    crate::cuda::host_has_device_pointer(&[
        ("q", p.q as usize),
        ("k", p.k as usize),
        ("v", p.v as usize),
        ("o", p.o as usize),
        ("lse", p.lse as usize),
        ("cu_seqlens_q", p.cu_seqlens_q as usize),
        ("cu_seqlens_kv", p.cu_seqlens_kv as usize),
        ("seqused_kv", p.seqused_kv as usize),
        ("block_table", p.block_table as usize),
    ])?;
    let seqs = unsafe { sequences(p, d)? };
    let counts = unsafe {
        match d.dtype {
            crate::attn::DType::F16 => run_typed::<f16>(p, d, &seqs, sweep, Blocking::FAST),
            crate::attn::DType::BF16 => run_typed::<bf16>(p, d, &seqs, sweep, Blocking::FAST),
            crate::attn::DType::F32 => run_typed::<f32>(p, d, &seqs, sweep, Blocking::FAST),
        }
    };
    Ok(counts)
}

#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: every work unit writes disjoint rows through it.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// A method (not `.0`) so closures capture the whole Send wrapper.
    fn get(&self) -> *mut T {
        self.0
    }
}

/// The strides (in elements) and the block table of a call, shareable across threads.
#[derive(Clone, Copy)]
struct Layout {
    q: [i64; 3],
    k: [i64; 3],
    v: [i64; 3],
    o: [i64; 3],
    block_table: SendPtr<i32>,
}

impl Layout {
    fn of(p: &AttnParams) -> Self {
        Layout {
            q: [p.q_batch_stride, p.q_row_stride, p.q_head_stride],
            k: [p.k_batch_stride, p.k_row_stride, p.k_head_stride],
            v: [p.v_batch_stride, p.v_row_stride, p.v_head_stride],
            o: [p.o_batch_stride, p.o_row_stride, p.o_head_stride],
            block_table: SendPtr(p.block_table as *mut i32),
        }
    }
}

/// Offsets (in elements) of the K/V rows of one sequence.
struct KvAddr<'a> {
    lay: Layout,
    d: &'a Desc,
    b: usize,
    seq: Seq,
}

impl KvAddr<'_> {
    fn offset(&self, pos: usize, kvh: usize, [bs, rs, hs]: [i64; 3]) -> isize {
        let (base, row) = match &self.d.paged {
            Some(pg) => {
                // SAFETY: entries up to lk were checked in `sequences`.
                let page = unsafe {
                    *self
                        .lay
                        .block_table
                        .get()
                        .add(self.b * pg.table_stride + pos / pg.page_size)
                } as i64;
                (page * bs, (pos % pg.page_size) as i64)
            }
            None if self.d.ragged_kv => (0, (self.seq.kv_row0 + pos) as i64),
            None => (self.b as i64 * bs, pos as i64),
        };
        (base + row * rs + kvh as i64 * hs) as isize
    }
}

/// The query rows of a tile: (token, head) or None for padding.
type Row = Option<(usize, usize)>;

/// The row tiles of one (sequence, KV head) under a plan.
fn row_tiles(plan: &AttnPlanInfo, d: &Desc, lq: usize, kvh: usize) -> Vec<Vec<Row>> {
    let bm = plan.block_m as usize;
    let g = d.group;
    let mut tiles = Vec::new();
    if plan.phase == Phase::Decode.as_u32() {
        // GQA packing: row r = token * group + head-in-group.
        let n = lq * g;
        for start in (0..n).step_by(bm) {
            tiles.push(
                (start..start + bm)
                    .map(|r| (r < n).then(|| (r / g, kvh * g + r % g)))
                    .collect(),
            );
        }
    } else {
        for h in kvh * g..(kvh + 1) * g {
            for start in (0..lq).step_by(bm) {
                tiles.push(
                    (start..start + bm)
                        .map(|t| (t < lq).then_some((t, h)))
                        .collect(),
                );
            }
        }
    }
    tiles
}

/// How much the CPU backend computes per matrix product. The plan's row tiles are taken in
/// groups of up to `rows` query rows, and S = Q K^T is computed for up to `keys` keys (whole KV
/// tiles of the work unit's list) at once: S does not depend on the decisions, only the softmax
/// and P V do. So S is one product per group and key block, and the P V of a KV tile one per
/// run of neighbouring kept row tiles. With one 16-row x 64-key tile per product (the plan's
/// tile, `Blocking::of_plan`), the products spent more time packing their operands than
/// multiplying, and an 8K x 8K, 32-head bf16 call took ~40 s on two cores (SPEC section 7's
/// bound is 30 s; bench/RESULTS.md, session 22). Each row tile still visits, decides, skips
/// and accumulates alone, and every element is computed by the same operations in the same
/// order whatever the blocking (matrixmultiply sums each element over the head dimension in
/// order), so the results are bit-identical (unit test `blocking_does_not_change_a_bit`).
#[derive(Debug, Clone, Copy)]
struct Blocking {
    rows: usize,
    keys: usize,
}

impl Blocking {
    const FAST: Blocking = Blocking {
        rows: 128,
        keys: 256,
    };
    /// One plan tile per product (what the backend did before blocking).
    #[cfg(test)]
    fn of_plan(plan: &AttnPlanInfo) -> Blocking {
        Blocking {
            rows: plan.block_m as usize,
            keys: plan.block_n as usize,
        }
    }
}

unsafe fn run_typed<T: Elem>(
    p: &AttnParams,
    d: &Desc,
    seqs: &[Seq],
    sweep: &[f32],
    blocking: Blocking,
) -> (u64, Vec<u64>) {
    let visited = AtomicU64::new(0);
    let counts: Vec<AtomicU64> = (0..sweep.len().max(1)).map(|_| AtomicU64::new(0)).collect();
    let dim = d.head_dim;
    let q_ptr = SendPtr(p.q as *mut T);
    let k_ptr = SendPtr(p.k as *mut T);
    let v_ptr = SendPtr(p.v as *mut T);
    let o_ptr = SendPtr(p.o as *mut T);
    let lse_ptr = SendPtr(p.lse);
    let lay = Layout::of(p);
    let jobs: Vec<(usize, usize)> = (0..d.batch)
        .flat_map(|b| (0..d.hkv).map(move |h| (b, h)))
        .collect();
    jobs.par_iter().for_each(|&(b, kvh)| {
        let seq = seqs[b];
        if seq.lq == 0 {
            return;
        }
        let addr = KvAddr { lay, d, b, seq };
        // Gather K and V of this (sequence, KV head) into contiguous f32 [lk][dim].
        let gather = |ptr: SendPtr<T>, strides: [i64; 3]| -> Vec<f32> {
            let mut buf = vec![0f32; seq.lk * dim];
            for pos in 0..seq.lk {
                let off = addr.offset(pos, kvh, strides);
                // SAFETY: offsets follow the caller's strides and checked lengths.
                let src = unsafe { std::slice::from_raw_parts(ptr.get().offset(off), dim) };
                for (dst, s) in buf[pos * dim..(pos + 1) * dim].iter_mut().zip(src) {
                    *dst = s.to_f32();
                }
            }
            buf
        };
        let kbuf = gather(k_ptr, lay.k);
        let vbuf = gather(v_ptr, lay.v);
        let q_off = |t: usize, h: usize, [bs, rs, hs]: [i64; 3]| -> isize {
            let row = if d.ragged_q {
                (seq.q_row0 + t) as i64 * rs
            } else {
                b as i64 * bs + t as i64 * rs
            };
            (row + h as i64 * hs) as isize
        };
        let tiles = row_tiles(&d.plan, d, seq.lq, kvh);
        let per_group = (blocking.rows / d.plan.block_m as usize).max(1);
        tiles.par_chunks(per_group).for_each(|group| {
            let rows: Vec<Row> = group.concat();
            let rows = &rows[..];
            let nrows = rows.len();
            let mut q = vec![0f32; nrows * dim];
            for (i, row) in rows.iter().enumerate() {
                if let Some((t, h)) = *row {
                    let off = q_off(t, h, lay.q);
                    let src = unsafe { std::slice::from_raw_parts(q_ptr.get().offset(off), dim) };
                    for (dst, s) in q[i * dim..(i + 1) * dim].iter_mut().zip(src) {
                        *dst = s.to_f32();
                    }
                }
            }
            let tile = TileInput {
                q: &q,
                rows,
                block_m: d.plan.block_m as usize,
                k: &kbuf,
                v: &vbuf,
                dim,
                lq: seq.lq,
                lk: seq.lk,
                causal: d.causal,
            };
            let (out, lse, vis, skp) = run_group(
                &tile,
                &d.plan,
                d.scale,
                d.factor,
                d.max_lk,
                sweep,
                blocking.keys,
            );
            visited.fetch_add(vis, Ordering::Relaxed);
            for (c, k) in counts.iter().zip(skp) {
                c.fetch_add(k, Ordering::Relaxed);
            }
            for (i, row) in rows.iter().enumerate() {
                let Some((t, h)) = *row else { continue };
                let off = q_off(t, h, lay.o);
                // SAFETY: each (token, head) row is written by exactly one work unit.
                let dst = unsafe { std::slice::from_raw_parts_mut(o_ptr.get().offset(off), dim) };
                for (o, x) in dst.iter_mut().zip(&out[i * dim..(i + 1) * dim]) {
                    *o = T::from_f32(*x);
                }
                if !lse_ptr.get().is_null() {
                    unsafe { *lse_ptr.get().add((seq.q_row0 + t) * d.hq + h) = lse[i] };
                }
            }
        });
    });
    (
        visited.into_inner(),
        counts.into_iter().map(AtomicU64::into_inner).collect(),
    )
}

/// Everything a group of row tiles needs, in f32: `rows` are the rows of whole tiles of
/// `block_m` rows each (padding rows `None`), `q` their queries.
pub(crate) struct TileInput<'a> {
    pub q: &'a [f32],
    pub rows: &'a [Row],
    pub block_m: usize,
    pub k: &'a [f32],
    pub v: &'a [f32],
    pub dim: usize,
    pub lq: usize,
    pub lk: usize,
    pub causal: bool,
}

impl TileInput<'_> {
    /// Last key each row may see (-1: none; padding rows see none).
    fn limits(&self) -> Vec<i64> {
        self.rows
            .iter()
            .map(|r| match *r {
                None => -1,
                Some((t, _)) if self.causal => {
                    (t as i64 + self.lk as i64 - self.lq as i64).min(self.lk as i64 - 1)
                }
                Some(_) => self.lk as i64 - 1,
            })
            .collect()
    }
}

/// How many KV tiles (from the first) a row tile whose rows see keys up to `max_limit` may see;
/// the tiles past them are not visited.
fn visible_tiles(bn: usize, lk: usize, max_limit: i64) -> usize {
    if max_limit < 0 {
        0
    } else {
        (max_limit as usize / bn + 1).min(lk.div_ceil(bn))
    }
}

/// The KV tiles one work unit visits, in order: split `s` of `splits` covers a contiguous
/// range of ceil(tiles / splits) of the sequence's tiles; tiles no row of the tile can see
/// (beyond the causal limit of its last row) are not visited.
pub(crate) fn split_tiles(plan: &AttnPlanInfo, lk: usize, max_limit: i64, s: usize) -> Vec<usize> {
    let bn = plan.block_n as usize;
    let total = lk.div_ceil(bn);
    let per = total.div_ceil(plan.num_kv_splits as usize).max(1);
    let visible = visible_tiles(bn, lk, max_limit);
    let range = (s * per).min(visible)..((s + 1) * per).min(visible);
    if plan.reverse_kv == 1 {
        range.rev().collect()
    } else {
        range.collect()
    }
}

/// Runs all KV splits of a group of row tiles and merges them: (out [rows][dim], lse [rows],
/// visited, skipped: one count, or one per sweep candidate), summed over the group's tiles.
///
/// Each row tile is a work unit of its own: it visits `split_tiles` of its own rows' limits and
/// decides alone. A tile's list is the group's list (that of the group's farthest-seeing tile)
/// without the tiles past its own visible ones, in the same order, so one pass over the group's
/// list serves every tile.
pub(crate) fn run_group(
    t: &TileInput,
    plan: &AttnPlanInfo,
    scale: f32,
    factor: f32,
    max_lk: usize,
    sweep: &[f32],
    s_keys: usize,
) -> (Vec<f32>, Vec<f32>, u64, Vec<u64>) {
    let n = t.rows.len();
    let bn = plan.block_n as usize;
    let limits = t.limits();
    let visible: Vec<usize> = limits
        .chunks(t.block_m)
        .map(|tile| visible_tiles(bn, t.lk, tile.iter().copied().max().unwrap_or(-1)))
        .collect();
    let max_limit = limits.iter().copied().max().unwrap_or(-1);
    let splits = plan.num_kv_splits as usize;
    let ln_lambda = if factor > 0.0 {
        ((factor as f64) / (max_lk as f64)).ln() as f32
    } else {
        f32::NEG_INFINITY
    };
    let mut parts = Vec::with_capacity(splits);
    let mut vis = 0;
    let mut skp = vec![0u64; sweep.len().max(1)];
    for s in 0..splits {
        let tiles = split_tiles(plan, t.lk, max_limit, s);
        let mut u = WorkUnit::new(n, t.dim, (s_keys / bn).max(1) * bn);
        vis += if factor > 0.0 {
            u.run::<true>(
                t,
                &limits,
                &visible,
                &tiles,
                scale,
                &[ln_lambda],
                bn,
                &mut skp,
            )
        } else {
            u.run::<false>(t, &limits, &visible, &tiles, scale, sweep, bn, &mut skp)
        };
        parts.push(u.finish());
    }
    if splits == 1 {
        let (out, lse) = parts.pop().unwrap();
        return (out, lse, vis, skp);
    }
    let mut out = vec![0f32; n * t.dim];
    let mut lse = vec![f32::NEG_INFINITY; n];
    for i in 0..n {
        let dim = t.dim;
        lse[i] = merge::merge_rows(
            splits,
            |s| (&parts[s].0[i * dim..(i + 1) * dim], parts[s].1[i]),
            &mut out[i * dim..(i + 1) * dim],
        );
    }
    (out, lse, vis, skp)
}

/// The Skip-Softmax test of SPEC section 1 for one tile: every row votes; fully masked rows
/// always vote to skip; rows without an accumulated tile (m = -inf) never do; the others when
/// the tile's best score is below the running max by more than -ln(lambda). Skip when all do.
fn tile_votes_skip(tile_max: &[f32], m: &[f32], ln_lambda: f32) -> bool {
    tile_max
        .iter()
        .zip(m)
        .all(|(&t, &m)| t == f32::NEG_INFINITY || (m != f32::NEG_INFINITY && t - m < ln_lambda))
}

/// The online-softmax state of the work units of a group of row tiles (per row).
struct WorkUnit {
    m: Vec<f32>,
    l: Vec<f32>,
    acc: Vec<f32>,
    /// Scores (then probabilities) of up to `s_keys` keys per row, row stride `s_keys`.
    s: Vec<f32>,
    s_keys: usize,
    dim: usize,
}

/// `C (m x n, row stride ldc) = alpha * A (m x k) B (k x n) + beta * C`, A and B given by
/// (row stride, column stride).
///
/// # Safety
/// The pointers address matrices of these shapes and strides.
unsafe fn sgemm(
    (m, k, n): (usize, usize, usize),
    alpha: f32,
    (a, rsa, csa): (*const f32, usize, usize),
    (b, rsb, csb): (*const f32, usize, usize),
    beta: f32,
    (c, ldc): (*mut f32, usize),
) {
    // SAFETY: as the caller guarantees.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a,
            rsa as isize,
            csa as isize,
            b,
            rsb as isize,
            csb as isize,
            beta,
            c,
            ldc as isize,
            1,
        );
    }
}

impl WorkUnit {
    /// `s_keys`: keys of S per product, a multiple of the plan's block_n.
    fn new(rows: usize, dim: usize, s_keys: usize) -> Self {
        WorkUnit {
            m: vec![f32::NEG_INFINITY; rows],
            l: vec![0.0; rows],
            acc: vec![0.0; rows * dim],
            s: vec![0.0; rows * s_keys],
            s_keys,
            dim,
        }
    }

    /// Visits `tiles` in order, each row tile `r` those below its `visible[r]`; with `SKIP`
    /// applies the Skip-Softmax test of SPEC section 1 for `ln_lambdas[0]` per row tile and
    /// counts skips in `counts[0]`. Without it the pass is dense and, for a calibration sweep,
    /// counts in `counts[c]` the tiles the test would skip for each `ln_lambdas[c]` (against the
    /// dense running max). Returns the (row tile, KV tile) visits.
    fn run<const SKIP: bool>(
        &mut self,
        t: &TileInput,
        limits: &[i64],
        visible: &[usize],
        tiles: &[usize],
        scale: f32,
        ln_lambdas: &[f32],
        bn: usize,
        counts: &mut [u64],
    ) -> u64 {
        let (bm, dim, sk) = (t.block_m, self.dim, self.s_keys);
        let mut tile_max = vec![f32::NEG_INFINITY; bm];
        let mut kept = vec![false; visible.len()];
        let mut visits = 0;
        // `tiles` is a range of tiles (either direction): each block of sk / bn of them is a
        // range of keys lo..hi, whose S one product computes for the row tiles that visit any
        // of its tiles (they all visit the block's lowest tile).
        for block in tiles.chunks(sk / bn) {
            let j_lo = *block.iter().min().unwrap();
            let lo = j_lo * bn;
            let hi = ((block.iter().max().unwrap() + 1) * bn).min(t.lk);
            let Some(first) = visible.iter().position(|&v| j_lo < v) else {
                continue;
            };
            let last = visible.iter().rposition(|&v| j_lo < v).unwrap();
            // S = scale * Q K^T.
            // SAFETY: dimensions and strides describe the buffers exactly.
            unsafe {
                sgemm(
                    ((last + 1 - first) * bm, dim, hi - lo),
                    scale,
                    (t.q.as_ptr().add(first * bm * dim), dim, 1),
                    (t.k.as_ptr().add(lo * dim), 1, dim),
                    0.0,
                    (self.s.as_mut_ptr().add(first * bm * sk), sk),
                );
            }
            for &j in block {
                let k0 = j * bn;
                let nk = bn.min(t.lk - k0);
                // Tile j's scores of row i: s[i * sk + off ..][..nk].
                let off = k0 - lo;
                for rt in first..=last {
                    kept[rt] = false;
                    if j >= visible[rt] {
                        continue;
                    }
                    visits += 1;
                    let rows = rt * bm..(rt + 1) * bm;
                    for (i, tm) in rows.clone().zip(tile_max.iter_mut()) {
                        let vis = (limits[i] - k0 as i64 + 1).clamp(0, nk as i64) as usize;
                        let row = &mut self.s[i * sk + off..i * sk + off + nk];
                        row[vis..].iter_mut().for_each(|x| *x = f32::NEG_INFINITY);
                        *tm = row[..vis].iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    }
                    if SKIP {
                        if tile_votes_skip(&tile_max, &self.m[rows.clone()], ln_lambdas[0]) {
                            counts[0] += 1;
                            continue;
                        }
                    } else {
                        for (c, &ln) in counts.iter_mut().zip(ln_lambdas) {
                            *c += tile_votes_skip(&tile_max, &self.m[rows.clone()], ln) as u64;
                        }
                    }
                    kept[rt] = true;
                    for (i, &tm) in rows.zip(&tile_max) {
                        let m_new = self.m[i].max(tm);
                        let row = &mut self.s[i * sk + off..i * sk + off + nk];
                        if m_new == f32::NEG_INFINITY {
                            row.iter_mut().for_each(|x| *x = 0.0);
                            continue;
                        }
                        let alpha = exp_f32(self.m[i] - m_new);
                        let sum = exp_rows(row, m_new);
                        self.l[i] = self.l[i] * alpha + sum;
                        if alpha != 1.0 {
                            self.acc[i * dim..(i + 1) * dim]
                                .iter_mut()
                                .for_each(|x| *x *= alpha);
                        }
                        self.m[i] = m_new;
                    }
                }
                // acc += P V, one product per run of neighbouring kept row tiles.
                let mut rt = first;
                while rt <= last {
                    if !kept[rt] {
                        rt += 1;
                        continue;
                    }
                    let start = rt;
                    while rt <= last && kept[rt] {
                        rt += 1;
                    }
                    let (a0, a1) = (start * bm, rt * bm);
                    // SAFETY: as above.
                    unsafe {
                        sgemm(
                            (a1 - a0, nk, dim),
                            1.0,
                            (self.s.as_ptr().add(a0 * sk + off), sk, 1),
                            (t.v.as_ptr().add(k0 * dim), dim, 1),
                            1.0,
                            (self.acc.as_mut_ptr().add(a0 * dim), dim),
                        );
                    }
                }
            }
        }
        visits
    }

    /// The normalised output and LSE of these work units.
    fn finish(mut self) -> (Vec<f32>, Vec<f32>) {
        let dim = self.dim;
        let lse = (0..self.m.len())
            .map(|i| {
                let row = &mut self.acc[i * dim..(i + 1) * dim];
                if self.l[i] > 0.0 {
                    let inv = 1.0 / self.l[i];
                    row.iter_mut().for_each(|x| *x *= inv);
                    self.m[i] + self.l[i].ln()
                } else {
                    row.iter_mut().for_each(|x| *x = 0.0);
                    f32::NEG_INFINITY
                }
            })
            .collect();
        (self.acc, lse)
    }
}

/// `row[j] = exp(row[j] - m)`, returns the sum. Dispatched to an AVX2 build when available.
fn exp_rows(row: &mut [f32], m: f32) -> f32 {
    #[inline(always)]
    fn body(row: &mut [f32], m: f32) -> f32 {
        // The exponentials as a plain map (it vectorises; written inside the summing loop, it
        // did not), then eight partial sums so the sum vectorises without reassociating one
        // accumulator.
        for x in row.iter_mut() {
            *x = exp_f32(*x - m);
        }
        let mut sums = [0f32; 8];
        let mut chunks = row.chunks_exact(8);
        for c in &mut chunks {
            for i in 0..8 {
                sums[i] += c[i];
            }
        }
        let mut total: f32 = 0.0;
        for x in chunks.remainder() {
            total += *x;
        }
        total + sums.iter().sum::<f32>()
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(row: &mut [f32], m: f32) -> f32 {
            body(row, m)
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was detected at run time.
            return unsafe { avx2(row, m) };
        }
    }
    body(row, m)
}

/// Shape of a padded, contiguous `[batch, seq, heads, dim]` call (safe host API).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub batch: usize,
    pub seqlen_q: usize,
    pub seqlen_kv: usize,
    pub num_q_heads: usize,
    pub num_kv_heads: usize,
    pub head_dim: usize,
}

/// Skip statistics of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkipStats {
    pub visited: u64,
    pub skipped: u64,
}

impl SkipStats {
    pub fn fraction(&self) -> f64 {
        if self.visited == 0 {
            0.0
        } else {
            self.skipped as f64 / self.visited as f64
        }
    }
}

/// What a safe host call needs to know besides the tensors.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    pub causal: bool,
    /// 0 = 1/sqrt(head_dim).
    pub softmax_scale: f32,
    /// 0 = dense.
    pub threshold_scale_factor: f32,
    pub plan: Option<&'a AttnPlanInfo>,
}

/// Parameters of a padded, contiguous `[batch, seq, heads, dim]` call on `device`, pointers
/// unset. Shared by the safe host APIs of both backends.
pub fn contiguous_params(
    shape: Shape,
    dtype: u32,
    device: u32,
    opts: &Options,
) -> Result<AttnParams> {
    let Shape {
        batch,
        seqlen_q,
        seqlen_kv,
        num_q_heads,
        num_kv_heads,
        head_dim,
    } = shape;
    let mut p = AttnParams::default();
    let to_u32 =
        |name: &str, x: usize| u32::try_from(x).map_err(|_| invalid!("{name} = {x} is too large"));
    p.device = device;
    p.dtype = dtype;
    p.batch_size = to_u32("batch", batch)?;
    p.num_q_heads = to_u32("num_q_heads", num_q_heads)?;
    p.num_kv_heads = to_u32("num_kv_heads", num_kv_heads)?;
    p.head_dim = to_u32("head_dim", head_dim)?;
    p.max_seqlen_q = to_u32("seqlen_q", seqlen_q)?;
    p.max_seqlen_kv = to_u32("seqlen_kv", seqlen_kv)?;
    p.causal = opts.causal as u32;
    p.softmax_scale = opts.softmax_scale;
    p.threshold_scale_factor = opts.threshold_scale_factor;
    let (hd, hq, hk) = (head_dim as i64, num_q_heads as i64, num_kv_heads as i64);
    (p.q_batch_stride, p.q_row_stride, p.q_head_stride) = (seqlen_q as i64 * hq * hd, hq * hd, hd);
    (p.o_batch_stride, p.o_row_stride, p.o_head_stride) =
        (p.q_batch_stride, p.q_row_stride, p.q_head_stride);
    (p.k_batch_stride, p.k_row_stride, p.k_head_stride) = (seqlen_kv as i64 * hk * hd, hk * hd, hd);
    (p.v_batch_stride, p.v_row_stride, p.v_head_stride) =
        (p.k_batch_stride, p.k_row_stride, p.k_head_stride);
    if let Some(pl) = opts.plan {
        p.plan = pl;
    }
    Ok(p)
}

impl Shape {
    pub fn q_len(&self) -> usize {
        self.batch * self.seqlen_q * self.num_q_heads * self.head_dim
    }
    pub fn kv_len(&self) -> usize {
        self.batch * self.seqlen_kv * self.num_kv_heads * self.head_dim
    }
    pub fn lse_len(&self) -> usize {
        self.batch * self.seqlen_q * self.num_q_heads
    }
    /// Checks slice lengths of a host call.
    pub fn check(&self, q: usize, k: usize, v: usize, o: usize, lse: Option<usize>) -> Result<()> {
        for (name, len, want) in [
            ("q", q, self.q_len()),
            ("k", k, self.kv_len()),
            ("v", v, self.kv_len()),
            ("o", o, self.q_len()),
        ] {
            if len != want {
                return Err(invalid!(
                    "{name} has {len} elements; the shape needs {want}"
                ));
            }
        }
        if let Some(l) = lse
            && l != self.lse_len()
        {
            return Err(invalid!(
                "lse has {l} elements; the shape needs {}",
                self.lse_len()
            ));
        }
        Ok(())
    }
}

/// Safe CPU attention on contiguous `[batch, seq, heads, dim]` slices; `lse` (optional) is
/// `[batch * seqlen_q][num_q_heads]`. Returns the skip statistics.
pub fn attention<T: Elem + DTypeOf>(
    shape: Shape,
    q: &[T],
    k: &[T],
    v: &[T],
    o: &mut [T],
    lse: Option<&mut [f32]>,
    opts: Options,
) -> Result<SkipStats> {
    crate::host::attention(crate::attn::Device::Cpu, shape, q, k, v, o, lse, opts)
}

/// The BLASST_DTYPE_* of an element type.
pub trait DTypeOf {
    const DTYPE: u32;
}
impl DTypeOf for f32 {
    const DTYPE: u32 = crate::attn::BLASST_DTYPE_F32;
}
impl DTypeOf for f16 {
    const DTYPE: u32 = crate::attn::BLASST_DTYPE_F16;
}
impl DTypeOf for bf16 {
    const DTYPE: u32 = crate::attn::BLASST_DTYPE_BF16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attn::{BLASST_DEVICE_CPU, BLASST_DTYPE_F32, validate};
    use crate::synth::Rng;

    /// One call with a given blocking: (output, lse, visited, counts).
    fn call(
        shape: Shape,
        causal: bool,
        factor: f32,
        plan: Option<AttnPlanInfo>,
        sweep: &[f32],
        blocking: impl Fn(&AttnPlanInfo) -> Blocking,
    ) -> (Vec<f32>, Vec<f32>, u64, Vec<u64>) {
        let mut rng = Rng::new(shape.seqlen_q as u64 * 1000 + shape.seqlen_kv as u64);
        // Unit Gaussians, except that dimension 0 of every query is 3 and of the first 8 keys
        // of every 128 is 10 more: those keys score ~30 higher, so that the tiles after one
        // that holds them are skipped (in either order, causal or not).
        let d = shape.head_dim;
        let q: Vec<f32> = (0..shape.q_len())
            .map(|i| {
                if i.is_multiple_of(d) {
                    3.0
                } else {
                    rng.normal()
                }
            })
            .collect();
        let hot = |i: usize| {
            i.is_multiple_of(d) && (i / d / shape.num_kv_heads % shape.seqlen_kv) % 128 < 8
        };
        let k: Vec<f32> = (0..shape.kv_len())
            .map(|i| rng.normal() + if hot(i) { 10.0 } else { 0.0 })
            .collect();
        let v: Vec<f32> = (0..shape.kv_len()).map(|_| rng.normal()).collect();
        let mut o = vec![f32::NAN; shape.q_len()];
        let mut lse = vec![f32::NAN; shape.lse_len()];
        let opts = Options {
            causal,
            softmax_scale: 1.0,
            threshold_scale_factor: factor,
            plan: plan.as_ref(),
        };
        let mut p = contiguous_params(shape, BLASST_DTYPE_F32, BLASST_DEVICE_CPU, &opts).unwrap();
        (p.q, p.k, p.v) = (q.as_ptr().cast(), k.as_ptr().cast(), v.as_ptr().cast());
        (p.o, p.lse) = (o.as_mut_ptr().cast(), lse.as_mut_ptr());
        let d = validate(&p).unwrap();
        let (vis, counts) = unsafe {
            let seqs = sequences(&p, &d).unwrap();
            run_typed::<f32>(&p, &d, &seqs, sweep, blocking(&d.plan))
        };
        (o, lse, vis, counts)
    }

    fn bits(x: &[f32]) -> Vec<u32> {
        x.iter().map(|v| v.to_bits()).collect()
    }

    /// Row tiles in groups and S over several KV tiles per product give the same bits, the
    /// same visits and the same skips as one plan tile per product, in prefill and decode,
    /// causal (rows of one group visiting different tiles), lengths off the tile grid, split
    /// KV, forward and reverse order, skipping and calibration sweeps; and the cases skip.
    #[test]
    fn blocking_does_not_change_a_bit() {
        use crate::attn::Phase::{Decode, Prefill};
        let plan = |phase: crate::attn::Phase, block_m, splits, reverse| AttnPlanInfo {
            phase: phase.as_u32(),
            block_m,
            block_n: 64,
            num_kv_splits: splits,
            reverse_kv: reverse,
            ..AttnPlanInfo::default()
        };
        let shape = |lq, lk, hq, hkv, head_dim| Shape {
            batch: 2,
            seqlen_q: lq,
            seqlen_kv: lk,
            num_q_heads: hq,
            num_kv_heads: hkv,
            head_dim,
        };
        let cases = [
            (shape(300, 700, 4, 2, 64), false, None),
            (shape(333, 333, 2, 1, 64), true, None),
            (shape(200, 900, 2, 2, 64), true, None),
            (
                shape(150, 1000, 2, 1, 64),
                true,
                Some(plan(Prefill, 16, 3, 0)),
            ),
            (
                shape(250, 800, 2, 2, 64),
                false,
                Some(plan(Prefill, 32, 2, 1)),
            ),
            (shape(3, 2000, 16, 2, 64), false, None),
            (
                shape(1, 1500, 8, 1, 64),
                false,
                Some(plan(Prefill, 4, 2, 1)),
            ),
            (
                shape(2, 1500, 16, 1, 64),
                false,
                Some(plan(Decode, 8, 2, 1)),
            ),
            // Head dims past matrixmultiply's depth block (the sums over the head dimension in
            // several blocks): the same order whatever the blocking.
            (shape(200, 600, 2, 1, 128), true, None),
            (shape(150, 500, 2, 2, 256), false, None),
            (shape(100, 400, 1, 1, 512), true, None),
        ];
        for (sh, causal, pl) in cases {
            for (factor, sweep) in [(0.0, &[][..]), (1e-3, &[][..]), (0.0, &[-9.0, -3.0][..])] {
                let factor = factor * sh.seqlen_kv as f32;
                let one = call(sh, causal, factor, pl, sweep, Blocking::of_plan);
                let fast = call(sh, causal, factor, pl, sweep, |_| Blocking::FAST);
                let what =
                    format!("{sh:?} causal {causal} plan {pl:?} factor {factor} sweep {sweep:?}");
                assert!(one.0.iter().all(|x| x.is_finite()), "{what}");
                assert_eq!(bits(&one.0), bits(&fast.0), "output: {what}");
                assert_eq!(bits(&one.1), bits(&fast.1), "lse: {what}");
                assert_eq!((one.2, &one.3), (fast.2, &fast.3), "visits, skips: {what}");
                if factor > 0.0 || !sweep.is_empty() {
                    let skipped = *one.3.iter().max().unwrap();
                    assert!(
                        skipped > 0 && skipped < one.2,
                        "{what}: {skipped} of {} skipped",
                        one.2
                    );
                }
            }
        }
    }
}
