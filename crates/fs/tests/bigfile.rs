//! Files past 4 GiB (format version 2's triple-indirect block), in every
//! (FTL, mode) pair, and version-1 images: they mount with their 4 GiB
//! limit, ignore whatever version 1 left in the word that is now the
//! triple-indirect pointer, and `Fs::upgrade` makes them version 2.

use crate::common;

use common::*;
use fs::{errno, Fs, Owner, Seek, Superblock, BLOCK_SIZE, MAX_FILE_SIZE, ROOT_INO};
use ftl::{BlockDevice, Lba};

const ROOT: u64 = ROOT_INO as u64;
const U: Owner = Owner::new(1, 1);
const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;

fn file(fs: &mut Fs<Dev>, name: &str) -> u64 {
    let a = fs.create(ROOT, name.as_bytes(), 0o100644, U).unwrap();
    fs.release(a.ino).unwrap();
    a.ino
}

fn resize(fs: &mut Fs<Dev>, ino: u64, size: u64) {
    fs.setattr(
        ino,
        &fs::SetAttr {
            size: Some(size),
            ..Default::default()
        },
    )
    .unwrap();
}

/// Unmounts, runs repair, which must find nothing to change (it walks the
/// triple-indirect tree too: skipping it would free those blocks in its
/// bitmap rebuild), and mounts again.
fn repair_changes_nothing(fs: Fs<Dev>, cfg: Config) -> Fs<Dev> {
    let mut dev = fs.unmount().unwrap();
    let rep = fs::repair(&mut dev).unwrap();
    assert!(
        rep.changes.is_empty(),
        "{cfg}: repair changed {:?}",
        rep.changes
    );
    Fs::mount(dev, opts(cfg.mode)).unwrap()
}

#[test]
fn files_reach_terabytes_through_the_triple_indirect_block() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        assert_eq!(
            fs.superblock().version,
            fs::FS_VERSION,
            "mkfs writes the newest version"
        );
        const { assert!(MAX_FILE_SIZE > 4 * TIB) };
        let f = file(&mut fs, "big");
        let free = fs.statfs().unwrap().blocks_free;
        let near_end = MAX_FILE_SIZE - 10;
        for (off, data) in [
            (5 * GIB, &b"five"[..]),
            (TIB, b"one tebibyte"),
            (near_end, b"last bytes"),
        ] {
            assert_eq!(
                fs.write(f, off, data).unwrap() as usize,
                data.len(),
                "{cfg}"
            );
        }
        assert_eq!(fs.getattr(f).unwrap().size, MAX_FILE_SIZE);
        assert_eq!(fs.read(f, TIB - 2, 16).unwrap(), b"\0\0one tebibyte\0\0");
        assert_eq!(fs.read(f, near_end, 100).unwrap(), b"last bytes");
        assert_eq!(
            errno_of(fs.write(f, MAX_FILE_SIZE, b"x")),
            errno::EFBIG,
            "{cfg}"
        );
        // The block map is walked sparsely.
        assert_eq!(fs.seek(f, 0, Seek::Data).unwrap(), 5 * GIB);
        assert_eq!(fs.seek(f, 5 * GIB + 4, Seek::Data).unwrap(), 5 * GIB + 4);
        assert_eq!(fs.seek(f, 5 * GIB + 5, Seek::Data).unwrap(), 5 * GIB + 5);
        assert_eq!(fs.seek(f, 5 * GIB + 4096, Seek::Data).unwrap(), TIB);
        assert_eq!(fs.seek(f, TIB, Seek::Hole).unwrap(), TIB + 4096);
        assert_clean(&mut fs);
        let mut fs = repair_changes_nothing(fs, cfg);
        // Punch the middle one, truncate below the last one.
        fs.fallocate(
            f,
            TIB,
            4096,
            fs::FALLOC_FL_PUNCH_HOLE | fs::FALLOC_FL_KEEP_SIZE,
        )
        .unwrap();
        assert_eq!(
            fs.seek(f, 5 * GIB + 4096, Seek::Data).unwrap(),
            near_end & !4095
        );
        resize(&mut fs, f, 6 * GIB);
        assert_eq!(fs.read(f, 5 * GIB, 4).unwrap(), b"five");
        assert_clean(&mut fs);
        let mut fs = remount(repair_changes_nothing(fs, cfg));
        assert_eq!(fs.read(f, 5 * GIB, 4).unwrap(), b"five", "{cfg}");
        resize(&mut fs, f, 0);
        assert_eq!(fs.getattr(f).unwrap().blocks, 0, "{cfg}");
        assert_eq!(
            fs.statfs().unwrap().blocks_free,
            free,
            "{cfg}: every block back"
        );
        assert_clean(&mut fs);
    }
}

fn errno_of<T: std::fmt::Debug>(r: Result<T, fs::FsError>) -> i32 {
    r.expect_err("expected an error").errno()
}

/// Rewrites `dev`'s superblock as version 1, as a version-1 build wrote it.
fn make_version_1(dev: &mut Dev) -> Superblock {
    let ss = dev.sector_size();
    let mut b = vec![0u8; BLOCK_SIZE];
    dev.read(Lba(0), &mut b).unwrap();
    let mut sb = Superblock::decode(&b).unwrap();
    sb.version = 1;
    let enc = sb.encode();
    dev.write(Lba(0), &enc[..fs::layout::SB_LEN.next_multiple_of(ss)])
        .unwrap();
    dev.flush().unwrap();
    sb
}

/// Puts `word` into bytes 120..124 of inode `ino` (a reserved word in
/// version 1, which its mkfs never cleared), with a valid CRC.
fn poke_reserved_word(dev: &mut Dev, sb: &Superblock, ino: u32, word: u32) {
    let ss = dev.sector_size() as u64;
    let (b, off) = sb.inode_location(ino);
    let mut blk = vec![0u8; BLOCK_SIZE];
    let lba = Lba(u64::from(b) * BLOCK_SIZE as u64 / ss);
    dev.read(lba, &mut blk).unwrap();
    let slot = &mut blk[off..off + 256];
    slot[120..124].copy_from_slice(&word.to_le_bytes());
    let crc = crc32c::crc32c(&slot[..252]);
    slot[252..256].copy_from_slice(&crc.to_le_bytes());
    dev.write(lba, &blk).unwrap();
    dev.flush().unwrap();
}

#[test]
fn version_1_images_mount_with_their_limit_and_upgrade() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let f = file(&mut fs, "old");
        fs.write(f, 0, b"version one data").unwrap();
        let mut dev = fs.unmount().unwrap();
        let sb = make_version_1(&mut dev);
        poke_reserved_word(&mut dev, &sb, f as u32, 0xdead_beef);
        let mut fs = Fs::mount(dev, opts(cfg.mode)).unwrap();
        assert_eq!(fs.superblock().version, 1);
        // The old reserved word is not a pointer here.
        assert_eq!(fs.read(f, 0, 100).unwrap(), b"version one data", "{cfg}");
        assert_eq!(errno_of(fs.write(f, 5 * GIB, b"x")), errno::EFBIG, "{cfg}");
        fs.write(f, 3 * GIB, b"x").unwrap();
        assert_clean(&mut fs);
        // Upgrade: once, then a no-op.
        assert!(fs.upgrade().unwrap(), "{cfg}");
        assert!(!fs.upgrade().unwrap());
        assert_eq!(fs.superblock().version, fs::FS_VERSION);
        fs.write(f, 5 * GIB, b"y").unwrap();
        assert_clean(&mut fs);
        let mut fs = remount(fs);
        assert_eq!(
            fs.superblock().version,
            fs::FS_VERSION,
            "{cfg}: the upgrade is durable"
        );
        assert_eq!(fs.read(f, 5 * GIB, 1).unwrap(), b"y");
        assert_eq!(fs.read(f, 0, 16).unwrap(), b"version one data");
    }
}
