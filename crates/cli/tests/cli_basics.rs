//! The `scftl` command line: help, exit codes, messages that say what to
//! do, format/info, and serve's default image and clean shutdown.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_subcommand_has_help() {
    let dir = tempfile::tempdir().unwrap();
    let top = scftl(&["--help"], dir.path());
    assert!(top.status.success());
    let text = String::from_utf8_lossy(&top.stdout).into_owned();
    for sub in ["format", "info", "serve", "crashtest", "bench"] {
        assert!(text.contains(sub), "top-level help lacks {sub}:\n{text}");
        let o = scftl(&[sub, "--help"], dir.path());
        assert!(o.status.success(), "{sub} --help failed");
        let h = String::from_utf8_lossy(&o.stdout);
        assert!(h.contains("Usage: scftl"), "{sub} --help:\n{h}");
    }
    let serve =
        String::from_utf8_lossy(&scftl(&["serve", "--help"], dir.path()).stdout).into_owned();
    for opt in ["--listen", "--unix", "--read-only", "--export-name"] {
        assert!(serve.contains(opt), "serve --help lacks {opt}");
    }
    assert!(
        !serve.contains("debug-slow-sync"),
        "test hook leaked into help"
    );
}

#[test]
fn format_refuses_to_overwrite_and_rejects_bad_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "a.img", &["--size", "16MiB", "--geometry", "small"]);
    let o = scftl(&["format", "a.img", "--size", "16MiB"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    format(
        d,
        "a.img",
        &["--size", "8MiB", "--geometry", "small", "--force"],
    );

    let o = scftl(&["format", "b.img", "--size", "12 parsecs"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("GiB"), "{}", stderr(&o));
    let o = scftl(&["format", "b.img", "--size", "1000TiB"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ask for less"), "{}", stderr(&o));
    let o = scftl(
        &["format", "b.img", "--size", "1GiB", "--geometry", "small"],
        d,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--geometry"), "{}", stderr(&o));
    let o = scftl(&["format", "b.img", "--geometry", "huge"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("medium"),
        "known presets listed: {}",
        stderr(&o)
    );
    let o = scftl(&["format", "b.img", "--ftl", "fast"], d);
    assert_eq!(o.status.code(), Some(2));
    // A configuration violating the SCFTL constraints is refused with the
    // constraint named.
    let o = scftl(
        &[
            "format",
            "b.img",
            "--geometry",
            "small",
            "--write-bound",
            "100000",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("constraint ("), "{}", stderr(&o));
    let o = scftl(
        &[
            "format",
            "b.img",
            "--geometry",
            "small",
            "--gc-threshold",
            "0",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // The delta region's size: none, more than the device can spare, or
    // on an FTL without one is refused, saying why.
    for (args, needle) in [
        (
            &["--geometry", "small", "--delta-region-superblocks", "0"][..],
            "delta_region_superblocks",
        ),
        (
            &["--geometry", "small", "--delta-region-superblocks", "100"],
            "delta region",
        ),
        (
            &[
                "--geometry",
                "small",
                "--ftl",
                "async",
                "--delta-region-superblocks",
                "2",
            ],
            "scftl only",
        ),
    ] {
        let mut argv = vec!["format", "b.img"];
        argv.extend_from_slice(args);
        let o = scftl(&argv, d);
        assert_eq!(o.status.code(), Some(2), "{argv:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{argv:?}: {}", stderr(&o));
    }
    assert!(!d.join("b.img").exists(), "a refused format left a file");
}

/// `--delta-region-superblocks` sizes SCFTL's delta region: the image
/// records it (`info`), K and U are refitted around it (a larger region
/// leaves GC fewer superblocks: U falls here), and the device works.
#[test]
fn format_sizes_the_delta_region() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = |img: &str| {
        let o = scftl(&["info", img, "--json"], d);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let c = &v["config"];
        (
            c["delta_region_superblocks"].as_u64().unwrap(),
            c["gc_threshold"].as_u64().unwrap(),
        )
    };
    format(d, "default.img", &["--geometry", "small"]);
    format(
        d,
        "big.img",
        &[
            "--geometry",
            "small",
            "--size",
            "16MiB",
            "--delta-region-superblocks",
            "3",
        ],
    );
    format(d, "half.img", &["--geometry", "small", "--size", "16MiB"]);
    let (region, _) = config("default.img");
    assert_eq!(region, 1, "small's default region");
    let (big, u_big) = config("big.img");
    let (half, u_half) = config("half.img");
    assert_eq!((big, half), (3, 1));
    assert!(
        u_big < u_half,
        "U {u_big} with 3 region superblocks, {u_half} with 1"
    );
    let o = scftl(&["scrub", "big.img"], d);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn info_describes_an_image_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    format(d, "i.img", &["--size", "16MiB", "--geometry", "small"]);
    let o = scftl(&["info", "i.img"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for key in [
        "geometry",
        "ftl",
        "logical size",
        "device wear",
        "last recovery",
        "blocks",
    ] {
        assert!(text.contains(key), "info lacks {key}:\n{text}");
    }
    // Format erased the metadata blocks once: the image's own records.
    assert!(
        text.contains("erase counts min 0, ")
            && text.contains(", max 1 over ")
            && text.contains("; 0 bad"),
        "{text}"
    );
    let o = scftl(&["info", "i.img", "--json"], d);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["logical_bytes"], 16u64 << 20);
    assert_eq!(v["ftl"], "scftl");
    assert!(v["stats"]["last_recovery_ns"].is_u64());
    assert!(v["stats"]["erases_avg"].is_f64());

    let o = scftl(&["info", "missing.img"], d);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("scftl format"), "{}", stderr(&o));
    let o = scftl(&["serve", "missing.img", "--listen", "127.0.0.1:0"], d);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("scftl format"), "{}", stderr(&o));
}

#[test]
fn serve_without_image_creates_the_default_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(SCFTL)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut log = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    for line in lines.by_ref() {
        let line = line.unwrap();
        let ready = line.contains("serving export");
        log.push(line);
        if ready || Instant::now() > deadline {
            break;
        }
    }
    let joined = log.join("\n");
    assert!(dir.path().join("scftl.img").exists(), "{joined}");
    assert!(joined.contains("created scftl.img"), "{joined}");
    assert!(joined.contains("recovered"), "{joined}");
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve ignored SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(status.success(), "exit {status}: {rest:?}");
    assert!(rest.iter().any(|l| l.contains("flushed")), "{rest:?}");

    // A second start reuses the image instead of creating another.
    let img = dir.path().join("scftl.img");
    let srv = ServerProc::start(&img, &[]);
    assert!(srv.port > 0);
}

#[test]
fn baselines_format_serve_and_refuse_epoch_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for kind in ["async", "sync"] {
        let img = format(
            d,
            &format!("{kind}.img"),
            &["--geometry", "small", "--ftl", kind],
        );
        let o = scftl(&["info", img.to_str().unwrap(), "--json"], d);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(
            v.to_string().contains(&format!("\"{kind}\"")),
            "info names the FTL: {v}"
        );
        // Data written through NBD survives a kill -9 after a flush.
        let mut srv = ServerProc::start(&img, &[]);
        let mut c = RawClient::connect(srv.port).unwrap();
        c.write(4096, &[0x5a; 8192]).unwrap();
        c.flush().unwrap();
        srv.kill9();
        let srv = ServerProc::start(&img, &[]);
        let mut c = RawClient::connect(srv.port).unwrap();
        assert_eq!(c.read(4096, 8192).unwrap(), vec![0x5a; 8192], "{kind}");
        let o = scftl(
            &[
                "format",
                "x.img",
                "--geometry",
                "small",
                "--ftl",
                kind,
                "--write-bound",
                "64",
            ],
            d,
        );
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("scftl only"), "{}", stderr(&o));
    }
}
