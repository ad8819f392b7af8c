//! The user's sparsity request (SPEC section 4):
//! `{"threshold": 0.01}`, `{"target_sparsity": 0.7, "disabled_until_timestep": 0.9}`,
//! `{"threshold": 0.01, "decode": {"threshold": 0.001}}`.
//!
//! Decisions where the spec is silent: a per-phase override object (`"prefill"` or
//! `"decode"`) must set exactly one of `threshold` / `target_sparsity` and replaces the
//! top-level request for that phase only; `disabled_until_timestep` is top-level only.

use crate::{Result, config_err};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Request {
    Dense,
    /// lambda itself, independent of length.
    Threshold(f64),
    /// Needs the layer's calibration curve.
    TargetSparsity(f64),
}

#[derive(Debug, Clone)]
pub struct Spec {
    pub prefill: Request,
    pub decode: Request,
    /// 0 = gate off (sentinel).
    pub disabled_until_timestep: f64,
    pub text: Value,
}

fn number(key: &str, v: &Value) -> Result<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(config_err!(
            "spec: \"{key}\" must be a finite number, got {v}"
        )),
    }
}

/// Reads `threshold` / `target_sparsity` out of an object, rejecting any other key not in
/// `extra`.
fn request(obj: &Map<String, Value>, ctx: &str, extra: &[&str]) -> Result<Request> {
    for k in obj.keys() {
        if k != "threshold" && k != "target_sparsity" && !extra.contains(&k.as_str()) {
            return Err(config_err!("spec: unknown key \"{ctx}{k}\""));
        }
    }
    match (obj.get("threshold"), obj.get("target_sparsity")) {
        (Some(_), Some(_)) => Err(config_err!(
            "spec: \"{ctx}threshold\" and \"{ctx}target_sparsity\" are mutually exclusive; set one"
        )),
        (Some(t), None) => {
            let t = number(&format!("{ctx}threshold"), t)?;
            if t < 0.0 {
                return Err(config_err!("spec: \"{ctx}threshold\" = {t} must be >= 0"));
            }
            Ok(Request::Threshold(t))
        }
        (None, Some(s)) => {
            let s = number(&format!("{ctx}target_sparsity"), s)?;
            if !(0.0..=1.0).contains(&s) {
                return Err(config_err!(
                    "spec: \"{ctx}target_sparsity\" = {s} must be in [0, 1]"
                ));
            }
            Ok(Request::TargetSparsity(s))
        }
        (None, None) => Ok(Request::Dense),
    }
}

pub fn parse(text: &str) -> Result<Spec> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| config_err!("spec: malformed JSON: {e}"))?;
    let obj = v
        .as_object()
        .ok_or_else(|| config_err!("spec: must be a JSON object, got {v}"))?;
    let top = request(obj, "", &["disabled_until_timestep", "prefill", "decode"])?;
    let c = match obj.get("disabled_until_timestep") {
        None => 0.0,
        Some(x) => {
            let c = number("disabled_until_timestep", x)?;
            if !(0.0..=1.0).contains(&c) {
                return Err(config_err!(
                    "spec: \"disabled_until_timestep\" = {c} must be in [0, 1]"
                ));
            }
            c
        }
    };
    let phase = |name: &str| -> Result<Request> {
        match obj.get(name) {
            None => Ok(top),
            Some(Value::Object(o)) => {
                let r = request(o, &format!("{name}."), &[])?;
                if r == Request::Dense {
                    return Err(config_err!(
                        "spec: \"{name}\" must set \"threshold\" or \"target_sparsity\""
                    ));
                }
                Ok(r)
            }
            Some(x) => Err(config_err!("spec: \"{name}\" must be an object, got {x}")),
        }
    };
    Ok(Spec {
        prefill: phase("prefill")?,
        decode: phase("decode")?,
        disabled_until_timestep: c,
        text: v.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let s = parse(r#"{"threshold": 0.01}"#).unwrap();
        assert_eq!(s.prefill, Request::Threshold(0.01));
        assert_eq!(s.decode, Request::Threshold(0.01));
        assert_eq!(s.disabled_until_timestep, 0.0);
        let s = parse(r#"{"target_sparsity": 0.7, "disabled_until_timestep": 0.9}"#).unwrap();
        assert_eq!(s.prefill, Request::TargetSparsity(0.7));
        assert_eq!(s.disabled_until_timestep, 0.9);
        let s = parse(r#"{"threshold": 0.01, "decode": {"threshold": 0.001}}"#).unwrap();
        assert_eq!(s.prefill, Request::Threshold(0.01));
        assert_eq!(s.decode, Request::Threshold(0.001));
        let s = parse("{}").unwrap();
        assert_eq!(s.prefill, Request::Dense);
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            (
                r#"{"threshold": 0.1, "target_sparsity": 0.5}"#,
                "mutually exclusive",
            ),
            (r#"{"threshold": -1}"#, "\"threshold\" = -1"),
            (r#"{"target_sparsity": 1.5}"#, "\"target_sparsity\" = 1.5"),
            (
                r#"{"disabled_until_timestep": 2}"#,
                "\"disabled_until_timestep\" = 2",
            ),
            (r#"{"treshold": 0.1}"#, "unknown key \"treshold\""),
            (
                r#"{"decode": {"threshold": 0.1, "x": 1}}"#,
                "unknown key \"decode.x\"",
            ),
            (r#"{"decode": {}}"#, "\"decode\" must set"),
            (r#"{"threshold": "0.1"}"#, "must be a finite number"),
            (r#"{"threshold": 0.1"#, "malformed JSON"),
            (r#"[1]"#, "must be a JSON object"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.kind(), crate::StatusKind::Config, "{text}");
            assert!(e.message().contains(want), "{text}: {}", e.message());
        }
    }
}
