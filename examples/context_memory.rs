//! Can a kernel launched in one context read memory allocated in another context on the same
//! GPU? The pointer check refuses memory of another GPU (a kernel reading it faults and ends the
//! context); this asks the same question for a second context on one GPU (`cuCtxCreate`), for
//! each allocator: `cuMemAlloc`, the stream-ordered pool (`cuMemAllocAsync`) and managed memory.
//! It prints what `CU_POINTER_ATTRIBUTE_CONTEXT` says of each pointer, then reads one word of each
//! from a kernel in the primary context (the plain allocation last: if that faults, the primary
//! context is lost). GPU machine only: `cargo build --release --example context_memory`.
use cudarc::driver::sys as cu;
use std::ffi::c_void;

fn ok(r: cu::CUresult, what: &str) {
    assert_eq!(r, cu::CUresult::CUDA_SUCCESS, "{what}");
}

fn ctx_of(ptr: u64) -> (cu::CUresult, usize) {
    let mut c: cu::CUcontext = std::ptr::null_mut();
    let r = unsafe {
        cu::cuPointerGetAttribute(
            (&mut c as *mut cu::CUcontext).cast(),
            cu::CUpointer_attribute::CU_POINTER_ATTRIBUTE_CONTEXT,
            ptr,
        )
    };
    (r, c as usize)
}

fn main() {
    ok(unsafe { cu::cuInit(0) }, "cuInit");
    let (mut dev, mut primary, mut own) = (0, std::ptr::null_mut(), std::ptr::null_mut());
    ok(unsafe { cu::cuDeviceGet(&mut dev, 0) }, "cuDeviceGet");
    ok(
        unsafe { cu::cuDevicePrimaryCtxRetain(&mut primary, dev) },
        "cuDevicePrimaryCtxRetain",
    );
    ok(
        unsafe { cu::cuCtxCreate_v4(&mut own, std::ptr::null_mut(), 0, dev) },
        "cuCtxCreate",
    );
    println!(
        "primary context {:#x}, created context {:#x}",
        primary as usize, own as usize
    );
    // In the created context (current after cuCtxCreate): one word of 0x11111111 in each kind.
    let mut plain = 0;
    ok(unsafe { cu::cuMemAlloc_v2(&mut plain, 4096) }, "cuMemAlloc");
    let mut pooled = 0;
    ok(
        unsafe { cu::cuMemAllocAsync(&mut pooled, 4096, std::ptr::null_mut()) },
        "cuMemAllocAsync",
    );
    let mut managed = 0;
    ok(
        unsafe {
            cu::cuMemAllocManaged(
                &mut managed,
                4096,
                cu::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32,
            )
        },
        "cuMemAllocManaged",
    );
    for (i, &p) in [plain, pooled, managed].iter().enumerate() {
        ok(
            unsafe { cu::cuMemsetD32_v2(p, 0x1111_1111 * (i as u32 + 1), 1024) },
            "cuMemsetD32",
        );
    }
    ok(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize");
    let kinds = [
        ("managed", managed),
        ("pool", pooled),
        ("cuMemAlloc", plain),
    ];
    for (name, p) in kinds {
        println!(
            "{name:10} {p:#x}: CONTEXT attribute (created current) {:?}",
            ctx_of(p)
        );
    }
    ok(
        unsafe { cu::cuCtxSetCurrent(primary) },
        "cuCtxSetCurrent(primary)",
    );
    for (name, p) in kinds {
        println!(
            "{name:10} {p:#x}: CONTEXT attribute (primary current) {:?}",
            ctx_of(p)
        );
    }
    // A kernel in the primary context: out[0] = *src.
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry rd(.param .u64 src, .param .u64 out) {\n .reg .b64 %a<3>;\n .reg .b32 %v;\n ld.param.u64 %a1, [src];\n ld.param.u64 %a2, [out];\n ld.global.u32 %v, [%a1];\n st.global.u32 [%a2], %v;\n ret;\n}\n\0";
    let (mut m, mut f) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(
        unsafe { cu::cuModuleLoadData(&mut m, ptx.as_ptr().cast()) },
        "cuModuleLoadData",
    );
    ok(
        unsafe { cu::cuModuleGetFunction(&mut f, m, c"rd".as_ptr()) },
        "cuModuleGetFunction",
    );
    let mut out = 0;
    ok(unsafe { cu::cuMemAlloc_v2(&mut out, 4) }, "cuMemAlloc(out)");
    for (name, p) in kinds {
        ok(unsafe { cu::cuMemsetD32_v2(out, 0, 1) }, "cuMemsetD32(out)");
        let (mut src, mut dst) = (p, out);
        let mut args = [
            (&mut src as *mut u64).cast::<c_void>(),
            (&mut dst as *mut u64).cast::<c_void>(),
        ];
        let r = unsafe {
            cu::cuLaunchKernel(
                f,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                std::ptr::null_mut(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        let s = unsafe { cu::cuCtxSynchronize() };
        let mut v = 0u32;
        let c = unsafe { cu::cuMemcpyDtoH_v2((&mut v as *mut u32).cast(), out, 4) };
        println!(
            "{name:10}: read from the primary context: launch {r:?}, sync {s:?}, copy {c:?}, value {v:#x}"
        );
        if s != cu::CUresult::CUDA_SUCCESS {
            println!("the primary context is lost; stopping");
            return;
        }
    }
}
