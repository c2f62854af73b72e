//! NAND flash model for scftl.
//!
//! What it is: the [`Flash`] trait — the only way the FTLs touch a device —
//! plus its geometry and backends: [`MemFlash`] (RAM), and, in sibling
//! modules, a persistent image file; and the layers that wrap a device
//! ([`Layer`]: a crash injector, a discrete-event timing model and its
//! real-time pacing, a shared handle, a copy-on-write overlay). A type
//! that wraps a device implements [`Layer`], never `Flash` directly.
//!
//! What it promises: the NAND rules and the asynchronous-command semantics of
//! the SCFTL paper (§3.1, §5.1) are enforced by every backend, and a rule
//! violation is an error value that leaves the device unchanged.
//!
//! What it must never do: know anything about FTLs, or let a caller observe
//! a state that real NAND could not be in.
//!
//! # The contract of a flash device
//!
//! * A device is `dies()` parallel units of `blocks_per_die` erase blocks of
//!   `pages_per_block` pages. A page holds `sectors_per_page` sectors of
//!   `sector_size` bytes plus `oob_size` bytes of spare (OOB) area.
//! * **Erase before program**: a page can be programmed only when erased, and
//!   only as a whole (data and OOB together).
//! * **In-order programming**: within a block, pages are programmed in
//!   increasing order. Skipping pages is allowed; going back is not.
//! * **Whole-block erase**. An erased page reads as all `0xFF`, data and OOB.
//! * **Asynchronous commands**: [`Flash::program`] and [`Flash::erase`] are
//!   queued and return at once; reads always see the newest queued content;
//!   [`Flash::sync`] returns when everything queued is done. Commands on the
//!   same page take effect in the order issued; commands on different pages in
//!   any order.
//! * **Power loss**: every command not covered by a completed `sync` is in
//!   flight. After a power cut each page touched by in-flight commands holds
//!   its content before the first of them, the content after any of them, or
//!   torn garbage (an interrupted program or erase). Pages not touched since
//!   the last completed `sync` are intact. A small battery-backed buffer
//!   ([`Flash::nvram_write`]) survives power loss; each write to it is atomic.

pub mod codec;
pub mod crash;
pub mod dataless;
pub mod error;
pub mod file;
pub mod geometry;
pub mod layer;
pub mod mem;
pub mod overlay;
mod pages;
pub mod realtime;
pub mod shared;
pub mod timed;
pub mod wear;

pub use crash::{
    CrashFlash, CrashPolicy, CrashReport, LoggedCommand, MediaFaults, PageClass, PageOutcome,
    PagePairing,
};
pub use dataless::DatalessFlash;
pub use error::{FlashError, Result};
pub use file::crash::{ImageCrashFlash, MemImage};
pub use file::{DetachedWrite, FileFlash};
pub use geometry::{Geometry, PRESET_NAMES};
pub use layer::{Layer, ProgramCmd, ReadCmd};
pub use mem::MemFlash;
pub use overlay::OverlayFlash;
pub use realtime::{Clock, RealTime, RealTimeStats, RealTimeSwitch, WallClock};
pub use shared::SharedFlash;
pub use timed::{TimedFlash, TimingConfig};
pub use wear::{BlockHealth, BlockWear, WearModel};

/// An erase block, numbered `0..geometry.total_blocks()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// A page: block plus page index within the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PageAddr {
    pub block: BlockId,
    pub page: u32,
}

impl PageAddr {
    pub fn new(block: u32, page: u32) -> PageAddr {
        PageAddr {
            block: BlockId(block),
            page,
        }
    }
}

impl std::fmt::Display for PageAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "block {} page {}", self.block.0, self.page)
    }
}

/// Byte value of erased flash.
pub const ERASED_BYTE: u8 = 0xFF;

/// Operation counters every backend keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlashCounters {
    /// Read commands (one per `read`, `read_oob`, `read_with_oob`,
    /// `read_for_copy` or `probe_erased` call).
    pub reads: u64,
    /// Page programs.
    pub programs: u64,
    /// Block erases.
    pub erases: u64,
    /// Syncs.
    pub syncs: u64,
    /// Data bytes transferred by reads (OOB included).
    pub bytes_read: u64,
    /// Data bytes programmed (OOB included).
    pub bytes_programmed: u64,
    /// Programs that failed ([`FlashError::ProgramFailed`]; not in
    /// `programs`).
    pub failed_programs: u64,
    /// Erases that failed ([`FlashError::EraseFailed`]; not in `erases`).
    pub failed_erases: u64,
}

impl FlashCounters {
    /// Component-wise difference `self - earlier`.
    pub fn since(&self, earlier: &FlashCounters) -> FlashCounters {
        FlashCounters {
            reads: self.reads - earlier.reads,
            programs: self.programs - earlier.programs,
            erases: self.erases - earlier.erases,
            syncs: self.syncs - earlier.syncs,
            bytes_read: self.bytes_read - earlier.bytes_read,
            bytes_programmed: self.bytes_programmed - earlier.bytes_programmed,
            failed_programs: self.failed_programs - earlier.failed_programs,
            failed_erases: self.failed_erases - earlier.failed_erases,
        }
    }
}

/// A NAND flash device. See the crate documentation for the rules every
/// implementation enforces.
pub trait Flash {
    /// The device's shape.
    fn geometry(&self) -> &Geometry;

    /// Reads `data.len() / sector_size` whole sectors of `page`, starting at
    /// sector `first_sector` (a partial-page read; pass a page-sized buffer
    /// and 0 for the whole page). Sees the newest queued content.
    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> Result<()>;

    /// Reads the page's spare area; `oob.len()` must be at most `oob_size`.
    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()>;

    /// Reads `data.len() / sector_size` whole sectors of `page` from sector
    /// `first_sector` and the first `oob.len()` bytes of its spare area as
    /// ONE read command: the page is sensed once and data and spare cross
    /// the channel together, as a controller reads a page with its OOB.
    /// Counted as one read. The default issues [`Flash::read`] and then
    /// [`Flash::read_oob`] (two commands); backends override it.
    fn read_with_oob(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.read(page, first_sector, data)?;
        self.read_oob(page, oob)
    }

    /// [`Flash::read_with_oob`] for data the caller only copies into pages
    /// it programs later (GC relocation, issued ahead of need). The bytes
    /// returned are the same; only the timing may differ: a device may let
    /// the caller go on at once instead of waiting for the transfer, and
    /// start a program that carries the data (see
    /// [`Flash::copy_into_next_program`]) only once it has arrived. The
    /// default is [`Flash::read_with_oob`].
    fn read_for_copy(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.read_with_oob(page, first_sector, data, oob)
    }

    /// Says that data the caller read from `from` with
    /// [`Flash::read_for_copy`] goes into its coming program of `to`, so a
    /// device that models time starts that program no earlier than the
    /// read's data arrived. Changes nothing observable but timing; the
    /// default does nothing.
    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        let _ = (from, to);
    }

    /// Whether `page` is erased: never programmed since its block's last
    /// erase. This is a read command (the page is sensed, like a NAND
    /// controller's erased-page detection), so it is timed and counted as a
    /// read. The default reads data and OOB and checks for all `0xFF`;
    /// backends that track page state answer from it, so a torn page whose
    /// bytes happen to be all `0xFF` may be reported either way.
    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        let g = *self.geometry();
        let mut data = vec![0u8; g.page_size()];
        let mut oob = vec![0u8; g.oob_size as usize];
        self.read(page, 0, &mut data)?;
        self.read_oob(page, &mut oob)?;
        Ok(data.iter().chain(oob.iter()).all(|&b| b == ERASED_BYTE))
    }

    /// A hint that `pages` will be read soon: a device may start sensing
    /// them now, in parallel across dies, without making the caller wait.
    /// Changes nothing observable but timing; the default does nothing.
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        let _ = pages;
        Ok(())
    }

    /// Queues a program of a whole page. `data.len()` must be `page_size()`;
    /// `oob` may be shorter than `oob_size` (the rest is programmed as 0xFF).
    /// On aged or bad blocks a program may fail
    /// ([`FlashError::ProgramFailed`], see [`wear`]): the page is then
    /// consumed with unspecified content and the block's other pages keep
    /// theirs.
    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()>;

    /// Programs several whole pages, as [`Flash::program`] of each in turn:
    /// page `pages[i]` gets `data[i × page_size..][..page_size]` and the
    /// OOB `oob[i × n..][..n]`, `n` = `oob.len() / pages.len()` (at most
    /// `oob_size`; the rest is programmed as 0xFF). If one fails, the pages
    /// before it are programmed and the error is returned. The default
    /// loops over [`Flash::program`]; the image backend writes a run of
    /// consecutive slots straight from `data`, with no staging copy.
    fn program_many(&mut self, pages: &[PageAddr], data: &[u8], oob: &[u8]) -> Result<()> {
        program_each(self, pages, data, oob)
    }

    /// Queues an erase of a whole block. An erase of a bad block, or one
    /// past the block's endurance, fails ([`FlashError::EraseFailed`]) and
    /// changes no page; the block is bad from then on (see [`wear`]).
    fn erase(&mut self, block: BlockId) -> Result<()>;

    /// Waits until every queued command has taken effect.
    fn sync(&mut self) -> Result<()>;

    /// [`Flash::read_with_oob`] of each of `reads`, with shared access
    /// only, for a frontend that lets reads run in parallel with each other
    /// and with a flush's sync (`ftl::SharedDevice`). Each entry is one read
    /// command, counted as one; a device may fetch several of them at once
    /// (the image backend reads entries whose bytes follow one another in
    /// the file with one vectored read for their data and one for their
    /// OOB records). A device that answers `Some` gives what
    /// `read_with_oob` of each would give at that moment; on an error, the
    /// buffers hold unspecified bytes. `None`: this device needs exclusive
    /// access to read (a layer that changes, times or records reads; a
    /// backend whose reads update state); the caller then takes it and
    /// issues `read_with_oob`. The default is `None`, and a [`Layer`]
    /// answers `None` unless it overrides [`Layer::read_shared`]: a layer
    /// that intercepts reads can never be bypassed through this path.
    fn read_shared(&self, reads: &mut [PageRead<'_>]) -> Option<Result<()>> {
        let _ = reads;
        None
    }

    /// Starts a sync that the caller completes without this device, so
    /// that other commands (reads, programs, erases: the next epoch's
    /// writes) may be issued while it runs: hands everything held back to
    /// the medium (as [`Flash::submit`]) and returns a ticket whose
    /// [`SyncTicket::wait`] makes durable every command issued before this
    /// call (an `fdatasync` on an image, run on a duplicate of its file
    /// handle). Commands issued after it may or may not be covered. The
    /// caller then passes the ticket back to [`Flash::finish_sync`], with
    /// exclusive access, once `wait` succeeded. `None`: this device cannot
    /// (the default; a [`Layer`] answers `None` unless it overrides
    /// [`Layer::start_sync`]); the caller then calls [`Flash::sync`].
    fn start_sync(&mut self) -> Option<Result<SyncTicket>> {
        None
    }

    /// Records a sync started by [`Flash::start_sync`] whose
    /// [`SyncTicket::wait`] succeeded: the commands issued before it are
    /// durable from here on (a crash layer stops offering their loss). The
    /// default, for devices that start no such sync, syncs whole.
    fn finish_sync(&mut self, ticket: &SyncTicket) -> Result<()> {
        let _ = ticket;
        self.sync()
    }

    /// Hands every program the device accepted and holds back to the medium
    /// it writes to. A device may gather programs of consecutive pages and
    /// write them together — the image file does, one write per region for
    /// a run of pages — and reads see gathered programs either way;
    /// [`Flash::sync`] and [`Flash::erase`] submit first. After `submit` a
    /// crash of the calling process (not of the host) loses none of them:
    /// on an image the operating system holds them. Only `sync` makes them
    /// survive a power cut. The frontends submit at the end of every
    /// request (`ftl::AnyFtl`), so a killed server loses no acknowledged
    /// write. Required (no default) so that every wrapper passes it on;
    /// devices that gather nothing return `Ok(())`.
    fn submit(&mut self) -> Result<()>;

    /// Turns on detached writes, for a frontend that runs requests under a
    /// lock shared by many threads (`ftl::SharedDevice`): from now on
    /// [`Flash::submit`] hands what the device holds back to a write that
    /// [`Flash::take_detached`] returns and the caller runs after releasing
    /// its lock, instead of writing it itself (the image backend: the runs
    /// of gathered pages, whose copy into the page cache then holds up no
    /// other thread). Reads see the handed-over programs either way, and
    /// [`Flash::sync`], [`Flash::start_sync`] and [`Flash::erase`] first
    /// have every one of them in the medium (writing those no thread has
    /// started), so what a sync covers is unchanged. What changes: after
    /// `submit` and before the detached write ran, a crash of the calling
    /// process may lose those programs (never synced ones, which snapshot
    /// consistency lets a crash lose). Returns whether the device does
    /// this; the default, and a [`Layer`] unless it overrides it, does not
    /// (`false`), and `submit` stays as it was.
    fn detach_submits(&mut self) -> bool {
        false
    }

    /// The programs [`Flash::submit`] handed over since the last call, as
    /// one write to run without the device (`None`: none, or detached
    /// writes are off). Dropping it unrun is safe: the device writes the
    /// runs itself before its next sync or erase.
    fn take_detached(&mut self) -> Option<DetachedWrite> {
        None
    }

    /// Size of the battery-backed buffer in bytes (0 if there is none).
    fn nvram_size(&self) -> usize;

    /// Reads from the battery-backed buffer.
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()>;

    /// Writes to the battery-backed buffer; the write survives any power loss
    /// once this returns.
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()>;

    /// Operation counters since the device was created or opened.
    fn counters(&self) -> FlashCounters;

    /// Whether a program that a power cut lost can come back later, so an
    /// FTL opening the device must not program again, under the same
    /// identity (generation, epoch id, index), any place the crashed run
    /// may have programmed after its last sync. True for an image file
    /// opened for writing: a program whose state byte was lost but whose
    /// bytes landed reads as erased, and when the page is programmed again
    /// and that program's bytes are lost but its state byte lands, the old
    /// bytes are back, self-consistent (docs/FORMAT.md §2, "Host power
    /// cut"). NAND never does this — an erased page holds nothing — so the
    /// RAM and timed devices say false, and so does a read-only handle,
    /// which programs nothing. Required (no default) so that every wrapper
    /// passes its device's answer on.
    fn lost_programs_can_return(&self) -> bool;

    /// The block's wear record: erases issued to it and whether it is bad
    /// ([`wear`]). Not a flash command (nothing is counted or timed): the
    /// device keeps the record, as UBI keeps an erase counter per block.
    /// Required (no default) so that every wrapper passes it on.
    fn block_wear(&self, block: BlockId) -> Result<BlockWear>;

    /// Retires `block` for good: its wear record says
    /// [`BlockHealth::Retired`] from now on (kept across reopens by the
    /// image) and every later program or erase of it fails, as NAND FTLs
    /// mark a block bad in its spare area. Its pages keep their content.
    /// Not a counted command (a power cut may lose the mark on an image
    /// that was not synced since; the FTL then finds the block good and
    /// may retire it again). Required (no default) so that every wrapper
    /// passes it on.
    fn mark_bad(&mut self, block: BlockId) -> Result<()>;
}

/// [`Flash::program_many`] as one [`Flash::program`] per page, in order
/// (the trait's default, and what a backend falls back to).
pub fn program_each<F: Flash + ?Sized>(
    f: &mut F,
    pages: &[PageAddr],
    data: &[u8],
    oob: &[u8],
) -> Result<()> {
    let g = *f.geometry();
    for (p, d, o) in (ProgramCmd::Many { pages, data, oob }).each(&g)? {
        f.program(p, d, o)?;
    }
    Ok(())
}

/// What a page holds, as seen by a fault injector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageImage {
    /// Erased: reads as 0xFF and may be programmed.
    Erased,
    /// Programmed (possibly with torn garbage): must be erased before reuse.
    Programmed { data: Box<[u8]>, oob: Box<[u8]> },
}

impl PageImage {
    /// The (data, oob) bytes a read would return.
    pub fn bytes(&self, g: &Geometry) -> (Vec<u8>, Vec<u8>) {
        match self {
            PageImage::Erased => (
                vec![ERASED_BYTE; g.page_size()],
                vec![ERASED_BYTE; g.oob_size as usize],
            ),
            PageImage::Programmed { data, oob } => (data.to_vec(), oob.to_vec()),
        }
    }
}

/// The 64-bit digest of a programmed page's content that
/// [`RawFlash::page_digest`] returns: CRC-64/NVME over the data, then the
/// OOB. A fingerprint, not a check: distinct pages collide with
/// probability about 2^-64 (the crash checker's state deduplication
/// relies on that, as it did on SipHash before).
pub fn page_digest(data: &[u8], oob: &[u8]) -> u64 {
    let mut d = crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc64Nvme);
    d.update(data);
    d.update(oob);
    d.finalize()
}

/// Raw page access that bypasses the NAND rules, for fault layers such as
/// `CrashFlash` that must put a device into a post-power-loss state. Never
/// used by FTLs.
pub trait RawFlash: Flash {
    /// The page's current content (the newest queued value).
    fn page_image(&self, page: PageAddr) -> Result<PageImage>;

    /// The [`page_digest`] of the page's current content, `None` when it
    /// is erased: what a crash-state fingerprint hashes. The default copies
    /// the image; RAM devices hash their buffer in place.
    fn page_digest(&self, page: PageAddr) -> Result<Option<u64>> {
        Ok(match self.page_image(page)? {
            PageImage::Erased => None,
            PageImage::Programmed { data, oob } => Some(page_digest(&data, &oob)),
        })
    }

    /// Replaces the page's content and state. Programming-order bookkeeping
    /// is recomputed: afterwards the block's next programmable page is the one
    /// after its highest programmed page.
    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()>;

    /// Replaces the block's wear record (a fault layer marks a block worn
    /// out after an injected erase failure). Counts nothing.
    fn set_block_wear(&mut self, block: BlockId, wear: BlockWear) -> Result<()>;
}

/// Checks the buffers of a read against the geometry; returns the number of
/// sectors to read.
pub(crate) fn check_read(
    g: &Geometry,
    page: PageAddr,
    first_sector: u32,
    len: usize,
) -> Result<u32> {
    g.check_page(page)?;
    let ss = g.sector_size as usize;
    if len == 0 || !len.is_multiple_of(ss) {
        return Err(FlashError::BadLength {
            what: "read buffer (must be a non-zero whole number of sectors)",
            expected: ss,
            got: len,
        });
    }
    let n = (len / ss) as u64;
    let end = u64::from(first_sector) + n;
    if end > u64::from(g.sectors_per_page) {
        return Err(FlashError::SectorOutOfRange {
            first: first_sector,
            end: end.min(u64::from(u32::MAX)) as u32,
            sectors_per_page: g.sectors_per_page,
        });
    }
    Ok(n as u32)
}

/// Checks the buffers of a program against the geometry.
pub(crate) fn check_program(g: &Geometry, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
    g.check_page(page)?;
    if data.len() != g.page_size() {
        return Err(FlashError::BadLength {
            what: "program data (must be exactly one page)",
            expected: g.page_size(),
            got: data.len(),
        });
    }
    check_oob_len(g, "program OOB (at most the spare area)", oob.len())
}

/// Checks an OOB read buffer.
/// A sync started by [`Flash::start_sync`]: [`SyncTicket::wait`] makes
/// durable every command the device took before the ticket was made,
/// without holding the device; [`Flash::finish_sync`] then records it.
pub struct SyncTicket {
    /// Commands the device had issued when the sync started (a crash
    /// layer's count: those become durable at `finish_sync`).
    seq: u64,
    wait: Option<Box<dyn FnOnce() -> Result<()> + Send>>,
}

impl SyncTicket {
    /// A ticket whose `wait` runs `wait` (once).
    pub fn new(seq: u64, wait: impl FnOnce() -> Result<()> + Send + 'static) -> SyncTicket {
        SyncTicket {
            seq,
            wait: Some(Box::new(wait)),
        }
    }

    /// A ticket with nothing to wait for (a device whose commands are
    /// durable once issued, or that models durability at `finish_sync`).
    pub fn ready(seq: u64) -> SyncTicket {
        SyncTicket { seq, wait: None }
    }

    /// The command count the sync covers (see [`SyncTicket::new`]).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The same ticket with another command count (a layer that counts
    /// commands itself).
    pub fn with_seq(mut self, seq: u64) -> SyncTicket {
        self.seq = seq;
        self
    }

    /// The same ticket, running `before` first when waited on (a test
    /// layer that slows syncs down).
    pub fn after(self, before: impl FnOnce() + Send + 'static) -> SyncTicket {
        let SyncTicket { seq, wait } = self;
        SyncTicket::new(seq, move || {
            before();
            match wait {
                Some(w) => w(),
                None => Ok(()),
            }
        })
    }

    /// Waits for the sync. Call it without holding the device; a second
    /// call returns at once.
    pub fn wait(&mut self) -> Result<()> {
        match self.wait.take() {
            Some(w) => w(),
            None => Ok(()),
        }
    }
}

impl std::fmt::Debug for SyncTicket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncTicket")
            .field("seq", &self.seq)
            .field("waited", &self.wait.is_none())
            .finish()
    }
}

/// One read command of a [`Flash::read_shared`] batch: sectors of `page`
/// from `first_sector` on into `data` (whole sectors), and the start of its
/// spare area into `oob` (at most `oob_size` bytes, possibly none).
#[derive(Debug)]
pub struct PageRead<'a> {
    pub page: PageAddr,
    pub first_sector: u32,
    pub data: &'a mut [u8],
    pub oob: &'a mut [u8],
}

impl PageRead<'_> {
    /// Checks the command against `g`, as `read_with_oob` does.
    pub(crate) fn check(&self, g: &Geometry) -> Result<()> {
        check_read(g, self.page, self.first_sector, self.data.len())?;
        check_oob_read(g, self.page, self.oob)
    }
}

pub(crate) fn check_oob_read(g: &Geometry, page: PageAddr, oob: &[u8]) -> Result<()> {
    g.check_page(page)?;
    check_oob_len(g, "OOB read buffer (at most the spare area)", oob.len())
}

/// Checks that an OOB buffer of `len` bytes fits in the spare area.
fn check_oob_len(g: &Geometry, what: &'static str, len: usize) -> Result<()> {
    if len > g.oob_size as usize {
        return Err(FlashError::BadLength {
            what,
            expected: g.oob_size as usize,
            got: len,
        });
    }
    Ok(())
}

/// Checks the buffers of a raw page image: exactly one page of data and one
/// whole spare area.
pub(crate) fn check_page_image(g: &Geometry, data: &[u8], oob: &[u8]) -> Result<()> {
    let ps = g.page_size();
    let os = g.oob_size as usize;
    if data.len() != ps || oob.len() != os {
        return Err(FlashError::BadLength {
            what: "page image (data + OOB)",
            expected: ps + os,
            got: data.len() + oob.len(),
        });
    }
    Ok(())
}

/// Lays out a programmed page in `dst` as the backends store it: `data`,
/// then `oob`, then 0xFF up to the end of `dst` (the unprogrammed rest of
/// the spare area reads as erased).
pub(crate) fn put_page(dst: &mut [u8], data: &[u8], oob: &[u8]) {
    let (body, spare) = dst.split_at_mut(data.len());
    body.copy_from_slice(data);
    spare[..oob.len()].copy_from_slice(oob);
    spare[oob.len()..].fill(ERASED_BYTE);
}

/// Reads a RAM-held battery-backed buffer, bounds checked.
pub(crate) fn nvram_copy_out(nvram: &[u8], offset: usize, buf: &mut [u8]) -> Result<()> {
    check_nvram(nvram.len(), offset, buf.len())?;
    buf.copy_from_slice(&nvram[offset..offset + buf.len()]);
    Ok(())
}

/// Writes a RAM-held battery-backed buffer, bounds checked.
pub(crate) fn nvram_copy_in(nvram: &mut [u8], offset: usize, data: &[u8]) -> Result<()> {
    check_nvram(nvram.len(), offset, data.len())?;
    nvram[offset..offset + data.len()].copy_from_slice(data);
    Ok(())
}

/// Checks a battery-backed buffer access.
pub(crate) fn check_nvram(size: usize, offset: usize, len: usize) -> Result<()> {
    if offset.checked_add(len).is_none_or(|end| end > size) {
        return Err(FlashError::NvramOutOfRange { offset, len, size });
    }
    Ok(())
}
