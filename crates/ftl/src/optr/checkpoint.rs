//! Checkpoints, seal pages and segment summary pages of OPTR (paper §3.3,
//! docs/FORMAT.md §8.4–8.5).
//!
//! A full checkpoint is the L2P image followed by a seal page in one of
//! two slots; the next full checkpoint goes to the other slot (the
//! shadow), so a crash while writing it leaves the previous one intact.
//! Between full checkpoints, incremental ones are appended to the
//! incremental region: the L2P entries changed since the previous
//! checkpoint of either kind, in pages that each carry the seal's fields
//! and a CRC. An incremental checkpoint counts only when all its pages are
//! present, so one sync after its last page suffices; a full checkpoint
//! empties the region (erase, synced before the next incremental).
//! Generations grow by one per checkpoint of either kind: recovery takes
//! the newest full checkpoint, then the incremental ones numbered one
//! more each, from the region's first page on, until one is missing.
//! Every checkpoint is preceded by an internal flush, so it covers every
//! request up to its `latest_wid`. The seal names where the data log
//! continued at that instant (segment, page and the segment's sequence
//! number); recovery rolls forward from there, following segments by their
//! summary pages.
//!
//! Each data segment's first page is its summary page: the segment's
//! sequence number, one more than the previous segment of the log. The
//! log after a seal is the seal's segment from its page on, then the
//! segments numbered `seqno + 1, seqno + 2, ...` while they exist.
//!
//! Invariants: a full seal is programmed only after its L2P pages are
//! synced, and synced before anything relies on it; its CRC covers its
//! fields and a CRC of the L2P image; an incremental checkpoint is synced
//! before anything relies on it; generations increase by one per
//! checkpoint; the region's pages past its last checkpoint are erased.

use flash::{Flash, PageAddr};

use super::config::Plan;
use crate::codec::field_table;
use crate::device::{FtlError, Result};
use crate::logstruct::SegId;
use crate::UNMAPPED;

field_table! {
    /// The seal page that ends a checkpoint.
    pub mod seal {
        pub const MAGIC: Field = Field::new("magic", 0, 8);
        pub const VERSION: Field = Field::new("version", 8, 4);
        pub const KIND: Field = Field::new("kind", 12, 4);
        pub const GENERATION: Field = Field::new("generation", 16, 8);
        pub const LATEST_WID: Field = Field::new("latest_wid", 24, 8);
        pub const LOG_SEGMENT: Field = Field::new("log_segment", 32, 4);
        pub const LOG_PAGE: Field = Field::new("log_page", 36, 4);
        pub const LOG_SEQNO: Field = Field::new("log_seqno", 40, 8);
        pub const L2P_PAGES: Field = Field::new("l2p_pages", 48, 4);
        pub const L2P_CRC: Field = Field::new("l2p_crc", 52, 4);
        /// CRC32C of the seal's bytes before it.
        pub const CRC: Field = Field::new("crc", 56, 4);
    }
}
field_table! {
    /// The header of every page of an incremental checkpoint; the L2P
    /// entries (logical u32, physical u32) follow it.
    pub mod incremental {
        pub const MAGIC: Field = Field::new("magic", 0, 8);
        pub const VERSION: Field = Field::new("version", 8, 4);
        pub const INDEX: Field = Field::new("index", 12, 4);
        pub const PAGES: Field = Field::new("pages", 16, 4);
        pub const COUNT: Field = Field::new("count", 20, 4);
        pub const GENERATION: Field = Field::new("generation", 24, 8);
        pub const LATEST_WID: Field = Field::new("latest_wid", 32, 8);
        pub const LOG_SEGMENT: Field = Field::new("log_segment", 40, 4);
        pub const LOG_PAGE: Field = Field::new("log_page", 44, 4);
        pub const LOG_SEQNO: Field = Field::new("log_seqno", 48, 8);
        /// CRC32C of the header's bytes before it, then the entries.
        pub const CRC: Field = Field::new("crc", 56, 4);
    }
}
field_table! {
    /// The summary page at the head of every data segment.
    pub mod summary {
        pub const MAGIC: Field = Field::new("magic", 0, 8);
        pub const VERSION: Field = Field::new("version", 8, 4);
        pub const SEGMENT: Field = Field::new("segment", 12, 4);
        pub const SEQNO: Field = Field::new("seqno", 16, 8);
        /// CRC32C of the summary's bytes before it.
        pub const CRC: Field = Field::new("crc", 24, 4);
    }
}

pub const SEAL_MAGIC: [u8; 8] = *b"OPTRSEAL";
pub const SUMMARY_MAGIC: [u8; 8] = *b"OPTRSUMM";
pub const INCREMENTAL_MAGIC: [u8; 8] = *b"OPTRINCR";
/// Bytes of one L2P entry of an incremental checkpoint.
pub const ENTRY_SIZE: usize = 8;
/// Offset of the first entry in an incremental-checkpoint page.
pub const ENTRIES_OFFSET: usize = incremental::CRC.end();

/// L2P entries one incremental-checkpoint page of `page_size` bytes holds.
pub fn entries_per_page(page_size: usize) -> u32 {
    (page_size.saturating_sub(ENTRIES_OFFSET) / ENTRY_SIZE) as u32
}
/// Version of the seal and summary layouts.
pub const META_VERSION: u32 = 1;
/// `kind` of a full checkpoint's seal.
pub const KIND_FULL: u32 = 1;

/// What a seal says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seal {
    pub generation: u64,
    pub latest_wid: u64,
    /// The segment the log continued in, or `None` when the next write
    /// opens a new segment (numbered `log_seqno + 1`).
    pub log_segment: Option<SegId>,
    pub log_page: u32,
    /// The log segment's sequence number (or the last one used).
    pub log_seqno: u64,
}

impl Seal {
    /// The sequence number of the first segment wholly after this seal:
    /// segments numbered below it hold only pages written before it.
    pub fn first_post_seqno(&self) -> u64 {
        match self.log_segment {
            Some(_) => self.log_seqno,
            None => self.log_seqno + 1,
        }
    }
}

/// Before reading page `i` of a run of `len` pages laid out like a
/// segment's (page `k` on member `k mod stripe`): when `i` starts a stripe
/// (or the run), asks the dies to sense the stripe's pages from `i` on,
/// one per die, so the reads that follow overlap (`Flash::prefetch`).
pub(super) fn prefetch_stripe<F: Flash>(
    flash: &mut F,
    plan: &Plan,
    i: u32,
    first: u32,
    len: u32,
    addr: impl Fn(u32) -> PageAddr,
) -> Result<()> {
    let stripe = plan.layout.stripe;
    if i == first || i.is_multiple_of(stripe) {
        let end = ((i / stripe + 1) * stripe).min(len);
        let pages: Vec<PageAddr> = (i..end).map(addr).collect();
        flash.prefetch(&pages)?;
    }
    Ok(())
}

/// The flash page holding page `i` of checkpoint slot `slot`.
fn slot_page(plan: &Plan, slot: u32, i: u32) -> PageAddr {
    let pps = plan.layout.pages_per_segment;
    let seg = SegId(1 + slot * plan.slot_segments + i / pps);
    plan.layout.page_addr(seg, i % pps)
}

/// Erases both slots (format).
pub fn erase_slots<F: Flash>(flash: &mut F, plan: &Plan) -> Result<()> {
    for s in 1..plan.first_data_segment {
        for m in 0..plan.layout.stripe {
            flash.erase(plan.layout.member_block(SegId(s), m))?;
        }
    }
    Ok(())
}

/// Writes a full checkpoint of `l2p` with `seal` into `slot` (erasing it
/// first), syncing before and after the seal.
pub fn write_checkpoint<F: Flash>(
    flash: &mut F,
    plan: &Plan,
    slot: u32,
    l2p: &[u32],
    s: &Seal,
) -> Result<()> {
    for k in 0..plan.slot_segments {
        let seg = SegId(1 + slot * plan.slot_segments + k);
        for m in 0..plan.layout.stripe {
            flash.erase(plan.layout.member_block(seg, m))?;
        }
    }
    let ps = plan.layout.geometry.page_size();
    let mut page = vec![0u8; ps];
    let mut crc = 0u32;
    for i in 0..plan.l2p_pages {
        page.fill(0xFF);
        let per = ps / 4;
        let base = i as usize * per;
        for (k, chunk) in page.chunks_exact_mut(4).enumerate() {
            let v = l2p.get(base + k).copied().unwrap_or(UNMAPPED);
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        crc = crc32c::crc32c_append(crc, &page);
        flash.program(slot_page(plan, slot, i), &page, &[])?;
    }
    flash.sync()?;
    page.fill(0);
    seal::MAGIC.put_bytes(&mut page, &SEAL_MAGIC);
    seal::VERSION.put_u32(&mut page, META_VERSION);
    seal::KIND.put_u32(&mut page, KIND_FULL);
    seal::GENERATION.put_u64(&mut page, s.generation);
    seal::LATEST_WID.put_u64(&mut page, s.latest_wid);
    seal::LOG_SEGMENT.put_u32(&mut page, s.log_segment.map_or(UNMAPPED, |g| g.0));
    seal::LOG_PAGE.put_u32(&mut page, s.log_page);
    seal::LOG_SEQNO.put_u64(&mut page, s.log_seqno);
    seal::L2P_PAGES.put_u32(&mut page, plan.l2p_pages);
    seal::L2P_CRC.put_u32(&mut page, crc);
    let c = seal::CRC.prefix_crc(&page, &[]);
    seal::CRC.put_u32(&mut page, c);
    flash.program(slot_page(plan, slot, plan.l2p_pages), &page, &[])?;
    flash.sync()?;
    Ok(())
}

/// Checks that a seal's log position lies in the data area.
fn check_position(plan: &Plan, s: &Seal, what: &str) -> Result<()> {
    if let Some(seg) = s.log_segment {
        if seg.0 < plan.first_data_segment
            || seg.0 >= plan.layout.segments
            || s.log_page == 0
            || s.log_page >= plan.layout.pages_per_segment
        {
            return Err(FtlError::Corrupt(format!(
                "{what}: seal names log position segment {} page {}, outside the data area",
                seg.0, s.log_page
            )));
        }
    }
    Ok(())
}

/// The flash page holding page `i` of the incremental region.
fn region_page(plan: &Plan, i: u32) -> PageAddr {
    let pps = plan.layout.pages_per_segment;
    plan.layout
        .page_addr(SegId(plan.incremental_segment + i / pps), i % pps)
}

/// Erases the incremental region and syncs the erase (after a full
/// checkpoint: a page of an unsynced erase may come back old).
pub fn erase_region<F: Flash>(flash: &mut F, plan: &Plan) -> Result<()> {
    for s in plan.incremental_segment..plan.first_data_segment {
        for m in 0..plan.layout.stripe {
            flash.erase(plan.layout.member_block(SegId(s), m))?;
        }
    }
    flash.sync()?;
    Ok(())
}

/// Writes an incremental checkpoint of `entries` (logical, physical) with
/// `seal` at page `at` of the incremental region, and syncs. Returns the
/// pages it took ([`Plan::incremental_checkpoint_pages`]); the caller has
/// checked that they fit.
pub fn write_incremental<F: Flash>(
    flash: &mut F,
    plan: &Plan,
    at: u32,
    entries: &[(u32, u32)],
    s: &Seal,
) -> Result<u32> {
    let pages = plan.incremental_checkpoint_pages(entries.len() as u64) as u32;
    debug_assert!(at + pages <= plan.incremental_pages);
    let ps = plan.layout.geometry.page_size();
    let per = plan.entries_per_incremental_page as usize;
    let mut page = vec![0u8; ps];
    for i in 0..pages {
        let chunk = entries.chunks(per).nth(i as usize).unwrap_or(&[]);
        page.fill(0);
        incremental::MAGIC.put_bytes(&mut page, &INCREMENTAL_MAGIC);
        incremental::VERSION.put_u32(&mut page, META_VERSION);
        incremental::INDEX.put_u32(&mut page, i);
        incremental::PAGES.put_u32(&mut page, pages);
        incremental::COUNT.put_u32(&mut page, chunk.len() as u32);
        incremental::GENERATION.put_u64(&mut page, s.generation);
        incremental::LATEST_WID.put_u64(&mut page, s.latest_wid);
        incremental::LOG_SEGMENT.put_u32(&mut page, s.log_segment.map_or(UNMAPPED, |g| g.0));
        incremental::LOG_PAGE.put_u32(&mut page, s.log_page);
        incremental::LOG_SEQNO.put_u64(&mut page, s.log_seqno);
        for (k, &(lpn, ppa)) in chunk.iter().enumerate() {
            let o = ENTRIES_OFFSET + k * ENTRY_SIZE;
            page[o..o + 4].copy_from_slice(&lpn.to_le_bytes());
            page[o + 4..o + 8].copy_from_slice(&ppa.to_le_bytes());
        }
        let end = ENTRIES_OFFSET + chunk.len() * ENTRY_SIZE;
        let c = incremental::CRC.prefix_crc(&page, &page[ENTRIES_OFFSET..end]);
        incremental::CRC.put_u32(&mut page, c);
        flash.program(region_page(plan, at + i), &page, &[])?;
    }
    flash.sync()?;
    Ok(pages)
}

/// One decoded incremental-checkpoint page.
struct IncrementalPage {
    index: u32,
    pages: u32,
    seal: Seal,
    entries: Vec<(u32, u32)>,
}

fn decode_incremental(page: &[u8], per: u32) -> Option<IncrementalPage> {
    use incremental::*;
    if MAGIC.bytes(page) != INCREMENTAL_MAGIC || VERSION.get_u32(page) != META_VERSION {
        return None;
    }
    let count = COUNT.get_u32(page);
    if count > per {
        return None;
    }
    let end = ENTRIES_OFFSET + count as usize * ENTRY_SIZE;
    if CRC.prefix_crc(page, &page[ENTRIES_OFFSET..end]) != CRC.get_u32(page) {
        return None;
    }
    let seg = LOG_SEGMENT.get_u32(page);
    let entries = page[ENTRIES_OFFSET..end]
        .chunks_exact(ENTRY_SIZE)
        .map(|e| {
            (
                u32::from_le_bytes(e[..4].try_into().expect("4 bytes")),
                u32::from_le_bytes(e[4..].try_into().expect("4 bytes")),
            )
        })
        .collect();
    Some(IncrementalPage {
        index: INDEX.get_u32(page),
        pages: PAGES.get_u32(page),
        seal: Seal {
            generation: GENERATION.get_u64(page),
            latest_wid: LATEST_WID.get_u64(page),
            log_segment: (seg != UNMAPPED).then_some(SegId(seg)),
            log_page: LOG_PAGE.get_u32(page),
            log_seqno: LOG_SEQNO.get_u64(page),
        },
        entries,
    })
}

/// Recovery phase 2: applies to `l2p` (the image of the full checkpoint
/// sealed by `full`) the incremental checkpoints of the region numbered
/// `full.generation + 1, + 2, ...`, each only if all its pages check out.
/// Returns the newest seal and the number of incremental checkpoints
/// applied.
pub fn apply_incrementals<F: Flash>(
    flash: &mut F,
    plan: &Plan,
    full: &Seal,
    l2p: &mut [u32],
    physical: u32,
) -> Result<(Seal, u64)> {
    let ps = plan.layout.geometry.page_size();
    let per = plan.entries_per_incremental_page;
    let mut page = vec![0u8; ps];
    let (mut seal, mut applied, mut at) = (*full, 0u64, 0u32);
    'checkpoints: while at < plan.incremental_pages {
        let mut entries = Vec::new();
        let mut last = None;
        let mut pages = 1;
        let mut i = 0;
        while i < pages {
            if at + i >= plan.incremental_pages {
                break 'checkpoints;
            }
            prefetch_stripe(flash, plan, at + i, at, plan.incremental_pages, |k| {
                region_page(plan, k)
            })?;
            flash.read(region_page(plan, at + i), 0, &mut page)?;
            let Some(p) = decode_incremental(&page, per) else {
                break 'checkpoints;
            };
            if p.seal.generation != seal.generation + 1
                || p.index != i
                || (i > 0 && p.pages != pages)
                || p.pages == 0
            {
                break 'checkpoints;
            }
            pages = p.pages;
            entries.extend(p.entries);
            last = Some(p.seal);
            i += 1;
        }
        let s = last.expect("at least one page");
        check_position(
            plan,
            &s,
            &format!("incremental checkpoint {}", s.generation),
        )?;
        for &(lpn, ppa) in &entries {
            if lpn as usize >= l2p.len() || (ppa != UNMAPPED && ppa >= physical) {
                return Err(FtlError::Corrupt(format!(
                    "incremental checkpoint {} maps sector {lpn} to physical sector {ppa}, beyond the device",
                    s.generation
                )));
            }
            l2p[lpn as usize] = ppa;
        }
        seal = s;
        applied += 1;
        at += pages;
    }
    Ok((seal, applied))
}

/// Reads the checkpoint in `slot`: its seal and L2P image, or `None` if the
/// slot holds no complete checkpoint (erased, torn, or being rewritten).
pub fn read_checkpoint<F: Flash>(
    flash: &mut F,
    plan: &Plan,
    slot: u32,
    logical: u64,
    physical: u32,
) -> Result<Option<(Seal, Vec<u32>)>> {
    let ps = plan.layout.geometry.page_size();
    let mut page = vec![0u8; ps];
    flash.read(slot_page(plan, slot, plan.l2p_pages), 0, &mut page)?;
    if seal::MAGIC.bytes(&page) != SEAL_MAGIC
        || seal::CRC.prefix_crc(&page, &[]) != seal::CRC.get_u32(&page)
    {
        return Ok(None);
    }
    if seal::VERSION.get_u32(&page) != META_VERSION
        || seal::KIND.get_u32(&page) != KIND_FULL
        || seal::L2P_PAGES.get_u32(&page) != plan.l2p_pages
    {
        return Err(FtlError::Corrupt(format!(
            "checkpoint slot {slot}: seal version {}, kind {}, {} L2P pages is not what this build writes",
            seal::VERSION.get_u32(&page),
            seal::KIND.get_u32(&page),
            seal::L2P_PAGES.get_u32(&page)
        )));
    }
    let log_segment = seal::LOG_SEGMENT.get_u32(&page);
    let s = Seal {
        generation: seal::GENERATION.get_u64(&page),
        latest_wid: seal::LATEST_WID.get_u64(&page),
        log_segment: (log_segment != UNMAPPED).then_some(SegId(log_segment)),
        log_page: seal::LOG_PAGE.get_u32(&page),
        log_seqno: seal::LOG_SEQNO.get_u64(&page),
    };
    check_position(plan, &s, &format!("checkpoint slot {slot}"))?;
    let want = seal::L2P_CRC.get_u32(&page);
    let mut l2p = Vec::with_capacity(logical as usize);
    let mut crc = 0u32;
    for i in 0..plan.l2p_pages {
        prefetch_stripe(flash, plan, i, 0, plan.l2p_pages, |k| {
            slot_page(plan, slot, k)
        })?;
        flash.read(slot_page(plan, slot, i), 0, &mut page)?;
        crc = crc32c::crc32c_append(crc, &page);
        for chunk in page.chunks_exact(4) {
            if (l2p.len() as u64) < logical {
                l2p.push(u32::from_le_bytes(chunk.try_into().expect("4 bytes")));
            }
        }
    }
    if crc != want {
        return Ok(None);
    }
    if let Some(bad) = l2p.iter().position(|&p| p != UNMAPPED && p >= physical) {
        return Err(FtlError::Corrupt(format!(
            "checkpoint slot {slot} maps sector {bad} to physical sector {}, beyond the device",
            l2p[bad]
        )));
    }
    Ok(Some((s, l2p)))
}

/// The summary page of a segment numbered `seqno`.
pub fn encode_summary(page: &mut [u8], seg: SegId, seqno: u64) {
    page.fill(0);
    summary::MAGIC.put_bytes(page, &SUMMARY_MAGIC);
    summary::VERSION.put_u32(page, META_VERSION);
    summary::SEGMENT.put_u32(page, seg.0);
    summary::SEQNO.put_u64(page, seqno);
    let c = summary::CRC.prefix_crc(page, &[]);
    summary::CRC.put_u32(page, c);
}

/// The sequence number in a summary page, if it is one for `seg`.
pub fn decode_summary(page: &[u8], seg: SegId) -> Option<u64> {
    (summary::MAGIC.bytes(page) == SUMMARY_MAGIC
        && summary::CRC.prefix_crc(page, &[]) == summary::CRC.get_u32(page)
        && summary::VERSION.get_u32(page) == META_VERSION
        && summary::SEGMENT.get_u32(page) == seg.0)
        .then(|| summary::SEQNO.get_u64(page))
}
