//! A model of the Hopper prefill kernel's ring protocol (kernels/prefill_sm90.cu) with the P V
//! overlap (`PV_OVERLAP`, the d = 128 kernels), one barrier pair per slot (contiguous and 64-key
//! pages and up) or K's and V's apart (`OVERLAP_SPLIT`: the small-page kernels since session 66,
//! the others with `BLASST_PREFILL_OVERLAP_SPLIT=1`), run
//! under many random schedules on the CPU: no schedule may deadlock, no copy may land in a slot
//! before every consumer warp is done with what it held, and every read finds the visit it
//! expects. With the overlap a warp reads V of visit t - 1 in visit t (and the dense kernel V of
//! visit 0 at t = 0, with P zero), so V stays in use a visit longer than K: the split releases K
//! after S_t and V in `retire_pv`. The model finds the schedule that reads V of visit 0 before it
//! lands if the split kernel did not wait for it (`no_v0_wait`).
//!
//! Why a model: the GPU tests pass on whatever schedule the hardware runs (tests/
//! warps_protocol_model.rs says how that once hid a deadlock). Keep it in step with the kernel:
//! each step names the kernel's code it stands for.
//!
//! The model: each actor (the producer's copy issuers, each consumer warp, the copy engine) runs
//! from one barrier wait to the next atomically; copies land in any order at any later point.
//! The warpgroups' turn barriers are left out (more schedules, not fewer), and so are the cp.async
//! copies of a visit that reaches past the sequence's end: that is visit 0 only (visits run last
//! to first), whose copies wait for no slot. The ring is the
//! kernel's 3 slots, and 2 and 4 besides.

#[path = "common/mbar_model.rs"]
mod mbar_model;
use blasst::synth::Rng;
use mbar_model::Bar;

const WARPS: usize = 8; // two consumer warpgroups of four warps (the empty barriers' count)

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    K,
    V,
}

/// The protocol's variant under test.
#[derive(Clone, Copy, Debug)]
struct Proto {
    split: bool,      // OVERLAP_SPLIT: K's and V's barriers apart
    skip: bool,       // the Skip-Softmax kernel: P V only where the warpgroup kept the visit
    teams: bool,      // the paged producer: two teams take visits in turn (else one TMA thread)
    no_v0_wait: bool, // a broken split kernel: no wait for V of visit 0 at t = 0
}

/// A producer actor: the visits it copies (from `t` by `stride`) and the tensors it issues.
struct Issuer {
    t: usize,
    stride: usize,
    kinds: Vec<Kind>,
    next: usize, // index into kinds of the next copy (its empty wait first)
}

struct Cta<const NB: usize> {
    p: Proto,
    nv: usize,
    keep: Vec<[bool; 2]>, // [visit][warpgroup]: some warp of it kept the visit (SKIP)
    // full[kind][slot], empty[kind][slot]; without the split only kind 0's are used (a full
    // barrier then expects both copies' bytes: two arrivals here).
    full: [[Bar; NB]; 2],
    empty: [[Bar; NB]; 2],
    held: [[Option<usize>; NB]; 2], // the visit a slot holds, K's and V's
    copies: Vec<(Kind, usize, usize)>,
    issuers: Vec<Issuer>,
    // Consumer warp: (visit t, step); step 0 waits K_t, 1 waits V, 2 issues the turn's MMAs, 3
    // retires P V; t == nv:
    // the last turn (P V of the last visit).
    warps: Vec<(usize, u8)>,
    // Per warp, per tensor: the last visit it is done reading (None: none yet).
    done: Vec<[Option<usize>; 2]>,
}

enum Outcome {
    Finished,
    Deadlock(String),
}

fn parity(t: usize, nb: usize) -> u32 {
    ((t / nb) & 1) as u32
}

impl<const NB: usize> Cta<NB> {
    fn new(p: Proto, nv: usize, rng: &mut Rng) -> Self {
        let keep = (0..nv)
            .map(|_| [rng.below(10) < 4, rng.below(10) < 4])
            .collect();
        let (both, k, v) = (vec![Kind::K, Kind::V], vec![Kind::K], vec![Kind::V]);
        // Who issues which copies: the TMA producer thread issues K then V of each visit in turn
        // (split: each after its own empty wait); a paged team takes every other visit, its K warp
        // and V warp each waiting for their own barrier with the split, together without.
        let issuers: Vec<Issuer> = match (p.teams, p.split) {
            (false, _) => vec![(0, 1, both)],
            (true, false) => vec![(0, 2, both.clone()), (1, 2, both)],
            (true, true) => vec![(0, 2, k.clone()), (0, 2, v.clone()), (1, 2, k), (1, 2, v)],
        }
        .into_iter()
        .map(|(t, stride, kinds)| Issuer {
            t,
            stride,
            kinds,
            next: 0,
        })
        .collect();
        let full_count = if p.split { 1 } else { 2 };
        Cta {
            p,
            nv,
            keep,
            full: [[Bar::new(full_count); NB]; 2],
            empty: [[Bar::new(WARPS as u32); NB]; 2],
            held: [[None; NB]; 2],
            copies: vec![],
            issuers,
            warps: vec![(0, 0); WARPS],
            done: vec![[None; 2]; WARPS],
        }
    }

    /// The barrier index of a tensor: its own with the split, the slot's one pair without.
    fn bi(&self, kind: Kind) -> usize {
        if self.p.split && kind == Kind::V {
            1
        } else {
            0
        }
    }

    /// Issuer `i` runs to its next wait: false if it is blocked or done. (The kernel's producer
    /// loop: `if (t >= NB) mbar_wait(EMPTY, par)`, then the copy; with the split K's and V's
    /// waits apart.)
    fn run_issuer(&mut self, i: usize) -> Result<bool, String> {
        let (t, kind, first) = {
            let is = &self.issuers[i];
            if is.t >= self.nv {
                return Ok(false);
            }
            (is.t, is.kinds[is.next], is.next == 0)
        };
        let sl = t % NB;
        let b = self.bi(kind);
        // Without the split the slot's one empty wait covers both copies (first of the visit).
        let waits = self.p.split || first;
        if waits && t >= NB && !self.empty[b][sl].done(parity(t, NB) ^ 1) {
            return Ok(false);
        }
        // Every warp must be done with the visit the slot held (t - NB).
        if t >= NB {
            let ti = kind as usize;
            for (w, d) in self.done.iter().enumerate() {
                if d[ti].is_none_or(|x| x < t - NB) {
                    return Err(format!(
                        "{kind:?} of visit {t} copied into slot {sl} while warp {w} still reads visit {}",
                        t - NB
                    ));
                }
            }
        }
        self.copies.push((kind, sl, t));
        let is = &mut self.issuers[i];
        is.next += 1;
        if is.next == is.kinds.len() {
            is.next = 0;
            is.t += is.stride;
        }
        Ok(true)
    }

    fn read(&self, kind: Kind, visit: usize, w: usize) -> Result<(), String> {
        let held = self.held[kind as usize][visit % NB];
        if held != Some(visit) {
            return Err(format!(
                "warp {w} reads {kind:?} of visit {visit} in slot {} holding {held:?}",
                visit % NB
            ));
        }
        Ok(())
    }

    /// The visit whose V warp `w`'s P V of visit t reads, if it issues one: t - 1 where its
    /// warpgroup kept it (every visit, dense; t = nv: the last turn's); the dense kernel's P V at
    /// t = 0 reads visit 0's.
    fn pv_visit(&self, t: usize, w: usize) -> Option<usize> {
        match t {
            0 if !self.p.skip => Some(0),
            0 => None,
            _ if !self.p.skip || self.keep[t - 1][w / 4] => Some(t - 1),
            _ => None,
        }
    }

    /// Consumer warp `w` runs to its next wait: false if it is blocked or done.
    fn run_warp(&mut self, w: usize) -> Result<bool, String> {
        let (t, step) = self.warps[w];
        let nv = self.nv;
        if t > nv {
            return Ok(false);
        }
        if t == nv {
            // The last turn: `mbar_wait(b_prv + VBAR_OFF, ph_prv())` (split), P V of visit nv - 1.
            let u = nv - 1;
            if self.p.split && !self.full[1][u % NB].done(parity(u, NB)) {
                return Ok(false);
            }
            if let Some(u) = self.pv_visit(nv, w) {
                self.read(Kind::V, u, w)?;
            }
            self.done[w][1] = Some(u);
            self.warps[w] = (nv + 1, 0);
            return Ok(true);
        }
        let sl = t % NB;
        match step {
            // `mbar_wait(b_cur, ph)`: K of visit t (without the split, K and V).
            0 => {
                if !self.full[0][sl].done(parity(t, NB)) {
                    return Ok(false);
                }
                self.warps[w].1 = 1;
            }
            // Split: `if (t > 0) mbar_wait(b_prv + VBAR_OFF, ph_prv())`, else (dense) V of visit 0.
            1 => {
                if self.p.split {
                    let u = if t > 0 {
                        Some(t - 1)
                    } else if !self.p.skip && !self.p.no_v0_wait {
                        Some(0)
                    } else {
                        None
                    };
                    if let Some(u) = u
                        && !self.full[1][u % NB].done(parity(u, NB))
                    {
                        return Ok(false);
                    }
                }
                self.warps[w].1 = 2;
            }
            // The turn: S_t and P V_{t-1} issued (P V reads V of visit t - 1; dense at t = 0 V of
            // visit 0, P zero); `wg_wait<1>`: S_t done, K_t read (split: K released,
            // `mbar_arrive(b_cur + EMPTY_OFF)`). P V still runs: its V must stay until step 3.
            2 => {
                self.read(Kind::K, t, w)?;
                self.done[w][0] = Some(t);
                if self.p.split {
                    self.empty[0][sl].arrive();
                }
                if let Some(u) = self.pv_visit(t, w) {
                    self.read(Kind::V, u, w)?;
                }
                self.warps[w].1 = 3;
            }
            // `retire_pv` (the dense kernel's in the softmax, the Skip-Softmax kernel's before
            // its branches since session 66; the same step here): P V done, its V still the
            // visit it read; V of visit t - 1 released (split) or its slot.
            _ => {
                if let Some(u) = self.pv_visit(t, w) {
                    self.read(Kind::V, u, w)?;
                }
                if t > 0 {
                    self.done[w][1] = Some(t - 1);
                    let b = self.bi(Kind::V);
                    self.empty[b][(t - 1) % NB].arrive();
                }
                self.warps[w] = (t + 1, 0);
            }
        }
        Ok(true)
    }

    /// A copy in flight lands and arrives on its full barrier.
    fn land(&mut self, i: usize) {
        let (kind, sl, t) = self.copies.swap_remove(i);
        self.held[kind as usize][sl] = Some(t);
        let b = self.bi(kind);
        self.full[b][sl].arrive();
    }

    fn run(&mut self, rng: &mut Rng) -> Result<Outcome, String> {
        let ni = self.issuers.len();
        loop {
            // Actors: the issuers, the warps, then the copies in flight, in a random order; the
            // first that can run does.
            let mut order: Vec<usize> = (0..ni + WARPS + self.copies.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let mut ran = false;
            for a in order {
                ran = if a < ni {
                    self.run_issuer(a)?
                } else if a < ni + WARPS {
                    self.run_warp(a - ni)?
                } else {
                    self.land(a - ni - WARPS);
                    true
                };
                if ran {
                    break;
                }
            }
            if !ran {
                let done = self.warps.iter().all(|&(t, _)| t > self.nv);
                return Ok(if done && self.copies.is_empty() {
                    Outcome::Finished
                } else {
                    Outcome::Deadlock(format!(
                        "issuers at {:?}, warps at {:?}",
                        self.issuers
                            .iter()
                            .map(|i| (i.t, i.next))
                            .collect::<Vec<_>>(),
                        self.warps
                    ))
                });
            }
        }
    }
}

/// Every seed's CTA under a random schedule: the errors and the deadlocks.
fn explore<const NB: usize>(p: Proto, schedules: u64) -> (Vec<String>, Vec<String>) {
    let (mut errors, mut deadlocks) = (vec![], vec![]);
    for seed in 0..schedules {
        let mut rng = Rng::new(seed);
        let nv = 1 + rng.below(10);
        let mut cta = Cta::<NB>::new(p, nv, &mut rng);
        let label = format!("{p:?}, ring {NB}, seed {seed}: {nv} visits");
        match cta.run(&mut rng) {
            Err(e) => errors.push(format!("{label}: {e}")),
            Ok(Outcome::Deadlock(d)) => deadlocks.push(format!("{label}: {d}")),
            Ok(Outcome::Finished) => {}
        }
    }
    (errors, deadlocks)
}

fn protos() -> impl Iterator<Item = Proto> {
    (0..8).map(|i| Proto {
        split: i & 1 != 0,
        skip: i & 2 != 0,
        teams: i & 4 != 0,
        no_v0_wait: false,
    })
}

#[test]
fn the_overlapped_prefill_protocol_never_deadlocks_or_overwrites() {
    use blasst::cuda::nvrtc::{Family, Variant, arch_smem_per_sm};
    let ring = Variant::all(arch_smem_per_sm("sm_90a"))
        .into_iter()
        .filter(|v| v.family == Family::PrefillSm90 && v.head_dim == 128)
        .all(|v| v.source().contains("#define PREFILL90_SLOTS 3\n"));
    assert!(ring, "the model's ring is the kernel's");
    for p in protos() {
        for (errors, deadlocks) in [
            explore::<2>(p, 3000),
            explore::<3>(p, 6000),
            explore::<4>(p, 3000),
        ] {
            assert!(errors.is_empty(), "{}", errors[0]);
            assert!(deadlocks.is_empty(), "{}", deadlocks[0]);
        }
    }
}

/// The model sees the read that the split dense kernel's wait for V of visit 0 prevents: without
/// it some schedule runs the t = 0 P V before V of visit 0 has landed.
#[test]
fn the_model_finds_the_split_kernel_without_its_v0_wait_reading_too_early() {
    let p = Proto {
        split: true,
        skip: false,
        teams: false,
        no_v0_wait: true,
    };
    let (errors, deadlocks) = explore::<3>(p, 6000);
    assert!(deadlocks.is_empty(), "{}", deadlocks[0]);
    assert!(
        errors.iter().any(|e| e.contains("reads V of visit 0")),
        "no schedule read V of visit 0 before it landed"
    );
}
