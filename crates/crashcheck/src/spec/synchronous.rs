//! `SyncSpec`: the synchronous-disk contract of the sync baseline.
//!
//! Every completed write (and trim) is durable. A write interrupted by a
//! power cut leaves each of its sectors with its old or its new value
//! (independently: the write is not atomic). A read after recovery pins the
//! value until the next crash; a completed write settles the sector. Flush
//! changes nothing.
//!
//! Invariants: `known` holds no zero versions; a sector is in `open` exactly
//! when an interrupted write touched it and no completed write has since.

use std::collections::HashMap;

use super::{map_digest, ContractKind, Interrupted, OpenSector, Spec};
use crate::data::Observed;

#[derive(Clone, Debug, Default)]
pub struct SyncSpec {
    num_sectors: u64,
    known: HashMap<u64, u32>,
    open: HashMap<u64, OpenSector>,
}

impl SyncSpec {
    pub fn new(num_sectors: u64) -> SyncSpec {
        SyncSpec {
            num_sectors,
            ..SyncSpec::default()
        }
    }
}

impl Spec for SyncSpec {
    fn kind(&self) -> ContractKind {
        ContractKind::Sync
    }

    fn num_sectors(&self) -> u64 {
        self.num_sectors
    }

    fn reset(&mut self) {
        *self = SyncSpec::new(self.num_sectors);
    }

    fn write(&mut self, lba: u64, versions: &[u32]) {
        for (i, &v) in versions.iter().enumerate() {
            let l = lba + i as u64;
            self.open.remove(&l);
            if v == 0 {
                self.known.remove(&l);
            } else {
                self.known.insert(l, v);
            }
        }
    }

    fn flush(&mut self) {}

    fn interrupted(&mut self, op: Interrupted<'_>) {
        if let Interrupted::Write { lba, versions } = op {
            for (i, &v) in versions.iter().enumerate() {
                let l = lba + i as u64;
                let old = self.known.get(&l).copied().unwrap_or(0);
                let e = self.open.entry(l).or_insert_with(|| OpenSector {
                    allowed: vec![old],
                    current: None,
                });
                e.allow(v);
            }
        }
        for e in self.open.values_mut() {
            e.current = None;
        }
    }

    fn recovered(&mut self) {}

    fn check(&mut self, lba: u64, got: Observed) -> Result<(), String> {
        if let Some(e) = self.open.get_mut(&lba) {
            return e.check(lba, got, "an interrupted write (old or new value)");
        }
        let want = self.known.get(&lba).copied().unwrap_or(0);
        if got == Observed::Version(want) {
            Ok(())
        } else {
            Err(format!(
                "sector {lba} reads {got}, but its last completed write left {}",
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
        crate::data::mix64(k ^ o.rotate_left(29))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
