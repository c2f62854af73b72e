//! `PrefixSpec`: the order-preserving contract of OPTR (ATC'19 §2).
//!
//! History: the acknowledged requests in order (one multi-sector
//! `write(lba, data)` call or one trim each). After a crash the device
//! equals the state after some *prefix* of the history, and that prefix
//! holds every request acknowledged before the last completed flush. A
//! request is all-or-nothing, whatever its size; the request a power cut
//! interrupted may be in or out (it is appended to the history and the
//! candidate prefixes may end with it). A crashed flush changes nothing:
//! its prefix may or may not have become durable, and both are already
//! candidates.
//!
//! Representation. `base` is the state at the last completed flush (the
//! durable floor), `history` the requests since, and `by_sector` indexes
//! them by sector (request number and version, in request order), so the
//! state after prefix `j` at sector `s` is the version of the last entry of
//! `s` with request number `<= j`, else `base`. A flush folds the history
//! into `base`, so the model holds only what was written since the last
//! flush.
//!
//! After a crash, the candidates are prefixes `0..=len`. Each read after
//! the recovery narrows them: the value a sector reads holds for a set of
//! prefixes that is a union of ranges (a version is in effect from the
//! request that wrote it to the next request of that sector; zeros may be
//! in effect several times, around trims), and the candidates become the
//! intersection, kept as a short list of disjoint ranges. No candidate
//! left is a violation. The reads `must_check` asks for cover every sector
//! the history touched, so the candidates left at the end of the
//! verification are all the same state; the model keeps the longest one,
//! `P`, drops the requests after it, and the history goes on from `P`.
//! `P` is not durable yet: until the next completed flush a later crash
//! may fall back to any prefix from the floor on.
//!
//! Invariants: `candidates` is `None` exactly while the device is up and
//! verified (reads then check the state after the whole history); its
//! ranges are disjoint, sorted and within `0..=history.len()`;
//! `by_sector` lists each sector's entries in increasing request order
//! and references only requests in `history`.

use std::collections::HashMap;

use super::common::Versions;
use super::{ContractKind, Interrupted, Spec};
use crate::data::{mix64, Observed};

/// Prefix lengths `lo..=hi`.
type Range = (u32, u32);

/// One acknowledged (or interrupted) request.
#[derive(Clone, Debug)]
struct Request {
    lba: u64,
    /// Version of each sector (all 0 for a trim).
    versions: Vec<u32>,
}

/// The prefix contract's model (see the file comment).
#[derive(Clone, Debug, Default)]
pub struct PrefixSpec {
    num_sectors: u64,
    /// The state after the last completed flush.
    base: Versions,
    /// Requests since then; request number `i` (1-based) is `history[i-1]`.
    history: Vec<Request>,
    /// Per sector: (request number, version) of the requests since the
    /// last flush that touched it, in order.
    by_sector: HashMap<u64, Vec<(u32, u32)>>,
    /// After a crash: the prefixes the reads so far allow.
    candidates: Option<Vec<Range>>,
    /// The first read that ruled candidates out, for messages.
    narrowed_by: Vec<String>,
}

impl PrefixSpec {
    pub fn new(num_sectors: u64) -> PrefixSpec {
        PrefixSpec {
            num_sectors,
            ..PrefixSpec::default()
        }
    }

    fn len(&self) -> u32 {
        self.history.len() as u32
    }

    fn push(&mut self, lba: u64, versions: &[u32]) {
        self.history.push(Request {
            lba,
            versions: versions.to_vec(),
        });
        let n = self.len();
        for (i, &v) in versions.iter().enumerate() {
            self.by_sector
                .entry(lba + i as u64)
                .or_default()
                .push((n, v));
        }
    }

    /// Sector `lba` after the whole history.
    fn current(&self, lba: u64) -> u32 {
        match self.by_sector.get(&lba).and_then(|e| e.last()) {
            Some(&(_, v)) => v,
            None => self.base.get(lba),
        }
    }

    /// The prefixes (within `0..=len`) after which sector `lba` holds `v`.
    fn ranges_holding(&self, lba: u64, v: u32) -> Vec<Range> {
        let entries = self.by_sector.get(&lba).map_or(&[][..], |e| &e[..]);
        let mut out = Vec::new();
        let mut from = 0u32;
        let mut value = self.base.get(lba);
        for &(n, w) in entries {
            if value == v && from < n {
                out.push((from, n - 1));
            }
            from = n;
            value = w;
        }
        if value == v {
            out.push((from, self.len()));
        }
        out
    }

    /// Drops the requests after prefix `p` (a recovery settled on it).
    fn truncate(&mut self, p: u32) {
        for r in self.history.drain(p as usize..) {
            for i in 0..r.versions.len() as u64 {
                if let Some(e) = self.by_sector.get_mut(&(r.lba + i)) {
                    e.retain(|&(n, _)| n <= p);
                    if e.is_empty() {
                        self.by_sector.remove(&(r.lba + i));
                    }
                }
            }
        }
    }

    /// "prefixes 3..=5 or 8" (request counts since the last flush).
    fn describe(ranges: &[Range]) -> String {
        let parts: Vec<String> = ranges
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}..={b}")
                }
            })
            .collect();
        parts.join(", ")
    }
}

/// The intersection of two sorted lists of disjoint ranges.
fn intersect(a: &[Range], b: &[Range]) -> Vec<Range> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

impl Spec for PrefixSpec {
    fn boxed_clone(&self) -> Box<dyn Spec> {
        Box::new(self.clone())
    }

    fn kind(&self) -> ContractKind {
        ContractKind::Prefix
    }

    fn num_sectors(&self) -> u64 {
        self.num_sectors
    }

    fn reset(&mut self) {
        *self = PrefixSpec::new(self.num_sectors);
    }

    fn write(&mut self, lba: u64, versions: &[u32]) {
        self.push(lba, versions);
    }

    /// Everything acknowledged so far is durable: the history folds into
    /// the floor.
    fn flush(&mut self) {
        for r in std::mem::take(&mut self.history) {
            for (i, &v) in r.versions.iter().enumerate() {
                self.base.set(r.lba + i as u64, v);
            }
        }
        self.by_sector.clear();
    }

    /// The interrupted request joins the history (a candidate prefix may
    /// end with it); any crash reopens every prefix from the floor on. A
    /// crashed flush or recovery adds nothing: its effect, if any, is one
    /// of those prefixes.
    fn interrupted(&mut self, op: Interrupted<'_>) {
        if let Interrupted::Write { lba, versions } = op {
            if self.candidates.is_none() {
                self.push(lba, versions);
            }
        }
        self.candidates = Some(vec![(0, self.len())]);
        self.narrowed_by.clear();
    }

    fn recovered(&mut self) {
        if self.candidates.is_none() {
            // Reopened without a crash reported (cannot happen through the
            // executor): every prefix is still a candidate.
            self.candidates = Some(vec![(0, self.len())]);
        }
    }

    fn check(&mut self, lba: u64, got: Observed) -> Result<(), String> {
        let Some(cands) = &self.candidates else {
            let want = self.current(lba);
            return if got == Observed::Version(want) {
                Ok(())
            } else {
                let src = if self.by_sector.contains_key(&lba) {
                    "the last request that wrote it"
                } else {
                    "the last completed flush"
                };
                Err(format!(
                    "sector {lba} reads {got}, but {src} left {}",
                    Observed::Version(want)
                ))
            };
        };
        let holding = match got {
            Observed::Version(v) => self.ranges_holding(lba, v),
            Observed::Garbage => Vec::new(),
        };
        let left = intersect(cands, &holding);
        if left.is_empty() {
            let rule = "after a crash the device must be the state after a prefix of the requests since the last completed flush, each request whole";
            let n = self.len();
            return Err(if holding.is_empty() {
                format!(
                    "{rule}: sector {lba} reads {got}, which no prefix of those {n} request(s) leaves"
                )
            } else {
                format!(
                    "{rule}: sector {lba} reads {got}, which prefixes {} (of {n} requests) leave, but earlier reads allow only prefixes {}: {}",
                    Self::describe(&holding),
                    Self::describe(cands),
                    self.narrowed_by.join("; ")
                )
            });
        }
        if left != *cands && self.narrowed_by.len() < 4 {
            self.narrowed_by.push(format!(
                "sector {lba} read {got} (prefixes {})",
                Self::describe(&holding)
            ));
        }
        self.candidates = Some(left);
        Ok(())
    }

    /// Settles on the longest prefix the reads allow (every sector the
    /// history touched was read, so all those left are the same state).
    fn end_verify(&mut self) -> Result<(), String> {
        if let Some(c) = self.candidates.take() {
            let p = c.last().map_or(self.len(), |r| r.1);
            self.truncate(p);
            self.narrowed_by.clear();
        }
        Ok(())
    }

    fn must_check(&self, out: &mut Vec<u64>) {
        if self.candidates.is_some() {
            out.extend(self.by_sector.keys().copied());
        }
    }

    fn expected(&self, lba: u64) -> Option<u32> {
        let Some(c) = &self.candidates else {
            return Some(self.current(lba));
        };
        // The values some candidate prefix leaves; one, or it is open.
        let mut values: Vec<u32> = vec![self.base.get(lba)];
        if let Some(e) = self.by_sector.get(&lba) {
            values.extend(e.iter().map(|&(_, v)| v));
        }
        values.sort_unstable();
        values.dedup();
        let mut possible = values
            .into_iter()
            .filter(|&v| !intersect(c, &self.ranges_holding(lba, v)).is_empty());
        match (possible.next(), possible.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    }

    fn digest(&self) -> u64 {
        let b = self.base.digest();
        let h = self.history.iter().fold(0u64, |acc, r| {
            let v = r
                .versions
                .iter()
                .fold(mix64(r.lba), |h, &v| mix64(h ^ u64::from(v)));
            mix64(acc ^ v)
        });
        let c = self.candidates.as_ref().map_or(3, |c| {
            c.iter().fold(5u64, |h, &(a, b)| {
                mix64(h ^ (u64::from(a) << 32 | u64::from(b)))
            })
        });
        mix64(b ^ h.rotate_left(13) ^ c.rotate_left(31))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: u32) -> Observed {
        Observed::Version(x)
    }

    #[test]
    fn a_crash_leaves_a_prefix_never_a_mixture() {
        let mut s = PrefixSpec::new(16);
        s.write(0, &[1, 2]);
        s.flush();
        s.write(0, &[3, 4]); // request 1
        s.write(4, &[5]); // request 2
        s.interrupted(Interrupted::Write {
            lba: 8,
            versions: &[6, 7],
        }); // request 3
        s.recovered();
        let mut must = vec![];
        s.must_check(&mut must);
        must.sort();
        assert_eq!(must, vec![0, 1, 4, 8, 9]);
        // Prefix 2: requests 1 and 2 in, the interrupted one out.
        let mut t = s.clone();
        for (l, x) in [(0, 3), (1, 4), (4, 5), (8, 0), (9, 0)] {
            t.check(l, v(x)).unwrap();
        }
        t.end_verify().unwrap();
        t.check(8, v(0)).unwrap();
        // Request 1 is atomic: new first sector, old second.
        let mut t = s.clone();
        t.check(0, v(3)).unwrap();
        assert!(t.check(1, v(2)).is_err());
        // Request 2 in without request 1: out of order.
        let mut t = s.clone();
        t.check(4, v(5)).unwrap();
        assert!(t.check(0, v(1)).is_err());
        // Older than the last completed flush.
        assert!(s.clone().check(0, v(0)).is_err());
        assert!(s.clone().check(0, Observed::Garbage).is_err());
        // The interrupted request in, all of it.
        let mut t = s.clone();
        t.check(9, v(7)).unwrap();
        assert!(t.check(8, v(0)).is_err());
        t.check(8, v(6)).unwrap();
        t.check(4, v(5)).unwrap();
    }

    #[test]
    fn after_a_recovery_the_history_goes_on_from_the_prefix_it_chose() {
        let mut s = PrefixSpec::new(16);
        s.write(0, &[1]); // 1
        s.write(1, &[2]); // 2
        s.write(2, &[3]); // 3
        s.interrupted(Interrupted::Nothing);
        s.recovered();
        s.check(0, v(1)).unwrap();
        s.check(1, v(2)).unwrap();
        s.check(2, v(0)).unwrap();
        s.end_verify().unwrap();
        // Request 3 is gone; the history is 1, 2, then 4.
        s.check(2, v(0)).unwrap();
        s.write(3, &[4]);
        s.interrupted(Interrupted::Nothing);
        s.recovered();
        // Not flushed yet: any prefix of 1, 2, 4 from the floor on.
        for (reads, ok) in [
            (&[(0, 0), (1, 0), (2, 0), (3, 0)][..], true),
            (&[(0, 1), (1, 0), (2, 0), (3, 0)][..], true),
            (&[(0, 1), (1, 2), (2, 0), (3, 4)][..], true),
            (&[(0, 1), (1, 2), (2, 3), (3, 0)][..], false),
            (&[(0, 0), (1, 0), (2, 0), (3, 4)][..], false),
        ] {
            let mut t = s.clone();
            let r = reads.iter().try_for_each(|&(l, x)| t.check(l, v(x)));
            assert_eq!(r.is_ok(), ok, "{reads:?}");
        }
        s.check(0, v(1)).unwrap();
        s.check(1, v(2)).unwrap();
        s.check(3, v(4)).unwrap();
        s.end_verify().unwrap();
        s.flush();
        s.interrupted(Interrupted::Flush);
        s.recovered();
        assert!(s.clone().check(3, v(0)).is_err(), "flushed");
        s.check(3, v(4)).unwrap();
    }

    #[test]
    fn trims_make_zeros_hold_for_several_ranges() {
        let mut s = PrefixSpec::new(8);
        s.write(0, &[1, 2]); // 1
        s.write(0, &[0]); // 2 (trim of sector 0)
        s.write(1, &[3]); // 3
        s.interrupted(Interrupted::Flush);
        s.recovered();
        // Zeros at 0 hold for prefixes 0 and 2..=3; sector 1 then narrows.
        let mut t = s.clone();
        t.check(0, v(0)).unwrap();
        t.check(1, v(3)).unwrap();
        t.end_verify().unwrap();
        let mut t = s.clone();
        t.check(0, v(0)).unwrap();
        t.check(1, v(0)).unwrap();
        let mut t = s.clone();
        t.check(0, v(0)).unwrap();
        t.check(1, v(2)).unwrap(); // prefix 2
        assert_eq!(t.expected(0), Some(0));
        t.end_verify().unwrap();
        t.check(1, v(2)).unwrap();
    }
}
