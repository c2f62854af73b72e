//! Recovery, part 1: reconstructing the stable L2P from flash, read-only.
//!
//! Steps: load the committed full checkpoint with the highest generation;
//! scan the whole delta region in order; apply the pairs of every epoch
//! whose committed page is on flash (a committed page activates the earlier
//! pages *of its own epoch*; tentative pages of a crashed epoch are
//! skipped, and since later epochs get larger ids they never activate
//! them). Pages of another generation (left by an interrupted erase of the
//! region), torn pages and misplaced pages are ignored.
//!
//! The same function serves `open` and `check_invariants` (which compares
//! its result with the ghost copy of the stable L2P), so it never writes.
//! Rebuilding P2L, valid counts and queues from the result lives in
//! `mod.rs` (selective persistence: only the L2P is primary data).

use flash::Flash;

use crate::device::{FtlError, Result};
use crate::mutant::Mutant;

use super::checkpoint;
use super::format;
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
    for idx in 0..layout.delta_pages() {
        let addr = layout.region_page(layout.delta_first, idx);
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
        if h.kind != format::KIND_TENTATIVE && h.kind != format::KIND_COMMITTED {
            continue;
        }
        current_gen_seen = true;
        if h.kind == format::KIND_COMMITTED || mutant != Mutant::RecoveryReusesCrashedEpoch {
            next_epoch = next_epoch.max(h.epoch.saturating_add(1));
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
        let committed = h.kind == format::KIND_COMMITTED;
        if committed && check && h.aux + 1 != seen_in_epoch {
            return Err(FtlError::Corrupt(format!(
                "committed delta page {idx} closes epoch {} of {} pages but only {seen_in_epoch} of them are readable",
                h.epoch,
                h.aux + 1
            )));
        }
        if committed || honour_tentative {
            for &(la, pa) in &pending {
                l2p[la] = pa;
            }
            pending.clear();
        }
    }
    Ok(Reconstructed {
        l2p,
        slot,
        gen,
        next_epoch,
        delta_wp: last_programmed.map_or(0, |i| i + 1),
        delta_needs_erase: last_programmed.is_some() && !current_gen_seen,
    })
}
