//! Flash geometry: how many channels, dies, blocks, pages and sectors a
//! device has, and the presets the project uses.
//!
//! Invariants (checked by [`Geometry::new`]):
//! - every count is non-zero;
//! - a page is a whole number of sectors (`sectors_per_page >= 1`);
//! - the total number of pages fits in a `u32` and the raw size in a `u64`,
//!   so every physical address can be stored in 32 bits.

use crate::error::FlashError;
use crate::{BlockId, PageAddr};

/// The shape of a NAND device.
///
/// Dies are numbered `0..dies()`; die `d` sits on channel `d % channels`, so
/// consecutive dies are on different channels and striping over dies in order
/// also stripes over channels. Block `b` lives on die `b / blocks_per_die`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub blocks_per_die: u32,
    pub pages_per_block: u32,
    pub sectors_per_page: u32,
    pub sector_size: u32,
    pub oob_size: u32,
}

/// Names accepted by [`Geometry::preset`].
pub const PRESET_NAMES: &[&str] = &[
    "tiny",
    "small",
    "medium",
    "paper",
    "paper-64g",
    "paper-256g",
];

impl Geometry {
    /// Builds a geometry, rejecting nonsense with an error naming the field.
    pub fn new(
        channels: u32,
        dies_per_channel: u32,
        blocks_per_die: u32,
        pages_per_block: u32,
        sectors_per_page: u32,
        sector_size: u32,
        oob_size: u32,
    ) -> Result<Geometry, FlashError> {
        let g = Geometry {
            channels,
            dies_per_channel,
            blocks_per_die,
            pages_per_block,
            sectors_per_page,
            sector_size,
            oob_size,
        };
        g.validate()?;
        Ok(g)
    }

    /// Checks the invariants listed at the top of this file.
    pub fn validate(&self) -> Result<(), FlashError> {
        let bad =
            |field: &'static str, reason: String| Err(FlashError::BadGeometry { field, reason });
        for (field, v) in [
            ("channels", self.channels),
            ("dies_per_channel", self.dies_per_channel),
            ("blocks_per_die", self.blocks_per_die),
            ("pages_per_block", self.pages_per_block),
            ("sectors_per_page", self.sectors_per_page),
            ("sector_size", self.sector_size),
        ] {
            if v == 0 {
                return bad(field, "must be at least 1".into());
            }
        }
        if self.sector_size < 16 || !self.sector_size.is_power_of_two() {
            return bad(
                "sector_size",
                format!(
                    "{} is not a power of two of at least 16 bytes",
                    self.sector_size
                ),
            );
        }
        if self.oob_size > 65536 {
            return bad(
                "oob_size",
                format!("{} bytes is more than 65536", self.oob_size),
            );
        }
        let page_size = u64::from(self.sectors_per_page) * u64::from(self.sector_size);
        if page_size > 1 << 20 {
            return bad(
                "sectors_per_page",
                format!("a page of {page_size} bytes is larger than 1 MiB"),
            );
        }
        let dies = u64::from(self.channels) * u64::from(self.dies_per_channel);
        if dies > 1 << 16 {
            return bad(
                "dies_per_channel",
                format!("{dies} dies is more than 65536"),
            );
        }
        let blocks = dies * u64::from(self.blocks_per_die);
        if blocks > u64::from(u32::MAX) {
            return bad(
                "blocks_per_die",
                format!("{blocks} blocks do not fit in 32 bits"),
            );
        }
        let pages = blocks * u64::from(self.pages_per_block);
        let sectors = pages * u64::from(self.sectors_per_page);
        if sectors >= u64::from(u32::MAX) {
            return bad(
                "pages_per_block",
                format!("{sectors} physical sectors do not fit in 32-bit addresses"),
            );
        }
        Ok(())
    }

    /// A preset by name (see [`PRESET_NAMES`]).
    pub fn preset(name: &str) -> Result<Geometry, FlashError> {
        match name {
            "tiny" => Ok(Self::tiny()),
            "small" => Ok(Self::small()),
            "medium" => Ok(Self::medium()),
            "paper" => Ok(Self::paper()),
            "paper-64g" => Ok(Self::paper_raw_gib(64)),
            "paper-256g" => Ok(Self::paper_raw_gib(256)),
            other => Err(FlashError::UnknownPreset {
                name: other.to_string(),
                known: PRESET_NAMES.join(", "),
            }),
        }
    }

    /// 24 blocks of 8 pages of 2 x 512 B sectors: small enough to enumerate
    /// every crash point and in-flight outcome of a short workload.
    pub fn tiny() -> Geometry {
        Geometry {
            channels: 1,
            dies_per_channel: 2,
            blocks_per_die: 12,
            pages_per_block: 8,
            sectors_per_page: 2,
            sector_size: 512,
            oob_size: 32,
        }
    }

    /// 64 MiB raw, 2 channels x 2 dies: the geometry of most tests.
    pub fn small() -> Geometry {
        Geometry {
            channels: 2,
            dies_per_channel: 2,
            blocks_per_die: 32,
            pages_per_block: 32,
            sectors_per_page: 4,
            sector_size: 4096,
            oob_size: 128,
        }
    }

    /// 1 GiB raw, 4 channels x 2 dies: the default image of the CLI.
    pub fn medium() -> Geometry {
        Geometry {
            channels: 4,
            dies_per_channel: 2,
            blocks_per_die: 64,
            pages_per_block: 128,
            sectors_per_page: 4,
            sector_size: 4096,
            oob_size: 128,
        }
    }

    /// The paper's emulated Open-Channel SSD: 4 channels x 4 dies, 8 GiB raw,
    /// 16 KiB pages (4 sectors), 2 MiB blocks.
    pub fn paper() -> Geometry {
        Self::paper_raw_gib(8)
    }

    /// The paper's shape scaled to `gib` GiB raw (a multiple of 8 recommended).
    pub fn paper_raw_gib(gib: u32) -> Geometry {
        // 16 dies x 2 MiB blocks: 8 GiB = 256 blocks per die.
        let blocks_per_die = (gib.max(1) * 32).max(1);
        Geometry {
            channels: 4,
            dies_per_channel: 4,
            blocks_per_die,
            pages_per_block: 128,
            sectors_per_page: 4,
            sector_size: 4096,
            oob_size: 128,
        }
    }

    /// Number of dies (parallel units).
    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }
    /// Number of erase blocks on the device.
    pub fn total_blocks(&self) -> u32 {
        self.dies() * self.blocks_per_die
    }
    /// Number of pages on the device.
    pub fn total_pages(&self) -> u64 {
        u64::from(self.total_blocks()) * u64::from(self.pages_per_block)
    }
    /// Number of physical sectors on the device.
    pub fn total_sectors(&self) -> u64 {
        self.total_pages() * u64::from(self.sectors_per_page)
    }
    /// Bytes of data (not OOB) in one page.
    pub fn page_size(&self) -> usize {
        self.sectors_per_page as usize * self.sector_size as usize
    }
    /// Data sectors in one block.
    pub fn sectors_per_block(&self) -> u32 {
        self.pages_per_block * self.sectors_per_page
    }
    /// Raw data capacity in bytes (OOB excluded).
    pub fn raw_bytes(&self) -> u64 {
        self.total_pages() * self.page_size() as u64
    }
    /// The die a block lives on.
    pub fn die_of(&self, block: BlockId) -> u32 {
        block.0 / self.blocks_per_die
    }
    /// The channel a die is attached to.
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die % self.channels
    }
    /// Block `index` of die `die`.
    pub fn block_on_die(&self, die: u32, index: u32) -> BlockId {
        BlockId(die * self.blocks_per_die + index)
    }

    /// Checks that a block exists.
    pub fn check_block(&self, block: BlockId) -> Result<(), FlashError> {
        if block.0 >= self.total_blocks() {
            return Err(FlashError::BlockOutOfRange {
                block: block.0,
                blocks: self.total_blocks(),
            });
        }
        Ok(())
    }

    /// Checks that a page exists.
    pub fn check_page(&self, page: PageAddr) -> Result<(), FlashError> {
        self.check_block(page.block)?;
        if page.page >= self.pages_per_block {
            return Err(FlashError::PageOutOfRange {
                block: page.block.0,
                page: page.page,
                pages_per_block: self.pages_per_block,
            });
        }
        Ok(())
    }

    /// Dense index of a page, `0..total_pages()`.
    pub fn page_index(&self, page: PageAddr) -> u64 {
        u64::from(page.block.0) * u64::from(self.pages_per_block) + u64::from(page.page)
    }

    /// Inverse of [`Geometry::page_index`].
    pub fn page_at(&self, index: u64) -> PageAddr {
        let ppb = u64::from(self.pages_per_block);
        PageAddr {
            block: BlockId((index / ppb) as u32),
            page: (index % ppb) as u32,
        }
    }
}

impl std::fmt::Display for Geometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ch x {} dies x {} blocks x {} pages x {} x {} B sectors (+{} B OOB), {} MiB raw",
            self.channels,
            self.dies_per_channel,
            self.blocks_per_die,
            self.pages_per_block,
            self.sectors_per_page,
            self.sector_size,
            self.oob_size,
            self.raw_bytes() >> 20
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_paper_is_8_gib() {
        for name in PRESET_NAMES {
            let g = Geometry::preset(name).unwrap();
            g.validate().unwrap();
        }
        let p = Geometry::paper();
        assert_eq!(p.raw_bytes(), 8 << 30);
        assert_eq!(p.dies(), 16);
        assert_eq!(
            Geometry::preset("paper-256g").unwrap().raw_bytes(),
            256 << 30
        );
    }

    #[test]
    fn zero_fields_are_named() {
        let e = Geometry::new(1, 1, 0, 8, 1, 4096, 16).unwrap_err();
        assert!(
            matches!(
                e,
                FlashError::BadGeometry {
                    field: "blocks_per_die",
                    ..
                }
            ),
            "{e}"
        );
        let e = Geometry::new(0, 1, 1, 8, 1, 4096, 16).unwrap_err();
        assert!(matches!(
            e,
            FlashError::BadGeometry {
                field: "channels",
                ..
            }
        ));
        let e = Geometry::new(1, 1, 1, 8, 0, 4096, 16).unwrap_err();
        assert!(matches!(
            e,
            FlashError::BadGeometry {
                field: "sectors_per_page",
                ..
            }
        ));
    }

    #[test]
    fn bad_sector_size_and_overflow_are_rejected() {
        let e = Geometry::new(1, 1, 1, 8, 1, 1000, 16).unwrap_err();
        assert!(matches!(
            e,
            FlashError::BadGeometry {
                field: "sector_size",
                ..
            }
        ));
        let e = Geometry::new(u32::MAX, u32::MAX, u32::MAX, u32::MAX, 1, 4096, 16).unwrap_err();
        assert!(matches!(e, FlashError::BadGeometry { .. }));
        let e = Geometry::new(4, 4, 1 << 20, 1 << 10, 4, 4096, 16).unwrap_err();
        assert!(matches!(e, FlashError::BadGeometry { .. }), "{e}");
        assert!(Geometry::preset("huge").is_err());
    }

    #[test]
    fn addressing_round_trips() {
        let g = Geometry::small();
        for i in [0u64, 1, 31, 32, 1000, g.total_pages() - 1] {
            assert_eq!(g.page_index(g.page_at(i)), i);
        }
        assert_eq!(g.die_of(BlockId(33)), 1);
        assert_eq!(g.channel_of_die(3), 1);
        assert!(g.check_block(BlockId(g.total_blocks())).is_err());
        assert!(g
            .check_page(PageAddr {
                block: BlockId(0),
                page: 32
            })
            .is_err());
    }
}
