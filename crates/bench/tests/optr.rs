//! `scftl bench optr --quick` end to end: the sweep, recovery and memory
//! parts are all reported, OPTR's own counters reach the report (extra
//! programs, coalescing records, GC selections and the constraint), and
//! the JSON reads back into the same tables. Also `randwr --ftl optr`.
//!
//! The one bound on throughput is a sanity check of the harness, not a
//! performance verdict: simulated time is deterministic, and a variant
//! more than 50x off async means the workload did not reach the flash (or
//! the clock did not move), whatever the FTLs' relative speed.

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

fn run(args: &[&str], json: &std::path::Path) -> Vec<bench::Row> {
    let mut argv = vec!["bench"];
    argv.extend_from_slice(args);
    argv.extend_from_slice(&["--quick", "--silent", "--json-out", json.to_str().unwrap()]);
    let cli = Cli::try_parse_from(&argv).unwrap();
    bench::run_rows(&cli.cmd).unwrap_or_else(|e| panic!("{argv:?}: {e}"))
}

fn part(r: &bench::Row) -> &str {
    r.optr.as_ref().map_or("", |o| o.part.as_str())
}

#[test]
fn optr_quick_reports_every_part_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("optr.json");
    let png = dir.path().join("optr.png");
    let rows = run(&["optr", "--png", png.to_str().unwrap()], &json);

    // Every variant ran every point, and async's rows carry no overhead.
    let sweep = |v: &str| -> Vec<&bench::Row> {
        rows.iter()
            .filter(|r| r.ftl == v && part(r) == "sweep")
            .collect()
    };
    let n = sweep("async").len();
    assert!(n > 0);
    for v in ["optr", "optr-small"] {
        assert_eq!(sweep(v).len(), n, "{v} ran another set of points");
        for r in sweep(v) {
            assert!(r.optr.as_ref().unwrap().overhead_pct.is_some(), "{r:?}");
        }
    }
    assert!(sweep("async")
        .iter()
        .all(|r| r.optr.as_ref().unwrap().overhead_pct.is_none()));

    // OPTR's metadata is counted: extra programs over the sweep, and
    // coalescing records where a 1 MiB footprint makes requests overlap.
    let total = |v: &str| {
        rows.iter()
            .find(|r| r.ftl == v && part(r) == "total")
            .and_then(|r| r.optr.clone())
            .unwrap_or_else(|| panic!("no total row for {v}"))
    };
    let t = total("optr");
    assert!(t.extra_pct.unwrap() > 0.0, "{t:?}");
    assert!(t.summary_pct.unwrap() > 0.0, "{t:?}");
    assert!(t.coalescing_records.unwrap() > 0, "{t:?}");
    assert!(t.internal_flushes.is_some());
    // The GC constraint is reported: GC ran during the sweep, and the
    // constrained share is a share.
    assert!(t.gc_selections.unwrap() > 0, "{t:?}");
    let c = t.gc_constrained_pct.expect("constrained share");
    assert!((0.0..=100.0).contains(&c), "{c}");
    assert!(
        total("async").extra_pct.is_none(),
        "async has no OPTR counters"
    );

    // Sanity of the harness (see the file comment).
    let mbps = |v: &str| -> f64 {
        let (b, s) = sweep(v).iter().fold((0.0, 0.0), |(b, s), r| {
            let secs = r.sim_seconds.unwrap();
            (
                b + r.optr.as_ref().unwrap().mb_per_s.unwrap() * secs,
                s + secs,
            )
        });
        b / s
    };
    let base = mbps("async");
    for v in ["optr", "optr-small"] {
        let ratio = mbps(v) / base;
        assert!((0.02..50.0).contains(&ratio), "{v}: {ratio} x async");
    }

    // Recovery ran on every variant and read the flash.
    for v in ["async", "optr", "optr-small"] {
        let r = rows
            .iter()
            .find(|r| r.ftl == v && part(r) == "recovery")
            .unwrap_or_else(|| panic!("no recovery row for {v}"));
        assert!(r.recovery_sim_ms.unwrap() > 0.0);
        assert!(r.recovery_reads.unwrap() > 0);
    }
    // Memory: the cache tags cost something, and less than the cache.
    let mem: Vec<&bench::Row> = rows.iter().filter(|r| part(r) == "memory").collect();
    let item = |name: &str| {
        mem.iter()
            .find(|r| {
                r.optr
                    .as_ref()
                    .unwrap()
                    .item
                    .as_deref()
                    .unwrap()
                    .starts_with(name)
            })
            .and_then(|r| r.ram_bytes_per_sector)
            .unwrap()
    };
    assert!(item("cache tags") > 0.0);
    assert!(item("cache tags") < item("cached data"));

    // The JSON reads back into the same tables.
    let back = bench::report::read_json(&json).unwrap();
    assert_eq!(back.len(), rows.len());
    let render = |rs: &[bench::Row]| -> Vec<String> {
        bench::optr::tables(rs).iter().map(|t| t.render()).collect()
    };
    assert_eq!(render(&back), render(&rows));
    let png_bytes = std::fs::read(&png).unwrap();
    assert_eq!(&png_bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
}

#[test]
fn randwr_runs_optr_beside_async() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("randwr.json");
    let rows = run(&["randwr", "--ftl", "async,optr", "--wi", "16"], &json);
    let optr = rows.iter().find(|r| r.ftl == "optr").expect("an optr row");
    assert!(optr.iops.unwrap() > 0.0);
    assert!(optr.waf.unwrap() >= 1.0);
    assert!(rows.iter().any(|r| r.ftl == "async"));
}
