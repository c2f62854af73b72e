//! The trace: every write, trim, flush and epoch barrier that reached a
//! block device, in order, with the connection it came from
//! (docs/FORMAT.md §9).
//!
//! [`Recorder`] wraps any [`BlockDevice`] and appends one record per
//! call that changed (or made durable) what the device holds; [`Trace::read`]
//! reads a trace back. A trace starts with the device's content when the
//! recording began (the *base*: its non-zero sectors as writes, then a
//! `BEGIN` record), so a trace alone reproduces every state.
//!
//! Crash safety: records are appended through a buffer that is written
//! and `fdatasync`ed after each device flush succeeded and before the
//! flush is acknowledged, so every state a client was told is durable is in
//! the trace. A recorder killed between flushes leaves a trace whose tail
//! may be torn; each record carries a CRC32C chained from the previous
//! one, and the reader stops at the first record that does not check,
//! reporting how many bytes it ignored. A failed append or sync breaks the
//! recorder: it refuses every later call (the device then changes no
//! more), so a trace never silently misses what happened after it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use flash::FlashError;
use ftl::{BlockDevice, DeviceStats, FtlError, Lba};

/// First bytes of a trace file.
pub const MAGIC: &[u8; 8] = b"SCFTLTRC";
/// The trace format version this code writes and reads.
pub const VERSION: u32 = 1;
/// Bytes of the file header.
pub const HEADER_LEN: usize = 32;
/// Bytes of a record's fixed part (its payload follows).
pub const RECORD_LEN: usize = 24;

/// The header's fields: name, offset, size (docs/FORMAT.md §9.1; checked
/// against the document by tests/format_doc.rs).
pub const HEADER_FIELDS: [(&str, usize, usize); 6] = [
    ("magic", 0, 8),
    ("version", 8, 4),
    ("sector_size", 12, 4),
    ("num_sectors", 16, 8),
    ("reserved", 24, 4),
    ("header_crc", 28, 4),
];

/// A record's fixed fields (docs/FORMAT.md §9.2).
pub const RECORD_FIELDS: [(&str, usize, usize); 7] = [
    ("kind", 0, 1),
    ("flags", 1, 1),
    ("reserved", 2, 2),
    ("origin", 4, 4),
    ("lba", 8, 8),
    ("count", 16, 4),
    ("crc", 20, 4),
];

/// Record kinds (byte 0 of a record).
pub const KIND_WRITE: u8 = 1;
pub const KIND_TRIM: u8 = 2;
pub const KIND_FLUSH: u8 = 3;
pub const KIND_BARRIER: u8 = 4;
pub const KIND_BEGIN: u8 = 5;
pub const KIND_END: u8 = 6;

/// Write flag: every byte written was zero; no payload follows.
pub const FLAG_ZERO: u8 = 1;

/// Sectors read at a time while copying the base.
const BASE_CHUNK_SECTORS: u64 = 256;

/// One operation that reached the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `count` sectors at `lba`; `data` is a range of [`Trace::data`], or
    /// `None` when every byte was zero.
    Write {
        lba: u64,
        count: u64,
        data: Option<std::ops::Range<usize>>,
    },
    /// `count` sectors at `lba` unmapped (they read as zeros).
    Trim { lba: u64, count: u64 },
    /// Everything before it made durable (a host flush or FUA).
    Flush,
    /// An internal epoch barrier: ordered, not durable (SCFTL's epoch
    /// filled up; `BlockDevice::epoch_barrier`).
    Barrier,
}

impl Op {
    /// Whether the op changes content (a write or a trim).
    pub fn changes(&self) -> bool {
        matches!(self, Op::Write { .. } | Op::Trim { .. })
    }

    /// The sectors it changes, `(lba, count)`.
    pub fn range(&self) -> Option<(u64, u64)> {
        match *self {
            Op::Write { lba, count, .. } | Op::Trim { lba, count } => Some((lba, count)),
            _ => None,
        }
    }
}

/// An op and the connection it came from (0: not from a connection, e.g.
/// the base or the server's own final flush).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub op: Op,
    pub origin: u32,
}

/// A trace read back.
#[derive(Debug)]
pub struct Trace {
    pub sector_size: usize,
    pub num_sectors: u64,
    /// The device's content when recording began, as writes.
    pub base: Vec<Entry>,
    /// What happened after it.
    pub ops: Vec<Entry>,
    /// Payload bytes the writes' ranges point into.
    pub data: Vec<u8>,
    /// Whether the recorder closed the trace (an `END` record): a trace
    /// without one was cut off (the server was killed) after its last
    /// record that checks.
    pub ended: bool,
    /// Bytes after the last record that checks (a torn tail), and why the
    /// first of them was refused.
    pub ignored_tail: Option<(usize, String)>,
}

impl Trace {
    /// Reads and checks a trace file.
    pub fn read(path: &Path) -> Result<Trace, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Trace::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses the bytes of a trace file.
    pub fn parse(bytes: &[u8]) -> Result<Trace, String> {
        if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
            return Err(
                "not an scftl trace (bad magic); record one with `scftl serve --record`".into(),
            );
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(format!(
                "trace format version {version}; this scftl reads version {VERSION}"
            ));
        }
        let crc = crc32c::crc32c(&bytes[..28]);
        if crc != u32_at(bytes, 28) {
            return Err("the trace header fails its checksum".into());
        }
        let sector_size = u32_at(bytes, 12) as usize;
        let num_sectors = u64_at(bytes, 16);
        if sector_size == 0 || !sector_size.is_multiple_of(512) {
            return Err(format!("sector size {sector_size} in the header"));
        }
        let mut t = Trace {
            sector_size,
            num_sectors,
            base: Vec::new(),
            ops: Vec::new(),
            data: Vec::new(),
            ended: false,
            ignored_tail: None,
        };
        let mut prev = crc;
        let mut at = HEADER_LEN;
        let mut begun = false;
        while at < bytes.len() {
            match t.parse_record(bytes, at, prev) {
                Ok((len, crc, entry)) => {
                    at += len;
                    prev = crc;
                    match entry {
                        Parsed::Begin => begun = true,
                        Parsed::End => {
                            t.ended = true;
                            if at < bytes.len() {
                                t.ignored_tail =
                                    Some((bytes.len() - at, "bytes after the END record".into()));
                            }
                            break;
                        }
                        Parsed::Op(e) if begun => t.ops.push(e),
                        Parsed::Op(e) => {
                            if !e.op.changes() {
                                return Err("a flush or barrier before the BEGIN record".into());
                            }
                            t.base.push(e)
                        }
                    }
                }
                Err(why) => {
                    t.ignored_tail = Some((bytes.len() - at, why));
                    break;
                }
            }
        }
        if !begun {
            return Err(
                "no BEGIN record: the recording stopped while it copied the device's initial \
                 content; record again"
                    .into(),
            );
        }
        Ok(t)
    }

    fn parse_record(
        &mut self,
        b: &[u8],
        at: usize,
        prev: u32,
    ) -> Result<(usize, u32, Parsed), String> {
        if b.len() - at < RECORD_LEN {
            return Err(format!("a record cut short at byte {at}"));
        }
        let r = &b[at..at + RECORD_LEN];
        let (kind, flags, origin) = (r[0], r[1], u32_at(r, 4));
        let (lba, count) = (u64_at(r, 8), u64::from(u32_at(r, 16)));
        let payload = if kind == KIND_WRITE && flags & FLAG_ZERO == 0 {
            usize::try_from(count)
                .ok()
                .and_then(|c| c.checked_mul(self.sector_size))
                .ok_or_else(|| format!("a write of {count} sectors at byte {at}"))?
        } else {
            0
        };
        if b.len() - at - RECORD_LEN < payload {
            return Err(format!("a write's data cut short at byte {at}"));
        }
        let body = &b[at + RECORD_LEN..at + RECORD_LEN + payload];
        let crc = crc32c::crc32c_append(crc32c::crc32c_append(prev, &r[..20]), body);
        if crc != u32_at(r, 20) {
            return Err(format!("the record at byte {at} fails its checksum"));
        }
        let in_range = lba
            .checked_add(count)
            .is_some_and(|e| e <= self.num_sectors);
        let op = match kind {
            KIND_WRITE | KIND_TRIM if count == 0 || !in_range => {
                return Err(format!(
                    "the record at byte {at} names sectors {lba}+{count}, beyond the device's {}",
                    self.num_sectors
                ))
            }
            KIND_WRITE => {
                let data = (payload > 0).then(|| {
                    let start = self.data.len();
                    self.data.extend_from_slice(body);
                    start..self.data.len()
                });
                Op::Write { lba, count, data }
            }
            KIND_TRIM => Op::Trim { lba, count },
            KIND_FLUSH => Op::Flush,
            KIND_BARRIER => Op::Barrier,
            KIND_BEGIN => return Ok((RECORD_LEN, crc, Parsed::Begin)),
            KIND_END => return Ok((RECORD_LEN, crc, Parsed::End)),
            k => return Err(format!("unknown record kind {k} at byte {at}")),
        };
        Ok((RECORD_LEN + payload, crc, Parsed::Op(Entry { op, origin })))
    }

    /// The bytes a write op wrote (`None` for a trim, flush or barrier);
    /// an all-zero write gives zeros.
    pub fn payload(&self, op: &Op) -> Option<std::borrow::Cow<'_, [u8]>> {
        match op {
            Op::Write { data: Some(r), .. } => Some(self.data[r.clone()].into()),
            Op::Write { count, .. } => Some(vec![0u8; *count as usize * self.sector_size].into()),
            _ => None,
        }
    }

    /// Bytes of the device.
    pub fn device_bytes(&self) -> u64 {
        self.num_sectors * self.sector_size as u64
    }
}

enum Parsed {
    Op(Entry),
    Begin,
    End,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Appends records to a trace file, chaining their checksums.
struct Writer {
    out: BufWriter<File>,
    path: PathBuf,
    crc: u32,
}

impl Writer {
    fn create(path: &Path, sector_size: usize, num_sectors: u64) -> std::io::Result<Writer> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(sector_size as u32).to_le_bytes());
        h[16..24].copy_from_slice(&num_sectors.to_le_bytes());
        let crc = crc32c::crc32c(&h[..28]);
        h[28..].copy_from_slice(&crc.to_le_bytes());
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&h)?;
        Ok(Writer {
            out,
            path: path.to_path_buf(),
            crc,
        })
    }

    fn append(
        &mut self,
        kind: u8,
        origin: u32,
        lba: u64,
        count: u64,
        data: &[u8],
    ) -> std::io::Result<()> {
        let zero = kind == KIND_WRITE && data.iter().all(|&b| b == 0);
        let body = if zero { &[][..] } else { data };
        let mut r = [0u8; RECORD_LEN];
        r[0] = kind;
        r[1] = if zero { FLAG_ZERO } else { 0 };
        r[4..8].copy_from_slice(&origin.to_le_bytes());
        r[8..16].copy_from_slice(&lba.to_le_bytes());
        r[16..20].copy_from_slice(&(count as u32).to_le_bytes());
        self.crc = crc32c::crc32c_append(crc32c::crc32c_append(self.crc, &r[..20]), body);
        r[20..].copy_from_slice(&self.crc.to_le_bytes());
        self.out.write_all(&r)?;
        self.out.write_all(body)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_data()
    }
}

/// A [`BlockDevice`] that records every change and flush of the device it
/// wraps (see the module docs).
pub struct Recorder<D> {
    inner: D,
    log: Arc<Mutex<Log>>,
    origin: u32,
}

/// The trace being written, shared with its [`Closer`].
struct Log {
    w: Writer,
    /// Set by the first failed append or sync (or by `END`): every later
    /// call is refused.
    broken: Option<String>,
}

/// Closes a trace from outside the device (the server holds the device
/// until the process exits): appends `END` and syncs.
#[derive(Clone)]
pub struct Closer(Arc<Mutex<Log>>);

impl Closer {
    /// Appends `END` and makes the trace durable; later device calls are
    /// refused.
    pub fn finish(&self) -> Result<(), String> {
        let mut l = lock(&self.0);
        if let Some(why) = &l.broken {
            return Err(format!("the trace was already closed: {why}"));
        }
        let r = l.w.append(KIND_END, 0, 0, 0, &[]).and_then(|()| l.w.sync());
        l.broken = Some("the trace is finished".into());
        r.map_err(|e| format!("{}: {e}", l.w.path.display()))
    }
}

fn lock(m: &Mutex<Log>) -> std::sync::MutexGuard<'_, Log> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn io_err(path: &Path, e: std::io::Error) -> FtlError {
    FtlError::Flash(FlashError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

impl<D: BlockDevice> Recorder<D> {
    /// Starts a trace at `path` (which must not exist): the header, the
    /// device's current non-zero sectors (read through `inner`) as the
    /// base, and `BEGIN`, made durable before this returns.
    pub fn create(mut inner: D, path: &Path) -> Result<Recorder<D>, String> {
        let ss = inner.sector_size();
        let n = inner.num_sectors();
        let what = |e: std::io::Error| {
            let hint = if e.kind() == std::io::ErrorKind::AlreadyExists {
                "; remove it or record to another path"
            } else {
                ""
            };
            format!("--record {}: {e}{hint}", path.display())
        };
        let mut w = Writer::create(path, ss, n).map_err(what)?;
        let mut buf = vec![0u8; BASE_CHUNK_SECTORS as usize * ss];
        let mut lba = 0;
        while lba < n {
            let c = BASE_CHUNK_SECTORS.min(n - lba);
            let b = &mut buf[..c as usize * ss];
            inner
                .read(Lba(lba), b)
                .map_err(|e| format!("reading the device's content at sector {lba}: {e}"))?;
            // Runs of non-zero sectors, one write record each.
            let nonzero = |b: &[u8], i: usize| b[i * ss..(i + 1) * ss].iter().any(|&x| x != 0);
            let mut s = 0;
            while s < c as usize {
                if !nonzero(b, s) {
                    s += 1;
                    continue;
                }
                let start = s;
                while s < c as usize && nonzero(b, s) {
                    s += 1;
                }
                let bytes = &b[start * ss..s * ss];
                w.append(KIND_WRITE, 0, lba + start as u64, (s - start) as u64, bytes)
                    .map_err(what)?;
            }
            lba += c;
        }
        w.append(KIND_BEGIN, 0, 0, 0, &[]).map_err(what)?;
        w.sync().map_err(what)?;
        Ok(Recorder {
            inner,
            log: Arc::new(Mutex::new(Log { w, broken: None })),
            origin: 0,
        })
    }

    /// What closes the trace once the device is no longer used.
    pub fn closer(&self) -> Closer {
        Closer(Arc::clone(&self.log))
    }

    fn check(&self) -> ftl::Result<()> {
        let l = lock(&self.log);
        match &l.broken {
            None => Ok(()),
            Some(why) => Err(FtlError::BadArgument(format!(
                "the recording to {} has stopped ({why}), so the device takes no more changes \
                 (the trace would miss them); stop the server",
                l.w.path.display()
            ))),
        }
    }

    fn record(
        &mut self,
        kind: u8,
        lba: u64,
        count: u64,
        data: &[u8],
        sync: bool,
    ) -> ftl::Result<()> {
        let mut l = lock(&self.log);
        let mut r = l.w.append(kind, self.origin, lba, count, data);
        if r.is_ok() && sync {
            r = l.w.sync();
        }
        r.map_err(|e| {
            l.broken = Some(e.to_string());
            io_err(&l.w.path, e)
        })
    }
}

impl<D: BlockDevice> BlockDevice for Recorder<D> {
    fn sector_size(&self) -> usize {
        self.inner.sector_size()
    }
    fn num_sectors(&self) -> u64 {
        self.inner.num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> ftl::Result<()> {
        self.inner.read(lba, buf)
    }
    /// Reads nothing the trace records: the wrapped device's answer.
    fn allocation(&self, lba: Lba, count: u64) -> Option<ftl::Result<Vec<(u64, bool)>>> {
        self.inner.allocation(lba, count)
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> ftl::Result<()> {
        self.check()?;
        self.inner.write(lba, data)?;
        let count = (data.len() / self.inner.sector_size()) as u64;
        self.record(KIND_WRITE, lba.0, count, data, false)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> ftl::Result<()> {
        self.check()?;
        self.inner.trim(lba, count)?;
        // A trim longer than a record can say is recorded in pieces.
        let mut done = 0;
        while done < count {
            let c = (count - done).min(u64::from(u32::MAX));
            self.record(KIND_TRIM, lba.0 + done, c, &[], false)?;
            done += c;
        }
        Ok(())
    }
    fn flush(&mut self) -> ftl::Result<()> {
        self.check()?;
        self.inner.flush()?;
        self.record(KIND_FLUSH, 0, 0, &[], true)
    }
    fn epoch_barrier(&mut self) -> ftl::Result<()> {
        self.check()?;
        self.inner.epoch_barrier()?;
        self.record(KIND_BARRIER, 0, 0, &[], false)
    }
    fn epoch_remaining(&self) -> Option<u64> {
        self.inner.epoch_remaining()
    }
    fn max_request_sectors(&self) -> Option<u64> {
        self.inner.max_request_sectors()
    }
    fn set_wear_policy(&mut self, policy: ftl::WearPolicy) -> ftl::Result<()> {
        self.inner.set_wear_policy(policy)
    }
    fn set_origin(&mut self, origin: u64) {
        self.origin = u32::try_from(origin).unwrap_or(u32::MAX);
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        self.inner.check_invariants()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A RAM disk of 512-byte sectors.
    struct Ram(Vec<u8>);

    impl BlockDevice for Ram {
        fn sector_size(&self) -> usize {
            512
        }
        fn num_sectors(&self) -> u64 {
            (self.0.len() / 512) as u64
        }
        fn read(&mut self, lba: Lba, buf: &mut [u8]) -> ftl::Result<()> {
            let o = lba.0 as usize * 512;
            buf.copy_from_slice(&self.0[o..o + buf.len()]);
            Ok(())
        }
        fn write(&mut self, lba: Lba, data: &[u8]) -> ftl::Result<()> {
            let o = lba.0 as usize * 512;
            self.0[o..o + data.len()].copy_from_slice(data);
            Ok(())
        }
        fn trim(&mut self, lba: Lba, count: u64) -> ftl::Result<()> {
            let o = lba.0 as usize * 512;
            self.0[o..o + count as usize * 512].fill(0);
            Ok(())
        }
        fn flush(&mut self) -> ftl::Result<()> {
            Ok(())
        }
        fn epoch_remaining(&self) -> Option<u64> {
            None
        }
        fn stats(&self) -> DeviceStats {
            DeviceStats::default()
        }
        fn check_invariants(&mut self) -> Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn a_recording_reads_back_with_its_base_origins_and_end() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.trace");
        let mut ram = Ram(vec![0; 64 * 512]);
        ram.0[512 * 5..512 * 7].fill(9);
        let mut r = Recorder::create(ram, &p).unwrap();
        r.set_origin(3);
        r.write(Lba(1), &[1u8; 1024]).unwrap();
        r.write(Lba(10), &[0u8; 512]).unwrap();
        r.set_origin(4);
        r.trim(Lba(5), 1).unwrap();
        r.epoch_barrier().unwrap();
        r.flush().unwrap();
        let closer = r.closer();
        closer.finish().unwrap();
        assert!(
            r.write(Lba(0), &[1u8; 512]).is_err(),
            "a closed trace refuses changes"
        );
        let t = Trace::read(&p).unwrap();
        assert_eq!(t.base.len(), 1, "one run of non-zero sectors");
        assert_eq!(t.base[0].op.range(), Some((5, 2)));
        let ops: Vec<(Op, u32)> = t.ops.iter().map(|e| (e.op.clone(), e.origin)).collect();
        assert_eq!(ops.len(), 5);
        assert_eq!(ops[0].0.range(), Some((1, 2)));
        assert_eq!(t.payload(&ops[0].0).unwrap().as_ref(), &[1u8; 1024][..]);
        assert_eq!(
            ops[1],
            (
                Op::Write {
                    lba: 10,
                    count: 1,
                    data: None
                },
                3
            )
        );
        assert_eq!(ops[2], (Op::Trim { lba: 5, count: 1 }, 4));
        assert_eq!(ops[3].0, Op::Barrier);
        assert_eq!(ops[4].0, Op::Flush);
        assert!(t.ended && t.ignored_tail.is_none());
        let again = Recorder::create(Ram(vec![0; 512]), &p).err().unwrap();
        assert!(again.contains("exists"), "{again}");
    }

    #[test]
    fn a_torn_or_damaged_tail_is_cut_off_where_it_stops_checking() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.trace");
        let mut r = Recorder::create(Ram(vec![0; 16 * 512]), &p).unwrap();
        for k in 0..4u8 {
            r.write(Lba(u64::from(k)), &[k + 1; 512]).unwrap();
        }
        r.flush().unwrap();
        std::mem::forget(r); // a kill -9: no END
        let full = std::fs::read(&p).unwrap();
        let t = Trace::parse(&full).unwrap();
        assert_eq!(t.ops.len(), 5);
        assert!(!t.ended);
        // Torn inside the third write's payload: two writes survive.
        let rec = RECORD_LEN + 512;
        let cut = HEADER_LEN + RECORD_LEN + 2 * rec + 100;
        let t = Trace::parse(&full[..cut]).unwrap();
        assert_eq!(t.ops.len(), 2);
        assert!(t.ignored_tail.is_some());
        // A flipped byte in the second write's data: one survives.
        let mut bad = full.clone();
        bad[HEADER_LEN + RECORD_LEN + rec + RECORD_LEN + 7] ^= 1;
        let t = Trace::parse(&bad).unwrap();
        assert_eq!(t.ops.len(), 1);
        let (n, why) = t.ignored_tail.unwrap();
        assert!(why.contains("checksum") && n > 0, "{why}");
        // Not a trace at all.
        assert!(Trace::parse(b"hello")
            .unwrap_err()
            .contains("not an scftl trace"));
    }
}
