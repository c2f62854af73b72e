//! Command-line arguments of `scftl bench` (shared by the CLI and the
//! standalone example `bench`).

use std::path::PathBuf;

use ftl::FtlKind;

/// The timing model used when `--timing` is not given.
pub const DEFAULT_TIMING: &str = "paper";

/// The directory of committed results, `crates/bench/results`.
pub fn results_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results")
}

/// Options every benchmark takes.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Print the report as JSON on stdout instead of the table (the result
    /// rows as an array; `app`: the whole report).
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "PATH", value_parser = output_path)]
    pub json_out: Option<PathBuf>,
    /// Draw a PNG chart to this file (text needs
    /// /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf, Debian package
    /// fonts-dejavu-core; without it the chart is drawn without labels).
    #[arg(long, value_name = "PATH", value_parser = output_path)]
    pub png: Option<PathBuf>,
    /// Seed of the workload's PRNG (PCG64); one seed gives one run.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Small geometry and few writes: finishes in seconds (for CI).
    #[arg(long)]
    pub quick: bool,
    /// Print no progress lines on stderr.
    #[arg(long)]
    pub silent: bool,
    /// Write into crates/bench/results/ even though the tree differs from
    /// its commit (the report then says `-dirty`).
    #[arg(long)]
    pub allow_dirty: bool,
}

/// The FTLs a run can compare.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FtlArg {
    Scftl,
    Async,
    Sync,
    Optr,
}

impl FtlArg {
    pub fn kind(self) -> FtlKind {
        match self {
            FtlArg::Scftl => FtlKind::Scftl,
            FtlArg::Async => FtlKind::Async,
            FtlArg::Sync => FtlKind::Sync,
            FtlArg::Optr => FtlKind::Optr,
        }
    }
}

/// Options of the timing model (defaults: FEMU-like, see `flash::timed`).
#[derive(clap::Args, Debug, Clone)]
pub struct TimingArgs {
    /// Page read latency (array to register), ns.
    #[arg(long, default_value_t = 40_000)]
    pub read_ns: u64,
    /// Page program latency, ns.
    #[arg(long, default_value_t = 200_000)]
    pub program_ns: u64,
    /// Block erase latency, ns.
    #[arg(long, default_value_t = 2_000_000)]
    pub erase_ns: u64,
    /// Channel transfer time of one full page, ns (default: 20 µs per
    /// 16 KiB, scaled to the geometry's page size).
    #[arg(long)]
    pub channel_xfer_ns: Option<u64>,
    /// Device queue depth (commands in flight before the host waits).
    #[arg(long, default_value_t = 64, value_parser = positive_usize)]
    pub queue_depth: usize,
    /// Host time charged per flash command, ns.
    #[arg(long, default_value_t = 0)]
    pub host_op_ns: u64,
    /// Host time charged per user request (write or flush), ns: models the
    /// software path above the FTL. 0 = the device alone.
    #[arg(long, default_value_t = 0)]
    pub host_request_ns: u64,
}

/// `randwr`: the paper's §7.2 random-write benchmark (Fig. 5).
#[derive(clap::Args, Debug, Clone)]
pub struct RandwrArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// FTLs to run, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "scftl,async,sync,optr"
    )]
    pub ftl: Vec<FtlArg>,
    /// Write intervals (writes per flush), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,16,256,2048", value_parser = positive)]
    pub wi: Vec<u64>,
    /// Geometry preset: tiny, small, medium, paper, paper-64g or
    /// paper-256g; `--quick` uses `small`.
    #[arg(long, default_value = "paper", value_parser = preset)]
    pub geometry: String,
    /// Host threads, comma-separated: for each, a measured phase in which
    /// that many closed-loop threads share the device, each flushing after
    /// every WI writes of its own (the paper's 4-thread bars). The phases
    /// run one after the other on the same preconditioned device.
    #[arg(long, value_delimiter = ',', default_value = "1,4", value_parser = positive)]
    pub threads: Vec<u64>,
    /// Measured random writes per (FTL, WI, threads), rounded up to a
    /// multiple of WI x threads.
    #[arg(long)]
    pub writes: Option<u64>,
    /// Random overwrites during preconditioning, as a multiple of the
    /// logical size (after one sequential fill).
    #[arg(long, default_value_t = 2.0, value_parser = non_negative)]
    pub overwrite_factor: f64,
    /// Simulated-time buckets of the throughput-over-time series.
    #[arg(long, default_value_t = 20, value_parser = positive_usize)]
    pub buckets: usize,
    /// Sectors read back and checked after each (FTL, WI) run.
    #[arg(long, default_value_t = 4096)]
    pub verify: u64,
    /// SCFTL's write streams: 1 (the paper's design, like the async
    /// baseline here) or 2 (hot/cold separation: GC relocations in a stream
    /// of their own). K and U are fitted again for the count. Default: what
    /// `scftl format` makes for the geometry (2 where they fit, as on
    /// `paper`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub scftl_streams: Option<u32>,
    /// SCFTL's delta region in superblocks, K and U fitted again for it.
    /// Default: what `scftl format` makes for the geometry (room for four
    /// full checkpoints: one superblock on `paper`); 8 is the paper's
    /// 256 MB region.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub scftl_delta_region: Option<u32>,
}

/// `optr`: the OPTR paper's FTL analyses (§7) against the async baseline.
#[derive(clap::Args, Debug, Clone)]
pub struct OptrArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Geometry preset; `--quick` uses `small`.
    #[arg(long, default_value = "paper", value_parser = preset)]
    pub geometry: String,
    /// Footprints of the random writes (MiB at the start of the device),
    /// comma-separated; `--quick`: 1,8.
    #[arg(long, value_delimiter = ',', default_value = "1,80,1024", value_parser = positive)]
    pub locality_mib: Vec<u64>,
    /// Request sizes, comma-separated: 16k, 1m, or hybrid (each request
    /// 16 KiB or 1 MiB with equal chance).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "16k,1m,hybrid"
    )]
    pub request: Vec<RequestArg>,
    /// Flush intervals (write requests per flush), comma-separated; an
    /// interval longer than a point's requests is skipped.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,4,16,64,256,1024,4096,16384",
        value_parser = positive
    )]
    pub fi: Vec<u64>,
    /// Bytes written per sweep point, MiB [default: 1024; `--quick`: 4].
    #[arg(long, value_parser = positive)]
    pub point_mib: Option<u64>,
    /// Random 4 KiB overwrites while preconditioning, as a multiple of the
    /// logical size (after one sequential fill).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative)]
    pub overwrite_factor: f64,
    /// Sectors read back and checked after the sweep and after recovery.
    #[arg(long, default_value_t = 4096)]
    pub verify: u64,
}

/// Request sizes of the OPTR sweeps (paper §7: small, large, hybrid).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestArg {
    #[value(name = "16k")]
    Small,
    #[value(name = "1m")]
    Large,
    Hybrid,
}

/// `boot`: recovery time versus delta-region fill and device size (Fig. 6).
#[derive(clap::Args, Debug, Clone)]
pub struct BootArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Delta-region fill levels (percent) for the fill sweep.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0,25,50,100",
        value_parser = clap::value_parser!(u32).range(0..=100)
    )]
    pub fill: Vec<u32>,
    /// Geometry of the fill sweep.
    #[arg(long, default_value = "paper", value_parser = preset)]
    pub geometry: String,
    /// Geometry presets of the size sweep (each filled sequentially once).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "paper,paper-64g,paper-256g",
        value_parser = preset
    )]
    pub sizes: Vec<String>,
    /// Writes per flush while filling (default: the write bound W, so delta
    /// pages are full).
    #[arg(long, value_parser = positive)]
    pub fill_wi: Option<u64>,
    /// Sectors read back and checked after each recovery.
    #[arg(long, default_value_t = 4096)]
    pub verify: u64,
}

/// `cpu`: CPU cost per write and RAM per logical sector, no timing model.
#[derive(clap::Args, Debug, Clone)]
pub struct CpuArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// FTLs to run, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "scftl,async")]
    pub ftl: Vec<FtlArg>,
    /// Geometry preset.
    #[arg(long, default_value = "medium", value_parser = preset)]
    pub geometry: String,
    /// Flash backend: `mem` (stores all data) or `dataless` (tags only).
    #[arg(long, value_enum, default_value = "mem")]
    pub flash: FlashArg,
    /// Write interval (writes per flush).
    #[arg(long, default_value_t = 2048, value_parser = positive)]
    pub wi: u64,
    /// Measured random writes per FTL.
    #[arg(long)]
    pub writes: Option<u64>,
    /// Random overwrites during preconditioning, as a multiple of the
    /// logical size (after one sequential fill).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative)]
    pub overwrite_factor: f64,
    /// Measured repetitions; the best (lowest) ns/write is reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
}

/// Flash backend of the CPU benchmark.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashArg {
    Mem,
    Dataless,
}

/// `nbd`: `scftl serve` against `nbdkit file` and `qemu-nbd` under fio.
#[derive(clap::Args, Debug, Clone)]
pub struct NbdArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Directory for the exports' backing files (all on one disk; a tmpfs
    /// here measures RAM, not a disk). A work directory is made inside it
    /// and removed at the end.
    #[arg(long, default_value = "/var/tmp", value_name = "DIR")]
    pub dir: PathBuf,
    /// Export size in MiB (default 2048; 256 with --quick).
    #[arg(long, value_name = "MIB", value_parser = positive)]
    pub size_mib: Option<u64>,
    /// Seconds per fio job (default 20; 2 with --quick).
    #[arg(long, value_name = "S", value_parser = positive)]
    pub runtime: Option<u64>,
    /// FTL of the scftl export (`scftl format --ftl`).
    #[arg(long, default_value = "scftl", value_parser = ["scftl", "async", "sync"])]
    pub ftl: String,
    /// The scftl executable to run (default: this one, or the one beside
    /// it).
    #[arg(long, value_name = "PATH")]
    pub scftl: Option<PathBuf>,
    /// Also measure how random reads and random writes (4 KiB, iodepth 16
    /// per connection, writes flushing every 256) scale with these counts
    /// of connections, among 1, 2, 4, 8, 16 (e.g. --jobs 1,2,4,8,16); the
    /// report adds each server's N-job figure over its 1-job figure.
    #[arg(long, value_name = "N,N,...", value_delimiter = ',')]
    pub jobs: Vec<u32>,
    /// With --jobs: measure only the scaling jobs.
    #[arg(long)]
    pub scaling_only: bool,
    /// Serve the scftl export with `scftl serve --mmap-reads` (reads
    /// through a shared mapping of the image; docs/USAGE.md "Mapped
    /// reads").
    #[arg(long)]
    pub mmap_reads: bool,
}

/// `app`: the paper's application workloads (Fig. 7 and 8) as real programs
/// on real mounts: ext4 over `scftl serve` and our file system through
/// `scftl mount`, each on the FTLs the paper compares.
#[derive(clap::Args, Debug, Clone)]
pub struct AppArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Timing model of the device, passed to `scftl serve` and `scftl mount`
    /// as `--timing MODEL` (`paper`, or a JSON file); `none` leaves the flag
    /// out, so the device runs at the speed of its image file.
    #[arg(long, default_value = DEFAULT_TIMING, value_name = "MODEL")]
    pub timing: String,
    /// Device under each stack: `memory` (a fresh RAM device per run,
    /// `scftl serve|mount --memory`: a flush costs what the timing model
    /// says) or `image` (an image file in the work directory: every flush is
    /// also an `fdatasync` of that file on the host disk).
    #[arg(long, value_enum, default_value = "memory")]
    pub device: AppDevice,
    /// Stacks to run, comma-separated. Default: these ten,
    /// ext4-ordered/{async,sync,scftl}, ext4-journal/{async,sync,scftl},
    /// fs-log/{async,sync}, fs-xlog/scftl and fs-group/scftl; also
    /// selectable: ext4-ordered/optr, ext4-nobarrier/{optr,async}.
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = stack_name)]
    pub stacks: Vec<String>,
    /// Workloads to run, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "sqlite,smallfiles,largefile,mailbench"
    )]
    pub workloads: Vec<WorkloadArg>,
    /// Geometry preset of every image; `--quick` uses `small`.
    #[arg(long, default_value = "medium", value_parser = preset)]
    pub geometry: String,
    /// The `scftl` executable that serves and mounts the stacks (default:
    /// the running executable when it is `scftl`, else `scftl` next to it).
    #[arg(long, value_name = "PATH")]
    pub scftl: Option<PathBuf>,
    /// Python 3 interpreter that runs the workload driver.
    #[arg(long, default_value = "python3", value_name = "PATH")]
    pub python: PathBuf,
    /// SQLite: INSERT transactions, then as many UPDATE transactions
    /// (default 1000; --quick 50).
    #[arg(long)]
    pub sqlite_txns: Option<u64>,
    /// smallfiles: files created (default 2000; --quick 100).
    #[arg(long)]
    pub files: Option<u64>,
    /// largefile: MiB written, with an fsync after each (default 64;
    /// --quick 4).
    #[arg(long)]
    pub large_mib: Option<u64>,
    /// mailbench: messages delivered (default 1000; --quick 100).
    #[arg(long)]
    pub messages: Option<u64>,
    /// Directory for images and mount points (default: a temporary
    /// directory, removed afterwards).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// Time limit of one workload run or check, seconds.
    #[arg(long, default_value_t = 900)]
    pub run_timeout_s: u64,
}

/// `all`: regenerates every file of crates/bench/results/ but the
/// application benchmark's (see `crate::all`).
#[derive(clap::Args, Debug, Clone)]
pub struct AllArgs {
    /// Directory the reports go to.
    #[arg(long, value_name = "DIR", default_value_os_t = results_dir())]
    pub out: PathBuf,
    /// Write even though the tree differs from its commit.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Small geometries and few writes (for the tests; never into results/).
    #[arg(long)]
    pub quick: bool,
    /// Print no progress lines on stderr.
    #[arg(long)]
    pub silent: bool,
    /// The `scftl` executable whose memory `memory` measures (default: as
    /// for `memory`).
    #[arg(long, value_name = "PATH")]
    pub scftl: Option<PathBuf>,
}

/// `memory`: peak RSS of `scftl serve` per logical sector.
#[derive(clap::Args, Debug, Clone)]
pub struct MemoryArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Logical sizes of the exports, comma-separated (`--size` of
    /// `scftl format`); `--quick`: 64MiB,128MiB.
    #[arg(long, value_delimiter = ',', default_value = "1GiB,4GiB,16GiB,64GiB")]
    pub sizes: Vec<String>,
    /// FTLs to measure, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "scftl,async")]
    pub ftl: Vec<FtlArg>,
    /// 4 KiB writes (random, then each read back) served before the RSS is
    /// read.
    #[arg(long, default_value_t = 4096)]
    pub ios: u64,
    /// The `scftl` executable to measure (default: the running executable
    /// when it is `scftl`, else `scftl` beside it or in the build's
    /// `release` directory).
    #[arg(long, value_name = "PATH")]
    pub scftl: Option<PathBuf>,
    /// Directory for the (sparse) images; default: a temporary directory.
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
}

/// `waf`: the async FTL's WAF under uniform random writes vs the model.
#[derive(clap::Args, Debug, Clone)]
pub struct WafArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Logical sizes as fractions of the largest the async FTL accepts on
    /// the anchor geometry (three over-provisioning levels).
    #[arg(long, value_delimiter = ',', default_value = "0.6,0.8,0.95")]
    pub logical_fraction: Vec<f64>,
    /// Random writes before measuring, as a multiple of the logical size.
    #[arg(long, default_value_t = 4.0)]
    pub warmup: f64,
    /// Measured random writes, as a multiple of the logical size.
    #[arg(long, default_value_t = 4.0)]
    pub measure: f64,
    /// Largest accepted deviation from the model (a fraction); beyond it
    /// the run fails.
    #[arg(long, default_value_t = 0.05)]
    pub within: f64,
    /// Write streams of the async FTL: 1 (its default, the paper's) or 2
    /// (GC relocations in their own segment; the logical sizes are then
    /// fractions of what two streams allow).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub streams: u32,
}

/// `wear`: erase-count spread under skewed writes, leveling off and on.
#[derive(clap::Args, Debug, Clone)]
pub struct WearArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// FTLs to measure.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "scftl,async,sync,optr"
    )]
    pub ftl: Vec<FtlArg>,
    /// Host writes after the fill, as a multiple of the logical size
    /// (`--quick`: at most 5).
    #[arg(long, default_value_t = 20.0)]
    pub device_writes: f64,
    /// Writes between flushes.
    #[arg(long, default_value_t = 64)]
    pub flush_every: u64,
    /// Exponent of the Zipf workload.
    #[arg(long, default_value_t = 1.0)]
    pub zipf_s: f64,
    /// Erases a block endures, for the projected lifetime.
    #[arg(long, default_value_t = 3000)]
    pub endurance: u32,
    /// Erases a block endures in the wear-out runs (which write until the
    /// device fails; `--quick`: at most 10).
    #[arg(long, default_value_t = 40)]
    pub wearout_endurance: u32,
    /// Host writes after which a wear-out run stops anyway, as a multiple
    /// of the logical size.
    #[arg(long, default_value_t = 200.0)]
    pub wearout_max_device_writes: f64,
}

/// The device under each application-benchmark stack.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppDevice {
    Memory,
    Image,
}

/// The application workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkloadArg {
    Sqlite,
    Smallfiles,
    Largefile,
    Mailbench,
}

// Every argument value is checked here, by the parser, so that a bad one
// is a usage error (exit 2, like the rest of the CLI) before anything runs;
// an error from a benchmark itself is a failed run (exit 1).

/// Parses a count that must be at least 1 (a write interval).
fn positive(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Parses a count that must be at least 1 (a queue depth, buckets).
fn positive_usize(s: &str) -> Result<usize, String> {
    positive(s).and_then(|n| usize::try_from(n).map_err(|e| e.to_string()))
}

/// Parses a finite factor of at least 0.
fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("must be a finite number of at least 0".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Checks that an output file can be created where it is named: its
/// directory exists (so a long run does not fail at its very end).
fn output_path(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() && !d.is_dir() => Err(format!(
            "directory {} does not exist; create it first (mkdir -p {})",
            d.display(),
            d.display()
        )),
        _ => Ok(p),
    }
}

/// Checks a geometry preset name (the error lists the presets).
fn preset(s: &str) -> Result<String, String> {
    flash::Geometry::preset(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

/// Checks an application-benchmark stack name (the error lists them).
fn stack_name(s: &str) -> Result<String, String> {
    let all = crate::app::stack::StackSpec::selectable();
    if all.iter().any(|st| st.name() == s) {
        return Ok(s.to_string());
    }
    let names: Vec<String> = all.iter().map(|st| st.name()).collect();
    Err(format!("unknown stack; stacks: {}", names.join(", ")))
}
