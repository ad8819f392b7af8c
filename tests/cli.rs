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
    // 4 tokens x GQA 8 = 32 packed rows: two row tiles of the Hopper decode kernel's 16.
    const SPEC: &str = "--batch 4 --kv-heads 4 --seqlen-q 4 --seqlen-kv 32768";
    let s = plan(SPEC);
    assert!(s.contains("phase decode  block_m 16 "), "{s}");
    assert!(
        s.contains("packed rows 32 per (sequence, KV head): 2 row tile(s)"),
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
