//! An in-memory index of directories, so that a lookup, a create or an
//! unlink in a directory of n entries reads one directory block, not n/150.
//!
//! The index is derived state: built from a directory's blocks the first
//! time a call looks into it after mount (one linear scan), kept in step
//! with every change `namei.rs` makes to the directory's blocks, and thrown
//! away whole when a call fails (its open step is aborted, so the cache
//! returns to the device's state and the index might not). Nothing of it
//! reaches the disk: the on-disk format and its crash behaviour are those
//! of docs/FORMAT.md §7.5, and a crash loses only the index.
//!
//! Invariants, for an indexed directory: `blocks[i]` is the block number of
//! directory block `i` and `blocks.len()` is the directory's length in
//! blocks; `names` holds every live entry's name with the index of the
//! block that holds it; `room[i]` is the largest record block `i` has room
//! for (`rec_len - used`, maximised over its records). Code that finds the
//! index disagreeing with the blocks it points to drops the index and
//! scans instead (see `namei.rs`).
//!
//! Memory: at most [`MAX_NAMES`] names in all (about 100 MiB of names of
//! 50 bytes); past that every index is dropped and rebuilt on demand.

use std::collections::HashMap;

/// Most names kept in all indexes together.
pub const MAX_NAMES: usize = 2 << 20;

/// The index of one directory.
#[derive(Debug, Default)]
pub struct DirIndex {
    pub blocks: Vec<u32>,
    pub room: Vec<u16>,
    pub names: HashMap<Box<[u8]>, u32>,
}

/// The indexes of the directories looked into since mount, by inode.
#[derive(Debug, Default)]
pub struct DirIndexes {
    dirs: HashMap<u32, DirIndex>,
    names: usize,
}

impl DirIndexes {
    pub fn get(&self, dino: u32) -> Option<&DirIndex> {
        self.dirs.get(&dino)
    }

    /// Adds a freshly built index; returns false (and keeps nothing) when
    /// it alone is over the memory bound.
    pub fn insert(&mut self, dino: u32, ix: DirIndex) -> bool {
        if ix.names.len() > MAX_NAMES {
            return false;
        }
        if self.names + ix.names.len() > MAX_NAMES {
            self.clear();
        }
        self.names += ix.names.len();
        if let Some(old) = self.dirs.insert(dino, ix) {
            self.names -= old.names.len();
        }
        true
    }

    /// Drops directory `dino`'s index (its inode was freed, or the index
    /// disagrees with its blocks).
    pub fn forget(&mut self, dino: u32) {
        if let Some(old) = self.dirs.remove(&dino) {
            self.names -= old.names.len();
        }
    }

    pub fn clear(&mut self) {
        self.dirs.clear();
        self.names = 0;
    }

    /// Notes `name` added to block `idx` of `dino` (if indexed), whose
    /// largest room is now `room`.
    pub fn added(&mut self, dino: u32, idx: u32, name: &[u8], room: u16) {
        if let Some(ix) = self.dirs.get_mut(&dino) {
            if ix.names.insert(name.into(), idx).is_none() {
                self.names += 1;
            }
            ix.room[idx as usize] = room;
        }
        if self.names > MAX_NAMES {
            self.clear();
        }
    }

    /// Notes `name` removed from block `idx` of `dino` (if indexed), whose
    /// largest room is now `room`.
    pub fn removed(&mut self, dino: u32, idx: u32, name: &[u8], room: u16) {
        if let Some(ix) = self.dirs.get_mut(&dino) {
            if ix.names.remove(name).is_some() {
                self.names -= 1;
            }
            ix.room[idx as usize] = room;
        }
    }

    /// Notes a new, empty block `phys` at the end of `dino` (if indexed).
    pub fn grown(&mut self, dino: u32, phys: u32, room: u16) {
        if let Some(ix) = self.dirs.get_mut(&dino) {
            ix.blocks.push(phys);
            ix.room.push(room);
        }
    }
}
