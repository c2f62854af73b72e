//! `RealTime` pacing against a manual clock: which commands make the caller
//! wait, for how long, and that idle real time passes on the device. Times
//! are computed by hand from the configuration; the only wall-clock test
//! checks that `WallClock` never wakes early.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use flash::realtime::RealTimeStats;
use flash::{
    BlockId, Clock, Flash, Geometry, MemFlash, PageAddr, RealTime, TimingConfig, WallClock,
};

const R: u64 = 40_000;
const P: u64 = 200_000;
const E: u64 = 2_000_000;
const X: u64 = 20_000;

/// A clock the test moves by hand; a sleep jumps to its deadline and is
/// recorded.
#[derive(Clone, Default)]
struct ManualClock(Arc<Mutex<ManualState>>);

#[derive(Default)]
struct ManualState {
    now_ns: u64,
    sleeps: Vec<u64>,
}

impl ManualClock {
    fn advance(&self, ns: u64) {
        self.0.lock().unwrap().now_ns += ns;
    }
    fn now(&self) -> u64 {
        self.0.lock().unwrap().now_ns
    }
    /// Durations slept since the last call.
    fn take_sleeps(&self) -> Vec<u64> {
        std::mem::take(&mut self.0.lock().unwrap().sleeps)
    }
}

impl Clock for ManualClock {
    fn now_ns(&self) -> u64 {
        self.now()
    }
    fn sleep_until_ns(&mut self, t_ns: u64) {
        let mut s = self.0.lock().unwrap();
        let d = t_ns.saturating_sub(s.now_ns);
        s.sleeps.push(d);
        s.now_ns = s.now_ns.max(t_ns);
    }
}

fn config(queue_depth: usize) -> TimingConfig {
    TimingConfig {
        read_ns: R,
        program_ns: P,
        erase_ns: E,
        channel_xfer_ns_per_page: X,
        queue_depth: NonZeroUsize::new(queue_depth).unwrap(),
        host_op_ns: 0,
    }
}

/// 16 KiB pages (4 x 4 KiB sectors), 2 x 2 dies of 8 blocks.
fn geometry() -> Geometry {
    Geometry::new(2, 2, 8, 16, 4, 4096, 128).unwrap()
}

fn device(queue_depth: usize, clock: &ManualClock) -> RealTime<MemFlash, ManualClock> {
    let g = geometry();
    RealTime::new(
        MemFlash::new(g).unwrap(),
        config(queue_depth),
        clock.clone(),
    )
}

fn page_on_die(die: u32, page: u32) -> PageAddr {
    PageAddr {
        block: geometry().block_on_die(die, 0),
        page,
    }
}

fn program(f: &mut impl Flash, p: PageAddr) {
    let ps = f.geometry().page_size();
    f.program(p, &vec![7u8; ps], &[]).unwrap();
}

#[test]
fn a_read_waits_for_sensing_and_transfer() {
    let clock = ManualClock::default();
    let mut f = device(64, &clock);
    let p = page_on_die(0, 0);
    program(&mut f, p);
    f.sync().unwrap();
    clock.take_sleeps();
    // Much later, a 4 KiB read: sense the page, move a quarter page.
    clock.advance(1_000_000_000);
    let mut buf = vec![0u8; 4096];
    f.read(p, 0, &mut buf).unwrap();
    assert_eq!(buf, vec![7u8; 4096]);
    assert_eq!(clock.take_sleeps(), vec![R + X / 4]);
}

#[test]
fn programs_do_not_wait_but_sync_waits_for_them() {
    let clock = ManualClock::default();
    let mut f = device(64, &clock);
    for die in 0..4 {
        program(&mut f, page_on_die(die, 0));
    }
    assert!(
        clock.take_sleeps().is_empty(),
        "a program made the host wait"
    );
    // Dies 0 and 1 share channel 0: die 1's transfer waits for die 0's.
    f.sync().unwrap();
    assert_eq!(clock.take_sleeps(), vec![2 * X + P]);
    assert_eq!(
        f.stats(),
        RealTimeStats {
            waits: 1,
            waited_ns: 2 * X + P
        }
    );
}

#[test]
fn idle_real_time_completes_background_work() {
    let clock = ManualClock::default();
    let mut f = device(64, &clock);
    program(&mut f, page_on_die(0, 0));
    f.erase(f.geometry().block_on_die(1, 1)).unwrap();
    // The host does something else for longer than both commands take.
    clock.advance(E + 1);
    f.sync().unwrap();
    assert!(clock.take_sleeps().is_empty());
    assert!(f.timed().now_ns() > E);
}

#[test]
fn a_full_queue_makes_the_host_wait_for_a_slot() {
    let clock = ManualClock::default();
    let mut f = device(1, &clock);
    program(&mut f, page_on_die(0, 0));
    assert!(clock.take_sleeps().is_empty());
    // The only slot is taken until the first program completes at X + P.
    program(&mut f, page_on_die(0, 1));
    assert_eq!(clock.take_sleeps(), vec![X + P]);
}

#[test]
fn a_read_behind_a_program_on_its_die_waits_for_it() {
    let clock = ManualClock::default();
    let mut f = device(64, &clock);
    let (p0, p1) = (page_on_die(0, 0), page_on_die(0, 1));
    program(&mut f, p0);
    program(&mut f, p1);
    // The second transfer (X..2X) overlaps the first program (X..X + P);
    // the second program runs X + P..X + 2P, and the read senses after it.
    let mut buf = vec![0u8; 4096];
    f.read(p0, 0, &mut buf).unwrap();
    assert_eq!(clock.take_sleeps(), vec![X + 2 * P + R + X / 4]);
}

#[test]
fn paused_commands_bypass_the_model_until_started() {
    let clock = ManualClock::default();
    let g = geometry();
    let mut f = RealTime::paused(MemFlash::new(g).unwrap(), config(64), clock.clone());
    let switch = f.switch();
    for page in 0..4 {
        program(&mut f, page_on_die(0, page));
    }
    f.erase(BlockId(5)).unwrap();
    f.sync().unwrap();
    let mut buf = vec![0u8; 4096];
    f.read(page_on_die(0, 0), 0, &mut buf).unwrap();
    assert!(clock.take_sleeps().is_empty());
    assert_eq!(f.timed().now_ns(), 0, "paused commands reached the model");
    assert_eq!(f.counters().programs, 4);

    // Started: the anchor is the first command, at real time 5 s.
    clock.advance(5_000_000_000);
    switch.start();
    assert!(switch.is_started());
    f.read(page_on_die(0, 1), 0, &mut buf).unwrap();
    assert_eq!(clock.take_sleeps(), vec![R + X / 4]);
    assert_eq!(clock.now(), 5_000_000_000 + R + X / 4);
}

#[test]
fn a_refused_command_costs_no_time() {
    let clock = ManualClock::default();
    let mut f = device(64, &clock);
    let p = page_on_die(0, 0);
    program(&mut f, p);
    let ps = f.geometry().page_size();
    // Programming a page twice is a NAND rule violation.
    assert!(f.program(p, &vec![1u8; ps], &[]).is_err());
    assert!(clock.take_sleeps().is_empty());
}

#[test]
fn wall_clock_never_wakes_early() {
    let mut c = WallClock::new();
    for wait_ns in [0, 30_000, 150_000, 2_000_000] {
        let t = c.now_ns() + wait_ns;
        c.sleep_until_ns(t);
        assert!(c.now_ns() >= t, "woke before {wait_ns} ns had passed");
    }
}
