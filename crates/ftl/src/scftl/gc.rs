//! Two-phase garbage collection (paper §3.4).
//!
//! Relocation (gc_rl): when at least U superblocks are used and fewer than K
//! relocations ran in this epoch, the used superblock with the fewest valid
//! sectors is picked (greedy, so it holds at most N = floor(L/U) valid
//! sectors), its valid sectors are appended like writes (with delta pairs)
//! and it becomes *invalid*. Erasure (gc_es) waits: the stable L2P may still
//! point into the victim until the next flush commits, so flush turns
//! invalid into erasable and the victim is erased only when a block is
//! needed after that.
//!
//! A damaged sector (one failing its data checksum) is relocated like any
//! other, with its old CRC copied unchecked, so it keeps failing its reads
//! at the new place: GC neither stops on damage (which would leave the
//! device unable to write) nor launders it into a valid-looking sector.
//!
//! Invariant: after `gc_one` the victim has no valid sector.

use std::collections::VecDeque;

use flash::Flash;

use crate::device::{FtlError, Result};
use crate::mutant::Mutant;

use super::format::{self, data_oob, DATA_OOB_LEN};
use super::layout::{La, Psa, Sb};
use super::Scftl;

impl<F: Flash> Scftl<F> {
    /// True when gc_rl is enabled and within the epoch's budget.
    #[inline]
    pub(super) fn gc_needed(&self) -> bool {
        self.gc_count < self.gc_bound && self.blocks.used() >= self.gc_threshold
    }

    /// Runs gc_rl until it is no longer needed or the budget is spent.
    #[inline]
    pub(super) fn gc_if_needed(&mut self) -> Result<()> {
        while self.gc_needed() {
            self.gc_one()?;
        }
        Ok(())
    }

    #[inline]
    fn is_valid(&self, psa: Psa) -> bool {
        self.valid.get(psa)
    }

    /// The logical sector a valid physical sector `psa` holds: from the
    /// P2L on a version-3/4 image, else from the logical sector record in
    /// `oob` (the page's OOB, read with its data). A record that does not
    /// map back to `psa` (damaged OOB) is not trusted: the L2P is searched
    /// instead, which finds the one logical sector mapping there.
    pub(super) fn la_of(&mut self, psa: Psa, slot: u32, oob: &[u8]) -> Result<La> {
        if let Some(p2l) = &self.p2l {
            return Ok(p2l[psa]);
        }
        let at = format::data_la_offset(self.layout.spp, slot);
        let la = La(u32::from_le_bytes(
            oob[at..at + format::DATA_LA_LEN].try_into().unwrap(),
        ));
        if (la.0 as usize) < self.l2p.as_slice().len() && self.l2p[la] == psa {
            return Ok(la);
        }
        self.stats.gc_la_searches += 1;
        self.l2p
            .iter()
            .find(|&(_, p)| p == psa)
            .map(|(l, _)| l)
            .ok_or_else(|| {
                FtlError::Corrupt(format!(
                    "physical sector {psa} is marked valid but no logical sector maps to it (bug)"
                ))
            })
    }

    /// One relocation: greedy victim, move its valid sectors, mark invalid.
    fn gc_one(&mut self) -> Result<()> {
        let Some(victim) = self.pick_victim() else {
            return Ok(());
        };
        self.blocks.mark_victim(victim);
        self.gc_count += 1;
        self.with_cold_stream(|me| me.relocate(victim))?;
        self.stats.gc_blocks_reclaimed += 1;
        if self.mutant == Mutant::VictimErasableAtOnce {
            self.blocks.make_erasable_early(victim, self.delta.epoch);
        }
        if self.mutant == Mutant::EraseVictimBeforeFlush {
            // The seeded bug: erase at once, although the stable L2P may
            // still point into the victim.
            let (layout, flash) = (&self.layout, &mut self.flash);
            self.blocks
                .reclaim_victim_early(victim, |sb| layout.erase_sbs(flash, sb, 1))?;
        }
        Ok(())
    }

    /// The next victim. With one stream the greedy choice (fewest valid
    /// sectors). With two (hot/cold separation) the cost-benefit choice
    /// ([`super::blocks::Blocks::pick_victim_cost_benefit`]), which lets
    /// cold superblocks wait until collecting them pays, behind the §6.1
    /// validator: a victim with more than N = floor(L/U) valid sectors
    /// would break the space argument of constraint (1), so then the
    /// greedy choice (which holds at most N) is taken and counted.
    fn pick_victim(&mut self) -> Option<Sb> {
        let greedy = self.blocks.pick_victim();
        if !self.two_streams {
            return greedy;
        }
        let n = self.config.logical_sectors / u64::from(self.gc_threshold.max(1));
        match self
            .blocks
            .pick_victim_cost_benefit(self.layout.sectors_per_sb)
        {
            Some(sb) if u64::from(self.blocks.valid_counts()[sb.0 as usize]) <= n => Some(sb),
            Some(_) => {
                self.stats.gc_victim_fallbacks += 1;
                greedy
            }
            None => greedy,
        }
    }

    /// Moves every valid sector of `victim` to the active pointer.
    ///
    /// Victim pages are read ahead, [`READ_AHEAD_STRIPES`] stripes (one
    /// page per die each) past the page being moved, each with one read for
    /// copy of its valid sectors' span and their OOB CRCs: the dies sense and
    /// transfer in parallel while the host goes on, and only the program of
    /// a merge-buffer page that carries a sector waits for that sector's
    /// read. Nothing is written into the victim, so a sector valid when its
    /// page is moved was valid when the page was read.
    fn relocate(&mut self, victim: Sb) -> Result<()> {
        let spp = self.layout.spp;
        let ss = self.layout.sector_size;
        let pages = self.layout.pages_per_sb;
        let depth = (READ_AHEAD_STRIPES * self.layout.geometry.dies()).min(pages) as usize;
        // The CRC records, and on a version-5 image the marker's place and
        // the logical sector records.
        let oob_len = if self.p2l.is_some() {
            spp as usize * DATA_OOB_LEN
        } else {
            format::data_oob_len_v5(spp)
        };
        let mut ahead: VecDeque<Staged> = VecDeque::with_capacity(depth);
        let mut pool: Vec<Staged> = Vec::with_capacity(depth);
        let mut next = 0;
        for j in 0..pages {
            while ahead.len() < depth && next < pages {
                let mut st = pool.pop().unwrap_or_else(|| Staged {
                    page: 0,
                    live: false,
                    data: vec![0; spp as usize * ss],
                    oob: vec![0xFF; oob_len],
                });
                st.page = next;
                let valid = |s: u32| self.is_valid(self.layout.psa(victim, next, s));
                let first = (0..spp).find(|&s| valid(s));
                let last = (0..spp).rev().find(|&s| valid(s));
                st.live = false;
                if let (Some(lo), Some(hi)) = (first, last) {
                    let addr = self.layout.page_addr(victim, next);
                    let (lo, hi) = (lo as usize, hi as usize + 1);
                    self.flash.read_for_copy(
                        addr,
                        lo as u32,
                        &mut st.data[lo * ss..hi * ss],
                        &mut st.oob,
                    )?;
                    st.live = true;
                }
                ahead.push_back(st);
                next += 1;
            }
            let Some(st) = ahead.pop_front() else {
                break;
            };
            debug_assert_eq!(st.page, j);
            if st.live {
                let page = self.layout.page_addr(victim, j);
                for s in 0..spp {
                    let old = self.layout.psa(victim, j, s);
                    if !self.is_valid(old) {
                        continue;
                    }
                    // The page's data-sector CRCs travel with the sectors.
                    let crc = data_oob::CRC.at(s as usize * DATA_OOB_LEN).get_u32(&st.oob);
                    let la = self.la_of(old, s, &st.oob)?;
                    let sector = &st.data[s as usize * ss..(s as usize + 1) * ss];
                    let psa = self.append_relocated(page, la, sector, crc)?;
                    self.remap(la, psa, crc);
                    #[cfg(debug_assertions)]
                    self.ghost.moves.push((la, old, psa));
                    self.delta.note_sector(la, psa, crc);
                    self.delta.push(&mut self.flash, &self.layout, la, psa)?;
                    self.stats.gc_sectors_relocated += 1;
                }
            }
            pool.push(st);
        }
        Ok(())
    }
}

/// A victim page read ahead: whether it held valid sectors when read, and
/// then the span of them and the page's data-sector OOB.
struct Staged {
    page: u32,
    live: bool,
    data: Vec<u8>,
    oob: Vec<u8>,
}

/// Stripes of victim pages GC keeps read ahead.
const READ_AHEAD_STRIPES: u32 = 2;
