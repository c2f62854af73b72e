//! The mapping tables: the L2P (logical → physical sector, the only table
//! that is persisted), the valid map (one bit per physical sector: whether
//! the L2P points to it; GC uses it to find a victim's valid sectors
//! without reading dead pages) and, for images of configuration version 3
//! and 4 only, the P2L (physical → logical). Version 5 images carry each
//! data sector's logical number in the page's OOB (docs/FORMAT.md §4.7), so
//! GC learns it from the read it does anyway, and RAM is 4 bytes per
//! logical sector plus one bit per physical one (the P2L cost 4 bytes per
//! physical sector). The tables are indexed by the address type they map
//! from, so a table cannot be looked up with the wrong kind of address.
//!
//! Invariants (checked by `check_invariants`): `l2p[la]` is
//! [`Psa::UNMAPPED`] or a sector of a data superblock; the L2P is
//! injective; a physical sector's valid bit is set iff the L2P maps some
//! logical sector to it; where a P2L is kept, `p2l[l2p[la]] == la` (its
//! other entries may be stale).

use std::marker::PhantomData;
use std::ops::{Index, IndexMut, Range};

use super::layout::{Address, La, Psa};

/// Logical sector → physical sector.
pub(crate) type L2p = Table<La, Psa>;
/// Physical sector → the logical sector last written there.
pub(crate) type P2l = Table<Psa, La>;

/// A dense table from addresses of type `A` to values of type `V`.
#[repr(transparent)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table<A, V> {
    entries: Vec<V>,
    by: PhantomData<fn(A)>,
}

impl<A: Address, V: Copy> Table<A, V> {
    /// `len` entries, all `value`.
    pub fn filled(len: usize, value: V) -> Self {
        Table {
            entries: vec![value; len],
            by: PhantomData,
        }
    }

    #[cfg_attr(not(all(debug_assertions, feature = "ghost")), allow(dead_code))]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The entries in address order (checkpoint pages encode the L2P so).
    pub fn as_slice(&self) -> &[V] {
        &self.entries
    }

    pub fn as_mut_slice(&mut self) -> &mut [V] {
        &mut self.entries
    }

    /// Every (address, value) entry.
    pub fn iter(&self) -> impl Iterator<Item = (A, V)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, &v)| (A::from_index(i), v))
    }

    /// Sets the entries at indices `range` to `value`.
    pub fn fill(&mut self, range: Range<usize>, value: V) {
        self.entries[range].fill(value);
    }
}

impl L2p {
    /// `len` logical sectors, all unmapped.
    pub fn unmapped(len: usize) -> L2p {
        Table::filled(len, Psa::UNMAPPED)
    }
}

impl P2l {
    /// `len` physical sectors holding nothing.
    pub fn empty(len: usize) -> P2l {
        Table::filled(len, La::NONE)
    }
}

impl<A: Address, V> Index<A> for Table<A, V> {
    type Output = V;
    #[inline]
    fn index(&self, a: A) -> &V {
        &self.entries[a.index()]
    }
}

impl<A: Address, V> IndexMut<A> for Table<A, V> {
    #[inline]
    fn index_mut(&mut self, a: A) -> &mut V {
        &mut self.entries[a.index()]
    }
}

/// One bit per physical sector: set iff the L2P points to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ValidMap {
    words: Vec<u64>,
}

impl ValidMap {
    /// `len` physical sectors, none valid.
    pub fn empty(len: usize) -> ValidMap {
        ValidMap {
            words: vec![0; len.div_ceil(64)],
        }
    }

    #[inline]
    pub fn get(&self, psa: Psa) -> bool {
        let i = psa.index();
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, psa: Psa) {
        let i = psa.index();
        self.words[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn clear(&mut self, psa: Psa) {
        let i = psa.index();
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// Number of set bits at indices `range`.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn count(&self, range: Range<usize>) -> u32 {
        range
            .filter(|&i| self.words[i / 64] >> (i % 64) & 1 == 1)
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_map_sets_clears_and_counts() {
        let mut m = ValidMap::empty(200);
        for i in [0u32, 63, 64, 130, 199] {
            m.set(Psa(i));
        }
        assert!(m.get(Psa(63)) && m.get(Psa(64)) && !m.get(Psa(65)));
        assert_eq!(m.count(0..200), 5);
        m.clear(Psa(64));
        assert_eq!(m.count(0..128), 2);
        assert_eq!(m.count(100..200), 2);
        m.clear(Psa(130));
        assert!(!m.get(Psa(130)));
        assert_eq!(m.count(0..200), 3);
    }
}
