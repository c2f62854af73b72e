//! Running the user's check on one crash state.
//!
//! The check is a shell command (`sh -c CMD sh IMAGE`): `$1` and
//! `$SCFTL_IMAGE` are the state's image file, `$SCFTL_STATE` its id. With
//! `--fs ext4` the image is first mounted (`mount -o loop`, which replays
//! ext4's journal as a reboot would), the command runs in the mount point
//! (`$SCFTL_MNT`), then the image is unmounted and `e2fsck -fn` must find
//! it clean. A state passes when every step succeeds.
//!
//! Invariant: a state that fails says which step failed and with what
//! output; a step that cannot run at all (no `sh`, an unmount that fails)
//! is an error that stops the exploration, never a pass or a fail.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a check mounts before running the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fs {
    /// Nothing: the command gets the image file.
    None,
    /// ext4: mount (journal replay), command, unmount, `e2fsck -fn`.
    Ext4,
}

impl Fs {
    pub fn parse(s: &str) -> Result<Fs, String> {
        match s {
            "none" => Ok(Fs::None),
            "ext4" => Ok(Fs::Ext4),
            _ => Err(format!("unknown --fs `{s}` (none, ext4)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Fs::None => "none",
            Fs::Ext4 => "ext4",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Checker {
    pub cmd: String,
    pub fs: Fs,
    /// Where `--fs ext4` mounts each state.
    pub mnt: PathBuf,
    /// `mount -o` options besides `loop`.
    pub mount_options: String,
    /// Run `e2fsck -fn` after unmounting (`--fs ext4`).
    pub fsck: bool,
    pub timeout: Duration,
}

/// A state's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub ok: bool,
    /// For a failure: the step, its status and the tail of its output.
    pub why: String,
    /// The check command's own output (its last 8 KiB), for a replay.
    pub output: String,
}

impl Verdict {
    pub fn pass() -> Verdict {
        Verdict {
            ok: true,
            why: String::new(),
            output: String::new(),
        }
    }
    pub fn fail(why: String) -> Verdict {
        Verdict {
            ok: false,
            why,
            output: String::new(),
        }
    }
}

/// How a state is checked: [`Checker`] here, or a front end's own (the
/// CLI's for our file system, which must first load the state into an
/// FTL image).
pub trait Check {
    /// Checks the raw image of state `id`. `Err`: the check could not run
    /// (the exploration stops); a failing state is `Ok` with `ok: false`.
    fn check(&self, image: &Path, id: &str) -> Result<Verdict, String>;
}

impl Check for Checker {
    fn check(&self, image: &Path, id: &str) -> Result<Verdict, String> {
        Checker::check(self, image, id)
    }
}

/// The last `n` characters of `s`, on one line.
pub fn tail(s: &str, n: usize) -> String {
    if s.trim().is_empty() {
        return "(no output)".into();
    }
    let t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = t.char_indices().rev().nth(n).map_or(0, |(i, _)| i);
    if cut > 0 {
        format!("…{}", &t[cut..])
    } else {
        t
    }
}

/// Runs `c` to completion or `timeout` (then kills its process group),
/// returning its status text (None: success) and its output.
pub fn run(c: &mut Command, timeout: Duration) -> Result<(Option<String>, String), String> {
    use std::os::unix::process::CommandExt;
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = c.spawn().map_err(|e| format!("cannot run {c:?}: {e}"))?;
    // Both pipes are drained on threads, so a chatty command cannot block.
    let mut pipes = Vec::new();
    for p in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        pipes.push(std::thread::spawn(move || {
            let mut p = p;
            let mut v = Vec::new();
            let _ = p.read_to_end(&mut v);
            v
        }));
    }
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(s);
        }
        if start.elapsed() > timeout {
            // SAFETY: signals the child's own process group.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut out = String::new();
    for p in pipes {
        out.push_str(&String::from_utf8_lossy(&p.join().unwrap_or_default()));
    }
    let status = match status {
        None => Some(format!("timed out after {:.0} s", timeout.as_secs_f64())),
        Some(s) if s.success() => None,
        Some(s) => Some(s.to_string()),
    };
    Ok((status, out))
}

impl Checker {
    /// Checks the image of state `id`.
    pub fn check(&self, image: &Path, id: &str) -> Result<Verdict, String> {
        match self.fs {
            Fs::None => self.command(image, id, None),
            Fs::Ext4 => self.ext4(image, id),
        }
    }

    /// Runs the check command alone: `$1` the image, in `mnt` if given.
    pub fn command(&self, image: &Path, id: &str, mnt: Option<&Path>) -> Result<Verdict, String> {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(&self.cmd)
            .arg("sh")
            .arg(image)
            .env("SCFTL_IMAGE", image)
            .env("SCFTL_STATE", id);
        if let Some(m) = mnt {
            c.env("SCFTL_MNT", m).current_dir(m);
        }
        let (status, out) = run(&mut c, self.timeout)?;
        let mut v = match status {
            None => Verdict::pass(),
            Some(s) => Verdict::fail(format!("check: {s}: {}", tail(&out, 300))),
        };
        let cut = out.len().saturating_sub(8192);
        let cut = (cut..out.len())
            .find(|&i| out.is_char_boundary(i))
            .unwrap_or(out.len());
        v.output = out[cut..].to_string();
        Ok(v)
    }

    fn ext4(&self, image: &Path, id: &str) -> Result<Verdict, String> {
        std::fs::create_dir_all(&self.mnt).map_err(|e| format!("{}: {e}", self.mnt.display()))?;
        let opts = if self.mount_options.is_empty() {
            "loop".to_string()
        } else {
            format!("loop,{}", self.mount_options)
        };
        let mut m = Command::new("mount");
        m.args(["-t", "ext4", "-o", &opts])
            .arg(image)
            .arg(&self.mnt);
        let (status, out) = run(&mut m, self.timeout)?;
        if let Some(s) = status {
            return Ok(Verdict::fail(format!("mount: {s}: {}", tail(&out, 300))));
        }
        let v = self.command(image, id, Some(&self.mnt));
        let (status, out) = run(Command::new("umount").arg(&self.mnt), self.timeout)?;
        if let Some(s) = status {
            let _ = run(
                Command::new("umount").arg("-l").arg(&self.mnt),
                self.timeout,
            );
            return Err(format!(
                "umount {} after state {id}: {s}: {} (does the check leave a process in the \
                 mount point?)",
                self.mnt.display(),
                tail(&out, 300)
            ));
        }
        let v = v?;
        if !v.ok || !self.fsck {
            return Ok(v);
        }
        let (status, out) = run(Command::new("e2fsck").arg("-fn").arg(image), self.timeout)?;
        Ok(match status {
            None => v,
            Some(s) => Verdict {
                output: v.output,
                ..Verdict::fail(format!("e2fsck -fn: {s}: {}", tail(&out, 300)))
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker(cmd: &str) -> Checker {
        Checker {
            cmd: cmd.into(),
            fs: Fs::None,
            mnt: PathBuf::from("/nonexistent"),
            mount_options: String::new(),
            fsck: false,
            timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn the_command_sees_the_image_and_its_status_decides() {
        let d = tempfile::tempdir().unwrap();
        let img = d.path().join("x.img");
        std::fs::write(&img, b"hello").unwrap();
        let ok = checker(r#"test "$(cat "$1")" = hello && test "$SCFTL_STATE" = 7-1"#);
        assert!(ok.check(&img, "7-1").unwrap().ok);
        let bad = checker("echo broken record 3 >&2; exit 3");
        let v = bad.check(&img, "1").unwrap();
        assert!(!v.ok);
        assert!(
            v.why.contains("broken record 3") && v.why.contains('3'),
            "{}",
            v.why
        );
    }

    #[test]
    fn a_hanging_check_fails_by_timeout() {
        let d = tempfile::tempdir().unwrap();
        let img = d.path().join("x.img");
        std::fs::write(&img, b"").unwrap();
        let mut c = checker("sleep 30");
        c.timeout = Duration::from_millis(200);
        let t = Instant::now();
        let v = c.check(&img, "0").unwrap();
        assert!(!v.ok && v.why.contains("timed out"), "{}", v.why);
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}
