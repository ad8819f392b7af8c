//! The `blasst` tool's `plan` command (no GPU: the CPU backend's default plan, an H100/H200's).

use std::process::Command;

fn plan(args: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_blasst"))
        .arg("plan")
        .args(args.split_whitespace())
        .output()
        .expect("run blasst plan");
    assert!(
        out.status.success(),
        "{args}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn plan_prints_decode_row_tiles() {
    // 4 tokens x GQA 8 = 32 packed rows: four 8-row tiles of the row-tile warps decode kernel
    // (one CTA of four warps), a dense call 8 splits (one CTA per multiprocessor), a skip call
    // 16 (two).
    const SPEC: &str = "--batch 4 --kv-heads 4 --seqlen-q 4 --seqlen-kv 32768";
    let s = plan(SPEC);
    assert!(
        s.contains("phase decode  block_m 8  block_n 64  num_kv_splits 8"),
        "{s}"
    );
    let s = plan(&format!("{SPEC} --factor 4"));
    assert!(
        s.contains("phase decode  block_m 8  block_n 64  num_kv_splits 16"),
        "{s}"
    );
    assert!(
        s.contains("packed rows 32 per (sequence, KV head): 4 row tile(s)"),
        "{s}"
    );
    // At d = 256 more than 16 rows are one tile of the portable kernel.
    let s = plan(&format!("{SPEC} --head-dim 256"));
    assert!(
        s.contains("block_m 32 ") && s.contains(": 1 row tile(s)"),
        "{s}"
    );
    // One token, GQA 4: one tile of 4 rows; at 128K keys a skip call has 33 splits (264 CTAs,
    // two per multiprocessor of an H100/H200), a dense one 16 (128 CTAs, one per multiprocessor).
    let s = plan("--seqlen-q 1 --seqlen-kv 131072 --factor 4");
    assert!(s.contains("block_m 4  block_n 64  num_kv_splits 33"), "{s}");
    let s = plan("--seqlen-q 1 --seqlen-kv 131072");
    assert!(s.contains("block_m 4  block_n 64  num_kv_splits 16"), "{s}");
    // Prefill: 16 x 64 tiles, one split, no row-tile line.
    let s = plan("--seqlen-q 512 --seqlen-kv 1024");
    assert!(
        s.starts_with("phase prefill  block_m 16  block_n 64  num_kv_splits 1"),
        "{s}"
    );
    assert!(!s.contains("packed rows"), "{s}");
}

#[test]
fn plan_for_other_gpus() {
    // An A100's decode plan: the portable kernel, two CTAs per multiprocessor of 108 at d = 128
    // (27 splits at 128K keys), one at d = 256 (13).
    const SPEC: &str = "--seqlen-q 1 --seqlen-kv 131072 --factor 4 --gpu a100";
    let s = plan(&format!("{SPEC} --head-dim 128"));
    assert!(
        s.contains("phase decode  block_m 4  block_n 64  num_kv_splits 27"),
        "{s}"
    );
    let s = plan(&format!("{SPEC} --head-dim 256"));
    assert!(
        s.contains("phase decode  block_m 4  block_n 64  num_kv_splits 13"),
        "{s}"
    );
    // A GPU of 100 KB: decode at d = 128 (one CTA per multiprocessor, 142 of them on an L40S),
    // and at d = 256 on 32-key tiles (one CTA per multiprocessor, 128 of them).
    let s = plan("--seqlen-q 1 --seqlen-kv 131072 --factor 4 --gpu 100kb --sms 142 --head-dim 128");
    assert!(
        s.contains("phase decode  block_m 4  block_n 64  num_kv_splits 17"),
        "{s}"
    );
    let s = plan("--seqlen-q 1 --seqlen-kv 131072 --factor 4 --gpu 100kb --head-dim 256");
    assert!(
        s.contains("phase decode  block_m 4  block_n 32  num_kv_splits 16"),
        "{s}"
    );
    // A B200 (148 multiprocessors of 228 KB, the portable kernels): two CTAs per multiprocessor
    // at d = 128 (37 splits over 8 KV heads), one at d = 256 (18), dense and Skip-Softmax alike
    // (on Hopper a dense call at d = 128 takes 16: the Hopper kernel's one-CTA-per-SM plan).
    for (d, splits) in [(128, 37), (256, 18)] {
        for factor in [0, 4] {
            let s = plan(&format!(
                "--seqlen-q 1 --seqlen-kv 131072 --factor {factor} --gpu b200 --head-dim {d}"
            ));
            assert!(
                s.contains(&format!(
                    "phase decode  block_m 4  block_n 64  num_kv_splits {splits}"
                )),
                "d = {d}, factor {factor}: {s}"
            );
        }
    }
}

fn blasst(args: &[&str], cache: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_blasst"))
        .args(args)
        .env("BLASST_CACHE_DIR", cache)
        .output()
        .expect("run blasst")
}

/// `blasst precompile` fills the disk cache without a GPU: a second run finds every kernel
/// cached, a damaged file is compiled again, and a bad architecture or a filter that matches
/// nothing is an error naming the value. (Needs NVRTC, as tests/kernels_compile.rs.)
#[test]
fn precompile_fills_the_disk_cache() {
    if !blasst::cuda::nvrtc::available() {
        assert!(
            std::env::var_os("BLASST_REQUIRE_NVRTC").is_none(),
            "NVRTC is required but libnvrtc.so.13 could not be loaded"
        );
        println!("skipped: NVRTC (libnvrtc.so.13) not found");
        return;
    }
    let dir = std::env::temp_dir().join(format!("blasst-precompile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = ["precompile", "--arch", "sm_80", "--filter", "merge_states"];
    let run = |expect: &str| {
        let out = blasst(&args, &dir);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains(expect), "{text}");
    };
    run("6 kernels for sm_80: 6 compiled, 0 already cached");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 6, "{files:?}");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        assert!(
            name.starts_with("blasst_merge_states_") && name.contains("-sm_80-"),
            "{name}"
        );
        assert!(
            std::fs::read(f).unwrap().starts_with(b"blasst1\n"),
            "{name}"
        );
    }
    run("6 kernels for sm_80: 0 compiled, 6 already cached");
    let mut data = std::fs::read(&files[2]).unwrap();
    let n = data.len();
    data[n - 100] ^= 1;
    std::fs::write(&files[2], &data).unwrap();
    run("6 kernels for sm_80: 1 compiled, 5 already cached");
    // Head dims below a kernel's have kernels of their own: 96 on the d = 128 kernel.
    let out = blasst(
        &[
            "precompile",
            "--arch",
            "sm_80",
            "--filter",
            "merge_states_bf16",
            "--head-dims",
            "96,128",
        ],
        &dir,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("blasst_merge_states_bf16_d96p128: compiled")
            && text.contains("blasst_merge_states_bf16_d128: cached")
            && text.contains("2 kernels for sm_80: 1 compiled, 1 already cached"),
        "{text}"
    );

    for (bad, says) in [
        (
            ["precompile", "--arch", "90a", "--filter", ""],
            "arch = \"90a\"",
        ),
        (
            [
                "precompile",
                "--arch",
                "sm_90a",
                "--filter",
                "no_such_kernel",
            ],
            "filter = \"no_such_kernel\"",
        ),
        (
            ["precompile", "--arch", "sm_80", "--head-dims", "100"],
            "head_dim = 100",
        ),
    ] {
        let out = blasst(&bad, &dir);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Output into a pipe that is already closed (`blasst plan ... | head -0`) ends the tool quietly,
/// as SIGPIPE ends other Unix tools; before, `println!` panicked with "failed printing to stdout".
#[test]
fn plan_into_a_closed_pipe_does_not_panic() {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    let mut fds = [0i32; 2];
    // Close-on-exec: the test harness runs tests on several threads, and a child that another
    // test spawns between pipe() and drop(read_end) would otherwise inherit the read end and
    // keep it open, so the write succeeds and blasst exits 0 (seen once, session 66).
    // SAFETY: `fds` has room for the two descriptors pipe2() writes.
    assert_eq!(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
        0,
        "pipe2()"
    );
    // SAFETY: both descriptors were just opened by pipe2() and are owned here only.
    let (read_end, write_end) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read_end); // every write into the pipe now fails with EPIPE
    let out = Command::new(env!("CARGO_BIN_EXE_blasst"))
        .args(["plan", "--seqlen-q", "1", "--seqlen-kv", "4096"])
        .stdout(write_end)
        .output()
        .expect("run blasst plan");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGPIPE),
        "status {:?}, stderr {stderr}",
        out.status
    );
}
