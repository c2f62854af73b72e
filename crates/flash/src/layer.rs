//! Flash layers: the one way to wrap a [`Flash`] device.
//!
//! What it is: the [`Layer`] trait. A type that sits on top of another
//! flash device (a timing model, a crash injector, a shared handle, a
//! copy-on-write overlay, a test's power-cut counter) implements `Layer`
//! instead of `Flash`, and gets `Flash` from the one blanket
//! `impl<L: Layer> Flash for L` below. A layer names the device beneath it
//! ([`Layer::below`], [`Layer::below_mut`]) and overrides only the hooks
//! whose meaning it changes; every other command reaches the device below
//! unchanged, as the same command.
//!
//! What it promises: commands come to a layer in *families*, one hook per
//! family, so a layer cannot intercept one form of a command and let
//! another form slip past it:
//!
//! * [`Layer::read`] gets every read command ([`ReadCmd`]: data, OOB, data
//!   with OOB, read for copy, erased probe);
//! * [`Layer::program`] gets every program ([`ProgramCmd`]: one page, or a
//!   multi-page `program_many`);
//! * erase, sync, submit, the battery-backed buffer, the two timing hints
//!   and the wear record each have their own hook;
//! * the shared-access read ([`Layer::read_shared`]) and the detached
//!   sync ([`Layer::start_sync`]) have hooks whose default answers "not
//!   here" instead of forwarding, so the caller falls back to the
//!   exclusive forms above, which the layer sees.
//!
//! A hook that is not overridden issues the command to the device below in
//! the form it came in (`ReadCmd::issue`, `ProgramCmd::issue`): a multi-page
//! program stays one `program_many`, a read with OOB stays one read
//! command. A layer that deliberately changes the form (splits a
//! multi-page program into single programs, absorbs a hint) does it in an
//! explicit override that says why in a comment; `tests/layers.rs` runs
//! every layer over a probe device and checks which forms reach it.
//!
//! What it must never do: let a command reach the device below in a form
//! the layer did not choose. Adding a method to [`Flash`] means adding it
//! here (in its family, or as a new hook with a forwarding default) and in
//! the blanket impl — and in no layer that does not change its meaning.
//!
//! Naming: `Layer`'s hooks share the names of the `Flash` methods they
//! serve, so a scope that imports both traits finds two `sync` methods on
//! a layer. Never import `Layer`: implement it by path
//! (`impl flash::Layer for MyLayer`), and every method call on a layer
//! resolves to its `Flash` method.

use std::ops::{Deref, DerefMut};

use crate::{
    check_oob_read, check_read, program_each, BlockId, BlockWear, Flash, FlashCounters, FlashError,
    Geometry, PageAddr, PageRead, Result, ERASED_BYTE,
};

/// One read command, in the form the caller issued it.
pub enum ReadCmd<'a> {
    /// [`Flash::read`]: whole sectors of a page from `first_sector`.
    Data {
        page: PageAddr,
        first_sector: u32,
        data: &'a mut [u8],
    },
    /// [`Flash::read_oob`]: the start of the spare area.
    Oob { page: PageAddr, oob: &'a mut [u8] },
    /// [`Flash::read_with_oob`]: sectors and spare area as one command.
    WithOob {
        page: PageAddr,
        first_sector: u32,
        data: &'a mut [u8],
        oob: &'a mut [u8],
    },
    /// [`Flash::read_for_copy`]: a read with OOB whose data only goes into
    /// a later program.
    ForCopy {
        page: PageAddr,
        first_sector: u32,
        data: &'a mut [u8],
        oob: &'a mut [u8],
    },
    /// [`Flash::probe_erased`]: senses the page, returns whether it is
    /// erased.
    ProbeErased { page: PageAddr },
}

impl ReadCmd<'_> {
    /// The page read.
    pub fn page(&self) -> PageAddr {
        match self {
            ReadCmd::Data { page, .. }
            | ReadCmd::Oob { page, .. }
            | ReadCmd::WithOob { page, .. }
            | ReadCmd::ForCopy { page, .. }
            | ReadCmd::ProbeErased { page } => *page,
        }
    }

    /// Bytes that cross the channel (data and OOB; 0 for a probe, which
    /// returns only a status).
    pub fn bytes(&self) -> usize {
        match self {
            ReadCmd::Data { data, .. } => data.len(),
            ReadCmd::Oob { oob, .. } => oob.len(),
            ReadCmd::WithOob { data, oob, .. } | ReadCmd::ForCopy { data, oob, .. } => {
                data.len() + oob.len()
            }
            ReadCmd::ProbeErased { .. } => 0,
        }
    }

    /// The sectors read and the first of them (`None` for a read of the
    /// spare area alone or a probe).
    pub fn data_mut(&mut self) -> Option<(u32, &mut [u8])> {
        match self {
            ReadCmd::Data {
                first_sector, data, ..
            }
            | ReadCmd::WithOob {
                first_sector, data, ..
            }
            | ReadCmd::ForCopy {
                first_sector, data, ..
            } => Some((*first_sector, &mut **data)),
            ReadCmd::Oob { .. } | ReadCmd::ProbeErased { .. } => None,
        }
    }

    /// The spare-area buffer, if the read has one.
    pub fn oob_mut(&mut self) -> Option<&mut [u8]> {
        match self {
            ReadCmd::Oob { oob, .. }
            | ReadCmd::WithOob { oob, .. }
            | ReadCmd::ForCopy { oob, .. } => Some(&mut **oob),
            ReadCmd::Data { .. } | ReadCmd::ProbeErased { .. } => None,
        }
    }

    /// Checks the page and the buffers against the geometry, as a backend
    /// does before it reads.
    pub fn check(&self, g: &Geometry) -> Result<()> {
        match self {
            ReadCmd::Data {
                page,
                first_sector,
                data,
            } => check_read(g, *page, *first_sector, data.len()).map(drop),
            ReadCmd::Oob { page, oob } => check_oob_read(g, *page, oob),
            ReadCmd::WithOob {
                page,
                first_sector,
                data,
                oob,
            }
            | ReadCmd::ForCopy {
                page,
                first_sector,
                data,
                oob,
            } => {
                check_read(g, *page, *first_sector, data.len())?;
                check_oob_read(g, *page, oob)
            }
            ReadCmd::ProbeErased { page } => g.check_page(*page),
        }
    }

    /// Answers this read from a page the layer holds itself: `Some((data,
    /// oob))`, a whole page and a whole spare area, or `None` for an erased
    /// page. Returns what [`ReadCmd::issue`] returns. The buffers must have
    /// passed [`ReadCmd::check`].
    pub fn answer(&mut self, g: &Geometry, image: Option<(&[u8], &[u8])>) -> bool {
        let ss = g.sector_size as usize;
        if let Some((first, data)) = self.data_mut() {
            match image {
                None => data.fill(ERASED_BYTE),
                Some((d, _)) => {
                    let off = first as usize * ss;
                    data.copy_from_slice(&d[off..off + data.len()]);
                }
            }
        }
        if let Some(oob) = self.oob_mut() {
            match image {
                None => oob.fill(ERASED_BYTE),
                Some((_, o)) => {
                    let n = oob.len();
                    oob.copy_from_slice(&o[..n]);
                }
            }
        }
        matches!(self, ReadCmd::ProbeErased { .. }) && image.is_none()
    }

    /// Issues this read to `f` in the form it came in. Returns the probe's
    /// answer for [`ReadCmd::ProbeErased`] and `false` for the other reads.
    pub fn issue<F: Flash + ?Sized>(&mut self, f: &mut F) -> Result<bool> {
        match self {
            ReadCmd::Data {
                page,
                first_sector,
                data,
            } => f.read(*page, *first_sector, data).map(|()| false),
            ReadCmd::Oob { page, oob } => f.read_oob(*page, oob).map(|()| false),
            ReadCmd::WithOob {
                page,
                first_sector,
                data,
                oob,
            } => f
                .read_with_oob(*page, *first_sector, data, oob)
                .map(|()| false),
            ReadCmd::ForCopy {
                page,
                first_sector,
                data,
                oob,
            } => f
                .read_for_copy(*page, *first_sector, data, oob)
                .map(|()| false),
            ReadCmd::ProbeErased { page } => f.probe_erased(*page),
        }
    }
}

/// One page of a program: where, its data, its OOB.
pub type PageWrite<'a> = (PageAddr, &'a [u8], &'a [u8]);

/// One program command, in the form the caller issued it.
#[derive(Clone, Copy)]
pub enum ProgramCmd<'a> {
    /// [`Flash::program`] of one page.
    One {
        page: PageAddr,
        data: &'a [u8],
        oob: &'a [u8],
    },
    /// [`Flash::program_many`]: page `pages[i]` gets the i-th page-sized
    /// slice of `data` and the i-th equal share of `oob`.
    Many {
        pages: &'a [PageAddr],
        data: &'a [u8],
        oob: &'a [u8],
    },
}

impl<'a> ProgramCmd<'a> {
    /// The pages programmed, in order.
    pub fn pages(&self) -> &[PageAddr] {
        match self {
            ProgramCmd::One { page, .. } => std::slice::from_ref(page),
            ProgramCmd::Many { pages, .. } => pages,
        }
    }

    /// Each page with its data and OOB, in order, after checking that the
    /// buffers of a multi-page program divide evenly (as
    /// [`program_each`] does). A page's own lengths are checked by the
    /// device that programs it. Allocates nothing: layers call it for
    /// every program they split (the crash layer's hot path).
    pub fn each(&self, g: &Geometry) -> Result<impl Iterator<Item = PageWrite<'a>>> {
        let cmd = *self;
        let (n, data, oob) = match cmd {
            ProgramCmd::One { data, oob, .. } => (1, data, oob),
            ProgramCmd::Many { pages, data, oob } => (pages.len(), data, oob),
        };
        // Data and OOB bytes per page.
        let (ps, on) = match cmd {
            ProgramCmd::One { .. } => (data.len(), oob.len()),
            ProgramCmd::Many { .. } if n == 0 => (0, 0),
            ProgramCmd::Many { .. } => {
                let ps = g.page_size();
                if data.len() != n * ps || !oob.len().is_multiple_of(n) {
                    return Err(FlashError::BadLength {
                        what: "program_many buffers (page_size bytes of data per page, equal OOB areas)",
                        expected: n * ps,
                        got: data.len(),
                    });
                }
                (ps, oob.len() / n)
            }
        };
        let page = move |i: usize| match cmd {
            ProgramCmd::One { page, .. } => page,
            ProgramCmd::Many { pages, .. } => pages[i],
        };
        Ok((0..n).map(move |i| {
            (
                page(i),
                &data[i * ps..(i + 1) * ps],
                &oob[i * on..(i + 1) * on],
            )
        }))
    }

    /// How many of the pages reached the medium, given the outcome of
    /// issuing this program: all of them on success; on a media failure
    /// ([`FlashError::ProgramFailed`]), those before the page it consumed
    /// (a multi-page program stops there, as [`program_each`] does); none
    /// for an error that refuses the command (a NAND rule, a power cut).
    pub fn done(&self, outcome: &Result<()>) -> usize {
        let pages = self.pages();
        match outcome {
            Ok(()) => pages.len(),
            Err(FlashError::ProgramFailed { block, page }) => pages
                .iter()
                .position(|p| p.block.0 == *block && p.page == *page)
                .unwrap_or(0),
            Err(_) => 0,
        }
    }

    /// Issues this program to `f` in the form it came in: one
    /// [`Flash::program`] or one [`Flash::program_many`].
    pub fn issue<F: Flash + ?Sized>(&self, f: &mut F) -> Result<()> {
        match *self {
            ProgramCmd::One { page, data, oob } => f.program(page, data, oob),
            ProgramCmd::Many { pages, data, oob } => f.program_many(pages, data, oob),
        }
    }

    /// Issues this program to `f` one page at a time, as
    /// [`program_each`] does (for a layer whose every page is a command of
    /// its own, such as a crash point).
    pub fn issue_each<F: Flash + ?Sized>(&self, f: &mut F) -> Result<()> {
        match *self {
            ProgramCmd::One { page, data, oob } => f.program(page, data, oob),
            ProgramCmd::Many { pages, data, oob } => program_each(f, pages, data, oob),
        }
    }
}

/// A flash device on top of another one. See the module documentation.
///
/// Every hook has a default that issues the command, unchanged, to the
/// device below, except [`Layer::geometry`] (a layer behind a lock cannot
/// lend the device's geometry out of it; most layers keep a copy).
pub trait Layer {
    /// The device beneath.
    type Below: Flash + ?Sized;

    /// The device beneath, for the hooks that only look (counters, the
    /// battery-backed buffer's size, wear records).
    fn below(&self) -> impl Deref<Target = Self::Below> + '_;

    /// The device beneath, for the hooks that issue commands.
    fn below_mut(&mut self) -> impl DerefMut<Target = Self::Below> + '_;

    /// [`Flash::geometry`]: required (see the trait documentation).
    fn geometry(&self) -> &Geometry;

    /// Every read command ([`Flash::read`], `read_oob`, `read_with_oob`,
    /// `read_for_copy`, `probe_erased`). Returns the probe's answer, and
    /// `false` for the other reads.
    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        let mut cmd = cmd;
        cmd.issue(&mut *self.below_mut())
    }

    /// Every program command ([`Flash::program`], `program_many`).
    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        cmd.issue(&mut *self.below_mut())
    }

    /// [`Flash::erase`].
    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.below_mut().erase(block)
    }

    /// [`Flash::sync`].
    fn sync(&mut self) -> Result<()> {
        self.below_mut().sync()
    }

    /// [`Flash::submit`].
    fn submit(&mut self) -> Result<()> {
        self.below_mut().submit()
    }

    /// [`Flash::read_shared`]. Unlike every other hook, the default does
    /// *not* forward: it answers `None` (the caller then reads through
    /// [`Layer::read`] with exclusive access), so a layer that changes reads
    /// cannot be bypassed. A layer whose reads pass through unchanged says
    /// so by overriding this to forward.
    fn read_shared(&self, reads: &mut [PageRead<'_>]) -> Option<Result<()>> {
        let _ = reads;
        None
    }

    /// [`Flash::start_sync`]. As [`Layer::read_shared`], the default
    /// answers `None` (the caller syncs through [`Layer::sync`]), so a
    /// layer that changes syncs cannot be bypassed; one whose syncs pass
    /// through unchanged overrides this to forward.
    fn start_sync(&mut self) -> Option<Result<crate::SyncTicket>> {
        None
    }

    /// [`Flash::detach_submits`]. As [`Layer::start_sync`], the default
    /// answers `false` (submits stay synchronous through [`Layer::submit`]);
    /// a layer whose submits and syncs pass through unchanged may forward.
    fn detach_submits(&mut self) -> bool {
        false
    }

    /// [`Flash::take_detached`] (only asked of a layer whose
    /// `detach_submits` turned them on).
    fn take_detached(&mut self) -> Option<crate::DetachedWrite> {
        self.below_mut().take_detached()
    }

    /// [`Flash::finish_sync`] (only reached with a ticket this layer's
    /// `start_sync` gave).
    fn finish_sync(&mut self, ticket: &crate::SyncTicket) -> Result<()> {
        self.below_mut().finish_sync(ticket)
    }

    /// [`Flash::prefetch`] (a timing hint).
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.below_mut().prefetch(pages)
    }

    /// [`Flash::copy_into`] (a timing hint).
    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        self.below_mut().copy_into(from, to)
    }

    /// [`Flash::nvram_size`].
    fn nvram_size(&self) -> usize {
        self.below().nvram_size()
    }

    /// [`Flash::nvram_read`].
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.below_mut().nvram_read(offset, buf)
    }

    /// [`Flash::nvram_write`].
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.below_mut().nvram_write(offset, data)
    }

    /// [`Flash::counters`].
    fn counters(&self) -> FlashCounters {
        self.below().counters()
    }

    /// [`Flash::lost_programs_can_return`].
    fn lost_programs_can_return(&self) -> bool {
        self.below().lost_programs_can_return()
    }

    /// [`Flash::block_wear`].
    fn block_wear(&self, block: BlockId) -> Result<BlockWear> {
        self.below().block_wear(block)
    }

    /// [`Flash::mark_bad`].
    fn mark_bad(&mut self, block: BlockId) -> Result<()> {
        self.below_mut().mark_bad(block)
    }
}

/// `read_with_oob` (or, with `for_copy`, `read_for_copy`) as the layer's
/// read hook sees it.
fn read_with_spare<L: Layer>(
    layer: &mut L,
    for_copy: bool,
    page: PageAddr,
    first_sector: u32,
    data: &mut [u8],
    oob: &mut [u8],
) -> Result<()> {
    let cmd = match for_copy {
        false => ReadCmd::WithOob {
            page,
            first_sector,
            data,
            oob,
        },
        true => ReadCmd::ForCopy {
            page,
            first_sector,
            data,
            oob,
        },
    };
    Layer::read(layer, cmd).map(drop)
}

/// The one `Flash` implementation of every layer: each method hands its
/// command to the layer's hook for its family.
impl<L: Layer> Flash for L {
    fn geometry(&self) -> &Geometry {
        Layer::geometry(self)
    }
    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> Result<()> {
        let cmd = ReadCmd::Data {
            page,
            first_sector,
            data,
        };
        Layer::read(self, cmd).map(drop)
    }
    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()> {
        Layer::read(self, ReadCmd::Oob { page, oob }).map(drop)
    }
    fn read_with_oob(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        read_with_spare(self, false, page, first_sector, data, oob)
    }
    fn read_for_copy(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        read_with_spare(self, true, page, first_sector, data, oob)
    }
    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        Layer::copy_into(self, from, to)
    }
    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        Layer::read(self, ReadCmd::ProbeErased { page })
    }
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        Layer::prefetch(self, pages)
    }
    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        Layer::program(self, ProgramCmd::One { page, data, oob })
    }
    fn program_many(&mut self, pages: &[PageAddr], data: &[u8], oob: &[u8]) -> Result<()> {
        Layer::program(self, ProgramCmd::Many { pages, data, oob })
    }
    fn erase(&mut self, block: BlockId) -> Result<()> {
        Layer::erase(self, block)
    }
    fn sync(&mut self) -> Result<()> {
        Layer::sync(self)
    }
    fn submit(&mut self) -> Result<()> {
        Layer::submit(self)
    }
    fn read_shared(&self, reads: &mut [PageRead<'_>]) -> Option<Result<()>> {
        Layer::read_shared(self, reads)
    }
    fn start_sync(&mut self) -> Option<Result<crate::SyncTicket>> {
        Layer::start_sync(self)
    }
    fn detach_submits(&mut self) -> bool {
        Layer::detach_submits(self)
    }
    fn take_detached(&mut self) -> Option<crate::DetachedWrite> {
        Layer::take_detached(self)
    }
    fn finish_sync(&mut self, ticket: &crate::SyncTicket) -> Result<()> {
        Layer::finish_sync(self, ticket)
    }
    fn nvram_size(&self) -> usize {
        Layer::nvram_size(self)
    }
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        Layer::nvram_read(self, offset, buf)
    }
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        Layer::nvram_write(self, offset, data)
    }
    fn counters(&self) -> FlashCounters {
        Layer::counters(self)
    }
    fn lost_programs_can_return(&self) -> bool {
        Layer::lost_programs_can_return(self)
    }
    fn block_wear(&self, block: BlockId) -> Result<BlockWear> {
        Layer::block_wear(self, block)
    }
    fn mark_bad(&mut self, block: BlockId) -> Result<()> {
        Layer::mark_bad(self, block)
    }
}

/// The part of a `Layer` implementation that names a device held in a
/// field: `flash::layer_below!(inner: F);` inside the `impl` declares
/// `type Below = F` and `below`/`below_mut` as references to
/// `self.inner`. (A device behind a lock writes the two methods itself,
/// returning the guard.)
#[macro_export]
macro_rules! layer_below {
    ($field:ident: $ty:ty) => {
        type Below = $ty;
        fn below(&self) -> impl ::std::ops::Deref<Target = $ty> + '_ {
            &self.$field
        }
        fn below_mut(&mut self) -> impl ::std::ops::DerefMut<Target = $ty> + '_ {
            &mut self.$field
        }
    };
}

/// A boxed device is a layer that changes nothing.
impl<F: Flash + ?Sized> Layer for Box<F> {
    type Below = F;
    fn below(&self) -> impl Deref<Target = F> + '_ {
        &**self
    }
    fn below_mut(&mut self) -> impl DerefMut<Target = F> + '_ {
        &mut **self
    }
    fn geometry(&self) -> &Geometry {
        (**self).geometry()
    }
    fn read_shared(&self, reads: &mut [PageRead<'_>]) -> Option<Result<()>> {
        (**self).read_shared(reads)
    }
    fn start_sync(&mut self) -> Option<Result<crate::SyncTicket>> {
        (**self).start_sync()
    }
    fn detach_submits(&mut self) -> bool {
        (**self).detach_submits()
    }
}
