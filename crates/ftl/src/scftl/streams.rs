//! Write streams: hot/cold separation (configuration version 8,
//! `ScftlConfig::gc_streams` = 2).
//!
//! Host writes go to the *host* stream; GC relocations, static wear moves
//! and evacuations (data that survived in its superblock, so colder than
//! what the host writes now) go to the *cold* stream. Each stream has its
//! own active superblock and merge buffer, so a superblock holds data of
//! one temperature, and GC finds host superblocks mostly stale. With one
//! stream (images of versions 3 to 7, and devices too small for a second
//! one) both names mean the same stream and nothing here does anything.
//!
//! Representation: the loaded stream lives in `Scftl::active`, `mb`,
//! `mb_oob` and `mb_fill`, which the whole data path uses; the other
//! stream waits in [`Parked`] and [`Scftl::use_stream`] swaps the two
//! (buffers are swapped, not copied). The host stream is loaded at every
//! public entry and exit: relocation loads the cold stream around its
//! appends (`gc.rs`, `wear.rs`) and loads the host stream back.
//!
//! What the second stream changes elsewhere:
//! - the flush pads and programs both merge buffers before the commit
//!   point (a mutant forgets the cold one: `flush-skips-cold-buffer`);
//! - an epoch whose cold stream programmed a page commits in the delta
//!   region, never in-page or in an OOB (those prove only the host
//!   stream's pages, docs/FORMAT.md §4.8, §4.9);
//! - reads look in both merge buffers;
//! - the constraints budget two paddings and two abandoned tails
//!   (`config.rs` [`super::config::slack`]) and the §6.1 space validator
//!   counts only the emptier active superblock's room (`invariants.rs`);
//! - GC picks victims by cost-benefit (free space times age over the
//!   sectors to copy, `blocks.rs`), which keeps cold superblocks until
//!   they are worth collecting, behind
//!   the validator that the victim holds at most N = floor(L/U) valid
//!   sectors (else the verified greedy choice, counted).
//!
//! Recovery knows nothing of streams: it rebuilds superblocks as used or
//! erasable from the L2P (both active superblocks are abandoned).

use flash::Flash;

use super::{Active, Scftl};

/// Which write stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Host writes.
    Host,
    /// GC relocations, wear moves and evacuations.
    Cold,
}

/// The stream not loaded: its active superblock and merge buffer.
#[derive(Debug)]
pub(crate) struct Parked {
    pub active: Option<Active>,
    pub mb: Vec<u8>,
    pub mb_oob: Vec<u8>,
    pub mb_fill: u32,
}

impl<F: Flash> Scftl<F> {
    /// Loads stream `s`: its active superblock and merge buffer become
    /// `active`, `mb`, `mb_oob`, `mb_fill`. A no-op with one stream.
    #[inline]
    pub(super) fn use_stream(&mut self, s: Stream) {
        if !self.two_streams || self.stream == s {
            return;
        }
        let p = &mut self.parked;
        std::mem::swap(&mut self.active, &mut p.active);
        std::mem::swap(&mut self.mb, &mut p.mb);
        std::mem::swap(&mut self.mb_oob, &mut p.mb_oob);
        std::mem::swap(&mut self.mb_fill, &mut p.mb_fill);
        self.stream = s;
    }

    /// Runs `f` with the cold stream loaded, then loads the host stream
    /// again (also when `f` fails).
    pub(super) fn with_cold_stream<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.use_stream(Stream::Cold);
        let r = f(self);
        self.use_stream(Stream::Host);
        r
    }

    /// The active superblock and merge-buffer fill of each stream (the
    /// loaded one first; one entry with one stream).
    pub(super) fn stream_states(&self) -> Vec<(Option<Active>, u32)> {
        let mut v = vec![(self.active, self.mb_fill)];
        if self.two_streams {
            v.push((self.parked.active, self.parked.mb_fill));
        }
        v
    }

    /// The active superblocks of the host and the cold stream (the same
    /// with one stream), for tests and tools.
    pub fn stream_superblocks(&self) -> (Option<super::Sb>, Option<super::Sb>) {
        debug_assert_eq!(self.stream, Stream::Host);
        let host = self.active.map(|a| a.sb);
        if self.two_streams {
            (host, self.parked.active.map(|a| a.sb))
        } else {
            (host, host)
        }
    }

    /// The sector the parked stream's merge buffer holds for `psa`, if
    /// any (reads look there after the loaded buffer).
    pub(super) fn parked_sector(&self, psa: super::Psa) -> Option<&[u8]> {
        if !self.two_streams {
            return None;
        }
        let p = &self.parked;
        let a = p.active?;
        if a.next_page >= self.layout.pages_per_sb {
            return None;
        }
        let base = self.layout.psa(a.sb, a.next_page, 0);
        if psa < base || psa.0 >= base.0 + p.mb_fill {
            return None;
        }
        let ss = self.layout.sector_size;
        let slot = (psa.0 - base.0) as usize;
        Some(&p.mb[slot * ss..(slot + 1) * ss])
    }

    /// Flush: pads and programs the cold stream's merge buffer, if it
    /// holds sectors (the host stream's is the flush's own business).
    pub(super) fn pad_cold_buffer(&mut self) -> crate::device::Result<()> {
        if !self.two_streams || self.parked.mb_fill == 0 {
            return Ok(());
        }
        if self.mutant == crate::mutant::Mutant::FlushSkipsColdBuffer {
            return Ok(());
        }
        self.with_cold_stream(|me| me.pad_merge_buffer())
    }
}
