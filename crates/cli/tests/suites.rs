//! Third-party file-system test suites against `scftl mount`, in each
//! commit mode (log on the async FTL, the mode for FTLs without
//! snapshots; xlog and group on scftl):
//!
//! - pjdfstest (the POSIX conformance suite, its Rust rewrite from
//!   crates.io, pinned by `.ci/run`), run as root with `--allow-other` as
//!   its README asks, switching to two unprivileged users; every test must
//!   pass, and the skipped ones must be exactly [`PJD_SKIPPED`], each with
//!   its reason there;
//! - fsx (the file-system exerciser, Rust port from crates.io), 20,000
//!   operations per seed with every fallocate mode it knows (posix_fallocate
//!   and punch hole) beside reads, writes, mmap, truncate, fsync and
//!   copy_file_range, on seeds 1..=5 (`SCFTL_FSX_SEEDS` sets another
//!   count). On tmpfs a seed takes 2–4 s in a debug build.
//!
//! Each finds its program on PATH (`.ci/run` installs both under
//! `target/tools/bin`) and is skipped, with a visible message, without it,
//! without FUSE, or (pjdfstest) without root. Each run ends with an
//! unmount and a clean fsck.

mod common;
mod mounted;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{have, is_root, run_with_deadline, SCFTL};
use mounted::{fsck_clean, fuse_available, image, Mounted};

/// The tests pjdfstest skips here, and why none of them applies.
const PJD_SKIPPED: [(&str, &str); 14] = [
    // 13 tests need the file system remounted read-only: pjdfstest runs
    // `mount -o remount,ro`, which mount(8) hands to mount.fuse3 as a new
    // FUSE mount of a program named by the source ("scftl:IMAGE"); a FUSE
    // file system cannot be remounted in place this way, so
    // `allow_remount` stays off.
    ("chmod::erofs_named", "remount read-only"),
    ("chown::erofs_named", "remount read-only"),
    ("chown::lchown::erofs_named", "remount read-only"),
    ("link::erofs_named", "remount read-only"),
    ("mkdir::erofs_new_file", "remount read-only"),
    ("mkfifo::erofs_new_file", "remount read-only"),
    ("open::erofs_named", "remount read-only"),
    ("open::erofs_new_file", "remount read-only"),
    ("rename::erofs_named", "remount read-only"),
    ("rmdir::erofs_named", "remount read-only"),
    ("symlink::erofs_new_file", "remount read-only"),
    ("truncate::erofs_named", "remount read-only"),
    ("unlink::erofs_named", "remount read-only"),
    // pathconf(LINK_MAX) on Linux answers from a table of known file-system
    // magic numbers; FUSE's is not in it, so the limit is "unknown" and the
    // test cannot know how many links to make. (Our limit, `fs::LINK_MAX`,
    // is covered by crates/fs/tests/ops.rs.)
    (
        "link::link_count_max",
        "LINK_MAX unknown to pathconf on FUSE",
    ),
];

/// The configuration pjdfstest reads: the optional features this file
/// system has, and two existing unprivileged users (Debian has both) for
/// the tests that switch users.
const PJD_CONFIG: &str = r#"
[features]
posix_fallocate = {}
utime_now = {}
utimensat = {}
rename_ctime = {}

[settings]
naptime = 0.001
allow_remount = false

[dummy_auth]
entries = [
  ["nobody", "nogroup"],
  ["daemon", "daemon"],
]
"#;

/// A scratch directory others may enter (the users pjdfstest switches to
/// must reach the mount point).
fn open_scratch() -> tempfile::TempDir {
    let dir = mounted::scratch_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Mounts a fresh image of `ftl` in `mode` under `d/mnt`.
fn mount(d: &Path, mode: &str, ftl: &str, allow_other: bool) -> Mounted {
    image(d, "fs.img", ftl);
    std::fs::create_dir(d.join("mnt")).unwrap();
    let mut cmd = Command::new(SCFTL);
    cmd.current_dir(d)
        .args(["mount", "fs.img", "mnt", "--mode", mode]);
    if allow_other {
        cmd.arg("--allow-other");
    }
    Mounted::spawn(cmd, &d.join("mnt"))
}

/// Test names pjdfstest printed with `skipped`.
fn skipped(out: &str) -> Vec<String> {
    let mut v: Vec<String> = out
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            match (w.next(), w.next(), w.next()) {
                (Some(name), Some("skipped"), None) => Some(name.to_string()),
                _ => None,
            }
        })
        .collect();
    v.sort();
    v
}

fn pjdfstest_in(mode: &str, ftl: &str) {
    let test = &format!("pjdfstest_{mode}");
    if !fuse_available(test) || !is_root(test) || !have("pjdfstest", test) {
        return;
    }
    let dir = open_scratch();
    let d = dir.path();
    std::fs::write(d.join("pjdfstest.toml"), PJD_CONFIG).unwrap();
    // A second file system for the EXDEV tests: the scratch directory's.
    std::fs::create_dir(d.join("other")).unwrap();
    std::fs::set_permissions(d.join("other"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let m = mount(d, mode, ftl, true);
    let started = Instant::now();
    let out = run_with_deadline(
        Command::new("pjdfstest")
            .current_dir(d)
            .args(["-c", "pjdfstest.toml", "-p"])
            .arg(d.join("mnt"))
            .arg("-s")
            .arg(d.join("other")),
        Duration::from_secs(900),
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let failed: Vec<&str> = text.lines().filter(|l| l.ends_with("FAILED")).collect();
    assert!(
        out.status.success() && failed.is_empty(),
        "{mode}: pjdfstest failed:\n{}\n{}",
        failed.join("\n"),
        &text[text.len().saturating_sub(4000)..]
    );
    let summary = text
        .lines()
        .find(|l| l.starts_with("Summary:"))
        .unwrap_or_else(|| panic!("{mode}: no summary from pjdfstest:\n{text}"));
    eprintln!(
        "{mode}: pjdfstest {summary} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut want: Vec<String> = PJD_SKIPPED.iter().map(|(t, _)| t.to_string()).collect();
    want.sort();
    assert_eq!(
        skipped(&text),
        want,
        "{mode}: pjdfstest skipped another set"
    );
    // The suite ran: hundreds of tests passed, not a filtered few.
    let passed: u64 = summary
        .split(',')
        .find_map(|p| p.trim().strip_suffix(" passed")?.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 350, "{mode}: only {passed} passed: {summary}");
    m.unmount();
    fsck_clean(d, "fs.img");
}

#[test]
fn pjdfstest_log() {
    pjdfstest_in("log", "async");
}

#[test]
fn pjdfstest_xlog() {
    pjdfstest_in("xlog", "scftl");
}

#[test]
fn pjdfstest_group() {
    pjdfstest_in("group", "scftl");
}

/// fsx's configuration: a 256 KiB file, every operation it has on Linux
/// but sendfile and posix_fadvise (neither reaches the file system).
const FSX_CONFIG: &str = r#"
flen = 262144
[weights]
close_open = 0.05
invalidate = 0.05
mapread = 1.0
mapwrite = 1.0
read = 1.0
write = 1.0
truncate = 1.0
fsync = 0.1
fdatasync = 0.1
posix_fallocate = 1.0
punch_hole = 1.0
copy_file_range = 0.5
"#;

const FSX_OPS: &str = "20000";

fn fsx_in(mode: &str, ftl: &str) {
    let test = &format!("fsx_{mode}");
    if !fuse_available(test) || !have("fsx", test) {
        return;
    }
    let seeds: u64 = std::env::var("SCFTL_FSX_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = open_scratch();
    let d = dir.path();
    std::fs::write(d.join("fsx.toml"), FSX_CONFIG).unwrap();
    let m = mount(d, mode, ftl, false);
    for seed in 1..=seeds {
        let started = Instant::now();
        let file = d.join(format!("mnt/fsx{seed}"));
        let out = run_with_deadline(
            Command::new("fsx")
                .current_dir(d)
                .args([
                    "-f",
                    "fsx.toml",
                    "-N",
                    FSX_OPS,
                    "-S",
                    &seed.to_string(),
                    "-P",
                ])
                .arg(d)
                .arg(&file),
            Duration::from_secs(900),
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && !text.contains("not support"),
            "{mode}: fsx seed {seed} failed:\n{}",
            &text[..text.len().min(6000)]
        );
        eprintln!(
            "{mode}: fsx seed {seed}, {FSX_OPS} ops: passed in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    m.unmount();
    fsck_clean(d, "fs.img");
}

#[test]
fn fsx_log() {
    fsx_in("log", "async");
}

#[test]
fn fsx_xlog() {
    fsx_in("xlog", "scftl");
}

#[test]
fn fsx_group() {
    fsx_in("group", "scftl");
}

#[test]
fn pjd_skip_parser_reads_the_runner_format() {
    let out = "chmod::erofs_named                         skipped\n\
               \tRemounts are not allowed\n\
               chmod::ok_case                             ok\n\
               link::link_count_max                       skipped\n";
    assert_eq!(
        skipped(out),
        vec![
            "chmod::erofs_named".to_string(),
            "link::link_count_max".to_string()
        ]
    );
}
