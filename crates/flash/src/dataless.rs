//! `DatalessFlash`: a RAM device that keeps whole pages only for metadata
//! blocks, so timing and boot benchmarks can run at 256 GiB scale.
//!
//! The caller names the "metadata blocks" (checkpoints, delta logs, labels —
//! whatever the FTL must read back byte for byte). Their pages are stored
//! whole. For every other ("data") page only the OOB and a [`TAG_BYTES`]-byte
//! *tag* per sector — the sector's first bytes — are kept; a read returns each
//! sector's tag followed by zeros. An FTL that wants its data checked in this
//! mode puts what identifies a sector's content (e.g. its LBA and a write
//! sequence number) in those first bytes.
//!
//! Everything else behaves like `MemFlash`: the NAND rules are enforced on
//! every page (program only erased pages, in order, whole blocks erased),
//! erased pages read 0xFF, and there is a battery-backed buffer. Commands take
//! effect at once; power loss is `CrashFlash`'s business.
//!
//! Page states, the NAND rules and the counters are `PageStates`' (see
//! `pages.rs`); this file owns only the records.
//!
//! Invariants:
//! - `blocks[b]` is `None` only when no page of block `b` is programmed, and
//!   otherwise holds `pages_per_block` records of `record_len(b)` bytes;
//! - `stored_bytes` is the sum of the lengths of the `Some` buffers.

use crate::mem::default_nvram_size;
use crate::pages::{ram_flash_impl, PageStates};
use crate::{
    check_page_image, put_page, BlockId, BlockWear, FlashError, Geometry, PageAddr, PageImage,
    RawFlash, Result, WearModel, ERASED_BYTE,
};

/// Bytes kept from the start of each sector of a data page.
pub const TAG_BYTES: usize = 8;

/// A flash device that stores only metadata blocks in full.
pub struct DatalessFlash {
    geometry: Geometry,
    is_metadata: Vec<bool>,
    blocks: Vec<Option<Box<[u8]>>>,
    pages: PageStates,
    nvram: Vec<u8>,
    stored_bytes: usize,
}

impl DatalessFlash {
    /// A fully erased device; `is_metadata[b]` says whether block `b` is
    /// stored in full. The default battery-backed buffer is used.
    pub fn new(geometry: Geometry, is_metadata: Vec<bool>) -> Result<DatalessFlash> {
        geometry.validate()?;
        let nv = default_nvram_size(&geometry);
        Self::with_nvram(geometry, is_metadata, nv)
    }

    /// Like [`DatalessFlash::new`], with the metadata blocks given by
    /// number, e.g. `0..4` or `(0..4).chain(100..104)` (repeats are fine).
    pub fn with_metadata_blocks(
        geometry: Geometry,
        blocks: impl IntoIterator<Item = u32>,
    ) -> Result<DatalessFlash> {
        geometry.validate()?;
        let total = geometry.total_blocks();
        let mut is_metadata = vec![false; total as usize];
        for b in blocks {
            geometry.check_block(BlockId(b))?;
            is_metadata[b as usize] = true;
        }
        Self::new(geometry, is_metadata)
    }

    /// Like [`DatalessFlash::new`] with a battery-backed buffer of
    /// `nvram_size` bytes.
    pub fn with_nvram(
        geometry: Geometry,
        is_metadata: Vec<bool>,
        nvram_size: usize,
    ) -> Result<DatalessFlash> {
        Self::with_wear(geometry, is_metadata, nvram_size, WearModel::UNLIMITED)
    }

    /// Like [`DatalessFlash::with_nvram`] for a new device that wears out
    /// as `model` says.
    pub fn with_wear(
        geometry: Geometry,
        is_metadata: Vec<bool>,
        nvram_size: usize,
        model: WearModel,
    ) -> Result<DatalessFlash> {
        geometry.validate()?;
        let blocks = geometry.total_blocks() as usize;
        if is_metadata.len() != blocks {
            return Err(FlashError::BadLength {
                what: "metadata-block flags (one per block)",
                expected: blocks,
                got: is_metadata.len(),
            });
        }
        Ok(DatalessFlash {
            geometry,
            is_metadata,
            blocks: (0..blocks).map(|_| None).collect(),
            pages: PageStates::new(geometry, model),
            nvram: vec![0; nvram_size],
            stored_bytes: 0,
        })
    }

    /// Whether a block is stored in full.
    pub fn is_metadata_block(&self, block: BlockId) -> Result<bool> {
        self.geometry.check_block(block)?;
        Ok(self.is_metadata[block.0 as usize])
    }

    /// Whether a page is erased (and may be programmed if in order).
    pub fn is_erased(&self, page: PageAddr) -> Result<bool> {
        self.pages.is_erased(page)
    }

    /// Bytes of page storage allocated now (block buffers only).
    pub fn stored_bytes(&self) -> usize {
        self.stored_bytes
    }

    /// Bytes this device holds on the heap: page storage plus its per-block,
    /// per-page and nvram tables (counted from what it allocated).
    pub fn memory_bytes(&self) -> usize {
        self.stored_bytes
            + self.is_metadata.capacity()
            + self.blocks.capacity() * std::mem::size_of::<Option<Box<[u8]>>>()
            + self.pages.memory_bytes()
            + self.nvram.capacity()
    }

    /// Bytes a data page keeps: one tag per sector, then the OOB.
    fn data_record_len(&self) -> usize {
        self.geometry.sectors_per_page as usize * TAG_BYTES + self.geometry.oob_size as usize
    }

    /// Bytes one page of `block` keeps.
    fn record_len(&self, block: BlockId) -> usize {
        if self.is_metadata[block.0 as usize] {
            self.geometry.page_size() + self.geometry.oob_size as usize
        } else {
            self.data_record_len()
        }
    }

    /// The stored record of a programmed page.
    fn record(&self, page: PageAddr) -> Option<&[u8]> {
        let len = self.record_len(page.block);
        let off = page.page as usize * len;
        self.blocks[page.block.0 as usize]
            .as_deref()
            .map(|b| &b[off..off + len])
    }

    /// The record of a page, allocating its block's buffer if needed.
    fn record_mut(&mut self, page: PageAddr) -> &mut [u8] {
        let len = self.record_len(page.block);
        let block_len = len * self.geometry.pages_per_block as usize;
        let slot = &mut self.blocks[page.block.0 as usize];
        if slot.is_none() {
            self.stored_bytes += block_len;
        }
        let buf = slot.get_or_insert_with(|| vec![ERASED_BYTE; block_len].into_boxed_slice());
        let off = page.page as usize * len;
        &mut buf[off..off + len]
    }

    /// Stores a page's data (whole, or as tags) and its full-length OOB.
    fn store(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) {
        if self.is_metadata[page.block.0 as usize] {
            put_page(self.record_mut(page), data, oob);
            return;
        }
        let ss = self.geometry.sector_size as usize;
        let tags_len = self.geometry.sectors_per_page as usize * TAG_BYTES;
        let (tags, spare) = self.record_mut(page).split_at_mut(tags_len);
        for (tag, sector) in tags.chunks_exact_mut(TAG_BYTES).zip(data.chunks_exact(ss)) {
            tag.copy_from_slice(&sector[..TAG_BYTES]);
        }
        put_page(spare, &[], oob);
    }

    fn free_block(&mut self, block: BlockId) {
        if let Some(buf) = self.blocks[block.0 as usize].take() {
            self.stored_bytes -= buf.len();
        }
    }
}

impl DatalessFlash {
    /// Copies sectors of a checked page into `data`: whole sectors of a
    /// metadata block, the tag then zeros of a data sector, 0xFF if erased.
    fn copy_data(&self, page: PageAddr, first_sector: u32, data: &mut [u8]) {
        let programmed = self.pages.is_programmed(page);
        let Some(rec) = self.record(page).filter(|_| programmed) else {
            data.fill(ERASED_BYTE);
            return;
        };
        let ss = self.geometry.sector_size as usize;
        let first = first_sector as usize;
        if self.is_metadata[page.block.0 as usize] {
            let off = first * ss;
            data.copy_from_slice(&rec[off..off + data.len()]);
        } else {
            let tags = &rec[first * TAG_BYTES..];
            for (sector, tag) in data.chunks_exact_mut(ss).zip(tags.chunks_exact(TAG_BYTES)) {
                sector[..TAG_BYTES].copy_from_slice(tag);
                sector[TAG_BYTES..].fill(0);
            }
        }
    }

    /// Copies the spare area of a checked page into `oob` (0xFF if erased).
    fn copy_oob(&self, page: PageAddr, oob: &mut [u8]) {
        let programmed = self.pages.is_programmed(page);
        match self.record(page) {
            Some(rec) if programmed => {
                let start = rec.len() - self.geometry.oob_size as usize;
                oob.copy_from_slice(&rec[start..start + oob.len()]);
            }
            _ => oob.fill(ERASED_BYTE),
        }
    }
}

ram_flash_impl!(DatalessFlash);

/// Raw images of data pages are lossy in the same way as programs: only the
/// tags and the OOB of an image written with `set_page_image` are kept, and
/// `page_image` returns tags followed by zeros.
impl RawFlash for DatalessFlash {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.geometry.check_page(page)?;
        if !self.pages.is_programmed(page) {
            return Ok(PageImage::Erased);
        }
        let Some(rec) = self.record(page) else {
            return Ok(PageImage::Erased);
        };
        let ps = self.geometry.page_size();
        let os = self.geometry.oob_size as usize;
        let oob: Box<[u8]> = rec[rec.len() - os..].into();
        let data: Box<[u8]> = if self.is_metadata[page.block.0 as usize] {
            rec[..ps].into()
        } else {
            let ss = self.geometry.sector_size as usize;
            let mut d = vec![0u8; ps];
            for (sector, tag) in d.chunks_exact_mut(ss).zip(rec.chunks_exact(TAG_BYTES)) {
                sector[..TAG_BYTES].copy_from_slice(tag);
            }
            d.into_boxed_slice()
        };
        Ok(PageImage::Programmed { data, oob })
    }

    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.geometry.check_page(page)?;
        match image {
            PageImage::Erased => {
                self.pages.set_raw(page, false);
                if self.blocks[page.block.0 as usize].is_some() {
                    self.record_mut(page).fill(ERASED_BYTE);
                }
            }
            PageImage::Programmed { data, oob } => {
                check_page_image(&self.geometry, &data, &oob)?;
                self.store(page, &data, &oob);
                self.pages.set_raw(page, true);
            }
        }
        if self.pages.block_is_erased(page.block) {
            self.free_block(page.block);
        }
        Ok(())
    }

    fn set_block_wear(&mut self, block: BlockId, wear: BlockWear) -> Result<()> {
        self.geometry.check_block(block)?;
        self.pages.set_wear(block, wear);
        Ok(())
    }
}
