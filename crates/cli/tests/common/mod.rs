//! Helpers for the CLI's integration tests: run the built `scftl`, start a
//! server on a free port and always kill it, run external tools with a
//! deadline, and a minimal raw NBD client for precise power-cut schedules.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const SCFTL: &str = env!("CARGO_BIN_EXE_scftl");

/// Runs `qemu-io -f raw URI -c CMD...` (one minute at most) and returns
/// its stdout and stderr together, for the caller to check.
pub fn qemu_io_output<S: AsRef<str>>(uri: &str, cmds: &[S]) -> String {
    let mut c = Command::new("qemu-io");
    c.args(["-f", "raw", uri]);
    for cmd in cmds {
        c.args(["-c", cmd.as_ref()]);
    }
    let out = run_with_deadline(&mut c, Duration::from_secs(60));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// True if `tool` is on PATH; otherwise prints a visible skip message.
pub fn have(tool: &str, test: &str) -> bool {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false);
    if !found {
        eprintln!("SKIP: {test}: `{tool}` is not installed (apt-get install the package that provides it)");
    }
    found
}

/// True if running as root; otherwise prints a visible skip message.
pub fn is_root(test: &str) -> bool {
    let out = Command::new("id").arg("-u").output();
    let root = matches!(out, Ok(o) if String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        eprintln!("SKIP: {test}: needs root (loop devices and mount)");
    }
    root
}

/// Runs a command to completion within `limit`, killing it if it overruns.
pub fn run_with_deadline(cmd: &mut Command, limit: Duration) -> Output {
    let desc = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {desc}: {e}"));
    // Drain both pipes in threads so a chatty child cannot block.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t1 = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t2 = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{desc} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t1.join().unwrap(),
        stderr: t2.join().unwrap(),
    }
}

/// Runs a command and asserts it succeeded; returns stdout.
pub fn run_ok(cmd: &mut Command, limit: Duration) -> String {
    let desc = format!("{cmd:?}");
    let out = run_with_deadline(cmd, limit);
    assert!(
        out.status.success(),
        "{desc} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `scftl ARGS` with a deadline.
pub fn scftl(args: &[&str], cwd: &Path) -> Output {
    run_with_deadline(
        Command::new(SCFTL).args(args).current_dir(cwd),
        Duration::from_secs(120),
    )
}

/// Formats an image and asserts success.
pub fn format(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let mut args = vec!["format", name];
    args.extend_from_slice(extra);
    let out = scftl(&args, dir);
    assert!(
        out.status.success(),
        "format failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join(name)
}

/// Spawns `cmd` with stdin and stdout closed and its stderr forwarded, line
/// by line, to the returned receiver (so a test can wait for a line such as
/// the listening address while the process runs).
pub fn spawn_with_stderr_lines(mut cmd: Command) -> (Child, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// A running `scftl serve`, killed (SIGKILL) when dropped.
pub struct ServerProc {
    pub child: Child,
    pub port: u16,
    pub log: mpsc::Receiver<String>,
}

impl ServerProc {
    /// Starts `scftl serve IMAGE --listen 127.0.0.1:0 EXTRA` and waits for
    /// it to print the port it listens on.
    pub fn start(image: &Path, extra: &[&str]) -> ServerProc {
        let mut cmd = Command::new(SCFTL);
        cmd.arg("serve")
            .arg(image)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra);
        let (mut child, rx) = spawn_with_stderr_lines(cmd);
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.split("nbd://127.0.0.1:").nth(1) {
                        let port: String =
                            rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                        let port = port.parse().expect("port in serve output");
                        return ServerProc {
                            child,
                            port,
                            log: rx,
                        };
                    }
                    seen.push(line);
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "scftl serve did not start listening; its output:\n{}",
                        seen.join("\n")
                    );
                }
            }
        }
    }

    pub fn uri(&self) -> String {
        format!("nbd://127.0.0.1:{}", self.port)
    }

    /// The lines the server logs until none comes for `wait`.
    pub fn drain_log(&self, wait: Duration) -> Vec<String> {
        std::iter::from_fn(|| self.log.recv_timeout(wait).ok()).collect()
    }

    /// SIGKILL, as a crash.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM and wait for a clean exit; returns the exit status and the
    /// remaining log.
    pub fn terminate(&mut self) -> (std::process::ExitStatus, Vec<String>) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "server ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        (status, self.drain_log(Duration::from_secs(2)))
    }
}

impl Drop for ServerProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An image file's layout, read from its header (docs/FORMAT.md §2), for
/// tests that find and damage pages in the file.
pub struct ImageLayout {
    pub version: u32,
    pub sector_size: u64,
    pub sectors_per_page: u64,
    pub state_offset: u64,
    pub oob_offset: u64,
    pub oob_size: u64,
    pub pages_offset: u64,
    pub page_stride: u64,
    pub total_pages: u64,
}

impl ImageLayout {
    pub fn read(f: &std::fs::File) -> ImageLayout {
        use std::os::unix::fs::FileExt;
        let mut h = [0u8; 4096];
        f.read_exact_at(&mut h, 0).unwrap();
        let u32_at = |o: usize| u64::from(u32::from_le_bytes(h[o..o + 4].try_into().unwrap()));
        let u64_at = |o: usize| u64::from_le_bytes(h[o..o + 8].try_into().unwrap());
        ImageLayout {
            version: u32_at(8) as u32,
            sector_size: u32_at(36),
            sectors_per_page: u32_at(32),
            state_offset: u64_at(64),
            oob_offset: u64_at(168),
            oob_size: u32_at(40),
            pages_offset: u64_at(80),
            page_stride: u64_at(88),
            total_pages: u32_at(16) * u32_at(20) * u32_at(24) * u32_at(28),
        }
    }

    /// Whether slot `p`'s page-state byte says "programmed".
    pub fn programmed(&self, f: &std::fs::File, p: u64) -> bool {
        use std::os::unix::fs::FileExt;
        let mut state = [0u8; 1];
        f.read_exact_at(&mut state, self.state_offset + p).unwrap();
        state[0] == 1
    }
}

/// A minimal NBD client (fixed newstyle, NBD_OPT_GO, simple replies).
pub struct RawClient {
    s: TcpStream,
    pub size: u64,
    handle: u64,
}

fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().unwrap())
}
fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}

impl RawClient {
    pub fn connect(port: u16) -> std::io::Result<RawClient> {
        let mut s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        s.set_nodelay(true)?;
        let mut hello = [0u8; 18];
        s.read_exact(&mut hello)?;
        assert_eq!(&hello[..8], b"NBDMAGIC");
        s.write_all(&3u32.to_be_bytes())?;
        let mut opt = b"IHAVEOPT".to_vec();
        opt.extend_from_slice(&7u32.to_be_bytes());
        opt.extend_from_slice(&6u32.to_be_bytes());
        opt.extend_from_slice(&0u32.to_be_bytes());
        opt.extend_from_slice(&0u16.to_be_bytes());
        s.write_all(&opt)?;
        let mut size = 0;
        loop {
            let mut h = [0u8; 20];
            s.read_exact(&mut h)?;
            let ty = be32(&h[12..]);
            let mut p = vec![0u8; be32(&h[16..]) as usize];
            s.read_exact(&mut p)?;
            if ty == 3 && p[..2] == [0, 0] {
                size = be64(&p[2..]);
            }
            if ty == 1 {
                break;
            }
            assert!(ty < 1 << 31, "option error {ty:#x}");
        }
        Ok(RawClient { s, size, handle: 0 })
    }

    fn request(&mut self, cmd: u16, offset: u64, len: u32, data: &[u8]) -> std::io::Result<u32> {
        self.handle += 1;
        let mut b = Vec::with_capacity(28 + data.len());
        b.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        b.extend_from_slice(&0u16.to_be_bytes());
        b.extend_from_slice(&cmd.to_be_bytes());
        b.extend_from_slice(&self.handle.to_be_bytes());
        b.extend_from_slice(&offset.to_be_bytes());
        b.extend_from_slice(&len.to_be_bytes());
        b.extend_from_slice(data);
        self.s.write_all(&b)?;
        let mut r = [0u8; 16];
        self.s.read_exact(&mut r)?;
        assert_eq!(be32(&r), 0x6744_6698);
        assert_eq!(be64(&r[8..]), self.handle);
        Ok(be32(&r[4..]))
    }

    pub fn write(&mut self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        let e = self.request(1, offset, data.len() as u32, data)?;
        assert_eq!(e, 0, "write error {e}");
        Ok(())
    }

    /// Sends a write and returns the error value of its reply (0: done).
    pub fn write_errno(&mut self, offset: u64, data: &[u8]) -> std::io::Result<u32> {
        self.request(1, offset, data.len() as u32, data)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        let e = self.request(3, 0, 0, &[])?;
        assert_eq!(e, 0, "flush error {e}");
        Ok(())
    }

    /// Sends a flush without waiting for its reply.
    pub fn send_flush(&mut self) -> std::io::Result<()> {
        self.handle += 1;
        let mut b = Vec::new();
        b.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        b.extend_from_slice(&0u16.to_be_bytes());
        b.extend_from_slice(&3u16.to_be_bytes());
        b.extend_from_slice(&self.handle.to_be_bytes());
        b.extend_from_slice(&[0u8; 12]);
        self.s.write_all(&b)
    }

    pub fn read(&mut self, offset: u64, len: u32) -> std::io::Result<Vec<u8>> {
        let e = self.request(0, offset, len, &[])?;
        assert_eq!(e, 0, "read error {e}");
        let mut d = vec![0u8; len as usize];
        self.s.read_exact(&mut d)?;
        Ok(d)
    }
}
