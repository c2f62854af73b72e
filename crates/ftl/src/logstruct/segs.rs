//! Segment states, live counts and the free queue.
//!
//! Invariants (checked by `LogFtl::check_invariants`):
//! - every segment is in exactly one state; segment 0 is `Reserved`, at most
//!   two are `Active` (the host's and, with two streams, the GC's);
//! - the free queue holds exactly the `Free` and `Dirty` segments, once each;
//! - `collected` holds exactly the `Collected` segments, once each;
//! - `valid[s]` is the number of logical sectors mapped into segment `s`, and
//!   `trims[s]` the number of live trim records in it; both are 0 unless the
//!   segment is `Active` or `Used`;
//! - a `Retired` segment is in no queue and is never erased again;
//! - states change only through [`Segments::set`], along the transitions
//!   of [`SegState::may_become`] (recovery rebuilds them with
//!   [`Segments::restore`]); a change off that table is recorded and
//!   reported by `check_invariants`.

use std::collections::VecDeque;

use flash::Flash;

use crate::device::{FtlError, Result};
use crate::wear::{self, WearPolicy, WearStats};

use super::layout::{Layout, SegId};

/// What a segment is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegState {
    /// Holds the device label.
    Reserved,
    /// Erased and ready to program.
    Free,
    /// Holds stale content of unknown state (found by recovery); erased when
    /// allocated.
    Dirty,
    /// (async, and sync with two streams) GC moved all its live content
    /// out, but the moved copies (or newer copies of its stale sectors) may
    /// not be durable yet: it is erased (and `Free`) right after the next
    /// sync that follows programming what the merge buffers held (see
    /// gc.rs).
    Collected,
    /// Being filled.
    Active,
    /// Full (or found programmed by recovery) and holding live content.
    Used,
    /// Holds a bad erase block (factory bad, worn out by a failed erase, or
    /// marked bad after a failed program): never filled or erased again.
    /// It holds no live content, but the stale copies still on it stay
    /// counted (`p2l`, `copies`), since recovery's scan still sees them.
    Retired,
}

impl SegState {
    /// Whether a segment in this state may go to `to` (outside recovery,
    /// which rebuilds states from the flash). The life of a segment:
    /// `Dirty` (found by recovery, or fresh) is erased to `Free`; a
    /// `Free` or `Dirty` one is taken to fill (`Active`; a `Dirty` one is
    /// erased first); a full one, or one abandoned after a failed program,
    /// is `Used`; GC empties it, erasing it at once (`Free`) or after the
    /// sync its relocations wait for (`Collected`, then `Free`). Format
    /// reserves segments of a fresh table for metadata. Any segment but a
    /// reserved one may be retired when a block of it goes bad.
    pub fn may_become(self, to: SegState) -> bool {
        use SegState::*;
        match (self, to) {
            (Dirty, Reserved | Dirty) => true,
            (Dirty | Free, Free | Active) => true,
            (Active, Used) => true,
            (Used, Collected) => true,
            (Used | Collected, Free) => true,
            (Reserved, _) => false,
            (_, Retired) => true,
            _ => false,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Segments {
    /// Per segment; changed only by `set` and `restore`.
    state: Vec<SegState>,
    /// The first change of state off `SegState::may_become`'s table:
    /// (segment, from, to). Reported by `check_invariants`.
    bad_transition: Option<(SegId, SegState, SegState)>,
    pub(crate) valid: Vec<u32>,
    pub(crate) trims: Vec<u32>,
    pub(crate) erases: Vec<u64>,
    pub(crate) free: VecDeque<SegId>,
    /// `Collected` segments, oldest first.
    pub(crate) collected: Vec<SegId>,
    /// How the next segment is chosen (dynamic wear leveling only: the
    /// baselines and OPTR move no data for wear).
    pub(crate) wear: WearPolicy,
    pub(crate) wear_stats: WearStats,
}

impl Segments {
    /// All segments `Dirty` (in the free queue) except the reserved one.
    pub(crate) fn new(segments: u32) -> Segments {
        let n = segments as usize;
        let mut state = vec![SegState::Dirty; n];
        state[0] = SegState::Reserved;
        Segments {
            state,
            bad_transition: None,
            valid: vec![0; n],
            trims: vec![0; n],
            erases: vec![0; n],
            free: (1..segments).map(SegId).collect(),
            collected: Vec::new(),
            wear: WearPolicy::OFF,
            wear_stats: WearStats::default(),
        }
    }

    /// Takes the next segment to fill out of the free queue: with dynamic
    /// wear leveling the least-worn one (its erase blocks' erase counts on
    /// `flash`), validated by `crate::wear::take_validated` (it must be in
    /// the queue), else the oldest. Any free segment is safe: `Free` ones
    /// are erased, `Dirty` ones hold only content recovery found stale.
    pub(crate) fn take_free<F: Flash + ?Sized>(
        &mut self,
        flash: &F,
        layout: &Layout,
    ) -> Option<SegId> {
        let choice = if self.wear.dynamic {
            wear::least_worn(self.free.iter().copied(), |s| {
                wear::stripe_wear(flash, (0..layout.stripe).map(|m| layout.member_block(s, m)))
            })
        } else {
            None
        };
        wear::take_validated(&mut self.free, choice, &mut self.wear_stats)
    }

    /// The state of `s`.
    pub(crate) fn state(&self, s: SegId) -> SegState {
        self.state[s.0 as usize]
    }

    /// Every segment's state, by number.
    pub(crate) fn states(&self) -> &[SegState] {
        &self.state
    }

    /// Moves `s` to `to`. A move off [`SegState::may_become`]'s table is
    /// made all the same (the caller's bookkeeping stays whole) and the
    /// first one is kept for [`Segments::check_transitions`].
    pub(crate) fn set(&mut self, s: SegId, to: SegState) {
        let from = self.state[s.0 as usize];
        if !from.may_become(to) && self.bad_transition.is_none() {
            self.bad_transition = Some((s, from, to));
        }
        self.state[s.0 as usize] = to;
    }

    /// Sets `s` to the state recovery found it in (no transition: the
    /// table is being rebuilt from the flash).
    pub(crate) fn restore(&mut self, s: SegId, st: SegState) {
        self.state[s.0 as usize] = st;
    }

    /// Fails if a state ever changed off [`SegState::may_become`]'s table.
    pub(crate) fn check_transitions(&self) -> std::result::Result<(), String> {
        match self.bad_transition {
            None => Ok(()),
            Some((s, from, to)) => Err(format!(
                "segment {} went from {from:?} to {to:?}, which is no transition of a segment's life",
                s.0
            )),
        }
    }

    pub(crate) fn free_count(&self) -> u32 {
        self.free.len() as u32
    }

    /// Live sectors (data plus trim records) of a segment.
    pub(crate) fn load(&self, s: SegId) -> u32 {
        self.valid[s.0 as usize] + self.trims[s.0 as usize]
    }

    /// The greedy victim: the used segment with the least live content.
    pub(crate) fn pick_victim(&self) -> Option<SegId> {
        (0..self.state.len() as u32)
            .map(SegId)
            .filter(|&s| self.state[s.0 as usize] == SegState::Used)
            .min_by_key(|&s| (self.load(s), s.0))
    }

    /// Whether an erase block of `s` is bad on `flash` (its wear record:
    /// persisted, so recovery learns it too).
    pub(crate) fn has_bad_block<F: Flash + ?Sized>(flash: &F, layout: &Layout, s: SegId) -> bool {
        (0..layout.stripe).any(|m| {
            flash
                .block_wear(layout.member_block(s, m))
                .is_ok_and(|w| w.is_bad())
        })
    }

    /// The read-only rule of a log over these segments: when `r` failed on
    /// a media failure, or on a lack of space once segments are retired,
    /// the device turns read-only (`worn_out` says why) and `WornOut` is
    /// returned; any other result passes through.
    pub(crate) fn read_only_after<T>(
        &self,
        r: Result<T>,
        worn_out: &mut Option<String>,
    ) -> Result<T> {
        let retired = self.count(SegState::Retired);
        let why = match &r {
            Err(FtlError::Flash(e)) if e.is_media_failure() => e.to_string(),
            Err(FtlError::NoSpace(m)) if retired > 0 => format!("{m} ({retired} segments retired)"),
            _ => return r,
        };
        *worn_out = Some(why.clone());
        Err(FtlError::WornOut(why))
    }

    pub(crate) fn count(&self, st: SegState) -> u64 {
        self.state.iter().filter(|&&x| x == st).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_lives_along_the_table_and_a_move_off_it_is_reported() {
        let mut segs = Segments::new(4);
        let s = SegId(1);
        for to in [
            SegState::Free,
            SegState::Active,
            SegState::Used,
            SegState::Collected,
            SegState::Free,
            SegState::Active,
            SegState::Used,
            SegState::Retired,
        ] {
            segs.set(s, to);
        }
        assert_eq!(segs.check_transitions(), Ok(()));
        assert_eq!(segs.state(s), SegState::Retired);
        // A free segment cannot hold live content without being filled.
        segs.set(SegId(2), SegState::Used);
        assert_eq!(segs.state(SegId(2)), SegState::Used);
        let e = segs.check_transitions().unwrap_err();
        assert!(e.contains("segment 2 went from Dirty to Used"), "{e}");
        // Only the first is kept; recovery's restore is no transition.
        segs.set(SegId(3), SegState::Collected);
        segs.restore(SegId(0), SegState::Used);
        assert!(segs.check_transitions().unwrap_err().contains("segment 2"));
        assert!(!SegState::Reserved.may_become(SegState::Retired));
        assert!(!SegState::Retired.may_become(SegState::Free));
    }
}
