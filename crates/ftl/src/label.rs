//! The device label: page 0 of block 0, written last by `format`, names the
//! FTL and carries its (immutable) configuration. Block 0 belongs to the
//! label; no FTL stores anything else in it. Layout in docs/FORMAT.md.
//!
//! Because `format` erases block 0 first and writes the label only after its
//! own metadata is synced, a crash during format leaves a device that opens
//! as [`FtlError::NotFormatted`], never a half-formatted one.

use flash::{BlockId, Flash, PageAddr};

use crate::codec::{field_table, Field};
use crate::device::{FtlError, FtlKind, Result};

/// The block reserved for the label.
pub const LABEL_BLOCK: BlockId = BlockId(0);
/// Magic at offset 0 of the label page.
pub const LABEL_MAGIC: [u8; 8] = *b"SCFTLDEV";
/// Version of the label layout.
pub const LABEL_VERSION: u32 = 1;

field_table! {
    /// The label's fixed fields (docs/FORMAT.md §3; a test compares them).
    /// The configuration (`config_len` bytes) follows at [`super::CONFIG_OFFSET`],
    /// then a CRC32C of everything before it.
    pub mod fields {
        pub const MAGIC: Field = Field::new("magic", 0, 8);
        pub const VERSION: Field = Field::new("version", 8, 4);
        pub const KIND: Field = Field::new("kind", 12, 4);
        pub const CONFIG_LEN: Field = Field::new("config_len", 16, 4);
    }
}
use fields::{CONFIG_LEN, KIND, MAGIC, VERSION};

/// Where the FTL's configuration starts.
pub const CONFIG_OFFSET: usize = CONFIG_LEN.end();

/// The CRC field behind a configuration of `config_len` bytes.
pub const fn crc_field(config_len: usize) -> Field {
    Field::new("crc", CONFIG_OFFSET + config_len, 4)
}

/// Erases the label block, so the device reads as unformatted.
pub fn clear_label<F: Flash + ?Sized>(flash: &mut F) -> Result<()> {
    flash.erase(LABEL_BLOCK)?;
    flash.sync()?;
    Ok(())
}

/// Writes the label (block 0 must be erased) and syncs.
pub fn write_label<F: Flash + ?Sized>(flash: &mut F, kind: FtlKind, config: &[u8]) -> Result<()> {
    let g = *flash.geometry();
    let page_size = g.page_size();
    let crc = crc_field(config.len());
    if crc.end() > page_size {
        return Err(FtlError::BadConfig(format!(
            "encoded configuration of {} bytes does not fit the {page_size}-byte label page",
            config.len()
        )));
    }
    let mut page = vec![0u8; page_size];
    MAGIC.put_bytes(&mut page, &LABEL_MAGIC);
    VERSION.put_u32(&mut page, LABEL_VERSION);
    KIND.put_u32(&mut page, kind.code());
    CONFIG_LEN.put_u32(&mut page, config.len() as u32);
    page[CONFIG_OFFSET..crc.offset].copy_from_slice(config);
    let sum = crc.prefix_crc(&page, &[]);
    crc.put_u32(&mut page, sum);
    flash.program(
        PageAddr {
            block: LABEL_BLOCK,
            page: 0,
        },
        &page,
        &[],
    )?;
    flash.sync()?;
    Ok(())
}

/// Reads the label: the FTL kind and its encoded configuration.
pub fn read_label<F: Flash + ?Sized>(flash: &mut F) -> Result<(FtlKind, Vec<u8>)> {
    let g = *flash.geometry();
    let mut page = vec![0u8; g.page_size()];
    flash.read(
        PageAddr {
            block: LABEL_BLOCK,
            page: 0,
        },
        0,
        &mut page,
    )?;
    if MAGIC.bytes(&page) != LABEL_MAGIC {
        return Err(FtlError::NotFormatted);
    }
    let version = VERSION.get_u32(&page);
    let len = CONFIG_LEN.get_u32(&page) as usize;
    let crc = crc_field(len);
    if crc.end() > page.len() {
        return Err(FtlError::Corrupt(format!(
            "label claims a {len}-byte configuration"
        )));
    }
    if crc.prefix_crc(&page, &[]) != crc.get_u32(&page) {
        return Err(FtlError::Corrupt("label checksum mismatch".into()));
    }
    if version != LABEL_VERSION {
        return Err(FtlError::Corrupt(format!(
            "label version {version} is not the supported {LABEL_VERSION}"
        )));
    }
    let code = KIND.get_u32(&page);
    let kind = FtlKind::from_code(code)
        .ok_or_else(|| FtlError::Corrupt(format!("label names unknown FTL code {code}")))?;
    Ok((kind, page[CONFIG_OFFSET..crc.offset].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::{Geometry, MemFlash};

    #[test]
    fn label_round_trips_and_rejects_garbage() {
        let mut f = MemFlash::new(Geometry::tiny()).unwrap();
        assert!(matches!(read_label(&mut f), Err(FtlError::NotFormatted)));
        write_label(&mut f, FtlKind::Async, &[1, 2, 3]).unwrap();
        let (k, c) = read_label(&mut f).unwrap();
        assert_eq!((k, c), (FtlKind::Async, vec![1, 2, 3]));
        clear_label(&mut f).unwrap();
        assert!(matches!(read_label(&mut f), Err(FtlError::NotFormatted)));
        let g = *f.geometry();
        let mut page = vec![0u8; g.page_size()];
        MAGIC.put_bytes(&mut page, &LABEL_MAGIC);
        CONFIG_LEN.put_u32(&mut page, u32::MAX);
        f.program(PageAddr::new(0, 0), &page, &[]).unwrap();
        assert!(matches!(read_label(&mut f), Err(FtlError::Corrupt(_))));
    }
}
