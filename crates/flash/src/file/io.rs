//! The file operations an image needs ([`ImageIo`]): positioned reads and
//! writes, `fdatasync` and the length. `std::fs::File` is the real one;
//! `crash.rs` records them in memory to model a host power cut.

use std::io;

/// What [`super::FileFlash`] does to its image file.
pub trait ImageIo {
    /// Fills `buf` from `offset` (an error if the file is shorter).
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset`.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every write so far survive a power cut (`fdatasync`).
    fn sync_data(&self) -> io::Result<()>;
    /// The file's length in bytes.
    fn byte_len(&self) -> io::Result<u64>;
}

impl ImageIo for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::write_all_at(self, buf, offset)
    }
    fn sync_data(&self) -> io::Result<()> {
        std::fs::File::sync_data(self)
    }
    fn byte_len(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}
