//! The SCFTL on-flash format: the field tables and codes of every metadata
//! page (docs/FORMAT.md §4 — a test compares the tables there with these),
//! the header encoder/decoder with its CRC32C, and the accessors of delta
//! pairs and L2P entries.
//!
//! Every metadata page (tentative or committed delta page, L2P page of a
//! full checkpoint, commit record) starts with the same 48-byte header; the
//! CRC covers the first `crc_len` bytes of the page (the header and the
//! payload that is used: the whole page for L2P pages and commit records,
//! header + pairs for delta pages, so recovery reads only that prefix) with
//! the CRC field read as zero. A torn or half-erased page is rejected, and
//! the generation / epoch / index fields reject a well-formed page that is
//! stale or in the wrong place.
//!
//! Data pages carry no header; their OOB holds one [`data_oob`] record per
//! sector, the CRC32C of the logical sector number and the sector's data,
//! which every read from flash verifies, and (configuration version 5) the
//! logical sector numbers after the in-page marker's place, which GC reads
//! instead of keeping a physical-to-logical table (docs/FORMAT.md §4.7).

use super::layout::{La, Psa};
use crate::codec::field_table;

/// Magic at offset 0 of every metadata page.
pub const META_MAGIC: [u8; 4] = *b"SCFM";
/// Version of the metadata page layout (3: committed delta pages carry the
/// epoch digest in `aux2`, and kind 5 exists).
pub const META_VERSION: u16 = 3;

/// Page kinds (header field `kind`).
pub const KIND_TENTATIVE: u16 = 1;
/// The committed page of a durable flush: a sync followed it.
pub const KIND_COMMITTED: u16 = 2;
pub const KIND_L2P: u16 = 3;
pub const KIND_COMMIT_RECORD: u16 = 4;
/// The committed page of an ordered flush (an epoch barrier no client
/// asked to be durable): no sync followed it.
pub const KIND_ORDERED: u16 = 5;
/// An in-page commit record: the last sector slot of the last data page a
/// durable flush programs (docs/FORMAT.md §4.8). Never in the delta region.
pub const KIND_INPAGE: u16 = 6;
/// A consolidation page of the delta region: the pairs of the epochs
/// committed in-page since the last committed delta page, in order
/// (docs/FORMAT.md §4.8).
pub const KIND_CONSOLIDATED: u16 = 7;

/// Flag bit of a delta page's `kind`: the FTL synced after it programmed
/// the previous page of the region (and before this one), so everything
/// written before that sync — every earlier epoch — is durable.
pub const KIND_AFTER_SYNC: u16 = 0x8000;

/// A delta page's kind without the [`KIND_AFTER_SYNC`] flag.
pub fn base_kind(kind: u16) -> u16 {
    kind & !KIND_AFTER_SYNC
}

/// Whether a delta page of `kind` (flag removed) closes its epoch.
pub fn is_commit_kind(kind: u16) -> bool {
    kind == KIND_COMMITTED || kind == KIND_ORDERED
}

/// The epoch digest (docs/FORMAT.md §4.3) after `prev`, the digest of the
/// previous committed epoch of the generation (0 for its first), and the
/// epoch id: the digest of an epoch is this value extended by
/// [`digest_sector`] for the data CRC of each of its mapped pairs, in order.
pub fn digest_start(prev: u32, epoch: u64) -> u32 {
    crc32c::crc32c_append(prev, &epoch.to_le_bytes())
}

/// Extends an epoch digest by the data CRC ([`data_crc`]) of one sector.
#[inline]
pub fn digest_sector(digest: u32, sector_crc: u32) -> u32 {
    crc32c::crc32c_append(digest, &sector_crc.to_le_bytes())
}

field_table! {
    /// The metadata page header (docs/FORMAT.md §4.2).
    pub mod header {
        pub const MAGIC: Field = Field::new("magic", 0, 4);
        pub const VERSION: Field = Field::new("version", 4, 2);
        pub const KIND: Field = Field::new("kind", 6, 2);
        pub const GEN: Field = Field::new("gen", 8, 8);
        pub const EPOCH: Field = Field::new("epoch", 16, 8);
        pub const INDEX: Field = Field::new("index", 24, 4);
        pub const COUNT: Field = Field::new("count", 28, 4);
        pub const AUX: Field = Field::new("aux", 32, 4);
        pub const AUX2: Field = Field::new("aux2", 36, 4);
        pub const CRC: Field = Field::new("crc", 40, 4);
        /// Bytes from offset 0 that the CRC covers.
        pub const CRC_LEN: Field = Field::new("crc_len", 44, 4);
    }
}
use header::{AUX, AUX2, COUNT, CRC, CRC_LEN, EPOCH, GEN, INDEX, KIND, MAGIC, VERSION};

/// Header length; payloads start here.
pub const HEADER_LEN: usize = CRC_LEN.end();
/// Offsets of the header fields that tools scanning raw pages read.
pub const OFF_MAGIC: usize = MAGIC.offset;
pub const OFF_KIND: usize = KIND.offset;

field_table! {
    /// A delta pair (docs/FORMAT.md §4.3): logical sector, then physical
    /// sector (or [`crate::UNMAPPED`]); pair `k` starts at
    /// `HEADER_LEN + k * PAIR_LEN`.
    pub mod pair {
        pub const LA: Field = Field::new("la", 0, 4);
        pub const PA: Field = Field::new("pa", 4, 4);
    }
}
pub const PAIR_LEN: usize = pair::PA.end();

field_table! {
    /// One L2P entry of a full checkpoint page (docs/FORMAT.md §4.4); entry
    /// `i` starts at `HEADER_LEN + i * L2P_ENTRY_LEN`.
    pub mod l2p_entry {
        pub const PA: Field = Field::new("pa", 0, 4);
    }
}
pub const L2P_ENTRY_LEN: usize = l2p_entry::PA.size;

field_table! {
    /// The commit record's payload (docs/FORMAT.md §4.5), after the header.
    pub mod commit_record {
        /// CRC32C over the CRCs of the L2P pages, in order.
        pub const L2P_CRC: Field = Field::new("l2p_crc", 48, 4);
        /// The slot the record belongs to.
        pub const SLOT: Field = Field::new("slot", 52, 4);
        /// Superblocks the metadata map names (`2c + d`); the map's
        /// superblock numbers (u32 each: slot 0's, slot 1's, the delta
        /// region's) follow from [`MAP_OFFSET`].
        pub const MAP_LEN: Field = Field::new("map_len", 56, 4);
    }
}

/// Where a commit record's metadata map starts (configuration version 7).
pub const MAP_OFFSET: usize = commit_record::MAP_LEN.end();

/// The OOB of a commit record page (configuration version 7): what tells
/// it from a data page, whose OOB starts with its sectors' CRC records,
/// when recovery scans for commit records (docs/FORMAT.md §4.5). The
/// rest of the page's OOB is 0xFF.
pub const COMMIT_OOB_MARKER: [u8; 8] = *b"SCFMCKPT";

/// Smallest page that can hold a header plus a few entries.
pub const MIN_PAGE_SIZE: usize = 64;

/// Delta pairs a delta page can hold (the configured
/// `delta_pairs_per_page` may be smaller).
pub fn pairs_per_page(page_size: usize) -> usize {
    page_size.saturating_sub(HEADER_LEN) / PAIR_LEN
}

/// L2P entries per full-checkpoint page.
pub fn l2p_entries_per_page(page_size: usize) -> usize {
    page_size.saturating_sub(HEADER_LEN) / L2P_ENTRY_LEN
}

/// Writes pair `k` of a delta page.
#[inline]
pub fn put_pair(page: &mut [u8], k: usize, la: La, pa: Psa) {
    let base = HEADER_LEN + k * PAIR_LEN;
    pair::LA.at(base).put_u32(page, la.0);
    pair::PA.at(base).put_u32(page, pa.0);
}

/// Reads pair `k` of a delta page: (logical, physical). Neither is
/// range-checked here.
#[inline]
pub fn get_pair(page: &[u8], k: usize) -> (La, Psa) {
    let base = HEADER_LEN + k * PAIR_LEN;
    (
        La(pair::LA.at(base).get_u32(page)),
        Psa(pair::PA.at(base).get_u32(page)),
    )
}

/// Writes entry `i` of an L2P page.
#[inline]
pub fn put_l2p_entry(page: &mut [u8], i: usize, pa: Psa) {
    l2p_entry::PA
        .at(HEADER_LEN + i * L2P_ENTRY_LEN)
        .put_u32(page, pa.0);
}

/// Reads entry `i` of an L2P page (not range-checked here).
#[inline]
pub fn get_l2p_entry(page: &[u8], i: usize) -> Psa {
    Psa(l2p_entry::PA
        .at(HEADER_LEN + i * L2P_ENTRY_LEN)
        .get_u32(page))
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

/// CRC32C of `page` with the CRC field taken as zero.
pub fn page_crc(page: &[u8]) -> u32 {
    let c = CRC.prefix_crc(page, &[0u8; 4]);
    crc32c::crc32c_append(c, &page[CRC.end()..])
}

/// Delta pages: bytes the CRC covers for `count` pairs.
pub fn delta_crc_len(count: u32) -> usize {
    HEADER_LEN + count as usize * PAIR_LEN
}

/// Bytes of the *link* (docs/FORMAT.md §4.8) that follows the pairs of a
/// committed or ordered delta page and of an in-page commit record: the
/// physical sector of slot 0 of the data page where the next epoch's
/// in-page commit may be, or [`crate::UNMAPPED`].
pub const LINK_LEN: usize = 4;

/// Bytes of the data CRC that follows the link in an in-page record.
pub const INPAGE_DATA_CRC_LEN: usize = 4;

/// The link of a committed delta page sealed over `crc_len` bytes with
/// `count` pairs, if it has one (pages of configuration version 3 do not).
pub fn commit_link(page: &[u8], count: u32, crc_len: usize) -> Option<Psa> {
    let off = delta_crc_len(count);
    (crc_len == off + LINK_LEN && page.len() >= off + LINK_LEN).then(|| {
        Psa(u32::from_le_bytes(
            page[off..off + LINK_LEN].try_into().unwrap(),
        ))
    })
}

/// Bytes an in-page record with `count` pairs occupies (and its CRC covers).
pub fn inpage_record_len(count: u32) -> usize {
    delta_crc_len(count) + LINK_LEN + INPAGE_DATA_CRC_LEN
}

/// Pairs an in-page record in one sector of `sector_size` bytes can hold.
pub fn inpage_capacity(sector_size: usize) -> u32 {
    (sector_size.saturating_sub(inpage_record_len(0)) / PAIR_LEN) as u32
}

/// The data CRC of an in-page record: CRC32C over the data of the page's
/// `fill` data sectors, then their OOB records (`4 × fill` bytes). A page
/// torn anywhere in its data or its data OOB fails it.
pub fn inpage_data_crc(data: &[u8], oob_records: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(data), oob_records)
}

/// Reads the `crc_len` field of a sealed metadata page.
pub fn crc_len_of(page: &[u8]) -> usize {
    CRC_LEN.get_u32(page) as usize
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
    MAGIC.put_bytes(page, &META_MAGIC);
    VERSION.put_u16(page, META_VERSION);
    KIND.put_u16(page, h.kind);
    GEN.put_u64(page, h.gen);
    EPOCH.put_u64(page, h.epoch);
    INDEX.put_u32(page, h.index);
    COUNT.put_u32(page, h.count);
    AUX.put_u32(page, h.aux);
    AUX2.put_u32(page, h.aux2);
    CRC_LEN.put_u32(page, crc_len as u32);
    let crc = page_crc(&page[..crc_len]);
    CRC.put_u32(page, crc);
}

/// Parses a metadata page header. `None` when the magic, version or (if
/// `check_crc`) the CRC is wrong: the page is torn, garbage or not ours.
/// `page` may be a prefix of the flash page; the CRC's `crc_len` must then
/// fit in it.
pub fn parse(page: &[u8], check_crc: bool) -> Option<MetaHeader> {
    if page.len() < MIN_PAGE_SIZE || MAGIC.bytes(page) != META_MAGIC {
        return None;
    }
    if VERSION.get_u16(page) != META_VERSION {
        return None;
    }
    if check_crc {
        let crc_len = CRC_LEN.get_u32(page) as usize;
        if !(HEADER_LEN..=page.len()).contains(&crc_len)
            || CRC.get_u32(page) != page_crc(&page[..crc_len])
        {
            return None;
        }
    }
    Some(MetaHeader {
        kind: KIND.get_u16(page),
        gen: GEN.get_u64(page),
        epoch: EPOCH.get_u64(page),
        index: INDEX.get_u32(page),
        count: COUNT.get_u32(page),
        aux: AUX.get_u32(page),
        aux2: AUX2.get_u32(page),
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

field_table! {
    /// The OOB record of one data sector (docs/FORMAT.md §4.7); the record
    /// of slot `i` is at OOB offset `i * DATA_OOB_LEN`.
    pub mod data_oob {
        /// CRC32C of the logical sector (u32 LE) followed by the sector.
        pub const CRC: Field = Field::new("crc", 0, 4);
    }
}
/// Bytes of the CRC record per data sector at the start of the OOB.
pub const DATA_OOB_LEN: usize = data_oob::CRC.end();

/// Bytes of the logical-sector record per data sector (configuration
/// version 5): the logical sector number, u32 LE.
pub const DATA_LA_LEN: usize = 4;

/// OOB offset of slot `slot`'s logical-sector record on a page of `spp`
/// sectors (configuration version 5, docs/FORMAT.md §4.7): after the `spp`
/// CRC records and the in-page marker, so a version-4 page is a prefix of a
/// version-5 one.
#[inline]
pub fn data_la_offset(spp: u32, slot: u32) -> usize {
    spp as usize * DATA_OOB_LEN + INPAGE_MARKER_LEN + slot as usize * DATA_LA_LEN
}

/// OOB bytes a version-5 data page uses: CRC records, marker, logical
/// sector records.
#[inline]
pub fn data_oob_len_v5(spp: u32) -> usize {
    data_la_offset(spp, spp)
}

field_table! {
    /// The in-page marker (docs/FORMAT.md §4.8): in the OOB of a data page
    /// whose last sector slot holds an in-page commit record, right after
    /// the `sectors_per_page` data records. Only the FTL writes the OOB, so
    /// user data can never pose as a record.
    pub mod inpage_marker {
        /// `SCFI`.
        pub const MAGIC: Field = Field::new("magic", 0, 4);
        /// The record's header `crc`.
        pub const RECORD_CRC: Field = Field::new("record_crc", 4, 4);
    }
}
/// Magic of the in-page marker.
pub const INPAGE_MAGIC: [u8; 4] = *b"SCFI";
/// Bytes of the in-page marker.
pub const INPAGE_MARKER_LEN: usize = inpage_marker::RECORD_CRC.end();

/// Magic of the marker of a page carrying an OOB commit record
/// (docs/FORMAT.md §4.9): the marker's `record_crc` is then the record's
/// CRC.
pub const OOB_COMMIT_MAGIC: [u8; 4] = *b"SCFP";

/// Most data pages an epoch committed by an OOB record may span (the pages
/// recovery reads to follow one link of a chain), in images of
/// configuration version 9 and later (`Features::long_oob_runs`): an epoch
/// of 256 random 4 KiB writes fills 64 pages of 16 KiB.
pub const MAX_OOB_EPOCH_PAGES: u32 = 64;

/// The same bound in images of configuration versions 6 to 8, whose
/// builds stop walking there.
pub const MAX_OOB_EPOCH_PAGES_V6: u32 = 32;

/// Bytes of one data page's records an OOB commit covers: its `spp` CRC
/// records, then its `spp` logical sector records.
#[inline]
pub fn oob_page_records_len(spp: u32) -> usize {
    2 * spp as usize * DATA_OOB_LEN
}

/// Appends a data page's records (CRC records, then logical sector
/// records; 0xFF for padding slots) from its OOB `oob` to `out`.
pub fn push_page_records(out: &mut Vec<u8>, spp: u32, oob: &[u8]) {
    let n = spp as usize * DATA_OOB_LEN;
    out.extend_from_slice(&oob[..n]);
    let la = data_la_offset(spp, 0);
    out.extend_from_slice(&oob[la..la + spp as usize * DATA_LA_LEN]);
}

/// The CRC of an OOB commit record (docs/FORMAT.md §4.9): CRC32C over the
/// generation and epoch id (u64 LE each), the number of the epoch's data
/// pages (u32 LE) and those pages' records in order ([`push_page_records`]).
/// Recovery computes it for the generation and epoch it expects, so a
/// record of another generation or epoch, or over other pages, fails it.
pub fn oob_commit_crc(gen: u64, epoch: u64, records: &[u8], spp: u32) -> u32 {
    let pages = (records.len() / oob_page_records_len(spp)) as u32;
    let mut c = crc32c::crc32c(&gen.to_le_bytes());
    c = crc32c::crc32c_append(c, &epoch.to_le_bytes());
    c = crc32c::crc32c_append(c, &pages.to_le_bytes());
    crc32c::crc32c_append(c, records)
}

/// The checksum a data sector holding `data` for logical sector `la`
/// carries in its OOB: CRC32C of `la` (u32 LE) followed by the data.
/// Binding `la` in means a stale or misdirected mapping fails the check
/// too, not only damaged bytes. Every sector written and read is summed
/// here, so it uses `crc-fast` (carry-less-multiply folding, about twice
/// the rate of the `crc32c` crate the metadata uses on 4 KiB sectors); a
/// test checks that both give the same CRC32C.
#[inline]
pub fn data_crc(la: La, data: &[u8]) -> u32 {
    let mut d = crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Iscsi);
    d.update(&la.0.to_le_bytes());
    d.update(data);
    d.finalize() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_crc_is_crc32c_of_the_sector_number_then_the_data() {
        // The known CRC32C check value, then sectors of several lengths
        // (both crates take different paths for short and long inputs).
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        for len in [0usize, 1, 7, 64, 512, 4096, 4099, 16384] {
            let data: Vec<u8> = (0..len).map(|i| (i * 131 + len) as u8).collect();
            for la in [0u32, 1, 0xDEAD_BEEF, u32::MAX] {
                let want = crc32c::crc32c_append(crc32c::crc32c(&la.to_le_bytes()), &data);
                assert_eq!(data_crc(La(la), &data), want, "len {len}, la {la:#x}");
            }
        }
    }

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
        put_pair(&mut d, 0, La(42), Psa(7));
        seal_prefix(&mut d, &h, delta_crc_len(1));
        assert_eq!(parse(&d, true), Some(h));
        assert_eq!(parse(&d[..64], true), Some(h));
        d[700] = 0x55;
        assert_eq!(parse(&d, true), Some(h));
        d[HEADER_LEN + 1] ^= 1;
        assert_eq!(parse(&d, true), None);
        let mut short = page.clone();
        CRC_LEN.put_u32(&mut short, 4);
        assert_eq!(parse(&short, true), None, "crc_len below the header");
    }
}
