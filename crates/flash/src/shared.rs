//! `SharedFlash`: a cloneable handle to one flash device, so a test harness
//! can keep access to the device an FTL owns (to cut power under it, or to
//! inspect it after the FTL has failed) without the FTL knowing.

use std::cell::RefCell;
use std::rc::Rc;

use std::ops::{Deref, DerefMut};

use crate::{Flash, Geometry};

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

/// Every command goes to the one shared device, unchanged.
impl<F: Flash> crate::Layer for SharedFlash<F> {
    type Below = F;
    fn below(&self) -> impl Deref<Target = F> + '_ {
        self.inner.borrow()
    }
    fn below_mut(&mut self) -> impl DerefMut<Target = F> + '_ {
        self.inner.borrow_mut()
    }
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// A sync in two parts passes through too (the handle changes no
    /// command; the ticket's wait needs no device).
    fn start_sync(&mut self) -> Option<crate::Result<crate::SyncTicket>> {
        self.inner.borrow_mut().start_sync()
    }

    fn finish_sync(&mut self, ticket: &crate::SyncTicket) -> crate::Result<()> {
        self.inner.borrow_mut().finish_sync(ticket)
    }
}
