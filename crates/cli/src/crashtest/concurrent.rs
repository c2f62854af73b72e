//! `scftl crashtest --concurrent THREADS`: the concurrent crash test
//! (`crashcheck::concurrent`) from the command line: rounds, seed and the
//! lock-protocol mutants; exit 0 passed, 1 violation, 2 bad arguments.

use std::process::ExitCode;
use std::time::Instant;

use crashcheck::concurrent::{self, ConcurrentConfig, SavedRound};
use flash::Geometry;
use ftl::{Mutant, SharedMutant};

use super::args::{verdict, CrashtestArgs};
use super::ftl_only_flag;

/// The test `args` ask for, or why not.
fn plan(args: &CrashtestArgs) -> Result<ConcurrentConfig, String> {
    let threads = args.concurrent.unwrap_or(0);
    if !(2..=8).contains(&threads) {
        return Err(format!(
            "--concurrent {threads}: give 2 to 8 threads (the search orders at most 120 operations)"
        ));
    }
    let conflicting = [
        (args.exhaustive, "--exhaustive"),
        (args.fs.is_some(), "--fs"),
        (args.seconds.is_some(), "--seconds (give rounds with --ops)"),
        (args.ftl != "scftl", "--ftl (the test drives SCFTL)"),
        (
            args.contract.is_some(),
            "--contract (the test checks the snapshot contract)",
        ),
        (args.json, "--json"),
    ];
    if let Some((_, flag)) = conflicting.iter().find(|(given, _)| *given) {
        return Err(format!("{flag} does not apply with --concurrent"));
    }
    if let Some(flag) = ftl_only_flag(args) {
        return Err(format!("{flag} does not apply with --concurrent"));
    }
    let geometry = Geometry::preset(&args.geometry).map_err(|e| e.to_string())?;
    // A lock-protocol bug by its name, or else an FTL bug (`ftl::Mutant`).
    let (mutant, ftl_mutant) = match &args.mutant {
        None => (SharedMutant::None, Mutant::None),
        Some(name) => match SharedMutant::ALL.iter().find(|(_, n)| n == name) {
            Some((m, _)) => (*m, Mutant::None),
            None => match Mutant::parse(name) {
                Some(m) => (SharedMutant::None, m),
                None => {
                    let names: Vec<_> = SharedMutant::ALL.iter().map(|(_, n)| *n).collect();
                    return Err(format!(
                        "unknown --mutant `{name}` for --concurrent (use {}, or an FTL mutant of \
                         `scftl crashtest --mutant`)",
                        names.join(" or ")
                    ));
                }
            },
        },
    };
    let ops_per_thread = 120 / threads;
    let ops_per_thread = ops_per_thread.min(14);
    let background_writes = args.background_writes.unwrap_or(0);
    if background_writes > 100_000 {
        return Err(format!(
            "--background-writes {background_writes}: give at most 100000 (each round runs them all)"
        ));
    }
    Ok(ConcurrentConfig {
        geometry,
        threads,
        ops_per_thread,
        rounds: args.ops.unwrap_or(200),
        seed: args.seed.unwrap_or_else(super::args::clock_seed),
        mutant,
        ftl_mutant,
        background_writes,
        ..ConcurrentConfig::default()
    })
}

pub fn run_cli(args: &CrashtestArgs) -> ExitCode {
    let c = match plan(args) {
        Ok(c) => c,
        Err(m) => {
            eprintln!("scftl crashtest: {m}");
            return ExitCode::from(2);
        }
    };
    println!(
        "concurrent crash test: {} threads x {} operations per round{}, {} rounds, {} sectors, seed {}{}",
        c.threads,
        c.ops_per_thread,
        if c.background_writes > 0 {
            format!(" and a background writer of {} writes", c.background_writes)
        } else {
            String::new()
        },
        c.rounds,
        c.sectors,
        c.seed,
        match (c.mutant, c.ftl_mutant) {
            (SharedMutant::None, Mutant::None) => String::new(),
            (SharedMutant::None, m) => format!(", FTL mutant {}", m.name()),
            (m, _) => format!(", mutant {m:?}"),
        }
    );
    let t0 = Instant::now();
    match concurrent::run(&c) {
        Ok(s) => {
            let secs = t0.elapsed().as_secs_f64();
            println!(
                "PASSED: {} rounds, {} operations ({:.0}/s), {} cut while operations ran, {} reads served shared ({} during a flush's sync), {} changes during a flush's sync ({} returned after it), {} flushes coalesced, {} syncs behind barriers, {} superblocks erased ahead, {} background sectors written, {} GC victims ({} sectors relocated), {} linearization states searched",
                s.rounds,
                s.ops,
                s.ops as f64 / secs.max(1e-9),
                s.cut_mid_run,
                s.shared_reads,
                s.reads_during_sync,
                s.changes_during_sync,
                s.held_returns,
                s.coalesced_flushes,
                s.syncs_behind,
                s.erased_ahead,
                s.background_sectors,
                s.gc_victims,
                s.gc_relocated,
                s.states
            );
            verdict(false)
        }
        Err(f) => {
            println!("FAILED: {f}");
            if let Some(path) = &args.history {
                let saved = SavedRound::new(&c, &f, args.mutant.as_deref().unwrap_or(""));
                match std::fs::write(path, saved.to_json()) {
                    Ok(()) => println!(
                        "saved: {} (decide it again: scftl crashtest --check-history {})",
                        path.display(),
                        path.display()
                    ),
                    Err(e) => eprintln!("scftl crashtest: cannot write {}: {e}", path.display()),
                }
            }
            println!(
                "rerun: scftl crashtest --concurrent {} --geometry {} --seed {} --ops {}{}{} (the interleaving is the scheduler's: a rerun may pass)",
                c.threads,
                args.geometry,
                c.seed,
                c.rounds,
                if c.background_writes > 0 {
                    format!(" --background-writes {}", c.background_writes)
                } else {
                    String::new()
                },
                args.mutant
                    .as_ref()
                    .map_or(String::new(), |m| format!(" --mutant {m}"))
            );
            verdict(true)
        }
    }
}

/// `scftl crashtest --check-history FILE`: decides a saved round again.
/// Exit 0: linearizable; 1: not; 2: the file cannot be read, is no saved
/// round, or other options were given (they would be ignored).
pub fn check_saved(args: &CrashtestArgs) -> ExitCode {
    let path = args.check_history.as_deref().expect("called with the flag");
    let other = [
        (args.concurrent.is_some(), "--concurrent"),
        (args.history.is_some(), "--history"),
        (args.exhaustive, "--exhaustive"),
        (args.fs.is_some(), "--fs"),
        (args.mutant.is_some(), "--mutant"),
        (args.ops.is_some(), "--ops"),
        (args.seed.is_some(), "--seed"),
        (args.seconds.is_some(), "--seconds"),
        (args.json, "--json"),
    ];
    if let Some((_, flag)) = other.iter().find(|(given, _)| *given) {
        eprintln!(
            "scftl crashtest: {flag} does not apply with --check-history (the saved round is decided as it is)"
        );
        return ExitCode::from(2);
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("scftl crashtest: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let saved = match SavedRound::from_json(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scftl crashtest: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    println!(
        "saved round {} of seed {} ({} threads{}): {} operations, {} sectors",
        saved.round,
        saved.seed,
        saved.threads,
        if saved.mutant.is_empty() {
            String::new()
        } else {
            format!(", mutant {}", saved.mutant)
        },
        saved.history.len(),
        saved.sectors
    );
    match saved.recheck() {
        Ok(states) => {
            println!("LINEARIZABLE: an order explains every read and the recovered device ({states} states searched)");
            verdict(false)
        }
        Err(m) => {
            println!("NOT LINEARIZABLE: {m}");
            verdict(true)
        }
    }
}
