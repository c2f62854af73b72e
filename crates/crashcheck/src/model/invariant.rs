//! The representation invariant `RI` of `SCFTL.Impl.Invariants` as an
//! executable check of a model state.
//!
//! `RI s` is a record with three existential witnesses: the live
//! checkpoint's L2P `C` (determined by `slotL`), and the split of the
//! region into tentative pages `tents` (newest) and committed durable pages
//! `comm` (`regEq`). Since the one-sync commit the split is determined too:
//! `tEq` says `tents` are exactly the pages of the epoch's `ept`, so
//! [`check_ri`] takes the last `ept.len()` region pages as `tents` and
//! checks every field on that split; it decides `RI` exactly (for the
//! state's finitely many mapped addresses). `PM P m` (a property of every
//! crash outcome of a page) is checked on the page's old and new contents,
//! which is its definition.

use std::collections::HashSet;

use super::state::{apply, Addr, Cell, Dg, Map, Mc, St};
use super::steps::{above, is_c, lk_of, rlt, rp, st0, ver_t};

/// `PM P m` (`SCFTL.Impl.Lemmas`).
fn pm(m: &Mc, p: impl Fn(&Cell) -> bool) -> bool {
    match m {
        Mc::Syn(c) => p(c),
        Mc::Uns(o, n) => p(o) && p(n),
    }
}

fn first_diff(x: &Map, y: &Map) -> String {
    let keys: std::collections::BTreeSet<&Addr> = x.keys().chain(y.keys()).collect();
    for a in keys {
        if x.get(a) != y.get(a) {
            return format!("address {a}: {:?} vs {:?}", x.get(a), y.get(a));
        }
    }
    "equal".into()
}

/// `cpL s ≡ syn (cpt gen C)`: the live slot's checkpoint map `C`, else
/// why not (after `field`, the name of the field that requires it).
pub(super) fn live_checkpoint(s: &St, field: &str) -> Result<std::rc::Rc<Map>, String> {
    match &s.cp_l {
        Mc::Syn(Cell::Cpt { gen, l2p }) if *gen == s.gen => Ok(l2p.clone()),
        other => Err(format!(
            "{field}: the live slot is {other:?}, not a durable checkpoint of generation {}",
            s.gen
        )),
    }
}

/// Checks `RI s` (`SCFTL.Impl.Invariants`, record `RI`, fields named in
/// the messages) for addresses `0..=amax`, all 21 fields. On failure,
/// names the first field that fails.
pub fn check_ri(s: &St, amax: Addr) -> Result<(), String> {
    let g = s.gen;
    // slotL: cpL ≡ syn (cpt gen C)
    let c = live_checkpoint(s, "RI.slotL")?;
    // slotO: PM (Older gen) cpO
    if !pm(
        &s.cp_o,
        |c| !matches!(c, Cell::Cpt { gen, .. } if gen + 1 > g),
    ) {
        return Err(format!(
            "RI.slotO: the shadow slot may hold a checkpoint of generation ≥ {g}: {:?}",
            s.cp_o
        ));
    }
    // gle: All (PM (GenLe gen)) dr
    if let Some(i) =
        s.dr.iter()
            .position(|m| !pm(m, |c| !matches!(c, Cell::Dlt { gen, .. } if *gen > g)))
    {
        return Err(format!(
            "RI.gle: region page {i} (oldest first) is of a generation above {g}: {:?}",
            s.dr[i]
        ));
    }
    // regEq and tEq: dr ≡ tents ++ map syn comm with tents the epoch's
    // tentative pages (`ept`); in Rust (oldest first) comm is a durable
    // prefix and tents the last `ept.len()` pages.
    let Some(j) = s.dr.len().checked_sub(s.ept.len()) else {
        return Err(format!(
            "RI.tEq: the epoch has {} tentative pages (ept), the region only {} pages",
            s.ept.len(),
            s.dr.len()
        ));
    };
    if let Some(i) = s.dr[..j].iter().position(|m| !m.is_syn()) {
        return Err(format!(
            "RI.regEq: region page {i} (oldest first) is below the epoch's tentative pages but not durable: {:?}",
            s.dr[i]
        ));
    }
    check_split(s, &c, j, amax)?;
    check_records(s, &s.dr[..j])?;
    check_pages(s, amax)
}

/// The fields of `RI` about the in-page record slots and the link, on the
/// durable committed part `comm` (oldest first): `rcOK`, `rcN`, `rcL`,
/// `lkOK`.
fn check_records(s: &St, comm: &[Mc]) -> Result<(), String> {
    let g = s.gen;
    // rcOK: every record slot durable, nothing newer than this generation
    if let Some((p, m)) = s
        .rcd
        .iter()
        .find(|(_, m)| !matches!(m, Mc::Syn(c) if rlt(g + 1, c)))
    {
        return Err(format!(
            "RI.rcOK: the record slot of page {p} is not durable or holds a record newer than generation {g}: {m:?}"
        ));
    }
    // rcN: no record of this generation at or past the active pointer
    if !above(g, s, s.nxt) {
        return Err(format!(
            "RI.rcN: a record slot at or past nxt = {} holds a record of generation {g}",
            s.nxt
        ));
    }
    // rcL: none at or past the link of the newest committed page
    // (`lkTop`: the newest page that is a committed page of generation g)
    let top = comm.iter().rposition(|m| is_c(g, m.cur()));
    if let Some((x, l)) = top.and_then(|k| lk_of(comm[k].cur())) {
        if !above(g, s, l) {
            return Err(format!(
                "RI.rcL: a record slot at or past page {l}, the link of the newest committed page (epoch {x}), holds a record of generation {g}"
            ));
        }
    }
    // lkOK: the link the next flush may commit at is the newest durable
    // page's, a committed page of this generation and the previous epoch
    if let Some(l) = s.lnk {
        let ok = matches!(comm.last().map(Mc::cur), Some(Cell::Dlt { gen, ep, committed: true, dg, .. })
            if *gen == g && ep + 1 == s.ep && dg.link == l);
        if !ok {
            return Err(format!(
                "RI.lkOK: the link is page {l}, but the newest durable region page is {:?}, not the committed page of epoch {} of generation {g} linking it",
                comm.last(),
                s.ep.wrapping_sub(1)
            ));
        }
    }
    Ok(())
}

/// The fields of `RI` about the split `comm = dr[..j]`, `tents = dr[j..]`:
/// `tEq`, `tNC`, `cmX`, `cmP`, `vm`, `cmV`.
fn check_split(s: &St, c: &Map, j: usize, amax: Addr) -> Result<(), String> {
    let g = s.gen;
    let (comm, tents) = s.dr.split_at(j);
    // tEq: tents ≡ map (λ ps → uns erased (dlt gen ep ps false ε)) ept
    for (i, (m, ps)) in tents.iter().zip(&s.ept).enumerate() {
        let ok = match m {
            Mc::Uns(
                Cell::Erased,
                Cell::Dlt {
                    gen,
                    ep,
                    pairs,
                    committed: false,
                    dg,
                },
            ) => *gen == g && *ep == s.ep && *pairs == *ps && **dg == Dg::default(),
            _ => false,
        };
        if !ok {
            return Err(format!(
                "RI.tEq: region page {} (oldest first) is not the epoch's (id {}) unsynced tentative page with pairs {ps:?} (ept): {m:?}",
                j + i,
                s.ep
            ));
        }
    }
    // tNC: All (PM (NC gen)) tents
    if let Some(i) = tents.iter().position(|m| {
        !pm(
            m,
            |c| !matches!(c, Cell::Dlt { gen, committed: true, .. } if *gen == g),
        )
    }) {
        return Err(format!(
            "RI.tNC: tentative region page {} may commit in generation {g}: {:?}",
            j + i,
            tents[i]
        ));
    }
    // cmX: proj₁ (rp gen comm (st0 C)) ≐ smap
    let mt = rp(g, comm.iter().map(Mc::cur), st0(c));
    if mt.com != s.smap {
        return Err(format!(
            "RI.cmX: the committed replay of the durable region differs from the stable L2P (smap) at {}",
            first_diff(&mt.com, &s.smap)
        ));
    }
    // cmP: pend (rp gen comm (st0 C)) < ep
    if mt.pend >= s.ep {
        return Err(format!(
            "RI.cmP: the replay of the durable region leaves tentative pages of epoch {} pending, not below the current epoch id {}",
            mt.pend, s.ep
        ));
    }
    // vm: l2p ≐ apply dbuf (apply (concat ept) smap)
    let mut vm = s.smap.clone();
    for ps in &s.ept {
        apply(ps, &mut vm);
    }
    apply(&s.dbuf, &mut vm);
    if vm != s.l2p {
        return Err(format!(
            "RI.vm: the volatile L2P is not stable + this epoch's tentative pages + delta buffer, at {}",
            first_diff(&s.l2p, &vm)
        ));
    }
    check_cmv(s, comm, amax)
}

/// `cmV : CmV gen smap dat comm` (`SCFTL.Impl.Lemmas`, `CmV`, `Ent`):
/// going down from the newest durable page, pages that are no committed
/// page of generation `gen` (`isC`), then either nothing more or a
/// committed page of generation `gen` whose digest names only pages `smap`
/// maps, each durably holding its sector, and whose tentative pages (of
/// its epoch id) are the pages right below it.
fn check_cmv(s: &St, comm: &[Mc], amax: Addr) -> Result<(), String> {
    let g = s.gen;
    let Some(k) = comm.iter().rposition(|m| is_c(g, m.cur())) else {
        return Ok(());
    };
    let (top, below) = (&comm[k], &comm[..k]);
    let Cell::Dlt { ep: x, dg, .. } = top.cur() else {
        unreachable!("isC")
    };
    for &(p, d, a) in &dg.data {
        let ok = a <= amax && s.smap.get(&a) == Some(&p) && s.page(p) == Mc::Syn(Cell::D { d, a });
        if !ok {
            return Err(format!(
                "RI.cmV: the newest committed page's digest names page {p} with version {d} of address {a}, but smap maps {a} to {:?} and the page is {:?}",
                s.smap.get(&a),
                s.page(p)
            ));
        }
    }
    let below: Vec<&Cell> = below.iter().map(Mc::cur).collect();
    if !ver_t(g, *x, &dg.tents, &below) {
        return Err(format!(
            "RI.cmV: the {} tentative pages of epoch {x} the newest committed page's digest names are not the pages right below it",
            dg.tents.len()
        ));
    }
    Ok(())
}

/// The data-page fields of `RI`: `vOK`, `sOK`, `iOK`, `eOK`.
fn check_pages(s: &St, amax: Addr) -> Result<(), String> {
    for (&a, &p) in s.l2p.range(..=amax) {
        if p >= s.nxt {
            return Err(format!(
                "RI.vOK: address {a} maps page {p}, not below nxt = {}",
                s.nxt
            ));
        }
        match s.pv(p) {
            Cell::D { a: b, .. } if b == a => {}
            other => {
                return Err(format!(
                    "RI.vOK: address {a} maps page {p}, which holds {other:?}, not a sector of address {a}"
                ))
            }
        }
    }
    for (&a, &p) in s.smap.range(..=amax) {
        if p >= s.nxt {
            return Err(format!(
                "RI.sOK: stable address {a} maps page {p}, not below nxt = {}",
                s.nxt
            ));
        }
        if s.mb.contains_key(&p) {
            return Err(format!(
                "RI.sOK: stable address {a} maps page {p}, still pending in the merge buffer"
            ));
        }
        match s.page(p) {
            Mc::Syn(Cell::D { a: b, .. }) if b == a => {}
            other => {
                return Err(format!(
                    "RI.sOK: stable address {a} maps page {p}, which is {other:?}, not a durable sector of address {a}"
                ))
            }
        }
    }
    let vol: HashSet<u64> = s.l2p.range(..=amax).map(|(_, &p)| p).collect();
    let stb: HashSet<u64> = s.smap.range(..=amax).map(|(_, &p)| p).collect();
    for &p in &s.inv {
        if p >= s.nxt || vol.contains(&p) {
            return Err(format!(
                "RI.iOK: invalid page {p} is past nxt = {} or still mapped by the volatile L2P",
                s.nxt
            ));
        }
    }
    for p in s.erasable_to_check(vol.iter().chain(stb.iter()).copied()) {
        if p >= s.nxt || vol.contains(&p) || stb.contains(&p) {
            return Err(format!(
                "RI.eOK: erasable page {p} is past nxt = {} or still mapped (volatile: {}, stable: {})",
                s.nxt,
                vol.contains(&p),
                stb.contains(&p)
            ));
        }
    }
    Ok(())
}
