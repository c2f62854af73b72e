//! Extended attributes, POSIX ACLs, the umask and far-future times through
//! a real FUSE mount with the real tools (setfattr, getfattr, setfacl,
//! getfacl, cp -a, touch -d), in every commit mode: the kernel enforces
//! the ACLs (another user reads a file only an ACL entry lets it read),
//! new files inherit a directory's default ACL instead of the umask, and
//! everything survives an unmount, a clean fsck and a remount.
//! Skipped (with a visible message) without /dev/fuse, fusermount3, root
//! or the attr and acl tools.

mod common;
mod mounted;

use std::process::Command;

use common::{have, SCFTL};
use mounted::{fsck_clean, fuse_available, image, sh, sh_as_nobody, Mounted};

/// 2500-01-01T12:00:00Z, past the 64-bit nanosecond limit (2262).
const FAR: &str = "16725268800";

/// What the first mount writes, checked as it goes.
const WRITE: &str = r#"
cd mnt
touch f
setfattr -n user.k -v hello f
test "$(getfattr --only-values -n user.k f)" = hello
setfattr -n trusted.t -v 0x00ff f
cp -a f f2
test "$(getfattr --only-values -n user.k f2)" = hello
setfattr -x user.k f2
! getfattr -n user.k f2 2>/dev/null
echo secret > s
chmod 600 s
setfacl -m u:nobody:r s
test "$(stat -c %a s)" = 640
mkdir d
setfacl -d -m u:nobody:rw d
touch d/new
test "$(stat -c %a d/new)" = 664
getfacl -cp d/new | grep -qx 'user:nobody:rw-'
mkdir d/sub
getfacl -cpd d/sub | grep -qx 'user:nobody:rw-'
(umask 077; touch u; mkdir ud)
test "$(stat -c %a u)" = 600
test "$(stat -c %a ud)" = 700
TZ=UTC touch -d '2500-01-01 12:00:00.123456789' far
test "$(stat -c %Y far)" = FAR
ln -s f sl
! setfattr -n user.x -v 1 -h sl 2>/dev/null
"#;

/// What must hold after the remount.
const CHECK: &str = r#"
cd mnt
test "$(getfattr --only-values -n user.k f)" = hello
getfattr -e hex -n trusted.t f | grep -qx 'trusted.t=0x00ff'
! getfattr -n user.k f2 2>/dev/null
getfacl -cp s | grep -qx 'user:nobody:r--'
test "$(stat -c %a s)" = 640
getfacl -cp d/new | grep -qx 'user:nobody:rw-'
test "$(stat -c %Y far)" = FAR
TZ=UTC stat -c %y far | grep -q '^2500-01-01 12:00:00.123456789'
"#;

fn in_mode(mode: &str) {
    let test = &format!("xattrs_and_acls_{mode}");
    if !fuse_available(test)
        || !common::is_root(test)
        || !have("setpriv", test)
        || !have("setfattr", test)
        || !have("setfacl", test)
    {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    image(d, "fs.img", if mode == "log" { "async" } else { "scftl" });
    std::fs::create_dir(d.join("mnt")).unwrap();
    let mount = || {
        let mut cmd = Command::new(SCFTL);
        cmd.current_dir(d)
            .args(["mount", "fs.img", "mnt", "--mode", mode, "--allow-other"]);
        Mounted::spawn(cmd, &d.join("mnt"))
    };

    let m = mount();
    sh(&WRITE.replace("FAR", FAR), d);
    // The kernel enforces the ACL: nobody reads s through its entry, and
    // writes d/new through the inherited one, but not u (mode 600).
    let (ok, err) = sh_as_nobody("cat mnt/s && echo more >> mnt/d/new", d);
    assert!(ok, "{mode}: {err}");
    let (ok, err) = sh_as_nobody("cat mnt/u", d);
    assert!(!ok && err.contains("Permission denied"), "{mode}: {err}");
    // chmod rewrites the ACL's mask: the entry no longer grants reading.
    sh("chmod 600 mnt/s", d);
    let (ok, err) = sh_as_nobody("cat mnt/s", d);
    assert!(!ok && err.contains("Permission denied"), "{mode}: {err}");
    sh("chmod 640 mnt/s", d);
    m.unmount();
    fsck_clean(d, "fs.img");

    let m = mount();
    sh(&CHECK.replace("FAR", FAR), d);
    let (ok, err) = sh_as_nobody("cat mnt/s", d);
    assert!(ok, "{mode}: after remount: {err}");
    m.unmount();
    fsck_clean(d, "fs.img");
}

#[test]
fn xattrs_and_acls_log() {
    in_mode("log");
}

#[test]
fn xattrs_and_acls_xlog() {
    in_mode("xlog");
}

#[test]
fn xattrs_and_acls_group() {
    in_mode("group");
}
