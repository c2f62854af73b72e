//! A stand-in backend used by `scftl` until the FTLs and `FileFlash` are
//! wired in (see image.rs): a snapshot-consistent disk made of a plain data
//! file plus a redo journal. Writes since the last flush live in RAM; flush
//! writes them to `IMAGE.journal.tmp`, fsyncs, renames it to
//! `IMAGE.journal` (the commit point), applies them to the data file,
//! fsyncs and removes the journal. Opening replays a complete journal and
//! drops anything else, so after a crash the disk holds exactly its
//! contents at the last completed flush — the same contract as SCFTL. It
//! also enforces an epoch bound of `epoch_sectors` updates between flushes,
//! so the NBD server's epoch handling is exercised end to end.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ftl::{check_range, check_request, BlockDevice, DeviceStats, FtlError, FtlKind, Lba};

const SECTOR: usize = 4096;
const MAGIC: &[u8; 8] = b"SCFTLJNL";

pub struct JournalDisk {
    file: File,
    journal: PathBuf,
    sectors: u64,
    epoch_sectors: u64,
    used: u64,
    overlay: BTreeMap<u64, Box<[u8]>>,
    stats: DeviceStats,
    pub slow_sync: std::time::Duration,
}

fn io(e: std::io::Error, what: &str) -> FtlError {
    FtlError::Corrupt(format!("{what}: {e}"))
}

impl JournalDisk {
    pub fn journal_path(path: &Path) -> PathBuf {
        let mut p = path.as_os_str().to_owned();
        p.push(".journal");
        PathBuf::from(p)
    }

    pub fn create(path: &Path, bytes: u64) -> ftl::Result<()> {
        let f = File::create(path).map_err(|e| io(e, "create image"))?;
        f.set_len(bytes).map_err(|e| io(e, "size image"))?;
        f.sync_all().map_err(|e| io(e, "sync image"))?;
        let _ = std::fs::remove_file(Self::journal_path(path));
        Ok(())
    }

    pub fn open(path: &Path, epoch_sectors: u64, read_only: bool) -> ftl::Result<JournalDisk> {
        let t0 = Instant::now();
        let file = OpenOptions::new()
            .read(true)
            .write(!read_only)
            .open(path)
            .map_err(|e| io(e, "open image"))?;
        let len = file.metadata().map_err(|e| io(e, "stat image"))?.len();
        let journal = Self::journal_path(path);
        let mut d = JournalDisk {
            file,
            journal,
            sectors: len / SECTOR as u64,
            epoch_sectors,
            used: 0,
            overlay: BTreeMap::new(),
            slow_sync: std::time::Duration::ZERO,
            stats: DeviceStats {
                kind: Some(FtlKind::Scftl),
                ..DeviceStats::default()
            },
        };
        if let Some(entries) = d.read_journal() {
            if read_only {
                d.overlay = entries;
            } else {
                d.apply(&entries)?;
            }
        }
        if !read_only {
            let _ = std::fs::remove_file(d.journal.with_extension("journal.tmp"));
            let _ = std::fs::remove_file(&d.journal);
        }
        d.stats.last_recovery_ns = t0.elapsed().as_nanos() as u64;
        Ok(d)
    }

    fn read_journal(&self) -> Option<BTreeMap<u64, Box<[u8]>>> {
        let mut b = Vec::new();
        File::open(&self.journal).ok()?.read_to_end(&mut b).ok()?;
        if b.len() < 20 || &b[..8] != MAGIC {
            return None;
        }
        let n = u64::from_le_bytes(b[8..16].try_into().ok()?) as usize;
        let body_end = 16 + n.checked_mul(8 + SECTOR)?;
        if b.len() != body_end + 4 {
            return None;
        }
        let crc = u32::from_le_bytes(b[body_end..].try_into().ok()?);
        if crc32c_sum(&b[..body_end]) != crc {
            return None;
        }
        let mut m = BTreeMap::new();
        for e in b[16..body_end].chunks_exact(8 + SECTOR) {
            let lba = u64::from_le_bytes(e[..8].try_into().ok()?);
            if lba < self.sectors {
                m.insert(lba, e[8..].to_vec().into_boxed_slice());
            }
        }
        Some(m)
    }

    fn apply(&mut self, entries: &BTreeMap<u64, Box<[u8]>>) -> ftl::Result<()> {
        for (lba, data) in entries {
            self.file
                .write_all_at(data, lba * SECTOR as u64)
                .map_err(|e| io(e, "write image"))?;
        }
        self.file.sync_data().map_err(|e| io(e, "sync image"))
    }

    fn charge(&mut self, n: u64) -> ftl::Result<()> {
        let remaining = self.epoch_sectors - self.used;
        if n > remaining {
            return Err(FtlError::EpochFull {
                needed: n,
                remaining,
            });
        }
        self.used += n;
        Ok(())
    }
}

/// CRC32C (Castagnoli), bitwise; the journal is small and rare.
fn crc32c_sum(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

impl BlockDevice for JournalDisk {
    fn sector_size(&self) -> usize {
        SECTOR
    }
    fn num_sectors(&self) -> u64 {
        self.sectors
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> ftl::Result<()> {
        let n = check_request(lba, buf.len(), SECTOR, self.sectors)?;
        for i in 0..n {
            let out = &mut buf[i as usize * SECTOR..(i as usize + 1) * SECTOR];
            match self.overlay.get(&(lba.0 + i)) {
                Some(d) => out.copy_from_slice(d),
                None => self
                    .file
                    .read_exact_at(out, (lba.0 + i) * SECTOR as u64)
                    .map_err(|e| io(e, "read image"))?,
            }
        }
        self.stats.user_sectors_read += n;
        Ok(())
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> ftl::Result<()> {
        let n = check_request(lba, data.len(), SECTOR, self.sectors)?;
        self.charge(n)?;
        for (i, chunk) in data.chunks_exact(SECTOR).enumerate() {
            self.overlay
                .insert(lba.0 + i as u64, chunk.to_vec().into_boxed_slice());
        }
        self.stats.user_sectors_written += n;
        Ok(())
    }
    fn trim(&mut self, lba: Lba, count: u64) -> ftl::Result<()> {
        check_range(lba, count, self.sectors)?;
        self.charge(count)?;
        for i in 0..count {
            self.overlay
                .insert(lba.0 + i, vec![0u8; SECTOR].into_boxed_slice());
        }
        self.stats.user_sectors_trimmed += count;
        Ok(())
    }
    fn flush(&mut self) -> ftl::Result<()> {
        self.stats.flushes += 1;
        self.used = 0;
        if self.overlay.is_empty() {
            return Ok(());
        }
        let mut b = Vec::with_capacity(20 + self.overlay.len() * (8 + SECTOR));
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&(self.overlay.len() as u64).to_le_bytes());
        for (lba, d) in &self.overlay {
            b.extend_from_slice(&lba.to_le_bytes());
            b.extend_from_slice(d);
        }
        let crc = crc32c_sum(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        let tmp = self.journal.with_extension("journal.tmp");
        let mut f = File::create(&tmp).map_err(|e| io(e, "create journal"))?;
        f.write_all(&b).map_err(|e| io(e, "write journal"))?;
        f.sync_all().map_err(|e| io(e, "sync journal"))?;
        std::thread::sleep(self.slow_sync);
        std::fs::rename(&tmp, &self.journal).map_err(|e| io(e, "commit journal"))?;
        let entries = std::mem::take(&mut self.overlay);
        std::thread::sleep(self.slow_sync);
        self.apply(&entries)?;
        std::thread::sleep(self.slow_sync);
        std::fs::remove_file(&self.journal).map_err(|e| io(e, "remove journal"))?;
        Ok(())
    }
    fn epoch_remaining(&self) -> Option<u64> {
        Some(self.epoch_sectors - self.used)
    }
    fn stats(&self) -> DeviceStats {
        let mut s = self.stats.clone();
        s.valid_sectors = self.sectors;
        s
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        Ok(())
    }
}
