//! The pieces of the barrier-protocol models (tests/warps_protocol_model.rs, the decode warps
//! kernel; tests/prefill_protocol_model.rs, the Hopper prefill kernel): an mbarrier as the
//! kernels use it. (Their schedules come from `blasst::synth::Rng`, one seed each.)

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
