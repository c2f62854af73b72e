//! Block and inode allocation from the on-disk bitmaps (docs/FORMAT.md
//! §7.6). Bit `n` of a bitmap is bit `n % 8` of byte `n / 8` of the
//! bitmap's region; 1 means allocated. The bitmaps are read and changed
//! through the cache like any metadata, so an allocation is part of the step
//! that makes it and disappears with it if the step is aborted.
//!
//! Invariants: block bits below `data_start` (the metadata regions) and past
//! `total_blocks` (padding of the last bitmap block) are set; inode bit 0 is
//! set (inode 0 does not exist); `free_blocks` / `free_inodes` equal the
//! clear bits of the data region / inode table.
//!
//! Placement: a file's next block goes right after its previous one when
//! that is free (so sequential writes stay contiguous and reach the device
//! as few large writes); otherwise the search starts at a rotor that follows
//! the last allocation.

use ftl::BlockDevice;

use crate::cache::Trim;
use crate::error::{corrupt, FsError, Result};
use crate::layout::{BITS_PER_BLOCK, BLOCK_SIZE};
use crate::mode::CommitMode;
use crate::store::Store;

impl<D: BlockDevice> Store<D> {
    /// Bit `n` of the bitmap whose region starts at block `start`.
    pub fn bit(&mut self, start: u32, n: u64) -> Result<bool> {
        let blk = start + (n / BITS_PER_BLOCK) as u32;
        let byte = ((n % BITS_PER_BLOCK) / 8) as usize;
        Ok(self.meta(blk)?[byte] & (1 << (n % 8)) != 0)
    }

    /// Sets bit `n` to `v`; returns its old value.
    fn set_bit(&mut self, start: u32, n: u64, v: bool) -> Result<bool> {
        let blk = start + (n / BITS_PER_BLOCK) as u32;
        let byte = ((n % BITS_PER_BLOCK) / 8) as usize;
        let b = self.meta_mut(blk, byte, 1)?;
        let mask = 1u8 << (n % 8);
        let old = b[byte] & mask != 0;
        if v {
            b[byte] |= mask;
        } else {
            b[byte] &= !mask;
        }
        Ok(old)
    }

    /// The first clear bit in `from..to` of the bitmap at `start`.
    fn first_clear(&mut self, start: u32, from: u64, to: u64) -> Result<Option<u64>> {
        let mut n = from;
        while n < to {
            let blk = n / BITS_PER_BLOCK;
            let block_end = to.min((blk + 1) * BITS_PER_BLOCK);
            let bits = self.meta(start + blk as u32)?;
            while n < block_end {
                let in_block = n % BITS_PER_BLOCK;
                let w = (in_block / 64) as usize * 8;
                let mut word = [0u8; 8];
                word.copy_from_slice(&bits[w..w + 8]);
                let shift = in_block % 64;
                let free = !u64::from_le_bytes(word) & (u64::MAX << shift);
                let word_start = n - shift;
                if free != 0 {
                    let cand = word_start + u64::from(free.trailing_zeros());
                    if cand < block_end {
                        return Ok(Some(cand));
                    }
                }
                n = word_start + 64;
            }
            n = n.max(block_end);
        }
        Ok(None)
    }

    /// Allocates a data block, preferring `goal` and then the blocks after
    /// it. The caller initialises it (`meta_new` or `data_mut(.., fresh)`).
    pub fn alloc_block(&mut self, goal: Option<u32>) -> Result<u32> {
        if self.alloc.free_blocks == 0 {
            return Err(FsError::NoSpace("no free blocks"));
        }
        let (lo, hi) = (
            u64::from(self.sb.data_start),
            u64::from(self.sb.total_blocks),
        );
        let g = u64::from(goal.unwrap_or(self.alloc.block_rotor)).clamp(lo, hi - 1);
        let start = self.sb.block_bitmap_start;
        let found = match self.first_clear(start, g, hi)? {
            Some(b) => Some(b),
            None => self.first_clear(start, lo, g)?,
        };
        let Some(b) = found else {
            return Err(corrupt(
                "the free-block count says blocks are free but the bitmap has none",
            ));
        };
        self.set_bit(start, b, true)?;
        self.alloc.free_blocks -= 1;
        self.alloc.block_rotor = (b + 1).min(hi - 1) as u32;
        // Freed and allocated again in one step: whoever allocates it now
        // initialises it, so the trim of its old content is moot.
        self.tx.untrim(b as u32, self.spb);
        Ok(b as u32)
    }

    /// Frees data block `b`.
    pub fn free_block(&mut self, b: u32) -> Result<()> {
        self.check_data_block(b)?;
        if !self.set_bit(self.sb.block_bitmap_start, u64::from(b), false)? {
            return Err(corrupt(format!(
                "block {b} freed twice (its bitmap bit was clear)"
            )));
        }
        self.alloc.free_blocks += 1;
        self.forget(b);
        self.tx.freed.insert(b);
        if self.trim_frees {
            self.tx.trim(b, Trim::Free, self.spb);
        }
        Ok(())
    }

    /// Makes newly allocated data block `b` read as zeros: a trim where
    /// that is safe, else a written block of zeros. In `log` mode a zeroing
    /// trim is issued before the commit point, so a block that the state
    /// before the step still maps (freed and allocated again in this step)
    /// must be written through the log instead.
    pub fn zero_block(&mut self, b: u32) -> Result<()> {
        if self.mode == CommitMode::Log && self.tx.freed.contains(&b) {
            self.data_mut(b, 0, BLOCK_SIZE, true)?;
        } else {
            self.forget(b);
            self.tx.trim(b, Trim::Zero, self.spb);
        }
        Ok(())
    }

    /// Makes data block `b`, mapped before this step, read as zeros (zero
    /// range): a trim in `xlog` and `group`, where the snapshot makes it
    /// atomic with the step; a block of zeros through the log in `log`,
    /// whose replay would not redo a trim.
    pub fn zero_mapped_block(&mut self, b: u32) -> Result<()> {
        if self.mode == CommitMode::Log {
            self.data_mut(b, 0, BLOCK_SIZE, true)?;
        } else {
            self.forget(b);
            self.tx.trim(b, Trim::Zero, self.spb);
        }
        Ok(())
    }

    /// Allocates an inode number.
    pub fn alloc_inode(&mut self) -> Result<u32> {
        if self.alloc.free_inodes == 0 {
            return Err(FsError::NoSpace("no free inodes"));
        }
        let hi = u64::from(self.sb.inode_count);
        let g = u64::from(self.alloc.inode_rotor).clamp(1, hi - 1);
        let start = self.sb.inode_bitmap_start;
        let found = match self.first_clear(start, g, hi)? {
            Some(i) => Some(i),
            None => self.first_clear(start, 1, g)?,
        };
        let Some(i) = found else {
            return Err(corrupt(
                "the free-inode count says inodes are free but the bitmap has none",
            ));
        };
        self.set_bit(start, i, true)?;
        self.alloc.free_inodes -= 1;
        self.alloc.inode_rotor = (i + 1).min(hi - 1) as u32;
        Ok(i as u32)
    }

    /// Frees inode number `ino` (its slot is rewritten by the caller).
    pub fn free_inode_bit(&mut self, ino: u32) -> Result<()> {
        if !self.set_bit(self.sb.inode_bitmap_start, u64::from(ino), false)? {
            return Err(corrupt(format!("inode {ino} freed twice")));
        }
        self.alloc.free_inodes += 1;
        Ok(())
    }

    /// Whether inode `ino` is allocated (0 and out-of-range numbers are not).
    pub fn inode_allocated(&mut self, ino: u32) -> Result<bool> {
        if ino == 0 || ino >= self.sb.inode_count {
            return Ok(false);
        }
        self.bit(self.sb.inode_bitmap_start, u64::from(ino))
    }

    /// Counts the clear bits of `0..bits` of the bitmap at `start`.
    pub fn count_clear(&mut self, start: u32, bits: u64) -> Result<u64> {
        let mut free = 0;
        let mut n = 0;
        while n < bits {
            let blk = n / BITS_PER_BLOCK;
            let end = bits.min((blk + 1) * BITS_PER_BLOCK);
            let map = self.meta(start + blk as u32)?;
            for i in n..end {
                let k = i % BITS_PER_BLOCK;
                if map[(k / 8) as usize] & (1 << (k % 8)) == 0 {
                    free += 1;
                }
            }
            n = end;
        }
        Ok(free)
    }
}
