//! The image file's format (docs/FORMAT.md §2): the header block as a table
//! of [`Field`]s, its encoding and its checked decoding, the region layout a
//! header implies, and the values of a page-state byte.
//!
//! Invariants:
//! - [`HEADER_FIELDS`] tiles the [`HEADER_SIZE`]-byte header exactly and is
//!   the table FORMAT.md §2 prints (a test checks both);
//! - every region offset and size stored in a header equals what
//!   [`ImageLayout::compute`] derives from its geometry and `nvram_size`, so a
//!   decoded header never points outside its file;
//! - decoding never panics, whatever the bytes.

use crate::codec::Field;
use crate::{BlockId, FlashError, Geometry, PageAddr, Result, WearModel};

/// First eight bytes of every image.
pub const IMAGE_MAGIC: [u8; 8] = *b"SCFTLIMG";
/// The image format version this code writes and the newest it reads.
/// Version 1 (still read and written in place) keeps each page's OOB right
/// after its data; version 2 keeps the OOB areas in a region of their own,
/// so every page's data starts on a file-system block boundary; version 3
/// (the same regions) orders every region's slots by stripe — erase-block
/// index, then page, then die — so the pages of one superblock, programmed
/// die after die, lie one after another in the file and a run of programs
/// is one write per region ([`ImageLayout::slot`]); version 4 adds the
/// wear region (one [`crate::BlockWear`] record per erase block, after the
/// page-state region) and the wear model's header fields.
pub const IMAGE_VERSION: u32 = 4;
/// Size of the header block; every region starts at a multiple of it.
pub const HEADER_SIZE: usize = 4096;
/// Largest battery-backed buffer an image may declare (64 MiB): a bound so
/// that a corrupt header cannot make `open` allocate absurd amounts of RAM.
pub const MAX_NVRAM_BYTES: usize = 64 << 20;
/// Page-state byte of an erased page (also what a sparse file reads as).
pub const STATE_ERASED: u8 = 0x00;
/// Page-state byte of a programmed page.
pub const STATE_PROGRAMMED: u8 = 0x01;
/// Length of the zero-padded `created_by` text field.
pub const CREATED_BY_SIZE: usize = 64;

pub const H_MAGIC: Field = Field::new("magic", 0, 8);
pub const H_VERSION: Field = Field::new("version", 8, 4);
pub const H_HEADER_SIZE: Field = Field::new("header_size", 12, 4);
pub const H_CHANNELS: Field = Field::new("channels", 16, 4);
pub const H_DIES_PER_CHANNEL: Field = Field::new("dies_per_channel", 20, 4);
pub const H_BLOCKS_PER_DIE: Field = Field::new("blocks_per_die", 24, 4);
pub const H_PAGES_PER_BLOCK: Field = Field::new("pages_per_block", 28, 4);
pub const H_SECTORS_PER_PAGE: Field = Field::new("sectors_per_page", 32, 4);
pub const H_SECTOR_SIZE: Field = Field::new("sector_size", 36, 4);
pub const H_OOB_SIZE: Field = Field::new("oob_size", 40, 4);
pub const H_FLAGS: Field = Field::new("flags", 44, 4);
pub const H_NVRAM_OFFSET: Field = Field::new("nvram_offset", 48, 8);
pub const H_NVRAM_SIZE: Field = Field::new("nvram_size", 56, 8);
pub const H_STATE_OFFSET: Field = Field::new("state_offset", 64, 8);
pub const H_STATE_SIZE: Field = Field::new("state_size", 72, 8);
pub const H_PAGES_OFFSET: Field = Field::new("pages_offset", 80, 8);
pub const H_PAGE_STRIDE: Field = Field::new("page_stride", 88, 8);
pub const H_IMAGE_SIZE: Field = Field::new("image_size", 96, 8);
pub const H_CREATED_BY: Field = Field::new("created_by", 104, CREATED_BY_SIZE);
pub const H_OOB_OFFSET: Field = Field::new("oob_offset", 168, 8);
pub const H_OOB_REGION_SIZE: Field = Field::new("oob_region_size", 176, 8);
pub const H_WEAR_OFFSET: Field = Field::new("wear_offset", 184, 8);
pub const H_WEAR_SIZE: Field = Field::new("wear_size", 192, 8);
pub const H_ENDURANCE: Field = Field::new("endurance", 200, 4);
pub const H_FACTORY_BAD: Field = Field::new("factory_bad_per_mille", 204, 4);
pub const H_WEAR_SEED: Field = Field::new("wear_seed", 208, 8);
pub const H_RESERVED: Field = Field::new("reserved", 216, HEADER_SIZE - 4 - 216);
pub const H_HEADER_CRC: Field = Field::new("header_crc", HEADER_SIZE - 4, 4);

/// Every header field in offset order; together they cover the header
/// exactly. docs/FORMAT.md section 2 lists the same table (a test checks).
pub const HEADER_FIELDS: &[Field] = &[
    H_MAGIC,
    H_VERSION,
    H_HEADER_SIZE,
    H_CHANNELS,
    H_DIES_PER_CHANNEL,
    H_BLOCKS_PER_DIE,
    H_PAGES_PER_BLOCK,
    H_SECTORS_PER_PAGE,
    H_SECTOR_SIZE,
    H_OOB_SIZE,
    H_FLAGS,
    H_NVRAM_OFFSET,
    H_NVRAM_SIZE,
    H_STATE_OFFSET,
    H_STATE_SIZE,
    H_PAGES_OFFSET,
    H_PAGE_STRIDE,
    H_IMAGE_SIZE,
    H_CREATED_BY,
    H_OOB_OFFSET,
    H_OOB_REGION_SIZE,
    H_WEAR_OFFSET,
    H_WEAR_SIZE,
    H_ENDURANCE,
    H_FACTORY_BAD,
    H_WEAR_SEED,
    H_RESERVED,
    H_HEADER_CRC,
];

/// The header fields that store a geometry, with their values for `g`.
fn geometry_fields(g: &Geometry) -> [(Field, u32); 7] {
    [
        (H_CHANNELS, g.channels),
        (H_DIES_PER_CHANNEL, g.dies_per_channel),
        (H_BLOCKS_PER_DIE, g.blocks_per_die),
        (H_PAGES_PER_BLOCK, g.pages_per_block),
        (H_SECTORS_PER_PAGE, g.sectors_per_page),
        (H_SECTOR_SIZE, g.sector_size),
        (H_OOB_SIZE, g.oob_size),
    ]
}

/// Text written into `created_by` by this build.
pub(crate) const CREATED_BY: &str = concat!("scftl flash ", env!("CARGO_PKG_VERSION"));

/// Whether a page-state byte says "programmed"; `None` for a byte that is
/// neither state (the image is corrupt).
pub fn decode_state(byte: u8) -> Option<bool> {
    match byte {
        STATE_ERASED => Some(false),
        STATE_PROGRAMMED => Some(true),
        _ => None,
    }
}

/// Where the regions of an image lie, in bytes from the start of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLayout {
    pub nvram_offset: u64,
    pub nvram_size: u64,
    pub state_offset: u64,
    pub state_size: u64,
    /// Start of the OOB region (version 2), 0 in version 1, whose OOB areas
    /// follow their pages' data.
    pub oob_offset: u64,
    /// Length of the OOB region (version 2), 0 in version 1.
    pub oob_region_size: u64,
    /// Start of the wear region (version 4: 4 bytes per erase block, after
    /// the page-state region), 0 before version 4.
    pub wear_offset: u64,
    /// Length of the wear region, 0 before version 4.
    pub wear_size: u64,
    pub pages_offset: u64,
    pub page_stride: u64,
    pub image_size: u64,
    /// Whether slots follow stripe order (version 3) rather than the dense
    /// page index (versions 1 and 2); see [`ImageLayout::slot`].
    pub stripe_order: bool,
}

impl ImageLayout {
    /// The layout this build writes ([`IMAGE_VERSION`]) for a geometry and
    /// nvram size, or `None` if it does not fit in 64 bits.
    pub fn compute(g: &Geometry, nvram_size: u64) -> Option<ImageLayout> {
        Self::compute_version(g, nvram_size, IMAGE_VERSION)
    }

    /// The layout of image format `version` (1 to 4; any later version
    /// gets version 4's) for a geometry and nvram size, or `None` if it
    /// does not fit in 64 bits.
    pub fn compute_version(g: &Geometry, nvram_size: u64, version: u32) -> Option<ImageLayout> {
        let align = |x: u64| x.checked_next_multiple_of(HEADER_SIZE as u64);
        let pages = g.total_pages();
        let oob = u64::from(g.oob_size);
        let nvram_offset = HEADER_SIZE as u64;
        let state_offset = align(nvram_offset.checked_add(nvram_size)?)?;
        let state_size = align(pages)?;
        let (wear_offset, wear_size) = if version >= 4 {
            let size = align(u64::from(g.total_blocks()).checked_mul(4)?)?;
            (state_offset.checked_add(state_size)?, size)
        } else {
            (0, 0)
        };
        let after_state = state_offset
            .checked_add(state_size)?
            .checked_add(wear_size)?;
        let (oob_offset, oob_region_size, pages_offset, page_stride) = if version == 1 {
            (0, 0, after_state, g.page_size() as u64 + oob)
        } else {
            let region = align(pages.checked_mul(oob)?)?;
            (
                after_state,
                region,
                after_state.checked_add(region)?,
                g.page_size() as u64,
            )
        };
        let image_size = pages_offset.checked_add(pages.checked_mul(page_stride)?)?;
        Some(ImageLayout {
            nvram_offset,
            nvram_size,
            state_offset,
            state_size,
            oob_offset,
            oob_region_size,
            wear_offset,
            wear_size,
            pages_offset,
            page_stride,
            image_size,
            stripe_order: version >= 3,
        })
    }

    /// The slot of `page`: its position in every per-page region (page
    /// state, OOB, data). Versions 1 and 2 use the dense page index (block
    /// × pages_per_block + page). Version 3 uses stripe order, ((index of
    /// the block on its die) × pages_per_block + page) × dies + die, so page
    /// `p` of erase block `i` of every die — one row of superblock `i`, as
    /// the FTLs program it — takes `dies` consecutive slots, and the next
    /// row follows. The caller checks that `page` exists in `g`.
    pub fn slot(&self, g: &Geometry, page: PageAddr) -> u64 {
        if !self.stripe_order {
            return g.page_index(page);
        }
        let bpd = u64::from(g.blocks_per_die);
        let (die, index) = (u64::from(page.block.0) / bpd, u64::from(page.block.0) % bpd);
        (index * u64::from(g.pages_per_block) + u64::from(page.page)) * u64::from(g.dies()) + die
    }

    /// Inverse of [`ImageLayout::slot`] (`slot < total_pages`).
    pub fn page_of_slot(&self, g: &Geometry, slot: u64) -> PageAddr {
        if !self.stripe_order {
            return g.page_at(slot);
        }
        let dies = u64::from(g.dies());
        let ppb = u64::from(g.pages_per_block);
        let (die, row) = (slot % dies, slot / dies);
        let (index, page) = (row / ppb, row % ppb);
        PageAddr {
            block: BlockId((die * u64::from(g.blocks_per_die) + index) as u32),
            page: page as u32,
        }
    }

    /// File offset of the data of the page in slot `slot`.
    pub fn data_offset(&self, slot: u64) -> u64 {
        self.pages_offset + slot * self.page_stride
    }

    /// File offset of the OOB area of the page in slot `slot`, whose data
    /// is `page_size` bytes long.
    pub fn oob_at(&self, slot: u64, page_size: u64, oob_size: u64) -> u64 {
        if self.oob_region_size == 0 {
            self.data_offset(slot) + page_size
        } else {
            self.oob_offset + slot * oob_size
        }
    }

    /// The header fields that store this layout for format `version`, with
    /// their values (all but `nvram_size`, from which the others are
    /// derived). Version 1 has no OOB region fields (those bytes were
    /// reserved, and are ignored in a version-1 header).
    fn derived_fields(&self, version: u32) -> Vec<(Field, u64)> {
        let mut v = vec![
            (H_NVRAM_OFFSET, self.nvram_offset),
            (H_STATE_OFFSET, self.state_offset),
            (H_STATE_SIZE, self.state_size),
            (H_PAGES_OFFSET, self.pages_offset),
            (H_PAGE_STRIDE, self.page_stride),
            (H_IMAGE_SIZE, self.image_size),
        ];
        if version >= 2 {
            v.push((H_OOB_OFFSET, self.oob_offset));
            v.push((H_OOB_REGION_SIZE, self.oob_region_size));
        }
        if version >= 4 {
            v.push((H_WEAR_OFFSET, self.wear_offset));
            v.push((H_WEAR_SIZE, self.wear_size));
        }
        v
    }
}

/// The decoded header of an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageHeader {
    pub version: u32,
    pub geometry: Geometry,
    pub layout: ImageLayout,
    /// Who created the image (free text, e.g. "scftl flash 0.1.0").
    pub created_by: String,
    /// How the image's blocks wear out (version 4; older images never
    /// wear out, and keep no erase counts across opens).
    pub wear: WearModel,
}

impl ImageHeader {
    /// Encodes the header block, CRC included.
    pub fn encode(&self) -> Box<[u8; HEADER_SIZE]> {
        let mut h = Box::new([0u8; HEADER_SIZE]);
        H_MAGIC.bytes_mut(&mut h[..]).copy_from_slice(&IMAGE_MAGIC);
        H_VERSION.put_u32(&mut h[..], self.version);
        H_HEADER_SIZE.put_u32(&mut h[..], HEADER_SIZE as u32);
        for (f, v) in geometry_fields(&self.geometry) {
            f.put_u32(&mut h[..], v);
        }
        H_FLAGS.put_u32(&mut h[..], 0);
        H_NVRAM_SIZE.put_u64(&mut h[..], self.layout.nvram_size);
        for (f, v) in self.layout.derived_fields(self.version) {
            f.put_u64(&mut h[..], v);
        }
        let text = self.created_by.as_bytes();
        // Truncate on a character boundary so the field stays valid UTF-8.
        let mut n = text.len().min(CREATED_BY_SIZE);
        while !self.created_by.is_char_boundary(n) {
            n -= 1;
        }
        H_CREATED_BY.bytes_mut(&mut h[..])[..n].copy_from_slice(&text[..n]);
        if self.version >= 4 {
            H_ENDURANCE.put_u32(&mut h[..], self.wear.endurance);
            H_FACTORY_BAD.put_u32(&mut h[..], self.wear.factory_bad_per_mille);
            H_WEAR_SEED.put_u64(&mut h[..], self.wear.seed);
        }
        let crc = crc32c::crc32c(&h[..H_HEADER_CRC.offset]);
        H_HEADER_CRC.put_u32(&mut h[..], crc);
        h
    }

    /// Decodes and checks a header. `bytes` is what the file holds from
    /// offset 0 (at most [`HEADER_SIZE`] bytes are looked at), `file_len` the
    /// file's length. Checks, in order: magic (`NotAnImage`), length of the
    /// header (`TruncatedImage`), version (`NewerVersion`, since a newer
    /// layout may move the CRC), CRC and every field (`CorruptImage`), and
    /// finally that the file is as long as the layout says (`TruncatedImage`).
    /// Never panics, whatever the bytes.
    pub fn decode(bytes: &[u8], file_len: u64, path: &str) -> Result<ImageHeader> {
        let corrupt = |reason: String| FlashError::CorruptImage {
            path: path.to_string(),
            reason,
        };
        let n = bytes.len().min(IMAGE_MAGIC.len());
        if n == 0 || bytes[..n] != IMAGE_MAGIC[..n] {
            return Err(FlashError::NotAnImage {
                path: path.to_string(),
            });
        }
        if bytes.len() < HEADER_SIZE {
            return Err(FlashError::TruncatedImage {
                path: path.to_string(),
                reason: format!(
                    "the header is {} bytes long, expected {HEADER_SIZE}",
                    bytes.len()
                ),
            });
        }
        // From here on every field lies within `h`.
        let h = &bytes[..HEADER_SIZE];
        let version = H_VERSION.get_u32(h);
        if version > IMAGE_VERSION {
            return Err(FlashError::NewerVersion {
                path: path.to_string(),
                found: version,
                supported: IMAGE_VERSION,
            });
        }
        let stored_crc = H_HEADER_CRC.get_u32(h);
        let crc = crc32c::crc32c(&h[..H_HEADER_CRC.offset]);
        if stored_crc != crc {
            return Err(corrupt(format!(
                "header checksum mismatch (stored {stored_crc:#010x}, computed {crc:#010x})"
            )));
        }
        if version == 0 {
            return Err(corrupt("format version 0 does not exist".into()));
        }
        let header_size = H_HEADER_SIZE.get_u32(h);
        if header_size as usize != HEADER_SIZE {
            return Err(corrupt(format!(
                "header_size is {header_size}, expected {HEADER_SIZE}"
            )));
        }
        let flags = H_FLAGS.get_u32(h);
        if flags != 0 {
            return Err(corrupt(format!(
                "unknown flags {flags:#x} for format version {version}"
            )));
        }
        let geometry = Geometry::new(
            H_CHANNELS.get_u32(h),
            H_DIES_PER_CHANNEL.get_u32(h),
            H_BLOCKS_PER_DIE.get_u32(h),
            H_PAGES_PER_BLOCK.get_u32(h),
            H_SECTORS_PER_PAGE.get_u32(h),
            H_SECTOR_SIZE.get_u32(h),
            H_OOB_SIZE.get_u32(h),
        )
        .map_err(|e| corrupt(format!("geometry: {e}")))?;
        let nvram_size = H_NVRAM_SIZE.get_u64(h);
        if nvram_size > MAX_NVRAM_BYTES as u64 {
            return Err(corrupt(format!(
                "nvram_size {nvram_size} is more than the maximum {MAX_NVRAM_BYTES}"
            )));
        }
        let layout = ImageLayout::compute_version(&geometry, nvram_size, version)
            .ok_or_else(|| corrupt("the layout does not fit in 64 bits".into()))?;
        for (f, expected) in layout.derived_fields(version) {
            let found = f.get_u64(h);
            if found != expected {
                return Err(corrupt(format!(
                    "{} is {found}, but format version {version} puts it at {expected} for this geometry",
                    f.name
                )));
            }
        }
        let wear = if version >= 4 {
            let factory_bad_per_mille = H_FACTORY_BAD.get_u32(h);
            if factory_bad_per_mille > 1000 {
                return Err(corrupt(format!(
                    "factory_bad_per_mille is {factory_bad_per_mille}, more than 1000"
                )));
            }
            WearModel {
                endurance: H_ENDURANCE.get_u32(h),
                factory_bad_per_mille,
                seed: H_WEAR_SEED.get_u64(h),
            }
        } else {
            WearModel::UNLIMITED
        };
        let text = H_CREATED_BY.bytes(h);
        let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        let created_by = String::from_utf8_lossy(&text[..end]).into_owned();
        if file_len < layout.image_size {
            return Err(FlashError::TruncatedImage {
                path: path.to_string(),
                reason: format!(
                    "the file is {file_len} bytes long, its header says {}",
                    layout.image_size
                ),
            });
        }
        Ok(ImageHeader {
            version,
            geometry,
            layout,
            created_by,
            wear,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::check_table;
    use crate::mem::default_nvram_size;

    #[test]
    fn header_fields_tile_the_header_exactly() {
        assert_eq!(check_table(HEADER_FIELDS, HEADER_SIZE), Ok(()));
    }

    #[test]
    fn header_round_trips_and_every_byte_is_covered_by_the_crc() {
        let g = Geometry::small();
        let header = ImageHeader {
            version: IMAGE_VERSION,
            geometry: g,
            layout: ImageLayout::compute(&g, 12345).unwrap(),
            created_by: "test".into(),
            wear: WearModel {
                endurance: 3000,
                factory_bad_per_mille: 5,
                seed: 77,
            },
        };
        let bytes = header.encode();
        let len = header.layout.image_size;
        assert_eq!(ImageHeader::decode(&bytes[..], len, "x").unwrap(), header);
        // Flipping any bit before the CRC field must be detected (or, for
        // the magic and version, reported as what it now looks like).
        for i in (0..H_HEADER_CRC.offset).step_by(7) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(ImageHeader::decode(&b[..], len, "x").is_err(), "byte {i}");
        }
    }

    #[test]
    fn layout_is_aligned_and_sized() {
        let g = Geometry::paper_raw_gib(256);
        let l = ImageLayout::compute(&g, default_nvram_size(&g) as u64).unwrap();
        assert_eq!(l.state_offset % HEADER_SIZE as u64, 0);
        assert_eq!(l.pages_offset % HEADER_SIZE as u64, 0);
        assert!(l.state_size >= g.total_pages());
        assert_eq!(l.wear_offset, l.state_offset + l.state_size);
        assert!(l.wear_size >= 4 * u64::from(g.total_blocks()));
        assert_eq!(l.oob_offset, l.wear_offset + l.wear_size);
        assert_eq!(l.oob_region_size % HEADER_SIZE as u64, 0);
        assert!(l.oob_region_size >= g.total_pages() * 128);
        assert_eq!(l.pages_offset, l.oob_offset + l.oob_region_size);
        assert_eq!(
            l.image_size - l.pages_offset,
            g.total_pages() * g.page_size() as u64
        );
        // Every page's data starts on a 4 KiB boundary.
        assert_eq!(l.data_offset(12345) % 4096, 0);
        // Version 1: OOB after each page's data, no OOB region.
        let v1 = ImageLayout::compute_version(&g, default_nvram_size(&g) as u64, 1).unwrap();
        assert_eq!((v1.oob_offset, v1.oob_region_size), (0, 0));
        assert_eq!(v1.pages_offset, l.wear_offset);
        assert_eq!(v1.page_stride, g.page_size() as u64 + 128);
        assert_eq!(
            v1.oob_at(3, g.page_size() as u64, 128),
            v1.pages_offset + 3 * v1.page_stride + g.page_size() as u64
        );
    }

    #[test]
    fn version_3_slots_are_a_bijection_in_stripe_order() {
        let g = Geometry::small();
        let l = ImageLayout::compute(&g, 4096).unwrap();
        assert!(l.stripe_order);
        let mut seen = vec![false; g.total_pages() as usize];
        for i in 0..g.total_pages() {
            let p = g.page_at(i);
            let s = l.slot(&g, p);
            assert!(!seen[s as usize], "slot {s} twice");
            seen[s as usize] = true;
            assert_eq!(l.page_of_slot(&g, s), p);
        }
        // One row of a superblock (page 3 of erase block 5 of every die)
        // takes consecutive slots, and the next row follows it.
        let first = l.slot(&g, PageAddr::new(5, 3));
        for d in 0..g.dies() {
            let b = d * g.blocks_per_die + 5;
            assert_eq!(l.slot(&g, PageAddr::new(b, 3)), first + u64::from(d));
        }
        assert_eq!(l.slot(&g, PageAddr::new(5, 4)), first + u64::from(g.dies()));
        // Versions 1 and 2 keep the dense page index.
        for v in [1, 2] {
            let old = ImageLayout::compute_version(&g, 4096, v).unwrap();
            assert!(!old.stripe_order);
            let p = PageAddr::new(9, 7);
            assert_eq!(old.slot(&g, p), g.page_index(p));
            assert_eq!(old.page_of_slot(&g, g.page_index(p)), p);
        }
    }

    #[test]
    fn version_1_headers_still_decode_with_their_own_layout() {
        let g = Geometry::small();
        let layout = ImageLayout::compute_version(&g, 4096, 1).unwrap();
        let header = ImageHeader {
            version: 1,
            geometry: g,
            layout,
            created_by: "old".into(),
            wear: WearModel::UNLIMITED,
        };
        let bytes = header.encode();
        assert_eq!(H_OOB_OFFSET.get_u64(&bytes[..]), 0);
        let back = ImageHeader::decode(&bytes[..], layout.image_size, "x").unwrap();
        assert_eq!(back, header);
        // A version-2 header with version 1's offsets is refused.
        let mut b = bytes.clone();
        H_VERSION.put_u32(&mut b[..], 2);
        let crc = crc32c::crc32c(&b[..H_HEADER_CRC.offset]);
        H_HEADER_CRC.put_u32(&mut b[..], crc);
        assert!(ImageHeader::decode(&b[..], u64::MAX, "x").is_err());
    }
}
