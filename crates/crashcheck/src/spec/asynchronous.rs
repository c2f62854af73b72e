//! `AsyncSpec`: the asynchronous-disk contract of the async baseline.
//!
//! Flushed data is durable. After a crash, a sector written since the last
//! completed flush holds its value at that flush or any value written since
//! (crashes in between do not restart the window: "since the last flush"
//! spans them). A read after recovery pins the sector's current value until
//! the next crash; the next completed flush makes the pinned value durable.
//!
//! Invariants: `known` holds no zero versions; a sector is in `open` exactly
//! when it was written (or its write interrupted) since the last completed
//! flush, or its durable value is still unsettled.

use std::collections::HashMap;

use super::{map_digest, ContractKind, Interrupted, OpenSector, Spec};
use crate::data::Observed;

#[derive(Clone, Debug, Default)]
pub struct AsyncSpec {
    num_sectors: u64,
    /// Durable, settled values of sectors not in `open`.
    known: HashMap<u64, u32>,
    open: HashMap<u64, OpenSector>,
}

impl AsyncSpec {
    pub fn new(num_sectors: u64) -> AsyncSpec {
        AsyncSpec {
            num_sectors,
            ..AsyncSpec::default()
        }
    }

    fn open_entry(&mut self, lba: u64) -> &mut OpenSector {
        let base = self.known.get(&lba).copied().unwrap_or(0);
        self.open.entry(lba).or_insert_with(|| OpenSector {
            allowed: vec![base],
            current: Some(base),
        })
    }

    fn set_known(&mut self, lba: u64, v: u32) {
        if v == 0 {
            self.known.remove(&lba);
        } else {
            self.known.insert(lba, v);
        }
    }
}

impl Spec for AsyncSpec {
    fn kind(&self) -> ContractKind {
        ContractKind::Async
    }

    fn num_sectors(&self) -> u64 {
        self.num_sectors
    }

    fn reset(&mut self) {
        *self = AsyncSpec::new(self.num_sectors);
    }

    fn write(&mut self, lba: u64, versions: &[u32]) {
        for (i, &v) in versions.iter().enumerate() {
            let e = self.open_entry(lba + i as u64);
            e.allow(v);
            e.current = Some(v);
        }
    }

    fn flush(&mut self) {
        let open = std::mem::take(&mut self.open);
        for (lba, e) in open {
            match e.current {
                Some(v) => self.set_known(lba, v),
                // Never read since a crash: the durable value is still one
                // of the allowed ones.
                None => {
                    self.open.insert(lba, e);
                }
            }
        }
    }

    fn interrupted(&mut self, op: Interrupted<'_>) {
        if let Interrupted::Write { lba, versions } = op {
            for (i, &v) in versions.iter().enumerate() {
                self.open_entry(lba + i as u64).allow(v);
            }
        }
        for e in self.open.values_mut() {
            e.current = None;
        }
    }

    fn recovered(&mut self) {}

    fn check(&mut self, lba: u64, got: Observed) -> Result<(), String> {
        if let Some(e) = self.open.get_mut(&lba) {
            return e.check(
                lba,
                got,
                "the async contract (value at the last flush or any written since)",
            );
        }
        let want = self.known.get(&lba).copied().unwrap_or(0);
        if got == Observed::Version(want) {
            Ok(())
        } else {
            Err(format!(
                "sector {lba} reads {got}, but it was durable as {} (flushed, not written since)",
                Observed::Version(want)
            ))
        }
    }

    fn end_verify(&mut self) -> Result<(), String> {
        Ok(())
    }

    fn must_check(&self, out: &mut Vec<u64>) {
        out.extend(self.open.keys().copied());
    }

    fn expected(&self, lba: u64) -> Option<u32> {
        match self.open.get(&lba) {
            Some(e) => e.current,
            None => Some(self.known.get(&lba).copied().unwrap_or(0)),
        }
    }

    fn digest(&self) -> u64 {
        let k = map_digest(self.known.iter().map(|(k, v)| (k, u64::from(*v))));
        let o = map_digest(self.open.iter().map(|(k, e)| {
            let mut a = e.allowed.clone();
            a.sort_unstable();
            let h = a
                .iter()
                .fold(0u64, |h, &v| crate::data::mix64(h ^ u64::from(v)));
            (k, h ^ e.current.map_or(u64::MAX, u64::from))
        }));
        crate::data::mix64(k ^ o.rotate_left(17))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
