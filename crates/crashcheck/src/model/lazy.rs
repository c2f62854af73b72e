//! PL (`SCFTL.Impl.LazyChainModel`): P with the lazy chain the code runs
//! for in-page and OOB commits — the lazy commit `fiL` (the record in its
//! slot, one SYNC, the link continuing the chain, no consolidation page)
//! while the chain holds fewer than `kc` records (`MAX_CHAIN`); the
//! chain's consolidation page SYNCed before the next region page (a
//! tentative page, a region commit or a checkpoint); recovery walking the
//! chain (`walkG`, at most `kc` records) and always writing a full
//! checkpoint (`rec0L`); GC's erase guarded by the chain (`EraseGuard`).
//! Theorem 1 and snapshot consistency hold for PL
//! (`SCFTL.Impl.LazyChainTheorem`: `theorem1-PL`).
//!
//! P's RI does not hold of a PL state with a chain (the records are not on
//! the region); it holds of the state with the chain virtually
//! consolidated, `virt (chainOf s) s` (`SCFTL.Impl.LazyChainVirtual`:
//! `fiL-virt`, `virt (rec s ∷ vs) (fiL M s) ≡ fi4 M (virt vs s)`), which
//! is what the model oracle checks ([`virt_chain`]).
//!
//! Lists are oldest first here (Agda's are newest first), as in the rest
//! of the transcription.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::state::{Addr, Cell, Dg, Map, Mc, Page, St};
use super::steps::{self, Picked};
use super::ModelMutant;

/// `follow k g R D lk` (`SCFTL.Impl.LazyChain`): the records recovery's
/// walk applies from the link `lk` — each the next epoch's commit of
/// generation `g` that `seek` finds from the link before it and whose
/// digest verifies (`extM`) — at most `k` of them, oldest first. With
/// `k = 1` it is P's walk ([`steps::ext_m`]).
pub fn follow<'a>(
    k: u64,
    g: u64,
    rcd: impl Fn(Page) -> &'a Cell + Copy,
    dat: impl Fn(Page) -> &'a Cell + Copy,
    mut lk: Option<(u64, Page)>,
) -> Vec<&'a Cell> {
    let mut v = Vec::new();
    for _ in 0..k {
        let Some(r) = steps::ext_m(g, rcd, dat, lk) else {
            break;
        };
        v.push(r);
        lk = steps::lk_of(r);
    }
    v
}

/// `walkG g s` (`SCFTL.Impl.LazyChainModel`): the records recovery's walk
/// applies on the flash of `s` in generation `g`, from the link of the
/// region's newest commit `acc` accepts, at most `kc`.
pub fn walk_g(kc: u64, g: u64, s: &St) -> Vec<&Cell> {
    let lk = steps::accepted_link(g, s);
    follow(kc, g, |p| s.rcd_cur(p), |p| s.cur_cell(p), lk)
}

/// `chainOf s` (`SCFTL.Impl.LazyChainModel`): the chain now (the
/// backlog), `walkG (gen s) s`.
pub fn chain_of(kc: u64, s: &St) -> Vec<&Cell> {
    walk_g(kc, s.gen, s)
}

/// `recMapL k g C s` (`SCFTL.Impl.LazyChainP`, with `chnL`): the committed
/// map of the replay from `st0 C` of the accepted region and then the
/// chain from its newest commit's link, at most `k` records.
pub fn rec_map_l(k: u64, g: u64, c: &Map, s: &St) -> Map {
    let (cells, Some(top)) = steps::accepted(g, s) else {
        return c.clone();
    };
    let chain = follow(
        k,
        g,
        |p| s.rcd_cur(p),
        |p| s.cur_cell(p),
        steps::lk_of(cells[top]),
    );
    steps::rp(g, cells[..=top].iter().copied().chain(chain), steps::st0(c)).com
}

/// `virt vs s` (`SCFTL.Impl.LazyChainModel`): `s` with the records `vs`
/// (oldest first) on top of the delta region as synced pages — the chain
/// virtually consolidated, as if each lazy commit had been P's `fi4`.
pub fn virt(vs: &[Cell], s: &mut St) {
    s.dr.extend(vs.iter().map(|c| Mc::Syn(c.clone())));
}

/// `virt (chainOf s) s`: the state P's RI holds of.
pub fn virt_chain(kc: u64, s: &St) -> St {
    let chain: Vec<Cell> = chain_of(kc, s).into_iter().cloned().collect();
    let mut v = s.clone();
    virt(&chain, &mut v);
    v
}

/// `konsFor g cs` (`SCFTL.Impl.LazyChainModel`, with `kons`, `cpairs`):
/// the consolidation page of the chain `cs` (oldest first) — a committed
/// page of generation `g` with every record's pairs (oldest record first),
/// the newest record's epoch id and link, and no digest entries; `None`
/// for an empty chain.
pub fn kons_for(g: u64, cs: &[&Cell]) -> Option<Cell> {
    let (y, e) = steps::lk_of(cs.last()?)?;
    let pairs: Vec<(Addr, Page)> = cs
        .iter()
        .flat_map(|c| match c {
            Cell::Dlt { pairs, .. } => pairs.to_vec(),
            _ => Vec::new(),
        })
        .collect();
    Some(Cell::Dlt {
        gen: g,
        ep: y,
        pairs: pairs.into(),
        committed: true,
        dg: Rc::new(Dg {
            data: Vec::new(),
            tents: Vec::new(),
            link: e,
        }),
    })
}

/// `konsPg s` (`SCFTL.Impl.LazyChainModel`): the consolidation page of the
/// chain now.
pub fn kons_pg(kc: u64, s: &St) -> Option<Cell> {
    kons_for(s.gen, &chain_of(kc, s))
}

/// `konsI s` (`SCFTL.Impl.LazyChainModel`, with `konsP`): the
/// consolidation page appended to the region, not yet synced (the crash
/// point before its SYNC); nothing for an empty chain.
pub fn kons_i(kc: u64, s: &mut St) {
    if let Some(c) = kons_pg(kc, s) {
        s.dr.push(Mc::Uns(Cell::Erased, c));
    }
}

/// `konsS s` (`SCFTL.Impl.LazyChainModel`, with `konsX`): the
/// consolidation page appended and synced (`syncAll`); nothing for an
/// empty chain.
pub fn kons_s(kc: u64, s: &mut St) {
    if let Some(c) = kons_pg(kc, s) {
        s.dr.push(Mc::Uns(Cell::Erased, c));
        s.sync_all();
    }
}

/// A barrier from the chain phase of the one model PX
/// (`SCFTL.Impl.OneModel`, `Pre true barrier`: `S0 ≡ konsU S`): the
/// chain's consolidation page first ([`kons_s`]), then PU's barrier
/// without SYNC on the consolidated state ([`super::unsynced::fl_b`]),
/// as flush.rs `epoch_barrier` consolidates before any region page.
/// Mutant 42 of the proofs (`SCFTL.Mutants.BarrierSkipsConsolidation`)
/// is this without `kons_s`.
pub fn barrier_from_chain(kc: u64, s: &mut St, amax: Addr, mutant: ModelMutant) {
    kons_s(kc, s);
    super::unsynced::fl_b(s, amax, mutant);
}

/// `optL f1 f2` (`SCFTL.Impl.LazyChainModel`): a write's or relocation's
/// optional pages — the merge buffer (`f1`), then, for a tentative page
/// (`f2`), the chain's consolidation page first (`konsS`).
pub fn opt_l(kc: u64, s: &mut St, f1: bool, f2: bool) {
    if f1 {
        steps::prog_mb(s);
    }
    if f2 {
        kons_s(kc, s);
        steps::emit_t(s);
    }
}

/// `fiL M s` (`SCFTL.Impl.LazyChainP`): the lazy commit — P's `fi3 M s`
/// (the merge buffer and the record in the slot of page `m`, one SYNC,
/// the epoch ended) whose link continues the chain to the next page.
pub fn fi_l(s: &mut St, m: Page, amax: Addr) {
    let next = s.nxt;
    steps::fi2(s, m, amax);
    steps::fi3_from_fi2(s);
    s.lnk = Some(next);
}

/// `Lazy s M` (`SCFTL.Impl.LazyChainModel`) for the page `m` whose slot
/// the in-page or OOB commit of `s` would take (`crash::commit_page`):
/// the chain has room (fewer than `kc` records).
pub fn lazy(kc: u64, s: &St) -> bool {
    (chain_of(kc, s).len() as u64) < kc
}

/// The pages `EraseGuard` (`SCFTL.Impl.LazyChainModel`, with `ChainGuard`,
/// `AvoidAll`, `regTop`) holds back: those a record of the chain names in
/// its digest, and those the region's newest commit `acc` accepts names.
/// Erasing any other page changes neither the chain nor that commit, so
/// the set stays right across such erases.
pub fn held_back(kc: u64, s: &St) -> BTreeSet<Page> {
    let (cells, k) = steps::accepted(s.gen, s);
    let top = k.map(|k| cells[k]);
    chain_of(kc, s)
        .into_iter()
        .chain(top)
        .flat_map(|c| match c {
            Cell::Dlt { dg, .. } => dg.data.iter().map(|&(q, _, _)| q).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// `EraseGuard s p` (`SCFTL.Impl.LazyChainModel`): page `p` is not one
/// [`held_back`] names.
pub fn erase_guard(kc: u64, s: &St, p: Page) -> bool {
    !held_back(kc, s).contains(&p)
}

/// `rec0L b g C s` (`SCFTL.Impl.LazyChainModel`): P's `rec0` on the flash
/// with the records the walk applies put on the region (`virt (walkG g
/// s) s`: the L2P with the chain, the next page past every page they name,
/// the epoch id past theirs), the region itself left as it is on the
/// flash, synced.
pub fn rec0_l(s: &mut St, pk: &Picked, amax: Addr, kc: u64, mutant: ModelMutant) {
    let chain: Vec<Cell> = walk_g(kc, pk.gen, s).into_iter().cloned().collect();
    let dr: Vec<Mc> = s.dr.iter().map(Mc::sync).collect();
    virt(&chain, s);
    steps::rec0(s, pk, amax, mutant);
    s.dr = dr;
}

/// `okPL recover` (`SCFTL.Impl.LazyChainModel`): `ck3 (rec0L b g C s)` for
/// the checkpoint `pick` finds (PL always writes the full checkpoint).
/// `Err` if neither slot holds a checkpoint.
pub fn recover_l(s: &mut St, amax: Addr, kc: u64, mutant: ModelMutant) -> Result<(), String> {
    let pk = steps::pick(s.cp_l.cur(), s.cp_o.cur())
        .ok_or_else(|| "neither checkpoint slot holds a checkpoint".to_string())?;
    rec0_l(s, &pk, amax, kc, mutant);
    steps::ck3(s);
    Ok(())
}
