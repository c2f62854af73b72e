//! The namespace: directory lookups and changes (lookup, create, mknod,
//! mkdir, symlink, link, unlink, rmdir, rename, readdir, readlink).
//!
//! Lookups and the search for room go through the in-memory directory
//! index (`dirindex.rs`): one directory block per lookup, create or
//! unlink, after one linear scan of the directory per mount
//! (`dir_index`). `dir_find` and `dir_space` fall back to a linear scan
//! when the index cannot be kept or disagrees with a block.
//!
//! Each call checks everything that can fail before it changes anything,
//! except growing a directory by a block, which is a consistent piece of its
//! own (a directory with an extra empty block); then the entry change and
//! the inode updates form one piece that is never split. Freeing an inode
//! that lost its last link comes after, in pieces that each leave an orphan.

use ftl::BlockDevice;

use crate::attr::{Attr, DirEntry, Owner, RENAME_EXCHANGE, RENAME_NOREPLACE};
use crate::dir::{self, Rec};
use crate::dirindex::DirIndex;
use crate::error::{corrupt, FsError, Result};
use crate::fs::{Fs, LINK_MAX};
use crate::inode::{FileType, Inode};
use crate::layout::{BLOCK_SIZE, INODE_SIZE, ROOT_INO};
use crate::mode::FsMutant;
use crate::store::Cost;

const BS: u64 = BLOCK_SIZE as u64;

/// A live entry found in a directory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    /// Directory block index and block number.
    idx: u32,
    phys: u32,
    rec: Rec,
    prev: Option<Rec>,
}

/// What `make_node` creates.
struct NewNode<'a> {
    kind: FileType,
    perm: u32,
    owner: Owner,
    rdev: u32,
    /// A symlink's target.
    target: Option<&'a [u8]>,
}

impl NewNode<'_> {
    fn new(kind: FileType, perm: u32, owner: Owner) -> NewNode<'static> {
        NewNode {
            kind,
            perm,
            owner,
            rdev: 0,
            target: None,
        }
    }
}

/// The largest record a directory block with records `recs` has room for.
fn block_room(recs: &[Rec]) -> u16 {
    recs.iter()
        .map(|r| r.rec_len - r.used())
        .max()
        .unwrap_or(0)
        .min(usize::from(u16::MAX)) as u16
}

/// Longest symlink target.
pub const SYMLINK_MAX: usize = BLOCK_SIZE - 1;

impl<D: BlockDevice> Fs<D> {
    fn dir_len(dir: &Inode) -> Result<u64> {
        if dir.size % BS != 0 {
            return Err(corrupt(format!(
                "directory size {} is not a multiple of the block size",
                dir.size
            )));
        }
        Ok(dir.size / BS)
    }

    /// Directory block `idx`: its block number and records.
    fn dir_block(&mut self, dir: &Inode, idx: u64) -> Result<(u32, Vec<Rec>)> {
        let phys = self
            .st
            .bmap(dir, idx)?
            .ok_or_else(|| corrupt(format!("directory has a hole at block {idx}")))?;
        let recs = dir::records(self.st.meta(phys)?, idx * BS)?;
        for r in &recs {
            if r.ino >= self.st.sb.inode_count {
                return Err(corrupt(format!("directory entry names inode {}", r.ino)));
            }
        }
        Ok((phys, recs))
    }

    /// Makes sure directory `dino` (inode `dir`) is indexed, building the
    /// index with one scan if it is missing or disagrees with the
    /// directory's length or first block; false when it cannot be kept
    /// (over the memory bound).
    fn dir_index(&mut self, dino: u32, dir: &Inode) -> Result<bool> {
        let len = Self::dir_len(dir)?;
        if let Some(ix) = self.dirs.get(dino) {
            if ix.blocks.len() as u64 == len
                && ix.blocks.first().map_or(true, |&b| b == dir.direct[0])
            {
                return Ok(true);
            }
        }
        let mut ix = DirIndex::default();
        for idx in 0..len {
            let (phys, recs) = self.dir_block(dir, idx)?;
            let blk = self.st.meta(phys)?;
            for r in &recs {
                if r.ino != 0 {
                    ix.names.insert(r.name(blk).into(), idx as u32);
                }
            }
            ix.blocks.push(phys);
            ix.room.push(block_room(&recs));
        }
        Ok(self.dirs.insert(dino, ix))
    }

    /// The live entry `name` in directory block `idx` of `dir`.
    fn find_in_block(&mut self, dir: &Inode, idx: u64, name: &[u8]) -> Result<Option<Slot>> {
        let (phys, recs) = self.dir_block(dir, idx)?;
        let blk = self.st.meta(phys)?;
        let mut prev = None;
        for r in recs {
            if r.ino != 0 && r.name(blk) == name {
                return Ok(Some(Slot {
                    idx: idx as u32,
                    phys,
                    rec: r,
                    prev,
                }));
            }
            prev = Some(r);
        }
        Ok(None)
    }

    /// The live entry `name` of directory `dino` (inode `dir`).
    fn dir_find(&mut self, dino: u32, dir: &Inode, name: &[u8]) -> Result<Option<Slot>> {
        if self.dir_index(dino, dir)? {
            let Some(idx) = self
                .dirs
                .get(dino)
                .and_then(|ix| ix.names.get(name).copied())
            else {
                return Ok(None);
            };
            if let Some(s) = self.find_in_block(dir, u64::from(idx), name)? {
                return Ok(Some(s));
            }
            // The index points at a block without the name: drop it.
            self.dirs.forget(dino);
        }
        for idx in 0..Self::dir_len(dir)? {
            if let Some(s) = self.find_in_block(dir, idx, name)? {
                return Ok(Some(s));
            }
        }
        Ok(None)
    }

    /// Room for a `name_len`-byte entry in an existing block of directory
    /// `dino`: `(block index, block number, position, record carved from)`.
    fn dir_space(
        &mut self,
        dino: u32,
        dir: &Inode,
        name_len: usize,
    ) -> Result<Option<(u32, u32, usize, Rec)>> {
        let need = dir::rec_size(name_len);
        if self.dir_index(dino, dir)? {
            let first = self
                .dirs
                .get(dino)
                .and_then(|ix| ix.room.iter().position(|&r| usize::from(r) >= need));
            let Some(idx) = first else {
                return Ok(None);
            };
            let (phys, recs) = self.dir_block(dir, idx as u64)?;
            if let Some((at, from)) = dir::find_space(&recs, name_len) {
                return Ok(Some((idx as u32, phys, at, from)));
            }
            self.dirs.forget(dino);
        }
        for idx in 0..Self::dir_len(dir)? {
            let (phys, recs) = self.dir_block(dir, idx)?;
            if let Some((at, from)) = dir::find_space(&recs, name_len) {
                return Ok(Some((idx as u32, phys, at, from)));
            }
        }
        Ok(None)
    }

    /// The largest room of directory block `phys` now (after a change).
    fn room_of(&mut self, phys: u32) -> Result<u16> {
        Ok(block_room(&dir::records(self.st.meta(phys)?, 0)?))
    }

    /// Room for a `name_len`-byte entry, growing `dir` by an empty block
    /// when no block has room (a piece of its own; the caller writes `dir`
    /// back).
    fn dir_room(
        &mut self,
        dino: u32,
        dir: &mut Inode,
        name_len: usize,
    ) -> Result<(u32, u32, usize, Rec)> {
        if let Some(r) = self.dir_space(dino, dir, name_len)? {
            return Ok(r);
        }
        let idx = Self::dir_len(dir)?;
        let goal = match idx {
            0 => None,
            _ => self.st.bmap(dir, idx - 1)?.map(|b| b + 1),
        };
        let phys = self
            .st
            .bmap_alloc(dino, dir, idx, goal)
            .map_err(|e| match e {
                FsError::FileTooBig(_) => FsError::NoSpace("the directory has its largest size"),
                e => e,
            })?;
        dir::init_block(self.st.meta_new(phys)?);
        dir.size += BS;
        self.dirs.grown(dino, phys, BLOCK_SIZE as u16);
        let recs = dir::records(self.st.meta(phys)?, idx * BS)?;
        let (at, from) = dir::find_space(&recs, name_len)
            .ok_or_else(|| FsError::Internal("a new directory block has no room".into()))?;
        Ok((idx as u32, phys, at, from))
    }

    /// Writes the entry `name` → `ino` into directory `dino` where
    /// [`Self::dir_room`] found room: `(block index, block, position, from)`.
    fn dir_insert(
        &mut self,
        dino: u32,
        (idx, phys, at, from): (u32, u32, usize, Rec),
        ino: u32,
        kind: FileType,
        name: &[u8],
    ) -> Result<()> {
        self.st.meta_edit(phys, |b| {
            dir::insert(b, at, from, ino, kind.code() as u8, name)
        })?;
        let room = self.room_of(phys)?;
        self.dirs.added(dino, idx, name, room);
        Ok(())
    }

    /// Removes the entry `name` found at `s` from directory `dino`.
    fn dir_remove(&mut self, dino: u32, s: &Slot, name: &[u8]) -> Result<()> {
        self.st
            .meta_edit(s.phys, |b| dir::remove(b, s.rec, s.prev))?;
        let room = self.room_of(s.phys)?;
        self.dirs.removed(dino, s.idx, name, room);
        Ok(())
    }

    fn dir_is_empty(&mut self, dir: &Inode) -> Result<bool> {
        for idx in 0..Self::dir_len(dir)? {
            if self.dir_block(dir, idx)?.1.iter().any(|r| r.ino != 0) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The inode an entry names, which must be allocated.
    fn entry_inode(&mut self, ino: u32) -> Result<Inode> {
        if !self.st.inode_allocated(ino)? {
            return Err(corrupt(format!(
                "a directory entry names inode {ino}, which is free"
            )));
        }
        self.st.iget(ino)
    }

    /// Reads, changes and writes back inode `ino`.
    fn iupdate(&mut self, ino: u32, f: impl FnOnce(&mut Inode)) -> Result<Inode> {
        let mut i = self.st.iget(ino)?;
        f(&mut i);
        self.st.iput(ino, &i)?;
        Ok(i)
    }

    /// Looks `name` up in directory `parent` (`.` and `..` included).
    pub fn lookup(&mut self, parent: u64, name: &[u8]) -> Result<Attr> {
        let (pino, dir) = self.dir_inode(parent)?;
        let ino = match name {
            b"." => pino,
            b".." => dir.parent,
            _ => {
                dir::check_name(name)?;
                self.dir_find(pino, &dir, name)?
                    .ok_or(FsError::NotFound)?
                    .rec
                    .ino
            }
        };
        let i = self.entry_inode(ino)?;
        Ok(Attr::from_inode(ino, &i, i.file_type()?))
    }

    /// Creates the inode `new` describes, named `name` in `parent`.
    fn make_node(&mut self, parent: u64, name: &[u8], new: NewNode<'_>) -> Result<Attr> {
        let NewNode {
            kind,
            perm,
            owner,
            rdev,
            target,
        } = new;
        self.call(|fs| {
            let (pino, mut pdir) = fs.dir_inode(parent)?;
            dir::check_name(name)?;
            if pdir.nlink == 0 {
                return Err(FsError::NotFound);
            }
            if fs.dir_find(pino, &pdir, name)?.is_some() {
                return Err(FsError::Exists);
            }
            if kind == FileType::Directory && pdir.nlink >= LINK_MAX {
                return Err(FsError::TooManyLinks);
            }
            let room = fs.dir_room(pino, &mut pdir, name.len())?;
            let (xattrs, perm) = fs.inherit(pino, &pdir, kind, perm, owner.umask)?;
            // Inode and inode-bitmap sectors, the entry (up to three
            // sectors), the parent's inode; a symlink adds its block and
            // a block-bitmap sector, inherited ACLs their block and one.
            let mut need = Cost::new(6, 4);
            if target.is_some() {
                need = need + Cost::new(fs.st.spb as u64 + 1, 2);
            }
            if !xattrs.0.is_empty() {
                need = need + Cost::new(fs.st.spb as u64 + 1, 2);
            }
            fs.st.boundary(pino, &pdir, need)?;

            let ino = fs.st.alloc_inode()?;
            let (blk, off) = fs.st.sb.inode_location(ino);
            let generation = Inode::next_generation(ino, &fs.st.meta(blk)?[off..off + INODE_SIZE]);
            let now = fs.now();
            let mut inode = Inode::new(generation, kind, perm, owner.uid, owner.gid, now);
            inode.rdev = rdev;
            if kind == FileType::Directory {
                inode.parent = pino;
            }
            if let Some(t) = target {
                let b = fs.st.alloc_block(None)?;
                fs.st.meta_new(b)?[..t.len()].copy_from_slice(t);
                inode.direct[0] = b;
                inode.blocks = 1;
                inode.size = t.len() as u64;
            }
            fs.put_xattrs(&mut inode, &xattrs)?;
            // Mutant: the entry (with the inode bitmap) is committed in a
            // step of its own, before the step that writes the inode.
            let entry_first = fs.st.mutant == Some(FsMutant::CreateEntryBeforeInode);
            if !entry_first {
                fs.st.iput(ino, &inode)?;
            }
            fs.dir_insert(pino, room, ino, kind, name)?;
            pdir.mtime_ns = now;
            pdir.ctime_ns = now;
            if kind == FileType::Directory {
                pdir.nlink += 1;
            }
            fs.st.iput(pino, &pdir)?;
            if entry_first {
                fs.st.commit_step()?;
                fs.st.iput(ino, &inode)?;
            }
            Ok(Attr::from_inode(ino, &inode, kind))
        })
    }

    /// Creates and opens a regular file (FUSE `create`); `EEXIST` if the
    /// name exists. The caller [`Fs::release`]s it later.
    pub fn create(&mut self, parent: u64, name: &[u8], mode: u32, owner: Owner) -> Result<Attr> {
        if FileType::from_mode(mode) != Some(FileType::RegularFile) {
            return Err(FsError::Invalid("create makes regular files only".into()));
        }
        let a = self.make_node(
            parent,
            name,
            NewNode::new(FileType::RegularFile, mode, owner),
        )?;
        *self.open.entry(a.ino as u32).or_insert(0) += 1;
        Ok(a)
    }

    /// Creates a regular file, device node, FIFO or socket (the type bits
    /// of `mode`; 0 means a regular file).
    pub fn mknod(
        &mut self,
        parent: u64,
        name: &[u8],
        mode: u32,
        rdev: u32,
        owner: Owner,
    ) -> Result<Attr> {
        match FileType::from_mode(mode) {
            Some(FileType::Directory) => Err(FsError::Invalid(
                "mknod cannot make a directory (use mkdir)".into(),
            )),
            Some(FileType::Symlink) => Err(FsError::Invalid(
                "mknod cannot make a symlink (use symlink)".into(),
            )),
            None => Err(FsError::Invalid(format!(
                "unknown file type in mode {mode:o}"
            ))),
            Some(kind) => {
                let rdev = if matches!(kind, FileType::CharDevice | FileType::BlockDevice) {
                    rdev
                } else {
                    0
                };
                self.make_node(
                    parent,
                    name,
                    NewNode {
                        rdev,
                        ..NewNode::new(kind, mode, owner)
                    },
                )
            }
        }
    }

    /// Creates an empty directory.
    pub fn mkdir(&mut self, parent: u64, name: &[u8], mode: u32, owner: Owner) -> Result<Attr> {
        self.make_node(parent, name, NewNode::new(FileType::Directory, mode, owner))
    }

    /// Creates a symbolic link to `target` (1..=4095 bytes).
    pub fn symlink(
        &mut self,
        parent: u64,
        name: &[u8],
        target: &[u8],
        owner: Owner,
    ) -> Result<Attr> {
        if target.is_empty() {
            return Err(FsError::NotFound);
        }
        if target.len() > SYMLINK_MAX {
            return Err(FsError::NameTooLong(target.len()));
        }
        self.make_node(
            parent,
            name,
            NewNode {
                target: Some(target),
                ..NewNode::new(FileType::Symlink, 0o777, owner)
            },
        )
    }

    /// A symlink's target.
    pub fn readlink(&mut self, ino: u64) -> Result<Vec<u8>> {
        let (ino, i, kind) = self.inode(ino)?;
        if kind != FileType::Symlink {
            return Err(FsError::Invalid("not a symbolic link".into()));
        }
        let len = i.size as usize;
        if !(1..=SYMLINK_MAX).contains(&len) {
            return Err(corrupt(format!("symlink {ino} has size {len}")));
        }
        self.st.check_data_block(i.direct[0])?;
        Ok(self.st.meta(i.direct[0])?[..len].to_vec())
    }

    /// A new hard link `newname` in `newparent` to the non-directory `ino`.
    pub fn link(&mut self, ino: u64, newparent: u64, newname: &[u8]) -> Result<Attr> {
        self.call(|fs| {
            let (ino, inode, kind) = fs.inode(ino)?;
            if kind == FileType::Directory {
                return Err(FsError::NotPermitted(
                    "hard links to directories are not allowed".into(),
                ));
            }
            if inode.nlink == 0 {
                return Err(FsError::NotFound);
            }
            if inode.nlink >= LINK_MAX {
                return Err(FsError::TooManyLinks);
            }
            let (dp, mut ddir) = fs.dir_inode(newparent)?;
            dir::check_name(newname)?;
            if ddir.nlink == 0 {
                return Err(FsError::NotFound);
            }
            if fs.dir_find(dp, &ddir, newname)?.is_some() {
                return Err(FsError::Exists);
            }
            let room = fs.dir_room(dp, &mut ddir, newname.len())?;
            fs.st.boundary(dp, &ddir, Cost::new(6, 4))?;
            fs.dir_insert(dp, room, ino, kind, newname)?;
            let now = fs.now();
            ddir.mtime_ns = now;
            ddir.ctime_ns = now;
            fs.st.iput(dp, &ddir)?;
            let i = fs.iupdate(ino, |i| {
                i.nlink += 1;
                i.ctime_ns = now;
            })?;
            Ok(Attr::from_inode(ino, &i, kind))
        })
    }

    /// Removes the non-directory entry `name` from `parent`; the inode is
    /// freed when it has no links left and is not open.
    pub fn unlink(&mut self, parent: u64, name: &[u8]) -> Result<()> {
        self.call(|fs| {
            let (pino, mut pdir) = fs.dir_inode(parent)?;
            dir::check_name(name)?;
            let slot = fs.dir_find(pino, &pdir, name)?.ok_or(FsError::NotFound)?;
            let t = slot.rec.ino;
            if fs.entry_inode(t)?.is_dir() {
                return Err(FsError::IsDir);
            }
            let now = fs.now();
            fs.dir_remove(pino, &slot, name)?;
            pdir.mtime_ns = now;
            pdir.ctime_ns = now;
            fs.st.iput(pino, &pdir)?;
            let ti = fs.iupdate(t, |i| {
                i.nlink = i.nlink.saturating_sub(1);
                i.ctime_ns = now;
            })?;
            if ti.nlink == 0 && !fs.is_open(t) {
                fs.free_inode(t)?;
            }
            Ok(())
        })
    }

    /// Removes the empty directory `name` from `parent`.
    pub fn rmdir(&mut self, parent: u64, name: &[u8]) -> Result<()> {
        if name == b"." {
            return Err(FsError::Invalid("rmdir of `.`".into()));
        }
        if name == b".." {
            return Err(FsError::NotEmpty);
        }
        self.call(|fs| {
            let (pino, mut pdir) = fs.dir_inode(parent)?;
            dir::check_name(name)?;
            let slot = fs.dir_find(pino, &pdir, name)?.ok_or(FsError::NotFound)?;
            let t = slot.rec.ino;
            let ti = fs.entry_inode(t)?;
            if !ti.is_dir() {
                return Err(FsError::NotDir);
            }
            if !fs.dir_is_empty(&ti)? {
                return Err(FsError::NotEmpty);
            }
            let now = fs.now();
            fs.dir_remove(pino, &slot, name)?;
            pdir.nlink = pdir.nlink.saturating_sub(1);
            pdir.mtime_ns = now;
            pdir.ctime_ns = now;
            fs.st.iput(pino, &pdir)?;
            fs.iupdate(t, |i| {
                i.nlink = 0;
                i.ctime_ns = now;
            })?;
            if !fs.is_open(t) {
                fs.free_inode(t)?;
            }
            Ok(())
        })
    }

    /// Renames `parent/name` to `newparent/newname`, atomically, replacing
    /// an existing file or empty directory there. Flags: 0,
    /// `RENAME_NOREPLACE` (`EEXIST` if the new name exists) or
    /// `RENAME_EXCHANGE` (both names must exist; they swap inodes, see
    /// [`Self::exchange`]); others, and both at once, are `EINVAL`.
    pub fn rename(
        &mut self,
        parent: u64,
        name: &[u8],
        newparent: u64,
        newname: &[u8],
        flags: u32,
    ) -> Result<()> {
        let known = RENAME_NOREPLACE | RENAME_EXCHANGE;
        if flags & !known != 0 || flags == known {
            return Err(FsError::Invalid(format!(
                "rename flags {flags:#x} are not supported"
            )));
        }
        if flags & RENAME_EXCHANGE != 0 {
            return self.call(|fs| fs.exchange(parent, name, newparent, newname));
        }
        self.call(|fs| {
            let (sp, sdir) = fs.dir_inode(parent)?;
            let (dp, mut ddir) = fs.dir_inode(newparent)?;
            dir::check_name(name)?;
            dir::check_name(newname)?;
            let src = fs.dir_find(sp, &sdir, name)?.ok_or(FsError::NotFound)?;
            let s = src.rec.ino;
            let s_kind = fs.entry_inode(s)?.file_type()?;
            if ddir.nlink == 0 {
                return Err(FsError::NotFound);
            }
            let dst = fs.dir_find(dp, &ddir, newname)?;
            if let Some(d) = dst {
                if flags & RENAME_NOREPLACE != 0 {
                    return Err(FsError::Exists);
                }
                if d.rec.ino == s {
                    return Ok(());
                }
            }
            if s_kind == FileType::Directory {
                fs.check_not_inside(dp, s)?;
            }
            let t = match dst {
                Some(d) => {
                    let ti = fs.entry_inode(d.rec.ino)?;
                    let t_dir = ti.is_dir();
                    if s_kind == FileType::Directory {
                        if !t_dir {
                            return Err(FsError::NotDir);
                        }
                        if !fs.dir_is_empty(&ti)? {
                            return Err(FsError::NotEmpty);
                        }
                    } else if t_dir {
                        return Err(FsError::IsDir);
                    }
                    Some((d.rec.ino, t_dir))
                }
                None => {
                    if s_kind == FileType::Directory && sp != dp && ddir.nlink >= LINK_MAX {
                        return Err(FsError::TooManyLinks);
                    }
                    fs.dir_room(dp, &mut ddir, newname.len())?;
                    None
                }
            };
            fs.st.boundary(dp, &ddir, Cost::new(9, 7))?;
            if t.is_none() {
                fs.st.iput(dp, &ddir)?;
            }

            // The piece that is never split: both entries and the inodes.
            fs.rename_entries(sp, name, dp, newname, (s, s_kind), t)
        })
    }

    /// `RENAME_EXCHANGE`: `parent/name` and `newparent/newname`, which must
    /// both exist, swap the inodes they name, in one piece. A directory
    /// that changes parent gets its new `..`, and the parents' link counts
    /// follow the subdirectories; neither may end up inside itself
    /// (`EINVAL`).
    fn exchange(&mut self, parent: u64, name: &[u8], newparent: u64, newname: &[u8]) -> Result<()> {
        let (sp, sdir) = self.dir_inode(parent)?;
        let (dp, ddir) = self.dir_inode(newparent)?;
        dir::check_name(name)?;
        dir::check_name(newname)?;
        let src = self.dir_find(sp, &sdir, name)?.ok_or(FsError::NotFound)?;
        let dst = self
            .dir_find(dp, &ddir, newname)?
            .ok_or(FsError::NotFound)?;
        let (s, t) = (src.rec.ino, dst.rec.ino);
        if s == t {
            return Ok(());
        }
        let s_kind = self.entry_inode(s)?.file_type()?;
        let t_kind = self.entry_inode(t)?.file_type()?;
        let (s_dir, t_dir) = (s_kind == FileType::Directory, t_kind == FileType::Directory);
        if s_dir {
            self.check_not_inside(dp, s)?;
        }
        if t_dir {
            self.check_not_inside(sp, t)?;
        }
        let crosses = sp != dp && s_dir != t_dir;
        if crosses && (if s_dir { ddir.nlink } else { sdir.nlink }) >= LINK_MAX {
            return Err(FsError::TooManyLinks);
        }
        // Both entries (up to two blocks), both inodes and both parents.
        self.st.boundary(dp, &ddir, Cost::new(8, 6))?;
        let now = self.now();
        self.st.meta_edit(src.phys, |b| {
            dir::retarget(b, src.rec, t, t_kind.code() as u8)
        })?;
        self.st.meta_edit(dst.phys, |b| {
            dir::retarget(b, dst.rec, s, s_kind.code() as u8)
        })?;
        self.iupdate(s, |i| {
            i.ctime_ns = now;
            if s_dir {
                i.parent = dp;
            }
        })?;
        self.iupdate(t, |i| {
            i.ctime_ns = now;
            if t_dir {
                i.parent = sp;
            }
        })?;
        // A directory moving from sp to dp, and a non-directory the
        // other way, moves one link from sp to dp (or back).
        let (to_dp, to_sp) = (u32::from(crosses && s_dir), u32::from(crosses && t_dir));
        self.iupdate(sp, |i| {
            i.mtime_ns = now;
            i.ctime_ns = now;
            i.nlink = i.nlink.saturating_sub(to_dp) + to_sp;
        })?;
        if dp != sp {
            self.iupdate(dp, |i| {
                i.mtime_ns = now;
                i.ctime_ns = now;
                i.nlink = i.nlink.saturating_sub(to_sp) + to_dp;
            })?;
        }
        Ok(())
    }

    /// Fails unless directory `s` may move into directory `dp`: `dp` may
    /// be neither `s` nor inside it.
    fn check_not_inside(&mut self, dp: u32, s: u32) -> Result<()> {
        let mut cur = dp;
        for _ in 0..=self.st.sb.inode_count {
            if cur == s {
                return Err(FsError::Invalid(
                    "a directory cannot be moved into itself".into(),
                ));
            }
            if cur == ROOT_INO {
                return Ok(());
            }
            cur = self.entry_inode(cur)?.parent;
        }
        if cur != ROOT_INO {
            return Err(corrupt(
                "a directory's parent chain does not reach the root",
            ));
        }
        Ok(())
    }

    /// The part of a checked rename that is never split: the source entry
    /// `sp/name` (inode `s` of kind `s_kind`) leaves, `dp/newname` names
    /// it (retargeted when it named `t`, the target inode and whether it
    /// is a directory), and the inodes' links and times follow.
    fn rename_entries(
        &mut self,
        sp: u32,
        name: &[u8],
        dp: u32,
        newname: &[u8],
        (s, s_kind): (u32, FileType),
        t: Option<(u32, bool)>,
    ) -> Result<()> {
        let now = self.now();
        if let (Some((t_ino, false)), Some(FsMutant::RenameOverAsUnlinkLink)) = (t, self.st.mutant)
        {
            // Mutant: unlink the target and commit that step, then link
            // the source under the freed name (as a rename to a new name).
            let ddir = self.st.iget(dp)?;
            let d = self
                .dir_find(dp, &ddir, newname)?
                .ok_or_else(|| FsError::Internal("rename target vanished".into()))?;
            self.dir_remove(dp, &d, newname)?;
            let ti = self.iupdate(t_ino, |i| {
                i.nlink = i.nlink.saturating_sub(1);
                i.ctime_ns = now;
            })?;
            self.st.commit_step()?;
            self.rename_entries(sp, name, dp, newname, (s, s_kind), None)?;
            if ti.nlink == 0 && !self.is_open(t_ino) {
                self.free_inode(t_ino)?;
            }
            return Ok(());
        }
        let sdir = self.st.iget(sp)?;
        let src = self
            .dir_find(sp, &sdir, name)?
            .ok_or_else(|| FsError::Internal("rename source vanished".into()))?;
        self.dir_remove(sp, &src, name)?;
        let ddir = self.st.iget(dp)?;
        match t {
            Some(_) => {
                let d = self
                    .dir_find(dp, &ddir, newname)?
                    .ok_or_else(|| FsError::Internal("rename target vanished".into()))?;
                self.st
                    .meta_edit(d.phys, |b| dir::retarget(b, d.rec, s, s_kind.code() as u8))?;
            }
            None => {
                let room = self
                    .dir_space(dp, &ddir, newname.len())?
                    .ok_or_else(|| FsError::Internal("rename lost the room it made".into()))?;
                self.dir_insert(dp, room, s, s_kind, newname)?;
            }
        }
        let moved_dir = s_kind == FileType::Directory && sp != dp;
        self.iupdate(s, |i| {
            i.ctime_ns = now;
            if moved_dir {
                i.parent = dp;
            }
        })?;
        if let Some((t_ino, t_dir)) = t {
            self.iupdate(t_ino, |i| {
                i.nlink = if t_dir { 0 } else { i.nlink.saturating_sub(1) };
                i.ctime_ns = now;
            })?;
        }
        let t_dir = t.is_some_and(|(_, d)| d);
        self.iupdate(sp, |i| {
            i.mtime_ns = now;
            i.ctime_ns = now;
            if moved_dir {
                i.nlink = i.nlink.saturating_sub(1);
            }
        })?;
        self.iupdate(dp, |i| {
            i.mtime_ns = now;
            i.ctime_ns = now;
            if moved_dir {
                i.nlink += 1;
            }
            if t_dir {
                i.nlink = i.nlink.saturating_sub(1);
            }
        })?;

        if let Some((t_ino, _)) = t {
            if self.st.iget(t_ino)?.nlink == 0 && !self.is_open(t_ino) {
                self.free_inode(t_ino)?;
            }
        }
        Ok(())
    }

    /// Lists directory `ino` from cookie `offset` (0 = the start): `.`,
    /// `..`, then the entries in on-disk order. `add` receives each entry
    /// and returns `true` when it can take no more (as fuser's
    /// `ReplyDirectory::add` does); an entry it refused is not consumed —
    /// pass the `next_offset` of the last entry it took to continue.
    /// Cookies stay valid while entries are added and removed: each is the
    /// entry's byte position in the directory (+3), and records never move.
    pub fn readdir(
        &mut self,
        ino: u64,
        offset: u64,
        mut add: impl FnMut(DirEntry) -> bool,
    ) -> Result<()> {
        let (dino, dir) = self.dir_inode(ino)?;
        if offset == 0
            && add(DirEntry {
                ino: u64::from(dino),
                next_offset: 1,
                kind: FileType::Directory,
                name: b".".to_vec(),
            })
        {
            return Ok(());
        }
        if offset <= 1
            && add(DirEntry {
                ino: u64::from(dir.parent),
                next_offset: 2,
                kind: FileType::Directory,
                name: b"..".to_vec(),
            })
        {
            return Ok(());
        }
        let from = offset.saturating_sub(2);
        for idx in from / BS..Self::dir_len(&dir)? {
            let (phys, recs) = self.dir_block(&dir, idx)?;
            let blk = self.st.meta(phys)?;
            let mut entries = Vec::new();
            for r in recs {
                let pos = idx * BS + r.pos as u64;
                if r.ino == 0 || pos < from {
                    continue;
                }
                let kind = FileType::from_code(u16::from(r.file_type)).ok_or_else(|| {
                    corrupt(format!(
                        "directory entry at byte {pos} has file type {}",
                        r.file_type
                    ))
                })?;
                entries.push(DirEntry {
                    ino: u64::from(r.ino),
                    next_offset: pos + 3,
                    kind,
                    name: r.name(blk).to_vec(),
                });
            }
            for e in entries {
                if add(e) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Every entry of directory `ino`, `.` and `..` included.
    pub fn readdir_all(&mut self, ino: u64) -> Result<Vec<DirEntry>> {
        let mut out = Vec::new();
        self.readdir(ino, 0, |e| {
            out.push(e);
            false
        })?;
        Ok(out)
    }
}
