//! Records which commit the benchmarks were built from, and whether the
//! working tree had changes then, so every report can state its provenance
//! without looking at the directory it happens to run in.
//!
//! Sets `SCFTL_BUILD_COMMIT` (full hash of HEAD, empty outside a git
//! checkout) and `SCFTL_BUILD_DIRTY` (`1` when tracked or untracked,
//! not ignored, files differed from HEAD). The script reruns when HEAD
//! moves, when the index changes, and when anything under `crates/` or the
//! workspace manifests changes, so the recorded state follows the sources
//! cargo compiled.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = git(&manifest, &["rev-parse", "HEAD"]).unwrap_or_default();
    let dirty = git(
        &manifest,
        &["status", "--porcelain", "--untracked-files=normal"],
    )
    .map(|s| !s.is_empty())
    .unwrap_or(false);
    println!("cargo:rustc-env=SCFTL_BUILD_COMMIT={commit}");
    println!("cargo:rustc-env=SCFTL_BUILD_DIRTY={}", u8::from(dirty));

    // What can change the answer: HEAD and the branch it names (loose or
    // packed), the index, and the sources.
    let mut watch: Vec<String> = Vec::new();
    if let Some(head) = git(
        &manifest,
        &["rev-parse", "--path-format=absolute", "--git-path", "HEAD"],
    ) {
        watch.push(head);
    }
    if let Some(name) = git(&manifest, &["symbolic-ref", "-q", "HEAD"]) {
        for p in [name.as_str(), "packed-refs"] {
            if let Some(path) = git(
                &manifest,
                &["rev-parse", "--path-format=absolute", "--git-path", p],
            ) {
                watch.push(path);
            }
        }
    }
    if let Some(index) = git(
        &manifest,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    ) {
        watch.push(index);
    }
    if let Some(root) = manifest.parent().and_then(Path::parent) {
        for p in ["crates", "Cargo.toml", "Cargo.lock"] {
            watch.push(root.join(p).display().to_string());
        }
    }
    for w in watch {
        println!("cargo:rerun-if-changed={w}");
    }
}
