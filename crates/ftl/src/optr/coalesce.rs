//! Coalescing records (paper §3.2, docs/FORMAT.md §8.3): when a write or
//! trim `y` replaces a dirty cached sector last written by request `x`,
//! `x` will miss that sector on flash, so ⟨x, y⟩ and `x`'s size are
//! recorded. Records wait in a DRAM buffer of one sector and are committed
//! as a record sector in the data log when the buffer fills or on a flush
//! (external or internal).
//!
//! Invariant: every record in the buffer has `x < y < next wid`; records
//! are committed in the order they were made.

use crate::codec::field_table;

field_table! {
    /// The header of a coalescing-record sector.
    pub mod header {
        pub const MAGIC: Field = Field::new("magic", 0, 4);
        pub const COUNT: Field = Field::new("count", 4, 4);
    }
}
field_table! {
    /// One record; record `i` is at `RECORDS_OFFSET + i * RECORD_SIZE`.
    pub mod record {
        pub const X: Field = Field::new("x", 0, 8);
        pub const Y: Field = Field::new("y", 8, 8);
        pub const SIZE: Field = Field::new("size", 16, 4);
    }
}
/// Where the records start in a record sector.
pub const RECORDS_OFFSET: usize = header::COUNT.end();
/// Bytes of one record.
pub const RECORD_SIZE: usize = record::SIZE.end();
/// Magic of a record sector (`COAL`).
pub const COALESCE_MAGIC: u32 = u32::from_le_bytes(*b"COAL");

/// ⟨x, y⟩ and the size of `x`: request `x` lost a sector to request `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coalesce {
    pub x: u64,
    pub y: u64,
    pub x_size: u32,
}

/// Fills `sector` with `records` (at most [`super::config::records_per_sector`]).
pub fn encode_records(sector: &mut [u8], records: &[Coalesce]) {
    sector.fill(0);
    header::MAGIC.put_u32(sector, COALESCE_MAGIC);
    header::COUNT.put_u32(sector, records.len() as u32);
    for (i, r) in records.iter().enumerate() {
        let at = RECORDS_OFFSET + i * RECORD_SIZE;
        record::X.at(at).put_u64(sector, r.x);
        record::Y.at(at).put_u64(sector, r.y);
        record::SIZE.at(at).put_u32(sector, r.x_size);
    }
}

/// Decodes a record sector whose clue CRC matched; `None` if its header is
/// not one this version writes (a bug or a foreign image).
pub fn decode_records(sector: &[u8]) -> Option<Vec<Coalesce>> {
    let count = header::COUNT.get_u32(sector) as usize;
    if header::MAGIC.get_u32(sector) != COALESCE_MAGIC
        || RECORDS_OFFSET + count * RECORD_SIZE > sector.len()
    {
        return None;
    }
    Some(
        (0..count)
            .map(|i| {
                let at = RECORDS_OFFSET + i * RECORD_SIZE;
                Coalesce {
                    x: record::X.at(at).get_u64(sector),
                    y: record::Y.at(at).get_u64(sector),
                    x_size: record::SIZE.at(at).get_u32(sector),
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let rs = vec![
            Coalesce {
                x: 3,
                y: 7,
                x_size: 6,
            },
            Coalesce {
                x: 1 << 40,
                y: (1 << 40) + 1,
                x_size: 1,
            },
        ];
        let mut s = vec![0xAAu8; 512];
        encode_records(&mut s, &rs);
        assert_eq!(decode_records(&s), Some(rs));
        header::COUNT.put_u32(&mut s, 1000);
        assert_eq!(decode_records(&s), None);
    }
}
