//! `OverlayFlash`: a copy-on-write RAM overlay over a device that must not
//! change, such as an image opened read-only. Recovery of some FTLs writes
//! (the sync FTL moves its battery-backed log to flash; the async FTL erases
//! the block it will write next); over an overlay those writes land in RAM
//! and the device below is never touched.
//!
//! Invariants: a page present in `pages` shadows the inner page completely
//! (`None` = erased in the overlay); `nvram` is `None` until the first nvram
//! write, then a full copy of the inner buffer.

use std::collections::HashMap;

use crate::{
    check_nvram, check_program, nvram_copy_in, nvram_copy_out, BlockId, FlashCounters, FlashError,
    Geometry, PageAddr, PageImage, ProgramCmd, RawFlash, ReadCmd, Result, ERASED_BYTE,
};

/// A page held by the overlay: `None` = erased, else (data, OOB).
type OverlayPage = Option<(Box<[u8]>, Box<[u8]>)>;

/// A RAM overlay that absorbs every program, erase and nvram write.
pub struct OverlayFlash<F> {
    inner: F,
    geometry: Geometry,
    pages: HashMap<u64, OverlayPage>,
    nvram: Option<Vec<u8>>,
    counters: FlashCounters,
    /// Blocks the FTL retired while the overlay was open.
    retired: std::collections::HashSet<u32>,
}

impl<F: RawFlash> OverlayFlash<F> {
    /// Wraps `inner`; nothing is ever written to it.
    pub fn new(inner: F) -> OverlayFlash<F> {
        let geometry = *inner.geometry();
        OverlayFlash {
            inner,
            geometry,
            pages: HashMap::new(),
            nvram: None,
            counters: FlashCounters::default(),
            retired: std::collections::HashSet::new(),
        }
    }

    /// Pages the overlay holds (changed since it was created).
    pub fn overlaid_pages(&self) -> usize {
        self.pages.len()
    }

    /// The wrapped device, unchanged.
    pub fn into_inner(self) -> F {
        self.inner
    }

    fn is_programmed(&self, page: PageAddr) -> Result<bool> {
        match self.pages.get(&self.geometry.page_index(page)) {
            Some(p) => Ok(p.is_some()),
            None => Ok(matches!(
                self.inner.page_image(page)?,
                PageImage::Programmed { .. }
            )),
        }
    }
}

impl<F: RawFlash> OverlayFlash<F> {
    /// Programs one page into the overlay.
    fn program_one(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        check_program(&self.geometry, page, data, oob)?;
        if self.is_programmed(page)? {
            return Err(FlashError::ProgramNotErased {
                block: page.block.0,
                page: page.page,
            });
        }
        let mut o = vec![ERASED_BYTE; self.geometry.oob_size as usize];
        o[..oob.len()].copy_from_slice(oob);
        self.pages.insert(
            self.geometry.page_index(page),
            Some((data.into(), o.into())),
        );
        self.counters.programs += 1;
        Ok(())
    }
}

/// Reads of pages the overlay does not hold go to the device beneath in
/// the form they came in; every command that changes anything stays in the
/// overlay. `prefetch` and `copy_into` (timing hints) pass through.
impl<F: RawFlash> crate::Layer for OverlayFlash<F> {
    crate::layer_below!(inner: F);
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        cmd.check(&self.geometry)?;
        self.counters.reads += 1;
        let mut cmd = cmd;
        match self.pages.get(&self.geometry.page_index(cmd.page())) {
            None => cmd.issue(&mut self.inner),
            Some(held) => {
                let image = held.as_ref().map(|(d, o)| (&d[..], &o[..]));
                Ok(cmd.answer(&self.geometry, image))
            }
        }
    }

    /// Deliberately page by page: every page lands in the overlay, none
    /// reaches the device beneath.
    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        for (page, data, oob) in cmd.each(&self.geometry)? {
            self.program_one(page, data, oob)?;
        }
        Ok(())
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.geometry.check_block(block)?;
        for p in 0..self.geometry.pages_per_block {
            self.pages
                .insert(self.geometry.page_index(PageAddr { block, page: p }), None);
        }
        self.counters.erases += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.counters.syncs += 1;
        Ok(())
    }

    /// Programs land in the overlay at once: nothing is held back.
    fn submit(&mut self) -> Result<()> {
        Ok(())
    }

    fn nvram_size(&self) -> usize {
        self.inner.nvram_size()
    }

    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        match &self.nvram {
            None => self.inner.nvram_read(offset, buf),
            Some(nv) => nvram_copy_out(nv, offset, buf),
        }
    }

    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        let size = self.inner.nvram_size();
        check_nvram(size, offset, data.len())?;
        if self.nvram.is_none() {
            let mut copy = vec![0; size];
            self.inner.nvram_read(0, &mut copy)?;
            self.nvram = Some(copy);
        }
        nvram_copy_in(self.nvram.as_mut().expect("just filled"), offset, data)
    }

    fn counters(&self) -> FlashCounters {
        self.counters
    }
    /// Programs land in RAM, which holds exactly what was programmed.
    fn lost_programs_can_return(&self) -> bool {
        false
    }
    /// The image's records: erases in the overlay are not counted (the
    /// overlay models no wear).
    fn block_wear(&self, block: BlockId) -> Result<crate::BlockWear> {
        let w = self.inner.block_wear(block)?;
        Ok(if self.retired.contains(&block.0) {
            crate::BlockWear {
                health: crate::BlockHealth::Retired,
                ..w
            }
        } else {
            w
        })
    }
    /// Kept in the overlay (RAM), like every other change.
    fn mark_bad(&mut self, block: BlockId) -> Result<()> {
        self.geometry.check_block(block)?;
        self.retired.insert(block.0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Flash;
    use crate::MemFlash;

    #[test]
    fn overlay_absorbs_writes_and_leaves_the_device_unchanged() {
        let g = Geometry::tiny();
        let mut m = MemFlash::new(g).unwrap();
        m.program(PageAddr::new(1, 0), &vec![1; g.page_size()], &[9])
            .unwrap();
        m.nvram_write(0, &[5]).unwrap();
        let mut o = OverlayFlash::new(m);
        let mut buf = vec![0; g.page_size()];
        o.read(PageAddr::new(1, 0), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 1));
        let e = o
            .program(PageAddr::new(1, 0), &vec![2; g.page_size()], &[])
            .unwrap_err();
        assert!(matches!(e, FlashError::ProgramNotErased { .. }));
        o.erase(BlockId(1)).unwrap();
        o.read(PageAddr::new(1, 0), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0xFF));
        o.program(PageAddr::new(1, 0), &vec![3; g.page_size()], &[7])
            .unwrap();
        o.read(PageAddr::new(1, 0), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 3));
        let mut oob = [0u8; 2];
        o.read_oob(PageAddr::new(1, 0), &mut oob).unwrap();
        assert_eq!(oob, [7, 0xFF]);
        o.nvram_write(0, &[6]).unwrap();
        let mut nv = [0u8; 1];
        o.nvram_read(0, &mut nv).unwrap();
        assert_eq!(nv, [6]);
        let mut m = o.into_inner();
        m.read(PageAddr::new(1, 0), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 1), "inner device untouched");
        m.nvram_read(0, &mut nv).unwrap();
        assert_eq!(nv, [5]);
    }
}
