//! `SharedFlash`: a cloneable handle to one flash device, so a test harness
//! can keep access to the device an FTL owns (to cut power under it, or to
//! inspect it after the FTL has failed) without the FTL knowing.

use std::cell::RefCell;
use std::rc::Rc;

use crate::{BlockId, Flash, FlashCounters, Geometry, PageAddr, Result};

/// A shared, single-threaded handle to a flash device.
pub struct SharedFlash<F> {
    inner: Rc<RefCell<F>>,
    geometry: Geometry,
}

impl<F> Clone for SharedFlash<F> {
    fn clone(&self) -> Self {
        SharedFlash {
            inner: Rc::clone(&self.inner),
            geometry: self.geometry,
        }
    }
}

impl<F: Flash> SharedFlash<F> {
    /// Wraps a device.
    pub fn new(flash: F) -> SharedFlash<F> {
        let geometry = *flash.geometry();
        SharedFlash {
            inner: Rc::new(RefCell::new(flash)),
            geometry,
        }
    }

    /// Runs `f` with the device borrowed mutably.
    pub fn with<R>(&self, f: impl FnOnce(&mut F) -> R) -> R {
        f(&mut self.inner.borrow_mut())
    }
}

impl<F: Flash> Flash for SharedFlash<F> {
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> Result<()> {
        self.inner.borrow_mut().read(page, first_sector, data)
    }
    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()> {
        self.inner.borrow_mut().read_oob(page, oob)
    }
    fn read_with_oob(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.inner
            .borrow_mut()
            .read_with_oob(page, first_sector, data, oob)
    }

    fn read_for_copy(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.inner
            .borrow_mut()
            .read_for_copy(page, first_sector, data, oob)
    }

    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        self.inner.borrow_mut().copy_into(from, to)
    }

    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        self.inner.borrow_mut().probe_erased(page)
    }
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.inner.borrow_mut().prefetch(pages)
    }
    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        self.inner.borrow_mut().program(page, data, oob)
    }
    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.inner.borrow_mut().erase(block)
    }
    fn sync(&mut self) -> Result<()> {
        self.inner.borrow_mut().sync()
    }
    fn submit(&mut self) -> Result<()> {
        self.inner.borrow_mut().submit()
    }
    fn program_many(&mut self, pages: &[PageAddr], data: &[u8], oob: &[u8]) -> Result<()> {
        self.inner.borrow_mut().program_many(pages, data, oob)
    }
    fn nvram_size(&self) -> usize {
        self.inner.borrow().nvram_size()
    }
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.inner.borrow_mut().nvram_read(offset, buf)
    }
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.inner.borrow_mut().nvram_write(offset, data)
    }
    fn counters(&self) -> FlashCounters {
        self.inner.borrow().counters()
    }
    fn lost_programs_can_return(&self) -> bool {
        self.inner.borrow().lost_programs_can_return()
    }
    fn block_wear(&self, block: crate::BlockId) -> crate::Result<crate::BlockWear> {
        self.inner.borrow().block_wear(block)
    }
    fn mark_bad(&mut self, block: crate::BlockId) -> crate::Result<()> {
        self.inner.borrow_mut().mark_bad(block)
    }
}
