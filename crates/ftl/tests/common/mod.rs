//! Helpers shared by the SCFTL test files.

use flash::Flash;
use ftl::{label, FtlKind};

/// Rewrites the configuration version in an SCFTL device's label to
/// `version`, so the device reads as one an older build formatted, and
/// returns the version it had.
pub fn relabel_scftl_version<F: Flash>(flash: &mut F, version: u32) -> u32 {
    let (kind, mut config) = label::read_label(flash).unwrap();
    assert_eq!(kind, FtlKind::Scftl);
    let had = u32::from_le_bytes(config[..4].try_into().unwrap());
    config[..4].copy_from_slice(&version.to_le_bytes());
    if version < 8 && config.len() > 36 {
        // Versions before 8 end before `gc_streams` (docs/FORMAT.md §4.6),
        // and run one stream.
        assert_eq!(config[36..40], 1u32.to_le_bytes(), "a two-stream image");
        config.truncate(36);
    }
    label::clear_label(flash).unwrap();
    label::write_label(flash, FtlKind::Scftl, &config).unwrap();
    had
}
