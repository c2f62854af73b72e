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
use super::layout::Address;
#[cfg(all(debug_assertions, feature = "ghost"))]
use super::layout::La;
#[cfg(all(debug_assertions, feature = "ghost"))]
use super::recovery;
use super::Scftl;

impl<F: Flash> Scftl<F> {
    /// The epoch committed: fold its L2P changes into the ghost stable L2P.
    pub(super) fn ghost_commit(&mut self) {
        self.commits += 1;
        #[cfg(debug_assertions)]
        {
            self.ghost.moves_charged = 0;
            self.ghost.replaced_at_commit = self.ghost.replaced;
            let g = &mut self.ghost;
            #[cfg(feature = "ghost")]
            for &(la, pa) in &g.pending {
                g.stable[la] = pa;
            }
            std::mem::swap(&mut g.pending, &mut g.last);
            g.pending.clear();
            std::mem::swap(&mut g.moves, &mut g.last_moves);
            g.moves.clear();
            g.erases_at_commit.clear();
            g.erases_at_commit
                .extend_from_slice(self.blocks.erase_counts());
        }
    }

    /// Records an in-page or OOB commit's facts for the refinement oracle
    /// (`crate::refine::ChainCommit`), just before its page is programmed;
    /// `note_chain_commit` counts the commit once the program succeeded.
    #[cfg_attr(not(debug_assertions), allow(unused_variables))]
    pub(super) fn ghost_chain_commit(&mut self, oob: bool, page: super::layout::Psa) {
        #[cfg(debug_assertions)]
        {
            let n = self.delta.npairs as usize;
            let pairs = (0..n)
                .map(|k| {
                    let (la, pa) = super::format::get_pair(&self.delta.buf, k);
                    (la.0, pa.0)
                })
                .collect();
            self.ghost.last_chain = Some(crate::refine::ChainCommit {
                oob,
                page: page.0,
                link: self.chain_link.0,
                tentative_pages: self.delta.epoch_pages,
                unsynced_before: self.unsynced_epochs,
                pairs,
            });
        }
    }

    /// Sectors the next epoch may consume without any block becoming free.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    /// With two streams only the emptier active superblock's room counts:
    /// the epoch may put all its sectors into the other stream.
    fn available_sectors(&self) -> u64 {
        let s = u64::from(self.layout.sectors_per_sb);
        let room = self
            .stream_states()
            .into_iter()
            .map(|(active, fill)| {
                active.map_or(0, |a| {
                    u64::from(self.layout.pages_per_sb - a.next_page) * u64::from(self.layout.spp)
                        - u64::from(fill)
                })
            })
            .min()
            .unwrap_or(0);
        self.blocks.available_sbs() * s + room
    }

    /// The §6.1 validators; a no-op in builds without debug assertions.
    pub(super) fn validate_after(&mut self, when: &str) -> Result<()> {
        #[cfg(debug_assertions)]
        {
            // Each stream's padding, and with two streams a superblock
            // for the rounding of an epoch split between them
            // (`config::slack` without the abandoned tails, which only
            // recovery leaves).
            let t = u64::from(self.config.gc_streams);
            let need = self.derived.epoch_pairs_max
                + t * (u64::from(self.layout.spp) - 1)
                + (t - 1) * u64::from(self.layout.sectors_per_sb);
            let have = self.available_sectors();
            // With superblocks lost to bad blocks (within the spare), the
            // space argument holds again only once GC has caught up with
            // the U it now runs at (`bad_superblocks_changed`), which takes
            // a few epochs after each loss: a shortfall then is expected,
            // and an epoch that does run out of superblocks turns the
            // device read-only where it happens (`open_active`). Turning it
            // read-only here instead left a device that lost one superblock
            // and then a power cut read-only for good, its spare unused
            // (the crash checker with `--spare-superblocks 2` on tiny: 97
            // of 99 read-only turns in one run were this).
            if have < need && self.lost_superblocks() == 0 {
                return Err(FtlError::NoSpace(format!(
                    "validator failed after {when}: {have} sectors are available for the next epoch but W + K*N + padding = {need} may be needed"
                )));
            }
            if when == "recovery" {
                // rebuild_maps already proved the whole L2P injective.
                return Ok(());
            }
            let mut placed = Vec::with_capacity(self.ghost.last.len());
            for &(la, _) in &self.ghost.last {
                let pa = self.l2p[la];
                if !pa.is_mapped() {
                    continue;
                }
                if !self.valid.get(pa) {
                    return Err(FtlError::Corrupt(format!(
                        "validator failed after {when}: logical sector {la} maps to physical sector {pa}, whose valid bit is clear"
                    )));
                }
                if let Some(p2l) = &self.p2l {
                    if p2l[pa] != la {
                        return Err(FtlError::Corrupt(format!(
                            "validator failed after {when}: logical sector {la} maps to physical sector {pa}, which P2L gives to {}",
                            p2l[pa]
                        )));
                    }
                }
                placed.push((pa, la));
            }
            // The epoch's sectors went to distinct places.
            placed.sort_unstable();
            placed.dedup();
            if let Some(w) = placed.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(FtlError::Corrupt(format!(
                    "validator failed after {when}: logical sectors {} and {} both map to physical sector {}",
                    w[0].1, w[1].1, w[0].0
                )));
            }
        }
        let _ = when;
        Ok(())
    }

    /// The refinement oracle's view (`crate::refine`): a copy of the L2P,
    /// the ghost stable L2P, the block table and the epoch's counters.
    /// `None` without debug assertions.
    /// [`crate::BlockDevice::refine_checkpoints`]: the committed
    /// checkpoints as recovery reads them (debug builds).
    pub(super) fn refine_checkpoints_impl(
        &mut self,
    ) -> Option<crate::device::Result<crate::refine::CheckpointView>> {
        #[cfg(debug_assertions)]
        {
            let mut page = vec![0u8; self.layout.page_size];
            Some(
                super::checkpoint::committed(
                    &mut self.flash,
                    &self.layout,
                    self.l2p.len(),
                    &mut page,
                    self.features.movable_metadata,
                )
                .map(|cps| crate::refine::CheckpointView {
                    committed: cps
                        .into_iter()
                        .map(|(g, l2p)| (g, l2p.into_iter().map(|p| p.0).collect()))
                        .collect(),
                }),
            )
        }
        #[cfg(not(debug_assertions))]
        None
    }

    pub(super) fn refine_view_impl(&self) -> Option<crate::refine::RefineView> {
        #[cfg(debug_assertions)]
        {
            let b = &self.blocks;
            let states = (0..self.layout.num_sbs)
                .map(|sb| b.state(super::layout::Sb(sb)))
                .collect();
            #[cfg(feature = "ghost")]
            let stable = Some(self.ghost.stable.as_slice().iter().map(|p| p.0).collect());
            #[cfg(not(feature = "ghost"))]
            let stable = None;
            Some(crate::refine::RefineView {
                sectors_per_sb: self.layout.sectors_per_sb,
                l2p: self.l2p.as_slice().iter().map(|p| p.0).collect(),
                buffered: self
                    .stream_states()
                    .into_iter()
                    .filter_map(|(a, fill)| a.map(|a| (a, fill)))
                    .flat_map(|(a, fill)| {
                        (0..fill).map(move |slot| self.layout.psa(a.sb, a.next_page, slot).0)
                    })
                    .collect(),
                stable,
                states,
                valid: b.valid_counts().to_vec(),
                erases: b.erase_counts().to_vec(),
                erases_at_commit: self.ghost.erases_at_commit.clone(),
                updates: self.updates,
                commits: self.commits,
                generation: self.delta.gen,
                moves_charged: self.ghost.moves_charged,
                moves: self
                    .ghost
                    .moves
                    .iter()
                    .map(|&(la, from, pa)| (la.0, from.0, pa.0))
                    .collect(),
                moves_before_commit: self
                    .ghost
                    .last_moves
                    .iter()
                    .map(|&(la, from, pa)| (la.0, from.0, pa.0))
                    .collect(),
                replaced: self.ghost.replaced,
                replaced_at_commit: self.ghost.replaced_at_commit,
                failed_programs: self.ghost.failed_programs.iter().map(|p| p.0).collect(),
                sectors_per_page: self.layout.spp,
                epoch_pairs: self
                    .delta
                    .epoch_pairs()
                    .map(|v| v.into_iter().map(|(la, pa)| (la.0, pa.0)).collect()),
                moving: self.wear_target.map(|sb| sb.index()),
                evacuating: self.evacuate.iter().map(|sb| sb.index()).collect(),
                read_only: self.worn_out.is_some(),
                chain_link: self.chain_link.0,
                chain_commits: self.ghost.chain_commits,
                hold_releases: self.stats.hold_releases,
                release_page: self.ghost.release_page,
                last_chain: self.ghost.last_chain.clone(),
                erase_durable: self.ghost.erase_durable.clone(),
                region: (!self.delta.broken).then_some(crate::refine::RegionView {
                    pages: self.delta.region_pages,
                    used: self.delta.wp,
                    epoch_pages: self.delta.epoch_pages,
                    consolidation_owed: !self.delta.backlog.is_empty(),
                    backlog_sbs: self.delta.backlog_sbs.iter().map(|sb| sb.index()).collect(),
                    epoch_pages_max: self.derived.epoch_pages_max,
                    pairs_per_page: self.delta.pairs_per_page,
                    buffered_pairs: self.delta.npairs,
                }),
            })
        }
        #[cfg(not(debug_assertions))]
        None
    }

    pub(super) fn check_invariants_impl(&mut self) -> Result<(), String> {
        self.check_bad_persisted()?;
        if self.worn_out.is_some() {
            return self.check_read_only_state();
        }
        let l = &self.layout;
        let mut counted = vec![0u32; l.num_sbs as usize];
        let mut seen = super::map::ValidMap::empty(l.num_sbs as usize * l.sectors_per_sb as usize);
        for (la, pa) in self.l2p.iter() {
            if !pa.is_mapped() {
                continue;
            }
            if !l.is_data_psa(pa) {
                return Err(format!("L2P[{la}] = {pa} is outside the data region"));
            }
            let sb = l.sb_of(pa);
            let st = self.blocks.state(sb);
            if st != SbState::Used && st != SbState::Active {
                return Err(format!(
                    "L2P[{la}] = {pa} points into superblock {sb}, which is {st:?}"
                ));
            }
            if seen.get(pa) {
                return Err(format!(
                    "L2P is not injective: L2P[{la}] = {pa}, which a lower logical sector maps to too"
                ));
            }
            seen.set(pa);
            if !self.valid.get(pa) {
                return Err(format!("L2P[{la}] = {pa} but its valid bit is clear"));
            }
            if let Some(p2l) = &self.p2l {
                if p2l[pa] != la {
                    return Err(format!("L2P[{la}] = {pa} but P2L[{pa}] = {}", p2l[pa]));
                }
            }
            counted[sb.index()] += 1;
        }
        // No valid bit without a logical sector mapping there.
        if let Some(sb) = (0..l.num_sbs)
            .map(super::layout::Sb)
            .find(|&sb| self.valid.count(l.sectors_of(sb)) != counted[sb.index()])
        {
            return Err(format!(
                "superblock {sb} has {} valid bits but the L2P maps {} sectors there",
                self.valid.count(l.sectors_of(sb)),
                counted[sb.index()]
            ));
        }
        let valid = self.blocks.valid_counts();
        if counted != valid {
            let sb = (0..counted.len())
                .find(|&i| counted[i] != valid[i])
                .unwrap_or(0);
            return Err(format!(
                "valid count of superblock {sb} is {} but the L2P maps {} sectors there",
                valid[sb], counted[sb]
            ));
        }
        let actives: Vec<_> = self
            .stream_states()
            .into_iter()
            .filter_map(|(a, _)| a.map(|a| a.sb))
            .collect();
        self.blocks.check(&actives, self.layout.meta_flags())?;
        if self.stream != super::Stream::Host {
            return Err("the cold stream is loaded outside relocation".into());
        }
        self.check_active_pointer()?;
        let w = u64::from(self.config.write_bound);
        if self.updates > w || self.gc_count > self.gc_bound {
            return Err(format!(
                "epoch counters {} updates / {} relocations exceed W={w} / K={}",
                self.updates, self.gc_count, self.gc_bound
            ));
        }
        if self.delta.wp > self.delta.region_pages || self.delta.npairs >= self.delta.pairs_per_page
        {
            return Err(format!(
                "delta log write pointer {} / buffered pairs {} out of range",
                self.delta.wp, self.delta.npairs
            ));
        }
        // A region with a bad block takes no page: it is broken until the
        // next flush's full checkpoint moves it (docs/FORMAT.md §4.10).
        if let Some(&sb) = self
            .layout
            .meta()
            .delta
            .iter()
            .find(|&&sb| self.has_bad_block(sb))
        {
            if !self.delta.broken {
                return Err(format!(
                    "delta region superblock {sb} has a bad erase block but the region is not marked broken"
                ));
            }
        }
        self.check_stable_matches_flash()?;
        self.check_oob_las()
    }

    /// The bad-block table is the device's wear records: every superblock
    /// SCFTL retired or is emptying because of a bad block has one there,
    /// so a reopen finds it bad too.
    fn check_bad_persisted(&self) -> Result<(), String> {
        for sb in (0..self.layout.num_sbs).map(super::layout::Sb) {
            let retired = self.blocks.state(sb) == SbState::Bad || self.evacuate.contains(&sb);
            if retired && !self.has_bad_block(sb) {
                return Err(format!(
                    "superblock {sb} is retired (or being emptied) for a bad block, but the device records none of its blocks as bad"
                ));
            }
        }
        Ok(())
    }

    /// A device read-only after a media failure: the failure may have
    /// stopped any operation half-way (GC between marking a victim and
    /// moving its last sector, a delta buffer left full, the epoch's
    /// counters), none of which is used again; what reads use must hold:
    /// every mapped sector lies in a data superblock, holds its valid bit,
    /// and no two share a place. (The crash checker compares what recovery
    /// rebuilds with its model.)
    fn check_read_only_state(&self) -> Result<(), String> {
        let l = &self.layout;
        let mut seen = super::map::ValidMap::empty(l.num_sbs as usize * l.sectors_per_sb as usize);
        for (la, pa) in self.l2p.iter() {
            if !pa.is_mapped() {
                continue;
            }
            if !l.is_data_psa(pa) || !self.valid.get(pa) || seen.get(pa) {
                return Err(format!(
                    "read-only device: L2P[{la}] = {pa} is outside the data region, not valid, or shared"
                ));
            }
            seen.set(pa);
        }
        Ok(())
    }

    /// Debug builds with the `ghost` feature, version-5 images: every
    /// mapped sector on flash carries its logical sector number in its
    /// page's OOB (what GC relocates by). One OOB read per page.
    fn check_oob_las(&mut self) -> Result<(), String> {
        #[cfg(all(debug_assertions, feature = "ghost"))]
        if self.p2l.is_none() {
            let l = &self.layout;
            // Sectors in the merge buffers are not on flash yet.
            let open: Vec<_> = self
                .stream_states()
                .into_iter()
                .filter_map(|(a, _)| a)
                .filter(|a| a.next_page < l.pages_per_sb)
                .map(|a| l.psa(a.sb, a.next_page, 0))
                .collect();
            let mut placed: Vec<(super::layout::Psa, La)> = self
                .l2p
                .iter()
                .filter(|&(_, pa)| {
                    pa.is_mapped() && open.iter().all(|b| pa.0 / l.spp != b.0 / l.spp)
                })
                .map(|(la, pa)| (pa, la))
                .collect();
            placed.sort_unstable();
            let mut oob = vec![0u8; super::format::data_oob_len_v5(l.spp)];
            let mut read_page = None;
            for (pa, la) in placed {
                let (page, slot) = l.locate(pa);
                if read_page != Some(page) {
                    self.flash
                        .read_oob(page, &mut oob)
                        .map_err(|e| format!("reading the OOB of {page}: {e}"))?;
                    read_page = Some(page);
                }
                let at = super::format::data_la_offset(l.spp, slot);
                let got = u32::from_le_bytes(oob[at..at + 4].try_into().unwrap());
                if got != la.0 {
                    return Err(format!(
                        "L2P[{la}] = {pa}, but the OOB of {page} slot {slot} names logical sector {got}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The active pointer and the merge buffer (see `mod.rs`).
    fn check_active_pointer(&self) -> Result<(), String> {
        let l = &self.layout;
        for (active, fill) in self.stream_states() {
            match active {
                Some(a) => {
                    if a.next_page > l.pages_per_sb || fill > l.spp {
                        return Err(format!(
                            "active pointer page {} / merge buffer fill {fill} out of range",
                            a.next_page
                        ));
                    }
                    if a.next_page == l.pages_per_sb && fill != 0 {
                        return Err("full active superblock with a non-empty merge buffer".into());
                    }
                }
                None => {
                    if fill != 0 {
                        return Err(format!("no active pointer but {fill} buffered sectors"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Debug builds with the `ghost` feature: the stable L2P rebuilt from
    /// flash (recovery's own code, read-only) equals the ghost copy taken at
    /// the last flush.
    fn check_stable_matches_flash(&mut self) -> Result<(), String> {
        #[cfg(all(debug_assertions, feature = "ghost"))]
        {
            let mut page = vec![0u8; self.layout.page_size];
            let rec = recovery::reconstruct(
                &mut self.flash,
                &self.layout,
                self.l2p.len(),
                self.mutant,
                &mut page,
                self.features,
            )
            .map_err(|e| format!("stable L2P cannot be rebuilt from flash: {e}"))?;
            if &rec.map != self.layout.meta() {
                return Err(format!(
                    "the newest checkpoint on flash names the metadata map {:?}, but the FTL uses {:?}",
                    rec.map,
                    self.layout.meta()
                ));
            }
            if rec.l2p != self.ghost.stable {
                let la = (0..rec.l2p.len() as u32)
                    .map(La)
                    .find(|&la| rec.l2p[la] != self.ghost.stable[la])
                    .unwrap_or(La(0));
                return Err(format!(
                    "stable L2P on flash differs from the L2P at the last flush: sector {la} maps to {} on flash but was {} at the flush",
                    rec.l2p[la], self.ghost.stable[la]
                ));
            }
        }
        Ok(())
    }
}
