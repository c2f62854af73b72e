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

use crate::device::{FtlError, Result};

/// One fixed-size field of an encoded structure: the flash crate's codec,
/// shared so the whole stack has one little-endian field type.
pub use flash::codec::{rows, Field};

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
