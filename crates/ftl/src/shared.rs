//! [`SharedDevice`]: one [`BlockDevice`] used by many threads at once (the
//! NBD server's connections, the concurrent crash test's threads).
//!
//! The device sits behind one readers-writer lock, held as follows:
//!
//! * **Reads** take it shared and call [`BlockDevice::read_shared`] (SCFTL
//!   on an image or in RAM answers it), so they run in parallel with each
//!   other. A device that cannot read with shared access is read under the
//!   exclusive lock instead.
//! * **Changes** (writes, trims, barriers) take it exclusive.
//! * **A flush** takes it exclusive only to commit
//!   ([`BlockDevice::begin_flush`]: SCFTL programs the epoch's last pages
//!   and its committed page and starts the next epoch), then *releases* it
//!   and waits for the sync with no lock held ([`crate::FlushTicket::wait`]:
//!   an `fdatasync` on a duplicate of the image's handle), and takes it
//!   exclusive once more, briefly, to record the sync
//!   ([`BlockDevice::finish_flush`]). While it waits, reads, writes, trims
//!   and barriers of every connection go on: the write path is a pipeline,
//!   and a read never waits for an `fdatasync` of a flush. A change made
//!   meanwhile is applied at once and returns when the sync has ended
//!   ("Held returns" below); an erase waits for a sync of its own (SCFTL
//!   syncs before erasing while any epoch is unsynced, which the detached
//!   sync leaves so; FORMAT.md §4.3).
//!
//! Why a read in flight never sees a page erased or reused under it (the
//! "reader pin"): a read holds the shared lock from its L2P lookup to its
//! last copy out of the flash, and the FTL erases and programs only inside
//! `&mut self` methods, which run under the exclusive lock. The shared hold
//! *is* the pin: no GC step can start until every read that looked up the
//! old mapping has finished, and a read that starts later looks up the new
//! mapping. The detached sync holds no lock and touches no FTL state: it
//! only waits for the file's dirty pages to reach the disk.
//!
//! **Group commit.** Every successful change counts one (`changes`); a
//! completed flush records the count it covered (`durable_changes`). One
//! flush at a time commits and waits (the *leader*, holding `leader`); the
//! flushes that arrive meanwhile queue behind it. When the leader is done,
//! each of them finds out whether the leader's commit covered its changes
//! (`must_cover`, the count of returned changes when it was requested, at
//! most the count the leader committed): then it returns at once; the
//! first one not covered becomes the next leader and commits everything
//! changed until then, so
//! all the flushes that queued during one sync share the next commit and
//! sync. A flush returns only when a sync that started after its
//! `must_cover` changes completed has finished.
//!
//! **Held returns.** What a flush must cover is every change that has
//! *returned* before it was asked for ([`SharedDevice::returned`]: the
//! highest number of a returned change; a change's number is its place in
//! `changes`, taken under the exclusive lock, so a commit covers exactly
//! the numbers up to the count it took). A change counted after a flush's
//! commit, while that flush's sync runs, is applied at once (reads see
//! it, its pages are written) but *returns* only when that sync has
//! ended. So while a sync runs, no change it does not cover has returned,
//! and a flush asked for meanwhile is covered by it: it waits for the
//! sync and returns, instead of needing a sync of its own. Without the
//! hold, each connection's writes during a sync made every flush that
//! arrived in it wait for the *next* sync (a flush waited a sync and a
//! half on average): under 4 connections x 16 random writes with a flush
//! every 16, one sync covered 41 writes, against 89 with the hold
//! (docs/BENCHMARKS.md, "Held returns"). The price: a change made during a
//! flush's sync answers up to one sync later, and a connection that
//! answers its requests in order waits with it; reads never wait, and a
//! sync behind barriers holds nothing (it promises nothing). The hold is
//! only a policy: what makes a flush correct is `returned`, raised before
//! a change returns; a held change waits for the one sync it saw running
//! (its generation), never for a later one.
//!
//! **Detached writes.** A change holds the exclusive lock while the FTL
//! does its bookkeeping and programs pages, but on an image the bytes of
//! the pages a request filled are not copied into the page cache under
//! it: the device hands them over ([`BlockDevice::detach_submits`], turned
//! on when the shared device is made; `flash`'s `file/detached.rs`), and
//! the thread writes them ([`BlockDevice::take_detached`]) after it
//! released the lock, while the next connection's change runs. Reads find
//! a handed-over page in the device's registry until its bytes are in the
//! file; a sync, an erase and a raw page image first have every
//! handed-over page in the file (writing those no thread has started), so
//! what a flush makes durable is unchanged; a failed detached write fails
//! its request, and the device reports it again at its next sync. A
//! change is counted (for group commit) when its exclusive section ends,
//! before its detached write: the flush that covers it settles the write
//! first.
//!
//! **Sync behind.** Epoch barriers (an epoch filled up, no client asked
//! for durability) end epochs without a sync, and SCFTL erases no
//! superblock while one is unsynced: the first erase after a barrier
//! syncs under the exclusive lock, and every writer waits for the host
//! to write back what the epochs dirtied. [`SharedDevice::sync_behind`]
//! moves that sync off the write path: as the leader (so it never runs
//! beside a flush's sync, which would cover the same epochs), it takes a
//! ticket for the epochs ended so far under the exclusive lock
//! ([`BlockDevice::begin_sync_behind`]), waits for it with no lock held,
//! and records it ([`BlockDevice::finish_flush`]); writes go on meanwhile.
//! When the record leaves no epoch unsynced, SCFTL erases superblocks
//! ahead (`Scftl::erase_ahead`), so writes made while the *next* sync
//! behind runs open erased superblocks and need no sync of their own.
//! It promises no client anything (`durable_changes` is unchanged), so a
//! bug in it can only show as a lost barrier prefix after a power cut,
//! which the concurrent crash test checks (it runs sync-behinds among its
//! operations).

use std::sync::atomic::Ordering;

use crate::sync::{AtomicBool, AtomicU64, Condvar, Mutex, RwLock};

use crate::device::{BlockDevice, FlushStep, FtlError, Lba, Result};

/// Deliberate bugs in the lock protocol, for the concurrent crash test's
/// self-check (`crashcheck::concurrent`): each must be caught.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SharedMutant {
    /// No bug.
    #[default]
    None,
    /// A flush that finds another flush's sync running returns at once,
    /// as if that sync covered it, without waiting for it to finish: a
    /// power cut during that sync loses writes the returned flush promised.
    FlushReturnsDuringSync,
    /// A flush that arrives while a sync runs waits for that sync and
    /// returns, as if it covered it. For a flush's sync that is now right
    /// (no change it does not cover returns before it ends: "Held
    /// returns"); a sync behind barriers commits nothing, so a power cut
    /// may lose changes the returned flush promised.
    JoinsEarlierSync,
    /// A sync behind barriers takes itself for a flush: it records every
    /// change made so far as durable, so a flush that finds them covered
    /// returns without committing the open epoch they are in.
    SyncBehindPromisesChanges,
    /// A change held for a flush's sync returns without raising the count
    /// of returned changes: a flush asked for after it may take it for
    /// covered by that sync, which began before the change was counted.
    HeldReturnNotCounted,
}

impl SharedMutant {
    /// Every bug, by name (for the test's command line).
    pub const ALL: [(SharedMutant, &'static str); 4] = [
        (
            SharedMutant::FlushReturnsDuringSync,
            "flush-returns-during-sync",
        ),
        (SharedMutant::JoinsEarlierSync, "joins-earlier-sync"),
        (
            SharedMutant::SyncBehindPromisesChanges,
            "sync-behind-promises-changes",
        ),
        (
            SharedMutant::HeldReturnNotCounted,
            "held-return-not-counted",
        ),
    ];
}

/// A [`BlockDevice`] shared by threads. See the module documentation.
pub struct SharedDevice<D> {
    device: RwLock<D>,
    /// Held by the flush that commits and waits for its sync (group
    /// commit: the others queue here).
    leader: Mutex<()>,
    /// A flush's sync is running, with no lock on the device held.
    syncing: AtomicBool,
    changes: AtomicU64,
    durable_changes: AtomicU64,
    /// The highest number of a change that has returned: a flush asked
    /// for now must cover it (see "Held returns").
    returned: AtomicU64,
    /// A flush's sync is running: changes counted after its commit wait
    /// for it to end before they return ("Held returns").
    hold: Mutex<Hold>,
    hold_ended: Condvar,
    /// Changes that waited for a flush's sync before returning.
    held_returns: AtomicU64,
    /// Syncs waited for without the device, and reads served with shared
    /// access.
    detached_syncs: AtomicU64,
    shared_reads: AtomicU64,
    /// Reads and changes that took the lock while a flush's sync ran.
    reads_during_sync: AtomicU64,
    changes_during_sync: AtomicU64,
    /// Syncs behind barriers that ran ([`SharedDevice::sync_behind`]).
    syncs_behind: AtomicU64,
    /// Detached writes run after the exclusive lock was released.
    detached_writes: AtomicU64,
    mutant: SharedMutant,
}

/// Whether a flush's sync runs, and which one (see "Held returns").
#[derive(Default)]
struct Hold {
    /// A flush committed and its sync has not ended.
    running: bool,
    /// Syncs of flushes begun so far: a held change waits until this moves.
    generation: u64,
}

/// Ends a flush's hold when dropped, on every path out of the flush.
struct HoldEnd<'a> {
    hold: &'a Mutex<Hold>,
    ended: &'a Condvar,
}

impl Drop for HoldEnd<'_> {
    fn drop(&mut self) {
        self.hold.lock().running = false;
        self.ended.notify_all();
    }
}

/// What [`SharedDevice::shared_counts`] reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedCounts {
    /// Flush syncs waited for with no lock on the device held.
    pub detached_syncs: u64,
    /// Reads served with shared access.
    pub shared_reads: u64,
    /// Reads and changes that took the lock while a flush's sync ran.
    pub reads_during_sync: u64,
    pub changes_during_sync: u64,
    /// Syncs behind barriers that ran.
    pub syncs_behind: u64,
    /// Writes of handed-over pages run with no lock held (see "Detached
    /// writes" in the module documentation).
    pub detached_writes: u64,
    /// Changes whose return waited for a flush's sync ("Held returns").
    pub held_returns: u64,
}

impl<D: BlockDevice + Send + Sync> SharedDevice<D> {
    pub fn new(device: D) -> SharedDevice<D> {
        SharedDevice::with_mutant(device, SharedMutant::None)
    }

    /// A shared device with a deliberate bug (the checker's self-test).
    pub fn with_mutant(mut device: D, mutant: SharedMutant) -> SharedDevice<D> {
        device.detach_submits();
        SharedDevice {
            device: RwLock::new(device),
            leader: Mutex::new(()),
            syncing: AtomicBool::new(false),
            changes: AtomicU64::new(0),
            durable_changes: AtomicU64::new(0),
            returned: AtomicU64::new(0),
            hold: Mutex::new(Hold::default()),
            hold_ended: Condvar::new(),
            held_returns: AtomicU64::new(0),
            detached_syncs: AtomicU64::new(0),
            shared_reads: AtomicU64::new(0),
            reads_during_sync: AtomicU64::new(0),
            changes_during_sync: AtomicU64::new(0),
            syncs_behind: AtomicU64::new(0),
            detached_writes: AtomicU64::new(0),
            mutant,
        }
    }

    /// The device, once no thread uses it.
    pub fn into_inner(self) -> D {
        self.device.into_inner()
    }

    /// The device, for a caller that owns the whole `SharedDevice`.
    pub fn get_mut(&mut self) -> &mut D {
        self.device.get_mut()
    }

    fn note_during_sync(&self, counter: &AtomicU64) {
        if self.syncing.load(Ordering::Acquire) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Reads `buf.len() / sector_size` sectors at `lba`, with shared access
    /// where the device allows it.
    pub fn read(&self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        {
            let dev = self.device.read();
            self.note_during_sync(&self.reads_during_sync);
            if let Some(r) = dev.read_shared(lba, buf) {
                self.shared_reads.fetch_add(1, Ordering::Relaxed);
                return r;
            }
        }
        self.device.write().read(lba, buf)
    }

    /// [`BlockDevice::allocation`] with shared access, as a read: reflects
    /// every change answered before it. `None`: the device cannot tell.
    pub fn allocation(&self, lba: Lba, count: u64) -> Option<Result<Vec<(u64, bool)>>> {
        self.device.read().allocation(lba, count)
    }

    /// Runs `f` with exclusive access; counts nothing. What `f` handed
    /// over is written after the lock is released; an error of that write
    /// comes back from the device's next sync.
    pub fn exclusive<R>(&self, f: impl FnOnce(&mut D) -> R) -> R {
        let mut dev = self.device.write();
        let r = f(&mut dev);
        let _ = self.release(dev);
        r
    }

    /// Ends an exclusive hold: takes what the requests under it handed
    /// over, releases the lock, and writes it with no lock held.
    fn release(&self, mut dev: impl std::ops::DerefMut<Target = D>) -> Result<()> {
        let write = dev.take_detached();
        drop(dev);
        match write {
            Some(w) => {
                self.detached_writes.fetch_add(1, Ordering::Relaxed);
                w.run().map_err(FtlError::from)
            }
            None => Ok(()),
        }
    }

    /// Runs the change `f` with exclusive access, and counts it when it
    /// succeeds (a later flush must cover it); then, with the lock
    /// released, writes what it handed over (a failure of that write fails
    /// the change). A change counted while a flush's sync runs returns
    /// only when that sync has ended ("Held returns").
    pub fn change<T, E: From<FtlError>>(
        &self,
        f: impl FnOnce(&mut D) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let mut dev = self.device.write();
        self.note_during_sync(&self.changes_during_sync);
        let r = f(&mut dev);
        let mut held = None;
        let number = if r.is_ok() {
            let n = self.changes.fetch_add(1, Ordering::SeqCst) + 1;
            let hold = self.hold.lock();
            if hold.running {
                held = Some(hold.generation);
            }
            Some(n)
        } else {
            None
        };
        let written = self.release(dev);
        if let Some(generation) = held {
            self.held_returns.fetch_add(1, Ordering::Relaxed);
            let mut hold = self.hold.lock();
            while hold.running && hold.generation == generation {
                hold = self.hold_ended.wait(hold);
            }
        }
        let uncounted = held.is_some() && self.mutant == SharedMutant::HeldReturnNotCounted;
        if let Some(n) = number.filter(|_| !uncounted) {
            self.returned.fetch_max(n, Ordering::SeqCst);
        }
        let v = r?;
        written?;
        Ok(v)
    }

    /// The highest number of a change that has returned: what a flush
    /// asked for now must cover (pass it to [`Self::flush`]). Every
    /// change that returned before this call is numbered at most this.
    pub fn returned(&self) -> u64 {
        self.returned.load(Ordering::SeqCst)
    }

    /// Changes counted so far (applied, whether or not they returned yet):
    /// a flush asked for with this covers every one of them.
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::SeqCst)
    }

    /// Changes the last completed flush covered.
    pub fn durable_changes(&self) -> u64 {
        self.durable_changes.load(Ordering::SeqCst)
    }

    /// Statistics of the lock protocol.
    pub fn shared_counts(&self) -> SharedCounts {
        SharedCounts {
            detached_syncs: self.detached_syncs.load(Ordering::Relaxed),
            shared_reads: self.shared_reads.load(Ordering::Relaxed),
            reads_during_sync: self.reads_during_sync.load(Ordering::Relaxed),
            changes_during_sync: self.changes_during_sync.load(Ordering::Relaxed),
            syncs_behind: self.syncs_behind.load(Ordering::Relaxed),
            detached_writes: self.detached_writes.load(Ordering::Relaxed),
            held_returns: self.held_returns.load(Ordering::Relaxed),
        }
    }

    /// Makes the first `must_cover` changes durable ([`Self::returned`]
    /// read when the flush was requested; [`Self::changes`] covers more).
    /// `gate` runs first, under the exclusive lock: `false` stops the
    /// flush (`None`; a server that is shutting down). `Some(Ok(false))`:
    /// an earlier flush already covered them, nothing was flushed;
    /// `Some(Ok(true))`: this call flushed.
    pub fn flush(
        &self,
        must_cover: u64,
        gate: impl FnOnce(&mut D) -> bool,
    ) -> Option<Result<bool>> {
        let sync_running = self.syncing.load(Ordering::Acquire);
        if self.mutant == SharedMutant::FlushReturnsDuringSync && sync_running {
            return Some(Ok(false));
        }
        let _leader = self.leader.lock();
        if self.mutant == SharedMutant::JoinsEarlierSync && sync_running {
            return Some(Ok(false));
        }
        let mut dev = self.device.write();
        if !gate(&mut dev) {
            return None;
        }
        if self.durable_changes.load(Ordering::SeqCst) >= must_cover {
            return Some(Ok(false));
        }
        // Every change counted so far is in what this flush commits.
        let now = self.changes.load(Ordering::SeqCst);
        let step = dev.begin_flush();
        // Changes counted from here on wait for this sync to end before
        // they return, so flushes asked for while it runs can rely on it.
        let _hold = matches!(step, Ok(FlushStep::Ticket(_))).then(|| {
            let mut hold = self.hold.lock();
            hold.running = true;
            hold.generation += 1;
            HoldEnd {
                hold: &self.hold,
                ended: &self.hold_ended,
            }
        });
        let written = self.release(dev);
        let step = match step.and_then(|s| written.map(|()| s)) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        if let FlushStep::Ticket(mut ticket) = step {
            self.syncing.store(true, Ordering::Release);
            let waited = ticket.wait();
            self.syncing.store(false, Ordering::Release);
            self.detached_syncs.fetch_add(1, Ordering::Relaxed);
            let mut dev = self.device.write();
            let finished = dev.finish_flush(ticket, waited);
            let written = self.release(dev);
            if let Err(e) = finished.and(written) {
                return Some(Err(e));
            }
        }
        self.durable_changes.fetch_max(now, Ordering::SeqCst);
        Some(Ok(true))
    }

    /// Makes the epochs the device ended so far durable without ending
    /// the current one, holding no lock on the device while the sync
    /// runs (see the module documentation, "Sync behind"). `gate` runs
    /// first, under the exclusive lock, as for [`Self::flush`]. `Ok(false)`:
    /// nothing ran (the gate said no, a flush is leading, which syncs them
    /// anyway, or the device owes no sync). An error is the device's (a
    /// failed sync fails the device, as a failed flush does).
    pub fn sync_behind(&self, gate: impl FnOnce(&mut D) -> bool) -> Result<bool> {
        let Some(_leader) = self.leader.try_lock() else {
            return Ok(false);
        };
        if self.mutant == SharedMutant::SyncBehindPromisesChanges {
            let now = self.changes.load(Ordering::SeqCst);
            self.durable_changes.fetch_max(now, Ordering::SeqCst);
        }
        let ticket = {
            let mut dev = self.device.write();
            if !gate(&mut dev) {
                return Ok(false);
            }
            let ticket = dev.begin_sync_behind();
            let written = self.release(dev);
            let ticket = ticket?;
            written?;
            ticket
        };
        let Some(mut ticket) = ticket else {
            return Ok(false);
        };
        self.syncing.store(true, Ordering::Release);
        let waited = ticket.wait();
        self.syncing.store(false, Ordering::Release);
        let mut dev = self.device.write();
        let finished = dev.finish_flush(ticket, waited);
        let written = self.release(dev);
        finished?;
        written?;
        self.syncs_behind.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }
}
