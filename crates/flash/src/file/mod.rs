//! `FileFlash`: a flash device kept in a persistent, self-describing image
//! file (layout: docs/FORMAT.md section 2). The header codec and the format
//! constants are in `header.rs`, re-exported here; this file owns the
//! backend: creating, locking and opening images, and persisting each
//! command.
//!
//! The image is one 4096-byte header, the battery-backed buffer (nvram)
//! region, a page-state region with one byte per page, an OOB region with
//! each page's OOB area, and the pages' data, `page_size` bytes each, so
//! every page starts on a file-system block boundary and a page write never
//! makes the page cache read or zero a partly written block (format version
//! 1, still opened and written in place, keeps each OOB area right after its
//! page's data instead). The file is
//! created sparse, so a large image costs disk space only where pages were
//! programmed. A page's bytes in the file mean something only while its state
//! byte says "programmed": erased pages read as 0xFF whatever the file holds,
//! which is also why a programmed page may legitimately contain 0xFF bytes.
//!
//! Durability: `program`, `erase` and `nvram_write` are positioned writes into
//! the page cache, so everything they did is visible to the next process that
//! opens the image even after a `kill -9`. Only [`Flash::sync`]
//! (`fdatasync`) makes them survive an operating-system crash or power cut;
//! in particular the nvram is *not* fsynced on every write, so modelling a
//! real battery across machine power loss would need a sync after it. Power
//! loss itself is simulated by `CrashFlash`, not here.
//!
//! Locking: an open image holds a `flock` (exclusive read-write, shared
//! read-only) on its file. `flock` belongs to the open file description, so a
//! second open of the same image in the same process is refused exactly like
//! one from another process. The lock disappears when the process dies.
//!
//! Page states, the NAND rules and the counters are `PageStates`' (see
//! `pages.rs`); this file persists the states in the page-state region.
//!
//! Invariants:
//! - page `i` is programmed in `pages` exactly when byte `i` of the file's
//!   page-state region is [`STATE_PROGRAMMED`] (else it is [`STATE_ERASED`]):
//!   the file is written first, the in-memory state after it succeeded;
//! - a failed command or a failed open changes no byte of the file (a
//!   program writes the page — its data, then its OOB and the erased rest
//!   of the OOB area, straight from the caller's buffers (one gathered
//!   `pwritev` in version 1) — first and its state byte last, so a program
//!   cut before the state byte leaves an erased page);
//! - nothing is written to a read-only image.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

// `fs4`'s methods are called by path: std's `File` has inherent locking
// methods of the same names with other signatures on newer toolchains.
use fs4::fs_std::FileExt as LockExt;

use crate::mem::default_nvram_size;
use crate::pages::PageStates;
use crate::{
    check_nvram, check_oob_read, check_page_image, check_program, check_read, nvram_copy_out,
    BlockId, BlockWear, Flash, FlashCounters, FlashError, Geometry, PageAddr, PageImage, PageRead,
    RawFlash, Result, WearModel, ERASED_BYTE,
};

pub mod crash;
mod detached;
mod header;
mod io;

pub use detached::DetachedWrite;
use detached::Run;
use header::CREATED_BY;
pub use header::{
    decode_state, ImageHeader, ImageLayout, CREATED_BY_SIZE, HEADER_FIELDS, HEADER_SIZE,
    H_BLOCKS_PER_DIE, H_CHANNELS, H_CREATED_BY, H_DIES_PER_CHANNEL, H_ENDURANCE, H_FACTORY_BAD,
    H_FLAGS, H_HEADER_CRC, H_HEADER_SIZE, H_IMAGE_SIZE, H_MAGIC, H_NVRAM_OFFSET, H_NVRAM_SIZE,
    H_OOB_OFFSET, H_OOB_REGION_SIZE, H_OOB_SIZE, H_PAGES_OFFSET, H_PAGES_PER_BLOCK, H_PAGE_STRIDE,
    H_RESERVED, H_SECTORS_PER_PAGE, H_SECTOR_SIZE, H_STATE_OFFSET, H_STATE_SIZE, H_VERSION,
    H_WEAR_OFFSET, H_WEAR_SEED, H_WEAR_SIZE, IMAGE_MAGIC, IMAGE_VERSION, MAX_NVRAM_BYTES,
    STATE_ERASED, STATE_PROGRAMMED,
};
use io::Writeback;
pub use io::{ImageIo, SyncJob};
use std::sync::Arc;

/// Bytes of the page-state region read at a time when an image is opened.
const STATE_READ_CHUNK: usize = 1 << 20;

/// A flash device stored in an image file. See the file documentation for
/// durability and locking. `Io` is the file: a real one, or the in-memory
/// recorder of the image power-cut model ([`crash::ImageCrashFlash`]).
pub struct FileFlash<Io: ImageIo = File> {
    path: PathBuf,
    /// `path` for error messages.
    shown: String,
    file: Io,
    read_only: bool,
    header: ImageHeader,
    pages: PageStates,
    nvram: Vec<u8>,
    /// `pages_per_block` zero bytes: the state of an erased block.
    erased_states: Box<[u8]>,
    /// One OOB area of erased (0xFF) bytes: the padding after a short OOB.
    erased_oob: Box<[u8]>,
    /// Bytes programmed since the file's write-out was last started
    /// ([`WRITEBACK_BYTES`]).
    unstarted: u64,
    /// Programs accepted and not yet written to the file.
    gather: Gather,
    /// The thread that starts write-out, for files that have one (a
    /// writable image on a real file).
    writeback: Option<Writeback>,
    /// A read-only shared mapping of the whole image file, once
    /// [`FileFlash::map_for_reads`] made it: reads of programmed pages copy
    /// from it instead of calling `pread`.
    mapped: Option<memmap2::Mmap>,
    /// Gathered runs handed to detached writes and not yet in the file
    /// (`detached.rs`), and the runs submitted since the last
    /// [`Flash::take_detached`].
    detached: Arc<detached::Registry>,
    taken: Vec<Arc<Run>>,
    /// The handle detached writes write through, once
    /// [`Flash::detach_submits`] turned them on.
    detach: Option<Arc<detached::Target>>,
}

/// A run of programs of consecutive slots ([`ImageLayout::slot`]) that
/// [`FileFlash`] accepted and holds back, to write them as one write per
/// region (data, OOB areas, state bytes) instead of three per page: a
/// stream of programs of one superblock costs the host file system a few
/// large writes rather than hundreds of small ones. Only images with an
/// OOB region (format version 2 on) gather; version 1 writes each program
/// at once. Reads of a gathered page are answered from here.
#[derive(Default)]
struct Gather {
    /// Slot of the first page.
    first: u64,
    /// Pages gathered.
    count: u64,
    /// Their data, `page_size` bytes each.
    data: Vec<u8>,
    /// Their OOB areas, padded with erased bytes to `oob_size` each.
    oob: Vec<u8>,
}

/// Most data bytes one gathered write holds: a larger run is written in
/// pieces of this size (at least one page each).
pub const GATHER_BYTES: usize = 2 << 20;

/// Programmed bytes after which the image asks the operating system to
/// start writing its dirty pages out ([`ImageIo::start_writeback`]). The
/// FTLs sync before erasing a block a durable state may point into, and a
/// stream of writes that never flushes would otherwise find tens of MiB to
/// write, and wait for, at each such sync; started early, the disk writes
/// them while the device works on the next pages.
pub const WRITEBACK_BYTES: u64 = 4 << 20;

impl<Io: ImageIo> std::fmt::Debug for FileFlash<Io> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileFlash")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .field("geometry", &self.header.geometry)
            .finish_non_exhaustive()
    }
}

impl FileFlash<File> {
    /// Creates a fully erased image with the default battery-backed buffer
    /// (see [`crate::mem::default_nvram_size`]). An existing file is refused
    /// with [`FlashError::AlreadyExists`] unless `force`; with `force` it is
    /// replaced, but never while another process holds it open
    /// ([`FlashError::Locked`]).
    pub fn create(path: impl AsRef<Path>, geometry: Geometry, force: bool) -> Result<FileFlash> {
        let nv = default_nvram_size(&geometry);
        Self::create_with_nvram(path, geometry, nv, force)
    }

    /// Like [`FileFlash::create`] with a battery-backed buffer of
    /// `nvram_size` bytes (at most [`MAX_NVRAM_BYTES`]).
    pub fn create_with_nvram(
        path: impl AsRef<Path>,
        geometry: Geometry,
        nvram_size: usize,
        force: bool,
    ) -> Result<FileFlash> {
        Self::create_with_wear(path, geometry, nvram_size, WearModel::UNLIMITED, force)
    }

    /// Like [`FileFlash::create_with_nvram`] for an image whose blocks wear
    /// out as `wear` says (kept in its header; the factory bad blocks are
    /// recorded in its wear region at once).
    pub fn create_with_wear(
        path: impl AsRef<Path>,
        geometry: Geometry,
        nvram_size: usize,
        wear: WearModel,
        force: bool,
    ) -> Result<FileFlash> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        geometry.validate()?;
        if nvram_size > MAX_NVRAM_BYTES {
            return Err(FlashError::BadLength {
                what: "battery-backed buffer of an image (at most MAX_NVRAM_BYTES)",
                expected: MAX_NVRAM_BYTES,
                got: nvram_size,
            });
        }
        let layout = ImageLayout::compute(&geometry, nvram_size as u64).ok_or_else(|| {
            FlashError::BadGeometry {
                field: "blocks_per_die",
                reason: "the image would be larger than 2^64 bytes".into(),
            }
        })?;
        let io = |source| FlashError::Io {
            path: shown.clone(),
            source,
        };
        let mut opts = OpenOptions::new();
        opts.read(true).write(true);
        if force {
            opts.create(true);
        } else {
            opts.create_new(true);
        }
        let file = opts.open(path).map_err(|e| {
            if e.kind() == ErrorKind::AlreadyExists {
                FlashError::AlreadyExists {
                    path: shown.clone(),
                }
            } else {
                io(e)
            }
        })?;
        if !LockExt::try_lock_exclusive(&file).map_err(io)? {
            return Err(FlashError::Locked { path: shown });
        }
        // Empty the file first so no stale page or state byte survives, then
        // extend it sparsely: zero state bytes mean "erased".
        file.set_len(0).map_err(io)?;
        file.set_len(layout.image_size).map_err(io)?;
        let header = ImageHeader {
            version: IMAGE_VERSION,
            geometry,
            layout,
            created_by: CREATED_BY.to_string(),
            wear,
        };
        write_new_image(&file, &header).map_err(io)?;
        file.sync_all().map_err(io)?;
        // Make the new directory entry durable too (best effort: some file
        // systems refuse to open directories, which loses nothing here).
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Self::from_parts(path.to_path_buf(), shown, file, false, header)
    }

    /// Opens an existing image read-write; the geometry comes from its
    /// header. Fails without changing the file if it is not an image, is
    /// truncated, corrupt, of a newer version, or locked by another opener.
    pub fn open(path: impl AsRef<Path>) -> Result<FileFlash> {
        Self::open_impl(path.as_ref(), false)
    }

    /// Opens an existing image read-only, under a shared lock (several
    /// read-only openers may coexist; a read-write opener may not). Programs,
    /// erases and nvram writes fail with [`FlashError::ReadOnly`].
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<FileFlash> {
        Self::open_impl(path.as_ref(), true)
    }

    /// Opens an existing image read-only without taking its lock: a view of
    /// an image that another process holds open for writing (a served or
    /// mounted image). The page states are read once, here; the pages are
    /// read from the file as it is when they are read, so while the other
    /// process writes, the view is not exactly one crash state of the
    /// image. Callers must confirm what they find (a second view).
    pub fn open_live_view(path: impl AsRef<Path>) -> Result<FileFlash> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let file = OpenOptions::new()
            .read(true)
            .open(path)
            .map_err(|source| FlashError::Io {
                path: shown.clone(),
                source,
            })?;
        let header = read_header_of(&file, &shown)?;
        Self::from_parts(path.to_path_buf(), shown, file, true, header)
    }

    /// Whether another opener holds the image open for writing (its
    /// exclusive lock): a shared lock is tried and dropped at once, and
    /// nothing else is read.
    pub fn held_for_writing(path: impl AsRef<Path>) -> Result<bool> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|source| FlashError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let free = LockExt::try_lock_shared(&file).map_err(|source| FlashError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(!free)
    }

    /// Reads and checks the header of an image without locking it or reading
    /// the rest (for `info`-style tools; works on an image in use).
    pub fn read_header(path: impl AsRef<Path>) -> Result<ImageHeader> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let file = File::open(path).map_err(|source| FlashError::Io {
            path: shown.clone(),
            source,
        })?;
        read_header_of(&file, &shown)
    }

    fn open_impl(path: &Path, read_only: bool) -> Result<FileFlash> {
        let shown = path.display().to_string();
        let io = |source| FlashError::Io {
            path: shown.clone(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(!read_only)
            .open(path)
            .map_err(io)?;
        let locked = if read_only {
            LockExt::try_lock_shared(&file)
        } else {
            LockExt::try_lock_exclusive(&file)
        };
        if !locked.map_err(io)? {
            return Err(FlashError::Locked { path: shown });
        }
        let header = read_header_of(&file, &shown)?;
        Self::from_parts(path.to_path_buf(), shown, file, read_only, header)
    }

    /// Reads programmed pages from a read-only shared mapping of the image
    /// (`mmap`) from now on, instead of with `pread`: a read of sectors
    /// scattered over the image costs copies, not a system call and a
    /// page-cache lookup each (`scftl serve --mmap-reads`; about half the
    /// server's CPU per byte of 1 MiB reads after random writes,
    /// docs/BENCHMARKS.md). The price: an I/O error of the host file
    /// system while a mapped page is read arrives as `SIGBUS` and ends the
    /// process, where `pread` returns an error for that request (what is
    /// on the image is not at risk: the mapping is never written), and the
    /// pages read count in the process's resident set (as page cache they
    /// share). Writes keep going through the file descriptor, which the
    /// shared mapping sees at once. For images this process opened
    /// locked ([`FileFlash::open`], [`FileFlash::open_read_only`]), whose
    /// length no cooperating process changes.
    pub fn map_for_reads(&mut self) -> Result<()> {
        // SAFETY: the mapping is read-only and shared. The image is locked
        // against other writers, this process writes it only through the
        // descriptor (which a shared mapping sees), and an image's length
        // is fixed by its header, so no mapped page goes away under a read.
        let map = unsafe { memmap2::Mmap::map(&self.file) }.map_err(|e| self.io(e))?;
        self.mapped = Some(map);
        Ok(())
    }
}

/// Writes what a new, erased image holds besides zeros: the header and the
/// wear records of its factory bad blocks (every other record is zero).
fn write_new_image<Io: ImageIo>(file: &Io, header: &ImageHeader) -> std::io::Result<()> {
    file.write_all_at(&header.encode()[..], 0)?;
    let l = header.layout;
    if l.wear_size > 0 && header.wear.factory_bad_per_mille > 0 {
        let records: Vec<u8> = header
            .wear
            .new_device(&header.geometry)
            .iter()
            .flat_map(|w| w.encode().to_le_bytes())
            .collect();
        file.write_all_at(&records, l.wear_offset)?;
    }
    Ok(())
}

fn read_header_of<Io: ImageIo>(file: &Io, shown: &str) -> Result<ImageHeader> {
    let io = |source| FlashError::Io {
        path: shown.to_string(),
        source,
    };
    let file_len = file.byte_len().map_err(io)?;
    let want = file_len.min(HEADER_SIZE as u64) as usize;
    let mut buf = vec![0u8; want];
    file.read_exact_at(&mut buf, 0).map_err(io)?;
    ImageHeader::decode(&buf, file_len, shown)
}

impl<Io: ImageIo> FileFlash<Io> {
    /// Formats `file`, which must read as zeros throughout and be at least
    /// as long as the image, as an erased image (no locking: for in-memory
    /// images that no other process can see). `shown` names it in errors.
    pub fn create_on(
        file: Io,
        shown: &str,
        geometry: Geometry,
        nvram_size: usize,
    ) -> Result<FileFlash<Io>> {
        geometry.validate()?;
        let layout = ImageLayout::compute(&geometry, nvram_size.min(MAX_NVRAM_BYTES) as u64)
            .ok_or_else(|| FlashError::BadGeometry {
                field: "blocks_per_die",
                reason: "the image would be larger than 2^64 bytes".into(),
            })?;
        let header = ImageHeader {
            version: IMAGE_VERSION,
            geometry,
            layout,
            created_by: CREATED_BY.to_string(),
            wear: WearModel::UNLIMITED,
        };
        let io = |source| FlashError::Io {
            path: shown.to_string(),
            source,
        };
        write_new_image(&file, &header).map_err(io)?;
        file.sync_data().map_err(io)?;
        Self::from_parts(PathBuf::from(shown), shown.to_string(), file, false, header)
    }

    /// Opens the image `file` holds read-write, like [`FileFlash::open`]
    /// without locking (for in-memory images).
    pub fn open_on(file: Io, shown: &str) -> Result<FileFlash<Io>> {
        let header = read_header_of(&file, shown)?;
        Self::from_parts(PathBuf::from(shown), shown.to_string(), file, false, header)
    }

    /// Loads the nvram and page states of a locked image whose header has
    /// been checked.
    fn from_parts(
        path: PathBuf,
        shown: String,
        file: Io,
        read_only: bool,
        header: ImageHeader,
    ) -> Result<FileFlash<Io>> {
        let io = |source| FlashError::Io {
            path: shown.clone(),
            source,
        };
        let g = header.geometry;
        let l = header.layout;
        let mut nvram = vec![0u8; l.nvram_size as usize];
        file.read_exact_at(&mut nvram, l.nvram_offset).map_err(io)?;
        // The state region is decoded a chunk at a time, so opening a large
        // image holds only the decoded states, not also a copy of the bytes.
        // State bytes are in slot order, the states in dense page order.
        let total = g.total_pages() as usize;
        let mut programmed = vec![false; total];
        let mut chunk = vec![STATE_ERASED; total.min(STATE_READ_CHUNK)];
        let mut slot = 0usize;
        while slot < total {
            let n = chunk.len().min(total - slot);
            file.read_exact_at(&mut chunk[..n], l.state_offset + slot as u64)
                .map_err(io)?;
            for &byte in &chunk[..n] {
                let page = l.page_of_slot(&g, slot as u64);
                let Some(p) = decode_state(byte) else {
                    return Err(FlashError::CorruptImage {
                        path: shown,
                        reason: format!(
                            "page {} of block {} has state byte {byte:#04x} \
                             (only {STATE_ERASED:#04x} erased and {STATE_PROGRAMMED:#04x} programmed exist)",
                            page.page, page.block.0
                        ),
                    });
                };
                programmed[g.page_index(page) as usize] = p;
                slot += 1;
            }
        }
        let wear_model = header.wear;
        let wear = if l.wear_size == 0 {
            header.wear.new_device(&g)
        } else {
            let mut bytes = vec![0u8; g.total_blocks() as usize * 4];
            file.read_exact_at(&mut bytes, l.wear_offset).map_err(io)?;
            let mut wear = Vec::with_capacity(g.total_blocks() as usize);
            for (b, rec) in bytes.chunks_exact(4).enumerate() {
                let rec = u32::from_le_bytes(rec.try_into().expect("4 bytes"));
                let Some(w) = BlockWear::decode(rec) else {
                    return Err(FlashError::CorruptImage {
                        path: shown,
                        reason: format!(
                            "block {b} has wear record {rec:#010x} (health {} does not exist)",
                            rec >> 28
                        ),
                    });
                };
                wear.push(w);
            }
            wear
        };
        let ppb = g.pages_per_block as usize;
        let writeback = if read_only {
            None
        } else {
            file.writeback_handle()
                .and_then(|f| Writeback::spawn(f).ok())
        };
        Ok(FileFlash {
            path,
            shown,
            file,
            read_only,
            erased_states: vec![STATE_ERASED; ppb].into_boxed_slice(),
            erased_oob: vec![ERASED_BYTE; g.oob_size as usize].into_boxed_slice(),
            unstarted: 0,
            gather: Gather::default(),
            writeback,
            header,
            pages: PageStates::from_parts(g, programmed, wear_model, wear),
            nvram,
            mapped: None,
            detached: Arc::default(),
            taken: Vec::new(),
            detach: None,
        })
    }

    /// The image's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The image's decoded header.
    pub fn header(&self) -> &ImageHeader {
        &self.header
    }

    /// Whether the image was opened with [`FileFlash::open_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Whether a page is erased (and may be programmed if in order).
    pub fn is_erased(&self, page: PageAddr) -> Result<bool> {
        self.pages.is_erased(page)
    }

    fn io(&self, source: std::io::Error) -> FlashError {
        FlashError::Io {
            path: self.shown.clone(),
            source,
        }
    }

    fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(FlashError::ReadOnly {
                path: self.shown.clone(),
            });
        }
        Ok(())
    }

    /// A page's slot in the file's regions.
    fn slot(&self, page: PageAddr) -> u64 {
        self.header.layout.slot(&self.header.geometry, page)
    }

    /// File offset of a page's first data byte.
    fn page_offset(&self, page: PageAddr) -> u64 {
        self.header.layout.data_offset(self.slot(page))
    }

    /// File offset of the OOB area of the page in slot `slot`.
    fn oob_offset_of_slot(&self, slot: u64) -> u64 {
        let g = &self.header.geometry;
        self.header
            .layout
            .oob_at(slot, g.page_size() as u64, u64::from(g.oob_size))
    }

    /// File offset of a page's OOB area.
    fn oob_offset(&self, page: PageAddr) -> u64 {
        self.oob_offset_of_slot(self.slot(page))
    }

    /// Where a gathered page's bytes are in the gather (its position in the
    /// run), or `None` if the page is not gathered.
    fn gathered(&self, page: PageAddr) -> Option<usize> {
        if self.gather.count == 0 {
            return None;
        }
        let at = self.slot(page).checked_sub(self.gather.first)?;
        (at < self.gather.count).then_some(at as usize)
    }

    /// Where a page handed to a detached write and not yet in the file is
    /// among `held` (a snapshot of the registry): its run and its index.
    fn held_page<'a>(&self, held: &'a [Arc<Run>], page: PageAddr) -> Option<(&'a Run, usize)> {
        if held.is_empty() {
            return None;
        }
        let slot = self.slot(page);
        held.iter()
            .find_map(|r| r.index_of(slot).map(|i| (&**r, i)))
    }

    /// Moves the gather into a run for a detached write (`detached.rs`).
    fn detach_gather(&mut self) {
        if self.gather.count == 0 {
            return;
        }
        let g = std::mem::take(&mut self.gather);
        let (data, oob) = self.detached.pool.take();
        self.gather.data = data;
        self.gather.oob = oob;
        self.detach_run(g.first, g.count, g.data, g.oob);
    }

    /// Appends the OOB areas of a run of `n` pages (`oob` holds `n` equal
    /// areas, each at most an OOB area long) to `areas`, each padded with
    /// erased bytes to a whole OOB area, as the image stores them.
    fn push_padded_oob(&self, areas: &mut Vec<u8>, oob: &[u8], n: usize) {
        let on = oob.len() / n;
        let pad = self.header.geometry.oob_size as usize - on;
        for i in 0..n {
            areas.extend_from_slice(&oob[i * on..(i + 1) * on]);
            areas.extend_from_slice(&self.erased_oob[..pad]);
        }
    }

    /// Hands `count` accepted programs of consecutive slots from `first`
    /// (`data`, and `oob` padded to whole OOB areas) to the next detached
    /// write, which reads consult until it is in the file.
    fn detach_run(&mut self, first: u64, count: u64, data: Vec<u8>, oob: Vec<u8>) {
        let offsets = self.run_offsets(first);
        self.note_written((data.len() + oob.len()) as u64);
        let pool = Arc::clone(&self.detached.pool);
        let run = Arc::new(Run::new(first, count, data, oob, offsets, pool));
        self.detached.add(Arc::clone(&run));
        self.taken.push(run);
    }

    /// Has every run handed to a detached write reach the file (writing
    /// those no thread has started), before a command that needs them
    /// there: a sync, an erase, a raw page image, a synchronous submit.
    /// The pages of a run whose write failed are erased again in memory,
    /// as a failed synchronous write leaves them, and the error returned.
    fn settle_detached(&mut self) -> Result<()> {
        let Some(target) = self.detach.clone() else {
            return Ok(());
        };
        self.taken.clear();
        let (failed, error) = self.detached.settle(&target.file);
        for run in &failed {
            self.unprogram_run(run.first, run.count);
        }
        match error {
            Some(e) => Err(self.io(e)),
            None => Ok(()),
        }
    }

    /// Runs written by detached writes so far (not by the device itself).
    pub fn detached_runs_written(&self) -> usize {
        self.detached.detached_written()
    }

    /// Adds an accepted program to the gather, writing out the gather first
    /// when the page does not follow it or it is full.
    fn gather_page(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        let slot = self.slot(page);
        let g = &self.gather;
        if g.count > 0 && (slot != g.first + g.count || g.data.len() + data.len() > GATHER_BYTES) {
            self.submit_gather()?;
        }
        let pad = self.header.geometry.oob_size as usize - oob.len();
        let g = &mut self.gather;
        if g.count == 0 {
            g.first = slot;
        }
        g.data.extend_from_slice(data);
        g.oob.extend_from_slice(oob);
        g.oob.extend_from_slice(&self.erased_oob[..pad]);
        g.count += 1;
        Ok(())
    }

    /// Writes `n` programs of the consecutive slots from `first`: all their
    /// data, then all their OOB areas (`oob_size` bytes each, padded), then
    /// all their state bytes, so a process killed in between leaves their
    /// pages erased. If a write fails, the pages are erased again in memory
    /// (the file may hold some of their bytes, but no state byte saying so
    /// unless the last write got that far) and the error is returned.
    fn write_run(&mut self, first: u64, n: usize, data: &[u8], oob_areas: &[u8]) -> Result<()> {
        let at = self.run_offsets(first);
        if let Err(e) = write_run_at(&self.file, at, n, data, oob_areas) {
            self.unprogram_run(first, n as u64);
            return Err(self.io(e));
        }
        self.note_written((data.len() + oob_areas.len()) as u64);
        Ok(())
    }

    /// File offsets of the data, the OOB areas and the state bytes of a
    /// run of consecutive slots from `first`.
    fn run_offsets(&self, first: u64) -> (u64, u64, u64) {
        let l = &self.header.layout;
        (
            l.data_offset(first),
            self.oob_offset_of_slot(first),
            l.state_offset + first,
        )
    }

    /// Erases again, in memory, the `n` pages of consecutive slots from
    /// `first` whose write failed (the file holds no state byte saying
    /// they are programmed, unless the last write got that far).
    fn unprogram_run(&mut self, first: u64, n: u64) {
        for i in 0..n {
            let page = self
                .header
                .layout
                .page_of_slot(&self.header.geometry, first + i);
            self.pages.set_raw(page, false);
        }
    }

    /// Writes the gathered programs ([`Self::write_run`]) and empties the
    /// gather.
    fn submit_gather(&mut self) -> Result<()> {
        if self.gather.count == 0 {
            return Ok(());
        }
        let (first, n) = (self.gather.first, self.gather.count as usize);
        let mut data = std::mem::take(&mut self.gather.data);
        let mut oob = std::mem::take(&mut self.gather.oob);
        let written = self.write_run(first, n, &data, &oob);
        // The buffers go back, emptied, keeping their capacity.
        data.clear();
        oob.clear();
        self.gather = Gather {
            first: 0,
            count: 0,
            data,
            oob,
        };
        written
    }

    /// Counts programmed bytes written to the file and starts write-out
    /// every [`WRITEBACK_BYTES`].
    fn note_written(&mut self, bytes: u64) {
        self.unstarted += bytes;
        if self.unstarted >= WRITEBACK_BYTES {
            self.unstarted = 0;
            match &self.writeback {
                Some(w) => w.kick(),
                // Only a hint: a failure to start early write-out loses
                // nothing, and the next sync reports a real I/O error.
                None => {
                    let _ = self.file.start_writeback();
                }
            }
        }
    }

    /// Writes a page's data and OOB (padded with erased bytes to the OOB
    /// area's size), straight from the caller's buffers, and then its state
    /// byte; the caller records the new state in `pages` once this
    /// succeeded.
    fn write_page(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        let pad = &self.erased_oob[..self.header.geometry.oob_size as usize - oob.len()];
        let off = self.page_offset(page);
        if self.header.layout.oob_region_size == 0 {
            // Version 1: data and OOB are adjacent, one gathered write.
            self.file
                .write_all_vectored_at(&[data, oob, pad], off)
                .map_err(|e| self.io(e))?;
            return self.write_state(page, STATE_PROGRAMMED);
        }
        // Version 2: the data, then the OOB area in its region.
        self.file.write_all_at(data, off).map_err(|e| self.io(e))?;
        let oob_off = self.oob_offset(page);
        self.file
            .write_all_vectored_at(&[oob, pad], oob_off)
            .map_err(|e| self.io(e))?;
        self.write_state(page, STATE_PROGRAMMED)
    }

    /// Writes a block's wear record (images without a wear region keep
    /// records only in memory).
    fn write_wear(&self, block: BlockId, wear: BlockWear) -> Result<()> {
        let l = &self.header.layout;
        if l.wear_size == 0 {
            return Ok(());
        }
        self.file
            .write_all_at(
                &wear.encode().to_le_bytes(),
                l.wear_offset + 4 * u64::from(block.0),
            )
            .map_err(|e| self.io(e))
    }

    /// Writes one page's state byte.
    fn write_state(&self, page: PageAddr, state: u8) -> Result<()> {
        self.file
            .write_all_at(&[state], self.header.layout.state_offset + self.slot(page))
            .map_err(|e| self.io(e))
    }

    /// Writes the state bytes of an erased block. In stripe order the
    /// block's pages are every `dies`-th slot of its superblock's range, so
    /// the whole range is written once, with the other dies' pages in the
    /// states they have (in memory, which the file matches: the caller has
    /// submitted the gather).
    fn write_erased_states(&self, block: BlockId) -> Result<()> {
        let g = &self.header.geometry;
        let l = &self.header.layout;
        let ppb = u64::from(g.pages_per_block);
        if !l.stripe_order {
            return self
                .file
                .write_all_at(
                    &self.erased_states,
                    l.state_offset + u64::from(block.0) * ppb,
                )
                .map_err(|e| self.io(e));
        }
        let first = l.slot(g, PageAddr { block, page: 0 });
        let first = first - first % (ppb * u64::from(g.dies()));
        let mut states = vec![STATE_ERASED; (ppb * u64::from(g.dies())) as usize];
        for (k, s) in states.iter_mut().enumerate() {
            let page = l.page_of_slot(g, first + k as u64);
            if page.block != block && self.pages.is_programmed(page) {
                *s = STATE_PROGRAMMED;
            }
        }
        self.file
            .write_all_at(&states, l.state_offset + first)
            .map_err(|e| self.io(e))
    }
}

/// Writes `n` programs of consecutive slots at the file offsets `at`
/// ([`FileFlash::run_offsets`]): all their data, then all their OOB areas,
/// then all their state bytes, so a process killed in between leaves
/// their pages erased. Used for gathered runs, written in place or
/// detached (`detached.rs`).
fn write_run_at(
    file: &impl ImageIo,
    at: (u64, u64, u64),
    n: usize,
    data: &[u8],
    oob_areas: &[u8],
) -> std::io::Result<()> {
    file.write_all_at(data, at.0)?;
    file.write_all_at(oob_areas, at.1)?;
    file.write_all_at(&vec![STATE_PROGRAMMED; n], at.2)
}

impl<Io: ImageIo> Drop for FileFlash<Io> {
    /// Writes out gathered programs (a dropped device leaves in the file
    /// everything it accepted, as a killed process leaves what it wrote).
    fn drop(&mut self) {
        let _ = self.submit_gather();
        let _ = self.settle_detached();
    }
}

impl<Io: ImageIo> FileFlash<Io> {
    /// Fills `data` with sectors of `page` from `first_sector` (checked by
    /// the caller), from the gathered programs or the file; counts nothing.
    fn fill_data(
        &self,
        held: &[Arc<Run>],
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
    ) -> Result<()> {
        if !self.pages.is_programmed(page) {
            data.fill(ERASED_BYTE);
            return Ok(());
        }
        let skip = first_sector as usize * self.header.geometry.sector_size as usize;
        let ps = self.header.geometry.page_size();
        if let Some(i) = self.gathered(page) {
            let at = i * ps + skip;
            data.copy_from_slice(&self.gather.data[at..at + data.len()]);
        } else if let Some((run, i)) = self.held_page(held, page) {
            let at = i * ps + skip;
            data.copy_from_slice(&run.data[at..at + data.len()]);
        } else {
            let off = self.page_offset(page) + skip as u64;
            self.read_file(data, off)?;
        }
        Ok(())
    }

    /// Fills `buf` from the image at `offset`: from the mapping if there
    /// is one, else with a positioned read.
    fn read_file(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        if let Some(m) = &self.mapped {
            let at = offset as usize;
            if let Some(src) = m.get(at..at + buf.len()) {
                buf.copy_from_slice(src);
                return Ok(());
            }
        }
        self.file.read_exact_at(buf, offset).map_err(|e| self.io(e))
    }

    /// Fills `parts` in turn from the image at `offset` on: copies from
    /// the mapping if there is one, else one vectored read.
    fn read_file_vectored(&self, parts: &mut [&mut [u8]], offset: u64) -> Result<()> {
        if self.mapped.is_none() {
            return self
                .file
                .read_exact_vectored_at(parts, offset)
                .map_err(|e| self.io(e));
        }
        let mut at = offset;
        for p in parts.iter_mut() {
            self.read_file(p, at)?;
            at += p.len() as u64;
        }
        Ok(())
    }

    /// Read commands of data and spare area (`read_with_oob`, one of them,
    /// and `read_shared`, which needs no more than `&self`), each counted
    /// once. Each extent of commands whose bytes follow one another in the
    /// file ([`FileFlash::extent_end`]) is read with one vectored read of
    /// its data and one read of its OOB areas; the others one by one.
    fn read_batch(&self, reads: &mut [PageRead<'_>]) -> Result<()> {
        for r in reads.iter() {
            r.check(&self.header.geometry)?;
        }
        // The detached runs held now: a page not among them is in the
        // file (or the gather), one among them is read from its run.
        let held = self.detached.snapshot();
        let mut i = 0;
        while i < reads.len() {
            let end = self.extent_end(&held, reads, i);
            if end - i > 1 {
                self.read_extent(&mut reads[i..end])?;
            } else {
                let r = &mut reads[i];
                self.fill_data(&held, r.page, r.first_sector, r.data)?;
                self.fill_oob(&held, r.page, r.oob)?;
            }
            i = end;
        }
        for r in reads.iter() {
            self.pages.record_read_shared(r.data.len() + r.oob.len());
        }
        Ok(())
    }

    /// Where the file extent that starts at `reads[i]` ends: the entries
    /// after it belong to it while each is a programmed page, not gathered,
    /// in the slot after the one before, and its data starts in the file
    /// where the one before ended (which the one before reaches by reading
    /// to the end of its page, and it by reading from its first sector).
    /// Images without an OOB region (version 1) keep each OOB area between
    /// two pages' data, so their extents are single entries.
    fn extent_end(&self, held: &[Arc<Run>], reads: &[PageRead<'_>], i: usize) -> usize {
        let file_page = |p: PageAddr| {
            self.pages.is_programmed(p)
                && self.gathered(p).is_none()
                && self.held_page(held, p).is_none()
        };
        if self.header.layout.oob_region_size == 0 || !file_page(reads[i].page) {
            return i + 1;
        }
        let ss = u64::from(self.header.geometry.sector_size);
        let start = |r: &PageRead<'_>| self.page_offset(r.page) + u64::from(r.first_sector) * ss;
        let mut j = i + 1;
        while j < reads.len() {
            let (a, b) = (&reads[j - 1], &reads[j]);
            if !file_page(b.page)
                || self.slot(b.page) != self.slot(a.page) + 1
                || start(b) != start(a) + a.data.len() as u64
            {
                break;
            }
            j += 1;
        }
        j
    }

    /// Reads an extent of at least two commands ([`FileFlash::extent_end`]):
    /// their data with one vectored read, and the OOB areas of their slots
    /// with one read, of which each command gets its prefix.
    fn read_extent(&self, reads: &mut [PageRead<'_>]) -> Result<()> {
        let ss = u64::from(self.header.geometry.sector_size);
        let first = &reads[0];
        let data_at = self.page_offset(first.page) + u64::from(first.first_sector) * ss;
        let oob_at = self.oob_offset(first.page);
        let mut parts: Vec<&mut [u8]> = Vec::with_capacity(reads.len());
        let mut oob_len = 0usize;
        let oob_size = self.header.geometry.oob_size as usize;
        for (k, r) in reads.iter_mut().enumerate() {
            if !r.oob.is_empty() {
                oob_len = k * oob_size + r.oob.len();
            }
            parts.push(&mut *r.data);
        }
        self.read_file_vectored(&mut parts, data_at)?;
        drop(parts);
        if oob_len > 0 {
            let mut areas = vec![0u8; oob_len];
            self.read_file(&mut areas, oob_at)?;
            // A command may want no OOB (a reader that knows the page's
            // checksums): it gets nothing, and may lie past `areas`.
            for (k, r) in reads.iter_mut().enumerate() {
                let n = r.oob.len();
                if n > 0 {
                    r.oob
                        .copy_from_slice(&areas[k * oob_size..k * oob_size + n]);
                }
            }
        }
        Ok(())
    }

    /// Fills `oob` with the start of `page`'s spare area (checked by the
    /// caller); counts nothing.
    fn fill_oob(&self, held: &[Arc<Run>], page: PageAddr, oob: &mut [u8]) -> Result<()> {
        if !self.pages.is_programmed(page) {
            oob.fill(ERASED_BYTE);
            return Ok(());
        }
        let os = self.header.geometry.oob_size as usize;
        if let Some(i) = self.gathered(page) {
            oob.copy_from_slice(&self.gather.oob[i * os..i * os + oob.len()]);
        } else if let Some((run, i)) = self.held_page(held, page) {
            oob.copy_from_slice(&run.oob[i * os..i * os + oob.len()]);
        } else {
            let off = self.oob_offset(page);
            self.read_file(oob, off)?;
        }
        Ok(())
    }
}

impl<Io: ImageIo> Flash for FileFlash<Io> {
    fn geometry(&self) -> &Geometry {
        &self.header.geometry
    }

    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> Result<()> {
        check_read(&self.header.geometry, page, first_sector, data.len())?;
        self.fill_data(&self.detached.snapshot(), page, first_sector, data)?;
        self.pages.record_read(data.len());
        Ok(())
    }

    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        self.pages.probe_erased(page)
    }

    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()> {
        check_oob_read(&self.header.geometry, page, oob)?;
        self.fill_oob(&self.detached.snapshot(), page, oob)?;
        self.pages.record_read(oob.len());
        Ok(())
    }

    /// One read command: data and spare area are fetched together and
    /// counted once.
    fn read_with_oob(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.read_batch(&mut [PageRead {
            page,
            first_sector,
            data,
            oob,
        }])
    }

    /// Positioned reads of the file (or copies from the gather) need no
    /// exclusive access.
    fn read_shared(&self, reads: &mut [PageRead<'_>]) -> Option<Result<()>> {
        Some(self.read_batch(reads))
    }

    /// `fdatasync` on a duplicate of the file handle, once the gather is
    /// written: programs issued while it runs may or may not be covered.
    fn start_sync(&mut self) -> Option<Result<crate::SyncTicket>> {
        if let Err(e) = self.submit_gather().and_then(|()| self.settle_detached()) {
            return Some(Err(e));
        }
        if self.read_only {
            return Some(Ok(crate::SyncTicket::ready(0)));
        }
        let job = match self.file.sync_job()? {
            Ok(job) => job,
            Err(e) => return Some(Err(self.io(e))),
        };
        let shown = self.shown.clone();
        Some(Ok(crate::SyncTicket::new(0, move || {
            job().map_err(|source| FlashError::Io {
                path: shown,
                source,
            })
        })))
    }

    fn finish_sync(&mut self, _ticket: &crate::SyncTicket) -> Result<()> {
        self.pages.record_sync();
        Ok(())
    }

    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        check_program(&self.header.geometry, page, data, oob)?;
        self.check_writable()?;
        self.pages.check_program(page)?;
        if self.pages.program_fails(page) {
            // The page is consumed with zeros, as a failed program leaves
            // unspecified content.
            let g = self.header.geometry;
            let zeros = vec![0u8; g.page_size() + g.oob_size as usize];
            let (d, o) = zeros.split_at(g.page_size());
            if self.header.layout.oob_region_size == 0 {
                self.write_page(page, d, o)?;
            } else {
                self.gather_page(page, d, o)?;
            }
            self.pages.record_failed_program(page);
            return Err(FlashError::ProgramFailed {
                block: page.block.0,
                page: page.page,
            });
        }
        if self.header.layout.oob_region_size == 0 {
            self.write_page(page, data, oob)?;
            self.note_written((data.len() + oob.len()) as u64);
        } else {
            self.gather_page(page, data, oob)?;
        }
        self.pages.record_program(page, data.len() + oob.len());
        Ok(())
    }

    /// A run of consecutive slots on an image with an OOB region is written
    /// at once, straight from `data`: one write of the data, one of the
    /// OOB areas, one of the state bytes (after what was gathered before
    /// it). Anything else, or a run with a page the NAND rules refuse,
    /// takes the default path (one [`Flash::program`] after the other), so
    /// errors come exactly as from single programs.
    fn program_many(&mut self, pages: &[PageAddr], data: &[u8], oob: &[u8]) -> Result<()> {
        let n = pages.len();
        let g = self.header.geometry;
        let (ps, os) = (g.page_size(), g.oob_size as usize);
        let direct = n > 1
            && !self.read_only
            && self.header.layout.oob_region_size != 0
            && data.len() == n * ps
            && oob.len().is_multiple_of(n)
            && oob.len() / n <= os
            && pages.iter().all(|&p| g.check_page(p).is_ok())
            && pages
                .windows(2)
                .all(|w| self.slot(w[1]) == self.slot(w[0]) + 1);
        if !direct {
            return crate::program_each(self, pages, data, oob);
        }
        // Record the pages in order (a run may hold several pages of one
        // block); undo and take the default path if the rules refuse one.
        let on = oob.len() / n;
        for (i, &p) in pages.iter().enumerate() {
            if self.pages.check_program(p).is_err() || self.pages.program_fails(p) {
                for &q in &pages[..i] {
                    self.pages.set_raw(q, false);
                }
                return crate::program_each(self, pages, data, oob);
            }
            self.pages.record_program(p, ps + on);
        }
        if self.detach.is_some() && self.detached.busy() {
            // Detached writes on, and another thread's run not yet in the
            // file (so threads are writing side by side): the run is
            // copied into buffers of its own (the caller's are lent only
            // for this call) and handed over like a gather, after the
            // gather before it. With no run held it is written now, from
            // the caller's buffers: no other thread is writing beside this
            // one, and the copy cost a single writer about 3.5 % (1 MiB
            // requests, `ftl` example `shared_image_writes`).
            self.detach_gather();
            let (mut run_data, mut areas) = self.detached.pool.take();
            run_data.extend_from_slice(data);
            self.push_padded_oob(&mut areas, oob, n);
            self.detach_run(self.slot(pages[0]), n as u64, run_data, areas);
            return Ok(());
        }
        if let Err(e) = self.submit_gather() {
            for &q in pages {
                self.pages.set_raw(q, false);
            }
            return Err(e);
        }
        // The OOB areas, padded, staged in the (empty) gather's OOB buffer.
        let mut areas = std::mem::take(&mut self.gather.oob);
        self.push_padded_oob(&mut areas, oob, n);
        let written = self.write_run(self.slot(pages[0]), n, data, &areas);
        areas.clear();
        self.gather.oob = areas;
        written
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.header.geometry.check_block(block)?;
        self.check_writable()?;
        self.submit_gather()?;
        self.settle_detached()?;
        let (wear, ok) = self.pages.erase_outcome(block);
        if !ok {
            self.write_wear(block, wear)?;
            self.pages.record_failed_erase(block, wear);
            return Err(FlashError::EraseFailed { block: block.0 });
        }
        self.write_erased_states(block)?;
        self.write_wear(block, wear)?;
        self.pages.record_erase(block, wear);
        Ok(())
    }

    /// With detached writes on, the gather becomes a run for the next
    /// [`Flash::take_detached`]; otherwise it is written now.
    fn submit(&mut self) -> Result<()> {
        if self.detach.is_some() {
            self.detach_gather();
            return Ok(());
        }
        self.submit_gather()
    }

    fn detach_submits(&mut self) -> bool {
        if self.detach.is_some() {
            return true;
        }
        if self.read_only || self.header.layout.oob_region_size == 0 {
            return false;
        }
        match self.file.writeback_handle() {
            Some(f) => {
                self.detach = Some(Arc::new(detached::Target {
                    file: f,
                    shown: self.shown.clone(),
                }));
                true
            }
            None => false,
        }
    }

    fn take_detached(&mut self) -> Option<DetachedWrite> {
        if self.taken.is_empty() {
            return None;
        }
        let target = Arc::clone(self.detach.as_ref()?);
        Some(DetachedWrite::of_runs(
            Arc::clone(&self.detached),
            std::mem::take(&mut self.taken),
            target,
        ))
    }

    fn sync(&mut self) -> Result<()> {
        self.submit_gather()?;
        self.settle_detached()?;
        if !self.read_only {
            self.file.sync_data().map_err(|e| self.io(e))?;
            self.unstarted = 0;
        }
        self.pages.record_sync();
        Ok(())
    }

    fn nvram_size(&self) -> usize {
        self.nvram.len()
    }

    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        nvram_copy_out(&self.nvram, offset, buf)
    }

    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        check_nvram(self.nvram.len(), offset, data.len())?;
        self.check_writable()?;
        self.file
            .write_all_at(data, self.header.layout.nvram_offset + offset as u64)
            .map_err(|e| self.io(e))?;
        self.nvram[offset..offset + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn counters(&self) -> FlashCounters {
        self.pages.counters()
    }

    fn lost_programs_can_return(&self) -> bool {
        !self.read_only
    }

    fn block_wear(&self, block: BlockId) -> Result<BlockWear> {
        self.pages.block_wear(block)
    }

    fn mark_bad(&mut self, block: BlockId) -> Result<()> {
        self.header.geometry.check_block(block)?;
        self.check_writable()?;
        let w = self.pages.retired(block);
        self.write_wear(block, w)?;
        self.pages.set_wear(block, w);
        Ok(())
    }
}

impl<Io: ImageIo> RawFlash for FileFlash<Io> {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.header.geometry.check_page(page)?;
        if !self.pages.is_programmed(page) {
            return Ok(PageImage::Erased);
        }
        let g = &self.header.geometry;
        let (ps, os) = (g.page_size(), g.oob_size as usize);
        if let Some(i) = self.gathered(page) {
            return Ok(PageImage::Programmed {
                data: self.gather.data[i * ps..(i + 1) * ps].into(),
                oob: self.gather.oob[i * os..(i + 1) * os].into(),
            });
        }
        let held = self.detached.snapshot();
        if let Some((run, i)) = self.held_page(&held, page) {
            return Ok(PageImage::Programmed {
                data: run.data[i * ps..(i + 1) * ps].into(),
                oob: run.oob[i * os..(i + 1) * os].into(),
            });
        }
        let mut data = vec![0u8; g.page_size()];
        let mut oob = vec![0u8; g.oob_size as usize];
        self.file
            .read_exact_at(&mut data, self.page_offset(page))
            .and_then(|()| self.file.read_exact_at(&mut oob, self.oob_offset(page)))
            .map_err(|e| self.io(e))?;
        Ok(PageImage::Programmed {
            data: data.into_boxed_slice(),
            oob: oob.into_boxed_slice(),
        })
    }

    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.header.geometry.check_page(page)?;
        self.check_writable()?;
        self.submit_gather()?;
        self.settle_detached()?;
        match image {
            PageImage::Erased => {
                self.write_state(page, STATE_ERASED)?;
                self.pages.set_raw(page, false);
            }
            PageImage::Programmed { data, oob } => {
                check_page_image(&self.header.geometry, &data, &oob)?;
                self.write_page(page, &data, &oob)?;
                self.pages.set_raw(page, true);
            }
        }
        Ok(())
    }

    fn set_block_wear(&mut self, block: BlockId, wear: BlockWear) -> Result<()> {
        self.header.geometry.check_block(block)?;
        self.check_writable()?;
        self.write_wear(block, wear)?;
        self.pages.set_wear(block, wear);
        Ok(())
    }
}
