//! Configuration of the OPTR FTL, stored in the device label
//! (docs/FORMAT.md §8.1), and the space plan derived from it.
//!
//! Invariants (checked by [`OptrConfig::validate`]):
//! - the layout is valid (`stripe_dies` divides the dies), a clue fits the
//!   spare area of each sector, and a sector holds a trim record and at
//!   least one coalescing record;
//! - `1 <= max_request_sectors <= 65535` (the clue's `size` field), and the
//!   cache holds at least one sector;
//! - a full checkpoint (the L2P pages plus the seal) fits one slot, and
//!   the two slots and the incremental-checkpoint region leave data
//!   segments (a checkpoint whose diff does not fit the rest of the region
//!   is taken full, so the region needs no minimum size);
//! - `logical_sectors` leaves GC room: at every request start at least
//!   [`Plan::headroom_segments`] segments are free (enough for the largest
//!   request, an internal flush of the whole cache, the coalescing and trim
//!   records and padding), and while GC needs space some collectable segment
//!   has at least a page of stale sectors.

use flash::Geometry;

use super::clue::CLUE_SIZE;
use super::coalesce::RECORDS_OFFSET;
use crate::codec::{self, field_table};
use crate::device::{FtlError, Result};
use crate::logstruct::oob::{MAX_LOGICAL_SECTORS, TRIM_RECORD_LEN};
use crate::logstruct::Layout;

/// The paper's write cache size, the default where the device allows it.
pub const DEFAULT_CACHE_BYTES: u64 = 8 << 20;
/// The paper's GC batch (§3.4: "16 blocks in our case").
pub const DEFAULT_GC_BATCH_SEGMENTS: u32 = 16;
/// The largest request size a clue can name.
pub const MAX_REQUEST_SECTORS_LIMIT: u32 = u16::MAX as u32;

/// Configuration of an OPTR device.
#[derive(Clone, Debug, PartialEq)]
pub struct OptrConfig {
    /// Logical sectors the device exposes.
    pub logical_sectors: u64,
    /// Erase blocks per segment (one per die of a group of this many dies).
    pub stripe_dies: u32,
    /// Bytes of the DRAM write-back cache.
    pub cache_bytes: u64,
    /// Largest write request accepted, in sectors (requests larger than the
    /// cache are staged to flash with their clues, so they stay atomic).
    pub max_request_sectors: u32,
    /// GC victims collected after one internal flush.
    pub gc_batch_segments: u32,
    /// A checkpoint is taken when this many segments were opened since the
    /// last one (it bounds the roll-forward of recovery and the segments
    /// GC may not collect).
    pub checkpoint_interval_segments: u32,
    /// Segments of the incremental-checkpoint region (paper §3.3): a
    /// checkpoint is incremental (the L2P entries changed since the last
    /// one) while the region has room, and full (which empties the region)
    /// when it has not. 0: every checkpoint is full (configuration version
    /// 1 images).
    pub incremental_segments: u32,
}

/// Sizes derived from a configuration on a geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub layout: Layout,
    /// Pages of the L2P image in a full checkpoint.
    pub l2p_pages: u32,
    /// Segments of one checkpoint slot (two slots: live and shadow).
    pub slot_segments: u32,
    /// The first segment of the incremental-checkpoint region (after the
    /// slots) and its length in pages (0: no region).
    pub incremental_segment: u32,
    pub incremental_pages: u32,
    /// L2P entries one incremental-checkpoint page holds.
    pub entries_per_incremental_page: u32,
    /// The first data segment (after the label segment, both slots and the
    /// incremental region).
    pub first_data_segment: u32,
    /// Data segments.
    pub data_segments: u32,
    /// Sectors a data segment holds for data (its first page is the
    /// summary page).
    pub usable_sectors_per_segment: u32,
    /// Cache capacity in sectors.
    pub cache_sectors: u64,
    /// Free segments each request start must find (see the invariants).
    pub headroom_segments: u32,
}

impl Plan {
    pub fn new(g: &Geometry, c: &OptrConfig) -> Result<Plan> {
        let layout = Layout::new(g, c.stripe_dies)?;
        let page = g.page_size() as u64;
        let l2p_pages = (c.logical_sectors.max(1) * 4).div_ceil(page) as u32;
        let slot_segments = (l2p_pages + 1).div_ceil(layout.pages_per_segment);
        let incremental_segment = 1 + 2 * slot_segments;
        let first_data_segment = incremental_segment.saturating_add(c.incremental_segments);
        let data_segments = layout.segments.saturating_sub(first_data_segment);
        let spp = layout.sectors_per_page;
        let usable = layout.sectors_per_segment - spp;
        let cache_sectors = c.cache_bytes / u64::from(g.sector_size);
        let data_sectors = u64::from(data_segments) * u64::from(usable);
        let cache_eff = cache_sectors.min(data_sectors);
        let per_record_sector = records_per_sector(g.sector_size as usize) as u64;
        let moved = u64::from(c.max_request_sectors) + cache_eff;
        let burst = moved + moved.div_ceil(per_record_sector.max(1)) + 2 + 2 * u64::from(spp);
        let headroom = burst.div_ceil(u64::from(usable.max(1))) + 1;
        Ok(Plan {
            layout,
            l2p_pages,
            slot_segments,
            incremental_segment,
            incremental_pages: c
                .incremental_segments
                .saturating_mul(layout.pages_per_segment),
            entries_per_incremental_page: super::checkpoint::entries_per_page(g.page_size()),
            first_data_segment,
            data_segments,
            usable_sectors_per_segment: usable,
            cache_sectors,
            headroom_segments: headroom.min(u64::from(u32::MAX)) as u32,
        })
    }

    /// The largest logical size GC can serve (see the invariants).
    pub fn max_logical_sectors(&self) -> u64 {
        let spare = u64::from(self.headroom_segments) + 2;
        let usable = u64::from(self.data_segments).saturating_sub(spare);
        let per = u64::from(
            self.usable_sectors_per_segment
                .saturating_sub(self.layout.sectors_per_page),
        );
        (usable * per).min(MAX_LOGICAL_SECTORS)
    }

    /// Pages of an incremental checkpoint of `entries` changed L2P entries.
    pub fn incremental_checkpoint_pages(&self, entries: u64) -> u64 {
        entries
            .div_ceil(u64::from(self.entries_per_incremental_page.max(1)))
            .max(1)
    }
}

/// Coalescing records one record sector holds.
pub fn records_per_sector(sector_size: usize) -> usize {
    sector_size.saturating_sub(RECORDS_OFFSET) / super::coalesce::RECORD_SIZE
}

impl OptrConfig {
    /// A sensible configuration: segments stripe all dies unless that
    /// leaves fewer than 16 segments; an 8 MiB cache (at most an eighth of
    /// the data space on small devices); requests up to the cache size
    /// (at most 65535 sectors); a checkpoint every 1/32 of the data
    /// segments, at least 4 (so GC is seldom kept off a segment written
    /// after the latest checkpoint), incremental into a region of one
    /// segment; and
    /// 85% of the largest logical size.
    pub fn default_for(g: &Geometry) -> OptrConfig {
        let stripe_dies = if g.blocks_per_die >= 16 { g.dies() } else { 1 };
        let ss = u64::from(g.sector_size);
        let mut c = OptrConfig {
            logical_sectors: 1,
            stripe_dies,
            cache_bytes: DEFAULT_CACHE_BYTES,
            max_request_sectors: 1,
            gc_batch_segments: DEFAULT_GC_BATCH_SEGMENTS,
            checkpoint_interval_segments: 1,
            incremental_segments: 1,
        };
        if let Ok(p) = Plan::new(g, &c) {
            let data = u64::from(p.data_segments) * u64::from(p.usable_sectors_per_segment);
            let cache_sectors = (DEFAULT_CACHE_BYTES / ss).min(data / 8).max(1);
            c.cache_bytes = cache_sectors * ss;
            c.max_request_sectors = cache_sectors.min(u64::from(MAX_REQUEST_SECTORS_LIMIT)) as u32;
            // About 1% of the data segments, so at a GC selection about
            // half that is young enough to be protected (the paper's 0.2%
            // comes from 256 KB of buffered changes on a 128 GB device);
            // at least 2, and on small devices (under 128 data segments)
            // at least 4 (a quarter of a small device), so they do not pay
            // an internal flush every segment or two.
            let floor = if p.data_segments >= 128 { 2 } else { 4 };
            c.checkpoint_interval_segments = (p.data_segments / 100)
                .max(floor)
                .min(p.data_segments / 4)
                .max(1);
            c.gc_batch_segments = DEFAULT_GC_BATCH_SEGMENTS.min((p.data_segments / 8).max(1));
        }
        if let Ok(p) = Plan::new(g, &c) {
            c.logical_sectors = (p.max_logical_sectors() * 85 / 100).max(1);
        }
        c
    }

    /// The space plan of this configuration on `g`.
    pub fn plan(&self, g: &Geometry) -> Result<Plan> {
        Plan::new(g, self)
    }

    /// Checks the invariants at the top of this file.
    pub fn validate(&self, g: &Geometry) -> Result<Plan> {
        let p = Plan::new(g, self)?;
        let bad = |m: String| Err(FtlError::BadConfig(m));
        let per_sector_oob = g.oob_size / g.sectors_per_page;
        if (per_sector_oob as usize) < CLUE_SIZE {
            return bad(format!(
                "optr needs {CLUE_SIZE} B of OOB per sector for its clue; this geometry has {per_sector_oob}"
            ));
        }
        let ss = g.sector_size as usize;
        if ss < TRIM_RECORD_LEN || records_per_sector(ss) == 0 {
            return bad(format!(
                "sectors of {ss} B cannot hold a trim record and a coalescing record"
            ));
        }
        if self.max_request_sectors == 0 || self.max_request_sectors > MAX_REQUEST_SECTORS_LIMIT {
            return bad(format!(
                "max_request_sectors = {} must be between 1 and {MAX_REQUEST_SECTORS_LIMIT} (the clue's size field)",
                self.max_request_sectors
            ));
        }
        if p.cache_sectors == 0 {
            return bad(format!(
                "a cache of {} B holds no {ss}-byte sector",
                self.cache_bytes
            ));
        }
        if self.gc_batch_segments == 0 || self.checkpoint_interval_segments == 0 {
            return bad(
                "gc_batch_segments and checkpoint_interval_segments must be at least 1".into(),
            );
        }
        if p.data_segments < p.headroom_segments + 4 {
            return bad(format!(
                "{} data segments leave no room: a request start needs {} free (largest request, whole cache, records); use a smaller cache or maximum request",
                p.data_segments, p.headroom_segments
            ));
        }
        let max = p.max_logical_sectors();
        if self.logical_sectors == 0 || self.logical_sectors > max {
            return bad(format!(
                "logical_sectors = {} must be between 1 and {max} on this geometry with this cache and maximum request (GC needs spare space)",
                self.logical_sectors
            ));
        }
        Ok(p)
    }

    /// Encodes the configuration (little-endian, docs/FORMAT.md §8.1).
    pub fn encode(&self) -> Vec<u8> {
        use encoding::*;
        let mut b = vec![0u8; CONFIG_LEN];
        VERSION.put_u32(&mut b, CONFIG_VERSION);
        LOGICAL_SECTORS.put_u64(&mut b, self.logical_sectors);
        STRIPE_DIES.put_u32(&mut b, self.stripe_dies);
        CACHE_BYTES.put_u64(&mut b, self.cache_bytes);
        MAX_REQUEST_SECTORS.put_u32(&mut b, self.max_request_sectors);
        GC_BATCH_SEGMENTS.put_u32(&mut b, self.gc_batch_segments);
        CHECKPOINT_INTERVAL_SEGMENTS.put_u32(&mut b, self.checkpoint_interval_segments);
        INCREMENTAL_SEGMENTS.put_u32(&mut b, self.incremental_segments);
        b
    }

    /// Decodes [`OptrConfig::encode`]'s output, or a version-1
    /// configuration (36 bytes, no incremental region: it opens with every
    /// checkpoint full, as the build that wrote it did).
    pub fn decode(b: &[u8]) -> Result<OptrConfig> {
        use encoding::*;
        if b.len() == CONFIG_LEN_V1 && VERSION.get_u32(b) == 1 {
            let mut v2 = b.to_vec();
            v2.resize(CONFIG_LEN, 0);
            VERSION.put_u32(&mut v2, CONFIG_VERSION);
            return Self::decode(&v2);
        }
        codec::check_versioned(b, CONFIG_LEN, VERSION, CONFIG_VERSION, "optr configuration")?;
        Ok(OptrConfig {
            logical_sectors: LOGICAL_SECTORS.get_u64(b),
            stripe_dies: STRIPE_DIES.get_u32(b),
            cache_bytes: CACHE_BYTES.get_u64(b),
            max_request_sectors: MAX_REQUEST_SECTORS.get_u32(b),
            gc_batch_segments: GC_BATCH_SEGMENTS.get_u32(b),
            checkpoint_interval_segments: CHECKPOINT_INTERVAL_SEGMENTS.get_u32(b),
            incremental_segments: INCREMENTAL_SEGMENTS.get_u32(b),
        })
    }
}

/// The encoding version of [`OptrConfig`] this build writes; it also
/// reads version 1 (no `incremental_segments`).
pub const CONFIG_VERSION: u32 = 2;
/// Bytes of the encoded [`OptrConfig`].
pub const CONFIG_LEN: usize = encoding::INCREMENTAL_SEGMENTS.end();
/// Bytes of a version-1 configuration.
pub const CONFIG_LEN_V1: usize = encoding::CHECKPOINT_INTERVAL_SEGMENTS.end();

field_table! {
    /// The encoding of [`super::OptrConfig`] in the device label
    /// (docs/FORMAT.md §8.1).
    pub mod encoding {
        pub const VERSION: Field = Field::new("version", 0, 4);
        pub const LOGICAL_SECTORS: Field = Field::new("logical_sectors", 4, 8);
        pub const STRIPE_DIES: Field = Field::new("stripe_dies", 12, 4);
        pub const CACHE_BYTES: Field = Field::new("cache_bytes", 16, 8);
        pub const MAX_REQUEST_SECTORS: Field = Field::new("max_request_sectors", 24, 4);
        pub const GC_BATCH_SEGMENTS: Field = Field::new("gc_batch_segments", 28, 4);
        pub const CHECKPOINT_INTERVAL_SEGMENTS: Field = Field::new("checkpoint_interval_segments", 32, 4);
        pub const INCREMENTAL_SEGMENTS: Field = Field::new("incremental_segments", 36, 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_round_trip() {
        for name in flash::PRESET_NAMES {
            let g = Geometry::preset(name).unwrap();
            let c = OptrConfig::default_for(&g);
            c.validate(&g).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(OptrConfig::decode(&c.encode()).unwrap(), c);
        }
    }

    #[test]
    fn bad_configs_are_rejected_with_reasons() {
        let g = Geometry::tiny();
        let ok = OptrConfig::default_for(&g);
        let mut c = ok.clone();
        c.logical_sectors = c.plan(&g).unwrap().max_logical_sectors() + 1;
        assert!(matches!(c.validate(&g), Err(FtlError::BadConfig(_))));
        let mut c = ok.clone();
        c.max_request_sectors = 0;
        assert!(c.validate(&g).is_err());
        let mut c = ok.clone();
        c.cache_bytes = 1 << 30;
        assert!(c.validate(&g).is_err());
        let mut b = ok.encode();
        b[0] = 9;
        assert!(matches!(OptrConfig::decode(&b), Err(FtlError::Corrupt(_))));
    }

    #[test]
    fn version_1_configurations_decode_with_no_incremental_region() {
        let g = Geometry::small();
        let mut c = OptrConfig::default_for(&g);
        c.incremental_segments = 0;
        let mut v1 = c.encode();
        v1.truncate(CONFIG_LEN_V1);
        encoding::VERSION.put_u32(&mut v1, 1);
        assert_eq!(OptrConfig::decode(&v1).unwrap(), c);
        c.validate(&g).unwrap();
    }
}
