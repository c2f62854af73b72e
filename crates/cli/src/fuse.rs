//! The FUSE adapter: maps each request of `fuser`'s low-level `Filesystem`
//! trait onto one call of the `fs` crate's inode-number API.
//!
//! It owns the mounted [`fs::Fs`] behind a mutex (fuser's session and the
//! idle-flush timer of `scftl mount` both call into it) and the kernel's
//! references to inodes.
//!
//! Invariants:
//! - The file system's lookup count of an inode ([`fs::Fs::hold`]) equals
//!   the kernel's: every reply that hands the kernel an entry (lookup,
//!   create, mknod, mkdir, symlink, link) holds one count, and `forget` /
//!   `batch_forget` drop what the kernel says it dropped. The kernel
//!   identifies inodes by number only, so an inode unlinked while the kernel
//!   still knows it must keep its number (and blocks) until it is forgotten.
//!   The root is never counted (the kernel never forgets it).
//! - Each `open`/`create` is one open of the file system's, ended by its
//!   `release`; an unlinked inode is freed by the last of its releases and
//!   forgets, or by the unmount.
//! - After the session ends, [`Shared::take`] hands the file system back
//!   for a flushing unmount; requests that arrive later fail with `EIO`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use fs::{Attr, FsError, Owner, SetAttr, TimeSet};
use ftl::BlockDevice;
use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, InitFlags, KernelConfig, LockOwner, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate,
    ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyLseek, ReplyOpen, ReplyStatfs,
    ReplyWrite, ReplyXattr, Request, TimeOrNow, WriteFlags,
};

/// The device a mounted image runs on.
pub type Device = Box<dyn BlockDevice + Send + Sync>;
/// The mounted file system.
pub type MountedFs = fs::Fs<Device>;

/// How long the kernel may cache attributes and names. The file system
/// has one client (this kernel mount), so short caching is only a bound
/// on staleness after hard-link changes seen through another path.
const TTL: Duration = Duration::from_secs(1);

/// State shared between the FUSE session and the idle-flush timer.
struct State {
    fs: Option<MountedFs>,
    /// Device errors already reported (the first few are printed).
    device_errors: u64,
}

/// A handle on the mounted file system; clones share it.
#[derive(Clone)]
pub struct Shared(Arc<Mutex<State>>);

impl Shared {
    pub fn new(fs: MountedFs) -> Shared {
        Shared(Arc::new(Mutex::new(State {
            fs: Some(fs),
            device_errors: 0,
        })))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic inside a request leaves the state as consistent as the file
        // system's own error handling made it; keep serving.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs the idle flush; returns an error message if the flush failed.
    pub fn tick(&self) -> Option<String> {
        let mut st = self.lock();
        let fs = st.fs.as_mut()?;
        fs.tick(std::time::Instant::now())
            .err()
            .map(|e| e.to_string())
    }

    /// Prints the device's counters and the file system's (none once
    /// unmounted).
    pub fn print_stats(&self) {
        let st = self.lock();
        if let Some(fs) = st.fs.as_ref() {
            crate::stats::print(fs.device(), &fs_fields(&fs.stats()));
        }
    }

    /// Takes the file system out for unmounting; later requests get `EIO`.
    pub fn take(&self) -> Option<MountedFs> {
        self.lock().fs.take()
    }
}

/// The file system's own counters, as extra fields of the stats line.
pub fn fs_fields(s: &fs::FsStats) -> String {
    format!(
        "fs_calls={} fs_steps={} fs_flushes={} fs_epoch_flushes={} fs_log_blocks={}",
        s.calls, s.steps, s.flushes, s.epoch_flushes, s.log_blocks_written
    )
}

/// The `fuser::Filesystem` implementation.
pub struct FuseFs {
    shared: Shared,
    /// The kernel agreed to POSIX ACLs (`FUSE_POSIX_ACL`): it checks them
    /// and leaves the umask to the file system, which applies it unless
    /// the directory has a default ACL.
    acl: bool,
}

impl FuseFs {
    pub fn new(shared: Shared) -> FuseFs {
        FuseFs { shared, acl: false }
    }

    /// The creator of a new inode, with the umask the file system must
    /// apply (none when the kernel applied it).
    fn creator(&self, req: &Request, umask: u32) -> Owner {
        Owner {
            umask: if self.acl { umask } else { 0 },
            ..owner(req)
        }
    }

    /// Runs `f` on the file system, mapping its error to an errno.
    fn with<T>(&self, f: impl FnOnce(&mut State) -> Result<T, FsError>) -> Result<T, Errno> {
        let mut st = self.shared.lock();
        if st.fs.is_none() {
            return Err(Errno::EIO);
        }
        f(&mut st).map_err(|e| {
            if e.errno() == fs::errno::EIO {
                st.device_errors += 1;
                if st.device_errors <= 10 {
                    eprintln!("scftl: file system error: {e}");
                }
            }
            Errno::from_i32(e.errno())
        })
    }

    /// Notes one more kernel reference to `attr`'s inode (the reply that
    /// hands it to the kernel must follow).
    fn remember(st: &mut State, attr: &Attr) -> Result<(), FsError> {
        if attr.ino == u64::from(fs::ROOT_INO) {
            return Ok(());
        }
        fs_of(st).hold(attr.ino, 1)
    }

    fn reply_entry(&self, reply: ReplyEntry, r: Result<Attr, Errno>) {
        match r {
            Ok(a) => reply.entry(&TTL, &file_attr(&a), Generation(a.generation)),
            Err(e) => reply.error(e),
        }
    }

    /// A call that creates or finds a name and returns its inode.
    fn entry_call(
        &self,
        reply: ReplyEntry,
        f: impl FnOnce(&mut MountedFs) -> Result<Attr, FsError>,
    ) {
        let r = self.with(|st| {
            let a = f(fs_of(st))?;
            Self::remember(st, &a)?;
            Ok(a)
        });
        self.reply_entry(reply, r);
    }

    fn empty_call(&self, reply: ReplyEmpty, f: impl FnOnce(&mut MountedFs) -> Result<(), FsError>) {
        match self.with(|st| f(fs_of(st))) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }
}

/// The file system of a state checked by [`FuseFs::with`].
fn fs_of(st: &mut State) -> &mut MountedFs {
    st.fs
        .as_mut()
        .expect("FuseFs::with checks the file system is mounted")
}

fn owner(req: &Request) -> Owner {
    Owner::new(req.uid(), req.gid())
}

fn kind(k: fs::FileType) -> FileType {
    match k {
        fs::FileType::RegularFile => FileType::RegularFile,
        fs::FileType::Directory => FileType::Directory,
        fs::FileType::Symlink => FileType::Symlink,
        fs::FileType::CharDevice => FileType::CharDevice,
        fs::FileType::BlockDevice => FileType::BlockDevice,
        fs::FileType::NamedPipe => FileType::NamedPipe,
        fs::FileType::Socket => FileType::Socket,
    }
}

fn file_attr(a: &Attr) -> FileAttr {
    FileAttr {
        ino: INodeNo(a.ino),
        size: a.size,
        blocks: a.blocks,
        atime: a.atime(),
        mtime: a.mtime(),
        ctime: a.ctime(),
        crtime: a.ctime(),
        kind: kind(a.kind),
        perm: a.perm,
        nlink: a.nlink,
        uid: a.uid,
        gid: a.gid,
        rdev: a.rdev,
        blksize: a.blksize,
        flags: 0,
    }
}

/// Answers a `getxattr` or `listxattr`: the size when asked for it (`size`
/// 0), the bytes when they fit, `ERANGE` when they do not.
fn reply_xattr(reply: ReplyXattr, size: u32, r: Result<Vec<u8>, Errno>) {
    match r {
        Ok(v) if size == 0 => reply.size(v.len() as u32),
        Ok(v) if v.len() <= size as usize => reply.data(&v),
        Ok(_) => reply.error(Errno::ERANGE),
        Err(e) => reply.error(e),
    }
}

fn time_set(t: TimeOrNow) -> TimeSet {
    match t {
        TimeOrNow::Now => TimeSet::Now,
        TimeOrNow::SpecificTime(t) => TimeSet::At(fs::system_time_ns(t)),
    }
}

impl Filesystem for FuseFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // POSIX ACLs when the kernel has them (without, ACLs would be
        // stored but not enforced), and the umask left to the file system
        // (`DONT_MASK`), which must not apply it under a default ACL.
        self.acl = config
            .add_capabilities(InitFlags::FUSE_POSIX_ACL | InitFlags::FUSE_DONT_MASK)
            .is_ok();
        Ok(())
    }

    fn setxattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        name: &OsStr,
        value: &[u8],
        flags: i32,
        position: u32,
        reply: ReplyEmpty,
    ) {
        if position != 0 {
            // macOS resource forks only.
            reply.error(Errno::EINVAL);
            return;
        }
        self.empty_call(reply, |fs| {
            fs.setxattr(ino.0, name.as_bytes(), value, flags as u32)
        });
    }

    fn getxattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, size: u32, reply: ReplyXattr) {
        let r = self.with(|st| fs_of(st).getxattr(ino.0, name.as_bytes()));
        reply_xattr(reply, size, r);
    }

    fn listxattr(&self, _req: &Request, ino: INodeNo, size: u32, reply: ReplyXattr) {
        let r = self.with(|st| fs_of(st).listxattr(ino.0));
        reply_xattr(reply, size, r);
    }

    fn removexattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.empty_call(reply, |fs| fs.removexattr(ino.0, name.as_bytes()));
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        self.entry_call(reply, |fs| fs.lookup(parent.0, name.as_bytes()));
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        // `forget` has no reply; the default `batch_forget` calls this
        // once per inode.
        let mut st = self.shared.lock();
        if let Some(fs) = st.fs.as_mut() {
            if let Err(e) = fs.forget(ino.0, nlookup) {
                eprintln!("scftl: forget of inode {}: {e}", ino.0);
            }
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.with(|st| fs_of(st).getattr(ino.0)) {
            Ok(a) => reply.attr(&TTL, &file_attr(&a)),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let set = SetAttr {
            mode,
            uid,
            gid,
            size,
            atime: atime.map(time_set),
            mtime: mtime.map(time_set),
            ctime: ctime.map(fs::system_time_ns),
        };
        match self.with(|st| fs_of(st).setattr(ino.0, &set)) {
            Ok(a) => reply.attr(&TTL, &file_attr(&a)),
            Err(e) => reply.error(e),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match self.with(|st| fs_of(st).readlink(ino.0)) {
            Ok(t) => reply.data(&t),
            Err(e) => reply.error(e),
        }
    }

    fn mknod(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        rdev: u32,
        reply: ReplyEntry,
    ) {
        let who = self.creator(req, umask);
        self.entry_call(reply, |fs| {
            fs.mknod(parent.0, name.as_bytes(), mode, rdev, who)
        });
    }

    fn mkdir(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        let who = self.creator(req, umask);
        self.entry_call(reply, |fs| fs.mkdir(parent.0, name.as_bytes(), mode, who));
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.empty_call(reply, |fs| fs.unlink(parent.0, name.as_bytes()));
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.empty_call(reply, |fs| fs.rmdir(parent.0, name.as_bytes()));
    }

    fn symlink(
        &self,
        req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        self.entry_call(reply, |fs| {
            fs.symlink(
                parent.0,
                link_name.as_bytes(),
                target.as_os_str().as_bytes(),
                owner(req),
            )
        });
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        self.empty_call(reply, |fs| {
            fs.rename(
                parent.0,
                name.as_bytes(),
                newparent.0,
                newname.as_bytes(),
                flags.bits(),
            )
        });
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        self.entry_call(reply, |fs| fs.link(ino.0, newparent.0, newname.as_bytes()));
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // O_TRUNC arrives as a separate setattr; the handle is unused (calls
        // name the inode).
        match self.with(|st| fs_of(st).open(ino.0)) {
            Ok(_) => reply.opened(FileHandle(0), FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match self.with(|st| fs_of(st).read(ino.0, offset, size)) {
            Ok(d) => reply.data(&d),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match self.with(|st| fs_of(st).write(ino.0, offset, data)) {
            Ok(n) => reply.written(n),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        // close() is not a durability point; fsync is.
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.empty_call(reply, |fs| fs.release(ino.0));
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        self.empty_call(reply, |fs| fs.fsync(ino.0, datasync));
    }

    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        // Mode bits are non-negative; a negative i32 is an unknown mode.
        let mode = u32::try_from(mode).unwrap_or(u32::MAX);
        self.empty_call(reply, |fs| fs.fallocate(ino.0, offset, length, mode));
    }

    fn lseek(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: i64,
        whence: i32,
        reply: ReplyLseek,
    ) {
        // The kernel answers SEEK_SET, SEEK_CUR and SEEK_END itself; only
        // SEEK_DATA (3) and SEEK_HOLE (4) come here.
        let how = match whence {
            3 => fs::Seek::Data,
            4 => fs::Seek::Hole,
            _ => return reply.error(Errno::EINVAL),
        };
        let Ok(offset) = u64::try_from(offset) else {
            return reply.error(Errno::ENXIO);
        };
        match self.with(|st| fs_of(st).seek(ino.0, offset, how)) {
            Ok(o) => reply.offset(o as i64),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let r = self.with(|st| {
            fs_of(st).readdir(ino.0, offset, |e| {
                reply.add(
                    INodeNo(e.ino),
                    e.next_offset,
                    kind(e.kind),
                    OsStr::from_bytes(&e.name),
                )
            })
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        self.empty_call(reply, |fs| fs.fsyncdir(ino.0, datasync));
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        match self.with(|st| fs_of(st).statfs()) {
            Ok(s) => reply.statfs(
                s.blocks,
                s.blocks_free,
                s.blocks_available,
                s.files,
                s.files_free,
                s.block_size,
                s.name_max,
                s.fragment_size,
            ),
            Err(e) => reply.error(e),
        }
    }

    fn access(&self, _req: &Request, ino: INodeNo, _mask: AccessFlags, reply: ReplyEmpty) {
        // Permissions are checked by the kernel (the mount uses
        // default_permissions); only existence is left to answer.
        self.empty_call(reply, |fs| fs.getattr(ino.0).map(|_| ()));
    }

    fn create(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        _flags: i32,
        reply: ReplyCreate,
    ) {
        let who = self.creator(req, umask);
        let r = self.with(|st| {
            // `create` counts one open, ended by the handle's release.
            let a = fs_of(st).create(parent.0, name.as_bytes(), mode, who)?;
            Self::remember(st, &a)?;
            Ok(a)
        });
        match r {
            Ok(a) => reply.created(
                &TTL,
                &file_attr(&a),
                Generation(a.generation),
                FileHandle(0),
                FopenFlags::empty(),
            ),
            Err(e) => reply.error(e),
        }
    }
}
