//! The device counters `scftl serve` and `scftl mount` report: one
//! `scftl: stats: key=value ...` line on SIGUSR1 and at exit. This module
//! owns the line's format (keys and their meaning, listed in
//! docs/USAGE.md) and the SIGUSR1 listener; `scftl bench app` parses the
//! line to count flushes and programmed pages per operation.
//!
//! Invariants: every key appears in every line, in the same order; values
//! are decimal integers counted since the device was opened (or made, for
//! `--memory`); the line is printed whole with one `eprintln!`.

use ftl::{BlockDevice, DeviceStats};
use signal_hook::consts::SIGUSR1;
use signal_hook::iterator::Signals;

use crate::error::CliError;

/// The prefix of every stats line.
pub const PREFIX: &str = "scftl: stats:";

/// The device's counters as one line, without the prefix.
pub fn fields(s: &DeviceStats, sector_bytes: usize) -> String {
    format!(
        "sector_bytes={} flushes={} sectors_written={} sectors_read={} \
         sectors_trimmed={} gc_sectors_relocated={} full_checkpoints={} \
         pages_programmed={} flash_reads={} blocks_erased={} flash_syncs={} \
         wear_choices={} wear_refused={} wear_moved_sectors={} \
         meta_rotations={} meta_repairs={} program_failures={} erase_failures={} \
         bad_blocks={}",
        sector_bytes,
        s.flushes,
        s.user_sectors_written,
        s.user_sectors_read,
        s.user_sectors_trimmed,
        s.gc_sectors_relocated,
        s.full_checkpoints,
        s.flash.programs,
        s.flash.reads,
        s.flash.erases,
        s.flash.syncs,
        s.wear.dynamic_choices,
        s.wear.rejected,
        s.wear.static_sectors,
        s.wear.meta_rotations,
        s.wear.meta_repairs,
        s.program_failures,
        s.erase_failures,
        s.bad_blocks,
    )
}

/// Prints the stats line for `dev`, with `extra` (more `key=value` fields)
/// appended when not empty.
pub fn print(dev: &dyn BlockDevice, extra: &str) {
    let line = fields(&dev.stats(), dev.sector_size());
    if extra.is_empty() {
        eprintln!("{PREFIX} {line}");
    } else {
        eprintln!("{PREFIX} {line} {extra}");
    }
}

/// Runs `report` on a background thread every time the process receives
/// SIGUSR1, for as long as the process lives.
pub fn on_sigusr1(report: impl Fn() + Send + 'static) -> Result<(), CliError> {
    let mut signals = Signals::new([SIGUSR1])
        .map_err(|e| CliError::runtime(format!("cannot install the SIGUSR1 handler: {e}")))?;
    std::thread::Builder::new()
        .name("stats".into())
        .spawn(move || {
            for _ in signals.forever() {
                report();
            }
        })
        .map_err(|e| CliError::runtime(format!("cannot start the stats thread: {e}")))?;
    Ok(())
}
