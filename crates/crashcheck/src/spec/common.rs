//! What the reference models share.
//!
//! * [`Versions`]: a sparse sector → version map that never stores version
//!   0 (zeros), so a model's size follows the workload, not the device
//!   (the snapshot model's stable state, the per-sector models' settled
//!   values).
//! * [`PerSectorSpec`]: the async and sync models, which judge each sector
//!   on its own. A sector is either *settled* (one allowed value) or
//!   *open* (a set of allowed values, and the value the first read since
//!   the last crash pinned). The two contracts differ only in what a
//!   completed write and a completed flush settle: their [`SectorRule`].
//!
//! Invariants of `PerSectorSpec`: a sector is in `open` or has its value in
//! `known`, never both counted (an open sector's settled value is ignored
//! until it settles again); after a crash no open sector is pinned.

use std::collections::HashMap;
use std::marker::PhantomData;

use super::{ContractKind, Interrupted, Spec};
use crate::data::{mix64, Observed};

/// Order-independent hash of a sparse map.
pub(crate) fn map_digest<'a>(it: impl Iterator<Item = (&'a u64, u64)>) -> u64 {
    it.fold(0u64, |acc, (k, v)| {
        acc.wrapping_add(mix64(k.wrapping_mul(0x1000_0000_01B3) ^ v))
    })
}

/// Sector → version, with version 0 (zeros) stored as absence.
#[derive(Clone, Debug, Default)]
pub(crate) struct Versions(HashMap<u64, u32>);

impl Versions {
    pub fn get(&self, lba: u64) -> u32 {
        self.0.get(&lba).copied().unwrap_or(0)
    }

    pub fn set(&mut self, lba: u64, v: u32) {
        if v == 0 {
            self.0.remove(&lba);
        } else {
            self.0.insert(lba, v);
        }
    }

    pub fn digest(&self) -> u64 {
        map_digest(self.0.iter().map(|(k, v)| (k, u64::from(*v))))
    }
}

/// An open sector: the values it may hold, and the one a read pinned since
/// the last crash.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenSector {
    pub allowed: Vec<u32>,
    pub current: Option<u32>,
}

impl OpenSector {
    pub fn allow(&mut self, v: u32) {
        if !self.allowed.contains(&v) {
            self.allowed.push(v);
        }
    }

    pub fn check(&mut self, lba: u64, got: Observed, why: &str) -> Result<(), String> {
        match (self.current, got) {
            (Some(c), Observed::Version(v)) if c == v => Ok(()),
            (Some(c), _) => Err(format!(
                "sector {lba} reads {got}, but it read {} since the last crash and nothing wrote it since",
                Observed::Version(c)
            )),
            (None, Observed::Version(v)) if self.allowed.contains(&v) => {
                self.current = Some(v);
                Ok(())
            }
            (None, _) => Err(format!(
                "sector {lba} reads {got}; {why} allows only {}",
                describe_set(&self.allowed)
            )),
        }
    }
}

/// "version 3, version 5 or zeros".
pub(crate) fn describe_set(vs: &[u32]) -> String {
    let parts: Vec<String> = vs
        .iter()
        .map(|&v| Observed::Version(v).to_string())
        .collect();
    match parts.len() {
        0 => "nothing".into(),
        1 => parts[0].clone(),
        n => format!("{} or {}", parts[..n - 1].join(", "), parts[n - 1]),
    }
}

/// What one per-sector contract settles, and how it words a violation.
pub trait SectorRule: Clone + std::fmt::Debug + Default {
    /// The contract.
    const KIND: ContractKind;
    /// Names the contract when an open sector reads a value outside its set.
    const OPEN_WHY: &'static str;
    /// Rotation that mixes the open sectors into [`Spec::digest`].
    const DIGEST_ROTATION: u32;

    /// Why a settled sector must read `want` (completes "but ...").
    fn settled_why(want: Observed) -> String;

    /// A write (versions 0: a trim) of `versions.len()` sectors completed.
    fn write(model: &mut PerSectorSpec<Self>, lba: u64, versions: &[u32]);

    /// A flush completed.
    fn flush(model: &mut PerSectorSpec<Self>);
}

/// A reference model that judges each sector on its own (see the file
/// comment); `R` says what writes and flushes settle.
#[derive(Clone, Debug, Default)]
pub struct PerSectorSpec<R: SectorRule> {
    num_sectors: u64,
    /// Settled values of sectors not in `open`.
    known: Versions,
    open: HashMap<u64, OpenSector>,
    rule: PhantomData<R>,
}

impl<R: SectorRule> PerSectorSpec<R> {
    pub fn new(num_sectors: u64) -> PerSectorSpec<R> {
        PerSectorSpec {
            num_sectors,
            ..PerSectorSpec::default()
        }
    }

    /// Sector `lba` as an open sector; a sector that was settled opens with
    /// its settled value as the one value allowed so far.
    pub(crate) fn open_entry(&mut self, lba: u64) -> &mut OpenSector {
        let settled = self.known.get(lba);
        self.open.entry(lba).or_insert_with(|| OpenSector {
            allowed: vec![settled],
            current: None,
        })
    }

    /// Sector `lba` holds `v` and nothing else.
    pub(crate) fn settle(&mut self, lba: u64, v: u32) {
        self.open.remove(&lba);
        self.known.set(lba, v);
    }

    /// Every open sector whose value is pinned (by a write, or by a read
    /// since the last crash) settles on it; the others stay open.
    pub(crate) fn settle_pinned(&mut self) {
        let known = &mut self.known;
        self.open.retain(|&lba, e| match e.current {
            Some(v) => {
                known.set(lba, v);
                false
            }
            None => true,
        });
    }
}

impl<R: SectorRule + 'static> Spec for PerSectorSpec<R> {
    fn boxed_clone(&self) -> Box<dyn Spec> {
        Box::new(self.clone())
    }

    fn kind(&self) -> ContractKind {
        R::KIND
    }

    fn num_sectors(&self) -> u64 {
        self.num_sectors
    }

    fn reset(&mut self) {
        *self = PerSectorSpec::new(self.num_sectors);
    }

    fn write(&mut self, lba: u64, versions: &[u32]) {
        R::write(self, lba, versions);
    }

    fn flush(&mut self) {
        R::flush(self);
    }

    /// An interrupted write opens each of its sectors to its new value as
    /// well (each sector on its own: the write is not atomic); any crash
    /// unpins every open sector.
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
            return e.check(lba, got, R::OPEN_WHY);
        }
        let want = Observed::Version(self.known.get(lba));
        if got == want {
            Ok(())
        } else {
            Err(format!(
                "sector {lba} reads {got}, but {}",
                R::settled_why(want)
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
            None => Some(self.known.get(lba)),
        }
    }

    fn digest(&self) -> u64 {
        let k = self.known.digest();
        let o = map_digest(self.open.iter().map(|(k, e)| {
            let mut a = e.allowed.clone();
            a.sort_unstable();
            let h = a.iter().fold(0u64, |h, &v| mix64(h ^ u64::from(v)));
            (k, h ^ e.current.map_or(u64::MAX, u64::from))
        }));
        mix64(k ^ o.rotate_left(R::DIGEST_ROTATION))
    }
}
