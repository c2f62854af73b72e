//! Superblock states, the block queues of two-phase GC and valid counts.
//!
//! Life of a data superblock: free → active → used → (GC victim) invalid →
//! (end of flush) erasable → (erased when a block is needed) free. After
//! format and after recovery there are no free blocks: every unreferenced
//! superblock is erasable, because we cannot know whether it was erased.
//!
//! Invariants (checked by `invariants.rs`):
//! - every data superblock is in exactly one state, and the `free` /
//!   `erasable` queues and `invalid` list hold exactly the superblocks in
//!   that state, each once; `used` counts the `Used` ones;
//! - metadata superblocks are `Meta` and never change state;
//! - `valid[sb]` is the number of logical sectors the volatile L2P maps
//!   into `sb`; it is 0 for free, invalid and erasable superblocks.

use std::collections::VecDeque;

/// State of a superblock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SbState {
    /// Label, checkpoint slot or delta region.
    Meta,
    /// Erased, ready to become active.
    Free,
    /// Being filled (at most one).
    Active,
    /// Full (or abandoned by a crash) and holding data.
    Used,
    /// Relocated by GC in this epoch; the stable L2P may still point here.
    Invalid,
    /// No L2P points here any more; erase before reuse.
    Erasable,
}

/// The block table.
#[derive(Clone, Debug)]
pub(crate) struct Blocks {
    pub state: Vec<SbState>,
    pub valid: Vec<u32>,
    /// Erases issued per superblock since open.
    pub erase_count: Vec<u64>,
    pub free: VecDeque<u32>,
    pub erasable: VecDeque<u32>,
    pub invalid: Vec<u32>,
    pub used: u32,
    pub data_first: u32,
}

impl Blocks {
    /// A table where metadata superblocks are `Meta` and every data
    /// superblock is erasable with no valid sectors.
    pub fn all_erasable(num_sbs: u32, data_first: u32) -> Blocks {
        let mut state = vec![SbState::Meta; num_sbs as usize];
        for s in state.iter_mut().skip(data_first as usize) {
            *s = SbState::Erasable;
        }
        Blocks {
            state,
            valid: vec![0; num_sbs as usize],
            erase_count: vec![0; num_sbs as usize],
            free: VecDeque::new(),
            erasable: (data_first..num_sbs).collect(),
            invalid: Vec::new(),
            used: 0,
            data_first,
        }
    }

    /// Greedy victim: the used superblock with the fewest valid sectors
    /// (lowest index on ties). O(superblocks); GC runs once per superblock
    /// written, so this is cheap.
    pub fn pick_victim(&self) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for sb in self.data_first..self.state.len() as u32 {
            if self.state[sb as usize] == SbState::Used {
                let v = self.valid[sb as usize];
                if best.is_none_or(|(_, bv)| v < bv) {
                    best = Some((sb, v));
                }
            }
        }
        best.map(|(sb, _)| sb)
    }

    /// Used → invalid (a GC victim whose sectors are being relocated).
    pub fn used_to_invalid(&mut self, sb: u32) {
        self.state[sb as usize] = SbState::Invalid;
        self.used -= 1;
        self.invalid.push(sb);
    }

    /// End of a flush: every invalid superblock becomes erasable, because
    /// the new stable L2P no longer points into it.
    pub fn end_epoch(&mut self) {
        for sb in self.invalid.drain(..) {
            self.state[sb as usize] = SbState::Erasable;
            self.erasable.push_back(sb);
        }
    }

    /// Superblocks that may be (erased and) filled in this epoch.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn available_sbs(&self) -> u64 {
        (self.free.len() + self.erasable.len()) as u64
    }
}
