//! Image files: create, open (= recover), describe. The only module of the
//! CLI that knows which backend holds the data.
//!
//! Backend today: the interim journal disk (interim.rs), until `FileFlash`
//! and the FTLs are wired in through `ftl::any::AnyFtl`.

use std::path::{Path, PathBuf};

use flash::Geometry;
use ftl::{BlockDevice, FtlKind};

use crate::error::CliError;
use crate::interim::JournalDisk;
use crate::size::human;

/// Geometry presets `--size` chooses from, smallest first.
pub const SIZE_PRESETS: &[&str] = &["small", "medium", "paper", "paper-64g", "paper-256g"];

/// Default epoch bound of the interim backend (SCFTL's default W).
const INTERIM_WRITE_BOUND: u64 = 2048;

/// What `scftl format` asks for.
#[derive(Clone, Debug, Default)]
pub struct FormatRequest {
    pub size: Option<u64>,
    pub geometry: Option<String>,
    pub kind: Option<FtlKind>,
    pub write_bound: Option<u64>,
    pub gc_bound: Option<u64>,
    pub gc_threshold: Option<u64>,
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
    pub config: Vec<(String, String)>,
}

impl Summary {
    pub fn logical_bytes(&self) -> u64 {
        self.logical_sectors * self.sector_size as u64
    }
}

/// An opened (recovered) image.
pub struct Opened {
    pub device: Box<dyn BlockDevice + Send>,
    pub summary: Summary,
}

/// Logical capacity a preset offers by default (half the raw capacity, the
/// FTLs' default over-provisioning).
fn default_logical_bytes(g: &Geometry) -> u64 {
    g.raw_bytes() / 2
}

/// Picks the geometry: the named preset, or the smallest preset whose
/// default logical capacity holds `size`.
pub fn choose_geometry(req: &FormatRequest) -> Result<Geometry, CliError> {
    if let Some(name) = &req.geometry {
        return Geometry::preset(name).map_err(|e| CliError::usage(format!("--geometry: {e}")));
    }
    let Some(size) = req.size else {
        return Geometry::preset("medium").map_err(CliError::from_display);
    };
    for name in SIZE_PRESETS {
        let g = Geometry::preset(name).map_err(CliError::from_display)?;
        if default_logical_bytes(&g) >= size {
            return Ok(g);
        }
    }
    Err(CliError::usage(format!(
        "--size {}: larger than every geometry preset can hold (the largest, paper-256g, holds {}); \
         ask for less",
        human(size),
        human(default_logical_bytes(&Geometry::paper_raw_gib(256)))
    )))
}

/// Creates and formats an image.
pub fn format(path: &Path, req: &FormatRequest) -> Result<Summary, CliError> {
    let g = choose_geometry(req)?;
    let kind = req.kind.unwrap_or(FtlKind::Scftl);
    let cap = default_logical_bytes(&g);
    let size = req.size.unwrap_or(cap);
    let ss = u64::from(g.sector_size);
    if size == 0 || size % ss != 0 {
        return Err(CliError::usage(format!(
            "--size {size}: must be a non-zero multiple of the {ss}-byte sector"
        )));
    }
    if size > cap {
        return Err(CliError::usage(format!(
            "--size {}: the {} geometry holds at most {}; pick a larger --geometry or omit it",
            human(size),
            req.geometry.as_deref().unwrap_or("chosen"),
            human(cap)
        )));
    }
    if path.exists() && !req.force {
        return Err(CliError::usage(format!(
            "{} already exists; pass --force (or remove it) to overwrite it",
            path.display()
        )));
    }
    JournalDisk::create(path, size)
        .map_err(|e| CliError::runtime(format!("{}: {e}", path.display())))?;
    Ok(Summary {
        path: path.to_path_buf(),
        kind,
        geometry: g,
        sector_size: g.sector_size as usize,
        logical_sectors: size / ss,
        config: vec![("write_bound".into(), INTERIM_WRITE_BOUND.to_string())],
    })
}

/// Opens an image and recovers it. `read_only` never writes to the file.
pub fn open(path: &Path, read_only: bool) -> Result<Opened, CliError> {
    open_with(path, read_only, 0)
}

/// Like [`open`]; `slow_sync_ms` makes each durability step of a flush
/// sleep that long (a test hook for killing the server mid-flush).
pub fn open_with(path: &Path, read_only: bool, slow_sync_ms: u64) -> Result<Opened, CliError> {
    if !path.exists() {
        return Err(CliError::runtime(format!(
            "{} does not exist; create it with `scftl format {}`",
            path.display(),
            path.display()
        )));
    }
    let mut dev = JournalDisk::open(path, INTERIM_WRITE_BOUND, read_only)
        .map_err(|e| CliError::runtime(format!("{}: {e}", path.display())))?;
    dev.slow_sync = std::time::Duration::from_millis(slow_sync_ms);
    let g = Geometry::medium();
    let summary = Summary {
        path: path.to_path_buf(),
        kind: FtlKind::Scftl,
        geometry: g,
        sector_size: dev.sector_size(),
        logical_sectors: dev.num_sectors(),
        config: vec![("write_bound".into(), INTERIM_WRITE_BOUND.to_string())],
    };
    Ok(Opened {
        device: Box::new(dev),
        summary,
    })
}
