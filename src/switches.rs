//! Diagnostic switches that choose a kernel or a plan at every call (`BLASST_PREFILL_KERNEL`,
//! `BLASST_DECODE_KERNEL`, `BLASST_DECODE_DENSE_ONE_PER_SM`,
//! `BLASST_DECODE_PAGED_ONE_PER_SM`, `BLASST_DECODE_WARPS`, `BLASST_DECODE_WARPS_ONE_PER_SM`).
//! Read once per process: reading
//! the environment costs 60-120 ns a time and a decode call asked up to five times (run 155's
//! host-cost measurement). `BLASST_LIVE_SWITCHES=1` (itself read once) makes them be read at
//! every use instead, so that a benchmark can set one between calls and compare both kernels
//! in one process: `bench/blasst_ctypes.py` sets it for every script on the GPU machine.

use std::sync::OnceLock;

pub(crate) struct Switch {
    name: &'static str,
    once: OnceLock<Option<String>>,
}

impl Switch {
    pub(crate) const fn new(name: &'static str) -> Switch {
        Switch {
            name,
            once: OnceLock::new(),
        }
    }

    /// `test` of the switch's value (`None`: unset or not UTF-8).
    pub(crate) fn test(&self, test: impl Fn(Option<&str>) -> bool) -> bool {
        if live() {
            test(std::env::var(self.name).ok().as_deref())
        } else {
            test(
                self.once
                    .get_or_init(|| std::env::var(self.name).ok())
                    .as_deref(),
            )
        }
    }

    /// Whether the switch is set to `value` (surrounding whitespace ignored): the on/off test of
    /// the `=0` / `=1` switches.
    pub(crate) fn is(&self, value: &str) -> bool {
        self.test(|v| v.is_some_and(|v| v.trim() == value))
    }

    /// A switch that forces a rule on (`=1`) or off (`=0`): the rule's value, `default()` when
    /// the switch is unset or set to anything else.
    pub(crate) fn forced_or(&self, default: impl Fn() -> bool) -> bool {
        self.test(|v| match v.map(str::trim) {
            Some("1") => true,
            Some("0") => false,
            _ => default(),
        })
    }
}

fn live() -> bool {
    static LIVE: OnceLock<bool> = OnceLock::new();
    *LIVE.get_or_init(|| std::env::var("BLASST_LIVE_SWITCHES").is_ok_and(|v| v.trim() == "1"))
}

pub(crate) static PREFILL_KERNEL: Switch = Switch::new("BLASST_PREFILL_KERNEL");
pub(crate) static DECODE_KERNEL: Switch = Switch::new("BLASST_DECODE_KERNEL");
pub(crate) static DECODE_DENSE_ONE_PER_SM: Switch = Switch::new("BLASST_DECODE_DENSE_ONE_PER_SM");
pub(crate) static DECODE_PAGED_ONE_PER_SM: Switch = Switch::new("BLASST_DECODE_PAGED_ONE_PER_SM");
pub(crate) static DECODE_WARPS: Switch = Switch::new("BLASST_DECODE_WARPS");
pub(crate) static DECODE_WARPS_ONE_PER_SM: Switch = Switch::new("BLASST_DECODE_WARPS_ONE_PER_SM");
