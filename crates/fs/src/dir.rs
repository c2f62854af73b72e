//! Directory blocks (docs/FORMAT.md §7.5): each 4096-byte block of a
//! directory is a chain of variable-length records, like ext2's.
//!
//! Invariants of a well-formed block ([`records`] checks them): records
//! start at offset 0 and follow each other with no gap, each `rec_len` is a
//! multiple of 4, at least 8 and at least `8 + name_len`, and the last record
//! ends exactly at 4096; a record with `ino` 0 is unused (only the first
//! record of a block may be unused — elsewhere a removed record is merged
//! into its predecessor); names are 1..=255 bytes, contain neither `/` nor
//! NUL, are not `.` or `..`, and are unique within the directory. `.` and
//! `..` are not stored: the file system presents them from the inode number
//! and the inode's `parent` field.
//!
//! Records never move once written, so a record's byte position in the
//! directory is a stable readdir cookie: inserting splits the slack of an
//! existing record (the new record goes after the live one), and removing
//! merges a record into its predecessor.

use crate::codec::Field;
use crate::error::{corrupt, FsError, Result};
use crate::layout::{BLOCK_SIZE, NAME_MAX};

pub const D_INO: Field = Field::new("ino", 0, 4);
pub const D_REC_LEN: Field = Field::new("rec_len", 4, 2);
pub const D_NAME_LEN: Field = Field::new("name_len", 6, 1);
pub const D_FILE_TYPE: Field = Field::new("file_type", 7, 1);
/// Bytes before the name.
pub const D_HEADER: usize = 8;

/// The record header's fields in order (the table of FORMAT.md §7.5).
pub const DIRENT_FIELDS: &[Field] = &[D_INO, D_REC_LEN, D_NAME_LEN, D_FILE_TYPE];

/// Bytes a record for a `name_len`-byte name needs.
pub fn rec_size(name_len: usize) -> usize {
    (D_HEADER + name_len).next_multiple_of(4)
}

/// One record of a directory block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rec {
    /// Byte offset in the block.
    pub pos: usize,
    pub ino: u32,
    pub rec_len: usize,
    pub name_len: usize,
    pub file_type: u8,
}

impl Rec {
    pub fn name<'a>(&self, block: &'a [u8]) -> &'a [u8] {
        &block[self.pos + D_HEADER..self.pos + D_HEADER + self.name_len]
    }

    /// Bytes the live record uses (0 when unused).
    pub fn used(&self) -> usize {
        if self.ino == 0 {
            0
        } else {
            rec_size(self.name_len)
        }
    }
}

/// Checks a name for an entry being created or looked up.
pub fn check_name(name: &[u8]) -> Result<()> {
    if name.len() > NAME_MAX {
        return Err(FsError::NameTooLong(name.len()));
    }
    if name.is_empty() {
        return Err(FsError::Invalid("empty file name".into()));
    }
    if name.contains(&b'/') || name.contains(&0) {
        return Err(FsError::Invalid(
            "a file name may not contain `/` or NUL".into(),
        ));
    }
    if name == b"." || name == b".." {
        return Err(FsError::Invalid(
            "`.` and `..` cannot be created, removed or renamed".into(),
        ));
    }
    Ok(())
}

/// Every record of a block, in order, or a description of the first broken
/// rule. `pos_in_dir` only labels the message.
pub fn records(block: &[u8], pos_in_dir: u64) -> Result<Vec<Rec>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let bad = |pos: usize, what: &str| {
        corrupt(format!(
            "directory record at byte {}: {what}",
            pos_in_dir + pos as u64
        ))
    };
    while pos < BLOCK_SIZE {
        if pos + D_HEADER > BLOCK_SIZE {
            return Err(bad(pos, "header runs past the block"));
        }
        let h = &block[pos..];
        let rec = Rec {
            pos,
            ino: D_INO.get_u32(h),
            rec_len: usize::from(D_REC_LEN.get_u16(h)),
            name_len: usize::from(D_NAME_LEN.get_u8(h)),
            file_type: D_FILE_TYPE.get_u8(h),
        };
        if rec.rec_len < D_HEADER || rec.rec_len % 4 != 0 || pos + rec.rec_len > BLOCK_SIZE {
            return Err(bad(pos, "bad record length"));
        }
        if rec.ino != 0 {
            if rec.name_len == 0 || rec_size(rec.name_len) > rec.rec_len {
                return Err(bad(pos, "name length does not fit the record"));
            }
            let name = rec.name(block);
            if check_name(name).is_err() {
                return Err(bad(pos, "invalid name"));
            }
        } else if pos != 0 {
            return Err(bad(pos, "unused record not at the start of its block"));
        }
        out.push(rec);
        pos += rec.rec_len;
    }
    Ok(out)
}

/// An empty directory block: one unused record spanning it.
pub fn init_block(block: &mut [u8]) {
    block[..BLOCK_SIZE].fill(0);
    D_REC_LEN.put_u16(block, BLOCK_SIZE as u16);
}

/// Where a record for a `name_len`-byte name fits in a block, if anywhere:
/// `(position of the new record, the record it is carved from)`.
pub fn find_space(recs: &[Rec], name_len: usize) -> Option<(usize, Rec)> {
    let need = rec_size(name_len);
    recs.iter()
        .find(|r| r.rec_len - r.used() >= need)
        .map(|r| (r.pos + r.used(), *r))
}

/// Writes a record for `name` at `at`, carved from `from` (as returned by
/// [`find_space`]). Returns the byte range of the block it changed.
pub fn insert(
    block: &mut [u8],
    at: usize,
    from: Rec,
    ino: u32,
    file_type: u8,
    name: &[u8],
) -> (usize, usize) {
    let new_len = if at == from.pos {
        // An unused first record: take it over whole.
        from.rec_len
    } else {
        let keep = at - from.pos;
        D_REC_LEN.put_u16(&mut block[from.pos..], keep as u16);
        from.rec_len - keep
    };
    let r = &mut block[at..];
    D_INO.put_u32(r, ino);
    D_REC_LEN.put_u16(r, new_len as u16);
    D_NAME_LEN.put_u8(r, name.len() as u8);
    D_FILE_TYPE.put_u8(r, file_type);
    r[D_HEADER..D_HEADER + name.len()].copy_from_slice(name);
    (from.pos, at + D_HEADER + name.len())
}

/// Removes record `rec`, whose predecessor in the block is `prev`. Returns
/// the byte range changed.
pub fn remove(block: &mut [u8], rec: Rec, prev: Option<Rec>) -> (usize, usize) {
    match prev {
        Some(p) => {
            D_REC_LEN.put_u16(&mut block[p.pos..], (p.rec_len + rec.rec_len) as u16);
            (p.pos + D_REC_LEN.offset, p.pos + D_REC_LEN.end())
        }
        None => {
            D_INO.put_u32(&mut block[rec.pos..], 0);
            (rec.pos, rec.pos + D_INO.end())
        }
    }
}

/// Points record `rec` at another inode (rename over an existing name).
/// Returns the byte range changed.
pub fn retarget(block: &mut [u8], rec: Rec, ino: u32, file_type: u8) -> (usize, usize) {
    let r = &mut block[rec.pos..];
    D_INO.put_u32(r, ino);
    D_FILE_TYPE.put_u8(r, file_type);
    (rec.pos, rec.pos + D_HEADER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_keep_the_chain_and_positions() {
        let mut b = vec![0u8; BLOCK_SIZE];
        init_block(&mut b);
        let mut positions = Vec::new();
        for i in 0..40u32 {
            let name = format!("file-{i}-{}", "x".repeat(i as usize * 3 % 200));
            let recs = records(&b, 0).unwrap();
            let Some((at, from)) = find_space(&recs, name.len()) else {
                break;
            };
            insert(&mut b, at, from, i + 10, 1, name.as_bytes());
            positions.push((i + 10, at));
        }
        assert!(positions.len() > 10);
        // Remove every other record; the rest stay where they were.
        for &(ino, _) in positions.iter().step_by(2) {
            let recs = records(&b, 0).unwrap();
            let k = recs.iter().position(|r| r.ino == ino).unwrap();
            let prev = if k == 0 { None } else { Some(recs[k - 1]) };
            remove(&mut b, recs[k], prev);
        }
        let recs = records(&b, 0).unwrap();
        for &(ino, at) in positions.iter().skip(1).step_by(2) {
            assert!(recs.iter().any(|r| r.ino == ino && r.pos == at));
        }
        assert!(recs.iter().all(|r| r.ino == 0 || r.ino % 2 == 1));
    }

    #[test]
    fn garbage_is_refused_not_panicked_on() {
        let mut b = vec![0xA5u8; BLOCK_SIZE];
        assert!(records(&b, 0).is_err());
        b.fill(0);
        assert!(records(&b, 0).is_err());
        init_block(&mut b);
        D_REC_LEN.put_u16(&mut b, 4092);
        assert!(records(&b, 0).is_err());
    }

    #[test]
    fn names_are_checked() {
        assert!(matches!(
            check_name(&[b'a'; 256]),
            Err(FsError::NameTooLong(256))
        ));
        check_name(&[b'a'; 255]).unwrap();
        assert!(check_name(b"a/b").is_err());
        assert!(check_name(b"..").is_err());
        assert!(check_name(b"").is_err());
    }
}
