//! Recovery of the baselines: rebuild every table from the OOB records
//! (and, for sync, the battery-backed log).
//!
//! Rule: for each logical sector, the candidate with the highest sequence
//! number wins, where candidates are data sectors whose CRC matches, trim
//! records covering the sector (a winning trim means "reads as zeros"), and
//! sync's logged entries. Torn or garbage sectors fail the CRC and never
//! count. A data candidate's CRC is only checked when its sequence number
//! would beat the best verified one so far, so recovery reads the data of
//! few stale sectors. The next sequence number is one above the highest
//! verified one.
//!
//! Afterwards: segments with live content are `Used` (never programmed
//! again until erased), all others `Dirty` (erased when allocated). For sync,
//! log entries that won are programmed to a fresh page and synced *before*
//! the log is reset, so a crash during recovery finds the same candidates
//! again (a page copy and its log entry carry the same sequence number and
//! data, and either may win).

use flash::Flash;

use super::config::LogConfig;
use super::engine::{LogFtl, Mode, P2L_NONE, P2L_TRIM};
use super::layout::{Layout, Ppa, SegId};
use super::nvlog::{NvEntry, NvLog};
use super::oob::{decode_record, decode_trim, TrimRecord, LA_TRIM, OOB_RECORD_SIZE};
use super::segs::{SegState, Segments};
use crate::device::{FtlError, Result};
use crate::UNMAPPED;

/// Where a sector's winning candidate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Winner {
    /// No candidate, or a trim won.
    Unmapped,
    Flash(Ppa),
    /// Entry index in the battery-backed log.
    Log(usize),
}

/// What a read-only scan found.
pub(crate) struct Scan {
    /// Winning location per logical sector, encoded: `UNMAPPED`, a physical
    /// sector, or `LOG_BASE + entry index`.
    pub(crate) best: Vec<u32>,
    pub(crate) best_seq: Vec<u64>,
    pub(crate) p2l: Vec<u32>,
    pub(crate) copies: Vec<u32>,
    pub(crate) flash_trims: Vec<(u32, TrimRecord)>,
    pub(crate) log_trims: Vec<TrimRecord>,
    pub(crate) max_seq: u64,
    /// Copies that tied the best candidate of their sector when scanned
    /// (same sequence number: a GC relocation and its original), as
    /// `(physical sector, sequence number)`; [`Scan::twins`] keeps those
    /// that still tie the winner.
    ties: Vec<(u32, u64)>,
}

impl Scan {
    pub(crate) fn winner(&self, layout: &Layout, la: usize) -> Winner {
        let b = self.best[la];
        if b == UNMAPPED {
            Winner::Unmapped
        } else if b < layout.physical_sectors {
            Winner::Flash(Ppa(b))
        } else {
            Winner::Log((b - layout.physical_sectors) as usize)
        }
    }

    /// Moves the winners of every segment whose winners all have a whole
    /// twin (a copy with the same sequence number) in another segment to
    /// those twins, so that the segment holds nothing live and recovery
    /// leaves it free; returns how many segments it emptied. A crash
    /// that reverts the unsynced erase of a GC victim brings back copies
    /// that tie the relocated ones, and where the victim is scanned first
    /// its copies win: the victim came back to life, and so did every
    /// victim whose erase was still in flight. Found with
    /// `STREAM_RESERVE` at 1 (`scftl crashtest --ftl async --hot-cold
    /// --geometry tiny --seed 4 --ops 77607`: three segments the device
    /// counted free and one waiting for its erase all came back with one
    /// to four winners each after one power cut, and recovery found no
    /// free segment). Segments with a trim record stay as they are; a
    /// twin in a segment emptied already is not taken.
    fn prefer_twins(&mut self, layout: &Layout) -> u64 {
        let phys = layout.physical_sectors;
        let mut twin_of: std::collections::HashMap<usize, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, &(ppa, seq)) in self.ties.iter().enumerate() {
            let la = self.p2l[ppa as usize] as usize;
            if self.best_seq[la] == seq && self.best[la] < phys && self.best[la] != ppa {
                twin_of.entry(la).or_default().push(i);
            }
        }
        if twin_of.is_empty() {
            return 0;
        }
        let mut winners: Vec<Vec<usize>> = vec![Vec::new(); layout.segments as usize];
        for (la, &b) in self.best.iter().enumerate() {
            if b < phys {
                winners[layout.seg_of(Ppa(b)).0 as usize].push(la);
            }
        }
        let mut keep = vec![false; layout.segments as usize];
        for &(ppa, _) in &self.flash_trims {
            keep[layout.seg_of(Ppa(ppa)).0 as usize] = true;
        }
        let mut emptied = vec![false; layout.segments as usize];
        let mut count = 0;
        for seg in 1..layout.segments as usize {
            if winners[seg].is_empty() || keep[seg] {
                continue;
            }
            let picked: Option<Vec<(usize, usize)>> = winners[seg]
                .iter()
                .map(|&la| {
                    twin_of.get(&la)?.iter().copied().find_map(|i| {
                        let t = layout.seg_of(Ppa(self.ties[i].0)).0 as usize;
                        (t != seg && !emptied[t]).then_some((la, i))
                    })
                })
                .collect();
            let Some(picked) = picked else {
                continue;
            };
            for (la, i) in picked {
                // The old winner becomes the tie (`Scan::twins` then names
                // its segment, which `LogFtl::erase_twins` erases).
                std::mem::swap(&mut self.ties[i].0, &mut self.best[la]);
                winners[layout.seg_of(Ppa(self.best[la])).0 as usize].push(la);
            }
            winners[seg].clear();
            emptied[seg] = true;
            count += 1;
        }
        count
    }

    /// Segments holding a copy as new as its sector's winner on the flash
    /// but not the winner: the scan saw the winner first (ties go to the
    /// first copy found). Such a copy wins a later recovery once the
    /// winner's copy is gone (GC relocated it and erased its segment), so
    /// a segment that holds nothing else live must not be counted free
    /// while it keeps the copy.
    fn twins(&self, layout: &Layout) -> std::collections::BTreeSet<SegId> {
        self.ties
            .iter()
            .filter(|&&(ppa, seq)| {
                let la = self.p2l[ppa as usize] as usize;
                self.best_seq[la] == seq && self.best[la] < layout.physical_sectors
            })
            .filter(|&&(ppa, _)| self.best[self.p2l[ppa as usize] as usize] != ppa)
            .map(|&(ppa, _)| layout.seg_of(Ppa(ppa)))
            .collect()
    }
}

/// Scans every data segment (and the given log entries) without changing
/// anything. With `verify_data` false, CRCs of data sectors are not checked
/// (only for invariant checks on a device opened by `format`, which holds no
/// torn or garbage page: a device opened by recovery may hold what a crash
/// left, until its segment is erased).
pub(crate) fn scan<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    logical: u64,
    log: &[NvEntry],
    verify_data: bool,
) -> Result<Scan> {
    let spp = layout.sectors_per_page as usize;
    let ss = layout.sector_size;
    let mut s = Scan {
        best: vec![UNMAPPED; logical as usize],
        best_seq: vec![0; logical as usize],
        p2l: vec![P2L_NONE; layout.physical_sectors as usize],
        copies: vec![0; logical as usize],
        flash_trims: Vec::new(),
        log_trims: Vec::new(),
        max_seq: 0,
        ties: Vec::new(),
    };
    let mut oob = vec![0u8; spp * OOB_RECORD_SIZE];
    let mut sector = vec![0u8; ss];
    for seg in 1..layout.segments {
        for page in 0..layout.pages_per_segment {
            let addr = layout.page_addr(SegId(seg), page);
            flash.read_oob(addr, &mut oob)?;
            for slot in 0..spp {
                let rec = decode_record(&oob[slot * OOB_RECORD_SIZE..]);
                let ppa = layout.ppa(SegId(seg), page, slot as u32).0;
                if rec.la == LA_TRIM {
                    flash.read(addr, slot as u32, &mut sector)?;
                    if rec.matches(&sector) {
                        let t = decode_trim(&sector, rec.seq, logical)?;
                        s.flash_trims.push((ppa, t));
                        s.max_seq = s.max_seq.max(rec.seq);
                    }
                } else if u64::from(rec.la) < logical {
                    let la = rec.la as usize;
                    s.p2l[ppa as usize] = rec.la;
                    s.copies[la] += 1;
                    let tie = s.best[la] != UNMAPPED && rec.seq == s.best_seq[la];
                    let newer = s.best[la] == UNMAPPED || rec.seq > s.best_seq[la];
                    // A copy that wins, or ties the winner (one that
                    // `Scan::prefer_twins` may prefer), must be whole.
                    if tie || newer {
                        let ok = if verify_data {
                            flash.read(addr, slot as u32, &mut sector)?;
                            rec.matches(&sector)
                        } else {
                            true
                        };
                        if ok && tie {
                            s.ties.push((ppa, rec.seq));
                        }
                        if ok && newer {
                            s.best[la] = ppa;
                            s.best_seq[la] = rec.seq;
                            s.max_seq = s.max_seq.max(rec.seq);
                        }
                    }
                }
            }
        }
    }
    for (i, e) in log.iter().enumerate() {
        s.max_seq = s.max_seq.max(e.seq);
        if e.la == LA_TRIM {
            s.log_trims.push(decode_trim(&e.data, e.seq, logical)?);
        } else if u64::from(e.la) < logical {
            let la = e.la as usize;
            // Ties go to the flash copy: same sequence number, same data.
            if s.best[la] == UNMAPPED || e.seq > s.best_seq[la] {
                s.best[la] = layout.physical_sectors + i as u32;
                s.best_seq[la] = e.seq;
            }
        }
    }
    let trims: Vec<TrimRecord> = s
        .flash_trims
        .iter()
        .map(|&(_, t)| t)
        .chain(s.log_trims.iter().copied())
        .collect();
    for t in trims {
        for la in t.start..t.start + t.count {
            let la = la as usize;
            if s.best_seq[la] < t.seq {
                s.best_seq[la] = t.seq;
                s.best[la] = UNMAPPED;
            }
        }
    }
    Ok(s)
}

impl<F: Flash> LogFtl<F> {
    /// Opens a device whose label has been read: rebuilds the tables by
    /// scanning, replays the log (sync), and makes the result durable.
    pub fn recover(flash: F, config: LogConfig, mode: Mode) -> Result<Self> {
        let mut f = Self::empty(flash, config, mode)?;
        f.recovered = true;
        let entries = if mode.durable_buffer {
            let (log, entries) = NvLog::open(&mut f.flash, f.layout.sectors_per_page)?;
            f.nvlog = Some(log);
            entries
        } else {
            Vec::new()
        };
        let mut s = scan(&mut f.flash, &f.layout, f.logical, &entries, true)?;
        f.twin_segments_emptied += s.prefer_twins(&f.layout);
        f.p2l = s.p2l.clone();
        f.copies = s.copies.clone();
        for (ppa, t) in live_trims(&s.flash_trims) {
            f.trims.insert(ppa, t);
            f.p2l[ppa as usize] = P2L_TRIM;
            f.segs.trims[f.layout.seg_of(Ppa(ppa)).0 as usize] += 1;
        }
        let mut from_log = Vec::new();
        for la in 0..f.logical as usize {
            match s.winner(&f.layout, la) {
                Winner::Unmapped => {}
                Winner::Flash(p) => {
                    f.l2p[la] = p.0;
                    f.segs.valid[f.layout.seg_of(p).0 as usize] += 1;
                    f.mapped += 1;
                }
                Winner::Log(i) => from_log.push((la as u32, i)),
            }
        }
        f.next_seq = s.max_seq + 1;
        f.segs.free.clear();
        for seg in 1..f.layout.segments {
            let st = if f.segs.load(SegId(seg)) > 0 {
                if Segments::has_bad_block(&f.flash, &f.layout, SegId(seg)) {
                    f.bad_in_use.insert(SegId(seg));
                }
                SegState::Used
            } else if Segments::has_bad_block(&f.flash, &f.layout, SegId(seg)) {
                // The wear records are the bad-block table: a segment with
                // a bad block is never filled again.
                SegState::Retired
            } else {
                f.segs.free.push_back(SegId(seg));
                SegState::Dirty
            };
            f.segs.restore(SegId(seg), st);
        }
        f.erase_twins(&s)?;
        // Past the spare, the device opens read-only (the sync FTL's log
        // is still moved to flash below: reads need it mapped).
        f.check_spare();
        // Retired segments took the last free one (or the flash failed):
        // open read-only (reads need no active segment), not fail.
        let active = f.pop_active();
        match f.segs.read_only_after(active, &mut f.worn_out) {
            Err(FtlError::WornOut(_)) => {}
            r => r?,
        }
        if mode.durable_buffer {
            // No GC and no log reset until every winning entry is on flash.
            f.defer_log_reset = true;
            f.in_gc = true;
            let r = f.replay_log(&entries, &from_log, &s.log_trims, &s.flash_trims);
            f.defer_log_reset = false;
            f.in_gc = false;
            r?;
            if let Some(l) = f.nvlog.as_mut() {
                if !l.is_empty() {
                    l.reset(&mut f.flash)?;
                }
            }
        }
        if f.worn_out.is_none() && f.segs.free_count() < f.config.low() {
            f.run_gc()?;
        }
        Ok(f)
    }

    /// Erases the segments recovery leaves free (`Dirty`) that hold a
    /// copy tying its sector's winner ([`Scan::twins`]): a crash that cut
    /// a GC between its relocation and the victim's durable erase leaves
    /// two copies with one sequence number, and recovery keeps the first
    /// it scans. The other's segment, free but not erased, would come
    /// back to life at a later recovery once the winner's copy moved
    /// (found by `scftl crashtest --ftl async --contract async --geometry
    /// tiny --seed 9512 --ops 1267536 --wear-leveling --hot-cold --aimed
    /// 0.02`: twins piled up over nested crashes until a recovery found
    /// every segment live and no free one to write to, although the device
    /// had counted several free). A crash before these erases are durable
    /// brings the copies back, and the next recovery erases them again;
    /// the winner's segment is erased only after a sync, which makes these
    /// erases durable first.
    fn erase_twins(&mut self, s: &Scan) -> Result<()> {
        let mut erased = false;
        for seg in s.twins(&self.layout) {
            if self.segs.state(seg) != SegState::Dirty {
                continue;
            }
            self.segs.free.retain(|&g| g != seg);
            if self.erase_segment(seg)? {
                self.segs.set(seg, SegState::Free);
                self.segs.free.push_back(seg);
            }
            self.twin_erases += 1;
            erased = true;
        }
        if erased && self.mode.sync_each_command {
            self.flash.sync()?;
        }
        Ok(())
    }

    /// Sync: moves the log's winning entries to flash (programmed and
    /// synced) while the log still holds them. A log trim whose record is
    /// on flash already (an earlier recovery replayed it and crashed before
    /// resetting the log) is not programmed again.
    fn replay_log(
        &mut self,
        entries: &[NvEntry],
        from_log: &[(u32, usize)],
        log_trims: &[TrimRecord],
        flash_trims: &[(u32, TrimRecord)],
    ) -> Result<()> {
        for &(la, i) in from_log {
            let e = &entries[i];
            let slot = self.buf.push(la, e.seq, &e.data);
            self.l2p[la as usize] = self.buf_base + slot as u32;
            self.mapped += 1;
            if self.buf.is_full() {
                self.program_buffer()?;
            }
        }
        for t in log_trims {
            let on_flash = flash_trims.iter().any(|(_, f)| f.seq == t.seq);
            let needed = (t.start..t.start + t.count)
                .any(|la| self.l2p[la as usize] == UNMAPPED && self.copies[la as usize] > 0);
            if needed && !on_flash {
                super::oob::encode_trim(&mut self.trim_scratch, t.start, t.count);
                self.buf.push(LA_TRIM, t.seq, &self.trim_scratch);
                if self.buf.is_full() {
                    self.program_buffer()?;
                }
            }
        }
        self.program_buffer()?;
        self.flash.sync()?;
        Ok(())
    }
}

/// The trim records found on flash that stay live: copies of one record
/// (same sequence number: GC relocated it, or a recovery replayed it from
/// the sync FTL's log, and a crash came before the older copy's segment
/// was erased) count once, as the copy with the widest range, which holds
/// every copy GC made of it (a relocated record only shrinks); a copy the
/// widest does not contain stays live too. Counting every copy kept each
/// segment holding one `Used`, and chains of crashes inside recoveries' GC
/// (each relocating a lone trim record to a fresh segment before erasing
/// its victim) used up the free segments (`crashtest --ftl async
/// --geometry tiny --ops 121000 --seed 34`). The stale copies cover nothing
/// the live one does not, so their segments may be erased.
fn live_trims(found: &[(u32, TrimRecord)]) -> Vec<(u32, TrimRecord)> {
    let mut by_seq: std::collections::BTreeMap<u64, Vec<(u32, TrimRecord)>> = Default::default();
    for &(ppa, t) in found {
        by_seq.entry(t.seq).or_default().push((ppa, t));
    }
    let mut live = Vec::with_capacity(found.len());
    for (_, mut copies) in by_seq {
        copies.sort_by_key(|&(ppa, t)| (std::cmp::Reverse(t.count), ppa));
        let (_, widest) = copies[0];
        for (i, &(ppa, t)) in copies.iter().enumerate() {
            let inside =
                t.start >= widest.start && t.start + t.count <= widest.start + widest.count;
            if i == 0 || !inside {
                live.push((ppa, t));
            }
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(start: u64, count: u64, seq: u64) -> TrimRecord {
        TrimRecord { start, count, seq }
    }

    #[test]
    fn copies_of_a_trim_record_count_once_as_the_widest() {
        // Seq 7: the original (ppa 40), a shrunk relocated copy (ppa 3)
        // and a replayed duplicate (ppa 90); seq 9: two copies neither of
        // which contains the other (both stay); seq 8: alone.
        let found = [
            (3, t(11, 2, 7)),
            (40, t(10, 5, 7)),
            (90, t(10, 5, 7)),
            (5, t(20, 1, 8)),
            (6, t(30, 2, 9)),
            (7, t(33, 1, 9)),
        ];
        let live = live_trims(&found);
        let ppas: Vec<u32> = live.iter().map(|&(p, _)| p).collect();
        assert_eq!(ppas, [40, 5, 6, 7]);
    }
}
