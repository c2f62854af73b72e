//! `scftl mkfs`, `mount` and `fsck` with real programs on a FUSE mount:
//! files, directories, rename over a file, `cp -a`, `tar x`, and SQLite
//! transactions, in every commit mode; then unmount, fsck and remount.
//! Skipped (with a visible message) without /dev/fuse or fusermount3.

mod common;
mod mounted;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{have, run_ok, run_with_deadline, scftl, SCFTL};
use mounted::{fsck_clean, fuse_available, image, sh, sh_as_nobody, Mounted, LIMIT};

/// The issue's SQLite workload: 1,000 single-row INSERT transactions, then
/// 1,000 UPDATE transactions, each committed (and so fsync'ed by SQLite)
/// on its own; then the integrity check and every row's value.
const SQLITE: &str = r#"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("create table t (k integer primary key, v text)")
for i in range(1000):
    db.execute("begin"); db.execute("insert into t values (?, ?)", (i, "v%d" % i)); db.execute("commit")
for i in range(1000):
    db.execute("begin"); db.execute("update t set v = ? where k = ?", ("u%d" % (i * 7), i)); db.execute("commit")
db.close()
"#;

/// Checks the database the workload left, in a fresh connection.
const SQLITE_CHECK: &str = r#"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ic = db.execute("pragma integrity_check").fetchall()
assert ic == [("ok",)], ic
rows = db.execute("select k, v from t order by k").fetchall()
assert rows == [(i, "u%d" % (i * 7)) for i in range(1000)], rows[:5]
db.close()
"#;

/// The SQLite workload's deadline: 2,000 transactions are some 10,000
/// file-system calls with a few thousand fsyncs, and in `log` mode each
/// call is four device flushes. On tmpfs (see `scratch_dir`) that is
/// seconds; where the image must live on a disk, each flush is an
/// `fdatasync` of the image and the workload can take minutes.
const SQLITE_LIMIT: Duration = Duration::from_secs(900);

fn sqlite_check(db: &Path) {
    run_ok(
        Command::new("python3").args(["-c", SQLITE_CHECK]).arg(db),
        LIMIT,
    );
}

fn workload_in_mode(mode: &str) {
    let test = &format!("workload_{mode}");
    if !fuse_available(test) || !have("python3", test) || !have("tar", test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    // log is the mode for FTLs without snapshots: run it on one.
    image(d, "fs.img", if mode == "log" { "async" } else { "scftl" });
    std::fs::create_dir(d.join("mnt")).unwrap();
    // A small source tree for cp -a and tar.
    sh(
        "mkdir -p src/a/b src/c; for i in 1 2 3 4 5; do seq 1 $((i*2000)) > src/a/f$i; done; \
         echo link > src/c/target; ln -s target src/c/sym; chmod 750 src/a/b; \
         head -c 300000 /dev/urandom > src/a/b/big; tar cf tree.tar src",
        d,
    );

    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), mode);
    sh(
        "echo hello > mnt/hello; test \"$(cat mnt/hello)\" = hello; \
         mkdir -p mnt/dir/sub; echo old > mnt/dir/victim; echo new > mnt/dir/new; \
         mv mnt/dir/new mnt/dir/victim; test \"$(cat mnt/dir/victim)\" = new; \
         test ! -e mnt/dir/new; \
         cp -a src mnt/copy; diff -r src mnt/copy; \
         test \"$(readlink mnt/copy/c/sym)\" = target; \
         test \"$(stat -c %a mnt/copy/a/b)\" = 750; \
         mkdir mnt/untar; tar xf tree.tar -C mnt/untar; diff -r src mnt/untar/src; \
         rm mnt/copy/a/f1; rmdir mnt/dir/sub; sync",
        d,
    );
    let started = Instant::now();
    run_ok(
        Command::new("python3")
            .args(["-c", SQLITE])
            .arg(d.join("mnt/db.sqlite")),
        SQLITE_LIMIT,
    );
    eprintln!(
        "{mode}: SQLite 1,000 inserts + 1,000 updates took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    sqlite_check(&d.join("mnt/db.sqlite"));
    m.unmount();

    fsck_clean(d, "fs.img");

    // Everything is back after a remount; this time stop with SIGTERM.
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), mode);
    sh(
        "test \"$(cat mnt/hello)\" = hello; test \"$(cat mnt/dir/victim)\" = new; \
         test ! -e mnt/dir/sub; test ! -e mnt/copy/a/f1; diff -r src/a/b mnt/copy/a/b; \
         diff -r src mnt/untar/src",
        d,
    );
    sqlite_check(&d.join("mnt/db.sqlite"));
    m.stop_with("-TERM");
    fsck_clean(d, "fs.img");
}

#[test]
fn workload_log() {
    workload_in_mode("log");
}

#[test]
fn workload_xlog() {
    workload_in_mode("xlog");
}

#[test]
fn workload_group() {
    workload_in_mode("group");
}

#[test]
fn log_mode_on_async_image_and_xlog_refused() {
    let test = "log_mode_on_async_image_and_xlog_refused";
    if !fuse_available(test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    image(d, "async.img", "async");
    std::fs::create_dir(d.join("mnt")).unwrap();
    for mode in ["xlog", "group"] {
        let out = scftl(&["mount", "async.img", "mnt", "--mode", mode], d);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mode}: {err}");
        assert!(
            err.contains("snapshot-consistent") && err.contains("mode log"),
            "{mode}: unclear refusal: {err}"
        );
    }
    // log works there.
    let m = Mounted::start(&d.join("async.img"), &d.join("mnt"), "log");
    sh("echo x > mnt/f; test \"$(cat mnt/f)\" = x", d);
    m.stop_with("-INT");
    fsck_clean(d, "async.img");
}

/// Without `--allow-other` only the mounting user (root here) may use the
/// mount; with it, another user may, and the kernel checks the modes and
/// owners the file system reports: nobody writes in a directory that is
/// world-writable, owns what it creates, and cannot touch root's 0600 file.
#[test]
fn allow_other_lets_other_users_in_under_the_modes() {
    let test = "allow_other_lets_other_users_in_under_the_modes";
    if !fuse_available(test) || !common::is_root(test) || !have("setpriv", test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    // nobody must be able to reach the mount point.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    image(d, "fs.img", "scftl");
    std::fs::create_dir(d.join("mnt")).unwrap();
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    sh(
        "mkdir -m 1777 mnt/pub && echo secret > mnt/own && chmod 600 mnt/own",
        d,
    );
    let (ok, err) = sh_as_nobody("ls mnt/pub", d);
    assert!(!ok, "another user got in without --allow-other");
    assert!(err.contains("Permission denied"), "{err}");
    m.unmount();

    let mut cmd = Command::new(SCFTL);
    cmd.current_dir(d)
        .args(["mount", "fs.img", "mnt", "--mode", "group", "--allow-other"]);
    let m = Mounted::spawn(cmd, &d.join("mnt"));
    let (ok, err) = sh_as_nobody("echo hi > mnt/pub/mine && cat mnt/pub/mine", d);
    assert!(ok, "{err}");
    let (ok, err) = sh_as_nobody("cat mnt/own", d);
    assert!(!ok && err.contains("Permission denied"), "{err}");
    let (ok, _) = sh_as_nobody("echo x > mnt/not-mine", d);
    assert!(!ok, "nobody wrote into root's 0755 root directory");
    sh(
        "test \"$(stat -c %u:%g mnt/pub/mine)\" = 65534:65534 && test \"$(cat mnt/pub/mine)\" = hi",
        d,
    );
    m.unmount();
    fsck_clean(d, "fs.img");
}

#[test]
fn second_mount_refused_and_mkfs_needs_force() {
    let test = "second_mount_refused_and_mkfs_needs_force";
    if !fuse_available(test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    image(d, "fs.img", "scftl");
    std::fs::create_dir(d.join("mnt")).unwrap();
    std::fs::create_dir(d.join("mnt2")).unwrap();
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    let out = scftl(&["mount", "fs.img", "mnt2"], d);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("in use by another process"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sh("echo still > mnt/f", d);
    m.unmount();

    let out = scftl(&["mkfs", "fs.img"], d);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    // The refusal changed nothing.
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    sh("test \"$(cat mnt/f)\" = still", d);
    m.unmount();
    let out = scftl(&["mkfs", "fs.img", "--force"], d);
    assert!(out.status.success());
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    sh("test ! -e mnt/f", d);
    m.unmount();
}

#[test]
fn fsck_json_parses_and_never_writes() {
    let dir = mounted::scratch_dir();
    let d = dir.path();
    let img = image(d, "fs.img", "scftl");
    let before = std::fs::read(&img).unwrap();
    let out = scftl(&["fsck", "fs.img", "--json"], d);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("fsck --json is JSON");
    assert_eq!(v["clean"], true);
    assert_eq!(v["report"]["counts"]["directories"], 1);
    assert_eq!(std::fs::read(&img).unwrap(), before, "fsck wrote the image");

    // An image without a file system is inconsistent: exit 1.
    common::format(d, "empty.img", &["--size", "64MiB"]);
    let out = run_with_deadline(
        Command::new(SCFTL)
            .args(["fsck", "empty.img", "--json"])
            .current_dir(d),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("fsck --json is JSON");
    assert_eq!(v["clean"], false);
}

/// group mode's idle flush makes calls durable without an fsync: after
/// `kill -9` of `scftl mount` (a crash for the file system), a file
/// written more than the idle time earlier is there, and fsck is clean.
#[test]
fn group_idle_flush_survives_kill9() {
    let test = "group_idle_flush_survives_kill9";
    if !fuse_available(test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    image(d, "fs.img", "scftl");
    std::fs::create_dir(d.join("mnt")).unwrap();
    let mut m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    sh("mkdir mnt/d; seq 1 5000 > mnt/d/f", d);
    // The idle time is 200 ms; the timer checks every 50 ms.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = m.child.kill();
    let _ = m.child.wait();
    drop(m);
    fsck_clean(d, "fs.img");
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    sh("seq 1 5000 | cmp - mnt/d/f", d);
    m.unmount();
}

/// `scftl mount` levels wear unless `--wear-leveling off`: in xlog mode
/// (a device flush per call), 10,000 small writes fill the `small` image's
/// one-superblock delta region a few times (3,000 filled it once, and
/// that first full checkpoint found nothing less worn), and with leveling
/// a full checkpoint moves the metadata onto a less-worn superblock (the
/// `meta_rotations` its exit statistics count); without, it stays in
/// place. Either way the files and fsck come back clean after a remount.
#[test]
fn mount_levels_wear_and_rotates_metadata_unless_asked_not_to() {
    let test = "mount_levels_wear_and_rotates_metadata_unless_asked_not_to";
    if !fuse_available(test) {
        return;
    }
    for leveling in ["on", "off"] {
        let dir = mounted::scratch_dir();
        let d = dir.path();
        common::format(d, "fs.img", &["--geometry", "small"]);
        assert!(scftl(&["mkfs", "fs.img"], d).status.success());
        std::fs::create_dir(d.join("mnt")).unwrap();
        let mount = |extra: &[&str]| {
            let mut cmd = Command::new(SCFTL);
            cmd.current_dir(d)
                .args(["mount", "fs.img", "mnt", "--mode", "xlog"])
                .args(extra);
            Mounted::spawn(cmd, &d.join("mnt"))
        };
        let m = mount(&["--wear-leveling", leveling]);
        sh(
            "i=0; while [ $i -lt 10000 ]; do echo $i > mnt/f$((i % 20)); i=$((i + 1)); done",
            d,
        );
        let lines = m.unmount();
        let rotations: u64 = lines
            .iter()
            .find_map(|l| l.split("meta_rotations=").nth(1))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no meta_rotations in the exit statistics: {lines:?}"));
        if leveling == "on" {
            assert!(rotations >= 1, "leveling on rotated nothing: {lines:?}");
        } else {
            assert_eq!(rotations, 0, "leveling off rotated: {lines:?}");
        }
        fsck_clean(d, "fs.img");
        let m = mount(&[]);
        sh(
            "test \"$(cat mnt/f19)\" = 9999; test \"$(cat mnt/f0)\" = 9980",
            d,
        );
        m.unmount();
    }
}

/// Unlinks a file while it is open, then keeps writing and reading it
/// through the descriptor: its blocks and inode number stay taken (a new
/// file gets another number) until the close, after which the kernel's
/// forget frees them and statfs shows every block free again.
const UNLINK_OPEN: &str = r#"
import os, sys, time
mnt = sys.argv[1]
def free():
    return os.statvfs(mnt).f_bfree
# The root's first entry allocates its directory block; take it first.
open(os.path.join(mnt, "keep"), "w").close()
before = free()
path = os.path.join(mnt, "victim")
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
chunk = bytes(range(256)) * 4096
os.write(fd, chunk * 4)
os.fsync(fd)
ino = os.fstat(fd).st_ino
os.unlink(path)
assert not os.path.exists(path)
os.pwrite(fd, chunk, 4 * len(chunk))
assert os.pread(fd, len(chunk), len(chunk)) == chunk
assert os.fstat(fd).st_size == 5 * len(chunk)
with open(os.path.join(mnt, "other"), "wb") as f:
    f.write(b"x")
assert os.stat(os.path.join(mnt, "other")).st_ino != ino, "inode number reused while open"
os.unlink(os.path.join(mnt, "other"))
held = free()
assert held <= before - 5 * len(chunk) // 4096, (before, held)
os.close(fd)
deadline = time.time() + 10
while free() != before:
    assert time.time() < deadline, ("blocks not freed after close", before, free())
    time.sleep(0.05)
"#;

#[test]
fn unlinked_open_file_lives_until_closed_and_forgotten() {
    let test = "unlinked_open_file_lives_until_closed_and_forgotten";
    if !fuse_available(test) || !have("python3", test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    image(d, "fs.img", "scftl");
    std::fs::create_dir(d.join("mnt")).unwrap();
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
    run_ok(
        Command::new("python3")
            .args(["-c", UNLINK_OPEN])
            .arg(d.join("mnt")),
        LIMIT,
    );
    m.unmount();
    fsck_clean(d, "fs.img");
}

/// Two commits of a small tree with git on the mount, then `git fsck` and
/// `git log`; again after unmount, fsck and remount.
fn git_in_mode(mode: &str) {
    let test = &format!("git_{mode}");
    if !fuse_available(test) || !have("git", test) {
        return;
    }
    let dir = mounted::scratch_dir();
    let d = dir.path();
    image(d, "fs.img", if mode == "log" { "async" } else { "scftl" });
    std::fs::create_dir(d.join("mnt")).unwrap();
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), mode);
    let git = "git -c user.name=scftl -c user.email=scftl@example.com \
               -c init.defaultBranch=main -c gc.auto=0";
    sh(
        &format!(
            "mkdir mnt/repo; cd mnt/repo; {git} init -q; \
             mkdir -p src/x docs; for i in 1 2 3 4 5 6; do seq 1 $((i*500)) > src/x/f$i; done; \
             echo '# readme' > README; ln -s README link; head -c 100000 /dev/urandom > docs/blob; \
             {git} add -A; {git} commit -q -m first; \
             echo more >> README; rm src/x/f2; {git} add -A; {git} commit -q -m second; \
             {git} fsck --full --strict; \
             test \"$({git} log --format=%s | tr '\\n' ' ')\" = 'second first '; \
             test -z \"$({git} status --porcelain)\""
        ),
        d,
    );
    m.unmount();
    fsck_clean(d, "fs.img");
    let m = Mounted::start(&d.join("fs.img"), &d.join("mnt"), mode);
    sh(
        &format!(
            "cd mnt/repo; {git} fsck --full --strict; \
             test \"$({git} log --format=%s | tr '\\n' ' ')\" = 'second first '; \
             test -z \"$({git} status --porcelain)\"; test ! -e src/x/f2; \
             test \"$({git} show HEAD~1:src/x/f2 | wc -l)\" = 1000"
        ),
        d,
    );
    m.unmount();
}

#[test]
fn git_log() {
    git_in_mode("log");
}

#[test]
fn git_xlog() {
    git_in_mode("xlog");
}

#[test]
fn git_group() {
    git_in_mode("group");
}

/// `scftl fsck --repair`: a clean image is not written; a read-only or
/// missing image is refused; an orphan left by kill -9 of the mount (a
/// file unlinked while open) is freed, and a second repair changes nothing.
#[test]
fn fsck_repair_cli() {
    let dir = mounted::scratch_dir();
    let d = dir.path();
    let img = image(d, "fs.img", "scftl");
    let before = std::fs::read(&img).unwrap();
    let out = scftl(&["fsck", "fs.img", "--repair"], d);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to repair"));
    assert_eq!(
        std::fs::read(&img).unwrap(),
        before,
        "repair wrote a clean image"
    );

    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&img, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = scftl(&["fsck", "fs.img", "--repair"], d);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("read-only"),
        "{out:?}"
    );
    std::fs::set_permissions(&img, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = scftl(&["fsck", "missing.img", "--repair"], d);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("does not exist"),
        "{out:?}"
    );
    assert!(!d.join("missing.img").exists());

    if !fuse_available("fsck_repair_cli (orphan part)") {
        return;
    }
    std::fs::create_dir(d.join("mnt")).unwrap();
    let mut m = Mounted::start(&img, &d.join("mnt"), "group");
    let mut holder = Command::new("sh")
        .args([
            "-ec",
            "exec 3<>mnt/f; head -c 100000 /dev/zero >&3; rm mnt/f; touch mnt/done; exec sleep 60",
        ])
        .current_dir(d)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !d.join("mnt/done").exists() {
        assert!(Instant::now() < deadline, "the holder did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Past the idle flush (200 ms): the unlink is on the device, the open
    // file's inode with it.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = m.child.kill();
    let _ = m.child.wait();
    let _ = holder.kill();
    let _ = holder.wait();
    drop(m);
    let out = scftl(&["fsck", "fs.img", "--json"], d);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clean"], true, "{v}");
    assert_eq!(
        v["report"]["orphans"].as_array().map(Vec::len),
        Some(1),
        "{v}"
    );

    let out = scftl(&["fsck", "fs.img", "--repair", "--json"], d);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clean"], true, "{v}");
    assert_eq!(
        v["report"]["orphans"].as_array().map(Vec::len),
        Some(0),
        "{v}"
    );
    let changes = v["repaired"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c.as_str().unwrap().contains("freed inode")),
        "{v}"
    );
    let repaired = std::fs::read(&img).unwrap();
    let out = scftl(&["fsck", "fs.img", "--repair"], d);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read(&img).unwrap(),
        repaired,
        "second repair wrote"
    );
    let m = Mounted::start(&img, &d.join("mnt"), "group");
    sh("test -e mnt/done; test ! -e mnt/f", d);
    m.unmount();
    fsck_clean(d, "fs.img");
}
