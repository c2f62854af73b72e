//! The fsck report: problems by kind (serialisable for `--json`), orphans,
//! counts, and its text form.

use serde::Serialize;

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
    /// An xattr block is malformed, or an attribute breaks the rules
    /// (an invalid ACL, a default ACL off a directory, a user attribute
    /// off a file or directory).
    Xattr,
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

/// The result of [`fsck`](super::fsck).
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
    /// Block 0 holds no file-system superblock at all (no magic): the
    /// device was never made a file system (or holds another one), which
    /// is reported as one `Superblock` problem and said as such.
    pub no_file_system: bool,
    pub counts: FsckCounts,
}

impl FsckReport {
    /// No problems (orphans and a pending log replay are not problems).
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty() && self.problems_not_listed == 0
    }

    /// Problems found, listed or not.
    pub fn problem_count(&self) -> u64 {
        self.problems.len() as u64 + self.problems_not_listed
    }

    pub(crate) fn add(
        &mut self,
        kind: ProblemKind,
        ino: Option<u32>,
        block: Option<u32>,
        message: String,
    ) {
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
        let n = self.problem_count();
        write!(
            f,
            "{n} problem{}; {} inodes ({} dirs, {} files, {} symlinks, {} other), {} orphans; {}/{} blocks used{}",
            if n == 1 { "" } else { "s" },
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
