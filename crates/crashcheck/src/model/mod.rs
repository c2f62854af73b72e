//! A Rust transcription of the Agda model P of the SCFTL algorithm
//! (proofs/SCFTL/Impl/, issue 17), used as a second, differential oracle
//! (`scftl crashtest --oracle model`).
//!
//! What it is: P's state and step functions (`state`, `steps`), its crash
//! over-approximation and crash points (`crash`), its representation
//! invariant as an executable check (`invariant`), and the oracle that runs
//! P next to the real FTL and compares them (`oracle`). Every function's
//! doc comment names the Agda definition it transcribes (module and name);
//! proofs/README.md, "The SCFTL model P", maps the Agda steps to the Rust
//! FTL's functions, so this module links the two by execution.
//!
//! What it promises: with `ModelMutant::None` each step is its Agda
//! definition (representation choices are listed in `state`); the oracle
//! accepts a real run only if every state the FTL recovers to is one P's
//! crash + recovery allows, and the observable parts of `AR` hold between
//! operations. Each [`ModelMutant`] has a test showing the oracle catches
//! it (tests/model_oracle.rs), so the comparison is not vacuous.
//!
//! P's flush is the one-sync digest commit (issue 39): the committed delta
//! page carries the epoch digest, one SYNC commits, and recovery replays
//! from the newest committed page whose digest verifies on the flash.
//! Delta pages carry epoch ids: a committed page activates only tentative
//! pages of its own epoch, and recovery either writes a full checkpoint
//! or, if it dropped no committed page (`clean`), goes on in the same
//! region with an epoch id above every id on it.
//!
//! P's in-page and OOB commits (docs/FORMAT.md §4.8–4.9) are transcribed
//! too (`steps`: `in_p`, `oob_p`, `fi2`–`fi4`; recovery's walk from the
//! link, `rview`; `Quiet`; their RI fields), and the refinement oracle
//! (`refine`) steps them for SCFTL's in-page and OOB commits. Their crash
//! points (`FiPt`, `FoPt`: `crash::record_points`) and the record slots'
//! crash outcomes, with recovery applying or rejecting the record the walk
//! finds, are enumerated (`crash::outcomes`), so the model oracle's P
//! commits in a record slot wherever its guards allow
//! (`OracleConfig::records`). PL, P with the lazy chain the code runs
//! (`lazy`: the lazy commit, the consolidation page before the next
//! region page, recovery walking the chain, the guarded erase), is
//! transcribed too, and is the model oracle's model by default
//! (`OracleConfig::chain`). Of PU, P with the epoch barrier without
//! SYNC, the barrier step, recovery's in-order check of the unsynced
//! epochs and the crash outcomes after barriers are transcribed
//! (`unsynced`), and the oracle takes barriers that way.
//!
//! What it is not: a model of the Rust code's geometry, block reuse,
//! digest chaining, epoch barriers (as steps) or trim records (see
//! `oracle` and proofs/README.md for the list).

pub mod crash;
pub mod invariant;
pub mod lazy;
pub mod oracle;
pub mod refine;
pub mod state;
pub mod steps;
pub mod unsynced;

pub use oracle::{ModelOracle, OracleConfig};

/// Seeded bugs in the transcription, to show the differential check fails
/// when the model is wrong (each changes one step; see `steps`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ModelMutant {
    /// The transcription as proven.
    #[default]
    None,
    /// `fl2` programs the committed delta page without the delta buffer's
    /// pairs (its digest unchanged): the flush does not persist the
    /// epoch's last mappings.
    FlushForgetsDeltas,
    /// `rec0` keeps the crashed state's volatile L2P instead of the
    /// recovered one.
    RecoveryKeepsVolatile,
    /// `wr0` does not count the write (`wcnt` stays).
    WriteSkipsCounter,
    /// PL's GC erases without its guard (`PLwith (λ _ _ → ⊤)`, mutant 31
    /// of the proofs, `SCFTL.Mutants.LazyChainEraseUnguarded`): a page a
    /// record of the chain names may be erased, and recovery's walk then
    /// stops at that record, losing the chain's epochs although they were
    /// SYNCed. The model allows less than the code recovers.
    ChainEraseUnguarded,
    /// PU's barrier without SYNC releases the epoch's GC victims (the
    /// invalid queue joins the erasable one) as P's flush does after its
    /// SYNC — mutant 25 of the proofs (`SCFTL.Mutants.BarrierReleasesVictims`).
    /// GC may then erase a page the stable L2P still maps, which a crash
    /// falling back to before the barrier reads. P's erase is not durable
    /// before a SYNC, so the model's crash outcomes still include the page
    /// intact and SCFTL's recoveries stay among them: only the checks of
    /// `Check` steps see it (PU's `SmI`, and `AR.stb` with nothing in
    /// flight applied, which reads the page erased).
    BarrierReleasesVictims,
    /// PU's barrier without SYNC takes the epoch's map as the stable L2P
    /// (`smap := l2p`, as P's flush does after its SYNC). Nothing a crash
    /// or a read shows depends on `smap` while an epoch is unsynced (P's
    /// RI is checked of the state virtually synced, which sets `smap`
    /// anyway), so only the checks of `Check` steps see it: PU's `BI`
    /// (`rx`: the durable part replays to `smap`), checked of the state
    /// itself, and `AR.stb` with nothing in flight applied (the last
    /// SYNC's image, not the barrier's).
    BarrierAdvancesStable,
    /// PU's barrier without SYNC releases the GC victims that the stable
    /// L2P does not map (the invalid queue's pages outside `smap` join the
    /// erasable one), so PU's `SmI` still holds; but an earlier barrier's
    /// epoch, still unsynced, may map such a page, and a crash that
    /// recovers to that barrier reads it. As for the victims of mutant 25,
    /// P's erase is not durable before a SYNC, so SCFTL's recoveries stay
    /// among the model's outcomes, and the stable probe reads the last
    /// SYNC's image or the last barrier's, neither of which maps the page:
    /// only PU's ghost invariant `GhU` sees it (`GhD`: a page a pending
    /// snapshot's map names is erasable), checked at `Check` steps.
    BarrierReleasesOlderVictims,
    /// The SYNC outside a commit (PUS's `syS`) releases every invalid
    /// page, not only those the new stable L2P does not map — mutant 40
    /// of the proofs (`SCFTL.Mutants.SyncReleasesMappedVictim`): a page
    /// the open epoch's GC freed, which the stable L2P still maps, becomes
    /// erasable before the commit that stops mapping it. P's erase is not
    /// durable before the next SYNC, so SCFTL's recoveries stay among the
    /// model's outcomes: only the checks of `Check` steps see it (PU's
    /// `SmI` while the page waits in the erasable queue; once erased,
    /// `SyI`, P's `RI.eOK` or `AR.stb`, which reads it erased).
    SyncReleasesMappedVictims,
    /// The sync behind whose ticket proves only the oldest epochs (PUSB's
    /// `syB`, `unsynced::sync_oldest`) proves one epoch more than the
    /// device counts — mutant 41 of the proofs
    /// (`SCFTL.Mutants.TicketProvesLaterEpoch`): the model lands and
    /// stabilises the epoch a later barrier ended while the SYNC ran, so a
    /// power cut that loses that epoch recovers an image the model no
    /// longer allows (`--sync-behind`, whose held tickets run it).
    SyncBehindProvesLaterEpoch,
}

impl ModelMutant {
    pub const ALL: [ModelMutant; 9] = [
        ModelMutant::FlushForgetsDeltas,
        ModelMutant::RecoveryKeepsVolatile,
        ModelMutant::WriteSkipsCounter,
        ModelMutant::ChainEraseUnguarded,
        ModelMutant::BarrierReleasesVictims,
        ModelMutant::BarrierAdvancesStable,
        ModelMutant::BarrierReleasesOlderVictims,
        ModelMutant::SyncReleasesMappedVictims,
        ModelMutant::SyncBehindProvesLaterEpoch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ModelMutant::None => "none",
            ModelMutant::FlushForgetsDeltas => "model-flush-forgets-deltas",
            ModelMutant::RecoveryKeepsVolatile => "model-recovery-keeps-volatile",
            ModelMutant::WriteSkipsCounter => "model-write-skips-counter",
            ModelMutant::ChainEraseUnguarded => "model-chain-erase-unguarded",
            ModelMutant::BarrierReleasesVictims => "model-barrier-releases-victims",
            ModelMutant::BarrierAdvancesStable => "model-barrier-advances-stable",
            ModelMutant::BarrierReleasesOlderVictims => "model-barrier-releases-older-victims",
            ModelMutant::SyncReleasesMappedVictims => "model-sync-releases-mapped-victims",
            ModelMutant::SyncBehindProvesLaterEpoch => "model-sync-behind-proves-later-epoch",
        }
    }

    pub fn parse(s: &str) -> Option<ModelMutant> {
        std::iter::once(ModelMutant::None)
            .chain(ModelMutant::ALL)
            .find(|m| m.name() == s)
    }
}

#[cfg(test)]
mod tests {
    //! The concrete runs of `SCFTL.Impl.Example`, executed on the
    //! transcription, the crash enumeration checked against brute force,
    //! and the RI check on good and broken states.

    use std::collections::{BTreeMap, BTreeSet};
    use std::rc::Rc;

    use super::crash::{self, ImgChoice};
    use super::invariant::check_ri;
    use super::lazy;
    use super::state::{Addr, Cell, Data, Dg, Map, Mc, Page, St, Val};
    use super::steps;
    use super::ModelMutant::None as M;

    const AMAX: Addr = 7;

    /// `Example.agda` `s1`: format (`NewP`), recover.
    fn s1() -> St {
        let mut s = steps::new_p();
        steps::recover(&mut s, AMAX, M, true).unwrap();
        check_ri(&s, AMAX).unwrap();
        s
    }

    /// `Example.agda` `s4`: `s1`, w(0, true), flush, then w(0, false)
    /// programming its merge buffer and a tentative delta page (`true` is
    /// version 1, `false` version 2).
    fn example() -> St {
        let mut s = s1();
        steps::wr0(&mut s, 0, 1, M);
        check_ri(&s, AMAX).unwrap();
        steps::fl3(&mut s, AMAX, M);
        check_ri(&s, AMAX).unwrap();
        assert_eq!(s.rd_stable(0), Val::Known(1));
        steps::wr0(&mut s, 0, 2, M);
        steps::opt(&mut s, true, true);
        check_ri(&s, AMAX).unwrap();
        assert_eq!(s.rd(0), Val::Known(2));
        assert_eq!(s.rd_stable(0), Val::Known(1));
        s
    }

    /// `ck3 (rec0 b g C s)` for the checkpoint `pick` finds, and what
    /// address `a` reads then (and, where `clean` allows it, the same
    /// after `rec0 b g C s` alone).
    fn recover_reads(s: &St, a: Addr) -> Val {
        let mut r = s.clone();
        steps::recover(&mut r, AMAX, M, true).unwrap();
        check_ri(&r, AMAX).unwrap();
        let pk = steps::pick(s.cp_l.cur(), s.cp_o.cur()).unwrap();
        if steps::clean_st(pk.gen, s) {
            let mut v = s.clone();
            steps::recover(&mut v, AMAX, M, false).unwrap();
            check_ri(&v, AMAX).unwrap();
            assert_eq!(v.rd(a), r.rd(a));
        }
        r.rd(a)
    }

    /// `syncAll`, as a function.
    fn synced(s: &St) -> St {
        let mut x = s.clone();
        x.sync_all();
        x
    }

    #[test]
    fn example_crash_after_the_tentative_page_recovers_the_flushed_value() {
        // crash4 / run6: every pending program of s4 landed (s5).
        let s = example();
        assert_eq!(recover_reads(&synced(&s), 0), Val::Known(1));
        assert_eq!(recover_reads(&synced(&s), 1), Val::Known(0));
        // ...and so does every other outcome of this crash point.
        for o in crash::outcomes(&s) {
            let img = crash::recovered_image(&s, &o, M);
            assert_eq!(img.get(&0), Some(&Val::Known(1)));
        }
        // The same through an explicit choice: every metadata page new.
        let all_new = ImgChoice {
            cp_l: 0,
            cp_o: 0,
            dr: s.dr.iter().map(|m| usize::from(!m.is_syn())).collect(),
            rcd: BTreeMap::new(),
            data: BTreeMap::new(),
        };
        let mut c = crash::img(&s, &all_new);
        steps::recover(&mut c, AMAX, M, true).unwrap();
        assert_eq!(c.rd(0), Val::Known(1));
        check_ri(&c, AMAX).unwrap();
    }

    #[test]
    fn example_flush_crash_before_its_sync() {
        let s4 = example();
        let mut f = s4.clone();
        steps::fl2(&mut f, AMAX, M);
        // crash7 / run9: everything landed (s8): the digest verifies, the
        // commit activates the tentative page.
        let s8 = synced(&f);
        assert_eq!(recover_reads(&s8, 0), Val::Known(2));
        // digest-names-page-1, commit-landed
        let dg = steps::dg_of(&s4, AMAX);
        let t: Rc<[(Addr, Page)]> = Rc::from(vec![(0, 1)]);
        assert_eq!(
            dg,
            Dg {
                data: vec![(1, 2, 0)],
                tents: vec![t],
                link: 2,
            }
        );
        assert_eq!(
            s8.dr.last(),
            Some(&Mc::Syn(Cell::Dlt {
                gen: 1,
                ep: 2,
                pairs: Rc::from(Vec::new()),
                committed: true,
                dg: Rc::new(dg),
            }))
        );
        // crash10 / run11: the committed page landed, page 1 did not
        // (erased): the digest fails, the old epoch.
        let mut s10 = s8.clone();
        s10.set_page(1, Mc::Syn(Cell::Erased));
        assert_eq!(recover_reads(&s10, 0), Val::Known(1));
        // crash12 / run13: the committed page and page 1 landed, the
        // tentative page torn: the digest fails, the old epoch.
        let mut s12 = s8.clone();
        let n = s12.dr.len();
        s12.dr[n - 2] = Mc::Syn(Cell::Junk);
        assert_eq!(recover_reads(&s12, 0), Val::Known(1));
        // Every outcome of the crash point fl2 s4: both snapshots, never
        // more; the new one with page 1 pinned to its sector.
        let pts = crash::flush_points(&s4, AMAX, M);
        assert_eq!(pts.len(), 5);
        let fl2 = &pts[0];
        let seen: BTreeSet<String> = crash::outcomes(fl2)
            .iter()
            .map(|o| format!("{:?}", crash::recovered_image(fl2, o, M).get(&0)))
            .collect();
        let want: BTreeSet<String> = [Some(Val::Known(1)), Some(Val::Known(2))]
            .iter()
            .map(|v| format!("{:?}", v.as_ref()))
            .collect();
        assert_eq!(seen, want);
        for (i, p) in pts.iter().enumerate() {
            check_outcomes(p, &format!("flush point {i}"));
        }
    }

    #[test]
    fn flush_forgets_deltas_loses_the_last_mappings() {
        // The mutant that forgets the delta buffer cannot reach version 9
        // from the committed page when the pair was not tentative.
        let mut t = s1();
        steps::wr0(&mut t, 3, 9, M);
        let mutant = super::ModelMutant::FlushForgetsDeltas;
        let mut u = t.clone();
        steps::fl3(&mut u, AMAX, mutant);
        let o = crash::outcomes(&u);
        assert_eq!(o.len(), 1);
        assert_eq!(crash::recovered_image(&u, &o[0], mutant).get(&3), None);
        assert!(check_ri(&u, AMAX).unwrap_err().contains("RI.cmX"));
        steps::fl3(&mut t, AMAX, M);
        let o = crash::outcomes(&t);
        assert_eq!(
            crash::recovered_image(&t, &o[0], M).get(&3),
            Some(&Val::Known(9))
        );
    }

    #[test]
    fn example_digest_leaves_out_overridden_sectors() {
        // u1..u6: write, GC relocation, flush, GC erase, crash, recover.
        let mut u = s1();
        steps::wr0(&mut u, 0, 1, M);
        assert!(steps::valid(&u, 0, AMAX));
        assert!(steps::rl0(&mut u, 0));
        // digest-left-in-place
        assert_eq!(
            steps::dg_of(&u, AMAX),
            Dg {
                data: vec![(1, 1, 0)],
                tents: vec![],
                link: 2,
            }
        );
        steps::fl3(&mut u, AMAX, M);
        check_ri(&u, AMAX).unwrap();
        steps::es_f(&mut u, 0);
        check_ri(&u, AMAX).unwrap();
        check_outcomes(&u, "u4");
        let u5 = synced(&u);
        // reads-durable-epoch
        assert_eq!(recover_reads(&u5, 0), Val::Known(1));
        // all-programmed-digest-would-fail
        assert!(!steps::ver_d(|p| u5.cur_cell(p), &[(1, 1, 0), (0, 1, 0)]));
        assert!(steps::ver_d(|p| u5.cur_cell(p), &[(1, 1, 0)]));
    }

    /// `okP recover` allows the recovery of `s` from generation `g`
    /// without a full checkpoint: `clean` and `Quiet`.
    fn may_skip(g: u64, s: &St) -> bool {
        steps::clean_st(g, s) && steps::quiet(g, s)
    }

    /// Every outcome `crash::outcomes` lists is realised by its witness
    /// (`pick`, `recMap` and `clean` ∧ `Quiet` on `img m choice` give its
    /// checkpoint, L2P and whether the checkpoint may be skipped), and the
    /// recMaps are exactly those of a brute-force walk over every metadata
    /// choice (record slots included) and every content of the unsettled
    /// data pages the region's and the records' digests name (their named
    /// sectors, or junk), one that may skip the checkpoint among them
    /// wherever the walk finds one.
    fn check_outcomes(m: &St, what: &str) {
        check_outcomes_walking(m, what, 1);
    }

    /// [`check_outcomes`] with recovery walking chains of up to `bound`
    /// records (`crash::outcomes_walking`, PL's `recMapL`); with `bound >
    /// 1` (PL, which always checkpoints) `clean` is not compared.
    fn check_outcomes_walking(m: &St, what: &str, bound: u64) {
        let rec_map = |g, c: &Map, w: &St| lazy::rec_map_l(bound, g, c, w);
        let skip = |g, w: &St| bound == 1 && may_skip(g, w);
        let outs = crash::outcomes_walking(m, bound);
        let mut got = BTreeSet::new();
        let mut got_clean = BTreeSet::new();
        for o in &outs {
            let w = crash::img(m, &o.choice);
            let pk = steps::pick(w.cp_l.cur(), w.cp_o.cur()).unwrap();
            assert_eq!(pk, o.picked, "{what}");
            assert_eq!(rec_map(pk.gen, &pk.l2p, &w), o.rec, "{what}");
            if bound == 1 {
                assert_eq!(steps::rec_map(pk.gen, &pk.l2p, &w), o.rec, "{what}");
            }
            assert_eq!(skip(pk.gen, &w), o.clean && bound == 1, "{what}");
            got.insert((pk.gen, o.rec.clone()));
            if o.clean && bound == 1 {
                got_clean.insert((pk.gen, o.rec.clone()));
            }
        }
        // brute force
        let opts = |mc: &Mc| crash::crash_c(mc);
        let (ls, os) = (opts(&m.cp_l), opts(&m.cp_o));
        let pages: Vec<Vec<Cell>> = m.dr.iter().map(opts).collect();
        let slots: Vec<(Page, Vec<Cell>)> = m
            .rcd
            .iter()
            .filter(|(_, mc)| !mc.is_syn())
            .map(|(&p, mc)| (p, opts(mc)))
            .collect();
        let records = m
            .rcd
            .values()
            .map(Mc::cur)
            .chain(slots.iter().flat_map(|(_, v)| v));
        let mut named: BTreeMap<Page, Vec<Cell>> = BTreeMap::new();
        for c in pages.iter().flatten().chain(records) {
            if let Cell::Dlt { dg, .. } = c {
                for &(p, d, a) in &dg.data {
                    let unsettled = matches!(
                        m.dat.get(&p),
                        Some(Mc::Uns(..)) | Some(Mc::Syn(Cell::Unknown))
                    );
                    if unsettled {
                        let v = named.entry(p).or_insert_with(|| vec![Cell::Junk]);
                        if !v.contains(&Cell::D { d, a }) {
                            v.push(Cell::D { d, a });
                        }
                    }
                }
            }
        }
        let named: Vec<(Page, Vec<Cell>)> = named.into_iter().collect();
        let mut want = BTreeSet::new();
        let mut want_clean = BTreeSet::new();
        let mut dims: Vec<usize> = vec![ls.len(), os.len()];
        dims.extend(pages.iter().map(Vec::len));
        dims.extend(slots.iter().map(|(_, v)| v.len()));
        dims.extend(named.iter().map(|(_, v)| v.len()));
        let total: usize = dims.iter().product();
        assert!(total <= 1 << 16, "{what}: {total} combinations");
        for mut i in 0..total {
            let mut idx = Vec::with_capacity(dims.len());
            for d in &dims {
                idx.push(i % d);
                i /= d;
            }
            let Some(pk) = steps::pick(&ls[idx[0]], &os[idx[1]]) else {
                continue;
            };
            let mut w = m.clone();
            w.sync_all();
            for (k, pg) in w.dr.iter_mut().enumerate() {
                *pg = Mc::Syn(pages[k][idx[2 + k]].clone());
            }
            let base = 2 + pages.len();
            for (k, (p, v)) in slots.iter().enumerate() {
                w.rcd.insert(*p, Mc::Syn(v[idx[base + k]].clone()));
            }
            let base = base + slots.len();
            for (k, (p, v)) in named.iter().enumerate() {
                w.dat.insert(*p, Mc::Syn(v[idx[base + k]].clone()));
            }
            let rec = (pk.gen, rec_map(pk.gen, &pk.l2p, &w));
            if skip(pk.gen, &w) {
                want_clean.insert(rec.clone());
            }
            want.insert(rec);
        }
        assert_eq!(got, want, "{what}");
        assert_eq!(got_clean, want_clean, "{what}: clean");
    }

    #[test]
    fn crash_outcomes_match_brute_force() {
        // A longer epoch: several tentative pages, GC, a flush crashing
        // before its SYNC, a flush with a full checkpoint.
        let mut s = s1();
        for a in 0..4 {
            steps::wr0(&mut s, a, 10 + a as u32, M);
            steps::opt(&mut s, a % 2 == 1, true);
            check_outcomes(&s, "write");
        }
        steps::fl3(&mut s, AMAX, M);
        for a in 0..3 {
            steps::wr0(&mut s, a, 20 + a as u32, M);
            steps::opt(&mut s, a == 1, a != 1);
        }
        check_ri(&s, AMAX).unwrap();
        assert!(steps::rl0(&mut s, 3));
        steps::opt(&mut s, true, true);
        check_ri(&s, AMAX).unwrap();
        check_outcomes(&s, "after GC");
        for (i, p) in crash::flush_points(&s, AMAX, M).iter().enumerate() {
            check_outcomes(p, &format!("flush point {i}"));
        }
        steps::fl3(&mut s, AMAX, M);
        steps::ck3(&mut s);
        check_ri(&s, AMAX).unwrap();
        check_outcomes(&s, "after the checkpoint");
        // A recovery's crash points.
        let pk = steps::pick(s.cp_l.cur(), s.cp_o.cur()).unwrap();
        let mut r = s.clone();
        steps::rec0(&mut r, &pk, AMAX, M);
        for (i, p) in crash::ck_points(&r).iter().enumerate() {
            check_outcomes(p, &format!("recovery point {i}"));
        }
        // Recovery without a full checkpoint from a crash with a pending
        // epoch, then a new epoch over its leftovers.
        let mut t = s.clone();
        steps::wr0(&mut t, 4, 30, M);
        steps::opt(&mut t, true, true);
        steps::wr0(&mut t, 5, 31, M);
        steps::opt(&mut t, true, true);
        let mut t = synced(&t);
        steps::recover(&mut t, AMAX, M, false).unwrap();
        check_ri(&t, AMAX).unwrap();
        check_outcomes(&t, "after a recovery without a checkpoint");
        steps::wr0(&mut t, 4, 32, M);
        steps::opt(&mut t, true, true);
        check_outcomes(&t, "a new epoch over leftovers");
        for (i, p) in crash::flush_points(&t, AMAX, M).iter().enumerate() {
            check_outcomes(p, &format!("leftovers, flush point {i}"));
        }
    }

    /// `Example.agda` `reclaims-crashed-page`, `run6e`,
    /// `reads-after-reclaim`: recovery from `s5` (the crash of `s4`, its
    /// data page and tentative page landed, no commit) makes page 1, which
    /// the crashed write programmed and the recovered map does not name,
    /// erasable (`reclaim`), page 0 not; erasing page 1 changes no read.
    /// And RI's `eOK` is checked of the reclaimed pages: a rule that named
    /// the mapped page 0 fails it.
    #[test]
    fn example_recovery_reclaims_the_crashed_page() {
        let mut s6 = synced(&example());
        steps::recover(&mut s6, AMAX, M, true).unwrap();
        check_ri(&s6, AMAX).unwrap();
        assert!(s6.erasable(1) && !s6.erasable(0) && s6.nxt == 2);
        assert_eq!(s6.erasable_pages().into_iter().collect::<Vec<_>>(), vec![1]);
        let mut e = s6.clone();
        steps::es_f(&mut e, 1);
        assert!(!e.erasable(1));
        check_ri(&e, AMAX).unwrap();
        assert_eq!(e.rd(0), s6.rd(0));
        assert_eq!(e.rd(0), Val::Known(1));
        let mut bad = s6.clone();
        bad.rcl.named.remove(&0);
        let why = check_ri(&bad, AMAX).unwrap_err();
        assert!(why.contains("RI.eOK: erasable page 0"), "{why}");
    }

    /// `Example.agda` `v1`…`v6`: from `s5` (the crash of `s4`, its
    /// tentative page of epoch 2 landed, no commit of epoch 2) recovery
    /// without a full checkpoint (`runV1`: `clean`), the leftover page on
    /// the flash, epoch id 3 (`resumes-above`), allocation past page 1
    /// (`allocates-past-leftovers`); w(1, false) and a flush in the same
    /// generation (`same-generation`); a crash with everything landed and
    /// a recovery with (`v6`) or without (`v5`) a checkpoint: the leftover
    /// page of epoch 2 stays inert, address 0 reads `true`
    /// (`leftover-inert`, `leftover-inert-ck`).
    #[test]
    fn example_leftover_inert() {
        let s5 = synced(&example());
        let pk = steps::pick(s5.cp_l.cur(), s5.cp_o.cur()).unwrap();
        assert!(steps::clean_st(pk.gen, &s5));
        // runV1: v1 = rec0 true 1 unmapped s5
        let mut v1 = s5.clone();
        steps::recover(&mut v1, AMAX, M, false).unwrap();
        check_ri(&v1, AMAX).unwrap();
        let t: Rc<[(Addr, Page)]> = Rc::from(vec![(0, 1)]);
        // leftover-on-flash
        assert_eq!(
            v1.dr.last(),
            Some(&Mc::Syn(Cell::Dlt {
                gen: 1,
                ep: 2,
                pairs: t,
                committed: false,
                dg: Rc::new(Dg::default()),
            }))
        );
        assert_eq!(v1.ep, 3); // resumes-above
        assert_eq!(v1.nxt, 2); // allocates-past-leftovers
        assert_eq!(v1.rd(0), Val::Known(1));
        // runV2, runV3
        let mut v3 = v1.clone();
        steps::wr0(&mut v3, 1, 2, M);
        steps::opt(&mut v3, false, false);
        check_ri(&v3, AMAX).unwrap();
        steps::fl3(&mut v3, AMAX, M);
        check_ri(&v3, AMAX).unwrap();
        assert_eq!(v3.gen, 1); // same-generation
        assert_eq!(v3.rd_stable(0), Val::Known(1));
        assert_eq!(v3.rd_stable(1), Val::Known(2));
        // crashV3: v4 = syncAll v3; runV5 (without), runV6 (with)
        let v4 = synced(&v3);
        let pk = steps::pick(v4.cp_l.cur(), v4.cp_o.cur()).unwrap();
        assert!(steps::clean_st(pk.gen, &v4));
        let mut v5 = v4.clone();
        steps::recover(&mut v5, AMAX, M, false).unwrap();
        check_ri(&v5, AMAX).unwrap();
        let mut v6 = v4.clone();
        steps::recover(&mut v6, AMAX, M, true).unwrap();
        check_ri(&v6, AMAX).unwrap();
        assert_eq!(v5.rd(0), Val::Known(1)); // leftover-inert
        assert_eq!(v6.rd(0), Val::Known(1)); // leftover-inert-ck
        assert_eq!(v5.rd(1), Val::Known(2));
        assert_eq!(v6.rd(1), Val::Known(2));
        // Without epoch ids the commit of epoch 3 would have activated the
        // leftover of epoch 2 (0 ↦ page 1, version 2): it does not, on
        // any crash outcome of the flush either.
        for (i, p) in crash::flush_points(&v3, AMAX, M)
            .iter()
            .chain(
                crash::flush_points(
                    &{
                        let mut x = v1.clone();
                        steps::wr0(&mut x, 1, 2, M);
                        x
                    },
                    AMAX,
                    M,
                )
                .iter(),
            )
            .enumerate()
        {
            for o in crash::outcomes(p) {
                let img = crash::recovered_image(p, &o, M);
                assert_eq!(img.get(&0), Some(&Val::Known(1)), "point {i}");
            }
            check_outcomes(p, &format!("leftover flush point {i}"));
        }
        // A recovery that drops a committed page is not clean.
        let mut f = v1.clone();
        steps::wr0(&mut f, 1, 2, M);
        steps::fl2(&mut f, AMAX, M);
        let mut f = synced(&f);
        f.set_page(2, Mc::Syn(Cell::Erased));
        assert!(!steps::clean_st(1, &f));
        assert!(steps::recover(&mut f.clone(), AMAX, M, false).is_err());
        assert_eq!(recover_reads(&f, 1), Val::Known(0));
    }

    #[test]
    fn crash_outcomes_match_brute_force_on_unusual_regions() {
        // Not reachable by P's steps, but the enumeration is exact on any
        // state: a durable committed page above an unsynced one, both
        // naming the same unsynced data page; a symbolic page left by an
        // earlier crash named by a digest.
        let mut s = s1();
        steps::wr0(&mut s, 0, 1, M);
        steps::wr0(&mut s, 1, 2, M);
        steps::fl2(&mut s, AMAX, M);
        check_outcomes(&s, "fl2");
        let top = s.dr.last().unwrap().cur().clone();
        let mut x = s.clone();
        x.dr.push(Mc::Syn(top.clone()));
        check_outcomes(&x, "durable commit above an unsynced one");
        x.set_page(1, Mc::Syn(Cell::Unknown));
        check_outcomes(&x, "and a symbolic page");
        let mut y = s.clone();
        y.set_page(0, Mc::Syn(Cell::D { d: 7, a: 0 }));
        y.dr.push(Mc::Syn(top));
        check_outcomes(&y, "a durable page contradicting the digest");
        // A second epoch's commit over the first's, both unsynced.
        let mut z = s.clone();
        steps::wr0(&mut z, 2, 3, M);
        steps::opt(&mut z, true, true);
        steps::wr0(&mut z, 0, 4, M);
        steps::fl2(&mut z, AMAX, M);
        check_outcomes(&z, "two unsynced commits");
    }

    #[test]
    fn ri_rejects_broken_states() {
        let s = example();
        let mut b = s.clone();
        b.smap.insert(5, 0);
        assert!(check_ri(&b, AMAX).unwrap_err().starts_with("RI."));
        let mut b = s.clone();
        b.ers.insert(*s.l2p.get(&0).unwrap());
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.eOK"));
        let mut b = s.clone();
        b.l2p.insert(6, b.nxt + 3);
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.vm"));
        let mut b = s.clone();
        b.ept.clear();
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.regEq"));
        let mut b = s.clone();
        b.ept[0] = Rc::from(vec![(0, 2)]);
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.tEq"));
        // tEq: the tentative page must carry the current epoch id
        let mut b = s.clone();
        b.ep += 1;
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.tEq"));
        // cmP: a durable tentative page of the current epoch is pending
        let mut b = synced(&s);
        b.ept.clear();
        b.l2p = b.smap.clone();
        b.dbuf.clear();
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.cmP"));
        // cmV: the digest's page no longer durably holds its sector
        let mut b = s.clone();
        b.set_page(0, Mc::Syn(Cell::Junk));
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.cmV"));
        let mut b = s;
        b.gen += 1;
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.slotL"));
    }

    #[test]
    fn gc_relocation_and_erase_keep_ri() {
        let mut s = s1();
        for a in 0..4 {
            steps::wr0(&mut s, a, 10 + a as u32, M);
        }
        steps::fl3(&mut s, AMAX, M);
        steps::wr0(&mut s, 0, 20, M);
        // page 0 is no longer valid, page 1 is
        assert!(!steps::valid(&s, 0, AMAX));
        assert!(steps::valid(&s, 1, AMAX));
        steps::rl_x(&mut s, 0);
        assert!(steps::rl0(&mut s, 1));
        check_ri(&s, AMAX).unwrap();
        assert_eq!(s.rd(1), Val::Known(11));
        steps::fl3(&mut s, AMAX, M);
        assert!(s.ers.contains(&0) && s.ers.contains(&1));
        steps::es_f(&mut s, 0);
        steps::es_f(&mut s, 1);
        check_ri(&s, AMAX).unwrap();
        // a crash now (erases in flight) recovers the flushed state
        for o in crash::outcomes(&s) {
            let img = crash::recovered_image(&s, &o, M);
            assert_eq!(img.get(&0), Some(&Val::Known(20)));
            assert_eq!(img.get(&1), Some(&Val::Known(11)));
        }
        check_outcomes(&s, "erases in flight");
    }

    /// `Example.agda` `x1`: `s3` (w(0, true), flush: its committed page
    /// links page 1), then w(0, false) placed at page 1 and left in the
    /// merge buffer, no tentative page.
    fn x1() -> St {
        let mut s = s1();
        steps::wr0(&mut s, 0, 1, M);
        steps::fl3(&mut s, AMAX, M);
        // link-of-last-commit
        assert_eq!(s.lnk, Some(1));
        steps::wr0(&mut s, 0, 2, M);
        check_ri(&s, AMAX).unwrap();
        s
    }

    #[test]
    fn example_in_page_commit() {
        let x1 = x1();
        // in-page-allowed (and no OOB commit: page 1 is the merge buffer's)
        assert!(steps::in_p(&x1, 1));
        assert!(!steps::in_p(&x1, 0));
        assert!(!steps::oob_p(&x1, 1, 1));
        let mut f = x1.clone();
        steps::fi2(&mut f, 1, AMAX);
        // region-untouched, record-in-page-1
        assert_eq!(f.dr, x1.dr);
        assert_eq!(
            f.rcd_cur(1),
            &Cell::Dlt {
                gen: 1,
                ep: 2,
                pairs: Rc::from(vec![(0, 1)]),
                committed: true,
                dg: Rc::new(Dg {
                    data: vec![(1, 2, 0)],
                    tents: vec![],
                    link: 2,
                }),
            }
        );
        // x2: a crash before the SYNC with everything landed. follows-link:
        // the record is replayed over the region.
        let x2 = synced(&f);
        let view = steps::rview(1, &x2);
        assert_eq!(view.len(), x2.dr.len() + 1);
        assert_eq!(view.last(), Some(&x2.rcd_cur(1)));
        // reads-inpage-commit-after-crash (x3), must-checkpoint: the record
        // of the generation lies at the link, so no recovery without one.
        let mut x3 = x2.clone();
        steps::recover(&mut x3, AMAX, M, true).unwrap();
        assert_eq!(x3.rd(0), Val::Known(2));
        assert!(steps::clean_st(1, &x2));
        assert!(!steps::quiet(1, &x2));
        assert!(steps::recover(&mut x2.clone(), AMAX, M, false).is_err());
        // x4: page 1 lost, the record landed: record-fails-its-digest,
        // reads-old-epoch-after-torn-inpage (x5).
        let mut x4 = x2.clone();
        x4.dat.remove(&1);
        assert_eq!(steps::rview(1, &x4).len(), x4.dr.len());
        let mut x5 = x4.clone();
        steps::recover(&mut x5, AMAX, M, true).unwrap();
        assert_eq!(x5.rd(0), Val::Known(1));
        // x6: the record slot not programmed: quiet, so x7 recovers without
        // a checkpoint and reads the flushed value.
        let mut x6 = x2.clone();
        x6.rcd.clear();
        assert!(steps::quiet(1, &x6));
        let mut x7 = x6.clone();
        steps::recover(&mut x7, AMAX, M, false).unwrap();
        assert_eq!(x7.rd(0), Val::Known(1));
        check_ri(&x7, AMAX).unwrap();
        // x8 = ck3 (fi3 1 x1): reads-after-inpage-flush; ck3 links nothing.
        let mut x8 = f.clone();
        steps::fi3_from_fi2(&mut x8);
        assert_eq!(x8.lnk, None);
        steps::ck3(&mut x8);
        assert_eq!(x8.rd(0), Val::Known(2));
        assert_eq!(x8.rd_stable(0), Val::Known(2));
        assert_eq!(x8.lnk, None);
        // fi4: the consolidation page (the record) on the region, synced,
        // the link to the next fresh page; recovery from it needs no
        // checkpoint (the record at page 1 lies below the consolidation
        // page's link, 2, and below the pages the region names) and reads
        // the committed value.
        let mut x9 = x1.clone();
        steps::fi4(&mut x9, 1, AMAX);
        assert_eq!(x9.lnk, Some(2));
        assert_eq!(x9.dr.last().map(Mc::cur), Some(x9.rcd_cur(1)));
        assert!(x9.dr.iter().chain(x9.rcd.values()).all(Mc::is_syn));
        assert_eq!(x9.rd_stable(0), Val::Known(2));
        assert!(steps::quiet(1, &x9));
        check_ri(&x9, AMAX).unwrap();
        check_ri(&x8, AMAX).unwrap();
        let mut r = x9.clone();
        steps::recover(&mut r, AMAX, M, false).unwrap();
        assert_eq!(r.rd(0), Val::Known(2));
        check_ri(&r, AMAX).unwrap();
        // The RI fields of the record slots and the link, each broken once.
        let rec = x9.rcd_cur(1).clone();
        let mut bad = x9.clone();
        bad.rcd.insert(1, Mc::Uns(Cell::Erased, rec.clone()));
        assert!(check_ri(&bad, AMAX).unwrap_err().contains("RI.rcOK"));
        let mut bad = x9.clone();
        bad.rcd.insert(5, Mc::Syn(rec.clone()));
        assert!(check_ri(&bad, AMAX).unwrap_err().contains("RI.rcN"));
        let mut bad = x9.clone();
        steps::wr0(&mut bad, 1, 4, M);
        check_ri(&bad, AMAX).unwrap();
        bad.rcd.insert(2, Mc::Syn(rec));
        assert!(check_ri(&bad, AMAX).unwrap_err().contains("RI.rcL"));
        let mut bad = x9.clone();
        bad.lnk = Some(7);
        assert!(check_ri(&bad, AMAX).unwrap_err().contains("RI.lkOK"));
    }

    /// The crash points of in-page and OOB commits (`FiPt`, `FoPt`) and
    /// the states after them: `crash::outcomes` against the brute force,
    /// record slots included, and what the records make recovery read.
    #[test]
    fn crash_outcomes_with_records_match_brute_force() {
        let x1 = x1();
        assert_eq!(crash::commit_page(&x1), Some(1));
        let pts = crash::record_points(&x1, 1, AMAX);
        assert_eq!(pts.len(), 6);
        for (i, p) in pts.iter().enumerate() {
            check_outcomes(p, &format!("in-page point {i}"));
        }
        // fi2: the old epoch (record or page 1 lost) or the new one (both
        // landed; a record applied, so the checkpoint may not be skipped).
        let outs = crash::outcomes(&pts[0]);
        let seen: BTreeSet<String> = outs
            .iter()
            .map(|o| {
                let v = crash::recovered_image(&pts[0], o, M).get(&0).copied();
                format!("{v:?} {}", o.clean)
            })
            .collect();
        let want = |v: Data, skip: bool| format!("{:?} {skip}", Some(Val::Known(v)));
        assert!(seen.contains(&want(1, true)), "{seen:?}");
        assert!(seen.contains(&want(2, false)), "{seen:?}");
        assert!(!seen.contains(&want(2, true)), "{seen:?}");
        // A crash during the recovery from fi2 with the record landed and
        // page 1 unknown (symbolic): the record may be applied or, if page
        // 1 holds junk, rejected.
        let mut landed = outs
            .iter()
            .find(|o| o.choice.rcd.get(&1) == Some(&1))
            .expect("an outcome with the record landed")
            .choice
            .clone();
        landed.data.clear();
        let mut w = crash::img(&pts[0], &landed);
        assert_eq!(w.cur_cell(1), &Cell::Unknown);
        let pk = steps::pick(w.cp_l.cur(), w.cp_o.cur()).unwrap();
        steps::rec0(&mut w, &pk, AMAX, M);
        for (i, p) in crash::ck_points(&w).iter().enumerate() {
            check_outcomes(p, &format!("recovery from fi2, point {i}"));
        }
        // fiK: the consolidation page lost, the walk from the older link
        // still finds the record; or landed.
        let fik = &pts[4];
        for o in crash::outcomes(fik) {
            assert_eq!(
                crash::recovered_image(fik, &o, M).get(&0),
                Some(&Val::Known(2))
            );
        }
        // Writes after fi4, a second in-page commit at the new link, and
        // its crash points; then a crash mid-write with two records on
        // flash.
        let mut s = pts[5].clone();
        steps::wr0(&mut s, 1, 5, M);
        check_outcomes(&s, "a write after fi4");
        let l = crash::commit_page(&s).unwrap();
        assert_eq!(l, 2);
        for (i, p) in crash::record_points(&s, l, AMAX).iter().enumerate() {
            check_outcomes(p, &format!("second in-page point {i}"));
        }
        steps::fi4(&mut s, l, AMAX);
        steps::wr0(&mut s, 0, 6, M);
        steps::opt(&mut s, true, false);
        check_outcomes(&s, "two records, a page in flight");
        // A full checkpoint after the in-page commit (CkPt (fi3 L s)): the
        // records stay, of an older generation.
        let mut c = x1.clone();
        steps::fi2(&mut c, 1, AMAX);
        steps::fi3_from_fi2(&mut c);
        steps::ck3(&mut c);
        steps::wr0(&mut c, 2, 7, M);
        check_outcomes(&c, "after ck3 (fi3 1 x1)");
        for (i, p) in crash::flush_points(&c, AMAX, M).iter().enumerate() {
            check_outcomes(p, &format!("flush after the checkpoint, point {i}"));
        }
        // OOB: the run 1..=2, record in page 2's slot.
        let mut o = x1.clone();
        steps::opt(&mut o, true, false);
        steps::wr0(&mut o, 1, 3, M);
        assert_eq!(crash::commit_page(&o), Some(2));
        for (i, p) in crash::record_points(&o, 2, AMAX).iter().enumerate() {
            check_outcomes(p, &format!("OOB point {i}"));
        }
        // fi2 of the OOB commit: page 1 was programmed before the flush
        // (unsynced still), so the new epoch needs both pages.
        let f = &crash::record_points(&o, 2, AMAX)[0];
        let both: BTreeSet<String> = crash::outcomes(f)
            .iter()
            .map(|x| {
                let img = crash::recovered_image(f, x, M);
                format!("{:?} {:?}", img.get(&0), img.get(&1))
            })
            .collect();
        let k = |v: Data| Some(Val::Known(v));
        let old = format!("{:?} {:?}", k(1).as_ref(), None::<&Val>);
        let new = format!("{:?} {:?}", k(2).as_ref(), k(3).as_ref());
        assert!(both.contains(&old), "{both:?}");
        assert!(both.contains(&new), "{both:?}");
        assert_eq!(both.len(), 2, "{both:?}");
    }

    /// `St::drop_older_records` is inert: after a full checkpoint and
    /// after a recovery, the crash outcomes (checkpoint, recovered map,
    /// whether the checkpoint may be skipped, image) and the recovery of
    /// a state are the same with the older generations' records put back.
    #[test]
    fn dropping_older_records_changes_no_outcome() {
        let x1 = x1();
        let mut s = x1.clone();
        steps::fi4(&mut s, 1, AMAX);
        let old_records = s.rcd.clone();
        assert_eq!(old_records.len(), 1);
        // A full checkpoint, then an in-page commit of the new generation
        // at a link from a region commit, and writes in flight.
        steps::ck3(&mut s);
        assert!(s.rcd.is_empty());
        steps::wr0(&mut s, 0, 8, M);
        steps::fl3(&mut s, AMAX, M);
        steps::wr0(&mut s, 1, 9, M);
        let l = crash::commit_page(&s).unwrap();
        let mut points = crash::record_points(&s, l, AMAX);
        points.push(s.clone());
        let summary = |m: &St| -> BTreeSet<String> {
            crash::outcomes(m)
                .iter()
                .map(|o| {
                    let img = crash::recovered_image(m, o, M);
                    format!("{:?} {:?} {} {img:?}", o.picked, o.rec, o.clean)
                })
                .collect()
        };
        for (i, p) in points.iter().enumerate() {
            let mut with_old = p.clone();
            for (q, r) in &old_records {
                with_old.rcd.entry(*q).or_insert_with(|| r.clone());
            }
            assert_ne!(with_old.rcd, p.rcd, "point {i}");
            assert_eq!(summary(&with_old), summary(p), "point {i}");
            check_outcomes(&with_old, &format!("older records, point {i}"));
            let (mut a, mut b) = (with_old.clone(), p.clone());
            let full = steps::recover(&mut b, AMAX, M, false).is_err();
            steps::recover(&mut a, AMAX, M, full).unwrap();
            if full {
                steps::recover(&mut b, AMAX, M, true).unwrap();
            }
            assert_eq!(a.rcd, b.rcd, "point {i}: rec0 drops them");
            assert_eq!(a.l2p, b.l2p, "point {i}");
        }
    }

    /// `LazyChainExample.agda`'s runs of the lazy commit, on the
    /// transcription of PL (`lazy`), with chains of up to `K` records.
    #[test]
    fn lazy_chain_example_runs() {
        const K: u64 = 32;
        let none = Map::new();
        // s1: an empty epoch committed in the region (link 0); s3, s5:
        // address 0 to page 0 and address 1 to page 1, each committed
        // lazily in its page's record slot.
        let mut s1 = steps::new_p();
        steps::fl3(&mut s1, AMAX, M);
        assert_eq!(s1.lnk, Some(0));
        let mut s3 = s1.clone();
        steps::wr0(&mut s3, 0, 1, M);
        assert_eq!(crash::commit_page(&s3), Some(0));
        assert!(lazy::lazy(K, &s3));
        lazy::fi_l(&mut s3, 0, AMAX);
        assert_eq!(s3.lnk, Some(1));
        let mut s5 = s3.clone();
        steps::wr0(&mut s5, 1, 1, M);
        let s4 = s5.clone();
        lazy::fi_l(&mut s5, 1, AMAX);
        // both-records, both-records-map
        assert_eq!(lazy::chain_of(K, &s5).len(), 2);
        let r = lazy::rec_map_l(K, 0, &none, &s5);
        assert_eq!((r.get(&0), r.get(&1)), (Some(&0), Some(&1)));
        // P's walk (one record) applies the first only
        assert_eq!(steps::rec_map(0, &none, &s5).get(&1), None);
        // P's RI holds with the chain virtually consolidated, not without
        check_ri(&lazy::virt_chain(K, &s5), AMAX).unwrap();
        assert!(check_ri(&s5, AMAX).is_err());
        let mut r5 = s5.clone();
        lazy::recover_l(&mut r5, AMAX, K, M).unwrap();
        assert_eq!((r5.rd(0), r5.rd(1)), (Val::Known(1), Val::Known(1)));
        check_ri(&r5, AMAX).unwrap();
        // crash-first-only: the second commit's record slot junk
        let mut c5 = s4.clone();
        steps::fi2(&mut c5, 1, AMAX);
        c5.sync_all();
        c5.rcd.insert(1, Mc::Syn(Cell::Junk));
        let r = lazy::rec_map_l(K, 0, &none, &c5);
        assert_eq!((r.get(&0), r.get(&1)), (Some(&0), None));
        // erase-breaks-chain: epoch 2 relocates page 0 to page 1 and
        // commits lazily; page 0 is erasable, but the guard keeps it
        let mut e5 = s3.clone();
        assert!(steps::rl0(&mut e5, 0));
        lazy::fi_l(&mut e5, 1, AMAX);
        assert_eq!(e5.smap.get(&0), Some(&1));
        assert!(e5.ers.contains(&0));
        assert!(!lazy::erase_guard(K, &e5, 0));
        let mut e6 = e5.clone();
        steps::es_f(&mut e6, 0);
        e6.sync_all();
        assert!(lazy::chain_of(K, &e6).is_empty());
        assert_eq!(lazy::rec_map_l(K, 0, &none, &e6).get(&0), None);
        // kons-landed: the next flush consolidates the chain first (one
        // page: both records' pairs, the newest's epoch id and link), then
        // commits in the region
        let mut s6 = s5.clone();
        steps::wr0(&mut s6, 1, 2, M);
        let k = lazy::kons_pg(K, &s6).unwrap();
        let Cell::Dlt { pairs, ep, dg, .. } = &k else {
            unreachable!()
        };
        // (the newest record is the epoch before s5's open one)
        assert_eq!(
            (&**pairs, *ep, dg.link),
            (&[(0, 0), (1, 1)][..], s5.ep - 1, 2)
        );
        let mut f = s6.clone();
        lazy::kons_s(K, &mut f);
        assert!(lazy::chain_of(K, &f).is_empty());
        check_ri(&f, AMAX).unwrap();
        steps::fl3(&mut f, AMAX, M);
        let r = lazy::rec_map_l(K, 0, &none, &f);
        assert_eq!((r.get(&0), r.get(&1)), (Some(&0), Some(&2)));
        // The crash outcomes of PL's points against brute force: the
        // second lazy commit's (fi2, fiL), the consolidation page's (konsI)
        // and the flush's after it, a recovery from the chain.
        let mut pts = Vec::new();
        let mut x = s4.clone();
        steps::fi2(&mut x, 1, AMAX);
        pts.push(x);
        pts.push(s5.clone());
        let mut x = s6.clone();
        lazy::kons_i(K, &mut x);
        pts.push(x);
        pts.extend(crash::flush_points(&f, AMAX, M));
        let pk = steps::pick(s5.cp_l.cur(), s5.cp_o.cur()).unwrap();
        let mut x = s5.clone();
        lazy::rec0_l(&mut x, &pk, AMAX, K, M);
        pts.extend(crash::ck_points(&x));
        for (i, p) in pts.iter().enumerate() {
            check_outcomes_walking(p, &format!("PL point {i}"), K);
        }
        // at fi2 of the second commit: the first record's epoch or both
        let both: BTreeSet<String> = crash::outcomes_walking(&pts[0], K)
            .iter()
            .map(|o| {
                let img = crash::recovered_image(&pts[0], o, M);
                format!("{:?} {:?}", img.get(&0), img.get(&1))
            })
            .collect();
        let k1 = Some(Val::Known(1));
        let first = format!("{:?} {:?}", k1.as_ref(), None::<&Val>);
        let all = format!("{:?} {:?}", k1.as_ref(), k1.as_ref());
        assert!(both.contains(&first) && both.contains(&all), "{both:?}");
        assert_eq!(both.len(), 2, "{both:?}");
    }

    #[test]
    fn oob_commit_and_the_walk_from_the_link() {
        // After s3 (link 1): w(0, false) at page 1, programmed before the
        // flush; w(1, v3) at page 2, in the merge buffer. The run 1..=2
        // commits in the OOB of its last page, 2.
        let mut s = x1();
        steps::opt(&mut s, true, false);
        steps::wr0(&mut s, 1, 3, M);
        check_ri(&s, AMAX).unwrap();
        assert!(!steps::in_p(&s, 1));
        assert!(steps::oob_p(&s, 1, 2));
        assert!(!steps::oob_p(&s, 1, 1));
        assert!(steps::run_p(1, &s.dbuf));
        assert!(!steps::run_p(2, &s.dbuf));
        let mut f = s.clone();
        steps::fi2(&mut f, 2, AMAX);
        // The walk from the link passes the empty slot of page 1 and finds
        // the record in page 2's: both sectors recover.
        let landed = synced(&f);
        assert_eq!(
            steps::seek(1, steps::OMAX, |p| landed.rcd_cur(p), 1),
            Some(2)
        );
        let mut r = landed.clone();
        steps::recover(&mut r, AMAX, M, true).unwrap();
        assert_eq!((r.rd(0), r.rd(1)), (Val::Known(2), Val::Known(3)));
        // Page 1's sector lost: the record's digest fails, neither does.
        let mut torn = landed.clone();
        torn.dat.remove(&1);
        let mut r = torn.clone();
        steps::recover(&mut r, AMAX, M, true).unwrap();
        assert_eq!((r.rd(0), r.rd(1)), (Val::Known(1), Val::Known(0)));
        // A record of an older generation at page 1 is passed over too; a
        // record of this generation there stops the walk (and, not the next
        // epoch's commit, is not applied).
        let mut old = landed.clone();
        let rec = old.rcd_cur(2).clone();
        let Cell::Dlt { ep, pairs, dg, .. } = rec.clone() else {
            unreachable!()
        };
        old.rcd.insert(
            1,
            Mc::Syn(Cell::Dlt {
                gen: 0,
                ep,
                pairs: pairs.clone(),
                committed: true,
                dg: dg.clone(),
            }),
        );
        assert_eq!(steps::seek(1, steps::OMAX, |p| old.rcd_cur(p), 1), Some(2));
        let mut stop = landed.clone();
        stop.rcd.insert(
            1,
            Mc::Syn(Cell::Dlt {
                gen: 1,
                ep: ep + 5,
                pairs,
                committed: true,
                dg,
            }),
        );
        assert_eq!(steps::seek(1, steps::OMAX, |p| stop.rcd_cur(p), 1), Some(1));
        let mut r = stop.clone();
        steps::recover(&mut r, AMAX, M, true).unwrap();
        assert_eq!(r.rd(0), Val::Known(1));
        // A record of a newer generation stops the walk as well (`stp`:
        // generation g or newer), and is no commit of this one.
        let newer = {
            let mut n = landed.clone();
            let c = stop.rcd_cur(1).clone();
            let Cell::Dlt { ep, pairs, dg, .. } = c else {
                unreachable!()
            };
            n.rcd.insert(
                1,
                Mc::Syn(Cell::Dlt {
                    gen: 2,
                    ep,
                    pairs,
                    committed: true,
                    dg,
                }),
            );
            n
        };
        assert_eq!(
            steps::seek(1, steps::OMAX, |p| newer.rcd_cur(p), 1),
            Some(1)
        );
        let mut r = newer.clone();
        steps::recover(&mut r, AMAX, M, true).unwrap();
        assert_eq!(r.rd(1), Val::Known(0));
        // fi4 commits both.
        let mut c = s.clone();
        steps::fi4(&mut c, 2, AMAX);
        assert_eq!(
            (c.rd_stable(0), c.rd_stable(1)),
            (Val::Known(2), Val::Known(3))
        );
        assert_eq!(c.lnk, Some(3));
        check_ri(&c, AMAX).unwrap();
    }
}
