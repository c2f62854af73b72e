//! `check_invariants` (the paper's representation invariant RI and
//! abstraction relation AR, as far as they can be checked at run time), the
//! §6.1 validators, and the ghost copy of the stable L2P.
//!
//! Validators (debug builds, i.e. also the crash checker's release profile
//! which keeps debug assertions): after every flush and every recovery,
//! (a) the L2P pairs changed in the epoch keep the L2P injective, and (b)
//! the free + erasable superblocks plus the room left in the active one
//! hold at least `W + K*N + (sectors_per_page - 1)` sectors, i.e. the next
//! epoch's writes, relocations and flush padding fit. A failure is an
//! error value (`Corrupt` / `NoSpace`), never silent.

use flash::Flash;

#[cfg(debug_assertions)]
use crate::device::FtlError;
use crate::device::Result;

use super::blocks::SbState;
#[cfg(debug_assertions)]
use super::recovery;
use super::Scftl;
use crate::UNMAPPED;

impl<F: Flash> Scftl<F> {
    /// The epoch committed: fold its L2P changes into the ghost stable L2P.
    pub(super) fn ghost_commit(&mut self) {
        #[cfg(debug_assertions)]
        {
            let g = &mut self.ghost;
            for &(la, pa) in &g.pending {
                g.stable[la as usize] = pa;
            }
            std::mem::swap(&mut g.pending, &mut g.last);
            g.pending.clear();
        }
    }

    /// Sectors the next epoch may consume without any block becoming free.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    fn available_sectors(&self) -> u64 {
        let s = u64::from(self.layout.sectors_per_sb);
        let active = self.active.map_or(0, |a| {
            u64::from(self.layout.pages_per_sb - a.next_page) * u64::from(self.layout.spp)
                - u64::from(self.mb_fill)
        });
        self.blocks.available_sbs() * s + active
    }

    /// The §6.1 validators; a no-op in builds without debug assertions.
    pub(super) fn validate_after(&mut self, when: &str) -> Result<()> {
        #[cfg(debug_assertions)]
        {
            let need = self.derived.epoch_pairs_max + u64::from(self.layout.spp) - 1;
            let have = self.available_sectors();
            if have < need {
                return Err(FtlError::NoSpace(format!(
                    "validator failed after {when}: {have} sectors are available for the next epoch but W + K*N + padding = {need} may be needed"
                )));
            }
            if when == "recovery" {
                // rebuild_p2l already proved the whole L2P injective.
                return Ok(());
            }
            for &(la, _) in &self.ghost.last {
                let pa = self.l2p[la as usize];
                if pa != UNMAPPED && self.p2l[pa as usize] != la {
                    return Err(FtlError::Corrupt(format!(
                        "validator failed after {when}: logical sector {la} maps to physical sector {pa}, which P2L gives to {}",
                        self.p2l[pa as usize]
                    )));
                }
            }
        }
        let _ = when;
        Ok(())
    }

    pub(super) fn check_invariants_impl(&mut self) -> Result<(), String> {
        let l = &self.layout;
        let s = l.sectors_per_sb;
        let mut counted = vec![0u32; l.num_sbs as usize];
        for (la, &pa) in self.l2p.iter().enumerate() {
            if pa == UNMAPPED {
                continue;
            }
            if !l.is_data_psa(pa) {
                return Err(format!("L2P[{la}] = {pa} is outside the data region"));
            }
            let sb = pa / s;
            let st = self.blocks.state[sb as usize];
            if st != SbState::Used && st != SbState::Active {
                return Err(format!(
                    "L2P[{la}] = {pa} points into superblock {sb}, which is {st:?}"
                ));
            }
            if self.p2l[pa as usize] != la as u32 {
                return Err(format!(
                    "L2P[{la}] = {pa} but P2L[{pa}] = {}",
                    self.p2l[pa as usize]
                ));
            }
            counted[sb as usize] += 1;
        }
        if counted != self.blocks.valid {
            let sb = (0..counted.len())
                .find(|&i| counted[i] != self.blocks.valid[i])
                .unwrap_or(0);
            return Err(format!(
                "valid count of superblock {sb} is {} but the L2P maps {} sectors there",
                self.blocks.valid[sb], counted[sb]
            ));
        }
        self.check_queues()?;
        let w = u64::from(self.config.write_bound);
        if self.updates > w || self.gc_count > self.config.gc_bound {
            return Err(format!(
                "epoch counters {} updates / {} relocations exceed W={w} / K={}",
                self.updates, self.gc_count, self.config.gc_bound
            ));
        }
        if self.delta.wp > self.delta.region_pages || self.delta.npairs >= self.delta.pairs_per_page
        {
            return Err(format!(
                "delta log write pointer {} / buffered pairs {} out of range",
                self.delta.wp, self.delta.npairs
            ));
        }
        self.check_stable_matches_flash()
    }

    fn check_queues(&self) -> Result<(), String> {
        let b = &self.blocks;
        let l = &self.layout;
        let mut seen = vec![0u8; l.num_sbs as usize];
        let mut mark = |list: &mut dyn Iterator<Item = u32>, want: SbState| {
            for sb in list {
                if sb < b.data_first || sb >= l.num_sbs {
                    return Err(format!("{want:?} queue holds non-data superblock {sb}"));
                }
                if b.state[sb as usize] != want {
                    return Err(format!(
                        "superblock {sb} is in the {want:?} queue but its state is {:?}",
                        b.state[sb as usize]
                    ));
                }
                seen[sb as usize] += 1;
            }
            Ok(())
        };
        mark(&mut b.free.iter().copied(), SbState::Free)?;
        mark(&mut b.erasable.iter().copied(), SbState::Erasable)?;
        mark(&mut b.invalid.iter().copied(), SbState::Invalid)?;
        let mut used = 0;
        let mut actives = 0;
        for sb in 0..l.num_sbs {
            let st = b.state[sb as usize];
            let is_meta = sb < b.data_first;
            if is_meta != (st == SbState::Meta) {
                return Err(format!("superblock {sb} has state {st:?}"));
            }
            match st {
                SbState::Used => used += 1,
                SbState::Active => actives += 1,
                SbState::Free | SbState::Erasable | SbState::Invalid => {
                    if seen[sb as usize] != 1 {
                        return Err(format!(
                            "superblock {sb} is {st:?} but appears {} times in that queue",
                            seen[sb as usize]
                        ));
                    }
                    if b.valid[sb as usize] != 0 {
                        return Err(format!(
                            "{st:?} superblock {sb} still holds {} valid sectors",
                            b.valid[sb as usize]
                        ));
                    }
                }
                SbState::Meta => {}
            }
        }
        if used != b.used {
            return Err(format!(
                "used count {} but {used} superblocks are used",
                b.used
            ));
        }
        match self.active {
            Some(a) => {
                if actives != 1 || b.state[a.sb as usize] != SbState::Active {
                    return Err(format!(
                        "active pointer names superblock {} but {actives} superblocks are active",
                        a.sb
                    ));
                }
                if a.next_page > l.pages_per_sb || self.mb_fill >= l.spp {
                    return Err(format!(
                        "active pointer page {} / merge buffer fill {} out of range",
                        a.next_page, self.mb_fill
                    ));
                }
                if a.next_page == l.pages_per_sb && self.mb_fill != 0 {
                    return Err("full active superblock with a non-empty merge buffer".into());
                }
            }
            None => {
                if actives != 0 || self.mb_fill != 0 {
                    return Err(format!(
                        "no active pointer but {actives} active superblocks and {} buffered sectors",
                        self.mb_fill
                    ));
                }
            }
        }
        Ok(())
    }

    /// Debug builds: the stable L2P rebuilt from flash (recovery's own
    /// code, read-only) equals the ghost copy taken at the last flush.
    fn check_stable_matches_flash(&mut self) -> Result<(), String> {
        #[cfg(debug_assertions)]
        {
            let mut page = vec![0u8; self.layout.page_size];
            let rec = recovery::reconstruct(
                &mut self.flash,
                &self.layout,
                self.l2p.len(),
                self.mutant,
                &mut page,
            )
            .map_err(|e| format!("stable L2P cannot be rebuilt from flash: {e}"))?;
            if rec.l2p != self.ghost.stable {
                let la = (0..rec.l2p.len())
                    .find(|&i| rec.l2p[i] != self.ghost.stable[i])
                    .unwrap_or(0);
                return Err(format!(
                    "stable L2P on flash differs from the L2P at the last flush: sector {la} maps to {} on flash but was {} at the flush",
                    rec.l2p[la], self.ghost.stable[la]
                ));
            }
        }
        Ok(())
    }
}
