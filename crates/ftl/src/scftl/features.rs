//! What an SCFTL image of each configuration version holds on flash: the
//! configuration version decoded once into [`Features`]. The rest of SCFTL
//! asks for a feature, never compares version numbers; this file is the
//! one table of versions (docs/FORMAT.md §4.6).
//!
//! Invariants: a later version has every feature of an earlier one
//! (checked by a test); versions older than [`OLDEST_READ`] and newer than
//! [`CONFIG_VERSION`] have no features, and opening them is refused with
//! a message that says what to do.

use super::format;
use crate::device::{FtlError, Result};

/// The encoding version of [`ScftlConfig`] this build writes and reads.
/// Version 2 marked images whose data pages carry per-sector checksums in
/// their OOB (docs/FORMAT.md §4.7); version 3 images also commit each epoch
/// with its digest in one sync (§4.3); version 4 images may also commit an
/// epoch in-page (§4.8); version 5 data pages also carry each sector's
/// logical number in their OOB (§4.7), so no P2L is kept in RAM; version 6
/// images may also commit an epoch in the OOB of its last data page (§4.9);
/// version 7 commit records name the metadata map, which may rotate over
/// the device, and recovery scans for them (§4.5); version 8 adds
/// `gc_streams` (a second write stream for GC relocations, whose
/// constraints differ); version 9 lets an OOB commit's run span
/// [`format::MAX_OOB_EPOCH_PAGES`] data pages instead of
/// [`format::MAX_OOB_EPOCH_PAGES_V6`], so an epoch of 256 random 4 KiB
/// writes on 16 KiB pages commits without a delta page (§4.9).
/// What each version holds is decoded once, in `features.rs`
/// ([`Features`]); nothing else compares version numbers.
/// Versions 1 and 2 are refused; versions 3 to 8 open and keep their
/// version (no in-page commits are written into a version-3 image, no
/// logical sector numbers into it or a version-4 one, where GC keeps a P2L,
/// no OOB commits into versions 3 to 5, the metadata of versions 3 to 6
/// stays where format put it, and version 8's OOB runs stay within 32
/// pages); versions 3 to 7 run with one stream.
pub const CONFIG_VERSION: u32 = 9;

/// The oldest configuration version this build opens.
pub const OLDEST_READ: u32 = 3;

/// What the flash of an SCFTL image may hold, by configuration version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// The configuration version these features were decoded from.
    pub version: u32,
    /// (4) An epoch may commit in-page: data pages carry links and in-page
    /// commit records (§4.8). Not written into a version-3 image, whose
    /// build would not follow them.
    pub inpage_commits: bool,
    /// (5) Each data sector's OOB record carries its logical sector number
    /// (§4.7), so GC needs no P2L table in RAM; the data OOB is laid out
    /// for it.
    pub oob_logical_numbers: bool,
    /// (6) An epoch may commit in the OOB of its last data page (§4.9).
    pub oob_commits: bool,
    /// (7) Commit records name the metadata map, which may rotate over the
    /// device and move away from a bad block; recovery scans for it
    /// (§4.5, §4.10).
    pub movable_metadata: bool,
    /// (8) The configuration holds `gc_streams`: GC relocations may have a
    /// write stream of their own.
    pub gc_streams: bool,
    /// (9) An OOB commit's run may span [`format::MAX_OOB_EPOCH_PAGES`]
    /// data pages (before: [`format::MAX_OOB_EPOCH_PAGES_V6`]); recovery
    /// walks that far from a link (§4.9).
    pub long_oob_runs: bool,
}

/// Each feature with the version that introduced it, oldest first: the
/// table every other answer is read from.
const INTRODUCED: [(u32, &str); 6] = [
    (4, "in-page commits"),
    (5, "logical sector numbers in the data OOB"),
    (6, "OOB commits"),
    (7, "movable metadata"),
    (8, "two write streams"),
    (9, "OOB commits over 64 pages"),
];

impl Features {
    /// What this build writes.
    pub const CURRENT: Features = Features::all(CONFIG_VERSION);

    /// The features of `version`, which must be one this build reads.
    const fn all(version: u32) -> Features {
        Features {
            version,
            inpage_commits: version >= INTRODUCED[0].0,
            oob_logical_numbers: version >= INTRODUCED[1].0,
            oob_commits: version >= INTRODUCED[2].0,
            movable_metadata: version >= INTRODUCED[3].0,
            gc_streams: version >= INTRODUCED[4].0,
            long_oob_runs: version >= INTRODUCED[5].0,
        }
    }

    /// The most data pages one OOB commit's run may span in an image with
    /// these features (and the farthest recovery walks from a link).
    pub const fn max_oob_epoch_pages(&self) -> u32 {
        if self.long_oob_runs {
            format::MAX_OOB_EPOCH_PAGES
        } else {
            format::MAX_OOB_EPOCH_PAGES_V6
        }
    }

    /// The features of an image of configuration `version`, or the reason
    /// this build cannot open it.
    pub fn of(version: u32) -> Result<Features> {
        let refuse = |m: String| Err(FtlError::Corrupt(m));
        match version {
            1 => refuse(format!(
                "this SCFTL image has configuration version 1, whose data pages carry no checksums; this build reads versions {OLDEST_READ} to {CONFIG_VERSION} only. Copy the data off with the build that wrote it, then re-format the image"
            )),
            2 => refuse(format!(
                "this SCFTL image has configuration version 2, whose flushes commit without an epoch digest (two syncs per flush); this build reads versions {OLDEST_READ} to {CONFIG_VERSION} only. Copy the data off with the build that wrote it, then re-format the image"
            )),
            v if (OLDEST_READ..=CONFIG_VERSION).contains(&v) => Ok(Features::all(v)),
            v if v > CONFIG_VERSION => refuse(format!(
                "this SCFTL image has configuration version {v}, newer than this build reads ({OLDEST_READ} to {CONFIG_VERSION}); open it with a newer build of scftl"
            )),
            v => refuse(format!(
                "the label's SCFTL configuration has version {v}, which no build wrote; the label is damaged"
            )),
        }
    }

    /// Whether this is what the build writes (`scftl upgrade` has nothing
    /// to do).
    pub fn is_current(&self) -> bool {
        self.version == CONFIG_VERSION
    }

    /// The features an upgrade to the current version adds, by name.
    pub fn missing(&self) -> Vec<&'static str> {
        INTRODUCED
            .iter()
            .filter(|(v, _)| *v > self.version)
            .map(|(_, name)| *name)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_versions_have_every_feature_of_earlier_ones() {
        let count = |f: Features| {
            [
                f.inpage_commits,
                f.oob_logical_numbers,
                f.oob_commits,
                f.movable_metadata,
                f.gc_streams,
                f.long_oob_runs,
            ]
            .iter()
            .filter(|&&b| b)
            .count()
        };
        let mut last = 0;
        for v in OLDEST_READ..=CONFIG_VERSION {
            let f = Features::of(v).unwrap();
            assert_eq!(f.version, v);
            assert_eq!(count(f), last + usize::from(v > OLDEST_READ), "version {v}");
            last = count(f);
            assert_eq!(f.missing().len(), INTRODUCED.len() - last);
        }
        assert_eq!(Features::CURRENT, Features::of(CONFIG_VERSION).unwrap());
        assert!(Features::CURRENT.is_current() && Features::CURRENT.missing().is_empty());
    }

    #[test]
    fn versions_this_build_cannot_open_say_what_to_do() {
        for (v, want) in [
            (1, "re-format"),
            (2, "re-format"),
            (CONFIG_VERSION + 1, "newer build"),
            (0, "damaged"),
        ] {
            let e = Features::of(v).unwrap_err().to_string();
            assert!(e.contains(want), "version {v}: {e}");
        }
    }
}
