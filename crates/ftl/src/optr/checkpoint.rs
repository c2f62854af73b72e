//! Checkpoints, seal pages and segment summary pages of OPTR (paper §3.3,
//! docs/FORMAT.md §8.4–8.5).
//!
//! A checkpoint is the L2P image followed by a seal page in one of two
//! slots; the next checkpoint goes to the other slot (the shadow), so a
//! crash while writing it leaves the previous one intact. Every checkpoint
//! is preceded by an internal flush, so it covers every request up to its
//! `latest_wid`. The seal names where the data log continued at that
//! instant (segment, page and the segment's sequence number); recovery
//! rolls forward from there, following segments by their summary pages.
//!
//! Each data segment's first page is its summary page: the segment's
//! sequence number, one more than the previous segment of the log. The
//! log after a seal is the seal's segment from its page on, then the
//! segments numbered `seqno + 1, seqno + 2, ...` while they exist.
//!
//! Invariants: the seal is programmed only after its L2P pages are synced,
//! and synced before anything relies on it; its CRC covers its fields and
//! a CRC of the L2P image; generations increase by one per checkpoint.
//!
//! Where this differs from the paper: every checkpoint is a full one (the
//! paper adds incremental checkpoints between full ones to shorten them);
//! the format reserves a `kind` field for them.

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
    if let Some(seg) = s.log_segment {
        if seg.0 < plan.first_data_segment
            || seg.0 >= plan.layout.segments
            || s.log_page == 0
            || s.log_page >= plan.layout.pages_per_segment
        {
            return Err(FtlError::Corrupt(format!(
                "checkpoint slot {slot}: seal names log position segment {} page {}, outside the data area",
                seg.0, s.log_page
            )));
        }
    }
    let want = seal::L2P_CRC.get_u32(&page);
    let mut l2p = Vec::with_capacity(logical as usize);
    let mut crc = 0u32;
    for i in 0..plan.l2p_pages {
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
