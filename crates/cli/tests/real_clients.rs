//! Real NBD clients against `scftl serve`: qemu-io, nbdinfo, nbdcopy, fio.
//! Each test skips (visibly) only when its tool is not installed.

mod common;

use std::process::Command;
use std::time::Duration;

use common::*;
use rand::{RngCore, SeedableRng};

const MIN: Duration = Duration::from_secs(60);

fn qemu_io(uri: &str, cmds: &[&str]) -> String {
    let mut c = Command::new("qemu-io");
    c.args(["-f", "raw", uri]);
    for cmd in cmds {
        c.args(["-c", cmd]);
    }
    let out = run_ok(&mut c, MIN);
    assert!(
        !out.contains("fail") && !out.contains("error"),
        "qemu-io reported a problem:\n{out}"
    );
    out
}

/// qemu-io writes and verifies patterns (aligned, unaligned, discard,
/// write-zeroes, FUA), and they survive a clean restart of the server.
#[test]
fn qemu_io_patterns_survive_restart() {
    if !have("qemu-io", "qemu_io_patterns_survive_restart") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(
        dir.path(),
        "q.img",
        &["--size", "32MiB", "--geometry", "small"],
    );
    let mut srv = ServerProc::start(&img, &[]);
    let uri = srv.uri();
    let out = qemu_io(
        &uri,
        &[
            "write -P 0xab 0 1M",
            "read -P 0xab 0 1M",
            "write -P 0xcd 4097 5000",
            "read -P 0xab 0 4097",
            "read -P 0xcd 4097 5000",
            "read -P 0xab 9097 1000",
            "write -P 0x11 2M 512",
            "write -z 3M 64k",
            "discard 1M 128k",
            "write -f -P 0x22 8M 64k",
            "flush",
        ],
    );
    assert!(out.contains("wrote 1048576/1048576"), "{out}");
    let (status, log) = srv.terminate();
    assert!(status.success(), "server exit {status}");
    assert!(
        log.iter().any(|l| l.contains("flushed")),
        "no shutdown flush in log: {log:?}"
    );

    let srv = ServerProc::start(&img, &[]);
    qemu_io(
        &srv.uri(),
        &[
            "read -P 0xab 0 4097",
            "read -P 0xcd 4097 5000",
            "read -P 0x11 2M 512",
            "read -P 0 3M 64k",
            "read -P 0 1M 128k",
            "read -P 0x22 8M 64k",
        ],
    );
}

/// nbdinfo sees the export's size, flags and block-size constraints, over
/// TCP and over a Unix socket, read-write and read-only.
#[test]
fn nbdinfo_reports_the_export() {
    if !have("nbdinfo", "nbdinfo_reports_the_export") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(
        dir.path(),
        "i.img",
        &["--size", "16MiB", "--geometry", "small"],
    );
    {
        let srv = ServerProc::start(&img, &["--export-name", "disk0"]);
        let out = run_ok(
            Command::new("nbdinfo").args(["--json", &format!("{}/disk0", srv.uri())]),
            MIN,
        );
        let v: serde_json::Value = serde_json::from_str(&out).expect("nbdinfo JSON");
        let e = &v["exports"][0];
        assert_eq!(e["export-name"], "disk0");
        assert_eq!(e["export-size"], 16u64 << 20);
        assert_eq!(e["block_size_minimum"], 1);
        assert_eq!(e["block_size_preferred"], 4096);
        assert_eq!(e["block_size_maximum"], 32u64 << 20);
        for cap in [
            "can_flush",
            "can_fua",
            "can_trim",
            "can_zero",
            "can_multi_conn",
        ] {
            assert_eq!(e[cap], true, "{cap} in {e}");
        }
        assert_eq!(e["is_read_only"], false);
        let list = run_ok(Command::new("nbdinfo").args(["--list", &srv.uri()]), MIN);
        assert!(list.contains("disk0"), "{list}");
    }
    // Read-only, over a Unix socket.
    let sock = dir.path().join("s.sock");
    let mut child = Command::new(SCFTL)
        .args(["serve", img.to_str().unwrap(), "--read-only", "--unix"])
        .arg(&sock)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + MIN;
    while !sock.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let uri = format!("nbd+unix:///?socket={}", sock.display());
    let out = run_with_deadline(Command::new("nbdinfo").args(["--json", &uri]), MIN);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exports"][0]["is_read_only"], true);
}

/// `base:allocation` block status: nbdinfo's map shows exactly the
/// sectors written and not discarded as data and the rest as holes that
/// read as zeros, qemu-img sees the same, and nbdcopy's copy out is sparse
/// (it skips the holes) and identical; all of it again after a restart.
#[test]
fn block_status_maps_data_and_holes_for_real_clients() {
    if !have(
        "nbdinfo",
        "block_status_maps_data_and_holes_for_real_clients",
    ) || !have(
        "qemu-io",
        "block_status_maps_data_and_holes_for_real_clients",
    ) || !have(
        "nbdcopy",
        "block_status_maps_data_and_holes_for_real_clients",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "m.img", &["--size", "64MiB"]);
    const MIB: u64 = 1 << 20;
    // (offset, length, type): 3 = hole and zero, 0 = data.
    let want = vec![
        (0, MIB + 32 * 1024, 3),
        (MIB + 32 * 1024, 32 * 1024, 0),
        (MIB + 64 * 1024, 9 * MIB - 64 * 1024, 3),
        (10 * MIB, 4096, 0),
        (10 * MIB + 4096, 54 * MIB - 4096, 3),
    ];
    let map = |uri: &str| -> Vec<(u64, u64, u64)> {
        let out = run_ok(Command::new("nbdinfo").args(["--map", "--json", uri]), MIN);
        let v: serde_json::Value = serde_json::from_str(&out).expect("nbdinfo --map JSON");
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let n = |k: &str| e[k].as_u64().unwrap();
                (n("offset"), n("length"), n("type"))
            })
            .collect()
    };
    {
        let srv = ServerProc::start(&img, &["--quiet"]);
        let uri = srv.uri();
        assert_eq!(map(&uri), vec![(0, 64 * MIB, 3)], "a new disk is one hole");
        qemu_io(
            &uri,
            &[
                "write -P 0x55 1M 64k",
                "write -P 0x66 10M 4k",
                "discard 1M 32k",
                "flush",
            ],
        );
        assert_eq!(map(&uri), want);
        // qemu's view through the same context.
        let out = run_ok(
            Command::new("qemu-img").args(["map", "--output=json", "-f", "raw", &uri]),
            MIN,
        );
        let v: serde_json::Value = serde_json::from_str(&out).expect("qemu-img map JSON");
        let data: Vec<(u64, u64)> = v
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["data"] == true)
            .map(|e| (e["start"].as_u64().unwrap(), e["length"].as_u64().unwrap()))
            .collect();
        assert_eq!(data, vec![(MIB + 32 * 1024, 32 * 1024), (10 * MIB, 4096)]);
    }
    let srv = ServerProc::start(&img, &["--quiet"]);
    assert_eq!(map(&srv.uri()), want, "after a restart");
    let dst = dir.path().join("out.raw");
    run_ok(Command::new("nbdcopy").arg(srv.uri()).arg(&dst), MIN);
    let back = std::fs::read(&dst).unwrap();
    assert_eq!(back.len() as u64, 64 * MIB);
    for (off, len, ty) in &want {
        let part = &back[*off as usize..(off + len) as usize];
        let fill = match (ty, *off) {
            (3, _) => 0,
            (_, o) if o == 10 * MIB => 0x66,
            _ => 0x55,
        };
        assert!(part.iter().all(|&b| b == fill), "at {off}+{len}");
    }
    // The holes were skipped, not written: the copy is sparse.
    use std::os::unix::fs::MetadataExt;
    let on_disk = std::fs::metadata(&dst).unwrap().blocks() * 512;
    assert!(
        on_disk < 4 * MIB,
        "{on_disk} bytes allocated for 36 KiB of data"
    );
}

/// 64 MiB of random data copied in and out with nbdcopy comes back
/// identical (the copy spans many epochs, so the server's epoch flushes
/// are exercised too).
#[test]
fn nbdcopy_64_mib_round_trip() {
    if !have("nbdcopy", "nbdcopy_64_mib_round_trip") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "c.img", &["--size", "64MiB"]);
    let src = dir.path().join("src.bin");
    let dst = dir.path().join("dst.bin");
    let mut data = vec![0u8; 64 << 20];
    rand_pcg::Pcg64::seed_from_u64(64).fill_bytes(&mut data);
    std::fs::write(&src, &data).unwrap();
    let srv = ServerProc::start(&img, &["--quiet"]);
    run_ok(
        Command::new("nbdcopy").arg(&src).arg(srv.uri()),
        Duration::from_secs(300),
    );
    run_ok(
        Command::new("nbdcopy").arg(srv.uri()).arg(&dst),
        Duration::from_secs(300),
    );
    let back = std::fs::read(&dst).unwrap();
    assert_eq!(back.len(), data.len());
    assert!(back == data, "nbdcopy round trip changed the data");
}

/// `serve --mmap-reads`: what nbdcopy writes reads back identical
/// through the shared mapping, both from the server that wrote it (the
/// mapping sees writes made through the descriptor, rewritten sectors
/// included) and after a restart.
#[test]
fn mmap_reads_round_trip() {
    if !have("nbdcopy", "mmap_reads_round_trip") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "m.img", &["--size", "16MiB"]);
    let src = dir.path().join("src.bin");
    let dst = dir.path().join("dst.bin");
    let mut data = vec![0u8; 16 << 20];
    rand_pcg::Pcg64::seed_from_u64(16).fill_bytes(&mut data);
    std::fs::write(&src, &data).unwrap();
    // `--flush`: the writes are durable before the server is stopped.
    let copy = |from: &dyn AsRef<std::ffi::OsStr>, to: &dyn AsRef<std::ffi::OsStr>| {
        run_ok(
            Command::new("nbdcopy").arg("--flush").arg(from).arg(to),
            Duration::from_secs(300),
        )
    };
    {
        let srv = ServerProc::start(&img, &["--quiet", "--mmap-reads"]);
        copy(&src, &srv.uri());
        // A second copy over the first 8 MiB: those sectors move to new
        // places (the FTL never writes in place).
        let mut half = vec![0u8; 8 << 20];
        rand_pcg::Pcg64::seed_from_u64(8).fill_bytes(&mut half);
        data[..8 << 20].copy_from_slice(&half);
        let src2 = dir.path().join("half.bin");
        std::fs::write(&src2, &half).unwrap();
        copy(&src2, &srv.uri());
        copy(&srv.uri(), &dst);
        assert!(
            std::fs::read(&dst).unwrap() == data,
            "read back through the mapping differs"
        );
    }
    let srv = ServerProc::start(&img, &["--quiet", "--mmap-reads"]);
    std::fs::remove_file(&dst).unwrap();
    copy(&srv.uri(), &dst);
    assert!(
        std::fs::read(&dst).unwrap() == data,
        "read back through the mapping after a restart differs"
    );
}

/// fio's nbd engine: 4 KiB random writes, iodepth 1, fsync every 256
/// writes, then fio verifies what it wrote.
#[test]
fn fio_random_writes_verify() {
    if !have("fio", "fio_random_writes_verify") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(
        dir.path(),
        "f.img",
        &["--size", "32MiB", "--geometry", "small"],
    );
    let srv = ServerProc::start(&img, &["--quiet"]);
    // fio writes its verify state file into its working directory: run it
    // in the temporary directory so the test leaves nothing behind.
    let out = run_ok(
        Command::new("fio").current_dir(dir.path()).args([
            "--name=scftl-randwrite",
            "--ioengine=nbd",
            &format!("--uri={}", srv.uri()),
            "--rw=randwrite",
            "--bs=4k",
            "--iodepth=1",
            "--fsync=256",
            "--size=32m",
            "--io_size=4m",
            "--verify=crc32c",
            "--do_verify=1",
            "--randseed=42",
        ]),
        Duration::from_secs(300),
    );
    assert!(out.contains("err= 0"), "{out}");
    assert!(!out.contains("verify: bad"), "{out}");
}
