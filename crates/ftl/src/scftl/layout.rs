//! Where things live on flash: superblocks, the metadata regions and the
//! physical sector addresses of data.
//!
//! An FTL "block" is a *superblock*: erase block `i` of every die. Its pages
//! are ordered die-interleaved — superblock page `j` is page `j / dies` of
//! the erase block on die `j % dies` — so consecutive pages land on
//! different dies, and (since die `d` sits on channel `d % channels`) on
//! different channels. Superblock 0 is reserved because its die-0 erase
//! block is the label block. The metadata regions — checkpoint slot 0,
//! slot 1, the delta region — are lists of superblocks, the [`MetaMap`]:
//! `format` puts them right after superblock 0 (the *initial map*), and a
//! full checkpoint may move them onto other superblocks (metadata
//! rotation, `flush.rs`), naming the new map in its commit record, which
//! recovery finds by a scan (`checkpoint.rs`). Every other superblock holds
//! data.
//!
//! Addresses are typed so that a logical and a physical sector, or a
//! sector and a superblock, cannot be mixed up: [`Psa`] (physical sector),
//! [`La`] (logical sector, as the L2P and the delta pairs hold it) and
//! [`Sb`] (superblock). All three are 32-bit newtypes, `repr(transparent)`,
//! so the L2P and P2L tables cost 4 bytes per entry.
//!
//! Invariants:
//! - the map's regions are disjoint, hold `c`, `c` and `d` superblocks,
//!   never superblock 0, and every index is `< blocks_per_die`;
//!   `is_meta[sb]` is true exactly for superblock 0 and the map's;
//! - a physical sector address `psa = sb * S + j * sectors_per_page + slot`
//!   is `< total sectors < u32::MAX`, and a logical one `< L < u32::MAX`, so
//!   [`crate::UNMAPPED`] never names a real sector.

use std::fmt;

use flash::{BlockId, Flash, Geometry, PageAddr};

use super::config::{ScftlConfig, RESERVED_SUPERBLOCKS};
use crate::UNMAPPED;

/// A physical sector address in superblock-linear numbering:
/// `sb * sectors_per_sb + page * sectors_per_page + slot`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Psa(pub u32);

impl Psa {
    /// An L2P entry that maps nothing (and the `pa` of a trim pair).
    pub const UNMAPPED: Psa = Psa(UNMAPPED);

    #[inline]
    pub fn is_mapped(self) -> bool {
        self != Psa::UNMAPPED
    }
}

/// A logical sector as SCFTL stores it (32 bits; the device has fewer than
/// `u32::MAX` logical sectors).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct La(pub u32);

impl La {
    /// A P2L entry for a physical sector that holds no logical sector.
    pub const NONE: La = La(UNMAPPED);
}

/// A superblock index (`0..blocks_per_die`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sb(pub u32);

impl Sb {
    /// The superblock `n` places further on.
    #[inline]
    pub fn plus(self, n: u32) -> Sb {
        Sb(self.0 + n)
    }
}

/// An address that indexes a per-address table.
pub trait Address: Copy {
    /// The position in a table indexed by this kind of address.
    fn index(self) -> usize;
    /// The address at position `i` (`i` fits 32 bits in every table).
    fn from_index(i: usize) -> Self;
}

macro_rules! address {
    ($($t:ident),+) => {$(
        impl Address for $t {
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
            #[inline]
            fn from_index(i: usize) -> Self {
                $t(i as u32)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    )+};
}
address!(Psa, La, Sb);

/// Where the metadata regions are: the superblocks of each checkpoint slot
/// and of the delta region, in region order (region page `k` is page
/// `k % pages_per_sb` of superblock `k / pages_per_sb` of its list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MetaMap {
    pub slots: [Vec<Sb>; 2],
    pub delta: Vec<Sb>,
}

impl MetaMap {
    /// Every superblock of the map.
    pub fn all(&self) -> impl Iterator<Item = Sb> + '_ {
        self.slots[0]
            .iter()
            .chain(&self.slots[1])
            .chain(&self.delta)
            .copied()
    }
}

/// The region map of one device.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub geometry: Geometry,
    pub dies: u32,
    pub spp: u32,
    pub sector_size: usize,
    pub page_size: usize,
    pub pages_per_sb: u32,
    pub sectors_per_sb: u32,
    pub num_sbs: u32,
    pub slot_sbs: u32,
    pub delta_sbs: u32,
    /// Pairs per delta page (from the configuration).
    pub delta_pairs_per_page: u32,
    /// Where the metadata regions are now ([`Layout::set_meta`]).
    meta: MetaMap,
    /// Per superblock: superblock 0 or one of `meta`'s.
    is_meta: Vec<bool>,
}

impl Layout {
    /// The layout of a validated configuration.
    pub fn new(g: &Geometry, cfg: &ScftlConfig) -> Layout {
        let dies = g.dies();
        let pages_per_sb = dies * g.pages_per_block;
        let slot_sbs = cfg.checkpoint_slot_superblocks;
        let first = Sb(RESERVED_SUPERBLOCKS as u32);
        let delta_first = first.plus(2 * slot_sbs);
        let run = |from: Sb, n: u32| (from.0..from.0 + n).map(Sb).collect::<Vec<_>>();
        let meta = MetaMap {
            slots: [run(first, slot_sbs), run(first.plus(slot_sbs), slot_sbs)],
            delta: run(delta_first, cfg.delta_region_superblocks),
        };
        let mut l = Layout {
            geometry: *g,
            dies,
            spp: g.sectors_per_page,
            sector_size: g.sector_size as usize,
            page_size: g.page_size(),
            pages_per_sb,
            sectors_per_sb: pages_per_sb * g.sectors_per_page,
            num_sbs: g.blocks_per_die,
            slot_sbs,
            delta_sbs: cfg.delta_region_superblocks,
            delta_pairs_per_page: cfg.delta_pairs_per_page,
            meta: meta.clone(),
            is_meta: Vec::new(),
        };
        l.set_meta(meta);
        l
    }

    /// The metadata regions' superblocks now.
    pub fn meta(&self) -> &MetaMap {
        &self.meta
    }

    /// Moves the metadata regions to `map` (which must have the
    /// configured sizes and name only superblocks `1..num_sbs`, each once;
    /// [`Layout::check_map`] says whether it does).
    pub fn set_meta(&mut self, map: MetaMap) {
        debug_assert_eq!(self.check_map(&map), Ok(()));
        self.is_meta = vec![false; self.num_sbs as usize];
        self.is_meta[0] = true;
        for sb in map.all() {
            self.is_meta[sb.index()] = true;
        }
        self.meta = map;
    }

    /// Whether `map` fits this layout: `c`, `c` and `d` superblocks, each
    /// in `1..num_sbs` and named once. (Recovery takes a map from flash
    /// only if it does.)
    pub fn check_map(&self, map: &MetaMap) -> std::result::Result<(), String> {
        let sizes = [map.slots[0].len(), map.slots[1].len(), map.delta.len()];
        let want = [self.slot_sbs, self.slot_sbs, self.delta_sbs].map(|n| n as usize);
        if sizes != want {
            return Err(format!("regions of {sizes:?} superblocks, not {want:?}"));
        }
        let mut seen = vec![false; self.num_sbs as usize];
        for sb in map.all() {
            if sb.0 == 0 || sb.0 >= self.num_sbs {
                return Err(format!("superblock {sb} is out of range"));
            }
            if std::mem::replace(&mut seen[sb.index()], true) {
                return Err(format!("superblock {sb} is named twice"));
            }
        }
        Ok(())
    }

    /// Whether `sb` is superblock 0 or holds a metadata region.
    #[inline]
    pub fn is_meta_sb(&self, sb: Sb) -> bool {
        self.is_meta[sb.index()]
    }

    /// Per superblock, [`Layout::is_meta_sb`].
    pub fn meta_flags(&self) -> &[bool] {
        &self.is_meta
    }

    /// Page `idx` of checkpoint slot `slot`.
    pub fn slot_page(&self, slot: usize, idx: u32) -> PageAddr {
        self.list_page(&self.meta.slots[slot], idx)
    }

    /// Page `idx` of the delta region.
    pub fn delta_page(&self, idx: u32) -> PageAddr {
        self.list_page(&self.meta.delta, idx)
    }

    /// Page `j` (in die-interleaved order) of superblock `sb`.
    #[inline]
    pub fn page_addr(&self, sb: Sb, j: u32) -> PageAddr {
        PageAddr {
            block: self.geometry.block_on_die(j % self.dies, sb.0),
            page: j / self.dies,
        }
    }

    /// Page `idx` of a region made of the superblocks `sbs`, in order.
    pub fn list_page(&self, sbs: &[Sb], idx: u32) -> PageAddr {
        self.page_addr(
            sbs[(idx / self.pages_per_sb) as usize],
            idx % self.pages_per_sb,
        )
    }

    /// Pages of the delta region.
    pub fn delta_pages(&self) -> u32 {
        self.delta_sbs * self.pages_per_sb
    }

    /// Physical sector `slot` of page `j` of superblock `sb`.
    #[inline]
    pub fn psa(&self, sb: Sb, j: u32, slot: u32) -> Psa {
        Psa(sb.0 * self.sectors_per_sb + j * self.spp + slot)
    }

    /// The superblock holding a physical sector.
    #[inline]
    pub fn sb_of(&self, psa: Psa) -> Sb {
        Sb(psa.0 / self.sectors_per_sb)
    }

    /// The P2L indices of a superblock's sectors.
    pub fn sectors_of(&self, sb: Sb) -> std::ops::Range<usize> {
        let s = self.sectors_per_sb as usize;
        sb.index() * s..(sb.index() + 1) * s
    }

    /// The page and sector slot of a physical sector.
    #[inline]
    pub fn locate(&self, psa: Psa) -> (PageAddr, u32) {
        let sb = self.sb_of(psa);
        let off = psa.0 % self.sectors_per_sb;
        (self.page_addr(sb, off / self.spp), off % self.spp)
    }

    /// Whether `psa` lies in a data superblock (one outside the map).
    pub fn is_data_psa(&self, psa: Psa) -> bool {
        let sb = self.sb_of(psa);
        sb.0 < self.num_sbs && !self.is_meta[sb.index()]
    }

    /// The erase blocks of a superblock.
    pub fn erase_blocks(&self, sb: Sb) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.dies).map(move |d| self.geometry.block_on_die(d, sb.0))
    }

    /// Queues erases of every erase block of `count` superblocks from `first`.
    pub fn erase_sbs<F: Flash + ?Sized>(
        &self,
        flash: &mut F,
        first: Sb,
        count: u32,
    ) -> flash::Result<()> {
        self.erase_sbs_checked(flash, first, count, true)
    }

    /// [`Layout::erase_sbs`]; with `refuse_bad` false, blocks marked bad
    /// are erased too, trusting the device to refuse them (the mutant
    /// `erase-marked-bad-block`).
    pub fn erase_sbs_checked<F: Flash + ?Sized>(
        &self,
        flash: &mut F,
        first: Sb,
        count: u32,
        refuse_bad: bool,
    ) -> flash::Result<()> {
        for sb in first.0..first.0 + count {
            for b in self.erase_blocks(Sb(sb)) {
                // A block marked bad (by the device or by SCFTL after a
                // failed program) is refused here, as the device would
                // refuse it: NAND whose bad blocks accept commands silently
                // must never see it again (`--silent-bad-blocks`).
                if refuse_bad && flash.block_wear(b).is_ok_and(|w| w.is_bad()) {
                    return Err(flash::FlashError::EraseFailed { block: b.0 });
                }
                flash.erase(b)?;
            }
        }
        Ok(())
    }

    /// Queues erases of every erase block of the superblocks `sbs`.
    pub fn erase_list<F: Flash + ?Sized>(&self, flash: &mut F, sbs: &[Sb]) -> flash::Result<()> {
        for &sb in sbs {
            self.erase_sbs(flash, sb, 1)?;
        }
        Ok(())
    }

    /// Every erase block that holds metadata now (label, slots, delta
    /// region): all erase blocks of superblock 0 and of the map's.
    pub fn metadata_blocks(&self) -> Vec<BlockId> {
        let mut v: Vec<BlockId> = (0..self.num_sbs)
            .filter(|&sb| self.is_meta[sb as usize])
            .flat_map(|sb| self.erase_blocks(Sb(sb)).collect::<Vec<_>>())
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_pages_go_to_different_dies_and_channels() {
        let g = Geometry::small();
        let cfg = ScftlConfig::default_for(&g);
        let l = Layout::new(&g, &cfg);
        let a = l.page_addr(Sb(5), 0);
        let b = l.page_addr(Sb(5), 1);
        assert_ne!(g.die_of(a.block), g.die_of(b.block));
        assert_ne!(
            g.channel_of_die(g.die_of(a.block)),
            g.channel_of_die(g.die_of(b.block))
        );
        assert_eq!(l.page_addr(Sb(5), g.dies()).page, 1);
        let (p, slot) = l.locate(Psa(5 * l.sectors_per_sb + 6));
        assert_eq!((p, slot), (l.page_addr(Sb(5), 1), 2));
        assert_eq!(l.psa(Sb(5), 1, 2), Psa(5 * l.sectors_per_sb + 6));
        assert_eq!(l.sb_of(Psa(5 * l.sectors_per_sb + 6)), Sb(5));
        assert!(l.metadata_blocks().contains(&BlockId(0)));
        assert!(!l.is_data_psa(Psa(0)) && l.is_data_psa(l.psa(Sb(l.num_sbs - 1), 0, 0)));
        assert_eq!(std::mem::size_of::<Psa>(), 4);
        assert_eq!(std::mem::size_of::<La>(), 4);
    }
}
