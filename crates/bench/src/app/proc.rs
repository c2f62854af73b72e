//! Child processes of the application benchmark: run a tool to completion
//! within a deadline, start a long-running one whose stderr is read line by
//! line, and stop one politely (SIGTERM) before forcefully (SIGKILL).
//!
//! Invariant: every pipe of a child is drained by a thread, so a chatty
//! child can never block on a full pipe while the harness waits for it.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::workload::BResult;

/// What a finished command printed.
pub struct Output {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// The last lines of stderr (or stdout), for an error message.
    pub fn tail(&self) -> String {
        let text = if self.stderr.trim().is_empty() {
            &self.stdout
        } else {
            &self.stderr
        };
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        lines[lines.len().saturating_sub(6)..].join(" / ")
    }
}

fn drain<R: Read + Send + 'static>(r: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut b = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut b);
        }
        String::from_utf8_lossy(&b).into_owned()
    })
}

/// Runs `cmd` to completion within `limit`; kills it if it overruns.
pub fn run(cmd: &mut Command, limit: Duration) -> BResult<Output> {
    let desc = describe(cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {desc}: {e}"))?;
    let (so, se) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{desc} did not finish within {limit:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("{desc}: {e}")),
        }
    };
    Ok(Output {
        status,
        stdout: so.join().unwrap_or_default(),
        stderr: se.join().unwrap_or_default(),
    })
}

/// Runs `cmd` and fails unless it exits 0; returns its stdout.
pub fn run_ok(cmd: &mut Command, limit: Duration) -> BResult<String> {
    let desc = describe(cmd);
    let out = run(cmd, limit)?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!("{desc} failed ({}): {}", out.status, out.tail()))
    }
}

/// A short description of a command for messages: program and arguments.
pub fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    format!("`{s}`")
}

/// A long-running child whose stderr arrives line by line. Dropping it
/// stops the child (SIGTERM, then SIGKILL).
pub struct Daemon {
    pub name: String,
    child: Option<Child>,
    lines: mpsc::Receiver<String>,
    /// Every stderr line received so far.
    pub log: Vec<String>,
}

impl Daemon {
    /// Spawns `cmd` with stdin and stdout closed and stderr captured.
    pub fn spawn(name: &str, mut cmd: Command) -> BResult<Daemon> {
        let desc = describe(&cmd);
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {desc}: {e}"))?;
        let (tx, rx) = mpsc::channel();
        if let Some(err) = child.stderr.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Ok(Daemon {
            name: name.to_string(),
            child: Some(child),
            lines: rx,
            log: Vec::new(),
        })
    }

    /// Waits for a stderr line containing `needle` and returns it; fails
    /// if the child exits or `limit` passes first.
    pub fn wait_for(&mut self, needle: &str, limit: Duration) -> BResult<String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self
                .lines
                .recv_timeout(left.min(Duration::from_millis(100)))
            {
                Ok(line) => {
                    self.log.push(line.clone());
                    if line.contains(needle) {
                        return Ok(line);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "{} exited before printing `{needle}`: {}",
                        self.name,
                        self.log_tail()
                    ))
                }
                Err(mpsc::RecvTimeoutError::Timeout) if left.is_zero() => {
                    return Err(format!(
                        "{} did not print `{needle}` within {limit:?}: {}",
                        self.name,
                        self.log_tail()
                    ))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Collects the stderr lines that arrived since the last call.
    pub fn collect(&mut self) {
        while let Ok(l) = self.lines.try_recv() {
            self.log.push(l);
        }
    }

    /// The last few stderr lines, for an error message.
    pub fn log_tail(&self) -> String {
        let lines: Vec<&str> = self
            .log
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        lines[lines.len().saturating_sub(4)..].join(" / ")
    }

    /// Waits up to `limit` for the child to exit by itself.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        let deadline = Instant::now() + limit;
        loop {
            match child.try_wait() {
                Ok(Some(s)) => {
                    self.child = None;
                    self.collect();
                    return Some(s);
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => return None,
            }
        }
    }

    /// The child's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Sends SIGUSR1 and waits for the `scftl: stats:` line it makes
    /// `scftl serve` / `scftl mount` print.
    pub fn stats(&mut self, limit: Duration) -> BResult<String> {
        let pid = match self.child.as_ref() {
            Some(c) => c.id().to_string(),
            None => return Err(format!("{} has exited", self.name)),
        };
        let status = Command::new("kill")
            .args(["-USR1", &pid])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run kill: {e}"))?;
        if !status.success() {
            return Err(format!("kill -USR1 {pid} ({}) failed", self.name));
        }
        self.wait_for("scftl: stats:", limit)
    }

    /// SIGKILL now, and reap the child.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.collect();
    }

    /// SIGTERM, then SIGKILL after `grace`. Returns the exit status when
    /// the child exited on SIGTERM (a clean stop), None otherwise.
    pub fn stop(&mut self, grace: Duration) -> Option<ExitStatus> {
        let pid = self.child.as_ref()?.id().to_string();
        let _ = Command::new("kill")
            .args(["-TERM", &pid])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(s) = self.wait_exit(grace) {
            return Some(s);
        }
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        None
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(30));
    }
}

/// True if `tool` is an executable file on PATH (or a path that exists).
pub fn have_tool(tool: &str) -> bool {
    if tool.contains('/') {
        return Path::new(tool).is_file();
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// True if this process runs as root (mount and loop devices need it).
pub fn is_root() -> bool {
    // /proc/self/status: "Uid:\treal\teffective\t...".
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}
