//! The per-sector OOB clue of OPTR (paper §3.1, docs/FORMAT.md §8.2): the
//! write-request id (`wid`), the request's size in sectors, the logical
//! sector, and a CRC32C over the clue and the sector's data, so a torn or
//! unprogrammed sector is never counted as present.
//!
//! Why 48 bits of wid and 16 of size: the smallest preset has 16 B of OOB
//! per sector. 2^48 requests do not wrap in any device's life; the size
//! field bounds the largest request (`max_request_sectors <= 65535`).
//!
//! Special `lpn` values mark metadata sectors in the data log: a trim
//! record ([`LPN_TRIM`]) and a coalescing-record sector ([`LPN_COALESCE`]).

use crate::codec::field_table;

field_table! {
    /// One clue; the clue of slot `i` is at OOB offset `i * CLUE_SIZE`.
    pub mod clue {
        pub const LPN: Field = Field::new("lpn", 0, 4);
        pub const WID_LOW: Field = Field::new("wid_low", 4, 4);
        pub const WID_HIGH: Field = Field::new("wid_high", 8, 2);
        pub const SIZE: Field = Field::new("size", 10, 2);
        /// CRC32C of the clue's bytes before it, then the sector's data.
        pub const CRC: Field = Field::new("crc", 12, 4);
    }
}
/// Bytes of OOB per sector.
pub const CLUE_SIZE: usize = clue::CRC.end();

/// `lpn` of an unused slot (erased OOB reads as this).
pub const LPN_EMPTY: u32 = 0xFFFF_FFFF;
/// `lpn` of a trim-record sector (the record is logstruct's, FORMAT §5.3).
pub const LPN_TRIM: u32 = 0xFFFF_FFFE;
/// `lpn` of a coalescing-record sector.
pub const LPN_COALESCE: u32 = 0xFFFF_FFFD;
/// Largest wid a clue can carry.
pub const WID_MAX: u64 = (1 << 48) - 1;

/// A decoded clue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clue {
    pub lpn: u32,
    pub wid: u64,
    pub size: u16,
}

impl Clue {
    fn head(&self) -> [u8; clue::CRC.offset] {
        let mut h = [0u8; clue::CRC.offset];
        clue::LPN.put_u32(&mut h, self.lpn);
        clue::WID_LOW.put_u32(&mut h, self.wid as u32);
        clue::WID_HIGH.put_u16(&mut h, (self.wid >> 32) as u16);
        clue::SIZE.put_u16(&mut h, self.size);
        h
    }

    /// Writes the clue for `data` into `out[..CLUE_SIZE]`.
    pub fn encode(&self, out: &mut [u8], data: &[u8]) {
        let h = self.head();
        out[..h.len()].copy_from_slice(&h);
        clue::CRC.put_u32(out, clue::CRC.prefix_crc(&h, data));
    }

    /// Decodes a clue and checks it against `data`: `None` for an empty
    /// slot or a clue whose CRC does not match (torn, or never written).
    pub fn decode(b: &[u8], data: &[u8]) -> Option<Clue> {
        let c = Clue {
            lpn: clue::LPN.get_u32(b),
            wid: u64::from(clue::WID_LOW.get_u32(b)) | (u64::from(clue::WID_HIGH.get_u16(b)) << 32),
            size: clue::SIZE.get_u16(b),
        };
        if c.lpn == LPN_EMPTY {
            return None;
        }
        (clue::CRC.prefix_crc(&c.head(), data) == clue::CRC.get_u32(b)).then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clue_round_trips_and_detects_tears() {
        let data = vec![3u8; 512];
        let c = Clue {
            lpn: 7,
            wid: (1 << 40) + 5,
            size: 9,
        };
        let mut b = [0u8; CLUE_SIZE];
        c.encode(&mut b, &data);
        assert_eq!(Clue::decode(&b, &data), Some(c));
        let mut torn = data.clone();
        torn[100] ^= 1;
        assert_eq!(Clue::decode(&b, &torn), None);
        assert_eq!(Clue::decode(&[0xFF; CLUE_SIZE], &[0xFF; 512]), None);
    }
}
