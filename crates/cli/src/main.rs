//! `scftl`: the command-line front end.
//!
//! What it is: `format` (create a persistent flash image holding an FTL),
//! `info` (describe one), `serve` (recover one and export it over NBD),
//! `mkfs`, `mount` (FUSE) and `fsck` for the file system on an image,
//! `scrub` (read every sector, report damage), `upgrade`, and
//! the checker and benchmark front ends.
//!
//! What it promises: every failure is a message that says what to do and a
//! documented exit code (see error.rs); `serve` flushes before it exits on
//! SIGINT, SIGTERM or SIGHUP; `mount` unmounts and flushes on them.
//!
//! What it must never do: overwrite an existing image without `--force`, or
//! write to an image served with `--read-only`, replace a file system
//! without `--force`, or write to an image it checks with `fsck` (unless
//! asked to `--repair` it).

mod crashtest;

/// Items compiled only with the `full` feature (Cargo.toml): every command
/// but `crashtest`. Without it the binary has only `crashtest` (the CI
/// crash campaign's lean build).
macro_rules! full_only {
    ($($item:item)*) => { $( #[cfg(feature = "full")] $item )* };
}

full_only! {
    mod error;
    mod explore_fs;
    mod explorecmd;
    mod fscmd;
    mod fuse;
    mod image;
    mod info;
    mod mount;
    mod powercut;
    mod scrub;
    mod serve;
    mod size;
    mod sizing;
    mod stats;
    mod timing;
    mod upgrade;

    use std::path::PathBuf;
    use ftl::FtlKind;
    use crate::error::CliError;
}

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "scftl",
    version,
    about = "A snapshot-consistent flash translation layer you can use as a disk",
    long_about = "A snapshot-consistent flash translation layer you can use as a disk.\n\n\
        After any crash the device holds exactly what it held at the last completed flush.\n\
        Create an image with `scftl format`, serve it over NBD with `scftl serve`.\n\n\
        Exit codes: 0 success, 1 operation failed, 2 bad command line or configuration."
)]
#[cfg_attr(
    not(feature = "full"),
    command(after_help = "This build has only `crashtest` (built without the feature `full`).")
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a persistent flash image and format it with an FTL.
    #[command(after_help = "Examples:\n  scftl format disk.img --size 4GiB\n  \
                      scftl format small.img --geometry small --ftl async\n  \
                      scftl format disk.img --size 1GiB --over-provisioning 28\n  \
                      scftl format disk.img --size 512MiB --write-bound 1024 --force")]
    #[cfg(feature = "full")]
    Format(FormatArgs),
    /// Describe an image: geometry, FTL, configuration, occupancy, wear, recovery time.
    #[cfg(feature = "full")]
    Info(InfoArgs),
    /// Recover an image and serve it over NBD (default 127.0.0.1:10809).
    #[command(
        after_help = "With no IMAGE, serves ./scftl.img, creating it (medium geometry, scftl FTL) if missing.\n\n\
                      Clients: nbdinfo nbd://127.0.0.1 · qemu-io -f raw nbd://127.0.0.1 · \
                      nbd-client 127.0.0.1 /dev/nbd0 -N scftl\n\
                      Stop with Ctrl-C or SIGTERM: the server flushes before it exits."
    )]
    #[cfg(feature = "full")]
    Serve(serve::ServeArgs),
    /// Make the file system on an image (any FTL); refuses to replace one
    /// without --force.
    #[command(
        after_help = "Example:\n  scftl format disk.img --size 256MiB && scftl mkfs disk.img"
    )]
    #[cfg(feature = "full")]
    Mkfs(fscmd::MkfsArgs),
    /// Mount an image's file system through FUSE, in the foreground, until
    /// it is unmounted or interrupted (both flush before exit).
    #[command(
        after_help = "Examples:\n  scftl mount disk.img /mnt/scftl --mode group\n  \
                      scftl mount async.img /mnt/scftl --mode log\n\
                      Unmount with `fusermount3 -u MOUNTPOINT` (or umount, as root) or Ctrl-C."
    )]
    #[cfg(feature = "full")]
    Mount(mount::MountArgs),
    /// Check an image's file system without writing to it (or, with
    /// --repair, fix what has one safe fix); exits 1 when it is
    /// inconsistent.
    #[cfg(feature = "full")]
    Fsck(fscmd::FsckArgs),
    /// Read every sector of an image and report those that cannot be read
    /// back (by sector, and by file on our file system); exits 1 on damage.
    /// Works on a served or mounted image too, through a live view.
    #[command(
        after_help = "Examples:\n  scftl scrub disk.img\n  scftl scrub disk.img --json | jq .damaged\n\
                      `scftl fsck --scrub IMAGE` checks the file system as well."
    )]
    #[cfg(feature = "full")]
    Scrub(scrub::ScrubArgs),
    /// Rewrite an SCFTL image of an older configuration version as one of
    /// the version this build writes (crash-safe: a copy beside it,
    /// verified, then renamed over it; needs as much free disk space).
    #[command(after_help = "Example:\n  scftl upgrade disk.img\n\
                      `scftl info IMAGE` shows the image's config_version.")]
    #[cfg(feature = "full")]
    Upgrade(upgrade::UpgradeArgs),
    /// Run the crash-consistency checker: cut power at flash commands and
    /// compare what recovery returns with the FTL's contract (or, with
    /// --fs, what the mounted file system shows with its mode's contract).
    Crashtest(crashtest::CrashtestArgs),
    /// Test a program's crash recovery at every crash state a snapshot
    /// (SCFTL), prefix or async disk allows, from a trace recorded with
    /// `serve --record` or a workload run here (--workload).
    #[cfg(feature = "full")]
    Explore(explorecmd::ExploreArgs),
    /// Reproduce the paper's evaluation on the timing model: random writes
    /// (Fig. 5), boot time (Fig. 6), CPU and RAM per write, and application
    /// workloads on real mounts (Fig. 7/8).
    #[command(subcommand)]
    #[cfg(feature = "full")]
    Bench(bench::BenchCommand),
}

#[cfg(feature = "full")]
#[derive(clap::Args)]
struct FormatArgs {
    /// Image file to create.
    image: PathBuf,
    /// Logical size of the disk, e.g. 4GiB, 1.5GiB, 512MiB, or bytes (rounded up to
    /// whole 4 KiB sectors). Without --geometry, the flash is derived from
    /// it: about SIZE plus the over-provisioning, in the shape of the
    /// nearest preset.
    #[arg(long, value_parser = size::parse_size)]
    size: Option<u64>,
    /// With --size: spare flash in percent of the logical size, 1 to 1000
    /// (default 100, the paper preset's ratio: 4 GiB on 8 GiB of flash). More
    /// spare means less GC; the FTL's metadata comes out of it too.
    #[arg(
        long,
        value_name = "PERCENT",
        requires = "size",
        conflicts_with = "geometry",
        value_parser = sizing::parse_over_provisioning
    )]
    over_provisioning: Option<u32>,
    /// Flash geometry preset: tiny, small (64 MiB raw), medium (1 GiB), paper
    /// (8 GiB), paper-64g, paper-256g. Default: derived from --size, else
    /// medium.
    #[arg(long)]
    geometry: Option<String>,
    /// FTL: scftl (snapshot-consistent), async or sync (the paper's baselines).
    #[arg(long, default_value = "scftl", value_parser = parse_kind)]
    ftl: FtlKind,
    /// SCFTL: W, sector updates allowed between flushes. Default: 1/32 of
    /// the over-provisioned sectors (at least the paper's 2048 on large
    /// geometries, at most 65536); `--write-bound 2048` asks for the paper's.
    #[arg(long)]
    write_bound: Option<u64>,
    /// SCFTL: K, GC relocations (victim superblocks) allowed between flushes.
    #[arg(long)]
    gc_bound: Option<u64>,
    /// SCFTL: U, GC runs only when at least this many superblocks are used.
    #[arg(long)]
    gc_threshold: Option<u64>,
    /// Write streams, 1 or 2. With 2, GC relocations (and SCFTL's wear
    /// moves) fill their own active superblock or segment, apart from host
    /// writes (hot/cold separation: less write amplification under skewed
    /// writes, for a few superblocks or segments of GC headroom). SCFTL's
    /// default: 2 where the device affords the second stream at the size
    /// asked for, else 1; async and sync: 1 (the paper's baselines).
    #[arg(long)]
    gc_streams: Option<u64>,
    /// SCFTL: superblocks of the delta region, where flushes log their L2P
    /// changes until a full checkpoint. Default: the fewest that hold four
    /// full checkpoints' pages (one on most sizes), at most 1/32 of the
    /// device. A larger region takes full checkpoints less often (its
    /// superblocks are erased less often without wear leveling) for GC
    /// headroom and a longer recovery scan; K and U are refitted.
    #[arg(long, value_name = "N")]
    delta_region_superblocks: Option<u64>,
    /// Overwrite IMAGE if it exists (never while another process has it open).
    #[arg(long)]
    force: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "full")]
#[derive(clap::Args)]
struct InfoArgs {
    /// Image file to describe (opened read-only; recovery runs in memory; a
    /// served or mounted image is read through a live view).
    image: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "full")]
pub fn parse_kind(s: &str) -> Result<FtlKind, String> {
    FtlKind::parse(s).map_err(|e| e.to_string())
}

#[cfg(feature = "full")]
fn run_format(a: &FormatArgs) -> Result<(), CliError> {
    let req = image::FormatRequest {
        size: a.size,
        geometry: a.geometry.clone(),
        over_provisioning: a.over_provisioning,
        kind: Some(a.ftl),
        write_bound: a.write_bound,
        gc_bound: a.gc_bound,
        gc_threshold: a.gc_threshold,
        gc_streams: a.gc_streams,
        delta_region_superblocks: a.delta_region_superblocks,
        force: a.force,
    };
    let s = image::format(&a.image, &req)?;
    if a.json {
        println!("{}", info::summary_json(&s, None));
    } else {
        let raw = s.geometry.raw_bytes();
        println!(
            "formatted {}: {} {} disk on {} of flash ({}% over-provisioning)\ngeometry: {} ({})",
            s.path.display(),
            size::human(s.logical_bytes()),
            s.kind,
            size::human(raw),
            sizing::over_provisioning(raw, s.logical_bytes()),
            sizing::describe(&s.geometry),
            s.geometry
        );
    }
    Ok(())
}

#[cfg(feature = "full")]
/// The preset name of a geometry, or "custom".
pub fn preset_name(g: &flash::Geometry) -> &'static str {
    flash::PRESET_NAMES
        .iter()
        .copied()
        .find(|n| flash::Geometry::preset(n).ok().as_ref() == Some(g))
        .unwrap_or("custom")
}

/// Puts SIGPIPE back to its default action (terminate). The Rust runtime
/// ignores it, which turns a reader that hangs up early (`| head -1`) into a
/// panic in `println!`; a command-line tool should instead stop quietly.
fn restore_default_sigpipe() {
    // SAFETY: called first thing in main, before any other thread exists;
    // setting a signal's disposition to SIG_DFL has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    let cli = Cli::parse();
    match &cli.command {
        #[cfg(feature = "full")]
        Command::Format(a) => exit_code(run_format(a)),
        #[cfg(feature = "full")]
        Command::Info(a) => exit_code(info::run(&a.image, a.json)),
        #[cfg(feature = "full")]
        Command::Serve(a) => exit_code(serve::run(a)),
        #[cfg(feature = "full")]
        Command::Mkfs(a) => exit_code(fscmd::run_mkfs(a)),
        #[cfg(feature = "full")]
        Command::Mount(a) => exit_code(mount::run(a)),
        #[cfg(feature = "full")]
        Command::Fsck(a) => exit_code(fscmd::run_fsck(a)),
        #[cfg(feature = "full")]
        Command::Scrub(a) => exit_code(scrub::run(a)),
        #[cfg(feature = "full")]
        Command::Upgrade(a) => exit_code(upgrade::run(a)),
        // The checker prints its own report and chooses its exit code.
        Command::Crashtest(a) => crashtest::run(a),
        // Exit 3 when some crash state fails its check.
        #[cfg(feature = "full")]
        Command::Explore(a) => explorecmd::run(a),
        #[cfg(feature = "full")]
        Command::Bench(b) => bench::run(b),
    }
}

/// Success, or the error's message and its documented exit code.
#[cfg(feature = "full")]
fn exit_code(result: Result<(), CliError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scftl: error: {e}");
            ExitCode::from(e.code)
        }
    }
}
