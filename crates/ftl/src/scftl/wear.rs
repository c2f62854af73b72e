//! SCFTL's wear leveling (the policy and its validator are
//! `crate::wear`'s; this file applies them to superblocks).
//!
//! Dynamic: `open_active` asks [`Scftl::wear_choice`] for the least-worn
//! candidate superblock; `Blocks::activate_next` validates it (it must be in
//! the queue FIFO takes from, and *settled*) or falls back to FIFO. Erasable
//! superblocks hold nothing a state a crash may return to points into (the
//! sync-before-erase rule of `open_active` is unchanged), but a recovery
//! still verifies the epochs no synced page proves durable against their
//! digests, which may cover sectors a later epoch moved out of the
//! superblock: erasing it early would make such a recovery fall back past
//! epochs a sync made durable. So a superblock is a candidate only once
//! every epoch before the one that freed it is proven durable on flash
//! (`proven_below`: a synced delta page with the after-sync flag past them,
//! or a full checkpoint). The crash checker found this
//! (`--wear-leveling`, tiny, seeds 31 and 54 failed before the rule): FIFO
//! order had made it unlikely, since a superblock freed last is erased
//! last.
//!
//! Static: after a flush, when the most-worn data superblock has more than
//! `static_spread` erases above the least-worn used one,
//! that one becomes the *target*, and each flush moves up to a quarter of
//! the new epoch's write budget of its valid sectors, exactly as GC
//! relocates them (same append path, delta pairs, CRCs copied unchecked),
//! but charged to the epoch's updates like host writes, so the constraints'
//! space and delta-region arguments hold unchanged (W bounds host writes
//! plus moves; K·N bounds GC). A moved sector keeps its content, so no read
//! and no crash state changes. Once the target holds no valid sector it
//! becomes invalid (a victim without relocations) and erasable at the next
//! flush. The target is validated at every step: it must still be a used
//! superblock, else it is dropped.
//!
//! Metadata rotation (with any leveling on, configuration version 7): the
//! checkpoint slots and the delta region are erased at every full
//! checkpoint, so they would wear several times faster than data. At a
//! full checkpoint ([`Scftl::rotation_choice`]), each superblock it is
//! about to erase again — the target slot's and the delta region's — that
//! is more worn than one of the least-worn settled free superblocks is
//! swapped for it (most worn with least worn; with dynamic or static
//! leveling on, but with no spread: a swap costs no extra erase), so the
//! checkpoint and the next delta region go there (`flush.rs`
//! `full_checkpoint`), and the replaced ones join the data pool once the
//! checkpoint is committed. The pool loses and gains
//! the same number of superblocks within one flush, and the checkpoint
//! allocates no data, so the space constraints' arguments are untouched.
//! A rotation waits while in-page or OOB commits await their consolidation
//! page (the backlog): their records sit in data superblocks that recovery
//! may still need, and the fresh superblocks are erased before the commit
//! point. Recovery finds the rotated checkpoint by a scan
//! (`checkpoint.rs`).
//!
//! Evacuation (not a policy: always on): a used superblock with a bad erase
//! block — a program failed in it (datapath.rs `abandon_active`) or
//! recovery found one (`rebuild_maps`) — is emptied the same way, before
//! any static move and up to half the next epoch's budget per flush, and
//! then retired (bad state): never erased or filled again.

use flash::Flash;

use crate::device::{FtlError, Result};
use crate::wear::{self, WearPolicy};

use super::blocks::SbState;
use super::format::{self, data_oob, DATA_OOB_LEN};
use super::layout::{MetaMap, Sb};
use super::Scftl;

impl<F: Flash> Scftl<F> {
    /// Sets how superblocks are chosen and data moved for wear (default:
    /// [`WearPolicy::OFF`], FIFO). Takes effect at the next allocation and
    /// the next flush.
    pub fn set_wear_policy(&mut self, policy: WearPolicy) {
        self.wear = policy;
        if policy.static_spread.is_none() {
            self.wear_target = None;
        }
    }

    /// The wear policy in force.
    pub fn wear_policy(&self) -> WearPolicy {
        self.wear
    }

    /// Dynamic wear leveling's pick for the next active superblock: the
    /// least-worn candidate, or `None` when dynamic leveling is off.
    pub(super) fn wear_choice(&self) -> Option<Sb> {
        if !self.wear.dynamic {
            return None;
        }
        wear::least_worn(self.blocks.candidates(self.erase_bound()), |sb| {
            self.blocks.wear(sb)
        })
    }

    /// A superblock's wear on the device: its most-worn erase block's
    /// erase count.
    fn device_wear(&self, sb: Sb) -> u64 {
        wear::stripe_wear(&self.flash, self.layout.erase_blocks(sb))
    }

    /// Metadata rotation's pick for a full checkpoint into slot `target`:
    /// the map to write it under, or `None` to keep the map (see the top
    /// of this file). The superblocks it would erase again — the target
    /// slot's and the delta region's — are paired, most worn first, with
    /// the least-worn settled free superblocks, and each pair whose first
    /// is the more worn is swapped (as many as there are candidates: the
    /// pool may hold only a few).
    pub(super) fn rotation_choice(&self, target: usize) -> Option<MetaMap> {
        // Any leveling on (dynamic alone, as `scftl mount` runs, included:
        // a rotation moves no data and allocates none, so it takes nothing
        // from the epoch's budget). Static leveling's spread does not
        // apply: swapping costs no extra erase (the swapped-in superblock
        // is erased instead of the swapped-out one), so any difference is
        // worth it.
        if !self.wear.is_on() {
            return None;
        }
        if !self.features.movable_metadata || !self.delta.backlog.is_empty() {
            return None;
        }
        let map = self.layout.meta();
        // (wear, list: 0 = the slot, 1 = the delta region, position)
        let mut replaced: Vec<(u64, usize, usize)> = map.slots[target]
            .iter()
            .enumerate()
            .map(|(i, &sb)| (self.device_wear(sb), 0, i))
            .chain(
                map.delta
                    .iter()
                    .enumerate()
                    .map(|(i, &sb)| (self.device_wear(sb), 1, i)),
            )
            .collect();
        replaced.sort_unstable_by_key(|&(w, l, i)| (std::cmp::Reverse(w), l, i));
        let mut cands: Vec<(u64, Sb)> = self
            .blocks
            .meta_candidates(self.erase_bound())
            .into_iter()
            .map(|sb| (self.device_wear(sb), sb))
            .collect();
        cands.sort_unstable();
        let mut next = map.clone();
        let mut moved = false;
        for (&(worn, list, i), &(fresh, sb)) in replaced.iter().zip(&cands) {
            if worn <= fresh {
                break;
            }
            let sbs = if list == 0 {
                &mut next.slots[target]
            } else {
                &mut next.delta
            };
            sbs[i] = sb;
            moved = true;
        }
        moved.then_some(next)
    }

    /// After a checkpoint committed under `next` (a rotation): the block
    /// table follows the map.
    pub(super) fn apply_rotation(&mut self, next: MetaMap) {
        let old = self.layout.meta().clone();
        let is_new = |sb: &Sb| !old.all().any(|o| o == *sb);
        let taken: Vec<Sb> = next.all().filter(is_new).collect();
        let released: Vec<Sb> = old
            .all()
            .filter(|sb| !next.all().any(|n| n == *sb))
            .collect();
        let wear: Vec<u64> = (0..self.layout.num_sbs)
            .map(|sb| self.device_wear(Sb(sb)))
            .collect();
        // Those leaving the map because of a bad block (`repair_map`).
        let bad: Vec<Sb> = released
            .iter()
            .copied()
            .filter(|&sb| self.has_bad_block(sb))
            .collect();
        self.blocks.take_for_meta(&taken, |sb| wear[sb.0 as usize]);
        self.blocks
            .release_meta(&released, |sb| wear[sb.0 as usize], |sb| bad.contains(&sb));
        self.layout.set_meta(next);
        self.wear_stats.meta_rotations += 1;
        if !bad.is_empty() {
            self.bad_superblocks_changed_in_epoch();
        }
    }

    /// Whether an erase block of `sb` is bad on the device.
    pub(super) fn has_bad_block(&self, sb: Sb) -> bool {
        self.layout
            .erase_blocks(sb)
            .any(|b| self.flash.block_wear(b).is_ok_and(|w| w.is_bad()))
    }

    /// The map a full checkpoint into slot `target` is written under:
    /// `wear_choice` (metadata rotation's, `None` for the map now) with
    /// every superblock of the target slot and of the delta region that
    /// has a bad erase block replaced by the least-worn settled free or
    /// erasable superblock (docs/FORMAT.md §4.10). Returns the map (`None`:
    /// keep the current one) and whether it replaced a bad superblock.
    /// Never a superblock recovery may still read before the checkpoint
    /// commits: the in-page or OOB records of the backlog
    /// (`delta.backlog_sbs`) and, right after recovery, the sectors of
    /// the epochs it verified (`recovery_avoid`); their erase before the
    /// commit point could make a crash lose a flushed epoch.
    /// `FtlError::WornOut` when no superblock is left to replace one.
    /// Images whose regions cannot move keep their map.
    pub(super) fn repair_map(
        &self,
        wear_choice: Option<MetaMap>,
        target: usize,
    ) -> Result<(Option<MetaMap>, bool)> {
        if !self.delta.movable {
            return Ok((wear_choice, false));
        }
        let mut map = wear_choice
            .clone()
            .unwrap_or_else(|| self.layout.meta().clone());
        let broken: Vec<(usize, usize, Sb)> = map.slots[target]
            .iter()
            .enumerate()
            .map(|(i, &sb)| (0, i, sb))
            .chain(map.delta.iter().enumerate().map(|(i, &sb)| (1, i, sb)))
            .filter(|&(_, _, sb)| self.has_bad_block(sb))
            .collect();
        if broken.is_empty() {
            return Ok((wear_choice, false));
        }
        let avoid =
            |sb: &Sb| self.delta.backlog_sbs.contains(sb) || self.recovery_avoid.contains(sb);
        let cands_under = |bound: u64| -> Vec<(u64, Sb)> {
            self.blocks
                .meta_candidates(bound)
                .into_iter()
                .filter(|sb| !avoid(sb) && !map.all().any(|m| m == *sb) && !self.has_bad_block(*sb))
                .map(|sb| (self.device_wear(sb), sb))
                .collect()
        };
        // Superblocks the erase hold keeps are taken only when too few
        // others are left: the one place the code may erase a held
        // superblock (docs/FORMAT.md §4.3, "The erase hold"), a media
        // failure's repair, where failing would turn the device read-only.
        let mut cands = cands_under(self.erase_bound());
        if cands.len() < broken.len() {
            cands = cands_under(self.proven_below);
        }
        cands.sort_unstable();
        if cands.len() < broken.len() {
            let (_, _, sb) = broken[0];
            return Err(FtlError::WornOut(format!(
                "metadata superblock {sb} has a bad erase block and no free superblock is left to move it to ({} needed, {} available)",
                broken.len(),
                cands.len()
            )));
        }
        for (&(list, i, _), &(_, sb)) in broken.iter().zip(&cands) {
            if list == 0 {
                map.slots[target][i] = sb;
            } else {
                map.delta[i] = sb;
            }
        }
        Ok((Some(map), true))
    }

    /// After a full checkpoint attempt failed on the media: the pool
    /// superblocks it had taken (`attempted`) that got a bad erase block
    /// retire for good.
    pub(super) fn retire_bad_candidates(&mut self) {
        let attempted = std::mem::take(&mut self.attempted);
        let mut any = false;
        for sb in attempted {
            if self.has_bad_block(sb)
                && matches!(self.blocks.state(sb), SbState::Free | SbState::Erasable)
            {
                self.blocks.retire_pooled(sb);
                any = true;
            }
        }
        if any {
            self.bad_superblocks_changed_in_epoch();
        }
    }

    /// Static wear leveling's step at the end of a flush: picks (or keeps)
    /// a target and moves a bounded number of its valid sectors.
    pub(super) fn wear_level_step(&mut self) -> Result<()> {
        // Superblocks with a bad erase block are emptied first, whatever the
        // policy, up to half the epoch's budget per flush, then retired
        // (GC may have taken one meanwhile: its erase then fails and
        // retires it).
        let blocks = &self.blocks;
        self.evacuate
            .retain(|&sb| blocks.state(sb) == SbState::Used);
        if let Some(&t) = self.evacuate.first() {
            let limit = u64::from(self.config.write_bound).saturating_sub(self.updates) / 2;
            self.move_for_wear(t, limit)?;
            if self.blocks.valid_counts()[t.0 as usize] == 0 {
                self.blocks.retire(t);
                self.evacuate.remove(0);
                self.bad_superblocks_changed_in_epoch();
            }
            return Ok(());
        }
        let Some(spread) = self.wear.static_spread else {
            return Ok(());
        };
        // The validator: a target must still be used (GC may have taken it).
        if let Some(t) = self.wear_target {
            if self.blocks.state(t) != SbState::Used {
                self.wear_target = None;
            }
        }
        if self.wear_target.is_none() {
            let (max, holding) = self.blocks.wear_spread();
            self.wear_target = wear::static_candidate(holding, max, spread);
            if self.wear_target.is_some() {
                self.wear_stats.static_moves += 1;
            }
        }
        let Some(t) = self.wear_target else {
            return Ok(());
        };
        let limit = u64::from(self.config.write_bound).saturating_sub(self.updates) / 4;
        if limit > 0 {
            let moved = self.move_for_wear(t, limit)?;
            self.wear_stats.static_sectors += moved;
        }
        if self.blocks.valid_counts()[t.0 as usize] == 0 {
            self.blocks.mark_victim(t);
            self.wear_target = None;
        }
        Ok(())
    }

    /// Moves up to `limit` valid sectors of `sb` to the active pointer, as
    /// GC relocates them, each charged to the epoch's updates; returns how
    /// many moved.
    fn move_for_wear(&mut self, sb: Sb, limit: u64) -> Result<u64> {
        self.with_cold_stream(|me| me.move_cold(sb, limit))
    }

    /// [`Self::move_for_wear`] with the cold stream loaded.
    fn move_cold(&mut self, sb: Sb, limit: u64) -> Result<u64> {
        let spp = self.layout.spp;
        let ss = self.layout.sector_size;
        let oob_len = if self.p2l.is_some() {
            spp as usize * DATA_OOB_LEN
        } else {
            format::data_oob_len_v5(spp)
        };
        let mut data = vec![0u8; spp as usize * ss];
        let mut oob = vec![0xFFu8; oob_len];
        let mut moved = 0;
        for j in 0..self.layout.pages_per_sb {
            if moved == limit {
                break;
            }
            if !(0..spp).any(|s| self.valid.get(self.layout.psa(sb, j, s))) {
                continue;
            }
            let page = self.layout.page_addr(sb, j);
            self.flash.read_with_oob(page, 0, &mut data, &mut oob)?;
            for s in 0..spp {
                let old = self.layout.psa(sb, j, s);
                if moved == limit || !self.valid.get(old) {
                    continue;
                }
                let crc = data_oob::CRC.at(s as usize * DATA_OOB_LEN).get_u32(&oob);
                let la = self.la_of(old, s, &oob)?;
                let sector = &data[s as usize * ss..(s as usize + 1) * ss];
                // Charged before the append: a program failure in it
                // reprograms the page elsewhere against what is left of W.
                self.updates += 1;
                #[cfg(debug_assertions)]
                {
                    self.ghost.moves_charged += 1;
                }
                let psa = self.append_relocated(page, la, sector, crc)?;
                self.remap(la, psa, crc);
                #[cfg(debug_assertions)]
                self.ghost.moves.push((la, old, psa));
                self.delta.note_sector(la, psa, crc);
                self.delta.push(&mut self.flash, &self.layout, la, psa)?;
                moved += 1;
            }
        }
        Ok(moved)
    }
}
