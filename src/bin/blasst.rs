//! The `blasst` command-line tool: demo, gating tables, resolving specs, plans.

use blasst::attn::Phase;
use blasst::cpu::{self, Options, Shape};
use blasst::{Resolver, calibrate, schedule, synth};
use clap::{Parser, Subcommand, ValueEnum};
use half::bf16;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "blasst",
    version,
    about = "Skip-Softmax sparse attention: demo, gating tables, spec resolution"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum DeviceArg {
    Auto,
    Cpu,
    Cuda,
}

impl DeviceArg {
    /// Whether to run on the GPU: `cuda` needs one (the error says what is missing), `auto`
    /// takes it when there is one.
    fn use_gpu(self) -> blasst::Result<bool> {
        match self {
            DeviceArg::Cpu => Ok(false),
            DeviceArg::Cuda => blasst::cuda::probe().map(|()| true),
            DeviceArg::Auto => Ok(blasst::cuda::available()),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum PhaseArg {
    Prefill,
    Decode,
}

impl From<PhaseArg> for Phase {
    fn from(p: PhaseArg) -> Phase {
        match p {
            PhaseArg::Prefill => Phase::Prefill,
            PhaseArg::Decode => Phase::Decode,
        }
    }
}

/// The GPU `blasst plan` plans for (decode plans depend on it: the kernel that fits its shared
/// memory, its multiprocessors' CTA slots).
#[derive(Clone, Copy, ValueEnum)]
enum GpuArg {
    /// H100/H200 (sm_90a, 228 KB of shared memory per multiprocessor; 132 of them).
    Hopper,
    /// A100 (sm_80, 164 KB; 108).
    A100,
    /// B200 (sm_100, 228 KB; 148): the portable kernels (blasst has no Blackwell-specific ones).
    B200,
    /// Compute capability 8.6, 8.9 and 12.x: RTX 30/40/50, A10, L4, L40S (100 KB; 128 unless
    /// --sms says otherwise: an RTX 4090 has 128, an L40S 142, an A10 72).
    #[value(name = "100kb")]
    Smem100k,
}

impl GpuArg {
    fn shape(self, sms: Option<usize>) -> blasst::cuda::GpuShape {
        use blasst::cuda::GpuShape;
        let other = |sms, kb: usize| GpuShape {
            sms,
            sm90a: false,
            smem_per_sm: kb * 1024,
        };
        let g = match self {
            GpuArg::Hopper => GpuShape::nominal(),
            GpuArg::A100 => other(108, 164),
            GpuArg::B200 => other(148, 228),
            GpuArg::Smem100k => other(128, 100),
        };
        GpuShape {
            sms: sms.unwrap_or(g.sms),
            ..g
        }
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Run dense and Skip-Softmax attention on structured inputs and compare.
    Demo {
        #[arg(long, value_enum, default_value = "auto")]
        device: DeviceArg,
        #[arg(long, default_value_t = 2048)]
        seqlen: usize,
        #[arg(long, default_value_t = 8)]
        heads: usize,
        #[arg(long, default_value_t = 128)]
        head_dim: usize,
        /// Fraction of key blocks that carry hot keys.
        #[arg(long, default_value_t = 0.3)]
        hot_fraction: f64,
        #[arg(long)]
        causal: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Dense and skip steps of a flow-shifted schedule for each cutoff (how to pick
    /// disabled_until_timestep).
    Schedule {
        #[arg(long)]
        shift: f64,
        #[arg(long)]
        steps: u32,
        /// Cutoffs to tabulate (repeat or comma-separate).
        #[arg(long, value_delimiter = ',', required = true)]
        cutoff: Vec<f64>,
    },
    /// Resolve a spec (and checkpoint) into the factor of one call, and say why.
    Resolve {
        /// Spec JSON, e.g. '{"threshold": 0.01}'.
        #[arg(long)]
        spec: String,
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        /// Components in order, first = primary (repeat or comma-separate).
        #[arg(long = "component", value_delimiter = ',')]
        components: Vec<String>,
        #[arg(long)]
        layer: String,
        #[arg(long)]
        kv_len: u32,
        #[arg(long, value_enum, default_value = "prefill")]
        phase: PhaseArg,
        /// Timestep in [0, 1]; omit for "none published".
        #[arg(long)]
        timestep: Option<f64>,
        /// Also print the resolver's JSON description.
        #[arg(long)]
        describe: bool,
    },
    /// Time prefill attention (bf16, batch 1, Lq = Lk, structured inputs) on the CPU or the GPU
    /// and print TFLOP/s and the measured skipped-tile fraction. The side-by-side comparison
    /// with PyTorch is bench/bench.py on the GPU machine.
    Bench {
        #[arg(long, value_enum, default_value = "auto")]
        device: DeviceArg,
        /// GPU: timed back-to-back calls after one warm-up.
        #[arg(long, default_value_t = 10)]
        iters: usize,
        #[arg(long, default_value_t = 8192)]
        seqlen: usize,
        #[arg(long, default_value_t = 32)]
        heads: usize,
        #[arg(long, default_value_t = 128)]
        head_dim: usize,
        #[arg(long)]
        causal: bool,
        /// threshold (lambda); 0 = dense
        #[arg(long, default_value_t = 0.0)]
        threshold: f64,
    },
    /// Calibrate: one-pass threshold sweeps over generated inputs at several lengths, fit
    /// lambda * L = a * exp(b * S), print the points and the fit, optionally write a
    /// checkpoint component's config.json.
    Calibrate {
        /// exponential (i.i.d. exponential logits: the inverse-length law) or structured.
        #[arg(long, default_value = "exponential")]
        inputs: String,
        #[arg(long, value_delimiter = ',', default_values_t = vec![1024usize, 2048, 4096, 8192])]
        lengths: Vec<usize>,
        #[arg(long, default_value_t = 16)]
        heads: usize,
        #[arg(long, default_value_t = 128)]
        head_dim: usize,
        #[arg(long, value_enum, default_value = "prefill")]
        phase: PhaseArg,
        #[arg(long, default_value_t = 1e-3)]
        lambda_min: f64,
        #[arg(long, default_value_t = 1e5)]
        lambda_max: f64,
        #[arg(long, default_value_t = 32)]
        count: usize,
        #[arg(long, value_enum, default_value = "auto")]
        device: DeviceArg,
        /// config.json to add the skip_softmax group to (coefficients for both phases).
        #[arg(long)]
        write: Option<PathBuf>,
        /// ignore patterns to record with --write.
        #[arg(long = "ignore", value_delimiter = ',')]
        ignore: Vec<String>,
        /// also write the points and the fitted curve as CSV (for plotting).
        #[arg(long)]
        csv: Option<PathBuf>,
    },
    /// Compile the GPU kernels into the disk cache ($BLASST_CACHE_DIR, default
    /// ~/.cache/blasst), so that a deployment's first calls load them instead of compiling
    /// (0.2-1.5 s per kernel variant). Needs NVRTC, not a GPU.
    Precompile {
        /// Target architecture, e.g. sm_90a (Hopper) or sm_80; default: the current GPU's.
        #[arg(long)]
        arch: Option<String>,
        /// Only the kernels whose name contains this (e.g. prefill90_bf16_d128).
        #[arg(long, default_value = "")]
        filter: String,
        /// The head dims to compile kernels for, e.g. 96 or 64,96,128; default: 64, 128 and 256
        /// (other multiples of 8 up to 256 run on the next of those with zero-padded columns,
        /// as kernels of their own, e.g. blasst_fwd_prefill90_bf16_d96p128_dense).
        #[arg(long, value_delimiter = ',')]
        head_dims: Vec<usize>,
    },
    /// Print the plan (tile shape, KV order, splits) of a call.
    Plan {
        #[arg(long, default_value_t = 1)]
        batch: u32,
        #[arg(long, default_value_t = 32)]
        q_heads: u32,
        #[arg(long, default_value_t = 8)]
        kv_heads: u32,
        #[arg(long, default_value_t = 128)]
        head_dim: u32,
        #[arg(long)]
        seqlen_q: u32,
        #[arg(long)]
        seqlen_kv: u32,
        /// threshold_scale_factor of the call (0 = dense): on Hopper a dense decode call at
        /// d = 128 (contiguous, or over pages of 64 keys or more) splits its KV for one CTA per
        /// multiprocessor, a skip call for two.
        #[arg(long, default_value_t = 0.0)]
        factor: f32,
        /// The GPU to plan for (no GPU needed): on a GPU of 100 KB, e.g., d = 256 decode calls
        /// run on 32-key tiles, since 64-key ones do not fit there.
        #[arg(long, value_enum, default_value_t = GpuArg::Hopper)]
        gpu: GpuArg,
        /// That GPU's multiprocessors (default: Hopper 132, A100 108, B200 148, 100kb 128).
        #[arg(long)]
        sms: Option<usize>,
    },
}

fn precompile(arch: Option<String>, filter: &str, head_dims: &[usize]) -> blasst::Result<()> {
    let arch = match arch {
        Some(a) => a,
        None => blasst::cuda::current_arch().map_err(|e| {
            blasst::Error::NoDevice(format!(
                "{} (give --arch, e.g. --arch sm_90a, to compile without a GPU)",
                e.message()
            ))
        })?,
    };
    let t0 = Instant::now();
    let done = blasst::cuda::nvrtc::precompile(&arch, filter, head_dims)?;
    let compiled = done
        .iter()
        .filter(|(_, how)| *how == blasst::cuda::nvrtc::Precompiled::Compiled)
        .count();
    for (name, how) in &done {
        println!("{arch} {name}: {}", format!("{how:?}").to_lowercase());
    }
    println!(
        "{} kernels for {arch}: {compiled} compiled, {} already cached ({:.1} s)",
        done.len(),
        done.len() - compiled,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

fn main() -> ExitCode {
    // A Rust program ignores SIGPIPE, so `println!` into a closed pipe (`blasst plan ... | head`)
    // panicked with "failed printing to stdout". Like other Unix tools, end quietly instead: the
    // default action of SIGPIPE. This is the tool only; the library never touches signals.
    // SAFETY: called once, before any thread is started; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blasst: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> blasst::Result<()> {
    match cli.cmd {
        Cmd::Demo {
            device,
            seqlen,
            heads,
            head_dim,
            hot_fraction,
            causal,
            seed,
        } => demo(device, seqlen, heads, head_dim, hot_fraction, causal, seed),
        Cmd::Schedule {
            shift,
            steps,
            cutoff,
        } => {
            let t = schedule::flow_shift(shift, steps)?;
            let calls = &t[..steps as usize];
            println!("flow-shift schedule: shift {shift}, {steps} steps");
            println!(
                "{:>8}  {:>11}  {:>10}  {:>18}",
                "cutoff", "dense_steps", "skip_steps", "first skipped t"
            );
            for c in cutoff {
                let dense = schedule::dense_steps(calls, c)?;
                let first = calls
                    .get(dense)
                    .map(|x| format!("{x:.4}"))
                    .unwrap_or_else(|| "-".into());
                println!(
                    "{c:>8}  {dense:>11}  {:>10}  {first:>18}",
                    steps as usize - dense
                );
            }
            Ok(())
        }
        Cmd::Resolve {
            spec,
            checkpoint,
            components,
            layer,
            kv_len,
            phase,
            timestep,
            describe,
        } => {
            let names: Vec<&str> = components.iter().map(String::as_str).collect();
            let r = Resolver::new(&spec, checkpoint.as_deref(), &names)?;
            let d = r.decide(&layer, phase.into(), kv_len, timestep)?;
            println!("factor {}", d.factor);
            if d.factor > 0.0 {
                println!("lambda {:.6e}", d.factor as f64 / kv_len as f64);
            }
            println!("why    {}", d.reason);
            if describe {
                println!("{}", r.describe());
            }
            Ok(())
        }
        Cmd::Calibrate {
            inputs,
            lengths,
            heads,
            head_dim,
            phase,
            lambda_min,
            lambda_max,
            count,
            device,
            write,
            ignore,
            csv,
        } => {
            let kind = match inputs.as_str() {
                "exponential" => calibrate::Inputs::Exponential,
                "structured" => calibrate::Inputs::Structured { hot_fraction: 0.2 },
                other => {
                    return Err(blasst::Error::InvalidArgument(format!(
                        "--inputs {other}: use exponential or structured"
                    )));
                }
            };
            if !((1..=32).contains(&count) && lambda_min > 0.0 && lambda_max > lambda_min) {
                return Err(blasst::Error::InvalidArgument(
                    "--count must be 1..=32 and 0 < --lambda-min < --lambda-max".into(),
                ));
            }
            let gpu = device.use_gpu()?;
            let lambdas = calibrate::log_spaced(lambda_min, lambda_max, count);
            let decode = matches!(phase, PhaseArg::Decode);
            let pts =
                calibrate::sweep_points(kind, &lengths, heads, head_dim, decode, &lambdas, gpu, 1)?;
            println!(
                "sweep on the {} ({inputs} inputs, {} phase, {heads} heads, d = {head_dim})",
                if gpu { "GPU" } else { "CPU" },
                Phase::from(phase).name()
            );
            print!("{:>12}", "lambda");
            for l in &lengths {
                print!("  {:>8}", format!("L={l}"));
            }
            println!();
            for (i, lam) in lambdas.iter().enumerate() {
                print!("{lam:>12.4e}");
                for j in 0..lengths.len() {
                    print!("  {:>8.3}", pts[j * lambdas.len() + i].2);
                }
                println!();
            }
            let fit = calibrate::fit_points(&pts)?;
            println!(
                "fit: lambda * L = {:.6} * exp({:.6} * S)   R2 {:.4}, {} points, sparsity {:.3}..{:.3}",
                fit.a, fit.b, fit.r2, fit.num_points, fit.min_sparsity, fit.max_sparsity
            );
            if let Some(path) = csv {
                let mut text = String::from("lambda,L,sparsity,fitted_lambda\n");
                for (lam, len, s) in &pts {
                    text += &format!(
                        "{lam},{len},{s},{}\n",
                        fit.a * (fit.b * s).exp() / *len as f64
                    );
                }
                std::fs::write(&path, text)
                    .map_err(|e| blasst::Error::Io(format!("{}: {e}", path.display())))?;
                println!("points written to {}", path.display());
            }
            if let Some(path) = write {
                let pats: Vec<&str> = ignore.iter().map(String::as_str).collect();
                calibrate::write(&path, &fit, None, &pats)?;
                println!("wrote the skip_softmax group to {}", path.display());
            }
            Ok(())
        }
        Cmd::Bench {
            device,
            iters,
            seqlen,
            heads,
            head_dim,
            causal,
            threshold,
        } => {
            let gpu = device.use_gpu()?;
            let s = synth::structured(seqlen, seqlen, heads, heads, head_dim, 0.3, 12.0, 1);
            let (q, k, v) = s.to_bf16();
            let shape = s.shape;
            let opts = Options {
                causal,
                threshold_scale_factor: (threshold * seqlen as f64) as f32,
                ..Default::default()
            };
            let flops =
                4.0 * (seqlen * seqlen * heads * head_dim) as f64 / if causal { 2.0 } else { 1.0 };
            let (secs, st) = if gpu {
                bench_gpu(shape, &q, &k, &v, opts, iters.max(1))?
            } else {
                let mut o = vec![bf16::ZERO; q.len()];
                let t0 = Instant::now();
                let st = cpu::attention(shape, &q, &k, &v, &mut o, None, opts)?;
                (t0.elapsed().as_secs_f64(), st)
            };
            // The GPU in TFLOP/s, the CPU in GFLOP/s (a few tens).
            let rate = if gpu {
                format!("{:.1} TFLOP/s", flops / secs / 1e12)
            } else {
                format!(
                    "{:.1} GFLOP/s on {} threads",
                    flops / secs / 1e9,
                    rayon::current_num_threads()
                )
            };
            println!(
                "{} bf16 Lq = Lk = {seqlen}, {heads} heads, d = {head_dim}, {}: {:.3} ms, {rate}, skipped {:.1}%",
                if gpu { "cuda" } else { "cpu" },
                if causal { "causal" } else { "non-causal" },
                secs * 1e3,
                st.fraction() * 100.0
            );
            Ok(())
        }
        Cmd::Precompile {
            arch,
            filter,
            head_dims,
        } => precompile(arch, &filter, &head_dims),
        Cmd::Plan {
            batch,
            q_heads,
            kv_heads,
            head_dim,
            seqlen_q,
            seqlen_kv,
            factor,
            gpu,
            sms,
        } => {
            let mut p = blasst::AttnParams::default();
            p.threshold_scale_factor = factor;
            let dummy = [0u64; 2];
            p.device = blasst::attn::BLASST_DEVICE_CPU;
            p.dtype = blasst::attn::BLASST_DTYPE_BF16;
            (p.batch_size, p.num_q_heads, p.num_kv_heads, p.head_dim) =
                (batch, q_heads, kv_heads, head_dim);
            (p.max_seqlen_q, p.max_seqlen_kv) = (seqlen_q, seqlen_kv);
            let ptr = dummy.as_ptr().cast();
            (p.q, p.k, p.v, p.o) = (ptr, ptr, ptr, ptr as *mut _);
            let hd = head_dim as i64;
            (p.q_row_stride, p.q_head_stride) = (q_heads as i64 * hd, hd);
            (p.o_row_stride, p.o_head_stride) = (q_heads as i64 * hd, hd);
            p.o_batch_stride = p.o_row_stride * seqlen_q as i64;
            (
                p.k_row_stride,
                p.k_head_stride,
                p.v_row_stride,
                p.v_head_stride,
            ) = (kv_heads as i64 * hd, hd, kv_heads as i64 * hd, hd);
            // The CUDA plan of this call on `gpu` (the CPU backend's default plan is the H200's).
            let mut d = blasst::attn::validate(&p)?;
            d.gpu = gpu.shape(sms);
            let plan = blasst::attn::default_plan(&d);
            let phase = Phase::try_from(plan.phase)?;
            println!(
                "phase {}  block_m {}  block_n {}  num_kv_splits {}  reverse_kv {}",
                phase.name(),
                plan.block_m,
                plan.block_n,
                plan.num_kv_splits,
                plan.reverse_kv
            );
            if phase == Phase::Decode {
                // Packed rows: query tokens x the query heads sharing a KV head.
                let rows = seqlen_q * (q_heads / kv_heads.max(1));
                println!(
                    "packed rows {rows} per (sequence, KV head): {} row tile(s)",
                    rows.div_ceil(plan.block_m)
                );
            }
            Ok(())
        }
    }
}

fn demo(
    device: DeviceArg,
    seqlen: usize,
    heads: usize,
    head_dim: usize,
    hot_fraction: f64,
    causal: bool,
    seed: u64,
) -> blasst::Result<()> {
    let gpu = device.use_gpu()?;
    if let (DeviceArg::Auto, Err(e)) = (device, blasst::cuda::probe()) {
        println!("no GPU ({}); running on the CPU backend", e.message());
    }
    let s = synth::structured(
        seqlen,
        seqlen,
        heads,
        heads,
        head_dim,
        hot_fraction,
        12.0,
        seed,
    );
    let (q, k, v) = s.to_bf16();
    let shape = s.shape;
    println!(
        "bf16, batch 1, {heads} heads, d = {head_dim}, Lq = Lk = {seqlen}, {}, hot fraction {hot_fraction}, seed {seed}",
        if causal { "causal" } else { "non-causal" }
    );
    let device = if gpu {
        blasst::Device::Cuda
    } else {
        blasst::Device::Cpu
    };
    let run = |out: &mut [bf16], opts: Options| {
        blasst::host::attention(device, shape, &q, &k, &v, out, None, opts)
    };
    println!(
        "device: {}{}",
        if gpu { "CUDA" } else { "CPU" },
        if gpu {
            " (times include host<->device copies; kernel timings: bench/RESULTS.md)"
        } else {
            ""
        }
    );
    let mut dense = vec![bf16::ZERO; q.len()];
    // Warm-up: the first GPU call compiles its kernels (NVRTC, then cached on disk).
    run(
        &mut dense,
        Options {
            causal,
            threshold_scale_factor: 1.0,
            ..Default::default()
        },
    )?;
    let t0 = Instant::now();
    run(
        &mut dense,
        Options {
            causal,
            ..Default::default()
        },
    )?;
    let dense_ms = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "{:>10}  {:>12}  {:>9}  {:>12}  {:>10}",
        "threshold", "factor", "skipped", "max |err|", "time ms"
    );
    println!(
        "{:>10}  {:>12}  {:>9}  {:>12}  {:>10.1}",
        "dense", 0, "-", "-", dense_ms
    );
    for thr in [1e-4f64, 1e-3, 1e-2, 1e-1] {
        let factor = (thr * seqlen as f64) as f32;
        let mut out = vec![bf16::ZERO; q.len()];
        let t0 = Instant::now();
        let st = run(
            &mut out,
            Options {
                causal,
                threshold_scale_factor: factor,
                ..Default::default()
            },
        )?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let err = out
            .iter()
            .zip(&dense)
            .map(|(a, b)| (a.to_f32() - b.to_f32()).abs())
            .fold(0f32, f32::max);
        println!(
            "{thr:>10}  {factor:>12}  {:>8.1}%  {err:>12.3e}  {ms:>10.1}",
            st.fraction() * 100.0
        );
    }
    Ok(())
}

/// Times `iters` back-to-back GPU calls on device-resident inputs (one warm-up call first).
fn bench_gpu(
    shape: Shape,
    q: &[bf16],
    k: &[bf16],
    v: &[bf16],
    opts: Options,
    iters: usize,
) -> blasst::Result<(f64, cpu::SkipStats)> {
    use blasst::cuda::DeviceBuffer;
    let mut p = cpu::contiguous_params(
        shape,
        blasst::attn::BLASST_DTYPE_BF16,
        blasst::attn::BLASST_DEVICE_CUDA,
        &opts,
    )?;
    let (dq, dk, dv) = (
        DeviceBuffer::from_slice(q)?,
        DeviceBuffer::from_slice(k)?,
        DeviceBuffer::from_slice(v)?,
    );
    let d_o = DeviceBuffer::new(std::mem::size_of_val(q))?;
    let d_stats = DeviceBuffer::new(16)?;
    (p.q, p.k, p.v, p.o) = (dq.ptr(), dk.ptr(), dv.ptr(), d_o.ptr());
    p.skip_stats = d_stats.ptr().cast();
    // SAFETY: device buffers of the sizes the shape describes.
    unsafe { blasst::attn::run(&p, std::ptr::null_mut())? };
    let mut st = [0u64; 2];
    d_stats.copy_to(&mut st)?;
    p.skip_stats = std::ptr::null_mut();
    blasst::cuda::synchronize()?;
    let t0 = Instant::now();
    for _ in 0..iters {
        unsafe { blasst::attn::run(&p, std::ptr::null_mut())? };
    }
    blasst::cuda::synchronize()?;
    Ok((
        t0.elapsed().as_secs_f64() / iters as f64,
        cpu::SkipStats {
            visited: st[0],
            skipped: st[1],
        },
    ))
}
