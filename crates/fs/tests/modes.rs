//! The commit modes: which FTL each is allowed on, the epoch and log
//! budgets (splitting calls larger than a step, group flushing before the
//! epoch overflows), durability per mode, the idle flush, log replay, and a
//! power cut after every single device write of a call.

use crate::common;

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use common::*;
use flash::{Geometry, MemFlash};
use fs::{mkfs, CommitMode, Fs, FsError, FsMutant, MkfsOptions, Owner, ROOT_INO};
use ftl::{AnyFtl, BlockDevice, DeviceStats, FormatOptions, FtlError, FtlKind, Lba};

const ROOT: u64 = ROOT_INO as u64;
const REG: u32 = 0o100644;
const U: Owner = Owner::ROOT;

fn formatted(kind: FtlKind, g: Geometry, fo: &FormatOptions) -> Dev {
    let mut d = device(MemFlash::new(g).unwrap(), kind, fo);
    mkfs(&mut d, &MkfsOptions::default()).unwrap();
    d
}

fn bound(w: u32) -> FormatOptions {
    FormatOptions {
        write_bound: Some(w),
        ..Default::default()
    }
}

#[test]
fn xlog_and_group_are_refused_on_the_async_and_sync_ftls() {
    for kind in [FtlKind::Async, FtlKind::Sync] {
        let mut dev = formatted(kind, Geometry::small(), &FormatOptions::default());
        for mode in [CommitMode::Xlog, CommitMode::Group] {
            let e = Fs::mount(dev, opts(mode)).err().expect("refused");
            let msg = e.error.to_string();
            assert!(matches!(e.error, FsError::ModeNotAllowed { .. }), "{msg}");
            assert!(
                msg.contains(kind.name()) && msg.contains("mode log") && msg.contains(mode.name()),
                "{msg}"
            );
            dev = e.device;
        }
        // The refusal changed nothing: the log mode mounts, and the mutant
        // lets xlog in.
        let fs = Fs::mount(dev, opts(CommitMode::Log)).unwrap();
        let dev = fs.unmount().unwrap();
        let fs = Fs::mount_with_mutant(dev, opts(CommitMode::Xlog), FsMutant::AllowXlogOnAnyFtl)
            .unwrap();
        assert_eq!(fs.mode(), CommitMode::Xlog);
    }
}

#[test]
fn mount_refuses_what_is_not_a_file_system() {
    let dev = device(
        MemFlash::new(Geometry::small()).unwrap(),
        FtlKind::Scftl,
        &FormatOptions::default(),
    );
    let e = Fs::mount(dev, opts(CommitMode::Log)).err().unwrap();
    assert!(matches!(e.error, FsError::NotFormatted(_)), "{}", e.error);
    let rep = fs::fsck(&mut { e.device }).unwrap();
    assert!(!rep.is_clean());
    // A flipped superblock byte is corruption, not a panic.
    let mut dev = formatted(FtlKind::Scftl, Geometry::small(), &FormatOptions::default());
    let mut b = vec![0u8; 4096];
    dev.read(Lba(0), &mut b).unwrap();
    b[17] ^= 1;
    dev.write(Lba(0), &b).unwrap();
    let e = Fs::mount(dev, opts(CommitMode::Log)).err().unwrap();
    assert!(matches!(e.error, FsError::Corrupt(_)), "{}", e.error);
}

#[test]
fn steps_too_small_for_the_mode_are_refused() {
    // 512-byte sectors: a block is 8 sectors, and xlog/group need 16.
    let dev = formatted(FtlKind::Scftl, small512(), &bound(12));
    let e = Fs::mount(dev, opts(CommitMode::Group)).err().unwrap();
    assert!(
        matches!(
            e.error,
            FsError::StepTooSmall {
                needed: 16,
                available: 12,
                ..
            }
        ),
        "{}",
        e.error
    );
    // The log needs 8 blocks (64 sectors) per epoch.
    let e = Fs::mount(e.device, opts(CommitMode::Log)).err().unwrap();
    assert!(
        matches!(e.error, FsError::StepTooSmall { needed: 8, .. }),
        "{}",
        e.error
    );
}

/// A workload that needs many steps: big writes, many small calls.
fn busy(fs: &mut Fs<Dev>) -> Snapshot {
    let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
    let big = fs.create(d, b"big", REG, U).unwrap().ino;
    let data = pattern(5, 0, 3 << 20);
    assert_eq!(fs.write(big, 0, &data).unwrap() as usize, data.len());
    for i in 0..40 {
        let f = fs
            .create(d, format!("f{i}").as_bytes(), REG, U)
            .unwrap()
            .ino;
        fs.write(f, 0, &pattern(i, 0, 5000)).unwrap();
        fs.release(f).unwrap();
        if i % 3 == 0 {
            fs.rename(
                d,
                format!("f{i}").as_bytes(),
                ROOT,
                format!("g{i}").as_bytes(),
                0,
            )
            .unwrap();
        }
    }
    fs.setattr(
        big,
        &fs::SetAttr {
            size: Some(1000),
            ..Default::default()
        },
    )
    .unwrap();
    fs.release(big).unwrap();
    snapshot(fs)
}

#[test]
fn group_never_overflows_a_small_epoch() {
    // W = 24 sectors: about 20 blocks per epoch, so a 3 MiB write is split
    // and group flushes often — each time before the device would refuse.
    let dev = formatted(FtlKind::Scftl, Geometry::small(), &bound(24));
    let mut fs = Fs::mount(dev, opts(CommitMode::Group)).unwrap();
    assert_eq!(fs.step_budget().sectors, 24);
    let want = busy(&mut fs);
    let s = fs.stats();
    assert!(s.steps > s.calls + 30, "{s:?}");
    assert!(s.epoch_flushes > 40, "{s:?}");
    assert_clean(&mut fs);
    let mut fs = remount(fs);
    assert_eq!(snapshot(&mut fs), want);

    // The same with 512-byte sectors and the smallest epoch allowed.
    let dev = formatted(FtlKind::Scftl, small512(), &bound(16));
    let mut fs = Fs::mount(dev, opts(CommitMode::Group)).unwrap();
    let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
    let f = fs.create(d, b"f", REG, U).unwrap().ino;
    let data = pattern(1, 0, 200_000);
    fs.write(f, 0, &data).unwrap();
    fs.symlink(d, b"s", &[b'x'; 4095], U).unwrap();
    fs.rename(d, b"f", ROOT, b"f", 0).unwrap();
    fs.unlink(ROOT, b"f").unwrap();
    fs.release(f).unwrap();
    assert_clean(&mut fs);
    remount(fs);
}

#[test]
fn the_mutant_that_forgets_the_epoch_flush_hits_epoch_full() {
    let dev = formatted(FtlKind::Scftl, Geometry::small(), &bound(24));
    let mut fs = Fs::mount_with_mutant(
        dev,
        opts(CommitMode::Group),
        FsMutant::GroupForgetsEpochFlush,
    )
    .unwrap();
    let f = fs.create(ROOT, b"f", REG, U).unwrap().ino;
    let e = fs.write(f, 0, &vec![1u8; 1 << 20]).unwrap_err();
    assert!(
        matches!(e, FsError::Device(FtlError::EpochFull { .. })),
        "{e}"
    );
    // The file system stopped: everything fails until remounted.
    assert!(matches!(fs.getattr(ROOT), Err(FsError::Poisoned(_))));
    assert!(fs.unmount().is_err());
}

#[test]
fn xlog_splits_calls_and_log_splits_at_its_capacity() {
    let dev = formatted(FtlKind::Scftl, Geometry::small(), &bound(24));
    let mut fs = Fs::mount(dev, opts(CommitMode::Xlog)).unwrap();
    let want = busy(&mut fs);
    let s = fs.stats();
    assert_eq!(s.flushes, s.steps, "xlog: one flush per step: {s:?}");
    let mut fs = remount(fs);
    assert_eq!(snapshot(&mut fs), want);

    let mut dev = device(
        MemFlash::new(Geometry::small()).unwrap(),
        FtlKind::Async,
        &FormatOptions::default(),
    );
    mkfs(
        &mut dev,
        &MkfsOptions {
            log_slots: Some(8),
            ..Default::default()
        },
    )
    .unwrap();
    let mut fs = Fs::mount(dev, opts(CommitMode::Log)).unwrap();
    assert_eq!(fs.step_budget().blocks, 8);
    let want = busy(&mut fs);
    let s = fs.stats();
    assert!(s.steps > 3 * 256 / 8, "{s:?}");
    assert_eq!(s.flushes, 2 * s.steps, "log: two flushes per step: {s:?}");
    let mut fs = remount(fs);
    assert_eq!(snapshot(&mut fs), want);
}

#[test]
fn durability_per_mode() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let a = fs.create(ROOT, b"a", REG, U).unwrap().ino;
        fs.write(a, 0, b"first").unwrap();
        fs.fsync(a, false).unwrap();
        let b = fs.create(ROOT, b"b", REG, U).unwrap().ino;
        fs.write(b, 0, b"second").unwrap();
        let mut fs = crash_remount(fs);
        let a = fs.lookup(ROOT, b"a").unwrap().ino;
        assert_eq!(fs.read(a, 0, 10).unwrap(), b"first", "{cfg}");
        let b = fs.lookup(ROOT, b"b");
        if cfg.mode == CommitMode::Group {
            // Not synced, no epoch overflow: the group is lost whole.
            assert!(b.is_err(), "{cfg}");
        } else {
            let b = b.unwrap().ino;
            assert_eq!(
                fs.read(b, 0, 10).unwrap(),
                b"second",
                "{cfg}: completed call lost"
            );
        }
        assert_clean(&mut fs);
    }
}

#[test]
fn group_flushes_on_sync_and_when_idle() {
    let mut o = opts(CommitMode::Group);
    o.idle_flush = Some(Duration::from_secs(5));
    let dev = formatted(FtlKind::Scftl, Geometry::small(), &FormatOptions::default());
    let mut fs = Fs::mount(dev, o).unwrap();
    assert!(
        !fs.tick(Instant::now() + Duration::from_secs(60)).unwrap(),
        "nothing to flush"
    );
    let f = fs.create(ROOT, b"f", REG, U).unwrap().ino;
    assert!(fs.has_unflushed());
    assert!(!fs.tick(Instant::now()).unwrap(), "not idle yet");
    let flushes = fs.device().stats().flushes;
    assert!(fs.tick(Instant::now() + Duration::from_secs(6)).unwrap());
    assert!(!fs.has_unflushed());
    assert_eq!(fs.device().stats().flushes, flushes + 1);
    assert!(!fs.tick(Instant::now() + Duration::from_secs(60)).unwrap());
    fs.write(f, 0, b"x").unwrap();
    fs.fsyncdir(ROOT, true).unwrap();
    assert!(!fs.has_unflushed());
    // fsync on nothing new does not flush.
    let flushes = fs.device().stats().flushes;
    fs.fsync(f, true).unwrap();
    assert_eq!(fs.device().stats().flushes, flushes);
    // No idle flush when it is turned off.
    let dev = fs.unmount().unwrap();
    let mut o = opts(CommitMode::Group);
    o.idle_flush = None;
    let mut fs = Fs::mount(dev, o).unwrap();
    fs.create(ROOT, b"g", REG, U).unwrap();
    assert!(!fs.tick(Instant::now() + Duration::from_secs(3600)).unwrap());
}

/// A device that allows `left` more writes and then fails everything, as
/// a process killed there; the test keeps handles to the counters.
struct Cut<D> {
    inner: D,
    left: Rc<Cell<Option<u64>>>,
    writes: Rc<Cell<u64>>,
}

impl<D: BlockDevice> Cut<D> {
    fn alive(&self) -> ftl::Result<()> {
        match self.left.get() {
            Some(0) => Err(FtlError::BadArgument("power cut (test)".into())),
            _ => Ok(()),
        }
    }
}

impl<D: BlockDevice> BlockDevice for Cut<D> {
    fn sector_size(&self) -> usize {
        self.inner.sector_size()
    }
    fn num_sectors(&self) -> u64 {
        self.inner.num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> ftl::Result<()> {
        self.alive()?;
        self.inner.read(lba, buf)
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> ftl::Result<()> {
        self.alive()?;
        if let Some(n) = self.left.get() {
            self.left.set(Some(n - 1));
        }
        self.writes.set(self.writes.get() + 1);
        self.inner.write(lba, data)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> ftl::Result<()> {
        self.alive()?;
        self.inner.trim(lba, count)
    }
    fn flush(&mut self) -> ftl::Result<()> {
        self.alive()?;
        self.inner.flush()
    }
    fn epoch_remaining(&self) -> Option<u64> {
        self.inner.epoch_remaining()
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        self.inner.check_invariants()
    }
}

/// The state each cut call starts from (flushed).
fn setup<D: BlockDevice>(fs: &mut Fs<D>) {
    let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
    let f = fs.create(d, b"f", REG, U).unwrap().ino;
    fs.write(f, 0, &pattern(2, 0, 30_000)).unwrap();
    fs.release(f).unwrap();
    let g = fs.create(ROOT, b"g", REG, U).unwrap().ino;
    fs.write(g, 0, b"gggg").unwrap();
    fs.release(g).unwrap();
    let h = fs.create(ROOT, b"h", REG, U).unwrap().ino;
    fs.release(h).unwrap();
    fs.sync().unwrap();
}

const CALLS: usize = 5;

fn the_call<D: BlockDevice>(fs: &mut Fs<D>, which: usize) -> fs::Result<()> {
    let d = fs.lookup(ROOT, b"d")?.ino;
    match which {
        0 => fs.rename(ROOT, b"g", d, b"f", 0),
        1 => fs.unlink(d, b"f"),
        2 => {
            let f = fs.lookup(d, b"f")?.ino;
            fs.write(f, 20_000, &pattern(3, 0, 200_000)).map(|_| ())
        }
        3 => fs.mkdir(d, b"e", 0o700, U).map(|_| ()),
        _ => {
            let h = fs.lookup(ROOT, b"h")?.ino;
            fs.link(h, d, b"h2").map(|_| ())
        }
    }
}

/// The writes a `Cut` device still allows (`None`: unlimited).
type Left = Rc<Cell<Option<u64>>>;

fn cut_fs(cfg: Config) -> (Fs<Cut<Dev>>, Left, Rc<Cell<u64>>) {
    let left = Rc::new(Cell::new(None));
    let writes = Rc::new(Cell::new(0));
    let mut dev = Cut {
        inner: device(
            MemFlash::new(Geometry::small()).unwrap(),
            cfg.kind,
            &bound_for(cfg),
        ),
        left: Rc::clone(&left),
        writes: Rc::clone(&writes),
    };
    mkfs(&mut dev, &MkfsOptions::default()).unwrap();
    (Fs::mount(dev, opts(cfg.mode)).unwrap(), left, writes)
}

/// A small epoch on SCFTL, so the large write is split into steps.
fn bound_for(cfg: Config) -> FormatOptions {
    match cfg.kind {
        FtlKind::Scftl => bound(24),
        _ => FormatOptions::default(),
    }
}

/// Cuts power after every device write of each call; then either every
/// issued write persists (`keep`) or nothing since the last flush does.
/// Log mode must survive both on every FTL; xlog and group on SCFTL only
/// the second, which is what SCFTL's recovery gives. The state must be
/// the one before or after the call — or, for the large write (split into
/// steps by the small epoch, in every mode), before it with a prefix of the
/// write applied.
#[test]
fn a_cut_after_any_write_leaves_the_state_before_or_after_the_call() {
    for cfg in CONFIGS {
        for which in 0..CALLS {
            let (mut fs, _, writes) = cut_fs(cfg);
            setup(&mut fs);
            let before = snapshot(&mut fs);
            let w0 = writes.get();
            the_call(&mut fs, which).unwrap();
            let after = snapshot(&mut fs);
            let n = writes.get() - w0;
            assert!(n > 0);
            for k in 0..n {
                for keep in [false, true] {
                    if keep && cfg.mode != CommitMode::Log {
                        continue;
                    }
                    let (mut fs, left, _) = cut_fs(cfg);
                    setup(&mut fs);
                    left.set(Some(k));
                    assert!(
                        the_call(&mut fs, which).is_err(),
                        "{cfg} call {which}: the cut at write {k} was not hit"
                    );
                    let mut cut = fs.into_device();
                    if keep {
                        cut.inner.flush().unwrap();
                    }
                    let dev = AnyFtl::open(cut.inner.into_flash()).unwrap();
                    let mut fs = Fs::mount(dev, opts(cfg.mode)).unwrap();
                    let rep = fs.fsck().unwrap();
                    let at = format!("{cfg} call {which} cut at write {k}/{n} keep {keep}");
                    assert!(rep.is_clean(), "{at}:\n{rep}");
                    let got = snapshot(&mut fs);
                    if which == 2 && got != before && got != after {
                        check_write_prefix(&got, &before, &after, &at);
                    } else {
                        assert!(
                            got == before || got == after,
                            "{at}: neither before nor after"
                        );
                    }
                    if cfg.mode == CommitMode::Log && keep {
                        assert!(
                            got == after || k + 1 < n,
                            "{at}: all writes kept but the call is lost"
                        );
                    }
                }
            }
        }
    }
}

fn check_write_prefix(got: &Snapshot, before: &Snapshot, after: &Snapshot, at: &str) {
    let mut rest = got.clone();
    let g = rest.remove("d/f");
    let (Some(Node::File(g)), Some(Node::File(b)), Some(Node::File(a))) =
        (g, before.get("d/f"), after.get("d/f"))
    else {
        panic!("{at}: d/f is not a file");
    };
    assert!(g.len() >= b.len() && g.len() <= a.len(), "{at}");
    assert_eq!(&g[..], &a[..g.len()], "{at}: not a prefix of the write");
    let mut b_rest = before.clone();
    b_rest.remove("d/f");
    assert_eq!(rest, b_rest, "{at}: other files changed");
}

/// With the smallest cache, blocks are evicted and re-read all the time
/// (also in the middle of steps); the result must not change.
#[test]
fn a_small_cache_gives_the_same_tree() {
    let mut trees = Vec::new();
    for cache_blocks in [4096, 64] {
        for mode in CommitMode::ALL {
            let dev = formatted(FtlKind::Scftl, Geometry::small(), &bound(200));
            let mut o = opts(mode);
            o.cache_blocks = cache_blocks;
            let mut fs = Fs::mount(dev, o).unwrap();
            let mut t = busy(&mut fs);
            for i in 0..300 {
                let n = format!("many-{i:04}-{}", "x".repeat(i % 150));
                fs.mknod(ROOT, n.as_bytes(), 0o100600, 0, U).unwrap();
            }
            t.extend(snapshot(&mut fs));
            assert_clean(&mut fs);
            let mut fs = remount(fs);
            assert_eq!(snapshot(&mut fs), t);
            trees.push(t);
        }
    }
    assert!(trees.windows(2).all(|w| w[0] == w[1]));
}
