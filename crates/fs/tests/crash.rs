//! Power cuts under the file system (`flash::CrashFlash` below each FTL):
//! a fixed workload of single-step calls is cut at sampled flash commands,
//! the post-crash device is produced by each crash policy, the FTL recovers
//! and the file system mounts; then fsck must be clean and the tree must be
//! one the mode promises — `log` and `xlog`: the state after every completed
//! call, or after the interrupted one too; `group`: the state after some
//! prefix of the completed calls that includes every call before the last
//! completed fsync. The reference states come from the same workload run
//! without a cut. A second test checks that the seeded mutants are caught.

use crate::common;

use common::*;
use flash::{CrashFlash, CrashPolicy, Geometry, MemFlash, SharedFlash};
use fs::{mkfs, CommitMode, Fs, FsMutant, MkfsOptions, Owner, ROOT_INO};
use ftl::{AnyFtl, FormatOptions, FtlKind};
use rand::SeedableRng;
use rand_pcg::Pcg64;

type Flash = SharedFlash<CrashFlash<MemFlash>>;
type D = Dev<Flash>;

const ROOT: u64 = ROOT_INO as u64;
const U: Owner = Owner::ROOT;

/// The workload: single-step calls; `true` marks an fsync.
const OPS: usize = 18;

fn op(fs: &mut Fs<D>, i: usize) -> fs::Result<bool> {
    let look = |fs: &mut Fs<D>, p: u64, n: &[u8]| fs.lookup(p, n).map(|a| a.ino);
    match i {
        0 => fs.mkdir(ROOT, b"a", 0o755, U).map(|_| false),
        1 => {
            let a = look(fs, ROOT, b"a")?;
            fs.mknod(a, b"f", 0o100644, 0, U).map(|_| false)
        }
        2 => {
            let f = look(fs, ROOT, b"a").and_then(|a| look(fs, a, b"f"))?;
            fs.write(f, 0, &pattern(1, 0, 6000)).map(|_| false)
        }
        3 => fs.mknod(ROOT, b"g", 0o100644, 0, U).map(|_| false),
        4 => {
            let g = look(fs, ROOT, b"g")?;
            fs.write(g, 0, b"gee").map(|_| false)
        }
        5 | 11 | 16 => fs.fsync(ROOT, false).map(|_| true),
        6 => {
            let a = look(fs, ROOT, b"a")?;
            fs.rename(ROOT, b"g", a, b"f", 0).map(|_| false)
        }
        7 => {
            let a = look(fs, ROOT, b"a")?;
            let f = look(fs, a, b"f")?;
            fs.link(f, ROOT, b"l").map(|_| false)
        }
        8 => fs.mkdir(ROOT, b"b", 0o700, U).map(|_| false),
        9 => {
            let l = look(fs, ROOT, b"l")?;
            fs.write(l, 3, &pattern(2, 3, 9000)).map(|_| false)
        }
        10 => fs.symlink(ROOT, b"s", b"a/f", U).map(|_| false),
        12 => fs.rmdir(ROOT, b"b").map(|_| false),
        13 => {
            let l = look(fs, ROOT, b"l")?;
            fs.setattr(
                l,
                &fs::SetAttr {
                    size: Some(100),
                    ..Default::default()
                },
            )
            .map(|_| false)
        }
        14 => fs.unlink(ROOT, b"l").map(|_| false),
        15 => fs.rename(ROOT, b"a", ROOT, b"c", 0).map(|_| false),
        _ => fs.mkdir(ROOT, b"z", 0o755, U).map(|_| false),
    }
}

#[derive(Clone, Copy)]
struct Setup {
    kind: FtlKind,
    mode: CommitMode,
    mutant: Option<FsMutant>,
    write_bound: Option<u32>,
}

fn start(s: Setup) -> (Fs<D>, Flash) {
    let flash = SharedFlash::new(CrashFlash::new(MemFlash::new(Geometry::small()).unwrap()));
    let fo = FormatOptions {
        write_bound: s.write_bound,
        ..Default::default()
    };
    let mut dev = device(flash.clone(), s.kind, &fo);
    mkfs(&mut dev, &MkfsOptions::default()).unwrap();
    (mount(s, dev), flash)
}

fn mount(s: Setup, dev: D) -> Fs<D> {
    match s.mutant {
        Some(m) => Fs::mount_with_mutant(dev, opts(s.mode), m),
        None => Fs::mount(dev, opts(s.mode)),
    }
    .unwrap()
}

/// The reference states: `states[k]` after the first k calls; `synced[k]`:
/// call k-1 was an fsync. Also the flash commands the workload takes and
/// the flushes group mode made because the epoch was full.
fn reference(s: Setup) -> (Vec<Snapshot>, Vec<bool>, u64, u64) {
    // Without a power cut only one mutant changes nothing: keep it (its
    // mode needs it to mount); drop the others.
    let mutant = s.mutant.filter(|&m| m == FsMutant::AllowXlogOnAnyFtl);
    let (mut fs, flash) = start(Setup { mutant, ..s });
    let c0 = flash.with(|f| f.commands_issued());
    let mut states = vec![snapshot(&mut fs)];
    let mut synced = vec![true];
    for i in 0..OPS {
        synced.push(op(&mut fs, i).unwrap());
        states.push(snapshot(&mut fs));
    }
    let commands = flash.with(|f| f.commands_issued()) - c0;
    (states, synced, commands, fs.stats().epoch_flushes)
}

/// Cuts power at command `n` of the workload; returns a violation, if any.
fn cut(
    s: Setup,
    states: &[Snapshot],
    synced: &[bool],
    n: u64,
    policy: CrashPolicy,
    seed: u64,
) -> Option<String> {
    let (mut fs, flash) = start(s);
    flash.with(|f| f.set_crash_at(n));
    let mut done = 0;
    for i in 0..OPS {
        match op(&mut fs, i) {
            Ok(_) => done += 1,
            Err(e) if flash.with(|f| f.is_powered_off()) => {
                let _ = e;
                break;
            }
            Err(e) => return Some(format!("call {i} failed without a power cut: {e}")),
        }
    }
    if !flash.with(|f| f.is_powered_off()) {
        return None; // the cut lies past the workload
    }
    let dev = fs.into_device();
    let mut rng = Pcg64::seed_from_u64(seed);
    flash.with(|f| f.crash(policy, &mut rng)).unwrap();
    let dev = match AnyFtl::open(dev.into_flash()) {
        Ok(d) => d,
        Err(e) => return Some(format!("FTL recovery failed: {e}")),
    };
    let fs = match s.mutant {
        Some(m) => Fs::mount_with_mutant(dev, opts(s.mode), m),
        None => Fs::mount(dev, opts(s.mode)),
    };
    let mut fs = match fs {
        Ok(fs) => fs,
        Err(e) => return Some(format!("mount after the crash failed: {}", e.error)),
    };
    let rep = match fs.fsck() {
        Ok(r) => r,
        Err(e) => return Some(format!("fsck failed: {e}")),
    };
    if !rep.is_clean() {
        return Some(format!("fsck after {done} calls:\n{rep}"));
    }
    let got = snapshot(&mut fs);
    let allowed: Vec<usize> = match s.mode {
        CommitMode::Group => {
            let last_sync = (0..=done).rev().find(|&k| synced[k]).unwrap_or(0);
            (last_sync..=done).collect()
        }
        _ => vec![done, (done + 1).min(OPS)],
    };
    if allowed.iter().any(|&k| states[k] == got) {
        None
    } else {
        let matches: Vec<usize> = (0..=OPS).filter(|&k| states[k] == got).collect();
        Some(format!(
            "after {done} completed calls the tree matches states {matches:?}, not one of {allowed:?}"
        ))
    }
}

/// Runs the workload cut at `points` sampled commands; the violations.
fn campaign(s: Setup, points: u64, seed: u64) -> Vec<String> {
    let (states, synced, commands, epoch_flushes) = reference(s);
    if s.mode == CommitMode::Group && s.write_bound.is_some() && s.mutant.is_none() {
        assert!(epoch_flushes > 0, "the small epoch should force flushes");
    }
    let mut out = Vec::new();
    for j in 0..points {
        let n = 1 + j * commands / points;
        let policy = if s.mutant == Some(FsMutant::LogIgnoresSlotsCrc) {
            CrashPolicy::Random
        } else {
            CrashPolicy::ALL[(j % 4) as usize]
        };
        if let Some(v) = cut(s, &states, &synced, n, policy, seed + j) {
            out.push(format!(
                "cut at command {n}/{commands} ({}): {v}",
                policy.name()
            ));
        }
    }
    out
}

#[test]
fn power_cuts_leave_a_state_the_mode_promises() {
    for cfg in CONFIGS {
        let s = Setup {
            kind: cfg.kind,
            mode: cfg.mode,
            mutant: None,
            write_bound: None,
        };
        let v = campaign(s, 48, 7);
        assert!(v.is_empty(), "{cfg}:\n{}", v.join("\n"));
    }
    // A small epoch: group flushes inside calls when the next one would
    // not fit, and the cuts land around those flushes too.
    for mode in [CommitMode::Xlog, CommitMode::Group] {
        let s = Setup {
            kind: FtlKind::Scftl,
            mode,
            mutant: None,
            write_bound: Some(10),
        };
        let v = campaign(s, 64, 9);
        assert!(v.is_empty(), "scftl/{mode} W=10:\n{}", v.join("\n"));
    }
}

#[test]
fn seeded_mutants_are_caught() {
    let cases = [
        (
            FtlKind::Scftl,
            CommitMode::Group,
            FsMutant::GroupForgetsEpochFlush,
            Some(10),
        ),
        (
            FtlKind::Async,
            CommitMode::Xlog,
            FsMutant::AllowXlogOnAnyFtl,
            None,
        ),
        (
            FtlKind::Async,
            CommitMode::Log,
            FsMutant::LogIgnoresSlotsCrc,
            None,
        ),
    ];
    for (kind, mode, mutant, write_bound) in cases {
        let s = Setup {
            kind,
            mode,
            mutant: Some(mutant),
            write_bound,
        };
        let v = campaign(
            s,
            if mutant == FsMutant::LogIgnoresSlotsCrc {
                400
            } else {
                96
            },
            11,
        );
        assert!(!v.is_empty(), "{} was not caught", mutant.name());
        eprintln!("{}: {} violations, first: {}", mutant.name(), v.len(), v[0]);
    }
}

/// Rewrites the superblock as version `v` (1 or 2); for version 1 also
/// puts a non-zero word where version 2 keeps inode `ino`'s
/// triple-indirect pointer (version 1's mkfs left the inode table as the
/// device held it). Version 2 wrote every reserved byte zero.
fn make_version(dev: &mut D, ino: u32, v: u32) {
    use fs::{Superblock, BLOCK_SIZE};
    use ftl::{BlockDevice, Lba};
    let spb = (BLOCK_SIZE / dev.sector_size()) as u64;
    let mut b = vec![0u8; BLOCK_SIZE];
    dev.read(Lba(0), &mut b).unwrap();
    let mut sb = Superblock::decode(&b).unwrap();
    sb.version = v;
    dev.write(Lba(0), &sb.encode()).unwrap();
    if v == 1 {
        let (blk, off) = sb.inode_location(ino);
        dev.read(Lba(u64::from(blk) * spb), &mut b).unwrap();
        let slot = &mut b[off..off + 256];
        slot[120..124].copy_from_slice(&0x5a5a_5a5au32.to_le_bytes());
        let crc = crc32c::crc32c(&slot[..252]);
        slot[252..].copy_from_slice(&crc.to_le_bytes());
        dev.write(Lba(u64::from(blk) * spb), &b).unwrap();
    }
    dev.flush().unwrap();
}

/// A version-`v` file system with one file, mounted in log mode.
fn old_version(kind: FtlKind, v: u32) -> (Fs<D>, Flash, u64) {
    let s = Setup {
        kind,
        mode: CommitMode::Log,
        mutant: None,
        write_bound: None,
    };
    let (mut fs, flash) = start(s);
    let f = fs.create(ROOT, b"f", 0o100644, U).unwrap().ino;
    fs.release(f).unwrap();
    fs.write(f, 0, &pattern(3, 0, 10_000)).unwrap();
    let mut dev = fs.unmount().unwrap();
    make_version(&mut dev, f as u32, v);
    (mount(s, dev), flash, f)
}

/// `Fs::upgrade` from versions 1 and 2, cut at every flash command it
/// issues, with every crash policy: the FTL recovers, the file system
/// mounts as the old version or the new one, is clean, and the file is
/// intact.
#[test]
fn an_upgrade_cut_anywhere_leaves_the_old_version_or_the_new() {
    let policies = [
        CrashPolicy::AllGarbage,
        CrashPolicy::Random,
        CrashPolicy::AllApplied,
        CrashPolicy::NoneApplied,
    ];
    for (kind, from) in [FtlKind::Scftl, FtlKind::Async, FtlKind::Sync]
        .into_iter()
        .flat_map(|k| [(k, 1), (k, 2)])
    {
        let (mut fs, flash, f) = old_version(kind, from);
        let want = pattern(3, 0, 10_000);
        let c0 = flash.with(|fl| fl.commands_issued());
        assert!(fs.upgrade().unwrap());
        assert_eq!(fs.superblock().version, fs::FS_VERSION);
        let commands = flash.with(|fl| fl.commands_issued()) - c0;
        assert!(commands > 0);
        let mut seen = [false; 4];
        for n in 0..commands {
            for (p, &policy) in policies.iter().enumerate() {
                let (mut fs, flash, _) = old_version(kind, from);
                flash.with(|fl| fl.set_crash_at(n));
                assert!(fs.upgrade().is_err(), "{kind}: cut {n} did not fire");
                let dev = fs.into_device();
                let mut rng = Pcg64::seed_from_u64(n * 4 + p as u64);
                flash.with(|fl| fl.crash(policy, &mut rng)).unwrap();
                let dev = AnyFtl::open(dev.into_flash())
                    .unwrap_or_else(|e| panic!("{kind}: cut {n} {policy:?}: recovery: {e}"));
                let mut fs = Fs::mount(dev, opts(CommitMode::Log))
                    .unwrap_or_else(|e| panic!("{kind}: cut {n} {policy:?}: mount: {}", e.error));
                let v = fs.superblock().version;
                assert!(
                    v == from || v == fs::FS_VERSION,
                    "{kind}: from {from}: version {v}"
                );
                seen[v as usize] = true;
                assert!(fs.fsck().unwrap().is_clean(), "{kind}: cut {n} {policy:?}");
                assert_eq!(read_all(&mut fs, f), want, "{kind}: cut {n} {policy:?}");
            }
        }
        // On the sync FTL the superblock write is the last command and
        // durable once done, so a cut never leaves the new version there.
        let both = kind != FtlKind::Sync;
        assert!(
            seen[from as usize] && (seen[fs::FS_VERSION as usize] || !both),
            "{kind}: from {from}: versions seen {seen:?}"
        );
    }
}
