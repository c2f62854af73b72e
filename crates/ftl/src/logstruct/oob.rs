//! The per-sector OOB record and the trim-record sector of the baselines
//! (docs/FORMAT.md §5). Every data sector a baseline programs carries, in
//! the page's spare area, a 16-byte record `(la, seq, crc)`; recovery trusts
//! a sector only if the CRC over the record and the sector data matches.
//!
//! Why 16 bytes: the smallest preset (`tiny`) has 32 B of OOB for 2 sectors.
//! The logical address is therefore 32 bits (devices are limited to
//! [`MAX_LOGICAL_SECTORS`]) and the checksum is one CRC32C over record and
//! data; the sequence number keeps its full 64 bits so it never wraps.

use crate::device::{FtlError, Result};

/// Bytes of OOB per sector.
pub const OOB_RECORD_SIZE: usize = 16;
/// Offsets within one OOB record.
pub const OOB_OFF_LA: usize = 0;
pub const OOB_OFF_SEQ: usize = 4;
pub const OOB_OFF_CRC: usize = 12;

/// `la` value of a trim-record sector.
pub const LA_TRIM: u32 = 0xFFFF_FFFE;
/// `la` value of an unused slot (erased OOB reads as this).
pub const LA_EMPTY: u32 = 0xFFFF_FFFF;
/// Largest number of logical sectors a baseline device may have.
pub const MAX_LOGICAL_SECTORS: u64 = 0xFFFF_FFF0;

/// Magic at offset 0 of a trim-record sector (`TRIM`).
pub const TRIM_MAGIC: u32 = u32::from_le_bytes(*b"TRIM");
/// Offsets within a trim-record sector.
pub const TRIM_OFF_MAGIC: usize = 0;
pub const TRIM_OFF_RESERVED: usize = 4;
pub const TRIM_OFF_START: usize = 8;
pub const TRIM_OFF_COUNT: usize = 16;
/// Bytes of a trim-record sector that carry information (the rest is zero).
pub const TRIM_RECORD_LEN: usize = 24;

/// A decoded OOB record (CRC not yet checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OobRecord {
    pub la: u32,
    pub seq: u64,
    pub crc: u32,
}

/// A trimmed range of logical sectors and the sequence number of the trim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimRecord {
    pub start: u64,
    pub count: u64,
    pub seq: u64,
}

/// The CRC a record for `(la, seq)` over `data` must carry.
pub fn record_crc(la: u32, seq: u64, data: &[u8]) -> u32 {
    let mut head = [0u8; OOB_OFF_CRC];
    head[OOB_OFF_LA..OOB_OFF_LA + 4].copy_from_slice(&la.to_le_bytes());
    head[OOB_OFF_SEQ..OOB_OFF_SEQ + 8].copy_from_slice(&seq.to_le_bytes());
    crc32c::crc32c_append(crc32c::crc32c(&head), data)
}

/// Writes the record for `(la, seq, data)` into `out[..16]`.
pub fn encode_record(out: &mut [u8], la: u32, seq: u64, data: &[u8]) {
    let crc = record_crc(la, seq, data);
    out[OOB_OFF_LA..OOB_OFF_LA + 4].copy_from_slice(&la.to_le_bytes());
    out[OOB_OFF_SEQ..OOB_OFF_SEQ + 8].copy_from_slice(&seq.to_le_bytes());
    out[OOB_OFF_CRC..OOB_OFF_CRC + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Reads a record from `b[..16]`.
pub fn decode_record(b: &[u8]) -> OobRecord {
    let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let mut seq = [0u8; 8];
    seq.copy_from_slice(&b[OOB_OFF_SEQ..OOB_OFF_SEQ + 8]);
    OobRecord {
        la: u32_at(OOB_OFF_LA),
        seq: u64::from_le_bytes(seq),
        crc: u32_at(OOB_OFF_CRC),
    }
}

impl OobRecord {
    /// Whether the record's CRC matches `data`.
    pub fn matches(&self, data: &[u8]) -> bool {
        record_crc(self.la, self.seq, data) == self.crc
    }
}

/// Fills a sector with the trim record for `[start, start + count)`.
pub fn encode_trim(sector: &mut [u8], start: u64, count: u64) {
    sector.fill(0);
    sector[TRIM_OFF_MAGIC..TRIM_OFF_MAGIC + 4].copy_from_slice(&TRIM_MAGIC.to_le_bytes());
    sector[TRIM_OFF_START..TRIM_OFF_START + 8].copy_from_slice(&start.to_le_bytes());
    sector[TRIM_OFF_COUNT..TRIM_OFF_COUNT + 8].copy_from_slice(&count.to_le_bytes());
}

/// Decodes a trim-record sector of a device with `logical_sectors` sectors.
/// A CRC-valid trim record that names sectors outside the device can only be
/// written by a bug, so it is reported as corruption.
pub fn decode_trim(sector: &[u8], seq: u64, logical_sectors: u64) -> Result<TrimRecord> {
    let u64_at = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&sector[o..o + 8]);
        u64::from_le_bytes(b)
    };
    let magic = u32::from_le_bytes([sector[0], sector[1], sector[2], sector[3]]);
    let (start, count) = (u64_at(TRIM_OFF_START), u64_at(TRIM_OFF_COUNT));
    if magic != TRIM_MAGIC
        || count == 0
        || start.checked_add(count).is_none_or(|e| e > logical_sectors)
    {
        return Err(FtlError::Corrupt(format!(
            "trim record (seq {seq}) names sectors {start}+{count} of a {logical_sectors}-sector device or lacks its magic; the image was not written by this FTL version"
        )));
    }
    Ok(TrimRecord { start, count, seq })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_and_detects_changes() {
        let data = vec![7u8; 512];
        let mut rec = [0u8; OOB_RECORD_SIZE];
        encode_record(&mut rec, 42, 1 << 40, &data);
        let r = decode_record(&rec);
        assert_eq!((r.la, r.seq), (42, 1 << 40));
        assert!(r.matches(&data));
        let mut torn = data.clone();
        torn[511] = 0;
        assert!(!r.matches(&torn));
        let erased = decode_record(&[0xFF; 16]);
        assert_eq!(erased.la, LA_EMPTY);
        assert!(!erased.matches(&[0xFF; 512]));
    }

    #[test]
    fn trim_round_trips_and_rejects_out_of_range() {
        let mut s = vec![0xAAu8; 512];
        encode_trim(&mut s, 10, 5);
        assert_eq!(
            decode_trim(&s, 3, 15).unwrap(),
            TrimRecord {
                start: 10,
                count: 5,
                seq: 3
            }
        );
        assert!(decode_trim(&s, 3, 14).is_err());
        encode_trim(&mut s, 10, 0);
        assert!(decode_trim(&s, 3, 100).is_err());
    }
}
