//! `scftl upgrade IMAGE`: rewrites an SCFTL image of an older
//! configuration version as an image of the version this build writes, so
//! that support for the oldest versions can be dropped later.
//!
//! How: the old image is held under its exclusive lock (no server or mount
//! may use it meanwhile) and recovered over a RAM overlay, so nothing is
//! ever written to it. A new image is created beside it under a hidden
//! name (`.NAME.upgrade`) with the same geometry, battery-backed buffer,
//! wear model and per-block wear records (erase counts and bad blocks),
//! formatted with the same SCFTL configuration at the current version,
//! and every sector that holds anything but zeros is copied into it and
//! flushed. The copy is read back and compared with the old image sector
//! by sector; only then is it synced and renamed over IMAGE, and the
//! directory synced.
//!
//! Crash safety: until the rename, IMAGE is the old image, untouched; the
//! rename replaces the directory entry at once, so a power cut or a kill
//! at any point leaves the old image or the new, complete one (a stale
//! `.NAME.upgrade` left by a killed run is replaced by the next run).
//! Sectors of zeros are not copied: they read as zeros on the new image
//! too (unmapped), so the disk's contents are identical.

use std::path::{Path, PathBuf};

use flash::{BlockId, FileFlash, Flash, OverlayFlash, RawFlash};
use ftl::scftl::{Features, Scftl};
use ftl::{AnyFtl, BlockDevice};

use crate::error::CliError;

#[derive(clap::Args)]
pub struct UpgradeArgs {
    /// The image to upgrade in place (it must not be in use).
    pub image: PathBuf,
}

/// Sectors read (and compared) per step.
const CHUNK_SECTORS: u64 = 256;

/// What an upgrade did.
#[derive(Debug)]
pub struct Upgraded {
    pub from: u32,
    pub to: u32,
    pub added: Vec<&'static str>,
    pub copied_sectors: u64,
}

pub fn run(a: &UpgradeArgs) -> Result<(), CliError> {
    match upgrade(&a.image)? {
        None => Ok(()),
        Some(u) => {
            println!(
                "upgraded {}: SCFTL configuration version {} -> {} (adds {}); {} sectors copied and verified",
                a.image.display(),
                u.from,
                u.to,
                u.added.join(", "),
                u.copied_sectors
            );
            Ok(())
        }
    }
}

/// The hidden path the new image is built at, beside `path`.
fn staging_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "image".into());
    path.with_file_name(format!(".{name}.upgrade"))
}

/// Upgrades `path`; `None` when there is nothing to do (said on stdout).
pub fn upgrade(path: &Path) -> Result<Option<Upgraded>, CliError> {
    let err = |m: String| CliError::runtime(format!("{}: {m}", path.display()));
    if !path.is_file() {
        return Err(err("no such image file".into()));
    }
    let file = FileFlash::open(path).map_err(|e| CliError::runtime(e.to_string()))?;
    let header = file.header().clone();
    let g = header.geometry;
    let wear: Vec<_> = (0..g.total_blocks())
        .map(|b| file.block_wear(BlockId(b)))
        .collect::<Result<_, _>>()
        .map_err(|e| err(e.to_string()))?;
    let mut old = AnyFtl::open(OverlayFlash::new(file)).map_err(|e| err(e.to_string()))?;
    let AnyFtl::Scftl(scftl) = &old else {
        println!(
            "{}: a {} image; only SCFTL images have older configuration versions; nothing to do",
            path.display(),
            old.kind()
        );
        return Ok(None);
    };
    let features = scftl.features();
    if features.is_current() {
        println!(
            "{}: SCFTL configuration version {} is the current one; nothing to do",
            path.display(),
            features.version
        );
        return Ok(None);
    }
    let config = scftl.config().clone();
    config.validate(&g).map_err(|e| {
        err(format!(
            "its configuration does not fit configuration version {}: {e}; the image is unchanged",
            Features::CURRENT.version
        ))
    })?;
    let staging = staging_path(path);
    let built = (|| -> Result<u64, String> {
        let mut new = FileFlash::create_with_wear(
            &staging,
            g,
            header.layout.nvram_size as usize,
            header.wear,
            true,
        )
        .map_err(|e| e.to_string())?;
        for (b, w) in wear.iter().enumerate() {
            new.set_block_wear(BlockId(b as u32), *w)
                .map_err(|e| e.to_string())?;
        }
        let mut dev = Scftl::format(new, config.clone()).map_err(|e| e.to_string())?;
        let copied = copy_sectors(&mut old, &mut dev)?;
        dev.flush().map_err(|e| e.to_string())?;
        drop(dev.into_flash());
        // Read the new image back as a fresh process would, and compare.
        let mut check = AnyFtl::open(OverlayFlash::new(
            FileFlash::open_read_only(&staging).map_err(|e| e.to_string())?,
        ))
        .map_err(|e| e.to_string())?;
        compare(&mut old, &mut check)?;
        std::fs::File::open(&staging)
            .and_then(|f| f.sync_all())
            .map_err(|e| e.to_string())?;
        Ok(copied)
    })();
    let copied = match built {
        Ok(n) => n,
        Err(m) => {
            let _ = std::fs::remove_file(&staging);
            return Err(err(format!(
                "the upgraded copy could not be built: {m}; the image is unchanged"
            )));
        }
    };
    std::fs::rename(&staging, path).map_err(|e| {
        let _ = std::fs::remove_file(&staging);
        err(format!(
            "cannot replace it with its upgraded copy: {e}; the image is unchanged"
        ))
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| {
            err(format!(
                "upgraded, but syncing {} failed: {e}",
                dir.display()
            ))
        })?;
    drop(old);
    Ok(Some(Upgraded {
        from: features.version,
        to: Features::CURRENT.version,
        added: features.missing(),
        copied_sectors: copied,
    }))
}

/// Copies every sector of `from` that holds anything but zeros into `to`
/// (epoch-aware: barriers where a run would overfill an epoch); returns
/// how many.
fn copy_sectors(from: &mut dyn BlockDevice, to: &mut dyn BlockDevice) -> Result<u64, String> {
    let ss = from.sector_size();
    let n = from.num_sectors();
    if to.num_sectors() != n || to.sector_size() != ss {
        return Err("the new image has another size".into());
    }
    let mut buf = vec![0u8; CHUNK_SECTORS as usize * ss];
    let mut copied = 0u64;
    let mut lba = 0u64;
    while lba < n {
        let k = CHUNK_SECTORS.min(n - lba);
        let chunk = &mut buf[..k as usize * ss];
        from.read(ftl::Lba(lba), chunk).map_err(|e| e.to_string())?;
        let mut i = 0u64;
        while i < k {
            let nonzero = |j: u64| {
                chunk[j as usize * ss..(j as usize + 1) * ss]
                    .iter()
                    .any(|&b| b != 0)
            };
            if !nonzero(i) {
                i += 1;
                continue;
            }
            let start = i;
            while i < k && nonzero(i) {
                i += 1;
            }
            let run = &chunk[start as usize * ss..i as usize * ss];
            nbd::ops::write_sectors(to, lba + start, run).map_err(|e| e.to_string())?;
            copied += i - start;
        }
        lba += k;
    }
    Ok(copied)
}

/// Fails at the first sector where `a` and `b` differ.
fn compare(a: &mut dyn BlockDevice, b: &mut dyn BlockDevice) -> Result<(), String> {
    let ss = a.sector_size();
    let n = a.num_sectors();
    let mut x = vec![0u8; CHUNK_SECTORS as usize * ss];
    let mut y = x.clone();
    let mut lba = 0u64;
    while lba < n {
        let k = CHUNK_SECTORS.min(n - lba) as usize;
        a.read(ftl::Lba(lba), &mut x[..k * ss])
            .map_err(|e| e.to_string())?;
        b.read(ftl::Lba(lba), &mut y[..k * ss])
            .map_err(|e| e.to_string())?;
        if let Some(i) = (0..k).find(|&i| x[i * ss..(i + 1) * ss] != y[i * ss..(i + 1) * ss]) {
            return Err(format!(
                "sector {} reads differently on the copy",
                lba + i as u64
            ));
        }
        lba += k as u64;
    }
    Ok(())
}
