//! `scftl scrub` (and `fsck --scrub`): read every logical sector of an
//! image through its FTL and report the ones that cannot be read back
//! (a CRC that does not match, an unreadable page), by logical address
//! and, when the image holds our file system, by what the sector belongs
//! to (a file's path, or a metadata region).
//!
//! Invariants: the image is opened read-only (recovery over a RAM
//! overlay; nothing is written); a served or mounted image is read through
//! a live view, and a sector is reported damaged only when a second,
//! fresh view fails to read it too (the first may have caught the writer
//! mid-command); the exit status is 1 exactly when damage is reported.
//!
//! [`read_all`] is also how `mkfs` surveys what an image holds.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ftl::{BlockDevice, Lba};
use serde_json::{json, Value};

use crate::error::CliError;
use crate::image;

#[derive(clap::Args)]
pub struct ScrubArgs {
    /// Image to scrub (opened read-only; a served or mounted image is read
    /// through a live view without stopping its server).
    pub image: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Sectors read per request while nothing fails.
const CHUNK_SECTORS: u64 = 256;

/// One sector that could not be read.
#[derive(Clone, Debug)]
pub struct Damage {
    pub lba: u64,
    pub error: String,
    /// What the sector belongs to, on an image holding our file system.
    pub holds: Option<String>,
}

/// What a scrub found.
#[derive(Clone, Debug)]
pub struct ScrubReport {
    pub image: PathBuf,
    pub sector_size: usize,
    pub sectors: u64,
    /// Sectors the FTL maps (the rest read as zeros without a flash read).
    pub mapped: u64,
    pub damaged: Vec<Damage>,
    pub live: bool,
    pub seconds: f64,
}

impl ScrubReport {
    pub fn to_json(&self) -> Value {
        let ss = self.sector_size as u64;
        json!({
            "image": self.image.display().to_string(),
            "clean": self.damaged.is_empty(),
            "live_view": self.live,
            "sector_size": self.sector_size,
            "sectors": self.sectors,
            "mapped_sectors": self.mapped,
            "seconds": self.seconds,
            "damaged": self.damaged.iter().map(|d| json!({
                "sector": d.lba,
                "byte_offset": d.lba * ss,
                "error": d.error,
                "holds": d.holds,
            })).collect::<Vec<_>>(),
        })
    }

    /// The text report, one line per damaged sector, then a summary line.
    pub fn lines(&self) -> Vec<String> {
        let ss = self.sector_size as u64;
        let mut out: Vec<String> = self
            .damaged
            .iter()
            .map(|d| {
                let holds = d
                    .holds
                    .as_deref()
                    .map_or(String::new(), |h| format!(" in {h}"));
                format!(
                    "{}: DAMAGED sector {} (bytes {}..{}){holds}: {}",
                    self.image.display(),
                    d.lba,
                    d.lba * ss,
                    (d.lba + 1) * ss,
                    d.error
                )
            })
            .collect();
        out.push(format!(
            "{}: scrubbed {} sectors ({} mapped) in {:.2} s{}: {}",
            self.image.display(),
            self.sectors,
            self.mapped,
            self.seconds,
            if self.live { ", live view" } else { "" },
            if self.damaged.is_empty() {
                "no damage".to_string()
            } else {
                format!("{} damaged", self.damaged.len())
            }
        ));
        out
    }
}

/// Reads every sector of `dev` in order, handing each readable run to
/// `visit(first_lba, bytes)`; returns the sectors that could not be read,
/// with the error (a failed run is read again sector by sector).
pub fn read_all(
    dev: &mut dyn BlockDevice,
    mut visit: impl FnMut(u64, &[u8]),
) -> Vec<(u64, String)> {
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    let mut buf = vec![0u8; CHUNK_SECTORS as usize * ss];
    let mut bad = Vec::new();
    let mut at = 0;
    while at < n {
        let k = CHUNK_SECTORS.min(n - at);
        let run = &mut buf[..k as usize * ss];
        if dev.read(Lba(at), run).is_ok() {
            visit(at, run);
        } else {
            for i in 0..k {
                let one = &mut buf[..ss];
                match dev.read(Lba(at + i), one) {
                    Ok(()) => visit(at + i, one),
                    Err(e) => bad.push((at + i, e.to_string())),
                }
            }
        }
        at += k;
    }
    bad
}

/// Scrubs the image at `path` (see the module comment).
pub fn scrub(path: &Path) -> Result<ScrubReport, CliError> {
    let t0 = Instant::now();
    let opened = image::open_report_view(path)?;
    let live = opened.live;
    let mut dev = opened.device;
    let mapped = dev.stats().valid_sectors;
    let mut bad = read_all(dev.as_mut(), |_, _| {});
    if live && !bad.is_empty() {
        // Confirm on a fresh view: keep what fails there too.
        let again = image::open_report_view(path)?;
        dev = again.device;
        bad.retain(|(lba, _)| {
            let mut one = vec![0u8; dev.sector_size()];
            dev.read(Lba(*lba), &mut one).is_err()
        });
    }
    let holds = describe(dev.as_mut(), &bad);
    let damaged = bad
        .into_iter()
        .zip(holds)
        .map(|((lba, error), holds)| Damage { lba, error, holds })
        .collect();
    Ok(ScrubReport {
        image: path.to_path_buf(),
        sector_size: dev.sector_size(),
        sectors: dev.num_sectors(),
        mapped,
        damaged,
        live,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// What each damaged sector belongs to, when `dev` holds our file system.
fn describe(dev: &mut dyn BlockDevice, bad: &[(u64, String)]) -> Vec<Option<String>> {
    let ss = dev.sector_size() as u64;
    if bad.is_empty() || !crate::fscmd::has_file_system(dev) {
        return vec![None; bad.len()];
    }
    let spb = fs::BLOCK_SIZE as u64 / ss;
    let blocks: Vec<u32> = bad
        .iter()
        .map(|(lba, _)| u32::try_from(lba / spb).unwrap_or(u32::MAX))
        .collect();
    match fs::describe_blocks(dev, &blocks) {
        Ok(d) => d.into_iter().map(Some).collect(),
        Err(e) => vec![Some(format!("the file system (cannot tell where: {e})")); bad.len()],
    }
}

/// `scftl scrub`: exit 1 when a sector is damaged.
pub fn run(a: &ScrubArgs) -> Result<(), CliError> {
    let rep = scrub(&a.image)?;
    if a.json {
        println!("{:#}", rep.to_json());
    } else {
        for line in rep.lines() {
            println!("{line}");
        }
    }
    verdict(&rep)
}

/// Exit status of a scrub: 0 when nothing is damaged.
pub fn verdict(rep: &ScrubReport) -> Result<(), CliError> {
    if rep.damaged.is_empty() {
        return Ok(());
    }
    Err(CliError::runtime(format!(
        "{}: {} damaged sectors: their data cannot be read back (rewrite them from a copy; \
         reads of them fail with EIO)",
        rep.image.display(),
        rep.damaged.len()
    )))
}
