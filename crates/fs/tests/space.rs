//! fallocate (default and `KEEP_SIZE`), punch hole, zero range and
//! `SEEK_DATA` / `SEEK_HOLE` on every (FTL, mode) pair the contract allows,
//! each ending with a clean fsck, a remount that sees the same tree and,
//! for the space the calls free, the device's own count of trimmed sectors.

use crate::common;

use common::*;
use fs::{
    errno, Fs, FsError, Owner, Seek, FALLOC_FL_KEEP_SIZE as KEEP, FALLOC_FL_PUNCH_HOLE as PUNCH,
    FALLOC_FL_ZERO_RANGE as ZERO, MAX_FILE_SIZE, ROOT_INO,
};
use ftl::BlockDevice;

const ROOT: u64 = ROOT_INO as u64;
const REG: u32 = 0o100644;
const U: Owner = Owner::new(1000, 100);
const BS: u64 = 4096;

fn file(fs: &mut Fs<Dev>, name: &str) -> u64 {
    let a = fs.create(ROOT, name.as_bytes(), REG, U).unwrap();
    fs.release(a.ino).unwrap();
    a.ino
}

/// Bytes that are never zero, different per offset.
fn pattern(off: u64, len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| ((off + i) % 251) as u8 | 1)
        .collect()
}

fn errno_of<T: std::fmt::Debug>(r: Result<T, FsError>) -> i32 {
    r.expect_err("expected an error").errno()
}

/// Leaves the file system's free blocks full of non-zero bytes (a file
/// written and removed: truncate and unlink do not trim), so a block that
/// is allocated again and not zeroed would show them.
fn dirty_free_space(fs: &mut Fs<Dev>) {
    let junk = file(fs, "junk");
    fs.write(junk, 0, &vec![0xd0; 256 * 1024]).unwrap();
    fs.unlink(ROOT, b"junk").unwrap();
}

#[test]
fn preallocated_blocks_read_as_zeros_and_grow_the_file() {
    each(|cfg, fs| {
        dirty_free_space(fs);
        let f = file(fs, "f");
        fs.write(f, 0, &pattern(0, 5000)).unwrap();
        let trimmed = fs.stats().sectors_trimmed;
        fs.fallocate(f, 3000, 60_000, 0).unwrap();
        let a = fs.getattr(f).unwrap();
        assert_eq!(a.size, 63_000, "{cfg}");
        // Every block of 0..63000, and the pointer block of blocks 12..15.
        assert_eq!(a.blocks * 512, 17 * BS, "{cfg}");
        let data = read_all(fs, f);
        assert_eq!(&data[..5000], &pattern(0, 5000)[..], "{cfg}");
        assert!(data[5000..].iter().all(|&b| b == 0), "{cfg}: stale bytes");
        // The new blocks were unmapped on the device, not written.
        assert!(
            fs.stats().sectors_trimmed > trimmed,
            "{cfg}: preallocation issued no trims"
        );
        // Writing into the preallocated range works without new blocks.
        fs.write(f, 40_000, b"inside").unwrap();
        assert_eq!(fs.getattr(f).unwrap().blocks, a.blocks);
        assert_eq!(fs.read(f, 39_998, 10).unwrap(), b"\0\0inside\0\0");
    });
}

/// The block holding the end of file is a hole (a truncate grew the
/// file over it): the preallocation maps it, then zeroes the bytes past
/// the old end in it — which must not read its stale bytes back from the
/// device, where its zeroing trim is not issued yet.
#[test]
fn preallocation_over_a_hole_at_the_end_of_file_reads_zeros() {
    for cfg in CONFIGS {
        // A device of 1 MiB: filling it moves the allocator's rotor to the
        // end, so the next allocations reuse the junk's blocks.
        let mut fs = fresh_on(
            cfg,
            small512(),
            &ftl::FormatOptions::default(),
            &fs::MkfsOptions::default(),
        );
        let junk = file(&mut fs, "junk");
        let mut off = 0;
        while fs.write(junk, off, &[0xd0; 4096]).is_ok() {
            off += 4096;
        }
        fs.unlink(ROOT, b"junk").unwrap();
        let f = file(&mut fs, "f");
        fs.write(f, 0, b"x").unwrap();
        let grow = fs::SetAttr {
            size: Some(8 * BS + 0xdf5),
            ..Default::default()
        };
        fs.setattr(f, &grow).unwrap();
        fs.fallocate(f, 2 * BS + 0xeca, 12 * BS, 0).unwrap();
        let data = read_all(&mut fs, f);
        assert_eq!(data.len() as u64, 14 * BS + 0xeca);
        assert!(data[1..].iter().all(|&b| b == 0), "{cfg}: stale bytes");
        assert_clean(&mut fs);
    }
}

#[test]
fn keep_size_preallocates_past_the_end_invisibly() {
    each(|cfg, fs| {
        dirty_free_space(fs);
        let f = file(fs, "f");
        fs.write(f, 0, &pattern(0, 100)).unwrap();
        fs.fallocate(f, 0, 10 * BS, KEEP).unwrap();
        let a = fs.getattr(f).unwrap();
        assert_eq!((a.size, a.blocks * 512), (100, 10 * BS), "{cfg}");
        assert_eq!(read_all(fs, f), pattern(0, 100));
        // fsck accepts blocks mapped past the end of file.
        assert_clean(fs);
        // A later extension reads zeros over the preallocated blocks.
        fs.write(f, 9 * BS, b"end").unwrap();
        let data = read_all(fs, f);
        assert_eq!(data.len() as u64, 9 * BS + 3);
        assert!(
            data[100..(9 * BS) as usize].iter().all(|&b| b == 0),
            "{cfg}"
        );
        // Truncate frees what lies past the new end, preallocated or not.
        fs.fallocate(f, 20 * BS, 4 * BS, KEEP).unwrap();
        fs.setattr(
            f,
            &fs::SetAttr {
                size: Some(BS),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(fs.getattr(f).unwrap().blocks * 512, BS, "{cfg}");
    });
}

#[test]
fn punch_hole_zeroes_the_range_frees_whole_blocks_and_trims_them() {
    each(|cfg, fs| {
        let f = file(fs, "f");
        fs.write(f, 0, &pattern(0, 40_000)).unwrap();
        let free = fs.statfs().unwrap().blocks_free;
        let trimmed = fs.stats().sectors_trimmed;
        // 1000..30000 covers blocks 1..7 whole (4096..28672).
        fs.fallocate(f, 1000, 29_000, PUNCH | KEEP).unwrap();
        let mut want = pattern(0, 40_000);
        want[1000..30_000].fill(0);
        assert_eq!(read_all(fs, f), want, "{cfg}");
        let a = fs.getattr(f).unwrap();
        assert_eq!(a.size, 40_000);
        assert_eq!(a.blocks * 512, (10 - 6) * BS, "{cfg}");
        assert_eq!(fs.statfs().unwrap().blocks_free, free + 6, "{cfg}");
        let spb = BS / fs.device().sector_size() as u64;
        assert_eq!(
            fs.stats().sectors_trimmed - trimmed,
            6 * spb,
            "{cfg}: the freed blocks are trimmed"
        );
        // Punching a hole again, or past the end, changes nothing.
        fs.fallocate(f, 4096, 8192, PUNCH | KEEP).unwrap();
        fs.fallocate(f, 1 << 30, 4096, PUNCH | KEEP).unwrap();
        assert_eq!(read_all(fs, f), want);
    });
}

#[test]
fn zero_range_zeroes_keeps_blocks_and_may_grow() {
    each(|cfg, fs| {
        let f = file(fs, "f");
        fs.write(f, 0, &pattern(0, 20_000)).unwrap();
        let blocks = fs.getattr(f).unwrap().blocks;
        fs.fallocate(f, 100, 16_000, ZERO | KEEP).unwrap();
        let mut want = pattern(0, 20_000);
        want[100..16_100].fill(0);
        assert_eq!(read_all(fs, f), want, "{cfg}");
        assert_eq!(fs.getattr(f).unwrap().blocks, blocks, "{cfg}: blocks stay");
        // Without KEEP_SIZE a range past the end grows the file.
        fs.fallocate(f, 18_000, 10_000, ZERO).unwrap();
        want.truncate(18_000);
        want.resize(28_000, 0);
        assert_eq!(read_all(fs, f), want, "{cfg}");
        assert_eq!(fs.getattr(f).unwrap().blocks * 512, 7 * BS);
    });
}

#[test]
fn seek_data_and_hole_follow_the_block_map() {
    each(|cfg, fs| {
        let f = file(fs, "f");
        // Data in blocks 0, 3 and 300 (the single-indirect range); the size
        // ends inside block 300.
        fs.write(f, 10, b"a").unwrap();
        fs.write(f, 3 * BS + 5, b"b").unwrap();
        fs.write(f, 300 * BS, b"c").unwrap();
        let size = 300 * BS + 1;
        let d = |fs: &mut Fs<Dev>, o| fs.seek(f, o, Seek::Data);
        let h = |fs: &mut Fs<Dev>, o| fs.seek(f, o, Seek::Hole);
        assert_eq!(d(fs, 0).unwrap(), 0, "{cfg}");
        assert_eq!(d(fs, 5).unwrap(), 5);
        assert_eq!(h(fs, 0).unwrap(), BS);
        assert_eq!(d(fs, BS).unwrap(), 3 * BS);
        assert_eq!(h(fs, 3 * BS + 1).unwrap(), 4 * BS);
        assert_eq!(d(fs, 4 * BS).unwrap(), 300 * BS);
        assert_eq!(h(fs, 300 * BS).unwrap(), size, "the end is a hole");
        assert_eq!(errno_of(d(fs, size)), errno::ENXIO);
        assert_eq!(errno_of(h(fs, size + 7)), errno::ENXIO);
        // A punched block becomes a hole.
        fs.fallocate(f, 3 * BS, BS, PUNCH | KEEP).unwrap();
        assert_eq!(d(fs, BS).unwrap(), 300 * BS, "{cfg}");
    });
}

#[test]
fn bad_fallocate_requests_get_errors_and_change_nothing() {
    each(|cfg, fs| {
        let f = file(fs, "f");
        fs.write(f, 0, b"keep").unwrap();
        let before = fs.getattr(f).unwrap();
        let free = fs.statfs().unwrap().blocks_free;
        let cases: [(u64, u64, u32, i32); 7] = [
            (0, 0, 0, errno::EINVAL),
            (0, 10, 0x08, errno::EOPNOTSUPP),  // collapse range
            (0, 10, 0x20, errno::EOPNOTSUPP),  // insert range
            (0, 10, PUNCH, errno::EOPNOTSUPP), // punch needs KEEP_SIZE
            (0, 10, PUNCH | ZERO | KEEP, errno::EOPNOTSUPP),
            (MAX_FILE_SIZE, 1, 0, errno::EFBIG),
            // More holes than the device has free blocks: refused up front.
            (0, (free + 10) * BS, 0, errno::ENOSPC),
        ];
        for (off, len, mode, want) in cases {
            let got = errno_of(fs.fallocate(f, off, len, mode));
            assert_eq!(got, want, "{cfg}: fallocate({off}, {len}, {mode:#x})");
        }
        let dir = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
        assert_eq!(errno_of(fs.fallocate(dir, 0, 10, 0)), errno::EISDIR);
        assert_eq!(errno_of(fs.seek(dir, 0, Seek::Data)), errno::EISDIR);
        assert_eq!(fs.getattr(f).unwrap(), before, "{cfg}");
        assert_eq!(fs.statfs().unwrap().blocks_free, free, "{cfg}");
    });
}

/// A power cut after a punch hole in `log` mode returns the whole punch or
/// none of it: the trims of the freed blocks are issued only after the
/// commit point, so a cut before it leaves their data readable.
#[test]
fn punch_is_atomic_across_a_remount_without_unmount() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let f = file(&mut fs, "f");
        fs.write(f, 0, &pattern(0, 50_000)).unwrap();
        fs.fsync(f, false).unwrap();
        fs.fallocate(f, 0, 50_000, PUNCH | KEEP).unwrap();
        fs.fsync(f, false).unwrap();
        let mut fs = crash_remount(fs);
        let data = read_all(&mut fs, f);
        assert_eq!(data.len(), 50_000);
        assert!(data.iter().all(|&b| b == 0), "{cfg}");
        assert_clean(&mut fs);
    }
}
