//! Calibration carried by a diffusers-style checkpoint: `<dir>/<component>/config.json` with a
//! `sparse_attention_config` written by NVIDIA ModelOpt (SPEC section 4). Both schemas are
//! read: `"coefficients": {"a", "b"}` (both phases) and per-phase `"prefill"` / `"decode"`.

use super::fnmatch::Pattern;
use crate::attn::Phase;
use crate::{Error, Result, config_err};
use serde_json::{Map, Value};
use std::path::Path;

pub const FORMULA: &str = "a*exp(b*target_sparsity)";

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coefficients {
    pub a: f64,
    pub b: f64,
}

impl Coefficients {
    /// `a * exp(b * s)`.
    pub fn factor(&self, s: f64) -> f64 {
        self.a * (self.b * s).exp()
    }
}

#[derive(Debug, Clone)]
pub struct Calibration {
    pub prefill: Option<Coefficients>,
    pub decode: Option<Coefficients>,
    pub formula: Option<String>,
    /// Group `ignore` patterns, then the top-level `ignore` list.
    pub ignore: Vec<Pattern>,
    /// Recorded but not applied: `targets`, `target_sparsity`, `disabled_until_timestep`,
    /// `producer`.
    pub info: Map<String, Value>,
}

impl Calibration {
    pub fn coefficients(&self, phase: Phase) -> Option<Coefficients> {
        match phase {
            Phase::Prefill => self.prefill,
            Phase::Decode => self.decode,
        }
    }
}

fn coefficients(v: &Value, ctx: &str) -> Result<Coefficients> {
    let o = v
        .as_object()
        .ok_or_else(|| config_err!("{ctx}: must be an object with \"a\" and \"b\", got {v}"))?;
    let get = |k: &str| -> Result<f64> {
        match o.get(k) {
            None => Err(config_err!("{ctx}: missing coefficient \"{k}\"")),
            Some(x) => match x.as_f64() {
                Some(f) if f.is_finite() => Ok(f),
                _ => Err(config_err!("{ctx}.{k} = {x} is not a finite number")),
            },
        }
    };
    let (a, b) = (get("a")?, get("b")?);
    if a <= 0.0 {
        return Err(config_err!(
            "{ctx}.a = {a} must be > 0 (the factor a*exp(b*s) must be positive)"
        ));
    }
    Ok(Coefficients { a, b })
}

fn patterns(v: Option<&Value>, ctx: &str) -> Result<Vec<Pattern>> {
    match v {
        None => Ok(vec![]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|p| {
                p.as_str()
                    .map(Pattern::new)
                    .ok_or_else(|| config_err!("{ctx}: ignore entries must be strings, got {p}"))
            })
            .collect(),
        Some(x) => Err(config_err!(
            "{ctx}: \"ignore\" must be a list of strings, got {x}"
        )),
    }
}

/// Parses a component's `config.json` text. `Ok(None)`: the file has no skip_softmax
/// calibration group.
pub fn parse_config(text: &str, source: &str) -> Result<Option<Calibration>> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| config_err!("{source}: malformed JSON: {e}"))?;
    let root = v
        .as_object()
        .ok_or_else(|| config_err!("{source}: must be a JSON object"))?;
    let Some(sac) = root.get("sparse_attention_config") else {
        return Ok(None);
    };
    let ctx = format!("{source}: sparse_attention_config");
    let sac = sac
        .as_object()
        .ok_or_else(|| config_err!("{ctx} must be an object"))?;
    let groups = match sac.get("config_groups") {
        Some(Value::Object(g)) => g,
        Some(x) => {
            return Err(config_err!(
                "{ctx}.config_groups must be an object, got {x}"
            ));
        }
        None => return Err(config_err!("{ctx} has no \"config_groups\"")),
    };
    let skip: Vec<(&String, &Value)> = groups
        .iter()
        .filter(|(_, g)| g.get("algorithm").and_then(Value::as_str) == Some("skip_softmax"))
        .collect();
    let (gname, group) = match skip.as_slice() {
        [] => return Ok(None),
        [one] => *one,
        many => {
            let names: Vec<_> = many.iter().map(|(n, _)| n.as_str()).collect();
            return Err(config_err!(
                "{ctx}: more than one skip_softmax group ({})",
                names.join(", ")
            ));
        }
    };
    let gctx = format!("{ctx}.config_groups.{gname}");
    let group = group
        .as_object()
        .ok_or_else(|| config_err!("{gctx} must be an object"))?;
    let mut ignore = patterns(group.get("ignore"), &gctx)?;
    ignore.extend(patterns(sac.get("ignore"), &ctx)?);
    let (mut prefill, mut decode, mut formula) = (None, None, None);
    if let Some(tsf) = group.get("threshold_scale_factor") {
        let tctx = format!("{gctx}.threshold_scale_factor");
        let t = tsf
            .as_object()
            .ok_or_else(|| config_err!("{tctx} must be an object, got {tsf}"))?;
        let f = t
            .get("formula")
            .and_then(Value::as_str)
            .ok_or_else(|| config_err!("{tctx}: missing \"formula\""))?;
        let squashed: String = f.chars().filter(|c| !c.is_whitespace()).collect();
        if squashed != FORMULA {
            return Err(config_err!(
                "{tctx}: unsupported formula \"{f}\" (only \"a * exp(b * target_sparsity)\" is supported)"
            ));
        }
        formula = Some(f.to_string());
        if let Some(c) = t.get("coefficients") {
            let c = coefficients(c, &format!("{tctx}.coefficients"))?;
            prefill = Some(c);
            decode = Some(c);
        }
        if let Some(c) = t.get("prefill") {
            prefill = Some(coefficients(c, &format!("{tctx}.prefill"))?);
        }
        if let Some(c) = t.get("decode") {
            decode = Some(coefficients(c, &format!("{tctx}.decode"))?);
        }
        if prefill.is_none() && decode.is_none() {
            return Err(config_err!(
                "{tctx}: missing coefficients (\"coefficients\" or \"prefill\"/\"decode\" with \"a\" and \"b\")"
            ));
        }
    }
    let mut info = Map::new();
    for k in ["targets", "target_sparsity", "disabled_until_timestep"] {
        if let Some(x) = group.get(k) {
            info.insert(k.to_string(), x.clone());
        }
    }
    if let Some(p) = sac.get("producer") {
        info.insert("producer".into(), p.clone());
    }
    Ok(Some(Calibration {
        prefill,
        decode,
        formula,
        ignore,
        info,
    }))
}

/// Reads `<dir>/<component>/config.json`.
pub fn load_component(dir: &Path, component: &str) -> Result<Option<Calibration>> {
    let path = dir.join(component).join("config.json");
    let bytes = std::fs::read(&path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    let text =
        String::from_utf8(bytes).map_err(|_| config_err!("{}: not valid UTF-8", path.display()))?;
    parse_config(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAN: &str = r#"{"_class_name": "WanTransformer3DModel", "sparse_attention_config": {"config_groups": {"group_0": {
        "algorithm": "skip_softmax", "targets": ["WanAttention"],
        "ignore": ["blocks.0.attn1", "blocks.0.attn2", "blocks.1.attn1"],
        "threshold_scale_factor": {"formula": "a * exp(b * target_sparsity)",
            "coefficients": {"a": 2822.6209952221557, "b": 4.388250623520793}},
        "target_sparsity": 0.7, "disabled_until_timestep": 0.93}}}}"#;

    #[test]
    fn wan_schema() {
        let c = parse_config(WAN, "t").unwrap().unwrap();
        let p = c.prefill.unwrap();
        assert_eq!(p.a, 2822.6209952221557);
        assert_eq!(c.decode, c.prefill);
        assert_eq!(c.ignore.len(), 3);
        assert_eq!(c.info["disabled_until_timestep"], 0.93);
    }

    #[test]
    fn per_phase_schema() {
        let t = r#"{"sparse_attention_config": {"producer": {"name": "modelopt"}, "ignore": ["*attn2"],
          "config_groups": {"g": {"algorithm": "skip_softmax", "threshold_scale_factor": {
            "formula": "a*exp(b*target_sparsity)", "prefill": {"a": 10, "b": 2}, "decode": {"a": 3, "b": 1}}}}}}"#;
        let c = parse_config(t, "t").unwrap().unwrap();
        assert_eq!(c.prefill, Some(Coefficients { a: 10.0, b: 2.0 }));
        assert_eq!(c.decode, Some(Coefficients { a: 3.0, b: 1.0 }));
        assert_eq!(c.ignore[0].as_str(), "*attn2");
        assert!(c.info.contains_key("producer"));
    }

    #[test]
    fn errors() {
        let cases = [
            (
                WAN.replace("a * exp(b * target_sparsity)", "a * b ** target_sparsity"),
                "unsupported formula \"a * b ** target_sparsity\"",
            ),
            (
                WAN.replace("\"a\": 2822.6209952221557, ", ""),
                "missing coefficient \"a\"",
            ),
            (
                WAN.replace(
                    "\"group_0\"",
                    "\"g1\": {\"algorithm\": \"skip_softmax\"}, \"group_0\"",
                ),
                "more than one skip_softmax group",
            ),
            (WAN[..120].to_string(), "malformed JSON"),
        ];
        for (text, want) in cases {
            let e = parse_config(&text, "t").unwrap_err();
            assert!(e.message().contains(want), "{}", e.message());
        }
        assert!(parse_config("{}", "t").unwrap().is_none());
    }
}
