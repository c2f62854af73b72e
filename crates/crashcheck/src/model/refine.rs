//! The refinement oracle (`scftl crashtest --oracle refine`, issue 39):
//! SCFTL's *internal* state, read between operations
//! ([`ftl::refine::RefineView`]), mapped by an abstraction function to a
//! state of the model P, and checked against P's transcription
//! ([`super::steps`]) stepped in lock step with the device. A divergence of
//! internal state is caught at the operation that makes it, even when no
//! read would show it yet.
//!
//! **The abstraction.** P's pages are named by SCFTL's physical sectors
//! (P's `ℕ` page numbers are arbitrary names; the sector address is the
//! one the FTL chose). Then:
//! - the volatile L2P and the ghost stable L2P are P's `l2p` and `smap`;
//! - a data superblock's state is the queues of P's pages in it: `Erasable`
//!   ⇔ every page of P there is in `ers`; `Invalid` (a victim of this
//!   epoch) ⇔ every page there is in `inv` and none mapped; `Used` /
//!   `Active` hold no page of `inv` or `ers`; `Free`, `Meta` and `Bad` hold
//!   no page of P at all;
//! - a superblock's valid count is the number of logical sectors P's `l2p`
//!   maps into it;
//! - the epoch's update count is P's `wcnt`.
//!
//! **Lock step.** P's nondeterministic choices are resolved by what the
//! device did, read from the difference of two views: which physical
//! sector each write placed its sector at (`place` with `nxt` := that
//! sector), which sectors GC relocated (`rl0`) and from which victims
//! (`rlX` for the rest of a victim), which superblocks were erased (`esF`
//! of each of P's pages there, which P allows only for pages in `ers`),
//! and whether an operation committed (`fl3`; a new generation: `ck3`).
//! Each step's guard is checked: a write within `InB`; a relocation from a
//! page that holds its sector (`Valid`); a place onto a sector where P
//! holds no page (P never programs a page twice); an erase only of
//! erasable pages. Then the abstraction of the new view must equal P's
//! state, and the parts of P's RI that speak of these fields must hold
//! (erasable pages mapped by neither L2P, invalid ones not by the volatile
//! one, every mapped page holding its sector, every stable one durable).
//!
//! **Recovery.** The L2P SCFTL rebuilds must be, sector for sector and
//! physical address for physical address, the one a commit left: the last
//! durable flush's, one of the epoch barriers' since, or — when the power
//! cut hit a flush or barrier — the one that operation was committing
//! (whose relocations before its commit may have placed sectors anywhere
//! fresh, so there only the mapped sectors and the freshness of their
//! places are compared). P then restarts from the recovered L2P (`rec0`:
//! every mapped page durable, empty queues). P's `rec0` also makes
//! erasable every page below its next one that the recovered L2P does
//! not name (`reclaim`); here P holds only the recovered L2P's pages, so
//! there are none of P's to queue, and the superblocks SCFTL makes
//! erasable at open hold no page of P's: their erase is checked as one
//! of no page.
//!
//! **In-page and OOB commits** (docs/FORMAT.md §4.8–4.9) step P's `fi4`
//! (or, with a full checkpoint, `ck3 (fi3 …)`): the record in the slot of
//! the page that holds it, the consolidation page on the region, after
//! P's guards `InP` / `OobP` are checked on
//! the facts SCFTL recorded when it programmed the record
//! ([`ftl::refine::ChainCommit`]) against P's link `lnk` (kept here: the
//! link each commit wrote, a fresh page; none after a format, a recovery
//! or a full checkpoint) — see [`chain_guard`].
//!
//! **GC across epoch barriers** (PU's `GcI`): a page GC freed at commit
//! `k` may be erased only once commit `k` is durable (the view says how
//! many commits were durable at each superblock's last erase).
//!
//! **The chain phase's erase** (PL's `EraseGuard`): while in-page or OOB
//! records wait for their consolidation page, an erase must spare every
//! page a record or the region's newest commit names and every
//! superblock holding a record ([`PlGuard`]).
//!
//! **Media failures** (`--inject-failures`). A merge buffer page whose
//! program failed holds garbage: P's cells there become junk, so an L2P
//! that still maps into it fails RI at that operation (`Mutant::
//! IgnoreProgramFailure`). SCFTL places its sectors again, with new delta
//! pairs charged to the epoch: P's `wr0` of the same content (the view
//! counts them, before and after the commit). A superblock with a bad
//! block is emptied after commits (moves charged to the epoch like static
//! wear leveling's: P's `rl0`, whose charge the view reports apart) and
//! then retired: its pages become invalid (`rlX`) and erasable at the next
//! commit, and are never erased. A superblock whose erase failed is
//! retired holding erasable pages. A device that turns read-only is not
//! followed until the next recovery (a flush that committed first leaves
//! its L2P as a recovery candidate).
//!
//! **Moves the same operation overrides.** The L2P at an operation's end
//! does not show a move (GC's, wear leveling's, or the emptying of a
//! superblock with a bad block) that a later change of the same sector in
//! the same operation overrode — a sector moved out of a superblock being
//! emptied and then written by the request, or moved into a page whose
//! program then failed and placed again. The view lists the epoch's moves
//! in order (`RefineView::moves`, and the last epoch's as they were at its
//! commit), and each overridden one is P's `rl0` before the operation's
//! other steps ([`overridden_moves`]): P then holds the move's page, as
//! SCFTL does, where an OOB commit's run may start (without it, `scftl
//! crashtest --geometry tiny --seed 9016 --ops 145640 --spare-superblocks
//! 3 --oracle refine --inject-failures 0.05` reported "an OOB commit from
//! link L, where the epoch placed no sector" at step 240,600, a false
//! alarm). A superblock allocated and taken as a victim within one
//! operation then holds pages of P, which become invalid as any victim's.
//! Re-placements after a failed program are not moves: they are P's
//! writes of the same content (`replaced`).
//!
//! **Exhaustive mode** replays a window's operations at every crash point
//! with the oracle stepping P along (each replay from the format), so it
//! compares far more operations than the workload has.
//!
//! It compares no data: which version a sector holds is the
//! contract's and the model oracle's job; P's cells here carry the written
//! versions where known and zeros after a recovery. The delta buffer and
//! the epoch's tentative pages are compared through P's RI `vm` (their
//! pairs, in order, take the stable L2P to the volatile one); the merge
//! buffer's contents, the committed region pages and the checkpoint slots
//! are not (see proofs/README.md "Refinement oracle").

use std::collections::{BTreeMap, BTreeSet};

use ftl::refine::{RefineView, SbKind};
use ftl::UNMAPPED;

use super::state::{Addr, Cell, Map, Mc, Page, St, D0};
use super::steps;
use super::ModelMutant;
use crate::spec::Interrupted;

/// An operation that completed, as the refinement oracle steps P for it.
#[derive(Clone, Copy, Debug)]
pub enum Done<'a> {
    /// A write of `versions.len()` sectors at `lba`.
    Write { lba: u64, versions: &'a [u32] },
    /// A trim of `count` sectors at `lba`.
    Trim { lba: u64, count: u64 },
    /// A durable flush.
    Flush,
    /// An epoch barrier.
    Barrier,
    /// A request refused without effect (Fig. 4: a write past the epoch
    /// bound); nothing may change.
    Refused,
    /// A sync behind epoch barriers (`ftl::SharedDevice::sync_behind`):
    /// it commits nothing and moves no sector, but may erase ahead
    /// (`esF` of erasable pages, under the same GcI check as any erase).
    SyncBehind,
}

/// At most this many commits are kept as candidates for recovery (the
/// last durable flush and the barriers since; SCFTL syncs after at most
/// `MAX_UNSYNCED_EPOCHS` of them, far fewer).
const MAX_CANDIDATES: usize = 64;

/// P in lock step with the device; see the module doc.
#[derive(Clone, Debug)]
pub struct RefineOracle {
    /// P's state (`None` before a completed format).
    s: Option<St>,
    /// The view after the last operation.
    prev: Option<RefineView>,
    /// The L2Ps of the last durable commit and of every barrier since,
    /// oldest first: what a recovery may rebuild.
    commits: Vec<Map>,
    /// The L2P a flush or barrier cut by the power was committing.
    pending: Option<Map>,
    /// `amax`, `wmax` of P's guard `InB`.
    amax: Addr,
    wmax: u64,
    /// The device turned read-only (a media failure it could not work
    /// around): the oracle stops following its internal state until the
    /// next recovery, which it checks as any other.
    paused: bool,
    /// P's `lnk`: the link the last commit wrote, where an in-page or OOB
    /// commit of the next epoch must start (`InP`, `OobP`); `None` after a
    /// format, a recovery or a full checkpoint (`rec0`, `ck3`: `nothing`).
    lnk: Option<u32>,
    /// P's pages GC freed at a commit (`inv` → `ers` at `fl3`), with that
    /// commit's number (the view's `commits`): each may be erased only
    /// once that commit is durable (`GcI`).
    released: BTreeMap<Page, u64>,
    /// P's live checkpoint cell (`cpL`: `cpt g C`), as the last full
    /// checkpoint — format's, a commit's or a recovery's — wrote it: its
    /// generation and map. The slots on the flash must hold it as the
    /// newest committed checkpoint and nothing newer (`Stands` of
    /// `SCFTL.Impl.SlotOver`; [`RefineOracle::slots`]).
    live_ck: Option<(u64, Map)>,
    /// Operations and recoveries compared.
    pub steps_checked: u64,
    pub recoveries_checked: u64,
    /// In-page and OOB commits checked against P's guards.
    pub chain_commits_checked: u64,
    /// The most data pages an OOB commit checked here spanned.
    pub longest_oob_run: u64,
    /// GC victims of a committing operation that it erased after the
    /// commit and took again for new data (step 3 of [`Self::step`]).
    pub victims_reused: u64,
    /// PL's erase guard as the code's commits leave it, and the erases
    /// measured against it ([`PlGuard`]).
    pub pl: PlGuard,
}

/// PL's erase guard (`EraseGuard` of the proofs' SCFTL.Impl.
/// LazyChainModel: no record of the lazy chain names the page, `ChainGuard`,
/// nor does the region's newest commit, `regTop`), followed along the
/// code's commits, and every erase of P's pages checked against it: PX's
/// erase in the chain phase is PL's, under that guard.
///
/// The code's own rule is looser than PL's (proofs/README.md, "Not done",
/// item 1 (i)): its recovery takes the region's newest commit as proven by
/// the chain's first record (recovery.rs `apply_chain`) without checking
/// that commit's digest, so the rule would let it erase a page that commit
/// names once the epoch that freed the page is proven. No run has shown
/// such an erase (proofs/README.md, "PL's erase guard"), and one would be
/// a step outside the proven model PX: it fails here, as the code's own
/// erase of a page a record of the chain names, or of a superblock that
/// holds a record, does (the code's recovery reads every record's page,
/// so that erase would drop the flushed epochs the chain proves; the code
/// keeps them in the active superblock, and after a recovery in
/// `tail_sb`, until the consolidation page).
///
/// What a commit names is what its digest covers (docs/FORMAT.md §4.3):
/// the pages of the epoch's pairs it leaves in place and mapped, i.e. the
/// pages the L2P at the commit maps that the previous commit's did not.
/// A region commit (a flush's or a barrier's, after the consolidation
/// page) becomes the newest and empties the chain; an in-page or OOB
/// commit adds a record; a full checkpoint, the consolidation page a
/// write emits before a tentative page (the region's newest commit is
/// then the consolidation page, whose digest PL's `konsPg` leaves empty)
/// and a recovery (PL's ends in a full checkpoint) clear both. A recovery
/// that keeps the chain's tail for a later consolidation page (mod.rs
/// `keep_tail_as_backlog`) leaves records whose pages the oracle does not
/// know, but their superblocks (the view's `backlog_sbs`), which no erase
/// may take before that page. The check errs on the side of passing: the
/// erases of an operation that consolidated without committing are
/// checked after its consolidation (the view does not say which came
/// first), and the region's newest commit before a recovered tail is not
/// known.
#[derive(Clone, Debug, Default)]
pub struct PlGuard {
    /// The pages the region's newest commit names.
    top: BTreeSet<Page>,
    /// The records of the chain since that commit, and the pages they
    /// name.
    records: u64,
    chain: BTreeSet<Page>,
    /// The superblocks holding the chain's records.
    chain_sbs: BTreeSet<usize>,
    /// P's pages that became erasable at a commit of the chain (an
    /// in-page or OOB commit): the code's erase hold keeps them until the
    /// chain's consolidation page (docs/FORMAT.md §4.3; scftl/mod.rs
    /// `erase_bound`). Every page the guard protects is among them
    /// ([`PlGuard::premise`]), which is why the hold keeps PL's guard.
    /// This set is the ghost hold of the proofs' `PLh` (proofs/SCFTL/Impl/
    /// LazyChainHold.agda: `growInv` at a lazy commit, emptied by a region
    /// commit, the consolidation page and a recovery), proven there to
    /// keep `EraseGuard`; the premise checked here is its `HoldOK`.
    held: BTreeSet<Page>,
    /// After a recovery that kept the chain's tail for a later
    /// consolidation page: the region's newest commit before the tail is
    /// not known here, so the code's hold keeps every superblock
    /// (scftl/mod.rs `keep_tail_as_backlog`) and no erase may come before
    /// that page.
    hold_all: bool,
    /// P's pages erased while the chain held a record (where PL's guard
    /// is more than P's erasable queue), each checked against it.
    pub chain_phase_erases: u64,
}

impl PlGuard {
    fn clear(&mut self) {
        self.top.clear();
        self.records = 0;
        self.chain.clear();
        self.chain_sbs.clear();
        self.held.clear();
        self.hold_all = false;
    }

    /// After a recovery: no commit known, but the recovered tail's
    /// records if the code kept them for a consolidation page.
    fn recovered(&mut self, v: &RefineView) {
        self.clear();
        if let Some(r) = v.region.as_ref().filter(|r| r.consolidation_owed) {
            self.records = 1;
            self.chain_sbs.extend(r.backlog_sbs.iter().copied());
            self.hold_all = true;
        }
    }

    /// A commit naming `named` and making P's invalid pages `freed`
    /// erasable: a region commit (`record` None) or an in-page or OOB
    /// commit's record in superblock `record`.
    fn commit(&mut self, record: Option<usize>, named: BTreeSet<Page>, freed: &[Page]) {
        if let Some(sb) = record {
            self.records += 1;
            self.chain.extend(named);
            self.chain_sbs.insert(sb);
            self.held.extend(freed.iter().copied());
        } else {
            self.top = named;
            self.records = 0;
            self.chain.clear();
            self.chain_sbs.clear();
            self.held.clear();
            self.hold_all = false;
        }
    }

    /// Why the erase hold keeps PL's guard, checked on P's state `s`
    /// after a commit: every erasable page that the region's newest
    /// commit or a record of the chain names became erasable at a commit
    /// of the chain, so the hold keeps it. (The newest commit's pages were
    /// mapped at that commit, so they become erasable only at a later
    /// one, and with a chain on the flash every later commit is one of
    /// its records; a record's pages were placed after the newest commit.)
    fn premise(&self, s: &St) -> Result<(), String> {
        if self.records == 0 {
            return Ok(());
        }
        let unheld = self
            .top
            .iter()
            .chain(&self.chain)
            .find(|&&q| s.erasable(q) && !self.held.contains(&q));
        match unheld {
            Some(q) => Err(format!(
                "refinement: P's page at physical sector {q}, which {} names, is erasable but did not become erasable at a commit of the lazy chain ({} records), so the erase hold does not keep it (scftl/mod.rs `erase_bound`): the argument that the hold keeps PL's EraseGuard fails here",
                if self.top.contains(q) { "the region's newest commit" } else { "a record of the chain" },
                self.records
            )),
            None => Ok(()),
        }
    }

    /// The superblocks `sbs` erased by `op`, with P's pages `erased`
    /// there, against the guard.
    fn erased(
        &mut self,
        (sbs, erased): &(Vec<usize>, Vec<Page>),
        op: &Done<'_>,
    ) -> Result<(), String> {
        if self.records == 0 {
            return Ok(());
        }
        if let Some(sb) = sbs.iter().find(|sb| self.chain_sbs.contains(sb)) {
            return Err(format!(
                "refinement: {op:?} erased superblock {sb}, which holds a record of the lazy chain ({} records since the region's newest commit, no consolidation page yet): recovery follows the chain through it, so the erase drops the flushed epochs the chain proves (PL's ChainGuard; the code keeps the records' superblocks, `backlog_sbs`, until the consolidation page)",
                self.records
            ));
        }
        if let Some(sb) = sbs.first().filter(|_| self.hold_all) {
            return Err(format!(
                "refinement: {op:?} erased superblock {sb} after a recovery that kept the lazy chain's tail for a consolidation page not yet written: the region's newest commit before the tail may name its pages (PL's EraseGuard, regTop), so the erase hold keeps every superblock until that page (scftl/mod.rs `keep_tail_as_backlog`, `erase_bound`)"
            ));
        }
        for q in erased {
            if self.chain.contains(q) {
                return Err(format!(
                    "refinement: {op:?} erased P's page at physical sector {q}, which a record of the lazy chain names ({} records since the region's newest commit): PL's ChainGuard refuses it, and the code's recovery reads that record's pages, so the erase drops the flushed epochs the chain proves (the code keeps them in the active superblock until the consolidation page)",
                    self.records
                ));
            }
            if self.top.contains(q) {
                return Err(format!(
                    "refinement: {op:?} erased P's page at physical sector {q}, which the region's newest commit names, while the lazy chain holds {} records: PL's EraseGuard refuses it (regTop), so the erase is outside the proven model PX (the code's recovery takes that commit as proven by the chain's first record, recovery.rs `apply_chain`; the erase hold, scftl/mod.rs `erase_bound`, should have kept it)",
                    self.records
                ));
            }
            if self.held.contains(q) {
                return Err(format!(
                    "refinement: {op:?} erased P's page at physical sector {q}, which became erasable at a commit of the lazy chain ({} records, no consolidation page yet): the erase hold keeps it until the consolidation page (scftl/mod.rs `erase_bound`, docs/FORMAT.md §4.3), the code's rule that keeps PL's EraseGuard",
                    self.records
                ));
            }
        }
        self.chain_phase_erases += erased.len() as u64;
        Ok(())
    }
}

/// The pages a commit names (its digest's, docs/FORMAT.md §4.3): those the
/// L2P at the commit (`l2p`) maps that the last commit's (`smap`) did not.
fn named_by_commit(s: &St) -> BTreeSet<Page> {
    s.l2p
        .iter()
        .filter(|&(a, q)| s.smap.get(a) != Some(q))
        .map(|(_, &q)| q)
        .collect()
}

/// Whether the code owes the region the chain's consolidation page (a
/// record of the lazy chain is on the flash).
fn owes_consolidation(v: &RefineView) -> bool {
    v.region.as_ref().is_some_and(|r| r.consolidation_owed)
}

fn map_of(l2p: &[u32]) -> Map {
    l2p.iter()
        .enumerate()
        .filter(|&(_, &p)| p != UNMAPPED)
        .map(|(a, &p)| (a as Addr, Page::from(p)))
        .collect()
}

fn show(p: Option<&Page>) -> String {
    p.map_or_else(|| "nothing".into(), |p| format!("physical sector {p}"))
}

impl RefineOracle {
    /// An oracle for a device of `num_sectors` sectors with epoch bound
    /// `w_bound`; nothing formatted yet.
    pub fn new(num_sectors: u64, w_bound: Option<u64>) -> RefineOracle {
        RefineOracle {
            s: None,
            prev: None,
            commits: Vec::new(),
            pending: None,
            amax: num_sectors.saturating_sub(1),
            wmax: w_bound.map_or(u64::MAX, |w| w.saturating_sub(1)),
            paused: false,
            lnk: None,
            released: BTreeMap::new(),
            live_ck: None,
            steps_checked: 0,
            recoveries_checked: 0,
            chain_commits_checked: 0,
            longest_oob_run: 0,
            victims_reused: 0,
            pl: PlGuard::default(),
        }
    }

    /// A completed format: P's `NewP` (no page mapped).
    pub fn formatted(&mut self, v: RefineView) -> Result<(), String> {
        let mut s = steps::new_p();
        s.gen = v.generation;
        self.s = Some(s);
        self.live_ck = Some((v.generation, Map::new()));
        self.commits = vec![Map::new()];
        self.pending = None;
        self.paused = false;
        self.lnk = None;
        self.released.clear();
        self.pl.clear();
        self.compare(&v)?;
        self.prev = Some(v);
        Ok(())
    }

    /// A format was cut: nothing is known until the next one completes.
    pub fn format_cut(&mut self) {
        self.s = None;
        self.prev = None;
        self.commits.clear();
        self.pending = None;
    }

    /// The device refused a request with `WornOut` and turned read-only:
    /// the request may have partly happened, unseen by P; nothing is
    /// followed until the next recovery.
    pub fn worn_out(&mut self) {
        self.paused = true;
    }

    /// Power was cut during `op` (or between operations).
    pub fn interrupted(&mut self, op: Interrupted<'_>) {
        match op {
            // A cut recovery changes no commit; keep what the first cut
            // left.
            Interrupted::Recovery => {}
            Interrupted::Flush | Interrupted::Barrier => {
                self.pending = self.s.as_ref().map(|s| s.l2p.clone());
            }
            Interrupted::Nothing | Interrupted::Write { .. } => self.pending = None,
        }
    }

    /// A recovery completed with view `v`.
    pub fn recovered(&mut self, v: RefineView) -> Result<(), String> {
        if self.s.is_none() {
            // A crashed format had completed: an empty device.
            return self.formatted(v);
        }
        self.recoveries_checked += 1;
        let got = map_of(&v.l2p);
        let exact = self.commits.iter().rev().any(|c| *c == got);
        if !exact {
            let fresh_ok = self
                .pending
                .as_ref()
                .is_some_and(|p| self.same_sectors_fresh_places(p, &got));
            if !fresh_ok {
                let newest = self.commits.last().cloned().unwrap_or_default();
                let la = first_difference(&newest, &got).unwrap_or(0);
                return Err(format!(
                    "refinement: recovery rebuilt an L2P that no commit left: logical sector {la} maps to {}, but the last commit mapped it to {} ({} commits since the last durable flush{})",
                    show(got.get(&la)),
                    show(newest.get(&la)),
                    self.commits.len(),
                    if self.pending.is_some() { ", and the cut flush's L2P differs in its mapped sectors or places" } else { "" }
                ));
            }
        }
        // P's recovery reclaims every page the recovered L2P does not name
        // (`rec0`'s `reclaim`), and the code's `rebuild` makes every data
        // superblock that holds no sector of it erasable: a superblock in
        // use right after recovery holds one. (The converse, an erasable
        // superblock holding none, is `compare`'s: P's pages there are the
        // recovered L2P's, never on the erasable queue.)
        if !v.read_only {
            let mut holds = vec![false; v.states.len()];
            for &q in got.values() {
                holds[v.sb_of(q as u32)] = true;
            }
            if let Some(sb) =
                (0..v.states.len()).find(|&sb| v.states[sb] == SbKind::Used && !holds[sb])
            {
                return Err(format!(
                    "refinement: after recovery superblock {sb} is in use but holds no sector of the recovered L2P (P's recovery reclaims every page the recovered L2P does not name, `reclaim`: blocks.rs `rebuild` makes such a superblock erasable)"
                ));
            }
        }
        // P's live checkpoint: the one before the crash where the
        // generation stayed (recovery without a checkpoint, `rec0`); else
        // the recovered L2P (recovery's own `ck3`, or a full checkpoint
        // the cut operation committed, over an empty region).
        if self
            .live_ck
            .as_ref()
            .is_none_or(|(g, _)| *g != v.generation)
        {
            self.live_ck = Some((v.generation, got.clone()));
        }
        // rec0: the recovered L2P, every mapped page durable, empty queues
        // (P holds no other page, so `reclaim` queues none of P's).
        let mut s = steps::new_p();
        s.gen = v.generation;
        for (&a, &p) in &got {
            s.dat.insert(p, Mc::Syn(Cell::D { d: D0, a }));
        }
        s.smap = got.clone();
        s.l2p = got.clone();
        self.s = Some(s);
        self.commits = vec![got];
        self.pending = None;
        self.lnk = None;
        self.released.clear();
        self.pl.recovered(&v);
        // A device that opens read-only (worn out) is not followed further.
        self.paused = v.read_only;
        if !self.paused {
            self.compare(&v)?;
        }
        self.prev = Some(v);
        Ok(())
    }

    /// The proofs' slot relation on the flash (`Stands` of
    /// `SCFTL.Impl.SlotOver`): the newest committed checkpoint recovery
    /// would read is P's live cell — the generation and map of the last
    /// full checkpoint — and every other committed one is older
    /// (`Older`). Checked after every operation and recovery: a slot
    /// written wrong, or erased or overwritten while live, shows here
    /// before any recovery reads it.
    pub fn slots(&self, cv: &ftl::refine::CheckpointView) -> Result<(), String> {
        let Some((g, m)) = self.live_ck.as_ref().filter(|_| !self.paused) else {
            return Ok(());
        };
        let Some((g0, l2p)) = cv.committed.first() else {
            return Err(format!(
                "refinement: no committed full checkpoint on the flash; P's live slot holds generation {g} (SlotOver's Stands: the live slot parses)"
            ));
        };
        if g0 != g {
            return Err(format!(
                "refinement: the newest committed checkpoint on the flash has generation {g0}, P's live slot {g} (SlotOver's Stands)"
            ));
        }
        let got = map_of(l2p);
        if got != *m {
            let la = first_difference(&got, m).unwrap_or(0);
            return Err(format!(
                "refinement: the live checkpoint (generation {g}) on the flash maps logical sector {la} to {}, P's live slot to {} (SlotOver's Stands: the slot's pages parse to P's cell)",
                show(got.get(&la)),
                show(m.get(&la))
            ));
        }
        if let Some((h, _)) = cv.committed.iter().skip(1).find(|(h, _)| h >= g) {
            return Err(format!(
                "refinement: a second committed checkpoint of generation {h} beside the live one of {g} (SlotOver's Older: the other slot holds an older one)"
            ));
        }
        Ok(())
    }

    /// The flush cut by the power may have relocated sectors before its
    /// commit: `got` maps the same sectors as `p`, and every place that
    /// differs is one where P held no page or an erasable one (which the
    /// cut flush may have erased to make room).
    fn same_sectors_fresh_places(&self, p: &Map, got: &Map) -> bool {
        let s = self.s.as_ref().expect("up");
        p.len() == got.len()
            && p.iter().all(|(a, &q)| match got.get(a) {
                Some(&g) if g == q => true,
                // Fresh: P holds no page there, or an erasable one the
                // cut operation may have erased first.
                Some(&g) => !matches!(s.cur_cell(g), Cell::D { .. }) || s.erasable(g),
                None => false,
            })
    }

    /// An operation completed; the device's view after it is `v`.
    pub fn step(&mut self, op: Done<'_>, v: RefineView) -> Result<(), String> {
        if self.paused {
            return Ok(());
        }
        let (Some(s), Some(p)) = (self.s.as_mut(), self.prev.take()) else {
            return Ok(());
        };
        self.steps_checked += 1;
        let commits = v.commits.saturating_sub(p.commits);
        if v.read_only {
            // A media failure the FTL could not work around. A flush that
            // committed before it succeeds: a recovery may rebuild its L2P.
            if commits == 1 {
                let at_commit = v.stable.as_deref().unwrap_or(&v.l2p);
                if matches!(op, Done::Flush) {
                    self.commits.clear();
                }
                self.commits.push(map_of(at_commit));
            }
            self.paused = true;
            return Ok(());
        }
        if commits > 1 {
            return Err(format!(
                "refinement: one operation ({op:?}) committed {commits} epochs"
            ));
        }
        let committed = commits == 1;
        if committed && !matches!(op, Done::Flush | Done::Barrier) {
            return Err(format!(
                "refinement: {op:?} committed an epoch (only a flush or a barrier commits)"
            ));
        }
        if matches!(op, Done::Refused) && v != p {
            return Err(
                "refinement: a refused request changed the FTL's state (Fig. 4: it has no effect)"
                    .into(),
            );
        }
        if matches!(op, Done::SyncBehind) && (v.l2p != p.l2p || v.updates != p.updates) {
            return Err(
                "refinement: a sync behind barriers changed the L2P or the epoch's updates (it only syncs and may erase erasable superblocks ahead)"
                    .into(),
            );
        }
        let range = match op {
            Done::Write { lba, versions } => Some(Range {
                lba,
                versions: Some(versions),
                n: versions.len() as u64,
            }),
            Done::Trim { lba, count } => Some(Range {
                lba,
                versions: None,
                n: count,
            }),
            _ => None,
        };
        let g = Guard {
            amax: self.amax,
            wmax: self.wmax,
            op: &op,
        };
        // What the operation did up to its commit (all of it if it did not
        // commit): the erase counts and the L2P at the commit.
        let at_commit = if committed {
            &v.erases_at_commit
        } else {
            &v.erases
        };
        let l2p_at_commit = match (&v.stable, committed) {
            (Some(st), true) => st,
            _ => &v.l2p,
        };
        let replaced_at_commit = if committed {
            v.replaced_at_commit
        } else {
            v.replaced
        };
        // 1. Erases by allocation: esF of every page of P there, each of
        //    which must be erasable.
        let gone = erases(s, &g, &self.released, &p.erases, at_commit, &v)?;
        if v.hold_releases > p.hold_releases {
            // The erase hold's way out (`Scftl::release_hold`): the chain's
            // consolidation page, synced, before the erase that needed it.
            self.pl.clear();
        }
        if !committed && owes_consolidation(&p) && !owes_consolidation(&v) {
            // The consolidation page before a tentative page (PL's
            // `optL`): the chain and the region's newest commit named
            // nothing after it.
            self.pl.clear();
        }
        self.pl.erased(&gone, &op)?;
        // 2. Places: moves a later change of the same sector overrode,
        //    then writes and trims in the request's range, relocations
        //    elsewhere; sectors placed again after a failed program are
        //    P's writes of the same content (charged below).
        let moved = if committed {
            &v.moves_before_commit
        } else {
            &v.moves
        };
        let wrote = overridden_moves(
            s,
            &g,
            range,
            moved.get(p.moves.len()..).unwrap_or(&[]),
            l2p_at_commit,
        )?;
        places(s, &g, range.map(|r| (r, &wrote)), l2p_at_commit)?;
        rewrites(s, &g, replaced_at_commit.saturating_sub(p.replaced))?;
        if !committed {
            program_unbuffered(s, &v);
        }
        if let Some(r) = range.filter(|r| r.versions.is_none()) {
            // Trims count against W like writes (ST: trim is a write of
            // zeros), mapped or not.
            for a in r.lba..r.lba + r.n {
                if !steps::in_bounds(s, a, self.amax, self.wmax) {
                    return Err(format!(
                        "refinement: the FTL accepted a trim of logical sector {a}, but P's guard InB refuses it (wcnt {} > wmax {})",
                        s.wcnt, self.wmax
                    ));
                }
                s.wcnt += 1;
            }
        }
        // 3. Victims marked before the commit: the rest of their pages
        //    become invalid (rlX); none may still be mapped. A committing
        //    operation's victims are erasable now, or were erased after
        //    the commit (a flush's commit is durable at once, so the
        //    allocation after it may erase and take again a victim of the
        //    same flush: it was used before and is active or used again
        //    now); later ones invalid.
        // Erased after the commit and not erasable now: taken again.
        let reused = |sb: usize, now: SbKind| {
            now != SbKind::Erasable && v.erases[sb] > v.erases_at_commit[sb]
        };
        let taken = victims(s, &p, &v, |sb, now| {
            if committed {
                now == SbKind::Erasable || reused(sb, now)
            } else {
                matches!(now, SbKind::Invalid | SbKind::Erasable | SbKind::Bad)
            }
        })?;
        if committed {
            // (Counted among the victims proper, used or active before
            // the operation, not superblocks it took from a queue.)
            self.victims_reused += taken
                .iter()
                .filter(|&&sb| {
                    matches!(p.states[sb], SbKind::Used | SbKind::Active)
                        && reused(sb, v.states[sb])
                })
                .count() as u64;
        }
        // 4. The commit (fl3: smap := l2p, invalid → erasable, counters
        //    reset), and a full checkpoint's new generation (ck3).
        let chained = v.chain_commits.saturating_sub(p.chain_commits);
        if chained > 0 && !committed {
            return Err(format!(
                "refinement: {op:?} counted an in-page or OOB commit but committed no epoch"
            ));
        }
        if committed {
            // The page whose record slot holds an in-page or OOB commit's
            // record (P's L, or the run's last page M).
            let mut record_page = None;
            if chained > 0 {
                // InP / OobP: the guards of P's in-page and OOB commits.
                let c = v
                    .last_chain
                    .as_ref()
                    .ok_or("refinement: an in-page or OOB commit left no record of its facts")?;
                chain_guard(s, c, self.lnk, v.sectors_per_page)?;
                self.chain_commits_checked += 1;
                if c.oob {
                    let spp = u64::from(v.sectors_per_page.max(1));
                    let pages = (c.pairs.len() as u64).div_ceil(spp);
                    self.longest_oob_run = self.longest_oob_run.max(pages);
                }
                record_page = Some(Page::from(c.page));
            }
            self.released.extend(s.inv.iter().map(|&q| (q, v.commits)));
            let freed: Vec<Page> = s.inv.iter().copied().collect();
            // P's commit: `fl3`, or for an in-page or OOB commit `fi4`
            // (the record in its slot, the consolidation page on the
            // region) or, with a full checkpoint, `ck3 (fi3 …)`.
            let checkpoint = v.generation != p.generation;
            if checkpoint {
                self.pl.clear();
            } else {
                let sb = record_page.map(|m| v.sb_of(m as u32));
                self.pl.commit(sb, named_by_commit(s), &freed);
            }
            match record_page {
                None => steps::fl3(s, g.amax, ModelMutant::None),
                Some(m) if checkpoint => {
                    steps::fi2(s, m, g.amax);
                    steps::fi3_from_fi2(s);
                }
                Some(m) => steps::fi4(s, m, g.amax),
            }
            if checkpoint {
                steps::ck3(s);
                s.gen = v.generation;
                self.live_ck = Some((v.generation, s.smap.clone()));
            }
            self.pl.premise(s)?;
            // P's lnk after the commit: fl3 and fiK/fi4 link the next
            // page, a fresh one (`nxt`); ck3 links none. (The FTL may link
            // none where P links one, when no page is left in the active
            // superblock: then it does not commit in-page next.)
            self.lnk = if v.generation != p.generation {
                if v.chain_link != UNMAPPED {
                    return Err(format!(
                        "refinement: {op:?} wrote a full checkpoint but left the link {} (P's ck3: no link; an in-page commit of the next epoch would chain from the old generation)",
                        v.chain_link
                    ));
                }
                None
            } else if v.chain_link == UNMAPPED {
                None
            } else {
                let l = Page::from(v.chain_link);
                if matches!(s.cur_cell(l), Cell::D { .. }) || s.mb.contains_key(&l) {
                    return Err(format!(
                        "refinement: {op:?} linked physical sector {l}, where P holds a page of logical sector {} (P's commit links nxt, a fresh page)",
                        s.p2l(l)
                    ));
                }
                Some(v.chain_link)
            };
            if matches!(op, Done::Flush) {
                self.commits.clear();
            }
            self.commits.push(s.smap.clone());
            if self.commits.len() > MAX_CANDIDATES {
                self.commits.remove(0);
            }
            // 5. After the commit: superblocks a full checkpoint took for
            //    the metadata, erases by allocation, static wear-leveling
            //    moves (relocations) and the victims they leave.
            for sb in 0..v.states.len() {
                if v.states[sb] == SbKind::Meta && p.states[sb] != SbKind::Meta {
                    erase_sb(s, sb, &v, || {
                        format!("{op:?} took superblock {sb} for the metadata")
                    })?;
                }
            }
            let gone = erases(s, &g, &self.released, &v.erases_at_commit, &v.erases, &v)?;
            self.pl.erased(&gone, &op)?;
            overridden_moves(s, &g, None, &v.moves, &v.l2p)?;
            places(s, &g, None, &v.l2p)?;
            rewrites(s, &g, v.replaced.saturating_sub(v.replaced_at_commit))?;
            program_unbuffered(s, &v);
            victims(s, &p, &v, |_, now| {
                matches!(now, SbKind::Invalid | SbKind::Bad)
            })?;
        } else if matches!(op, Done::Flush | Done::Barrier) && s.l2p != s.smap {
            // (A flush with only invalid pages to free may skip its
            // commit: they become erasable at a later one, P stutters.)
            return Err(format!(
                "refinement: {op:?} returned without committing, but the volatile L2P differs from the stable one (P's fl3 would commit it)"
            ));
        } else if v.generation != p.generation {
            return Err(format!(
                "refinement: the generation changed from {} to {} without a commit",
                p.generation, v.generation
            ));
        }
        if !committed && v.chain_link != p.chain_link {
            return Err(format!(
                "refinement: {op:?} moved the link from {} to {} without a commit (only P's commits set lnk)",
                p.chain_link, v.chain_link
            ));
        }
        // 6. Data pages whose program failed hold garbage: junk in P (a
        //    sector of the merge buffer there was never programmed).
        let old = p.failed_programs.len().min(v.failed_programs.len());
        for &first in &v.failed_programs[old..] {
            for q in first..first + v.sectors_per_page {
                let q = Page::from(q);
                s.mb.remove(&q);
                let m = s.page(q).put(Cell::Junk);
                s.set_page(q, m);
            }
        }
        self.compare(&v)?;
        self.prev = Some(v);
        Ok(())
    }

    /// The abstraction of `v` against P's state, and P's RI on the fields
    /// the abstraction covers.
    fn compare(&self, v: &RefineView) -> Result<(), String> {
        let s = self.s.as_ref().expect("up");
        // L2P (what the lock step replayed) and the ghost stable L2P.
        same_map(&v.l2p, &s.l2p, "L2P", "l2p")?;
        if let Some(stable) = &v.stable {
            same_map(
                stable,
                &s.smap,
                "stable L2P",
                "smap (the L2P at its last fl3)",
            )?;
        }
        // The delta region's room: PS's invariant `RInv.rB` (proofs,
        // SCFTL.Impl.SpaceRegion), `length dr + epm <= D + length ept`,
        // where P's region holds the consolidation page the code still
        // owes (P writes it at the commit) and `ept` is the epoch's
        // tentative pages: the rest of the epoch (its tentative pages up to
        // epoch_pages_max - 1 and its commit page) fits.
        if let Some(r) = &v.region {
            // `Tent` (RInv.fB, .bB): a tentative page holds a full page of
            // pairs (the buffer is programmed when it fills), and the
            // buffer is under a page; and `tp-bound`: the epoch has at
            // most epoch_pages_max - 1 tentative pages.
            let ppp = u64::from(r.pairs_per_page);
            if let Some(pairs) = &v.epoch_pairs {
                let full = u64::from(r.epoch_pages) * ppp + u64::from(r.buffered_pairs);
                if pairs.len() as u64 != full {
                    return Err(format!(
                        "refinement: the epoch has {} delta pairs, but its {} tentative page(s) of {ppp} pairs and the {} buffered make {full} (PS's Tent: a tentative page only when the buffer fills)",
                        pairs.len(),
                        r.epoch_pages,
                        r.buffered_pairs
                    ));
                }
            }
            if u64::from(r.buffered_pairs) >= ppp || u64::from(r.epoch_pages) >= r.epoch_pages_max {
                return Err(format!(
                    "refinement: the delta buffer holds {} of {ppp} pairs and the epoch {} tentative page(s) (PS's RInv: the buffer under a page, at most epoch_pages_max - 1 = {} tentative pages)",
                    r.buffered_pairs,
                    r.epoch_pages,
                    r.epoch_pages_max.saturating_sub(1)
                ));
            }
            let p_region = u64::from(r.used) + u64::from(r.consolidation_owed);
            if p_region + r.epoch_pages_max > u64::from(r.pages) + u64::from(r.epoch_pages) {
                return Err(format!(
                    "refinement: the delta region has {} of its {} pages left with {} tentative page(s) of this epoch written{}, fewer than the rest of an epoch may need (PS's RInv: pages used + epoch_pages_max {} <= region pages + the epoch's tentative pages; after_commit must take a full checkpoint when fewer than epoch_pages_max + 1 pages remain)",
                    r.pages - r.used,
                    r.pages,
                    r.epoch_pages,
                    if r.consolidation_owed { " and a consolidation page owed" } else { "" },
                    r.epoch_pages_max
                ));
            }
        }
        // Valid counts: P's l2p per superblock.
        let mut counted = vec![0u32; v.states.len()];
        for &q in s.l2p.values() {
            counted[v.sb_of(q as u32)] += 1;
        }
        if let Some(sb) = (0..counted.len()).find(|&sb| counted[sb] != v.valid[sb]) {
            return Err(format!(
                "refinement: superblock {sb} has valid count {}, but P's l2p maps {} logical sectors into it",
                v.valid[sb], counted[sb]
            ));
        }
        // The merge buffers: every sector they hold that the L2P maps is
        // one P placed and has not programmed. (A buffered slot the L2P no
        // longer maps may be one P never saw: a sector placed and
        // overwritten or relocated within one operation.)
        for &q in &v.buffered {
            let q = Page::from(q);
            if !s.mb.contains_key(&q) && maps_to(&s.l2p, s, q) {
                return Err(format!(
                    "refinement: the FTL's merge buffer still holds physical sector {q} (logical sector {}), which P has programmed (P's flush programs the merge buffer before its commit)",
                    s.p2l(q)
                ));
            }
        }
        // The delta buffer and the epoch's tentative pages (RI `vm`: the
        // volatile L2P is the stable one with the epoch's pairs applied;
        // a trim's pair unmaps).
        if let Some(pairs) = &v.epoch_pairs {
            if let Some((a, to)) = pairs_miss(&s.smap, pairs, &s.l2p) {
                return Err(format!(
                    "refinement: the epoch's delta pairs ({} in its tentative pages and delta buffer) take logical sector {a} from the stable L2P to {}, but the volatile L2P maps it to {} (RI vm: the volatile L2P is the stable one with the epoch's pairs applied)",
                    pairs.len(),
                    show(to.as_ref()),
                    show(s.l2p.get(&a))
                ));
            }
        }
        // Counter.
        if s.wcnt + v.moves_charged != v.updates {
            return Err(format!(
                "refinement: the epoch has {} updates in the FTL ({} of them moves of wear leveling or of a superblock with a bad block) but P's wcnt is {}",
                v.updates, v.moves_charged, s.wcnt
            ));
        }
        // Block states against P's queues, page by page.
        // Each page with its membership of the two queues: the programmed
        // pages, then the merge buffer's, each in page order.
        let programmed = s
            .dat
            .iter()
            .filter(|(_, m)| matches!(m.cur(), Cell::D { .. }))
            .map(|(&q, _)| q);
        let pages = with_queues(s, programmed).chain(with_queues(s, s.mb.keys().copied()));
        for (q, inv, ers) in pages {
            let sb = v.sb_of(q as u32);
            let st = v.states[sb];
            let bad = match st {
                SbKind::Erasable if !ers => Some(if inv {
                    "invalid, not yet erasable (its victim's epoch has not committed)"
                } else {
                    "neither invalid nor erasable"
                }),
                SbKind::Invalid if !inv && !ers => Some("neither invalid nor erasable"),
                SbKind::Used
                    if (inv || ers) && (v.moving == Some(sb) || v.evacuating.contains(&sb)) =>
                {
                    None
                }
                SbKind::Used | SbKind::Active if inv || ers => {
                    Some("invalid or erasable, in a superblock holding data")
                }
                // Retired for a bad block: emptied first (its pages were
                // relocated or taken as a victim's), never erased again.
                SbKind::Bad if !(inv || ers) => {
                    Some("neither invalid nor erasable, in a retired superblock")
                }
                SbKind::Free | SbKind::Meta => Some("a page P still holds"),
                _ => None,
            };
            if let Some(what) = bad {
                return Err(format!(
                    "refinement: superblock {sb} is {st:?}, but P's page at physical sector {q} (logical sector {}) is {what}",
                    s.p2l(q)
                ));
            }
            // RI: erasable pages mapped by neither L2P, invalid ones not
            // by the volatile one.
            if !(inv || ers) {
                continue;
            }
            let mapped = maps_to(&s.l2p, s, q);
            if ers && (mapped || maps_to(&s.smap, s, q)) {
                return Err(format!(
                    "refinement: P's erasable page at physical sector {q} is still mapped (RI: erasable pages are mapped by neither L2P)"
                ));
            }
            if inv && mapped {
                return Err(format!(
                    "refinement: P's invalid page at physical sector {q} is mapped by the volatile L2P (RI)"
                ));
            }
        }
        // RI: every mapped page holds its sector; every stable one durably.
        for (&a, &q) in &s.l2p {
            let cur = s.cur_cell(q);
            if *cur == Cell::Junk {
                return Err(format!(
                    "refinement: the FTL's L2P maps logical sector {a} to physical sector {q}, whose page the flash failed to program (it holds garbage)"
                ));
            }
            // `p2l q ≡ a` and `pv q` a data cell, with one look at the
            // merge buffer and one at the page.
            let holds = match s.mb.get(&q) {
                Some(&(_, b)) => b == a,
                None => matches!(cur, Cell::D { a: b, .. } if *b == a),
            };
            if !holds {
                return Err(format!(
                    "refinement: P's l2p maps logical sector {a} to physical sector {q}, which does not hold it (RI)"
                ));
            }
        }
        for (&a, &q) in &s.smap {
            match s.dat.get(&q) {
                Some(Mc::Syn(Cell::D { a: b, .. })) if *b == a => {}
                other => {
                    return Err(format!(
                        "refinement: P's smap maps logical sector {a} to physical sector {q}, which is {other:?}, not a durable page of that sector (RI)"
                    ))
                }
            }
        }
        Ok(())
    }
}

/// P's guards of the in-page and the OOB commit (`InP s L`, `OobP s L M`,
/// proofs/SCFTL/Impl/Model.agda), on the facts `c` the FTL recorded when it
/// programmed the record, against P's state `s` before the commit and P's
/// link `lnk`: the commit starts at P's link L (`lnk s ≡ just L`); the
/// epoch wrote no tentative delta page (`ept s ≡ []`); page L was
/// allocated (`L < nxt s`); an in-page record sits in page L, an OOB
/// record in the last page of the run from L whose pairs are exactly the
/// run's sectors in order (`runP`); the record's page is the merge
/// buffer's; the record's pairs take the stable L2P
/// to the volatile one (RI `vm`: recovery applies exactly them); and no
/// earlier epoch was unsynced (P's commits all sync; the code syncs before
/// such a record, which proves every earlier epoch durable).
fn chain_guard(
    s: &St,
    c: &ftl::refine::ChainCommit,
    lnk: Option<u32>,
    spp: u32,
) -> Result<(), String> {
    let kind = if c.oob {
        "an OOB commit"
    } else {
        "an in-page commit"
    };
    if lnk != Some(c.link) {
        return Err(format!(
            "refinement: {kind} started from link {}, but P's link is {} (InP/OobP: lnk s ≡ just L)",
            c.link,
            lnk.map_or("none".to_string(), |l| l.to_string())
        ));
    }
    if c.tentative_pages > 0 {
        return Err(format!(
            "refinement: {kind} after {} tentative delta page(s) of its epoch (InP/OobP: ept s ≡ []; its record would not name their pairs)",
            c.tentative_pages
        ));
    }
    if c.unsynced_before > 0 {
        return Err(format!(
            "refinement: {kind} programmed its record while {} earlier epoch(s) were unsynced (every commit of P syncs; the record proves every earlier epoch durable)",
            c.unsynced_before
        ));
    }
    let l = Page::from(c.link);
    if !(matches!(s.cur_cell(l), Cell::D { .. }) || s.mb.contains_key(&l)) {
        return Err(format!(
            "refinement: {kind} from link {l}, where the epoch placed no sector (InP/OobP: L < nxt s)"
        ));
    }
    if !c.oob && c.page != c.link {
        return Err(format!(
            "refinement: an in-page commit put its record in the page at {}, not in the linked page at {} (InP: the record slot of page L)",
            c.page, c.link
        ));
    }
    // InP / OobP: the record's page is still in the merge buffer (each
    // sector of it the epoch placed). (That an OOB run's earlier pages were
    // programmed is P's `opt` choice, which the flush may make for pages
    // it filled before its commit; not checked.)
    let (page, spp64) = (Page::from(c.page), Page::from(spp));
    if let Some(q) = (page..page + spp64)
        .find(|&q| matches!(s.cur_cell(q), Cell::D { .. }) && !s.mb.contains_key(&q))
    {
        return Err(format!(
            "refinement: {kind} put its record in the page at {page}, whose sector {q} was programmed before the commit (InP/OobP: the record's page is the merge buffer's)"
        ));
    }
    if c.oob {
        if let Some(k) = (0..c.pairs.len()).find(|&k| c.pairs[k].1 != c.link + k as u32) {
            return Err(format!(
                "refinement: an OOB commit's pair {k} names physical sector {}, not {} (OobP: runP, the pairs are the run's sectors in order)",
                c.pairs[k].1,
                c.link + k as u32
            ));
        }
        let last = c.link + (c.pairs.len() as u32).saturating_sub(1);
        if c.page != last - last % spp {
            return Err(format!(
                "refinement: an OOB commit put its record in the page at {}, not in the run's last page (at {})",
                c.page,
                last - last % spp
            ));
        }
    }
    if let Some((a, to)) = pairs_miss(&s.smap, &c.pairs, &s.l2p) {
        return Err(format!(
            "refinement: {kind}'s {} pairs take logical sector {a} from the stable L2P to {}, but the volatile L2P maps it to {} (recovery applies exactly the record's pairs)",
            c.pairs.len(),
            show(to.as_ref()),
            show(s.l2p.get(&a))
        ));
    }
    Ok(())
}

/// Where the FTL's delta `pairs` (in order; a trim's pair, `UNMAPPED`,
/// unmaps) take map `from`, against `target` (RI `vm`): the lowest logical
/// sector at which they differ, with its place under the pairs; `None`
/// when they agree.
fn pairs_miss(from: &Map, pairs: &[(u32, u32)], target: &Map) -> Option<(Addr, Option<Page>)> {
    let mut m = from.clone();
    for &(a, p) in pairs {
        if p == UNMAPPED {
            m.remove(&Addr::from(a));
        } else {
            m.insert(Addr::from(a), Page::from(p));
        }
    }
    let a = first_difference(target, &m)?;
    Some((a, m.get(&a).copied()))
}

/// The sectors a write or trim names (`versions`: `None` for a trim).
#[derive(Clone, Copy)]
struct Range<'a> {
    lba: u64,
    versions: Option<&'a [u32]>,
    n: u64,
}

impl Range<'_> {
    fn contains(&self, a: u64) -> bool {
        a >= self.lba && a < self.lba + self.n
    }
}

/// P's guard bounds and the operation, for messages.
struct Guard<'a, 'b> {
    amax: Addr,
    wmax: u64,
    op: &'a Done<'b>,
}

/// Whether `m` maps the sector P's page `q` holds to `q` (a page holds one
/// sector, so no other address can map there while RI holds).
fn maps_to(m: &Map, s: &St, q: Page) -> bool {
    m.get(&s.p2l(q)) == Some(&q)
}

/// The FTL's map `concrete` (the FTL calls it `what`) equals P's `model`
/// (called `name` in P), address by address: one pass over both in
/// address order (no lookup per address), entries of `model` past
/// `concrete`'s end ignored.
fn same_map(concrete: &[u32], model: &Map, what: &str, name: &str) -> Result<(), String> {
    let mut m = map_walk(model);
    for (a, &np) in concrete.iter().enumerate() {
        let c = (np != UNMAPPED).then_some(Page::from(np));
        let a = a as Addr;
        let p = m.at(a);
        if p != c {
            return Err(format!(
                "refinement: the FTL's {what} maps logical sector {a} to {}, P's {name} to {}",
                show(c.as_ref()),
                show(p.as_ref())
            ));
        }
    }
    Ok(())
}

/// A walk through sorted `(key, value)` entries (a map's, or a set's with
/// `()` values), asked about ascending keys: each entry is passed once,
/// so comparing a whole map or set costs one pass instead of a tree
/// lookup per key.
struct InOrder<I: Iterator> {
    entries: std::iter::Peekable<I>,
}

impl<V, I: Iterator<Item = (u64, V)>> InOrder<I> {
    fn new(entries: I) -> Self {
        InOrder {
            entries: entries.peekable(),
        }
    }

    /// The value at `key`, if any; every later call must ask about a
    /// larger key.
    fn at(&mut self, key: u64) -> Option<V> {
        while self.entries.next_if(|(k, _)| *k < key).is_some() {}
        self.entries.next_if(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

/// [`InOrder`] over a map.
fn map_walk(m: &Map) -> InOrder<impl Iterator<Item = (Addr, Page)> + '_> {
    InOrder::new(m.iter().map(|(&a, &p)| (a, p)))
}

/// [`InOrder`] over a set of pages (`at(q).is_some()`: the set holds `q`).
fn set_walk(set: &BTreeSet<Page>) -> InOrder<impl Iterator<Item = (Page, ())> + '_> {
    InOrder::new(set.iter().map(|&q| (q, ())))
}

/// `pages` (ascending) with whether each is in P's invalid and erasable
/// queues, found by walking the queues beside them.
fn with_queues<'a>(
    s: &'a St,
    pages: impl Iterator<Item = Page> + 'a,
) -> impl Iterator<Item = (Page, bool, bool)> + 'a {
    let (mut inv, mut ers) = (set_walk(&s.inv), set_walk(&s.ers));
    pages.map(move |q| {
        let e = ers.at(q).is_some() || s.rcl.contains(q);
        (q, inv.at(q).is_some(), e)
    })
}

/// The lowest address at which maps `x` and `y` differ (one maps it and
/// the other not, or to another page), by one pass over both.
fn first_difference(x: &Map, y: &Map) -> Option<Addr> {
    let (mut i, mut j) = (x.iter().peekable(), y.iter().peekable());
    loop {
        match (i.peek(), j.peek()) {
            (None, None) => return None,
            (Some(&(&a, _)), None) | (None, Some(&(&a, _))) => return Some(a),
            (Some(&(&a, p)), Some(&(&b, q))) => {
                if a != b {
                    return Some(a.min(b));
                }
                if p != q {
                    return Some(a);
                }
                i.next();
                j.next();
            }
        }
    }
}

/// Pages of P (programmed or in the merge buffer) in superblock `sb`.
fn pages_in(s: &St, v: &RefineView, sb: usize) -> Vec<Page> {
    let spb = u64::from(v.sectors_per_sb);
    let lo = sb as u64 * spb;
    s.dat
        .range(lo..lo + spb)
        .filter(|(_, m)| matches!(m.cur(), Cell::D { .. }))
        .map(|(&q, _)| q)
        .chain(s.mb.range(lo..lo + spb).map(|(&q, _)| q))
        .collect()
}

/// Why P's page `q` may not be erased.
fn why_not_erasable(s: &St, q: Page) -> String {
    let a = s.p2l(q);
    if maps_to(&s.l2p, s, q) {
        format!("the volatile L2P maps logical sector {a} there")
    } else if maps_to(&s.smap, s, q) {
        format!("the stable L2P maps logical sector {a} there")
    } else if s.inv.contains(&q) {
        "it is invalid: its victim's epoch has not committed (two-phase GC)".into()
    } else {
        "GC never took it (it is neither invalid nor erasable)".into()
    }
}

/// `esF` of every page of P in superblock `sb`, which `what` erased; each
/// must be in the erasable queue. Returns those pages.
fn erase_sb(
    s: &mut St,
    sb: usize,
    v: &RefineView,
    what: impl Fn() -> String,
) -> Result<Vec<Page>, String> {
    let pages = pages_in(s, v, sb);
    for &q in &pages {
        if !s.erasable(q) {
            return Err(format!(
                "refinement: {} (erasing it), but P's page at physical sector {q} is not erasable: {} (P's esF erases only pages of the erasable queue)",
                what(),
                why_not_erasable(s, q)
            ));
        }
        steps::es_f(s, q);
    }
    Ok(pages)
}

/// The erases between two erase counts (superblocks that hold metadata
/// now are the commit's, see `step`). A page GC freed at commit `k`
/// (`released`) may be erased only once commit `k` is durable (`GcI`:
/// after an epoch barrier, a crash may return to a state before `k` that
/// still maps into it). Returns the superblocks erased and P's pages
/// there.
fn erases(
    s: &mut St,
    g: &Guard<'_, '_>,
    released: &BTreeMap<Page, u64>,
    from: &[u64],
    to: &[u64],
    v: &RefineView,
) -> Result<(Vec<usize>, Vec<Page>), String> {
    let mut gone = (Vec::new(), Vec::new());
    for sb in 0..v.states.len() {
        if to[sb] > from[sb] && v.states[sb] != SbKind::Meta {
            let durable = v.erase_durable.get(sb).copied().unwrap_or(u64::MAX);
            if let Some((q, k)) = pages_in(s, v, sb)
                .into_iter()
                .filter_map(|q| released.get(&q).map(|&k| (q, k)))
                .find(|&(_, k)| k > durable)
            {
                return Err(format!(
                    "refinement: {:?} erased superblock {sb} with {durable} commits durable, but GC freed P's page at physical sector {q} there at commit {k}, which is not (GcI: a crash may return to a barrier's state before it, which maps into the superblock)",
                    g.op
                ));
            }
            gone.0.push(sb);
            gone.1.extend(erase_sb(s, sb, v, || {
                format!("{:?} erased superblock {sb}", g.op)
            })?);
        }
    }
    Ok(gone)
}

/// Steps P from its `l2p` to `target` (the FTL's L2P at some point of the
/// operation): `wr0` for the sectors of a write's `range` (less those
/// [`overridden_moves`] wrote), removal for a trim's, `rl0` for every other
/// sector that moved; checks each step's guard.
fn places(
    s: &mut St,
    g: &Guard<'_, '_>,
    range: Option<(Range<'_>, &BTreeSet<Addr>)>,
    target: &[u32],
) -> Result<(), String> {
    // The addresses to step: those whose place differs from P's and
    // those the request names (one ordered pass; a step at one address
    // changes no other address's place, so this is the set the step
    // loop below would act on, address by address).
    let visit: Vec<Addr> = {
        let mut l2p = map_walk(&s.l2p);
        (0..target.len() as Addr)
            .filter(|&a| {
                let np = target[a as usize];
                let new = (np != UNMAPPED).then_some(Page::from(np));
                l2p.at(a) != new || range.is_some_and(|(r, _)| r.contains(a))
            })
            .collect()
    };
    for a in visit {
        let np = target[a as usize];
        let new = (np != UNMAPPED).then_some(Page::from(np));
        let old = s.l2p.get(&a).copied();
        // (A sector `overridden_moves` wrote already is moved on from
        // there, not written again.)
        let written = range
            .filter(|(r, wrote)| r.contains(a) && !wrote.contains(&a))
            .map(|(r, _)| r);
        if new == old {
            if written.is_some_and(|r| r.versions.is_some()) {
                return Err(format!(
                    "refinement: the write of logical sector {a} left it at {} (P's wr0 places every written sector on a new page)",
                    show(old.as_ref())
                ));
            }
            continue;
        }
        if let Some(q) = new {
            fresh(s, a, q)?;
        }
        match (written, new) {
            (
                Some(Range {
                    lba,
                    versions: Some(vs),
                    ..
                }),
                Some(q),
            ) => wr0_at(s, g, a, q, vs[(a - lba) as usize])?,
            (Some(Range { versions: None, .. }), None) => {
                s.l2p.remove(&a);
            }
            (_, Some(q)) if old.is_some_and(|from| s.mb.contains_key(&from)) => {
                // The program of a merge buffer page failed: the FTL
                // retired the superblock and placed the page's sectors at
                // a fresh one with new delta pairs, charged to the epoch's
                // updates — P's wr0 of the same content.
                // Its charge, one per sector placed again (also those the
                // request wrote), is `rewrites`'.
                let (d, _) = s.mb[&old.expect("checked")];
                s.nxt = q;
                steps::place(s, a, d);
            }
            (_, Some(q)) => {
                // A relocation: rl0 of the page that held the sector.
                let Some(from) = old else {
                    return Err(format!(
                        "refinement: logical sector {a}, unmapped, was mapped to physical sector {q} by {:?}, which does not write it",
                        g.op
                    ));
                };
                rl0_at(s, a, from, q)?;
            }
            (_, None) => {
                return Err(format!(
                    "refinement: {:?} unmapped logical sector {a} (was at {}), which it does not trim",
                    g.op,
                    show(old.as_ref())
                ));
            }
        }
    }
    Ok(())
}

/// The operation's moves ([`RefineView::moves`]) that a later change of
/// the same sector in the same operation overrode (`target`, the L2P at
/// the operation's end or commit, does not name their pages): P's `rl0`
/// of each, in order, from the page P maps its sector to, so that P
/// holds the move's page as SCFTL does — an OOB commit's run may start
/// there. A move whose source is not the page P maps its sector to (P
/// maps it elsewhere or not at all) moved a copy the request had written
/// just before: P's `wr0` at the move's page stands for both (the write's
/// own page, never in an L2P P sees, is the FTL's garbage; the page P
/// held, if any, is overwritten, not relocated), and the sector is
/// returned among those written. (A bug hunt found the first kind missing:
/// a request wrote a sector, GC moved that fresh copy, a failed program
/// placed it again, and P had relocated the sector's old page instead,
/// leaving it invalid in a superblock the FTL keeps in use: `tiny`, seed
/// 409828538, `--spare-superblocks 2 --inject-failures 0.3 --aimed 0.05`,
/// the run `a_write_moved_by_gc_then_placed_again_is_written_in_p` pins.)
/// What the operation did after the moves is `places`' to step.
fn overridden_moves(
    s: &mut St,
    g: &Guard<'_, '_>,
    range: Option<Range<'_>>,
    moves: &[(u32, u32, u32)],
    target: &[u32],
) -> Result<BTreeSet<Addr>, String> {
    let mut wrote = BTreeSet::new();
    for &(a, src, q) in moves {
        if target.get(a as usize) == Some(&q) {
            continue;
        }
        let (a, src, q) = (Addr::from(a), Page::from(src), Page::from(q));
        fresh(s, a, q)?;
        match s.l2p.get(&a).copied() {
            // The move took the copy P holds: P's rl0 of it.
            Some(from) if from == src => rl0_at(s, a, from, q)?,
            // The move took a copy P never placed: one the same request
            // had just written (the FTL wrote it, then GC or the emptying
            // of a superblock moved it, then a later change overrode it).
            // P writes the request's version at the move's page; the page
            // P held for the sector before is overwritten, not relocated.
            held => {
                let Some((lba, vs)) = range
                    .filter(|r| r.contains(a))
                    .and_then(|r| r.versions.map(|vs| (r.lba, vs)))
                else {
                    return Err(format!(
                        "refinement: logical sector {a} was moved from physical sector {src} to {q} by {:?}, but P holds it at {} and the operation does not write it (a move relocates the sector's mapped copy)",
                        g.op,
                        show(held.as_ref())
                    ));
                };
                wr0_at(s, g, a, q, vs[(a - lba) as usize])?;
                wrote.insert(a);
            }
        }
    }
    Ok(wrote)
}

/// That P holds no page at `q`, where the FTL placed logical sector `a`
/// (P programs a page once between erases).
fn fresh(s: &St, a: Addr, q: Page) -> Result<(), String> {
    if matches!(s.cur_cell(q), Cell::D { .. }) || s.mb.contains_key(&q) {
        return Err(format!(
            "refinement: logical sector {a} was placed at physical sector {q}, where P still holds a page of logical sector {} (P programs a page once between erases)",
            s.p2l(q)
        ));
    }
    Ok(())
}

/// P's `wr0` of version `d` of logical sector `a` at page `q`, under its
/// guard `InB`.
fn wr0_at(s: &mut St, g: &Guard<'_, '_>, a: Addr, q: Page, d: u32) -> Result<(), String> {
    if !steps::in_bounds(s, a, g.amax, g.wmax) {
        return Err(format!(
            "refinement: the FTL placed a write of logical sector {a}, but P's guard InB refuses it (wcnt {} > wmax {})",
            s.wcnt, g.wmax
        ));
    }
    s.nxt = q;
    steps::wr0(s, a, d, ModelMutant::None);
    Ok(())
}

/// P's `rl0` of logical sector `a` from page `from` to page `q`, under
/// its guard `Valid` (P's page at `from` holds `a`).
fn rl0_at(s: &mut St, a: Addr, from: Page, q: Page) -> Result<(), String> {
    if s.p2l(from) != a {
        return Err(format!(
            "refinement: logical sector {a} was relocated from physical sector {from}, which holds logical sector {} in P (Valid fails)",
            s.p2l(from)
        ));
    }
    s.nxt = q;
    if !steps::rl0(s, from) {
        return Err(format!(
            "refinement: P's page at {from} has no definite content to relocate"
        ));
    }
    Ok(())
}

/// The write counter of P's `wr0` for `n` sectors the FTL placed again
/// after a failed program of their merge buffer page (their places are
/// `places`'); each must pass P's guard `InB`.
fn rewrites(s: &mut St, g: &Guard<'_, '_>, n: u64) -> Result<(), String> {
    for _ in 0..n {
        if s.wcnt > g.wmax {
            return Err(format!(
                "refinement: the FTL placed a sector again after a failed program, but P's guard InB refuses the write (wcnt {} > wmax {})",
                s.wcnt, g.wmax
            ));
        }
        s.wcnt += 1;
    }
    Ok(())
}

/// Superblocks that were used or active before the operation (or taken
/// from the free or erasable queue during it) and that `now` selects, by
/// their index and state now: GC (or wear leveling) took them as victims,
/// so every page of P there becomes invalid (`rlX` for those not relocated
/// by `rl0`); none may still be mapped by the volatile L2P. Returns the
/// superblocks it took.
fn victims(
    s: &mut St,
    p: &RefineView,
    v: &RefineView,
    now: impl Fn(usize, SbKind) -> bool,
) -> Result<Vec<usize>, String> {
    let mut taken_all = Vec::new();
    for (sb, (&was, &st)) in p.states.iter().zip(&v.states).enumerate() {
        // Used or active before the operation, or taken from the free or
        // erasable queue during it (filled, by moves a later change
        // overrode among others, and taken as a victim in the same
        // operation).
        let taken = was == SbKind::Free || (was == SbKind::Erasable && v.erases[sb] > p.erases[sb]);
        if (matches!(was, SbKind::Used | SbKind::Active) || taken) && now(sb, st) {
            taken_all.push(sb);
            for q in pages_in(s, v, sb) {
                let a = s.p2l(q);
                if maps_to(&s.l2p, s, q) {
                    return Err(format!(
                        "refinement: superblock {sb} became {st:?} while the volatile L2P still maps logical sector {a} to its physical sector {q} (GC takes a victim only after relocating its valid sectors)"
                    ));
                }
                // (A page of P erasable there is one a superblock taken
                // from the erasable queue held before its erase, which
                // step 5 of `step` applies.)
                if !s.inv.contains(&q) && !s.erasable(q) {
                    steps::rl_x(s, q);
                }
            }
        }
    }
    Ok(taken_all)
}

/// The pages of P's merge buffer the FTL no longer buffers were
/// programmed: `progm` of each (a merge buffer page written by the
/// operation; P's `progMB` with the choice the device made).
fn program_unbuffered(s: &mut St, v: &RefineView) {
    let keep: BTreeSet<Page> = v.buffered.iter().map(|&q| Page::from(q)).collect();
    let done: Vec<Page> = s.mb.keys().copied().filter(|q| !keep.contains(q)).collect();
    for q in done {
        if let Some((d, a)) = s.mb.remove(&q) {
            let m = s.page(q).put(Cell::D { d, a });
            s.set_page(q, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A random sparse map over addresses `0..n` and its dense form
    /// (`UNMAPPED` where it maps nothing).
    fn random_map(rng: &mut rand_pcg::Pcg64, n: u64) -> (Map, Vec<u32>) {
        let mut m = Map::new();
        let mut dense = vec![UNMAPPED; n as usize];
        for a in 0..n {
            if rng.gen_bool(0.5) {
                let p = rng.gen_range(0..8u32);
                m.insert(a, Page::from(p));
                dense[a as usize] = p;
            }
        }
        (m, dense)
    }

    /// The ordered walks answer what the lookups they replace answer: a
    /// map against its dense copy with one entry changed, two maps'
    /// first difference, and a set's membership.
    #[test]
    fn ordered_walks_agree_with_lookups() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for round in 0..500 {
            let n = rng.gen_range(0..40u64);
            let (m, mut dense) = random_map(&mut rng, n);
            assert!(same_map(&dense, &m, "L2P", "l2p").is_ok(), "round {round}");
            if n > 0 {
                let a = rng.gen_range(0..n) as usize;
                dense[a] = if dense[a] == UNMAPPED { 3 } else { UNMAPPED };
                let err = same_map(&dense, &m, "L2P", "l2p").expect_err("changed");
                assert!(
                    err.contains(&format!("logical sector {a} ")),
                    "round {round}: {err}"
                );
            }
            let (x, _) = random_map(&mut rng, n);
            let (y, _) = random_map(&mut rng, n);
            let naive = (0..n).find(|a| x.get(a) != y.get(a));
            assert_eq!(first_difference(&x, &y), naive, "round {round}");
            assert_eq!(first_difference(&x, &x), None);
            let set: BTreeSet<Page> = x.keys().copied().collect();
            let mut walk = set_walk(&set);
            let mut at = map_walk(&y);
            for a in 0..n {
                if rng.gen_bool(0.7) {
                    assert_eq!(
                        walk.at(a).is_some(),
                        set.contains(&a),
                        "round {round}, page {a}"
                    );
                    assert_eq!(at.at(a), y.get(&a).copied(), "round {round}, address {a}");
                }
            }
        }
    }

    /// PL's erase guard as the oracle follows it: a region commit's pages
    /// are the newest commit's; without a record on the flash an erase is
    /// P's erasable queue's business alone; with one, an erase of a page
    /// the newest commit names, of a record's page or of a record's
    /// superblock is refused, any other counted; a region commit, a
    /// checkpoint or a recovery ends the chain.
    #[test]
    fn pl_guard_refuses_what_pl_forbids() {
        let op = Done::Flush;
        let pages = |v: &[Page]| v.iter().copied().collect::<BTreeSet<Page>>();
        let mut g = PlGuard::default();
        g.commit(None, pages(&[1, 2, 3]), &[]);
        // No chain: P's erasable queue alone guards the erase.
        g.erased(&(vec![0], vec![1, 7]), &op).unwrap();
        assert_eq!(g.chain_phase_erases, 0);
        // A record in superblock 5 naming page 40.
        g.commit(Some(5), pages(&[40]), &[]);
        g.erased(&(vec![0], vec![7, 8]), &op).unwrap();
        assert_eq!(g.chain_phase_erases, 2);
        let e = g.erased(&(vec![0], vec![7, 1]), &op).unwrap_err();
        assert!(e.contains("the region's newest commit names"), "{e}");
        let e = g.erased(&(vec![1], vec![40]), &op).unwrap_err();
        assert!(e.contains("a record of the lazy chain names"), "{e}");
        let e = g.erased(&(vec![5], vec![]), &op).unwrap_err();
        assert!(e.contains("superblock 5, which holds a record"), "{e}");
        // The next region commit ends the chain: its pages are the top.
        g.commit(None, pages(&[9]), &[]);
        g.erased(&(vec![5], vec![40, 1]), &op).unwrap();
        g.commit(Some(6), BTreeSet::new(), &[]);
        g.erased(&(vec![2], vec![1, 10]), &op).unwrap();
        assert!(g.erased(&(vec![2], vec![9]), &op).is_err());
        g.clear();
        g.erased(&(vec![6], vec![9]), &op).unwrap();
        assert_eq!(g.chain_phase_erases, 4);
    }

    /// The erase hold as the oracle follows it: pages a commit of the
    /// chain makes erasable are held until the chain ends, pages a region
    /// commit frees are not; the premise (every erasable page the guard
    /// protects is held) is checked on P's state; after a recovery that
    /// kept the chain's tail, no superblock may be erased at all.
    #[test]
    fn the_erase_hold_and_its_premise() {
        let op = Done::Flush;
        let pages = |v: &[Page]| v.iter().copied().collect::<BTreeSet<Page>>();
        let mut g = PlGuard::default();
        g.commit(None, pages(&[1, 2]), &[7]);
        g.commit(Some(5), pages(&[40]), &[8, 1]);
        g.erased(&(vec![0], vec![7]), &op).unwrap();
        let e = g.erased(&(vec![0], vec![8]), &op).unwrap_err();
        assert!(e.contains("the erase hold keeps it"), "{e}");
        // The premise: the newest commit's page 1 is erasable and held;
        // its page 2 erasable and not held breaks it.
        let mut s = steps::new_p();
        s.ers.insert(1);
        s.ers.insert(7);
        g.premise(&s).unwrap();
        s.ers.insert(2);
        let e = g.premise(&s).unwrap_err();
        assert!(
            e.contains("physical sector 2, which the region's newest commit names"),
            "{e}"
        );
        // A region commit ends the chain and its hold.
        g.commit(None, BTreeSet::new(), &[9]);
        g.premise(&s).unwrap();
        g.erased(&(vec![0], vec![8]), &op).unwrap();
        // After a recovery that kept the tail: every superblock held.
        g.records = 1;
        g.hold_all = true;
        let e = g.erased(&(vec![3], vec![]), &op).unwrap_err();
        assert!(e.contains("erased superblock 3 after a recovery"), "{e}");
        g.clear();
        g.erased(&(vec![3], vec![]), &op).unwrap();
    }

    /// What a commit names: the pages its L2P maps that the last commit's
    /// did not (a sector trimmed names nothing, one left alone neither).
    #[test]
    fn a_commit_names_the_pages_it_placed() {
        let mut s = steps::new_p();
        s.smap = [(0, 10), (1, 11), (2, 12)].into_iter().collect();
        s.l2p = [(0, 10), (1, 21), (3, 23)].into_iter().collect();
        assert_eq!(
            named_by_commit(&s),
            [21, 23].into_iter().collect::<BTreeSet<Page>>()
        );
    }
}
