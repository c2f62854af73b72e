//! `ftl::SharedDevice`: reads and writes run while a flush syncs, and
//! writes made then return after it; a flush asked for during a sync is
//! covered by it; flushes asked for after held writes share the next
//! commit; a flush ticket leaves the device usable until it is finished;
//! the shared read path gives what the exclusive one gives.

use std::sync::mpsc;
use std::time::Duration;

use flash::{Flash, Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FlushStep, FtlError, Lba, SharedDevice};

/// RAM flash whose first detached sync blocks until the test says so,
/// telling the test when it started.
struct GatedSync {
    inner: MemFlash,
    started: Option<mpsc::Sender<()>>,
    release: Option<std::sync::Mutex<mpsc::Receiver<()>>>,
}

impl flash::Layer for GatedSync {
    flash::layer_below!(inner: MemFlash);

    fn geometry(&self) -> &Geometry {
        Flash::geometry(&self.inner)
    }

    fn read_shared(&self, reads: &mut [flash::PageRead<'_>]) -> Option<flash::Result<()>> {
        Flash::read_shared(&self.inner, reads)
    }

    fn start_sync(&mut self) -> Option<flash::Result<flash::SyncTicket>> {
        let t = match self.inner.start_sync()? {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        let (Some(tx), Some(rx)) = (self.started.take(), self.release.take()) else {
            return Some(Ok(t));
        };
        Some(Ok(t.after(move || {
            tx.send(()).unwrap();
            // The test releases the sync once reads and writes finished
            // meanwhile; if they waited for the sync, this times out.
            rx.into_inner()
                .unwrap()
                .recv_timeout(Duration::from_secs(20))
                .expect("nothing finished while the sync ran");
        })))
    }
}

fn sector(ss: usize, b: u8) -> Vec<u8> {
    vec![b; ss]
}

fn gated_device() -> (
    SharedDevice<Scftl<GatedSync>>,
    mpsc::Receiver<()>,
    mpsc::Sender<()>,
) {
    let g = Geometry::small();
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel();
    let flash = GatedSync {
        inner: MemFlash::new(g).unwrap(),
        started: Some(started_tx),
        release: Some(std::sync::Mutex::new(release_rx)),
    };
    let mut dev = Scftl::format(flash, ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    // Sectors 0..8 on flash (a page of them).
    for la in 0..8 {
        dev.write(Lba(la), &sector(ss, 0x10 + la as u8)).unwrap();
    }
    (SharedDevice::new(dev), started_rx, release_tx)
}

/// Waits until `cond` holds (a thread blocked elsewhere gets there).
fn until(cond: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn reads_and_writes_run_while_a_flush_syncs() {
    let (shared, started, release) = gated_device();
    let ss = shared.exclusive(|d| d.sector_size());
    shared
        .change(|d| d.write(Lba(9), &sector(ss, 0x99)))
        .unwrap();
    let covered = shared.returned();
    let (wrote_tx, wrote_rx) = mpsc::channel();
    std::thread::scope(|s| {
        let flusher = s.spawn(|| shared.flush(covered, |_| true));
        started.recv().unwrap();
        // The flush is syncing with no lock held: a write is applied ...
        let writer = s.spawn(|| {
            let r = shared.change(|d| d.write(Lba(20), &sector(ss, 0x20)));
            wrote_tx.send(()).unwrap();
            r
        });
        until(|| shared.changes() == covered + 1);
        // ... and reads go on, of flash, of the flushed sector and of the
        // one written during the sync ...
        let mut buf = vec![0u8; 2 * ss];
        shared.read(Lba(0), &mut buf).unwrap();
        assert_eq!(buf[..ss], sector(ss, 0x10)[..]);
        assert_eq!(buf[ss..], sector(ss, 0x11)[..]);
        shared.read(Lba(9), &mut buf[..ss]).unwrap();
        assert_eq!(buf[..ss], sector(ss, 0x99)[..]);
        shared.read(Lba(20), &mut buf[..ss]).unwrap();
        assert_eq!(buf[..ss], sector(ss, 0x20)[..]);
        // ... but the write returns only when the sync has ended (held
        // returns): it has not, while the sync is held up.
        std::thread::sleep(Duration::from_millis(50));
        assert!(wrote_rx.try_recv().is_err(), "the write returned early");
        assert_eq!(shared.returned(), covered);
        release.send(()).unwrap();
        assert!(flusher.join().unwrap().unwrap().unwrap(), "it flushed");
        writer.join().unwrap().unwrap();
    });
    let c = shared.shared_counts();
    assert_eq!(c.detached_syncs, 1, "the sync ran without the lock");
    assert!(c.reads_during_sync >= 3, "the reads came during the sync");
    assert_eq!(c.changes_during_sync, 1, "the write came during the sync");
    assert_eq!(c.held_returns, 1, "the write waited for the sync");
    assert!(c.shared_reads >= 3, "the reads took the shared path");
    // The write made during the sync is in the next epoch: the flush did
    // not claim it, and the next flush commits it.
    assert_eq!(shared.durable_changes(), covered);
    assert_eq!(shared.returned(), covered + 1);
    assert!(shared.flush(shared.returned(), |_| true).unwrap().unwrap());
    let mut dev = shared.into_inner();
    dev.check_invariants().unwrap();
    let mut buf = vec![0u8; ss];
    dev.read(Lba(20), &mut buf).unwrap();
    assert_eq!(buf, sector(ss, 0x20));
}

#[test]
fn a_flush_asked_for_during_a_sync_is_covered_by_it_while_later_changes_are_held() {
    let (shared, started, release) = gated_device();
    let ss = shared.exclusive(|d| d.sector_size());
    shared.change(|d| d.write(Lba(9), &sector(ss, 9))).unwrap();
    let covered = shared.returned();
    std::thread::scope(|s| {
        let first = s.spawn(|| shared.flush(covered, |_| true));
        started.recv().unwrap();
        // A change counted after the commit: applied, held.
        let held = s.spawn(|| shared.change(|d| d.write(Lba(40), &sector(ss, 4))));
        until(|| shared.changes() == covered + 1);
        // A flush asked for now must cover only what returned: the
        // running sync covers it, so it waits for that sync and returns
        // without a commit of its own.
        let second = s.spawn(|| shared.flush(shared.returned(), |_| true));
        std::thread::sleep(Duration::from_millis(50));
        release.send(()).unwrap();
        assert!(first.join().unwrap().unwrap().unwrap(), "the first flushed");
        assert!(
            !second.join().unwrap().unwrap().unwrap(),
            "the second was covered by the sync it arrived in"
        );
        held.join().unwrap().unwrap();
    });
    assert_eq!(shared.shared_counts().detached_syncs, 1);
    assert_eq!(shared.durable_changes(), covered);
    // The held change returned after the sync: a flush asked for now must
    // commit it.
    assert!(shared.flush(shared.returned(), |_| true).unwrap().unwrap());
    assert_eq!(shared.durable_changes(), covered + 1);
}

#[test]
fn flushes_asked_for_after_held_changes_share_the_next_commit() {
    let (shared, started, release) = gated_device();
    let ss = shared.exclusive(|d| d.sector_size());
    shared.change(|d| d.write(Lba(9), &sector(ss, 9))).unwrap();
    std::thread::scope(|s| {
        let first = {
            let c = shared.returned();
            let shared = &shared;
            s.spawn(move || shared.flush(c, |_| true))
        };
        started.recv().unwrap();
        let base = shared.changes();
        let queued: Vec<_> = (0..3u8)
            .map(|k| {
                let shared = &shared;
                s.spawn(move || {
                    shared
                        .change(|d| d.write(Lba(30 + u64::from(k)), &sector(ss, k)))
                        .unwrap();
                    shared.flush(shared.returned(), |_| true)
                })
            })
            .collect();
        // The three writes are applied during the sync, and held.
        until(|| shared.changes() == base + 3);
        release.send(()).unwrap();
        assert!(first.join().unwrap().unwrap().unwrap());
        let flushed: Vec<bool> = queued
            .into_iter()
            .map(|h| h.join().unwrap().unwrap().unwrap())
            .collect();
        assert_eq!(
            flushed.iter().filter(|&&f| f).count(),
            1,
            "one commit covers the three flushes: {flushed:?}"
        );
    });
    assert_eq!(shared.durable_changes(), shared.changes());
    let c = shared.shared_counts();
    assert_eq!(c.detached_syncs, 2);
    assert_eq!(c.held_returns, 3);
}

#[test]
fn a_flush_ticket_leaves_the_device_usable_until_it_is_finished() {
    let g = Geometry::small();
    let dev = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    let shared = SharedDevice::new(dev);
    shared.change(|d| d.write(Lba(1), &sector(ss, 1))).unwrap();
    let must = shared.changes();
    assert!(shared.flush(must, |_| true).unwrap().unwrap());
    // Nothing changed since: covered, no flush.
    assert!(!shared.flush(must, |_| true).unwrap().unwrap());
    assert_eq!(shared.durable_changes(), must);
    // A refused gate stops the flush.
    shared.change(|d| d.write(Lba(2), &sector(ss, 2))).unwrap();
    assert!(shared.flush(shared.changes(), |_| false).is_none());
    // Between begin and finish the device takes writes (the next epoch)
    // and reads.
    let mut dev = shared.into_inner();
    let FlushStep::Ticket(mut ticket) = dev.begin_flush().unwrap() else {
        panic!("a flush of RAM flash owes its sync as a ticket");
    };
    dev.write(Lba(3), &sector(ss, 3)).unwrap();
    let mut buf = vec![0u8; ss];
    let r = dev.read_shared(Lba(2), &mut buf).expect("RAM reads shared");
    r.unwrap();
    assert_eq!(buf, sector(ss, 2));
    let waited = ticket.wait();
    dev.finish_flush(ticket, waited).unwrap();
    dev.check_invariants().unwrap();
    // A failed sync fails the flush, and the device with it.
    dev.write(Lba(4), &sector(ss, 4)).unwrap();
    let FlushStep::Ticket(ticket) = dev.begin_flush().unwrap() else {
        panic!("a ticket");
    };
    let failed = Err(FtlError::Flash(flash::FlashError::PowerLoss));
    assert!(dev.finish_flush(ticket, failed).is_err());
    assert!(
        dev.write(Lba(5), &sector(ss, 5)).is_err(),
        "the device is poisoned"
    );
}

#[test]
fn shared_reads_match_exclusive_reads() {
    let g = Geometry::small();
    let mut dev = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    let n = 64u64;
    // Scattered and sequential sectors, some in the merge buffer, a trim.
    for la in 0..n {
        let la2 = (la * 37) % n;
        dev.write(Lba(la2), &sector(ss, la2 as u8 ^ 0x5a)).unwrap();
    }
    dev.flush().unwrap();
    dev.write(Lba(5), &sector(ss, 0xee)).unwrap();
    dev.trim(Lba(7), 2).unwrap();
    let mut a = vec![0u8; (n + 8) as usize * ss];
    let mut b = a.clone();
    dev.read(Lba(0), &mut a).unwrap();
    dev.read_shared(Lba(0), &mut b).unwrap().unwrap();
    assert_eq!(a, b);
    // Bad input: the same clear error, no panic.
    let end = dev.num_sectors();
    let e = dev
        .read_shared(Lba(end), &mut b[..ss])
        .unwrap()
        .unwrap_err();
    assert!(matches!(e, FtlError::OutOfRange { .. }), "{e}");
    let e = dev
        .read_shared(Lba(0), &mut b[..ss - 1])
        .unwrap()
        .unwrap_err();
    assert!(matches!(e, FtlError::BadLength { .. }), "{e}");
}

/// `allocation` (NBD's block status): runs of mapped and unmapped
/// sectors, exactly the sectors written and not trimmed since (flushed,
/// in the merge buffer, or written with zeros: mapped all the same), what
/// a reopen recovers, and through `SharedDevice` too; an unmapped sector
/// reads as zeros; a range past the end is an error.
#[test]
fn allocation_reports_the_mapped_sectors() {
    let g = Geometry::small();
    let mut dev = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    assert_eq!(
        dev.allocation(Lba(0), n).unwrap().unwrap(),
        vec![(n, false)]
    );
    for la in [3u64, 4, 5, 6, 20] {
        dev.write(Lba(la), &sector(ss, la as u8)).unwrap();
    }
    dev.write(Lba(21), &vec![0u8; ss]).unwrap();
    dev.flush().unwrap();
    dev.trim(Lba(4), 2).unwrap();
    dev.write(Lba(30), &sector(ss, 9)).unwrap();
    let want = vec![
        (3, false),
        (1, true),
        (2, false),
        (1, true),
        (13, false),
        (2, true),
        (8, false),
        (1, true),
        (n - 31, false),
    ];
    assert_eq!(dev.allocation(Lba(0), n).unwrap().unwrap(), want);
    // A window of it, and what reads return there.
    assert_eq!(
        dev.allocation(Lba(5), 3).unwrap().unwrap(),
        vec![(1, false), (1, true), (1, false)]
    );
    let mut b = vec![0xffu8; 3 * ss];
    dev.read(Lba(5), &mut b).unwrap();
    assert!(b[..ss].iter().all(|&x| x == 0) && b[2 * ss..].iter().all(|&x| x == 0));
    let e = dev.allocation(Lba(n - 1), 2).unwrap().unwrap_err();
    assert!(matches!(e, FtlError::OutOfRange { .. }), "{e}");
    // After a flush and a reopen: the same, from the recovered L2P.
    dev.flush().unwrap();
    let dev = Scftl::open(dev.into_flash()).unwrap();
    assert_eq!(dev.allocation(Lba(0), n).unwrap().unwrap(), want);
    let shared = SharedDevice::new(dev);
    assert_eq!(shared.allocation(Lba(0), n).unwrap().unwrap(), want);
}

/// Shared reads verify sectors against the data checksums SCFTL keeps
/// in RAM once it knows them (`map.rs` `CrcCache`): the first shared read
/// of a sector written before any shared read takes its checksum from the
/// OOB, later ones read its data alone; a sector placed after that (a
/// write, or a GC relocation into a reused superblock) has its checksum
/// set with its mapping, and reads right.
#[test]
fn shared_reads_read_no_oob_once_the_checksums_are_known() {
    let g = Geometry::small();
    let mut dev = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    // Every logical sector: the device is full, so GC relocates.
    let n = dev.num_sectors();
    let bytes = |d: &Scftl<MemFlash>| d.stats().flash.bytes_read;
    for la in 0..n {
        dev.write(Lba(la), &sector(ss, la as u8 ^ 0x5a)).unwrap();
        if dev.epoch_remaining() == Some(0) {
            dev.flush().unwrap();
        }
    }
    dev.flush().unwrap();
    let mut a = vec![0u8; n as usize * ss];
    let mut b = a.clone();
    let before = bytes(&dev);
    dev.read_shared(Lba(0), &mut a).unwrap().unwrap();
    let first = bytes(&dev) - before;
    let before = bytes(&dev);
    dev.read_shared(Lba(0), &mut b).unwrap().unwrap();
    let second = bytes(&dev) - before;
    assert_eq!(a, b);
    assert!(
        first > a.len() as u64,
        "the first read took the OOB: {first}"
    );
    assert_eq!(second, a.len() as u64, "the second read only data");
    // Overwrite sectors at random until GC has erased and reused
    // superblocks (the physical sectors read above hold other sectors now)
    // and relocated live sectors.
    let mut model: Vec<u8> = (0..n).map(|la| la as u8 ^ 0x5a).collect();
    let reclaimed = dev.stats().gc_blocks_reclaimed;
    let mut x = 12345u64;
    for round in 0..5000u32 {
        let st = dev.stats();
        if st.gc_blocks_reclaimed >= reclaimed + 8 && st.gc_sectors_relocated > 0 {
            break;
        }
        for _ in 0..8 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let la = (x >> 33) % n;
            let v = (round as u8).wrapping_mul(3) ^ la as u8;
            dev.write(Lba(la), &sector(ss, v)).unwrap();
            model[la as usize] = v;
        }
        dev.flush().unwrap();
    }
    let st = dev.stats();
    assert!(st.gc_blocks_reclaimed >= reclaimed + 8, "{st:?}");
    assert!(st.gc_sectors_relocated > 0, "{st:?}");
    let before = bytes(&dev);
    dev.read_shared(Lba(0), &mut b).unwrap().unwrap();
    assert_eq!(bytes(&dev) - before, b.len() as u64, "only data again");
    dev.read(Lba(0), &mut a).unwrap();
    assert_eq!(a, b, "shared and exclusive reads agree after GC");
    for (la, &v) in model.iter().enumerate() {
        assert_eq!(b[la * ss..(la + 1) * ss], sector(ss, v)[..], "sector {la}");
    }
}

#[test]
fn a_sync_behind_barriers_runs_without_the_lock_and_promises_nothing() {
    let (shared, started, release) = gated_device();
    let ss = shared.exclusive(|d| d.sector_size());
    // Nothing ended unsynced yet (format syncs): no sync behind.
    assert!(!shared.sync_behind(|_| true).unwrap());
    shared
        .change(|d| {
            d.write(Lba(9), &sector(ss, 0x99))?;
            d.epoch_barrier()
        })
        .unwrap();
    let syncs_before = shared.exclusive(|d| d.stats().flash.syncs);
    // A gate that says no (a server shutting down) starts nothing.
    assert!(!shared.sync_behind(|_| false).unwrap());
    std::thread::scope(|s| {
        let syncer = s.spawn(|| shared.sync_behind(|_| true));
        started.recv().unwrap();
        // The sync runs with no lock held: a write and reads complete.
        shared
            .change(|d| d.write(Lba(20), &sector(ss, 0x20)))
            .unwrap();
        let mut buf = vec![0u8; ss];
        shared.read(Lba(9), &mut buf).unwrap();
        assert_eq!(buf, sector(ss, 0x99));
        release.send(()).unwrap();
        assert!(syncer.join().unwrap().unwrap(), "it synced");
    });
    let c = shared.shared_counts();
    assert_eq!(c.syncs_behind, 1);
    assert_eq!(c.changes_during_sync, 1, "the write came during the sync");
    // It promised no client anything.
    assert_eq!(shared.durable_changes(), 0);
    // The barrier's epoch is durable now: nothing more is owed until
    // another epoch ends, and a later erase needs no sync of its own.
    assert!(!shared.sync_behind(|_| true).unwrap());
    assert_eq!(
        shared.exclusive(|d| d.stats().flash.syncs),
        syncs_before + 1
    );
    shared.change(|d| d.epoch_barrier()).unwrap();
    assert!(
        shared.sync_behind(|_| true).unwrap(),
        "a new barrier, a new sync"
    );
    assert!(shared.flush(shared.changes(), |_| true).unwrap().unwrap());
    let mut dev = shared.into_inner();
    dev.check_invariants().unwrap();
    let mut buf = vec![0u8; ss];
    dev.read(Lba(20), &mut buf).unwrap();
    assert_eq!(buf, sector(ss, 0x20));
}

/// The erase ahead (`Scftl::erase_ahead`): a sync behind barriers that
/// leaves no epoch unsynced erases the superblocks the next epochs will
/// fill, so a sequential writer that goes on while the next sync behind
/// runs opens erased superblocks and never syncs under the lock (without
/// it, the first superblock each such epoch opens waits for a sync of
/// its own). Driven as `SharedDevice` does, one step at a time: the
/// barrier, the sync behind started, a whole epoch written meanwhile,
/// the sync's return.
#[test]
fn a_sync_behind_erases_ahead_so_writes_during_the_next_one_never_sync() {
    let g = Geometry::small();
    let mut dev = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let (ss, n) = (dev.sector_size(), dev.num_sectors());
    const CHUNK: u64 = 64;
    assert_eq!(n % CHUNK, 0);
    let data = vec![0x5a; CHUNK as usize * ss];
    let mut at = 0u64;
    // One epoch of sequential writes, ended where the next chunk would
    // not fit (as `scftl serve` ends a writer's epochs). Returns the
    // flash syncs it issued.
    let write_epoch = |dev: &mut Scftl<MemFlash>, at: &mut u64| {
        let syncs = dev.stats().flash.syncs;
        while dev.epoch_remaining().unwrap() >= CHUNK {
            dev.write(Lba(*at % n), &data).unwrap();
            *at += CHUNK;
        }
        dev.stats().flash.syncs - syncs
    };
    let sync_behind = |dev: &mut Scftl<MemFlash>, t: Option<ftl::FlushTicket>| {
        let mut t = t.expect("an epoch is unsynced");
        let waited = t.wait();
        dev.finish_flush(t, waited).unwrap();
    };
    // Fill the device more than once, so superblocks become erasable.
    let mut epochs = 0;
    while at < 2 * n {
        write_epoch(&mut dev, &mut at);
        dev.epoch_barrier().unwrap();
        let t = dev.begin_sync_behind().unwrap();
        sync_behind(&mut dev, t);
        epochs += 1;
    }
    let erased = dev.stats().erased_ahead;
    assert!(erased > 0, "no superblock erased ahead in {epochs} epochs");
    // Now each epoch is written while the last one's sync is in flight.
    write_epoch(&mut dev, &mut at);
    let mut opened = 0;
    for round in 0..6 {
        dev.epoch_barrier().unwrap();
        let t = dev.begin_sync_behind().unwrap();
        let before = dev.stats();
        let synced = write_epoch(&mut dev, &mut at);
        let after = dev.stats();
        assert_eq!(
            synced, 0,
            "round {round}: a write synced under the lock while a sync behind ran ({} free superblocks before)",
            before.free_blocks
        );
        // Superblocks the epoch opened, all from the pool.
        opened += before.free_blocks.saturating_sub(after.free_blocks);
        sync_behind(&mut dev, t);
    }
    assert!(opened > 0, "the rounds opened no superblock");
    assert!(dev.stats().erased_ahead > erased);
    dev.check_invariants().unwrap();
}

/// Writes `data` at `lba` as a server connection does: an epoch that is
/// full ends with a barrier first.
fn write_with_barrier<D: BlockDevice>(d: &mut D, lba: u64, data: &[u8]) -> ftl::Result<()> {
    match d.write(Lba(lba), data) {
        Err(FtlError::EpochFull { .. }) => {
            d.epoch_barrier()?;
            d.write(Lba(lba), data)
        }
        r => r,
    }
}

/// SCFTL on an image behind a `SharedDevice`, as `scftl serve` runs it:
/// the pages a write fills are written to the file after the lock is
/// released (detached writes). Four threads write, read and flush their
/// own sectors while GC erases under them; every read returns the thread's
/// last write, and after a reopen every sector holds its last write.
#[test]
fn detached_image_writes_keep_each_thread_reading_its_own_writes() {
    threads_read_their_own_writes_on_an_image(4, 12, 1, 4000, 0);
}

/// The same with whole-page requests: SCFTL programs them with one
/// `program_many` straight from the request (`datapath.rs`
/// `program_run_direct`), which the image copies into a run of its own
/// and hands to the detached write while another thread's run is held
/// (`flash::file`). Three threads write requests of four whole pages over
/// regions of their own. (Each thread reads only what it wrote, after its
/// write ran, so a run left out of the registry is caught by
/// `flash/tests/file_detached.rs`, not here.)
#[test]
fn detached_whole_page_writes_keep_each_thread_reading_its_own_writes() {
    let pages = 4 * u64::from(Geometry::tiny().sectors_per_page);
    threads_read_their_own_writes_on_an_image(3, 3, pages, 1500, 100);
}

/// `threads` threads each own `own` regions of `per` sectors (region `k`
/// of thread `t` at `(k * threads + t) * per`) of SCFTL on a tiny image
/// behind a `SharedDevice`, and for `steps` steps write a region (an
/// epoch barrier when the epoch is full), read one back (it must hold the
/// thread's last write) or flush, with GC under them; after a reopen every
/// region holds its last write.
fn threads_read_their_own_writes_on_an_image(
    threads: u64,
    own: u64,
    per: u64,
    steps: u64,
    seed: u64,
) {
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let g = Geometry::tiny();
    let image = flash::FileFlash::create(&path, g, false).unwrap();
    let dev =
        ftl::AnyFtl::format(image, ftl::FtlKind::Scftl, &ftl::FormatOptions::default()).unwrap();
    let shared = Arc::new(SharedDevice::new(dev));
    let bytes = per as usize * g.sector_size as usize;
    assert!(per * threads * own <= shared.exclusive(|d| d.num_sectors()));
    let content = move |t: u64, k: u64, v: u64| -> Vec<u8> {
        let mut s: Vec<u8> = (0..bytes as u64)
            .map(|i| (i * 7 + t * 31 + k) as u8)
            .collect();
        s[..8].copy_from_slice(&v.to_le_bytes());
        s
    };
    let expected = move |t: u64, k: u64, v: u64| match v {
        0 => vec![0u8; bytes],
        v => content(t, k, v),
    };
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let mut rng = rand_pcg::Pcg64::seed_from_u64(t + seed);
                // Version written last per owned region (0: never).
                let mut last = vec![0u64; own as usize];
                for step in 1..=steps {
                    let k = rng.gen_range(0..own);
                    let lba = (k * threads + t) * per;
                    match rng.gen_range(0..10) {
                        0..=5 => {
                            let data = content(t, k, step);
                            shared
                                .change(|d| write_with_barrier(d, lba, &data))
                                .unwrap();
                            last[k as usize] = step;
                        }
                        6..=8 => {
                            let mut buf = vec![0u8; bytes];
                            shared.read(Lba(lba), &mut buf).unwrap();
                            let want = expected(t, k, last[k as usize]);
                            assert!(buf == want, "thread {t} sectors from {lba} at step {step}");
                        }
                        _ => {
                            let must = shared.changes();
                            shared.flush(must, |_| true).unwrap().unwrap();
                        }
                    }
                }
                last
            })
        })
        .collect();
    let lasts: Vec<Vec<u64>> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    shared.flush(shared.changes(), |_| true).unwrap().unwrap();
    let counts = shared.shared_counts();
    let shared = Arc::into_inner(shared).unwrap();
    let dev = shared.into_inner();
    let stats = dev.stats();
    assert!(counts.detached_writes > 500, "{counts:?}");
    assert!(
        stats.gc_blocks_reclaimed > 10,
        "GC erased under them: {stats:?}"
    );
    drop(dev);
    let mut dev = ftl::AnyFtl::open(flash::FileFlash::open(&path).unwrap()).unwrap();
    for (t, last) in lasts.iter().enumerate() {
        for (k, &v) in last.iter().enumerate() {
            let lba = (k as u64 * threads + t as u64) * per;
            let mut buf = vec![0u8; bytes];
            dev.read(Lba(lba), &mut buf).unwrap();
            let want = expected(t as u64, k as u64, v);
            assert!(buf == want, "sectors from {lba} after the reopen");
        }
    }
}

/// `allocation` of every FTL (SCFTL, the baselines, OPTR through
/// `AnyFtl`): after seeded writes and trims, a sector is mapped exactly
/// when its last change was a write, and every unmapped one reads as
/// zeros; the same after a flush and a reopen.
#[test]
fn allocation_of_every_ftl_follows_writes_and_trims() {
    use ftl::{AnyFtl, FormatOptions, FtlKind};
    use rand::{Rng, SeedableRng};
    let g = Geometry::small();
    for kind in [FtlKind::Scftl, FtlKind::Async, FtlKind::Sync, FtlKind::Optr] {
        let mut dev =
            AnyFtl::format(MemFlash::new(g).unwrap(), kind, &FormatOptions::default()).unwrap();
        let ss = dev.sector_size();
        let n = dev.num_sectors().min(256);
        let mut want = vec![false; dev.num_sectors() as usize];
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for i in 0..300u64 {
            let la = rng.gen_range(0..n - 4);
            let count = rng.gen_range(1..=4u64);
            let write = rng.gen_bool(0.7);
            if write {
                let data = vec![(i % 255) as u8 + 1; count as usize * ss];
                dev.write(Lba(la), &data).unwrap();
            } else {
                dev.trim(Lba(la), count).unwrap();
            }
            want[la as usize..(la + count) as usize].fill(write);
            if i % 50 == 49 {
                dev.flush().unwrap();
            }
        }
        dev.flush().unwrap();
        let check = |dev: &AnyFtl<MemFlash>, when: &str| {
            let all = dev.num_sectors();
            let runs = dev.allocation(Lba(0), all).unwrap().unwrap();
            assert_eq!(
                runs,
                ftl::mapped_runs(want.iter().copied()),
                "{kind} {when}"
            );
            assert!(dev.allocation(Lba(all - 1), 2).unwrap().is_err(), "{kind}");
        };
        check(&dev, "before reopen");
        let mut sector = vec![0xAAu8; ss];
        for (a, &m) in want.iter().enumerate().take(n as usize) {
            dev.read(Lba(a as u64), &mut sector).unwrap();
            assert_eq!(!m, sector.iter().all(|&b| b == 0), "{kind} sector {a}");
        }
        let dev = AnyFtl::open(dev.into_flash()).unwrap();
        check(&dev, "after reopen");
    }
}
