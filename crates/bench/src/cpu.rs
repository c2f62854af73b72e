//! `cpu`: CPU time per 4 KiB write and RAM per logical sector, with no
//! timing model (the flash is `MemFlash`, or `DatalessFlash` with
//! `--flash dataless`), in steady state with GC active.
//!
//! The time measured is wall-clock time of one thread doing random 4 KiB
//! writes with a flush every WI writes: the FTL's work plus the flash model's
//! (copying pages into RAM). The best of `--repeat` runs is reported, since
//! interference from other processes only ever adds time.

use flash::{Flash, SharedFlash};

use crate::args::{CpuArgs, FlashArg};
use crate::chart::{self, Panel, Series};
use crate::probe::{PlainProbe, Probe};
use crate::randwr::precondition;
use crate::report::{self, fmt_int, fmt_opt, Header, Report, Row, Table};
use crate::stack::{self, progress};
use crate::targets::{self, Factory};
use crate::workload::{BResult, Writer};

fn run_one<F: Flash + 'static>(
    a: &CpuArgs,
    f: &dyn Factory,
    shared: SharedFlash<F>,
    writes: u64,
) -> BResult<(Row, String)> {
    let probe = PlainProbe(shared.clone());
    let dev = f.format(Box::new(shared))?;
    let mut w = Writer::new(dev, &probe, a.common.seed);
    let note = precondition(
        &mut w,
        if a.common.quick {
            0.5
        } else {
            a.overwrite_factor
        },
    )?;
    let wi = a.wi.max(1);
    let n = writes.div_ceil(wi) * wi;
    let mut best: Option<Row> = None;
    for _ in 0..a.repeat.max(1) {
        let c0 = probe.counters();
        let s0 = w.dev.stats();
        let rec = w.measured_random_writes(n, wi)?;
        let c = probe.counters().since(&c0);
        let s1 = w.dev.stats();
        let ns = rec.wall_ns as f64 / n as f64;
        let g = *probe.0.geometry();
        let row = Row {
            bench: "cpu".into(),
            ftl: f.kind().name().into(),
            wi: Some(wi),
            iops: Some(1e9 / ns),
            waf: Some(
                c.programs as f64 * f64::from(g.sectors_per_page)
                    / (s1.user_sectors_written - s0.user_sectors_written).max(1) as f64,
            ),
            cpu_ns_per_write: Some(ns),
            writes: Some(n),
            gc_relocations_per_write: Some(
                (s1.gc_sectors_relocated - s0.gc_sectors_relocated) as f64 / n as f64,
            ),
            erases_per_write: Some(c.erases as f64 / n as f64),
            ..Row::default()
        };
        if best
            .as_ref()
            .map_or(true, |b| b.cpu_ns_per_write > row.cpu_ns_per_write)
        {
            best = Some(row);
        }
    }
    w.verify(4096)?;
    let mut row = best.ok_or("no run")?;
    let (ram, src) = f.ram_bytes_per_sector();
    row.ram_bytes_per_sector = Some(ram);
    row.ram_source = Some(src);
    Ok((row, note))
}

/// Runs the benchmark, prints the report, writes JSON / PNG if asked.
pub fn run(a: &CpuArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &CpuArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    let quick = a.common.quick;
    let gname = if quick { "small" } else { a.geometry.as_str() };
    let g = stack::geometry(gname)?;
    let commit = report::git_commit();
    let seed = a.common.seed;
    let writes = a.writes.unwrap_or(if quick { 8192 } else { 2 << 20 });
    let mut header = Header::new("cpu: CPU time per 4 KiB write (one thread, wall clock, no timing model) and FTL RAM per logical sector");
    header.add("geometry", format!("{gname}: {g}"));
    header.add(
        "flash",
        match a.flash {
            FlashArg::Mem => "MemFlash (all data kept in RAM)",
            FlashArg::Dataless => "DatalessFlash (tags only)",
        },
    );
    header.add("seed", seed.to_string());
    report::add_provenance(&mut header);
    header.add(
        "build",
        if cfg!(debug_assertions) {
            "debug assertions ON (numbers are pessimistic; use --profile bench-fast)"
        } else {
            "debug assertions off"
        },
    );
    header.add(
        "workload",
        format!("precondition (1 sequential fill + random overwrites until GC active), then {writes} random writes with a flush every {} writes, best of {}", a.wi, a.repeat.max(1)),
    );
    let mut rows = Vec::new();
    for fa in &a.ftl {
        let f = targets::factory(fa.kind(), &g)?;
        header.add(&format!("config {}", fa.kind().name()), f.describe());
        progress(a.common.silent, format!("cpu: {} on {gname}", fa.kind()));
        let (mut row, note) = match a.flash {
            FlashArg::Mem => run_one(a, f.as_ref(), stack::mem(&g)?, writes)?,
            FlashArg::Dataless => run_one(a, f.as_ref(), stack::dataless(f.as_ref(), &g)?, writes)?,
        };
        header.add(&format!("precondition {}", fa.kind().name()), note);
        row.geometry = gname.into();
        row.seed = seed;
        row.commit = commit.clone();
        rows.push(row);
    }
    let text = render(&header, &rows);
    let rep = crate::output::finish(&a.common, rows, text)?;
    let rows = &rep.rows;
    if let Some(p) = &a.common.png {
        draw(p, rows, &format!("cpu on {gname} ({commit}, seed {seed})"))?;
    }
    Ok(rep)
}

/// The table: each FTL's ns/write, also relative to async's, and RAM.
pub fn table(rows: &[Row]) -> Table {
    let base = rows
        .iter()
        .find(|r| r.ftl == "async")
        .and_then(|r| r.cpu_ns_per_write);
    let mut t = Table::new(&[
        "ftl",
        "WI",
        "CPU ns/write",
        "writes/s (one core)",
        "vs async",
        "WAF (sectors)",
        "GC reloc/w",
        "RAM B/logical sector",
    ]);
    for r in rows {
        t.push(vec![
            r.ftl.clone(),
            crate::report::fmt_count(r.wi),
            fmt_opt(r.cpu_ns_per_write, 0),
            fmt_int(r.iops.unwrap_or(0.0)),
            fmt_opt(r.cpu_ns_per_write.zip(base).map(|(a, b)| a / b), 2) + "x",
            fmt_opt(r.waf, 3),
            fmt_opt(r.gc_relocations_per_write, 3),
            fmt_opt(r.ram_bytes_per_sector, 2),
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
    let mut s = header.render_with(&table(rows));
    for r in rows {
        if let Some(src) = &r.ram_source {
            s.push_str(&format!("RAM {}: {src}\n", r.ftl));
        }
    }
    s
}

/// One panel: ns per write per FTL.
pub fn draw(path: &std::path::Path, rows: &[Row], title: &str) -> BResult<()> {
    let panel = Panel {
        title: "CPU time per 4 KiB write".into(),
        x_label: "FTL".into(),
        y_label: "ns per write".into(),
        log_y: false,
        x_categories: rows.iter().map(|r| r.ftl.clone()).collect(),
        series: rows
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                label: r.ftl.clone(),
                color: chart::ftl_color(&r.ftl),
                points: vec![(i as f64, r.cpu_ns_per_write.unwrap_or(0.0))],
            })
            .collect(),
    };
    chart::draw(path, title, &[panel], 1)
}
