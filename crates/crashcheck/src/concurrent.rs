//! The concurrent crash test: several threads issue reads, writes, trims
//! and flushes against one SCFTL device behind [`ftl::SharedDevice`] (the
//! NBD server's lock protocol) over `flash::CrashFlash`; the power is cut
//! at a seeded flash command; the history of every operation (when it was
//! invoked, when it returned, what it read) and the recovered device are
//! then checked by a linearizability search in the style of Knossos and
//! porcupine (the Wing–Gong–Lowe search with memoized states): there must
//! be one order of the operations that
//!
//! * respects real time (an operation that returned before another was
//!   invoked comes first),
//! * gives every completed read exactly what it returned (each read and
//!   each write is atomic: the lock makes it so),
//! * contains every completed operation, and any subset of those the cut
//!   interrupted (their effect is unknown), and
//! * passes through a *commit point* — the formatted start, a flush or an
//!   epoch barrier — whose state is the recovered device, after every
//!   flush that completed (the snapshot contract: a power cut returns to
//!   the last completed flush or a later commit).
//!
//! Replay: the seed fixes each thread's script, its pauses and the cut
//! point; the interleaving is the operating system's. A failure prints the
//! recorded history, which [`check_history`] decides deterministically; the
//! module's tests rerun the same seed until the seeded lock-protocol bugs
//! ([`ftl::SharedMutant`]) are caught.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

// The threads, their clock and their pauses: the operating system's, or
// with the `shuttle` feature shuttle's, whose scheduler then decides every
// interleaving from its seed (`run_under_shuttle`).
#[cfg(feature = "shuttle")]
use shuttle::{sync::atomic::AtomicU64, thread};
#[cfg(not(feature = "shuttle"))]
use std::{sync::atomic::AtomicU64, thread};

use flash::{CrashFlash, CrashPolicy, Flash, Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FtlError, Lba, SharedDevice, SharedMutant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// One concurrent crash test.
#[derive(Clone, Debug)]
pub struct ConcurrentConfig {
    pub geometry: Geometry,
    /// Threads issuing operations at once.
    pub threads: usize,
    /// Operations each thread issues per round (at most 120 in all: the
    /// search keeps the set of ordered operations in 128 bits).
    pub ops_per_thread: usize,
    /// Logical sectors the operations touch (few, so they conflict).
    pub sectors: u64,
    /// Rounds: a fresh device, scripts and cut point each.
    pub rounds: u64,
    pub seed: u64,
    /// A seeded bug in the lock protocol, or in the FTL (`ftl::Mutant`):
    /// the test must catch either kind.
    pub mutant: SharedMutant,
    pub ftl_mutant: ftl::Mutant,
    /// How long each sync takes (the flushes' window of overlap).
    pub sync_delay: Duration,
    /// Writes of a background writer thread (0: none). It writes the
    /// sectors past the checked ones in order, four at a time, wrapping
    /// around, and runs a sync behind after every fourth write (what a
    /// sequential client of `scftl serve` makes), reading back each write
    /// after the next (shared reads of sectors GC moved and of reused
    /// superblocks; data other than written fails the round): superblocks
    /// fill, fall empty and are erased while the checked threads run, so
    /// GC, erases and the erase ahead after a sync behind meet their
    /// operations. Its writes are not in the history (the check reads
    /// only the checked sectors); the epoch barriers they end in are,
    /// since each is a commit point.
    pub background_writes: usize,
}

impl Default for ConcurrentConfig {
    fn default() -> Self {
        ConcurrentConfig {
            geometry: Geometry::tiny(),
            threads: 3,
            ops_per_thread: 14,
            sectors: 6,
            rounds: 200,
            seed: 1,
            mutant: SharedMutant::None,
            ftl_mutant: ftl::Mutant::None,
            sync_delay: Duration::from_micros(200),
            background_writes: 0,
        }
    }
}

/// What one operation was.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OpKind {
    /// Sectors `lba..lba + n` get write `id`'s content (`id` 0: trimmed,
    /// they read as zeros). `barrier`: an epoch barrier (a commit point)
    /// ran right before it, in the same exclusive hold, because the epoch
    /// was full — or, with `n` 0, on its own (an explicit barrier, as a
    /// frontend issues when an epoch fills).
    Write {
        lba: u64,
        n: u64,
        id: u64,
        barrier: bool,
    },
    /// What sectors `lba..` read as: the write id of each (0: zeros).
    Read { lba: u64, seen: Vec<u64> },
    /// `flushed`: this call committed (a commit point); `false`: an
    /// earlier flush already covered its changes, or it was interrupted
    /// before it knew.
    Flush { flushed: bool },
}

/// One operation of the history: invoked and returned at ticks of one
/// global counter (`ret` `None`: the power cut interrupted it).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Op {
    pub thread: usize,
    pub invoke: u64,
    pub ret: Option<u64>,
    pub kind: OpKind,
}

/// A failed round: why, and the evidence.
#[derive(Debug)]
pub struct ConcurrentFailure {
    pub round: u64,
    pub message: String,
    pub history: Vec<Op>,
    pub recovered: Vec<u64>,
}

impl std::fmt::Display for ConcurrentFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "round {}: {}", self.round, self.message)?;
        writeln!(f, "recovered (write id per sector): {:?}", self.recovered)?;
        writeln!(f, "history (thread, invoke..return, operation):")?;
        for op in &self.history {
            let ret = op.ret.map_or("cut".to_string(), |r| r.to_string());
            writeln!(f, "  t{} {}..{}: {:?}", op.thread, op.invoke, ret, op.kind)?;
        }
        Ok(())
    }
}

/// Version of the [`SavedRound`] file layout.
pub const SAVED_ROUND_VERSION: u32 = 1;

/// Most operations [`check_history`] orders: the search keeps the set of
/// ordered operations in the bits of a `u128`.
const MAX_SEARCH_OPS: usize = 128;

/// Most sectors a saved round may name (the test uses a handful).
const SAVED_MAX_SECTORS: u64 = 1024;

/// A failed round saved for re-checking (`scftl crashtest --concurrent
/// THREADS --history FILE`, then `scftl crashtest --check-history FILE`):
/// the interleaving was the scheduler's and a rerun of the seed may not
/// meet it again, but its history and recovered device decide the verdict
/// alone, every time ([`check_history`]). JSON; `version` is
/// [`SAVED_ROUND_VERSION`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedRound {
    pub version: u32,
    /// How the round was made (for the reader; the check needs none of it).
    pub threads: usize,
    pub seed: u64,
    pub round: u64,
    pub mutant: String,
    /// Why the test rejected it.
    pub message: String,
    /// Logical sectors the operations touch.
    pub sectors: u64,
    /// The write id each of them read as after recovery.
    pub recovered: Vec<u64>,
    pub history: Vec<Op>,
}

impl SavedRound {
    /// The failed round `f` of the test `c`; `mutant` names the seeded bug
    /// (empty: none).
    pub fn new(c: &ConcurrentConfig, f: &ConcurrentFailure, mutant: &str) -> SavedRound {
        SavedRound {
            version: SAVED_ROUND_VERSION,
            threads: c.threads,
            seed: c.seed,
            round: f.round,
            mutant: mutant.to_string(),
            message: f.message.clone(),
            sectors: c.sectors,
            recovered: f.recovered.clone(),
            history: f.history.clone(),
        }
    }

    /// Parses a saved round and checks that it is one the search can take
    /// (every sector an operation names exists, no return before its
    /// invocation, at most 128 operations): a damaged or hand-edited file
    /// gets an error that says what is wrong, never a panic.
    pub fn from_json(text: &str) -> Result<SavedRound, String> {
        let s: SavedRound =
            serde_json::from_str(text).map_err(|e| format!("not a saved round: {e}"))?;
        if s.version != SAVED_ROUND_VERSION {
            return Err(format!(
                "saved round version {} (this build reads {SAVED_ROUND_VERSION})",
                s.version
            ));
        }
        if s.sectors == 0 || s.sectors > SAVED_MAX_SECTORS {
            return Err(format!(
                "sectors {}: give 1 to {SAVED_MAX_SECTORS}",
                s.sectors
            ));
        }
        if s.recovered.len() as u64 != s.sectors {
            return Err(format!(
                "recovered names {} sectors, not {}",
                s.recovered.len(),
                s.sectors
            ));
        }
        if s.history.len() > MAX_SEARCH_OPS {
            return Err(format!(
                "{} operations: at most {MAX_SEARCH_OPS} can be searched",
                s.history.len()
            ));
        }
        for (i, o) in s.history.iter().enumerate() {
            let (lba, n) = match &o.kind {
                OpKind::Write { lba, n, .. } => (*lba, *n),
                OpKind::Read { lba, seen } => (*lba, seen.len() as u64),
                OpKind::Flush { .. } => (0, 0),
            };
            let end = lba.saturating_add(n);
            if end > s.sectors {
                return Err(format!(
                    "operation {i} names sectors {lba}..{lba}+{n}, past the {} sectors",
                    s.sectors
                ));
            }
            if o.ret.is_some_and(|r| r < o.invoke) {
                return Err(format!("operation {i} returns before it is invoked"));
            }
        }
        Ok(s)
    }

    /// The JSON text [`SavedRound::from_json`] reads.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a saved round serializes")
    }

    /// Decides the round again ([`check_history`]).
    pub fn recheck(&self) -> Result<u64, String> {
        check_history(&self.history, &self.recovered, self.sectors)
    }
}

/// What a passing test did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConcurrentStats {
    pub rounds: u64,
    pub ops: u64,
    /// Rounds whose cut fell while operations ran (the rest were cut
    /// after the last operation).
    pub cut_mid_run: u64,
    /// Reads served with shared access, those that arrived while a
    /// flush's sync ran, and flushes that found their changes covered by
    /// another flush.
    pub shared_reads: u64,
    pub reads_during_sync: u64,
    /// Changes (writes, trims) that ran while a flush's sync ran (the
    /// write pipeline at work).
    pub changes_during_sync: u64,
    /// Changes whose return waited for a flush's sync to end (held
    /// returns: `ftl::SharedDevice`).
    pub held_returns: u64,
    pub coalesced_flushes: u64,
    /// Syncs behind barriers that ran (`SharedDevice::sync_behind`).
    pub syncs_behind: u64,
    /// Superblocks erased ahead after a sync (`DeviceStats::erased_ahead`).
    pub erased_ahead: u64,
    /// Sectors the background writer wrote.
    pub background_sectors: u64,
    /// GC victims reclaimed and sectors GC relocated.
    pub gc_victims: u64,
    pub gc_relocated: u64,
    /// Linearization states the search visited.
    pub states: u64,
}

/// The content of sector `lba` in write `id`: the id, the sector number
/// and a pattern, so a read shows which write it came from and that it is
/// whole.
fn sector_bytes(id: u64, lba: u64, ss: usize) -> Vec<u8> {
    let mut s = vec![(id as u8) ^ 0x5a; ss];
    s[..8].copy_from_slice(&id.to_le_bytes());
    s[8..16].copy_from_slice(&lba.to_le_bytes());
    s
}

/// The write id a sector read as (0: zeros), or why it is no write's.
fn decode(sector: &[u8], lba: u64) -> Result<u64, String> {
    if sector.iter().all(|&b| b == 0) {
        return Ok(0);
    }
    let id = u64::from_le_bytes(sector[..8].try_into().unwrap());
    if sector == sector_bytes(id, lba, sector.len()).as_slice() {
        Ok(id)
    } else {
        Err(format!(
            "sector {lba} holds bytes no write put there (first bytes {:02x?})",
            &sector[..16]
        ))
    }
}

type Device = Scftl<Harness>;

/// The flash under the test's device: the power-cut layer, with every
/// flush's detached sync slowed down and, in some rounds, the power cut at
/// the k-th sync, where a flush commits. The delay is spent in the
/// ticket's wait, with no lock on the device held (as an `fdatasync` on a
/// server); `CrashFlash` makes the commands before the ticket durable when
/// the flush finishes it. Reads, writes and other flushes thus overlap a
/// flush between its commit and its end.
struct Harness {
    inner: CrashFlash<MemFlash>,
    sync_delay: Duration,
    cut_at_sync: Option<u64>,
    syncs: u64,
}

impl Harness {
    /// Counts one sync; cuts the power at the chosen one.
    fn sync_point(&mut self) -> flash::Result<()> {
        self.syncs += 1;
        if self.cut_at_sync == Some(self.syncs) {
            self.inner.cut_power();
            return Err(flash::FlashError::PowerLoss);
        }
        Ok(())
    }
}

impl flash::Layer for Harness {
    flash::layer_below!(inner: CrashFlash<MemFlash>);

    fn geometry(&self) -> &Geometry {
        Flash::geometry(&self.inner)
    }

    fn sync(&mut self) -> flash::Result<()> {
        self.sync_point()?;
        Flash::sync(&mut self.inner)
    }

    fn start_sync(&mut self) -> Option<flash::Result<flash::SyncTicket>> {
        let delay = self.sync_delay;
        Some(Flash::start_sync(&mut self.inner)?.map(|t| t.after(move || pause(delay))))
    }

    fn finish_sync(&mut self, ticket: &flash::SyncTicket) -> flash::Result<()> {
        self.sync_point()?;
        Flash::finish_sync(&mut self.inner, ticket)
    }

    /// Reads pass through unchanged, so they may run shared.
    fn read_shared(&self, reads: &mut [flash::PageRead<'_>]) -> Option<flash::Result<()>> {
        Flash::read_shared(&self.inner, reads)
    }
}

/// A flush's sync: a real sleep, or under shuttle 100 yields (shuttle's
/// time does not pass; the yields let the other threads run about a
/// dozen operations meanwhile, as the 200 µs sleep does).
fn pause(delay: Duration) {
    #[cfg(not(feature = "shuttle"))]
    thread::sleep(delay);
    #[cfg(feature = "shuttle")]
    {
        let _ = delay;
        for _ in 0..100 {
            thread::yield_now();
        }
    }
}

/// Runs one round under shuttle's randomized scheduler (the `shuttle`
/// feature): a failing round panics with its history, and shuttle adds the
/// schedule, which `shuttle::replay` of the same closure runs again,
/// interleaving and all. The round's scripts and cut are drawn from
/// shuttle's random source, so the schedule fixes them too.
#[cfg(feature = "shuttle")]
pub fn shuttle_round(c: ConcurrentConfig) -> impl Fn() + Send + Sync + 'static {
    move || {
        use rand::RngCore;
        let seed = shuttle::rand::thread_rng().next_u64();
        let mut stats = ConcurrentStats::default();
        if let Err(f) = run_round(&c, 0, Pcg64::seed_from_u64(seed), &mut stats) {
            panic!("concurrent crash test failed: {f}");
        }
    }
}

/// Runs the test; the first failing round is returned.
pub fn run(c: &ConcurrentConfig) -> Result<ConcurrentStats, Box<ConcurrentFailure>> {
    assert!(
        c.threads * c.ops_per_thread <= 120,
        "the search orders at most 120 operations"
    );
    let mut stats = ConcurrentStats::default();
    for round in 0..c.rounds {
        let rng = Pcg64::seed_from_u64(c.seed.wrapping_mul(0x9e37_79b9).wrapping_add(round));
        run_round(c, round, rng, &mut stats)?;
        stats.rounds += 1;
    }
    Ok(stats)
}

fn fail(
    round: u64,
    message: String,
    history: Vec<Op>,
    recovered: Vec<u64>,
) -> Box<ConcurrentFailure> {
    Box::new(ConcurrentFailure {
        round,
        message,
        history,
        recovered,
    })
}

fn run_round(
    c: &ConcurrentConfig,
    round: u64,
    mut rng: Pcg64,
    stats: &mut ConcurrentStats,
) -> Result<(), Box<ConcurrentFailure>> {
    let g = c.geometry;
    let ss = g.sector_size as usize;
    let no_history = |m: String| fail(round, m, Vec::new(), Vec::new());
    let mem = MemFlash::new(g).map_err(|e| no_history(format!("flash: {e}")))?;
    let mut config = ScftlConfig::default_for(&g);
    config.logical_sectors = config.logical_sectors.max(c.sectors);
    let logical = config.logical_sectors;
    let harness = Harness {
        inner: CrashFlash::new(mem),
        sync_delay: Duration::ZERO,
        cut_at_sync: None,
        syncs: 0,
    };
    let mut dev = Scftl::format_with_mutant(harness, config, c.ftl_mutant)
        .map_err(|e| no_history(format!("format: {e}")))?;
    // The cut: in half the rounds at one of the first syncs (a flush's
    // commit point), in the others somewhere among the commands the round
    // issues (about one per two operations on this device); or, if the
    // round ends first, after the last operation.
    let h = dev.flash_mut();
    h.sync_delay = c.sync_delay;
    if rng.gen_bool(0.5) {
        h.cut_at_sync = Some(h.syncs + rng.gen_range(1..=6));
    } else {
        // (A background write of four sectors issues about three.)
        let per_round = (c.threads * c.ops_per_thread) as u64 / 2 + 3 * c.background_writes as u64;
        let cut = h.inner.commands_issued() + rng.gen_range(1..=per_round);
        h.inner.set_crash_at(cut);
    }
    let shared = Arc::new(SharedDevice::with_mutant(dev, c.mutant));
    let clock = Arc::new(AtomicU64::new(0));
    let scripts: Vec<Pcg64> = (0..c.threads)
        .map(|_| Pcg64::seed_from_u64(rng.gen()))
        .collect();
    let mut handles: Vec<_> = scripts
        .into_iter()
        .enumerate()
        .map(|(t, r)| {
            let (shared, clock, c) = (Arc::clone(&shared), Arc::clone(&clock), c.clone());
            thread::spawn(move || thread_ops(&c, t, r, &shared, &clock, ss))
        })
        .collect();
    let background = Arc::new(AtomicU64::new(0));
    if c.background_writes > 0 && logical > c.sectors {
        let (shared, clock, c) = (Arc::clone(&shared), Arc::clone(&clock), c.clone());
        let written = Arc::clone(&background);
        let start = rng.gen_range(c.sectors..logical);
        handles.push(thread::spawn(move || {
            background_ops(&c, start, logical, &shared, &clock, &written, ss)
        }));
    }
    let histories: Vec<Result<Vec<Op>, String>> = handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
        .collect();
    let Ok(shared) = Arc::try_unwrap(shared) else {
        unreachable!("every thread that held the device was joined")
    };
    let mut history = Vec::new();
    for h in histories {
        match h {
            Ok(ops) => history.extend(ops),
            Err(m) => return Err(fail(round, m, history, Vec::new())),
        }
    }
    history.sort_by_key(|op| op.invoke);
    stats.ops += history.len() as u64;
    let counts = shared.shared_counts();
    stats.shared_reads += counts.shared_reads;
    stats.reads_during_sync += counts.reads_during_sync;
    stats.changes_during_sync += counts.changes_during_sync;
    stats.held_returns += counts.held_returns;
    stats.syncs_behind += counts.syncs_behind;
    stats.background_sectors += background.load(Ordering::SeqCst);
    stats.coalesced_flushes += history
        .iter()
        .filter(|o| o.kind == OpKind::Flush { flushed: false } && o.ret.is_some())
        .count() as u64;
    let dev = shared.into_inner();
    let ds = dev.stats();
    stats.erased_ahead += ds.erased_ahead;
    stats.gc_victims += ds.gc_blocks_reclaimed;
    stats.gc_relocated += ds.gc_sectors_relocated;
    let mut flash = dev.into_flash().inner;
    if flash.is_powered_off() {
        stats.cut_mid_run += 1;
    } else {
        flash.cut_power();
    }
    let mut crash_rng = Pcg64::seed_from_u64(rng.gen());
    if let Err(e) = flash.crash(CrashPolicy::Random, &mut crash_rng) {
        return Err(fail(round, format!("crash: {e}"), history, Vec::new()));
    }
    let mut back = match Scftl::open_with_mutant(flash, c.ftl_mutant) {
        Ok(d) => d,
        Err(e) => {
            return Err(fail(
                round,
                format!("recovery failed: {e}"),
                history,
                Vec::new(),
            ))
        }
    };
    let mut recovered = Vec::new();
    let mut buf = vec![0u8; ss];
    for lba in 0..c.sectors {
        if let Err(e) = back.read(Lba(lba), &mut buf) {
            return Err(fail(
                round,
                format!("read after recovery: {e}"),
                history,
                recovered,
            ));
        }
        match decode(&buf, lba) {
            Ok(id) => recovered.push(id),
            Err(m) => {
                return Err(fail(
                    round,
                    format!("after recovery: {m}"),
                    history,
                    recovered,
                ))
            }
        }
    }
    match check_history(&history, &recovered, c.sectors) {
        Ok(states) => {
            stats.states += states;
            Ok(())
        }
        Err(m) => Err(fail(round, m, history, recovered)),
    }
}

/// One thread's operations, until its script ends or the power is cut.
fn thread_ops(
    c: &ConcurrentConfig,
    t: usize,
    mut rng: Pcg64,
    shared: &SharedDevice<Device>,
    clock: &AtomicU64,
    ss: usize,
) -> Result<Vec<Op>, String> {
    let tick = || clock.fetch_add(1, Ordering::SeqCst);
    let mut ops = Vec::new();
    for i in 0..c.ops_per_thread {
        if rng.gen_ratio(1, 3) {
            thread::yield_now();
        }
        let id = ((t as u64 + 1) << 32) | (i as u64 + 1);
        let lba = rng.gen_range(0..c.sectors);
        let n = rng.gen_range(1..=(c.sectors - lba).min(3));
        let choice = rng.gen_range(0..12);
        if choice == 10 {
            // A sync behind the barriers (what `scftl serve` runs in the
            // background): no operation of the history, since it promises
            // no client anything, but the power may be cut during it, and
            // what it records must not outrun what the sync proved.
            match shared.sync_behind(|_| true) {
                Ok(_) => continue,
                Err(e) if e.is_power_loss() => return Ok(ops),
                Err(e) => return Err(format!("thread {t}, operation {i} (sync behind): {e}")),
            }
        }
        let invoke = tick();
        let (kind, r): (OpKind, Result<(), FtlError>) = match choice {
            0..=3 => {
                let mut buf = vec![0u8; n as usize * ss];
                let r = shared.read(Lba(lba), &mut buf);
                let mut seen = Vec::new();
                if r.is_ok() {
                    for (k, sector) in buf.chunks_exact(ss).enumerate() {
                        seen.push(decode(sector, lba + k as u64)?);
                    }
                }
                (OpKind::Read { lba, seen }, r)
            }
            4..=6 | 9 => {
                let trim = choice == 9;
                let data: Vec<u8> = (0..n).flat_map(|k| sector_bytes(id, lba + k, ss)).collect();
                let (r, barrier) = change_with_barrier(shared, true, |d| {
                    if trim {
                        d.trim(Lba(lba), n)
                    } else {
                        d.write(Lba(lba), &data)
                    }
                });
                let id = if trim { 0 } else { id };
                (
                    OpKind::Write {
                        lba,
                        n,
                        id,
                        barrier,
                    },
                    r,
                )
            }
            11 => {
                // An epoch barrier on its own: the epoch ends unsynced,
                // which the syncs behind and the next erase must handle.
                let r = shared.change(|d| d.epoch_barrier());
                (
                    OpKind::Write {
                        lba,
                        n: 0,
                        id: 0,
                        barrier: true,
                    },
                    r,
                )
            }
            _ => {
                let must_cover = shared.returned();
                match shared.flush(must_cover, |_| true) {
                    Some(Ok(flushed)) => (OpKind::Flush { flushed }, Ok(())),
                    Some(Err(e)) => (OpKind::Flush { flushed: true }, Err(e)),
                    None => (
                        OpKind::Flush { flushed: false },
                        Err(FtlError::BadArgument("flush refused".into())),
                    ),
                }
            }
        };
        match r {
            Ok(()) => ops.push(Op {
                thread: t,
                invoke,
                ret: Some(tick()),
                kind,
            }),
            Err(e) if e.is_power_loss() => {
                // Cut: the effect is unknown (a read has none). An
                // interrupted flush may have committed.
                if !matches!(kind, OpKind::Read { .. }) {
                    ops.push(Op {
                        thread: t,
                        invoke,
                        ret: None,
                        kind,
                    });
                }
                return Ok(ops);
            }
            Err(e) => return Err(format!("thread {t}, operation {i} ({kind:?}): {e}")),
        }
    }
    Ok(ops)
}

/// Runs `apply` with the device held exclusive; when the epoch is full
/// and `may_barrier`, ends it with an epoch barrier in the same hold and
/// runs `apply` again. Returns the result and whether a barrier ran (a
/// commit point the history must hold).
fn change_with_barrier(
    shared: &SharedDevice<Device>,
    may_barrier: bool,
    apply: impl Fn(&mut Device) -> Result<(), FtlError>,
) -> (Result<(), FtlError>, bool) {
    let mut barrier = false;
    let r = shared.change(|d| match apply(d) {
        Err(FtlError::EpochFull { .. }) if may_barrier => {
            barrier = true;
            d.epoch_barrier()?;
            apply(d)
        }
        r => r,
    });
    (r, barrier)
}

/// The background writer ([`ConcurrentConfig::background_writes`]):
/// sectors `first..end`, four at a time from `start`, wrapping around,
/// with a sync behind after every fourth write, reading back after each
/// write the one before it. Returns the barriers its
/// writes ended in, as operations of thread `c.threads`; it stops early
/// when the history has no room for another (the search orders at most
/// 120 operations) or the power is cut.
fn background_ops(
    c: &ConcurrentConfig,
    start: u64,
    end: u64,
    shared: &SharedDevice<Device>,
    clock: &AtomicU64,
    written: &AtomicU64,
    ss: usize,
) -> Result<Vec<Op>, String> {
    let t = c.threads;
    let first = c.sectors;
    let room = 120usize.saturating_sub(c.threads * c.ops_per_thread);
    let tick = || clock.fetch_add(1, Ordering::SeqCst);
    let mut ops = Vec::new();
    let mut lba = start;
    // The write before this one: its first sector, id and length.
    let mut last: Option<(u64, u64, u64)> = None;
    for i in 0..c.background_writes {
        if i % 4 == 3 {
            match shared.sync_behind(|_| true) {
                Ok(_) => {}
                Err(e) if e.is_power_loss() => return Ok(ops),
                Err(e) => return Err(format!("background writer (sync behind): {e}")),
            }
        }
        let n = (end - lba).min(4);
        let id = ((t as u64 + 1) << 32) | (i as u64 + 1);
        let data: Vec<u8> = (0..n).flat_map(|k| sector_bytes(id, lba + k, ss)).collect();
        let invoke = tick();
        let (r, barrier) =
            change_with_barrier(shared, ops.len() < room, |d| d.write(Lba(lba), &data));
        let op = |ret| Op {
            thread: t,
            invoke,
            ret,
            kind: OpKind::Write {
                lba: 0,
                n: 0,
                id: 0,
                barrier: true,
            },
        };
        match r {
            Ok(()) => {
                if barrier {
                    ops.push(op(Some(tick())));
                }
                written.fetch_add(n, Ordering::SeqCst);
            }
            // No room for the barrier's operation: the writer is done.
            Err(FtlError::EpochFull { .. }) => return Ok(ops),
            Err(e) if e.is_power_loss() => {
                if barrier {
                    ops.push(op(None));
                }
                return Ok(ops);
            }
            Err(e) => return Err(format!("background writer, write {i} at sector {lba}: {e}")),
        }
        // Reads back what it wrote one write ago (only it writes there):
        // shared reads of sectors GC moves and of superblocks reused,
        // which the checked threads' few sectors rarely meet. A read that
        // differs or fails fails the round.
        if let Some((at, id_was, m)) = last.replace((lba, id, n)) {
            let mut buf = vec![0u8; m as usize * ss];
            match shared.read(Lba(at), &mut buf) {
                Ok(()) => {
                    let want: Vec<u8> = (0..m)
                        .flat_map(|k| sector_bytes(id_was, at + k, ss))
                        .collect();
                    if buf != want {
                        return Err(format!(
                            "background writer: sectors {at}..{} read back other data than written",
                            at + m
                        ));
                    }
                }
                Err(e) if e.is_power_loss() => return Ok(ops),
                Err(e) => return Err(format!("background writer, read back of sector {at}: {e}")),
            }
        }
        lba += n;
        if lba == end {
            lba = first;
        }
    }
    Ok(ops)
}

/// Decides whether `history` and the `recovered` device (the write id of
/// each of the first `sectors` sectors) are linearizable under the
/// snapshot contract (module documentation). `Ok`: the states the search
/// visited; `Err`: why not.
pub fn check_history(history: &[Op], recovered: &[u64], sectors: u64) -> Result<u64, String> {
    if history.len() > MAX_SEARCH_OPS {
        return Err(format!(
            "more than {MAX_SEARCH_OPS} operations: too many to search"
        ));
    }
    let mut search = Search {
        ops: history,
        recovered,
        seen: HashSet::new(),
        visited: 0,
    };
    let mut state = vec![0u64; sectors as usize];
    // The formatted device is a commit point too.
    if search.mark_here(0, &mut state) || search.dfs(0, &mut state, false) {
        return Ok(search.visited);
    }
    let completed_flushes = history
        .iter()
        .filter(|o| matches!(o.kind, OpKind::Flush { .. }) && o.ret.is_some())
        .count();
    Err(format!(
        "no order of the {} operations explains every read and the recovered device \
         ({completed_flushes} flushes completed before the cut); {} states searched",
        history.len(),
        search.visited
    ))
}

struct Search<'a> {
    ops: &'a [Op],
    recovered: &'a [u64],
    seen: HashSet<(u128, Vec<u64>, bool)>,
    visited: u64,
}

impl Search<'_> {
    /// Whether the operations not in `done` can be ordered after it, from
    /// `state`; `marked`: the crash point is behind.
    fn dfs(&mut self, done: u128, state: &mut Vec<u64>, marked: bool) -> bool {
        let all_completed = self
            .ops
            .iter()
            .enumerate()
            .all(|(i, o)| o.ret.is_none() || done & (1 << i) != 0);
        if all_completed && marked {
            return true;
        }
        if !self.seen.insert((done, state.clone(), marked)) {
            return false;
        }
        self.visited += 1;
        // The first return among the operations left: whatever was invoked
        // after it cannot come next.
        let horizon = self
            .ops
            .iter()
            .enumerate()
            .filter(|(i, _)| done & (1 << i) == 0)
            .filter_map(|(_, o)| o.ret)
            .min()
            .unwrap_or(u64::MAX);
        for i in 0..self.ops.len() {
            let o = &self.ops[i];
            if done & (1 << i) != 0 || o.invoke > horizon {
                continue;
            }
            let next = done | (1 << i);
            match &o.kind {
                OpKind::Read { lba, seen } => {
                    let l = *lba as usize;
                    if state[l..l + seen.len()] != seen[..] {
                        continue;
                    }
                    if self.dfs(next, state, marked) {
                        return true;
                    }
                }
                OpKind::Write {
                    lba,
                    n,
                    id,
                    barrier,
                } => {
                    // The barrier before it is a commit point: the crash
                    // point may be there.
                    if *barrier && !marked && self.mark_here(done, state) {
                        return true;
                    }
                    let l = *lba as usize;
                    let old: Vec<u64> = state[l..l + *n as usize].to_vec();
                    state[l..l + *n as usize].fill(*id);
                    let ok = self.dfs(next, state, marked);
                    state[l..l + *n as usize].copy_from_slice(&old);
                    if ok {
                        return true;
                    }
                }
                OpKind::Flush { flushed } => {
                    // A completed flush that committed is durable: it
                    // comes before the crash point. (One that found its
                    // changes covered constrains the mark instead:
                    // `mark_here`.)
                    if marked && o.ret.is_some() && *flushed {
                        continue;
                    }
                    // One that committed (or may have) is a commit point.
                    let commits = *flushed || o.ret.is_none();
                    if commits && !marked && self.mark_here(next, state) {
                        return true;
                    }
                    if self.dfs(next, state, marked) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Tries the crash point right after the operations in `done`. A
    /// completed flush that found its changes covered by an earlier one
    /// promises that every write that returned before it was invoked is
    /// durable: those must all be before the crash point.
    fn mark_here(&mut self, done: u128, state: &mut Vec<u64>) -> bool {
        if state.as_slice() != self.recovered {
            return false;
        }
        let promised = self.ops.iter().all(|b| match (&b.kind, b.ret) {
            (OpKind::Flush { flushed: false }, Some(_)) => {
                self.ops.iter().enumerate().all(|(i, o)| {
                    done & (1 << i) != 0
                        || !matches!(o.kind, OpKind::Write { .. })
                        || !matches!(o.ret, Some(r) if r < b.invoke)
                })
            }
            _ => true,
        });
        promised && self.dfs(done, state, true)
    }
}
