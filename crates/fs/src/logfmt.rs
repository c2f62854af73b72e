//! The log header (docs/FORMAT.md §7.3): the first block of the log region.
//! Slot `i` (block `log_start + 1 + i`) holds the new image of block
//! `blocks[i]` of the committed transaction step.
//!
//! A header is *committed* when its magic and CRC are right and `count` is
//! positive; `count` 0 is a cleared log. A torn or garbage header is treated
//! as cleared: it can only be the result of a crash while the commit record
//! was being written (the step had not completed) or while it was being
//! cleared (the step was already installed and flushed). Only the header is
//! checksummed, as in xv6: the slots are trusted because the protocol
//! flushes them before the header is written (see `commit.rs`).

use crate::codec::{put_u32_at, u32_at, Field};
use crate::layout::BLOCK_SIZE;

pub const LOG_MAGIC_VALUE: [u8; 8] = *b"SCFTLLOG";

pub const L_MAGIC: Field = Field::new("magic", 0, 8);
pub const L_SEQ: Field = Field::new("seq", 8, 8);
pub const L_COUNT: Field = Field::new("count", 16, 4);
pub const L_FLAGS: Field = Field::new("flags", 20, 4);
pub const L_CRC: Field = Field::new("crc", 24, 4);
pub const L_RESERVED: Field = Field::new("reserved", 28, 4);
/// Offset of the block-number array.
pub const L_BLOCKS: usize = crate::layout::LOG_HEADER_BYTES;

/// The header's fixed fields in order (the table of FORMAT.md §7.3).
pub const LOG_HEADER_FIELDS: &[Field] = &[L_MAGIC, L_SEQ, L_COUNT, L_FLAGS, L_CRC, L_RESERVED];

/// Most block numbers a header block can list.
pub const MAX_ENTRIES: usize = crate::layout::MAX_LOG_SLOTS as usize;

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogHeader {
    /// Incremented by every commit; kept by the clear.
    pub seq: u64,
    /// Home block of each slot; empty for a cleared log.
    pub blocks: Vec<u32>,
}

impl LogHeader {
    /// Bytes the encoding occupies (the rest of the header block is not
    /// covered by the CRC and need not be written).
    pub fn encoded_len(&self) -> usize {
        L_BLOCKS + 4 * self.blocks.len()
    }

    /// Encodes into a whole block (CRC sealed).
    pub fn encode(&self) -> Vec<u8> {
        debug_assert!(self.blocks.len() <= MAX_ENTRIES);
        let mut b = vec![0u8; BLOCK_SIZE];
        L_MAGIC.bytes_mut(&mut b).copy_from_slice(&LOG_MAGIC_VALUE);
        L_SEQ.put_u64(&mut b, self.seq);
        L_COUNT.put_u32(&mut b, self.blocks.len() as u32);
        for (i, &blk) in self.blocks.iter().enumerate() {
            put_u32_at(&mut b, L_BLOCKS + 4 * i, blk);
        }
        let crc = crc32c::crc32c(&b[..self.encoded_len()]);
        L_CRC.put_u32(&mut b, crc);
        b
    }

    /// Decodes a header block: `None` when it is not a valid header (torn,
    /// garbage, or never written), which the log treats as cleared.
    pub fn decode(b: &[u8]) -> Option<LogHeader> {
        if b.len() < BLOCK_SIZE || L_MAGIC.bytes(b) != LOG_MAGIC_VALUE || L_FLAGS.get_u32(b) != 0 {
            return None;
        }
        let count = L_COUNT.get_u32(b) as usize;
        if count > MAX_ENTRIES {
            return None;
        }
        let len = L_BLOCKS + 4 * count;
        let mut c = b[..len].to_vec();
        L_CRC.put_u32(&mut c, 0);
        if crc32c::crc32c(&c) != L_CRC.get_u32(b) {
            return None;
        }
        Some(LogHeader {
            seq: L_SEQ.get_u64(b),
            blocks: (0..count).map(|i| u32_at(b, L_BLOCKS + 4 * i)).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::assert_contiguous;

    #[test]
    fn header_round_trips_and_rejects_flips() {
        assert_contiguous(LOG_HEADER_FIELDS, L_BLOCKS);
        let h = LogHeader {
            seq: 9,
            blocks: vec![100, 7, 4000],
        };
        let b = h.encode();
        assert_eq!(LogHeader::decode(&b), Some(h.clone()));
        for i in 0..h.encoded_len() {
            let mut c = b.clone();
            c[i] ^= 4;
            assert_eq!(LogHeader::decode(&c), None, "flip at {i}");
        }
        // Bytes past the encoding do not matter.
        let mut c = b.clone();
        c[h.encoded_len() + 3] = 0xEE;
        assert!(LogHeader::decode(&c).is_some());
        assert_eq!(LogHeader::decode(&vec![0u8; BLOCK_SIZE]), None);
    }
}
