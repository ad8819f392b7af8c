//! The CUDA path: driver and NVRTC loaded dynamically at first use (the crate builds with no
//! CUDA toolkit), kernels compiled for the exact device architecture, launched on the caller's
//! stream in the caller's current context. Nothing here synchronises the host or aborts it.
//!
//! What the GPU path checks: q, k, v, o, lse, skip_stats, the layout arrays and the workspace
//! must be device (or managed) memory — host memory is rejected by asking the driver. The values
//! inside cu_seqlens_*, seqused_kv and block_table are trusted (the CPU path checks them).

pub mod nvrtc;
mod once_map;

use crate::attn::{AttnParams, DType, Desc, Phase};
use crate::{Error, Result, invalid};
use cudarc::driver::sys as cu;
use nvrtc::{Family, Variant};
use once_map::OnceMap;
use std::ffi::{CStr, CString, c_void};
use std::sync::{Arc, LazyLock, OnceLock};

/// Whether the driver and NVRTC libraries can be loaded (cached per process).
pub fn probe() -> Result<()> {
    static PROBE: OnceLock<Result<()>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            // SAFETY: only tries to dlopen candidate library names.
            if !unsafe { cu::is_culib_present() } {
                return Err(Error::NoDevice(
                    "no CUDA driver: libcuda.so.1 could not be loaded (is an NVIDIA driver installed?)".into(),
                ));
            }
            nvrtc::require()?;
            // SAFETY: the driver library is present.
            let r = unsafe { cu::cuInit(0) };
            if r != cu::CUresult::CUDA_SUCCESS {
                return Err(Error::NoDevice(format!("cuInit failed: {} (no usable GPU?)", err_name(r))));
            }
            Ok(())
        })
        .clone()
}

/// Whether a CUDA device can be used by this build.
pub fn available() -> bool {
    probe().is_ok()
}

fn err_name(r: cu::CUresult) -> String {
    let mut p: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: the driver returns a static string or leaves p null.
    unsafe { cu::cuGetErrorName(r, &mut p) };
    if p.is_null() {
        format!("{r:?}")
    } else {
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

fn check(r: cu::CUresult, what: &str) -> Result<()> {
    check_with(r, || what.to_owned())
}

/// As `check`, with the call's description made only if it failed (for the calls of every
/// launch, whose descriptions are formatted).
fn check_with(r: cu::CUresult, what: impl FnOnce() -> String) -> Result<()> {
    if r == cu::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda(format!("{} failed: {}", what(), err_name(r))))
    }
}

/// The context a call runs in (`call_ctx`) and what blasst reads of its GPU.
#[derive(Clone)]
struct Ctx {
    /// The context's ID (`cuCtxGetId`), unique for the life of the process: loaded functions are
    /// cached per ID, not per handle, because a handle can outlive what was loaded into it (a
    /// primary context reset, `cudaDeviceReset`, unloads every module but the handle stays) or
    /// be reused by a later context.
    id: u64,
    /// The context's device (ordinal).
    device: i32,
    arch: Arc<str>,
    /// Launch with programmatic stream serialisation (see `launch`).
    pdl: bool,
    /// Compute capability 9.0+: split decode may merge its splits inside a thread-block cluster.
    clusters: bool,
    /// Shared memory a block may opt in to (227 KB on sm_90, 163 KB on sm_80).
    max_smem: usize,
    /// What the decode plan sizes its splits for (multiprocessors, shared memory per SM).
    shape: GpuShape,
}

/// The GPU a decode plan is made for: its splits fill one wave of the decode kernel's CTAs
/// (`decode_ctas_per_sm`) on `sms` multiprocessors. A CUDA call's plan uses the current
/// context's GPU; the CPU backend's default plan uses `GpuShape::nominal()`, an H100/H200, so that
/// on those GPUs both backends' default plans agree (on others, give the CPU the GPU's plan,
/// `blasst_attn_plan`, to reproduce its decisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuShape {
    pub sms: usize,
    /// Hopper (sm_90a): the Hopper decode kernel runs calls of up to `decode90_max_rows` rows.
    pub sm90a: bool,
    /// Shared memory per multiprocessor, bytes.
    pub smem_per_sm: usize,
}

impl GpuShape {
    /// An H100/H200 SXM: 132 multiprocessors of 228 KB.
    pub const fn nominal() -> GpuShape {
        GpuShape {
            sms: 132,
            sm90a: true,
            smem_per_sm: 228 * 1024,
        }
    }
}

/// For every decode specialisation the current GPU runs, at each packed-row count it runs it
/// for: (name and rows, the CTAs per SM the driver reports, what the decode plan counts:
/// `decode_ctas_per_sm`). The GPU tests require the two to agree, so a kernel change that
/// costs occupancy (or a plan that leaves CTA slots empty) fails there.
pub fn decode_occupancy_report() -> Result<Vec<(String, usize, usize)>> {
    probe()?;
    let ctx = current_ctx()?;
    let mut out = vec![];
    for v in Variant::all(ctx.shape.smem_per_sm) {
        if !matches!(
            v.family,
            Family::Decode | Family::DecodeSm90 | Family::DecodeWarps
        ) || !v.supports(&ctx.arch)
        {
            continue;
        }
        let hd = v.head_dim as usize;
        let warps = v.family == Family::DecodeWarps;
        for rows in [4u32, 8, 16, 32, 64] {
            if warps && rows != 8 {
                continue; // its one row-tile size (the plan's block_m 8)
            }
            let k = if warps {
                decode_warps_kernel(hd)
            } else {
                decode_kernel(&ctx.shape, rows, hd)
            };
            if k.family != v.family || k.smem > ctx.max_smem {
                continue; // another kernel's rows, or refused on this GPU (check_smem)
            }
            let f = function(&ctx, &v, k.max_smem.min(ctx.max_smem))?;
            let mut n = 0;
            // SAFETY: an occupancy query on a loaded function.
            check(
                unsafe {
                    cu::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                        &mut n,
                        f.0,
                        k.threads as i32,
                        k.smem,
                    )
                },
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            )?;
            out.push((
                format!("{} rows {rows}", v.name()),
                n.max(0) as usize,
                if warps {
                    decode_warps_ctas_per_sm(&ctx.shape, hd)
                } else {
                    decode_ctas_per_sm(&ctx.shape, hd, rows)
                },
            ));
        }
    }
    Ok(out)
}

/// The NVRTC target of the current context's GPU, e.g. `sm_90a` (`blasst precompile`'s
/// default).
pub fn current_arch() -> Result<String> {
    probe()?;
    Ok(current_ctx()?.arch.to_string())
}

/// The current context's GPU (loads the driver: `BLASST_ERROR_NO_DEVICE` without one); device
/// 0 when no context is current.
pub fn gpu_shape() -> Result<GpuShape> {
    // SAFETY: the NULL stream is never looked up.
    unsafe { gpu_shape_on(std::ptr::null_mut()) }
}

/// The GPU a call on `stream` runs on (`call_ctx`), for its plan. A stream object's context is
/// made current, as the launch that follows makes it; with the NULL or a default stream and no
/// context current, device 0 is described and the thread is left without a context (a plan or
/// workspace size asked on a fresh thread does not bind it to device 0).
///
/// # Safety
/// As `call_ctx`.
pub unsafe fn gpu_shape_on(stream: *mut c_void) -> Result<GpuShape> {
    probe()?;
    let stream = stream as cu::CUstream;
    let current = current_handle()?;
    if current.is_null() && !stream_object(stream) {
        let mut dev = 0;
        check(unsafe { cu::cuDeviceGet(&mut dev, 0) }, "cuDeviceGet(0)")?;
        return Ok(device_info(dev)?.shape());
    }
    Ok(unsafe { ctx_from(current, stream)? }.shape)
}

/// With no context current, the distinct shapes of every GPU of the machine (a call could run
/// on any of them: `attn::workspace_size` sizes for the largest); with one current, None (calls
/// run on its GPU). Asks no context to be made current.
pub fn all_gpu_shapes() -> Result<Option<Vec<GpuShape>>> {
    probe()?;
    if !current_handle()?.is_null() {
        return Ok(None);
    }
    let mut n = 0;
    // SAFETY: out-pointer to a local; the driver is initialised by probe.
    check(unsafe { cu::cuDeviceGetCount(&mut n) }, "cuDeviceGetCount")?;
    let mut shapes: Vec<GpuShape> = Vec::new();
    for i in 0..n {
        let mut dev = 0;
        // SAFETY: as above, an ordinal below the count the driver gave.
        check_with(unsafe { cu::cuDeviceGet(&mut dev, i) }, || {
            format!("cuDeviceGet({i})")
        })?;
        let shape = device_info(dev)?.shape();
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    Ok(Some(shapes))
}

/// The decode kernel a call of `block_m` packed rows at `head_dim` runs on a GPU like `sm90a`,
/// as the launch, the plan's CTA count and the occupancy report all see it.
struct DecodeKernel {
    family: Family,
    /// Dynamic shared memory of this call, and the most any call of this kernel at `head_dim`
    /// takes (what its function is set up for).
    smem: usize,
    max_smem: usize,
    threads: u32,
    /// CTAs per SM its launch bounds are written for.
    bounds: usize,
    /// The portable kernel's pipeline depth on this GPU (`nvrtc::decode_stages`; 0: the Hopper
    /// kernel).
    stages: u8,
    /// Keys per tile: 64, on the portable kernel `nvrtc::decode_block_n` (32 where 64 do not
    /// fit); the decode plan's `block_n`.
    bn: u32,
}

fn decode_kernel(g: &GpuShape, block_m: u32, head_dim: usize) -> DecodeKernel {
    if use_sm90_decode(g.sm90a, block_m, head_dim) {
        DecodeKernel {
            family: Family::DecodeSm90,
            smem: decode90_smem(head_dim),
            max_smem: decode90_smem(head_dim),
            threads: DECODE_SM90_THREADS,
            bounds: nvrtc::decode90_ctas_per_sm(head_dim),
            stages: 0,
            bn: crate::attn::plan::DECODE_BLOCK_N,
        }
    } else {
        let stages = nvrtc::decode_stages(head_dim, g.smem_per_sm);
        let bn = nvrtc::decode_block_n(head_dim, g.smem_per_sm);
        DecodeKernel {
            family: Family::Decode,
            smem: decode_smem(head_dim, block_m as usize, stages, bn),
            max_smem: decode_smem(head_dim, 64, stages, bn),
            threads: DECODE_THREADS,
            bounds: nvrtc::decode_ctas_bound(head_dim, g.smem_per_sm, stages),
            stages: stages as u8,
            bn: bn as u32,
        }
    }
}

/// The most static shared memory of a decode kernel (the sweep's counters; ptxas reports 0, 128
/// or 256 bytes) and what the driver reserves per CTA on sm_80 and newer.
const DECODE_STATIC_SMEM: usize = 256;
const RESERVED_SMEM_PER_CTA: usize = 1024;

/// CTAs of the decode kernel that runs a call of `block_m` packed rows at `head_dim` that fit on
/// one multiprocessor of `g`: the kernel's launch bounds (which cap its registers for that
/// many) and its shared memory (plus its static bytes and the driver's reserve per CTA); the
/// GPU test `decode_plan_counts_the_ctas_the_driver_fits` checks every decode specialisation
/// against the driver's occupancy. Reads `BLASST_DECODE_KERNEL` like the launch, so plan and
/// kernel agree.
pub fn decode_ctas_per_sm(g: &GpuShape, head_dim: usize, block_m: u32) -> usize {
    decode_kernel(g, block_m, head_dim).ctas_per_sm(g)
}

impl DecodeKernel {
    /// Its CTAs that fit on one multiprocessor of `g`: its launch bounds and its shared memory
    /// (plus its static bytes and the driver's reserve per CTA).
    fn ctas_per_sm(&self, g: &GpuShape) -> usize {
        self.bounds
            .min(g.smem_per_sm / (self.smem + DECODE_STATIC_SMEM + RESERVED_SMEM_PER_CTA))
            .max(1)
    }
}

/// The row-tile warps decode kernel (kernels/decode_warps_sm90.cu) at `head_dim` (128).
fn decode_warps_kernel(head_dim: usize) -> DecodeKernel {
    let smem = decode_warps_smem(head_dim);
    DecodeKernel {
        family: Family::DecodeWarps,
        smem,
        max_smem: smem,
        threads: DECODE_WARPS_THREADS,
        bounds: nvrtc::DECODE_WARPS_CTAS_PER_SM,
        stages: 0,
        bn: crate::attn::plan::DECODE_BLOCK_N,
    }
}

/// Keys per tile of the decode kernel that runs a call of `block_m` packed rows at `head_dim` on
/// a GPU like `g` (the plan's `block_n`): 64, but 32 on the portable kernel where a CTA of 64-key
/// tiles does not fit (`nvrtc::decode_block_n`: d = 256 on the GPUs of 100 KB).
pub fn decode_block_n(g: &GpuShape, head_dim: usize, block_m: u32) -> u32 {
    decode_kernel(g, block_m, head_dim).bn
}

/// `decode_ctas_per_sm` of the row-tile warps decode kernel (`attn::plan::decode_warps`).
pub fn decode_warps_ctas_per_sm(g: &GpuShape, head_dim: usize) -> usize {
    decode_warps_kernel(head_dim).ctas_per_sm(g)
}

/// Must match the layout in kernels/decode_warps_sm90.cu: K and V rings of
/// `nvrtc::decode_warps_ring` slots of 64 swizzled rows, the mbarriers (full and empty of each
/// slot of both, two `decided`) and the two decision words.
pub fn decode_warps_smem(head_dim: usize) -> usize {
    let st = nvrtc::decode_warps_ring();
    2 * st * 64 * head_dim * 2 + (4 * st + 2) * 8 + 2 * 4
}

/// The calling thread's current context, or device 0's primary context when none is current
/// (made current, as the CUDA runtime does at a thread's first call): what calls without a stream
/// (plans, workspace sizes, blasst's own buffers) use.
fn current_ctx() -> Result<Ctx> {
    // SAFETY: the NULL stream is never looked up.
    unsafe { call_ctx(std::ptr::null_mut()) }
}

/// Whether `stream` is a stream object rather than the NULL stream or one of the driver's
/// special handles for the legacy and per-thread default streams (`CU_STREAM_LEGACY`,
/// `CU_STREAM_PER_THREAD`), which belong to whichever context is current.
fn stream_object(stream: cu::CUstream) -> bool {
    stream as usize > 2
}

/// The context a call on `stream` runs in: the calling thread's current context; with none
/// current, the stream's own context (`cuStreamGetCtx`: a thread that only holds a stream of GPU
/// 1 runs its calls on GPU 1), or device 0's primary context for the NULL and default streams.
/// The context chosen is made current on the thread. A current context always wins, so the
/// common case costs no driver call for the stream; a stream of another context then fails its
/// first stream operation, which `stream_mismatch` names.
///
/// # Safety
/// `stream` is NULL, a special default-stream handle or a live stream.
unsafe fn call_ctx(stream: cu::CUstream) -> Result<Ctx> {
    unsafe { ctx_from(current_handle()?, stream) }
}

/// The calling thread's current context handle (NULL: none).
fn current_handle() -> Result<cu::CUcontext> {
    let mut ctx: cu::CUcontext = std::ptr::null_mut();
    check(unsafe { cu::cuCtxGetCurrent(&mut ctx) }, "cuCtxGetCurrent")?;
    Ok(ctx)
}

/// `call_ctx`, with the thread's current context `ctx` (NULL: none) already asked.
///
/// # Safety
/// As `call_ctx`.
unsafe fn ctx_from(mut ctx: cu::CUcontext, stream: cu::CUstream) -> Result<Ctx> {
    unsafe {
        if ctx.is_null() {
            if stream_object(stream) {
                check_with(cu::cuStreamGetCtx(stream, &mut ctx), || {
                    format!("cuStreamGetCtx(cuda_stream = {stream:p}), no context being current")
                })?;
            } else {
                let mut dev = 0;
                check(cu::cuDeviceGet(&mut dev, 0), "cuDeviceGet(0)")?;
                check(
                    cu::cuDevicePrimaryCtxRetain(&mut ctx, dev),
                    "cuDevicePrimaryCtxRetain",
                )?;
            }
            check(cu::cuCtxSetCurrent(ctx), "cuCtxSetCurrent")?;
        }
        let mut id = 0;
        check(cu::cuCtxGetId(ctx, &mut id), "cuCtxGetId")?;
        // The thread's last context, if this is it: a context's ID is never reused, so its
        // device and what blasst read of it still hold (a handle can be, and a primary context
        // reset keeps its handle with a new ID, so both are compared).
        let last = LAST_CTX.with_borrow(|l| {
            l.as_ref()
                .filter(|(h, c)| *h == ctx as usize && c.id == id)
                .map(|(_, c)| c.clone())
        });
        if let Some(c) = last {
            return Ok(c);
        }
        let mut dev = 0;
        check(cu::cuCtxGetDevice(&mut dev), "cuCtxGetDevice")?;
        let info = device_info(dev)?;
        let DeviceInfo {
            major,
            minor,
            max_smem,
            ref arch,
            ..
        } = info;
        if major < 8 {
            return Err(Error::Unsupported(format!(
                "compute capability {major}.{minor}: blasst needs 8.0 or newer"
            )));
        }
        let c = Ctx {
            id,
            device: dev,
            arch: arch.clone(),
            pdl: major >= 9 && pdl_enabled(),
            clusters: major >= 9 && cluster_merge_enabled(),
            max_smem: max_smem.max(0) as usize,
            shape: info.shape(),
        };
        LAST_CTX.set(Some((ctx as usize, c.clone())));
        Ok(c)
    }
}

thread_local! {
    /// The context this thread's last call ran in (handle, and what `call_ctx` made of it): a
    /// call in the same context then asks the driver only for the current context and its ID.
    static LAST_CTX: std::cell::RefCell<Option<(usize, Ctx)>> = const { std::cell::RefCell::new(None) };
}

/// A stream operation of a call failed with `e`. If `stream` belongs to another context than
/// `ctx`, the calling thread's current one that the call ran in, that is the cause: an invalid
/// argument naming `cuda_stream` and both contexts. Otherwise `e` as it is. Asked only after a
/// failure, so a successful call pays nothing for it.
fn stream_mismatch(e: Error, ctx: &Ctx, stream: cu::CUstream) -> Error {
    if !matches!(e, Error::Cuda(_)) || !stream_object(stream) {
        return e;
    }
    let (mut sc, mut id, mut dev): (cu::CUcontext, u64, i32) = (std::ptr::null_mut(), 0, -1);
    // SAFETY: queries on the caller's live stream and its context; the context pushed is popped.
    unsafe {
        if cu::cuStreamGetCtx(stream, &mut sc) != cu::CUresult::CUDA_SUCCESS
            || sc.is_null()
            || cu::cuCtxGetId(sc, &mut id) != cu::CUresult::CUDA_SUCCESS
            || id == ctx.id
        {
            return e;
        }
        if cu::cuCtxPushCurrent_v2(sc) == cu::CUresult::CUDA_SUCCESS {
            cu::cuCtxGetDevice(&mut dev);
            let mut popped = std::ptr::null_mut();
            cu::cuCtxPopCurrent_v2(&mut popped);
        }
    }
    invalid!(
        "cuda_stream = {stream:p} belongs to context ID {id} (GPU {dev}), but the call runs in the calling thread's current context (ID {}, GPU {}): make the stream's context current (cudaSetDevice) or pass a stream of the current context ({})",
        ctx.id,
        ctx.device,
        e.message()
    )
}

/// The attributes of a device that blasst reads, asked once per device (a decode call reads
/// them twice: for its plan and for its launch).
#[derive(Clone)]
struct DeviceInfo {
    major: i32,
    minor: i32,
    max_smem: i32,
    sms: i32,
    smem_per_sm: i32,
    /// NVRTC's target: Hopper gets its architecture-specific one, everything else the plain
    /// one (made here once, not per call).
    arch: Arc<str>,
}

impl DeviceInfo {
    /// What the decode plan sizes its splits for.
    fn shape(&self) -> GpuShape {
        GpuShape {
            sms: self.sms.max(1) as usize,
            sm90a: self.major == 9,
            smem_per_sm: self.smem_per_sm.max(0) as usize,
        }
    }
}

/// `BLASST_SMEM_PER_SM=<bytes>` (a diagnostic switch, read once): blasst treats every GPU as if
/// it had at most that much shared memory per multiprocessor (and that less 1 KB per block), so
/// that the H200 can run the plans, pipeline depths and launch bounds of a GPU with less, such
/// as an A100 (167936) or the GPUs of 100 KB (102400), with the portable kernels
/// (`BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma`: the Hopper kernels need more and are
/// refused). The driver still fits CTAs by the real shared memory. Values below 48 KB are
/// ignored.
fn smem_limit() -> Option<i32> {
    static LIMIT: OnceLock<Option<i32>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("BLASST_SMEM_PER_SM")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|&v| v >= 48 * 1024)
    })
}

fn device_info(dev: cu::CUdevice) -> Result<DeviceInfo> {
    static CACHE: LazyLock<OnceMap<cu::CUdevice, DeviceInfo>> = LazyLock::new(Default::default);
    CACHE.get_or_try_make(&dev, || {
        let attr = |a: cu::CUdevice_attribute| -> Result<i32> {
            let mut v = 0;
            // SAFETY: an attribute query on a device ordinal the driver gave us.
            check(
                unsafe { cu::cuDeviceGetAttribute(&mut v, a, dev) },
                "cuDeviceGetAttribute",
            )?;
            Ok(v)
        };
        use cu::CUdevice_attribute as A;
        let major = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let mut max_smem = attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
        let mut smem_per_sm = attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?;
        if let Some(limit) = smem_limit() {
            smem_per_sm = smem_per_sm.min(limit);
            max_smem = max_smem.min(limit - RESERVED_SMEM_PER_CTA as i32);
        }
        Ok(DeviceInfo {
            major,
            minor,
            max_smem,
            sms: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            smem_per_sm,
            arch: if major == 9 {
                "sm_90a".into()
            } else {
                format!("sm_{major}{minor}").into()
            },
        })
    })
}

/// `BLASST_PDL=0` turns programmatic dependent launch off (a diagnostic and benchmark switch,
/// read once per process).
fn pdl_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| env_switch_on("BLASST_PDL"))
}

/// `BLASST_DECODE_CLUSTER_MERGE=0` turns the in-cluster split merge of the Hopper decode
/// kernel off (the merge kernel then runs; a diagnostic and benchmark switch, read once).
fn cluster_merge_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| env_switch_on("BLASST_DECODE_CLUSTER_MERGE"))
}

/// `BLASST_PREFILL_TMA=0` makes the Hopper prefill kernel copy everything with cp.async instead
/// of TMA (the path it takes when the driver refuses a tensor map; a diagnostic and test switch,
/// read once).
fn prefill_tma_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| env_switch_on("BLASST_PREFILL_TMA"))
}

/// Whether the switch `name` is on: unset or anything but "0".
fn env_switch_on(name: &str) -> bool {
    std::env::var(name).map_or(true, |v| v.trim() != "0")
}

#[derive(Clone, Copy)]
struct Func(cu::CUfunction);
// SAFETY: CUfunction handles are usable from any thread of the process.
unsafe impl Send for Func {}
unsafe impl Sync for Func {}

/// Loads (compiling on a miss) a kernel into the current context, once per (context, variant):
/// threads that need the same kernel wait for one load, the others go on (`OnceMap`).
fn function(ctx: &Ctx, v: &Variant, smem: usize) -> Result<Func> {
    // Keyed by the variant itself (no name formatted per call: this runs at every launch).
    static CACHE: LazyLock<OnceMap<(u64, Variant), Func>> = LazyLock::new(Default::default);
    CACHE.get_or_try_make(&(ctx.id, v.clone()), || {
        let bin = nvrtc::cubin(v, &ctx.arch)?;
        let name = CString::new(v.name()).unwrap();
        let mut module: cu::CUmodule = std::ptr::null_mut();
        let mut f: cu::CUfunction = std::ptr::null_mut();
        unsafe {
            check(
                cu::cuModuleLoadData(&mut module, bin.as_ptr() as *const c_void),
                &format!("cuModuleLoadData({})", v.name()),
            )?;
            check(
                cu::cuModuleGetFunction(&mut f, module, name.as_ptr()),
                &format!("cuModuleGetFunction({})", v.name()),
            )?;
            check(
                cu::cuFuncSetAttribute(
                    f,
                    cu::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem as i32,
                ),
                &format!(
                    "cuFuncSetAttribute({}, {smem} bytes of shared memory)",
                    v.name()
                ),
            )?;
        }
        Ok(Func(f))
    })
}

/// What the driver knows of an address (one `cuPointerGetAttributes`, which, unlike
/// `cuPointerGetAttribute`, answers "not CUDA memory" for a plain host address instead of
/// raising an API error).
struct PtrInfo {
    /// CU_MEMORYTYPE_DEVICE: device memory, or managed memory.
    device: bool,
    managed: bool,
    /// The GPU the memory belongs to, if the driver says.
    ordinal: Option<i32>,
}

fn pointer_info(ptr: usize) -> PtrInfo {
    use cu::CUpointer_attribute as A;
    let mut attrs = [
        A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        A::CU_POINTER_ATTRIBUTE_IS_MANAGED,
        A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    ];
    // 8-byte slots: the driver writes a 4-byte enum, a bool and a 4-byte int into their low
    // bytes; the ordinal's slot starts as a value no 4-byte write leaves (unknown: not refused).
    let mut vals = [0u64, 0, u64::MAX];
    let mut data = vals.each_mut().map(|v| v as *mut u64 as *mut c_void);
    // SAFETY: an attribute query on an arbitrary address, into slots larger than each answer.
    let r = unsafe {
        cu::cuPointerGetAttributes(
            3,
            attrs.as_mut_ptr(),
            data.as_mut_ptr(),
            ptr as cu::CUdeviceptr,
        )
    };
    let ok = r == cu::CUresult::CUDA_SUCCESS;
    PtrInfo {
        device: ok && vals[0] as u32 == cu::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32,
        managed: ok && vals[1] as u8 != 0,
        ordinal: (ok && vals[2] != u64::MAX).then_some(vals[2] as u32 as i32),
    }
}

/// Rejects host memory where the GPU path needs device memory, and device memory of another GPU
/// than the current context's (a kernel that reads it faults, and the fault ends the context for
/// the whole process; PyTorch refuses such calls the same way). Managed memory may live anywhere.
fn device_ptr(ctx: &Ctx, name: &str, ptr: usize) -> Result<()> {
    if ptr == 0 {
        return Ok(());
    }
    let info = pointer_info(ptr);
    if !info.device {
        return Err(invalid!(
            "{name} = {ptr:#x} is host memory; device = BLASST_DEVICE_CUDA needs device pointers"
        ));
    }
    if let Some(gpu) = info.ordinal.filter(|&g| !info.managed && g != ctx.device) {
        return Err(invalid!(
            "{name} = {ptr:#x} is memory of GPU {gpu}, but the call runs on GPU {} (the current context's device): every pointer of a call must be on that GPU",
            ctx.device
        ));
    }
    Ok(())
}

/// Whether `ptr` is device memory, asked only when the host process has already loaded and
/// initialised the CUDA driver (`RTLD_NOLOAD`: the CPU path never loads or initialises CUDA
/// itself). Used by the CPU backend to reject device pointers instead of crashing on them.
pub fn host_has_device_pointer(ptrs: &[(&str, usize)]) -> crate::Result<()> {
    // Not cached: the host may load the driver after our first CPU call (a dlopen with
    // RTLD_NOLOAD costs about a microsecond).
    let loaded = {
        ["libcuda.so.1", "libcuda.so"].iter().any(|n| {
            let c = CString::new(*n).unwrap();
            // SAFETY: RTLD_NOLOAD only returns a handle to an already loaded library.
            let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
            if h.is_null() {
                false
            } else {
                unsafe { libc::dlclose(h) };
                true
            }
        })
    };
    if !loaded {
        return Ok(());
    }
    for &(name, ptr) in ptrs {
        if ptr == 0 {
            continue;
        }
        // Managed memory reports DEVICE too; it is rejected as well (pass device =
        // BLASST_DEVICE_CUDA for it).
        if pointer_info(ptr).device {
            return Err(invalid!(
                "{name} = {ptr:#x} is device memory; device = BLASST_DEVICE_CPU needs host pointers"
            ));
        }
    }
    Ok(())
}

/// Must match `struct KernelParams` in kernels/common.cuh.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct KernelParams {
    q: u64,
    k: u64,
    v: u64,
    o: u64,
    lse: u64,
    stats: u64,
    ws_o: u64,
    ws_lse: u64,
    strides: [i64; 12],
    cu_q: u64,
    cu_kv: u64,
    seqused: u64,
    block_table: u64,
    block_table_stride: i64,
    page_size_log2: i32,
    batch: i32,
    hq: i32,
    hkv: i32,
    group: i32,
    max_lq: i32,
    max_lk: i32,
    causal: i32,
    scale_log2: f32,
    scale: f32,
    log2_lambda: f32,
    num_splits: i32,
    block_m: i32,
    log2_lambdas: [f32; 32],
    num_lambdas: i32,
    cluster_merge: i32,
    sweep_skipped: u64,
    sweep_visited: u64,
    /// 1: `tmaps` hold Q, K, V (the Hopper prefill kernel; K and V over the page pools when paged).
    tma: i32,
    /// The first sequence of this launch (`launch_seqs`: the grid's z dimension holds at most
    /// 65535 of the call's sequences).
    batch0: i32,
    tmaps: [cu::CUtensorMap; 3],
}

// kernels/common.cuh aligns its TensorMap to 128 bytes, as CUDA 13 (and cudarc) align CUtensorMap:
// with 64 (CUDA 12's) the maps sat 64 bytes before where the host wrote them, and every TMA copy
// faulted (illegal instruction; run 95).
const _: () = assert!(std::mem::align_of::<cu::CUtensorMap>() == 128);
const _: () = assert!(std::mem::offset_of!(KernelParams, tmaps) == 512);
const _: () = assert!(std::mem::size_of::<KernelParams>() == 896);

/// Size and alignment of the kernels' one parameter (`KernelParams`): tests/kernels_compile.rs
/// checks that every kernel's PTX declares its parameter with these (the C struct in
/// kernels/common.cuh and this one must agree byte for byte).
#[doc(hidden)]
pub const KERNEL_PARAMS_LAYOUT: (usize, usize) = (
    std::mem::size_of::<KernelParams>(),
    std::mem::align_of::<KernelParams>(),
);

/// The page extent of a paged cache's tensor maps: the call's `num_pages`, or every page a
/// non-negative `i32` block-table entry can name when it is 0 (not given).
fn page_extent(num_pages: usize) -> usize {
    if num_pages == 0 {
        i32::MAX as usize
    } else {
        num_pages
    }
}

/// The byte strides of a tensor map's dimensions 1-3 (`dims` innermost first), or None for
/// the copies to stay on cp.async. The driver checks alignment (16 bytes) and range, and takes no
/// stride 0: one is replaced for a dimension of one (a batch of one, whose stride nothing reads)
/// and refused otherwise (heads or rows that share memory, which inputs may: no tensor map
/// describes them).
fn tma_strides(dims: &[u64; 4], strides: [u64; 3]) -> Option<[u64; 3]> {
    let mut st = strides;
    for (s, &n) in st.iter_mut().zip(&dims[1..]) {
        if *s == 0 {
            if n != 1 {
                return None;
            }
            *s = 16;
        }
    }
    Some(st)
}

/// How a tensor map's rows are laid out: Q's as the call's query layout, K's and V's as a
/// paged cache's pools or the call's KV layout.
#[derive(Clone, Copy, Debug, PartialEq)]
enum MapRows<'a> {
    Padded,
    Ragged,
    Paged(&'a crate::attn::Paged),
}

impl MapRows<'_> {
    /// The rows of a tensor in the call's own layout (not a page pool).
    fn unpaged(ragged: bool) -> Self {
        if ragged {
            MapRows::Ragged
        } else {
            MapRows::Padded
        }
    }
}

/// What `cuTensorMapEncodeTiled` is given for one tensor: dimensions innermost first (head
/// dim, heads, rows, batch or pages), the byte strides of dimensions 1-3, and the box.
#[derive(Debug, PartialEq)]
struct MapGeometry {
    dims: [u64; 4],
    strides: [u64; 3],
    boxes: [u32; 4],
}

/// The geometry of a bf16/fp16 tensor's map (`[batch, row, head]` element strides), or None
/// where no map describes it (a negative stride; a zero one: `tma_strides`).
fn map_geometry(
    head_dim: usize,
    batch: usize,
    [bs, rs, hs]: [i64; 3],
    heads: usize,
    max_rows: usize,
    rows: MapRows,
    box_rows: u32,
) -> Option<MapGeometry> {
    let bytes = |x: i64| u64::try_from(x).ok().map(|x| x * 2);
    let (dims, strides) = match rows {
        MapRows::Paged(pg) => (
            [head_dim, heads, pg.page_size, page_extent(pg.num_pages)].map(|x| x as u64),
            [bytes(hs)?, bytes(rs)?, bytes(bs)?],
        ),
        MapRows::Ragged => {
            let rs = bytes(rs)?;
            (
                [head_dim, heads, batch * max_rows, 1].map(|x| x as u64),
                [bytes(hs)?, rs, rs],
            )
        }
        MapRows::Padded => (
            [head_dim, heads, max_rows, batch].map(|x| x as u64),
            [bytes(hs)?, bytes(rs)?, bytes(bs)?],
        ),
    };
    Some(MapGeometry {
        dims,
        strides: tma_strides(&dims, strides)?,
        boxes: [64, 1, box_rows, 1],
    })
}

/// K's and V's row layout and box rows: a plan tile's 64 rows, or a page's rows when pages are
/// shorter (a box never straddles a page).
fn kv_map_rows(paged: Option<&crate::attn::Paged>, ragged: bool) -> (MapRows<'_>, u32) {
    match paged {
        Some(pg) => (MapRows::Paged(pg), pg.page_size.min(64) as u32),
        None => (MapRows::unpaged(ragged), 64),
    }
}

/// TMA tensor maps of Q, K and V for kernels/prefill_sm90.cu: 4-d, innermost
/// first (head dim, heads, rows, batch), boxes of 64 head columns x the CTA's query rows (Q,
/// `prefill90_rows`) or 64 rows (K, V,
/// a plan tile) in the kernel's tile layout (128-byte swizzle). A ragged tensor is one "batch" of
/// batch x max-length rows: the kernel reads a box only where it lies inside its sequence (the
/// last, partial visits and query tiles of a sequence are copied with cp.async, zero-filled), so
/// the map's extent never decides what is read. A paged cache's K and V are maps of (head dim,
/// heads, rows of a page, pages), boxes of min(page size, 64) rows (a page's rows, whole pages
/// per plan tile when pages are shorter than a tile: a tile never straddles a page otherwise),
/// the kernel looking each box's page up in the block table. Their page extent is the call's
/// `num_pages`, or, when it is 0 (unknown), `i32::MAX`: the GPU kernels trust the block table's
/// entries (only the CPU backend checks them: `AttnParams::cu_seqlens_q`), so a box reads the
/// page the table names, as the cp.async copies do; the extent only bounds what a box may read
/// (TMA fills a box outside it with zeros: with `num_pages` given, an entry past it reads zeros
/// rather than memory past the pool). None when the driver refuses a map (the kernel then copies
/// everything with cp.async).
fn tensor_maps(p: &AttnParams, d: &Desc) -> Option<[cu::CUtensorMap; 3]> {
    let encode = |ptr: *const c_void,
                  strides: [i64; 3],
                  heads: usize,
                  max_rows: usize,
                  rows: MapRows,
                  box_rows: u32|
     -> Option<cu::CUtensorMap> {
        let MapGeometry {
            dims,
            strides: st,
            boxes,
        } = map_geometry(
            d.head_dim, d.batch, strides, heads, max_rows, rows, box_rows,
        )?;
        let ones = [1u32; 4];
        let mut map = cu::CUtensorMap { opaque: [0; 16] };
        // SAFETY: every array holds the rank's (4) or rank - 1 entries the driver reads; `map` is
        // only written; `ptr` is not dereferenced (the kernel reads through the map).
        let r = unsafe {
            cu::cuTensorMapEncodeTiled(
                &mut map,
                cu::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
                4,
                ptr as *mut c_void,
                dims.as_ptr(),
                st.as_ptr(),
                boxes.as_ptr(),
                ones.as_ptr(),
                cu::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                cu::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                cu::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                cu::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if r != cu::CUresult::CUDA_SUCCESS {
            crate::log::debug(&format!(
                "cuTensorMapEncodeTiled(dims {dims:?}, strides {st:?}): {} - the prefill copies use cp.async",
                err_name(r)
            ));
            return None;
        }
        Some(map)
    };
    let (kv_rows, kv_box_rows) = kv_map_rows(d.paged.as_ref(), d.ragged_kv);
    Some([
        encode(
            p.q,
            [p.q_batch_stride, p.q_row_stride, p.q_head_stride],
            d.hq,
            d.max_lq,
            MapRows::unpaged(d.ragged_q),
            prefill90_rows(d.kernel_dim()) as u32,
        )?,
        encode(
            p.k,
            [p.k_batch_stride, p.k_row_stride, p.k_head_stride],
            d.hkv,
            d.max_lk,
            kv_rows,
            kv_box_rows,
        )?,
        encode(
            p.v,
            [p.v_batch_stride, p.v_row_stride, p.v_head_stride],
            d.hkv,
            d.max_lk,
            kv_rows,
            kv_box_rows,
        )?,
    ])
}

// Block sizes of the kernels (private: they are not part of the C header).
/// kernels/prefill_sm90.cu: the consumer warpgroups (`nvrtc::prefill90_consumer_wgs`: 3 at d = 64,
/// else 2) and the producer warpgroups (`nvrtc::prefill90_producer_wgs`: 2 for paged caches at
/// d = 256, else 1).
fn prefill_sm90_threads(head_dim: usize, paged: bool) -> u32 {
    128 * (nvrtc::prefill90_consumer_wgs(head_dim) + nvrtc::prefill90_producer_wgs(head_dim, paged))
        as u32
}
/// kernels/prefill_sm90.cu: query rows per CTA, 64 per consumer warpgroup.
fn prefill90_rows(head_dim: usize) -> usize {
    64 * nvrtc::prefill90_consumer_wgs(head_dim)
}
const DECODE_THREADS: u32 = 256;
const DECODE_SM90_THREADS: u32 = 128;
/// kernels/decode_warps_sm90.cu: four consumer warps and a producer warp.
const DECODE_WARPS_THREADS: u32 = 160;
/// Split decode on Hopper merges in a thread-block cluster up to this many splits; more splits
/// write the workspace and run kernels/merge.cu. Measured on the H200 against the merge kernel
/// (bench/runs/session9/run55-*): 2 splits +0.4-1.2 %, 4 splits +1.6-3.0 %, 8 splits (a 31 us
/// call) -4..0 %, and still -3 % with the merge's remote reads batched (run 58).
pub(crate) const MAX_CLUSTER_MERGE_SPLITS: usize = 4;

/// Query rows per CTA of kernels/prefill.cu (`BM`; the Hopper kernel's: `prefill90_rows`): 128,
/// 64 in its compact layout (`nvrtc::prefill_compact`).
fn prefill_rows(compact: bool) -> usize {
    if compact { 64 } else { 128 }
}

/// Threads of kernels/prefill.cu (`NTHREADS`): 4 warps of two m16 atoms, at d = 256 8 warps of
/// one; in the compact layout 4 warps of one.
fn prefill_threads(head_dim: usize, compact: bool) -> u32 {
    if head_dim <= 128 || compact { 128 } else { 256 }
}

/// kernels/prefill.cu's dynamic shared memory: Q (`prefill_rows` rows), K and two V tiles of 64
/// rows (compact: one V tile).
pub fn prefill_smem(head_dim: usize, compact: bool) -> usize {
    let v_tiles = if compact { 1 } else { 2 };
    (prefill_rows(compact) + (1 + v_tiles) * 64) * head_dim * 2
}

/// What one CTA of kernels/prefill.cu takes of a multiprocessor's shared memory: its dynamic
/// shared memory, its static bytes (the CTA's two counters and the sweep's 128 bytes per warp,
/// rounded up to the 128-byte alignment of the dynamic part: 640 with 4 warps) and the driver's
/// reserve per CTA.
pub(crate) fn prefill_cta_smem(head_dim: usize, compact: bool) -> usize {
    let warps = prefill_threads(head_dim, compact) as usize / 32;
    let static_bytes = (8 + warps * 128).div_ceil(128) * 128;
    prefill_smem(head_dim, compact) + static_bytes + RESERVED_SMEM_PER_CTA
}

/// kernels/prefill_sm90.cu: Q (the CTA's rows, `prefill90_rows`), the ring's K and V tiles
/// (`nvrtc::prefill90_ring`), plus slack to align the tiles to 1024 bytes (the 128-byte swizzle
/// is a function of the address).
pub fn prefill_sm90_smem(head_dim: usize) -> usize {
    let (slots, keys) = nvrtc::prefill90_ring(head_dim);
    (prefill90_rows(head_dim) + 2 * slots * keys) * head_dim * 2 + 1024
}

/// Whether the diagnostic switch (`BLASST_PREFILL_KERNEL`, `BLASST_DECODE_KERNEL`) is `mma`:
/// Hopper then runs the portable mma.sync kernel, which makes the same decisions. Read once per
/// process, or at every call with `BLASST_LIVE_SWITCHES=1` (`crate::switches`), so that a
/// benchmark can compare both kernels in one process.
fn mma_forced(switch: &crate::switches::Switch) -> bool {
    switch.test(|v| v.is_some_and(|v| v.eq_ignore_ascii_case("mma")))
}

/// Whether prefill runs the wgmma kernel: on sm_90a, unless `BLASST_PREFILL_KERNEL=mma`.
fn use_sm90_prefill(arch: &str) -> bool {
    arch == "sm_90a" && !mma_forced(&crate::switches::PREFILL_KERNEL)
}

/// Whether decode runs kernels/decode_sm90.cu: on sm_90a for up to `decode90_max_rows` packed
/// rows, unless `BLASST_DECODE_KERNEL=mma`.
pub(crate) fn use_sm90_decode(sm90a: bool, block_m: u32, head_dim: usize) -> bool {
    sm90a
        && block_m <= nvrtc::decode90_max_rows(head_dim)
        && !mma_forced(&crate::switches::DECODE_KERNEL)
}

/// The decode row tile (packed rows: query tokens x query heads per KV head) of a call of `rows`
/// packed rows on a GPU like `g`. On Hopper, up to `decode90_tiled_rows` rows run the Hopper
/// decode kernel: one tile if they fit it (`decode90_max_rows`: 16, at d = 256 8), otherwise
/// several tiles of its size, one CTA each, reading the same K and V (the tiles of one KV head
/// are neighbouring CTAs, so all but the first read them from L2). Otherwise the rows (at most
/// `plan::DECODE_MAX_BLOCK_M`) run the portable kernel: `portable_decode_block_m`. Reads
/// `BLASST_DECODE_KERNEL` like the launch.
pub fn decode_block_m(g: &GpuShape, head_dim: usize, rows: usize) -> usize {
    let one = rows.min(crate::attn::plan::DECODE_MAX_BLOCK_M);
    let tile = one.min(nvrtc::decode90_max_rows(head_dim) as usize);
    if rows <= nvrtc::decode90_tiled_rows(head_dim)
        && use_sm90_decode(g.sm90a, tile as u32, head_dim)
    {
        tile
    } else {
        portable_decode_block_m(g, head_dim, one)
    }
}

/// Whether a decode kernel runs a call at `head_dim` on a GPU like `g` at all: on Hopper the
/// Hopper decode kernels (they fit every head dim), elsewhere the portable one where a tile of 16
/// packed rows fits a multiprocessor's shared memory (at d = 256 on the GPUs of 100 KB with
/// 32-key tiles: `nvrtc::decode_block_n`), so on every GPU blasst runs on. Where it would not
/// (below 80896 bytes per SM at d = 256), decode-shaped calls take the prefill plan and kernel
/// instead (`plan::default_plan`): correct, no split-KV (session 53's fallback for d = 256 on
/// the GPUs of 100 KB before their 32-key tiles).
pub fn decode_fits(g: &GpuShape, head_dim: usize) -> bool {
    use_sm90_decode(g.sm90a, nvrtc::decode90_max_rows(head_dim), head_dim)
        || portable_decode_fits(g, head_dim)(16)
}

/// Whether one CTA of the portable decode kernel at `head_dim` (its pipeline as deep and its
/// tiles as long as on `g`: `nvrtc::decode_stages`, `nvrtc::decode_block_n`, found once) fits a
/// multiprocessor of `g`, as a function of its packed rows.
fn portable_decode_fits(g: &GpuShape, head_dim: usize) -> impl Fn(usize) -> bool {
    let stages = nvrtc::decode_stages(head_dim, g.smem_per_sm);
    let bn = nvrtc::decode_block_n(head_dim, g.smem_per_sm);
    let smem_per_sm = g.smem_per_sm;
    move |rows| decode_cta_smem(head_dim, rows, stages, bn) <= smem_per_sm
}

/// The portable decode kernel's row tile for `rows` packed rows on a GPU like `g`: all of them
/// where one CTA of that many rows fits a multiprocessor's shared memory (every call on the
/// H100/H200 and B200; on an A100 up to 32 rows at d = 256, on the GPUs of 100 KB up to 48 rows
/// at d = 128). Otherwise the fewest row tiles that fit, of equal size rounded up to 16 rows, one
/// CTA each (kernels/decode.cu; the CPU backend follows the plan's tiles): e.g. speculative
/// decoding of 8 tokens x GQA 8 (64 rows) at d = 128 on an RTX 4090 as two tiles of 32, which
/// before session 52 was refused. Where not even 16 rows fit, all rows; the plan does not take
/// the decode kernel there (`decode_fits`).
fn portable_decode_block_m(g: &GpuShape, head_dim: usize, rows: usize) -> usize {
    let fits = portable_decode_fits(g, head_dim);
    // The tile of `tiles` tiles: the rows shared out evenly, rounded up to 16 (the kernel's m16
    // atoms), at most all of them.
    (1..=rows.div_ceil(16))
        .map(|tiles| (rows.div_ceil(tiles).div_ceil(16) * 16).min(rows))
        .find(|&m| fits(m))
        .unwrap_or(rows)
}

/// Must match the layout in kernels/decode_sm90.cu: K and V buffers of 64 swizzled rows, the
/// row-max exchange (2 x 4 warps x 16 rows) and one mbarrier per buffer.
pub fn decode90_smem(head_dim: usize) -> usize {
    let (kslots, lag) = nvrtc::decode90_config(head_dim);
    let buffers = kslots + lag + 1;
    buffers * 64 * head_dim * 2 + 2 * 4 * 16 * 4 + buffers * 8
}

/// Must match the layout in kernels/decode.cu: K and V stages (`stages` deep) of `bn`-key
/// tiles, Q, the P ring, the row-max exchange and the m ring.
pub fn decode_smem(head_dim: usize, rows: usize, stages: usize, bn: usize) -> usize {
    let rows_pad = rows.div_ceil(16) * 16;
    let tile = bn * head_dim * 2;
    2 * stages * tile
        + rows_pad * head_dim * 2
        + (stages + 1) * rows_pad * bn * 2
        + 8 * 64 * 4
        + (stages + 1) * 64 * 4
}

/// What one CTA of the portable decode kernel takes of a multiprocessor's shared memory: its
/// dynamic shared memory (`decode_smem`), its static bytes and the driver's reserve per CTA.
pub(crate) fn decode_cta_smem(head_dim: usize, rows: usize, stages: usize, bn: usize) -> usize {
    decode_smem(head_dim, rows, stages, bn) + DECODE_STATIC_SMEM + RESERVED_SMEM_PER_CTA
}

/// A call whose kernel needs more shared memory per block than this GPU allows (sm_80: 163 KB;
/// sm_86 and sm_89: 99 KB) is refused with a message, before anything is set up or launched.
fn check_smem(max_smem: usize, smem: usize, d: &Desc) -> Result<()> {
    if smem > max_smem {
        return Err(crate::unsupported!(
            "this call (head_dim = {}, {} query rows per tile) needs {smem} bytes of shared memory per block; this GPU allows {max_smem}",
            d.head_dim,
            d.plan.block_m,
        ));
    }
    Ok(())
}

/// Launches one kernel on `stream`; `params` is its one by-value parameter struct
/// (`KernelParams`, or `MergeParams` for `merge_states`). With `pdl` (compute capability 9.0
/// and newer) the launch allows programmatic stream serialisation: the kernel may be scheduled
/// while the previous kernel of the stream is still finishing, and every kernel of
/// `launch_call` begins with `pdl_wait()` (kernels/common.cuh), which blocks until that kernel
/// has completed and its writes are visible. So only launch latency overlaps, never memory
/// access, and the caller's preceding work needs nothing special. `cluster_y` > 1 groups that
/// many CTAs along y into a thread-block cluster (compute capability 9.0+).
fn launch<P>(
    f: Func,
    grid: (u32, u32, u32),
    block: u32,
    smem: usize,
    stream: cu::CUstream,
    pdl: bool,
    cluster_y: u32,
    params: &P,
    v: &Variant,
) -> Result<()> {
    let mut arg = params as *const P as *mut c_void;
    let mut attrs = launch_attrs(pdl, cluster_y);
    let config = launch_config(grid, block, smem, stream, &mut attrs);
    // SAFETY: `config` and `attrs` outlive the call; the kernel takes one `P` by value.
    let r = unsafe { cu::cuLaunchKernelEx(&config, f.0, &mut arg, std::ptr::null_mut()) };
    check_with(r, || {
        format!("launch of {} grid {grid:?} cluster y {cluster_y}", v.name())
    })
}

/// The most sequences one launch takes: the kernels take them on the grid's z dimension, which
/// the hardware caps at 65535.
const MAX_GRID_Z: u32 = 65535;

/// Runs `launch_one` (a `launch` of an attention kernel whose grid z dimension is the call's
/// sequences, `grid.2` of them) once per 65535 sequences, with `batch0` set to each launch's
/// first sequence. A call is several launches only for more than 65535 sequences (many short
/// ragged sequences, e.g. an embedding batch); they run in stream order, each waiting for the
/// previous one (PDL). Such a decode call has one KV split (the plan sizes splits to one wave of
/// work units, and 65536 sequences are more than a wave): its split-KV launches (cluster merge,
/// workspace + merge kernel) take `launch_seqs` too, for one rule everywhere, but only the
/// one-split launch has run with more than 65535 sequences (GPU test
/// `more_sequences_than_one_grid_holds`).
fn launch_seqs(
    grid: (u32, u32, u32),
    kp: &KernelParams,
    mut launch_one: impl FnMut((u32, u32, u32), &KernelParams) -> Result<()>,
) -> Result<()> {
    let mut part = *kp;
    for (z0, n) in seq_chunks(grid.2) {
        part.batch0 = z0 as i32;
        launch_one((grid.0, grid.1, n), &part)?;
    }
    Ok(())
}

/// (first sequence, sequences) of each launch of `launch_seqs` for `n` sequences.
fn seq_chunks(n: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..n)
        .step_by(MAX_GRID_Z as usize)
        .map(move |z0| (z0, (n - z0).min(MAX_GRID_Z)))
}

/// A launch configuration of 1-D blocks; `attrs` (from `launch_attrs`) must outlive it.
fn launch_config(
    grid: (u32, u32, u32),
    block: u32,
    smem: usize,
    stream: cu::CUstream,
    attrs: &mut ([cu::CUlaunchAttribute; 2], u32),
) -> cu::CUlaunchConfig {
    cu::CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: grid.2,
        blockDimX: block,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: smem as u32,
        hStream: stream,
        attrs: attrs.0.as_mut_ptr(),
        numAttrs: attrs.1,
    }
}

/// The launch attributes of `launch` (the array and how many of it are set).
fn launch_attrs(pdl: bool, cluster_y: u32) -> ([cu::CUlaunchAttribute; 2], u32) {
    // SAFETY: zero is a valid bit pattern for these plain C structs; the values are set below.
    let mut attrs: [cu::CUlaunchAttribute; 2] = unsafe { std::mem::zeroed() };
    let mut n = 0;
    if pdl {
        attrs[n].id =
            cu::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attrs[n].value.programmaticStreamSerializationAllowed = 1;
        n += 1;
    }
    if cluster_y > 1 {
        attrs[n].id = cu::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = 1;
        attrs[n].value.clusterDim.y = cluster_y;
        attrs[n].value.clusterDim.z = 1;
        n += 1;
    }
    (attrs, n as u32)
}

/// How many clusters of `cluster_y` CTAs of `f` (`block` threads, `smem` bytes each) can be
/// resident at once on this GPU (0 if none: a MIG slice or another partition may hold none);
/// asked once per (context, kernel, cluster size). A call launches its splits as clusters only when all
/// its clusters fit in one wave: the GPCs' sizes leave fewer cluster slots than CTA slots (on the
/// H200, 62 clusters of 4 decode CTAs = 248 CTAs, against 264 CTAs without clusters).
fn cluster_capacity(
    ctx: &Ctx,
    f: Func,
    v: &Variant,
    block: u32,
    smem: usize,
    cluster_y: u32,
) -> usize {
    // Keyed by the context's ID and the function handle (no allocation per call): a handle is
    // unique within a context, and a context ID is never reused.
    static CACHE: LazyLock<OnceMap<(u64, usize, u32), usize>> = LazyLock::new(Default::default);
    let ask = || {
        let mut attrs = launch_attrs(false, cluster_y);
        let config = launch_config(
            (1, cluster_y, 1),
            block,
            smem,
            std::ptr::null_mut(),
            &mut attrs,
        );
        let mut clusters = 0;
        // SAFETY: an occupancy query on a loaded function with a well-formed configuration.
        let r = unsafe { cu::cuOccupancyMaxActiveClusters(&mut clusters, f.0, &config) };
        let n = if r == cu::CUresult::CUDA_SUCCESS {
            clusters.max(0) as usize
        } else {
            0
        };
        crate::log::debug(&format!(
            "{}: clusters of {cluster_y} CTAs: {n} resident at once ({r:?})",
            v.name()
        ));
        Ok::<usize, ()>(n)
    };
    CACHE
        .get_or_try_make(&(ctx.id, f.0 as usize, cluster_y), ask)
        .unwrap_or(0)
}

/// A calibration sweep request: candidate thresholds and device counters.
pub struct Sweep<'a> {
    pub lambdas: &'a [f32],
    pub skipped: *mut u64,
    pub visited: *mut u64,
}

/// # Safety
/// As `attn::run`, with every pointer in device memory of the current context.
pub unsafe fn run(p: &AttnParams, d: &Desc, stream: *mut c_void) -> Result<()> {
    unsafe { launch_call(p, d, stream, None) }
}

/// The calibration sweep on the GPU: one launch (plus the split merge) of the sweep
/// specialisation; counters are device memory and are added to. `d` is dense (factor 0).
///
/// # Safety
/// As `run`; `skipped` holds `lambdas.len()` counters and `visited` one, on the device.
pub(crate) unsafe fn sweep(p: &AttnParams, d: &Desc, stream: *mut c_void, sw: Sweep) -> Result<()> {
    debug_assert_eq!(d.factor, 0.0);
    unsafe { launch_call(p, d, stream, Some(sw)) }
}

unsafe fn launch_call(
    p: &AttnParams,
    d: &Desc,
    stream: *mut c_void,
    sweep: Option<Sweep>,
) -> Result<()> {
    probe()?;
    let stream = stream as cu::CUstream;
    let ctx = unsafe { call_ctx(stream)? };
    unsafe { launch_in(&ctx, p, d, stream, sweep) }.map_err(|e| stream_mismatch(e, &ctx, stream))
}

unsafe fn launch_in(
    ctx: &Ctx,
    p: &AttnParams,
    d: &Desc,
    stream: cu::CUstream,
    sweep: Option<Sweep>,
) -> Result<()> {
    for (name, ptr) in [
        ("q", p.q as usize),
        ("k", p.k as usize),
        ("v", p.v as usize),
        ("o", p.o as usize),
        ("lse", p.lse as usize),
        ("skip_stats", p.skip_stats as usize),
        ("cu_seqlens_q", p.cu_seqlens_q as usize),
        ("cu_seqlens_kv", p.cu_seqlens_kv as usize),
        ("seqused_kv", p.seqused_kv as usize),
        ("block_table", p.block_table as usize),
        ("workspace", p.workspace as usize),
        (
            "skipped",
            sweep.as_ref().map_or(0, |sw| sw.skipped as usize),
        ),
        (
            "visited",
            sweep.as_ref().map_or(0, |sw| sw.visited as usize),
        ),
    ] {
        device_ptr(ctx, name, ptr)?;
    }
    let phase = Phase::try_from(d.plan.phase)?;
    let skip = d.factor > 0.0;
    let bf16 = d.dtype == DType::BF16;
    let mut kp = KernelParams {
        q: p.q as u64,
        k: p.k as u64,
        v: p.v as u64,
        o: p.o as u64,
        lse: p.lse as u64,
        stats: p.skip_stats as u64,
        ws_o: 0,
        ws_lse: 0,
        strides: [
            p.q_batch_stride,
            p.q_row_stride,
            p.q_head_stride,
            p.k_batch_stride,
            p.k_row_stride,
            p.k_head_stride,
            p.v_batch_stride,
            p.v_row_stride,
            p.v_head_stride,
            p.o_batch_stride,
            p.o_row_stride,
            p.o_head_stride,
        ],
        cu_q: p.cu_seqlens_q as u64,
        cu_kv: p.cu_seqlens_kv as u64,
        seqused: p.seqused_kv as u64,
        block_table: p.block_table as u64,
        block_table_stride: p.block_table_stride,
        page_size_log2: d
            .paged
            .map(|pg| pg.page_size.trailing_zeros() as i32)
            .unwrap_or(0),
        batch: d.batch as i32,
        hq: d.hq as i32,
        hkv: d.hkv as i32,
        group: d.group as i32,
        max_lq: d.max_lq as i32,
        max_lk: d.max_lk as i32,
        causal: d.causal as i32,
        scale_log2: d.scale * std::f32::consts::LOG2_E,
        scale: d.scale,
        log2_lambda: if skip {
            ((d.factor as f64) / (d.max_lk as f64)).log2() as f32
        } else {
            f32::NEG_INFINITY
        },
        num_splits: d.plan.num_kv_splits as i32,
        block_m: d.plan.block_m as i32,
        log2_lambdas: [0.0; 32],
        num_lambdas: 0,
        cluster_merge: 0,
        sweep_skipped: 0,
        sweep_visited: 0,
        tma: 0,
        batch0: 0,
        tmaps: [cu::CUtensorMap { opaque: [0; 16] }; 3],
    };
    if let Some(sw) = &sweep {
        for (dst, l) in kp.log2_lambdas.iter_mut().zip(sw.lambdas) {
            *dst = l.log2();
        }
        kp.num_lambdas = sw.lambdas.len() as i32;
        kp.sweep_skipped = sw.skipped as u64;
        kp.sweep_visited = sw.visited as u64;
    }
    let is_sweep = sweep.is_some();
    // The kernels' head dim (a smaller multiple of 8 runs zero-padded to it: `gpu_kernel_dim`).
    let kd = d.kernel_dim();
    let variant = |family| {
        let mode = [skip, is_sweep && family != Family::Merge, d.paged.is_some()];
        let dims = [kd as u32, d.head_dim as u32];
        Variant::new(family, bf16, dims, mode, ctx.shape.smem_per_sm)
            // Pages smaller than a decode tile (16 or 32 keys: a tile spans 4 or 2 pages) take
            // the Hopper decode kernel's small-page specialisation, and the d = 128 Hopper
            // prefill kernel's (its dense kernel under 32 keys only: `Variant::with_small_pages`).
            .with_small_pages(d.paged.as_ref().map(|pg| pg.page_size))
    };
    match phase {
        Phase::Prefill => {
            let (v, smem, threads, rows) = if use_sm90_prefill(&ctx.arch) {
                (
                    variant(Family::PrefillSm90),
                    prefill_sm90_smem(kd),
                    prefill_sm90_threads(kd, d.paged.is_some()),
                    prefill90_rows(kd),
                )
            } else {
                let v = variant(Family::Prefill);
                let compact = v.compact;
                (
                    v,
                    prefill_smem(kd, compact),
                    prefill_threads(kd, compact),
                    prefill_rows(compact),
                )
            };
            check_smem(ctx.max_smem, smem, d)?;
            if v.family == Family::PrefillSm90
                && prefill_tma_enabled()
                && let Some(maps) = tensor_maps(p, d)
            {
                kp.tma = 1;
                kp.tmaps = maps;
            }
            let f = function(ctx, &v, smem)?;
            // Query rows per CTA: the portable kernel 128, the Hopper one 128 or 192.
            let grid = (d.max_lq.div_ceil(rows) as u32, d.hq as u32, d.batch as u32);
            launch_seqs(grid, &kp, |g, k| {
                launch(f, g, threads, smem, stream, ctx.pdl, 1, k, &v)
            })
        }
        Phase::Decode => {
            let splits = d.plan.num_kv_splits as usize;
            // Several row tiles at d = 128 on Hopper: the row-tile warps kernel, whose plan has
            // 8-row tiles (the plan and the launch both ask `decode_warps`).
            let warps = crate::attn::plan::decode_warps(d);
            if warps && d.plan.block_m as usize != crate::attn::plan::DECODE_WARPS_BLOCK_M {
                return Err(Error::Unsupported(format!(
                    "decode plan of {}-row tiles for the row-tile warps kernel, which runs tiles of {} (BLASST_DECODE_WARPS changed during the call?)",
                    d.plan.block_m,
                    crate::attn::plan::DECODE_WARPS_BLOCK_M
                )));
            }
            let k = if warps {
                decode_warps_kernel(kd)
            } else {
                decode_kernel(&ctx.shape, d.plan.block_m, kd)
            };
            if k.bn != d.plan.block_n {
                return Err(Error::Unsupported(format!(
                    "decode plan of {}-key tiles for a kernel of {}-key tiles (BLASST_DECODE_KERNEL changed during the call?)",
                    d.plan.block_n, k.bn
                )));
            }
            let sm90 = matches!(k.family, Family::DecodeSm90 | Family::DecodeWarps);
            let row_tiles = (d.max_lq * d.group).div_ceil(d.plan.block_m as usize);
            let v = variant(k.family);
            // The kernel the launch is sized for is the one compiled (both from this GPU's
            // shared memory).
            debug_assert!(
                v.stages == k.stages && (k.stages == 0 || v.ctas as usize == k.bounds),
                "{v:?}: {} stages, bounds {}",
                k.stages,
                k.bounds
            );
            let (smem, max_smem, threads) = (k.smem, k.max_smem, k.threads);
            let grid = if warps {
                // kernels/decode_warps_sm90.cu: a CTA per KV head and group of four row tiles.
                (
                    (d.hkv * crate::attn::plan::decode_warps_groups(row_tiles)) as u32,
                    splits as u32,
                    d.batch as u32,
                )
            } else if sm90 {
                // kernels/decode_sm90.cu: the KV heads (and their row tiles) of one split are
                // neighbouring CTAs.
                ((d.hkv * row_tiles) as u32, splits as u32, d.batch as u32)
            } else {
                // kernels/decode.cu: the row tiles of one KV head are neighbouring CTAs.
                (splits as u32, (d.hkv * row_tiles) as u32, d.batch as u32)
            };
            // The portable kernel's shared memory grows with its tile's packed rows (at d = 256
            // and more than 32 rows it exceeds the 163 KB an sm_80 block may use; the plan then
            // cuts the rows into tiles that fit: `portable_decode_block_m`): the function is set
            // up for the most this GPU allows, and a call that still needs more is refused (none
            // the default plan makes: `decode_fits`).
            check_smem(ctx.max_smem, smem, d)?;
            let f = function(ctx, &v, max_smem.min(ctx.max_smem))?;
            // The decode kernel's launches (`cluster` CTAs per cluster, 1: none), one per 65535
            // sequences.
            let run_decode = |kp: &KernelParams, cluster: u32| {
                launch_seqs(grid, kp, |g, k| {
                    launch(f, g, threads, smem, stream, ctx.pdl, cluster, k, &v)
                })
            };
            if splits == 1 {
                return run_decode(&kp, 1);
            }
            let rows = d.batch * d.max_lq * d.hq;
            let need = rows * splits * (kd + 1) * 4;
            // A workspace passed is checked on every path, so that a call valid on one GPU is
            // valid on all.
            if !p.workspace.is_null() && p.workspace_size < need {
                return Err(invalid!(
                    "workspace_size = {} is smaller than the {need} bytes this call needs (blasst_attn_workspace_size)",
                    p.workspace_size
                ));
            }
            if sm90
                && !warps
                && ctx.clusters
                && splits <= MAX_CLUSTER_MERGE_SPLITS
                && grid.0 as usize * grid.2 as usize
                    <= cluster_capacity(ctx, f, &v, threads, smem, splits as u32)
            {
                // The splits of each (sequence, KV head) are one cluster and merge in it
                // (kernels/decode_sm90.cu, cluster_merge_splits): no workspace, no merge kernel.
                kp.cluster_merge = 1;
                return run_decode(&kp, splits as u32);
            }
            let (ws, owned) = if p.workspace.is_null() {
                let mut ptr: cu::CUdeviceptr = 0;
                check_with(
                    unsafe { cu::cuMemAllocAsync(&mut ptr, need, stream) },
                    || format!("cuMemAllocAsync({need} bytes of workspace)"),
                )?;
                (ptr, true)
            } else {
                (p.workspace as u64, false)
            };
            kp.ws_o = ws;
            kp.ws_lse = ws + (rows * splits * kd * 4) as u64;
            let merge = variant(Family::Merge);
            let result = run_decode(&kp, 1).and_then(|_| {
                let fm = function(ctx, &merge, 0)?;
                let mgrid = (d.max_lq as u32, d.hq as u32, d.batch as u32);
                // kernels/merge.cu: HEAD_DIM threads
                launch_seqs(mgrid, &kp, |g, k| {
                    launch(fm, g, kd as u32, 0, stream, ctx.pdl, 1, k, &merge)
                })
            });
            if owned {
                let r = unsafe { cu::cuMemFreeAsync(ws, stream) };
                result?;
                return check(r, "cuMemFreeAsync(workspace)");
            }
            result
        }
    }
}

/// Device memory owned by blasst itself (tests, demo, benchmarks): allocated in the current
/// context, freed on drop. Host-provided pointers are never wrapped in this.
pub struct DeviceBuffer {
    ptr: cu::CUdeviceptr,
    bytes: usize,
}

impl DeviceBuffer {
    pub fn new(bytes: usize) -> Result<Self> {
        probe()?;
        current_ctx()?;
        let mut ptr = 0;
        check(
            unsafe { cu::cuMemAlloc_v2(&mut ptr, bytes.max(1)) },
            &format!("cuMemAlloc({bytes})"),
        )?;
        check(
            unsafe { cu::cuMemsetD8_v2(ptr, 0, bytes.max(1)) },
            "cuMemsetD8",
        )?;
        Ok(DeviceBuffer { ptr, bytes })
    }

    pub fn from_slice<T: Copy>(data: &[T]) -> Result<Self> {
        let bytes = std::mem::size_of_val(data);
        let b = Self::new(bytes)?;
        check(
            unsafe { cu::cuMemcpyHtoD_v2(b.ptr, data.as_ptr() as *const c_void, bytes) },
            "cuMemcpyHtoD",
        )?;
        Ok(b)
    }

    /// Copies the buffer into `out` (synchronous).
    pub fn copy_to<T: Copy>(&self, out: &mut [T]) -> Result<()> {
        let bytes = std::mem::size_of_val(out).min(self.bytes);
        check(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize")?;
        check(
            unsafe { cu::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, self.ptr, bytes) },
            "cuMemcpyDtoH",
        )
    }

    pub fn ptr(&self) -> *mut c_void {
        self.ptr as *mut c_void
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe { cu::cuMemFree_v2(self.ptr) };
    }
}

/// Waits for all work of the current context (tools and tests only; the library never does).
pub fn synchronize() -> Result<()> {
    check(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize")
}

/// Must match `struct MergeParams` in kernels/merge_states.cu.
#[repr(C)]
struct MergeParams {
    v: u64,
    s: u64,
    out: u64,
    s_out: u64,
    num_states: i32,
    num_rows: i32,
    num_heads: i32,
    pad_: i32,
}

/// `blasst_merge_states` on the GPU (stacked layout, see the C documentation), on `stream`.
///
/// # Safety
/// Device pointers of the sizes the counts describe.
pub unsafe fn merge_states(
    bf16: bool,
    v: *const c_void,
    s: *const f32,
    num_states: usize,
    num_rows: usize,
    num_heads: usize,
    head_dim: usize,
    out: *mut c_void,
    s_out: *mut f32,
    stream: *mut c_void,
) -> Result<()> {
    // Alignment first (pure arithmetic, so a machine without a GPU answers it too): the kernel
    // reads v and s as 2- and 4-byte elements and stores v_out in pairs (4 bytes) and s_out as
    // floats; a misaligned one would fault in the kernel, a sticky error for the host's context.
    // (s and s_out were not checked before session 49.)
    for (name, ptr) in [
        ("v", v as usize),
        ("s", s as usize),
        ("v_out", out as usize),
        ("s_out", s_out as usize),
    ] {
        crate::attn::check_ptr_aligned(name, ptr, 4)?;
    }
    probe()?;
    // A head dim below a kernel's runs on it with the columns past head_dim left alone.
    let kd = crate::attn::require_gpu_head_dim(head_dim)?;
    if num_rows > u32::MAX as usize || num_heads > 65535 || num_states > i32::MAX as usize {
        return Err(invalid!(
            "num_rows / num_heads / num_states too large for one launch"
        ));
    }
    let stream = stream as cu::CUstream;
    let ctx = unsafe { call_ctx(stream)? };
    for (name, ptr) in [
        ("v", v as usize),
        ("s", s as usize),
        ("v_out", out as usize),
        ("s_out", s_out as usize),
    ] {
        device_ptr(&ctx, name, ptr)?;
    }
    let dims = [kd as u32, head_dim as u32];
    let var = Variant::new(
        Family::MergeStates,
        bf16,
        dims,
        [false; 3],
        ctx.shape.smem_per_sm,
    );
    let f = function(&ctx, &var, 0)?;
    let mp = MergeParams {
        v: v as u64,
        s: s as u64,
        out: out as u64,
        s_out: s_out as u64,
        num_states: num_states as i32,
        num_rows: num_rows as i32,
        num_heads: num_heads as i32,
        pad_: 0,
    };
    // No PDL: kernels/merge_states.cu does not wait for the previous kernel of the stream.
    launch(
        f,
        (num_rows as u32, num_heads as u32, 1),
        kd as u32,
        0,
        stream,
        false,
        1,
        &mp,
        &var,
    )
    .map_err(|e| stream_mismatch(e, &ctx, stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_beyond_the_grid_limit_are_split_into_launches() {
        let chunks = |n| seq_chunks(n).collect::<Vec<_>>();
        assert_eq!(chunks(1), [(0, 1)]);
        assert_eq!(chunks(65535), [(0, 65535)]);
        assert_eq!(chunks(65536), [(0, 65535), (65535, 1)]);
        assert_eq!(
            chunks(200_000),
            [(0, 65535), (65535, 65535), (131070, 65535), (196605, 3395)]
        );
    }

    /// A zero stride becomes a tensor map only where its dimension is one: K heads that share
    /// memory (stride 0, allowed for inputs) keep the cp.async copies, which read them as given.
    #[test]
    fn tensor_map_strides_take_zero_only_for_a_dimension_of_one() {
        let dims = [128, 8, 4096, 1];
        assert_eq!(tma_strides(&dims, [256, 2048, 0]), Some([256, 2048, 16]));
        assert_eq!(
            tma_strides(&dims, [256, 2048, 1 << 24]),
            Some([256, 2048, 1 << 24])
        );
        assert_eq!(tma_strides(&dims, [0, 2048, 0]), None);
        assert_eq!(tma_strides(&[128, 8, 4096, 2], [256, 2048, 0]), None);
        assert_eq!(
            tma_strides(&[128, 1, 4096, 1], [0, 256, 0]),
            Some([16, 256, 16])
        );
    }

    /// What the prefill kernel's tensor maps describe (the driver call aside): padded batches as
    /// (head dim, heads, rows, batch); ragged ones as one batch of batch x max rows; a paged
    /// cache as (head dim, heads, page rows, pages), its page extent the call's `num_pages` or
    /// `i32::MAX` when that is 0, boxes of min(page size, 64) rows; byte strides of bf16/fp16;
    /// a negative stride gets no map.
    #[test]
    fn tensor_map_geometry_per_row_layout() {
        // [batch, row, head] element strides of a [batch][rows][heads][128] tensor, 4096 rows, 8 heads.
        let st = [4096 * 8 * 128, 8 * 128, 128];
        let g = map_geometry(128, 2, st, 8, 4096, MapRows::Padded, 64).unwrap();
        assert_eq!(g.dims, [128, 8, 4096, 2]);
        assert_eq!(g.strides, [256, 2048, 2 * 4096 * 8 * 128]);
        assert_eq!(g.boxes, [64, 1, 64, 1]);

        let g = map_geometry(128, 3, [0, 8 * 128, 128], 8, 1000, MapRows::Ragged, 128).unwrap();
        assert_eq!(g.dims, [128, 8, 3000, 1]);
        assert_eq!(g.strides, [256, 2048, 2048]);
        assert_eq!(g.boxes, [64, 1, 128, 1]);

        // A pool of [pages][16 rows][8 heads][64].
        let pst = [16 * 8 * 64, 8 * 64, 64];
        for (num_pages, extent) in [(100, 100), (0, i32::MAX as u64)] {
            let pg = crate::attn::Paged {
                page_size: 16,
                table_stride: 8,
                num_pages,
            };
            let (rows, box_rows) = kv_map_rows(Some(&pg), false);
            assert_eq!((rows, box_rows), (MapRows::Paged(&pg), 16));
            let g = map_geometry(64, 4, pst, 8, 4096, rows, box_rows).unwrap();
            assert_eq!(g.dims, [64, 8, 16, extent]);
            assert_eq!(g.strides, [128, 1024, 2 * 16 * 8 * 64]);
            assert_eq!(g.boxes, [64, 1, 16, 1]);
        }
        let big = crate::attn::Paged {
            page_size: 256,
            table_stride: 1,
            num_pages: 7,
        };
        assert_eq!(kv_map_rows(Some(&big), true).1, 64);
        assert_eq!(kv_map_rows(None, true), (MapRows::Ragged, 64));
        assert_eq!(kv_map_rows(None, false), (MapRows::Padded, 64));

        assert_eq!(
            map_geometry(128, 2, [st[0], -1024, 128], 8, 4096, MapRows::Padded, 64),
            None
        );
        // Heads sharing memory (stride 0 over 8 heads): no map.
        assert_eq!(
            map_geometry(128, 2, [st[0], st[1], 0], 8, 4096, MapRows::Padded, 64),
            None
        );
    }

    /// d = 256 decode at 64 packed rows needs more shared memory than an sm_80 block may use
    /// (163 KB): refused with BLASST_ERROR_UNSUPPORTED and a message naming the head dim, the
    /// rows and both byte counts; 32 rows fit, and everything fits the H200's 227 KB.
    #[test]
    fn calls_needing_more_shared_memory_than_the_gpu_allows_are_refused() {
        const SM80: usize = 163 * 1024;
        const SM90: usize = 227 * 1024;
        // 2 tokens x GQA 32 = 64 packed rows.
        let mut d = crate::attn::test_desc(1, 32, 1, 2, 4096);
        d.head_dim = 256;
        d.plan.block_m = 64; // the portable kernel's one tile (an sm_80 GPU's plan)
        let need = decode_smem(256, 64, 2, 64);
        let e = check_smem(SM80, need, &d).unwrap_err();
        assert_eq!(e.kind(), crate::StatusKind::Unsupported);
        let msg = e.message();
        assert!(
            msg.contains("head_dim = 256")
                && msg.contains(&need.to_string())
                && msg.contains(&SM80.to_string()),
            "{msg}"
        );
        d.plan.block_m = 32;
        assert!(check_smem(SM80, decode_smem(256, 32, 2, 64), &d).is_ok());
        for hd in [64, 128, 256] {
            let stages = nvrtc::decode_stages(hd, SM90 + 1024);
            assert!(check_smem(SM90, decode_smem(hd, 64, stages, 64), &d).is_ok());
            assert!(check_smem(SM90, prefill_smem(hd, false), &d).is_ok());
        }
    }

    /// Every kernel's dynamic shared memory plus its few static bytes (mbarriers, vote and
    /// count scratch, the sweep's per-warp counters: < 2 KB) must fit the 227 KB a CTA may use
    /// on sm_90 (the Hopper decode kernel runs 3 / 2 / 1 CTAs per SM at d = 64 / 128 / 256). The portable
    /// kernels also fit sm_80's 163 KB, except decode at d = 256 with tiles of more than 32 packed
    /// rows (which the plan does not make there: `portable_row_tiles_fit_the_gpu`).
    #[test]
    fn shared_memory_fits_one_cta() {
        const SM90_MAX_SMEM_PER_CTA: usize = 227 * 1024;
        const SM80_MAX_SMEM_PER_CTA: usize = 163 * 1024;
        for d in [64, 128, 256] {
            assert!(
                prefill_sm90_smem(d) + 2048 <= SM90_MAX_SMEM_PER_CTA,
                "prefill90 d = {d}"
            );
            assert!(
                decode90_smem(d) + 2048 <= SM90_MAX_SMEM_PER_CTA,
                "decode90 d = {d}"
            );
            // On an H100/H200 the Hopper decode kernel's shared memory holds as many CTAs per
            // SM as its launch bounds (3 at d = 64, 2 at d = 128, 1 at d = 256): the decode
            // plan's wave is what runs.
            for rows in [1, 8, nvrtc::decode90_max_rows(d)] {
                assert_eq!(
                    decode_ctas_per_sm(&GpuShape::nominal(), d, rows),
                    nvrtc::decode90_ctas_per_sm(d),
                    "decode90 d = {d}, {rows} rows"
                );
            }
            assert!(
                prefill_smem(d, false) + 2048 <= SM80_MAX_SMEM_PER_CTA,
                "prefill d = {d}"
            );
            let rows = if d <= 128 { 64 } else { 32 };
            let stages = nvrtc::decode_stages(d, SM80_MAX_SMEM_PER_CTA + 1024);
            assert!(
                decode_smem(d, rows, stages, 64) + 2048 <= SM80_MAX_SMEM_PER_CTA,
                "decode d = {d}, {rows} rows, sm_80"
            );
            let stages = nvrtc::decode_stages(d, SM90_MAX_SMEM_PER_CTA + 1024);
            assert!(
                decode_smem(d, 64, stages, 64) + 2048 <= SM90_MAX_SMEM_PER_CTA,
                "decode d = {d}"
            );
        }
    }

    /// The portable decode kernel's launch bounds never hold fewer CTAs per SM than its shared
    /// memory would on an H100/H200 (228 KB), an A100 (164 KB) or an RTX/L40S-class GPU (100 KB)
    /// at any row count (a lower bound would cost occupancy), nor more than one query row's
    /// shared memory holds (a higher one only caps registers: it spilled at d = 256 until
    /// session 31). On the H100/H200: 2 at d <= 128, 1 at d = 256.
    #[test]
    fn portable_decode_bounds_match_its_shared_memory() {
        let fit = |smem_per_sm: usize, d: usize, rows: usize| {
            smem_per_sm
                / decode_cta_smem(
                    d,
                    rows,
                    nvrtc::decode_stages(d, smem_per_sm),
                    nvrtc::decode_block_n(d, smem_per_sm),
                )
        };
        for d in [64, 128, 256] {
            for smem_per_sm in [228 * 1024, 164 * 1024, 100 * 1024] {
                let bound =
                    nvrtc::decode_ctas_bound(d, smem_per_sm, nvrtc::decode_stages(d, smem_per_sm));
                for rows in 1..=64 {
                    assert!(
                        fit(smem_per_sm, d, rows) <= bound,
                        "d = {d}, {rows} rows, {smem_per_sm} bytes per SM: {} CTAs fit, bounds {bound}",
                        fit(smem_per_sm, d, rows)
                    );
                }
                // Nor more than one query row's shared memory holds (a bound above it would
                // only cap the registers).
                assert!(
                    bound <= fit(smem_per_sm, d, 1).max(1),
                    "d = {d}, {smem_per_sm}"
                );
            }
            // On an H100/H200: two CTAs at d <= 128 (the kernel's tuned occupancy), one at 256.
            assert_eq!(
                nvrtc::decode_ctas_bound(d, 228 * 1024, nvrtc::decode_stages(d, 228 * 1024)),
                if d <= 128 { 2 } else { 1 },
                "d = {d}"
            );
        }
    }

    /// The portable decode kernel's row tiles (`portable_decode_block_m`): all packed rows where
    /// they fit one CTA, else the fewest equal tiles (multiples of 16) that fit; the plan's
    /// tiles then cover every row. An H100/H200 running the portable kernel keeps one tile of up
    /// to 64 rows; an A100 cuts d = 256 beyond 32 rows (48 and 64 rows: two tiles of 32); a GPU of
    /// 100 KB cuts d = 128 beyond 48 rows (64: two of 32) and keeps d = 64 whole, and runs d = 256
    /// on 32-key tiles (`nvrtc::decode_block_n`), whole up to 32 rows (64: two of 32).
    #[test]
    fn portable_row_tiles_fit_the_gpu() {
        let gpu = |kb: usize| GpuShape {
            sms: 100,
            sm90a: false,
            smem_per_sm: kb * 1024,
        };
        // (KB per SM, head dim, packed rows, tile)
        for (kb, hd, rows, tile) in [
            (228, 64, 64, 64),
            (228, 128, 64, 64),
            (228, 256, 64, 64),
            (164, 256, 32, 32),
            (164, 256, 33, 32),
            (164, 256, 48, 32),
            (164, 256, 64, 32),
            (164, 128, 64, 64),
            (100, 64, 64, 64),
            (100, 128, 48, 48),
            (100, 128, 49, 32),
            (100, 128, 64, 32),
            (100, 128, 8, 8),
            (100, 256, 8, 8),
            (100, 256, 32, 32),
            (100, 256, 33, 32),
            (100, 256, 64, 32),
        ] {
            let g = gpu(kb);
            let m = decode_block_m(&g, hd, rows);
            assert_eq!(m, tile, "{kb} KB, d = {hd}, {rows} rows");
            let stages = nvrtc::decode_stages(hd, g.smem_per_sm);
            let bn = nvrtc::decode_block_n(hd, g.smem_per_sm);
            assert_eq!(bn, if kb == 100 && hd == 256 { 32 } else { 64 });
            // What the plan makes fits.
            assert!(
                decode_cta_smem(hd, m, stages, bn) <= g.smem_per_sm,
                "{kb} KB, d = {hd}, {rows} rows"
            );
            // No fewer tiles would fit.
            let tiles = rows.div_ceil(m);
            if tiles > 1 {
                let fewer = rows.div_ceil(tiles - 1).div_ceil(16) * 16;
                assert!(
                    decode_cta_smem(hd, fewer.min(rows), stages, bn) > g.smem_per_sm,
                    "{kb} KB, d = {hd}, {rows} rows: {} tiles of {fewer} would fit",
                    tiles - 1
                );
            }
        }
    }

    /// Decode on GPUs of 100 KB per multiprocessor (compute capability 8.6, 8.9, 12.x: RTX 30/40/50,
    /// A10, L4, L40S): the portable kernel's pipeline is made shallower (2 stages) so that calls
    /// of up to 48 packed rows at d = 128 and 64 at d = 64 fit the 99 KB a block may use (with
    /// the tuned 3 stages at d = 128 not even one row did), two CTAs per SM at d = 64 and one at
    /// d = 128; a tile of d = 128 beyond 48 rows does not fit there (the plan cuts more rows into
    /// tiles that fit: `portable_row_tiles_fit_the_gpu`), and d = 256 runs on 32-key tiles, up to
    /// 32 rows per tile (`nvrtc::decode_block_n`). An A100
    /// (164 KB) gets 4 / 2 / 2 stages, which keep two CTAs per SM at d <= 128; the H100/H200 keep
    /// the tuned 5 / 3 / 2; `arch_smem_per_sm` gives each NVRTC target its GPUs' size.
    #[test]
    fn decode_fits_gpus_of_less_shared_memory() {
        const SM86: usize = 100 * 1024;
        let small = GpuShape {
            sms: 142,
            sm90a: false,
            smem_per_sm: SM86,
        };
        let a100 = GpuShape {
            sms: 108,
            sm90a: false,
            smem_per_sm: 164 * 1024,
        };
        let mut d = crate::attn::test_desc(1, 32, 8, 1, 4096);
        for (hd, stages, max_rows, ctas) in [(64, 2, 64, 2), (128, 2, 48, 1), (256, 2, 32, 1)] {
            assert_eq!(nvrtc::decode_stages(hd, SM86), stages, "d = {hd}");
            assert_eq!(decode_fits(&small, hd), max_rows > 0, "d = {hd}");
            assert!(decode_fits(&a100, hd) && decode_fits(&GpuShape::nominal(), hd));
            d.head_dim = hd;
            for rows in 1..=64u32 {
                let k = decode_kernel(&small, rows, hd);
                assert_eq!(k.family, Family::Decode);
                assert_eq!(k.stages as usize, stages);
                d.plan.block_m = rows;
                let ok = check_smem(SM86 - RESERVED_SMEM_PER_CTA, k.smem, &d).is_ok();
                assert_eq!(
                    ok,
                    rows <= max_rows,
                    "d = {hd}, {rows} rows: {} bytes",
                    k.smem
                );
                if ok && rows <= 16 {
                    assert_eq!(
                        decode_ctas_per_sm(&small, hd, rows),
                        ctas,
                        "d = {hd}, {rows} rows"
                    );
                }
            }
        }
        for (hd, a100_stages, tuned) in [(64, 4, 5), (128, 2, 3), (256, 2, 2)] {
            assert_eq!(
                decode_kernel(&a100, 64, hd).stages as usize,
                a100_stages,
                "d = {hd}"
            );
            let two = if hd <= 128 { 2 } else { 1 };
            assert_eq!(decode_ctas_per_sm(&a100, hd, 4), two, "A100, d = {hd}");
            assert_eq!(nvrtc::decode_stages(hd, 228 * 1024), tuned, "d = {hd}");
            let h200_portable = GpuShape {
                sm90a: false,
                ..GpuShape::nominal()
            };
            assert_eq!(
                decode_ctas_per_sm(&h200_portable, hd, 4),
                two,
                "H200, d = {hd}"
            );
        }
        for (arch, kb) in [
            ("sm_80", 164),
            ("sm_86", 100),
            ("sm_87", 164),
            ("sm_89", 100),
            ("sm_90a", 228),
            ("sm_100a", 228),
            ("sm_120", 100),
            ("compute_90a", 228),
        ] {
            assert_eq!(nvrtc::arch_smem_per_sm(arch), kb * 1024, "{arch}");
        }
    }

    /// The portable prefill kernel's compact layout (64-row CTAs, one V buffer: 48 KB at
    /// d = 128) on the GPUs of 100 KB, where two of its CTAs fit (static bytes, reserve and all)
    /// and one of the usual 80 KB, and at d = 256, where one fits (96 KB) and none of the usual
    /// 160 KB; not where the usual layout already fits as many (d = 64 there, d = 256 on an
    /// A100, an H100/H200).
    #[test]
    fn prefill_compact_layout_where_it_fits_more_ctas() {
        const SM86: usize = 100 * 1024;
        assert_eq!(prefill_smem(128, true), 48 * 1024);
        assert_eq!(prefill_smem(128, false), 80 * 1024);
        assert_eq!(SM86 / prefill_cta_smem(128, true), 2);
        assert_eq!(SM86 / prefill_cta_smem(128, false), 1);
        assert!(prefill_smem(128, true) + 640 <= SM86 - RESERVED_SMEM_PER_CTA);
        // d = 256: 96 KB, within the 99 KB a block may have there.
        assert_eq!(prefill_smem(256, true), 96 * 1024);
        assert_eq!(SM86 / prefill_cta_smem(256, true), 1);
        assert_eq!(SM86 / prefill_cta_smem(256, false), 0);
        assert!(prefill_smem(256, true) + 640 <= SM86 - RESERVED_SMEM_PER_CTA);
        for (hd, smem, compact) in [
            (128, SM86, true),
            (64, SM86, false),
            (256, SM86, true),
            (256, 164 * 1024, false),
            (256, 228 * 1024, false),
            (128, 164 * 1024, false),
            (64, 164 * 1024, false),
            (128, 228 * 1024, false),
        ] {
            assert_eq!(
                nvrtc::prefill_compact(hd, smem),
                compact,
                "d = {hd}, {smem} bytes"
            );
        }
        assert_eq!((prefill_rows(true), prefill_threads(128, true)), (64, 128));
        assert_eq!(
            (prefill_rows(false), prefill_threads(256, false)),
            (128, 256)
        );
    }
}
