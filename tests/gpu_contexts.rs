//! Which CUDA context a GPU call runs in: the calling thread's current context; with none
//! current, the context of the stream it was given (so an engine thread that only holds a stream
//! of one GPU runs there); a stream of another context than the current one is refused, naming
//! `cuda_stream`, instead of failing with a bare CUDA error. On one GPU the "other" context is a
//! second context created on GPU 0 (`cuCtxCreate`), which has its own loaded kernels and memory
//! just as another GPU's primary context would. Its own test binary: a failure here cannot leave
//! the other GPU tests' contexts in an error state. Run on the GPU machine
//! (scripts/device-check.sh); prints "skipped: no CUDA device" and passes elsewhere.

mod common;
use blasst::StatusKind;
use common::*;
use cudarc::driver::sys as cu;
use half::bf16;

/// A prefill call and a decode call (KV splits, no workspace passed: the call allocates it
/// stream-ordered on its stream), both skipping tiles.
fn calls() -> Vec<(&'static str, Built, f32)> {
    let prefill = structured_case((700, 1500, 8, 2, 128, false, 0.2, Layout::Bshd), 7, 70);
    vec![("prefill", prefill, factor(1500)), decode_call()]
}

/// The decode call of `calls`.
fn decode_call() -> (&'static str, Built, f32) {
    let decode = structured_case((1, 9000, 32, 8, 128, false, 0.2, Layout::Bshd), 8, 71);
    ("decode", decode, factor(9000))
}

/// lambda = e^-8 at KV length `lk`.
fn factor(lk: usize) -> f32 {
    ((-8.0f64).exp() * lk as f64) as f32
}

/// A context created on GPU 0 (current on this thread after the call) and a stream of it,
/// destroyed on drop.
struct OwnContext {
    ctx: cu::CUcontext,
    stream: cu::CUstream,
}

impl OwnContext {
    fn new() -> Self {
        let (mut dev, mut ctx) = (0, std::ptr::null_mut());
        ok(unsafe { cu::cuDeviceGet(&mut dev, 0) }, "cuDeviceGet");
        ok(
            unsafe { cu::cuCtxCreate_v4(&mut ctx, std::ptr::null_mut(), 0, dev) },
            "cuCtxCreate",
        );
        OwnContext {
            ctx,
            stream: new_stream(),
        }
    }
}

impl Drop for OwnContext {
    fn drop(&mut self) {
        unsafe {
            cu::cuCtxSetCurrent(self.ctx);
            cu::cuStreamDestroy_v2(self.stream);
            cu::cuCtxSetCurrent(std::ptr::null_mut());
            cu::cuCtxDestroy_v2(self.ctx);
        }
    }
}

fn current() -> cu::CUcontext {
    let mut c = std::ptr::null_mut();
    ok(unsafe { cu::cuCtxGetCurrent(&mut c) }, "cuCtxGetCurrent");
    c
}

/// A new thread with no current context gets a stream of a context created for it: its calls
/// run in that context (its buffers live there; device 0's primary context, the choice without
/// a stream, could not launch on that stream) and give the bits the same calls give in the
/// primary context on the NULL stream, tiles skipped included; the call leaves the stream's
/// context current. A plan and a workspace size asked on that thread before any call leave it
/// without a context; the size is the largest any GPU needs (device 0's on a one-GPU machine).
#[test]
fn a_thread_without_a_current_context_runs_in_its_streams_context() {
    if !gpu() {
        return;
    }
    let want: Vec<RunOut> = calls()
        .iter()
        .map(|(_, bt, f)| run_gpu::<bf16>(bt, *f).unwrap())
        .collect();
    for w in &want {
        assert!(w.stats[1] > 0 && w.stats[1] < w.stats[0], "{:?}", w.stats);
    }
    // The decode call's description (no memory behind it: plans and sizes read none).
    let decode_params = || {
        let (_, decode, f) = decode_call();
        let mut p = decode.params;
        p.device = blasst::attn::BLASST_DEVICE_CUDA;
        p.threshold_scale_factor = f;
        (p.q, p.k, p.v, p.o) = (0x10000 as _, 0x20000 as _, 0x30000 as _, 0x40000 as _);
        p
    };
    use_device(0);
    let ws_device0 = blasst::attn::workspace_size(&decode_params()).unwrap();
    std::thread::spawn(move || {
        assert!(current().is_null(), "a new thread has no current context");
        // A plan asked here (no stream) describes device 0 and leaves the thread unbound.
        let p = decode_params();
        let plan = blasst::attn::plan(&p).unwrap_or_else(|e| panic!("plan: {}", e.message()));
        assert!(plan.num_kv_splits > 1, "{plan:?}");
        assert!(current().is_null(), "blasst_attn_plan made a context current");
        // A workspace size asked here is the largest any GPU needs: device 0's on one GPU.
        let ws = blasst::attn::workspace_size(&p).unwrap();
        let mut n_dev = 0;
        ok(unsafe { cu::cuDeviceGetCount(&mut n_dev) }, "cuDeviceGetCount");
        assert!(ws > 0 && ws >= ws_device0, "{ws} < {ws_device0}");
        if n_dev == 1 {
            assert_eq!(ws, ws_device0);
        }
        assert!(current().is_null(), "blasst_attn_workspace_size made a context current");
        println!("workspace with no context current: {ws} bytes ({n_dev} GPU(s); device 0: {ws_device0})");
        let own = OwnContext::new(); // current on this thread, for the buffers
        for ((label, bt, f), w) in calls().iter().zip(&want) {
            let got = run_gpu_with::<bf16>(bt, *f, &|p| {
                ok(
                    unsafe { cu::cuCtxSetCurrent(std::ptr::null_mut()) },
                    "cuCtxSetCurrent(NULL)",
                );
                unsafe { blasst::attn::run(p, own.stream.cast()) }?;
                assert_eq!(current(), own.ctx, "{label}: the stream's context is current");
                ok(
                    unsafe { cu::cuStreamSynchronize(own.stream) },
                    "cuStreamSynchronize",
                );
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{label}: {}", e.message()));
            assert!(
                same_out(&got, w),
                "{label}: differs from the primary context's call"
            );
            println!(
                "{label}: in the stream's context, the primary context's bits; {} of {} tiles skipped",
                got.stats[1], got.stats[0]
            );
        }
    })
    .join()
    .unwrap();
}

/// With the primary context current, a stream of another context is refused as an invalid
/// argument that names `cuda_stream` and both contexts, and nothing is written; the same call
/// on a stream of the current context then runs.
#[test]
fn a_stream_of_another_context_is_refused_and_named() {
    if !gpu() {
        return;
    }
    std::thread::spawn(|| {
        let own = OwnContext::new();
        use_device(0);
        for (label, bt, f) in calls() {
            let refused = std::cell::Cell::new(false);
            let out = run_gpu_with::<bf16>(&bt, f, &|p| {
                let e = unsafe { blasst::attn::run(p, own.stream.cast()) }.unwrap_err();
                let m = e.message();
                println!("{label}: refused: {m}");
                assert_eq!(e.kind(), StatusKind::InvalidArgument, "{label}: {m}");
                assert!(
                    m.contains("cuda_stream") && m.contains("belongs to context"),
                    "{label}: {m}"
                );
                refused.set(true);
                Ok(())
            })
            .unwrap();
            assert!(refused.get());
            let poison = bf16::from_f32(POISON).to_f32();
            assert!(
                out.o.iter().all(|x| x.to_bits() == poison.to_bits()),
                "{label}: the refused call wrote o"
            );
            let again = run_gpu::<bf16>(&bt, f).unwrap();
            assert!(again.stats[1] > 0, "{label}: {:?}", again.stats);
        }
    })
    .join()
    .unwrap();
}
