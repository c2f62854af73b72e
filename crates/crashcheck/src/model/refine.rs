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
//! every mapped page durable, empty queues).
//!
//! **What it does not follow** (refused by the command line): static
//! wear-leveling moves and media failures (they relocate after a commit
//! and retire superblocks, which the view cannot order), and exhaustive
//! mode. It compares no data: which version a sector holds is the
//! contract's and the model oracle's job; P's cells here carry the written
//! versions where known and zeros after a recovery. The merge buffer, the
//! delta buffer and the delta region's pages are not compared (one view
//! does not show them; see proofs/README.md "Refinement oracle").

use std::collections::BTreeSet;

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
    /// Operations and recoveries compared.
    pub steps_checked: u64,
    pub recoveries_checked: u64,
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
            steps_checked: 0,
            recoveries_checked: 0,
        }
    }

    /// A completed format: P's `NewP` (no page mapped).
    pub fn formatted(&mut self, v: RefineView) -> Result<(), String> {
        let mut s = steps::new_p();
        s.gen = v.generation;
        self.s = Some(s);
        self.commits = vec![Map::new()];
        self.pending = None;
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
                let la = (0..=self.amax)
                    .find(|a| newest.get(a) != got.get(a))
                    .unwrap_or(0);
                return Err(format!(
                    "refinement: recovery rebuilt an L2P that no commit left: logical sector {la} maps to {}, but the last commit mapped it to {} ({} commits since the last durable flush{})",
                    show(got.get(&la)),
                    show(newest.get(&la)),
                    self.commits.len(),
                    if self.pending.is_some() { ", and the cut flush's L2P differs in its mapped sectors or places" } else { "" }
                ));
            }
        }
        // rec0: the recovered L2P, every mapped page durable, empty queues.
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
        self.compare(&v)?;
        self.prev = Some(v);
        Ok(())
    }

    /// The flush cut by the power may have relocated sectors before its
    /// commit: `got` maps the same sectors as `p`, and every place that
    /// differs is one where P held no page.
    fn same_sectors_fresh_places(&self, p: &Map, got: &Map) -> bool {
        let s = self.s.as_ref().expect("up");
        p.len() == got.len()
            && p.iter().all(|(a, &q)| match got.get(a) {
                Some(&g) if g == q => true,
                Some(&g) => !matches!(s.cur_cell(g), Cell::D { .. }),
                None => false,
            })
    }

    /// An operation completed; the device's view after it is `v`.
    pub fn step(&mut self, op: Done<'_>, v: RefineView) -> Result<(), String> {
        let (Some(s), Some(p)) = (self.s.as_mut(), self.prev.take()) else {
            return Ok(());
        };
        self.steps_checked += 1;
        if v.read_only {
            return Err("refinement: the device turned read-only, which runs with --oracle refine do not provoke".into());
        }
        let commits = v.commits.saturating_sub(p.commits);
        if commits > 1 {
            return Err(format!(
                "refinement: one operation ({op:?}) committed {commits} epochs"
            ));
        }
        if commits == 1 && !matches!(op, Done::Flush | Done::Barrier) {
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
        let spb = u64::from(v.sectors_per_sb);
        let pages_in = |s: &St, sb: usize| -> Vec<Page> {
            let lo = sb as u64 * spb;
            s.dat
                .range(lo..lo + spb)
                .filter(|(_, m)| matches!(m.cur(), Cell::D { .. }))
                .map(|(&q, _)| q)
                .chain(s.mb.range(lo..lo + spb).map(|(&q, _)| q))
                .collect()
        };
        let why_not_erasable = |s: &St, q: Page| -> String {
            let a = s.p2l(q);
            if s.l2p.get(&a) == Some(&q) {
                format!("the volatile L2P maps logical sector {a} there")
            } else if s.smap.get(&a) == Some(&q) {
                format!("the stable L2P maps logical sector {a} there")
            } else if s.inv.contains(&q) {
                "it is invalid: its victim's epoch has not committed (two-phase GC)".into()
            } else {
                "GC never took it (it is neither invalid nor erasable)".into()
            }
        };
        // 1. Erases by allocation (before any commit of this operation):
        //    esF of every page of P there, each of which must be erasable.
        for sb in 0..v.states.len() {
            if v.erases[sb] > p.erases[sb] && v.states[sb] != SbKind::Meta {
                for q in pages_in(s, sb) {
                    if !s.ers.contains(&q) {
                        return Err(format!(
                            "refinement: {op:?} erased superblock {sb}, but P's page at physical sector {q} is not erasable: {} (P's esF erases only pages of the erasable queue)",
                            why_not_erasable(s, q)
                        ));
                    }
                    steps::es_f(s, q);
                }
            }
        }
        // 2. Places: writes and trims in the request's range, relocations
        //    elsewhere.
        let range = match op {
            Done::Write { lba, versions } => Some((lba, versions.len() as u64, false)),
            Done::Trim { lba, count } => Some((lba, count, true)),
            _ => None,
        };
        let in_range = |a: u64| range.is_some_and(|(lba, n, _)| a >= lba && a < lba + n);
        let mut relocated = 0u64;
        for (a, &np) in v.l2p.iter().enumerate() {
            let a = a as Addr;
            let new = (np != UNMAPPED).then_some(Page::from(np));
            let old = s.l2p.get(&a).copied();
            if new == old {
                if let Some((_, _, false)) = range {
                    if in_range(a) {
                        return Err(format!(
                            "refinement: the write of logical sector {a} left it at {} (P's wr0 places every written sector on a new page)",
                            show(old.as_ref())
                        ));
                    }
                }
                continue;
            }
            if let Some(q) = new {
                if matches!(s.cur_cell(q), Cell::D { .. }) || s.mb.contains_key(&q) {
                    return Err(format!(
                        "refinement: logical sector {a} was placed at physical sector {q}, where P still holds a page of logical sector {} (P programs a page once between erases)",
                        s.p2l(q)
                    ));
                }
            }
            match (range, new) {
                (Some((_, _, false)), Some(q)) if in_range(a) => {
                    if !steps::in_bounds(s, a, self.amax, self.wmax) {
                        return Err(format!(
                            "refinement: the FTL placed a write of logical sector {a}, but P's guard InB refuses it (wcnt {} > wmax {})",
                            s.wcnt, self.wmax
                        ));
                    }
                    let Done::Write { lba, versions } = op else {
                        unreachable!("a write range comes from a write")
                    };
                    s.nxt = q;
                    steps::wr0(s, a, versions[(a - lba) as usize], ModelMutant::None);
                }
                (Some((_, _, true)), None) if in_range(a) => {
                    s.l2p.remove(&a);
                }
                (_, Some(q)) => {
                    // A relocation: rl0 of the page that held the sector.
                    let Some(from) = old else {
                        return Err(format!(
                            "refinement: logical sector {a}, unmapped, was mapped to physical sector {q} by {op:?}, which does not write it"
                        ));
                    };
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
                    relocated += 1;
                }
                (_, None) => {
                    return Err(format!(
                        "refinement: {op:?} unmapped logical sector {a} (was at {}), which it does not trim",
                        show(old.as_ref())
                    ));
                }
            }
        }
        if let Some((lba, n, true)) = range {
            // Trims count against W like writes (ST: trim is a write of
            // zeros), mapped or not.
            for a in lba..lba + n {
                if !steps::in_bounds(s, a, self.amax, self.wmax) {
                    return Err(format!(
                        "refinement: the FTL accepted a trim of logical sector {a}, but P's guard InB refuses it (wcnt {} > wmax {})",
                        s.wcnt, self.wmax
                    ));
                }
                s.wcnt += 1;
            }
        }
        if relocated > 0
            && !matches!(
                op,
                Done::Write { .. } | Done::Trim { .. } | Done::Flush | Done::Barrier
            )
        {
            return Err(format!("refinement: {op:?} relocated {relocated} sectors"));
        }
        // 3. Victims marked in this operation: the rest of their pages
        //    become invalid (rlX); none may still be mapped.
        for sb in 0..v.states.len() {
            let now = v.states[sb];
            if matches!(p.states[sb], SbKind::Used | SbKind::Active)
                && matches!(now, SbKind::Invalid | SbKind::Erasable)
            {
                for q in pages_in(s, sb) {
                    let a = s.p2l(q);
                    if s.l2p.get(&a) == Some(&q) {
                        return Err(format!(
                            "refinement: superblock {sb} became {now:?} while the volatile L2P still maps logical sector {a} to its physical sector {q} (GC takes a victim only after relocating its valid sectors)"
                        ));
                    }
                    if !s.inv.contains(&q) {
                        steps::rl_x(s, q);
                    }
                }
            }
        }
        // 4. The commit (fl3: smap := l2p, invalid → erasable, counters
        //    reset), and a full checkpoint's new generation (ck3).
        if commits == 1 {
            steps::fl3(s, ModelMutant::None);
            if v.generation != p.generation {
                steps::ck3(s);
                s.gen = v.generation;
            }
            if matches!(op, Done::Flush) {
                self.commits.clear();
            }
            self.commits.push(s.smap.clone());
            if self.commits.len() > MAX_CANDIDATES {
                self.commits.remove(0);
            }
        } else if matches!(op, Done::Flush | Done::Barrier)
            && (s.l2p != s.smap || !s.inv.is_empty())
        {
            return Err(format!(
                "refinement: {op:?} returned without committing, but the epoch has changes (P's fl3 would commit them)"
            ));
        } else if v.generation != p.generation {
            return Err(format!(
                "refinement: the generation changed from {} to {} without a commit",
                p.generation, v.generation
            ));
        }
        // 5. Erases after the commit: superblocks a full checkpoint took
        //    for the metadata.
        for sb in 0..v.states.len() {
            if v.states[sb] == SbKind::Meta && p.states[sb] != SbKind::Meta {
                for q in pages_in(s, sb) {
                    if !s.ers.contains(&q) {
                        return Err(format!(
                            "refinement: {op:?} took superblock {sb} for the metadata, but P's page at physical sector {q} is not erasable: {}",
                            why_not_erasable(s, q)
                        ));
                    }
                    steps::es_f(s, q);
                }
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
        for (a, &np) in v.l2p.iter().enumerate() {
            let new = (np != UNMAPPED).then_some(Page::from(np));
            let a = a as Addr;
            if s.l2p.get(&a).copied() != new {
                return Err(format!(
                    "refinement: the FTL's L2P maps logical sector {a} to {}, P's l2p to {}",
                    show(new.as_ref()),
                    show(s.l2p.get(&a))
                ));
            }
        }
        if let Some(stable) = &v.stable {
            for (a, &np) in stable.iter().enumerate() {
                let st = (np != UNMAPPED).then_some(Page::from(np));
                let a = a as Addr;
                if s.smap.get(&a).copied() != st {
                    return Err(format!(
                        "refinement: the FTL's stable L2P maps logical sector {a} to {}, P's smap (the L2P at its last fl3) to {}",
                        show(st.as_ref()),
                        show(s.smap.get(&a))
                    ));
                }
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
        // Counter.
        if s.wcnt != v.updates {
            return Err(format!(
                "refinement: the epoch has {} updates in the FTL but P's wcnt is {}",
                v.updates, s.wcnt
            ));
        }
        // Block states against P's queues, page by page.
        let mapped: BTreeSet<Page> = s.l2p.values().copied().collect();
        let stable: BTreeSet<Page> = s.smap.values().copied().collect();
        let pages = s
            .dat
            .iter()
            .filter(|(_, m)| matches!(m.cur(), Cell::D { .. }))
            .map(|(&q, _)| q)
            .chain(s.mb.keys().copied());
        for q in pages {
            let sb = v.sb_of(q as u32);
            let st = v.states[sb];
            let (inv, ers) = (s.inv.contains(&q), s.ers.contains(&q));
            let bad = match st {
                SbKind::Erasable if !ers => Some(if inv {
                    "invalid, not yet erasable (its victim's epoch has not committed)"
                } else {
                    "neither invalid nor erasable"
                }),
                SbKind::Invalid if !inv && !ers => Some("neither invalid nor erasable"),
                SbKind::Used | SbKind::Active if inv || ers => {
                    Some("invalid or erasable, in a superblock holding data")
                }
                SbKind::Free | SbKind::Meta | SbKind::Bad => Some("a page P still holds"),
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
            if ers && (mapped.contains(&q) || stable.contains(&q)) {
                return Err(format!(
                    "refinement: P's erasable page at physical sector {q} is still mapped (RI: erasable pages are mapped by neither L2P)"
                ));
            }
            if inv && mapped.contains(&q) {
                return Err(format!(
                    "refinement: P's invalid page at physical sector {q} is mapped by the volatile L2P (RI)"
                ));
            }
        }
        // RI: every mapped page holds its sector; every stable one durably.
        for (&a, &q) in &s.l2p {
            if s.p2l(q) != a || !matches!(s.pv(q), Cell::D { .. }) {
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
