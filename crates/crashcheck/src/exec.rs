//! The executor: runs a script of steps (workload operations, power cuts,
//! recoveries) against an FTL over the crash-injecting flash, keeps the
//! reference model in step, and checks every read against it.
//!
//! Scripts are plain data, so a run replays exactly, and a shrunk script is
//! just a shorter list. Every script is well-defined: operations while the
//! device is down are skipped, a `Crash` with no power cut armed (or one
//! that has not fired) cuts power between operations, and an armed cut that
//! has not fired by the next `Crash` or the end of a recovery is disarmed.
//!
//! Invariants: `dev` is `Some` exactly when `phase == Phase::Up`; `model` is
//! `Some` once any format or recovery succeeded; every version handed out is
//! unique within the run.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use flash::{CrashPolicy, Flash, Geometry, MediaFaults, PageClass};
use ftl::{BlockDevice, FtlError, Lba, Mutant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use crate::data::{decode, fill, Observed};
use crate::model::refine::{Done, RefineOracle};
use crate::model::{ModelOracle, OracleConfig};
use crate::spec::{ContractKind, Interrupted, Spec};
use crate::target::{Dev, Target};

/// Devices up to this many sectors are read whole by a full verification;
/// larger ones get a sample of a sixteenth of it.
pub const FULL_VERIFY_MAX_SECTORS: u64 = 1 << 16;

/// How a `Crash` step settles the pages in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrashHow {
    Policy(CrashPolicy),
    /// Outcome number `i` of the per-page product (`CrashFlash::apply_outcome`).
    Outcome(u64),
    /// One class per touched page, in first-touch order
    /// (`CrashFlash::crash_with_classes`; exhaustive mode).
    Pages(Vec<PageClass>),
}

impl std::fmt::Display for CrashHow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrashHow::Policy(p) => f.write_str(p.name()),
            CrashHow::Outcome(i) => write!(f, "outcome {i}"),
            CrashHow::Pages(v) => {
                // old / image k / prefix of image k / garbage / image k with
                // bytes at..at+len damaged, per page.
                f.write_str("pages [")?;
                for (i, c) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    match c {
                        PageClass::Image(k) => write!(f, "{k}")?,
                        PageClass::Prefix(k) => write!(f, "p{k}")?,
                        PageClass::Garbage => f.write_str("g")?,
                        PageClass::Damaged { image, at, len } => write!(f, "d{image}@{at}+{len}")?,
                    }
                }
                f.write_str("]")
            }
        }
    }
}

/// One step of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Format the device (resets the model).
    Format,
    Write {
        lba: u64,
        count: u32,
    },
    Trim {
        lba: u64,
        count: u32,
    },
    Flush,
    /// An epoch barrier (`BlockDevice::epoch_barrier`): the epoch ends in
    /// order, without durability.
    Barrier,
    Read {
        lba: u64,
        count: u32,
    },
    /// Call the FTL's `check_invariants` (skipped while the device is down):
    /// its in-memory state against itself, and the stable L2P it would
    /// rebuild from flash against the ghost copy its flush path keeps.
    Check,
    /// Arm a power cut after `commands` more counted flash commands.
    Arm {
        commands: u64,
    },
    /// Arm a power cut right after the `erases`-th next erase command
    /// (1 = the next): the erase is the last command before the cut.
    /// Aimed cycles use it to cut where an erase has just destroyed a
    /// block a fallback state may still need.
    ArmAfterErase {
        erases: u64,
    },
    /// Cut power (if not already cut) and produce the post-crash device.
    Crash {
        how: CrashHow,
        seed: u64,
    },
    /// Open (recover) the device and verify it against the model: the
    /// sectors touched since the last verification, the model's open
    /// sectors, and a sample (or every sector if `full`).
    Recover {
        sample_seed: u64,
        invariants: bool,
        full: bool,
    },
    /// Make the `after`-th next program (1 = the next one) fail as worn
    /// NAND does (`flash::FlashError::ProgramFailed`: the page is consumed,
    /// the block's other pages keep their content), whatever it programs —
    /// data, metadata, a label. Disarmed by the next crash, recovery or
    /// format if it has not fired by then: failures are injected in normal
    /// operation only.
    FailProgram {
        after: u64,
    },
    /// Make the `after`-th next erase fail (`EraseFailed`: no page changes,
    /// the block is worn out from then on); disarmed likewise.
    FailErase {
        after: u64,
    },
    /// Replace the flash with a new, erased device, as an operator replaces
    /// a worn-out disk: the model starts over and the next step formats.
    /// (The random generator swaps a device that stays read-only across
    /// reopens.)
    NewDevice,
}

/// The first request a device refused with `FtlError::WornOut` since it
/// was last opened. The contract treats it like a request a power cut
/// interrupted: it may have partly happened (its sectors read old or new
/// while the device stays up read-only), and the crash or reopen that
/// follows is checked as the cut of this request. Every later write or
/// trim must be refused too and change nothing; a flush or barrier may
/// still succeed (a device that takes no new data may still make what it
/// holds durable), and is then checked as any flush is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Refused {
    /// A write (trim: versions all 0).
    Write {
        lba: u64,
        versions: Vec<u32>,
    },
    Flush,
    Barrier,
}

impl Refused {
    fn as_interrupted(&self) -> Interrupted<'_> {
        match self {
            Refused::Write { lba, versions } => Interrupted::Write {
                lba: *lba,
                versions,
            },
            Refused::Flush => Interrupted::Flush,
            Refused::Barrier => Interrupted::Barrier,
        }
    }

    /// True when sector `l` reading `got` is the refused write's value.
    fn wrote(&self, l: u64, got: Observed) -> bool {
        match self {
            Refused::Write { lba, versions } => {
                l >= *lba
                    && l - lba < versions.len() as u64
                    && got == Observed::Version(versions[(l - lba) as usize])
            }
            _ => false,
        }
    }
}

impl Step {
    /// True for workload operations (what `--ops` counts).
    pub fn is_op(&self) -> bool {
        matches!(
            self,
            Step::Write { .. }
                | Step::Trim { .. }
                | Step::Flush
                | Step::Barrier
                | Step::Read { .. }
        )
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Format => f.write_str("format"),
            Step::Write { lba, count } => write!(f, "write {lba} x{count}"),
            Step::Trim { lba, count } => write!(f, "trim {lba} x{count}"),
            Step::Flush => f.write_str("flush"),
            Step::Barrier => f.write_str("epoch barrier"),
            Step::Read { lba, count } => write!(f, "read {lba} x{count}"),
            Step::Check => f.write_str("check_invariants"),
            Step::FailProgram { after: 0 } => f.write_str("disarm the program failure"),
            Step::FailProgram { after } => write!(f, "fail program {after} from now"),
            Step::FailErase { after } => write!(f, "fail erase {after} from now"),
            Step::NewDevice => f.write_str("new device (the old one wore out)"),
            Step::Arm { commands } => write!(f, "arm power cut after {commands} flash commands"),
            Step::ArmAfterErase { erases } => {
                write!(f, "arm power cut right after erase {erases} from now")
            }
            Step::Crash { how, seed } => write!(f, "crash ({how}, seed {seed})"),
            Step::Recover {
                full, invariants, ..
            } => write!(
                f,
                "recover + verify{}{}",
                if *full { " (all sectors)" } else { "" },
                if *invariants {
                    " + check_invariants"
                } else {
                    ""
                }
            ),
        }
    }
}

/// What is being tested.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub target: Target,
    pub contract: ContractKind,
    pub geometry: Geometry,
    /// Preset name of the geometry (for replay commands).
    pub geometry_name: String,
    pub mutant: Mutant,
    /// Random sample size of the post-recovery verification.
    pub sample: usize,
    /// Media behaviours beyond the default crash model (opt-in).
    pub media: MediaFaults,
    /// Run the transcribed model P next to the FTL as a second oracle
    /// (`--oracle model`; `crate::model`).
    pub oracle: Option<OracleConfig>,
    /// Run the refinement oracle: SCFTL's internal state against P's
    /// transcription in lock step (`--oracle refine`;
    /// `crate::model::refine`).
    pub refine: bool,
}

/// Counters of a run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Stats {
    pub operations: u64,
    pub writes: u64,
    pub sectors_written: u64,
    pub trims: u64,
    pub reads: u64,
    pub flushes: u64,
    /// Completed epoch barriers.
    pub barriers: u64,
    /// Syncs behind barriers that ran (`Target::sync_behind`).
    pub syncs_behind: u64,
    /// Of those, the ones whose ticket was held across a later barrier and
    /// so proved only the older epochs, leaving that barrier's unsynced
    /// (SCFTL's `note_ticket_sync`; the proofs' PUSB).
    pub partial_syncs_behind: u64,
    /// Superblocks SCFTL erased ahead when those syncs returned
    /// (`DeviceStats::erased_ahead`), each checked by the refinement
    /// oracle when it runs.
    pub erased_ahead: u64,
    pub epoch_full: u64,
    pub crashes: u64,
    pub crashes_during_format: u64,
    /// Formats that completed (the first device's, and a replaced
    /// device's unless a crash cut it and its recovery found it whole).
    pub formats: u64,
    pub crashes_during_recovery: u64,
    /// Power cuts inside a recovery that was itself recovering from a
    /// power cut inside a recovery (nesting depth two or more).
    pub nested_crashes: u64,
    pub crash_states_checked: u64,
    pub sectors_compared: u64,
    pub invariant_checks: u64,
    pub flash_commands: u64,
    /// `Check` steps at which the model oracle compared RI and AR.
    pub oracle_state_checks: u64,
    /// Those of them with a barrier's epoch unsynced in the model (PU:
    /// `AR.stb` against the last SYNC's image or the last barrier's).
    pub oracle_unsynced_checks: u64,
    /// Recoveries the model oracle matched against P's crash outcomes.
    pub oracle_recoveries: u64,
    /// Flushes the model oracle's P committed in a record slot (`fi4`,
    /// `ck3 (fi3 …)`: the in-page or OOB commit).
    pub oracle_record_commits: u64,
    /// Pages P's recovery made erasable (`rec0`'s `reclaim`: below its
    /// next page, named by no address of the recovered L2P) that the
    /// model oracle's GC then erased.
    pub oracle_reclaimed_erases: u64,
    /// Recoveries after which the model oracle's P went on without a full
    /// checkpoint (`rec0` alone, `clean` and `Quiet`; with the lazy chain,
    /// PXq's clean recovery of the chain phase).
    pub oracle_clean_recoveries: u64,
    /// Operations and recoveries at which the refinement oracle compared
    /// the FTL's internal state with P's.
    pub refine_steps: u64,
    pub refine_recoveries: u64,
    /// In-page and OOB commits whose facts the refinement oracle checked
    /// against P's guards `InP` / `OobP`.
    pub refine_chain_commits: u64,
    /// Times the refinement oracle checked the committed checkpoints on
    /// the flash against P's live slot (`RefineOracle::slots`).
    pub refine_slot_checks: u64,
    /// The most data pages one of those OOB commits spanned (a maximum,
    /// not a sum, when runs are added up).
    pub refine_longest_oob_run: u64,
    /// P's pages the FTL erased while a record of the lazy chain was on
    /// the flash, each checked against PL's erase guard
    /// (`model::refine::PlGuard`).
    pub refine_chain_phase_erases: u64,
    /// Consolidation pages SCFTL wrote because it had to activate a
    /// superblock and every erasable one was held by the lazy chain
    /// (`DeviceStats::hold_releases`; counted where the refinement oracle
    /// runs).
    pub refine_hold_releases: u64,
    /// GC victims of a flush that the same flush erased and took again
    /// after its commit (durable at once), which the refinement oracle
    /// followed as victims although they were no longer erasable at the
    /// operation's end.
    pub refine_victims_reused: u64,
    /// Ways out of the erase hold whose consolidation page the flash's
    /// command log shows synced before the next erase
    /// (`Executor::refine_step`, `release_synced`).
    pub refine_release_syncs: u64,
    /// Program and erase failures the flash was made to fail
    /// (`Step::FailProgram`, `Step::FailErase`) and that fired.
    pub program_failures_injected: u64,
    pub erase_failures_injected: u64,
    /// Requests refused with `FtlError::WornOut` (the device read-only).
    pub worn_out_refusals: u64,
    /// Devices that turned read-only (the first refusal after an open).
    pub read_only_devices: u64,
    /// Worn-out devices replaced by new ones (`Step::NewDevice`).
    pub devices_replaced: u64,
    /// Aimed cycles run (`--aimed`): each arms one cut right after an
    /// erase (`Step::ArmAfterErase`).
    pub aimed_cycles: u64,
}

impl Stats {
    /// The workload's counters alone (operations by kind), the rest zero.
    pub fn workload(&self) -> Stats {
        Stats {
            operations: self.operations,
            writes: self.writes,
            sectors_written: self.sectors_written,
            trims: self.trims,
            reads: self.reads,
            flushes: self.flushes,
            barriers: self.barriers,
            syncs_behind: self.syncs_behind,
            partial_syncs_behind: self.partial_syncs_behind,
            erased_ahead: self.erased_ahead,
            epoch_full: self.epoch_full,
            program_failures_injected: self.program_failures_injected,
            erase_failures_injected: self.erase_failures_injected,
            worn_out_refusals: self.worn_out_refusals,
            read_only_devices: self.read_only_devices,
            devices_replaced: self.devices_replaced,
            formats: self.formats,
            aimed_cycles: self.aimed_cycles,
            ..Stats::default()
        }
    }

    /// The crash and verification counters alone, the workload's zero: what
    /// a replay of an already counted workload adds to a campaign.
    pub fn checking(&self) -> Stats {
        Stats {
            crashes: self.crashes,
            crashes_during_format: self.crashes_during_format,
            crashes_during_recovery: self.crashes_during_recovery,
            nested_crashes: self.nested_crashes,
            crash_states_checked: self.crash_states_checked,
            sectors_compared: self.sectors_compared,
            invariant_checks: self.invariant_checks,
            flash_commands: self.flash_commands,
            oracle_state_checks: self.oracle_state_checks,
            oracle_unsynced_checks: self.oracle_unsynced_checks,
            oracle_recoveries: self.oracle_recoveries,
            oracle_record_commits: self.oracle_record_commits,
            oracle_reclaimed_erases: self.oracle_reclaimed_erases,
            oracle_clean_recoveries: self.oracle_clean_recoveries,
            refine_steps: self.refine_steps,
            refine_recoveries: self.refine_recoveries,
            refine_chain_commits: self.refine_chain_commits,
            refine_slot_checks: self.refine_slot_checks,
            refine_longest_oob_run: self.refine_longest_oob_run,
            refine_chain_phase_erases: self.refine_chain_phase_erases,
            refine_hold_releases: self.refine_hold_releases,
            refine_victims_reused: self.refine_victims_reused,
            refine_release_syncs: self.refine_release_syncs,
            ..Stats::default()
        }
    }
}

/// Adds every counter. The pattern names every field, so a new counter
/// cannot be forgotten here.
impl std::ops::AddAssign<&Stats> for Stats {
    fn add_assign(&mut self, o: &Stats) {
        let Stats {
            operations,
            writes,
            sectors_written,
            trims,
            reads,
            flushes,
            barriers,
            syncs_behind,
            partial_syncs_behind,
            erased_ahead,
            epoch_full,
            crashes,
            crashes_during_format,
            formats,
            crashes_during_recovery,
            nested_crashes,
            crash_states_checked,
            sectors_compared,
            invariant_checks,
            flash_commands,
            oracle_state_checks,
            oracle_unsynced_checks,
            oracle_recoveries,
            oracle_record_commits,
            oracle_reclaimed_erases,
            oracle_clean_recoveries,
            refine_steps,
            refine_recoveries,
            refine_chain_commits,
            refine_slot_checks,
            refine_longest_oob_run,
            refine_chain_phase_erases,
            refine_hold_releases,
            refine_victims_reused,
            refine_release_syncs,
            program_failures_injected,
            erase_failures_injected,
            worn_out_refusals,
            read_only_devices,
            devices_replaced,
            aimed_cycles,
        } = o;
        self.operations += operations;
        self.writes += writes;
        self.sectors_written += sectors_written;
        self.trims += trims;
        self.reads += reads;
        self.flushes += flushes;
        self.barriers += barriers;
        self.syncs_behind += syncs_behind;
        self.partial_syncs_behind += partial_syncs_behind;
        self.erased_ahead += erased_ahead;
        self.epoch_full += epoch_full;
        self.crashes += crashes;
        self.crashes_during_format += crashes_during_format;
        self.formats += formats;
        self.crashes_during_recovery += crashes_during_recovery;
        self.nested_crashes += nested_crashes;
        self.crash_states_checked += crash_states_checked;
        self.sectors_compared += sectors_compared;
        self.invariant_checks += invariant_checks;
        self.flash_commands += flash_commands;
        self.oracle_state_checks += oracle_state_checks;
        self.oracle_unsynced_checks += oracle_unsynced_checks;
        self.oracle_recoveries += oracle_recoveries;
        self.oracle_record_commits += oracle_record_commits;
        self.oracle_reclaimed_erases += oracle_reclaimed_erases;
        self.oracle_clean_recoveries += oracle_clean_recoveries;
        self.refine_steps += refine_steps;
        self.refine_recoveries += refine_recoveries;
        self.refine_chain_commits += refine_chain_commits;
        self.refine_slot_checks += refine_slot_checks;
        self.refine_longest_oob_run = self.refine_longest_oob_run.max(*refine_longest_oob_run);
        self.refine_chain_phase_erases += refine_chain_phase_erases;
        self.refine_hold_releases += refine_hold_releases;
        self.refine_victims_reused += refine_victims_reused;
        self.refine_release_syncs += refine_release_syncs;
        self.program_failures_injected += program_failures_injected;
        self.erase_failures_injected += erase_failures_injected;
        self.worn_out_refusals += worn_out_refusals;
        self.read_only_devices += read_only_devices;
        self.devices_replaced += devices_replaced;
        self.aimed_cycles += aimed_cycles;
    }
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        *self += &o;
    }
}

/// A contract violation (or an FTL error where none is allowed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Index of the step where it was detected.
    pub step: usize,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "step {}: {}", self.step, self.message)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not formatted (never, or a crashed format did not complete).
    Fresh,
    /// Usable.
    Up,
    /// Power lost; waiting for a `Crash` step and a recovery.
    Down,
}

/// Runs steps and checks the device against the model.
pub struct Executor {
    cfg: RunConfig,
    data_seed: u64,
    flash: Dev,
    dev: Option<Box<dyn BlockDevice>>,
    model: Option<Box<dyn Spec>>,
    /// The second oracle (`RunConfig::oracle`): `Some` once a format or
    /// recovery succeeded with the oracle configured.
    oracle: Option<ModelOracle>,
    /// The refinement oracle (`RunConfig::refine`).
    refine: Option<RefineOracle>,
    phase: Phase,
    /// A format completed (so `NotFormatted` is a violation from now on).
    formatted: bool,
    next_version: u32,
    touched: Vec<u64>,
    written: Vec<u64>,
    written_set: HashSet<u64>,
    steps: usize,
    stats: Stats,
    buf: Vec<u8>,
    versions: Vec<u32>,
    /// Flash commands the last recovery issued.
    last_recovery_commands: u64,
    /// Power cuts inside recoveries since the device was last up.
    recovery_depth: u32,
    /// The device refused a request with `WornOut` since it was opened:
    /// it is read-only until the next crash or reopen.
    read_only: bool,
    /// The first refused request, until a crash or reopen reports it to
    /// the model as the interrupted one (see [`Refused`]).
    refused: Option<Refused>,
    /// Counters of devices replaced by `Step::NewDevice`: flash commands,
    /// injected program and erase failures.
    replaced: (u64, u64, u64),
    /// The flash's SYNC count when the model oracle last heard of one
    /// ([`Executor::oracle_syncs`]).
    oracle_syncs: u64,
    /// The device's `hold_releases` at the last refinement step (its
    /// counters start again at every open).
    hold_seen: u64,
    /// A sync behind whose ticket is held until the next barrier
    /// (`Target::sync_behind`, every other barrier): the device goes on
    /// while its SYNC runs, as `scftl serve`'s background thread lets it.
    held: Option<ftl::FlushTicket>,
}

impl Executor {
    /// A fresh (erased) device.
    pub fn new(cfg: RunConfig, data_seed: u64) -> Result<Executor, String> {
        let flash = cfg.target.backend.new_dev(cfg.geometry)?;
        flash.with(|b| b.set_media_faults(cfg.media))?;
        // The refinement oracle reads the order of each operation's
        // commands (`release_synced`).
        flash.with(|b| b.log_commands(cfg.refine));
        Ok(Executor {
            data_seed,
            flash,
            dev: None,
            model: None,
            oracle: None,
            refine: None,
            oracle_syncs: 0,
            hold_seen: 0,
            held: None,
            phase: Phase::Fresh,
            formatted: false,
            next_version: 1,
            touched: Vec::new(),
            written: Vec::new(),
            written_set: HashSet::new(),
            steps: 0,
            stats: Stats::default(),
            buf: Vec::new(),
            versions: Vec::new(),
            last_recovery_commands: 0,
            recovery_depth: 0,
            read_only: false,
            refused: None,
            replaced: (0, 0, 0),
            cfg,
        })
    }

    /// Runs a script on a fresh device and returns the executor, ready for
    /// more steps. A device that cannot be built is a violation at step 0.
    pub fn replay(cfg: &RunConfig, data_seed: u64, script: &[Step]) -> Result<Executor, Violation> {
        let mut e = Executor::new(cfg.clone(), data_seed).map_err(|m| Violation {
            step: 0,
            message: m,
        })?;
        for s in script {
            e.step(s)?;
        }
        Ok(e)
    }

    /// Runs a whole script on a fresh device.
    pub fn run(cfg: &RunConfig, data_seed: u64, script: &[Step]) -> Result<Stats, Violation> {
        Executor::replay(cfg, data_seed, script).map(|e| e.stats())
    }

    /// A copy of this executor while its device is down (no FTL object to
    /// copy): the flash with its in-flight set and power state, the model
    /// and the bookkeeping; counters start at zero. `None` while the device
    /// is up.
    pub fn fork(&self) -> Option<Executor> {
        if self.dev.is_some() {
            return None;
        }
        let flash = self.flash.with(|c| c.fork_copy())?;
        Some(Executor {
            cfg: self.cfg.clone(),
            data_seed: self.data_seed,
            flash: flash::SharedFlash::new(flash),
            dev: None,
            model: self.model.as_ref().map(|m| m.boxed_clone()),
            oracle: self.oracle.clone(),
            refine: self.refine.clone(),
            phase: self.phase,
            formatted: self.formatted,
            next_version: self.next_version,
            touched: self.touched.clone(),
            written: self.written.clone(),
            written_set: self.written_set.clone(),
            steps: self.steps,
            stats: Stats::default(),
            buf: Vec::new(),
            versions: Vec::new(),
            last_recovery_commands: self.last_recovery_commands,
            recovery_depth: self.recovery_depth,
            read_only: self.read_only,
            refused: self.refused.clone(),
            replaced: self.replaced,
            oracle_syncs: self.oracle_syncs,
            hold_seen: self.hold_seen,
            held: None,
        })
    }

    /// The contract the run checks.
    pub fn contract(&self) -> ContractKind {
        self.cfg.contract
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.flash_commands = self.flash_commands();
        let (p, e) = self.flash.with(|c| c.injected_failures());
        s.program_failures_injected = self.replaced.1 + p;
        s.erase_failures_injected = self.replaced.2 + e;
        s
    }

    /// Erase commands the current device admitted so far.
    pub fn erases_issued(&self) -> u64 {
        self.flash.with(|c| c.erases_issued())
    }

    /// Counted flash commands issued so far (replaced devices included).
    pub fn flash_commands(&self) -> u64 {
        self.replaced.0 + self.flash.with(|c| c.commands_issued())
    }

    /// The device refused a request with `WornOut` since it was opened.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Flash commands the last recovery issued.
    pub fn last_recovery_commands(&self) -> u64 {
        self.last_recovery_commands
    }

    /// Number of post-crash outcomes of the pages now in flight.
    pub fn outcome_count(&self) -> u64 {
        self.flash.with(|c| c.outcome_count())
    }

    /// The outcome classes of each page now in flight (exhaustive mode).
    pub fn page_classes(&self) -> Vec<Vec<PageClass>> {
        self.flash.with(|c| c.page_classes()).unwrap_or_default()
    }

    /// Commands in flight (since the last completed sync).
    pub fn in_flight_commands(&self) -> usize {
        self.flash.with(|c| c.in_flight_seqs().len())
    }

    /// Per page, the image an in-order cut after `j` in-flight commands
    /// leaves; and the pages the `j`-th in-flight command touched.
    pub fn in_order_cut(&self, j: usize) -> (Vec<PageClass>, Vec<usize>) {
        self.flash
            .with(|c| (c.in_order_cut(j).unwrap_or_default(), c.command_pages(j)))
    }

    /// The device's counters (None while it is down).
    pub fn device_stats(&self) -> Option<ftl::DeviceStats> {
        self.dev.as_ref().map(|d| d.stats())
    }

    /// Logical sectors of the device (0 before the first format).
    pub fn num_sectors(&self) -> u64 {
        self.model.as_ref().map_or(0, |m| m.num_sectors())
    }

    /// The device's epoch budget, if it is up and bounded.
    pub fn epoch_remaining(&self) -> Option<u64> {
        self.dev.as_ref().and_then(|d| d.epoch_remaining())
    }

    /// Versions left before the 32-bit version space runs out.
    pub fn versions_left(&self) -> u32 {
        u32::MAX - self.next_version
    }

    /// A fingerprint of the crash state: every page, the battery-backed
    /// buffer and the model. Costs a walk over the device (tiny only).
    pub fn fingerprint(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.flash.with(|c| {
            let g = *c.geometry();
            let mem = c.inner_mut();
            for i in 0..g.total_pages() {
                match mem.page_digest(g.page_at(i)) {
                    Ok(None) | Err(_) => 0u8.hash(&mut h),
                    Ok(Some(d)) => {
                        1u8.hash(&mut h);
                        d.hash(&mut h);
                    }
                }
            }
            let mut nv = vec![0u8; mem.nvram_size()];
            if mem.nvram_read(0, &mut nv).is_ok() {
                nv.hash(&mut h);
            }
        });
        self.model.as_ref().map(|m| m.digest()).hash(&mut h);
        self.formatted.hash(&mut h);
        h.finish()
    }

    /// Tells the model oracle of a SYNC the FTL issued since it last
    /// heard of one (a sync of its own, before an erase while barriers'
    /// epochs are unsynced, or before an in-page commit): those epochs
    /// are durable, and the code counts none unsynced, so neither may the
    /// model. Called before the oracle hears of a write, a flush or an
    /// interrupted operation (the model syncs the state before it, which
    /// the FTL's SYNC during the operation made durable at least), and
    /// after it hears of a barrier (which it takes as `flB` or its flush
    /// by its count of unsynced epochs before the barrier).
    fn oracle_syncs(&mut self) -> Result<(), Violation> {
        let n = self.flash.with(|c| c.counters().syncs);
        let seen = std::mem::replace(&mut self.oracle_syncs, n);
        if n > seen {
            self.with_oracle(|o| o.synced())?;
        }
        Ok(())
    }

    /// Runs `f` on the model oracle, if the run has one; its error is a
    /// violation at this step.
    fn with_oracle(
        &mut self,
        f: impl FnOnce(&mut ModelOracle) -> Result<(), String>,
    ) -> Result<(), Violation> {
        match self.oracle.as_mut().map(f) {
            Some(Err(m)) => Err(self.violation(m)),
            _ => Ok(()),
        }
    }

    /// The refinement oracle's step for `op`, with the device's view now.
    fn refine_step(&mut self, op: Done<'_>) -> Result<(), Violation> {
        if !self.cfg.refine {
            return Ok(());
        }
        // Drained even before the oracle starts, so an operation's log
        // never carries an earlier one's commands.
        let log = self.flash.with(|b| b.take_commands());
        if self.refine.is_none() {
            return Ok(());
        }
        let v = self.refine_view()?;
        self.stats.refine_steps += 1;
        let released = v.hold_releases > self.hold_seen;
        self.stats.refine_hold_releases += v.hold_releases.saturating_sub(self.hold_seen);
        self.hold_seen = v.hold_releases;
        if let (true, Some(page), Some(log)) = (released, v.release_page, &log) {
            if let Some(checked) = release_synced(log, page) {
                checked.map_err(|m| self.violation(m))?;
                self.stats.refine_release_syncs += 1;
            }
        }
        let Some(r) = self.refine.as_mut() else {
            return Ok(());
        };
        let before = (
            r.chain_commits_checked,
            r.pl.chain_phase_erases,
            r.victims_reused,
        );
        let res = r.step(op, v);
        self.stats.refine_chain_commits += r.chain_commits_checked - before.0;
        self.stats.refine_chain_phase_erases += r.pl.chain_phase_erases - before.1;
        self.stats.refine_victims_reused += r.victims_reused - before.2;
        self.stats.refine_longest_oob_run =
            self.stats.refine_longest_oob_run.max(r.longest_oob_run);
        res.map_err(|m| self.violation(m))?;
        self.refine_slots()
    }

    /// The refinement oracle's slot check ([`RefineOracle::slots`]) on
    /// the checkpoints the device reads from its flash.
    fn refine_slots(&mut self) -> Result<(), Violation> {
        let cv = match self.dev.as_mut().and_then(|d| d.refine_checkpoints()) {
            Some(Ok(cv)) => cv,
            Some(Err(e)) => {
                return Err(self.violation(format!(
                    "refinement oracle: the device could not read its checkpoints: {e}"
                )))
            }
            None => return Ok(()),
        };
        self.stats.refine_slot_checks += 1;
        match self.refine.as_ref().map(|r| r.slots(&cv)) {
            Some(Err(m)) => Err(self.violation(m)),
            _ => Ok(()),
        }
    }

    /// The device's view for the refinement oracle.
    fn refine_view(&mut self) -> Result<ftl::refine::RefineView, Violation> {
        match self.dev.as_ref().and_then(|d| d.refine_view()) {
            Some(v) => Ok(v),
            None => Err(self.violation(
                "refinement oracle: the FTL shows no internal state (SCFTL in a build with debug assertions has it)".into(),
            )),
        }
    }

    /// A format or recovery completed: the refinement oracle starts from
    /// (or checks) the device's view.
    fn refine_up(&mut self, recovered: bool) -> Result<(), Violation> {
        if !self.cfg.refine {
            return Ok(());
        }
        let v = self.refine_view()?;
        self.hold_seen = 0;
        // A recovery's commands are not checked here.
        self.flash.with(|b| b.take_commands());
        let n = self.num_sectors();
        let w = self.dev.as_ref().and_then(|d| d.epoch_remaining());
        let r = self.refine.get_or_insert_with(|| RefineOracle::new(n, w));
        let res = if recovered {
            r.recovered(v)
        } else {
            r.formatted(v)
        };
        if recovered {
            self.stats.refine_recoveries += 1;
        }
        res.map_err(|m| self.violation(m))?;
        self.refine_slots()
    }

    /// `AR.cnt` of the model oracle against the device's epoch budget.
    fn check_counter(&mut self) -> Result<(), Violation> {
        let remaining = self.dev.as_ref().and_then(|d| d.epoch_remaining());
        match self.oracle.as_ref().map(|o| o.check_counter(remaining)) {
            Some(Err(m)) => Err(self.violation(m)),
            _ => Ok(()),
        }
    }

    /// A `Check` step's model-oracle part: the model's RI, and AR against
    /// the device's reads and against a recovered copy of its flash.
    fn oracle_check_state(&mut self) -> Result<(), Violation> {
        let Some(o) = self.oracle.as_mut() else {
            return Ok(());
        };
        let addrs = o.check_addresses();
        let policy = o.next_probe_policy();
        let ss = self.cfg.geometry.sector_size as usize;
        let dev = self.dev.as_mut().expect("up");
        let vol = read_observed(dev.as_mut(), &addrs, ss, self.data_seed)
            .map_err(|m| self.violation(format!("model oracle: reading the device: {m}")))?;
        let stable = crate::model::oracle::probe_stable(
            &self.flash,
            &self.cfg.target,
            self.cfg.mutant,
            policy,
        )
        .map_err(|m| self.violation(format!("model oracle: stable probe: {m}")))?;
        let stable = match stable {
            Some(mut d) => Some(
                read_observed(d.as_mut(), &addrs, ss, self.data_seed).map_err(|m| {
                    self.violation(format!("model oracle: reading the recovered copy: {m}"))
                })?,
            ),
            None => None,
        };
        self.stats.oracle_state_checks += 1;
        let o = self.oracle.as_ref().expect("checked above");
        if o.epochs_unsynced() {
            self.stats.oracle_unsynced_checks += 1;
        }
        o.check_state(&addrs, &vol, stable.as_deref())
            .map_err(|m| self.violation(m))
    }

    fn violation(&self, message: String) -> Violation {
        Violation {
            step: self.steps,
            message,
        }
    }

    /// Runs one step.
    pub fn step(&mut self, s: &Step) -> Result<(), Violation> {
        let r = self.step_inner(s);
        self.steps += 1;
        r
    }

    fn step_inner(&mut self, s: &Step) -> Result<(), Violation> {
        match *s {
            Step::Format => self.format(),
            Step::Write { lba, count } => self.write(lba, count, false),
            Step::Trim { lba, count } => self.write(lba, count, true),
            Step::Flush => self.flush(false),
            Step::Barrier => self.flush(true),
            Step::Read { lba, count } => self.read(lba, count),
            Step::Check => self.check(),
            Step::Arm { commands } => {
                self.flash.with(|c| c.set_crash_at(commands));
                Ok(())
            }
            Step::ArmAfterErase { erases } => {
                self.flash.with(|c| c.set_crash_after_erase(erases));
                self.stats.aimed_cycles += 1;
                Ok(())
            }
            Step::Crash { ref how, seed } => self.crash(how, seed),
            Step::FailProgram { after } => {
                self.flash.with(|c| c.fail_nth_program(after));
                Ok(())
            }
            Step::FailErase { after } => {
                self.flash.with(|c| c.fail_nth_erase(after));
                Ok(())
            }
            Step::NewDevice => self.new_device(),
            Step::Recover {
                sample_seed,
                invariants,
                full,
            } => self.recover(sample_seed, invariants, full),
        }
    }

    fn powered_off(&self) -> bool {
        self.flash.with(|c| c.is_powered_off())
    }

    fn go_down(&mut self) {
        self.dev = None;
        self.held = None;
        self.phase = Phase::Down;
        self.read_only = false;
    }

    /// Tells the model (and the oracle) which request power interrupted:
    /// the one refused with `WornOut`, if one is pending (it may have
    /// partly happened, and every request after it changed nothing), else
    /// `op`. Ends the read-only state.
    fn tell_interrupted(&mut self, op: Interrupted<'_>) -> Result<(), Violation> {
        let refused = self.refused.take();
        self.read_only = false;
        let op = match &refused {
            Some(r) => r.as_interrupted(),
            None => op,
        };
        if let Some(m) = self.model.as_mut() {
            m.interrupted(op);
        }
        if let Some(r) = self.refine.as_mut() {
            r.interrupted(op);
        }
        self.oracle_syncs()?;
        match self.oracle.as_mut().map(|o| o.interrupted(op)) {
            Some(Err(m)) => Err(self.violation(m)),
            _ => Ok(()),
        }
    }

    /// A refusal with `WornOut` of `what`: the first since the device was
    /// opened turns it read-only and is remembered as the request that may
    /// have partly happened; a later one must change nothing (the caller
    /// checks the sectors).
    fn refused(&mut self, r: Refused) -> bool {
        self.stats.worn_out_refusals += 1;
        if self.read_only {
            return false;
        }
        self.read_only = true;
        self.stats.read_only_devices += 1;
        self.refused = Some(r);
        if let Some(o) = self.refine.as_mut() {
            o.worn_out();
        }
        true
    }

    /// `Step::NewDevice`: a new, erased flash device in place of the old
    /// one; everything known about the old device is dropped.
    fn new_device(&mut self) -> Result<(), Violation> {
        let (c, (p, e)) = self
            .flash
            .with(|b| (b.commands_issued(), b.injected_failures()));
        let flash = self
            .cfg
            .target
            .backend
            .new_dev(self.cfg.geometry)
            .and_then(|f| f.with(|b| b.set_media_faults(self.cfg.media)).map(|()| f))
            .map_err(|m| self.violation(format!("a new device: {m}")))?;
        flash.with(|b| b.log_commands(self.cfg.refine));
        self.replaced.0 += c;
        self.replaced.1 += p;
        self.replaced.2 += e;
        self.flash = flash;
        self.dev = None;
        self.held = None;
        self.model = None;
        self.oracle = None;
        self.refine = None;
        self.phase = Phase::Fresh;
        self.formatted = false;
        self.read_only = false;
        self.refused = None;
        self.touched.clear();
        self.written.clear();
        self.written_set.clear();
        self.recovery_depth = 0;
        self.stats.devices_replaced += 1;
        Ok(())
    }

    fn format(&mut self) -> Result<(), Violation> {
        self.dev = None;
        self.held = None;
        if self.powered_off() {
            return Ok(());
        }
        self.flash.with(|c| c.disarm_failures());
        self.read_only = false;
        self.refused = None;
        if self.phase == Phase::Up {
            if let Some(m) = self.model.as_mut() {
                m.interrupted(Interrupted::Nothing);
            }
        }
        match self
            .cfg
            .target
            .format_dev(self.flash.clone(), self.cfg.mutant)
        {
            Ok(d) => {
                let n = d.num_sectors();
                self.model = Some(self.cfg.contract.new_spec(n));
                self.oracle = self.cfg.oracle.clone().map(|c| {
                    let mut o = ModelOracle::new(c, n, d.epoch_remaining());
                    o.formatted();
                    o
                });
                self.formatted = true;
                self.stats.formats += 1;
                self.phase = Phase::Up;
                self.dev = Some(d);
                self.touched.clear();
                self.written.clear();
                self.written_set.clear();
                self.refine = None;
                self.refine_up(false)
            }
            Err(e) if e.is_power_loss() => {
                self.stats.crashes_during_format += 1;
                self.formatted = false;
                if let Some(m) = self.model.as_mut() {
                    m.reset();
                }
                if let Some(o) = self.oracle.as_mut() {
                    o.format_cut();
                }
                if let Some(r) = self.refine.as_mut() {
                    r.format_cut();
                }
                self.touched.clear();
                self.written.clear();
                self.written_set.clear();
                self.go_down();
                Ok(())
            }
            Err(e) => Err(self.violation(format!("format failed: {e}"))),
        }
    }

    fn write(&mut self, lba: u64, count: u32, trim: bool) -> Result<(), Violation> {
        if self.phase != Phase::Up || count == 0 {
            return Ok(());
        }
        let ss = self.cfg.geometry.sector_size as usize;
        self.versions.clear();
        if !trim {
            if self.next_version.checked_add(count).is_none() {
                return Err(self.violation("the run used up the 32-bit version space".into()));
            }
            self.buf.resize(count as usize * ss, 0);
            for i in 0..count {
                let v = self.next_version;
                self.next_version += 1;
                self.versions.push(v);
                let off = i as usize * ss;
                fill(
                    &mut self.buf[off..off + ss],
                    lba + u64::from(i),
                    v,
                    self.data_seed,
                );
            }
        } else {
            self.versions.resize(count as usize, 0);
        }
        self.stats.operations += 1;
        let dev = self.dev.as_mut().expect("up");
        let before = dev.epoch_remaining();
        let r = if trim {
            dev.trim(Lba(lba), u64::from(count))
        } else {
            dev.write(Lba(lba), &self.buf[..count as usize * ss])
        };
        let what = if trim { "trim" } else { "write" };
        match r {
            Ok(()) if self.read_only => Err(self.violation(format!(
                "{what} of sectors {lba}..{} was accepted after the device refused a request with WornOut (a worn-out device is read-only until it is opened again)",
                lba + u64::from(count)
            ))),
            Ok(()) if before.is_some_and(|r| r < u64::from(count)) => Err(self.violation(format!(
                "{what} of {count} sectors at {lba} was accepted with only {} left in the epoch (Fig. 4: a request past the bound is refused and changes nothing)",
                before.unwrap_or(0)
            ))),
            Ok(()) => {
                if trim {
                    self.stats.trims += 1;
                } else {
                    self.stats.writes += 1;
                    self.stats.sectors_written += u64::from(count);
                }
                let model = self.model.as_mut().expect("formatted");
                model.write(lba, &self.versions);
                self.note_touched(lba, count, !trim);
                let versions = std::mem::take(&mut self.versions);
                self.oracle_syncs()?;
                let r = self.with_oracle(|o| o.write(lba, &versions));
                if let Some(o) = self.oracle.as_mut() {
                    self.stats.oracle_reclaimed_erases += o.take_reclaimed_erases();
                }
                let done = if trim {
                    Done::Trim {
                        lba,
                        count: u64::from(count),
                    }
                } else {
                    Done::Write {
                        lba,
                        versions: &versions,
                    }
                };
                let r = r.and_then(|()| self.refine_step(done));
                self.versions = versions;
                r?;
                self.check_counter()
            }
            Err(e) if e.is_power_loss() => {
                self.note_touched(lba, count, !trim);
                self.go_down();
                let versions = std::mem::take(&mut self.versions);
                let r = self.tell_interrupted(Interrupted::Write {
                    lba,
                    versions: &versions,
                });
                self.versions = versions;
                r
            }
            Err(FtlError::WornOut(_)) => {
                let first = self.refused(Refused::Write {
                    lba,
                    versions: self.versions.clone(),
                });
                self.note_touched(lba, count, !trim);
                if first {
                    return Ok(());
                }
                match self.read_check(lba, count) {
                    Ok(()) => Ok(()),
                    Err(Some(m)) => Err(self.violation(format!(
                        "a {what} of sectors {lba}..{} refused with WornOut by a read-only device changed them: {m}",
                        lba + u64::from(count)
                    ))),
                    Err(None) => Err(self.violation("a read hit a power cut".into())),
                }
            }
            Err(FtlError::EpochFull { .. }) if before.is_none_or(|r| r < u64::from(count)) => {
                // Fig. 4 (not InBounds): a request past the bound has no
                // effect, neither on the budget nor on the sectors.
                self.stats.epoch_full += 1;
                let after = self.dev.as_ref().expect("up").epoch_remaining();
                if after != before {
                    return Err(self.violation(format!(
                        "a refused {what} of {count} sectors changed the epoch budget from {before:?} to {after:?}"
                    )));
                }
                self.refine_step(Done::Refused)?;
                match self.read_check(lba, count) {
                    Ok(()) => self.check_counter(),
                    Err(Some(m)) => Err(self.violation(format!(
                        "a refused {what} of sectors {lba}..{} changed them: {m}",
                        lba + u64::from(count)
                    ))),
                    Err(None) => Err(self.violation("a read hit a power cut".into())),
                }
            }
            Err(e) => Err(self.violation(format!(
                "{what} of sectors {lba}..{} failed (epoch_remaining before: {before:?}): {e}",
                lba + u64::from(count)
            ))),
        }
    }

    fn note_touched(&mut self, lba: u64, count: u32, written: bool) {
        for l in lba..lba + u64::from(count) {
            self.touched.push(l);
            if written && self.written_set.insert(l) {
                self.written.push(l);
            }
        }
    }

    /// A durable flush, or (`barrier`) an epoch barrier.
    fn flush(&mut self, barrier: bool) -> Result<(), Violation> {
        if self.phase != Phase::Up {
            return Ok(());
        }
        self.stats.operations += 1;
        let (programs, syncs) = self
            .flash
            .with(|c| (c.counters().programs, c.counters().syncs));
        let dev = self.dev.as_mut().expect("up");
        let r = if barrier {
            dev.epoch_barrier()
        } else {
            dev.flush()
        };
        match r {
            Ok(()) => {
                let model = self.model.as_mut().expect("formatted");
                if barrier {
                    self.stats.barriers += 1;
                    model.barrier();
                    self.refine_step(Done::Barrier)?;
                    // The model decides flB or its flush by its count of
                    // unsynced epochs before the barrier, or takes its
                    // flush where the device's barrier committed durably
                    // (it synced and left no epoch unsynced: SCFTL's
                    // barrier that would leave the region short); a SYNC
                    // the FTL issued inside it (before an erase, or its
                    // own) is applied after.
                    let (programmed, synced) = self
                        .flash
                        .with(|c| (c.counters().programs > programs, c.counters().syncs > syncs));
                    let durable = programmed
                        && synced
                        && self.dev.as_ref().expect("up").stats().unsynced_epochs == 0;
                    self.with_oracle(|o| o.barrier(programmed, durable))?;
                    self.oracle_syncs()?;
                    self.check_counter()?;
                    if self.cfg.target.sync_behind {
                        if self.held.is_some() {
                            // the ticket taken at the barrier before: it
                            // proves the epochs ended before it, not this one
                            self.finish_held()?;
                        } else if self.stats.barriers % 2 == 1 {
                            self.hold_sync_behind()?;
                        } else {
                            self.sync_behind()?;
                        }
                    }
                    Ok(())
                } else {
                    self.stats.flushes += 1;
                    model.flush();
                    let mut in_slot = false;
                    self.oracle_syncs()?;
                    self.with_oracle(|o| o.flush().map(|r| in_slot = r))?;
                    self.stats.oracle_record_commits += u64::from(in_slot);
                    self.refine_step(Done::Flush)?;
                    self.check_counter()
                }
            }
            Err(e) if e.is_power_loss() => {
                self.go_down();
                self.tell_interrupted(if barrier {
                    Interrupted::Barrier
                } else {
                    Interrupted::Flush
                })
            }
            Err(FtlError::WornOut(_)) => {
                self.refused(if barrier {
                    Refused::Barrier
                } else {
                    Refused::Flush
                });
                Ok(())
            }
            Err(e) => Err(self.violation(format!(
                "{} failed: {e}",
                if barrier { "epoch barrier" } else { "flush" }
            ))),
        }
    }

    /// A sync behind whose ticket is taken now and finished at the next
    /// barrier ([`Executor::finish_held`]): the writes, reads, flushes and
    /// the barrier in between run while its SYNC is outstanding, as they
    /// do on `scftl serve` while its background thread waits.
    fn hold_sync_behind(&mut self) -> Result<(), Violation> {
        let dev = self.dev.as_mut().expect("up");
        let erased_before = dev.stats().erased_ahead;
        match dev.begin_sync_behind() {
            Ok(Some(ticket)) => {
                self.held = Some(ticket);
                let erased = self.dev.as_ref().expect("up").stats().erased_ahead;
                self.stats.erased_ahead += erased - erased_before;
                // Nothing is durable yet; an erase here (the canary
                // `erase-ahead-before-sync`) is checked like any erase.
                self.refine_step(Done::SyncBehind)
            }
            Ok(None) => Ok(()),
            Err(e) => self.sync_behind_failed(e, "a sync behind"),
        }
    }

    /// Finishes the held sync behind: its ticket proves the epochs ended
    /// before it was taken (SCFTL's `note_ticket_sync`), so the barrier
    /// since stays unsynced. The model oracle takes it as PUSB's partial
    /// SYNC of the oldest epochs (`unsynced::sync_oldest`), as many as the
    /// device counts proven.
    fn finish_held(&mut self) -> Result<(), Violation> {
        let Some(mut ticket) = self.held.take() else {
            return Ok(());
        };
        let dev = self.dev.as_mut().expect("up");
        let before = dev.stats();
        let waited = ticket.wait();
        match dev.finish_flush(ticket, waited) {
            Ok(()) => {
                let after = self.dev.as_ref().expect("up").stats();
                self.stats.syncs_behind += 1;
                self.stats.erased_ahead += after.erased_ahead - before.erased_ahead;
                if after.unsynced_epochs > 0 {
                    self.stats.partial_syncs_behind += 1;
                }
                let proven = before.unsynced_epochs.saturating_sub(after.unsynced_epochs);
                // the ticket's own SYNC proves `proven` epochs; any other
                // SYNC the device issued meanwhile proves them all
                let n = self.flash.with(|c| c.counters().syncs);
                let seen = std::mem::replace(&mut self.oracle_syncs, n);
                if n > seen + 1 {
                    self.with_oracle(|o| o.synced())?;
                } else {
                    self.with_oracle(|o| o.synced_oldest(proven as usize))?;
                }
                self.refine_step(Done::SyncBehind)
            }
            Err(e) => self.sync_behind_failed(e, "a held sync behind"),
        }
    }

    /// What `scftl serve`'s background thread does after a barrier
    /// (`ftl::SharedDevice::sync_behind`), in one piece: the ticket for the
    /// ended epochs, its sync, and its record. It promises nothing, so the
    /// model is unchanged; a power cut during it is a cut after the
    /// barrier. SCFTL may erase superblocks ahead once it returns
    /// (`Scftl::erase_ahead`); the refinement oracle checks those erases.
    fn sync_behind(&mut self) -> Result<(), Violation> {
        let dev = self.dev.as_mut().expect("up");
        let erased_before = dev.stats().erased_ahead;
        let r = match dev.begin_sync_behind() {
            Ok(Some(mut ticket)) => {
                let waited = ticket.wait();
                dev.finish_flush(ticket, waited).map(|()| true)
            }
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        };
        match r {
            Ok(ran) => {
                if ran {
                    self.stats.syncs_behind += 1;
                }
                self.oracle_syncs()?;
                let erased = self.dev.as_ref().expect("up").stats().erased_ahead;
                self.stats.erased_ahead += erased - erased_before;
                // Its erases ahead, if any, are checked like any erase.
                self.refine_step(Done::SyncBehind)
            }
            Err(e) => self.sync_behind_failed(e, "sync behind"),
        }
    }

    /// A sync behind (held or in one piece) that failed: a power cut is a
    /// cut after the barrier (it promised nothing), a worn-out device
    /// refuses it without effect, anything else is a violation.
    fn sync_behind_failed(&mut self, e: FtlError, what: &str) -> Result<(), Violation> {
        match e {
            e if e.is_power_loss() => {
                self.go_down();
                self.tell_interrupted(Interrupted::Nothing)
            }
            FtlError::WornOut(_) => Ok(()),
            e => Err(self.violation(format!("{what} an epoch barrier failed: {e}"))),
        }
    }

    fn read(&mut self, lba: u64, count: u32) -> Result<(), Violation> {
        if self.phase != Phase::Up || count == 0 {
            return Ok(());
        }
        self.stats.operations += 1;
        self.stats.reads += 1;
        match self.read_check(lba, count) {
            Ok(()) => Ok(()),
            Err(Some(m)) => Err(self.violation(format!("read during normal operation: {m}"))),
            Err(None) => {
                self.go_down();
                self.tell_interrupted(Interrupted::Nothing)
            }
        }
    }

    fn check(&mut self) -> Result<(), Violation> {
        if self.phase != Phase::Up {
            return Ok(());
        }
        self.stats.invariant_checks += 1;
        match self.dev.as_mut().expect("up").check_invariants() {
            Ok(()) => self.oracle_check_state(),
            Err(m) => Err(self.violation(format!("invariant broken between operations: {m}"))),
        }
    }

    /// Reads `count` sectors and checks each against the model. `Err(None)`:
    /// the read hit a power cut.
    fn read_check(&mut self, lba: u64, count: u32) -> Result<(), Option<String>> {
        let ss = self.cfg.geometry.sector_size as usize;
        self.buf.resize(count as usize * ss, 0);
        let dev = self.dev.as_mut().expect("up");
        match dev.read(Lba(lba), &mut self.buf[..count as usize * ss]) {
            Ok(()) => {}
            Err(e) if e.is_power_loss() => return Err(None),
            Err(e) => {
                return Err(Some(format!(
                    "read of sectors {lba}..{} failed: {e}",
                    lba + u64::from(count)
                )))
            }
        }
        let model = self.model.as_mut().expect("formatted");
        for i in 0..count as usize {
            let l = lba + i as u64;
            let got = decode(l, &self.buf[i * ss..(i + 1) * ss], self.data_seed);
            self.stats.sectors_compared += 1;
            if self.refused.as_ref().is_some_and(|r| r.wrote(l, got)) {
                // The refused write may have partly happened.
                continue;
            }
            model.check(l, got).map_err(Some)?;
            if let Some(o) = self.oracle.as_mut() {
                o.check(l, got).map_err(Some)?;
            }
        }
        Ok(())
    }

    fn crash(&mut self, how: &CrashHow, seed: u64) -> Result<(), Violation> {
        if self.phase == Phase::Up {
            // A power cut between operations (an armed cut did not fire).
            self.tell_interrupted(Interrupted::Nothing)?;
        }
        self.dev = None;
        self.held = None;
        let mut rng = Pcg64::seed_from_u64(seed);
        let r = self.flash.with(|c| {
            c.disarm();
            c.disarm_failures();
            match how {
                CrashHow::Policy(p) => c.crash(*p, &mut rng),
                CrashHow::Outcome(i) => c.apply_outcome(*i, &mut rng),
                CrashHow::Pages(v) => c.crash_with_classes(v, &mut rng),
            }
        });
        r.map_err(|e| self.violation(format!("crash layer failed: {e}")))?;
        self.stats.crashes += 1;
        if self.phase == Phase::Up {
            self.phase = Phase::Down;
        }
        Ok(())
    }

    fn recover(&mut self, sample_seed: u64, invariants: bool, full: bool) -> Result<(), Violation> {
        if self.phase == Phase::Up {
            // Reopen without a power cut: the FTL's RAM is lost all the same.
            self.dev = None;
            self.held = None;
            self.tell_interrupted(Interrupted::Nothing)?;
            self.phase = Phase::Down;
        }
        if self.powered_off() {
            // The cut has not been turned into a post-crash device yet.
            return Ok(());
        }
        // Failures are injected in normal operation only.
        self.flash.with(|c| c.disarm_failures());
        let before = self.flash_commands();
        let r = self
            .cfg
            .target
            .open_dev(self.flash.clone(), self.cfg.mutant);
        self.last_recovery_commands = self.flash_commands() - before;
        // A cut armed for the command right after the recovery's last one
        // falls between recovery and the first write that would follow it:
        // power is lost with the device open, before it was used. This is
        // how a recovery that writes nothing is cut too.
        let cut_at_end = r.is_ok() && self.flash.with(|c| c.crash_pending() == Some(0));
        if cut_at_end {
            drop(r);
            self.flash.with(|c| c.cut_power());
            return self.recovery_cut();
        }
        match r {
            Ok(d) => {
                self.flash.with(|c| c.disarm());
                self.recovery_depth = 0;
                if !self.formatted {
                    // A crashed format had completed: an empty device.
                    self.model = Some(self.cfg.contract.new_spec(d.num_sectors()));
                    self.formatted = true;
                    self.oracle = self.cfg.oracle.clone().map(|c| {
                        let mut o = ModelOracle::new(c, d.num_sectors(), d.epoch_remaining());
                        o.formatted();
                        o
                    });
                }
                self.dev = Some(d);
                self.phase = Phase::Up;
                self.model.as_mut().expect("formatted").recovered();
                if self.oracle.is_some() {
                    self.stats.oracle_recoveries += 1;
                }
                self.with_oracle(|o| o.recovered())?;
                self.refine_up(true)?;
                self.verify(sample_seed, full)?;
                self.with_oracle(|o| o.end_verify())?;
                if let Some(o) = self.oracle.as_mut() {
                    self.stats.oracle_clean_recoveries += o.take_clean_recoveries();
                }
                self.check_counter()?;
                if invariants {
                    self.stats.invariant_checks += 1;
                    if let Err(m) = self.dev.as_mut().expect("up").check_invariants() {
                        return Err(self.violation(format!("invariant broken after recovery: {m}")));
                    }
                }
                self.stats.crash_states_checked += 1;
                Ok(())
            }
            Err(e) if e.is_power_loss() => self.recovery_cut(),
            Err(FtlError::NotFormatted | FtlError::Corrupt(_)) if !self.formatted => {
                // A crashed format did not complete: the device is blank.
                self.flash.with(|c| c.disarm());
                self.phase = Phase::Fresh;
                self.stats.crash_states_checked += 1;
                Ok(())
            }
            Err(e) => Err(self.violation(format!("recovery failed: {e}"))),
        }
    }

    /// Power was cut inside (or at the end of) a recovery.
    fn recovery_cut(&mut self) -> Result<(), Violation> {
        self.stats.crashes_during_recovery += 1;
        self.recovery_depth += 1;
        if self.recovery_depth >= 2 {
            self.stats.nested_crashes += 1;
        }
        if let Some(m) = self.model.as_mut() {
            m.interrupted(Interrupted::Recovery);
        }
        self.phase = Phase::Down;
        self.with_oracle(|o| o.interrupted(Interrupted::Recovery))
    }

    fn verify(&mut self, sample_seed: u64, full: bool) -> Result<(), Violation> {
        let n = self.num_sectors();
        let mut list = std::mem::take(&mut self.touched);
        self.model
            .as_ref()
            .expect("formatted")
            .must_check(&mut list);
        if let Some(o) = self.oracle.as_ref() {
            o.must_check(&mut list);
        }
        if full && n <= FULL_VERIFY_MAX_SECTORS {
            list.clear();
            list.extend(0..n);
        } else {
            // On large devices a "full" verification is a large sample, so
            // its cost stays bounded.
            let sample = if full {
                FULL_VERIFY_MAX_SECTORS as usize / 16
            } else {
                self.cfg.sample
            };
            let mut rng = Pcg64::seed_from_u64(sample_seed);
            if !self.written.is_empty() {
                for _ in 0..sample {
                    list.push(self.written[rng.gen_range(0..self.written.len())]);
                }
            }
            for _ in 0..sample / 4 + 1 {
                list.push(rng.gen_range(0..n));
            }
        }
        list.sort_unstable();
        list.dedup();
        let mut i = 0;
        while i < list.len() {
            let start = list[i];
            let mut j = i + 1;
            while j < list.len() && list[j] == list[j - 1] + 1 && j - i < 64 {
                j += 1;
            }
            let count = (j - i) as u32;
            match self.read_check(start, count) {
                Ok(()) => {}
                Err(Some(m)) => {
                    return Err(self.violation(format!("after recovery: {m}")));
                }
                Err(None) => {
                    return Err(self.violation("a read after recovery hit a power cut".into()));
                }
            }
            i = j;
        }
        self.touched = list;
        self.touched.clear();
        let r = self.model.as_mut().expect("formatted").end_verify();
        r.map_err(|m| self.violation(format!("after recovery: {m}")))
    }
}

/// Reads the sectors `addrs` (sorted) of `dev` in runs and decodes each.
fn read_observed(
    dev: &mut dyn BlockDevice,
    addrs: &[u64],
    ss: usize,
    data_seed: u64,
) -> Result<Vec<Observed>, String> {
    let mut out = Vec::with_capacity(addrs.len());
    let mut buf = Vec::new();
    let mut i = 0;
    while i < addrs.len() {
        let mut j = i + 1;
        while j < addrs.len() && addrs[j] == addrs[j - 1] + 1 && j - i < 64 {
            j += 1;
        }
        buf.resize((j - i) * ss, 0);
        dev.read(Lba(addrs[i]), &mut buf)
            .map_err(|e| format!("read of sectors {}..{}: {e}", addrs[i], addrs[j - 1] + 1))?;
        for (k, &a) in addrs[i..j].iter().enumerate() {
            out.push(decode(a, &buf[k * ss..(k + 1) * ss], data_seed));
        }
        i = j;
    }
    Ok(out)
}

/// The contract's model kind, for messages.
pub fn describe(cfg: &RunConfig) -> String {
    let mut media = String::new();
    if let Some(p) = cfg.media.paired_pages {
        media += &format!(", MLC paired pages (stride {})", p.stride);
    }
    if cfg.media.unstable_erase {
        media += ", unstable erases";
    }
    if cfg.media.split_tears {
        media += ", split tears";
    }
    if cfg.media.silent_bad_blocks {
        media += ", silent bad blocks";
    }
    format!(
        "ftl {} vs {} contract on {} ({}), mutant {}{media}",
        cfg.target.name,
        cfg.contract,
        cfg.geometry_name,
        cfg.geometry,
        cfg.mutant.name()
    )
}

/// The erase hold's way out (`Scftl::release_hold`) in the flash's own
/// command order: after the last program of its consolidation page `page`
/// in `log` (one operation's commands), a sync through that program comes
/// before any erase — the proofs' two steps, `release` (the page synced, a
/// SYNC of the chain phase) and then `release-erase`
/// (proofs/SCFTL/Impl/OneModelHoldBlocks.agda). `None` when the log has no
/// program of `page`.
fn release_synced(
    log: &[flash::LoggedCommand],
    page: flash::PageAddr,
) -> Option<Result<(), String>> {
    use flash::LoggedCommand as C;
    let (i, seq) = log.iter().enumerate().rev().find_map(|(i, c)| match *c {
        C::Program { seq, page: p } if p == page => Some((i, seq)),
        _ => None,
    })?;
    for c in &log[i + 1..] {
        match *c {
            C::Sync { through, .. } if through >= seq => return Some(Ok(())),
            C::Erase { block, .. } => {
                return Some(Err(format!(
                    "refinement: the erase hold's way out programmed its consolidation page (block {}, page {}) and erased block {} before a sync made that page durable (proofs: the page synced, `release`, then the erase, `release-erase`)",
                    page.block.0, page.page, block.0
                )))
            }
            _ => {}
        }
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::release_synced;
    use flash::{BlockId, LoggedCommand as C, PageAddr};

    #[test]
    fn a_release_needs_a_sync_through_its_page_before_the_next_erase() {
        let page = PageAddr::new(15, 2);
        let other = PageAddr::new(3, 0);
        let prog = C::Program { seq: 10, page };
        let erase = C::Erase {
            seq: 12,
            block: BlockId(7),
        };
        // Synced, then erased: the two steps.
        let ok = [
            prog,
            C::Sync {
                seq: 11,
                through: 11,
            },
            erase,
        ];
        assert_eq!(release_synced(&ok, page), Some(Ok(())));
        // Erased first (another page's program between does not help).
        let bad = [
            prog,
            C::Program {
                seq: 11,
                page: other,
            },
            erase,
        ];
        assert!(release_synced(&bad, page).unwrap().is_err());
        // A sync whose ticket was taken before the page's program does not
        // make the page durable.
        let early = [
            prog,
            C::Sync {
                seq: 11,
                through: 9,
            },
            erase,
        ];
        assert!(release_synced(&early, page).unwrap().is_err());
        // The last program of the page counts; none: nothing to check.
        let again = [
            prog,
            erase,
            C::Program { seq: 13, page },
            C::Sync {
                seq: 14,
                through: 14,
            },
        ];
        assert_eq!(release_synced(&again, page), Some(Ok(())));
        assert_eq!(release_synced(&[erase], page), None);
    }
}
