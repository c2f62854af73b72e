//! Recovery, part 1: reconstructing the stable L2P from flash, read-only.
//!
//! Steps: load the committed full checkpoint with the highest generation;
//! scan the whole delta region in order; collect every epoch whose
//! committed page is on flash (a committed page activates the earlier pages
//! *of its own epoch*; tentative pages of a crashed epoch are skipped, and
//! since later epochs get larger ids they never activate them). Pages of
//! another generation (left by an interrupted erase of the region), torn
//! pages and misplaced pages are ignored.
//!
//! Which epochs are durable: a flush syncs once, after its committed page,
//! and an ordered flush not at all, so the pages of the last epochs may have
//! reached the media only in part. A delta page flagged
//! [`format::KIND_AFTER_SYNC`] was programmed after a sync returned, so it
//! proves every epoch before its own durable. The epochs after the
//! last proven one are *verified*: every sector they mapped is read back,
//! its CRC checked against its OOB record and chained into the epoch digest,
//! which must equal the one in the committed page (docs/FORMAT.md §4.3).
//! They are applied in order up to the first that fails; that one and all
//! after it are dropped (`fell_back`), and `open` then starts a new
//! generation so they can never be taken for live epochs again.
//!
//! The same function serves `open` and `check_invariants` (which compares
//! its result with the ghost copy of the stable L2P), so it never writes.
//! Rebuilding P2L, valid counts and queues from the result lives in
//! `mod.rs` (selective persistence: only the L2P is primary data).

use flash::Flash;

use crate::device::{FtlError, Result};
use crate::mutant::Mutant;

use super::checkpoint;
use super::format::{self, data_crc, data_oob, DATA_OOB_LEN};
use super::layout::{Address, La, Layout, Psa};
use super::map::L2p;

/// What the flash says the stable state is.
pub(crate) struct Reconstructed {
    pub l2p: L2p,
    /// Slot of the committed checkpoint used.
    pub slot: usize,
    pub gen: u64,
    /// Smallest epoch id larger than every id seen on flash.
    pub next_epoch: u64,
    /// One past the last programmed page of the delta region.
    pub delta_wp: u32,
    /// The region holds programmed pages but none of the current
    /// generation: erase it before appending (an erase was interrupted).
    pub delta_needs_erase: bool,
    /// Digest of the last epoch applied in this generation (0: none).
    pub chain: u32,
    /// A committed epoch failed its verification and was dropped, with
    /// every epoch after it.
    pub fell_back: bool,
}

/// A committed epoch not yet known to be durable.
struct Epoch {
    id: u64,
    pairs: Vec<(La, Psa)>,
    /// The digest its committed page carries.
    digest: u32,
    /// Every one of its pages was found.
    complete: bool,
    /// Region index of its committed page (for messages).
    commit_idx: u32,
}

fn check_pa(layout: &Layout, la: La, pa: Psa, logical: usize) -> Result<()> {
    if la.index() >= logical || (pa.is_mapped() && !layout.is_data_psa(pa)) {
        return Err(FtlError::Corrupt(format!(
            "metadata maps logical sector {la} to physical sector {pa}, which is out of range"
        )));
    }
    Ok(())
}

/// Reconstructs the stable L2P. Honours the recovery mutants
/// (`HonourTentativeDeltas`, `SkipCrcCheck`, `RecoveryReusesCrashedEpoch`).
pub(crate) fn reconstruct<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    logical: usize,
    mutant: Mutant,
    page: &mut [u8],
) -> Result<Reconstructed> {
    let check = mutant != Mutant::SkipCrcCheck;
    let honour_tentative = mutant == Mutant::HonourTentativeDeltas;
    let mut l2p = L2p::unmapped(logical);
    let (slot, rec) = checkpoint::load_newest(flash, layout, check, l2p.as_mut_slice(), page)?;
    for (la, pa) in l2p.iter() {
        check_pa(layout, la, pa, logical)?;
    }
    let gen = rec.gen;
    let mut next_epoch = rec.next_epoch;
    let ppp = layout.delta_pairs_per_page;
    let ss = layout.geometry.sector_size as usize;
    let read_len = format::delta_crc_len(ppp).div_ceil(ss) * ss;
    let mut last_programmed: Option<u32> = None;
    let mut current_gen_seen = false;
    let mut pending: Vec<(La, Psa)> = Vec::new();
    let mut pending_epoch: Option<u64> = None;
    let mut seen_in_epoch = 0u32;
    let mut unproven: Vec<Epoch> = Vec::new();
    let mut chain = 0u32;
    let dies = layout.dies;
    let mut stripe = Vec::with_capacity(dies as usize);
    for idx in 0..layout.delta_pages() {
        let addr = layout.region_page(layout.delta_first, idx);
        if idx % dies == 0 {
            // Region pages are die-interleaved: the next `dies` pages are
            // one per die, so the dies sense them in parallel and each
            // probe (and read) below finds its page in the die's register.
            stripe.clear();
            stripe.extend(
                (idx..(idx + dies).min(layout.delta_pages()))
                    .map(|k| layout.region_page(layout.delta_first, k)),
            );
            flash.prefetch(&stripe)?;
        }
        // Most of the region is erased at most times: sensing a page is
        // much cheaper than transferring and checking it.
        if flash.probe_erased(addr)? {
            continue;
        }
        // Only the sectors that can hold the header and pairs are read.
        let page = &mut page[..read_len];
        flash.read(addr, 0, page)?;
        last_programmed = Some(idx);
        let Some(h) = format::parse(page, check) else {
            continue; // torn or garbage
        };
        if check {
            if h.gen > gen {
                return Err(FtlError::Corrupt(format!(
                    "delta page {idx} belongs to generation {}, newer than the newest committed full checkpoint ({gen})",
                    h.gen
                )));
            }
            if h.gen != gen || h.index != idx || h.count > ppp {
                continue; // stale generation or misplaced
            }
        }
        let kind = format::base_kind(h.kind);
        if kind != format::KIND_TENTATIVE && !format::is_commit_kind(kind) {
            continue;
        }
        current_gen_seen = true;
        if format::is_commit_kind(kind) || mutant != Mutant::RecoveryReusesCrashedEpoch {
            next_epoch = next_epoch.max(h.epoch.saturating_add(1));
        }
        // A page programmed after a sync proves every earlier epoch durable.
        let after_sync = h.kind & format::KIND_AFTER_SYNC != 0;
        if let Some(last) = unproven.iter().rposition(|e| after_sync && e.id < h.epoch) {
            for e in unproven.drain(..=last) {
                if check && !e.complete {
                    return Err(FtlError::Corrupt(format!(
                        "committed delta page {} closes epoch {}, which a later sync made durable, but some of its pages are unreadable",
                        e.commit_idx, e.id
                    )));
                }
                for &(la, pa) in &e.pairs {
                    l2p[la] = pa;
                }
                chain = e.digest;
            }
        }
        if pending_epoch != Some(h.epoch) {
            pending.clear();
            pending_epoch = Some(h.epoch);
            seen_in_epoch = 0;
        }
        seen_in_epoch += 1;
        let count = h.count.min(ppp) as usize;
        for k in 0..count {
            let (la, pa) = format::get_pair(page, k);
            check_pa(layout, la, pa, logical)?;
            pending.push((la, pa));
        }
        if format::is_commit_kind(kind) {
            unproven.push(Epoch {
                id: h.epoch,
                pairs: std::mem::take(&mut pending),
                digest: h.aux2,
                complete: h.aux + 1 == seen_in_epoch,
                commit_idx: idx,
            });
        } else if honour_tentative {
            for &(la, pa) in &pending {
                l2p[la] = pa;
            }
            pending.clear();
        }
    }
    // The epochs nothing proves durable: verify them in order.
    let trust = !check || mutant == Mutant::AcceptEpochDigestMismatch;
    let mut fell_back = false;
    for e in unproven {
        let ok = trust || (e.complete && verify_epoch(flash, layout, &e, chain, page)?);
        if !ok {
            fell_back = true;
            break;
        }
        for &(la, pa) in &e.pairs {
            l2p[la] = pa;
        }
        chain = e.digest;
    }
    Ok(Reconstructed {
        l2p,
        slot,
        gen,
        next_epoch,
        delta_wp: last_programmed.map_or(0, |i| i + 1),
        delta_needs_erase: last_programmed.is_some() && !current_gen_seen,
        chain,
        fell_back,
    })
}

/// Whether every sector epoch `e` leaves mapped (its last pair for each
/// logical sector, when mapped) reads back with the CRC its OOB record
/// holds, and those CRCs chain from `prev` (the digest of the epoch applied
/// before it) to the digest of its committed page. A sector that is
/// missing, torn or stale fails one of the two checks (a stale copy of the
/// same logical sector with the same data is the same content). Sectors a
/// later pair of the epoch overrides are not read: once the epoch is
/// durable, the FTL may erase them.
fn verify_epoch<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    e: &Epoch,
    prev: u32,
    page: &mut [u8],
) -> Result<bool> {
    let ss = layout.sector_size;
    let mut oob = vec![0xFF; layout.spp as usize * DATA_OOB_LEN];
    let mut digest = format::digest_start(prev, e.id);
    let mut seen = std::collections::HashSet::with_capacity(e.pairs.len());
    let mut live = vec![false; e.pairs.len()];
    for (i, &(la, pa)) in e.pairs.iter().enumerate().rev() {
        live[i] = seen.insert(la) && pa.is_mapped();
    }
    for (&(la, pa), _) in e.pairs.iter().zip(&live).filter(|(_, &l)| l) {
        let (addr, slot) = layout.locate(pa);
        let data = &mut page[..ss];
        flash.read(addr, slot, data)?;
        let crc = data_crc(la, data);
        let rec = slot as usize * DATA_OOB_LEN;
        flash.read_oob(addr, &mut oob[..rec + DATA_OOB_LEN])?;
        if data_oob::CRC.at(rec).get_u32(&oob) != crc {
            return Ok(false);
        }
        digest = format::digest_sector(digest, crc);
    }
    Ok(digest == e.digest)
}
