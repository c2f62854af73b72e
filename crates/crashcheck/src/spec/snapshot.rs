//! `SnapshotSpec`: the disk model S of the SCFTL paper (Fig. 4).
//!
//! State: `stable`, `volatile` and `wcnt`. Stored sparsely: `stable` maps
//! sectors to non-zero versions, and `volatile` is `stable` overlaid with
//! `changed` (the sectors written since the last flush or recovery), so a
//! flush costs what was written, not the device size.
//!
//! | operation        | Fig. 4                                   | here |
//! |------------------|------------------------------------------|------|
//! | write w(a,d)     | volatile[a] := d, wcnt += 1 (in bounds)  | `write` (a refused `EpochFull` write is not reported: t' = t) |
//! | trim             | (ours) a write of zeros                  | `write` with version 0 |
//! | GC rl / es       | no change                                | nothing |
//! | flush f          | stable := volatile, wcnt := 0            | `flush` |
//! | recovery r       | volatile := stable, wcnt := 0            | `recovered` |
//! | crashed w/rl/es/r| stable unchanged, volatile arbitrary     | `interrupted` |
//! | crashed flush f^c| stable := volatile, or unchanged         | `interrupted(Flush)`: both kept until reads decide |
//!
//! Snapshot consistency then says: after a recovery every sector reads
//! `stable` — one of the two candidates after a crashed flush, the same one
//! for every sector.
//!
//! Invariants: `stable` and `changed` hold no zero versions in `stable`;
//! `flush_candidate` is `Some` only between a crashed flush and the end of
//! the verification after the next successful recovery.

use std::collections::HashMap;

use super::common::{map_digest, Versions};
use super::{ContractKind, Interrupted, Spec};
use crate::data::Observed;

/// Paper Fig. 4, sparsely stored.
#[derive(Clone, Debug, Default)]
pub struct SnapshotSpec {
    num_sectors: u64,
    stable: Versions,
    /// volatile = stable overlaid with `changed` (zeros included).
    changed: HashMap<u64, u32>,
    /// Writes (sector updates) since the last flush or recovery.
    wcnt: u64,
    /// After a crashed flush: the volatile sectors that flush was making
    /// stable (stable-after = stable overlaid with these).
    flush_candidate: Option<HashMap<u64, u32>>,
    /// While verifying after a crashed flush: can the reads so far be the
    /// old stable state (`[0]`) / the flushed state (`[1]`)?
    sides: [Side; 2],
}

/// One candidate state after a crashed flush, during the verification.
#[derive(Clone, Debug)]
struct Side {
    /// No read so far rules it out.
    viable: bool,
    /// The first read that ruled it out.
    witness: Option<String>,
}

impl Default for Side {
    fn default() -> Side {
        Side {
            viable: true,
            witness: None,
        }
    }
}

impl SnapshotSpec {
    pub fn new(num_sectors: u64) -> SnapshotSpec {
        SnapshotSpec {
            num_sectors,
            ..SnapshotSpec::default()
        }
    }

    fn stable_at(&self, lba: u64) -> u32 {
        self.stable.get(lba)
    }

    /// `volatile[lba]`.
    pub fn volatile_at(&self, lba: u64) -> u32 {
        self.changed
            .get(&lba)
            .copied()
            .unwrap_or_else(|| self.stable_at(lba))
    }

    /// Write counter since the last flush or recovery.
    pub fn wcnt(&self) -> u64 {
        self.wcnt
    }
}

impl Spec for SnapshotSpec {
    fn boxed_clone(&self) -> Box<dyn Spec> {
        Box::new(self.clone())
    }

    fn kind(&self) -> ContractKind {
        ContractKind::Snapshot
    }

    fn num_sectors(&self) -> u64 {
        self.num_sectors
    }

    fn reset(&mut self) {
        *self = SnapshotSpec::new(self.num_sectors);
    }

    fn write(&mut self, lba: u64, versions: &[u32]) {
        for (i, &v) in versions.iter().enumerate() {
            self.changed.insert(lba + i as u64, v);
        }
        self.wcnt += versions.len() as u64;
    }

    fn flush(&mut self) {
        let changed = std::mem::take(&mut self.changed);
        for (lba, v) in changed {
            self.stable.set(lba, v);
        }
        self.wcnt = 0;
    }

    fn interrupted(&mut self, op: Interrupted<'_>) {
        if let Interrupted::Flush = op {
            // f^c: stable may have become volatile. A second crashed flush
            // cannot come before the recovery that settles the first.
            if self.flush_candidate.is_none() {
                self.flush_candidate = Some(std::mem::take(&mut self.changed));
            }
        }
        // Every other crashed operation leaves stable unchanged; volatile is
        // lost at the recovery anyway.
    }

    fn recovered(&mut self) {
        self.changed.clear();
        self.wcnt = 0;
        self.sides = Default::default();
    }

    fn check(&mut self, lba: u64, got: Observed) -> Result<(), String> {
        if let Some(cand) = &self.flush_candidate {
            if let Some(&after) = cand.get(&lba) {
                let before = self.stable_at(lba);
                let g = match got {
                    Observed::Version(v) => Some(v),
                    Observed::Garbage => None,
                };
                let wants = [
                    (before, "as before the flush"),
                    (after, "as the flush wrote"),
                ];
                for (side, (want, what)) in self.sides.iter_mut().zip(wants) {
                    if g != Some(want) {
                        side.viable = false;
                        side.witness.get_or_insert_with(|| {
                            format!(
                                "sector {lba} reads {got}, not {} {what}",
                                Observed::Version(want)
                            )
                        });
                    }
                }
                if self.sides.iter().all(|s| !s.viable) {
                    return Err(format!(
                        "after a crash inside a flush the device is neither the snapshot before it nor the one it made durable: {}; {}",
                        self.sides[0].witness.as_deref().unwrap_or("?"),
                        self.sides[1].witness.as_deref().unwrap_or("?")
                    ));
                }
                return Ok(());
            }
        }
        let want = self.volatile_at(lba);
        if got == Observed::Version(want) {
            Ok(())
        } else {
            let src = if self.changed.contains_key(&lba) {
                "the last write"
            } else {
                "the last completed flush"
            };
            Err(format!(
                "sector {lba} reads {got}, but {src} left {}",
                Observed::Version(want)
            ))
        }
    }

    fn end_verify(&mut self) -> Result<(), String> {
        if let Some(cand) = self.flush_candidate.take() {
            // All candidate sectors were read (must_check), so at least one
            // side is viable here; the flushed side wins only if the old one
            // is ruled out (if both are viable they agree on every sector).
            if !self.sides[0].viable && self.sides[1].viable {
                for (lba, v) in cand {
                    self.stable.set(lba, v);
                }
            }
            self.sides = Default::default();
        }
        Ok(())
    }

    fn must_check(&self, out: &mut Vec<u64>) {
        if let Some(c) = &self.flush_candidate {
            out.extend(c.keys().copied());
        }
        out.extend(self.changed.keys().copied());
    }

    fn expected(&self, lba: u64) -> Option<u32> {
        match &self.flush_candidate {
            Some(c) if c.contains_key(&lba) && c[&lba] != self.stable_at(lba) => None,
            _ => Some(self.volatile_at(lba)),
        }
    }

    fn digest(&self) -> u64 {
        let s = self.stable.digest();
        let c = map_digest(
            self.changed
                .iter()
                .map(|(k, v)| (k, u64::from(*v) | 1 << 40)),
        );
        let f = self.flush_candidate.as_ref().map_or(7, |m| {
            map_digest(m.iter().map(|(k, v)| (k, u64::from(*v) | 1 << 41)))
        });
        crate::data::mix64(s ^ c.rotate_left(21) ^ f.rotate_left(42))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_4_write_flush_crash_recover() {
        let mut s = SnapshotSpec::new(10);
        s.write(1, &[5, 6]);
        assert_eq!(s.wcnt(), 2);
        s.flush();
        s.write(1, &[7]);
        s.interrupted(Interrupted::Write {
            lba: 2,
            versions: &[8],
        });
        s.recovered();
        s.check(1, Observed::Version(5)).unwrap();
        s.check(2, Observed::Version(6)).unwrap();
        assert!(s.check(1, Observed::Version(7)).is_err());
        s.end_verify().unwrap();
    }

    #[test]
    fn crashed_flush_is_one_snapshot_or_the_other_never_a_mixture() {
        for (a, b, ok) in [(1, 2, true), (3, 4, true), (3, 2, false), (1, 4, false)] {
            let mut s = SnapshotSpec::new(10);
            s.write(0, &[1, 2]);
            s.flush();
            s.write(0, &[3, 4]);
            s.interrupted(Interrupted::Flush);
            s.interrupted(Interrupted::Recovery);
            s.recovered();
            let mut must = vec![];
            s.must_check(&mut must);
            must.sort();
            assert_eq!(must, vec![0, 1]);
            let r = s
                .check(0, Observed::Version(a))
                .and_then(|_| s.check(1, Observed::Version(b)));
            assert_eq!(r.is_ok(), ok, "{a} {b}");
            if ok {
                s.end_verify().unwrap();
                // The chosen snapshot is now stable.
                s.check(0, Observed::Version(a)).unwrap();
                s.write(5, &[9]);
                s.interrupted(Interrupted::Nothing);
                s.recovered();
                s.check(1, Observed::Version(b)).unwrap();
                s.check(5, Observed::Version(0)).unwrap();
            }
        }
    }
}
