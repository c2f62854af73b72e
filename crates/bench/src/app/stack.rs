//! The storage stacks of the application benchmark: which exist, what each
//! needs, and the command lines that create, serve and mount them
//! (bringing them up and down is `mounted.rs`).
//!
//! A stack is a file system over an FTL: ext4 (`data=ordered`,
//! `data=journal,journal_async_commit`, or `data=ordered,nobarrier`) on an
//! NBD export of `scftl serve`, reached through nbdfuse and a direct-I/O
//! loop device (no /dev/nbd needed), or our own file system mounted by
//! `scftl mount` in `log`, `xlog` or `group` mode. Every command line that starts a stack is built by [`Launcher`],
//! so options such as the timing model are added in exactly one place.
//!
//! Invariant: a stack whose tools are missing is never started, and
//! [`StackSpec::missing`] says why.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::proc;
use crate::workload::BResult;

/// How long a tool that sets up or tears down a stack may take.
pub(super) const TOOL_LIMIT: Duration = Duration::from_secs(120);

/// The file system half of a stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsKind {
    /// ext4 `data=ordered` (the default: metadata journaling).
    Ext4Ordered,
    /// ext4 `data=journal,journal_async_commit` (full data journaling).
    Ext4Journal,
    /// ext4 `data=ordered,nobarrier`: jbd2 never asks the device for a
    /// flush (no REQ_PREFLUSH/REQ_FUA), so commits are ordered only by
    /// waiting for completions. Crash safe only on an order-preserving
    /// device (OPTR, issue 12).
    Ext4NoBarrier,
    /// Our file system (crate `fs`) in a commit mode: `log`, `xlog`, `group`.
    Ours(&'static str),
}

impl FsKind {
    /// Short name: `ext4-ordered`, `ext4-journal`, `fs-log`, ...
    pub fn name(self) -> String {
        match self {
            FsKind::Ext4Ordered => "ext4-ordered".into(),
            FsKind::Ext4Journal => "ext4-journal".into(),
            FsKind::Ext4NoBarrier => "ext4-nobarrier".into(),
            FsKind::Ours(m) => format!("fs-{m}"),
        }
    }

    /// The `mount -o` options of an ext4 kind, None for our file system.
    pub fn ext4_options(self) -> Option<&'static str> {
        match self {
            FsKind::Ext4Ordered => Some("data=ordered"),
            FsKind::Ext4Journal => Some("data=journal,journal_async_commit"),
            FsKind::Ext4NoBarrier => Some("data=ordered,nobarrier"),
            FsKind::Ours(_) => None,
        }
    }

    /// The file systems in report order (the chart's x axis).
    pub const ALL: [FsKind; 6] = [
        FsKind::Ext4Ordered,
        FsKind::Ext4Journal,
        FsKind::Ext4NoBarrier,
        FsKind::Ours("log"),
        FsKind::Ours("xlog"),
        FsKind::Ours("group"),
    ];
}

/// One stack: a file system on an FTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackSpec {
    pub fs: FsKind,
    /// `scftl`, `async`, `sync` or `optr` (`scftl format --ftl`).
    pub ftl: &'static str,
}

impl StackSpec {
    /// `ext4-ordered/async`, `fs-group/scftl`, ...
    pub fn name(&self) -> String {
        format!("{}/{}", self.fs.name(), self.ftl)
    }

    /// Every stack the paper's comparison needs: ext4 in both modes on all
    /// three FTLs; our file system in `log` mode on the two baselines (the
    /// only mode they can make crash safe) and in `xlog` and `group` mode
    /// on SCFTL (the modes only a snapshot-consistent FTL makes safe).
    pub fn all() -> Vec<StackSpec> {
        let mut v = Vec::new();
        for fs in [FsKind::Ext4Ordered, FsKind::Ext4Journal] {
            for ftl in ["async", "sync", "scftl"] {
                v.push(StackSpec { fs, ftl });
            }
        }
        for ftl in ["async", "sync"] {
            v.push(StackSpec {
                fs: FsKind::Ours("log"),
                ftl,
            });
        }
        for m in ["xlog", "group"] {
            v.push(StackSpec {
                fs: FsKind::Ours(m),
                ftl: "scftl",
            });
        }
        v
    }

    /// The OPTR stacks of issue 12 (deliverable 5), selectable with
    /// `--stacks` but not in the default set: ext4 with and without
    /// barriers on the order-preserving FTL, and ext4 without barriers on
    /// async (the crash comparison).
    pub fn optr() -> Vec<StackSpec> {
        vec![
            StackSpec {
                fs: FsKind::Ext4Ordered,
                ftl: "optr",
            },
            StackSpec {
                fs: FsKind::Ext4NoBarrier,
                ftl: "optr",
            },
            StackSpec {
                fs: FsKind::Ext4NoBarrier,
                ftl: "async",
            },
        ]
    }

    /// Every stack `--stacks` accepts: the default set, then the OPTR ones.
    pub fn selectable() -> Vec<StackSpec> {
        let mut v = StackSpec::all();
        v.extend(StackSpec::optr());
        v
    }

    /// Why this stack cannot run here (missing tools or permissions), or
    /// None if it can.
    pub fn missing(&self, launcher: &Launcher) -> Option<String> {
        if !launcher.scftl.is_file() {
            return Some(format!(
                "the scftl executable {} does not exist (build it with `cargo build -p scftl`, or pass --scftl)",
                launcher.scftl.display()
            ));
        }
        if !Path::new("/dev/fuse").exists() {
            return Some("/dev/fuse is missing (FUSE is needed by nbdfuse and scftl mount)".into());
        }
        let ext4 = self.fs.ext4_options().is_some();
        let tools: &[&str] = match self.fs {
            FsKind::Ours(_) => &["fusermount3"],
            _ => &[
                "nbdfuse",
                "losetup",
                "mkfs.ext4",
                "mount",
                "umount",
                "fusermount3",
            ],
        };
        let absent: Vec<&str> = tools
            .iter()
            .copied()
            .filter(|t| !proc::have_tool(t))
            .collect();
        if !absent.is_empty() {
            return Some(format!(
                "not installed: {} (Debian: nbdfuse, mount, e2fsprogs, fuse3)",
                absent.join(", ")
            ));
        }
        if ext4 && !proc::is_root() {
            return Some("needs root (loop devices and mount)".into());
        }
        None
    }
}

/// The selectable stacks named in `names`, in that order; an unknown name
/// is an error listing the valid ones.
pub fn by_names(names: &[String]) -> BResult<Vec<StackSpec>> {
    let all = StackSpec::selectable();
    names
        .iter()
        .map(|n| {
            all.iter().find(|s| s.name() == *n).copied().ok_or_else(|| {
                let valid: Vec<String> = all.iter().map(StackSpec::name).collect();
                format!("unknown stack `{n}`; stacks: {}", valid.join(", "))
            })
        })
        .collect()
}

/// Builds every command line that creates, serves or mounts a stack.
#[derive(Clone, Debug)]
pub struct Launcher {
    pub scftl: PathBuf,
    /// `--timing MODEL` for serve and mount; `none` leaves the flag out.
    pub timing: String,
    pub geometry: String,
    /// Logical size of every image, bytes: the same for every FTL, so each
    /// file system is made with the same layout (see [`Launcher::new`]).
    pub size_bytes: u64,
    /// Serve and mount fresh RAM devices (`--memory`) instead of image
    /// files, so a flush costs what the timing model says and not the host
    /// disk's `fdatasync`.
    pub memory: bool,
}

impl Launcher {
    /// A launcher whose images all expose SCFTL's default logical size on
    /// `geometry` (half the raw capacity; the baselines would otherwise
    /// expose more, and ext4 would lay itself out differently on them).
    pub fn new(scftl: PathBuf, timing: &str, geometry: &str) -> BResult<Launcher> {
        let g = flash::Geometry::preset(geometry).map_err(|e| format!("--geometry: {e}"))?;
        Ok(Launcher {
            scftl,
            timing: timing.to_string(),
            geometry: geometry.to_string(),
            size_bytes: g.raw_bytes() / 2,
            memory: false,
        })
    }

    /// The logical size of an image of `ftl`: [`Launcher::size_bytes`],
    /// except where OPTR cannot hold it (its cache and GC reserve take more
    /// than half the flash on the `small` geometry): then the largest whole
    /// MiB `scftl format` accepts for it (on `medium` and larger every FTL
    /// gets the same size).
    pub fn size_for(&self, ftl: &str) -> u64 {
        if ftl != "optr" {
            return self.size_bytes;
        }
        let Ok(g) = flash::Geometry::preset(&self.geometry) else {
            return self.size_bytes;
        };
        // `scftl format` accepts up to OPTR's default size (85% of what its
        // GC can serve).
        let max = ftl::optr::OptrConfig::default_for(&g).logical_sectors * u64::from(g.sector_size);
        self.size_bytes.min(max / (1 << 20) * (1 << 20))
    }

    fn scftl(&self) -> Command {
        Command::new(&self.scftl)
    }

    fn timing_args(&self) -> Vec<String> {
        if self.timing == "none" {
            Vec::new()
        } else {
            vec!["--timing".into(), self.timing.clone()]
        }
    }

    /// Fails with a clear message if a timing model is requested but this
    /// `scftl` has no `--timing` option on `serve` or `mount` (instead of
    /// every stack failing the same way).
    pub fn check_timing_supported(&self) -> BResult<()> {
        if self.timing == "none" || !self.scftl.is_file() {
            return Ok(());
        }
        for sub in ["serve", "mount"] {
            let out = proc::run_ok(self.scftl().args([sub, "--help"]), TOOL_LIMIT)?;
            if !out.contains("--timing") {
                return Err(format!(
                    "{} {sub} has no --timing option, so timing model `{}` cannot be applied; \
                     pass --timing none (the device then runs at the speed of its image file) \
                     or use an scftl that has it",
                    self.scftl.display(),
                    self.timing
                ));
            }
        }
        Ok(())
    }

    /// `scftl format IMAGE --geometry G --size BYTES --ftl FTL --force`.
    pub fn format(&self, image: &Path, ftl: &str) -> Command {
        let mut c = self.scftl();
        c.arg("format").arg(image).args([
            "--geometry",
            &self.geometry,
            "--size",
            &self.size_for(ftl).to_string(),
            "--ftl",
            ftl,
            "--force",
        ]);
        c
    }

    /// `scftl info --json IMAGE` (the FTL configuration for the report).
    pub fn info(&self, image: &Path) -> Command {
        let mut c = self.scftl();
        c.arg("info").arg(image).arg("--json");
        c
    }

    /// `scftl mkfs IMAGE`.
    pub fn mkfs(&self, image: &Path) -> Command {
        let mut c = self.scftl();
        c.arg("mkfs").arg(image);
        c
    }

    /// `--memory --ftl FTL --geometry G --size BYTES`: a fresh RAM device of
    /// the same shape [`Launcher::format`] gives an image.
    fn memory_args(&self, ftl: &str) -> Vec<String> {
        vec![
            "--memory".into(),
            "--ftl".into(),
            ftl.into(),
            "--geometry".into(),
            self.geometry.clone(),
            "--size".into(),
            self.size_for(ftl).to_string(),
        ]
    }

    /// `scftl serve IMAGE --listen 127.0.0.1:0 --quiet [--timing MODEL]`,
    /// or `scftl serve --memory --ftl FTL ...` when [`Launcher::memory`].
    pub fn serve(&self, image: &Path, ftl: &str) -> Command {
        let mut c = self.scftl();
        c.arg("serve");
        if self.memory {
            c.args(self.memory_args(ftl));
        } else {
            c.arg(image);
        }
        c.args(["--listen", "127.0.0.1:0", "--quiet"])
            .args(self.timing_args());
        c
    }

    /// `scftl mount IMAGE DIR --mode MODE [--timing MODEL]`, or `scftl mount
    /// --memory --ftl FTL ... DIR` (mkfs included) when [`Launcher::memory`].
    pub fn mount(&self, image: &Path, ftl: &str, dir: &Path, mode: &str) -> Command {
        let mut c = self.scftl();
        c.arg("mount");
        if self.memory {
            c.args(self.memory_args(ftl));
        } else {
            c.arg(image);
        }
        c.arg(dir).args(["--mode", mode]).args(self.timing_args());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(c: &Command) -> Vec<String> {
        c.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn timing_flag_is_passed_only_for_a_model() {
        let mut l = Launcher::new("scftl".into(), "none", "small").unwrap();
        assert_eq!(l.size_bytes, 32 << 20);
        assert_eq!(l.size_for("async"), 32 << 20);
        assert!(
            l.size_for("optr") < 32 << 20 && l.size_for("optr") >= 16 << 20,
            "{}",
            l.size_for("optr")
        );
        let m = Launcher::new("scftl".into(), "none", "medium").unwrap();
        assert_eq!(m.size_for("optr"), m.size_bytes);
        let (img, dir) = (Path::new("d.img"), Path::new("m"));
        assert!(!args(&l.serve(img, "scftl")).contains(&"--timing".to_string()));
        assert!(!args(&l.mount(img, "scftl", dir, "group")).contains(&"--timing".to_string()));
        l.timing = "paper".into();
        for c in [l.serve(img, "scftl"), l.mount(img, "async", dir, "log")] {
            let a = args(&c);
            let i = a.iter().position(|x| x == "--timing").expect("--timing");
            assert_eq!(a[i + 1], "paper");
        }
    }

    #[test]
    fn ten_stacks_with_unique_names() {
        let names: Vec<String> = StackSpec::all().iter().map(StackSpec::name).collect();
        assert_eq!(names.len(), 10);
        for n in [
            "ext4-ordered/async",
            "ext4-journal/scftl",
            "fs-log/sync",
            "fs-group/scftl",
        ] {
            assert!(names.contains(&n.to_string()), "{n}");
        }
        let mut dedup = names.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len());
    }

    #[test]
    fn optr_stacks_are_selectable_but_not_default() {
        let all: Vec<String> = StackSpec::all().iter().map(StackSpec::name).collect();
        let sel: Vec<String> = StackSpec::selectable()
            .iter()
            .map(StackSpec::name)
            .collect();
        for n in [
            "ext4-ordered/optr",
            "ext4-nobarrier/optr",
            "ext4-nobarrier/async",
        ] {
            assert!(sel.contains(&n.to_string()) && !all.contains(&n.to_string()));
        }
        let mut dedup = sel.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), sel.len());
        assert_eq!(
            FsKind::Ext4NoBarrier.ext4_options(),
            Some("data=ordered,nobarrier")
        );
    }
}
