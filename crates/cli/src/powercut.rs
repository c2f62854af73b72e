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

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};

use flash::{CrashFlash, CrashPolicy, CrashReport, Flash, Geometry, MemFlash};
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

/// Every command goes to the shared crash layer, unchanged.
impl flash::Layer for CutFlash {
    type Below = CrashFlash<MemFlash>;
    fn below(&self) -> impl Deref<Target = CrashFlash<MemFlash>> + '_ {
        self.lock()
    }
    fn below_mut(&mut self) -> impl DerefMut<Target = CrashFlash<MemFlash>> + '_ {
        self.lock()
    }
    fn geometry(&self) -> &Geometry {
        &self.geometry
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

#[cfg(test)]
mod tests {
    use super::*;
    use flash::PageAddr;

    /// The layer's forwarding (crates/flash/tests/layers.rs lists it): each
    /// page of a multi-page program is in flight in the crash layer, and a
    /// read with OOB is one read.
    #[test]
    fn commands_reach_the_shared_crash_layer() {
        let g = Geometry::tiny();
        let mut f = CutFlash::new(MemFlash::new(g).unwrap());
        let ps = g.page_size();
        let pages = [PageAddr::new(1, 0), PageAddr::new(1, 1)];
        f.program_many(&pages, &vec![4; 2 * ps], &[6; 8]).unwrap();
        assert_eq!(f.commands_in_flight(), 2);
        let before = f.counters();
        let mut d = vec![0u8; ps];
        let mut o = [0u8; 4];
        f.read_with_oob(pages[1], 0, &mut d, &mut o).unwrap();
        assert_eq!((d[0], o), (4, [6; 4]));
        assert_eq!(f.counters().since(&before).reads, 1);
        f.sync().unwrap();
        assert_eq!(f.commands_in_flight(), 0);
    }
}
