//! The delta log: the page-sized delta buffer and the delta region.
//!
//! Every change of the volatile L2P appends a (la, pa) pair. A full buffer
//! is programmed as a *tentative* page; `flush` programs the rest as the
//! *committed* page of the epoch. Each page names its checkpoint generation
//! and its epoch; recovery applies a page only if its generation is the
//! committed checkpoint's and a committed page of the same epoch follows it
//! (docs/FORMAT.md §4.3). Epoch ids only grow within a generation: after a
//! crash, recovery resumes past every id it saw, so stale tentative pages of
//! a crashed epoch are never activated by a later commit.
//!
//! Every committed page also carries the *epoch digest* (docs/FORMAT.md
//! §4.3): a CRC32C chained from the previous committed epoch of the
//! generation through this epoch's id and the data CRC of every sector the
//! epoch leaves mapped (its pairs that no later pair of the epoch
//! overrides: the sectors its snapshot needs, which nothing may erase
//! before a later epoch is durable). Data, delta pages and the committed page can then share one sync:
//! recovery recomputes the digest of every epoch that may not be durable and
//! drops the first one that does not match, with everything after it.
//!
//! Invariants:
//! - `wp <= region_pages`; pages `wp..` of the region are erased;
//! - `mapped` lists every pair with a mapped physical sector pushed in this
//!   epoch, with the sector's data CRC; `chain` is the digest of the last
//!   committed epoch of generation `gen` (0 before the first);
//! - `npairs < pairs_per_page` between calls; the buffer's pair area past
//!   `npairs` is zero whenever a page is sealed;
//! - `epoch_pages` counts the pages written in the current epoch.

use flash::Flash;

use crate::device::{FtlError, Result};

use super::format::{self, MetaHeader};
use super::layout::{La, Layout, Psa};

pub(crate) struct DeltaLog {
    /// Generation of the committed full checkpoint these pages extend.
    pub gen: u64,
    /// Id of the current epoch.
    pub epoch: u64,
    /// Next region page to program.
    pub wp: u32,
    pub region_pages: u32,
    pub pairs_per_page: u32,
    pub npairs: u32,
    /// Pages programmed in the current epoch.
    pub epoch_pages: u32,
    pub buf: Vec<u8>,
    /// Metadata pages programmed since open (statistics).
    pub pages_written: u64,
    /// Digest of the last committed epoch of this generation (0: none).
    pub chain: u32,
    /// The epoch's pairs with a mapped physical sector, with its data CRC.
    pub mapped: Vec<(La, Psa, u32)>,
    /// The flash was synced after the last page was programmed: the next
    /// page carries [`format::KIND_AFTER_SYNC`].
    pub after_sync: bool,
}

impl DeltaLog {
    /// A log at write pointer `wp` whose last committed epoch of generation
    /// `gen` has digest `chain`, continuing with epoch id `epoch`.
    pub fn new(layout: &Layout, gen: u64, epoch: u64, wp: u32, chain: u32) -> DeltaLog {
        DeltaLog {
            chain,
            mapped: Vec::new(),
            // Created right after format or recovery, both of which synced.
            after_sync: true,
            gen,
            epoch,
            wp,
            region_pages: layout.delta_pages(),
            pairs_per_page: layout.delta_pairs_per_page,
            npairs: 0,
            epoch_pages: 0,
            buf: vec![0u8; layout.page_size],
            pages_written: 0,
        }
    }

    /// Notes a pair with a mapped physical sector and that sector's data
    /// CRC (a written or relocated sector), for the epoch digest.
    #[inline]
    pub fn note_sector(&mut self, la: La, pa: Psa, sector_crc: u32) {
        self.mapped.push((la, pa, sector_crc));
    }

    /// The current epoch's digest, given the L2P at its end (`live(la, pa)`:
    /// whether `la` still maps to `pa`).
    pub fn digest(&self, mut live: impl FnMut(La, Psa) -> bool) -> u32 {
        let mut d = format::digest_start(self.chain, self.epoch);
        for &(la, pa, crc) in &self.mapped {
            if live(la, pa) {
                d = format::digest_sector(d, crc);
            }
        }
        d
    }

    /// Appends a pair; programs a tentative page when the buffer fills.
    #[inline]
    pub fn push<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        layout: &Layout,
        la: La,
        pa: Psa,
    ) -> Result<()> {
        format::put_pair(&mut self.buf, self.npairs as usize, la, pa);
        self.npairs += 1;
        if self.npairs == self.pairs_per_page {
            self.program(flash, layout, format::KIND_TENTATIVE, 0)?;
        }
        Ok(())
    }

    /// Programs the buffer as a page of `kind` at the write pointer.
    /// `digest` goes into a committed page (0 for a tentative one).
    pub fn program<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        layout: &Layout,
        kind: u16,
        digest: u32,
    ) -> Result<()> {
        if self.wp >= self.region_pages {
            return Err(FtlError::NoSpace(format!(
                "the delta region's {} pages are full; the epoch bounds should have prevented this (bug)",
                self.region_pages
            )));
        }
        let used = format::delta_crc_len(self.npairs);
        self.buf[used..].fill(0);
        let flag = if self.after_sync {
            format::KIND_AFTER_SYNC
        } else {
            0
        };
        let h = MetaHeader {
            kind: kind | flag,
            gen: self.gen,
            epoch: self.epoch,
            index: self.wp,
            count: self.npairs,
            aux: self.epoch_pages,
            aux2: digest,
        };
        format::seal_prefix(&mut self.buf, &h, used);
        flash.program(
            layout.region_page(layout.delta_first, self.wp),
            &self.buf,
            &[],
        )?;
        self.wp += 1;
        self.after_sync = false;
        self.epoch_pages += 1;
        self.npairs = 0;
        self.pages_written += 1;
        Ok(())
    }

    /// Starts the next epoch after its predecessor committed with `digest`.
    pub fn next_epoch(&mut self, digest: u32) {
        self.chain = digest;
        self.epoch += 1;
        self.epoch_pages = 0;
        self.mapped.clear();
    }

    /// A full checkpoint started generation `gen` with an empty region: the
    /// digest chain starts again.
    pub fn new_generation(&mut self, gen: u64) {
        self.gen = gen;
        self.wp = 0;
        self.chain = 0;
        self.after_sync = true;
    }

    pub fn remaining_pages(&self) -> u32 {
        self.region_pages - self.wp
    }
}
