//! The sync baseline's merge-buffer log in the battery-backed buffer
//! (`Flash::nvram_*`, docs/FORMAT.md §6.1).
//!
//! Each change to the merge buffer (a written sector, a relocated sector, a
//! trim) is appended as one entry — record plus sector — with a single
//! `nvram_write`, which the flash contract makes atomic. Entries are never
//! rewritten in place, so a completed entry can only disappear by a
//! generation bump. When the merge buffer has been programmed *and synced*,
//! the header's generation is bumped (again one atomic write), which
//! discards every entry at once.
//!
//! Invariants:
//! - entries `0..len` carry the header's generation, their own index and a
//!   valid CRC; recovery reads entries in order and stops at the first one
//!   that does not, so a never-completed append is invisible;
//! - the generation only grows, so entries of an older generation left
//!   beyond `len` can never be mistaken for current ones;
//! - replaying the entries with "highest sequence number wins" against the
//!   flash contents yields the merge buffer's logical contents.

use flash::Flash;

use super::oob::LA_EMPTY;
use crate::codec::field_table;
use crate::device::{FtlError, Result};

/// Magic of the header.
pub const NV_MAGIC: [u8; 8] = *b"SCFTLNVL";
/// Layout version of the buffer.
pub const NV_VERSION: u32 = 1;

field_table! {
    /// The log header at offset 0 of the buffer (docs/FORMAT.md §6.1).
    pub mod header {
        pub const MAGIC: Field = Field::new("magic", 0, 8);
        pub const VERSION: Field = Field::new("version", 8, 4);
        pub const RESERVED: Field = Field::new("reserved", 12, 4);
        pub const GENERATION: Field = Field::new("generation", 16, 8);
        /// CRC32C of the header's bytes before it.
        pub const CRC: Field = Field::new("crc", 24, 4);
    }
}
/// Bytes of the header (the CRC is followed by 4 bytes of padding, so
/// entries start 8-byte aligned).
pub const NV_HEADER_SIZE: usize = 32;

field_table! {
    /// The record of one log entry (docs/FORMAT.md §6.2); the sector follows.
    pub mod entry {
        pub const GENERATION: Field = Field::new("generation", 0, 8);
        pub const INDEX: Field = Field::new("index", 8, 4);
        pub const LA: Field = Field::new("la", 12, 4);
        pub const SEQ: Field = Field::new("seq", 16, 8);
        pub const RESERVED: Field = Field::new("reserved", 24, 4);
        /// CRC32C of the record's bytes before it, then the sector.
        pub const CRC: Field = Field::new("crc", 28, 4);
    }
}
/// Bytes of an entry's record; the sector data starts here.
pub const NV_ENTRY_RECORD_SIZE: usize = entry::CRC.end();

/// One replayed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvEntry {
    /// Logical sector, or `LA_TRIM` for a trim record.
    pub la: u32,
    pub seq: u64,
    /// The sector (a trim-record sector for a trim).
    pub data: Vec<u8>,
}

/// The append position and generation of the log.
#[derive(Debug)]
pub struct NvLog {
    generation: u64,
    len: u32,
    capacity: u32,
    sector_size: usize,
    scratch: Vec<u8>,
}

fn entry_size(sector_size: usize) -> usize {
    NV_ENTRY_RECORD_SIZE + sector_size
}

/// How many entries fit a buffer of `nvram_size` bytes.
pub fn capacity_for(nvram_size: usize, sector_size: usize) -> u32 {
    (nvram_size.saturating_sub(NV_HEADER_SIZE) / entry_size(sector_size)).min(u32::MAX as usize)
        as u32
}

fn header_bytes(generation: u64) -> [u8; NV_HEADER_SIZE] {
    let mut h = [0u8; NV_HEADER_SIZE];
    header::MAGIC.put_bytes(&mut h, &NV_MAGIC);
    header::VERSION.put_u32(&mut h, NV_VERSION);
    header::GENERATION.put_u64(&mut h, generation);
    let crc = header::CRC.prefix_crc(&h, &[]);
    header::CRC.put_u32(&mut h, crc);
    h
}

impl NvLog {
    /// Checks that the device's battery-backed buffer can hold a log for
    /// pages of `sectors_per_page` sectors: at least one page plus one entry.
    pub fn check_size<F: Flash + ?Sized>(flash: &F, sectors_per_page: u32) -> Result<u32> {
        let ss = flash.geometry().sector_size as usize;
        let cap = capacity_for(flash.nvram_size(), ss);
        if cap < sectors_per_page + 1 {
            return Err(FtlError::BadConfig(format!(
                "the sync FTL needs a battery-backed buffer of at least {} bytes ({} entries of {} B plus a {NV_HEADER_SIZE}-byte header); this device has {}",
                NV_HEADER_SIZE + (sectors_per_page as usize + 1) * entry_size(ss),
                sectors_per_page + 1,
                entry_size(ss),
                flash.nvram_size()
            )));
        }
        Ok(cap)
    }

    /// Initialises an empty log (generation 1).
    pub fn format<F: Flash + ?Sized>(flash: &mut F, sectors_per_page: u32) -> Result<NvLog> {
        let capacity = Self::check_size(flash, sectors_per_page)?;
        flash.nvram_write(0, &header_bytes(1))?;
        let ss = flash.geometry().sector_size as usize;
        Ok(NvLog {
            generation: 1,
            len: 0,
            capacity,
            sector_size: ss,
            scratch: vec![0; entry_size(ss)],
        })
    }

    /// Reads the log without changing anything: the handle (positioned after
    /// the last valid entry) and the entries.
    pub fn open<F: Flash + ?Sized>(
        flash: &mut F,
        sectors_per_page: u32,
    ) -> Result<(NvLog, Vec<NvEntry>)> {
        let capacity = Self::check_size(flash, sectors_per_page)?;
        let ss = flash.geometry().sector_size as usize;
        let mut h = [0u8; NV_HEADER_SIZE];
        flash.nvram_read(0, &mut h)?;
        if header::MAGIC.bytes(&h) != NV_MAGIC
            || header::CRC.get_u32(&h) != header::CRC.prefix_crc(&h, &[])
            || header::VERSION.get_u32(&h) != NV_VERSION
        {
            return Err(FtlError::Corrupt(
                "the battery-backed buffer holds no valid sync-FTL header (was it cleared, or the device formatted by another tool?); reformat the device".into(),
            ));
        }
        let generation = header::GENERATION.get_u64(&h);
        let mut scratch = vec![0u8; entry_size(ss)];
        let mut entries = Vec::new();
        for index in 0..capacity {
            flash.nvram_read(
                NV_HEADER_SIZE + index as usize * entry_size(ss),
                &mut scratch,
            )?;
            let (rec, data) = scratch.split_at(NV_ENTRY_RECORD_SIZE);
            if entry::GENERATION.get_u64(rec) != generation
                || entry::INDEX.get_u32(rec) != index
                || entry::CRC.get_u32(rec) != entry::CRC.prefix_crc(rec, data)
            {
                break;
            }
            entries.push(NvEntry {
                la: entry::LA.get_u32(rec),
                seq: entry::SEQ.get_u64(rec),
                data: data.to_vec(),
            });
        }
        let log = NvLog {
            generation,
            len: entries.len() as u32,
            capacity,
            sector_size: ss,
            scratch,
        };
        Ok((log, entries))
    }

    /// Whether another entry fits.
    pub fn is_full(&self) -> bool {
        self.len >= self.capacity
    }

    /// Entries currently in the log.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the log holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends one entry with a single atomic buffer write. The caller makes
    /// room first (see [`NvLog::is_full`]).
    pub fn append<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        la: u32,
        seq: u64,
        data: &[u8],
    ) -> Result<()> {
        if self.is_full() || data.len() != self.sector_size || la == LA_EMPTY {
            return Err(FtlError::Corrupt(format!(
                "internal: battery-backed log append of {} bytes for la {la} with {}/{} entries used",
                data.len(),
                self.len,
                self.capacity
            )));
        }
        let s = &mut self.scratch;
        s[..NV_ENTRY_RECORD_SIZE].fill(0);
        entry::GENERATION.put_u64(s, self.generation);
        entry::INDEX.put_u32(s, self.len);
        entry::LA.put_u32(s, la);
        entry::SEQ.put_u64(s, seq);
        s[NV_ENTRY_RECORD_SIZE..].copy_from_slice(data);
        let crc = entry::CRC.prefix_crc(s, data);
        entry::CRC.put_u32(s, crc);
        let off = NV_HEADER_SIZE + self.len as usize * entry_size(self.sector_size);
        flash.nvram_write(off, s)?;
        self.len += 1;
        Ok(())
    }

    /// Discards every entry by bumping the generation. Only call once
    /// everything the entries describe is programmed and synced.
    pub fn reset<F: Flash + ?Sized>(&mut self, flash: &mut F) -> Result<()> {
        let next = self.generation + 1;
        flash.nvram_write(0, &header_bytes(next))?;
        self.generation = next;
        self.len = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::{Geometry, MemFlash};

    #[test]
    fn entries_replay_until_reset_and_need_a_header() {
        let mut f = MemFlash::new(Geometry::tiny()).unwrap();
        assert!(matches!(NvLog::open(&mut f, 2), Err(FtlError::Corrupt(_))));
        let mut log = NvLog::format(&mut f, 2).unwrap();
        log.append(&mut f, 5, 9, &[1u8; 512]).unwrap();
        log.append(&mut f, 6, 10, &[2u8; 512]).unwrap();
        let (l2, e) = NvLog::open(&mut f, 2).unwrap();
        assert_eq!(l2.len(), 2);
        assert_eq!((e[1].la, e[1].seq, e[1].data[0]), (6, 10, 2));
        log.reset(&mut f).unwrap();
        let (_, e) = NvLog::open(&mut f, 2).unwrap();
        assert!(e.is_empty(), "a generation bump discards all entries");
        log.append(&mut f, 7, 11, &[3u8; 512]).unwrap();
        // Corrupt the first entry's data: replay stops there.
        f.nvram_write(NV_HEADER_SIZE + NV_ENTRY_RECORD_SIZE, &[9])
            .unwrap();
        let (_, e) = NvLog::open(&mut f, 2).unwrap();
        assert!(e.is_empty());
        let mut tiny_nv = MemFlash::with_nvram(Geometry::tiny(), 100).unwrap();
        assert!(matches!(
            NvLog::format(&mut tiny_nv, 2),
            Err(FtlError::BadConfig(_))
        ));
    }
}
