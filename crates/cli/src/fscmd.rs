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
    /// Make the file system even though the image holds data (another
    /// file system, a partition table, any non-zero sector) or a file
    /// system of ours: what it held is lost.
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
    /// Also read every sector and report those that cannot be read back,
    /// by the file each belongs to (as `scftl scrub` does).
    #[arg(long, conflicts_with = "repair")]
    pub scrub: bool,
    /// Upgrade a version-1 or -2 file system to version 3 in place, after
    /// a clean check (version 2: files to about 4 TiB, where version 1
    /// stops near 4 GiB; version 3: extended attributes, POSIX ACLs and
    /// times past 2262); a version-3 one is not written. Older builds
    /// cannot mount the upgraded image.
    #[arg(long, conflicts_with_all = ["repair", "scrub"])]
    pub upgrade: bool,
}

/// Whether block 0 of `dev` holds a valid superblock.
pub(crate) fn has_file_system(dev: &mut dyn BlockDevice) -> bool {
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

/// What an image's logical space holds, as far as `mkfs` needs to know
/// before it overwrites it.
#[derive(Default)]
struct Survey {
    /// Sectors that are not all zeros (trimmed sectors read as zeros).
    nonzero: u64,
    first_nonzero: Option<u64>,
    /// Recognized formats, e.g. "an ext4 file system".
    found: Vec<&'static str>,
    /// Sectors that could not be read.
    unreadable: u64,
}

/// Reads the whole logical space of `dev` (see [`Survey`]).
fn survey(dev: &mut dyn BlockDevice) -> Survey {
    let ss = dev.sector_size();
    let mut s = Survey::default();
    if has_file_system(dev) {
        s.found.push("a file system of ours (scftl mkfs)");
    }
    let mut first = Vec::new();
    let bad = crate::scrub::read_all(dev, |lba, bytes| {
        if lba == 0 && first.is_empty() {
            first = bytes[..bytes.len().min(4096)].to_vec();
        }
        for (i, sector) in bytes.chunks(ss).enumerate() {
            if sector.iter().any(|&b| b != 0) {
                s.nonzero += 1;
                s.first_nonzero.get_or_insert(lba + i as u64);
            }
        }
    });
    s.unreadable = bad.len() as u64;
    s.found.extend(signatures(&first));
    s
}

/// Formats recognized by their signatures in the first 4 KiB.
fn signatures(b: &[u8]) -> Vec<&'static str> {
    let mut found = Vec::new();
    let at = |off: usize, sig: &[u8]| b.get(off..off + sig.len()) == Some(sig);
    // ext2/3/4: the superblock at byte 1024, magic 0xEF53 at offset 56.
    if at(1080, &[0x53, 0xEF]) {
        found.push("an ext2/3/4 file system (superblock magic at byte 1080)");
    }
    if at(512, b"EFI PART") {
        found.push("a GPT partition table");
    } else if at(510, &[0x55, 0xAA]) {
        found.push("an MBR partition table or boot sector");
    }
    if at(0, b"XFSB") {
        found.push("an XFS file system");
    }
    found
}

pub fn run_mkfs(a: &MkfsArgs) -> Result<(), CliError> {
    if !a.force {
        // Surveyed through a read-only open: a refused mkfs must leave the
        // image byte for byte as it was (a read-write open starts a new
        // SCFTL generation, docs/FORMAT.md §4.3).
        let mut dev = image::open(&a.image, true)?.device;
        let s = survey(dev.as_mut());
        if s.nonzero > 0 || s.unreadable > 0 || !s.found.is_empty() {
            let mut what = s.found.clone().join(", ");
            if s.nonzero > 0 {
                if !what.is_empty() {
                    what.push_str("; ");
                }
                what.push_str(&format!(
                    "{} non-zero sectors (the first at sector {})",
                    s.nonzero,
                    s.first_nonzero.unwrap_or(0)
                ));
            }
            if s.unreadable > 0 {
                what.push_str(&format!("; {} unreadable sectors", s.unreadable));
            }
            return Err(CliError::usage(format!(
                "{} holds data: {what}; pass --force to make the file system anyway (what it \
                 holds is lost)",
                a.image.display()
            )));
        }
    }
    let opened = image::open(&a.image, false)?;
    let mut dev = opened.device;
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
    if a.upgrade {
        return run_upgrade(a);
    }
    let report = check_view(a)?;
    let scrubbed = if a.scrub {
        Some(crate::scrub::scrub(&a.image)?)
    } else {
        None
    };
    print_report(a, &report, None, scrubbed.as_ref());
    verdict(a, &report)?;
    scrubbed.as_ref().map_or(Ok(()), crate::scrub::verdict)
}

/// The check of a read-only view. A live view (the image is mounted or
/// served) that looks inconsistent is checked again on fresh views, since
/// it may have caught the writer mid-command; the last report is kept.
fn check_view(a: &FsckArgs) -> Result<fs::FsckReport, CliError> {
    let mut tries = 0;
    loop {
        tries += 1;
        let opened = image::open_report_view(&a.image)?;
        let live = opened.live;
        let mut dev = opened.device;
        let report = fs::fsck(dev.as_mut())
            .map_err(|e| CliError::runtime(format!("{}: cannot read: {e}", a.image.display())))?;
        if report.is_clean() || !live || tries >= 3 {
            return Ok(report);
        }
    }
}

fn print_report(
    a: &FsckArgs,
    report: &fs::FsckReport,
    changes: Option<&[String]>,
    scrubbed: Option<&crate::scrub::ScrubReport>,
) {
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
        if let Some(s) = scrubbed {
            v["scrub"] = s.to_json();
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
        println!(
            "{}",
            if clean {
                "clean"
            } else if report.no_file_system {
                "NO FILE SYSTEM"
            } else {
                "INCONSISTENT"
            }
        );
        for line in scrubbed.map(|s| s.lines()).unwrap_or_default() {
            println!("{line}");
        }
    }
}

/// `fsck --repair`: the image opened for writing (and locked), repaired
/// through the FTL, and checked again.
fn run_repair(a: &FsckArgs) -> Result<(), CliError> {
    refuse_read_only(a, "--repair")?;
    // A dry run first, over the read-only open's RAM overlay: a clean image
    // is then not opened for writing at all, so it stays byte-identical
    // (opening an image for writing starts a new SCFTL generation,
    // docs/FORMAT.md §4.3 "Opening an image").
    let dry = {
        let opened = image::open(&a.image, true)?;
        let mut dev = opened.device;
        fs::repair(dev.as_mut()).map_err(|e| repair_error(a, e))?
    };
    if dry.changes.is_empty() {
        print_report(a, &dry.after, Some(&dry.changes), None);
        return verdict(a, &dry.after);
    }
    let opened = image::open(&a.image, false)?;
    let mut dev = opened.device;
    let rep = fs::repair(dev.as_mut()).map_err(|e| repair_error(a, e))?;
    print_report(a, &rep.after, Some(&rep.changes), None);
    verdict(a, &rep.after)
}

/// A refused or failed repair, with the command to run where there is no
/// file system to repair.
fn repair_error(a: &FsckArgs, e: fs::FsError) -> CliError {
    let hint = match e {
        fs::FsError::NotFormatted(_) => format!(" (make one with `scftl mkfs {}`)", a.image.display()),
        _ => String::new(),
    };
    CliError::runtime(format!("{}: cannot repair: {e}{hint}", a.image.display()))
}

/// Refuses an image the user made read-only: `what` writes to it.
fn refuse_read_only(a: &FsckArgs, what: &str) -> Result<(), CliError> {
    // Root may write a file without write permission; a read-only image
    // is still one the user asked not to be changed.
    match std::fs::metadata(&a.image) {
        Ok(m) if m.permissions().readonly() => Err(CliError::usage(format!(
            "{} is read-only; {what} writes to the image (make it writable, or drop {what} to only check)",
            a.image.display()
        ))),
        _ => Ok(()),
    }
}

/// `fsck --upgrade`: a clean version-1 or -2 file system becomes the
/// current version (`fs::Fs::upgrade`, crash-safe); a current one is only
/// checked.
fn run_upgrade(a: &FsckArgs) -> Result<(), CliError> {
    refuse_read_only(a, "--upgrade")?;
    let version = {
        let opened = image::open(&a.image, true)?;
        let mut dev = opened.device;
        let ss = dev.sector_size();
        let mut b = vec![0u8; fs::BLOCK_SIZE];
        dev.read(ftl::Lba(0), &mut b[..fs::BLOCK_SIZE / ss * ss])
            .map_err(|e| CliError::runtime(format!("{}: cannot read: {e}", a.image.display())))?;
        fs::Superblock::decode(&b)
            .map_err(|e| CliError::runtime(format!("{}: {e}", a.image.display())))?
            .version
    };
    let report = check_view(a)?;
    if !report.is_clean() {
        print_report(a, &report, None, None);
        return Err(CliError::runtime(format!(
            "{}: not upgraded: the file system is inconsistent; run `scftl fsck --repair` first",
            a.image.display()
        )));
    }
    if version >= fs::FS_VERSION {
        if !a.json {
            println!(
                "{}: the file system is already format version {version}; nothing to upgrade",
                a.image.display()
            );
        }
        print_report(a, &report, None, None);
        return verdict(a, &report);
    }
    let opened = image::open(&a.image, false)?;
    let err =
        |e: fs::FsError| CliError::runtime(format!("{}: cannot upgrade: {e}", a.image.display()));
    let mut f = fs::Fs::mount(opened.device, fs::MountOptions::new(fs::CommitMode::Log))
        .map_err(|e| err(e.error))?;
    f.upgrade().map_err(err)?;
    let mut dev = f.unmount().map_err(|e| err(e.error))?;
    let after = fs::fsck(dev.as_mut()).map_err(err)?;
    if !a.json {
        println!(
            "{}: upgraded the file system from format version {version} to {}",
            a.image.display(),
            fs::FS_VERSION
        );
    }
    print_report(a, &after, None, None);
    verdict(a, &after)
}

/// Exit status: 0 when clean, 1 (with the problem count) otherwise.
fn verdict(a: &FsckArgs, report: &fs::FsckReport) -> Result<(), CliError> {
    let n = report.problem_count();
    if report.is_clean() {
        Ok(())
    } else if report.no_file_system {
        // Nothing to check rather than something broken: say what to run
        // (an image that holds another file system, ext4 over NBD for
        // example, is checked by that file system's own tool).
        Err(CliError::runtime(format!(
            "{0}: holds no scftl file system (block 0 has no superblock); make one with `scftl mkfs {0}`, or, if it holds another file system (ext4 written over NBD, say), check it with that file system's own tool",
            a.image.display()
        )))
    } else {
        Err(CliError::runtime(format!(
            "{}: the file system is inconsistent ({n} problem{})",
            a.image.display(),
            if n == 1 { "" } else { "s" }
        )))
    }
}
