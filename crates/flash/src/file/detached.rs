//! Detached writes of gathered programs: the image backend's half of the
//! write pipeline of `ftl::SharedDevice` (ARCHITECTURE.md, ftl
//! `shared.rs`, "Detached writes").
//!
//! With [`crate::Flash::detach_submits`] on, [`crate::Flash::submit`] does
//! not write the gathered run of programs to the file: it moves it into a
//! [`Run`] of this registry, which reads consult, and
//! [`crate::Flash::take_detached`] hands the runs submitted since the last
//! call to the caller as one [`DetachedWrite`], which it runs after it has
//! released the device (the NBD server: after its exclusive lock), so that
//! the kernel's copy of the pages into the page cache no longer holds up
//! every other connection. A whole-page run of
//! [`crate::Flash::program_many`], otherwise written straight from the
//! caller's buffers, becomes such a run too (copied) while another run is
//! held, i.e. while threads write side by side.
//!
//! Rules, and why they keep every command's meaning:
//! - a run is written exactly once, by whoever *claims* it first (a state
//!   change from queued to writing): the detached write, or the device
//!   itself when it must have the run in the file before it goes on
//!   ([`Registry::settle`]: before a sync, an erase, a raw page image, a
//!   synchronous submit, and when the device is dropped);
//! - a run leaves the registry only once its bytes are in the file, so a
//!   read that does not find its page here finds it in the file; a read
//!   that finds it here copies from the run's buffers, which never change;
//! - a run is added only by `&mut` access to the device (`submit`), and
//!   `settle` runs with `&mut` access too: no run can be added while the
//!   device waits for the runs it must see written;
//! - a run whose write failed stays here (reads still see what the FTL was
//!   told was programmed) until `settle` takes it out, erases its pages in
//!   memory, as a failed synchronous write does, and returns the error;
//! - a detached write that is dropped without running leaves its runs
//!   queued: the next `settle` writes them. Nothing waits for a run that
//!   no thread is writing, so no order of events deadlocks.
//!
//! For a power cut nothing changes: a run's bytes reach the file before
//! any sync that covers the programs in it (`settle` before `start_sync`
//! and `sync`), and a program not yet synced may be lost either way. For
//! a `kill -9`: a detached write returns only once its runs are in the
//! file, and `ftl::SharedDevice` runs it before the request is answered,
//! so a killed server still loses no acknowledged write; a kill between
//! the hand-over and the write loses programs of a request not yet
//! answered, as a kill in the middle of a synchronous request does. In
//! general what a kill leaves is one of the outcomes of a power cut the
//! crash checker verifies every FTL against: some programs not yet synced
//! are missing, and every nvram write is there (an FTL that drops an
//! nvram log entry once its data is programmed must sync first, or a
//! power cut would lose the entry's data; its sync writes the runs).

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

const QUEUED: u8 = 0;
const WRITING: u8 = 1;
const WRITTEN: u8 = 2;
const FAILED: u8 = 3;

/// A gathered run of programs of consecutive slots, handed over by
/// `submit` and not yet in the file.
pub(super) struct Run {
    /// Slot of the first page, and pages.
    pub first: u64,
    pub count: u64,
    /// `page_size` data bytes per page.
    pub data: Vec<u8>,
    /// `oob_size` bytes per page (padded).
    pub oob: Vec<u8>,
    /// File offsets of the data, the OOB areas and the state bytes.
    at: (u64, u64, u64),
    state: AtomicU8,
    error: Mutex<Option<io::Error>>,
    /// Where the buffers go when the run is dropped.
    pool: Arc<Pool>,
}

impl Drop for Run {
    /// The buffers go back to the pool, so the next gather reuses their
    /// capacity instead of growing new ones (as the gather did when it
    /// was written in place).
    fn drop(&mut self) {
        let buffers = (
            std::mem::take(&mut self.data),
            std::mem::take(&mut self.oob),
        );
        self.pool.give(buffers);
    }
}

/// Emptied gather buffers of written runs, for the next gathers, so that
/// a run does not grow new buffers page by page (the gather written in
/// place kept its capacity the same way).
#[derive(Default)]
pub(super) struct Pool {
    spare: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
}

/// Most buffer pairs the pool keeps (a gather holds at most
/// `GATHER_BYTES` of data).
const POOL_MAX: usize = 2;

impl Pool {
    /// A pair of empty buffers, with capacity if one was given back.
    pub(super) fn take(&self) -> (Vec<u8>, Vec<u8>) {
        lock(&self.spare).pop().unwrap_or_default()
    }

    fn give(&self, (mut data, mut oob): (Vec<u8>, Vec<u8>)) {
        // A whole-page run (`program_many`) may be as large as the
        // request it came from: buffers above a gather's size are freed
        // rather than kept.
        if data.capacity() == 0 || data.capacity() > super::GATHER_BYTES {
            return;
        }
        data.clear();
        oob.clear();
        let mut spare = lock(&self.spare);
        if spare.len() < POOL_MAX {
            spare.push((data, oob));
        }
    }
}

impl Run {
    pub(super) fn new(
        first: u64,
        count: u64,
        data: Vec<u8>,
        oob: Vec<u8>,
        offsets: (u64, u64, u64),
        pool: Arc<Pool>,
    ) -> Run {
        Run {
            first,
            count,
            data,
            oob,
            at: offsets,
            state: AtomicU8::new(QUEUED),
            error: Mutex::new(None),
            pool,
        }
    }

    /// Whether the run holds slot `slot`; its index in the run if so.
    pub(super) fn index_of(&self, slot: u64) -> Option<usize> {
        let at = slot.checked_sub(self.first)?;
        (at < self.count).then_some(at as usize)
    }

    fn claim(&self) -> bool {
        self.state
            .compare_exchange(QUEUED, WRITING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Writes the run (claimed by the caller) as a synchronous gathered
    /// write does.
    fn write(&self, file: &File) -> io::Result<()> {
        super::write_run_at(file, self.at, self.count as usize, &self.data, &self.oob)
    }
}

/// Where detached writes write: a duplicate of the image's descriptor,
/// and the image's name for error messages (cloned only on an error).
pub(super) struct Target {
    pub file: File,
    pub shown: String,
}

/// The runs handed over and not yet written (or whose write failed).
#[derive(Default)]
pub(super) struct Registry {
    runs: Mutex<Vec<Arc<Run>>>,
    /// Signalled when a run is written or fails.
    done: Condvar,
    /// `runs.len()`, read without the mutex on the read path.
    len: AtomicUsize,
    /// Threads waiting on `done` (changed and read under `runs`'s mutex):
    /// a write wakes them only if there are any, which saves a system
    /// call per run in the common case.
    waiters: AtomicUsize,
    /// Runs written by a detached write (not by `settle`): a counter for
    /// tests and statistics.
    detached_written: AtomicUsize,
    /// The written runs' buffers, for the next gathers.
    pub(super) pool: Arc<Pool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    pub(super) fn add(&self, run: Arc<Run>) {
        let mut runs = lock(&self.runs);
        runs.push(run);
        self.len.store(runs.len(), Ordering::Release);
    }

    /// Whether some run is held (handed over and not yet in the file).
    pub(super) fn busy(&self) -> bool {
        self.len.load(Ordering::Acquire) > 0
    }

    /// The runs now held, for one read to consult (none: empty).
    pub(super) fn snapshot(&self) -> Vec<Arc<Run>> {
        if self.len.load(Ordering::Acquire) == 0 {
            return Vec::new();
        }
        lock(&self.runs).clone()
    }

    /// Wakes the waiters, if any, after a run's state changed under
    /// `runs` (the guard).
    fn wake(&self, runs: MutexGuard<'_, Vec<Arc<Run>>>) {
        let any = self.waiters.load(Ordering::Relaxed) > 0;
        drop(runs);
        if any {
            self.done.notify_all();
        }
    }

    /// Waits on `done` once (the guard of `runs` held, as a condition
    /// variable wants).
    fn wait<'a>(&self, runs: MutexGuard<'a, Vec<Arc<Run>>>) -> MutexGuard<'a, Vec<Arc<Run>>> {
        self.waiters.fetch_add(1, Ordering::Relaxed);
        let runs = self.done.wait(runs).unwrap_or_else(|e| e.into_inner());
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        runs
    }

    /// Waits until `run`, claimed by another thread, is written or failed.
    fn wait_written(&self, run: &Run) {
        let mut runs = lock(&self.runs);
        while run.state.load(Ordering::Acquire) == WRITING {
            runs = self.wait(runs);
        }
    }

    /// Runs written by detached writes so far.
    pub(super) fn detached_written(&self) -> usize {
        self.detached_written.load(Ordering::Relaxed)
    }

    /// Writes `run` if this caller claims it; records the outcome. Returns
    /// the write's error only to the claimer.
    fn write_claimed(&self, run: &Arc<Run>, file: &File) -> io::Result<()> {
        match run.write(file) {
            Ok(()) => {
                let mut runs = lock(&self.runs);
                run.state.store(WRITTEN, Ordering::Release);
                runs.retain(|r| !Arc::ptr_eq(r, run));
                self.len.store(runs.len(), Ordering::Release);
                self.wake(runs);
                Ok(())
            }
            Err(e) => {
                let copy = io::Error::new(e.kind(), e.to_string());
                *lock(&run.error) = Some(e);
                let runs = lock(&self.runs);
                run.state.store(FAILED, Ordering::Release);
                self.wake(runs);
                Err(copy)
            }
        }
    }

    /// Makes every run held now reach the file: writes those no thread
    /// has claimed, waits for those another thread is writing, and takes
    /// out those whose write failed, returning them (the caller erases
    /// their pages in memory) with the first error.
    pub(super) fn settle(&self, file: &File) -> (Vec<Arc<Run>>, Option<io::Error>) {
        if self.len.load(Ordering::Acquire) == 0 {
            return (Vec::new(), None);
        }
        let held = lock(&self.runs).clone();
        let mut first_error = None;
        for run in &held {
            if run.claim() {
                if let Err(e) = self.write_claimed(run, file) {
                    first_error.get_or_insert(e);
                }
            }
        }
        let mut runs = lock(&self.runs);
        while runs
            .iter()
            .any(|r| r.state.load(Ordering::Acquire) != FAILED)
        {
            runs = self.wait(runs);
        }
        let failed: Vec<Arc<Run>> = std::mem::take(&mut *runs);
        self.len.store(0, Ordering::Release);
        drop(runs);
        for run in &failed {
            if let Some(e) = lock(&run.error).take() {
                first_error.get_or_insert(e);
            }
        }
        if !failed.is_empty() && first_error.is_none() {
            first_error = Some(io::Error::other("a detached write of the image failed"));
        }
        (failed, first_error)
    }
}

/// Runs handed over by `submit`, to be written by the caller without the
/// device ([`crate::Flash::take_detached`]). Running it twice, or after the
/// device wrote the runs itself, writes nothing again.
pub struct DetachedWrite {
    job: Option<Box<dyn FnOnce() -> crate::Result<()> + Send>>,
}

impl DetachedWrite {
    /// A write that runs `job` (for devices and layers of other crates).
    pub fn new(job: impl FnOnce() -> crate::Result<()> + Send + 'static) -> DetachedWrite {
        DetachedWrite {
            job: Some(Box::new(job)),
        }
    }

    /// Writes the runs no one else has claimed, and waits for those another
    /// thread is writing: when it returns `Ok`, every run it was given is
    /// in the file (the operating system's hands: a `kill -9` of the
    /// process no longer loses it). An error is the file's (the runs stay
    /// visible to reads until the device settles them and reports it
    /// again).
    pub fn run(mut self) -> crate::Result<()> {
        match self.job.take() {
            Some(job) => job(),
            None => Ok(()),
        }
    }

    /// The detached write of `runs` to `file` through `registry`.
    pub(super) fn of_runs(
        registry: Arc<Registry>,
        runs: Vec<Arc<Run>>,
        target: Arc<Target>,
    ) -> DetachedWrite {
        DetachedWrite::new(move || {
            let mut result = Ok(());
            for run in &runs {
                if !run.claim() {
                    // The device is writing it (a sync or an erase that
                    // came first): this write returns once it is in the
                    // file all the same.
                    registry.wait_written(run);
                } else {
                    match registry.write_claimed(run, &target.file) {
                        Ok(()) => {
                            registry.detached_written.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(source) => {
                            if result.is_ok() {
                                result = Err(crate::FlashError::Io {
                                    path: target.shown.clone(),
                                    source,
                                });
                            }
                        }
                    }
                }
            }
            result
        })
    }
}

impl std::fmt::Debug for DetachedWrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetachedWrite")
            .field("ran", &self.job.is_none())
            .finish()
    }
}
