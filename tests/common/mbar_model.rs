//! The pieces of the barrier-protocol models (tests/warps_protocol_model.rs, the decode warps
//! kernel; tests/prefill_protocol_model.rs, the Hopper prefill kernel): an mbarrier as the
//! kernels use it and the random source of the schedules.

#[derive(Clone, Copy)]
pub struct Bar {
    expected: u32,
    pending: u32,
    phase: u32,
}

impl Bar {
    pub fn new(expected: u32) -> Bar {
        Bar {
            expected,
            pending: expected,
            phase: 0,
        }
    }
    pub fn arrive(&mut self) {
        self.pending -= 1;
        if self.pending == 0 {
            self.phase += 1;
            self.pending = self.expected;
        }
    }
    /// mbarrier.try_wait.parity: the phase of parity `parity` has completed (as far as the
    /// barrier can tell: it keeps only the current phase).
    pub fn done(&self, parity: u32) -> bool {
        (self.phase & 1) != parity
    }
}

/// splitmix64: the schedules and decisions of one seed.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
