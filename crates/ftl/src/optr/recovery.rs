//! Order-preserving recovery (paper §3.5), in the paper's five phases:
//!
//! 1. load the L2P image of the newest valid full checkpoint (highest
//!    generation whose seal and image check out);
//! 2. apply the incremental checkpoints that follow it in the incremental
//!    region, in generation order, up to the first missing or torn one; the
//!    last one applied (or the full one) is the seal;
//! 3. roll the log forward from the seal (the seal's segment from its page
//!    on, then the segments numbered one more each, found by their summary
//!    pages), count the clues of each wid after the checkpoint, and collect
//!    the coalescing records; a request `w` is incomplete when
//!    `P_w + D_w < size_w` (pages present plus records ⟨w, ·⟩);
//! 4. find the recovery point with [`find_recovery_point`] (Algorithm 1):
//!    requests below it are kept, the rest dropped;
//! 5. apply the kept requests' sectors and trims in log order (relocated
//!    sectors, whose wids are at or below the checkpoint's, always apply).
//!
//! Then a new full checkpoint is written with every wid and sequence
//! number seen as used, so the dropped requests' pages (still on flash)
//! are before the checkpoint and never counted again, and new wids never
//! collide with them; it empties the incremental region (whose write
//! position after a crash is not known). Until that seal is durable
//! recovery erases nothing, so a crash during recovery recovers to the
//! same state.

use std::collections::{HashMap, HashSet};

use flash::Flash;

use super::checkpoint::{
    apply_incrementals, decode_summary, prefetch_stripe, read_checkpoint, Seal,
};
use super::clue::{Clue, CLUE_SIZE, LPN_COALESCE, LPN_TRIM};
use super::coalesce::{decode_records, Coalesce};
use super::Optr;
use crate::device::{FtlError, Result};
use crate::logstruct::oob::decode_trim;
use crate::logstruct::{SegId, SegState};
use crate::mutant::Mutant;
use crate::UNMAPPED;

/// Algorithm 1 of the paper: the optimal recovery point given the earliest
/// incomplete wid and the coalescing records ⟨x, y⟩ made after the
/// checkpoint. Requests with a wid below the result are kept. A record
/// whose `x` is kept while its `y` is dropped pulls the point down to `x`;
/// taking the records by descending `x` makes one pass enough.
pub fn find_recovery_point(wid_inc: u64, records: &[(u64, u64)]) -> u64 {
    let mut c: Vec<(u64, u64)> = records.to_vec();
    c.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut wid_rec = wid_inc;
    for (x, y) in c {
        if x < wid_rec && y >= wid_rec {
            wid_rec = x;
        }
    }
    wid_rec
}

/// The paper's naive search: grow the kept set `[first, k)` left to right
/// and return the largest `k` such that no kept request is incomplete and
/// no record joins a kept request to a dropped one.
pub fn naive_recovery_point(
    first: u64,
    last: u64,
    incomplete: &HashSet<u64>,
    records: &[(u64, u64)],
) -> u64 {
    let mut best = first;
    for k in first..=last + 1 {
        if (first..k).any(|w| incomplete.contains(&w)) {
            break;
        }
        if !records.iter().any(|&(x, y)| x < k && y >= k) {
            best = k;
        }
    }
    best
}

/// One clue-valid sector of the log after the checkpoint.
#[derive(Debug)]
enum Item {
    Data { lpn: u32, ppa: u32, wid: u64 },
    Trim { start: u64, count: u64, wid: u64 },
}

/// What the roll-forward scan of the log after the checkpoint found.
struct LogScan {
    /// Every clue-valid data or trim sector, in log order.
    items: Vec<Item>,
    /// Per request written after the checkpoint: the logical sectors found
    /// and the request's size in sectors.
    present: HashMap<u64, (HashSet<u32>, u16)>,
    /// Coalescing records.
    records: Vec<Coalesce>,
    /// The largest request id seen.
    max_wid: u64,
}

impl<F: Flash> Optr<F> {
    pub(super) fn recover(&mut self) -> Result<()> {
        // Phases 1 and 2: the newest valid checkpoint and the incremental
        // checkpoints after it.
        let seal = self.load_checkpoints()?;
        // Summary pages: the sequence number of every data segment.
        let (by_seqno, max_seqno) = self.read_summaries(&seal)?;
        // Phase 3: roll forward and count.
        let chain = self.log_chain(&seal, &by_seqno)?;
        let mut scan = self.scan_log(&chain, &seal)?;
        // Phase 4: the recovery point.
        let wid_rec = self.recovery_point(&mut scan, &seal);
        // Phase 5: apply the kept requests in log order.
        for it in &scan.items {
            match *it {
                Item::Data { lpn, ppa, wid } if wid <= seal.latest_wid || wid < wid_rec => {
                    self.l2p[lpn as usize] = ppa;
                }
                Item::Trim { start, count, wid } if wid <= seal.latest_wid || wid < wid_rec => {
                    self.l2p[start as usize..(start + count) as usize].fill(UNMAPPED);
                }
                _ => {}
            }
        }
        self.rebuild_from_l2p()?;
        self.next_wid = scan.max_wid + 1;
        self.next_seqno = max_seqno + 1;
        self.active = None;
        // Fence the dropped requests off behind a new full checkpoint,
        // which also erases the region (its pages may be programmed up to
        // anywhere).
        self.incremental_next = self.plan.incremental_pages;
        match self.write_full_checkpoint() {
            // A checkpoint block that fails: nothing can be written any
            // more, but the state recovered above is what reads need.
            Err(FtlError::Flash(e)) if e.is_media_failure() => {
                self.worn_out = Some(e.to_string());
                Ok(())
            }
            r => r,
        }
    }

    /// Phases 1 and 2: loads the newest valid full checkpoint and applies
    /// the incremental checkpoints after it; returns the seal in force.
    fn load_checkpoints(&mut self) -> Result<Seal> {
        let mut best: Option<(u32, Seal, Vec<u32>)> = None;
        for slot in 0..2 {
            if let Some((s, l2p)) = read_checkpoint(
                &mut self.flash,
                &self.plan,
                slot,
                self.logical,
                self.layout.physical_sectors,
            )? {
                if best.as_ref().is_none_or(|b| s.generation > b.1.generation) {
                    best = Some((slot, s, l2p));
                }
            }
        }
        let (slot, full, mut l2p) = best.ok_or_else(|| {
            FtlError::Corrupt("neither checkpoint slot holds a valid checkpoint".into())
        })?;
        let (seal, applied) = apply_incrementals(
            &mut self.flash,
            &self.plan,
            &full,
            &mut l2p,
            self.layout.physical_sectors,
        )?;
        self.optr_stats.incremental_checkpoints_recovered = applied;
        self.l2p = l2p;
        self.seal = seal;
        self.seal_slot = slot;
        Ok(seal)
    }

    /// Reads every data segment's summary page: the segment of each
    /// sequence number, and the largest number (at least the seal's).
    fn read_summaries(&mut self, seal: &Seal) -> Result<(HashMap<u64, SegId>, u64)> {
        let mut page = vec![0u8; self.layout.geometry.page_size()];
        let mut by_seqno: HashMap<u64, SegId> = HashMap::new();
        let mut max_seqno = seal.log_seqno;
        for s in self.plan.first_data_segment..self.layout.segments {
            let seg = SegId(s);
            self.flash
                .read(self.layout.page_addr(seg, 0), 0, &mut page)?;
            if let Some(q) = decode_summary(&page, seg) {
                self.seg_seqno[s as usize] = q;
                max_seqno = max_seqno.max(q);
                by_seqno.insert(q, seg);
            }
        }
        Ok((by_seqno, max_seqno))
    }

    /// The log after the checkpoint: (segment, first page) in order, from
    /// the seal's position through segments of consecutive sequence
    /// numbers.
    fn log_chain(&self, seal: &Seal, by_seqno: &HashMap<u64, SegId>) -> Result<Vec<(SegId, u32)>> {
        let mut chain: Vec<(SegId, u32)> = Vec::new();
        let mut next = seal.log_seqno + 1;
        if let Some(seg) = seal.log_segment {
            if self.seg_seqno[seg.0 as usize] != seal.log_seqno {
                return Err(FtlError::Corrupt(format!(
                    "the checkpoint's log segment {} has lost its summary page",
                    seg.0
                )));
            }
            chain.push((seg, seal.log_page));
        }
        while let Some(&seg) = by_seqno.get(&next) {
            chain.push((seg, 1));
            next += 1;
        }
        Ok(chain)
    }

    /// Phase 3: reads every page of the log chain and collects its
    /// clue-valid sectors, the requests they belong to and the coalescing
    /// records.
    fn scan_log(&mut self, chain: &[(SegId, u32)], seal: &Seal) -> Result<LogScan> {
        let g = self.layout.geometry;
        let mut page = vec![0u8; g.page_size()];
        let mut oob = vec![0u8; g.oob_size as usize];
        let ss = self.layout.sector_size;
        let spp = self.layout.sectors_per_page as usize;
        let mut scan = LogScan {
            items: Vec::new(),
            present: HashMap::new(),
            records: Vec::new(),
            max_wid: seal.latest_wid,
        };
        for &(seg, from) in chain {
            let pps = self.layout.pages_per_segment;
            for p in from..pps {
                let layout = self.layout;
                prefetch_stripe(&mut self.flash, &self.plan, p, from, pps, |k| {
                    layout.page_addr(seg, k)
                })?;
                let addr = self.layout.page_addr(seg, p);
                self.flash.read_with_oob(addr, 0, &mut page, &mut oob)?;
                for k in 0..spp {
                    let data = &page[k * ss..(k + 1) * ss];
                    let Some(c) = Clue::decode(&oob[k * CLUE_SIZE..], data) else {
                        continue;
                    };
                    let after = c.wid > seal.latest_wid;
                    match c.lpn {
                        LPN_COALESCE => {
                            let rs = decode_records(data).ok_or_else(|| {
                                FtlError::Corrupt(format!(
                                    "{addr} slot {k}: a coalescing-record sector with a bad header"
                                ))
                            })?;
                            scan.records.extend(rs);
                            continue;
                        }
                        LPN_TRIM => {
                            let t = decode_trim(data, c.wid, self.logical)?;
                            scan.items.push(Item::Trim {
                                start: t.start,
                                count: t.count,
                                wid: c.wid,
                            });
                        }
                        lpn if u64::from(lpn) < self.logical => {
                            let ppa = self.layout.ppa(seg, p, k as u32).0;
                            scan.items.push(Item::Data { lpn, ppa, wid: c.wid });
                        }
                        lpn => {
                            return Err(FtlError::Corrupt(format!(
                                "{addr} slot {k}: a valid clue names logical sector {lpn} of a {}-sector device",
                                self.logical
                            )))
                        }
                    }
                    scan.max_wid = scan.max_wid.max(c.wid);
                    if after {
                        let e = scan
                            .present
                            .entry(c.wid)
                            .or_insert_with(|| (HashSet::new(), c.size));
                        e.0.insert(c.lpn);
                    }
                }
            }
        }
        Ok(scan)
    }

    /// Phase 4: the first request id not kept: requests after the seal are
    /// kept up to the first incomplete one, and back to where no
    /// coalescing record joins a kept request to a dropped one. Drops the
    /// records of requests the checkpoint covers.
    fn recovery_point(&self, scan: &mut LogScan, seal: &Seal) -> u64 {
        if self.mutant == Mutant::OptrIgnoreCoalescingRecords {
            scan.records.clear();
        }
        scan.records.retain(|r| r.x > seal.latest_wid);
        let mut coalesced: HashMap<u64, (u64, u32)> = HashMap::new();
        for r in &scan.records {
            let e = coalesced.entry(r.x).or_insert((0, r.x_size));
            e.0 += 1;
        }
        let complete = |w: u64| -> bool {
            let (p, size) = match scan.present.get(&w) {
                Some((lpns, size)) => (lpns.len() as u64, u64::from(*size)),
                None => (0, coalesced.get(&w).map_or(u64::MAX, |c| u64::from(c.1))),
            };
            let d = coalesced.get(&w).map_or(0, |c| c.0);
            let slack =
                u64::from(self.mutant == Mutant::OptrRequestCompleteWithMissingPage && p > 0);
            p + d + slack >= size
        };
        let mut wid_inc = seal.latest_wid + 1;
        while wid_inc <= scan.max_wid && complete(wid_inc) {
            wid_inc += 1;
        }
        let pairs: Vec<(u64, u64)> = scan.records.iter().map(|r| (r.x, r.y)).collect();
        find_recovery_point(wid_inc, &pairs)
    }

    /// Rebuilds the reverse map, valid counts and segment states from the
    /// recovered L2P.
    fn rebuild_from_l2p(&mut self) -> Result<()> {
        self.mapped = 0;
        for lpn in 0..self.logical as usize {
            let p = self.l2p[lpn];
            if p == UNMAPPED {
                continue;
            }
            let seg = self.layout.seg_of(crate::logstruct::Ppa(p));
            if seg.0 < self.plan.first_data_segment {
                return Err(FtlError::Corrupt(format!(
                    "logical sector {lpn} maps into the checkpoint area (physical sector {p})"
                )));
            }
            self.p2l[p as usize] = lpn as u32;
            self.segs.valid[seg.0 as usize] += 1;
            self.mapped += 1;
        }
        self.segs.free.clear();
        for s in self.plan.first_data_segment..self.layout.segments {
            let st = if self.segs.valid[s as usize] > 0 {
                SegState::Used
            } else if crate::logstruct::segs::Segments::has_bad_block(
                &self.flash,
                &self.layout,
                SegId(s),
            ) {
                SegState::Retired
            } else {
                self.segs.free.push_back(SegId(s));
                SegState::Dirty
            };
            self.segs.restore(SegId(s), st);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn figure_6_example() {
        // Requests 1..6 after the checkpoint; 4 is incomplete; 3 coalesced
        // with 5 and 5 with 6. Only cuts keeping {} or {1, 2} are valid.
        let recs = [(3, 5), (5, 6)];
        assert_eq!(find_recovery_point(4, &recs), 3);
        let inc: HashSet<u64> = [4].into();
        assert_eq!(naive_recovery_point(1, 6, &inc, &recs), 3);
    }

    proptest! {
        #[test]
        fn algorithm_1_agrees_with_the_naive_cut_search(
            n in 1u64..40,
            inc_bits in proptest::collection::vec(any::<bool>(), 40),
            raw in proptest::collection::vec((0u64..40, 1u64..10), 0..20),
        ) {
            let first = 1;
            let last = n;
            let incomplete: HashSet<u64> = (first..=last).filter(|w| inc_bits[*w as usize % 40]).collect();
            let records: Vec<(u64, u64)> = raw
                .iter()
                .map(|&(x, d)| (first + x % n, first + x % n + d))
                .filter(|&(_, y)| y <= last)
                .collect();
            let wid_inc = (first..=last).find(|w| incomplete.contains(w)).unwrap_or(last + 1);
            prop_assert_eq!(
                find_recovery_point(wid_inc, &records),
                naive_recovery_point(first, last, &incomplete, &records)
            );
        }
    }
}
