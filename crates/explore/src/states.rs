//! Which crash states a disk contract allows after a trace, and which of
//! them hold the same content.
//!
//! A state is named by how many of the trace's ops it keeps in order and
//! which writes among them it drops: [`State`] `{ upto, dropped }` holds
//! `ops[0..upto]` applied, except the writes in `dropped`, which are all
//! after the last flush before `upto` (a flushed write is never dropped).
//! Its text form, the `--state` of a replay command, is `UPTO` or
//! `UPTO-D1,D2,...`.
//!
//! The contracts (the SCFTL paper, §2 and §4):
//! * **snapshot** (SCFTL): the state at each flush, and at each internal
//!   epoch barrier, with nothing dropped. One state per flush: crash
//!   behavior is determined.
//! * **prefix** (an order-preserving disk, e.g. OPTR): the state after each
//!   write, with nothing dropped.
//! * **async** (an ordinary disk with a volatile cache): after each flush,
//!   any subset of the writes that follow it until the next flush.
//!   Enumerated when an interval holds at most `enumerate_bits` writes;
//!   past that, every prefix of the interval, every single write dropped,
//!   and `samples` seeded random subsets.
//!
//! Granularity: a state keeps or drops whole device writes (one NBD write
//! is one or a few device writes: SCFTL splits a request only at epoch
//! barriers). A device that tears a write inside itself is outside every
//! contract here.

use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

use rand::{Rng, SeedableRng};

use crate::trace::{Op, Trace};

/// A disk's crash contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Contract {
    Snapshot,
    Prefix,
    Async,
}

impl Contract {
    pub const ALL: [Contract; 3] = [Contract::Snapshot, Contract::Prefix, Contract::Async];

    pub fn name(self) -> &'static str {
        match self {
            Contract::Snapshot => "snapshot",
            Contract::Prefix => "prefix",
            Contract::Async => "async",
        }
    }

    pub fn parse(s: &str) -> Result<Contract, String> {
        Contract::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown contract `{s}` (snapshot, prefix, async)"))
    }
}

/// A crash state (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    pub upto: usize,
    pub dropped: Vec<usize>,
}

impl State {
    pub fn prefix(upto: usize) -> State {
        State {
            upto,
            dropped: Vec::new(),
        }
    }

    /// `UPTO` or `UPTO-D1,D2`.
    pub fn id(&self) -> String {
        if self.dropped.is_empty() {
            self.upto.to_string()
        } else {
            let d: Vec<String> = self.dropped.iter().map(|d| d.to_string()).collect();
            format!("{}-{}", self.upto, d.join(","))
        }
    }

    /// Parses [`State::id`]'s form and checks it against `trace`: `upto`
    /// within the ops, each dropped op a write after the last flush before
    /// `upto`.
    pub fn parse(s: &str, trace: &Trace) -> Result<State, String> {
        let bad = || format!("--state `{s}`: expected UPTO or UPTO-D1,D2,... (op numbers)");
        let (u, d) = match s.split_once('-') {
            Some((u, d)) => (u, Some(d)),
            None => (s, None),
        };
        let upto: usize = u.trim().parse().map_err(|_| bad())?;
        let mut dropped = Vec::new();
        for x in d.into_iter().flat_map(|d| d.split(',')) {
            dropped.push(x.trim().parse::<usize>().map_err(|_| bad())?);
        }
        dropped.sort_unstable();
        dropped.dedup();
        let st = State { upto, dropped };
        st.validate(trace)
            .map_err(|e| format!("--state `{s}`: {e}"))?;
        Ok(st)
    }

    /// Whether the state is one some disk could hold after `trace`.
    pub fn validate(&self, trace: &Trace) -> Result<(), String> {
        if self.upto > trace.ops.len() {
            return Err(format!("the trace has {} ops", trace.ops.len()));
        }
        let flushed = last_flush_before(trace, self.upto);
        for &d in &self.dropped {
            if d >= self.upto || d < flushed || !trace.ops[d].op.changes() {
                return Err(format!(
                    "op {d} is not a write between the last flush (op {}) and op {}",
                    flushed.saturating_sub(1),
                    self.upto
                ));
            }
        }
        Ok(())
    }

    /// Writes in `ops[flush..upto]` the state keeps? Whether it keeps op `i`.
    pub fn keeps(&self, i: usize) -> bool {
        i < self.upto && self.dropped.binary_search(&i).is_err()
    }
}

/// Index just past the last flush in `ops[0..upto]` (0 if none).
pub fn last_flush_before(trace: &Trace, upto: usize) -> usize {
    trace.ops[..upto]
        .iter()
        .rposition(|e| e.op == Op::Flush)
        .map_or(0, |i| i + 1)
}

/// Bounds on the async contract's enumeration.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Intervals with at most this many writes are enumerated whole
    /// (2^bits states).
    pub enumerate_bits: u32,
    /// Random subsets per larger interval.
    pub samples: usize,
    pub seed: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            enumerate_bits: 10,
            samples: 256,
            seed: 1,
        }
    }
}

/// The states of one contract after a trace, one per distinct content.
#[derive(Debug)]
pub struct Plan {
    pub contract: Contract,
    /// Distinct states, with their content fingerprints, in trace order.
    pub states: Vec<(State, u64)>,
    /// How many states the contract allows (before removing duplicates);
    /// for async, sum over intervals of 2^writes, as a float.
    pub possible: f64,
    /// States listed before removing duplicates.
    pub listed: usize,
    /// Whether some interval was sampled rather than enumerated.
    pub sampled: bool,
}

/// Content fingerprints of states (see [`Fingerprints::of`]).
pub struct Fingerprints<'t> {
    trace: &'t Trace,
    /// Per op, the hash of each sector it writes (0: zeros).
    sector_hash: Vec<Vec<u64>>,
}

fn mix(sector: u64, h: u64) -> u64 {
    if h == 0 {
        return 0;
    }
    // splitmix64 of the pair.
    let mut z = sector.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ h.rotate_left(29);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn hash_sectors(trace: &Trace, op: &Op) -> Vec<u64> {
    match op {
        Op::Write {
            data: Some(r),
            count,
            ..
        } => trace.data[r.clone()]
            .chunks(trace.sector_size)
            .take(*count as usize)
            .map(|s| {
                if s.iter().all(|&b| b == 0) {
                    0
                } else {
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    h.write(s);
                    h.finish() | 1
                }
            })
            .collect(),
        Op::Write { count, .. } | Op::Trim { count, .. } => vec![0; *count as usize],
        _ => Vec::new(),
    }
}

/// A device's content as sector hashes (sectors absent: zeros), and its
/// fingerprint: the XOR over sectors of `mix(sector, hash)`.
#[derive(Clone, Default)]
struct Content {
    map: HashMap<u64, u64>,
    fp: u64,
}

impl Content {
    fn set(&mut self, s: u64, h: u64) {
        let old = self.map.get(&s).copied().unwrap_or(0);
        self.fp ^= mix(s, old) ^ mix(s, h);
        if h == 0 {
            self.map.remove(&s);
        } else {
            self.map.insert(s, h);
        }
    }
}

impl<'t> Fingerprints<'t> {
    pub fn new(trace: &'t Trace) -> Fingerprints<'t> {
        let sector_hash = trace
            .ops
            .iter()
            .map(|e| hash_sectors(trace, &e.op))
            .collect();
        Fingerprints { trace, sector_hash }
    }

    fn base(&self) -> Content {
        let mut c = Content::default();
        for e in &self.trace.base {
            let (lba, _) = e.op.range().expect("base entries are writes");
            for (k, h) in hash_sectors(self.trace, &e.op).into_iter().enumerate() {
                c.set(lba + k as u64, h);
            }
        }
        c
    }

    fn apply(&self, c: &mut Content, i: usize) {
        if let Some((lba, _)) = self.trace.ops[i].op.range() {
            for (k, &h) in self.sector_hash[i].iter().enumerate() {
                c.set(lba + k as u64, h);
            }
        }
    }

    /// `base` with the ops `keep` applied on top, as a fingerprint,
    /// without copying `base`.
    fn with(&self, base: &Content, keep: impl Iterator<Item = usize>) -> u64 {
        let mut over: HashMap<u64, u64> = HashMap::new();
        for i in keep {
            if let Some((lba, _)) = self.trace.ops[i].op.range() {
                for (k, &h) in self.sector_hash[i].iter().enumerate() {
                    over.insert(lba + k as u64, h);
                }
            }
        }
        let mut fp = base.fp;
        for (s, h) in over {
            let old = base.map.get(&s).copied().unwrap_or(0);
            fp ^= mix(s, old) ^ mix(s, h);
        }
        fp
    }

    /// The fingerprint of one state (equal content, equal fingerprint;
    /// different content, different fingerprint but for a 2^-64 chance).
    pub fn of(&self, st: &State) -> u64 {
        let flushed = last_flush_before(self.trace, st.upto);
        let mut c = self.base();
        for i in 0..flushed {
            self.apply(&mut c, i);
        }
        self.with(&c, (flushed..st.upto).filter(|&i| st.keeps(i)))
    }
}

/// Lists the distinct states of `contract` after `trace`.
pub fn plan(trace: &Trace, fps: &Fingerprints<'_>, contract: Contract, b: Bounds) -> Plan {
    let mut p = Plan {
        contract,
        states: Vec::new(),
        possible: 0.0,
        listed: 0,
        sampled: false,
    };
    let mut seen = HashSet::new();
    let mut push = |p: &mut Plan, st: State, fp: u64| {
        p.listed += 1;
        if seen.insert(fp) {
            p.states.push((st, fp));
        }
    };
    let mut c = fps.base();
    let ops = &trace.ops;
    match contract {
        Contract::Snapshot | Contract::Prefix => {
            push(&mut p, State::prefix(0), c.fp);
            for (i, e) in ops.iter().enumerate() {
                fps.apply(&mut c, i);
                let point = match contract {
                    Contract::Snapshot => matches!(e.op, Op::Flush | Op::Barrier),
                    _ => e.op.changes(),
                };
                if point {
                    push(&mut p, State::prefix(i + 1), c.fp);
                }
            }
            p.possible = p.listed as f64;
        }
        Contract::Async => {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(b.seed);
            let mut start = 0;
            while start <= ops.len() {
                let end = ops[start..]
                    .iter()
                    .position(|e| e.op == Op::Flush)
                    .map_or(ops.len(), |k| start + k);
                let writes: Vec<usize> = (start..end).filter(|&i| ops[i].op.changes()).collect();
                p.possible += 2f64.powi(writes.len() as i32);
                for keep in subsets(&writes, b, &mut rng, &mut p.sampled) {
                    let upto = keep.last().map_or(start, |&i| i + 1);
                    let dropped: Vec<usize> = writes
                        .iter()
                        .copied()
                        .filter(|&w| w < upto && keep.binary_search(&w).is_err())
                        .collect();
                    let fp = fps.with(&c, keep.iter().copied());
                    push(&mut p, State { upto, dropped }, fp);
                }
                // Advance to the state after the flush that ends the interval.
                for i in start..(end + 1).min(ops.len()) {
                    fps.apply(&mut c, i);
                }
                start = end + 1;
            }
        }
    }
    p
}

/// The subsets of `writes` (each sorted) the async contract checks.
fn subsets(writes: &[usize], b: Bounds, rng: &mut impl Rng, sampled: &mut bool) -> Vec<Vec<usize>> {
    let n = writes.len();
    if n as u32 <= b.enumerate_bits {
        return (0u64..1 << n)
            .map(|mask| {
                (0..n)
                    .filter(|k| mask >> k & 1 == 1)
                    .map(|k| writes[k])
                    .collect()
            })
            .collect();
    }
    *sampled = true;
    let mut out: Vec<Vec<usize>> = (0..=n).map(|j| writes[..j].to_vec()).collect();
    for k in 0..n {
        out.push(writes.iter().copied().filter(|&w| w != writes[k]).collect());
    }
    for _ in 0..b.samples {
        out.push(
            writes
                .iter()
                .copied()
                .filter(|_| rng.gen_bool(0.5))
                .collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Entry;

    fn trace(ops: Vec<Op>) -> Trace {
        let mut t = Trace {
            sector_size: 512,
            num_sectors: 16,
            base: Vec::new(),
            ops: Vec::new(),
            data: Vec::new(),
            ended: true,
            ignored_tail: None,
        };
        for op in ops {
            t.ops.push(Entry { op, origin: 1 });
        }
        t
    }

    fn write(t: &mut Trace, lba: u64, byte: u8) {
        let start = t.data.len();
        t.data.extend(std::iter::repeat_n(byte, 512));
        t.ops.push(Entry {
            op: Op::Write {
                lba,
                count: 1,
                data: Some(start..t.data.len()),
            },
            origin: 1,
        });
    }

    #[test]
    fn the_contracts_nest_and_count_as_the_paper_says() {
        // w0 w1 w2 FLUSH w3 w4 (n writes after a flush: 2^n async states,
        // n+1 prefix states, one snapshot state).
        let mut t = trace(vec![]);
        for (lba, b) in [(0, 1), (1, 2), (2, 3)] {
            write(&mut t, lba, b);
        }
        t.ops.push(Entry {
            op: Op::Flush,
            origin: 1,
        });
        write(&mut t, 3, 4);
        write(&mut t, 4, 5);
        let f = Fingerprints::new(&t);
        let b = Bounds::default();
        let snap = plan(&t, &f, Contract::Snapshot, b);
        let pre = plan(&t, &f, Contract::Prefix, b);
        let asy = plan(&t, &f, Contract::Async, b);
        assert_eq!(snap.states.len(), 2, "the base and the flush");
        assert_eq!(pre.states.len(), 6, "the base and after each of 5 writes");
        assert_eq!(asy.possible, 8.0 + 4.0);
        // The flush state appears in both intervals (all of the first,
        // none of the second): 12 listed, 11 distinct.
        assert_eq!(asy.states.len(), 11);
        let fa: HashSet<u64> = asy.states.iter().map(|s| s.1).collect();
        for (st, fp) in snap.states.iter().chain(&pre.states) {
            assert!(fa.contains(fp), "state {} is an async state too", st.id());
            assert_eq!(f.of(st), *fp);
        }
        for (st, fp) in &asy.states {
            assert_eq!(f.of(st), *fp, "{}", st.id());
            st.validate(&t).unwrap();
        }
    }

    #[test]
    fn overwrites_make_equal_states_and_ids_round_trip() {
        let mut t = trace(vec![]);
        write(&mut t, 0, 7);
        write(&mut t, 0, 7);
        let f = Fingerprints::new(&t);
        let asy = plan(&t, &f, Contract::Async, Bounds::default());
        // {}, {w0}, {w1}, {w0,w1}: the last three hold the same content.
        assert_eq!(asy.listed, 4);
        assert_eq!(asy.states.len(), 2);
        let st = State {
            upto: 2,
            dropped: vec![0],
        };
        assert_eq!(State::parse(&st.id(), &t).unwrap(), st);
        assert!(State::parse("3", &t).is_err());
        assert!(
            State::parse("1-1", &t).is_err(),
            "a dropped op must be before upto"
        );
    }

    #[test]
    fn a_flushed_write_cannot_be_dropped() {
        let mut t = trace(vec![]);
        write(&mut t, 0, 1);
        t.ops.push(Entry {
            op: Op::Flush,
            origin: 1,
        });
        write(&mut t, 1, 1);
        assert!(State::parse("3-0", &t).is_err());
        assert!(State::parse("3-2", &t).is_ok());
    }

    #[test]
    fn large_intervals_are_sampled_with_prefixes_and_single_drops() {
        let mut t = trace(vec![]);
        for k in 0..14u8 {
            write(&mut t, u64::from(k), k + 1);
        }
        let f = Fingerprints::new(&t);
        let b = Bounds {
            enumerate_bits: 10,
            samples: 20,
            seed: 3,
        };
        let asy = plan(&t, &f, Contract::Async, b);
        assert!(asy.sampled);
        assert_eq!(asy.possible, 16384.0);
        for k in 0..14 {
            let st = State {
                upto: 14,
                dropped: vec![k],
            };
            let st = if k == 13 {
                State {
                    upto: 13,
                    dropped: vec![],
                }
            } else {
                st
            };
            assert!(asy.states.iter().any(|(s, _)| *s == st), "{}", st.id());
        }
    }
}
