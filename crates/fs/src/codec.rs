//! Field tables: every on-disk structure of the file system is a list of
//! named fields (offset, size), encoded explicitly in little-endian through
//! the shared `flash::codec::Field` accessors. The same tables are what docs/FORMAT.md §7 lists, and a
//! test compares the two, so the document cannot drift from the code.
//!
//! Invariant: an accessor's width equals the field's `size` (checked in
//! debug builds); callers pass a buffer at least as long as the structure.

/// One field of an on-disk structure: the stack's one little-endian field
/// type (`flash::codec`), so the file system, the FTLs and the flash image
/// encode alike.
pub use flash::codec::{rows, Field};

/// Checks that a table's fields are in offset order, do not overlap and end
/// at `len`; used by the unit tests of each structure.
#[cfg(test)]
pub fn assert_contiguous(table: &[Field], len: usize) {
    if let Err(e) = flash::codec::check_table(table, len) {
        panic!("{e}");
    }
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
