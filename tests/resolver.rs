//! The resolver (SPEC sections 4 and 5) through the Rust API: factors per mode, component
//! curves, ignore patterns, failed secondaries, every error case, gate boundaries.

use blasst::attn::Phase;
use blasst::{Resolver, StatusKind};
use std::path::{Path, PathBuf};

const WAN: &str = r#"{"_class_name": "WanTransformer3DModel",
 "sparse_attention_config": {"config_groups": {"group_0": {
    "algorithm": "skip_softmax", "targets": ["WanAttention"],
    "ignore": ["blocks.0.attn1", "blocks.0.attn2", "blocks.1.attn1"],
    "threshold_scale_factor": {"formula": "a * exp(b * target_sparsity)",
                               "coefficients": {"a": 2822.6209952221557, "b": 4.388250623520793}},
    "target_sparsity": 0.7, "disabled_until_timestep": 0.93}}}}"#;

const PER_PHASE: &str = r#"{"sparse_attention_config": {"producer": {"name": "modelopt", "version": "0.40"},
 "ignore": ["*.attn2"],
 "config_groups": {"group_0": {"algorithm": "skip_softmax",
    "threshold_scale_factor": {"formula": "a*exp(b*target_sparsity)",
                               "prefill": {"a": 100.0, "b": 3.0}, "decode": {"a": 7.0, "b": 2.0}}}}}}"#;

struct Ckpt(PathBuf);
impl Drop for Ckpt {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn checkpoint(name: &str, comps: &[(&str, &str)]) -> Ckpt {
    let dir = std::env::temp_dir().join(format!("blasst-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (c, text) in comps {
        std::fs::create_dir_all(dir.join(c)).unwrap();
        std::fs::write(dir.join(c).join("config.json"), text).unwrap();
    }
    Ckpt(dir)
}

fn path(c: &Ckpt) -> Option<&Path> {
    Some(c.0.as_path())
}

#[test]
fn threshold_is_threshold_times_l() {
    let r = Resolver::new(
        r#"{"threshold": 0.01, "decode": {"threshold": 0.001}}"#,
        None,
        &[],
    )
    .unwrap();
    for l in [1u32, 17, 1024, 32768, 1 << 20] {
        let f = r.factor("blocks.3.attn1", Phase::Prefill, l, None).unwrap();
        assert!(
            (f as f64 - 0.01 * l as f64).abs() <= 1e-6 * l as f64,
            "L {l}: {f}"
        );
        let f = r.factor("blocks.3.attn1", Phase::Decode, l, None).unwrap();
        assert!((f as f64 - 0.001 * l as f64).abs() <= 1e-6 * l as f64);
    }
    assert_eq!(r.factor("x", Phase::Prefill, 100, None).unwrap(), 1.0);
    let dense = Resolver::new("{}", None, &[]).unwrap();
    assert_eq!(dense.factor("x", Phase::Prefill, 100, None).unwrap(), 0.0);
}

#[test]
fn target_sparsity_uses_each_components_curve() {
    let ck = checkpoint(
        "curves",
        &[("transformer", WAN), ("transformer_2", PER_PHASE)],
    );
    let r = Resolver::new(
        r#"{"target_sparsity": 0.6}"#,
        path(&ck),
        &["transformer", "transformer_2"],
    )
    .unwrap();
    let wan = 2822.6209952221557 * (4.388250623520793f64 * 0.6).exp();
    for l in [1024, 65536] {
        let f = r
            .factor("transformer.blocks.7.attn1", Phase::Prefill, l, None)
            .unwrap();
        assert!((f as f64 - wan).abs() < 1e-3 * wan, "{f} vs {wan}");
    }
    let f = r
        .factor("transformer_2.blocks.7.attn1", Phase::Prefill, 4096, None)
        .unwrap();
    assert!((f as f64 - 100.0 * (1.8f64).exp()).abs() < 1e-3);
    let f = r
        .factor("transformer_2.blocks.7.attn1", Phase::Decode, 4096, None)
        .unwrap();
    assert!((f as f64 - 7.0 * (1.2f64).exp()).abs() < 1e-4);
    // A name with no component prefix belongs to the primary.
    let f = r
        .factor("blocks.7.attn1", Phase::Decode, 4096, None)
        .unwrap();
    assert!((f as f64 - wan).abs() < 1e-3 * wan);
}

#[test]
fn ignored_layers_are_dense() {
    let ck = checkpoint(
        "ignore",
        &[("transformer", WAN), ("transformer_2", PER_PHASE)],
    );
    for spec in [r#"{"target_sparsity": 0.6}"#, r#"{"threshold": 0.05}"#] {
        let r = Resolver::new(spec, path(&ck), &["transformer", "transformer_2"]).unwrap();
        let f = |name: &str| r.factor(name, Phase::Prefill, 4096, None).unwrap();
        // relative name, full name, submodule of an ignored prefix
        assert_eq!(f("transformer.blocks.0.attn1"), 0.0);
        assert_eq!(f("transformer.blocks.1.attn1.to_q"), 0.0);
        assert_eq!(f("blocks.0.attn2"), 0.0);
        assert!(f("transformer.blocks.1.attn2") > 0.0);
        assert!(f("transformer.blocks.10.attn1") > 0.0);
        // top-level ignore of the second component: "*.attn2"
        assert_eq!(f("transformer_2.blocks.5.attn2"), 0.0);
        assert!(f("transformer_2.blocks.5.attn1") > 0.0);
        // the first component's patterns don't apply to the second's layers
        assert!(f("transformer_2.blocks.0.attn1") > 0.0);
        let d = r
            .decide(
                "transformer.blocks.0.attn1.inner",
                Phase::Prefill,
                4096,
                None,
            )
            .unwrap();
        assert!(d.reason.contains("blocks.0.attn1"), "{}", d.reason);
    }
}

#[test]
fn failed_secondary_stays_dense_under_target_sparsity() {
    let ck = checkpoint(
        "secondary",
        &[("transformer", WAN), ("transformer_2", "{not json")],
    );
    let comps = ["transformer", "transformer_2", "transformer_3"];
    let r = Resolver::new(r#"{"target_sparsity": 0.5}"#, path(&ck), &comps).unwrap();
    assert!(
        r.factor("transformer.blocks.5.attn1", Phase::Prefill, 4096, None)
            .unwrap()
            > 0.0
    );
    assert_eq!(
        r.factor("transformer_2.blocks.5.attn1", Phase::Prefill, 4096, None)
            .unwrap(),
        0.0
    );
    assert_eq!(
        r.factor("transformer_3.blocks.5.attn1", Phase::Prefill, 4096, None)
            .unwrap(),
        0.0
    );
    let desc: serde_json::Value = serde_json::from_str(&r.describe()).unwrap();
    assert_eq!(desc["components"][1]["status"], "failed");
    assert_eq!(
        desc["components"][0]["checkpoint_not_applied"]["disabled_until_timestep"],
        0.93
    );
    // Under threshold the secondary still uses the threshold.
    let r = Resolver::new(r#"{"threshold": 0.01}"#, path(&ck), &comps).unwrap();
    assert!(
        r.factor("transformer_2.blocks.5.attn1", Phase::Prefill, 4096, None)
            .unwrap()
            > 0.0
    );
}

#[test]
fn every_error_case() {
    let wrong_formula = WAN.replace("a * exp(b * target_sparsity)", "a * exp(b * s) + c");
    let no_coef = WAN.replace(
        r#""coefficients": {"a": 2822.6209952221557, "b": 4.388250623520793}"#,
        r#""coefficients": {"b": 4.3}"#,
    );
    let two_groups = WAN.replace(
        r#""group_0""#,
        r#""group_9": {"algorithm": "skip_softmax"}, "group_0""#,
    );
    let uncalibrated = r#"{"_class_name": "X"}"#;
    let truncated = &WAN[..WAN.len() / 2];
    let cases: Vec<(&str, Vec<(&str, &str)>, &str, StatusKind, &str)> = vec![
        (
            r#"{"threshold": 0.1, "target_sparsity": 0.5}"#,
            vec![],
            "",
            StatusKind::Config,
            "mutually exclusive",
        ),
        (
            r#"{"threshold": -0.1}"#,
            vec![],
            "",
            StatusKind::Config,
            "\"threshold\" = -0.1",
        ),
        (
            r#"{"target_sparsity": 1.01}"#,
            vec![],
            "",
            StatusKind::Config,
            "\"target_sparsity\" = 1.01",
        ),
        (
            r#"{"threshold": 0.1, "disabled_until_timestep": -0.5}"#,
            vec![],
            "",
            StatusKind::Config,
            "-0.5",
        ),
        (
            r#"{"threshold": 0.1, "mode": "fast"}"#,
            vec![],
            "",
            StatusKind::Config,
            "unknown key \"mode\"",
        ),
        (
            r#"{"threshold": 0.1"#,
            vec![],
            "",
            StatusKind::Config,
            "malformed JSON",
        ),
        (
            r#"{"target_sparsity": 0.5}"#,
            vec![],
            "",
            StatusKind::Config,
            "\"threshold\"",
        ),
        (
            r#"{"target_sparsity": 0.5}"#,
            vec![("transformer", uncalibrated)],
            "transformer",
            StatusKind::Config,
            "use \"threshold\"",
        ),
        (
            r#"{"threshold": 0.1}"#,
            vec![("transformer", &wrong_formula)],
            "transformer",
            StatusKind::Config,
            "\"a * exp(b * s) + c\"",
        ),
        (
            r#"{"threshold": 0.1}"#,
            vec![("transformer", &no_coef)],
            "transformer",
            StatusKind::Config,
            "missing coefficient \"a\"",
        ),
        (
            r#"{"threshold": 0.1}"#,
            vec![("transformer", &two_groups)],
            "transformer",
            StatusKind::Config,
            "more than one skip_softmax group",
        ),
        (
            r#"{"threshold": 0.1}"#,
            vec![("transformer", truncated)],
            "transformer",
            StatusKind::Config,
            "malformed JSON",
        ),
        (
            r#"{"threshold": 0.1}"#,
            vec![],
            "transformer",
            StatusKind::Io,
            "transformer/config.json",
        ),
    ];
    for (i, (spec, files, comp, kind, needle)) in cases.into_iter().enumerate() {
        let ck = checkpoint(&format!("err{i}"), &files);
        let comps: Vec<&str> = if comp.is_empty() { vec![] } else { vec![comp] };
        let dir = if comp.is_empty() { None } else { path(&ck) };
        let e = Resolver::new(spec, dir, &comps)
            .err()
            .unwrap_or_else(|| panic!("case {i}: no error"));
        assert_eq!(e.kind(), kind, "case {i}: {}", e.message());
        assert!(
            e.message().contains(needle),
            "case {i}: {:?} lacks {needle:?}",
            e.message()
        );
    }
    // Non-UTF-8 bytes in a config file.
    let ck = checkpoint("bytes", &[]);
    std::fs::create_dir_all(ck.0.join("transformer")).unwrap();
    std::fs::write(
        ck.0.join("transformer/config.json"),
        b"{\"x\": \"\xff\xfe\"}",
    )
    .unwrap();
    let e = Resolver::new(r#"{"threshold": 0.1}"#, path(&ck), &["transformer"]).unwrap_err();
    assert_eq!(e.kind(), StatusKind::Config);
    assert!(e.message().contains("not valid UTF-8"));
}

#[test]
fn gate_boundaries() {
    let r = Resolver::new(
        r#"{"threshold": 0.01, "disabled_until_timestep": 0.9}"#,
        None,
        &[],
    )
    .unwrap();
    let f = |t: f64| r.factor("l", Phase::Prefill, 1000, Some(t)).unwrap();
    assert_eq!(f(0.9 + 1e-12), 0.0, "just above the cutoff: dense");
    assert_eq!(f(1.0), 0.0);
    assert_eq!(f(0.9), 10.0, "at the cutoff: skipping");
    assert_eq!(f(0.9 - 1e-12), 10.0);
    assert_eq!(f(0.0), 10.0);
    assert_eq!(
        r.factor("l", Phase::Prefill, 1000, Some(1.5))
            .unwrap_err()
            .kind(),
        StatusKind::InvalidArgument
    );
    // Cutoff 0: the gate is off and the timestep is never read, not even validated.
    let r = Resolver::new(r#"{"threshold": 0.01}"#, None, &[]).unwrap();
    for t in [None, Some(0.95), Some(7.0), Some(f64::INFINITY)] {
        assert_eq!(r.factor("l", Phase::Prefill, 1000, t).unwrap(), 10.0);
    }
    // Cutoff 1.0 with a published t: t <= 1 always skips.
    let r = Resolver::new(
        r#"{"threshold": 0.01, "disabled_until_timestep": 1.0}"#,
        None,
        &[],
    )
    .unwrap();
    assert_eq!(
        r.factor("l", Phase::Prefill, 1000, Some(1.0)).unwrap(),
        10.0
    );
    assert_eq!(r.factor("l", Phase::Prefill, 1000, None).unwrap(), 0.0);
}

#[test]
fn dense_steps_match_an_independent_count() {
    for shift in [1.0, 2.0, 3.0, 5.0, 8.0, 12.0] {
        for steps in [1u32, 4, 20, 50, 100] {
            let t = blasst::schedule::flow_shift(shift, steps).unwrap();
            assert_eq!(t.len(), steps as usize + 1);
            for c in [0.0, 0.3, 0.5, 0.8, 0.9, 0.93, 0.99, 1.0] {
                // Independent: step k is dense iff s*u/(1+(s-1)u) > c with u = 1 - k/N, i.e.
                // iff u > c / (s - (s - 1) c) (the schedule is increasing in u).
                let want = if c == 0.0 {
                    0
                } else {
                    let u_star = c / (shift - (shift - 1.0) * c);
                    (0..steps)
                        .filter(|&k| 1.0 - k as f64 / steps as f64 > u_star + 1e-12)
                        .count()
                };
                if t.iter().any(|x| (x - c).abs() < 1e-9 && c > 0.0) && shift != 1.0 {
                    continue; // an exact tie is decided by rounding; shift 1 is exact
                }
                let got = blasst::schedule::dense_steps(&t[..steps as usize], c).unwrap();
                assert_eq!(got, want, "shift {shift} steps {steps} cutoff {c}");
            }
        }
    }
}
