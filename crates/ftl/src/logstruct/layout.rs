//! Physical addressing of the log-structured baselines.
//!
//! The baselines allocate and erase in *segments*: a segment is a stripe of
//! `stripe` erase blocks, one on each die of a group of `stripe` consecutive
//! dies, all with the same block index. Page `p` of a segment lives on member
//! `p % stripe` of the stripe, at page `p / stripe` of that erase block, so
//! consecutive pages of a segment go to different dies (and channels) and a
//! run of programs uses the device's parallelism, like pblk's lines.
//!
//! Invariants (checked by [`Layout::new`]):
//! - `stripe` divides the number of dies, so every segment is complete;
//! - segment 0 holds erase block 0, the label block; it is never used for data;
//! - every physical sector address ([`Ppa`]) is below `physical_sectors`, and
//!   `physical_sectors + sectors_per_page + 2 < u32::MAX`, so the values
//!   just above the physical range can name merge-buffer slots and
//!   [`crate::UNMAPPED`] means "unmapped" in the engine's tables.

use flash::{BlockId, Geometry, PageAddr};

use crate::device::{FtlError, Result};

/// A segment (the unit of allocation and erasure of the baselines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegId(pub u32);

/// A physical sector: `segment * sectors_per_segment + page * sectors_per_page + slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppa(pub u32);

/// The segment that holds the device label; never used for data.
pub const LABEL_SEGMENT: SegId = SegId(0);

/// Geometry-derived addressing of the baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub geometry: Geometry,
    /// Erase blocks per segment (dies striped over).
    pub stripe: u32,
    /// Number of segments, including the label segment.
    pub segments: u32,
    pub pages_per_segment: u32,
    pub sectors_per_page: u32,
    pub sectors_per_segment: u32,
    pub sector_size: usize,
    /// Number of physical sectors (all segments).
    pub physical_sectors: u32,
}

impl Layout {
    /// Builds the layout, rejecting a stripe that does not divide the dies.
    pub fn new(g: &Geometry, stripe: u32) -> Result<Layout> {
        g.validate()?;
        let dies = g.dies();
        if stripe == 0 || !dies.is_multiple_of(stripe) {
            return Err(FtlError::BadConfig(format!(
                "stripe_dies = {stripe} must be at least 1 and divide the {dies} dies of the device"
            )));
        }
        let segments = (dies / stripe) * g.blocks_per_die;
        let pages_per_segment = g.pages_per_block * stripe;
        let sectors_per_segment = pages_per_segment * g.sectors_per_page;
        let physical = g.total_sectors();
        if physical + u64::from(g.sectors_per_page) + 2 >= u64::from(u32::MAX) {
            return Err(FtlError::BadConfig(format!(
                "{physical} physical sectors leave no room for buffer addresses in 32 bits; use a smaller device"
            )));
        }
        Ok(Layout {
            geometry: *g,
            stripe,
            segments,
            pages_per_segment,
            sectors_per_page: g.sectors_per_page,
            sectors_per_segment,
            sector_size: g.sector_size as usize,
            physical_sectors: physical as u32,
        })
    }

    /// Segments that can hold data (all but the label segment).
    pub fn data_segments(&self) -> u32 {
        self.segments - 1
    }

    /// Erase block `member` of a segment.
    pub fn member_block(&self, seg: SegId, member: u32) -> BlockId {
        let g = &self.geometry;
        let group = seg.0 / g.blocks_per_die;
        let index = seg.0 % g.blocks_per_die;
        g.block_on_die(group * self.stripe + member, index)
    }

    /// The flash page that holds page `page` of a segment.
    pub fn page_addr(&self, seg: SegId, page: u32) -> PageAddr {
        PageAddr {
            block: self.member_block(seg, page % self.stripe),
            page: page / self.stripe,
        }
    }

    /// The physical sector `slot` of page `page` of a segment.
    pub fn ppa(&self, seg: SegId, page: u32, slot: u32) -> Ppa {
        Ppa(seg.0 * self.sectors_per_segment + page * self.sectors_per_page + slot)
    }

    /// Inverse of [`Layout::ppa`]: (segment, page, slot).
    pub fn locate(&self, ppa: Ppa) -> (SegId, u32, u32) {
        let seg = ppa.0 / self.sectors_per_segment;
        let within = ppa.0 % self.sectors_per_segment;
        (
            SegId(seg),
            within / self.sectors_per_page,
            within % self.sectors_per_page,
        )
    }

    /// The segment holding a physical sector.
    pub fn seg_of(&self, ppa: Ppa) -> SegId {
        SegId(ppa.0 / self.sectors_per_segment)
    }

    /// First physical sector of a segment.
    pub fn seg_base(&self, seg: SegId) -> u32 {
        seg.0 * self.sectors_per_segment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_and_label_is_segment_zero() {
        for (g, stripe) in [
            (Geometry::tiny(), 1),
            (Geometry::small(), 4),
            (Geometry::small(), 2),
        ] {
            let l = Layout::new(&g, stripe).unwrap();
            assert_eq!(l.member_block(LABEL_SEGMENT, 0), BlockId(0));
            let mut seen = std::collections::HashSet::new();
            for seg in 0..l.segments {
                for m in 0..stripe {
                    assert!(seen.insert(l.member_block(SegId(seg), m)));
                }
                let p = l.pages_per_segment - 1;
                let ppa = l.ppa(SegId(seg), p, l.sectors_per_page - 1);
                assert_eq!(l.locate(ppa), (SegId(seg), p, l.sectors_per_page - 1));
            }
            assert_eq!(seen.len() as u32, g.total_blocks());
        }
        assert!(Layout::new(&Geometry::small(), 3).is_err());
        assert!(Layout::new(&Geometry::small(), 0).is_err());
    }
}
