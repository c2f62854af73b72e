//! The integration tests of `crashcheck`, one test binary for all of them:
//! each file under tests/ is a module here. One binary compiles the
//! generic code the files instantiate (the FTLs and the file system over
//! each flash backend) and links once instead of once per file, which made
//! most of a clean build's time, and the harness runs the tests of every
//! file side by side. Run one file's tests with
//! `cargo test -p crashcheck --test integration FILE::`.

mod agda_model;
mod audit_mutants;
mod barrier;
mod blocks_mutants;
mod common;
mod concurrent;
mod exhaustive_mutants;
mod failure_mutants;
mod fs_crash;
mod hot_cold_mutants;
mod inpage_mutants;
mod media;
mod model_oracle;
mod model_table;
mod mutants;
mod oob_commit_mutants;
mod prefix;
mod real_ftls;
mod refine_oracle;
mod rotation_mutants;
mod shrink;
mod toy;
