//! `fsck`: a read-only structural check of a file-system image.
//!
//! It checks, and lists every violation of: the superblock (magic, version,
//! CRC, regions); the log header (a committed step is applied *virtually*,
//! as mount would replay it, and the result is checked); every allocated
//! inode decodes (CRC, kind); every block pointer lies in the data region and
//! every block is referenced at most once; the block bitmap equals the
//! metadata regions plus the reachable blocks; the inode bitmap agrees with
//! the directory tree; directories are well formed (record chains, names,
//! entry types, no duplicate names, `..` = the `parent` field, no hard
//! links to directories, every directory reachable from the root);
//! link counts equal directory references (+ subdirectories for
//! directories); sizes agree with the mapped blocks.
//!
//! Allocated inodes with no links and no entries are *orphans*: legitimate
//! after a crash (or while open and unlinked) and freed by the next mount;
//! they are listed but are not problems.
//!
//! fsck never writes: it reads through a wrapper whose write, trim and flush
//! fail. Fixing is [`repair`]'s job (`repair.rs`), which starts from this
//! report.

mod check;
mod repair;
mod report;

use std::collections::HashMap;

use ftl::{BlockDevice, DeviceStats, FtlError, Lba};

use crate::error::Result;
use crate::layout::{Superblock, BLOCK_SIZE};
use crate::logfmt::LogHeader;
use crate::mode::CommitMode;
use crate::store::{Budget, Store};

pub use repair::{repair, RepairReport};
pub use report::{FsckCounts, FsckReport, Problem, ProblemKind};

/// A device view that reads through a set of replacement blocks (the
/// pending log step) and refuses every change.
struct ReadOnly<'a, D: ?Sized> {
    dev: &'a mut D,
    spb: u64,
    overlay: HashMap<u64, Vec<u8>>,
}

impl<D: BlockDevice + ?Sized> BlockDevice for ReadOnly<'_, D> {
    fn sector_size(&self) -> usize {
        self.dev.sector_size()
    }
    fn num_sectors(&self) -> u64 {
        self.dev.num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> ftl::Result<()> {
        self.dev.read(lba, buf)?;
        if !self.overlay.is_empty() {
            let ss = self.dev.sector_size() as u64;
            let n = buf.len() as u64 / ss;
            for s in lba.0..lba.0 + n {
                if let Some(img) = self.overlay.get(&(s / self.spb)) {
                    let at = ((s % self.spb) * ss) as usize;
                    let to = ((s - lba.0) * ss) as usize;
                    buf[to..to + ss as usize].copy_from_slice(&img[at..at + ss as usize]);
                }
            }
        }
        Ok(())
    }
    fn write(&mut self, _: Lba, _: &[u8]) -> ftl::Result<()> {
        Err(FtlError::BadArgument("fsck never writes".into()))
    }
    fn trim(&mut self, _: Lba, _: u64) -> ftl::Result<()> {
        Err(FtlError::BadArgument("fsck never writes".into()))
    }
    fn flush(&mut self) -> ftl::Result<()> {
        Err(FtlError::BadArgument("fsck never writes".into()))
    }
    fn epoch_remaining(&self) -> Option<u64> {
        None
    }
    fn stats(&self) -> DeviceStats {
        self.dev.stats()
    }
    fn check_invariants(&mut self) -> std::result::Result<(), String> {
        Ok(())
    }
}

/// Checks the file system on `dev` without changing it. Errors only when
/// the device cannot be read; everything wrong with the image is in the
/// report.
pub fn fsck<D: BlockDevice + ?Sized>(dev: &mut D) -> Result<FsckReport> {
    Ok(walk(dev)?.0)
}

/// What one block of the file system holds, for a report of damage: a
/// region of metadata, a file's data or map block (by path), or nothing.
pub fn describe_blocks<D: BlockDevice + ?Sized>(
    dev: &mut D,
    blocks: &[u32],
) -> Result<Vec<String>> {
    let (_, found) = walk(dev)?;
    let Some((sb, w)) = found else {
        return Ok(blocks
            .iter()
            .map(|_| "unknown (no readable superblock)".to_string())
            .collect());
    };
    Ok(blocks.iter().map(|&b| describe_block(&sb, &w, b)).collect())
}

fn describe_block(sb: &Superblock, w: &check::Walk, b: u32) -> String {
    let within = |start: u32, n: u32| (start..start + n).contains(&b);
    if b == 0 {
        return "the superblock".into();
    }
    if within(sb.log_start, sb.log_blocks) {
        return "the log".into();
    }
    if within(sb.inode_bitmap_start, sb.inode_bitmap_blocks) {
        return "the inode bitmap".into();
    }
    if within(sb.block_bitmap_start, sb.block_bitmap_blocks) {
        return "the block bitmap".into();
    }
    if within(sb.inode_table_start, sb.inode_table_blocks) {
        let per = crate::layout::INODES_PER_BLOCK;
        let first = (b - sb.inode_table_start) * per;
        return format!("the inode table (inodes {first} to {})", first + per - 1);
    }
    match w.owner.get(b as usize).copied().unwrap_or(0) {
        0 => "a free block".into(),
        ino => match path_of(w, ino) {
            Some(p) => p,
            None => format!("inode {ino} (no name reaches it from the root)"),
        },
    }
}

/// The path of inode `ino` from the root, by the first entry naming each
/// inode on the way; `None` when no chain of names reaches the root.
fn path_of(w: &check::Walk, ino: u32) -> Option<String> {
    let mut parts = Vec::new();
    let mut at = ino;
    while at != crate::layout::ROOT_INO {
        let (parent, name) = w.names.get(&at)?;
        parts.push(String::from_utf8_lossy(name).into_owned());
        at = *parent;
        if parts.len() > 4096 {
            return None;
        }
    }
    parts.reverse();
    Some(format!("/{}", parts.join("/")))
}

/// The check, and (when the superblock could be read) what its walk
/// learned.
fn walk<D: BlockDevice + ?Sized>(
    dev: &mut D,
) -> Result<(FsckReport, Option<(Superblock, check::Walk)>)> {
    let mut rep = FsckReport::default();
    let ss = dev.sector_size();
    if ss == 0
        || ss > BLOCK_SIZE
        || BLOCK_SIZE % ss != 0
        || dev.num_sectors() < (BLOCK_SIZE / ss) as u64
    {
        rep.add(
            ProblemKind::Superblock,
            None,
            None,
            format!("sector size {ss} or device size unsupported"),
        );
        return Ok((rep, None));
    }
    let spb = BLOCK_SIZE / ss;
    let mut b0 = vec![0u8; BLOCK_SIZE];
    dev.read(Lba(0), &mut b0)?;
    let sb = match Superblock::decode(&b0) {
        Ok(sb) => sb,
        Err(e) => {
            rep.no_file_system = matches!(e, crate::FsError::NotFormatted(_));
            rep.add(ProblemKind::Superblock, None, Some(0), e.to_string());
            return Ok((rep, None));
        }
    };
    if u64::from(sb.total_blocks) * spb as u64 > dev.num_sectors() {
        rep.add(
            ProblemKind::Superblock,
            None,
            Some(0),
            "the file system is larger than the device".into(),
        );
        return Ok((rep, None));
    }
    let mut ro = ReadOnly {
        dev,
        spb: spb as u64,
        overlay: HashMap::new(),
    };
    // A committed log step: check the image as mount will leave it.
    let mut hdr = vec![0u8; BLOCK_SIZE];
    ro.read(Lba(u64::from(sb.log_start) * spb as u64), &mut hdr)?;
    if let Some(h) = LogHeader::decode(&hdr) {
        if !h.blocks.is_empty() {
            let log_end = sb.log_start + sb.log_blocks;
            let bad = h.blocks.len() > sb.log_slots() as usize
                || h.blocks.iter().any(|&b| {
                    b == 0 || b >= sb.total_blocks || (sb.log_start..log_end).contains(&b)
                });
            if bad {
                rep.add(
                    ProblemKind::Log,
                    None,
                    Some(sb.log_start),
                    "the committed log step names blocks outside the home regions".into(),
                );
            } else {
                let mut images = Vec::with_capacity(h.blocks.len());
                for i in 0..h.blocks.len() {
                    let mut img = vec![0u8; BLOCK_SIZE];
                    let slot = u64::from(sb.log_start + 1 + i as u32) * spb as u64;
                    ro.read(Lba(slot), &mut img)?;
                    images.push(img);
                }
                // A record whose slots do not match its CRC never
                // committed: mount ignores it, and so does the check.
                if h.slots_match(&images) {
                    rep.log_replay_pending = true;
                    for (img, &home) in images.into_iter().zip(&h.blocks) {
                        ro.overlay.insert(u64::from(home), img);
                    }
                }
            }
        }
    }
    let budget = Budget {
        sectors: 0,
        blocks: 0,
    };
    let mut st = Store::new(ro, sb.clone(), 4096, CommitMode::Log, None, budget);
    let w = check::check(&mut st, &mut rep)?;
    Ok((rep, Some((sb, w))))
}
