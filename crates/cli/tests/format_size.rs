//! Regression: `format --size 1GiB` silently picked the 8 GiB `paper`
//! preset (an 8.6 GB sparse file). `--size` now derives a geometry of about
//! the request plus `--over-provisioning` (sizing.rs), prints it, and
//! refuses sizes it cannot serve; `serve --memory --size` derives the same.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `format x.img ARGS --json`: (logical bytes, raw bytes, preset, stdout).
fn format_json(dir: &std::path::Path, args: &[&str]) -> (u64, u64, String) {
    let mut argv = vec!["format", "x.img", "--force", "--json"];
    argv.extend_from_slice(args);
    let o = scftl(&argv, dir);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    (
        v["logical_bytes"].as_u64().unwrap(),
        v["geometry"]["raw_bytes"].as_u64().unwrap(),
        v["geometry"]["preset"].as_str().unwrap().to_string(),
    )
}

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

#[test]
fn one_gib_gets_about_two_gib_of_flash_not_paper() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (logical, raw, preset) = format_json(d, &["--size", "1GiB"]);
    assert_eq!(logical, GIB);
    assert_eq!(raw, 2 * GIB, "default over-provisioning is 100%");
    assert_ne!(preset, "paper");
    let file = std::fs::metadata(d.join("x.img")).unwrap().len();
    assert!(file < 2 * GIB + 256 * MIB, "image file of {file} bytes");

    // The human output names the raw size, the ratio and the geometry.
    let o = scftl(&["format", "y.img", "--size", "1GiB"], d);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("1 GiB scftl disk on 2 GiB of flash"), "{out}");
    assert!(out.contains("100% over-provisioning"), "{out}");
    assert!(out.contains("medium shape, 128 blocks per die"), "{out}");
}

#[test]
fn four_gib_is_the_paper_preset() {
    let dir = tempfile::tempdir().unwrap();
    let (logical, raw, preset) = format_json(dir.path(), &["--size", "4GiB"]);
    assert_eq!((logical, raw), (4 * GIB, 8 * GIB));
    assert_eq!(preset, "paper");
}

#[test]
fn over_provisioning_sets_the_spare_flash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (ftl, op) in [("async", 28u64), ("sync", 50), ("scftl", 60)] {
        let (logical, raw, _) = format_json(
            d,
            &[
                "--size",
                "1GiB",
                "--ftl",
                ftl,
                "--over-provisioning",
                &op.to_string(),
            ],
        );
        assert_eq!(logical, GIB, "{ftl}");
        let want = GIB * (100 + op) / 100;
        // At least what was asked; at most an eighth more (the FTL's
        // metadata and whole superblocks).
        assert!(raw >= want, "{ftl} {op}%: raw {raw}");
        assert!(raw <= want + want / 8, "{ftl} {op}%: raw {raw}");
    }
}

#[test]
fn odd_sizes_get_at_least_what_was_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (size, bytes) in [
        ("1000000000", 1_000_000_000u64),
        ("100MiB", 100 * MIB),
        ("3GiB", 3 * GIB),
        ("20971521", 20 * MIB + 1),
    ] {
        let (logical, raw, _) = format_json(d, &["--size", size]);
        assert!(logical >= bytes, "--size {size}: {logical}");
        assert!(logical < bytes + 4096, "--size {size}: {logical}");
        assert!(raw >= 2 * bytes, "--size {size}: raw {raw}");
        // Small disks pay for the FTL's fixed metadata; large ones barely.
        let slack = if bytes < 64 * MIB {
            2 * bytes
        } else {
            bytes / 8
        };
        assert!(raw <= 2 * bytes + slack, "--size {size}: raw {raw}");
    }
}

#[test]
fn sizes_and_ratios_it_cannot_serve_are_refused_before_any_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, says) in [
        (&["--size", "1MiB"][..], "too small"),
        (&["--size", "0"][..], "at least one sector"),
        (&["--size", "64TiB"][..], "ask for less"),
        (&["--size", "9TiB"][..], "at most 16"),
        (
            &["--size", "1GiB", "--over-provisioning", "2"][..],
            "pass --over-provisioning",
        ),
        (
            &["--size", "1GiB", "--over-provisioning", "0"][..],
            "from 1 to 1000",
        ),
        (
            &["--size", "1GiB", "--over-provisioning", "lots"][..],
            "not a percentage",
        ),
        (&["--over-provisioning", "50"][..], "--size"),
        (
            &[
                "--size",
                "1GiB",
                "--geometry",
                "medium",
                "--over-provisioning",
                "50",
            ][..],
            "--geometry",
        ),
    ] {
        let mut argv = vec!["format", "z.img"];
        argv.extend_from_slice(args);
        let o = scftl(&argv, d);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!d.join("z.img").exists(), "{args:?} left a file");
    }
    // The percentage a refusal names is one that works.
    let o = scftl(
        &[
            "format",
            "z.img",
            "--size",
            "1GiB",
            "--over-provisioning",
            "2",
        ],
        d,
    );
    let err = stderr(&o);
    let needed: String = err
        .split("pass --over-provisioning ")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let (logical, _, _) = format_json(d, &["--size", "1GiB", "--over-provisioning", &needed]);
    assert_eq!(logical, GIB);
}

#[test]
fn serve_memory_derives_the_same_geometry() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(SCFTL);
    cmd.current_dir(dir.path()).args([
        "serve",
        "--memory",
        "--size",
        "1GiB",
        "--over-provisioning",
        "50",
        "--listen",
        "127.0.0.1:0",
    ]);
    let (mut child, rx) = spawn_with_stderr_lines(cmd);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    let port: u16 = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            let _ = child.kill();
            panic!("serve did not start:\n{}", seen.join("\n"));
        };
        if let Some(rest) = line.split("nbd://127.0.0.1:").nth(1) {
            break rest
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .unwrap();
        }
        seen.push(line);
    };
    let formatted = seen
        .iter()
        .find(|l| l.contains("formatted a RAM device"))
        .cloned()
        .unwrap_or_default();
    let size = RawClient::connect(port).map(|c| c.size);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(size.unwrap(), GIB);
    // 1 GiB plus 50 % over-provisioning, rounded up to whole superblocks
    // and to what the FTL's epoch bound needs (never more than an eighth
    // above the request).
    let flash_gib: f64 = formatted
        .split("1 GiB scftl disk on ")
        .nth(1)
        .and_then(|r| r.split(" GiB of flash").next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no flash size in: {formatted}"));
    assert!(
        (1.5..=1.5 * 1.125).contains(&flash_gib),
        "{flash_gib} GiB of flash for 1 GiB at 50 %: {formatted}"
    );
    assert!(formatted.contains("medium shape"), "{formatted}");
}
