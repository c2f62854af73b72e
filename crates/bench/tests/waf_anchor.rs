//! The async baseline's sanity anchor, as a test: on the quick anchor
//! geometry its greedy GC's write amplification under uniform random
//! writes must match the analytical curve within 5% at three
//! over-provisioning levels (`bench waf` fails otherwise). WAF is a count,
//! not a timing, so it may be asserted; the full-size numbers are in
//! docs/BENCHMARKS.md ("waf").

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

#[test]
fn async_waf_matches_the_greedy_gc_model_within_5_percent() {
    let argv = [
        "bench",
        "waf",
        "--quick",
        "--silent",
        "--logical-fraction",
        "0.6,0.8,0.9",
        "--within",
        "0.05",
    ];
    let cli = Cli::try_parse_from(argv).unwrap();
    let rows = bench::run_rows(&cli.cmd).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.len(), 3);
    for r in &rows {
        let (waf, model) = (r.waf.unwrap(), r.model_waf.unwrap());
        assert!(waf > 1.0 && (waf / model - 1.0).abs() <= 0.05, "{r:?}");
    }
}
