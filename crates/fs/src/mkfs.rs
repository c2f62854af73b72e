//! `mkfs`: lays out a new file system on a block device.
//!
//! Order, so that a crash during mkfs never leaves a device that mounts:
//! first the old superblock is overwritten with zeros and flushed; then the
//! log header, the bitmaps and the root inode are written (flushing whenever
//! the device's epoch is full); then a flush; then the superblock; then a
//! flush. Free inode slots are not initialised — the inode bitmap says they
//! are free and nothing reads them.

use ftl::{BlockDevice, Lba};

use crate::error::{FsError, Result};
use crate::inode::{FileType, Inode};
use crate::layout::{
    Superblock, BITS_PER_BLOCK, BLOCK_SIZE, INODE_SIZE, MAX_LOG_SLOTS, MIN_LOG_SLOTS, ROOT_INO,
};
use crate::logfmt::LogHeader;
use crate::mode::{Clock, SystemClock};

/// Choices for [`mkfs`]; `None` picks the default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MkfsOptions {
    /// Number of inodes (default: one per 16 KiB, at least 16).
    pub inodes: Option<u32>,
    /// Log slots (default: 1/64 of the blocks, within 8..=1016).
    pub log_slots: Option<u32>,
    /// Owner of the root directory (default root).
    pub root_uid: u32,
    pub root_gid: u32,
    /// Timestamp of the root directory and the superblock (default now).
    pub time_ns: Option<i64>,
}

/// Writes a new, empty file system on `dev`, returning its superblock.
pub fn mkfs<D: BlockDevice + ?Sized>(dev: &mut D, opts: &MkfsOptions) -> Result<Superblock> {
    let ss = dev.sector_size();
    if ss == 0 || ss > BLOCK_SIZE || BLOCK_SIZE % ss != 0 {
        return Err(FsError::Unsupported(format!(
            "sector size {ss}: the file system needs sectors that divide {BLOCK_SIZE} bytes"
        )));
    }
    let spb = (BLOCK_SIZE / ss) as u64;
    let total = dev.num_sectors() / spb;
    let inodes = opts
        .inodes
        .unwrap_or_else(|| (total / 4).clamp(16, u64::from(u32::MAX / 2)) as u32);
    let slots = opts.log_slots.unwrap_or_else(|| {
        (total / 64).clamp(u64::from(MIN_LOG_SLOTS), u64::from(MAX_LOG_SLOTS)) as u32
    });
    let now = opts
        .time_ns
        .map_or_else(|| SystemClock.now_ns(), i128::from);
    // The superblock's creation time is 64-bit (it saturates after 2262).
    let created = now.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
    let sb = Superblock::compute(total, inodes, slots, created)?;
    let mut w = Writer { dev, spb };

    // Invalidate any older file system first.
    w.put(0, &vec![0u8; BLOCK_SIZE])?;
    w.dev.flush()?;

    w.put(
        sb.log_start,
        &LogHeader {
            seq: 0,
            blocks: Vec::new(),
            slots_crc: None,
        }
        .encode(),
    )?;
    // Inode bitmap: inode 0 (does not exist) and the root.
    for i in 0..sb.inode_bitmap_blocks {
        let mut b = vec![0u8; BLOCK_SIZE];
        if i == 0 {
            b[0] = 0b11;
        }
        w.put(sb.inode_bitmap_start + i, &b)?;
    }
    // Block bitmap: the metadata regions and the padding past the end.
    for i in 0..sb.block_bitmap_blocks {
        let mut b = vec![0u8; BLOCK_SIZE];
        let first = u64::from(i) * BITS_PER_BLOCK;
        for bit in 0..BITS_PER_BLOCK {
            let n = first + bit;
            if n < u64::from(sb.data_start) || n >= u64::from(sb.total_blocks) {
                b[(bit / 8) as usize] |= 1 << (bit % 8);
            }
        }
        w.put(sb.block_bitmap_start + i, &b)?;
    }
    // Root directory: empty (`.` and `..` are not stored), its own parent.
    let mut root = Inode::new(
        1,
        FileType::Directory,
        0o755,
        opts.root_uid,
        opts.root_gid,
        now,
    );
    root.parent = ROOT_INO;
    let (blk, off) = sb.inode_location(ROOT_INO);
    let mut b = vec![0u8; BLOCK_SIZE];
    root.encode(&mut b[off..off + INODE_SIZE]);
    w.put(blk, &b)?;
    w.dev.flush()?;

    w.put(0, &sb.encode())?;
    w.dev.flush()?;
    Ok(sb)
}

struct Writer<'a, D: ?Sized> {
    dev: &'a mut D,
    spb: u64,
}

impl<D: BlockDevice + ?Sized> Writer<'_, D> {
    /// Writes one whole block, flushing first if the epoch cannot take it.
    fn put(&mut self, block: u32, data: &[u8]) -> Result<()> {
        if let Some(rem) = self.dev.epoch_remaining() {
            if rem < self.spb {
                self.dev.flush()?;
            }
        }
        self.dev.write(Lba(u64::from(block) * self.spb), data)?;
        Ok(())
    }
}
