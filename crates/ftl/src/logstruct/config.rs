//! Configuration of the log-structured baselines, stored in the device
//! label (docs/FORMAT.md §5.1). It is fixed at format time.
//!
//! Invariants (checked by [`LogConfig::validate`]):
//! - the layout is valid (`stripe_dies` divides the dies);
//! - `4 <= gc_low_free_segments <= gc_high_free_segments` and
//!   `gc_high_free_segments + 2 <= data segments`. Burst GC is triggered
//!   when a segment fills and fewer than `low` are free (so `low - 1` are);
//!   it takes one as its destination and may take one more before its first
//!   victim is erased, so at least `low - 3 >= 1` segment is free at every
//!   instant. A crash at any point therefore leaves recovery a segment to
//!   write to. The async FTL's paced GC keeps at least `low - 2` free while
//!   a victim is in progress and falls back to burst rounds at `low - 1`
//!   (gc.rs), so the same bound holds;
//! - `1 <= logical_sectors <= (data_segments - gc_high - 1) * (S - N)` where
//!   `S` is sectors per segment and `N` sectors per page. Then whenever GC
//!   runs, some used segment has at most `S - N` live sectors, so relocating
//!   it (plus at most `N - 1` sectors of padding) gains space;
//! - one OOB record per sector fits the spare area, and a sector can hold a
//!   trim record;
//! - `streams` is 1 (GC relocations share the host's active segment, the
//!   paper's baselines) or 2 (hot/cold separation: relocations fill their
//!   own active segment, see gc.rs). The second head needs no more room:
//!   while GC looks for a victim, fewer than `gc_high_free_segments`
//!   segments are free or waiting, so at least `data_segments - high - 1`
//!   are used besides the two heads, and the bound on `logical_sectors`
//!   still leaves one of them at most `S - N` live sectors. The GC head
//!   takes a segment only while two are free; with one left, relocations
//!   go to the host's head as with one stream, so the free-space floor
//!   above holds unchanged.

use flash::Geometry;

use super::layout::Layout;
use super::oob::{MAX_LOGICAL_SECTORS, OOB_RECORD_SIZE, TRIM_RECORD_LEN};
use crate::codec::{self, field_table};
use crate::device::{FtlError, Result};

/// Configuration shared by the async and sync baselines.
#[derive(Clone, Debug, PartialEq)]
pub struct LogConfig {
    /// Logical sectors the device exposes.
    pub logical_sectors: u64,
    /// Erase blocks per segment (one per die of a group of this many dies).
    pub stripe_dies: u32,
    /// Burst GC (sync) starts when fewer segments than this are free; paced
    /// GC (async) picks its next victim when at most this many are.
    pub gc_low_free_segments: u32,
    /// Burst GC, once started, runs until this many segments are free (or
    /// waiting for a sync).
    pub gc_high_free_segments: u32,
    /// Write streams: 1, or 2 to give GC relocations their own active
    /// segment (hot/cold separation). Stored only from configuration
    /// version 2 on; a version-1 label means 1.
    pub streams: u32,
}

impl LogConfig {
    /// A sensible configuration: segments stripe all dies unless that leaves
    /// fewer than 16 segments, GC watermarks 4/5, and 85% of the largest
    /// logical size [`LogConfig::validate`] accepts.
    pub fn default_for(g: &Geometry) -> LogConfig {
        let stripe_dies = if g.blocks_per_die >= 16 { g.dies() } else { 1 };
        let mut c = LogConfig {
            logical_sectors: 1,
            stripe_dies,
            gc_low_free_segments: 4,
            gc_high_free_segments: 5,
            streams: 1,
        };
        if let Ok(max) = c.max_logical_sectors(g) {
            c.logical_sectors = (max * 85 / 100).max(1);
        }
        c
    }

    /// This configuration with `streams` write streams (1 or 2; checked by
    /// [`LogConfig::validate`]).
    pub fn with_streams(mut self, streams: u32) -> LogConfig {
        self.streams = streams;
        self
    }

    /// Segments the second stream adds to both GC watermarks (and so to
    /// the reserve): its active segment and the victim that may wait
    /// behind its GC page.
    pub fn stream_reserve(&self) -> u32 {
        if self.streams == 2 {
            STREAM_RESERVE
        } else {
            0
        }
    }

    /// The low watermark GC works with: `gc_low_free_segments` plus the
    /// second stream's reserve.
    pub fn low(&self) -> u32 {
        self.gc_low_free_segments + self.stream_reserve()
    }

    /// The high watermark GC works with: `gc_high_free_segments` plus the
    /// second stream's reserve.
    pub fn high(&self) -> u32 {
        self.gc_high_free_segments + self.stream_reserve()
    }

    /// The largest `logical_sectors` this configuration allows on `g`.
    pub fn max_logical_sectors(&self, g: &Geometry) -> Result<u64> {
        let l = Layout::new(g, self.stripe_dies)?;
        let usable = u64::from(l.data_segments()).saturating_sub(u64::from(self.high()) + 1);
        let per_seg = u64::from(l.sectors_per_segment - l.sectors_per_page);
        Ok((usable * per_seg).min(MAX_LOGICAL_SECTORS))
    }

    /// Checks the invariants at the top of this file.
    pub fn validate(&self, g: &Geometry) -> Result<()> {
        let l = Layout::new(g, self.stripe_dies)?;
        let bad = |m: String| Err(FtlError::BadConfig(m));
        let per_sector_oob = g.oob_size / g.sectors_per_page;
        if (per_sector_oob as usize) < OOB_RECORD_SIZE {
            return bad(format!(
                "the baselines need {OOB_RECORD_SIZE} B of OOB per sector; this geometry has {per_sector_oob}"
            ));
        }
        if (g.sector_size as usize) < TRIM_RECORD_LEN {
            return bad(format!(
                "sectors of {} B cannot hold a {TRIM_RECORD_LEN}-byte trim record",
                g.sector_size
            ));
        }
        if self.gc_low_free_segments < 4 || self.gc_high_free_segments < self.gc_low_free_segments {
            return bad(format!(
                "GC watermarks low = {}, high = {}: need 4 <= low <= high (a crash mid-GC must leave recovery a free segment)",
                self.gc_low_free_segments, self.gc_high_free_segments
            ));
        }
        if self.high() + 2 > l.data_segments() {
            return bad(format!(
                "gc_high_free_segments = {} leaves no room on a device with {} data segments",
                self.gc_high_free_segments,
                l.data_segments()
            ));
        }
        if !(1..=2).contains(&self.streams) {
            return bad(format!(
                "streams = {}: the baselines run 1 write stream or 2 (GC relocations apart from host writes)",
                self.streams
            ));
        }
        let max = self.max_logical_sectors(g)?;
        if self.logical_sectors == 0 || self.logical_sectors > max {
            return bad(format!(
                "logical_sectors = {} must be between 1 and {max} on this geometry with these watermarks (GC needs spare space)",
                self.logical_sectors
            ));
        }
        Ok(())
    }

    /// Encodes the configuration (little-endian, docs/FORMAT.md §5.1): as
    /// version 1 with one stream (the bytes older builds wrote and read),
    /// as version 2 with two.
    pub fn encode(&self) -> Vec<u8> {
        use encoding::*;
        let (version, len) = if self.streams == 1 {
            (CONFIG_VERSION_ONE_STREAM, CONFIG_LEN_V1)
        } else {
            (CONFIG_VERSION, CONFIG_LEN)
        };
        let mut b = vec![0u8; len];
        VERSION.put_u32(&mut b, version);
        LOGICAL_SECTORS.put_u64(&mut b, self.logical_sectors);
        STRIPE_DIES.put_u32(&mut b, self.stripe_dies);
        GC_LOW_FREE_SEGMENTS.put_u32(&mut b, self.gc_low_free_segments);
        GC_HIGH_FREE_SEGMENTS.put_u32(&mut b, self.gc_high_free_segments);
        if version >= 2 {
            STREAMS.put_u32(&mut b, self.streams);
        }
        b
    }

    /// Decodes [`LogConfig::encode`]'s output (version 1 or 2).
    pub fn decode(b: &[u8]) -> Result<LogConfig> {
        use encoding::*;
        let what = "baseline configuration";
        let v1 = b.len() >= VERSION.end() && VERSION.get_u32(b) == CONFIG_VERSION_ONE_STREAM;
        if v1 {
            codec::check_versioned(b, CONFIG_LEN_V1, VERSION, CONFIG_VERSION_ONE_STREAM, what)?;
        } else {
            codec::check_versioned(b, CONFIG_LEN, VERSION, CONFIG_VERSION, what)?;
        }
        Ok(LogConfig {
            logical_sectors: LOGICAL_SECTORS.get_u64(b),
            stripe_dies: STRIPE_DIES.get_u32(b),
            gc_low_free_segments: GC_LOW_FREE_SEGMENTS.get_u32(b),
            gc_high_free_segments: GC_HIGH_FREE_SEGMENTS.get_u32(b),
            streams: if v1 { 1 } else { STREAMS.get_u32(b) },
        })
    }
}

/// Segments a second write stream adds to the GC watermarks
/// ([`LogConfig::stream_reserve`]).
pub const STREAM_RESERVE: u32 = 2;

/// The newest encoding version of [`LogConfig`] this build writes and
/// reads (written for two streams).
pub const CONFIG_VERSION: u32 = 2;
/// The version written for one stream, which has no `streams` field.
pub const CONFIG_VERSION_ONE_STREAM: u32 = 1;
/// Bytes of the encoded [`LogConfig`] (version 2).
pub const CONFIG_LEN: usize = encoding::STREAMS.end();
/// Bytes of a version-1 [`LogConfig`].
pub const CONFIG_LEN_V1: usize = encoding::GC_HIGH_FREE_SEGMENTS.end();

field_table! {
    /// The encoding of [`super::LogConfig`] in the device label
    /// (docs/FORMAT.md §5.1; a test compares the table with the document).
    pub mod encoding {
        pub const VERSION: Field = Field::new("version", 0, 4);
        pub const LOGICAL_SECTORS: Field = Field::new("logical_sectors", 4, 8);
        pub const STRIPE_DIES: Field = Field::new("stripe_dies", 12, 4);
        pub const GC_LOW_FREE_SEGMENTS: Field = Field::new("gc_low_free_segments", 16, 4);
        pub const GC_HIGH_FREE_SEGMENTS: Field = Field::new("gc_high_free_segments", 20, 4);
        pub const STREAMS: Field = Field::new("streams", 24, 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_round_trip() {
        for name in flash::PRESET_NAMES {
            let g = Geometry::preset(name).unwrap();
            let c = LogConfig::default_for(&g);
            c.validate(&g).unwrap();
            assert_eq!(LogConfig::decode(&c.encode()).unwrap(), c);
            assert_eq!(c.encode().len(), CONFIG_LEN_V1);
            let two = c.clone().with_streams(2);
            two.validate(&g).unwrap();
            assert_eq!(two.encode().len(), CONFIG_LEN);
            assert_eq!(LogConfig::decode(&two.encode()).unwrap(), two);
        }
    }

    #[test]
    fn bad_configs_are_rejected_with_reasons() {
        let g = Geometry::tiny();
        let ok = LogConfig::default_for(&g);
        let mut c = ok.clone();
        c.logical_sectors = c.max_logical_sectors(&g).unwrap() + 1;
        assert!(matches!(c.validate(&g), Err(FtlError::BadConfig(_))));
        let mut c = ok.clone();
        c.gc_low_free_segments = 3;
        assert!(c.validate(&g).is_err());
        let mut c = ok.clone();
        c.streams = 3;
        assert!(c.validate(&g).is_err());
        let mut b = ok.clone().with_streams(2).encode();
        b.truncate(CONFIG_LEN_V1);
        assert!(matches!(LogConfig::decode(&b), Err(FtlError::Corrupt(_))));
        let mut c = ok.clone();
        c.stripe_dies = 3;
        assert!(c.validate(&g).is_err());
        let small_oob = Geometry::new(1, 1, 16, 8, 4, 512, 32).unwrap();
        assert!(LogConfig::default_for(&small_oob)
            .validate(&small_oob)
            .is_err());
        let mut b = ok.encode();
        b[0] = 9;
        assert!(matches!(LogConfig::decode(&b), Err(FtlError::Corrupt(_))));
        assert!(LogConfig::decode(&b[..5]).is_err());
    }
}
