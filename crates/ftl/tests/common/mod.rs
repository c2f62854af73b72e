//! Helpers shared by the SCFTL test files (each file uses some of them).
#![allow(dead_code)]

use flash::{CrashFlash, CrashPolicy, Flash, Geometry, ImageCrashFlash, MemFlash};
use ftl::{label, FtlKind};
use rand_pcg::Pcg64;

/// What a power-cut test needs of a crash model: the NAND one
/// (`CrashFlash` over `MemFlash`) or the image file's host power cut
/// (`ImageCrashFlash`).
pub trait Cuttable: Flash + Sized {
    fn fresh(g: Geometry) -> Self;
    /// The `n`-th flash command from now fails with a power loss.
    fn arm(&mut self, n: u64);
    /// Applies the power cut (what the interrupted and unsynced commands
    /// left, drawn from `rng`).
    fn cut(&mut self, rng: &mut Pcg64);
}

impl Cuttable for CrashFlash<MemFlash> {
    fn fresh(g: Geometry) -> Self {
        CrashFlash::new(MemFlash::new(g).unwrap())
    }
    fn arm(&mut self, n: u64) {
        self.set_crash_at(n);
    }
    fn cut(&mut self, rng: &mut Pcg64) {
        self.crash(CrashPolicy::Random, rng).unwrap();
    }
}

impl Cuttable for ImageCrashFlash {
    fn fresh(g: Geometry) -> Self {
        ImageCrashFlash::new(g).unwrap()
    }
    fn arm(&mut self, n: u64) {
        self.set_crash_at(n);
    }
    fn cut(&mut self, rng: &mut Pcg64) {
        self.crash(CrashPolicy::Random, rng).unwrap();
    }
}

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
