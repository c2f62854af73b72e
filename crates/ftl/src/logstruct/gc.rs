//! Greedy garbage collection of the baselines.
//!
//! A round picks the used segment with the least live content (valid
//! sectors plus live trim records), copies the live content into the merge
//! buffer — data sectors keep their OOB record and so their sequence number
//! and CRC; trim records keep their sequence number but may shrink — and
//! erases the victim.
//!
//! # Burst and paced GC
//!
//! The sync FTL (and recovery) collects in bursts: when a segment fills
//! and fewer than `gc_low_free_segments` (L) are free, whole rounds run
//! until `gc_high_free_segments` are free or waiting, while the host waits.
//!
//! The async FTL paces its GC with the host's writes, as a conventional
//! FTL's rate limiter does, so no write waits for a whole victim:
//! - **Start.** At a segment boundary with at most L segments free and no
//!   victim in progress, it releases a waiting victim (one sync; the merge
//!   buffer is empty at a boundary) and picks the greedy victim (`pacing`).
//! - **Pace.** Each host page programmed (and each page a flush programs)
//!   owes the victim `remaining pages / host budget` pages, where the host
//!   budget is the room left in the active segment minus the pages the
//!   victim's remaining live content will take there: the victim is done
//!   before the active segment fills. Owed pages are relocated in batches of
//!   1/[`PACED_BATCHES`] of a segment: on the timing model, relocating one
//!   or two pages per host page made each host program wait behind a GC
//!   read on its die (about 18% less throughput at WI = 2048), batches of
//!   an eighth match the burst GC's throughput and keep each host wait
//!   short.
//! - **Padding.** A flush that would pad its page first fills the empty
//!   slots with valid sectors of victim pages already read ahead (their
//!   reads were issued earlier, so the flush's program does not wait), and
//!   the scan then skips pages the fill emptied. At WI = 1 this moves most
//!   relocations into pages that were padding anyway.
//! - **Floor.** Paced GC keeps more than L - 1 segments free, the level at
//!   which the burst GC starts. If a victim is still in progress when taking
//!   the next active segment leaves fewer than L - 1 free, it is finished at
//!   once (its live content, at most S - N sectors, fits in the fresh
//!   segment); a boundary at L - 1 free or fewer with nothing in progress
//!   runs burst rounds up to L. Both count in
//!   `DeviceStats::gc_burst_victims`. So paced GC never goes below the free
//!   space the burst GC works from, which is what keeps a crash inside a
//!   recovery's own GC from finding no segment to write (the crash
//!   checker's nested crashes found a version whose floor was one lower).
//! - **One victim at a time.** A victim is in progress or waiting, never
//!   both ([`MAX_WAITING_VICTIMS`]; with two streams, see below), as with
//!   bursts; the in-progress victim
//!   stays `Used` (host writes never go into it, so its sectors only become
//!   stale) and everything behind the scan holds no live content (checked
//!   by `check_invariants`).
//!
//! Paced GC interleaves relocated (cold) and host (hot) data in the same
//! segments; bursts happen to separate them at WI = 1, where whole victims
//! are relocated back to back. The padding fill more than makes up for it
//! there (docs/BENCHMARKS.md, randwr).
//!
//! # Two streams (hot/cold separation, `LogConfig::streams` = 2)
//!
//! - **Where relocations go.** Into the GC merge buffer (`gc_buf`), whose
//!   pages fill their own active segment (`gc_active`), so host segments
//!   hold host writes only (and the flush's padding fill, above). The GC
//!   head takes a segment only while [`super::engine::GC_HEAD_MIN_FREE`]
//!   are free; with fewer, the GC buffer's page goes to the host's active
//!   segment, as with one stream, so GC never takes the last free segment.
//! - **Never logged.** The GC buffer is not in the sync FTL's
//!   battery-backed log: its sectors' only durable copies are in their
//!   victims, so a victim waits (`Collected`, as the async FTL's do) until
//!   the GC buffer's page holding its last relocations is programmed (and,
//!   async, synced). Without that wait the mutant `release-before-gc-page`
//!   loses the GC buffer's sectors in a cut.
//! - **Release marks** (`engine::Release`): a victim collected while a
//!   buffer holds something waits for that buffer's next program, counted
//!   per buffer (`LogFtl::programs`); a buffer found empty has programmed
//!   (or given up to host writes) everything it held. A host write or
//!   trim that replaces a sector in the GC buffer puts the new copy in the
//!   host buffer, so every waiting victim then also waits for the host
//!   buffer's next program (the victim's copy may be the only durable one).
//!   A sync releases the victims whose marks are met; nothing is padded
//!   for them, which is what the first two-stream version did at every
//!   victim, and which cost it more than separation saved at 13%
//!   over-provisioning (1.7 padded sectors per victim where a victim
//!   frees about 28).
//! - **Two may wait** ([`MAX_WAITING_VICTIMS_TWO_STREAMS`]): one behind
//!   its GC page while the next is collected (its relocations fill that
//!   page), then both. Paced GC counts one waiting victim as free
//!   (`paced_free`). Only when both wait and neither is releasable, or free
//!   space reaches the floor, is the GC page padded and programmed
//!   (`DeviceStats::gc_forced_releases`; 0 in `bench wear`).
//! - **Reserve.** The GC head and the second waiting victim are two
//!   segments that one stream does not hold, so both watermarks are raised
//!   by [`super::config::STREAM_RESERVE`] (`LogConfig::low`, `high`) and the
//!   largest logical size falls by two segments' worth. The crash checker
//!   found recoveries (after cuts inside recoveries) with no free segment
//!   at a reserve of 0 (every seed of 1–20 on `tiny`, 200,000 operations)
//!   and of 1 (7 of 20); with 2, none in 130 seeds. (Part of that may
//!   have been recovery's own doing: until 2026-12-07 it left a second
//!   copy of a winner unerased in a segment it counted free, which a later
//!   recovery could bring back to life — `recovery.rs` `erase_twins` —
//!   and let a victim whose erase a crash reverted win every tie with
//!   its relocated copies, which `Scan::prefer_twins` fixed on
//!   2026-12-07. With both fixed, a reserve of 1 passed seeds 1–20 of
//!   `crashtest --ftl async|sync --hot-cold --geometry tiny --ops
//!   200000`, a reserve of 0 failed four of 20 (victims waiting behind an
//!   unsynced GC page). The reserve stays 2 until a longer campaign and
//!   the benchmarks at 1 say otherwise.) The reserve is idle
//!   space: on a device of few segments it costs more than separation
//!   saves (`small`, 31 segments), on one of many it does not (`bench
//!   wear`, 127 segments: WAF 1.515 → 1.408 under 80/20 with the async
//!   FTL).
//! - **Pacing.** A victim still frees S minus its load, so the pacing rate
//!   is the same; a finished victim is followed at once by the next while
//!   free space is at the low watermark (`chain_paced`). Free space still
//!   reaches the floor often, so with two streams most victims end in a
//!   burst (`gc_burst_victims`): a latency cost, not a WAF one.
//! - The sync FTL gains little: its burst GC already relocates whole
//!   victims back to back.
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

use super::engine::{LogFtl, Stream, P2L_NONE, P2L_TRIM};
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

/// Victims that may wait at once with two streams: one whose last
/// relocations are still in the GC buffer, behind the one being collected
/// (whose relocations fill that page), and the one that collection then
/// finishes. See "Two streams" in the module documentation.
pub(crate) const MAX_WAITING_VICTIMS_TWO_STREAMS: u32 = 2;

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

/// Paced GC relocates a victim in batches of 1/`PACED_BATCHES` of a segment.
pub(crate) const PACED_BATCHES: u32 = 8;

/// Fixed-point shift of `LogFtl::gc_owed` (victim pages owed, in 1/65536).
pub(crate) const OWED_SHIFT: u32 = 16;

/// Stripes of victim pages the async GC keeps read ahead.
pub(crate) const READ_AHEAD_STRIPES: u32 = 2;

impl<F: Flash> LogFtl<F> {
    /// Runs GC rounds until `gc_high_free_segments` segments are free, no
    /// victim is left, or a bounded number of rounds made no headway.
    pub(crate) fn run_gc(&mut self) -> Result<()> {
        self.in_gc = true;
        let r = self.gc_rounds(self.config.high());
        self.in_gc = false;
        r
    }

    /// Whole (burst) rounds until `target` segments are free or waiting.
    fn gc_rounds(&mut self, target: u32) -> Result<()> {
        let limit = 2 * self.layout.segments;
        for _ in 0..limit {
            if self.must_release() {
                // Correctness, not throughput: the waiting victims must be
                // erasable before space runs out (module documentation).
                self.release_waiting()?;
                continue;
            }
            let waiting = self.segs.collected.len() as u32;
            if self.segs.free_count() + waiting >= target {
                break;
            }
            match self.segs.pick_victim() {
                Some(v) => {
                    self.stats.gc_burst_victims += 1;
                    self.collect(v)?
                }
                None => break,
            }
        }
        Ok(())
    }

    /// Victims that may wait for a sync at once.
    #[inline]
    pub(crate) fn max_waiting(&self) -> u32 {
        if self.two_streams() {
            MAX_WAITING_VICTIMS_TWO_STREAMS
        } else {
            MAX_WAITING_VICTIMS
        }
    }

    /// Whether waiting victims must be released before GC goes on: as
    /// many wait as may, or free space is at the floor while one waits.
    fn must_release(&self) -> bool {
        let waiting = self.segs.collected.len() as u32;
        waiting >= self.max_waiting()
            || (waiting > 0 && self.segs.free_count() < FREE_FLOOR + self.config.stream_reserve())
    }

    /// Whether a sync now would release a waiting victim (two streams:
    /// its release marks are met).
    fn release_ready_now(&self) -> bool {
        self.segs.collected.iter().any(|&s| self.releasable(s))
    }

    /// Releases waiting victims: with one stream, programs the merge
    /// buffer and syncs (all of them go). With two, a sync alone when it
    /// releases one and leaves GC free to go on; else the GC buffer's page
    /// is padded and programmed too, which releases all.
    fn release_waiting(&mut self) -> Result<()> {
        if self.two_streams() && self.release_ready_now() {
            self.sync_device()?;
            if !self.must_release() {
                return Ok(());
            }
        }
        self.program_buffer()?;
        if self.two_streams() {
            self.stats.gc_forced_releases += 1;
            self.program_stream(Stream::Gc)?;
        }
        self.sync_device()
    }

    /// Whether GC is paced (the async FTL) rather than run in whole rounds
    /// (the sync FTL, and recovery).
    #[inline]
    pub(crate) fn paced(&self) -> bool {
        self.mode.kind == FtlKind::Async
    }

    /// The free segments paced GC counts: with two streams, one waiting
    /// victim counts as free (it is freed once its GC page is programmed,
    /// and the second stream's reserve in the watermarks is sized for it;
    /// config.rs). Without it, a victim waiting behind its GC page at
    /// every boundary kept paced GC at its floor, collecting in bursts.
    #[inline]
    fn paced_free(&self) -> u32 {
        let waiting = if self.two_streams() {
            (self.segs.collected.len() as u32).min(1)
        } else {
            0
        };
        self.segs.free_count() + waiting
    }

    /// Paced GC's floor: `gc_low_free_segments - 1`, the free count at
    /// which the burst GC starts. Paced GC keeps free space above it; at it,
    /// it is the burst GC (see the module documentation).
    #[inline]
    fn paced_floor(&self) -> u32 {
        self.config.low() - 1
    }

    /// Paced GC at a segment boundary (the active segment just filled, the
    /// next is not taken yet): if at most `gc_low_free_segments` are free
    /// and no victim is in progress, release a waiting victim and pick the
    /// next one — or, if free space already fell to the floor, run whole
    /// rounds as the burst GC would (see the module documentation).
    pub(crate) fn gc_at_boundary(&mut self) -> Result<()> {
        if self.in_gc {
            return Ok(());
        }
        if self.two_streams() && self.release_ready_now() {
            // A victim whose GC page has been programmed since: a sync
            // frees it (the host buffer is empty at a boundary).
            self.in_gc = true;
            let r = self.sync_device();
            self.in_gc = false;
            r?;
        }
        if self.pacing.is_some() || self.paced_free() > self.config.low() {
            return Ok(());
        }
        self.in_gc = true;
        let r = self.start_paced();
        self.in_gc = false;
        r
    }

    fn start_paced(&mut self) -> Result<()> {
        if self.two_streams() {
            // One victim may wait (behind its GC page) while the next is
            // collected; with more, release them first.
            if self.segs.collected.len() as u32 >= self.max_waiting() {
                self.release_waiting()?;
            }
        } else if !self.segs.collected.is_empty() {
            // At most one victim is waiting or in progress
            // (MAX_WAITING_VICTIMS): release the waiting one first. At a
            // boundary the merge buffer is empty, so this is one sync.
            self.program_buffer()?;
            self.sync_device()?;
        }
        if self.paced_free() <= self.paced_floor() {
            return self.gc_rounds(self.paced_floor() + 1);
        }
        if let Some(v) = self.segs.pick_victim() {
            self.pacing = Some((v, 0));
        }
        Ok(())
    }

    /// Two streams: after a paced victim finished, picks the next one at
    /// once while free space is at or below the low watermark and another
    /// victim may wait. The relocations of a victim take room in the GC's
    /// segment, not the host's, so one victim per host segment, as with
    /// one stream, would let free space drain to the floor and the host
    /// wait for bursts. True if a victim was picked.
    fn chain_paced(&mut self) -> bool {
        if !self.two_streams()
            || self.pacing.is_some()
            || self.paced_free() > self.config.low()
            || self.segs.collected.len() as u32 >= self.max_waiting()
        {
            return false;
        }
        self.pacing = self.segs.pick_victim().map(|v| (v, 0));
        self.pacing.is_some()
    }

    /// After the next active segment was taken: a victim still in progress
    /// when fewer than the floor's segments are left is finished now (its
    /// live content fits in the fresh active segment).
    pub(crate) fn gc_behind(&mut self) -> Result<()> {
        if self.in_gc || self.pacing.is_none() || self.paced_free() >= self.paced_floor() {
            return Ok(());
        }
        self.in_gc = true;
        self.stats.gc_burst_victims += 1;
        let r = self.advance_paced(u32::MAX, false);
        self.in_gc = false;
        r
    }

    /// Paced GC's share of one host page (called as the host programs, or
    /// a flush is about to program, a page). The victim's pages are owed at
    /// the rate that finishes it before the active segment fills, counting
    /// the pages its remaining live content will take there; they are
    /// relocated in batches of [`LogFtl::paced_batch`] pages (all at once
    /// when the active segment has little room left).
    pub(crate) fn gc_step(&mut self) -> Result<()> {
        let Some((victim, next)) = self.pacing else {
            return Ok(());
        };
        if self.in_gc {
            return Ok(());
        }
        let pages = self.layout.pages_per_segment;
        let spp = self.layout.sectors_per_page;
        let left = self.active.map_or(0, |(_, p)| pages - p);
        // With two streams the relocations take their room in the GC's
        // segment instead, but the same amount: a victim frees S minus its
        // load, so it must be done while the host writes that much.
        let relocation = (self.segs.load(victim) + self.buf.len() as u32).div_ceil(spp) + 1;
        let host_budget = u64::from(left.saturating_sub(relocation).max(1));
        let batch = u64::from(self.paced_batch());
        self.gc_owed += (u64::from(pages - next) << OWED_SHIFT) / host_budget;
        let owed = self.gc_owed >> OWED_SHIFT;
        let quota = if host_budget <= batch {
            u32::MAX
        } else if owed >= batch {
            owed as u32
        } else {
            return Ok(());
        };
        self.gc_owed -= owed << OWED_SHIFT;
        self.in_gc = true;
        let r = self.advance_paced(quota, true);
        self.in_gc = false;
        r
    }

    /// Pages of a victim paced GC relocates at a time: an eighth of a
    /// segment, at least one page (see the module documentation).
    #[inline]
    pub(crate) fn paced_batch(&self) -> u32 {
        (self.layout.pages_per_segment / PACED_BATCHES).max(1)
    }

    /// Paced GC in a flush: moves valid sectors of the victim into the
    /// merge buffer's empty slots, which the flush would otherwise pad, so
    /// they cost no page of their own. They come from the victim pages read
    /// ahead (whose reads were issued earlier, so the flush's program does
    /// not wait for a new read); the scan later skips them as no longer
    /// valid.
    pub(crate) fn gc_fill_padding(&mut self) -> Result<()> {
        if self.in_gc || self.pacing.is_none() || self.buf.is_empty() {
            return Ok(());
        }
        self.in_gc = true;
        let r = self.fill_padding();
        self.in_gc = false;
        r
    }

    fn fill_padding(&mut self) -> Result<()> {
        let spp = self.layout.sectors_per_page as usize;
        let ss = self.layout.sector_size;
        let Some((victim, _)) = self.pacing else {
            return Ok(());
        };
        // Only pages whose reads were issued before this flush: a page read
        // now would hold up the flush's program.
        let ready = if self.ahead.victim == Some(victim) {
            self.ahead.staged.len()
        } else {
            0
        };
        let mut data = std::mem::take(&mut self.trim_scratch);
        let mut r = Ok(());
        'pages: for i in 0..ready {
            let (page, lo, hi) = {
                let st = &self.ahead.staged[i];
                (st.page, st.lo, st.hi)
            };
            let base = self.layout.ppa(victim, page, 0).0 as usize;
            let addr = self.layout.page_addr(victim, page);
            for slot in lo..hi {
                if self.buf.is_empty() || self.buf.len() == spp {
                    break 'pages;
                }
                let p = base + slot;
                if !self.is_valid(p) {
                    continue;
                }
                let st = &self.ahead.staged[i];
                let rec: [u8; OOB_RECORD_SIZE] = st.oob
                    [slot * OOB_RECORD_SIZE..(slot + 1) * OOB_RECORD_SIZE]
                    .try_into()
                    .expect("16-byte record");
                data[..ss].copy_from_slice(&st.data[slot * ss..(slot + 1) * ss]);
                let tag = self.p2l[p];
                r = self.move_valid_sector(Stream::Host, victim, addr, p, tag, &rec, &data[..ss]);
                if r.is_err() {
                    break 'pages;
                }
            }
        }
        self.trim_scratch = data;
        r?;
        // The scan moves past pages the fill emptied (their trim records,
        // if any, are moved as usual), and reads ahead for the next flush.
        while let Some((victim, next)) = self.pacing {
            if next == self.layout.pages_per_segment {
                self.pacing = None;
                self.gc_owed = 0;
                self.finish_victim(victim)?;
                self.chain_paced();
                return Ok(());
            }
            let base = self.layout.ppa(victim, next, 0).0 as usize;
            if (base..base + spp).any(|p| self.is_valid(p)) {
                return self.read_ahead(victim, next);
            }
            self.relocate_page(victim, next)?;
            self.pacing = Some((victim, next + 1));
        }
        Ok(())
    }

    /// Moves valid physical sector `p` (of logical sector `tag`, on page
    /// `addr` of `victim`), whose OOB record and data were just read, into
    /// `stream`'s merge buffer, programming the buffer if that fills it. A
    /// record that does not match the data is [`FtlError::DamagedSector`].
    #[allow(clippy::too_many_arguments)]
    fn move_valid_sector(
        &mut self,
        stream: Stream,
        victim: SegId,
        addr: flash::PageAddr,
        p: usize,
        tag: u32,
        rec: &[u8; OOB_RECORD_SIZE],
        data: &[u8],
    ) -> Result<()> {
        self.make_log_room()?;
        let r = super::oob::decode_record(rec);
        if r.la != tag || !r.matches(data) {
            // The flash no longer holds what was programmed: copying it
            // would spread the damage.
            return Err(FtlError::DamagedSector {
                la: u64::from(tag),
                detail: format!(
                    "physical sector {p} fails its checksum while GC relocates it, so GC stops rather than copy it; overwrite or trim the sector to let GC proceed, or copy the data off and re-format"
                ),
            });
        }
        if stream == Stream::Host {
            if let Some(l) = self.nvlog.as_mut() {
                l.append(&mut self.flash, tag, r.seq, data)?;
            }
        }
        self.segs.valid[victim.0 as usize] -= 1;
        if !self.mode.sync_each_command {
            if let Some(dst) = self.stream_page(stream) {
                self.flash.copy_into(addr, dst);
            }
        }
        let b = self.buffer_mut(stream).push_with_record(rec, data);
        self.l2p[tag as usize] = self.slot_loc(stream, b);
        self.stats.gc_sectors_relocated += 1;
        if self.buffer(stream).is_full() {
            self.program_stream(stream)?;
        }
        Ok(())
    }

    /// The stream GC relocations go to.
    #[inline]
    fn reloc_stream(&self) -> Stream {
        if self.two_streams() {
            Stream::Gc
        } else {
            Stream::Host
        }
    }

    /// Relocates up to `quota` pages of the victim in progress (all of them
    /// once fewer than the floor's segments are free), and finishes it after
    /// its last page; with `chain`, goes on with the next victim
    /// ([`LogFtl::chain_paced`]).
    fn advance_paced(&mut self, quota: u32, chain: bool) -> Result<()> {
        let mut done = 0u32;
        while let Some((victim, next)) = self.pacing {
            if next == self.layout.pages_per_segment {
                self.pacing = None;
                self.gc_owed = 0;
                self.finish_victim(victim)?;
                if chain && self.chain_paced() {
                    continue;
                }
                return Ok(());
            }
            if done >= quota && self.paced_free() >= self.paced_floor() {
                break;
            }
            self.relocate_page(victim, next)?;
            self.pacing = Some((victim, next + 1));
            done += 1;
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
    pub(crate) fn is_valid(&self, p: usize) -> bool {
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
        let stream = self.reloc_stream();
        for slot in 0..spp {
            let p = base + slot;
            let tag = self.p2l[p];
            if self.is_valid(p) {
                debug_assert!(staged.lo <= slot && slot < staged.hi);
                let rec: [u8; OOB_RECORD_SIZE] = staged.oob
                    [slot * OOB_RECORD_SIZE..(slot + 1) * OOB_RECORD_SIZE]
                    .try_into()
                    .expect("16-byte record");
                let data = &staged.data[slot * ss..(slot + 1) * ss];
                if let Err(e) = self.move_valid_sector(stream, victim, addr, p, tag, &rec, data) {
                    self.ahead.pool.push(staged);
                    return Err(e);
                }
            } else if tag == P2L_TRIM {
                let rec = self.trims.remove(&(p as u32));
                self.p2l[p] = P2L_NONE;
                self.segs.trims[victim.0 as usize] -= 1;
                let Some(rec) = rec else { continue };
                if let Some((start, count)) = self.still_needed(rec.start, rec.count) {
                    encode_trim(&mut self.trim_scratch, start, count);
                    if stream == Stream::Host {
                        self.make_log_room()?;
                        if let Some(l) = self.nvlog.as_mut() {
                            l.append(&mut self.flash, LA_TRIM, rec.seq, &self.trim_scratch)?;
                        }
                    }
                    let scratch = std::mem::take(&mut self.trim_scratch);
                    self.buffer_mut(stream).push(LA_TRIM, rec.seq, &scratch);
                    self.trim_scratch = scratch;
                    self.stats.gc_sectors_relocated += 1;
                    if self.buffer(stream).is_full() {
                        self.program_stream(stream)?;
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
        self.read_ahead(victim, page)?;
        while let Some(st) = self.ahead.staged.pop_front() {
            if st.page == page {
                return Ok(st);
            }
            self.ahead.pool.push(st);
        }
        // Not reached: the loop above staged `page` (`next` was at most it).
        self.read_page(victim, page, true)
    }

    /// Issues reads for copy of `victim`'s pages from `page` on, until
    /// [`READ_AHEAD_STRIPES`] stripes of them are staged.
    fn read_ahead(&mut self, victim: SegId, page: u32) -> Result<()> {
        let ahead_of_page = self
            .ahead
            .staged
            .front()
            .map_or(self.ahead.next, |st| st.page);
        if self.ahead.victim != Some(victim) || ahead_of_page > page || self.ahead.next <= page {
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
        Ok(())
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
        let waits_for_gc_page = !self.gc_buf.is_empty() && !self.mode.release_before_gc_page;
        let erased = if self.mode.durable_buffer && !waits_for_gc_page {
            let erased = self.erase_segment(victim)?;
            if self.mode.sync_each_command {
                self.flash.sync()?;
            }
            erased
        } else if self.mode.erase_before_sync {
            let erased = self.erase_segment(victim)?;
            self.program_buffer()?;
            self.program_stream(Stream::Gc)?;
            self.flash.sync()?;
            erased
        } else if self.mode.kind == FtlKind::Async || self.mode.durable_buffer {
            // Erased after the next sync that follows programming what the
            // merge buffers hold now (module documentation); the sync FTL
            // (two streams) waits only for the GC buffer's page.
            self.release.insert(victim, self.release_mark());
            self.segs.set(victim, SegState::Collected);
            self.segs.collected.push(victim);
            self.stats.gc_blocks_reclaimed += 1;
            return Ok(());
        } else {
            // The SyncSkipSync mutant: as async did before deferring.
            self.program_buffer()?;
            self.program_stream(Stream::Gc)?;
            self.flash.sync()?;
            self.erase_segment(victim)?
        };
        if erased {
            self.segs.set(victim, SegState::Free);
            self.segs.free.push_back(victim);
            self.stats.gc_blocks_reclaimed += 1;
        }
        Ok(())
    }
}
