//! Garbage collection of OPTR with the paper's two constraints (§3.4).
//!
//! Normally paced (`pace_gc`, issue 45), as the async baseline's is
//! (`logstruct::gc`):
//! - **Start.** A greedy victim is picked when at most
//!   [`PACE_SLACK_SEGMENTS`] segments more than the headroom are free or
//!   waiting (finished victims count as free); fewer on small devices
//!   (`pace_slack`).
//! - **Pace.** The victim must be done within one segment's pages of log
//!   writes (host data, records, relocations: `Optr::log_pages` is the
//!   clock), fewer if less room is left above the headroom. Each request
//!   owes it pages at that rate, relocated in slices of an eighth of a
//!   segment. Measured on the log's own clock, not on free space, so the
//!   space a flush releases does not slow the next victim down (that made
//!   GC fall behind at long flush intervals, and the batches below, taking
//!   16 victims at once, then left the next points almost without GC:
//!   per-point throughput swung by ±40% against async's).
//! - **Release.** A finished victim is erased only after the next flush
//!   (the host's, or an internal one forced when [`MAX_WAITING_VICTIMS`]
//!   wait or the free space nears the headroom), which meets the second
//!   constraint below after the relocation instead of before it.
//!
//! When free space reaches the headroom anyway, the batches described here
//! take over.
//!
//! 1. GC never collects a segment holding pages written after the latest
//!    checkpoint (numbered at or above the seal's first post-checkpoint
//!    sequence number): recovery decides whether such a request is complete
//!    by counting its pages, stale ones included, so erasing one could turn
//!    a flushed request incomplete. When no segment qualifies (or the
//!    qualifying ones free nothing), GC takes a checkpoint and goes on; it
//!    runs until the space plan's headroom is free, never just a fixed
//!    number of batches.
//! 2. GC flushes internally before a batch of victims, so every sector it
//!    erases has a durable newer value or a relocated copy that every later
//!    recovery keeps: the checkpoint may still point into a victim, and only
//!    included requests and relocations replace those entries.
//!
//! A batch relocates the victims' valid sectors (they keep their clues:
//! their wids are at or below the checkpoint's, so recovery applies them
//! unconditionally, in log order), syncs, and only then erases the victims;
//! so a batch takes only as many victims as the free pages can absorb.
//! The erases are synced before a victim is reused, since a page of an
//! unsynced erase may come back with its old content after a power cut.
//! Victims hold no needed trim or coalescing records: those written before
//! the checkpoint are reflected in it.

use flash::Flash;

/// Paced GC starts a victim when at most this many segments more than the
/// headroom are free (finished victims waiting for a flush count as free).
/// With [`MAX_WAITING_VICTIMS`] this sets how often a long flush interval
/// gets an internal flush to release victims: each one writes back the
/// whole cache, which is what OPTR's cache saves at high locality. 6 and 4
/// had the smallest worst point of `bench optr` among 2/2, 3/1, 4/2, 6/4,
/// 8/6 and 10/8 (docs/BENCHMARKS.md, OPTR).
const PACE_SLACK_SEGMENTS: u32 = 6;

/// Stripes of victim pages (one page per die each) GC reads ahead of the
/// page it stages, so a relocation's program rarely waits for its read.
const GC_READ_AHEAD_STRIPES: u32 = 2;

/// Finished victims that may wait for a flush before an internal flush is
/// forced to release them.
const MAX_WAITING_VICTIMS: usize = 4;

use super::clue::{Clue, CLUE_SIZE};
use super::Optr;
use crate::device::{FtlError, Result};
use crate::logstruct::gc::PACED_BATCHES;
use crate::logstruct::{SegId, SegState};
use crate::mutant::Mutant;

impl<F: Flash> Optr<F> {
    /// Segments GC may collect now, fewest valid sectors first; only those
    /// whose collection gains space.
    fn gc_candidates(&self) -> Vec<SegId> {
        let first_post = self.seal.first_post_seqno();
        let ignore_checkpoint = self.mutant == Mutant::OptrGcErasesAfterCheckpoint;
        let mut v: Vec<SegId> = (self.plan.first_data_segment..self.layout.segments)
            .map(SegId)
            .filter(|s| {
                self.segs.state(*s) == SegState::Used
                    && self.pace.map(|p| p.0) != Some(*s)
                    && (self.seg_seqno[s.0 as usize] < first_post
                        // The mutant spares only the seal's own log
                        // segment, so what it breaks is the page count.
                        || (ignore_checkpoint && Some(*s) != self.seal.log_segment))
                    && self.segs.valid[s.0 as usize] + self.layout.sectors_per_page
                        <= self.plan.usable_sectors_per_segment
            })
            .collect();
        // The mutant also takes post-checkpoint segments first: by valid
        // count alone the oldest segments win, and the rule would first be
        // broken only late in a run, long after the GCs the crash checker's
        // windows surround.
        v.sort_by_key(|s| {
            let post = ignore_checkpoint && self.seg_seqno[s.0 as usize] >= first_post;
            (!post, self.segs.valid[s.0 as usize], s.0)
        });
        v
    }

    /// Collects batches of victims until [`super::Plan::headroom_segments`]
    /// segments are free. When no segment may be collected, or a batch
    /// gained nothing, it takes a checkpoint (which makes every used
    /// segment collectable) and goes on; it gives up, leaving the caller to
    /// report the shortage, only when that does not help either.
    ///
    /// It terminates: a victim has at least a page of stale sectors, so
    /// each batch frees at least one page net, and the space plan
    /// (`config.rs`) guarantees such a victim exists after a checkpoint
    /// while fewer than the headroom's segments are free.
    pub(super) fn run_gc(&mut self) -> Result<()> {
        let mut checkpointed = false;
        while self.segs.free_count() < self.plan.headroom_segments {
            if self.mutant != Mutant::OptrSkipInternalFlushBeforeGc {
                self.optr_stats.internal_flushes += 1;
                self.internal_flush()?;
            }
            // When greedy GC would take a segment written after the latest
            // checkpoint, a checkpoint first makes it collectable: an
            // incremental one right after the internal flush costs its
            // changed entries and a seal, where passing over the segment
            // costs a worse victim (the constraint's share of segments at
            // selection then stays near zero; docs/BENCHMARKS.md, OPTR).
            // The mutant that ignores the constraint has no reason to.
            if !checkpointed
                && self.mutant != Mutant::OptrGcErasesAfterCheckpoint
                && self.constraint(self.batch_size()).1 > 0
            {
                self.checkpoint()?;
                self.optr_stats.gc_checkpoints += 1;
                checkpointed = true;
            }
            let before = self.free_pages();
            let collected = self.collect_batch()?;
            if collected && self.free_pages() > before {
                checkpointed = false;
                continue;
            }
            if checkpointed {
                return Ok(());
            }
            self.checkpoint()?;
            self.optr_stats.gc_checkpoints += 1;
            checkpointed = true;
        }
        Ok(())
    }

    /// Pages the log can still program without GC: those of the free
    /// segments (after their summary pages) and the rest of the active one.
    fn free_pages(&self) -> u64 {
        let pps = u64::from(self.layout.pages_per_segment);
        let active = self.active.map_or(0, |(_, page)| pps - u64::from(page));
        u64::from(self.segs.free_count()) * (pps - 1) + active
    }

    /// Collects one batch of victims (at most `gc_batch_segments`, aiming
    /// at that many segments beyond the headroom). Returns whether there
    /// was any victim.
    fn collect_batch(&mut self) -> Result<bool> {
        let mut victims = self.gc_candidates();
        let batch = self.batch_size();
        victims.truncate(batch);
        self.count_constraint(batch);
        // Every victim is erased only after the whole batch is relocated,
        // so the batch's valid sectors (plus the padding of its last page)
        // must fit the pages free now; greedy order keeps the cheapest
        // victims. The first is always taken: it has at most a segment
        // less a page of valid sectors, and GC starts with a free segment
        // (the headroom, `config.rs`).
        let spp = u64::from(self.layout.sectors_per_page);
        let room = self.free_pages() * spp;
        let mut need = spp;
        let mut fits = 0;
        for v in &victims {
            need += u64::from(self.segs.valid[v.0 as usize]);
            if fits > 0 && need > room {
                break;
            }
            fits += 1;
        }
        victims.truncate(fits);
        if victims.is_empty() {
            return Ok(false);
        }
        for &v in &victims {
            self.relocate(v)?;
        }
        self.program_stage()?;
        self.flash.sync()?;
        for &v in &victims {
            if self.erase_segment(v)? {
                self.segs.set(v, SegState::Free);
                self.segs.free.push_back(v);
                self.stats.gc_blocks_reclaimed += 1;
            }
        }
        // The erases must be durable before a victim is reopened as a log
        // segment (see `open_segment`).
        self.flash.sync()?;
        Ok(true)
    }

    /// Victims a batch aims at: enough for `gc_batch_segments` segments
    /// beyond the headroom, at most that many.
    fn batch_size(&self) -> usize {
        let want = self.plan.headroom_segments + self.config.gc_batch_segments;
        (want.saturating_sub(self.segs.free_count()) as usize)
            .clamp(1, self.config.gc_batch_segments as usize)
    }

    /// Counts, for the benchmarks, what the first constraint costs this
    /// selection of a batch of `batch` victims (see [`Self::constraint`]).
    fn count_constraint(&mut self, batch: usize) {
        let (constrained, displaced) = self.constraint(batch);
        let st = &mut self.optr_stats;
        st.gc_selections += 1;
        st.gc_segments_constrained += constrained as u64;
        st.gc_segments_seen += u64::from(self.plan.data_segments);
        st.gc_victims_displaced += displaced as u64;
    }

    /// What the first constraint costs a selection of `batch` victims now:
    /// the used segments written after the latest checkpoint, and how many
    /// of them greedy GC would have taken (they are among the `batch`
    /// fewest-valid collectable segments when the constraint is ignored).
    fn constraint(&self, batch: usize) -> (usize, usize) {
        let first_post = self.seal.first_post_seqno();
        let mut used: Vec<(u32, bool)> = (self.plan.first_data_segment..self.layout.segments)
            .filter(|&s| {
                self.segs.state(SegId(s)) == SegState::Used
                    && self.segs.valid[s as usize] + self.layout.sectors_per_page
                        <= self.plan.usable_sectors_per_segment
            })
            .map(|s| {
                (
                    self.segs.valid[s as usize],
                    self.seg_seqno[s as usize] >= first_post,
                )
            })
            .collect();
        let constrained = (self.plan.first_data_segment..self.layout.segments)
            .filter(|&s| {
                self.segs.state(SegId(s)) == SegState::Used
                    && self.seg_seqno[s as usize] >= first_post
            })
            .count();
        used.sort_unstable();
        let displaced = used.iter().take(batch).filter(|u| u.1).count();
        (constrained, displaced)
    }

    /// Paced GC's start level above the headroom and how many finished
    /// victims may wait: [`PACE_SLACK_SEGMENTS`] and [`MAX_WAITING_VICTIMS`]
    /// (6 and 4) on devices of 240 data segments or more, one segment of
    /// slack per 40 data segments below that (and 2 waiting). On a small
    /// device the headroom is a large share of the spare space: `small`
    /// keeps 9 of its 29 data segments free for OPTR's largest request, so
    /// 2 more left greedy GC only victims 97% valid (30x slower than
    /// async); with none, GC starts at the headroom and the batches do most
    /// of the work, as before issue 45.
    fn pace_slack(&self) -> (u32, usize) {
        let slack = (self.plan.data_segments / 40).min(PACE_SLACK_SEGMENTS);
        let waiting = (slack as usize).saturating_sub(2);
        (slack, waiting.clamp(2, MAX_WAITING_VICTIMS))
    }

    /// Paced GC, before a host request of `sectors` sectors (see the module
    /// documentation): releases waiting victims when too many wait or free
    /// space runs low, picks a victim when few segments are free, and
    /// relocates the slices of it this request owes. A finished victim is
    /// `Collected`: it is erased only after the next flush (host or
    /// internal), whose sync makes its relocated sectors and the newer
    /// copies of its stale ones durable (`release_collected`) — the second
    /// constraint, which the batch GC meets by flushing first. Victims obey
    /// the first constraint as the batch's do. Whatever paced GC cannot do
    /// in time, the batch GC (`run_gc`) does from the headroom.
    pub(super) fn pace_gc(&mut self, sectors: u64) -> Result<()> {
        let pps = self.layout.pages_per_segment;
        let floor = u64::from(self.plan.headroom_segments) * u64::from(pps - 1);
        // Waiting victims are released before the free space above the
        // headroom falls under a segment: otherwise the victim in progress
        // would meet the floor and the batch GC take over.
        let (slack, waiting) = self.pace_slack();
        if self.segs.collected.len() >= waiting
            || (!self.segs.collected.is_empty() && self.free_pages() < floor + u64::from(pps))
        {
            self.optr_stats.internal_flushes += 1;
            self.internal_flush()?;
        }
        if self.pace.is_none() {
            let soon_free = self.segs.free_count() + self.segs.collected.len() as u32;
            if soon_free > self.plan.headroom_segments + slack {
                return Ok(());
            }
            if self.mutant != Mutant::OptrGcErasesAfterCheckpoint && self.constraint(1).1 > 0 {
                self.checkpoint()?;
                self.optr_stats.gc_checkpoints += 1;
            }
            let Some(&v) = self.gc_candidates().first() else {
                return Ok(());
            };
            self.count_constraint(1);
            self.pace = Some((v, 1));
            self.pace_owed = 0.0;
            // Done within a segment's pages of log writes, or the room
            // above the floor if that is less.
            let room = self.free_pages().saturating_sub(floor);
            self.pace_end = self.log_pages + room.min(u64::from(pps - 1));
        }
        let Some((v, next)) = self.pace else {
            return Ok(());
        };
        let spp = u64::from(self.layout.sectors_per_page);
        let scan_left = pps - next;
        let live_pages = u64::from(self.segs.valid[v.0 as usize]).div_ceil(spp);
        // The log pages left before the deadline, less those the victim's
        // live sectors will take, are the host's; the request owes the
        // victim's unscanned pages in proportion to its share of them.
        let avail = self.pace_end.saturating_sub(self.log_pages);
        let req_pages = sectors as f64 / spp as f64;
        let budget = avail.saturating_sub(live_pages);
        let batch = (pps / PACED_BATCHES).max(1);
        let n = if budget as f64 <= req_pages + f64::from(batch) {
            scan_left
        } else {
            self.pace_owed += req_pages * f64::from(scan_left) / budget as f64;
            if self.pace_owed < f64::from(batch) {
                return Ok(());
            }
            let n = (self.pace_owed.floor() as u32).min(scan_left);
            self.pace_owed -= f64::from(n);
            n
        };
        let reached = self.relocate_pages(v, next, next + n, floor)?;
        if reached >= pps {
            self.pace = None;
            self.segs.set(v, SegState::Collected);
            self.segs.collected.push(v);
            if self.mutant == Mutant::OptrSkipInternalFlushBeforeGc {
                // The mutant erases at once, before any flush.
                self.release_collected(self.segs.collected.len())?;
            }
        } else {
            self.pace = Some((v, reached));
        }
        Ok(())
    }

    /// Erases the first `n` victims paced GC finished, after a sync that
    /// followed a flush begun after they were finished; their erases are
    /// synced before a segment is next opened (`erase_unsynced`).
    pub(super) fn release_collected(&mut self, n: usize) -> Result<()> {
        let ready: Vec<SegId> = self
            .segs
            .collected
            .drain(..n.min(self.segs.collected.len()))
            .collect();
        for v in ready {
            if self.erase_segment(v)? {
                self.segs.set(v, SegState::Free);
                self.segs.free.push_back(v);
                self.stats.gc_blocks_reclaimed += 1;
            }
            self.erase_unsynced = true;
        }
        Ok(())
    }

    /// The slots of page `page` of `victim` whose sectors are live.
    fn live_slots(&self, victim: SegId, page: u32) -> Vec<u32> {
        let base = self.layout.ppa(victim, page, 0).0;
        (0..self.layout.sectors_per_page)
            .filter(|&k| {
                let lpn = self.p2l[(base + k) as usize];
                (lpn as u64) < self.logical && self.l2p[lpn as usize] == base + k
            })
            .collect()
    }

    /// Page `page` of `victim`, data and clues, from GC's reads ahead:
    /// first issuing reads for copy (the host does not wait for them) of
    /// the victim's pages with live sectors up to
    /// [`GC_READ_AHEAD_STRIPES`] stripes past it.
    fn gc_read(&mut self, victim: SegId, page: u32) -> Result<super::GcRead> {
        // Reads of other victims, or of pages already passed, are dropped.
        self.gc_ahead
            .retain(|r| r.victim == victim && r.page >= page);
        let mut next = match self.gc_ahead_next {
            Some((v, n)) if v == victim && n > page => n,
            _ => {
                self.gc_ahead.clear();
                page
            }
        };
        let depth = (GC_READ_AHEAD_STRIPES * self.layout.stripe) as usize;
        let pps = self.layout.pages_per_segment;
        while next < pps && (next == page || self.gc_ahead.len() < depth) {
            if next == page || !self.live_slots(victim, next).is_empty() {
                let r = self.read_for_copy(victim, next)?;
                self.gc_ahead.push_back(r);
            }
            next += 1;
        }
        self.gc_ahead_next = Some((victim, next));
        if let Some(at) = self.gc_ahead.iter().position(|r| r.page == page) {
            if let Some(r) = self.gc_ahead.remove(at) {
                return Ok(r);
            }
        }
        // Not read ahead (not reached here: a page with live sectors now
        // had them when the pages before it were read): read it now.
        self.read_for_copy(victim, page)
    }

    /// Reads page `page` of `victim`, data and clues in one command, for
    /// copy: the program of the page they go into waits for the data, not
    /// the host (`copy_into` in `program_stage`).
    fn read_for_copy(&mut self, victim: SegId, page: u32) -> Result<super::GcRead> {
        let mut data = vec![0u8; self.layout.geometry.page_size()];
        let mut oob = vec![0u8; self.layout.geometry.oob_size as usize];
        self.flash
            .read_for_copy(self.layout.page_addr(victim, page), 0, &mut data, &mut oob)?;
        Ok(super::GcRead {
            victim,
            page,
            data,
            oob,
        })
    }

    /// Copies the valid sectors of `victim` into the staging page.
    fn relocate(&mut self, victim: SegId) -> Result<()> {
        self.relocate_pages(victim, 1, self.layout.pages_per_segment, 0)
            .map(|_| ())
    }

    /// Copies the valid sectors of pages `from..to` of `victim` into the
    /// staging page, stopping early (before a page with live sectors) once
    /// at most `floor` free pages are left; returns the page it reached.
    fn relocate_pages(&mut self, victim: SegId, from: u32, to: u32, floor: u64) -> Result<u32> {
        let ss = self.layout.sector_size;
        for page in from..to.min(self.layout.pages_per_segment) {
            let live = self.live_slots(victim, page);
            if live.is_empty() {
                continue;
            }
            if floor > 0 && self.free_pages() <= floor + 1 {
                return Ok(page);
            }
            let base = self.layout.ppa(victim, page, 0).0;
            let addr = self.layout.page_addr(victim, page);
            let read = self.gc_read(victim, page)?;
            for k in live {
                let k = k as usize;
                let sector = &read.data[k * ss..(k + 1) * ss];
                let lpn = self.p2l[base as usize + k];
                let clue = match Clue::decode(&read.oob[k * CLUE_SIZE..], sector) {
                    Some(c) if c.lpn == lpn => c,
                    _ => {
                        return Err(FtlError::DamagedSector {
                            la: u64::from(lpn),
                            detail: format!(
                                "physical sector {} fails its clue while GC relocates it, so GC stops rather than copy it; overwrite or trim the sector",
                                base as usize + k
                            ),
                        })
                    }
                };
                let sector = sector.to_vec();
                self.stage_push_from(clue, &sector, Some(addr))?;
                if self.mutant == Mutant::OptrIncrementalOmitsRelocations {
                    self.ckpt_dirty[lpn as usize / 64] &= !(1 << (lpn % 64));
                    self.ckpt_dirty_list.retain(|&l| l != lpn);
                }
                self.stats.gc_sectors_relocated += 1;
            }
        }
        Ok(to.min(self.layout.pages_per_segment))
    }
}
