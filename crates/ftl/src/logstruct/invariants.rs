//! `check_invariants` of the baselines: the invariants listed in engine.rs,
//! segs.rs and buffer.rs, plus agreement with a read-only recovery scan.
//!
//! The scan comparison: sync — every logical sector must recover to its
//! current mapping (same sequence number); async — every sector not changed
//! since the last flush must. The scan checks data CRCs on devices opened by
//! recovery (a crash may have left torn pages whose OOB records are garbage)
//! or that saw a program fail (the failed page holds what the flash left),
//! and on devices of at most [`VERIFY_DATA_MAX_SECTORS`] physical sectors;
//! a larger device fresh from `format` skips them, to keep the check cheap
//! enough to run after every operation on the `small` geometry. The real
//! recovery always checks them.

use flash::Flash;

use super::engine::{LogFtl, Stream, P2L_NONE, P2L_TRIM};
use super::layout::{Ppa, SegId};
use super::nvlog::NvLog;
use super::oob::{decode_record, LA_TRIM, OOB_RECORD_SIZE};
use super::recovery::{scan, Winner};
use super::segs::{SegState, Segments};
use crate::device::FtlKind;
use crate::UNMAPPED;

/// Devices up to this many physical sectors get a CRC-checking scan.
pub const VERIFY_DATA_MAX_SECTORS: u32 = 8192;

macro_rules! ensure {
    ($c:expr, $($arg:tt)*) => {
        if !$c {
            return Err(format!($($arg)*));
        }
    };
}

impl<F: Flash> LogFtl<F> {
    /// Checks every invariant; returns the first broken one.
    pub fn check_invariants(&mut self) -> Result<(), String> {
        self.check_tables()?;
        self.check_segments()?;
        self.check_against_scan()
    }

    fn check_tables(&self) -> Result<(), String> {
        let lay = &self.layout;
        let mut valid = vec![0u32; lay.segments as usize];
        let mut mapped = 0u64;
        for (la, &loc) in self.l2p.iter().enumerate() {
            if loc == UNMAPPED {
                continue;
            }
            mapped += 1;
            if let Some((stream, slot)) = self.buffered(loc) {
                let b = self.buffer(stream);
                ensure!(
                    slot < b.len(),
                    "la {la} maps to empty {stream:?} buffer slot {slot}"
                );
                ensure!(
                    b.la(slot) == la as u32,
                    "la {la} maps to {stream:?} buffer slot {slot} holding la {}",
                    b.la(slot)
                );
            } else {
                ensure!(
                    loc < lay.physical_sectors,
                    "la {la} maps to nonexistent sector {loc}"
                );
                ensure!(
                    self.p2l[loc as usize] == la as u32,
                    "l2p[{la}] = {loc} but p2l[{loc}] = {}",
                    self.p2l[loc as usize]
                );
                let seg = lay.seg_of(Ppa(loc));
                valid[seg.0 as usize] += 1;
            }
        }
        ensure!(
            mapped == self.mapped,
            "{mapped} sectors mapped, counter says {}",
            self.mapped
        );
        for stream in [Stream::Host, Stream::Gc] {
            let b = self.buffer(stream);
            ensure!(
                stream == Stream::Host || self.two_streams() || b.is_empty(),
                "one stream, yet the GC buffer holds {} sectors",
                b.len()
            );
            for slot in 0..b.len() {
                let la = b.la(slot);
                let rec = decode_record(b.record(slot));
                ensure!(
                    rec.la == la && rec.seq == b.seq(slot) && rec.matches(b.sector(slot)),
                    "{stream:?} buffer slot {slot}: record does not match its content"
                );
                ensure!(
                    rec.seq < self.next_seq,
                    "{stream:?} buffer slot {slot}: seq {} not below next_seq {}",
                    rec.seq,
                    self.next_seq
                );
                if la != LA_TRIM {
                    ensure!(
                        self.l2p[la as usize] == self.slot_loc(stream, slot),
                        "{stream:?} buffer slot {slot} holds la {la}, which maps elsewhere"
                    );
                }
            }
            for slot in b.len()..lay.sectors_per_page as usize {
                ensure!(
                    b.record(slot).iter().all(|&x| x == 0xFF),
                    "unused {stream:?} buffer slot {slot} has a record"
                );
            }
        }
        let mut copies = vec![0u32; self.logical as usize];
        let mut trims = vec![0u32; lay.segments as usize];
        for (p, &tag) in self.p2l.iter().enumerate() {
            if (tag as u64) < self.logical {
                copies[tag as usize] += 1;
            } else if tag == P2L_TRIM {
                ensure!(
                    self.trims.contains_key(&(p as u32)),
                    "p2l[{p}] is a trim record the table lacks"
                );
                trims[lay.seg_of(Ppa(p as u32)).0 as usize] += 1;
            } else {
                ensure!(tag == P2L_NONE, "p2l[{p}] = {tag} is no logical sector");
            }
        }
        ensure!(copies == self.copies, "copy counts disagree with p2l");
        ensure!(
            trims.iter().map(|&t| t as usize).sum::<usize>() == self.trims.len(),
            "trim table has records p2l lacks"
        );
        ensure!(valid == self.segs.valid, "valid counts disagree with l2p");
        ensure!(
            trims == self.segs.trims,
            "per-segment trim counts disagree with p2l"
        );
        Ok(())
    }

    fn check_segments(&self) -> Result<(), String> {
        let actives = self.check_segment_states()?;
        self.check_bad_segments()?;
        self.check_heads(actives)
    }

    /// Every segment's state against the queues and lists it must be in,
    /// and its content; returns how many are `Active`.
    fn check_segment_states(&self) -> Result<usize, String> {
        let lay = &self.layout;
        let segs = &self.segs;
        segs.check_transitions()?;
        ensure!(
            segs.state(SegId(0)) == SegState::Reserved,
            "segment 0 is not reserved for the label"
        );
        let mut in_queue = vec![false; lay.segments as usize];
        for s in &segs.free {
            ensure!(
                !in_queue[s.0 as usize],
                "segment {} is twice in the free queue",
                s.0
            );
            in_queue[s.0 as usize] = true;
        }
        let mut waiting = vec![false; lay.segments as usize];
        for s in &segs.collected {
            ensure!(
                !waiting[s.0 as usize] && segs.state(*s) == SegState::Collected,
                "segment {} is in the collected list twice or is {:?}",
                s.0,
                segs.state(*s)
            );
            waiting[s.0 as usize] = true;
        }
        let mut actives = 0;
        for (seg, &queued_here) in in_queue.iter().enumerate() {
            let st = segs.states()[seg];
            ensure!(
                seg == 0 || st != SegState::Reserved,
                "segment {seg} is reserved"
            );
            ensure!(
                waiting[seg] == (st == SegState::Collected),
                "segment {seg} is {st:?} but in the collected list = {}",
                waiting[seg]
            );
            let queued = matches!(st, SegState::Free | SegState::Dirty);
            ensure!(
                queued == queued_here,
                "segment {seg} is {st:?} but queued = {}",
                queued_here
            );
            if st == SegState::Active {
                actives += 1;
                let id = Some(SegId(seg as u32));
                ensure!(
                    self.active.map(|a| a.0) == id || self.gc_active.map(|a| a.0) == id,
                    "segment {seg} is Active but neither the host's nor the GC's active segment"
                );
            }
            if !matches!(st, SegState::Active | SegState::Used) {
                ensure!(
                    segs.load(SegId(seg as u32)) == 0,
                    "{st:?} segment {seg} holds live content"
                );
            }
            if st == SegState::Free {
                let base = lay.seg_base(SegId(seg as u32)) as usize;
                ensure!(
                    self.p2l[base..base + lay.sectors_per_segment as usize]
                        .iter()
                        .all(|&t| t == P2L_NONE),
                    "free segment {seg} has p2l entries"
                );
            }
        }
        Ok(actives)
    }

    /// The set of used segments with a bad block, and the free segment the
    /// configuration always keeps.
    fn check_bad_segments(&self) -> Result<(), String> {
        let lay = &self.layout;
        let segs = &self.segs;
        for seg in 1..lay.segments {
            let id = SegId(seg);
            let used_bad = matches!(segs.state(SegId(seg)), SegState::Used | SegState::Collected)
                && Segments::has_bad_block(&self.flash, lay, id);
            ensure!(
                used_bad == self.bad_in_use.contains(&id),
                "segment {seg} is {:?} (bad block: {}) but the set of used segments with a bad block {} it",
                segs.state(SegId(seg)),
                Segments::has_bad_block(&self.flash, lay, id),
                if used_bad { "misses" } else { "holds" }
            );
        }
        // A read-only device writes nothing more, and a recovery that finds
        // no free segment opens it read-only (the crash checker verifies
        // its flushed data after that): the failure that turned it
        // read-only may have taken the last free segment.
        ensure!(
            segs.free_count() >= 1 || self.worn_out.is_some(),
            "no free segment left between operations (config invariant: at least one is free at every instant; used {}, collected {}, retired {}, spare {}, read-only {})",
            segs.count(SegState::Used),
            segs.count(SegState::Collected),
            segs.count(SegState::Retired),
            self.spare_segments,
            self.worn_out.is_some()
        );
        Ok(())
    }

    /// The active segments (host and GC), paced GC and the victims that
    /// wait for a sync; `actives` segments are `Active`.
    fn check_heads(&self, actives: usize) -> Result<(), String> {
        let lay = &self.layout;
        let segs = &self.segs;
        if let Some((v, next)) = self.pacing {
            let st = segs.state(v);
            ensure!(
                self.paced() && st == SegState::Used && next < lay.pages_per_segment,
                "paced GC victim {} is {st:?} at page {next}",
                v.0
            );
            ensure!(
                (segs.collected.len() as u32) < self.max_waiting(),
                "{} victims wait for a sync while paced GC collects segment {}",
                segs.collected.len(),
                v.0
            );
            let base = lay.seg_base(v) as usize;
            for p in base..base + (next * lay.sectors_per_page) as usize {
                ensure!(
                    !self.is_valid(p) && self.p2l[p] != P2L_TRIM,
                    "physical sector {p} of paced GC victim {} holds live content behind the scan (page {next})",
                    v.0
                );
            }
        }
        ensure!(
            (segs.collected.len() as u32) <= self.max_waiting(),
            "{} victims wait for a sync (at most {})",
            segs.collected.len(),
            self.max_waiting()
        );
        let heads = [self.active, self.gc_active];
        for (s, page) in heads.into_iter().flatten() {
            ensure!(
                page < lay.pages_per_segment && segs.state(s) == SegState::Active,
                "active segment {} page {page} inconsistent",
                s.0
            );
        }
        ensure!(
            self.two_streams() || self.gc_active.is_none(),
            "one stream, yet a GC active segment"
        );
        ensure!(
            self.active.is_none() || self.active.map(|a| a.0) != self.gc_active.map(|a| a.0),
            "the host and GC active segments are the same"
        );
        ensure!(
            actives == heads.iter().flatten().count(),
            "{actives} Active segments, {} active pointers",
            heads.iter().flatten().count()
        );
        for &seg in &segs.collected {
            ensure!(
                !self.two_streams() || self.release.contains_key(&seg),
                "waiting victim {} has no release mark",
                seg.0
            );
        }
        ensure!(
            self.release.keys().all(|s| segs.collected.contains(s)),
            "a release mark of a victim no longer waiting"
        );
        Ok(())
    }

    fn check_against_scan(&mut self) -> Result<(), String> {
        let strict = self.mode.durable_buffer;
        if !strict && !(self.mode.kind == FtlKind::Async) {
            return Ok(()); // the SyncSkipSync mutant promises nothing
        }
        let entries = if strict {
            match NvLog::open(&mut self.flash, self.layout.sectors_per_page) {
                Ok((_, e)) => e,
                Err(e) => return Err(format!("battery-backed log unreadable: {e}")),
            }
        } else {
            Vec::new()
        };
        // A failed program leaves what the flash made of the page (zeros
        // on the crash model: a record of la 0, seq 0, whose CRC fails), as
        // a crash leaves torn pages: both need the CRCs checked.
        let verify = self.recovered
            || self.stats.program_failures > 0
            || self.layout.physical_sectors <= VERIFY_DATA_MAX_SECTORS;
        let s = scan(
            &mut self.flash,
            &self.layout,
            self.logical,
            &entries,
            verify,
        )
        .map_err(|e| format!("read-only recovery scan failed: {e}"))?;
        ensure!(
            s.max_seq < self.next_seq,
            "flash holds seq {} >= next_seq {}",
            s.max_seq,
            self.next_seq
        );
        let mut oob = vec![0u8; OOB_RECORD_SIZE * self.layout.sectors_per_page as usize];
        for la in 0..self.logical as usize {
            if !strict && self.dirty.contains(la as u32) {
                continue;
            }
            let loc = self.l2p[la];
            let w = s.winner(&self.layout, la);
            if loc == UNMAPPED {
                ensure!(
                    w == Winner::Unmapped,
                    "la {la} is unmapped but recovery would find {w:?}"
                );
                continue;
            }
            let mem_seq = if let Some((stream, slot)) = self.buffered(loc) {
                self.buffer(stream).seq(slot)
            } else if w == Winner::Flash(Ppa(loc)) {
                continue;
            } else {
                let (seg, page, slot) = self.layout.locate(Ppa(loc));
                let addr = self.layout.page_addr(seg, page);
                self.flash
                    .read_oob(addr, &mut oob)
                    .map_err(|e| e.to_string())?;
                decode_record(&oob[slot as usize * OOB_RECORD_SIZE..]).seq
            };
            ensure!(
                w != Winner::Unmapped && s.best_seq[la] == mem_seq,
                "la {la}: memory has seq {mem_seq}, recovery would pick {w:?} with seq {}",
                s.best_seq[la]
            );
        }
        Ok(())
    }
}
