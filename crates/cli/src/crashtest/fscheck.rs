//! `scftl crashtest --fs MODE`: the arguments resolved to a file-system
//! campaign (`crashcheck::fs`), its progress bar and report.

use std::process::ExitCode;

use ::fs::{CommitMode, FsMutant};
use ftl::FtlKind;
use indicatif::ProgressStyle;

use super::args::{cpu_seconds, progress_bar, verdict, CrashtestArgs};
use crashcheck::fs::{
    geometry, run, FsConfig, FsReport, FsStats, Setup, DEFAULT_CALLS, DEFAULT_CUTS,
};

/// Resolves `scftl crashtest --fs MODE ...` to a campaign, or explains what
/// is wrong.
pub fn plan(args: &CrashtestArgs) -> Result<FsConfig, String> {
    let mode_name = args.fs.as_deref().unwrap_or("log");
    let mode = CommitMode::parse(mode_name).map_err(|e| e.to_string())?;
    let kind = FtlKind::parse(&args.ftl).map_err(|_| {
        format!(
            "--fs runs on a real FTL: scftl, async or sync, not `{}`",
            args.ftl
        )
    })?;
    if kind == FtlKind::Optr {
        return Err("optr is not supported by crashtest --fs yet".into());
    }
    let mutant = match &args.mutant {
        None => None,
        Some(m) => Some(FsMutant::parse(m).map_err(|_| {
            let names: Vec<&str> = FsMutant::ALL.iter().map(|m| m.name()).collect();
            format!(
                "unknown file-system mutant `{m}` (known: {})",
                names.join(", ")
            )
        })?),
    };
    if !mode.allowed_on(Some(kind)) && mutant != Some(FsMutant::AllowXlogOnAnyFtl) {
        return Err(format!(
            "mode `{mode}` is not allowed on the {kind} FTL: it relies on a snapshot-consistent \
             flush, which only scftl has (use --fs log on {kind}, or --ftl scftl; \
             --mutant allow-xlog-on-any-ftl shows what goes wrong)"
        ));
    }
    for (given, flag) in [
        (args.exhaustive, "--exhaustive"),
        (args.contract.is_some(), "--contract"),
        (args.seconds.is_some(), "--seconds"),
    ] {
        if given {
            return Err(format!(
                "{flag} does not apply to --fs (its budget is --ops calls and --cuts cut points)"
            ));
        }
    }
    if args.write_bound.is_some() && kind != FtlKind::Scftl {
        return Err("--write-bound is SCFTL's epoch bound: use it with --ftl scftl".into());
    }
    if args.no_forced_flushes && mode != CommitMode::Group {
        return Err(format!(
            "--no-forced-flushes applies to --fs group only (mode `{mode}` forces no flushes)"
        ));
    }
    let calls = args.ops.unwrap_or(DEFAULT_CALLS as u64);
    if calls == 0 || calls > 100_000 {
        return Err(format!("--ops {calls}: use 1 to 100000 calls"));
    }
    let seed = args.seed.unwrap_or_else(super::args::clock_seed);
    Ok(FsConfig {
        setup: Setup {
            mode,
            kind,
            geometry: geometry(&args.geometry)?,
            write_bound: args.write_bound,
            mutant,
            forced_flushes: !args.no_forced_flushes,
            wear_leveling: args.wear_leveling,
        },
        geometry_name: args.geometry.clone(),
        seed,
        calls: calls as usize,
        cuts: args.cuts.unwrap_or(DEFAULT_CUTS).max(1),
        cut_at: args.cut_at,
        all_policies: args.all_policies,
    })
}

/// `scftl crashtest --fs MODE`: runs the campaign with a progress bar on a
/// terminal, prints the summary or the failure with its replay command;
/// exit 0 passed, 1 violation, 2 bad arguments or setup.
pub fn run_cli(args: &CrashtestArgs) -> ExitCode {
    let c = match plan(args) {
        Ok(c) => c,
        Err(m) => {
            eprintln!("scftl crashtest: {m}");
            return ExitCode::from(2);
        }
    };
    let bar = progress_bar();
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} crashtest --fs [{bar:30}] {pos}/{len} cut points {msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let mut progress = |s: &FsStats| {
        bar.set_length(s.cut_points);
        bar.set_position(s.cut_points_checked);
        bar.set_message(format!("{} calls checked", s.calls_checked));
    };
    let report = run(&c, &mut progress);
    bar.finish_and_clear();
    let report = match report {
        Ok(r) => r,
        Err(m) => {
            eprintln!("scftl crashtest: {m}");
            return ExitCode::from(2);
        }
    };
    print_report(args, &c, &report);
    verdict(report.failure.is_some())
}

fn print_report(args: &CrashtestArgs, c: &FsConfig, r: &FsReport) {
    let s = &r.stats;
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    let calls_rate = s.calls_checked as f64 / secs;
    let cuts_rate = s.cut_points_checked as f64 / secs;
    if args.json {
        let v = serde_json::json!({
            "fs_mode": c.setup.mode.name(),
            "ftl": c.setup.kind.name(),
            "geometry": c.geometry_name,
            "write_bound": c.setup.write_bound,
            // A string: a JSON number past 2^53 is rounded by readers.
            "seed": c.seed.to_string(),
            "mutant": c.setup.mutant.map(|m| m.name()),
            // Whether flushes were forced inside calls (group mode only).
            "forced_flushes_enabled": c.setup.mode == CommitMode::Group && c.setup.forced_flushes,
            "wear_leveling": c.setup.wear_leveling,
            "stats": s,
            "calls_by_kind": r.tally,
            "elapsed_seconds": secs,
            "calls_checked_per_second": calls_rate,
            "cut_points_per_second": cuts_rate,
            "cpu_seconds": cpu_seconds(),
            "passed": r.failure.is_none(),
            "failure": r.failure,
        });
        println!("{v:#}");
        return;
    }
    let mutant = c
        .setup
        .mutant
        .map_or(String::new(), |m| format!(", mutant {}", m.name()));
    let w = c
        .setup
        .write_bound
        .map_or(String::new(), |w| format!(", W={w}"));
    let wear = if c.setup.wear_leveling {
        ", wear leveling (dynamic)"
    } else {
        ""
    };
    println!(
        "crashtest --fs {}: {} on {}{w}{wear}{mutant}, seed {}",
        c.setup.mode, c.setup.kind, c.geometry_name, c.seed
    );
    let kinds: Vec<String> = r.tally.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "  calls generated       {} ({})",
        s.calls_generated,
        kinds.join(", ")
    );
    let forced = if c.setup.mode != CommitMode::Group {
        String::new()
    } else if c.setup.forced_flushes {
        format!(
            " ({} forced inside calls; {} more forced points found the epoch full anyway)",
            s.forced_flushes, s.forced_full_anyway
        )
    } else {
        " (forced flushes off)".to_string()
    };
    let rotations = if c.setup.wear_leveling && c.setup.kind == FtlKind::Scftl {
        format!(", {} metadata rotations", s.meta_rotations)
    } else {
        String::new()
    };
    println!(
        "  reference run         {} flash commands, {} steps, {} epoch-full flushes{forced}{rotations}",
        s.commands, s.steps, s.epoch_flushes
    );
    let how = if c.cut_at.is_some() {
        "the one asked for".to_string()
    } else if s.sampled {
        format!("a seeded sample of the {} commands", s.commands)
    } else {
        "every flash command".to_string()
    };
    println!(
        "  cut points checked    {} of {} ({how})",
        s.cut_points_checked, s.cut_points
    );
    let pol: Vec<String> = s.policies.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let how = if c.all_policies {
        "every policy at each cut point"
    } else {
        "one drawn per cut point"
    };
    println!(
        "  crashes               {} ({how}: {})",
        s.crashes,
        pol.join(", ")
    );
    println!(
        "  recoveries            {} (FTL recovery, mount, fsck clean, tree as the mode promises)",
        s.recoveries
    );
    println!(
        "  cuts inside mount     {} (the recovering mount cut too, then recovered again)",
        s.mount_cuts
    );
    println!(
        "  partial states        {} (a long call cut between its steps)",
        s.partial_states
    );
    println!("  calls checked         {}", s.calls_checked);
    let cpu = cpu_seconds()
        .filter(|&c| c > 0.0)
        .map_or(String::new(), |c| format!(", {c:.2} s CPU"));
    println!(
        "  elapsed               {secs:.2} s: {calls_rate:.0} calls checked/s, {cuts_rate:.1} cut points/s{cpu}"
    );
    match &r.failure {
        None => println!("all passed"),
        Some(f) => {
            match (&f.cut, &f.policy) {
                (Some(k), Some(p)) => println!("FAILED at cut point {k} ({p}): {}", f.message),
                _ => println!("FAILED: {}", f.message),
            }
            println!("replay: {}", f.replay);
        }
    }
}
