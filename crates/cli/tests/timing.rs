//! `--timing` and `--memory` of `scftl serve` and `scftl mount`: a client
//! feels the latency model in real time, a timing file is honoured, bad
//! files and conflicting options are refused with a clear message.
//!
//! Only lower bounds on wall time are asserted (a wait is never shorter than
//! the model's); the measured means are printed, never judged from above,
//! because the machine may be slow or shared.

mod common;
mod mounted;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{run_ok, scftl, spawn_with_stderr_lines, RawClient, SCFTL};
use mounted::{fuse_available, Mounted};

/// The paper model's page read and program latencies (flash::TimingConfig
/// defaults), in ns.
const PAPER_READ_NS: u64 = 40_000;
const PAPER_PROGRAM_NS: u64 = 200_000;

const SECTOR: usize = 4096;

/// A running `scftl serve --memory`, killed when dropped.
struct Served {
    child: Child,
    port: u16,
    /// What it printed before listening.
    startup: Vec<String>,
    log: mpsc::Receiver<String>,
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        let mut cmd = Command::new(SCFTL);
        cmd.args(["serve", "--memory", "--listen", "127.0.0.1:0", "--quiet"])
            .args(extra);
        let (mut child, rx) = spawn_with_stderr_lines(cmd);
        let mut startup = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.split("nbd://127.0.0.1:").nth(1) {
                        let port: String =
                            rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                        return Served {
                            child,
                            port: port.parse().expect("port in serve output"),
                            startup,
                            log: rx,
                        };
                    }
                    startup.push(line);
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("serve did not start listening:\n{}", startup.join("\n"));
                }
            }
        }
    }

    /// SIGTERM; expects a clean exit and returns what it printed after
    /// starting.
    fn terminate(&mut self) -> Vec<String> {
        let pid = self.child.id().to_string();
        run_ok(
            Command::new("kill").args(["-TERM", &pid]),
            Duration::from_secs(10),
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "serve ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        let lines: Vec<String> = self.log.try_iter().collect();
        assert!(status.success(), "{status}:\n{}", lines.join("\n"));
        lines
    }

    fn timing_line(&self) -> &str {
        self.startup
            .iter()
            .find(|l| l.contains("timing:"))
            .map(String::as_str)
            .unwrap_or_else(|| panic!("no timing line in:\n{}", self.startup.join("\n")))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `sectors` distinct 4 KiB sectors and flushes (so every one is on
/// flash, not in the FTL's merge buffer).
fn fill(c: &mut RawClient, sectors: u64) {
    for i in 0..sectors {
        c.write(i * SECTOR as u64, &[(i % 251) as u8 + 1; SECTOR])
            .unwrap();
    }
    c.flush().unwrap();
}

/// Mean wall time of 4 KiB reads of every fourth sector in `0..sectors`
/// (each in a page of its own, so each one senses its page), checking
/// the data.
fn mean_read(c: &mut RawClient, sectors: u64) -> Duration {
    let mut total = Duration::ZERO;
    let mut n = 0;
    for i in (0..sectors).step_by(4) {
        let t0 = Instant::now();
        let d = c.read(i * SECTOR as u64, SECTOR as u32).unwrap();
        total += t0.elapsed();
        n += 1;
        assert_eq!(d, vec![(i % 251) as u8 + 1; SECTOR], "sector {i}");
    }
    total / n
}

/// Mean wall time of (4 KiB write, flush) pairs, measured on the flush.
fn mean_flush(c: &mut RawClient, rounds: u64) -> Duration {
    let mut total = Duration::ZERO;
    for i in 0..rounds {
        c.write(i * SECTOR as u64, &[0xA5; SECTOR]).unwrap();
        let t0 = Instant::now();
        c.flush().unwrap();
        total += t0.elapsed();
    }
    total / rounds as u32
}

#[test]
fn paper_model_reads_take_at_least_the_read_latency() {
    let s = Served::start(&["--geometry", "small", "--timing", "paper"]);
    let line = s.timing_line();
    assert!(
        line.contains("paper") && line.contains("read 40 µs"),
        "{line}"
    );
    let mut c = RawClient::connect(s.port).unwrap();
    fill(&mut c, 512);
    let read = mean_read(&mut c, 512);
    let flush = mean_flush(&mut c, 20);
    eprintln!(
        "paper model over NBD: mean 4 KiB read {:.1} µs, mean flush after a 4 KiB write {:.1} µs",
        read.as_secs_f64() * 1e6,
        flush.as_secs_f64() * 1e6
    );
    assert!(
        read >= Duration::from_nanos(PAPER_READ_NS),
        "mean read {read:?} is shorter than the model's read latency"
    );
    // A flush after a write programs at least one page and waits for it.
    assert!(
        flush >= Duration::from_nanos(PAPER_PROGRAM_NS),
        "mean flush {flush:?} is shorter than the model's program latency"
    );
    // The server accounts for the waits it imposed: one per read at least.
    let mut s = s;
    let lines = s.terminate();
    let report = lines
        .iter()
        .find(|l| l.contains("host waits"))
        .unwrap_or_else(|| panic!("no timing report at exit:\n{}", lines.join("\n")));
    eprintln!("{report}");
    let waits: u64 = report
        .split("timing: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unparsable: {report}"));
    assert!(waits >= 512 / 4, "{report}");
}

#[test]
fn a_timing_file_sets_the_read_latency() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("slow.json");
    std::fs::write(&file, r#"{ "read_ns": 3000000, "queue_depth": 8 }"#).unwrap();
    let s = Served::start(&["--geometry", "small", "--timing", file.to_str().unwrap()]);
    let line = s.timing_line();
    assert!(
        line.contains("slow.json") && line.contains("read 3000 µs") && line.contains("depth 8"),
        "{line}"
    );
    let mut c = RawClient::connect(s.port).unwrap();
    fill(&mut c, 64);
    let read = mean_read(&mut c, 64);
    eprintln!(
        "read_ns 3000000 over NBD: mean 4 KiB read {:.0} µs",
        read.as_secs_f64() * 1e6
    );
    assert!(read >= Duration::from_millis(3), "mean read {read:?}");
}

#[test]
fn no_model_is_the_default_and_says_so() {
    let s = Served::start(&["--geometry", "small"]);
    assert!(s.timing_line().contains("none"), "{}", s.timing_line());
    let mut c = RawClient::connect(s.port).unwrap();
    fill(&mut c, 512);
    // The same workload as under the paper model, for the overhead of the
    // path (TCP, server, FTL) without the model.
    let read = mean_read(&mut c, 512);
    let flush = mean_flush(&mut c, 20);
    eprintln!(
        "no model over NBD: mean 4 KiB read {:.1} µs, mean flush after a 4 KiB write {:.1} µs",
        read.as_secs_f64() * 1e6,
        flush.as_secs_f64() * 1e6
    );
}

/// Runs `scftl ARGS`, expects exit 2 and a message containing `want`.
fn refused(args: &[&str], want: &str, cwd: &Path) {
    let out = scftl(args, cwd);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: expected {want:?} in:\n{err}");
}

#[test]
fn bad_timing_files_and_conflicts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = [
        ("broken.json", "{\"read_ns\": ", "not valid JSON"),
        (
            "unknown.json",
            r#"{"read_us": 40}"#,
            "unknown field `read_us`; the fields are read_ns, program_ns",
        ),
        ("negative.json", r#"{"erase_ns": -5}"#, "field `erase_ns`"),
        ("zero.json", r#"{"queue_depth": 0}"#, "from 1 to"),
        ("list.json", "[]", "expected a JSON object"),
    ];
    for (name, text, want) in files {
        std::fs::write(d.join(name), text).unwrap();
        refused(&["serve", "--memory", "--timing", name], want, d);
        refused(&["mount", "--memory", "mnt", "--timing", name], want, d);
    }
    refused(
        &["serve", "--memory", "--timing", "missing.json"],
        "expected `paper`, `none` or a JSON file",
        d,
    );
    refused(
        &["serve", "--memory", "disk.img"],
        "'--memory' cannot be used with '[IMAGE]'",
        d,
    );
    refused(
        &["serve", "--memory", "--read-only"],
        "cannot be used with '--read-only'",
        d,
    );
    refused(&["serve", "--geometry", "small"], "--memory", d);
    refused(
        &["mount", "--memory", "disk.img", "mnt"],
        "conflicts with IMAGE",
        d,
    );
    refused(&["mount", "mnt"], "expected IMAGE MOUNTPOINT", d);
    // A request `scftl format` would refuse is refused the same way.
    refused(
        &[
            "serve",
            "--memory",
            "--geometry",
            "small",
            "--write-bound",
            "0",
        ],
        "W",
        d,
    );
}

#[test]
fn mount_memory_under_the_paper_model() {
    let test = "mount_memory_under_the_paper_model";
    if !fuse_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let mut cmd = Command::new(SCFTL);
    cmd.arg("mount").args([
        "--memory",
        "--geometry",
        "small",
        "--timing",
        "paper",
        "--mode",
        "group",
    ]);
    cmd.arg(&mnt);
    let m = Mounted::spawn(cmd, &mnt);
    assert!(
        m.startup.iter().any(|l| l.contains("timing: paper")),
        "{}",
        m.startup.join("\n")
    );

    let rounds = 20u32;
    let mut fsync_total = Duration::ZERO;
    for i in 0..rounds {
        let path = mnt.join(format!("f{i}"));
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&vec![i as u8; 10_000]).unwrap();
        let t0 = Instant::now();
        f.sync_all().unwrap();
        fsync_total += t0.elapsed();
    }
    for i in 0..rounds {
        let mut back = Vec::new();
        std::fs::File::open(mnt.join(format!("f{i}")))
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, vec![i as u8; 10_000], "f{i}");
    }
    let fsync = fsync_total / rounds;
    eprintln!(
        "paper model, FUSE group mode: mean fsync of a new 10 kB file {:.0} µs",
        fsync.as_secs_f64() * 1e6
    );
    // An fsync commits the epoch: at least one page programmed and waited for.
    assert!(fsync >= Duration::from_nanos(PAPER_PROGRAM_NS), "{fsync:?}");

    // Unmounting checks the clean exit and the final flush.
    let rest = m.unmount();
    let report = rest
        .iter()
        .find(|l| l.contains("host waits"))
        .unwrap_or_else(|| panic!("no timing report at exit:\n{}", rest.join("\n")));
    eprintln!("{report}");
}
