//! Writes the generated CUDA source of every sm_90a kernel variant whose name contains the
//! argument into the current directory (NAME.cu), so that the line numbers in a
//! compute-sanitizer or ptxas report can be read:
//! `cargo run --release --example dump_source -- skip_paged_small`.
fn main() {
    let pat = std::env::args().nth(1).unwrap_or_default();
    let all = blasst::cuda::nvrtc::Variant::all(blasst::cuda::nvrtc::arch_smem_per_sm("sm_90a"));
    for v in all.iter().filter(|v| v.name().contains(&pat)) {
        let path = format!("{}.cu", v.name());
        std::fs::write(&path, v.source()).expect("write");
        println!("{path}");
    }
}
