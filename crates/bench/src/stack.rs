//! Building the flash stacks the benchmarks run on.

use std::num::NonZeroUsize;

use flash::{DatalessFlash, Geometry, MemFlash, SharedFlash, TimedFlash, TimingConfig};

use crate::args::TimingArgs;
use crate::targets::Factory;
use crate::workload::BResult;

/// The stack of the timed benchmarks: tags-only flash under the timing model.
pub type TimedDataless = SharedFlash<TimedFlash<DatalessFlash>>;

/// The timing model the arguments describe, on geometry `g`.
pub fn timing_config(a: &TimingArgs, g: &Geometry) -> BResult<TimingConfig> {
    let base = TimingConfig::for_geometry(g);
    Ok(TimingConfig {
        read_ns: a.read_ns,
        program_ns: a.program_ns,
        erase_ns: a.erase_ns,
        channel_xfer_ns_per_page: a.channel_xfer_ns.unwrap_or(base.channel_xfer_ns_per_page),
        queue_depth: NonZeroUsize::new(a.queue_depth)
            .ok_or_else(|| "--queue-depth must be at least 1".to_string())?,
        host_op_ns: a.host_op_ns,
    })
}

/// One line describing a timing model, for report headers: the model's own
/// description (`TimingConfig`'s `Display`) plus the per-request host cost.
pub fn describe_timing(t: &TimingConfig, host_request_ns: u64) -> String {
    format!("{t} + {host_request_ns} ns/request")
}

/// A fresh, erased tags-only device that stores `f`'s metadata blocks whole.
fn dataless_raw(f: &dyn Factory, g: &Geometry) -> BResult<DatalessFlash> {
    let mut is_metadata = vec![false; g.total_blocks() as usize];
    for b in f.metadata_blocks() {
        *is_metadata
            .get_mut(b as usize)
            .ok_or_else(|| format!("metadata block {b} is not on the device"))? = true;
    }
    DatalessFlash::new(*g, is_metadata).map_err(|e| format!("dataless flash: {e}"))
}

/// A fresh, erased timed tags-only device for `f`'s FTL.
pub fn timed_dataless(f: &dyn Factory, g: &Geometry, t: TimingConfig) -> BResult<TimedDataless> {
    Ok(SharedFlash::new(TimedFlash::new(dataless_raw(f, g)?, t)))
}

/// A fresh, erased RAM device.
pub fn mem(g: &Geometry) -> BResult<SharedFlash<MemFlash>> {
    MemFlash::new(*g)
        .map(SharedFlash::new)
        .map_err(|e| format!("mem flash: {e}"))
}

/// A fresh, erased tags-only device without timing.
pub fn dataless(f: &dyn Factory, g: &Geometry) -> BResult<SharedFlash<DatalessFlash>> {
    dataless_raw(f, g).map(SharedFlash::new)
}

/// Parses a geometry preset name.
pub fn geometry(name: &str) -> BResult<Geometry> {
    Geometry::preset(name).map_err(|e| e.to_string())
}

/// Prints a progress line on stderr unless silenced.
pub fn progress(silent: bool, msg: impl AsRef<str>) {
    if !silent {
        eprintln!("[bench] {}", msg.as_ref());
    }
}
