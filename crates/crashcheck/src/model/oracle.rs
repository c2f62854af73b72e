//! The differential oracle: the transcribed model P run next to the real
//! FTL on the same operations (`--oracle model`).
//!
//! The executor drives it exactly as it drives the contract's `Spec`:
//! completed writes and flushes, the operation a power cut interrupted,
//! recoveries, and every read. It checks:
//!
//! - **recovery** (issue 17 (a)): after a crash, the model computes every
//!   state its crash + recovery allows — the union over the interrupted
//!   operation's crash points of `Img` (all metadata choices, the unsynced
//!   data pages a digest check depends on pinned or junk, the others
//!   symbolic) of `rd (ck3 (rec0 …))` — as a list of candidate device
//!   images; the reads after the real FTL's recovery must all fit one
//!   candidate; the model then continues from that candidate's state,
//!   recovered as P's `okP recover` allows: with a full checkpoint
//!   (`ck3 (rec0 …)`) or, where the outcome is `clean`, without one
//!   (`rec0 …`, which reads the same). Both are candidates; the one
//!   without a checkpoint comes first, as the FTL takes it when it can.
//! - **AR against the device** (issue 17 (b)), where observable without
//!   changing the FTL: `AR.vol` — every read during normal operation equals
//!   the model's `rd`; `AR.cnt` — after every operation the FTL's
//!   `epoch_remaining()` equals `W - wcnt`; `AR.stb` — at `Check` steps, a
//!   copy of the flash, power-cut and recovered by the real FTL, reads the
//!   model's stable image `rdS (smap a)`.
//! - **RI** of the model's own state at `Check` steps and right after every
//!   recovery ([`check_ri`]; after recovery it is P's `B-rec` and PUSBic's
//!   `ch-done`, both kinds of recovery).
//!
//! The model's nondeterministic choices (merge buffer or delta buffer
//! full, full checkpoint at a flush, GC victims) are made by a fixed policy
//! ([`OracleConfig`]), not copied from the FTL: P allows them all, and the
//! crash outcomes of a write are taken over all four `opt` choices.
//!
//! P's flush is the one-sync digest commit, in the region (`fl3`) or in a
//! record slot (`fi4`, the in-page or OOB commit, which the policy takes
//! wherever `InP`/`OobP` allow, as SCFTL does; it commits the same epoch,
//! so only recovery's path differs). A crashed flush's candidates come
//! from both kinds of crash points, the record slot's first where the
//! policy commits there. By default the model is PL
//! (`OracleConfig::chain`, [`super::lazy`]): P with the lazy chain —
//! flushes commit lazily in record slots while the chain has room, the
//! consolidation page is SYNCed before the next region page, recovery
//! walks the chain and always checkpoints, GC's erases are guarded, and
//! RI is checked of the chain virtually consolidated.
//!
//! What it cannot check: the model is PL, not the Rust FTL — geometry,
//! superblocks, block reuse, digest chaining, the scan rule for a torn
//! consolidation page (PL SYNCs it first) and ordered flushes are not in it
//! (proofs/README.md, "What is abstracted"; the digest is abstracted to
//! exact contents), and P's choices are the policy's, not the FTL's, so it
//! compares *observable states* only: device images after recovery and
//! between operations, and the write counter. It models trim as a write of
//! zeros (S's definition), and resolves the model's nondeterminism after a
//! crash by keeping one candidate per distinct image (any one of them is a
//! state P may be in).
//!
//! **Epoch barriers** are PU's ([`super::unsynced`]): a barrier the device
//! completed is `flB` (no SYNC) while fewer than `umax` epochs are
//! unsynced and the device did not commit it durably, else P's flush, and
//! nothing where the device's barrier
//! programmed nothing; commits go to the region while an epoch is
//! unsynced; a crash's candidates are P's outcomes of the states
//! `crash_states_u` gives (one per number of epochs `accU` accepts); a
//! SYNC the FTL issued outside a commit (before an erase while epochs are
//! unsynced, a sync behind barriers) makes the barriers' epochs durable in
//! the model too ([`ModelOracle::synced`]), so the model never counts an
//! epoch unsynced that the code synced; and with an epoch unsynced, `Check`
//! steps check P's RI of the state with the barriers' epochs virtually
//! synced (P's RI takes every committed page as synced), PU's `GcI`,
//! `SmI` and `BI` of the state itself, and `AR.stb` at both ends of what a
//! crash may return to (the stable image is not one image then): a probe
//! with nothing in flight applied must read the stable L2P's image (the
//! last SYNC's), one with everything applied the last barrier's.

use std::collections::BTreeSet;
use std::rc::Rc;

use crate::data::Observed;
use crate::spec::Interrupted;

use super::crash::{self, Image};
use super::invariant::check_ri;
use super::lazy;
use super::state::{Addr, Cell, Data, Mc, Page, St, Val, D0, GARBAGE};
use super::steps;
use super::unsynced;
use super::ModelMutant;

/// The model's policy for P's nondeterministic choices, and its mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OracleConfig {
    /// Seeded bug in the transcription (self-test of the oracle).
    pub mutant: ModelMutant,
    /// `f1` of `opt`: program the merge buffer once it holds this many
    /// pages.
    pub mb_pages: usize,
    /// `f2` of `opt`: emit a tentative delta page once the delta buffer
    /// holds this many pairs.
    pub dbuf_pairs: usize,
    /// A flush ends with a full checkpoint (`ck3 (fl3 s)`) when the region
    /// holds at least this many pages (for an in-page or OOB commit, when
    /// its consolidation page would make it so: `ck3 (fi3 L s)`).
    pub region_pages: usize,
    /// A flush commits in the record slot of a page (`fi4 L s`, the
    /// in-page or OOB commit) wherever `InP` or `OobP` allows it, as SCFTL
    /// does; false: always in the region (`fl3 s`).
    pub records: bool,
    /// `Some(kc)`: the model is PL (`SCFTL.Impl.LazyChainModel`, the lazy
    /// chain the code runs: [`super::lazy`]) with chains of fewer than
    /// `kc` records (the code's `MAX_CHAIN`, 128) — a flush commits lazily
    /// in a record slot (`fiL`) while the chain has room, the
    /// consolidation page goes before the next region page, GC erases
    /// only pages the chain does not name, and recovery walks the chain
    /// and writes a full checkpoint, or, where it is `clean` and `Quiet`
    /// (the walk applies nothing), may go without one as P's does (PXq,
    /// proofs/SCFTL/Impl/OneModelCleanRec.agda). `None`: P.
    pub chain: Option<u64>,
    /// PU's `umax` (`SCFTL.Impl.UnsyncedBarrier`): an epoch barrier with
    /// fewer unsynced epochs than this is `flB` (no SYNC), with this many
    /// P's flush. SCFTL's barrier syncs when it would leave
    /// `MAX_UNSYNCED_EPOCHS` (4) unsynced, so 3; another value would let
    /// the model sync where the code does not, or the other way round.
    pub umax: usize,
    /// `kmax`, the bound K on relocations per epoch.
    pub kmax: u64,
    /// GC relocation steps tried after each sector write.
    pub gc_per_write: u32,
    /// `AR.cnt` as an equation (`wcnt = W - epoch_remaining()`). False
    /// when the FTL charges work of its own to the epoch budget (SCFTL's
    /// static wear-leveling moves, `--wear-leveling`): then only
    /// `wcnt ≤ W - epoch_remaining()` is observable.
    pub counter_exact: bool,
    /// P's RI of the model's state right after every recovery, not only at
    /// `Check` steps (P's `B-rec`; PUSBic's `ch-done`). Off only to show
    /// what the differential comparison after recovery catches alone.
    pub ri_after_recovery: bool,
}

impl Default for OracleConfig {
    fn default() -> OracleConfig {
        OracleConfig {
            mutant: ModelMutant::None,
            mb_pages: 4,
            dbuf_pairs: 6,
            region_pages: 8,
            records: true,
            chain: Some(128),
            umax: 3,
            kmax: 64,
            gc_per_write: 2,
            counter_exact: true,
            ri_after_recovery: true,
        }
    }
}

/// A state P may be in after a crash, and what recovering it reads.
#[derive(Clone, Debug)]
struct Cand {
    /// The flash after the crash (`s'` of `Img m s'`), memory of `m`
    /// (shared by the candidates of its two recoveries).
    crashed: Rc<St>,
    /// The recovery P takes from it: `ck3 (rec0 …)` (true) or, only for a
    /// `clean` outcome, `rec0 …` (false).
    full: bool,
    /// `rd` after recovery, zeros left out.
    image: Image,
    /// Reads that fixed an address whose value was [`Val::Any`].
    pins: Vec<(Addr, Data)>,
}

#[derive(Clone, Debug)]
enum Phase {
    /// No completed format yet (or a format was cut).
    Unformatted,
    Up(Box<St>),
    /// Power lost; the states the model may be in.
    Crashed(Vec<Cand>),
    /// The device recovered; its reads narrow the candidates.
    Verifying(Vec<Cand>),
}

/// The model P, in step with the device under test.
#[derive(Clone, Debug)]
pub struct ModelOracle {
    cfg: OracleConfig,
    amax: Addr,
    /// `wmax` of P's guard `InB` (W - 1; unbounded without a write bound).
    wmax: u64,
    /// The FTL's epoch bound W, if it has one.
    w_bound: Option<u64>,
    phase: Phase,
    /// Next GC victim candidate.
    cursor: Page,
    /// Where GC looks next among the pages the last recovery made
    /// erasable (`rec0`'s `reclaim`, `St::rcl`: every page below its next
    /// one the recovered L2P does not name). GC erases them only with the
    /// erases a write has left after the pages commits made erasable, so
    /// that a recovery's many reclaimed pages do not delay those (whose
    /// erase is where the erase guards are tested), and only those that
    /// hold something (erasing an erased page changes no outcome).
    rcl_cursor: Page,
    /// Erases of pages the last recovery reclaimed (`St::rcl`) since
    /// [`Self::take_reclaimed_erases`].
    reclaimed_erases: u64,
    /// Recoveries the model continued from without a full checkpoint
    /// since [`Self::take_clean_recoveries`].
    clean_recoveries: u64,
    /// `Check` steps so far (alternates the stable probe's crash policy).
    probes: u64,
    /// SB's pending snapshots while the model is up: the image at each
    /// barrier since the last SYNC, oldest first
    /// ([`unsynced::barrier_image`]), against which `Check` steps check
    /// PU's ghost invariant ([`unsynced::check_ghu`]).
    pend: Vec<Image>,
}

fn val_matches(v: Val, got: Observed) -> bool {
    match (v, got) {
        (Val::Any, _) => true,
        (Val::Known(GARBAGE), Observed::Garbage) => true,
        (Val::Known(d), Observed::Version(g)) => d == g && d != GARBAGE,
        _ => false,
    }
}

fn image_val(img: &Image, a: Addr) -> Val {
    img.get(&a).copied().unwrap_or(Val::Known(D0))
}

impl ModelOracle {
    /// An oracle for a device of `num_sectors` sectors with epoch bound
    /// `w_bound` (`epoch_remaining()` of a fresh device), not formatted yet.
    pub fn new(cfg: OracleConfig, num_sectors: u64, w_bound: Option<u64>) -> ModelOracle {
        ModelOracle {
            cfg,
            amax: num_sectors.saturating_sub(1),
            wmax: w_bound.map_or(u64::MAX, |w| w.saturating_sub(1)),
            w_bound,
            phase: Phase::Unformatted,
            cursor: 0,
            rcl_cursor: 0,
            reclaimed_erases: 0,
            clean_recoveries: 0,
            probes: 0,
            pend: Vec::new(),
        }
    }

    /// The next page the last recovery reclaimed (`St::rcl`) that holds
    /// something and PL's guard does not hold back, looking at most 64
    /// pages on from where the last look ended (GC's erases are a budget
    /// per write, the reclaimed pages tens of thousands).
    fn next_reclaimed(&mut self, s: &St, held: &BTreeSet<Page>) -> Option<Page> {
        let mut found = None;
        for (&p, m) in s.dat.range(self.rcl_cursor..s.rcl.below).take(64) {
            self.rcl_cursor = p + 1;
            if s.rcl.contains(p) && !held.contains(&p) && !matches!(m.cur(), Cell::Erased) {
                found = Some(p);
                break;
            }
        }
        self.reclaimed_erases += u64::from(found.is_some());
        found
    }

    /// The erases of pages a recovery reclaimed since the last call.
    pub fn take_reclaimed_erases(&mut self) -> u64 {
        std::mem::take(&mut self.reclaimed_erases)
    }

    /// Recoveries since the last call after which the model went on
    /// without a full checkpoint (P's `rec0` alone; with the lazy chain,
    /// PXq's clean recovery).
    pub fn take_clean_recoveries(&mut self) -> u64 {
        std::mem::take(&mut self.clean_recoveries)
    }

    /// A completed format: `NewP` ([`steps::new_p`]).
    pub fn formatted(&mut self) {
        self.phase = Phase::Up(Box::new(steps::new_p()));
        self.cursor = 0;
        self.rcl_cursor = 0;
        self.pend.clear();
    }

    /// A format was cut: nothing is known until the next format, or until
    /// a recovery finds the crashed format complete ([`Self::formatted`]).
    pub fn format_cut(&mut self) {
        self.phase = Phase::Unformatted;
    }

    /// True once the model has a state (a format completed).
    pub fn is_formatted(&self) -> bool {
        !matches!(self.phase, Phase::Unformatted)
    }

    fn up(&mut self, what: &str) -> Result<&mut St, String> {
        match &mut self.phase {
            Phase::Up(s) => Ok(s),
            _ => Err(format!("model oracle: {what} while the model is not up")),
        }
    }

    /// One sector write (trim: `d = 0`) under the oracle's policy: `wr0`
    /// with `opt f1 f2`, then erases of up to `gc_per_write + 1` erasable
    /// pages (`esF`; PL: those its guard allows) and up to `gc_per_write`
    /// relocations (`rl0`/`rlX`, guard `gcnt ≤ kmax`; PL: every second
    /// one on a page the lazy chain names, if any).
    /// With `crashed`, adds the candidates of every crash point on the way
    /// (see [`Self::add_candidates`]): all four `opt` outcomes of the
    /// write, and the state after each GC step.
    fn write_sector(
        &mut self,
        s: &mut St,
        a: Addr,
        d: Data,
        mut crashed: Option<&mut Vec<Cand>>,
    ) -> Result<(), String> {
        let m = self.cfg.mutant;
        if !steps::in_bounds(s, a, self.amax, self.wmax) {
            return Err(format!(
                "model oracle: the FTL accepted a write of address {a}, but P's guard InB refuses it (amax {}, wcnt {} > wmax {})",
                self.amax, s.wcnt, self.wmax
            ));
        }
        if let Some(out) = crashed.as_deref_mut() {
            // opt f1 f2 (wr0 a d s) for the four (f1, f2); PL's optL with
            // the point before the consolidation page's SYNC (`optLK`).
            let mut x = s.clone();
            steps::wr0(&mut x, a, d, m);
            for f1 in [false, true] {
                for f2 in [false, true] {
                    let mut y = x.clone();
                    self.opt_with(&mut y, f1, f2, Some(out));
                    self.add_candidates(out, &y);
                }
            }
        }
        steps::wr0(s, a, d, m);
        self.opt_policy(s, None);
        // PL's erase guard, once for the erases below (they keep it)
        let held = match self.cfg.chain {
            Some(kc) if m != ModelMutant::ChainEraseUnguarded => lazy::held_back(kc, s),
            _ => Default::default(),
        };
        for _ in 0..=self.cfg.gc_per_write {
            let gc = s.ers.iter().copied().find(|p| !held.contains(p));
            let Some(p) = gc.or_else(|| self.next_reclaimed(s, &held)) else {
                break;
            };
            steps::es_f(s, p);
            if let Some(out) = crashed.as_deref_mut() {
                self.add_candidates(out, s);
            }
        }
        for i in 0..self.cfg.gc_per_write {
            if s.gcnt > self.cfg.kmax {
                break; // okP rl, right disjunct: no change
            }
            // PL: every second step a page the lazy chain names, if any
            let v = if i % 2 == 1 {
                self.chain_victim(s).or_else(|| self.victim(s))
            } else {
                self.victim(s)
            };
            let Some(p) = v else { break };
            if steps::valid(s, p, self.amax) {
                if steps::rl0(s, p) {
                    self.opt_policy(s, crashed.as_deref_mut());
                }
            } else {
                steps::rl_x(s, p);
            }
            if let Some(out) = crashed.as_deref_mut() {
                self.add_candidates(out, s);
            }
        }
        Ok(())
    }

    fn opt_policy(&self, s: &mut St, crashed: Option<&mut Vec<Cand>>) {
        let f1 = s.mb.len() >= self.cfg.mb_pages;
        let f2 = s.dbuf.len() >= self.cfg.dbuf_pairs;
        self.opt_with(s, f1, f2, crashed);
    }

    /// `opt f1 f2` (P) or `optL f1 f2` (PL); with `crashed`, PL's crash
    /// point inside it (`optLK`: the consolidation page before its SYNC)
    /// is added to the candidates.
    fn opt_with(&self, s: &mut St, f1: bool, f2: bool, crashed: Option<&mut Vec<Cand>>) {
        let Some(kc) = self.cfg.chain else {
            steps::opt(s, f1, f2);
            return;
        };
        if let (true, Some(out)) = (f2, crashed) {
            let mut k = s.clone();
            if f1 {
                steps::prog_mb(&mut k);
            }
            lazy::kons_i(kc, &mut k);
            self.add_candidates(out, &k);
        }
        lazy::opt_l(kc, s, f1, f2);
    }

    /// PL: a GC victim among the pages the lazy chain's records name (the
    /// oldest record first) that hold something and are not queued — the
    /// pages whose erase PL's guard must hold back, which the cursor,
    /// walking up from the oldest pages, seldom reaches (P allows any page
    /// below `nxt`). `None` without a chain.
    fn chain_victim(&self, s: &St) -> Option<Page> {
        let kc = self.cfg.chain?;
        let ok = |p: &Page| {
            !s.inv.contains(p) && !s.erasable(*p) && (s.dat.contains_key(p) || s.mb.contains_key(p))
        };
        lazy::chain_of(kc, s)
            .into_iter()
            .filter_map(|c| match c {
                Cell::Dlt { dg, .. } => dg.data.iter().map(|&(p, _, _)| p).find(ok),
                _ => None,
            })
            .next()
    }

    /// The next GC victim: the first page at or after the cursor (wrapping
    /// at `nxt`) that holds something — on flash or in the merge buffer —
    /// and is not queued already.
    fn victim(&mut self, s: &St) -> Option<Page> {
        let ok = |p: &Page| !s.inv.contains(p) && !s.erasable(*p);
        let from = |c: Page| {
            let c = c.min(s.nxt);
            let d = s.dat.range(c..s.nxt).map(|(p, _)| *p).find(ok);
            let m = s.mb.range(c..s.nxt).map(|(p, _)| *p).find(ok);
            match (d, m) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        let p = from(self.cursor).or_else(|| from(0))?;
        self.cursor = p + 1;
        Some(p)
    }

    /// A write (trim: versions 0) of `versions.len()` sectors at `lba` that
    /// the device completed.
    pub fn write(&mut self, lba: u64, versions: &[u32]) -> Result<(), String> {
        let mut s = std::mem::replace(self.up("a write")?, steps::new_p());
        let mut r = Ok(());
        for (i, &v) in versions.iter().enumerate() {
            r = self.write_sector(&mut s, lba + i as u64, v, None);
            if r.is_err() {
                break;
            }
        }
        self.phase = Phase::Up(Box::new(s));
        r
    }

    /// The page whose record slot the policy commits the flush of `s` in
    /// (`records` and `InP`/`OobP`), if any.
    fn record_page(&self, s: &St) -> Option<Page> {
        // PU: while a barrier's epoch is unsynced, commits go to the region
        // (the code's in-page and OOB commits need every earlier epoch
        // durable: refine's guard "no unsynced epoch before it")
        if unsynced::unsynced_commits(s) > 0 {
            return None;
        }
        self.cfg.records.then(|| crash::commit_page(s)).flatten()
    }

    /// PU's barrier (`okU barrier`) for a power cut during one, or `None`
    /// where the model's epoch has nothing to commit: `Some(true)` for
    /// `flB` (fewer than `umax` unsynced epochs), `Some(false)` for P's
    /// flush.
    fn barrier_kind(&self, s: &St) -> Option<bool> {
        if s.mb.is_empty() && s.dbuf.is_empty() && s.ept.is_empty() {
            return None;
        }
        Some(self.barrier_unsynced(s))
    }

    /// Whether PU's barrier of `s` is `flB` (fewer than `umax` epochs
    /// unsynced) rather than P's flush (the forced SYNC).
    fn barrier_unsynced(&self, s: &St) -> bool {
        unsynced::unsynced_commits(s) < self.cfg.umax
    }

    /// `flB` as the policy takes it (PL: the chain's consolidation page
    /// first, as before any region page).
    fn fl_b(&self, s: &mut St) {
        match self.cfg.chain {
            Some(kc) => lazy::barrier_from_chain(kc, s, self.amax, self.cfg.mutant),
            None => unsynced::fl_b(s, self.amax, self.cfg.mutant),
        }
    }

    /// An epoch barrier the device completed (PU's `okU barrier`): `flB`
    /// below `umax` unsynced epochs, else P's flush ([`Self::flush`]), which
    /// it is also where the device committed it durably (`durable`: SCFTL's
    /// barrier whose commit would leave the delta region short syncs, then
    /// takes a full checkpoint — PU's barrier may be its flush at any
    /// count);
    /// nothing where the device's barrier programmed nothing (an epoch with
    /// nothing to commit: a trim of unmapped sectors, which the model takes
    /// as a write of zeros, leaves the code's epoch clean, and counting
    /// that barrier would make the model sync where the code does not).
    pub fn barrier(&mut self, programmed: bool, durable: bool) -> Result<(), String> {
        let kind = match &self.phase {
            Phase::Up(s) if programmed => Some(!durable && self.barrier_unsynced(s)),
            Phase::Up(_) => None,
            _ => return Err("model oracle: a barrier while the model is not up".into()),
        };
        match kind {
            None => Ok(()),
            Some(false) => self.flush().map(|_| ()),
            Some(true) => {
                let mut s = std::mem::replace(self.up("a barrier")?, steps::new_p());
                self.fl_b(&mut s);
                self.pend.push(unsynced::barrier_image(&s, self.amax));
                self.phase = Phase::Up(Box::new(s));
                Ok(())
            }
        }
    }

    /// The FTL issued a SYNC outside a commit the model takes (a sync
    /// behind barriers, `ftl::SharedDevice::sync_behind`; SCFTL's sync
    /// before an erase while epochs are unsynced, or before an in-page
    /// commit): the barriers' epochs are durable
    /// ([`unsynced::sync_barriers`]). Nothing while the model is not up.
    pub fn synced(&mut self) -> Result<(), String> {
        if let Phase::Up(s) = &mut self.phase {
            unsynced::sync_barriers(s, self.cfg.mutant);
            self.pend.clear();
        }
        Ok(())
    }

    /// The FTL's sync behind returned with its ticket proving only the
    /// oldest `k` unsynced epochs (the barriers since it was taken stay
    /// unsynced): PUSB's partial SYNC (`unsynced::sync_oldest`); SB's
    /// oldest k pending images leave `pend`. Nothing while the model is
    /// not up.
    pub fn synced_oldest(&mut self, k: usize) -> Result<(), String> {
        if let Phase::Up(s) = &mut self.phase {
            let n = unsynced::unsynced_commits(s);
            if k > n {
                return Err(format!(
                    "model oracle: a sync behind proved {k} epoch(s), the model has {n} unsynced"
                ));
            }
            unsynced::sync_oldest(s, k, self.cfg.mutant);
            let k = k.min(self.pend.len());
            self.pend.drain(..k);
        }
        Ok(())
    }

    /// PL: the page the lazy commit of `s` takes (`Lazy s M`), if the
    /// policy commits lazily.
    fn lazy_page(&self, s: &St) -> Option<Page> {
        let kc = self.cfg.chain?;
        self.record_page(s).filter(|_| lazy::lazy(kc, s))
    }

    /// A flush the device completed (`okP flush`): `fi4 L s` where the
    /// policy commits in a record slot, else `fl3 s`; `ck3` of the epoch's
    /// end instead (`ck3 (fi3 L s)`, `ck3 (fl3 s)`) when the region holds
    /// `region_pages` pages with the flush's page. PL (`okPL flush`): the
    /// lazy commit `fiL M s` where it may, else the same on `konsS s`.
    /// True if it committed in a record slot.
    pub fn flush(&mut self) -> Result<bool, String> {
        let m = self.cfg.mutant;
        let region = self.cfg.region_pages;
        let amax = self.amax;
        let (rp, lazy_page) = match &self.phase {
            Phase::Up(s) => (self.record_page(s), self.lazy_page(s)),
            _ => (None, None),
        };
        let chain = self.cfg.chain;
        // the flush's SYNC makes every barrier's epoch durable (and while
        // the model is not up nothing is pending)
        self.pend.clear();
        let s = self.up("a flush")?;
        if let Some(l) = lazy_page {
            lazy::fi_l(s, l, amax);
            return Ok(true);
        }
        // PL: the chain's consolidation page first, then P's flush (it
        // does not change the link, so `rp` stands)
        if let Some(kc) = chain {
            lazy::kons_s(kc, s);
        }
        match rp {
            Some(l) => {
                steps::fi2(s, l, amax);
                steps::fi3_from_fi2(s);
                if s.dr.len() + 1 >= region {
                    steps::ck3(s);
                } else {
                    steps::fik_from_fi3(s, l);
                    s.sync_all();
                }
            }
            None => {
                steps::fl3(s, amax, m);
                if s.dr.len() >= region {
                    steps::ck3(s);
                }
            }
        }
        Ok(rp.is_some())
    }

    /// Power was cut during `op`: the model's state becomes the set of
    /// candidates `crashP op` allows (for a recovery, from each candidate
    /// of the earlier crash).
    pub fn interrupted(&mut self, op: Interrupted<'_>) -> Result<(), String> {
        let phase = std::mem::replace(&mut self.phase, Phase::Unformatted);
        let m = self.cfg.mutant;
        // every arm leaves the model down (crashed), pending nothing
        self.pend.clear();
        self.phase = match (phase, op) {
            (Phase::Unformatted, _) => Phase::Unformatted,
            (Phase::Up(s), Interrupted::Nothing) => Phase::Crashed(self.candidates(&[*s])),
            (Phase::Up(s), Interrupted::Write { lba, versions }) => {
                let mut out = Vec::new();
                self.add_candidates(&mut out, &s);
                let mut x = *s;
                for (i, &v) in versions.iter().enumerate() {
                    // A sector P refuses ends the request (the FTL refuses
                    // whole requests); the points so far stand.
                    if self
                        .write_sector(&mut x, lba + i as u64, v, Some(&mut out))
                        .is_err()
                    {
                        break;
                    }
                }
                Phase::Crashed(out)
            }
            (Phase::Up(s), Interrupted::Flush) => {
                // FlPt s: the record slot's points first where the policy
                // commits there (the first candidate of each image is the
                // one the model continues from).
                let mut pts = Vec::new();
                // PL: the lazy commit's points (`fi2 M s`, `fiL M s`), the
                // consolidation page's (`konsI s`), then P's on `konsS s`
                let base = match self.cfg.chain {
                    Some(kc) => {
                        if let Some(l) = self.lazy_page(&s) {
                            let mut x = (*s).clone();
                            steps::fi2(&mut x, l, self.amax);
                            pts.push(x);
                            let mut x = (*s).clone();
                            lazy::fi_l(&mut x, l, self.amax);
                            pts.push(x);
                        }
                        let mut k = (*s).clone();
                        lazy::kons_i(kc, &mut k);
                        pts.push(k);
                        let mut k = (*s).clone();
                        lazy::kons_s(kc, &mut k);
                        k
                    }
                    None => (*s).clone(),
                };
                if let Some(l) = self.record_page(&base) {
                    pts.extend(crash::record_points(&base, l, self.amax));
                }
                pts.extend(crash::flush_points(&base, self.amax, m));
                pts.push(*s);
                Phase::Crashed(self.candidates(&pts))
            }
            (Phase::Up(s), Interrupted::Barrier) => match self.barrier_kind(&s) {
                None => Phase::Crashed(self.candidates(&[*s])),
                Some(false) => {
                    // the forced SYNC: P's flush points
                    self.phase = Phase::Up(s);
                    return self.interrupted(Interrupted::Flush);
                }
                Some(true) => {
                    // flB's programs, none synced: its end state's outcomes
                    // cover every point inside it (each of its pages may be
                    // left erased); PL: the consolidation page's points
                    let mut pts = Vec::new();
                    if let Some(kc) = self.cfg.chain {
                        let mut k = (*s).clone();
                        lazy::kons_i(kc, &mut k);
                        pts.push(k);
                    }
                    let mut x = (*s).clone();
                    self.fl_b(&mut x);
                    pts.push(x);
                    pts.push(*s);
                    Phase::Crashed(self.candidates(&pts))
                }
            },
            (Phase::Up(_), Interrupted::Recovery) => {
                return Err("model oracle: a recovery was cut while the model was up".into())
            }
            (Phase::Crashed(cands) | Phase::Verifying(cands), Interrupted::Recovery) => {
                // crashP recover: CkPt (rec0 b g C s) from each candidate.
                let mut pts = Vec::new();
                for c in cands {
                    let mut r = Rc::unwrap_or_clone(c.crashed);
                    if let Some(pk) = steps::pick(r.cp_l.cur(), r.cp_o.cur()) {
                        match self.cfg.chain {
                            Some(kc) => lazy::rec0_l(&mut r, &pk, self.amax, kc, m),
                            None => steps::rec0(&mut r, &pk, self.amax, m),
                        }
                        pts.extend(crash::ck_points(&r));
                    }
                }
                Phase::Crashed(self.candidates(&pts))
            }
            (p @ (Phase::Crashed(_) | Phase::Verifying(_)), _) => p,
        };
        Ok(())
    }

    /// The distinct post-recovery images of every crash outcome of every
    /// crash point, each with a witness state.
    fn candidates(&self, points: &[St]) -> Vec<Cand> {
        let mut out: Vec<Cand> = Vec::new();
        for m in points {
            self.add_candidates(&mut out, m);
        }
        out
    }

    /// Adds to `out` the post-recovery image of every crash outcome of the
    /// crash point `m`, with each recovery `okP recover` allows from it
    /// (without a full checkpoint if the outcome is `clean`, then with
    /// one), that `out` does not hold yet, with its witness state (`img m
    /// choice`; copied only for a new candidate).
    fn add_candidates(&self, out: &mut Vec<Cand>, m: &St) {
        // PU: one state per number of unsynced epochs recovery accepts
        for mk in unsynced::crash_states_u(m) {
            self.add_candidates_p(out, &mk);
        }
    }

    /// [`Self::add_candidates`] for a state with at most one unsynced
    /// commit (P's crash outcomes are exact there).
    fn add_candidates_p(&self, out: &mut Vec<Cand>, m: &St) {
        let outs = match self.cfg.chain {
            Some(kc) => crash::outcomes_walking(m, kc),
            None => crash::outcomes(m),
        };
        for o in outs {
            let image = crash::recovered_image(m, &o, self.cfg.mutant);
            // Without the full checkpoint where the outcome is clean (P's
            // `clean` and `Quiet`). PL writes it always; PXq (proofs/SCFTL/
            // Impl/OneModelCleanRec.agda, the code's `open` since 5cc0082)
            // may go without it as P does there: under `Quiet` no record
            // lies where the walk looks, so the walk applied nothing.
            let fulls: &[bool] = if o.clean { &[false, true] } else { &[true] };
            let mut crashed: Option<Rc<St>> = None;
            for &full in fulls {
                // A candidate with this image and the same recovery, or,
                // for the full checkpoint, without it (which reads the
                // same and, earlier in the list, is the one `end_verify`
                // would go on from), makes this one redundant.
                if out
                    .iter()
                    .any(|c| (c.full == full || !c.full) && c.image == image)
                {
                    continue;
                }
                let w = crashed.get_or_insert_with(|| Rc::new(crash::img(m, &o.choice)));
                out.push(Cand {
                    crashed: w.clone(),
                    full,
                    image: image.clone(),
                    pins: Vec::new(),
                });
            }
        }
    }

    /// The device recovered: the reads that follow must fit a candidate.
    /// `Err` if the model allows no recovery at all from this crash.
    pub fn recovered(&mut self) -> Result<(), String> {
        let phase = std::mem::replace(&mut self.phase, Phase::Unformatted);
        self.phase = match phase {
            Phase::Crashed(c) if c.is_empty() => {
                return Err("model oracle: the FTL recovered, but in no crash outcome does P's recovery find a checkpoint".into())
            }
            Phase::Crashed(c) => Phase::Verifying(c),
            p => p,
        };
        Ok(())
    }

    /// Sector `lba` read `got`. During normal operation: `AR.vol`, the read
    /// equals the model's `rd`. After a recovery: drops the candidates it
    /// rules out, and fails if none is left.
    pub fn check(&mut self, lba: u64, got: Observed) -> Result<(), String> {
        match &mut self.phase {
            Phase::Up(s) => {
                let v = s.rd(lba);
                if val_matches(v, got) {
                    Ok(())
                } else {
                    Err(format!(
                        "model oracle (AR.vol): sector {lba} read {got}, the model reads {v}"
                    ))
                }
            }
            Phase::Verifying(cands) => {
                let allowed: BTreeSet<String> = cands
                    .iter()
                    .map(|c| image_val(&c.image, lba).to_string())
                    .collect();
                cands.retain(|c| val_matches(image_val(&c.image, lba), got));
                if cands.is_empty() {
                    return Err(format!(
                        "model oracle: sector {lba} read {got}; the states P's crash + recovery allows (consistent with the reads before it) have {}",
                        allowed.into_iter().collect::<Vec<_>>().join(" or ")
                    ));
                }
                for c in cands.iter_mut() {
                    if image_val(&c.image, lba) == Val::Any {
                        let d = match got {
                            Observed::Version(v) => v,
                            Observed::Garbage => GARBAGE,
                        };
                        c.pins.push((lba, d));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Addresses the reads after a recovery must cover so that the
    /// candidates left all read the same: where they differ, or may read
    /// anything.
    pub fn must_check(&self, out: &mut Vec<u64>) {
        let (Phase::Crashed(c) | Phase::Verifying(c)) = &self.phase else {
            return;
        };
        let keys: BTreeSet<Addr> = c.iter().flat_map(|x| x.image.keys().copied()).collect();
        for a in keys {
            let v0 = image_val(&c[0].image, a);
            if v0 == Val::Any || c.iter().any(|x| image_val(&x.image, a) != v0) {
                out.push(a);
            }
        }
    }

    /// After the post-recovery reads: the model continues from the first
    /// candidate left, recovered as it says (`rec0 b g C s'`, or `ck3
    /// (rec0 b g C s')`), with the pages the reads pinned set to what was
    /// read.
    pub fn end_verify(&mut self) -> Result<(), String> {
        let phase = std::mem::replace(&mut self.phase, Phase::Unformatted);
        self.phase = match phase {
            Phase::Verifying(mut c) => {
                let Some(c) = c.drain(..).next() else {
                    return Err("model oracle: no candidate state left after recovery".into());
                };
                let mut s = Rc::unwrap_or_clone(c.crashed);
                // PL's recovery walks the chain and checkpoints; PXq's
                // clean one (`c.full` false) is P's `rec0` alone, which
                // checks `clean` and `Quiet` again
                match self.cfg.chain {
                    Some(kc) if c.full => lazy::recover_l(&mut s, self.amax, kc, self.cfg.mutant),
                    _ => steps::recover(&mut s, self.amax, self.cfg.mutant, c.full),
                }
                .map_err(|e| format!("model oracle: recovery of the chosen state: {e}"))?;
                self.clean_recoveries += u64::from(!c.full);
                self.rcl_cursor = 0;
                for (a, d) in c.pins {
                    if let Some(&p) = s.l2p.get(&a) {
                        if matches!(s.cur_cell(p), Cell::Unknown) {
                            s.set_page(p, Mc::Syn(Cell::D { d, a }));
                        }
                    }
                }
                // P's RI right after recovery, with or without the full
                // checkpoint: P's `B-rec`, and PUSBic's `ch-done`
                // (proofs/SCFTL/Impl/UnsyncedBridgeCmVAll.agda: every
                // crash, and every crash inside recovery, leaves the crash
                // invariant RoG × CvR, which recovery turns into RIy, P's
                // RI with no epoch unsynced, as recovery leaves it). PL:
                // of the state with the chain virtually consolidated, as
                // at `Check` steps.
                if self.cfg.ri_after_recovery {
                    let virt;
                    let ri_of = match self.cfg.chain {
                        Some(kc) => {
                            virt = lazy::virt_chain(kc, &s);
                            &virt
                        }
                        None => &s,
                    };
                    check_ri(ri_of, self.amax)
                        .map_err(|e| format!("model oracle, right after recovery: {e}"))?;
                }
                self.pend.clear();
                Phase::Up(Box::new(s))
            }
            p => p,
        };
        Ok(())
    }

    /// `AR.cnt` after an operation: the model's `wcnt` is the epoch's
    /// writes the FTL counts, `W - epoch_remaining()` (at most that, when
    /// `counter_exact` is off).
    pub fn check_counter(&self, remaining: Option<u64>) -> Result<(), String> {
        let (Phase::Up(s), Some(w), Some(r)) = (&self.phase, self.w_bound, remaining) else {
            return Ok(());
        };
        let theirs = w.saturating_sub(r);
        if s.wcnt > theirs || (self.cfg.counter_exact && s.wcnt != theirs) {
            return Err(format!(
                "model oracle (AR.cnt): the model counts {} writes in this epoch, the FTL {theirs} (W {w}, epoch_remaining {r})",
                s.wcnt
            ));
        }
        Ok(())
    }

    /// The addresses a `Check` step compares: every sector of a device of
    /// up to 4096 sectors; otherwise those the model maps (volatile or
    /// stable).
    pub fn check_addresses(&self) -> Vec<Addr> {
        let Phase::Up(s) = &self.phase else {
            return Vec::new();
        };
        if self.amax < 4096 {
            return (0..=self.amax).collect();
        }
        let set: BTreeSet<Addr> = s.l2p.keys().chain(s.smap.keys()).copied().collect();
        set.into_iter().collect()
    }

    /// The crash policy of the next stable probe (alternating: nothing in
    /// flight applied, everything applied).
    pub fn next_probe_policy(&mut self) -> flash::CrashPolicy {
        self.probes += 1;
        if self.probe_none_applied() {
            flash::CrashPolicy::NoneApplied
        } else {
            flash::CrashPolicy::AllApplied
        }
    }

    /// Whether a barrier's epoch is unsynced in the model (PU's `ues` not
    /// empty).
    pub fn epochs_unsynced(&self) -> bool {
        matches!(&self.phase, Phase::Up(s) if unsynced::unsynced_commits(s) > 0)
    }

    /// Whether the last stable probe's policy was "nothing in flight
    /// applied" (else "everything applied").
    fn probe_none_applied(&self) -> bool {
        self.probes.is_multiple_of(2)
    }

    /// A `Check` step: `RI` of the model's state; `AR.vol` against the
    /// device's reads `vol` of `addrs`; `AR.stb` against `stable`, the
    /// reads of the same addresses after the real FTL recovered a
    /// power-cut copy of the flash (None when the backend cannot be
    /// copied).
    pub fn check_state(
        &self,
        addrs: &[Addr],
        vol: &[Observed],
        stable: Option<&[Observed]>,
    ) -> Result<(), String> {
        let Phase::Up(s) = &self.phase else {
            return Ok(());
        };
        // PU: with a barrier's epoch unsynced, P's RI does not apply (it
        // takes every committed page as synced), and the stable image is
        // not one image: a crash may return to the last SYNC or to any
        // barrier since. The probe's two policies reach the two ends.
        let unsynced = unsynced::unsynced_commits(s) > 0;
        // PU: P's RI of the state with the barriers' epochs virtually synced
        // (as a SYNC now would leave it: `sync_barriers`)
        let synced;
        let s_ri = if unsynced {
            let mut v = (**s).clone();
            unsynced::sync_barriers(&mut v, ModelMutant::None);
            synced = v;
            &synced
        } else {
            &**s
        };
        // PL: P's RI of the state with the chain virtually consolidated
        let virt;
        let ri_of = match self.cfg.chain {
            Some(kc) => {
                virt = lazy::virt_chain(kc, s_ri);
                &virt
            }
            None => s_ri,
        };
        check_ri(ri_of, self.amax).map_err(|e| format!("model oracle: {e}"))?;
        // AR.stb with an epoch unsynced: nothing in flight applied loses
        // every barrier's epoch (the stable L2P, the last SYNC's image);
        // everything applied lands them all, and recovery's in-order check
        // accepts each (the last barrier's image: the state virtually
        // synced)
        let (stb, stb_what) = if unsynced && !self.probe_none_applied() {
            (
                s_ri,
                "the last barrier's L2P (everything in flight applied)",
            )
        } else if unsynced {
            (&**s, "the stable L2P (nothing in flight applied)")
        } else {
            (&**s, "the stable L2P")
        };
        // PU's own invariants, of the state itself (PL: with the chain
        // virtually consolidated; a chain and an unsynced epoch never meet)
        unsynced::check_gc_sm(s, self.amax).map_err(|e| format!("model oracle: {e}"))?;
        let virt_pu;
        let pu: &St = match self.cfg.chain {
            Some(kc) => {
                virt_pu = lazy::virt_chain(kc, s);
                &virt_pu
            }
            None => s,
        };
        unsynced::check_bi(pu).map_err(|e| format!("model oracle: {e}"))?;
        for (i, &a) in addrs.iter().enumerate() {
            let v = s.rd(a);
            if !val_matches(v, vol[i]) {
                return Err(format!(
                    "model oracle (AR.vol): sector {a} reads {}, the model reads {v}",
                    vol[i]
                ));
            }
            if let Some(st) = stable {
                let v = stb.rd_stable(a);
                if !val_matches(v, st[i]) {
                    return Err(format!(
                        "model oracle (AR.stb): a recovered copy of the flash reads {} at sector {a}, the model reads {v} through {stb_what}",
                        st[i]
                    ));
                }
            }
        }
        // PU's ghost invariant: SB's pending snapshots are what the
        // unsynced epochs' maps read (after the reads' checks, so that a
        // bug they see is named by them)
        unsynced::check_ghu(pu, &self.pend, self.amax).map_err(|e| format!("model oracle: {e}"))?;
        // the bridge to P's RI: each unsynced epoch's digest, link and the
        // record slots past it, as a SYNC proving it will need them
        unsynced::check_rie(pu, self.amax).map_err(|e| format!("model oracle: {e}"))
    }

    /// The model's state while it is up (tests and diagnostics).
    pub fn state(&self) -> Option<&St> {
        match &self.phase {
            Phase::Up(s) => Some(s),
            _ => None,
        }
    }

    /// Candidate states after a crash (0 while up).
    pub fn candidate_count(&self) -> usize {
        match &self.phase {
            Phase::Crashed(c) | Phase::Verifying(c) => c.len(),
            _ => 0,
        }
    }
}

/// The real FTL's stable state, observed: a copy of the flash (in-flight
/// set included) is power-cut with `policy` and recovered by the same FTL
/// (and mutant); the device it returns reads what a crash now would leave.
/// `Ok(None)` when the backend cannot be copied (the image backend).
/// The original device is not touched (its armed power cut, if any, stays
/// armed; the copy is disarmed).
pub fn probe_stable(
    flash: &crate::target::Dev,
    target: &crate::target::Target,
    mutant: ftl::Mutant,
    policy: flash::CrashPolicy,
) -> Result<Option<Box<dyn ftl::BlockDevice>>, String> {
    use rand::SeedableRng;
    let copy = flash.with(|c| c.fork_copy());
    let Some(mut copy) = copy else {
        return Ok(None);
    };
    copy.disarm();
    copy.cut_power();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5EED_0F57_AB1E);
    copy.crash(policy, &mut rng)
        .map_err(|e| format!("crash of the copy: {e}"))?;
    let dev = target
        .open_dev(flash::SharedFlash::new(copy), mutant)
        .map_err(|e| format!("the FTL did not recover a power-cut copy of its flash: {e}"))?;
    Ok(Some(dev))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model oracle with P (no lazy chain), formatted.
    fn up_oracle() -> ModelOracle {
        let cfg = OracleConfig {
            chain: None,
            ..OracleConfig::default()
        };
        let mut o = ModelOracle::new(cfg, 8, Some(4));
        o.formatted();
        o
    }

    #[test]
    fn reads_and_state_checks_compare_with_p() {
        let mut o = up_oracle();
        o.write(2, &[7]).unwrap();
        o.check(2, Observed::Version(7)).unwrap();
        o.check(3, Observed::Version(0)).unwrap();
        let e = o.check(2, Observed::Version(6)).unwrap_err();
        assert!(e.contains("AR.vol"), "{e}");
        // AR.cnt: W = 4, one write: epoch_remaining must be 3.
        o.check_counter(Some(3)).unwrap();
        assert!(o.check_counter(Some(4)).unwrap_err().contains("AR.cnt"));
        // A Check step: volatile reads 7 at 2; the stable image is still
        // all zeros (nothing flushed).
        let addrs: Vec<u64> = o.check_addresses();
        assert_eq!(addrs, (0..8).collect::<Vec<_>>());
        let mut vol = vec![Observed::Version(0); 8];
        vol[2] = Observed::Version(7);
        let zeros = vec![Observed::Version(0); 8];
        o.check_state(&addrs, &vol, Some(&zeros)).unwrap();
        let e = o.check_state(&addrs, &vol, Some(&vol)).unwrap_err();
        assert!(e.contains("AR.stb"), "{e}");
        let e = o.check_state(&addrs, &zeros, None).unwrap_err();
        assert!(e.contains("AR.vol"), "{e}");
        o.flush().unwrap();
        o.check_state(&addrs, &vol, Some(&vol)).unwrap();
        // A sector P's guard refuses (the fifth of an epoch of W = 4) is
        // reported as a violation.
        let e = o.write(0, &[1, 2, 3, 4, 5]).unwrap_err();
        assert!(e.contains("InB"), "{e}");
    }

    #[test]
    fn a_crashed_flush_allows_both_snapshots_and_no_mixture() {
        let mut o = up_oracle();
        o.write(0, &[1]).unwrap();
        o.write(1, &[2]).unwrap();
        o.flush().unwrap();
        o.write(0, &[3]).unwrap();
        o.write(1, &[4]).unwrap();
        o.interrupted(Interrupted::Flush).unwrap();
        assert!(o.candidate_count() >= 2);
        let mut must = Vec::new();
        o.must_check(&mut must);
        assert_eq!(must, vec![0, 1]);
        o.recovered().unwrap();
        // the new snapshot at 0, then the old one at 1: a mixture
        o.check(0, Observed::Version(3)).unwrap();
        let e = o.check(1, Observed::Version(2)).unwrap_err();
        assert!(e.contains("sector 1 read version 2"), "{e}");
    }

    #[test]
    fn flushes_commit_in_the_record_slot_where_p_allows() {
        let mut o = up_oracle();
        o.write(0, &[1]).unwrap();
        // the first flush has no link yet: in the region
        assert!(!o.flush().unwrap());
        o.write(0, &[2]).unwrap();
        // one page in the merge buffer at the link: in-page (fi4)
        assert!(o.flush().unwrap());
        let s = o.state().unwrap();
        assert_eq!(s.rcd.len(), 1);
        check_ri(s, 7).unwrap();
        // A crash inside the next in-page flush: the old snapshot or the
        // new, from the record's crash points (and the region's).
        o.write(0, &[3]).unwrap();
        o.write(1, &[4]).unwrap();
        o.interrupted(Interrupted::Flush).unwrap();
        o.recovered().unwrap();
        o.check(0, Observed::Version(3)).unwrap();
        o.check(1, Observed::Version(4)).unwrap();
        o.end_verify().unwrap();
        let s = o.state().unwrap();
        check_ri(s, 7).unwrap();
        assert_eq!(s.rd(0), Val::Known(3));
        // ...and never a mixture of the two (this flush commits in the
        // region: recovery leaves no link)
        o.write(0, &[5]).unwrap();
        o.write(1, &[6]).unwrap();
        assert_eq!(o.state().unwrap().lnk, None);
        o.interrupted(Interrupted::Flush).unwrap();
        o.recovered().unwrap();
        o.check(0, Observed::Version(5)).unwrap();
        let e = o.check(1, Observed::Version(4)).unwrap_err();
        assert!(e.contains("sector 1 read version 4"), "{e}");
        // with records off, every flush commits in the region
        let cfg = OracleConfig {
            records: false,
            chain: None,
            ..OracleConfig::default()
        };
        let mut o = ModelOracle::new(cfg, 8, Some(4));
        o.formatted();
        for v in 1..4 {
            o.write(0, &[v]).unwrap();
            assert!(!o.flush().unwrap());
        }
        assert!(o.state().unwrap().rcd.is_empty());
    }

    /// PL (the default): small flushes commit lazily and chain; a crash
    /// recovers the chain (every flushed value), never a mixture; the
    /// recovered state checkpoints and keeps RI; the next region page is
    /// preceded by the chain's consolidation page.
    #[test]
    fn pl_chains_lazy_commits_and_recovers_them() {
        let mut o = ModelOracle::new(OracleConfig::default(), 8, Some(4));
        o.formatted();
        o.write(0, &[1]).unwrap();
        assert!(!o.flush().unwrap()); // no link yet: the region
        for v in 2..5 {
            o.write(1, &[v]).unwrap();
            assert!(o.flush().unwrap(), "lazy commit {v}");
        }
        let s = o.state().unwrap();
        assert_eq!(lazy::chain_of(128, s).len(), 3);
        assert!(
            check_ri(s, 7).is_err(),
            "P's RI needs the chain on the region"
        );
        let addrs = o.check_addresses();
        let mut vol = vec![Observed::Version(0); 8];
        vol[0] = Observed::Version(1);
        vol[1] = Observed::Version(4);
        o.check_state(&addrs, &vol, Some(&vol)).unwrap();
        o.write(2, &[7]).unwrap();
        o.interrupted(Interrupted::Nothing).unwrap();
        o.recovered().unwrap();
        o.check(0, Observed::Version(1)).unwrap();
        let e = o.clone().check(1, Observed::Version(3)).unwrap_err();
        assert!(e.contains("sector 1 read version 3"), "{e}");
        o.check(1, Observed::Version(4)).unwrap();
        o.check(2, Observed::Version(0)).unwrap();
        o.end_verify().unwrap();
        let s = o.state().unwrap();
        assert!(lazy::chain_of(128, s).is_empty());
        check_ri(s, 7).unwrap();
        assert_eq!(s.rd_stable(1), Val::Known(4));
        // a chain, then a flush in the region: the consolidation page
        // goes first, and P's RI holds of the state as it is
        o.write(0, &[8]).unwrap();
        assert!(!o.flush().unwrap()); // recovery left no link
        o.write(0, &[9]).unwrap();
        assert!(o.flush().unwrap());
        let regions = o.state().unwrap().dr.len();
        for v in 0..4 {
            o.write(v, &[10 + v as u32]).unwrap();
        }
        assert!(!o.flush().unwrap()); // four pages: no in-page commit
        let s = o.state().unwrap();
        assert!(lazy::chain_of(128, s).is_empty());
        // the consolidation page (committed, no digest entries: the
        // records' pairs) among the new region pages, below the commit
        let new = &s.dr[regions..];
        let kons = new.iter().position(|m| {
            matches!(m.cur(), Cell::Dlt { committed: true, dg, .. }
                if dg.data.is_empty() && dg.tents.is_empty())
        });
        assert!(kons.is_some_and(|k| k + 1 < new.len()), "{new:?}");
        check_ri(s, 7).unwrap();
    }

    #[test]
    fn a_clean_recovery_goes_on_without_a_checkpoint() {
        // Every write emits a tentative page and programs its sector.
        let cfg = OracleConfig {
            mb_pages: 1,
            dbuf_pairs: 1,
            chain: None,
            ..OracleConfig::default()
        };
        let mut o = ModelOracle::new(cfg, 8, Some(4));
        o.formatted();
        o.write(0, &[1]).unwrap();
        o.flush().unwrap();
        let (gen, ep) = {
            let s = o.state().unwrap();
            (s.gen, s.ep)
        };
        o.write(0, &[2]).unwrap();
        o.interrupted(Interrupted::Nothing).unwrap();
        o.recovered().unwrap();
        o.check(0, Observed::Version(1)).unwrap();
        o.end_verify().unwrap();
        // P's recovery without a full checkpoint (`clean`): same
        // generation, the region kept (the flush's committed page, of the
        // epoch before), an epoch id above every id on it.
        let s = o.state().unwrap();
        check_ri(s, 7).unwrap();
        assert_eq!(s.gen, gen);
        assert!(s.ep >= ep);
        assert!(s.dr.iter().any(|m| matches!(
            m.cur(),
            Cell::Dlt { ep: x, committed: true, .. } if *x + 1 == ep
        )));
        o.check(0, Observed::Version(1)).unwrap();
        o.write(1, &[3]).unwrap();
        o.flush().unwrap();
        o.check(0, Observed::Version(1)).unwrap();
        check_ri(o.state().unwrap(), 7).unwrap();
    }

    #[test]
    fn a_recovery_cut_and_redone_continues_from_the_old_snapshot() {
        let mut o = up_oracle();
        o.write(5, &[9]).unwrap();
        o.flush().unwrap();
        o.write(5, &[10]).unwrap();
        o.interrupted(Interrupted::Write {
            lba: 6,
            versions: &[11],
        })
        .unwrap();
        o.interrupted(Interrupted::Recovery).unwrap();
        o.recovered().unwrap();
        o.check(5, Observed::Version(9)).unwrap();
        o.check(6, Observed::Version(0)).unwrap();
        o.end_verify().unwrap();
        o.check(5, Observed::Version(9)).unwrap();
        o.check_counter(Some(4)).unwrap();
        let s = o.state().unwrap();
        check_ri(s, 7).unwrap();
    }
}
