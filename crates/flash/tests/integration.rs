//! The integration tests of `flash`, one test binary for all of them:
//! each file under tests/ is a module here. One binary compiles the
//! generic code the files instantiate (the FTLs and the file system over
//! each flash backend) and links once instead of once per file, which made
//! most of a clean build's time, and the harness runs the tests of every
//! file side by side. Run one file's tests with
//! `cargo test -p flash --test integration FILE::`. (file_process.rs is a
//! binary of its own: its tests fork children, and a child forked while
//! another test holds an image's `flock` would hold it too until it execs.)

mod crash_model;
mod dataless_basic;
mod file_basic;
mod file_detached;
mod file_errors;
mod file_format_doc;
mod layers;
mod realtime;
mod shared_forms;
mod timed_model;
mod wear;
