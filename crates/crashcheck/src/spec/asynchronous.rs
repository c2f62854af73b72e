//! `AsyncSpec`: the asynchronous-disk contract of the async baseline.
//!
//! Flushed data is durable. After a crash, a sector written since the last
//! completed flush holds its value at that flush or any value written since
//! (crashes in between do not restart the window: "since the last flush"
//! spans them). A read after recovery pins the sector's current value until
//! the next crash; the next completed flush makes the pinned value durable.
//!
//! This file owns only that rule; the per-sector bookkeeping is
//! [`PerSectorSpec`]'s. Invariant: a sector is open exactly when it was
//! written (or its write interrupted) since the last completed flush, or
//! its durable value is still unsettled.

use super::common::{PerSectorSpec, SectorRule};
use super::ContractKind;
use crate::data::Observed;

/// The async contract's model.
pub type AsyncSpec = PerSectorSpec<AsyncRule>;

/// What the async contract settles: a flush, every pinned value.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsyncRule;

impl SectorRule for AsyncRule {
    const KIND: ContractKind = ContractKind::Async;
    const OPEN_WHY: &'static str =
        "the async contract (value at the last flush or any written since)";
    const DIGEST_ROTATION: u32 = 17;

    fn settled_why(want: Observed) -> String {
        format!("it was durable as {want} (flushed, not written since)")
    }

    /// A completed write adds its value to what a crash may leave, and pins
    /// it until the next crash.
    fn write(model: &mut AsyncSpec, lba: u64, versions: &[u32]) {
        for (i, &v) in versions.iter().enumerate() {
            let e = model.open_entry(lba + i as u64);
            e.allow(v);
            e.current = Some(v);
        }
    }

    /// A flush makes every pinned value durable. A sector not read since a
    /// crash stays open: its durable value is still one of the allowed.
    fn flush(model: &mut AsyncSpec) {
        model.settle_pinned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Interrupted, Spec};

    #[test]
    fn any_value_since_the_last_flush_survives_across_crashes() {
        let mut s = AsyncSpec::new(8);
        s.write(0, &[1]);
        s.flush();
        s.write(0, &[2]);
        s.interrupted(Interrupted::Nothing);
        s.recovered();
        s.check(0, Observed::Version(1)).unwrap();
        assert!(
            s.check(0, Observed::Version(2)).is_err(),
            "pinned until the next crash"
        );
        s.write(0, &[3]);
        s.interrupted(Interrupted::Write {
            lba: 0,
            versions: &[4],
        });
        s.recovered();
        // 1 (flushed), 2, 3 (written since, across a crash), 4 (interrupted).
        for v in [1, 2, 3, 4] {
            let mut t = s.clone();
            t.check(0, Observed::Version(v)).unwrap();
        }
        assert!(s.clone().check(0, Observed::Version(0)).is_err());
        assert!(s.clone().check(0, Observed::Garbage).is_err());
        s.check(0, Observed::Version(2)).unwrap();
        s.flush();
        s.interrupted(Interrupted::Nothing);
        s.recovered();
        assert!(
            s.check(0, Observed::Version(1)).is_err(),
            "flushed 2 is durable"
        );
        s.check(0, Observed::Version(2)).unwrap();
    }
}
