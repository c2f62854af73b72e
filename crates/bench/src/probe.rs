//! What a benchmark can observe of the flash under an FTL: the simulated
//! clock (when there is one) and the operation counters.
//!
//! The FTL owns its flash device; the benchmark keeps a second handle to it
//! through [`flash::SharedFlash`], so it can read the clock and counters
//! without the FTL knowing.

use flash::timed::TimingStats;
use flash::{Flash, FlashCounters, SharedFlash, TimedFlash};

/// A view of the device under test.
pub trait Probe {
    /// The simulated host clock in ns (always 0 for an untimed device).
    fn now_ns(&self) -> u64;
    /// Charges host time (no effect on an untimed device).
    fn advance_host(&self, ns: u64);
    /// Flash operation counters.
    fn counters(&self) -> FlashCounters;
    /// Totals of the timing model, if the device is timed.
    fn timing(&self) -> Option<TimingStats>;
    /// Per die, the time it has spent reading, programming or erasing
    /// (empty for an untimed device).
    fn busy_ns_per_die(&self) -> Vec<u64> {
        Vec::new()
    }
}

/// A device with no timing model.
pub struct PlainProbe<F>(pub SharedFlash<F>);

impl<F: Flash> Probe for PlainProbe<F> {
    fn now_ns(&self) -> u64 {
        0
    }
    fn advance_host(&self, _ns: u64) {}
    fn counters(&self) -> FlashCounters {
        self.0.counters()
    }
    fn timing(&self) -> Option<TimingStats> {
        None
    }
}

/// A device wrapped in [`TimedFlash`].
pub struct TimedProbe<F>(pub SharedFlash<TimedFlash<F>>);

impl<F: Flash> Probe for TimedProbe<F> {
    fn now_ns(&self) -> u64 {
        self.0.with(|t| t.now_ns())
    }
    fn advance_host(&self, ns: u64) {
        if ns > 0 {
            self.0.with(|t| t.advance_host(ns));
        }
    }
    fn counters(&self) -> FlashCounters {
        self.0.counters()
    }
    fn timing(&self) -> Option<TimingStats> {
        Some(self.0.with(|t| t.stats()))
    }
    fn busy_ns_per_die(&self) -> Vec<u64> {
        self.0.with(|t| t.busy_ns_per_die().to_vec())
    }
}
