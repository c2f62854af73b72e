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
//! fail.

use std::collections::{HashMap, HashSet, VecDeque};

use ftl::{BlockDevice, DeviceStats, FtlError, Lba};
use serde::Serialize;

use crate::alloc::AllocState;
use crate::cache::{Cache, Tx};
use crate::codec::u32_at;
use crate::dir;
use crate::error::Result;
use crate::inode::{FileType, Inode};
use crate::layout::{
    Superblock, BITS_PER_BLOCK, BLOCK_SIZE, MAX_FILE_SIZE, NDIRECT, PTRS_PER_BLOCK, ROOT_INO,
};
use crate::logfmt::LogHeader;
use crate::mode::CommitMode;
use crate::namei::SYMLINK_MAX;
use crate::store::{Budget, FsStats, Store};

/// Problems of one kind listed individually before the rest are only
/// counted.
const MAX_LISTED_PER_KIND: usize = 100;

/// What kind of rule a problem breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ProblemKind {
    /// The superblock is missing, corrupt or does not fit the device.
    Superblock,
    /// The log header names blocks it cannot.
    Log,
    /// An allocated inode does not decode, or its fields are impossible.
    Inode,
    /// A block pointer outside the data region.
    Pointer,
    /// A block referenced twice.
    DuplicateBlock,
    /// A block's bitmap bit disagrees with its use.
    BlockBitmap,
    /// An inode's bitmap bit disagrees with the directory tree.
    InodeBitmap,
    /// A directory block or entry is malformed.
    Directory,
    /// An entry names a free inode.
    DanglingEntry,
    /// A link count disagrees with the references.
    LinkCount,
    /// An inode with links that no directory reaches.
    Unreachable,
    /// A size disagrees with the mapped blocks.
    Size,
}

/// One violation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub kind: ProblemKind,
    pub ino: Option<u32>,
    pub block: Option<u32>,
    pub message: String,
}

/// Counts of what the image holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FsckCounts {
    pub inodes_used: u64,
    pub directories: u64,
    pub regular_files: u64,
    pub symlinks: u64,
    pub other: u64,
    pub blocks_used: u64,
    pub blocks_total: u64,
}

/// The result of [`fsck`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FsckReport {
    pub problems: Vec<Problem>,
    /// Problems counted but not listed (past 100 of one kind).
    pub problems_not_listed: u64,
    /// Allocated inodes with no links (freed by the next mount).
    pub orphans: Vec<u32>,
    /// A committed log step the next mount will replay (checked as if
    /// replayed).
    pub log_replay_pending: bool,
    pub counts: FsckCounts,
}

impl FsckReport {
    /// No problems (orphans and a pending log replay are not problems).
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty() && self.problems_not_listed == 0
    }

    fn add(&mut self, kind: ProblemKind, ino: Option<u32>, block: Option<u32>, message: String) {
        if self.problems.iter().filter(|p| p.kind == kind).count() >= MAX_LISTED_PER_KIND {
            self.problems_not_listed += 1;
            return;
        }
        self.problems.push(Problem {
            kind,
            ino,
            block,
            message,
        });
    }
}

impl std::fmt::Display for FsckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.problems {
            write!(f, "{:?}", p.kind)?;
            if let Some(i) = p.ino {
                write!(f, " inode {i}")?;
            }
            if let Some(b) = p.block {
                write!(f, " block {b}")?;
            }
            writeln!(f, ": {}", p.message)?;
        }
        if self.problems_not_listed > 0 {
            writeln!(f, "... and {} more problems", self.problems_not_listed)?;
        }
        let c = &self.counts;
        write!(
            f,
            "{} problems; {} inodes ({} dirs, {} files, {} symlinks, {} other), {} orphans; {}/{} blocks used{}",
            self.problems.len() as u64 + self.problems_not_listed,
            c.inodes_used,
            c.directories,
            c.regular_files,
            c.symlinks,
            c.other,
            self.orphans.len(),
            c.blocks_used,
            c.blocks_total,
            if self.log_replay_pending {
                "; a committed log step awaits replay"
            } else {
                ""
            }
        )
    }
}

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
        return Ok(rep);
    }
    let spb = BLOCK_SIZE / ss;
    let mut b0 = vec![0u8; BLOCK_SIZE];
    dev.read(Lba(0), &mut b0)?;
    let sb = match Superblock::decode(&b0) {
        Ok(sb) => sb,
        Err(e) => {
            rep.add(ProblemKind::Superblock, None, Some(0), e.to_string());
            return Ok(rep);
        }
    };
    if u64::from(sb.total_blocks) * spb as u64 > dev.num_sectors() {
        rep.add(
            ProblemKind::Superblock,
            None,
            Some(0),
            "the file system is larger than the device".into(),
        );
        return Ok(rep);
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
                rep.log_replay_pending = true;
                for (i, &home) in h.blocks.iter().enumerate() {
                    let mut img = vec![0u8; BLOCK_SIZE];
                    let slot = u64::from(sb.log_start + 1 + i as u32) * spb as u64;
                    ro.read(Lba(slot), &mut img)?;
                    ro.overlay.insert(u64::from(home), img);
                }
            }
        }
    }
    let mut st = Store {
        dev: ro,
        sb: sb.clone(),
        sector_size: ss,
        spb,
        cache: Cache::new(4096),
        tx: Tx::default(),
        mode: CommitMode::Log,
        mutant: None,
        budget: Budget {
            sectors: 0,
            blocks: 0,
        },
        log_seq: 0,
        unflushed: false,
        poisoned: None,
        stats: FsStats::default(),
        alloc: AllocState::default(),
        alloc_at_step_start: AllocState::default(),
    };
    check(&mut st, &mut rep)?;
    Ok(rep)
}

/// What the walk learned about one allocated inode.
struct Info {
    inode: Inode,
    kind: FileType,
    refs: u32,
    subdirs: u32,
    /// The directory whose entry names this directory.
    entry_parent: Option<u32>,
}

fn check<D: BlockDevice>(st: &mut Store<D>, rep: &mut FsckReport) -> Result<()> {
    let sb = st.sb.clone();
    rep.counts.blocks_total = u64::from(sb.data_blocks());
    // Owner of each block (0: none).
    let mut owner = vec![0u32; sb.total_blocks as usize];
    let mut inodes: HashMap<u32, Info> = HashMap::new();
    let mut allocated = Vec::new();
    if !st.bit(sb.inode_bitmap_start, 0)? {
        rep.add(
            ProblemKind::InodeBitmap,
            Some(0),
            None,
            "bit of inode 0 (which does not exist) is clear".into(),
        );
    }
    for ino in 1..sb.inode_count {
        if st.bit(sb.inode_bitmap_start, u64::from(ino))? {
            allocated.push(ino);
        }
    }
    rep.counts.inodes_used = allocated.len() as u64;

    // Inodes and their blocks.
    for &ino in &allocated {
        let inode = match st.iget(ino) {
            Ok(i) => i,
            Err(e) => {
                rep.add(ProblemKind::Inode, Some(ino), None, e.to_string());
                continue;
            }
        };
        let Some(kind) = inode.kind else {
            rep.add(
                ProblemKind::Inode,
                Some(ino),
                None,
                "allocated in the bitmap but marked free".into(),
            );
            continue;
        };
        match kind {
            FileType::Directory => rep.counts.directories += 1,
            FileType::RegularFile => rep.counts.regular_files += 1,
            FileType::Symlink => rep.counts.symlinks += 1,
            _ => rep.counts.other += 1,
        }
        check_blocks(st, rep, ino, &inode, kind, &mut owner)?;
        inodes.insert(
            ino,
            Info {
                inode,
                kind,
                refs: 0,
                subdirs: 0,
                entry_parent: None,
            },
        );
    }

    // Directory entries.
    let dirs: Vec<u32> = {
        let mut d: Vec<u32> = inodes
            .iter()
            .filter(|(_, i)| i.kind == FileType::Directory)
            .map(|(&n, _)| n)
            .collect();
        d.sort_unstable();
        d
    };
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for &d in &dirs {
        let dinode = inodes[&d].inode.clone();
        let mut names = HashSet::new();
        let nblocks = dinode.size / BLOCK_SIZE as u64;
        for idx in 0..nblocks {
            let Ok(Some(phys)) = st.bmap(&dinode, idx) else {
                continue; // reported by check_blocks
            };
            let blk = st.meta(phys)?.to_vec();
            let recs = match dir::records(&blk, idx * BLOCK_SIZE as u64) {
                Ok(r) => r,
                Err(e) => {
                    rep.add(ProblemKind::Directory, Some(d), Some(phys), e.to_string());
                    continue;
                }
            };
            for r in recs.iter().filter(|r| r.ino != 0) {
                let name = r.name(&blk).to_vec();
                let shown = String::from_utf8_lossy(&name).into_owned();
                if !names.insert(name) {
                    rep.add(
                        ProblemKind::Directory,
                        Some(d),
                        Some(phys),
                        format!("name `{shown}` appears twice"),
                    );
                }
                let Some(t) = inodes.get_mut(&r.ino) else {
                    rep.add(
                        ProblemKind::DanglingEntry,
                        Some(d),
                        Some(phys),
                        format!(
                            "entry `{shown}` names inode {}, which is not an allocated inode",
                            r.ino
                        ),
                    );
                    continue;
                };
                if u16::from(r.file_type) != t.kind.code() {
                    rep.add(
                        ProblemKind::Directory,
                        Some(d),
                        Some(phys),
                        format!(
                            "entry `{shown}` says type {} but inode {} is a {:?}",
                            r.file_type, r.ino, t.kind
                        ),
                    );
                }
                t.refs += 1;
                if r.ino == ROOT_INO {
                    rep.add(
                        ProblemKind::Directory,
                        Some(d),
                        Some(phys),
                        format!("entry `{shown}` names the root directory"),
                    );
                }
                if t.kind == FileType::Directory {
                    t.entry_parent = Some(d);
                    children.entry(d).or_default().push(r.ino);
                    if let Some(p) = inodes.get_mut(&d) {
                        p.subdirs += 1;
                    }
                }
            }
        }
    }

    // Reachability from the root.
    let mut reached = HashSet::new();
    let mut queue = VecDeque::from([ROOT_INO]);
    while let Some(d) = queue.pop_front() {
        if !reached.insert(d) {
            continue;
        }
        for &c in children.get(&d).into_iter().flatten() {
            queue.push_back(c);
        }
    }

    // Link counts, parents, orphans.
    let mut all: Vec<u32> = inodes.keys().copied().collect();
    all.sort_unstable();
    for ino in all {
        let i = &inodes[&ino];
        let (nlink, refs) = (i.inode.nlink, i.refs);
        if i.kind == FileType::Directory {
            let want = 2 + i.subdirs;
            if ino == ROOT_INO {
                if i.inode.parent != ROOT_INO {
                    rep.add(
                        ProblemKind::Directory,
                        Some(ino),
                        None,
                        format!("root's parent is {}", i.inode.parent),
                    );
                }
                if nlink != want {
                    rep.add(
                        ProblemKind::LinkCount,
                        Some(ino),
                        None,
                        format!("nlink {nlink}, want {want}"),
                    );
                }
                continue;
            }
            if refs == 0 && nlink == 0 {
                rep.orphans.push(ino);
                if i.subdirs > 0 || !dir_empty(st, &i.inode)? {
                    rep.add(
                        ProblemKind::Directory,
                        Some(ino),
                        None,
                        "orphan directory is not empty".into(),
                    );
                }
                continue;
            }
            if refs > 1 {
                rep.add(
                    ProblemKind::Directory,
                    Some(ino),
                    None,
                    format!("directory has {refs} entries naming it"),
                );
            }
            if refs == 0 {
                rep.add(
                    ProblemKind::Unreachable,
                    Some(ino),
                    None,
                    format!("directory with nlink {nlink} has no entry"),
                );
            } else if !reached.contains(&ino) {
                rep.add(
                    ProblemKind::Unreachable,
                    Some(ino),
                    None,
                    "directory not reachable from the root (a cycle)".into(),
                );
            }
            if let Some(p) = i.entry_parent {
                if i.inode.parent != p {
                    rep.add(
                        ProblemKind::Directory,
                        Some(ino),
                        None,
                        format!(
                            "`..` is inode {} but the entry is in directory {p}",
                            i.inode.parent
                        ),
                    );
                }
            }
            if nlink != want {
                rep.add(
                    ProblemKind::LinkCount,
                    Some(ino),
                    None,
                    format!("nlink {nlink}, want {want} (2 + subdirectories)"),
                );
            }
        } else if refs == 0 && nlink == 0 {
            rep.orphans.push(ino);
        } else if refs == 0 {
            rep.add(
                ProblemKind::Unreachable,
                Some(ino),
                None,
                format!("nlink {nlink} but no directory entry names it"),
            );
        } else if nlink != refs {
            rep.add(
                ProblemKind::LinkCount,
                Some(ino),
                None,
                format!("nlink {nlink}, but {refs} entries name it"),
            );
        }
    }

    // Block bitmap = metadata + referenced blocks; padding bits set.
    let bits = u64::from(sb.block_bitmap_blocks) * BITS_PER_BLOCK;
    for b in 0..bits {
        let set = st.bit(sb.block_bitmap_start, b)?;
        let used = b < u64::from(sb.data_start)
            || b >= u64::from(sb.total_blocks)
            || owner[b as usize] != 0;
        if set != used {
            let what = if b >= u64::from(sb.total_blocks) {
                "padding bit past the end is clear".to_string()
            } else if set {
                "allocated but no inode references it (leaked)".to_string()
            } else if b < u64::from(sb.data_start) {
                "metadata block marked free".to_string()
            } else {
                format!("referenced by inode {} but marked free", owner[b as usize])
            };
            rep.add(ProblemKind::BlockBitmap, None, Some(b as u32), what);
        }
        if b >= u64::from(sb.data_start) && b < u64::from(sb.total_blocks) && owner[b as usize] != 0
        {
            rep.counts.blocks_used += 1;
        }
    }
    Ok(())
}

fn dir_empty<D: BlockDevice>(st: &mut Store<D>, d: &Inode) -> Result<bool> {
    for idx in 0..d.size / BLOCK_SIZE as u64 {
        if let Ok(Some(phys)) = st.bmap(d, idx) {
            let blk = st.meta(phys)?.to_vec();
            if let Ok(recs) = dir::records(&blk, 0) {
                if recs.iter().any(|r| r.ino != 0) {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// Walks an inode's block map: pointers in range, each block claimed once,
/// the `blocks` count, and sizes against the mapping.
fn check_blocks<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    ino: u32,
    i: &Inode,
    kind: FileType,
    owner: &mut [u32],
) -> Result<()> {
    let sb = st.sb.clone();
    let mut count = 0u32;
    let mut data: Vec<(u64, u32)> = Vec::new();
    // Claims block `b`; false if it cannot be used (out of range).
    let mut claim = |rep: &mut FsckReport, b: u32, what: &str| -> bool {
        if !sb.is_data_block(b) {
            rep.add(
                ProblemKind::Pointer,
                Some(ino),
                Some(b),
                format!("{what} pointer {b} is outside the data region"),
            );
            return false;
        }
        let o = &mut owner[b as usize];
        if *o != 0 {
            rep.add(
                ProblemKind::DuplicateBlock,
                Some(ino),
                Some(b),
                format!("{what} block {b} is also used by inode {}", *o),
            );
        } else {
            *o = ino;
        }
        count += 1;
        true
    };
    for (k, &b) in i.direct.iter().enumerate() {
        if b != 0 && claim(rep, b, "direct") {
            data.push((k as u64, b));
        }
    }
    let p = PTRS_PER_BLOCK;
    if i.indirect != 0 && claim(rep, i.indirect, "indirect") {
        let blk = st.meta(i.indirect)?.to_vec();
        for j in 0..p as usize {
            let b = u32_at(&blk, 4 * j);
            if b != 0 && claim(rep, b, "data") {
                data.push((NDIRECT as u64 + j as u64, b));
            }
        }
    }
    if i.double_indirect != 0 && claim(rep, i.double_indirect, "double-indirect") {
        let top = st.meta(i.double_indirect)?.to_vec();
        for k in 0..p as usize {
            let pb = u32_at(&top, 4 * k);
            if pb == 0 || !claim(rep, pb, "indirect") {
                continue;
            }
            let blk = st.meta(pb)?.to_vec();
            for j in 0..p as usize {
                let b = u32_at(&blk, 4 * j);
                if b != 0 && claim(rep, b, "data") {
                    data.push((NDIRECT as u64 + p + k as u64 * p + j as u64, b));
                }
            }
        }
    }
    if count != i.blocks {
        rep.add(
            ProblemKind::Size,
            Some(ino),
            None,
            format!("blocks field {} but {count} blocks are mapped", i.blocks),
        );
    }
    if i.size > MAX_FILE_SIZE {
        rep.add(
            ProblemKind::Size,
            Some(ino),
            None,
            format!("size {} past the largest file", i.size),
        );
    }
    let end_block = i.size.div_ceil(BLOCK_SIZE as u64);
    if let Some(&(idx, b)) = data.iter().find(|&&(idx, _)| idx >= end_block) {
        rep.add(
            ProblemKind::Size,
            Some(ino),
            Some(b),
            format!(
                "file block {idx} is mapped past the end of file (size {})",
                i.size
            ),
        );
    }
    match kind {
        FileType::Directory => {
            if i.size % BLOCK_SIZE as u64 != 0 {
                rep.add(
                    ProblemKind::Size,
                    Some(ino),
                    None,
                    format!("directory size {} is not a whole number of blocks", i.size),
                );
            } else if (data.len() as u64) < end_block {
                rep.add(
                    ProblemKind::Size,
                    Some(ino),
                    None,
                    "directory has holes".into(),
                );
            }
        }
        FileType::Symlink => {
            if !(1..=SYMLINK_MAX as u64).contains(&i.size) || i.direct[0] == 0 || data.len() != 1 {
                rep.add(
                    ProblemKind::Size,
                    Some(ino),
                    None,
                    format!("symlink of size {} with {} blocks", i.size, data.len()),
                );
            }
        }
        FileType::RegularFile => {}
        _ => {
            if i.size != 0 || count != 0 {
                rep.add(
                    ProblemKind::Size,
                    Some(ino),
                    None,
                    "a device node, FIFO or socket with data".into(),
                );
            }
        }
    }
    Ok(())
}
