//! `scftl serve --memory --power-cut-signal`: simulated power cuts of a
//! served RAM device, a testing aid for crash tests on the real stack
//! (`scftl bench app-crash --cut power`).
//!
//! This module owns the power-cut flash ([`CutFlash`]: the RAM flash under
//! `flash::CrashFlash`, shared between the FTL and the server's main
//! thread) and the SIGUSR2 listener. A cut does what a power loss does to
//! the device: every program and erase the FTL issued since its last
//! completed flash `sync` is independently lost, applied, or (for some
//! pages) torn, as `CrashPolicy::Random` draws from a seeded generator;
//! synced data and the battery-backed buffer survive. The FTL's RAM is
//! then dropped and the FTL recovered from the flash, as after a reboot.
//!
//! Invariants: the crash layer is only wrapped when the option is on, so a
//! normal `serve` pays nothing; a cut happens with the server's device lock
//! held (via `Server::shutdown`), so no request is half-applied by the old
//! FTL after power is back; the generator is seeded once per server from
//! `--seed`, so a run's sequence of cuts is reproducible given the same
//! in-flight sets.

use std::sync::{Arc, Mutex, MutexGuard};

use flash::{
    BlockId, CrashFlash, CrashPolicy, CrashReport, Flash, FlashCounters, Geometry, MemFlash,
    PageAddr,
};
use rand::RngCore;
use signal_hook::consts::SIGUSR2;
use signal_hook::iterator::Signals;

use crate::error::CliError;

/// The RAM flash under the crash layer, shareable across threads (the
/// FTL holds one handle through the server, the main thread another).
#[derive(Clone)]
pub struct CutFlash {
    inner: Arc<Mutex<CrashFlash<MemFlash>>>,
    geometry: Geometry,
}

impl CutFlash {
    pub fn new(mem: MemFlash) -> CutFlash {
        let geometry = *mem.geometry();
        CutFlash {
            inner: Arc::new(Mutex::new(CrashFlash::new(mem))),
            geometry,
        }
    }

    /// The crash layer. A poisoned lock only means a thread panicked in a
    /// flash command; the model's state is still whole, so it is used.
    fn lock(&self) -> MutexGuard<'_, CrashFlash<MemFlash>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Turns the power off: every later command (reads included) fails
    /// with a power-loss error until [`CutFlash::power_on`].
    pub fn power_off(&self) {
        self.lock().cut_power();
    }

    /// Program and erase commands issued since the last completed sync.
    pub fn commands_in_flight(&self) -> usize {
        self.lock().in_flight_seqs().len()
    }

    /// Settles every page in flight at random (lost, applied, intermediate
    /// or torn) and powers the flash back on.
    pub fn power_on(&self, rng: &mut dyn RngCore) -> flash::Result<CrashReport> {
        let mut f = self.lock();
        f.disarm();
        f.crash(CrashPolicy::Random, rng)
    }
}

impl Flash for CutFlash {
    fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    fn read(&mut self, page: PageAddr, first_sector: u32, data: &mut [u8]) -> flash::Result<()> {
        self.lock().read(page, first_sector, data)
    }
    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> flash::Result<()> {
        self.lock().read_oob(page, oob)
    }
    fn read_with_oob(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> flash::Result<()> {
        self.lock().read_with_oob(page, first_sector, data, oob)
    }
    fn read_for_copy(
        &mut self,
        page: PageAddr,
        first_sector: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> flash::Result<()> {
        self.lock().read_for_copy(page, first_sector, data, oob)
    }
    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        self.lock().copy_into(from, to)
    }
    fn probe_erased(&mut self, page: PageAddr) -> flash::Result<bool> {
        self.lock().probe_erased(page)
    }
    fn prefetch(&mut self, pages: &[PageAddr]) -> flash::Result<()> {
        self.lock().prefetch(pages)
    }
    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> flash::Result<()> {
        self.lock().program(page, data, oob)
    }
    fn erase(&mut self, block: BlockId) -> flash::Result<()> {
        self.lock().erase(block)
    }
    fn sync(&mut self) -> flash::Result<()> {
        self.lock().sync()
    }
    fn submit(&mut self) -> flash::Result<()> {
        self.lock().submit()
    }
    fn nvram_size(&self) -> usize {
        self.lock().nvram_size()
    }
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> flash::Result<()> {
        self.lock().nvram_read(offset, buf)
    }
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> flash::Result<()> {
        self.lock().nvram_write(offset, data)
    }
    fn counters(&self) -> FlashCounters {
        self.lock().counters()
    }
    fn lost_programs_can_return(&self) -> bool {
        self.lock().lost_programs_can_return()
    }
    fn block_wear(&self, block: flash::BlockId) -> flash::Result<flash::BlockWear> {
        self.lock().block_wear(block)
    }
    fn mark_bad(&mut self, block: flash::BlockId) -> flash::Result<()> {
        self.lock().mark_bad(block)
    }
}

/// Calls `cut` on a background thread every time the process receives
/// SIGUSR2, for as long as the process lives.
pub fn on_sigusr2(cut: impl Fn() + Send + 'static) -> Result<(), CliError> {
    let mut signals = Signals::new([SIGUSR2])
        .map_err(|e| CliError::runtime(format!("cannot install the SIGUSR2 handler: {e}")))?;
    std::thread::Builder::new()
        .name("power-cut".into())
        .spawn(move || {
            for _ in signals.forever() {
                cut();
            }
        })
        .map_err(|e| CliError::runtime(format!("cannot start the power-cut thread: {e}")))?;
    Ok(())
}
