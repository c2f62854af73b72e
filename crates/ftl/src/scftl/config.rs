//! SCFTL configuration: the epoch bounds (W, K), the GC threshold (U), the
//! logical size (L) and the sizes of the metadata regions; its check against
//! the paper's space constraints; the one search for K and U that satisfy
//! them (`fit_k_u`, used by `default_for` and by `any::scftl_config`); and
//! its little-endian encoding in the device label (layout in docs/FORMAT.md
//! §4.6).
//!
//! Invariants of a configuration that passed [`ScftlConfig::validate`]
//! (N = floor(L/U), S = sectors per superblock, P = data superblocks):
//! - (1) `W + K*N <= K*S`: an epoch consumes no more space than its GC frees;
//! - (2) `U <= P - t - ceil((W + K*N + (t-1)*(sectors_per_page - 1 + S))/S)`
//!   with t write streams (`gc_streams`; the paper's `P - 1 - ceil((W +
//!   K*N)/S)` for t = 1): GC is enabled whenever the next epoch might not
//!   fit;
//! - (3) `W + K*N + t*(sectors_per_page - 1) + t*(S - 1) + (t-1)*S <= K*S`:
//!   (1) with room for each stream's flush padding and for the unwritten
//!   tail of each active superblock a crash abandons, and with two streams
//!   a superblock for the rounding of a split epoch ([`slack`]; beyond the
//!   paper; it is what makes the "enough space after flush / after
//!   recovery" validators provable);
//! - (4) the delta region holds at least two epochs' worth of delta pages;
//! - a checkpoint slot holds the whole L2P plus its commit record;
//! - every logical and physical sector address fits in 32 bits with
//!   [`crate::UNMAPPED`] left free as the "unmapped" sentinel.

use flash::Geometry;

use crate::codec::{self, field_table};
use crate::device::{FtlError, Result};
use crate::UNMAPPED;

use super::checkpoint;
use super::features::{self, Features};
use super::format::{self, l2p_entries_per_page, pairs_per_page};

/// The configuration of an SCFTL device. Immutable after `format`; stored
/// in the device label.
#[derive(Clone, Debug, PartialEq)]
pub struct ScftlConfig {
    /// L: number of logical sectors the device exposes.
    pub logical_sectors: u64,
    /// W: sector updates (written plus trimmed sectors) allowed per epoch.
    pub write_bound: u32,
    /// K: GC relocations (victim superblocks) allowed per epoch.
    pub gc_bound: u32,
    /// U: GC runs only when at least this many superblocks are used.
    pub gc_threshold: u32,
    /// Superblocks per full-checkpoint slot (there are two slots).
    pub checkpoint_slot_superblocks: u32,
    /// Superblocks of the delta region.
    pub delta_region_superblocks: u32,
    /// Delta pairs per delta page (at most what a page holds). Small
    /// devices use fewer so that tentative pages occur in short workloads.
    pub delta_pairs_per_page: u32,
    /// Write streams, each with its own active superblock and merge
    /// buffer: 1 (host writes, GC relocations and wear moves share one) or
    /// 2 (relocations and wear moves, the cold data, go to a second one:
    /// hot/cold separation, configuration version 8). The constraints
    /// budget each stream's flush padding and abandoned tail.
    pub gc_streams: u32,
}

/// Numbers derived from a configuration and a geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Derived {
    /// S: data sectors per superblock.
    pub sectors_per_sb: u64,
    /// Pages per superblock (one erase block on every die).
    pub pages_per_sb: u64,
    /// P: superblocks that hold data.
    pub data_sbs: u64,
    /// N = floor(L / U).
    pub n: u64,
    /// W + K*N: most delta pairs one epoch can produce.
    pub epoch_pairs_max: u64,
    /// Delta pages one epoch can write (tentative ones plus the commit).
    pub epoch_pages_max: u64,
    /// Pages of one full checkpoint (L2P pages plus the commit record).
    pub checkpoint_pages: u64,
    /// Pages of the delta region.
    pub delta_pages: u64,
}

/// The numbers of the space constraints (1)–(4), in their names.
#[derive(Clone, Copy, Debug)]
struct Space {
    w: u64,
    k: u64,
    u: u64,
    /// S: sectors per superblock.
    s: u64,
    /// P: data superblocks.
    p: u64,
    /// N = floor(L / U).
    n: u64,
    /// W + K*N.
    need: u64,
    /// Flush padding at most: sectors_per_page - 1.
    pad: u64,
    /// t: write streams (1 or 2).
    t: u64,
}

impl Space {
    /// The first of the space constraints (1)–(4) these numbers break, by
    /// number. Pure arithmetic without allocation, so the K/U search can
    /// try many candidates; [`ScftlConfig::validate`] words the message.
    /// Needs a valid geometry (S >= 1).
    fn broken(&self, d: &Derived) -> Option<u32> {
        let Space {
            k,
            u,
            s,
            p,
            need,
            pad,
            t,
            ..
        } = *self;
        if need > k * s {
            Some(1)
        } else if u + t + (need + (t - 1) * (pad + s)).div_ceil(s) > p {
            Some(2)
        } else if need + slack(t, pad, s) > k * s {
            Some(3)
        } else if 2 * d.epoch_pages_max > d.delta_pages {
            Some(4)
        } else {
            None
        }
    }
}

/// What constraint (3) adds to an epoch's W + K*N sectors with `t` write
/// streams, flush padding at most `pad` and `s` sectors per superblock:
/// each stream's padding and the tail of its active superblock a crash
/// abandons, and with two streams one superblock more, because the epoch's
/// sectors may land in either stream (the §6.1 validator takes the room of
/// the emptier active superblock only, `invariants.rs`).
pub(crate) fn slack(t: u64, pad: u64, s: u64) -> u64 {
    t * pad + t * (s - 1) + (t - 1) * s
}

/// Superblock 0 is reserved: its die-0 erase block is the label block.
pub(crate) const RESERVED_SUPERBLOCKS: u64 = 1;

/// The write bound of devices whose superblocks hold S sectors, before the
/// over-provisioning is taken into account: half a superblock, between 8 and
/// the paper's 2,048 sectors (§7). Small devices keep it so that epochs,
/// GC and full checkpoints happen often in tests and crash campaigns.
pub fn small_write_bound(sectors_per_sb: u64) -> u32 {
    (sectors_per_sb / 2).clamp(8, PAPER_WRITE_BOUND) as u32
}

/// The paper's write bound (§7: 2,048 sectors, 8 MiB of 4 KiB sectors);
/// `scftl format --write-bound 2048` asks for it.
pub const PAPER_WRITE_BOUND: u64 = 2048;

/// One epoch may use at most this fraction (1/n) of the over-provisioned
/// sectors. The space constraints let W grow until the epoch's reserve eats
/// the GC headroom; 1/32 keeps U within a few superblocks of P on the
/// presets, so GC work per epoch (K) stays small, and bounds what recovery
/// verifies after a crash (the data of the unsynced epochs, section 4.3 of
/// docs/FORMAT.md).
pub const WRITE_BOUND_SPARE_FRACTION: u64 = 32;

/// The first write bound `default_for` tries: 1/[`WRITE_BOUND_SPARE_FRACTION`]
/// of the `spare_sectors` (data-region sectors beyond the logical size), but
/// never less than `small` and at most [`MAX_DEFAULT_WRITE_BOUND`].
pub fn default_write_bound(spare_sectors: u64, small: u32) -> u32 {
    (spare_sectors / WRITE_BOUND_SPARE_FRACTION).clamp(
        u64::from(small),
        MAX_DEFAULT_WRITE_BOUND.max(u64::from(small)),
    ) as u32
}

/// The largest default W: 2^16 sectors (256 MiB of 4 KiB sectors). Beyond
/// it a larger epoch no longer buys bandwidth (an internal flush costs no
/// `fdatasync`), while recovery after a crash re-reads up to a few epochs.
pub const MAX_DEFAULT_WRITE_BOUND: u64 = 1 << 16;

/// Pages smaller than this (in bytes) are the crash checker's geometries
/// (`tiny`, and the 256-byte pages of some tests), not real NAND.
pub const CHECKER_PAGE_BYTES: usize = 4096;

/// The pairs per delta page `default_for` picks for write bound `w` on
/// `g`. On real pages (at least [`CHECKER_PAGE_BYTES`]), all a page holds:
/// an epoch then writes as few delta pages as its pairs need, and the delta
/// region fills (and a full checkpoint comes) as late as it can. On the
/// checker's small pages, `w / 4` (at least 16), so the short seeded runs
/// of the crash checker write tentative delta pages (an epoch spread over
/// several region pages) and recover from crashes between them.
pub fn delta_pairs_for(g: &Geometry, w: u32) -> u32 {
    let page_pairs = pairs_per_page(g.page_size()) as u32;
    if g.page_size() >= CHECKER_PAGE_BYTES || w >= page_pairs {
        page_pairs
    } else {
        (w / 4).max(16).min(page_pairs)
    }
}

/// Full checkpoints' worth of pages the default delta region holds: the
/// region fills with delta pages between two full checkpoints, so a full
/// checkpoint costs at most a quarter of the metadata pages written since
/// the last one. A larger region buys nothing but rarer checkpoints and a
/// longer recovery scan, and it costs GC its superblocks: on `paper` the
/// paper's 256 MB region (8 superblocks, this default before 2026-12-07)
/// left 7 superblocks fewer to GC and 13% more relocations under uniform
/// random writes (docs/BENCHMARKS.md, randwr).
pub const DELTA_REGION_CHECKPOINTS: u64 = 4;

/// The delta region `default_for` and `paper_for` give `g` for a full
/// checkpoint of `ckpt_pages` pages: the fewest superblocks that hold
/// [`DELTA_REGION_CHECKPOINTS`] checkpoints' pages, at least one, and at
/// most 1/32 of the superblocks (at most 8). One superblock on `tiny`,
/// `small`, `medium` and `paper`, 5 on `paper-64g`, 8 on `paper-256g`.
pub fn default_delta_superblocks(g: &Geometry, ckpt_pages: u64) -> u32 {
    let pages_per_sb = u64::from(g.dies()) * u64::from(g.pages_per_block);
    let cap = (g.blocks_per_die / 32).clamp(1, 8);
    let need = (DELTA_REGION_CHECKPOINTS * ckpt_pages).div_ceil(pages_per_sb.max(1));
    need.clamp(1, u64::from(cap)) as u32
}

impl ScftlConfig {
    /// A valid configuration for `g`: a delta region sized to the full
    /// checkpoint ([`default_delta_superblocks`]: one superblock on the
    /// `paper` preset, 32 MiB), one-superblock
    /// checkpoint slots, a logical size of half the raw capacity (4 GiB on
    /// the 8 GiB `paper` preset, like the paper's example) or less where the
    /// constraints demand it, and the write bound W from the
    /// over-provisioning (see [`default_write_bound`]). K and U are the
    /// smallest K and largest U that satisfy constraints (1)–(4).
    pub fn default_for(g: &Geometry) -> ScftlConfig {
        Self::sized_for(g, false)
    }

    /// Like [`ScftlConfig::default_for`] with the write bound of the paper's
    /// evaluation instead of one from the over-provisioning: 2,048 sectors
    /// (half a superblock on small devices), for benchmarks that reproduce
    /// the paper.
    pub fn paper_for(g: &Geometry) -> ScftlConfig {
        Self::sized_for(g, true)
    }

    fn sized_for(g: &Geometry, paper_write_bound: bool) -> ScftlConfig {
        let pages_per_sb = u64::from(g.dies()) * u64::from(g.pages_per_block);
        let s = pages_per_sb * u64::from(g.sectors_per_page);
        let w_small = small_write_bound(s);
        let mut l = (g.total_sectors() / 2).clamp(1, u64::from(UNMAPPED - 1));
        loop {
            let epp = l2p_entries_per_page(g.page_size()) as u64;
            let ckpt_pages = l.div_ceil(epp.max(1)) + 1;
            let slot_sbs = ckpt_pages.div_ceil(pages_per_sb).max(1) as u32;
            let delta_sbs = default_delta_superblocks(g, ckpt_pages);
            let meta = RESERVED_SUPERBLOCKS + 2 * u64::from(slot_sbs) + u64::from(delta_sbs);
            let spare = (u64::from(g.blocks_per_die).saturating_sub(meta) * s).saturating_sub(l);
            // The largest W the over-provisioning suggests first, halved
            // until K and U fit, never below the small-device value.
            let mut w = if paper_write_bound {
                w_small
            } else {
                default_write_bound(spare, w_small)
            };
            loop {
                let pairs = delta_pairs_for(g, w);
                let mut cfg = ScftlConfig {
                    logical_sectors: l,
                    write_bound: w,
                    gc_bound: 1,
                    gc_threshold: 1,
                    checkpoint_slot_superblocks: slot_sbs,
                    delta_region_superblocks: delta_sbs,
                    delta_pairs_per_page: pairs,
                    gc_streams: 2,
                };
                // Hot/cold separation where the device can afford its
                // second stream, else one stream at the same size.
                for t in [2, 1] {
                    cfg.gc_streams = t;
                    if let Some(fitted) = cfg.clone().refit(g) {
                        return fitted;
                    }
                }
                if w <= w_small {
                    if l <= 1 {
                        // Degenerate geometry: return the last attempt;
                        // validate() explains what is wrong with it.
                        return cfg;
                    }
                    break;
                }
                w = (w / 2).max(w_small);
            }
            l = (l * 15 / 16).max(1);
        }
    }

    /// This configuration with K and U fitted again for its L, W, streams
    /// and regions ([`Self::fit_k_u`] with neither given), so it passes
    /// [`Self::validate`]; `None` when no pair does. Every caller that
    /// changes L, W, the streams or a region's size and wants the
    /// defaults' K and U for the result goes through here.
    pub fn refit(mut self, g: &Geometry) -> Option<ScftlConfig> {
        let (k, u) = self.fit_k_u(g, None, None)?;
        self.gc_bound = k;
        self.gc_threshold = u;
        Some(self)
    }

    /// The GC bound K and threshold U for this configuration's L, W and
    /// region sizes: `k` and `u` where given; otherwise the largest U (tried
    /// from the top down) for which the smallest K that meets constraint (3)
    /// passes [`ScftlConfig::validate`]. `None` when no pair does.
    ///
    /// The smallest K for a U is `ceil((W + pad + S - 1) / (S - N))`, which
    /// meets (1) and (3); U with N >= S can meet neither. A computed K above
    /// 2^16 is not tried: it only arises with more than 2^16 superblocks
    /// (validation bounds K by the data superblocks), where K and U are
    /// better given explicitly.
    pub fn fit_k_u(&self, g: &Geometry, k: Option<u32>, u: Option<u32>) -> Option<(u32, u32)> {
        if g.validate().is_err() {
            return None;
        }
        let s = u64::from(g.dies()) * u64::from(g.sectors_per_block());
        let pad = u64::from(g.sectors_per_page) - 1;
        let extra = slack(u64::from(self.gc_streams.max(1)), pad, s);
        let candidates = match u {
            Some(u) => u..=u,
            None => 1..=g.blocks_per_die.saturating_sub(1),
        };
        for u in candidates.rev() {
            let n = self.logical_sectors / u64::from(u.max(1));
            let k = match k {
                Some(k) => k,
                None if n < s => {
                    let k = (u64::from(self.write_bound) + extra).div_ceil(s - n);
                    if k > 1 << 16 {
                        continue;
                    }
                    k as u32
                }
                None => continue,
            };
            let trial = ScftlConfig {
                gc_bound: k,
                gc_threshold: u,
                ..self.clone()
            };
            // The arithmetic first: most candidates fail there, and
            // `validate` (which repeats it) builds a message for a failure.
            let d = trial.derived(g);
            if trial.space(g, &d).broken(&d).is_none() && trial.validate(g).is_ok() {
                return Some((k, u));
            }
        }
        None
    }

    /// Most delta pages one epoch can write on `g`: (W + K * floor(L/U))
    /// pairs over the configured pairs per page, plus the commit page. A
    /// flush takes a full checkpoint when fewer delta pages than this
    /// remain, so constraint (4) keeps the region at least twice this.
    pub fn epoch_pages_max(&self, g: &Geometry) -> u64 {
        self.derived(g).epoch_pages_max
    }

    /// Numbers derived from this configuration on `g` (no checks).
    pub(crate) fn derived(&self, g: &Geometry) -> Derived {
        let pages_per_sb = u64::from(g.dies()) * u64::from(g.pages_per_block);
        let s = pages_per_sb * u64::from(g.sectors_per_page);
        let meta = RESERVED_SUPERBLOCKS
            + 2 * u64::from(self.checkpoint_slot_superblocks)
            + u64::from(self.delta_region_superblocks);
        let data_sbs = u64::from(g.blocks_per_die).saturating_sub(meta);
        let n = self.logical_sectors / u64::from(self.gc_threshold.max(1));
        let epoch_pairs_max = u64::from(self.write_bound) + u64::from(self.gc_bound) * n;
        let ppp = u64::from(self.delta_pairs_per_page.max(1));
        let epp = (l2p_entries_per_page(g.page_size()) as u64).max(1);
        Derived {
            sectors_per_sb: s,
            pages_per_sb,
            data_sbs,
            n,
            epoch_pairs_max,
            epoch_pages_max: epoch_pairs_max / ppp + 1,
            checkpoint_pages: self.logical_sectors.div_ceil(epp) + 1,
            delta_pages: u64::from(self.delta_region_superblocks) * pages_per_sb,
        }
    }

    /// Checks this configuration against `g` for an image of the version
    /// this build writes ([`CONFIG_VERSION`]); the error names the violated constraint and
    /// shows the numbers.
    pub fn validate(&self, g: &Geometry) -> Result<()> {
        self.validate_for(g, Features::CURRENT)
    }

    /// [`Self::validate`] for an image with `features`: the OOB must hold
    /// what such an image writes per data page.
    pub fn validate_for(&self, g: &Geometry, features: Features) -> Result<()> {
        let bad = |m: String| Err(FtlError::BadConfig(m));
        if let Err(e) = g.validate() {
            return bad(format!("the geometry is invalid: {e}"));
        }
        if g.page_size() < format::MIN_PAGE_SIZE {
            return bad(format!(
                "pages of {} bytes are too small for SCFTL metadata (at least {} bytes needed)",
                g.page_size(),
                format::MIN_PAGE_SIZE
            ));
        }
        let spp = g.sectors_per_page;
        let oob_needed = if features.oob_logical_numbers {
            format::data_oob_len_v5(spp)
        } else {
            spp as usize * format::DATA_OOB_LEN
        };
        if (g.oob_size as usize) < oob_needed {
            return bad(format!(
                "the OOB area of {} bytes cannot hold the data records ({oob_needed} bytes: {} per sector for the checksum{}); give the geometry more OOB",
                g.oob_size,
                format::DATA_OOB_LEN,
                if features.oob_logical_numbers {
                    format!(
                        ", {} for the logical sector number, and the {}-byte in-page marker",
                        format::DATA_LA_LEN,
                        format::INPAGE_MARKER_LEN
                    )
                } else {
                    String::new()
                }
            ));
        }
        let l = self.logical_sectors;
        if l == 0 || l >= u64::from(UNMAPPED) {
            return bad(format!(
                "logical_sectors = {l} must be between 1 and {} (32-bit addresses)",
                UNMAPPED - 1
            ));
        }
        for (name, v) in [
            ("write_bound (W)", self.write_bound),
            ("gc_bound (K)", self.gc_bound),
            ("gc_threshold (U)", self.gc_threshold),
            (
                "checkpoint_slot_superblocks",
                self.checkpoint_slot_superblocks,
            ),
            ("delta_region_superblocks", self.delta_region_superblocks),
            ("delta_pairs_per_page", self.delta_pairs_per_page),
        ] {
            if v == 0 {
                return bad(format!("{name} must be at least 1"));
            }
        }
        if !(1..=2).contains(&self.gc_streams) || (!features.gc_streams && self.gc_streams != 1) {
            return bad(format!(
                "gc_streams = {} must be 1 or 2 (2 only from configuration version 8; this image has version {})",
                self.gc_streams, features.version
            ));
        }
        let page_pairs = pairs_per_page(g.page_size()) as u32;
        if self.delta_pairs_per_page > page_pairs {
            return bad(format!(
                "delta_pairs_per_page = {} but a {}-byte page holds at most {page_pairs} pairs",
                self.delta_pairs_per_page,
                g.page_size()
            ));
        }
        let d = self.derived(g);
        let meta = RESERVED_SUPERBLOCKS
            + 2 * u64::from(self.checkpoint_slot_superblocks)
            + u64::from(self.delta_region_superblocks);
        if d.data_sbs < 2 {
            return bad(format!(
                "the metadata regions take {meta} of the {} superblocks, leaving {} for data (at least 2 needed); shrink the checkpoint slots or the delta region",
                g.blocks_per_die, d.data_sbs
            ));
        }
        let slot_pages = u64::from(self.checkpoint_slot_superblocks) * d.pages_per_sb;
        if d.checkpoint_pages > slot_pages {
            return bad(format!(
                "a full checkpoint of {l} sectors needs {} pages but a slot of {} superblocks has {slot_pages}; enlarge checkpoint_slot_superblocks",
                d.checkpoint_pages, self.checkpoint_slot_superblocks
            ));
        }
        let map_sbs = 2 * self.checkpoint_slot_superblocks + self.delta_region_superblocks;
        if features.movable_metadata && checkpoint::commit_record_len(map_sbs) > g.page_size() {
            return bad(format!(
                "the commit record names the {map_sbs} superblocks of the metadata regions, which a {}-byte page cannot hold; shrink the checkpoint slots or the delta region",
                g.page_size()
            ));
        }
        self.check_space(g, &d)
    }

    /// Constraints (1)-(4) on the space an epoch may use (Theorem 1's
    /// preconditions); the error shows the numbers.
    fn check_space(&self, g: &Geometry, d: &Derived) -> Result<()> {
        let l = self.logical_sectors;
        let sp = self.space(g, d);
        let Some(broken) = sp.broken(d) else {
            return Ok(());
        };
        let Space {
            w,
            k,
            u,
            s,
            p,
            n,
            need,
            pad,
            t,
        } = sp;
        let nums = format!("W={w}, K={k}, U={u}, L={l}, N=floor(L/U)={n}, S={s}, P={p}, t={t}");
        Err(FtlError::BadConfig(match broken {
            1 => format!(
                "constraint (1) W + K*N <= K*S violated: {need} > {} ({nums})",
                k * s
            ),
            2 => format!(
                "constraint (2) {} violated: {u} > {} ({nums})",
                if t == 1 {
                    "U <= P - 1 - ceil((W + K*N)/S)"
                } else {
                    "U <= P - t - ceil((W + K*N + (t-1)*(sectors_per_page - 1 + S))/S) with t = 2 write streams"
                },
                (p - t).saturating_sub((need + (t - 1) * (pad + s)).div_ceil(s))
            ),
            3 => format!(
                "constraint (3) {} violated: {} > {} ({nums}); it leaves room for the flush padding and the active superblock a crash abandons{}",
                if t == 1 {
                    "W + K*N + (sectors_per_page - 1) + (S - 1) <= K*S"
                } else {
                    "W + K*N + t*(sectors_per_page - 1) + t*(S - 1) + (t-1)*S <= K*S with t = 2 write streams"
                },
                need + slack(t, pad, s),
                k * s,
                if t == 1 { "" } else { ", for each stream" }
            ),
            _ => format!(
                "constraint (4) 2 * epoch_pages_max <= delta region pages violated: an epoch may write {} delta pages and the region has {} ({nums}); enlarge delta_region_superblocks or lower W or K",
                d.epoch_pages_max, d.delta_pages
            ),
        }))
    }

    /// The configuration SCFTL runs with while `bad` data superblocks are
    /// bad: GC starts at least `bad` superblocks earlier (U' <= U - bad)
    /// and, since a lower U lets a victim hold more valid sectors (N =
    /// floor(L/U) grows), may relocate more victims per epoch (the smallest
    /// K for that U that meets (3), never below the configured one). Every
    /// constraint must hold for the P - bad superblocks left — (2) with the
    /// larger W + K*N may need U lower still, so the largest U' that works
    /// is taken — and (4), the delta region, too. `None` when no U' does:
    /// the device cannot spare that many.
    pub fn with_bad_superblocks(&self, g: &Geometry, bad: u64) -> Option<ScftlConfig> {
        if bad == 0 {
            return Some(self.clone());
        }
        let top = u64::from(self.gc_threshold).checked_sub(bad)?;
        for u in (1..=top as u32).rev() {
            let Some((k, _)) = self.fit_k_u(g, None, Some(u)) else {
                continue;
            };
            let eff = ScftlConfig {
                gc_bound: k.max(self.gc_bound),
                gc_threshold: u,
                ..self.clone()
            };
            // `validate` checks P; the superblocks left are P - bad (it
            // alone once passed, on `small` with two bad superblocks, a
            // configuration whose epochs did not fit).
            let d = eff.derived(g);
            let mut left = eff.space(g, &d);
            left.p = left.p.checked_sub(bad)?;
            if eff.validate(g).is_ok() && left.broken(&d).is_none() {
                return Some(eff);
            }
        }
        None
    }

    /// [`ScftlConfig::default_for`] with a logical size small enough (cut
    /// by sixteenths) that `spare` data superblocks may go bad
    /// ([`ScftlConfig::spare_superblocks`]); `None` if no size allows it.
    /// The defaults of the smallest presets spare none: their worst-case
    /// epochs need every data superblock.
    pub fn with_spare_superblocks(g: &Geometry, spare: u64) -> Option<ScftlConfig> {
        Self::default_for(g).sparing(g, spare)
    }

    /// This configuration with its logical size cut by sixteenths (and K,
    /// U refitted) until `spare` data superblocks may go bad; `None` if no
    /// size allows it. (The crash checker's `--spare-superblocks`, with
    /// or without a second write stream.)
    pub fn sparing(self, g: &Geometry, spare: u64) -> Option<ScftlConfig> {
        let mut cfg = self;
        while cfg.spare_superblocks(g) < spare {
            let l = cfg.logical_sectors * 15 / 16;
            if l == 0 {
                return None;
            }
            cfg.logical_sectors = l;
            cfg = cfg.refit(g)?;
        }
        Some(cfg)
    }

    /// [`ScftlConfig::default_for`] with `t` write streams (1, or 2 for
    /// hot/cold separation): the default's logical size where it affords
    /// them, else one cut by sixteenths until K and U fit; `None` if no
    /// size does. The defaults of the smallest presets (`tiny`, `small`)
    /// run one stream, so tests and the crash checker (`--hot-cold`) ask
    /// for two here.
    pub fn with_gc_streams(g: &Geometry, t: u32) -> Option<ScftlConfig> {
        let mut cfg = Self::default_for(g);
        if cfg.gc_streams == t {
            return Some(cfg);
        }
        cfg.gc_streams = t;
        loop {
            if let Some(fitted) = cfg.clone().refit(g) {
                return Some(fitted);
            }
            let l = cfg.logical_sectors * 15 / 16;
            if l == 0 {
                return None;
            }
            cfg.logical_sectors = l;
        }
    }

    /// How many data superblocks may go bad while
    /// [`ScftlConfig::with_bad_superblocks`] still finds a configuration.
    pub fn spare_superblocks(&self, g: &Geometry) -> u64 {
        let mut spare = 0;
        while self.with_bad_superblocks(g, spare + 1).is_some() {
            spare += 1;
        }
        spare
    }

    /// The numbers the space constraints compare (`d = self.derived(g)`).
    fn space(&self, g: &Geometry, d: &Derived) -> Space {
        let (w, k) = (u64::from(self.write_bound), u64::from(self.gc_bound));
        Space {
            w,
            k,
            u: u64::from(self.gc_threshold),
            s: d.sectors_per_sb,
            p: d.data_sbs,
            n: d.n,
            need: w + k * d.n,
            pad: u64::from(g.sectors_per_page) - 1,
            t: u64::from(self.gc_streams),
        }
    }

    /// Little-endian encoding stored in the label (docs/FORMAT.md §4.6).
    pub fn encode(&self) -> Vec<u8> {
        use encoding::*;
        let mut b = vec![0u8; CONFIG_LEN];
        VERSION.put_u32(&mut b, CONFIG_VERSION);
        LOGICAL_SECTORS.put_u64(&mut b, self.logical_sectors);
        WRITE_BOUND.put_u32(&mut b, self.write_bound);
        GC_BOUND.put_u32(&mut b, self.gc_bound);
        GC_THRESHOLD.put_u32(&mut b, self.gc_threshold);
        CHECKPOINT_SLOT_SUPERBLOCKS.put_u32(&mut b, self.checkpoint_slot_superblocks);
        DELTA_REGION_SUPERBLOCKS.put_u32(&mut b, self.delta_region_superblocks);
        DELTA_PAIRS_PER_PAGE.put_u32(&mut b, self.delta_pairs_per_page);
        GC_STREAMS.put_u32(&mut b, self.gc_streams);
        b
    }

    /// Inverse of [`ScftlConfig::encode`].
    pub fn decode(b: &[u8]) -> Result<ScftlConfig> {
        use encoding::*;
        if b.len() >= VERSION.end() && VERSION.get_u32(b) < features::OLDEST_READ {
            Features::of(VERSION.get_u32(b))?;
        }
        // Versions 3 to 7 differ only in what this build may add on flash
        // (links and in-page records, which it does not write into a
        // version-3 image; logical sector numbers in the data OOB, which it
        // does not write into either; OOB commit records, which it writes
        // into none of them; rotated metadata, which it never moves in
        // any of them before version 7) and in the field version 8 added
        // (`gc_streams`, 1 for all of them), so they read as the current
        // version with one stream.
        let mut b4 = b.to_vec();
        if b.len() == V7_CONFIG_LEN && matches!(VERSION.get_u32(b), 3..=7) {
            VERSION.put_u32(&mut b4, CONFIG_VERSION);
            b4.extend_from_slice(&1u32.to_le_bytes());
        }
        // Version 8 has the current layout; only its OOB runs are shorter.
        if b.len() == CONFIG_LEN && VERSION.get_u32(b) == 8 {
            VERSION.put_u32(&mut b4, CONFIG_VERSION);
        }
        let b = &b4[..];
        codec::check_versioned(
            b,
            CONFIG_LEN,
            VERSION,
            CONFIG_VERSION,
            "SCFTL configuration",
        )?;
        Ok(ScftlConfig {
            logical_sectors: LOGICAL_SECTORS.get_u64(b),
            write_bound: WRITE_BOUND.get_u32(b),
            gc_bound: GC_BOUND.get_u32(b),
            gc_threshold: GC_THRESHOLD.get_u32(b),
            checkpoint_slot_superblocks: CHECKPOINT_SLOT_SUPERBLOCKS.get_u32(b),
            delta_region_superblocks: DELTA_REGION_SUPERBLOCKS.get_u32(b),
            delta_pairs_per_page: DELTA_PAIRS_PER_PAGE.get_u32(b),
            gc_streams: GC_STREAMS.get_u32(b),
        })
    }
}

pub use super::features::CONFIG_VERSION;

/// Bytes of the configuration of versions 3 to 7 (before `gc_streams`).
const V7_CONFIG_LEN: usize = encoding::DELTA_PAIRS_PER_PAGE.end();

/// The configuration version of an encoded label configuration (0 if too
/// short to hold one).
pub fn label_version(b: &[u8]) -> u32 {
    if b.len() >= encoding::VERSION.end() {
        encoding::VERSION.get_u32(b)
    } else {
        0
    }
}
/// Bytes of the encoded [`ScftlConfig`].
pub const CONFIG_LEN: usize = encoding::GC_STREAMS.end();

field_table! {
    /// The encoding of [`super::ScftlConfig`] in the device label
    /// (docs/FORMAT.md §4.6; a test compares the table with the document).
    pub mod encoding {
        pub const VERSION: Field = Field::new("version", 0, 4);
        pub const LOGICAL_SECTORS: Field = Field::new("logical_sectors", 4, 8);
        pub const WRITE_BOUND: Field = Field::new("write_bound", 12, 4);
        pub const GC_BOUND: Field = Field::new("gc_bound", 16, 4);
        pub const GC_THRESHOLD: Field = Field::new("gc_threshold", 20, 4);
        pub const CHECKPOINT_SLOT_SUPERBLOCKS: Field = Field::new("checkpoint_slot_superblocks", 24, 4);
        pub const DELTA_REGION_SUPERBLOCKS: Field = Field::new("delta_region_superblocks", 28, 4);
        pub const DELTA_PAIRS_PER_PAGE: Field = Field::new("delta_pairs_per_page", 32, 4);
        pub const GC_STREAMS: Field = Field::new("gc_streams", 36, 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_for_every_preset_and_round_trip() {
        for name in flash::PRESET_NAMES {
            let g = Geometry::preset(name).unwrap();
            let c = ScftlConfig::default_for(&g);
            c.validate(&g).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(ScftlConfig::decode(&c.encode()).unwrap(), c);
        }
        let p = ScftlConfig::default_for(&Geometry::paper());
        assert_eq!(
            p.write_bound, 31744,
            "paper preset: 1/32 of the spare sectors"
        );
        assert_eq!(p.logical_sectors, 1 << 20, "paper preset: 4 GiB logical");
        assert_eq!(p.delta_region_superblocks, 1);
    }

    #[test]
    fn the_default_delta_region_holds_four_checkpoints_within_its_cap() {
        for (name, want) in [
            ("tiny", 1),
            ("small", 1),
            ("medium", 1),
            ("paper", 1),
            ("paper-64g", 5),
            ("paper-256g", 8),
        ] {
            let g = Geometry::preset(name).unwrap();
            for c in [ScftlConfig::default_for(&g), ScftlConfig::paper_for(&g)] {
                assert_eq!(c.delta_region_superblocks, want, "{name}");
                let d = c.derived(&g);
                let (region, ckpt) = (d.delta_pages, d.checkpoint_pages);
                // Four checkpoints fit unless the 1/32 cap stops it, and
                // one superblock less would not hold them.
                let cap = u64::from((g.blocks_per_die / 32).clamp(1, 8));
                assert!(
                    region >= DELTA_REGION_CHECKPOINTS * ckpt
                        || u64::from(c.delta_region_superblocks) == cap,
                    "{name}: {region} pages for checkpoints of {ckpt}"
                );
                assert!(
                    c.delta_region_superblocks == 1
                        || region - d.pages_per_sb < DELTA_REGION_CHECKPOINTS * ckpt,
                    "{name}: a smaller region would do"
                );
            }
        }
    }

    #[test]
    fn decode_rejects_wrong_length_and_version() {
        let c = ScftlConfig::default_for(&Geometry::tiny());
        let mut b = c.encode();
        assert!(ScftlConfig::decode(&b[..10]).is_err());
        b[0] = (CONFIG_VERSION + 1) as u8;
        assert!(matches!(ScftlConfig::decode(&b), Err(FtlError::Corrupt(_))));
        // Version 8 has the current layout (40 bytes).
        b[0] = 8;
        assert_eq!(ScftlConfig::decode(&b).unwrap(), c, "version 8 opens");
        assert_eq!(label_version(&b), 8);
        b[0] = 1;
        let e = ScftlConfig::decode(&b).unwrap_err().to_string();
        assert!(e.contains("version 1") && e.contains("re-format"), "{e}");
        b[0] = 2;
        let e = ScftlConfig::decode(&b).unwrap_err().to_string();
        assert!(e.contains("version 2") && e.contains("re-format"), "{e}");
        // Versions 3 to 7 are 36 bytes, without `gc_streams`: one stream.
        let old = &mut b[..V7_CONFIG_LEN];
        old[0] = 3;
        assert_eq!(
            ScftlConfig::decode(old).unwrap(),
            c,
            "version 3 still opens"
        );
        assert_eq!(label_version(old), 3);
        old[0] = 7;
        assert_eq!(
            ScftlConfig::decode(old).unwrap(),
            c,
            "version 7 still opens"
        );
        b[0] = 7;
        assert!(
            ScftlConfig::decode(&b).is_err(),
            "a version-7 label is 36 bytes long"
        );
    }

    #[test]
    fn two_streams_where_the_device_affords_them_and_old_labels_run_one() {
        let tiny = ScftlConfig::default_for(&Geometry::tiny());
        assert_eq!(tiny.gc_streams, 1, "tiny cannot spare a second stream");
        let g = Geometry::preset("medium").unwrap();
        let c = ScftlConfig::default_for(&g);
        assert_eq!(c.gc_streams, 2);
        // A label of version 7 (36 bytes) decodes to one stream.
        let mut one = c.clone();
        one.gc_streams = 1;
        let mut b = c.encode();
        b.truncate(V7_CONFIG_LEN);
        b[0] = 7;
        assert_eq!(ScftlConfig::decode(&b).unwrap(), one);
        one.validate_for(&g, Features::of(7).unwrap()).unwrap();
        assert!(
            c.validate_for(&g, Features::of(7).unwrap()).is_err(),
            "two streams need version 8"
        );
        // Two streams cost K and U: constraint (3) budgets the second
        // stream's padding and abandoned tail.
        let mut k1 = c.clone();
        k1.gc_streams = 1;
        let (k, u) = k1.fit_k_u(&g, None, None).unwrap();
        assert!(c.gc_bound > k && c.gc_threshold < u, "{c:?} vs K={k} U={u}");
        let mut three = c.clone();
        three.gc_streams = 3;
        assert!(three.validate(&g).is_err());
    }
}
