//! Full checkpoints: the whole L2P in a slot, then a commit record.
//!
//! Protocol (paper Fig. 3, with generations): erase the target slot and
//! sync; program the L2P pages (generation g+1) and sync; program the commit
//! record and sync — from here the new checkpoint is the one recovery picks
//! (highest committed generation); only then erase the old slot and the
//! delta region. A slot is *committed* iff its commit record and every L2P
//! page it names parse with valid CRCs, carry its generation and the
//! expected index, and the record's CRC-of-CRCs matches.

use flash::Flash;

use crate::device::{FtlError, Result};

use super::format::{self, commit_record, header, MetaHeader};
use super::layout::{Layout, Psa};

/// Number of L2P pages of a checkpoint of `l2p_len` entries.
pub(crate) fn l2p_pages(layout: &Layout, l2p_len: usize) -> u32 {
    let epp = format::l2p_entries_per_page(layout.page_size);
    l2p_len.div_ceil(epp) as u32
}

/// Writes a committed checkpoint of `l2p` into `slot` (erasing it first).
/// `next_epoch` is stored so epoch ids keep growing across generations.
pub(crate) fn write<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    slot: usize,
    gen: u64,
    next_epoch: u64,
    l2p: &[Psa],
    page: &mut [u8],
) -> Result<u64> {
    let first = layout.slot_first[slot];
    layout.erase_sbs(flash, first, layout.slot_sbs)?;
    flash.sync()?;
    let epp = format::l2p_entries_per_page(layout.page_size);
    let npages = l2p_pages(layout, l2p.len());
    let mut crcs = 0u32;
    let mut pages = 0u64;
    for (i, chunk) in l2p.chunks(epp).enumerate() {
        for (k, &pa) in chunk.iter().enumerate() {
            format::put_l2p_entry(page, k, pa);
        }
        page[format::HEADER_LEN + chunk.len() * format::L2P_ENTRY_LEN..].fill(0);
        let h = MetaHeader {
            kind: format::KIND_L2P,
            gen,
            epoch: next_epoch,
            index: i as u32,
            count: chunk.len() as u32,
            aux: (i * epp) as u32,
            aux2: 0,
        };
        format::seal(page, &h);
        crcs = crc32c::crc32c_append(crcs, header::CRC.bytes(page));
        flash.program(layout.region_page(first, i as u32), page, &[])?;
        pages += 1;
    }
    flash.sync()?;
    page.fill(0);
    commit_record::L2P_CRC.put_u32(page, crcs);
    commit_record::SLOT.put_u32(page, slot as u32);
    let h = MetaHeader {
        kind: format::KIND_COMMIT_RECORD,
        gen,
        epoch: next_epoch,
        index: npages,
        count: 0,
        aux: npages,
        aux2: l2p.len() as u32,
    };
    format::seal(page, &h);
    flash.program(layout.region_page(first, npages), page, &[])?;
    flash.sync()?;
    Ok(pages + 1)
}

/// A parsed commit record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CommitRecord {
    pub gen: u64,
    pub next_epoch: u64,
    pub l2p_crc: u32,
}

/// Reads the commit record of `slot`; `None` if it is absent or invalid.
pub(crate) fn read_commit<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    slot: usize,
    l2p_len: usize,
    check_crc: bool,
    page: &mut [u8],
) -> Result<Option<CommitRecord>> {
    let npages = l2p_pages(layout, l2p_len);
    flash.read(layout.region_page(layout.slot_first[slot], npages), 0, page)?;
    let Some(h) = format::parse(page, check_crc) else {
        return Ok(None);
    };
    let ok = h.kind == format::KIND_COMMIT_RECORD
        && h.index == npages
        && h.aux == npages
        && h.aux2 as usize == l2p_len
        && commit_record::SLOT.get_u32(page) == slot as u32;
    if !ok && check_crc {
        return Ok(None);
    }
    Ok(Some(CommitRecord {
        gen: h.gen,
        next_epoch: h.epoch,
        l2p_crc: commit_record::L2P_CRC.get_u32(page),
    }))
}

/// Loads the L2P pages of a committed slot into `l2p`. Returns `false` if
/// any page is invalid (then the slot is not committed after all).
pub(crate) fn read_l2p<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    slot: usize,
    rec: &CommitRecord,
    check_crc: bool,
    l2p: &mut [Psa],
    page: &mut [u8],
) -> Result<bool> {
    let epp = format::l2p_entries_per_page(layout.page_size);
    let mut crcs = 0u32;
    let first = layout.slot_first[slot];
    for (i, chunk) in l2p.chunks_mut(epp).enumerate() {
        flash.read(layout.region_page(first, i as u32), 0, page)?;
        let Some(h) = format::parse(page, check_crc) else {
            return Ok(false);
        };
        let ok = h.kind == format::KIND_L2P
            && h.gen == rec.gen
            && h.index == i as u32
            && h.count as usize == chunk.len()
            && h.aux as usize == i * epp;
        if !ok && check_crc {
            return Ok(false);
        }
        crcs = crc32c::crc32c_append(crcs, header::CRC.bytes(page));
        for (k, e) in chunk.iter_mut().enumerate() {
            *e = format::get_l2p_entry(page, k);
        }
    }
    if check_crc && crcs != rec.l2p_crc {
        return Ok(false);
    }
    Ok(true)
}

/// Picks the committed slot with the highest generation and loads its L2P.
/// Returns (slot, commit record).
pub(crate) fn load_newest<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    check_crc: bool,
    l2p: &mut [Psa],
    page: &mut [u8],
) -> Result<(usize, CommitRecord)> {
    let mut cands = Vec::with_capacity(2);
    for slot in 0..2 {
        if let Some(r) = read_commit(flash, layout, slot, l2p.len(), check_crc, page)? {
            cands.push((slot, r));
        }
    }
    cands.sort_by_key(|(_, r)| std::cmp::Reverse(r.gen));
    for (slot, r) in cands {
        if read_l2p(flash, layout, slot, &r, check_crc, l2p, page)? {
            return Ok((slot, r));
        }
    }
    Err(FtlError::Corrupt(
        "no committed full checkpoint in either slot; the device cannot be recovered (reformat it)"
            .into(),
    ))
}
