//! `CrashFlash`: the power-loss fault layer.
//!
//! It wraps a clean backend (any [`RawFlash`], normally [`crate::MemFlash`]),
//! forwards every command to it, and remembers what a power cut could undo:
//! every program and erase not yet covered by a completed `sync` (the
//! *in-flight set*). For each page those commands touched it keeps the
//! page's image before the first of them and the image after each of them
//! (an erase counts as one command on every page of its block).
//!
//! A power cut is armed with [`CrashFlash::set_crash_at`]: the n-th counted
//! command from now on fails with [`FlashError::PowerLoss`] without taking
//! effect, and so does every command after it (reads included) until
//! [`CrashFlash::crash`] (or [`CrashFlash::apply_outcome`]) turns the device
//! into a post-crash device and powers it back on. [`CrashFlash::crash`] may
//! also be called with nothing armed: that is a power cut between two
//! commands.
//!
//! # Which commands count
//!
//! Crash points are the boundaries between the commands that change durable
//! state: `program`, `erase`, `sync` and `nvram_write`. Reads do not count: a
//! crash just before a read leaves the same device as a crash just after the
//! previous counted command, so counting reads would only repeat crash states.
//! `commands_issued()` counts the counted commands let through to the backend
//! (including ones the backend then refused for a NAND rule violation, which
//! change nothing).
//!
//! # The post-crash device
//!
//! Each touched page independently ends up as one of: its image before the
//! first in-flight command (`old`), its image after any but the last
//! (`intermediate`), after the last (`final`), or torn garbage (`torn`: a
//! programmed page whose bytes are a random-length prefix of one in-flight
//! command's result followed by random bytes, or random bytes throughout).
//! Commands on one page apply in order, so a page never shows a later
//! command's result without the earlier ones; pages are independent of each
//! other. Untouched pages and the battery-backed buffer are never changed.
//! Producing the post-crash device costs time proportional to the in-flight
//! set, not the device: only touched pages are rewritten, through
//! [`RawFlash::set_page_image`]. Every random byte comes from the caller's
//! seeded generator.
//!
//! Invariants:
//! - `histories[index[p]].page == p` for every tracked page `p`, and
//!   `index` has exactly one entry per history;
//! - every history holds at least one image: `images[0]` is the page before
//!   the first in-flight command, `images[k]` after the k-th, and the image
//!   after the newest command is not stored — it is what the backend holds
//!   now (so a program costs no copy of the page);
//! - the power state (counted commands, the armed cut, power off) is a
//!   `PowerSwitch`, shared with the image backend's crash layer.

use rand::{Rng, RngCore};
use std::collections::HashMap;

use crate::{
    BlockId, FlashCounters, FlashError, Geometry, PageAddr, PageImage, ProgramCmd, RawFlash,
    ReadCmd, Result, ERASED_BYTE,
};

/// `CrashPolicy::Random` tears one touched page in this many.
const RANDOM_TORN_ONE_IN: u32 = 8;

/// What a power cut leaves behind on the pages in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrashPolicy {
    /// The paper's test (§7.1): every touched page becomes torn garbage.
    AllGarbage,
    /// Per page, independently: torn with probability 1/8, otherwise old,
    /// any intermediate or final with equal probability. (Torn pages are the
    /// costly outcome to produce, and `AllGarbage` covers them in bulk.)
    Random,
    /// Every in-flight command completed (the device as it looks now).
    AllApplied,
    /// No in-flight command took effect.
    NoneApplied,
}

impl CrashPolicy {
    pub const ALL: [CrashPolicy; 4] = [
        CrashPolicy::AllGarbage,
        CrashPolicy::Random,
        CrashPolicy::AllApplied,
        CrashPolicy::NoneApplied,
    ];

    /// Kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            CrashPolicy::AllGarbage => "all-garbage",
            CrashPolicy::Random => "random",
            CrashPolicy::AllApplied => "all-applied",
            CrashPolicy::NoneApplied => "none-applied",
        }
    }
}

/// The fate of one touched page in a post-crash device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PageOutcome {
    /// Image `k` of the page's history: 0 is the image before the first
    /// in-flight command, `k` the image after the k-th.
    Image(usize),
    /// Torn garbage.
    Torn,
}

/// One outcome class of one touched page, for exhaustive enumeration
/// ([`CrashFlash::page_classes`], [`CrashFlash::crash_with_classes`]).
///
/// What recovery can tell apart about a page is whether it reads as erased,
/// as one of the images its in-flight commands produced, or as something
/// else, and — because recovery reads only a prefix of some pages (the
/// header and pairs of a delta page) — whether a damaged page's start is
/// intact. So a torn page is one of two fixed classes: `Prefix` (the first
/// half of a program's result, then random bytes: the start reads as
/// written, everything after it and the OOB do not) and `Garbage` (random
/// bytes throughout: nothing reads as written, nor as erased). A torn page
/// that reads as erased is the image before the program (or after the
/// erase), which is already an `Image` class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PageClass {
    /// Image `k` of the page's history (as in [`PageOutcome::Image`]).
    Image(usize),
    /// The first half of the data of image `k` (the result of a program),
    /// the rest of the data and the whole OOB random.
    Prefix(usize),
    /// Random bytes throughout (a programmed page).
    Garbage,
    /// A split tear ([`MediaFaults::split_tears`]): image `image` (the
    /// result of a program) with bytes `at..at + len` of its data followed
    /// by its OOB replaced by random bytes; the window lies in the data
    /// (the OOB whole) or in the OOB (the data whole). Offered only with
    /// split tears on, one class per window: each `split_unit`-byte window
    /// of the data ([`MediaFaults::split_unit`], 512 by default: every
    /// 512-byte boundary of a page) and each 8-byte window of the OOB (a
    /// CRC or a marker word: so a structure that checks one part of the
    /// OOB and trusts another is shown a state where they disagree).
    Damaged { image: usize, at: u32, len: u32 },
}

/// Bytes of each OOB window a [`PageClass::Damaged`] class damages.
pub const SPLIT_OOB_UNIT: u32 = 8;

/// Media behaviours real NAND has that the default model leaves out; each is
/// opt-in per run (docs/FORMAT.md, media assumptions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MediaFaults {
    /// MLC paired pages: an interrupted program of an upper page (its
    /// in-flight program not applied, or torn) also destroys its paired
    /// lower page, even if that page was synced long ago.
    pub paired_pages: Option<PagePairing>,
    /// An interrupted erase of a programmed page that left it reading as
    /// erased is unstable: the next program of that page does not hold
    /// (reads back as random bytes) until the block is erased again.
    pub unstable_erase: bool,
    /// Split tears: data and OOB are separate areas of a page, so an
    /// interrupted program can leave one of them whole and the other
    /// damaged. Half of the torn pages of a crash (`Torn` outcomes) are
    /// then the program's result with the OOB damaged (the data intact) or
    /// the data damaged (the OOB intact): a random byte range replaced by
    /// random bytes, or one to four bytes changed. A structure whose CRC
    /// leaves out the other area, or part of one, is accepted whole.
    pub split_tears: bool,
    /// Silent bad blocks: a bad block (factory bad, worn out, or retired
    /// by the FTL) accepts erases and programs without an error, and every
    /// page programmed into it reads back with one to four bytes changed.
    /// An FTL must then keep its own bad marks and never use such a block
    /// again, rather than rely on the device refusing it.
    pub silent_bad_blocks: bool,
    /// Bytes of each data window a [`PageClass::Damaged`] class (the
    /// exhaustive form of a split tear) damages; 0 means 512. Random
    /// mode's split tears draw their ranges and ignore it.
    pub split_unit: u32,
}

impl MediaFaults {
    /// [`MediaFaults::split_unit`], with 0 read as its default, 512.
    pub fn split_unit_bytes(self) -> u32 {
        if self.split_unit == 0 {
            512
        } else {
            self.split_unit
        }
    }
}

/// Which pages of a block share cells (MLC lower/upper pairs): pages are
/// taken in groups of `2 * stride`; in each group page `i < stride` is the
/// lower page of page `i + stride`. `stride` 1 pairs (0,1), (2,3), ...;
/// stride 2 pairs (0,2), (1,3), (4,6), (5,7), ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PagePairing {
    pub stride: u32,
}

impl PagePairing {
    /// The lower page paired with `page`, if `page` is an upper page.
    pub fn lower_of(self, page: u32) -> Option<u32> {
        let s = self.stride.max(1);
        (page % (2 * s) >= s).then(|| page - s)
    }
}

/// The fate of one touched page, as `crash_with` settles it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Image(usize),
    /// Torn, drawn from the generator (which command, which prefix).
    Torn,
    Prefix(usize),
    Garbage,
    Damaged(usize, u32, u32),
}

/// What a crash did, page by page, summed up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrashReport {
    /// Pages touched by in-flight commands.
    pub pages: usize,
    /// Pages left as before the first in-flight command.
    pub old: usize,
    /// Pages left in an intermediate state.
    pub intermediate: usize,
    /// Pages with every in-flight command applied.
    pub applied: usize,
    /// Pages left as torn garbage.
    pub torn: usize,
    /// Whether an armed power cut had fired (false: cut between commands).
    pub fired: bool,
    /// Synced lower pages destroyed by an interrupted upper-page program
    /// ([`MediaFaults::paired_pages`]).
    pub paired_lost: usize,
    /// Pages left reading as erased but unstable
    /// ([`MediaFaults::unstable_erase`]).
    pub unstable: usize,
}

#[derive(Clone)]
struct PageHistory {
    page: PageAddr,
    /// `images[0]`: before the first in-flight command; `images[k]`: after
    /// the k-th. The image after the newest command is the backend's.
    images: Vec<PageImage>,
    /// Sequence number (in `commands`) of each in-flight command on the
    /// page, oldest first: `images[k + 1]` (or the backend's image) is the
    /// result of command `seqs[k]`.
    seqs: Vec<u64>,
    /// Whether each of those commands was an erase.
    erases: Vec<bool>,
}

/// The power state both crash layers share ([`CrashFlash`] over NAND and
/// `ImageCrashFlash` over an image file): counted commands, an armed cut,
/// whether power is off, and crashes so far.
///
/// Invariant: `off` implies `cut_at` is `None`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PowerSwitch {
    commands: u64,
    cut_at: Option<u64>,
    off: bool,
    crashes: u64,
    /// Erase commands admitted so far.
    erases: u64,
    /// Arms a cut at the next counted command once `erases` reaches this.
    cut_after_erase: Option<u64>,
}

/// One counted command in a crash layer's opt-in command log
/// ([`CrashFlash::log_commands`]), with its sequence number among the
/// layer's counted commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoggedCommand {
    Program {
        seq: u64,
        page: PageAddr,
    },
    Erase {
        seq: u64,
        block: BlockId,
    },
    /// A completed sync that made durable every command numbered up to
    /// `through` (a whole sync: itself; a sync behind: its ticket's).
    Sync {
        seq: u64,
        through: u64,
    },
}

/// The opt-in log of counted commands both crash layers keep (`None`:
/// off, the default). A checker that wants the order of an operation's
/// commands (the refinement oracle: was a page synced before an erase?)
/// turns it on and drains it after each operation.
#[derive(Clone, Debug, Default)]
pub(crate) struct CommandLog(Option<Vec<LoggedCommand>>);

impl CommandLog {
    pub(crate) fn set(&mut self, on: bool) {
        self.0 = on.then(Vec::new);
    }

    pub(crate) fn push(&mut self, c: LoggedCommand) {
        if let Some(l) = &mut self.0 {
            l.push(c);
        }
    }

    /// Logs a program of `page` as counted command `seq`.
    pub(crate) fn program(&mut self, seq: u64, page: PageAddr) {
        self.push(LoggedCommand::Program { seq, page });
    }

    pub(crate) fn take(&mut self) -> Option<Vec<LoggedCommand>> {
        self.0.as_mut().map(std::mem::take)
    }
}

impl PowerSwitch {
    /// Arms a cut after `n` more counted commands (ignored while off).
    pub(crate) fn arm(&mut self, n: u64) {
        if !self.off {
            self.cut_at = Some(self.commands.saturating_add(n));
        }
    }

    /// Arms a cut right after the `n`-th next erase (1 = the next one):
    /// the first counted command after it finds the power off, so the
    /// erase is the last command of the run (ignored while off).
    pub(crate) fn arm_after_erases(&mut self, n: u64) {
        if !self.off {
            self.cut_after_erase = Some(self.erases.saturating_add(n.max(1)));
        }
    }

    pub(crate) fn disarm(&mut self) {
        self.cut_at = None;
        self.cut_after_erase = None;
    }

    /// Cuts power now, between two commands.
    pub(crate) fn cut(&mut self) {
        self.cut_at = None;
        self.cut_after_erase = None;
        self.off = true;
    }

    /// Counts an admitted erase (after [`PowerSwitch::begin_command`]);
    /// fires [`PowerSwitch::arm_after_erases`].
    pub(crate) fn erase_admitted(&mut self) {
        self.erases += 1;
        if self.cut_after_erase.is_some_and(|at| self.erases >= at) {
            self.cut_after_erase = None;
            self.cut_at = Some(self.commands);
        }
    }

    pub(crate) fn erases(&self) -> u64 {
        self.erases
    }

    /// Counted commands left before the armed cut fires.
    pub(crate) fn pending(&self) -> Option<u64> {
        self.cut_at.map(|at| at.saturating_sub(self.commands))
    }

    pub(crate) fn is_off(&self) -> bool {
        self.off
    }

    pub(crate) fn commands(&self) -> u64 {
        self.commands
    }

    pub(crate) fn crashes(&self) -> u64 {
        self.crashes
    }

    /// Admits one counted command, or cuts power (the armed cut fires).
    pub(crate) fn begin_command(&mut self) -> Result<()> {
        self.check()?;
        if self.cut_at.is_some_and(|at| self.commands >= at) {
            self.cut();
            return Err(FlashError::PowerLoss);
        }
        self.commands += 1;
        Ok(())
    }

    /// Fails while power is off (for commands that are not counted).
    pub(crate) fn check(&self) -> Result<()> {
        if self.off {
            Err(FlashError::PowerLoss)
        } else {
            Ok(())
        }
    }

    /// Power is back after a crash was produced.
    pub(crate) fn restore(&mut self) {
        self.off = false;
        self.cut_at = None;
        self.cut_after_erase = None;
        self.crashes += 1;
    }
}

/// A fault layer that cuts power on command and produces post-crash devices.
pub struct CrashFlash<F> {
    inner: F,
    geometry: Geometry,
    histories: Vec<PageHistory>,
    index: HashMap<u64, usize>,
    power: PowerSwitch,
    /// Page buffers of dropped images, reused for new ones (saves the
    /// allocator, and the page faults of a heap that grows and shrinks).
    pool_data: Vec<Box<[u8]>>,
    pool_oob: Vec<Box<[u8]>>,
    /// Reads this layer issued itself (hidden from `counters()`).
    own_reads: u64,
    own_bytes_read: u64,
    faults: MediaFaults,
    /// Pages that read as erased after an interrupted erase but will not
    /// hold a program (by page index).
    unstable: std::collections::HashSet<u64>,
    /// Injected media failures still to come.
    inject: Injection,
    /// Emptied page histories, reused by `record` (their vectors keep
    /// their capacity).
    spare_histories: Vec<PageHistory>,
    log: CommandLog,
}

/// Media failures armed in a [`CrashFlash`]: the n-th next program or
/// erase fails (1 = the next one).
/// The image backend (`file/crash.rs`) keeps one too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Injection {
    pub(crate) program_in: Option<u64>,
    /// The next this many programs fail (after `program_in`'s, if armed).
    pub(crate) program_run: u64,
    pub(crate) erase_in: Option<u64>,
    pub(crate) programs_failed: u64,
    pub(crate) erases_failed: u64,
}

impl Injection {
    /// Counts one program that would take effect; true when it is to fail
    /// (and counts the failure).
    pub(crate) fn program_fails(&mut self) -> bool {
        let in_run = self.program_run > 0;
        if in_run {
            self.program_run -= 1;
        }
        let fails = count_down(&mut self.program_in) || in_run;
        if fails {
            self.programs_failed += 1;
        }
        fails
    }

    /// Counts one erase; true when it is to fail (and counts the failure).
    pub(crate) fn erase_fails(&mut self) -> bool {
        let fails = count_down(&mut self.erase_in);
        if fails {
            self.erases_failed += 1;
        }
        fails
    }

    /// True when a program would fail within the next `n` programs.
    pub(crate) fn program_armed_within(&self, n: u64) -> bool {
        self.program_run > 0 || self.program_in.is_some_and(|k| k <= n)
    }
}

/// Counts one more command against an armed countdown; true when it is the
/// one that fails (the countdown is then disarmed).
fn count_down(armed: &mut Option<u64>) -> bool {
    match armed {
        Some(1) => {
            *armed = None;
            true
        }
        Some(n) => {
            *n -= 1;
            false
        }
        None => false,
    }
}

/// Most page buffers kept for reuse.
const POOL_MAX: usize = 512;

impl<F: RawFlash> CrashFlash<F> {
    /// Wraps a backend. Whatever the backend holds now counts as durable.
    pub fn new(inner: F) -> CrashFlash<F> {
        let geometry = *inner.geometry();
        CrashFlash {
            inner,
            geometry,
            histories: Vec::new(),
            index: HashMap::new(),
            power: PowerSwitch::default(),
            pool_data: Vec::new(),
            pool_oob: Vec::new(),
            own_reads: 0,
            own_bytes_read: 0,
            faults: MediaFaults::default(),
            unstable: std::collections::HashSet::new(),
            inject: Injection::default(),
            spare_histories: Vec::new(),
            log: CommandLog::default(),
        }
    }

    /// Turns the command log on (empty) or off. While on, every counted
    /// program, erase and completed sync is recorded in order until
    /// [`CrashFlash::take_commands`] drains it.
    pub fn log_commands(&mut self, on: bool) {
        self.log.set(on);
    }

    /// The commands logged since the last call (`None`: the log is off).
    pub fn take_commands(&mut self) -> Option<Vec<LoggedCommand>> {
        self.log.take()
    }

    /// Makes the `n`-th next program (1 = the next one, counted among
    /// programs only) fail with [`crate::FlashError::ProgramFailed`], as
    /// worn NAND does: the page is consumed with unspecified content
    /// (zeros here), the block's other pages keep theirs. The failure is
    /// a command like any other for power cuts; `n = 0` disarms.
    pub fn fail_nth_program(&mut self, n: u64) {
        self.inject.program_in = (n > 0).then_some(n);
    }

    /// Makes the next `count` programs fail, each as
    /// [`CrashFlash::fail_nth_program`] describes (a run of failures: an
    /// FTL's retry fails too).
    pub fn fail_program_run(&mut self, count: u64) {
        self.inject.program_run = count;
    }

    /// Makes the `n`-th next erase (1 = the next one) fail with
    /// [`crate::FlashError::EraseFailed`]: no page changes and the block is
    /// worn out from then on (its wear record says so, and every later
    /// program or erase of it fails). `n = 0` disarms.
    pub fn fail_nth_erase(&mut self, n: u64) {
        self.inject.erase_in = (n > 0).then_some(n);
    }

    /// Injected program and erase failures so far.
    pub fn injected_failures(&self) -> (u64, u64) {
        (self.inject.programs_failed, self.inject.erases_failed)
    }

    /// A copy of this device, in-flight set and power state included, over
    /// `fresh` (an erased backend of the same geometry, which receives every
    /// programmed page and the battery-backed buffer). Exhaustive checking
    /// forks a crash state this way instead of replaying its script.
    pub fn duplicate(&mut self, mut fresh: F) -> Result<CrashFlash<F>> {
        let g = self.geometry;
        for i in 0..g.total_pages() {
            let page = g.page_at(i);
            if let img @ PageImage::Programmed { .. } = self.inner.page_image(page)? {
                fresh.set_page_image(page, img)?;
            }
        }
        for b in 0..g.total_blocks() {
            let w = self.inner.block_wear(BlockId(b))?;
            if w != fresh.block_wear(BlockId(b))? {
                fresh.set_block_wear(BlockId(b), w)?;
            }
        }
        let n = self.inner.nvram_size().min(fresh.nvram_size());
        if n > 0 {
            let mut nv = vec![0u8; n];
            // The backend's own read: this layer's power state must not
            // stop a copy.
            self.inner.nvram_read(0, &mut nv)?;
            fresh.nvram_write(0, &nv)?;
        }
        Ok(self.over(fresh))
    }

    /// This layer's state (in-flight set, power, faults, counters of its
    /// own) over the backend `inner`.
    fn over<G>(&self, inner: G) -> CrashFlash<G> {
        CrashFlash {
            inner,
            geometry: self.geometry,
            histories: self.histories.clone(),
            index: self.index.clone(),
            power: self.power,
            pool_data: Vec::new(),
            pool_oob: Vec::new(),
            own_reads: self.own_reads,
            own_bytes_read: self.own_bytes_read,
            faults: self.faults,
            unstable: self.unstable.clone(),
            inject: self.inject,
            spare_histories: Vec::new(),
            log: self.log.clone(),
        }
    }

    /// Turns on media behaviours the default model leaves out.
    pub fn set_media_faults(&mut self, faults: MediaFaults) {
        self.faults = faults;
    }

    /// The media behaviours in force.
    pub fn media_faults(&self) -> MediaFaults {
        self.faults
    }

    /// The backend (its content is the newest queued content).
    pub fn inner(&self) -> &F {
        &self.inner
    }

    /// Mutable access to the backend, bypassing the fault layer. Changes
    /// made this way are not tracked.
    pub fn inner_mut(&mut self) -> &mut F {
        &mut self.inner
    }

    /// Unwraps the backend, which keeps the newest queued content (as if
    /// every in-flight command completed).
    pub fn into_inner(self) -> F {
        self.inner
    }

    /// Arms a power cut: after `n` more counted commands (program, erase,
    /// sync, nvram write) the next one fails with [`FlashError::PowerLoss`]
    /// without taking effect. `set_crash_at(0)` cuts the very next one.
    /// Replaces any earlier armed cut. Ignored while powered off.
    pub fn set_crash_at(&mut self, n: u64) {
        self.power.arm(n);
    }

    /// Cuts power right after the `n`-th next erase command (1 = the
    /// next one), at the first counted command after it; replaces an
    /// armed cut of [`CrashFlash::set_crash_at`] only when it fires first.
    /// Ignored while powered off.
    pub fn set_crash_after_erase(&mut self, n: u64) {
        self.power.arm_after_erases(n);
    }

    /// Erase commands admitted so far.
    pub fn erases_issued(&self) -> u64 {
        self.power.erases()
    }

    /// Cuts power now, between two commands (as an armed cut does when it
    /// fires): every command fails until [`CrashFlash::crash`].
    pub fn cut_power(&mut self) {
        self.power.cut();
    }

    /// Disarms a pending power cut (does not revive a device that already
    /// lost power).
    pub fn disarm(&mut self) {
        self.power.disarm();
    }

    /// Counted commands left before an armed cut fires, if one is armed.
    pub fn crash_pending(&self) -> Option<u64> {
        self.power.pending()
    }

    /// True after an armed power cut fired and before [`CrashFlash::crash`].
    pub fn is_powered_off(&self) -> bool {
        self.power.is_off()
    }

    /// Counted commands let through to the backend since creation.
    pub fn commands_issued(&self) -> u64 {
        self.power.commands()
    }

    /// Crashes produced so far.
    pub fn crashes(&self) -> u64 {
        self.power.crashes()
    }

    /// Number of pages touched by in-flight commands.
    pub fn in_flight_pages(&self) -> usize {
        self.histories.len()
    }

    /// Touched pages in the order they were first touched, each with the
    /// number of in-flight commands on it.
    pub fn in_flight(&self) -> impl Iterator<Item = (PageAddr, usize)> + '_ {
        self.histories.iter().map(|h| (h.page, h.images.len()))
    }

    /// The images of a touched page: before the first in-flight command,
    /// then after each one (the last is the backend's current content).
    /// `None` if the page is not in flight.
    pub fn page_history(&self, page: PageAddr) -> Option<Vec<PageImage>> {
        let &i = self.index.get(&self.geometry.page_index(page))?;
        let mut v = self.histories[i].images.clone();
        v.push(self.inner.page_image(page).ok()?);
        Some(v)
    }

    /// Number of choices each touched page has (its images plus torn), in
    /// first-touch order.
    pub fn outcome_choices(&self) -> Vec<usize> {
        self.histories.iter().map(|h| h.images.len() + 2).collect()
    }

    /// Number of distinct post-crash outcomes (the product of every page's
    /// choices, torn counting as one), saturating at `u64::MAX`. One when
    /// nothing is in flight.
    pub fn outcome_count(&self) -> u64 {
        self.histories
            .iter()
            .fold(1u64, |acc, h| acc.saturating_mul(h.images.len() as u64 + 2))
    }

    /// Decodes an outcome index (`0..outcome_count()`) into per-page
    /// outcomes, in first-touch order: a mixed-radix number whose first
    /// digit is the first page's choice.
    pub fn decode_outcome(&self, mut index: u64) -> Vec<PageOutcome> {
        self.histories
            .iter()
            .map(|h| {
                let choices = h.images.len() as u64 + 2;
                let digit = (index % choices) as usize;
                index /= choices;
                if digit <= h.images.len() {
                    PageOutcome::Image(digit)
                } else {
                    PageOutcome::Torn
                }
            })
            .collect()
    }

    /// The outcome classes of each touched page, in first-touch order (see
    /// [`PageClass`]): every distinct image of its history (an image equal
    /// to an earlier one is left out), then, if any in-flight command
    /// changed the page, `Prefix` for each program among them and
    /// `Garbage`. An erase of an already erased page changes nothing
    /// physically, so such a page has the one class `Image(0)`.
    pub fn page_classes(&self) -> Result<Vec<Vec<PageClass>>> {
        let mut out = Vec::with_capacity(self.histories.len());
        for h in &self.histories {
            let last = self.inner.page_image(h.page)?;
            let image = |k: usize| -> &PageImage { h.images.get(k).unwrap_or(&last) };
            let n = h.images.len();
            let mut classes: Vec<PageClass> = Vec::new();
            for k in 0..=n {
                if (0..k).all(|j| image(j) != image(k)) {
                    classes.push(PageClass::Image(k));
                }
            }
            if classes.len() > 1 {
                for k in 1..=n {
                    if !h.erases[k - 1] {
                        classes.push(PageClass::Prefix(k));
                    }
                }
                classes.push(PageClass::Garbage);
                if self.faults.split_tears {
                    for k in 1..=n {
                        if !h.erases[k - 1] {
                            self.push_damaged(k, &mut classes);
                        }
                    }
                }
            }
            out.push(classes);
        }
        Ok(out)
    }

    /// The [`PageClass::Damaged`] classes of image `k`: each data window,
    /// then each OOB window.
    fn push_damaged(&self, k: usize, classes: &mut Vec<PageClass>) {
        let ps = self.geometry.page_size() as u32;
        let oob = self.geometry.oob_size;
        let unit = self.faults.split_unit_bytes().min(ps);
        for at in (0..ps).step_by(unit as usize) {
            let len = unit.min(ps - at);
            classes.push(PageClass::Damaged { image: k, at, len });
        }
        for at in (0..oob).step_by(SPLIT_OOB_UNIT as usize) {
            let len = SPLIT_OOB_UNIT.min(oob - at);
            classes.push(PageClass::Damaged {
                image: k,
                at: ps + at,
                len,
            });
        }
    }

    /// The outcome of an in-order cut: the first `j` in-flight commands (in
    /// issue order) applied and none after them, as a device that executes
    /// in order and is cut after its j-th command since the last sync
    /// leaves it. Per touched page, the `Image` class it falls in (the
    /// first image of its history equal to the one left).
    pub fn in_order_cut(&self, j: usize) -> Result<Vec<PageClass>> {
        let seqs = self.in_flight_seqs();
        let bound = seqs.get(j).copied().unwrap_or(u64::MAX);
        let mut out = Vec::with_capacity(self.histories.len());
        for h in &self.histories {
            let k = h.seqs.iter().filter(|&&s| s < bound).count();
            let last = self.inner.page_image(h.page)?;
            let image = |i: usize| -> &PageImage { h.images.get(i).unwrap_or(&last) };
            let first = (0..=k).find(|&i| image(i) == image(k)).unwrap_or(k);
            out.push(PageClass::Image(first));
        }
        Ok(out)
    }

    /// The pages (indices in first-touch order) the `j`-th in-flight command
    /// touched (an erase touches every page of its block).
    pub fn command_pages(&self, j: usize) -> Vec<usize> {
        let seqs = self.in_flight_seqs();
        let Some(&seq) = seqs.get(j) else {
            return Vec::new();
        };
        (0..self.histories.len())
            .filter(|&i| self.histories[i].seqs.contains(&seq))
            .collect()
    }

    /// Sequence numbers of the in-flight commands, oldest first.
    pub fn in_flight_seqs(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .histories
            .iter()
            .flat_map(|h| h.seqs.iter().copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Produces the post-crash device with the given per-page classes (in
    /// first-touch order) and powers it on. Lenient, so a shrunk script
    /// stays well-defined: missing pages keep their final image, extra
    /// entries are ignored, and a class past a page's history is clamped.
    pub fn crash_with_classes(
        &mut self,
        classes: &[PageClass],
        rng: &mut dyn RngCore,
    ) -> Result<CrashReport> {
        let fates: Vec<Fate> = self
            .histories
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let n = h.images.len();
                match classes.get(i) {
                    None => Fate::Image(n),
                    Some(PageClass::Image(k)) => Fate::Image((*k).min(n)),
                    Some(PageClass::Prefix(k)) => Fate::Prefix((*k).clamp(1, n)),
                    Some(PageClass::Garbage) => Fate::Garbage,
                    Some(PageClass::Damaged { image, at, len }) => {
                        Fate::Damaged((*image).clamp(1, n), *at, *len)
                    }
                }
            })
            .collect();
        self.settle_fates(&fates, rng)
    }

    /// Produces the post-crash device chosen by `policy` and powers it on.
    pub fn crash(&mut self, policy: CrashPolicy, rng: &mut dyn RngCore) -> Result<CrashReport> {
        let outcomes: Vec<PageOutcome> = self
            .histories
            .iter()
            .map(|h| {
                let last = h.images.len();
                match policy {
                    CrashPolicy::AllGarbage => PageOutcome::Torn,
                    CrashPolicy::AllApplied => PageOutcome::Image(last),
                    CrashPolicy::NoneApplied => PageOutcome::Image(0),
                    CrashPolicy::Random => {
                        if rng.gen_ratio(1, RANDOM_TORN_ONE_IN) {
                            PageOutcome::Torn
                        } else {
                            PageOutcome::Image(rng.gen_range(0..=h.images.len()))
                        }
                    }
                }
            })
            .collect();
        self.crash_with(&outcomes, rng)
    }

    /// Produces outcome number `index` of [`CrashFlash::outcome_count`]
    /// (see [`CrashFlash::decode_outcome`]) and powers the device on.
    pub fn apply_outcome(&mut self, index: u64, rng: &mut dyn RngCore) -> Result<CrashReport> {
        let outcomes = self.decode_outcome(index);
        self.crash_with(&outcomes, rng)
    }

    /// Produces the post-crash device with the given per-page outcomes (in
    /// first-touch order, one per touched page) and powers it on. Torn
    /// bytes come from `rng`.
    pub fn crash_with(
        &mut self,
        outcomes: &[PageOutcome],
        rng: &mut dyn RngCore,
    ) -> Result<CrashReport> {
        let fates: Vec<Fate> = outcomes
            .iter()
            .map(|o| match *o {
                PageOutcome::Image(k) => Fate::Image(k),
                PageOutcome::Torn => Fate::Torn,
            })
            .collect();
        self.settle_fates(&fates, rng)
    }

    fn settle_fates(&mut self, outcomes: &[Fate], rng: &mut dyn RngCore) -> Result<CrashReport> {
        if outcomes.len() != self.histories.len() {
            return Err(FlashError::BadLength {
                what: "crash outcomes (one per page in flight)",
                expected: self.histories.len(),
                got: outcomes.len(),
            });
        }
        for (h, o) in self.histories.iter().zip(outcomes) {
            if let Fate::Image(k) | Fate::Prefix(k) | Fate::Damaged(k, ..) = *o {
                if k > h.images.len() {
                    return Err(FlashError::BadLength {
                        what: "crash outcome image index (images of the page)",
                        expected: h.images.len() + 1,
                        got: k,
                    });
                }
            }
        }
        let mut report = CrashReport {
            pages: self.histories.len(),
            fired: self.power.is_off(),
            ..CrashReport::default()
        };
        let histories = std::mem::take(&mut self.histories);
        self.index.clear();
        // Lower pages an interrupted upper-page program destroys, and pages
        // an interrupted erase left unstable.
        let mut lost_lower: Vec<PageAddr> = Vec::new();
        for (h, o) in histories.iter().zip(outcomes) {
            let last = h.images.len();
            let undone_program = match *o {
                Fate::Image(k) => k < last && h.erases.iter().skip(k).any(|e| !e),
                _ => true,
            } && h.erases.iter().any(|e| !e);
            if let (Some(pairing), true) = (self.faults.paired_pages, undone_program) {
                if let Some(lower) = pairing.lower_of(h.page.page) {
                    lost_lower.push(PageAddr {
                        block: h.page.block,
                        page: lower,
                    });
                }
            }
            if self.faults.unstable_erase {
                if let Fate::Image(k) = *o {
                    // Reads as erased because an in-flight erase of a
                    // programmed page took effect.
                    let image_k_erased = if k == last {
                        !h.erases.is_empty() && h.erases[last - 1]
                    } else {
                        k > 0 && h.erases[k - 1] && h.images[k] == PageImage::Erased
                    };
                    let was_programmed = h.images[..k.min(last)]
                        .iter()
                        .any(|i| matches!(i, PageImage::Programmed { .. }));
                    if image_k_erased && was_programmed {
                        self.unstable.insert(self.geometry.page_index(h.page));
                        report.unstable += 1;
                    }
                }
            }
        }
        for (h, o) in histories.into_iter().zip(outcomes) {
            let last = h.images.len();
            let image = match *o {
                Fate::Image(k) if k == last => {
                    // The backend already holds the final image.
                    report.applied += 1;
                    for img in h.images {
                        self.recycle(img);
                    }
                    continue;
                }
                Fate::Image(k) => {
                    if k == 0 {
                        report.old += 1;
                    } else {
                        report.intermediate += 1;
                    }
                    let mut chosen = None;
                    for (i, img) in h.images.into_iter().enumerate() {
                        if i == k {
                            chosen = Some(img);
                        } else {
                            self.recycle(img);
                        }
                    }
                    chosen.expect("checked above")
                }
                Fate::Damaged(k, at, len) => {
                    report.torn += 1;
                    let mut data = take_buf(&mut self.pool_data, self.geometry.page_size());
                    let mut oob = take_buf(&mut self.pool_oob, self.geometry.oob_size as usize);
                    let current;
                    let target = if k < last {
                        &h.images[k]
                    } else {
                        current = self.inner.page_image(h.page)?;
                        &current
                    };
                    if let PageImage::Programmed { data: td, oob: to } = target {
                        data.copy_from_slice(td);
                        oob.copy_from_slice(to);
                        let (at, end) = (at as usize, at as usize + len as usize);
                        let ps = data.len();
                        let seed = rng.next_u64();
                        if at < ps {
                            fill_garbage(&mut data[at..end.min(ps)], seed);
                        } else if at - ps < oob.len() {
                            let o = oob.len();
                            fill_garbage(&mut oob[at - ps..(end - ps).min(o)], seed);
                        }
                    } else {
                        // Lenient (a shrunk script): no program to damage.
                        fill_garbage(&mut data, rng.next_u64());
                        fill_garbage(&mut oob, rng.next_u64());
                    }
                    for img in h.images {
                        self.recycle(img);
                    }
                    PageImage::Programmed { data, oob }
                }
                Fate::Prefix(_) | Fate::Garbage => {
                    report.torn += 1;
                    let mut data = take_buf(&mut self.pool_data, self.geometry.page_size());
                    let mut oob = take_buf(&mut self.pool_oob, self.geometry.oob_size as usize);
                    fill_garbage(&mut data, rng.next_u64());
                    fill_garbage(&mut oob, rng.next_u64());
                    if let Fate::Prefix(k) = *o {
                        let half = data.len() / 2;
                        if k < last {
                            if let PageImage::Programmed { data: td, .. } = &h.images[k] {
                                data[..half].copy_from_slice(&td[..half]);
                            }
                        } else if let PageImage::Programmed { data: td, .. } =
                            self.inner.page_image(h.page)?
                        {
                            data[..half].copy_from_slice(&td[..half]);
                        }
                    }
                    for img in h.images {
                        self.recycle(img);
                    }
                    PageImage::Programmed { data, oob }
                }
                Fate::Torn => {
                    report.torn += 1;
                    let j = rng.gen_range(1..=last);
                    let mut data = take_buf(&mut self.pool_data, self.geometry.page_size());
                    let mut oob = take_buf(&mut self.pool_oob, self.geometry.oob_size as usize);
                    let current;
                    let target = if j < last {
                        &h.images[j]
                    } else {
                        current = self.inner.page_image(h.page)?;
                        &current
                    };
                    // The draw only with split tears on, so runs without
                    // them keep their random streams.
                    if self.faults.split_tears
                        && matches!(target, PageImage::Programmed { .. })
                        && rng.gen_bool(0.5)
                    {
                        split_torn_bytes(target, &mut data, &mut oob, rng);
                    } else {
                        torn_bytes(target, &mut data, &mut oob, rng);
                    }
                    for img in h.images {
                        self.recycle(img);
                    }
                    PageImage::Programmed { data, oob }
                }
            };
            self.inner.set_page_image(h.page, image)?;
        }
        for lower in lost_lower {
            if let PageImage::Programmed { .. } = self.inner.page_image(lower)? {
                let mut data = take_buf(&mut self.pool_data, self.geometry.page_size());
                let mut oob = take_buf(&mut self.pool_oob, self.geometry.oob_size as usize);
                fill_garbage(&mut data, rng.next_u64());
                fill_garbage(&mut oob, rng.next_u64());
                self.inner
                    .set_page_image(lower, PageImage::Programmed { data, oob })?;
                report.paired_lost += 1;
            }
        }
        self.power.restore();
        Ok(report)
    }

    /// Admits one counted command, or cuts power.
    fn begin_command(&mut self) -> Result<()> {
        self.power.begin_command()
    }

    fn check_power(&self) -> Result<()> {
        self.power.check()
    }

    /// The page's current content, read into pooled buffers. A page whose
    /// first bytes read as erased is asked for its exact state (an
    /// erased page costs nothing that way; a programmed one would cost an
    /// allocation).
    fn capture(&mut self, page: PageAddr) -> Result<PageImage> {
        let ps = self.geometry.page_size();
        let ss = self.geometry.sector_size as usize;
        let mut data = take_buf(&mut self.pool_data, ps);
        self.inner.read(page, 0, &mut data[..ss])?;
        self.own_reads += 1;
        self.own_bytes_read += ss as u64;
        // Only a short prefix is checked: a programmed page that starts
        // with it is merely slower (page_image is exact either way).
        if data[..ss.min(64)].iter().all(|&b| b == ERASED_BYTE) {
            self.pool_data.push(data);
            return self.inner.page_image(page);
        }
        if ps > ss {
            self.inner.read(page, 1, &mut data[ss..])?;
            self.own_reads += 1;
            self.own_bytes_read += (ps - ss) as u64;
        }
        let mut oob = take_buf(&mut self.pool_oob, self.geometry.oob_size as usize);
        self.inner.read_oob(page, &mut oob)?;
        self.own_reads += 1;
        self.own_bytes_read += oob.len() as u64;
        Ok(PageImage::Programmed { data, oob })
    }

    /// Keeps a dropped image's buffers for reuse.
    fn recycle(&mut self, img: PageImage) {
        if let PageImage::Programmed { data, oob } = img {
            if self.pool_data.len() < POOL_MAX && data.len() == self.geometry.page_size() {
                self.pool_data.push(data);
            }
            if self.pool_oob.len() < POOL_MAX && oob.len() == self.geometry.oob_size as usize {
                self.pool_oob.push(oob);
            }
        }
    }

    /// Drops the in-flight set (after a sync), keeping buffers for reuse.
    fn settle(&mut self) {
        let mut histories = std::mem::take(&mut self.histories);
        self.index.clear();
        for h in &mut histories {
            for img in h.images.drain(..) {
                self.recycle(img);
            }
            h.seqs.clear();
            h.erases.clear();
        }
        // The emptied histories keep their vectors for the next commands
        // (three allocations per page an erase or program touches
        // otherwise).
        if self.spare_histories.len() < POOL_MAX {
            self.spare_histories.append(&mut histories);
        }
    }

    /// Makes the in-flight commands numbered `seq` or lower durable (a
    /// sync that covered them finished): each page keeps only the images
    /// before later commands.
    fn settle_through(&mut self, seq: u64) {
        let mut histories = std::mem::take(&mut self.histories);
        let mut kept = Vec::with_capacity(histories.len());
        for mut h in histories.drain(..) {
            let n = h.seqs.iter().take_while(|&&s| s <= seq).count();
            if n == h.seqs.len() {
                for img in h.images.drain(..) {
                    self.recycle(img);
                }
                h.seqs.clear();
                h.erases.clear();
                if self.spare_histories.len() < POOL_MAX {
                    self.spare_histories.push(h);
                }
                continue;
            }
            for img in h.images.drain(..n) {
                self.recycle(img);
            }
            h.seqs.drain(..n);
            h.erases.drain(..n);
            kept.push(h);
        }
        self.index.clear();
        for (i, h) in kept.iter().enumerate() {
            self.index.insert(self.geometry.page_index(h.page), i);
        }
        self.histories = kept;
    }

    /// Notes one more in-flight command on `page`, whose content right
    /// before that command is `current`.
    fn record(&mut self, page: PageAddr, current: PageImage, erase: bool) {
        let key = self.geometry.page_index(page);
        let seq = self.power.commands();
        if let Some(&i) = self.index.get(&key) {
            let h = &mut self.histories[i];
            h.images.push(current);
            h.seqs.push(seq);
            h.erases.push(erase);
        } else {
            self.index.insert(key, self.histories.len());
            let h = match self.spare_histories.pop() {
                Some(mut h) => {
                    h.page = page;
                    h.images.push(current);
                    h.seqs.push(seq);
                    h.erases.push(erase);
                    h
                }
                None => PageHistory {
                    page,
                    images: vec![current],
                    seqs: vec![seq],
                    erases: vec![erase],
                },
            };
            self.histories.push(h);
        }
    }
}

/// Torn garbage into `data` and `oob`: random bytes throughout, or a
/// random-length prefix of `target` (the result of the interrupted command)
/// followed by random bytes.
fn torn_bytes(target: &PageImage, data: &mut [u8], oob: &mut [u8], rng: &mut dyn RngCore) {
    let ps = data.len();
    let os = oob.len();
    fill_garbage(data, rng.next_u64());
    fill_garbage(oob, rng.next_u64());
    if rng.gen_bool(0.5) {
        let keep = rng.gen_range(0..ps + os);
        let d = keep.min(ps);
        let o = keep.saturating_sub(ps);
        match target {
            PageImage::Erased => {
                data[..d].fill(ERASED_BYTE);
                oob[..o].fill(ERASED_BYTE);
            }
            PageImage::Programmed { data: td, oob: to } => {
                data[..d].copy_from_slice(&td[..d]);
                oob[..o].copy_from_slice(&to[..o]);
            }
        }
    }
}

/// A split tear ([`MediaFaults::split_tears`]) into `data` and `oob`: the
/// programmed `target` whole, then, in its OOB (half the time) or its data,
/// a random non-empty byte range replaced by random bytes or one to four
/// bytes changed.
fn split_torn_bytes(target: &PageImage, data: &mut [u8], oob: &mut [u8], rng: &mut dyn RngCore) {
    let PageImage::Programmed { data: td, oob: to } = target else {
        return torn_bytes(target, data, oob, rng);
    };
    data.copy_from_slice(td);
    oob.copy_from_slice(to);
    let area: &mut [u8] = if oob.is_empty() || rng.gen_bool(0.5) {
        data
    } else {
        oob
    };
    if rng.gen_bool(0.5) {
        let start = rng.gen_range(0..area.len());
        let end = rng.gen_range(start + 1..=area.len());
        fill_garbage(&mut area[start..end], rng.next_u64());
    } else {
        // A few bytes anywhere in the area: cells left short of their
        // level.
        for _ in 0..rng.gen_range(1..=4) {
            let at = rng.gen_range(0..area.len());
            area[at] ^= rng.gen_range(1..=u8::MAX);
        }
    }
}

/// The next value of a SplitMix64 stream whose state is `s`.
fn splitmix64(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Changes one to four bytes of `buf` (a silently bad block's program),
/// chosen by `seed`.
fn corrupt_bytes(buf: &mut [u8], seed: u64) {
    let mut s = seed;
    let mut next = || splitmix64(&mut s);
    for _ in 0..1 + next() % 4 {
        let r = next();
        let at = (r % buf.len() as u64) as usize;
        buf[at] ^= ((r >> 32) as u8).max(1);
    }
}

/// A buffer of `len` bytes from the pool (contents unspecified), or a new one.
fn take_buf(pool: &mut Vec<Box<[u8]>>, len: usize) -> Box<[u8]> {
    match pool.pop() {
        Some(b) if b.len() == len => b,
        _ => vec![0u8; len].into_boxed_slice(),
    }
}

/// Fills `buf` with pseudo-random bytes from `seed` (a SplitMix64 stream:
/// much faster than drawing every byte from the caller's generator, and
/// just as determined by its seed).
fn fill_garbage(buf: &mut [u8], seed: u64) {
    let mut s = seed;
    let mut next = || splitmix64(&mut s);
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let w = next().to_le_bytes();
    let n = rest.len();
    rest.copy_from_slice(&w[..n]);
}

impl<F: RawFlash> CrashFlash<F> {
    /// Whether `block` is bad and [`MediaFaults::silent_bad_blocks`] makes it
    /// accept commands anyway.
    fn silently_bad(&self, block: BlockId) -> Result<bool> {
        Ok(self.faults.silent_bad_blocks && self.inner.block_wear(block)?.is_bad())
    }

    /// Programs one page: one counted command (a crash point).
    fn program_one(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        self.begin_command()?;
        self.log.program(self.power.commands(), page);
        if self.silently_bad(page.block)? && self.inner.page_image(page)? == PageImage::Erased {
            // What a program leaves (bytes it does not cover stay erased),
            // with a few bytes changed.
            let mut d = vec![ERASED_BYTE; self.geometry.page_size()].into_boxed_slice();
            let mut o = vec![ERASED_BYTE; self.geometry.oob_size as usize].into_boxed_slice();
            let (dn, on) = (data.len().min(d.len()), oob.len().min(o.len()));
            d[..dn].copy_from_slice(&data[..dn]);
            o[..on].copy_from_slice(&oob[..on]);
            let seed = self.geometry.page_index(page) ^ self.power.commands().rotate_left(32);
            corrupt_bytes(&mut d, seed);
            self.inner
                .set_page_image(page, PageImage::Programmed { data: d, oob: o })?;
            self.record(page, PageImage::Erased, false);
            return Ok(());
        }
        let programmed = self.inner.program(page, data, oob);
        // A program takes effect (or fails as a media failure, consuming
        // the page) only on an erased page, so that is the image before it;
        // the image after it is the backend's.
        match &programmed {
            Ok(()) => self.record(page, PageImage::Erased, false),
            Err(e) if e.is_media_failure() => {
                self.record(page, PageImage::Erased, false);
                return programmed;
            }
            Err(_) => return programmed,
        }
        if self.inject.program_fails() {
            let d = vec![0u8; self.geometry.page_size()].into_boxed_slice();
            let o = vec![0u8; self.geometry.oob_size as usize].into_boxed_slice();
            self.inner
                .set_page_image(page, PageImage::Programmed { data: d, oob: o })?;
            return Err(crate::FlashError::ProgramFailed {
                block: page.block.0,
                page: page.page,
            });
        }
        if !self.unstable.is_empty() && self.unstable.remove(&self.geometry.page_index(page)) {
            // The page only looked erased: the program does not hold.
            let mut d = vec![0u8; self.geometry.page_size()].into_boxed_slice();
            let mut o = vec![0u8; self.geometry.oob_size as usize].into_boxed_slice();
            let seed = self.geometry.page_index(page) ^ self.power.commands().rotate_left(32);
            fill_garbage(&mut d, seed);
            fill_garbage(&mut o, !seed);
            self.inner
                .set_page_image(page, PageImage::Programmed { data: d, oob: o })?;
        }
        Ok(())
    }
}

impl CrashFlash<crate::MemFlash> {
    /// [`CrashFlash::duplicate`] onto a fresh `MemFlash` of the same
    /// battery-backed buffer size, made with `MemFlash::fork_copy` (whole
    /// block buffers instead of page by page): the same device.
    pub fn fork_copy(&self) -> CrashFlash<crate::MemFlash> {
        self.over(self.inner.fork_copy())
    }
}

impl<F: RawFlash> crate::Layer for CrashFlash<F> {
    crate::layer_below!(inner: F);
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Reads are no crash points; with the power off they fail.
    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        self.check_power()?;
        let mut cmd = cmd;
        cmd.issue(&mut self.inner)
    }

    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.check_power()?;
        self.inner.prefetch(pages)
    }

    /// Reads change no crash state (they only need the power on), so they
    /// may run with shared access when the device below allows it. Syncs
    /// settle the in-flight set and keep the exclusive form.
    fn read_shared(&self, reads: &mut [crate::PageRead<'_>]) -> Option<Result<()>> {
        if let Err(e) = self.check_power() {
            return Some(Err(e));
        }
        self.inner.read_shared(reads)
    }

    /// Deliberately page by page: every page of a multi-page program is a
    /// command of its own, so a power cut (or an injected failure) can
    /// fall between any two of them, and each page's image before it is
    /// recorded.
    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        for (page, data, oob) in cmd.each(&self.geometry)? {
            self.program_one(page, data, oob)?;
        }
        Ok(())
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.begin_command()?;
        self.geometry.check_block(block)?;
        self.power.erase_admitted();
        self.log.push(LoggedCommand::Erase {
            seq: self.power.commands(),
            block,
        });
        if self.inject.erase_fails() {
            let mut wear = self.inner.block_wear(block)?;
            wear.erases = wear.erases.saturating_add(1);
            wear.health = crate::BlockHealth::WornOut;
            self.inner.set_block_wear(block, wear)?;
            return Err(crate::FlashError::EraseFailed { block: block.0 });
        }
        let silent = self.silently_bad(block)?;
        for p in 0..self.geometry.pages_per_block {
            let page = PageAddr { block, page: p };
            let current = self.capture(page)?;
            self.record(page, current, true);
            self.unstable.remove(&self.geometry.page_index(page));
            if silent {
                self.inner.set_page_image(page, PageImage::Erased)?;
            }
        }
        if silent {
            return Ok(());
        }
        self.inner.erase(block)
    }

    fn sync(&mut self) -> Result<()> {
        self.begin_command()?;
        self.inner.sync()?;
        self.settle();
        let seq = self.power.commands();
        self.log.push(LoggedCommand::Sync { seq, through: seq });
        Ok(())
    }

    /// A sync in two parts: the ticket remembers how many commands were
    /// issued, and [`Flash::finish_sync`] — a command of its own, so a
    /// power cut may come before it — makes exactly those durable. The
    /// commands issued in between stay in flight (a prefix sync).
    fn start_sync(&mut self) -> Option<Result<crate::SyncTicket>> {
        if let Err(e) = self.check_power() {
            return Some(Err(e));
        }
        let seq = self.power.commands();
        Some(self.inner.start_sync()?.map(|t| t.with_seq(seq)))
    }

    fn finish_sync(&mut self, ticket: &crate::SyncTicket) -> Result<()> {
        self.begin_command()?;
        self.inner.finish_sync(ticket)?;
        self.settle_through(ticket.seq());
        self.log.push(LoggedCommand::Sync {
            seq: self.power.commands(),
            through: ticket.seq(),
        });
        Ok(())
    }

    fn submit(&mut self) -> Result<()> {
        self.check_power()?;
        self.inner.submit()
    }

    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check_power()?;
        self.inner.nvram_read(offset, buf)
    }

    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.begin_command()?;
        self.inner.nvram_write(offset, data)
    }

    // `lost_programs_can_return`: the NAND power-loss model leaves an
    // erased page or garbage, never an older page's bytes; the device
    // below answers for itself (the default).

    /// Not a counted command: the mark goes straight to the device (a
    /// power cut never loses it here; the FTL must not rely on that).
    fn mark_bad(&mut self, block: crate::BlockId) -> crate::Result<()> {
        self.check_power()?;
        self.inner.mark_bad(block)
    }

    /// The device's counters less the reads this layer made of its own
    /// (capturing pages before an erase).
    fn counters(&self) -> FlashCounters {
        let mut c = self.inner.counters();
        c.reads = c.reads.saturating_sub(self.own_reads);
        c.bytes_read = c.bytes_read.saturating_sub(self.own_bytes_read);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Flash;
    use crate::MemFlash;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn dev() -> CrashFlash<MemFlash> {
        CrashFlash::new(MemFlash::new(Geometry::tiny()).unwrap())
    }

    fn fill(f: &CrashFlash<MemFlash>, b: u8) -> Vec<u8> {
        vec![b; f.geometry().page_size()]
    }

    fn at(block: u32, page: u32) -> PageAddr {
        PageAddr::new(block, page)
    }

    #[test]
    fn split_tears_offer_one_damaged_class_per_window() {
        let mut f = dev();
        let g = *f.geometry();
        let (ps, oob) = (g.page_size() as u32, g.oob_size);
        let oob_bytes: Vec<u8> = (0..oob as u8).collect();
        f.program(at(0, 0), &fill(&f, 7), &oob_bytes).unwrap();
        // Without split tears: images, the prefix and garbage only.
        let plain = f.page_classes().unwrap();
        assert_eq!(
            plain,
            vec![vec![
                PageClass::Image(0),
                PageClass::Image(1),
                PageClass::Prefix(1),
                PageClass::Garbage
            ]]
        );
        f.set_media_faults(MediaFaults {
            split_tears: true,
            split_unit: 256,
            ..MediaFaults::default()
        });
        let classes = f.page_classes().unwrap().remove(0);
        let damaged: Vec<(u32, u32)> = classes
            .iter()
            .filter_map(|c| match *c {
                PageClass::Damaged { image: 1, at, len } => Some((at, len)),
                _ => None,
            })
            .collect();
        let mut want: Vec<(u32, u32)> = (0..ps).step_by(256).map(|a| (a, 256)).collect();
        want.extend((0..oob).step_by(8).map(|a| (ps + a, 8)));
        assert_eq!(damaged, want);
        // The OOB word at 8..16 damaged: the data and every other OOB
        // byte as programmed.
        let mut rng = Pcg64::seed_from_u64(3);
        f.crash_with_classes(
            &[PageClass::Damaged {
                image: 1,
                at: ps + 8,
                len: 8,
            }],
            &mut rng,
        )
        .unwrap();
        let PageImage::Programmed { data, oob: o } = f.inner_mut().page_image(at(0, 0)).unwrap()
        else {
            panic!("a damaged page is programmed");
        };
        assert!(data.iter().all(|&b| b == 7));
        assert_eq!((&o[..8], &o[16..]), (&oob_bytes[..8], &oob_bytes[16..]));
        assert_ne!(&o[8..16], &oob_bytes[8..16]);
    }

    #[test]
    fn a_cut_armed_after_an_erase_fires_at_the_next_command() {
        let mut f = dev();
        f.set_crash_after_erase(2);
        f.program(at(0, 0), &fill(&f, 1), &[]).unwrap();
        f.erase(BlockId(3)).unwrap();
        f.program(at(0, 1), &fill(&f, 2), &[]).unwrap();
        assert_eq!(f.erases_issued(), 1);
        // The second erase is admitted; the command after it is not.
        f.erase(BlockId(4)).unwrap();
        assert!(!f.is_powered_off());
        let n = f.commands_issued();
        assert!(matches!(
            f.program(at(0, 2), &fill(&f, 3), &[]),
            Err(crate::FlashError::PowerLoss)
        ));
        assert!(f.is_powered_off());
        assert_eq!((f.commands_issued(), f.erases_issued()), (n, 2));
        // The erase is the last in-flight command; power back, disarmed.
        let mut rng = Pcg64::seed_from_u64(1);
        f.crash(CrashPolicy::AllApplied, &mut rng).unwrap();
        f.erase(BlockId(5)).unwrap();
        f.program(at(0, 3), &fill(&f, 4), &[]).unwrap();
        assert!(!f.is_powered_off());
    }

    #[test]
    fn classes_drop_repeated_images_and_erases_of_erased_pages() {
        let mut f = dev();
        // Block 1 is erased already: erasing it changes nothing.
        f.erase(BlockId(1)).unwrap();
        f.program(at(2, 0), &fill(&f, 7), &[]).unwrap();
        let classes = f.page_classes().unwrap();
        let ppb = f.geometry().pages_per_block as usize;
        assert_eq!(classes.len(), ppb + 1);
        for c in &classes[..ppb] {
            assert_eq!(c, &vec![PageClass::Image(0)]);
        }
        assert_eq!(
            classes[ppb],
            vec![
                PageClass::Image(0),
                PageClass::Image(1),
                PageClass::Prefix(1),
                PageClass::Garbage
            ]
        );
        // In-order cuts: nothing, the erase, the erase and the program.
        assert_eq!(f.in_flight_seqs().len(), 2);
        assert_eq!(f.in_order_cut(0).unwrap()[ppb], PageClass::Image(0));
        assert_eq!(f.in_order_cut(2).unwrap()[ppb], PageClass::Image(1));
        assert_eq!(f.command_pages(1), vec![ppb]);
        // A prefix keeps the first half of the program's data.
        let mut rng = Pcg64::seed_from_u64(1);
        let mut v = vec![PageClass::Image(0); ppb];
        v.push(PageClass::Prefix(1));
        f.crash_with_classes(&v, &mut rng).unwrap();
        let PageImage::Programmed { data, .. } = f.inner().page_image(at(2, 0)).unwrap() else {
            panic!("a torn page needs an erase");
        };
        let half = data.len() / 2;
        assert!(data[..half].iter().all(|&b| b == 7));
        assert!(data[half..].iter().any(|&b| b != 7));
    }

    #[test]
    fn an_interrupted_upper_page_program_destroys_its_synced_lower_page() {
        let mut f = dev();
        f.set_media_faults(MediaFaults {
            paired_pages: Some(PagePairing { stride: 1 }),
            unstable_erase: false,
            split_tears: false,
            silent_bad_blocks: false,
            split_unit: 0,
        });
        f.program(at(3, 0), &fill(&f, 1), &[]).unwrap();
        f.sync().unwrap();
        f.program(at(3, 1), &fill(&f, 2), &[]).unwrap();
        let mut rng = Pcg64::seed_from_u64(2);
        // The upper page's program applied: the lower page is intact.
        let r = f
            .crash_with_classes(&[PageClass::Image(1)], &mut rng)
            .unwrap();
        assert_eq!(r.paired_lost, 0);
        f.program(at(3, 2), &fill(&f, 3), &[]).unwrap();
        f.sync().unwrap();
        f.program(at(3, 3), &fill(&f, 4), &[]).unwrap();
        // Not applied: page 2 (synced) is gone too.
        let r = f
            .crash_with_classes(&[PageClass::Image(0)], &mut rng)
            .unwrap();
        assert_eq!(r.paired_lost, 1);
        let mut buf = fill(&f, 0);
        f.read(at(3, 2), 0, &mut buf[..512]).unwrap();
        assert!(buf[..512].iter().any(|&b| b != 3));
        assert_eq!(PagePairing { stride: 2 }.lower_of(2), Some(0));
        assert_eq!(PagePairing { stride: 2 }.lower_of(4), None);
    }

    #[test]
    fn a_page_an_interrupted_erase_left_erased_does_not_hold_its_next_program() {
        let mut f = dev();
        f.set_media_faults(MediaFaults {
            paired_pages: None,
            unstable_erase: true,
            split_tears: false,
            silent_bad_blocks: false,
            split_unit: 0,
        });
        f.program(at(4, 0), &fill(&f, 5), &[]).unwrap();
        f.sync().unwrap();
        f.erase(BlockId(4)).unwrap();
        let ppb = f.geometry().pages_per_block as usize;
        let mut rng = Pcg64::seed_from_u64(3);
        let r = f
            .crash_with_classes(&vec![PageClass::Image(1); ppb], &mut rng)
            .unwrap();
        assert_eq!(r.unstable, 1, "only the page that was programmed");
        assert!(f.probe_erased(at(4, 0)).unwrap(), "it reads as erased");
        f.program(at(4, 0), &fill(&f, 6), &[]).unwrap();
        let mut buf = fill(&f, 0);
        f.read(at(4, 0), 0, &mut buf).unwrap();
        assert_ne!(buf, fill(&f, 6), "the program did not hold");
        // Erasing the block again makes it stable.
        f.erase(BlockId(4)).unwrap();
        f.program(at(4, 0), &fill(&f, 6), &[]).unwrap();
        f.read(at(4, 0), 0, &mut buf).unwrap();
        assert_eq!(buf, fill(&f, 6));
    }
}
