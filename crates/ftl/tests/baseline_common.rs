//! Helpers shared by the baseline tests (the `baseline_common` module of the integration tests; files use it as `common`): a device
//! that is either baseline, a compact reference model, and sector patterns.
#![allow(dead_code)]

use flash::{Geometry, MemFlash};
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::sync_ftl::{SyncConfig, SyncFtl};
use ftl::{BlockDevice, FtlKind};

/// Either baseline over a `MemFlash`.
pub enum Dev {
    A(AsyncFtl<MemFlash>),
    S(SyncFtl<MemFlash>),
}

impl Dev {
    pub fn format(kind: FtlKind, g: Geometry) -> Dev {
        Dev::format_with(kind, g, AsyncConfig::default_for(&g))
    }

    /// Formats with `config` (the async and sync FTLs share one type).
    pub fn format_with(kind: FtlKind, g: Geometry, config: SyncConfig) -> Dev {
        let f = MemFlash::new(g).unwrap();
        match kind {
            FtlKind::Async => Dev::A(AsyncFtl::format(f, config).unwrap()),
            FtlKind::Sync => Dev::S(SyncFtl::format(f, config).unwrap()),
            FtlKind::Scftl | FtlKind::Optr => panic!("not a baseline"),
        }
    }

    /// The configuration in the label.
    pub fn config(&self) -> &SyncConfig {
        match self {
            Dev::A(d) => d.config(),
            Dev::S(d) => d.config(),
        }
    }

    pub fn kind(&self) -> FtlKind {
        match self {
            Dev::A(_) => FtlKind::Async,
            Dev::S(_) => FtlKind::Sync,
        }
    }

    pub fn dev(&mut self) -> &mut dyn BlockDevice {
        match self {
            Dev::A(d) => d,
            Dev::S(d) => d,
        }
    }

    pub fn into_flash(self) -> MemFlash {
        match self {
            Dev::A(d) => d.into_flash(),
            Dev::S(d) => d.into_flash(),
        }
    }

    /// Gives the flash back (no flush) and opens it again.
    pub fn reopen(self) -> Dev {
        let kind = self.kind();
        let f = self.into_flash();
        match kind {
            FtlKind::Async => Dev::A(AsyncFtl::open(f).unwrap()),
            _ => Dev::S(SyncFtl::open(f).unwrap()),
        }
    }
}

/// The content of sector `la` at version `ver` (version 0 = never written
/// or trimmed = zeros).
pub fn pattern(la: u64, ver: u32, out: &mut [u8]) {
    if ver == 0 {
        out.fill(0);
        return;
    }
    let fill = (la as u32)
        .wrapping_mul(131)
        .wrapping_add(ver.wrapping_mul(7)) as u8
        | 1;
    out.fill(fill);
    out[..8].copy_from_slice(&la.to_le_bytes());
    out[8..12].copy_from_slice(&ver.to_le_bytes());
}

/// Which (la, version) a sector holds, if it is one of our patterns.
pub fn decode(out: &[u8]) -> Option<(u64, u32)> {
    if out.iter().all(|&b| b == 0) {
        return Some((u64::MAX, 0));
    }
    let la = u64::from_le_bytes(out[..8].try_into().unwrap());
    let ver = u32::from_le_bytes(out[8..12].try_into().unwrap());
    let mut want = vec![0u8; out.len()];
    pattern(la, ver, &mut want);
    (want == out).then_some((la, ver))
}
