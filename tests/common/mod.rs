//! Builders for attention calls on host memory in every layout, a float64 reference, and the
//! GPU tests' runner (device copies of a built call).
#![allow(dead_code, clippy::field_reassign_with_default)]

/// Reference output rows `[b][t][h][d]` and LSEs `[b][t][h]`.
pub type Reference = (Vec<Vec<Vec<Vec<f64>>>>, Vec<Vec<Vec<f64>>>);

use blasst::attn::*;
use blasst::cpu::Elem;
use blasst::cuda::DeviceBuffer;
use blasst::synth::{self, Rng};
use cudarc::driver::sys as cu;
use half::{bf16, f16};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// [batch, seq, heads, dim]
    Bshd,
    /// [batch, heads, seq, dim]
    Bhsd,
    /// packed tokens with cu_seqlens_q / cu_seqlens_kv
    Ragged,
    /// q padded, K/V in a page pool with a shuffled block table
    Paged(usize),
    /// [batch, seq, heads, w] with w > dim: each head's row is followed by a gap of w - dim
    /// elements that the call must neither read (inputs: `GAP` there) nor write (outputs).
    BshdGaps(usize),
}

/// What the gaps of `Layout::BshdGaps` inputs hold: a value that would swamp every score it
/// entered.
pub const GAP: f32 = 64.0;

#[derive(Debug, Clone)]
pub struct Case {
    pub hq: usize,
    pub hkv: usize,
    pub d: usize,
    /// Per-sequence query and KV lengths. Bshd/Bhsd/Paged: every lq equals max.
    pub lq: Vec<usize>,
    pub lk: Vec<usize>,
    pub causal: bool,
    pub layout: Layout,
    pub dtype: u32,
}

/// Host tensors of one call, as f32 values already rounded to the call's dtype.
pub struct Built {
    pub case: Case,
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    pub v: Vec<f32>,
    /// (batch, token, head) -> element offset of q/o; (batch, pos, kv head) -> offset of k/v.
    pub q_off: Vec<Vec<Vec<usize>>>,
    pub kv_off: Vec<Vec<Vec<usize>>>,
    pub q_len: usize,
    pub o_len: usize,
    pub params: AttnParams,
    pub cu_q: Vec<i32>,
    pub cu_kv: Vec<i32>,
    pub used: Vec<i32>,
    pub table: Vec<i32>,
    pub lse_rows: usize,
}

fn round(dtype: u32, x: f32) -> f32 {
    match dtype {
        BLASST_DTYPE_BF16 => bf16::from_f32(x).to_f32(),
        BLASST_DTYPE_F16 => f16::from_f32(x).to_f32(),
        _ => x,
    }
}

/// A call's shape without its head dim, mask and element type: (query heads, KV heads, query
/// lengths, KV lengths, layout).
pub type CaseShape<'a> = (usize, usize, &'a [usize], &'a [usize], Layout);

impl Case {
    /// The call of `shape` at head dim `d`, causal or not, of element type `dtype`.
    pub fn of((hq, hkv, lq, lk, layout): CaseShape, d: usize, causal: bool, dtype: u32) -> Case {
        Case {
            hq,
            hkv,
            d,
            lq: lq.to_vec(),
            lk: lk.to_vec(),
            causal,
            layout,
            dtype,
        }
    }

    pub fn build(
        &self,
        rng: &mut Rng,
        make: &mut dyn FnMut(&mut Rng, char, usize, usize, usize) -> f32,
    ) -> Built {
        let b = self.lq.len();
        let (d, hq, hkv) = (self.d, self.hq, self.hkv);
        let max_lq = *self.lq.iter().max().unwrap();
        let max_lk = *self.lk.iter().max().unwrap();
        let mut p = AttnParams::default();
        p.device = BLASST_DEVICE_CPU;
        p.dtype = self.dtype;
        (p.batch_size, p.num_q_heads, p.num_kv_heads, p.head_dim) =
            (b as u32, hq as u32, hkv as u32, d as u32);
        (p.max_seqlen_q, p.max_seqlen_kv, p.causal) =
            (max_lq as u32, max_lk as u32, self.causal as u32);
        let mut cu_q = vec![0i32];
        let mut cu_kv = vec![0i32];
        for i in 0..b {
            cu_q.push(cu_q[i] + self.lq[i] as i32);
            cu_kv.push(cu_kv[i] + self.lk[i] as i32);
        }
        // q/o offsets.
        let (q_len, qs): (usize, [i64; 3]) = match self.layout {
            Layout::Bshd | Layout::Paged(_) => (
                b * max_lq * hq * d,
                [(max_lq * hq * d) as i64, (hq * d) as i64, d as i64],
            ),
            Layout::BshdGaps(w) => (
                b * max_lq * hq * w,
                [(max_lq * hq * w) as i64, (hq * w) as i64, w as i64],
            ),
            Layout::Bhsd => (
                b * max_lq * hq * d,
                [(max_lq * hq * d) as i64, d as i64, (max_lq * d) as i64],
            ),
            Layout::Ragged => (cu_q[b] as usize * hq * d, [0, (hq * d) as i64, d as i64]),
        };
        let q_off: Vec<Vec<Vec<usize>>> = (0..b)
            .map(|bi| {
                (0..self.lq[bi])
                    .map(|t| {
                        (0..hq)
                            .map(|h| match self.layout {
                                Layout::Ragged => {
                                    (cu_q[bi] as i64 + t as i64) * qs[1] + h as i64 * qs[2]
                                }
                                _ => bi as i64 * qs[0] + t as i64 * qs[1] + h as i64 * qs[2],
                            } as usize)
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let mut table = vec![];
        let mut used = vec![];
        let (kv_len, ks): (usize, [i64; 3]) = match self.layout {
            Layout::Bshd => (
                b * max_lk * hkv * d,
                [(max_lk * hkv * d) as i64, (hkv * d) as i64, d as i64],
            ),
            Layout::BshdGaps(w) => (
                b * max_lk * hkv * w,
                [(max_lk * hkv * w) as i64, (hkv * w) as i64, w as i64],
            ),
            Layout::Bhsd => (
                b * max_lk * hkv * d,
                [(max_lk * hkv * d) as i64, d as i64, (max_lk * d) as i64],
            ),
            Layout::Ragged => (cu_kv[b] as usize * hkv * d, [0, (hkv * d) as i64, d as i64]),
            Layout::Paged(ps) => {
                let per_seq = max_lk.div_ceil(ps);
                let num_pages = per_seq * b + 3;
                let mut pages: Vec<i32> = (0..num_pages as i32).collect();
                for i in (1..pages.len()).rev() {
                    let j = rng.below(i + 1);
                    pages.swap(i, j);
                }
                table = pages[..per_seq * b].to_vec();
                (
                    num_pages * ps * hkv * d,
                    [(ps * hkv * d) as i64, (hkv * d) as i64, d as i64],
                )
            }
        };
        let kv_off: Vec<Vec<Vec<usize>>> = (0..b)
            .map(|bi| {
                (0..self.lk[bi])
                    .map(|pos| {
                        (0..hkv)
                            .map(|h| match self.layout {
                                Layout::Ragged => {
                                    (cu_kv[bi] as i64 + pos as i64) * ks[1] + h as i64 * ks[2]
                                }
                                Layout::Paged(ps) => {
                                    let per_seq = max_lk.div_ceil(ps);
                                    table[bi * per_seq + pos / ps] as i64 * ks[0]
                                        + (pos % ps) as i64 * ks[1]
                                        + h as i64 * ks[2]
                                }
                                _ => bi as i64 * ks[0] + pos as i64 * ks[1] + h as i64 * ks[2],
                            } as usize)
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let mut fill = |len: usize, which: char, offs: &Vec<Vec<Vec<usize>>>| {
            let mut x = vec![f32::NAN; len];
            for (bi, s) in offs.iter().enumerate() {
                for (t, hs) in s.iter().enumerate() {
                    for (h, &o) in hs.iter().enumerate() {
                        for i in 0..d {
                            x[o + i] = round(self.dtype, make(rng, which, bi, t, h * d + i));
                        }
                    }
                }
            }
            // Memory the call must not read stays NaN only where no element lives; fill the
            // rest with values (strided gaps are legal memory; `GAP` in BshdGaps' gaps).
            let gap = if matches!(self.layout, Layout::BshdGaps(_)) {
                GAP
            } else {
                0.0
            };
            x.iter_mut().for_each(|v| {
                if v.is_nan() {
                    *v = gap
                }
            });
            x
        };
        let q = fill(q_len, 'q', &q_off);
        let k = fill(kv_len, 'k', &kv_off);
        let v = fill(kv_len, 'v', &kv_off);
        (p.q_batch_stride, p.q_row_stride, p.q_head_stride) = (qs[0], qs[1], qs[2]);
        (p.o_batch_stride, p.o_row_stride, p.o_head_stride) = (qs[0], qs[1], qs[2]);
        (p.k_batch_stride, p.k_row_stride, p.k_head_stride) = (ks[0], ks[1], ks[2]);
        (p.v_batch_stride, p.v_row_stride, p.v_head_stride) = (ks[0], ks[1], ks[2]);
        if let Layout::Paged(ps) = self.layout {
            p.page_size = ps as u32;
            p.block_table_stride = max_lk.div_ceil(ps) as i64;
            p.num_pages = (kv_len / (ps * hkv * d)) as u32;
        }
        if matches!(
            self.layout,
            Layout::Paged(_) | Layout::Bshd | Layout::Bhsd | Layout::BshdGaps(_)
        ) && self.lk.iter().any(|&l| l != max_lk)
        {
            used = self.lk.iter().map(|&l| l as i32).collect();
        }
        let lse_rows = if self.layout == Layout::Ragged {
            cu_q[b] as usize
        } else {
            b * max_lq
        };
        Built {
            case: self.clone(),
            q,
            k,
            v,
            q_off,
            kv_off,
            q_len,
            o_len: q_len,
            params: p,
            cu_q,
            cu_kv,
            used,
            table,
            lse_rows,
        }
    }
}

/// Which K/V dimension `Built::share_kv` collapses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SharedKv {
    Heads,
    Sequences,
}

impl Built {
    /// Makes every KV head (or every sequence) read head 0's (sequence 0's) K/V elements:
    /// stride 0, valid for inputs (a broadcast KV head, one cached prompt for the whole batch).
    /// Contiguous layouts only (Bshd, Bhsd); the reference follows the new offsets.
    pub fn share_kv(&mut self, across: SharedKv) {
        assert!(matches!(self.case.layout, Layout::Bshd | Layout::Bhsd));
        // Sequence 0 must hold every row the others read.
        assert!(across == SharedKv::Heads || self.case.lk.iter().all(|&l| l <= self.case.lk[0]));
        for bi in 0..self.kv_off.len() {
            for pos in 0..self.kv_off[bi].len() {
                for h in 0..self.case.hkv {
                    self.kv_off[bi][pos][h] = match across {
                        SharedKv::Heads => self.kv_off[bi][pos][0],
                        SharedKv::Sequences => self.kv_off[0][pos][h],
                    };
                }
            }
        }
        let p = &mut self.params;
        match across {
            SharedKv::Heads => (p.k_head_stride, p.v_head_stride) = (0, 0),
            SharedKv::Sequences => (p.k_batch_stride, p.v_batch_stride) = (0, 0),
        }
    }
}

pub fn to_elems<T: Elem>(x: &[f32]) -> Vec<T> {
    x.iter().map(|&v| T::from_f32(v)).collect()
}

/// Output rows (b, t, h) -> [d] and LSE, computed in float64 from the rounded inputs.
pub fn reference(bt: &Built) -> Reference {
    use rayon::prelude::*;
    let c = &bt.case;
    // (Built also holds the call's raw pointers, which are not Sync: share only the data.)
    let (q, k, v, q_off, kv_off) = (&bt.q, &bt.k, &bt.v, &bt.q_off, &bt.kv_off);
    let g = c.hq / c.hkv;
    let scale = 1.0 / (c.d as f64).sqrt();
    let mut outs = vec![];
    let mut lses = vec![];
    for bi in 0..c.lq.len() {
        let (lq, lk) = (c.lq[bi], c.lk[bi]);
        // One (query row, head) per task: serially, the float64 reference of the GPU cases
        // (up to 20000 keys, d = 256) is an estimated 15-20 s of each GPU test run.
        let rows: Vec<(Vec<f64>, f64)> = (0..lq * c.hq)
            .into_par_iter()
            .map(|th| {
                let (t, h) = (th / c.hq, th % c.hq);
                let kh = h / g;
                let qo = q_off[bi][t][h];
                let limit = if c.causal {
                    t as i64 + lk as i64 - lq as i64
                } else {
                    lk as i64 - 1
                };
                let mut s = vec![];
                for j in 0..lk {
                    if (j as i64) <= limit {
                        let ko = kv_off[bi][j][kh];
                        let dot: f64 = (0..c.d).map(|i| q[qo + i] as f64 * k[ko + i] as f64).sum();
                        s.push((j, dot * scale));
                    }
                }
                if s.is_empty() {
                    return (vec![0.0; c.d], f64::NEG_INFINITY);
                }
                let m = s.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
                let l: f64 = s.iter().map(|x| (x.1 - m).exp()).sum();
                let mut o = vec![0.0; c.d];
                for &(j, sc) in &s {
                    let w = (sc - m).exp() / l;
                    let vo = kv_off[bi][j][kh];
                    for i in 0..c.d {
                        o[i] += w * v[vo + i] as f64;
                    }
                }
                (o, m + l.ln())
            })
            .collect();
        let mut rows = rows.into_iter();
        let (ob, lb): (Vec<Vec<_>>, Vec<Vec<_>>) =
            (0..lq).map(|_| rows.by_ref().take(c.hq).unzip()).unzip();
        outs.push(ob);
        lses.push(lb);
    }
    (outs, lses)
}

pub const POISON: f32 = 12345.0;

pub struct RunOut {
    pub o: Vec<f32>,
    pub lse: Vec<f32>,
    pub stats: [u64; 2],
    /// The plan the call ran (`blasst_attn_plan` of its parameters).
    pub plan: AttnPlanInfo,
}

/// Runs the built call with output type T, poisoned outputs, optional plan and factor.
pub fn run<T: Elem>(
    bt: &Built,
    factor: f32,
    plan: Option<&AttnPlanInfo>,
) -> blasst::Result<RunOut> {
    run_on_cpu::<T>(bt, factor, plan, false)
}

/// `run` with the element type of the built call's dtype (bf16, else fp16).
pub fn run_of_dtype(
    bt: &Built,
    factor: f32,
    plan: Option<&AttnPlanInfo>,
) -> blasst::Result<RunOut> {
    if bt.case.dtype == BLASST_DTYPE_BF16 {
        run::<bf16>(bt, factor, plan)
    } else {
        run::<f16>(bt, factor, plan)
    }
}

/// As `run`, with `o` the same tensor as `q` (same pointer and strides): the output
/// overwrites the queries.
pub fn run_in_place<T: Elem>(
    bt: &Built,
    factor: f32,
    plan: Option<&AttnPlanInfo>,
) -> blasst::Result<RunOut> {
    run_on_cpu::<T>(bt, factor, plan, true)
}

fn run_on_cpu<T: Elem>(
    bt: &Built,
    factor: f32,
    plan: Option<&AttnPlanInfo>,
    in_place: bool,
) -> blasst::Result<RunOut> {
    let mut q: Vec<T> = to_elems(&bt.q);
    let k: Vec<T> = to_elems(&bt.k);
    let v: Vec<T> = to_elems(&bt.v);
    let mut o: Vec<T> = vec![T::from_f32(POISON); bt.o_len];
    let mut lse = vec![POISON; bt.lse_rows * bt.case.hq];
    let mut stats = [0u64; 2];
    let mut p = bt.params;
    p.threshold_scale_factor = factor;
    (p.q, p.k, p.v, p.o) = (
        q.as_ptr().cast(),
        k.as_ptr().cast(),
        v.as_ptr().cast(),
        o.as_mut_ptr().cast(),
    );
    if in_place {
        // Built gives o the strides of q.
        (p.q, p.o) = (q.as_ptr().cast(), q.as_mut_ptr().cast());
    }
    p.lse = lse.as_mut_ptr();
    p.skip_stats = stats.as_mut_ptr();
    set_host_index_ptrs(bt, &mut p);
    if let Some(pl) = plan {
        p.plan = pl;
    }
    let plan = blasst::attn::plan(&p)?;
    unsafe { blasst::attn::run(&p, std::ptr::null_mut())? };
    if in_place {
        o = q;
    }
    Ok(RunOut {
        o: o.iter().map(|x| x.to_f32()).collect(),
        lse,
        stats,
        plan,
    })
}

/// Points `p`'s sequence-length, `seqused_kv` and block-table arrays at `bt`'s host copies.
fn set_host_index_ptrs(bt: &Built, p: &mut AttnParams) {
    if bt.case.layout == Layout::Ragged {
        p.cu_seqlens_q = bt.cu_q.as_ptr();
        p.cu_seqlens_kv = bt.cu_kv.as_ptr();
    }
    if !bt.used.is_empty() {
        p.seqused_kv = bt.used.as_ptr();
    }
    if !bt.table.is_empty() {
        p.block_table = bt.table.as_ptr();
    }
}

/// Max |out - ref| over every written row, asserting every row was written.
pub fn max_err(bt: &Built, out: &RunOut, reference: &Reference) -> (f64, f64) {
    let c = &bt.case;
    let (mut eo, mut el) = (0f64, 0f64);
    for bi in 0..c.lq.len() {
        for t in 0..c.lq[bi] {
            for h in 0..c.hq {
                let off = bt.q_off[bi][t][h];
                for i in 0..c.d {
                    let got = out.o[off + i] as f64;
                    assert!(got != POISON as f64, "o[b={bi}, t={t}, h={h}] not written");
                    eo = eo.max((got - reference.0[bi][t][h][i]).abs());
                }
                let row = if c.layout == Layout::Ragged {
                    bt.cu_q[bi] as usize + t
                } else {
                    bi * *c.lq.iter().max().unwrap() + t
                };
                let got = out.lse[row * c.hq + h] as f64;
                let want = reference.1[bi][t][h];
                if want == f64::NEG_INFINITY {
                    assert_eq!(got, f64::NEG_INFINITY, "lse of a fully masked row");
                } else {
                    el = el.max((got - want).abs());
                }
            }
        }
    }
    (eo, el)
}

/// Runs a built case on the GPU with output type T (inputs copied from the host layout), on the
/// legacy default stream.
pub fn run_gpu<T: Elem>(bt: &Built, factor: f32) -> blasst::Result<RunOut> {
    run_gpu_with::<T>(bt, factor, &run_on_default_stream)
}

/// `run_gpu` with the output type of the built call's dtype (bf16, else fp16).
pub fn run_gpu_of_dtype(bt: &Built, factor: f32) -> blasst::Result<RunOut> {
    if bt.case.dtype == BLASST_DTYPE_BF16 {
        run_gpu::<bf16>(bt, factor)
    } else {
        run_gpu::<f16>(bt, factor)
    }
}

/// The plain call of `run_gpu`: `blasst::attn::run` on the legacy default stream.
fn run_on_default_stream(p: &AttnParams) -> blasst::Result<()> {
    unsafe { blasst::attn::run(p, std::ptr::null_mut()) }
}

/// As `run_gpu`, with `launch` making the call from the finished device-side parameters.
pub fn run_gpu_with<T: Elem>(
    bt: &Built,
    factor: f32,
    launch: &dyn Fn(&AttnParams) -> blasst::Result<()>,
) -> blasst::Result<RunOut> {
    run_on_gpu::<T>(bt, factor, false, launch)
}

/// As `run_gpu`, with `o` the same device tensor as `q` (same pointer and strides).
pub fn run_gpu_in_place<T: Elem>(bt: &Built, factor: f32) -> blasst::Result<RunOut> {
    run_on_gpu::<T>(bt, factor, true, &run_on_default_stream)
}

fn run_on_gpu<T: Elem>(
    bt: &Built,
    factor: f32,
    in_place: bool,
    launch: &dyn Fn(&AttnParams) -> blasst::Result<()>,
) -> blasst::Result<RunOut> {
    let q: Vec<T> = to_elems(&bt.q);
    let k: Vec<T> = to_elems(&bt.k);
    let v: Vec<T> = to_elems(&bt.v);
    let poison: Vec<T> = vec![T::from_f32(POISON); bt.o_len];
    let (dq, dk, dv, d_o) = (
        DeviceBuffer::from_slice(&q)?,
        DeviceBuffer::from_slice(&k)?,
        DeviceBuffer::from_slice(&v)?,
        DeviceBuffer::from_slice(&poison)?,
    );
    let lse_host = vec![POISON; bt.lse_rows * bt.case.hq];
    let d_lse = DeviceBuffer::from_slice(&lse_host)?;
    let d_stats = DeviceBuffer::new(16)?;
    let mut p: AttnParams = bt.params;
    p.device = BLASST_DEVICE_CUDA;
    p.threshold_scale_factor = factor;
    (p.q, p.k, p.v, p.o) = (dq.ptr(), dk.ptr(), dv.ptr(), d_o.ptr());
    if in_place {
        p.o = dq.ptr();
    }
    p.lse = d_lse.ptr().cast();
    p.skip_stats = d_stats.ptr().cast();
    let keep: Vec<DeviceBuffer>;
    {
        let mut bufs = vec![];
        if bt.case.layout == Layout::Ragged {
            bufs.push(DeviceBuffer::from_slice(&bt.cu_q)?);
            bufs.push(DeviceBuffer::from_slice(&bt.cu_kv)?);
            p.cu_seqlens_q = bufs[0].ptr().cast();
            p.cu_seqlens_kv = bufs[1].ptr().cast();
        }
        if !bt.used.is_empty() {
            bufs.push(DeviceBuffer::from_slice(&bt.used)?);
            p.seqused_kv = bufs.last().unwrap().ptr().cast();
        }
        if !bt.table.is_empty() {
            bufs.push(DeviceBuffer::from_slice(&bt.table)?);
            p.block_table = bufs.last().unwrap().ptr().cast();
        }
        keep = bufs;
    }
    // The GPU's plan (made for this GPU), for the CPU to reproduce.
    let plan = blasst::attn::plan(&p)?;
    launch(&p)?;
    let mut o = vec![T::from_f32(0.0); bt.o_len];
    if in_place { &dq } else { &d_o }.copy_to(&mut o)?;
    let mut lse = vec![0f32; bt.lse_rows * bt.case.hq];
    d_lse.copy_to(&mut lse)?;
    let mut stats = [0u64; 2];
    d_stats.copy_to(&mut stats)?;
    drop(keep);
    Ok(RunOut {
        o: o.iter().map(|x| x.to_f32()).collect(),
        lse,
        stats,
        plan,
    })
}

/// A bf16 call on `synth::structured` inputs (hot keys 16 nats above the noise).
pub fn structured_case(
    (lq, lk, hq, hkv, d, causal, hot, layout): (
        usize,
        usize,
        usize,
        usize,
        usize,
        bool,
        f64,
        Layout,
    ),
    seed: u64,
    synth_seed: u64,
) -> Built {
    let s = synth::structured(lq, lk, hq, hkv, d, hot, 16.0, synth_seed);
    let c = Case {
        hq,
        hkv,
        d,
        lq: vec![lq],
        lk: vec![lk],
        causal,
        layout,
        dtype: BLASST_DTYPE_BF16,
    };
    let mut rng = Rng::new(seed);
    c.build(&mut rng, &mut |_, which, _, t, hi| match which {
        'q' => s.q[t * hq * d + hi],
        'k' => s.k[t * hkv * d + hi],
        _ => s.v[t * hkv * d + hi],
    })
}

/// Captures `p`'s call on a new non-blocking stream into a CUDA graph (global capture mode,
/// PyTorch's default), then launches the graph twice and waits. With `workspace`, the call gets
/// one of `blasst_attn_workspace_size` bytes; without, a split decode call allocates it
/// stream-ordered inside the graph.
pub fn run_in_graph(p: &AttnParams, workspace: bool) -> blasst::Result<()> {
    let mut p = *p;
    let bytes = blasst::attn::workspace_size(&p)?;
    let ws = if workspace && bytes > 0 {
        Some(DeviceBuffer::new(bytes)?)
    } else {
        None
    };
    if let Some(w) = &ws {
        (p.workspace, p.workspace_size) = (w.ptr(), bytes);
    }
    let stream = new_stream();
    unsafe {
        ok(
            cu::cuStreamBeginCapture_v2(
                stream,
                cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            ),
            "cuStreamBeginCapture",
        );
        let r = blasst::attn::run(&p, stream.cast());
        let mut graph: cu::CUgraph = std::ptr::null_mut();
        ok(
            cu::cuStreamEndCapture(stream, &mut graph),
            "cuStreamEndCapture",
        );
        r?;
        let mut exec: cu::CUgraphExec = std::ptr::null_mut();
        ok(
            cu::cuGraphInstantiateWithFlags(&mut exec, graph, 0),
            "cuGraphInstantiate",
        );
        for _ in 0..2 {
            ok(cu::cuGraphLaunch(exec, stream), "cuGraphLaunch");
        }
        ok(cu::cuStreamSynchronize(stream), "cuStreamSynchronize");
        ok(cu::cuGraphExecDestroy(exec), "cuGraphExecDestroy");
        ok(cu::cuGraphDestroy(graph), "cuGraphDestroy");
        ok(cu::cuStreamDestroy_v2(stream), "cuStreamDestroy");
    }
    Ok(())
}

/// Whether two outputs are equal bit for bit.
pub fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Whether two runs gave the same output and LSE bit for bit, and the same skip counts.
pub fn same_out(a: &RunOut, b: &RunOut) -> bool {
    same_bits(&a.o, &b.o) && same_bits(&a.lse, &b.lse) && a.stats == b.stats
}

/// A new non-blocking stream of the current context.
pub fn new_stream() -> cu::CUstream {
    let mut stream: cu::CUstream = std::ptr::null_mut();
    ok(
        unsafe {
            cu::cuStreamCreate(
                &mut stream,
                cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
            )
        },
        "cuStreamCreate",
    );
    stream
}

/// Makes device `dev`'s primary context current on this thread (what `cudaSetDevice` does).
pub fn use_device(dev: i32) {
    let (mut d, mut ctx) = (0, std::ptr::null_mut());
    ok(unsafe { cu::cuDeviceGet(&mut d, dev) }, "cuDeviceGet");
    ok(
        unsafe { cu::cuDevicePrimaryCtxRetain(&mut ctx, d) },
        "cuDevicePrimaryCtxRetain",
    );
    ok(unsafe { cu::cuCtxSetCurrent(ctx) }, "cuCtxSetCurrent");
}

/// Whether a CUDA device can run the GPU tests; without one, says "skipped" (the GPU tests pass
/// on machines without a GPU).
pub fn gpu() -> bool {
    match blasst::cuda::probe() {
        Ok(()) => true,
        Err(e) => {
            println!("skipped: no CUDA device ({})", e.message());
            false
        }
    }
}

/// Asserts that a driver call the test makes succeeded.
pub fn ok(r: cu::CUresult, what: &str) {
    assert_eq!(r, cu::CUresult::CUDA_SUCCESS, "{what}");
}
