//! What the bench crate's end-to-end tests share: the `scftl` executable
//! they drive, built fresh so a test never runs a stale binary.

use std::path::PathBuf;
use std::process::Command;

/// Builds `scftl` (dev profile) and returns its path.
///
/// With ftl's `ghost` feature, which the workspace's test build gives ftl
/// (its dev-dependencies ask for it), so that after `cargo test
/// --workspace` built everything this build finds it all fresh. Without
/// it, ftl and every crate above it were built a second time in the
/// middle of the tests (on a clean clone, in CI: `bench app` took 129 s
/// there against 39 s warm).
pub fn build_scftl() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "-p",
            "scftl",
            "--bin",
            "scftl",
            "--features",
            "ftl/ghost",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo build -p scftl failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["executable"].as_str().map(PathBuf::from))
        .find(|p| p.file_name().is_some_and(|n| n == "scftl"))
        .expect("cargo reported no scftl executable")
}
