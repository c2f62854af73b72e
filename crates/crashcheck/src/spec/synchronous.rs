//! `SyncSpec`: the synchronous-disk contract of the sync baseline.
//!
//! Every completed write (and trim) is durable. A write interrupted by a
//! power cut leaves each of its sectors with its old or its new value
//! (independently: the write is not atomic). A read after recovery pins the
//! value until the next crash; a completed write settles the sector. Flush
//! changes nothing.
//!
//! This file owns only that rule; the per-sector bookkeeping is
//! [`PerSectorSpec`]'s. Invariant: a sector is open exactly when an
//! interrupted write touched it and no completed write has since.

use super::common::{PerSectorSpec, SectorRule};
use super::ContractKind;
use crate::data::Observed;

/// The sync contract's model.
pub type SyncSpec = PerSectorSpec<SyncRule>;

/// What the sync contract settles: each completed write.
#[derive(Clone, Copy, Debug, Default)]
pub struct SyncRule;

impl SectorRule for SyncRule {
    const KIND: ContractKind = ContractKind::Sync;
    const OPEN_WHY: &'static str = "an interrupted write (old or new value)";
    const DIGEST_ROTATION: u32 = 29;

    fn settled_why(want: Observed) -> String {
        format!("its last completed write left {want}")
    }

    fn write(model: &mut SyncSpec, lba: u64, versions: &[u32]) {
        for (i, &v) in versions.iter().enumerate() {
            model.settle(lba + i as u64, v);
        }
    }

    fn flush(_: &mut SyncSpec) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Interrupted, Spec};

    #[test]
    fn completed_writes_are_durable_and_interrupted_ones_old_or_new() {
        let mut s = SyncSpec::new(8);
        s.write(0, &[1, 2]);
        s.interrupted(Interrupted::Nothing);
        s.recovered();
        assert!(s.check(0, Observed::Version(0)).is_err());
        s.check(1, Observed::Version(2)).unwrap();
        s.interrupted(Interrupted::Write {
            lba: 0,
            versions: &[3, 4],
        });
        s.recovered();
        s.check(0, Observed::Version(3)).unwrap();
        s.check(1, Observed::Version(2)).unwrap();
        assert!(s.check(1, Observed::Version(4)).is_err(), "pinned");
        s.write(1, &[5]);
        s.check(1, Observed::Version(5)).unwrap();
    }
}
