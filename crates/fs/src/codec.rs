//! Field tables: every on-disk structure of the file system is a list of
//! named fields (offset, size), encoded explicitly in little-endian through
//! these accessors. The same tables are what docs/FORMAT.md §7 lists, and a
//! test compares the two, so the document cannot drift from the code.
//!
//! Invariant: an accessor's width equals the field's `size` (checked in
//! debug builds); callers pass a buffer at least as long as the structure.

/// One field of an on-disk structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The name docs/FORMAT.md uses.
    pub name: &'static str,
    /// Byte offset from the start of the structure.
    pub offset: usize,
    /// Width in bytes.
    pub size: usize,
}

impl Field {
    pub const fn new(name: &'static str, offset: usize, size: usize) -> Field {
        Field { name, offset, size }
    }

    /// One past the field's last byte.
    pub const fn end(&self) -> usize {
        self.offset + self.size
    }

    /// The field's bytes.
    pub fn bytes<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        &buf[self.offset..self.end()]
    }

    /// The field's bytes, mutably.
    pub fn bytes_mut<'a>(&self, buf: &'a mut [u8]) -> &'a mut [u8] {
        &mut buf[self.offset..self.end()]
    }

    pub fn get_u8(&self, buf: &[u8]) -> u8 {
        debug_assert_eq!(self.size, 1, "{}", self.name);
        buf[self.offset]
    }

    pub fn get_u16(&self, buf: &[u8]) -> u16 {
        debug_assert_eq!(self.size, 2, "{}", self.name);
        u16::from_le_bytes([buf[self.offset], buf[self.offset + 1]])
    }

    pub fn get_u32(&self, buf: &[u8]) -> u32 {
        debug_assert_eq!(self.size, 4, "{}", self.name);
        let mut b = [0u8; 4];
        b.copy_from_slice(self.bytes(buf));
        u32::from_le_bytes(b)
    }

    pub fn get_u64(&self, buf: &[u8]) -> u64 {
        debug_assert_eq!(self.size, 8, "{}", self.name);
        let mut b = [0u8; 8];
        b.copy_from_slice(self.bytes(buf));
        u64::from_le_bytes(b)
    }

    pub fn get_i64(&self, buf: &[u8]) -> i64 {
        self.get_u64(buf) as i64
    }

    pub fn put_u8(&self, buf: &mut [u8], v: u8) {
        debug_assert_eq!(self.size, 1, "{}", self.name);
        buf[self.offset] = v;
    }

    pub fn put_u16(&self, buf: &mut [u8], v: u16) {
        debug_assert_eq!(self.size, 2, "{}", self.name);
        self.bytes_mut(buf).copy_from_slice(&v.to_le_bytes());
    }

    pub fn put_u32(&self, buf: &mut [u8], v: u32) {
        debug_assert_eq!(self.size, 4, "{}", self.name);
        self.bytes_mut(buf).copy_from_slice(&v.to_le_bytes());
    }

    pub fn put_u64(&self, buf: &mut [u8], v: u64) {
        debug_assert_eq!(self.size, 8, "{}", self.name);
        self.bytes_mut(buf).copy_from_slice(&v.to_le_bytes());
    }

    pub fn put_i64(&self, buf: &mut [u8], v: i64) {
        self.put_u64(buf, v as u64);
    }
}

/// A table as `(name, offset, size)` triples, the shape
/// `formatdoc::assert_fields` compares.
pub fn triples(table: &[Field]) -> Vec<(&'static str, usize, usize)> {
    table.iter().map(|f| (f.name, f.offset, f.size)).collect()
}

/// Checks that a table's fields are in offset order, do not overlap and end
/// at `len`; used by the unit tests of each structure.
#[cfg(test)]
pub fn assert_contiguous(table: &[Field], len: usize) {
    let mut at = 0;
    for f in table {
        assert_eq!(f.offset, at, "field {} starts at {}", f.name, f.offset);
        at = f.end();
    }
    assert_eq!(at, len);
}

/// Little-endian u32 at byte `off` of `buf` (for arrays such as block
/// pointers, which are not named fields).
pub fn u32_at(buf: &[u8], off: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[off..off + 4]);
    u32::from_le_bytes(b)
}

/// Stores a little-endian u32 at byte `off` of `buf`.
pub fn put_u32_at(buf: &mut [u8], off: usize, v: u32) {
    buf[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
