//! `scftl bench app-crash` on ext4 without barriers over OPTR (issue 12,
//! deliverable 5): two seeded kill -9 cuts of `scftl serve` while SQLite
//! commits and files are fsynced, each followed by recovery. Every cut must
//! leave a file system `e2fsck -fn` finds clean, a database that passes
//! `PRAGMA integrity_check` with no torn transaction, and everything
//! acknowledged before the last completed device flush.
//!
//! Needs root, /dev/fuse, nbdfuse, losetup, mkfs.ext4, e2fsck and Python 3
//! with sqlite3; skips with the reason otherwise. Small geometry, no timing
//! model: about 15 s.

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
