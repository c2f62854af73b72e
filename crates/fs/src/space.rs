//! Space in regular files: `fallocate` (preallocation, with or without
//! `KEEP_SIZE`), punch hole and zero range, which reach the device as
//! trims, and `SEEK_DATA` / `SEEK_HOLE`.
//!
//! Preallocated blocks are never written: they are unmapped on the device
//! (a zeroing trim, cache.rs `Trim::Zero`), so they read as zeros at the
//! cost of an entry in the FTL's map, not a page program. With `KEEP_SIZE`
//! they may lie wholly past the end of file (docs/FORMAT.md §7.4): such a
//! block always reads as zeros, because nothing writes past the end of
//! file without raising the size, and truncate frees every block past the
//! new end.
//!
//! Crash behaviour (each call is split into steps like a write):
//! - preallocation changes nothing a reader sees until its last step, which
//!   sets the size: a cut call left blocks allocated past the end of file
//!   at most;
//! - punch hole and zero range work upwards through the range, one block
//!   per piece, so a cut call has zeroed `offset..x` for some block
//!   boundary `x` (the model's `Partial` lists them); zero range raises the
//!   size in its last step.

use ftl::BlockDevice;

use crate::error::{FsError, Result};
use crate::fs::Fs;
use crate::inode::Inode;
use crate::layout::BLOCK_SIZE;
use crate::store::Cost;

/// `fallocate` mode bits (Linux values).
pub const FALLOC_FL_KEEP_SIZE: u32 = 0x01;
pub const FALLOC_FL_PUNCH_HOLE: u32 = 0x02;
pub const FALLOC_FL_ZERO_RANGE: u32 = 0x10;

const BS: u64 = BLOCK_SIZE as u64;

/// What `lseek` looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seek {
    /// `SEEK_DATA`: the next mapped byte.
    Data,
    /// `SEEK_HOLE`: the next byte of a hole, or the end of file.
    Hole,
}

impl<D: BlockDevice> Fs<D> {
    /// `fallocate(2)` on regular file `ino` for bytes `offset..offset + len`.
    ///
    /// - mode 0: every hole in the range gets a block that reads as zeros,
    ///   and the size grows to the range's end if it was smaller;
    /// - `KEEP_SIZE`: the same without changing the size;
    /// - `PUNCH_HOLE | KEEP_SIZE`: the range reads as zeros and its whole
    ///   blocks are freed and trimmed;
    /// - `ZERO_RANGE` (with or without `KEEP_SIZE`): the range reads as
    ///   zeros and every block of it stays (or becomes) allocated; whole
    ///   blocks are trimmed, not written, where the mode allows (see
    ///   `Store::zero_block`).
    ///
    /// Other modes (collapse, insert, unshare) are `EOPNOTSUPP`, as is a
    /// punch without `KEEP_SIZE` (Linux refuses it too); `len` 0 is
    /// `EINVAL`; a range past the largest file is `EFBIG`; not enough free
    /// blocks for the holes of a preallocation or zero range is `ENOSPC`
    /// before anything changes.
    pub fn fallocate(&mut self, ino: u64, offset: u64, len: u64, mode: u32) -> Result<()> {
        let known = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
        if mode & !known != 0 {
            return Err(FsError::NotSupported(format!(
                "fallocate mode {mode:#x}: only the default mode, KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE and ZERO_RANGE exist here"
            )));
        }
        let punch = mode & FALLOC_FL_PUNCH_HOLE != 0;
        let zero = mode & FALLOC_FL_ZERO_RANGE != 0;
        let keep = mode & FALLOC_FL_KEEP_SIZE != 0;
        if punch && (!keep || zero) {
            return Err(FsError::NotSupported(
                "PUNCH_HOLE needs KEEP_SIZE and excludes ZERO_RANGE".into(),
            ));
        }
        if len == 0 {
            return Err(FsError::Invalid("fallocate of length 0".into()));
        }
        let max = self.st.sb.max_file_size();
        let end = match offset.checked_add(len) {
            Some(e) if e <= max => e,
            _ => return Err(FsError::FileTooBig(offset.saturating_add(len))),
        };
        self.call(|fs| {
            let (ino, mut i) = fs.file_inode(ino)?;
            if punch {
                fs.st.trim_frees = true;
                let r = fs.punch(ino, &mut i, offset, end);
                fs.st.trim_frees = false;
                r?;
            } else {
                fs.check_room(&i, offset, end)?;
                fs.allocate(ino, &mut i, offset, end, zero)?;
                if !keep && end > i.size {
                    fs.grow(ino, &mut i, end)?;
                }
            }
            let now = fs.now();
            i.mtime_ns = now;
            i.ctime_ns = now;
            fs.st.iput(ino, &i)
        })
    }

    /// `ENOSPC` when the holes of `offset..end` outnumber the free blocks
    /// (pointer blocks aside: running out for those fails part way, like a
    /// write, leaving blocks allocated past what the size shows).
    fn check_room(&mut self, i: &Inode, offset: u64, end: u64) -> Result<()> {
        let (mut idx, last) = (offset / BS, end.div_ceil(BS));
        let mut holes = 0u64;
        while idx < last {
            match self.st.next_mapped(i, idx, last)? {
                Some(m) => {
                    holes += m - idx;
                    idx = m + 1;
                }
                None => {
                    holes += last - idx;
                    break;
                }
            }
        }
        if holes > self.st.alloc.free_blocks {
            return Err(FsError::NoSpace(
                "not enough free blocks for the preallocation",
            ));
        }
        Ok(())
    }

    /// Gives every hole of `offset..end` a block that reads as zeros; with
    /// `zero_mapped`, also makes the mapped blocks read as zeros over the
    /// range (zero range), lowest block first.
    fn allocate(
        &mut self,
        ino: u32,
        i: &mut Inode,
        offset: u64,
        end: u64,
        zero_mapped: bool,
    ) -> Result<()> {
        let mut prev: Option<u32> = None;
        for idx in offset / BS..end.div_ceil(BS) {
            match self.st.bmap(i, idx)? {
                Some(phys) => {
                    prev = Some(phys);
                    if !zero_mapped {
                        continue;
                    }
                    let lo = offset.max(idx * BS) - idx * BS;
                    let hi = end.min((idx + 1) * BS) - idx * BS;
                    let need = Cost::new(self.st.spb as u64 + 1, 2);
                    self.st.boundary(ino, i, need)?;
                    if lo == 0 && hi == BS {
                        self.st.zero_mapped_block(phys)?;
                    } else {
                        let (lo, hi) = (lo as usize, hi as usize);
                        self.st.data_mut(phys, lo, hi - lo, false)?[lo..hi].fill(0);
                    }
                }
                None => {
                    let goal = match prev {
                        Some(p) => Some(p + 1),
                        None if idx > 0 => self.st.bmap(i, idx - 1)?.map(|p| p + 1),
                        None => None,
                    };
                    let b = self.st.bmap_alloc(ino, i, idx, goal)?;
                    self.st.zero_block(b)?;
                    prev = Some(b);
                }
            }
        }
        Ok(())
    }

    /// Raises the size to `size`, after zeroing the rest of the block that
    /// held the old end (bytes past the end are undefined on disk).
    fn grow(&mut self, ino: u32, i: &mut Inode, size: u64) -> Result<()> {
        self.zero_tail(ino, i, size)?;
        i.size = size;
        Ok(())
    }

    /// Punch hole: zeroes `offset..end` inside partly covered blocks and
    /// frees (and trims) the wholly covered ones, lowest first.
    fn punch(&mut self, ino: u32, i: &mut Inode, offset: u64, end: u64) -> Result<()> {
        let mut idx = offset / BS;
        let last = end.div_ceil(BS);
        while idx < last {
            let Some(m) = self.st.next_mapped(i, idx, last)? else {
                break;
            };
            let lo = offset.max(m * BS) - m * BS;
            let hi = end.min((m + 1) * BS) - m * BS;
            if lo == 0 && hi == BS {
                self.st.free_at(ino, i, m)?;
            } else {
                let phys = self.st.bmap(i, m)?.expect("next_mapped found it mapped");
                let (lo, hi) = (lo as usize, hi as usize);
                let need = Cost::new(self.sectors_of(lo, hi - lo) + 1, 2);
                self.st.boundary(ino, i, need)?;
                self.st.data_mut(phys, lo, hi - lo, false)?[lo..hi].fill(0);
            }
            idx = m + 1;
        }
        Ok(())
    }

    /// `lseek(2)` with `SEEK_DATA` or `SEEK_HOLE` from `offset` in regular
    /// file `ino`. Data is every mapped block (preallocated ones too);
    /// the end of file counts as a hole. `ENXIO` when `offset` is at or
    /// past the end of file, or no data follows it.
    pub fn seek(&mut self, ino: u64, offset: u64, whence: Seek) -> Result<u64> {
        let (_, i) = self.file_inode(ino)?;
        if offset >= i.size {
            return Err(FsError::NoData(offset));
        }
        let blocks = i.size.div_ceil(BS);
        match whence {
            Seek::Data => match self.st.next_mapped(&i, offset / BS, blocks)? {
                Some(idx) => Ok(offset.max(idx * BS)),
                None => Err(FsError::NoData(offset)),
            },
            Seek::Hole => {
                let mut idx = offset / BS;
                while idx < blocks && self.st.bmap(&i, idx)?.is_some() {
                    idx += 1;
                }
                Ok(offset.max(idx * BS).min(i.size))
            }
        }
    }
}
