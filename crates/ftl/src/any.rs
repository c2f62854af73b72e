//! `AnyFtl`: whichever FTL a device label names, behind one type, for the
//! frontends (CLI, NBD server) that open images without knowing their kind.

use flash::{Flash, Geometry};

use crate::async_ftl::{AsyncConfig, AsyncFtl};
use crate::device::{BlockDevice, DeviceStats, FtlError, FtlKind, Lba, Result};
use crate::label;
use crate::scftl::{Scftl, ScftlConfig};
use crate::sync_ftl::{SyncConfig, SyncFtl};

/// Optional overrides of an FTL's default configuration. Fields an FTL does
/// not have are refused with a clear error rather than ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormatOptions {
    /// Logical sectors the device exposes.
    pub logical_sectors: Option<u64>,
    /// SCFTL: W, sector updates per epoch.
    pub write_bound: Option<u32>,
    /// SCFTL: K, GC relocations per epoch.
    pub gc_bound: Option<u32>,
    /// SCFTL: U, GC threshold in used superblocks.
    pub gc_threshold: Option<u32>,
}

/// One of the three FTLs.
pub enum AnyFtl<F: Flash> {
    Scftl(Scftl<F>),
    Async(AsyncFtl<F>),
    Sync(SyncFtl<F>),
}

/// Builds the SCFTL configuration `opts` asks for on `g`: defaults for what
/// is not given, and for K and U (when not given) the smallest K and largest
/// U that pass [`ScftlConfig::validate`].
pub fn scftl_config(g: &Geometry, opts: &FormatOptions) -> Result<ScftlConfig> {
    let mut cfg = ScftlConfig::default_for(g);
    if let Some(l) = opts.logical_sectors {
        cfg.logical_sectors = l;
    }
    if let Some(w) = opts.write_bound {
        cfg.write_bound = w;
    }
    let custom = opts.logical_sectors.is_some() || opts.write_bound.is_some();
    match (opts.gc_bound, opts.gc_threshold) {
        (Some(k), Some(u)) => {
            cfg.gc_bound = k;
            cfg.gc_threshold = u;
        }
        (k, u) if custom || k.is_some() || u.is_some() => {
            let s = u64::from(g.dies()) * u64::from(g.sectors_per_block());
            let us: Vec<u32> = match u {
                Some(u) => vec![u],
                None => (1..g.blocks_per_die).rev().collect(),
            };
            let mut found = None;
            for u in us {
                let n = cfg.logical_sectors / u64::from(u.max(1));
                let k = match k {
                    Some(k) => k,
                    None if n < s => {
                        // Constraint (1) with the flush padding and the
                        // abandoned active superblock (SCFTL's (3)).
                        let need = u64::from(cfg.write_bound)
                            + u64::from(g.sectors_per_page - 1)
                            + (s - 1);
                        need.div_ceil(s - n).min(u64::from(u32::MAX)) as u32
                    }
                    None => continue,
                };
                let trial = ScftlConfig {
                    gc_bound: k,
                    gc_threshold: u,
                    ..cfg.clone()
                };
                if trial.validate(g).is_ok() {
                    found = Some(trial);
                    break;
                }
            }
            match found {
                Some(c) => cfg = c,
                None => {
                    // Report why the user's numbers cannot work.
                    if let Some(k) = k {
                        cfg.gc_bound = k;
                    }
                    if let Some(u) = u {
                        cfg.gc_threshold = u;
                    }
                    cfg.validate(g)?;
                    return Err(FtlError::BadConfig(format!(
                        "no GC bound K and threshold U satisfy the SCFTL constraints for {} logical sectors and W = {} on this geometry; lower the size or the write bound",
                        cfg.logical_sectors, cfg.write_bound
                    )));
                }
            }
        }
        _ => {}
    }
    cfg.validate(g)?;
    Ok(cfg)
}

/// Builds the async/sync configuration `opts` asks for on `g` (the two
/// baselines share one configuration type); epoch-bound options are refused.
pub fn baseline_config(g: &Geometry, kind: FtlKind, opts: &FormatOptions) -> Result<AsyncConfig> {
    for (name, set) in [
        ("--write-bound", opts.write_bound.is_some()),
        ("--gc-bound", opts.gc_bound.is_some()),
        ("--gc-threshold", opts.gc_threshold.is_some()),
    ] {
        if set {
            return Err(FtlError::BadConfig(format!(
                "{name} applies to scftl only; the {kind} FTL has no epoch bounds"
            )));
        }
    }
    let mut cfg = AsyncConfig::default_for(g);
    if let Some(l) = opts.logical_sectors {
        cfg.logical_sectors = l;
    }
    cfg.validate(g)?;
    Ok(cfg)
}

impl<F: Flash> AnyFtl<F> {
    /// Formats `flash` with the FTL `kind`, configured by `opts`.
    pub fn format(flash: F, kind: FtlKind, opts: &FormatOptions) -> Result<AnyFtl<F>> {
        let g = *flash.geometry();
        Ok(match kind {
            FtlKind::Scftl => AnyFtl::Scftl(Scftl::format(flash, scftl_config(&g, opts)?)?),
            FtlKind::Async => {
                AnyFtl::Async(AsyncFtl::format(flash, baseline_config(&g, kind, opts)?)?)
            }
            FtlKind::Sync => {
                let cfg: SyncConfig = baseline_config(&g, kind, opts)?;
                AnyFtl::Sync(SyncFtl::format(flash, cfg)?)
            }
        })
    }

    /// Opens (recovers) whatever FTL the device label names.
    pub fn open(mut flash: F) -> Result<AnyFtl<F>> {
        let (kind, _) = label::read_label(&mut flash)?;
        Ok(match kind {
            FtlKind::Scftl => AnyFtl::Scftl(Scftl::open(flash)?),
            FtlKind::Async => AnyFtl::Async(AsyncFtl::open(flash)?),
            FtlKind::Sync => AnyFtl::Sync(SyncFtl::open(flash)?),
        })
    }

    /// The FTL this device runs.
    pub fn kind(&self) -> FtlKind {
        match self {
            AnyFtl::Scftl(_) => FtlKind::Scftl,
            AnyFtl::Async(_) => FtlKind::Async,
            AnyFtl::Sync(_) => FtlKind::Sync,
        }
    }

    /// The configuration as (name, value) pairs, for `scftl info`.
    pub fn config_summary(&self) -> Vec<(String, String)> {
        let kv = |k: &str, v: String| (k.to_string(), v);
        match self {
            AnyFtl::Scftl(d) => {
                let c = d.config();
                vec![
                    kv("logical_sectors", c.logical_sectors.to_string()),
                    kv("write_bound", c.write_bound.to_string()),
                    kv("gc_bound", c.gc_bound.to_string()),
                    kv("gc_threshold", c.gc_threshold.to_string()),
                    kv(
                        "checkpoint_slot_superblocks",
                        c.checkpoint_slot_superblocks.to_string(),
                    ),
                    kv(
                        "delta_region_superblocks",
                        c.delta_region_superblocks.to_string(),
                    ),
                ]
            }
            AnyFtl::Async(d) => log_summary(d.config()),
            AnyFtl::Sync(d) => log_summary(d.config()),
        }
    }

    /// Gives the flash device back.
    pub fn into_flash(self) -> F {
        match self {
            AnyFtl::Scftl(d) => d.into_flash(),
            AnyFtl::Async(d) => d.into_flash(),
            AnyFtl::Sync(d) => d.into_flash(),
        }
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match self {
            AnyFtl::Scftl(d) => d,
            AnyFtl::Async(d) => d,
            AnyFtl::Sync(d) => d,
        }
    }

    fn dev_ref(&self) -> &dyn BlockDevice {
        match self {
            AnyFtl::Scftl(d) => d,
            AnyFtl::Async(d) => d,
            AnyFtl::Sync(d) => d,
        }
    }
}

fn log_summary(c: &AsyncConfig) -> Vec<(String, String)> {
    vec![
        ("logical_sectors".to_string(), c.logical_sectors.to_string()),
        ("stripe_dies".to_string(), c.stripe_dies.to_string()),
        (
            "gc_low_free_segments".to_string(),
            c.gc_low_free_segments.to_string(),
        ),
        (
            "gc_high_free_segments".to_string(),
            c.gc_high_free_segments.to_string(),
        ),
    ]
}

impl<F: Flash> BlockDevice for AnyFtl<F> {
    fn sector_size(&self) -> usize {
        self.dev_ref().sector_size()
    }
    fn num_sectors(&self) -> u64 {
        self.dev_ref().num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        self.dev().read(lba, buf)
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        self.dev().write(lba, data)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        self.dev().trim(lba, count)
    }
    fn flush(&mut self) -> Result<()> {
        self.dev().flush()
    }
    fn epoch_remaining(&self) -> Option<u64> {
        self.dev_ref().epoch_remaining()
    }
    fn stats(&self) -> DeviceStats {
        self.dev_ref().stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        self.dev().check_invariants()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::MemFlash;

    #[test]
    fn every_kind_formats_and_reopens_through_the_label() {
        for kind in FtlKind::ALL {
            let g = Geometry::small();
            let mut d =
                AnyFtl::format(MemFlash::new(g).unwrap(), kind, &FormatOptions::default()).unwrap();
            assert_eq!(d.kind(), kind);
            let ss = d.sector_size();
            d.write(Lba(3), &vec![7u8; ss]).unwrap();
            d.flush().unwrap();
            let mut d = AnyFtl::open(d.into_flash()).unwrap();
            assert_eq!(d.kind(), kind);
            let mut buf = vec![0u8; ss];
            d.read(Lba(3), &mut buf).unwrap();
            assert!(buf.iter().all(|&b| b == 7), "{kind}");
            assert!(!d.config_summary().is_empty());
        }
    }

    #[test]
    fn custom_size_and_bound_fit_k_and_u() {
        let g = Geometry::small();
        let def = ScftlConfig::default_for(&g);
        let opts = FormatOptions {
            logical_sectors: Some(def.logical_sectors / 2),
            write_bound: Some(def.write_bound / 2),
            ..Default::default()
        };
        let cfg = scftl_config(&g, &opts).unwrap();
        assert_eq!(cfg.logical_sectors, def.logical_sectors / 2);
        cfg.validate(&g).unwrap();
        let too_big = FormatOptions {
            logical_sectors: Some(g.total_sectors()),
            ..Default::default()
        };
        assert!(matches!(
            scftl_config(&g, &too_big),
            Err(FtlError::BadConfig(_))
        ));
        let bounds_on_async = FormatOptions {
            write_bound: Some(10),
            ..Default::default()
        };
        let e = AnyFtl::format(MemFlash::new(g).unwrap(), FtlKind::Async, &bounds_on_async)
            .err()
            .unwrap();
        assert!(e.to_string().contains("scftl only"), "{e}");
    }

    #[test]
    fn open_of_blank_device_says_not_formatted() {
        let e = AnyFtl::open(MemFlash::new(Geometry::tiny()).unwrap())
            .err()
            .unwrap();
        assert!(matches!(e, FtlError::NotFormatted));
    }
}
