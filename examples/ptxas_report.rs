//! Prints ptxas' register/spill report of every kernel specialisation for one architecture:
//! `BLASST_PTXAS_VERBOSE=1 cargo run --release --example ptxas_report -- sm_90a [name-filter]`
//! (with `BLASST_DUMP_DIR=dir` the cubins are written there too; with a virtual architecture such
//! as `compute_90a`, the PTX; with `BLASST_REPORT_HEAD_DIM=96` the variants of that call head dim,
//! e.g. a padded one, instead of the kernels' own).
fn main() {
    let arch = std::env::args().nth(1).unwrap_or_else(|| "sm_90a".into());
    let only = std::env::args().nth(2); // optional substring filter on the kernel name
    let smem = blasst::cuda::nvrtc::arch_smem_per_sm(&arch);
    let variants = match std::env::var("BLASST_REPORT_HEAD_DIM") {
        Ok(d) => {
            let dim = d.parse().expect("BLASST_REPORT_HEAD_DIM: a head dim");
            blasst::cuda::nvrtc::Variant::for_head_dim(smem, dim).unwrap_or_else(|e| {
                eprintln!("{}", e.message());
                std::process::exit(1)
            })
        }
        Err(_) => blasst::cuda::nvrtc::Variant::all(smem),
    };
    for v in variants {
        if !v.supports(&arch)
            || only
                .as_ref()
                .is_some_and(|f| !v.name().contains(f.as_str()))
        {
            continue;
        }
        match blasst::cuda::nvrtc::compile(&v, &arch) {
            Ok(bin) => {
                // BLASST_DUMP_DIR: also write the cubins, e.g. for nvdisasm.
                if let Some(d) = std::env::var_os("BLASST_DUMP_DIR") {
                    let ext = if arch.starts_with("compute_") {
                        "ptx"
                    } else {
                        "cubin"
                    };
                    let f = std::path::Path::new(&d).join(format!("{}.{ext}", v.name()));
                    std::fs::write(&f, bin).expect("write cubin");
                }
            }
            Err(e) => {
                eprintln!("{}", e.message());
                std::process::exit(1);
            }
        }
    }
}
