//! The `scftl` command line's rough edges: closed pipes, malformed flags and
//! argument errors exit quietly or with code 2 and a message naming the flag.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::*;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn malformed_listen_is_a_usage_error_before_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    for bad in ["localhost", "127.0.0.1:notaport", "1.2.3.4.5:10809"] {
        let o = scftl(
            &["serve", img.to_str().unwrap(), "--listen", bad],
            dir.path(),
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "--listen {bad}:\n{err}");
        assert!(err.contains("--listen"), "--listen {bad}:\n{err}");
        assert!(err.contains("HOST:PORT"), "--listen {bad}:\n{err}");
        assert!(!err.contains("recovered"), "--listen {bad}:\n{err}");
        assert!(!err.contains("another server"), "--listen {bad}:\n{err}");
    }
}

#[test]
fn closed_stdout_pipe_does_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    let mut child = Command::new(SCFTL)
        .args(["info", "--json"])
        .arg(&img)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Hang up before the child prints anything, as `| head -0` would.
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "stderr:\n{err}");
    assert!(!err.contains("Broken pipe"), "stderr:\n{err}");
}

#[test]
fn crashtest_refuses_an_empty_budget() {
    let dir = tempfile::tempdir().unwrap();
    for argv in [
        &["crashtest", "--seconds", "0"][..],
        &["crashtest", "--ops", "0"][..],
        &["crashtest", "--fs", "group", "--ops", "0"][..],
    ] {
        let o = scftl(argv, dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{argv:?}:\n{err}");
        assert!(err.contains("would check nothing"), "{argv:?}:\n{err}");
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("passed"),
            "{argv:?}"
        );
    }
}

/// The baselines that do not keep their contract on the image backend's
/// host power cut are refused with the reason, not run into a known
/// failure; and every run says which invariant checks the build has.
#[test]
fn crashtest_refuses_known_broken_combinations_and_names_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    for ftl in ["async", "optr"] {
        let o = scftl(
            &["crashtest", "--ftl", ftl, "--backend", "image"],
            dir.path(),
        );
        let err = stderr(&o);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{ftl}:
{err}"
        );
        assert!(
            err.contains("does not keep its contract"),
            "{ftl}:
{err}"
        );
        assert!(
            err.contains("--backend ram"),
            "{ftl}:
{err}"
        );
    }
    let o = scftl(&["crashtest", "--ops", "50", "--seed", "1"], dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let j = scftl(
        &["crashtest", "--ops", "50", "--seed", "1", "--json"],
        dir.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    // Test builds keep debug assertions; whether the ghost feature is in
    // depends on how cargo unified features for this build, so the text
    // is checked against the JSON: with it, the line says so; without
    // it, the line says how to get it.
    assert_eq!(v["invariant_checks"], true);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("build checks"))
        .unwrap_or_else(|| panic!("no build checks line:\n{out}"));
    match v["ghost_invariants"].as_bool() {
        Some(true) => assert!(line.contains("on, with the ghost copies"), "{line}"),
        Some(false) => assert!(
            line.contains("without the ghost copies") && line.contains("--features ftl/ghost"),
            "{line}"
        ),
        None => panic!("no ghost_invariants in {v:#}"),
    }
}

#[test]
fn bench_argument_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for argv in [
        &["bench", "randwr", "--wi", "0"][..],
        &["bench", "randwr", "--wi", "1,0"][..],
        &["bench", "cpu", "--wi", "0"][..],
        &["bench", "boot", "--fill-wi", "0"][..],
    ] {
        let o = scftl(argv, dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{argv:?}:\n{err}");
        assert!(err.contains("wi"), "{argv:?}:\n{err}");
        assert!(err.contains("at least 1"), "{argv:?}:\n{err}");
    }
}

#[test]
fn unix_socket_is_removed_on_clean_stop() {
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    let sock = dir.path().join("nbd.sock");
    let mut cmd = Command::new(SCFTL);
    cmd.arg("serve").arg(&img).arg("--unix").arg(&sock);
    let (mut child, rx) = spawn_with_stderr_lines(cmd);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = rx.recv_timeout(left).expect("serve did not start");
        if line.contains("serving export") {
            break;
        }
    }
    assert!(sock.exists(), "socket not created");
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "serve exited with {status}");
    assert!(!sock.exists(), "{} left behind", sock.display());
}

#[test]
fn format_into_a_missing_directory_says_to_create_it() {
    let dir = tempfile::tempdir().unwrap();
    let o = scftl(
        &["format", "no/such/dir/x.img", "--geometry", "small"],
        dir.path(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(err.contains("mkdir -p no/such/dir"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!dir.path().join("no").exists());
}

#[test]
fn info_json_config_values_are_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for ftl in ["scftl", "async", "sync"] {
        let name = format!("{ftl}.img");
        let img = format(dir.path(), &name, &["--geometry", "small", "--ftl", ftl]);
        let o = scftl(&["info", "--json", img.to_str().unwrap()], dir.path());
        assert!(o.status.success(), "{ftl}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let config = v["config"].as_object().expect("config is an object");
        assert!(config.contains_key("logical_sectors"), "{ftl}: {config:?}");
        for (k, val) in config {
            assert!(val.is_u64(), "{ftl}: config {k} is {val}, not a number");
        }
        assert_eq!(config["logical_sectors"], v["logical_sectors"], "{ftl}");
        // The table prints the same values as plain numbers.
        let o = scftl(&["info", img.to_str().unwrap()], dir.path());
        let text = String::from_utf8_lossy(&o.stdout);
        let row = text
            .lines()
            .find(|l| l.starts_with("config logical_sectors "))
            .unwrap_or_else(|| panic!("{ftl}: no config row:\n{text}"));
        assert_eq!(
            row.split_whitespace().last(),
            Some(v["logical_sectors"].to_string().as_str()),
            "{ftl}: {row}"
        );
    }
}

#[test]
fn oversize_write_is_refused_with_a_log_line() {
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    let srv = ServerProc::start(&img, &[]);
    let mut c = RawClient::connect(srv.port).unwrap();
    let limit = 32u64 << 20;
    let big = vec![0xa5u8; limit as usize + 4096];
    assert_eq!(c.write_errno(8192, &big).unwrap(), 22, "EINVAL");
    // The connection goes on after the refusal.
    c.write(0, &[1u8; 4096]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut seen = Vec::new();
    let line = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let l = srv
            .log
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no refusal logged; the log:\n{}", seen.join("\n")));
        if l.contains("refused") {
            break l;
        }
        seen.push(l);
    };
    assert!(line.contains("127.0.0.1:"), "names the client: {line}");
    let len = (limit + 4096).to_string();
    assert!(line.contains(&format!("WRITE 8192+{len}")), "{line}");
    assert!(line.contains(&limit.to_string()), "names the limit: {line}");
    assert_eq!(line.lines().count(), 1);
}

#[test]
fn package_and_binary_are_named_scftl() {
    // `cargo install --path crates/cli` installs the package's binary under
    // the package's name in `cargo install --list`; both are `scftl`.
    assert_eq!(env!("CARGO_PKG_NAME"), "scftl");
    assert!(SCFTL.ends_with("/scftl"), "{SCFTL}");
    let dir = tempfile::tempdir().unwrap();
    let o = scftl(&["--version"], dir.path());
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("scftl "));
}

#[test]
fn json_is_a_flag_that_prints_to_stdout_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let img = format(d, "a.img", &["--geometry", "small"]);
    let img = img.to_str().unwrap();
    let bench = [
        "bench", "randwr", "--quick", "--silent", "--ftl", "scftl", "--wi", "16",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        bench.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    for argv in [
        vec![
            "format".to_string(),
            "b.img".into(),
            "--geometry".into(),
            "small".into(),
        ],
        vec!["info".into(), img.into()],
        vec!["fsck".into(), img.into()],
        vec![
            "crashtest".into(),
            "--geometry".into(),
            "tiny".into(),
            "--ops".into(),
            "50".into(),
        ],
        with(&[]),
    ] {
        let mut argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        argv.push("--json");
        let o = scftl(&argv, d);
        // fsck of an image without a file system exits 1 but still reports.
        assert!(o.status.code().is_some(), "{argv:?}");
        let v: Result<serde_json::Value, _> = serde_json::from_slice(&o.stdout);
        assert!(
            v.is_ok(),
            "{argv:?}: stdout is not one JSON document:\n{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            stderr(&o)
        );
    }
    // A file is `--json-out FILE`; the text report still goes to stdout.
    let out = d.join("rows.json");
    let argv = with(&["--json-out", out.to_str().unwrap()]);
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let o = scftl(&argv, d);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(rows[0]["bench"], "randwr");
    assert!(serde_json::from_slice::<serde_json::Value>(&o.stdout).is_err());
    // The old spelling, a path after --json, is a usage error.
    let argv = with(&["--json", "x.json"]);
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let o = scftl(&argv, d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!d.join("x.json").exists());
}

#[test]
fn help_shows_no_rust_paths() {
    let dir = tempfile::tempdir().unwrap();
    let subs: &[&[&str]] = &[
        &[],
        &["help"],
        &["format"],
        &["info"],
        &["serve"],
        &["mkfs"],
        &["mount"],
        &["fsck"],
        &["crashtest"],
        &["bench"],
        &["bench", "randwr"],
        &["bench", "boot"],
        &["bench", "cpu"],
        &["bench", "app"],
    ];
    for sub in subs {
        let mut argv = sub.to_vec();
        if sub != &["help"] {
            argv.push("--help");
        }
        let o = scftl(&argv, dir.path());
        assert!(o.status.success(), "{argv:?}");
        let h = String::from_utf8_lossy(&o.stdout);
        for rustism in ["::", "[`", "Option<", "Vec<", "Self"] {
            assert!(!h.contains(rustism), "{argv:?} shows `{rustism}`:\n{h}");
        }
    }
}

#[test]
fn bench_bad_values_exit_2_and_failed_runs_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (argv, says) in [
        (
            &["bench", "randwr", "--geometry", "huge"][..],
            "known: tiny",
        ),
        (&["bench", "boot", "--sizes", "paper,bogus"][..], "bogus"),
        (&["bench", "cpu", "--repeat", "0"][..], "--repeat"),
        (&["bench", "randwr", "--queue-depth", "0"][..], "at least 1"),
        (&["bench", "boot", "--fill", "150"][..], "--fill"),
        (
            &["bench", "app", "--stacks", "ext4/nope"][..],
            "fs-group/scftl",
        ),
        (
            &["bench", "randwr", "--json-out", "no/such/dir/r.json"][..],
            "mkdir -p no/such/dir",
        ),
    ] {
        let o = scftl(argv, d);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{argv:?}:\n{err}");
        assert!(err.contains(says), "{argv:?}:\n{err}");
        assert!(o.stdout.is_empty(), "{argv:?} ran");
    }
    // A run that fails (its JSON file cannot be created: the name is a
    // directory) exits 1, after printing the report.
    let o = scftl(
        &[
            "bench",
            "randwr",
            "--quick",
            "--silent",
            "--ftl",
            "scftl",
            "--wi",
            "16",
            "--json-out",
            ".",
        ],
        d,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot create"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("randwr"));
}

#[test]
fn bench_names_its_commit_when_run_outside_the_checkout() {
    let src = env!("CARGO_MANIFEST_DIR");
    let head = Command::new("git")
        .args(["-C", src, "rev-parse", "--short=12", "HEAD"])
        .output();
    let Ok(head) = head.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()) else {
        eprintln!("skipped: git is not installed");
        return;
    };
    if head.is_empty() {
        eprintln!("skipped: {src} is not in a git checkout");
        return;
    }
    // The working directory is a fresh temporary directory, outside any
    // checkout.
    let dir = tempfile::tempdir().unwrap();
    let o = scftl(
        &[
            "bench", "randwr", "--quick", "--silent", "--ftl", "scftl", "--wi", "16", "--json",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The commit the binary was built from, 12 hex digits, `-dirty` when
    // the checkout has changes (a developer's run; CI's tree is clean).
    let c = rows[0]["commit"].as_str().unwrap_or("");
    assert!(
        c == head || c == format!("{head}-dirty"),
        "commit {c:?}, HEAD {head}"
    );
}

/// `crashtest --concurrent N --history FILE` saves a failing round, and
/// `--check-history FILE` decides it again from the file (exit 1, the same
/// verdict); a file that is no saved round, a missing file and options the
/// check would ignore exit 2; `--history` without `--concurrent` too.
#[test]
fn crashtest_saves_a_failing_concurrent_round_and_checks_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("round.json");
    let s = saved.to_str().unwrap();
    let mut found = false;
    for seed in 1..=20 {
        let seed = seed.to_string();
        let o = scftl(
            &[
                "crashtest",
                "--concurrent",
                "3",
                "--geometry",
                "tiny",
                "--ops",
                "150",
                "--seed",
                &seed,
                "--mutant",
                "flush-returns-during-sync",
                "--history",
                s,
            ],
            dir.path(),
        );
        if o.status.code() == Some(1) {
            assert!(String::from_utf8_lossy(&o.stdout).contains("saved: "));
            found = true;
            break;
        }
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert!(!saved.exists(), "a passing run saves nothing");
    }
    assert!(found, "the mutant is caught within 20 seeds");
    for _ in 0..2 {
        let o = scftl(&["crashtest", "--check-history", s], dir.path());
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains("NOT LINEARIZABLE: no order"), "{out}");
        assert!(out.contains("mutant flush-returns-during-sync"), "{out}");
    }
    let o = scftl(
        &["crashtest", "--check-history", s, "--seed", "3"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seed does not apply"));
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"version\": 1}").unwrap();
    for f in [junk.to_str().unwrap(), "/nonexistent/round.json"] {
        let o = scftl(&["crashtest", "--check-history", f], dir.path());
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    }
    let o = scftl(&["crashtest", "--ops", "5", "--history", s], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("only with --concurrent"));
    // The background writer too; and with it, a round counts GC victims.
    let o = scftl(
        &["crashtest", "--ops", "5", "--background-writes", "10"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--background-writes N applies only"));
    let argv: Vec<&str> =
        "crashtest --concurrent 3 --geometry tiny --ops 20 --seed 3 --background-writes 200"
            .split(' ')
            .collect();
    let o = scftl(&argv, dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("a background writer of 200 writes"), "{out}");
    assert!(out.contains("GC victims"), "{out}");
}

#[test]
fn fsck_of_an_image_without_a_file_system_says_to_run_mkfs() {
    let dir = tempfile::tempdir().unwrap();
    let img = format(dir.path(), "a.img", &["--geometry", "small"]);
    let before = std::fs::read(&img).unwrap();
    let path = img.to_str().unwrap();
    // Check: exit 1, "no file system" (not "inconsistent"), the command to run.
    let o = scftl(&["fsck", path], dir.path());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("NO FILE SYSTEM"), "{out}");
    assert!(out.contains("1 problem;"), "{out}");
    assert!(!out.contains("INCONSISTENT"), "{out}");
    assert!(err.contains(&format!("scftl mkfs {path}")), "{err}");
    assert!(!err.contains("inconsistent"), "{err}");
    let o = scftl(&["fsck", "--json", path], dir.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["report"]["no_file_system"], true, "{v}");
    assert_eq!(v["clean"], false, "{v}");
    // Repair: refused with the same advice, nothing written.
    let o = scftl(&["fsck", "--repair", path], dir.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing to repair"), "{err}");
    assert!(err.contains(&format!("scftl mkfs {path}")), "{err}");
    assert_eq!(
        std::fs::read(&img).unwrap(),
        before,
        "fsck wrote to the image"
    );
    // After mkfs the same image is clean.
    let o = scftl(&["mkfs", path], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = scftl(&["fsck", "--json", path], dir.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["clean"], true, "{v}");
    assert_eq!(v["report"]["no_file_system"], false, "{v}");
}
