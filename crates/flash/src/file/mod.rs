//! `FileFlash`: a flash device kept in a persistent, self-describing image
//! file (layout: docs/FORMAT.md section 2).
//!
//! The image is one 4096-byte header, the battery-backed buffer (nvram)
//! region, a page-state region with one byte per page, and the pages
//! themselves (data then OOB, `page_size + oob_size` bytes each). The file is
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
//! Invariants:
//! - `state[i]` mirrors byte `i` of the file's page-state region and is
//!   [`STATE_ERASED`] or [`STATE_PROGRAMMED`];
//! - `next_page[b]` is one past the highest programmed page of block `b`;
//! - a failed command or a failed open changes no byte of the file (a
//!   program writes the page first and its state byte last, so a program cut
//!   between the two leaves an erased page);
//! - nothing is written to a read-only image.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

// `fs4`'s methods are called by path: std's `File` has inherent locking
// methods of the same names with other signatures on newer toolchains.
use fs4::fs_std::FileExt as LockExt;

use crate::mem::default_nvram_size;
use crate::{
    check_nvram, check_oob_read, check_program, check_program_order, check_read, BlockId, Flash,
    FlashCounters, FlashError, Geometry, PageAddr, PageImage, RawFlash, Result, ERASED_BYTE,
};

/// First eight bytes of every image.
pub const IMAGE_MAGIC: [u8; 8] = *b"SCFTLIMG";
/// The image format version this code writes and the newest it reads.
pub const IMAGE_VERSION: u32 = 1;
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

/// One field of the image header: name, byte offset and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderField {
    pub name: &'static str,
    pub offset: usize,
    pub size: usize,
}

const fn field(name: &'static str, offset: usize, size: usize) -> HeaderField {
    HeaderField { name, offset, size }
}

pub const H_MAGIC: HeaderField = field("magic", 0, 8);
pub const H_VERSION: HeaderField = field("version", 8, 4);
pub const H_HEADER_SIZE: HeaderField = field("header_size", 12, 4);
pub const H_CHANNELS: HeaderField = field("channels", 16, 4);
pub const H_DIES_PER_CHANNEL: HeaderField = field("dies_per_channel", 20, 4);
pub const H_BLOCKS_PER_DIE: HeaderField = field("blocks_per_die", 24, 4);
pub const H_PAGES_PER_BLOCK: HeaderField = field("pages_per_block", 28, 4);
pub const H_SECTORS_PER_PAGE: HeaderField = field("sectors_per_page", 32, 4);
pub const H_SECTOR_SIZE: HeaderField = field("sector_size", 36, 4);
pub const H_OOB_SIZE: HeaderField = field("oob_size", 40, 4);
pub const H_FLAGS: HeaderField = field("flags", 44, 4);
pub const H_NVRAM_OFFSET: HeaderField = field("nvram_offset", 48, 8);
pub const H_NVRAM_SIZE: HeaderField = field("nvram_size", 56, 8);
pub const H_STATE_OFFSET: HeaderField = field("state_offset", 64, 8);
pub const H_STATE_SIZE: HeaderField = field("state_size", 72, 8);
pub const H_PAGES_OFFSET: HeaderField = field("pages_offset", 80, 8);
pub const H_PAGE_STRIDE: HeaderField = field("page_stride", 88, 8);
pub const H_IMAGE_SIZE: HeaderField = field("image_size", 96, 8);
pub const H_CREATED_BY: HeaderField = field("created_by", 104, CREATED_BY_SIZE);
pub const H_RESERVED: HeaderField = field("reserved", 168, HEADER_SIZE - 4 - 168);
pub const H_HEADER_CRC: HeaderField = field("header_crc", HEADER_SIZE - 4, 4);

/// Every header field in offset order; together they cover the header
/// exactly. docs/FORMAT.md section 2 lists the same table (a test checks).
pub const HEADER_FIELDS: &[HeaderField] = &[
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
    H_RESERVED,
    H_HEADER_CRC,
];

/// Text written into `created_by` by this build.
const CREATED_BY: &str = concat!("scftl flash ", env!("CARGO_PKG_VERSION"));

/// Where the regions of an image lie, in bytes from the start of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLayout {
    pub nvram_offset: u64,
    pub nvram_size: u64,
    pub state_offset: u64,
    pub state_size: u64,
    pub pages_offset: u64,
    pub page_stride: u64,
    pub image_size: u64,
}

impl ImageLayout {
    /// The version-1 layout for a geometry and nvram size, or `None` if it
    /// does not fit in 64 bits.
    pub fn compute(g: &Geometry, nvram_size: u64) -> Option<ImageLayout> {
        let align = |x: u64| x.checked_next_multiple_of(HEADER_SIZE as u64);
        let nvram_offset = HEADER_SIZE as u64;
        let state_offset = align(nvram_offset.checked_add(nvram_size)?)?;
        let state_size = align(g.total_pages())?;
        let pages_offset = state_offset.checked_add(state_size)?;
        let page_stride = g.page_size() as u64 + u64::from(g.oob_size);
        let image_size = pages_offset.checked_add(g.total_pages().checked_mul(page_stride)?)?;
        Some(ImageLayout {
            nvram_offset,
            nvram_size,
            state_offset,
            state_size,
            pages_offset,
            page_stride,
            image_size,
        })
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
}

impl ImageHeader {
    /// Encodes the header block, CRC included.
    pub fn encode(&self) -> Box<[u8; HEADER_SIZE]> {
        let mut h = Box::new([0u8; HEADER_SIZE]);
        let put = |h: &mut [u8; HEADER_SIZE], f: HeaderField, bytes: &[u8]| {
            debug_assert_eq!(bytes.len(), f.size, "field {}", f.name);
            h[f.offset..f.offset + f.size].copy_from_slice(bytes);
        };
        let g = &self.geometry;
        let l = &self.layout;
        put(&mut h, H_MAGIC, &IMAGE_MAGIC);
        put(&mut h, H_VERSION, &self.version.to_le_bytes());
        put(&mut h, H_HEADER_SIZE, &(HEADER_SIZE as u32).to_le_bytes());
        put(&mut h, H_CHANNELS, &g.channels.to_le_bytes());
        put(
            &mut h,
            H_DIES_PER_CHANNEL,
            &g.dies_per_channel.to_le_bytes(),
        );
        put(&mut h, H_BLOCKS_PER_DIE, &g.blocks_per_die.to_le_bytes());
        put(&mut h, H_PAGES_PER_BLOCK, &g.pages_per_block.to_le_bytes());
        put(
            &mut h,
            H_SECTORS_PER_PAGE,
            &g.sectors_per_page.to_le_bytes(),
        );
        put(&mut h, H_SECTOR_SIZE, &g.sector_size.to_le_bytes());
        put(&mut h, H_OOB_SIZE, &g.oob_size.to_le_bytes());
        put(&mut h, H_FLAGS, &0u32.to_le_bytes());
        put(&mut h, H_NVRAM_OFFSET, &l.nvram_offset.to_le_bytes());
        put(&mut h, H_NVRAM_SIZE, &l.nvram_size.to_le_bytes());
        put(&mut h, H_STATE_OFFSET, &l.state_offset.to_le_bytes());
        put(&mut h, H_STATE_SIZE, &l.state_size.to_le_bytes());
        put(&mut h, H_PAGES_OFFSET, &l.pages_offset.to_le_bytes());
        put(&mut h, H_PAGE_STRIDE, &l.page_stride.to_le_bytes());
        put(&mut h, H_IMAGE_SIZE, &l.image_size.to_le_bytes());
        let text = self.created_by.as_bytes();
        // Truncate on a character boundary so the field stays valid UTF-8.
        let mut n = text.len().min(CREATED_BY_SIZE);
        while !self.created_by.is_char_boundary(n) {
            n -= 1;
        }
        h[H_CREATED_BY.offset..H_CREATED_BY.offset + n].copy_from_slice(&text[..n]);
        let crc = crc32c::crc32c(&h[..H_HEADER_CRC.offset]);
        put(&mut h, H_HEADER_CRC, &crc.to_le_bytes());
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
        let h = &bytes[..HEADER_SIZE];
        let u32_at = |f: HeaderField| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&h[f.offset..f.offset + 4]);
            u32::from_le_bytes(b)
        };
        let u64_at = |f: HeaderField| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&h[f.offset..f.offset + 8]);
            u64::from_le_bytes(b)
        };
        let version = u32_at(H_VERSION);
        if version > IMAGE_VERSION {
            return Err(FlashError::NewerVersion {
                path: path.to_string(),
                found: version,
                supported: IMAGE_VERSION,
            });
        }
        let stored_crc = u32_at(H_HEADER_CRC);
        let crc = crc32c::crc32c(&h[..H_HEADER_CRC.offset]);
        if stored_crc != crc {
            return Err(corrupt(format!(
                "header checksum mismatch (stored {stored_crc:#010x}, computed {crc:#010x})"
            )));
        }
        if version == 0 {
            return Err(corrupt("format version 0 does not exist".into()));
        }
        let header_size = u32_at(H_HEADER_SIZE);
        if header_size as usize != HEADER_SIZE {
            return Err(corrupt(format!(
                "header_size is {header_size}, expected {HEADER_SIZE}"
            )));
        }
        let flags = u32_at(H_FLAGS);
        if flags != 0 {
            return Err(corrupt(format!(
                "unknown flags {flags:#x} for format version {version}"
            )));
        }
        let geometry = Geometry::new(
            u32_at(H_CHANNELS),
            u32_at(H_DIES_PER_CHANNEL),
            u32_at(H_BLOCKS_PER_DIE),
            u32_at(H_PAGES_PER_BLOCK),
            u32_at(H_SECTORS_PER_PAGE),
            u32_at(H_SECTOR_SIZE),
            u32_at(H_OOB_SIZE),
        )
        .map_err(|e| corrupt(format!("geometry: {e}")))?;
        let nvram_size = u64_at(H_NVRAM_SIZE);
        if nvram_size > MAX_NVRAM_BYTES as u64 {
            return Err(corrupt(format!(
                "nvram_size {nvram_size} is more than the maximum {MAX_NVRAM_BYTES}"
            )));
        }
        let layout = ImageLayout::compute(&geometry, nvram_size)
            .ok_or_else(|| corrupt("the layout does not fit in 64 bits".into()))?;
        for (f, expected) in [
            (H_NVRAM_OFFSET, layout.nvram_offset),
            (H_STATE_OFFSET, layout.state_offset),
            (H_STATE_SIZE, layout.state_size),
            (H_PAGES_OFFSET, layout.pages_offset),
            (H_PAGE_STRIDE, layout.page_stride),
            (H_IMAGE_SIZE, layout.image_size),
        ] {
            let found = u64_at(f);
            if found != expected {
                return Err(corrupt(format!(
                    "{} is {found}, but format version {version} puts it at {expected} for this geometry",
                    f.name
                )));
            }
        }
        let text = &h[H_CREATED_BY.offset..H_CREATED_BY.offset + H_CREATED_BY.size];
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
        })
    }
}

/// A flash device stored in an image file. See the file documentation for
/// durability and locking.
pub struct FileFlash {
    path: PathBuf,
    /// `path` for error messages.
    shown: String,
    file: File,
    read_only: bool,
    header: ImageHeader,
    state: Vec<u8>,
    next_page: Vec<u32>,
    nvram: Vec<u8>,
    /// One page stride, reused by every program (no per-op allocation).
    scratch: Box<[u8]>,
    /// `pages_per_block` zero bytes: the state of an erased block.
    erased_states: Box<[u8]>,
    counters: FlashCounters,
}

impl std::fmt::Debug for FileFlash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileFlash")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .field("geometry", &self.header.geometry)
            .finish_non_exhaustive()
    }
}

impl FileFlash {
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
        };
        file.write_all_at(&header.encode()[..], 0).map_err(io)?;
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

    /// Reads and checks the header of an image without locking it or reading
    /// the rest (for `info`-style tools; works on an image in use).
    pub fn read_header(path: impl AsRef<Path>) -> Result<ImageHeader> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let file = File::open(path).map_err(|source| FlashError::Io {
            path: shown.clone(),
            source,
        })?;
        Self::read_header_of(&file, &shown)
    }

    fn read_header_of(file: &File, shown: &str) -> Result<ImageHeader> {
        let io = |source| FlashError::Io {
            path: shown.to_string(),
            source,
        };
        let file_len = file.metadata().map_err(io)?.len();
        let want = file_len.min(HEADER_SIZE as u64) as usize;
        let mut buf = vec![0u8; want];
        file.read_exact_at(&mut buf, 0).map_err(io)?;
        ImageHeader::decode(&buf, file_len, shown)
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
        let header = Self::read_header_of(&file, &shown)?;
        Self::from_parts(path.to_path_buf(), shown, file, read_only, header)
    }

    /// Loads the nvram and page states of a locked image whose header has
    /// been checked.
    fn from_parts(
        path: PathBuf,
        shown: String,
        file: File,
        read_only: bool,
        header: ImageHeader,
    ) -> Result<FileFlash> {
        let io = |source| FlashError::Io {
            path: shown.clone(),
            source,
        };
        let g = header.geometry;
        let l = header.layout;
        let mut nvram = vec![0u8; l.nvram_size as usize];
        file.read_exact_at(&mut nvram, l.nvram_offset).map_err(io)?;
        let mut state = vec![STATE_ERASED; g.total_pages() as usize];
        file.read_exact_at(&mut state, l.state_offset).map_err(io)?;
        let ppb = g.pages_per_block as usize;
        let mut next_page = vec![0u32; g.total_blocks() as usize];
        for (b, states) in state.chunks_exact(ppb).enumerate() {
            for (p, &s) in states.iter().enumerate() {
                match s {
                    STATE_ERASED => {}
                    STATE_PROGRAMMED => next_page[b] = p as u32 + 1,
                    other => {
                        return Err(FlashError::CorruptImage {
                            path: shown,
                            reason: format!(
                                "page {p} of block {b} has state byte {other:#04x} \
                                 (only {STATE_ERASED:#04x} erased and {STATE_PROGRAMMED:#04x} programmed exist)"
                            ),
                        });
                    }
                }
            }
        }
        Ok(FileFlash {
            path,
            shown,
            file,
            read_only,
            scratch: vec![ERASED_BYTE; l.page_stride as usize].into_boxed_slice(),
            erased_states: vec![STATE_ERASED; ppb].into_boxed_slice(),
            header,
            state,
            next_page,
            nvram,
            counters: FlashCounters::default(),
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
        self.header.geometry.check_page(page)?;
        Ok(!self.is_programmed(page))
    }

    fn is_programmed(&self, page: PageAddr) -> bool {
        self.state[self.header.geometry.page_index(page) as usize] == STATE_PROGRAMMED
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

    /// File offset of a page's first data byte.
    fn page_offset(&self, page: PageAddr) -> u64 {
        let l = &self.header.layout;
        l.pages_offset + self.header.geometry.page_index(page) * l.page_stride
    }

    /// Writes a page's bytes (already in `scratch`) and then its state byte.
    fn write_scratch_page(&mut self, page: PageAddr) -> Result<()> {
        let off = self.page_offset(page);
        let idx = self.header.geometry.page_index(page);
        self.file
            .write_all_at(&self.scratch, off)
            .map_err(|e| self.io(e))?;
        self.file
            .write_all_at(&[STATE_PROGRAMMED], self.header.layout.state_offset + idx)
            .map_err(|e| self.io(e))?;
        self.state[idx as usize] = STATE_PROGRAMMED;
        Ok(())
    }
}

impl Flash for FileFlash {
    fn geometry(&self) -> &Geometry {
        &self.header.geometry
    }

    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> Result<()> {
        check_read(&self.header.geometry, page, first_sector, data.len())?;
        if self.is_programmed(page) {
            let off = self.page_offset(page)
                + u64::from(first_sector) * u64::from(self.header.geometry.sector_size);
            self.file.read_exact_at(data, off).map_err(|e| self.io(e))?;
        } else {
            data.fill(ERASED_BYTE);
        }
        self.counters.reads += 1;
        self.counters.bytes_read += data.len() as u64;
        Ok(())
    }

    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        let erased = FileFlash::is_erased(self, page)?;
        self.counters.reads += 1;
        Ok(erased)
    }

    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()> {
        check_oob_read(&self.header.geometry, page, oob)?;
        if self.is_programmed(page) {
            let off = self.page_offset(page) + self.header.geometry.page_size() as u64;
            self.file.read_exact_at(oob, off).map_err(|e| self.io(e))?;
        } else {
            oob.fill(ERASED_BYTE);
        }
        self.counters.reads += 1;
        self.counters.bytes_read += oob.len() as u64;
        Ok(())
    }

    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        check_program(&self.header.geometry, page, data, oob)?;
        self.check_writable()?;
        check_program_order(
            page,
            self.is_programmed(page),
            self.next_page[page.block.0 as usize],
        )?;
        let ps = data.len();
        self.scratch[..ps].copy_from_slice(data);
        self.scratch[ps..ps + oob.len()].copy_from_slice(oob);
        self.scratch[ps + oob.len()..].fill(ERASED_BYTE);
        self.write_scratch_page(page)?;
        self.next_page[page.block.0 as usize] = page.page + 1;
        self.counters.programs += 1;
        self.counters.bytes_programmed += (ps + oob.len()) as u64;
        Ok(())
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.header.geometry.check_block(block)?;
        self.check_writable()?;
        let ppb = u64::from(self.header.geometry.pages_per_block);
        let first = u64::from(block.0) * ppb;
        self.file
            .write_all_at(&self.erased_states, self.header.layout.state_offset + first)
            .map_err(|e| self.io(e))?;
        self.state[first as usize..(first + ppb) as usize].fill(STATE_ERASED);
        self.next_page[block.0 as usize] = 0;
        self.counters.erases += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        if !self.read_only {
            self.file.sync_data().map_err(|e| self.io(e))?;
        }
        self.counters.syncs += 1;
        Ok(())
    }

    fn nvram_size(&self) -> usize {
        self.nvram.len()
    }

    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        check_nvram(self.nvram.len(), offset, buf.len())?;
        buf.copy_from_slice(&self.nvram[offset..offset + buf.len()]);
        Ok(())
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
        self.counters
    }
}

impl RawFlash for FileFlash {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.header.geometry.check_page(page)?;
        if !self.is_programmed(page) {
            return Ok(PageImage::Erased);
        }
        let ps = self.header.geometry.page_size();
        let mut buf = vec![0u8; self.header.layout.page_stride as usize];
        self.file
            .read_exact_at(&mut buf, self.page_offset(page))
            .map_err(|e| self.io(e))?;
        let oob = buf.split_off(ps);
        Ok(PageImage::Programmed {
            data: buf.into_boxed_slice(),
            oob: oob.into_boxed_slice(),
        })
    }

    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.header.geometry.check_page(page)?;
        self.check_writable()?;
        match image {
            PageImage::Erased => {
                let idx = self.header.geometry.page_index(page);
                self.file
                    .write_all_at(&[STATE_ERASED], self.header.layout.state_offset + idx)
                    .map_err(|e| self.io(e))?;
                self.state[idx as usize] = STATE_ERASED;
            }
            PageImage::Programmed { data, oob } => {
                let ps = self.header.geometry.page_size();
                let os = self.header.geometry.oob_size as usize;
                if data.len() != ps || oob.len() != os {
                    return Err(FlashError::BadLength {
                        what: "page image (data + OOB)",
                        expected: ps + os,
                        got: data.len() + oob.len(),
                    });
                }
                self.scratch[..ps].copy_from_slice(&data);
                self.scratch[ps..].copy_from_slice(&oob);
                self.write_scratch_page(page)?;
            }
        }
        // Recompute the block's next programmable page.
        let ppb = self.header.geometry.pages_per_block as usize;
        let first = page.block.0 as usize * ppb;
        let states = &self.state[first..first + ppb];
        let next = states
            .iter()
            .rposition(|&s| s == STATE_PROGRAMMED)
            .map_or(0, |p| p as u32 + 1);
        self.next_page[page.block.0 as usize] = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_tile_the_header_exactly() {
        let mut at = 0;
        for f in HEADER_FIELDS {
            assert_eq!(
                f.offset, at,
                "field {} does not start where the previous ended",
                f.name
            );
            at += f.size;
        }
        assert_eq!(at, HEADER_SIZE);
    }

    #[test]
    fn header_round_trips_and_every_byte_is_covered_by_the_crc() {
        let g = Geometry::small();
        let header = ImageHeader {
            version: IMAGE_VERSION,
            geometry: g,
            layout: ImageLayout::compute(&g, 12345).unwrap(),
            created_by: "test".into(),
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
        assert_eq!(
            l.image_size - l.pages_offset,
            g.total_pages() * (g.page_size() as u64 + 128)
        );
    }
}
