//! The on-disk layout: block size, regions and the superblock
//! (docs/FORMAT.md §7.1–7.2).
//!
//! The device is cut into 4096-byte blocks (block `b` is sectors
//! `b * spb .. (b + 1) * spb`, `spb` = 4096 / sector size). Regions, in
//! order: superblock (block 0), log (header block + log slots), inode
//! bitmap, block bitmap, inode table, data. The superblock is written once,
//! last, by `mkfs` and never changes afterwards.
//!
//! Invariants of a valid superblock (checked by [`Superblock::decode`]):
//! regions are contiguous in the order above and end inside the device; the
//! bitmaps have a bit for every inode and every block; the log holds at least
//! [`MIN_LOG_SLOTS`] slots and at most [`MAX_LOG_SLOTS`]; the root inode is 1.

use crate::codec::Field;
use crate::error::{corrupt, FsError, Result};

/// Bytes per file-system block.
pub const BLOCK_SIZE: usize = 4096;
/// Bits per bitmap block.
pub const BITS_PER_BLOCK: u64 = (BLOCK_SIZE * 8) as u64;
/// Block pointers (u32) per pointer block.
pub const PTRS_PER_BLOCK: u64 = (BLOCK_SIZE / 4) as u64;
/// Bytes per on-disk inode.
pub const INODE_SIZE: usize = 256;
/// Inodes per inode-table block.
pub const INODES_PER_BLOCK: u32 = (BLOCK_SIZE / INODE_SIZE) as u32;
/// Direct block pointers per inode.
pub const NDIRECT: usize = 12;
/// File blocks a version-1 file can map: direct + single-indirect +
/// double-indirect (about 4 GiB).
pub const V1_MAX_FILE_BLOCKS: u64 =
    NDIRECT as u64 + PTRS_PER_BLOCK + PTRS_PER_BLOCK * PTRS_PER_BLOCK;
/// File blocks a file can map: version 1's and the triple-indirect range
/// (version 2: about 4 TiB).
pub const MAX_FILE_BLOCKS: u64 =
    V1_MAX_FILE_BLOCKS + PTRS_PER_BLOCK * PTRS_PER_BLOCK * PTRS_PER_BLOCK;
/// The largest file size in bytes of this build's format (about 4 TiB).
pub const MAX_FILE_SIZE: u64 = MAX_FILE_BLOCKS * BLOCK_SIZE as u64;
/// The root directory's inode number (also FUSE's root id).
pub const ROOT_INO: u32 = 1;
/// Longest name in a directory entry.
pub const NAME_MAX: usize = 255;
/// Fewest log slots (blocks a logged transaction step may hold).
pub const MIN_LOG_SLOTS: u32 = 8;
/// Most log slots: what one header block can list.
pub const MAX_LOG_SLOTS: u32 = ((BLOCK_SIZE - LOG_HEADER_BYTES) / 4) as u32;
/// Bytes of a log header block before its array of block numbers
/// (docs/FORMAT.md §7.3; `logfmt::L_BLOCKS`).
pub const LOG_HEADER_BYTES: usize = 32;
/// Fewest blocks a file system may have.
pub const MIN_BLOCKS: u64 = 16;

/// Magic at offset 0 of block 0.
pub const SB_MAGIC_VALUE: [u8; 8] = *b"SCFTLFS\0";
/// Version of the file-system format `mkfs` writes (docs/FORMAT.md §7.2).
/// Version 2 adds the triple-indirect pointer; version 3 the extended
/// attribute block and 96-bit times. Older images mount and check as
/// before (version 1: files up to about 4 GiB; versions 1 and 2: no xattrs,
/// times until 2262) until `fs::upgrade`.
pub const FS_VERSION: u32 = 3;
/// The oldest version this build reads.
pub const FS_VERSION_MIN: u32 = 1;

pub const SB_MAGIC: Field = Field::new("magic", 0, 8);
pub const SB_VERSION: Field = Field::new("version", 8, 4);
pub const SB_BLOCK_SIZE: Field = Field::new("block_size", 12, 4);
pub const SB_TOTAL_BLOCKS: Field = Field::new("total_blocks", 16, 4);
pub const SB_INODE_COUNT: Field = Field::new("inode_count", 20, 4);
pub const SB_LOG_START: Field = Field::new("log_start", 24, 4);
pub const SB_LOG_BLOCKS: Field = Field::new("log_blocks", 28, 4);
pub const SB_IBITMAP_START: Field = Field::new("inode_bitmap_start", 32, 4);
pub const SB_IBITMAP_BLOCKS: Field = Field::new("inode_bitmap_blocks", 36, 4);
pub const SB_BBITMAP_START: Field = Field::new("block_bitmap_start", 40, 4);
pub const SB_BBITMAP_BLOCKS: Field = Field::new("block_bitmap_blocks", 44, 4);
pub const SB_ITABLE_START: Field = Field::new("inode_table_start", 48, 4);
pub const SB_ITABLE_BLOCKS: Field = Field::new("inode_table_blocks", 52, 4);
pub const SB_DATA_START: Field = Field::new("data_start", 56, 4);
pub const SB_ROOT_INO: Field = Field::new("root_inode", 60, 4);
pub const SB_INODE_SIZE: Field = Field::new("inode_size", 64, 4);
pub const SB_FLAGS: Field = Field::new("flags", 68, 4);
pub const SB_CREATED: Field = Field::new("created_ns", 72, 8);
pub const SB_CRC: Field = Field::new("crc", 80, 4);
/// Bytes of the superblock that carry meaning (the rest of block 0 is zero).
pub const SB_LEN: usize = 84;

/// The superblock's fields in order (the table of FORMAT.md §7.2).
pub const SUPERBLOCK_FIELDS: &[Field] = &[
    SB_MAGIC,
    SB_VERSION,
    SB_BLOCK_SIZE,
    SB_TOTAL_BLOCKS,
    SB_INODE_COUNT,
    SB_LOG_START,
    SB_LOG_BLOCKS,
    SB_IBITMAP_START,
    SB_IBITMAP_BLOCKS,
    SB_BBITMAP_START,
    SB_BBITMAP_BLOCKS,
    SB_ITABLE_START,
    SB_ITABLE_BLOCKS,
    SB_DATA_START,
    SB_ROOT_INO,
    SB_INODE_SIZE,
    SB_FLAGS,
    SB_CREATED,
    SB_CRC,
];

/// The superblock: sizes and region offsets, in blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Superblock {
    /// Format version, `FS_VERSION_MIN..=FS_VERSION`.
    pub version: u32,
    pub total_blocks: u32,
    pub inode_count: u32,
    pub log_start: u32,
    /// Header block + slots.
    pub log_blocks: u32,
    pub inode_bitmap_start: u32,
    pub inode_bitmap_blocks: u32,
    pub block_bitmap_start: u32,
    pub block_bitmap_blocks: u32,
    pub inode_table_start: u32,
    pub inode_table_blocks: u32,
    pub data_start: u32,
    pub created_ns: i64,
}

impl Superblock {
    /// Lays out a file system of `total_blocks` blocks with `inodes` inodes
    /// (rounded up to a whole table block) and `log_slots` log slots.
    pub fn compute(
        total_blocks: u64,
        inodes: u32,
        log_slots: u32,
        created_ns: i64,
    ) -> Result<Self> {
        if total_blocks < MIN_BLOCKS {
            return Err(FsError::Invalid(format!(
                "the device holds {total_blocks} blocks of {BLOCK_SIZE} bytes; a file system needs at least {MIN_BLOCKS}"
            )));
        }
        let total = u32::try_from(total_blocks).unwrap_or(u32::MAX);
        if !(MIN_LOG_SLOTS..=MAX_LOG_SLOTS).contains(&log_slots) {
            return Err(FsError::Invalid(format!(
                "log of {log_slots} slots: use {MIN_LOG_SLOTS}..={MAX_LOG_SLOTS}"
            )));
        }
        let inodes =
            u64::from(inodes.max(INODES_PER_BLOCK)).next_multiple_of(u64::from(INODES_PER_BLOCK));
        let itable_blocks = inodes / u64::from(INODES_PER_BLOCK);
        let ibitmap_blocks = inodes.div_ceil(BITS_PER_BLOCK);
        let bbitmap_blocks = u64::from(total).div_ceil(BITS_PER_BLOCK);
        let log_start = 1u64;
        let log_blocks = u64::from(log_slots) + 1;
        let ibitmap_start = log_start + log_blocks;
        let bbitmap_start = ibitmap_start + ibitmap_blocks;
        let itable_start = bbitmap_start + bbitmap_blocks;
        let data_start = itable_start + itable_blocks;
        // At least a few data blocks, or the file system is useless.
        if data_start + 4 > u64::from(total) || inodes > u64::from(u32::MAX) {
            return Err(FsError::Invalid(format!(
                "{total} blocks cannot hold a {log_slots}-slot log, {inodes} inodes and data; use fewer inodes or a smaller log"
            )));
        }
        let sb = Superblock {
            version: FS_VERSION,
            total_blocks: total,
            inode_count: inodes as u32,
            log_start: log_start as u32,
            log_blocks: log_blocks as u32,
            inode_bitmap_start: ibitmap_start as u32,
            inode_bitmap_blocks: ibitmap_blocks as u32,
            block_bitmap_start: bbitmap_start as u32,
            block_bitmap_blocks: bbitmap_blocks as u32,
            inode_table_start: itable_start as u32,
            inode_table_blocks: itable_blocks as u32,
            data_start: data_start as u32,
            created_ns,
        };
        sb.validate()?;
        Ok(sb)
    }

    /// Log slots (blocks a logged step may hold).
    pub fn log_slots(&self) -> u32 {
        self.log_blocks - 1
    }

    /// Blocks available for data (the data region).
    pub fn data_blocks(&self) -> u32 {
        self.total_blocks - self.data_start
    }

    /// File blocks a file may map in this file system's version.
    pub fn max_file_blocks(&self) -> u64 {
        if self.version >= 2 {
            MAX_FILE_BLOCKS
        } else {
            V1_MAX_FILE_BLOCKS
        }
    }

    /// Whether inodes have the xattr pointer and 96-bit times (version 3).
    pub fn has_xattrs(&self) -> bool {
        self.version >= 3
    }

    /// The largest file size in this file system's version.
    pub fn max_file_size(&self) -> u64 {
        self.max_file_blocks() * BLOCK_SIZE as u64
    }

    /// Whether `b` is a block of the data region.
    pub fn is_data_block(&self, b: u32) -> bool {
        b >= self.data_start && b < self.total_blocks
    }

    /// The inode-table block holding inode `ino` and the byte offset in it.
    pub fn inode_location(&self, ino: u32) -> (u32, usize) {
        (
            self.inode_table_start + ino / INODES_PER_BLOCK,
            (ino % INODES_PER_BLOCK) as usize * INODE_SIZE,
        )
    }

    /// Checks the invariants listed at the top of this file.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str| Err(corrupt(format!("superblock: {what}")));
        let ok_region =
            |start: u32, len: u32, next: u32| u64::from(start) + u64::from(len) == u64::from(next);
        if u64::from(self.total_blocks) < MIN_BLOCKS {
            return bad("fewer blocks than the minimum");
        }
        if self.log_start != 1 {
            return bad("log does not start at block 1");
        }
        let slots = self.log_blocks.wrapping_sub(1);
        if self.log_blocks == 0 || !(MIN_LOG_SLOTS..=MAX_LOG_SLOTS).contains(&slots) {
            return bad("log size out of range");
        }
        if self.inode_count == 0 || self.inode_count % INODES_PER_BLOCK != 0 {
            return bad("inode count is not a positive multiple of the inodes per block");
        }
        if !ok_region(self.log_start, self.log_blocks, self.inode_bitmap_start)
            || !ok_region(
                self.inode_bitmap_start,
                self.inode_bitmap_blocks,
                self.block_bitmap_start,
            )
            || !ok_region(
                self.block_bitmap_start,
                self.block_bitmap_blocks,
                self.inode_table_start,
            )
            || !ok_region(
                self.inode_table_start,
                self.inode_table_blocks,
                self.data_start,
            )
        {
            return bad("regions are not contiguous");
        }
        if u64::from(self.inode_bitmap_blocks)
            != u64::from(self.inode_count).div_ceil(BITS_PER_BLOCK)
            || u64::from(self.block_bitmap_blocks)
                != u64::from(self.total_blocks).div_ceil(BITS_PER_BLOCK)
            || self.inode_table_blocks != self.inode_count / INODES_PER_BLOCK
        {
            return bad("region sizes disagree with the block and inode counts");
        }
        if self.data_start >= self.total_blocks {
            return bad("no data region");
        }
        Ok(())
    }

    /// Encodes block 0 (a whole block; CRC sealed).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; BLOCK_SIZE];
        SB_MAGIC.bytes_mut(&mut b).copy_from_slice(&SB_MAGIC_VALUE);
        SB_VERSION.put_u32(&mut b, self.version);
        SB_BLOCK_SIZE.put_u32(&mut b, BLOCK_SIZE as u32);
        SB_TOTAL_BLOCKS.put_u32(&mut b, self.total_blocks);
        SB_INODE_COUNT.put_u32(&mut b, self.inode_count);
        SB_LOG_START.put_u32(&mut b, self.log_start);
        SB_LOG_BLOCKS.put_u32(&mut b, self.log_blocks);
        SB_IBITMAP_START.put_u32(&mut b, self.inode_bitmap_start);
        SB_IBITMAP_BLOCKS.put_u32(&mut b, self.inode_bitmap_blocks);
        SB_BBITMAP_START.put_u32(&mut b, self.block_bitmap_start);
        SB_BBITMAP_BLOCKS.put_u32(&mut b, self.block_bitmap_blocks);
        SB_ITABLE_START.put_u32(&mut b, self.inode_table_start);
        SB_ITABLE_BLOCKS.put_u32(&mut b, self.inode_table_blocks);
        SB_DATA_START.put_u32(&mut b, self.data_start);
        SB_ROOT_INO.put_u32(&mut b, ROOT_INO);
        SB_INODE_SIZE.put_u32(&mut b, INODE_SIZE as u32);
        SB_FLAGS.put_u32(&mut b, 0);
        SB_CREATED.put_i64(&mut b, self.created_ns);
        let crc = crc32c::crc32c(&b[..SB_CRC.offset]);
        SB_CRC.put_u32(&mut b, crc);
        b
    }

    /// Decodes and validates block 0.
    pub fn decode(b: &[u8]) -> Result<Superblock> {
        if b.len() < SB_LEN || SB_MAGIC.bytes(b) != SB_MAGIC_VALUE {
            return Err(FsError::NotFormatted(
                "block 0 holds no scftl file-system superblock (run mkfs)".into(),
            ));
        }
        let version = SB_VERSION.get_u32(b);
        if !(FS_VERSION_MIN..=FS_VERSION).contains(&version) {
            return Err(corrupt(format!(
                "superblock: format version {version}, this build reads {FS_VERSION_MIN} to {FS_VERSION}"
            )));
        }
        if crc32c::crc32c(&b[..SB_CRC.offset]) != SB_CRC.get_u32(b) {
            return Err(corrupt("superblock: CRC mismatch"));
        }
        if SB_BLOCK_SIZE.get_u32(b) != BLOCK_SIZE as u32
            || SB_INODE_SIZE.get_u32(b) != INODE_SIZE as u32
            || SB_ROOT_INO.get_u32(b) != ROOT_INO
            || SB_FLAGS.get_u32(b) != 0
        {
            return Err(corrupt("superblock: block size, inode size, root inode or flags not as this version defines"));
        }
        let sb = Superblock {
            version,
            total_blocks: SB_TOTAL_BLOCKS.get_u32(b),
            inode_count: SB_INODE_COUNT.get_u32(b),
            log_start: SB_LOG_START.get_u32(b),
            log_blocks: SB_LOG_BLOCKS.get_u32(b),
            inode_bitmap_start: SB_IBITMAP_START.get_u32(b),
            inode_bitmap_blocks: SB_IBITMAP_BLOCKS.get_u32(b),
            block_bitmap_start: SB_BBITMAP_START.get_u32(b),
            block_bitmap_blocks: SB_BBITMAP_BLOCKS.get_u32(b),
            inode_table_start: SB_ITABLE_START.get_u32(b),
            inode_table_blocks: SB_ITABLE_BLOCKS.get_u32(b),
            data_start: SB_DATA_START.get_u32(b),
            created_ns: SB_CREATED.get_i64(b),
        };
        sb.validate()?;
        Ok(sb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::assert_contiguous;

    #[test]
    fn superblock_table_is_contiguous_and_round_trips() {
        assert_contiguous(SUPERBLOCK_FIELDS, SB_LEN);
        let sb = Superblock::compute(8192, 2048, 128, 42).unwrap();
        let b = sb.encode();
        assert_eq!(Superblock::decode(&b).unwrap(), sb);
        for i in 0..SB_LEN {
            let mut c = b.clone();
            c[i] ^= 0x10;
            assert!(Superblock::decode(&c).is_err(), "flip at byte {i} accepted");
        }
    }

    #[test]
    fn tiny_device_still_lays_out() {
        let sb = Superblock::compute(24, 16, MIN_LOG_SLOTS, 0).unwrap();
        assert!(sb.data_blocks() >= 4, "{sb:?}");
        assert!(Superblock::compute(15, 16, MIN_LOG_SLOTS, 0).is_err());
        assert!(Superblock::compute(1 << 20, 16, 4, 0).is_err());
    }
}
