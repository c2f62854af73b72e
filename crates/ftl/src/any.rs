//! `AnyFtl`: whichever FTL a device label names, behind one type, for the
//! frontends (CLI, NBD server) that open images without knowing their kind.

use flash::{Flash, Geometry};

use crate::async_ftl::{AsyncConfig, AsyncFtl};
use crate::device::{
    BlockDevice, DeviceStats, FlushStep, FlushTicket, FtlError, FtlKind, Lba, Result,
};
use crate::label;
use crate::optr::{Optr, OptrConfig};
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
    /// SCFTL: write streams, 1 or 2 (hot/cold separation). Default: 2
    /// where the device affords the second stream at the size asked for,
    /// else 1.
    pub gc_streams: Option<u32>,
    /// SCFTL: superblocks of the delta region. Default: the fewest that
    /// hold four full checkpoints' pages, at most 1/32 of the device
    /// (`scftl::config::default_delta_superblocks`).
    pub delta_region_superblocks: Option<u32>,
}

/// One of the four FTLs.
pub enum AnyFtl<F: Flash> {
    Scftl(Scftl<F>),
    Async(AsyncFtl<F>),
    Sync(SyncFtl<F>),
    /// Boxed: OPTR's state (cache, checkpoint bookkeeping) is the largest.
    Optr(Box<Optr<F>>),
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
    if let Some(t) = opts.gc_streams {
        cfg.gc_streams = t;
    }
    if let Some(d) = opts.delta_region_superblocks {
        cfg.delta_region_superblocks = d;
    }
    let custom = opts.logical_sectors.is_some()
        || opts.write_bound.is_some()
        || opts.gc_streams.is_some()
        || opts.delta_region_superblocks.is_some();
    // Not asked for: two streams where they fit the rest, else one (so a
    // size or bound that fits one stream is not refused for the second).
    if opts.gc_streams.is_none() && custom {
        cfg.gc_streams = 2;
        if cfg.fit_k_u(g, opts.gc_bound, opts.gc_threshold).is_none() {
            cfg.gc_streams = 1;
        }
    }
    match (opts.gc_bound, opts.gc_threshold) {
        (Some(k), Some(u)) => {
            cfg.gc_bound = k;
            cfg.gc_threshold = u;
        }
        (k, u) if custom || k.is_some() || u.is_some() => match cfg.fit_k_u(g, k, u) {
            Some((k, u)) => {
                cfg.gc_bound = k;
                cfg.gc_threshold = u;
            }
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
                    "no GC bound K and threshold U satisfy the SCFTL constraints for {} logical sectors, W = {} and a delta region of {} superblock(s) on this geometry; lower the size, the write bound or the delta region",
                    cfg.logical_sectors, cfg.write_bound, cfg.delta_region_superblocks
                )));
            }
        },
        _ => {}
    }
    cfg.validate(g)?;
    Ok(cfg)
}

/// Refuses the options `kind` has nothing to apply to, each with the
/// reason: W, K and U bound SCFTL's epochs, the delta region is SCFTL's
/// (the baselines and OPTR keep no delta region), and OPTR writes one log
/// (`streams`: whether the stream count is refused too).
fn refuse_scftl_only(kind: FtlKind, opts: &FormatOptions, streams: bool) -> Result<()> {
    let no_epochs = "has no epoch bounds";
    for (name, set, why) in [
        ("the write bound (W)", opts.write_bound.is_some(), no_epochs),
        ("the GC bound (K)", opts.gc_bound.is_some(), no_epochs),
        (
            "the GC threshold (U)",
            opts.gc_threshold.is_some(),
            no_epochs,
        ),
        (
            "the write-stream count",
            streams && opts.gc_streams.is_some(),
            "writes one log",
        ),
        (
            "the delta region's size",
            opts.delta_region_superblocks.is_some(),
            "keeps no delta region",
        ),
    ] {
        if set {
            return Err(FtlError::BadConfig(format!(
                "{name} applies to scftl only; the {kind} FTL {why}"
            )));
        }
    }
    Ok(())
}

/// Builds the async/sync configuration `opts` asks for on `g` (the two
/// baselines share one configuration type); epoch-bound options are refused.
/// Messages name the options by concept; a frontend adds its own spelling.
pub fn baseline_config(g: &Geometry, kind: FtlKind, opts: &FormatOptions) -> Result<AsyncConfig> {
    refuse_scftl_only(kind, opts, false)?;
    let mut cfg = AsyncConfig::default_for(g);
    if let Some(t) = opts.gc_streams {
        // Two streams reserve two more segments (config.rs): the default
        // size shrinks to fit them.
        cfg = cfg.with_streams(t);
        if let Ok(max) = cfg.max_logical_sectors(g) {
            cfg.logical_sectors = cfg.logical_sectors.min(max).max(1);
        }
    }
    if let Some(l) = opts.logical_sectors {
        cfg.logical_sectors = l;
    }
    cfg.validate(g)?;
    Ok(cfg)
}

/// Builds the OPTR configuration `opts` asks for on `g` (its defaults for
/// what is not given); epoch-bound options are refused.
pub fn optr_config(g: &Geometry, opts: &FormatOptions) -> Result<OptrConfig> {
    refuse_scftl_only(FtlKind::Optr, opts, true)?;
    let mut cfg = OptrConfig::default_for(g);
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
        let mut d = match kind {
            FtlKind::Scftl => AnyFtl::Scftl(Scftl::format(flash, scftl_config(&g, opts)?)?),
            FtlKind::Async => {
                AnyFtl::Async(AsyncFtl::format(flash, baseline_config(&g, kind, opts)?)?)
            }
            FtlKind::Sync => {
                let cfg: SyncConfig = baseline_config(&g, kind, opts)?;
                AnyFtl::Sync(SyncFtl::format(flash, cfg)?)
            }
            FtlKind::Optr => AnyFtl::Optr(Box::new(Optr::format(flash, optr_config(&g, opts)?)?)),
        };
        d.flash_mut().submit()?;
        Ok(d)
    }

    /// Opens (recovers) whatever FTL the device label names.
    pub fn open(mut flash: F) -> Result<AnyFtl<F>> {
        let (kind, _) = label::read_label(&mut flash)?;
        let mut d = match kind {
            FtlKind::Scftl => AnyFtl::Scftl(Scftl::open(flash)?),
            FtlKind::Async => AnyFtl::Async(AsyncFtl::open(flash)?),
            FtlKind::Sync => AnyFtl::Sync(SyncFtl::open(flash)?),
            FtlKind::Optr => AnyFtl::Optr(Box::new(Optr::open(flash)?)),
        };
        // Recovery may have programmed (a checkpoint, a repaired page).
        d.flash_mut().submit()?;
        Ok(d)
    }

    /// The FTL this device runs.
    pub fn kind(&self) -> FtlKind {
        match self {
            AnyFtl::Scftl(_) => FtlKind::Scftl,
            AnyFtl::Async(_) => FtlKind::Async,
            AnyFtl::Sync(_) => FtlKind::Sync,
            AnyFtl::Optr(_) => FtlKind::Optr,
        }
    }

    /// The configuration as (name, value) pairs, for `scftl info`. Every
    /// value is a count, kept as a number so that JSON shows it as one.
    pub fn config_summary(&self) -> Vec<(&'static str, u64)> {
        match self {
            AnyFtl::Scftl(d) => {
                let c = d.config();
                vec![
                    ("config_version", d.features().version.into()),
                    ("logical_sectors", c.logical_sectors),
                    ("write_bound", c.write_bound.into()),
                    ("gc_bound", c.gc_bound.into()),
                    ("gc_threshold", c.gc_threshold.into()),
                    ("gc_streams", c.gc_streams.into()),
                    (
                        "checkpoint_slot_superblocks",
                        c.checkpoint_slot_superblocks.into(),
                    ),
                    (
                        "delta_region_superblocks",
                        c.delta_region_superblocks.into(),
                    ),
                ]
            }
            AnyFtl::Async(d) => log_summary(d.config()),
            AnyFtl::Sync(d) => log_summary(d.config()),
            AnyFtl::Optr(d) => {
                let c = d.config();
                vec![
                    ("logical_sectors", c.logical_sectors),
                    ("stripe_dies", c.stripe_dies.into()),
                    ("cache_bytes", c.cache_bytes),
                    ("max_request_sectors", c.max_request_sectors.into()),
                    ("gc_batch_segments", c.gc_batch_segments.into()),
                    (
                        "checkpoint_interval_segments",
                        c.checkpoint_interval_segments.into(),
                    ),
                    ("incremental_segments", c.incremental_segments.into()),
                ]
            }
        }
    }

    /// Gives the flash device back.
    pub fn into_flash(self) -> F {
        match self {
            AnyFtl::Scftl(d) => d.into_flash(),
            AnyFtl::Async(d) => d.into_flash(),
            AnyFtl::Sync(d) => d.into_flash(),
            AnyFtl::Optr(d) => d.into_flash(),
        }
    }

    /// The flash device.
    fn flash_mut(&mut self) -> &mut F {
        match self {
            AnyFtl::Scftl(d) => d.flash_mut(),
            AnyFtl::Async(d) => d.flash_mut(),
            AnyFtl::Sync(d) => d.flash_mut(),
            AnyFtl::Optr(d) => d.flash_mut(),
        }
    }

    /// Ends a request that may have programmed pages: hands what the flash
    /// gathered to its medium ([`Flash::submit`]) whatever the request's
    /// outcome, so a frontend killed after answering loses no acknowledged
    /// write (on an image: the programs are in the operating system's
    /// hands, not this process's). The request's own error wins.
    fn end_request<T>(&mut self, r: Result<T>) -> Result<T> {
        let submitted = self.flash_mut().submit();
        let v = r?;
        submitted?;
        Ok(v)
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match self {
            AnyFtl::Scftl(d) => d,
            AnyFtl::Async(d) => d,
            AnyFtl::Sync(d) => d,
            AnyFtl::Optr(d) => &mut **d,
        }
    }

    fn dev_ref(&self) -> &dyn BlockDevice {
        match self {
            AnyFtl::Scftl(d) => d,
            AnyFtl::Async(d) => d,
            AnyFtl::Sync(d) => d,
            AnyFtl::Optr(d) => &**d,
        }
    }
}

fn log_summary(c: &AsyncConfig) -> Vec<(&'static str, u64)> {
    vec![
        ("logical_sectors", c.logical_sectors),
        ("stripe_dies", c.stripe_dies.into()),
        ("gc_low_free_segments", c.gc_low_free_segments.into()),
        ("gc_high_free_segments", c.gc_high_free_segments.into()),
        ("streams", c.streams.into()),
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
        let r = self.dev().write(lba, data);
        self.end_request(r)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        let r = self.dev().trim(lba, count);
        self.end_request(r)
    }
    fn flush(&mut self) -> Result<()> {
        let r = self.dev().flush();
        self.end_request(r)
    }
    fn epoch_barrier(&mut self) -> Result<()> {
        let r = self.dev().epoch_barrier();
        self.end_request(r)
    }
    fn read_shared(&self, lba: Lba, buf: &mut [u8]) -> Option<Result<()>> {
        self.dev_ref().read_shared(lba, buf)
    }
    fn allocation(&self, lba: Lba, count: u64) -> Option<Result<Vec<(u64, bool)>>> {
        self.dev_ref().allocation(lba, count)
    }
    fn begin_flush(&mut self) -> Result<FlushStep> {
        let r = self.dev().begin_flush();
        self.end_request(r)
    }
    fn finish_flush(&mut self, ticket: FlushTicket, waited: Result<()>) -> Result<()> {
        let r = self.dev().finish_flush(ticket, waited);
        self.end_request(r)
    }
    fn begin_sync_behind(&mut self) -> Result<Option<FlushTicket>> {
        let r = self.dev().begin_sync_behind();
        self.end_request(r)
    }
    fn detach_submits(&mut self) -> bool {
        self.flash_mut().detach_submits()
    }
    fn take_detached(&mut self) -> Option<flash::DetachedWrite> {
        self.flash_mut().take_detached()
    }
    fn epoch_remaining(&self) -> Option<u64> {
        self.dev_ref().epoch_remaining()
    }
    fn max_request_sectors(&self) -> Option<u64> {
        self.dev_ref().max_request_sectors()
    }
    fn set_wear_policy(&mut self, policy: crate::WearPolicy) -> Result<()> {
        self.dev().set_wear_policy(policy)
    }
    fn stats(&self) -> DeviceStats {
        self.dev_ref().stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        self.dev().check_invariants()
    }
    fn refine_view(&self) -> Option<crate::refine::RefineView> {
        self.dev_ref().refine_view()
    }
    fn refine_checkpoints(
        &mut self,
    ) -> Option<crate::device::Result<crate::refine::CheckpointView>> {
        self.dev().refine_checkpoints()
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
        // Two write streams where they fit what was asked for, else one;
        // asked for explicitly, they must fit.
        assert_eq!(def.gc_streams, 1, "small's default size affords one");
        assert_eq!(cfg.gc_streams, 2, "half the size affords two");
        let two = FormatOptions {
            gc_streams: Some(2),
            ..Default::default()
        };
        assert!(matches!(
            scftl_config(&g, &two),
            Err(FtlError::BadConfig(_))
        ));
        let one = FormatOptions {
            logical_sectors: Some(def.logical_sectors / 2),
            gc_streams: Some(1),
            ..Default::default()
        };
        assert_eq!(scftl_config(&g, &one).unwrap().gc_streams, 1);
        let streams_on_optr = FormatOptions {
            gc_streams: Some(2),
            ..Default::default()
        };
        let e = optr_config(&g, &streams_on_optr).unwrap_err().to_string();
        assert!(e.contains("write-stream count"), "{e}");
        let bounds_on_async = FormatOptions {
            write_bound: Some(10),
            ..Default::default()
        };
        let e = AnyFtl::format(MemFlash::new(g).unwrap(), FtlKind::Async, &bounds_on_async)
            .err()
            .unwrap();
        assert!(e.to_string().contains("scftl only"), "{e}");
        assert!(e.to_string().contains("write bound (W)"), "{e}");
        assert!(!e.to_string().contains("--"), "names no CLI flag: {e}");
        // The delta region's size: taken as asked, K and U refitted around
        // it; refused where it leaves the constraints no K and U, and on
        // the FTLs that have none.
        let region = |d: u32| FormatOptions {
            logical_sectors: Some(def.logical_sectors / 2),
            delta_region_superblocks: Some(d),
            ..Default::default()
        };
        let one = scftl_config(&g, &region(1)).unwrap();
        let three = scftl_config(&g, &region(3)).unwrap();
        assert_eq!(
            (one.delta_region_superblocks, three.delta_region_superblocks),
            (1, 3)
        );
        let same = scftl_config(
            &g,
            &FormatOptions {
                logical_sectors: Some(def.logical_sectors / 2),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            (one.gc_bound, one.gc_threshold),
            (same.gc_bound, same.gc_threshold),
            "1 is small's default"
        );
        assert!(three.gc_threshold < one.gc_threshold);
        three.validate(&g).unwrap();
        let e = scftl_config(&g, &region(g.blocks_per_die))
            .unwrap_err()
            .to_string();
        assert!(e.contains("delta region"), "{e}");
        for kind in [FtlKind::Async, FtlKind::Optr] {
            let e = AnyFtl::format(MemFlash::new(g).unwrap(), kind, &region(2))
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains("delta region's size"), "{kind}: {e}");
            // The reason given is the one that applies (not the epoch bounds).
            assert!(e.contains("keeps no delta region"), "{kind}: {e}");
        }
        let e = AnyFtl::format(
            MemFlash::new(g).unwrap(),
            FtlKind::Sync,
            &FormatOptions {
                write_bound: Some(8),
                ..FormatOptions::default()
            },
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("write bound") && e.contains("no epoch bounds"),
            "{e}"
        );
    }

    #[test]
    fn open_of_blank_device_says_not_formatted() {
        let e = AnyFtl::open(MemFlash::new(Geometry::tiny()).unwrap())
            .err()
            .unwrap();
        assert!(matches!(e, FtlError::NotFormatted));
    }

    /// What `k_and_u_fitting_is_pinned` finds, line by line.
    const PINNED_FITS: [&str; 77] = [
        "tiny default 79 16 3 5 t=1",
        "tiny Some(39) None None None -> 39 16 2 6 t=1",
        "tiny None Some(8) None None -> 79 8 3 5 t=1",
        "tiny None Some(64) None None -> refused",
        "tiny Some(26) Some(32) None None -> 26 32 3 5 t=1",
        "tiny None None Some(4) None -> 79 16 4 4 t=1",
        "tiny None None None Some(2) -> refused",
        "tiny None None None Some(4) -> 79 16 4 4 t=1",
        "tiny None None Some(3) Some(5) -> 79 16 3 5 t=1",
        "tiny None Some(64) None None -> refused",
        "tiny Some(71) Some(8) None None -> 71 8 2 6 t=1",
        "small default 8192 256 5 23 t=1",
        "small Some(4096) None None None -> 4096 256 6 22 t=2",
        "small None Some(128) None None -> 8192 128 4 24 t=1",
        "small None Some(64) None None -> 8192 64 4 24 t=1",
        "small Some(2730) Some(512) None None -> 2730 512 6 22 t=2",
        "small None None Some(6) None -> 8192 256 6 22 t=1",
        "small None None None Some(11) -> refused",
        "small None None None Some(22) -> 8192 256 6 22 t=1",
        "small None None Some(5) Some(23) -> 8192 256 5 23 t=1",
        "small None Some(1024) None None -> refused",
        "small Some(7372) Some(8) None None -> 7372 8 3 25 t=1",
        "medium default 131072 3584 12 48 t=2",
        "medium Some(65536) None None None -> 65536 3584 6 54 t=2",
        "medium None Some(1792) None None -> 131072 1792 10 50 t=2",
        "medium None Some(64) None None -> 131072 64 8 52 t=2",
        "medium Some(43690) Some(7168) None None -> 43690 7168 6 54 t=2",
        "medium None None Some(13) None -> 131072 3584 13 47 t=2",
        "medium None None None Some(24) -> refused",
        "medium None None None Some(47) -> 131072 3584 13 47 t=2",
        "medium None None Some(12) Some(48) -> 131072 3584 12 48 t=2",
        "medium None Some(14336) None None -> refused",
        "medium Some(117964) Some(8) None None -> 117964 8 7 53 t=2",
        "paper default 1048576 31744 15 237 t=2",
        "paper Some(524288) None None None -> 524288 31744 10 242 t=2",
        "paper None Some(15872) None None -> 1048576 15872 11 241 t=2",
        "paper None Some(64) None None -> 1048576 64 7 245 t=2",
        "paper Some(349525) Some(63488) None None -> 349525 63488 14 238 t=2",
        "paper None None Some(16) None -> 1048576 31744 16 236 t=2",
        "paper None None None Some(118) -> refused",
        "paper None None None Some(236) -> 1048576 31744 16 236 t=2",
        "paper None None Some(15) Some(237) -> 1048576 31744 15 237 t=2",
        "paper None Some(126976) None None -> 1048576 126976 51 201 t=2",
        "paper Some(943718) Some(8) None None -> 943718 8 6 246 t=2",
        "paper-64g default 8388608 65536 23 2015 t=2",
        "paper-64g Some(4194304) None None None -> 4194304 65536 15 2023 t=2",
        "paper-64g None Some(32768) None None -> 8388608 32768 15 2023 t=2",
        "paper-64g None Some(64) None None -> 8388608 64 7 2031 t=2",
        "paper-64g Some(2796202) Some(131072) None None -> 2796202 131072 23 2015 t=2",
        "paper-64g None None Some(24) None -> 8388608 65536 24 2014 t=2",
        "paper-64g None None None Some(1007) -> refused",
        "paper-64g None None None Some(2014) -> 8388608 65536 23 2014 t=2",
        "paper-64g None None Some(23) Some(2015) -> 8388608 65536 23 2015 t=2",
        "paper-64g None Some(262144) None None -> 8388608 262144 74 1964 t=2",
        "paper-64g Some(7549747) Some(8) None None -> 7549747 8 6 2032 t=2",
        "one-die default 140 16 3 9 t=1",
        "one-die Some(70) None None None -> 70 16 2 10 t=1",
        "one-die None Some(8) None None -> 140 8 3 9 t=1",
        "one-die None Some(64) None None -> refused",
        "one-die Some(46) Some(32) None None -> 46 32 3 9 t=1",
        "one-die None None Some(4) None -> refused",
        "one-die None None None Some(4) -> refused",
        "one-die None None None Some(8) -> refused",
        "one-die None None Some(3) Some(9) -> 140 16 3 9 t=1",
        "one-die None Some(64) None None -> refused",
        "one-die Some(126) Some(8) None None -> 126 8 3 9 t=1",
        "small-pages default 160 16 4 8 t=1",
        "small-pages Some(80) None None None -> 80 16 6 6 t=2",
        "small-pages None Some(8) None None -> 160 8 3 9 t=1",
        "small-pages None Some(64) None None -> refused",
        "small-pages Some(53) Some(32) None None -> 53 32 6 6 t=2",
        "small-pages None None Some(5) None -> 160 16 5 7 t=1",
        "small-pages None None None Some(4) -> refused",
        "small-pages None None None Some(7) -> 160 16 5 7 t=1",
        "small-pages None None Some(4) Some(8) -> 160 16 4 8 t=1",
        "small-pages None Some(64) None None -> refused",
        "small-pages Some(144) Some(8) None None -> 144 8 3 9 t=1",
    ];

    /// The K/U fitting of `scftl_config` and `ScftlConfig::default_for`,
    /// pinned over several geometries, sizes and bounds, so a change to the
    /// search shows up as a changed line.
    #[test]
    fn k_and_u_fitting_is_pinned() {
        // (one-die has 16 B of OOB per 512 B sector, the usual NAND ratio;
        // format version 5 needs 10 B per sector plus 8 for a page of 4.)
        let custom = [
            ("one-die", Geometry::new(1, 1, 16, 8, 4, 512, 64).unwrap()),
            (
                "small-pages",
                Geometry::new(2, 1, 16, 16, 1, 256, 16).unwrap(),
            ),
        ];
        let presets = ["tiny", "small", "medium", "paper", "paper-64g"]
            .map(|n| (n, Geometry::preset(n).unwrap()));
        let mut got = Vec::new();
        for (name, g) in presets.into_iter().chain(custom) {
            let d = ScftlConfig::default_for(&g);
            let (l, w, k, u) = (d.logical_sectors, d.write_bound, d.gc_bound, d.gc_threshold);
            got.push(format!("{name} default {l} {w} {k} {u} t={}", d.gc_streams));
            for (l, w, k, u) in [
                (Some(l / 2), None, None, None),
                (None, Some(w / 2), None, None),
                (None, Some(64), None, None),
                (Some(l / 3), Some(w * 2), None, None),
                (None, None, Some(k + 1), None),
                (None, None, None, Some(u / 2)),
                (None, None, None, Some(u - 1)),
                (None, None, Some(k), Some(u)),
                (None, Some(w * 4), None, None),
                (Some(l * 9 / 10), Some(8), None, None),
            ] {
                let opts = FormatOptions {
                    logical_sectors: l,
                    write_bound: w,
                    gc_bound: k,
                    gc_threshold: u,
                    gc_streams: None,
                    delta_region_superblocks: None,
                };
                let out = match scftl_config(&g, &opts) {
                    Ok(c) => format!(
                        "{} {} {} {} t={}",
                        c.logical_sectors, c.write_bound, c.gc_bound, c.gc_threshold, c.gc_streams
                    ),
                    Err(_) => "refused".to_string(),
                };
                got.push(format!("{name} {l:?} {w:?} {k:?} {u:?} -> {out}"));
            }
        }
        if std::env::var_os("PRINT_FITS").is_some() {
            for l in &got {
                println!("FIT {l}");
            }
        }
        assert_eq!(got, PINNED_FITS);
    }
}
