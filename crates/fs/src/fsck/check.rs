//! The checks of `fsck` over a read-only `Store`: inodes and their block
//! maps, directory entries, reachability, link counts, bitmaps.

use std::collections::{HashMap, HashSet, VecDeque};

use ftl::BlockDevice;

use crate::codec::u32_at;
use crate::dir;
use crate::error::Result;
use crate::inode::{FileType, Inode};
use crate::layout::{BITS_PER_BLOCK, BLOCK_SIZE, NDIRECT, PTRS_PER_BLOCK, ROOT_INO};
use crate::namei::SYMLINK_MAX;
use crate::store::Store;
use crate::xattr::{namespace, Acl, Namespace, Xattrs};

use super::report::{FsckReport, ProblemKind};

/// What the walk learned about one allocated inode.
struct Info {
    inode: Inode,
    kind: FileType,
    /// Directories: their mapped blocks inside the size, `(index, block)`.
    dir_blocks: Vec<(u64, u32)>,
    refs: u32,
    subdirs: u32,
    /// The directory whose entry names this directory.
    entry_parent: Option<u32>,
}

/// What the walk learned that names a block: which inode references it,
/// and the first entry found naming each inode.
pub(super) struct Walk {
    /// Owner of each block (0: none).
    pub owner: Vec<u32>,
    /// Inode -> (directory, name) of the first entry naming it.
    pub names: HashMap<u32, (u32, Vec<u8>)>,
}

/// Runs every check, adding what it finds to `rep`; returns the walk.
pub(super) fn check<D: BlockDevice>(st: &mut Store<D>, rep: &mut FsckReport) -> Result<Walk> {
    let sb = st.sb.clone();
    rep.counts.blocks_total = u64::from(sb.data_blocks());
    // Owner of each block (0: none).
    let mut owner = vec![0u32; sb.total_blocks as usize];
    if !st.bit(sb.inode_bitmap_start, 0)? {
        rep.add(
            ProblemKind::InodeBitmap,
            Some(0),
            None,
            "bit of inode 0 (which does not exist) is clear".into(),
        );
    }
    let mut allocated = Vec::new();
    for ino in 1..sb.inode_count {
        if st.bit(sb.inode_bitmap_start, u64::from(ino))? {
            allocated.push(ino);
        }
    }
    rep.counts.inodes_used = allocated.len() as u64;
    let mut inodes = check_inodes(st, rep, &allocated, &mut owner)?;
    let mut names = HashMap::new();
    let children = check_entries(st, rep, &mut inodes, &mut names)?;
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
    check_links(st, rep, &inodes, &reached)?;
    check_block_bitmap(st, rep, &owner)?;
    Ok(Walk { owner, names })
}

/// Inodes and their blocks: what the walk learns of each allocated inode
/// (and, in `owner`, which inode references each block).
fn check_inodes<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    allocated: &[u32],
    owner: &mut [u32],
) -> Result<HashMap<u32, Info>> {
    let mut inodes: HashMap<u32, Info> = HashMap::new();
    // Inodes and their blocks.
    for &ino in allocated {
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
        let mapped = check_blocks(st, rep, ino, &inode, kind, owner)?;
        let dir_blocks = if kind == FileType::Directory {
            let n = inode.size / BLOCK_SIZE as u64;
            mapped.into_iter().filter(|&(idx, _)| idx < n).collect()
        } else {
            Vec::new()
        };
        inodes.insert(
            ino,
            Info {
                inode,
                kind,
                dir_blocks,
                refs: 0,
                subdirs: 0,
                entry_parent: None,
            },
        );
    }

    Ok(inodes)
}

/// Directory entries: names, types, references (counted into `inodes`;
/// the first name of each inode into `first_names`); returns the
/// subdirectories each directory's entries name.
fn check_entries<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    inodes: &mut HashMap<u32, Info>,
    first_names: &mut HashMap<u32, (u32, Vec<u8>)>,
) -> Result<HashMap<u32, Vec<u32>>> {
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
        let mut names = HashSet::new();
        for (idx, phys) in inodes[&d].dir_blocks.clone() {
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
                first_names
                    .entry(r.ino)
                    .or_insert_with(|| (d, name.clone()));
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

    Ok(children)
}

/// Link counts, parents, orphans (added to `rep.orphans`).
fn check_links<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    inodes: &HashMap<u32, Info>,
    reached: &HashSet<u32>,
) -> Result<()> {
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
                if i.subdirs > 0 || !dir_empty(st, &i.dir_blocks)? {
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

    Ok(())
}

/// Block bitmap = metadata + referenced blocks; padding bits set.
fn check_block_bitmap<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    owner: &[u32],
) -> Result<()> {
    let sb = st.sb.clone();
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

fn dir_empty<D: BlockDevice>(st: &mut Store<D>, blocks: &[(u64, u32)]) -> Result<bool> {
    for &(_, phys) in blocks {
        let blk = st.meta(phys)?.to_vec();
        if let Ok(recs) = dir::records(&blk, 0) {
            if recs.iter().any(|r| r.ino != 0) {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Walks an inode's block map: pointers in range, each block claimed once,
/// the `blocks` count, and sizes against the mapping. Returns the data
/// blocks as `(file block index, block)`.
fn check_blocks<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    ino: u32,
    i: &Inode,
    kind: FileType,
    owner: &mut [u32],
) -> Result<Vec<(u64, u32)>> {
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
    let trees = [
        (i.indirect, 1, NDIRECT as u64, "indirect"),
        (i.double_indirect, 2, NDIRECT as u64 + p, "double-indirect"),
        (
            i.triple_indirect,
            3,
            NDIRECT as u64 + p + p * p,
            "triple-indirect",
        ),
    ];
    for (root, levels, base, what) in trees {
        if root != 0 && claim(rep, root, what) {
            walk_tree(st, rep, &mut claim, &mut data, root, levels, base)?;
        }
    }
    if i.xattr != 0 && claim(rep, i.xattr, "xattr") {
        check_xattrs(st, rep, ino, i.xattr, kind)?;
    }
    check_sizes(rep, ino, i, kind, &data, count, sb.max_file_size());
    Ok(data)
}

/// The xattr block `b` of inode `ino`: well formed, and each attribute
/// allowed on a `kind` (ACLs valid, and where they may be).
fn check_xattrs<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    ino: u32,
    b: u32,
    kind: FileType,
) -> Result<()> {
    let x = match Xattrs::decode(st.meta(b)?, &format!("inode {ino}")) {
        Ok(x) => x,
        Err(e) => {
            rep.add(ProblemKind::Xattr, Some(ino), Some(b), e.to_string());
            return Ok(());
        }
    };
    for (name, value) in &x.0 {
        let shown = String::from_utf8_lossy(name);
        let ns = namespace(name).expect("decode checks namespaces");
        let why = match ns {
            Namespace::User if !matches!(kind, FileType::RegularFile | FileType::Directory) => {
                Some(format!("user attribute `{shown}` on a {kind:?}"))
            }
            Namespace::AclAccess | Namespace::AclDefault => match Acl::decode(value) {
                Err(e) => Some(format!("`{shown}`: {e}")),
                Ok(None) => Some(format!("`{shown}` holds an empty ACL")),
                Ok(Some(_)) if kind == FileType::Symlink => Some(format!("`{shown}` on a symlink")),
                Ok(Some(_)) if ns == Namespace::AclDefault && kind != FileType::Directory => {
                    Some(format!("`{shown}` on a {kind:?}"))
                }
                Ok(Some(_)) => None,
            },
            _ => None,
        };
        if let Some(why) = why {
            rep.add(ProblemKind::Xattr, Some(ino), Some(b), why);
        }
    }
    Ok(())
}

/// Claims every block under pointer block `pb` (claimed already), the
/// root of a tree with `levels` levels of pointer blocks above the data
/// covering file blocks from `base`, and lists its data blocks.
fn walk_tree<D: BlockDevice>(
    st: &mut Store<D>,
    rep: &mut FsckReport,
    claim: &mut impl FnMut(&mut FsckReport, u32, &str) -> bool,
    data: &mut Vec<(u64, u32)>,
    pb: u32,
    levels: u32,
    base: u64,
) -> Result<()> {
    let blk = st.meta(pb)?.to_vec();
    let span = PTRS_PER_BLOCK.pow(levels - 1);
    let what = match levels {
        1 => "data",
        2 => "indirect",
        _ => "double-indirect",
    };
    for j in 0..PTRS_PER_BLOCK as usize {
        let b = u32_at(&blk, 4 * j);
        if b == 0 || !claim(rep, b, what) {
            continue;
        }
        let first = base + j as u64 * span;
        if levels == 1 {
            data.push((first, b));
        } else {
            walk_tree(st, rep, claim, data, b, levels - 1, first)?;
        }
    }
    Ok(())
}

/// The size and block count of inode `ino` (`i`, of kind `kind`) against
/// the `count` blocks it maps, `data` its data blocks `(index, block)`.
fn check_sizes(
    rep: &mut FsckReport,
    ino: u32,
    i: &Inode,
    kind: FileType,
    data: &[(u64, u32)],
    count: u32,
    max_size: u64,
) {
    if count != i.blocks {
        rep.add(
            ProblemKind::Size,
            Some(ino),
            None,
            format!("blocks field {} but {count} blocks are mapped", i.blocks),
        );
    }
    if i.size > max_size {
        rep.add(
            ProblemKind::Size,
            Some(ino),
            None,
            format!("size {} past the largest file", i.size),
        );
    }
    // A regular file may map blocks past its end: fallocate with
    // KEEP_SIZE preallocates them (docs/FORMAT.md §7.4).
    let end_block = i.size.div_ceil(BLOCK_SIZE as u64);
    let past_end = data.iter().find(|&&(idx, _)| idx >= end_block);
    if let (Some(&(idx, b)), false) = (past_end, kind == FileType::RegularFile) {
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
            // Only the xattr block may be mapped.
            if i.size != 0 || count != u32::from(i.xattr != 0) {
                rep.add(
                    ProblemKind::Size,
                    Some(ino),
                    None,
                    "a device node, FIFO or socket with data".into(),
                );
            }
        }
    }
}
