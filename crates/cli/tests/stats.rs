//! The `scftl: stats:` line of `scftl serve` and `scftl mount`: printed on
//! SIGUSR1 while running and once at exit, with counters that follow what
//! a real client did (qemu-io over NBD; file writes through FUSE).

mod common;
mod mounted;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use common::{format, run_ok, ServerProc};
use mounted::{fuse_available, scratch_dir, Mounted};

const LIMIT: Duration = Duration::from_secs(120);

/// The `key=value` fields of a stats line.
fn parse(line: &str) -> HashMap<String, u64> {
    let rest = line
        .split("scftl: stats:")
        .nth(1)
        .unwrap_or_else(|| panic!("not a stats line: {line}"));
    rest.split_whitespace()
        .map(|f| {
            let (k, v) = f.split_once('=').unwrap_or_else(|| panic!("field {f}"));
            (k.to_string(), v.parse().unwrap_or_else(|_| panic!("{f}")))
        })
        .collect()
}

/// Sends SIGUSR1 to `pid` and returns the stats line that follows on `log`.
fn sample(pid: u32, log: &mpsc::Receiver<String>) -> HashMap<String, u64> {
    run_ok(
        Command::new("kill").args(["-USR1", &pid.to_string()]),
        LIMIT,
    );
    loop {
        let line = log
            .recv_timeout(LIMIT)
            .expect("no stats line after SIGUSR1");
        if line.contains("scftl: stats:") {
            return parse(&line);
        }
    }
}

/// Runs qemu-io's `commands` on the export at `uri`, in write-back mode
/// (no flush after each write).
fn qemu_io_writeback(uri: &str, commands: &[&str]) {
    let mut args = vec!["-f", "raw", "-t", "writeback", uri];
    for c in commands {
        args.extend(["-c", c]);
    }
    run_ok(Command::new("qemu-io").args(args), LIMIT);
}

#[test]
fn serve_reports_device_counters_on_sigusr1_and_at_exit() {
    if !common::have("qemu-io", "serve_reports_device_counters") {
        return;
    }
    let dir = scratch_dir();
    let image = format(dir.path(), "d.img", &["--geometry", "small"]);
    let mut srv = ServerProc::start(&image, &["--quiet"]);
    let before = sample(srv.child.id(), &srv.log);
    let sector = before["sector_bytes"];
    assert!(sector >= 512, "sector_bytes {sector}");

    // 1 MiB written, 64 KiB more in 4 KiB writes (pages filled by
    // single-sector requests: detached writes), then one flush the client
    // asks for.
    let mut cmds = vec!["write -P 0x5a 0 1M".to_string()];
    for k in 0..16 {
        cmds.push(format!("write -P 0x5b {} 4k", (1 << 20) + k * 4096));
    }
    cmds.push("flush".to_string());
    let cmds: Vec<&str> = cmds.iter().map(String::as_str).collect();
    qemu_io_writeback(&srv.uri(), &cmds);
    let after = sample(srv.child.id(), &srv.log);
    let written = (after["sectors_written"] - before["sectors_written"]) * sector;
    assert_eq!(written, (1 << 20) + (64 << 10), "bytes written: {after:?}");
    assert!(
        after["detached_writes"] > before["detached_writes"],
        "pages the 4 KiB writes filled were written after the lock: {after:?}"
    );
    assert!(
        after["flushes"] > before["flushes"],
        "the client's flush is counted: {before:?} -> {after:?}"
    );
    // Every written byte reached a programmed page.
    let pages = after["pages_programmed"] - before["pages_programmed"];
    assert!(pages > 0, "{after:?}");
    assert!(after["flash_syncs"] > before["flash_syncs"], "{after:?}");
    for key in [
        "sectors_read",
        "blocks_erased",
        "epoch_flushes",
        "syncs_behind",
        "detached_writes",
    ] {
        assert!(after.contains_key(key), "{key} missing: {after:?}");
    }

    let (status, lines) = srv.terminate();
    assert!(status.success(), "{lines:?}");
    let last = lines
        .iter()
        .rfind(|l| l.contains("scftl: stats:"))
        .unwrap_or_else(|| panic!("no stats line at exit: {lines:?}"));
    let end = parse(last);
    assert_eq!(end["sectors_written"], after["sectors_written"]);
    // The final flush at exit is counted too.
    assert!(end["flushes"] > after["flushes"], "{after:?} -> {end:?}");
}

#[test]
fn serve_syncs_behind_epoch_barriers_on_its_own() {
    if !common::have("qemu-io", "serve_syncs_behind_epoch_barriers") {
        return;
    }
    let dir = scratch_dir();
    let image = format(dir.path(), "d.img", &["--geometry", "small"]);
    let mut srv = ServerProc::start(&image, &["--quiet"]);
    // 4 MiB with no flush between the writes: more than one epoch, so the
    // server ends epochs with barriers, and its background thread makes
    // them durable. qemu-io flushes when it closes the export, which would
    // leave the thread nothing to do: it waits 3 s first.
    qemu_io_writeback(&srv.uri(), &["write -P 0x5a 0 4M", "sleep 3000"]);
    let s = sample(srv.child.id(), &srv.log);
    assert!(s["epoch_flushes"] > 0, "{s:?}");
    assert!(s["syncs_behind"] > 0, "no sync behind the barriers: {s:?}");
    assert!(s["flash_syncs"] >= s["syncs_behind"], "{s:?}");
    let (status, lines) = srv.terminate();
    assert!(status.success(), "{lines:?}");
    // What it wrote reads back after a restart.
    let srv = ServerProc::start(&image, &["--quiet"]);
    run_ok(
        Command::new("qemu-io").args(["-f", "raw", &srv.uri(), "-c", "read -P 0x5a 0 4M"]),
        LIMIT,
    );
}

#[test]
fn mount_reports_device_and_file_system_counters() {
    if !fuse_available("mount_reports_device_and_file_system_counters") {
        return;
    }
    let dir = scratch_dir();
    let image = mounted::image(dir.path(), "fs.img", "scftl");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let m = Mounted::start(&image, &mnt, "group");
    let before = sample(m.child.id(), &m.log);
    write_and_fsync(&mnt.join("f"), 256 << 10);
    let after = sample(m.child.id(), &m.log);
    assert!(
        (after["sectors_written"] - before["sectors_written"]) * after["sector_bytes"] >= 256 << 10,
        "{before:?} -> {after:?}"
    );
    assert!(
        after["flushes"] > before["flushes"],
        "fsync flushes the device"
    );
    assert!(after["fs_calls"] > before["fs_calls"], "{after:?}");
    assert!(after["fs_flushes"] > before["fs_flushes"], "{after:?}");
    let lines = m.unmount();
    let end = lines
        .iter()
        .rfind(|l| l.contains("scftl: stats:"))
        .unwrap_or_else(|| panic!("no stats line at unmount: {lines:?}"));
    let end = parse(end);
    assert!(end["pages_programmed"] >= after["pages_programmed"]);
}

fn write_and_fsync(path: &Path, len: usize) {
    use std::io::Write;
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&vec![0xa5u8; len]).unwrap();
    f.sync_all().unwrap();
}
