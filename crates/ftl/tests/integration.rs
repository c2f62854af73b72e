//! The integration tests of `ftl`, one test binary for all of them:
//! each file under tests/ is a module here. One binary compiles the
//! generic code the files instantiate (the FTLs and the file system over
//! each flash backend) and links once instead of once per file, which made
//! most of a clean build's time, and the harness runs the tests of every
//! file side by side. Run one file's tests with
//! `cargo test -p ftl --test integration FILE::`.

mod async_crash;
mod async_paced_gc;
mod baseline_common;
mod baseline_crash;
mod baseline_errors;
mod baseline_format_doc;
mod baseline_perf;
mod baseline_random;
mod baseline_streams;
mod block_counts;
mod common;
mod data_checksums;
mod media_failures;
mod optr_basic;
mod optr_format_doc;
mod optr_prefix;
mod scftl_basic;
mod scftl_epoch_barrier;
mod scftl_failures;
mod scftl_format_doc;
mod scftl_inpage_commit;
mod scftl_la_records;
mod scftl_oob_commit;
mod scftl_random;
mod scftl_reopen;
mod scftl_rotation;
mod scftl_streams;
mod shared_device;
mod sync_durability;
