//! The values the public API exchanges with its caller (shaped after the
//! `fuser` crate's low-level interface): attributes, attribute changes,
//! directory entries and file-system statistics.

use std::time::SystemTime;

use serde::Serialize;

use crate::inode::{FileType, Inode};
use crate::layout::{BLOCK_SIZE, NAME_MAX};
use crate::mode::ns_to_system_time;

/// An inode's attributes (what `getattr` returns).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attr {
    /// Inode number (FUSE's `ino`; the root is 1).
    pub ino: u64,
    /// Changes each time an inode number is reused (FUSE's generation).
    pub generation: u64,
    pub kind: FileType,
    /// Permission bits (`0o7777`).
    pub perm: u16,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    /// 512-byte units allocated (data and pointer blocks).
    pub blocks: u64,
    pub atime_ns: i128,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub rdev: u32,
    /// Preferred I/O size.
    pub blksize: u32,
}

impl Attr {
    pub(crate) fn from_inode(ino: u32, i: &Inode, kind: FileType) -> Attr {
        Attr {
            ino: u64::from(ino),
            generation: u64::from(i.generation),
            kind,
            perm: i.perm,
            nlink: i.nlink,
            uid: i.uid,
            gid: i.gid,
            size: i.size,
            blocks: u64::from(i.blocks) * (BLOCK_SIZE as u64 / 512),
            atime_ns: i.atime_ns,
            mtime_ns: i.mtime_ns,
            ctime_ns: i.ctime_ns,
            rdev: i.rdev,
            blksize: BLOCK_SIZE as u32,
        }
    }

    /// `st_mode`: type bits and permission bits.
    pub fn mode(&self) -> u32 {
        self.kind.mode_bits() | u32::from(self.perm)
    }

    pub fn atime(&self) -> SystemTime {
        ns_to_system_time(self.atime_ns)
    }

    pub fn mtime(&self) -> SystemTime {
        ns_to_system_time(self.mtime_ns)
    }

    pub fn ctime(&self) -> SystemTime {
        ns_to_system_time(self.ctime_ns)
    }
}

/// A timestamp to set: now (by the file system's clock) or a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSet {
    Now,
    /// Nanoseconds since the Unix epoch.
    At(i128),
}

/// What `setattr` changes; `None` leaves a field alone. The change time is
/// set to now whenever anything changes, unless `ctime` gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetAttr {
    /// Permission bits (type bits are ignored).
    pub mode: Option<u32>,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// Truncate or extend (regular files only).
    pub size: Option<u64>,
    pub atime: Option<TimeSet>,
    pub mtime: Option<TimeSet>,
    pub ctime: Option<i128>,
}

/// Who creates an inode, and with which permission bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    pub uid: u32,
    pub gid: u32,
    /// Bits taken from a new inode's mode unless its directory has a
    /// default ACL (then the ACL masks it instead). 0 where the caller
    /// applied the umask already (the kernel does, unless the FUSE mount
    /// negotiated POSIX ACLs).
    pub umask: u32,
}

impl Owner {
    pub const ROOT: Owner = Owner::new(0, 0);

    /// `uid`/`gid` with no umask left to apply.
    pub const fn new(uid: u32, gid: u32) -> Owner {
        Owner { uid, gid, umask: 0 }
    }
}

/// One entry `readdir` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DirEntry {
    pub ino: u64,
    /// Pass this to the next `readdir` to continue after this entry.
    pub next_offset: u64,
    pub kind: FileType,
    pub name: Vec<u8>,
}

/// File-system statistics (what `statfs` returns).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatFs {
    /// Blocks in the file system, of `block_size` bytes.
    pub blocks: u64,
    pub blocks_free: u64,
    /// Free blocks available to unprivileged users (no reserve: = free).
    pub blocks_available: u64,
    pub files: u64,
    pub files_free: u64,
    pub block_size: u32,
    pub name_max: u32,
    pub fragment_size: u32,
}

impl StatFs {
    pub(crate) fn new(blocks: u64, free: u64, files: u64, files_free: u64) -> StatFs {
        StatFs {
            blocks,
            blocks_free: free,
            blocks_available: free,
            files,
            files_free,
            block_size: BLOCK_SIZE as u32,
            name_max: NAME_MAX as u32,
            fragment_size: BLOCK_SIZE as u32,
        }
    }
}

/// `rename` flags (Linux values).
pub const RENAME_NOREPLACE: u32 = 1;
pub const RENAME_EXCHANGE: u32 = 2;
