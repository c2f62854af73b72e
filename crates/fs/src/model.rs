//! The reference model of the file system: an in-memory tree of
//! directories, regular files (with hard links and their bytes) and
//! symbolic links, plus the open handles of the workload, and the
//! comparable form of a whole tree (`State`).
//!
//! Invariants:
//! - a call either fails with the errno the file system must return and
//!   changes nothing, or succeeds and changes the tree exactly as POSIX
//!   says (rename over a file or an empty directory replaces it; a file
//!   lives while it has a link or an open handle);
//! - `State` names every reachable path (`/`-joined, relative to the root)
//!   with what it holds; a file is its length, a digest of its bytes and the
//!   smallest path of its inode, so a hard link that a crash split into two
//!   files is a difference.
//!
//! The checker keeps one `State` per prefix of the workload, not the bytes,
//! so a long workload over large files costs a digest per change.
//!
//! One model serves both users: the file system's own seeded model test
//! (`crates/fs/tests/model.rs`) and the file-system crash checker
//! (`crashcheck::fs`). [`observe`] reads a mounted file system into the
//! same `State`, so both compare trees the same way.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::Hasher;

use ftl::BlockDevice;

use crate::{errno, FileType, Fs, ROOT_INO};

/// A path from the root, one name per component.
pub type Path = Vec<Vec<u8>>;

/// The `/`-joined form of a path (names are ASCII in generated workloads).
pub fn path_str(p: &[Vec<u8>]) -> String {
    let parts: Vec<String> = p
        .iter()
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    parts.join("/")
}

/// `EBADF`: a handle the workload never opened (the file system has no
/// handles, so only the model can say this).
pub const EBADF: i32 = 9;

/// The bytes of a file, reduced to what a comparison needs.
pub fn digest(bytes: &[u8]) -> u64 {
    // SipHash with fixed keys: the same in both halves of a comparison.
    let mut h = DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// What one path of a tree holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sig {
    Dir,
    /// A regular file: its length, a digest of its bytes, and the smallest
    /// path of its inode (equal for every hard link of it).
    File {
        len: u64,
        digest: u64,
        first_link: String,
    },
    Symlink(Vec<u8>),
    /// The extended attributes of the path before ` (xattrs)` in the
    /// key: each name with a digest of its value (only paths with some).
    Xattrs(Vec<(String, u64)>),
}

/// The `State` key of a path's extended attributes.
pub fn xattr_key(path: &str) -> String {
    format!("{path} (xattrs)")
}

impl fmt::Display for Sig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sig::Dir => f.write_str("a directory"),
            Sig::File {
                len,
                digest,
                first_link,
            } => write!(
                f,
                "a file of {len} bytes (digest {digest:016x}, inode first linked at `{first_link}`)"
            ),
            Sig::Symlink(t) => write!(f, "a symlink to `{}`", String::from_utf8_lossy(t)),
            Sig::Xattrs(x) => {
                f.write_str("attributes")?;
                for (n, d) in x {
                    write!(f, " {n}={d:016x}")?;
                }
                Ok(())
            }
        }
    }
}

/// A whole tree: every reachable path and what it holds.
pub type State = BTreeMap<String, Sig>;

/// The first path where two trees differ, in words (`None`: equal).
pub fn first_difference(want: &State, got: &State) -> Option<String> {
    let mut paths: Vec<&String> = want.keys().chain(got.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .find_map(|p| match (want.get(p), got.get(p)) {
            (Some(w), Some(g)) if w == g => None,
            (Some(w), Some(g)) => Some(format!("`{p}`: expected {w}, found {g}")),
            (Some(w), None) => Some(format!("`{p}`: expected {w}, found nothing")),
            (None, Some(g)) => Some(format!("`{p}`: expected nothing, found {g}")),
            (None, None) => None,
        })
}

/// The states a call that commits in several steps (a long write, a
/// shrinking truncate) may leave when cut between them: the tree before
/// the call with every link of one file holding one of `contents` (length,
/// digest).
#[derive(Clone, Debug, Default)]
pub struct Partial {
    pub paths: Vec<String>,
    pub contents: Vec<(u64, u64)>,
}

impl Partial {
    /// Whether `got` is `before` with the file cut part way.
    pub fn matches(&self, before: &State, got: &State) -> bool {
        if self.paths.is_empty() || before.len() != got.len() {
            return false;
        }
        let mut content = None;
        for (p, want) in before {
            let Some(g) = got.get(p) else {
                return false;
            };
            if !self.paths.contains(p) {
                if g != want {
                    return false;
                }
                continue;
            }
            let (
                Sig::File { first_link: a, .. },
                Sig::File {
                    len,
                    digest,
                    first_link: b,
                },
            ) = (want, g)
            else {
                return false;
            };
            if a != b || content.is_some_and(|c| c != (*len, *digest)) {
                return false;
            }
            content = Some((*len, *digest));
        }
        content.is_some_and(|c| self.contents.contains(&c))
    }
}

/// File-system block size: where a long call may be cut.
pub const BLOCK: u64 = crate::BLOCK_SIZE as u64;

type Id = u64;
const ROOT: Id = 0;

#[derive(Clone, Debug)]
enum Node {
    Dir {
        entries: BTreeMap<Vec<u8>, Id>,
        parent: Id,
    },
    File {
        data: Vec<u8>,
        nlink: u32,
        /// The digest of `data`, while it has not changed.
        digest: Option<u64>,
    },
    Symlink(Vec<u8>),
}

/// What a call may return: success, or the errno it must fail with.
pub type Outcome = Result<(), i32>;

/// The reference file system.
#[derive(Clone, Debug)]
pub struct Model {
    nodes: HashMap<Id, Node>,
    next_id: Id,
    /// Open handles of the workload and the files they hold.
    handles: BTreeMap<u32, Id>,
    /// Extended attributes of the nodes that have some.
    xattrs: HashMap<Id, BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl Default for Model {
    fn default() -> Self {
        Model::new()
    }
}

impl Model {
    /// An empty file system (the root directory only).
    pub fn new() -> Model {
        let mut nodes = HashMap::new();
        nodes.insert(
            ROOT,
            Node::Dir {
                entries: BTreeMap::new(),
                parent: ROOT,
            },
        );
        Model {
            nodes,
            next_id: 1,
            handles: BTreeMap::new(),
            xattrs: HashMap::new(),
        }
    }

    fn entries(&self, d: Id) -> &BTreeMap<Vec<u8>, Id> {
        match &self.nodes[&d] {
            Node::Dir { entries, .. } => entries,
            _ => unreachable!("entries of a non-directory"),
        }
    }

    fn entries_mut(&mut self, d: Id) -> &mut BTreeMap<Vec<u8>, Id> {
        match self.nodes.get_mut(&d) {
            Some(Node::Dir { entries, .. }) => entries,
            _ => unreachable!("entries of a non-directory"),
        }
    }

    fn is_dir(&self, i: Id) -> bool {
        matches!(self.nodes[&i], Node::Dir { .. })
    }

    fn resolve(&self, path: &[Vec<u8>]) -> Result<Id, i32> {
        let mut at = ROOT;
        for c in path {
            if !self.is_dir(at) {
                return Err(errno::ENOTDIR);
            }
            at = *self.entries(at).get(c).ok_or(errno::ENOENT)?;
        }
        Ok(at)
    }

    /// The directory holding `path` and the last name.
    fn parent<'p>(&self, path: &'p [Vec<u8>]) -> Result<(Id, &'p [u8]), i32> {
        let (name, dir) = path.split_last().ok_or(errno::EINVAL)?;
        let d = self.resolve(dir)?;
        if !self.is_dir(d) {
            return Err(errno::ENOTDIR);
        }
        Ok((d, name))
    }

    fn file(&self, path: &[Vec<u8>]) -> Result<Id, i32> {
        let i = self.resolve(path)?;
        match self.nodes[&i] {
            Node::File { .. } => Ok(i),
            Node::Dir { .. } => Err(errno::EISDIR),
            Node::Symlink(_) => Err(errno::EINVAL),
        }
    }

    fn add(&mut self, node: Node) -> Id {
        let id = self.next_id;
        self.next_id += 1;
        self.nodes.insert(id, node);
        id
    }

    /// Frees a file nobody links or holds.
    fn maybe_free(&mut self, i: Id) {
        let unused = match &self.nodes[&i] {
            Node::File { nlink, .. } => *nlink == 0 && !self.handles.values().any(|&h| h == i),
            Node::Symlink(_) => true,
            Node::Dir { .. } => !self.handles.values().any(|&h| h == i),
        };
        if unused {
            self.nodes.remove(&i);
            self.xattrs.remove(&i);
        }
    }

    /// Drops one link of `i` (a file or symlink).
    fn drop_link(&mut self, i: Id) {
        if let Some(Node::File { nlink, .. }) = self.nodes.get_mut(&i) {
            *nlink -= 1;
        }
        self.maybe_free(i);
    }

    fn is_ancestor(&self, a: Id, mut d: Id) -> bool {
        loop {
            if d == a {
                return true;
            }
            if d == ROOT {
                return false;
            }
            d = match &self.nodes[&d] {
                Node::Dir { parent, .. } => *parent,
                _ => unreachable!("a parent that is not a directory"),
            };
        }
    }

    fn new_entry(&mut self, path: &[Vec<u8>], node: Node) -> Result<Id, i32> {
        let (d, name) = self.parent(path)?;
        if self.entries(d).contains_key(name) {
            return Err(errno::EEXIST);
        }
        let node = match node {
            Node::Dir { entries, .. } => Node::Dir { entries, parent: d },
            n => n,
        };
        let id = self.add(node);
        self.entries_mut(d).insert(name.to_vec(), id);
        Ok(id)
    }

    /// `creat`: a new empty file, left open as `handle`.
    pub fn create(&mut self, path: &[Vec<u8>], handle: u32) -> Outcome {
        let id = self.new_entry(
            path,
            Node::File {
                data: Vec::new(),
                nlink: 1,
                digest: None,
            },
        )?;
        self.handles.insert(handle, id);
        Ok(())
    }

    pub fn mkdir(&mut self, path: &[Vec<u8>]) -> Outcome {
        self.new_entry(
            path,
            Node::Dir {
                entries: BTreeMap::new(),
                parent: ROOT,
            },
        )
        .map(|_| ())
    }

    pub fn symlink(&mut self, path: &[Vec<u8>], target: &[u8]) -> Outcome {
        self.new_entry(path, Node::Symlink(target.to_vec()))
            .map(|_| ())
    }

    /// `open` of an existing file as `handle`.
    pub fn open(&mut self, path: &[Vec<u8>], handle: u32) -> Outcome {
        let i = self.file(path)?;
        self.handles.insert(handle, i);
        Ok(())
    }

    /// The last close of a handle frees a file that has no links left.
    pub fn release(&mut self, handle: u32) -> Outcome {
        let i = self.handles.remove(&handle).ok_or(EBADF)?;
        self.maybe_free(i);
        Ok(())
    }

    /// The file a path or a handle names.
    pub fn target(&self, t: &Target) -> Result<u64, i32> {
        match t {
            Target::Path(p) => self.file(p),
            Target::Handle(h) => self.handles.get(h).copied().ok_or(EBADF),
        }
    }

    pub fn write(&mut self, t: &Target, off: u64, bytes: &[u8]) -> Outcome {
        let i = self.target(t)?;
        if let Some(Node::File { data, digest, .. }) = self.nodes.get_mut(&i) {
            let end = off as usize + bytes.len();
            if data.len() < end {
                data.resize(end, 0);
            }
            data[off as usize..end].copy_from_slice(bytes);
            *digest = None;
        }
        Ok(())
    }

    /// `fallocate(2)` with `mode` (`FALLOC_FL_*` bits) over `off..off +
    /// len`, as [`Fs::fallocate`] checks and applies it, on the bytes a
    /// reader sees: punch hole and zero range zero the range inside the
    /// file, the modes without `KEEP_SIZE` (but punch) may grow it, and
    /// preallocated blocks are invisible.
    pub fn fallocate(&mut self, t: &Target, mode: u32, off: u64, len: u64) -> Outcome {
        use crate::{FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE};
        let i = self.target(t)?;
        let known = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
        let punch = mode & FALLOC_FL_PUNCH_HOLE != 0;
        let zero = mode & FALLOC_FL_ZERO_RANGE != 0;
        let keep = mode & FALLOC_FL_KEEP_SIZE != 0;
        if mode & !known != 0 || (punch && (!keep || zero)) {
            return Err(errno::EOPNOTSUPP);
        }
        if len == 0 {
            return Err(errno::EINVAL);
        }
        if !matches!(off.checked_add(len), Some(e) if e <= crate::MAX_FILE_SIZE) {
            return Err(errno::EFBIG);
        }
        if let Some(Node::File { data, digest, .. }) = self.nodes.get_mut(&i) {
            let end = (off + len) as usize;
            let hi = end.min(data.len());
            if (punch || zero) && (off as usize) < hi {
                data[off as usize..hi].fill(0);
            }
            if !punch && !keep && end > data.len() {
                data.resize(end, 0);
            }
            *digest = None;
        }
        Ok(())
    }

    /// `lsetxattr(2)` of a `user.` or `trusted.` attribute with `flags`
    /// (`XATTR_CREATE`, `XATTR_REPLACE`), as [`Fs::setxattr`] checks it:
    /// `EPERM` for a user attribute on a symlink, `ENOSPC` when the
    /// inode's attributes would not fit their one block. (The generator
    /// makes no ACLs: their effect on modes is the unit tests'.)
    pub fn setxattr(&mut self, path: &[Vec<u8>], name: &[u8], value: &[u8], flags: u32) -> Outcome {
        self.setxattr_outcome(path, name, value, flags)?;
        let i = self.resolve(path)?;
        self.xattrs
            .entry(i)
            .or_default()
            .insert(name.to_vec(), value.to_vec());
        Ok(())
    }

    /// What [`Model::setxattr`] would return, changing nothing.
    pub fn setxattr_outcome(
        &self,
        path: &[Vec<u8>],
        name: &[u8],
        value: &[u8],
        flags: u32,
    ) -> Outcome {
        use crate::xattr::{Xattrs, XATTR_CREATE, XATTR_REPLACE};
        let i = self.resolve(path)?;
        if name.starts_with(b"user.") && matches!(self.nodes[&i], Node::Symlink(_)) {
            return Err(errno::EPERM);
        }
        let mut x = Xattrs(self.xattrs.get(&i).cloned().unwrap_or_default());
        let exists = x.0.contains_key(name);
        if flags & XATTR_CREATE != 0 && exists {
            return Err(errno::EEXIST);
        }
        if flags & XATTR_REPLACE != 0 && !exists {
            return Err(errno::ENODATA);
        }
        x.0.insert(name.to_vec(), value.to_vec());
        if !x.fits() {
            return Err(errno::ENOSPC);
        }
        Ok(())
    }

    /// `lremovexattr(2)`.
    pub fn removexattr(&mut self, path: &[Vec<u8>], name: &[u8]) -> Outcome {
        let i = self.resolve(path)?;
        if name.starts_with(b"user.") && matches!(self.nodes[&i], Node::Symlink(_)) {
            return Err(errno::EPERM);
        }
        let x = self.xattrs.entry(i).or_default();
        let gone = x.remove(name).is_some();
        if x.is_empty() {
            self.xattrs.remove(&i);
        }
        if gone {
            Ok(())
        } else {
            Err(errno::ENODATA)
        }
    }

    /// The attribute names of the node at `path` (none if it has none).
    pub fn xattr_names(&self, path: &[Vec<u8>]) -> Vec<Vec<u8>> {
        self.resolve(path)
            .ok()
            .and_then(|i| self.xattrs.get(&i))
            .map(|x| x.keys().cloned().collect())
            .unwrap_or_default()
    }

    pub fn truncate(&mut self, path: &[Vec<u8>], size: u64) -> Outcome {
        let i = self.file(path)?;
        if let Some(Node::File { data, digest, .. }) = self.nodes.get_mut(&i) {
            data.resize(size as usize, 0);
            *digest = None;
        }
        Ok(())
    }

    pub fn unlink(&mut self, path: &[Vec<u8>]) -> Outcome {
        let (d, name) = self.parent(path)?;
        let i = *self.entries(d).get(name).ok_or(errno::ENOENT)?;
        if self.is_dir(i) {
            return Err(errno::EISDIR);
        }
        self.entries_mut(d).remove(name);
        self.drop_link(i);
        Ok(())
    }

    pub fn rmdir(&mut self, path: &[Vec<u8>]) -> Outcome {
        let (d, name) = self.parent(path)?;
        let i = *self.entries(d).get(name).ok_or(errno::ENOENT)?;
        if !self.is_dir(i) {
            return Err(errno::ENOTDIR);
        }
        if !self.entries(i).is_empty() {
            return Err(errno::ENOTEMPTY);
        }
        self.entries_mut(d).remove(name);
        self.maybe_free(i);
        Ok(())
    }

    pub fn link(&mut self, from: &[Vec<u8>], to: &[Vec<u8>]) -> Outcome {
        let i = self
            .file(from)
            .map_err(|e| if e == errno::EISDIR { errno::EPERM } else { e })?;
        let (d, name) = self.parent(to)?;
        if self.entries(d).contains_key(name) {
            return Err(errno::EEXIST);
        }
        self.entries_mut(d).insert(name.to_vec(), i);
        if let Some(Node::File { nlink, .. }) = self.nodes.get_mut(&i) {
            *nlink += 1;
        }
        Ok(())
    }

    /// `rename(2)` without flags: checks everything before changing
    /// anything.
    pub fn rename(&mut self, from: &[Vec<u8>], to: &[Vec<u8>]) -> Outcome {
        let (sp, sn) = self.parent(from)?;
        let (dp, dn) = self.parent(to)?;
        let s = *self.entries(sp).get(sn).ok_or(errno::ENOENT)?;
        let t = self.entries(dp).get(dn).copied();
        if t == Some(s) {
            return Ok(());
        }
        let s_dir = self.is_dir(s);
        if s_dir && self.is_ancestor(s, dp) {
            return Err(errno::EINVAL);
        }
        if let Some(t) = t {
            let t_dir = self.is_dir(t);
            if s_dir && !t_dir {
                return Err(errno::ENOTDIR);
            }
            if s_dir && !self.entries(t).is_empty() {
                return Err(errno::ENOTEMPTY);
            }
            if !s_dir && t_dir {
                return Err(errno::EISDIR);
            }
        }
        self.entries_mut(sp).remove(sn);
        self.entries_mut(dp).insert(dn.to_vec(), s);
        if let Some(t) = t {
            if self.is_dir(t) {
                self.maybe_free(t);
            } else {
                self.drop_link(t);
            }
        }
        if let Some(Node::Dir { parent, .. }) = self.nodes.get_mut(&s) {
            *parent = dp;
        }
        Ok(())
    }

    /// `rename` with `RENAME_EXCHANGE`: `a` and `b` swap what they name.
    pub fn exchange(&mut self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Outcome {
        let (sp, sn) = self.parent(a)?;
        let (dp, dn) = self.parent(b)?;
        let s = *self.entries(sp).get(sn).ok_or(errno::ENOENT)?;
        let t = *self.entries(dp).get(dn).ok_or(errno::ENOENT)?;
        if s == t {
            return Ok(());
        }
        if (self.is_dir(s) && self.is_ancestor(s, dp))
            || (self.is_dir(t) && self.is_ancestor(t, sp))
        {
            return Err(errno::EINVAL);
        }
        self.entries_mut(sp).insert(sn.to_vec(), t);
        self.entries_mut(dp).insert(dn.to_vec(), s);
        if let Some(Node::Dir { parent, .. }) = self.nodes.get_mut(&s) {
            *parent = dp;
        }
        if let Some(Node::Dir { parent, .. }) = self.nodes.get_mut(&t) {
            *parent = sp;
        }
        Ok(())
    }

    /// `fsync` of a path: fails only if the path does not resolve.
    pub fn fsync(&self, path: &[Vec<u8>]) -> Outcome {
        self.resolve(path).map(|_| ())
    }

    /// Every reachable path, depth first in name order, with its node.
    fn paths(&self) -> Vec<(Path, Id)> {
        let mut out = Vec::new();
        let mut stack = vec![(Vec::new(), ROOT)];
        while let Some((p, d)) = stack.pop() {
            for (name, &i) in self.entries(d) {
                let mut q: Path = p.clone();
                q.push(name.clone());
                if self.is_dir(i) {
                    stack.push((q.clone(), i));
                }
                out.push((q, i));
            }
        }
        out
    }

    /// Paths of directories (the root is the empty path).
    pub fn dirs(&self) -> Vec<Path> {
        let mut v: Vec<Path> = vec![Vec::new()];
        v.extend(
            self.paths()
                .into_iter()
                .filter(|(_, i)| self.is_dir(*i))
                .map(|(p, _)| p),
        );
        v
    }

    /// Paths of regular files (every link), with their current sizes.
    pub fn files(&self) -> Vec<(Path, u64)> {
        self.paths()
            .into_iter()
            .filter_map(|(p, i)| match &self.nodes[&i] {
                Node::File { data, .. } => Some((p, data.len() as u64)),
                _ => None,
            })
            .collect()
    }

    /// Paths of symlinks.
    pub fn symlinks(&self) -> Vec<Path> {
        self.paths()
            .into_iter()
            .filter(|(_, i)| matches!(self.nodes[i], Node::Symlink(_)))
            .map(|(p, _)| p)
            .collect()
    }

    /// The entries of directory `dir`: (name, whether it is a directory),
    /// in name order; empty if `dir` is not a directory.
    pub fn children(&self, dir: &[Vec<u8>]) -> Vec<(Vec<u8>, bool)> {
        match self.resolve(dir) {
            Ok(d) if self.is_dir(d) => self
                .entries(d)
                .iter()
                .map(|(n, &i)| (n.clone(), self.is_dir(i)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Live inodes (the root, every linked node and every open file): what
    /// the file system must have allocated.
    pub fn inodes(&self) -> usize {
        self.nodes.len()
    }

    /// Whether `path` names an empty directory.
    pub fn is_empty_dir(&self, path: &[Vec<u8>]) -> bool {
        self.resolve(path)
            .is_ok_and(|i| self.is_dir(i) && self.entries(i).is_empty())
    }

    /// Whether `path` exists.
    pub fn exists(&self, path: &[Vec<u8>]) -> bool {
        self.resolve(path).is_ok()
    }

    /// Open handles and the size of the file each holds.
    pub fn handles(&self) -> Vec<(u32, u64)> {
        self.handles
            .iter()
            .map(|(&h, i)| match &self.nodes[i] {
                Node::File { data, .. } => (h, data.len() as u64),
                _ => (h, 0),
            })
            .collect()
    }

    /// Bytes held by live files (linked or open).
    pub fn bytes(&self) -> u64 {
        self.nodes
            .values()
            .map(|n| match n {
                Node::File { data, .. } => data.len() as u64,
                _ => 0,
            })
            .sum()
    }

    /// The size of the file a target names.
    pub fn size(&self, t: &Target) -> Option<u64> {
        match self.nodes.get(&self.target(t).ok()?)? {
            Node::File { data, .. } => Some(data.len() as u64),
            _ => None,
        }
    }

    /// The whole tree in comparable form.
    pub fn state(&mut self) -> State {
        let paths = self.paths();
        let mut first: HashMap<Id, String> = HashMap::new();
        for (p, i) in &paths {
            let s = path_str(p);
            first
                .entry(*i)
                .and_modify(|f| {
                    if s < *f {
                        *f = s.clone();
                    }
                })
                .or_insert(s);
        }
        let mut out = State::new();
        for (p, i) in paths {
            let sig = match self.nodes.get_mut(&i) {
                Some(Node::Dir { .. }) => Sig::Dir,
                Some(Node::Symlink(t)) => Sig::Symlink(t.clone()),
                Some(Node::File { data, digest, .. }) => {
                    let d = *digest.get_or_insert_with(|| self::digest(data));
                    Sig::File {
                        len: data.len() as u64,
                        digest: d,
                        first_link: first[&i].clone(),
                    }
                }
                None => unreachable!("a reachable path to a freed node"),
            };
            if let Some(x) = self.xattrs.get(&i) {
                out.insert(xattr_key(&path_str(&p)), xattr_sig(x.iter()));
            }
            out.insert(path_str(&p), sig);
        }
        out
    }

    /// The states a write of `bytes` at `off` may leave if cut between its
    /// steps: it commits whole blocks first, so the file holds the bytes up
    /// to a block boundary inside the write (the size grows with them).
    pub fn partial_write(&self, t: &Target, off: u64, bytes: &[u8]) -> Partial {
        let Ok(i) = self.target(t) else {
            return Partial::default();
        };
        let Node::File { data, .. } = &self.nodes[&i] else {
            return Partial::default();
        };
        let end = off + bytes.len() as u64;
        let mut contents = Vec::new();
        let mut cut = (off / BLOCK + 1) * BLOCK;
        while cut < end {
            let k = (cut - off) as usize;
            let mut d = data.clone();
            let e = off as usize + k;
            if d.len() < e {
                d.resize(e, 0);
            }
            d[off as usize..e].copy_from_slice(&bytes[..k]);
            contents.push((d.len() as u64, digest(&d)));
            cut += BLOCK;
        }
        Partial {
            paths: self.links(i),
            contents,
        }
    }

    /// The states a punch hole or zero range may leave if cut between its
    /// steps: it works upwards one block per piece, so the file has
    /// `off..x` zeroed for a block boundary `x` inside the range (at its
    /// old size: zero range grows the file in its last step).
    /// Preallocation shows nothing before its last step: no states.
    pub fn partial_fallocate(&self, t: &Target, mode: u32, off: u64, len: u64) -> Partial {
        use crate::{FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE};
        let Ok(i) = self.target(t) else {
            return Partial::default();
        };
        let Node::File { data, .. } = &self.nodes[&i] else {
            return Partial::default();
        };
        if mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE) == 0 {
            return Partial::default();
        }
        let end = off.saturating_add(len).min(data.len() as u64);
        let mut contents = Vec::new();
        let mut cut = (off / BLOCK + 1) * BLOCK;
        let mut x = off;
        while x < end {
            x = cut.min(end);
            let mut d = data.clone();
            d[off as usize..x as usize].fill(0);
            contents.push((d.len() as u64, digest(&d)));
            cut += BLOCK;
        }
        Partial {
            paths: self.links(i),
            contents,
        }
    }

    /// The states a shrinking truncate may leave if cut between its steps:
    /// it frees the blocks last first, so the size passes through each
    /// block boundary between the old and the new size.
    pub fn partial_truncate(&self, path: &[Vec<u8>], size: u64) -> Partial {
        let Ok(i) = self.file(path) else {
            return Partial::default();
        };
        let Node::File { data, .. } = &self.nodes[&i] else {
            return Partial::default();
        };
        let mut contents = Vec::new();
        let mut cut = (size / BLOCK + 1) * BLOCK;
        while cut < data.len() as u64 {
            contents.push((cut, digest(&data[..cut as usize])));
            cut += BLOCK;
        }
        Partial {
            paths: self.links(i),
            contents,
        }
    }

    fn links(&self, i: Id) -> Vec<String> {
        self.paths()
            .into_iter()
            .filter(|(_, j)| *j == i)
            .map(|(p, _)| path_str(&p))
            .collect()
    }
}

/// The file a write names: a path, or a handle opened earlier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Path(Path),
    Handle(u32),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Path(p) => f.write_str(&path_str(p)),
            Target::Handle(h) => write!(f, "#{h}"),
        }
    }
}

/// The comparable form of a node's attributes.
fn xattr_sig<'a>(x: impl Iterator<Item = (&'a Vec<u8>, &'a Vec<u8>)>) -> Sig {
    Sig::Xattrs(
        x.map(|(n, v)| (String::from_utf8_lossy(n).into_owned(), digest(v)))
            .collect(),
    )
}

/// The whole tree of a mounted file system in comparable form (the
/// [`Model::state`] of what it shows): every path from the root, its kind,
/// a file's length, digest and first link, a symlink's target.
pub fn observe<D: BlockDevice>(fs: &mut Fs<D>) -> Result<State, String> {
    let root = u64::from(ROOT_INO);
    let mut found: Vec<(String, u64, FileType)> = Vec::new();
    let mut stack = vec![(String::new(), root, 0usize)];
    while let Some((prefix, dir, depth)) = stack.pop() {
        if depth > 64 {
            return Err(format!("directories nested deeper than 64 at `{prefix}`"));
        }
        let entries = fs
            .readdir_all(dir)
            .map_err(|e| format!("readdir of `{prefix}` failed: {e}"))?;
        for e in entries {
            if e.name == b"." || e.name == b".." {
                continue;
            }
            let path = format!("{prefix}{}", String::from_utf8_lossy(&e.name));
            if e.kind == FileType::Directory {
                stack.push((format!("{path}/"), e.ino, depth + 1));
            }
            found.push((path, e.ino, e.kind));
        }
    }
    let mut first: HashMap<u64, String> = HashMap::new();
    for (p, ino, _) in &found {
        let f = first.entry(*ino).or_insert_with(|| p.clone());
        if p < f {
            *f = p.clone();
        }
    }
    let mut out = State::new();
    let mut digests: HashMap<u64, (u64, u64)> = HashMap::new();
    for (path, ino, kind) in found {
        let a = fs
            .getattr(ino)
            .map_err(|e| format!("getattr of `{path}` failed: {e}"))?;
        if a.kind != kind {
            return Err(format!(
                "`{path}`: the entry says {kind:?}, the inode {:?}",
                a.kind
            ));
        }
        let sig = match kind {
            FileType::Directory => Sig::Dir,
            FileType::Symlink => Sig::Symlink(
                fs.readlink(ino)
                    .map_err(|e| format!("readlink of `{path}` failed: {e}"))?,
            ),
            FileType::RegularFile => {
                let (len, d) = match digests.get(&ino) {
                    Some(v) => *v,
                    None => {
                        let data = read_all(fs, ino, a.size)
                            .map_err(|e| format!("reading `{path}` failed: {e}"))?;
                        let v = (data.len() as u64, digest(&data));
                        digests.insert(ino, v);
                        v
                    }
                };
                Sig::File {
                    len,
                    digest: d,
                    first_link: first[&ino].clone(),
                }
            }
            other => return Err(format!("`{path}` is a {other:?}, which no call creates")),
        };
        let names = fs
            .listxattr(ino)
            .map_err(|e| format!("listxattr of `{path}` failed: {e}"))?;
        if !names.is_empty() {
            let mut x = BTreeMap::new();
            for n in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
                let v = fs.getxattr(ino, n).map_err(|e| {
                    format!(
                        "getxattr of `{path}` `{}` failed: {e}",
                        String::from_utf8_lossy(n)
                    )
                })?;
                x.insert(n.to_vec(), v);
            }
            out.insert(xattr_key(&path), xattr_sig(x.iter()));
        }
        out.insert(path, sig);
    }
    Ok(out)
}

/// The first `size` bytes of file `ino`.
fn read_all<D: BlockDevice>(fs: &mut Fs<D>, ino: u64, size: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(size as usize);
    while (out.len() as u64) < size {
        let chunk = fs
            .read(ino, out.len() as u64, 1 << 20)
            .map_err(|e| e.to_string())?;
        if chunk.is_empty() {
            return Err(format!("read stops at {} of {size} bytes", out.len()));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Path {
        s.split('/').map(|c| c.as_bytes().to_vec()).collect()
    }

    #[test]
    fn rename_over_a_file_keeps_an_open_victim_until_release() {
        let mut m = Model::new();
        m.create(&p("a"), 1).unwrap();
        m.write(&Target::Path(p("a")), 0, b"old").unwrap();
        m.create(&p("b"), 2).unwrap();
        m.rename(&p("b"), &p("a")).unwrap();
        assert_eq!(m.state().len(), 1);
        assert_eq!(m.write(&Target::Handle(1), 3, b"!"), Ok(()));
        assert_eq!(m.bytes(), 4, "the open victim still holds its bytes");
        m.release(1).unwrap();
        assert_eq!(m.bytes(), 0);
        assert_eq!(m.rmdir(&p("a")), Err(errno::ENOTDIR));
        m.mkdir(&p("d")).unwrap();
        m.mkdir(&p("d/e")).unwrap();
        assert_eq!(m.rename(&p("d"), &p("d/e/f")), Err(errno::EINVAL));
        m.mkdir(&p("x")).unwrap();
        assert_eq!(m.rename(&p("x"), &p("d")), Err(errno::ENOTEMPTY));
        m.rename(&p("d/e"), &p("x")).unwrap();
        assert!(m.is_empty_dir(&p("d")) && m.exists(&p("x")));
    }

    #[test]
    fn partial_states_stop_at_block_boundaries() {
        let mut m = Model::new();
        m.create(&p("f"), 1).unwrap();
        m.link(&p("f"), &p("g")).unwrap();
        let t = Target::Path(p("f"));
        let bytes = vec![7u8; 3 * BLOCK as usize];
        let part = m.partial_write(&t, 100, &bytes);
        assert_eq!(part.paths, vec!["f".to_string(), "g".to_string()]);
        let lens: Vec<u64> = part.contents.iter().map(|c| c.0).collect();
        assert_eq!(lens, vec![BLOCK, 2 * BLOCK, 3 * BLOCK]);
        let before = m.state();
        m.write(&t, 100, &bytes[..(BLOCK - 100) as usize]).unwrap();
        let mid = m.state();
        assert!(part.matches(&before, &mid));
        m.write(&t, BLOCK, &bytes[..10]).unwrap();
        assert!(!part.matches(&before, &m.state()));
        let shrink = m.partial_truncate(&p("g"), 0);
        let lens: Vec<u64> = shrink.contents.iter().map(|c| c.0).collect();
        assert_eq!(lens, vec![BLOCK], "the second block goes first");
    }
}
