//! The integration tests of `fs`, one test binary for all of them:
//! each file under tests/ is a module here. One binary compiles the
//! generic code the files instantiate (the FTLs and the file system over
//! each flash backend) and links once instead of once per file, which made
//! most of a clean build's time, and the harness runs the tests of every
//! file side by side. Run one file's tests with
//! `cargo test -p fs --test integration FILE::`.

mod bigfile;
mod common;
mod crash;
mod dirindex;
mod format_doc;
mod fsck;
mod model;
mod modes;
mod ops;
mod space;
mod xattr;
