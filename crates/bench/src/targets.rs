//! The FTLs under test, behind one interface: how to format and open each
//! one on a given flash device, which blocks it keeps metadata in (so
//! `DatalessFlash` stores those in full), its configuration for the report
//! header, and what its in-memory tables cost.
//!
//! Fairness: every FTL exposes the same number of logical sectors on a
//! geometry — SCFTL's default L — so all see the same over-provisioning.

use flash::{Flash, Geometry};
use ftl::async_ftl::AsyncFtl;
use ftl::logstruct::LogConfig;
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::sync_ftl::SyncFtl;
use ftl::{BlockDevice, FtlKind};

use crate::workload::BResult;

/// A boxed flash device, as every FTL under test sees it.
pub type DynFlash = Box<dyn Flash>;
/// A boxed block device.
pub type DynDev = Box<dyn BlockDevice>;

/// How to build and describe one FTL.
pub trait Factory {
    fn kind(&self) -> FtlKind;
    /// Logical sectors the device exposes on this geometry.
    fn logical_sectors(&self) -> u64;
    /// Erase blocks that must be stored in full.
    fn metadata_blocks(&self) -> Vec<u32>;
    /// One line for the report header (W, K, U, region sizes, ...).
    fn describe(&self) -> String;
    fn format(&self, flash: DynFlash) -> BResult<DynDev>;
    fn open(&self, flash: DynFlash) -> BResult<DynDev>;
    /// Bytes of the FTL's per-sector tables per logical sector, and how the
    /// number was obtained.
    fn ram_bytes_per_sector(&self) -> (f64, String);
}

/// The factory of `kind` on geometry `g`.
pub fn factory(kind: FtlKind, g: &Geometry) -> BResult<Box<dyn Factory>> {
    // The paper's W (2048), so the simulated runs reproduce its evaluation.
    let sc = ScftlConfig::paper_for(g);
    sc.validate(g)
        .map_err(|e| format!("SCFTL default configuration on {g}: {e}"))?;
    match kind {
        FtlKind::Scftl => Ok(Box::new(ScftlFactory { g: *g, config: sc })),
        FtlKind::Async | FtlKind::Sync => {
            let mut config = LogConfig::default_for(g);
            let max = config
                .max_logical_sectors(g)
                .map_err(|e| format!("{kind} on {g}: {e}"))?;
            config.logical_sectors = sc.logical_sectors.min(max);
            config
                .validate(g)
                .map_err(|e| format!("{kind} configuration on {g}: {e}"))?;
            Ok(Box::new(LogFactory {
                kind,
                g: *g,
                config,
            }))
        }
        FtlKind::Optr => Err(format!(
            "optr is not supported by the benchmarks yet (issue 12, deliverable 4); geometry {g}"
        )),
    }
}

/// SCFTL with its default configuration for the geometry.
pub struct ScftlFactory {
    pub g: Geometry,
    pub config: ScftlConfig,
}

impl ScftlFactory {
    /// Pages of the delta region.
    pub fn delta_capacity_pages(&self) -> u64 {
        u64::from(self.config.delta_region_superblocks)
            * u64::from(self.g.dies())
            * u64::from(self.g.pages_per_block)
    }

    /// Most delta pages one epoch can write (the FTL's own derivation,
    /// `ScftlConfig::epoch_pages_max`). A flush takes a full checkpoint when
    /// fewer pages than this remain, so at most `capacity - epoch_pages_max`
    /// delta pages are ever present after a flush.
    pub fn epoch_pages_max(&self) -> u64 {
        self.config.epoch_pages_max(&self.g)
    }
}

impl Factory for ScftlFactory {
    fn kind(&self) -> FtlKind {
        FtlKind::Scftl
    }
    fn logical_sectors(&self) -> u64 {
        self.config.logical_sectors
    }
    fn metadata_blocks(&self) -> Vec<u32> {
        Scftl::<DynFlash>::metadata_blocks(&self.g, &self.config)
            .into_iter()
            .map(|b| b.0)
            .collect()
    }
    fn describe(&self) -> String {
        let c = &self.config;
        format!(
            "scftl: L = {} sectors, W = {}, K = {}, U = {}, checkpoint slot = {} superblocks, delta region = {} superblocks ({} pages, {} MiB)",
            c.logical_sectors,
            c.write_bound,
            c.gc_bound,
            c.gc_threshold,
            c.checkpoint_slot_superblocks,
            c.delta_region_superblocks,
            self.delta_capacity_pages(),
            (self.delta_capacity_pages() * self.g.page_size() as u64) >> 20
        )
    }
    fn format(&self, flash: DynFlash) -> BResult<DynDev> {
        Scftl::format(flash, self.config.clone())
            .map(|d| Box::new(d) as DynDev)
            .map_err(|e| format!("scftl format: {e}"))
    }
    fn open(&self, flash: DynFlash) -> BResult<DynDev> {
        Scftl::open(flash)
            .map(|d| Box::new(d) as DynDev)
            .map_err(|e| format!("scftl open: {e}"))
    }
    fn ram_bytes_per_sector(&self) -> (f64, String) {
        // Scftl keeps l2p: Vec<u32> (one per logical sector) and p2l:
        // Vec<u32> (one per physical sector of the device's superblocks);
        // everything else is per superblock or a few pages.
        let l = self.config.logical_sectors as f64;
        let phys = self.g.total_sectors() as f64;
        let per_sb = 64.0 * f64::from(self.g.blocks_per_die);
        let pages = 4.0 * self.g.page_size() as f64;
        (
            (4.0 * l + 4.0 * phys + per_sb + pages) / l,
            "formula: 4 B L2P per logical + 4 B P2L per physical sector + per-superblock tables + 4 page buffers".into(),
        )
    }
}

/// The async or sync baseline (one log-structured engine, two modes), with
/// its default configuration but SCFTL's logical size.
pub struct LogFactory {
    pub kind: FtlKind,
    pub g: Geometry,
    pub config: LogConfig,
}

impl Factory for LogFactory {
    fn kind(&self) -> FtlKind {
        self.kind
    }
    fn logical_sectors(&self) -> u64 {
        self.config.logical_sectors
    }
    fn metadata_blocks(&self) -> Vec<u32> {
        // Segment 0 holds the label (in its first erase block); data pages
        // carry their metadata in the OOB, which DatalessFlash keeps.
        (0..self.config.stripe_dies)
            .map(|d| self.g.block_on_die(d, 0).0)
            .collect()
    }
    fn describe(&self) -> String {
        let c = &self.config;
        format!(
            "{}: L = {} sectors, segments of {} erase blocks (one per die), GC from {} to {} free segments, no epoch bound{}",
            self.kind,
            c.logical_sectors,
            c.stripe_dies,
            c.gc_low_free_segments,
            c.gc_high_free_segments,
            if self.kind == FtlKind::Sync {
                ", every flash command synced, merge buffer in battery-backed RAM"
            } else {
                ""
            }
        )
    }
    fn format(&self, flash: DynFlash) -> BResult<DynDev> {
        let c = self.config.clone();
        match self.kind {
            FtlKind::Sync => SyncFtl::format(flash, c).map(|d| Box::new(d) as DynDev),
            _ => AsyncFtl::format(flash, c).map(|d| Box::new(d) as DynDev),
        }
        .map_err(|e| format!("{} format: {e}", self.kind))
    }
    fn open(&self, flash: DynFlash) -> BResult<DynDev> {
        match self.kind {
            FtlKind::Sync => SyncFtl::open(flash).map(|d| Box::new(d) as DynDev),
            _ => AsyncFtl::open(flash).map(|d| Box::new(d) as DynDev),
        }
        .map_err(|e| format!("{} open: {e}", self.kind))
    }
    fn ram_bytes_per_sector(&self) -> (f64, String) {
        // The engine keeps l2p and copies (u32 per logical sector), p2l (u32
        // per physical sector) and a dirty bitmap (1 bit per logical sector).
        let l = self.config.logical_sectors as f64;
        let phys = self.g.total_sectors() as f64;
        (
            (8.0 * l + 4.0 * phys + l / 8.0 + 4.0 * self.g.page_size() as f64) / l,
            "formula: 4 B L2P + 4 B copy count + 1 bit dirty per logical sector, 4 B P2L per physical sector, page buffers".into(),
        )
    }
}
