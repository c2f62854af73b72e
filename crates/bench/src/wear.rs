//! `wear`: how evenly each FTL wears its flash under skewed writes, with
//! and without wear leveling (`ftl::wear`).
//!
//! Each run formats a tags-only RAM device (`DatalessFlash`, no timing:
//! wear does not depend on time), fills the logical space once in order,
//! then writes single 4 KiB sectors drawn from the workload until the host
//! has written `--device-writes` times the logical size, with a flush every
//! `--flush-every` writes. Workloads: `80/20` (80% of writes to the first
//! 20% of the sectors, uniform within each part) and `zipf` (Zipf with
//! exponent `--zipf-s` over the sectors, ranks scattered by a fixed
//! permutation). Reported per FTL, workload and leveling setting: the
//! write amplification (flash pages programmed, metadata and padding
//! included, per host page written, after the fill), the erase counts of
//! every erase block of the device from the flash's own wear records
//! (min / avg / max and max/avg; and max/avg over the data blocks only,
//! without the FTL's fixed metadata blocks), blocks bad at the end, the
//! sectors static leveling moved, and the projected lifetime: full-device
//! writes until the most-worn block reaches `--endurance` erases at the
//! measured rate. SCFTL, async and sync run twice per workload and
//! leveling setting: with one write stream and with two (hot/cold
//! separation: `ScftlConfig::gc_streams`, `LogConfig::streams`), at the
//! same logical size (and, for SCFTL, write bound; K and U fitted for
//! each), so the `streams` column isolates what the second stream does.

use flash::{BlockId, Flash, Geometry};
use ftl::FtlKind;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::args::WearArgs;
use crate::chart::{self, Panel, Series};
use crate::probe::PlainProbe;
use crate::report::{self, fmt_opt, Header, Report, Row, Table};
use crate::stack::{self, progress};
use crate::targets;
use crate::workload::{BResult, Writer};

/// The workloads, by name.
pub const WORKLOADS: [&str; 2] = ["80/20", "zipf"];

/// The bench geometry: 4 dies x 128 blocks x 32 pages of 4 x 4 KiB (256
/// MiB raw); `--quick`: 2 dies x 32 blocks x 16 pages.
pub fn wear_geometry(quick: bool) -> BResult<Geometry> {
    let (dies, blocks, pages) = if quick { (2, 32, 16) } else { (4, 128, 32) };
    Geometry::new(1, dies, blocks, pages, 4, 4096, 128).map_err(|e| e.to_string())
}

/// Draws logical sectors for a workload.
struct Picker {
    rng: Pcg64,
    n: u64,
    /// Zipf: cumulative weights of ranks 1..=n.
    cdf: Vec<f64>,
    hot_cold: bool,
}

impl Picker {
    fn new(workload: &str, n: u64, zipf_s: f64, seed: u64) -> BResult<Picker> {
        let rng = Pcg64::seed_from_u64(seed ^ 0x7765_6172);
        match workload {
            "80/20" => Ok(Picker {
                rng,
                n,
                cdf: Vec::new(),
                hot_cold: true,
            }),
            "zipf" => {
                let mut acc = 0.0;
                let cdf = (1..=n)
                    .map(|k| {
                        acc += 1.0 / (k as f64).powf(zipf_s);
                        acc
                    })
                    .collect();
                Ok(Picker {
                    rng,
                    n,
                    cdf,
                    hot_cold: false,
                })
            }
            w => Err(format!("unknown workload `{w}` (known: 80/20, zipf)")),
        }
    }

    fn next(&mut self) -> u64 {
        let n = self.n;
        if self.hot_cold {
            let hot = (n / 5).max(1);
            return if self.rng.gen_bool(0.8) || hot == n {
                self.rng.gen_range(0..hot)
            } else {
                self.rng.gen_range(hot..n)
            };
        }
        let total = *self.cdf.last().expect("n > 0");
        let u = self.rng.gen_range(0.0..total);
        let rank = self.cdf.partition_point(|&c| c <= u) as u64;
        // Scatter ranks over the sectors: an odd multiplier is a bijection
        // modulo a power of two, and close to one otherwise (collisions
        // only shift weight between neighbours).
        (rank.min(n - 1) * 2_654_435_761) % n
    }
}

/// A leveling setting of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leveling {
    /// FIFO, no data moved, metadata in place.
    Off,
    /// `WearPolicy::DYNAMIC`, what `scftl mount` sets: SCFTL's dynamic
    /// choice and metadata rotation, no static moves (the baselines' "on"
    /// is this already, so they have no row of it).
    Dynamic,
    /// `ftl::wear::default_for`, what `scftl serve` sets.
    On,
}

impl Leveling {
    fn name(self) -> &'static str {
        match self {
            Leveling::Off => "off",
            Leveling::Dynamic => "dynamic",
            Leveling::On => "on",
        }
    }

    fn policy(self, kind: FtlKind) -> Option<ftl::WearPolicy> {
        match self {
            Leveling::Off => None,
            Leveling::Dynamic => Some(ftl::WearPolicy::DYNAMIC),
            Leveling::On => Some(ftl::wear::default_for(kind)),
        }
    }

    /// The settings measured for `kind`.
    fn for_kind(kind: FtlKind) -> &'static [Leveling] {
        match kind {
            FtlKind::Scftl => &[Leveling::Off, Leveling::Dynamic, Leveling::On],
            _ => &[Leveling::Off, Leveling::On],
        }
    }
}

/// A row's leveling setting, as the table prints it (rows of reports
/// written before the dynamic setting carry the bool only).
fn leveling_name(r: &Row) -> String {
    match (&r.wear_policy, r.wear_leveling) {
        (Some(p), _) => p.clone(),
        (None, Some(true)) => "on".into(),
        (None, Some(false)) => "off".into(),
        (None, None) => String::new(),
    }
}

/// One run: `kind` under `workload` with a leveling setting.
fn measure(
    g: &Geometry,
    f: &dyn targets::Factory,
    streams: Option<u32>,
    workload: &str,
    leveling: Leveling,
    a: &WearArgs,
) -> BResult<Row> {
    let kind = f.kind();
    let shared = stack::dataless(f, g)?;
    let probe = PlainProbe(shared.clone());
    let mut dev = f.format(Box::new(shared.clone()))?;
    if let Some(p) = leveling.policy(kind) {
        dev.set_wear_policy(p).map_err(|e| format!("{kind}: {e}"))?;
    }
    let mut w = Writer::new(dev, &probe, a.common.seed);
    let l = w.num_sectors();
    w.sequential_fill(64, a.flush_every)?;
    let c0 = shared.counters();
    let s0 = w.dev.stats();
    let total = (a.device_writes * l as f64) as u64;
    let mut pick = Picker::new(workload, l, a.zipf_s, a.common.seed)?;
    for i in 0..total {
        let lba = pick.next();
        w.write(lba, 1)?;
        if (i + 1) % a.flush_every == 0 {
            w.flush()?;
        }
    }
    w.flush()?;
    w.verify(4096)?;
    let c1 = shared.counters();
    let s1 = w.dev.stats();
    let page_sectors = f64::from(g.sectors_per_page);
    let waf = (c1.programs - c0.programs) as f64 * page_sectors / total as f64;
    let meta: std::collections::HashSet<u32> = f.metadata_blocks().into_iter().collect();
    let mut all = Vec::new();
    let mut data = Vec::new();
    let mut bad = 0;
    for b in 0..g.total_blocks() {
        let wear = shared
            .block_wear(BlockId(b))
            .map_err(|e| format!("block {b}: {e}"))?;
        bad += u64::from(wear.is_bad());
        all.push(u64::from(wear.erases));
        if !meta.contains(&b) {
            data.push(u64::from(wear.erases));
        }
    }
    let ratio = |v: &[u64]| {
        let avg = v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
        (*v.iter().max().unwrap_or(&0) as f64) / avg.max(f64::MIN_POSITIVE)
    };
    let avg = all.iter().sum::<u64>() as f64 / all.len().max(1) as f64;
    let max = all.iter().copied().max().unwrap_or(0);
    // Erases of the most-worn block per full-device write (after the
    // fill, which every run shares, so counted with it).
    let device_writes = a.device_writes + 1.0;
    let lifetime = (max > 0).then(|| f64::from(a.endurance) * device_writes / max as f64);
    let mut hist = std::collections::BTreeMap::new();
    for &e in &all {
        *hist.entry(e).or_insert(0u64) += 1;
    }
    let moved = (s1.wear.static_sectors - s0.wear.static_sectors) as f64;
    Ok(Row {
        bench: "wear".into(),
        ftl: kind.name().into(),
        workload: Some(workload.into()),
        wear_leveling: Some(leveling != Leveling::Off),
        wear_policy: Some(leveling.name().into()),
        wi: Some(a.flush_every),
        waf: Some(waf),
        writes: Some(total),
        logical_sectors: Some(l),
        gc_relocations_per_write: Some(
            (s1.gc_sectors_relocated - s0.gc_sectors_relocated) as f64 / total as f64,
        ),
        wear_moves_per_write: Some(moved / total as f64),
        meta_rotations: Some(s1.wear.meta_rotations - s0.wear.meta_rotations),
        write_streams: streams,
        erases_min: all.iter().copied().min(),
        erases_avg: Some(avg),
        erases_max: Some(max),
        erase_max_over_avg: Some(ratio(&all)),
        data_erase_max_over_avg: Some(ratio(&data)),
        bad_blocks: Some(bad),
        lifetime_device_writes: lifetime,
        erase_histogram: hist.into_iter().collect(),
        ..Row::default()
    })
}

/// A wear-out run: `kind` on a device whose blocks endure
/// `--wearout-endurance` erases, 80/20 writes with leveling on (where the
/// FTL has it) and a flush every `--flush-every`, until a request fails.
/// Then the device is reopened and every sector must read as its version at
/// the last successful flush or one written since.
fn measure_wearout(g: &Geometry, kind: FtlKind, a: &WearArgs) -> BResult<Row> {
    let f = targets::factory(kind, g)?;
    let model = flash::WearModel {
        endurance: a.wearout_endurance,
        factory_bad_per_mille: 0,
        seed: a.common.seed,
    };
    // Every block stored in full: the run ends with a recovery, which must
    // read back whole every page an FTL keeps metadata in — SCFTL's
    // rotated regions may sit on any block, and OPTR's summary pages,
    // record and trim sectors live in data segments (with only the fixed
    // metadata blocks stored, OPTR's reopen here failed with "the
    // checkpoint's log segment has lost its summary page", once reported as
    // lost flushed data).
    let is_meta = vec![true; g.total_blocks() as usize];
    let raw =
        flash::DatalessFlash::with_wear(*g, is_meta, flash::mem::default_nvram_size(g), model)
            .map_err(|e| format!("dataless flash: {e}"))?;
    let shared = flash::SharedFlash::new(raw);
    let mut dev = f.format(Box::new(shared.clone()))?;
    let _ = dev.set_wear_policy(ftl::wear::default_for(kind));
    let l = dev.num_sectors();
    let ss = dev.sector_size();
    let mut versions = vec![0u32; l as usize];
    let mut flushed = versions.clone();
    let mut pick = Picker::new("80/20", l, a.zipf_s, a.common.seed)?;
    let mut buf = vec![0u8; ss];
    let put = |buf: &mut [u8], la: u64, v: u32| {
        buf.fill(0);
        buf[..crate::workload::TAG_LEN].copy_from_slice(&crate::workload::tag_bytes(la, v));
    };
    let limit = (a.wearout_max_device_writes * l as f64) as u64;
    let mut written = 0u64;
    let mut version = 1u32;
    let mut end = None;
    let mut flush_failed = false;
    while written < limit {
        let la = pick.next();
        if dev.epoch_remaining() == Some(0) {
            if let Err(e) = dev.flush() {
                end = Some(e);
                flush_failed = true;
                break;
            }
            flushed.clone_from(&versions);
        }
        put(&mut buf, la, version);
        if let Err(e) = dev.write(ftl::Lba(la), &buf) {
            end = Some(e);
            break;
        }
        versions[la as usize] = version;
        version = version.wrapping_add(1).max(1);
        written += 1;
        if written % a.flush_every == 0 {
            if let Err(e) = dev.flush() {
                end = Some(e);
                flush_failed = true;
                break;
            }
            flushed.clone_from(&versions);
        }
    }
    let st = dev.stats();
    drop(dev);
    // Reopened, every sector must hold its version at the last successful
    // flush or one written since (the weakest contract of all FTLs, the
    // async one): a failure is never the loss of flushed data.
    let intact = match f.open(Box::new(shared.clone())) {
        Ok(mut d) => (0..l).all(|la| {
            if d.read(ftl::Lba(la), &mut buf).is_err() {
                return false;
            }
            let tag = &buf[..crate::workload::TAG_LEN];
            let at = u64::from(u32::from_le_bytes(tag[..4].try_into().expect("4 bytes")));
            let v = u32::from_le_bytes(tag[4..].try_into().expect("4 bytes"));
            let floor = flushed[la as usize];
            if tag.iter().all(|&b| b == 0) {
                return floor == 0;
            }
            at == la && v >= floor && v <= version
        }),
        Err(_) => false,
    };
    let _ = flush_failed;
    Ok(Row {
        bench: "wear".into(),
        ftl: kind.name().into(),
        workload: Some("80/20 until worn out".into()),
        wear_leveling: Some(true),
        wi: Some(a.flush_every),
        writes: Some(written),
        logical_sectors: Some(l),
        lifetime_device_writes: Some(written as f64 / l as f64),
        bad_blocks: Some(st.bad_blocks),
        program_failures: Some(st.program_failures),
        erase_failures: Some(st.erase_failures),
        end_error: Some(match end {
            Some(e) => e.to_string(),
            None => format!("none within {} device writes", a.wearout_max_device_writes),
        }),
        flushed_intact: Some(intact),
        ..Row::default()
    })
}

/// Runs the benchmark, prints the report, writes JSON and PNG if asked.
pub fn run(a: &WearArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &WearArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    if a.flush_every == 0 || a.device_writes <= 0.0 {
        return Err("--flush-every and --device-writes must be positive".into());
    }
    let g = wear_geometry(a.common.quick)?;
    let device_writes = if a.common.quick {
        a.device_writes.min(5.0)
    } else {
        a.device_writes
    };
    let a = &WearArgs {
        device_writes,
        ..a.clone()
    };
    let mut header = Header::new(
        "wear: erase-count spread and write amplification under skewed writes, wear leveling off and on",
    );
    header.add("geometry", g.to_string());
    header.add(
        "workload",
        format!(
            "a sequential fill, then {} x L single-sector writes (80/20: 80% to the first 20% of sectors; zipf: s = {}), a flush every {}",
            a.device_writes, a.zipf_s, a.flush_every
        ),
    );
    header.add(
        "leveling",
        "on = ftl::wear::default_for (scftl serve's): scftl dynamic + static (spread 2 erases) + metadata rotation, the others dynamic only; dynamic (scftl only) = WearPolicy::DYNAMIC (scftl mount's): dynamic + metadata rotation, no static moves",
    );
    header.add(
        "streams",
        "scftl, async and sync with one write stream and with two (GC relocations, and scftl's wear moves, apart from host writes; scftl: cost-benefit victims, K and U fitted for each, same L and W; the baselines: greedy victims, same L)",
    );
    header.add(
        "lifetime",
        format!(
            "full-device writes until the most-worn block reaches {} erases",
            a.endurance
        ),
    );
    header.add("seed", a.common.seed.to_string());
    report::add_provenance(&mut header);
    // Every row names the geometry and the seed.
    let stamp = |mut row: Row| {
        row.geometry = if a.common.quick { "wear-quick" } else { "wear" }.into();
        row.seed = a.common.seed;
        row
    };
    let mut rows = Vec::new();
    for kind in a.ftl.iter().map(|f| f.kind()) {
        // SCFTL and the baselines with one write stream and with two
        // (hot/cold separation), at the same L (and W); OPTR as it is.
        type Variant = (Box<dyn targets::Factory>, Option<u32>);
        let one_and_two = |with: &dyn Fn(u32) -> Option<Box<dyn targets::Factory>>| {
            [1, 2]
                .into_iter()
                .filter_map(|t| with(t).map(|f| (f, Some(t))))
                .collect::<Vec<Variant>>()
        };
        let variants: Vec<Variant> = match kind {
            FtlKind::Scftl => {
                let base = targets::scftl_factory(&g)?;
                one_and_two(&|t| base.with_streams(t).map(|f| Box::new(f) as _))
            }
            FtlKind::Async | FtlKind::Sync => {
                let base = targets::log_factory(kind, &g)?;
                one_and_two(&|t| base.with_streams(t).map(|f| Box::new(f) as _))
            }
            FtlKind::Optr => vec![(targets::factory(kind, &g)?, None)],
        };
        for workload in WORKLOADS {
            for (f, streams) in &variants {
                for &leveling in Leveling::for_kind(kind) {
                    progress(
                        a.common.silent,
                        format!(
                            "wear: {kind}{} {workload} leveling {}",
                            streams.map_or(String::new(), |t| format!(" ({t} streams)")),
                            leveling.name()
                        ),
                    );
                    rows.push(stamp(measure(
                        &g,
                        f.as_ref(),
                        *streams,
                        workload,
                        leveling,
                        a,
                    )?));
                }
            }
        }
    }
    let wearout = WearArgs {
        wearout_endurance: if a.common.quick {
            a.wearout_endurance.min(10)
        } else {
            a.wearout_endurance
        },
        ..a.clone()
    };
    for kind in a.ftl.iter().map(|f| f.kind()) {
        progress(a.common.silent, format!("wear: {kind} until worn out"));
        rows.push(stamp(measure_wearout(&g, kind, &wearout)?));
    }
    header.add(
        "wear-out",
        format!(
            "blocks endure {} erases (each ±10%), 80/20 with leveling on, until a request fails; then reopened and read back",
            wearout.wearout_endurance
        ),
    );
    let text = render(&header, &rows);
    let rep = crate::output::finish(&a.common, rows, text)?;
    if let Some(png) = &a.common.png {
        draw(png, &rep.rows)?;
    }
    Ok(rep)
}

/// The table: one row per FTL, workload and leveling setting.
pub fn table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "ftl",
        "workload",
        "streams",
        "leveling",
        "WAF",
        "GC reloc/w",
        "WL moves/w",
        "meta moves",
        "erases min",
        "avg",
        "max",
        "max/avg",
        "data max/avg",
        "bad",
        "lifetime (device writes)",
    ]);
    for r in rows.iter().filter(|r| r.end_error.is_none()) {
        t.push(vec![
            r.ftl.clone(),
            r.workload.clone().unwrap_or_default(),
            r.write_streams.map_or("1".into(), |t| t.to_string()),
            leveling_name(r),
            fmt_opt(r.waf, 3),
            fmt_opt(r.gc_relocations_per_write, 3),
            fmt_opt(r.wear_moves_per_write, 3),
            crate::report::fmt_count(r.meta_rotations),
            crate::report::fmt_count(r.erases_min),
            fmt_opt(r.erases_avg, 1),
            crate::report::fmt_count(r.erases_max),
            fmt_opt(r.erase_max_over_avg, 2),
            fmt_opt(r.data_erase_max_over_avg, 2),
            crate::report::fmt_count(r.bad_blocks),
            fmt_opt(r.lifetime_device_writes, 0),
        ]);
    }
    t
}

/// The wear-out table: one row per FTL.
pub fn wearout_table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "ftl",
        "device writes until it failed",
        "bad superblocks retired",
        "program failures handled",
        "erase failures handled",
        "flushed data intact",
        "ended by",
    ]);
    for r in rows.iter().filter(|r| r.end_error.is_some()) {
        t.push(vec![
            r.ftl.clone(),
            fmt_opt(r.lifetime_device_writes, 1),
            crate::report::fmt_count(r.bad_blocks),
            crate::report::fmt_count(r.program_failures),
            crate::report::fmt_count(r.erase_failures),
            match r.flushed_intact {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => String::new(),
            },
            r.end_error.clone().unwrap_or_default().replace('|', "/"),
        ]);
    }
    t
}

/// Every table of the report.
pub fn tables(rows: &[Row]) -> Vec<Table> {
    vec![table(rows), wearout_table(rows)]
}

/// The text report: the header and the tables.
pub fn render(header: &Header, rows: &[Row]) -> String {
    let mut text = header.render_with(&table(rows));
    text.push('\n');
    text.push_str(&wearout_table(rows).render());
    text
}

/// The PNG: per workload and leveling setting, each FTL's erase counts of
/// all blocks, sorted (x: fraction of blocks, y: erases) — a flat line is
/// even wear.
fn draw(path: &std::path::Path, rows: &[Row]) -> BResult<()> {
    let mut panels = Vec::new();
    for workload in WORKLOADS {
        for leveled in ["off", "on"] {
            let series = rows
                .iter()
                .filter(|r| {
                    r.workload.as_deref() == Some(workload)
                        && r.end_error.is_none()
                        && leveling_name(r) == leveled
                })
                .map(|r| {
                    let n: u64 = r.erase_histogram.iter().map(|&(_, c)| c).sum();
                    let mut points = Vec::new();
                    let mut seen = 0u64;
                    for &(e, c) in &r.erase_histogram {
                        points.push((seen as f64 / n.max(1) as f64, e as f64));
                        seen += c;
                        points.push((seen as f64 / n.max(1) as f64, e as f64));
                    }
                    // SCFTL with one stream in grey, beside the two-stream
                    // default in its own colour; the baselines' default
                    // one stream in theirs, two streams paler.
                    let (label, color) = match (r.ftl.as_str(), r.write_streams) {
                        ("scftl", Some(1)) => ("scftl (1 stream)".into(), chart::ftl_color("")),
                        (f, Some(1)) => (format!("{f} (1 stream)"), chart::ftl_color(f)),
                        ("scftl", Some(t)) => {
                            (format!("scftl ({t} streams)"), chart::ftl_color("scftl"))
                        }
                        (f, Some(t)) => (format!("{f} ({t} streams)"), chart::ftl_color_light(f)),
                        (f, None) => (f.to_string(), chart::ftl_color(f)),
                    };
                    Series {
                        label,
                        color,
                        points,
                    }
                })
                .collect();
            panels.push(Panel {
                title: format!("{workload}, leveling {leveled}"),
                x_label: "fraction of erase blocks (sorted by erases)".into(),
                y_label: "erases".into(),
                log_y: false,
                x_categories: Vec::new(),
                series,
            });
        }
    }
    chart::draw(path, "wear: erase counts of every erase block", &panels, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_80_20_picker_sends_four_fifths_to_the_hot_fifth() {
        let mut p = Picker::new("80/20", 1000, 1.0, 1).unwrap();
        let hot = (0..20_000).filter(|_| p.next() < 200).count();
        assert!((15_500..16_500).contains(&hot), "{hot}");
    }

    #[test]
    fn the_zipf_picker_favours_its_first_ranks_and_stays_in_range() {
        let mut p = Picker::new("zipf", 4096, 1.0, 1).unwrap();
        let mut counts = vec![0u32; 4096];
        for _ in 0..50_000 {
            counts[p.next() as usize] += 1;
        }
        let top = *counts.iter().max().unwrap();
        // Rank 1 gets 1/H(4096) ~ 11% of the draws.
        assert!(top > 4_000, "{top}");
        assert!(Picker::new("pareto", 10, 1.0, 1).is_err());
    }
}
