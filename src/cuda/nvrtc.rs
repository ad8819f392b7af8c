//! Kernel sources, NVRTC compilation for the exact device architecture, and the per-process
//! and on-disk cubin caches (`$BLASST_CACHE_DIR`, default `$XDG_CACHE_HOME/blasst` or
//! `~/.cache/blasst`).

use super::once_map::OnceMap;
use crate::{Error, Result};
use cudarc::nvrtc::sys as nv;
use std::ffi::{CStr, CString, c_char};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock};

pub const COMMON: &str = include_str!("../../kernels/common.cuh");
pub const PREFILL: &str = include_str!("../../kernels/prefill.cu");
pub const PREFILL_SM90: &str = include_str!("../../kernels/prefill_sm90.cu");
pub const DECODE: &str = include_str!("../../kernels/decode.cu");
pub const DECODE_SM90: &str = include_str!("../../kernels/decode_sm90.cu");
pub const DECODE_WARPS_SM90: &str = include_str!("../../kernels/decode_warps_sm90.cu");
pub const MERGE: &str = include_str!("../../kernels/merge.cu");
pub const MERGE_STATES: &str = include_str!("../../kernels/merge_states.cu");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// mma.sync prefill (sm_80 and newer).
    Prefill,
    /// wgmma prefill (sm_90a only): same plan and decisions as `Prefill`.
    PrefillSm90,
    /// mma.sync decode (sm_80 and newer, any packed row count up to 64).
    Decode,
    /// Hopper decode (sm_90a only, row tiles of up to 16 packed rows; copies completed on
    /// mbarriers): same plan and decisions as `Decode`.
    DecodeSm90,
    /// Hopper decode for calls of several row tiles (sm_90a only, d = 128: `decode_warps`): a CTA's
    /// warps each walk one 8-row tile alone, a producer warp copies; same plan and decisions as
    /// `Decode` with the plan's 8-row tiles (`attn::plan::decode_warps`).
    DecodeWarps,
    Merge,
    /// `blasst_merge_states` (stacked partial results, element type in and out).
    MergeStates,
}

/// One compiled specialisation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Variant {
    pub family: Family,
    pub bf16: bool,
    /// The kernel's head dim (one of `attn::GPU_HEAD_DIMS`).
    pub head_dim: u32,
    /// The call's head dim (`DIM`): `head_dim`, or a smaller multiple of 8 that the kernel runs
    /// with its columns past `dim` zero-filled (`attn::gpu_kernel_dim`).
    pub dim: u32,
    pub skip: bool,
    pub paged: bool,
    /// The Hopper decode kernel over pages of 16 or 32 keys (`PAGED_SMALL`; a page of 64 keys or
    /// more holds a whole tile, whose block-table entry that kernel keeps in its warps' lanes):
    /// its own specialisation, so that each paged kernel carries only its own copy path (run 231,
    /// session 40: speculative decode over 64-key pages +6 %, 0.867x -> 0.928x of the contiguous
    /// call; 16-key pages +0.2-0.6 %; one token over 64-key pages unchanged). False for every
    /// other variant.
    pub small_pages: bool,
    /// Calibration sweep: a dense pass counting per candidate threshold (skip is false).
    pub sweep: bool,
    /// The portable decode kernel's pipeline depth and launch bounds (`decode_stages`,
    /// `decode_ctas_bound`: both follow the shared memory of the GPU it runs on); 0 for the other
    /// families.
    pub stages: u8,
    pub ctas: u8,
    /// The portable decode kernel's keys per tile (`decode_block_n`: 64, or 32 where a CTA of
    /// 64-key tiles does not fit the GPU); 0 for the other families.
    pub bn: u8,
    /// The portable prefill kernel's compact layout (`prefill_compact`: 64 query rows per CTA,
    /// one V buffer) for GPUs whose shared memory holds more CTAs of it; false for the others.
    pub compact: bool,
}

/// The most packed rows (query tokens x query heads per KV head) the Hopper decode kernel takes:
/// 16 (two 8-row MMA tiles), at d = 256 8 (one tile: with two, Q^T and O^T in registers for
/// the whole kernel need 255 registers and spill; with one, 189-226 and no spill). Calls with
/// more rows run it as several row tiles (up to `decode90_tiled_rows`) or the portable decode
/// kernel.
pub fn decode90_max_rows(head_dim: usize) -> u32 {
    if head_dim <= 128 { 16 } else { 8 }
}

/// The most packed rows the Hopper decode kernel runs as row tiles of `decode90_max_rows` (more
/// run as one tile of the portable kernel): 64 at d <= 128 (four tiles), 16 at d = 256 (two).
/// Each tile is a CTA that reads the whole K and V, the first from DRAM, the others from L2: on
/// the H200 (bench/RESULTS.md, session 13) two tiles of 16 rows at d = 128 ran 1.69x the
/// portable kernel, four 1.42x; at d = 64 two 1.30x, four 1.66x; at d = 256 two tiles of 8
/// 1.17x, but four 0.86x and eight 0.71x. What bounds the tiles (2.8-2.9 TB/s of K/V at 32 rows,
/// against 4.5 for one tile) is each tile's dependent chain per KV tile, which the second CTA per
/// SM hides, not L2's bandwidth: two tiles per CTA sharing one K ring (read from L2 once) were
/// 2.5-4 % slower contiguous and 7-10 % paged (run 244, session 44; not kept).
pub fn decode90_tiled_rows(head_dim: usize) -> usize {
    if head_dim <= 128 { 64 } else { 16 }
}

/// CTAs of the portable decode kernel per SM it is built for on a GPU with `smem_per_sm` bytes
/// of shared memory per multiprocessor (its launch bounds): as many as the shared memory of a
/// call of one query row holds (`decode_stages` deep), at most 2 (its tuned 8 warps x 2). On an
/// H100/H200 and an A100 that is 2 at d <= 128 and 1 at d = 256, on GPUs of 100 KB 2 at d = 64
/// and 1 above: calls with more rows may fit fewer (`cuda::decode_ctas_per_sm`), never more.
/// A bound above what the shared memory holds only caps the registers (two CTAs of 256 threads
/// leave 128 a thread): at d = 256 the kernel spilled 108-124 bytes under it until session 31,
/// and at d = 128 with the 100 KB GPUs' two stages it spilled 4. `stages`: the kernel's depth on
/// that GPU, `decode_stages`.
pub fn decode_ctas_bound(head_dim: usize, smem_per_sm: usize, stages: usize) -> usize {
    let bn = decode_block_n(head_dim, smem_per_sm);
    decode_ctas_fit(head_dim, smem_per_sm, stages, bn).max(1)
}

/// CTAs of the portable decode kernel at `stages` deep of `bn`-key tiles (`decode_block_n`)
/// that the shared memory of a call of one query row lets a multiprocessor of `smem_per_sm`
/// bytes hold, at most its tuned 2 (0: none).
fn decode_ctas_fit(head_dim: usize, smem_per_sm: usize, stages: usize, bn: usize) -> usize {
    (smem_per_sm / super::decode_cta_smem(head_dim, 1, stages, bn)).min(2)
}

/// Keys per tile of the portable decode kernel (kernels/decode.cu `DECODE_BN`, and the decode
/// plan's `block_n`) on a GPU with `smem_per_sm` bytes of shared memory per multiprocessor: 64,
/// or 32 where a CTA of 16 packed rows at the kernel's minimum of 2 stages of 64-key tiles does
/// not fit: d = 256 (and the padded dims it runs) on the GPUs of 100 KB, whose two stages of
/// 64-key K and V tiles alone take 128 KB (with 32 keys 64 KB: ~79 KB in all). Before, those
/// calls ran on the prefill kernel (session 53) or were refused.
pub fn decode_block_n(head_dim: usize, smem_per_sm: usize) -> usize {
    if super::decode_cta_smem(head_dim, 16, 2, 64) <= smem_per_sm {
        64
    } else {
        32
    }
}

/// CTAs of the Hopper decode kernel per SM (its launch bounds, so ptxas keeps the registers to
/// that many; its shared memory, `decode90_smem`, fits them on sm_90): 3 at d = 64 (9 buffers
/// of 8 KB each; measured on the H200 against 2, which the decode plan had sized its splits for:
/// 16 x 16K 1.26x faster, bench/RESULTS.md session 12), 2 at d = 128, 1 at d = 256.
pub fn decode90_ctas_per_sm(head_dim: usize) -> usize {
    match head_dim {
        ..=64 => 3,
        65..=128 => 2,
        _ => 1,
    }
}

/// Whether calls of head dim `dim` on the kernel of head dim `head_dim` have the row-tile warps
/// decode kernel (kernels/decode_warps_sm90.cu, `Family::DecodeWarps`): d = 128 at its own head
/// dim (the one measured; its copies and fragments are written for 128 columns), over contiguous
/// and paged caches alike (its paged copies: runs 253-254, bench/RESULTS.md session 47).
pub fn decode_warps(head_dim: usize, dim: usize) -> bool {
    head_dim == 128 && dim == 128
}

/// K and V ring slots of the row-tile warps decode kernel: 3 (six 16 KB buffers, two CTAs per
/// SM). In the prototype (run 250) 3 slots at two CTAs per SM and 2 at three ran within 1-4 %.
pub fn decode_warps_ring() -> usize {
    3
}

/// CTAs per SM of the row-tile warps decode kernel (its launch bounds and what the plan counts).
pub(crate) const DECODE_WARPS_CTAS_PER_SM: usize = 2;

/// Pipeline of the Hopper decode kernel (kernels/decode_sm90.cu): K tiles in flight and the
/// tiles between a tile's decision and its P V. Defaults: (3, 2) at d = 128, six 16 KB buffers,
/// two CTAs per SM; (5, 3) at d = 64, nine 8 KB buffers, three CTAs per SM; (3, 2) at d = 256,
/// six 32 KB buffers, one CTA per SM with as many bytes in flight per SM as d = 128's two
/// (`decode90_ctas_per_sm`). `BLASST_DECODE90=K,LAG` overrides them for tuning experiments (the
/// decode plan then counts the CTAs that fit: `cuda::decode_ctas_per_sm`).
pub fn decode90_config(head_dim: usize) -> (usize, usize) {
    static OVERRIDE: OnceLock<Option<(usize, usize)>> = OnceLock::new();
    let o = *OVERRIDE.get_or_init(|| {
        let v = std::env::var("BLASST_DECODE90").ok()?;
        let (k, l) = v.split_once(',')?;
        let (k, l) = (k.trim().parse().ok()?, l.trim().parse().ok()?);
        ((2..=8).contains(&k) && (1..=6).contains(&l)).then_some((k, l))
    });
    o.unwrap_or(if head_dim >= 128 { (3, 2) } else { (5, 3) })
}

/// The Hopper prefill kernel's K/V ring (kernels/prefill_sm90.cu `NB` and `VN`; its shared
/// memory, `prefill_sm90_smem`, follows): (slots, keys per slot and per visit). Three slots of
/// two plan tiles (128 keys) at d <= 128; at d = 256 two slots of one plan tile (64 keys), so
/// that O (128 registers per consumer thread), S and P fit the consumers' 224 registers and
/// Q and the ring the 227 KB of shared memory.
pub(crate) fn prefill90_ring(head_dim: usize) -> (usize, usize) {
    if head_dim <= 128 { (3, 128) } else { (2, 64) }
}

/// The Hopper prefill kernel's consumer warpgroups of 64 query rows (kernels/prefill_sm90.cu
/// `NWG`): three at d = 64 (192-row CTAs, as FlashAttention-3's d = 64 tiles), two otherwise.
/// At d = 64 a visit's Q K^T and P V take each warpgroup 512 tensor-core cycles, less than its own
/// softmax, so with two warpgroups the tensor cores waited for the softmax; a third one's MMAs fill
/// that time (run 167: dense +14-25 %; paged, run 170: +14-28 %). Its registers (O 32 + S 64 +
/// P 32 per thread) fit the 160 that three warpgroups leave each consumer thread next to the
/// producer's 24 (TMA) or 32 (the paged cp.async teams); at d = 128 (O 64) they do not (run 168).
pub(crate) fn prefill90_consumer_wgs(head_dim: usize) -> usize {
    if head_dim == 64 { 3 } else { 2 }
}

/// Whether the Hopper prefill kernel of head dim `head_dim` overlaps P V with the next softmax
/// when the overlap is on (kernels/prefill_sm90.cu `PV_OVERLAP`: two consumer warpgroups, no
/// KV_SPLIT (head dims up to 128), not the calibration sweep): the d = 128 dense and
/// Skip-Softmax kernels.
pub(crate) fn prefill90_has_pv_overlap(head_dim: usize, sweep: bool) -> bool {
    prefill90_consumer_wgs(head_dim) == 2 && head_dim <= 128 && !sweep
}

/// The Hopper prefill kernel's producer warpgroups (kernels/prefill_sm90.cu `NPWG`): two for
/// paged caches at d = 256, one otherwise. A paged visit copies one TMA box per page chunk and 64
/// head columns (at d = 256 with 16-key pages, 16 of K and 16 of V per 64-key visit), and the boxes
/// of one thread go out one after another; with two producer warpgroups each of the two teams
/// that take visits in turn has four warps issuing them instead of two (256 x 32 + 256 x 224
/// registers instead of 128 x 56 + 256 x 224). At d = 256 with 16-key pages that made dense 9-11 %
/// and Skip-Softmax 11-14 % faster (runs 188-190). At d = 128 it sped up skipping at 16-key pages
/// (up to 9 %) but slowed dense there by up to 2 % at 16K-32K and skipping at 64-key pages by 1-3 %,
/// so d = 128 keeps one.
pub(crate) fn prefill90_producer_wgs(head_dim: usize, paged: bool) -> usize {
    if paged && head_dim == 256 { 2 } else { 1 }
}

/// Whether the Hopper decode kernel's copies carry an L2 evict-first policy
/// (`BLASST_DECODE90_EVICT=1`, an experiment, off by default: +1-2 % at 1 x 128K, but with
/// zero-filled copies of partial tiles it raised an illegal instruction on the H200; read at
/// every compile, so the source and its cache key follow it).
fn decode90_evict_first() -> bool {
    std::env::var("BLASST_DECODE90_EVICT").is_ok_and(|v| v.trim() == "1")
}

/// Whether the Hopper prefill kernel overlaps each visit's row maxima and exponentials with the
/// previous visit's P V (kernels/prefill_sm90.cu `PV_OVERLAP`): on, unless
/// `BLASST_PREFILL_PV_OVERLAP=0` asks for the kernels as they were before session 56. Measured
/// on an H100 (bench/RESULTS.md, runs 291-294): dense +1.5..+11 %, Skip-Softmax -2..+8 % up to
/// ~70 % skipped, -8..+1 % at 75-92 %. Read at every compile, so the source and its cache key
/// follow it.
fn prefill90_pv_overlap() -> bool {
    !std::env::var("BLASST_PREFILL_PV_OVERLAP").is_ok_and(|v| v.trim() == "0")
}

/// Whether the Hopper prefill kernel takes an unmasked visit's row maxima as integer maxima of
/// three scores at a time (kernels/prefill_sm90.cu `INT_MAXIMA`, session 61; the float maxima bit
/// for bit): on, unless `BLASST_PREFILL_INT_MAXIMA=0` asks for the float tree alone (an A/B
/// switch). Read at every compile, so the source and its cache key follow it.
fn prefill90_int_maxima() -> bool {
    !std::env::var("BLASST_PREFILL_INT_MAXIMA").is_ok_and(|v| v.trim() == "0")
}

/// Whether the Hopper prefill kernel votes on the integer row maxima's check after the quad
/// shuffles (kernels/prefill_sm90.cu `LATE_CHECK`, session 68; the same maxima bit for bit): on,
/// unless `BLASST_PREFILL_LATE_CHECK=0` asks for the check before them (an A/B switch). Read at
/// every compile, so the source and its cache key follow it.
fn prefill90_late_check() -> bool {
    !std::env::var("BLASST_PREFILL_LATE_CHECK").is_ok_and(|v| v.trim() == "0")
}

/// Whether every overlapped Hopper prefill kernel (d = 128) takes split K and V barriers
/// (kernels/prefill_sm90.cu `OVERLAP_SPLIT`, session 65): the small-page kernels always do
/// (`with_small_pages`); the others only with `BLASST_PREFILL_OVERLAP_SPLIT=1`, an
/// experiment. Measured on an H100 (run 310, bench/RESULTS.md "Session 66"), against the one
/// barrier pair per slot: contiguous and over 64-key pages dense -0.4..-6.7 %, Skip-Softmax
/// -3..-0.2 % up to ~50 % skipped, -0.7..+2.7 % at 65-70 %, +2..+9 % at 75-92 %; so off by
/// default. Read at every compile, so the source and its cache key follow it.
fn prefill90_overlap_split() -> bool {
    std::env::var("BLASST_PREFILL_OVERLAP_SPLIT").is_ok_and(|v| v.trim() == "1")
}

/// The row-tile warps decode kernel's test delay (`BLASST_DECODE_WARPS_PRODUCER_DELAY_NS`, 0
/// unless set, at most 1 ms): its producer warp waits that long between a tile's decision wait
/// and its wait for the tile's V slot, the window in which, before session 48, consumers that
/// all skipped a tile could free the slot twice and deadlock the CTA
/// (kernels/decode_warps_sm90.cu). For the GPU tests only; read at every compile, so the source
/// and its cache key follow it. A value that is not a whole number of nanoseconds compiles no
/// delay and says so (a warning), so that a mistyped value cannot pass for a delayed test.
fn warps_producer_delay_ns() -> u32 {
    const VAR: &str = "BLASST_DECODE_WARPS_PRODUCER_DELAY_NS";
    let raw = std::env::var(VAR).ok();
    parse_delay_ns(raw.as_deref()).unwrap_or_else(|v| {
        crate::log::warn(&format!(
            "{VAR}={v:?} is not a whole number of nanoseconds: the warps decode kernel is compiled without the test delay"
        ));
        0
    })
}

/// `BLASST_DECODE_WARPS_PRODUCER_DELAY_NS`'s value: 0 when unset or empty, a whole number of
/// nanoseconds capped at 1 ms, or the unparseable text back.
fn parse_delay_ns(v: Option<&str>) -> std::result::Result<u32, String> {
    match v.map(str::trim) {
        None | Some("") => Ok(0),
        Some(t) => t
            .parse::<u64>()
            .map(|ns| ns.min(1_000_000) as u32)
            .map_err(|_| t.to_string()),
    }
}

/// K/V pipeline depth of the portable decode kernel (kernels/decode.cu `STAGES`) on a GPU with
/// `smem_per_sm` bytes of shared memory per multiprocessor. Tuned on the H200: 5 stages at
/// d = 64, 3 at d = 128, 2 at d = 256 (128 KB of tiles, so that a CTA still fits; not tuned).
/// Where the GPU has less shared memory, the depth is the one that, in this order, lets a call of
/// 64 packed rows fit at all, keeps the kernel's two CTAs per SM for a call of one query row
/// (`decode_ctas_bound`), and is deepest, never below the kernel's 2: run 198 on the H200 read
/// 3.7-4.0 TB/s at d = 128 with two CTAs per SM and 2.6 with one, at 3 stages and at 2 alike
/// (depth moved it by 1-2 %). So: the H100/H200 and B200 (228 KB) keep 5 / 3 / 2; an A100
/// (164 KB) gets 4 / 2 / 2, two CTAs per SM at d <= 128 (until session 31 it ran 5 and 3 stages,
/// one CTA per SM); GPUs of 100 KB (compute capability 8.6, 8.9 and 12.x) get 2 / 2 / 2, where
/// until session 31 every call at d = 128 was refused (3 stages need 111 KB for one query row, a
/// block may have 99 KB there). Packed rows that do not fit one CTA run as row tiles that do
/// (since session 52: `cuda::portable_decode_block_m`, e.g. d = 128 beyond 48 rows there); where
/// not even 16 rows fit the plan is prefill's (`cuda::decode_fits`); d = 256 on 100 KB GPUs fits
/// with 32-key tiles (`decode_block_n`).
/// `BLASST_DECODE_STAGES` (2..=8) overrides the depth everywhere, for tuning experiments.
pub fn decode_stages(head_dim: usize, smem_per_sm: usize) -> usize {
    static OVERRIDE: OnceLock<Option<usize>> = OnceLock::new();
    let o = *OVERRIDE.get_or_init(|| {
        std::env::var("BLASST_DECODE_STAGES")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|v| (2..=8).contains(v))
    });
    o.unwrap_or_else(|| {
        let tuned = match head_dim {
            128 => 3,
            256 => 2,
            _ => 5,
        };
        let bn = decode_block_n(head_dim, smem_per_sm);
        (2..=tuned)
            .max_by_key(|&st| {
                let fits_64_rows = super::decode_cta_smem(head_dim, 64, st, bn) <= smem_per_sm;
                (
                    fits_64_rows,
                    decode_ctas_fit(head_dim, smem_per_sm, st, bn),
                    st,
                )
            })
            .unwrap_or(2)
    })
}

/// Whether the portable prefill kernel (kernels/prefill.cu) takes its compact layout on a GPU with
/// `smem_per_sm` bytes of shared memory per multiprocessor: 64 query rows per CTA (4 warps of one
/// m16 atom) and one V buffer, 48 KB at d = 128 against the 80 KB of the usual 128 rows, two V
/// buffers and two atoms per warp. Taken where it fits more CTAs per SM (at most its launch
/// bounds': 2, at d = 256 1): on the GPUs of 100 KB (compute capability 8.6, 8.9, 12.x) at
/// d = 128 two CTAs instead of one, as FlashAttention-2 runs 64 x 64 tiles of 4 warps there, and
/// at d = 256 one instead of none (96 KB against 160; since session 53: refused before). The
/// A100 and the H100/H200 (whose portable kernel runs only with `BLASST_PREFILL_KERNEL=mma`) keep
/// the usual layout.
pub fn prefill_compact(head_dim: usize, smem_per_sm: usize) -> bool {
    let fit = |compact| {
        let bound = if head_dim <= 128 { 2 } else { 1 };
        (smem_per_sm / super::prefill_cta_smem(head_dim, compact)).min(bound)
    };
    fit(true) > fit(false)
}

/// Shared memory per multiprocessor of the GPUs of an NVRTC target such as `sm_86` (the CUDA
/// programming guide's table: 164 KB on sm_80 and sm_87, 228 KB on sm_90, sm_100, sm_103 and
/// sm_110, 100 KB on sm_86, sm_88, sm_89, sm_120 and sm_121, and on any target it does not
/// list). What `precompile` and the compile tests size the portable decode kernel's pipeline
/// for (`decode_stages`); a call on a GPU sizes it by the GPU's own attribute.
pub fn arch_smem_per_sm(arch: &str) -> usize {
    let cc = arch
        .trim_start_matches("sm_")
        .trim_start_matches("compute_")
        .trim_end_matches(['a', 'f']);
    match cc {
        "80" | "87" => 164 * 1024,
        "90" | "100" | "103" | "110" => 228 * 1024,
        _ => 100 * 1024,
    }
}

impl Variant {
    /// The kernel's extern "C" name, e.g. `blasst_fwd_prefill_bf16_d128_skip_paged`.
    pub fn name(&self) -> String {
        let dt = if self.bf16 { "bf16" } else { "f16" };
        // "d128", or "d96p128": head dim 96 on the d = 128 kernel.
        let hd = if self.dim == self.head_dim {
            format!("{}", self.head_dim)
        } else {
            format!("{}p{}", self.dim, self.head_dim)
        };
        match self.family {
            Family::Merge => format!("blasst_merge_splits_{dt}_d{hd}"),
            Family::MergeStates => format!("blasst_merge_states_{dt}_d{hd}"),
            f => format!(
                "blasst_fwd_{}_{dt}_d{}_{}{}{}",
                match f {
                    Family::Prefill => "prefill",
                    Family::PrefillSm90 => "prefill90",
                    Family::DecodeSm90 => "decode90",
                    Family::DecodeWarps => "decode90w",
                    _ => "decode",
                },
                hd,
                if self.sweep {
                    "sweep"
                } else if self.skip {
                    "skip"
                } else {
                    "dense"
                },
                match (self.paged, self.small_pages) {
                    (false, _) => "",
                    (true, false) => "_paged",
                    (true, true) => "_paged_small",
                },
                // The portable decode kernel of 32-key tiles (`decode_block_n`).
                if self.bn == 32 { "_n32" } else { "" },
            ),
        }
    }

    pub fn source(&self) -> String {
        let body = match self.family {
            Family::Prefill => PREFILL,
            Family::PrefillSm90 => PREFILL_SM90,
            Family::Decode => DECODE,
            Family::DecodeSm90 => DECODE_SM90,
            Family::DecodeWarps => DECODE_SM90,
            Family::Merge => MERGE,
            Family::MergeStates => MERGE_STATES,
        };
        let hd = self.head_dim as usize;
        let ((kslots, lag), ctas90) = if self.family == Family::DecodeWarps {
            ((decode_warps_ring(), 1), DECODE_WARPS_CTAS_PER_SM)
        } else {
            (decode90_config(hd), decode90_ctas_per_sm(hd))
        };
        // Defines of one family: the row-tile warps kernel follows the Hopper decode kernel's
        // source (DECODE_WARPS); the Hopper prefill's P V overlap and integer maxima, when
        // switched off.
        let (family_define, warps_body) = if self.family == Family::DecodeWarps {
            (
                format!(
                    "#define DECODE_WARPS 1\n#define WARPS_PRODUCER_DELAY_NS {}\n",
                    warps_producer_delay_ns()
                ),
                DECODE_WARPS_SM90,
            )
        } else if self.family == Family::PrefillSm90 {
            let mut defines = String::new();
            let split = prefill90_has_pv_overlap(self.head_dim as usize, self.sweep)
                && (self.small_pages || prefill90_overlap_split());
            if !prefill90_pv_overlap() {
                defines.push_str("#define PREFILL90_PV_OVERLAP 0\n");
            } else if split {
                defines.push_str("#define PREFILL90_OVERLAP_SPLIT 1\n");
            }
            if !prefill90_int_maxima() {
                defines.push_str("#define PREFILL90_INT_MAXIMA 0\n");
            }
            if !prefill90_late_check() {
                defines.push_str("#define PREFILL90_LATE_CHECK 0\n");
            }
            (defines, "")
        } else {
            (String::new(), "")
        };
        let (slots, slot_keys) = prefill90_ring(self.head_dim as usize);
        let wgs = prefill90_consumer_wgs(self.head_dim as usize);
        let pwgs = prefill90_producer_wgs(self.head_dim as usize, self.paged);
        format!(
            "#define {}\n#define HEAD_DIM {}\n#define DIM {}\n#define SKIP {}\n#define PAGED {}\n#define PAGED_SMALL {}\n#define SWEEP {}\n#define KERNEL_NAME {}\n#define STAGES {}\n#define KSLOTS {}\n#define LAG {}\n#define DECODE90_EVICT_FIRST {}\n#define DECODE90_CTAS_PER_SM {}\n#define DECODE_CTAS_PER_SM {}\n#define PREFILL90_SLOTS {slots}\n#define PREFILL90_SLOT_KEYS {slot_keys}\n#define PREFILL90_CONSUMER_WGS {wgs}\n#define PREFILL90_PRODUCER_WGS {pwgs}\n#define PREFILL_COMPACT {}\n#define DECODE_BN {}\n{}{COMMON}\n{body}{}",
            if self.bf16 {
                "BLASST_BF16"
            } else {
                "BLASST_FP16"
            },
            self.head_dim,
            self.dim,
            self.skip as u32,
            self.paged as u32,
            self.small_pages as u32,
            self.sweep as u32,
            self.name(),
            self.stages,
            kslots,
            lag,
            decode90_evict_first() as u32,
            ctas90,
            self.ctas,
            self.compact as u32,
            if self.bn == 0 { 64 } else { self.bn as u32 },
            family_define,
            warps_body,
        )
    }

    /// Whether this specialisation can be built for `arch` (the two Hopper kernels are built for
    /// `sm_90a` only).
    pub fn supports(&self, arch: &str) -> bool {
        !matches!(
            self.family,
            Family::PrefillSm90 | Family::DecodeSm90 | Family::DecodeWarps
        ) || arch == "sm_90a"
            || arch == "compute_90a"
    }

    /// The specialisation of `family` for a call's element type, kernel head dim `head_dim`
    /// (`attn::gpu_kernel_dim`), call head dim `dim` and mode (`skip`, `sweep`: at most one),
    /// over a paged cache or not, sized for a GPU of `smem_per_sm` bytes of shared memory per
    /// multiprocessor: the portable decode kernel's depth and launch bounds (`decode_stages`,
    /// `decode_ctas_bound`) and the portable prefill's compact layout (`prefill_compact`)
    /// follow that memory; the other families have none of those. Every variant the library
    /// compiles or launches is made here, so what `precompile` builds for an architecture is
    /// what a call on its GPUs loads.
    pub fn new(
        family: Family,
        bf16: bool,
        [head_dim, dim]: [u32; 2],
        [skip, sweep, paged]: [bool; 3],
        smem_per_sm: usize,
    ) -> Variant {
        let kd = head_dim as usize;
        let (stages, ctas, bn) = if family == Family::Decode {
            let stages = decode_stages(kd, smem_per_sm);
            (
                stages as u8,
                decode_ctas_bound(kd, smem_per_sm, stages) as u8,
                decode_block_n(kd, smem_per_sm) as u8,
            )
        } else {
            (0, 0, 0)
        };
        Variant {
            family,
            bf16,
            head_dim,
            dim,
            skip,
            paged,
            small_pages: false,
            sweep,
            stages,
            ctas,
            bn,
            compact: family == Family::Prefill && prefill_compact(kd, smem_per_sm),
        }
    }

    /// The specialisation for small pages (`small_pages`) at `page_size` keys per page (None: a
    /// contiguous cache), of the two kernels that have one: the Hopper decode kernel under 64 keys
    /// (`PAGED_SMALL`: a tile's copies warp by warp), and the d = 128 Hopper prefill kernel, whose
    /// P V overlap over small pages takes split K and V barriers (`PREFILL90_OVERLAP_SPLIT 1`,
    /// session 66): the Skip-Softmax kernel under 64 keys, the dense one under 32.
    ///
    /// With one barrier pair per slot the overlap made paged prefill over 16-key pages 3-7 %
    /// slower (run 294), so sessions 62-65 built the small-page kernels without it. Run 310 (an
    /// H100, the three forms in alternation) measured:
    /// - 16-key pages: the split is the fastest, dense -1.4..+2.5 % and Skip-Softmax
    ///   +3.6..+14.4 % over the kernels without the overlap, +5.5..+33.8 % over the plain
    ///   overlap;
    /// - 32-key pages: the plain overlap (the `_paged` kernel, cubin for cubin) is the fastest
    ///   dense kernel (+0.2..+4.1 % over the split, +0.6..+7.7 % over no overlap), the split the
    ///   fastest Skip-Softmax kernel (-0.4..+4.4 % over no overlap, -0.9..+13.6 % over the plain
    ///   overlap).
    ///
    /// Any other variant unchanged.
    pub fn with_small_pages(mut self, page_size: Option<usize>) -> Variant {
        let below =
            match self.family {
                Family::DecodeSm90 => crate::attn::plan::DECODE_BLOCK_N as usize,
                Family::PrefillSm90
                    if prefill90_has_pv_overlap(self.head_dim as usize, self.sweep) =>
                {
                    if self.skip { 64 } else { 32 }
                }
                _ => 0,
            };
        self.small_pages = self.paged && page_size.is_some_and(|p| p < below);
        self
    }

    /// Every specialisation of the calls of head dim `dim` on a GPU with `smem_per_sm` bytes of
    /// shared memory per multiprocessor (which sets the portable decode kernel's depth; for an
    /// NVRTC target: `arch_smem_per_sm`): the kernel of `attn::gpu_kernel_dim(dim)`, compiled for
    /// `dim`. `attn::require_gpu_head_dim`'s error for a head dim the GPU does not run.
    pub fn for_head_dim(smem_per_sm: usize, dim: usize) -> Result<Vec<Variant>> {
        let dims = [crate::attn::require_gpu_head_dim(dim)? as u32, dim as u32];
        let mut v = vec![];
        for bf16 in [false, true] {
            for family in [
                Family::Prefill,
                Family::PrefillSm90,
                Family::Decode,
                Family::DecodeSm90,
                Family::DecodeWarps,
            ] {
                // dense, skip, sweep
                for (skip, sweep) in [(false, false), (true, false), (false, true)] {
                    for paged in [false, true] {
                        if family == Family::DecodeWarps && !decode_warps(dims[0] as usize, dim) {
                            continue;
                        }
                        let var =
                            Variant::new(family, bf16, dims, [skip, sweep, paged], smem_per_sm);
                        let small = var.clone().with_small_pages(Some(16));
                        if small.small_pages {
                            v.push(small);
                        }
                        v.push(var);
                    }
                }
            }
            for family in [Family::Merge, Family::MergeStates] {
                v.push(Variant::new(family, bf16, dims, [false; 3], smem_per_sm));
            }
        }
        Ok(v)
    }

    /// Every specialisation the library can launch on a GPU with `smem_per_sm` bytes of shared
    /// memory per multiprocessor at the kernels' own head dims (`attn::GPU_HEAD_DIMS`,
    /// `for_head_dim`).
    pub fn all(smem_per_sm: usize) -> Vec<Variant> {
        crate::attn::GPU_HEAD_DIMS
            .iter()
            .flat_map(|&d| {
                Self::for_head_dim(smem_per_sm, d as usize).expect("a kernel's own head dim")
            })
            .collect()
    }
}

/// Whether NVRTC can be loaded (cudarc panics on a missing library: probe first).
pub fn available() -> bool {
    // SAFETY: only tries to dlopen candidate names.
    unsafe { nv::is_culib_present() }
}

/// `available`, as the error every path that needs NVRTC returns without it.
pub(crate) fn require() -> Result<()> {
    if available() {
        Ok(())
    } else {
        Err(Error::NoDevice(
            "no NVRTC: libnvrtc.so.13 could not be loaded (install the CUDA runtime compiler, e.g. the nvidia-cuda-nvrtc wheel, and put it on LD_LIBRARY_PATH)".into(),
        ))
    }
}

fn check(r: nv::nvrtcResult, what: &str) -> Result<()> {
    if r == nv::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        // SAFETY: returns a static string.
        let msg = unsafe { CStr::from_ptr(nv::nvrtcGetErrorString(r)) }
            .to_string_lossy()
            .into_owned();
        Err(Error::Cuda(format!("{what}: {msg}")))
    }
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("BLASST_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("blasst"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("blasst"))
}

fn nvrtc_version() -> (i32, i32) {
    let (mut a, mut b) = (0, 0);
    // SAFETY: plain out-parameters.
    unsafe { nv::nvrtcVersion(&mut a, &mut b) };
    (a, b)
}

/// The NVRTC log of a program (compiler diagnostics, or ptxas' report with -v).
///
/// # Safety
/// `prog` is a live program.
unsafe fn program_log(prog: nv::nvrtcProgram) -> String {
    let mut n = 0usize;
    // SAFETY: forwarded; the buffer has the size NVRTC reports, NUL included.
    unsafe {
        nv::nvrtcGetProgramLogSize(prog, &mut n);
        let mut log = vec![0u8; n.max(1)];
        nv::nvrtcGetProgramLog(prog, log.as_mut_ptr() as *mut c_char);
        String::from_utf8_lossy(&log[..n.saturating_sub(1)]).into_owned()
    }
}

/// Compiles `v` for `arch` (e.g. "sm_90a") to a cubin. The NVRTC log is in the error.
pub fn compile(v: &Variant, arch: &str) -> Result<Vec<u8>> {
    let verbose = std::env::var_os("BLASST_PTXAS_VERBOSE").is_some();
    let (bin, log) = compile_with_log(v, arch, verbose)?;
    if verbose {
        eprintln!("{} ({arch}): {log}", v.name());
    }
    Ok(bin)
}

/// Compiles `v` for `arch` and returns the cubin with NVRTC's log; with `ptxas_verbose` the
/// log holds ptxas' report (registers, spills, and warnings such as a serialised wgmma
/// pipeline, which `tests/kernels_compile.rs` rejects for the Hopper kernels).
pub fn compile_with_log(v: &Variant, arch: &str, ptxas_verbose: bool) -> Result<(Vec<u8>, String)> {
    if !available() {
        return Err(Error::NoDevice(
            "no NVRTC: libnvrtc.so.13 could not be loaded".into(),
        ));
    }
    let src = CString::new(v.source()).unwrap();
    let name = CString::new(format!("{}.cu", v.name())).unwrap();
    let mut opts = vec![
        format!("--gpu-architecture={arch}"),
        "-std=c++17".into(),
        "-lineinfo".into(),
    ];
    if ptxas_verbose {
        opts.push("--ptxas-options=-v".into());
    }
    let opts: Vec<CString> = opts.into_iter().map(|s| CString::new(s).unwrap()).collect();
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|s| s.as_ptr()).collect();
    let mut prog: nv::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: valid C strings; the program is destroyed on every path below.
    unsafe {
        check(
            nv::nvrtcCreateProgram(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            ),
            "nvrtcCreateProgram",
        )?;
        let res = nv::nvrtcCompileProgram(prog, opt_ptrs.len() as i32, opt_ptrs.as_ptr());
        let log = program_log(prog);
        let out = if res != nv::nvrtcResult::NVRTC_SUCCESS {
            Err(Error::Cuda(format!(
                "NVRTC failed to compile {} for {arch}:\n{log}",
                v.name()
            )))
        } else {
            // A virtual architecture (compute_90a) gives PTX, a real one (sm_90a) a cubin.
            type SizeFn = unsafe fn(nv::nvrtcProgram, *mut usize) -> nv::nvrtcResult;
            type GetFn = unsafe fn(nv::nvrtcProgram, *mut c_char) -> nv::nvrtcResult;
            let ((size, size_name), (get, get_name)): ((SizeFn, &str), (GetFn, &str)) =
                if arch.starts_with("compute_") {
                    (
                        (nv::nvrtcGetPTXSize, "nvrtcGetPTXSize"),
                        (nv::nvrtcGetPTX, "nvrtcGetPTX"),
                    )
                } else {
                    (
                        (nv::nvrtcGetCUBINSize, "nvrtcGetCUBINSize"),
                        (nv::nvrtcGetCUBIN, "nvrtcGetCUBIN"),
                    )
                };
            let mut n = 0usize;
            check(size(prog, &mut n), size_name)?;
            let mut bin = vec![0u8; n];
            check(get(prog, bin.as_mut_ptr() as *mut c_char), get_name)?;
            Ok((bin, log))
        };
        nv::nvrtcDestroyProgram(&mut prog);
        out
    }
}

/// Compiles with the per-process and on-disk caches. Threads that need the same (variant,
/// architecture) wait for one compile; different ones compile at the same time (NVRTC is
/// thread-safe across programs).
pub fn cubin(v: &Variant, arch: &str) -> Result<Arc<Vec<u8>>> {
    static MEM: LazyLock<OnceMap<(Variant, String), Arc<Vec<u8>>>> =
        LazyLock::new(Default::default);
    MEM.get_or_try_make(&(v.clone(), arch.to_string()), || {
        load_or_compile(v, arch).map(|(bin, ..)| Arc::new(bin))
    })
}

/// The cubin of (`v`, `arch`) from its disk cache file if that is whole, else compiled and
/// written there (best effort); how it was found, and whether it is in the cache now.
fn load_or_compile(v: &Variant, arch: &str) -> Result<(Vec<u8>, Precompiled, bool)> {
    let file = cache_file(v, arch);
    if let Some(bin) = file.as_deref().and_then(read_cached) {
        crate::log::debug(&format!("loaded {} from the disk cache", v.name()));
        return Ok((bin, Precompiled::Cached, true));
    }
    let t0 = std::time::Instant::now();
    let bin = compile(v, arch)?;
    crate::log::debug(&format!(
        "compiled {} for {arch} in {:.2} s",
        v.name(),
        t0.elapsed().as_secs_f64()
    ));
    let written = file.is_some_and(|f| write_cached(&f, &bin));
    Ok((bin, Precompiled::Compiled, written))
}

/// The disk cache file of a (variant, architecture): named by the kernel, the architecture and a
/// hash of the source, the architecture, the NVRTC version and the library version, so that a
/// change to any of them is a miss. None without a cache directory.
fn cache_file(v: &Variant, arch: &str) -> Option<PathBuf> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (v.source(), arch, nvrtc_version(), env!("CARGO_PKG_VERSION")).hash(&mut h);
    cache_dir().map(|d| d.join(format!("{}-{arch}-{:016x}.cubin", v.name(), h.finish())))
}

/// How `precompile` found a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precompiled {
    /// Already in the disk cache (whole).
    Cached,
    /// Compiled now and written to the disk cache.
    Compiled,
}

/// Fills the disk cache with every kernel variant for `arch` (e.g. `sm_90a`) whose name contains
/// `filter`, compiling on all cores, so that a deployment's first calls load their kernels
/// instead of compiling them (0.2-1.5 s each). Needs NVRTC, not a GPU: a build machine can fill
/// the cache for the GPUs it deploys to (the portable decode kernel's depth follows the shared
/// memory of `arch`'s GPUs: `arch_smem_per_sm`). `head_dims`: the head dims whose kernels to
/// compile (empty: the kernels' own, `attn::GPU_HEAD_DIMS`; a smaller multiple of 8 such as 96
/// has its own kernels, `Variant::dim`, which are otherwise compiled at its first call). Returns
/// each kernel's name and how it was found, head dim by head dim in `Variant::for_head_dim` order.
pub fn precompile(
    arch: &str,
    filter: &str,
    head_dims: &[usize],
) -> Result<Vec<(String, Precompiled)>> {
    use rayon::prelude::*;
    let valid = arch
        .strip_prefix("sm_")
        .map(|n| n.strip_suffix('a').unwrap_or(n))
        .is_some_and(|n| n.len() >= 2 && n.bytes().all(|b| b.is_ascii_digit()));
    if !valid {
        return Err(crate::invalid!(
            "arch = {arch:?}: expected sm_XY or sm_XYa, e.g. sm_80 or sm_90a"
        ));
    }
    if cache_dir().is_none() {
        return Err(crate::invalid!(
            "no cache directory: set BLASST_CACHE_DIR (or HOME)"
        ));
    }
    let smem = arch_smem_per_sm(arch);
    let dims: Vec<usize> = if head_dims.is_empty() {
        crate::attn::GPU_HEAD_DIMS.map(|d| d as usize).to_vec()
    } else {
        head_dims.to_vec()
    };
    let mut all = vec![];
    for d in dims {
        all.extend(Variant::for_head_dim(smem, d)?);
    }
    require()?;
    let jobs: Vec<Variant> = all
        .into_iter()
        .filter(|v| v.supports(arch) && v.name().contains(filter))
        .collect();
    if jobs.is_empty() {
        return Err(crate::invalid!(
            "filter = {filter:?}: no kernel for {arch} has it in its name"
        ));
    }
    jobs.par_iter()
        .map(|v| match load_or_compile(v, arch)? {
            (_, how, true) => Ok((v.name(), how)),
            _ => Err(crate::invalid!(
                "{}: compiled, but the cache file could not be written (is the cache directory writable?)",
                v.name()
            )),
        })
        .collect()
}

/// The disk cache's file format: this tag, the cubin's length and its FNV-1a hash (u64, little
/// endian), then the cubin. A file that does not check out (truncated, written by another
/// format, damaged) is a miss: the kernel is compiled again and the file replaced.
const CACHE_TAG: &[u8; 8] = b"blasst1\n";

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The cubin in a disk cache file, if the file is whole.
fn read_cached(path: &std::path::Path) -> Option<Vec<u8>> {
    let data = std::fs::read(path).ok()?;
    let (head, bin) = data.split_at_checked(24)?;
    let word = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().unwrap());
    (&head[..8] == CACHE_TAG && word(8) == bin.len() as u64 && word(16) == fnv1a(bin))
        .then(|| bin.to_vec())
}

/// Writes a disk cache file: to a name of this process and call, then renamed into place, so
/// that no reader (another thread or process) ever sees a partly written file. Whether the file
/// is in place (callers other than `precompile` go on without it).
fn write_cached(path: &std::path::Path, bin: &[u8]) -> bool {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let tmp = path.with_extension(format!(
        "tmp{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ));
    let mut data = Vec::with_capacity(24 + bin.len());
    data.extend_from_slice(CACHE_TAG);
    data.extend_from_slice(&(bin.len() as u64).to_le_bytes());
    data.extend_from_slice(&fnv1a(bin).to_le_bytes());
    data.extend_from_slice(bin);
    let placed = std::fs::write(&tmp, &data).is_ok() && std::fs::rename(&tmp, path).is_ok();
    if !placed {
        let _ = std::fs::remove_file(&tmp);
    }
    placed
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_warps_test_delay_parses_or_says_why_not() {
        use super::parse_delay_ns;
        assert_eq!(parse_delay_ns(None), Ok(0));
        assert_eq!(parse_delay_ns(Some(" ")), Ok(0));
        assert_eq!(parse_delay_ns(Some("20000")), Ok(20000));
        assert_eq!(parse_delay_ns(Some(" 7 ")), Ok(7));
        assert_eq!(parse_delay_ns(Some("99999999999")), Ok(1_000_000));
        assert_eq!(parse_delay_ns(Some("20us")), Err("20us".to_string()));
        assert_eq!(parse_delay_ns(Some("-5")), Err("-5".to_string()));
    }

    use super::{Family, Variant, read_cached, write_cached};

    /// The Hopper decode kernel over 16- and 32-key pages is a variant of its own (named
    /// `_paged_small`, compiled with `PAGED_SMALL 1`), listed once per mode next to the paged
    /// kernel, and so is the d = 128 Hopper prefill kernel's dense and Skip-Softmax (compiled
    /// with split K and V barriers for the P V overlap, which only those two of its kernels
    /// have); `with_small_pages` leaves every other variant as it is, at every kernel head dim.
    #[test]
    fn small_page_kernels_are_their_own_variants() {
        const SPLIT: &str = "#define PREFILL90_OVERLAP_SPLIT 1\n";
        for dim in [64, 128, 256] {
            let all = Variant::for_head_dim(228 * 1024, dim).unwrap();
            let small: Vec<&Variant> = all.iter().filter(|v| v.small_pages).collect();
            let prefill = |v: &Variant| v.family == Family::PrefillSm90 && dim == 128 && !v.sweep;
            assert_eq!(small.len(), 2 * 3 + if dim == 128 { 2 * 2 } else { 0 });
            for v in &small {
                assert!(v.paged && (v.family == Family::DecodeSm90 || prefill(v)));
                assert!(v.name().ends_with("_paged_small"), "{}", v.name());
                assert!(v.source().contains("#define PAGED_SMALL 1\n"));
                assert_eq!(v.source().contains(SPLIT), v.family == Family::PrefillSm90);
                assert!(!v.source().contains("#define PREFILL90_PV_OVERLAP 0\n"));
                let large = (*v).clone().with_small_pages(None);
                assert!(all.contains(&large));
                assert!(large.name().ends_with("_paged"));
                assert!(large.source().contains("#define PAGED_SMALL 0\n"));
                assert!(!large.source().contains(SPLIT));
            }
            for v in &all {
                let s = v.clone().with_small_pages(Some(16));
                assert_eq!(
                    s.small_pages,
                    v.paged && (v.family == Family::DecodeSm90 || prefill(v))
                );
                // 32-key pages: the decode kernel's and the prefill Skip-Softmax kernel's
                // specialisation, not the prefill dense kernel's (run 310); 64: none.
                let s = v.clone().with_small_pages(Some(32));
                assert_eq!(
                    s.small_pages,
                    v.paged && (v.family == Family::DecodeSm90 || (prefill(v) && v.skip))
                );
                assert!(!v.clone().with_small_pages(Some(64)).small_pages);
            }
            let names: std::collections::HashSet<String> = all.iter().map(Variant::name).collect();
            assert_eq!(names.len(), all.len());
        }
    }

    /// A cache file reads back whole; one that is truncated, damaged or of another format reads
    /// as a miss (the kernel is then compiled again), never as a broken cubin.
    #[test]
    fn disk_cache_files_are_checked() {
        let dir = std::env::temp_dir().join(format!("blasst-cache-test-{}", std::process::id()));
        let f = dir.join("k.cubin");
        let bin: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        assert!(write_cached(&f, &bin));
        assert_eq!(read_cached(&f).as_deref(), Some(&bin[..]));
        let whole = std::fs::read(&f).unwrap();
        assert_eq!(whole.len(), bin.len() + 24);
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);

        let mut damaged = whole.clone();
        damaged[24 + 1234] ^= 0x10;
        std::fs::write(&f, &damaged).unwrap();
        assert_eq!(read_cached(&f), None);
        std::fs::write(&f, &whole[..whole.len() - 1]).unwrap();
        assert_eq!(read_cached(&f), None);
        std::fs::write(&f, &bin).unwrap(); // a bare cubin (the format before the tag)
        assert_eq!(read_cached(&f), None);
        std::fs::write(&f, b"blasst1").unwrap();
        assert_eq!(read_cached(&f), None);
        assert_eq!(read_cached(&dir.join("missing.cubin")), None);

        // Rewriting replaces a damaged file.
        assert!(write_cached(&f, &bin));
        assert_eq!(read_cached(&f).as_deref(), Some(&bin[..]));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
