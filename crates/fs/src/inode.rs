//! The on-disk inode (docs/FORMAT.md §7.4): 256 bytes, 16 per table block,
//! sealed with a CRC32C of its first 252 bytes.
//!
//! Invariants of an allocated inode (fsck checks them, decode checks the
//! local ones): `kind` is not `Free`; the CRC matches; only a regular file
//! maps data blocks at a file-block index at or past `ceil(size / 4096)`
//! (preallocated, reading as zeros); the reserved bytes are zero in every
//! inode this build writes; `blocks`
//! counts the data and pointer blocks mapped; a directory's size is a
//! multiple of 4096 with every block mapped, its `parent` names the
//! directory holding its entry (itself for the root) and its `nlink` is 2 +
//! its subdirectories; a symlink's size is 1..=4095 with one data block.
//! Bytes of the file past `size` are undefined on disk: every size increase
//! zeroes the gap in the block that held the old end of file.

use serde::Serialize;

use crate::codec::{u32_at, Field};
use crate::error::{corrupt, Result};
use crate::layout::{INODE_SIZE, NDIRECT};

pub const I_KIND: Field = Field::new("kind", 0, 2);
pub const I_PERM: Field = Field::new("perm", 2, 2);
pub const I_NLINK: Field = Field::new("nlink", 4, 4);
pub const I_UID: Field = Field::new("uid", 8, 4);
pub const I_GID: Field = Field::new("gid", 12, 4);
pub const I_SIZE: Field = Field::new("size", 16, 8);
pub const I_ATIME: Field = Field::new("atime_ns", 24, 8);
pub const I_MTIME: Field = Field::new("mtime_ns", 32, 8);
pub const I_CTIME: Field = Field::new("ctime_ns", 40, 8);
pub const I_PARENT: Field = Field::new("parent", 48, 4);
pub const I_GENERATION: Field = Field::new("generation", 52, 4);
pub const I_BLOCKS: Field = Field::new("blocks", 56, 4);
pub const I_RDEV: Field = Field::new("rdev", 60, 4);
pub const I_DIRECT: Field = Field::new("direct", 64, 4 * NDIRECT);
pub const I_INDIRECT: Field = Field::new("indirect", 112, 4);
pub const I_DINDIRECT: Field = Field::new("double_indirect", 116, 4);
pub const I_TINDIRECT: Field = Field::new("triple_indirect", 120, 4);
pub const I_XATTR: Field = Field::new("xattr", 124, 4);
pub const I_ATIME_HI: Field = Field::new("atime_hi", 128, 4);
pub const I_MTIME_HI: Field = Field::new("mtime_hi", 132, 4);
pub const I_CTIME_HI: Field = Field::new("ctime_hi", 136, 4);
pub const I_RESERVED: Field = Field::new("reserved", 140, 112);
pub const I_CRC: Field = Field::new("crc", 252, 4);

/// The inode's fields in order (the table of FORMAT.md §7.4).
pub const INODE_FIELDS: &[Field] = &[
    I_KIND,
    I_PERM,
    I_NLINK,
    I_UID,
    I_GID,
    I_SIZE,
    I_ATIME,
    I_MTIME,
    I_CTIME,
    I_PARENT,
    I_GENERATION,
    I_BLOCKS,
    I_RDEV,
    I_DIRECT,
    I_INDIRECT,
    I_DINDIRECT,
    I_TINDIRECT,
    I_XATTR,
    I_ATIME_HI,
    I_MTIME_HI,
    I_CTIME_HI,
    I_RESERVED,
    I_CRC,
];

/// What an inode is (its on-disk `kind` code in parentheses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FileType {
    /// (1)
    RegularFile,
    /// (2)
    Directory,
    /// (3)
    Symlink,
    /// (4)
    CharDevice,
    /// (5)
    BlockDevice,
    /// (6)
    NamedPipe,
    /// (7)
    Socket,
}

impl FileType {
    pub const ALL: [FileType; 7] = [
        FileType::RegularFile,
        FileType::Directory,
        FileType::Symlink,
        FileType::CharDevice,
        FileType::BlockDevice,
        FileType::NamedPipe,
        FileType::Socket,
    ];

    /// The on-disk code (also used in directory entries); 0 means free.
    pub fn code(self) -> u16 {
        match self {
            FileType::RegularFile => 1,
            FileType::Directory => 2,
            FileType::Symlink => 3,
            FileType::CharDevice => 4,
            FileType::BlockDevice => 5,
            FileType::NamedPipe => 6,
            FileType::Socket => 7,
        }
    }

    pub fn from_code(code: u16) -> Option<FileType> {
        FileType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The `S_IFMT` bits of `st_mode`.
    pub fn mode_bits(self) -> u32 {
        match self {
            FileType::RegularFile => 0o100000,
            FileType::Directory => 0o040000,
            FileType::Symlink => 0o120000,
            FileType::CharDevice => 0o020000,
            FileType::BlockDevice => 0o060000,
            FileType::NamedPipe => 0o010000,
            FileType::Socket => 0o140000,
        }
    }

    /// The type named by the `S_IFMT` bits of `mode` (0 means a regular
    /// file, as `mknod` treats it).
    pub fn from_mode(mode: u32) -> Option<FileType> {
        match mode & 0o170000 {
            0 => Some(FileType::RegularFile),
            fmt => FileType::ALL.into_iter().find(|t| t.mode_bits() == fmt),
        }
    }

    /// Whether the inode's data blocks hold bytes (regular files, symlinks
    /// and directories do; device nodes, pipes and sockets have none).
    pub fn has_data(self) -> bool {
        matches!(
            self,
            FileType::RegularFile | FileType::Directory | FileType::Symlink
        )
    }
}

/// An inode, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inode {
    /// `None`: a free slot.
    pub kind: Option<FileType>,
    /// Permission bits (`0o7777`).
    pub perm: u16,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    /// Times in nanoseconds since the Unix epoch. Version 3 stores 96
    /// bits (the 64-bit field plus a 32-bit high word); earlier versions
    /// hold what fits in an `i64` (until the year 2262).
    pub atime_ns: i128,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    /// Directories: the directory holding this one's entry.
    pub parent: u32,
    /// Incremented each time the slot is reused (FUSE generation number).
    pub generation: u32,
    /// Data and pointer blocks mapped.
    pub blocks: u32,
    /// Device number of character and block devices.
    pub rdev: u32,
    pub direct: [u32; NDIRECT],
    pub indirect: u32,
    pub double_indirect: u32,
    /// Version 2: a block of 1024 double-indirect blocks, for file blocks
    /// past the double-indirect range. Version 1 has reserved bytes here,
    /// which `Store::iget` reads as 0.
    pub triple_indirect: u32,
    /// Version 3: the block holding the inode's extended attributes
    /// (`xattr.rs`, FORMAT.md §7.7), 0 for none. Counted in `blocks`.
    pub xattr: u32,
}

impl Inode {
    /// A free slot.
    pub fn free(generation: u32) -> Inode {
        Inode {
            kind: None,
            perm: 0,
            nlink: 0,
            uid: 0,
            gid: 0,
            size: 0,
            atime_ns: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            parent: 0,
            generation,
            blocks: 0,
            rdev: 0,
            direct: [0; NDIRECT],
            indirect: 0,
            double_indirect: 0,
            triple_indirect: 0,
            xattr: 0,
        }
    }

    /// A new inode of `kind` owned by `uid`/`gid`, all three times `now_ns`,
    /// one link (two for a directory, counting its own `.`), no blocks.
    pub fn new(
        generation: u32,
        kind: FileType,
        perm: u32,
        uid: u32,
        gid: u32,
        now_ns: i128,
    ) -> Inode {
        Inode {
            kind: Some(kind),
            perm: (perm & 0o7777) as u16,
            nlink: if kind == FileType::Directory { 2 } else { 1 },
            uid,
            gid,
            atime_ns: now_ns,
            mtime_ns: now_ns,
            ctime_ns: now_ns,
            ..Inode::free(generation)
        }
    }

    /// The inode's type; a free inode reads as an error (callers only ask
    /// about allocated inodes).
    pub fn file_type(&self) -> Result<FileType> {
        self.kind
            .ok_or_else(|| corrupt("an allocated inode is marked free"))
    }

    pub fn is_dir(&self) -> bool {
        self.kind == Some(FileType::Directory)
    }

    /// Encodes into a 256-byte slot (CRC sealed).
    pub fn encode(&self, out: &mut [u8]) {
        let out = &mut out[..INODE_SIZE];
        out.fill(0);
        I_KIND.put_u16(out, self.kind.map_or(0, FileType::code));
        I_PERM.put_u16(out, self.perm & 0o7777);
        I_NLINK.put_u32(out, self.nlink);
        I_UID.put_u32(out, self.uid);
        I_GID.put_u32(out, self.gid);
        I_SIZE.put_u64(out, self.size);
        for (t, lo, hi) in [
            (self.atime_ns, I_ATIME, I_ATIME_HI),
            (self.mtime_ns, I_MTIME, I_MTIME_HI),
            (self.ctime_ns, I_CTIME, I_CTIME_HI),
        ] {
            let (l, h) = split_time(t);
            lo.put_i64(out, l);
            hi.put_u32(out, h as u32);
        }
        I_PARENT.put_u32(out, self.parent);
        I_GENERATION.put_u32(out, self.generation);
        I_BLOCKS.put_u32(out, self.blocks);
        I_RDEV.put_u32(out, self.rdev);
        for (i, p) in self.direct.iter().enumerate() {
            let off = I_DIRECT.offset + 4 * i;
            out[off..off + 4].copy_from_slice(&p.to_le_bytes());
        }
        I_INDIRECT.put_u32(out, self.indirect);
        I_DINDIRECT.put_u32(out, self.double_indirect);
        I_TINDIRECT.put_u32(out, self.triple_indirect);
        I_XATTR.put_u32(out, self.xattr);
        // Whatever the slot held before (mkfs does not clear the table).
        out[I_RESERVED.offset..I_RESERVED.end()].fill(0);
        let crc = crc32c::crc32c(&out[..I_CRC.offset]);
        I_CRC.put_u32(out, crc);
    }

    /// Decodes a 256-byte slot; a bad CRC or an unknown kind is corruption.
    pub fn decode(ino: u32, b: &[u8]) -> Result<Inode> {
        let b = &b[..INODE_SIZE];
        if crc32c::crc32c(&b[..I_CRC.offset]) != I_CRC.get_u32(b) {
            return Err(corrupt(format!("inode {ino}: CRC mismatch")));
        }
        let code = I_KIND.get_u16(b);
        let kind = match code {
            0 => None,
            c => Some(
                FileType::from_code(c)
                    .ok_or_else(|| corrupt(format!("inode {ino}: unknown kind {c}")))?,
            ),
        };
        let mut direct = [0u32; NDIRECT];
        for (i, p) in direct.iter_mut().enumerate() {
            *p = u32_at(b, I_DIRECT.offset + 4 * i);
        }
        Ok(Inode {
            kind,
            perm: I_PERM.get_u16(b) & 0o7777,
            nlink: I_NLINK.get_u32(b),
            uid: I_UID.get_u32(b),
            gid: I_GID.get_u32(b),
            size: I_SIZE.get_u64(b),
            atime_ns: join_time(I_ATIME.get_i64(b), I_ATIME_HI.get_u32(b) as i32),
            mtime_ns: join_time(I_MTIME.get_i64(b), I_MTIME_HI.get_u32(b) as i32),
            ctime_ns: join_time(I_CTIME.get_i64(b), I_CTIME_HI.get_u32(b) as i32),
            parent: I_PARENT.get_u32(b),
            generation: I_GENERATION.get_u32(b),
            blocks: I_BLOCKS.get_u32(b),
            rdev: I_RDEV.get_u32(b),
            direct,
            indirect: I_INDIRECT.get_u32(b),
            double_indirect: I_DINDIRECT.get_u32(b),
            triple_indirect: I_TINDIRECT.get_u32(b),
            xattr: I_XATTR.get_u32(b),
        })
    }

    /// Decodes a slot of a file system of format `version`: version 1 has
    /// reserved bytes (possibly old garbage) where version 2 keeps the
    /// triple-indirect pointer, and versions 1 and 2 where version 3 keeps
    /// the xattr pointer and the times' high words, so they read as 0 there.
    pub fn decode_in(ino: u32, b: &[u8], version: u32) -> Result<Inode> {
        let mut i = Inode::decode(ino, b)?;
        if version < 2 {
            i.triple_indirect = 0;
        }
        if version < 3 {
            i.xattr = 0;
            i.atime_ns = i128::from(I_ATIME.get_i64(b));
            i.mtime_ns = i128::from(I_MTIME.get_i64(b));
            i.ctime_ns = i128::from(I_CTIME.get_i64(b));
        }
        Ok(i)
    }

    /// Whether every time fits the 64-bit fields of versions 1 and 2.
    pub fn times_fit_i64(&self) -> bool {
        [self.atime_ns, self.mtime_ns, self.ctime_ns]
            .iter()
            .all(|&t| i64::try_from(t).is_ok())
    }

    /// The generation a slot's next occupant gets: one past the slot's
    /// current one if it decodes, else 1 (a never-used or garbage slot).
    pub fn next_generation(ino: u32, slot: &[u8]) -> u32 {
        Inode::decode(ino, slot)
            .map(|i| i.generation.wrapping_add(1).max(1))
            .unwrap_or(1)
    }
}

/// The range version 3 stores: about 96-bit signed nanoseconds (±1.25
/// million million years; every `timespec` a 64-bit kernel passes fits),
/// exactly `lo + hi * 2^64` with both words signed, bounded here to whole
/// multiples of 2^64 at both ends.
pub const TIME_MIN: i128 = -(1i128 << 95);
pub const TIME_MAX: i128 = (1i128 << 95) - (1i128 << 64);

/// Splits a time into its 64-bit field and high word: `t = lo + hi * 2^64`
/// with `lo` the low 64 bits read as signed, so a time that fits an `i64`
/// has `hi` 0 (the encoding of versions 1 and 2). Times outside
/// [`TIME_MIN`]`..=`[`TIME_MAX`] are clamped (callers check first).
pub fn split_time(t: i128) -> (i64, i32) {
    let t = t.clamp(TIME_MIN, TIME_MAX);
    let lo = t as i64;
    let hi = ((t - i128::from(lo)) >> 64) as i32;
    (lo, hi)
}

/// The inverse of [`split_time`].
pub fn join_time(lo: i64, hi: i32) -> i128 {
    i128::from(lo) + (i128::from(hi) << 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::assert_contiguous;

    #[test]
    fn inode_table_is_contiguous_and_round_trips() {
        assert_contiguous(INODE_FIELDS, INODE_SIZE);
        let mut i = Inode::free(3);
        i.kind = Some(FileType::Symlink);
        i.perm = 0o755;
        i.nlink = 2;
        i.size = 1 << 33;
        i.mtime_ns = -5;
        i.direct[11] = 77;
        i.double_indirect = 9;
        let mut b = [0u8; INODE_SIZE];
        i.encode(&mut b);
        assert_eq!(Inode::decode(1, &b).unwrap(), i);
        b[100] ^= 1;
        assert!(Inode::decode(1, &b).is_err());
        assert_eq!(Inode::next_generation(1, &[0u8; INODE_SIZE]), 1);
    }

    #[test]
    fn times_round_trip_across_the_whole_range() {
        for t in [
            0,
            -1,
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            i128::from(i64::MAX) + 1,
            i128::from(i64::MIN) - 1,
            // 9999-12-31T23:59:59.999999999Z
            253_402_300_799_999_999_999,
            -62_135_596_800_000_000_000,
            TIME_MAX,
            TIME_MIN,
        ] {
            let (lo, hi) = split_time(t);
            assert_eq!(join_time(lo, hi), t, "{t}");
            if let Ok(small) = i64::try_from(t) {
                assert_eq!((lo, hi), (small, 0), "{t}: versions 1 and 2 agree");
            }
            let mut i = Inode::new(1, FileType::RegularFile, 0o644, 0, 0, t);
            i.xattr = 99;
            let mut b = [0u8; INODE_SIZE];
            i.encode(&mut b);
            assert_eq!(Inode::decode(1, &b).unwrap(), i);
            let old = Inode::decode_in(1, &b, 2).unwrap();
            assert_eq!(old.xattr, 0);
            assert_eq!(old.mtime_ns, i128::from(lo));
        }
        assert_eq!(join_time(0, 1), 1i128 << 64);
    }

    #[test]
    fn mode_bits_round_trip() {
        for t in FileType::ALL {
            assert_eq!(FileType::from_mode(t.mode_bits() | 0o644), Some(t));
            assert_eq!(FileType::from_code(t.code()), Some(t));
        }
        assert_eq!(FileType::from_mode(0o644), Some(FileType::RegularFile));
    }
}
