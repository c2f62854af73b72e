//! The crash model of `SCFTL.Impl.Model` (`CrashC`, `CrashD`, `CrashL`,
//! `Img`), its crash points (`FlPt`, `CkPt`), and what recovery makes of
//! every crash outcome: the set the oracle compares a real recovery with.
//!
//! `Img m s'` relates a crash point `m` to every flash `s'` a power cut
//! there may leave: durable pages unchanged, an unsynced data page *any*
//! content (`CrashD`), an unsynced checkpoint slot or delta page its old
//! content, its new content or junk (`CrashC`). Data pages do not affect
//! which checkpoint and deltas recovery picks, so [`outcomes`] enumerates
//! only the metadata choices (at most 3 per unsynced slot or region page)
//! and keeps unsynced data pages symbolic ([`Cell::Unknown`]). It merges
//! choices that lead to the same (committed, tentative) replay, and drops
//! the tentative map once no newer page can commit, so the enumeration
//! stays small even with many unsynced tentative pages.

use std::collections::BTreeMap;

use super::state::{cell_d, Addr, Cell, Map, Mc, St, Val, D0};
use super::steps::{self, pick, rstep, Picked};
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

/// One `Img` choice for the metadata: an index into [`crash_c`] of each
/// slot and of each region page (oldest first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImgChoice {
    pub cp_l: usize,
    pub cp_o: usize,
    pub dr: Vec<usize>,
}

/// A recovery the model allows from a crash point: the metadata choice,
/// the checkpoint `pick` finds on that flash, and the L2P the replay
/// commits (`recMap`).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub choice: ImgChoice,
    pub picked: Picked,
    pub rec: Map,
}

/// The flash `s'` of `Img m s'` for one metadata choice (`SCFTL.Impl.Model`
/// `Img`, `CrashD` with unsynced data pages [`Cell::Unknown`]); the memory
/// (arbitrary in `Img`) is `m`'s.
pub fn img(m: &St, ch: &ImgChoice) -> St {
    let mut s = m.clone();
    for p in std::mem::take(&mut s.unsynced) {
        if let Some(Mc::Uns(..)) = s.dat.get(&p) {
            s.dat.insert(p, Mc::Syn(Cell::Unknown));
        }
    }
    s.cp_l = Mc::Syn(crash_c(&m.cp_l).swap_remove(ch.cp_l));
    s.cp_o = Mc::Syn(crash_c(&m.cp_o).swap_remove(ch.cp_o));
    for (i, pg) in s.dr.iter_mut().enumerate() {
        *pg = Mc::Syn(crash_c(pg).swap_remove(ch.dr[i]));
    }
    s
}

/// Could some crash outcome of this page be a committed delta page of
/// generation `g` (`¬ PM (NC g)`, `SCFTL.Impl.Lemmas`)?
fn may_commit(g: u64, m: &Mc) -> bool {
    let c = |c: &Cell| matches!(c, Cell::Dlt { gen, committed: true, .. } if *gen == g);
    match m {
        Mc::Syn(x) => c(x),
        Mc::Uns(o, n) => c(o) || c(n),
    }
}

/// Every distinct recovery from a crash at `m`: for each choice of the
/// slots' outcomes, `pick`; then the replay (`rp`, `recMap`) over every
/// choice of the region pages' outcomes (`CrashL`). A choice for which
/// `pick` finds no checkpoint has no recovery and is left out.
pub fn outcomes(m: &St) -> Vec<Outcome> {
    let (ls, os) = (crash_c(&m.cp_l), crash_c(&m.cp_o));
    let pages: Vec<Vec<Cell>> = m.dr.iter().map(crash_c).collect();
    let mut out = Vec::new();
    for (il, l) in ls.iter().enumerate() {
        for (io, o) in os.iter().enumerate() {
            let Some(pk) = pick(l, o) else { continue };
            let g = pk.gen;
            // may_from[i]: some page i.. may commit in generation g.
            let mut may_from = vec![false; m.dr.len() + 1];
            for i in (0..m.dr.len()).rev() {
                may_from[i] = may_from[i + 1] || may_commit(g, &m.dr[i]);
            }
            // (committed, tentative or None once irrelevant, choices)
            let mut states: Vec<(Map, Option<Map>, Vec<usize>)> =
                vec![((*pk.l2p).clone(), Some((*pk.l2p).clone()), Vec::new())];
            for (i, outs) in pages.iter().enumerate() {
                if !may_from[i] {
                    for st in &mut states {
                        st.1 = None;
                        st.2.resize(m.dr.len(), 0);
                    }
                    break;
                }
                let mut next: Vec<(Map, Option<Map>, Vec<usize>)> = Vec::new();
                for (com, ten, ch) in states {
                    for (k, c) in outs.iter().enumerate() {
                        let mut com2 = com.clone();
                        let mut ten2 = ten.clone().unwrap_or_default();
                        rstep(g, c, &mut com2, &mut ten2);
                        let ten2 = may_from[i + 1].then_some(ten2);
                        if next.iter().any(|(a, b, _)| *a == com2 && *b == ten2) {
                            continue;
                        }
                        let mut ch2 = ch.clone();
                        ch2.push(k);
                        next.push((com2, ten2, ch2));
                    }
                }
                states = next;
            }
            for (com, _, ch) in states {
                out.push(Outcome {
                    choice: ImgChoice {
                        cp_l: il,
                        cp_o: io,
                        dr: ch,
                    },
                    picked: pk.clone(),
                    rec: com,
                });
            }
        }
    }
    out
}

/// A device image: address ↦ value, zeros left out.
pub type Image = BTreeMap<Addr, Val>;

/// What every address reads after recovering from outcome `o` of a crash
/// at `m`: `rd (ck3 (rec0 b g C s'))` with `s' = img m o.choice`, computed
/// without building the state (the recovered memory has an empty merge
/// buffer and reads the L2P `rec0` builds through the settled data pages;
/// an unsynced data page reads as [`Val::Any`]).
pub fn recovered_image(m: &St, o: &Outcome, mutant: ModelMutant) -> Image {
    let l2p = if mutant == ModelMutant::RecoveryKeepsVolatile {
        &m.l2p
    } else {
        &o.rec
    };
    let mut img = Image::new();
    for (&a, &p) in l2p {
        let v = match m.dat.get(&p) {
            None => Val::Known(D0),
            Some(Mc::Syn(c)) => cell_d(c),
            Some(Mc::Uns(..)) => Val::Any,
        };
        if v != Val::Known(D0) {
            img.insert(a, v);
        }
    }
    img
}

/// `FlPt s` (`SCFTL.Impl.Model`): the crash points of a flush — `fl1 s`,
/// `fl2 s`, `fl3 s` and the points of a full checkpoint after it
/// (`CkPt (fl3 s)`), in that order.
pub fn flush_points(s: &St, mutant: ModelMutant) -> Vec<St> {
    let mut v = Vec::with_capacity(6);
    let mut x = s.clone();
    steps::fl1(&mut x);
    v.push(x.clone());
    steps::fl2_from_fl1(&mut x, mutant);
    v.push(x.clone());
    steps::fl3_from_fl2(&mut x);
    v.extend(ck_points(&x));
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
