//! Image files: create, open (= recover), describe; and the RAM devices of
//! `--memory`. The only module of the CLI that knows which flash backend and
//! which FTL hold the data: a `FileFlash` image (or a fresh `MemFlash`)
//! formatted with one of the FTLs (`ftl::AnyFtl`), optionally under the
//! real-time latency model of `--timing` (`flash::RealTime`).
//!
//! Invariants: the latency model never paces format, recovery or mkfs — an
//! [`Opened`] device is paced only once its front end starts
//! [`Opened::pacing`] (when it starts serving); a `--memory` device never
//! touches a file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flash::{
    FileFlash, Flash, FlashError, Geometry, MemFlash, OverlayFlash, RealTime, RealTimeSwitch,
    WallClock,
};
use ftl::any::{baseline_config, scftl_config};
use ftl::scftl::ScftlConfig;
use ftl::{AnyFtl, BlockDevice, FormatOptions, FtlError, FtlKind};

use crate::error::CliError;
use crate::size::{self, human};
use crate::sizing;
use crate::timing::TimingArg;

/// What `Summary::path` shows for a `--memory` device.
pub const MEMORY_LABEL: &str = "(memory)";

/// What `scftl format` asks for.
#[derive(Clone, Debug, Default)]
pub struct FormatRequest {
    pub size: Option<u64>,
    pub geometry: Option<String>,
    /// Spare flash in percent of `size` (only with `size`, without
    /// `geometry`); default [`sizing::DEFAULT_OVER_PROVISIONING`].
    pub over_provisioning: Option<u32>,
    pub kind: Option<FtlKind>,
    pub write_bound: Option<u64>,
    pub gc_bound: Option<u64>,
    pub gc_threshold: Option<u64>,
    pub gc_streams: Option<u64>,
    pub delta_region_superblocks: Option<u64>,
    pub force: bool,
}

/// A description of an image, for `format`, `info` and `serve`.
#[derive(Clone, Debug)]
pub struct Summary {
    pub path: PathBuf,
    pub kind: FtlKind,
    pub geometry: Geometry,
    pub sector_size: usize,
    pub logical_sectors: u64,
    /// The FTL's configuration, (name, value); every value is a count.
    pub config: Vec<(&'static str, u64)>,
}

impl Summary {
    pub fn logical_bytes(&self) -> u64 {
        self.logical_sectors * self.sector_size as u64
    }
}

/// An opened (recovered) image, or a fresh `--memory` device.
pub struct Opened {
    pub device: Box<dyn BlockDevice + Send + Sync>,
    pub summary: Summary,
    /// Wall-clock time of recovery (the FTL reads no clocks itself).
    pub recovery: Duration,
    /// The `--timing` model applied, described in one line.
    pub timing: String,
    /// A live view: the image was held open for writing by another process
    /// (a server or a mount), so it was read without its lock while it may
    /// change (see [`OpenOptions::allow_live`]).
    pub live: bool,
    /// Starts the model's pacing.
    pub pacing: Pacing,
}

/// The switch of a device's latency model (none without a model); it stays
/// usable after the device has moved into a server or a file system.
#[derive(Clone, Debug)]
pub struct Pacing(Option<RealTimeSwitch>);

impl Pacing {
    /// Starts pacing the device in real time (if it has a model): every
    /// command from now on waits as `--timing` says.
    pub fn start(&self) {
        if let Some(s) = &self.0 {
            s.start();
        }
    }

    /// One line on the waits the model imposed so far (none without one).
    pub fn report(&self) -> Option<String> {
        let st = self.0.as_ref()?.stats();
        let mean_us = st.waited_ns as f64 / 1e3 / st.waits.max(1) as f64;
        Some(format!(
            "{} host waits, {:.1} ms modelled in total (mean {mean_us:.1} µs)",
            st.waits,
            st.waited_ns as f64 / 1e6
        ))
    }
}

/// How to open an image.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Open the file read-only under a shared lock; recovery runs over a RAM
    /// overlay, so nothing is ever written to it.
    pub read_only: bool,
    /// Test hook: every flash sync first sleeps this long.
    pub slow_sync_ms: u64,
    /// The latency model (paused until `Opened::pacing` is started).
    pub timing: TimingArg,
    /// With `read_only`: when another process holds the image open for
    /// writing, recover a view of the file as it is instead of failing
    /// (`Opened::live` says so). Such a view may catch the other process
    /// mid-command; what a caller finds in it must be confirmed by a
    /// second view before it is reported.
    pub allow_live: bool,
    /// Read the image through a shared mapping (`FileFlash::map_for_reads`;
    /// not for a live view).
    pub mmap_reads: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            read_only: false,
            slow_sync_ms: 0,
            timing: TimingArg::None,
            allow_live: false,
            mmap_reads: false,
        }
    }
}

/// The `--memory` options of `serve` and `mount`: a fresh RAM device,
/// formatted as `scftl format` would (the same request, the same checks).
#[derive(clap::Args, Clone, Debug)]
pub struct MemoryArgs {
    /// Use a fresh RAM device instead of an image: nothing is read from or
    /// written to disk, and its contents are lost at exit (for benchmarks).
    #[arg(long)]
    pub memory: bool,
    /// --memory: logical size, e.g. 512MiB; without --geometry, a geometry
    /// of about this size plus the over-provisioning is derived.
    #[arg(long, requires = "memory", value_parser = size::parse_size)]
    pub size: Option<u64>,
    /// --memory, --size: spare flash in percent of the logical size (1 to
    /// 1000; default 100, the paper preset's ratio).
    #[arg(
        long,
        value_name = "PERCENT",
        requires = "size",
        conflicts_with = "geometry",
        value_parser = sizing::parse_over_provisioning
    )]
    pub over_provisioning: Option<u32>,
    /// --memory: geometry preset (small, medium, paper, paper-64g,
    /// paper-256g). Default: derived from --size, else medium.
    #[arg(long, requires = "memory")]
    pub geometry: Option<String>,
    /// --memory: FTL, scftl (default), async or sync.
    #[arg(long, requires = "memory", value_parser = crate::parse_kind)]
    pub ftl: Option<FtlKind>,
    /// --memory, scftl: W, sector updates allowed between flushes.
    #[arg(long, requires = "memory")]
    pub write_bound: Option<u64>,
    /// --memory, scftl: K, GC relocations allowed between flushes.
    #[arg(long, requires = "memory")]
    pub gc_bound: Option<u64>,
    /// --memory, scftl: U, GC runs only when this many superblocks are used.
    #[arg(long, requires = "memory")]
    pub gc_threshold: Option<u64>,
    /// --memory: write streams, 1 or 2 (GC relocations apart from host
    /// writes: hot/cold separation). Default: scftl 2 where they fit,
    /// async and sync 1.
    #[arg(long, requires = "memory")]
    pub gc_streams: Option<u64>,
    /// --memory, scftl: superblocks of the delta region.
    #[arg(long, requires = "memory", value_name = "N")]
    pub delta_region_superblocks: Option<u64>,
}

impl MemoryArgs {
    /// Refuses the device options when no `--memory` device is made: an
    /// image keeps the settings it was formatted with, and an option that
    /// would be ignored must not look as if it applied. (clap's `requires`
    /// cannot say this: it counts `--memory`'s default as given.)
    pub fn check_applies(&self) -> Result<(), CliError> {
        if self.memory {
            return Ok(());
        }
        let given: Vec<&str> = [
            ("--size", self.size.is_some()),
            ("--over-provisioning", self.over_provisioning.is_some()),
            ("--geometry", self.geometry.is_some()),
            ("--ftl", self.ftl.is_some()),
            ("--write-bound", self.write_bound.is_some()),
            ("--gc-bound", self.gc_bound.is_some()),
            ("--gc-threshold", self.gc_threshold.is_some()),
            ("--gc-streams", self.gc_streams.is_some()),
            (
                "--delta-region-superblocks",
                self.delta_region_superblocks.is_some(),
            ),
        ]
        .into_iter()
        .filter_map(|(n, set)| set.then_some(n))
        .collect();
        if given.is_empty() {
            return Ok(());
        }
        Err(CliError::usage(format!(
            "{} {} only with --memory: an image keeps the settings it was formatted with \
             (`scftl info IMAGE` shows them; `scftl format --force IMAGE ...` makes a new image \
             with others, losing its contents)",
            given.join(", "),
            if given.len() == 1 { "applies" } else { "apply" }
        )))
    }

    /// The format request these options make.
    pub fn request(&self) -> FormatRequest {
        FormatRequest {
            size: self.size,
            geometry: self.geometry.clone(),
            over_provisioning: self.over_provisioning,
            kind: self.ftl,
            write_bound: self.write_bound,
            gc_bound: self.gc_bound,
            gc_threshold: self.gc_threshold,
            gc_streams: self.gc_streams,
            delta_region_superblocks: self.delta_region_superblocks,
            force: false,
        }
    }
}

fn flash_err(path: &Path, e: FlashError) -> CliError {
    let msg = format!("{e}");
    match e {
        // The flash layer names the concept; the CLI owns the flag.
        FlashError::AlreadyExists { .. } => CliError::usage(format!(
            "{msg} (pass --force, or remove it, to overwrite it)"
        )),
        _ => CliError::runtime(format!("{}: {msg}", path.display())),
    }
}

fn ftl_err(path: &Path, e: FtlError) -> CliError {
    match e {
        FtlError::BadConfig(_) | FtlError::BadArgument(_) => CliError::usage(e.to_string()),
        FtlError::NotFormatted => CliError::runtime(format!(
            "{}: {e} (re-create it with `scftl format --force`)",
            path.display()
        )),
        _ => CliError::runtime(format!("{}: {e}", path.display())),
    }
}

/// The geometry a request asks for, and the logical size when the request
/// fixes it.
struct Choice {
    geometry: Geometry,
    logical_sectors: Option<u64>,
}

/// Picks the geometry: the named preset (with `--size` checked against it),
/// one derived from `--size` and the over-provisioning (see sizing.rs), or
/// `medium`.
fn choose(req: &FormatRequest, kind: FtlKind) -> Result<Choice, CliError> {
    if let Some(name) = &req.geometry {
        if req.over_provisioning.is_some() {
            return Err(CliError::usage(
                "--over-provisioning applies to the geometry --size derives; with --geometry, \
                 the preset fixes the raw size (give --size for the logical size instead)",
            ));
        }
        let g = Geometry::preset(name).map_err(|e| CliError::usage(format!("--geometry: {e}")))?;
        let logical_sectors = req
            .size
            .map(|size| preset_logical_sectors(&g, kind, size))
            .transpose()?;
        return Ok(Choice {
            geometry: g,
            logical_sectors,
        });
    }
    let Some(size) = req.size else {
        if req.over_provisioning.is_some() {
            return Err(CliError::usage(
                "--over-provisioning needs --size: it sets the spare flash of the geometry \
                 --size derives",
            ));
        }
        return Ok(Choice {
            geometry: Geometry::medium(),
            logical_sectors: None,
        });
    };
    let d = sizing::derive(size, req.over_provisioning, kind)?;
    Ok(Choice {
        geometry: d.geometry,
        logical_sectors: Some(d.logical_sectors),
    })
}

/// The logical sectors of `--size` on a named preset: a whole number of
/// sectors, at most what the FTL offers there by default.
fn preset_logical_sectors(g: &Geometry, kind: FtlKind, size: u64) -> Result<u64, CliError> {
    let ss = u64::from(g.sector_size);
    if size == 0 || !size.is_multiple_of(ss) {
        return Err(CliError::usage(format!(
            "--size {size}: must be a non-zero multiple of the {ss}-byte sector"
        )));
    }
    let max = match kind {
        FtlKind::Scftl => ScftlConfig::default_for(g).logical_sectors,
        FtlKind::Optr => ftl::optr::OptrConfig::default_for(g).logical_sectors,
        _ => ftl::async_ftl::AsyncConfig::default_for(g).logical_sectors,
    };
    if size / ss > max {
        return Err(CliError::usage(format!(
            "--size {}: the {} geometry holds at most {} with the {kind} FTL; pick a larger \
             --geometry or omit it (then a geometry is derived from --size)",
            human(size),
            crate::preset_name(g),
            human(max * ss)
        )));
    }
    Ok(size / ss)
}

fn bound(name: &str, v: Option<u64>) -> Result<Option<u32>, CliError> {
    v.map(|x| {
        u32::try_from(x).map_err(|_| CliError::usage(format!("--{name} {x}: at most {}", u32::MAX)))
    })
    .transpose()
}

/// The FTL options a request asks for on the chosen geometry, validated
/// (without touching any file).
fn format_options(
    choice: &Choice,
    kind: FtlKind,
    req: &FormatRequest,
) -> Result<FormatOptions, CliError> {
    let g = &choice.geometry;
    let logical_sectors = choice.logical_sectors;
    let opts = FormatOptions {
        logical_sectors,
        write_bound: bound("write-bound", req.write_bound)?,
        gc_bound: bound("gc-bound", req.gc_bound)?,
        gc_threshold: bound("gc-threshold", req.gc_threshold)?,
        gc_streams: bound("gc-streams", req.gc_streams)?,
        delta_region_superblocks: bound(
            "delta-region-superblocks",
            req.delta_region_superblocks,
        )?,
    };
    let checked = match kind {
        FtlKind::Scftl => scftl_config(g, &opts).map(|c| c.logical_sectors),
        FtlKind::Optr => ftl::any::optr_config(g, &opts).map(|c| c.logical_sectors),
        _ => baseline_config(g, kind, &opts).map(|c| c.logical_sectors),
    };
    checked.map_err(|e| {
        let d = ScftlConfig::default_for(g);
        let hint = if kind == FtlKind::Scftl {
            format!(
                "\n(the defaults for the {} geometry are {} logical sectors, W={}, K={}, U={}, {} write stream(s), a delta region of {} superblock(s); `scftl format --help` explains the bounds)",
                crate::preset_name(g),
                d.logical_sectors,
                d.write_bound,
                d.gc_bound,
                d.gc_threshold,
                d.gc_streams,
                d.delta_region_superblocks
            )
        } else {
            String::new()
        };
        CliError::usage(format!("{e}{hint}"))
    })?;
    Ok(opts)
}

/// Refuses an image path whose directory is missing with one message that
/// names the directory and says how to create it, rather than an I/O error
/// that repeats the path.
fn check_parent_dir(path: &Path) -> Result<(), CliError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Ok(()),
    };
    if dir.is_dir() {
        return Ok(());
    }
    let what = if dir.exists() {
        "is not a directory"
    } else {
        "does not exist"
    };
    Err(CliError::runtime(format!(
        "cannot create {}: directory {} {what}; create it first (mkdir -p {}) or choose another path",
        path.display(),
        dir.display(),
        dir.display()
    )))
}

/// Creates and formats an image.
pub fn format(path: &Path, req: &FormatRequest) -> Result<Summary, CliError> {
    let kind = req.kind.unwrap_or(FtlKind::Scftl);
    // Validate everything before touching the file system.
    let choice = choose(req, kind)?;
    let opts = format_options(&choice, kind, req)?;
    let g = choice.geometry;
    if path.exists() && !req.force {
        return Err(CliError::usage(format!(
            "{} already exists; pass --force (or remove it) to overwrite it",
            path.display()
        )));
    }
    check_parent_dir(path)?;
    let flash = FileFlash::create(path, g, req.force).map_err(|e| flash_err(path, e))?;
    let dev = AnyFtl::format(flash, kind, &opts).map_err(|e| ftl_err(path, e))?;
    let summary = Summary {
        path: path.to_path_buf(),
        kind,
        geometry: g,
        sector_size: dev.sector_size(),
        logical_sectors: dev.num_sectors(),
        config: dev.config_summary(),
    };
    drop(dev.into_flash());
    Ok(summary)
}

/// Opens an image and recovers it. `read_only` opens the file read-only
/// (under a shared lock): nothing is ever written to it.
pub fn open(path: &Path, read_only: bool) -> Result<Opened, CliError> {
    open_with(
        path,
        &OpenOptions {
            read_only,
            ..OpenOptions::default()
        },
    )
}

/// Like [`open`], with every option.
pub fn open_with(path: &Path, o: &OpenOptions) -> Result<Opened, CliError> {
    if !path.exists() {
        return Err(CliError::runtime(format!(
            "{} does not exist; create it with `scftl format {}`",
            path.display(),
            path.display()
        )));
    }
    // A read-only image is recovered over a RAM overlay: recovery of some
    // FTLs writes (the sync FTL replays its battery-backed log), and those
    // writes must never reach the file.
    let mut live = false;
    let flash: Box<dyn Flash + Send + Sync> = if o.read_only {
        let file = match FileFlash::open_read_only(path) {
            Err(FlashError::Locked { .. }) if o.allow_live => {
                live = true;
                FileFlash::open_live_view(path)
            }
            other => other,
        };
        let mut file = file.map_err(|e| flash_err(path, e))?;
        if o.mmap_reads && !live {
            file.map_for_reads().map_err(|e| flash_err(path, e))?;
        }
        Box::new(OverlayFlash::new(file))
    } else {
        let mut file = FileFlash::open(path).map_err(|e| flash_err(path, e))?;
        if o.mmap_reads {
            file.map_for_reads().map_err(|e| flash_err(path, e))?;
        }
        Box::new(file)
    };
    let g = *flash.geometry();
    let flash: Box<dyn Flash + Send + Sync> = if o.slow_sync_ms > 0 {
        Box::new(SlowSync {
            inner: flash,
            delay: Duration::from_millis(o.slow_sync_ms),
        })
    } else {
        flash
    };
    let (flash, pacing) = paced(flash, &o.timing);
    let t0 = Instant::now();
    let dev = AnyFtl::open(flash).map_err(|e| ftl_err(path, e))?;
    let recovery = t0.elapsed();
    let mut opened = opened(dev, path, g, recovery, &o.timing, pacing);
    opened.live = live;
    Ok(opened)
}

/// Opens an image read-only for a report (`info`, `fsck`, `scrub`): under
/// a shared lock, or, when another process has it open for writing, as a
/// live view (recovery over a copy of nothing but RAM; a note on stderr
/// says so). A live view's recovery may catch the writer mid-command and
/// fail; it is tried again a few times first.
pub fn open_report_view(path: &Path) -> Result<Opened, CliError> {
    let o = OpenOptions {
        read_only: true,
        allow_live: true,
        ..OpenOptions::default()
    };
    let mut tries = 0;
    loop {
        tries += 1;
        match open_with(path, &o) {
            Ok(v) => {
                if v.live {
                    eprintln!(
                        "scftl: {} is in use by another process (served or mounted); reading a \
                         live view of it as it is now, without stopping that process",
                        path.display()
                    );
                }
                return Ok(v);
            }
            // Only a live view changes between tries.
            Err(_) if tries < 4 && FileFlash::held_for_writing(path).unwrap_or(false) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

/// A fresh RAM device formatted as `req` asks (validated exactly as
/// `scftl format` validates it), under `timing` once started.
pub fn create_memory(req: &FormatRequest, timing: &TimingArg) -> Result<Opened, CliError> {
    create_memory_on(req, timing, |mem| Box::new(mem))
}

/// [`create_memory`] with the RAM flash wrapped by `wrap` (below the
/// latency model), e.g. in a power-cut layer.
pub fn create_memory_on(
    req: &FormatRequest,
    timing: &TimingArg,
    wrap: impl FnOnce(MemFlash) -> Box<dyn Flash + Send + Sync>,
) -> Result<Opened, CliError> {
    let kind = req.kind.unwrap_or(FtlKind::Scftl);
    let choice = choose(req, kind)?;
    let opts = format_options(&choice, kind, req)?;
    let g = choice.geometry;
    let label = Path::new(MEMORY_LABEL);
    let mem = MemFlash::new(g).map_err(|e| flash_err(label, e))?;
    let (flash, pacing) = paced(wrap(mem), timing);
    let dev = AnyFtl::format(flash, kind, &opts).map_err(|e| ftl_err(label, e))?;
    Ok(opened(dev, label, g, Duration::ZERO, timing, pacing))
}

/// Recovers the FTL from the label on a RAM flash (after a simulated power
/// cut), under the latency model `timing`, timing the recovery.
pub fn reopen_memory(
    flash: Box<dyn Flash + Send + Sync>,
    timing: &TimingArg,
) -> Result<Opened, CliError> {
    let label = Path::new(MEMORY_LABEL);
    let g = *flash.geometry();
    let (flash, pacing) = paced(flash, timing);
    let start = Instant::now();
    let dev = AnyFtl::open(flash).map_err(|e| ftl_err(label, e))?;
    Ok(opened(dev, label, g, start.elapsed(), timing, pacing))
}

/// Wraps `flash` in the (paused) real-time model `timing` names, if any.
fn paced(
    flash: Box<dyn Flash + Send + Sync>,
    timing: &TimingArg,
) -> (Box<dyn Flash + Send + Sync>, Option<RealTimeSwitch>) {
    match timing.config(flash.geometry()) {
        None => (flash, None),
        Some(config) => {
            let rt = RealTime::paused(flash, config, WallClock::new());
            let switch = rt.switch();
            (Box::new(rt), Some(switch))
        }
    }
}

fn opened(
    dev: AnyFtl<Box<dyn Flash + Send + Sync>>,
    path: &Path,
    g: Geometry,
    recovery: Duration,
    timing: &TimingArg,
    pacing: Option<RealTimeSwitch>,
) -> Opened {
    let summary = Summary {
        path: path.to_path_buf(),
        kind: dev.kind(),
        geometry: g,
        sector_size: dev.sector_size(),
        logical_sectors: dev.num_sectors(),
        config: dev.config_summary(),
    };
    Opened {
        device: Box::new(dev),
        summary,
        recovery,
        timing: timing.describe(&g),
        pacing: Pacing(pacing),
        live: false,
    }
}

/// A flash whose `sync` first sleeps a fixed time (zero: no effect).
struct SlowSync<F> {
    inner: F,
    delay: Duration,
}

/// Only `sync` changes: it sleeps first. Everything else passes through.
impl<F: Flash> flash::Layer for SlowSync<F> {
    flash::layer_below!(inner: F);
    fn geometry(&self) -> &Geometry {
        self.inner.geometry()
    }
    fn sync(&mut self) -> flash::Result<()> {
        if !self.delay.is_zero() {
            std::thread::sleep(self.delay);
        }
        self.inner.sync()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::PageAddr;

    /// The layer's forwarding (crates/flash/tests/layers.rs lists it): only
    /// `sync` changes; a read with OOB is one read below.
    #[test]
    fn slow_sync_passes_everything_else_through() {
        let g = Geometry::tiny();
        let mut f = SlowSync {
            inner: MemFlash::new(g).unwrap(),
            delay: Duration::from_millis(1),
        };
        let ps = g.page_size();
        let pages = [PageAddr::new(1, 0), PageAddr::new(1, 1)];
        f.program_many(&pages, &vec![4; 2 * ps], &[6; 8]).unwrap();
        let mut d = vec![0u8; ps];
        let mut o = [0u8; 4];
        f.read_with_oob(pages[1], 0, &mut d, &mut o).unwrap();
        assert_eq!((d[0], o), (4, [6; 4]));
        let c = f.counters();
        assert_eq!((c.reads, c.programs), (1, 2));
        let t = Instant::now();
        f.sync().unwrap();
        assert!(t.elapsed() >= Duration::from_millis(1), "sync sleeps first");
        assert_eq!(f.counters().syncs, 1);
    }
}
