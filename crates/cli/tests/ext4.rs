//! ext4 on scftl: the export is exposed as a file by nbdfuse, attached to
//! a loop device, formatted and mounted; files are written and synced; the
//! server is killed with SIGKILL; after a restart the file system mounts,
//! the synced files are intact, and e2fsck finds it clean.
//!
//! Needs root, /dev/fuse, nbdfuse, losetup, mkfs.ext4 and e2fsck; skips
//! visibly otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use rand::{RngCore, SeedableRng};

const LIMIT: Duration = Duration::from_secs(120);

/// Undoes nbdfuse + loop + mount in reverse order, whatever happened.
struct Stack {
    mnt: PathBuf,
    fuse_dir: PathBuf,
    loopdev: Option<String>,
    mounted: bool,
    nbdfuse: Option<Child>,
}

impl Stack {
    fn up(uri: &str, base: &Path, n: u32) -> Stack {
        let fuse_dir = base.join(format!("fuse{n}"));
        let mnt = base.join(format!("mnt{n}"));
        std::fs::create_dir_all(&fuse_dir).unwrap();
        std::fs::create_dir_all(&mnt).unwrap();
        let pidfile = base.join(format!("nbdfuse{n}.pid"));
        let child = Command::new("nbdfuse")
            .arg("-P")
            .arg(&pidfile)
            .arg(fuse_dir.join("disk"))
            .arg(uri)
            .stdin(Stdio::null())
            .spawn()
            .expect("start nbdfuse");
        let mut st = Stack {
            mnt,
            fuse_dir,
            loopdev: None,
            mounted: false,
            nbdfuse: Some(child),
        };
        let deadline = Instant::now() + LIMIT;
        while !pidfile.exists() {
            assert!(Instant::now() < deadline, "nbdfuse did not become ready");
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = run_ok(
            Command::new("losetup")
                .args(["-f", "--show"])
                .arg(st.fuse_dir.join("disk")),
            LIMIT,
        );
        st.loopdev = Some(out.trim().to_string());
        st
    }

    fn dev(&self) -> &str {
        self.loopdev.as_deref().unwrap()
    }

    fn mount(&mut self) {
        run_ok(Command::new("mount").arg(self.dev()).arg(&self.mnt), LIMIT);
        self.mounted = true;
    }

    fn umount(&mut self) {
        if self.mounted {
            let out = run_with_deadline(Command::new("umount").arg(&self.mnt), LIMIT);
            if !out.status.success() {
                let _ = run_with_deadline(Command::new("umount").arg("-l").arg(&self.mnt), LIMIT);
            }
            self.mounted = false;
        }
    }

    fn down(&mut self) {
        self.umount();
        if let Some(d) = self.loopdev.take() {
            let _ = run_with_deadline(Command::new("losetup").args(["-d", &d]), LIMIT);
        }
        if let Some(mut c) = self.nbdfuse.take() {
            let _ = run_with_deadline(
                Command::new("fusermount3").arg("-u").arg(&self.fuse_dir),
                LIMIT,
            );
            let deadline = Instant::now() + Duration::from_secs(10);
            while c.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.down();
    }
}

#[test]
fn ext4_survives_kill9_of_the_server() {
    let name = "ext4_survives_kill9_of_the_server";
    for tool in ["nbdfuse", "losetup", "mkfs.ext4", "e2fsck", "fusermount3"] {
        if !have(tool, name) {
            return;
        }
    }
    if !is_root(name) {
        return;
    }
    if !Path::new("/dev/fuse").exists() {
        eprintln!("SKIP: {name}: /dev/fuse is missing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "e.img", &["--size", "128MiB"]);

    let mut files = Vec::new();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(4);
    for i in 0..12 {
        let mut d = vec![0u8; 20_000 + i * 17_000];
        rng.fill_bytes(&mut d);
        files.push((format!("f{i}.bin"), d));
    }
    {
        let mut srv = ServerProc::start(&img, &["--quiet"]);
        let mut st = Stack::up(&srv.uri(), dir.path(), 1);
        run_ok(
            Command::new("mkfs.ext4").args(["-q", "-F", st.dev()]),
            LIMIT,
        );
        st.mount();
        std::fs::create_dir(st.mnt.join("d")).unwrap();
        for (n, d) in &files {
            std::fs::write(st.mnt.join("d").join(n), d).unwrap();
        }
        run_ok(&mut Command::new("sync"), LIMIT);
        // Written after the sync: may or may not survive, must not corrupt.
        std::fs::write(st.mnt.join("late.bin"), vec![7u8; 300_000]).unwrap();
        srv.kill9();
        st.down();
    }
    let _srv = ServerProc::start(&img, &["--quiet"]);
    let mut st = Stack::up(&_srv.uri(), dir.path(), 2);
    // Mounting replays the ext4 journal; then the check must find no error.
    st.mount();
    for (n, d) in &files {
        let got = std::fs::read(st.mnt.join("d").join(n)).unwrap();
        assert!(&got == d, "synced file {n} changed after the crash");
    }
    st.umount();
    let out = run_with_deadline(Command::new("e2fsck").args(["-f", "-n", st.dev()]), LIMIT);
    assert!(
        out.status.success(),
        "e2fsck found problems ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
