//! Adapters from the real FTLs' constructors to [`crate::target::Target`].

use ftl::scftl::{Scftl, ScftlConfig};

use crate::spec::ContractKind;
use crate::target::Target;

/// The real FTLs.
pub fn targets() -> Vec<Target> {
    vec![Target {
        name: "scftl",
        contract: ContractKind::Snapshot,
        format: |d, m| {
            let cfg = ScftlConfig::default_for(flash::Flash::geometry(&d));
            Ok(Box::new(Scftl::format_with_mutant(d, cfg, m)?))
        },
        open: |d, m| Ok(Box::new(Scftl::open_with_mutant(d, m)?)),
    }]
}
