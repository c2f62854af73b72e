//! The log-structured engine shared by the async and sync baselines of the
//! SCFTL paper's evaluation (§7.2): a sector-level L2P/P2L with valid
//! counts, a page-sized merge buffer, log-structured writes into segments,
//! greedy GC, and recovery by scanning the per-sector OOB records. No
//! checkpoints, no two-phase GC, no write bound. Optionally (not the
//! paper's) a second write stream for GC relocations (gc.rs, "Two
//! streams").
//!
//! Files: `layout` (addresses), `oob` (OOB and trim records), `config`,
//! `nvlog` (sync's battery-backed log), `buffer` (merge buffer), `segs`
//! (segment states), `engine` (read/write/trim/flush), `gc`, `recovery`,
//! `invariants`. The on-flash format is docs/FORMAT.md §5–6.
//!
//! Space cost of trims: a trim that covers any sector with a copy on flash
//! writes one trim-record sector naming its range. GC keeps (and shrinks) a
//! trim record while some sector of its range is unmapped and still has an
//! older copy on flash, so in the worst case a trim costs one sector until
//! the segments holding the older copies are collected.

pub mod config;
pub mod layout;
pub mod nvlog;
pub mod oob;

mod buffer;
mod engine;
pub(crate) mod gc;
mod invariants;
mod recovery;
pub(crate) mod segs;
mod wrapper;

pub(crate) use wrapper::baseline_ftl;

pub use config::LogConfig;
pub use engine::{LogFtl, Mode};
pub use invariants::VERIFY_DATA_MAX_SECTORS;
pub use layout::{Layout, Ppa, SegId};
pub use segs::SegState;
