//! `ftl::SharedDevice`: reads run while a flush syncs, changes do not;
//! flushes coalesce; a begun flush refuses other changes; the shared read
//! path gives what the exclusive one gives.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

use flash::{Flash, Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FlushStep, FtlError, Lba, SharedDevice};

/// RAM flash whose shared sync blocks until the test says so, telling the
/// test when it started.
struct GatedSync {
    inner: MemFlash,
    started: Mutex<Option<mpsc::Sender<()>>>,
    release: Mutex<Option<mpsc::Receiver<()>>>,
}

impl flash::Layer for GatedSync {
    flash::layer_below!(inner: MemFlash);

    fn geometry(&self) -> &Geometry {
        Flash::geometry(&self.inner)
    }

    fn read_shared(&self, reads: &mut [flash::PageRead<'_>]) -> Option<flash::Result<()>> {
        Flash::read_shared(&self.inner, reads)
    }

    fn sync_shared(&self) -> Option<flash::Result<()>> {
        if let Some(tx) = self.started.lock().unwrap().take() {
            tx.send(()).unwrap();
            let rx = self.release.lock().unwrap().take().unwrap();
            // The test releases the sync once a read finished meanwhile;
            // if reads waited for the sync, this times out instead.
            rx.recv_timeout(Duration::from_secs(20))
                .expect("no read finished while the sync ran");
        }
        Flash::sync_shared(&self.inner)
    }
}

fn sector(ss: usize, b: u8) -> Vec<u8> {
    vec![b; ss]
}

#[test]
fn a_read_runs_while_a_flush_syncs_and_a_write_waits_for_it() {
    let g = Geometry::small();
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel();
    let flash = GatedSync {
        inner: MemFlash::new(g).unwrap(),
        started: Mutex::new(Some(started_tx)),
        release: Mutex::new(Some(release_rx)),
    };
    let mut dev = Scftl::format(flash, ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    // Sector 0 on flash (a page of it), sector 9 only written.
    for la in 0..8 {
        dev.write(Lba(la), &sector(ss, 0x10 + la as u8)).unwrap();
    }
    let shared = SharedDevice::new(dev);
    shared
        .change(|d| d.write(Lba(9), &sector(ss, 0x99)))
        .unwrap();
    let wrote = AtomicBool::new(false);
    std::thread::scope(|s| {
        let flusher = s.spawn(|| shared.flush(shared.changes(), |_| true));
        started_rx.recv().unwrap();
        // The flush is syncing: a write must wait for it ...
        let writer = s.spawn(|| {
            shared
                .change(|d| d.write(Lba(20), &sector(ss, 0x20)))
                .unwrap();
            wrote.store(true, Ordering::SeqCst);
        });
        // ... while reads go on, of flash and of the written sector.
        let mut buf = vec![0u8; 2 * ss];
        shared.read(Lba(0), &mut buf).unwrap();
        assert_eq!(buf[..ss], sector(ss, 0x10)[..]);
        assert_eq!(buf[ss..], sector(ss, 0x11)[..]);
        shared.read(Lba(9), &mut buf[..ss]).unwrap();
        assert_eq!(buf[..ss], sector(ss, 0x99)[..]);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!wrote.load(Ordering::SeqCst), "a write ran during the sync");
        release_tx.send(()).unwrap();
        assert!(flusher.join().unwrap().unwrap().unwrap(), "it flushed");
        writer.join().unwrap();
    });
    assert!(wrote.load(Ordering::SeqCst));
    let (syncs, reads, during) = shared.shared_counts();
    assert!(during >= 2, "the reads came during the sync");
    assert_eq!(syncs, 1, "the sync ran with readers admitted");
    assert!(reads >= 2, "the reads took the shared path");
}

#[test]
fn flushes_coalesce_and_a_begun_flush_refuses_changes() {
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
    // Between begin and end a flush refuses every other change.
    let mut dev = shared.into_inner();
    assert_eq!(dev.begin_flush().unwrap(), FlushStep::SyncOwed);
    let e = dev.write(Lba(3), &sector(ss, 3)).unwrap_err();
    assert!(matches!(e, FtlError::BadArgument(_)), "{e}");
    let mut buf = vec![0u8; ss];
    let r = dev.read_shared(Lba(2), &mut buf).expect("RAM reads shared");
    r.unwrap();
    assert_eq!(buf, sector(ss, 2));
    let synced = dev.sync_shared();
    assert!(synced.is_some(), "RAM syncs shared");
    dev.end_flush(synced).unwrap();
    assert!(dev.end_flush(None).is_err(), "no flush is begun any more");
    dev.write(Lba(3), &sector(ss, 3)).unwrap();
    dev.check_invariants().unwrap();
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
