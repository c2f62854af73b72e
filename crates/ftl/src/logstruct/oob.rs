//! The per-sector OOB record and the trim-record sector of the baselines
//! (docs/FORMAT.md §5). Every data sector a baseline programs carries, in
//! the page's spare area, a 16-byte record `(la, seq, crc)`; recovery trusts
//! a sector only if the CRC over the record and the sector data matches.
//!
//! Why 16 bytes: the smallest preset (`tiny`) has 32 B of OOB for 2 sectors.
//! The logical address is therefore 32 bits (devices are limited to
//! [`MAX_LOGICAL_SECTORS`]) and the checksum is one CRC32C over record and
//! data; the sequence number keeps its full 64 bits so it never wraps.

use crate::codec::field_table;
use crate::device::{FtlError, Result};

field_table! {
    /// The OOB record of one sector (docs/FORMAT.md §5.2); the record of slot
    /// `i` is at OOB offset `i * OOB_RECORD_SIZE`.
    pub mod record {
        pub const LA: Field = Field::new("la", 0, 4);
        pub const SEQ: Field = Field::new("seq", 4, 8);
        /// CRC32C of the record's bytes before it, then the sector's data.
        pub const CRC: Field = Field::new("crc", 12, 4);
    }
}
/// Bytes of OOB per sector.
pub const OOB_RECORD_SIZE: usize = record::CRC.end();

/// `la` value of a trim-record sector.
pub const LA_TRIM: u32 = 0xFFFF_FFFE;
/// `la` value of an unused slot (erased OOB reads as this).
pub const LA_EMPTY: u32 = 0xFFFF_FFFF;
/// Largest number of logical sectors a baseline device may have.
pub const MAX_LOGICAL_SECTORS: u64 = 0xFFFF_FFF0;

/// Magic at offset 0 of a trim-record sector (`TRIM`).
pub const TRIM_MAGIC: u32 = u32::from_le_bytes(*b"TRIM");

field_table! {
    /// The trim record at the start of a trim-record sector (docs/FORMAT.md
    /// §5.3).
    pub mod trim {
        pub const MAGIC: Field = Field::new("magic", 0, 4);
        pub const RESERVED: Field = Field::new("reserved", 4, 4);
        pub const START: Field = Field::new("start", 8, 8);
        pub const COUNT: Field = Field::new("count", 16, 8);
    }
}
/// Bytes of a trim-record sector that carry information (the rest is zero).
pub const TRIM_RECORD_LEN: usize = trim::COUNT.end();

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
    let mut head = [0u8; record::CRC.offset];
    record::LA.put_u32(&mut head, la);
    record::SEQ.put_u64(&mut head, seq);
    record::CRC.prefix_crc(&head, data)
}

/// Writes the record for `(la, seq, data)` into `out[..16]`.
pub fn encode_record(out: &mut [u8], la: u32, seq: u64, data: &[u8]) {
    let crc = record_crc(la, seq, data);
    record::LA.put_u32(out, la);
    record::SEQ.put_u64(out, seq);
    record::CRC.put_u32(out, crc);
}

/// Reads a record from `b[..16]`.
pub fn decode_record(b: &[u8]) -> OobRecord {
    OobRecord {
        la: record::LA.get_u32(b),
        seq: record::SEQ.get_u64(b),
        crc: record::CRC.get_u32(b),
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
    trim::MAGIC.put_u32(sector, TRIM_MAGIC);
    trim::START.put_u64(sector, start);
    trim::COUNT.put_u64(sector, count);
}

/// Decodes a trim-record sector of a device with `logical_sectors` sectors.
/// A CRC-valid trim record that names sectors outside the device can only be
/// written by a bug, so it is reported as corruption.
pub fn decode_trim(sector: &[u8], seq: u64, logical_sectors: u64) -> Result<TrimRecord> {
    let magic = trim::MAGIC.get_u32(sector);
    let (start, count) = (trim::START.get_u64(sector), trim::COUNT.get_u64(sector));
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
