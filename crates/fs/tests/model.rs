//! A seeded model test: random sequences of create, write (small, large,
//! across the indirect and double-indirect boundaries, sparse, through a
//! path or an open handle), truncate, rename (over files and empty
//! directories), unlink (also of open files), link, symlink, mkdir, rmdir,
//! open/release, setxattr/removexattr and fsync run against the reference model of the file
//! system (`fs::model`, the one the crash checker uses too), comparing
//! every result (value or errno); the whole tree is compared periodically
//! and after each unmount + mount, with fsck clean each time. One u64 seed
//! per configuration drives everything; a failure names the seed, the
//! configuration and the operation number.

use crate::common;

use std::collections::BTreeMap;

use common::*;
use flash::{Geometry, MemFlash};
use fs::model::{first_difference, observe, Model, Path, Target};
use fs::{
    errno, mkfs, CommitMode, Fs, MkfsOptions, Owner, SetAttr, FALLOC_FL_KEEP_SIZE,
    FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE, RENAME_EXCHANGE, ROOT_INO,
};
use ftl::{BlockDevice, FormatOptions, FtlKind};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const ROOT: u64 = ROOT_INO as u64;
const U: Owner = Owner::new(5, 6);

type R<T> = Result<T, i32>;

fn code<T>(r: fs::Result<T>) -> R<T> {
    r.map_err(|e| {
        assert!(
            !matches!(e.errno(), errno::EIO),
            "unexpected I/O-class error: {e}"
        );
        e.errno()
    })
}

fn name(rng: &mut Pcg64) -> Vec<u8> {
    let n = rng.gen_range(0..10u8);
    if rng.gen_ratio(1, 20) {
        // Long names fill directory blocks quickly.
        let mut v = vec![b'a' + n; 240];
        v[0] = b'L';
        v
    } else {
        vec![b'a' + n]
    }
}

/// Mostly the name of an entry of directory `d` (a directory entry when
/// `dir` is `Some(true)`, any other when `Some(false)`, any when `None`),
/// else `n`.
fn existing(rng: &mut Pcg64, m: &Model, d: &[Vec<u8>], n: Vec<u8>, dir: Option<bool>) -> Vec<u8> {
    let names: Vec<Vec<u8>> = m
        .children(d)
        .into_iter()
        .filter(|(_, is_dir)| dir.map_or(true, |want| *is_dir == want))
        .map(|(name, _)| name)
        .collect();
    if names.is_empty() || rng.gen_ratio(1, 5) {
        n
    } else {
        names[rng.gen_range(0..names.len())].clone()
    }
}

/// `d/n`.
fn join(d: &[Vec<u8>], n: &[u8]) -> Path {
    let mut p = d.to_vec();
    p.push(n.to_vec());
    p
}

/// The inode a path of the model names on the file system.
fn ino_of<D: BlockDevice>(fs: &mut Fs<D>, p: &[Vec<u8>]) -> u64 {
    let mut ino = ROOT;
    for c in p {
        ino = fs
            .lookup(ino, c)
            .unwrap_or_else(|e| panic!("lookup of {:?} in {p:?}: {e}", String::from_utf8_lossy(c)))
            .ino;
    }
    ino
}

/// The whole tree of `fs` equals the model's.
fn assert_same_tree<D: BlockDevice>(fs: &mut Fs<D>, m: &mut Model, at: &str) {
    let got = observe(fs).unwrap_or_else(|e| panic!("{at}: {e}"));
    let want = m.state();
    if let Some(d) = first_difference(&want, &got) {
        panic!("{at}: the tree differs from the model: {d}");
    }
}

/// Offsets that cross the interesting boundaries of the block map.
fn offset(rng: &mut Pcg64, size: usize) -> u64 {
    match rng.gen_range(0..20) {
        0 => 12 * 4096 - rng.gen_range(0..3000),
        1 => 1036 * 4096 - rng.gen_range(0..3000),
        2 => (1036 + 1024) * 4096 - rng.gen_range(0..3000),
        3..=12 => rng.gen_range(0..=size as u64),
        _ => rng.gen_range(0..20_000),
    }
}

/// How often each kind of operation succeeded or failed (printed, and
/// checked so the test cannot quietly stop covering something).
#[derive(Default, Debug)]
struct Tally(BTreeMap<&'static str, u32>);

impl Tally {
    fn add<T, E>(&mut self, what: &'static str, r: &Result<T, E>) {
        let key = match (what, r.is_ok()) {
            (w, true) => w,
            ("rename", false) => "rename error",
            ("create", false) => "create error",
            (_, false) => "other error",
        };
        *self.0.entry(key).or_default() += 1;
    }
}

fn run(label: &str, seed: u64, ops: usize, mut fs: Fs<Dev>) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut m = Model::new();
    // The model's open handles and the inode each holds on the file system.
    let mut handles: BTreeMap<u32, u64> = BTreeMap::new();
    let mut next_handle = 0u32;
    let mut tally = Tally::default();
    for step in 0..ops {
        let at = format!("{label} seed {seed} op {step}");
        let dirs = m.dirs();
        let d = dirs[rng.gen_range(0..dirs.len())].clone();
        let n = name(&mut rng);
        match rng.gen_range(0..100) {
            0..=11 => {
                let dino = ino_of(&mut fs, &d);
                let got = code(fs.create(dino, &n, 0o100644, U));
                if got.as_ref().err() == Some(&errno::ENOSPC) {
                    continue;
                }
                tally.add("create", &got);
                let want = m.create(&join(&d, &n), next_handle);
                assert_eq!(
                    got.as_ref().map(|_| ()).map_err(|e| *e),
                    want,
                    "{at}: create"
                );
                if let Ok(a) = got {
                    // A created file is left open, as `creat` leaves it.
                    handles.insert(next_handle, a.ino);
                    next_handle += 1;
                }
            }
            30..=33 => {
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let (p, size) = files[rng.gen_range(0..files.len())].clone();
                let ino = ino_of(&mut fs, &p);
                let (mode, key) = match rng.gen_range(0..5) {
                    0 => (0, "fallocate"),
                    1 => (FALLOC_FL_KEEP_SIZE, "fallocate keep size"),
                    2 => (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "punch hole"),
                    3 => (FALLOC_FL_ZERO_RANGE, "zero range"),
                    _ => (
                        FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
                        "zero range keep size",
                    ),
                };
                let off = offset(&mut rng, size as usize);
                let len = rng.gen_range(1..40_000);
                let t = Target::Path(p);
                match code(fs.fallocate(ino, off, len, mode)) {
                    // Refused up front, nothing changed.
                    Err(errno::ENOSPC) => continue,
                    got => assert_eq!(got, m.fallocate(&t, mode, off, len), "{at}: {key}"),
                }
                *tally.0.entry(key).or_default() += 1;
            }
            12..=29 => {
                let files = m.files();
                let by_handle = !handles.is_empty() && rng.gen_ratio(1, 4);
                if files.is_empty() && !by_handle {
                    continue;
                }
                let (target, ino, size) = if by_handle {
                    let hs: Vec<u32> = handles.keys().copied().collect();
                    let h = hs[rng.gen_range(0..hs.len())];
                    let t = Target::Handle(h);
                    let size = m.size(&t).expect("an open handle holds a file");
                    (t, handles[&h], size)
                } else {
                    let (p, size) = files[rng.gen_range(0..files.len())].clone();
                    let ino = ino_of(&mut fs, &p);
                    (Target::Path(p), ino, size)
                };
                let len = match rng.gen_range(0..10) {
                    0 => rng.gen_range(20_000..300_000),
                    1..=3 => rng.gen_range(1..5),
                    _ => rng.gen_range(1..12_000),
                };
                let off = if rng.gen_ratio(1, 40) {
                    5 << 20
                } else {
                    offset(&mut rng, size as usize)
                };
                let bytes = pattern(rng.gen(), off, len);
                // Out of space, a write stops short; the model follows.
                let len = match code(fs.write(ino, off, &bytes)) {
                    Ok(n) => n as usize,
                    Err(errno::ENOSPC) => 0,
                    Err(e) => panic!("{at}: write: errno {e}"),
                };
                if len == 0 {
                    continue;
                }
                let key = if len >= 20_000 {
                    "large write"
                } else if off >= 1036 * 4096 {
                    "double-indirect write"
                } else if by_handle {
                    "write by handle"
                } else {
                    "write"
                };
                *tally.0.entry(key).or_default() += 1;
                assert_eq!(m.write(&target, off, &bytes[..len]), Ok(()), "{at}: write");
            }
            34..=41 => {
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let (p, old) = files[rng.gen_range(0..files.len())].clone();
                let size = if rng.gen_ratio(1, 3) {
                    0
                } else {
                    offset(&mut rng, old as usize)
                };
                let ino = ino_of(&mut fs, &p);
                let a = code(fs.setattr(
                    ino,
                    &SetAttr {
                        size: Some(size),
                        ..Default::default()
                    },
                ))
                .unwrap();
                *tally.0.entry("truncate").or_default() += 1;
                assert_eq!(a.size, size, "{at}: truncate");
                assert_eq!(m.truncate(&p, size), Ok(()), "{at}: truncate");
            }
            42..=53 => {
                let dirs = m.dirs();
                let dp = dirs[rng.gen_range(0..dirs.len())].clone();
                let sn = match m
                    .children(&d)
                    .into_iter()
                    .nth(rng.gen_range(0..m.children(&d).len().max(1)))
                {
                    Some((k, _)) if rng.gen_ratio(9, 10) => k,
                    _ => n.clone(),
                };
                let dn = match m.children(&dp).into_iter().next() {
                    Some((k, _)) if rng.gen_ratio(1, 3) => k,
                    _ => name(&mut rng),
                };
                let (sino, dino) = (ino_of(&mut fs, &d), ino_of(&mut fs, &dp));
                if rng.gen_ratio(1, 4) {
                    let got = code(fs.rename(sino, &sn, dino, &dn, RENAME_EXCHANGE));
                    let want = m.exchange(&join(&d, &sn), &join(&dp, &dn));
                    tally.add("rename exchange", &want);
                    assert_eq!(got, want, "{at}: exchange {sn:?} <-> {dn:?}");
                    continue;
                }
                let got = code(fs.rename(sino, &sn, dino, &dn, 0));
                if got == Err(errno::ENOSPC) {
                    continue;
                }
                // The model checks everything before it changes anything.
                let over = m.exists(&join(&dp, &dn));
                let want = m.rename(&join(&d, &sn), &join(&dp, &dn));
                tally.add(if over { "rename over" } else { "rename" }, &want);
                assert_eq!(got, want, "{at}: rename {sn:?} -> {dn:?}");
            }
            54..=61 => {
                let n = existing(&mut rng, &m, &d, n, None);
                let dino = ino_of(&mut fs, &d);
                let want = m.unlink(&join(&d, &n));
                assert_eq!(code(fs.unlink(dino, &n)), want, "{at}: unlink");
                tally.add("unlink", &want);
            }
            62..=67 => {
                let dino = ino_of(&mut fs, &d);
                let got = code(fs.mkdir(dino, &n, 0o755, U));
                if got.as_ref().err() == Some(&errno::ENOSPC) {
                    continue;
                }
                let want = m.mkdir(&join(&d, &n));
                assert_eq!(
                    got.as_ref().map(|_| ()).map_err(|e| *e),
                    want,
                    "{at}: mkdir"
                );
            }
            68..=73 => {
                let n = existing(&mut rng, &m, &d, n, Some(true));
                let dino = ino_of(&mut fs, &d);
                let want = m.rmdir(&join(&d, &n));
                assert_eq!(code(fs.rmdir(dino, &n)), want, "{at}: rmdir");
                tally.add("rmdir", &want);
            }
            74..=78 => {
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let (f, _) = files[rng.gen_range(0..files.len())].clone();
                let (fino, dino) = (ino_of(&mut fs, &f), ino_of(&mut fs, &d));
                let got = code(fs.link(fino, dino, &n)).map(|_| ());
                if got == Err(errno::ENOSPC) {
                    continue;
                }
                let want = m.link(&f, &join(&d, &n));
                tally.add("link", &want);
                assert_eq!(got, want, "{at}: link");
            }
            79..=81 => {
                let target = pattern(rng.gen(), 0, rng.gen_range(1..300));
                let dino = ino_of(&mut fs, &d);
                let got = code(fs.symlink(dino, &n, &target, U));
                if got.as_ref().err() == Some(&errno::ENOSPC) {
                    continue;
                }
                let want = m.symlink(&join(&d, &n), &target);
                assert_eq!(
                    got.as_ref().map(|_| ()).map_err(|e| *e),
                    want,
                    "{at}: symlink"
                );
            }
            85..=89 => {
                // Set (three in four) or remove an extended attribute of a
                // directory, file or symlink; some values are large, so
                // an inode's block fills.
                let mut cands = m.dirs();
                cands.extend(m.files().into_iter().map(|f| f.0));
                cands.extend(m.symlinks());
                let remove = rng.gen_ratio(1, 4);
                let with: Vec<Path> = cands
                    .iter()
                    .filter(|p| !m.xattr_names(p).is_empty())
                    .cloned()
                    .collect();
                let p = if remove && !with.is_empty() && rng.gen_ratio(4, 5) {
                    with[rng.gen_range(0..with.len())].clone()
                } else {
                    cands[rng.gen_range(0..cands.len())].clone()
                };
                let ino = ino_of(&mut fs, &p);
                let xname: &[u8] = [&b"user.a"[..], b"user.b", b"trusted.t"][rng.gen_range(0..3)];
                if remove {
                    // Mostly an attribute the node has.
                    let have = m.xattr_names(&p);
                    let xname = match have.len() {
                        0 => xname.to_vec(),
                        n if rng.gen_ratio(4, 5) => have[rng.gen_range(0..n)].clone(),
                        _ => xname.to_vec(),
                    };
                    let xname = &xname[..];
                    let got = code(fs.removexattr(ino, xname));
                    let want = m.removexattr(&p, xname);
                    tally.add("removexattr", &want);
                    assert_eq!(got, want, "{at}: removexattr {xname:?}");
                    continue;
                }
                let len = if rng.gen_ratio(1, 6) {
                    rng.gen_range(1500..2600)
                } else {
                    rng.gen_range(0..80)
                };
                let value = pattern(rng.gen(), 0, len);
                let flags = [0, 0, 0, 0, fs::XATTR_CREATE, fs::XATTR_REPLACE][rng.gen_range(0..6)];
                let got = code(fs.setxattr(ino, xname, &value, flags));
                let want = m.setxattr_outcome(&p, xname, &value, flags);
                if got == Err(errno::ENOSPC) && want.is_ok() {
                    // The device is full (no block for the attributes).
                    continue;
                }
                assert_eq!(got, want, "{at}: setxattr {xname:?} of {len} bytes");
                m.setxattr(&p, xname, &value, flags).ok();
                tally.add("setxattr", &want);
            }
            82..=84 => {
                // Open a file, or release a handle (the last release frees
                // an unlinked file).
                if handles.is_empty() || rng.gen_bool(0.5) {
                    let files = m.files();
                    if files.is_empty() {
                        continue;
                    }
                    let (p, _) = files[rng.gen_range(0..files.len())].clone();
                    let ino = ino_of(&mut fs, &p);
                    code(fs.open(ino)).unwrap();
                    assert_eq!(m.open(&p, next_handle), Ok(()), "{at}: open");
                    handles.insert(next_handle, ino);
                    next_handle += 1;
                } else {
                    let hs: Vec<u32> = handles.keys().copied().collect();
                    let h = hs[rng.gen_range(0..hs.len())];
                    code(fs.release(handles[&h])).unwrap();
                    assert_eq!(m.release(h), Ok(()), "{at}: release");
                    handles.remove(&h);
                    *tally.0.entry("release").or_default() += 1;
                }
            }
            90..=93 => {
                code(fs.fsync(ROOT, false)).unwrap();
            }
            94..=97 => assert_same_tree(&mut fs, &mut m, &format!("{at}: tree")),
            _ => {
                // Unmount (which frees unlinked open files) and mount again.
                fs = remount(fs);
                *tally.0.entry("remount").or_default() += 1;
                for h in std::mem::take(&mut handles).into_keys() {
                    m.release(h).unwrap();
                }
                assert_clean(&mut fs);
                assert_same_tree(&mut fs, &mut m, &format!("{at}: tree after remount"));
            }
        }
    }
    let mut fs = remount(fs);
    for h in std::mem::take(&mut handles).into_keys() {
        m.release(h).unwrap();
    }
    assert_same_tree(&mut fs, &mut m, &format!("{label} seed {seed}: final tree"));
    eprintln!("{label} seed {seed}: {:?}", tally.0);
    for k in [
        "create",
        "large write",
        "write by handle",
        "truncate",
        "rename",
        "rename error",
        "unlink",
        "rmdir",
        "link",
        "release",
        "remount",
        "setxattr",
        "removexattr",
    ] {
        assert!(
            tally.0.get(k).copied().unwrap_or(0) > 0,
            "{label}: no `{k}` in {ops} operations"
        );
    }
    let st = fs.statfs().unwrap();
    assert_eq!(
        st.files - st.files_free,
        m.inodes() as u64,
        "{label}: inodes in use"
    );
}

fn mounted(kind: FtlKind, mode: CommitMode, g: Geometry, fo: FormatOptions) -> Fs<Dev> {
    let mut dev = device(MemFlash::new(g).unwrap(), kind, &fo);
    mkfs(&mut dev, &MkfsOptions::default()).unwrap();
    let fs = Fs::mount(dev, opts(mode)).unwrap();
    assert!(fs.device().num_sectors() > 0);
    fs
}

#[test]
fn random_sequences_match_the_model_in_every_configuration() {
    for (i, cfg) in CONFIGS.iter().enumerate() {
        let fs = mounted(
            cfg.kind,
            cfg.mode,
            Geometry::small(),
            FormatOptions::default(),
        );
        run(&cfg.to_string(), 1000 + i as u64, 700, fs);
    }
}

#[test]
fn random_sequences_with_small_epochs_and_small_sectors() {
    let small_w = FormatOptions {
        write_bound: Some(24),
        ..Default::default()
    };
    for mode in CommitMode::ALL {
        let fs = mounted(FtlKind::Scftl, mode, Geometry::small(), small_w.clone());
        run(&format!("scftl/{mode} W=24"), 2000, 500, fs);
    }
    for (kind, mode) in [
        (FtlKind::Scftl, CommitMode::Group),
        (FtlKind::Async, CommitMode::Log),
    ] {
        let fs = mounted(kind, mode, small512(), FormatOptions::default());
        run(&format!("{kind}/{mode} 512-byte sectors"), 3000, 400, fs);
    }
}
