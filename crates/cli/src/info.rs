//! `scftl info`: open an image read-only (recovery runs, nothing is
//! written), then print its geometry, FTL, configuration and statistics.

use std::path::Path;

use ftl::DeviceStats;
use serde_json::{json, Value};

use crate::error::CliError;
use crate::image::{self, Summary};
use crate::size::human;

/// JSON description of an image, with statistics when it was opened.
pub fn summary_json(s: &Summary, stats: Option<&DeviceStats>) -> Value {
    let g = &s.geometry;
    let config: serde_json::Map<String, Value> = s
        .config
        .iter()
        .map(|&(k, v)| (k.to_string(), Value::from(v)))
        .collect();
    let mut v = json!({
        "image": s.path.display().to_string(),
        "ftl": s.kind.name(),
        "geometry": {
            "preset": crate::preset_name(g),
            "channels": g.channels,
            "dies_per_channel": g.dies_per_channel,
            "blocks_per_die": g.blocks_per_die,
            "pages_per_block": g.pages_per_block,
            "sectors_per_page": g.sectors_per_page,
            "sector_size": g.sector_size,
            "oob_size": g.oob_size,
            "raw_bytes": g.raw_bytes(),
        },
        "config": config,
        "sector_size": s.sector_size,
        "logical_sectors": s.logical_sectors,
        "logical_bytes": s.logical_bytes(),
    });
    if let Some(st) = stats {
        v["stats"] = json!({
            "valid_sectors": st.valid_sectors,
            "used_bytes": st.valid_sectors * s.sector_size as u64,
            "free_blocks": st.free_blocks,
            "used_blocks": st.used_blocks,
            "invalid_blocks": st.invalid_blocks,
            "erasable_blocks": st.erasable_blocks,
            "bad_blocks": st.bad_blocks,
            "erases_min": st.erases_min,
            "erases_avg": st.erases_avg,
            "erases_max": st.erases_max,
            "last_recovery_ns": st.last_recovery_ns,
        });
    }
    v
}

pub fn run(path: &Path, as_json: bool) -> Result<(), CliError> {
    let opened = image::open_report_view(path)?;
    let s = &opened.summary;
    let mut st = opened.device.stats();
    st.last_recovery_ns = opened.recovery.as_nanos() as u64;
    // Wear from the image's records (over the device's life), in the text
    // and the JSON alike; the FTL's counters cover only this open.
    let wear = device_wear(path);
    if let Ok(w) = &wear {
        st.erases_min = w.min;
        st.erases_avg = w.avg;
        st.erases_max = w.max;
        st.bad_blocks = w.bad;
    }
    // The image file's own format version (docs/FORMAT.md §2); the header
    // was checked when the image was opened.
    let format = flash::FileFlash::read_header(path).ok().map(|h| h.version);
    if as_json {
        let mut v = summary_json(s, Some(&st));
        if let Some(f) = format {
            v["image_format"] = Value::from(f);
        }
        v["live_view"] = Value::from(opened.live);
        v["wear_recorded"] = Value::from(wear.is_ok());
        println!("{v:#}");
        return Ok(());
    }
    let g = &s.geometry;
    let mut rows: Vec<(String, String)> = vec![
        ("image".into(), s.path.display().to_string()),
        ("ftl".into(), s.kind.to_string()),
    ];
    if let Some(f) = format {
        let what = match f {
            1 => "each page's OOB after its data; copy the content into a new image for block-aligned pages in stripe order",
            2 => "page data block-aligned, OOB areas in their own region, pages in dense order; copy the content into a new image for stripe order",
            3 => "page data block-aligned, OOB areas in their own region, pages in stripe order; erase counts are not kept across opens: copy the content into a new image to keep them",
            _ => "page data block-aligned, OOB areas in their own region, pages in stripe order, erase counts and bad blocks recorded",
        };
        rows.push(("image format".into(), format!("{f} ({what})")));
    }
    rows.extend([
        (
            "geometry".into(),
            format!("{} ({g})", crate::sizing::describe(g)),
        ),
        (
            "logical size".into(),
            format!(
                "{} ({} sectors of {} B)",
                human(s.logical_bytes()),
                s.logical_sectors,
                s.sector_size
            ),
        ),
    ]);
    for (k, v) in &s.config {
        rows.push((format!("config {k}"), v.to_string()));
        // W in bytes: what a client may write between two flushes.
        if *k == "write_bound" {
            let bytes = v * s.sector_size as u64;
            rows.push((
                "epoch bound".into(),
                format!("{} per epoch (W)", human(bytes)),
            ));
        }
    }
    let used = st.valid_sectors * s.sector_size as u64;
    rows.extend([
        (
            "valid sectors".into(),
            format!("{} ({} in use)", st.valid_sectors, human(used)),
        ),
        (
            "blocks".into(),
            format!(
                "{} free, {} used, {} invalid, {} erasable, {} bad",
                st.free_blocks,
                st.used_blocks,
                st.invalid_blocks,
                st.erasable_blocks,
                st.bad_blocks
            ),
        ),
        (
            "device wear".into(),
            match &wear {
                Ok(w) => format!(
                    "erase counts min {}, avg {:.2}, max {} over {} erase blocks; {} bad",
                    w.min, w.avg, w.max, w.blocks, w.bad
                ),
                Err(why) => why.clone(),
            },
        ),
        (
            "last recovery".into(),
            format!("{:.3} ms", st.last_recovery_ns as f64 / 1e6),
        ),
    ]);
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        println!("{k:<w$}  {v}");
    }
    Ok(())
}

/// Erase counts and bad blocks from an image's wear records.
struct Wear {
    min: u64,
    avg: f64,
    max: u64,
    blocks: u64,
    bad: u64,
}

/// The image's wear records (format 4): erase counts of every erase block
/// over the device's life, and how many blocks are bad; or why there are
/// none.
fn device_wear(path: &Path) -> Result<Wear, String> {
    use flash::Flash;
    // The records are read straight from the file (no lock: they are
    // whole 8-byte records, and a served image may be described too).
    let f = flash::FileFlash::open_live_view(path).map_err(|e| format!("unknown ({e})"))?;
    if f.header().version < 4 {
        return Err(format!(
            "not recorded (image format {}; erase counts are kept from format 4 on)",
            f.header().version
        ));
    }
    let blocks = f.geometry().total_blocks();
    let (mut min, mut max, mut sum, mut bad) = (u64::MAX, 0u64, 0u64, 0u64);
    for b in 0..blocks {
        let Ok(w) = f.block_wear(flash::BlockId(b)) else {
            continue;
        };
        let e = u64::from(w.erases);
        min = min.min(e);
        max = max.max(e);
        sum += e;
        bad += u64::from(w.is_bad());
    }
    Ok(Wear {
        min: min.min(max),
        // Rounded as the text shows it, so both say the same.
        avg: (sum as f64 / f64::from(blocks.max(1)) * 100.0).round() / 100.0,
        max,
        blocks: u64::from(blocks),
        bad,
    })
}
