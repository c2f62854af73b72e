//! Helpers shared by the file-system tests (included with `mod common;`):
//! devices of every FTL over `MemFlash`, the five (FTL, mode) pairs the
//! contract allows, mount/remount/crash helpers, and a snapshot of a whole
//! tree for comparisons.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use flash::{Flash, Geometry, MemFlash};
use fs::{mkfs, CommitMode, FileType, FixedClock, Fs, MkfsOptions, MountOptions, ROOT_INO};
use ftl::{AnyFtl, BlockDevice, FormatOptions, FtlKind};

pub type Dev<F = MemFlash> = AnyFtl<F>;

/// One (FTL, commit mode) pair the contract allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub kind: FtlKind,
    pub mode: CommitMode,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.kind, self.mode)
    }
}

/// scftl with every mode, async and sync with the log.
pub const CONFIGS: [Config; 5] = [
    Config {
        kind: FtlKind::Scftl,
        mode: CommitMode::Log,
    },
    Config {
        kind: FtlKind::Scftl,
        mode: CommitMode::Xlog,
    },
    Config {
        kind: FtlKind::Scftl,
        mode: CommitMode::Group,
    },
    Config {
        kind: FtlKind::Async,
        mode: CommitMode::Log,
    },
    Config {
        kind: FtlKind::Sync,
        mode: CommitMode::Log,
    },
];

pub fn opts(mode: CommitMode) -> MountOptions {
    let mut o = MountOptions::new(mode);
    o.clock = Arc::new(FixedClock(1_700_000_000_000_000_000));
    o
}

/// A freshly formatted FTL of `kind` on `flash`.
pub fn device<F: Flash>(flash: F, kind: FtlKind, fo: &FormatOptions) -> Dev<F> {
    AnyFtl::format(flash, kind, fo).unwrap()
}

/// A device with 512-byte sectors (2 MiB raw, about 1 MiB logical). The
/// `tiny` preset has them too, but its 36 KiB of logical space cannot hold
/// a file system (which needs 16 blocks of 4 KiB).
pub fn small512() -> Geometry {
    Geometry {
        channels: 1,
        dies_per_channel: 2,
        blocks_per_die: 32,
        pages_per_block: 32,
        sectors_per_page: 2,
        sector_size: 512,
        oob_size: 32,
    }
}

/// mkfs + mount on a fresh `small` device.
pub fn fresh(cfg: Config) -> Fs<Dev> {
    fresh_on(
        cfg,
        Geometry::small(),
        &FormatOptions::default(),
        &MkfsOptions::default(),
    )
}

pub fn fresh_on(cfg: Config, g: Geometry, fo: &FormatOptions, mo: &MkfsOptions) -> Fs<Dev> {
    let mut dev = device(MemFlash::new(g).unwrap(), cfg.kind, fo);
    mkfs(&mut dev, mo).unwrap();
    Fs::mount(dev, opts(cfg.mode)).unwrap()
}

/// Runs `body` on a fresh file system of every configuration, then checks
/// that a remount shows the same tree and fsck is clean.
pub fn each(body: impl Fn(Config, &mut Fs<Dev>)) {
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        body(cfg, &mut fs);
        assert_clean(&mut fs);
        let before = snapshot(&mut fs);
        let mut fs = remount(fs);
        assert_eq!(
            snapshot(&mut fs),
            before,
            "{cfg}: tree changed across remount"
        );
    }
}

/// Clean unmount and mount again, checking fsck is clean in between.
pub fn remount<F: Flash>(fs: Fs<Dev<F>>) -> Fs<Dev<F>> {
    let mode = fs.mode();
    let mut dev = fs.unmount().unwrap();
    let rep = fs::fsck(&mut dev).unwrap();
    assert!(rep.is_clean(), "fsck after unmount:\n{rep}");
    assert!(
        rep.orphans.is_empty(),
        "orphans after unmount: {:?}",
        rep.orphans
    );
    Fs::mount(dev, opts(mode)).unwrap()
}

/// Drops the file system without unmounting, reopens the FTL (which
/// recovers as after a power cut in which every command completed) and
/// mounts again.
pub fn crash_remount(fs: Fs<Dev>) -> Fs<Dev> {
    let mode = fs.mode();
    let flash = fs.into_device().into_flash();
    let dev = AnyFtl::open(flash).unwrap();
    Fs::mount(dev, opts(mode)).unwrap()
}

pub fn assert_clean<D: BlockDevice>(fs: &mut Fs<D>) {
    let rep = fs.fsck().unwrap();
    assert!(rep.is_clean(), "fsck:\n{rep}");
}

/// A node of a whole-tree snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Dir,
    File(Vec<u8>),
    Symlink(Vec<u8>),
    Other(FileType),
    /// The extended attributes of the path before it (key `PATH
    /// (xattrs)`), and its permission bits (ACLs change them).
    Xattrs(u16, Vec<(Vec<u8>, Vec<u8>)>),
}

/// Every path of the tree (relative, `/`-joined) with its content.
pub type Snapshot = BTreeMap<String, Node>;

pub fn snapshot<D: BlockDevice>(fs: &mut Fs<D>) -> Snapshot {
    let mut out = BTreeMap::new();
    walk(fs, u64::from(ROOT_INO), String::new(), &mut out);
    out
}

fn walk<D: BlockDevice>(fs: &mut Fs<D>, dir: u64, prefix: String, out: &mut Snapshot) {
    for e in fs.readdir_all(dir).unwrap() {
        if e.name == b"." || e.name == b".." {
            continue;
        }
        let path = format!("{prefix}{}", String::from_utf8_lossy(&e.name));
        let a = fs.getattr(e.ino).unwrap();
        assert_eq!(a.kind, e.kind, "{path}: entry type vs inode");
        let names = fs.listxattr(e.ino).unwrap();
        if !names.is_empty() {
            let xattrs = names
                .split(|&b| b == 0)
                .filter(|n| !n.is_empty())
                .map(|n| (n.to_vec(), fs.getxattr(e.ino, n).unwrap()))
                .collect();
            out.insert(format!("{path} (xattrs)"), Node::Xattrs(a.perm, xattrs));
        }
        match a.kind {
            FileType::Directory => {
                out.insert(path.clone(), Node::Dir);
                walk(fs, e.ino, format!("{path}/"), out);
            }
            FileType::RegularFile => {
                let data = read_all(fs, e.ino);
                assert_eq!(data.len() as u64, a.size);
                out.insert(path, Node::File(data));
            }
            FileType::Symlink => {
                out.insert(path, Node::Symlink(fs.readlink(e.ino).unwrap()));
            }
            k => {
                out.insert(path, Node::Other(k));
            }
        }
    }
}

pub fn read_all<D: BlockDevice>(fs: &mut Fs<D>, ino: u64) -> Vec<u8> {
    let size = fs.getattr(ino).unwrap().size;
    let mut out = Vec::new();
    while (out.len() as u64) < size {
        let chunk = fs.read(ino, out.len() as u64, 1 << 20).unwrap();
        assert!(!chunk.is_empty());
        out.extend_from_slice(&chunk);
    }
    out
}

/// Deterministic bytes for (seed, offset).
pub fn pattern(seed: u64, offset: u64, len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| {
            let x = (offset + i).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ seed.wrapping_mul(0xD6E8_FEB8_6659_FD93);
            (x >> 56) as u8 | 1
        })
        .collect()
}
