//! Where the host time of one `blasst::attn::run` goes, without Python in the way
//! (bench/micro/host_overhead.py times calls through ctypes, and its tiny calls can be bound by
//! the GPU instead). Calls are timed in bursts of 100 that the GPU's launch queue absorbs, so the
//! wall time per call is the calling thread's. For each call: the whole `run`, `plan` (validation
//! and the plan), and, as the floor any library pays, a bare `cuLaunchKernelEx` of an empty kernel
//! with the same grid and a parameter block of the same size, plus `cuPointerGetAttributes` on
//! the call's pointers (the pointer check's query). bf16, d = 128, contiguous. GPU machine only:
//! `cargo build --release --example host_cost`, carry `target/release/examples/host_cost`.
use blasst::attn::{AttnParams, BLASST_DEVICE_CUDA, BLASST_DTYPE_BF16};
use blasst::cpu::{Options, Shape, contiguous_params};
use blasst::cuda::DeviceBuffer;
use cudarc::driver::sys as cu;
use std::ffi::c_void;
use std::time::Instant;

const BURST: usize = 100;
const ROUNDS: usize = 30;

fn ok(r: cu::CUresult, what: &str) {
    assert_eq!(r, cu::CUresult::CUDA_SUCCESS, "{what}");
}

/// Median over rounds of the mean time per call of a burst, in microseconds.
fn per_call(mut f: impl FnMut()) -> f64 {
    let mut t = vec![];
    for _ in 0..ROUNDS {
        ok(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize");
        let t0 = Instant::now();
        for _ in 0..BURST {
            f();
        }
        t.push(t0.elapsed().as_secs_f64() * 1e6 / BURST as f64);
    }
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

struct Call {
    label: &'static str,
    p: AttnParams,
    _bufs: Vec<DeviceBuffer>,
}

/// (batch, query tokens, KV length, query heads, KV heads), bshd tensors.
fn call(label: &'static str, (b, lq, lk, hq, hkv): (usize, usize, usize, usize, usize)) -> Call {
    let d = 128;
    let q = DeviceBuffer::new(b * lq * hq * d * 2).unwrap();
    let k = DeviceBuffer::new(b * lk * hkv * d * 2).unwrap();
    let v = DeviceBuffer::new(b * lk * hkv * d * 2).unwrap();
    let o = DeviceBuffer::new(b * lq * hq * d * 2).unwrap();
    let shape = Shape {
        batch: b,
        seqlen_q: lq,
        seqlen_kv: lk,
        num_q_heads: hq,
        num_kv_heads: hkv,
        head_dim: d,
    };
    let mut p = contiguous_params(
        shape,
        BLASST_DTYPE_BF16,
        BLASST_DEVICE_CUDA,
        &Options::default(),
    )
    .unwrap();
    (p.q, p.k, p.v, p.o) = (q.ptr(), k.ptr(), v.ptr(), o.ptr());
    let ws_bytes = blasst::attn::workspace_size(&p).unwrap();
    let mut bufs = vec![q, k, v, o];
    if ws_bytes > 0 {
        let ws = DeviceBuffer::new(ws_bytes).unwrap();
        (p.workspace, p.workspace_size) = (ws.ptr(), ws_bytes);
        bufs.push(ws);
    }
    Call {
        label,
        p,
        _bufs: bufs,
    }
}

/// An empty kernel taking `bytes` of parameters by value, loaded from PTX.
fn empty_kernel(bytes: usize) -> cu::CUfunction {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry empty(.param .align 8 .b8 p[{bytes}]) {{ ret; }}\n\0"
    );
    let (mut m, mut f) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(
        unsafe { cu::cuModuleLoadData(&mut m, ptx.as_ptr().cast()) },
        "cuModuleLoadData",
    );
    ok(
        unsafe { cu::cuModuleGetFunction(&mut f, m, c"empty".as_ptr()) },
        "cuModuleGetFunction",
    );
    f
}

fn main() {
    blasst::cuda::probe().expect("a GPU");
    let calls = [
        call("decode 1 x 1K, GQA 32/8", (1, 1, 1024, 32, 8)),
        call("decode 8 x 4K, GQA 32/8", (8, 1, 4096, 32, 8)),
        call("prefill 1 x 256, 8 heads", (1, 256, 256, 8, 8)),
    ];
    let stream: cu::CUstream = std::ptr::null_mut();
    let params_bytes = 512; // KernelParams is below this; the launch copies what the kernel declares
    let f = empty_kernel(params_bytes);
    let block = [0u64; 64];
    let launch_empty = || {
        let mut arg = block.as_ptr() as *mut c_void;
        let config = cu::CUlaunchConfig {
            gridDimX: 8,
            gridDimY: 8,
            gridDimZ: 1,
            blockDimX: 256,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: stream,
            attrs: std::ptr::null_mut(),
            numAttrs: 0,
        };
        ok(
            unsafe { cu::cuLaunchKernelEx(&config, f, &mut arg, std::ptr::null_mut()) },
            "cuLaunchKernelEx",
        );
    };
    println!(
        "bare cuLaunchKernelEx, empty kernel, {params_bytes} B of parameters: {:6.2} us",
        per_call(launch_empty)
    );
    // Pieces of a call's host path that are not the launch.
    let mut ctx = std::ptr::null_mut();
    let mut id = 0u64;
    let mut dev = 0;
    println!(
        "cuCtxGetCurrent {:5.3} us | cuCtxGetId {:5.3} us | cuCtxGetDevice {:5.3} us | blasst::cuda::gpu_shape (the context a call runs in) {:5.3} us | std::env::var of an unset switch {:5.3} us",
        per_call(|| unsafe {
            cu::cuCtxGetCurrent(&mut ctx);
        }),
        per_call(|| unsafe {
            cu::cuCtxGetId(ctx, &mut id);
        }),
        per_call(|| unsafe {
            cu::cuCtxGetDevice(&mut dev);
        }),
        per_call(|| {
            blasst::cuda::gpu_shape().unwrap();
        }),
        per_call(|| {
            std::hint::black_box(std::env::var("BLASST_DECODE_KERNEL").is_ok());
        }),
    );
    for c in &calls {
        let p = c.p;
        unsafe { blasst::attn::run(&p, stream.cast()) }.unwrap(); // loads the kernel
        let run = per_call(|| unsafe { blasst::attn::run(&p, stream.cast()) }.unwrap());
        let plan = per_call(|| {
            blasst::attn::plan(&p).unwrap();
        });
        let ptrs: Vec<usize> = [p.q, p.k, p.v, p.o, p.workspace]
            .iter()
            .map(|&x| x as usize)
            .filter(|&x| x != 0)
            .collect();
        let query = per_call(|| {
            for &x in &ptrs {
                use cu::CUpointer_attribute as A;
                let mut attrs = [
                    A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                    A::CU_POINTER_ATTRIBUTE_IS_MANAGED,
                    A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                ];
                let mut vals = [0u64; 3];
                let mut data = vals.each_mut().map(|v| v as *mut u64 as *mut c_void);
                unsafe {
                    cu::cuPointerGetAttributes(3, attrs.as_mut_ptr(), data.as_mut_ptr(), x as u64)
                };
            }
        });
        let plan_info = blasst::attn::plan(&p).unwrap();
        println!(
            "{:<26} run {run:6.2} us | validate + plan {plan:5.2} us | pointer queries ({}) {query:5.2} us | plan: {} splits, block_m {}",
            c.label,
            ptrs.len(),
            plan_info.num_kv_splits,
            plan_info.block_m
        );
    }
    ok(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize");
}
