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
//! * **A flush** takes it exclusive for everything it writes
//!   ([`BlockDevice::begin_flush`]), then holds it *upgradable* — shared
//!   with readers, exclusive against changes and other flushes — while the
//!   sync runs ([`BlockDevice::sync_shared`]: an `fdatasync` on an image),
//!   and upgrades back to exclusive for [`BlockDevice::end_flush`]. Reads
//!   arriving during the sync take the lock recursively, past a change
//!   queued behind the sync, so a read never waits for an `fdatasync`.
//!
//! Why a read in flight never sees a page erased or reused under it (the
//! "reader pin"): a read holds the shared lock from its L2P lookup to its
//! last copy out of the flash, and the FTL erases and programs only inside
//! `&mut self` methods, which run under the exclusive lock. The shared hold
//! *is* the pin: no GC step can start until every read that looked up the
//! old mapping has finished, and a read that starts later looks up the new
//! mapping. The upgradable hold of a flush's sync admits readers but no
//! change, so the FTL sees exactly the command sequence one lock would give
//! it: begin, sync, end, with nothing in between.
//!
//! **Group commit.** Every successful change counts one (`changes`); a
//! completed flush records the count it covered (`durable_changes`). A
//! flush asked to cover the changes completed before it was requested
//! (`must_cover`) returns at once when an earlier flush already covered
//! them: flushes that arrive while another one syncs wait for it (behind
//! the upgradable hold) and then find their changes durable, so many
//! clients' flushes share one sync. A flush returns only when a sync that
//! began after its `must_cover` changes completed has finished.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::{RwLock, RwLockUpgradableReadGuard, RwLockWriteGuard};

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
    /// A flush drops every lock during its sync and retakes the exclusive
    /// lock to end it, so a change can run between the commit and the end
    /// of the flush (the device refuses it: a flush is begun).
    UnlockDuringSync,
}

impl SharedMutant {
    /// Every bug, by name (for the test's command line).
    pub const ALL: [(SharedMutant, &'static str); 2] = [
        (
            SharedMutant::FlushReturnsDuringSync,
            "flush-returns-during-sync",
        ),
        (SharedMutant::UnlockDuringSync, "unlock-during-sync"),
    ];
}

/// A [`BlockDevice`] shared by threads. See the module documentation.
pub struct SharedDevice<D> {
    device: RwLock<D>,
    /// A flush holds the lock upgradable while its sync runs.
    syncing: AtomicBool,
    /// A flush is between its begin and its end (read only by the
    /// `FlushReturnsDuringSync` mutant).
    flushing: AtomicBool,
    changes: AtomicU64,
    durable_changes: AtomicU64,
    /// Syncs run with readers admitted, and reads served with shared access.
    shared_syncs: AtomicU64,
    shared_reads: AtomicU64,
    /// Reads that took the lock while a flush's sync ran.
    reads_during_sync: AtomicU64,
    mutant: SharedMutant,
}

impl<D: BlockDevice + Send + Sync> SharedDevice<D> {
    pub fn new(device: D) -> SharedDevice<D> {
        SharedDevice::with_mutant(device, SharedMutant::None)
    }

    /// A shared device with a deliberate bug (the checker's self-test).
    pub fn with_mutant(device: D, mutant: SharedMutant) -> SharedDevice<D> {
        SharedDevice {
            device: RwLock::new(device),
            syncing: AtomicBool::new(false),
            flushing: AtomicBool::new(false),
            changes: AtomicU64::new(0),
            durable_changes: AtomicU64::new(0),
            shared_syncs: AtomicU64::new(0),
            shared_reads: AtomicU64::new(0),
            reads_during_sync: AtomicU64::new(0),
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

    /// Reads `buf.len() / sector_size` sectors at `lba`, with shared access
    /// where the device allows it.
    pub fn read(&self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        {
            let dev = if self.syncing.load(Ordering::Acquire) {
                // Past a change queued behind the sync (see the module
                // documentation); once the sync is over this just waits.
                self.reads_during_sync.fetch_add(1, Ordering::Relaxed);
                self.device.read_recursive()
            } else {
                self.device.read()
            };
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

    /// Syncs run while readers went on, reads served with shared access,
    /// and reads that arrived while a flush's sync ran (statistics).
    pub fn shared_counts(&self) -> (u64, u64, u64) {
        (
            self.shared_syncs.load(Ordering::Relaxed),
            self.shared_reads.load(Ordering::Relaxed),
            self.reads_during_sync.load(Ordering::Relaxed),
        )
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
        if self.mutant == SharedMutant::FlushReturnsDuringSync
            && self.flushing.load(Ordering::Acquire)
        {
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
        if step == FlushStep::SyncOwed {
            self.flushing.store(true, Ordering::Release);
            let r = if self.mutant == SharedMutant::UnlockDuringSync {
                drop(dev);
                let synced = {
                    let shared = self.device.read();
                    shared.sync_shared()
                };
                dev = self.device.write();
                dev.end_flush(synced)
            } else {
                let held = RwLockWriteGuard::downgrade_to_upgradable(dev);
                self.syncing.store(true, Ordering::Release);
                let synced = held.sync_shared();
                self.syncing.store(false, Ordering::Release);
                if synced.is_some() {
                    self.shared_syncs.fetch_add(1, Ordering::Relaxed);
                }
                dev = RwLockUpgradableReadGuard::upgrade(held);
                dev.end_flush(synced)
            };
            self.flushing.store(false, Ordering::Release);
            if let Err(e) = r {
                return Some(Err(e));
            }
        }
        self.durable_changes.fetch_max(now, Ordering::SeqCst);
        Some(Ok(true))
    }
}
