//! Inputs with realistic attention structure (SPEC section 10) and a small seeded generator.
//!
//! Every query has a large component along one "hot" channel; hot keys carry the same
//! component, so `scale * q.k` is about `margin` nats above the noise for hot keys and
//! about N(0, 1) for the rest. Hot keys sit in hot blocks of `HOT_BLOCK` keys: block 0
//! (attention sink), the last block (local window of a decoding query) and random
//! "retrieval" blocks until `hot_fraction` of the blocks are hot. Within a hot block a few
//! keys are hot. The skippable tiles are then the cold ones, with a clear margin.

/// Keys per hot/cold block of the generator.
pub const HOT_BLOCK: usize = 64;

/// splitmix64 with Box-Muller normals: tiny, seeded, reproducible.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn normal(&mut self) -> f32 {
        let u1 = self.uniform().max(1e-300);
        let u2 = self.uniform();
        ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.uniform() * n as f64) as usize % n.max(1)
    }
}

/// Structured Q/K/V for one sequence, layout `[seq][heads][dim]` (f32).
#[derive(Debug, Clone)]
pub struct Structured {
    /// The call these inputs are for: batch 1, contiguous `[seq][heads][dim]`.
    pub shape: crate::cpu::Shape,
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    pub v: Vec<f32>,
    /// `hot[kv_head][key]`.
    pub hot: Vec<Vec<bool>>,
}

/// `margin`: how many nats (after the 1/sqrt(d) scale) hot scores sit above the noise.
pub fn structured(
    lq: usize,
    lk: usize,
    hq: usize,
    hkv: usize,
    d: usize,
    hot_fraction: f64,
    margin: f32,
    seed: u64,
) -> Structured {
    let mut rng = Rng::new(seed);
    let scale = 1.0 / (d as f32).sqrt();
    // Noise channels give scale * q.k ~ N(0, 1) when q, k ~ N(0, 1/sqrt(d-1) * sqrt(d))...
    // keep it simple: entries N(0, 1) give a scaled dot product of std sqrt((d-1)/d) ~ 1.
    let c = (margin / scale).sqrt();
    let blocks = lk.div_ceil(HOT_BLOCK);
    let mut hot = vec![vec![false; lk]; hkv];
    for h in hot.iter_mut() {
        let mut hot_blocks = vec![false; blocks];
        hot_blocks[0] = true;
        hot_blocks[blocks - 1] = true;
        let want = ((hot_fraction * blocks as f64).round() as usize).clamp(1, blocks);
        let mut n = hot_blocks.iter().filter(|&&x| x).count();
        while n < want {
            let b = rng.below(blocks);
            if !hot_blocks[b] {
                hot_blocks[b] = true;
                n += 1;
            }
        }
        for (b, &is_hot) in hot_blocks.iter().enumerate() {
            if is_hot {
                let end = ((b + 1) * HOT_BLOCK).min(lk);
                for _ in 0..4 {
                    let key = b * HOT_BLOCK + rng.below(end - b * HOT_BLOCK);
                    h[key] = true;
                }
            }
        }
    }
    let mut fill = |rows: usize, heads: usize, hot_channel: &dyn Fn(usize, usize) -> f32| {
        let mut x = vec![0f32; rows * heads * d];
        for r in 0..rows {
            for h in 0..heads {
                let row = &mut x[(r * heads + h) * d..(r * heads + h + 1) * d];
                for (i, e) in row.iter_mut().enumerate() {
                    *e = if i == 0 {
                        hot_channel(r, h)
                    } else {
                        rng.normal()
                    };
                }
            }
        }
        x
    };
    let q = fill(lq, hq, &|_, _| c);
    let k = fill(lk, hkv, &|r, h| if hot[h][r] { c } else { 0.0 });
    let v = fill(lk, hkv, &|_, _| 0.0);
    Structured {
        shape: single(lq, lk, hq, hkv, d),
        q,
        k,
        v,
        hot,
    }
}

/// Inputs whose logits follow the inverse-length law the calibration curve assumes: the
/// scaled score of query row i and key j is `beta * E_ij` with `E_ij ~ Exp(1)` i.i.d., so each
/// row's running maximum grows like `beta * ln L`. Made exact by one-hot queries (row i of a
/// head is `sqrt(d) * e_(i mod d)`) and keys whose component i is the logit for row i; rows
/// i and i + d share logits, so use `lq <= d` for full independence. Layout `[seq][heads][dim]`.
pub fn exponential_logits(
    lq: usize,
    lk: usize,
    heads: usize,
    d: usize,
    beta: f32,
    seed: u64,
) -> Structured {
    let mut rng = Rng::new(seed);
    let mut q = vec![0f32; lq * heads * d];
    for t in 0..lq {
        for h in 0..heads {
            q[(t * heads + h) * d + t % d] = (d as f32).sqrt();
        }
    }
    let k = (0..lk * heads * d)
        .map(|_| beta * -(rng.uniform().max(1e-300).ln() as f32))
        .collect();
    let v = (0..lk * heads * d).map(|_| rng.normal()).collect();
    Structured {
        shape: single(lq, lk, heads, heads, d),
        q,
        k,
        v,
        hot: vec![],
    }
}

fn single(lq: usize, lk: usize, hq: usize, hkv: usize, d: usize) -> crate::cpu::Shape {
    crate::cpu::Shape {
        batch: 1,
        seqlen_q: lq,
        seqlen_kv: lk,
        num_q_heads: hq,
        num_kv_heads: hkv,
        head_dim: d,
    }
}

impl Structured {
    /// q, k, v rounded to bf16 (the benchmarks' and tools' element type).
    pub fn to_bf16(&self) -> (Vec<half::bf16>, Vec<half::bf16>, Vec<half::bf16>) {
        let conv = |x: &[f32]| x.iter().map(|&v| half::bf16::from_f32(v)).collect();
        (conv(&self.q), conv(&self.k), conv(&self.v))
    }
}
