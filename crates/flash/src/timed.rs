//! `TimedFlash`: a discrete-event timing model wrapped around any backend.
//!
//! Data goes to the inner device unchanged; this layer only keeps a simulated
//! clock, so benchmarks can report device-time throughput and latency that do
//! not depend on the speed of the machine running them.
//!
//! The model (close to FEMU's NAND model, with every latency configurable):
//! - There is one host clock, [`TimedFlash::now_ns`]. It advances only when
//!   the host waits: for a read, for a `sync`, for a free slot in the device
//!   queue, by [`TimingConfig::host_op_ns`] per command, or by
//!   [`TimedFlash::advance_host`].
//! - Each die and each channel is busy until some instant. Commands are
//!   scheduled greedily in the order issued: a command never starts before
//!   the host issued it, nor before the previous command's use of the same
//!   die (or channel) ends. So commands to one die are served in order, and
//!   different dies work in parallel.
//! - A **program** occupies its die's channel for the data transfer, then the
//!   die for `program_ns`; the host does not wait for it.
//! - A **read** occupies the die for `read_ns` (array to register), then the
//!   channel for the transfer of the bytes actually read; the host waits for
//!   its completion.
//!   `read_with_oob` is one such read (data and spare transferred together).
//! - A **read for copy** (`read_for_copy`, GC relocation issued ahead) is
//!   scheduled like a read but the host does not wait: it holds a queue slot
//!   until done, and its completion is remembered per page. When the caller
//!   says data of that page goes into its coming program of a page
//!   (`copy_into`), that program starts its transfer no earlier than the
//!   data arrived. A read for copy whose data is needed before it completes
//!   thus delays the program that carries it, not the host.
//! - An **erase** occupies the die for `erase_ns`; the host does not wait.
//! - The device queue holds at most `queue_depth` commands that have been
//!   issued and not completed. A command issued while it is full first waits
//!   (host time, counted in `stall_ns`) until the earliest outstanding command
//!   completes — whichever command completes first frees its slot, as in an
//!   NVMe submission queue.
//! - **sync** advances the host clock to the completion of the slowest
//!   outstanding command. The battery-backed buffer costs no time.
//! - A command the inner device refuses (a NAND rule, a power cut) costs no
//!   time and changes no timing state.
//!
//! Times are `u64` nanoseconds and all arithmetic saturates, so an absurd
//! configuration gives absurd times rather than a panic.
//!
//! Invariants:
//! - every completion time in `outstanding` is greater than `now_ns` after
//!   `retire`, and `outstanding.len() <= queue_depth`;
//! - `last_completion_ns` is at least every completion time ever scheduled;
//! - `die_free_ns` and `channel_free_ns` never decrease.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::num::NonZeroUsize;

use crate::{BlockId, Flash, Geometry, PageAddr, PageImage, ProgramCmd, RawFlash, ReadCmd, Result};

/// Page size the default channel transfer time refers to (16 KiB).
pub const REFERENCE_PAGE_BYTES: u64 = 16 * 1024;

/// Reads for copy whose completion `TimedFlash` remembers (per page).
pub const COPY_READS_KEPT: usize = 256;

/// Default device queue depth (64 commands).
pub const DEFAULT_QUEUE_DEPTH: NonZeroUsize = NonZeroUsize::MIN.saturating_add(63);

/// Latencies and queue of the timing model. All times are nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingConfig {
    /// Array-to-register time of a page read (default 40 µs, FEMU's value).
    pub read_ns: u64,
    /// Register-to-array time of a page program (default 200 µs, FEMU's).
    pub program_ns: u64,
    /// Block erase time (default 2 ms, FEMU's).
    pub erase_ns: u64,
    /// Channel time to move one full page of the device in use between host
    /// and die. Partial reads and OOB reads are charged pro rata (rounded
    /// up). The default, 20 µs, is for a 16 KiB page (about 800 MB/s per
    /// channel); [`TimingConfig::for_geometry`] scales it to other page
    /// sizes. FEMU's own scripts often set this to 0; set it to 0 to match.
    pub channel_xfer_ns_per_page: u64,
    /// Commands the device accepts before the host must wait (default 64).
    pub queue_depth: NonZeroUsize,
    /// Host CPU time charged for issuing each command, `sync` included
    /// (default 0).
    pub host_op_ns: u64,
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig {
            read_ns: 40_000,
            program_ns: 200_000,
            erase_ns: 2_000_000,
            channel_xfer_ns_per_page: 20_000,
            queue_depth: DEFAULT_QUEUE_DEPTH,
            host_op_ns: 0,
        }
    }
}

impl TimingConfig {
    /// The default model with the channel transfer time scaled from 20 µs per
    /// 16 KiB to the geometry's page size (rounded up).
    pub fn for_geometry(g: &Geometry) -> TimingConfig {
        let d = TimingConfig::default();
        TimingConfig {
            channel_xfer_ns_per_page: ceil_div(
                d.channel_xfer_ns_per_page
                    .saturating_mul(g.page_size() as u64),
                REFERENCE_PAGE_BYTES,
            ),
            ..d
        }
    }

    /// Channel time to move `bytes` bytes of a device with `page_size`-byte
    /// pages: `channel_xfer_ns_per_page * bytes / page_size`, rounded up.
    pub fn xfer_ns(&self, bytes: usize, page_size: usize) -> u64 {
        if page_size == 0 {
            return 0;
        }
        let prod = u128::from(self.channel_xfer_ns_per_page) * bytes as u128;
        let ns = prod.div_ceil(page_size as u128);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }
}

/// One line for logs and report headers: every field, in µs where the
/// field is a latency.
impl std::fmt::Display for TimingConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "read {} µs, program {} µs, erase {} µs, channel transfer {} µs/page, queue depth {}, host {} ns/command",
            self.read_ns as f64 / 1e3,
            self.program_ns as f64 / 1e3,
            self.erase_ns as f64 / 1e3,
            self.channel_xfer_ns_per_page as f64 / 1e3,
            self.queue_depth,
            self.host_op_ns
        )
    }
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

/// A snapshot of the timing model's totals, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimingStats {
    /// The host clock.
    pub now_ns: u64,
    /// Host time spent waiting for a free device-queue slot.
    pub stall_ns: u64,
    /// Host time spent waiting for reads to complete.
    pub read_wait_ns: u64,
    /// Host time spent in `sync` waiting for outstanding commands.
    pub sync_wait_ns: u64,
    /// Reads for copy issued (the host did not wait for them).
    pub copy_reads: u64,
    /// When the device will be idle if nothing more is issued.
    pub idle_at_ns: u64,
    /// Sum over dies of the time each spent reading, programming or erasing.
    pub die_busy_ns: u64,
    /// Sum over channels of the time each spent transferring.
    pub channel_busy_ns: u64,
}

/// A flash device with simulated time. See the file documentation.
pub struct TimedFlash<F> {
    inner: F,
    config: TimingConfig,
    geometry: Geometry,
    page_size: usize,
    now_ns: u64,
    die_free_ns: Vec<u64>,
    channel_free_ns: Vec<u64>,
    die_busy_ns: Vec<u64>,
    channel_busy_ns: Vec<u64>,
    /// Completion times of issued commands not yet known to be complete.
    outstanding: BinaryHeap<Reverse<u64>>,
    last_completion_ns: u64,
    stall_ns: u64,
    read_wait_ns: u64,
    sync_wait_ns: u64,
    /// Reads for copy issued.
    copy_reads: u64,
    /// Completion of recent reads for copy, per page (the newest
    /// [`COPY_READS_KEPT`]; an older one is long complete).
    copy_ready: std::collections::VecDeque<(PageAddr, u64)>,
    /// Pages to be programmed that carry data of reads for copy, and when
    /// that data has arrived (a handful at a time: one merge buffer's).
    program_after: Vec<(PageAddr, u64)>,
    /// The page each die last sensed into its page register, and when the
    /// sensing completes: another read of that page only transfers it.
    /// Reads, probes and prefetches load the register; programs and erases
    /// on the die clear it.
    sensed: Vec<Option<(PageAddr, u64)>>,
}

impl<F: Flash> TimedFlash<F> {
    /// Wraps `inner`, with the clock at 0 and every die and channel idle.
    pub fn new(inner: F, config: TimingConfig) -> TimedFlash<F> {
        let geometry = *inner.geometry();
        let dies = geometry.dies() as usize;
        let channels = geometry.channels as usize;
        TimedFlash {
            inner,
            config,
            page_size: geometry.page_size(),
            geometry,
            now_ns: 0,
            die_free_ns: vec![0; dies],
            channel_free_ns: vec![0; channels],
            die_busy_ns: vec![0; dies],
            sensed: vec![None; dies],
            channel_busy_ns: vec![0; channels],
            outstanding: BinaryHeap::with_capacity(config.queue_depth.get().min(1 << 20) + 1),
            last_completion_ns: 0,
            stall_ns: 0,
            read_wait_ns: 0,
            sync_wait_ns: 0,
            copy_reads: 0,
            copy_ready: std::collections::VecDeque::with_capacity(COPY_READS_KEPT),
            program_after: Vec::new(),
        }
    }

    /// The host clock in nanoseconds.
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// Charges `ns` of host time (e.g. the CPU time of an FTL operation).
    pub fn advance_host(&mut self, ns: u64) {
        self.now_ns = self.now_ns.saturating_add(ns);
    }

    /// Host time spent waiting for a free device-queue slot.
    pub fn stall_ns(&self) -> u64 {
        self.stall_ns
    }

    /// Per die, the total time it spent reading, programming or erasing.
    pub fn busy_ns_per_die(&self) -> &[u64] {
        &self.die_busy_ns
    }

    /// Per channel, the total time it spent transferring pages.
    pub fn busy_ns_per_channel(&self) -> &[u64] {
        &self.channel_busy_ns
    }

    /// Commands issued and not complete at the current host time.
    pub fn queued(&mut self) -> usize {
        self.retire();
        self.outstanding.len()
    }

    /// Totals for reports.
    pub fn stats(&self) -> TimingStats {
        TimingStats {
            now_ns: self.now_ns,
            stall_ns: self.stall_ns,
            read_wait_ns: self.read_wait_ns,
            sync_wait_ns: self.sync_wait_ns,
            copy_reads: self.copy_reads,
            idle_at_ns: self.last_completion_ns.max(self.now_ns),
            die_busy_ns: self.die_busy_ns.iter().fold(0, |a, &b| a.saturating_add(b)),
            channel_busy_ns: self
                .channel_busy_ns
                .iter()
                .fold(0, |a, &b| a.saturating_add(b)),
        }
    }

    /// The timing model in use.
    pub fn config(&self) -> &TimingConfig {
        &self.config
    }

    /// The wrapped device.
    pub fn inner(&self) -> &F {
        &self.inner
    }

    /// The wrapped device, mutably. Commands issued through it cost no time.
    pub fn inner_mut(&mut self) -> &mut F {
        &mut self.inner
    }

    /// Unwraps the device.
    pub fn into_inner(self) -> F {
        self.inner
    }

    /// Forgets commands that completed at or before the host clock.
    fn retire(&mut self) {
        while let Some(&Reverse(t)) = self.outstanding.peek() {
            if t > self.now_ns {
                break;
            }
            self.outstanding.pop();
        }
    }

    /// Charges the host cost of issuing a command and waits for a queue slot.
    fn admit(&mut self) {
        self.now_ns = self.now_ns.saturating_add(self.config.host_op_ns);
        self.retire();
        if self.outstanding.len() >= self.config.queue_depth.get() {
            if let Some(Reverse(t)) = self.outstanding.pop() {
                // `retire` left only completions after `now_ns`.
                self.stall_ns = self.stall_ns.saturating_add(t.saturating_sub(self.now_ns));
                self.now_ns = self.now_ns.max(t);
                self.retire();
            }
        }
    }

    /// Records an asynchronous command completing at `t`.
    fn enqueue(&mut self, t: u64) {
        self.last_completion_ns = self.last_completion_ns.max(t);
        if t > self.now_ns {
            self.outstanding.push(Reverse(t));
        }
    }

    /// Occupies a die for `ns` from no earlier than `from`; returns the end.
    fn use_die(&mut self, die: usize, from: u64, ns: u64) -> u64 {
        occupy(
            &mut self.die_free_ns[die],
            &mut self.die_busy_ns[die],
            from,
            ns,
        )
    }

    /// Occupies a channel for `ns` from no earlier than `from`; returns the end.
    fn use_channel(&mut self, channel: usize, from: u64, ns: u64) -> u64 {
        occupy(
            &mut self.channel_free_ns[channel],
            &mut self.channel_busy_ns[channel],
            from,
            ns,
        )
    }

    fn die_and_channel(&self, block: BlockId) -> (usize, usize) {
        let die = self.geometry.die_of(block);
        (die as usize, self.geometry.channel_of_die(die) as usize)
    }

    /// Times a read of `bytes` bytes from a page of `block`; the host waits.
    fn time_read(&mut self, page: PageAddr, bytes: usize) {
        self.admit();
        let done = self.schedule_read(page, bytes);
        self.last_completion_ns = self.last_completion_ns.max(done);
        self.read_wait_ns = self
            .read_wait_ns
            .saturating_add(done.saturating_sub(self.now_ns));
        self.now_ns = self.now_ns.max(done);
    }

    /// Times a read for copy: scheduled like a read, but the host goes on;
    /// later programs wait for its data instead (file documentation).
    fn time_copy_read(&mut self, page: PageAddr, bytes: usize) {
        self.admit();
        let done = self.schedule_read(page, bytes);
        self.enqueue(done);
        self.copy_reads += 1;
        if self.copy_ready.len() == COPY_READS_KEPT {
            self.copy_ready.pop_front();
        }
        self.copy_ready.push_back((page, done));
    }

    /// Senses `page` on its die (unless it is in the die's register) and
    /// transfers `bytes` bytes over its channel; returns when the data is
    /// with the host.
    fn schedule_read(&mut self, page: PageAddr, bytes: usize) -> u64 {
        let (die, ch) = self.die_and_channel(page.block);
        let sensed = match self.sensed[die] {
            Some((p, ready)) if p == page => ready.max(self.now_ns),
            _ => {
                let ready = self.use_die(die, self.now_ns, self.config.read_ns);
                self.sensed[die] = Some((page, ready));
                ready
            }
        };
        let xfer = self.config.xfer_ns(bytes, self.page_size);
        self.use_channel(ch, sensed, xfer)
    }
}

/// Occupies a resource (a die or a channel) that is free from `*free_ns`
/// for `ns`, starting no earlier than `from`; returns the end and adds `ns`
/// to its busy time.
fn occupy(free_ns: &mut u64, busy_ns: &mut u64, from: u64, ns: u64) -> u64 {
    let end = from.max(*free_ns).saturating_add(ns);
    *free_ns = end;
    *busy_ns = busy_ns.saturating_add(ns);
    end
}

impl<F: Flash> TimedFlash<F> {
    /// Times the program of one page that the device accepted.
    fn time_program(&mut self, page: PageAddr) {
        self.admit();
        let (die, ch) = self.die_and_channel(page.block);
        self.sensed[die] = None;
        // The page may carry data of a read for copy still in flight.
        let mut from = self.now_ns;
        if !self.program_after.is_empty() {
            self.program_after.retain(|&(p, ready)| {
                if p == page {
                    from = from.max(ready);
                }
                p != page
            });
        }
        let moved = self.use_channel(ch, from, self.config.channel_xfer_ns_per_page);
        let done = self.use_die(die, moved, self.config.program_ns);
        self.enqueue(done);
    }
}

impl<F: Flash> crate::Layer for TimedFlash<F> {
    crate::layer_below!(inner: F);
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        let (page, bytes) = (cmd.page(), cmd.bytes());
        let mut cmd = cmd;
        match &mut cmd {
            // A read for copy reaches the device below as a plain read
            // with OOB: only this layer gives it its own timing.
            ReadCmd::ForCopy {
                page,
                first_sector,
                data,
                oob,
            } => {
                self.inner.read_with_oob(*page, *first_sector, data, oob)?;
                self.time_copy_read(*page, bytes);
                Ok(false)
            }
            // The page is sensed; only a status comes back over the channel,
            // and the page stays in the die's register for a following read.
            ReadCmd::ProbeErased { .. } => {
                let erased = cmd.issue(&mut self.inner)?;
                self.time_read(page, 0);
                Ok(erased)
            }
            _ => {
                cmd.issue(&mut self.inner)?;
                self.time_read(page, bytes);
                Ok(false)
            }
        }
    }

    /// A multi-page program reaches the device below as one command; each
    /// page it programmed is timed as a program of its own (in order).
    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        let outcome = cmd.issue(&mut self.inner);
        let done = cmd.done(&outcome);
        for &page in &cmd.pages()[..done] {
            self.time_program(page);
        }
        outcome
    }

    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        let Some(&(_, done)) = self.copy_ready.iter().rev().find(|(p, _)| *p == from) else {
            return;
        };
        match self.program_after.iter_mut().find(|(p, _)| *p == to) {
            Some((_, ready)) => *ready = (*ready).max(done),
            None => self.program_after.push((to, done)),
        }
    }

    /// Each die starts sensing its page now (in parallel across dies); the
    /// host does not wait, and a later read of the page only transfers.
    /// The hint is consumed here: the device below has no clock.
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        for &page in pages {
            self.geometry.check_page(page)?;
            let (die, _) = self.die_and_channel(page.block);
            if matches!(self.sensed[die], Some((p, _)) if p == page) {
                continue;
            }
            let ready = self.use_die(die, self.now_ns, self.config.read_ns);
            self.sensed[die] = Some((page, ready));
        }
        Ok(())
    }

    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.inner.erase(block)?;
        // A page of the block the caller meant to program is not coming.
        self.program_after.retain(|(p, _)| p.block != block);
        self.admit();
        let (die, _) = self.die_and_channel(block);
        self.sensed[die] = None;
        let done = self.use_die(die, self.now_ns, self.config.erase_ns);
        self.enqueue(done);
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.inner.sync()?;
        self.now_ns = self.now_ns.saturating_add(self.config.host_op_ns);
        let done = self.last_completion_ns.max(self.now_ns);
        self.sync_wait_ns = self.sync_wait_ns.saturating_add(done - self.now_ns);
        self.now_ns = done;
        self.outstanding.clear();
        Ok(())
    }

    // `submit` (host-side only) and the battery-backed buffer take no device
    // time: they pass through.
}

/// Raw access passes through and costs no time (it models no real command).
impl<F: RawFlash> RawFlash for TimedFlash<F> {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.inner.page_image(page)
    }

    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.inner.set_page_image(page, image)
    }

    fn set_block_wear(&mut self, block: BlockId, wear: crate::BlockWear) -> Result<()> {
        self.inner.set_block_wear(block, wear)
    }
}
