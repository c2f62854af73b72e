//! The project's one little-endian codec (the crates above reuse it): a fixed-layout structure is a
//! table of [`Field`]s (name, byte offset, size), and integers are read and
//! written at a field explicitly in little-endian, never through a `repr(C)`
//! layout. The image header (`file::header`) is built on it, and so are the
//! FTLs' on-flash records (`ftl::codec` adds their table macro).
//!
//! Invariants a table keeps (checked by [`check_table`]): fields are listed
//! in offset order and tile the structure exactly, with no gap and no
//! overlap, so every byte has exactly one name.

use std::ops::Range;

/// One field of a fixed-layout structure: name, byte offset and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub offset: usize,
    pub size: usize,
}

impl Field {
    /// A field of `size` bytes at `offset`.
    pub const fn new(name: &'static str, offset: usize, size: usize) -> Field {
        Field { name, offset, size }
    }

    /// One past the field's last byte.
    pub const fn end(self) -> usize {
        self.offset + self.size
    }

    /// The same field of a record that starts `base` bytes into the buffer
    /// (entry `i` of an array of records).
    #[inline]
    pub const fn at(self, base: usize) -> Field {
        Field::new(self.name, base + self.offset, self.size)
    }

    /// The bytes the field occupies.
    pub const fn range(self) -> Range<usize> {
        self.offset..self.end()
    }

    /// The field's bytes in `buf`.
    ///
    /// Panics if `buf` is shorter than [`Field::end`]: callers check the
    /// length of what they decode once, before reading any field.
    pub fn bytes(self, buf: &[u8]) -> &[u8] {
        &buf[self.range()]
    }

    /// The field's bytes in `buf`, for writing (panics like [`Field::bytes`]).
    pub fn bytes_mut(self, buf: &mut [u8]) -> &mut [u8] {
        &mut buf[self.range()]
    }

    /// Writes raw bytes (magic numbers) of exactly the field's size.
    pub fn put_bytes(self, buf: &mut [u8], value: &[u8]) {
        self.bytes_mut(buf).copy_from_slice(value);
    }

    /// Reads an integer of exactly `N` bytes. A field of another size is a
    /// bug in the table, not bad input, hence a debug assertion (kept on in
    /// the profile the crash checker runs).
    #[inline]
    fn get<const N: usize>(self, buf: &[u8]) -> [u8; N] {
        debug_assert_eq!(self.size, N, "field `{}` is not {N} bytes", self.name);
        let mut out = [0u8; N];
        out.copy_from_slice(&buf[self.offset..self.offset + N]);
        out
    }

    #[inline]
    fn put<const N: usize>(self, buf: &mut [u8], value: [u8; N]) {
        debug_assert_eq!(self.size, N, "field `{}` is not {N} bytes", self.name);
        buf[self.offset..self.offset + N].copy_from_slice(&value);
    }

    /// The byte at this 1-byte field.
    #[inline]
    pub fn get_u8(self, buf: &[u8]) -> u8 {
        u8::from_le_bytes(self.get(buf))
    }

    /// The little-endian `u16` at this 2-byte field.
    #[inline]
    pub fn get_u16(self, buf: &[u8]) -> u16 {
        u16::from_le_bytes(self.get(buf))
    }

    /// The little-endian `u32` at this 4-byte field.
    #[inline]
    pub fn get_u32(self, buf: &[u8]) -> u32 {
        u32::from_le_bytes(self.get(buf))
    }

    /// The little-endian `u64` at this 8-byte field.
    #[inline]
    pub fn get_u64(self, buf: &[u8]) -> u64 {
        u64::from_le_bytes(self.get(buf))
    }

    /// Writes `value` into this 1-byte field.
    #[inline]
    pub fn put_u8(self, buf: &mut [u8], value: u8) {
        self.put(buf, [value]);
    }

    /// Writes `value` little-endian into this 2-byte field.
    #[inline]
    pub fn put_u16(self, buf: &mut [u8], value: u16) {
        self.put(buf, value.to_le_bytes());
    }

    /// Writes `value` little-endian into this 4-byte field.
    #[inline]
    pub fn put_u32(self, buf: &mut [u8], value: u32) {
        self.put(buf, value.to_le_bytes());
    }

    /// Writes `value` little-endian into this 8-byte field.
    #[inline]
    pub fn put_u64(self, buf: &mut [u8], value: u64) {
        self.put(buf, value.to_le_bytes());
    }

    /// The little-endian two's-complement `i64` at this 8-byte field.
    #[inline]
    pub fn get_i64(self, buf: &[u8]) -> i64 {
        i64::from_le_bytes(self.get(buf))
    }

    /// Writes `value` little-endian (two's complement) into this 8-byte field.
    #[inline]
    pub fn put_i64(self, buf: &mut [u8], value: i64) {
        self.put(buf, value.to_le_bytes());
    }

    /// CRC32C of every byte of `record` before this field, followed by
    /// `then` (the data a record describes, or nothing): the checksum of the
    /// structures whose CRC field comes after what it covers.
    #[inline]
    pub fn prefix_crc(self, record: &[u8], then: &[u8]) -> u32 {
        crc32c::crc32c_append(crc32c::crc32c(&record[..self.offset]), then)
    }
}

/// The table as (name, offset, size) rows, the form the document tests
/// compare with docs/FORMAT.md (`formatdoc::assert_fields`).
pub fn rows(table: &[Field]) -> Vec<(&'static str, usize, usize)> {
    table.iter().map(|f| (f.name, f.offset, f.size)).collect()
}

/// Checks that `fields`, in order, tile a structure of `len` bytes exactly.
pub fn check_table(fields: &[Field], len: usize) -> Result<(), String> {
    let mut at = 0;
    for f in fields {
        if f.offset != at {
            return Err(format!(
                "field `{}` starts at {} but the previous field ended at {at}",
                f.name, f.offset
            ));
        }
        at = f.end();
    }
    if at != len {
        return Err(format!("the fields cover {at} bytes, the structure {len}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Field = Field::new("a", 0, 2);
    const B: Field = Field::new("b", 2, 4);
    const C: Field = Field::new("c", 6, 8);

    #[test]
    fn integers_round_trip_little_endian() {
        let mut buf = [0u8; 14];
        A.put_u16(&mut buf, 0x0102);
        B.put_u32(&mut buf, 0x0304_0506);
        C.put_u64(&mut buf, 0x0708_090a_0b0c_0d0e);
        assert_eq!(
            buf,
            [2, 1, 6, 5, 4, 3, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 9, 8, 7]
        );
        assert_eq!(A.get_u16(&buf), 0x0102);
        assert_eq!(B.get_u32(&buf), 0x0304_0506);
        assert_eq!(C.get_u64(&buf), 0x0708_090a_0b0c_0d0e);
    }

    #[test]
    fn tables_must_tile_exactly() {
        assert_eq!(check_table(&[A, B, C], 14), Ok(()));
        assert!(check_table(&[A, C], 14).unwrap_err().contains("`c`"));
        assert!(check_table(&[A, B, C], 16).is_err());
    }
}
