//! `scftl bench app --quick` end to end: every stack either runs every
//! workload and passes its correctness check, or is reported as skipped
//! with a reason (printed here); the JSON and PNG are produced. Timings are
//! never asserted.
//!
//! The stacks are child processes of the `scftl` executable, which this
//! test builds first with `cargo build -p scftl` (`common::build_scftl`) so
//! it never drives a stale binary. The timing model is `none` (images in a temporary directory run
//! at the speed of the disk), so the test does not depend on `--timing`.

mod common;

use std::process::Command;

use clap::Parser;
use common::build_scftl;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

// The ten default stacks in two halves, one test each, so that the
// harness runs them side by side (each run waits on mounts, fsyncs and
// child processes more than it computes). Every ratio is about
// fs-group/scftl, so the half with it checks the ratios.
#[test]
fn app_quick_measures_or_skips_the_ordered_and_snapshot_stacks() {
    app_quick(FIRST_HALF, true);
}

#[test]
fn app_quick_measures_or_skips_the_journal_and_log_stacks() {
    app_quick(SECOND_HALF, false);
}

#[test]
fn the_two_halves_cover_every_default_stack() {
    let all = bench::app::stack::StackSpec::all();
    assert_eq!(all.len(), 10);
    for s in &all {
        let n = s.name();
        let halves = [FIRST_HALF, SECOND_HALF]
            .iter()
            .filter(|h| h.split(',').any(|x| x == n))
            .count();
        assert_eq!(halves, 1, "{n} must be in exactly one half");
    }
}

const FIRST_HALF: &str =
    "ext4-ordered/async,ext4-ordered/sync,ext4-ordered/scftl,fs-xlog/scftl,fs-group/scftl";
const SECOND_HALF: &str =
    "ext4-journal/async,ext4-journal/sync,ext4-journal/scftl,fs-log/async,fs-log/sync";

/// Runs `scftl bench app --quick` on the stacks `names` lists
/// (comma-separated) and checks every run, the JSON and the PNG.
fn app_quick(names: &str, with_ratios: bool) {
    let stacks: Vec<_> = bench::app::stack::StackSpec::all()
        .into_iter()
        .filter(|s| names.split(',').any(|n| n == s.name()))
        .collect();
    assert_eq!(
        stacks.len(),
        names.split(',').count(),
        "not all stacks: {names}"
    );
    let scftl = build_scftl();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("app.json");
    let png = dir.path().join("app.png");
    let argv = [
        "bench",
        "app",
        "--quick",
        "--timing",
        "none",
        "--stacks",
        names,
        "--scftl",
        scftl.to_str().unwrap(),
        "--json-out",
        json.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ];
    let cli = Cli::try_parse_from(argv).unwrap();
    let bench::BenchCommand::App(args) = &cli.cmd else {
        panic!("not the app command")
    };
    let rep = bench::app::run(args).unwrap_or_else(|e| panic!("{argv:?}: {e}"));

    assert_eq!(
        rep.runs.len(),
        stacks.len() * 4,
        "one run per stack and workload"
    );
    for s in &stacks {
        for w in ["sqlite", "smallfiles", "largefile", "mailbench"] {
            let r = rep
                .runs
                .iter()
                .find(|r| r.stack == s.name() && r.workload == w)
                .unwrap_or_else(|| panic!("{} {w} is missing from the report", s.name()));
            match r.status {
                bench::app::Status::Measured => {
                    assert_eq!(r.check.as_deref(), Some("passed"), "{r:?}");
                    assert!(r.metric.is_some_and(|m| m > 0.0), "{r:?}");
                    // Every workload fsyncs, so the device below flushed
                    // and programmed pages while it ran.
                    assert!(r.flushes_per_op.is_some_and(|f| f > 0.0), "{r:?}");
                    assert!(r.pages_per_op.is_some_and(|p| p > 0.0), "{r:?}");
                    assert!(r.dev_kib_per_op.is_some_and(|k| k > 0.0), "{r:?}");
                }
                bench::app::Status::Skipped => {
                    let why = r.reason.as_deref().unwrap_or("");
                    assert!(!why.is_empty(), "skipped without a reason: {r:?}");
                    eprintln!("SKIP: {} {w}: {why}", r.stack);
                }
                bench::app::Status::Failed => panic!(
                    "{} {w} failed: {}",
                    r.stack,
                    r.reason.as_deref().unwrap_or("")
                ),
            }
        }
    }

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["bench"], "app");
    assert_eq!(v["timing"], "none");
    assert!(v["commit"].is_string() && v["geometry"] == "small");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), rep.runs.len());
    for r in runs {
        match r["status"].as_str() {
            Some("measured") => assert_eq!(r["check"], "passed", "{r}"),
            Some("skipped") => assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty())),
            other => panic!("unexpected status {other:?}: {r}"),
        }
    }
    let ratios = v["ratios"].as_array().expect("ratios");
    assert_eq!(!ratios.is_empty(), with_ratios, "{ratios:?}");
    let png_bytes = std::fs::read(&png).unwrap();
    assert_eq!(&png_bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
}

/// The canary: each workload's check must reject what a wrong stack could
/// leave behind (a lost SQLite update, a short or altered file, a message
/// left in tmp/). Runs the driver in a plain directory, no mount needed.
#[test]
fn checks_catch_wrong_results() {
    use bench::app::workloads::{Driver, Workload, DRIVER};
    use bench::args::WorkloadArg;

    let python = std::path::Path::new("python3");
    if let Some(why) = Driver::unavailable(python) {
        eprintln!("SKIP: checks_catch_wrong_results: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("driver.py");
    std::fs::write(&script, DRIVER).unwrap();
    let d = Driver {
        python,
        script: &script,
        seed: 7,
        limit: std::time::Duration::from_secs(60),
    };
    type Spoil<'a> = &'a dyn Fn(&std::path::Path);
    let tamper: [(WorkloadArg, Spoil); 4] = [
        (WorkloadArg::Sqlite, &|p| {
            let st = Command::new("python3")
                .arg("-c")
                .arg("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE t SET v=\\'x\\' WHERE id=3'); c.commit()")
                .arg(p.join("bench.db"))
                .status()
                .unwrap();
            assert!(st.success());
        }),
        (WorkloadArg::Smallfiles, &|p| {
            std::fs::write(p.join("small/f0000004"), [0u8; 100]).unwrap()
        }),
        (WorkloadArg::Largefile, &|p| {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(p.join("large.bin"))
                .unwrap();
            f.set_len(3 << 20).unwrap();
        }),
        (WorkloadArg::Mailbench, &|p| {
            std::fs::rename(p.join("mail/new/m0000002"), p.join("mail/tmp/m0000002")).unwrap()
        }),
    ];
    for (kind, spoil) in tamper {
        let w = Workload { kind, count: 10 };
        let wd = dir.path().join(w.name());
        std::fs::create_dir(&wd).unwrap();
        let out = d.run(&w, &wd).unwrap();
        assert!(out.ops >= 10, "{}: {out:?}", w.name());
        d.check(&w, &wd).unwrap();
        spoil(&wd);
        let err = d
            .check(&w, &wd)
            .expect_err(&format!("{}: the check missed a wrong result", w.name()));
        eprintln!("{}: tampering caught: {err}", w.name());
    }
}
