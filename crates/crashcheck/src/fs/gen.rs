//! The seeded system-call generator: one u64 seed gives a workload of
//! calls (create, mkdir, symlink, writes small, large across the end of the
//! direct blocks, sparse and appending, truncates that grow and shrink,
//! renames to new names, over files and over empty directories, unlink
//! (also of an open file that is then written and released), link, rmdir,
//! open/release, fsync/fdatasync, sync), each with the outcome the
//! reference model says it must have and the tree after it.
//!
//! Invariants: the workload is a pure function of (seed, calls, byte
//! budget); `states[k]` is the model's tree after the first k calls (so
//! `states.len() == calls.len() + 1`); live file bytes stay within the
//! budget, so no call may fail for lack of space.

use std::collections::BTreeMap;
use std::fmt;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::model::{path_str, Model, Outcome, Partial, Path, State, Target, BLOCK};

/// One system call of a workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// `creat`: the new file stays open as `handle`.
    Create {
        path: Path,
        handle: u32,
    },
    Mkdir {
        path: Path,
    },
    Symlink {
        path: Path,
        target: Vec<u8>,
    },
    /// `len` bytes derived from (`fill`, offset) at `off`.
    Write {
        target: Target,
        off: u64,
        len: u32,
        fill: u64,
    },
    /// `fallocate` of `len` bytes at `off` with `mode` (`FALLOC_FL_*`).
    Fallocate {
        target: Target,
        mode: u32,
        off: u64,
        len: u64,
    },
    /// `truncate` (a setattr of the size).
    Truncate {
        path: Path,
        size: u64,
    },
    Rename {
        from: Path,
        to: Path,
    },
    /// `rename` with `RENAME_EXCHANGE`.
    Exchange {
        a: Path,
        b: Path,
    },
    Unlink {
        path: Path,
    },
    Link {
        from: Path,
        to: Path,
    },
    Rmdir {
        path: Path,
    },
    Open {
        path: Path,
        handle: u32,
    },
    Release {
        handle: u32,
    },
    Fsync {
        path: Path,
        datasync: bool,
    },
    Sync,
    /// `lsetxattr` of `name` with `len` bytes derived from (`fill`, 0)
    /// and `flags` (`XATTR_CREATE`, `XATTR_REPLACE`).
    SetXattr {
        path: Path,
        name: Vec<u8>,
        len: u32,
        fill: u64,
        flags: u32,
    },
    /// `lremovexattr`.
    RemoveXattr {
        path: Path,
        name: Vec<u8>,
    },
}

impl Call {
    /// Whether the call, once completed, makes every earlier call durable.
    pub fn is_sync(&self) -> bool {
        matches!(self, Call::Fsync { .. } | Call::Sync)
    }
}

/// The bytes a write puts at `off`: derived from (fill, offset), never zero,
/// so a hole or a lost write never reads back as written data.
pub fn bytes(fill: u64, off: u64, len: u32) -> Vec<u8> {
    (0..u64::from(len))
        .map(|i| {
            let x = (off + i).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ fill;
            (x >> 56) as u8 | 1
        })
        .collect()
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = |p: &Path| path_str(p);
        // The root is the empty path.
        let pr = |path: &Path| {
            if path.is_empty() {
                "/".to_string()
            } else {
                p(path)
            }
        };
        match self {
            Call::Create { path, handle } => write!(f, "create {} as #{handle}", p(path)),
            Call::Mkdir { path } => write!(f, "mkdir {}", p(path)),
            Call::Symlink { path, target } => write!(
                f,
                "symlink {} -> {}",
                p(path),
                String::from_utf8_lossy(target)
            ),
            Call::Write {
                target, off, len, ..
            } => write!(f, "write {target} at {off} len {len}"),
            Call::Fallocate {
                target,
                mode,
                off,
                len,
            } => write!(f, "fallocate {target} mode {mode:#x} at {off} len {len}"),
            Call::Truncate { path, size } => write!(f, "truncate {} to {size}", p(path)),
            Call::Rename { from, to } => write!(f, "rename {} -> {}", p(from), p(to)),
            Call::Exchange { a, b } => write!(f, "rename exchange {} <-> {}", p(a), p(b)),
            Call::Unlink { path } => write!(f, "unlink {}", p(path)),
            Call::Link { from, to } => write!(f, "link {} -> {}", p(from), p(to)),
            Call::Rmdir { path } => write!(f, "rmdir {}", p(path)),
            Call::Open { path, handle } => write!(f, "open {} as #{handle}", p(path)),
            Call::Release { handle } => write!(f, "release #{handle}"),
            Call::Fsync { path, datasync } => write!(
                f,
                "{} {}",
                if *datasync { "fdatasync" } else { "fsync" },
                pr(path)
            ),
            Call::Sync => f.write_str("sync"),
            Call::SetXattr {
                path,
                name,
                len,
                flags,
                ..
            } => write!(
                f,
                "setxattr {} {} len {len} flags {flags}",
                pr(path),
                String::from_utf8_lossy(name)
            ),
            Call::RemoveXattr { path, name } => write!(
                f,
                "removexattr {} {}",
                pr(path),
                String::from_utf8_lossy(name)
            ),
        }
    }
}

/// A call with what the model expects of it.
#[derive(Clone, Debug)]
pub struct Planned {
    pub call: Call,
    /// Success, or the errno the call must fail with.
    pub expect: Outcome,
    /// What kind of call the generator meant (for the tally).
    pub kind: &'static str,
    /// States the call may leave if cut between its steps.
    pub partial: Partial,
}

/// A generated workload and its reference states.
#[derive(Clone, Debug)]
pub struct Workload {
    pub calls: Vec<Planned>,
    /// `states[k]`: the tree after the first k calls.
    pub states: Vec<State>,
    /// Calls per kind (failing ones under "KIND error").
    pub tally: BTreeMap<String, u64>,
}

/// Applies a call to the model.
pub fn apply(m: &mut Model, call: &Call) -> Outcome {
    match call {
        Call::Create { path, handle } => m.create(path, *handle),
        Call::Mkdir { path } => m.mkdir(path),
        Call::Symlink { path, target } => m.symlink(path, target),
        Call::Write {
            target,
            off,
            len,
            fill,
        } => m.write(target, *off, &bytes(*fill, *off, *len)),
        Call::Fallocate {
            target,
            mode,
            off,
            len,
        } => m.fallocate(target, *mode, *off, *len),
        Call::Truncate { path, size } => m.truncate(path, *size),
        Call::Rename { from, to } => m.rename(from, to),
        Call::Exchange { a, b } => m.exchange(a, b),
        Call::Unlink { path } => m.unlink(path),
        Call::Link { from, to } => m.link(from, to),
        Call::Rmdir { path } => m.rmdir(path),
        Call::Open { path, handle } => m.open(path, *handle),
        Call::Release { handle } => m.release(*handle),
        Call::Fsync { path, .. } => m.fsync(path),
        Call::Sync => Ok(()),
        Call::SetXattr {
            path,
            name,
            len,
            fill,
            flags,
        } => m.setxattr(path, name, &bytes(*fill, 0, *len), *flags),
        Call::RemoveXattr { path, name } => m.removexattr(path, name),
    }
}

/// Most handles open at once (more are released first).
const HANDLES_MAX: usize = 6;
/// Most directories (more mkdirs become writes).
const DIRS_MAX: usize = 10;

struct Gen {
    rng: Pcg64,
    m: Model,
    next_handle: u32,
    bytes_max: u64,
    /// Bytes preallocated past the end of files so far (never counted
    /// down: kept under a quarter of `bytes_max`, so they cannot run the
    /// device out of space).
    preallocated: u64,
    out: Workload,
}

/// Generates `calls` calls from `seed`, keeping live file bytes within
/// `bytes_max`.
pub fn generate(seed: u64, calls: usize, bytes_max: u64) -> Workload {
    let mut m = Model::new();
    let first = m.state();
    let mut g = Gen {
        rng: Pcg64::seed_from_u64(seed),
        m,
        next_handle: 1,
        bytes_max,
        preallocated: 0,
        out: Workload {
            calls: Vec::new(),
            states: vec![first],
            tally: BTreeMap::new(),
        },
    };
    while g.out.calls.len() < calls {
        g.step();
    }
    g.out.calls.truncate(calls);
    g.out.states.truncate(calls + 1);
    g.out.tally.clear();
    for p in &g.out.calls {
        let key = match p.expect {
            Ok(()) => p.kind.to_string(),
            Err(_) => format!("{} error", p.kind),
        };
        *g.out.tally.entry(key).or_default() += 1;
    }
    g.out
}

impl Gen {
    fn push(&mut self, call: Call, kind: &'static str) {
        let partial = match &call {
            Call::Write {
                target,
                off,
                len,
                fill,
            } => self
                .m
                .partial_write(target, *off, &bytes(*fill, *off, *len)),
            Call::Truncate { path, size } => self.m.partial_truncate(path, *size),
            Call::Fallocate {
                target,
                mode,
                off,
                len,
            } => self.m.partial_fallocate(target, *mode, *off, *len),
            _ => Partial::default(),
        };
        let expect = apply(&mut self.m, &call);
        self.out.calls.push(Planned {
            call,
            expect,
            kind,
            partial,
        });
        self.out.states.push(self.m.state());
    }

    fn pick<T: Clone>(&mut self, v: &[T]) -> Option<T> {
        v.choose(&mut self.rng).cloned()
    }

    fn handle(&mut self) -> u32 {
        self.next_handle += 1;
        self.next_handle - 1
    }

    /// A name in `dir` starting with `prefix`, new unless four tries all
    /// hit existing ones (then the call fails with EEXIST, also worth a
    /// test).
    fn fresh(&mut self, dir: &Path, prefix: &str) -> Path {
        let mut p = dir.clone();
        p.push(Vec::new());
        for _ in 0..4 {
            let n = self.rng.gen_range(0..12);
            *p.last_mut().expect("just pushed") = format!("{prefix}{n}").into_bytes();
            if !self.m.exists(&p) {
                break;
            }
        }
        p
    }

    fn random_dir(&mut self) -> Path {
        let dirs = self.m.dirs();
        self.pick(&dirs).unwrap_or_default()
    }

    fn random_file(&mut self) -> Option<(Path, u64)> {
        let files = self.m.files();
        self.pick(&files)
    }

    fn create(&mut self) {
        if self.m.handles().len() >= HANDLES_MAX {
            self.release();
        }
        let d = self.random_dir();
        let path = self.fresh(&d, "f");
        let handle = self.handle();
        self.push(Call::Create { path, handle }, "create");
    }

    fn release(&mut self) {
        let hs = self.m.handles();
        match self.pick(&hs) {
            Some((handle, _)) => self.push(Call::Release { handle }, "release"),
            None => self.sync(),
        }
    }

    fn sync(&mut self) {
        self.push(Call::Sync, "sync");
    }

    fn step(&mut self) {
        match self.rng.gen_range(0..100) {
            0..=9 => self.create(),
            10..=15 if self.m.dirs().len() < DIRS_MAX => {
                let d = self.random_dir();
                let path = self.fresh(&d, "d");
                self.push(Call::Mkdir { path }, "mkdir");
            }
            10..=31 => self.write(),
            32..=37 => self.fallocate(),
            38..=45 => self.truncate(),
            46..=57 => self.rename(),
            58..=63 => {
                let mut cands: Vec<Path> = self.m.files().into_iter().map(|f| f.0).collect();
                cands.extend(self.m.symlinks());
                let path = match self.pick(&cands) {
                    Some(p) if !self.rng.gen_ratio(1, 10) => p,
                    _ => {
                        let d = self.random_dir();
                        let mut p = d;
                        p.push(b"missing".to_vec());
                        p
                    }
                };
                self.push(Call::Unlink { path }, "unlink");
            }
            64..=67 => match self.random_file() {
                Some((from, _)) => {
                    let d = self.random_dir();
                    let to = self.fresh(&d, "l");
                    self.push(Call::Link { from, to }, "link");
                }
                None => self.create(),
            },
            68..=69 => {
                let d = self.random_dir();
                let path = self.fresh(&d, "s");
                let target = format!("target-{}", self.rng.gen_range(0..1000)).into_bytes();
                self.push(Call::Symlink { path, target }, "symlink");
            }
            70..=74 => {
                let dirs: Vec<Path> = self.m.dirs().into_iter().skip(1).collect();
                let empty: Vec<Path> = dirs
                    .iter()
                    .filter(|d| self.m.is_empty_dir(d))
                    .cloned()
                    .collect();
                let pick = if !empty.is_empty() && self.rng.gen_ratio(7, 10) {
                    self.pick(&empty)
                } else {
                    self.pick(&dirs)
                };
                match pick {
                    Some(path) => self.push(Call::Rmdir { path }, "rmdir"),
                    None => self.create(),
                }
            }
            75..=77 => match self.random_file() {
                Some((path, _)) if self.m.handles().len() < HANDLES_MAX => {
                    let handle = self.handle();
                    self.push(Call::Open { path, handle }, "open");
                }
                _ => self.release(),
            },
            78..=81 => self.release(),
            82..=85 => self.unlink_open(),
            90..=93 => self.xattr(),
            86..=89 => {
                let mut cands = self.m.dirs();
                cands.extend(self.m.files().into_iter().map(|f| f.0));
                let path = self.pick(&cands).unwrap_or_default();
                let datasync = self.rng.gen_bool(0.5);
                let kind = if datasync { "fdatasync" } else { "fsync" };
                self.push(Call::Fsync { path, datasync }, kind);
            }
            _ => self.sync(),
        }
    }

    /// A set (three in four) or a removal of an extended attribute on a
    /// file, directory or symlink; some values are large, so an inode's
    /// block fills (`ENOSPC`); flags ask for `EEXIST` and `ENODATA`.
    fn xattr(&mut self) {
        const NAMES: [&[u8]; 4] = [b"user.a", b"user.b", b"user.mime_type", b"trusted.t"];
        let mut cands = self.m.dirs();
        cands.extend(self.m.files().into_iter().map(|f| f.0));
        cands.extend(self.m.symlinks());
        let path = self.pick(&cands).unwrap_or_default();
        let have = self.m.xattr_names(&path);
        if self.rng.gen_ratio(1, 4) {
            let name = match self.pick(&have) {
                Some(n) if self.rng.gen_ratio(4, 5) => n,
                _ => self.pick(&NAMES).expect("not empty").to_vec(),
            };
            return self.push(Call::RemoveXattr { path, name }, "removexattr");
        }
        let name = self.pick(&NAMES).expect("not empty").to_vec();
        let len = if self.rng.gen_ratio(1, 6) {
            self.rng.gen_range(1500..=2600)
        } else {
            self.rng.gen_range(0..=80)
        };
        let flags = match self.rng.gen_range(0..6) {
            0 => ::fs::XATTR_CREATE,
            1 => ::fs::XATTR_REPLACE,
            _ => 0,
        };
        let fill = self.rng.gen();
        self.push(
            Call::SetXattr {
                path,
                name,
                len,
                fill,
                flags,
            },
            "setxattr",
        );
    }

    fn write(&mut self) {
        let hs = self.m.handles();
        let target = if !hs.is_empty() && self.rng.gen_ratio(1, 4) {
            Target::Handle(self.pick(&hs).expect("not empty").0)
        } else {
            match self.random_file() {
                Some((p, _)) => Target::Path(p),
                None => return self.create(),
            }
        };
        let size = self.m.size(&target).unwrap_or(0);
        let r = self.rng.gen_range(0..20);
        let (off, len, kind) = match r {
            0..=9 => (
                self.rng.gen_range(0..=size.min(60_000)),
                self.rng.gen_range(1..=6000),
                "write",
            ),
            // Across the end of the 12 direct blocks into the indirect ones.
            10..=13 => (
                12 * BLOCK - self.rng.gen_range(1..=4 * BLOCK),
                self.rng.gen_range(20_000..=80_000),
                "write large",
            ),
            14..=16 => (
                size + self.rng.gen_range(1..16) * BLOCK + self.rng.gen_range(0..BLOCK),
                self.rng.gen_range(1..=4000),
                "write sparse",
            ),
            _ => (size, self.rng.gen_range(1..=12_000), "write append"),
        };
        let growth = (off + u64::from(len)).saturating_sub(size);
        if self.m.bytes() + growth > self.bytes_max {
            // Over the byte budget: free space instead.
            return match target {
                Target::Path(path) => {
                    self.push(Call::Truncate { path, size: 0 }, "truncate shrink")
                }
                Target::Handle(_) => self.sync(),
            };
        }
        let fill = self.rng.gen();
        self.push(
            Call::Write {
                target,
                off,
                len,
                fill,
            },
            kind,
        );
    }

    /// A write's target: a handle now and then, else a file's path.
    fn write_target(&mut self) -> Option<Target> {
        let hs = self.m.handles();
        if !hs.is_empty() && self.rng.gen_ratio(1, 4) {
            Some(Target::Handle(self.pick(&hs).expect("not empty").0))
        } else {
            self.random_file().map(|(p, _)| Target::Path(p))
        }
    }

    /// fallocate: preallocation (growing the file or `KEEP_SIZE`), punch
    /// hole and zero range, and now and then a punch without `KEEP_SIZE`
    /// (`EOPNOTSUPP`).
    fn fallocate(&mut self) {
        use fs::FALLOC_FL_ZERO_RANGE as ZERO;
        use fs::{FALLOC_FL_KEEP_SIZE as KEEP, FALLOC_FL_PUNCH_HOLE as PUNCH};
        let Some(target) = self.write_target() else {
            return self.create();
        };
        let size = self.m.size(&target).unwrap_or(0);
        let (mode, off, len, kind) = match self.rng.gen_range(0..20) {
            0..=3 => (
                0,
                self.rng.gen_range(0..=size + 2 * BLOCK),
                self.rng.gen_range(1..=6 * BLOCK),
                "fallocate",
            ),
            4..=5 => (
                KEEP,
                self.rng.gen_range(0..=size + 2 * BLOCK),
                self.rng.gen_range(1..=4 * BLOCK),
                "fallocate keep size",
            ),
            6..=13 => (
                PUNCH | KEEP,
                self.rng.gen_range(0..=size),
                self.rng.gen_range(1..=10 * BLOCK),
                "punch hole",
            ),
            14..=18 => {
                let keep = if self.rng.gen_bool(0.5) { KEEP } else { 0 };
                (
                    ZERO | keep,
                    self.rng.gen_range(0..=size),
                    self.rng.gen_range(1..=5 * BLOCK),
                    "zero range",
                )
            }
            _ => (PUNCH, 0, BLOCK, "punch hole without keep size"),
        };
        let end = off + len;
        let growth = if mode & (KEEP | PUNCH) == 0 {
            end.saturating_sub(size)
        } else {
            0
        };
        let hidden = if mode & KEEP != 0 && mode & PUNCH == 0 {
            end.saturating_sub(size)
        } else {
            0
        };
        if self.m.bytes() + growth > self.bytes_max
            || self.preallocated + hidden > self.bytes_max / 4
        {
            return self.sync();
        }
        self.preallocated += hidden;
        self.push(
            Call::Fallocate {
                target,
                mode,
                off,
                len,
            },
            kind,
        );
    }

    fn truncate(&mut self) {
        let Some((path, size)) = self.random_file() else {
            return self.create();
        };
        let grow = self.rng.gen_ratio(2, 5);
        let (new, kind) = if grow && self.m.bytes() + 3 * BLOCK <= self.bytes_max {
            (size + self.rng.gen_range(1..3 * BLOCK), "truncate grow")
        } else if self.rng.gen_ratio(1, 3) {
            (0, "truncate shrink")
        } else {
            (self.rng.gen_range(0..=size), "truncate shrink")
        };
        self.push(Call::Truncate { path, size: new }, kind);
    }

    fn rename(&mut self) {
        let files: Vec<Path> = self.m.files().into_iter().map(|f| f.0).collect();
        let dirs: Vec<Path> = self.m.dirs().into_iter().skip(1).collect();
        let r = self.rng.gen_range(0..10);
        if (3..=5).contains(&r) && files.len() >= 2 {
            let from = self.pick(&files).expect("two files");
            let to = self.pick(&files).expect("two files");
            return self.push(Call::Rename { from, to }, "rename over file");
        }
        if (6..=8).contains(&r) && dirs.len() >= 2 {
            let empty: Vec<Path> = dirs
                .iter()
                .filter(|d| self.m.is_empty_dir(d))
                .cloned()
                .collect();
            if let Some(to) = self.pick(&empty) {
                // Mostly a directory that is not above the victim (moving a
                // directory under itself fails with EINVAL).
                let movable: Vec<Path> = dirs
                    .iter()
                    .filter(|d| !to.starts_with(d))
                    .cloned()
                    .collect();
                let from = if movable.is_empty() || self.rng.gen_ratio(1, 10) {
                    self.pick(&dirs).expect("two dirs")
                } else {
                    self.pick(&movable).expect("not empty")
                };
                return self.push(Call::Rename { from, to }, "rename over dir");
            }
        }
        if r == 2 && files.len() + dirs.len() >= 2 {
            // Any two names: files, directories, one inside the other
            // (EINVAL), the same one twice (a no-op).
            let mut names = files.clone();
            names.extend(dirs.iter().cloned());
            let a = self.pick(&names).expect("two names");
            let b = self.pick(&names).expect("two names");
            return self.push(Call::Exchange { a, b }, "rename exchange");
        }
        if r == 9 && !dirs.is_empty() {
            let from = self.pick(&dirs).expect("a dir");
            let d = self.random_dir();
            let to = self.fresh(&d, "d");
            return self.push(Call::Rename { from, to }, "rename dir");
        }
        match self.pick(&files) {
            Some(from) => {
                let d = self.random_dir();
                let to = self.fresh(&d, "f");
                self.push(Call::Rename { from, to }, "rename");
            }
            None => self.create(),
        }
    }

    /// Open a file, unlink it, write through the handle, release it: the
    /// file lives on unnamed until the release frees it.
    fn unlink_open(&mut self) {
        if self.m.handles().len() >= HANDLES_MAX {
            self.release();
        }
        let Some((path, _)) = self.random_file() else {
            return self.create();
        };
        let handle = self.handle();
        self.push(
            Call::Open {
                path: path.clone(),
                handle,
            },
            "open",
        );
        self.push(Call::Unlink { path }, "unlink open");
        let len = self.rng.gen_range(1..=8000);
        let fill = self.rng.gen();
        if self.m.bytes() + u64::from(len) <= self.bytes_max {
            self.push(
                Call::Write {
                    target: Target::Handle(handle),
                    off: 0,
                    len,
                    fill,
                },
                "write unlinked",
            );
        }
        self.push(Call::Release { handle }, "release");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_one_workload_and_every_kind_shows_up() {
        let a = generate(5, 400, 2 << 20);
        let b = generate(5, 400, 2 << 20);
        assert_eq!(a.calls.len(), 400);
        assert_eq!(a.states.len(), 401);
        let ca: Vec<String> = a.calls.iter().map(|c| c.call.to_string()).collect();
        let cb: Vec<String> = b.calls.iter().map(|c| c.call.to_string()).collect();
        assert_eq!(ca, cb);
        for k in [
            "create",
            "mkdir",
            "write",
            "write large",
            "write sparse",
            "truncate grow",
            "truncate shrink",
            "fallocate",
            "fallocate keep size",
            "punch hole",
            "zero range",
            "rename",
            "rename over file",
            "rename over dir",
            "rename exchange",
            "unlink",
            "unlink open",
            "write unlinked",
            "link",
            "rmdir",
            "fsync",
            "fdatasync",
            "sync",
        ] {
            assert!(
                a.tally.get(k).copied().unwrap_or(0) > 0,
                "no `{k}`: {:?}",
                a.tally
            );
        }
        assert!(a.calls.iter().any(|c| !c.partial.contents.is_empty()));
    }
}
