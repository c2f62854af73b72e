//! `randwr`: the random-write benchmark of the SCFTL paper's §7.2 (Fig. 5).
//!
//! Per FTL and write interval WI: format a fresh tags-only device under the
//! timing model, precondition it to steady state (one sequential fill of the
//! logical space, then random overwrites flushed every W writes until GC
//! has reclaimed blocks), run a measured phase of random 4 KiB writes with a
//! flush after every WI writes, and read back a sample of sectors to check
//! the FTL returned what was written. A fresh device per WI keeps one WI's
//! layout (WI = 1 pads nearly every page) from skewing the next.

use flash::timed::TimingStats;
use flash::Geometry;
use ftl::DeviceStats;

use crate::args::RandwrArgs;
use crate::chart::{self, Panel, Series};
use crate::probe::{Probe, TimedProbe};
use crate::report::{self, fmt_int, fmt_opt, Header, Report, Row, Table};
use crate::stack::{self, progress};
use crate::targets;
use crate::workload::{BResult, PhaseRecord, Writer};

/// The paper's Fig. 5 ratios (averages of the artifact's data):
/// (WI, scftl/async, scftl/sync).
pub const PAPER_RATIOS: [(u64, f64, f64); 4] = [
    (2048, 0.953, 15.4),
    (256, 0.894, 14.4),
    (16, 0.526, 3.8),
    (1, 0.497, 0.25),
];

/// Preconditions a freshly formatted device to steady state: one sequential
/// fill, `overwrite_factor` x L random overwrites, and more (up to 2 x L)
/// until GC has reclaimed at least one block. Flushes every epoch-sized
/// batch. Returns a note on what was done.
pub fn precondition(w: &mut Writer<'_>, overwrite_factor: f64) -> BResult<String> {
    let epoch = w.dev.epoch_remaining().unwrap_or(2048).clamp(1, 2048);
    let l = w.num_sectors();
    w.sequential_fill(64.min(epoch), epoch)?;
    let n = (l as f64 * overwrite_factor.max(0.0)) as u64;
    w.random_writes(n.div_ceil(epoch) * epoch, epoch)?;
    let mut extra = 0;
    while w.dev.stats().gc_blocks_reclaimed == 0 && extra < 8 {
        w.random_writes((l / 4).div_ceil(epoch) * epoch, epoch)?;
        extra += 1;
    }
    let s = w.dev.stats();
    if s.gc_blocks_reclaimed == 0 {
        return Err(format!(
            "preconditioning: GC never ran after {} writes; steady state not reached",
            s.user_sectors_written
        ));
    }
    Ok(format!(
        "1 sequential fill + {:.2} x L random writes (flush every {epoch}); GC had relocated {} sectors and reclaimed {} blocks",
        (n + extra * (l / 4)) as f64 / l as f64,
        s.gc_sectors_relocated,
        s.gc_blocks_reclaimed
    ))
}

/// What the device reported around one measured phase.
struct PhaseDelta {
    /// Flash counters of the phase.
    c: flash::FlashCounters,
    s0: DeviceStats,
    s1: DeviceStats,
    /// Timing totals at the start and the end of the phase.
    t0: TimingStats,
    t1: TimingStats,
    /// Busy time per die during the phase.
    die_busy_ns: Vec<u64>,
    /// Dies and channels of the device.
    dies: u64,
    channels: u64,
}

/// The measured quantities of one (FTL, WI) phase.
fn phase_row(
    g: &Geometry,
    ftl: &str,
    wi: u64,
    rec: &PhaseRecord,
    d: &PhaseDelta,
    buckets: usize,
) -> Row {
    let (c, s0, s1) = (&d.c, &d.s0, &d.s1);
    let writes = rec.writes as f64;
    let user = (s1.user_sectors_written - s0.user_sectors_written) as f64;
    let flushes = s1.flushes - s0.flushes;
    let (avg, max) = rec.flush_lat_us();
    let sim_s = rec.sim_ns as f64 / 1e9;
    let frac = |ns: u64| ns as f64 / rec.sim_ns.max(1) as f64;
    let die_max = d.die_busy_ns.iter().copied().max().unwrap_or(0);
    Row {
        bench: "randwr".into(),
        ftl: ftl.into(),
        wi: Some(wi),
        iops: Some(if sim_s > 0.0 {
            writes / sim_s
        } else {
            f64::NAN
        }),
        flush_lat_avg_us: Some(avg),
        flush_lat_max_us: Some(max),
        waf: Some(c.programs as f64 * f64::from(g.sectors_per_page) / user.max(1.0)),
        cpu_ns_per_write: Some(rec.wall_ns as f64 / writes),
        writes: Some(rec.writes),
        sim_seconds: Some(sim_s),
        flushes: Some(flushes),
        forced_flushes: Some(rec.forced_flushes),
        programs_per_write: Some(c.programs as f64 / writes),
        reads_per_write: Some(c.reads as f64 / writes),
        erases_per_write: Some(c.erases as f64 / writes),
        gc_relocations_per_write: Some(
            (s1.gc_sectors_relocated - s0.gc_sectors_relocated) as f64 / writes,
        ),
        meta_pages_per_flush: Some(
            (s1.meta_pages_written - s0.meta_pages_written) as f64 / (flushes.max(1)) as f64,
        ),
        full_checkpoints: Some(s1.full_checkpoints - s0.full_checkpoints),
        stall_fraction: Some(frac(d.t1.stall_ns - d.t0.stall_ns)),
        read_wait_fraction: Some(frac(d.t1.read_wait_ns - d.t0.read_wait_ns)),
        sync_wait_fraction: Some(frac(d.t1.sync_wait_ns - d.t0.sync_wait_ns)),
        host_fraction: Some(frac(rec.host_ns)),
        die_busy_fraction: Some(frac(d.t1.die_busy_ns - d.t0.die_busy_ns) / d.dies.max(1) as f64),
        die_busy_max_fraction: Some(frac(die_max)),
        channel_busy_fraction: Some(
            frac(d.t1.channel_busy_ns - d.t0.channel_busy_ns) / d.channels.max(1) as f64,
        ),
        die_bound_iops: (die_max > 0).then(|| writes / (die_max as f64 / 1e9)),
        timeline_kiops: rec.timeline(buckets),
        ..Row::default()
    }
}

/// Runs the benchmark, prints the report, writes JSON / PNG if asked.
pub fn run(a: &RandwrArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &RandwrArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    let quick = a.common.quick;
    let gname = if quick { "small" } else { a.geometry.as_str() };
    let g = stack::geometry(gname)?;
    let timing = stack::timing_config(&a.timing, &g)?;
    let commit = report::git_commit();
    let seed = a.common.seed;
    if a.wi.is_empty() || a.wi.contains(&0) {
        return Err("--wi needs at least one write interval, each at least 1".into());
    }
    let writes_default = if quick { 4096 } else { 1 << 20 };
    let writes = a.writes.unwrap_or(writes_default).max(1);
    let overwrite = if quick {
        a.overwrite_factor.min(0.5)
    } else {
        a.overwrite_factor
    };

    let mut header = Header::new(
        "randwr: random 4 KiB writes, flush every WI writes (SCFTL paper §7.2, Fig. 5)",
    );
    header.add("geometry", format!("{gname}: {g}"));
    header.add(
        "timing",
        stack::describe_timing(&timing, a.timing.host_request_ns),
    );
    header.add(
        "flash",
        "DatalessFlash (metadata blocks whole, 8-byte tag per data sector) under TimedFlash",
    );
    header.add("seed", seed.to_string());
    report::add_provenance(&mut header);
    header.add(
        "workload",
        format!("per (FTL, WI) a freshly formatted device, preconditioned (1 sequential fill + {overwrite} x L random writes flushed every W, more until GC is active), then for each thread count {:?} a measured phase of {writes} random writes (rounded up to a multiple of WI x threads) on that same device, the threads closed-loop in front of the serial FTL, each flushing after every WI writes of its own; WIs {:?}", a.threads, a.wi),
    );
    header.add(
        "epoch bound",
        "before a write that does not fit the epoch (epoch_remaining = 0) the harness flushes first: a forced flush, counted; with WI <= W this never happens",
    );
    header.add(
        "WAF",
        "flash sectors programmed (whole pages: data, padding, metadata) per user sector written",
    );

    let mut rows: Vec<Row> = Vec::new();
    let mut notes = Vec::new();
    for ftl_arg in &a.ftl {
        let kind = ftl_arg.kind();
        let f = match kind {
            ftl::FtlKind::Scftl => {
                let base = targets::scftl_factory(&g)?;
                let t = a.scftl_streams.unwrap_or(base.config.gc_streams);
                let base = match a.scftl_delta_region {
                    Some(d) if d != base.config.delta_region_superblocks => {
                        base.with_delta_region(d).ok_or_else(|| {
                            format!(
                                "a delta region of {d} superblocks does not fit {g}: give fewer"
                            )
                        })?
                    }
                    _ => base,
                };
                let f = if base.config.gc_streams == t {
                    base
                } else {
                    base.with_streams(t).ok_or_else(|| {
                        format!("SCFTL's {t} write streams do not fit {g}: try --scftl-streams 1")
                    })?
                };
                Box::new(f) as Box<dyn targets::Factory>
            }
            _ => targets::factory(kind, &g)?,
        };
        header.add(&format!("config {}", kind.name()), f.describe());
        for &wi in &a.wi {
            // A fresh device per WI, so no phase inherits the layout another
            // WI left behind (WI = 1 pads nearly every page).
            let shared = stack::timed_dataless(f.as_ref(), &g, timing)?;
            let probe = TimedProbe(shared.clone());
            let dev = f.format(Box::new(shared.clone()))?;
            let mut w = Writer::new(dev, &probe, seed);
            w.host_request_ns = a.timing.host_request_ns;
            progress(
                a.common.silent,
                format!(
                    "{kind} WI={wi}: preconditioning {} logical sectors",
                    w.num_sectors()
                ),
            );
            let note = precondition(&mut w, overwrite)?;
            if notes.len() < a.ftl.len() * a.wi.len() {
                notes.push(format!("{kind} WI={wi}: {note}"));
            }
            for &threads in &a.threads {
                let n = writes.div_ceil(wi * threads) * wi * threads;
                let c0 = probe.counters();
                let s0 = w.dev.stats();
                let t0 = probe.timing().unwrap_or_default();
                let busy0 = probe.busy_ns_per_die();
                let rec = w.measured_random_writes_threads(n, wi, threads)?;
                let delta = PhaseDelta {
                    c: probe.counters().since(&c0),
                    s0,
                    s1: w.dev.stats(),
                    t0,
                    t1: probe.timing().unwrap_or_default(),
                    die_busy_ns: probe
                        .busy_ns_per_die()
                        .iter()
                        .zip(&busy0)
                        .map(|(b1, b0)| b1 - b0)
                        .collect(),
                    dies: u64::from(g.dies()),
                    channels: u64::from(g.channels),
                };
                let mut row = phase_row(&g, kind.name(), wi, &rec, &delta, a.buckets);
                row.threads = Some(threads);
                row.geometry = gname.into();
                row.seed = seed;
                row.commit = commit.clone();
                progress(
                    a.common.silent,
                    format!(
                        "{kind} WI={wi} threads={threads}: {} IOPS (simulated), WAF {:.2}, {:.0} ns/write CPU",
                        fmt_int(row.iops.unwrap_or(0.0)),
                        row.waf.unwrap_or(0.0),
                        row.cpu_ns_per_write.unwrap_or(0.0)
                    ),
                );
                rows.push(row);
            }
            w.verify(a.verify)
                .map_err(|e| format!("{kind} WI={wi}: {e}"))?;
        }
    }
    add_ratios(&mut rows);
    for n in notes {
        header.add("precondition", n);
    }
    let text = render(&header, &rows);
    let rep = crate::output::finish(&a.common, rows, text)?;
    let rows = &rep.rows;
    if let Some(p) = &a.common.png {
        draw(
            p,
            rows,
            &a.wi,
            &format!("randwr on {gname} ({commit}, seed {seed})"),
        )?;
    }
    Ok(rep)
}

/// Host threads of a row (one when the report predates `--threads`).
pub fn threads(r: &Row) -> u64 {
    r.threads.unwrap_or(1)
}

/// Fills in scftl/async and scftl/sync per (WI, threads) on the scftl rows.
pub fn add_ratios(rows: &mut [Row]) {
    let iops = |rows: &[Row], ftl: &str, me: &Row| {
        rows.iter()
            .find(|r| r.ftl == ftl && r.wi == me.wi && threads(r) == threads(me))
            .and_then(|r| r.iops)
    };
    let snapshot: Vec<Row> = rows.to_vec();
    for r in rows.iter_mut().filter(|r| r.ftl == "scftl") {
        let me = r.iops;
        r.scftl_over_async = me.zip(iops(&snapshot, "async", r)).map(|(a, b)| a / b);
        r.scftl_over_sync = me.zip(iops(&snapshot, "sync", r)).map(|(a, b)| a / b);
    }
}

/// The main table: throughput, flush latency, what was programmed and read.
pub fn main_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "ftl",
        "WI",
        "threads",
        "kIOPS (sim)",
        "flush avg µs",
        "flush max µs",
        "WAF (sectors)",
        "prog/w (pages)",
        "reads/w",
        "erases/w",
        "GC reloc/w",
        "meta pg/flush",
        "full ckpts",
        "forced flushes",
        "CPU ns/w",
    ]);
    for r in rows {
        t.push(vec![
            r.ftl.clone(),
            crate::report::fmt_count(r.wi),
            threads(r).to_string(),
            fmt_opt(r.iops.map(|x| x / 1e3), 2),
            fmt_opt(r.flush_lat_avg_us, 0),
            fmt_opt(r.flush_lat_max_us, 0),
            fmt_opt(r.waf, 3),
            fmt_opt(r.programs_per_write, 3),
            fmt_opt(r.reads_per_write, 3),
            fmt_opt(r.erases_per_write, 4),
            fmt_opt(r.gc_relocations_per_write, 3),
            fmt_opt(r.meta_pages_per_flush, 2),
            crate::report::fmt_count(r.full_checkpoints),
            crate::report::fmt_count(r.forced_flushes),
            fmt_opt(r.cpu_ns_per_write, 0),
        ]);
    }
    t
}

/// Percent of a fraction, no decimals, "-" when absent.
fn pct(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{:.0}%", x * 100.0),
        _ => "-".into(),
    }
}

/// The bound analysis: how busy dies and channels were, what the host
/// waited for (the shares add up to the whole run: with no host time per
/// command the host clock only moves while it waits or is charged), and the
/// throughput as a share of the die-time bound.
pub fn bound_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "ftl",
        "WI",
        "threads",
        "kIOPS (sim)",
        "die busy (mean)",
        "die busy (max)",
        "channel busy",
        "host waits: reads",
        "syncs",
        "queue slots",
        "host time",
        "die-time bound kIOPS",
        "of bound",
    ]);
    for r in rows {
        t.push(vec![
            r.ftl.clone(),
            crate::report::fmt_count(r.wi),
            threads(r).to_string(),
            fmt_opt(r.iops.map(|x| x / 1e3), 2),
            pct(r.die_busy_fraction),
            pct(r.die_busy_max_fraction),
            pct(r.channel_busy_fraction),
            pct(r.read_wait_fraction),
            pct(r.sync_wait_fraction),
            pct(r.stall_fraction),
            pct(r.host_fraction),
            fmt_opt(r.die_bound_iops.map(|x| x / 1e3), 2),
            pct(r.iops.zip(r.die_bound_iops).map(|(a, b)| a / b)),
        ]);
    }
    t
}

/// scftl over async and sync per WI, beside the paper's; `None` when no
/// ratio was computed (scftl alone, or without scftl).
pub fn ratio_table(rows: &[Row]) -> Option<Table> {
    let mut rt = Table::new(&[
        "WI",
        "threads",
        "scftl/async",
        "paper scftl/async",
        "scftl/sync",
        "paper scftl/sync",
    ]);
    let mut any = false;
    for r in rows.iter().filter(|r| r.ftl == "scftl") {
        let paper = PAPER_RATIOS.iter().find(|p| Some(p.0) == r.wi);
        any |= r.scftl_over_async.is_some() || r.scftl_over_sync.is_some();
        // The paper's ratios are of its sequential (one-thread) runs.
        let paper = paper.filter(|_| threads(r) == 1);
        rt.push(vec![
            crate::report::fmt_count(r.wi),
            threads(r).to_string(),
            fmt_opt(r.scftl_over_async, 3),
            fmt_opt(paper.map(|p| p.1), 3),
            times(r.scftl_over_sync),
            times(paper.map(|p| p.2)),
        ]);
    }
    any.then_some(rt)
}

/// A ratio as "3.54x", or "-" when there is none.
fn times(v: Option<f64>) -> String {
    match fmt_opt(v, 2) {
        d if d == "-" => d,
        x => x + "x",
    }
}

/// Every table of the report, in order (the document test finds each of
/// their rows in docs/BENCHMARKS.md).
pub fn tables(rows: &[Row]) -> Vec<Table> {
    let mut v = vec![main_table(rows), bound_table(rows)];
    v.extend(ratio_table(rows));
    v
}

/// The text report: header, the main table, the bound analysis, the ratio
/// table, the throughput over time.
pub fn render(header: &Header, rows: &[Row]) -> String {
    let mut s = header.render_with(&main_table(rows));
    s.push_str("\nWhere the simulated time went (shares of the measured phase; the die-time bound is the throughput if the run had lasted only as long as its busiest die worked):\n\n");
    s.push_str(&bound_table(rows).render());
    if let Some(rt) = ratio_table(rows) {
        s.push('\n');
        s.push_str(&rt.render());
    }
    s.push_str(
        "\nThroughput over simulated time (kIOPS per bucket; bucket ends in simulated seconds):\n",
    );
    for r in rows {
        let pts: Vec<String> = r
            .timeline_kiops
            .iter()
            .map(|(t, k)| format!("{t:.2}s:{k:.1}"))
            .collect();
        s.push_str(&format!(
            "  {} WI={} threads={}: {}\n",
            r.ftl,
            r.wi.unwrap_or(0),
            threads(r),
            pts.join(" ")
        ));
    }
    s
}

/// Fig. 5-like chart: IOPS per WI, then throughput over time for each WI.
pub fn draw(path: &std::path::Path, rows: &[Row], wis: &[u64], title: &str) -> BResult<()> {
    // One series per (FTL, threads), labelled `scftl` or `scftl x4`.
    let label = |r: &Row| match threads(r) {
        1 => r.ftl.clone(),
        t => format!("{} x{t}", r.ftl),
    };
    let ftls: Vec<(String, String)> = {
        let mut v: Vec<(String, String)> = Vec::new();
        for r in rows {
            if !v.iter().any(|(l, _)| *l == label(r)) {
                v.push((label(r), r.ftl.clone()));
            }
        }
        v
    };
    let mut panels = vec![Panel {
        title: "Simulated throughput per write interval".into(),
        x_label: "write interval (writes per flush)".into(),
        y_label: "IOPS (log)".into(),
        log_y: true,
        x_categories: wis.iter().map(|w| w.to_string()).collect(),
        series: ftls
            .iter()
            .map(|(l, f)| Series {
                label: l.clone(),
                color: chart::ftl_color(f),
                points: wis
                    .iter()
                    .enumerate()
                    .filter_map(|(i, wi)| {
                        rows.iter()
                            .find(|r| label(r) == *l && r.wi == Some(*wi))
                            .and_then(|r| r.iops)
                            .map(|y| (i as f64, y))
                    })
                    .collect(),
            })
            .collect(),
    }];
    for wi in wis {
        panels.push(Panel {
            title: format!("WI = {wi}: throughput over time"),
            x_label: "simulated time (s)".into(),
            y_label: "kIOPS".into(),
            log_y: false,
            x_categories: Vec::new(),
            series: rows
                .iter()
                .filter(|r| r.wi == Some(*wi))
                .map(|r| Series {
                    label: label(r),
                    color: chart::ftl_color(&r.ftl),
                    points: r.timeline_kiops.clone(),
                })
                .collect(),
        });
    }
    chart::draw(path, title, &panels, 3)
}
