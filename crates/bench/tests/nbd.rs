//! `scftl bench nbd --quick` end to end: every server either runs every
//! fio job (a positive rate, the bytes fio moved, the flushes it asked for)
//! or is reported as skipped with the tool that is missing; the ratios and
//! the JSON are produced. Rates are never judged.

mod common;

use clap::Parser;
use common::build_scftl;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

#[test]
fn nbd_quick_measures_or_skips_every_server_and_job() {
    let scftl = build_scftl();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("nbd.json");
    let argv = [
        "bench",
        "nbd",
        "--quick",
        "--runtime",
        "1",
        "--size-mib",
        "64",
        "--dir",
        dir.path().to_str().unwrap(),
        "--scftl",
        scftl.to_str().unwrap(),
        "--json-out",
        json.to_str().unwrap(),
    ];
    let cli = Cli::try_parse_from(argv).unwrap();
    let bench::BenchCommand::Nbd(args) = &cli.cmd else {
        panic!("not the nbd command")
    };
    let rep = bench::nbd::run(args).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert_eq!(rep.runs.len(), 3 * bench::nbd::JOBS.len());
    for r in &rep.runs {
        match r.status.as_str() {
            "measured" => {
                assert!(r.value.is_some_and(|v| v > 0.0), "{r:?}");
                assert!(r.bytes.is_some_and(|b| b > 0), "{r:?}");
                let job = bench::nbd::JOBS.iter().find(|j| j.name == r.job).unwrap();
                if job.fsync > 0 {
                    // fio flushes after every `fsync` writes of a job: a
                    // run that wrote fewer than that in each job (one
                    // second on a machine busy with other work: qemu-nbd
                    // managed 247 writes once) asks for none. Beyond that
                    // it must have flushed.
                    let writes = r.bytes.unwrap() / job.bs;
                    let flushes = r.flushes.unwrap_or(0);
                    if writes >= u64::from(job.fsync) * u64::from(job.numjobs) {
                        assert!(flushes > 0, "fio flushed: {r:?}");
                    } else {
                        eprintln!(
                            "NOTE: {} {}: {writes} writes, fewer than one flush's worth",
                            r.server, r.job
                        );
                    }
                }
            }
            "skipped" => {
                assert!(r.server != "scftl", "scftl was built: {r:?}");
                eprintln!("SKIP: {} {}: {:?}", r.server, r.job, r.reason);
            }
            _ => panic!("{} {} failed: {:?}", r.server, r.job, r.reason),
        }
    }
    assert!(rep.scftl_peak_rss_bytes.is_some_and(|b| b > 0));
    assert_eq!(rep.scftl_sector_bytes, Some(4096));
    // The work directory (backing files, sockets) is gone.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "nbd.json")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["bench"], "nbd");
    assert_eq!(v["runs"].as_array().unwrap().len(), rep.runs.len());
    assert_eq!(
        v["ratios"].as_array().unwrap().len(),
        2 * bench::nbd::JOBS.len()
    );
}
