//! Each operation of the API, with its errors, on every (FTL, mode) pair the
//! contract allows; each test ends with a clean unmount, a clean fsck and
//! a remount that sees the same tree.

use crate::common;

use common::*;
use fs::{
    errno, FileType, Fs, FsError, Owner, SetAttr, TimeSet, MAX_FILE_SIZE, RENAME_EXCHANGE,
    RENAME_NOREPLACE, ROOT_INO,
};

const ROOT: u64 = ROOT_INO as u64;
const REG: u32 = 0o100644;
const U: Owner = Owner::new(1000, 100);

fn create(fs: &mut Fs<Dev>, parent: u64, name: &str) -> u64 {
    let a = fs.create(parent, name.as_bytes(), REG, U).unwrap();
    fs.release(a.ino).unwrap();
    a.ino
}

fn errno_of<T: std::fmt::Debug>(r: Result<T, FsError>) -> i32 {
    r.expect_err("expected an error").errno()
}

#[test]
fn create_write_read_and_attributes() {
    each(|cfg, fs| {
        let a = fs.create(ROOT, b"hello", REG, U).unwrap();
        assert_eq!(
            (a.kind, a.perm, a.nlink, a.uid, a.gid, a.size),
            (FileType::RegularFile, 0o644, 1, 1000, 100, 0)
        );
        assert_eq!(fs.write(a.ino, 0, b"hello, world").unwrap(), 12);
        assert_eq!(fs.read(a.ino, 0, 100).unwrap(), b"hello, world", "{cfg}");
        assert_eq!(fs.read(a.ino, 7, 3).unwrap(), b"wor");
        assert!(fs.read(a.ino, 12, 10).unwrap().is_empty());
        // A write past the end leaves a hole of zeros.
        fs.write(a.ino, 10_000, b"tail").unwrap();
        let all = read_all(fs, a.ino);
        assert_eq!(all.len(), 10_004);
        assert!(
            all[12..10_000].iter().all(|&b| b == 0),
            "{cfg}: hole not zero"
        );
        assert_eq!(
            fs.getattr(a.ino).unwrap().blocks,
            16,
            "two 4 KiB blocks, the middle one a hole"
        );
        fs.release(a.ino).unwrap();
        let l = fs.lookup(ROOT, b"hello").unwrap();
        assert_eq!(l.ino, a.ino);
        assert_eq!(l.size, 10_004);
        assert_eq!(fs.lookup(ROOT, b".").unwrap().ino, ROOT);
        assert_eq!(fs.lookup(ROOT, b"..").unwrap().ino, ROOT);
    });
}

#[test]
fn name_and_inode_errors() {
    each(|_, fs| {
        let f = create(fs, ROOT, "f");
        assert_eq!(errno_of(fs.lookup(ROOT, b"missing")), errno::ENOENT);
        assert_eq!(errno_of(fs.lookup(f, b"x")), errno::ENOTDIR);
        assert_eq!(errno_of(fs.lookup(ROOT, &[b'n'; 256])), errno::ENAMETOOLONG);
        assert_eq!(
            errno_of(fs.create(ROOT, &[b'n'; 256], REG, U)),
            errno::ENAMETOOLONG
        );
        let long = fs.create(ROOT, &[b'n'; 255], REG, U).unwrap();
        fs.release(long.ino).unwrap();
        assert_eq!(errno_of(fs.create(ROOT, b"f", REG, U)), errno::EEXIST);
        assert_eq!(errno_of(fs.mkdir(ROOT, b"f", 0o755, U)), errno::EEXIST);
        assert_eq!(errno_of(fs.create(ROOT, b"a/b", REG, U)), errno::EINVAL);
        assert_eq!(errno_of(fs.create(ROOT, b"..", REG, U)), errno::EINVAL);
        assert_eq!(errno_of(fs.create(f, b"x", REG, U)), errno::ENOTDIR);
        for bad in [0u64, 999_999, u64::MAX] {
            assert_eq!(errno_of(fs.getattr(bad)), errno::ENOENT);
            assert_eq!(errno_of(fs.open(bad)), errno::ENOENT);
        }
        assert_eq!(errno_of(fs.read(ROOT, 0, 10)), errno::EISDIR);
        assert_eq!(errno_of(fs.write(ROOT, 0, b"x")), errno::EISDIR);
        assert_eq!(errno_of(fs.readdir_all(f)), errno::ENOTDIR);
        assert_eq!(errno_of(fs.readlink(f)), errno::EINVAL);
        assert_eq!(
            errno_of(fs.release(f)),
            errno::EINVAL,
            "release of a file not open"
        );
        assert_eq!(errno_of(fs.write(f, MAX_FILE_SIZE, b"x")), errno::EFBIG);
        let big = SetAttr {
            size: Some(MAX_FILE_SIZE + 1),
            ..Default::default()
        };
        assert_eq!(errno_of(fs.setattr(f, &big)), errno::EFBIG);
        assert_eq!(errno_of(fs.create(ROOT, b"d", 0o040755, U)), errno::EINVAL);
    });
}

#[test]
fn mkdir_rmdir_and_link_counts() {
    each(|cfg, fs| {
        let d = fs.mkdir(ROOT, b"d", 0o750, U).unwrap();
        assert_eq!((d.kind, d.nlink, d.perm), (FileType::Directory, 2, 0o750));
        assert_eq!(fs.getattr(ROOT).unwrap().nlink, 3, "{cfg}");
        let e = fs.mkdir(d.ino, b"e", 0o755, U).unwrap();
        assert_eq!(fs.getattr(d.ino).unwrap().nlink, 3);
        assert_eq!(fs.lookup(e.ino, b"..").unwrap().ino, d.ino);
        let f = create(fs, d.ino, "f");
        let names: Vec<Vec<u8>> = fs
            .readdir_all(d.ino)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(
            names,
            vec![b".".to_vec(), b"..".to_vec(), b"e".to_vec(), b"f".to_vec()]
        );
        assert_eq!(errno_of(fs.rmdir(ROOT, b"d")), errno::ENOTEMPTY);
        assert_eq!(errno_of(fs.rmdir(d.ino, b"f")), errno::ENOTDIR);
        assert_eq!(errno_of(fs.unlink(d.ino, b"e")), errno::EISDIR);
        assert_eq!(errno_of(fs.rmdir(d.ino, b"nope")), errno::ENOENT);
        assert_eq!(errno_of(fs.rmdir(d.ino, b".")), errno::EINVAL);
        assert_eq!(errno_of(fs.rmdir(d.ino, b"..")), errno::ENOTEMPTY);
        fs.rmdir(d.ino, b"e").unwrap();
        assert_eq!(fs.getattr(d.ino).unwrap().nlink, 2);
        assert_eq!(errno_of(fs.getattr(e.ino)), errno::ENOENT);
        fs.unlink(d.ino, b"f").unwrap();
        assert_eq!(errno_of(fs.getattr(f)), errno::ENOENT);
        fs.rmdir(ROOT, b"d").unwrap();
        assert_eq!(fs.getattr(ROOT).unwrap().nlink, 2);
        let st = fs.statfs().unwrap();
        assert_eq!(st.files_free, st.files - 1, "{cfg}: only the root is left");
        // Directories do not shrink: the root keeps its one block.
        assert_eq!(
            st.blocks_free,
            st.blocks - 1,
            "{cfg}: every other data block is free again"
        );
    });
}

#[test]
fn rename_cases() {
    each(|cfg, fs| {
        let a = fs.mkdir(ROOT, b"a", 0o755, U).unwrap().ino;
        let b = fs.mkdir(ROOT, b"b", 0o755, U).unwrap().ino;
        let x = create(fs, a, "x");
        fs.write(x, 0, b"xxx").unwrap();
        let y = create(fs, b, "y");
        fs.write(y, 0, &vec![7u8; 20_000]).unwrap();
        let free_before = fs.statfs().unwrap().blocks_free;
        // Over an existing file: the target's inode and blocks are freed.
        fs.rename(a, b"x", b, b"y", 0).unwrap();
        assert_eq!(errno_of(fs.lookup(a, b"x")), errno::ENOENT);
        assert_eq!(fs.lookup(b, b"y").unwrap().ino, x);
        assert_eq!(errno_of(fs.getattr(y)), errno::ENOENT, "{cfg}");
        assert_eq!(fs.statfs().unwrap().blocks_free, free_before + 5);
        // Same inode under both names: nothing happens.
        fs.link(x, b, b"x2").unwrap();
        fs.rename(b, b"x2", b, b"y", 0).unwrap();
        assert_eq!(fs.lookup(b, b"x2").unwrap().ino, x);
        fs.unlink(b, b"x2").unwrap();
        // Flags.
        let z = create(fs, a, "z");
        assert_eq!(
            errno_of(fs.rename(a, b"z", b, b"y", RENAME_NOREPLACE)),
            errno::EEXIST
        );
        fs.rename(a, b"z", b, b"z", RENAME_NOREPLACE).unwrap();
        assert_eq!(
            errno_of(fs.rename(b, b"z", b, b"y", RENAME_EXCHANGE | RENAME_NOREPLACE)),
            errno::EINVAL
        );
        assert_eq!(errno_of(fs.rename(b, b"z", b, b"y", 8)), errno::EINVAL);
        // Kind mismatches and directory rules.
        let c = fs.mkdir(b, b"c", 0o755, U).unwrap().ino;
        assert_eq!(errno_of(fs.rename(b, b"y", b, b"c", 0)), errno::EISDIR);
        assert_eq!(errno_of(fs.rename(b, b"c", b, b"y", 0)), errno::ENOTDIR);
        assert_eq!(
            errno_of(fs.rename(ROOT, b"b", c, b"inside", 0)),
            errno::EINVAL
        );
        assert_eq!(
            errno_of(fs.rename(ROOT, b"b", b, b"self", 0)),
            errno::EINVAL
        );
        create(fs, c, "keep");
        assert_eq!(
            errno_of(fs.rename(ROOT, b"a", b, b"c", 0)),
            errno::ENOTEMPTY
        );
        assert_eq!(
            errno_of(fs.rename(ROOT, b"nope", b, b"q", 0)),
            errno::ENOENT
        );
        // A directory moves across parents: `..` and link counts follow.
        fs.rename(b, b"c", ROOT, b"c", 0).unwrap();
        assert_eq!(fs.lookup(c, b"..").unwrap().ino, ROOT);
        assert_eq!(fs.getattr(b).unwrap().nlink, 2);
        assert_eq!(
            fs.getattr(ROOT).unwrap().nlink,
            5,
            "{cfg}: root has a, b, c"
        );
        // Over an empty directory.
        let e = fs.mkdir(ROOT, b"e", 0o755, U).unwrap().ino;
        fs.rename(ROOT, b"a", ROOT, b"e", 0).unwrap();
        assert_eq!(errno_of(fs.getattr(e)), errno::ENOENT);
        assert_eq!(fs.lookup(ROOT, b"e").unwrap().ino, a);
        assert_eq!(fs.getattr(ROOT).unwrap().nlink, 5);
        // Within one directory, to a longer name.
        fs.rename(b, b"z", b, &[b'L'; 200], 0).unwrap();
        assert_eq!(fs.lookup(b, &[b'L'; 200]).unwrap().ino, z);
    });
}

#[test]
fn unlinked_open_file_lives_until_release() {
    each(|cfg, fs| {
        let f = fs.create(ROOT, b"tmp", REG, U).unwrap().ino;
        fs.write(f, 0, &vec![3u8; 50_000]).unwrap();
        let free = fs.statfs().unwrap().blocks_free;
        fs.unlink(ROOT, b"tmp").unwrap();
        assert_eq!(errno_of(fs.lookup(ROOT, b"tmp")), errno::ENOENT);
        assert_eq!(fs.getattr(f).unwrap().nlink, 0);
        assert_eq!(fs.read(f, 49_990, 100).unwrap(), vec![3u8; 10], "{cfg}");
        fs.write(f, 50_000, b"more").unwrap();
        assert_eq!(fs.statfs().unwrap().blocks_free, free);
        let rep = fs.fsck().unwrap();
        assert!(rep.is_clean(), "{rep}");
        assert_eq!(rep.orphans, vec![f as u32]);
        assert_eq!(errno_of(fs.link(f, ROOT, b"back")), errno::ENOENT);
        fs.release(f).unwrap();
        assert_eq!(errno_of(fs.getattr(f)), errno::ENOENT);
        assert_eq!(
            fs.statfs().unwrap().blocks_free,
            free + 14,
            "13 data blocks and the indirect block"
        );
        // An open directory removed: lists only `.` and `..` until released.
        let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
        fs.open(d).unwrap();
        fs.rmdir(ROOT, b"d").unwrap();
        assert_eq!(fs.readdir_all(d).unwrap().len(), 2);
        assert_eq!(errno_of(fs.create(d, b"new", REG, U)), errno::ENOENT);
        fs.release(d).unwrap();
        assert_eq!(errno_of(fs.getattr(d)), errno::ENOENT);
    });
}

#[test]
fn orphans_are_freed_at_mount_after_a_crash() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let f = fs.create(ROOT, b"tmp", REG, U).unwrap().ino;
        fs.write(f, 0, &vec![1u8; 100_000]).unwrap();
        fs.unlink(ROOT, b"tmp").unwrap();
        fs.sync().unwrap();
        let free = fs.statfs().unwrap().blocks_free;
        let mut fs = crash_remount(fs);
        assert_eq!(errno_of(fs.getattr(f)), errno::ENOENT, "{cfg}");
        assert_eq!(fs.statfs().unwrap().blocks_free, free + 26);
        let rep = fs.fsck().unwrap();
        assert!(rep.is_clean() && rep.orphans.is_empty(), "{cfg}: {rep}");
    }
}

#[test]
fn hard_links() {
    each(|_, fs| {
        let f = create(fs, ROOT, "f");
        fs.write(f, 0, b"shared").unwrap();
        let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
        let l = fs.link(f, d, b"g").unwrap();
        assert_eq!((l.ino, l.nlink), (f, 2));
        assert_eq!(errno_of(fs.link(f, d, b"g")), errno::EEXIST);
        assert_eq!(errno_of(fs.link(d, ROOT, b"dl")), errno::EPERM);
        assert_eq!(errno_of(fs.link(f, f, b"x")), errno::ENOTDIR);
        fs.unlink(ROOT, b"f").unwrap();
        assert_eq!(fs.getattr(f).unwrap().nlink, 1);
        assert_eq!(fs.read(f, 0, 10).unwrap(), b"shared");
        assert_eq!(fs.lookup(d, b"g").unwrap().ino, f);
    });
}

#[test]
fn symlinks_and_special_files() {
    each(|_, fs| {
        let s = fs.symlink(ROOT, b"s", b"/some/where", U).unwrap();
        assert_eq!((s.kind, s.size, s.perm), (FileType::Symlink, 11, 0o777));
        assert_eq!(fs.readlink(s.ino).unwrap(), b"/some/where");
        let long = vec![b'x'; 4095];
        let l = fs.symlink(ROOT, b"long", &long, U).unwrap();
        assert_eq!(fs.readlink(l.ino).unwrap(), long);
        assert_eq!(
            errno_of(fs.symlink(ROOT, b"too", &[b'x'; 4096], U)),
            errno::ENAMETOOLONG
        );
        assert_eq!(errno_of(fs.symlink(ROOT, b"empty", b"", U)), errno::ENOENT);
        assert_eq!(errno_of(fs.read(s.ino, 0, 10)), errno::EINVAL);
        let p = fs.mknod(ROOT, b"fifo", 0o010600, 0, U).unwrap();
        assert_eq!((p.kind, p.perm), (FileType::NamedPipe, 0o600));
        let c = fs.mknod(ROOT, b"null", 0o020666, 0x0103, U).unwrap();
        assert_eq!((c.kind, c.rdev), (FileType::CharDevice, 0x0103));
        let r = fs.mknod(ROOT, b"plain", 0o644, 0, U).unwrap();
        assert_eq!(r.kind, FileType::RegularFile);
        assert_eq!(
            errno_of(fs.mknod(ROOT, b"dir", 0o040755, 0, U)),
            errno::EINVAL
        );
        let kinds: Vec<FileType> = fs
            .readdir_all(ROOT)
            .unwrap()
            .into_iter()
            .skip(2)
            .map(|e| e.kind)
            .collect();
        assert_eq!(
            kinds,
            vec![
                FileType::Symlink,
                FileType::Symlink,
                FileType::NamedPipe,
                FileType::CharDevice,
                FileType::RegularFile
            ]
        );
        fs.unlink(ROOT, b"long").unwrap();
        fs.unlink(ROOT, b"null").unwrap();
    });
}

#[test]
fn setattr_truncate_extend_and_times() {
    each(|cfg, fs| {
        let f = create(fs, ROOT, "f");
        fs.write(f, 0, &pattern(1, 0, 30_000)).unwrap();
        let set = |size| SetAttr {
            size: Some(size),
            ..Default::default()
        };
        let a = fs.setattr(f, &set(5_000)).unwrap();
        assert_eq!((a.size, a.blocks), (5_000, 16));
        // Growing again shows zeros past the old end, not the old bytes.
        fs.setattr(f, &set(20_000)).unwrap();
        let data = read_all(fs, f);
        assert_eq!(&data[..5_000], &pattern(1, 0, 5_000)[..], "{cfg}");
        assert!(
            data[5_000..].iter().all(|&b| b == 0),
            "{cfg}: stale bytes after extend"
        );
        fs.setattr(f, &set(0)).unwrap();
        assert_eq!(fs.getattr(f).unwrap().blocks, 0);
        let a = fs
            .setattr(
                f,
                &SetAttr {
                    mode: Some(0o100600),
                    uid: Some(7),
                    gid: Some(8),
                    atime: Some(TimeSet::At(5)),
                    mtime: Some(TimeSet::At(-6)),
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(
            (a.perm, a.uid, a.gid, a.atime_ns, a.mtime_ns),
            (0o600, 7, 8, 5, -6)
        );
        assert_eq!(a.mode(), 0o100600);
        assert_eq!(errno_of(fs.setattr(ROOT, &set(0))), errno::EISDIR);
        let d = fs
            .setattr(
                ROOT,
                &SetAttr {
                    mode: Some(0o700),
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(d.perm, 0o700);
    });
}

#[test]
fn readdir_offsets_survive_changes() {
    each(|cfg, fs| {
        let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
        // Long names: about 19 entries per block, so 60 span four blocks.
        let name = |i: usize| format!("{i:03}-{}", "n".repeat(196));
        for i in 0..60 {
            create(fs, d, &name(i));
        }
        let mut seen = Vec::new();
        let mut off = 0;
        loop {
            let mut batch = Vec::new();
            fs.readdir(d, off, |e| {
                batch.push(e);
                batch.len() == 7
            })
            .unwrap();
            if batch.is_empty() {
                break;
            }
            off = batch.last().unwrap().next_offset;
            // Between batches, remove an entry already seen and one not yet
            // seen: nothing seen is repeated, nothing else is missed.
            let k = seen.len() / 7;
            if k < 4 {
                fs.unlink(d, name(k).as_bytes()).unwrap();
                fs.unlink(d, name(59 - k).as_bytes()).unwrap();
            }
            seen.extend(
                batch
                    .into_iter()
                    .map(|e| String::from_utf8(e.name).unwrap()),
            );
        }
        let mut expect = vec![".".to_string(), "..".to_string()];
        expect.extend((0..56).map(name));
        assert_eq!(seen, expect, "{cfg}");
    });
}

#[test]
fn large_file_crosses_indirect_and_double_indirect() {
    each(|cfg, fs| {
        let f = create(fs, ROOT, "big");
        // 4.5 MiB sequential in 1 MiB calls: direct, single and the start of
        // the double-indirect range (which begins at 1036 blocks).
        let total = 4_608 * 1024;
        let mut off = 0;
        while off < total {
            let n = (total - off).min(1 << 20);
            assert_eq!(
                fs.write(f, off as u64, &pattern(9, off as u64, n)).unwrap() as usize,
                n
            );
            off += n;
        }
        // A sparse write far into the double-indirect range.
        let far = 20 << 20;
        fs.write(f, far, b"far away").unwrap();
        assert_eq!(fs.read(f, 0, 16).unwrap(), pattern(9, 0, 16));
        let at = 1036 * 4096 - 10;
        assert_eq!(
            fs.read(f, at, 20).unwrap(),
            pattern(9, at, 20),
            "{cfg}: across the boundary"
        );
        assert_eq!(fs.read(f, far, 100).unwrap(), b"far away");
        assert!(fs
            .read(f, far - 5000, 5000)
            .unwrap()
            .iter()
            .all(|&b| b == 0));
        let st = fs.getattr(f).unwrap();
        assert_eq!(
            st.blocks,
            (1152 + 1 + 1 + 2 + 1) * 8,
            "data + ind + dind + 2 children + far block"
        );
        // Truncate into the single-indirect range frees the rest.
        fs.setattr(
            f,
            &SetAttr {
                size: Some(100 * 4096 + 1),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(fs.getattr(f).unwrap().blocks, (101 + 1) * 8);
        assert_eq!(
            fs.read(f, 100 * 4096 - 8, 100).unwrap(),
            pattern(9, 100 * 4096 - 8, 9)
        );
    });
}

#[test]
fn running_out_of_space() {
    for cfg in [CONFIGS[0], CONFIGS[2], CONFIGS[3]] {
        let mut fs = fresh(cfg);
        let f = create(&mut fs, ROOT, "fill");
        let chunk = vec![0xABu8; 1 << 20];
        let mut off = 0u64;
        loop {
            match fs.write(f, off, &chunk) {
                Ok(n) if n as usize == chunk.len() => off += u64::from(n),
                Ok(n) => {
                    off += u64::from(n);
                    break;
                }
                Err(e) => {
                    assert_eq!(e.errno(), errno::ENOSPC, "{cfg}: {e}");
                    break;
                }
            }
        }
        assert_eq!(fs.getattr(f).unwrap().size, off);
        assert_eq!(
            fs.statfs().unwrap().blocks_free,
            0,
            "{cfg}: a short write used every block"
        );
        assert_eq!(errno_of(fs.write(f, off, &chunk)), errno::ENOSPC);
        assert_clean(&mut fs);
        // Metadata operations that need no block still work; a new file
        // needs none until written.
        let g = create(&mut fs, ROOT, "g");
        assert_eq!(errno_of(fs.write(g, 0, b"x")), errno::ENOSPC, "{cfg}");
        fs.unlink(ROOT, b"fill").unwrap();
        fs.write(g, 0, &chunk).unwrap();
        let mut fs = remount(fs);
        assert_eq!(fs.read(g, 0, 4).unwrap(), vec![0xAB; 4]);
    }
}

#[test]
fn statfs_counts() {
    each(|_, fs| {
        let st = fs.statfs().unwrap();
        assert_eq!(st.blocks, u64::from(fs.superblock().data_blocks()));
        assert_eq!(st.blocks_free, st.blocks);
        assert_eq!((st.block_size, st.name_max), (4096, 255));
        let f = create(fs, ROOT, "f");
        let st1 = fs.statfs().unwrap();
        assert_eq!(
            st1.blocks_free,
            st.blocks_free - 1,
            "the root's first directory block"
        );
        assert_eq!(st1.files_free, st.files_free - 1);
        fs.write(f, 0, &[1u8; 4097]).unwrap();
        assert_eq!(fs.statfs().unwrap().blocks_free, st1.blocks_free - 2);
    });
}

#[test]
fn sectors_of_512_bytes() {
    use fs::MkfsOptions;
    use ftl::FormatOptions;
    for cfg in CONFIGS {
        let mut fs = fresh_on(
            cfg,
            small512(),
            &FormatOptions::default(),
            &MkfsOptions::default(),
        );
        let f = create(&mut fs, ROOT, "f");
        let data = pattern(3, 0, 20_000);
        assert_eq!(fs.write(f, 0, &data).unwrap(), 20_000, "{cfg}");
        fs.mkdir(ROOT, b"d", 0o755, U).unwrap();
        fs.symlink(ROOT, b"s", &[b't'; 3000], U).unwrap();
        fs.rename(ROOT, b"f", ROOT, b"d2", 0).unwrap();
        let mut fs = remount(fs);
        let f = fs.lookup(ROOT, b"d2").unwrap().ino;
        assert_eq!(read_all(&mut fs, f), data, "{cfg}");
        fs.setattr(
            f,
            &SetAttr {
                size: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        fs.unlink(ROOT, b"d2").unwrap();
        assert_clean(&mut fs);
    }
}

#[test]
fn held_inodes_outlive_their_last_link_until_forgotten() {
    each(|cfg, fs| {
        let f = create(fs, ROOT, "f");
        fs.write(f, 0, b"data").unwrap();
        fs.hold(f, 2).unwrap();
        fs.unlink(ROOT, b"f").unwrap();
        assert_eq!(fs.getattr(f).unwrap().nlink, 0, "{cfg}");
        fs.forget(f, 1).unwrap();
        assert_eq!(fs.read(f, 0, 10).unwrap(), b"data");
        fs.open(f).unwrap();
        fs.forget(f, 1).unwrap();
        assert!(fs.getattr(f).is_ok(), "still open");
        fs.release(f).unwrap();
        assert_eq!(errno_of(fs.getattr(f)), errno::ENOENT);
        // A new inode gets a new generation when it reuses the number.
        let g = fs.create(ROOT, b"g", REG, U).unwrap();
        fs.release(g.ino).unwrap();
        if g.ino == f {
            assert!(g.generation > 1);
        }
        fs.forget(12345, 1).unwrap();
        fs.forget(u64::MAX, 1).unwrap();
        assert_eq!(errno_of(fs.hold(999_999, 1)), errno::ENOENT);
        // Held but linked inodes are untouched by unmount.
        fs.hold(g.ino, 1).unwrap();
    });
}

/// `RENAME_EXCHANGE`: two names swap their inodes in one step; directories
/// that change parent get the new `..` and the parents' link counts follow.
#[test]
fn rename_exchange_swaps_files_and_directories() {
    each(|cfg, fs| {
        let a = fs.mkdir(ROOT, b"a", 0o755, U).unwrap().ino;
        let b = fs.mkdir(ROOT, b"b", 0o755, U).unwrap().ino;
        let x = create(fs, a, "x");
        fs.write(x, 0, b"xx").unwrap();
        let y = create(fs, b, "y");
        fs.write(y, 0, b"yyy").unwrap();
        // Two files in different directories.
        fs.rename(a, b"x", b, b"y", RENAME_EXCHANGE).unwrap();
        assert_eq!(fs.lookup(a, b"x").unwrap().ino, y, "{cfg}");
        assert_eq!(fs.lookup(b, b"y").unwrap().ino, x);
        assert_eq!(fs.read(y, 0, 9).unwrap(), b"yyy");
        // A directory and a file across parents: one link moves.
        let c = fs.mkdir(a, b"c", 0o755, U).unwrap().ino;
        assert_eq!(fs.getattr(a).unwrap().nlink, 3);
        assert_eq!(fs.getattr(b).unwrap().nlink, 2);
        fs.rename(a, b"c", b, b"y", RENAME_EXCHANGE).unwrap();
        assert_eq!(fs.lookup(b, b"y").unwrap().ino, c, "{cfg}");
        assert_eq!(fs.lookup(a, b"c").unwrap().ino, x);
        assert_eq!(fs.lookup(c, b"..").unwrap().ino, b, "the moved dir's `..`");
        assert_eq!(fs.getattr(a).unwrap().nlink, 2, "{cfg}");
        assert_eq!(fs.getattr(b).unwrap().nlink, 3, "{cfg}");
        // Two directories in one parent: nothing but the names moves.
        fs.rename(ROOT, b"a", ROOT, b"b", RENAME_EXCHANGE).unwrap();
        assert_eq!(fs.lookup(ROOT, b"a").unwrap().ino, b);
        assert_eq!(fs.lookup(ROOT, b"b").unwrap().ino, a);
        assert_eq!(fs.getattr(ROOT).unwrap().nlink, 4);
        // A directory cannot swap with something inside it; both names
        // must exist; a name with itself is a no-op.
        assert_eq!(
            errno_of(fs.rename(ROOT, b"a", b, b"y", RENAME_EXCHANGE)),
            errno::EINVAL,
            "{cfg}"
        );
        assert_eq!(
            errno_of(fs.rename(ROOT, b"a", ROOT, b"none", RENAME_EXCHANGE)),
            errno::ENOENT
        );
        assert_eq!(
            errno_of(fs.rename(ROOT, b"none", ROOT, b"a", RENAME_EXCHANGE)),
            errno::ENOENT
        );
        fs.rename(ROOT, b"a", ROOT, b"a", RENAME_EXCHANGE).unwrap();
        assert_eq!(fs.lookup(ROOT, b"a").unwrap().ino, b);
    });
}
