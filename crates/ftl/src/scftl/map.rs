//! The mapping tables: the L2P (logical → physical sector, the only table
//! that is persisted) and the P2L (physical → logical, rebuilt from the
//! L2P; GC uses it to find a victim's valid sectors). Both are vectors of
//! 32-bit address newtypes, so they cost 4 bytes per entry, and each is
//! indexed by the address type it maps from, so a table cannot be looked
//! up with the wrong kind of address.
//!
//! Invariants (checked by `check_invariants`): `l2p[la]` is
//! [`Psa::UNMAPPED`] or a sector of a data superblock with
//! `p2l[l2p[la]] == la`. A P2L entry may be stale (its sector overwritten or
//! trimmed since); a physical sector is *valid* iff its P2L entry maps back
//! to it.

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
