//! The storage stacks of the application benchmark: which exist, what each
//! needs, and the command lines that create, serve and mount them
//! (bringing them up and down is `mounted.rs`).
//!
//! A stack is a file system over an FTL: ext4 (`data=ordered`, or
//! `data=journal,journal_async_commit`) on an NBD export of `scftl serve`,
//! reached through nbdfuse and a loop device (no /dev/nbd needed), or our
//! own file system mounted by `scftl mount` in `log`, `xlog` or `group`
//! mode. Every command line that starts a stack is built by [`Launcher`],
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
    /// Our file system (crate `fs`) in a commit mode: `log`, `xlog`, `group`.
    Ours(&'static str),
}

impl FsKind {
    /// Short name: `ext4-ordered`, `ext4-journal`, `fs-log`, ...
    pub fn name(self) -> String {
        match self {
            FsKind::Ext4Ordered => "ext4-ordered".into(),
            FsKind::Ext4Journal => "ext4-journal".into(),
            FsKind::Ours(m) => format!("fs-{m}"),
        }
    }

    /// The file systems in report order (the chart's x axis).
    pub const ALL: [FsKind; 5] = [
        FsKind::Ext4Ordered,
        FsKind::Ext4Journal,
        FsKind::Ours("log"),
        FsKind::Ours("xlog"),
        FsKind::Ours("group"),
    ];
}

/// One stack: a file system on an FTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackSpec {
    pub fs: FsKind,
    /// `scftl`, `async` or `sync` (`scftl format --ftl`).
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
        let tools: &[&str] = match self.fs {
            FsKind::Ext4Ordered | FsKind::Ext4Journal => &[
                "nbdfuse",
                "losetup",
                "mkfs.ext4",
                "mount",
                "umount",
                "fusermount3",
            ],
            FsKind::Ours(_) => &["fusermount3"],
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
        if matches!(self.fs, FsKind::Ext4Ordered | FsKind::Ext4Journal) && !proc::is_root() {
            return Some("needs root (loop devices and mount)".into());
        }
        None
    }
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
            &self.size_bytes.to_string(),
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
            self.size_bytes.to_string(),
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
}
