//! `MemFlash`: a flash device held in RAM.
//!
//! Commands take effect immediately; since reads see the newest queued
//! content anyway, this is indistinguishable from a queue until power is
//! lost, and power loss is the business of `CrashFlash`, which wraps this.
//!
//! Page states, the NAND rules and the counters are `PageStates`' (see
//! `pages.rs`); this file owns only the bytes (the `Flash` methods are
//! `pages::ram_flash_impl`, shared with `DatalessFlash`).
//!
//! Invariants:
//! - a block's buffer is `None` only when none of its pages is programmed
//!   (so erased blocks cost no memory beyond a small pool of spare buffers);
//! - bytes of pages that are not programmed are never read, so buffers are
//!   reused without clearing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::pages::{ram_flash_impl, PageStates};
use crate::{
    check_page_image, put_page, BlockId, BlockWear, Geometry, PageAddr, PageImage, RawFlash,
    Result, WearModel, ERASED_BYTE,
};

/// Default size of the battery-backed buffer: two pages and 4 KiB of header.
pub fn default_nvram_size(g: &Geometry) -> usize {
    2 * g.page_size() + 4096
}

/// A RAM-backed flash device.
pub struct MemFlash {
    geometry: Geometry,
    /// Each block's pages and OOB areas (`None` while erased), shared
    /// with the forks made since it was last written ([`MemFlash::fork_copy`]:
    /// a fork copies a block only when one side programs it).
    blocks: Vec<Option<Arc<[u8]>>>,
    pages: PageStates,
    nvram: Vec<u8>,
    /// Buffers of erased blocks kept for reuse: allocating and faulting in a
    /// fresh block buffer dominated the cost of a program.
    spare: Vec<Arc<[u8]>>,
    /// `page_digest`s computed so far, per page, kept until the page's
    /// bytes change: `store` and `set_page_image`, the only writers of page
    /// bytes, forget the page's entry. A crash state's fingerprint then
    /// hashes only the pages written since the last one (exhaustive checking
    /// takes one per outcome). Atomics because `page_digest` takes `&self`
    /// and shared reads may run at once; entries are only ever filled with
    /// the digest of the bytes they describe, so a race stores one value
    /// twice.
    digests: DigestCache,
}

/// Per-page digests with a known flag (see `MemFlash::digests`).
struct DigestCache {
    value: Box<[AtomicU64]>,
    known: Box<[AtomicBool]>,
}

impl DigestCache {
    fn new(pages: usize) -> DigestCache {
        DigestCache {
            value: (0..pages).map(|_| AtomicU64::new(0)).collect(),
            known: (0..pages).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    fn get(&self, i: usize) -> Option<u64> {
        self.known[i]
            .load(Ordering::Acquire)
            .then(|| self.value[i].load(Ordering::Relaxed))
    }

    fn put(&self, i: usize, d: u64) {
        self.value[i].store(d, Ordering::Relaxed);
        self.known[i].store(true, Ordering::Release);
    }

    fn forget(&mut self, i: usize) {
        *self.known[i].get_mut() = false;
    }

    fn copy(&self) -> DigestCache {
        DigestCache {
            value: self
                .value
                .iter()
                .map(|v| AtomicU64::new(v.load(Ordering::Relaxed)))
                .collect(),
            known: self
                .known
                .iter()
                .map(|k| AtomicBool::new(k.load(Ordering::Acquire)))
                .collect(),
        }
    }
}

/// Most spare block buffers `MemFlash` keeps after erases.
const SPARE_BUFFERS: usize = 64;

impl MemFlash {
    /// A fully erased device with the default battery-backed buffer.
    pub fn new(geometry: Geometry) -> Result<MemFlash> {
        let nv = default_nvram_size(&geometry);
        Self::with_nvram(geometry, nv)
    }

    /// A fully erased device with a battery-backed buffer of `nvram_size` bytes.
    pub fn with_nvram(geometry: Geometry, nvram_size: usize) -> Result<MemFlash> {
        Self::with_wear(geometry, nvram_size, WearModel::UNLIMITED)
    }

    /// A fully erased new device with a battery-backed buffer of
    /// `nvram_size` bytes that wears out as `model` says (its factory bad
    /// blocks are bad from the start).
    pub fn with_wear(geometry: Geometry, nvram_size: usize, model: WearModel) -> Result<MemFlash> {
        geometry.validate()?;
        let blocks = geometry.total_blocks() as usize;
        Ok(MemFlash {
            geometry,
            blocks: (0..blocks).map(|_| None).collect(),
            pages: PageStates::new(geometry, model),
            nvram: vec![0; nvram_size],
            spare: Vec::new(),
            digests: DigestCache::new(geometry.total_pages() as usize),
        })
    }

    /// What [`crate::CrashFlash::duplicate`] of this device onto a fresh
    /// `MemFlash::with_nvram` of the same buffer size gives — every
    /// programmed page, the wear records, the battery-backed buffer; zero
    /// counters, the unlimited wear model, no spare buffers — made by
    /// sharing each block buffer that holds a programmed page: the fork
    /// and this device copy a shared block only when one of them writes
    /// it (exhaustive checking forks a crash state this way, hundreds of
    /// thousands of times per run, and the model oracle's stable-image
    /// probe once per check; copying every block made the probe's cost
    /// the size of the device).
    pub fn fork_copy(&self) -> MemFlash {
        let g = self.geometry;
        let blocks = (0..g.total_blocks())
            .map(|b| {
                if self.pages.block_is_erased(BlockId(b)) {
                    None
                } else {
                    self.blocks[b as usize].clone()
                }
            })
            .collect();
        MemFlash {
            geometry: g,
            blocks,
            pages: self.pages.fork_copy(),
            nvram: self.nvram.clone(),
            spare: Vec::new(),
            digests: self.digests.copy(),
        }
    }

    fn stride(&self) -> usize {
        self.geometry.page_size() + self.geometry.oob_size as usize
    }

    /// Gives a block's buffer back to the spare pool (unless a fork still
    /// shares it).
    fn free_block(&mut self, block: BlockId) {
        if let Some(buf) = self.blocks[block.0 as usize].take() {
            if self.spare.len() < SPARE_BUFFERS && Arc::strong_count(&buf) == 1 {
                self.spare.push(buf);
            }
        }
    }

    /// The block's buffer to write, taken from the spare pool or allocated,
    /// or copied first if a fork shares it.
    fn buffer(&mut self, block: BlockId) -> &mut [u8] {
        let bytes = self.stride() * self.geometry.pages_per_block as usize;
        let slot = &mut self.blocks[block.0 as usize];
        if slot.is_none() {
            *slot = Some(
                self.spare
                    .pop()
                    .unwrap_or_else(|| Arc::from(vec![0; bytes].into_boxed_slice())),
            );
        }
        Arc::make_mut(slot.as_mut().expect("just filled"))
    }

    fn page_slice(&self, page: PageAddr) -> Option<&[u8]> {
        let stride = self.stride();
        let off = page.page as usize * stride;
        self.blocks[page.block.0 as usize]
            .as_ref()
            .map(|b| &b[off..off + stride])
    }

    /// Whether a page is erased (and may be programmed if in order).
    pub fn is_erased(&self, page: PageAddr) -> Result<bool> {
        self.pages.is_erased(page)
    }
}

impl MemFlash {
    /// Copies sectors of a checked page into `data` (0xFF if erased).
    fn copy_data(&self, page: PageAddr, first_sector: u32, data: &mut [u8]) {
        if !self.pages.is_programmed(page) {
            data.fill(ERASED_BYTE);
            return;
        }
        let off = first_sector as usize * self.geometry.sector_size as usize;
        let src = self.page_slice(page).expect("programmed page has a buffer");
        data.copy_from_slice(&src[off..off + data.len()]);
    }

    /// Stores a checked page's data and OOB.
    fn store(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) {
        self.digests.forget(self.geometry.page_index(page) as usize);
        let stride = self.stride();
        let buf = self.buffer(page.block);
        let off = page.page as usize * stride;
        put_page(&mut buf[off..off + stride], data, oob);
    }

    /// Copies the spare area of a checked page into `oob` (0xFF if erased).
    fn copy_oob(&self, page: PageAddr, oob: &mut [u8]) {
        if !self.pages.is_programmed(page) {
            oob.fill(ERASED_BYTE);
            return;
        }
        let ps = self.geometry.page_size();
        let src = self.page_slice(page).expect("programmed page has a buffer");
        oob.copy_from_slice(&src[ps..ps + oob.len()]);
    }
}

ram_flash_impl!(MemFlash);

impl RawFlash for MemFlash {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.geometry.check_page(page)?;
        if !self.pages.is_programmed(page) {
            return Ok(PageImage::Erased);
        }
        let ps = self.geometry.page_size();
        let s = self.page_slice(page).expect("programmed page has a buffer");
        Ok(PageImage::Programmed {
            data: s[..ps].into(),
            oob: s[ps..].into(),
        })
    }

    fn page_digest(&self, page: PageAddr) -> Result<Option<u64>> {
        self.geometry.check_page(page)?;
        if !self.pages.is_programmed(page) {
            return Ok(None);
        }
        let i = self.geometry.page_index(page) as usize;
        if let Some(d) = self.digests.get(i) {
            return Ok(Some(d));
        }
        let (data, oob) = self
            .page_slice(page)
            .expect("programmed page has a buffer")
            .split_at(self.geometry.page_size());
        let d = crate::page_digest(data, oob);
        self.digests.put(i, d);
        Ok(Some(d))
    }

    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.geometry.check_page(page)?;
        match image {
            // The bytes of a page that is not programmed are never read.
            PageImage::Erased => self.pages.set_raw(page, false),
            PageImage::Programmed { data, oob } => {
                check_page_image(&self.geometry, &data, &oob)?;
                self.digests.forget(self.geometry.page_index(page) as usize);
                let stride = self.stride();
                let buf = self.buffer(page.block);
                let off = page.page as usize * stride;
                put_page(&mut buf[off..off + stride], &data, &oob);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Flash, FlashError};

    fn dev() -> MemFlash {
        MemFlash::new(Geometry::tiny()).unwrap()
    }

    fn page_of(g: &Geometry, b: u8) -> Vec<u8> {
        vec![b; g.page_size()]
    }

    #[test]
    fn erased_reads_ff_and_program_reads_back() {
        let mut f = dev();
        let g = *f.geometry();
        let mut buf = vec![0; g.page_size()];
        f.read(PageAddr::new(0, 0), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0xFF));
        f.program(PageAddr::new(0, 0), &page_of(&g, 7), &[1, 2, 3])
            .unwrap();
        f.read(PageAddr::new(0, 0), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 7));
        let mut oob = vec![0; g.oob_size as usize];
        f.read_oob(PageAddr::new(0, 0), &mut oob).unwrap();
        assert_eq!(&oob[..4], &[1, 2, 3, 0xFF]);
        let mut one = vec![0; g.sector_size as usize];
        f.read(PageAddr::new(0, 0), 1, &mut one).unwrap();
        assert!(one.iter().all(|&b| b == 7));
    }

    #[test]
    fn nand_rules_are_distinct_errors_and_change_nothing() {
        let mut f = dev();
        let g = *f.geometry();
        f.program(PageAddr::new(1, 2), &page_of(&g, 1), &[])
            .unwrap();
        let e = f
            .program(PageAddr::new(1, 2), &page_of(&g, 2), &[])
            .unwrap_err();
        assert!(
            matches!(e, FlashError::ProgramNotErased { block: 1, page: 2 }),
            "{e}"
        );
        let e = f
            .program(PageAddr::new(1, 1), &page_of(&g, 2), &[])
            .unwrap_err();
        assert!(
            matches!(
                e,
                FlashError::ProgramOutOfOrder {
                    block: 1,
                    page: 1,
                    next: 3
                }
            ),
            "{e}"
        );
        let e = f.program(PageAddr::new(1, 3), &[0; 3], &[]).unwrap_err();
        assert!(matches!(e, FlashError::BadLength { .. }));
        let e = f
            .program(PageAddr::new(1, 99), &page_of(&g, 2), &[])
            .unwrap_err();
        assert!(matches!(e, FlashError::PageOutOfRange { .. }));
        let e = f.erase(BlockId(999)).unwrap_err();
        assert!(matches!(e, FlashError::BlockOutOfRange { .. }));
        let e = f
            .read(PageAddr::new(1, 2), 1, &mut vec![0; g.page_size()])
            .unwrap_err();
        assert!(matches!(e, FlashError::SectorOutOfRange { .. }));
        let mut buf = vec![0; g.page_size()];
        f.read(PageAddr::new(1, 2), 0, &mut buf).unwrap();
        assert!(
            buf.iter().all(|&b| b == 1),
            "failed commands must not change the page"
        );
        assert_eq!(f.counters().programs, 1);
        f.erase(BlockId(1)).unwrap();
        f.program(PageAddr::new(1, 0), &page_of(&g, 3), &[])
            .unwrap();
    }

    #[test]
    fn raw_images_round_trip_and_fix_order() {
        let mut f = dev();
        let g = *f.geometry();
        let img = PageImage::Programmed {
            data: page_of(&g, 9).into(),
            oob: vec![4; g.oob_size as usize].into(),
        };
        f.set_page_image(PageAddr::new(2, 5), img.clone()).unwrap();
        assert_eq!(f.page_image(PageAddr::new(2, 5)).unwrap(), img);
        let e = f
            .program(PageAddr::new(2, 4), &page_of(&g, 1), &[])
            .unwrap_err();
        assert!(matches!(e, FlashError::ProgramOutOfOrder { .. }));
        f.set_page_image(PageAddr::new(2, 5), PageImage::Erased)
            .unwrap();
        f.program(PageAddr::new(2, 0), &page_of(&g, 1), &[])
            .unwrap();
    }

    #[test]
    fn probe_erased_follows_page_state_not_bytes() {
        let mut f = dev();
        let g = *f.geometry();
        let p = PageAddr::new(3, 0);
        assert!(f.probe_erased(p).unwrap());
        // A programmed page whose bytes are all 0xFF is still programmed.
        f.program(p, &page_of(&g, 0xFF), &[]).unwrap();
        assert!(!f.probe_erased(p).unwrap());
        assert!(f.probe_erased(PageAddr::new(3, 1)).unwrap());
        f.erase(BlockId(3)).unwrap();
        assert!(f.probe_erased(p).unwrap());
        assert!(f.probe_erased(PageAddr::new(3, 99)).is_err());
    }

    #[test]
    fn nvram_bounds() {
        let mut f = dev();
        let n = f.nvram_size();
        f.nvram_write(n - 2, &[1, 2]).unwrap();
        let mut b = [0; 2];
        f.nvram_read(n - 2, &mut b).unwrap();
        assert_eq!(b, [1, 2]);
        assert!(f.nvram_write(n - 1, &[1, 2]).is_err());
        assert!(f.nvram_read(usize::MAX, &mut b).is_err());
    }
}
