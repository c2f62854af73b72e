//! The buffer cache of metadata blocks and the transaction step being built.
//!
//! Metadata blocks (bitmaps, inode-table blocks, directory blocks, pointer
//! blocks, symlink targets) are read through [`Cache`] and modified in place
//! there; file data never enters the cache (the kernel's page cache above
//! FUSE holds it), so a large write does not evict metadata. Every
//! modification records which *sectors* of the block it touched in [`Tx`],
//! so a step writes (and counts against the device's epoch) only the
//! sectors it changed — on a 512-byte-sector device an inode update is one
//! sector, not eight.
//!
//! Invariants:
//! - between steps `Tx` is empty and every cached block equals the device
//!   (cache entries are clean);
//! - a block is in at most one of `Tx::meta` and `Tx::data`;
//! - `Tx::sectors` is the number of set bits over all masks plus `spb` per
//!   block in `Tx::trims` (a trim counts against the epoch like a write);
//! - a block in `Tx::trims` is in neither `Tx::meta` nor `Tx::data`;
//! - a block in `Tx::meta` is in the cache and is never evicted while the
//!   step is open (eviction skips it).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::layout::BLOCK_SIZE;

/// Which sectors of one block a step changed (up to 256 sectors, so any
/// sector size from 16 to 4096 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SectorMask([u64; 4]);

impl SectorMask {
    /// Sectors `0..spb`.
    pub fn full(spb: usize) -> SectorMask {
        let mut m = SectorMask::default();
        m.set_range(0, spb);
        m
    }

    /// Sets sectors `first..end`; returns how many were newly set.
    pub fn set_range(&mut self, first: usize, end: usize) -> u64 {
        let mut added = 0;
        for s in first..end {
            let (w, bit) = (s / 64, 1u64 << (s % 64));
            if self.0[w] & bit == 0 {
                self.0[w] |= bit;
                added += 1;
            }
        }
        added
    }

    pub fn contains(&self, s: usize) -> bool {
        self.0[s / 64] & (1u64 << (s % 64)) != 0
    }

    pub fn count(&self) -> u64 {
        self.0.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Whether every sector `0..spb` is set.
    #[cfg(test)]
    pub fn is_full(&self, spb: usize) -> bool {
        self.count() == spb as u64
    }

    /// Runs of consecutive set sectors as `(first, len)`.
    pub fn runs(&self, spb: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for s in 0..spb {
            if self.contains(s) {
                match out.last_mut() {
                    Some((f, l)) if *f + *l == s => *l += 1,
                    _ => out.push((s, 1)),
                }
            }
        }
        out
    }
}

/// A data block written by the current step.
pub struct DataBuf {
    pub buf: Box<[u8]>,
    pub mask: SectorMask,
    /// Whether `buf` holds the whole block's content (read or freshly
    /// initialised); otherwise only the sectors in `mask` are meaningful.
    pub full: bool,
}

/// Why a step trims a block (see `commit.rs` for where each is issued).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trim {
    /// A block allocated by this step that must read as zeros (fallocate,
    /// zero range): it is unmapped instead of written. In `log` mode it is
    /// trimmed before the commit point — it is free in the state before the
    /// step, so nothing a crash can return to reads it.
    Zero,
    /// A block freed by this step (punch hole, zero range): the device may
    /// drop its data. In `log` mode it is trimmed after the commit point —
    /// the state before the step still maps it.
    Free,
}

/// The transaction step being built.
#[derive(Default)]
pub struct Tx {
    /// Metadata blocks changed (content in the cache) and their sectors.
    pub meta: BTreeMap<u32, SectorMask>,
    /// Data blocks written (content here).
    pub data: BTreeMap<u32, DataBuf>,
    /// Blocks the step unmaps on the device.
    pub trims: BTreeMap<u32, Trim>,
    /// Blocks freed by the step (trimmed or not).
    pub freed: BTreeSet<u32>,
    /// Dirty sectors in all, trims included.
    pub sectors: u64,
}

impl Tx {
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty() && self.data.is_empty() && self.trims.is_empty()
    }

    /// Adds a trim of block `b` (of `spb` sectors) to the step.
    pub fn trim(&mut self, b: u32, kind: Trim, spb: usize) {
        if self.trims.insert(b, kind).is_none() {
            self.sectors += spb as u64;
        }
    }

    /// Drops a trim of block `b` from the step (it was allocated again).
    pub fn untrim(&mut self, b: u32, spb: usize) {
        if self.trims.remove(&b).is_some() {
            self.sectors -= spb as u64;
        }
    }

    /// Distinct blocks the step changes.
    pub fn blocks(&self) -> u64 {
        (self.meta.len() + self.data.len()) as u64
    }

    /// Marks sectors `first..end` of metadata block `b` dirty.
    pub fn mark_meta(&mut self, b: u32, first: usize, end: usize) {
        self.sectors += self.meta.entry(b).or_default().set_range(first, end);
    }

    /// Drops block `b` from the step (it was freed).
    pub fn forget(&mut self, b: u32) {
        if let Some(m) = self.meta.remove(&b) {
            self.sectors -= m.count();
        }
        if let Some(d) = self.data.remove(&b) {
            self.sectors -= d.mask.count();
        }
    }

    pub fn clear(&mut self) {
        self.meta.clear();
        self.data.clear();
        self.trims.clear();
        self.freed.clear();
        self.sectors = 0;
    }
}

struct Entry {
    data: Box<[u8]>,
    used: u64,
}

/// Clean-between-steps cache of metadata blocks with least-recently-used
/// eviction.
pub struct Cache {
    map: HashMap<u32, Entry>,
    capacity: usize,
    clock: u64,
    pub hits: u64,
    pub misses: u64,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache {
            map: HashMap::new(),
            capacity: capacity.max(64),
            clock: 0,
            hits: 0,
            misses: 0,
        }
    }

    pub fn contains(&self, b: u32) -> bool {
        self.map.contains_key(&b)
    }

    /// The cached block, marked as just used.
    pub fn get_mut(&mut self, b: u32) -> Option<&mut [u8]> {
        self.clock += 1;
        let now = self.clock;
        match self.map.get_mut(&b) {
            Some(e) => {
                self.hits += 1;
                e.used = now;
                Some(&mut e.data)
            }
            None => None,
        }
    }

    pub fn get(&self, b: u32) -> Option<&[u8]> {
        self.map.get(&b).map(|e| &e.data[..])
    }

    /// Inserts (or replaces) block `b`.
    pub fn insert(&mut self, b: u32, data: Box<[u8]>) -> &mut [u8] {
        debug_assert_eq!(data.len(), BLOCK_SIZE);
        self.misses += 1;
        self.clock += 1;
        let e = Entry {
            data,
            used: self.clock,
        };
        let slot = self.map.entry(b).or_insert(Entry {
            data: Box::default(),
            used: 0,
        });
        *slot = e;
        &mut slot.data
    }

    pub fn remove(&mut self, b: u32) {
        self.map.remove(&b);
    }

    /// Evicts the least recently used blocks down to 7/8 of the capacity
    /// when over it, never a block `pinned` names (the open step's dirty
    /// blocks, which exist nowhere else).
    pub fn shrink(&mut self, pinned: impl Fn(u32) -> bool) {
        if self.map.len() <= self.capacity {
            return;
        }
        let keep = self.capacity * 7 / 8;
        let mut ages: Vec<u64> = self.map.values().map(|e| e.used).collect();
        let cut_index = ages.len() - keep;
        let (_, cut, _) = ages.select_nth_unstable(cut_index);
        let cut = *cut;
        self.map.retain(|&b, e| e.used >= cut || pinned(b));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_count_and_run() {
        let mut m = SectorMask::default();
        assert_eq!(m.set_range(1, 3), 2);
        assert_eq!(m.set_range(2, 4), 1);
        m.set_range(6, 7);
        assert_eq!(m.runs(8), vec![(1, 3), (6, 1)]);
        assert_eq!(m.count(), 4);
        assert!(SectorMask::full(256).is_full(256));
        assert_eq!(SectorMask::full(256).runs(256), vec![(0, 256)]);
    }

    #[test]
    fn cache_evicts_oldest() {
        let mut c = Cache::new(64);
        for b in 0..100u32 {
            c.insert(b, vec![0u8; BLOCK_SIZE].into_boxed_slice());
        }
        c.get_mut(1);
        c.shrink(|b| b == 3);
        assert!(c.len() <= 65);
        assert!(c.contains(1) && c.contains(99) && c.contains(3) && !c.contains(2));
    }
}
