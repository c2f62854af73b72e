//! A seeded model test: random sequences of create, write (small, large,
//! across the indirect and double-indirect boundaries, sparse), truncate,
//! rename (over files and empty directories), unlink (also of open files),
//! link, symlink, mkdir, rmdir, open/release and fsync run against an
//! in-memory reference tree, comparing every result (value or errno); the
//! whole tree is compared periodically and after each unmount + mount, with
//! fsck clean each time. One u64 seed per configuration drives everything;
//! a failure names the seed, the configuration and the operation number.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::*;
use flash::{Geometry, MemFlash};
use fs::{errno, mkfs, CommitMode, FileType, Fs, MkfsOptions, Owner, SetAttr, ROOT_INO};
use ftl::{BlockDevice, FormatOptions, FtlKind};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const ROOT: u64 = ROOT_INO as u64;
const U: Owner = Owner { uid: 5, gid: 6 };

#[derive(Clone, Debug)]
enum MNode {
    Dir {
        entries: BTreeMap<Vec<u8>, u64>,
        parent: u64,
    },
    File {
        data: Vec<u8>,
        nlink: u32,
    },
    Symlink(Vec<u8>),
}

#[derive(Default)]
struct Model {
    nodes: HashMap<u64, MNode>,
    open: HashMap<u64, u32>,
}

type R<T> = Result<T, i32>;

impl Model {
    fn new() -> Model {
        let mut m = Model::default();
        m.nodes.insert(
            ROOT,
            MNode::Dir {
                entries: BTreeMap::new(),
                parent: ROOT,
            },
        );
        m
    }

    fn entries(&self, d: u64) -> &BTreeMap<Vec<u8>, u64> {
        match &self.nodes[&d] {
            MNode::Dir { entries, .. } => entries,
            _ => panic!("not a dir"),
        }
    }

    fn entries_mut(&mut self, d: u64) -> &mut BTreeMap<Vec<u8>, u64> {
        match self.nodes.get_mut(&d) {
            Some(MNode::Dir { entries, .. }) => entries,
            _ => panic!("not a dir"),
        }
    }

    fn is_dir(&self, i: u64) -> bool {
        matches!(self.nodes[&i], MNode::Dir { .. })
    }

    fn dirs(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(_, n)| matches!(n, MNode::Dir { .. }))
            .map(|(&i, _)| i)
            .collect();
        v.sort_unstable();
        v
    }

    fn files(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .nodes
            .iter()
            .filter(|(_, n)| matches!(n, MNode::File { .. }))
            .map(|(&i, _)| i)
            .collect();
        v.sort_unstable();
        v
    }

    /// Drops a link of `i` (a file or symlink); frees it when unused.
    fn unlink_inode(&mut self, i: u64) {
        let gone = match self.nodes.get_mut(&i) {
            Some(MNode::File { nlink, .. }) => {
                *nlink -= 1;
                *nlink == 0 && !self.open.contains_key(&i)
            }
            Some(MNode::Symlink(_)) => true,
            _ => panic!("unlink_inode of a dir"),
        };
        if gone {
            self.nodes.remove(&i);
        }
    }

    fn is_ancestor(&self, a: u64, mut d: u64) -> bool {
        loop {
            if d == a {
                return true;
            }
            if d == ROOT {
                return false;
            }
            d = match &self.nodes[&d] {
                MNode::Dir { parent, .. } => *parent,
                _ => unreachable!(),
            };
        }
    }

    fn rename(&mut self, sp: u64, sn: &[u8], dp: u64, dn: &[u8]) -> R<()> {
        let s = *self.entries(sp).get(sn).ok_or(errno::ENOENT)?;
        let t = self.entries(dp).get(dn).copied();
        if t == Some(s) {
            return Ok(());
        }
        let s_dir = self.is_dir(s);
        if s_dir && self.is_ancestor(s, dp) {
            return Err(errno::EINVAL);
        }
        if let Some(t) = t {
            let t_dir = self.is_dir(t);
            if s_dir && !t_dir {
                return Err(errno::ENOTDIR);
            }
            if s_dir && !self.entries(t).is_empty() {
                return Err(errno::ENOTEMPTY);
            }
            if !s_dir && t_dir {
                return Err(errno::EISDIR);
            }
        }
        self.entries_mut(sp).remove(sn);
        self.entries_mut(dp).insert(dn.to_vec(), s);
        if let Some(t) = t {
            if self.is_dir(t) {
                if !self.open.contains_key(&t) {
                    self.nodes.remove(&t);
                }
            } else {
                self.unlink_inode(t);
            }
        }
        if let Some(MNode::Dir { parent, .. }) = self.nodes.get_mut(&s) {
            *parent = dp;
        }
        Ok(())
    }

    fn snapshot(&self) -> Snapshot {
        let mut out = Snapshot::new();
        self.walk(ROOT, String::new(), &mut out);
        out
    }

    fn walk(&self, d: u64, prefix: String, out: &mut Snapshot) {
        for (name, &i) in self.entries(d) {
            let path = format!("{prefix}{}", String::from_utf8_lossy(name));
            match &self.nodes[&i] {
                MNode::Dir { .. } => {
                    out.insert(path.clone(), Node::Dir);
                    self.walk(i, format!("{path}/"), out);
                }
                MNode::File { data, .. } => {
                    out.insert(path, Node::File(data.clone()));
                }
                MNode::Symlink(t) => {
                    out.insert(path, Node::Symlink(t.clone()));
                }
            }
        }
    }
}

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

/// Mostly the name of an entry of `d` whose node satisfies `want`, else `n`.
fn existing(
    rng: &mut Pcg64,
    m: &Model,
    d: u64,
    n: Vec<u8>,
    want: impl Fn(&MNode) -> bool,
) -> Vec<u8> {
    let names: Vec<&Vec<u8>> = m
        .entries(d)
        .iter()
        .filter(|(_, i)| want(&m.nodes[i]))
        .map(|(k, _)| k)
        .collect();
    if names.is_empty() || rng.gen_ratio(1, 5) {
        n
    } else {
        names[rng.gen_range(0..names.len())].clone()
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
    let mut tally = Tally::default();
    for step in 0..ops {
        let at = format!("{label} seed {seed} op {step}");
        let dirs = m.dirs();
        let d = dirs[rng.gen_range(0..dirs.len())];
        let n = name(&mut rng);
        match rng.gen_range(0..100) {
            0..=11 => {
                let want: R<()> = if m.entries(d).contains_key(&n) {
                    Err(errno::EEXIST)
                } else {
                    Ok(())
                };
                let got = code(fs.create(d, &n, 0o100644, U));
                if got.as_ref().err() == Some(&errno::ENOSPC) {
                    continue;
                }
                tally.add("create", &got);
                assert_eq!(
                    got.as_ref().map(|_| ()).map_err(|e| *e),
                    want,
                    "{at}: create"
                );
                if let Ok(a) = got {
                    m.nodes.insert(
                        a.ino,
                        MNode::File {
                            data: Vec::new(),
                            nlink: 1,
                        },
                    );
                    m.entries_mut(d).insert(n, a.ino);
                    m.open.insert(a.ino, 1);
                }
            }
            12..=33 => {
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let f = files[rng.gen_range(0..files.len())];
                let MNode::File { data, .. } = m.nodes.get_mut(&f).unwrap() else {
                    unreachable!()
                };
                let len = match rng.gen_range(0..10) {
                    0 => rng.gen_range(20_000..300_000),
                    1..=3 => rng.gen_range(1..5),
                    _ => rng.gen_range(1..12_000),
                };
                let off = if rng.gen_ratio(1, 40) {
                    5 << 20
                } else {
                    offset(&mut rng, data.len())
                };
                let bytes = pattern(rng.gen(), off, len);
                // Out of space, a write stops short; the model follows.
                let len = match code(fs.write(f, off, &bytes)) {
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
                } else {
                    "write"
                };
                *tally.0.entry(key).or_default() += 1;
                let bytes = &bytes[..len];
                let end = off as usize + len;
                if data.len() < end {
                    data.resize(end, 0);
                }
                data[off as usize..end].copy_from_slice(bytes);
            }
            34..=41 => {
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let f = files[rng.gen_range(0..files.len())];
                let MNode::File { data, .. } = m.nodes.get_mut(&f).unwrap() else {
                    unreachable!()
                };
                let size = if rng.gen_ratio(1, 3) {
                    0
                } else {
                    offset(&mut rng, data.len())
                };
                let a = code(fs.setattr(
                    f,
                    &SetAttr {
                        size: Some(size),
                        ..Default::default()
                    },
                ))
                .unwrap();
                *tally.0.entry("truncate").or_default() += 1;
                assert_eq!(a.size, size, "{at}: truncate");
                data.resize(size as usize, 0);
            }
            42..=53 => {
                let dirs = m.dirs();
                let dp = dirs[rng.gen_range(0..dirs.len())];
                let sn = match m
                    .entries(d)
                    .keys()
                    .nth(rng.gen_range(0..m.entries(d).len().max(1)))
                {
                    Some(k) if rng.gen_ratio(9, 10) => k.clone(),
                    _ => n.clone(),
                };
                let dn = match m.entries(dp).keys().next() {
                    Some(k) if rng.gen_ratio(1, 3) => k.clone(),
                    _ => name(&mut rng),
                };
                let got = code(fs.rename(d, &sn, dp, &dn, 0));
                if got == Err(errno::ENOSPC) {
                    continue;
                }
                // The model checks everything before it changes anything.
                let over = m.entries(dp).contains_key(&dn);
                let want = m.rename(d, &sn, dp, &dn);
                tally.add(if over { "rename over" } else { "rename" }, &want);
                assert_eq!(got, want, "{at}: rename {sn:?} -> {dn:?}");
            }
            54..=61 => {
                let n = existing(&mut rng, &m, d, n, |_| true);
                let target = m.entries(d).get(&n).copied();
                let want: R<()> = match target {
                    None => Err(errno::ENOENT),
                    Some(t) if m.is_dir(t) => Err(errno::EISDIR),
                    Some(_) => Ok(()),
                };
                assert_eq!(code(fs.unlink(d, &n)), want, "{at}: unlink");
                let open = target.is_some_and(|t| m.open.contains_key(&t));
                tally.add(if open { "unlink open" } else { "unlink" }, &want);
                if let (Ok(()), Some(t)) = (want, target) {
                    m.entries_mut(d).remove(&n);
                    m.unlink_inode(t);
                }
            }
            62..=67 => {
                let want: R<()> = if m.entries(d).contains_key(&n) {
                    Err(errno::EEXIST)
                } else {
                    Ok(())
                };
                let got = code(fs.mkdir(d, &n, 0o755, U));
                if got.as_ref().err() == Some(&errno::ENOSPC) {
                    continue;
                }
                assert_eq!(
                    got.as_ref().map(|_| ()).map_err(|e| *e),
                    want,
                    "{at}: mkdir"
                );
                if let Ok(a) = got {
                    m.nodes.insert(
                        a.ino,
                        MNode::Dir {
                            entries: BTreeMap::new(),
                            parent: d,
                        },
                    );
                    m.entries_mut(d).insert(n, a.ino);
                }
            }
            68..=73 => {
                let n = existing(&mut rng, &m, d, n, |node| matches!(node, MNode::Dir { .. }));
                let target = m.entries(d).get(&n).copied();
                let want: R<()> = match target {
                    None => Err(errno::ENOENT),
                    Some(t) if !m.is_dir(t) => Err(errno::ENOTDIR),
                    Some(t) if !m.entries(t).is_empty() => Err(errno::ENOTEMPTY),
                    Some(_) => Ok(()),
                };
                assert_eq!(code(fs.rmdir(d, &n)), want, "{at}: rmdir");
                tally.add("rmdir", &want);
                if let (Ok(()), Some(t)) = (want, target) {
                    m.entries_mut(d).remove(&n);
                    if !m.open.contains_key(&t) {
                        m.nodes.remove(&t);
                    }
                }
            }
            74..=78 => {
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let f = files[rng.gen_range(0..files.len())];
                let MNode::File { nlink, .. } = &m.nodes[&f] else {
                    unreachable!()
                };
                let want: R<()> = if *nlink == 0 {
                    Err(errno::ENOENT)
                } else if m.entries(d).contains_key(&n) {
                    Err(errno::EEXIST)
                } else {
                    Ok(())
                };
                let got = code(fs.link(f, d, &n)).map(|_| ());
                if got == Err(errno::ENOSPC) {
                    continue;
                }
                assert_eq!(got, want, "{at}: link");
                if want.is_ok() {
                    m.entries_mut(d).insert(n, f);
                    if let Some(MNode::File { nlink, .. }) = m.nodes.get_mut(&f) {
                        *nlink += 1;
                    }
                }
            }
            79..=81 => {
                let target = pattern(rng.gen(), 0, rng.gen_range(1..300));
                let want: R<()> = if m.entries(d).contains_key(&n) {
                    Err(errno::EEXIST)
                } else {
                    Ok(())
                };
                let got = code(fs.symlink(d, &n, &target, U));
                if got.as_ref().err() == Some(&errno::ENOSPC) {
                    continue;
                }
                assert_eq!(
                    got.as_ref().map(|_| ()).map_err(|e| *e),
                    want,
                    "{at}: symlink"
                );
                if let Ok(a) = got {
                    m.nodes.insert(a.ino, MNode::Symlink(target));
                    m.entries_mut(d).insert(n, a.ino);
                }
            }
            82..=89 => {
                // Open or release a file (releasing may free an unlinked one).
                let files = m.files();
                if files.is_empty() {
                    continue;
                }
                let f = files[rng.gen_range(0..files.len())];
                if rng.gen_bool(0.5) {
                    code(fs.open(f)).unwrap();
                    *m.open.entry(f).or_insert(0) += 1;
                } else if let Some(c) = m.open.get_mut(&f) {
                    code(fs.release(f)).unwrap();
                    *c -= 1;
                    if *c == 0 {
                        m.open.remove(&f);
                        if matches!(m.nodes[&f], MNode::File { nlink: 0, .. }) {
                            m.nodes.remove(&f);
                        }
                    }
                }
            }
            90..=93 => {
                code(fs.fsync(ROOT, false)).unwrap();
            }
            94..=97 => {
                assert_eq!(snapshot(&mut fs), m.snapshot(), "{at}: tree");
                for (&i, node) in &m.nodes {
                    if let MNode::File { data, nlink } = node {
                        let a = fs.getattr(i).unwrap();
                        assert_eq!(
                            (a.size, a.nlink, a.kind),
                            (data.len() as u64, *nlink, FileType::RegularFile),
                            "{at}: inode {i}"
                        );
                    }
                }
            }
            _ => {
                // Unmount (which frees unlinked open files) and mount again.
                fs = remount(fs);
                *tally.0.entry("remount").or_default() += 1;
                m.open.clear();
                m.nodes
                    .retain(|_, n| !matches!(n, MNode::File { nlink: 0, .. }));
                assert_clean(&mut fs);
                assert_eq!(snapshot(&mut fs), m.snapshot(), "{at}: tree after remount");
            }
        }
    }
    let mut fs = remount(fs);
    m.nodes
        .retain(|_, n| !matches!(n, MNode::File { nlink: 0, .. }));
    assert_eq!(
        snapshot(&mut fs),
        m.snapshot(),
        "{label} seed {seed}: final tree"
    );
    eprintln!("{label} seed {seed}: {:?}", tally.0);
    for k in [
        "create",
        "large write",
        "truncate",
        "rename",
        "rename error",
        "unlink",
        "rmdir",
        "remount",
    ] {
        assert!(
            tally.0.get(k).copied().unwrap_or(0) > 0,
            "{label}: no `{k}` in {ops} operations"
        );
    }
    let st = fs.statfs().unwrap();
    assert_eq!(
        st.files - st.files_free,
        m.nodes.len() as u64,
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
