//! The `scftl crashtest` entry point: arguments (`args.rs`), progress bar,
//! summary, exit code; `fscheck.rs` does the same for `--fs`.

use std::process::ExitCode;
use std::time::Duration;

use ftl::Mutant;
use indicatif::ProgressStyle;

mod args;
mod concurrent;
mod fscheck;

use args::cpu_seconds;
pub use args::CrashtestArgs;

use crashcheck::exec::{RunConfig, Stats};
use crashcheck::explore::{exhaustive, explore, ExhaustiveConfig, ExploreConfig, Report};
use crashcheck::spec::ContractKind;
use crashcheck::target;

/// A resolved run: what to test and how.
#[derive(Clone, Debug)]
pub struct Plan {
    pub run: RunConfig,
    pub seed: u64,
}

/// Resolves names to a plan, or explains what is wrong.
pub fn plan(args: &CrashtestArgs) -> Result<Plan, String> {
    for (given, flag) in [
        (args.cuts.is_some(), "--cuts"),
        (args.cut_at.is_some(), "--cut-at"),
        (args.write_bound.is_some(), "--write-bound"),
        (args.all_policies, "--all-policies"),
        (args.no_forced_flushes, "--no-forced-flushes"),
    ] {
        if given {
            return Err(format!(
                "{flag} applies only to file-system runs (--fs MODE)"
            ));
        }
    }
    let mut t = target::by_name(&args.ftl).ok_or_else(|| {
        format!(
            "unknown FTL `{}` (available in this build: {})",
            args.ftl,
            target::names().join(", ")
        )
    })?;
    t.backend = target::BackendKind::parse(&args.backend)
        .ok_or_else(|| format!("unknown backend `{}` (use ram or image)", args.backend))?;
    if args.wear_leveling {
        let kind = ftl::FtlKind::ALL
            .into_iter()
            .find(|k| k.name() == t.name)
            .ok_or_else(|| format!("--wear-leveling applies to the real FTLs, not `{}`", t.name))?;
        t.wear = Some(target::checker_wear_policy(kind));
    }
    if args.hot_cold {
        if !matches!(t.name, "scftl" | "async" | "sync") {
            return Err(format!(
                "--hot-cold is the second write stream of scftl, async and sync; it does not apply to --ftl {}",
                t.name
            ));
        }
        t.hot_cold = true;
    }
    if args.sync_behind {
        if t.name != "scftl" {
            return Err(format!(
                "--sync-behind is SCFTL's sync after epoch barriers; it does not apply to --ftl {}",
                t.name
            ));
        }
        t.sync_behind = true;
    }
    if args.spare_superblocks > 0 {
        if t.name != "scftl" {
            return Err(format!(
                "--spare-superblocks sizes SCFTL's configuration; it does not apply to --ftl {}",
                t.name
            ));
        }
        t.spare = args.spare_superblocks;
    }
    if t.backend == target::BackendKind::Image && args.exhaustive {
        return Err("--exhaustive enumerates in-flight NAND pages, which the image backend does not have; run the image backend in random mode (--seconds/--ops), or use --backend ram".into());
    }
    if t.backend == target::BackendKind::Image
        && (args.paired_pages.is_some()
            || args.unstable_erase
            || args.split_tears
            || args.silent_bad_blocks)
    {
        return Err(
            "--paired-pages, --unstable-erase, --split-tears and --silent-bad-blocks model NAND media; use them with --backend ram"
                .into(),
        );
    }
    if t.backend == target::BackendKind::Image && t.name == "sync" {
        return Err("the sync FTL needs a battery-backed buffer, and an image's nvram is only as durable as its last fdatasync; use --backend ram".into());
    }
    if t.backend == target::BackendKind::Image && matches!(t.name, "async" | "optr") {
        // Known not to hold (ARCHITECTURE.md, "Only SCFTL is crash-checked
        // on the image file's host-power-cut model"): a run would only
        // find that again.
        return Err(format!(
            "the {} FTL does not keep its contract under the image backend's host power cut: an \
             image erase only clears state bytes, so a cut after an erase and an unsynced program \
             can bring back an older page's bytes with a valid checksum, and this FTL has no \
             generation in its records to reject them (SCFTL has); check it with --backend ram \
             (NAND semantics, which it keeps), or see ARCHITECTURE.md",
            t.name
        ));
    }
    let contract = match &args.contract {
        None => t.contract,
        Some(c) => ContractKind::parse(c).ok_or_else(|| {
            format!("unknown contract `{c}` (use snapshot, async, sync or prefix)")
        })?,
    };
    let geometry = target::geometry(&args.geometry)?;
    let mutant = match &args.mutant {
        None => Mutant::None,
        Some(m) => Mutant::parse(m).ok_or_else(|| {
            let names: Vec<&str> = Mutant::every().map(|m| m.name()).collect();
            format!("unknown mutant `{m}` (known: none, {})", names.join(", "))
        })?,
    };
    check_budget(args)?;
    let refine = args.oracle.as_deref() == Some("refine");
    let oracle = if refine {
        refine_allowed(args, &t)?;
        None
    } else {
        oracle_config(args, &t)?
    };
    if args.inject_failures.is_some() {
        if args.exhaustive {
            return Err("--inject-failures runs in random mode (--ops/--seconds); exhaustive mode enumerates power cuts only".into());
        }
        if oracle.is_some() {
            return Err("--inject-failures does not combine with --oracle model (P models no media failures)".into());
        }
    }
    if args.aimed.is_some() && args.exhaustive {
        return Err(
            "--aimed runs in random mode (--ops/--seconds); exhaustive mode places its own windows"
                .into(),
        );
    }
    let seed = args.seed.unwrap_or_else(args::clock_seed);
    Ok(Plan {
        run: RunConfig {
            target: t,
            contract,
            geometry,
            geometry_name: args.geometry.clone(),
            mutant,
            sample: 16,
            media: flash::MediaFaults {
                paired_pages: args
                    .paired_pages
                    .map(|stride| flash::PagePairing { stride }),
                unstable_erase: args.unstable_erase,
                split_tears: args.split_tears,
                silent_bad_blocks: args.silent_bad_blocks,
                split_unit: args.split_unit.unwrap_or(0),
            },
            oracle,
            refine,
        },
        seed,
    })
}

/// Why `--oracle refine` does not apply to this run, if it does not.
fn refine_allowed(args: &CrashtestArgs, t: &target::Target) -> Result<(), String> {
    refine_allowed_in(args, t, ftl::GHOST_CHECKS)
}

/// [`refine_allowed`] for a build with (`ghost`) or without the ghost
/// stable L2P.
fn refine_allowed_in(args: &CrashtestArgs, t: &target::Target, ghost: bool) -> Result<(), String> {
    let no = |why: &str| Err(format!("--oracle refine {why}"));
    if t.name != "scftl" {
        return no(&format!(
            "compares SCFTL's internal state with the model P; it does not apply to --ftl {}",
            t.name
        ));
    }
    if args.model_mutant.is_some() {
        return no("takes no --model-mutant (that is --oracle model's); use --mutant");
    }
    if !ftl::INVARIANT_CHECKS {
        return no("needs a build with debug assertions (the release profile keeps them; --profile bench-fast drops them)");
    }
    if args.wear_leveling && !ghost {
        // Static wear leveling moves sectors right after a flush's commit;
        // without the ghost stable L2P the oracle cannot tell those moves
        // from the epoch's writes, and reports the commit's link as taken.
        return no("with --wear-leveling needs the ghost stable L2P to tell wear leveling's moves after a commit from the epoch's writes: build with cargo build --release -p scftl --features ftl/ghost (as CI's campaign does)");
    }
    if args.inject_failures.is_some() && !ghost {
        // Likewise a failed program during a flush: the superblock it hit
        // is emptied after the commit, into the pages from the commit's
        // link on (the next epoch's), and without the ghost stable L2P the
        // oracle places those moves before the commit and reports the link
        // as taken (a bug hunt: `--geometry tiny --seed 960012901 --ops
        // 1290 --spare-superblocks 2 --oracle refine --split-tears
        // --inject-failures 0.3 --aimed 0.05`, which passes with it).
        return no("with --inject-failures needs the ghost stable L2P to tell the moves out of a failed superblock after a commit from the epoch's writes: build with cargo build --release -p scftl --features ftl/ghost (as CI's campaign does)");
    }
    Ok(())
}

/// The model oracle `--oracle`/`--model-mutant` ask for, or why not.
fn oracle_config(
    args: &CrashtestArgs,
    t: &target::Target,
) -> Result<Option<crashcheck::model::OracleConfig>, String> {
    let Some(kind) = &args.oracle else {
        if args.model_mutant.is_some() {
            return Err("--model-mutant applies only with --oracle model".into());
        }
        return Ok(None);
    };
    if kind != "model" {
        return Err(format!("unknown oracle `{kind}` (use model or refine)"));
    }
    if t.name != "scftl" {
        return Err(format!(
            "--oracle model is the model of SCFTL; it does not apply to --ftl {}",
            t.name
        ));
    }
    let mutant = match &args.model_mutant {
        None => crashcheck::model::ModelMutant::None,
        Some(m) => crashcheck::model::ModelMutant::parse(m).ok_or_else(|| {
            let names: Vec<&str> = crashcheck::model::ModelMutant::ALL
                .iter()
                .map(|m| m.name())
                .collect();
            format!(
                "unknown model mutant `{m}` (known: none, {})",
                names.join(", ")
            )
        })?,
    };
    Ok(Some(crashcheck::model::OracleConfig {
        mutant,
        // SCFTL charges its static wear-leveling moves to the epoch budget.
        counter_exact: !args.wear_leveling,
        ..Default::default()
    }))
}

/// What this build checks beyond the contract, and how to get the rest.
fn checks_line() -> String {
    const HOW: &str = "cargo build --release -p scftl --features ftl/ghost, as CI's campaign does";
    match (ftl::INVARIANT_CHECKS, ftl::GHOST_CHECKS) {
        (true, true) => "on, with the ghost copies of the stable mapping".into(),
        (true, false) => format!(
            "on, without the ghost copies of the stable mapping (this build lacks feature \
             ftl/ghost: {HOW})"
        ),
        _ => format!("off (a build without debug assertions, e.g. --profile bench-fast: {HOW})"),
    }
}

/// The command that replays a run.
pub fn replay_command(args: &CrashtestArgs, plan: &Plan, ops: u64) -> String {
    let mut c = format!(
        "scftl crashtest --ftl {} --contract {} --geometry {} --seed {}",
        plan.run.target.name, plan.run.contract, args.geometry, plan.seed
    );
    if args.exhaustive {
        c += &format!(" --exhaustive --ops {ops}");
        if let Some(m) = args.max_outcomes {
            c += &format!(" --max-outcomes {m}");
        }
        if let Some(n) = args.failure_windows {
            c += &format!(" --failure-windows {n}");
        }
        if args.depth != 2 {
            c += &format!(" --depth {}", args.depth);
        }
        if args.deviations != 1 {
            c += &format!(" --deviations {}", args.deviations);
        }
    } else {
        c += &format!(" --ops {ops}");
        if args.check_rate != 0.1 {
            c += &format!(" --check-rate {}", args.check_rate);
        }
    }
    if plan.run.mutant != Mutant::None {
        c += &format!(" --mutant {}", plan.run.mutant.name());
    }
    if plan.run.target.backend != target::BackendKind::Ram {
        c += &format!(" --backend {}", plan.run.target.backend.name());
    }
    if args.no_barriers {
        c += " --no-barriers";
    }
    if args.wear_leveling {
        c += " --wear-leveling";
    }
    if args.hot_cold {
        c += " --hot-cold";
    }
    if args.sync_behind {
        c += " --sync-behind";
    }
    if args.spare_superblocks > 0 {
        c += &format!(" --spare-superblocks {}", args.spare_superblocks);
    }
    if let Some(o) = &args.oracle {
        c += &format!(" --oracle {o}");
    }
    if let Some(m) = &args.model_mutant {
        c += &format!(" --model-mutant {m}");
    }
    if let Some(s) = args.paired_pages {
        c += &format!(" --paired-pages {s}");
    }
    if args.unstable_erase {
        c += " --unstable-erase";
    }
    if args.split_tears {
        c += " --split-tears";
    }
    if let Some(u) = args.split_unit {
        c += &format!(" --split-unit {u}");
    }
    if args.silent_bad_blocks {
        c += " --silent-bad-blocks";
    }
    if let Some(r) = args.inject_failures {
        c += &format!(" --inject-failures {r}");
    }
    if let Some(r) = args.aimed {
        c += &format!(" --aimed {r}");
    }
    c
}

/// Runs the campaign the arguments describe (no printing).
pub fn campaign(
    args: &CrashtestArgs,
    plan: &Plan,
    progress: &mut dyn FnMut(&Stats, Duration),
) -> Report {
    let shrink_time = Duration::from_secs_f64(args.shrink_seconds.max(0.0));
    if args.exhaustive {
        let mut cfg = ExhaustiveConfig::new(plan.seed, args.ops.unwrap_or(6));
        cfg.max_outcomes = args.max_outcomes.map(|m| m.max(1));
        cfg.depth = args.depth;
        cfg.deviations = args.deviations;
        if let Some(n) = args.failure_windows {
            cfg.failure_windows = n;
        }
        cfg.shrink_time = shrink_time;
        exhaustive(&plan.run, &cfg, progress)
    } else {
        let mut cfg = ExploreConfig::new(plan.seed);
        cfg.ops = args.ops;
        cfg.check_rate = args.check_rate;
        cfg.time = match (args.seconds, args.ops) {
            (Some(s), _) => Some(Duration::from_secs_f64(s)),
            (None, Some(_)) => None,
            (None, None) => Some(Duration::from_secs(10)),
        };
        cfg.shrink_time = shrink_time;
        cfg.failure_rate = args.inject_failures.unwrap_or(0.0);
        cfg.aimed_rate = args.aimed.unwrap_or(0.0);
        if args.no_barriers {
            cfg.workload.barrier = 0;
            cfg.forced_barrier_prob = 0.0;
        }
        explore(&plan.run, &cfg, progress)
    }
}

/// `scftl crashtest`: runs the campaign with a progress bar on a terminal,
/// prints the summary (or the failure, its shrunk script and the replay
/// command), and returns the exit code (0 passed, 1 violation, 2 bad
/// arguments).
/// Rejects a budget that cannot check anything: a run with `--seconds 0` or
/// `--ops 0` would report "all passed" having cut power nowhere.
fn check_budget(args: &CrashtestArgs) -> Result<(), String> {
    if let Some(s) = args.seconds {
        if !(s.is_finite() && s >= 0.0) {
            return Err(format!("--seconds {s} is not a duration"));
        }
        if s == 0.0 {
            return Err(
                "--seconds 0 would check nothing; give a positive time budget, e.g. --seconds 10"
                    .into(),
            );
        }
    }
    if !(0.0..=1.0).contains(&args.check_rate) {
        return Err(format!(
            "--check-rate {} is not a probability (0 to 1)",
            args.check_rate
        ));
    }
    if args.paired_pages == Some(0) {
        return Err("--paired-pages 0: the stride of the page pairing is at least 1".into());
    }
    if !(1..=3).contains(&args.depth) {
        return Err(format!("--depth {} is not 1, 2 or 3", args.depth));
    }
    if args.deviations > 2 {
        return Err(format!("--deviations {} is not 0, 1 or 2", args.deviations));
    }
    // Options of one mode given to the other would be ignored: refuse
    // them. (A value other than the default counts as given.)
    if !args.exhaustive && args.fs.is_none() {
        for (given, flag) in [
            (args.depth != 2, "--depth"),
            (args.deviations != 1, "--deviations"),
            (args.max_outcomes.is_some(), "--max-outcomes"),
            (args.failure_windows.is_some(), "--failure-windows"),
        ] {
            if given {
                return Err(format!("{flag} applies only with --exhaustive"));
            }
        }
    }
    if args.exhaustive && args.check_rate != 0.1 {
        return Err(
            "--check-rate applies only to random mode: --exhaustive checks the invariants after \
             every operation"
                .into(),
        );
    }
    if args.ops == Some(0) {
        return Err(
            "--ops 0 would check nothing; give a positive operation count, e.g. --ops 1000".into(),
        );
    }
    if let Some(r) = args.inject_failures {
        if !(r > 0.0 && r <= 1.0) {
            return Err(format!(
                "--inject-failures {r} is not a probability above 0 (at most 1)"
            ));
        }
    }
    if let Some(u) = args.split_unit {
        if !args.split_tears || !args.exhaustive {
            return Err("--split-unit sizes exhaustive mode's split tears; use it with --split-tears --exhaustive".into());
        }
        if u == 0 {
            return Err("--split-unit 0 would damage nothing; give a window of at least 1 byte (default 512)".into());
        }
    }
    if args.no_barriers && args.exhaustive {
        return Err("--no-barriers shapes random runs' workloads; exhaustive mode's operations are its own (run without --exhaustive)".into());
    }
    if let Some(r) = args.aimed {
        if !(r > 0.0 && r <= 1.0) {
            return Err(format!(
                "--aimed {r} is not a probability above 0 (at most 1)"
            ));
        }
    }
    Ok(())
}

/// The first flag given that only FTL runs use, if any.
fn ftl_only_flag(args: &CrashtestArgs) -> Option<&'static str> {
    [
        (args.check_rate != 0.1, "--check-rate"),
        (args.paired_pages.is_some(), "--paired-pages"),
        (args.unstable_erase, "--unstable-erase"),
        (args.split_tears, "--split-tears"),
        (args.split_unit.is_some(), "--split-unit"),
        (args.silent_bad_blocks, "--silent-bad-blocks"),
        (args.depth != 2, "--depth"),
        (args.deviations != 1, "--deviations"),
        (args.max_outcomes.is_some(), "--max-outcomes"),
        (args.failure_windows.is_some(), "--failure-windows"),
        (args.backend != "ram", "--backend"),
        (args.no_barriers, "--no-barriers"),
        (args.hot_cold, "--hot-cold"),
        (args.sync_behind, "--sync-behind"),
        (args.spare_superblocks > 0, "--spare-superblocks"),
        (args.oracle.is_some(), "--oracle"),
        (args.model_mutant.is_some(), "--model-mutant"),
        (args.inject_failures.is_some(), "--inject-failures"),
        (args.aimed.is_some(), "--aimed"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

pub fn run(args: &CrashtestArgs) -> ExitCode {
    if let Err(m) = check_budget(args) {
        eprintln!("scftl crashtest: {m}");
        return ExitCode::from(2);
    }
    if args.check_history.is_some() {
        return concurrent::check_saved(args);
    }
    if args.concurrent.is_some() {
        return concurrent::run_cli(args);
    }
    if args.history.is_some() {
        eprintln!("scftl crashtest: --history FILE applies only with --concurrent THREADS");
        return ExitCode::from(2);
    }
    if args.background_writes.is_some() {
        eprintln!("scftl crashtest: --background-writes N applies only with --concurrent THREADS");
        return ExitCode::from(2);
    }
    if args.fs.is_some() {
        if let Some(flag) = ftl_only_flag(args) {
            eprintln!(
                "scftl crashtest: {flag} applies only to FTL runs, not to file-system runs (--fs MODE)"
            );
            return ExitCode::from(2);
        }
        return fscheck::run_cli(args);
    }
    let plan = match plan(args) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("scftl crashtest: {m}");
            return ExitCode::from(2);
        }
    };
    let bar = args::progress_bar();
    let by_ops = !args.exhaustive && args.seconds.is_none() && args.ops.is_some();
    let total_secs = if args.exhaustive {
        None
    } else {
        Some(args.seconds.unwrap_or(if by_ops { 0.0 } else { 10.0 }))
    };
    if by_ops {
        bar.set_length(args.ops.unwrap_or(0));
        bar.set_style(
            ProgressStyle::with_template("{spinner} crashtest [{bar:30}] {pos}/{len} ops {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
    } else if let Some(s) = total_secs {
        bar.set_length((s * 10.0) as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} crashtest [{bar:30}] {elapsed} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
    } else {
        bar.set_style(
            ProgressStyle::with_template("{spinner} crashtest (exhaustive) {elapsed} {msg}")
                .expect("valid template"),
        );
    }
    let mut progress = |s: &Stats, t: Duration| {
        if by_ops {
            bar.set_position(s.operations);
        } else if total_secs.is_some() {
            bar.set_position((t.as_secs_f64() * 10.0) as u64);
        }
        bar.set_message(format!(
            "{} crashes, {} states checked",
            s.crashes, s.crash_states_checked
        ));
    };
    let report = campaign(args, &plan, &mut progress);
    bar.finish_and_clear();
    print_report(args, &plan, &report);
    args::verdict(report.failure.is_some())
}

fn print_report(args: &CrashtestArgs, plan: &Plan, r: &Report) {
    let s = &r.stats;
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    let rate = s.crashes as f64 / secs;
    if args.json {
        let f = r.failure.as_ref().map(|f| {
            serde_json::json!({
                "message": f.violation.message,
                "step": f.violation.step,
                "ops": f.ops,
                "shrunk_message": f.shrunk_violation.message,
                "shrunk_script": f.shrunk.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "replay": replay_command(args, plan, f.ops),
            })
        });
        let v = serde_json::json!({
            "ftl": plan.run.target.name,
            "contract": plan.run.contract.name(),
            "geometry": args.geometry,
            // A string: seeds go up to 2^64, past what a JSON number keeps
            // exactly (jq would round it, and the replay would run another).
            "seed": plan.seed.to_string(),
            "mutant": plan.run.mutant.name(),
            "exhaustive": r.exhaustive,
            "stats": s,
            "elapsed_seconds": secs,
            "crashes_per_second": rate,
            "cpu_seconds": cpu_seconds(),
            "passed": r.failure.is_none(),
            "failure": f,
            "invariant_checks": ftl::INVARIANT_CHECKS,
            "ghost_invariants": ftl::GHOST_CHECKS,
        });
        println!("{v:#}");
        return;
    }
    println!(
        "crashtest: {}, seed {}",
        crashcheck::exec::describe(&plan.run),
        plan.seed
    );
    println!("  build checks          {}", checks_line());
    println!(
        "  operations            {} (writes {}, trims {}, reads {}, flushes {}, barriers {}, epoch-full refusals {})",
        s.operations, s.writes, s.trims, s.reads, s.flushes, s.barriers, s.epoch_full
    );
    println!("  sectors written       {}", s.sectors_written);
    println!("  flushes               {}", s.flushes);
    println!("  epoch barriers        {}", s.barriers);
    if args.sync_behind {
        println!(
            "  syncs behind barriers {} ({} proving only the epochs before a later barrier, {} superblocks erased ahead)",
            s.syncs_behind, s.partial_syncs_behind, s.erased_ahead
        );
    }
    println!(
        "  crashes               {} (during format {})",
        s.crashes, s.crashes_during_format
    );
    println!("  crash states checked  {}", s.crash_states_checked);
    println!(
        "  crashes in recovery   {} (nested: {} inside the recovery of a crash inside recovery)",
        s.crashes_during_recovery, s.nested_crashes
    );
    println!("  epoch-full refusals   {}", s.epoch_full);
    println!("  sectors compared      {}", s.sectors_compared);
    println!("  invariant checks      {}", s.invariant_checks);
    println!("  flash commands        {}", s.flash_commands);
    if args.inject_failures.is_some() || s.program_failures_injected + s.erase_failures_injected > 0
    {
        println!(
            "  media failures        {} programs and {} erases failed on purpose; {} requests refused with WornOut ({} times a device turned read-only, {} worn-out devices replaced)",
            s.program_failures_injected,
            s.erase_failures_injected,
            s.worn_out_refusals,
            s.read_only_devices,
            s.devices_replaced
        );
    }
    if args.aimed.is_some() {
        println!(
            "  aimed cycles          {} (a power cut right after an erase)",
            s.aimed_cycles
        );
    }
    if plan.run.refine {
        let secs = r.elapsed.as_secs_f64().max(1e-9);
        println!(
            "  refinement oracle     {} operations and {} recoveries compared with P, {:.0} ops/s checked",
            s.refine_steps,
            s.refine_recoveries,
            // Exhaustive mode replays its windows' operations at every
            // crash point: those are the operations compared.
            if args.exhaustive {
                s.refine_steps
            } else {
                s.operations
            } as f64
                / secs
        );
        println!(
            "  checkpoint slots      {} times the flash's committed checkpoints checked against P's live slot (Stands)",
            s.refine_slot_checks
        );
        println!(
            "  in-page/OOB commits   {} checked against P's guards InP/OobP (longest OOB run: {} pages)",
            s.refine_chain_commits, s.refine_longest_oob_run
        );
        println!(
            "  chain-phase erases    {} of P's pages erased with a lazy chain on the flash, each within PL's erase guard",
            s.refine_chain_phase_erases
        );
        println!(
            "  erase hold            {} consolidation pages written because only held superblocks were erasable ({} seen synced before the next erase in the flash's command log)",
            s.refine_hold_releases, s.refine_release_syncs
        );
        println!(
            "  victims reused        {} GC victims of a flush erased and taken again after its commit",
            s.refine_victims_reused
        );
    }
    if plan.run.oracle.is_some() {
        let secs = r.elapsed.as_secs_f64().max(1e-9);
        // Exhaustive mode replays its windows' operations at every crash
        // point: there the recoveries matched are the measure.
        let rate = if args.exhaustive {
            format!(
                "{:.0} recoveries/s matched",
                s.oracle_recoveries as f64 / secs
            )
        } else {
            format!("{:.0} ops/s checked", s.operations as f64 / secs)
        };
        println!(
            "  model oracle          {} recoveries matched ({} without a full checkpoint), {} RI/AR state checks ({} with an epoch unsynced), {} of its flushes in a record slot, {} pages a recovery reclaimed erased, {rate}",
            s.oracle_recoveries,
            s.oracle_clean_recoveries,
            s.oracle_state_checks,
            s.oracle_unsynced_checks,
            s.oracle_record_commits,
            s.oracle_reclaimed_erases,
        );
    }
    if let Some(x) = &r.exhaustive {
        println!("  exhaustive bounds     {}", x.bounds);
        for w in &x.windows {
            println!("  window                {w}");
        }
        for c in &x.coverage {
            println!("  coverage              {c}");
        }
        if !x.events_missing.is_empty() {
            println!(
                "  events not reached    {} (raise the horizon or change the seed)",
                x.events_missing.join(", ")
            );
        }
        println!(
            "  crash points          {} ({} with every class combination, {} bounded), {} outcomes, {} distinct crash states ({} duplicates skipped)",
            x.crash_points,
            x.points_every_combination,
            x.points_bounded,
            x.outcomes_enumerated,
            x.distinct_crash_states,
            x.duplicate_states_skipped
        );
        println!(
            "  levels 2..={}          {} crash points in recoveries and continuations, {} distinct crash states",
            x.depth, x.nested_crash_points, x.nested_crash_states
        );
        if x.points_sampled > 0 {
            println!(
                "  sampled               {} crash points (capped by --max-outcomes)",
                x.points_sampled
            );
        }
    }
    match cpu_seconds() {
        Some(cpu) if cpu > 0.0 => println!(
            "  elapsed               {secs:.2} s, {rate:.0} crashes/s ({:.0} crashes per CPU-second, {cpu:.2} s CPU)",
            s.crashes as f64 / cpu
        ),
        _ => println!("  elapsed               {secs:.2} s, {rate:.0} crashes/s"),
    }
    match &r.failure {
        None => println!("all passed"),
        Some(f) => {
            println!("FAILED at {}", f.violation);
            println!(
                "shrunk to {} steps (from {}), failing with: {}",
                f.shrunk.len(),
                f.script.len(),
                f.shrunk_violation.message
            );
            for (i, st) in f.shrunk.iter().enumerate() {
                println!("  {i:4}  {st}");
            }
            println!("replay: {}", replay_command(args, plan, f.ops));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: CrashtestArgs,
    }

    fn parse(argv: &[&str]) -> CrashtestArgs {
        Cli::try_parse_from(std::iter::once("crashtest").chain(argv.iter().copied()))
            .unwrap()
            .args
    }

    #[test]
    fn arguments_resolve_to_a_plan_and_a_replay_command() {
        let a = parse(&[
            "--ftl",
            "async",
            "--geometry",
            "tiny",
            "--seed",
            "7",
            "--ops",
            "100",
            "--mutant",
            "async-erase-before-sync",
        ]);
        assert_eq!(a.ftl, "async");
        let p = plan(&a).unwrap();
        assert_eq!(p.seed, 7);
        assert_eq!(
            p.run.contract,
            ContractKind::Async,
            "defaults to the FTL's own"
        );
        assert_eq!(p.run.mutant, Mutant::AsyncEraseBeforeSync);
        assert_eq!(
            replay_command(&a, &p, 42),
            "scftl crashtest --ftl async --contract async --geometry tiny --seed 7 --ops 42 --mutant async-erase-before-sync"
        );
        let a = parse(&["--contract", "snapshot", "--exhaustive"]);
        let p = plan(&a).unwrap();
        assert_eq!(p.run.target.name, "scftl");
        assert_eq!(p.run.geometry_name, "small");
        assert!(replay_command(&a, &p, 6).contains("--exhaustive --ops 6"));
        let a = parse(&[
            "--exhaustive",
            "--depth",
            "3",
            "--max-outcomes",
            "50",
            "--paired-pages",
            "2",
            "--unstable-erase",
        ]);
        let p = plan(&a).unwrap();
        assert_eq!(
            p.run.media.paired_pages,
            Some(flash::PagePairing { stride: 2 })
        );
        assert!(p.run.media.unstable_erase);
        let c = replay_command(&a, &p, 6);
        for part in [
            "--max-outcomes 50",
            "--depth 3",
            "--paired-pages 2",
            "--unstable-erase",
        ] {
            assert!(c.contains(part), "{c}");
        }
        assert_eq!(ftl_only_flag(&a), Some("--paired-pages"));
        let a = parse(&[
            "--exhaustive",
            "--split-tears",
            "--split-unit",
            "64",
            "--geometry",
            "tiny-oob40",
        ]);
        let p = plan(&a).unwrap();
        assert_eq!((p.run.media.split_unit, p.run.geometry.oob_size), (64, 40));
        let c = replay_command(&a, &p, 6);
        assert!(c.contains("--split-tears --split-unit 64"), "{c}");
        assert!(c.contains("--geometry tiny-oob40"), "{c}");
        let a = parse(&["--ftl", "sync", "--seed", "4", "--inject-failures"]);
        assert_eq!(a.inject_failures, Some(0.1));
        let p = plan(&a).unwrap();
        assert!(replay_command(&a, &p, 9).ends_with("--ops 9 --inject-failures 0.1"));
        assert_eq!(ftl_only_flag(&a), Some("--inject-failures"));
        let a = parse(&["--seed", "4", "--aimed"]);
        assert_eq!(a.aimed, Some(0.02));
        let p = plan(&a).unwrap();
        assert!(replay_command(&a, &p, 9).ends_with("--ops 9 --aimed 0.02"));
        assert_eq!(ftl_only_flag(&a), Some("--aimed"));
        // the model oracle takes barriers (PU), so aimed cycles run under it
        let a = parse(&["--aimed", "--oracle", "model", "--geometry", "tiny"]);
        let p = plan(&a).unwrap();
        assert!(p.run.oracle.is_some());
        let c = replay_command(&a, &p, 9);
        assert!(
            c.contains("--oracle model") && c.ends_with("--aimed 0.02"),
            "{c}"
        );
        // and exhaustive mode (without its failure run), and the image
        // backend (without the stable probe)
        let a = parse(&["--exhaustive", "--oracle", "model", "--geometry", "tiny"]);
        assert!(plan(&a).unwrap().run.oracle.is_some());
        let a = parse(&["--oracle", "model", "--backend", "image"]);
        let p = plan(&a).unwrap();
        assert!(p.run.oracle.is_some());
        assert!(replay_command(&a, &p, 9).contains("--backend image"));
    }

    #[test]
    fn bad_names_are_explained() {
        for (argv, needle) in [
            (&["--ftl", "nope"][..], "unknown FTL"),
            (&["--contract", "optr"][..], "unknown contract"),
            (&["--geometry", "huge"][..], "preset"),
            (&["--mutant", "typo"][..], "unknown mutant"),
            (&["--seconds=-1"][..], "not a duration"),
            (&["--seconds", "0"][..], "would check nothing"),
            (&["--ops", "0"][..], "would check nothing"),
            (&["--cut-at", "3"][..], "only to file-system runs"),
            (&["--check-rate", "2"][..], "not a probability"),
            (&["--depth", "4"][..], "not 1, 2 or 3"),
            (&["--deviations", "3"][..], "not 0, 1 or 2"),
            (&["--paired-pages", "0"][..], "at least 1"),
            (&["--inject-failures", "0"][..], "not a probability"),
            (&["--inject-failures", "--exhaustive"][..], "random mode"),
            (&["--aimed", "2"][..], "not a probability"),
            (&["--aimed", "--exhaustive"][..], "random mode"),
            (&["--split-unit", "64", "--exhaustive"][..], "--split-tears"),
            (&["--split-unit", "64", "--split-tears"][..], "--exhaustive"),
            (
                &["--split-unit", "0", "--split-tears", "--exhaustive"][..],
                "damage nothing",
            ),
            (&["--geometry", "tiny-oob4"][..], "tiny-oob40"),
        ] {
            let e = plan(&parse(argv)).unwrap_err();
            assert!(e.contains(needle), "{argv:?}: {e}");
        }
    }

    #[test]
    fn fs_arguments_resolve_and_unsafe_modes_are_refused() {
        let a = parse(&[
            "--fs",
            "group",
            "--seed",
            "3",
            "--ops",
            "50",
            "--write-bound",
            "12",
            "--mutant",
            "group-forgets-epoch-flush",
        ]);
        let c = fscheck::plan(&a).unwrap();
        assert_eq!(c.setup.mode, fs::CommitMode::Group);
        assert_eq!(c.setup.mutant, Some(fs::FsMutant::GroupForgetsEpochFlush));
        assert_eq!(
            crashcheck::fs::replay_command(&c, Some(9)),
            "scftl crashtest --fs group --ftl scftl --geometry small --seed 3 --ops 50 --write-bound 12 --mutant group-forgets-epoch-flush --cut-at 9"
        );
        assert!(!c.setup.wear_leveling);
        // --wear-leveling: `scftl mount`'s policy, in the replay command too.
        let c = fscheck::plan(&parse(&["--fs", "xlog", "--seed", "4", "--wear-leveling"])).unwrap();
        assert!(c.setup.wear_leveling);
        let replay = crashcheck::fs::replay_command(&c, None);
        assert!(replay.contains(" --wear-leveling"), "{replay}");
        let argv: Vec<&str> = replay.split(' ').skip(2).collect();
        let again = fscheck::plan(&parse(&argv)).unwrap();
        assert_eq!(crashcheck::fs::replay_command(&again, None), replay);
        for (argv, needle) in [
            (
                &["--fs", "xlog", "--ftl", "async"][..],
                "not allowed on the async FTL",
            ),
            (
                &["--fs", "group", "--ftl", "sync"][..],
                "not allowed on the sync FTL",
            ),
            (&["--fs", "journal"][..], "unknown commit mode"),
            (
                &["--fs", "log", "--mutant", "typo"][..],
                "unknown file-system mutant",
            ),
            (&["--fs", "log", "--ftl", "toy"][..], "real FTL"),
            (&["--fs", "log", "--exhaustive"][..], "does not apply"),
            (
                &["--fs", "log", "--ftl", "sync", "--write-bound", "9"][..],
                "--ftl scftl",
            ),
            (&["--fs", "log", "--geometry", "huge"][..], "small512"),
        ] {
            let e = fscheck::plan(&parse(argv)).unwrap_err();
            assert!(e.contains(needle), "{argv:?}: {e}");
        }
        let a = parse(&[
            "--fs",
            "xlog",
            "--ftl",
            "async",
            "--mutant",
            "allow-xlog-on-any-ftl",
        ]);
        assert!(fscheck::plan(&a).is_ok(), "the mutant lets the checker try");
    }

    #[test]
    fn forced_flushes_are_on_in_group_and_their_absence_replays() {
        let on = fscheck::plan(&parse(&["--fs", "group", "--seed", "3"])).unwrap();
        assert!(on.setup.forced_flushes);
        assert!(!crashcheck::fs::replay_command(&on, Some(5)).contains("forced"));
        let off = fscheck::plan(&parse(&[
            "--fs",
            "group",
            "--seed",
            "3",
            "--no-forced-flushes",
        ]))
        .unwrap();
        assert!(!off.setup.forced_flushes);
        assert_eq!(
            crashcheck::fs::replay_command(&off, Some(5)),
            "scftl crashtest --fs group --ftl scftl --geometry small --seed 3 --ops 200 --no-forced-flushes --cut-at 5"
        );
        for mode in ["log", "xlog"] {
            let e = fscheck::plan(&parse(&["--fs", mode, "--no-forced-flushes"])).unwrap_err();
            assert!(e.contains("--fs group only"), "{mode}: {e}");
        }
        let e = plan(&parse(&["--no-forced-flushes"])).unwrap_err();
        assert!(e.contains("only to file-system runs"), "{e}");
    }

    #[test]
    fn the_oracle_options_are_refused_where_they_do_not_apply() {
        use crashcheck::model::ModelMutant;
        let e = plan(&parse(&["--ftl", "async", "--oracle", "model"])).unwrap_err();
        assert!(e.contains("model of SCFTL"), "{e}");
        let e = plan(&parse(&["--oracle", "spec"])).unwrap_err();
        assert!(e.contains("unknown oracle"), "{e}");
        let m = ModelMutant::WriteSkipsCounter.name();
        let e = plan(&parse(&["--model-mutant", m])).unwrap_err();
        assert!(e.contains("only with --oracle model"), "{e}");
        let p = plan(&parse(&["--oracle", "model", "--model-mutant", m])).expect("valid");
        assert_eq!(
            p.run.oracle.map(|o| o.mutant),
            Some(ModelMutant::WriteSkipsCounter)
        );
        let e = plan(&parse(&[
            "--oracle",
            "model",
            "--model-mutant",
            "model-nonsense",
        ]))
        .unwrap_err();
        assert!(e.contains("unknown model mutant"), "{e}");
    }

    #[test]
    fn the_refinement_oracle_is_refused_where_it_cannot_follow_the_ftl() {
        let p = plan(&parse(&["--oracle", "refine"])).expect("valid");
        assert!(p.run.refine && p.run.oracle.is_none());
        let p = plan(&parse(&[
            "--oracle",
            "refine",
            "--wear-leveling",
            "--hot-cold",
        ]))
        .expect("valid");
        assert!(p.run.refine);
        // Media failures and aimed cycles: it follows retired superblocks
        // and placements after failed programs.
        let p = plan(&parse(&[
            "--oracle",
            "refine",
            "--inject-failures",
            "--aimed",
        ]))
        .expect("valid");
        assert!(p.run.refine);
        // And exhaustive mode (its failure run's windows fail programs).
        let p = plan(&parse(&["--oracle", "refine", "--exhaustive"])).expect("valid");
        assert!(p.run.refine);
        // A build without the ghost stable L2P follows no wear leveling
        // (the tests' builds have it; the check is on the flag).
        let a = parse(&["--oracle", "refine", "--wear-leveling"]);
        let t = target::by_name("scftl").expect("scftl");
        let e = refine_allowed_in(&a, &t, false).unwrap_err();
        assert!(e.contains("--features ftl/ghost"), "{e}");
        assert!(refine_allowed_in(&a, &t, true).is_ok());
        let a = parse(&["--oracle", "refine", "--hot-cold", "--inject-failures"]);
        let e = refine_allowed_in(&a, &t, false).unwrap_err();
        assert!(
            e.contains("--inject-failures") && e.contains("--features ftl/ghost"),
            "{e}"
        );
        assert!(refine_allowed_in(&a, &t, true).is_ok());
        let a = parse(&["--oracle", "refine", "--hot-cold", "--aimed"]);
        assert!(refine_allowed_in(&a, &t, false).is_ok());
        for (extra, why) in [
            (&["--ftl", "async"][..], "does not apply to --ftl async"),
            (
                &["--model-mutant", "model-write-skips-counter"][..],
                "--model-mutant",
            ),
        ] {
            let mut a = vec!["--oracle", "refine"];
            a.extend_from_slice(extra);
            let e = plan(&parse(&a)).unwrap_err();
            assert!(
                e.contains("--oracle refine") && e.contains(why),
                "{extra:?}: {e}"
            );
        }
        let e = plan(&parse(&["--oracle", "nonsense"])).unwrap_err();
        assert!(e.contains("use model or refine"), "{e}");
    }

    /// A file-system failure's printed replay command, parsed as the
    /// command line parses it, names the same campaign cut only where it
    /// failed, and fails again the same way.
    #[test]
    fn a_file_system_replay_command_parses_back_and_fails_again() {
        let a = parse(&[
            "--fs",
            "log",
            "--ftl",
            "async",
            "--geometry",
            "small512",
            "--mutant",
            "log-ignores-slots-crc",
            "--seed",
            "3",
            "--ops",
            "60",
            "--cuts",
            "400",
        ]);
        let c = fscheck::plan(&a).expect("valid");
        let f = crashcheck::fs::run(&c, &mut |_| {})
            .expect("the campaign runs")
            .failure
            .expect("the mutant is caught");
        let argv: Vec<&str> = f
            .replay
            .strip_prefix("scftl crashtest ")
            .unwrap_or_else(|| panic!("{}", f.replay))
            .split_whitespace()
            .collect();
        let one = fscheck::plan(&parse(&argv)).expect("the replay command is valid");
        assert_eq!(one.cut_at, f.cut);
        // (`--cuts` is left out: `--cut-at` names the one cut point.)
        assert_eq!((one.seed, one.calls), (c.seed, c.calls));
        let again = crashcheck::fs::run(&one, &mut |_| {})
            .expect("the replay runs")
            .failure
            .expect("the replay fails too");
        assert_eq!((again.message, again.replay), (f.message, f.replay));
    }
}
