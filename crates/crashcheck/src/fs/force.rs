//! Forced internal flushes for `group` mode: a [`BlockDevice`] wrapper whose
//! `epoch_remaining()` now and then answers 0 — an epoch that is full —
//! at a seeded point *inside* a system call, so the file system flushes
//! between two steps of one call.
//!
//! Why this is needed: `group` writes each transaction step in place without
//! flushing, and flushes first only when the step would not fit what is
//! left of the device's epoch (`commit.rs`). With the checker's workloads
//! the epoch is rarely nearly full exactly between two steps of one call,
//! so a call that commits in several steps almost never has a flush inside
//! it, and a crash then never shows part of a call: an ordering bug inside a
//! call (an entry committed before its inode, a rename done as unlink and
//! link) stays invisible in `group` although `log` and `xlog` see it.
//!
//! Why the states it produces are real: how full the epoch is when a step
//! begins depends only on how many sectors the steps since the last flush
//! wrote (and trimmed). A different history — earlier calls that wrote a
//! few more sectors, a workload that ran in another order, a longer file
//! name — leaves the epoch with less room than this step needs at exactly
//! this point, and then the file system flushes here on a real device. So
//! the file system must keep `group`'s promise (the state after some
//! completed call, each call whole or cut only where its own boundaries
//! allow) whatever `epoch_remaining()` says; the wrapper only moves the
//! flushes to where the checker can see what a crash after them leaves.
//! It never answers more than the device has left, so the device never
//! refuses a write it would not refuse anyway, and it leaves every other
//! request to the device untouched.
//!
//! What it promises: the answers are a function of (seed, call index,
//! query index within the call) only, so the reference run and every cut
//! run make the same decisions up to the cut, and `--cut-at K` replays a
//! failure exactly. It forces nothing outside a call ([`Forcing::begin_call`]
//! marks one) — not in mount, whose budget is read from `epoch_remaining()`,
//! not in the recovering mount, not at unmount — and never at a call's
//! first step, where a flush only makes the calls before it durable (which
//! the epoch filling up already does).

use std::cell::Cell;

use ftl::{BlockDevice, DeviceStats, Lba, Result};

use crate::data::mix64 as mix;

/// A device whose epoch looks full at seeded points inside calls.
pub struct Forcing<D> {
    inner: D,
    /// `None`: never force (a recovering mount, or forced flushes off).
    seed: Option<u64>,
    /// The call in progress, if any.
    call: Cell<Option<u64>>,
    /// `epoch_remaining()` queries in the call so far.
    queries: Cell<u64>,
    /// The last query was answered 0 although the device had this much
    /// left, and no request has come since.
    pending: Cell<Option<u64>>,
    /// After the flush that followed a forced answer: what the device had
    /// left then, and the sectors the step wrote and trimmed since.
    step: Cell<Option<(u64, u64)>>,
    /// Forced flushes the device's own answer would not have caused (the
    /// step fitted what was left of the epoch).
    forced: Cell<u64>,
    /// Forced answers where the step would not have fitted anyway, so the
    /// file system would have flushed there without them.
    full_anyway: Cell<u64>,
}

impl<D: BlockDevice> Forcing<D> {
    /// Wraps `inner`; `seed` `None` forces nothing.
    pub fn new(inner: D, seed: Option<u64>) -> Forcing<D> {
        Forcing {
            inner,
            seed,
            call: Cell::new(None),
            queries: Cell::new(0),
            pending: Cell::new(None),
            step: Cell::new(None),
            forced: Cell::new(0),
            full_anyway: Cell::new(0),
        }
    }

    /// Call `i` of the workload begins.
    pub fn begin_call(&self, i: u64) {
        self.settle();
        self.call.set(Some(i));
        self.queries.set(0);
    }

    /// No call is in progress (unmount, the end of the workload).
    pub fn end_calls(&self) {
        self.settle();
        self.call.set(None);
    }

    /// Flushes inside calls that only the forced answers caused: the step
    /// after them would have fitted the epoch.
    pub fn forced_flushes(&self) -> u64 {
        self.forced.get()
    }

    /// Forced answers at points where the file system would have flushed
    /// anyway (the next step did not fit the epoch's rest).
    pub fn full_anyway(&self) -> u64 {
        self.full_anyway.get()
    }

    /// Ends the step after a forced flush: counts the flush as forced when
    /// the step would have fitted the epoch the device had left.
    fn settle(&self) {
        self.pending.set(None);
        if let Some((left, used)) = self.step.take() {
            let n = if used <= left {
                &self.forced
            } else {
                &self.full_anyway
            };
            n.set(n.get() + 1);
        }
    }

    /// A write or trim of `sectors`.
    fn request(&self, sectors: u64) {
        self.pending.set(None);
        if let Some((left, used)) = self.step.get() {
            self.step.set(Some((left, used + sectors)));
        }
    }

    pub fn into_inner(self) -> D {
        self.inner
    }

    /// Whether query `q` (0 = the first) of call `i` answers "full".
    /// One in two (the low bit of a hash) of a call's later queries.
    fn force(seed: u64, i: u64, q: u64) -> bool {
        q > 0 && mix(seed ^ mix(i.wrapping_add(0x00F0_4CED)) ^ mix(q).rotate_left(17)) & 1 == 0
    }
}

impl<D: BlockDevice> BlockDevice for Forcing<D> {
    fn sector_size(&self) -> usize {
        self.inner.sector_size()
    }
    fn num_sectors(&self) -> u64 {
        self.inner.num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        self.inner.read(lba, buf)
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        self.request((data.len() / self.inner.sector_size().max(1)) as u64);
        self.inner.write(lba, data)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        self.request(count);
        self.inner.trim(lba, count)
    }
    fn flush(&mut self) -> Result<()> {
        let forced = self.pending.take();
        self.settle();
        if let Some(left) = forced {
            self.step.set(Some((left, 0)));
        }
        self.inner.flush()
    }
    fn epoch_barrier(&mut self) -> Result<()> {
        self.settle();
        self.inner.epoch_barrier()
    }
    fn epoch_remaining(&self) -> Option<u64> {
        self.settle();
        let real = self.inner.epoch_remaining()?;
        let (Some(seed), Some(i)) = (self.seed, self.call.get()) else {
            return Some(real);
        };
        let q = self.queries.get();
        self.queries.set(q + 1);
        if Self::force(seed, i, q) {
            self.pending.set(Some(real));
            Some(0)
        } else {
            Some(real)
        }
    }
    fn max_request_sectors(&self) -> Option<u64> {
        self.inner.max_request_sectors()
    }
    fn set_wear_policy(&mut self, policy: ftl::WearPolicy) -> Result<()> {
        self.inner.set_wear_policy(policy)
    }
    fn set_origin(&mut self, origin: u64) {
        self.inner.set_origin(origin)
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        self.inner.check_invariants()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::{CrashFlash, MemFlash, SharedFlash};
    use ftl::{AnyFtl, FormatOptions, FtlKind};

    type Dev = AnyFtl<crate::target::Dev>;

    fn device(seed: Option<u64>) -> Forcing<Dev> {
        let g = crate::fs::geometry("small512").unwrap();
        let flash = SharedFlash::new(CrashFlash::new(MemFlash::new(g).unwrap()).into());
        let fo = FormatOptions {
            write_bound: Some(24),
            ..Default::default()
        };
        Forcing::new(AnyFtl::format(flash, FtlKind::Scftl, &fo).unwrap(), seed)
    }

    /// A call whose second query is forced under `seed`.
    fn forced_call(seed: u64) -> u64 {
        (0..).find(|&i| Forcing::<Dev>::force(seed, i, 1)).unwrap()
    }

    #[test]
    fn a_forced_answer_is_zero_and_counts_only_flushes_the_device_did_not_need() {
        let sector = vec![7u8; 512];
        for (step, extra) in [(1u64, true), (23, true), (24, false)] {
            let mut d = device(Some(5));
            let i = forced_call(5);
            d.begin_call(i);
            let left = d.epoch_remaining().unwrap();
            assert_eq!(left, 24, "the first query of a call is the device's");
            d.write(Lba(0), &sector).unwrap();
            assert_eq!(d.epoch_remaining(), Some(0), "the second is forced");
            d.flush().unwrap();
            // The next step: `step` sectors (a trim counts too), against
            // the 23 the device had left when the answer was forced.
            for k in 0..step - 1 {
                d.write(Lba(1 + k), &sector).unwrap();
            }
            d.trim(Lba(100), 1).unwrap();
            d.end_calls();
            assert_eq!(
                (d.forced_flushes(), d.full_anyway()),
                if extra { (1, 0) } else { (0, 1) },
                "a step of {step} sectors"
            );
        }
    }

    #[test]
    fn nothing_is_forced_outside_a_call_or_without_a_seed() {
        let i = forced_call(5);
        let d = device(Some(5));
        for _ in 0..4 {
            assert_eq!(d.epoch_remaining(), Some(24), "before any call");
        }
        let d = device(None);
        d.begin_call(i);
        for _ in 0..4 {
            assert_eq!(d.epoch_remaining(), Some(24), "no seed");
        }
        let d = device(Some(5));
        d.begin_call(i);
        d.end_calls();
        for _ in 0..4 {
            assert_eq!(d.epoch_remaining(), Some(24), "after the calls");
        }
    }

    #[test]
    fn never_at_a_calls_first_step_and_about_half_of_the_later_ones() {
        let mut later = 0;
        for i in 0..1000 {
            assert!(!Forcing::<Dev>::force(7, i, 0));
            later += u64::from(Forcing::<Dev>::force(7, i, 1));
        }
        assert!((400..600).contains(&later), "{later} of 1000");
    }
}
