//! The crash model of `SCFTL.Impl.Model` (`CrashC`, `CrashD`, `CrashL`,
//! `Img`), its crash points (`FlPt`, `CkPt`), and what recovery makes of
//! every crash outcome: the set the oracle compares a real recovery with.
//!
//! `Img m s'` relates a crash point `m` to every flash `s'` a power cut
//! there may leave: durable pages unchanged, an unsynced data page *any*
//! content (`CrashD`), an unsynced checkpoint slot or delta page its old
//! content, its new content or junk (`CrashC`). [`outcomes`] enumerates the
//! metadata choices (at most 3 per unsynced slot or region page) and, since
//! the one-sync commit, the data-page choices that decide recovery: a
//! committed page is accepted only if every page its digest names holds the
//! named sector (`acc`, `okC`), so an unsynced data page it names either
//! holds that sector (pinned to it) or not (junk, for a rejected digest);
//! every other unsynced data page stays symbolic ([`Cell::Unknown`]).
//!
//! It does not walk every combination: recovery's result is fixed by the
//! page `acc` accepts (or none) and the region below it, so for each
//! committed page of the checkpoint's generation it asks whether some
//! choice makes `acc` accept exactly that page — its tentative pages (the
//! digest's `verT`) at their landed content, its named data pages pinned,
//! every page above it rejected (an outcome that is no committed page, or
//! a durable committed page whose check fails, if need be on a data page
//! left junk) — and replays the pages below it over all their outcomes,
//! merging equal replay states (`RS`: committed map, pending epoch id,
//! pending map). Each outcome also says whether recovery from it may skip
//! the full checkpoint: `clean` (no committed page of the generation above
//! the accepted one) and `Quiet` (no record of the generation where the
//! walk from the link or the rebuilt state's allocation looks); where some
//! choice rejects the pages above without a committed page, that choice
//! is taken.
//!
//! Record slots (`rcd`, the in-page and OOB commits): each unsynced slot
//! takes its `CrashC` outcomes (only `fi2` leaves one), every slot the
//! value that choice gives it. From the accepted page's link recovery's
//! walk (`seek`) finds at most one record in P (`extM`), up to `kc` in
//! PL, each from the link of the one before (`follow`,
//! [`outcomes_walking`]); at each record that is the next epoch's commit
//! of the generation the outcome splits: the record applied (`okR`: the
//! pages its digest names pinned to their sectors, replayed after the
//! region, and the walk goes on) or rejected (one of those pages junk, if
//! one can be; the walk stops).

use std::collections::BTreeMap;

use super::state::{cell_d, holds, Addr, Cell, Data, Map, Mc, Page, St, Val, D0};
use super::steps::{self, is_c, pick, rlt, rstep, st0, Picked, Rs, OMAX};
use super::ModelMutant;

/// `CrashC` (`SCFTL.Impl.Model`): the contents a metadata page may show
/// after a crash — `syn c`: `c`; `uns o n`: `o`, `n` or junk (duplicates
/// removed).
pub fn crash_c(m: &Mc) -> Vec<Cell> {
    match m {
        Mc::Syn(c) => vec![c.clone()],
        Mc::Uns(o, n) => {
            let mut v = vec![o.clone()];
            for c in [n.clone(), Cell::Junk] {
                if !v.contains(&c) {
                    v.push(c);
                }
            }
            v
        }
    }
}

/// One `Img` choice: an index into [`crash_c`] of each checkpoint slot, of
/// each region page (oldest first) and of each unsynced record slot (the
/// synced ones keep their record), and the content of the unsettled data
/// pages recovery's digest checks depend on (the others stay
/// [`Cell::Unknown`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImgChoice {
    pub cp_l: usize,
    pub cp_o: usize,
    pub dr: Vec<usize>,
    pub rcd: BTreeMap<Page, usize>,
    pub data: BTreeMap<Page, Cell>,
}

/// A recovery the model allows from a crash point: the `Img` choice
/// (metadata and data pages), the checkpoint `pick` finds on that flash,
/// the L2P the replay of the accepted region and the record its link
/// leads to commits (`recMap`), and whether recovery on that flash is
/// `clean` and `Quiet` (may go on without a full checkpoint).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub choice: ImgChoice,
    pub picked: Picked,
    pub rec: Map,
    pub clean: bool,
}

/// The flash `s'` of `Img m s'` for one choice (`SCFTL.Impl.Model` `Img`;
/// `CrashD`: an unsynced data page as `ch.data` says, else
/// [`Cell::Unknown`]); the memory (arbitrary in `Img`) is `m`'s.
pub fn img(m: &St, ch: &ImgChoice) -> St {
    let mut s = m.clone();
    for p in std::mem::take(&mut s.unsynced) {
        if let Some(Mc::Uns(..)) = s.dat.get(&p) {
            s.dat.insert(p, Mc::Syn(Cell::Unknown));
        }
    }
    for (&p, c) in &ch.data {
        s.dat.insert(p, Mc::Syn(c.clone()));
    }
    s.cp_l = Mc::Syn(crash_c(&m.cp_l).swap_remove(ch.cp_l));
    s.cp_o = Mc::Syn(crash_c(&m.cp_o).swap_remove(ch.cp_o));
    for (i, pg) in s.dr.iter_mut().enumerate() {
        *pg = Mc::Syn(crash_c(pg).swap_remove(ch.dr[i]));
    }
    for (&p, &i) in &ch.rcd {
        match crash_c(&m.rcd[&p]).swap_remove(i) {
            Cell::Erased => s.rcd.remove(&p),
            c => s.rcd.insert(p, Mc::Syn(c)),
        };
    }
    s
}

/// What data page `p` holds after any crash at `m`, if that is fixed: a
/// durable page's content; `None` for an unsynced page (`CrashD`: any
/// content) and for a symbolic one left by an earlier crash.
fn settled(m: &St, p: Page) -> Option<&Cell> {
    match m.dat.get(&p) {
        None => Some(&Cell::Erased),
        Some(Mc::Syn(Cell::Unknown)) | Some(Mc::Uns(..)) => None,
        Some(Mc::Syn(c)) => Some(c),
    }
}

/// `verD` made true on some crash outcome of `m`: every page the digest
/// names holds its sector — fixed pages as they are, the others pinned in
/// `data`. False if a fixed page (or an earlier pin) contradicts it.
fn pin_digest(m: &St, dd: &[(Page, Data, Addr)], data: &mut BTreeMap<Page, Cell>) -> bool {
    for &(p, d, a) in dd {
        match settled(m, p).or_else(|| data.get(&p)) {
            Some(c) => {
                if !holds(c, d, a) {
                    return false;
                }
            }
            None => {
                data.insert(p, Cell::D { d, a });
            }
        }
    }
    true
}

/// Chooses, for every region page from `from` up, an outcome `acc` does
/// not accept (given the choices `ch` below it and the data choices
/// `data`): an outcome that is no delta page of generation `g` if there is
/// one (junk always is, for an unsynced page), else one that is not a
/// committed page; a durable committed page of generation `g` must fail
/// `verT` or `verD` — if only an unsettled data page can make `verD` fail,
/// that page is left junk (preferably one `keep` does not map). False if
/// some page is accepted whatever is chosen.
fn reject_from(
    m: &St,
    g: u64,
    pages: &[Vec<Cell>],
    from: usize,
    ch: &mut [usize],
    data: &mut BTreeMap<Page, Cell>,
    keep: &Map,
) -> bool {
    for j in from..pages.len() {
        let outs = &pages[j];
        let inert = outs
            .iter()
            .position(|c| !matches!(c, Cell::Dlt { gen, .. } if *gen == g))
            .or_else(|| outs.iter().position(|c| !is_c(g, c)));
        if let Some(x) = inert {
            ch[j] = x;
            continue;
        }
        // Every outcome is a committed page of generation g: a durable
        // one (an unsynced page may always end up junk).
        ch[j] = 0;
        let Cell::Dlt { ep: x, dg, .. } = &outs[0] else {
            unreachable!("isC")
        };
        // verT: the window right below j. A window reaching down to the
        // accepted page (or unchosen pages below it) holds that committed
        // page, which is no tentative page: verT fails.
        let n = dg.tents.len();
        let ver_t = j >= n
            && (j - n..j)
                .zip(dg.tents.iter())
                .all(|(i, ps)| ch[i] != usize::MAX && steps::is_t(g, *x, ps, &pages[i][ch[i]]));
        if ver_t && !fail_digest(m, &dg.data, data, keep) {
            return false;
        }
    }
    true
}

/// `verD` made false on some crash outcome of `m`, given the data choices
/// so far: true if a fixed page (or an earlier choice) already fails it;
/// else one unsettled page it names is left junk (preferably one `keep`
/// does not map, so that the junk is not read). False if every page it
/// names is fixed and holds its sector.
fn fail_digest(
    m: &St,
    dd: &[(Page, Data, Addr)],
    data: &mut BTreeMap<Page, Cell>,
    keep: &Map,
) -> bool {
    let mut free = Vec::new();
    for &(p, d, a) in dd {
        match data.get(&p).or_else(|| settled(m, p)) {
            Some(c) if !holds(c, d, a) => return true,
            Some(_) => {}
            None => free.push(p),
        }
    }
    let mapped = |p: &Page| keep.values().any(|q| q == p);
    match free.iter().find(|p| !mapped(p)).or(free.first()) {
        Some(&p) => {
            data.insert(p, Cell::Junk);
            true
        }
        None => false,
    }
}

/// `rp g` (`SCFTL.Impl.Model`) over every choice of the outcomes of
/// `pages` (oldest first), from `st0 C`: the distinct replay states, each
/// with one choice reaching it.
fn replays(g: u64, pages: &[Vec<Cell>], c: &Map) -> Vec<(Rs, Vec<usize>)> {
    let mut states = vec![(st0(c), Vec::with_capacity(pages.len()))];
    for outs in pages {
        if let [only] = outs.as_slice() {
            for (mt, ch) in &mut states {
                rstep(g, only, mt);
                ch.push(0);
            }
            continue;
        }
        let mut next: Vec<(Rs, Vec<usize>)> = Vec::new();
        for (mt, ch) in &states {
            for (x, o) in outs.iter().enumerate() {
                let mut t = mt.clone();
                rstep(g, o, &mut t);
                if next.iter().any(|(u, _)| *u == t) {
                    continue;
                }
                let mut ch2 = ch.clone();
                ch2.push(x);
                next.push((t, ch2));
            }
        }
        states = next;
    }
    states
}

/// `clean` (`SCFTL.Impl.Model`) of a region choice whose accepted page is
/// below `from` (all of it if none): no page from `from` up is a committed
/// page of generation `g` (each is rejected by the choice).
fn clean_above(g: u64, pages: &[Vec<Cell>], ch: &[usize], from: usize) -> bool {
    (from..pages.len()).all(|j| !is_c(g, &pages[j][ch[j]]))
}

/// One recovery of [`region_outcomes`]: region choice, data choices,
/// `recMap`, `clean` and `Quiet`.
type RegionOutcome = (Vec<usize>, BTreeMap<Page, Cell>, Map, bool);

/// The record slots after a crash: what an unsynced slot shows (`rc`, the
/// choice), else the slot's record (`cur (rcd m p)`).
struct Slots<'a> {
    m: &'a St,
    rc: BTreeMap<Page, Cell>,
}

impl Slots<'_> {
    fn get(&self, p: Page) -> &Cell {
        self.rc.get(&p).unwrap_or_else(|| self.m.rcd_cur(p))
    }

    /// `Above g R l`: no slot at page `l` or past it holds a record of
    /// generation `g` or newer.
    fn above(&self, g: u64, l: Page) -> bool {
        self.m.rcd.range(l..).all(|(&p, _)| rlt(g, self.get(p)))
    }

    /// `Quiet g s'` of the choice `ch` of the region `pages`, whose
    /// accepted page links `link` (`None`: no page accepted).
    fn quiet(&self, g: u64, link: Option<Page>, pages: &[Vec<Cell>], ch: &[usize]) -> bool {
        let cells: Vec<&Cell> = pages.iter().zip(ch).map(|(o, &i)| &o[i]).collect();
        link.is_none_or(|l| self.above(g, l)) && self.above(g, steps::hi_r(&cells))
    }

    /// The record the walk from `c`'s link finds (`seek`) if it is the
    /// next epoch's commit of generation `g` (`okR` but for `verD`).
    fn linked(&self, g: u64, c: &Cell) -> Option<&Cell> {
        let (x, l) = steps::lk_of(c)?;
        let r = steps::seek(g, OMAX, |p| self.get(p), l).map(|q| self.get(q));
        r.filter(|r| {
            matches!(r, Cell::Dlt { gen, ep, committed: true, .. } if *gen == g && *ep == x + 1)
        })
    }

    /// The walks from the accepted page `c` (`extM`, or PL's `follow`
    /// with at most `bound` records): for each, the records applied
    /// (oldest first), the data pins that make their digests verify on
    /// top of `pins`, and the digest that must fail where the walk
    /// stopped at a record it rejects. A record whose pages cannot all
    /// hold their sectors is only rejected.
    #[allow(clippy::type_complexity)]
    fn walks<'s>(
        &'s self,
        m: &St,
        g: u64,
        c: &'s Cell,
        pins: BTreeMap<Page, Cell>,
        bound: u64,
    ) -> Vec<(
        Vec<&'s Cell>,
        BTreeMap<Page, Cell>,
        Option<&'s [(Page, Data, Addr)]>,
    )> {
        let mut out = Vec::new();
        let (mut applied, mut pins, mut cur) = (Vec::new(), pins, c);
        for _ in 0..bound {
            let Some(r @ Cell::Dlt { dg, .. }) = self.linked(g, cur) else {
                break;
            };
            out.push((applied.clone(), pins.clone(), Some(&dg.data[..])));
            if !pin_digest(m, &dg.data, &mut pins) {
                return out;
            }
            applied.push(r);
            cur = r;
        }
        out.push((applied, pins, None));
        out
    }
}

/// The recoveries from a crash at `m` whose checkpoint choice is `pk` and
/// whose record slots are `slots`: (region choice, data choices,
/// `recMap`, `clean` and `Quiet`). For each committed page `k` of
/// generation `pk.gen` `acc` may accept (with the record its link leads to
/// applied or rejected), and for no page accepted.
fn region_outcomes(
    m: &St,
    pages: &[Vec<Cell>],
    pk: &Picked,
    slots: &Slots<'_>,
    bound: u64,
) -> Vec<RegionOutcome> {
    let g = pk.gen;
    let n = pages.len();
    let mut res = Vec::new();
    for k in (0..n).rev() {
        for (t, c) in pages[k].iter().enumerate() {
            let Cell::Dlt {
                gen,
                ep: x,
                committed: true,
                dg,
                ..
            } = c
            else {
                continue;
            };
            if *gen != g || dg.tents.len() > k {
                continue;
            }
            // okC: verT — the tentative pages of epoch x right below at
            // their content
            let lo = k - dg.tents.len();
            let mut ch = vec![usize::MAX; n];
            ch[k] = t;
            let window = dg.tents.iter().enumerate().all(|(i, ps)| {
                match pages[lo + i].iter().position(|c| steps::is_t(g, *x, ps, c)) {
                    Some(x) => {
                        ch[lo + i] = x;
                        true
                    }
                    None => false,
                }
            });
            // verD — the pages the digest names hold their sectors
            let mut pins = BTreeMap::new();
            if !window || !pin_digest(m, &dg.data, &mut pins) {
                continue;
            }
            // extM (or PL's walk along the chain, up to `bound` records):
            // each record the walk finds applied (its pages pinned too) or
            // rejected (a page its digest names fails, and the walk
            // stops).
            let link = steps::lk_of(c).map(|(_, l)| l);
            let walks = slots.walks(m, g, c, pins, bound);
            for (mut mt, below) in replays(g, &pages[..lo], &pk.l2p) {
                for i in lo..=k {
                    rstep(g, &pages[i][ch[i]], &mut mt);
                }
                for (applied, pins, reject) in &walks {
                    let mut mt = mt.clone();
                    for r in applied {
                        rstep(g, r, &mut mt);
                    }
                    let rec = mt.com;
                    let mut ch2 = ch.clone();
                    ch2[..lo].copy_from_slice(&below);
                    let mut data = pins.clone();
                    if !reject_from(m, g, pages, k + 1, &mut ch2, &mut data, &rec) {
                        continue;
                    }
                    if let Some(dd) = reject {
                        if !fail_digest(m, dd, &mut data, &rec) {
                            continue;
                        }
                    }
                    let clean =
                        clean_above(g, pages, &ch2, k + 1) && slots.quiet(g, link, pages, &ch2);
                    res.push((ch2, data, rec, clean));
                }
            }
        }
    }
    // No page accepted: recMap = C, no walk.
    let mut ch = vec![usize::MAX; n];
    let mut data = BTreeMap::new();
    if reject_from(m, g, pages, 0, &mut ch, &mut data, &pk.l2p) {
        let clean = clean_above(g, pages, &ch, 0) && slots.quiet(g, None, pages, &ch);
        res.push((ch, data, (*pk.l2p).clone(), clean));
    }
    res
}

/// Every choice of the unsynced record slots' outcomes (`CrashC`): an
/// index into [`crash_c`] per slot, and the cell it shows.
fn record_choices(m: &St) -> Vec<(BTreeMap<Page, usize>, BTreeMap<Page, Cell>)> {
    let mut v = vec![(BTreeMap::new(), BTreeMap::new())];
    for (&p, mc) in &m.rcd {
        if mc.is_syn() {
            continue;
        }
        let outs = crash_c(mc);
        v = v
            .into_iter()
            .flat_map(|(ix, cs)| {
                outs.iter().enumerate().map(move |(i, c)| {
                    let (mut ix, mut cs) = (ix.clone(), cs.clone());
                    ix.insert(p, i);
                    cs.insert(p, c.clone());
                    (ix, cs)
                })
            })
            .collect();
    }
    v
}

/// Every recovery from a crash at `m`: for each choice of the checkpoint
/// slots' outcomes, `pick`; for each choice of the unsynced record slots'
/// outcomes, every page `acc` may accept on some choice of the region
/// pages' outcomes (`CrashL`) and of the unsynced data pages (`CrashD`),
/// with the record its link leads to applied or not, the replay `recMap`,
/// and whether `clean` and `Quiet` hold (see the module doc). A choice
/// for which `pick` finds no checkpoint has no recovery and is left out.
pub fn outcomes(m: &St) -> Vec<Outcome> {
    outcomes_walking(m, 1)
}

/// [`outcomes`] with recovery walking a chain of up to `bound` records
/// (PL's `walkG`, `recMapL`; `bound = 1` is P's `extM`). PL's recovery
/// always writes the full checkpoint; PXq's may go without it where
/// [`Outcome::clean`] holds (its `Quiet` half: the walk applied nothing).
pub fn outcomes_walking(m: &St, bound: u64) -> Vec<Outcome> {
    let (ls, os) = (crash_c(&m.cp_l), crash_c(&m.cp_o));
    let pages: Vec<Vec<Cell>> = m.dr.iter().map(crash_c).collect();
    let records = record_choices(m);
    let mut out = Vec::new();
    for (il, l) in ls.iter().enumerate() {
        for (io, o) in os.iter().enumerate() {
            let Some(pk) = pick(l, o) else { continue };
            for (ix, rc) in &records {
                let slots = Slots { m, rc: rc.clone() };
                for (dr, data, rec, clean) in region_outcomes(m, &pages, &pk, &slots, bound) {
                    out.push(Outcome {
                        choice: ImgChoice {
                            cp_l: il,
                            cp_o: io,
                            dr,
                            rcd: ix.clone(),
                            data,
                        },
                        picked: pk.clone(),
                        rec,
                        clean,
                    });
                }
            }
        }
    }
    out
}

/// A device image: address ↦ value, zeros left out.
pub type Image = BTreeMap<Addr, Val>;

/// What every address reads after recovering from outcome `o` of a crash
/// at `m`: `rd (ck3 (rec0 b g C s'))` with `s' = img m o.choice` (the same
/// as `rd (rec0 b g C s')`, the recovery without a full checkpoint), computed
/// without building the state (the recovered memory has an empty merge
/// buffer and reads the L2P `rec0` builds through the settled data pages
/// and the choice's data pages; any other unsynced data page reads as
/// [`Val::Any`]).
pub fn recovered_image(m: &St, o: &Outcome, mutant: ModelMutant) -> Image {
    let l2p = if mutant == ModelMutant::RecoveryKeepsVolatile {
        &m.l2p
    } else {
        &o.rec
    };
    let mut img = Image::new();
    for (&a, &p) in l2p {
        let v = match (o.choice.data.get(&p), m.dat.get(&p)) {
            (Some(c), _) | (None, Some(Mc::Syn(c))) => cell_d(c),
            (None, None) => Val::Known(D0),
            (None, Some(Mc::Uns(..))) => Val::Any,
        };
        if v != Val::Known(D0) {
            img.insert(a, v);
        }
    }
    img
}

/// `FlPt s` (`SCFTL.Impl.Model`): the crash points of a flush — `fl2 s`
/// (right before its one SYNC), `fl3 s`, and the points of a full
/// checkpoint after it (`CkPt (fl3 s)`), in that order.
pub fn flush_points(s: &St, amax: Addr, mutant: ModelMutant) -> Vec<St> {
    let mut v = Vec::with_capacity(5);
    let mut x = s.clone();
    steps::fl2(&mut x, amax, mutant);
    v.push(x.clone());
    steps::fl3_from_fl2(&mut x);
    v.push(x.clone());
    v.extend(ck_points(&x));
    v
}

/// The page whose record slot P's in-page or OOB commit of `s` would
/// write, if `s` allows one: the link `L` where `InP s L` holds, else the
/// merge buffer's first page `M` where `OobP s L M` does.
pub fn commit_page(s: &St) -> Option<Page> {
    let l = s.lnk?;
    if steps::in_p(s, l) {
        return Some(l);
    }
    let (&m, _) = s.mb.range(l..).next()?;
    steps::oob_p(s, l, m).then_some(m)
}

/// `FiPt s` or `FoPt s` (`SCFTL.Impl.Model`) for the record in the slot of
/// page `l` ([`commit_page`]): the crash points of an in-page or OOB
/// commit — `fi2 l s` (right before its one SYNC), the points of a full
/// checkpoint after it (`CkPt (fi3 l s)`), `fiK l s` (the consolidation
/// page before its SYNC) and `fi4 l s`, in that order.
pub fn record_points(s: &St, l: Page, amax: Addr) -> Vec<St> {
    let mut v = Vec::with_capacity(6);
    let mut x = s.clone();
    steps::fi2(&mut x, l, amax);
    v.push(x.clone());
    steps::fi3_from_fi2(&mut x);
    v.extend(ck_points(&x));
    steps::fik_from_fi3(&mut x, l);
    v.push(x.clone());
    x.sync_all();
    v.push(x);
    v
}

/// `CkPt s` (`SCFTL.Impl.Model`): the crash points of a full checkpoint,
/// `ck1 s`, `ck2 s`, `ck3 s`.
pub fn ck_points(s: &St) -> Vec<St> {
    let mut x = s.clone();
    steps::ck1(&mut x);
    let a = x.clone();
    steps::ck2_from_ck1(&mut x);
    let b = x.clone();
    steps::ck3_from_ck2(&mut x);
    vec![a, b, x]
}
