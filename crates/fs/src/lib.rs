//! An xv6-like file system over any [`ftl::BlockDevice`], after the SCFTL
//! paper's §7.3: the same on-disk layout mounted in one of three commit
//! modes — `log` (xv6's write-ahead log, crash safe on every FTL), `xlog`
//! (no log, one flush per call) and `group` (no log, calls grouped into the
//! device's epoch) — the last two crash safe only because SCFTL's flush is
//! an atomic snapshot.
//!
//! What it is: 4 KiB blocks; a superblock, a log region (in every image, so
//! any mount may pick any mode), inode and block bitmaps, an inode table of
//! 256-byte inodes (12 direct, one single-, one double- and one
//! triple-indirect pointer: files up to about 4 TiB; format version 1,
//! without the last, up to about 4 GiB, see [`Fs::upgrade`]) and ext2-style directory blocks with names up to
//! 255 bytes. Layout: docs/FORMAT.md §7; design: ARCHITECTURE.md "fs".
//!
//! What it promises: every mutating call is a transaction (split into
//! consistent steps only when it is larger than a step may be), committed
//! per the mode's contract; no input and no corrupt image makes it panic —
//! errors are [`FsError`] values with an errno for FUSE; [`fsck`] checks an
//! image without writing to it, and [`repair`] fixes what has one safe fix.
//!
//! What it must never do: touch files, sockets or threads (the FUSE layer
//! owns those, and calls [`Fs::tick`] for the idle flush), or let `xlog` and
//! `group` run on a device that is not snapshot-consistent. Its only clocks
//! are the mount's [`Clock`] (inode times) and `Instant::now()` to note when
//! the last unflushed step was written.
//!
//! The API is inode-number based and shaped for `fuser`'s low-level
//! `Filesystem` trait: [`Fs::lookup`], [`Fs::getattr`], [`Fs::setattr`],
//! [`Fs::create`], [`Fs::mknod`], [`Fs::mkdir`], [`Fs::symlink`],
//! [`Fs::readlink`], [`Fs::link`], [`Fs::unlink`], [`Fs::rmdir`],
//! [`Fs::rename`], [`Fs::open`], [`Fs::read`], [`Fs::write`],
//! [`Fs::release`], [`Fs::hold`], [`Fs::forget`], [`Fs::fsync`], [`Fs::fsyncdir`], [`Fs::readdir`],
//! [`Fs::statfs`], [`Fs::fallocate`], [`Fs::seek`], [`Fs::getxattr`],
//! [`Fs::setxattr`], [`Fs::listxattr`], [`Fs::removexattr`], plus [`mkfs`], [`Fs::mount`], [`Fs::sync`],
//! [`Fs::tick`] and [`Fs::unmount`].

mod alloc;
mod attr;
mod bmap;
mod cache;
pub mod codec;
mod commit;
pub mod dir;
mod dirindex;
mod error;
mod file;
mod fs;
mod fsck;
pub mod inode;
pub mod layout;
pub mod logfmt;
mod mkfs;
mod mode;
pub mod model;
mod namei;
mod space;
mod store;
pub mod xattr;

pub use attr::{
    Attr, DirEntry, Owner, SetAttr, StatFs, TimeSet, RENAME_EXCHANGE, RENAME_NOREPLACE,
};
pub use error::{errno, FsError, Result};
pub use fs::{min_step_sectors, Fs, MountError, LINK_MAX, MIN_STEP_BLOCKS, WEAR_POLICY};
pub use fsck::{
    describe_blocks, fsck, repair, FsckCounts, FsckReport, Problem, ProblemKind, RepairReport,
};
pub use inode::FileType;
pub use layout::{Superblock, BLOCK_SIZE, FS_VERSION, MAX_FILE_SIZE, NAME_MAX, ROOT_INO};
pub use mkfs::{mkfs, MkfsOptions};
pub use mode::{
    ns_to_system_time, system_time_ns, Clock, CommitMode, FixedClock, FsMutant, MountOptions,
    SystemClock,
};
pub use namei::SYMLINK_MAX;
pub use space::{Seek, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE};
pub use store::{Budget, FsStats};
pub use xattr::{ACL_ACCESS, ACL_DEFAULT, XATTR_CREATE, XATTR_REPLACE};
