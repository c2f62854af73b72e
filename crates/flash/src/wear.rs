//! Wear: how many program/erase cycles each erase block has been through,
//! how many it endures, and which blocks are bad. This file owns the wear
//! model of every storing backend (`MemFlash`, `DatalessFlash`,
//! `FileFlash`, through `PageStates`); `FileFlash` persists each block's
//! [`BlockWear`] record in its image (docs/FORMAT.md §2, "Wear region").
//!
//! The model ([`WearModel`]):
//! - each block endures `endurance` erases, spread ±10% per block by the
//!   model's seed (real blocks differ); 0 means unlimited, the default;
//! - an erase past a block's endurance fails ([`crate::FlashError::EraseFailed`])
//!   and leaves the block *worn out*: its pages keep their content, and
//!   every later program or erase of it fails;
//! - in the last sixteenth of a block's life, one program in
//!   [`AGED_PROGRAM_FAILURE_ONE_IN`] fails ([`crate::FlashError::ProgramFailed`]),
//!   chosen by a hash of (seed, page, erase count), so a run replays;
//! - `factory_bad_per_mille` blocks in a thousand are bad from the factory
//!   (a seeded set, fixed when the device is created; block 0 never is, as
//!   NAND vendors guarantee for the block a boot loader and label live in);
//!   every program or erase of a bad block fails.
//!
//! A failed program leaves its page programmed with unspecified content
//! (the models write zeros, data and spare), so the NAND rules go on as
//! after a program; the block's other pages keep their content. A failed
//! erase changes no page. Neither is a rule violation: they are what aged
//! NAND does, and an FTL must survive them.
//!
//! An FTL retires a block it no longer trusts with
//! [`crate::Flash::mark_bad`] (as NAND FTLs program a bad-block marker): the
//! record says so from then on, across reopens, and the block fails like a
//! bad one.
//!
//! Erase counts are the device's own (like UBI's per-block erase-counter
//! headers, which a real port would keep on flash itself): FTLs read them
//! through [`crate::Flash::block_wear`] to choose where to write.

use crate::{BlockId, Geometry, PageAddr};

/// One program in this many fails in the last sixteenth of a block's life.
pub const AGED_PROGRAM_FAILURE_ONE_IN: u64 = 64;

/// How a device wears out. The default never fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WearModel {
    /// Erases a block endures on average (each block ±10%); 0 = unlimited.
    pub endurance: u32,
    /// Blocks in a thousand that are bad from the factory.
    pub factory_bad_per_mille: u32,
    /// Seed of the per-block endurance, the aged program failures and the
    /// factory bad set.
    pub seed: u64,
}

/// Whether a block can still be programmed and erased.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockHealth {
    /// Usable.
    #[default]
    Good,
    /// Bad from the factory: never usable.
    FactoryBad,
    /// An erase failed (past its endurance, or injected): no longer usable.
    WornOut,
    /// Retired by the FTL ([`crate::Flash::mark_bad`], e.g. after a program
    /// failed in it): no longer usable.
    Retired,
}

/// A block's wear record: its erase count and health.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockWear {
    /// Erases issued to the block (failed ones included).
    pub erases: u32,
    pub health: BlockHealth,
}

/// Largest erase count a [`BlockWear`] record stores (28 bits; higher
/// counts saturate).
pub const MAX_RECORDED_ERASES: u32 = (1 << 28) - 1;

impl BlockWear {
    /// Whether programs and erases of the block fail.
    pub fn is_bad(&self) -> bool {
        self.health != BlockHealth::Good
    }

    /// The 4-byte record FORMAT.md §2 defines: the erase count in the low
    /// 28 bits, the health in the high 4 (0 good, 1 factory bad, 2 worn
    /// out, 3 retired by the FTL). An all-zero record (what a sparse image
    /// reads) is a good, never-erased block.
    pub fn encode(&self) -> u32 {
        let health = match self.health {
            BlockHealth::Good => 0,
            BlockHealth::FactoryBad => 1,
            BlockHealth::WornOut => 2,
            BlockHealth::Retired => 3,
        };
        (health << 28) | self.erases.min(MAX_RECORDED_ERASES)
    }

    /// Decodes a record; `None` for an unknown health value.
    pub fn decode(record: u32) -> Option<BlockWear> {
        let health = match record >> 28 {
            0 => BlockHealth::Good,
            1 => BlockHealth::FactoryBad,
            2 => BlockHealth::WornOut,
            3 => BlockHealth::Retired,
            _ => return None,
        };
        Some(BlockWear {
            erases: record & MAX_RECORDED_ERASES,
            health,
        })
    }
}

/// A 64-bit mix of the seed and three values (splitmix64's finaliser over
/// their combination): the one source of the model's seeded choices.
fn mix(seed: u64, a: u64, b: u64, c: u64) -> u64 {
    let mut z = seed
        ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ c.wrapping_mul(0x1656_67B1_9E37_79F9);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl WearModel {
    /// A model that never fails.
    pub const UNLIMITED: WearModel = WearModel {
        endurance: 0,
        factory_bad_per_mille: 0,
        seed: 0,
    };

    /// Erases `block` endures, or `None` when unlimited.
    pub fn block_endurance(&self, block: BlockId) -> Option<u32> {
        if self.endurance == 0 {
            return None;
        }
        // ±10%: endurance × (0.9 + 0.2 × u), u uniform in [0, 1).
        let u = mix(self.seed, 1, u64::from(block.0), 0) >> 11;
        let spread = (u64::from(self.endurance) * u) / (1u64 << 53) / 5;
        let base = u64::from(self.endurance) - u64::from(self.endurance) / 10;
        Some((base + spread).clamp(1, u64::from(MAX_RECORDED_ERASES)) as u32)
    }

    /// Whether `block` is bad from the factory.
    pub fn is_factory_bad(&self, block: BlockId) -> bool {
        block.0 != 0
            && self.factory_bad_per_mille > 0
            && mix(self.seed, 2, u64::from(block.0), 0) % 1000
                < u64::from(self.factory_bad_per_mille)
    }

    /// Whether a program of `page`, in a good block erased `erases` times,
    /// fails with age.
    pub fn program_fails(&self, g: &Geometry, page: PageAddr, erases: u32) -> bool {
        let Some(end) = self.block_endurance(page.block) else {
            return false;
        };
        erases >= end - end / 16
            && mix(self.seed, 3, g.page_index(page), u64::from(erases))
                .is_multiple_of(AGED_PROGRAM_FAILURE_ONE_IN)
    }

    /// The wear records of a new device: every block good and never erased,
    /// but the factory bad ones.
    pub fn new_device(&self, g: &Geometry) -> Vec<BlockWear> {
        (0..g.total_blocks())
            .map(|b| BlockWear {
                erases: 0,
                health: if self.is_factory_bad(BlockId(b)) {
                    BlockHealth::FactoryBad
                } else {
                    BlockHealth::Good
                },
            })
            .collect()
    }

    /// The record after an erase of a block whose record is `w`, and
    /// whether the erase succeeds. A bad block's erase fails and changes
    /// nothing; a good block's erase is counted, and fails (the block wears
    /// out) when the count passes the block's endurance.
    pub fn after_erase(&self, block: BlockId, w: BlockWear) -> (BlockWear, bool) {
        if w.is_bad() {
            return (w, false);
        }
        let erases = w.erases.saturating_add(1).min(MAX_RECORDED_ERASES);
        match self.block_endurance(block) {
            Some(end) if erases > end => (
                BlockWear {
                    erases,
                    health: BlockHealth::WornOut,
                },
                false,
            ),
            _ => (
                BlockWear {
                    erases,
                    health: BlockHealth::Good,
                },
                true,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_zero_is_a_fresh_good_block() {
        assert_eq!(BlockWear::decode(0), Some(BlockWear::default()));
        for health in [
            BlockHealth::Good,
            BlockHealth::FactoryBad,
            BlockHealth::WornOut,
            BlockHealth::Retired,
        ] {
            let w = BlockWear {
                erases: 12345,
                health,
            };
            assert_eq!(BlockWear::decode(w.encode()), Some(w));
        }
        assert_eq!(BlockWear::decode(4 << 28), None);
        let big = BlockWear {
            erases: u32::MAX,
            health: BlockHealth::Good,
        };
        assert_eq!(
            BlockWear::decode(big.encode()).unwrap().erases,
            MAX_RECORDED_ERASES
        );
    }

    #[test]
    fn endurance_spreads_ten_percent_and_erases_wear_out() {
        let m = WearModel {
            endurance: 1000,
            factory_bad_per_mille: 0,
            seed: 7,
        };
        let ends: Vec<u32> = (0..500)
            .map(|b| m.block_endurance(BlockId(b)).unwrap())
            .collect();
        assert!(ends.iter().all(|&e| (900..1100).contains(&e)));
        assert!(ends.iter().any(|&e| e < 950) && ends.iter().any(|&e| e > 1050));
        let b = BlockId(3);
        let end = m.block_endurance(b).unwrap();
        let mut w = BlockWear::default();
        for _ in 0..end {
            let (next, ok) = m.after_erase(b, w);
            assert!(ok);
            w = next;
        }
        let (worn, ok) = m.after_erase(b, w);
        assert!(!ok);
        assert_eq!(worn.health, BlockHealth::WornOut);
        // A worn-out block's erase fails and is not counted again.
        assert_eq!(m.after_erase(b, worn), (worn, false));
        // Unlimited never wears out.
        let (w, ok) = WearModel::UNLIMITED.after_erase(b, worn_good(u32::MAX - 1));
        assert!(ok && w.erases == MAX_RECORDED_ERASES);
    }

    fn worn_good(erases: u32) -> BlockWear {
        BlockWear {
            erases,
            health: BlockHealth::Good,
        }
    }

    #[test]
    fn factory_bad_set_is_seeded_and_never_block_zero() {
        let g = Geometry::small();
        let m = WearModel {
            endurance: 0,
            factory_bad_per_mille: 20,
            seed: 1,
        };
        let bad = m.new_device(&g).iter().filter(|w| w.is_bad()).count() as u64;
        let n = u64::from(g.total_blocks());
        assert!(bad > 0 && bad < n / 10, "{bad} of {n}");
        assert!(!m.new_device(&g)[0].is_bad());
        let other = WearModel { seed: 2, ..m };
        assert_ne!(m.new_device(&g), other.new_device(&g));
        assert!(WearModel::UNLIMITED
            .new_device(&g)
            .iter()
            .all(|w| !w.is_bad()));
    }

    #[test]
    fn aged_programs_fail_only_late_in_life_and_replay() {
        let g = Geometry::small();
        let m = WearModel {
            endurance: 1600,
            factory_bad_per_mille: 0,
            seed: 9,
        };
        let b = BlockId(5);
        let end = m.block_endurance(b).unwrap();
        let count = |erases| {
            (0..g.pages_per_block * 64)
                .filter(|&i| {
                    m.program_fails(
                        &g,
                        PageAddr::new(b.0, i % g.pages_per_block),
                        erases + i / g.pages_per_block,
                    )
                })
                .count()
        };
        assert_eq!(count(0), 0);
        let late = count(end - end / 16);
        assert!(
            late > 0,
            "no aged failure in {} programs",
            g.pages_per_block * 64
        );
        assert_eq!(late, count(end - end / 16));
    }
}
