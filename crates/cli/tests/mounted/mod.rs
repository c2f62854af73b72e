//! A running `scftl mount` for the FUSE tests, and the helpers around it:
//! make an image with a file system, run shell scripts, expect fsck clean.
//! Every test that uses it is skipped (with a visible message) without
//! /dev/fuse or fusermount3.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::{self, have, run_ok, scftl, spawn_with_stderr_lines, SCFTL};

pub const LIMIT: Duration = Duration::from_secs(120);

pub fn fuse_available(test: &str) -> bool {
    if !Path::new("/dev/fuse").exists() {
        eprintln!("SKIP: {test}: /dev/fuse is missing");
        return false;
    }
    have("fusermount3", test)
}

/// A running `scftl mount`; dropping it unmounts lazily and kills it.
pub struct Mounted {
    pub child: Child,
    pub mountpoint: PathBuf,
    pub log: mpsc::Receiver<String>,
    /// What `scftl mount` printed before it reported the mount.
    pub startup: Vec<String>,
}

impl Mounted {
    pub fn start(image: &Path, mountpoint: &Path, mode: &str) -> Mounted {
        let mut cmd = Command::new(SCFTL);
        cmd.arg("mount")
            .arg(image)
            .arg(mountpoint)
            .args(["--mode", mode]);
        // Only group mode has an idle flush (the others refuse the option).
        if mode == "group" {
            cmd.args(["--idle-flush-ms", "200"]);
        }
        Mounted::spawn(cmd, mountpoint)
    }

    /// Runs `cmd` (an `scftl mount` command line serving `mountpoint`) and
    /// waits until it reports the mount; what it printed before that is in
    /// `startup`.
    pub fn spawn(cmd: Command, mountpoint: &Path) -> Mounted {
        let (child, rx) = spawn_with_stderr_lines(cmd);
        let mut m = Mounted {
            child,
            mountpoint: mountpoint.to_path_buf(),
            log: rx,
            startup: Vec::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match m.log.recv_timeout(Duration::from_millis(100)) {
                Ok(line) if line.contains("scftl: mounted") => return m,
                Ok(line) => m.startup.push(line),
                Err(_) => {}
            }
            if let Some(s) = m.child.try_wait().unwrap() {
                while let Ok(l) = m.log.try_recv() {
                    m.startup.push(l);
                }
                panic!(
                    "scftl mount exited ({s}) before mounting:\n{}",
                    m.startup.join("\n")
                );
            }
            assert!(
                Instant::now() < deadline,
                "scftl mount did not mount within 60 s:\n{}",
                m.startup.join("\n")
            );
        }
    }

    /// Unmounts with fusermount3, expects a clean exit 0 and returns what
    /// `scftl mount` printed while exiting.
    /// The kernel drops its last references to a mount (a just-closed
    /// file, a process that just left the directory) asynchronously, so
    /// "Device or resource busy" is retried for a few seconds.
    pub fn unmount(mut self) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let out = common::run_with_deadline(
                Command::new("fusermount3").arg("-u").arg(&self.mountpoint),
                LIMIT,
            );
            if out.status.success() {
                break;
            }
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(
                err.contains("busy") && Instant::now() < deadline,
                "fusermount3 -u {} failed: {err}",
                self.mountpoint.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        self.wait_exit()
    }

    /// Sends `signal` and expects a clean exit 0.
    pub fn stop_with(mut self, signal: &str) {
        let pid = self.child.id().to_string();
        run_ok(Command::new("kill").args([signal, &pid]), LIMIT);
        self.wait_exit();
    }

    fn wait_exit(&mut self) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "scftl mount did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut lines = Vec::new();
        while let Ok(l) = self.log.recv_timeout(Duration::from_millis(500)) {
            lines.push(l);
        }
        assert!(
            status.success(),
            "scftl mount exited with {status}:\n{}",
            lines.join("\n")
        );
        assert!(
            lines.iter().any(|l| l.contains("unmounted and flushed")),
            "no final flush reported:\n{}",
            lines.join("\n")
        );
        lines
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        // Also after the process died: a killed `scftl mount` leaves a dead
        // mount behind.
        let _ = Command::new("fusermount3")
            .arg("-u")
            .arg("-z")
            .arg(&self.mountpoint)
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `script` in `cwd` as uid and gid 65534 (nobody), as pjdfstest's
/// checks of other users do; returns whether it succeeded, and its stderr.
pub fn sh_as_nobody(script: &str, cwd: &Path) -> (bool, String) {
    let out = common::run_with_deadline(
        Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "sh",
                "-ec",
                script,
            ])
            .current_dir(cwd),
        LIMIT,
    );
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn sh(script: &str, cwd: &Path) -> String {
    run_ok(
        Command::new("sh").args(["-ec", script]).current_dir(cwd),
        LIMIT,
    )
}

/// A fresh scftl image of 256 MiB with a file system.
pub fn image(dir: &Path, name: &str, ftl: &str) -> PathBuf {
    let img = common::format(dir, name, &["--size", "256MiB", "--ftl", ftl]);
    let out = scftl(&["mkfs", name], dir);
    assert!(
        out.status.success(),
        "mkfs failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    img
}

pub fn fsck_clean(dir: &Path, name: &str) {
    let out = scftl(&["fsck", name], dir);
    assert!(
        out.status.success(),
        "fsck not clean:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A scratch directory for images, on tmpfs (/dev/shm) when there is one.
/// Every device flush of an image on disk is an `fdatasync` of the host's
/// disk; what these tests check is the FTL's flush, not the host's, and
/// SQLite's thousands of fsyncs in `log` mode (two flushes each) take
/// minutes on a busy disk and seconds on tmpfs.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::Builder::new()
            .prefix("scftl-fuse")
            .tempdir_in(shm)
        {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}
