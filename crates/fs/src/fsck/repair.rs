//! `repair`: fixes the damage fsck finds that has one safe answer, through
//! the device's own writes and flushes.
//!
//! What it fixes, in this order: a committed log step is replayed (as
//! mount would); directory entries naming an inode that is not allocated
//! (or does not decode) are removed; allocated inodes that no directory
//! entry reaches from the root are freed (orphans after a crash, and inodes
//! whose entries were lost); link counts are set to the references the
//! tree holds; both bitmaps are rebuilt from what the tree reaches (blocks
//! mapped by reachable inodes plus the metadata regions; reachable inodes
//! plus inode 0).
//!
//! What it leaves alone (reported again by the fsck after it): a damaged
//! superblock, root or log header (it refuses to start), pointers outside
//! the data region, blocks shared by two inodes, malformed directory
//! blocks, wrong sizes and `..` fields — each needs a guess about which
//! copy of the truth is right.
//!
//! Invariants: an image with no problems, no orphans and no pending log
//! step is not written at all (its bytes stay identical). Otherwise the
//! log replay and the clear of its header are each written and flushed
//! before anything else, and every other change is written and then
//! flushed once; on a snapshot-consistent FTL a crash leaves the image
//! before or after that flush (when the changes fit one epoch), on the
//! others possibly in between — repair is idempotent, so running it again
//! finishes the job.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt;

use ftl::{BlockDevice, Lba};
use serde::Serialize;

use crate::codec::u32_at;
use crate::dir;
use crate::error::{corrupt, FsError, Result};
use crate::inode::{FileType, Inode};
use crate::layout::{
    Superblock, BITS_PER_BLOCK, BLOCK_SIZE, INODE_SIZE, NDIRECT, PTRS_PER_BLOCK, ROOT_INO,
};
use crate::logfmt::LogHeader;

use super::{fsck, FsckReport, ProblemKind};

/// What [`repair`] changed, and the fsck of the result.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RepairReport {
    /// One line per change, in the order made; empty when nothing was
    /// written.
    pub changes: Vec<String>,
    /// The fsck of the image after the repair (problems repair leaves are
    /// still listed here).
    pub after: FsckReport,
}

impl fmt::Display for RepairReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            writeln!(f, "nothing to repair")?;
        }
        for c in &self.changes {
            writeln!(f, "repaired: {c}")?;
        }
        write!(f, "after repair: {}", self.after)
    }
}

/// The blocks an inode maps: all of them (indirect blocks included), and
/// its data blocks as `(file block index, block)`.
struct Mapped {
    all: Vec<u32>,
    data: Vec<(u64, u32)>,
}

/// The image being repaired: blocks read once, changed blocks kept until
/// they are written out.
struct Img<'a, D: ?Sized> {
    dev: &'a mut D,
    sb: Superblock,
    spb: u64,
    blocks: HashMap<u32, Vec<u8>>,
    dirty: BTreeMap<u32, ()>,
}

impl<D: BlockDevice + ?Sized> Img<'_, D> {
    fn get(&mut self, b: u32) -> Result<Vec<u8>> {
        if let Some(v) = self.blocks.get(&b) {
            return Ok(v.clone());
        }
        if b >= self.sb.total_blocks {
            return Err(corrupt(format!("block {b} is past the end")));
        }
        let mut v = vec![0u8; BLOCK_SIZE];
        self.dev.read(Lba(u64::from(b) * self.spb), &mut v)?;
        self.blocks.insert(b, v.clone());
        Ok(v)
    }

    fn put(&mut self, b: u32, data: Vec<u8>) {
        self.blocks.insert(b, data);
        self.dirty.insert(b, ());
    }

    /// Writes every changed block, then flushes the device. A device
    /// with an epoch bound refuses writes past it, so a repair larger than
    /// the epoch flushes on the way (and is then not atomic; see the top).
    fn write_out(&mut self) -> Result<()> {
        for &b in self.dirty.keys() {
            if self.dev.epoch_remaining().is_some_and(|r| r < self.spb) {
                self.dev.flush()?;
            }
            self.dev
                .write(Lba(u64::from(b) * self.spb), &self.blocks[&b])?;
        }
        self.dev.flush()?;
        self.dirty.clear();
        Ok(())
    }

    fn inode(&mut self, ino: u32) -> Result<Inode> {
        let (b, off) = self.sb.inode_location(ino);
        Inode::decode_in(ino, &self.get(b)?[off..off + INODE_SIZE], self.sb.version)
    }

    fn put_inode(&mut self, ino: u32, i: &Inode) -> Result<()> {
        let (b, off) = self.sb.inode_location(ino);
        let mut blk = self.get(b)?;
        i.encode(&mut blk[off..off + INODE_SIZE]);
        self.put(b, blk);
        Ok(())
    }

    /// The blocks `i` maps through valid pointers.
    fn mapped(&mut self, i: &Inode) -> Result<Mapped> {
        let sb = self.sb.clone();
        let ok = |b: u32| sb.is_data_block(b);
        let mut all = Vec::new();
        let mut data = Vec::new();
        for (k, &b) in i.direct.iter().enumerate() {
            if ok(b) {
                all.push(b);
                data.push((k as u64, b));
            }
        }
        let p = PTRS_PER_BLOCK;
        let trees = [
            (i.indirect, 1, NDIRECT as u64),
            (i.double_indirect, 2, NDIRECT as u64 + p),
            (i.triple_indirect, 3, NDIRECT as u64 + p + p * p),
        ];
        for (root, levels, base) in trees {
            if ok(root) {
                all.push(root);
                self.mapped_tree(root, levels, base, &mut all, &mut data)?;
            }
        }
        if ok(i.xattr) {
            all.push(i.xattr);
        }
        Ok(Mapped { all, data })
    }

    /// Adds the blocks under pointer block `pb` (valid pointers only), the
    /// root of a tree with `levels` levels of pointer blocks above the data
    /// covering file blocks from `base`.
    fn mapped_tree(
        &mut self,
        pb: u32,
        levels: u32,
        base: u64,
        all: &mut Vec<u32>,
        data: &mut Vec<(u64, u32)>,
    ) -> Result<()> {
        let blk = self.get(pb)?;
        let span = PTRS_PER_BLOCK.pow(levels - 1);
        for j in 0..PTRS_PER_BLOCK as usize {
            let b = u32_at(&blk, 4 * j);
            if !self.sb.is_data_block(b) {
                continue;
            }
            all.push(b);
            let first = base + j as u64 * span;
            if levels == 1 {
                data.push((first, b));
            } else {
                self.mapped_tree(b, levels - 1, first, all, data)?;
            }
        }
        Ok(())
    }

    /// Rewrites the bitmap at `start` (`blocks` blocks) so that bit `n` is
    /// `want(n)`; returns how many bits were set and cleared.
    fn rebuild_bitmap(
        &mut self,
        start: u32,
        blocks: u32,
        want: impl Fn(u64) -> Option<bool>,
    ) -> Result<(u64, u64)> {
        let (mut set, mut cleared) = (0, 0);
        for k in 0..blocks {
            let mut blk = self.get(start + k)?;
            let mut changed = false;
            for i in 0..BITS_PER_BLOCK {
                let Some(w) = want(u64::from(k) * BITS_PER_BLOCK + i) else {
                    continue;
                };
                let (byte, mask) = ((i / 8) as usize, 1u8 << (i % 8));
                if (blk[byte] & mask != 0) != w {
                    blk[byte] ^= mask;
                    changed = true;
                    if w {
                        set += 1;
                    } else {
                        cleared += 1;
                    }
                }
            }
            if changed {
                self.put(start + k, blk);
            }
        }
        Ok((set, cleared))
    }
}

/// Repairs the file system on `dev` (see the top of this file); returns
/// what changed and the fsck afterwards. Refuses, writing nothing, an image
/// whose superblock, log header or root directory is damaged.
pub fn repair<D: BlockDevice + ?Sized>(dev: &mut D) -> Result<RepairReport> {
    let before = fsck(dev)?;
    refuse_damaged(&before)?;
    if before.is_clean() && before.orphans.is_empty() && !before.log_replay_pending {
        return Ok(RepairReport {
            changes: Vec::new(),
            after: before,
        });
    }
    let spb = (BLOCK_SIZE / dev.sector_size()) as u64;
    let mut b0 = vec![0u8; BLOCK_SIZE];
    dev.read(Lba(0), &mut b0)?;
    let sb = Superblock::decode(&b0)?;
    let mut img = Img {
        dev,
        sb: sb.clone(),
        spb,
        blocks: HashMap::new(),
        dirty: BTreeMap::new(),
    };
    let mut changes = Vec::new();

    if before.log_replay_pending {
        replay(&mut img, &mut changes)?;
    }
    let valid = valid_inodes(&mut img)?;
    match valid.get(&ROOT_INO) {
        Some(r) if r.is_dir() => {}
        _ => {
            return Err(FsError::Corrupt(
                "the root inode is not an allocated directory; repair does not guess, so nothing but a pending log replay was changed".into(),
            ))
        }
    }

    let entries = drop_dangling_entries(&mut img, &valid, &mut changes)?;
    let reach = Reach::from_root(&entries, &valid);
    let mut all: Vec<u32> = valid.keys().copied().collect();
    all.sort_unstable();
    fix_inodes(&mut img, &valid, &all, &reach, &mut changes)?;
    rebuild_bitmaps(&mut img, &valid, &all, &reach.reached, &mut changes)?;
    img.write_out()?;
    let after = fsck(img.dev)?;
    Ok(RepairReport { changes, after })
}

/// Refuses (an error that says nothing was changed) an image whose
/// superblock, log header or root inode is damaged.
fn refuse_damaged(before: &FsckReport) -> Result<()> {
    if before.no_file_system {
        // Nothing to repair: mkfs, not repair, makes a file system.
        return Err(FsError::NotFormatted(
            "block 0 holds no scftl file-system superblock, so there is nothing to repair; nothing was changed".into(),
        ));
    }
    for p in &before.problems {
        let refuse = match p.kind {
            ProblemKind::Superblock => Some("the superblock is damaged"),
            ProblemKind::Log => Some("the log header is damaged"),
            _ if p.ino == Some(ROOT_INO) && p.kind == ProblemKind::Inode => {
                Some("the root inode is damaged")
            }
            _ => None,
        };
        if let Some(why) = refuse {
            return Err(FsError::Corrupt(format!(
                "{why} ({}); repair does not guess, so nothing was changed",
                p.message
            )));
        }
    }
    Ok(())
}

/// The allocated inodes that decode.
fn valid_inodes<D: BlockDevice + ?Sized>(img: &mut Img<'_, D>) -> Result<HashMap<u32, Inode>> {
    let sb = img.sb.clone();
    let mut valid: HashMap<u32, Inode> = HashMap::new();
    let ibm = img.get(sb.inode_bitmap_start)?;
    let mut ibm_block = (sb.inode_bitmap_start, ibm);
    for ino in 1..sb.inode_count {
        let blk = sb.inode_bitmap_start + (u64::from(ino) / BITS_PER_BLOCK) as u32;
        if ibm_block.0 != blk {
            ibm_block = (blk, img.get(blk)?);
        }
        let n = u64::from(ino) % BITS_PER_BLOCK;
        if ibm_block.1[(n / 8) as usize] & (1 << (n % 8)) == 0 {
            continue;
        }
        if let Ok(i) = img.inode(ino) {
            if i.kind.is_some() {
                valid.insert(ino, i);
            }
        }
    }
    Ok(valid)
}

/// Directory entries: drops the dangling ones (noted in `changes`) and
/// returns the inodes each directory's entries name.
fn drop_dangling_entries<D: BlockDevice + ?Sized>(
    img: &mut Img<'_, D>,
    valid: &HashMap<u32, Inode>,
    changes: &mut Vec<String>,
) -> Result<HashMap<u32, Vec<u32>>> {
    let mut dirs: Vec<u32> = valid
        .iter()
        .filter(|(_, i)| i.is_dir())
        .map(|(&n, _)| n)
        .collect();
    dirs.sort_unstable();
    let mut entries: HashMap<u32, Vec<u32>> = HashMap::new();
    for &d in &dirs {
        let inode = valid[&d].clone();
        let data = img.mapped(&inode)?.data;
        let n = inode.size / BLOCK_SIZE as u64;
        for (idx, phys) in data.into_iter().filter(|&(idx, _)| idx < n) {
            let mut blk = img.get(phys)?;
            let mut changed = false;
            let recs = loop {
                // A malformed block is left to fsck's report.
                let Ok(recs) = dir::records(&blk, idx * BLOCK_SIZE as u64) else {
                    break Vec::new();
                };
                let Some(k) = recs
                    .iter()
                    .position(|r| r.ino != 0 && !valid.contains_key(&r.ino))
                else {
                    break recs;
                };
                let r = recs[k];
                changes.push(format!(
                    "removed entry `{}` of directory {d}: it named inode {}, which is not allocated",
                    String::from_utf8_lossy(r.name(&blk)),
                    r.ino
                ));
                let prev = k.checked_sub(1).map(|p| recs[p]);
                dir::remove(&mut blk, r, prev);
                changed = true;
            };
            entries
                .entry(d)
                .or_default()
                .extend(recs.iter().filter(|r| r.ino != 0).map(|r| r.ino));
            if changed {
                img.put(phys, blk);
            }
        }
    }

    Ok(entries)
}

/// What the root reaches, and the references reachable directories hold.
struct Reach {
    reached: HashSet<u32>,
    /// Entries naming each inode.
    refs: HashMap<u32, u32>,
    /// Subdirectories of each directory.
    subdirs: HashMap<u32, u32>,
}

impl Reach {
    fn from_root(entries: &HashMap<u32, Vec<u32>>, valid: &HashMap<u32, Inode>) -> Reach {
        let mut reached: HashSet<u32> = HashSet::from([ROOT_INO]);
        let mut refs: HashMap<u32, u32> = HashMap::new();
        let mut subdirs: HashMap<u32, u32> = HashMap::new();
        let mut seen_dirs: HashSet<u32> = HashSet::new();
        let mut queue = VecDeque::from([ROOT_INO]);
        while let Some(d) = queue.pop_front() {
            if !seen_dirs.insert(d) {
                continue;
            }
            for &c in entries.get(&d).into_iter().flatten() {
                reached.insert(c);
                *refs.entry(c).or_insert(0) += 1;
                if valid[&c].is_dir() {
                    *subdirs.entry(d).or_insert(0) += 1;
                    queue.push_back(c);
                }
            }
        }

        Reach {
            reached,
            refs,
            subdirs,
        }
    }
}

/// Frees the unreachable inodes (their blocks go with the bitmap) and sets
/// the link counts of the reachable ones.
fn fix_inodes<D: BlockDevice + ?Sized>(
    img: &mut Img<'_, D>,
    valid: &HashMap<u32, Inode>,
    all: &[u32],
    reach: &Reach,
    changes: &mut Vec<String>,
) -> Result<()> {
    let (reached, refs, subdirs) = (&reach.reached, &reach.refs, &reach.subdirs);
    for &ino in all {
        if reached.contains(&ino) {
            continue;
        }
        let i = &valid[&ino];
        changes.push(format!(
            "freed inode {ino} ({:?}, nlink {}, {} bytes): no directory entry reaches it",
            i.kind.unwrap_or(FileType::RegularFile),
            i.nlink,
            i.size
        ));
        img.put_inode(ino, &Inode::free(i.generation))?;
    }

    // Link counts.
    for &ino in all {
        if !reached.contains(&ino) {
            continue;
        }
        let i = &valid[&ino];
        let want = if i.is_dir() {
            2 + subdirs.get(&ino).copied().unwrap_or(0)
        } else {
            refs.get(&ino).copied().unwrap_or(0)
        };
        if i.nlink != want {
            changes.push(format!("inode {ino}: link count {} -> {want}", i.nlink));
            let mut fixed = i.clone();
            fixed.nlink = want;
            img.put_inode(ino, &fixed)?;
        }
    }

    Ok(())
}

/// Rebuilds both bitmaps from what is reachable.
fn rebuild_bitmaps<D: BlockDevice + ?Sized>(
    img: &mut Img<'_, D>,
    valid: &HashMap<u32, Inode>,
    all: &[u32],
    reached: &HashSet<u32>,
    changes: &mut Vec<String>,
) -> Result<()> {
    let sb = img.sb.clone();
    let mut used = vec![false; sb.total_blocks as usize];
    for &ino in all {
        if reached.contains(&ino) {
            let i = valid[&ino].clone();
            for b in img.mapped(&i)?.all {
                used[b as usize] = true;
            }
        }
    }
    let (total, data_start) = (u64::from(sb.total_blocks), u64::from(sb.data_start));
    let (set, cleared) =
        img.rebuild_bitmap(sb.block_bitmap_start, sb.block_bitmap_blocks, |b| {
            Some(b < data_start || b >= total || used[b as usize])
        })?;
    if set + cleared > 0 {
        changes.push(format!(
            "block bitmap rebuilt: {set} blocks marked used, {cleared} marked free"
        ));
    }
    let inodes = u64::from(sb.inode_count);
    let (set, cleared) =
        img.rebuild_bitmap(sb.inode_bitmap_start, sb.inode_bitmap_blocks, |n| {
            // Bits past the last inode keep whatever mkfs wrote.
            (n < inodes).then(|| n == 0 || reached.contains(&(n as u32)))
        })?;
    if set + cleared > 0 {
        changes.push(format!(
            "inode bitmap rebuilt: {set} inodes marked used, {cleared} marked free"
        ));
    }

    Ok(())
}

/// Installs the committed log step at home, flushes, then clears the
/// header and flushes again.
fn replay<D: BlockDevice + ?Sized>(img: &mut Img<'_, D>, changes: &mut Vec<String>) -> Result<()> {
    let sb = img.sb.clone();
    let hdr_block = img.get(sb.log_start)?;
    let Some(h) = LogHeader::decode(&hdr_block) else {
        return Ok(());
    };
    let mut slots = Vec::with_capacity(h.blocks.len());
    for i in 0..h.blocks.len() {
        slots.push(img.get(sb.log_start + 1 + i as u32)?);
    }
    if h.blocks.is_empty() || !h.slots_match(&slots) {
        // Cleared, or a record whose slots never all became durable (the
        // step had not committed): nothing to replay.
        return Ok(());
    }
    for (slot, &home) in slots.into_iter().zip(&h.blocks) {
        img.put(home, slot);
    }
    img.write_out()?;
    let cleared = LogHeader {
        seq: h.seq,
        blocks: Vec::new(),
        slots_crc: None,
    };
    // Cleared (and flushed) before any other change, as mount does: a
    // replay after those changes would write older images over them.
    img.put(sb.log_start, cleared.encode());
    img.write_out()?;
    changes.push(format!(
        "replayed the committed log step ({} blocks)",
        h.blocks.len()
    ));
    Ok(())
}
