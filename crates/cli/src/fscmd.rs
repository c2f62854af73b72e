//! `scftl mkfs` and `scftl fsck`: make the file system (the `fs` crate) on
//! an existing image, check one without writing to it, or repair one.
//!
//! Invariants: `mkfs` never overwrites a valid file system without
//! `--force`; `fsck` without `--repair` opens the image read-only (recovery
//! runs over a RAM overlay), so the file is never written; `--repair`
//! writes only through the FTL (its writes and flushes), under the image's
//! exclusive lock (so never under a running mount), and refuses a file it
//! may not write.

use std::path::PathBuf;

use ftl::{BlockDevice, Lba};
use serde_json::json;

use crate::error::CliError;
use crate::image;
use crate::size::human;

#[derive(clap::Args)]
pub struct MkfsArgs {
    /// Image to make the file system on (created by `scftl format`, any FTL).
    pub image: PathBuf,
    /// Replace an existing file system (its contents are lost).
    #[arg(long)]
    pub force: bool,
    /// Number of inodes (default: one per 16 KiB of the disk).
    #[arg(long)]
    pub inodes: Option<u32>,
}

#[derive(clap::Args)]
pub struct FsckArgs {
    /// Image to check (opened read-only; nothing is written without
    /// --repair).
    pub image: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Fix what has one safe fix: replay a committed log step, remove
    /// entries naming free inodes, free inodes no entry reaches, correct
    /// link counts, rebuild both bitmaps. Prints every change; a clean
    /// image is not written.
    #[arg(long)]
    pub repair: bool,
}

/// Whether block 0 of `dev` holds a valid superblock.
fn has_file_system(dev: &mut dyn BlockDevice) -> bool {
    let ss = dev.sector_size();
    if ss == 0
        || !fs::BLOCK_SIZE.is_multiple_of(ss)
        || dev.num_sectors() < (fs::BLOCK_SIZE / ss) as u64
    {
        return false;
    }
    let mut b0 = vec![0u8; fs::BLOCK_SIZE];
    dev.read(Lba(0), &mut b0).is_ok() && fs::Superblock::decode(&b0).is_ok()
}

pub fn run_mkfs(a: &MkfsArgs) -> Result<(), CliError> {
    let opened = image::open(&a.image, false)?;
    let mut dev = opened.device;
    if has_file_system(dev.as_mut()) && !a.force {
        return Err(CliError::usage(format!(
            "{} already holds a file system; pass --force to replace it (its contents are lost)",
            a.image.display()
        )));
    }
    let opts = fs::MkfsOptions {
        inodes: a.inodes,
        ..fs::MkfsOptions::default()
    };
    let sb = fs::mkfs(dev.as_mut(), &opts)
        .map_err(|e| CliError::runtime(format!("{}: mkfs failed: {e}", a.image.display())))?;
    dev.flush().map_err(|e| {
        CliError::runtime(format!("{}: final flush failed: {e}", a.image.display()))
    })?;
    println!(
        "made a file system on {}: {} in {} blocks of 4 KiB, {} inodes, {}-block log ({} FTL: {})",
        a.image.display(),
        human(u64::from(sb.total_blocks) * fs::BLOCK_SIZE as u64),
        sb.total_blocks,
        sb.inode_count,
        sb.log_blocks,
        opened.summary.kind,
        if fs::CommitMode::Group.allowed_on(Some(opened.summary.kind)) {
            "mount with --mode log, xlog or group"
        } else {
            "mount with --mode log; xlog and group need the scftl FTL"
        }
    );
    Ok(())
}

pub fn run_fsck(a: &FsckArgs) -> Result<(), CliError> {
    if a.repair {
        return run_repair(a);
    }
    let opened = image::open(&a.image, true)?;
    let mut dev = opened.device;
    let report = fs::fsck(dev.as_mut())
        .map_err(|e| CliError::runtime(format!("{}: cannot read: {e}", a.image.display())))?;
    print_report(a, &report, None);
    verdict(a, &report)
}

fn print_report(a: &FsckArgs, report: &fs::FsckReport, changes: Option<&[String]>) {
    let clean = report.is_clean();
    if a.json {
        let mut v = json!({
            "image": a.image.display().to_string(),
            "clean": clean,
            "report": report,
        });
        if let Some(c) = changes {
            v["repaired"] = json!(c);
        }
        println!("{v}");
    } else {
        if let Some(c) = changes {
            if c.is_empty() {
                println!("{}: nothing to repair", a.image.display());
            }
            for line in c {
                println!("{}: repaired: {line}", a.image.display());
            }
        }
        println!("{}: {report}", a.image.display());
        println!("{}", if clean { "clean" } else { "INCONSISTENT" });
    }
}

/// `fsck --repair`: the image opened for writing (and locked), repaired
/// through the FTL, and checked again.
fn run_repair(a: &FsckArgs) -> Result<(), CliError> {
    // Root may write a file without write permission; a read-only image
    // is still one the user asked not to be changed.
    if let Ok(m) = std::fs::metadata(&a.image) {
        if m.permissions().readonly() {
            return Err(CliError::usage(format!(
                "{} is read-only; --repair writes to the image (make it writable, or drop --repair to only check)",
                a.image.display()
            )));
        }
    }
    // A dry run first, over the read-only open's RAM overlay: a clean image
    // is then not opened for writing at all, so it stays byte-identical
    // (opening an image for writing starts a new SCFTL generation,
    // docs/FORMAT.md §4.3 "Opening an image").
    let dry = {
        let opened = image::open(&a.image, true)?;
        let mut dev = opened.device;
        fs::repair(dev.as_mut())
            .map_err(|e| CliError::runtime(format!("{}: cannot repair: {e}", a.image.display())))?
    };
    if dry.changes.is_empty() {
        print_report(a, &dry.after, Some(&dry.changes));
        return verdict(a, &dry.after);
    }
    let opened = image::open(&a.image, false)?;
    let mut dev = opened.device;
    let rep = fs::repair(dev.as_mut())
        .map_err(|e| CliError::runtime(format!("{}: cannot repair: {e}", a.image.display())))?;
    print_report(a, &rep.after, Some(&rep.changes));
    verdict(a, &rep.after)
}

/// Exit status: 0 when clean, 1 (with the problem count) otherwise.
fn verdict(a: &FsckArgs, report: &fs::FsckReport) -> Result<(), CliError> {
    let clean = report.is_clean();
    if clean {
        Ok(())
    } else {
        Err(CliError::runtime(format!(
            "{}: the file system is inconsistent ({} problems)",
            a.image.display(),
            report.problems.len() as u64 + report.problems_not_listed
        )))
    }
}
