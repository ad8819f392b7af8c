//! An engine's threads call blasst at once, each on its own stream, from a cold start: the first
//! use of every kernel variant is compiled (NVRTC) and loaded while other threads compile
//! others and launch; and an engine may reset the device (`cudaDeviceReset`) between uses.
//! Its own test binary (tests/gpu.rs warms the process's caches), with its own disk cache
//! directory, so the compiles here are real. Run on the GPU machine (scripts/device-check.sh);
//! prints "skipped: no CUDA device" and passes elsewhere.

mod common;
use blasst::attn::{AttnParams, BLASST_DTYPE_F16};
use blasst::synth::Rng;
use common::*;
use cudarc::driver::sys as cu;
use half::{bf16, f16};
use std::sync::{Barrier, Mutex, OnceLock};

/// The tests of this binary reset the device or count cache files: one at a time, and all with
/// one fresh disk cache directory (set before the first compile).
fn setup() -> Option<std::sync::MutexGuard<'static, ()>> {
    static ONE: Mutex<()> = Mutex::new(());
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let guard = ONE.lock().unwrap_or_else(|e| e.into_inner());
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("blasst-threads-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        // SAFETY: set under the guard, before any thread of this binary compiles a kernel.
        unsafe { std::env::set_var("BLASST_CACHE_DIR", &d) };
        d
    });
    match blasst::cuda::probe() {
        Ok(()) => Some(guard),
        Err(e) => {
            println!("skipped: no CUDA device ({})", e.message());
            None
        }
    }
}

/// One call: its inputs, output type, threshold factor and a label.
struct Call {
    bt: Built,
    bf16: bool,
    factor: f32,
    label: String,
}
// SAFETY: a call's host data is only read by the threads; the pointers in its parameters are
// null (each run points a copy at its own device buffers).
unsafe impl Sync for Call {}

/// Calls of different kernel variants (prefill and decode; Hopper and portable layouts; bf16
/// and fp16; head dims 64, 128, 256; dense and Skip-Softmax; contiguous, ragged and paged), the
/// Skip-Softmax ones on inputs that skip tiles.
fn calls() -> Vec<Call> {
    let mut v = vec![];
    let shapes: [(usize, usize, usize, usize, usize, bool, Layout); 8] = [
        (1000, 1000, 8, 2, 128, false, Layout::Bshd),
        (700, 1500, 8, 8, 64, true, Layout::Bshd),
        (600, 900, 4, 2, 128, true, Layout::Paged(64)),
        (300, 800, 4, 1, 256, false, Layout::Bshd),
        (1, 9000, 32, 8, 128, false, Layout::Bshd),
        (1, 5000, 16, 2, 128, false, Layout::Paged(16)),
        (2, 3000, 16, 2, 64, true, Layout::Bshd),
        (1, 4000, 8, 8, 256, false, Layout::Bshd),
    ];
    for (i, &(lq, lk, hq, hkv, d, causal, layout)) in shapes.iter().enumerate() {
        for skip in [false, true] {
            let seed = i as u64;
            let bt = structured_case(
                (lq, lk, hq, hkv, d, causal, 0.2, layout),
                7 + seed,
                70 + seed,
            );
            let factor = if skip {
                ((-8.0f64).exp() * lk as f64) as f32
            } else {
                0.0
            };
            v.push(Call {
                label: format!(
                    "lq {lq} lk {lk} heads {hq}/{hkv} d {d} causal {causal} {layout:?} {}",
                    if skip { "skip" } else { "dense" }
                ),
                bt,
                bf16: true,
                factor,
            });
        }
    }
    // fp16, Gaussian inputs, ragged.
    let c = Case {
        hq: 8,
        hkv: 4,
        d: 128,
        lq: vec![200, 513],
        lk: vec![700, 513],
        causal: true,
        layout: Layout::Ragged,
        dtype: BLASST_DTYPE_F16,
    };
    let mut rng = Rng::new(11);
    let bt = c.build(&mut rng, &mut |r, _, _, _, _| r.normal());
    v.push(Call {
        label: "fp16 ragged causal".into(),
        bt,
        bf16: false,
        factor: 0.0,
    });
    v
}

fn run_on(call: &Call, stream: cu::CUstream) -> RunOut {
    let launch = |p: &AttnParams| -> blasst::Result<()> {
        unsafe { blasst::attn::run(p, stream.cast())? };
        ok(
            unsafe { cu::cuStreamSynchronize(stream) },
            "cuStreamSynchronize",
        );
        Ok(())
    };
    let r = if call.bf16 {
        run_gpu_with::<bf16>(&call.bt, call.factor, &launch)
    } else {
        run_gpu_with::<f16>(&call.bt, call.factor, &launch)
    };
    r.unwrap_or_else(|e| panic!("{}: {}", call.label, e.message()))
}

/// Eight threads start together, each on its own stream, and make every call twice in its own
/// order, so that first uses (compile, load) of each variant overlap other threads' compiles
/// and launches. Every result equals, bit for bit, the same call made alone afterwards, whose
/// skip decisions equal the CPU backend's for the same plan.
#[test]
fn threads_calling_at_once_from_a_cold_start_get_the_serial_results() {
    let Some(_one) = setup() else { return };
    let calls = calls();
    let n = calls.len();
    let threads = 8;
    let start = Barrier::new(threads);
    let t0 = std::time::Instant::now();
    let results: Vec<Vec<(usize, RunOut)>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let (calls, start) = (&calls, &start);
                s.spawn(move || {
                    // A thread starts with no current context: the first blasst call makes the
                    // device's primary context current, as the CUDA runtime would.
                    blasst::cuda::DeviceBuffer::new(1).unwrap();
                    let stream = new_stream();
                    start.wait();
                    let mut out = vec![];
                    // Each thread its own order: forwards from its own start, then backwards.
                    let order = (0..n)
                        .map(|j| (t * 5 + j) % n)
                        .chain((0..n).map(|j| (t * 3 + n - 1 - j) % n));
                    for i in order {
                        out.push((i, run_on(&calls[i], stream)));
                    }
                    ok(unsafe { cu::cuStreamDestroy_v2(stream) }, "cuStreamDestroy");
                    out
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!(
        "{threads} threads x {} calls in {:.1} s (compiles included)",
        2 * n,
        t0.elapsed().as_secs_f64()
    );
    let alone: Vec<RunOut> = calls
        .iter()
        .map(|c| run_on(c, std::ptr::null_mut()))
        .collect();
    for (i, c) in calls.iter().enumerate() {
        if c.factor > 0.0 {
            assert!(alone[i].stats[1] > 0, "{}: nothing skipped", c.label);
            let cpu = run::<bf16>(&c.bt, c.factor, Some(&alone[i].plan)).unwrap();
            assert_eq!(
                alone[i].stats, cpu.stats,
                "{}: GPU vs CPU decisions",
                c.label
            );
        }
        println!("{}: visited / skipped {:?}", c.label, alone[i].stats);
    }
    let mut checked = 0;
    for (t, out) in results.iter().enumerate() {
        for (i, r) in out {
            assert!(
                same_out(r, &alone[*i]),
                "thread {t}, {}: differs from the call made alone",
                calls[*i].label
            );
            checked += 1;
        }
    }
    assert_eq!(checked, threads * 2 * n);
    // The compiles were real (this binary's own cache directory) and each wrote one whole file.
    let dir = std::path::PathBuf::from(std::env::var_os("BLASST_CACHE_DIR").unwrap());
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|f| f.ends_with(".cubin")), "{names:?}");
    assert!(names.len() >= 10, "{} cubins: {names:?}", names.len());
}

/// `cudaDeviceReset` (the primary context reset) unloads every module blasst loaded while the
/// context handle stays the same; blasst's loaded-kernel cache is per context ID, so the calls
/// after the reset load their kernels again and give the same bits.
#[test]
fn calls_after_a_device_reset_load_their_kernels_again() {
    let Some(_one) = setup() else { return };
    let all = calls();
    let picked: Vec<&Call> = [0usize, 1, 9].iter().map(|&i| &all[i]).collect();
    let null: cu::CUstream = std::ptr::null_mut();
    let before: Vec<RunOut> = picked.iter().map(|c| run_on(c, null)).collect();
    let id_of_current = || {
        let mut ctx: cu::CUcontext = std::ptr::null_mut();
        let mut id = 0u64;
        ok(unsafe { cu::cuCtxGetCurrent(&mut ctx) }, "cuCtxGetCurrent");
        ok(unsafe { cu::cuCtxGetId(ctx, &mut id) }, "cuCtxGetId");
        (ctx as usize, id)
    };
    let (h0, id0) = id_of_current();
    let mut dev = 0;
    ok(unsafe { cu::cuDeviceGet(&mut dev, 0) }, "cuDeviceGet");
    ok(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize");
    ok(
        unsafe { cu::cuDevicePrimaryCtxReset_v2(dev) },
        "cuDevicePrimaryCtxReset",
    );
    // What the CUDA runtime does at its next call: the primary context again, current.
    use_device(0);
    let (h1, id1) = id_of_current();
    println!("primary context before the reset {h0:#x} (ID {id0}), after {h1:#x} (ID {id1})");
    assert_ne!(id0, id1, "the reset context kept its ID");
    for (c, b) in picked.iter().zip(&before) {
        let a = run_on(c, null);
        assert!(same_out(&a, b), "{}: differs after the reset", c.label);
    }
}

/// Several GPUs in one process (skipped with one): a thread per GPU, with that GPU current, gets
/// the bits GPU 0 gives for the same calls; a call on GPU 0 whose q lies on GPU 1 is refused
/// (InvalidArgument naming q and both GPUs) instead of faulting, which would end the context
/// for the whole process, and GPU 0 then runs the call as before.
#[test]
fn each_gpu_runs_its_own_calls_and_refuses_another_gpus_memory() {
    let Some(_one) = setup() else { return };
    let mut n_dev = 0;
    ok(
        unsafe { cu::cuDeviceGetCount(&mut n_dev) },
        "cuDeviceGetCount",
    );
    if n_dev < 2 {
        println!("skipped: {n_dev} GPU (needs 2)");
        return;
    }
    let all = calls();
    let picked: Vec<&Call> = [0usize, 1, 5, 8, 9, 11].iter().map(|&i| &all[i]).collect();
    let per_gpu: Vec<Vec<RunOut>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..n_dev)
            .map(|dev| {
                let picked = &picked;
                s.spawn(move || {
                    use_device(dev);
                    picked
                        .iter()
                        .map(|c| run_on(c, std::ptr::null_mut()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (dev, outs) in per_gpu.iter().enumerate().skip(1) {
        for ((c, a), b) in picked.iter().zip(outs).zip(&per_gpu[0]) {
            assert!(same_out(a, b), "GPU {dev}, {}: differs from GPU 0", c.label);
        }
    }
    println!("{n_dev} GPUs: the same bits for {} calls", picked.len());

    use_device(1);
    let elsewhere = blasst::cuda::DeviceBuffer::new(1 << 20).unwrap();
    use_device(0);
    let call = picked[1];
    let refused = std::cell::Cell::new(false);
    run_gpu_with::<bf16>(&call.bt, call.factor, &|p| {
        let mut p = *p;
        p.q = elsewhere.ptr();
        let e = unsafe { blasst::attn::run(&p, std::ptr::null_mut()) }.unwrap_err();
        assert_eq!(
            e.kind(),
            blasst::StatusKind::InvalidArgument,
            "{}",
            e.message()
        );
        let m = e.message();
        assert!(
            m.contains("q = ") && m.contains("GPU 1") && m.contains("GPU 0"),
            "{m}"
        );
        println!("refused: {m}");
        refused.set(true);
        Ok(())
    })
    .unwrap();
    assert!(refused.get());
    assert!(same_out(
        &run_on(call, std::ptr::null_mut()),
        &per_gpu[0][1]
    ));
    use_device(1);
    drop(elsewhere);
    use_device(0);
}

/// Memory from each allocator an engine may use passes the pointer check (host memory and
/// another GPU's do not), and a call whose q lies there gives the bits of the plain call:
/// `cuMemAlloc` (cudaMalloc, PyTorch's default), the stream-ordered pool (cudaMallocAsync),
/// managed memory, and virtual memory management (cuMemCreate + cuMemMap, what PyTorch's
/// expandable segments use).
#[test]
fn q_from_every_kind_of_allocation_is_accepted() {
    let Some(_one) = setup() else { return };
    let all = calls();
    let call = &all[1];
    let null: cu::CUstream = std::ptr::null_mut();
    let plain = run_on(call, null);
    let q: Vec<bf16> = to_elems(&call.bt.q);
    let bytes = q.len() * 2;
    type Free = Box<dyn FnOnce()>;
    let kinds: Vec<(&str, cu::CUdeviceptr, Free)> = unsafe {
        let mut v: Vec<(&str, cu::CUdeviceptr, Free)> = vec![];
        let mut p = 0;
        ok(cu::cuMemAlloc_v2(&mut p, bytes), "cuMemAlloc");
        v.push((
            "cuMemAlloc",
            p,
            Box::new(move || ok(cu::cuMemFree_v2(p), "cuMemFree")),
        ));
        let mut p = 0;
        ok(cu::cuMemAllocAsync(&mut p, bytes, null), "cuMemAllocAsync");
        ok(cu::cuStreamSynchronize(null), "cuStreamSynchronize");
        v.push((
            "cuMemAllocAsync",
            p,
            Box::new(move || {
                ok(
                    cu::cuMemFreeAsync(p, std::ptr::null_mut()),
                    "cuMemFreeAsync",
                );
                ok(
                    cu::cuStreamSynchronize(std::ptr::null_mut()),
                    "cuStreamSynchronize",
                );
            }),
        ));
        let mut p = 0;
        ok(
            cu::cuMemAllocManaged(
                &mut p,
                bytes,
                cu::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32,
            ),
            "cuMemAllocManaged",
        );
        v.push((
            "cuMemAllocManaged",
            p,
            Box::new(move || ok(cu::cuMemFree_v2(p), "cuMemFree")),
        ));
        let mut prop: cu::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = cu::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        let mut gran = 0;
        ok(
            cu::cuMemGetAllocationGranularity(
                &mut gran,
                &prop,
                cu::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            ),
            "cuMemGetAllocationGranularity",
        );
        let size = bytes.div_ceil(gran) * gran;
        let mut h = 0;
        ok(cu::cuMemCreate(&mut h, size, &prop, 0), "cuMemCreate");
        let mut p = 0;
        ok(
            cu::cuMemAddressReserve(&mut p, size, 0, 0, 0),
            "cuMemAddressReserve",
        );
        ok(cu::cuMemMap(p, size, 0, h, 0), "cuMemMap");
        let access = cu::CUmemAccessDesc {
            location: prop.location,
            flags: cu::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        ok(cu::cuMemSetAccess(p, size, &access, 1), "cuMemSetAccess");
        v.push((
            "cuMemCreate + cuMemMap",
            p,
            Box::new(move || {
                ok(cu::cuMemUnmap(p, size), "cuMemUnmap");
                ok(cu::cuMemAddressFree(p, size), "cuMemAddressFree");
                ok(cu::cuMemRelease(h), "cuMemRelease");
            }),
        ));
        v
    };
    for (kind, ptr, free) in kinds {
        ok(
            unsafe { cu::cuMemcpyHtoD_v2(ptr, q.as_ptr().cast(), bytes) },
            "cuMemcpyHtoD",
        );
        let mut ordinal = -7i32;
        let r = unsafe {
            cu::cuPointerGetAttribute(
                (&mut ordinal as *mut i32).cast(),
                cu::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                ptr,
            )
        };
        let out = run_gpu_with::<bf16>(&call.bt, call.factor, &|p| {
            let mut p = *p;
            p.q = ptr as *const std::ffi::c_void;
            unsafe { blasst::attn::run(&p, std::ptr::null_mut()) }
        })
        .unwrap_or_else(|e| panic!("{kind}: {}", e.message()));
        println!("{kind}: device ordinal {ordinal} ({r:?}), accepted");
        assert!(
            same_out(&out, &plain),
            "{kind}: differs from the plain call"
        );
        free();
    }
}

/// The first call of a kernel variant in the process made inside a CUDA graph capture (global
/// mode, PyTorch's default), as when an engine captures a decode batch size whose kernels no
/// earlier call loaded: its compile and module load happen during the capture, which must
/// neither fail nor invalidate the capture; the graph replays to the bits of a direct call.
/// (Variants that no other test of this binary uses, so they are cold here.)
#[test]
fn first_use_of_a_kernel_inside_a_graph_capture() {
    let Some(_one) = setup() else { return };
    let all = calls();
    for i in [12usize, 15] {
        let c = &all[i];
        let captured = run_gpu_with::<bf16>(&c.bt, c.factor, &|p| run_in_graph(p, false))
            .unwrap_or_else(|e| panic!("{} captured: {}", c.label, e.message()));
        let direct = run_on(c, std::ptr::null_mut());
        // The graph ran twice: the counters count both replays.
        assert_eq!(captured.stats[0], 2 * direct.stats[0], "{}", c.label);
        assert!(
            same_bits(&captured.o, &direct.o),
            "{}: the graph's output differs from a direct call",
            c.label
        );
        println!(
            "{}: first use inside a capture, replayed to the direct call's bits",
            c.label
        );
    }
}
