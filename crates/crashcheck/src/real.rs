//! Adapters from the real FTLs' constructors to [`crate::target::Target`].
//! Each is formatted with its default configuration for the geometry.

use flash::Flash;
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::sync_ftl::{SyncConfig, SyncFtl};

use crate::spec::ContractKind;
use crate::target::Target;

/// The real FTLs.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "scftl",
            contract: ContractKind::Snapshot,
            format: |d, m| {
                let cfg = ScftlConfig::default_for(d.geometry());
                Ok(Box::new(Scftl::format_with_mutant(d, cfg, m)?))
            },
            open: |d, m| Ok(Box::new(Scftl::open_with_mutant(d, m)?)),
        },
        Target {
            name: "async",
            contract: ContractKind::Async,
            format: |d, m| {
                let cfg = AsyncConfig::default_for(d.geometry());
                Ok(Box::new(AsyncFtl::format_with_mutant(d, cfg, m)?))
            },
            open: |d, m| Ok(Box::new(AsyncFtl::open_with_mutant(d, m)?)),
        },
        Target {
            name: "sync",
            contract: ContractKind::Sync,
            format: |d, m| {
                let cfg = SyncConfig::default_for(d.geometry());
                Ok(Box::new(SyncFtl::format_with_mutant(d, cfg, m)?))
            },
            open: |d, m| Ok(Box::new(SyncFtl::open_with_mutant(d, m)?)),
        },
    ]
}
