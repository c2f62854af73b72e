//! The log header (docs/FORMAT.md §7.3): the first block of the log region.
//! Slot `i` (block `log_start + 1 + i`) holds the new image of block
//! `blocks[i]` of the committed transaction step.
//!
//! A header is *committed* when its magic and CRC are right and `count` is
//! positive; `count` 0 is a cleared log. A torn or garbage header is treated
//! as cleared: it can only be the result of a crash while the commit record
//! was being written (the step had not completed) or while it was being
//! cleared (the step was already installed and flushed).
//!
//! Format versions 1 and 2 checksum only the header, as xv6 does: the slots
//! are trusted because that protocol flushes them before the header is
//! written. Version 3 records (flag [`FLAG_SLOTS_CRC`]) also carry a CRC32C
//! of the slots' images, so the slots and the record go to the device
//! together and a record whose slots do not match reads as cleared (see
//! `commit.rs`).

use crate::codec::{put_u32_at, u32_at, Field};
use crate::layout::BLOCK_SIZE;

pub const LOG_MAGIC_VALUE: [u8; 8] = *b"SCFTLLOG";

pub const L_MAGIC: Field = Field::new("magic", 0, 8);
pub const L_SEQ: Field = Field::new("seq", 8, 8);
pub const L_COUNT: Field = Field::new("count", 16, 4);
pub const L_FLAGS: Field = Field::new("flags", 20, 4);
pub const L_CRC: Field = Field::new("crc", 24, 4);
pub const L_SLOTS_CRC: Field = Field::new("slots_crc", 28, 4);
/// Offset of the block-number array.
pub const L_BLOCKS: usize = crate::layout::LOG_HEADER_BYTES;

/// The header's fixed fields in order (the table of FORMAT.md §7.3).
pub const LOG_HEADER_FIELDS: &[Field] = &[L_MAGIC, L_SEQ, L_COUNT, L_FLAGS, L_CRC, L_SLOTS_CRC];

/// `flags` bit: `slots_crc` holds the CRC32C of the slots' images (format
/// version 3). Without it `slots_crc` is 0 and the slots are trusted.
pub const FLAG_SLOTS_CRC: u32 = 1;

/// The check value of a step's slot images, in slot order: CRC-32 (the
/// ISO-HDLC polynomial of zlib and Ethernet), deliberately not CRC32C.
/// The slots hold inode-table blocks, and every inode ends with the
/// CRC32C of its other bytes: a CRC run over a record followed by its own
/// CRC ends in a state that does not depend on the record (the CRC
/// residue), so a CRC32C over an inode-table block is the same for any
/// inodes in it and would pass slots that a crash left half old, half new.
/// A different polynomial has no such blind spot.
pub fn slots_crc<'a>(images: impl IntoIterator<Item = &'a [u8]>) -> u32 {
    let mut d = crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32IsoHdlc);
    for img in images {
        d.update(img);
    }
    d.finalize() as u32
}

/// Most block numbers a header block can list.
pub const MAX_ENTRIES: usize = crate::layout::MAX_LOG_SLOTS as usize;

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogHeader {
    /// Incremented by every commit; kept by the clear.
    pub seq: u64,
    /// Home block of each slot; empty for a cleared log.
    pub blocks: Vec<u32>,
    /// Version 3 records: the CRC32C of the slots' images.
    pub slots_crc: Option<u32>,
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
        if let Some(c) = self.slots_crc {
            L_FLAGS.put_u32(&mut b, FLAG_SLOTS_CRC);
            L_SLOTS_CRC.put_u32(&mut b, c);
        }
        for (i, &blk) in self.blocks.iter().enumerate() {
            put_u32_at(&mut b, L_BLOCKS + 4 * i, blk);
        }
        let crc = crc32c::crc32c(&b[..self.encoded_len()]);
        L_CRC.put_u32(&mut b, crc);
        b
    }

    /// Whether `images` (the slots, in order) are the ones the record was
    /// written with: always for a record without a slots CRC.
    pub fn slots_match(&self, images: &[Vec<u8>]) -> bool {
        self.slots_crc
            .map_or(true, |c| c == slots_crc(images.iter().map(Vec::as_slice)))
    }

    /// Decodes a header block: `None` when it is not a valid header (torn,
    /// garbage, or never written), which the log treats as cleared.
    pub fn decode(b: &[u8]) -> Option<LogHeader> {
        if b.len() < BLOCK_SIZE || L_MAGIC.bytes(b) != LOG_MAGIC_VALUE {
            return None;
        }
        let slots_crc = match L_FLAGS.get_u32(b) {
            0 if L_SLOTS_CRC.get_u32(b) == 0 => None,
            FLAG_SLOTS_CRC => Some(L_SLOTS_CRC.get_u32(b)),
            _ => return None,
        };
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
            slots_crc,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::assert_contiguous;

    /// The blind spot `slots_crc` avoids: two inode-table blocks with
    /// different inodes have the same CRC32C, and different slot CRCs.
    #[test]
    fn the_slots_check_sees_inodes_that_crc32c_does_not() {
        use crate::inode::{FileType, Inode};
        use crate::layout::INODE_SIZE;
        let table = |kind: Option<FileType>| {
            let mut b = vec![0u8; BLOCK_SIZE];
            for (k, slot) in b.chunks_mut(INODE_SIZE).enumerate() {
                let mut i = Inode::free(k as u32);
                if k == 5 {
                    i.kind = kind;
                    i.nlink = 2;
                }
                i.encode(slot);
            }
            b
        };
        let (a, b) = (table(None), table(Some(FileType::Directory)));
        assert_ne!(a, b);
        assert_eq!(crc32c::crc32c(&a), crc32c::crc32c(&b), "the residue");
        assert_ne!(slots_crc([&a[..]]), slots_crc([&b[..]]));
    }

    #[test]
    fn header_round_trips_and_rejects_flips() {
        assert_contiguous(LOG_HEADER_FIELDS, L_BLOCKS);
        let h = LogHeader {
            seq: 9,
            blocks: vec![100, 7, 4000],
            slots_crc: Some(0xdead_beef),
        };
        let old = LogHeader {
            slots_crc: None,
            ..h.clone()
        };
        assert_eq!(LogHeader::decode(&old.encode()), Some(old));
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
