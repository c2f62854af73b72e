//! `boot`: SCFTL recovery time versus delta-region fill and versus device
//! size (the SCFTL paper's Fig. 6).
//!
//! Recovery is timed twice: in simulated device time (the host clock of the
//! timing model across `open`, i.e. the flash reads recovery waits for plus
//! any programs and syncs it issues) and in wall-clock time on this machine
//! (the FTL's CPU work plus the flash model's). The device is "crashed"
//! right after a completed flush — the FTL object is dropped with nothing in
//! flight — which the paper reports boots as fast as a clean shutdown.
//!
//! Fill sweep: one device, filled sequentially, then random writes with a
//! flush every `fill_wi` (default W, so delta pages are full) until the
//! delta region holds the requested share of its pages; measured at each
//! level in increasing order (recovery keeps the delta region, so the next
//! level continues from it). "100 %" means as full as SCFTL lets it get: a
//! flush takes a full checkpoint (and empties the region) once fewer than
//! one epoch's worth of pages remain, so the fill stops one epoch short.
//!
//! Size sweep: one fresh device per preset, filled sequentially once (so the
//! L2P is fully mapped and every data superblock is in use), then recovered.

use std::time::Instant;

use flash::{Flash, PageAddr};
use ftl::scftl::{format as sc_format, ScftlConfig};

use crate::args::BootArgs;
use crate::chart::{self, Panel, Series};
use crate::probe::{Probe, TimedProbe};
use crate::report::{self, fmt_opt, Header, Report, Row, Table};
use crate::stack::{self, progress, TimedDataless};
use crate::targets::{Factory, ScftlFactory};
use crate::workload::{BResult, Writer};

/// Counts the delta pages (tentative, committed or ordered) present on flash, by
/// reading the header of every programmed page of the metadata blocks
/// directly from the tags-only device (no simulated time is charged).
pub fn count_delta_pages(shared: &TimedDataless, f: &ScftlFactory) -> BResult<u64> {
    let g = f.g;
    let ss = g.sector_size as usize;
    let mut buf = vec![0u8; ss];
    let mut n = 0;
    shared.with(|t| -> BResult<()> {
        let d = t.inner_mut();
        for b in f.metadata_blocks() {
            {
                for p in 0..g.pages_per_block {
                    let pa = PageAddr::new(b, p);
                    if d.is_erased(pa).map_err(|e| e.to_string())? {
                        continue;
                    }
                    d.read(pa, 0, &mut buf).map_err(|e| e.to_string())?;
                    let magic = &buf[sc_format::OFF_MAGIC..sc_format::OFF_MAGIC + 4];
                    // The after-sync flag is a bit of the kind field;
                    // epochs ended by the bound (not by a client flush)
                    // end with an ordered page.
                    let kind = u16::from_le_bytes([
                        buf[sc_format::OFF_KIND],
                        buf[sc_format::OFF_KIND + 1],
                    ]) & !sc_format::KIND_AFTER_SYNC;
                    if magic == sc_format::META_MAGIC
                        && matches!(
                            kind,
                            sc_format::KIND_TENTATIVE
                                | sc_format::KIND_COMMITTED
                                | sc_format::KIND_ORDERED
                        )
                    {
                        n += 1;
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(n)
}

/// What one recovery cost.
#[derive(Clone, Copy, Debug)]
pub struct Recovery {
    pub sim_ns: u64,
    pub wall_ns: u64,
    pub reads: u64,
}

/// Drops the device in `w` (a crash after its last completed flush), runs
/// recovery on the same flash, and puts the recovered device in `w`.
pub fn crash_and_recover<F: Flash + 'static>(
    w: &mut Writer<'_>,
    f: &dyn Factory,
    shared: &flash::SharedFlash<flash::TimedFlash<F>>,
    probe: &TimedProbe<F>,
) -> BResult<Recovery> {
    // Let queued background work (e.g. erases) finish first, so the boot is
    // not charged for the previous run's tail.
    shared.with(|t| t.sync()).map_err(|e| e.to_string())?;
    let placeholder: Box<dyn ftl::BlockDevice> = Box::new(Gone);
    drop(w.replace_device(placeholder));
    let t0 = probe.now_ns();
    let c0 = probe.counters();
    let wall = Instant::now();
    let dev = f.open(Box::new(shared.clone()))?;
    let wall_ns = wall.elapsed().as_nanos() as u64;
    let r = Recovery {
        sim_ns: probe.now_ns() - t0,
        wall_ns,
        reads: probe.counters().since(&c0).reads,
    };
    w.replace_device(dev);
    Ok(r)
}

/// The report row of one recovery of `f`'s device on `geometry` with `d`
/// delta pages present.
#[allow(clippy::too_many_arguments)]
fn recovery_row(
    wi: u64,
    geometry: &str,
    f: &ScftlFactory,
    seed: u64,
    commit: &str,
    d: u64,
    rec: &Recovery,
    note: String,
) -> Row {
    let g = &f.g;
    Row {
        bench: "boot".into(),
        ftl: "scftl".into(),
        wi: Some(wi),
        geometry: geometry.into(),
        seed,
        commit: commit.into(),
        device_gib: Some(g.raw_bytes() >> 30),
        logical_gib: Some(gib(f.config.logical_sectors * u64::from(g.sector_size))),
        delta_fill_pct: Some(100.0 * d as f64 / f.delta_capacity_pages() as f64),
        delta_pages: Some(d),
        recovery_sim_ms: Some(rec.sim_ns as f64 / 1e6),
        recovery_wall_ms: Some(rec.wall_ns as f64 / 1e6),
        recovery_reads: Some(rec.reads),
        note: Some(note),
        ..Row::default()
    }
}

/// Stands in for the device between the crash and the end of recovery.
struct Gone;

impl ftl::BlockDevice for Gone {
    fn sector_size(&self) -> usize {
        4096
    }
    fn num_sectors(&self) -> u64 {
        0
    }
    fn read(&mut self, _: ftl::Lba, _: &mut [u8]) -> ftl::Result<()> {
        Err(ftl::FtlError::BadArgument("device crashed".into()))
    }
    fn write(&mut self, _: ftl::Lba, _: &[u8]) -> ftl::Result<()> {
        Err(ftl::FtlError::BadArgument("device crashed".into()))
    }
    fn trim(&mut self, _: ftl::Lba, _: u64) -> ftl::Result<()> {
        Err(ftl::FtlError::BadArgument("device crashed".into()))
    }
    fn flush(&mut self) -> ftl::Result<()> {
        Err(ftl::FtlError::BadArgument("device crashed".into()))
    }
    fn epoch_remaining(&self) -> Option<u64> {
        Some(0)
    }
    fn stats(&self) -> ftl::DeviceStats {
        ftl::DeviceStats::default()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        Ok(())
    }
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 30)
}

/// Runs the benchmark, prints the report, writes JSON / PNG if asked.
/// Writes per epoch of the chain sweep: on the 4-sector presets, one
/// epoch of random writes fills 4 data pages and commits in the OOB of the
/// last (docs/FORMAT.md §4.9).
const CHAIN_WI: u64 = 16;

pub fn run(a: &BootArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &BootArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    let quick = a.common.quick;
    let silent = a.common.silent;
    let gname = if quick { "small" } else { a.geometry.as_str() };
    let g = stack::geometry(gname)?;
    let timing = stack::timing_config(&a.timing, &g)?;
    let commit = report::git_commit();
    let seed = a.common.seed;
    let sizes: Vec<String> = if quick {
        vec!["small".into(), "medium".into()]
    } else {
        a.sizes.clone()
    };

    let mut header = Header::new(
        "boot: SCFTL recovery time vs delta-region fill and device size (SCFTL paper Fig. 6)",
    );
    header.add("geometry (fill sweep)", format!("{gname}: {g}"));
    header.add("timing", stack::describe_timing(&timing, 0));
    header.add(
        "flash",
        "DatalessFlash (metadata blocks whole, 8-byte tag per data sector) under TimedFlash",
    );
    header.add("seed", seed.to_string());
    report::add_provenance(&mut header);
    header.add(
        "crash",
        "FTL dropped right after a completed flush, then `open` (recovery) on the same flash",
    );
    header.add("sim", "simulated host time across `open`: recovery's flash reads, plus any programs/syncs it issues");

    let mut rows = Vec::new();

    // Fill sweep.
    let f = ScftlFactory {
        g,
        config: ScftlConfig::paper_for(&g),
    };
    f.config
        .validate(&g)
        .map_err(|e| format!("SCFTL default configuration on {gname}: {e}"))?;
    header.add("config scftl", f.describe());
    let cap = f.delta_capacity_pages();
    let max_fill = cap.saturating_sub(f.epoch_pages_max());
    let w_bound = u64::from(f.config.write_bound);
    let fill_wi = a.fill_wi.unwrap_or(w_bound).clamp(1, w_bound);
    header.add(
        "fill sweep",
        format!("sequential fill, then random writes with a flush every {fill_wi} until the delta region holds the target share of its {cap} pages; at most {max_fill} pages can be present after a flush (one epoch's {} pages short of full)", f.epoch_pages_max()),
    );
    let shared = stack::timed_dataless(&f, &g, timing)?;
    let probe = TimedProbe(shared.clone());
    let dev = f.format(Box::new(shared.clone()))?;
    let mut w = Writer::new(dev, &probe, seed);
    progress(
        silent,
        format!(
            "boot fill sweep on {gname}: sequential fill of {} sectors",
            w.num_sectors()
        ),
    );
    w.sequential_fill(64.min(w_bound), w_bound)?;
    let mut levels = a.fill.clone();
    levels.sort_unstable();
    levels.dedup();
    for pct in levels {
        let target = (u64::from(pct.min(100)) * cap) / 100;
        let mut d = count_delta_pages(&shared, &f)?;
        let mut growth_max = 1;
        // The highest fill known to survive a flush without a full
        // checkpoint; lowered if the FTL checkpoints earlier than the
        // formula predicts. The epoch cap makes the loop end whatever the
        // FTL does.
        let mut limit = max_fill;
        let mut epochs = 0u64;
        let max_epochs = 4 * cap + 64;
        while d < target.min(limit) && epochs < max_epochs {
            epochs += 1;
            let s0 = w.dev.stats();
            w.random_writes(fill_wi, fill_wi)?;
            let s1 = w.dev.stats();
            if s1.full_checkpoints != s0.full_checkpoints {
                // The region was emptied: `d` pages were present before
                // this epoch, more were not allowed. Refill to at most that.
                limit = limit.min(d);
                d = count_delta_pages(&shared, &f)?;
                continue;
            }
            let grew = s1.meta_pages_written - s0.meta_pages_written;
            growth_max = growth_max.max(grew);
            d += grew;
            if d + growth_max > limit {
                break;
            }
        }
        let d = count_delta_pages(&shared, &f)?;
        let rec = crash_and_recover(&mut w, &f, &shared, &probe)?;
        w.verify(a.verify)
            .map_err(|e| format!("after recovery at {pct}% fill: {e}"))?;
        let fill = 100.0 * d as f64 / cap as f64;
        progress(
            silent,
            format!(
                "fill {pct}% ({d} delta pages, {fill:.1}%): recovery {:.1} ms simulated, {:.1} ms wall",
                rec.sim_ns as f64 / 1e6,
                rec.wall_ns as f64 / 1e6
            ),
        );
        rows.push(recovery_row(
            fill_wi,
            gname,
            &f,
            seed,
            &commit,
            d,
            &rec,
            format!("fill sweep, target {pct}%"),
        ));
    }
    // Chain sweep: what following a chain of commits made in data pages
    // (in-page records and OOB commits, docs/FORMAT.md §4.8–4.9) adds to
    // recovery. An epoch of W random writes commits in the region and
    // starts a chain; then `n` epochs of CHAIN_WI random writes, each
    // committed in its last data page, before the crash.
    for n in [0u64, 126] {
        w.random_writes(w_bound, w_bound)?;
        let s0 = w.dev.stats();
        w.random_writes(CHAIN_WI * n, CHAIN_WI)?;
        let s1 = w.dev.stats();
        let chained = s1.data_page_commits - s0.data_page_commits;
        let region = s1.meta_pages_written - s0.meta_pages_written;
        let d = count_delta_pages(&shared, &f)?;
        let rec = crash_and_recover(&mut w, &f, &shared, &probe)?;
        w.verify(a.verify)
            .map_err(|e| format!("after recovery with a chain of {n} epochs: {e}"))?;
        progress(
            silent,
            format!(
                "chain of {chained} epochs ({region} delta pages since): recovery {:.1} ms simulated",
                rec.sim_ns as f64 / 1e6
            ),
        );
        rows.push(recovery_row(
            CHAIN_WI,
            gname,
            &f,
            seed,
            &commit,
            d,
            &rec,
            format!("chain sweep: {chained} epochs committed in data pages, {region} delta pages"),
        ));
    }
    drop(w);

    // Size sweep.
    for name in &sizes {
        let g = stack::geometry(name)?;
        let timing = stack::timing_config(&a.timing, &g)?;
        let f = ScftlFactory {
            g,
            config: ScftlConfig::paper_for(&g),
        };
        f.config
            .validate(&g)
            .map_err(|e| format!("SCFTL default configuration on {name}: {e}"))?;
        header.add(&format!("config scftl {name}"), f.describe());
        let shared = stack::timed_dataless(&f, &g, timing)?;
        let probe = TimedProbe(shared.clone());
        let dev = f.format(Box::new(shared.clone()))?;
        let mut w = Writer::new(dev, &probe, seed);
        let wb = u64::from(f.config.write_bound);
        progress(
            silent,
            format!(
                "boot size sweep {name}: sequential fill of {} sectors",
                w.num_sectors()
            ),
        );
        w.sequential_fill(64.min(wb), wb)?;
        let d = count_delta_pages(&shared, &f)?;
        let rec = crash_and_recover(&mut w, &f, &shared, &probe)?;
        w.verify(a.verify)
            .map_err(|e| format!("after recovery of {name}: {e}"))?;
        progress(
            silent,
            format!(
                "{name}: recovery {:.1} ms simulated, {:.1} ms wall",
                rec.sim_ns as f64 / 1e6,
                rec.wall_ns as f64 / 1e6
            ),
        );
        rows.push(recovery_row(
            wb,
            name,
            &f,
            seed,
            &commit,
            d,
            &rec,
            "size sweep, after one sequential fill".to_string(),
        ));
    }

    let text = render(&header, &rows);
    let rep = crate::output::finish(&a.common, rows, text)?;
    let rows = &rep.rows;
    if let Some(p) = &a.common.png {
        draw(p, rows, &format!("boot ({commit}, seed {seed})"))?;
    }
    Ok(rep)
}

/// The table: one row per recovery.
pub fn table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "sweep",
        "geometry",
        "raw GiB",
        "logical GiB",
        "delta pages",
        "delta fill",
        "recovery sim ms",
        "recovery wall ms",
        "flash reads",
    ]);
    for r in rows {
        t.push(vec![
            r.note.clone().unwrap_or_default(),
            r.geometry.clone(),
            crate::report::fmt_count(r.device_gib),
            fmt_opt(r.logical_gib, 2),
            crate::report::fmt_count(r.delta_pages),
            fmt_opt(r.delta_fill_pct, 1) + "%",
            fmt_opt(r.recovery_sim_ms, 1),
            fmt_opt(r.recovery_wall_ms, 1),
            crate::report::fmt_count(r.recovery_reads),
        ]);
    }
    t
}

/// Every table of the report (the document test finds their rows in
/// docs/BENCHMARKS.md).
pub fn tables(rows: &[Row]) -> Vec<Table> {
    vec![table(rows)]
}

/// The text report: the header and the table.
pub fn render(header: &Header, rows: &[Row]) -> String {
    header.render_with(&table(rows))
}

/// Two panels: boot time vs delta fill, boot time vs device size.
pub fn draw(path: &std::path::Path, rows: &[Row], title: &str) -> BResult<()> {
    let fill: Vec<&Row> = rows
        .iter()
        .filter(|r| r.note.as_deref().is_some_and(|n| n.starts_with("fill")))
        .collect();
    let size: Vec<&Row> = rows
        .iter()
        .filter(|r| r.note.as_deref().is_some_and(|n| n.starts_with("size")))
        .collect();
    let series = |rs: &[&Row], x: fn(&Row) -> f64| {
        vec![
            Series {
                label: "simulated".into(),
                color: chart::ftl_color("scftl"),
                points: rs
                    .iter()
                    .map(|r| (x(r), r.recovery_sim_ms.unwrap_or(0.0)))
                    .collect(),
            },
            Series {
                label: "wall clock".into(),
                color: chart::ftl_color("async"),
                points: rs
                    .iter()
                    .map(|r| (x(r), r.recovery_wall_ms.unwrap_or(0.0)))
                    .collect(),
            },
        ]
    };
    let panels = vec![
        Panel {
            title: "Boot time vs delta-region fill".into(),
            x_label: "delta region fill (%)".into(),
            y_label: "recovery (ms)".into(),
            log_y: false,
            x_categories: Vec::new(),
            series: series(&fill, |r| r.delta_fill_pct.unwrap_or(0.0)),
        },
        Panel {
            title: "Boot time vs device size".into(),
            x_label: "raw device size (GiB)".into(),
            y_label: "recovery (ms)".into(),
            log_y: false,
            x_categories: Vec::new(),
            series: series(&size, |r| r.device_gib.unwrap_or(0) as f64),
        },
    ];
    chart::draw(path, title, &panels, 2)
}
