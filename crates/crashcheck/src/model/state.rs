//! The model's state and its primitive page operations: a transcription of
//! the definitions at the top of `SCFTL.Impl.Model` (maps, the digest `Dg`,
//! `Cell`, `MC`, `St`, `put`, `sync`, the reads `pv`/`rd`/`p2l`, the digest
//! check's `holds`) and of `rdS` from `SCFTL.Impl.Invariants`.
//!
//! Representation choices (each stands for the Agda total function it
//! names, and changes nothing observable):
//! - `Map` is a sparse `BTreeMap`; an absent key is Agda's `nothing`.
//! - `dat` holds only pages that are not `syn erased`; an absent page is
//!   `syn erased` (in Agda pages past `nxt` hold arbitrary cells, and the
//!   model only reads pages some map refers to). So does `rcd`, the record
//!   slots (`NewP`: every slot `syn erased`).
//! - `dr`, `ept`, delta pairs and the digest's lists are kept **oldest
//!   first** (Agda's lists are newest first); every function iterates
//!   accordingly (the order of a digest's data entries is irrelevant:
//!   `verD` is a conjunction).
//! - `unsynced` is a superset of the pages whose `dat` entry is `uns`, so a
//!   SYNC costs the pages touched since the last one, not the whole flash.
//! - Data is a sector version (`crate::data`): `0` is `d0` (zeros).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A logical address (`Addr`).
pub type Addr = u64;
/// A physical page number (the `ℕ` that indexes `dat`).
pub type Page = u64;
/// Sector contents: a version; `D0` is `d0`.
pub type Data = u32;
/// `d0`, the contents of a never-written sector.
pub const D0: Data = 0;
/// Data no write wrote: what a crash-chosen page (`Cell::Unknown`) is
/// pinned to when the real device read it back as garbage. No run hands
/// out this version (the executor stops before the version space ends).
pub const GARBAGE: Data = u32::MAX;

/// `Map` (`SCFTL.Impl.Model`): an L2P table, logical address ↦ page.
pub type Map = BTreeMap<Addr, Page>;

/// `Dg` (`SCFTL.Impl.Model`): the epoch digest a committed delta page
/// carries (the one-sync commit, docs/FORMAT.md §4.3). `Dg::default()` is
/// `ε`, the empty digest of a tentative page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dg {
    /// The data pages the epoch leaves in place, each with the sector
    /// `(d, a)` it must hold: `(p, d, a)`.
    pub data: Vec<(Page, Data, Addr)>,
    /// The pairs of the epoch's tentative delta pages, oldest page first:
    /// the last one must be the page right below the committed one.
    pub tents: Vec<Rc<[(Addr, Page)]>>,
    /// The commit's link (docs/FORMAT.md §4.8): the page where the next
    /// epoch's first data page goes, whose record slot may hold the next
    /// epoch's in-page commit record (`nxt` when the digest was made).
    pub link: Page,
}

/// `Cell` (`SCFTL.Impl.Model`): what a page holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    Erased,
    /// Any content failing its CRC (`junk`).
    Junk,
    /// `dcell d a`: a data sector and its OOB logical address.
    D {
        d: Data,
        a: Addr,
    },
    /// `dlt gen epoch pairs committed? digest`; pairs oldest first.
    Dlt {
        gen: u64,
        /// The epoch id (delta.rs: grows at every commit).
        ep: u64,
        pairs: Rc<[(Addr, Page)]>,
        committed: bool,
        dg: Rc<Dg>,
    },
    /// `cpt gen l2p`: a full checkpoint.
    Cpt {
        gen: u64,
        l2p: Rc<Map>,
    },
    /// The `Σ Cell` of `CrashD`: a data page a crash left with *any*
    /// content, not yet observed. Symbolic: reading it yields
    /// [`Val::Any`]; the oracle replaces it by what the device read. A
    /// digest check on a concrete state ([`holds`]) takes it for content
    /// the digest does not name: the crash enumeration (`crash::outcomes`)
    /// sets every page whose check it lets pass to the named sector.
    Unknown,
}

/// `MC` (`SCFTL.Impl.Model`): a page with its sync status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mc {
    /// `syn c`: durable.
    Syn(Cell),
    /// `uns old new`: programmed or erased since the last SYNC.
    Uns(Cell, Cell),
}

impl Mc {
    /// `cur` (`SCFTL.Impl.Model`).
    pub fn cur(&self) -> &Cell {
        match self {
            Mc::Syn(c) | Mc::Uns(_, c) => c,
        }
    }

    /// `dur` (`SCFTL.Impl.Model`).
    pub fn dur(&self) -> &Cell {
        match self {
            Mc::Syn(c) | Mc::Uns(c, _) => c,
        }
    }

    /// `put c m = uns (dur m) c` (`SCFTL.Impl.Model`): an asynchronous
    /// PROGRAM or ERASE of the page.
    pub fn put(&self, c: Cell) -> Mc {
        Mc::Uns(self.dur().clone(), c)
    }

    /// `sync m = syn (cur m)` (`SCFTL.Impl.Model`).
    pub fn sync(&self) -> Mc {
        Mc::Syn(self.cur().clone())
    }

    pub fn is_syn(&self) -> bool {
        matches!(self, Mc::Syn(_))
    }
}

/// What a read returns in the model: a definite sector version, or any
/// content (a page the crash over-approximation left unconstrained).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    Known(Data),
    Any,
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Known(D0) => f.write_str("zeros"),
            Val::Known(GARBAGE) => f.write_str("garbage"),
            Val::Known(v) => write!(f, "version {v}"),
            Val::Any => f.write_str("any content"),
        }
    }
}

/// `cellD` (`SCFTL.Impl.Model`), with `Unknown` reading as any content.
pub fn cell_d(c: &Cell) -> Val {
    match c {
        Cell::D { d, .. } => Val::Known(*d),
        Cell::Unknown => Val::Any,
        _ => Val::Known(D0),
    }
}

/// `holds` (`SCFTL.Impl.Model`): page content `c` is the sector `(d, a)`
/// (exact comparison: the Rust's CRC, collisions modelled away). A
/// symbolic [`Cell::Unknown`] does not hold (see there).
pub fn holds(c: &Cell, d: Data, a: Addr) -> bool {
    matches!(c, Cell::D { d: e, a: b } if *e == d && *b == a)
}

/// The OOB address of a page that holds no data sector: `suc amax` in
/// `SCFTL.Impl.Model`, an address above every bound, which no map holds
/// (an erased page's OOB area reads all ones on the device, not sector 0).
pub const NO_SECTOR: Addr = Addr::MAX;

/// `oob` (`SCFTL.Impl.Model`): the OOB logical address of a page
/// ([`NO_SECTOR`] for anything but a data sector).
pub fn oob(c: &Cell) -> Addr {
    match c {
        Cell::D { a, .. } => *a,
        _ => NO_SECTOR,
    }
}

/// `St` (`SCFTL.Impl.Model`): flash (survives a crash, subject to `Img`),
/// memory (lost on a crash) and the ghost stable L2P.
#[derive(Clone, Debug)]
pub struct St {
    /// `dat`: data pages by page number; absent = `syn erased`.
    pub dat: BTreeMap<Page, Mc>,
    /// Pages that may be `uns` in `dat` (a superset; see the module doc).
    pub unsynced: Vec<Page>,
    /// `cpL`: the slot holding the live checkpoint.
    pub cp_l: Mc,
    /// `cpO`: the other (shadow) slot.
    pub cp_o: Mc,
    /// `dr`: the delta region, **oldest page first**.
    pub dr: Vec<Mc>,
    /// `rcd`: the in-page record slot of the flash page starting at data
    /// page p (docs/FORMAT.md §4.8); absent = `syn erased`.
    pub rcd: BTreeMap<Page, Mc>,
    /// `gen`: generation of the live checkpoint.
    pub gen: u64,
    /// `l2p`: the volatile L2P.
    pub l2p: Map,
    /// `mb`: the merge buffer, pages placed but not yet programmed.
    pub mb: BTreeMap<Page, (Data, Addr)>,
    /// `dbuf`: the delta buffer, oldest pair first.
    pub dbuf: Vec<(Addr, Page)>,
    /// `ept`: the pairs of this epoch's tentative delta pages, oldest page
    /// first (for the digest).
    pub ept: Vec<Rc<[(Addr, Page)]>>,
    /// `ep`: the current epoch id (incremented at each commit, `fl3`).
    pub ep: u64,
    /// `nxt`: the next fresh page.
    pub nxt: Page,
    /// `lnk`: the last commit's link, if the next flush may commit in-page.
    pub lnk: Option<Page>,
    /// `inv`: the invalid queue (relocated this epoch).
    pub inv: BTreeSet<Page>,
    /// `ers`: the erasable queue — these pages and those of `rcl`.
    pub ers: BTreeSet<Page>,
    /// The part of `ers` the last recovery made erasable (`rec0`'s
    /// `reclaim`), kept as a rule rather than a list: it names every page
    /// below recovery's next page, tens of thousands in a long run.
    pub rcl: Reclaimed,
    /// `wcnt` (W).
    pub wcnt: u64,
    /// `gcnt` (K).
    pub gcnt: u64,
    /// `smap`: ghost stable L2P (the algorithm never reads it).
    pub smap: Map,
}

/// `reclaim m n` of `SCFTL.Impl.Model` as `rec0` leaves it in `ers`: every
/// page below `below` that the recovered L2P does not name, less those an
/// erase (`esF`) took off the queue since.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reclaimed {
    /// Recovery's next page (`nxt` of `rec0`).
    pub below: Page,
    /// The pages the recovered L2P names (addresses `0..=amax`).
    pub named: BTreeSet<Page>,
    /// Pages of the rule an erase has taken off the queue since.
    pub out: BTreeSet<Page>,
}

impl Reclaimed {
    /// Whether `p` is on the queue by this rule.
    pub fn contains(&self, p: Page) -> bool {
        p < self.below && !self.named.contains(&p) && !self.out.contains(&p)
    }

    /// The pages on the queue by this rule, in order (as many as `below`:
    /// for small states).
    pub fn pages(&self) -> impl Iterator<Item = Page> + '_ {
        (0..self.below).filter(move |&p| self.contains(p))
    }
}

impl St {
    /// `ers s p`: whether `p` is on the erasable queue.
    pub fn erasable(&self, p: Page) -> bool {
        self.ers.contains(&p) || self.rcl.contains(p)
    }

    /// The erasable pages that may break RI's `eOK` or GcI's `ersI`
    /// (every erasable page below `nxt` and unmapped), given the pages the
    /// L2Ps map (`mapped`): the listed ones, and of the rule (`rcl`) those
    /// in `mapped` and the first one at or past `nxt` — no other page of
    /// the rule can.
    pub fn erasable_to_check<'a>(
        &'a self,
        mapped: impl IntoIterator<Item = Page> + 'a,
    ) -> impl Iterator<Item = Page> + 'a {
        let rule = mapped.into_iter().filter(|&p| self.rcl.contains(p));
        let past = (self.nxt..self.rcl.below).find(|&p| self.rcl.contains(p));
        self.ers.iter().copied().chain(rule).chain(past)
    }

    /// The erasable queue in page order (see [`Reclaimed::pages`]).
    pub fn erasable_pages(&self) -> BTreeSet<Page> {
        let mut all = self.ers.clone();
        all.extend(self.rcl.pages());
        all
    }

    /// `dat s p`.
    pub fn page(&self, p: Page) -> Mc {
        self.dat.get(&p).cloned().unwrap_or(Mc::Syn(Cell::Erased))
    }

    /// `cur (dat s p)` without cloning the page.
    pub fn cur_cell(&self, p: Page) -> &Cell {
        const ERASED: Cell = Cell::Erased;
        self.dat.get(&p).map_or(&ERASED, Mc::cur)
    }

    /// `cur (rcd s p)` without cloning the slot.
    pub fn rcd_cur(&self, p: Page) -> &Cell {
        const ERASED: Cell = Cell::Erased;
        self.rcd.get(&p).map_or(&ERASED, Mc::cur)
    }

    /// Sets `dat s p` (the `dat [ p ≔ m ]` of `esF`, `progm`).
    pub fn set_page(&mut self, p: Page, m: Mc) {
        if !m.is_syn() {
            self.unsynced.push(p);
        }
        if m == Mc::Syn(Cell::Erased) {
            self.dat.remove(&p);
        } else {
            self.dat.insert(p, m);
        }
    }

    /// `pv` (`SCFTL.Impl.Model`): a page as the FTL sees it, merge buffer
    /// first, then flash.
    pub fn pv(&self, p: Page) -> Cell {
        match self.mb.get(&p) {
            Some(&(d, a)) => Cell::D { d, a },
            None => self.cur_cell(p).clone(),
        }
    }

    /// `p2l` (`SCFTL.Impl.Model`): the OOB logical address of a page.
    pub fn p2l(&self, p: Page) -> Addr {
        match self.mb.get(&p) {
            Some(&(_, a)) => a,
            None => oob(self.cur_cell(p)),
        }
    }

    /// `rdm` (`SCFTL.Impl.Model`): a map entry read through the merge
    /// buffer and the flash.
    pub fn rdm(&self, mp: Option<Page>) -> Val {
        match mp {
            None => Val::Known(D0),
            Some(p) => match self.mb.get(&p) {
                Some(&(d, _)) => Val::Known(d),
                None => cell_d(self.cur_cell(p)),
            },
        }
    }

    /// `rd` (`SCFTL.Impl.Model`): the read of address `a`.
    pub fn rd(&self, a: Addr) -> Val {
        self.rdm(self.l2p.get(&a).copied())
    }

    /// `rdS s (smap s a)` (`SCFTL.Impl.Invariants`, used by `AR.stb`): what
    /// the stable L2P reads on the flash (no merge buffer).
    pub fn rd_stable(&self, a: Addr) -> Val {
        match self.smap.get(&a) {
            None => Val::Known(D0),
            Some(&p) => cell_d(self.cur_cell(p)),
        }
    }

    /// Forgets the records of generations below `gen` (not in P, whose
    /// record slots keep them): they are inert from here on. Every use of
    /// a slot looks only at records of the generation `pick` chose or
    /// newer (`stp`, `RLt`, `okR`), and `pick` never chooses one below
    /// `gen` again: the live slot holds a durable checkpoint of `gen`,
    /// and a full checkpoint only ever adds one of `gen + 1` (`ck1`) before
    /// it erases the old (`ck2`). Called where `gen` is set (`ck3`,
    /// `rec0`); it keeps states small, since P programs one record per
    /// in-page or OOB commit and never erases it.
    pub fn drop_older_records(&mut self) {
        let g = self.gen;
        self.rcd
            .retain(|_, m| matches!(m.cur(), Cell::Dlt { gen, .. } if *gen >= g));
    }

    /// `syncAll` (`SCFTL.Impl.Model`): SYNC of every page.
    pub fn sync_all(&mut self) {
        for p in std::mem::take(&mut self.unsynced) {
            if let Some(m) = self.dat.get(&p) {
                let s = m.sync();
                if s == Mc::Syn(Cell::Erased) {
                    self.dat.remove(&p);
                } else {
                    self.dat.insert(p, s);
                }
            }
        }
        self.cp_l = self.cp_l.sync();
        self.cp_o = self.cp_o.sync();
        for m in &mut self.dr {
            *m = m.sync();
        }
        for m in self.rcd.values_mut() {
            *m = m.sync();
        }
        self.rcd.retain(|_, m| *m != Mc::Syn(Cell::Erased));
    }
}

/// `apply` (`SCFTL.Impl.Model`): delta pairs applied to a map, the newest
/// (last) pair winning.
pub fn apply(pairs: &[(Addr, Page)], m: &mut Map) {
    for &(a, p) in pairs {
        m.insert(a, p);
    }
}
