//! The `scftl` command line's rough edges: closed pipes, malformed flags and
//! argument errors exit quietly or with code 2 and a message naming the flag.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::*;

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
