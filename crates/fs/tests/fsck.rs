//! fsck: each kind of damage is reported as its kind of problem, the
//! report serialises to JSON, fsck writes nothing, and neither fsck nor
//! mount nor the calls after it panic on images with random garbage in
//! their metadata. repair: each repairable kind of damage is repaired (fsck
//! clean after, intact files keep their data), a clean image is not written,
//! and damage it must not guess about is refused without a write.

use crate::common;

use common::*;
use fs::codec::put_u32_at;
use fs::inode::Inode;
use fs::layout::INODE_SIZE;
use fs::{
    fsck, mkfs, repair, CommitMode, Fs, MkfsOptions, Owner, ProblemKind, Superblock, ROOT_INO,
};
use ftl::{BlockDevice, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const ROOT: u64 = ROOT_INO as u64;
const U: Owner = Owner::ROOT;

/// An unmounted image with a few files; returns it with the inode numbers
/// of `a` (two blocks), `b` (one block) and directory `d`.
fn image() -> (Dev, u32, u32, u32) {
    let mut fs = fresh(CONFIGS[0]);
    let a = fs.create(ROOT, b"a", 0o100644, U).unwrap().ino;
    fs.write(a, 0, &[1u8; 5000]).unwrap();
    fs.release(a).unwrap();
    let b = fs.create(ROOT, b"b", 0o100644, U).unwrap().ino;
    fs.write(b, 0, b"bbb").unwrap();
    fs.release(b).unwrap();
    let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
    fs.mknod(d, b"inner", 0o100644, 0, U).unwrap();
    let dev = fs.unmount().unwrap();
    (dev, a as u32, b as u32, d as u32)
}

fn sb(dev: &mut Dev) -> Superblock {
    Superblock::decode(&block(dev, 0)).unwrap()
}

fn block(dev: &mut Dev, b: u32) -> Vec<u8> {
    let mut v = vec![0u8; 4096];
    dev.read(Lba(u64::from(b)), &mut v).unwrap();
    v
}

fn put(dev: &mut Dev, b: u32, data: &[u8]) {
    dev.write(Lba(u64::from(b)), data).unwrap();
}

fn edit_inode(dev: &mut Dev, ino: u32, f: impl FnOnce(&mut Inode)) {
    let (blk, off) = sb(dev).inode_location(ino);
    let mut b = block(dev, blk);
    let mut i = Inode::decode(ino, &b[off..off + INODE_SIZE]).unwrap();
    f(&mut i);
    i.encode(&mut b[off..off + INODE_SIZE]);
    put(dev, blk, &b);
}

fn inode(dev: &mut Dev, ino: u32) -> Inode {
    let (blk, off) = sb(dev).inode_location(ino);
    Inode::decode(ino, &block(dev, blk)[off..off + INODE_SIZE]).unwrap()
}

fn flip_bit(dev: &mut Dev, start: u32, n: u64) {
    let blk = start + (n / 32768) as u32;
    let mut b = block(dev, blk);
    b[((n % 32768) / 8) as usize] ^= 1 << (n % 8);
    put(dev, blk, &b);
}

fn kinds(dev: &mut Dev) -> Vec<ProblemKind> {
    let rep = fsck(dev).unwrap();
    rep.problems.iter().map(|p| p.kind).collect()
}

#[test]
fn a_clean_image_is_clean_and_the_report_serialises() {
    let (mut dev, ..) = image();
    let before = dev.stats().user_sectors_written;
    let rep = fsck(&mut dev).unwrap();
    assert!(rep.is_clean(), "{rep}");
    assert_eq!(dev.stats().user_sectors_written, before, "fsck wrote");
    assert_eq!((rep.counts.directories, rep.counts.regular_files), (2, 3));
    assert_eq!(
        rep.counts.blocks_used,
        2 + 1 + 1 + 1,
        "a, b, the root's and d's directory blocks"
    );
    let json = serde_json::to_string(&rep).unwrap();
    assert!(json.contains("\"problems\":[]"), "{json}");
}

#[test]
fn bitmap_damage_is_reported() {
    let (mut dev, a, ..) = image();
    let s = sb(&mut dev);
    let used = inode(&mut dev, a).direct[0];
    flip_bit(&mut dev, s.block_bitmap_start, u64::from(used));
    assert_eq!(kinds(&mut dev), vec![ProblemKind::BlockBitmap]);
    flip_bit(&mut dev, s.block_bitmap_start, u64::from(used));
    flip_bit(
        &mut dev,
        s.block_bitmap_start,
        u64::from(s.total_blocks - 1),
    );
    let rep = fsck(&mut dev).unwrap();
    assert_eq!(rep.problems.len(), 1, "{rep}");
    assert!(rep.problems[0].message.contains("leaked"), "{rep}");
}

#[test]
fn inode_and_link_damage_is_reported() {
    let (mut dev, a, b, d) = image();
    let s = sb(&mut dev);
    edit_inode(&mut dev, a, |i| i.nlink = 2);
    assert_eq!(kinds(&mut dev), vec![ProblemKind::LinkCount]);
    edit_inode(&mut dev, a, |i| i.nlink = 1);
    // Two files share a block.
    let shared = inode(&mut dev, a).direct[0];
    let own = inode(&mut dev, b).direct[0];
    edit_inode(&mut dev, b, |i| i.direct[0] = shared);
    let k = kinds(&mut dev);
    assert!(
        k.contains(&ProblemKind::DuplicateBlock) && k.contains(&ProblemKind::BlockBitmap),
        "{k:?}"
    );
    edit_inode(&mut dev, b, |i| i.direct[0] = s.total_blocks + 5);
    assert!(kinds(&mut dev).contains(&ProblemKind::Pointer));
    edit_inode(&mut dev, b, |i| i.direct[0] = own);
    // A size shorter than the mapped blocks: a regular file may hold
    // blocks past its end (fallocate KEEP_SIZE), a directory may not.
    edit_inode(&mut dev, a, |i| i.size = 10);
    assert_eq!(kinds(&mut dev), vec![]);
    edit_inode(&mut dev, a, |i| i.size = 5000);
    let dsize = inode(&mut dev, d).size;
    assert!(dsize > 0, "the directory has a block");
    edit_inode(&mut dev, d, |i| i.size = 0);
    assert!(kinds(&mut dev).contains(&ProblemKind::Size));
    edit_inode(&mut dev, d, |i| i.size = dsize);
    // A directory claiming an enormous size: reported, not walked.
    edit_inode(&mut dev, d, |i| i.size = 1 << 50);
    assert!(kinds(&mut dev).contains(&ProblemKind::Size));
    edit_inode(&mut dev, d, |i| i.size = 4096);
    // A directory whose `..` is wrong.
    edit_inode(&mut dev, d, |i| i.parent = a);
    assert_eq!(kinds(&mut dev), vec![ProblemKind::Directory]);
    edit_inode(&mut dev, d, |i| i.parent = ROOT_INO);
    // An inode whose CRC is broken.
    let (blk, off) = s.inode_location(b);
    let mut raw = block(&mut dev, blk);
    raw[off + 20] ^= 1;
    put(&mut dev, blk, &raw);
    let k = kinds(&mut dev);
    assert!(k.contains(&ProblemKind::Inode), "{k:?}");
    raw[off + 20] ^= 1;
    put(&mut dev, blk, &raw);
    // A file whose inode bit is clear: the entry dangles.
    flip_bit(&mut dev, s.inode_bitmap_start, u64::from(b));
    let k = kinds(&mut dev);
    assert!(k.contains(&ProblemKind::DanglingEntry), "{k:?}");
    flip_bit(&mut dev, s.inode_bitmap_start, u64::from(b));
    assert!(fsck(&mut dev).unwrap().is_clean());
}

#[test]
fn directory_damage_is_reported() {
    let (mut dev, ..) = image();
    let root = inode(&mut dev, ROOT_INO).direct[0];
    let mut b = block(&mut dev, root);
    b[4] = 3; // rec_len of the first record: not a multiple of 4
    put(&mut dev, root, &b);
    assert!(kinds(&mut dev).contains(&ProblemKind::Directory));
    // Every inode the broken block named is now unreachable.
    let rep = fsck(&mut dev).unwrap();
    assert!(
        rep.problems
            .iter()
            .any(|p| p.kind == ProblemKind::Unreachable),
        "{rep}"
    );
    // Mount still works; the broken directory is an error, not a panic.
    let mut fs = Fs::mount(dev, opts(CommitMode::Log)).unwrap();
    assert!(fs.lookup(ROOT, b"a").is_err());
    assert!(fs.readdir_all(ROOT).is_err());
    assert!(fs.create(ROOT, b"new", 0o100644, U).is_err());
}

#[test]
fn orphans_are_listed_not_reported() {
    let mut fs = fresh(CONFIGS[2]);
    let f = fs.create(ROOT, b"f", 0o100644, U).unwrap().ino;
    fs.write(f, 0, &[5u8; 9000]).unwrap();
    fs.unlink(ROOT, b"f").unwrap();
    let rep = fs.fsck().unwrap();
    assert!(rep.is_clean(), "{rep}");
    assert_eq!(rep.orphans, vec![f as u32]);
    assert_eq!(
        rep.counts.blocks_used,
        3 + 1,
        "the orphan's blocks and the root's"
    );
}

#[test]
fn a_pending_log_step_is_checked_as_replayed() {
    // Write a commit record by hand that moves file `b`'s inode block to
    // a state where `b` has nlink 7: fsck must see the replayed state.
    let (mut dev, _, b, _) = image();
    let s = sb(&mut dev);
    let (blk, off) = s.inode_location(b);
    let mut img = block(&mut dev, blk);
    let mut i = Inode::decode(b, &img[off..off + INODE_SIZE]).unwrap();
    i.nlink = 7;
    i.encode(&mut img[off..off + INODE_SIZE]);
    put(&mut dev, s.log_start + 1, &img);
    let hdr = fs::logfmt::LogHeader {
        seq: 99,
        blocks: vec![blk],
        slots_crc: None,
    };
    put(&mut dev, s.log_start, &hdr.encode());
    let rep = fsck(&mut dev).unwrap();
    assert!(rep.log_replay_pending);
    assert_eq!(
        rep.problems.iter().map(|p| p.kind).collect::<Vec<_>>(),
        vec![ProblemKind::LinkCount],
        "{rep}"
    );
    // Mount replays it.
    let mut fs = Fs::mount(dev, opts(CommitMode::Xlog)).unwrap();
    assert_eq!(fs.getattr(u64::from(b)).unwrap().nlink, 7);
    let dev = fs.into_device();
    let mut dev = dev;
    assert!(!fsck(&mut dev).unwrap().log_replay_pending);
    // A header naming blocks outside the home regions is a problem.
    let bad = fs::logfmt::LogHeader {
        seq: 100,
        blocks: vec![s.log_start + 1],
        slots_crc: None,
    };
    put(&mut dev, s.log_start, &bad.encode());
    assert!(kinds(&mut dev).contains(&ProblemKind::Log));
    assert!(Fs::mount(dev, opts(CommitMode::Log)).is_err());
}

/// Garbage in random metadata blocks: fsck reports, mount may refuse, and
/// nothing panics — neither they nor a few calls on what mounted.
#[test]
fn garbage_never_panics() {
    let mut rng = Pcg64::seed_from_u64(77);
    for _ in 0..60 {
        let (mut dev, ..) = image();
        let s = sb(&mut dev);
        for _ in 0..rng.gen_range(1..4) {
            let b = rng.gen_range(0..s.data_start + 8);
            let mut img = block(&mut dev, b);
            match rng.gen_range(0..3) {
                0 => rng.fill(&mut img[..]),
                1 => {
                    for _ in 0..8 {
                        let i = rng.gen_range(0..4096);
                        img[i] = rng.gen();
                    }
                }
                _ => {
                    let at = rng.gen_range(0..1024) * 4;
                    put_u32_at(&mut img, at, rng.gen());
                }
            }
            put(&mut dev, b, &img);
        }
        let rep = fsck(&mut dev).unwrap();
        let _ = rep.to_string();
        if let Ok(mut fs) = Fs::mount(dev, opts(CommitMode::Log)) {
            let _ = fs.readdir_all(ROOT);
            for n in [&b"a"[..], b"b", b"d", b"new"] {
                if let Ok(a) = fs.lookup(ROOT, n) {
                    let _ = fs.read(a.ino, 0, 10_000);
                    let _ = fs.readdir_all(a.ino);
                    let _ = fs.write(a.ino, 3, b"xyz");
                    let _ = fs.setattr(
                        a.ino,
                        &fs::SetAttr {
                            size: Some(1),
                            ..Default::default()
                        },
                    );
                }
            }
            let _ = fs.create(ROOT, b"new", 0o100644, U);
            let _ = fs.unlink(ROOT, b"a");
            let _ = fs.rename(ROOT, b"b", ROOT, b"d", 0);
            let _ = fs.rmdir(ROOT, b"d");
            let _ = fs.fsck();
        }
    }
}

#[test]
fn mkfs_on_a_used_device_starts_over() {
    let (mut dev, ..) = image();
    mkfs(&mut dev, &MkfsOptions::default()).unwrap();
    let rep = fsck(&mut dev).unwrap();
    assert!(rep.is_clean(), "{rep}");
    assert_eq!(rep.counts.inodes_used, 1);
    let mut fs = Fs::mount(dev, opts(CommitMode::Group)).unwrap();
    assert_eq!(fs.readdir_all(ROOT).unwrap().len(), 2);
}

/// Repairs `dev`, expects a clean result with no orphans and a change
/// mentioning `what`, then mounts it and checks the files that were not
/// damaged: `a` (5000 bytes of 1) and `d/inner`, and `b` unless
/// `damaged_b`. Returns the device and the repair's report.
fn repair_and_check(mut dev: Dev, what: &str, damaged_b: bool) -> (Dev, fs::RepairReport) {
    let rep = repair(&mut dev).unwrap();
    assert!(rep.after.is_clean(), "{what}: {rep}");
    assert!(rep.after.orphans.is_empty(), "{what}: {rep}");
    assert!(!rep.after.log_replay_pending, "{what}: {rep}");
    assert!(
        rep.changes.iter().any(|c| c.contains(what)),
        "no change mentions `{what}`: {rep}"
    );
    // A second repair finds nothing to do.
    let again = repair(&mut dev).unwrap();
    assert!(
        again.changes.is_empty(),
        "{what}: repair not idempotent: {again}"
    );
    let mut fs = Fs::mount(dev, opts(CommitMode::Log)).unwrap();
    let a = fs.lookup(ROOT, b"a").unwrap();
    assert_eq!(read_all(&mut fs, a.ino), vec![1u8; 5000], "{what}");
    assert_eq!(a.nlink, 1);
    let d = fs.lookup(ROOT, b"d").unwrap();
    assert_eq!(d.nlink, 2, "{what}");
    fs.lookup(d.ino, b"inner").unwrap();
    if !damaged_b {
        let b = fs.lookup(ROOT, b"b").unwrap();
        assert_eq!(read_all(&mut fs, b.ino), b"bbb", "{what}");
    }
    // The repaired file system keeps working.
    let n = fs.create(ROOT, b"after", 0o100644, U).unwrap().ino;
    fs.write(n, 0, &[9u8; 70_000]).unwrap();
    fs.release(n).unwrap();
    let mut dev = fs.unmount().unwrap();
    let after = fsck(&mut dev).unwrap();
    assert!(after.is_clean(), "{what}: after use: {after}");
    (dev, rep)
}

/// Removes the entry `name` from the root directory by hand.
fn drop_root_entry(dev: &mut Dev, name: &[u8]) {
    let blk_no = inode(dev, ROOT_INO).direct[0];
    let mut blk = block(dev, blk_no);
    let recs = fs::dir::records(&blk, 0).unwrap();
    let k = recs
        .iter()
        .position(|r| r.ino != 0 && r.name(&blk) == name)
        .unwrap();
    let prev = k.checked_sub(1).map(|p| recs[p]);
    fs::dir::remove(&mut blk, recs[k], prev);
    put(dev, blk_no, &blk);
}

#[test]
fn repair_on_a_clean_image_writes_nothing() {
    let (mut dev, ..) = image();
    let before = dev.stats();
    let rep = repair(&mut dev).unwrap();
    assert!(rep.changes.is_empty(), "{rep}");
    assert!(rep.after.is_clean());
    let after = dev.stats();
    assert_eq!(
        (after.user_sectors_written, after.flushes),
        (before.user_sectors_written, before.flushes),
        "repair wrote to a clean image"
    );
}

#[test]
fn repair_rebuilds_the_block_bitmap() {
    let (mut dev, a, ..) = image();
    let s = sb(&mut dev);
    let used = inode(&mut dev, a).direct[1];
    flip_bit(&mut dev, s.block_bitmap_start, u64::from(used));
    flip_bit(
        &mut dev,
        s.block_bitmap_start,
        u64::from(s.total_blocks - 3),
    );
    assert_eq!(
        kinds(&mut dev),
        vec![ProblemKind::BlockBitmap, ProblemKind::BlockBitmap]
    );
    repair_and_check(
        dev,
        "block bitmap rebuilt: 1 blocks marked used, 1 marked free",
        false,
    );
}

#[test]
fn repair_fixes_link_counts() {
    let (mut dev, a, b, d) = image();
    edit_inode(&mut dev, a, |i| i.nlink = 3);
    edit_inode(&mut dev, b, |i| i.nlink = 0);
    edit_inode(&mut dev, d, |i| i.nlink = 7);
    edit_inode(&mut dev, ROOT_INO, |i| i.nlink = 2);
    let k = kinds(&mut dev);
    assert!(k.iter().all(|&k| k == ProblemKind::LinkCount), "{k:?}");
    assert_eq!(k.len(), 4, "{k:?}");
    let (_, rep) = repair_and_check(dev, &format!("inode {a}: link count 3 -> 1"), false);
    assert_eq!(rep.changes.len(), 4, "{rep}");
}

#[test]
fn repair_removes_dangling_entries() {
    let (mut dev, _, b, _) = image();
    let s = sb(&mut dev);
    // b's inode bit is clear: the entry dangles, b's block leaks.
    flip_bit(&mut dev, s.inode_bitmap_start, u64::from(b));
    assert!(kinds(&mut dev).contains(&ProblemKind::DanglingEntry));
    let (dev, rep) = repair_and_check(dev, "removed entry `b`", true);
    assert!(
        rep.changes.iter().any(|c| c.contains("1 marked free")),
        "b's block is free again: {rep}"
    );
    let mut fs = Fs::mount(dev, opts(CommitMode::Log)).unwrap();
    assert!(fs.lookup(ROOT, b"b").is_err());
}

#[test]
fn repair_frees_unreachable_inodes() {
    let (mut dev, _, b, _) = image();
    // b keeps nlink 1 but loses its entry: unreachable, with a block.
    drop_root_entry(&mut dev, b"b");
    assert_eq!(
        kinds(&mut dev),
        vec![ProblemKind::Unreachable],
        "{}",
        fsck(&mut dev).unwrap()
    );
    let (_, rep) = repair_and_check(dev, &format!("freed inode {b}"), true);
    assert!(
        rep.changes.iter().any(|c| c.contains("1 marked free")),
        "{rep}"
    );
}

#[test]
fn repair_frees_orphans_left_by_a_crash() {
    // Unlinked while open, then a crash: an orphan with blocks.
    let mut fs = Fs::mount(image().0, opts(CommitMode::Log)).unwrap();
    let f = fs.create(ROOT, b"f", 0o100644, U).unwrap().ino;
    fs.write(f, 0, &[5u8; 9000]).unwrap();
    fs.unlink(ROOT, b"f").unwrap();
    let mut dev = fs.into_device();
    let rep = fsck(&mut dev).unwrap();
    assert!(rep.is_clean(), "{rep}");
    assert_eq!(rep.orphans, vec![f as u32]);
    let (_, rep) = repair_and_check(dev, &format!("freed inode {f}"), false);
    assert!(
        rep.changes.iter().any(|c| c.contains("3 marked free")),
        "the orphan's three blocks: {rep}"
    );
}

#[test]
fn repair_replays_a_pending_log_step_first() {
    // A committed step that sets a's nlink to 7: replayed, then fixed.
    let (mut dev, a, ..) = image();
    let s = sb(&mut dev);
    let (blk, off) = s.inode_location(a);
    let mut img = block(&mut dev, blk);
    let mut i = Inode::decode(a, &img[off..off + INODE_SIZE]).unwrap();
    i.nlink = 7;
    i.encode(&mut img[off..off + INODE_SIZE]);
    put(&mut dev, s.log_start + 1, &img);
    let hdr = fs::logfmt::LogHeader {
        seq: 99,
        blocks: vec![blk],
        slots_crc: None,
    };
    put(&mut dev, s.log_start, &hdr.encode());
    let (_, rep) = repair_and_check(dev, "replayed the committed log step (1 blocks)", false);
    assert!(rep.changes[0].contains("replayed"), "{rep}");
    assert!(
        rep.changes.iter().any(|c| c.contains("link count 7 -> 1")),
        "{rep}"
    );
}

#[test]
fn repair_refuses_what_it_must_not_guess() {
    let (mut dev, ..) = image();
    let mut b0 = block(&mut dev, 0);
    b0[0] ^= 1; // the magic
    put(&mut dev, 0, &b0);
    let before = dev.stats();
    let e = repair(&mut dev).unwrap_err();
    assert!(e.to_string().contains("superblock"), "{e}");
    assert_eq!(
        dev.stats().user_sectors_written,
        before.user_sectors_written
    );

    let (mut dev, ..) = image();
    let s = sb(&mut dev);
    let bad = fs::logfmt::LogHeader {
        seq: 100,
        blocks: vec![s.log_start + 1],
        slots_crc: None,
    };
    put(&mut dev, s.log_start, &bad.encode());
    let before = dev.stats();
    let e = repair(&mut dev).unwrap_err();
    assert!(e.to_string().contains("log header"), "{e}");
    assert_eq!(
        dev.stats().user_sectors_written,
        before.user_sectors_written
    );
}

/// Garbage in random metadata blocks: repair either refuses or leaves an
/// image that a second repair finds nothing more to do on, and never
/// panics; what it leaves mounts or is refused cleanly.
#[test]
fn repair_of_garbage_never_panics_and_is_idempotent() {
    let mut rng = Pcg64::seed_from_u64(78);
    let mut changed = 0;
    for round in 0..60 {
        let (mut dev, _, _, d) = image();
        let s = sb(&mut dev);
        // The blocks that hold something: both bitmaps' first bytes, the
        // first inodes, the directories' blocks.
        let (root_dir, d_dir) = (
            inode(&mut dev, ROOT_INO).direct[0],
            inode(&mut dev, d).direct[0],
        );
        let targets = [
            (s.inode_bitmap_start, 0, 8),
            (s.block_bitmap_start, 0, (s.data_start as usize + 64) / 8),
            (s.inode_table_start, 256, 6 * 256),
            (root_dir, 0, 128),
            (d_dir, 0, 64),
        ];
        for _ in 0..rng.gen_range(1..4) {
            let (b, from, to) = targets[rng.gen_range(0..targets.len())];
            let mut img = block(&mut dev, b);
            let i = rng.gen_range(from..to);
            img[i] ^= 1 << rng.gen_range(0..8);
            put(&mut dev, b, &img);
        }
        let Ok(rep) = repair(&mut dev) else {
            continue;
        };
        let _ = rep.to_string();
        changed += u32::from(!rep.changes.is_empty());
        assert_eq!(fsck(&mut dev).unwrap(), rep.after, "round {round}");
        let again = repair(&mut dev).unwrap();
        assert!(
            again.changes.is_empty(),
            "round {round}: {rep}\nthen: {again}"
        );
        if let Ok(mut fs) = Fs::mount(dev, opts(CommitMode::Log)) {
            let _ = fs.readdir_all(ROOT);
            let _ = fs.create(ROOT, b"new", 0o100644, U);
        }
    }
    assert!(
        changed >= 10,
        "only {changed} rounds had something to repair"
    );
}

#[test]
fn no_superblock_is_told_apart_from_a_damaged_one() {
    // No magic in block 0 (a device mkfs never ran on): one Superblock
    // problem, flagged as no file system at all.
    let (mut dev, ..) = image();
    put(&mut dev, 0, &[0u8; 4096]);
    let rep = fsck(&mut dev).unwrap();
    assert!(rep.no_file_system, "{rep}");
    assert_eq!(rep.problem_count(), 1, "{rep}");
    assert!(rep.to_string().contains("1 problem;"), "{rep}");
    let e = repair(&mut dev).unwrap_err();
    assert!(e.to_string().contains("nothing to repair"), "{e}");
    // The magic whole and the CRC wrong: a damaged file system.
    let (mut dev, ..) = image();
    let mut b0 = block(&mut dev, 0);
    b0[20] ^= 1; // total_blocks, under the CRC
    put(&mut dev, 0, &b0);
    let rep = fsck(&mut dev).unwrap();
    assert!(!rep.no_file_system, "{rep}");
    assert_eq!(kinds(&mut dev), vec![ProblemKind::Superblock]);
    let e = repair(&mut dev).unwrap_err();
    assert!(e.to_string().contains("superblock is damaged"), "{e}");
}
