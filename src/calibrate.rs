//! Calibration (SPEC section 6): fitting `lambda * L = a * exp(b * S)` to measured
//! sparsities and writing the curve into a checkpoint component's `config.json`.

use crate::config::checkpoint::FORMULA;
use crate::{Error, Result, config_err, invalid};
use serde_json::{Map, Value, json};
use std::path::Path;

/// Sparsities outside this band carry little information about the curve.
pub const FIT_MIN_SPARSITY: f64 = 0.10;
pub const FIT_MAX_SPARSITY: f64 = 0.90;

/// The result of a fit (`blasst_calib_fit`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CalibFit {
    pub a: f64,
    pub b: f64,
    /// Coefficient of determination of the log-linear fit.
    pub r2: f64,
    /// Points with sparsity in [0.10, 0.90] that the fit used.
    pub num_points: u32,
    pub min_sparsity: f64,
    pub max_sparsity: f64,
}

/// Least squares of `ln(lambda * L)` on `S` over the points with `S` in [0.10, 0.90].
pub fn fit(lambdas: &[f64], seq_lens: &[u32], sparsities: &[f64]) -> Result<CalibFit> {
    if lambdas.len() != seq_lens.len() || lambdas.len() != sparsities.len() {
        return Err(invalid!(
            "lambdas, seq_lens and sparsities must have the same length"
        ));
    }
    let mut pts = Vec::new();
    for i in 0..lambdas.len() {
        let (lam, l, s) = (lambdas[i], seq_lens[i], sparsities[i]);
        if !lam.is_finite() || lam <= 0.0 {
            return Err(invalid!("lambdas[{i}] = {lam} must be finite and > 0"));
        }
        if l == 0 {
            return Err(invalid!("seq_lens[{i}] = 0 must be at least 1"));
        }
        if !s.is_finite() || !(0.0..=1.0).contains(&s) {
            return Err(invalid!("sparsities[{i}] = {s} must be in [0, 1]"));
        }
        if (FIT_MIN_SPARSITY..=FIT_MAX_SPARSITY).contains(&s) {
            pts.push((s, (lam * l as f64).ln()));
        }
    }
    if pts.len() < 3 {
        return Err(invalid!(
            "only {} points have sparsity in [{FIT_MIN_SPARSITY}, {FIT_MAX_SPARSITY}]; the fit needs at least 3",
            pts.len()
        ));
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx <= 1e-12 * n {
        return Err(invalid!(
            "degenerate data: every usable point has sparsity {mx:.4}; vary the candidate lambdas"
        ));
    }
    let b = sxy / sxx;
    let ln_a = my - b * mx;
    let ss_res: f64 = pts.iter().map(|p| (p.1 - (ln_a + b * p.0)).powi(2)).sum();
    let r2 = if syy > 0.0 { 1.0 - ss_res / syy } else { 1.0 };
    Ok(CalibFit {
        a: ln_a.exp(),
        b,
        r2,
        num_points: pts.len() as u32,
        min_sparsity: pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min),
        max_sparsity: pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max),
    })
}

/// [`fit`] over `(lambda, L, sparsity)` points as `sweep_points` returns them.
pub fn fit_points(points: &[(f64, u32, f64)]) -> Result<CalibFit> {
    let lambdas: Vec<f64> = points.iter().map(|p| p.0).collect();
    let lens: Vec<u32> = points.iter().map(|p| p.1).collect();
    let sparsities: Vec<f64> = points.iter().map(|p| p.2).collect();
    fit(&lambdas, &lens, &sparsities)
}

fn check_fit(name: &str, f: &CalibFit) -> Result<()> {
    if !f.a.is_finite() || f.a <= 0.0 || !f.b.is_finite() {
        return Err(invalid!(
            "{name}: a = {}, b = {} must be finite with a > 0",
            f.a,
            f.b
        ));
    }
    Ok(())
}

fn fit_json(f: &CalibFit) -> Value {
    json!({"a": f.a, "b": f.b})
}

/// Adds or replaces the skip_softmax group of `sparse_attention_config` in `config_path`,
/// keeping every other key; with only a prefill fit the `coefficients` schema (both phases)
/// is written, with both the per-phase schema. Written to a temporary file and renamed, so a
/// failure leaves the old file as it was.
pub fn write(
    config_path: &Path,
    prefill: &CalibFit,
    decode: Option<&CalibFit>,
    ignore: &[&str],
) -> Result<()> {
    check_fit("prefill", prefill)?;
    if let Some(d) = decode {
        check_fit("decode", d)?;
    }
    let text = std::fs::read_to_string(config_path)
        .map_err(|e| Error::Io(format!("{}: {e}", config_path.display())))?;
    let mut root: Value = serde_json::from_str(&text)
        .map_err(|e| config_err!("{}: malformed JSON: {e}", config_path.display()))?;
    let obj = root
        .as_object_mut()
        .ok_or_else(|| config_err!("{}: must be a JSON object", config_path.display()))?;
    let mut tsf = Map::new();
    tsf.insert("formula".into(), json!("a * exp(b * target_sparsity)"));
    debug_assert_eq!(FORMULA, "a*exp(b*target_sparsity)");
    match decode {
        None => {
            tsf.insert("coefficients".into(), fit_json(prefill));
        }
        Some(d) => {
            tsf.insert("prefill".into(), fit_json(prefill));
            tsf.insert("decode".into(), fit_json(d));
        }
    }
    let quality = |f: &CalibFit| json!({"r2": f.r2, "num_points": f.num_points, "min_sparsity": f.min_sparsity, "max_sparsity": f.max_sparsity});
    let mut group = json!({
        "algorithm": "skip_softmax",
        "ignore": ignore,
        "threshold_scale_factor": tsf,
        "calibration": {"prefill": quality(prefill)},
    });
    if let Some(d) = decode {
        group["calibration"]["decode"] = quality(d);
    }
    let sac = obj
        .entry("sparse_attention_config")
        .or_insert_with(|| json!({}));
    let sac = sac.as_object_mut().ok_or_else(|| {
        config_err!(
            "{}: sparse_attention_config must be an object",
            config_path.display()
        )
    })?;
    sac.insert(
        "producer".into(),
        json!({"name": "blasst", "version": env!("CARGO_PKG_VERSION")}),
    );
    let groups = sac.entry("config_groups").or_insert_with(|| json!({}));
    let groups = groups
        .as_object_mut()
        .ok_or_else(|| config_err!("{}: config_groups must be an object", config_path.display()))?;
    let existing = groups
        .iter()
        .find(|(_, g)| g.get("algorithm").and_then(Value::as_str) == Some("skip_softmax"))
        .map(|(k, _)| k.clone());
    match existing {
        Some(k) => {
            // Keep keys of the old group we do not own (targets, target_sparsity, ...).
            if let Some(old) = groups.get(&k).and_then(Value::as_object) {
                for (key, v) in old {
                    if group.get(key).is_none() {
                        group[key] = v.clone();
                    }
                }
            }
            groups.insert(k, group);
        }
        None => {
            let mut i = 0;
            while groups.contains_key(&format!("group_{i}")) {
                i += 1;
            }
            groups.insert(format!("group_{i}"), group);
        }
    }
    let out = serde_json::to_string_pretty(&root).map_err(|e| Error::Internal(e.to_string()))?;
    let tmp = config_path.with_extension(format!("json.tmp{}", std::process::id()));
    std::fs::write(&tmp, out + "\n").map_err(|e| Error::Io(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, config_path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::Io(format!("{}: {e}", config_path.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_curve() {
        let (a, b) = (2822.62, 4.388);
        let mut lam = vec![];
        let mut lens = vec![];
        let mut sp = vec![];
        for &l in &[1024u32, 4096, 16384] {
            for k in 0..9 {
                let s = 0.05 + 0.1 * k as f64;
                lam.push(a * (b * s).exp() / l as f64);
                lens.push(l);
                sp.push(s);
            }
        }
        let f = fit(&lam, &lens, &sp).unwrap();
        assert!(
            (f.a - a).abs() / a < 1e-9 && (f.b - b).abs() < 1e-9,
            "{f:?}"
        );
        assert!(f.r2 > 0.999999);
        assert_eq!(f.num_points, 24); // s = 0.05 is outside [0.10, 0.90]
        assert!((f.min_sparsity - 0.15).abs() < 1e-12 && (f.max_sparsity - 0.85).abs() < 1e-12);
        // Too few usable points.
        assert!(fit(&[0.1, 0.2, 0.3], &[1, 1, 1], &[0.05, 0.5, 0.95]).is_err());
        // Degenerate.
        assert!(fit(&[0.1, 0.2, 0.3], &[1, 1, 1], &[0.5, 0.5, 0.5]).is_err());
    }
}

/// Calibration inputs made by the library (the CLI and tests).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Inputs {
    /// i.i.d. exponential logits: follow the inverse-length law exactly.
    Exponential,
    /// The structured benchmark generator (sink, local, retrieval, noise).
    Structured { hot_fraction: f64 },
}

/// Runs the one-pass sweep over generated inputs at each KV length and returns
/// `(lambda, L, sparsity)` points. bf16, `heads` MHA heads (each head its own draw, so more
/// heads average more); prefill uses 128 query rows (Lq = min(L, 128): two row tiles), decode Lq = 1.
pub fn sweep_points(
    inputs: Inputs,
    lengths: &[usize],
    heads: usize,
    head_dim: usize,
    decode: bool,
    lambdas: &[f32],
    gpu: bool,
    seed: u64,
) -> Result<Vec<(f64, u32, f64)>> {
    use crate::cpu::Options;
    use half::bf16;
    let mut points = vec![];
    for (i, &l) in lengths.iter().enumerate() {
        let lq = if decode { 1 } else { l.min(128) };
        let s = match inputs {
            Inputs::Exponential => {
                crate::synth::exponential_logits(lq, l, heads, head_dim, 1.0, seed + i as u64)
            }
            Inputs::Structured { hot_fraction } => crate::synth::structured(
                lq,
                l,
                heads,
                heads,
                head_dim,
                hot_fraction,
                12.0,
                seed + i as u64,
            ),
        };
        let (q, k, v) = s.to_bf16();
        let shape = s.shape;
        let mut o = vec![bf16::ZERO; q.len()];
        let device = if gpu {
            crate::attn::Device::Cuda
        } else {
            crate::attn::Device::Cpu
        };
        let (visited, skipped) = crate::host::calibrate_sweep(
            device,
            shape,
            &q,
            &k,
            &v,
            &mut o,
            Options::default(),
            lambdas,
        )?;
        for (lam, sk) in lambdas.iter().zip(skipped) {
            points.push((*lam as f64, l as u32, sk as f64 / visited.max(1) as f64));
        }
    }
    Ok(points)
}

/// `count` candidate lambdas log-spaced over [lo, hi].
pub fn log_spaced(lo: f64, hi: f64, count: usize) -> Vec<f32> {
    (0..count)
        .map(|i| {
            (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / (count.max(2) - 1) as f64).exp() as f32
        })
        .collect()
}
