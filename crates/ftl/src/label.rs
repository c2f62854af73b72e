//! The device label: page 0 of block 0, written last by `format`, names the
//! FTL and carries its (immutable) configuration. Block 0 belongs to the
//! label; no FTL stores anything else in it. Layout in docs/FORMAT.md.
//!
//! Because `format` erases block 0 first and writes the label only after its
//! own metadata is synced, a crash during format leaves a device that opens
//! as [`FtlError::NotFormatted`], never a half-formatted one.

use flash::{BlockId, Flash, PageAddr};

use crate::device::{FtlError, FtlKind, Result};

/// The block reserved for the label.
pub const LABEL_BLOCK: BlockId = BlockId(0);
/// Magic at offset 0 of the label page.
pub const LABEL_MAGIC: [u8; 8] = *b"SCFTLDEV";
/// Version of the label layout.
pub const LABEL_VERSION: u32 = 1;
/// Offsets of the label fields (checked against docs/FORMAT.md by a test).
pub const OFF_MAGIC: usize = 0;
pub const OFF_VERSION: usize = 8;
pub const OFF_KIND: usize = 12;
pub const OFF_CONFIG_LEN: usize = 16;
pub const OFF_CONFIG: usize = 20;

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
    if OFF_CONFIG + config.len() + 4 > page_size {
        return Err(FtlError::BadConfig(format!(
            "encoded configuration of {} bytes does not fit the {page_size}-byte label page",
            config.len()
        )));
    }
    let mut page = vec![0u8; page_size];
    page[OFF_MAGIC..OFF_MAGIC + 8].copy_from_slice(&LABEL_MAGIC);
    page[OFF_VERSION..OFF_VERSION + 4].copy_from_slice(&LABEL_VERSION.to_le_bytes());
    page[OFF_KIND..OFF_KIND + 4].copy_from_slice(&kind.code().to_le_bytes());
    page[OFF_CONFIG_LEN..OFF_CONFIG_LEN + 4].copy_from_slice(&(config.len() as u32).to_le_bytes());
    page[OFF_CONFIG..OFF_CONFIG + config.len()].copy_from_slice(config);
    let crc_off = OFF_CONFIG + config.len();
    let crc = crc32c::crc32c(&page[..crc_off]);
    page[crc_off..crc_off + 4].copy_from_slice(&crc.to_le_bytes());
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
    if page[OFF_MAGIC..OFF_MAGIC + 8] != LABEL_MAGIC {
        return Err(FtlError::NotFormatted);
    }
    let u32_at = |o: usize| u32::from_le_bytes(page[o..o + 4].try_into().expect("4 bytes"));
    let version = u32_at(OFF_VERSION);
    let len = u32_at(OFF_CONFIG_LEN) as usize;
    if OFF_CONFIG + len + 4 > page.len() {
        return Err(FtlError::Corrupt(format!(
            "label claims a {len}-byte configuration"
        )));
    }
    let crc_off = OFF_CONFIG + len;
    if crc32c::crc32c(&page[..crc_off]) != u32_at(crc_off) {
        return Err(FtlError::Corrupt("label checksum mismatch".into()));
    }
    if version != LABEL_VERSION {
        return Err(FtlError::Corrupt(format!(
            "label version {version} is not the supported {LABEL_VERSION}"
        )));
    }
    let code = u32_at(OFF_KIND);
    let kind = FtlKind::from_code(code)
        .ok_or_else(|| FtlError::Corrupt(format!("label names unknown FTL code {code}")))?;
    Ok((kind, page[OFF_CONFIG..crc_off].to_vec()))
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
        page[..8].copy_from_slice(&LABEL_MAGIC);
        page[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        f.program(PageAddr::new(0, 0), &page, &[]).unwrap();
        assert!(matches!(read_label(&mut f), Err(FtlError::Corrupt(_))));
    }
}
