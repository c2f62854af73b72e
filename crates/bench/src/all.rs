//! `all`: regenerates every report in crates/bench/results/ except the
//! application benchmark's (`app`, which needs root, real mounts and 10-20
//! minutes; docs/BENCHMARKS.md gives its own command).
//!
//! Each report is written as `NAME.txt` (what the run printed), `NAME.json`
//! (its rows) and, for the charted ones, `NAME.png`. [`RUNS`] is the one
//! list of what is regenerated and with which arguments; docs/BENCHMARKS.md
//! quotes these names, and the document test (`tests/doc_tables.rs`)
//! checks its tables against the JSON files.
//!
//! The tree must be clean when writing into crates/bench/results/ (unless
//! `--allow-dirty`): the check runs once, before the first benchmark, and
//! every report records the same commit.

use std::path::Path;

use clap::Parser;

use crate::args::AllArgs;
use crate::report::{self, Report};
use crate::stack::progress;
use crate::workload::BResult;
use crate::BenchCommand;

/// One regenerated report: its file stem, the `scftl bench` arguments
/// (without the output and common flags), and whether it draws a chart.
pub struct Run {
    pub name: &'static str,
    pub args: &'static [&'static str],
    pub png: bool,
}

/// Every report `all` writes, in order.
pub const RUNS: &[Run] = &[
    Run {
        name: "randwr",
        args: &["randwr"],
        png: true,
    },
    Run {
        name: "randwr-host50us",
        args: &[
            "randwr",
            "--host-request-ns",
            "50000",
            "--writes",
            "524288",
            "--threads",
            "1",
        ],
        png: false,
    },
    Run {
        name: "boot",
        args: &["boot"],
        png: true,
    },
    Run {
        name: "cpu",
        args: &["cpu"],
        png: false,
    },
    Run {
        name: "cpu-dataless",
        args: &["cpu", "--flash", "dataless"],
        png: false,
    },
    Run {
        name: "waf",
        args: &["waf"],
        png: false,
    },
    Run {
        name: "memory",
        args: &["memory"],
        png: false,
    },
    Run {
        name: "optr",
        args: &["optr"],
        png: true,
    },
    Run {
        name: "wear",
        args: &["wear"],
        png: true,
    },
];

#[derive(Parser)]
struct One {
    #[command(subcommand)]
    cmd: BenchCommand,
}

/// The command of one run, with its outputs in `out`.
fn command(run: &Run, a: &AllArgs, out: &Path) -> BResult<BenchCommand> {
    let json = out.join(format!("{}.json", run.name));
    let png = out.join(format!("{}.png", run.name));
    let argv = std::iter::once("bench").chain(run.args.iter().copied());
    let mut cmd = One::try_parse_from(argv)
        .map(|o| o.cmd)
        .map_err(|e| format!("{}: {e}", run.args.join(" ")))?;
    let common = match &mut cmd {
        BenchCommand::Randwr(x) => &mut x.common,
        BenchCommand::Boot(x) => &mut x.common,
        BenchCommand::Cpu(x) => &mut x.common,
        BenchCommand::Waf(x) => &mut x.common,
        BenchCommand::Wear(x) => &mut x.common,
        BenchCommand::Optr(x) => &mut x.common,
        BenchCommand::Memory(x) => {
            x.scftl.clone_from(&a.scftl);
            &mut x.common
        }
        BenchCommand::App(_)
        | BenchCommand::AppCrash(_)
        | BenchCommand::All(_)
        | BenchCommand::Nbd(_) => return Err(format!("`all` does not run `{}`", run.args[0])),
    };
    common.json_out = Some(json);
    common.png = run.png.then_some(png);
    common.quick = a.quick;
    common.silent = a.silent;
    common.allow_dirty = a.allow_dirty;
    Ok(cmd)
}

/// Runs every report of [`RUNS`] into `--out`.
pub fn run(a: &AllArgs) -> BResult<Vec<Report>> {
    std::fs::create_dir_all(&a.out)
        .map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    // Once, up front: a clean tree stays clean in the eyes of this process
    // even after the first report lands in results/.
    report::check_output(&a.out.join("randwr.json"), a.allow_dirty)?;
    let mut reps = Vec::new();
    for r in RUNS {
        progress(a.silent, format!("all: {} ({})", r.name, r.args.join(" ")));
        let cmd = command(r, a, &a.out)?;
        let rep = crate::run_report(&cmd)?;
        let txt = a.out.join(format!("{}.txt", r.name));
        std::fs::write(&txt, &rep.text)
            .map_err(|e| format!("cannot write {}: {e}", txt.display()))?;
        reps.push(rep);
    }
    Ok(reps)
}
