//! Owns the geometry `--size` derives: how large a flash device `scftl
//! format --size` (and `serve`/`mount --memory --size`) makes when no
//! `--geometry` preset is named, and the `--over-provisioning` that sets its
//! spare space.
//!
//! Over-provisioning is the spare flash as a percentage of the logical size
//! (raw = logical × (1 + OP/100)), the industry's definition. The default,
//! 100 %, is the ratio of the `paper` preset (4 GiB logical on 8 GiB raw), so
//! `--size 4GiB` derives exactly `paper`.
//!
//! Invariants of a derived geometry: it is one of the preset shapes
//! (`small`, `medium`, `paper`: channels, dies, pages and sectors as the
//! preset) with only `blocks_per_die` scaled; its logical size is the request
//! rounded up to whole sectors; its raw size is the smallest number of whole
//! superblocks (one erase block on every die) that holds the logical size
//! plus the spare and that the FTL accepts. The FTL's metadata (label,
//! checkpoints, delta log) and GC reserve come out of the spare; on a small
//! disk they need more than the default ratio, and the default then grows
//! to what the FTL needs, but an explicit `--over-provisioning` is honoured
//! within a little slack or refused with the percentage the FTL needs.

use flash::Geometry;
use ftl::any::{baseline_config, scftl_config};
use ftl::{FormatOptions, FtlKind};

use crate::error::CliError;
use crate::size::human;

/// `--over-provisioning` when not given: the `paper` preset's ratio.
pub const DEFAULT_OVER_PROVISIONING: u32 = 100;

/// The accepted `--over-provisioning` range, in percent. Below a few percent
/// no FTL here has room for GC; above 1000 % a tenth of the flash is used.
pub const OVER_PROVISIONING_MIN: u32 = 1;
pub const OVER_PROVISIONING_MAX: u32 = 1000;

/// The preset shapes `--size` scales, smallest first.
const SHAPES: [&str; 3] = ["small", "medium", "paper"];

/// Fewer blocks per die leave too few superblocks for the FTLs' metadata
/// regions and GC; a request that derives fewer is refused as too small.
const MIN_BLOCKS_PER_DIE: u32 = 16;

/// Parses `--over-provisioning`: a whole number of percent, with or without
/// a trailing `%`.
pub fn parse_over_provisioning(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let digits = t.strip_suffix('%').unwrap_or(t).trim();
    let p: u32 = digits.parse().map_err(|_| {
        format!("`{s}` is not a percentage: write a whole number such as 28 or 100%")
    })?;
    if !(OVER_PROVISIONING_MIN..=OVER_PROVISIONING_MAX).contains(&p) {
        return Err(format!(
            "`{s}`: must be from {OVER_PROVISIONING_MIN} to {OVER_PROVISIONING_MAX} percent \
             (spare flash as a share of the logical size; 100 doubles the raw size)"
        ));
    }
    Ok(p)
}

/// A geometry derived from `--size`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derived {
    pub geometry: Geometry,
    /// The preset whose shape it scales.
    pub shape: &'static str,
    /// The logical size in sectors (the request rounded up to a sector).
    pub logical_sectors: u64,
}

/// Derives the geometry for a disk of `size` logical bytes with `op` percent
/// of spare flash (`None`: the default, grown as the FTL needs), holding an
/// FTL of `kind`.
pub fn derive(size: u64, op: Option<u32>, kind: FtlKind) -> Result<Derived, CliError> {
    let explicit = op.is_some();
    let op = op.unwrap_or(DEFAULT_OVER_PROVISIONING);
    let shapes = SHAPES.map(|n| (n, Geometry::preset(n).expect("a preset shape")));
    // Every shape has the same sector size, so the logical size is the same
    // whichever is chosen.
    let ss = u64::from(shapes[0].1.sector_size);
    if size == 0 {
        return Err(CliError::usage(
            "--size 0: a disk needs at least one sector",
        ));
    }
    let logical_sectors = size.div_ceil(ss);
    let logical = u128::from(logical_sectors) * u128::from(ss);
    let target_raw = logical * u128::from(100 + op) / 100;
    let (shape, base) = nearest_shape(&shapes, target_raw);
    let sb_bytes = superblock_bytes(&base);
    let blocks = target_raw.div_ceil(sb_bytes);
    let small_sb = superblock_bytes(&shapes[0].1);
    if shape == SHAPES[0] && blocks < u128::from(MIN_BLOCKS_PER_DIE) {
        let min_logical = u128::from(MIN_BLOCKS_PER_DIE) * small_sb * 100 / u128::from(100 + op);
        return Err(CliError::usage(format!(
            "--size {}: too small to derive a geometry from; the smallest is {} with \
             {op}% over-provisioning (or name a preset: --geometry tiny or small)",
            human(size),
            human(min_logical as u64)
        )));
    }
    let max_blocks = max_blocks_per_die(&base);
    let too_large = || {
        let max_raw = u128::from(max_blocks) * sb_bytes;
        CliError::usage(format!(
            "--size {}: with {op}% over-provisioning that needs {} of flash; the FTLs address \
             at most {} (2^32 sectors); ask for less",
            human(size),
            human_u128(target_raw),
            human_u128(max_raw)
        ))
    };
    if blocks > u128::from(max_blocks) {
        return Err(too_large());
    }
    let blocks = blocks as u32;
    let fits = |b: u32| fits(&with_blocks(&base, b), kind, logical_sectors);
    // The FTL's metadata regions and GC reserve come out of the spare space;
    // a little more than asked for is taken silently, much more only when
    // the ratio was not asked for.
    let slack = if explicit {
        (blocks / 8).max(4)
    } else {
        max_blocks
    };
    let accept_up_to = blocks.saturating_add(slack).min(max_blocks);
    match smallest_fitting(blocks, max_blocks, fits) {
        Some(b) if b <= accept_up_to => Ok(Derived {
            geometry: with_blocks(&base, b),
            shape,
            logical_sectors,
        }),
        Some(b) => {
            let raw = u128::from(b) * sb_bytes;
            let needed = (raw * 100).div_ceil(logical) - 100;
            Err(CliError::usage(format!(
                "--over-provisioning {op}: too little for the {kind} FTL on a {} disk, whose \
                 metadata and GC reserve need more spare flash; pass --over-provisioning {needed} \
                 or more",
                human(size)
            )))
        }
        None if blocks == max_blocks => Err(too_large()),
        None => Err(CliError::usage(format!(
            "--size {}: the {kind} FTL fits on no geometry of the {shape} shape up to {}; ask for \
             less",
            human(size),
            human_u128(u128::from(max_blocks) * sb_bytes)
        ))),
    }
}

/// Names a geometry for people: its preset, or the preset shape it scales
/// (`custom: medium shape, 128 blocks per die`), or `custom`.
pub fn describe(g: &Geometry) -> String {
    let preset = crate::preset_name(g);
    if preset != "custom" {
        return preset.to_string();
    }
    SHAPES
        .iter()
        .find(|n| Geometry::preset(n).is_ok_and(|s| with_blocks(&s, g.blocks_per_die) == *g))
        .map_or_else(
            || "custom".to_string(),
            |n| format!("custom: {n} shape, {} blocks per die", g.blocks_per_die),
        )
}

/// The spare flash of a device in percent of its logical size, rounded
/// down (what `--over-provisioning` asked for, or a little more).
pub fn over_provisioning(raw_bytes: u64, logical_bytes: u64) -> u64 {
    let logical = u128::from(logical_bytes.max(1));
    (u128::from(raw_bytes).saturating_sub(logical) * 100 / logical) as u64
}

/// The shape whose preset raw size is nearest (by ratio) to `raw`.
fn nearest_shape(shapes: &[(&'static str, Geometry); 3], raw: u128) -> (&'static str, Geometry) {
    let distance = |g: &Geometry| ((raw as f64) / (g.raw_bytes() as f64)).ln().abs();
    let (name, g) = shapes
        .iter()
        .min_by(|a, b| distance(&a.1).total_cmp(&distance(&b.1)))
        .expect("shapes is not empty");
    (name, *g)
}

fn superblock_bytes(g: &Geometry) -> u128 {
    u128::from(g.dies()) * u128::from(g.pages_per_block) * g.page_size() as u128
}

fn with_blocks(g: &Geometry, blocks_per_die: u32) -> Geometry {
    Geometry {
        blocks_per_die,
        ..*g
    }
}

/// The most blocks per die whose sectors the FTLs can still address in 32
/// bits (with room for their reserved values and buffer addresses).
fn max_blocks_per_die(g: &Geometry) -> u32 {
    let per_block_row = u64::from(g.dies()) * u64::from(g.sectors_per_block());
    let room = u64::from(u32::MAX) - u64::from(g.sectors_per_page) - 3;
    u32::try_from(room / per_block_row).unwrap_or(u32::MAX)
}

/// Whether an FTL of `kind` accepts `logical_sectors` on `g`.
fn fits(g: &Geometry, kind: FtlKind, logical_sectors: u64) -> bool {
    let opts = FormatOptions {
        logical_sectors: Some(logical_sectors),
        ..FormatOptions::default()
    };
    match kind {
        FtlKind::Scftl => scftl_config(g, &opts).is_ok(),
        FtlKind::Optr => ftl::any::optr_config(g, &opts).is_ok(),
        _ => baseline_config(g, kind, &opts).is_ok(),
    }
}

/// The smallest `b` in `from..=max` with `fits(b)`, assuming that a device
/// with more blocks fits whenever a smaller one does: gallop up, then bisect.
fn smallest_fitting(from: u32, max: u32, fits: impl Fn(u32) -> bool) -> Option<u32> {
    if fits(from) {
        return Some(from);
    }
    let (mut bad, mut step) = (from, 1u32);
    let good = loop {
        let next = bad.saturating_add(step).min(max);
        if fits(next) {
            break next;
        }
        if next == max {
            return None;
        }
        bad = next;
        step = step.saturating_mul(2);
    };
    let (mut lo, mut hi) = (bad, good);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

fn human_u128(bytes: u128) -> String {
    human(u64::try_from(bytes).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(d: &Derived) -> u64 {
        d.geometry.raw_bytes()
    }

    #[test]
    fn four_gib_at_the_default_is_the_paper_preset() {
        let d = derive(4 << 30, None, FtlKind::Scftl).unwrap();
        assert_eq!(d.geometry, Geometry::paper());
        assert_eq!(d.logical_sectors, (4 << 30) / 4096);
    }

    #[test]
    fn one_gib_is_about_two_gib_raw() {
        let d = derive(1 << 30, None, FtlKind::Scftl).unwrap();
        assert_eq!(d.shape, "medium");
        assert_eq!(raw(&d), 2 << 30);
        let d = derive(1 << 30, Some(28), FtlKind::Async).unwrap();
        assert!(raw(&d) >= (1 << 30) * 128 / 100, "{}", raw(&d));
        assert!(raw(&d) <= (1 << 30) * 128 / 100 + (16 << 20), "{}", raw(&d));
    }

    #[test]
    fn every_kind_fits_what_it_derives() {
        for kind in FtlKind::ALL {
            for (size, op) in [
                (16 << 20, None),
                (100 << 20, Some(50)),
                (3 << 30, Some(100)),
                ((20 << 20) + 1, None),
            ] {
                let d = derive(size, op, kind).unwrap();
                assert!(
                    fits(&d.geometry, kind, d.logical_sectors),
                    "{kind} {size} {op:?}"
                );
                assert!(d.logical_sectors * 4096 >= size);
            }
        }
    }

    #[test]
    fn nonsense_is_refused() {
        assert!(derive(0, None, FtlKind::Scftl).is_err());
        assert!(derive(1 << 20, None, FtlKind::Scftl).is_err());
        assert!(derive(64 << 40, None, FtlKind::Scftl).is_err());
        let e = derive(1 << 30, Some(1), FtlKind::Scftl).unwrap_err();
        assert!(e.message.contains("--over-provisioning"), "{e}");
        for bad in ["0", "1001", "-5", "ten", "12.5", ""] {
            assert!(parse_over_provisioning(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_over_provisioning("28%"), Ok(28));
    }

    #[test]
    fn gallop_and_bisect_find_the_smallest() {
        for first in [0, 1, 7, 100, 999] {
            assert_eq!(smallest_fitting(0, 1000, |b| b >= first), Some(first));
        }
        assert_eq!(smallest_fitting(0, 1000, |_| false), None);
    }
}
