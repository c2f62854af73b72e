//! Extended attributes (format version 3, FORMAT.md §7.7) and the POSIX
//! ACLs stored in them.
//!
//! Each inode has at most one xattr block (`Inode::xattr`, counted in
//! `blocks`): a header and the entries sorted by name. The block is
//! metadata: it goes through the step like a directory block, so a call
//! that changes attributes is one atomic piece in every commit mode.
//!
//! Names are whole (`user.mime`), 1..=255 bytes, in the namespaces
//! `user.`, `trusted.`, `security.` and the two ACL names
//! `system.posix_acl_access` and `system.posix_acl_default`; any other
//! name is `EOPNOTSUPP`. `user.` attributes live on regular files and
//! directories only (`EPERM` elsewhere, as Linux rules). All of an inode's
//! entries share one 4 KiB block (`ENOSPC` past it; values up to 4,077
//! bytes).
//!
//! ACLs (`system.posix_acl_*`, the kernel's binary form: a version word 2
//! and 8-byte entries `tag, perm, id`) are checked as POSIX.1e requires and
//! kept in step with the mode, as Linux file systems do (the kernel's FUSE
//! module leaves that to the file system): setting an access ACL sets the
//! permission bits from it, and one the bits alone express is not stored;
//! `chmod` rewrites the stored access ACL's owner, mask (or group) and
//! other entries; a new inode in a directory with a default ACL gets the
//! ACL masked by its mode instead of the umask, and a new directory
//! inherits the default ACL too.

use std::collections::BTreeMap;

use ftl::BlockDevice;

use crate::codec::{u32_at, Field};
use crate::error::{corrupt, FsError, Result};
use crate::fs::Fs;
use crate::inode::{FileType, Inode};
use crate::layout::BLOCK_SIZE;
use crate::store::Cost;

/// `setxattr` flag: fail with `EEXIST` if the attribute exists.
pub const XATTR_CREATE: u32 = 1;
/// `setxattr` flag: fail with `ENODATA` unless the attribute exists.
pub const XATTR_REPLACE: u32 = 2;

/// The access ACL's name.
pub const ACL_ACCESS: &[u8] = b"system.posix_acl_access";
/// The default ACL's name (directories only).
pub const ACL_DEFAULT: &[u8] = b"system.posix_acl_default";

/// Longest attribute name (Linux's `XATTR_NAME_MAX`).
pub const XATTR_NAME_MAX: usize = 255;
/// Largest value Linux passes (`XATTR_SIZE_MAX`); larger is `E2BIG`.
pub const XATTR_SIZE_MAX: usize = 65_536;

pub const XB_MAGIC: Field = Field::new("magic", 0, 4);
pub const XB_COUNT: Field = Field::new("count", 4, 2);
pub const XB_USED: Field = Field::new("used", 6, 2);
pub const XB_CRC: Field = Field::new("crc", 8, 4);
pub const XB_RESERVED: Field = Field::new("reserved", 12, 4);
/// The header's fields (FORMAT.md §7.7).
pub const XATTR_HEADER_FIELDS: &[Field] = &[XB_MAGIC, XB_COUNT, XB_USED, XB_CRC, XB_RESERVED];
/// Bytes of the header; entries follow.
pub const XATTR_HEADER: usize = 16;
/// Bytes before an entry's name: name length (1), value length (2).
pub const XATTR_ENTRY_HEADER: usize = 3;
/// The magic of an xattr block.
pub const XATTR_MAGIC: [u8; 4] = *b"SXA1";
/// Largest value that fits (one entry with a one-byte name).
pub const XATTR_VALUE_MAX: usize = BLOCK_SIZE - XATTR_HEADER - XATTR_ENTRY_HEADER - 1;

/// The entries of an xattr block, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Xattrs(pub BTreeMap<Vec<u8>, Vec<u8>>);

/// Bytes one entry takes in the block.
pub fn entry_len(name: &[u8], value: &[u8]) -> usize {
    XATTR_ENTRY_HEADER + name.len() + value.len()
}

impl Xattrs {
    /// Bytes the entries take after the header.
    pub fn used(&self) -> usize {
        self.0.iter().map(|(n, v)| entry_len(n, v)).sum()
    }

    /// Whether the entries fit one block.
    pub fn fits(&self) -> bool {
        XATTR_HEADER + self.used() <= BLOCK_SIZE
    }

    /// Encodes into `out` (a block); returns the bytes written (header and
    /// entries; the rest of the block is left as it was).
    pub fn encode(&self, out: &mut [u8]) -> usize {
        debug_assert!(self.fits());
        let mut at = XATTR_HEADER;
        for (n, v) in &self.0 {
            out[at] = n.len() as u8;
            out[at + 1..at + 3].copy_from_slice(&(v.len() as u16).to_le_bytes());
            at += XATTR_ENTRY_HEADER;
            out[at..at + n.len()].copy_from_slice(n);
            at += n.len();
            out[at..at + v.len()].copy_from_slice(v);
            at += v.len();
        }
        out[..XATTR_HEADER].fill(0);
        XB_MAGIC.put_bytes(out, &XATTR_MAGIC);
        XB_COUNT.put_u16(out, self.0.len() as u16);
        XB_USED.put_u16(out, (at - XATTR_HEADER) as u16);
        let crc = block_crc(out, at);
        XB_CRC.put_u32(out, crc);
        at
    }

    /// Decodes a block; anything malformed is corruption (`what` names
    /// the owner in the message).
    pub fn decode(b: &[u8], what: &str) -> Result<Xattrs> {
        let bad = |why: &str| corrupt(format!("{what}: xattr block {why}"));
        if XB_MAGIC.bytes(b) != XATTR_MAGIC {
            return Err(bad("has a bad magic"));
        }
        let count = usize::from(XB_COUNT.get_u16(b));
        let used = usize::from(XB_USED.get_u16(b));
        if XATTR_HEADER + used > BLOCK_SIZE {
            return Err(bad("says it uses more than the block"));
        }
        let end = XATTR_HEADER + used;
        if block_crc(b, end) != XB_CRC.get_u32(b) {
            return Err(bad("fails its CRC"));
        }
        let mut out = BTreeMap::new();
        let mut at = XATTR_HEADER;
        let mut last: Option<&[u8]> = None;
        for _ in 0..count {
            if at + XATTR_ENTRY_HEADER > end {
                return Err(bad("has an entry past its used bytes"));
            }
            let nl = usize::from(b[at]);
            let vl = usize::from(u16::from_le_bytes([b[at + 1], b[at + 2]]));
            at += XATTR_ENTRY_HEADER;
            if nl == 0 || at + nl + vl > end {
                return Err(bad("has an entry past its used bytes or an empty name"));
            }
            let name = &b[at..at + nl];
            if last.is_some_and(|l| l >= name) {
                return Err(bad("has names out of order or twice"));
            }
            if namespace(name).is_err() {
                return Err(bad("has a name in no known namespace"));
            }
            last = Some(name);
            out.insert(name.to_vec(), b[at + nl..at + nl + vl].to_vec());
            at += nl + vl;
        }
        if at != end {
            return Err(bad("has bytes after its last entry"));
        }
        Ok(Xattrs(out))
    }
}

/// CRC32C of the header (CRC field as zero) and the entries up to `end`.
fn block_crc(b: &[u8], end: usize) -> u32 {
    let crc = crc32c::crc32c(&b[..XB_CRC.offset]);
    let crc = crc32c::crc32c_append(crc, &[0; 4]);
    crc32c::crc32c_append(crc, &b[XB_CRC.end()..end])
}

/// The namespace of an attribute name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    User,
    Trusted,
    Security,
    AclAccess,
    AclDefault,
}

/// The namespace of `name`: `EOPNOTSUPP` for an unknown one, `EINVAL` for
/// a bare prefix, `ERANGE` for an empty or too long name.
pub fn namespace(name: &[u8]) -> Result<Namespace> {
    if name.is_empty() || name.len() > XATTR_NAME_MAX {
        return Err(FsError::AttrRange(format!(
            "name of {} bytes: names are 1 to {XATTR_NAME_MAX} bytes",
            name.len()
        )));
    }
    if name == ACL_ACCESS {
        return Ok(Namespace::AclAccess);
    }
    if name == ACL_DEFAULT {
        return Ok(Namespace::AclDefault);
    }
    for (prefix, ns) in [
        (&b"user."[..], Namespace::User),
        (b"trusted.", Namespace::Trusted),
        (b"security.", Namespace::Security),
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if rest.is_empty() {
                return Err(FsError::Invalid(format!(
                    "extended attribute name `{}` has nothing after its namespace",
                    String::from_utf8_lossy(name)
                )));
            }
            return Ok(ns);
        }
    }
    Err(FsError::NotSupported(format!(
        "extended attribute `{}`: the namespaces are user., trusted., security. and the POSIX ACLs",
        String::from_utf8_lossy(name)
    )))
}

/// ACL entry tags (the kernel's `ACL_*` values).
pub mod tag {
    pub const USER_OBJ: u16 = 0x01;
    pub const USER: u16 = 0x02;
    pub const GROUP_OBJ: u16 = 0x04;
    pub const GROUP: u16 = 0x08;
    pub const MASK: u16 = 0x10;
    pub const OTHER: u16 = 0x20;
}

/// The version word of the ACL xattr format.
pub const ACL_VERSION: u32 = 2;
/// The id of entries that have none.
const ACL_UNDEFINED_ID: u32 = u32::MAX;

/// One ACL entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AclEntry {
    pub tag: u16,
    pub perm: u16,
    pub id: u32,
}

/// A POSIX.1e ACL, in the order the kernel keeps: owner, named users,
/// owning group, named groups, mask, other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acl(pub Vec<AclEntry>);

impl Acl {
    /// An ACL of `(tag, perm, id)` entries, unchecked (the [`Acl::decode`]
    /// of its [`Acl::encode`] checks it).
    pub fn from_triples(entries: &[(u16, u16, u32)]) -> Acl {
        Acl(entries
            .iter()
            .map(|&(tag, perm, id)| AclEntry { tag, perm, id })
            .collect())
    }

    /// Parses the xattr form; `Ok(None)` for a header with no entries (it
    /// removes the ACL). `EINVAL` for anything POSIX.1e does not allow.
    pub fn decode(b: &[u8]) -> Result<Option<Acl>> {
        let bad = |why: &str| FsError::Invalid(format!("ACL {why}"));
        if b.len() < 4 || (b.len() - 4) % 8 != 0 {
            return Err(bad("has a length that is not 4 + 8n bytes"));
        }
        if u32_at(b, 0) != ACL_VERSION {
            return Err(bad("has a version other than 2"));
        }
        if b.len() == 4 {
            return Ok(None);
        }
        let entries: Vec<AclEntry> = b[4..]
            .chunks_exact(8)
            .map(|e| AclEntry {
                tag: u16::from_le_bytes([e[0], e[1]]),
                perm: u16::from_le_bytes([e[2], e[3]]),
                id: u32_at(e, 4),
            })
            .collect();
        // The order owner, users, group, groups, mask, other, each tag at
        // most once except named ones, which ascend by id.
        let rank = |t: u16| match t {
            tag::USER_OBJ => Some(0),
            tag::USER => Some(1),
            tag::GROUP_OBJ => Some(2),
            tag::GROUP => Some(3),
            tag::MASK => Some(4),
            tag::OTHER => Some(5),
            _ => None,
        };
        let mut prev: Option<(u8, u32)> = None;
        let mut named = false;
        for e in &entries {
            let r = rank(e.tag).ok_or_else(|| bad("has an unknown tag"))?;
            if e.perm & !7 != 0 {
                return Err(bad("has permission bits other than rwx"));
            }
            let id = if matches!(e.tag, tag::USER | tag::GROUP) {
                named = true;
                e.id
            } else {
                0
            };
            if let Some((pr, pid)) = prev {
                let named_again = pr == r && matches!(r, 1 | 3) && pid < id;
                if pr > r || (pr == r && !named_again) {
                    return Err(bad("has entries out of order or twice"));
                }
            }
            prev = Some((r, id));
        }
        let has = |t: u16| entries.iter().any(|e| e.tag == t);
        if !has(tag::USER_OBJ) || !has(tag::GROUP_OBJ) || !has(tag::OTHER) {
            return Err(bad("lacks the owner, group or other entry"));
        }
        if named && !has(tag::MASK) {
            return Err(bad("has named entries but no mask"));
        }
        Ok(Some(Acl(entries)))
    }

    /// The xattr form (ids of unnamed entries written as the kernel does).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = ACL_VERSION.to_le_bytes().to_vec();
        for e in &self.0 {
            let id = if matches!(e.tag, tag::USER | tag::GROUP) {
                e.id
            } else {
                ACL_UNDEFINED_ID
            };
            out.extend_from_slice(&e.tag.to_le_bytes());
            out.extend_from_slice(&e.perm.to_le_bytes());
            out.extend_from_slice(&id.to_le_bytes());
        }
        out
    }

    fn perm_of(&self, t: u16) -> u16 {
        self.0.iter().find(|e| e.tag == t).map_or(0, |e| e.perm)
    }

    /// The entry the group permission bits stand for: the mask if there
    /// is one, else the owning group.
    fn group_tag(&self) -> u16 {
        if self.0.iter().any(|e| e.tag == tag::MASK) {
            tag::MASK
        } else {
            tag::GROUP_OBJ
        }
    }

    /// The `rwxrwxrwx` bits the ACL implies.
    pub fn mode_bits(&self) -> u16 {
        self.perm_of(tag::USER_OBJ) << 6
            | self.perm_of(self.group_tag()) << 3
            | self.perm_of(tag::OTHER)
    }

    /// Whether the permission bits alone say all of it (three entries).
    pub fn is_minimal(&self) -> bool {
        self.0.len() == 3
    }

    /// `chmod`: the owner, mask-or-group and other entries take `perm`'s
    /// bits.
    pub fn chmod(&mut self, perm: u16) {
        let g = self.group_tag();
        for e in &mut self.0 {
            if e.tag == tag::USER_OBJ {
                e.perm = (perm >> 6) & 7;
            } else if e.tag == g {
                e.perm = (perm >> 3) & 7;
            } else if e.tag == tag::OTHER {
                e.perm = perm & 7;
            }
        }
    }

    /// A new inode's access ACL from its directory's default ACL and the
    /// mode it asked for: the owner, mask-or-group and other entries
    /// masked by the mode's bits. Returns the ACL and the new mode's
    /// `rwxrwxrwx` bits.
    pub fn create_masq(&self, perm: u16) -> (Acl, u16) {
        let mut a = self.clone();
        let g = a.group_tag();
        for e in &mut a.0 {
            if e.tag == tag::USER_OBJ {
                e.perm &= (perm >> 6) & 7;
            } else if e.tag == g {
                e.perm &= (perm >> 3) & 7;
            } else if e.tag == tag::OTHER {
                e.perm &= perm & 7;
            }
        }
        let bits = a.mode_bits();
        (a, bits)
    }
}

/// Sectors and blocks a change of an inode's attributes may touch: the
/// whole xattr block, the inode, a block-bitmap sector.
fn xattr_cost(spb: usize) -> Cost {
    Cost::new(spb as u64 + 2, 3)
}

impl<D: BlockDevice> Fs<D> {
    /// The attributes of `inode` (none on versions 1 and 2).
    pub(crate) fn xattrs_of(&mut self, ino: u32, inode: &Inode) -> Result<Xattrs> {
        if inode.xattr == 0 {
            return Ok(Xattrs::default());
        }
        self.st.check_data_block(inode.xattr)?;
        Xattrs::decode(self.st.meta(inode.xattr)?, &format!("inode {ino}"))
    }

    /// Writes `x` as the attributes of `inode` (in memory; the caller
    /// writes the inode back): allocates the block for the first entry,
    /// frees it with the last.
    pub(crate) fn put_xattrs(&mut self, inode: &mut Inode, x: &Xattrs) -> Result<()> {
        if x.0.is_empty() {
            if inode.xattr != 0 {
                self.st.free_block(inode.xattr)?;
                inode.xattr = 0;
                inode.blocks -= 1;
            }
            return Ok(());
        }
        if !x.fits() {
            return Err(FsError::NoSpace(
                "an inode's extended attributes share one 4 KiB block",
            ));
        }
        if inode.xattr == 0 {
            let b = self.st.alloc_block(None)?;
            inode.xattr = b;
            inode.blocks += 1;
            let out = self.st.meta_new(b)?;
            x.encode(out);
        } else {
            self.st.meta_edit(inode.xattr, |out| (0, x.encode(out)))?;
        }
        Ok(())
    }

    /// Frees the xattr block of an inode being freed.
    pub(crate) fn free_xattrs(&mut self, inode: &mut Inode) -> Result<()> {
        if inode.xattr != 0 {
            self.st.free_block(inode.xattr)?;
            inode.xattr = 0;
            inode.blocks = inode.blocks.saturating_sub(1);
        }
        Ok(())
    }

    /// `getxattr`: the value of `name` (`ENODATA` if it has none).
    pub fn getxattr(&mut self, ino: u64, name: &[u8]) -> Result<Vec<u8>> {
        namespace(name)?;
        let (ino, i, _) = self.inode(ino)?;
        self.xattrs_of(ino, &i)?
            .0
            .remove(name)
            .ok_or_else(|| FsError::NoAttr(String::from_utf8_lossy(name).into_owned()))
    }

    /// `listxattr`: every name, each followed by a NUL.
    pub fn listxattr(&mut self, ino: u64) -> Result<Vec<u8>> {
        let (ino, i, _) = self.inode(ino)?;
        let mut out = Vec::new();
        for n in self.xattrs_of(ino, &i)?.0.keys() {
            out.extend_from_slice(n);
            out.push(0);
        }
        Ok(out)
    }

    /// `setxattr` with `flags` ([`XATTR_CREATE`], [`XATTR_REPLACE`]). An
    /// access ACL also sets the permission bits (and is not stored when
    /// they say all of it).
    pub fn setxattr(&mut self, ino: u64, name: &[u8], value: &[u8], flags: u32) -> Result<()> {
        if flags & !(XATTR_CREATE | XATTR_REPLACE) != 0 {
            return Err(FsError::Invalid(format!("setxattr flags {flags:#x}")));
        }
        if value.len() > XATTR_SIZE_MAX {
            return Err(FsError::AttrTooBig(value.len()));
        }
        let ns = namespace(name)?;
        self.edit_xattrs(ino, ns, |i, x| {
            let exists = x.0.contains_key(name);
            if flags & XATTR_CREATE != 0 && exists {
                return Err(FsError::Exists);
            }
            if flags & XATTR_REPLACE != 0 && !exists {
                return Err(FsError::NoAttr(String::from_utf8_lossy(name).into_owned()));
            }
            let mut value = Some(value.to_vec());
            if matches!(ns, Namespace::AclAccess | Namespace::AclDefault) {
                match Acl::decode(value.as_deref().unwrap_or_default())? {
                    None => value = None,
                    Some(acl) if ns == Namespace::AclAccess => {
                        i.perm = (i.perm & !0o777) | acl.mode_bits();
                        if acl.is_minimal() {
                            value = None;
                        }
                    }
                    Some(_) => {}
                }
            }
            match value {
                Some(v) => {
                    x.0.insert(name.to_vec(), v);
                    if !x.fits() {
                        return Err(FsError::NoSpace(
                            "an inode's extended attributes share one 4 KiB block",
                        ));
                    }
                }
                None => {
                    x.0.remove(name);
                }
            }
            Ok(())
        })
    }

    /// `removexattr` (`ENODATA` if there is no such attribute).
    pub fn removexattr(&mut self, ino: u64, name: &[u8]) -> Result<()> {
        let ns = namespace(name)?;
        self.edit_xattrs(ino, ns, |_, x| match x.0.remove(name) {
            Some(_) => Ok(()),
            None => Err(FsError::NoAttr(String::from_utf8_lossy(name).into_owned())),
        })
    }

    /// One call that changes the attributes of `ino` (of namespace `ns`):
    /// `f` checks and edits the inode and its attributes in memory, changing
    /// nothing on a failure; then the block, the inode and its change time
    /// are written as one piece.
    fn edit_xattrs(
        &mut self,
        ino: u64,
        ns: Namespace,
        f: impl FnOnce(&mut Inode, &mut Xattrs) -> Result<()>,
    ) -> Result<()> {
        self.call(|fs| {
            let (ino, mut i, kind) = fs.inode(ino)?;
            fs.check_xattr_target(ns, kind)?;
            let mut x = fs.xattrs_of(ino, &i)?;
            f(&mut i, &mut x)?;
            fs.st.boundary(ino, &i, xattr_cost(fs.st.spb))?;
            fs.put_xattrs(&mut i, &x)?;
            i.ctime_ns = fs.now();
            fs.st.iput(ino, &i)
        })
    }

    /// What may carry attributes of `ns`: the format must have them, user
    /// attributes only regular files and directories (`EPERM`), ACLs not
    /// symlinks (`EOPNOTSUPP`), default ACLs only directories (`EACCES`).
    fn check_xattr_target(&self, ns: Namespace, kind: FileType) -> Result<()> {
        if !self.st.sb.has_xattrs() {
            return Err(FsError::NotSupported(
                "extended attributes need format version 3; run `scftl fsck IMAGE --upgrade`"
                    .into(),
            ));
        }
        match ns {
            Namespace::User if !matches!(kind, FileType::RegularFile | FileType::Directory) => {
                Err(FsError::NotPermitted(
                    "user. attributes are for regular files and directories only".into(),
                ))
            }
            Namespace::AclAccess | Namespace::AclDefault if kind == FileType::Symlink => {
                Err(FsError::NotSupported("symbolic links have no ACLs".into()))
            }
            Namespace::AclDefault if kind != FileType::Directory => Err(FsError::Denied(
                "only directories have a default ACL".into(),
            )),
            _ => Ok(()),
        }
    }

    /// `chmod` of an inode with an access ACL: the ACL follows the new
    /// bits. Called inside the setattr call, after its boundary.
    pub(crate) fn chmod_acl(&mut self, ino: u32, i: &mut Inode) -> Result<()> {
        if i.xattr == 0 {
            return Ok(());
        }
        let mut x = self.xattrs_of(ino, i)?;
        let Some(v) = x.0.get(ACL_ACCESS) else {
            return Ok(());
        };
        let Some(mut acl) = Acl::decode(v).map_err(|e| corrupt(format!("inode {ino}: {e}")))?
        else {
            return Ok(());
        };
        acl.chmod(i.perm);
        x.0.insert(ACL_ACCESS.to_vec(), acl.encode());
        self.put_xattrs(i, &x)
    }

    /// The attributes a new inode of `kind` asking for `perm` gets in
    /// directory `pdir`, and its permission bits: with a default ACL the
    /// ACL masked by `perm` (and, for a directory, the default ACL), else
    /// no attributes and `perm` less the `umask`.
    pub(crate) fn inherit(
        &mut self,
        pino: u32,
        pdir: &Inode,
        kind: FileType,
        perm: u32,
        umask: u32,
    ) -> Result<(Xattrs, u32)> {
        let mut x = Xattrs::default();
        let default = match self.xattrs_of(pino, pdir)?.0.remove(ACL_DEFAULT) {
            Some(v) => Acl::decode(&v).map_err(|e| corrupt(format!("inode {pino}: {e}")))?,
            None => None,
        };
        if kind == FileType::Symlink {
            return Ok((x, perm));
        }
        let Some(default) = default else {
            return Ok((x, perm & !(umask & 0o777)));
        };
        let (access, bits) = default.create_masq((perm & 0o777) as u16);
        if !access.is_minimal() {
            x.0.insert(ACL_ACCESS.to_vec(), access.encode());
        }
        if kind == FileType::Directory {
            x.0.insert(ACL_DEFAULT.to_vec(), default.encode());
        }
        Ok((x, (perm & 0o7000) | u32::from(bits)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::assert_contiguous;

    #[test]
    fn header_is_contiguous_and_blocks_round_trip() {
        assert_contiguous(XATTR_HEADER_FIELDS, XATTR_HEADER);
        let mut x = Xattrs::default();
        x.0.insert(b"user.a".to_vec(), b"1".to_vec());
        x.0.insert(b"security.selinux".to_vec(), vec![0; 100]);
        x.0.insert(b"user.empty".to_vec(), vec![]);
        let mut b = vec![0xAAu8; BLOCK_SIZE];
        let end = x.encode(&mut b);
        assert_eq!(end, XATTR_HEADER + x.used());
        assert_eq!(Xattrs::decode(&b, "t").unwrap(), x);
        for at in [0, 4, 6, 9, XATTR_HEADER, end - 1] {
            let mut c = b.clone();
            c[at] ^= 0x10;
            assert!(Xattrs::decode(&c, "t").is_err(), "flip at {at}");
        }
        let mut big = Xattrs::default();
        big.0.insert(b"u".to_vec(), vec![1; XATTR_VALUE_MAX]);
        assert!(big.fits());
        big.0.insert(b"u".to_vec(), vec![1; XATTR_VALUE_MAX + 1]);
        assert!(!big.fits());
    }

    #[test]
    fn names_fall_in_namespaces() {
        assert_eq!(namespace(b"user.x").unwrap(), Namespace::User);
        assert_eq!(namespace(ACL_DEFAULT).unwrap(), Namespace::AclDefault);
        assert_eq!(namespace(b"user.").unwrap_err().errno(), 22);
        assert_eq!(namespace(b"system.other").unwrap_err().errno(), 95);
        assert_eq!(namespace(b"").unwrap_err().errno(), 34);
        assert_eq!(namespace(&[b'u'; 256]).unwrap_err().errno(), 34);
    }

    fn acl(e: &[(u16, u16, u32)]) -> Vec<u8> {
        Acl::from_triples(e).encode()
    }

    #[test]
    fn acls_are_checked_and_follow_the_mode() {
        use tag::*;
        let full = acl(&[
            (USER_OBJ, 7, 0),
            (USER, 5, 1000),
            (GROUP_OBJ, 5, 0),
            (MASK, 7, 0),
            (OTHER, 0, 0),
        ]);
        let mut a = Acl::decode(&full).unwrap().unwrap();
        assert_eq!(a.mode_bits(), 0o770);
        assert!(!a.is_minimal());
        a.chmod(0o640);
        assert_eq!(a.mode_bits(), 0o640);
        assert_eq!(
            a.perm_of(GROUP_OBJ),
            5,
            "chmod changes the mask, not the group"
        );
        let (m, bits) = Acl::decode(&full).unwrap().unwrap().create_masq(0o644);
        assert_eq!(bits, 0o640);
        assert_eq!(m.perm_of(USER), 5, "named entries are not masked");
        assert_eq!(Acl::decode(&ACL_VERSION.to_le_bytes()).unwrap(), None);
        for bad in [
            acl(&[(USER_OBJ, 7, 0), (GROUP_OBJ, 5, 0)]),
            acl(&[
                (USER_OBJ, 7, 0),
                (USER, 5, 1),
                (GROUP_OBJ, 5, 0),
                (OTHER, 0, 0),
            ]),
            acl(&[(GROUP_OBJ, 5, 0), (USER_OBJ, 7, 0), (OTHER, 0, 0)]),
            acl(&[(USER_OBJ, 8, 0), (GROUP_OBJ, 5, 0), (OTHER, 0, 0)]),
            acl(&[
                (USER_OBJ, 7, 0),
                (USER, 5, 2),
                (USER, 5, 2),
                (GROUP_OBJ, 5, 0),
                (MASK, 7, 0),
                (OTHER, 0, 0),
            ]),
            full[..full.len() - 1].to_vec(),
            vec![1, 0, 0, 0],
        ] {
            assert_eq!(Acl::decode(&bad).unwrap_err().errno(), 22, "{bad:?}");
        }
    }
}
