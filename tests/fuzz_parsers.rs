//! Property test: the spec and checkpoint parsers, fed random bytes and mutations of valid
//! documents, never panic, and every failure is a config error with a message.
//! BLASST_FUZZ_ITERS sets the iteration count (default 20000 per parser).

use blasst::StatusKind;
use blasst::config::{checkpoint, spec};
use blasst::synth::Rng;

const SEEDS: &[&str] = &[
    r#"{"threshold": 0.01}"#,
    r#"{"target_sparsity": 0.7, "disabled_until_timestep": 0.9}"#,
    r#"{"threshold": 0.01, "decode": {"threshold": 0.001}, "prefill": {"target_sparsity": 0.3}}"#,
    r#"{"sparse_attention_config": {"producer": {"name": "modelopt"}, "ignore": ["*.attn2", "[!a]?"],
       "config_groups": {"group_0": {"algorithm": "skip_softmax", "targets": ["WanAttention"],
       "ignore": ["blocks.0.attn1"], "threshold_scale_factor": {"formula": "a * exp(b * target_sparsity)",
       "coefficients": {"a": 2822.62, "b": 4.388}, "prefill": {"a": 1, "b": 2}, "decode": {"a": 3, "b": 4}},
       "target_sparsity": 0.7, "disabled_until_timestep": 0.93}}}}"#,
];

fn mutate(rng: &mut Rng, s: &[u8]) -> Vec<u8> {
    let mut v = s.to_vec();
    for _ in 0..1 + rng.below(4) {
        if v.is_empty() {
            break;
        }
        let i = rng.below(v.len());
        match rng.below(6) {
            0 => v[i] = rng.next_u64() as u8,
            1 => v.truncate(i),
            2 => {
                v.remove(i);
            }
            3 => v.insert(i, b"{}[]\",:0.-e9\\nul"[rng.below(16)]),
            4 => {
                let j = rng.below(v.len());
                let (a, b) = (i.min(j), i.max(j));
                let chunk = v[a..b].to_vec();
                v.splice(i..i, chunk);
            }
            _ => v[i] = b"0123456789"[rng.below(10)],
        }
    }
    v
}

fn check(result: blasst::Result<()>) {
    if let Err(e) = result {
        assert_eq!(e.kind(), StatusKind::Config, "{}", e.message());
        assert!(!e.message().is_empty());
    }
}

#[test]
fn parsers_survive_random_input() {
    let iters: usize = std::env::var("BLASST_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20000);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let (mut ok, mut err) = (0, 0);
    for i in 0..iters {
        let bytes: Vec<u8> = if i % 4 == 0 {
            (0..rng.below(64)).map(|_| rng.next_u64() as u8).collect()
        } else {
            let which = rng.below(SEEDS.len());
            mutate(&mut rng, SEEDS[which].as_bytes())
        };
        let text = String::from_utf8_lossy(&bytes);
        let r1 = spec::parse(&text).map(|_| ());
        let r2 = checkpoint::parse_config(&text, "fuzz").map(|_| ());
        if r1.is_ok() || r2.is_ok() {
            ok += 1;
        } else {
            err += 1;
        }
        check(r1);
        check(r2);
    }
    println!("{iters} inputs: {ok} parsed, {err} rejected");
    assert!(
        ok > 0 && err > 0,
        "the mutations should produce both outcomes"
    );
}
