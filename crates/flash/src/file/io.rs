//! The file operations an image needs ([`ImageIo`]): positioned reads and
//! writes, `fdatasync` and the length. `std::fs::File` is the real one;
//! `crash.rs` records them in memory to model a host power cut.

use std::io;

/// What [`super::FileFlash`] does to its image file.
/// A sync of an image that runs without it ([`ImageIo::sync_job`]).
pub type SyncJob = Box<dyn FnOnce() -> io::Result<()> + Send>;

pub trait ImageIo {
    /// Fills `buf` from `offset` (an error if the file is shorter).
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Fills `parts` in turn from the bytes at `offset` on, as one read: the
    /// same bytes as `read_exact_at` of their concatenation. The default
    /// reads each part on its own; a real file fills them with `preadv`, so
    /// a run of pages costs one system call.
    fn read_exact_vectored_at(&self, parts: &mut [&mut [u8]], offset: u64) -> io::Result<()> {
        let mut at = offset;
        for p in parts.iter_mut() {
            self.read_exact_at(p, at)?;
            at += p.len() as u64;
        }
        Ok(())
    }
    /// Writes all of `buf` at `offset`.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Writes the concatenation of `parts` at `offset`, as one write: the
    /// same bytes, and the same facts for a power cut, as `write_all_at` of
    /// the concatenated buffer. The default builds that buffer; a real file
    /// gathers the parts in one `pwritev` instead, so a page's data need not
    /// be copied next to its OOB first.
    fn write_all_vectored_at(&self, parts: &[&[u8]], offset: u64) -> io::Result<()> {
        self.write_all_at(&parts.concat(), offset)
    }
    /// Makes every write so far survive a power cut (`fdatasync`).
    fn sync_data(&self) -> io::Result<()>;
    /// [`ImageIo::sync_data`] as a job that needs no access to `self`, for
    /// a sync that runs while other writes are issued (`Flash::start_sync`):
    /// it makes every write made before this call durable. `None`: not
    /// possible (the default); the caller syncs with `sync_data`.
    fn sync_job(&self) -> Option<io::Result<SyncJob>> {
        None
    }
    /// Asks the operating system to start writing the file's dirty pages to
    /// the disk now, without waiting for them: a hint that promises no
    /// durability (only [`ImageIo::sync_data`] does), so that a later sync
    /// finds less to write. The default does nothing.
    fn start_writeback(&self) -> io::Result<()> {
        Ok(())
    }
    /// The file's length in bytes.
    fn byte_len(&self) -> io::Result<u64>;
    /// A second handle on the same file for a [`Writeback`] thread, if this
    /// kind of file has write-out worth starting off the writing thread.
    /// The default has none.
    fn writeback_handle(&self) -> Option<std::fs::File> {
        None
    }
}

/// Starts a file's write-out ([`ImageIo::start_writeback`]) on a thread of
/// its own, so the thread that programs pages does not spend its time
/// submitting the disk I/O (about 7 % of the server's CPU in a sequential
/// NBD write profile) — as the kernel's flusher threads do for a server
/// that leaves write-out to them. A kick while one is running merges into
/// it. Only a hint: it promises no durability.
pub(crate) struct Writeback {
    kick: Option<std::sync::mpsc::SyncSender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Writeback {
    /// Spawns the thread over `file` (a handle on the image).
    pub(crate) fn spawn(file: std::fs::File) -> io::Result<Writeback> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("image-writeback".into())
            .spawn(move || {
                while rx.recv().is_ok() {
                    // A failure loses nothing: the next sync reports a
                    // real I/O error.
                    let _ = file.start_writeback();
                }
            })?;
        Ok(Writeback {
            kick: Some(tx),
            thread: Some(thread),
        })
    }

    /// Asks the thread to start write-out (merged with a pending request).
    pub(crate) fn kick(&self) {
        if let Some(tx) = &self.kick {
            let _ = tx.try_send(());
        }
    }
}

impl Drop for Writeback {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        drop(self.kick.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Most parts one `pwritev` call is given (a page needs at most three).
const MAX_PARTS: usize = 8;

/// Most parts one `preadv` call is given (the kernel's `IOV_MAX`); a read
/// of more parts takes several calls.
const MAX_READ_PARTS: usize = 1024;

impl ImageIo for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::write_all_at(self, buf, offset)
    }
    fn read_exact_vectored_at(&self, parts: &mut [&mut [u8]], offset: u64) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let mut iov = Vec::with_capacity(parts.len().min(MAX_READ_PARTS));
        until_done(total, offset, io::ErrorKind::UnexpectedEof, |done, at| {
            iov.clear();
            let mut skip = done;
            for p in parts.iter_mut() {
                if skip >= p.len() {
                    skip -= p.len();
                    continue;
                }
                if iov.len() == MAX_READ_PARTS {
                    break;
                }
                let rest = &mut p[skip..];
                skip = 0;
                iov.push(libc::iovec {
                    iov_base: rest.as_mut_ptr() as *mut libc::c_void,
                    iov_len: rest.len(),
                });
            }
            // SAFETY: every entry of `iov` points into a distinct part of
            // `parts`, borrowed mutably for the whole call, with its exact
            // remaining length; the kernel writes at most that many bytes
            // into each.
            unsafe { libc::preadv(self.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, at) }
        })
    }
    fn write_all_vectored_at(&self, parts: &[&[u8]], offset: u64) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        if parts.len() > MAX_PARTS {
            return self.write_all_at(&parts.concat(), offset);
        }
        let total: usize = parts.iter().map(|p| p.len()).sum();
        until_done(total, offset, io::ErrorKind::WriteZero, |done, at| {
            let mut iov = [libc::iovec {
                iov_base: std::ptr::null_mut(),
                iov_len: 0,
            }; MAX_PARTS];
            let (mut n, mut skip) = (0, done);
            for p in parts {
                if skip >= p.len() {
                    skip -= p.len();
                    continue;
                }
                let rest = &p[skip..];
                skip = 0;
                iov[n] = libc::iovec {
                    iov_base: rest.as_ptr() as *mut libc::c_void,
                    iov_len: rest.len(),
                };
                n += 1;
            }
            // SAFETY: the first `n` entries of `iov` point into slices of
            // `parts`, which outlive the call, with their exact lengths; the
            // kernel only reads them.
            unsafe { libc::pwritev(self.as_raw_fd(), iov.as_ptr(), n as libc::c_int, at) }
        })
    }
    fn sync_data(&self) -> io::Result<()> {
        std::fs::File::sync_data(self)
    }
    /// `fdatasync` on a duplicate of the descriptor: it syncs the same
    /// file, so it covers every write made through `self` before it.
    fn sync_job(&self) -> Option<io::Result<SyncJob>> {
        Some(
            self.try_clone()
                .map(|f| Box::new(move || f.sync_data()) as SyncJob),
        )
    }
    fn start_writeback(&self) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor; offset 0 and
        // length 0 mean the whole file. SYNC_FILE_RANGE_WRITE starts the
        // write-out of dirty pages and does not wait for it to finish.
        let r =
            unsafe { libc::sync_file_range(self.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    fn byte_len(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn writeback_handle(&self) -> Option<std::fs::File> {
        self.try_clone().ok()
    }
}

/// Issues a positioned vectored system call until `total` bytes of its
/// parts are done: `call(done, at)` issues it for the parts' bytes from
/// `done` on at file offset `at` and returns what the call returned. A
/// short transfer (a signal, a page-cache boundary, a full disk) resumes
/// where it stopped, an interrupted call is retried, and a call that
/// transfers nothing fails with `stuck`.
fn until_done(
    total: usize,
    offset: u64,
    stuck: io::ErrorKind,
    mut call: impl FnMut(usize, libc::off_t) -> isize,
) -> io::Result<()> {
    let mut done = 0usize;
    while done < total {
        let at = offset
            .checked_add(done as u64)
            .and_then(|o| libc::off_t::try_from(o).ok())
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        let r = call(done, at);
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if r == 0 {
            return Err(stuck.into());
        }
        done += r as usize;
    }
    Ok(())
}
