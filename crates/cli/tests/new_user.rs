//! A new user's first hour, scripted: each thing issue 43 found a user
//! could type that would destroy data or mislead them, tried as they would
//! type it, with the safe outcome asserted — `mkfs` over data, options a
//! command would ignore, a busy port, idle clients holding every slot, one
//! address taking them all, damage found only by a scrub, `--json` that
//! disagrees with the text, a non-empty mount point. Parts that need a tool
//! (qemu-io, nbdinfo, nbdcopy, mkfs.ext4) or FUSE skip visibly without it.

mod common;
mod mounted;

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::*;

const MIN: Duration = Duration::from_secs(60);

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

/// Writes `len` bytes of `byte` at `offset` through a server on `img` and
/// flushes (qemu-io's default writethrough mode), then 64 KiB of zeros
/// after them (a flush of its own), then stops the server. The second
/// flush matters to the scrub tests: damage inside the last epoch looks
/// like a torn commit to recovery, which rolls the epoch back whole
/// (docs/FORMAT.md §4.8), so a damaged sector is only ever seen in an
/// epoch that a later one follows.
fn write_through_server(img: &Path, offset: u64, len: u64, byte: u8) {
    let mut srv = ServerProc::start(img, &["--quiet"]);
    let out = qemu_io_output(
        &srv.uri(),
        &[
            format!("write -P {byte} {offset} {len}"),
            format!("write -z {} 65536", offset + len + (1 << 20)),
        ],
    );
    assert_eq!(out.matches("wrote").count(), 2, "{out}");
    let (st, _) = srv.terminate();
    assert!(st.success());
}

/// Flips one byte in the middle of the first programmed sector of `img`
/// whose 4096 bytes all equal `byte` (found through the layout in
/// docs/FORMAT.md §2). Returns whether one was found.
fn damage_sector_of(img: &Path, byte: u8) -> bool {
    let f = OpenOptions::new().read(true).write(true).open(img).unwrap();
    let l = ImageLayout::read(&f);
    let ss = l.sector_size;
    let mut data = vec![0u8; (ss * l.sectors_per_page) as usize];
    for p in (0..l.total_pages).filter(|&p| l.programmed(&f, p)) {
        let page_at = l.pages_offset + p * l.page_stride;
        f.read_exact_at(&mut data, page_at).unwrap();
        if let Some(i) = data
            .chunks(ss as usize)
            .position(|s| s.iter().all(|&b| b == byte))
        {
            f.write_all_at(&[!byte], page_at + i as u64 * ss + ss / 2)
                .unwrap();
            f.sync_all().unwrap();
            return true;
        }
    }
    false
}

/// `mkfs` on an image that holds anything refuses and says what it found;
/// `--force` goes ahead; an empty image needs no `--force`.
#[test]
fn mkfs_refuses_an_image_that_holds_data() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let img = format(d, "a.img", &["--geometry", "small"]);
    assert_eq!(code(&scftl(&["mkfs", "a.img"], d)), Some(0));
    let again = scftl(&["mkfs", "a.img"], d);
    assert_eq!(code(&again), Some(2), "{}", text(&again));
    assert!(
        text(&again).contains("a file system of ours"),
        "{}",
        text(&again)
    );
    assert!(img.exists());

    if !have(
        "qemu-io",
        "mkfs_refuses_an_image_that_holds_data (data part)",
    ) {
        return;
    }
    let img = format(d, "b.img", &["--geometry", "small"]);
    write_through_server(&img, 1 << 20, 8192, 0x5a);
    let before = std::fs::read(&img).unwrap();
    let out = scftl(&["mkfs", "b.img"], d);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("2 non-zero sectors (the first at sector 256)"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("--force"), "{}", text(&out));
    assert!(
        std::fs::read(&img).unwrap() == before,
        "a refused mkfs changed the image"
    );
    let forced = scftl(&["mkfs", "b.img", "--force"], d);
    assert_eq!(code(&forced), Some(0), "{}", text(&forced));

    // An ext4 file system a client made on the disk.
    if !have(
        "mkfs.ext4",
        "mkfs_refuses_an_image_that_holds_data (ext4 part)",
    ) || !have(
        "nbdcopy",
        "mkfs_refuses_an_image_that_holds_data (ext4 part)",
    ) {
        return;
    }
    let raw = d.join("ext4.raw");
    std::fs::File::create(&raw)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    run_ok(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&raw), MIN);
    let img = format(d, "c.img", &["--geometry", "small"]);
    {
        let mut srv = ServerProc::start(&img, &["--quiet"]);
        run_ok(Command::new("nbdcopy").arg(&raw).arg(srv.uri()), MIN);
        assert!(srv.terminate().0.success());
    }
    let out = scftl(&["mkfs", "c.img"], d);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("ext2/3/4 file system"),
        "{}",
        text(&out)
    );
}

/// Device options that apply only to `--memory` are errors on an image
/// (exit 2, naming them) and the image is not touched.
#[test]
fn options_an_image_would_ignore_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let img = format(d, "a.img", &["--geometry", "small"]);
    let before = std::fs::read(&img).unwrap();
    for args in [
        &["serve", "a.img", "--ftl", "async"][..],
        &["serve", "a.img", "--size", "1MiB", "--geometry", "small"],
        &["serve", "a.img", "--write-bound", "64"],
        &["serve", "a.img", "--delta-region-superblocks", "2"],
    ] {
        let out = scftl(args, d);
        assert_eq!(code(&out), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("only with --memory"), "{}", text(&out));
        assert!(text(&out).contains(args[2]), "{}", text(&out));
    }
    std::fs::create_dir(d.join("mnt")).unwrap();
    let out = scftl(&["mount", "a.img", "mnt", "--gc-bound", "3"], d);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--memory"), "{}", text(&out));
    assert!(std::fs::read(&img).unwrap() == before, "the image changed");
}

/// Options of another mode are refused, not ignored: each of these exits
/// 2 with a message naming the option and what it applies to.
#[test]
fn options_of_another_mode_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "fs.img", &["--geometry", "small"]);
    assert_eq!(code(&scftl(&["mkfs", "fs.img"], d)), Some(0));
    std::fs::create_dir(d.join("mnt")).unwrap();
    for (args, says) in [
        (
            &["serve", "--memory", "--seed", "7"][..],
            "--seed applies only with --power-cut-signal",
        ),
        (
            &[
                "mount",
                "fs.img",
                "mnt",
                "--mode",
                "log",
                "--idle-flush-ms",
                "50",
            ],
            "--idle-flush-ms applies only to --mode group",
        ),
        (
            &["crashtest", "--ops", "20", "--depth", "3"],
            "--depth applies only with --exhaustive",
        ),
        (
            &["crashtest", "--ops", "20", "--max-outcomes", "9"],
            "--max-outcomes applies only with --exhaustive",
        ),
        (
            &["crashtest", "--ops", "20", "--failure-windows", "8"],
            "--failure-windows applies only with --exhaustive",
        ),
        (
            &[
                "crashtest",
                "--exhaustive",
                "--geometry",
                "tiny",
                "--check-rate",
                "0.5",
            ],
            "--check-rate applies only to random mode",
        ),
    ] {
        let out = scftl(args, d);
        assert_eq!(code(&out), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}

/// A port in use is reported before the image is recovered (so before a
/// recovery writes to it).
#[test]
fn a_busy_port_is_reported_before_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "a.img", &["--geometry", "small"]);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = scftl(&["serve", "a.img", "--listen", &addr], d);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("cannot listen"), "{}", text(&out));
    assert!(!text(&out).contains("recovered"), "{}", text(&out));
}

/// Clients that finish the handshake and go quiet cannot keep a new client
/// out: with every slot held by idle connections, nbdinfo still gets in
/// (an idle one is closed for it, and the log says so). With reclaiming
/// off, the refused client is told why, in words its library prints.
#[test]
fn idle_clients_cannot_lock_others_out() {
    if !have("nbdinfo", "idle_clients_cannot_lock_others_out") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    {
        let srv = ServerProc::start(&img, &["--max-clients", "2", "--reclaim-idle", "1s"]);
        let idle: Vec<RawClient> = (0..2)
            .map(|_| RawClient::connect(srv.port).unwrap())
            .collect();
        let out = run_ok(Command::new("nbdinfo").args(["--size", &srv.uri()]), MIN);
        assert_eq!(out.trim(), (32u64 << 20).to_string());
        let log = srv.drain_log(Duration::from_millis(500));
        assert!(
            log.iter().any(|l| l.contains("closing it, idle for")),
            "{log:#?}"
        );
        drop(idle);
    }
    let srv = ServerProc::start(
        &img,
        &[
            "--max-clients",
            "1",
            "--reclaim-idle",
            "off",
            "--handshake-timeout",
            "1s",
        ],
    );
    let _idle = RawClient::connect(srv.port).unwrap();
    let refused = run_with_deadline(
        Command::new("nbdinfo")
            .arg(srv.uri())
            .env("LIBNBD_DEBUG", "1"),
        MIN,
    );
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("server busy: all 1 client slots are in use"),
        "{}",
        text(&refused)
    );
    if have("qemu-io", "idle_clients_cannot_lock_others_out (qemu part)") {
        let q = qemu_io_output(&srv.uri(), &["read 0 4k"]);
        assert!(q.contains("server busy"), "{q}");
    }
    let log = srv.drain_log(Duration::from_millis(500));
    assert!(
        log.iter()
            .any(|l| l.contains("refused, all 1 client slots busy")),
        "{log:#?}"
    );
}

/// One address cannot take more than its share of the slots; an idle
/// connection of that address gives way to a new one from it.
#[test]
fn one_address_gets_at_most_its_share() {
    if !have("qemu-io", "one_address_gets_at_most_its_share") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    {
        let srv = ServerProc::start(
            &img,
            &["--max-clients-per-address", "1", "--reclaim-idle", "off"],
        );
        let _held = RawClient::connect(srv.port).unwrap();
        let q = qemu_io_output(&srv.uri(), &["read 0 4k"]);
        assert!(q.contains("too many connections from 127.0.0.1"), "{q}");
        assert!(q.contains("--max-clients-per-address"), "{q}");
        let log = srv.drain_log(Duration::from_millis(500));
        assert!(
            log.iter()
                .any(|l| l.contains("refused, 1 connections from its address already")),
            "{log:#?}"
        );
    }
    let srv = ServerProc::start(
        &img,
        &["--max-clients-per-address", "1", "--reclaim-idle", "1s"],
    );
    let _held = RawClient::connect(srv.port).unwrap();
    std::thread::sleep(Duration::from_millis(1300));
    let q = qemu_io_output(&srv.uri(), &["read 0 4k"]);
    assert!(q.contains("read 4096/4096"), "{q}");
}

/// A damaged sector is found by `scrub` without any client reading it:
/// by sector (exit 1, text and JSON), on a served image too (through a
/// live view, the server still running), and clean before the damage.
#[test]
fn scrub_reports_damage_by_sector() {
    if !have("qemu-io", "scrub_reports_damage_by_sector") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let img = format(d, "a.img", &["--geometry", "small"]);
    write_through_server(&img, 1 << 20, 16384, 0xc3);
    let clean = scftl(&["scrub", "a.img"], d);
    assert_eq!(code(&clean), Some(0), "{}", text(&clean));
    assert!(text(&clean).contains("no damage"), "{}", text(&clean));
    assert!(damage_sector_of(&img, 0xc3), "no sector holds the pattern");

    let out = scftl(&["scrub", "a.img"], d);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert_eq!(
        text(&out).matches("DAMAGED sector").count(),
        1,
        "{}",
        text(&out)
    );
    let json = scftl(&["scrub", "a.img", "--json"], d);
    assert_eq!(code(&json), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("scrub JSON");
    assert_eq!(v["clean"], false);
    let bad = v["damaged"].as_array().unwrap();
    assert_eq!(bad.len(), 1, "{v:#}");
    let lba = bad[0]["sector"].as_u64().unwrap();
    assert!((256..260).contains(&lba), "sector {lba}");
    assert!(
        text(&out).contains(&format!("sector {lba} ")),
        "{}",
        text(&out)
    );

    // The same, on the image while it is served.
    let mut srv = ServerProc::start(&img, &["--quiet"]);
    let live = scftl(&["scrub", "a.img", "--json"], d);
    assert_eq!(code(&live), Some(1), "{}", text(&live));
    let v: serde_json::Value = serde_json::from_slice(&live.stdout).expect("scrub JSON");
    assert_eq!(v["live_view"], true, "{v:#}");
    assert_eq!(v["damaged"][0]["sector"].as_u64(), Some(lba), "{v:#}");
    assert!(
        srv.child.try_wait().unwrap().is_none(),
        "the server stopped"
    );
    let q = qemu_io_output(&srv.uri(), &["read -P 0 0 4k"]);
    assert!(q.contains("read 4096/4096"), "{q}");
    let info = scftl(&["info", "a.img", "--json"], d);
    assert_eq!(code(&info), Some(0), "{}", text(&info));
    assert!(srv.terminate().0.success());
}

/// On our file system, the scrub names the file a damaged sector belongs
/// to, and `fsck --scrub` reports it with the check.
#[test]
fn scrub_names_the_damaged_file() {
    if !mounted::fuse_available("scrub_names_the_damaged_file") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "fs.img", &["--geometry", "small"]);
    assert_eq!(code(&scftl(&["mkfs", "fs.img"], d)), Some(0));
    std::fs::create_dir(d.join("mnt")).unwrap();
    {
        let m = mounted::Mounted::start(&d.join("fs.img"), &d.join("mnt"), "group");
        std::fs::create_dir(d.join("mnt/dir")).unwrap();
        let mut f = std::fs::File::create(d.join("mnt/dir/victim")).unwrap();
        f.write_all(&vec![0xd4u8; 16384]).unwrap();
        f.sync_all().unwrap();
        drop(f);
        // A later epoch (see write_through_server).
        std::fs::write(d.join("mnt/later"), b"after the victim").unwrap();
        std::fs::File::open(d.join("mnt/later"))
            .unwrap()
            .sync_all()
            .unwrap();
        // While it is mounted, fsck and scrub read a live view instead of
        // refusing the locked image, and say so.
        for cmd in [&["fsck", "fs.img"][..], &["scrub", "fs.img"]] {
            let out = scftl(cmd, d);
            assert_eq!(code(&out), Some(0), "{cmd:?}: {}", text(&out));
            assert!(text(&out).contains("live view"), "{cmd:?}: {}", text(&out));
        }
        m.unmount();
    }
    assert!(damage_sector_of(&d.join("fs.img"), 0xd4));
    let out = scftl(&["scrub", "fs.img"], d);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("in /dir/victim"), "{}", text(&out));
    let fsck = scftl(&["fsck", "fs.img", "--scrub"], d);
    assert_eq!(code(&fsck), Some(1), "{}", text(&fsck));
    assert!(text(&fsck).contains("clean"), "{}", text(&fsck));
    assert!(text(&fsck).contains("/dir/victim"), "{}", text(&fsck));
}

/// `info --json` shows the wear figures the text shows; `crashtest --json`
/// gives its seed as a string, exact past 2^53.
#[test]
fn json_says_what_the_text_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "a.img", &["--geometry", "small"]);
    // Some erases: serve once (recovery writes a checkpoint).
    drop(ServerProc::start(&d.join("a.img"), &["--quiet"]));
    let t = text(&scftl(&["info", "a.img"], d));
    let j = scftl(&["info", "a.img", "--json"], d);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).expect("info JSON");
    let st = &v["stats"];
    let line = t.lines().find(|l| l.starts_with("device wear")).unwrap();
    let want = format!(
        "erase counts min {}, avg {:.2}, max {} over",
        st["erases_min"],
        st["erases_avg"].as_f64().unwrap(),
        st["erases_max"]
    );
    assert!(line.contains(&want), "text {line:?}, JSON gives {want:?}");
    assert_eq!(v["wear_recorded"], true);

    let seed = "18446744073709551557";
    let out = scftl(&["crashtest", "--ops", "30", "--seed", seed, "--json"], d);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("crashtest JSON");
    assert_eq!(v["seed"], seed, "{v:#}");
}

/// `mount` refuses a mount point that holds files (they would vanish from
/// view), unless told `--nonempty`; the files are untouched.
#[test]
fn mount_refuses_a_non_empty_mount_point() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "fs.img", &["--geometry", "small"]);
    assert_eq!(code(&scftl(&["mkfs", "fs.img"], d)), Some(0));
    std::fs::create_dir(d.join("mnt")).unwrap();
    std::fs::write(d.join("mnt/notes.txt"), b"mine").unwrap();
    let out = scftl(&["mount", "fs.img", "mnt"], d);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("not empty"), "{}", text(&out));
    assert!(text(&out).contains("--nonempty"), "{}", text(&out));
    assert_eq!(std::fs::read(d.join("mnt/notes.txt")).unwrap(), b"mine");
}

/// The export's description names the image, its size and FTL once.
#[test]
fn the_export_description_reads_well() {
    if !have("nbdinfo", "the_export_description_reads_well") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "disk.img", &["--geometry", "small"]);
    let srv = ServerProc::start(&img, &["--quiet"]);
    let out = run_ok(Command::new("nbdinfo").args(["--json", &srv.uri()]), MIN);
    let v: serde_json::Value = serde_json::from_str(&out).expect("nbdinfo JSON");
    let desc = v["exports"][0]["description"].as_str().unwrap_or_default();
    assert!(
        desc.ends_with("disk.img: 32 MiB disk, scftl FTL, timing none"),
        "{desc:?}"
    );
    assert!(!desc.contains("scftl scftl"), "{desc:?}");
}
