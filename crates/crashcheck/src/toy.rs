//! `ToyFtl`: the checker's own tiny FTL, to test the checker without
//! depending on the real FTLs, and its canary (a deliberately broken
//! variant the checker must catch).
//!
//! It keeps every sector in RAM. `flush` writes the whole device as a new
//! snapshot into the other of two blocks (1 and 2): erase it, program the
//! data pages, sync, program a commit page (magic, sequence number, checksum
//! over the data and the sequence number), sync. Recovery loads the valid
//! commit with the highest sequence number. That is snapshot-consistent by
//! construction: a snapshot is either committed whole or ignored.
//!
//! The device has `(pages_per_block - 1) * sectors_per_page` sectors.
//!
//! Bugs (`ToyBug`), each a canary the checker must catch:
//! `OverwriteLive` writes the new snapshot over the live one (no shadow: a
//! crash inside flush loses both); `TrustUnsyncedCommit` programs the commit
//! page without syncing the data first *and* recovery does not verify the
//! checksum, so a crash can keep the commit and lose or tear the data.
//! `SkipSyncOnly` is the first half alone, which is harmless here (the
//! checksum rejects a commit whose data did not make it, and the old
//! snapshot is intact): the checker must not cry wolf on it.
//! `SplitRequests` commits a snapshot (an internal flush) in the middle of
//! every multi-sector write, after its first sector: a crash before the
//! next flush leaves half a request, which the prefix contract forbids
//! (each request whole) and the snapshot contract too.

use flash::{BlockId, Flash, PageAddr};
use ftl::{check_range, check_request, BlockDevice, DeviceStats, FtlError, Lba, Result};

use crate::data::mix64;

const MAGIC: [u8; 8] = *b"TOYFTLC1";

/// A seeded bug in the toy FTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ToyBug {
    #[default]
    None,
    /// The new snapshot overwrites the live one.
    OverwriteLive,
    /// No sync between the data pages and the commit page, and no checksum
    /// verification in recovery.
    TrustUnsyncedCommit,
    /// Only the missing sync (harmless: the checksum rejects the commit).
    SkipSyncOnly,
    /// An internal flush splits each multi-sector write after its first
    /// sector.
    SplitRequests,
}

/// The toy FTL.
pub struct ToyFtl<F> {
    flash: F,
    data: Vec<u8>,
    seq: u64,
    live: u32,
    bug: ToyBug,
    flushes: u64,
}

fn checksum(pages: &[u8], seq: u64) -> u64 {
    pages.chunks(8).fold(mix64(seq), |h, c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        mix64(h ^ u64::from_le_bytes(w))
    })
}

impl<F: Flash> ToyFtl<F> {
    fn sectors(flash: &F) -> u64 {
        let g = flash.geometry();
        u64::from(g.pages_per_block - 1) * u64::from(g.sectors_per_page)
    }

    /// Formats: an empty snapshot with sequence number 1 in block 1.
    pub fn format(flash: F, bug: ToyBug) -> Result<ToyFtl<F>> {
        let g = *flash.geometry();
        if g.pages_per_block < 2 || g.total_blocks() < 3 {
            return Err(FtlError::BadConfig(
                "the toy FTL needs 3 blocks of 2 pages".into(),
            ));
        }
        let n = Self::sectors(&flash);
        let mut t = ToyFtl {
            flash,
            data: vec![0; n as usize * g.sector_size as usize],
            seq: 0,
            live: 2,
            bug,
            flushes: 0,
        };
        t.flash.erase(BlockId(1))?;
        t.flash.erase(BlockId(2))?;
        t.flash.sync()?;
        t.flush()?;
        Ok(t)
    }

    /// Recovers the newest committed snapshot.
    pub fn open(mut flash: F, bug: ToyBug) -> Result<ToyFtl<F>> {
        let g = *flash.geometry();
        let ppb = g.pages_per_block;
        let ps = g.page_size();
        let mut best: Option<(u64, u32, Vec<u8>)> = None;
        for b in [1u32, 2] {
            let mut commit = vec![0u8; ps];
            flash.read(PageAddr::new(b, ppb - 1), 0, &mut commit)?;
            if commit[..8] != MAGIC {
                continue;
            }
            let seq = u64::from_le_bytes(commit[8..16].try_into().expect("8 bytes"));
            let sum = u64::from_le_bytes(commit[16..24].try_into().expect("8 bytes"));
            let mut data = vec![0u8; (ppb as usize - 1) * ps];
            for p in 0..ppb - 1 {
                flash.read(
                    PageAddr::new(b, p),
                    0,
                    &mut data[p as usize * ps..(p as usize + 1) * ps],
                )?;
            }
            let verify = !matches!(bug, ToyBug::TrustUnsyncedCommit);
            if verify && checksum(&data, seq) != sum {
                continue;
            }
            if best.as_ref().is_none_or(|(s, _, _)| seq > *s) {
                best = Some((seq, b, data));
            }
        }
        let (seq, live, data) = best.ok_or(FtlError::NotFormatted)?;
        Ok(ToyFtl {
            flash,
            data,
            seq,
            live,
            bug,
            flushes: 0,
        })
    }

    /// Gives the flash device back.
    pub fn into_flash(self) -> F {
        self.flash
    }

    fn ss(&self) -> usize {
        self.flash.geometry().sector_size as usize
    }
}

impl<F: Flash> BlockDevice for ToyFtl<F> {
    fn sector_size(&self) -> usize {
        self.ss()
    }

    fn num_sectors(&self) -> u64 {
        (self.data.len() / self.ss()) as u64
    }

    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        check_request(lba, buf.len(), self.ss(), self.num_sectors())?;
        let off = lba.0 as usize * self.ss();
        buf.copy_from_slice(&self.data[off..off + buf.len()]);
        Ok(())
    }

    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        check_request(lba, data.len(), self.ss(), self.num_sectors())?;
        let ss = self.ss();
        let off = lba.0 as usize * ss;
        if self.bug == ToyBug::SplitRequests && data.len() > ss {
            self.data[off..off + ss].copy_from_slice(&data[..ss]);
            self.flush()?;
            self.data[off + ss..off + data.len()].copy_from_slice(&data[ss..]);
            return Ok(());
        }
        self.data[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        check_range(lba, count, self.num_sectors())?;
        let ss = self.ss();
        let off = lba.0 as usize * ss;
        self.data[off..off + count as usize * ss].fill(0);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let g = *self.flash.geometry();
        let ppb = g.pages_per_block;
        let ps = g.page_size();
        let target = if self.bug == ToyBug::OverwriteLive {
            self.live.max(1)
        } else {
            3 - self.live
        };
        let seq = self
            .seq
            .checked_add(1)
            .ok_or_else(|| FtlError::Corrupt("sequence number overflow".into()))?;
        self.flash.erase(BlockId(target))?;
        for p in 0..ppb - 1 {
            let d = &self.data[p as usize * ps..(p as usize + 1) * ps];
            self.flash.program(PageAddr::new(target, p), d, &[])?;
        }
        if !matches!(self.bug, ToyBug::TrustUnsyncedCommit | ToyBug::SkipSyncOnly) {
            self.flash.sync()?;
        }
        let mut commit = vec![0u8; ps];
        commit[..8].copy_from_slice(&MAGIC);
        commit[8..16].copy_from_slice(&seq.to_le_bytes());
        commit[16..24].copy_from_slice(&checksum(&self.data, seq).to_le_bytes());
        self.flash
            .program(PageAddr::new(target, ppb - 1), &commit, &[])?;
        self.flash.sync()?;
        self.seq = seq;
        self.live = target;
        self.flushes += 1;
        Ok(())
    }

    fn epoch_remaining(&self) -> Option<u64> {
        None
    }

    fn stats(&self) -> DeviceStats {
        DeviceStats {
            flushes: self.flushes,
            ..DeviceStats::default()
        }
    }

    fn check_invariants(&mut self) -> std::result::Result<(), String> {
        if self.live != 1 && self.live != 2 {
            return Err(format!("live snapshot in block {}", self.live));
        }
        Ok(())
    }
}
