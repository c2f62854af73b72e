//! `scftl bench app-crash` on ext4 without barriers over OPTR (issue 12,
//! deliverable 5): two seeded kill -9 cuts of `scftl serve` while SQLite
//! commits and files are fsynced, each followed by recovery. Every cut must
//! leave a file system `e2fsck -fn` finds clean, a database that passes
//! `PRAGMA integrity_check` with no torn transaction, and everything
//! acknowledged before the last completed device flush.
//!
//! Needs root, /dev/fuse, nbdfuse, losetup, mkfs.ext4, e2fsck and Python 3
//! with sqlite3; skips with the reason otherwise. Small geometry, no timing
//! model: about 15 s. A second test, the canary, breaks a finished run in the
//! ways a reordering device could and asserts the check rejects each.

mod common;

use clap::Parser;
use common::build_scftl;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

#[test]
fn ext4_nobarrier_on_optr_survives_kill_9_of_the_server() {
    let stack = "ext4-nobarrier/optr";
    let spec = bench::app::stack::by_names(&[stack.to_string()]).unwrap()[0];
    let probe = bench::app::stack::Launcher::new("/bin/true".into(), "none", "small").unwrap();
    let why = spec
        .missing(&probe)
        .filter(|w| !w.contains("scftl executable"))
        .or_else(|| {
            (!std::path::Path::new("/usr/sbin/e2fsck").exists()
                && !std::path::Path::new("/sbin/e2fsck").exists())
            .then(|| "e2fsck is not installed (e2fsprogs)".to_string())
        })
        .or_else(|| bench::app::workloads::Driver::unavailable(std::path::Path::new("python3")));
    if let Some(why) = why {
        eprintln!("SKIP: ext4_nobarrier_on_optr_survives_kill_9_of_the_server: {why}");
        return;
    }
    let scftl = build_scftl();
    let argv = [
        "bench",
        "app-crash",
        "--quick",
        "--silent",
        "--timing",
        "none",
        "--stacks",
        stack,
        "--cuts",
        "2",
        "--min-ms",
        "400",
        "--max-ms",
        "1500",
        "--flush-ms",
        "300",
        "--scftl",
        scftl.to_str().unwrap(),
    ];
    let cli = Cli::try_parse_from(argv).unwrap();
    let bench::BenchCommand::AppCrash(args) = &cli.cmd else {
        panic!("not the app-crash command")
    };
    let rep = bench::app::crash::run(args).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert_eq!(rep.cuts.len(), 2);
    for c in &rep.cuts {
        assert!(c.harness_error.is_none(), "{c:?}");
        assert_eq!(c.e2fsck.as_deref(), Some("clean"), "{c:?}");
        assert!(
            matches!(c.integrity.as_deref(), Some("ok") | Some("absent")),
            "{c:?}"
        );
        assert!(c.violations.is_empty(), "{c:?}");
        assert!(
            c.acked > 0,
            "the workload made no progress before the cut: {c:?}"
        );
        assert!(c.passed(), "{c:?}");
    }
    // The device flushes make part of the work durable, so the check
    // judged a non-empty database at least once.
    assert!(
        rep.cuts
            .iter()
            .any(|c| c.durable > 0 && c.rows.unwrap_or(0) >= c.durable),
        "{:?}",
        rep.cuts
    );
}

/// The canary: the crash check must reject what a reordering or tearing
/// stack could leave behind — a transaction whose counter and row disagree,
/// a file with wrong contents, a gap in the files, and a complete file
/// whose earlier transaction is lost. Runs the driver in a plain
/// directory; no mount needed.
#[test]
fn crash_check_catches_broken_states() {
    use bench::app::workloads::{Driver, DRIVER};
    use std::path::Path;
    use std::process::Command;

    if let Some(why) = Driver::unavailable(Path::new("python3")) {
        eprintln!("SKIP: crash_check_catches_broken_states: {why}");
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let script = base.path().join("driver.py");
    std::fs::write(&script, DRIVER).unwrap();
    let driver = |action: &str, dir: &Path| {
        Command::new("python3")
            .arg(&script)
            .args([action, "crash"])
            .arg(dir)
            .args(["5", "9"])
            .output()
            .unwrap()
    };
    let fresh = |name: &str| {
        let d = base.path().join(name);
        std::fs::create_dir(&d).unwrap();
        let out = driver("run", &d);
        assert!(out.status.success(), "{out:?}");
        d
    };
    let sql = |d: &Path, stmt: &str| {
        let out = Command::new("python3")
            .args([
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
            ])
            .arg(d.join("crash.db"))
            .arg(stmt)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    let verdict = |d: &Path| {
        let out = driver("check", d);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };

    let ok = fresh("ok");
    let (good, text) = verdict(&ok);
    assert!(good && text.contains("\"rows\": 5"), "{text}");

    let torn = fresh("torn");
    sql(&torn, "DELETE FROM t WHERE id = 4");
    let (good, text) = verdict(&torn);
    assert!(!good && text.contains("torn transaction"), "{text}");

    let garbled = fresh("garbled");
    std::fs::write(garbled.join("files/f0000001"), b"short").unwrap();
    let (good, text) = verdict(&garbled);
    assert!(!good && text.contains("f0000001"), "{text}");

    let gap = fresh("gap");
    std::fs::remove_file(gap.join("files/f0000002")).unwrap();
    let (good, text) = verdict(&gap);
    assert!(!good && text.contains("not a prefix"), "{text}");

    let reordered = fresh("reordered");
    sql(&reordered, "DELETE FROM t WHERE id >= 2");
    sql(&reordered, "UPDATE m SET n = 2");
    let (good, text) = verdict(&reordered);
    assert!(!good && text.contains("a later write survived"), "{text}");
}
