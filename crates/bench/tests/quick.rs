//! Runs every benchmark in `--quick` mode and checks that the report's JSON
//! and PNG are produced and well-formed. No timing is asserted: performance
//! is measured by the benchmark programs and reported in docs/BENCHMARKS.md.

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

fn run(args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let png = dir.path().join("out.png");
    let mut argv = vec!["bench"];
    argv.extend_from_slice(args);
    let (j, p) = (json.to_str().unwrap(), png.to_str().unwrap());
    argv.extend_from_slice(&["--quick", "--silent", "--json-out", j, "--png", p]);
    let cli = Cli::try_parse_from(&argv).unwrap();
    let rows = bench::run_rows(&cli.cmd).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert!(!rows.is_empty());
    let text = std::fs::read_to_string(&json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let arr = v.as_array().expect("a JSON array of rows");
    assert_eq!(arr.len(), rows.len());
    for row in arr {
        for key in [
            "bench",
            "ftl",
            "wi",
            "iops",
            "flush_lat_avg_us",
            "flush_lat_max_us",
            "waf",
            "cpu_ns_per_write",
            "geometry",
            "seed",
            "commit",
        ] {
            assert!(row.get(key).is_some(), "row lacks `{key}`: {row}");
        }
    }
    let png_bytes = std::fs::read(&png).unwrap();
    assert_eq!(&png_bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    v
}

/// `--scftl-streams` picks SCFTL's write streams: on the quick geometry
/// the default is one (two do not fit), so `1` runs the same device as the
/// default (the same rows, simulated time and all) and `2` is refused with
/// a message rather than run with some other configuration.
#[test]
fn randwr_runs_scftl_with_the_write_streams_asked_for() {
    let args = ["randwr", "--ftl", "scftl", "--wi", "256", "--threads", "1"];
    let default = run(&args);
    let mut one_args = args.to_vec();
    one_args.extend_from_slice(&["--scftl-streams", "1"]);
    let one = run(&one_args);
    let (one, default) = (&one.as_array().unwrap()[0], &default.as_array().unwrap()[0]);
    for key in ["writes", "flushes", "iops", "waf", "flush_lat_max_us"] {
        assert_eq!(one[key], default[key], "{key}");
    }
    let argv = [
        "bench",
        "randwr",
        "--quick",
        "--silent",
        "--ftl",
        "scftl",
        "--scftl-streams",
        "2",
    ];
    let cli = Cli::try_parse_from(argv).unwrap();
    let e = bench::run_rows(&cli.cmd).unwrap_err().to_string();
    assert!(e.contains("2 write streams do not fit"), "{e}");
}

#[test]
fn randwr_quick_produces_rows_for_each_wi() {
    let v = run(&["randwr", "--ftl", "scftl", "--wi", "1,16,256"]);
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 6, "3 WIs x threads 1 and 4 (the default)");
    for r in arr {
        assert_eq!(r["bench"], "randwr");
        assert!(r["iops"].as_f64().unwrap() > 0.0);
        assert!(r["waf"].as_f64().unwrap() >= 1.0);
        assert!(!r["timeline_kiops"].as_array().unwrap().is_empty());
        // Every thread flushes after each WI writes of its own, and at the
        // end each thread with unflushed writes flushes once more (plus the
        // flushes forced by the epoch bound). The threads' remainders sum
        // to a multiple of WI, so at most `threads - 1` extra flushes.
        let (wi, writes) = (r["wi"].as_u64().unwrap(), r["writes"].as_u64().unwrap());
        let threads = r["threads"].as_u64().unwrap();
        assert_eq!(writes % (wi * threads), 0);
        let forced = r["forced_flushes"].as_u64().unwrap();
        let host = r["flushes"].as_u64().unwrap() - forced;
        assert!(
            (writes / wi..writes / wi + threads).contains(&host),
            "{host} host flushes for {writes} writes at WI = {wi} x {threads}"
        );
        if threads == 1 {
            assert_eq!(host, writes / wi);
        }
    }
    // With four threads the flushes queued behind one another coalesce: at
    // WI = 1 three in four find nothing new, so far fewer pages (padding,
    // commits) are programmed per write.
    let waf = |t: u64| {
        arr.iter()
            .find(|r| r["wi"] == 1 && r["threads"] == t)
            .and_then(|r| r["waf"].as_f64())
            .unwrap()
    };
    assert!(
        waf(4) < 0.8 * waf(1),
        "WAF at WI = 1: {} with 4 threads, {} with 1",
        waf(4),
        waf(1)
    );
}

#[test]
fn boot_quick_reports_fill_and_size_sweeps() {
    let v = run(&["boot", "--fill", "0,100"]);
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 6, "2 fill levels + 2 chain lengths + 2 sizes");
    // The chain sweep's first row recovers after no epoch committed in a
    // data page, the second after many (126 epochs of 16 writes; on
    // `small` a superblock holds 32 of them, and the chain restarts in the
    // region at each new one).
    let chained = |i: usize| -> u64 {
        let note = arr[i]["note"].as_str().unwrap();
        let n = note.strip_prefix("chain sweep: ").expect(note);
        n.split(' ').next().unwrap().parse().expect(note)
    };
    assert_eq!(chained(2), 0);
    assert!(chained(3) >= 64, "only {} OOB-committed epochs", chained(3));
    for r in arr {
        assert!(r["recovery_sim_ms"].as_f64().unwrap() > 0.0);
    }
    // The 100% level fills the delta region up to the last epoch that fits
    // before a full checkpoint (on `small`, 96 of 128 pages: 75%): every
    // kind of delta page counts, including the ordered pages of epochs the
    // bound ended, and the FTL's own epoch page bound is used.
    let full = arr[1]["delta_fill_pct"].as_f64().unwrap();
    assert!(full >= 70.0, "the 100% fill level reached only {full:.1}%");
}

#[test]
fn cpu_quick_reports_ram_per_sector() {
    let v = run(&["cpu", "--ftl", "scftl", "--repeat", "1"]);
    let r = &v.as_array().unwrap()[0];
    assert!(r["ram_bytes_per_sector"].as_f64().unwrap() >= 4.0);
}
