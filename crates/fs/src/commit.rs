//! Committing a transaction step in each mode, and replaying the log.
//!
//! A step is the set of sectors one call (or one piece of a split call)
//! changed, held in the cache and in `Tx` until here; nothing reaches the
//! device before the step is complete, so the decision to flush first can be
//! made knowing the step's exact size.
//!
//! **log** (a write-ahead log), on a device that may persist unflushed
//! writes in any order (the async FTL). Format version 3, two flushes per
//! step:
//! 1. write the new block images to the log slots and the commit record
//!    (header: sequence, count, block numbers, header CRC, and the CRC32C
//!    of the slots' images); **flush** — the commit point. Before it, any
//!    subset of those writes may be durable: a record whose slots do not
//!    match its slots CRC reads as cleared, so replay never installs
//!    garbage, and the call has not returned;
//! 2. install the step in place; **flush**, so every in-place write is
//!    durable before the record can be replaced (by the next step's record,
//!    which may then fail its slots CRC and read as cleared) or cleared;
//! 3. clear the record, without a flush. If the clear is lost, the record
//!    still matches its slots (until the next step overwrites them, which
//!    makes it fail its CRC) and a mount replays a step already installed:
//!    idempotent, because every later change to those blocks goes through a
//!    later record. Only a new record or the unmount's flush makes the clear
//!    durable.
//!
//! Versions 1 and 2 (whose records have no slots CRC, xv6's log), four
//! flushes per step:
//! 1. write the new block images to the log slots; **flush**, so that the
//!    commit record can never be durable while the slots it names are not
//!    (otherwise a crash could keep the record and replay garbage);
//! 2. write the commit record (header: sequence, count, block numbers, CRC);
//!    **flush** — the commit point: the call is durable when it returns, and
//!    no in-place write below may become durable before the record does (a
//!    crash mid-install with no record would leave a half-applied step);
//! 3. install the step in place; **flush**, so every in-place write is
//!    durable before the record is cleared (otherwise the clear could
//!    persist without them and the step would be lost);
//! 4. clear the record; **flush**, because the next step overwrites the log
//!    slots: without it a crash could keep the old record and replay the
//!    next step's half-written slots as if they were the old step's images.
//!
//! Trims (cache.rs `Trim`) are placed by the same rule: a zeroing trim of a
//! block the step allocates goes with the slots in 1 (before the commit
//! point: the block is free in the state before the step), a trim of a
//! block the step frees goes with the install in 3 (after it: the state
//! before the step still maps the block). A crash after the commit point
//! that replays the log does not redo the freeing trims; the blocks stay
//! mapped on the device, which only costs the device space.
//!
//! **xlog**: write the step in place, then flush. On SCFTL the flush is an
//! atomic snapshot, so a crash shows the step whole or not at all.
//!
//! In `xlog` and `group` the trims go first, then the writes, all in the
//! one epoch: the snapshot makes them atomic with the step.
//!
//! **group**: write the step in place without flushing; the device's epoch
//! holds every step since the last flush, and SCFTL's snapshot makes a crash
//! return to the state after some completed call. Before writing, if the
//! step's sectors exceed `epoch_remaining()`, flush first: the flush then
//! covers exactly the calls before this one, and the write cannot hit
//! `EpochFull`.

use ftl::{BlockDevice, Lba};

use crate::cache::Trim;
use crate::error::{corrupt, FsError, Result};
use crate::layout::BLOCK_SIZE;
use crate::logfmt::{slots_crc, LogHeader};
use crate::mode::{CommitMode, FsMutant};
use crate::store::Store;

impl<D: BlockDevice> Store<D> {
    /// Flushes the device.
    pub fn flush(&mut self) -> Result<()> {
        self.dev.flush()?;
        self.stats.flushes += 1;
        self.unflushed = false;
        Ok(())
    }

    /// Log-mode helper: flushes first when `sectors` would not fit the
    /// device's epoch. Always safe in the log protocol, where an extra flush
    /// only adds ordering.
    fn room_for(&mut self, sectors: u64) -> Result<()> {
        if let Some(rem) = self.dev.epoch_remaining() {
            if sectors > rem {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        self.dev.write(lba, data)?;
        self.stats.sectors_written += (data.len() / self.sector_size) as u64;
        Ok(())
    }

    /// The step's dirty sectors as runs of consecutive sectors, in block
    /// order: `(first lba, bytes)`.
    fn runs(&self) -> Vec<(Lba, Vec<u8>)> {
        let ss = self.sector_size;
        let mut out: Vec<(Lba, Vec<u8>)> = Vec::new();
        let mut meta = self.tx.meta.iter().peekable();
        let mut data = self.tx.data.iter().peekable();
        loop {
            let take_meta = match (meta.peek(), data.peek()) {
                (Some((a, _)), Some((b, _))) => a < b,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let (b, mask, buf): (u32, _, &[u8]) = if take_meta {
                let (&b, m) = meta.next().expect("peeked");
                (b, *m, self.cache.get(b).expect("dirty blocks stay cached"))
            } else {
                let (&b, d) = data.next().expect("peeked");
                (b, d.mask, &d.buf)
            };
            let base = self.lba(b).0;
            for (first, len) in mask.runs(self.spb) {
                let lba = base + first as u64;
                let bytes = &buf[first * ss..(first + len) * ss];
                match out.last_mut() {
                    Some((l, v)) if l.0 + (v.len() / ss) as u64 == lba => {
                        v.extend_from_slice(bytes)
                    }
                    _ => out.push((Lba(lba), bytes.to_vec())),
                }
            }
        }
        out
    }

    /// The step's blocks with their whole new images, in block order.
    fn images(&self) -> Vec<(u32, &[u8])> {
        let mut v: Vec<(u32, &[u8])> = self
            .tx
            .meta
            .keys()
            .map(|&b| (b, self.cache.get(b).expect("dirty blocks stay cached")))
            .chain(self.tx.data.iter().map(|(&b, d)| {
                debug_assert!(d.full, "log mode keeps whole images");
                (b, &d.buf[..])
            }))
            .collect();
        v.sort_unstable_by_key(|&(b, _)| b);
        v
    }

    fn install(&mut self) -> Result<()> {
        for (lba, data) in self.runs() {
            self.write(lba, &data)?;
        }
        Ok(())
    }

    /// Issues the step's trims of kind `only` (all kinds: `None`) as runs
    /// of consecutive blocks. `log`: each run first makes room in the
    /// epoch (an extra flush only adds ordering there).
    fn trims(&mut self, only: Option<Trim>) -> Result<()> {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for (&b, &k) in &self.tx.trims {
            if only.is_some_and(|o| o != k) {
                continue;
            }
            // In `log` a run must fit an empty epoch, which holds at least
            // the budget's blocks; the epoch-bound modes' trims fit the
            // step's epoch whole.
            let cap = match self.mode {
                CommitMode::Log => self.budget.blocks.min(u64::from(u32::MAX)) as u32,
                _ => u32::MAX,
            };
            match runs.last_mut() {
                Some((first, n)) if *first + *n == b && *n < cap => *n += 1,
                _ => runs.push((b, 1)),
            }
        }
        for (first, n) in runs {
            let sectors = u64::from(n) * self.spb as u64;
            if self.mode == CommitMode::Log {
                self.room_for(sectors)?;
            }
            let lba = self.lba(first);
            self.dev.trim(lba, sectors)?;
            self.stats.sectors_trimmed += sectors;
        }
        Ok(())
    }

    /// Commits the open step (see the top of this file). On a device error
    /// the file system is poisoned: the step may be partly on the device.
    pub fn commit_step(&mut self) -> Result<()> {
        if self.tx.is_empty() {
            self.alloc_at_step_start = self.alloc;
            return Ok(());
        }
        self.check_poisoned()?;
        if self.tx.sectors > self.budget.sectors || self.tx.blocks() > self.budget.blocks {
            let e = FsError::Internal(format!(
                "a transaction step of {} sectors in {} blocks exceeds the budget of {} sectors / {} blocks",
                self.tx.sectors,
                self.tx.blocks(),
                self.budget.sectors,
                self.budget.blocks
            ));
            self.abort_step();
            return Err(e);
        }
        let r = match self.mode {
            CommitMode::Log => self.commit_log(),
            // The previous step ended with a flush, so the epoch is empty and
            // the budget guarantees the step fits; `commit_group`'s check
            // only guards against a device that was written behind our back.
            CommitMode::Xlog => self.commit_group().and_then(|()| self.flush()),
            CommitMode::Group => self.commit_group(),
        };
        match r {
            Ok(()) => {
                self.tx.clear();
                self.alloc_at_step_start = self.alloc;
                self.stats.steps += 1;
                self.cache.shrink(|_| false);
                Ok(())
            }
            Err(e) => {
                self.poison(&e);
                self.abort_step();
                Err(e)
            }
        }
    }

    fn commit_group(&mut self) -> Result<()> {
        if let Some(rem) = self.dev.epoch_remaining() {
            let forget = self.mode == CommitMode::Group
                && self.mutant == Some(FsMutant::GroupForgetsEpochFlush);
            if self.tx.sectors > rem && !forget {
                self.flush()?;
                self.stats.epoch_flushes += 1;
            }
        }
        self.trims(None)?;
        self.install()?;
        self.unflushed = true;
        Ok(())
    }

    /// The log protocol (see the top of this file): version 3's two
    /// flushes when the superblock says so, else xv6's four.
    fn commit_log(&mut self) -> Result<()> {
        let checked = self.sb.has_xattrs();
        let spb = self.spb as u64;
        let (homes, slots, crc) = {
            let imgs = self.images();
            let mut slots = Vec::with_capacity(imgs.len() * BLOCK_SIZE);
            for (_, img) in &imgs {
                slots.extend_from_slice(img);
            }
            let crc = slots_crc(imgs.iter().map(|(_, img)| &img[..]));
            (
                imgs.iter().map(|&(b, _)| b).collect::<Vec<u32>>(),
                slots,
                crc,
            )
        };
        // Zeroing trims and the slots; versions 1 and 2 flush them before
        // the record, version 3 checks them by the record's slots CRC.
        let early = match self.mutant {
            Some(FsMutant::LogTrimsFreedEarly) => None,
            _ => Some(Trim::Zero),
        };
        self.trims(early)?;
        self.room_for(homes.len() as u64 * spb)?;
        let slot0 = self.lba(self.sb.log_start + 1);
        self.write(slot0, &slots)?;
        self.stats.log_blocks_written += homes.len() as u64;
        if !checked {
            self.flush()?;
        }
        // The record, then flush: the commit point.
        let seq = self.log_seq + 1;
        self.write_header(&LogHeader {
            seq,
            blocks: homes,
            slots_crc: checked.then_some(crc),
        })?;
        self.flush()?;
        self.log_seq = seq;
        // Install in place (and freeing trims), then flush.
        let trimmed = self.tx.trims.len() as u64 * spb;
        self.room_for(self.tx.sectors - trimmed)?;
        self.install()?;
        if early.is_some() {
            self.trims(Some(Trim::Free))?;
        }
        self.flush()?;
        // Clear the record. Version 3 leaves it to the next record or the
        // unmount's flush to make durable; versions 1 and 2 flush it,
        // because their next slots would otherwise pass for this record's.
        self.write_header(&LogHeader {
            seq,
            blocks: Vec::new(),
            slots_crc: None,
        })?;
        if !checked {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the sectors of the header block that its encoding occupies.
    fn write_header(&mut self, h: &LogHeader) -> Result<()> {
        let bytes = h.encode();
        let len = h.encoded_len().next_multiple_of(self.sector_size);
        self.room_for((len / self.sector_size) as u64)?;
        let lba = self.lba(self.sb.log_start);
        self.write(lba, &bytes[..len])
    }

    /// Mount: installs a committed step left in the log by a crash, then
    /// clears the record. Idempotent, so a crash during replay is just
    /// another crash. Returns whether a step was replayed.
    pub fn replay_log(&mut self) -> Result<bool> {
        let mut hdr = vec![0u8; BLOCK_SIZE];
        self.dev_read(self.sb.log_start, &mut hdr)?;
        let Some(h) = LogHeader::decode(&hdr) else {
            self.log_seq = 0;
            return Ok(false);
        };
        self.log_seq = h.seq;
        if h.blocks.is_empty() {
            return Ok(false);
        }
        let log_end = self.sb.log_start + self.sb.log_blocks;
        if h.blocks.len() > self.sb.log_slots() as usize {
            return Err(corrupt(
                "log header lists more blocks than the log has slots",
            ));
        }
        for &b in &h.blocks {
            if b == 0 || b >= self.sb.total_blocks || (self.sb.log_start..log_end).contains(&b) {
                return Err(corrupt(format!(
                    "committed log names block {b}, outside the file system's home blocks"
                )));
            }
        }
        let mut images = Vec::with_capacity(h.blocks.len());
        for i in 0..h.blocks.len() {
            let mut buf = vec![0u8; BLOCK_SIZE];
            self.dev_read(self.sb.log_start + 1 + i as u32, &mut buf)?;
            images.push(buf);
        }
        if !h.slots_match(&images) && self.mutant != Some(FsMutant::LogIgnoresSlotsCrc) {
            // Written with slots that never all became durable: the step
            // had not committed.
            return Ok(false);
        }
        for (img, &home) in images.iter().zip(&h.blocks) {
            self.room_for(self.spb as u64)?;
            let lba = self.lba(home);
            self.write(lba, img)?;
        }
        self.flush()?;
        self.write_header(&LogHeader {
            seq: h.seq,
            blocks: Vec::new(),
            slots_crc: None,
        })?;
        self.flush()?;
        Ok(true)
    }
}
