//! Full checkpoints: the whole L2P in a slot, then a commit record.
//!
//! Protocol (paper Fig. 3, with generations): erase the target slot and
//! sync; program the L2P pages (generation g+1) and sync; program the commit
//! record and sync — from here the new checkpoint is the one recovery picks
//! (highest committed generation); only then erase the old slot and the
//! delta region. A slot is *committed* iff its commit record and every L2P
//! page it names parse with valid CRCs, carry its generation and the
//! expected index, and the record's CRC-of-CRCs matches.
//!
//! Metadata rotation (configuration version 7): the commit record names
//! the metadata map ([`MetaMap`]: the superblocks of both slots and of the
//! delta region), and a checkpoint may be written into superblocks taken
//! from the data pool with a fresh delta region (erased before the commit
//! point), so recovery finds the newest commit record by scanning every
//! superblock ([`load_newest`] with `scan`), not at a fixed place.

use flash::Flash;

use crate::device::{FtlError, Result};

use super::format::{self, commit_record, header, MetaHeader};
use super::layout::{Layout, MetaMap, Psa, Sb};

/// Number of L2P pages of a checkpoint of `l2p_len` entries.
pub(crate) fn l2p_pages(layout: &Layout, l2p_len: usize) -> u32 {
    let epp = format::l2p_entries_per_page(layout.page_size);
    l2p_len.div_ceil(epp) as u32
}

/// Writes a committed checkpoint of `l2p` into slot `slot` of `map`,
/// erasing that slot's superblocks and `also_erase` (the fresh delta
/// region of a rotation) first, before anything of the checkpoint is
/// programmed. `next_epoch` is stored so epoch ids keep growing across
/// generations. The commit record names `map` and carries
/// [`format::COMMIT_OOB_MARKER`] in its OOB (docs/FORMAT.md §4.5).
#[allow(clippy::too_many_arguments)]
pub(crate) fn write<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    map: &MetaMap,
    slot: usize,
    gen: u64,
    next_epoch: u64,
    l2p: &[Psa],
    page: &mut [u8],
    also_erase: &[Sb],
) -> Result<u64> {
    let sbs = &map.slots[slot];
    layout.erase_list(flash, sbs)?;
    layout.erase_list(flash, also_erase)?;
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
        flash.program(layout.list_page(sbs, i as u32), page, &[])?;
        pages += 1;
    }
    flash.sync()?;
    page.fill(0);
    commit_record::L2P_CRC.put_u32(page, crcs);
    commit_record::SLOT.put_u32(page, slot as u32);
    put_map(page, map);
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
    flash.program(
        layout.list_page(sbs, npages),
        page,
        &format::COMMIT_OOB_MARKER,
    )?;
    flash.sync()?;
    Ok(pages + 1)
}

/// Bytes a commit record needs for its map of `superblocks` entries.
pub(crate) fn commit_record_len(superblocks: u32) -> usize {
    format::MAP_OFFSET + 4 * superblocks as usize
}

fn put_map(page: &mut [u8], map: &MetaMap) {
    let all: Vec<Sb> = map.all().collect();
    commit_record::MAP_LEN.put_u32(page, all.len() as u32);
    for (i, sb) in all.iter().enumerate() {
        let at = format::MAP_OFFSET + 4 * i;
        page[at..at + 4].copy_from_slice(&sb.0.to_le_bytes());
    }
}

/// The map a commit record names, if it has one of `layout`'s sizes.
fn get_map(page: &[u8], layout: &Layout) -> Option<MetaMap> {
    let (c, d) = (layout.slot_sbs as usize, layout.delta_sbs as usize);
    let n = commit_record::MAP_LEN.get_u32(page) as usize;
    if n != 2 * c + d || commit_record_len(n as u32) > page.len() {
        return None;
    }
    let sb = |i: usize| {
        let at = format::MAP_OFFSET + 4 * i;
        Sb(u32::from_le_bytes(page[at..at + 4].try_into().unwrap()))
    };
    Some(MetaMap {
        slots: [(0..c).map(sb).collect(), (c..2 * c).map(sb).collect()],
        delta: (2 * c..n).map(sb).collect(),
    })
}

/// A parsed commit record.
#[derive(Clone, Debug)]
pub(crate) struct CommitRecord {
    pub gen: u64,
    pub next_epoch: u64,
    pub l2p_crc: u32,
    /// The slot the record says it is in.
    pub slot: usize,
    /// The metadata map it names (`None`: none that fits the layout).
    pub map: Option<MetaMap>,
}

/// Reads the commit record at `addr`; `None` if it is absent or invalid.
fn read_commit_at<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    addr: flash::PageAddr,
    l2p_len: usize,
    check_crc: bool,
    page: &mut [u8],
) -> Result<Option<CommitRecord>> {
    let npages = l2p_pages(layout, l2p_len);
    flash.read(addr, 0, page)?;
    let Some(h) = format::parse(page, check_crc) else {
        return Ok(None);
    };
    let slot = commit_record::SLOT.get_u32(page) as usize;
    let ok = h.kind == format::KIND_COMMIT_RECORD
        && h.index == npages
        && h.aux == npages
        && h.aux2 as usize == l2p_len
        && slot < 2;
    if !ok && check_crc {
        return Ok(None);
    }
    Ok(Some(CommitRecord {
        gen: h.gen,
        next_epoch: h.epoch,
        l2p_crc: commit_record::L2P_CRC.get_u32(page),
        slot: slot.min(1),
        map: get_map(page, layout),
    }))
}

/// Loads the L2P pages of a committed checkpoint in the superblocks `sbs`
/// into `l2p`. Returns `false` if any page is invalid (then the slot is
/// not committed after all).
pub(crate) fn read_l2p<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    sbs: &[Sb],
    rec: &CommitRecord,
    check_crc: bool,
    l2p: &mut [Psa],
    page: &mut [u8],
) -> Result<bool> {
    let epp = format::l2p_entries_per_page(layout.page_size);
    let mut crcs = 0u32;
    for (i, chunk) in l2p.chunks_mut(epp).enumerate() {
        flash.read(layout.list_page(sbs, i as u32), 0, page)?;
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

/// The committed checkpoints' commit records, each with the map it is
/// read under. `scan` (configuration version 7): the metadata may have
/// rotated anywhere, so every superblock's page at the commit record's
/// offset is a candidate if its OOB carries [`format::COMMIT_OOB_MARKER`]
/// and it names a map that fits the layout and places it where it was
/// found. Otherwise the two slots of the initial map.
fn commit_candidates<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    l2p_len: usize,
    check_crc: bool,
    page: &mut [u8],
    scan: bool,
) -> Result<Vec<(CommitRecord, MetaMap)>> {
    let npages = l2p_pages(layout, l2p_len);
    let mut cands = Vec::new();
    if !scan {
        for slot in 0..2 {
            let addr = layout.slot_page(slot, npages);
            if let Some(r) = read_commit_at(flash, layout, addr, l2p_len, check_crc, page)? {
                if r.slot == slot || !check_crc {
                    cands.push((CommitRecord { slot, ..r }, layout.meta().clone()));
                }
            }
        }
        return Ok(cands);
    }
    let (at_sb, at_page) = (
        (npages / layout.pages_per_sb) as usize,
        npages % layout.pages_per_sb,
    );
    // The commit-record page of every superblock is on one die (its index
    // in the superblock is fixed), so reading them one by one costs a
    // page sensing per superblock in series: 8,191 x 40 µs on
    // `paper-256g`. Where the record has L2P pages of its own checkpoint
    // before it in its superblock, a probe of one of them — spread over
    // the dies by the superblock's number, the probes of a batch sensed
    // in parallel — rules most superblocks out first: a record whose
    // checkpoint would load has, at page j of its superblock, the L2P page
    // `at_sb * pages_per_sb + j` ([`read_l2p`] checks every one), so a
    // superblock whose probe page is not that (data, erased, another
    // page) holds no record that [`load_newest`] could take. Only with
    // CRCs checked (the `SkipCrcCheck` mutant reads every record).
    let spread = if check_crc {
        layout.dies.min(at_page)
    } else {
        0
    };
    let first_l2p = at_sb as u32 * layout.pages_per_sb;
    let ss = layout.geometry.sector_size as usize;
    let probe_len =
        (format::MIN_PAGE_SIZE.max(format::HEADER_LEN).div_ceil(ss) * ss).min(layout.page_size);
    let mut oob = [0u8; format::COMMIT_OOB_MARKER.len()];
    let sbs: Vec<u32> = (1..layout.num_sbs).collect();
    let mut probes = Vec::with_capacity(spread as usize);
    for batch in sbs.chunks(spread.max(1) as usize) {
        if spread > 0 {
            probes.clear();
            probes.extend(
                batch
                    .iter()
                    .map(|&sb| layout.page_addr(Sb(sb), sb % spread)),
            );
            flash.prefetch(&probes)?;
        }
        for &sb in batch {
            if spread > 0 {
                let j = sb % spread;
                let head = &mut page[..probe_len];
                flash.read(layout.page_addr(Sb(sb), j), 0, head)?;
                let l2p_page = format::parse(head, false)
                    .is_some_and(|h| h.kind == format::KIND_L2P && h.index == first_l2p + j);
                if !l2p_page {
                    continue;
                }
            }
            let addr = layout.page_addr(Sb(sb), at_page);
            flash.read_oob(addr, &mut oob)?;
            if oob != format::COMMIT_OOB_MARKER {
                continue;
            }
            let Some(r) = read_commit_at(flash, layout, addr, l2p_len, check_crc, page)? else {
                continue;
            };
            let Some(map) = r.map.clone() else {
                continue;
            };
            if layout.check_map(&map).is_err() || map.slots[r.slot].get(at_sb) != Some(&Sb(sb)) {
                continue;
            }
            cands.push((r, map));
        }
    }
    Ok(cands)
}

/// Every committed checkpoint on the flash (its commit record and L2P
/// pages intact, as recovery reads them: [`load_newest`] takes the
/// first), newest first: its generation and its L2P. For the crash
/// checker's refinement oracle (`crate::refine::CheckpointView`).
pub(crate) fn committed<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    l2p_len: usize,
    page: &mut [u8],
    scan: bool,
) -> Result<Vec<(u64, Vec<Psa>)>> {
    let mut cands = commit_candidates(flash, layout, l2p_len, true, page, scan)?;
    cands.sort_by_key(|(r, _)| std::cmp::Reverse(r.gen));
    let mut out = Vec::new();
    for (r, map) in cands {
        let mut l2p = vec![Psa::UNMAPPED; l2p_len];
        if read_l2p(flash, layout, &map.slots[r.slot], &r, true, &mut l2p, page)? {
            out.push((r.gen, l2p));
        }
    }
    Ok(out)
}

/// Picks the committed checkpoint with the highest generation and loads
/// its L2P. Returns its commit record and the metadata map it names
/// (`scan`: see [`commit_candidates`]).
pub(crate) fn load_newest<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    check_crc: bool,
    l2p: &mut [Psa],
    page: &mut [u8],
    scan: bool,
) -> Result<(CommitRecord, MetaMap)> {
    let mut cands = commit_candidates(flash, layout, l2p.len(), check_crc, page, scan)?;
    cands.sort_by_key(|(r, _)| std::cmp::Reverse(r.gen));
    for (r, map) in cands {
        if read_l2p(flash, layout, &map.slots[r.slot], &r, check_crc, l2p, page)? {
            return Ok((r, map));
        }
    }
    Err(FtlError::Corrupt(if scan {
        "no committed full checkpoint found on the device; it cannot be recovered (reformat it)"
            .into()
    } else {
        "no committed full checkpoint in either slot; the device cannot be recovered (reformat it)"
            .into()
    }))
}
