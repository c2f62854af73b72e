//! `optr`: the OPTR paper's FTL analyses (ATC'19 §7) on our stack, OPTR
//! against the async baseline in simulated device time.
//!
//! Per FTL variant (async; optr with its default 8 MiB cache; `optr-small`,
//! optr with a cache of one flash page, as large as async's merge buffer,
//! which isolates the cost of ordering from the gain of the cache) one
//! device of the geometry is formatted, preconditioned to GC steady state
//! (one sequential fill plus random 4 KiB overwrites, as `randwr` does),
//! then runs the sweep of §7 point after point on the same device: random
//! writes of one request size (16 KiB, 1 MiB, or either with equal chance)
//! at request-aligned offsets inside a footprint at the start of the
//! device (1 MiB / 80 MiB / 1 GiB), a flush after every FI requests and at
//! the end of the point. Every variant sees the same request stream (one
//! PRNG per point, seeded from the seed and the point). After the sweep
//! the device is crashed right after its last flush and recovered
//! (simulated time across `open`), and a sample of sectors is read back and
//! checked.
//!
//! Measured per point: throughput (MB/s of host data over simulated time),
//! OPTR's overhead against async (1 - optr / async), its extra page
//! programs (coalescing-record sectors, checkpoint L2P and seal pages,
//! summary pages; padding apart) as a share of its data pages, and what
//! the first GC constraint held back (`ftl::optr::OptrStats`). Memory
//! overhead is computed from the configuration (`targets::OptrFactory`).
//!
//! Determinism: one seed drives preconditioning and every point's request
//! stream; the FTLs and the timing model are deterministic.

use flash::{DatalessFlash, Geometry, SharedFlash, TimedFlash, TimingConfig};
use ftl::optr::OptrStats;
use ftl::DeviceStats;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::args::{OptrArgs, RequestArg};
use crate::chart::{self, Panel, Series};
use crate::keepmeta::KeepMetaFlash;
use crate::probe::{Probe, TimedProbe};
use crate::report::{self, fmt_opt, Header, Report, Row, Table};
use crate::stack::{self, progress};
use crate::targets::{self, Factory, OptrFactory};
use crate::workload::{BResult, Writer};

/// The paper's §7.3 throughput overhead of OPTR: average and worst, %.
pub const PAPER_OVERHEAD_AVG_PCT: f64 = 2.0;
pub const PAPER_OVERHEAD_WORST_PCT: f64 = 11.1;
/// The paper's §7.2 share of blocks written after the latest checkpoint.
pub const PAPER_CONSTRAINED_PCT: f64 = 0.2;

pub use crate::report::OptrPoint;

/// The variants measured, in order; `async` first (the baseline).
const VARIANTS: [&str; 3] = ["async", "optr", "optr-small"];

/// The stack of this benchmark: tags-only flash that keeps OPTR's metadata
/// pages whole, under the timing model.
type Stack = SharedFlash<TimedFlash<KeepMetaFlash>>;

fn timed_stack(f: &dyn Factory, g: &Geometry, t: TimingConfig) -> BResult<Stack> {
    let raw = DatalessFlash::with_metadata_blocks(*g, f.metadata_blocks())
        .map_err(|e| format!("dataless flash: {e}"))?;
    Ok(SharedFlash::new(TimedFlash::new(
        KeepMetaFlash::new(raw),
        t,
    )))
}

/// The factory of a variant on `g`, all with the same logical size `l`.
fn variant(name: &str, g: &Geometry, l: u64) -> BResult<Box<dyn Factory>> {
    match name {
        "async" => {
            let f = targets::factory(ftl::FtlKind::Async, g)?;
            if f.logical_sectors() != l {
                return Err(format!(
                    "async exposes {} sectors on {g}, optr {l}: the comparison needs one size",
                    f.logical_sectors()
                ));
            }
            Ok(f)
        }
        "optr" | "optr-small" => {
            let base = targets::factory(ftl::FtlKind::Optr, g)?;
            let mut config = ftl::optr::OptrConfig::default_for(g);
            config.logical_sectors = base.logical_sectors();
            if name == "optr-small" {
                config.cache_bytes = g.page_size() as u64;
            }
            Ok(Box::new(OptrFactory::new(*g, config)?))
        }
        other => Err(format!("unknown variant {other}")),
    }
}

fn request_name(r: RequestArg) -> &'static str {
    match r {
        RequestArg::Small => "16k",
        RequestArg::Large => "1m",
        RequestArg::Hybrid => "hybrid",
    }
}

/// One sweep point.
#[derive(Clone, Copy, Debug)]
struct Point {
    locality_mib: u64,
    request: RequestArg,
    fi: u64,
    /// Requests of the point.
    requests: u64,
}

impl Point {
    /// The PRNG seed of this point's request stream.
    fn stream_seed(&self, seed: u64) -> u64 {
        let r = match self.request {
            RequestArg::Small => 1,
            RequestArg::Large => 2,
            RequestArg::Hybrid => 3,
        };
        seed ^ self.locality_mib.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (r << 56)
            ^ self.fi.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
    }
}

/// The points of the sweep: every (locality, request, FI) whose FI does
/// not exceed the point's requests.
fn points(
    localities: &[u64],
    requests: &[RequestArg],
    fis: &[u64],
    point_bytes: u64,
) -> Vec<Point> {
    let mut v = Vec::new();
    for &loc in localities {
        for &req in requests {
            let mean = match req {
                RequestArg::Small => 16 << 10,
                RequestArg::Large => 1 << 20,
                RequestArg::Hybrid => ((16 << 10) + (1 << 20)) / 2,
            };
            let n = (point_bytes / mean).max(1);
            for &fi in fis {
                if fi <= n {
                    v.push(Point {
                        locality_mib: loc,
                        request: req,
                        fi,
                        requests: n,
                    });
                }
            }
        }
    }
    v
}

/// What one point measured on one variant.
struct Measured {
    sim_ns: u64,
    sectors: u64,
    flushes: u64,
    programs: u64,
    /// Flash reads and erases of the point.
    reads: u64,
    erases: u64,
    s0: DeviceStats,
    s1: DeviceStats,
    /// Timing totals before and after (None without a timing model).
    t0: Option<flash::timed::TimingStats>,
    t1: Option<flash::timed::TimingStats>,
    dies: u64,
}

/// Runs one point on the device in `w`.
fn run_point(w: &mut Writer<'_>, probe: &dyn Probe, p: &Point, seed: u64) -> BResult<Measured> {
    let ss = w.dev.sector_size() as u64;
    let l = w.num_sectors();
    let foot = ((p.locality_mib << 20) / ss).clamp(1, l);
    let small = ((16 << 10) / ss).max(1);
    let large = ((1 << 20) / ss).max(1);
    let mut rng = Pcg64::seed_from_u64(p.stream_seed(seed));
    let t0 = probe.now_ns();
    let c0 = probe.counters();
    let s0 = w.dev.stats();
    let timing0 = probe.timing();
    let mut sectors = 0;
    let mut flushes = 0;
    for i in 0..p.requests {
        let size = match p.request {
            RequestArg::Small => small,
            RequestArg::Large => large,
            RequestArg::Hybrid => {
                if rng.gen_bool(0.5) {
                    small
                } else {
                    large
                }
            }
        }
        .min(foot);
        let lba = rng.gen_range(0..foot / size) * size;
        w.write(lba, size)?;
        sectors += size;
        if (i + 1) % p.fi == 0 || i + 1 == p.requests {
            w.flush()?;
            flushes += 1;
        }
    }
    let c = probe.counters().since(&c0);
    Ok(Measured {
        sim_ns: probe.now_ns() - t0,
        sectors,
        flushes,
        programs: c.programs,
        reads: c.reads,
        erases: c.erases,
        s0,
        s1: w.dev.stats(),
        t0: timing0,
        t1: probe.timing(),
        dies: probe.busy_ns_per_die().len() as u64,
    })
}

/// OPTR's measures over a span of its counters.
fn fill_optr(pt: &mut OptrPoint, d: &OptrStats, spp: f64) {
    let data = d.data_sectors_programmed as f64 / spp;
    let pct = |pages: f64| (data > 0.0).then(|| 100.0 * pages / data);
    let records = (d.record_sectors_programmed + d.trim_sectors_programmed) as f64 / spp;
    // Full and incremental checkpoints together.
    let ckpt = (d.checkpoint_pages_programmed + d.incremental_pages_programmed) as f64;
    let summary = d.summary_pages_programmed as f64;
    pt.data_pages = Some(data);
    pt.extra_pct = pct(records + ckpt + summary);
    pt.records_pct = pct(records);
    pt.checkpoint_pct = pct(ckpt);
    pt.summary_pct = pct(summary);
    pt.padding_pct = pct(d.padding_sectors_programmed as f64 / spp);
    pt.coalescing_records = Some(d.coalescing_records);
    pt.internal_flushes = Some(d.internal_flushes);
    pt.gc_selections = Some(d.gc_selections);
    pt.gc_constrained_pct = (d.gc_segments_seen > 0)
        .then(|| 100.0 * d.gc_segments_constrained as f64 / d.gc_segments_seen as f64);
    pt.gc_victims_displaced = Some(d.gc_victims_displaced);
}

/// The sweep row of one point on one variant.
fn sweep_row(g: &Geometry, name: &str, p: &Point, m: &Measured) -> Row {
    let spp = f64::from(g.sectors_per_page);
    let sim_s = m.sim_ns as f64 / 1e9;
    let bytes = m.sectors as f64 * f64::from(g.sector_size);
    let mut pt = OptrPoint {
        part: "sweep".into(),
        locality_mib: Some(p.locality_mib),
        request: Some(request_name(p.request).into()),
        mb_per_s: (sim_s > 0.0).then(|| bytes / 1e6 / sim_s),
        ..OptrPoint::default()
    };
    let optr = |s: &DeviceStats| OptrStats::from_counters(&s.ftl_counters);
    if let (Some(a), Some(b)) = (&optr(&m.s0), &optr(&m.s1)) {
        fill_optr(&mut pt, &b.since(a), spp);
    }
    let relocated = m.s1.gc_sectors_relocated - m.s0.gc_sectors_relocated;
    let frac = |ns: u64| ns as f64 / m.sim_ns.max(1) as f64;
    let span = m.t0.zip(m.t1);
    let share = |f: fn(&flash::timed::TimingStats) -> u64| span.map(|(a, b)| frac(f(&b) - f(&a)));
    Row {
        die_busy_fraction: share(|t| t.die_busy_ns).map(|x| x / m.dies.max(1) as f64),
        read_wait_fraction: share(|t| t.read_wait_ns),
        sync_wait_fraction: share(|t| t.sync_wait_ns),
        stall_fraction: share(|t| t.stall_ns),
        reads_per_write: Some(m.reads as f64 / p.requests as f64),
        erases_per_write: Some(m.erases as f64 / p.requests as f64),
        bench: "optr".into(),
        ftl: name.into(),
        wi: Some(p.fi),
        iops: (sim_s > 0.0).then(|| p.requests as f64 / sim_s),
        waf: Some(m.programs as f64 * spp / (m.sectors.max(1)) as f64),
        writes: Some(p.requests),
        sim_seconds: Some(sim_s),
        flushes: Some(m.flushes),
        programs_per_write: Some(m.programs as f64 / p.requests as f64),
        gc_relocations_per_write: Some(relocated as f64 / p.requests as f64),
        full_checkpoints: Some(m.s1.full_checkpoints - m.s0.full_checkpoints),
        optr: Some(pt),
        ..Row::default()
    }
}

/// Runs the benchmark, prints the report, writes JSON / PNG if asked.
pub fn run(a: &OptrArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &OptrArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    let quick = a.common.quick;
    let silent = a.common.silent;
    let gname = if quick { "small" } else { a.geometry.as_str() };
    let g = stack::geometry(gname)?;
    let timing = stack::timing_config(&a.timing, &g)?;
    let seed = a.common.seed;
    let localities: Vec<u64> = if quick {
        vec![1, 8]
    } else {
        a.locality_mib.clone()
    };
    let fis: Vec<u64> = if quick {
        a.fi.iter().copied().filter(|&f| f <= 256).collect()
    } else {
        a.fi.clone()
    };
    // 1 GiB per point: at 1 GiB locality a 256 MiB point holds about a
    // dozen GC victims, and one victim more or less moved a point's
    // throughput by 5-8% for async and OPTR alike (docs/BENCHMARKS.md, OPTR).
    let point_mib = a.point_mib.unwrap_or(if quick { 4 } else { 1024 });
    let overwrite = if quick {
        a.overwrite_factor.min(0.5)
    } else {
        a.overwrite_factor
    };
    if localities.is_empty() || a.request.is_empty() || fis.is_empty() {
        return Err("--locality-mib, --request and --fi each need at least one value".into());
    }
    let pts = points(&localities, &a.request, &fis, point_mib << 20);
    if pts.is_empty() {
        return Err(format!(
            "no sweep point: every flush interval exceeds the requests of a {point_mib} MiB point"
        ));
    }

    let optr_f = targets::factory(ftl::FtlKind::Optr, &g)?;
    let l = optr_f.logical_sectors();
    let factories: Vec<(&str, Box<dyn Factory>)> = VARIANTS
        .iter()
        .map(|&n| variant(n, &g, l).map(|f| (n, f)))
        .collect::<BResult<_>>()?;
    let lmib = (l * u64::from(g.sector_size)) >> 20;
    if let Some(big) = localities.iter().find(|&&m| m > lmib) {
        return Err(format!(
            "a footprint of {big} MiB exceeds the {lmib} MiB the devices expose on {gname}"
        ));
    }

    let mut header =
        Header::new("optr: the OPTR paper's FTL analyses (ATC'19 §7), OPTR against async");
    header.add("geometry", format!("{gname}: {g}"));
    header.add(
        "timing",
        stack::describe_timing(&timing, a.timing.host_request_ns),
    );
    header.add(
        "flash",
        "DatalessFlash (metadata blocks whole, 8-byte tag per data sector; pages holding OPTR records or summaries kept whole) under TimedFlash",
    );
    header.add("seed", seed.to_string());
    report::add_provenance(&mut header);
    for (n, f) in &factories {
        header.add(&format!("config {n}"), f.describe());
    }
    header.add(
        "workload",
        format!(
            "per variant one device, preconditioned (1 sequential fill + {overwrite} x L random 4 KiB writes, flush every 2048, more until GC is active), then the {} sweep points in order on it: random request-aligned writes in a footprint at LBA 0, a flush every FI requests and at the end; {point_mib} MiB per point (FIs above a point's request count are skipped); localities {localities:?} MiB, requests {:?}, FIs {fis:?}",
            pts.len(),
            a.request.iter().map(|r| request_name(*r)).collect::<Vec<_>>()
        ),
    );
    header.add(
        "extra programs",
        "coalescing-record and trim sectors (in pages), checkpoint L2P + seal pages and segment summary pages, as % of the data pages OPTR wrote back (padding apart; GC relocations not counted as data)",
    );
    header.add(
        "GC constraint",
        "at each GC selection: used segments written after the latest checkpoint (not collectable) as % of data segments; displaced = such segments among the victims greedy GC would otherwise have taken",
    );
    header.add(
        "recovery",
        "after the sweep: the device dropped right after its last completed flush, then `open` on the same flash; simulated host time across it",
    );

    let mut rows: Vec<Row> = Vec::new();
    for (name, f) in &factories {
        let shared = timed_stack(f.as_ref(), &g, timing)?;
        let probe = TimedProbe(shared.clone());
        let dev = f.format(Box::new(shared.clone()))?;
        let mut w = Writer::new(dev, &probe, seed);
        w.host_request_ns = a.timing.host_request_ns;
        progress(
            silent,
            format!(
                "{name}: preconditioning {} logical sectors",
                w.num_sectors()
            ),
        );
        let note = crate::randwr::precondition(&mut w, overwrite)?;
        header.add(&format!("precondition {name}"), note);
        let s_start = w.dev.stats();
        for p in &pts {
            let m = run_point(&mut w, &probe, p, seed).map_err(|e| format!("{name} {p:?}: {e}"))?;
            let row = sweep_row(&g, name, p, &m);
            progress(
                silent,
                format!(
                    "{name} locality {} MiB, {}, FI {}: {} MB/s",
                    p.locality_mib,
                    request_name(p.request),
                    p.fi,
                    fmt_opt(row.optr.as_ref().and_then(|o| o.mb_per_s), 1)
                ),
            );
            rows.push(row);
        }
        w.verify(a.verify)
            .map_err(|e| format!("{name} after the sweep: {e}"))?;
        let s_end = w.dev.stats();
        let mut whole = OptrPoint {
            part: "total".into(),
            ..OptrPoint::default()
        };
        let optr = |s: &DeviceStats| OptrStats::from_counters(&s.ftl_counters);
        if let (Some(x), Some(y)) = (&optr(&s_start), &optr(&s_end)) {
            fill_optr(&mut whole, &y.since(x), f64::from(g.sectors_per_page));
        }
        let rec = crate::boot::crash_and_recover(&mut w, f.as_ref(), &shared, &probe)?;
        w.verify(a.verify)
            .map_err(|e| format!("{name} after recovery: {e}"))?;
        progress(
            silent,
            format!(
                "{name}: recovery {:.1} ms simulated, {} reads",
                rec.sim_ns as f64 / 1e6,
                rec.reads
            ),
        );
        rows.push(Row {
            bench: "optr".into(),
            ftl: name.to_string(),
            recovery_sim_ms: Some(rec.sim_ns as f64 / 1e6),
            recovery_wall_ms: Some(rec.wall_ns as f64 / 1e6),
            recovery_reads: Some(rec.reads),
            optr: Some(OptrPoint {
                part: "recovery".into(),
                ..OptrPoint::default()
            }),
            ..Row::default()
        });
        rows.push(Row {
            bench: "optr".into(),
            ftl: name.to_string(),
            ram_bytes_per_sector: Some(f.ram_bytes_per_sector().0),
            ram_source: Some(f.ram_bytes_per_sector().1),
            optr: Some(whole),
            ..Row::default()
        });
    }
    // Memory beyond async, item by item (the default optr).
    let of = OptrFactory::new(
        g,
        ftl::optr::OptrConfig {
            logical_sectors: l,
            ..ftl::optr::OptrConfig::default_for(&g)
        },
    )?;
    for (item, bytes, how) in of.ram_beyond_async() {
        rows.push(Row {
            bench: "optr".into(),
            ftl: "optr".into(),
            ram_bytes_per_sector: Some(bytes),
            ram_source: Some(how),
            optr: Some(OptrPoint {
                part: "memory".into(),
                item: Some(item),
                ..OptrPoint::default()
            }),
            ..Row::default()
        });
    }
    add_overheads(&mut rows);
    for r in &mut rows {
        r.geometry = gname.into();
        r.seed = seed;
    }
    let text = render(&header, &rows);
    let rep = crate::output::finish(&a.common, rows, text)?;
    if let Some(p) = &a.common.png {
        let commit = report::git_commit();
        draw(
            p,
            &rep.rows,
            &format!("optr vs async on {gname} ({commit}, seed {seed})"),
        )?;
    }
    Ok(rep)
}

/// The part a row belongs to.
fn part(r: &Row) -> &str {
    r.optr.as_ref().map_or("", |o| o.part.as_str())
}

/// The sweep key of a row.
fn key(r: &Row) -> Option<(u64, String, u64)> {
    let o = r.optr.as_ref()?;
    Some((o.locality_mib?, o.request.clone()?, r.wi?))
}

/// Fills in every non-async sweep row's overhead against async.
pub fn add_overheads(rows: &mut [Row]) {
    let base: Vec<((u64, String, u64), f64)> = rows
        .iter()
        .filter(|r| r.ftl == "async" && part(r) == "sweep")
        .filter_map(|r| Some((key(r)?, r.optr.as_ref()?.mb_per_s?)))
        .collect();
    for r in rows.iter_mut().filter(|r| r.ftl != "async") {
        let Some(k) = key(r) else { continue };
        let Some(&(_, b)) = base.iter().find(|(bk, _)| *bk == k) else {
            continue;
        };
        if let Some(o) = r.optr.as_mut() {
            o.overhead_pct = o.mb_per_s.map(|m| 100.0 * (1.0 - m / b));
        }
    }
}

fn sweep_rows<'a>(rows: &'a [Row], ftl: &str) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r.ftl == ftl && part(r) == "sweep")
        .collect()
}

fn pct(v: Option<f64>, prec: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.prec$}%"),
        _ => "-".into(),
    }
}

/// The sweep: throughput of each variant per point, OPTR's overhead, its
/// extra programs and the GC constraint (paper Fig. 12, 13).
pub fn sweep_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "locality",
        "request",
        "FI",
        "async MB/s",
        "optr MB/s",
        "optr overhead",
        "optr-small MB/s",
        "optr-small overhead",
        "optr extra prog",
        "records",
        "ckpt",
        "summary",
        "padding",
        "coalesced",
        "GC sel",
        "GC constrained",
        "displaced",
    ]);
    let find = |ftl: &str, k: &(u64, String, u64)| {
        rows.iter()
            .find(|r| r.ftl == ftl && part(r) == "sweep" && key(r).as_ref() == Some(k))
            .and_then(|r| r.optr.clone())
    };
    for r in sweep_rows(rows, "async") {
        let Some(k) = key(r) else { continue };
        let base = r.optr.clone().unwrap_or_default();
        let o = find("optr", &k).unwrap_or_default();
        let s = find("optr-small", &k).unwrap_or_default();
        t.push(vec![
            format!("{} MiB", k.0),
            k.1.clone(),
            k.2.to_string(),
            fmt_opt(base.mb_per_s, 1),
            fmt_opt(o.mb_per_s, 1),
            pct(o.overhead_pct, 1),
            fmt_opt(s.mb_per_s, 1),
            pct(s.overhead_pct, 1),
            pct(o.extra_pct, 2),
            pct(o.records_pct, 2),
            pct(o.checkpoint_pct, 2),
            pct(o.summary_pct, 2),
            pct(o.padding_pct, 1),
            crate::report::fmt_count(o.coalescing_records),
            crate::report::fmt_count(o.gc_selections),
            pct(o.gc_constrained_pct, 2),
            crate::report::fmt_count(o.gc_victims_displaced),
        ]);
    }
    t
}

/// Host bytes and simulated seconds of `rows` (sweep rows), summed.
fn aggregate(rows: &[&Row]) -> (f64, f64) {
    rows.iter().fold((0.0, 0.0), |(b, t), r| {
        let secs = r.sim_seconds.unwrap_or(0.0);
        let mbps = r.optr.as_ref().and_then(|o| o.mb_per_s).unwrap_or(0.0);
        (b + mbps * 1e6 * secs, t + secs)
    })
}

/// MB/s of the summed bytes over the summed time.
fn aggregate_mbps(rows: &[&Row]) -> Option<f64> {
    let (b, t) = aggregate(rows);
    (t > 0.0).then(|| b / 1e6 / t)
}

/// Per OPTR variant: throughput over the whole sweep against async (the
/// summed bytes over the summed simulated time, which amortises GC
/// batches that fall into one point or another), the per-point overheads
/// (median, worst, best, points slower than async), extra programs and the
/// GC constraint over the whole sweep, beside the paper's numbers.
pub fn summary_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "variant",
        "points",
        "sweep MB/s",
        "async MB/s",
        "sweep overhead",
        "median point",
        "worst point",
        "worst at",
        "best point",
        "points slower",
        "paper mean / worst",
        "extra prog",
        "padding",
        "GC selections",
        "GC constrained",
        "paper constrained",
        "displaced victims",
    ]);
    let base = aggregate_mbps(&sweep_rows(rows, "async"));
    for v in ["optr", "optr-small"] {
        let pts = sweep_rows(rows, v);
        let mut ov: Vec<(f64, &Row)> = pts
            .iter()
            .filter_map(|r| Some((r.optr.as_ref()?.overhead_pct?, *r)))
            .collect();
        if ov.is_empty() {
            continue;
        }
        ov.sort_by(|a, b| a.0.total_cmp(&b.0));
        let median = if ov.len() % 2 == 1 {
            ov[ov.len() / 2].0
        } else {
            (ov[ov.len() / 2 - 1].0 + ov[ov.len() / 2].0) / 2.0
        };
        let (best, worst) = (ov[0], ov[ov.len() - 1]);
        let slower = ov.iter().filter(|x| x.0 > 0.0).count();
        let mine = aggregate_mbps(&pts);
        let total = rows
            .iter()
            .find(|r| r.ftl == v && part(r) == "total")
            .and_then(|r| r.optr.clone())
            .unwrap_or_default();
        let at = key(worst.1)
            .map(|k| format!("{} MiB {} FI {}", k.0, k.1, k.2))
            .unwrap_or_default();
        t.push(vec![
            v.to_string(),
            ov.len().to_string(),
            fmt_opt(mine, 1),
            fmt_opt(base, 1),
            pct(mine.zip(base).map(|(m, b)| 100.0 * (1.0 - m / b)), 1),
            pct(Some(median), 1),
            pct(Some(worst.0), 1),
            at,
            pct(Some(best.0), 1),
            format!("{slower} of {}", ov.len()),
            format!("<{PAPER_OVERHEAD_AVG_PCT:.0}% / {PAPER_OVERHEAD_WORST_PCT}%"),
            pct(total.extra_pct, 3),
            pct(total.padding_pct, 2),
            crate::report::fmt_count(total.gc_selections),
            pct(total.gc_constrained_pct, 2),
            format!("{PAPER_CONSTRAINED_PCT}%"),
            crate::report::fmt_count(total.gc_victims_displaced),
        ]);
    }
    t
}

/// An overhead (1 - variant / async throughput, in %) in words: `12.3%
/// slower` (that much less throughput than async) or `20.8% faster` (that
/// much more).
fn in_words(overhead: f64) -> String {
    if overhead > 0.0 {
        format!("{overhead:.1}% slower")
    } else {
        format!("{:.1}% faster", -overhead)
    }
}

/// The range of `overheads` in words: `13.9% to 39.5% slower`, `41.3% to
/// 143.4% faster`, or, when they straddle async, `from 5.0% faster to
/// 3.1% slower`.
fn span_in_words(overheads: &[f64]) -> String {
    let lo = overheads.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = overheads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo > 0.0 {
        format!("{lo:.1}% to {hi:.1}% slower")
    } else if hi <= 0.0 {
        format!("{:.1}% to {:.1}% faster", -hi, -lo)
    } else {
        format!("from {} to {}", in_words(lo), in_words(hi))
    }
}

/// A `pct` cell back to its number.
fn cell_pct(cell: &str) -> Option<f64> {
    cell.trim().strip_suffix('%')?.parse().ok()
}

/// The sentences of docs/BENCHMARKS.md ("OPTR") that quote this report:
/// every figure in them comes from `rows` (through the summary and group
/// tables), so the document test can check that the prose still says what
/// the committed JSON says.
pub fn quoted_sentences(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    let summary = summary_table(rows);
    let col = |name: &str| summary.head.iter().position(|h| h == name);
    let (Some(sw), Some(med), Some(worst), Some(at)) = (
        col("sweep overhead"),
        col("median point"),
        col("worst point"),
        col("worst at"),
    ) else {
        return out;
    };
    let of = |v: &str| summary.rows.iter().find(|r| r[0] == v);
    if let (Some(o), Some(s)) = (of("optr"), of("optr-small")) {
        if let (Some(a), Some(b)) = (cell_pct(&o[sw]), cell_pct(&s[sw])) {
            out.push(format!(
                "Summed over the sweep, `optr` is {} than async and `optr-small` {}.",
                in_words(a),
                in_words(b)
            ));
        }
        let points = |r: &[String]| Some((cell_pct(&r[med])?, cell_pct(&r[worst])?));
        if let (Some((m, w)), Some((m2, w2))) = (points(o), points(s)) {
            out.push(format!(
                "Per point, `optr`'s median is {}, its worst {} ({}); `optr-small`'s median {}, its worst {} ({}).",
                in_words(m),
                in_words(w),
                o[at],
                in_words(m2),
                in_words(w2),
                s[at]
            ));
        }
    }
    let groups = group_table(rows);
    let gcol = |name: &str| groups.head.iter().position(|h| h == name);
    let (Some(oc), Some(sc)) = (gcol("optr overhead"), gcol("optr-small overhead")) else {
        return out;
    };
    let mut localities: Vec<String> = Vec::new();
    for r in &groups.rows {
        if !localities.contains(&r[0]) {
            localities.push(r[0].clone());
        }
    }
    for loc in localities {
        let vals = |c: usize| -> Vec<f64> {
            groups
                .rows
                .iter()
                .filter(|r| r[0] == loc)
                .filter_map(|r| cell_pct(&r[c]))
                .collect()
        };
        let (o, s) = (vals(oc), vals(sc));
        if o.is_empty() || s.is_empty() {
            continue;
        }
        out.push(format!(
            "{loc} footprint, summed per request size: `optr` {}, `optr-small` {}.",
            span_in_words(&o),
            span_in_words(&s)
        ));
    }
    out
}

/// Per (locality, request): throughput summed over the flush intervals
/// (bytes over simulated time) of each variant, and the overheads.
pub fn group_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "locality",
        "request",
        "FIs",
        "async MB/s",
        "optr MB/s",
        "optr overhead",
        "optr-small MB/s",
        "optr-small overhead",
    ]);
    let mut groups: Vec<(u64, String)> = Vec::new();
    for r in sweep_rows(rows, "async") {
        if let Some(k) = key(r) {
            if !groups.contains(&(k.0, k.1.clone())) {
                groups.push((k.0, k.1));
            }
        }
    }
    for (loc, req) in groups {
        let of = |v: &str| -> Vec<&Row> {
            sweep_rows(rows, v)
                .into_iter()
                .filter(|r| key(r).is_some_and(|k| k.0 == loc && k.1 == req))
                .collect()
        };
        let base = aggregate_mbps(&of("async"));
        let o = aggregate_mbps(&of("optr"));
        let sm = aggregate_mbps(&of("optr-small"));
        let over = |m: Option<f64>| pct(m.zip(base).map(|(m, b)| 100.0 * (1.0 - m / b)), 1);
        t.push(vec![
            format!("{loc} MiB"),
            req.clone(),
            of("async").len().to_string(),
            fmt_opt(base, 1),
            fmt_opt(o, 1),
            over(o),
            fmt_opt(sm, 1),
            over(sm),
        ]);
    }
    t
}

/// Where the time goes at the largest footprint, per variant and point:
/// how busy the dies were on average, what the host waited for (reads,
/// syncs, device-queue slots), and the flash commands per host request.
pub fn time_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "ftl",
        "request",
        "FI",
        "MB/s",
        "die busy",
        "host waits: reads",
        "syncs",
        "queue slots",
        "reads / req",
        "programs / req",
        "erases / req",
        "internal flushes",
    ]);
    let largest = rows.iter().filter_map(|r| key(r).map(|k| k.0)).max();
    for v in VARIANTS {
        for r in sweep_rows(rows, v) {
            let Some(k) = key(r) else { continue };
            if Some(k.0) != largest {
                continue;
            }
            let o = r.optr.as_ref();
            t.push(vec![
                r.ftl.clone(),
                k.1.clone(),
                k.2.to_string(),
                fmt_opt(o.and_then(|o| o.mb_per_s), 1),
                pct(r.die_busy_fraction.map(|x| 100.0 * x), 1),
                pct(r.read_wait_fraction.map(|x| 100.0 * x), 1),
                pct(r.sync_wait_fraction.map(|x| 100.0 * x), 1),
                pct(r.stall_fraction.map(|x| 100.0 * x), 1),
                fmt_opt(r.reads_per_write, 1),
                fmt_opt(r.programs_per_write, 1),
                fmt_opt(r.erases_per_write, 3),
                crate::report::fmt_count(o.and_then(|o| o.internal_flushes)),
            ]);
        }
    }
    t
}

/// Recovery after the sweep, per variant (paper §7.5).
pub fn recovery_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&["ftl", "recovery sim ms", "recovery wall ms", "flash reads"]);
    for r in rows.iter().filter(|r| part(r) == "recovery") {
        t.push(vec![
            r.ftl.clone(),
            fmt_opt(r.recovery_sim_ms, 1),
            fmt_opt(r.recovery_wall_ms, 1),
            crate::report::fmt_count(r.recovery_reads),
        ]);
    }
    t
}

/// RAM per logical sector: each variant's tables, then what OPTR keeps
/// beyond async item by item (paper §7.4).
pub fn memory_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&["ftl", "item", "B / logical sector", "how counted"]);
    for r in rows.iter().filter(|r| part(r) == "total") {
        t.push(vec![
            r.ftl.clone(),
            "all per-sector tables".into(),
            fmt_opt(r.ram_bytes_per_sector, 3),
            r.ram_source.clone().unwrap_or_default(),
        ]);
    }
    for r in rows.iter().filter(|r| part(r) == "memory") {
        t.push(vec![
            format!("{} beyond async", r.ftl),
            r.optr
                .as_ref()
                .and_then(|o| o.item.clone())
                .unwrap_or_default(),
            fmt_opt(r.ram_bytes_per_sector, 4),
            r.ram_source.clone().unwrap_or_default(),
        ]);
    }
    t
}

/// Every table of the report, in order (the document test finds each of
/// their rows in docs/BENCHMARKS.md).
pub fn tables(rows: &[Row]) -> Vec<Table> {
    vec![
        summary_table(rows),
        group_table(rows),
        time_table(rows),
        sweep_table(rows),
        recovery_table(rows),
        memory_table(rows),
    ]
}

/// The text report: header, then the tables with a line on each.
pub fn render(header: &Header, rows: &[Row]) -> String {
    let mut s = header.render_with(&summary_table(rows));
    s.push_str("\nPer locality and request size, summed over the flush intervals:\n\n");
    s.push_str(&group_table(rows).render());
    s.push_str("\nWhere the time goes at the largest footprint (shares of simulated time; per host request: flash reads, programs, erases):\n\n");
    s.push_str(&time_table(rows).render());
    s.push_str("\nThe sweep (overhead: 1 - variant / async throughput; extra programs and GC constraint of optr):\n\n");
    s.push_str(&sweep_table(rows).render());
    s.push_str("\nRecovery after the sweep (crash right after the last flush):\n\n");
    s.push_str(&recovery_table(rows).render());
    s.push_str("\nRAM per logical sector:\n\n");
    s.push_str(&memory_table(rows).render());
    s
}

/// One panel per (locality, request): throughput per FI, one line per
/// variant (paper Fig. 13).
pub fn draw(path: &std::path::Path, rows: &[Row], title: &str) -> BResult<()> {
    let mut groups: Vec<(u64, String)> = Vec::new();
    let mut fis: Vec<u64> = Vec::new();
    for r in sweep_rows(rows, "async") {
        if let Some(k) = key(r) {
            if !groups.contains(&(k.0, k.1.clone())) {
                groups.push((k.0, k.1.clone()));
            }
            if !fis.contains(&k.2) {
                fis.push(k.2);
            }
        }
    }
    fis.sort_unstable();
    let panels: Vec<Panel> = groups
        .iter()
        .map(|(loc, req)| Panel {
            title: format!("locality {loc} MiB, request {req}"),
            x_label: "flush interval (requests)".into(),
            y_label: "MB/s (log)".into(),
            log_y: true,
            x_categories: fis.iter().map(|f| f.to_string()).collect(),
            series: VARIANTS
                .iter()
                .map(|&v| Series {
                    label: v.into(),
                    color: chart::ftl_color(v),
                    points: sweep_rows(rows, v)
                        .iter()
                        .filter_map(|r| {
                            let k = key(r)?;
                            if k.0 != *loc || &k.1 != req {
                                return None;
                            }
                            let i = fis.iter().position(|&f| f == k.2)?;
                            Some((i as f64, r.optr.as_ref()?.mb_per_s?))
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    chart::draw(path, title, &panels, 3)
}
