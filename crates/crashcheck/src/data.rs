//! Sector contents the workload writes, and how a read is decoded back.
//!
//! Every sector the explorer writes is derived from `(lba, version, seed)`:
//! a 16-byte header (lba, version, a tag mixing all three) followed by a
//! pseudo-random fill. So the models store only versions (u32, 0 meaning
//! "never written or trimmed", which reads as zeros), and the oracle can
//! tell exactly which write a read returned, or that it returned garbage.
//!
//! Invariant: `decode(lba, fill(lba, v, seed), seed) == Observed::Version(v)`
//! for every `v`, and no two different `(lba, v)` pairs give the same bytes.

/// What a sector read back as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Observed {
    /// The content of write `version` to this sector (0: zeros).
    Version(u32),
    /// Anything else: another sector's data, a torn page, erased flash, ...
    Garbage,
}

impl std::fmt::Display for Observed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Observed::Version(0) => f.write_str("zeros"),
            Observed::Version(v) => write!(f, "version {v}"),
            Observed::Garbage => f.write_str("garbage"),
        }
    }
}

/// SplitMix64 step: a fast, well-mixed 64-bit hash.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn key(lba: u64, version: u32, seed: u64) -> u64 {
    mix64(seed ^ mix64(lba ^ (u64::from(version) << 40)))
}

/// The fill word stream of a sector: word `i` of the bytes after the
/// header.
#[inline]
fn word(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    (*s ^ (*s >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// Fills `out` (one sector, a multiple of 8 bytes of at least 16) with the
/// content of write `version` to `lba`.
pub fn fill(out: &mut [u8], lba: u64, version: u32, seed: u64) {
    if version == 0 {
        out.fill(0);
        return;
    }
    let k = key(lba, version, seed);
    out[..8].copy_from_slice(&lba.to_le_bytes());
    out[8..12].copy_from_slice(&version.to_le_bytes());
    out[12..16].copy_from_slice(&(k as u32).to_le_bytes());
    let mut s = k;
    for chunk in out[16..].chunks_exact_mut(8) {
        chunk.copy_from_slice(&word(&mut s).to_le_bytes());
    }
}

/// Decodes a sector read from `lba` (compares while regenerating, so no
/// second buffer is needed).
pub fn decode(lba: u64, got: &[u8], seed: u64) -> Observed {
    if got.len() < 16 || !got.len().is_multiple_of(8) {
        return Observed::Garbage;
    }
    let l = u64::from_le_bytes(got[..8].try_into().expect("8 bytes"));
    let v = u32::from_le_bytes(got[8..12].try_into().expect("4 bytes"));
    let tag = u32::from_le_bytes(got[12..16].try_into().expect("4 bytes"));
    if l != lba || v == 0 {
        return if got.iter().all(|&b| b == 0) {
            Observed::Version(0)
        } else {
            Observed::Garbage
        };
    }
    let k = key(lba, v, seed);
    if tag != k as u32 {
        return Observed::Garbage;
    }
    let mut s = k;
    for chunk in got[16..].chunks_exact(8) {
        if u64::from_le_bytes(chunk.try_into().expect("8 bytes")) != word(&mut s) {
            return Observed::Garbage;
        }
    }
    Observed::Version(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_mismatches() {
        let mut a = vec![0u8; 512];
        fill(&mut a, 7, 3, 99);
        assert_eq!(decode(7, &a, 99), Observed::Version(3));
        assert_eq!(decode(8, &a, 99), Observed::Garbage);
        assert_eq!(decode(7, &a, 98), Observed::Garbage);
        a[300] ^= 1;
        assert_eq!(decode(7, &a, 99), Observed::Garbage);
        assert_eq!(decode(7, &[0; 512], 99), Observed::Version(0));
        assert_eq!(decode(7, &[0xFF; 512], 99), Observed::Garbage);
    }
}
