//! The little-endian field codec of every structure this crate puts on
//! flash or in the battery-backed buffer: the device label, SCFTL's
//! metadata pages and label configuration, the baselines' OOB and trim
//! records, label configuration and battery-backed log.
//!
//! Each structure declares its fixed-size fields once, as a table of
//! [`Field`]s (name, offset, size) in the order docs/FORMAT.md lists them;
//! encoders and decoders read and write through those fields, and the
//! document tests compare the tables with the document. Integers are always
//! little-endian and encoded explicitly, never through a memory layout.
//!
//! Invariants: a field is read and written only with the accessor of its
//! size (a debug assertion; with constant fields it costs nothing); a
//! buffer passed in is long enough for the field, so a short one is a bug
//! and panics at the slice bound like any out-of-range index.

use std::ops::Range;

use crate::device::{FtlError, Result};

/// One fixed-size field of an encoded structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The name docs/FORMAT.md gives the field.
    pub name: &'static str,
    /// Offset from the start of the structure, in bytes.
    pub offset: usize,
    /// Width in bytes.
    pub size: usize,
}

impl Field {
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

    #[inline]
    pub fn get_u16(self, b: &[u8]) -> u16 {
        debug_assert_eq!(self.size, 2, "field `{}`", self.name);
        u16::from_le_bytes(array(b, self.offset))
    }

    #[inline]
    pub fn get_u32(self, b: &[u8]) -> u32 {
        debug_assert_eq!(self.size, 4, "field `{}`", self.name);
        get_u32(b, self.offset)
    }

    #[inline]
    pub fn get_u64(self, b: &[u8]) -> u64 {
        debug_assert_eq!(self.size, 8, "field `{}`", self.name);
        u64::from_le_bytes(array(b, self.offset))
    }

    #[inline]
    pub fn put_u16(self, b: &mut [u8], v: u16) {
        debug_assert_eq!(self.size, 2, "field `{}`", self.name);
        b[self.range()].copy_from_slice(&v.to_le_bytes());
    }

    #[inline]
    pub fn put_u32(self, b: &mut [u8], v: u32) {
        debug_assert_eq!(self.size, 4, "field `{}`", self.name);
        put_u32(b, self.offset, v);
    }

    #[inline]
    pub fn put_u64(self, b: &mut [u8], v: u64) {
        debug_assert_eq!(self.size, 8, "field `{}`", self.name);
        b[self.range()].copy_from_slice(&v.to_le_bytes());
    }

    /// The field's raw bytes (magic numbers).
    pub fn bytes(self, b: &[u8]) -> &[u8] {
        &b[self.range()]
    }

    /// Writes raw bytes (magic numbers) of exactly the field's size.
    pub fn put_bytes(self, b: &mut [u8], v: &[u8]) {
        b[self.range()].copy_from_slice(v);
    }

    /// CRC32C of every byte of `record` before this field, followed by
    /// `then` (the sector a record describes, or nothing): the checksum of
    /// the structures whose CRC field comes after what it covers.
    #[inline]
    pub fn prefix_crc(self, record: &[u8], then: &[u8]) -> u32 {
        crc32c::crc32c_append(crc32c::crc32c(&record[..self.offset]), then)
    }
}

/// Declares the field table of one structure as a module: the [`Field`]
/// constants as written, plus `TABLE`, every one of them in order, so the
/// table the document tests compare cannot miss a field.
///
/// ```ignore
/// field_table! {
///     /// The record.
///     pub mod record {
///         pub const LA: Field = Field::new("la", 0, 4);
///         pub const SEQ: Field = Field::new("seq", 4, 8);
///     }
/// }
/// ```
macro_rules! field_table {
    (
        $(#[$doc:meta])*
        pub mod $module:ident {
            $(
                $(#[$field_doc:meta])*
                pub const $name:ident: Field = Field::new($text:literal, $offset:expr, $size:expr);
            )+
        }
    ) => {
        $(#[$doc])*
        pub mod $module {
            use $crate::codec::Field;
            $(
                $(#[$field_doc])*
                pub const $name: Field = Field::new($text, $offset, $size);
            )+
            /// Every field, in order.
            pub const TABLE: &[Field] = &[$($name),+];
        }
    };
}
pub(crate) use field_table;

#[inline]
fn get_u32(b: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(array(b, offset))
}

#[inline]
fn put_u32(b: &mut [u8], offset: usize, v: u32) {
    b[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
}

#[inline]
fn array<const N: usize>(b: &[u8], offset: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[offset..offset + N]);
    a
}

/// The table as (name, offset, size) rows, the form the document tests
/// compare with docs/FORMAT.md.
pub fn rows(table: &[Field]) -> Vec<(&'static str, usize, usize)> {
    table.iter().map(|f| (f.name, f.offset, f.size)).collect()
}

/// Checks the frame of a versioned encoding (the configurations in the
/// label): exactly `len` bytes, and `version` holding `supported`. The
/// errors name `what`.
pub(crate) fn check_versioned(
    b: &[u8],
    len: usize,
    version: Field,
    supported: u32,
    what: &str,
) -> Result<()> {
    if b.len() != len {
        return Err(FtlError::Corrupt(format!(
            "{what} is {} bytes, expected {len}",
            b.len()
        )));
    }
    let found = version.get_u32(b);
    if found != supported {
        return Err(FtlError::Corrupt(format!(
            "{what} version {found} is not the supported {supported}; use a matching scftl build"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_encode_little_endian_at_their_offset() {
        let mut b = [0u8; 16];
        Field::new("a", 1, 2).put_u16(&mut b, 0x0102);
        Field::new("b", 3, 4).put_u32(&mut b, 0x0304_0506);
        Field::new("c", 7, 8).put_u64(&mut b, 0x0708_090a_0b0c_0d0e);
        assert_eq!(
            b,
            [0, 2, 1, 6, 5, 4, 3, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 9, 8, 7, 0]
        );
        assert_eq!(Field::new("a", 1, 2).get_u16(&b), 0x0102);
        assert_eq!(Field::new("b", 3, 4).get_u32(&b), 0x0304_0506);
        assert_eq!(Field::new("c", 7, 8).get_u64(&b), 0x0708_090a_0b0c_0d0e);
        assert_eq!(Field::new("b", 0, 4).at(3).get_u32(&b), 0x0304_0506);
        let crc = Field::new("crc", 4, 4);
        assert_eq!(crc.prefix_crc(&b, &[]), crc32c::crc32c(&b[..4]));
        assert_eq!(
            crc.prefix_crc(&b, &[1, 2]),
            crc32c::crc32c(&[&b[..4], &[1u8, 2][..]].concat())
        );
    }

    #[test]
    fn versioned_frames_are_checked() {
        let v = Field::new("version", 0, 4);
        let mut b = [0u8; 8];
        v.put_u32(&mut b, 3);
        assert!(check_versioned(&b, 8, v, 3, "x").is_ok());
        assert!(matches!(
            check_versioned(&b[..7], 8, v, 3, "x"),
            Err(FtlError::Corrupt(_))
        ));
        assert!(matches!(
            check_versioned(&b, 8, v, 4, "x"),
            Err(FtlError::Corrupt(_))
        ));
    }
}
