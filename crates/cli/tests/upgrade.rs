//! `scftl upgrade`: an SCFTL image of an older configuration version is
//! rewritten as one of the current version with the same contents; a
//! current or non-SCFTL image is left alone; an image in use is refused;
//! and a kill -9 at any moment leaves the old image or the new one, never
//! anything else.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use common::*;
use flash::{FileFlash, Flash, OverlayFlash};
use ftl::scftl::config::CONFIG_VERSION;
use ftl::{label, AnyFtl, BlockDevice, FtlKind, Lba};

/// The tests of this file run one at a time. They lock images in this
/// process (`FileFlash::open` takes an exclusive `flock`) while another
/// test spawns `scftl`: a child forked in that instant shares the locked
/// file until it execs, so an image the first test just closed can still
/// read as locked. (Each test binary is its own process, so serializing
/// here is enough.)
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The byte every sector of the old image holds (0: never written).
fn byte_of(la: u64) -> u8 {
    if la.is_multiple_of(3) {
        (la % 251) as u8 + 1
    } else {
        0
    }
}

/// Recovers the FTL on `f`, boxed: one instantiation of every FTL for all
/// the flash types here (each costs seconds of this test's build).
fn open_dyn(f: impl Flash + Send + Sync + 'static) -> AnyFtl<Box<dyn Flash + Send + Sync>> {
    AnyFtl::open(Box::new(f) as Box<dyn Flash + Send + Sync>).unwrap()
}

/// A small SCFTL image relabeled as configuration `version`, with every
/// third sector written and flushed by the FTL of that version.
fn old_image(dir: &Path, version: u32) -> PathBuf {
    let img = format(dir, "a.img", &["--geometry", "small", "--gc-streams", "1"]);
    let mut f = FileFlash::open(&img).unwrap();
    let (kind, mut config) = label::read_label(&mut f).unwrap();
    assert_eq!(kind, FtlKind::Scftl);
    config[..4].copy_from_slice(&version.to_le_bytes());
    // Versions before 8 end before `gc_streams` (docs/FORMAT.md §4.6).
    if version < 8 {
        config.truncate(36);
    }
    label::clear_label(&mut f).unwrap();
    label::write_label(&mut f, FtlKind::Scftl, &config).unwrap();
    let mut d = open_dyn(f);
    let ss = d.sector_size();
    for la in 0..d.num_sectors() {
        if byte_of(la) == 0 {
            continue;
        }
        if d.epoch_remaining() == Some(0) {
            d.flush().unwrap();
        }
        d.write(Lba(la), &vec![byte_of(la); ss]).unwrap();
    }
    d.flush().unwrap();
    drop(d.into_flash());
    img
}

/// The image's configuration version, after checking that every sector
/// reads as [`byte_of`] says (recovered read-only, over a RAM overlay).
fn version_and_check(img: &Path) -> u64 {
    let f = OverlayFlash::new(FileFlash::open_read_only(img).unwrap());
    let mut d = open_dyn(f);
    let ss = d.sector_size();
    let mut buf = vec![0u8; ss];
    for la in 0..d.num_sectors() {
        d.read(Lba(la), &mut buf).unwrap();
        assert!(
            buf.iter().all(|&b| b == byte_of(la)),
            "sector {la} of {}",
            img.display()
        );
    }
    d.config_summary()
        .iter()
        .find(|(k, _)| *k == "config_version")
        .map(|&(_, v)| v)
        .expect("an SCFTL image shows its config_version")
}

fn out(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_old_image_is_upgraded_with_its_contents_and_then_left_alone() {
    let _serial = serial();
    for version in [4, 7, 8] {
        let dir = tempfile::tempdir().unwrap();
        let img = old_image(dir.path(), version);
        assert_eq!(version_and_check(&img), u64::from(version));
        let o = scftl(&["upgrade", img.to_str().unwrap()], dir.path());
        let text = out(&o);
        assert!(o.status.success(), "{text}");
        assert!(
            text.contains(&format!(
                "configuration version {version} -> {CONFIG_VERSION}"
            )),
            "{text}"
        );
        assert!(text.contains("verified"), "{text}");
        assert_eq!(version_and_check(&img), u64::from(CONFIG_VERSION));
        assert_eq!(files_in(dir.path()), ["a.img"], "no staging file left");
        // Current now: nothing to do, nothing changed.
        let before = std::fs::read(&img).unwrap();
        let o = scftl(&["upgrade", img.to_str().unwrap()], dir.path());
        let text = out(&o);
        assert!(o.status.success(), "{text}");
        assert!(text.contains("nothing to do"), "{text}");
        assert_eq!(std::fs::read(&img).unwrap(), before);
        // `info` shows the version.
        let o = scftl(&["info", "--json", img.to_str().unwrap()], dir.path());
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["config"]["config_version"], CONFIG_VERSION);
    }
}

#[test]
fn other_ftls_and_images_in_use_are_left_alone() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let a = format(
        dir.path(),
        "b.img",
        &["--geometry", "small", "--ftl", "async"],
    );
    let o = scftl(&["upgrade", a.to_str().unwrap()], dir.path());
    assert!(o.status.success(), "{}", out(&o));
    assert!(out(&o).contains("nothing to do"), "{}", out(&o));

    let img = old_image(dir.path(), 5);
    let held = FileFlash::open(&img).unwrap();
    let o = scftl(&["upgrade", img.to_str().unwrap()], dir.path());
    let text = out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    drop(held);
    assert_eq!(version_and_check(&img), 5, "the image is unchanged");
    assert_eq!(files_in(dir.path()), ["a.img", "b.img"]);
}

#[test]
fn a_kill_at_any_moment_leaves_the_old_image_or_the_new_one() {
    let _serial = serial();
    let mut seen_old = false;
    let mut seen_new = false;
    for delay_ms in [0u64, 5, 15, 40, 80, 160, 400] {
        let dir = tempfile::tempdir().unwrap();
        let img = old_image(dir.path(), 6);
        let mut child = Command::new(SCFTL)
            .args(["upgrade", img.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        match version_and_check(&img) {
            6 => seen_old = true,
            v if v == u64::from(CONFIG_VERSION) => seen_new = true,
            v => panic!("after a kill at {delay_ms} ms the image has version {v}"),
        }
        // A later run finishes the job (replacing any staging file left).
        let o = scftl(&["upgrade", img.to_str().unwrap()], dir.path());
        assert!(o.status.success(), "{}", out(&o));
        assert_eq!(version_and_check(&img), u64::from(CONFIG_VERSION));
        assert_eq!(files_in(dir.path()), ["a.img"]);
    }
    eprintln!("kills left the old image: {seen_old}, the new one: {seen_new}");
    assert!(
        seen_old,
        "no kill came before the rename: the test cut nothing"
    );
}

/// The file system's superblock version in block 0 of `img`'s device.
fn fs_version(img: &Path) -> u32 {
    let f = OverlayFlash::new(FileFlash::open_read_only(img).unwrap());
    let mut d = open_dyn(f);
    let mut b = vec![0u8; fs::BLOCK_SIZE];
    d.read(Lba(0), &mut b).unwrap();
    fs::Superblock::decode(&b).unwrap().version
}

/// `fsck --upgrade`: a version-1 or -2 file system (as the builds before
/// format versions 2 and 3 wrote it) becomes the current version and stays
/// clean; a second run writes nothing.
#[test]
fn fsck_upgrade_makes_an_old_file_system_current() {
    let _g = serial();
    for from in [1u32, 2] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let img = format(d, "fs.img", &["--size", "64MiB", "--ftl", "async"]);
        assert!(scftl(&["mkfs", "fs.img"], d).status.success());
        let now = fs::FS_VERSION;
        assert_eq!(fs_version(&img), now, "mkfs writes version {now}");
        {
            let mut dev = open_dyn(FileFlash::open(&img).unwrap());
            let ss = dev.sector_size();
            let mut b = vec![0u8; fs::BLOCK_SIZE];
            dev.read(Lba(0), &mut b).unwrap();
            let mut sb = fs::Superblock::decode(&b).unwrap();
            sb.version = from;
            let enc = sb.encode();
            dev.write(Lba(0), &enc[..fs::layout::SB_LEN.next_multiple_of(ss)])
                .unwrap();
            dev.flush().unwrap();
            drop(dev.into_flash());
        }
        assert_eq!(fs_version(&img), from);
        let o = scftl(&["fsck", "fs.img"], d);
        assert!(o.status.success(), "{}", out(&o));
        let o = scftl(&["fsck", "fs.img", "--upgrade"], d);
        assert!(o.status.success(), "{}", out(&o));
        assert!(
            out(&o).contains(&format!(
                "upgraded the file system from format version {from} to {now}"
            )),
            "{}",
            out(&o)
        );
        assert_eq!(fs_version(&img), now);
        let before = std::fs::read(&img).unwrap();
        let o = scftl(&["fsck", "fs.img", "--upgrade"], d);
        assert!(
            out(&o).contains(&format!("already format version {now}")),
            "{}",
            out(&o)
        );
        assert_eq!(
            std::fs::read(&img).unwrap(),
            before,
            "a second run writes nothing"
        );
    }
}
