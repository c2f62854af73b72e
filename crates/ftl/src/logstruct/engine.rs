//! The log-structured engine both baselines run on: sector-level L2P/P2L,
//! a page-sized merge buffer, greedy GC, and a per-sector OOB record
//! `(la, seq, crc)` from which recovery rebuilds everything, and which
//! every read from flash verifies (a mismatch is
//! [`FtlError::DamagedSector`], never other data).
//!
//! Invariants (all checked by `check_invariants`, see invariants.rs):
//! - `l2p[la]` is `UNMAPPED`, a physical sector `p` with `p2l[p] == la`,
//!   `buf_base + slot` with the host merge buffer's `slot` holding `la`, or
//!   `buf_base + N + slot` with the GC merge buffer's (two streams); a
//!   logical sector has at most one buffer slot;
//! - `p2l[p]` is the logical sector of every OOB record counted in `copies`
//!   (live or stale, until its segment is erased), `P2L_TRIM` for a live trim
//!   record, or `P2L_NONE`;
//! - `copies[la]` counts the physical sectors whose `p2l` is `la`;
//! - sequence numbers: `next_seq` is above every sequence number on flash
//!   and in the battery-backed log; a relocated sector keeps its number.
//! - (async) no erase is ever issued while a copy that beats one it
//!   destroys (a relocated copy, or a newer write of a stale sector) is
//!   unsynced: GC victims wait as `Collected` until a sync that follows
//!   programming what the merge buffers held when they were collected
//!   (their `Release` marks, see `gc.rs`);
//! - (two streams) the GC merge buffer's sectors are never in the sync
//!   FTL's battery-backed log: their only durable copies are in victims,
//!   which wait as `Collected` until the GC buffer's page is programmed.
//!
//! Media failures (issue 14): a program the flash fails marks its block
//! bad on the device (`Flash::mark_bad`), abandons the active segment (it
//! becomes `Used`: its other pages keep their data, and GC empties it
//! later) and programs the page at the start of a fresh segment; a segment
//! with a bad block is never erased or filled again (`Retired` once it
//! holds nothing), which recovery learns from the persisted wear records;
//! an erase the flash fails retires its segment. Past `spare_segments`
//! retired segments, or on a failure the engine cannot move, the device
//! turns read-only (`FtlError::WornOut`: reads keep working).

use std::collections::{BTreeMap, BTreeSet};

use flash::Flash;

use super::buffer::MergeBuf;
use super::config::LogConfig;
use super::layout::{Layout, Ppa, SegId};
use super::nvlog::NvLog;
use super::oob::{decode_record, encode_trim, TrimRecord, LA_TRIM, OOB_RECORD_SIZE};
use super::segs::{SegState, Segments};
use crate::device::{check_range, check_request, DeviceStats, FtlError, FtlKind, Lba, Result};
use crate::label;
use crate::mutant::Mutant;
use crate::UNMAPPED;

/// `p2l` value of a physical sector that holds nothing counted (an
/// unmapped `l2p` entry is [`UNMAPPED`], the same value).
pub(crate) const P2L_NONE: u32 = UNMAPPED;
/// `p2l` value of a live trim record.
pub(crate) const P2L_TRIM: u32 = UNMAPPED - 1;

/// Free segments the GC head needs to take one (config.rs): with fewer,
/// relocations go to the host's active segment.
pub(crate) const GC_HEAD_MIN_FREE: u32 = 2;

/// How the engine behaves: the async or the sync baseline, possibly with a
/// seeded bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    pub kind: FtlKind,
    /// Every merge-buffer change is logged to the battery-backed buffer.
    pub durable_buffer: bool,
    /// Every program and erase is followed by a sync.
    pub sync_each_command: bool,
    /// Mutant: GC erases a victim before syncing its relocated data.
    pub erase_before_sync: bool,
    /// Mutant (two streams): a victim's release ignores the GC buffer.
    pub release_before_gc_page: bool,
}

impl Mode {
    /// The mode of `kind` (async or sync) with `mutant` applied; a mutant
    /// meant for another FTL is refused.
    pub fn new(kind: FtlKind, mutant: Mutant) -> Result<Mode> {
        let sync = kind == FtlKind::Sync;
        let applies = match mutant {
            Mutant::None => true,
            Mutant::AsyncEraseBeforeSync => kind == FtlKind::Async,
            Mutant::SyncSkipSync => sync,
            Mutant::ReleaseBeforeGcPage => true,
            _ => false,
        };
        if !applies || kind == FtlKind::Scftl {
            return Err(FtlError::BadArgument(format!(
                "mutant `{}` does not apply to the {kind} FTL; pick one of its own mutants",
                mutant.name()
            )));
        }
        let skip = mutant == Mutant::SyncSkipSync;
        Ok(Mode {
            kind,
            durable_buffer: sync && !skip,
            sync_each_command: sync && !skip,
            erase_before_sync: mutant == Mutant::AsyncEraseBeforeSync,
            release_before_gc_page: mutant == Mutant::ReleaseBeforeGcPage,
        })
    }
}

/// One of the two merge buffers and the active segment it fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Host writes and trims (and, with one stream, GC relocations).
    Host,
    /// GC relocations, with two streams (hot/cold separation).
    Gc,
}

/// When a `Collected` victim may be erased: after a sync that follows
/// the `host`-th program of the host buffer and the `gc`-th of the GC
/// buffer (counted by `LogFtl::programs`), which carry everything that
/// beats its content (its relocated sectors, newer writes of its stale
/// ones). See gc.rs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Release {
    pub(crate) host: u64,
    pub(crate) gc: u64,
}

/// Logical sectors changed since the last flush (async invariant checking).
#[derive(Debug)]
pub(crate) struct DirtySet {
    bits: Vec<u64>,
    list: Vec<u32>,
}

impl DirtySet {
    fn new(n: u64) -> DirtySet {
        DirtySet {
            bits: vec![0; n.div_ceil(64) as usize],
            list: Vec::new(),
        }
    }
    #[inline]
    pub(crate) fn mark(&mut self, la: u32) {
        let (w, b) = ((la / 64) as usize, la % 64);
        if self.bits[w] & (1 << b) == 0 {
            self.bits[w] |= 1 << b;
            self.list.push(la);
        }
    }
    pub(crate) fn contains(&self, la: u32) -> bool {
        self.bits[(la / 64) as usize] & (1 << (la % 64)) != 0
    }
    fn clear(&mut self) {
        for &la in &self.list {
            self.bits[(la / 64) as usize] = 0;
        }
        self.list.clear();
    }
}

/// The shared engine. The public FTL types wrap it.
pub struct LogFtl<F: Flash> {
    pub(crate) flash: F,
    pub(crate) config: LogConfig,
    pub(crate) layout: Layout,
    pub(crate) mode: Mode,
    /// Logical sectors the device exposes (`config.logical_sectors`).
    pub(crate) logical: u64,
    /// The `l2p` value of merge-buffer slot 0 (one past the last physical
    /// sector), so one u32 names either a physical sector or a slot.
    pub(crate) buf_base: u32,
    /// Logical → physical sector or buffer slot (see the invariants above).
    pub(crate) l2p: Vec<u32>,
    /// Physical sector → logical sector of its OOB record, `P2L_TRIM` or
    /// `P2L_NONE`.
    pub(crate) p2l: Vec<u32>,
    /// Per logical sector: physical copies (live or stale) on flash.
    pub(crate) copies: Vec<u32>,
    pub(crate) segs: Segments,
    /// Live trim records by physical sector.
    pub(crate) trims: BTreeMap<u32, TrimRecord>,
    pub(crate) buf: MergeBuf,
    /// (two streams) The GC relocations' merge buffer (never logged).
    pub(crate) gc_buf: MergeBuf,
    /// The battery-backed log (sync mode only).
    pub(crate) nvlog: Option<NvLog>,
    /// The segment being filled and its next page.
    pub(crate) active: Option<(SegId, u32)>,
    /// (two streams) The segment GC relocations fill and its next page.
    pub(crate) gc_active: Option<(SegId, u32)>,
    /// Programs of the host and the GC merge buffer so far (the clocks of
    /// [`Release`]).
    pub(crate) programs: [u64; 2],
    /// The release marks of the `Collected` victims.
    pub(crate) release: BTreeMap<SegId, Release>,
    pub(crate) next_seq: u64,
    /// Set while GC runs, so a segment filled by GC does not start GC again.
    pub(crate) in_gc: bool,
    /// The async GC's victim pages read ahead (see gc.rs).
    pub(crate) ahead: super::gc::ReadAhead,
    /// (async) The victim paced GC is collecting and its next page to scan
    /// (see gc.rs).
    pub(crate) pacing: Option<(SegId, u32)>,
    /// (async) Victim pages paced GC owes, in 1/65536 of a page (gc.rs).
    pub(crate) gc_owed: u64,

    /// Set while recovery replays the log: the log must survive until every
    /// winning entry is on flash.
    pub(crate) defer_log_reset: bool,
    pub(crate) dirty: DirtySet,
    /// Opened by recovery rather than `format`: pages a crash tore or left
    /// half-written may be on flash (invariant checks verify CRCs then).
    pub(crate) recovered: bool,
    /// Logical sectors currently mapped.
    pub(crate) mapped: u64,
    pub(crate) stats: DeviceStats,
    /// Scratch buffers: an OOB, a trim-record sector.
    pub(crate) oob_scratch: Vec<u8>,
    pub(crate) trim_scratch: Vec<u8>,
    /// Segments that may be retired before the device turns read-only:
    /// the data segments beyond what the logical sectors and GC's high
    /// watermark need.
    pub(crate) spare_segments: u64,
    /// The `Used` (or `Collected`) segments that hold a bad block (a program failed in one,
    /// or recovery found it): GC turns them into retired segments, not
    /// free ones, so `check_spare` counts them with the retired.
    pub(crate) bad_in_use: BTreeSet<SegId>,
    /// Why the device is read-only, once it is (`FtlError::WornOut`).
    pub(crate) worn_out: Option<String>,
    /// Segments the last recovery erased because they held a copy tying
    /// its sector's winner (`LogFtl::erase_twins`); reported as the
    /// counter `recovery_twin_erases`.
    pub(crate) twin_erases: u64,
    /// Segments recovery emptied by preferring the twins of their
    /// winners (`Scan::prefer_twins`); counter
    /// `recovery_twin_segments_emptied`.
    pub(crate) twin_segments_emptied: u64,
}

impl<F: Flash> LogFtl<F> {
    /// Empty tables for `config` on `flash` (no flash access).
    pub(crate) fn empty(flash: F, config: LogConfig, mode: Mode) -> Result<Self> {
        let g = *flash.geometry();
        config.validate(&g)?;
        let layout = Layout::new(&g, config.stripe_dies)?;
        let logical = config.logical_sectors;
        let spp = g.sectors_per_page as usize;
        let per_seg = u64::from(layout.sectors_per_segment - layout.sectors_per_page).max(1);
        let needed = logical.div_ceil(per_seg) + u64::from(config.high()) + 1;
        let spare_segments = u64::from(layout.data_segments()).saturating_sub(needed);
        let stats = DeviceStats {
            kind: Some(mode.kind),
            ..DeviceStats::default()
        };
        Ok(LogFtl {
            flash,
            layout,
            mode,
            logical,
            buf_base: layout.physical_sectors,
            l2p: vec![UNMAPPED; logical as usize],
            p2l: vec![P2L_NONE; layout.physical_sectors as usize],
            copies: vec![0; logical as usize],
            segs: Segments::new(layout.segments),
            trims: BTreeMap::new(),
            buf: MergeBuf::new(layout.sector_size, spp),
            gc_buf: MergeBuf::new(layout.sector_size, spp),
            nvlog: None,
            active: None,
            gc_active: None,
            programs: [0; 2],
            release: BTreeMap::new(),
            next_seq: 1,
            in_gc: false,
            ahead: super::gc::ReadAhead::default(),
            pacing: None,
            gc_owed: 0,

            defer_log_reset: false,
            dirty: DirtySet::new(logical),
            recovered: false,
            mapped: 0,
            stats,
            oob_scratch: vec![0; g.oob_size as usize],
            trim_scratch: vec![0; layout.sector_size],
            spare_segments,
            bad_in_use: BTreeSet::new(),
            worn_out: None,
            twin_erases: 0,
            twin_segments_emptied: 0,
            config,
        })
    }

    /// Formats `flash`: clears the label, erases every data segment, sets up
    /// the battery-backed log (sync), syncs, and writes the label last.
    pub fn format(flash: F, config: LogConfig, mode: Mode) -> Result<Self> {
        let mut f = Self::empty(flash, config, mode)?;
        if mode.kind == FtlKind::Sync {
            NvLog::check_size(&f.flash, f.layout.sectors_per_page)?;
        }
        label::clear_label(&mut f.flash)?;
        f.segs.free.clear();
        for s in 1..f.layout.segments {
            let seg = SegId(s);
            f.segs.set(SegId(s), SegState::Dirty);
            if f.erase_segment(seg)? {
                f.segs.set(SegId(s), SegState::Free);
                f.segs.free.push_back(seg);
            }
        }
        // Format's own erases are not wear the device's counters report.
        f.segs.erases.fill(0);
        f.check_spare();
        if let Some(why) = &f.worn_out {
            return Err(FtlError::WornOut(why.clone()));
        }
        f.flash.sync()?;
        if mode.kind == FtlKind::Sync {
            // The SyncSkipSync mutant writes the header too (so the device
            // opens normally) but never logs anything.
            let log = NvLog::format(&mut f.flash, f.layout.sectors_per_page)?;
            if mode.durable_buffer {
                f.nvlog = Some(log);
            }
        }
        f.pop_active()?;
        label::write_label(&mut f.flash, mode.kind, &f.config.encode())?;
        Ok(f)
    }

    pub fn config(&self) -> &LogConfig {
        &self.config
    }

    /// Runs a request that changes the device: refused once the device is
    /// read-only; a media failure the engine could not move, or a lack of
    /// space once segments are retired, turns it read-only. The volatile
    /// state stays what reads need (the merge buffer keeps what was not
    /// programmed).
    pub(crate) fn guarded(&mut self, op: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        if let Some(why) = &self.worn_out {
            return Err(FtlError::WornOut(why.clone()));
        }
        let r = op(self);
        self.check_spare();
        self.segs.read_only_after(r, &mut self.worn_out)
    }

    /// Turns the device read-only once more segments hold a bad block
    /// (retired, or in use and to be retired once GC empties them) than it
    /// can spare (GC would run out of free segments). Counting only the
    /// retired ones let program failures abandon segments faster than GC
    /// retired them, until no segment was free (`crashtest --ftl async
    /// --geometry tiny --ops 200000 --inject-failures 0.1`, seeds 7, 15, 23).
    pub(crate) fn check_spare(&mut self) {
        if self.worn_out.is_some() {
            return;
        }
        let bad = self.segs.count(SegState::Retired) + self.bad_in_use.len() as u64;
        if bad > self.spare_segments {
            self.worn_out = Some(format!(
                "{bad} segments hold a bad block and the configuration can spare {}",
                self.spare_segments
            ));
        }
    }

    /// Retires a segment that holds a bad block and nothing live.
    pub(crate) fn retire(&mut self, seg: SegId) {
        self.segs.set(seg, SegState::Retired);
        self.bad_in_use.remove(&seg);
    }

    pub fn into_flash(self) -> F {
        self.flash
    }

    /// The flash device, for [`flash::Flash::submit`] between requests
    /// (`AnyFtl` ends every request with it); commands that change pages
    /// through it bypass the FTL's state.
    pub fn flash_mut(&mut self) -> &mut F {
        &mut self.flash
    }

    pub fn sector_size(&self) -> usize {
        self.layout.sector_size
    }

    pub fn num_sectors(&self) -> u64 {
        self.logical
    }

    /// The merge buffer and slot `loc` (an `l2p` value) names, if any.
    #[inline]
    pub(crate) fn buffered(&self, loc: u32) -> Option<(Stream, usize)> {
        if loc != UNMAPPED && loc >= self.buf_base {
            let k = (loc - self.buf_base) as usize;
            let spp = self.layout.sectors_per_page as usize;
            Some(if k < spp {
                (Stream::Host, k)
            } else {
                (Stream::Gc, k - spp)
            })
        } else {
            None
        }
    }

    /// The `l2p` value of `slot` of `stream`'s merge buffer.
    #[inline]
    pub(crate) fn slot_loc(&self, stream: Stream, slot: usize) -> u32 {
        let off = match stream {
            Stream::Host => 0,
            Stream::Gc => self.layout.sectors_per_page,
        };
        self.buf_base + off + slot as u32
    }

    /// `stream`'s merge buffer.
    #[inline]
    pub(crate) fn buffer(&self, stream: Stream) -> &MergeBuf {
        match stream {
            Stream::Host => &self.buf,
            Stream::Gc => &self.gc_buf,
        }
    }

    #[inline]
    pub(crate) fn buffer_mut(&mut self, stream: Stream) -> &mut MergeBuf {
        match stream {
            Stream::Host => &mut self.buf,
            Stream::Gc => &mut self.gc_buf,
        }
    }

    /// Whether GC relocations have their own stream (and buffer).
    #[inline]
    pub(crate) fn two_streams(&self) -> bool {
        self.config.streams == 2
    }

    #[inline]
    fn take_seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }

    /// Forgets the physical copy `p` as the live one of its sector.
    #[inline]
    fn invalidate_physical(&mut self, p: u32) {
        let seg = self.layout.seg_of(Ppa(p));
        self.segs.valid[seg.0 as usize] -= 1;
    }

    /// Removes a buffer slot (a host write or trim replaced it), fixing the
    /// mapping of the slot moved into it. A GC-buffer slot's sector loses
    /// its relocated copy: what replaces it goes to the host buffer, so
    /// (async) the waiting victims, one of which may hold the sector's only
    /// durable copy, must now also wait for the host buffer's next program.
    fn remove_buffer_slot(&mut self, stream: Stream, slot: usize) {
        if let Some(moved) = self.buffer_mut(stream).swap_remove(slot) {
            if moved != LA_TRIM {
                self.l2p[moved as usize] = self.slot_loc(stream, slot);
            }
        }
        if stream == Stream::Gc && !self.mode.durable_buffer {
            let next_host = self.programs[0] + 1;
            for r in self.release.values_mut() {
                r.host = r.host.max(next_host);
            }
        }
    }

    /// Sync mode: makes room in the battery-backed log for one entry.
    pub(crate) fn make_log_room(&mut self) -> Result<()> {
        let full = self.nvlog.as_ref().is_some_and(|l| l.is_full());
        if !full {
            return Ok(());
        }
        if self.buf.is_empty() {
            // Every logged change has been undone by trims; nothing to keep.
            if let Some(l) = self.nvlog.as_mut() {
                l.reset(&mut self.flash)?;
            }
            Ok(())
        } else {
            self.program_buffer()
        }
    }

    /// Appends an entry to the battery-backed log (sync mode only).
    pub(crate) fn log_entry(&mut self, la: u32, seq: u64, data: &[u8]) -> Result<()> {
        match self.nvlog.as_mut() {
            Some(l) => l.append(&mut self.flash, la, seq, data),
            None => Ok(()),
        }
    }

    /// Which sectors of the range the L2P maps (`BlockDevice::allocation`;
    /// an unmapped sector reads as zeros, [`Self::read`]).
    pub fn allocation(&self, lba: Lba, count: u64) -> Result<Vec<(u64, bool)>> {
        check_range(lba, count, self.logical)?;
        let mapped = (lba.0..lba.0 + count).map(|la| self.l2p[la as usize] != UNMAPPED);
        Ok(crate::device::mapped_runs(mapped))
    }

    pub fn read(&mut self, lba: Lba, out: &mut [u8]) -> Result<()> {
        let ss = self.layout.sector_size;
        let n = check_request(lba, out.len(), ss, self.logical)?;
        for i in 0..n as usize {
            let la = lba.0 as usize + i;
            let dst = &mut out[i * ss..(i + 1) * ss];
            let loc = self.l2p[la];
            if loc == UNMAPPED {
                dst.fill(0);
            } else if let Some((stream, slot)) = self.buffered(loc) {
                dst.copy_from_slice(self.buffer(stream).sector(slot));
            } else {
                let (seg, page, slot) = self.layout.locate(Ppa(loc));
                let addr = self.layout.page_addr(seg, page);
                self.flash.read(addr, slot, dst)?;
                // The OOB record's CRC covers the record and the data, so a
                // damaged sector (or record) is an error, never other data.
                // The page was just sensed: reading the OOB prefix up to
                // this slot's record is a short transfer.
                let rec = slot as usize * OOB_RECORD_SIZE;
                let oob = &mut self.oob_scratch[..rec + OOB_RECORD_SIZE];
                self.flash.read_oob(addr, oob)?;
                let r = decode_record(&oob[rec..]);
                if r.la as usize != la || !r.matches(dst) {
                    return Err(FtlError::DamagedSector {
                        la: la as u64,
                        detail: format!(
                            "OOB record (la {}, seq {}) does not match the data at physical sector {loc} ({addr}, slot {slot})",
                            r.la, r.seq
                        ),
                    });
                }
            }
        }
        self.stats.user_sectors_read += n;
        Ok(())
    }

    pub fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        let ss = self.layout.sector_size;
        let n = check_request(lba, data.len(), ss, self.logical)?;
        for i in 0..n as usize {
            self.write_sector(lba.0 as u32 + i as u32, &data[i * ss..(i + 1) * ss])?;
        }
        Ok(())
    }

    fn write_sector(&mut self, la: u32, data: &[u8]) -> Result<()> {
        self.make_log_room()?;
        let seq = self.take_seq();
        self.log_entry(la, seq, data)?;
        self.dirty.mark(la);
        self.stats.user_sectors_written += 1;
        let loc = self.l2p[la as usize];
        match self.buffered(loc) {
            Some((Stream::Host, slot)) => {
                // The buffered copy was never programmed: replace it in place.
                self.buf.put(slot, la, seq, data);
                return Ok(());
            }
            // A relocated copy waiting in the GC buffer: the new one goes
            // to the host stream (it is hot).
            Some((Stream::Gc, slot)) => self.remove_buffer_slot(Stream::Gc, slot),
            None if loc == UNMAPPED => self.mapped += 1,
            None => self.invalidate_physical(loc),
        }
        let slot = self.buf.push(la, seq, data);
        self.l2p[la as usize] = self.buf_base + slot as u32;
        if self.buf.is_full() {
            self.program_buffer()?;
            self.gc_step()?;
        }
        Ok(())
    }

    pub fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        check_range(lba, count, self.logical)?;
        let (start, end) = (lba.0 as usize, (lba.0 + count) as usize);
        // A trim record is needed on flash only if some older copy of a
        // trimmed sector is on flash; a log entry also if some is buffered.
        let mut on_flash = false;
        let mut buffered = false;
        for la in start..end {
            on_flash |= self.copies[la] > 0;
            buffered |= self.buffered(self.l2p[la]).is_some();
        }
        self.stats.user_sectors_trimmed += count;
        if !on_flash && !buffered {
            return Ok(()); // nothing stored anywhere: already reads as zeros
        }
        self.make_log_room()?;
        let seq = self.take_seq();
        encode_trim(&mut self.trim_scratch, lba.0, count);
        if let Some(l) = self.nvlog.as_mut() {
            l.append(&mut self.flash, LA_TRIM, seq, &self.trim_scratch)?;
        }
        for la in start..end {
            let loc = self.l2p[la];
            if loc == UNMAPPED {
                continue;
            }
            if let Some((stream, slot)) = self.buffered(loc) {
                self.remove_buffer_slot(stream, slot);
            } else {
                self.invalidate_physical(loc);
            }
            self.l2p[la] = UNMAPPED;
            self.mapped -= 1;
            self.dirty.mark(la as u32);
        }
        if on_flash {
            self.buf.push(LA_TRIM, seq, &self.trim_scratch);
            if self.buf.is_full() {
                self.program_buffer()?;
                self.gc_step()?;
            }
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        self.stats.flushes += 1;
        if self.mode.kind == FtlKind::Sync {
            // Every completed write is already durable (or, for the
            // SyncSkipSync mutant, pretends to be).
            self.dirty.clear();
            return Ok(());
        }
        if !self.buf.is_empty() {
            // Paced GC: relocated sectors take slots that would otherwise be
            // padding, then its share of the page this flush programs.
            self.gc_fill_padding()?;
            self.gc_step()?;
        }
        self.program_buffer()?;
        self.sync_device()?;
        self.dirty.clear();
        Ok(())
    }

    /// Syncs the flash; then erases and frees the `Collected` victims whose
    /// release marks the programs before this sync met (see gc.rs).
    pub(crate) fn sync_device(&mut self) -> Result<()> {
        self.flash.sync()?;
        self.release_ready()
    }

    /// Erases and frees the `Collected` victims whose [`Release`] marks
    /// are met, oldest first; the caller has just synced (the sync FTL
    /// syncs the erases too).
    pub(crate) fn release_ready(&mut self) -> Result<()> {
        let mut i = 0;
        let mut erased_any = false;
        while i < self.segs.collected.len() {
            let seg = self.segs.collected[i];
            if !self.releasable(seg) {
                i += 1;
                continue;
            }
            let erased = self.erase_segment(seg)?;
            erased_any = true;
            self.segs.collected.remove(i);
            self.release.remove(&seg);
            if erased {
                self.segs.set(seg, SegState::Free);
                self.segs.free.push_back(seg);
            }
        }
        if erased_any && self.mode.sync_each_command {
            self.flash.sync()?;
        }
        Ok(())
    }

    /// Whether a sync now makes waiting victim `seg` erasable: with one
    /// stream, when the merge buffer is empty (everything written so far
    /// is programmed); with two, when each buffer has met its [`Release`]
    /// mark or is empty (what it held then is programmed, or was replaced
    /// by host writes and trims, which moved the host mark on).
    pub(crate) fn releasable(&self, seg: SegId) -> bool {
        if !self.two_streams() {
            return self.buf.is_empty();
        }
        let host_met = |r: &Release| self.programs[0] >= r.host || self.buf.is_empty();
        let gc_met = |r: &Release| {
            self.programs[1] >= r.gc || self.gc_buf.is_empty() || self.mode.release_before_gc_page
        };
        self.release
            .get(&seg)
            .is_none_or(|r| host_met(r) && gc_met(r))
    }

    /// The release mark of a victim collected now: the next program of
    /// each merge buffer that holds something (the sync FTL's host buffer
    /// is durable in its log already).
    pub(crate) fn release_mark(&self) -> Release {
        let next = |b: &MergeBuf, n: u64| if b.is_empty() { n } else { n + 1 };
        Release {
            host: if self.mode.durable_buffer {
                0
            } else {
                next(&self.buf, self.programs[0])
            },
            gc: next(&self.gc_buf, self.programs[1]),
        }
    }

    /// The page `stream`'s buffer will be programmed to, if known now.
    pub(crate) fn stream_page(&self, stream: Stream) -> Option<flash::PageAddr> {
        let head = match stream {
            Stream::Gc if self.gc_active.is_some() => self.gc_active,
            _ => self.active,
        };
        head.map(|(seg, page)| self.layout.page_addr(seg, page))
    }

    /// Programs the host merge buffer (see [`LogFtl::program_stream`]).
    pub(crate) fn program_buffer(&mut self) -> Result<()> {
        self.program_stream(Stream::Host)
    }

    /// Where `stream`'s next page goes: the host's active segment, or the
    /// GC's, which takes a fresh segment only while at least
    /// [`GC_HEAD_MIN_FREE`] are free (else the page goes to the host's
    /// active segment, as with one stream; config.rs). True if it is the
    /// GC head.
    fn head_for(&mut self, stream: Stream) -> Result<((SegId, u32), bool)> {
        if stream == Stream::Gc {
            if self.gc_active.is_none() && self.segs.free_count() >= GC_HEAD_MIN_FREE {
                let seg = self.take_segment()?;
                self.gc_active = Some((seg, 0));
            }
            if let Some(a) = self.gc_active {
                return Ok((a, true));
            }
        }
        if self.active.is_none() {
            self.pop_active()?;
        }
        match self.active {
            Some(a) => Ok((a, false)),
            None => Err(FtlError::NoSpace("no segment to program into".into())),
        }
    }

    /// Programs `stream`'s merge buffer (padded with empty slots if not
    /// full) to the next page of its active segment, then maps its sectors
    /// there. Only the host buffer's program resets the sync FTL's log
    /// (the GC buffer is never logged).
    pub(crate) fn program_stream(&mut self, stream: Stream) -> Result<()> {
        if self.buffer(stream).is_empty() {
            return Ok(());
        }
        let ((seg, page), gc_head) = loop {
            let ((seg, page), gc_head) = self.head_for(stream)?;
            let addr = self.layout.page_addr(seg, page);
            let b = match stream {
                Stream::Host => &self.buf,
                Stream::Gc => &self.gc_buf,
            };
            match self.flash.program(addr, b.page(), b.oob()) {
                Ok(()) => break ((seg, page), gc_head),
                Err(e) if e.is_media_failure() => {
                    // The page is consumed; the segment's other pages keep
                    // their data, so it is abandoned as `Used` (GC empties
                    // it, then it is retired) and the page goes to a fresh
                    // segment. Its sectors stay in the buffer (and, sync,
                    // in the battery-backed log) until then.
                    self.stats.program_failures += 1;
                    self.bad_in_use.insert(seg);
                    self.flash.mark_bad(addr.block)?;
                    self.segs.set(seg, SegState::Used);
                    if gc_head {
                        self.gc_active = None;
                    } else {
                        self.active = None;
                    }
                }
                Err(e) => return Err(e.into()),
            }
        };
        if self.mode.sync_each_command {
            self.flash.sync()?;
        }
        if stream == Stream::Host && !self.defer_log_reset {
            if let Some(l) = self.nvlog.as_mut() {
                l.reset(&mut self.flash)?;
            }
        }
        let n = self.buffer(stream).len();
        for slot in 0..n {
            let ppa = self.layout.ppa(seg, page, slot as u32);
            let b = match stream {
                Stream::Host => &self.buf,
                Stream::Gc => &self.gc_buf,
            };
            let la = b.la(slot);
            if la == LA_TRIM {
                let rec = super::oob::decode_trim(b.sector(slot), b.seq(slot), self.logical)?;
                self.trims.insert(ppa.0, rec);
                self.p2l[ppa.0 as usize] = P2L_TRIM;
                self.segs.trims[seg.0 as usize] += 1;
                self.stats.meta_pages_written += 1;
            } else {
                self.l2p[la as usize] = ppa.0;
                self.p2l[ppa.0 as usize] = la;
                self.copies[la as usize] += 1;
                self.segs.valid[seg.0 as usize] += 1;
            }
        }
        self.buffer_mut(stream).clear();
        self.programs[stream as usize] += 1;
        let next = page + 1;
        let full = next == self.layout.pages_per_segment;
        if full {
            self.segs.set(seg, SegState::Used);
        }
        let head = if full { None } else { Some((seg, next)) };
        if gc_head {
            // The GC head takes its next segment when it next programs.
            self.gc_active = head;
        } else {
            self.active = head;
            if full {
                self.open_next_segment()?;
            }
        }
        if stream == Stream::Gc && self.mode.sync_each_command && !self.segs.collected.is_empty() {
            // The sync FTL: the page just programmed and synced may be
            // what a waiting victim needed.
            self.release_ready()?;
        }
        Ok(())
    }

    /// After the active segment filled up: GC if free segments are low, then
    /// take a fresh active segment (unless GC already opened one).
    pub(crate) fn open_next_segment(&mut self) -> Result<()> {
        if self.paced() {
            self.gc_at_boundary()?;
        } else if !self.in_gc && self.segs.free_count() < self.config.low() {
            self.run_gc()?;
        }
        if self.active.is_none() {
            self.pop_active()?;
        }
        self.gc_behind()
    }

    /// Takes the next segment of the free queue as the active one, erasing
    /// it first if its content is unknown.
    pub(crate) fn pop_active(&mut self) -> Result<()> {
        let seg = self.take_segment()?;
        self.active = Some((seg, 0));
        Ok(())
    }

    /// Takes the next segment of the free queue (erasing it first if its
    /// content is unknown) and makes it `Active`.
    fn take_segment(&mut self) -> Result<SegId> {
        loop {
            let Some(seg) = self.segs.take_free(&self.flash, &self.layout) else {
                return Err(FtlError::NoSpace(
                    "no free segment left: live data and trim records fill the device; trim or delete data, or reformat with fewer logical sectors".into(),
                ));
            };
            if self.segs.state(seg) == SegState::Dirty
                || Segments::has_bad_block(&self.flash, &self.layout, seg)
            {
                // Dirty segments hold only content recovery found stale; the
                // newer copies that beat it are durable, so no sync is
                // needed. A segment that cannot be erased is retired.
                if !self.erase_segment(seg)? {
                    continue;
                }
            }
            self.segs.set(seg, SegState::Active);
            return Ok(seg);
        }
    }

    /// Erases a segment's blocks and forgets what its sectors held; true
    /// when it did. A segment with a bad block is retired instead (false),
    /// and so is one whose erase the flash fails: the members erased
    /// before the failure forget their sectors, the others keep theirs
    /// (still counted, as recovery will see them).
    pub(crate) fn erase_segment(&mut self, seg: SegId) -> Result<bool> {
        if Segments::has_bad_block(&self.flash, &self.layout, seg) {
            self.retire(seg);
            return Ok(false);
        }
        for m in 0..self.layout.stripe {
            match self.flash.erase(self.layout.member_block(seg, m)) {
                Ok(()) => {}
                Err(e) if e.is_media_failure() => {
                    self.stats.erase_failures += 1;
                    self.forget_sectors(seg, |member| member < m);
                    self.segs.erases[seg.0 as usize] += 1;
                    self.retire(seg);
                    return Ok(false);
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.forget_sectors(seg, |_| true);
        self.segs.erases[seg.0 as usize] += 1;
        Ok(true)
    }

    /// Forgets what the sectors of `seg` in the members `erased` names held.
    fn forget_sectors(&mut self, seg: SegId, erased: impl Fn(u32) -> bool) {
        let spp = self.layout.sectors_per_page;
        for page in 0..self.layout.pages_per_segment {
            if !erased(page % self.layout.stripe) {
                continue;
            }
            for slot in 0..spp {
                let p = self.layout.ppa(seg, page, slot).0 as usize;
                let tag = self.p2l[p];
                if (tag as u64) < self.logical {
                    self.copies[tag as usize] -= 1;
                } else if tag == P2L_TRIM {
                    self.trims.remove(&(p as u32));
                    self.segs.trims[seg.0 as usize] -= 1;
                }
                self.p2l[p] = P2L_NONE;
            }
        }
    }

    /// Sets the wear policy: dynamic leveling only (a static spread is
    /// refused, nothing changes).
    pub fn set_wear_policy(&mut self, policy: crate::WearPolicy) -> Result<()> {
        crate::wear::dynamic_only(policy, self.mode.kind.name())?;
        self.segs.wear = policy;
        Ok(())
    }

    pub fn stats(&self) -> DeviceStats {
        let mut s = self.stats.clone();
        s.valid_sectors = self.mapped;
        // Each data segment is in exactly one state, so the four counts
        // partition them: a `Dirty` segment sits in the free queue but must
        // be erased first, so it is erasable and not also free.
        s.free_blocks = self.segs.count(SegState::Free);
        s.used_blocks = self.segs.count(SegState::Used) + self.segs.count(SegState::Active);
        s.invalid_blocks = 0;
        s.erasable_blocks = self.segs.count(SegState::Dirty) + self.segs.count(SegState::Collected);
        s.set_erase_counts(&self.segs.erases[1..]);
        s.bad_blocks = self.segs.count(SegState::Retired);
        s.flash = self.flash.counters();
        s.wear = self.segs.wear_stats;
        s.ftl_counters = vec![
            ("recovery_twin_erases", self.twin_erases),
            ("recovery_twin_segments_emptied", self.twin_segments_emptied),
        ];
        s
    }
}
