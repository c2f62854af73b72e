//! Greedy garbage collection of the baselines.
//!
//! A round picks the used segment with the least live content (valid
//! sectors plus live trim records), copies the live content into the merge
//! buffer — data sectors keep their OOB record and so their sequence number
//! and CRC; trim records keep their sequence number but may shrink — and
//! erases the victim.
//!
//! Why GC stops at a damaged sector (one failing its OOB record's CRC)
//! instead of relocating it marked bad, as SCFTL does: the record's CRC is
//! also how recovery tells a torn sector from a good one, and the sync
//! FTL's battery-backed log checksums each copy afresh, so a relocated
//! damaged sector would either vanish at the next recovery (exposing an
//! older value) or come back as valid. Stopping keeps the damaged copy in
//! place, still failing its reads, and changes nothing; overwriting or
//! trimming the sector makes it stale, and GC proceeds.
//!
//! Why the erase must wait (async): a victim holds stale copies, and a stale
//! copy may be the newest *durable* value of its sector while the newer one
//! is still in the merge buffer or an unsynced page; its live sectors' only
//! durable copies are its own until their relocated copies are synced.
//! Erasing it before that could lose both in a crash and expose an older
//! value (or zeros). So a collected victim is not erased at once: it waits
//! as `Collected` until a sync that follows programming the merge buffer —
//! normally the host's next flush, which syncs anyway — and is erased right
//! after that sync (an asynchronous erase: the host does not wait). It is
//! erased then rather than when next allocated because, after a crash, an
//! unerased victim's sectors tie with their relocated copies (same
//! sequence number) and recovery could keep them there and count the
//! victim as used, leaving too little free space. GC itself pads the merge buffer and syncs
//! only when correctness needs it: when fewer than [`FREE_FLOOR`] segments
//! are free while victims wait (the host has not flushed for about
//! `gc_low_free_segments` segments of writes), since the next relocation or
//! write might otherwise find no segment to program. The
//! `AsyncEraseBeforeSync` mutant erases at once, before programming and
//! syncing. In sync mode everything is durable already (synced pages or the
//! battery-backed log), so the erase is issued at once and then synced.
//!
//! Reads: each live page is read once, its valid sectors' span and the OOB
//! records up to the last of them in ONE command ([`Flash::read_with_oob`]);
//! a page holding only trim records is not read at all (their records are
//! in RAM). The async FTL issues it as a read for copy
//! ([`Flash::read_for_copy`]): it does not wait for the data, the device
//! starts later programs only once it has arrived. The sync FTL, whose
//! every flash access is synchronous by definition, waits for each read.
//!
//! Why relocated copies keep their sequence number: a relocated copy is the
//! sector's current value at the moment of relocation. If a crash later
//! loses a newer write of that sector, recovery may return the relocated
//! copy; that value was current after the last flush or is the value at the
//! last flush, which the async contract allows. Giving it a *new* number
//! would not change that, but keeping the old one also keeps trim records
//! (which must keep theirs: a renumbered trim would beat writes made after
//! it) comparable with data by one rule.
//!
//! When a trim record may shrink: trim record `T` (sequence `s`) is needed
//! for sector `la` only while an older copy of `la` could come back, i.e.
//! while `la` is unmapped and some copy of it is still on flash
//! (`copies[la] > 0`, counting copies in the victim itself). A sector mapped
//! again holds a newer copy that is durable before `T`'s victim is erased,
//! and it beats every older copy on its own. The relocated record covers the
//! smallest range containing every sector that still needs it; any range
//! between that and the original is correct.

use std::collections::VecDeque;

use super::engine::{LogFtl, P2L_NONE, P2L_TRIM};
use super::layout::SegId;
use super::oob::{encode_trim, LA_TRIM, OOB_RECORD_SIZE};
use super::segs::SegState;
use crate::device::{FtlError, FtlKind, Result};
use crate::UNMAPPED;
use flash::Flash;

/// Free segments below which waiting victims are released by a sync (see
/// the module documentation): one for the round in progress to program
/// into, one for the write that fills it.
pub(crate) const FREE_FLOOR: u32 = 2;

/// Victims that may wait for a sync at once. After a crash, a waiting
/// victim's sectors tie with their relocated copies (same sequence
/// number) and recovery may keep either, so it may count the victim as
/// used; one waiting victim is the state a crash inside a GC round could
/// always leave, and the watermarks' spare space is sized for it.
pub(crate) const MAX_WAITING_VICTIMS: u32 = 1;

/// A victim page read ahead (async): the span `lo..hi` of sectors valid
/// when it was read, with the OOB records up to `hi`. Sectors only become
/// stale in a victim (nothing is written into a used segment), so the
/// span still covers every sector valid when the page is relocated.
#[derive(Debug)]
struct Staged {
    page: u32,
    lo: usize,
    hi: usize,
    data: Vec<u8>,
    oob: Vec<u8>,
}

/// The async GC's read-ahead: reads for copy of the victim's next live
/// pages, [`READ_AHEAD_STRIPES`] stripes (one page per die each) ahead of
/// the page being relocated, so each die senses and transfers while the
/// host goes on, and a page's data is normally there before the program
/// that carries it.
#[derive(Debug, Default)]
pub(crate) struct ReadAhead {
    victim: Option<SegId>,
    /// The next page of `victim` to read.
    next: u32,
    staged: VecDeque<Staged>,
    /// Buffers of consumed pages, reused.
    pool: Vec<Staged>,
}

/// Stripes of victim pages the async GC keeps read ahead.
pub(crate) const READ_AHEAD_STRIPES: u32 = 2;

impl<F: Flash> LogFtl<F> {
    /// Runs GC rounds until `gc_high_free_segments` segments are free, no
    /// victim is left, or a bounded number of rounds made no headway.
    pub(crate) fn run_gc(&mut self) -> Result<()> {
        self.in_gc = true;
        let r = self.gc_rounds();
        self.in_gc = false;
        r
    }

    fn gc_rounds(&mut self) -> Result<()> {
        let limit = 2 * self.layout.segments;
        for _ in 0..limit {
            let waiting = self.segs.collected.len() as u32;
            if waiting >= MAX_WAITING_VICTIMS
                || (waiting > 0 && self.segs.free_count() < FREE_FLOOR)
            {
                // Correctness, not throughput: the waiting victims must be
                // erasable before space runs out (module documentation).
                self.program_buffer()?;
                self.sync_device()?;
                continue;
            }
            if self.segs.free_count() + waiting >= self.config.gc_high_free_segments {
                break;
            }
            match self.segs.pick_victim() {
                Some(v) => self.collect(v)?,
                None => break,
            }
        }
        Ok(())
    }

    /// The smallest part of a trim record's range still needed (see the
    /// module documentation), or `None` if no sector needs it any more.
    fn still_needed(&self, start: u64, count: u64) -> Option<(u64, u64)> {
        let mut lo = None;
        let mut hi = 0;
        for la in start..start + count {
            if self.l2p[la as usize] == UNMAPPED && self.copies[la as usize] > 0 {
                lo.get_or_insert(la);
                hi = la;
            }
        }
        lo.map(|lo| (lo, hi - lo + 1))
    }

    /// Whether physical sector `p` holds the live copy of its sector.
    #[inline]
    fn is_valid(&self, p: usize) -> bool {
        let tag = self.p2l[p];
        (tag as u64) < self.logical && self.l2p[tag as usize] == p as u32
    }

    /// One whole GC round on `victim` (burst GC).
    fn collect(&mut self, victim: SegId) -> Result<()> {
        for page in 0..self.layout.pages_per_segment {
            self.relocate_page(victim, page)?;
        }
        self.finish_victim(victim)
    }

    /// Moves the live content of page `page` of `victim` into the merge
    /// buffer: its valid data sectors (read with their OOB records in one
    /// command, ahead of need for the async FTL) and its still-needed trim
    /// records.
    fn relocate_page(&mut self, victim: SegId, page: u32) -> Result<()> {
        let spp = self.layout.sectors_per_page as usize;
        let ss = self.layout.sector_size;
        let base = self.layout.ppa(victim, page, 0).0 as usize;
        let addr = self.layout.page_addr(victim, page);
        let staged = self.staged_page(victim, page)?;
        let ahead = !self.mode.sync_each_command;
        for slot in 0..spp {
            let p = base + slot;
            let tag = self.p2l[p];
            if self.is_valid(p) {
                self.make_log_room()?;
                debug_assert!(staged.lo <= slot && slot < staged.hi);
                let rec: [u8; OOB_RECORD_SIZE] = staged.oob
                    [slot * OOB_RECORD_SIZE..(slot + 1) * OOB_RECORD_SIZE]
                    .try_into()
                    .expect("16-byte record");
                let r = super::oob::decode_record(&rec);
                let seq = r.seq;
                let data = &staged.data[slot * ss..(slot + 1) * ss];
                if r.la != tag || !r.matches(data) {
                    self.ahead.pool.push(staged);
                    // The flash no longer holds what was programmed:
                    // copying it would spread the damage.
                    return Err(FtlError::DamagedSector {
                        la: u64::from(tag),
                        detail: format!(
                            "physical sector {p} fails its checksum while GC relocates it, so GC stops rather than copy it; overwrite or trim the sector to let GC proceed, or copy the data off and re-format"
                        ),
                    });
                }
                if let Some(l) = self.nvlog.as_mut() {
                    l.append(&mut self.flash, tag, seq, data)?;
                }
                self.segs.valid[victim.0 as usize] -= 1;
                if ahead {
                    if let Some(dst) = self.active_page() {
                        self.flash.copy_into(addr, dst);
                    }
                }
                let b = self.buf.push_with_record(&rec, data);
                self.l2p[tag as usize] = self.buf_base + b as u32;
                self.stats.gc_sectors_relocated += 1;
                if self.buf.is_full() {
                    if let Err(e) = self.program_buffer() {
                        self.ahead.pool.push(staged);
                        return Err(e);
                    }
                }
            } else if tag == P2L_TRIM {
                let rec = self.trims.remove(&(p as u32));
                self.p2l[p] = P2L_NONE;
                self.segs.trims[victim.0 as usize] -= 1;
                let Some(rec) = rec else { continue };
                if let Some((start, count)) = self.still_needed(rec.start, rec.count) {
                    self.make_log_room()?;
                    encode_trim(&mut self.trim_scratch, start, count);
                    if let Some(l) = self.nvlog.as_mut() {
                        l.append(&mut self.flash, LA_TRIM, rec.seq, &self.trim_scratch)?;
                    }
                    self.buf.push(LA_TRIM, rec.seq, &self.trim_scratch);
                    self.stats.gc_sectors_relocated += 1;
                    if self.buf.is_full() {
                        self.program_buffer()?;
                    }
                }
            }
        }
        self.ahead.pool.push(staged);
        Ok(())
    }

    /// Page `page` of `victim` with the span of its valid sectors read:
    /// the sync FTL reads it now and waits; the async FTL takes it from the
    /// read-ahead, first issuing reads for copy up to
    /// [`READ_AHEAD_STRIPES`] stripes past it.
    fn staged_page(&mut self, victim: SegId, page: u32) -> Result<Staged> {
        if self.mode.sync_each_command {
            return self.read_page(victim, page, false);
        }
        if self.ahead.victim != Some(victim) || self.ahead.next <= page {
            self.ahead.pool.extend(self.ahead.staged.drain(..));
            self.ahead.victim = Some(victim);
            self.ahead.next = page;
        }
        let depth = (READ_AHEAD_STRIPES * self.layout.stripe) as usize;
        while self.ahead.staged.len() < depth && self.ahead.next < self.layout.pages_per_segment {
            let st = self.read_page(victim, self.ahead.next, true)?;
            self.ahead.staged.push_back(st);
            self.ahead.next += 1;
        }
        while let Some(st) = self.ahead.staged.pop_front() {
            if st.page == page {
                return Ok(st);
            }
            self.ahead.pool.push(st);
        }
        // Not reached: the loop above staged `page` (`next` was at most it).
        self.read_page(victim, page, true)
    }

    /// Reads the span of the sectors of `page` valid now, with their OOB
    /// records, in one command (a read for copy if `for_copy`).
    fn read_page(&mut self, victim: SegId, page: u32, for_copy: bool) -> Result<Staged> {
        let spp = self.layout.sectors_per_page as usize;
        let ss = self.layout.sector_size;
        let base = self.layout.ppa(victim, page, 0).0 as usize;
        let mut st = self.ahead.pool.pop().unwrap_or_else(|| Staged {
            page,
            lo: 0,
            hi: 0,
            data: vec![0; spp * ss],
            oob: vec![0xFF; spp * OOB_RECORD_SIZE],
        });
        st.page = page;
        let first = (0..spp).find(|&k| self.is_valid(base + k));
        let last = (0..spp).rev().find(|&k| self.is_valid(base + k));
        let (Some(lo), Some(hi)) = (first, last) else {
            (st.lo, st.hi) = (0, 0);
            return Ok(st);
        };
        (st.lo, st.hi) = (lo, hi + 1);
        let addr = self.layout.page_addr(victim, page);
        let data = &mut st.data[lo * ss..(hi + 1) * ss];
        let oob = &mut st.oob[..(hi + 1) * OOB_RECORD_SIZE];
        let r = if for_copy {
            self.flash.read_for_copy(addr, lo as u32, data, oob)
        } else {
            self.flash.read_with_oob(addr, lo as u32, data, oob)
        };
        match r {
            Ok(()) => Ok(st),
            Err(e) => {
                self.ahead.pool.push(st);
                Err(e.into())
            }
        }
    }

    /// After every live sector of `victim` moved: erase it now (sync mode,
    /// mutants) or let it wait for the next sync (async).
    fn finish_victim(&mut self, victim: SegId) -> Result<()> {
        let ahead = &mut self.ahead;
        ahead.pool.extend(ahead.staged.drain(..));
        ahead.victim = None;
        if self.mode.durable_buffer {
            self.erase_segment(victim)?;
            if self.mode.sync_each_command {
                self.flash.sync()?;
            }
        } else if self.mode.erase_before_sync {
            self.erase_segment(victim)?;
            self.program_buffer()?;
            self.flash.sync()?;
        } else if self.mode.kind == FtlKind::Async {
            // Erased after the next sync that follows programming the
            // merge buffer (module documentation).
            self.segs.state[victim.0 as usize] = SegState::Collected;
            self.segs.collected.push(victim);
            self.stats.gc_blocks_reclaimed += 1;
            return Ok(());
        } else {
            // The SyncSkipSync mutant: as async did before deferring.
            self.program_buffer()?;
            self.flash.sync()?;
            self.erase_segment(victim)?;
        }
        self.segs.state[victim.0 as usize] = SegState::Free;
        self.segs.free.push_back(victim);
        self.stats.gc_blocks_reclaimed += 1;
        Ok(())
    }
}
