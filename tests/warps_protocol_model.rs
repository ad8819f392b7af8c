//! A model of the row-tile warps decode kernel's barrier protocol (kernels/decode_warps_sm90.cu,
//! Skip-Softmax and dense builds), run under many random schedules on the CPU: no schedule may
//! deadlock, no copy may overwrite a slot before every warp is done with it, every read finds
//! the tile it expects, and the producer reads each tile's decisions, not a later tile's.
//!
//! Why a model: the GPU tests pass on whatever schedule the hardware happens to run, and in
//! session 47 the skip build did pass them while it could deadlock: a warp that skipped tile t
//! freed its V slot at once, so when every warp skipped t and freed the slot before the producer's
//! wait for the slot's previous tile, that wait saw the phase after it (an mbarrier parity wait
//! cannot tell phases two apart) and the CTA hung, as it did under memcheck (runs 253-255). The
//! model finds that schedule in the protocol as it was (`frees_skipped_v_at_once`), and none in
//! the kernel's protocol since session 48. Keep it in step with the kernel: each step below names
//! the kernel's code it stands for.
//!
//! The model: mbarriers with an expected count and a phase (`try_wait.parity(P)` succeeds while
//! the current phase's parity differs from P); copies complete (land, then arrive on their full
//! barrier) at any later point of the schedule; each actor (the producer warp, each consumer warp,
//! the copy engine) runs from one barrier wait to the next atomically. The ring is the kernel's 3
//! slots, and 2 and 4 besides.

/// The kernel's K and V ring slots (nvrtc::decode_warps_ring); the model also runs 2 and 4, so
/// a retuned ring keeps a checked protocol.
const KERNEL_ST: usize = 3;
const DS: usize = 2; // decision ring

#[path = "common/mbar_model.rs"]
mod mbar_model;
use blasst::synth::Rng;
use mbar_model::Bar;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    K,
    V,
}

/// Where an actor stands: `it` is its loop iteration, `step` the place inside it.
#[derive(Clone, Copy)]
struct Pc {
    it: usize,
    step: u8,
}

/// One CTA of the kernel with a ring of `ST` slots.
struct Cta<const ST: usize> {
    skip: bool,
    frees_skipped_v_at_once: bool,
    n: usize,
    nact: usize,
    keep: Vec<Vec<bool>>, // [warp][tile iteration]: the warp's decision
    kfull: [Bar; ST],
    vfull: [Bar; ST],
    kempty: [Bar; ST],
    vempty: [Bar; ST],
    decided: [Bar; DS],
    kslot: [Option<usize>; ST], // the tile (iteration) a slot holds
    vslot: [Option<usize>; ST],
    keepw: [Vec<Option<(usize, bool)>>; DS], // [ring][warp]: (tile, kept)
    copies: Vec<(Kind, usize, usize)>,       // in flight: (tensor, slot, tile)
    producer: Pc,
    producer_keep: bool, // what the producer read from keepw for the tile whose V it handles
    consumers: Vec<Pc>,
    prev: Vec<bool>,
    // What every warp has finished reading: the last tile of each slot whose K / V it is done with.
    k_done: Vec<[Option<usize>; ST]>,
    v_done: Vec<[Option<usize>; ST]>,
    pv: Vec<usize>, // P V products per warp
}

enum Outcome {
    Finished,
    Deadlock(String),
}

impl<const ST: usize> Cta<ST> {
    fn new(
        skip: bool,
        frees_skipped_v_at_once: bool,
        n: usize,
        nact: usize,
        rng: &mut Rng,
    ) -> Self {
        // Mostly skipped tiles (70 %), with runs of tiles that every warp skips.
        let keep = (0..nact)
            .map(|_| (0..n).map(|_| rng.below(10) < 3).collect())
            .collect();
        // The empty barriers count one arrival per warp here; the kernel's count 32 per warp
        // since session 54 (every lane arrives, after its own reads: racecheck follows that,
        // not a __syncwarp before lane 0's arrival), all of a warp's at one point of its
        // program, which this model's atomic steps already take as one event.
        let nb = nact as u32;
        Cta {
            skip,
            frees_skipped_v_at_once,
            n,
            nact,
            keep,
            kfull: [Bar::new(1); ST],
            vfull: [Bar::new(1); ST],
            kempty: [Bar::new(nb); ST],
            vempty: [Bar::new(nb); ST],
            decided: [Bar::new(nb); DS],
            kslot: [None; ST],
            vslot: [None; ST],
            keepw: std::array::from_fn(|_| vec![None; nact]),
            copies: vec![],
            producer: Pc { it: 0, step: 0 },
            producer_keep: false,
            consumers: vec![Pc { it: 0, step: 0 }; nact],
            prev: vec![false; nact],
            k_done: vec![[None; ST]; nact],
            v_done: vec![[None; ST]; nact],
            pv: vec![0; nact],
        }
    }

    fn parity(it: usize, ring: usize) -> u32 {
        ((it / ring) & 1) as u32
    }

    /// A copy of `tile` into a slot may start only once every warp is done with the tile the slot
    /// held before (tile - ST).
    fn issue(&mut self, kind: Kind, tile: usize) -> Result<(), String> {
        let sl = tile % ST;
        if tile >= ST {
            let done = if kind == Kind::K {
                &self.k_done
            } else {
                &self.v_done
            };
            for (w, d) in done.iter().enumerate() {
                // A warp that skipped the slot's previous V never reads it.
                let reads = kind == Kind::K || !self.skip || self.keep[w][tile - ST];
                if reads && d[sl].is_none_or(|x| x < tile - ST) {
                    return Err(format!(
                        "{kind:?} of tile {tile} copied into slot {sl} while warp {w} still reads tile {}",
                        tile - ST
                    ));
                }
            }
        }
        self.copies.push((kind, sl, tile));
        Ok(())
    }

    /// The producer warp (the kernel's `if (warp == NW)` loop) runs to its next wait: false if
    /// it is blocked or done.
    fn run_producer(&mut self) -> Result<bool, String> {
        let n = self.n;
        let Pc { it, step } = self.producer;
        if it > n {
            return Ok(false);
        }
        let sl = it % ST;
        match step {
            // `if (it >= ST) mbar_wait(KEMPTY(sl), par)`, K's copies.
            0 => {
                if it < n {
                    if it >= ST && !self.kempty[sl].done(Self::parity(it, ST) ^ 1) {
                        return Ok(false);
                    }
                    self.issue(Kind::K, it)?;
                }
                // Then V of tile it - 1 (both builds since session 49; the dense build copied V
                // with its own K before): SKIP after its decisions, dense at once (keep = 1).
                self.producer_keep = !self.skip;
                self.producer.step = match (it >= 1, self.skip) {
                    (false, _) => 3,
                    (true, true) => 1,
                    (true, false) => 2,
                };
            }
            // SKIP: `mbar_wait(DECIDED(t % DS), ...)`, then `keepw[t % DS]` read.
            1 => {
                let t = it - 1;
                if !self.decided[t % DS].done(Self::parity(t, DS)) {
                    return Ok(false);
                }
                let mut keep = false;
                for (w, e) in self.keepw[t % DS].iter().enumerate() {
                    match e {
                        Some((tile, k)) if *tile == t => keep |= k,
                        other => {
                            return Err(format!(
                                "producer read warp {w}'s decision {other:?} for tile {t}"
                            ));
                        }
                    }
                }
                self.producer_keep = keep;
                self.producer.step = 2;
            }
            // `if (t >= ST) mbar_wait(VEMPTY(sl), ...)`, then V's copy if a warp kept t (dense:
            // always), else a plain arrival on VFULL.
            2 => {
                let t = it - 1;
                let sl = t % ST;
                if t >= ST && !self.vempty[sl].done(Self::parity(t, ST) ^ 1) {
                    return Ok(false);
                }
                if self.producer_keep {
                    self.issue(Kind::V, t)?;
                } else {
                    self.vfull[sl].arrive();
                }
                self.producer.step = 3;
            }
            _ => {
                self.producer = Pc {
                    it: it + 1,
                    step: 0,
                }
            }
        }
        Ok(true)
    }

    /// Consumer warp `w` (the kernel's loop `for (int it = 0; it <= n; ++it)`).
    fn run_consumer(&mut self, w: usize) -> Result<bool, String> {
        let n = self.n;
        let Pc { it, step } = self.consumers[w];
        if it > n {
            return Ok(false);
        }
        match step {
            // `mbar_wait(KFULL(sl), ...)`, S, `KEMPTY` arrival, the vote, keepw and `DECIDED`.
            0 => {
                if it < n {
                    let sl = it % ST;
                    if !self.kfull[sl].done(Self::parity(it, ST)) {
                        return Ok(false);
                    }
                    if self.kslot[sl] != Some(it) {
                        return Err(format!(
                            "warp {w} read K slot {sl} holding {:?}, not tile {it}",
                            self.kslot[sl]
                        ));
                    }
                    self.k_done[w][sl] = Some(it);
                    self.kempty[sl].arrive();
                    if self.skip {
                        self.keepw[it % DS][w] = Some((it, self.keep[w][it]));
                        self.decided[it % DS].arrive();
                    }
                }
                self.consumers[w].step = 1;
            }
            // The previous tile's P V: the V wait (since session 48 whether or not this warp
            // kept the tile; before, only if it did), then `VEMPTY`.
            1 => {
                if it >= 1 {
                    let t = it - 1;
                    let sl = t % ST;
                    let kept = !self.skip || self.prev[w];
                    let waits = kept || !self.frees_skipped_v_at_once;
                    if waits && !self.vfull[sl].done(Self::parity(t, ST)) {
                        return Ok(false);
                    }
                    if kept {
                        if self.vslot[sl] != Some(t) {
                            return Err(format!(
                                "warp {w} read V slot {sl} holding {:?}, not tile {t}",
                                self.vslot[sl]
                            ));
                        }
                        self.pv[w] += 1;
                    }
                    self.v_done[w][sl] = Some(t);
                    self.vempty[sl].arrive();
                }
                if it < n {
                    self.prev[w] = !self.skip || self.keep[w][it];
                }
                self.consumers[w] = Pc {
                    it: it + 1,
                    step: 0,
                };
            }
            _ => unreachable!(),
        }
        Ok(true)
    }

    /// A copy in flight lands and arrives on its full barrier.
    fn land(&mut self, i: usize) {
        let (kind, sl, tile) = self.copies.swap_remove(i);
        if kind == Kind::K {
            self.kslot[sl] = Some(tile);
            self.kfull[sl].arrive();
        } else {
            self.vslot[sl] = Some(tile);
            self.vfull[sl].arrive();
        }
    }

    /// Runs the CTA under a random schedule; `starve`: how often the producer is passed over
    /// while another actor can run (holding it back is what opens the windows).
    fn run(&mut self, rng: &mut Rng, starve: usize) -> Result<Outcome, String> {
        loop {
            // Actors: 0 the producer, 1..=nact the consumers, then the copies in flight.
            let mut order: Vec<usize> = (0..=self.nact + self.copies.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            if order.len() > 1 && rng.below(10) < starve {
                order.retain(|&a| a != 0);
                order.push(0);
            }
            let mut ran = false;
            for a in order {
                ran = if a == 0 {
                    self.run_producer()?
                } else if a <= self.nact {
                    self.run_consumer(a - 1)?
                } else {
                    self.land(a - 1 - self.nact);
                    true
                };
                if ran {
                    break;
                }
            }
            if !ran {
                let done =
                    self.producer.it > self.n && self.consumers.iter().all(|c| c.it > self.n);
                return Ok(if done {
                    Outcome::Finished
                } else {
                    Outcome::Deadlock(format!(
                        "producer at iteration {} step {}, consumers at {:?}",
                        self.producer.it,
                        self.producer.step,
                        self.consumers
                            .iter()
                            .map(|c| (c.it, c.step))
                            .collect::<Vec<_>>()
                    ))
                });
            }
        }
    }
}

/// Every seed's CTA under `schedules` random schedules: the first failure, or the deadlocks.
fn explore<const ST: usize>(
    skip: bool,
    frees_skipped_v_at_once: bool,
    schedules: usize,
) -> (Vec<String>, Vec<String>) {
    let (mut errors, mut deadlocks) = (vec![], vec![]);
    for seed in 0..schedules as u64 {
        let mut rng = Rng::new(seed);
        let n = 1 + rng.below(12);
        let nact = 1 + rng.below(4);
        let starve = rng.below(10);
        let mut cta = Cta::<ST>::new(skip, frees_skipped_v_at_once, n, nact, &mut rng);
        let label = format!("seed {seed}: {n} tiles, {nact} warps");
        match cta.run(&mut rng, starve) {
            Err(e) => errors.push(format!("{label}: {e}")),
            Ok(Outcome::Deadlock(d)) => deadlocks.push(format!("{label}: {d}")),
            Ok(Outcome::Finished) => {
                let kept: Vec<usize> = (0..nact)
                    .map(|w| {
                        if skip {
                            cta.keep[w].iter().filter(|&&k| k).count()
                        } else {
                            n
                        }
                    })
                    .collect();
                if cta.pv != kept {
                    errors.push(format!(
                        "{label}: P V products {:?}, kept tiles {kept:?}",
                        cta.pv
                    ));
                }
                if !cta.copies.is_empty() {
                    errors.push(format!("{label}: copies left in flight"));
                }
            }
        }
    }
    (errors, deadlocks)
}

#[test]
fn the_warps_kernels_protocol_never_deadlocks_or_overwrites() {
    assert_eq!(
        blasst::cuda::nvrtc::decode_warps_ring(),
        KERNEL_ST,
        "the model's ring is the kernel's"
    );
    for skip in [false, true] {
        for (st, (errors, deadlocks)) in [
            (2, explore::<2>(skip, false, 10_000)),
            (KERNEL_ST, explore::<KERNEL_ST>(skip, false, 20_000)),
            (4, explore::<4>(skip, false, 10_000)),
        ] {
            assert!(errors.is_empty(), "skip {skip}, ring {st}: {}", errors[0]);
            assert!(
                deadlocks.is_empty(),
                "skip {skip}, ring {st}: {}",
                deadlocks[0]
            );
        }
    }
}

/// The model sees session 47's deadlock: with skipping warps freeing their V slot at once, some
/// schedules hang (and only by deadlock: no read ever finds the wrong tile).
#[test]
fn the_model_finds_the_protocol_before_session_48_deadlocking() {
    let (errors, deadlocks) = explore::<KERNEL_ST>(true, true, 20_000);
    assert!(errors.is_empty(), "{}", errors[0]);
    assert!(
        !deadlocks.is_empty(),
        "no schedule deadlocked the protocol that freed skipped V slots at once"
    );
    println!(
        "{} of 20000 schedules deadlocked, e.g. {}",
        deadlocks.len(),
        deadlocks[0]
    );
}
