//! `scftl serve` cannot be locked out: connections that never finish their
//! handshake are closed at the handshake timeout while a real client waits
//! its turn; a client over --max-clients gets an error it prints; bad limit
//! options are usage errors; a non-loopback listener without TLS warns.

mod common;

use std::io::Read;
use std::net::TcpStream;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;

const MIN: Duration = Duration::from_secs(60);

fn small_image(dir: &std::path::Path) -> std::path::PathBuf {
    format(dir, "l.img", &["--size", "8MiB", "--geometry", "small"])
}

/// Holds `n` connections that never send a byte; each one the server
/// closes is opened again at once, until `stop`.
fn hold_idle(port: u16, n: usize, stop: &Arc<AtomicBool>) -> Vec<std::thread::JoinHandle<u32>> {
    (0..n)
        .map(|_| {
            let stop = Arc::clone(stop);
            std::thread::spawn(move || {
                let mut closed_by_server = 0;
                while !stop.load(Ordering::SeqCst) {
                    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
                        continue;
                    };
                    s.set_read_timeout(Some(Duration::from_millis(100)))
                        .unwrap();
                    let mut b = [0u8; 64];
                    loop {
                        match s.read(&mut b) {
                            Ok(0) | Err(_) if stop.load(Ordering::SeqCst) => break,
                            Ok(0) => {
                                closed_by_server += 1;
                                break;
                            }
                            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                                closed_by_server += 1;
                                break;
                            }
                            // The greeting, or a read timeout: stay silent.
                            Ok(_) | Err(_) => {}
                        }
                    }
                }
                closed_by_server
            })
        })
        .collect()
}

/// 64 silent connections (re-opened as soon as they are closed) hold every
/// client slot, yet a real client gets in within about one handshake
/// timeout and reads and writes.
#[test]
fn idle_connections_cannot_lock_out_a_real_client() {
    let dir = tempfile::tempdir().unwrap();
    let img = small_image(dir.path());
    let srv = ServerProc::start(&img, &["--max-clients", "64", "--handshake-timeout", "2s"]);
    let stop = Arc::new(AtomicBool::new(false));
    let holders = hold_idle(srv.port, 64, &stop);
    // Let the holders take every slot.
    std::thread::sleep(Duration::from_millis(500));

    let t0 = Instant::now();
    if have(
        "nbdinfo",
        "idle_connections_cannot_lock_out_a_real_client (using the raw client)",
    ) {
        let out = run_ok(Command::new("nbdinfo").args(["--json", &srv.uri()]), MIN);
        assert!(out.contains("\"export-size\": 8388608"), "{out}");
    } else {
        let mut c = RawClient::connect(srv.port).expect("raw client");
        c.write(0, &[0x5c; 4096]).unwrap();
        assert_eq!(c.read(0, 4096).unwrap(), vec![0x5c; 4096]);
    }
    let waited = t0.elapsed();
    // Give every holder time to notice its first connection was closed.
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, Ordering::SeqCst);
    let closed: u32 = holders.into_iter().map(|h| h.join().unwrap()).sum();
    // One handshake timeout (2 s) plus scheduling slack on a loaded machine.
    assert!(
        waited < Duration::from_secs(6),
        "the client waited {waited:?}"
    );
    assert!(
        closed >= 64,
        "the server closed only {closed} idle connections"
    );
    let log = srv.drain_log(Duration::from_millis(500));
    assert!(
        log.iter()
            .any(|l| l.contains("handshake not finished within the handshake timeout")),
        "no timeout in the log: {log:?}"
    );
}

/// With every slot held by an established client, the next client waits
/// one handshake timeout, then is refused with the server's reason, which
/// qemu prints (libnbd only shows it in its debug output).
#[test]
fn a_client_over_max_clients_prints_why() {
    let qemu = have(
        "qemu-io",
        "a_client_over_max_clients_prints_why (qemu-io part)",
    );
    let libnbd = have(
        "nbdinfo",
        "a_client_over_max_clients_prints_why (nbdinfo part)",
    );
    if !qemu && !libnbd {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = small_image(dir.path());
    let srv = ServerProc::start(&img, &["--max-clients", "1", "--handshake-timeout", "1s"]);
    let mut first = RawClient::connect(srv.port).expect("first client");
    let reason = "server busy: all 1 client slots are in use (scftl serve --max-clients)";
    if qemu {
        let out = run_with_deadline(
            Command::new("qemu-io").args(["-f", "raw", &srv.uri(), "-c", "read 0 512"]),
            MIN,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "qemu-io got in over the limit");
        assert!(
            err.contains(reason),
            "qemu-io did not print the reason: {err}"
        );
    }
    if libnbd {
        let out = run_with_deadline(
            Command::new("nbdinfo")
                .arg(srv.uri())
                .env("LIBNBD_DEBUG", "1"),
            MIN,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "nbdinfo got in over the limit");
        assert!(
            err.contains(&format!("server error message: {reason}")),
            "nbdinfo did not receive the reason: {err}"
        );
    }
    // The established client is still served.
    first.write(0, &[1; 512]).unwrap();
    let log = srv.drain_log(Duration::from_millis(500));
    assert!(
        log.iter()
            .any(|l| l.contains("refused, all 1 client slots busy")),
        "refusal not logged: {log:?}"
    );
}

#[test]
fn bad_limit_and_tls_options_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["serve", "--memory", "--handshake-timeout", "soon"][..],
        &["serve", "--memory", "--idle-timeout", "-3s"],
        &["serve", "--memory", "--max-clients", "0"],
        &["serve", "--memory", "--tls", "require"],
        &[
            "serve",
            "--memory",
            "--tls-cert",
            "c.pem",
            "--tls-key",
            "k.pem",
        ],
        &["serve", "--memory", "--tls-client-ca", "ca.pem"],
        &[
            "serve",
            "--memory",
            "--tls",
            "allow",
            "--tls-cert",
            "c.pem",
            "--tls-key",
            "k.pem",
            "--tls-client-ca",
            "ca.pem",
        ],
        &[
            "serve",
            "--memory",
            "--tls",
            "require",
            "--tls-cert",
            "none.pem",
            "--tls-key",
            "none.pem",
        ],
    ] {
        let o = scftl(args, dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            !err.contains("recovered"),
            "{args:?} touched a device: {err}"
        );
    }
}

#[test]
fn listening_beyond_loopback_without_tls_warns() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(SCFTL);
    cmd.args(["serve", "--memory", "--listen", "0.0.0.0:0"])
        .current_dir(dir.path());
    let (mut child, rx) = spawn_with_stderr_lines(cmd);
    let mut seen = Vec::new();
    let deadline = Instant::now() + MIN;
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(l) => {
                let serving = l.contains("serving export");
                seen.push(l);
                if serving {
                    break;
                }
            }
            Err(_) => continue,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.iter()
            .any(|l| l.contains("WARNING") && l.contains("without TLS")),
        "no warning: {seen:?}"
    );
}
