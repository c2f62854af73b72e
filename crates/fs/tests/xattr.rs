//! Extended attributes, POSIX ACLs and 96-bit times (format version 3) on
//! every (FTL, mode) pair the contract allows: each test ends with a clean
//! fsck and a remount that sees the same tree and attributes.

use crate::common;

use common::*;
use fs::xattr::{tag, Acl, AclEntry, XATTR_VALUE_MAX};
use fs::{
    errno, Fs, FsError, Owner, SetAttr, TimeSet, ACL_ACCESS, ACL_DEFAULT, ROOT_INO, XATTR_CREATE,
    XATTR_REPLACE,
};
use ftl::{BlockDevice, Lba};

const ROOT: u64 = ROOT_INO as u64;
const REG: u32 = 0o100644;
const U: Owner = Owner::new(1000, 100);

fn errno_of<T: std::fmt::Debug>(r: Result<T, FsError>) -> i32 {
    r.expect_err("expected an error").errno()
}

fn file(fs: &mut Fs<Dev>, name: &str) -> u64 {
    let a = fs.create(ROOT, name.as_bytes(), REG, U).unwrap();
    fs.release(a.ino).unwrap();
    a.ino
}

fn names(fs: &mut Fs<Dev>, ino: u64) -> Vec<String> {
    fs.listxattr(ino)
        .unwrap()
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8(n.to_vec()).unwrap())
        .collect()
}

fn acl(e: &[(u16, u16, u32)]) -> Vec<u8> {
    Acl::from_triples(e).encode()
}

/// An ACL granting user 2000 read and write, mask rw, group r.
fn rich_acl() -> Vec<u8> {
    acl(&[
        (tag::USER_OBJ, 6, 0),
        (tag::USER, 6, 2000),
        (tag::GROUP_OBJ, 4, 0),
        (tag::MASK, 6, 0),
        (tag::OTHER, 0, 0),
    ])
}

#[test]
fn attributes_are_set_listed_replaced_and_removed() {
    each(|cfg, fs| {
        let f = file(fs, "f");
        let free = fs.statfs().unwrap().blocks_free;
        assert_eq!(errno_of(fs.getxattr(f, b"user.a")), errno::ENODATA);
        assert!(fs.listxattr(f).unwrap().is_empty());
        fs.setxattr(f, b"user.a", b"one", 0).unwrap();
        fs.setxattr(f, b"trusted.t", &[0, 1, 2], 0).unwrap();
        fs.setxattr(f, b"security.s", b"", 0).unwrap();
        assert_eq!(
            fs.statfs().unwrap().blocks_free,
            free - 1,
            "{cfg}: one block"
        );
        assert_eq!(fs.getattr(f).unwrap().blocks, 8, "{cfg}: counted");
        assert_eq!(fs.getxattr(f, b"user.a").unwrap(), b"one");
        assert_eq!(fs.getxattr(f, b"security.s").unwrap(), b"");
        assert_eq!(names(fs, f), ["security.s", "trusted.t", "user.a"], "{cfg}");
        // Flags.
        assert_eq!(
            errno_of(fs.setxattr(f, b"user.a", b"x", XATTR_CREATE)),
            errno::EEXIST
        );
        assert_eq!(
            errno_of(fs.setxattr(f, b"user.b", b"x", XATTR_REPLACE)),
            errno::ENODATA
        );
        fs.setxattr(f, b"user.a", b"two!", XATTR_REPLACE).unwrap();
        assert_eq!(fs.getxattr(f, b"user.a").unwrap(), b"two!");
        assert_eq!(errno_of(fs.setxattr(f, b"user.a", b"x", 4)), errno::EINVAL);
        // Removal; the last one frees the block.
        assert_eq!(errno_of(fs.removexattr(f, b"user.zz")), errno::ENODATA);
        fs.removexattr(f, b"trusted.t").unwrap();
        fs.removexattr(f, b"security.s").unwrap();
        assert_eq!(names(fs, f), ["user.a"]);
        fs.removexattr(f, b"user.a").unwrap();
        assert_eq!(fs.statfs().unwrap().blocks_free, free, "{cfg}: block freed");
        assert_eq!(fs.getattr(f).unwrap().blocks, 0);
        // Attributes on a directory survive the remount `each` does.
        let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
        fs.setxattr(d, b"user.kept", b"across remount", 0).unwrap();
    });
}

#[test]
fn bad_names_values_and_targets_get_their_errno() {
    each(|_, fs| {
        let f = file(fs, "f");
        let s = fs.symlink(ROOT, b"s", b"f", U).unwrap().ino;
        for (name, e) in [
            (&b"other.x"[..], errno::EOPNOTSUPP),
            (b"system.foo", errno::EOPNOTSUPP),
            (b"user.", errno::EINVAL),
            (b"", errno::ERANGE),
        ] {
            assert_eq!(errno_of(fs.setxattr(f, name, b"v", 0)), e, "{name:?}");
            assert_eq!(errno_of(fs.getxattr(f, name)), e, "{name:?}");
        }
        let long = [b'u'; 256];
        let mut name = b"user.".to_vec();
        name.extend_from_slice(&long[..250]);
        fs.setxattr(f, &name, b"", 0).unwrap();
        name.push(b'x');
        assert_eq!(errno_of(fs.setxattr(f, &name, b"", 0)), errno::ERANGE);
        assert_eq!(
            errno_of(fs.setxattr(f, b"user.big", &vec![1; 65_537], 0)),
            errno::E2BIG
        );
        // One block for all: a value that fits alone does not fit with
        // the others, and the failed call changes nothing.
        fs.removexattr(f, &name[..name.len() - 1]).unwrap();
        fs.setxattr(f, b"user.a", &vec![7; 2000], 0).unwrap();
        assert_eq!(
            errno_of(fs.setxattr(f, b"user.b", &vec![8; 2100], 0)),
            errno::ENOSPC
        );
        assert_eq!(
            errno_of(fs.setxattr(f, b"user.a", &vec![8; XATTR_VALUE_MAX], 0)),
            errno::ENOSPC
        );
        assert_eq!(fs.getxattr(f, b"user.a").unwrap(), vec![7; 2000]);
        fs.removexattr(f, b"user.a").unwrap();
        fs.setxattr(f, b"user.a", &vec![9; XATTR_VALUE_MAX - 5], 0)
            .unwrap();
        // user. attributes only on files and directories; ACLs not on
        // symlinks; default ACLs only on directories.
        assert_eq!(errno_of(fs.setxattr(s, b"user.x", b"", 0)), errno::EPERM);
        fs.setxattr(s, b"trusted.x", b"ok", 0).unwrap();
        assert_eq!(
            errno_of(fs.setxattr(s, ACL_ACCESS, &rich_acl(), 0)),
            errno::EOPNOTSUPP
        );
        assert_eq!(
            errno_of(fs.setxattr(f, ACL_DEFAULT, &rich_acl(), 0)),
            errno::EACCES
        );
        assert_eq!(
            errno_of(fs.setxattr(f, ACL_ACCESS, &rich_acl()[..10], 0)),
            errno::EINVAL
        );
        assert_eq!(errno_of(fs.getxattr(999, b"user.a")), errno::ENOENT);
    });
}

#[test]
fn an_access_acl_sets_the_mode_and_chmod_rewrites_it() {
    each(|cfg, fs| {
        let f = file(fs, "f");
        fs.setxattr(f, ACL_ACCESS, &rich_acl(), 0).unwrap();
        assert_eq!(fs.getattr(f).unwrap().perm, 0o660, "{cfg}");
        assert_eq!(fs.getxattr(f, ACL_ACCESS).unwrap(), rich_acl());
        // chmod: owner, mask and other follow; the named entry and the
        // owning group stay.
        fs.setattr(
            f,
            &SetAttr {
                mode: Some(0o750),
                ..SetAttr::default()
            },
        )
        .unwrap();
        let a = Acl::decode(&fs.getxattr(f, ACL_ACCESS).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(a.mode_bits(), 0o750, "{cfg}");
        assert!(a.0.contains(&AclEntry {
            tag: tag::USER,
            perm: 6,
            id: 2000
        }));
        assert!(a.0.iter().any(|e| e.tag == tag::GROUP_OBJ && e.perm == 4));
        // An ACL the mode says all of is not stored, but sets the mode.
        let g = file(fs, "g");
        fs.setxattr(
            g,
            ACL_ACCESS,
            &acl(&[
                (tag::USER_OBJ, 7, 0),
                (tag::GROUP_OBJ, 1, 0),
                (tag::OTHER, 4, 0),
            ]),
            0,
        )
        .unwrap();
        assert_eq!(fs.getattr(g).unwrap().perm, 0o714);
        assert_eq!(errno_of(fs.getxattr(g, ACL_ACCESS)), errno::ENODATA);
        assert_eq!(fs.getattr(g).unwrap().blocks, 0);
    });
}

#[test]
fn new_inodes_inherit_the_default_acl_or_lose_the_umask() {
    each(|cfg, fs| {
        let umasked = Owner { umask: 0o027, ..U };
        let d = fs.mkdir(ROOT, b"d", 0o777, umasked).unwrap().ino;
        assert_eq!(fs.getattr(d).unwrap().perm, 0o750, "{cfg}: umask");
        fs.setxattr(d, ACL_DEFAULT, &rich_acl(), 0).unwrap();
        // A file: the ACL masked by the mode it asked for, no umask.
        let f = fs.create(d, b"f", 0o100640, umasked).unwrap().ino;
        fs.release(f).unwrap();
        assert_eq!(fs.getattr(f).unwrap().perm, 0o640, "{cfg}");
        let a = Acl::decode(&fs.getxattr(f, ACL_ACCESS).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(a.mode_bits(), 0o640);
        assert_eq!(errno_of(fs.getxattr(f, ACL_DEFAULT)), errno::ENODATA);
        // A directory also inherits the default ACL, and passes it on.
        let sub = fs.mkdir(d, b"sub", 0o755, umasked).unwrap().ino;
        assert_eq!(fs.getxattr(sub, ACL_DEFAULT).unwrap(), rich_acl());
        // rw- (mask rw-) ---, masked by rwxr-xr-x.
        assert_eq!(fs.getattr(sub).unwrap().perm, 0o640);
        let deep = fs.mknod(sub, b"fifo", 0o010666, 0, umasked).unwrap().ino;
        assert_eq!(fs.getattr(deep).unwrap().perm, 0o660);
        assert!(fs.getxattr(deep, ACL_ACCESS).is_ok());
        // Symlinks take neither.
        let s = fs.symlink(d, b"s", b"f", umasked).unwrap().ino;
        assert_eq!(fs.getattr(s).unwrap().perm, 0o777);
        assert!(fs.listxattr(s).unwrap().is_empty());
        // Removing the default ACL: the umask applies again.
        fs.removexattr(d, ACL_DEFAULT).unwrap();
        let g = fs.create(d, b"g", 0o100666, umasked).unwrap().ino;
        fs.release(g).unwrap();
        assert_eq!(fs.getattr(g).unwrap().perm, 0o640);
        assert!(fs.listxattr(g).unwrap().is_empty());
    });
}

#[test]
fn freeing_an_inode_frees_its_attribute_block() {
    each(|cfg, fs| {
        // The root's first directory block comes with the first entry.
        file(fs, "first");
        let free = fs.statfs().unwrap().blocks_free;
        let f = file(fs, "f");
        fs.setxattr(f, b"user.a", b"x", 0).unwrap();
        fs.write(f, 0, b"data").unwrap();
        let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
        fs.setxattr(d, ACL_DEFAULT, &rich_acl(), 0).unwrap();
        assert_eq!(fs.statfs().unwrap().blocks_free, free - 3, "{cfg}");
        fs.unlink(ROOT, b"f").unwrap();
        fs.rmdir(ROOT, b"d").unwrap();
        assert_eq!(fs.statfs().unwrap().blocks_free, free, "{cfg}");
        // An open, unlinked file keeps its attributes until the release.
        let g = fs.create(ROOT, b"g", REG, U).unwrap().ino;
        fs.setxattr(g, b"user.open", b"1", 0).unwrap();
        fs.unlink(ROOT, b"g").unwrap();
        assert_eq!(fs.getxattr(g, b"user.open").unwrap(), b"1");
        fs.release(g).unwrap();
        assert_eq!(fs.statfs().unwrap().blocks_free, free, "{cfg}");
    });
}

#[test]
fn times_past_2262_round_trip() {
    // 2262-04-11T23:47:16.854775808Z is one nanosecond past i64; the
    // year 9999 and the year 1 are ordinary `touch -d` dates.
    let times: [i128; 4] = [
        i128::from(i64::MAX) + 1,
        253_402_300_799_999_999_999,
        -62_135_596_800_000_000_000,
        i128::from(i64::MIN) - 5,
    ];
    each(|cfg, fs| {
        let f = file(fs, "f");
        for (k, &t) in times.iter().enumerate() {
            let a = fs
                .setattr(
                    f,
                    &SetAttr {
                        atime: Some(TimeSet::At(t)),
                        mtime: Some(TimeSet::At(t - 1)),
                        ctime: Some(t + 1),
                        ..SetAttr::default()
                    },
                )
                .unwrap();
            assert_eq!(
                (a.atime_ns, a.mtime_ns, a.ctime_ns),
                (t, t - 1, t + 1),
                "{cfg}"
            );
            let g = file(fs, &format!("g{k}"));
            fs.setattr(
                g,
                &SetAttr {
                    mtime: Some(TimeSet::At(t)),
                    ..SetAttr::default()
                },
            )
            .unwrap();
        }
        let last = *times.last().unwrap();
        assert_eq!(fs.getattr(f).unwrap().mtime_ns, last - 1);
        // SystemTime carries them to FUSE exactly.
        let st = fs.getattr(f).unwrap().atime();
        assert_eq!(fs::system_time_ns(st), last, "{cfg}");
    });
    // After a remount too.
    let mut fs = fresh(CONFIGS[0]);
    let f = file(&mut fs, "f");
    fs.setattr(
        f,
        &SetAttr {
            mtime: Some(TimeSet::At(times[1])),
            ..SetAttr::default()
        },
    )
    .unwrap();
    let mut fs = remount(fs);
    assert_eq!(fs.getattr(f).unwrap().mtime_ns, times[1]);
}

/// Rewrites `dev`'s superblock as version 2, as a version-2 build wrote it
/// (its inodes have zeros where version 3 keeps the xattr pointer and the
/// times' high words).
fn make_version_2(dev: &mut Dev) {
    let ss = dev.sector_size();
    let mut b = vec![0u8; fs::BLOCK_SIZE];
    dev.read(Lba(0), &mut b).unwrap();
    let mut sb = fs::Superblock::decode(&b).unwrap();
    sb.version = 2;
    let enc = sb.encode();
    dev.write(Lba(0), &enc[..fs::layout::SB_LEN.next_multiple_of(ss)])
        .unwrap();
    dev.flush().unwrap();
}

#[test]
fn version_2_images_refuse_attributes_and_far_times_until_upgraded() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let f = file(&mut fs, "f");
        fs.write(f, 0, b"v2").unwrap();
        let mut dev = fs.unmount().unwrap();
        make_version_2(&mut dev);
        let mut fs = Fs::mount(dev, opts(cfg.mode)).unwrap();
        assert_eq!(fs.superblock().version, 2);
        assert_eq!(
            errno_of(fs.setxattr(f, b"user.a", b"x", 0)),
            errno::EOPNOTSUPP,
            "{cfg}"
        );
        assert!(fs.listxattr(f).unwrap().is_empty());
        assert_eq!(errno_of(fs.getxattr(f, b"user.a")), errno::ENODATA);
        let far = SetAttr {
            mtime: Some(TimeSet::At(i128::from(i64::MAX) + 1)),
            ..SetAttr::default()
        };
        let before = fs.getattr(f).unwrap();
        assert_eq!(errno_of(fs.setattr(f, &far)), errno::EOVERFLOW, "{cfg}");
        assert_eq!(fs.getattr(f).unwrap(), before, "{cfg}: nothing changed");
        // A default ACL cannot be set, so creates keep the umask path.
        let umasked = Owner { umask: 0o022, ..U };
        let d = fs.mkdir(ROOT, b"d", 0o777, umasked).unwrap().ino;
        assert_eq!(fs.getattr(d).unwrap().perm, 0o755);
        assert_clean(&mut fs);
        assert!(fs.upgrade().unwrap());
        assert_eq!(fs.superblock().version, fs::FS_VERSION);
        fs.setxattr(f, b"user.a", b"x", 0).unwrap();
        fs.setattr(f, &far).unwrap();
        assert_clean(&mut fs);
        let mut fs = remount(fs);
        assert_eq!(fs.getxattr(f, b"user.a").unwrap(), b"x", "{cfg}");
        assert_eq!(fs.getattr(f).unwrap().mtime_ns, i128::from(i64::MAX) + 1);
        assert_eq!(fs.read(f, 0, 2).unwrap(), b"v2");
    }
}

#[test]
fn a_crash_after_a_setxattr_keeps_it_or_the_state_before() {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let f = file(&mut fs, "f");
        fs.setxattr(f, b"user.a", b"1", 0).unwrap();
        fs.sync().unwrap();
        fs.setxattr(f, b"user.b", b"2", 0).unwrap();
        fs.fsync(f, false).unwrap();
        fs.removexattr(f, b"user.a").unwrap();
        let mut fs = crash_remount(fs);
        let got = names(&mut fs, f);
        // fsync made user.b durable; the removal may or may not be.
        assert!(
            got == ["user.b"] || got == ["user.a", "user.b"],
            "{cfg}: {got:?}"
        );
        assert_clean(&mut fs);
    }
}

#[test]
fn fsck_reports_a_damaged_attribute_block_and_repair_keeps_it() {
    let mut fs = fresh(CONFIGS[0]);
    let f = file(&mut fs, "f");
    fs.setxattr(f, b"user.a", b"value", 0).unwrap();
    let d = fs.mkdir(ROOT, b"d", 0o755, U).unwrap().ino;
    fs.setxattr(d, ACL_DEFAULT, &rich_acl(), 0).unwrap();
    let mut dev = fs.unmount().unwrap();
    let rep = fs::fsck(&mut dev).unwrap();
    assert!(rep.is_clean(), "{rep}");
    // Find f's xattr block by its value and flip a byte of it.
    let ss = dev.sector_size() as u64;
    let spb = fs::BLOCK_SIZE as u64 / ss;
    let mut hit = None;
    let mut b = vec![0u8; fs::BLOCK_SIZE];
    for blk in 0..dev.num_sectors() / spb {
        dev.read(Lba(blk * spb), &mut b).unwrap();
        if &b[..4] == b"SXA1" && b.windows(5).any(|w| w == b"value") {
            hit = Some(blk);
            break;
        }
    }
    let blk = hit.expect("the xattr block is on the device");
    let at = b.windows(5).position(|w| w == b"value").unwrap();
    b[at] ^= 1;
    dev.write(Lba(blk * spb), &b).unwrap();
    dev.flush().unwrap();
    let rep = fs::fsck(&mut dev).unwrap();
    let kinds: Vec<_> = rep.problems.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [fs::ProblemKind::Xattr], "{rep}");
    assert!(rep.problems[0].message.contains("CRC"), "{rep}");
    // Repair leaves the block (it cannot tell which byte is right) and
    // does not hand it to the free pool.
    let r = fs::repair(&mut dev).unwrap();
    assert!(r.changes.is_empty(), "{r}");
    let mut fs = Fs::mount(dev, opts(CONFIGS[0].mode)).unwrap();
    assert_eq!(errno_of(fs.getxattr(f, b"user.a")), errno::EIO);
    assert_eq!(fs.getxattr(d, ACL_DEFAULT).unwrap(), rich_acl());
}
