//! Superblock states, the block queues of two-phase GC and valid counts.
//! This file owns them: the rest of SCFTL reads them through accessors and
//! changes them only through the transitions below, each of which checks
//! its precondition (debug assertions: a violation is a bug in SCFTL, never
//! the result of caller input).
//!
//! Life of a data superblock: free → active ([`Blocks::activate_next`]) →
//! used ([`Blocks::retire_active`]) → invalid ([`Blocks::mark_victim`], a
//! GC victim) → erasable ([`Blocks::end_epoch`], at the end of a flush) →
//! active again ([`Blocks::activate_next`], erased first), or erasable →
//! free ([`Blocks::erase_ahead`], erased after a sync, before it is
//! needed) → active. After format and after recovery ([`Blocks::rebuild`])
//! there are no free blocks: every unreferenced superblock is erasable,
//! because we cannot know whether it was erased.
//!
//! Invariants (checked by [`Blocks::check`]):
//! - every data superblock is in exactly one state, and the `free` /
//!   `erasable` queues and `invalid` list hold exactly the superblocks in
//!   that state, each once; `used` counts the `Used` ones; exactly those
//!   the write streams' active pointers name are `Active` (at most two,
//!   `streams.rs`);
//! - metadata superblocks (superblock 0 and the metadata map's) are
//!   `Meta`; a full checkpoint that rotates the metadata moves superblocks
//!   between `Meta` and the data states ([`Blocks::take_for_meta`],
//!   [`Blocks::release_meta`]), nothing else changes a `Meta` state;
//! - `valid[sb]` is the number of logical sectors the volatile L2P maps
//!   into `sb`; it is 0 for free, invalid and erasable superblocks.

use std::collections::VecDeque;

use crate::wear::{self, WearStats};

use super::layout::{Address, Sb};

/// State of a superblock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SbState {
    /// Label, checkpoint slot or delta region.
    Meta,
    /// Erased, ready to become active.
    Free,
    /// Being filled (at most one).
    Active,
    /// Full (or abandoned by a crash) and holding data.
    Used,
    /// Relocated by GC in this epoch; the stable L2P may still point here.
    Invalid,
    /// No L2P points here any more; erase before reuse.
    Erasable,
    /// Retired: one of its erase blocks is bad (from the factory, worn out
    /// by a failed erase, or retired after a failed program). Never
    /// programmed or erased again; holds no valid sector.
    Bad,
}

/// How many data superblocks are in each state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StateCounts {
    pub free: u64,
    pub active: u64,
    pub used: u64,
    pub invalid: u64,
    pub erasable: u64,
    pub bad: u64,
}

/// The block table.
#[derive(Clone, Debug)]
pub(crate) struct Blocks {
    state: Vec<SbState>,
    valid: Vec<u32>,
    /// Erases issued per superblock since open.
    erase_count: Vec<u64>,
    /// Each superblock's wear when the table was made (its most-worn erase
    /// block's erase count on the device, [`Blocks::set_wear_base`]): with
    /// `erase_count`, the superblock's wear for wear leveling.
    wear_base: Vec<u64>,
    /// The epoch at whose end each superblock last became erasable (0:
    /// at format or recovery). Wear leveling may take an erasable
    /// superblock out of FIFO order only once every epoch before that one
    /// is proven durable on flash ([`Blocks::activate_next`]).
    freed_epoch: Vec<u64>,
    free: VecDeque<Sb>,
    erasable: VecDeque<Sb>,
    invalid: Vec<Sb>,
    used: u32,
    /// Sectors mapped into active superblocks since the table was made:
    /// the clock of cost-benefit GC.
    clock: u64,
    /// The clock when each superblock last stopped being active (0: at
    /// format or recovery, where its age is unknown).
    closed_at: Vec<u64>,
}

impl Blocks {
    /// A table where the superblocks with `is_meta` set are `Meta` and
    /// every other (data) superblock is erasable with no valid sectors.
    pub fn all_erasable(is_meta: &[bool]) -> Blocks {
        let num_sbs = is_meta.len() as u32;
        let state: Vec<SbState> = is_meta
            .iter()
            .map(|&m| if m { SbState::Meta } else { SbState::Erasable })
            .collect();
        Blocks {
            state,
            valid: vec![0; num_sbs as usize],
            erase_count: vec![0; num_sbs as usize],
            wear_base: vec![0; num_sbs as usize],
            freed_epoch: vec![0; num_sbs as usize],
            free: VecDeque::new(),
            erasable: (0..num_sbs)
                .filter(|&sb| !is_meta[sb as usize])
                .map(Sb)
                .collect(),
            invalid: Vec::new(),
            used: 0,
            clock: 0,
            closed_at: vec![0; num_sbs as usize],
        }
    }

    /// After format or recovery (selective persistence): `valid` holds the
    /// valid counts the L2P implies; superblocks with valid sectors become
    /// used, all other data superblocks erasable, in index order — but
    /// those with a bad erase block (`bad[sb]`) and no valid sector, which
    /// become bad. Requires a table with no active, used or invalid
    /// superblock.
    pub fn rebuild(&mut self, valid: Vec<u32>, bad: &[bool]) {
        debug_assert_eq!(valid.len(), self.state.len());
        debug_assert!(self.invalid.is_empty() && self.used == 0);
        debug_assert!(self.state.iter().all(|&s| matches!(
            s,
            SbState::Meta | SbState::Free | SbState::Erasable | SbState::Bad
        )));
        debug_assert!((0..valid.len()).all(|i| valid[i] == 0 || self.state[i] != SbState::Meta));
        self.valid = valid;
        self.freed_epoch.fill(0);
        self.free.clear();
        self.erasable.clear();
        self.used = 0;
        for sb in 0..self.state.len() as u32 {
            let sb = Sb(sb);
            if self.state[sb.index()] == SbState::Meta {
                continue;
            }
            if self.valid[sb.index()] > 0 {
                self.state[sb.index()] = SbState::Used;
                self.used += 1;
            } else if bad[sb.index()] {
                self.state[sb.index()] = SbState::Bad;
            } else {
                self.state[sb.index()] = SbState::Erasable;
                self.erasable.push_back(sb);
            }
        }
    }

    /// Erasable → used with no valid sector: only the seeded bug
    /// `RebuildKeepsUnreferenced` calls it (recovery makes every
    /// superblock the recovered L2P does not reference erasable).
    pub fn keep_used(&mut self, sb: Sb) {
        debug_assert_eq!(self.state[sb.index()], SbState::Erasable);
        self.erasable.retain(|&e| e != sb);
        self.state[sb.index()] = SbState::Used;
        self.used += 1;
    }

    /// Erasable → free without an erase: only the seeded bug
    /// `TrustErasedFirstPage` calls it (recovery cannot know whether an
    /// unreferenced superblock was erased whole, so it never does).
    pub fn trust_erased(&mut self, sb: Sb) {
        debug_assert_eq!(self.state[sb.index()], SbState::Erasable);
        self.erasable.retain(|&e| e != sb);
        self.state[sb.index()] = SbState::Free;
        self.free.push_back(sb);
    }

    pub fn state(&self, sb: Sb) -> SbState {
        self.state[sb.index()]
    }

    /// Valid sectors per superblock (metadata superblocks included, at 0).
    pub fn valid_counts(&self) -> &[u32] {
        &self.valid
    }

    /// Erases issued per superblock since the table was made (read by the
    /// debug builds' ghost state only).
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn erase_counts(&self) -> &[u64] {
        &self.erase_count
    }

    /// Superblocks in the `Used` state (GC's threshold U compares this).
    pub fn used(&self) -> u32 {
        self.used
    }

    /// Superblocks relocated in this epoch and not yet erasable.
    pub fn invalid_count(&self) -> usize {
        self.invalid.len()
    }

    /// Superblocks that may be (erased and) filled in this epoch.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn available_sbs(&self) -> u64 {
        (self.free.len() + self.erasable.len()) as u64
    }

    /// Erases issued per data superblock (not `Meta` now) since open.
    pub fn data_erase_counts(&self) -> Vec<u64> {
        (0..self.state.len())
            .filter(|&i| self.state[i] != SbState::Meta)
            .map(|i| self.erase_count[i])
            .collect()
    }

    /// Sets each superblock's wear before this table's erases (its
    /// most-worn erase block's erase count on the device).
    pub fn set_wear_base(&mut self, base: Vec<u64>) {
        debug_assert_eq!(base.len(), self.state.len());
        self.wear_base = base;
    }

    /// A superblock's wear: its erase blocks' erases on the device.
    pub fn wear(&self, sb: Sb) -> u64 {
        self.wear_base[sb.index()] + self.erase_count[sb.index()]
    }

    /// The superblocks a wear-leveling choice of [`Blocks::activate_next`]
    /// may name: the free ones, or when there are none the erasable ones,
    /// in FIFO order — of those, only the ones *settled* by `proven_below`
    /// (see [`Blocks::is_settled`]).
    pub fn candidates(&self, proven_below: u64) -> impl Iterator<Item = Sb> + '_ {
        let q = if self.free.is_empty() {
            &self.erasable
        } else {
            &self.free
        };
        q.iter()
            .copied()
            .filter(move |&sb| self.is_settled(sb, proven_below))
    }

    /// Whether erasing `sb` now cannot make a later recovery fall back:
    /// every epoch before the one that freed it is proven durable on flash
    /// (`proven_below`: every epoch with a smaller id is). Until then a
    /// recovery verifies those epochs against their digests, which may
    /// cover sectors of `sb` that a later epoch moved away (a relocation,
    /// a static wear-leveling move), so erasing it would make the
    /// verification fail and the recovery drop epochs a sync made durable.
    pub fn is_settled(&self, sb: Sb, proven_below: u64) -> bool {
        self.freed_epoch[sb.index()] < proven_below
    }

    /// The data superblocks' largest wear, and the used superblocks holding
    /// data with their wear (static wear leveling's inputs).
    pub fn wear_spread(&self) -> (u64, Vec<(Sb, u64)>) {
        let data = 0..self.state.len() as u32;
        let max = data
            .clone()
            .map(Sb)
            .filter(|&sb| !matches!(self.state[sb.index()], SbState::Bad | SbState::Meta))
            .map(|sb| self.wear(sb))
            .max()
            .unwrap_or(0);
        let holding = data
            .map(Sb)
            .filter(|&sb| self.state[sb.index()] == SbState::Used && self.valid[sb.index()] > 0)
            .map(|sb| (sb, self.wear(sb)))
            .collect();
        (max, holding)
    }

    /// How many data superblocks are in each state.
    pub fn state_counts(&self) -> StateCounts {
        let count = |st: SbState| self.state.iter().filter(|&&x| x == st).count() as u64;
        StateCounts {
            free: count(SbState::Free),
            active: count(SbState::Active),
            used: count(SbState::Used),
            invalid: count(SbState::Invalid),
            erasable: count(SbState::Erasable),
            bad: count(SbState::Bad),
        }
    }

    /// A logical sector was mapped into `sb` (the active superblock).
    #[inline]
    pub fn add_valid(&mut self, sb: Sb) {
        debug_assert_eq!(self.state[sb.index()], SbState::Active);
        self.valid[sb.index()] += 1;
        self.clock += 1;
    }

    /// A logical sector mapped into `sb` was overwritten, trimmed or
    /// relocated.
    #[inline]
    pub fn remove_valid(&mut self, sb: Sb) {
        debug_assert!(
            self.valid[sb.index()] > 0,
            "superblock {sb} has no valid sector"
        );
        self.valid[sb.index()] -= 1;
    }

    /// Active → used: the active superblock is full (its successor is
    /// needed).
    pub fn retire_active(&mut self, sb: Sb) {
        debug_assert_eq!(self.state[sb.index()], SbState::Active);
        self.state[sb.index()] = SbState::Used;
        self.used += 1;
        self.closed_at[sb.index()] = self.clock;
    }

    /// Free → active, or else erasable → active after `erase(sb)` erased
    /// it (counted). `choice` is a wear-leveling policy's pick among
    /// [`Blocks::candidates`]; the validator takes it only if it is in the
    /// queue the superblock comes from and settled by `proven_below`
    /// ([`Blocks::is_settled`]), else the queue's front (FIFO, the verified
    /// choice) and `stats` counts the rejection. `Ok(None)` when neither
    /// queue has a superblock. If the erase fails, the superblock has left
    /// its queue and the error is returned; the caller then discards the
    /// whole state.
    pub fn activate_next<E>(
        &mut self,
        choice: Option<Sb>,
        proven_below: u64,
        held_from: u64,
        stats: &mut WearStats,
        erase: impl FnOnce(Sb) -> Result<(), E>,
    ) -> Result<Option<Sb>, E> {
        let from_erasable = self.free.is_empty();
        let choice = match choice {
            Some(c)
                if !self.is_settled(c, proven_below)
                    || (from_erasable && self.is_held(c, held_from)) =>
            {
                stats.rejected += 1;
                None
            }
            c => c,
        };
        let sb = if !from_erasable {
            let sb = wear::take_validated(&mut self.free, choice, stats).expect("non-empty");
            debug_assert_eq!(self.state[sb.index()], SbState::Free);
            sb
        } else if let Some(sb) = {
            // Not held (`is_held`, on the field: the queue is borrowed).
            let freed = &self.freed_epoch;
            wear::take_validated_where(&mut self.erasable, choice, stats, |sb| {
                freed[sb.index()] < held_from
            })
        } {
            debug_assert_eq!(self.state[sb.index()], SbState::Erasable);
            erase(sb)?;
            self.erase_count[sb.index()] += 1;
            sb
        } else {
            return Ok(None);
        };
        debug_assert_eq!(self.valid[sb.index()], 0);
        self.state[sb.index()] = SbState::Active;
        Ok(Some(sb))
    }

    /// Whether `sb` is *held* by the chain of in-page and OOB commits
    /// (`Scftl::erase_bound`): it became erasable at an epoch at or after
    /// `held_from`, the chain's first (docs/FORMAT.md §4.3, "The erase
    /// hold"). `held_from` is `u64::MAX` while there is no chain.
    pub fn is_held(&self, sb: Sb, held_from: u64) -> bool {
        self.freed_epoch[sb.index()] >= held_from
    }

    /// Whether the next superblock to activate would have to be a held
    /// one: none is free, some are erasable, and every one of them is held.
    pub fn only_held_left(&self, held_from: u64) -> bool {
        self.free.is_empty()
            && !self.erasable.is_empty()
            && self.erasable.iter().all(|&sb| self.is_held(sb, held_from))
    }

    /// Superblocks in the `Free` state (erased, ready to become active).
    pub fn free_count(&self) -> usize {
        self.free.len()
    }

    /// The erasable superblocks settled by `proven_below`
    /// ([`Blocks::is_settled`]), in FIFO order: what
    /// [`Blocks::erase_ahead`] may take.
    pub fn settled_erasable(&self, proven_below: u64) -> impl Iterator<Item = Sb> + '_ {
        self.erasable
            .iter()
            .copied()
            .filter(move |&sb| self.is_settled(sb, proven_below))
    }

    /// The erasable superblock freed last (the seeded bug
    /// `EraseAheadBeforeSync` erases it ahead).
    pub fn newest_erasable(&self) -> Option<Sb> {
        self.erasable.back().copied()
    }

    /// Erasable → free after `erase(sb)` erased it (counted), ahead of
    /// need: the *erase ahead* after a sync that left no epoch unsynced
    /// (`Scftl::erase_ahead`), so that a later `activate_next` finds an
    /// erased superblock and need not sync before an erase. Takes
    /// `choice` (a wear-leveling pick) if it is erasable and settled by
    /// `proven_below` ([`Blocks::is_settled`]), else the erasable queue's
    /// front if that is settled; `Ok(None)` when there is none. As in
    /// `activate_next`, a superblock whose erase fails has left its queue
    /// and the error is returned (the caller retires it).
    pub fn erase_ahead<E>(
        &mut self,
        choice: Option<Sb>,
        proven_below: u64,
        erase: impl FnOnce(Sb) -> Result<(), E>,
    ) -> Result<Option<Sb>, E> {
        let settled = |sb: Sb| {
            self.state[sb.index()] == SbState::Erasable && self.is_settled(sb, proven_below)
        };
        let pick = choice
            .filter(|&c| settled(c))
            .or_else(|| self.erasable.front().copied().filter(|&f| settled(f)));
        let Some(sb) = pick else {
            return Ok(None);
        };
        self.erasable.retain(|&b| b != sb);
        erase(sb)?;
        self.erase_count[sb.index()] += 1;
        debug_assert_eq!(self.valid[sb.index()], 0);
        self.state[sb.index()] = SbState::Free;
        self.free.push_back(sb);
        Ok(Some(sb))
    }

    /// The superblocks a metadata rotation may take: free or erasable,
    /// settled by `proven_below` ([`Blocks::is_settled`]), not bad.
    pub fn meta_candidates(&self, proven_below: u64) -> Vec<Sb> {
        self.free
            .iter()
            .chain(&self.erasable)
            .copied()
            .filter(|&sb| self.is_settled(sb, proven_below))
            .collect()
    }

    /// Free or erasable → meta: `sbs` now hold a metadata region (a full
    /// checkpoint that rotated the metadata erased them and committed).
    /// `wear` is each one's wear on the device now.
    pub fn take_for_meta(&mut self, sbs: &[Sb], wear: impl Fn(Sb) -> u64) {
        for &sb in sbs {
            self.leave_pool(sb, SbState::Meta);
            self.wear_base[sb.index()] = wear(sb);
            self.erase_count[sb.index()] = 0;
        }
    }

    /// Free or erasable (holding nothing) → `to`, out of its queue.
    fn leave_pool(&mut self, sb: Sb, to: SbState) {
        debug_assert!(matches!(
            self.state[sb.index()],
            SbState::Free | SbState::Erasable
        ));
        debug_assert_eq!(self.valid[sb.index()], 0);
        self.free.retain(|&b| b != sb);
        self.erasable.retain(|&b| b != sb);
        self.state[sb.index()] = to;
    }

    /// Meta → erasable: `sbs` left the metadata map (the checkpoint that
    /// replaced them is durable, so nothing on them is needed: settled at
    /// once). `wear` is each one's wear on the device now, which the
    /// table's own count missed while they held metadata.
    /// Those with a bad erase block (`bad`: a failed program or erase of
    /// the metadata moved them out of the map) become bad instead.
    pub fn release_meta(&mut self, sbs: &[Sb], wear: impl Fn(Sb) -> u64, bad: impl Fn(Sb) -> bool) {
        for &sb in sbs {
            debug_assert_eq!(self.state[sb.index()], SbState::Meta);
            if bad(sb) {
                self.state[sb.index()] = SbState::Bad;
                continue;
            }
            self.state[sb.index()] = SbState::Erasable;
            self.freed_epoch[sb.index()] = 0;
            self.wear_base[sb.index()] = wear(sb);
            self.erase_count[sb.index()] = 0;
            self.erasable.push_back(sb);
        }
    }

    /// Greedy victim: the used superblock with the fewest valid sectors
    /// (lowest index on ties). O(superblocks); GC runs once per superblock
    /// written, so this is cheap.
    pub fn pick_victim(&self) -> Option<Sb> {
        let mut best: Option<(Sb, u32)> = None;
        for sb in 0..self.state.len() as u32 {
            if self.state[sb as usize] == SbState::Used {
                let v = self.valid[sb as usize];
                if best.is_none_or(|(_, bv)| v < bv) {
                    best = Some((Sb(sb), v));
                }
            }
        }
        best.map(|(sb, _)| sb)
    }

    /// Cost-benefit victim: the used superblock with the largest
    /// `(S - v) * age / (v + 1)`, where `v` is its valid sectors (what
    /// collecting it copies), `S - v` the space it frees (`S` =
    /// `sectors_per_sb`) and `age` the sectors written since it was filled
    /// (lowest index on ties). Free space counts more the longer it has
    /// stayed free, as in the log-structured file system's policy: a hot
    /// superblock is collected once stale enough, a cold one only when its
    /// free space has waited long, so cold data is not copied round and
    /// round. No bound on `v`: the caller validates the choice.
    pub fn pick_victim_cost_benefit(&self, sectors_per_sb: u32) -> Option<Sb> {
        let s = u128::from(sectors_per_sb);
        // Score as a fraction num/den, compared by cross-multiplication.
        let mut best: Option<(Sb, u128, u128)> = None;
        for sb in 0..self.state.len() as u32 {
            if self.state[sb as usize] != SbState::Used {
                continue;
            }
            let v = u128::from(self.valid[sb as usize]).min(s);
            let age = u128::from(self.clock - self.closed_at[sb as usize]) + 1;
            let (num, den) = ((s - v) * age, v + 1);
            if best.is_none_or(|(_, bn, bd)| num * bd > bn * den) {
                best = Some((Sb(sb), num, den));
            }
        }
        best.map(|(sb, _, _)| sb)
    }

    /// Used → invalid: a GC victim, whose valid sectors are being moved (or
    /// a superblock static wear leveling emptied).
    pub fn mark_victim(&mut self, sb: Sb) {
        debug_assert_eq!(self.state[sb.index()], SbState::Used);
        self.state[sb.index()] = SbState::Invalid;
        self.used -= 1;
        self.invalid.push(sb);
    }

    /// Retires `sb` for good (bad state): a superblock that left the
    /// erasable or free queue in [`Blocks::activate_next`] and whose erase
    /// failed, or a used one holding no valid sector any more (emptied
    /// after a program failed in it).
    pub fn retire(&mut self, sb: Sb) {
        debug_assert_eq!(self.valid[sb.index()], 0);
        match self.state[sb.index()] {
            SbState::Used => self.used -= 1,
            SbState::Erasable | SbState::Free => {
                debug_assert!(!self.erasable.contains(&sb) && !self.free.contains(&sb));
            }
            st => debug_assert!(false, "retiring superblock {sb} in state {st:?}"),
        }
        self.state[sb.index()] = SbState::Bad;
    }

    /// Free or erasable → bad: `sb` got a bad erase block while a full
    /// checkpoint tried to take it for the metadata (its erase or a
    /// program into it failed).
    pub fn retire_pooled(&mut self, sb: Sb) {
        self.leave_pool(sb, SbState::Bad);
    }

    /// Bad (retired) data superblocks.
    pub fn bad_count(&self) -> u64 {
        self.state.iter().filter(|&&s| s == SbState::Bad).count() as u64
    }

    /// End of a flush (of epoch `epoch`): every invalid superblock becomes
    /// erasable, because the new stable L2P no longer points into it.
    pub fn end_epoch(&mut self, epoch: u64) {
        for sb in self.invalid.drain(..) {
            debug_assert_eq!(self.state[sb.index()], SbState::Invalid);
            debug_assert_eq!(self.valid[sb.index()], 0);
            self.freed_epoch[sb.index()] = epoch;
            self.state[sb.index()] = SbState::Erasable;
            self.erasable.push_back(sb);
        }
    }

    /// Invalid → free at once, after `erase(sb)`: only for the seeded bug
    /// `EraseVictimBeforeFlush`, which is wrong because the stable L2P may
    /// still point into the victim.
    pub fn reclaim_victim_early<E>(
        &mut self,
        sb: Sb,
        erase: impl FnOnce(Sb) -> Result<(), E>,
    ) -> Result<(), E> {
        debug_assert_eq!(self.state[sb.index()], SbState::Invalid);
        self.invalid.retain(|&b| b != sb);
        erase(sb)?;
        self.erase_count[sb.index()] += 1;
        self.state[sb.index()] = SbState::Free;
        self.free.push_back(sb);
        Ok(())
    }

    /// Invalid → erasable at once: only for the seeded bug
    /// `VictimErasableAtOnce` (the stable L2P may still point into `sb`).
    pub fn make_erasable_early(&mut self, sb: Sb, epoch: u64) {
        debug_assert_eq!(self.state[sb.index()], SbState::Invalid);
        self.invalid.retain(|&b| b != sb);
        self.freed_epoch[sb.index()] = epoch;
        self.state[sb.index()] = SbState::Erasable;
        self.erasable.push_back(sb);
    }

    /// One valid sector more in `sb` than the L2P maps there: only for the
    /// seeded bug `ValidCountOffByOne`.
    pub fn miscount_valid(&mut self, sb: Sb) {
        self.valid[sb.index()] += 1;
    }

    /// Checks the invariants at the top of this file; `active` is the
    /// superblock the active pointer names, `is_meta` the layout's
    /// metadata superblocks.
    pub fn check(&self, active: &[Sb], is_meta: &[bool]) -> Result<(), String> {
        if is_meta.len() != self.state.len() {
            return Err("the metadata flags do not cover every superblock".into());
        }
        let n = self.state.len() as u32;
        let mut seen = vec![0u8; n as usize];
        let mut mark = |list: &mut dyn Iterator<Item = Sb>, want: SbState| {
            for sb in list {
                if sb.0 >= n || self.state[sb.index()] == SbState::Meta {
                    return Err(format!("{want:?} queue holds non-data superblock {sb}"));
                }
                if self.state[sb.index()] != want {
                    return Err(format!(
                        "superblock {sb} is in the {want:?} queue but its state is {:?}",
                        self.state[sb.index()]
                    ));
                }
                seen[sb.index()] += 1;
            }
            Ok(())
        };
        mark(&mut self.free.iter().copied(), SbState::Free)?;
        mark(&mut self.erasable.iter().copied(), SbState::Erasable)?;
        mark(&mut self.invalid.iter().copied(), SbState::Invalid)?;
        let mut used = 0;
        let mut actives = 0;
        for sb in 0..n {
            let st = self.state[sb as usize];
            if is_meta[sb as usize] != (st == SbState::Meta) {
                return Err(format!(
                    "superblock {sb} has state {st:?} but is {}in the metadata map",
                    if is_meta[sb as usize] { "" } else { "not " }
                ));
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
                    if self.valid[sb as usize] != 0 {
                        return Err(format!(
                            "{st:?} superblock {sb} still holds {} valid sectors",
                            self.valid[sb as usize]
                        ));
                    }
                }
                SbState::Bad => {
                    if seen[sb as usize] != 0 || self.valid[sb as usize] != 0 {
                        return Err(format!(
                            "bad superblock {sb} is queued or holds {} valid sectors",
                            self.valid[sb as usize]
                        ));
                    }
                }
                SbState::Meta => {}
            }
        }
        if used != self.used {
            return Err(format!(
                "used count {} but {used} superblocks are used",
                self.used
            ));
        }
        if let Some(a) = active
            .iter()
            .find(|a| self.state[a.index()] != SbState::Active)
        {
            return Err(format!(
                "an active pointer names superblock {a}, whose state is {:?}",
                self.state[a.index()]
            ));
        }
        if actives != active.len() || (active.len() == 2 && active[0] == active[1]) {
            return Err(format!(
                "{} active pointers ({active:?}) but {actives} active superblocks",
                active.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wear;

    /// Six superblocks, the first two metadata.
    const META_6_2: [bool; 6] = [true, true, false, false, false, false];

    #[test]
    fn a_superblock_goes_round_the_life_cycle() {
        let mut b = Blocks::all_erasable(&META_6_2);
        b.rebuild(vec![0, 0, 0, 3, 0, 0], &[false; 6]);
        assert_eq!((b.state(Sb(3)), b.used()), (SbState::Used, 1));
        b.check(&[], &META_6_2).unwrap();
        let mut erased = Vec::new();
        let mut st = WearStats::default();
        let a = b
            .activate_next(None, 1, u64::MAX, &mut st, |sb| {
                erased.push(sb);
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!((a, erased), (Some(Sb(2)), vec![Sb(2)]));
        b.add_valid(Sb(2));
        b.check(&[Sb(2)], &META_6_2).unwrap();
        b.retire_active(Sb(2));
        assert_eq!(b.pick_victim(), Some(Sb(2)), "fewest valid sectors");
        b.mark_victim(Sb(2));
        b.remove_valid(Sb(2));
        assert_eq!(b.used(), 1);
        b.end_epoch(1);
        assert_eq!(b.state(Sb(2)), SbState::Erasable);
        b.check(&[], &META_6_2).unwrap();
        let c = b.state_counts();
        assert_eq!((c.used, c.erasable, c.free), (1, 3, 0));
        assert_eq!(b.data_erase_counts(), [1, 0, 0, 0]);
    }

    #[test]
    fn erase_ahead_frees_only_settled_superblocks_and_activation_then_erases_nothing() {
        let mut b = Blocks::all_erasable(&META_6_2);
        b.rebuild(vec![0, 0, 0, 3, 0, 0], &[false; 6]);
        let mut st = WearStats::default();
        let ok = |_| Ok::<(), ()>(());
        // Sb 2 goes round once and is freed by epoch 7.
        assert_eq!(
            b.activate_next(None, 1, u64::MAX, &mut st, ok).unwrap(),
            Some(Sb(2))
        );
        b.retire_active(Sb(2));
        b.mark_victim(Sb(2));
        b.end_epoch(7);
        assert_eq!(
            b.erasable.iter().copied().collect::<Vec<_>>(),
            [Sb(4), Sb(5), Sb(2)]
        );
        // The front; a wear choice not yet settled gives way to the front;
        // Sb 2 only once epoch 7's predecessors are proven durable.
        assert_eq!(b.erase_ahead(None, 7, ok).unwrap(), Some(Sb(4)));
        assert_eq!(b.erase_ahead(Some(Sb(2)), 7, ok).unwrap(), Some(Sb(5)));
        assert_eq!(b.erase_ahead(Some(Sb(2)), 7, ok).unwrap(), None);
        assert_eq!(b.erase_ahead(None, 7, ok).unwrap(), None);
        assert_eq!(
            (b.state(Sb(4)), b.state(Sb(5)), b.free_count()),
            (SbState::Free, SbState::Free, 2)
        );
        assert_eq!(b.data_erase_counts(), [1, 0, 1, 1]);
        b.check(&[], &META_6_2).unwrap();
        // Activation takes an erased superblock without erasing.
        let erase_called = |_| Err::<(), &str>("must not erase");
        assert_eq!(
            b.activate_next(None, 7, u64::MAX, &mut st, erase_called)
                .unwrap(),
            Some(Sb(4))
        );
        assert_eq!(b.erase_ahead(None, 8, ok).unwrap(), Some(Sb(2)));
        // A failed erase: the superblock has left its queue; retired.
        assert_eq!(b.erase_ahead(None, 8, |_| Err("bad")), Ok(None));
        b.retire_active(Sb(4));
        b.mark_victim(Sb(4));
        b.end_epoch(9);
        assert_eq!(b.erase_ahead(None, 10, |_| Err("bad")), Err("bad"));
        b.retire(Sb(4));
        assert_eq!(b.state(Sb(4)), SbState::Bad);
        b.check(&[], &META_6_2).unwrap();
    }

    /// The erase hold (`Scftl::erase_bound`): a superblock freed at or
    /// after `held_from` is skipped by the FIFO pick and by a wear choice;
    /// when only held ones are left, `only_held_left` says so and nothing
    /// is erased.
    #[test]
    fn held_superblocks_are_not_activated() {
        let mut b = Blocks::all_erasable(&META_6_2);
        b.rebuild(vec![0, 0, 0, 0, 3, 3], &[false; 6]);
        let mut st = WearStats::default();
        let ok = |_| Ok::<(), ()>(());
        // Sb 4 freed at epoch 5, sb 5 at epoch 6 (the chain's first).
        for (sb, e) in [(Sb(4), 5), (Sb(5), 6)] {
            b.remove_valid(sb);
            b.remove_valid(sb);
            b.remove_valid(sb);
            b.mark_victim(sb);
            b.end_epoch(e);
        }
        // The front is held from 6 on only if freed at 6 or later.
        assert!(!b.is_held(Sb(4), 6) && b.is_held(Sb(5), 6));
        assert!(!b.only_held_left(6) && !b.only_held_left(u64::MAX));
        // A wear choice of a held superblock is rejected: the oldest
        // unheld one instead.
        assert_eq!(
            b.activate_next(Some(Sb(5)), 9, 5, &mut st, ok).unwrap(),
            Some(Sb(2))
        );
        assert_eq!(st.rejected, 1);
        assert_eq!(
            b.activate_next(None, 9, 5, &mut st, ok).unwrap(),
            Some(Sb(3))
        );
        // Only held ones left (from epoch 5 on): nothing to activate.
        assert!(b.only_held_left(5));
        assert_eq!(
            b.activate_next(None, 9, 5, &mut st, |_| Err::<(), ()>(()))
                .unwrap(),
            None
        );
        // The hold released: the FIFO front.
        assert!(!b.only_held_left(u64::MAX));
        assert_eq!(
            b.activate_next(None, 9, u64::MAX, &mut st, ok).unwrap(),
            Some(Sb(4))
        );
    }

    #[test]
    fn a_wear_choice_is_taken_only_from_the_candidates() {
        let mut b = Blocks::all_erasable(&META_6_2);
        b.rebuild(vec![0, 0, 0, 3, 0, 0], &[false; 6]);
        b.set_wear_base(vec![0, 0, 9, 9, 1, 5]);
        assert_eq!(b.candidates(1).collect::<Vec<_>>(), [Sb(2), Sb(4), Sb(5)]);
        let mut st = WearStats::default();
        let ok = |_| Ok::<(), ()>(());
        // The least-worn candidate, as the policy picks it.
        let pick = wear::least_worn(b.candidates(1), |sb| b.wear(sb));
        assert_eq!(pick, Some(Sb(4)));
        assert_eq!(
            b.activate_next(pick, 1, u64::MAX, &mut st, ok).unwrap(),
            Some(Sb(4))
        );
        assert_eq!(b.wear(Sb(4)), 2);
        // Sb 4 is emptied and freed by epoch 7: not settled until every
        // epoch before 7 is proven durable.
        b.retire_active(Sb(4));
        b.mark_victim(Sb(4));
        b.end_epoch(7);
        assert_eq!(b.candidates(7).collect::<Vec<_>>(), [Sb(2), Sb(5)]);
        assert_eq!(
            b.activate_next(Some(Sb(4)), 7, u64::MAX, &mut st, ok)
                .unwrap(),
            Some(Sb(2))
        );
        assert_eq!(b.candidates(8).collect::<Vec<_>>(), [Sb(5), Sb(4)]);
        b.retire_active(Sb(2));
        // A used superblock is no candidate: rejected, FIFO instead.
        assert_eq!(
            b.activate_next(Some(Sb(3)), 8, u64::MAX, &mut st, ok)
                .unwrap(),
            Some(Sb(5))
        );
        assert_eq!((st.dynamic_choices, st.rejected), (1, 2));
        b.check(&[Sb(5)], &META_6_2).unwrap();
    }

    #[test]
    fn bad_superblocks_are_never_candidates_and_retire_from_used_or_a_failed_erase() {
        let mut b = Blocks::all_erasable(&META_6_2);
        b.rebuild(
            vec![0, 0, 0, 3, 0, 0],
            &[false, false, false, true, true, false],
        );
        // Sb 3 holds data though bad: used until emptied. Sb 4: bad.
        assert_eq!(
            (b.state(Sb(3)), b.state(Sb(4))),
            (SbState::Used, SbState::Bad)
        );
        assert_eq!(b.candidates(1).collect::<Vec<_>>(), [Sb(2), Sb(5)]);
        let mut st = WearStats::default();
        // An erase that fails: the superblock left its queue; retire it.
        let r = b.activate_next(None, 1, u64::MAX, &mut st, |_| Err::<(), ()>(()));
        assert!(r.is_err());
        b.retire(Sb(2));
        for _ in 0..3 {
            b.remove_valid(Sb(3));
        }
        b.retire(Sb(3));
        let c = b.state_counts();
        assert_eq!((c.bad, c.used, c.erasable), (3, 0, 1));
        assert_eq!(b.bad_count(), 3);
        b.check(&[], &META_6_2).unwrap();
    }

    #[test]
    fn check_reports_a_broken_queue() {
        let mut b = Blocks::all_erasable(&[true, false, false, false]);
        b.erasable.push_back(Sb(1));
        assert!(b
            .check(&[], &[true, false, false, false])
            .unwrap_err()
            .contains("appears 2 times"));
    }
}
