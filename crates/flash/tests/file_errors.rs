//! Opening files that are not good images: each failure is the right error,
//! says what to do, and leaves every byte of the file as it was. A seeded
//! fuzz loop checks that no header content makes `open` panic.

use std::path::Path;

use flash::file::{
    ImageHeader, ImageLayout, HEADER_SIZE, H_HEADER_CRC, H_NVRAM_SIZE, H_PAGES_PER_BLOCK,
    H_RESERVED, H_VERSION, IMAGE_MAGIC, IMAGE_VERSION,
};
use flash::{FileFlash, Flash, FlashError, Geometry, PageAddr};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A tiny image with one programmed page; returns its bytes.
fn make_image(path: &Path) -> Vec<u8> {
    let mut f = FileFlash::create(path, Geometry::tiny(), false).unwrap();
    let g = *f.geometry();
    f.program(PageAddr::new(1, 0), &vec![0x5A; g.page_size()], &[1, 2])
        .unwrap();
    f.nvram_write(0, b"nv").unwrap();
    f.sync().unwrap();
    drop(f);
    std::fs::read(path).unwrap()
}

fn fix_crc(bytes: &mut [u8]) {
    let crc = crc32c::crc32c(&bytes[..H_HEADER_CRC.offset]);
    bytes[H_HEADER_CRC.offset..H_HEADER_CRC.offset + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Opens `path` read-write and read-only; both must fail with an error
/// `check` accepts, and the file must be byte-for-byte unchanged.
fn assert_open_fails(path: &Path, check: impl Fn(&FlashError) -> bool) {
    let before = std::fs::read(path).unwrap();
    for e in [
        FileFlash::open(path).unwrap_err(),
        FileFlash::open_read_only(path).unwrap_err(),
    ] {
        assert!(check(&e), "unexpected error: {e}");
        assert!(
            e.to_string().contains(&path.display().to_string()),
            "error does not name the file: {e}"
        );
    }
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "a failed open changed the file"
    );
}

#[test]
fn a_file_that_is_not_an_image_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "hello, this is a text file\n".repeat(500)).unwrap();
    assert_open_fails(&path, |e| matches!(e, FlashError::NotAnImage { .. }));
    std::fs::write(&path, b"").unwrap();
    assert_open_fails(&path, |e| matches!(e, FlashError::NotAnImage { .. }));
    std::fs::write(&path, b"SCFX").unwrap();
    assert_open_fails(&path, |e| matches!(e, FlashError::NotAnImage { .. }));
}

#[test]
fn truncated_images_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let good = make_image(&path);
    // Header cut short, even inside the magic.
    for len in [3, 8, 100, HEADER_SIZE - 1] {
        std::fs::write(&path, &good[..len]).unwrap();
        assert_open_fails(&path, |e| matches!(e, FlashError::TruncatedImage { .. }));
    }
    // Header intact, pages region cut short.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    assert_open_fails(
        &path,
        |e| matches!(e, FlashError::TruncatedImage { reason, .. } if reason.contains("header says")),
    );
}

#[test]
fn a_newer_version_is_refused_with_advice_to_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let mut bytes = make_image(&path);
    let newer = IMAGE_VERSION + 1;
    bytes[H_VERSION.offset..H_VERSION.offset + 4].copy_from_slice(&newer.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    assert_open_fails(&path, |e| {
        matches!(
            e,
            FlashError::NewerVersion { found, supported, .. }
                if *found == newer && *supported == IMAGE_VERSION
        ) && e.to_string().contains("upgrade")
    });
}

#[test]
fn corrupt_headers_and_state_bytes_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let good = make_image(&path);

    // One flipped bit under the CRC.
    let mut bytes = good.clone();
    bytes[H_PAGES_PER_BLOCK.offset] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert_open_fails(
        &path,
        |e| matches!(e, FlashError::CorruptImage { reason, .. } if reason.contains("checksum")),
    );

    // A consistent CRC over an impossible geometry.
    let mut bytes = good.clone();
    bytes[H_PAGES_PER_BLOCK.offset..H_PAGES_PER_BLOCK.offset + 4]
        .copy_from_slice(&0u32.to_le_bytes());
    fix_crc(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    assert_open_fails(
        &path,
        |e| matches!(e, FlashError::CorruptImage { reason, .. } if reason.contains("pages_per_block")),
    );

    // A consistent CRC over region offsets that do not match the layout.
    let mut bytes = good.clone();
    bytes[H_NVRAM_SIZE.offset..H_NVRAM_SIZE.offset + 8].copy_from_slice(&7u64.to_le_bytes());
    fix_crc(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    assert_open_fails(&path, |e| matches!(e, FlashError::CorruptImage { .. }));

    // A page-state byte that is neither erased nor programmed.
    let header = ImageHeader::decode(&good[..HEADER_SIZE], good.len() as u64, "x").unwrap();
    let mut bytes = good.clone();
    bytes[header.layout.state_offset as usize + 9] = 0x77;
    std::fs::write(&path, &bytes).unwrap();
    assert_open_fails(
        &path,
        |e| matches!(e, FlashError::CorruptImage { reason, .. } if reason.contains("state byte")),
    );

    // The good image still opens, with its content.
    std::fs::write(&path, &good).unwrap();
    let mut f = FileFlash::open(&path).unwrap();
    let mut oob = [0u8; 2];
    f.read_oob(PageAddr::new(1, 0), &mut oob).unwrap();
    assert_eq!(oob, [1, 2]);
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.img");
    let e = FileFlash::open(&path).unwrap_err();
    assert!(matches!(e, FlashError::Io { .. }), "{e}");
    assert!(e.to_string().contains("absent.img"), "{e}");
    assert!(!path.exists(), "open must not create the file");
}

/// Seed of the header fuzz loop.
const FUZZ_SEED: u64 = 0xf022_4ead;

#[test]
fn seeded_header_fuzz_never_panics_and_only_accepts_valid_headers() {
    let g = Geometry::tiny();
    let layout = ImageLayout::compute(&g, 4096).unwrap();
    let good = ImageHeader {
        version: IMAGE_VERSION,
        geometry: g,
        layout,
        created_by: "fuzz".into(),
        wear: flash::WearModel::UNLIMITED,
    }
    .encode();
    let mut rng = Pcg64::seed_from_u64(FUZZ_SEED);
    let mut accepted = 0;
    for case in 0..20_000 {
        let mut h = good.to_vec();
        // Mutate a few bytes, mostly in the fields that matter.
        for _ in 0..rng.gen_range(1..6) {
            let i = if rng.gen_bool(0.8) {
                rng.gen_range(0..H_RESERVED.offset)
            } else {
                rng.gen_range(0..HEADER_SIZE)
            };
            h[i] = rng.gen();
        }
        if rng.gen_bool(0.5) {
            h[..8].copy_from_slice(&IMAGE_MAGIC);
        }
        if rng.gen_bool(0.9) {
            fix_crc(&mut h);
        }
        let cut = if rng.gen_bool(0.1) {
            rng.gen_range(0..HEADER_SIZE)
        } else {
            HEADER_SIZE
        };
        let file_len = if rng.gen_bool(0.5) {
            layout.image_size
        } else {
            rng.gen()
        };
        // `decode` is what `open` runs on the header bytes; it must answer,
        // never panic, and accept only self-consistent headers.
        if let Ok(hdr) = ImageHeader::decode(&h[..cut], file_len, "fuzz") {
            accepted += 1;
            hdr.geometry.validate().unwrap();
            assert_eq!(
                ImageLayout::compute_version(&hdr.geometry, hdr.layout.nvram_size, hdr.version),
                Some(hdr.layout),
                "case {case} of seed {FUZZ_SEED:#x}"
            );
            assert!(file_len >= hdr.layout.image_size);
        }
    }
    assert!(accepted > 0, "the fuzzer never produced a valid header");
}

#[test]
fn opening_fuzzed_image_files_never_panics_and_never_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.img");
    let good = make_image(&path);
    let mut rng = Pcg64::seed_from_u64(FUZZ_SEED ^ 1);
    for case in 0..150 {
        let mut bytes = good.clone();
        for _ in 0..rng.gen_range(1..4) {
            let i = rng.gen_range(0..104);
            bytes[i] = rng.gen();
        }
        if rng.gen_bool(0.7) {
            fix_crc(&mut bytes);
        }
        if rng.gen_bool(0.2) {
            bytes.truncate(rng.gen_range(0..bytes.len()));
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(mut f) = FileFlash::open_read_only(&path) {
            // Whatever was accepted must be usable.
            let g = *f.geometry();
            let mut buf = vec![0; g.page_size()];
            f.read(PageAddr::new(0, 0), 0, &mut buf)
                .unwrap_or_else(|e| panic!("case {case}: {e}"));
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "case {case} wrote to the file"
        );
    }
}
