//! `scftl explore` finds real crash bugs and raises no false alarm: each
//! program of crates/cli/tests/crash-bugs/ in a buggy and a correct
//! version, recorded with `--workload` and explored under every contract.
//!
//! | program | bug | found under |
//! |---|---|---|
//! | record.py (raw device) | a two-block record overwritten in place | prefix, async — never snapshot |
//! | rename (ext4, noauto_da_alloc) | write + rename without fsync | snapshot, prefix, async |
//! | sqlite.sh (ext4) | `PRAGMA synchronous=OFF` | snapshot, prefix, async |
//!
//! The correct versions (two alternating slots; fsync file, rename, fsync
//! directory; `synchronous=FULL`) pass every state of every contract.
//! Also: `serve --record` under a real client killed with -9 leaves a
//! trace explore reads, and a replay (`--state ID --keep FILE`) reproduces
//! a reported failure. Needs root, nbdfuse, losetup, mkfs.ext4, python3
//! and sqlite3; each part that lacks one says SKIP.
//!
//! One exploration at a time ([`explore`] holds [`SERIAL`]), and setups
//! sync their own file system only (`sync -f .`): a bug a workload shows
//! depends on the order in which the kernel writes back, and a `sync(2)`
//! from a parallel test's setup or workload, landing between the rename
//! and `sync other`, writes the renamed file's data before the rename
//! commits — a recording with no bug state (seen in CI: 0 failed states).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::*;

fn bugs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crash-bugs")
}

/// Held by every [`explore`] run (see the module's doc).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn explore(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    // A failed test poisons the lock; the next run needs only the order.
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out: Output = run_with_deadline(
        Command::new(SCFTL).arg("explore").args(args).arg("--json"),
        Duration::from_secs(600),
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "explore {args:?}: no JSON report ({e}), exit {:?}\nstdout: {}\nstderr: {stderr}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code(), json, stderr)
}

/// Failed states per contract, in snapshot, prefix, async order.
fn failed(report: &serde_json::Value) -> Vec<(String, u64, u64)> {
    report["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["contract"].as_str().unwrap().to_string(),
                c["distinct"].as_u64().unwrap(),
                c["failed"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn can_run(test: &str, tools: &[&str]) -> bool {
    is_root(test) && tools.iter().all(|t| have(t, test))
}

#[test]
fn an_in_place_record_update_tears_on_prefix_and_async_disks_only() {
    if !can_run("explore record", &["nbdfuse", "losetup", "python3"]) {
        return;
    }
    let p = bugs().join("record.py");
    let p = p.to_str().unwrap();
    let run = |flags: &str| {
        explore(&[
            "--fs",
            "none",
            "--setup",
            &format!("python3 {p} write $SCFTL_DEV 1 {flags}"),
            "--workload",
            &format!("python3 {p} write $SCFTL_DEV 4 {flags}"),
            "--check",
            &format!("python3 {p} check $1"),
        ])
    };
    let (code, bug, err) = run("--in-place");
    assert_eq!(code, Some(3), "{bug}\n{err}");
    let f = failed(&bug);
    assert_eq!(f[0].0, "snapshot");
    assert_eq!(f[0].2, 0, "a snapshot disk keeps whole records: {f:?}");
    assert!(f[1].2 > 0 && f[2].2 > 0, "prefix and async tear it: {f:?}");
    // The async failures minimize to one missing write: a record's
    // first block (the checksum covers both).
    let a = &bug["contracts"][2]["failures"][0];
    assert_eq!(a["dropped"].as_array().unwrap().len(), 1, "{a}");
    assert!(
        a["dropped"][0].as_str().unwrap().contains("sectors 0+1"),
        "{a}"
    );

    let (code, ok, err) = run("");
    assert_eq!(code, Some(0), "{ok}\n{err}");
    for (c, n, fails) in failed(&ok) {
        assert_eq!(fails, 0, "{c}: the two-slot version fails");
        assert!(n > 2, "{c}: only {n} states");
    }
}

#[test]
fn rename_without_fsync_loses_the_file_and_the_fsynced_version_does_not() {
    if !can_run("explore rename", &["nbdfuse", "losetup", "mkfs.ext4"]) {
        return;
    }
    let run = |work: &str| {
        explore(&[
            "--fs",
            "ext4",
            "--mount-options",
            // ext4 otherwise flushes a file renamed over another early,
            // hiding the bug on this one file system.
            "noauto_da_alloc",
            "--setup",
            "printf 'version 1\\n' > config; sync -f .",
            "--workload",
            work,
            "--check",
            "grep -qx 'version [12]' config",
        ])
    };
    let (code, bug, err) =
        run("printf 'version 2\\n' > config.tmp; mv config.tmp config; echo x > other; sync other");
    assert_eq!(code, Some(3), "{bug}\n{err}");
    for (c, _, fails) in failed(&bug) {
        assert!(
            fails > 0,
            "{c}: the empty config after `sync other` is missed"
        );
    }
    let (code, ok, err) = run(
        "printf 'version 2\\n' > config.tmp; sync config.tmp; mv config.tmp config; sync .; \
         echo x > other; sync other",
    );
    assert_eq!(code, Some(0), "{ok}\n{err}");
    assert!(failed(&ok).iter().all(|c| c.2 == 0), "{ok}");
}

#[test]
fn sqlite_with_synchronous_off_corrupts_and_full_does_not() {
    if !can_run(
        "explore sqlite",
        &["nbdfuse", "losetup", "mkfs.ext4", "sqlite3"],
    ) {
        return;
    }
    let s = bugs().join("sqlite.sh");
    let s = s.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("off.trace");
    let run = |mode: &str, save: Option<&Path>| {
        let setup = format!("{s} setup");
        let work = format!("{s} work {mode} 8");
        let check = format!("{s} check");
        let mut args = vec![
            "--fs",
            "ext4",
            "--setup",
            &setup,
            "--workload",
            &work,
            "--check",
            &check,
        ];
        let save = save.map(|p| p.to_str().unwrap().to_string());
        if let Some(p) = &save {
            args.extend(["--save-trace", p]);
        }
        explore(&args)
    };
    let (code, bug, err) = run("off", Some(&trace));
    assert_eq!(code, Some(3), "{bug}\n{err}");
    let f = failed(&bug);
    assert!(f[1].2 > 0 && f[2].2 > 0, "{f:?}");
    // The replay command of a failure reproduces it, and keeps the image.
    let id = bug["contracts"][2]["failures"][0]["minimized"]
        .as_str()
        .unwrap()
        .to_string();
    let kept = dir.path().join("state.img");
    let out = run_with_deadline(
        Command::new(SCFTL).args([
            "explore",
            trace.to_str().unwrap(),
            "--state",
            &id,
            "--fs",
            "ext4",
            "--check",
            &format!("{s} check"),
            "--keep",
            kept.to_str().unwrap(),
        ]),
        Duration::from_secs(120),
    );
    assert_eq!(out.status.code(), Some(3), "replay of {id}: {out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAILED"));
    assert!(std::fs::metadata(&kept).unwrap().len() > 0);

    let (code, ok, err) = run("full", None);
    assert_eq!(code, Some(0), "{ok}\n{err}");
    assert!(failed(&ok).iter().all(|c| c.2 == 0), "{ok}");
}

#[test]
fn a_trace_of_a_server_killed_mid_run_reads_back_to_its_last_flush() {
    if !have("qemu-io", "explore record kill") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(
        dir.path(),
        "d.img",
        &["--geometry", "small", "--size", "16MiB"],
    );
    let trace = dir.path().join("t.trace");
    let t = trace.to_str().unwrap();
    let mut srv = ServerProc::start(&img, &["--record", t]);
    // Writethrough: a flush after each write.
    qemu_io_output(&srv.uri(), &["write -P 0x11 0 64k", "write -P 0x22 1M 8k"]);
    // Writeback: these are not flushed.
    let mut c = Command::new("qemu-io");
    c.args([
        "-t",
        "writeback",
        "-f",
        "raw",
        &srv.uri(),
        "-c",
        "write -P 0x33 2M 4k",
    ]);
    run_with_deadline(&mut c, Duration::from_secs(60));
    srv.kill9();
    let out = scftl(&["explore", t, "--count-only", "--json"], dir.path());
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let snap = &v[0];
    assert_eq!(snap["contract"], "snapshot");
    // Base, then each flushed write (qemu-io flushes on close too).
    assert!(snap["distinct"].as_u64().unwrap() >= 3, "{v}");
    let o = scftl(
        &[
            "explore",
            t,
            "--count-only",
            "--contract",
            "prefix",
            "--json",
        ],
        dir.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v[0]["distinct"].as_u64().unwrap() >= 4,
        "base and three writes: {v}"
    );
    // Byte 0 holds 0x11 in every snapshot state but the base.
    let o = scftl(
        &[
            "explore",
            t,
            "--fs",
            "none",
            "--contract",
            "snapshot",
            "--json",
            "--check",
            "test \"$(od -An -tx1 -N 1 \"$1\" | tr -d ' ')\" = 11",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["contracts"][0]["failed"], 1, "{v}");
    assert_eq!(v["contracts"][0]["failures"][0]["first"], "0", "{v}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no END record"),
        "a killed recorder is reported: {o:?}"
    );
    // An existing trace is never overwritten.
    let again = Command::new(SCFTL)
        .args([
            "serve",
            img.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--record",
            t,
        ])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("exists"),
        "{again:?}"
    );
}

#[test]
fn our_group_mode_needs_a_snapshot_disk_and_log_mode_does_not() {
    if !have("fusermount3", "explore fs-group") || !Path::new("/dev/fuse").exists() {
        return;
    }
    let work = "mkdir d; for i in $(seq 10); do echo \"file $i\" > d/f$i; done; \
                mv d/f1 d/g1; rm d/f2; sync";
    let run = |fs: &str, ftl: &str| {
        explore(&[
            "--fs",
            fs,
            "--ftl",
            ftl,
            "--workload",
            work,
            "--check",
            "test -d d || test ! -e d",
            "--async-samples",
            "24",
            "--max-states",
            "120",
        ])
    };
    // Group commit keeps no journal: it is crash safe only because SCFTL
    // keeps nothing between flushes.
    let (code, group, err) = run("fs-group", "scftl");
    assert_eq!(code, Some(3), "{group}\n{err}");
    let f = failed(&group);
    assert_eq!(f[0].2, 0, "snapshot states are whole: {f:?}");
    assert!(f[1].2 > 0 && f[2].2 > 0, "prefix and async break it: {f:?}");
    assert!(
        group["contracts"][2]["failures"][0]["why"]
            .as_str()
            .unwrap()
            .contains("scftl fsck"),
        "{group}"
    );
    // The write-ahead log of log mode, recorded on the async FTL, survives
    // every state.
    let (code, log, err) = run("fs-log", "async");
    assert_eq!(code, Some(0), "{log}\n{err}");
    assert!(failed(&log).iter().all(|c| c.2 == 0), "{log}");
}
