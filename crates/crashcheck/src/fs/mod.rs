//! The file-system crash checker (`scftl crashtest --fs MODE`): the `fs`
//! crate's file system in one commit mode over one FTL, driven by a seeded
//! workload of system calls (`gen`) whose every outcome and tree comes from
//! a reference model (`model`), with a power cut at every flash command of
//! the run, or at a seeded sample of them when there are more than
//! `--cuts` (`check`). Each cut point's crash policy is drawn from the
//! seed, or with `--all-policies` every policy is checked (one replay
//! each).
//!
//! What it promises: a campaign is a pure function of (mode, FTL, geometry,
//! epoch bound, mutant, seed, calls, cuts); each cut point's crash policy
//! and garbage depend on (seed, cut point) only, so a failure replays alone
//! with the printed `--cut-at` command; in `group` mode the flushes it
//! forces inside calls (`force`) depend on (seed, call, step) only; every seeded file-system bug
//! (`fs::FsMutant`) is caught by a test (tests/fs_crash.rs).
//!
//! What it must never do: run `xlog` or `group` on a device that is not
//! snapshot-consistent without the mutant that allows it (the file system
//! refuses, and so does the command line, before any work), or count a
//! cut point whose power cut never came as checked.

pub mod check;
pub mod force;
pub mod gen;
/// The reference model, shared with the file system's own model test.
pub use ::fs::model;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use flash::{CrashPolicy, Geometry};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use serde::Serialize;

pub use check::Setup;

/// Calls in a workload when `--ops` is not given.
pub const DEFAULT_CALLS: usize = 200;
/// Most cut points when `--cuts` is not given.
pub const DEFAULT_CUTS: u64 = 2000;

/// A file-system campaign.
#[derive(Clone, Debug)]
pub struct FsConfig {
    pub setup: Setup,
    /// The `--geometry` name (for the replay command).
    pub geometry_name: String,
    pub seed: u64,
    /// System calls in the workload.
    pub calls: usize,
    /// Most cut points; a run with more flash commands is sampled.
    pub cuts: u64,
    /// Check only this cut point.
    pub cut_at: Option<u64>,
    /// Check every crash policy at each cut point (one replay each) rather
    /// than one drawn from (seed, cut point).
    pub all_policies: bool,
}

/// The flash geometry for a name: the flash presets, and `small512`, the
/// fs tests' 2 MiB device with 512-byte sectors (the `tiny` preset cannot
/// hold a file system).
pub fn geometry(name: &str) -> Result<Geometry, String> {
    if name == "small512" {
        return Ok(Geometry {
            channels: 1,
            dies_per_channel: 2,
            blocks_per_die: 32,
            pages_per_block: 32,
            sectors_per_page: 2,
            sector_size: 512,
            oob_size: 32,
        });
    }
    Geometry::preset(name).map_err(|e| format!("{e} (with --fs also small512)"))
}

/// Live file bytes a workload may hold on `g`: an eighth of the raw flash,
/// at most 2 MiB, so no call runs out of space.
pub fn bytes_max(g: &Geometry) -> u64 {
    (g.raw_bytes() / 8).min(2 << 20)
}

/// Counters of a campaign.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FsStats {
    /// System calls in the workload.
    pub calls_generated: u64,
    /// Flash commands the workload takes without a power cut.
    pub commands: u64,
    /// Transaction steps and group mode's epoch-full flushes in that run.
    pub steps: u64,
    pub epoch_flushes: u64,
    /// Of those epoch-full flushes, the ones the checker forced inside a
    /// call by making the epoch look full (`group`, `force.rs`) where the
    /// next step would have fitted the epoch.
    pub forced_flushes: u64,
    /// Points inside calls where the checker made the epoch look full but
    /// the next step would not have fitted anyway (the file system flushes
    /// there on its own).
    pub forced_full_anyway: u64,
    /// SCFTL's metadata rotations in that run (`Setup::wear_leveling`).
    pub meta_rotations: u64,
    /// Cut points to check, and whether they are a sample of `commands`.
    pub cut_points: u64,
    pub sampled: bool,
    /// Cut points checked (power cut, recovery, mount, fsck, tree).
    pub cut_points_checked: u64,
    /// Post-crash devices checked: one per cut point, or one per crash
    /// policy with `all_policies`.
    pub crashes: u64,
    /// FTL recoveries followed by a mount (a cut inside the mount adds
    /// one).
    pub recoveries: u64,
    /// Crashes whose recovering mount was itself cut.
    pub mount_cuts: u64,
    /// Trees that matched a long call cut between its steps.
    pub partial_states: u64,
    /// Call outcomes compared with the model, over every run.
    pub calls_checked: u64,
    /// Cut points per crash policy.
    pub policies: BTreeMap<String, u64>,
}

/// A violation and how to replay it.
#[derive(Clone, Debug, Serialize)]
pub struct FsFailure {
    pub message: String,
    /// The cut point (`None`: the run without a power cut).
    pub cut: Option<u64>,
    pub policy: Option<String>,
    pub replay: String,
}

/// What a campaign found.
#[derive(Clone, Debug)]
pub struct FsReport {
    pub stats: FsStats,
    /// Generated calls per kind.
    pub tally: BTreeMap<String, u64>,
    pub elapsed: Duration,
    pub failure: Option<FsFailure>,
}

/// The command that replays a campaign, or one cut point of it.
pub fn replay_command(c: &FsConfig, cut: Option<u64>) -> String {
    let s = &c.setup;
    let mut r = format!(
        "scftl crashtest --fs {} --ftl {} --geometry {} --seed {} --ops {}",
        s.mode, s.kind, c.geometry_name, c.seed, c.calls
    );
    if let Some(w) = s.write_bound {
        r += &format!(" --write-bound {w}");
    }
    if let Some(m) = s.mutant {
        r += &format!(" --mutant {}", m.name());
    }
    if s.wear_leveling {
        r += " --wear-leveling";
    }
    if s.mode == ::fs::CommitMode::Group && !s.forced_flushes {
        r += " --no-forced-flushes";
    }
    if c.all_policies {
        r += " --all-policies";
    }
    match cut {
        Some(k) => r += &format!(" --cut-at {k}"),
        None => r += &format!(" --cuts {}", c.cuts),
    }
    r
}

/// Runs a campaign; `progress` sees the counters after each cut point.
/// `Err` when the setup itself fails (a geometry too small for a file
/// system, a cut point past the workload).
pub fn run(c: &FsConfig, progress: &mut dyn FnMut(&FsStats)) -> Result<FsReport, String> {
    let t0 = Instant::now();
    let w = gen::generate(c.seed, c.calls, bytes_max(&c.setup.geometry));
    let mut report = FsReport {
        stats: FsStats {
            calls_generated: w.calls.len() as u64,
            ..Default::default()
        },
        tally: w.tally.clone(),
        elapsed: Duration::ZERO,
        failure: None,
    };
    // Setup errors (before any call) are the caller's, not violations.
    c.setup.start(c.seed)?;
    let r = match check::reference(&c.setup, &w, c.seed) {
        Ok(r) => r,
        Err(message) => {
            report.failure = Some(FsFailure {
                message,
                cut: None,
                policy: None,
                replay: replay_command(c, None),
            });
            report.elapsed = t0.elapsed();
            return Ok(report);
        }
    };
    let st = &mut report.stats;
    st.calls_checked = w.calls.len() as u64;
    st.commands = r.commands;
    st.steps = r.steps;
    st.epoch_flushes = r.epoch_flushes;
    st.forced_flushes = r.forced_flushes;
    st.forced_full_anyway = r.forced_full_anyway;
    st.meta_rotations = r.meta_rotations;
    let points: Vec<u64> = match c.cut_at {
        Some(k) if k >= r.commands => {
            return Err(format!(
                "--cut-at {k} is past the workload, which takes {} flash commands",
                r.commands
            ))
        }
        Some(k) => vec![k],
        None if r.commands <= c.cuts => (0..r.commands).collect(),
        None => {
            st.sampled = true;
            let mut rng = Pcg64::seed_from_u64(c.seed ^ 0x5EED_C075);
            let mut v: Vec<u64> =
                rand::seq::index::sample(&mut rng, r.commands as usize, c.cuts as usize)
                    .into_iter()
                    .map(|x| x as u64)
                    .collect();
            v.sort_unstable();
            v
        }
    };
    st.cut_points = points.len() as u64;
    let policies: Vec<Option<CrashPolicy>> = if c.all_policies {
        CrashPolicy::ALL.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    'points: for k in points {
        for &p in &policies {
            let res = check::cut(&c.setup, &w, c.seed, k, p)?;
            let st = &mut report.stats;
            st.calls_checked += res.calls_checked;
            *st.policies.entry(res.policy.name().into()).or_default() += 1;
            if let Some(message) = res.violation {
                report.failure = Some(FsFailure {
                    message,
                    cut: Some(k),
                    policy: Some(res.policy.name().into()),
                    replay: replay_command(c, Some(k)),
                });
                break 'points;
            }
            st.crashes += 1;
            st.recoveries += 1 + res.mount_cuts;
            st.mount_cuts += u64::from(res.mount_cuts > 0);
            st.partial_states += u64::from(res.partial);
        }
        report.stats.cut_points_checked += 1;
        progress(&report.stats);
    }
    report.elapsed = t0.elapsed();
    Ok(report)
}
