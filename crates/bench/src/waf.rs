//! `waf`: an external sanity anchor for the async baseline — its write
//! amplification under uniform random writes against the analytical curve
//! of greedy garbage collection.
//!
//! The model (Hu et al., "Write amplification analysis in flash-based solid
//! state drives", SYSTOR'09; Desnoyers, "Analytic modeling of SSD write
//! performance", SYSTOR'12): under uniform random single-sector writes, a
//! log of T physical sectors holding L logical ones reclaims blocks whose
//! surviving fraction x solves `x = exp(-(T/L)·(1 - x))`, and every user
//! write then costs `1 / (1 - x)` programmed sectors. That is exact for
//! FIFO (LRW) cleaning; greedy cleaning converges to it as blocks grow,
//! because under uniform writes the emptiest block is also the oldest.
//! Segments here hold 1,024 sectors (one 256-page erase block), so greedy
//! and the model should agree closely; `--within` (5%) is the verdict.
//!
//! What is compared: the FTL's own GC write amplification, (user sectors +
//! sectors GC relocated) / user sectors over a measured phase in steady
//! state, with the model's T taken as the physical sectors of the segments
//! the log occupies (used and active, sampled at every flush; the active
//! one counts half). Free and waiting segments are outside the log, as in
//! the model. Padding and trim records are not amplification of this kind
//! (there are no trims, and a flush every 2,048 writes pads one page).
//! The flash is `DatalessFlash` without a timing model: WAF does not
//! depend on time.

use flash::Geometry;
use ftl::logstruct::LogConfig;
use ftl::FtlKind;

use crate::args::WafArgs;
use crate::probe::PlainProbe;
use crate::report::{self, fmt_opt, Header, Report, Row, Table};
use crate::stack::{self, progress};
use crate::targets::{Factory, LogFactory};
use crate::workload::{BResult, Writer};

/// Writes between flushes (the randwr benchmark's largest WI).
const FLUSH_EVERY: u64 = 2048;

/// The surviving fraction x of the analytical model for a log of `alpha`
/// times the logical size: the root of `x = exp(-alpha (1 - x))` in (0, 1)
/// (x = 1 is always a root; for alpha > 1 there is exactly one other).
pub fn victim_valid_fraction(alpha: f64) -> f64 {
    if alpha <= 1.0 {
        return 1.0;
    }
    let f = |x: f64| x - (-alpha * (1.0 - x)).exp();
    // f(0) < 0 and f < 0 ... > 0 just below 1 (slope alpha - 1 > 0 there).
    let (mut lo, mut hi) = (0.0f64, 1.0 - 1e-12);
    while f(hi) <= 0.0 && hi > 0.5 {
        hi = 1.0 - (1.0 - hi) * 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The model's write amplification for a log of `alpha` times the logical
/// size.
pub fn model_waf(alpha: f64) -> f64 {
    1.0 / (1.0 - victim_valid_fraction(alpha))
}

/// The geometry of the anchor: one die, 256 erase blocks of 256 pages of
/// 4 x 4 KiB sectors (1 GiB raw); segments of one block, 1,024 sectors.
/// `--quick`: 128 blocks of 64 pages.
pub fn anchor_geometry(quick: bool) -> BResult<Geometry> {
    let (blocks, pages) = if quick { (128, 64) } else { (256, 256) };
    Geometry::new(1, 1, blocks, pages, 4, 4096, 128).map_err(|e| e.to_string())
}

/// Measures one over-provisioning level: `logical_fraction` of the largest
/// logical size the async FTL accepts.
fn measure(g: &Geometry, logical_fraction: f64, a: &WafArgs) -> BResult<Row> {
    let mut config = LogConfig::default_for(g).with_streams(a.streams);
    let max = config.max_logical_sectors(g).map_err(|e| e.to_string())?;
    config.logical_sectors = ((max as f64 * logical_fraction) as u64).max(1);
    config.validate(g).map_err(|e| e.to_string())?;
    let f = LogFactory {
        kind: FtlKind::Async,
        g: *g,
        config,
    };
    let shared = stack::dataless(&f, g)?;
    let probe = PlainProbe(shared.clone());
    let dev = f.format(Box::new(shared))?;
    let mut w = Writer::new(dev, &probe, a.common.seed);
    let l = w.num_sectors();
    let s_seg = u64::from(g.pages_per_block * g.sectors_per_page);
    w.sequential_fill(64, FLUSH_EVERY)?;
    let warm = (l as f64 * a.warmup) as u64;
    w.random_writes(warm.div_ceil(FLUSH_EVERY) * FLUSH_EVERY, FLUSH_EVERY)?;
    let n = ((l as f64 * a.measure) as u64).div_ceil(FLUSH_EVERY) * FLUSH_EVERY;
    let s0 = w.dev.stats();
    let mut used_sum = 0.0;
    let mut samples = 0u64;
    let mut done = 0;
    while done < n {
        w.random_writes(FLUSH_EVERY, FLUSH_EVERY)?;
        used_sum += w.dev.stats().used_blocks as f64 - 0.5;
        samples += 1;
        done += FLUSH_EVERY;
    }
    let s1 = w.dev.stats();
    w.verify(4096)?;
    let user = (s1.user_sectors_written - s0.user_sectors_written) as f64;
    let reloc = (s1.gc_sectors_relocated - s0.gc_sectors_relocated) as f64;
    let waf = (user + reloc) / user;
    let log_sectors = used_sum / samples.max(1) as f64 * s_seg as f64;
    let alpha = log_sectors / l as f64;
    let model = model_waf(alpha);
    let raw = g.total_sectors() as f64;
    Ok(Row {
        bench: "waf".into(),
        ftl: "async".into(),
        wi: Some(FLUSH_EVERY),
        waf: Some(waf),
        writes: Some(n),
        gc_relocations_per_write: Some(reloc / user),
        logical_sectors: Some(l),
        over_provisioning: Some(raw / l as f64 - 1.0),
        log_over_logical: Some(alpha),
        model_waf: Some(model),
        model_error: Some(waf / model - 1.0),
        ..Row::default()
    })
}

/// Runs the benchmark, prints the report, writes JSON if asked.
pub fn run(a: &WafArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &WafArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    let g = anchor_geometry(a.common.quick)?;
    let mut header = Header::new(
        "waf: the async FTL's greedy GC under uniform random writes vs the analytical curve",
    );
    header.add("geometry", g.to_string());
    header.add(
        "ftl",
        if a.streams == 1 {
            "async, segments of one erase block, paced greedy GC (a victim picked at 4 free segments)"
                .to_string()
        } else {
            format!("async, segments of one erase block, paced greedy GC, {} write streams (GC relocations in their own segment; watermarks two segments higher)", a.streams)
        },
    );
    header.add(
        "workload",
        format!("1 sequential fill, {} x L random 4 KiB writes to reach steady state, then {} x L measured; a flush every {FLUSH_EVERY}", a.warmup, a.measure),
    );
    header.add(
        "model",
        "x = exp(-a (1 - x)), WAF = 1 / (1 - x), a = log sectors / L (Hu et al. 2009, Desnoyers 2012)",
    );
    header.add("seed", a.common.seed.to_string());
    report::add_provenance(&mut header);
    let mut rows = Vec::new();
    for &frac in &a.logical_fraction {
        progress(
            a.common.silent,
            format!("waf: logical size {frac} of the maximum"),
        );
        let mut row = measure(&g, frac, a)?;
        row.geometry = if a.common.quick {
            "waf-quick".into()
        } else {
            "waf".into()
        };
        row.seed = a.common.seed;
        rows.push(row);
    }
    let mut text = render(&header, &rows);
    let worst = rows
        .iter()
        .filter_map(|r| r.model_error)
        .fold(0.0f64, |m, e| m.max(e.abs()));
    text.push_str(&format!(
        "\nlargest deviation from the model: {:.1}% (goal: within {:.0}%)\n",
        worst * 100.0,
        a.within * 100.0
    ));
    let rep = crate::output::finish(&a.common, rows, text)?;
    if worst > a.within {
        return Err(format!(
            "the async FTL's WAF deviates from the greedy-GC model by {:.1}% (more than {:.0}%)",
            worst * 100.0,
            a.within * 100.0
        ));
    }
    Ok(rep)
}

/// The table: one row per over-provisioning level.
pub fn table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "logical sectors",
        "raw / logical - 1",
        "log / logical (a)",
        "GC reloc/w",
        "WAF measured",
        "WAF model",
        "deviation",
    ]);
    for r in rows {
        t.push(vec![
            crate::report::fmt_count(r.logical_sectors),
            fmt_opt(r.over_provisioning.map(|x| x * 100.0), 1) + "%",
            fmt_opt(r.log_over_logical, 3),
            fmt_opt(r.gc_relocations_per_write, 3),
            fmt_opt(r.waf, 3),
            fmt_opt(r.model_waf, 3),
            fmt_opt(r.model_error.map(|x| x * 100.0), 1) + "%",
        ]);
    }
    t
}

/// Every table of the report.
pub fn tables(rows: &[Row]) -> Vec<Table> {
    vec![table(rows)]
}

/// The text report: the header and the table.
pub fn render(header: &Header, rows: &[Row]) -> String {
    header.render_with(&table(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_matches_known_points() {
        // a = 2: x = exp(-2(1-x)) has x ~ 0.2032 (WAF ~ 1.255).
        assert!((victim_valid_fraction(2.0) - 0.2032).abs() < 1e-3);
        // a = 1/0.9: x ~ 0.8069; WAF ~ 5.179.
        let w = model_waf(1.0 / 0.9);
        assert!((w - 5.179).abs() < 0.01, "{w}");
        assert_eq!(victim_valid_fraction(1.0), 1.0);
    }
}
