//! OPTR's own counters: what it programs beyond the host's data, and how
//! often the first GC constraint (paper §3.4: no victim written after the
//! latest checkpoint) stood in the way. The benchmarks read them through
//! `DeviceStats::optr` to reproduce the paper's §7.1–§7.2 analyses.
//!
//! Units: sectors where the item shares a page with others (records, trim
//! records, padding, data), pages where it owns whole pages (summary and
//! checkpoint pages). Counters count since the device was formatted or
//! opened; recovery's fencing checkpoint is counted.

impl OptrStats {
    /// The counts since `earlier` (a snapshot of the same device), counter
    /// by counter; `incremental_checkpoints_recovered` is kept as is.
    pub fn since(&self, earlier: &OptrStats) -> OptrStats {
        let d = |b: u64, a: u64| b.saturating_sub(a);
        let (a, b) = (earlier, self);
        OptrStats {
            data_sectors_programmed: d(b.data_sectors_programmed, a.data_sectors_programmed),
            coalescing_records: d(b.coalescing_records, a.coalescing_records),
            record_sectors_programmed: d(b.record_sectors_programmed, a.record_sectors_programmed),
            trim_sectors_programmed: d(b.trim_sectors_programmed, a.trim_sectors_programmed),
            padding_sectors_programmed: d(
                b.padding_sectors_programmed,
                a.padding_sectors_programmed,
            ),
            summary_pages_programmed: d(b.summary_pages_programmed, a.summary_pages_programmed),
            checkpoint_pages_programmed: d(
                b.checkpoint_pages_programmed,
                a.checkpoint_pages_programmed,
            ),
            incremental_checkpoints: d(b.incremental_checkpoints, a.incremental_checkpoints),
            incremental_pages_programmed: d(
                b.incremental_pages_programmed,
                a.incremental_pages_programmed,
            ),
            incremental_checkpoints_recovered: b.incremental_checkpoints_recovered,
            internal_flushes: d(b.internal_flushes, a.internal_flushes),
            gc_checkpoints: d(b.gc_checkpoints, a.gc_checkpoints),
            gc_selections: d(b.gc_selections, a.gc_selections),
            gc_segments_constrained: d(b.gc_segments_constrained, a.gc_segments_constrained),
            gc_segments_seen: d(b.gc_segments_seen, a.gc_segments_seen),
            gc_victims_displaced: d(b.gc_victims_displaced, a.gc_victims_displaced),
        }
    }
}

/// Counters of one OPTR device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptrStats {
    /// Host data sectors written back from the cache to the log (GC
    /// relocations are `DeviceStats::gc_sectors_relocated`).
    pub data_sectors_programmed: u64,
    /// Coalescing records made (a dirty cached sector overwritten or
    /// trimmed by a later request).
    pub coalescing_records: u64,
    /// Coalescing-record sectors programmed.
    pub record_sectors_programmed: u64,
    /// Trim-record sectors programmed.
    pub trim_sectors_programmed: u64,
    /// Unused sector slots of programmed log pages (the staging page padded
    /// at a flush).
    pub padding_sectors_programmed: u64,
    /// Segment summary pages programmed.
    pub summary_pages_programmed: u64,
    /// L2P and seal pages of full checkpoints programmed.
    pub checkpoint_pages_programmed: u64,
    /// Incremental checkpoints taken.
    pub incremental_checkpoints: u64,
    /// Pages of incremental checkpoints programmed.
    pub incremental_pages_programmed: u64,
    /// Incremental checkpoints the last recovery applied (0 if the device
    /// was formatted).
    pub incremental_checkpoints_recovered: u64,
    /// Flushes OPTR issued itself: before each checkpoint and each GC batch
    /// (host flushes are `DeviceStats::flushes`).
    pub internal_flushes: u64,
    /// Checkpoints GC took because no segment could be collected.
    pub gc_checkpoints: u64,
    /// Times GC chose a batch of victims.
    pub gc_selections: u64,
    /// Summed over the selections: used segments written after the latest
    /// checkpoint, which GC may not collect.
    pub gc_segments_constrained: u64,
    /// Summed over the selections: data segments of the device (the
    /// denominator of the constrained share).
    pub gc_segments_seen: u64,
    /// Summed over the selections: victims greedy GC would have taken
    /// without the constraint but had to leave (a post-checkpoint segment
    /// among the batch's fewest-valid candidates).
    pub gc_victims_displaced: u64,
}

/// Declares the conversions of [`OptrStats`] to and from
/// `DeviceStats::ftl_counters`, one name per field.
macro_rules! named_counters {
    ($($f:ident),* $(,)?) => {
        impl OptrStats {
            /// Every counter by its field name (`DeviceStats::ftl_counters`).
            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($f), self.$f)),*]
            }

            /// The counters [`OptrStats::counters`] gave, back; `None` when
            /// they are not OPTR's (empty, or an unknown name).
            pub fn from_counters(c: &[(&'static str, u64)]) -> Option<OptrStats> {
                if c.is_empty() {
                    return None;
                }
                let mut s = OptrStats::default();
                for &(name, v) in c {
                    match name {
                        $(stringify!($f) => s.$f = v,)*
                        _ => return None,
                    }
                }
                Some(s)
            }
        }
    };
}

named_counters!(
    data_sectors_programmed,
    coalescing_records,
    record_sectors_programmed,
    trim_sectors_programmed,
    padding_sectors_programmed,
    summary_pages_programmed,
    checkpoint_pages_programmed,
    incremental_checkpoints,
    incremental_pages_programmed,
    incremental_checkpoints_recovered,
    internal_flushes,
    gc_checkpoints,
    gc_selections,
    gc_segments_constrained,
    gc_segments_seen,
    gc_victims_displaced,
);
