//! From a user's spec and a checkpoint's calibration to the `threshold_scale_factor` of one
//! call (SPEC sections 4 and 5).
//!
//! Layer names: a layer belongs to the component whose name followed by `.` starts it
//! (`transformer_2.blocks.3.attn1`); a name that starts with no component's name belongs to
//! the primary (first) component and is its own relative name.

use super::checkpoint::{self, Calibration};
use super::spec::{self, Request, Spec};
use crate::attn::Phase;
use crate::{Error, Result, config_err, invalid, log};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug)]
enum State {
    /// No checkpoint was given.
    NoCheckpoint,
    /// The config was read; it may or may not carry a calibration.
    Read(Option<Calibration>),
    /// A secondary component that could not be read: dense under target_sparsity.
    Failed(String),
}

#[derive(Debug)]
struct Component {
    name: String,
    state: State,
}

impl Component {
    fn calibration(&self) -> Option<&Calibration> {
        match &self.state {
            State::Read(c) => c.as_ref(),
            _ => None,
        }
    }
}

/// Why a call got its factor (for `blasst resolve` and debugging).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub factor: f32,
    pub reason: String,
}

#[derive(Debug)]
pub struct Resolver {
    spec: Spec,
    components: Vec<Component>,
    warned_no_timestep: AtomicBool,
}

fn wants_calibration(spec: &Spec) -> Vec<Phase> {
    [(Phase::Prefill, spec.prefill), (Phase::Decode, spec.decode)]
        .into_iter()
        .filter(|(_, r)| matches!(r, Request::TargetSparsity(_)))
        .map(|(p, _)| p)
        .collect()
}

impl Resolver {
    /// Builds a resolver; nothing is kept on error.
    pub fn new(
        spec_json: &str,
        checkpoint_dir: Option<&Path>,
        components: &[&str],
    ) -> Result<Self> {
        let spec = spec::parse(spec_json)?;
        let needs = wants_calibration(&spec);
        for (i, c) in components.iter().enumerate() {
            if c.is_empty() || c.contains('/') || *c == "." || *c == ".." {
                return Err(invalid!(
                    "components[{i}] = \"{c}\" is not a component folder name"
                ));
            }
        }
        let mut comps = Vec::new();
        match checkpoint_dir {
            None => {
                if !needs.is_empty() {
                    return Err(config_err!(
                        "spec asks for target_sparsity but no checkpoint was given, so there is no calibration; use \"threshold\" (calibration-free) instead"
                    ));
                }
                comps.extend(components.iter().map(|c| Component {
                    name: c.to_string(),
                    state: State::NoCheckpoint,
                }));
            }
            Some(dir) => {
                if components.is_empty() {
                    return Err(invalid!(
                        "num_components = 0 with a checkpoint: name at least the primary component (e.g. \"transformer\")"
                    ));
                }
                for (i, name) in components.iter().enumerate() {
                    let state = match checkpoint::load_component(dir, name) {
                        Ok(c) => State::Read(c),
                        Err(e) if i == 0 => return Err(e),
                        Err(e) => State::Failed(e.message().to_string()),
                    };
                    comps.push(Component {
                        name: name.to_string(),
                        state,
                    });
                }
                let primary = &comps[0];
                for phase in &needs {
                    let has = primary
                        .calibration()
                        .and_then(|c| c.coefficients(*phase))
                        .is_some();
                    if !has {
                        return Err(config_err!(
                            "spec asks for target_sparsity but the primary component \"{}\" has no {} calibration ({}/config.json has no skip_softmax threshold_scale_factor); use \"threshold\" (calibration-free) instead",
                            primary.name,
                            phase.name(),
                            dir.join(&primary.name).display()
                        ));
                    }
                }
                for c in &comps[1..] {
                    match &c.state {
                        State::Failed(e) => log::warn(&format!(
                            "component \"{}\" could not be read, its layers stay dense under target_sparsity: {e}",
                            c.name
                        )),
                        State::Read(cal)
                            if !needs.is_empty()
                                && needs.iter().any(|p| {
                                    cal.as_ref().and_then(|c| c.coefficients(*p)).is_none()
                                }) =>
                        {
                            log::warn(&format!(
                                "component \"{}\" has no calibration; its layers stay dense under target_sparsity",
                                c.name
                            ))
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(Resolver {
            spec,
            components: comps,
            warned_no_timestep: AtomicBool::new(false),
        })
    }

    fn component_of<'a>(&self, layer: &'a str) -> (Option<&Component>, &'a str) {
        for c in &self.components {
            if let Some(rest) = layer
                .strip_prefix(c.name.as_str())
                .and_then(|r| r.strip_prefix('.'))
            {
                return (Some(c), rest);
            }
        }
        (self.components.first(), layer)
    }

    /// The factor for one call and why.
    pub fn decide(
        &self,
        layer: &str,
        phase: Phase,
        max_seqlen_kv: u32,
        timestep: Option<f64>,
    ) -> Result<Decision> {
        if max_seqlen_kv == 0 {
            return Err(invalid!("max_seqlen_kv = 0: must be at least 1"));
        }
        let dense = |reason: String| {
            Ok(Decision {
                factor: 0.0,
                reason,
            })
        };
        let (comp, rel) = self.component_of(layer);
        if let Some(cal) = comp.and_then(Component::calibration)
            && let Some(p) = cal
                .ignore
                .iter()
                .find(|p| p.matches_module(layer) || p.matches_module(rel))
        {
            return dense(format!(
                "dense: layer \"{layer}\" matches ignore pattern \"{}\"",
                p.as_str()
            ));
        }
        let request = match phase {
            Phase::Prefill => self.spec.prefill,
            Phase::Decode => self.spec.decode,
        };
        let l = max_seqlen_kv as f64;
        let (factor, why) = match request {
            Request::Dense => return dense("dense: the spec requests no sparsity".into()),
            Request::Threshold(t) => (t * l, format!("threshold {t} x L {max_seqlen_kv}")),
            Request::TargetSparsity(s) => {
                let cname = comp.map(|c| c.name.as_str()).unwrap_or("");
                match comp
                    .and_then(Component::calibration)
                    .and_then(|c| c.coefficients(phase))
                {
                    Some(c) => (
                        c.factor(s),
                        format!(
                            "{} curve of \"{cname}\": {} * exp({} * {s})",
                            phase.name(),
                            c.a,
                            c.b
                        ),
                    ),
                    None => {
                        return dense(format!(
                            "dense: component \"{cname}\" has no {} calibration",
                            phase.name()
                        ));
                    }
                }
            }
        };
        if factor == 0.0 {
            return dense(format!("dense: {why} = 0"));
        }
        let c = self.spec.disabled_until_timestep;
        if c > 0.0 {
            match timestep {
                None => {
                    if !self.warned_no_timestep.swap(true, Ordering::Relaxed) {
                        log::warn(&format!(
                            "disabled_until_timestep = {c} but the host published no timestep: calls stay dense (warned once per resolver)"
                        ));
                    }
                    return dense(format!(
                        "dense: gate {c} is on and no timestep was published"
                    ));
                }
                Some(t) if !(0.0..=1.0).contains(&t) => {
                    return Err(invalid!(
                        "timestep = {t} is outside [0, 1]: pass scheduler timestep / num_train_timesteps or the sigma"
                    ));
                }
                Some(t) if t > c => {
                    return dense(format!("dense: timestep {t} > disabled_until_timestep {c}"));
                }
                Some(_) => {}
            }
        }
        let f = factor as f32;
        if !f.is_finite() {
            return Err(Error::Config(format!(
                "factor {factor} ({why}) overflows a float"
            )));
        }
        Ok(Decision {
            factor: f,
            reason: why,
        })
    }

    pub fn factor(
        &self,
        layer: &str,
        phase: Phase,
        max_seqlen_kv: u32,
        timestep: Option<f64>,
    ) -> Result<f32> {
        self.decide(layer, phase, max_seqlen_kv, timestep)
            .map(|d| d.factor)
    }

    /// A JSON description: the spec as resolved, and per component its calibration, ignore
    /// patterns and the checkpoint values that are reported but not applied.
    pub fn describe(&self) -> String {
        let req = |r: Request| match r {
            Request::Dense => json!({"mode": "dense"}),
            Request::Threshold(t) => json!({"mode": "threshold", "threshold": t}),
            Request::TargetSparsity(s) => json!({"mode": "target_sparsity", "target_sparsity": s}),
        };
        let coef = |c: Option<checkpoint::Coefficients>| {
            c.map(|c| json!({"a": c.a, "b": c.b}))
                .unwrap_or(Value::Null)
        };
        let comps: Vec<Value> = self
            .components
            .iter()
            .map(|c| match &c.state {
                State::NoCheckpoint => json!({"name": c.name, "status": "no_checkpoint"}),
                State::Failed(e) => json!({"name": c.name, "status": "failed", "error": e}),
                State::Read(None) => json!({"name": c.name, "status": "uncalibrated"}),
                State::Read(Some(cal)) => json!({
                    "name": c.name,
                    "status": if cal.prefill.is_some() || cal.decode.is_some() { "calibrated" } else { "uncalibrated" },
                    "formula": cal.formula,
                    "prefill": coef(cal.prefill),
                    "decode": coef(cal.decode),
                    "ignore": cal.ignore.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
                    "checkpoint_not_applied": cal.info,
                }),
            })
            .collect();
        json!({
            "prefill": req(self.spec.prefill),
            "decode": req(self.spec.decode),
            "disabled_until_timestep": self.spec.disabled_until_timestep,
            "components": comps,
        })
        .to_string()
    }
}
