//! `scftl mkfs` and `scftl fsck`: make the file system (the `fs` crate) on
//! an existing image, and check one without writing to it.
//!
//! Invariants: `mkfs` never overwrites a valid file system without
//! `--force`; `fsck` opens the image read-only (recovery runs over a RAM
//! overlay), so the file is never written.

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
    /// Image to check (opened read-only; nothing is written).
    pub image: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
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
    let opened = image::open(&a.image, true)?;
    let mut dev = opened.device;
    let report = fs::fsck(dev.as_mut())
        .map_err(|e| CliError::runtime(format!("{}: cannot read: {e}", a.image.display())))?;
    let clean = report.is_clean();
    if a.json {
        let v = json!({
            "image": a.image.display().to_string(),
            "clean": clean,
            "report": report,
        });
        println!("{v}");
    } else {
        println!("{}: {report}", a.image.display());
        println!("{}", if clean { "clean" } else { "INCONSISTENT" });
    }
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
