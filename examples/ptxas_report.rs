//! Prints ptxas' register/spill report of every kernel specialisation for one architecture:
//! `BLASST_PTXAS_VERBOSE=1 cargo run --release --example ptxas_report -- sm_90a`
fn main() {
    let arch = std::env::args().nth(1).unwrap_or_else(|| "sm_90a".into());
    for v in blasst::cuda::nvrtc::Variant::all() {
        if let Err(e) = blasst::cuda::nvrtc::compile(&v, &arch) {
            eprintln!("{}", e.message());
            std::process::exit(1);
        }
    }
}
