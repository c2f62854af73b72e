//! `RealTime`: the timing model of [`TimedFlash`] made felt by real programs.
//!
//! `TimedFlash` only computes simulated times. `RealTime` wraps it and keeps
//! its simulated host clock in step with a real clock, as FEMU does, so a
//! process talking to the device (an NBD client, a program on a FUSE mount)
//! waits as long as it would on the modelled SSD:
//!
//! - **Before each command** the simulated host clock is advanced to the real
//!   time elapsed since the anchor, if it is behind. Idle time and host CPU
//!   time therefore pass on the device too: background programs complete,
//!   queue slots free up, dies go idle.
//! - **After each command** the caller sleeps until the real clock reaches the
//!   simulated host clock. The simulated host clock moves past the real one
//!   only where the model makes the host wait — a read's data, a `sync`, a
//!   free slot in a full queue (and `host_op_ns` per command, 0 by default) —
//!   so those are exactly the waits a caller feels. Programs and erases the
//!   FTL issues without waiting cost it nothing until a `sync` or a full queue
//!   says otherwise.
//!
//! Sleeping never returns early, so every wait is at least the modelled one;
//! it may be longer by the host's scheduling delay (see [`WallClock`]). An
//! overshoot is not carried over: the next command starts from the real time.
//!
//! **Starting.** A `RealTime` made [`RealTime::paused`] passes every command
//! straight to the device beneath, untimed, until its [`RealTimeSwitch`] is
//! started; the anchor is then the first command after the start (real time
//! and simulated time at that instant). This lets a front end format, make a
//! file system or recover without the model, and start the clock when it
//! begins to serve.
//!
//! Invariants:
//! - when a command returns with the wrapper running, the real clock is at
//!   least the simulated host clock (mapped through the anchor);
//! - the simulated host clock never decreases (it only moves through
//!   `TimedFlash`'s own waits and [`TimedFlash::advance_host`]);
//! - before the start, no command reaches the timing model.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{
    BlockId, Flash, Geometry, PageAddr, ProgramCmd, ReadCmd, Result, TimedFlash, TimingConfig,
};

/// A monotonic clock that can wait. Tests inject a manual one.
pub trait Clock: Send {
    /// Nanoseconds since an arbitrary fixed origin; never decreases.
    fn now_ns(&self) -> u64;
    /// Returns once `now_ns() >= t_ns`, never before.
    fn sleep_until_ns(&mut self, t_ns: u64);
}

/// Waits shorter than this are spun (yielding the CPU) instead of slept:
/// Linux's default timer slack makes a `sleep` overshoot by about 50 µs,
/// longer than a whole NAND read.
pub const SPIN_BELOW_NS: u64 = 100_000;

/// The machine's monotonic clock ([`Instant`]). A wait sleeps for all but the
/// last [`SPIN_BELOW_NS`], then yields in a loop until the instant passes, so
/// it overshoots by scheduling delay only.
#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    origin: Instant,
}

impl WallClock {
    /// A clock whose origin is now.
    pub fn new() -> WallClock {
        WallClock {
            origin: Instant::now(),
        }
    }
}

impl Default for WallClock {
    fn default() -> Self {
        WallClock::new()
    }
}

impl Clock for WallClock {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn sleep_until_ns(&mut self, t_ns: u64) {
        loop {
            let now = self.now_ns();
            if now >= t_ns {
                return;
            }
            let left = t_ns - now;
            if left > SPIN_BELOW_NS {
                std::thread::sleep(Duration::from_nanos(left - SPIN_BELOW_NS));
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Starts a paused [`RealTime`] from another owner (the device itself
/// usually belongs to an FTL by then), and reads its totals. Cloneable and
/// `Send`.
#[derive(Clone, Debug)]
pub struct RealTimeSwitch(Arc<Control>);

#[derive(Debug, Default)]
struct Control {
    started: AtomicBool,
    waits: AtomicU64,
    waited_ns: AtomicU64,
}

impl RealTimeSwitch {
    /// Starts real-time pacing at the next command. Idempotent.
    pub fn start(&self) {
        self.0.started.store(true, Ordering::Release);
    }

    /// Whether [`RealTimeSwitch::start`] was called.
    pub fn is_started(&self) -> bool {
        self.0.started.load(Ordering::Acquire)
    }

    /// The waits so far.
    pub fn stats(&self) -> RealTimeStats {
        RealTimeStats {
            waits: self.0.waits.load(Ordering::Relaxed),
            waited_ns: self.0.waited_ns.load(Ordering::Relaxed),
        }
    }
}

/// Totals of the real-time layer, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealTimeStats {
    /// Commands that made the caller wait.
    pub waits: u64,
    /// Total modelled wait (how far the simulated host clock ran ahead of
    /// the real one); the real sleeps are this plus scheduling delays.
    pub waited_ns: u64,
}

/// A flash device whose host-visible waits take real time. See the file
/// documentation.
pub struct RealTime<F, C = WallClock> {
    timed: TimedFlash<F>,
    clock: C,
    control: Arc<Control>,
    /// (real clock, simulated host clock) at the first command after the
    /// start; `None` until then.
    anchor: Option<(u64, u64)>,
}

impl<F: Flash, C: Clock> RealTime<F, C> {
    /// Wraps `inner` under the timing model `config`, paced by `clock`,
    /// running from the first command.
    pub fn new(inner: F, config: TimingConfig, clock: C) -> RealTime<F, C> {
        let rt = RealTime::paused(inner, config, clock);
        rt.switch().start();
        rt
    }

    /// Like [`RealTime::new`], but commands pass through untimed until the
    /// switch ([`RealTime::switch`]) is started.
    pub fn paused(inner: F, config: TimingConfig, clock: C) -> RealTime<F, C> {
        RealTime {
            timed: TimedFlash::new(inner, config),
            clock,
            control: Arc::default(),
            anchor: None,
        }
    }

    /// The handle that starts pacing.
    pub fn switch(&self) -> RealTimeSwitch {
        RealTimeSwitch(Arc::clone(&self.control))
    }

    /// The timing model beneath (its clock, configuration and statistics).
    pub fn timed(&self) -> &TimedFlash<F> {
        &self.timed
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// Waits so far.
    pub fn stats(&self) -> RealTimeStats {
        self.switch().stats()
    }

    /// Unwraps the device.
    pub fn into_inner(self) -> F {
        self.timed.into_inner()
    }

    /// Brings the simulated host clock up to the real one. Returns false
    /// while paused (the command then bypasses the model).
    fn begin(&mut self) -> bool {
        if self.anchor.is_none() {
            if !self.control.started.load(Ordering::Acquire) {
                return false;
            }
            self.anchor = Some((self.clock.now_ns(), self.timed.now_ns()));
        }
        let real = self.real_as_simulated();
        let sim = self.timed.now_ns();
        if sim < real {
            self.timed.advance_host(real - sim);
        }
        true
    }

    /// The real clock expressed on the simulated time line.
    fn real_as_simulated(&self) -> u64 {
        let (real0, sim0) = self.anchor.unwrap_or_default();
        sim0.saturating_add(self.clock.now_ns().saturating_sub(real0))
    }

    /// Sleeps until the real clock reaches the simulated host clock.
    fn end(&mut self) {
        let Some((real0, sim0)) = self.anchor else {
            return;
        };
        let sim = self.timed.now_ns();
        let real = self.real_as_simulated();
        if sim > real {
            self.control.waits.fetch_add(1, Ordering::Relaxed);
            self.control
                .waited_ns
                .fetch_add(sim - real, Ordering::Relaxed);
            self.clock
                .sleep_until_ns(real0.saturating_add(sim.saturating_sub(sim0)));
        }
    }

    /// Runs `op` on the timed device (and waits as the model says), or on the
    /// device beneath while paused.
    fn run<R>(&mut self, op: impl FnOnce(&mut dyn Flash) -> Result<R>) -> Result<R> {
        if !self.begin() {
            return op(self.timed.inner_mut());
        }
        let r = op(&mut self.timed);
        self.end();
        r
    }
}

/// Every command that takes device time runs through [`RealTime::run`]
/// (paced, or straight to the device beneath while paused), in the form
/// it came in. `copy_into` (a hint that takes no time of its own),
/// `submit` (host-side only) and the battery-backed buffer (no time, as in
/// `TimedFlash`) go to the timing model unpaced: the defaults.
impl<F: Flash, C: Clock> crate::Layer for RealTime<F, C> {
    crate::layer_below!(timed: TimedFlash<F>);
    fn geometry(&self) -> &Geometry {
        Flash::geometry(&self.timed)
    }

    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        let mut cmd = cmd;
        self.run(|f| cmd.issue(f))
    }

    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        self.run(|f| cmd.issue(f))
    }

    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.run(|f| f.prefetch(pages))
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.run(|f| f.erase(block))
    }

    fn sync(&mut self) -> Result<()> {
        self.run(|f| f.sync())
    }
}
