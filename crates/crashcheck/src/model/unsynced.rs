//! Recovery over several unsynced barrier epochs, transcribed from
//! `SCFTL.Impl.UnsyncedEpochs` (issue 39): the first piece of PU, the
//! P-level model with the epoch barrier without SYNC, in the Rust model.
//!
//! With epoch barriers (docs/FORMAT.md §4.3; flush.rs `epoch_barrier`) the
//! delta region holds, above the part a SYNC made durable (the *proven*
//! part), the committed pages of the barrier epochs since the last SYNC,
//! each with its tentative pages below it, oldest epoch lowest. Recovery
//! (recovery.rs) checks every such epoch in order with P's `okC` and stops
//! at the first that fails, dropping it and every later one (`accU`). P's
//! own `acc` takes the newest committed page that verifies, which is sound
//! in P only because everything below a committed page was synced before
//! it was programmed; on a barrier region it can replay a later epoch over
//! an earlier one that did not land — a mix of epochs no barrier ever
//! showed (`UnsyncedEpochsExample.agda`'s `newest-only-mixes`, the
//! test `p_acc_mixes_barrier_epochs_where_acc_u_does_not`).
//!
//! The barrier step itself, `flB` of `SCFTL.Impl.UnsyncedBarrier`, is
//! [`fl_b`]; the test `barrier_crashes_recover_at_a_barrier` runs it and
//! checks recovery's in-order check on every crash outcome of the
//! barriers' pages by brute force (`barrier-crash-prefix`).
//!
//! [`crash_states_u`] reduces PU's crash outcomes to P's: one state per
//! number of epochs recovery accepts, on which P's `acc` accepts what
//! `accU` does, so `crash::outcomes` of those states serve PU
//! (`crash_states_u_give_p_the_outcomes_of_acc_u`).
//!
//! The model oracle (`super::oracle`) takes epoch barriers this way: `fl_b`
//! below `umax` unsynced epochs, region commits while one is unsynced,
//! crash candidates from [`crash_states_u`], [`sync_barriers`] for a SYNC
//! the FTL issues outside a commit, P's RI checked of the state with the
//! barriers' epochs virtually synced (it takes every committed page as
//! synced), PU's own invariants ([`check_gc_sm`], [`check_bi`]) of the
//! state itself, and `AR.stb` against the last SYNC's image or the last
//! barrier's, by the probe's policy.

use std::collections::BTreeSet;

use super::crash::Image;
use super::state::{apply, cell_d, oob, Addr, Cell, Map, Mc, Page, St, Val, D0};
use super::steps;
use super::ModelMutant;

/// `flB s` (`SCFTL.Impl.UnsyncedBarrier`): the epoch barrier without SYNC
/// (flush.rs `epoch_barrier`, docs/FORMAT.md §4.3 kind 5) — `fl2 s` (the
/// merge buffer and the committed delta page programmed, no SYNC), then
/// the next epoch: delta buffer and tentative pairs emptied, counters
/// reset, the next epoch id, no link. The invalid and erasable queues, the
/// ghost stable map `smap`, the checkpoint and record slots are kept
/// (`flB-queues`: only a SYNC releases them), and so is the read image
/// (`rd-flB`).
pub fn fl_b(s: &mut St, amax: Addr, mutant: ModelMutant) {
    steps::fl2(s, amax, mutant);
    s.dbuf.clear();
    s.ept.clear();
    s.wcnt = 0;
    s.gcnt = 0;
    s.ep += 1;
    s.lnk = None;
    if mutant == ModelMutant::BarrierAdvancesStable {
        s.smap = s.l2p.clone();
    }
    if mutant == ModelMutant::BarrierReleasesVictims {
        let inv = std::mem::take(&mut s.inv);
        s.ers.extend(inv);
    }
    if mutant == ModelMutant::BarrierReleasesOlderVictims {
        // the SYNC's release (`release_unmapped`) at a barrier without one
        release_unmapped(s);
    }
}

/// `UEp` (`SCFTL.Impl.UnsyncedEpochs`): an unsynced epoch on the region —
/// its committed page and its tentative pages, oldest first (in Agda
/// newest first), right below the committed page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uep {
    pub committed: Cell,
    pub tentative: Vec<Cell>,
}

/// `lay es pr` (`SCFTL.Impl.UnsyncedEpochs`): the region, oldest page
/// first, as a run of barriers leaves it — the proven part `pr`, then each
/// epoch of `es` (oldest first): its tentative pages, then its committed
/// page.
pub fn lay<'a>(es: &'a [Uep], pr: &[&'a Cell]) -> Vec<&'a Cell> {
    let mut v = pr.to_vec();
    for e in es {
        v.extend(e.tentative.iter());
        v.push(&e.committed);
    }
    v
}

/// `accU g D pr es` (`SCFTL.Impl.UnsyncedEpochs`, with `accB`): how many
/// epochs of `es` recovery accepts — each checked in order by `okC` at its
/// place (the pages below it: the proven part and the epochs accepted
/// before it, then its own tentative pages), the first failure ending the
/// check. The accepted region is `lay(&es[..k], pr)` (`accU-prefix`):
/// never a later epoch without every earlier one (`accU-stop`).
pub fn acc_u<'a>(g: u64, dat: impl Fn(Page) -> &'a Cell + Copy, pr: &[&Cell], es: &[Uep]) -> usize {
    let mut below: Vec<&Cell> = pr.to_vec();
    for (k, e) in es.iter().enumerate() {
        below.extend(e.tentative.iter());
        if !steps::ok_c(g, dat, &e.committed, &below) {
            return k;
        }
        below.push(&e.committed);
    }
    es.len()
}

/// The committed map of the replay from `st0 C` of the region `accU`
/// accepts (`proj₁ (rp g (accU g D pr es) (st0 C))`, as
/// `UnsyncedEpochsExample.agda` evaluates it; `rec-prefixP`: it is the
/// replay state at the proven part or at one of the barriers).
pub fn rec_map_u<'a>(
    g: u64,
    dat: impl Fn(Page) -> &'a Cell + Copy,
    c: &Map,
    pr: &[&Cell],
    es: &[Uep],
) -> Map {
    let k = acc_u(g, dat, pr, es);
    steps::rp(g, lay(&es[..k], pr), steps::st0(c)).com
}

/// `length (ues s)` (`SCFTL.Impl.UnsyncedBarrier`), read off the region:
/// the committed pages programmed since the last SYNC (`lay-ok`: PU's
/// region is `lay` of `ues` over the pages below the last SYNC). Between
/// operations these are the barriers' epochs since the last SYNC.
pub fn unsynced_commits(s: &St) -> usize {
    s.dr.iter().filter(|p| unsynced_commit(p)).count()
}

/// A committed delta page not yet durable: an unsynced epoch's commit
/// (`ue`'s page, `lay`'s top of each epoch).
fn unsynced_commit(p: &Mc) -> bool {
    matches!(
        p,
        Mc::Uns(
            _,
            Cell::Dlt {
                committed: true,
                ..
            }
        )
    )
}

/// Lands the region from its first unsynced page through page `last`,
/// with the data pages the committed ones' digests name (`landR` below
/// the pages that stay unsynced).
fn land_through(s: &mut St, last: usize) {
    let proven =
        s.dr.iter()
            .position(|p| matches!(p, Mc::Uns(..)))
            .unwrap_or(last);
    land(s, proven, last + 1);
}

/// Makes the region pages `proven..landed` of `s` durable as written:
/// each synced, and the data pages the committed ones' digests name
/// pinned to the named sectors (the epochs among them landed whole).
fn land(s: &mut St, proven: usize, landed: usize) {
    for i in proven..landed {
        let c = s.dr[i].cur().clone();
        if let Cell::Dlt {
            committed: true,
            dg,
            ..
        } = &c
        {
            for &(p, d, a) in &dg.data {
                if let Some(Mc::Uns(..)) = s.dat.get(&p) {
                    s.dat.insert(p, Mc::Syn(Cell::D { d, a }));
                }
            }
        }
        s.dr[i] = Mc::Syn(c);
    }
}

/// A SYNC the FTL issued outside a commit (before an erase while epochs
/// are unsynced, a sync behind barriers) as the model takes it: PUS's
/// step `syS` (`SCFTL.Impl.UnsyncedSync`, SB's `sy`). The barriers'
/// epochs become durable as written — the region up to the newest
/// committed page synced, the data pages their digests name synced — and
/// the stable map `smap` is the last barrier's, the replay of the region
/// recovery now reads (`recMap`; `bi-sync`: it is `lastMap`), so P's RI
/// holds again, and the link that epoch's committed page carries is the
/// state's (`lastLnk`: the code's `chain_link`, so an in-page or OOB
/// commit may follow, PUSi's `FiOk`). Then every invalid page the new
/// stable map does not map becomes erasable: the most `syS`'s guard
/// `Rel` allows, which covers the code's erase after its SYNC of the
/// superblocks the barriers' epochs freed. The open epoch's pages (above the newest committed
/// page, and its data pages) stay unsynced here, where `syU` syncs every
/// data page: fewer pages landed, so more crash outcomes, each one of
/// `syS`'s (a sync behind barriers may return before the open epoch's
/// later programs are durable, FORMAT.md §4.3, "Detached syncs").
pub fn sync_barriers(s: &mut St, mutant: ModelMutant) {
    land_barriers(s);
    if mutant == ModelMutant::SyncReleasesMappedVictims {
        let inv = std::mem::take(&mut s.inv);
        s.ers.extend(inv);
    }
    release_unmapped(s);
}

/// A sync behind whose ticket proves only the oldest `k` unsynced
/// epochs, as SCFTL's `note_ticket_sync` counts them (the epochs ended
/// after the ticket stay unsynced): PUSB's step `syB xs ys l r`
/// (`SCFTL.Impl.UnsyncedSyncBehind`, SB's `sy` of the oldest k pending
/// images). The region pages up to the k-th unsynced committed page and
/// the data pages those epochs' digests name become durable (`l`: the
/// new stable map's pages not durable yet, all below the k-th epoch's
/// link), the stable map is the replay of the region up to that page
/// (`lastMap` of the first k epochs); the later epochs' pages and the
/// link stay as they are, and nothing is released (`RelB` allows no
/// release; the code erases while epochs are unsynced only after a full
/// SYNC, [`sync_barriers`]). With every unsynced epoch proven it is
/// [`sync_barriers`].
pub fn sync_oldest(s: &mut St, k: usize, mutant: ModelMutant) {
    let k = if mutant == ModelMutant::SyncBehindProvesLaterEpoch {
        k + 1
    } else {
        k
    };
    if k >= unsynced_commits(s) {
        sync_barriers(s, mutant);
        return;
    }
    if k == 0 {
        return;
    }
    // the k-th unsynced committed page, oldest first
    let Some(last) =
        s.dr.iter()
            .enumerate()
            .filter(|(_, p)| unsynced_commit(p))
            .nth(k - 1)
            .map(|(i, _)| i)
    else {
        return;
    };
    land_through(s, last);
    if let Some(pk) = steps::pick(s.cp_l.cur(), s.cp_o.cur()) {
        let mut below = s.clone();
        below.dr.truncate(last + 1);
        s.smap = steps::rec_map(pk.gen, &pk.l2p, &below);
    }
}

/// `syS`'s release, the most its guard `Rel` allows: every invalid page
/// the stable map does not map moves to the erasable queue (mutant 40 of
/// the proofs, `SyncReleasesMappedVictim`, releases the others too).
fn release_unmapped(s: &mut St) {
    let mapped: BTreeSet<Page> = s.smap.values().copied().collect();
    let (free, keep): (BTreeSet<Page>, BTreeSet<Page>) =
        s.inv.iter().partition(|p| !mapped.contains(p));
    s.inv = keep;
    s.ers.extend(free);
}

/// `sync_barriers`' landing: the region up to the newest committed page
/// and the data pages the digests name, the stable map recomputed, and
/// the link the last barrier's committed page carries restored.
fn land_barriers(s: &mut St) {
    let Some(last) = s.dr.iter().rposition(unsynced_commit) else {
        return;
    };
    land_through(s, last);
    if let Some(pk) = steps::pick(s.cp_l.cur(), s.cp_o.cur()) {
        s.smap = steps::rec_map(pk.gen, &pk.l2p, s);
    }
    // `lastLnk`: the link the last barrier's committed page carries (the
    // code's `chain_link`), where an in-page or OOB commit may go next
    if let Cell::Dlt { dg, .. } = s.dr[last].cur() {
        s.lnk = Some(dg.link);
    }
}

/// `GcI s` and `SmI s` (`SCFTL.Impl.UnsyncedBarrier`): PU's invariants
/// of normal operation, checked of the state itself (not of it virtually
/// synced, as P's RI is with an epoch unsynced), for addresses
/// `0..=amax`. `GcI`: the L2P maps below the active pointer (`blw`), to
/// pages whose OOB names the address (`oobI`), and no page in the
/// erasable (`ersI`) or invalid (`invI`) queue is mapped or at or above
/// the active pointer (`Free`). `SmI`: the pages the stable L2P `smap`
/// maps are below the active pointer, not in the merge buffer, and not
/// erasable — so GC never erases a page a crash may fall back to, with
/// barriers' epochs unsynced too (the barrier keeps the queues,
/// `flB-queues`; a barrier that released them breaks `SmI`, the proofs'
/// mutant 25). On failure, names the first field that fails.
pub fn check_gc_sm(s: &St, amax: Addr) -> Result<(), String> {
    let mapped: std::collections::HashSet<Page> = s.l2p.range(..=amax).map(|(_, &p)| p).collect();
    for (&a, &p) in s.l2p.range(..=amax) {
        if p >= s.nxt {
            return Err(format!(
                "GcI.blw: the L2P maps sector {a} to page {p}, at or above the active pointer {}",
                s.nxt
            ));
        }
        let b = s.p2l(p);
        if b != a {
            return Err(format!(
                "GcI.oobI: the L2P maps sector {a} to page {p}, whose OOB names sector {b}"
            ));
        }
    }
    let not_free = |p: &Page| *p >= s.nxt || mapped.contains(p);
    let ers = s.erasable_to_check(mapped.iter().copied()).find(not_free);
    let inv = s.inv.iter().copied().find(not_free);
    for (field, q) in [("ersI", ers), ("invI", inv)] {
        if let Some(p) = q {
            return Err(format!(
                "GcI.{field}: page {p} is queued ({}) but not free: {}",
                if field == "ersI" {
                    "erasable"
                } else {
                    "invalid"
                },
                if p >= s.nxt {
                    format!("at or above the active pointer {}", s.nxt)
                } else {
                    "the L2P maps it".into()
                }
            ));
        }
    }
    for (&a, &p) in s.smap.range(..=amax) {
        if let Some(why) = not_ok(s, p) {
            return Err(format!(
                "SmI: the stable L2P maps sector {a} to page {p}, which is {why}"
            ));
        }
    }
    Ok(())
}

/// Why page `p` of `s` is not `Ok` (`SCFTL.Impl.UnsyncedImages`; the
/// pages of `SmI` too): a map a crash may fall back to may name only pages
/// below the active pointer, not in the merge buffer and not erasable.
fn not_ok(s: &St, p: Page) -> Option<String> {
    if p >= s.nxt {
        Some(format!("at or above the active pointer {}", s.nxt))
    } else if s.mb.contains_key(&p) {
        Some("in the merge buffer".into())
    } else if s.erasable(p) {
        Some("erasable".into())
    } else {
        None
    }
}

/// `BI s ues` (`SCFTL.Impl.UnsyncedBase`, with `DrEq`): the region is the
/// durable part the last SYNC left (`prM`, every page synced: `sy`), then
/// every unsynced epoch as `lay` writes it — its tentative pages, then its
/// committed page, epoch ids consecutive up to the one before the open
/// epoch's — then the open epoch's tentative pages, every page above the
/// durable part unsynced over an erased page (`dre`); the live slot holds
/// a durable checkpoint `C` of the generation (`slt`); the durable part
/// replays from `C` to the stable L2P `smap` (`rx`), with nothing pending
/// of the first unsynced epoch's id, else the open epoch's (`rf`, `fid`).
/// Checked of the state itself: P's RI with an epoch unsynced is checked
/// of the state virtually synced, whose `smap` is the last barrier's, so
/// only `rx` checks the real stable L2P then. On failure, names the first
/// field that fails.
pub fn check_bi(s: &St) -> Result<(), String> {
    let g = s.gen;
    let c = super::invariant::live_checkpoint(s, "BI.slt")?;
    // sy: prM is the durable prefix; dre: every page above it unsynced
    let j = s.dr.iter().position(|m| !m.is_syn()).unwrap_or(s.dr.len());
    if let Some(i) = s.dr[j..]
        .iter()
        .position(|m| !matches!(m, Mc::Uns(Cell::Erased, _)))
    {
        return Err(format!(
            "BI.dre: region page {} (oldest first), above the durable part's {j} pages, is not an unsynced page over an erased one: {:?}",
            j + i,
            s.dr[j + i]
        ));
    }
    let top = match s.dr.len().checked_sub(s.ept.len()) {
        Some(t) if t >= j => t,
        _ => {
            return Err(format!(
                "BI.dre: the epoch's {} tentative pages (ept) reach into the durable part's {j} pages of {}",
                s.ept.len(),
                s.dr.len()
            ))
        }
    };
    // dre: between them, `lay` of the unsynced epochs
    let mut first = None;
    let mut want = None;
    let mut closed = true;
    for (i, m) in s.dr[j..top].iter().enumerate() {
        let i = j + i;
        let (ep, committed) = match m.cur() {
            Cell::Dlt {
                gen, ep, committed, ..
            } if *gen == g => (*ep, *committed),
            other => {
                return Err(format!(
                    "BI.dre: region page {i}, in the unsynced epochs, is not a delta page of generation {g}: {other:?}"
                ))
            }
        };
        if let Some(w) = want.filter(|&w| w != ep) {
            return Err(format!(
                "BI.dre: region page {i} is of epoch {ep} where epoch {w}'s pages go"
            ));
        }
        first.get_or_insert(ep);
        want = Some(if committed { ep + 1 } else { ep });
        closed = committed;
    }
    if !closed {
        return Err(format!(
            "BI.dre: the unsynced epochs end in tentative pages without their committed page (region page {})",
            top - 1
        ));
    }
    if let Some(w) = want.filter(|&w| w != s.ep) {
        return Err(format!(
            "BI.dre: the last unsynced epoch is {}, not the one before the open epoch {}",
            w - 1,
            s.ep
        ));
    }
    // rx, rf
    let mt = steps::rp(g, s.dr[..j].iter().map(Mc::cur), steps::st0(&c));
    if mt.com != s.smap {
        let diff = mt
            .com
            .keys()
            .chain(s.smap.keys())
            .find(|a| mt.com.get(a) != s.smap.get(a))
            .map(|a| format!("sector {a}: {:?} vs {:?}", mt.com.get(a), s.smap.get(a)))
            .unwrap_or_default();
        return Err(format!(
            "BI.rx: the replay of the durable part ({j} pages) differs from the stable L2P (smap) at {diff}"
        ));
    }
    let fid = first.unwrap_or(s.ep);
    if *steps::rbase(fid, &mt) != mt.com {
        return Err(format!(
            "BI.rf: the replay of the durable part leaves tentative pages of epoch {fid} pending, the first unsynced epoch's (else the open one's)"
        ));
    }
    Ok(())
}

/// The image SB's barrier pushes onto its pending snapshots: what `s`
/// reads right after PU's barrier `flB` (`rd-flB`: the barrier keeps the
/// read image; its merge buffer is programmed, so the flash alone reads
/// it), zeros left out, for addresses `0..=amax`.
pub fn barrier_image(s: &St, amax: Addr) -> Image {
    s.l2p
        .range(..=amax)
        .map(|(&a, &p)| (a, s.rdm(Some(p))))
        .filter(|&(_, v)| v != Val::Known(D0))
        .collect()
}

/// `GhU s t` with `DgL` and `SyI` (`SCFTL.Impl.UnsyncedImages`): PU's
/// ghost invariant against SB's pending snapshots `pend` (oldest first,
/// each as [`barrier_image`] took it at its barrier), checked of the state
/// itself for addresses `0..=amax`. The unsynced epochs (read off the
/// region above its durable part, as [`check_bi`] checks it laid out: each
/// epoch's tentative pages, then its committed page) are as many as the
/// pending snapshots (`GhL`'s length cases: a barrier syncs in both or in
/// neither), and for the i-th, its map — the stable L2P `smap` with the
/// pairs of the first i epochs applied (`eM`: tentative pages first, then
/// the committed page's) — reads the i-th snapshot on the flash, through
/// pages below the active pointer, not in the merge buffer and not
/// erasable (`GhD`, `Ok`: GC may erase no page a crash may fall back to,
/// at any barrier); every pair of the epoch that its map keeps is in its
/// digest with the snapshot's content (`DgI`: what makes recovery's digest
/// check enough after a crash); the volatile L2P is the last epoch's map
/// with the open epoch's pairs (`VM`); and the pages `smap` maps are
/// synced data pages naming their sector (`SyI`). On failure, names the
/// first part that fails.
pub fn check_ghu(s: &St, pend: &[Image], amax: Addr) -> Result<(), String> {
    type Pairs = [(Addr, Page)];
    let j = s.dr.iter().position(|m| !m.is_syn()).unwrap_or(s.dr.len());
    let top = s.dr.len().saturating_sub(s.ept.len()).max(j);
    // the unsynced epochs: (tentative pages' pairs, committed page)
    let mut epochs: Vec<(Vec<&Pairs>, &Cell)> = Vec::new();
    let mut tents = Vec::new();
    for m in &s.dr[j..top] {
        if let c @ Cell::Dlt {
            pairs, committed, ..
        } = m.cur()
        {
            if *committed {
                epochs.push((std::mem::take(&mut tents), c));
            } else {
                tents.push(&pairs[..]);
            }
        }
    }
    if epochs.len() != pend.len() {
        return Err(format!(
            "GhU: {} unsynced epochs on the region, but SB has {} pending snapshots",
            epochs.len(),
            pend.len()
        ));
    }
    let want = |x: &Image, a: Addr| x.get(&a).copied().unwrap_or(Val::Known(D0));
    let agrees = |x: Val, v: Val| x == Val::Any || x == v;
    let mut m = s.smap.clone();
    for (i, ((tents, c), x)) in epochs.iter().zip(pend).enumerate() {
        let Cell::Dlt { pairs, dg, .. } = c else {
            unreachable!("epochs hold committed delta pages")
        };
        for ps in tents {
            apply(ps, &mut m);
        }
        apply(pairs, &mut m);
        // GhD, with Ok for every page the map names; an address it does
        // not map reads zeros
        for (&a, &p) in m.range(..=amax) {
            let got = cell_d(s.cur_cell(p));
            if !agrees(want(x, a), got) {
                return Err(format!(
                    "GhU.GhD: barrier {i}'s map (of {}) reads {got} at sector {a}, its snapshot {}",
                    pend.len(),
                    want(x, a)
                ));
            }
            if let Some(why) = not_ok(s, p) {
                return Err(format!(
                    "GhU.GhD: barrier {i}'s map (of {}) maps sector {a} to page {p}, which is {why}",
                    pend.len()
                ));
            }
        }
        if let Some((&a, &v)) = x
            .iter()
            .find(|&(a, &v)| !m.contains_key(a) && !agrees(v, Val::Known(D0)))
        {
            return Err(format!(
                "GhU.GhD: barrier {i}'s map (of {}) reads zeros at sector {a}, its snapshot {v}",
                pend.len()
            ));
        }
        // DgI
        for &(a, p) in pairs.iter().chain(tents.iter().flat_map(|ps| ps.iter())) {
            if a > amax || m.get(&a) != Some(&p) {
                continue;
            }
            let x_a = want(x, a);
            if !dg
                .data
                .iter()
                .any(|&(q, d, b)| q == p && b == a && agrees(x_a, Val::Known(d)))
            {
                return Err(format!(
                    "GhU.DgL: barrier {i}'s epoch keeps the pair (sector {a}, page {p}), which its digest does not list with {x_a}"
                ));
            }
        }
    }
    // VM
    for ps in &s.ept {
        apply(ps, &mut m);
    }
    apply(&s.dbuf, &mut m);
    if let Some(a) = m
        .keys()
        .chain(s.l2p.keys())
        .find(|a| m.get(a) != s.l2p.get(a))
    {
        return Err(format!(
            "GhU.VM: the volatile L2P maps sector {a} to {:?}, the last barrier's map with the open epoch's pairs to {:?}",
            s.l2p.get(a),
            m.get(a)
        ));
    }
    // SyI
    for (&a, &p) in s.smap.range(..=amax) {
        match s.dat.get(&p) {
            Some(Mc::Syn(c)) if oob(c) == a => {}
            // a page a crash left unobserved whose epoch recovery accepted:
            // its digest check verified it (the Rust keeps it symbolic)
            Some(Mc::Syn(Cell::Unknown)) => {}
            other => {
                return Err(format!(
                    "SyI: the stable L2P maps sector {a} to page {p}, which is not a synced data page naming it: {other:?}"
                ))
            }
        }
    }
    Ok(())
}

/// `RIe s ues` and `RIxG.lkOK` (`SCFTL.Impl.UnsyncedBridgeNormal`): what
/// P's RI will ask of each unsynced epoch once a SYNC makes it durable,
/// kept from the barrier that ended it. `Dig`: every entry `(p, d, a)` of
/// the epoch's digest names a sector in range that the epoch's map (the
/// stable L2P with the epochs up to it applied) maps to `p`, whose page
/// holds `(d, a)`; `AbC`: no record slot at or past the epoch's link holds
/// a record of this generation; and no link while an epoch is unsynced
/// (a barrier drops it: no in-page or OOB commit then). The oracle's
/// check of P's RI on the state virtually synced covers the LAST epoch
/// (`rixg-syS`); this covers every one, which a SYNC that proves only
/// the oldest epochs needs (`rixg-syB`). On failure, names the field.
pub fn check_rie(s: &St, amax: Addr) -> Result<(), String> {
    let j = s.dr.iter().position(|m| !m.is_syn()).unwrap_or(s.dr.len());
    let top = s.dr.len().saturating_sub(s.ept.len()).max(j);
    let mut m = s.smap.clone();
    let mut epochs = 0usize;
    for mc in &s.dr[j..top] {
        let Cell::Dlt {
            gen,
            ep,
            pairs,
            committed,
            dg,
        } = mc.cur()
        else {
            continue;
        };
        apply(pairs, &mut m);
        if !*committed {
            continue;
        }
        epochs += 1;
        for &(p, d, a) in &dg.data {
            if a > amax || m.get(&a) != Some(&p) {
                return Err(format!(
                    "RIe.Dig: the digest of unsynced epoch {ep} (generation {gen}) lists sector {a} at page {p}, which its map maps to {:?}",
                    m.get(&a)
                ));
            }
            match s.cur_cell(p) {
                Cell::D { d: e, a: b } if *e == d && *b == a => {}
                other => {
                    return Err(format!(
                        "RIe.Dig: the digest of unsynced epoch {ep} lists page {p} with sector {a}, which holds {other:?}"
                    ))
                }
            }
        }
        if !steps::above(s.gen, s, dg.link) {
            return Err(format!(
                "RIe.AbC: a record slot at or past page {}, the link of unsynced epoch {ep}, holds a record of generation {}",
                dg.link, s.gen
            ));
        }
    }
    if epochs > 0 {
        if let Some(l) = s.lnk {
            return Err(format!(
                "RIxG.lkOK: the link is page {l} while {epochs} epochs are unsynced (a barrier drops the link)"
            ));
        }
    }
    Ok(())
}

/// PU's crash outcomes as P's (`crash-recU`, `barrier-crash-prefix`):
/// the states whose P crash outcomes ([`super::crash::outcomes`]),
/// together, are those of a crash at `m` under PU's recovery.
///
/// Above its synced part, `m`'s region holds the committed pages of the
/// unsynced epochs (barriers without SYNC, and a flush's before its SYNC),
/// each above its tentative pages, and the open epoch's tentative pages on
/// top. Recovery's `accU` accepts the first `k` of those epochs for some
/// `k`, and nothing above the first that fails. So for each `k` this gives
/// the state `m_k` in which the first `k` unsynced epochs are durable as
/// written (their region pages synced, the data pages their digests name
/// pinned to the named sectors) and every region page above them is
/// erased and durable; for the last `k` (every epoch landed) the pages
/// above stay as they are. On each `m_k` P's `acc` accepts exactly what
/// `accU` does. With fewer than two unsynced committed pages it is `[m]`:
/// there `accU` is P's `acc` (`accU-one`), so P's outcomes are exact.
pub fn crash_states_u(m: &St) -> Vec<St> {
    let proven =
        m.dr.iter()
            .position(|p| matches!(p, Mc::Uns(..)))
            .unwrap_or(m.dr.len());
    let commits: Vec<usize> = (proven..m.dr.len())
        .filter(|&i| unsynced_commit(&m.dr[i]))
        .collect();
    if commits.len() < 2 {
        return vec![m.clone()];
    }
    (0..=commits.len())
        .map(|k| {
            let mut s = m.clone();
            let landed = if k == 0 { proven } else { commits[k - 1] + 1 };
            land(&mut s, proven, landed);
            if k < commits.len() {
                for pg in &mut s.dr[landed..] {
                    *pg = Mc::Syn(Cell::Erased);
                }
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::rc::Rc;

    use super::*;
    use crate::model::crash::{self, crash_c, Image};
    use crate::model::state::{cell_d, Dg, Val};

    /// The committed page of epoch `ep` of generation 1 that wrote
    /// address `a` to page `p` with version `d` (`UnsyncedEpochsExample`'s
    /// `c₁`, `c₂`: its digest names that page, its link the next page).
    fn committed(ep: u64, a: u64, p: Page, d: u32) -> Cell {
        Cell::Dlt {
            gen: 1,
            ep,
            pairs: Rc::from(vec![(a, p)]),
            committed: true,
            dg: Rc::new(Dg {
                data: vec![(p, d, a)],
                tents: Vec::new(),
                link: p + 1,
            }),
        }
    }

    /// Data pages: page `p` holds address `p` at version 1 where `landed`
    /// says so, else erased.
    fn pages(landed: &[bool]) -> BTreeMap<Page, Cell> {
        (0..landed.len() as Page)
            .filter(|&p| landed[p as usize])
            .map(|p| (p, Cell::D { d: 1, a: p }))
            .collect()
    }

    /// What the map `m` reads at addresses `0..n` on the data pages `dat`.
    fn image(dat: &BTreeMap<Page, Cell>, m: &Map, n: u64) -> Vec<Val> {
        (0..n)
            .map(|a| match m.get(&a) {
                None => Val::Known(0),
                Some(p) => cell_d(dat.get(p).unwrap_or(&Cell::Erased)),
            })
            .collect()
    }

    fn recovered(dat: &BTreeMap<Page, Cell>, es: &[Uep], n: u64) -> Vec<Val> {
        let d = |p: Page| dat.get(&p).unwrap_or(&Cell::Erased);
        image(dat, &rec_map_u(1, d, &Map::new(), &[], es), n)
    }

    fn k(b: [bool; 2]) -> Vec<Val> {
        b.iter().map(|&x| Val::Known(u32::from(x))).collect()
    }

    /// `UnsyncedEpochsExample.agda`'s runs: two barrier epochs of
    /// generation 1 on an empty proven part, epoch 1 writing address 0 to
    /// page 0, epoch 2 address 1 to page 1.
    #[test]
    fn unsynced_epochs_example_runs() {
        let es = vec![
            Uep {
                committed: committed(1, 0, 0, 1),
                tentative: Vec::new(),
            },
            Uep {
                committed: committed(2, 1, 1, 1),
                tentative: Vec::new(),
            },
        ];
        // all-landed
        assert_eq!(recovered(&pages(&[true, true]), &es, 2), k([true, true]));
        // epoch2-lost
        assert_eq!(recovered(&pages(&[true, false]), &es, 2), k([true, false]));
        // commit2-lost
        let mut lost = es.clone();
        lost[1].committed = Cell::Erased;
        assert_eq!(recovered(&pages(&[true, true]), &lost, 2), k([true, false]));
        // epoch1-lost: recovery stops at epoch 1 although epoch 2 is intact
        assert_eq!(recovered(&pages(&[false, true]), &es, 2), k([false, false]));
        // newest-only-mixes: P's acc on the same crash replays epoch 2
        // over an epoch 1 that did not land
        let dat = pages(&[false, true]);
        let d = |p: Page| dat.get(&p).unwrap_or(&Cell::Erased);
        let region = lay(&es, &[]);
        let top = steps::acc(1, d, &region).expect("P's acc accepts epoch 2");
        let m = steps::rp(1, region[..=top].iter().copied(), steps::st0(&Map::new())).com;
        assert_eq!(image(&dat, &m, 2), k([false, true]));
    }

    /// `rec-prefixP`, by brute force over three epochs: for every crash
    /// outcome of their pages (each data page landed or lost, each
    /// committed page landed, lost or junk), the image `accU`'s recovery
    /// reads is the one at the proven part or at one of the barriers —
    /// never a mix — while P's newest-only `acc` reads a mix on some.
    #[test]
    fn p_acc_mixes_barrier_epochs_where_acc_u_does_not() {
        const N: u64 = 3;
        let written = [
            committed(1, 0, 0, 1),
            committed(2, 1, 1, 1),
            committed(3, 2, 2, 1),
        ];
        // the images at the proven part (nothing) and at each barrier
        let at_barrier: Vec<Vec<Val>> = (0..=N as usize)
            .map(|j| {
                (0..N as usize)
                    .map(|a| Val::Known(u32::from(a < j)))
                    .collect()
            })
            .collect();
        let mut p_mixes = 0;
        for landed in 0..1u32 << N {
            let dat = pages(&(0..N).map(|p| landed >> p & 1 == 1).collect::<Vec<_>>());
            for commits in 0..3u32.pow(N as u32) {
                let es: Vec<Uep> = (0..N as usize)
                    .map(|i| Uep {
                        committed: match commits / 3u32.pow(i as u32) % 3 {
                            0 => written[i].clone(),
                            1 => Cell::Erased,
                            _ => Cell::Junk,
                        },
                        tentative: Vec::new(),
                    })
                    .collect();
                let img = recovered(&dat, &es, N);
                assert!(
                    at_barrier.contains(&img),
                    "accU recovered {img:?} (landed {landed:03b}, commits {commits})"
                );
                let d = |p: Page| dat.get(&p).unwrap_or(&Cell::Erased);
                let region = lay(&es, &[]);
                let m = match steps::acc(1, d, &region) {
                    Some(top) => {
                        steps::rp(1, region[..=top].iter().copied(), steps::st0(&Map::new())).com
                    }
                    None => Map::new(),
                };
                if !at_barrier.contains(&image(&dat, &m, N)) {
                    p_mixes += 1;
                }
            }
        }
        assert!(p_mixes > 0, "P's acc never mixed epochs");
    }

    /// A formatted model with one durable epoch: sector 0 written and
    /// flushed (`fl3`), no epoch unsynced.
    fn durable_epoch(amax: Addr) -> St {
        let m = ModelMutant::None;
        let mut s = steps::new_p();
        steps::wr0(&mut s, 0, 1, m);
        steps::fl3(&mut s, amax, m);
        s
    }

    /// A durable epoch (sector 0), then two barriers without SYNC after
    /// writes (sectors 1 and 0; 2 and 1), then the open epoch's write of
    /// sector 3; `after` sees the state after the flush (`false`) and
    /// after each barrier (`true`).
    fn two_barriers(amax: Addr, mut after: impl FnMut(&St, bool)) -> St {
        let m = ModelMutant::None;
        let mut s = durable_epoch(amax);
        after(&s, false);
        for writes in [&[(1, 2), (0, 3)][..], &[(2, 4), (1, 5)]] {
            for &(a, d) in writes {
                steps::wr0(&mut s, a, d, m);
            }
            fl_b(&mut s, amax, m);
            after(&s, true);
        }
        steps::wr0(&mut s, 3, 6, m);
        s
    }

    /// The digest of the newest (or the oldest) unsynced committed page.
    fn unsynced_digest(s: &mut St, newest: bool) -> &mut Rc<Dg> {
        let mut digests = s.dr.iter_mut().filter_map(|c| match c {
            Mc::Uns(
                _,
                Cell::Dlt {
                    committed: true,
                    dg,
                    ..
                },
            ) => Some(dg),
            _ => None,
        });
        let dg = if newest {
            digests.last()
        } else {
            digests.next()
        };
        dg.expect("an unsynced committed page")
    }

    /// PU's ghost invariant holds along a run of barriers (`gh-ok`, `syI-ok`,
    /// `dg-ok`) and each of its parts fails when the state or SB's pending
    /// snapshots are off by one thing.
    #[test]
    fn ghost_invariant_holds_over_barriers_and_each_part_can_fail() {
        const AMAX: Addr = 4;
        let mut pend: Vec<Image> = Vec::new();
        let s = two_barriers(AMAX, |s, barrier| {
            if barrier {
                pend.push(barrier_image(s, AMAX));
            }
            check_ghu(s, &pend, AMAX).expect("after the flush and each barrier");
        });
        // the open epoch's writes: VM
        check_ghu(&s, &pend, AMAX).expect("with the open epoch's writes");
        let fails = |s: &St, pend: &[Image], part: &str| {
            let e = check_ghu(s, pend, AMAX).expect_err(part);
            assert!(e.starts_with(part), "{part}: {e}");
        };
        // as many snapshots as unsynced epochs
        fails(&s, &pend[..1], "GhU:");
        // the first barrier's snapshot read through its map
        let mut off = pend.clone();
        off[0].insert(1, Val::Known(7));
        fails(&s, &off, "GhU.GhD");
        // a page only the first barrier's map names (sector 1's version 2,
        // which the second epoch rewrote) made erasable
        let p1 = s.dr.iter().find_map(|c| match c {
            Mc::Uns(
                _,
                Cell::Dlt {
                    pairs,
                    committed: true,
                    ..
                },
            ) => pairs.iter().find(|&&(a, _)| a == 1).map(|&(_, p)| p),
            _ => None,
        });
        let p1 = p1.expect("the first barrier's epoch wrote sector 1");
        assert!(!s.l2p.values().chain(s.smap.values()).any(|&p| p == p1));
        let mut x = s.clone();
        x.ers.insert(p1);
        check_gc_sm(&x, AMAX).expect("SmI and GcI do not see it");
        fails(&x, &pend, "GhU.GhD");
        // a digest that omits a pair its epoch keeps
        let mut x = s.clone();
        Rc::make_mut(unsynced_digest(&mut x, true)).data.pop();
        fails(&x, &pend, "GhU.DgL");
        // the volatile L2P off the open epoch's pairs
        let mut x = s.clone();
        x.l2p.remove(&3);
        fails(&x, &pend, "GhU.VM");
        // a stable map into a page that is not synced
        let mut x = s.clone();
        let &p = x.smap.get(&0).expect("the flush mapped sector 0");
        let c = x.cur_cell(p).clone();
        x.dat.insert(p, Mc::Uns(Cell::Erased, c));
        fails(&x, &pend, "SyI");
    }

    /// The bridge's epochs part (`RIe`, `rie-reg`, `rie-flB`) holds along a
    /// run of barriers and a full SYNC, and each part fails when the state
    /// is off by one thing the other checks do not see: a digest entry of
    /// the FIRST epoch its map does not keep (P's RI of the state
    /// virtually synced sees only the last epoch's digest), a record of
    /// this generation past an epoch's link, a link while epochs are
    /// unsynced.
    #[test]
    fn epochs_part_of_the_bridge_holds_and_each_part_can_fail() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = two_barriers(AMAX, |s, _| {
            check_rie(s, AMAX).expect("after the flush and each barrier")
        });
        check_rie(&s, AMAX).expect("with the open epoch's writes");
        let fails = |s: &St, part: &str| {
            let e = check_rie(s, AMAX).expect_err(part);
            assert!(e.starts_with(part), "{part}: {e}");
        };
        // the first barrier's digest lists sector 1 at a page its map does
        // not keep there (sector 0's page)
        let mut x = s.clone();
        let &p0 = x.smap.get(&0).expect("the flush mapped sector 0");
        Rc::make_mut(unsynced_digest(&mut x, false))
            .data
            .push((p0, 1, 1));
        fails(&x, "RIe.Dig");
        let mut v = x.clone();
        sync_barriers(&mut v, m);
        crate::model::invariant::check_ri(&v, AMAX)
            .expect("P's RI of the state virtually synced sees only the last digest");
        // a record of this generation at the active pointer, past every link
        let mut x = s.clone();
        let rec = Cell::Dlt {
            gen: x.gen,
            ep: x.ep,
            pairs: Rc::from(Vec::new()),
            committed: true,
            dg: Rc::new(Dg {
                data: Vec::new(),
                tents: Vec::new(),
                link: x.nxt + 1,
            }),
        };
        x.rcd.insert(x.nxt, Mc::Syn(rec));
        fails(&x, "RIe.AbC");
        // a link while epochs are unsynced
        let mut x = s.clone();
        x.lnk = Some(x.nxt);
        fails(&x, "RIxG.lkOK");
        // after a full SYNC nothing is unsynced: the link is the last
        // barrier's, and RIe holds of no epoch
        sync_barriers(&mut s, m);
        check_rie(&s, AMAX).expect("after the SYNC");
    }

    /// `crash-recU`, `barrier-crash-prefix` on model states by brute force:
    /// a durable epoch, then three barriers without SYNC (`fl_b`), each
    /// after writes; for every crash outcome of the unsynced region pages
    /// (`CrashC`: erased, as written, junk) and data pages (landed or
    /// lost), recovery's in-order check on the region split as the
    /// barriers wrote it reads the image at the last SYNC or at one of the
    /// barriers, and each of those four images is some outcome's. P's
    /// newest-only `acc` on the same outcomes reads a mix on some.
    #[test]
    fn barrier_crashes_recover_at_a_barrier() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let image_of = |s: &St| (0..AMAX).map(|a| s.rd(a)).collect::<Vec<_>>();
        let mut s = durable_epoch(AMAX);
        let proven = s.dr.len();
        let mut images = vec![image_of(&s)];
        for (i, writes) in [&[(1, 2), (0, 3)][..], &[(2, 4)], &[(3, 5), (1, 6)]]
            .iter()
            .enumerate()
        {
            for &(a, d) in *writes {
                steps::wr0(&mut s, a, d, m);
            }
            let before = image_of(&s);
            let (inv, ers, smap, ep) = (s.inv.clone(), s.ers.clone(), s.smap.clone(), s.ep);
            fl_b(&mut s, AMAX, m);
            assert_eq!(image_of(&s), before, "rd-flB at barrier {i}");
            assert_eq!((&s.inv, &s.ers, &s.smap), (&inv, &ers, &smap), "flB-queues");
            assert_eq!(s.ep, ep + 1);
            images.push(before);
        }
        // the region as the barriers wrote it: the proven part, then one
        // committed page per epoch (no tentative pages in this run)
        assert_eq!(s.dr.len(), proven + 3);
        assert!(s.dr[..proven].iter().all(|p| matches!(p, Mc::Syn(_))));
        assert!(s.dr[proven..].iter().all(|p| matches!(p, Mc::Uns(..))));
        let region_choices: Vec<Vec<Cell>> = s.dr[proven..].iter().map(crash_c).collect();
        let data_pages = unsynced_data(&s);
        assert_eq!(
            data_pages.len(),
            5,
            "the barriers' five data pages, unsynced"
        );
        let pk = steps::pick(s.cp_l.cur(), s.cp_o.cur()).expect("a checkpoint");
        let pr: Vec<&Cell> = s.dr[..proven].iter().map(Mc::cur).collect();
        let mut seen = vec![false; images.len()];
        let mut p_mixes = 0;
        for landed in 0..1u32 << data_pages.len() {
            let dat = crashed_data(&s, &data_pages, landed);
            let d = |p: Page| dat.get(&p).unwrap_or(&Cell::Erased);
            let read = |map: &Map| {
                (0..AMAX)
                    .map(|a| map.get(&a).map_or(Val::Known(0), |p| cell_d(d(*p))))
                    .collect::<Vec<_>>()
            };
            for choice in 0..3usize.pow(3) {
                let es: Vec<Uep> = region_choices
                    .iter()
                    .enumerate()
                    .map(|(i, cs)| Uep {
                        committed: cs[(choice / 3usize.pow(i as u32) % 3).min(cs.len() - 1)]
                            .clone(),
                        tentative: Vec::new(),
                    })
                    .collect();
                let img = read(&rec_map_u(pk.gen, d, &pk.l2p, &pr, &es));
                let j = images.iter().position(|x| *x == img).unwrap_or_else(|| {
                    panic!("recovery read {img:?}, no barrier's image (landed {landed:05b}, choice {choice})")
                });
                seen[j] = true;
                let region = lay(&es, &pr);
                let top = steps::acc(pk.gen, d, &region).expect("the proven part's commit");
                let newest =
                    steps::rp(pk.gen, region[..=top].iter().copied(), steps::st0(&pk.l2p)).com;
                if !images.contains(&read(&newest)) {
                    p_mixes += 1;
                }
            }
        }
        assert!(
            seen.iter().all(|&x| x),
            "not every barrier's image recovered: {seen:?}"
        );
        assert!(p_mixes > 0, "P's acc never mixed epochs");
    }

    /// The unsynced data pages of `s`: each with its old and new content.
    fn unsynced_data(s: &St) -> Vec<(Page, Cell, Cell)> {
        s.dat
            .iter()
            .filter_map(|(&p, mc)| match mc {
                Mc::Uns(o, n) => Some((p, o.clone(), n.clone())),
                Mc::Syn(_) => None,
            })
            .collect()
    }

    /// The data pages after a crash of `s`: the `i`-th unsynced page of
    /// `data` landed (its new content) if bit `i` of `landed` is set, else
    /// lost (its old content); the others as they are.
    fn crashed_data(s: &St, data: &[(Page, Cell, Cell)], landed: u32) -> BTreeMap<Page, Cell> {
        let mut dat: BTreeMap<Page, Cell> =
            s.dat.iter().map(|(&p, mc)| (p, mc.cur().clone())).collect();
        for (i, (p, o, n)) in data.iter().enumerate() {
            dat.insert(*p, if landed >> i & 1 == 1 { n } else { o }.clone());
        }
        dat
    }

    /// Every image recovery with `accU` reads after a crash at `s`, by
    /// brute force: every `CrashC` outcome of each unsynced region page,
    /// every unsynced data page landed or lost, the region split into
    /// epochs as it was written (after each committed page). Zeros left
    /// out, as in `crash::Image`.
    fn brute_images(s: &St) -> Vec<Image> {
        let proven = s.dr.iter().position(|p| matches!(p, Mc::Uns(..))).unwrap();
        let choices: Vec<Vec<Cell>> = s.dr[proven..].iter().map(crash_c).collect();
        let data = unsynced_data(s);
        let pk = steps::pick(s.cp_l.cur(), s.cp_o.cur()).unwrap();
        let pr: Vec<&Cell> = s.dr[..proven].iter().map(Mc::cur).collect();
        let combos: usize = choices.iter().map(Vec::len).product();
        let mut out: Vec<Image> = Vec::new();
        for landed in 0..1u32 << data.len() {
            let dat = crashed_data(s, &data, landed);
            let d = |p: Page| dat.get(&p).unwrap_or(&Cell::Erased);
            for mut c in 0..combos {
                let mut es = Vec::new();
                let mut tentative = Vec::new();
                for (i, cs) in choices.iter().enumerate() {
                    let cell = cs[c % cs.len()].clone();
                    c /= cs.len();
                    if matches!(
                        s.dr[proven + i].cur(),
                        Cell::Dlt {
                            committed: true,
                            ..
                        }
                    ) {
                        es.push(Uep {
                            committed: cell,
                            tentative: std::mem::take(&mut tentative),
                        });
                    } else {
                        tentative.push(cell);
                    }
                }
                let map = rec_map_u(pk.gen, d, &pk.l2p, &pr, &es);
                let img: Image = map
                    .iter()
                    .map(|(&a, &p)| (a, cell_d(d(p))))
                    .filter(|(_, v)| *v != Val::Known(0))
                    .collect();
                if !out.contains(&img) {
                    out.push(img);
                }
            }
        }
        out
    }

    /// [`crash_states_u`] against the brute force: P's crash outcomes of
    /// the states it gives recover exactly the images `accU` recovers on
    /// every crash outcome — after three barriers, after a write on top
    /// of them, and at a flush's crash point before its SYNC on top of
    /// them (four unsynced commits). Without the reduction, P's outcomes
    /// of the same state recover a mix.
    #[test]
    fn crash_states_u_give_p_the_outcomes_of_acc_u() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = durable_epoch(AMAX);
        for writes in [&[(1, 2), (0, 3)][..], &[(2, 4)], &[(3, 5), (1, 6)]] {
            for &(a, d) in writes {
                steps::wr0(&mut s, a, d, m);
            }
            fl_b(&mut s, AMAX, m);
        }
        let mut written = s.clone();
        steps::wr0(&mut written, 2, 7, m);
        let mut flushing = written.clone();
        steps::fl2(&mut flushing, AMAX, m);
        for (name, st, states) in [
            ("three barriers", &s, 4),
            ("a write after them", &written, 4),
            ("a flush before its SYNC", &flushing, 5),
        ] {
            let ks = crash_states_u(st);
            assert_eq!(ks.len(), states, "{name}");
            let mut modelled: Vec<Image> = Vec::new();
            for mk in &ks {
                for o in crash::outcomes(mk) {
                    let img = crash::recovered_image(mk, &o, m);
                    if !modelled.contains(&img) {
                        modelled.push(img);
                    }
                }
            }
            let brute = brute_images(st);
            assert!(
                modelled.iter().all(|i| brute.contains(i))
                    && brute.iter().all(|i| modelled.contains(i)),
                "{name}: P's outcomes of the PU crash states {modelled:?}, accU by brute force {brute:?}"
            );
            assert_eq!(brute.len(), states, "{name}: one image per barrier");
            let direct: Vec<Image> = crash::outcomes(st)
                .iter()
                .map(|o| crash::recovered_image(st, o, m))
                .collect();
            assert!(
                direct.iter().any(|i| !brute.contains(i)),
                "{name}: P's outcomes of the state itself recover no mix"
            );
        }
    }

    /// `GcI` and `SmI` hold along a run of PU's steps (a durable write, an
    /// overwrite whose old page GC marks invalid, `rlX`, two barriers
    /// `flB`, a flush), and each field's check fails on a state that breaks
    /// it; a barrier that releases the epoch's GC victims (the proofs'
    /// mutant 25) breaks `SmI`: the stable L2P still maps the old page.
    #[test]
    fn gc_and_stable_map_invariants_hold_and_catch_a_released_victim() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = durable_epoch(AMAX);
        check_gc_sm(&s, AMAX).unwrap();
        let old = s.l2p[&0];
        steps::wr0(&mut s, 0, 2, m);
        steps::rl_x(&mut s, old);
        check_gc_sm(&s, AMAX).unwrap();
        let mut released = s.clone();
        fl_b(&mut s, AMAX, m);
        steps::wr0(&mut s, 1, 3, m);
        fl_b(&mut s, AMAX, m);
        assert_eq!(unsynced_commits(&s), 2);
        assert!(s.inv.contains(&old) && s.smap.get(&0) == Some(&old));
        check_gc_sm(&s, AMAX).unwrap();
        fl_b(&mut released, AMAX, ModelMutant::BarrierReleasesVictims);
        assert!(released.ers.contains(&old));
        let e = check_gc_sm(&released, AMAX).unwrap_err();
        assert!(
            e.starts_with("SmI") && e.contains(&format!("page {old}")) && e.contains("erasable"),
            "{e}"
        );
        // the flush's SYNC releases the victim: the stable map moved on
        steps::fl3(&mut s, AMAX, m);
        assert!(s.ers.contains(&old) && s.smap.get(&0) != Some(&old));
        check_gc_sm(&s, AMAX).unwrap();
        let live = s.l2p[&0];
        type Break = fn(&mut St, Page);
        let broken: [(&str, Break); 6] = [
            ("GcI.blw", |s, _| {
                s.l2p.insert(1, s.nxt);
            }),
            ("GcI.oobI", |s, p| {
                s.l2p.insert(1, p);
            }),
            ("GcI.ersI", |s, p| {
                s.ers.insert(p);
            }),
            ("GcI.invI", |s, p| {
                s.inv.insert(p);
            }),
            ("SmI", |s, _| {
                s.smap.insert(2, s.nxt + 1);
            }),
            ("SmI", |s, p| {
                // the live page back in the merge buffer (its OOB kept)
                s.mb.insert(p, (9, 0));
            }),
        ];
        for (field, f) in broken {
            let mut b = s.clone();
            f(&mut b, live);
            let e = check_gc_sm(&b, AMAX).unwrap_err();
            assert!(e.starts_with(field), "{field}: {e}");
        }
    }

    /// A SYNC outside a commit (PUS's `syS`): the victim GC freed before
    /// the barriers becomes erasable, the one the open epoch freed, which
    /// the last barrier's map (the new stable map) still names, stays
    /// invalid; `GcI`, `SmI` and `BI` hold after it, and the release the
    /// proofs' mutant 40 makes (every invalid page) breaks `SmI`.
    #[test]
    fn a_sync_releases_the_barriers_victims_and_keeps_the_open_epochs() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = durable_epoch(AMAX);
        let old = s.l2p[&0];
        steps::wr0(&mut s, 0, 2, m);
        steps::rl_x(&mut s, old);
        fl_b(&mut s, AMAX, m);
        steps::wr0(&mut s, 1, 3, m);
        fl_b(&mut s, AMAX, m);
        let barrier = s.l2p[&1];
        steps::wr0(&mut s, 1, 4, m);
        steps::rl_x(&mut s, barrier);
        assert!(s.inv.contains(&old) && s.inv.contains(&barrier));
        check_gc_sm(&s, AMAX).unwrap();
        let mut all = s.clone();
        sync_barriers(&mut s, m);
        assert_eq!(unsynced_commits(&s), 0);
        assert_eq!(s.smap.get(&1), Some(&barrier));
        assert!(s.ers.contains(&old) && !s.inv.contains(&old));
        assert!(s.inv.contains(&barrier) && !s.ers.contains(&barrier));
        check_gc_sm(&s, AMAX).unwrap();
        check_bi(&s).unwrap();
        // mutant 40: every invalid page released
        sync_barriers(&mut all, ModelMutant::SyncReleasesMappedVictims);
        let e = check_gc_sm(&all, AMAX).unwrap_err();
        assert!(
            e.starts_with("SmI") && e.contains(&format!("page {barrier}")),
            "{e}"
        );
    }

    /// A sync behind whose ticket proves only the oldest epoch (PUSB's
    /// `syB`): after three barriers, `sync_oldest(1)` lands the first
    /// epoch's region and data pages and makes its map the stable one; the
    /// two later epochs stay unsynced as written, so PU's invariants hold
    /// and a crash may still return to the first barrier or to either later
    /// one, never before the first. Proving every epoch is `sync_barriers`.
    #[test]
    fn a_sync_that_proves_the_oldest_epoch_keeps_the_later_ones_unsynced() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = durable_epoch(AMAX);
        let mut maps = Vec::new();
        let mut images = Vec::new();
        for (a, v) in [(1, 2), (2, 3), (0, 4)] {
            steps::wr0(&mut s, a, v, m);
            fl_b(&mut s, AMAX, m);
            maps.push(s.l2p.clone());
            images.push(barrier_image(&s, AMAX));
        }
        steps::wr0(&mut s, 3, 5, m);
        assert_eq!(unsynced_commits(&s), 3);
        let mut all = s.clone();
        sync_oldest(&mut s, 1, m);
        assert_eq!(unsynced_commits(&s), 2);
        assert_eq!(s.smap, maps[0]);
        assert_eq!(s.lnk, None, "epochs stay unsynced: no in-page commit yet");
        // the first epoch's data page is durable, the later ones' not
        assert!(matches!(s.dat[&maps[0][&1]], Mc::Syn(_)));
        assert!(matches!(s.dat[&maps[1][&2]], Mc::Uns(..)));
        check_gc_sm(&s, AMAX).unwrap();
        check_bi(&s).unwrap();
        // recovery's candidates: the first barrier's image or a later one's
        let mut got: Vec<Image> = Vec::new();
        for mk in crash_states_u(&s) {
            for o in crash::outcomes(&mk) {
                let img = crash::recovered_image(&mk, &o, m);
                if !got.contains(&img) {
                    got.push(img);
                }
            }
        }
        assert!(
            got.iter().all(|i| images.contains(i)) && images.iter().all(|i| got.contains(i)),
            "recovered {got:?}, barriers {images:?}"
        );
        // proving all three is the full SYNC
        let mut full = all.clone();
        sync_oldest(&mut all, 3, m);
        sync_barriers(&mut full, m);
        assert_eq!(format!("{all:?}"), format!("{full:?}"));
    }

    /// After barriers, a SYNC outside a commit restores the link the last
    /// barrier's committed page carries (`lastLnk`), so the next flush
    /// may commit in the record slot there (PUSi's `FiOk`, the code's
    /// in-page commit right after its bare SYNC); before it, no record
    /// page (`flB` clears the link).
    #[test]
    fn a_sync_after_barriers_lets_the_next_flush_commit_in_page() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = durable_epoch(AMAX);
        steps::wr0(&mut s, 1, 2, m);
        fl_b(&mut s, AMAX, m);
        let link = s.nxt;
        steps::wr0(&mut s, 2, 3, m);
        assert_eq!(s.lnk, None);
        assert_eq!(crate::model::crash::commit_page(&s), None);
        sync_barriers(&mut s, m);
        assert_eq!(s.lnk, Some(link));
        assert_eq!(crate::model::crash::commit_page(&s), Some(link));
        check_gc_sm(&s, AMAX).unwrap();
        check_bi(&s).unwrap();
    }

    /// `BI` holds along a run of PU's steps (a flush, writes with a
    /// tentative delta page, two barriers `flB`, a SYNC outside a commit,
    /// a flush), and each field's check fails on a state that breaks it; a
    /// barrier that takes its map as the stable L2P breaks `rx`.
    #[test]
    fn bi_holds_along_barriers_and_names_what_breaks_it() {
        const AMAX: Addr = 4;
        let m = ModelMutant::None;
        let mut s = steps::new_p();
        check_bi(&s).unwrap();
        steps::wr0(&mut s, 0, 1, m);
        steps::fl3(&mut s, AMAX, m);
        check_bi(&s).unwrap();
        steps::wr0(&mut s, 1, 2, m);
        steps::opt(&mut s, true, true); // a tentative delta page
        assert_eq!(s.ept.len(), 1);
        check_bi(&s).unwrap();
        let mut advanced = s.clone();
        fl_b(&mut s, AMAX, m);
        steps::wr0(&mut s, 2, 3, m);
        steps::opt(&mut s, true, true);
        check_bi(&s).unwrap();
        fl_b(&mut s, AMAX, m);
        steps::wr0(&mut s, 3, 4, m);
        steps::opt(&mut s, true, true);
        assert_eq!(unsynced_commits(&s), 2);
        check_bi(&s).unwrap();
        fl_b(&mut advanced, AMAX, ModelMutant::BarrierAdvancesStable);
        let e = check_bi(&advanced).unwrap_err();
        assert!(e.starts_with("BI.rx"), "{e}");
        // a page above the durable part synced: not the layout of `lay`
        let mut b = s.clone();
        let last = b.dr.len() - 1;
        b.dr[last] = Mc::Syn(b.dr[last].cur().clone());
        let e = check_bi(&b).unwrap_err();
        assert!(e.starts_with("BI.dre"), "{e}");
        // the second barrier's committed page of another epoch
        let mut b = s.clone();
        let k = b.dr.len() - 1 - b.ept.len();
        if let Mc::Uns(_, Cell::Dlt { ep, .. }) = &mut b.dr[k] {
            *ep += 5;
        } else {
            panic!("the second barrier's committed page: {:?}", b.dr[k]);
        }
        let e = check_bi(&b).unwrap_err();
        assert!(e.starts_with("BI.dre"), "{e}");
        let mut b = s.clone();
        b.cp_l = Mc::Syn(Cell::Erased);
        assert!(check_bi(&b).unwrap_err().starts_with("BI.slt"));
        // a SYNC outside a commit: the barriers' epochs join the durable
        // part, and `smap` is the last barrier's
        let mut synced = s.clone();
        sync_barriers(&mut synced, m);
        assert_eq!(unsynced_commits(&synced), 0);
        assert_ne!(synced.smap, s.smap);
        check_bi(&synced).unwrap();
        steps::fl3(&mut s, AMAX, m);
        check_bi(&s).unwrap();
    }
}
