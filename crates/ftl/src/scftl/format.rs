//! The SCFTL on-flash format: offsets and codes of every metadata page
//! (docs/FORMAT.md §4 — a test compares the tables there with these
//! constants), and the header encoder/decoder with its CRC32C.
//!
//! Every metadata page (tentative or committed delta page, L2P page of a
//! full checkpoint, commit record) starts with the same 48-byte header; the
//! CRC covers the first `crc_len` bytes of the page (the header and the
//! payload that is used: the whole page for L2P pages and commit records,
//! header + pairs for delta pages, so recovery reads only that prefix) with
//! the CRC field read as zero. A torn or half-erased page is rejected, and
//! the generation / epoch / index fields reject a well-formed page that is
//! stale or in the wrong place.

/// Magic at offset 0 of every metadata page.
pub const META_MAGIC: [u8; 4] = *b"SCFM";
/// Version of the metadata page layout.
pub const META_VERSION: u16 = 2;

/// Page kinds (header field `kind`).
pub const KIND_TENTATIVE: u16 = 1;
pub const KIND_COMMITTED: u16 = 2;
pub const KIND_L2P: u16 = 3;
pub const KIND_COMMIT_RECORD: u16 = 4;

/// Header field offsets.
pub const OFF_MAGIC: usize = 0;
pub const OFF_VERSION: usize = 4;
pub const OFF_KIND: usize = 6;
pub const OFF_GEN: usize = 8;
pub const OFF_EPOCH: usize = 16;
pub const OFF_INDEX: usize = 24;
pub const OFF_COUNT: usize = 28;
pub const OFF_AUX: usize = 32;
pub const OFF_AUX2: usize = 36;
pub const OFF_CRC: usize = 40;
/// Bytes from offset 0 that the CRC covers.
pub const OFF_CRC_LEN: usize = 44;
/// Header length; payloads start here.
pub const HEADER_LEN: usize = 48;

/// A delta pair: logical sector, then physical sector (or [`UNMAPPED`]).
pub const PAIR_LEN: usize = 8;
pub const OFF_PAIR_LA: usize = 0;
pub const OFF_PAIR_PA: usize = 4;
/// One L2P entry of a full checkpoint page.
pub const L2P_ENTRY_LEN: usize = 4;
/// Commit record payload: CRC32C over the CRCs of the L2P pages, in order.
pub const OFF_CR_L2P_CRC: usize = 48;
/// Commit record payload: the slot it belongs to.
pub const OFF_CR_SLOT: usize = 52;

/// "Unmapped" physical sector (L2P sentinel, and the pa of a trim pair).
pub const UNMAPPED: u32 = u32::MAX;

/// Smallest page that can hold a header plus a few entries.
pub const MIN_PAGE_SIZE: usize = 64;

/// Encoded configuration in the device label.
pub const CFG_VERSION: u32 = 1;
pub const CFG_OFF_VERSION: usize = 0;
pub const CFG_OFF_LOGICAL: usize = 4;
pub const CFG_OFF_W: usize = 12;
pub const CFG_OFF_K: usize = 16;
pub const CFG_OFF_U: usize = 20;
pub const CFG_OFF_SLOT_SBS: usize = 24;
pub const CFG_OFF_DELTA_SBS: usize = 28;
pub const CFG_OFF_DELTA_PAIRS: usize = 32;
pub const CFG_LEN: usize = 36;

/// Delta pairs a delta page can hold (the configured
/// `delta_pairs_per_page` may be smaller).
pub fn pairs_per_page(page_size: usize) -> usize {
    page_size.saturating_sub(HEADER_LEN) / PAIR_LEN
}

/// L2P entries per full-checkpoint page.
pub fn l2p_entries_per_page(page_size: usize) -> usize {
    page_size.saturating_sub(HEADER_LEN) / L2P_ENTRY_LEN
}

/// The fields of a metadata page header (magic, version and CRC implied).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MetaHeader {
    pub kind: u16,
    /// Full-checkpoint generation this page belongs to.
    pub gen: u64,
    /// Delta pages: the epoch. Commit record: the next epoch id to use.
    pub epoch: u64,
    /// Position: region page index (delta) or page index in the slot.
    pub index: u32,
    /// Entries in the payload (pairs or L2P entries).
    pub count: u32,
    /// Delta: page sequence within its epoch. L2P page: first logical
    /// sector. Commit record: number of L2P pages.
    pub aux: u32,
    /// Commit record: logical sectors. Otherwise 0.
    pub aux2: u32,
}

fn put_u16(p: &mut [u8], o: usize, v: u16) {
    p[o..o + 2].copy_from_slice(&v.to_le_bytes());
}
pub(crate) fn put_u32(p: &mut [u8], o: usize, v: u32) {
    p[o..o + 4].copy_from_slice(&v.to_le_bytes());
}
fn put_u64(p: &mut [u8], o: usize, v: u64) {
    p[o..o + 8].copy_from_slice(&v.to_le_bytes());
}
fn get_u16(p: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([p[o], p[o + 1]])
}
pub(crate) fn get_u32(p: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([p[o], p[o + 1], p[o + 2], p[o + 3]])
}
fn get_u64(p: &[u8], o: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&p[o..o + 8]);
    u64::from_le_bytes(b)
}

/// CRC32C of `page` with the CRC field taken as zero.
pub fn page_crc(page: &[u8]) -> u32 {
    let c = crc32c::crc32c(&page[..OFF_CRC]);
    let c = crc32c::crc32c_append(c, &[0u8; 4]);
    crc32c::crc32c_append(c, &page[OFF_CRC + 4..])
}

/// Delta pages: bytes the CRC covers for `count` pairs.
pub fn delta_crc_len(count: u32) -> usize {
    HEADER_LEN + count as usize * PAIR_LEN
}

/// Writes the header into `page` and seals the whole page with its CRC.
/// The payload must already be in place (and the unused tail zeroed).
pub fn seal(page: &mut [u8], h: &MetaHeader) {
    let n = page.len();
    seal_prefix(page, h, n);
}

/// Like [`seal`], with the CRC covering only `page[..crc_len]`
/// (`HEADER_LEN <= crc_len <= page.len()`).
pub fn seal_prefix(page: &mut [u8], h: &MetaHeader, crc_len: usize) {
    debug_assert!((HEADER_LEN..=page.len()).contains(&crc_len));
    page[OFF_MAGIC..OFF_MAGIC + 4].copy_from_slice(&META_MAGIC);
    put_u16(page, OFF_VERSION, META_VERSION);
    put_u16(page, OFF_KIND, h.kind);
    put_u64(page, OFF_GEN, h.gen);
    put_u64(page, OFF_EPOCH, h.epoch);
    put_u32(page, OFF_INDEX, h.index);
    put_u32(page, OFF_COUNT, h.count);
    put_u32(page, OFF_AUX, h.aux);
    put_u32(page, OFF_AUX2, h.aux2);
    put_u32(page, OFF_CRC_LEN, crc_len as u32);
    let crc = page_crc(&page[..crc_len]);
    put_u32(page, OFF_CRC, crc);
}

/// Parses a metadata page header. `None` when the magic, version or (if
/// `check_crc`) the CRC is wrong: the page is torn, garbage or not ours.
/// `page` may be a prefix of the flash page; the CRC's `crc_len` must then
/// fit in it.
pub fn parse(page: &[u8], check_crc: bool) -> Option<MetaHeader> {
    if page.len() < MIN_PAGE_SIZE || page[OFF_MAGIC..OFF_MAGIC + 4] != META_MAGIC {
        return None;
    }
    if get_u16(page, OFF_VERSION) != META_VERSION {
        return None;
    }
    if check_crc {
        let crc_len = get_u32(page, OFF_CRC_LEN) as usize;
        if !(HEADER_LEN..=page.len()).contains(&crc_len)
            || get_u32(page, OFF_CRC) != page_crc(&page[..crc_len])
        {
            return None;
        }
    }
    Some(MetaHeader {
        kind: get_u16(page, OFF_KIND),
        gen: get_u64(page, OFF_GEN),
        epoch: get_u64(page, OFF_EPOCH),
        index: get_u32(page, OFF_INDEX),
        count: get_u32(page, OFF_COUNT),
        aux: get_u32(page, OFF_AUX),
        aux2: get_u32(page, OFF_AUX2),
    })
}

/// True when every byte reads as erased flash.
pub fn is_erased(bytes: &[u8]) -> bool {
    // "Every byte equals its successor and the first is 0xFF", as one
    // memcmp, so a whole-region scan in recovery stays memory-bound.
    match bytes.first() {
        None => true,
        Some(&b) => b == flash::ERASED_BYTE && bytes[..bytes.len() - 1] == bytes[1..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_parse_round_trip_and_torn_pages_are_rejected() {
        let mut page = vec![0u8; 1024];
        page[HEADER_LEN] = 7;
        let h = MetaHeader {
            kind: KIND_COMMITTED,
            gen: 3,
            epoch: 9,
            index: 4,
            count: 1,
            aux: 2,
            aux2: 0,
        };
        seal(&mut page, &h);
        assert_eq!(parse(&page, true), Some(h));
        let mut torn = page.clone();
        torn[600] ^= 1;
        assert_eq!(parse(&torn, true), None);
        assert_eq!(parse(&torn, false), Some(h), "without CRC check it parses");
        assert_eq!(parse(&vec![0xFF; 1024], true), None);
        assert!(is_erased(&[0xFF; 8]) && !is_erased(&page));
        // A delta page's CRC covers only its pairs: bytes past them are not
        // checked, and a prefix that holds them parses.
        let mut d = vec![0u8; 1024];
        put_u32(&mut d, HEADER_LEN, 42);
        seal_prefix(&mut d, &h, delta_crc_len(1));
        assert_eq!(parse(&d, true), Some(h));
        assert_eq!(parse(&d[..64], true), Some(h));
        d[700] = 0x55;
        assert_eq!(parse(&d, true), Some(h));
        d[HEADER_LEN + 1] ^= 1;
        assert_eq!(parse(&d, true), None);
        let mut short = page.clone();
        put_u32(&mut short, OFF_CRC_LEN, 4);
        assert_eq!(parse(&short, true), None, "crc_len below the header");
    }
}
