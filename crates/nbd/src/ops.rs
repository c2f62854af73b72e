//! Byte-addressed operations on a sector-addressed [`BlockDevice`]: what an
//! NBD request needs, built from what an FTL offers.
//!
//! Two adaptations happen here, and nowhere else:
//!
//! * **Unaligned requests** are served by read-modify-write: a write that
//!   starts or ends inside a sector reads that sector, patches it, and writes
//!   whole sectors. Reads of part of a sector read the sector and copy the
//!   part. A trim only unmaps the whole sectors inside its range (trim is a
//!   hint; the partial sectors at its edges keep their data). Write-zeroes
//!   zero-fills partial edge sectors by read-modify-write.
//! * **The epoch bound.** A bounded FTL (SCFTL) accepts at most a fixed
//!   number of sector updates between flushes and refuses the rest with
//!   [`FtlError::EpochFull`]. A request that does not fit what is left of the
//!   current epoch is preceded by an epoch barrier
//!   ([`BlockDevice::epoch_barrier`]); a request larger than a whole epoch
//!   is split at epoch boundaries with a barrier between the pieces. Those
//!   internal barriers order, but do not make durable (no `fdatasync` on an
//!   image): after a power cut the device holds the data as of the last
//!   client flush or of one of the barriers after it, so a client that never
//!   flushes gets prefix semantics at those points — each sector holds
//!   either its old or its new value in write order, never torn data,
//!   because every piece is a whole-sector FTL write.
//!
//! Invariant: every function here either changes nothing on the device and
//! returns an error, or performs the request completely (possibly with
//! internal epoch barriers in between, as described above). Requests are validated
//! against the device size before anything is written.

use ftl::{BlockDevice, FtlError, Lba};

use crate::proto::{EINVAL, EIO, ENOSPC, EPERM, STATE_HOLE, STATE_ZERO};

/// Largest piece written to the device in one call when zero-filling.
const ZERO_CHUNK_BYTES: usize = 1 << 20;

/// An error to report to the client: an NBD error value and a message for
/// the server's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpError {
    pub errno: u32,
    pub message: String,
}

impl OpError {
    pub fn new(errno: u32, message: impl Into<String>) -> OpError {
        OpError {
            errno,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (NBD error {})", self.message, self.errno)
    }
}

/// Maps an FTL error to the NBD error value a client sees.
pub fn errno_of(e: &FtlError) -> u32 {
    match e {
        FtlError::OutOfRange { .. } | FtlError::BadLength { .. } | FtlError::BadArgument(_) => {
            EINVAL
        }
        FtlError::NoSpace(_) => ENOSPC,
        // A worn-out device is read-only, as a read-only export is.
        FtlError::WornOut(_) => EPERM,
        // Only the request touching the damaged sector fails; the log line
        // (transmission.rs) names the sector.
        FtlError::DamagedSector { .. } => EIO,
        _ => EIO,
    }
}

/// An error of the FTL outside an operation's own steps: the detached
/// write of a request's pages after the device's lock was released
/// (`ftl::SharedDevice::change`).
impl From<FtlError> for OpError {
    fn from(e: FtlError) -> OpError {
        ftl_err("writing the request's pages to the image", e)
    }
}

pub(crate) fn ftl_err(what: &str, e: FtlError) -> OpError {
    OpError::new(errno_of(&e), format!("{what}: {e}"))
}

/// What a mutating operation did besides the request itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Flushes the server issued because the epoch was full.
    pub epoch_flushes: u64,
}

impl Effects {
    fn add(&mut self, other: Effects) {
        self.epoch_flushes += other.epoch_flushes;
    }
}

/// Size of the device in bytes.
pub fn size_bytes<D: BlockDevice + ?Sized>(dev: &D) -> u64 {
    dev.num_sectors().saturating_mul(dev.sector_size() as u64)
}

/// Checks that `offset..offset+len` lies inside the device.
pub fn check_bounds(size: u64, offset: u64, len: u64, errno: u32) -> Result<(), OpError> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(OpError::new(
            errno,
            format!("request for bytes {offset}+{len} goes past the end of the {size}-byte export"),
        )),
    }
}

/// Reads `out.len()` bytes at byte `offset`.
pub fn read_at<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    out: &mut [u8],
) -> Result<(), OpError> {
    let (size, ss) = (size_bytes(dev), dev.sector_size());
    read_with(size, ss, offset, out, |lba, buf| dev.read(lba, buf))
}

/// [`read_at`] through `read`, which reads whole sectors of a device of
/// `size` bytes in `sector_size`-byte sectors (a shared device's reader).
pub fn read_with(
    size: u64,
    sector_size: usize,
    offset: u64,
    out: &mut [u8],
    read: impl FnOnce(Lba, &mut [u8]) -> ftl::Result<()>,
) -> Result<(), OpError> {
    check_bounds(size, offset, out.len() as u64, EINVAL)?;
    if out.is_empty() {
        return Ok(());
    }
    let ss = sector_size as u64;
    let first = offset / ss;
    let head = (offset % ss) as usize;
    if head == 0 && (out.len() as u64).is_multiple_of(ss) {
        return read(Lba(first), out).map_err(|e| ftl_err("read", e));
    }
    let end = offset + out.len() as u64;
    let last = end.div_ceil(ss);
    let mut tmp = vec![0u8; ((last - first) * ss) as usize];
    read(Lba(first), &mut tmp).map_err(|e| ftl_err("read", e))?;
    out.copy_from_slice(&tmp[head..head + out.len()]);
    Ok(())
}

/// Most sectors one block status request looks up (the reply then covers
/// less than was asked, which the protocol allows; the client asks again
/// from where it ends). Bounds the time a lookup holds the device's lock
/// shared and the reply's size (at most this many extents).
pub const MAX_STATUS_SECTORS: u64 = 1 << 20;

/// The `base:allocation` extents of `len` bytes at byte `offset`: (length,
/// flags) in order from `offset`, each a run of mapped sectors (flags 0)
/// or of unmapped ones (`STATE_HOLE | STATE_ZERO`: they read as zeros).
/// `allocation` is the device's answer for a sector range; where it has
/// none, the whole request is one extent with flags 0 (allocated), which
/// the protocol allows any server to say. With `req_one` only the first
/// extent. The extents never reach past the request.
pub fn block_status(
    size: u64,
    sector_size: usize,
    offset: u64,
    len: u64,
    req_one: bool,
    allocation: impl FnOnce(Lba, u64) -> Option<ftl::Result<Vec<(u64, bool)>>>,
) -> Result<Vec<(u32, u32)>, OpError> {
    check_bounds(size, offset, len, EINVAL)?;
    if len == 0 {
        return Err(OpError::new(EINVAL, "zero-length block status request"));
    }
    let ss = sector_size as u64;
    let first = offset / ss;
    let end = offset + len;
    let count = (end.div_ceil(ss) - first).min(MAX_STATUS_SECTORS);
    let runs = match allocation(Lba(first), count) {
        None => return Ok(vec![(len as u32, 0)]),
        Some(r) => r.map_err(|e| ftl_err("block status", e))?,
    };
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut at = first * ss;
    for (n, mapped) in runs {
        let (start, stop) = (at.max(offset), (at + n * ss).min(end));
        at += n * ss;
        if stop <= start {
            continue;
        }
        let flags = if mapped { 0 } else { STATE_HOLE | STATE_ZERO };
        match out.last_mut() {
            Some((l, f)) if *f == flags => *l += (stop - start) as u32,
            _ => out.push(((stop - start) as u32, flags)),
        }
        if req_one || at >= end {
            break;
        }
    }
    if out.is_empty() {
        return Err(OpError::new(
            EIO,
            "block status: the device described none of the range",
        ));
    }
    out.truncate(if req_one { 1 } else { out.len() });
    Ok(out)
}

/// Writes `data` at byte `offset` (read-modify-write at unaligned edges).
pub fn write_at<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    data: &[u8],
) -> Result<Effects, OpError> {
    check_bounds(size_bytes(dev), offset, data.len() as u64, ENOSPC)?;
    if data.is_empty() {
        return Ok(Effects::default());
    }
    let ss = dev.sector_size() as u64;
    let first = offset / ss;
    let head = (offset % ss) as usize;
    if head == 0 && (data.len() as u64).is_multiple_of(ss) {
        return write_sectors(dev, first, data);
    }
    let end = offset + data.len() as u64;
    let last = end.div_ceil(ss);
    let mut buf = vec![0u8; ((last - first) * ss) as usize];
    let ssz = ss as usize;
    // Only the partial edge sectors need their old content.
    if head != 0 {
        dev.read(Lba(first), &mut buf[..ssz])
            .map_err(|e| ftl_err("read for read-modify-write", e))?;
    }
    if !end.is_multiple_of(ss) && (last - 1 > first || head == 0) {
        let at = buf.len() - ssz;
        dev.read(Lba(last - 1), &mut buf[at..])
            .map_err(|e| ftl_err("read for read-modify-write", e))?;
    }
    buf[head..head + data.len()].copy_from_slice(data);
    write_sectors(dev, first, &buf)
}

/// Makes everything written so far durable.
pub fn flush<D: BlockDevice + ?Sized>(dev: &mut D) -> Result<(), OpError> {
    dev.flush().map_err(|e| ftl_err("flush", e))
}

/// Unmaps the whole sectors inside `offset..offset+len`.
pub fn trim_at<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    len: u64,
) -> Result<Effects, OpError> {
    check_bounds(size_bytes(dev), offset, len, EINVAL)?;
    let ss = dev.sector_size() as u64;
    let first = offset.div_ceil(ss);
    let last = (offset + len) / ss;
    if last <= first {
        return Ok(Effects::default());
    }
    trim_sectors(dev, first, last - first)
}

/// Makes `offset..offset+len` read as zeros. Whole sectors are unmapped
/// (they read as zeros) unless `no_hole` asks for them to be written;
/// partial edge sectors are zero-filled by read-modify-write.
pub fn write_zeroes_at<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    len: u64,
    no_hole: bool,
) -> Result<Effects, OpError> {
    check_bounds(size_bytes(dev), offset, len, ENOSPC)?;
    let ss = dev.sector_size() as u64;
    let end = offset + len;
    let mut fx = Effects::default();
    let mut pos = offset;
    while pos < end {
        let sector_end = (pos / ss + 1) * ss;
        let aligned_whole = pos.is_multiple_of(ss) && end >= sector_end;
        if !aligned_whole {
            // A partial sector at one edge.
            let n = (sector_end.min(end) - pos) as usize;
            fx.add(write_at(dev, pos, &vec![0u8; n])?);
            pos += n as u64;
            continue;
        }
        let whole_end = end / ss * ss;
        if no_hole {
            let zeros = vec![0u8; ZERO_CHUNK_BYTES.min((whole_end - pos) as usize)];
            while pos < whole_end {
                let n = zeros.len().min((whole_end - pos) as usize);
                fx.add(write_sectors(dev, pos / ss, &zeros[..n])?);
                pos += n as u64;
            }
        } else {
            fx.add(trim_sectors(dev, pos / ss, (whole_end - pos) / ss)?);
            pos = whole_end;
        }
    }
    Ok(fx)
}

/// How many sectors the next piece of an epoch-bounded update may cover, or
/// `Flush` if the epoch must be closed first.
enum Step {
    Do(u64),
    Flush,
}

/// Decides the next piece of a `left`-sector update. `fresh` says whether a
/// flush was just issued (so the epoch is as empty as it gets); `cap`
/// bounds a piece after the FTL refused a larger one.
fn next_step(remaining: Option<u64>, left: u64, fresh: bool, cap: u64) -> Result<Step, OpError> {
    let want = left.min(cap);
    match remaining {
        None => Ok(Step::Do(want)),
        Some(r) if r >= want => Ok(Step::Do(want)),
        // Keep the request in one piece if a fresh epoch can hold it.
        Some(_) if !fresh => Ok(Step::Flush),
        Some(0) => Err(OpError::new(
            EIO,
            "the FTL accepts no update even right after a flush; the device is out of space or \
             misconfigured",
        )),
        Some(r) => Ok(Step::Do(r)),
    }
}

/// Runs a sector update of `count` sectors from `lba` in epoch-sized
/// pieces; `apply(dev, lba, n, done)` performs one piece of `n` sectors
/// starting `done` sectors into the request.
fn epoch_bounded<D, A>(
    dev: &mut D,
    lba: u64,
    count: u64,
    what: &str,
    mut apply: A,
) -> Result<Effects, OpError>
where
    D: BlockDevice + ?Sized,
    A: FnMut(&mut D, u64, u64, u64) -> ftl::Result<()>,
{
    let mut fx = Effects::default();
    let mut done = 0u64;
    let mut fresh = false;
    let mut cap = u64::MAX;
    while done < count {
        match next_step(dev.epoch_remaining(), count - done, fresh, cap)? {
            Step::Flush => {
                dev.epoch_barrier()
                    .map_err(|e| ftl_err("epoch barrier before a full epoch", e))?;
                fx.epoch_flushes += 1;
                fresh = true;
            }
            Step::Do(n) => match apply(dev, lba + done, n, done) {
                Ok(()) => {
                    done += n;
                    fresh = false;
                    cap = u64::MAX;
                }
                // The FTL's own accounting (e.g. a GC bound) refused the
                // piece: close the epoch, then retry with smaller pieces.
                Err(FtlError::EpochFull { .. }) if !fresh => {
                    dev.epoch_barrier()
                        .map_err(|e| ftl_err("epoch barrier before a full epoch", e))?;
                    fx.epoch_flushes += 1;
                    fresh = true;
                }
                Err(FtlError::EpochFull { .. }) if n > 1 => cap = n / 2,
                Err(e) => return Err(ftl_err(what, e)),
            },
        }
    }
    Ok(fx)
}

/// Writes whole sectors, epoch-aware.
pub fn write_sectors<D: BlockDevice + ?Sized>(
    dev: &mut D,
    lba: u64,
    data: &[u8],
) -> Result<Effects, OpError> {
    let ss = dev.sector_size();
    if data.is_empty() || !data.len().is_multiple_of(ss) {
        return Err(OpError::new(
            EINVAL,
            format!(
                "write of {} bytes is not whole {ss}-byte sectors",
                data.len()
            ),
        ));
    }
    let count = (data.len() / ss) as u64;
    epoch_bounded(dev, lba, count, "write", |d, at, n, done| {
        let from = done as usize * ss;
        d.write(Lba(at), &data[from..from + n as usize * ss])
    })
}

/// Trims whole sectors, epoch-aware.
pub fn trim_sectors<D: BlockDevice + ?Sized>(
    dev: &mut D,
    lba: u64,
    count: u64,
) -> Result<Effects, OpError> {
    epoch_bounded(dev, lba, count, "trim", |d, at, n, _| d.trim(Lba(at), n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdev::RamDisk;

    /// A device of 16 sectors of 512 bytes whose sectors 4..8 and 12 are
    /// mapped, answering as `BlockDevice::allocation` does.
    fn runs(lba: Lba, count: u64) -> Option<ftl::Result<Vec<(u64, bool)>>> {
        let mapped = |i: u64| (4..8).contains(&i) || i == 12;
        Some(Ok(ftl::mapped_runs((lba.0..lba.0 + count).map(mapped))))
    }

    #[test]
    fn block_status_reports_runs_within_the_request() {
        const H: u32 = STATE_HOLE | STATE_ZERO;
        let size = 16 * 512;
        let bs = |off, len, one| block_status(size, 512, off, len, one, runs);
        assert_eq!(
            bs(0, size, false).unwrap(),
            vec![(2048, H), (2048, 0), (2048, H), (512, 0), (1536, H)]
        );
        // Unaligned at both ends: cut to the request, never past it.
        assert_eq!(bs(100, 2100, false).unwrap(), vec![(1948, H), (152, 0)]);
        assert_eq!(bs(2048 + 10, 100, false).unwrap(), vec![(100, 0)]);
        // One extent only, no longer than the request.
        assert_eq!(bs(0, size, true).unwrap(), vec![(2048, H)]);
        assert_eq!(bs(0, 1000, true).unwrap(), vec![(1000, H)]);
        // A device that cannot tell: the whole request, allocated.
        assert_eq!(
            block_status(size, 512, 512, 1024, false, |_, _| None).unwrap(),
            vec![(1024, 0)]
        );
        // Past the end, or empty: EINVAL, the device not asked.
        for (off, len) in [(size - 512, 1024), (size, 1), (0, 0)] {
            let e = block_status(size, 512, off, len, false, |_, _| -> Option<_> {
                panic!("asked")
            })
            .unwrap_err();
            assert_eq!(e.errno, EINVAL, "{off}+{len}");
        }
        // The device's error is the request's.
        let e = block_status(size, 512, 0, 512, false, |_, _| {
            Some(Err(FtlError::BadArgument("gone".into())))
        })
        .unwrap_err();
        assert_eq!(e.errno, EINVAL);
    }

    #[test]
    fn unaligned_write_preserves_neighbours() {
        let mut d = RamDisk::new(512, 16, None);
        write_at(&mut d, 0, &[0x11; 512 * 4]).unwrap();
        write_at(&mut d, 100, &[0x22; 1000]).unwrap();
        let mut out = vec![0u8; 512 * 4];
        read_at(&mut d, 0, &mut out).unwrap();
        assert!(out[..100].iter().all(|&b| b == 0x11));
        assert!(out[100..1100].iter().all(|&b| b == 0x22));
        assert!(out[1100..].iter().all(|&b| b == 0x11));
        // Unaligned read of a small piece inside one sector.
        let mut small = [0u8; 3];
        read_at(&mut d, 1099, &mut small).unwrap();
        assert_eq!(small, [0x22, 0x11, 0x11]);
        // Unaligned write that ends exactly on a sector boundary.
        write_at(&mut d, 1100, &[0x33; 436]).unwrap();
        read_at(&mut d, 1024, &mut out[..512]).unwrap();
        assert!(out[..76].iter().all(|&b| b == 0x22));
        assert!(out[76..512].iter().all(|&b| b == 0x33));
    }

    #[test]
    fn a_damaged_sector_is_eio() {
        let e = FtlError::DamagedSector {
            la: 7,
            detail: "checksum mismatch".into(),
        };
        assert_eq!(errno_of(&e), EIO);
    }

    #[test]
    fn out_of_range_is_refused_without_change() {
        let mut d = RamDisk::new(512, 4, None);
        let e = write_at(&mut d, 2048 - 10, &[1; 11]).unwrap_err();
        assert_eq!(e.errno, ENOSPC);
        let e = read_at(&mut d, u64::MAX - 2, &mut [0; 8]).unwrap_err();
        assert_eq!(e.errno, EINVAL);
        let e = trim_at(&mut d, 2048, 1).unwrap_err();
        assert_eq!(e.errno, EINVAL);
        assert_eq!(d.writes, 0);
    }

    #[test]
    fn write_larger_than_an_epoch_is_split_with_flushes() {
        // Epoch of 3 sectors; a 7-sector write needs pieces 3 + 3 + 1.
        let mut d = RamDisk::new(512, 32, Some(3));
        write_at(&mut d, 0, &[1; 512]).unwrap();
        let fx = write_at(&mut d, 512, &[7; 512 * 7]).unwrap();
        // The first flush closes the epoch holding the 1-sector write (the
        // 7 sectors cannot fit anyway), then one flush between each piece.
        assert_eq!(fx.epoch_flushes, 3);
        assert_eq!(d.flushes, 3);
        let mut out = vec![0u8; 512 * 8];
        read_at(&mut d, 0, &mut out).unwrap();
        assert!(out[..512].iter().all(|&b| b == 1));
        assert!(out[512..].iter().all(|&b| b == 7));
    }

    #[test]
    fn request_that_fits_a_fresh_epoch_is_kept_whole() {
        let mut d = RamDisk::new(512, 32, Some(4));
        write_at(&mut d, 0, &[1; 512 * 3]).unwrap();
        let fx = write_at(&mut d, 0, &[2; 512 * 4]).unwrap();
        assert_eq!(fx.epoch_flushes, 1);
        // One flush, then the 4-sector write as a single FTL write.
        assert_eq!(d.write_sizes, vec![3, 4]);
    }

    #[test]
    fn ftl_refusal_despite_epoch_remaining_is_retried_after_flush() {
        let mut d = RamDisk::new(512, 32, Some(8));
        d.refuse_next_write = true;
        let fx = write_at(&mut d, 0, &[5; 512 * 2]).unwrap();
        assert_eq!(fx.epoch_flushes, 1);
        let mut out = vec![0u8; 1024];
        read_at(&mut d, 0, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == 5));
    }

    #[test]
    fn trim_only_unmaps_whole_sectors_and_write_zeroes_zeroes_everything() {
        let mut d = RamDisk::new(512, 8, Some(2));
        write_at(&mut d, 0, &[9; 512 * 8]).unwrap();
        trim_at(&mut d, 100, 512 * 3).unwrap();
        let mut out = vec![0u8; 512 * 8];
        read_at(&mut d, 0, &mut out).unwrap();
        assert!(out[..512].iter().all(|&b| b == 9));
        assert!(out[512..1536].iter().all(|&b| b == 0));
        assert!(out[1536..].iter().all(|&b| b == 9));
        for no_hole in [false, true] {
            write_at(&mut d, 0, &[9; 512 * 8]).unwrap();
            write_zeroes_at(&mut d, 300, 512 * 5, no_hole).unwrap();
            read_at(&mut d, 0, &mut out).unwrap();
            assert!(out[..300].iter().all(|&b| b == 9));
            assert!(out[300..300 + 2560].iter().all(|&b| b == 0), "{no_hole}");
            assert!(out[2860..].iter().all(|&b| b == 9));
        }
    }
}
