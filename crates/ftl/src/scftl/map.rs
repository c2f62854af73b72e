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

/// The data checksum of each physical sector, as the sector's OOB record
/// holds it, for reads with shared access (`BlockDevice::read_shared`, the
/// host path of `SharedDevice`): a read whose sectors all have their
/// checksum here verifies its data against these and reads no OOB, which
/// on an image is one positioned read less per page run (a 1 MiB read of
/// scattered sectors: 256 fewer system calls).
///
/// Coherence: an entry is set whenever the L2P points a logical sector at
/// a physical one (`Scftl::remap`, which every placement — host write,
/// direct run, GC relocation, wear move, reprogram after a failed
/// program — calls with the checksum it wrote into the OOB), and filled
/// by a read that verified the sector against its OOB record. While
/// `l2p[la] == psa`, the sector at `psa` is neither erased nor programmed
/// again (it is valid), and no other logical sector is pointed at it, so
/// the entry stays the one the last `remap(la, psa, _)` or read set: the
/// checksum that page's OOB holds. Entries of sectors nothing points to
/// may be stale; a read never looks at them. Recovery builds a new
/// `Scftl` with an empty cache. 0 means unknown (a checksum that is 0
/// is read from the OOB every time). Allocated on the first shared read
/// (4 bytes per physical sector), so single-threaded users (the crash
/// checker, the simulator) pay nothing and read as before.
#[derive(Debug, Default)]
pub(crate) struct CrcCache {
    crcs: std::sync::OnceLock<Box<[std::sync::atomic::AtomicU32]>>,
}

impl CrcCache {
    const UNKNOWN: u32 = 0;

    /// An empty cache, allocated on the first shared read.
    pub fn new() -> Self {
        Self::default()
    }

    /// The entries, allocated now if this is the first shared read.
    fn entries(&self, len: usize) -> &[std::sync::atomic::AtomicU32] {
        self.crcs.get_or_init(|| {
            (0..len)
                .map(|_| std::sync::atomic::AtomicU32::new(Self::UNKNOWN))
                .collect()
        })
    }

    /// The checksums of the `n` physical sectors from `psa` on, into
    /// `out`, if every one is known (`len`: the physical sectors there
    /// are).
    pub fn get_run(&self, len: usize, psa: Psa, out: &mut [u32]) -> bool {
        let e = self.entries(len);
        let at = psa.0 as usize;
        for (k, o) in out.iter_mut().enumerate() {
            match e
                .get(at + k)
                .map(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            {
                Some(c) if c != Self::UNKNOWN => *o = c,
                _ => return false,
            }
        }
        true
    }

    /// Records a checksum a shared read verified (`&self`: readers hold
    /// the device shared, and each stores what the OOB holds, so racing
    /// readers store the same value).
    pub fn fill(&self, psa: Psa, crc: u32) {
        if let Some(c) = self.crcs.get().and_then(|e| e.get(psa.0 as usize)) {
            c.store(crc, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Records the checksum of a sector the L2P now points at (exclusive
    /// access). Nothing to do before the first shared read.
    #[inline]
    pub fn set(&mut self, psa: Psa, crc: u32) {
        if let Some(c) = self.crcs.get_mut().and_then(|e| e.get_mut(psa.0 as usize)) {
            *c.get_mut() = crc;
        }
    }
}
