//! Inodes in the table, the block map of a file (12 direct pointers, one
//! single-, one double- and, from format version 2, one triple-indirect
//! pointer block; pointer blocks
//! hold 1024 little-endian u32 block numbers, 0 = hole), and the step
//! boundaries that let one call be split into consistent pieces.
//!
//! A *boundary* is a point in a call where the file system is consistent:
//! if the next piece of work (its [`Cost`]) does not fit the open step, the
//! inode is written back and the step is committed there. Mapping a new
//! block and freeing a file's tail both put a boundary before every block
//! they allocate or free, so a write or truncate of any size works with a
//! small epoch or log; such a call is atomic per step only (a long write
//! becomes consecutive shorter writes, a truncate consecutive truncates).
//!
//! Invariants: see `inode.rs`. Pointer blocks may be empty (a boundary can
//! fall between allocating a pointer block and the block below it); they are
//! freed when the file is truncated below their range.

use ftl::BlockDevice;

use crate::codec::{put_u32_at, u32_at};
use crate::error::{corrupt, FsError, Result};
use crate::inode::Inode;
use crate::layout::{BLOCK_SIZE, INODE_SIZE, NDIRECT, PTRS_PER_BLOCK};
use crate::store::{Cost, Store};

const ND: u64 = NDIRECT as u64;
const P: u64 = PTRS_PER_BLOCK;

/// Where file block `idx` is mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    Direct(usize),
    Single(usize),
    Double(usize, usize),
    Triple(usize, usize, usize),
}

/// First file block of the double- and triple-indirect ranges.
const DOUBLE_BASE: u64 = ND + P;
const TRIPLE_BASE: u64 = ND + P + P * P;

/// The path to file block `idx` in a file system whose files map at most
/// `max` blocks.
fn path(idx: u64, max: u64) -> Result<Path> {
    if idx >= max {
        Err(FsError::FileTooBig(idx.saturating_mul(BLOCK_SIZE as u64)))
    } else if idx < ND {
        Ok(Path::Direct(idx as usize))
    } else if idx < DOUBLE_BASE {
        Ok(Path::Single((idx - ND) as usize))
    } else if idx < TRIPLE_BASE {
        let k = idx - DOUBLE_BASE;
        Ok(Path::Double((k / P) as usize, (k % P) as usize))
    } else {
        let k = idx - TRIPLE_BASE;
        Ok(Path::Triple(
            (k / (P * P)) as usize,
            ((k / P) % P) as usize,
            (k % P) as usize,
        ))
    }
}

impl<D: BlockDevice> Store<D> {
    /// The cost of allocating (or freeing) one block in a step: the block
    /// itself, its bitmap sector, the pointer that names it and the inode.
    pub fn new_block_cost(&self) -> Cost {
        Cost::new(self.spb as u64 + 3, 4)
    }

    /// Inode `ino` from the table (through the cache).
    pub fn iget(&mut self, ino: u32) -> Result<Inode> {
        if ino == 0 || ino >= self.sb.inode_count {
            return Err(FsError::NotFound);
        }
        let (b, off) = self.sb.inode_location(ino);
        let version = self.sb.version;
        let blk = self.meta(b)?;
        Inode::decode_in(ino, &blk[off..off + INODE_SIZE], version)
    }

    /// Writes inode `ino` back (its sector joins the step).
    pub fn iput(&mut self, ino: u32, inode: &Inode) -> Result<()> {
        if ino == 0 || ino >= self.sb.inode_count {
            return Err(FsError::Internal(format!("iput of inode {ino}")));
        }
        let (b, off) = self.sb.inode_location(ino);
        let blk = self.meta_mut(b, off, INODE_SIZE)?;
        inode.encode(&mut blk[off..off + INODE_SIZE]);
        Ok(())
    }

    /// A boundary (see the top of this file): makes room for `need` in the
    /// open step, committing it first if it is too full. The caller's
    /// in-memory `inode` is written back before such a commit.
    pub fn boundary(&mut self, ino: u32, inode: &Inode, need: Cost) -> Result<()> {
        if self.fits(need) {
            return Ok(());
        }
        if !self.tx.is_empty() {
            self.iput(ino, inode)?;
            self.commit_step()?;
        }
        if self.fits(need) {
            Ok(())
        } else {
            Err(FsError::Internal(format!(
                "one piece of a call needs {} sectors / {} blocks, more than a step may hold ({} / {})",
                need.sectors, need.blocks, self.budget.sectors, self.budget.blocks
            )))
        }
    }

    /// Pointer `i` of pointer block `pb`, range-checked.
    fn ptr(&mut self, pb: u32, i: usize) -> Result<u32> {
        self.check_data_block(pb)?;
        let p = u32_at(self.meta(pb)?, 4 * i);
        if p != 0 {
            self.check_data_block(p)?;
        }
        Ok(p)
    }

    fn set_ptr(&mut self, pb: u32, i: usize, v: u32) -> Result<()> {
        let b = self.meta_mut(pb, 4 * i, 4)?;
        put_u32_at(b, 4 * i, v);
        Ok(())
    }

    fn checked(&self, p: u32) -> Result<u32> {
        if p != 0 {
            self.check_data_block(p)?;
        }
        Ok(p)
    }

    /// The block file block `idx` is mapped to, or `None` for a hole.
    pub fn bmap(&mut self, inode: &Inode, idx: u64) -> Result<Option<u32>> {
        let p = match path(idx, self.sb.max_file_blocks())? {
            Path::Direct(i) => self.checked(inode.direct[i])?,
            Path::Single(i) => match self.checked(inode.indirect)? {
                0 => 0,
                pb => self.ptr(pb, i)?,
            },
            Path::Double(i, j) => match self.checked(inode.double_indirect)? {
                0 => 0,
                dpb => match self.ptr(dpb, i)? {
                    0 => 0,
                    pb => self.ptr(pb, j)?,
                },
            },
            Path::Triple(t, i, j) => match self.checked(inode.triple_indirect)? {
                0 => 0,
                tpb => match self.ptr(tpb, t)? {
                    0 => 0,
                    dpb => match self.ptr(dpb, i)? {
                        0 => 0,
                        pb => self.ptr(pb, j)?,
                    },
                },
            },
        };
        Ok((p != 0).then_some(p))
    }

    /// Allocates a zeroed pointer block (the caller put a boundary first).
    fn new_ptr_block(&mut self, inode: &mut Inode, goal: Option<u32>) -> Result<u32> {
        let b = self.alloc_block(goal)?;
        self.meta_new(b)?;
        inode.blocks = inode.blocks.saturating_add(1);
        Ok(b)
    }

    /// Pointer `i` of pointer block `parent`, allocating a new (empty)
    /// pointer block there first, after a boundary, if it is 0.
    fn child_ptr_block(
        &mut self,
        ino: u32,
        inode: &mut Inode,
        parent: u32,
        i: usize,
        goal: Option<u32>,
    ) -> Result<u32> {
        let pb = self.ptr(parent, i)?;
        if pb != 0 {
            return Ok(pb);
        }
        let cost = self.new_block_cost();
        self.boundary(ino, inode, cost)?;
        let pb = self.new_ptr_block(inode, goal)?;
        self.set_ptr(parent, i, pb)?;
        Ok(pb)
    }

    /// Maps file block `idx` (which must be a hole) to a newly allocated
    /// block, allocating missing pointer blocks on the way, each after a
    /// boundary. The caller initialises the returned block before its next
    /// boundary. `goal`: preferred block number.
    pub fn bmap_alloc(
        &mut self,
        ino: u32,
        inode: &mut Inode,
        idx: u64,
        goal: Option<u32>,
    ) -> Result<u32> {
        let cost = self.new_block_cost();
        let path = path(idx, self.sb.max_file_blocks())?;
        // Pointer blocks on the path, top down, each in its own piece.
        let leaf_block = match path {
            Path::Direct(_) => None,
            Path::Single(_) => {
                if inode.indirect == 0 {
                    self.boundary(ino, inode, cost)?;
                    inode.indirect = self.new_ptr_block(inode, goal)?;
                }
                Some(self.checked(inode.indirect)?)
            }
            Path::Double(i, _) => {
                if inode.double_indirect == 0 {
                    self.boundary(ino, inode, cost)?;
                    inode.double_indirect = self.new_ptr_block(inode, goal)?;
                }
                let dpb = self.checked(inode.double_indirect)?;
                Some(self.child_ptr_block(ino, inode, dpb, i, goal)?)
            }
            Path::Triple(t, i, _) => {
                if inode.triple_indirect == 0 {
                    self.boundary(ino, inode, cost)?;
                    inode.triple_indirect = self.new_ptr_block(inode, goal)?;
                }
                let tpb = self.checked(inode.triple_indirect)?;
                let dpb = self.child_ptr_block(ino, inode, tpb, t, goal)?;
                Some(self.child_ptr_block(ino, inode, dpb, i, goal)?)
            }
        };
        self.boundary(ino, inode, cost)?;
        let b = self.alloc_block(goal)?;
        inode.blocks = inode.blocks.saturating_add(1);
        match (path, leaf_block) {
            (Path::Direct(i), _) => inode.direct[i] = b,
            (Path::Single(i), Some(pb))
            | (Path::Double(_, i), Some(pb))
            | (Path::Triple(_, _, i), Some(pb)) => self.set_ptr(pb, i, b)?,
            _ => {
                return Err(FsError::Internal(
                    "pointer path without a leaf block".into(),
                ))
            }
        }
        Ok(b)
    }

    /// Frees the block mapped at file block `idx` (a boundary first), if
    /// there is one; pointer blocks stay. Returns whether a block was freed.
    pub fn free_at(&mut self, ino: u32, inode: &mut Inode, idx: u64) -> Result<bool> {
        let (pb, slot) = match path(idx, self.sb.max_file_blocks())? {
            Path::Direct(i) => (0, i),
            Path::Single(i) => match self.checked(inode.indirect)? {
                0 => return Ok(false),
                pb => (pb, i),
            },
            Path::Double(i, j) => match self.checked(inode.double_indirect)? {
                0 => return Ok(false),
                dpb => match self.ptr(dpb, i)? {
                    0 => return Ok(false),
                    pb => (pb, j),
                },
            },
            Path::Triple(t, i, j) => match self.checked(inode.triple_indirect)? {
                0 => return Ok(false),
                tpb => match self.ptr(tpb, t)? {
                    0 => return Ok(false),
                    dpb => match self.ptr(dpb, i)? {
                        0 => return Ok(false),
                        pb => (pb, j),
                    },
                },
            },
        };
        let b = if pb == 0 {
            self.checked(inode.direct[slot])?
        } else {
            self.ptr(pb, slot)?
        };
        if b == 0 {
            return Ok(false);
        }
        self.free_one(ino, inode, pb, slot, b)?;
        Ok(true)
    }

    /// The first file block in `idx..end` that is mapped, skipping the
    /// ranges of absent pointer blocks whole.
    pub fn next_mapped(&mut self, inode: &Inode, mut idx: u64, end: u64) -> Result<Option<u64>> {
        let max = self.sb.max_file_blocks();
        let end = end.min(max);
        while idx < end {
            let mapped = match path(idx, max)? {
                Path::Direct(i) => self.checked(inode.direct[i])? != 0,
                Path::Single(i) => match self.checked(inode.indirect)? {
                    0 => {
                        idx = ND + P;
                        continue;
                    }
                    pb => self.ptr(pb, i)? != 0,
                },
                Path::Double(i, j) => match self.checked(inode.double_indirect)? {
                    0 => {
                        idx = TRIPLE_BASE;
                        continue;
                    }
                    dpb => match self.ptr(dpb, i)? {
                        0 => {
                            idx = DOUBLE_BASE + (i as u64 + 1) * P;
                            continue;
                        }
                        pb => self.ptr(pb, j)? != 0,
                    },
                },
                Path::Triple(t, i, j) => match self.checked(inode.triple_indirect)? {
                    0 => return Ok(None),
                    tpb => match self.ptr(tpb, t)? {
                        0 => {
                            idx = TRIPLE_BASE + (t as u64 + 1) * P * P;
                            continue;
                        }
                        dpb => match self.ptr(dpb, i)? {
                            0 => {
                                idx = TRIPLE_BASE + t as u64 * P * P + (i as u64 + 1) * P;
                                continue;
                            }
                            pb => self.ptr(pb, j)? != 0,
                        },
                    },
                },
            };
            if mapped {
                return Ok(Some(idx));
            }
            idx += 1;
        }
        Ok(None)
    }

    /// Lowers `inode.size` to what remains valid once every block at or
    /// past file block `idx + 1` is gone (never below `target`).
    fn shrink_to(inode: &mut Inode, idx: u64, target: u64) {
        let keep = ((idx + 1) * BLOCK_SIZE as u64).max(target);
        inode.size = inode.size.min(keep);
    }

    /// Frees one block named by pointer `i` of `pb` (`pb` 0: the inode's
    /// direct pointer `i`), with a boundary first.
    fn free_one(&mut self, ino: u32, inode: &mut Inode, pb: u32, i: usize, b: u32) -> Result<()> {
        let cost = self.new_block_cost();
        self.boundary(ino, inode, cost)?;
        self.free_block(b)?;
        if pb == 0 {
            inode.direct[i] = 0;
        } else {
            self.set_ptr(pb, i, 0)?;
        }
        inode.blocks = inode
            .blocks
            .checked_sub(1)
            .ok_or_else(|| corrupt(format!("inode {ino}: block count below zero")))?;
        Ok(())
    }

    /// Frees the children of pointer block `pb` (covering file blocks
    /// `start..start + 1024`) at or past file block `from`, last first.
    fn free_children(
        &mut self,
        ino: u32,
        inode: &mut Inode,
        pb: u32,
        start: u64,
        from: u64,
        target: u64,
    ) -> Result<()> {
        for j in (0..P as usize).rev() {
            let idx = start + j as u64;
            if idx < from {
                break;
            }
            let b = self.ptr(pb, j)?;
            if b != 0 {
                Self::shrink_to(inode, idx, target);
                self.free_one(ino, inode, pb, j, b)?;
            }
        }
        Ok(())
    }

    /// Frees, last first, every block at or past file block `from` under
    /// pointer block `pb`, the root of a tree with `levels` levels of
    /// pointer blocks above the data (1: `pb` names data blocks) covering
    /// file blocks `start..start + 1024^levels`, and every pointer block
    /// below `pb` whose whole range is; `pb` itself stays.
    #[allow(clippy::too_many_arguments)]
    fn free_tree(
        &mut self,
        ino: u32,
        inode: &mut Inode,
        pb: u32,
        levels: u32,
        start: u64,
        from: u64,
        target: u64,
    ) -> Result<()> {
        if levels == 1 {
            return self.free_children(ino, inode, pb, start, from, target);
        }
        let span = P.pow(levels - 1);
        for i in (0..P as usize).rev() {
            let sub = start + i as u64 * span;
            if sub + span <= from {
                break;
            }
            let child = self.ptr(pb, i)?;
            if child == 0 {
                continue;
            }
            self.free_tree(ino, inode, child, levels - 1, sub, from, target)?;
            if sub >= from {
                Self::shrink_to(inode, sub.saturating_sub(1), target);
                self.free_one(ino, inode, pb, i, child)?;
            }
        }
        Ok(())
    }

    /// Frees every block of the file at or past file block `from`, and every
    /// pointer block whose whole range is, last block first, with a boundary
    /// before each free. On return `inode.size` is at most
    /// `max(target, from * 4096)`; the caller sets the final size and writes
    /// the inode back.
    pub fn free_from(&mut self, ino: u32, inode: &mut Inode, from: u64, target: u64) -> Result<()> {
        // The triple-, double- and single-indirect trees, last first.
        for levels in [3, 2, 1] {
            let (base, root) = match levels {
                3 => (TRIPLE_BASE, inode.triple_indirect),
                2 => (DOUBLE_BASE, inode.double_indirect),
                _ => (ND, inode.indirect),
            };
            if root == 0 || base + P.pow(levels) <= from {
                continue;
            }
            let pb = self.checked(root)?;
            self.free_tree(ino, inode, pb, levels, base, from, target)?;
            if base >= from {
                let cost = self.new_block_cost();
                self.boundary(ino, inode, cost)?;
                self.free_block(pb)?;
                match levels {
                    3 => inode.triple_indirect = 0,
                    2 => inode.double_indirect = 0,
                    _ => inode.indirect = 0,
                }
                inode.blocks = inode.blocks.saturating_sub(1);
            }
        }
        for i in (from.min(ND) as usize..NDIRECT).rev() {
            let b = self.checked(inode.direct[i])?;
            if b != 0 {
                Self::shrink_to(inode, i as u64, target);
                self.free_one(ino, inode, 0, i, b)?;
            }
        }
        Ok(())
    }
}
