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
//!   and neither a read nor a write ever waits for an `fdatasync` of a
//!   flush. (An erase does: SCFTL syncs before erasing while any epoch is
//!   unsynced, which the detached sync leaves so; FORMAT.md §4.3.)
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
//! (`must_cover`, the count when it was requested, at most the count the
//! leader committed): then it returns at once; the first one not covered
//! becomes the next leader and commits everything changed until then, so
//! all the flushes that queued during one sync share the next commit and
//! sync. A flush returns only when a sync that started after its
//! `must_cover` changes completed has finished.
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

use crate::sync::{AtomicBool, AtomicU64, Mutex, RwLock};

use crate::device::{BlockDevice, FlushStep, Lba, Result};

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
    /// A flush that arrives while another flush's sync runs waits for that
    /// sync and returns, as if it covered it: the sync started before
    /// this flush's writes, so a power cut may lose them although the
    /// flush returned.
    JoinsEarlierSync,
    /// A sync behind barriers takes itself for a flush: it records every
    /// change made so far as durable, so a flush that finds them covered
    /// returns without committing the open epoch they are in.
    SyncBehindPromisesChanges,
}

impl SharedMutant {
    /// Every bug, by name (for the test's command line).
    pub const ALL: [(SharedMutant, &'static str); 3] = [
        (
            SharedMutant::FlushReturnsDuringSync,
            "flush-returns-during-sync",
        ),
        (SharedMutant::JoinsEarlierSync, "joins-earlier-sync"),
        (
            SharedMutant::SyncBehindPromisesChanges,
            "sync-behind-promises-changes",
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
    /// Syncs waited for without the device, and reads served with shared
    /// access.
    detached_syncs: AtomicU64,
    shared_reads: AtomicU64,
    /// Reads and changes that took the lock while a flush's sync ran.
    reads_during_sync: AtomicU64,
    changes_during_sync: AtomicU64,
    /// Syncs behind barriers that ran ([`SharedDevice::sync_behind`]).
    syncs_behind: AtomicU64,
    mutant: SharedMutant,
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
}

impl<D: BlockDevice + Send + Sync> SharedDevice<D> {
    pub fn new(device: D) -> SharedDevice<D> {
        SharedDevice::with_mutant(device, SharedMutant::None)
    }

    /// A shared device with a deliberate bug (the checker's self-test).
    pub fn with_mutant(device: D, mutant: SharedMutant) -> SharedDevice<D> {
        SharedDevice {
            device: RwLock::new(device),
            leader: Mutex::new(()),
            syncing: AtomicBool::new(false),
            changes: AtomicU64::new(0),
            durable_changes: AtomicU64::new(0),
            detached_syncs: AtomicU64::new(0),
            shared_reads: AtomicU64::new(0),
            reads_during_sync: AtomicU64::new(0),
            changes_during_sync: AtomicU64::new(0),
            syncs_behind: AtomicU64::new(0),
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

    /// Runs `f` with exclusive access; counts nothing.
    pub fn exclusive<R>(&self, f: impl FnOnce(&mut D) -> R) -> R {
        f(&mut self.device.write())
    }

    /// Runs the change `f` with exclusive access, and counts it when it
    /// succeeds (a later flush must cover it).
    pub fn change<T, E>(
        &self,
        f: impl FnOnce(&mut D) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let mut dev = self.device.write();
        self.note_during_sync(&self.changes_during_sync);
        let r = f(&mut dev);
        if r.is_ok() {
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        r
    }

    /// Changes completed so far: a flush asked for now must cover these.
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
        }
    }

    /// Makes the first `must_cover` changes durable ([`Self::changes`] read
    /// when the flush was requested). `gate` runs first, under the
    /// exclusive lock: `false` stops the flush (`None`; a server that is
    /// shutting down). `Some(Ok(false))`: an earlier flush already covered
    /// them, nothing was flushed; `Some(Ok(true))`: this call flushed.
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
        let step = match dev.begin_flush() {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        drop(dev);
        if let FlushStep::Ticket(mut ticket) = step {
            self.syncing.store(true, Ordering::Release);
            let waited = ticket.wait();
            self.syncing.store(false, Ordering::Release);
            self.detached_syncs.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = self.device.write().finish_flush(ticket, waited) {
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
            dev.begin_sync_behind()?
        };
        let Some(mut ticket) = ticket else {
            return Ok(false);
        };
        self.syncing.store(true, Ordering::Release);
        let waited = ticket.wait();
        self.syncing.store(false, Ordering::Release);
        self.device.write().finish_flush(ticket, waited)?;
        self.syncs_behind.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }
}
