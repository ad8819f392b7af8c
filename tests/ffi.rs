//! The C ABI from Rust: any struct_size or enum value is an error, never a crash; NULLs
//! everywhere; random spec strings through blasst_resolver_new; random field values through
//! the entry points that read no tensor memory.

use blasst::AttnParams;
use blasst::ffi::*;
use blasst::synth::Rng;
use std::ffi::{CStr, CString};

fn last_error() -> String {
    unsafe { CStr::from_ptr(blasst_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn valid(buf: &mut [f32]) -> AttnParams {
    valid_on(
        buf,
        blasst::attn::BLASST_DEVICE_CPU,
        blasst::attn::BLASST_DTYPE_F32,
        32,
    )
}

/// A valid call of 2 query heads, 1 KV head and 4 tokens of `head_dim` on `device`, every
/// tensor in `buf` (which holds the CPU's f32 call).
fn valid_on(buf: &mut [f32], device: u32, dtype: u32, head_dim: u32) -> AttnParams {
    let mut p = AttnParams::default();
    (p.device, p.dtype) = (device, dtype);
    (
        p.batch_size,
        p.num_q_heads,
        p.num_kv_heads,
        p.head_dim,
        p.max_seqlen_q,
        p.max_seqlen_kv,
    ) = (1, 2, 1, head_dim, 4, 4);
    let ptr = buf.as_mut_ptr();
    (p.q, p.k, p.v, p.o) = (ptr.cast(), ptr.cast(), ptr.cast(), ptr.cast());
    let d = head_dim as i64;
    (
        p.q_row_stride,
        p.q_head_stride,
        p.o_row_stride,
        p.o_head_stride,
    ) = (2 * d, d, 2 * d, d);
    (
        p.k_row_stride,
        p.k_head_stride,
        p.v_row_stride,
        p.v_head_stride,
    ) = (d, d, d, d);
    p
}

#[test]
fn any_struct_size_or_enum_value_is_an_error() {
    let mut buf = vec![0.5f32; 1024];
    let mut out = vec![0f32; 256];
    let good = valid(&mut buf);
    let mut rng = Rng::new(1);
    let run = |p: &AttnParams| unsafe { blasst_attn_run(p, std::ptr::null_mut()) };
    let mut g = good;
    g.o = out.as_mut_ptr().cast();
    assert_eq!(run(&g), blasst_status::BLASST_OK, "{}", last_error());
    for size in [
        0u32,
        1,
        4,
        10_000,
        u32::MAX,
        std::mem::size_of::<AttnParams>() as u32 - 8,
    ] {
        let mut p = g;
        p.struct_size = size;
        assert_eq!(run(&p), blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
        assert!(last_error().contains(&format!("struct_size = {size}")));
    }
    for _ in 0..2000 {
        let mut p = g;
        let x = rng.next_u64() as u32;
        match rng.below(4) {
            0 => p.device = x | 2,
            1 => p.dtype = x | 4,
            2 => p.causal = x | 2,
            _ => p.struct_size = x | 0x1000,
        }
        assert_eq!(run(&p), blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
    }
    // A struct smaller than ours: only its first field is read.
    let tiny: [u32; 1] = [12];
    let st = unsafe { blasst_attn_run(tiny.as_ptr().cast(), std::ptr::null_mut()) };
    assert_eq!(st, blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
    assert!(out.iter().all(|x| x.is_finite()));
}

#[test]
fn nulls_everywhere() {
    unsafe {
        assert_eq!(
            blasst_attn_run(std::ptr::null(), std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_attn_plan(std::ptr::null(), std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_attn_workspace_size(std::ptr::null(), std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        blasst_attn_params_init(std::ptr::null_mut());
        blasst_resolver_free(std::ptr::null_mut());
        assert_eq!(
            blasst_resolver_factor(
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
                0,
                f64::NAN,
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_resolver_describe(
                std::ptr::null(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_schedule_flow_shift(1.0, 3, std::ptr::null_mut()),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_calibration_fit(
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                5,
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_calibration_write(
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                0
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_merge_states(
                1,
                2,
                std::ptr::null(),
                std::ptr::null(),
                1,
                1,
                1,
                1,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            blasst_debug_trigger_panic(),
            blasst_status::BLASST_ERROR_INTERNAL
        );
        assert!(last_error().contains("caught panic"));
    }
}

#[test]
fn random_spec_strings_never_crash() {
    let mut rng = Rng::new(7);
    for _ in 0..3000 {
        let n = rng.below(40);
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 255 + 1) as u8).collect();
        let c = CString::new(bytes).unwrap();
        let mut r: *mut blasst_resolver = std::ptr::null_mut();
        let st = unsafe {
            blasst_resolver_new(c.as_ptr(), std::ptr::null(), std::ptr::null(), 0, &mut r)
        };
        if st == blasst_status::BLASST_OK {
            unsafe { blasst_resolver_free(r) };
        } else {
            assert!(r.is_null());
            assert!(matches!(
                st,
                blasst_status::BLASST_ERROR_CONFIG | blasst_status::BLASST_ERROR_INVALID_ARGUMENT
            ));
        }
    }
}

/// Eight threads call at once, each with its own inputs: every thread reads its own failure
/// message from `blasst_last_error` (per thread; a successful call does not clear it) and gets
/// its own results, the same as when it calls alone.
#[test]
fn threads_keep_their_own_errors_and_results() {
    // Thread t's input values and what a call alone gives for them.
    let input = |t: usize| -> Vec<f32> {
        let mut rng = Rng::new(100 + t as u64);
        (0..1024).map(|_| rng.normal()).collect()
    };
    let alone = |t: usize| -> Vec<f32> {
        let mut buf = input(t);
        let mut out = vec![0f32; 256];
        let mut p = valid(&mut buf);
        p.o = out.as_mut_ptr().cast();
        let st = unsafe { blasst_attn_run(&p, std::ptr::null_mut()) };
        assert_eq!(st, blasst_status::BLASST_OK, "{}", last_error());
        out
    };
    let expected: Vec<Vec<f32>> = (0..8).map(alone).collect();
    assert_ne!(expected[0], expected[1]);
    std::thread::scope(|s| {
        for (t, want) in expected.iter().enumerate() {
            s.spawn(move || {
                let mut buf = input(t);
                for i in 0..300u32 {
                    let mut bad = valid(&mut buf);
                    let head_dim = 1000 + 100 * t as u32 + i;
                    bad.head_dim = head_dim;
                    let st = unsafe { blasst_attn_run(&bad, std::ptr::null_mut()) };
                    assert_eq!(st, blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
                    let mut out = vec![0f32; 256];
                    let mut good = valid(&mut buf);
                    good.o = out.as_mut_ptr().cast();
                    let st = unsafe { blasst_attn_run(&good, std::ptr::null_mut()) };
                    assert_eq!(st, blasst_status::BLASST_OK, "{}", last_error());
                    assert_eq!(&out, want, "thread {t}, call {i}");
                    let e = last_error();
                    assert!(
                        e.contains(&format!("head_dim = {head_dim} ")),
                        "thread {t}, call {i}: {e}"
                    );
                }
            });
        }
    });
}

/// A CUDA call's workspace must be 16-byte aligned (the decode kernels store split partials as
/// float2; a misaligned one would fault on the GPU, a sticky error for the host's context): refused before any GPU work, with a message naming the field and its value.
#[test]
fn a_misaligned_cuda_workspace_is_refused_by_name() {
    let mut buf = vec![0.5f32; 1024];
    let mut p = valid_on(
        &mut buf,
        blasst::attn::BLASST_DEVICE_CUDA,
        blasst::attn::BLASST_DTYPE_BF16,
        64,
    );
    let base = (buf.as_ptr() as usize).next_multiple_of(16) + 64;
    p.workspace_size = 1 << 20;
    let mut plan = blasst::AttnPlanInfo::default();
    for off in [4usize, 8, 12] {
        p.workspace = (base + off) as *mut std::ffi::c_void;
        for st in unsafe {
            [
                blasst_attn_plan(&p, &mut plan),
                blasst_attn_run(&p, std::ptr::null_mut()),
            ]
        } {
            assert_eq!(st, blasst_status::BLASST_ERROR_INVALID_ARGUMENT);
            let e = last_error();
            assert!(
                e.contains(&format!("workspace = {:#x}", base + off)) && e.contains("16 bytes"),
                "{e}"
            );
        }
    }
    // Aligned: whatever the machine answers (no GPU here: no device), it is not about the workspace.
    p.workspace = base as *mut std::ffi::c_void;
    let st = unsafe { blasst_attn_plan(&p, &mut plan) };
    assert!(
        st == blasst_status::BLASST_OK || !last_error().contains("workspace"),
        "{st:?}: {}",
        last_error()
    );
}

/// blasst_merge_states on the GPU refuses a misaligned `v`, `s`, `v_out` or `s_out` by name and value
/// before it looks for a GPU (the kernel reads and writes them as 4-byte words; `s` and `s_out`
/// were not checked before session 49, and a misaligned one would have faulted in the kernel).
#[test]
fn gpu_merge_states_refuses_misaligned_pointers_by_name() {
    let buf = vec![0u64; 64];
    let base = (buf.as_ptr() as usize).next_multiple_of(16) + 64;
    let at = |off: usize| (base + off) as *mut std::ffi::c_void;
    let call = |v: usize, s: usize, o: usize, so: usize| unsafe {
        blasst_merge_states(
            blasst::attn::BLASST_DEVICE_CUDA,
            blasst::attn::BLASST_DTYPE_BF16,
            at(v),
            at(s).cast(),
            2,
            1,
            1,
            64,
            at(o),
            if so == usize::MAX {
                std::ptr::null_mut()
            } else {
                at(so).cast()
            },
            std::ptr::null_mut(),
        )
    };
    for (name, args) in [
        ("v", (2, 0, 0, 0)),
        ("s", (0, 2, 0, 0)),
        ("v_out", (0, 0, 6, 0)),
        ("s_out", (0, 0, 0, 1)),
    ] {
        assert_eq!(
            call(args.0, args.1, args.2, args.3),
            blasst_status::BLASST_ERROR_INVALID_ARGUMENT,
            "{name}"
        );
        let e = last_error();
        assert!(
            e.starts_with(&format!("{name} = ")) && e.contains("is not aligned to 4 bytes"),
            "{name}: {e}"
        );
    }
    // Aligned (s_out NULL or not): whatever the machine answers, not an alignment error.
    for so in [0, usize::MAX] {
        let st = call(0, 0, 0, so);
        assert!(
            st == blasst_status::BLASST_OK || !last_error().contains("aligned"),
            "{st:?}: {}",
            last_error()
        );
    }
}

/// Random values in every size, stride, paged, scale and plan field (and misaligned or NULL
/// pointers) through the two entry points that read no tensor memory, blasst_attn_plan and
/// blasst_attn_workspace_size, on both devices: every answer is OK or a specific error with a
/// message, never a caught panic (BLASST_ERROR_INTERNAL). A debug build (`cargo test --test
/// ffi`, overflow checks on) also proves that no size arithmetic overflows on the way.
#[test]
fn random_fields_never_panic_before_the_data_is_read() {
    let mut buf = vec![0.5f32; 1024];
    let good = valid(&mut buf);
    let mut rng = Rng::new(11);
    // A table of interesting values for each kind of field.
    let u32s = [
        0u32,
        1,
        2,
        3,
        7,
        16,
        63,
        64,
        65,
        128,
        255,
        256,
        4096,
        65535,
        1 << 20,
        1 << 31,
        u32::MAX,
    ];
    let i64s = [
        0i64,
        1,
        -1,
        8,
        32,
        64,
        127,
        128,
        4096,
        1 << 31,
        1 << 40,
        i64::MAX / 2,
        i64::MAX,
        i64::MIN,
    ];
    let f32s = [
        0.0f32,
        1.0,
        -1.0,
        1e-30,
        1e30,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
    ];
    let table = [0i32; 64];
    let mut plans: Vec<blasst::AttnPlanInfo> = Vec::new();
    let (mut ok, mut errors) = (0, 0);
    let mut hist = std::collections::BTreeMap::new();
    for _ in 0..20_000 {
        // What each device takes: the GPU bf16 at d = 64 (strides in multiples of 8).
        let mut p = if rng.below(2) == 0 {
            good
        } else {
            valid_on(
                &mut buf,
                blasst::attn::BLASST_DEVICE_CUDA,
                blasst::attn::BLASST_DTYPE_BF16,
                64,
            )
        };
        for _ in 0..1 + rng.below(4) {
            let u = u32s[rng.below(u32s.len())];
            let i = i64s[rng.below(i64s.len())];
            let f = f32s[rng.below(f32s.len())];
            match rng.below(24) {
                0 => p.batch_size = u,
                1 => p.num_q_heads = u,
                2 => p.num_kv_heads = u,
                3 => p.head_dim = u,
                4 => p.max_seqlen_q = u,
                5 => p.max_seqlen_kv = u,
                6 => p.softmax_scale = f,
                7 => p.threshold_scale_factor = f,
                8 => p.q_row_stride = i,
                9 => p.q_head_stride = i,
                10 => p.k_batch_stride = i,
                11 => p.k_row_stride = i,
                12 => p.v_head_stride = i,
                13 => p.o_row_stride = i,
                14 => p.o_batch_stride = i,
                15 => {
                    p.block_table = table.as_ptr();
                    p.page_size = u;
                    p.block_table_stride = i;
                }
                16 => p.num_pages = u,
                17 => p.cu_seqlens_q = table.as_ptr(),
                18 => p.cu_seqlens_kv = table.as_ptr(),
                19 => p.workspace_size = u as usize,
                20 => p.dtype = u % 3,
                21 => {
                    p.q = (p.q as usize + rng.below(4)) as *const _;
                    p.lse = rng.below(4) as *mut f32;
                }
                22 => p.seqused_kv = table.as_ptr(),
                _ => {
                    plans.push(blasst::AttnPlanInfo {
                        struct_size: [0, 24, u][rng.below(3)],
                        phase: u % 3,
                        block_m: u32s[rng.below(u32s.len())],
                        block_n: u32s[rng.below(u32s.len())],
                        num_kv_splits: u32s[rng.below(u32s.len())],
                        reverse_kv: u % 3,
                    });
                    p.plan = plans.last().unwrap();
                }
            }
        }
        let mut plan = blasst::AttnPlanInfo::default();
        let mut bytes = 0usize;
        for st in unsafe {
            [
                blasst_attn_plan(&p, &mut plan),
                blasst_attn_workspace_size(&p, &mut bytes),
            ]
        } {
            assert_ne!(
                st,
                blasst_status::BLASST_ERROR_INTERNAL,
                "{p:?}: {}",
                last_error()
            );
            if st == blasst_status::BLASST_OK {
                ok += 1;
            } else {
                errors += 1;
                assert!(!last_error().is_empty(), "{st:?} without a message");
                let field = last_error().split([' ', '=']).next().unwrap().to_string();
                *hist.entry(field).or_insert(0) += 1;
            }
        }
    }
    // Both outcomes are common, and the refusals name many different fields (the first word of
    // each message): the mutations reach the checks past the first ones.
    assert!(
        ok > 2_000 && errors > 2_000,
        "{ok} accepted, {errors} refused"
    );
    assert!(hist.len() > 20, "refusals named only {hist:?}");
}
