//! `SnapshotSpec`: the disk model S of the SCFTL paper (Fig. 4), with
//! epoch barriers.
//!
//! State: `stable`, `volatile` and `wcnt`. Stored sparsely: `stable` maps
//! sectors to non-zero versions, and `volatile` is `stable` overlaid with
//! `epochs` (the sectors each completed barrier since the last flush
//! changed, in order) and then `changed` (the sectors written since the
//! last flush, barrier or recovery), so a flush costs what was written, not
//! the device size.
//!
//! | operation        | Fig. 4                                   | here |
//! |------------------|------------------------------------------|------|
//! | write w(a,d)     | volatile[a] := d, wcnt += 1 (in bounds)  | `write` (a refused `EpochFull` write is not reported: t' = t) |
//! | trim             | (ours) a write of zeros                  | `write` with version 0 |
//! | GC rl / es       | no change                                | nothing |
//! | flush f          | stable := volatile, wcnt := 0            | `flush` |
//! | barrier          | (ours) an ordered, non-durable flush     | `barrier`: `changed` becomes the next of `epochs`, wcnt := 0 |
//! | recovery r       | volatile := stable, wcnt := 0            | `recovered` |
//! | crashed w/rl/es/r| stable unchanged, volatile arbitrary     | `interrupted` |
//! | crashed f^c / barrier | stable := volatile, or unchanged    | `interrupted(Flush | Barrier)`: the target joins `epochs` |
//!
//! Snapshot consistency then says: after a recovery the device is one of
//! the candidate states — `stable`, `stable` overlaid with the first k of
//! `epochs` for each k (the state at each completed barrier after the last
//! completed flush, and the target of an interrupted flush or barrier) —
//! the same one for every sector, never a mixture. The candidate the reads
//! settle on becomes `stable` (a recovery keeps what it recovered).
//!
//! Invariants: `stable` holds no zero versions; `epochs` holds no empty
//! map (an empty epoch is the state before it); `sides` is non-empty
//! exactly between a successful recovery with more than one candidate and
//! the end of its verification, and then has one entry per candidate.

use std::collections::HashMap;

use super::common::{map_digest, Versions};
use super::{ContractKind, Interrupted, Spec};
use crate::data::Observed;

/// Paper Fig. 4 with epoch barriers, sparsely stored.
#[derive(Clone, Debug, Default)]
pub struct SnapshotSpec {
    num_sectors: u64,
    stable: Versions,
    /// The sectors each completed barrier since the last flush (or settled
    /// recovery) changed, in order; after a cut flush or barrier, its
    /// target last.
    epochs: Vec<HashMap<u64, u32>>,
    /// The last of `epochs` is an interrupted flush's or barrier's target
    /// (names which, for messages).
    cut: Option<&'static str>,
    /// Writes since the last flush, barrier or recovery (zeros included).
    changed: HashMap<u64, u32>,
    /// Sector updates since the last flush, barrier or recovery.
    wcnt: u64,
    /// While verifying after a recovery: can the reads so far be candidate
    /// k (0: `stable`; k: `stable` overlaid with `epochs[..k]`)?
    sides: Vec<Side>,
}

/// One candidate state after a crash, during the verification.
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

    /// Sector `lba` in candidate `k` (the state after the first `k` epochs).
    fn candidate_at(&self, k: usize, lba: u64) -> u32 {
        self.epochs[..k]
            .iter()
            .rev()
            .find_map(|e| e.get(&lba).copied())
            .unwrap_or_else(|| self.stable_at(lba))
    }

    /// `volatile[lba]`.
    pub fn volatile_at(&self, lba: u64) -> u32 {
        self.changed
            .get(&lba)
            .copied()
            .unwrap_or_else(|| self.candidate_at(self.epochs.len(), lba))
    }

    /// Write counter since the last flush, barrier or recovery.
    pub fn wcnt(&self) -> u64 {
        self.wcnt
    }

    /// Completed barriers since the last completed flush (or the recovery
    /// that settled the state).
    pub fn barriers(&self) -> usize {
        self.epochs.len() - usize::from(self.cut.is_some())
    }

    /// Names candidate `k`, for messages.
    fn candidate_name(&self, k: usize) -> String {
        if k == 0 {
            "the last completed flush".into()
        } else if k == self.epochs.len() && self.cut.is_some() {
            format!("the interrupted {}", self.cut.unwrap_or("flush"))
        } else {
            format!("barrier {k} after it")
        }
    }

    /// Ends the open epoch (`changed`) as the next of `epochs`.
    fn close_epoch(&mut self) {
        let c = std::mem::take(&mut self.changed);
        if !c.is_empty() {
            self.epochs.push(c);
        }
        self.wcnt = 0;
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
        self.close_epoch();
        for e in std::mem::take(&mut self.epochs) {
            for (lba, v) in e {
                self.stable.set(lba, v);
            }
        }
    }

    fn barrier(&mut self) {
        self.close_epoch();
    }

    fn interrupted(&mut self, op: Interrupted<'_>) {
        let what = match op {
            Interrupted::Flush => Some("flush"),
            Interrupted::Barrier => Some("barrier"),
            _ => None,
        };
        match what {
            // f^c: stable may have become volatile. A second crashed flush
            // cannot come before the recovery that settles the first (the
            // device is down), and `changed` is empty after the first.
            Some(w) if !self.changed.is_empty() => {
                self.close_epoch();
                self.cut = Some(w);
            }
            // Every other crashed operation leaves the candidates as they
            // were; volatile is lost.
            _ => self.changed.clear(),
        }
    }

    fn recovered(&mut self) {
        self.changed.clear();
        self.wcnt = 0;
        self.sides = if self.epochs.is_empty() {
            Vec::new()
        } else {
            vec![Side::default(); self.epochs.len() + 1]
        };
    }

    fn check(&mut self, lba: u64, got: Observed) -> Result<(), String> {
        if !self.sides.is_empty() && self.epochs.iter().any(|e| e.contains_key(&lba)) {
            let g = match got {
                Observed::Version(v) => Some(v),
                Observed::Garbage => None,
            };
            for k in 0..self.sides.len() {
                let want = self.candidate_at(k, lba);
                if g != Some(want) && self.sides[k].viable {
                    let name = self.candidate_name(k);
                    let side = &mut self.sides[k];
                    side.viable = false;
                    side.witness = Some(format!(
                        "sector {lba} reads {got}, not {} as at {name}",
                        Observed::Version(want)
                    ));
                }
            }
            if self.sides.iter().all(|s| !s.viable) {
                let why: Vec<&str> = self
                    .sides
                    .iter()
                    .map(|s| s.witness.as_deref().unwrap_or("?"))
                    .collect();
                return Err(format!(
                    "after a crash the device is none of the states it may return to (the last completed flush, each completed epoch barrier after it, an interrupted flush's or barrier's target), never a mixture: {}",
                    why.join("; ")
                ));
            }
            return Ok(());
        }
        let want = self.volatile_at(lba);
        if got == Observed::Version(want) {
            Ok(())
        } else {
            let src = if self.changed.contains_key(&lba) {
                "the last write"
            } else if self.epochs.iter().any(|e| e.contains_key(&lba)) {
                "the last epoch barrier"
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
        if !self.sides.is_empty() {
            // Every sector of every epoch was read (must_check), so at
            // least one candidate is viable here, and viable candidates
            // agree on every sector: the first one is the state.
            let k = self.sides.iter().position(|s| s.viable).unwrap_or(0);
            let epochs = std::mem::take(&mut self.epochs);
            for e in epochs.into_iter().take(k) {
                for (lba, v) in e {
                    self.stable.set(lba, v);
                }
            }
            self.cut = None;
            self.sides.clear();
        }
        Ok(())
    }

    fn must_check(&self, out: &mut Vec<u64>) {
        for e in &self.epochs {
            out.extend(e.keys().copied());
        }
        out.extend(self.changed.keys().copied());
    }

    fn expected(&self, lba: u64) -> Option<u32> {
        if !self.sides.is_empty() {
            let first = self.stable_at(lba);
            if (1..self.sides.len()).any(|k| self.candidate_at(k, lba) != first) {
                return None;
            }
        }
        Some(self.volatile_at(lba))
    }

    fn digest(&self) -> u64 {
        let s = self.stable.digest();
        let c = map_digest(
            self.changed
                .iter()
                .map(|(k, v)| (k, u64::from(*v) | 1 << 40)),
        );
        let f = self.epochs.iter().enumerate().fold(7u64, |h, (i, m)| {
            let d = map_digest(m.iter().map(|(k, v)| (k, u64::from(*v) | 1 << 41)));
            crate::data::mix64(h ^ d ^ (i as u64) << 56)
        });
        let cut = u64::from(self.cut.is_some());
        crate::data::mix64(s ^ c.rotate_left(21) ^ f.rotate_left(42) ^ cut)
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

    #[test]
    fn a_crash_returns_to_the_flush_or_a_completed_barrier_never_a_mixture() {
        // Flushed: 0 = 1, 1 = 2. Barrier A: 0 = 3. Barrier B: 1 = 4.
        // Interrupted barrier C: 0 = 5.
        let cases = [
            ((1, 2), true),  // the last flush
            ((3, 2), true),  // barrier A
            ((3, 4), true),  // barrier B
            ((5, 4), true),  // the interrupted barrier's target
            ((1, 4), false), // B without A: not a prefix of epochs
            ((5, 2), false), // C without B
        ];
        for ((a, b), ok) in cases {
            let mut s = SnapshotSpec::new(10);
            s.write(0, &[1, 2]);
            s.flush();
            s.write(0, &[3]);
            s.barrier();
            s.write(1, &[4]);
            s.barrier();
            assert_eq!(s.barriers(), 2);
            s.check(0, Observed::Version(3)).unwrap();
            s.write(0, &[5]);
            s.interrupted(Interrupted::Barrier);
            s.recovered();
            let mut must = vec![];
            s.must_check(&mut must);
            must.sort();
            must.dedup();
            assert_eq!(must, vec![0, 1]);
            let r = s
                .check(0, Observed::Version(a))
                .and_then(|_| s.check(1, Observed::Version(b)));
            assert_eq!(r.is_ok(), ok, "{a} {b}");
            if ok {
                s.end_verify().unwrap();
                // The state recovery kept is stable now.
                s.interrupted(Interrupted::Nothing);
                s.recovered();
                s.check(0, Observed::Version(a)).unwrap();
                s.check(1, Observed::Version(b)).unwrap();
            }
        }
    }

    #[test]
    fn a_flush_after_barriers_makes_the_last_state_durable() {
        let mut s = SnapshotSpec::new(10);
        s.write(0, &[1]);
        s.barrier();
        s.write(1, &[2]);
        s.flush();
        assert_eq!(s.barriers(), 0);
        s.write(0, &[3]);
        s.barrier();
        s.interrupted(Interrupted::Nothing);
        s.recovered();
        assert!(s.check(1, Observed::Version(0)).is_err());
        s.check(1, Observed::Version(2)).unwrap();
        assert!(s.check(0, Observed::Garbage).is_err());
    }
}
