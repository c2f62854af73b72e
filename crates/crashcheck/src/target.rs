//! The FTLs the checker can drive, and the one shape they share: format or
//! open a device over the crash-injecting flash, with an optional seeded
//! bug. This file owns the list of targets (`--ftl` names): the real FTLs
//! of crates/ftl, each with its default configuration for the geometry,
//! and the checker's own toy FTL with its canaries (`crate::toy`); and the
//! flash backend a run puts under them (`--backend`): the RAM device under
//! `flash::CrashFlash` (the NAND power-loss model), or an image file under
//! `flash::ImageCrashFlash` (the host power-cut model of `FileFlash`).

use std::ops::{Deref, DerefMut};

use flash::{
    CrashFlash, CrashPolicy, CrashReport, Flash, Geometry, ImageCrashFlash, MediaFaults, MemFlash,
    PageClass, RawFlash, SharedFlash,
};
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::optr::{Optr, OptrConfig};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::sync_ftl::{SyncConfig, SyncFtl};
use ftl::{BlockDevice, Mutant};
use rand::RngCore;

use crate::spec::ContractKind;
use crate::toy::{ToyBug, ToyFtl};

/// The device stack under test: a backend with its power-loss layer, and a
/// shared handle so the harness keeps access while the FTL owns it.
pub type Dev = SharedFlash<Backend>;

/// Which flash backend a run uses (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendKind {
    /// `MemFlash` under `CrashFlash`: NAND pages in flight may be old, any
    /// intermediate value, final, or torn garbage.
    #[default]
    Ram,
    /// A `FileFlash` image in memory under `ImageCrashFlash`: file sectors
    /// written since the last `fdatasync` may be lost, reordered or torn at
    /// 512-byte granularity.
    Image,
}

impl BackendKind {
    /// Name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Ram => "ram",
            BackendKind::Image => "image",
        }
    }

    /// Parses [`BackendKind::name`].
    pub fn parse(s: &str) -> Option<BackendKind> {
        [BackendKind::Ram, BackendKind::Image]
            .into_iter()
            .find(|b| b.name() == s)
    }

    /// A fresh, erased device of this backend.
    pub fn new_dev(self, g: Geometry) -> Result<Dev, String> {
        let b = match self {
            BackendKind::Ram => Backend::Ram(CrashFlash::new(
                MemFlash::new(g).map_err(|e| e.to_string())?,
            )),
            BackendKind::Image => Backend::Image(Box::new(
                ImageCrashFlash::new(g).map_err(|e| e.to_string())?,
            )),
        };
        Ok(SharedFlash::new(b))
    }
}

/// A flash backend with its power-cut layer; the methods the harness needs
/// forward to whichever it is. (The RAM variant is the common one and stays
/// unboxed: one device per run, and its commands are the hot path.)
#[allow(clippy::large_enum_variant)]
pub enum Backend {
    Ram(CrashFlash<MemFlash>),
    Image(Box<ImageCrashFlash>),
}

impl From<CrashFlash<MemFlash>> for Backend {
    fn from(c: CrashFlash<MemFlash>) -> Backend {
        Backend::Ram(c)
    }
}

macro_rules! each {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            Backend::Ram($c) => $e,
            Backend::Image($c) => $e,
        }
    };
}

impl Backend {
    pub fn set_crash_at(&mut self, n: u64) {
        each!(self, c => c.set_crash_at(n))
    }
    /// Cuts power right after the `n`-th next erase
    /// (`CrashFlash::set_crash_after_erase`).
    pub fn set_crash_after_erase(&mut self, n: u64) {
        each!(self, c => c.set_crash_after_erase(n))
    }
    pub fn erases_issued(&self) -> u64 {
        each!(self, c => c.erases_issued())
    }
    /// Turns the crash layer's command log on or off
    /// (`CrashFlash::log_commands`).
    pub fn log_commands(&mut self, on: bool) {
        each!(self, c => c.log_commands(on))
    }
    /// The commands logged since the last call (`None`: the log is off).
    pub fn take_commands(&mut self) -> Option<Vec<flash::LoggedCommand>> {
        each!(self, c => c.take_commands())
    }
    pub fn disarm(&mut self) {
        each!(self, c => c.disarm())
    }
    pub fn is_powered_off(&self) -> bool {
        each!(self, c => c.is_powered_off())
    }
    pub fn commands_issued(&self) -> u64 {
        each!(self, c => c.commands_issued())
    }
    pub fn outcome_count(&mut self) -> u64 {
        each!(self, c => c.outcome_count())
    }
    pub fn crash(&mut self, p: CrashPolicy, rng: &mut dyn RngCore) -> flash::Result<CrashReport> {
        each!(self, c => c.crash(p, rng))
    }
    pub fn apply_outcome(&mut self, i: u64, rng: &mut dyn RngCore) -> flash::Result<CrashReport> {
        each!(self, c => c.apply_outcome(i, rng))
    }
    /// Sets the opt-in media faults of the crash model (RAM backend only:
    /// the image backend models a host file, which has no NAND pairing or
    /// erase physics).
    pub fn set_media_faults(&mut self, m: MediaFaults) -> Result<(), String> {
        match self {
            Backend::Ram(c) => {
                c.set_media_faults(m);
                Ok(())
            }
            Backend::Image(_) if m == MediaFaults::default() => Ok(()),
            Backend::Image(_) => Err(
                "--paired-pages and --unstable-erase model NAND media; use them with --backend ram"
                    .into(),
            ),
        }
    }

    /// Makes the `n`-th next program fail (`CrashFlash::fail_nth_program`;
    /// 0 disarms).
    pub fn fail_nth_program(&mut self, n: u64) {
        each!(self, c => c.fail_nth_program(n))
    }
    /// Makes the `n`-th next erase fail (`CrashFlash::fail_nth_erase`; 0
    /// disarms).
    pub fn fail_nth_erase(&mut self, n: u64) {
        each!(self, c => c.fail_nth_erase(n))
    }
    /// Disarms every injected failure not yet fired.
    pub fn disarm_failures(&mut self) {
        each!(self, c => {
            c.fail_nth_program(0);
            c.fail_program_run(0);
            c.fail_nth_erase(0);
        })
    }
    /// Injected program and erase failures so far.
    pub fn injected_failures(&self) -> (u64, u64) {
        each!(self, c => c.injected_failures())
    }

    /// Cuts power now, between two commands.
    pub fn cut_power(&mut self) {
        each!(self, c => c.cut_power())
    }
    /// Counted commands left before an armed cut fires, if one is armed.
    pub fn crash_pending(&self) -> Option<u64> {
        each!(self, c => c.crash_pending())
    }

    // The exhaustive explorer's view of in-flight NAND pages. The image
    // backend has none (its unit is a 512-byte file sector), so exhaustive
    // mode is refused for it (cli.rs) and these answer "nothing in flight".

    /// Per in-flight page, its distinct outcome classes.
    pub fn page_classes(&self) -> flash::Result<Vec<Vec<PageClass>>> {
        match self {
            Backend::Ram(c) => c.page_classes(),
            Backend::Image(_) => Ok(Vec::new()),
        }
    }
    /// Sequence numbers of the commands in flight, in issue order.
    pub fn in_flight_seqs(&self) -> Vec<u64> {
        match self {
            Backend::Ram(c) => c.in_flight_seqs(),
            Backend::Image(_) => Vec::new(),
        }
    }
    /// The outcome where the first `j` in-flight commands completed.
    pub fn in_order_cut(&self, j: usize) -> flash::Result<Vec<PageClass>> {
        match self {
            Backend::Ram(c) => c.in_order_cut(j),
            Backend::Image(_) => Ok(Vec::new()),
        }
    }
    /// The in-flight pages command `j` touched.
    pub fn command_pages(&self, j: usize) -> Vec<usize> {
        match self {
            Backend::Ram(c) => c.command_pages(j),
            Backend::Image(_) => Vec::new(),
        }
    }
    /// Crashes with each in-flight page in the given class.
    pub fn crash_with_classes(
        &mut self,
        classes: &[PageClass],
        rng: &mut dyn RngCore,
    ) -> flash::Result<CrashReport> {
        match self {
            Backend::Ram(c) => c.crash_with_classes(classes, rng),
            Backend::Image(c) => c.crash(CrashPolicy::Random, rng),
        }
    }
    /// A copy of the RAM backend's state (`CrashFlash::fork_copy`; the
    /// image backend cannot be copied: `None`, and the caller replays
    /// instead).
    pub fn fork_copy(&self) -> Option<Backend> {
        match self {
            Backend::Ram(c) => Some(Backend::Ram(c.fork_copy())),
            Backend::Image(_) => None,
        }
    }

    /// The backend itself, below the power-cut layer.
    pub fn inner_mut(&mut self) -> &mut dyn RawFlash {
        match self {
            Backend::Ram(c) => c.inner_mut(),
            Backend::Image(c) => c.inner_mut(),
        }
    }
}

/// Every command goes, unchanged, to the power-cut layer of the backend
/// in use.
impl flash::Layer for Backend {
    type Below = dyn Flash;
    fn below(&self) -> impl Deref<Target = dyn Flash> + '_ {
        let f: &dyn Flash = each!(self, c => c);
        f
    }
    fn below_mut(&mut self) -> impl DerefMut<Target = dyn Flash> + '_ {
        let f: &mut dyn Flash = each!(self, c => c);
        f
    }
    fn geometry(&self) -> &Geometry {
        each!(self, c => Flash::geometry(c))
    }

    /// A sync in two parts goes to the power-cut layer too (the sync
    /// behind barriers, `--sync-behind`: a power cut may come before its
    /// `finish_sync`).
    fn start_sync(&mut self) -> Option<flash::Result<flash::SyncTicket>> {
        each!(self, c => Flash::start_sync(c))
    }

    fn finish_sync(&mut self, ticket: &flash::SyncTicket) -> flash::Result<()> {
        each!(self, c => Flash::finish_sync(c, ticket))
    }
}

/// Formats or opens an FTL over a device.
pub type Opener = fn(Dev, Mutant) -> ftl::Result<Box<dyn BlockDevice>>;

/// An FTL the explorer can test.
#[derive(Clone, Copy)]
pub struct Target {
    /// Name on the command line (`--ftl`).
    pub name: &'static str,
    /// The contract it promises (the default `--contract`).
    pub contract: ContractKind,
    pub format: Opener,
    pub open: Opener,
    /// The flash backend under it (`--backend`; RAM unless asked).
    pub backend: BackendKind,
    /// The wear policy set on the device after every format and open
    /// (`--wear-leveling`; none, the library's FIFO default, unless asked).
    pub wear: Option<ftl::WearPolicy>,
    /// Formatted with two write streams (`--hot-cold`): SCFTL by
    /// `ScftlConfig::with_gc_streams`, the baselines by
    /// `LogConfig::with_streams`; the defaults run one.
    pub hot_cold: bool,
    /// After every epoch barrier, a sync behind it (`--sync-behind`: what
    /// `scftl serve`'s background thread runs; SCFTL only). Every other
    /// one holds its ticket until the next barrier, so that barrier ends
    /// its epoch while the SYNC runs and the ticket proves only the
    /// epochs before it (`note_ticket_sync`; the proofs' PUSB).
    pub sync_behind: bool,
    /// SCFTL formatted to spare this many bad data superblocks
    /// (`--spare-superblocks`; `ScftlConfig::sparing`): the `tiny` and
    /// `small` defaults spare none, so their first bad superblock makes
    /// the device read-only, and the paths that go on past media
    /// failures run only with spares.
    pub spare: u64,
}

impl Target {
    /// One of the real FTLs, which handle media failures (the toy and its
    /// canaries do not: a failed erase or program is an error there).
    pub fn handles_media_failures(&self) -> bool {
        REAL_TARGETS.iter().any(|t| t.name == self.name)
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Target({})", self.name)
    }
}

/// A real FTL: formatted with its default configuration for the geometry,
/// built with the mutant the run asks for.
macro_rules! real_target {
    ($name:literal, $contract:expr, $ftl:ident, $config:ident) => {
        Target {
            name: $name,
            contract: $contract,
            format: |d, m| {
                let cfg = $config::default_for(d.geometry());
                Ok(Box::new($ftl::format_with_mutant(d, cfg, m)?))
            },
            open: |d, m| Ok(Box::new($ftl::open_with_mutant(d, m)?)),
            backend: BackendKind::Ram,
            wear: None,
            hot_cold: false,
            sync_behind: false,
            spare: 0,
        }
    };
}

/// The checker's toy FTL with one of its bugs (mutants do not apply).
macro_rules! toy_target {
    ($name:literal, $bug:expr) => {
        Target {
            name: $name,
            contract: ContractKind::Snapshot,
            format: |d, _| Ok(Box::new(ToyFtl::format(d, $bug)?)),
            open: |d, _| Ok(Box::new(ToyFtl::open(d, $bug)?)),
            backend: BackendKind::Ram,
            wear: None,
            hot_cold: false,
            sync_behind: false,
            spare: 0,
        }
    };
}

/// The real FTLs (see crates/ftl).
pub const REAL_TARGETS: [Target; 4] = [
    real_target!("scftl", ContractKind::Snapshot, Scftl, ScftlConfig),
    real_target!("async", ContractKind::Async, AsyncFtl, AsyncConfig),
    real_target!("sync", ContractKind::Sync, SyncFtl, SyncConfig),
    real_target!("optr", ContractKind::Prefix, Optr, OptrConfig),
];

/// The checker's own toy FTL and its canaries (see `crate::toy`).
pub const TOY_TARGETS: [Target; 5] = [
    toy_target!("toy", ToyBug::None),
    toy_target!("toy-overwrite-live", ToyBug::OverwriteLive),
    toy_target!("toy-trust-unsynced-commit", ToyBug::TrustUnsyncedCommit),
    toy_target!("toy-skip-sync-only", ToyBug::SkipSyncOnly),
    toy_target!("toy-split-requests", ToyBug::SplitRequests),
];

impl Target {
    /// Formats `d` (with `mutant`) and sets the target's wear policy.
    pub fn format_dev(&self, d: Dev, mutant: Mutant) -> ftl::Result<Box<dyn BlockDevice>> {
        if self.hot_cold && matches!(self.name, "async" | "sync") {
            let cfg = AsyncConfig::default_for(d.geometry()).with_streams(2);
            return self.with_wear(if self.name == "async" {
                Box::new(AsyncFtl::format_with_mutant(d, cfg, mutant)?)
            } else {
                Box::new(SyncFtl::format_with_mutant(d, cfg, mutant)?)
            });
        }
        if self.hot_cold || self.spare > 0 {
            let g = *d.geometry();
            let streams = if self.hot_cold { 2 } else { 1 };
            let cfg = ScftlConfig::with_gc_streams(&g, streams)
                .and_then(|c| c.sparing(&g, self.spare))
                .ok_or_else(|| {
                    ftl::FtlError::BadConfig(format!(
                        "{g} cannot afford SCFTL's {streams} write stream(s) with {} spare superblocks at any logical size",
                        self.spare
                    ))
                })?;
            return self.with_wear(Box::new(Scftl::format_with_mutant(d, cfg, mutant)?));
        }
        self.with_wear((self.format)(d, mutant)?)
    }

    /// Opens (recovers) `d` (with `mutant`) and sets the target's wear
    /// policy.
    pub fn open_dev(&self, d: Dev, mutant: Mutant) -> ftl::Result<Box<dyn BlockDevice>> {
        self.with_wear((self.open)(d, mutant)?)
    }

    fn with_wear(&self, mut dev: Box<dyn BlockDevice>) -> ftl::Result<Box<dyn BlockDevice>> {
        if let Some(p) = self.wear {
            dev.set_wear_policy(p)?;
        }
        Ok(dev)
    }
}

/// The real FTLs (see crates/ftl).
pub fn real_targets() -> Vec<Target> {
    REAL_TARGETS.to_vec()
}

/// Every target, real ones first.
pub fn all_targets() -> Vec<Target> {
    let mut v = real_targets();
    v.extend(TOY_TARGETS);
    v
}

/// The wear policy `--wear-leveling` checks `kind` with: its default, but
/// eager (static spread 0), so that static moves and SCFTL's metadata
/// rotations happen within the checker's short runs.
pub fn checker_wear_policy(kind: ftl::FtlKind) -> ftl::WearPolicy {
    let p = ftl::wear::default_for(kind);
    ftl::WearPolicy {
        static_spread: p.static_spread.map(|_| 0),
        ..p
    }
}

/// A target by name.
pub fn by_name(name: &str) -> Option<Target> {
    all_targets().into_iter().find(|t| t.name == name)
}

/// Names accepted by `--ftl`.
pub fn names() -> Vec<&'static str> {
    all_targets().iter().map(|t| t.name).collect()
}

/// Geometries a block-device run accepts (`--geometry`): the flash presets,
/// and `tiny-oob40`, `tiny` with a 40-byte OOB per page. On the image
/// backend a page's OOB then straddles the file's 512-byte sectors, at
/// every multiple of 8 bytes over the device's pages, so a host power cut
/// can keep one part of an OOB area and lose the other (the image model's
/// form of a torn OOB; with the presets' OOB sizes, which divide 512, an
/// OOB area lies in one sector and tears only as a whole, apart from its
/// page's data).
pub fn geometry(name: &str) -> Result<Geometry, String> {
    if name == "tiny-oob40" {
        return Ok(Geometry {
            oob_size: 40,
            ..Geometry::tiny()
        });
    }
    Geometry::preset(name).map_err(|e| format!("{e} (the checker also knows tiny-oob40)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::{Geometry, PageAddr};

    /// The layer's forwarding (crates/flash/tests/layers.rs lists it): each
    /// page of a multi-page program reaches the crash layer as a command of
    /// its own, and a read with OOB is one read.
    #[test]
    fn commands_reach_the_crash_layer_of_the_backend() {
        let g = Geometry::tiny();
        let mut b = Backend::from(CrashFlash::new(MemFlash::new(g).unwrap()));
        let ps = g.page_size();
        let pages = [PageAddr::new(1, 0), PageAddr::new(1, 1)];
        b.program_many(&pages, &vec![4; 2 * ps], &[6; 8]).unwrap();
        assert_eq!(b.in_flight_seqs().len(), 2);
        let before = b.counters();
        let mut d = vec![0u8; ps];
        let mut o = [0u8; 4];
        b.read_with_oob(pages[1], 0, &mut d, &mut o).unwrap();
        assert_eq!((d[0], o), (4, [6; 4]));
        assert_eq!(b.counters().since(&before).reads, 1);
    }
}
