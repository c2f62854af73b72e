//! The arguments of `scftl crashtest`, and what its two front ends (FTLs in
//! `mod.rs`, the file system in `fscheck.rs`) share: the progress bar, the
//! exit code, the CPU clock.

use std::io::IsTerminal;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget};

/// Arguments of `scftl crashtest`.
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct CrashtestArgs {
    /// FTL under test: scftl, async or sync (also the checker's own `toy`
    /// FTL and its canaries `toy-overwrite-live`, `toy-trust-unsynced-commit`,
    /// `toy-split-requests`).
    #[arg(long, default_value = "scftl")]
    pub ftl: String,
    /// Contract to check against: snapshot, async, sync or prefix (OPTR's:
    /// a prefix of the requests, each whole; default: the FTL's own).
    #[arg(long)]
    pub contract: Option<String>,
    /// Flash geometry preset (tiny, small, medium, paper, ...; also
    /// tiny-oob40, tiny with 40-byte OOB areas that straddle the image
    /// backend's 512-byte sectors; with --fs also small512, a 2 MiB device
    /// with 512-byte sectors).
    #[arg(long, default_value = "small")]
    pub geometry: String,
    /// Time budget in seconds (random mode; default 10 when --ops is not
    /// given).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Operation budget (random mode), or the workload length (exhaustive
    /// mode, default 6; with --fs: system calls, default 200).
    #[arg(long)]
    pub ops: Option<u64>,
    /// The seed that drives everything (default: from the clock, printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Enumerate every crash point, and every in-flight outcome class,
    /// inside short windows of seeded workloads placed at the first
    /// occurrence of each event kind (format, commit, trim, GC, ...), with
    /// crashes nested in recoveries to --depth, also at the first data-page
    /// commit after one barrier of a run that ends epochs by barriers;
    /// plus lighter windows (in-order cuts, the next command torn, no
    /// nesting) at later GCs, at that run's first barrier and first flush
    /// after barriers, and at the first four media failures (and the
    /// operations after each) of a run with failures aimed at flush and
    /// write programs. With --split-tears, each program's result is also
    /// offered with one data window or OOB word damaged. --wear-leveling
    /// and --hot-cold apply as in random mode. The summary lists the windows,
    /// the bounds, what each run's windows cover and the states checked;
    /// operations outside the windows replay crash-free. Use with
    /// --geometry tiny.
    #[arg(long)]
    pub exhaustive: bool,
    /// Build the FTL (with --fs: the file system) with a seeded bug, by
    /// name, to check that the checker catches it; an unknown name prints
    /// the list.
    #[arg(long)]
    pub mutant: Option<String>,
    /// Random mode: probability that an operation is followed by the FTL's
    /// `check_invariants` (scaled down on devices over 65536 sectors).
    /// Exhaustive mode checks after every operation.
    #[arg(long, default_value_t = 0.1)]
    pub check_rate: f64,
    /// Crash model: MLC paired pages. An interrupted program of an upper
    /// page also destroys its (long synced) lower page; pages pair in
    /// groups of 2*STRIDE (1: (0,1), (2,3), ...; 2: (0,2), (1,3), ...).
    #[arg(long, value_name = "STRIDE")]
    pub paired_pages: Option<u32>,
    /// Crash model: an interrupted erase that left a programmed page
    /// reading as erased leaves it unstable (its next program does not
    /// hold until the block is erased again).
    #[arg(long)]
    pub unstable_erase: bool,
    /// Crash model: split tears. Half of the torn pages keep one area
    /// whole (data or OOB) and have the other damaged (a random byte range
    /// replaced, or one to four bytes changed), as an interrupted program
    /// can leave them. In exhaustive mode each program's result is also
    /// offered with one window of its data (see --split-unit) or one 8-byte
    /// word of its OOB damaged and the rest whole.
    #[arg(long)]
    pub split_tears: bool,
    /// Exhaustive split tears: bytes of each data window damaged (default
    /// 512, every 512-byte boundary of a page; 64 tears inside structures
    /// shorter than a sector, such as a delta page's header and pairs).
    #[arg(long, value_name = "BYTES")]
    pub split_unit: Option<u32>,
    /// Crash model: silent bad blocks. A bad block accepts erases and
    /// programs without an error, and what is programmed into it reads
    /// back with a few bytes changed (use with --inject-failures).
    #[arg(long)]
    pub silent_bad_blocks: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Exhaustive mode: cap the outcomes checked per crash point; a point
    /// with more is sampled (seeded) and the summary says so. Default: no
    /// cap, nothing sampled.
    #[arg(long)]
    pub max_outcomes: Option<u64>,
    /// Exhaustive mode: windows of the failure run, one at each of its
    /// first N media failures (default 4); with --spare-superblocks a
    /// longer run reaches a device whose bad superblocks leave the erasable
    /// queue short.
    #[arg(long, value_name = "N")]
    pub failure_windows: Option<usize>,
    /// Exhaustive mode: crash nesting depth (1: crashes in the workload
    /// only; 2: also a crash at every command of each recovery and of a
    /// short continuation after it; 3: once more).
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// Exhaustive mode: at crash points with too many page-class
    /// combinations, check every outcome within this many pages of an
    /// in-order cut (0, 1 or 2).
    #[arg(long, default_value_t = 1)]
    pub deviations: u32,
    /// Seconds to spend shrinking a failing script.
    #[arg(long, default_value_t = 20.0)]
    pub shrink_seconds: f64,
    /// Check the file system instead: its commit mode (log, xlog or group)
    /// over --ftl, a power cut at every flash command of a seeded workload
    /// of system calls (docs/USAGE.md, "Checking crash consistency").
    #[arg(long, value_name = "MODE")]
    pub fs: Option<String>,
    /// With --fs: most cut points to check; a workload with more flash
    /// commands is sampled (seeded). Default 2000.
    #[arg(long)]
    pub cuts: Option<u64>,
    /// With --fs: check only the power cut at this flash command of the
    /// workload (0 = the first after mount), to replay one failure.
    #[arg(long)]
    pub cut_at: Option<u64>,
    /// With --fs and --ftl scftl: the epoch bound W (sector writes per
    /// epoch) of the device; small values make group mode flush often.
    #[arg(long)]
    pub write_bound: Option<u32>,
    /// With --fs: check every crash policy at each cut point (four
    /// replays), not one drawn from the seed.
    #[arg(long)]
    pub all_policies: bool,
    /// With --fs group: do not force flushes inside calls. By default the
    /// checker makes the device's epoch look full at seeded points inside
    /// calls, so the file system flushes between a call's steps.
    #[arg(long)]
    pub no_forced_flushes: bool,
    /// Flash backend under the FTL: `ram` (the NAND power-loss model) or
    /// `image` (a `FileFlash` image whose writes since the last fdatasync
    /// are lost, reordered or torn at 512-byte sectors by a host power cut).
    #[arg(long, default_value = "ram")]
    pub backend: String,
    /// Random runs: issue no epoch barriers (flushes end every epoch).
    /// Runs with epoch barriers rarely build long chains of in-page
    /// commits, which need every earlier epoch durable; this keeps them
    /// coming (the model oracle's lazy chain, for example).
    #[arg(long)]
    pub no_barriers: bool,
    /// Turn wear leveling on in the FTL (after every format and open):
    /// what `scftl serve` runs with — dynamic and static for scftl (static
    /// eagerly, at a spread of 0), dynamic for the others; with --fs, what
    /// `scftl mount` runs with — dynamic only (SCFTL still rotates its
    /// metadata). Off (FIFO allocation) unless given.
    #[arg(long)]
    pub wear_leveling: bool,
    /// --ftl scftl, async, sync: format with two write streams (hot/cold
    /// separation: GC relocations, and SCFTL's wear moves, fill their own
    /// active superblock or segment). SCFTL shrinks the logical size until
    /// the geometry affords them; the baselines keep theirs. The defaults
    /// run one stream.
    #[arg(long)]
    pub hot_cold: bool,
    /// --ftl scftl: after every epoch barrier, run a sync behind it (the
    /// ended epochs made durable without a commit, as the background
    /// thread of scftl serve does), so the checker covers what that sync
    /// records. Every other sync holds its ticket until the next barrier,
    /// which then ends its epoch while the sync runs: the ticket proves
    /// only the epochs ended before it.
    #[arg(long)]
    pub sync_behind: bool,
    /// --ftl scftl: format to spare N bad data superblocks, shrinking the
    /// logical size until the geometry affords them. The `tiny` and
    /// `small` defaults spare none, so a media failure there makes the
    /// device read-only; with spares SCFTL goes on past it (moves the
    /// data or the metadata), which is what `--inject-failures` should
    /// then check.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub spare_superblocks: u64,
    /// A second oracle next to the contract's model: `model` runs the Rust
    /// transcription of the Agda model of SCFTL with its lazy chain of
    /// in-page and OOB commits (PL, over P: proofs/SCFTL/Impl) on the same
    /// operations and checks that every recovered state is one it allows
    /// and that P's RI/AR hold of the device between operations
    /// (--ftl scftl, random mode, RAM backend; epoch barriers as the
    /// P-level model PU takes them; --no-barriers for long lazy chains).
    /// `refine` maps SCFTL's internal state (L2P, stable L2P,
    /// superblock states, valid counts, epoch counter) to P's after every
    /// operation and recovery and steps P in lock step with it, so a
    /// divergence is caught before any read shows it (--ftl scftl; random
    /// or exhaustive mode; with --inject-failures it follows retired
    /// superblocks and sectors placed again after a failed program, and
    /// pauses while a device is read-only).
    #[arg(long, value_name = "KIND")]
    pub oracle: Option<String>,
    /// With --oracle model: a seeded bug in the transcription, by name
    /// (model-flush-forgets-deltas, model-recovery-keeps-volatile,
    /// model-write-skips-counter, model-chain-erase-unguarded,
    /// model-barrier-releases-victims, model-barrier-advances-stable,
    /// model-barrier-releases-older-victims,
    /// model-sync-releases-mapped-victims), to check the oracle catches it.
    #[arg(long, value_name = "NAME")]
    pub model_mutant: Option<String>,
    /// Random mode: inject media failures together with the power cuts.
    /// RATE (default 0.1) is the probability that a cycle of operations
    /// makes one program fail (whatever it programs: data or metadata) or
    /// one erase; a request refused with WornOut is checked like one a
    /// power cut interrupted, and the read-only device must keep serving
    /// the contract's data (docs/USAGE.md, "Media failures").
    #[arg(long, value_name = "RATE", num_args = 0..=1, default_missing_value = "0.1")]
    pub inject_failures: Option<f64>,
    /// Random mode: mix in aimed cycles. RATE (default 0.02) is the
    /// probability that a cycle is built to reach the rare states where an
    /// erase destroys what the device may still need: epochs ended by
    /// barriers alone on a nearly full device, or a clean reopen followed
    /// by operations up to the first erase; either way the power is cut
    /// right after that erase (docs/USAGE.md, "Aimed cycles").
    #[arg(long, value_name = "RATE", num_args = 0..=1, default_missing_value = "0.02")]
    pub aimed: Option<f64>,
    /// Run the concurrent crash test with THREADS threads instead: they
    /// issue reads, writes, trims and flushes against one SCFTL device
    /// behind the NBD server's lock protocol (the shared device), the
    /// power is cut at a seeded command or sync, and a linearizability
    /// search checks every read and the recovered device against the
    /// snapshot contract. --ops: rounds (default 200); --seed fixes the
    /// scripts and cuts (the interleaving is the scheduler's); --mutant:
    /// flush-returns-during-sync, joins-earlier-sync,
    /// sync-behind-promises-changes, held-return-not-counted, or an SCFTL
    /// mutant
    /// (ticket-proves-later-epochs: the write pipeline's). Use with --geometry
    /// tiny.
    #[arg(long, value_name = "THREADS")]
    pub concurrent: Option<usize>,
    /// With --concurrent: a background writer thread issues N writes of 4
    /// sectors in order over the sectors past the checked ones, wrapping
    /// around, with a sync behind every fourth (a sequential client of
    /// scftl serve) and a read-back of each write after the next:
    /// superblocks fill, fall empty and are erased (ahead, after syncs)
    /// while the checked threads run. The epoch barriers its writes end in
    /// join the history.
    #[arg(long, value_name = "N")]
    pub background_writes: Option<usize>,
    /// With --concurrent: save a failing round (its history and recovered
    /// device, JSON) to FILE, to decide it again with --check-history.
    #[arg(long, value_name = "FILE")]
    pub history: Option<std::path::PathBuf>,
    /// Decide a round saved by --concurrent --history FILE again, and
    /// nothing else: exit 0 if some order of its operations explains every
    /// read and the recovered device, 1 if none does.
    #[arg(long, value_name = "FILE")]
    pub check_history: Option<std::path::PathBuf>,
}

/// CPU time (user + system) this process used so far, from /proc/self/stat
/// (Linux; clock ticks assumed to be the usual 100 Hz). On a shared machine
/// crashes per CPU-second is the fairer throughput figure.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the whole line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// A progress bar on stderr when it is a terminal, else a hidden one.
pub fn progress_bar() -> ProgressBar {
    if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    }
}

/// The seed of a run given none: from the clock (the summary prints it).
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// Exit 1 when the campaign found a failure, else 0.
pub fn verdict(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
