//! Crash states as image files: a raw file of the device's logical
//! content, which a check gets to mount, fsck or read as it likes.
//!
//! A *template* file is kept at the state after some prefix of the ops and
//! only moves forward; each state is a copy of it (a reflink where the file
//! system has them, else a sparse copy of its data extents) with the rest
//! of the state's ops applied. Zero writes and trims punch holes, so images
//! stay sparse and copies cost what the data costs.
//!
//! Invariant: the file handed to a check holds exactly the state's content
//! (`ops[0..upto]` minus `dropped`, over the base), and the template is
//! never handed out, so whatever a check writes is gone with its copy.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::states::{last_flush_before, State};
use crate::trace::{Op, Trace};

pub struct Images<'t> {
    trace: &'t Trace,
    template: File,
    /// Ops applied to the template.
    pos: usize,
    scratch: PathBuf,
}

fn err(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("{what} {}: {e}", path.display())
}

impl<'t> Images<'t> {
    /// A template at the base, in `dir`; states are written to
    /// `dir/state.img`.
    pub fn new(trace: &'t Trace, dir: &Path) -> Result<Images<'t>, String> {
        let tp = dir.join("template.img");
        let template = create(&tp, trace.device_bytes())?;
        for e in &trace.base {
            apply(trace, &template, &e.op).map_err(|e| err("writing", &tp, e))?;
        }
        Ok(Images {
            trace,
            template,
            pos: 0,
            scratch: dir.join("state.img"),
        })
    }

    /// Writes `st` to the scratch file and returns its path. States must
    /// come in an order where the last flush before `upto` never moves
    /// back, and within one flush interval states with dropped writes come
    /// before those without (as `plan` lists them after [`order`]).
    pub fn state(&mut self, st: &State) -> Result<&Path, String> {
        // The template serves if it holds no op the state drops or lacks.
        let first_dropped = st.dropped.first().copied().unwrap_or(st.upto);
        if self.pos > first_dropped {
            return self.fresh(st);
        }
        // It may move up to the flush before the state, or to `upto` if
        // nothing is dropped (later states of this interval may drop more).
        let flushed = last_flush_before(self.trace, st.upto);
        let to = if st.dropped.is_empty() {
            st.upto
        } else {
            flushed.max(self.pos)
        };
        while self.pos < to {
            apply(self.trace, &self.template, &self.trace.ops[self.pos].op)
                .map_err(|e| format!("writing the template: {e}"))?;
            self.pos += 1;
        }
        let _ = std::fs::remove_file(&self.scratch);
        let out = create(&self.scratch, self.trace.device_bytes())?;
        copy(&self.template, &out).map_err(|e| err("copying the template to", &self.scratch, e))?;
        for i in self.pos..st.upto {
            if st.keeps(i) {
                apply(self.trace, &out, &self.trace.ops[i].op)
                    .map_err(|e| err("writing", &self.scratch, e))?;
            }
        }
        Ok(&self.scratch)
    }

    /// Writes `st` to the scratch file from the base (any state, any
    /// order; costs the whole trace).
    pub fn fresh(&mut self, st: &State) -> Result<&Path, String> {
        let _ = std::fs::remove_file(&self.scratch);
        write_state(self.trace, st, &self.scratch)?;
        Ok(&self.scratch)
    }
}

/// Writes state `st` of `trace` to a new file at `path`.
pub fn write_state(trace: &Trace, st: &State, path: &Path) -> Result<(), String> {
    let f = create(path, trace.device_bytes())?;
    for e in &trace.base {
        apply(trace, &f, &e.op).map_err(|e| err("writing", path, e))?;
    }
    for i in 0..st.upto {
        if st.keeps(i) {
            apply(trace, &f, &trace.ops[i].op).map_err(|e| err("writing", path, e))?;
        }
    }
    f.sync_all().map_err(|e| err("syncing", path, e))
}

/// Sorts states for [`Images::state`]: by the flush before them, then
/// those with drops first, then by `upto`.
pub fn order(trace: &Trace, states: &mut [(State, u64)]) {
    states.sort_by_key(|(s, _)| {
        (
            last_flush_before(trace, s.upto),
            s.dropped.is_empty(),
            s.upto,
        )
    });
}

fn create(path: &Path, len: u64) -> Result<File, String> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                std::fs::remove_file(path)?;
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .open(path)
            } else {
                Err(e)
            }
        })
        .map_err(|e| err("creating", path, e))?;
    f.set_len(len).map_err(|e| err("sizing", path, e))?;
    Ok(f)
}

/// Applies one op to an image file.
fn apply(trace: &Trace, f: &File, op: &Op) -> std::io::Result<()> {
    let ss = trace.sector_size as u64;
    match op {
        Op::Write {
            lba, data: Some(r), ..
        } => f.write_all_at(&trace.data[r.clone()], lba * ss),
        Op::Write { lba, count, .. } | Op::Trim { lba, count } => punch(f, lba * ss, count * ss),
        Op::Flush | Op::Barrier => Ok(()),
    }
}

/// Zeroes a range by punching a hole (by writing zeros where the file
/// system has no holes).
fn punch(f: &File, off: u64, len: u64) -> std::io::Result<()> {
    // SAFETY: fallocate on an open descriptor; no memory is passed.
    let r = unsafe {
        libc::fallocate(
            f.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            off as libc::off_t,
            len as libc::off_t,
        )
    };
    if r == 0 {
        return Ok(());
    }
    let zeros = vec![0u8; 1 << 20];
    let mut done = 0;
    while done < len {
        let n = (len - done).min(zeros.len() as u64);
        f.write_all_at(&zeros[..n as usize], off + done)?;
        done += n;
    }
    Ok(())
}

/// Copies `src` into the empty, sized `dst`: a reflink if the file system
/// makes one, else each data extent (holes stay holes).
fn copy(src: &File, dst: &File) -> std::io::Result<()> {
    const FICLONE: libc::c_ulong = 0x4004_9409;
    // SAFETY: the ioctl takes the source descriptor as its argument.
    if unsafe { libc::ioctl(dst.as_raw_fd(), FICLONE as _, src.as_raw_fd()) } == 0 {
        return Ok(());
    }
    let len = src.metadata()?.len() as i64;
    let (s, d) = (src.as_raw_fd(), dst.as_raw_fd());
    let mut at: i64 = 0;
    while at < len {
        // SAFETY: lseek on an open descriptor.
        let data = unsafe { libc::lseek(s, at, libc::SEEK_DATA) };
        if data < 0 {
            let e = std::io::Error::last_os_error();
            // ENXIO: no data after `at`.
            if e.raw_os_error() == Some(libc::ENXIO) {
                break;
            }
            return Err(e);
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(s, data, libc::SEEK_HOLE) };
        let end = if hole < 0 { len } else { hole.min(len) };
        let mut off_in = data;
        let mut off_out = data;
        while off_in < end {
            // SAFETY: both offsets are valid pointers to i64s we own.
            let n = unsafe {
                libc::copy_file_range(s, &mut off_in, d, &mut off_out, (end - off_in) as usize, 0)
            };
            if n < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if n == 0 {
                break;
            }
        }
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::states::{plan, Bounds, Contract, Fingerprints};
    use crate::trace::Entry;

    #[test]
    fn every_state_file_holds_exactly_its_ops() {
        let mut t = Trace {
            sector_size: 512,
            num_sectors: 64,
            base: Vec::new(),
            ops: Vec::new(),
            data: Vec::new(),
            ended: true,
            ignored_tail: None,
        };
        let w = |t: &mut Trace, lba: u64, count: u64, byte: u8| {
            let start = t.data.len();
            t.data
                .extend(std::iter::repeat_n(byte, 512 * count as usize));
            t.ops.push(Entry {
                op: Op::Write {
                    lba,
                    count,
                    data: Some(start..t.data.len()),
                },
                origin: 1,
            });
        };
        w(&mut t, 0, 4, 1);
        w(&mut t, 2, 4, 2);
        t.ops.push(Entry {
            op: Op::Flush,
            origin: 1,
        });
        t.ops.push(Entry {
            op: Op::Trim { lba: 3, count: 2 },
            origin: 2,
        });
        w(&mut t, 40, 1, 3);
        w(&mut t, 4, 1, 4);
        let dir = tempfile::tempdir().unwrap();
        let f = Fingerprints::new(&t);
        let mut all = plan(&t, &f, Contract::Async, Bounds::default()).states;
        order(&t, &mut all);
        let mut im = Images::new(&t, dir.path()).unwrap();
        let fresh = dir.path().join("fresh.img");
        for (st, _) in &all {
            let got = std::fs::read(im.state(st).unwrap()).unwrap();
            write_state(&t, st, &fresh).unwrap();
            let want = std::fs::read(&fresh).unwrap();
            // What it must hold, computed sector by sector.
            let mut model = vec![0u8; 64 * 512];
            for i in 0..st.upto {
                if !st.keeps(i) {
                    continue;
                }
                match &t.ops[i].op {
                    Op::Write {
                        lba, data: Some(r), ..
                    } => {
                        let o = *lba as usize * 512;
                        model[o..o + r.len()].copy_from_slice(&t.data[r.clone()]);
                    }
                    Op::Trim { lba, count } => {
                        let o = *lba as usize * 512;
                        model[o..o + *count as usize * 512].fill(0);
                    }
                    _ => {}
                }
            }
            assert_eq!(got, model, "state {}", st.id());
            assert_eq!(want, model, "fresh state {}", st.id());
        }
    }
}
