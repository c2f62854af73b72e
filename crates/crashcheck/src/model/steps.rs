//! The step functions of `SCFTL.Impl.Model`, transcribed. Each function
//! mutates a state in place; where Agda defines a step as "the previous
//! step's state (SYNCed), then ..." (`fl2`, `fl3`, `ck2`, `ck3`), the Rust
//! function takes the previous step's result, so the crash points between
//! steps are the intermediate states of one run (see `crash`).
//!
//! The flush is the one-sync digest commit (issue 39): `fl2` programs the
//! merge buffer and the committed delta page carrying the epoch digest
//! (`dgOf`), with no SYNC before it; `fl3` is the one SYNC. Recovery
//! (`recMap`) replays from the newest committed page of the checkpoint's
//! generation whose digest verifies on the flash (`acc`, `okC`).
//!
//! Delta pages carry epoch ids (issue 39): `ep` grows at each commit; in
//! the replay a committed page of epoch x activates only the pending
//! tentative pages of epoch x (`rstep`, `rbase`), and a digest's tentative
//! pages must carry its epoch id (`isT`). Recovery (`rec0`) resumes above
//! every epoch id on the region (`topE`) and allocates past every page a
//! delta page names (`hiR`); it then either writes a full checkpoint
//! (`ck3`) or, if it dropped no committed page (`clean`), keeps the region
//! and the generation.
//!
//! In-page and OOB commits (docs/FORMAT.md §4.8–4.9): `fi2` programs the
//! merge buffer and the commit record `rec` into the record slot of the
//! link's page (`InP`; for an OOB commit, of the run's last page, `OobP`),
//! `fi3` is the one SYNC, `fiK`/`fi4` append and sync the consolidation
//! page; recovery follows the accepted page's link to the first record
//! slot of the generation (`seek`) and replays the record if it is the
//! next epoch's commit and its digest verifies (`rview`), and keeps the
//! generation only if `Quiet` holds as well as `clean`.
//!
//! The seeded mutants ([`ModelMutant`]) change exactly one step each; with
//! `ModelMutant::None` every function is the Agda definition it cites.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::state::{
    apply, cell_d, holds, Addr, Cell, Data, Dg, Map, Mc, Page, Reclaimed, St, Val, GARBAGE,
};
use super::ModelMutant;

/// `place` (`SCFTL.Impl.Model`): a sector placed at the active pointer —
/// into the merge buffer, L2P remapped, delta pair buffered.
pub fn place(s: &mut St, a: Addr, d: Data) {
    let p = s.nxt;
    s.mb.insert(p, (d, a));
    s.l2p.insert(a, p);
    s.dbuf.push((a, p));
    s.nxt += 1;
}

/// `InB` (`SCFTL.Impl.Model`): the guard of a write, `a ≤ amax` and
/// `wcnt ≤ wmax`.
pub fn in_bounds(s: &St, a: Addr, amax: Addr, wmax: u64) -> bool {
    a <= amax && s.wcnt <= wmax
}

/// `wr0` (`SCFTL.Impl.Model`): write(a, d) when `InB` holds. Mutant
/// `WriteSkipsCounter`: `wcnt` is not incremented.
pub fn wr0(s: &mut St, a: Addr, d: Data, mutant: ModelMutant) {
    place(s, a, d);
    if mutant != ModelMutant::WriteSkipsCounter {
        s.wcnt += 1;
    }
}

/// `progMB` (`SCFTL.Impl.Model`, with `progm`): program every page of the
/// merge buffer (asynchronously) and empty it.
pub fn prog_mb(s: &mut St) {
    for (p, (d, a)) in std::mem::take(&mut s.mb) {
        let m = s.page(p).put(Cell::D { d, a });
        s.set_page(p, m);
    }
}

/// `emitT` (`SCFTL.Impl.Model`): the delta buffer becomes a tentative
/// delta page of the current epoch, appended to the region (`uns erased
/// (dlt gen ep dbuf false ε)`), and its pairs are recorded in `ept`.
pub fn emit_t(s: &mut St) {
    let pairs: Rc<[(Addr, Page)]> = std::mem::take(&mut s.dbuf).into();
    s.ept.push(pairs.clone());
    s.dr.push(Mc::Uns(
        Cell::Erased,
        Cell::Dlt {
            gen: s.gen,
            ep: s.ep,
            pairs,
            committed: false,
            dg: Rc::new(Dg::default()),
        },
    ));
}

/// `opt f1 f2` (`SCFTL.Impl.Model`, with `optP`, `optT`): what a write or
/// relocation may do afterwards — program the merge buffer (`f1`), then
/// emit a tentative delta page (`f2`).
pub fn opt(s: &mut St, f1: bool, f2: bool) {
    if f1 {
        prog_mb(s);
    }
    if f2 {
        emit_t(s);
    }
}

/// `Valid` (`SCFTL.Impl.Model`): page `p` holds the sector its OOB address
/// maps to.
pub fn valid(s: &St, p: Page, amax: Addr) -> bool {
    let a = s.p2l(p);
    a <= amax && s.l2p.get(&a) == Some(&p)
}

/// `rl0` (`SCFTL.Impl.Model`): GC relocation of a valid victim `p` — its
/// sector placed again like a write, `p` invalid, `gcnt + 1`. Returns
/// false (and changes nothing) if the victim's content is a crash-chosen
/// `Unknown` page, which has no definite data to copy; the oracle's
/// victim policy never picks one (any victim is allowed by `okP`).
pub fn rl0(s: &mut St, p: Page) -> bool {
    let a = s.p2l(p);
    let d = match cell_d(&s.pv(p)) {
        Val::Known(d) => d,
        Val::Any => return false,
    };
    place(s, a, d);
    s.inv.insert(p);
    s.gcnt += 1;
    true
}

/// `rlX` (`SCFTL.Impl.Model`): GC "relocation" of a victim without a valid
/// sector: it only becomes invalid.
pub fn rl_x(s: &mut St, p: Page) {
    s.inv.insert(p);
    s.gcnt += 1;
}

/// `esF` (`SCFTL.Impl.Model`): erase an erasable page (asynchronously).
pub fn es_f(s: &mut St, p: Page) {
    let m = s.page(p).put(Cell::Erased);
    s.set_page(p, m);
    s.ers.remove(&p);
    if s.rcl.contains(p) {
        s.rcl.out.insert(p);
    }
}

/// `ck1` (`SCFTL.Impl.Model`): the new L2P into the shadow slot, with
/// generation `gen + 1`.
pub fn ck1(s: &mut St) {
    s.cp_o = s.cp_o.put(Cell::Cpt {
        gen: s.gen + 1,
        l2p: Rc::new(s.l2p.clone()),
    });
}

/// `ck2` (`SCFTL.Impl.Model`), applied to `ck1 s`: SYNC, then erase the
/// old slot and every delta page.
pub fn ck2_from_ck1(s: &mut St) {
    s.sync_all();
    s.cp_l = s.cp_l.put(Cell::Erased);
    for m in &mut s.dr {
        *m = m.put(Cell::Erased);
    }
}

/// `ck3` (`SCFTL.Impl.Model`), applied to `ck2 s`: SYNC; the slots swap
/// roles, the region is empty, generation + 1.
pub fn ck3_from_ck2(s: &mut St) {
    s.sync_all();
    std::mem::swap(&mut s.cp_l, &mut s.cp_o);
    s.dr.clear();
    s.gen += 1;
    s.lnk = None;
    s.drop_older_records();
}

/// `ck3 s` (`SCFTL.Impl.Model`): a whole full checkpoint.
pub fn ck3(s: &mut St) {
    ck1(s);
    ck2_from_ck1(s);
    ck3_from_ck2(s);
}

/// `isAt` (`SCFTL.Impl.Model`): the map entry is page `p`.
pub fn is_at(mp: Option<&Page>, p: Page) -> bool {
    mp == Some(&p)
}

/// `digD s ps` (`SCFTL.Impl.Model`): the pairs `(a, p)` of `ps` the epoch
/// leaves in place (`a ≤ amax` and the volatile L2P still maps `a` to
/// `p`), each with the sector page `p` holds in the merge buffer or on
/// flash (`cellD (pv s p)`).
pub fn dig_d<'a>(
    s: &St,
    amax: Addr,
    ps: impl Iterator<Item = &'a (Addr, Page)>,
) -> Vec<(Page, Data, Addr)> {
    ps.filter(|&&(a, p)| a <= amax && is_at(s.l2p.get(&a), p))
        .map(|&(a, p)| {
            // A placed page holds a definite sector (the merge buffer or
            // what progMB programmed); `Any` cannot occur here.
            let d = match cell_d(&s.pv(p)) {
                Val::Known(d) => d,
                Val::Any => GARBAGE,
            };
            (p, d, a)
        })
        .collect()
}

/// `dgOf` (`SCFTL.Impl.Model`): the digest of the epoch ending now —
/// `digD s (dbuf s ++ concat (ept s))` and the tentative pages' pairs
/// `ept s`. Computed before anything is programmed.
pub fn dg_of(s: &St, amax: Addr) -> Dg {
    Dg {
        data: dig_d(
            s,
            amax,
            s.ept.iter().flat_map(|ps| ps.iter()).chain(&s.dbuf),
        ),
        tents: s.ept.clone(),
        link: s.nxt,
    }
}

/// `fl1` (`SCFTL.Impl.Model`): program the merge buffer (no crash point
/// of its own: `fl2` covers it).
pub fn fl1(s: &mut St) {
    prog_mb(s);
}

/// `fl2 s` (`SCFTL.Impl.Model`): `fl1 s`, then the committed delta page
/// of the epoch `ep s` with the delta buffer and the digest `dgOf s` of the state before it —
/// no SYNC before it (the one-sync commit); the crash point right before
/// the SYNC. Mutant `FlushForgetsDeltas`: the committed page carries no
/// pairs (the delta buffer is not persisted; the digest is unchanged).
pub fn fl2(s: &mut St, amax: Addr, mutant: ModelMutant) {
    let dg = Rc::new(dg_of(s, amax));
    let pairs: Rc<[(Addr, Page)]> = if mutant == ModelMutant::FlushForgetsDeltas {
        Rc::from(Vec::new())
    } else {
        s.dbuf.clone().into()
    };
    fl1(s);
    s.dr.push(Mc::Uns(
        Cell::Erased,
        Cell::Dlt {
            gen: s.gen,
            ep: s.ep,
            pairs,
            committed: true,
            dg,
        },
    ));
}

/// `fl3` (`SCFTL.Impl.Model`), applied to `fl2 s`: the one SYNC (the
/// commit point); the ghost `smap := l2p`, the delta buffer and `ept`
/// emptied, invalid pages become erasable, the counters reset, the next
/// epoch id (`ep = suc (ep s)`), and the link to the next fresh page
/// (`lnk = just (nxt s)`).
pub fn fl3_from_fl2(s: &mut St) {
    s.sync_all();
    end_epoch(s);
    s.lnk = Some(s.nxt);
}

/// What `fl3` and `fi3` do to memory after their SYNC (the same record
/// update in Agda, but for `lnk`).
fn end_epoch(s: &mut St) {
    s.smap = s.l2p.clone();
    s.dbuf.clear();
    s.ept.clear();
    let inv = std::mem::take(&mut s.inv);
    s.ers.extend(inv);
    s.wcnt = 0;
    s.gcnt = 0;
    s.ep += 1;
}

/// `omax` (`SCFTL.Impl.Model`): the most pages an OOB commit's run spans,
/// and how far recovery's walk from a link looks (configuration version 9).
pub const OMAX: Page = 64;

/// `InP s L` (`SCFTL.Impl.Model`): the flush may commit in-page at the
/// last commit's link `L` — the epoch wrote no tentative page, `L` was
/// allocated, and every page from `L` up to `nxt` is still in the merge
/// buffer.
pub fn in_p(s: &St, l: Page) -> bool {
    s.lnk == Some(l) && s.ept.is_empty() && l < s.nxt && (l..s.nxt).all(|p| s.mb.contains_key(&p))
}

/// `runP L k ps` (`SCFTL.Impl.Model`), with `k` the number of pairs: the
/// pairs (oldest first here) name the pages `L, L + 1, …` in order.
pub fn run_p(l: Page, ps: &[(Addr, Page)]) -> bool {
    ps.iter().enumerate().all(|(k, &(_, p))| p == l + k as Page)
}

/// `OobP s L M` (`SCFTL.Impl.Model`): the flush may commit in the OOB of
/// page `M`, the last of the run from the link `L` — no tentative page,
/// at most `omax` pages from `L` to `nxt`, the pairs exactly those pages
/// in order (`runP L (nxt ∸ L)`), the pages before `M` programmed (no
/// longer in the merge buffer) and those from `M` on in it.
pub fn oob_p(s: &St, l: Page, m: Page) -> bool {
    s.lnk == Some(l)
        && s.ept.is_empty()
        && l < s.nxt
        && s.nxt <= l + OMAX
        && s.dbuf.len() as Page == s.nxt - l
        && run_p(l, &s.dbuf)
        && l < m
        && m < s.nxt
        && (l..m).all(|p| !s.mb.contains_key(&p))
        && (m..s.nxt).all(|p| s.mb.contains_key(&p))
}

/// `rec s` (`SCFTL.Impl.Model`): the commit record of the epoch ending
/// now — the committed delta page's content (generation, epoch id, the
/// delta buffer, the digest `dgOf s` with its link).
pub fn rec_cell(s: &St, amax: Addr) -> Cell {
    Cell::Dlt {
        gen: s.gen,
        ep: s.ep,
        pairs: s.dbuf.clone().into(),
        committed: true,
        dg: Rc::new(dg_of(s, amax)),
    }
}

/// `fi2 L s` (`SCFTL.Impl.Model`): the in-page (or, with the run's last
/// page `M` for `L`, the OOB) commit before its SYNC — the merge buffer
/// programmed (`fl1`) and the record `rec s` into the record slot of page
/// `l`; no page of the delta region.
pub fn fi2(s: &mut St, l: Page, amax: Addr) {
    let rec = rec_cell(s, amax);
    fl1(s);
    let m = s.rcd.get(&l).cloned().unwrap_or(Mc::Syn(Cell::Erased));
    s.rcd.insert(l, m.put(rec));
}

/// `fi3` (`SCFTL.Impl.Model`), applied to `fi2 L s`: the one SYNC (the
/// commit point) and the end of the epoch as in `fl3`, but no link (the
/// record's pairs are not yet where recovery reads them after another
/// commit: the consolidation page `fiK` or a full checkpoint follows).
pub fn fi3_from_fi2(s: &mut St) {
    s.sync_all();
    end_epoch(s);
    s.lnk = None;
}

/// `fiK L s` (`SCFTL.Impl.Model`), applied to `fi3 L s`: the
/// consolidation page — the record `rec s` (the content of the slot `l`
/// `fi2` programmed) appended to the region, not yet synced — and the
/// link to the next fresh page.
pub fn fik_from_fi3(s: &mut St, l: Page) {
    let rec = s.rcd_cur(l).clone();
    s.dr.push(Mc::Uns(Cell::Erased, rec));
    s.lnk = Some(s.nxt);
}

/// `fi4 L s` (`SCFTL.Impl.Model`): a whole in-page (or OOB) commit with
/// its consolidation page synced.
pub fn fi4(s: &mut St, l: Page, amax: Addr) {
    fi2(s, l, amax);
    fi3_from_fi2(s);
    fik_from_fi3(s, l);
    s.sync_all();
}

/// `fl3 s` (`SCFTL.Impl.Model`): a whole flush without the full checkpoint.
pub fn fl3(s: &mut St, amax: Addr, mutant: ModelMutant) {
    fl2(s, amax, mutant);
    fl3_from_fl2(s);
}

/// The checkpoint recovery starts from: `(b, g, C)` of `pick`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picked {
    /// True: the slot `cpL` was picked; false: `cpO`.
    pub live: bool,
    pub gen: u64,
    pub l2p: Rc<Map>,
}

/// `pick` (`SCFTL.Impl.Model`): the committed checkpoint of the highest
/// generation (ties go to `cpL`); `None` if neither slot holds one.
pub fn pick(l: &Cell, o: &Cell) -> Option<Picked> {
    match (l, o) {
        (Cell::Cpt { gen: g, l2p: c }, Cell::Cpt { gen: h, l2p: d }) => Some(if h <= g {
            Picked {
                live: true,
                gen: *g,
                l2p: c.clone(),
            }
        } else {
            Picked {
                live: false,
                gen: *h,
                l2p: d.clone(),
            }
        }),
        (Cell::Cpt { gen, l2p }, _) => Some(Picked {
            live: true,
            gen: *gen,
            l2p: l2p.clone(),
        }),
        (_, Cell::Cpt { gen, l2p }) => Some(Picked {
            live: false,
            gen: *gen,
            l2p: l2p.clone(),
        }),
        _ => None,
    }
}

/// `RS` (`SCFTL.Impl.Model`): the replay's state — the committed L2P,
/// the epoch id of the pending tentative pages, and the committed L2P with
/// those pending pages applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rs {
    pub com: Map,
    pub pend: u64,
    pub ten: Map,
}

/// `st0 C` (`SCFTL.Impl.Model`): the replay's start, the checkpoint's L2P
/// with nothing pending (epoch 0).
pub fn st0(c: &Map) -> Rs {
    Rs {
        com: c.clone(),
        pend: 0,
        ten: c.clone(),
    }
}

/// `rbase x mt` (`SCFTL.Impl.Model`): what a page of epoch `x` builds on —
/// the pending pages if they are of epoch `x`, else the committed L2P.
pub fn rbase(x: u64, mt: &Rs) -> &Map {
    if x == mt.pend {
        &mt.ten
    } else {
        &mt.com
    }
}

/// `rstep` (`SCFTL.Impl.Model`): replay of one region page of generation
/// `g`: a delta page of generation `g` and epoch `x` applies its pairs to
/// `rbase x` and becomes the pending state of epoch `x`; a committed one
/// also makes that the committed map. Other pages change nothing.
pub fn rstep(g: u64, c: &Cell, mt: &mut Rs) {
    if let Cell::Dlt {
        gen,
        ep: x,
        pairs,
        committed: b,
        ..
    } = c
    {
        if *gen == g {
            if *x != mt.pend {
                mt.ten.clone_from(&mt.com);
                mt.pend = *x;
            }
            apply(pairs, &mut mt.ten);
            if *b {
                mt.com.clone_from(&mt.ten);
            }
        }
    }
}

/// `rp g cs mt` (`SCFTL.Impl.Model`): the replay of the region pages `cs`
/// (oldest first, Agda's list reversed) from `mt`.
pub fn rp<'a>(g: u64, cs: impl IntoIterator<Item = &'a Cell>, mut mt: Rs) -> Rs {
    for c in cs {
        rstep(g, c, &mut mt);
    }
    mt
}

/// `isT g x ps c` (`SCFTL.Impl.Model`, with `eqPs`): `c` is a tentative
/// delta page of generation `g` and epoch `x` with exactly the pairs `ps`.
pub fn is_t(g: u64, x: u64, ps: &[(Addr, Page)], c: &Cell) -> bool {
    matches!(c, Cell::Dlt { gen, ep, pairs, committed: false, .. } if *gen == g && *ep == x && **pairs == *ps)
}

/// `verD D dd` (`SCFTL.Impl.Model`): every page the digest names holds its
/// sector (`dat`: what each data page holds).
pub fn ver_d<'a>(dat: impl Fn(Page) -> &'a Cell, dd: &[(Page, Data, Addr)]) -> bool {
    dd.iter().all(|&(p, d, a)| holds(dat(p), d, a))
}

/// `verT g x dt cs` (`SCFTL.Impl.Model`): the pages right below the
/// committed one (`below`, the region under it, oldest first) are the
/// tentative pages `dt` (oldest first) of epoch `x`, the newest right
/// below.
pub fn ver_t(g: u64, x: u64, dt: &[Rc<[(Addr, Page)]>], below: &[&Cell]) -> bool {
    below.len() >= dt.len()
        && dt
            .iter()
            .zip(&below[below.len() - dt.len()..])
            .all(|(ps, c)| is_t(g, x, ps, c))
}

/// `okC g D c cs` (`SCFTL.Impl.Model`): `c` is a committed page of
/// generation `g` whose digest verifies on the flash (`verD`) and on the
/// region below it (`verT`, with the page's own epoch id).
pub fn ok_c<'a>(g: u64, dat: impl Fn(Page) -> &'a Cell, c: &Cell, below: &[&Cell]) -> bool {
    match c {
        Cell::Dlt {
            gen,
            ep,
            committed: true,
            dg,
            ..
        } => *gen == g && ver_d(dat, &dg.data) && ver_t(g, *ep, &dg.tents, below),
        _ => false,
    }
}

/// `acc g D cs` (`SCFTL.Impl.Model`): the part of the region (`cells`,
/// oldest first) recovery replays is `cells[..=k]` for the newest `k`
/// whose page passes `okC` (what is above it is dropped; pages below it
/// are not checked again); `None` for the empty list.
pub fn acc<'a>(g: u64, dat: impl Fn(Page) -> &'a Cell + Copy, cells: &[&Cell]) -> Option<usize> {
    (0..cells.len())
        .rev()
        .find(|&k| ok_c(g, dat, cells[k], &cells[..k]))
}

/// `RLt g c` (`SCFTL.Impl.Model`): `c` is no record of generation `g`
/// or newer.
pub fn rlt(g: u64, c: &Cell) -> bool {
    !matches!(c, Cell::Dlt { gen, .. } if *gen >= g)
}

/// `okR g x D c` (`SCFTL.Impl.Model`): `c` is a committed record of
/// generation `g` and epoch `x` whose digest verifies on the data pages.
pub fn ok_r<'a>(g: u64, x: u64, dat: impl Fn(Page) -> &'a Cell, c: &Cell) -> bool {
    matches!(c, Cell::Dlt { gen, ep, committed: true, dg, .. }
        if *gen == g && *ep == x && ver_d(dat, &dg.data))
}

/// `lkOf` (`SCFTL.Impl.Model`), on the newest page of the accepted region:
/// its epoch id and link, if it is a committed page.
pub fn lk_of(c: &Cell) -> Option<(u64, Page)> {
    match c {
        Cell::Dlt {
            ep,
            committed: true,
            dg,
            ..
        } => Some((*ep, dg.link)),
        _ => None,
    }
}

/// `stp g c` (`SCFTL.Impl.Model`): the record slot holds a record of
/// generation `g` or newer (where the walk from a link stops).
pub fn stp(g: u64, c: &Cell) -> bool {
    !rlt(g, c)
}

/// `seek g n R p` (`SCFTL.Impl.Model`): the first of the `n` record slots
/// from page `p` on that `stp` stops at.
pub fn seek<'a>(g: u64, n: Page, rcd: impl Fn(Page) -> &'a Cell, p: Page) -> Option<Page> {
    (p..p + n).find(|&q| stp(g, rcd(q)))
}

/// `extM g R D lk` (`SCFTL.Impl.Model`, with `extS`, `extAt`): the record
/// the walk from the link `lk` finds (`seek` over `omax` slots), if it is
/// the next epoch's commit (`okR` with epoch `suc x`).
pub fn ext_m<'a>(
    g: u64,
    rcd: impl Fn(Page) -> &'a Cell + Copy,
    dat: impl Fn(Page) -> &'a Cell,
    lk: Option<(u64, Page)>,
) -> Option<&'a Cell> {
    let (x, l) = lk?;
    let q = seek(g, OMAX, rcd, l)?;
    ok_r(g, x + 1, dat, rcd(q)).then(|| rcd(q))
}

/// The region of `s` as recovery reads it now (`map cur (dr s)`, oldest
/// page first) and the index of its newest committed page `acc` accepts in
/// generation `g`, if any: what `rview`, `Quiet`, `walkG`, `recMapL` and
/// `regTop` all start from.
pub fn accepted(g: u64, s: &St) -> (Vec<&Cell>, Option<usize>) {
    let cells: Vec<&Cell> = s.dr.iter().map(Mc::cur).collect();
    let k = acc(g, |p| s.cur_cell(p), &cells);
    (cells, k)
}

/// The link (`lkOf`) of the newest committed page of `s` that `acc`
/// accepts in generation `g`: where recovery's walk starts.
pub fn accepted_link(g: u64, s: &St) -> Option<(u64, Page)> {
    let (cells, k) = accepted(g, s);
    k.and_then(|k| lk_of(cells[k]))
}

/// `rview g s` (`SCFTL.Impl.Model`, with `chn`): what recovery replays,
/// oldest page first — the accepted part of the region (`acc`), then the
/// record its newest page's link leads to, if any (`extM`).
pub fn rview(g: u64, s: &St) -> Vec<&Cell> {
    let (cells, Some(k)) = accepted(g, s) else {
        return Vec::new();
    };
    let mut view = cells[..=k].to_vec();
    if let Some(r) = ext_m(g, |p| s.rcd_cur(p), |p| s.cur_cell(p), lk_of(cells[k])) {
        view.push(r);
    }
    view
}

/// `recMap g C s` (`SCFTL.Impl.Model`, with `rp`, `st0`): the committed
/// map of the replay from `st0 C` of what recovery reads (`rview`: the
/// accepted part of the region and the record its link leads to), digests
/// checked against `cur (dat s p)`.
pub fn rec_map(g: u64, c: &Map, s: &St) -> Map {
    rp(g, rview(g, s), st0(c)).com
}

/// `Above g R L` (`SCFTL.Impl.Model`): no record slot at page `l` or past
/// it holds a record of generation `g` or newer.
pub fn above(g: u64, s: &St, l: Page) -> bool {
    s.rcd.range(l..).all(|(_, m)| rlt(g, m.cur()))
}

/// `Quiet g s` (`SCFTL.Impl.Model`): recovery may keep the generation only
/// if no record of it lies at or past the link of the newest committed
/// page it accepts (where its walk looks), nor at or past the pages the
/// region names (where the rebuilt state allocates).
pub fn quiet(g: u64, s: &St) -> bool {
    let (cells, k) = accepted(g, s);
    let at_link = match k.and_then(|k| lk_of(cells[k])) {
        Some((_, l)) => above(g, s, l),
        None => true,
    };
    at_link && above(g, s, hi_r(&cells))
}

/// `isC g c` (`SCFTL.Impl.Model`): `c` is a committed page of generation
/// `g`.
pub fn is_c(g: u64, c: &Cell) -> bool {
    matches!(c, Cell::Dlt { gen, committed: true, .. } if *gen == g)
}

/// `clean g D cs` (`SCFTL.Impl.Model`): recovery drops no committed page
/// of generation `g` — going down from the newest page (`cells` oldest
/// first), it meets a page `okC` accepts before any committed page of
/// generation `g` it rejects (or neither).
pub fn clean<'a>(g: u64, dat: impl Fn(Page) -> &'a Cell + Copy, cells: &[&Cell]) -> bool {
    for k in (0..cells.len()).rev() {
        if ok_c(g, dat, cells[k], &cells[..k]) {
            return true;
        }
        if is_c(g, cells[k]) {
            return false;
        }
    }
    true
}

/// `epOf` (`SCFTL.Impl.Model`): a delta page's epoch id (0 for any other
/// page).
pub fn ep_of(c: &Cell) -> u64 {
    match c {
        Cell::Dlt { ep, .. } => *ep,
        _ => 0,
    }
}

/// `topE` (`SCFTL.Impl.Model`): the largest epoch id on the region (0 if
/// none).
pub fn top_e(cells: &[&Cell]) -> u64 {
    cells.iter().map(|c| ep_of(c)).max().unwrap_or(0)
}

/// `hiP` (`SCFTL.Impl.Model`): one more than every page the pairs name (0
/// if none).
pub fn hi_p(ps: &[(Addr, Page)]) -> Page {
    ps.iter().map(|&(_, p)| p + 1).max().unwrap_or(0)
}

/// `hiR` (`SCFTL.Impl.Model`): one more than every page a delta page on
/// the region names (0 if none).
pub fn hi_r(cells: &[&Cell]) -> Page {
    cells
        .iter()
        .map(|c| match c {
            Cell::Dlt { pairs, .. } => hi_p(pairs),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// `hi m amax` (`SCFTL.Impl.Model`, with `bnd`): one more than the
/// largest page mapped by addresses `0..=amax` (0 if none).
pub fn hi(m: &Map, amax: Addr) -> Page {
    m.range(..=amax).map(|(_, &p)| p + 1).max().unwrap_or(0)
}

/// `slot b s` (`SCFTL.Impl.Model`).
pub fn slot(s: &St, live: bool) -> &Mc {
    if live {
        &s.cp_l
    } else {
        &s.cp_o
    }
}

/// `rec0 b g C s` (`SCFTL.Impl.Model`): SYNC of what recovery finds
/// (`syncAll`), then the memory rebuilt from the recovered L2P alone
/// (selective persistence); the picked slot becomes `cpL`; the next page
/// past every mapped page and every page a region delta page names (`hi
/// ⊔ hiR`); the epoch id above every id on the region (`suc topE`). Mutant
/// `RecoveryKeepsVolatile`: the volatile L2P is the crashed state's (the
/// memory a crash leaves is arbitrary in `Img`, and the oracle's witness
/// keeps the crash point's memory), not the recovered one.
pub fn rec0(s: &mut St, pk: &Picked, amax: Addr, mutant: ModelMutant) {
    s.sync_all();
    let m = rec_map(pk.gen, &pk.l2p, s);
    let (top, past) = {
        let cells: Vec<&Cell> = s.dr.iter().map(Mc::cur).collect();
        (top_e(&cells), hi_r(&cells))
    };
    let (l, o) = (slot(s, pk.live).clone(), slot(s, !pk.live).clone());
    s.cp_l = l;
    s.cp_o = o;
    s.gen = pk.gen;
    s.nxt = hi(&m, amax).max(past);
    s.ep = top + 1;
    if mutant != ModelMutant::RecoveryKeepsVolatile {
        s.l2p = m.clone();
    }
    s.smap = m;
    s.mb.clear();
    s.dbuf.clear();
    s.ept.clear();
    s.inv.clear();
    s.ers.clear();
    s.rcl = reclaim(&s.smap, s.nxt, amax);
    s.wcnt = 0;
    s.gcnt = 0;
    s.lnk = None;
    s.drop_older_records();
}

/// `reclaim m n` (`SCFTL.Impl.Model`): what a recovery to the map `m`,
/// allocating from page `n` on, makes erasable — every page below `n`
/// that no address `0..=amax` of `m` names (blocks.rs `rebuild`: every
/// superblock the recovered L2P does not reference is erasable).
pub fn reclaim(m: &Map, n: Page, amax: Addr) -> Reclaimed {
    Reclaimed {
        below: n,
        named: m.range(..=amax).map(|(_, &p)| p).collect(),
        out: BTreeSet::new(),
    }
}

/// The volatile L2P `rec0` builds from `s` (the field `l2p` of `rec0 b g C
/// s`, mutant included), without building the state.
pub fn rec0_l2p(s: &St, pk: &Picked, mutant: ModelMutant) -> Map {
    if mutant == ModelMutant::RecoveryKeepsVolatile {
        s.l2p.clone()
    } else {
        rec_map(pk.gen, &pk.l2p, s)
    }
}

/// `clean g (λ p → cur (dat s p)) (map cur (dr s))`: whether a recovery
/// of `s` from generation `g` may go on without a full checkpoint.
pub fn clean_st(g: u64, s: &St) -> bool {
    let cells: Vec<&Cell> = s.dr.iter().map(Mc::cur).collect();
    clean(g, |p| s.cur_cell(p), &cells)
}

/// `recover` in `okP` (`SCFTL.Impl.Model`), for the checkpoint `pick`
/// finds: `ck3 (rec0 b g C s)` (`full`), or `rec0 b g C s` alone, which P
/// allows only if `clean` and `Quiet` hold. `Err` if `pick` finds no
/// checkpoint (the model has no recovery from this flash) or, without
/// `full`, if the recovery is not clean or not quiet.
pub fn recover(s: &mut St, amax: Addr, mutant: ModelMutant, full: bool) -> Result<(), String> {
    let pk = pick(s.cp_l.cur(), s.cp_o.cur())
        .ok_or_else(|| "neither checkpoint slot holds a checkpoint".to_string())?;
    if !full && !clean_st(pk.gen, s) {
        return Err(
            "recovery drops a committed page (not clean): it must write a full checkpoint".into(),
        );
    }
    if !full && !quiet(pk.gen, s) {
        return Err(
            "a record of the generation lies where recovery's walk or allocation looks (not Quiet): it must write a full checkpoint".into(),
        );
    }
    rec0(s, &pk, amax, mutant);
    if full {
        ck3(s);
    }
    Ok(())
}

/// `NewP` (`SCFTL.Impl.Model`): what format leaves on flash — a checkpoint
/// of generation 0 mapping nothing, an erased shadow slot, an empty region.
/// `NewP` leaves data pages and memory arbitrary; this picks erased pages
/// and the memory `rec0` would rebuild from that flash (generation 0,
/// nothing mapped, counters 0, epoch id `suc (topE [])` = 1).
pub fn new_p() -> St {
    St {
        dat: Default::default(),
        unsynced: Vec::new(),
        cp_l: Mc::Syn(Cell::Cpt {
            gen: 0,
            l2p: Rc::new(Map::new()),
        }),
        cp_o: Mc::Syn(Cell::Erased),
        dr: Vec::new(),
        rcd: Default::default(),
        gen: 0,
        l2p: Map::new(),
        mb: Default::default(),
        dbuf: Vec::new(),
        ept: Vec::new(),
        ep: 1,
        nxt: 0,
        lnk: None,
        inv: Default::default(),
        ers: Default::default(),
        rcl: Default::default(),
        wcnt: 0,
        gcnt: 0,
        smap: Map::new(),
    }
}
