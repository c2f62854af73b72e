//! File contents and attributes: getattr, setattr (including truncate),
//! read and write.
//!
//! Writes never read-modify-write more than the blocks they touch: a write
//! covering whole sectors of an existing block reads nothing, a partial one
//! reads that one block. New blocks are placed right after the file's
//! previous block when free, and reads coalesce physically consecutive
//! blocks into one device read. Atime is not updated by reads (as with
//! `noatime`); `setattr` sets it.

use ftl::BlockDevice;

use crate::attr::{Attr, SetAttr, TimeSet};
use crate::error::{FsError, Result};
use crate::fs::Fs;
use crate::inode::{FileType, Inode, TIME_MAX, TIME_MIN};
use crate::layout::BLOCK_SIZE;
use crate::store::Cost;

const BS: u64 = BLOCK_SIZE as u64;
/// Most blocks one device read covers.
const MAX_READ_RUN: u64 = 256;

impl<D: BlockDevice> Fs<D> {
    /// The attributes of `ino`.
    pub fn getattr(&mut self, ino: u64) -> Result<Attr> {
        let (ino, i, kind) = self.inode(ino)?;
        Ok(Attr::from_inode(ino, &i, kind))
    }

    /// A regular file (`EISDIR` for a directory, `EINVAL` for other kinds).
    pub(crate) fn file_inode(&mut self, ino: u64) -> Result<(u32, Inode)> {
        let (ino, i, kind) = self.inode(ino)?;
        match kind {
            FileType::RegularFile => Ok((ino, i)),
            FileType::Directory => Err(FsError::IsDir),
            _ => Err(FsError::Invalid("not a regular file".into())),
        }
    }

    /// Changes attributes; `size` truncates or extends a regular file.
    pub fn setattr(&mut self, ino: u64, set: &SetAttr) -> Result<Attr> {
        self.call(|fs| {
            let (ino, mut i, kind) = fs.inode(ino)?;
            if let Some(size) = set.size {
                match kind {
                    FileType::RegularFile => {}
                    FileType::Directory => return Err(FsError::IsDir),
                    _ => {
                        return Err(FsError::Invalid(
                            "only regular files have a size to set".into(),
                        ))
                    }
                }
                if size > fs.st.sb.max_file_size() {
                    return Err(FsError::FileTooBig(size));
                }
            }
            for t in [set.atime, set.mtime, set.ctime.map(TimeSet::At)] {
                if let Some(TimeSet::At(ns)) = t {
                    fs.check_time(ns)?;
                }
            }
            let now = fs.now();
            if let Some(size) = set.size {
                fs.resize(ino, &mut i, size)?;
                i.mtime_ns = now;
            }
            if let Some(m) = set.mode {
                i.perm = (m & 0o7777) as u16;
                if i.xattr != 0 {
                    let spb = fs.st.spb as u64;
                    fs.st.boundary(ino, &i, Cost::new(spb + 2, 3))?;
                    fs.chmod_acl(ino, &mut i)?;
                }
            }
            if let Some(u) = set.uid {
                i.uid = u;
            }
            if let Some(g) = set.gid {
                i.gid = g;
            }
            let t = |s: TimeSet| match s {
                TimeSet::Now => now,
                TimeSet::At(ns) => ns,
            };
            if let Some(a) = set.atime {
                i.atime_ns = t(a);
            }
            if let Some(m) = set.mtime {
                i.mtime_ns = t(m);
            }
            i.ctime_ns = set.ctime.unwrap_or(now);
            fs.st.iput(ino, &i)?;
            Ok(Attr::from_inode(ino, &i, kind))
        })
    }

    /// `EOVERFLOW` for a time the format cannot hold: past 2262 (or before
    /// 1678) on versions 1 and 2, outside 96-bit nanoseconds on version 3.
    pub(crate) fn check_time(&self, ns: i128) -> Result<()> {
        if self.st.sb.has_xattrs() {
            if !(TIME_MIN..=TIME_MAX).contains(&ns) {
                return Err(FsError::TimeOutOfRange(ns, "96-bit nanoseconds"));
            }
        } else if i64::try_from(ns).is_err() {
            return Err(FsError::TimeOutOfRange(
                ns,
                "format versions 1 and 2 end in 2262; run `scftl fsck IMAGE --upgrade`",
            ));
        }
        Ok(())
    }

    /// Sets the size of a regular file: shrinking frees the blocks past the
    /// end (in pieces, each a smaller truncate); growing makes a hole, after
    /// zeroing the rest of the old last block.
    fn resize(&mut self, ino: u32, i: &mut Inode, size: u64) -> Result<()> {
        if size < i.size {
            self.st.free_from(ino, i, size.div_ceil(BS), size)?;
            i.size = size;
        } else if size > i.size {
            self.zero_tail(ino, i, size)?;
            i.size = size;
        }
        Ok(())
    }

    /// Before the size grows to `new_size`: zeroes the bytes past the old
    /// end of file in the block holding it (they are undefined on disk).
    pub(crate) fn zero_tail(&mut self, ino: u32, i: &mut Inode, new_size: u64) -> Result<()> {
        let old = i.size;
        let off = (old % BS) as usize;
        if off == 0 {
            return Ok(());
        }
        let idx = old / BS;
        let Some(phys) = self.st.bmap(i, idx)? else {
            return Ok(());
        };
        let end = (new_size - idx * BS).min(BS) as usize;
        let need = Cost::new(self.sectors_of(off, end - off) + 1, 2);
        self.st.boundary(ino, i, need)?;
        self.st.data_mut(phys, off, end - off, false)?[off..end].fill(0);
        Ok(())
    }

    pub(crate) fn sectors_of(&self, off: usize, len: usize) -> u64 {
        let ss = self.st.sector_size;
        ((off + len).div_ceil(ss) - off / ss) as u64
    }

    /// Reads up to `size` bytes at `offset` (fewer at the end of file).
    pub fn read(&mut self, ino: u64, offset: u64, size: u32) -> Result<Vec<u8>> {
        let (_, i) = self.file_inode(ino)?;
        if offset >= i.size || size == 0 {
            return Ok(Vec::new());
        }
        let end = i.size.min(offset.saturating_add(u64::from(size)));
        let mut out = vec![0u8; (end - offset) as usize];
        let (first, last) = (offset / BS, (end - 1) / BS);
        let mut idx = first;
        let mut tmp = Vec::new();
        while idx <= last {
            let Some(phys) = self.st.bmap(&i, idx)? else {
                idx += 1;
                continue;
            };
            let mut n = 1u64;
            while idx + n <= last
                && n < MAX_READ_RUN
                && self.st.bmap(&i, idx + n)? == Some(phys + n as u32)
            {
                n += 1;
            }
            tmp.resize((n * BS) as usize, 0);
            self.st.check_data_block(phys + n as u32 - 1)?;
            self.st.dev_read(phys, &mut tmp)?;
            // Copy the part of blocks idx..idx + n inside offset..end.
            let run_start = idx * BS;
            let lo = offset.max(run_start);
            let hi = end.min(run_start + n * BS);
            out[(lo - offset) as usize..(hi - offset) as usize]
                .copy_from_slice(&tmp[(lo - run_start) as usize..(hi - run_start) as usize]);
            idx += n;
        }
        Ok(out)
    }

    /// Writes `data` at `offset`, extending the file as needed; returns the
    /// bytes written. A write larger than a step is committed in pieces
    /// (each a shorter write); if it fails after some pieces were
    /// committed, those bytes count and the short length is returned.
    pub fn write(&mut self, ino: u64, offset: u64, data: &[u8]) -> Result<u32> {
        if data.is_empty() {
            self.file_inode(ino)?;
            return Ok(0);
        }
        let max = self.st.sb.max_file_size();
        if offset >= max {
            return Err(FsError::FileTooBig(offset));
        }
        let len = (data.len() as u64)
            .min(max - offset)
            .min(u64::from(u32::MAX)) as usize;
        let data = &data[..len];
        self.call(|fs| {
            let (ino, mut i) = fs.file_inode(ino)?;
            let (mut committed, mut done) = (0usize, 0usize);
            match fs.write_pieces(ino, &mut i, offset, data, &mut committed, &mut done) {
                Ok(()) => {
                    fs.st.iput(ino, &i)?;
                    Ok(data.len() as u32)
                }
                // Out of space part way: the blocks written so far (and any
                // empty pointer block) form a consistent shorter write.
                Err(FsError::NoSpace(_)) if done > 0 => {
                    fs.st.iput(ino, &i)?;
                    Ok(done as u32)
                }
                // Any other failure part way: report the bytes of the steps
                // already committed, as POSIX wants of a partial write.
                Err(_) if committed > 0 && fs.st.poisoned.is_none() => {
                    fs.st.abort_step();
                    Ok(committed as u32)
                }
                Err(e) => Err(e),
            }
        })
    }

    /// The block file block `idx` of a write goes to (allocated if it is a
    /// hole, placed after `prev`), after the boundary its piece needs;
    /// `true` when newly allocated.
    fn map_for_write(
        &mut self,
        ino: u32,
        i: &mut Inode,
        idx: u64,
        boff: usize,
        n: usize,
        prev: Option<u32>,
    ) -> Result<(u32, bool)> {
        match self.st.bmap(i, idx)? {
            Some(p) => {
                let need = Cost::new(self.sectors_of(boff, n) + 1, 2);
                self.st.boundary(ino, i, need)?;
                Ok((p, false))
            }
            None => {
                let goal = match (prev, idx) {
                    (Some(p), _) => Some(p + 1),
                    (None, 0) => None,
                    (None, _) => self.st.bmap(i, idx - 1)?.map(|p| p + 1),
                };
                Ok((self.st.bmap_alloc(ino, i, idx, goal)?, true))
            }
        }
    }

    /// The body of [`Fs::write`]; `committed` tracks the bytes in steps
    /// already committed, `done` the bytes written into `i` and the step.
    fn write_pieces(
        &mut self,
        ino: u32,
        i: &mut Inode,
        offset: u64,
        data: &[u8],
        committed: &mut usize,
        done: &mut usize,
    ) -> Result<()> {
        let now = self.now();
        i.mtime_ns = now;
        i.ctime_ns = now;
        if offset > i.size {
            self.zero_tail(ino, i, offset)?;
        }
        let end = offset + data.len() as u64;
        let mut pos = offset;
        let mut prev: Option<u32> = None;
        while pos < end {
            let idx = pos / BS;
            let boff = (pos % BS) as usize;
            let n = ((BS - boff as u64).min(end - pos)) as usize;
            let steps = self.st.stats.steps;
            let mapped = self.map_for_write(ino, i, idx, boff, n, prev);
            if self.st.stats.steps != steps {
                // A boundary committed everything before `pos`.
                *committed = (pos - offset) as usize;
            }
            let (phys, fresh) = mapped?;
            let src = &data[(pos - offset) as usize..(pos - offset) as usize + n];
            self.st.data_mut(phys, boff, n, fresh)?[boff..boff + n].copy_from_slice(src);
            pos += n as u64;
            i.size = i.size.max(pos);
            *done = (pos - offset) as usize;
            prev = Some(phys);
        }
        Ok(())
    }
}
