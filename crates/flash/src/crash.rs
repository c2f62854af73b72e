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
//! - `powered_off` implies `crash_at` is `None`.

use std::collections::HashMap;

use rand::{Rng, RngCore};

use crate::{
    BlockId, Flash, FlashCounters, FlashError, Geometry, PageAddr, PageImage, RawFlash, Result,
    ERASED_BYTE,
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
}

struct PageHistory {
    page: PageAddr,
    /// `images[0]`: before the first in-flight command; `images[k]`: after
    /// the k-th. The image after the newest command is the backend's.
    images: Vec<PageImage>,
}

/// A fault layer that cuts power on command and produces post-crash devices.
pub struct CrashFlash<F> {
    inner: F,
    geometry: Geometry,
    histories: Vec<PageHistory>,
    index: HashMap<u64, usize>,
    commands: u64,
    crash_at: Option<u64>,
    powered_off: bool,
    crashes: u64,
    /// Page buffers of dropped images, reused for new ones (saves the
    /// allocator, and the page faults of a heap that grows and shrinks).
    pool_data: Vec<Box<[u8]>>,
    pool_oob: Vec<Box<[u8]>>,
    /// Reads this layer issued itself (hidden from `counters()`).
    own_reads: u64,
    own_bytes_read: u64,
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
            commands: 0,
            crash_at: None,
            powered_off: false,
            crashes: 0,
            pool_data: Vec::new(),
            pool_oob: Vec::new(),
            own_reads: 0,
            own_bytes_read: 0,
        }
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
        if !self.powered_off {
            self.crash_at = Some(self.commands.saturating_add(n));
        }
    }

    /// Cuts power now, between two commands (as an armed cut does when it
    /// fires): every command fails until [`CrashFlash::crash`].
    pub fn cut_power(&mut self) {
        self.crash_at = None;
        self.powered_off = true;
    }

    /// Disarms a pending power cut (does not revive a device that already
    /// lost power).
    pub fn disarm(&mut self) {
        self.crash_at = None;
    }

    /// Counted commands left before an armed cut fires, if one is armed.
    pub fn crash_pending(&self) -> Option<u64> {
        self.crash_at.map(|at| at - self.commands)
    }

    /// True after an armed power cut fired and before [`CrashFlash::crash`].
    pub fn is_powered_off(&self) -> bool {
        self.powered_off
    }

    /// Counted commands let through to the backend since creation.
    pub fn commands_issued(&self) -> u64 {
        self.commands
    }

    /// Crashes produced so far.
    pub fn crashes(&self) -> u64 {
        self.crashes
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
        if outcomes.len() != self.histories.len() {
            return Err(FlashError::BadLength {
                what: "crash outcomes (one per page in flight)",
                expected: self.histories.len(),
                got: outcomes.len(),
            });
        }
        for (h, o) in self.histories.iter().zip(outcomes) {
            if let PageOutcome::Image(k) = *o {
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
            fired: self.powered_off,
            ..CrashReport::default()
        };
        let histories = std::mem::take(&mut self.histories);
        self.index.clear();
        for (h, o) in histories.into_iter().zip(outcomes) {
            let last = h.images.len();
            let image = match *o {
                PageOutcome::Image(k) if k == last => {
                    // The backend already holds the final image.
                    report.applied += 1;
                    for img in h.images {
                        self.recycle(img);
                    }
                    continue;
                }
                PageOutcome::Image(k) => {
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
                PageOutcome::Torn => {
                    report.torn += 1;
                    let j = rng.gen_range(1..=last);
                    let mut data = take_buf(&mut self.pool_data, self.geometry.page_size());
                    let mut oob = take_buf(&mut self.pool_oob, self.geometry.oob_size as usize);
                    if j < last {
                        torn_bytes(&h.images[j], &mut data, &mut oob, rng);
                    } else {
                        let target = self.inner.page_image(h.page)?;
                        torn_bytes(&target, &mut data, &mut oob, rng);
                    }
                    for img in h.images {
                        self.recycle(img);
                    }
                    PageImage::Programmed { data, oob }
                }
            };
            self.inner.set_page_image(h.page, image)?;
        }
        self.powered_off = false;
        self.crash_at = None;
        self.crashes += 1;
        Ok(report)
    }

    /// Admits one counted command, or cuts power.
    fn begin_command(&mut self) -> Result<()> {
        if self.powered_off {
            return Err(FlashError::PowerLoss);
        }
        if let Some(at) = self.crash_at {
            if self.commands >= at {
                self.crash_at = None;
                self.powered_off = true;
                return Err(FlashError::PowerLoss);
            }
        }
        self.commands += 1;
        Ok(())
    }

    fn check_power(&self) -> Result<()> {
        if self.powered_off {
            Err(FlashError::PowerLoss)
        } else {
            Ok(())
        }
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
        let histories = std::mem::take(&mut self.histories);
        self.index.clear();
        for h in histories {
            for img in h.images {
                self.recycle(img);
            }
        }
    }

    /// Notes one more in-flight command on `page`, whose content right
    /// before that command is `current`.
    fn record(&mut self, page: PageAddr, current: PageImage) {
        let key = self.geometry.page_index(page);
        if let Some(&i) = self.index.get(&key) {
            self.histories[i].images.push(current);
        } else {
            self.index.insert(key, self.histories.len());
            self.histories.push(PageHistory {
                page,
                images: vec![current],
            });
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
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let w = next().to_le_bytes();
    let n = rest.len();
    rest.copy_from_slice(&w[..n]);
}

impl<F: RawFlash> Flash for CrashFlash<F> {
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> Result<()> {
        self.check_power()?;
        self.inner.read(page, first_sector, data)
    }

    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()> {
        self.check_power()?;
        self.inner.read_oob(page, oob)
    }

    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        self.check_power()?;
        self.inner.probe_erased(page)
    }

    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.check_power()?;
        self.inner.prefetch(pages)
    }

    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        self.begin_command()?;
        self.inner.program(page, data, oob)?;
        // A program succeeds only on an erased page, so that is the image
        // before it; the image after it is the backend's.
        self.record(page, PageImage::Erased);
        Ok(())
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.begin_command()?;
        self.geometry.check_block(block)?;
        for p in 0..self.geometry.pages_per_block {
            let page = PageAddr { block, page: p };
            let current = self.capture(page)?;
            self.record(page, current);
        }
        self.inner.erase(block)
    }

    fn sync(&mut self) -> Result<()> {
        self.begin_command()?;
        self.inner.sync()?;
        self.settle();
        Ok(())
    }

    fn nvram_size(&self) -> usize {
        self.inner.nvram_size()
    }

    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check_power()?;
        self.inner.nvram_read(offset, buf)
    }

    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.begin_command()?;
        self.inner.nvram_write(offset, data)
    }

    fn counters(&self) -> FlashCounters {
        let mut c = self.inner.counters();
        c.reads = c.reads.saturating_sub(self.own_reads);
        c.bytes_read = c.bytes_read.saturating_sub(self.own_bytes_read);
        c
    }
}
