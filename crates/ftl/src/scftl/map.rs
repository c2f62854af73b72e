//! The mapping tables: the L2P (logical → physical sector, the only table
//! that is persisted) and the P2L (physical → logical, rebuilt from the
//! L2P; GC uses it to find a victim's valid sectors). Both are vectors of
//! 32-bit address newtypes, so they cost 4 bytes per entry, and they are
//! indexed by the address type they map from, so a table cannot be looked
//! up with the wrong kind of address.
//!
//! Invariants (checked by `check_invariants`): `l2p[la]` is
//! [`Psa::UNMAPPED`] or a sector of a data superblock with
//! `p2l[l2p[la]] == la`. A P2L entry may be stale (its sector overwritten or
//! trimmed since); a physical sector is *valid* iff its P2L entry maps back
//! to it.

use std::ops::{Index, IndexMut, Range};

use super::layout::{La, Psa};

/// Logical sector → physical sector.
#[repr(transparent)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct L2p(Vec<Psa>);

impl L2p {
    /// `len` logical sectors, all unmapped.
    pub fn unmapped(len: usize) -> L2p {
        L2p(vec![Psa::UNMAPPED; len])
    }

    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The entries in logical order (checkpoint pages encode them so).
    pub fn as_slice(&self) -> &[Psa] {
        &self.0
    }

    pub fn as_mut_slice(&mut self) -> &mut [Psa] {
        &mut self.0
    }

    /// Every (logical, physical) entry, unmapped ones included.
    pub fn iter(&self) -> impl Iterator<Item = (La, Psa)> + '_ {
        self.0
            .iter()
            .enumerate()
            .map(|(la, &pa)| (La(la as u32), pa))
    }
}

impl Index<La> for L2p {
    type Output = Psa;
    #[inline]
    fn index(&self, la: La) -> &Psa {
        &self.0[la.index()]
    }
}

impl IndexMut<La> for L2p {
    #[inline]
    fn index_mut(&mut self, la: La) -> &mut Psa {
        &mut self.0[la.index()]
    }
}

/// Physical sector → the logical sector last written there.
#[repr(transparent)]
#[derive(Clone, Debug)]
pub(crate) struct P2l(Vec<La>);

impl P2l {
    /// `len` physical sectors holding nothing.
    pub fn empty(len: usize) -> P2l {
        P2l(vec![La::NONE; len])
    }

    /// Forgets what the sectors `range` (P2L indices) held.
    pub fn clear(&mut self, range: Range<usize>) {
        self.0[range].fill(La::NONE);
    }
}

impl Index<Psa> for P2l {
    type Output = La;
    #[inline]
    fn index(&self, pa: Psa) -> &La {
        &self.0[pa.index()]
    }
}

impl IndexMut<Psa> for P2l {
    #[inline]
    fn index_mut(&mut self, pa: Psa) -> &mut La {
        &mut self.0[pa.index()]
    }
}
