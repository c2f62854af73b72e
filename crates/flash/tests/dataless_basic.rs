//! DatalessFlash: metadata blocks round-trip whole, data pages keep their
//! tags and OOB, the NAND rules hold everywhere, and memory stays within a
//! bound computed from the geometry.

use flash::dataless::TAG_BYTES;
use flash::{
    BlockId, DatalessFlash, Flash, FlashError, Geometry, MemFlash, PageAddr, PageImage, RawFlash,
    TimedFlash, TimingConfig,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Sector `s` of a page: its index in every byte, xored with a seed, so
/// tags and the bytes after them are distinguishable.
fn page(g: &Geometry, seed: u8) -> Vec<u8> {
    (0..g.page_size())
        .map(|i| ((i / g.sector_size as usize) as u8 + 1) ^ seed ^ (i as u8))
        .collect()
}

/// What a data page reads as: each sector's tag, then zeros.
fn tagged(g: &Geometry, data: &[u8]) -> Vec<u8> {
    let ss = g.sector_size as usize;
    let mut out = vec![0; data.len()];
    for (o, d) in out.chunks_exact_mut(ss).zip(data.chunks_exact(ss)) {
        o[..TAG_BYTES].copy_from_slice(&d[..TAG_BYTES]);
    }
    out
}

#[test]
fn data_pages_keep_tags_and_oob_metadata_pages_keep_everything() {
    let g = Geometry::tiny();
    let mut f = DatalessFlash::with_metadata_blocks(g, 0..2).unwrap();
    assert!(f.is_metadata_block(BlockId(1)).unwrap());
    assert!(!f.is_metadata_block(BlockId(2)).unwrap());
    let data = page(&g, 0x3C);
    let oob: Vec<u8> = (1..=20).collect();
    f.program(PageAddr::new(1, 0), &data, &oob).unwrap();
    f.program(PageAddr::new(5, 0), &data, &oob).unwrap();

    let mut buf = vec![0xEE; g.page_size()];
    f.read(PageAddr::new(1, 0), 0, &mut buf).unwrap();
    assert_eq!(buf, data, "a metadata page reads back whole");
    f.read(PageAddr::new(5, 0), 0, &mut buf).unwrap();
    assert_eq!(
        buf,
        tagged(&g, &data),
        "a data page reads as tags and zeros"
    );
    assert_ne!(buf, data);
    let ss = g.sector_size as usize;
    let mut one = vec![0xEE; ss];
    f.read(PageAddr::new(5, 0), 1, &mut one).unwrap();
    assert_eq!(one, tagged(&g, &data)[ss..]);

    for p in [PageAddr::new(1, 0), PageAddr::new(5, 0)] {
        let mut o = vec![0; g.oob_size as usize];
        f.read_oob(p, &mut o).unwrap();
        assert_eq!(&o[..20], &oob[..]);
        assert!(
            o[20..].iter().all(|&b| b == 0xFF),
            "unwritten OOB reads 0xFF"
        );
    }
    // Erased pages of both kinds read 0xFF.
    for p in [
        PageAddr::new(1, 1),
        PageAddr::new(5, 1),
        PageAddr::new(9, 0),
    ] {
        f.read(p, 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0xFF), "{p}");
    }
    assert_eq!(f.counters().programs, 2);
}

#[test]
fn nand_rules_hold_on_data_pages_and_erase_frees_memory() {
    let g = Geometry::tiny();
    let mut f = DatalessFlash::new(g, vec![false; g.total_blocks() as usize]).unwrap();
    assert_eq!(f.stored_bytes(), 0);
    f.program(PageAddr::new(3, 2), &page(&g, 1), &[]).unwrap();
    let rec = g.sectors_per_page as usize * TAG_BYTES + g.oob_size as usize;
    assert_eq!(f.stored_bytes(), rec * g.pages_per_block as usize);
    let e = f
        .program(PageAddr::new(3, 2), &page(&g, 2), &[])
        .unwrap_err();
    assert!(
        matches!(e, FlashError::ProgramNotErased { block: 3, page: 2 }),
        "{e}"
    );
    let e = f
        .program(PageAddr::new(3, 1), &page(&g, 2), &[])
        .unwrap_err();
    assert!(
        matches!(e, FlashError::ProgramOutOfOrder { next: 3, .. }),
        "{e}"
    );
    let e = f.program(PageAddr::new(3, 3), &[1; 7], &[]).unwrap_err();
    assert!(matches!(e, FlashError::BadLength { .. }), "{e}");
    assert!(!f.is_erased(PageAddr::new(3, 2)).unwrap());
    f.erase(BlockId(3)).unwrap();
    assert_eq!(f.stored_bytes(), 0);
    assert!(f.is_erased(PageAddr::new(3, 2)).unwrap());
    f.program(PageAddr::new(3, 0), &page(&g, 2), &[]).unwrap();
}

#[test]
fn constructor_inputs_are_checked() {
    let g = Geometry::tiny();
    let e = DatalessFlash::new(g, vec![true; 3]).err().unwrap();
    assert!(
        matches!(
            e,
            FlashError::BadLength {
                expected: 24,
                got: 3,
                ..
            }
        ),
        "{e}"
    );
    let e = DatalessFlash::with_metadata_blocks(g, 0..25).err().unwrap();
    assert!(matches!(e, FlashError::BlockOutOfRange { .. }), "{e}");
    assert!(DatalessFlash::is_metadata_block(
        &DatalessFlash::with_metadata_blocks(g, []).unwrap(),
        BlockId(24)
    )
    .is_err());
}

#[test]
fn raw_images_of_data_pages_are_tags_and_oob() {
    let g = Geometry::tiny();
    let mut f = DatalessFlash::with_metadata_blocks(g, 0..1).unwrap();
    let data = page(&g, 7);
    let oob = vec![9; g.oob_size as usize];
    let img = PageImage::Programmed {
        data: data.clone().into(),
        oob: oob.clone().into(),
    };
    f.set_page_image(PageAddr::new(0, 4), img.clone()).unwrap();
    f.set_page_image(PageAddr::new(4, 4), img).unwrap();
    assert_eq!(
        f.page_image(PageAddr::new(0, 4)).unwrap(),
        PageImage::Programmed {
            data: data.clone().into(),
            oob: oob.clone().into()
        }
    );
    assert_eq!(
        f.page_image(PageAddr::new(4, 4)).unwrap(),
        PageImage::Programmed {
            data: tagged(&g, &data).into(),
            oob: oob.into()
        }
    );
    let e = f.program(PageAddr::new(4, 3), &data, &[]).unwrap_err();
    assert!(
        matches!(e, FlashError::ProgramOutOfOrder { next: 5, .. }),
        "{e}"
    );
    f.set_page_image(PageAddr::new(4, 4), PageImage::Erased)
        .unwrap();
    assert_eq!(
        f.stored_bytes(),
        g.pages_per_block as usize * (g.page_size() + 32)
    );
    f.program(PageAddr::new(4, 0), &data, &[]).unwrap();
}

/// Seed of the differential run.
const DIFF_SEED: u64 = 0xda7a_1e55;

#[test]
fn seeded_random_commands_match_memflash_up_to_the_tags() {
    let g = Geometry::tiny();
    let is_meta: Vec<bool> = (0..g.total_blocks()).map(|b| b % 3 == 0).collect();
    let mut f = DatalessFlash::new(g, is_meta.clone()).unwrap();
    let mut mem = MemFlash::with_nvram(g, f.nvram_size()).unwrap();
    let mut rng = Pcg64::seed_from_u64(DIFF_SEED);
    for step in 0..5000 {
        let b = rng.gen_range(0..g.total_blocks());
        let p = PageAddr::new(b, rng.gen_range(0..g.pages_per_block));
        let ctx = format!("seed {DIFF_SEED:#x} step {step}");
        match rng.gen_range(0..10) {
            0 => {
                f.erase(BlockId(b)).unwrap();
                mem.erase(BlockId(b)).unwrap();
            }
            1..=5 => {
                let data = page(&g, rng.gen());
                let oob: Vec<u8> = (0..rng.gen_range(0..=g.oob_size))
                    .map(|_| rng.gen())
                    .collect();
                let a = f.program(p, &data, &oob).map_err(|e| e.to_string());
                let m = mem.program(p, &data, &oob).map_err(|e| e.to_string());
                assert_eq!(a, m, "{ctx}");
            }
            6 => {
                let v: [u8; 4] = rng.gen();
                f.nvram_write(step % 100, &v).unwrap();
                mem.nvram_write(step % 100, &v).unwrap();
            }
            _ => {
                let mut x = vec![0; g.page_size()];
                let mut y = vec![0; g.page_size()];
                f.read(p, 0, &mut x).unwrap();
                mem.read(p, 0, &mut y).unwrap();
                let expected = if is_meta[b as usize] || mem.is_erased(p).unwrap() {
                    y
                } else {
                    tagged(&g, &y)
                };
                assert_eq!(x, expected, "{ctx}: {p}");
                let mut x = vec![0; g.oob_size as usize];
                let mut y = vec![1; g.oob_size as usize];
                f.read_oob(p, &mut x).unwrap();
                mem.read_oob(p, &mut y).unwrap();
                assert_eq!(x, y, "{ctx}: OOB of {p}");
            }
        }
    }
    let mut x = vec![0; 104];
    let mut y = vec![1; 104];
    f.nvram_read(0, &mut x).unwrap();
    mem.nvram_read(0, &mut y).unwrap();
    assert_eq!(x, y);
}

#[test]
fn programming_every_page_of_the_paper_geometry_stays_within_the_computed_bound() {
    let g = Geometry::paper();
    let meta_blocks = 8u32;
    let mut f = DatalessFlash::with_metadata_blocks(g, 0..meta_blocks).unwrap();
    let data = page(&g, 1);
    let oob = [0xAB; 16];
    for b in 0..g.total_blocks() {
        for p in 0..g.pages_per_block {
            f.program(PageAddr::new(b, p), &data, &oob).unwrap();
        }
    }
    let ppb = g.pages_per_block as usize;
    let stride = g.page_size() + g.oob_size as usize;
    let record = g.sectors_per_page as usize * TAG_BYTES + g.oob_size as usize;
    let data_blocks = (g.total_blocks() - meta_blocks) as usize;
    let pages_bound = meta_blocks as usize * ppb * stride + data_blocks * ppb * record;
    assert_eq!(f.stored_bytes(), pages_bound);
    // Tables: a flag per page, per block a flag, an Option<Box>, a u32 and
    // a wear record (erase count and health, 8 B), plus the nvram.
    let tables =
        g.total_pages() as usize + g.total_blocks() as usize * (1 + 16 + 4 + 8) + f.nvram_size();
    assert!(
        f.memory_bytes() <= pages_bound + tables,
        "{}",
        f.memory_bytes()
    );
    // An 8 GiB device costs well under 1/64 of its size.
    assert!(
        (f.memory_bytes() as u64) < g.raw_bytes() / 64,
        "{}",
        f.memory_bytes()
    );
    let mut buf = vec![0; g.page_size()];
    f.read(PageAddr::new(100, 5), 0, &mut buf).unwrap();
    assert_eq!(buf, tagged(&g, &data));
}

#[test]
fn a_256_gib_device_would_fit_in_three_gib_when_full() {
    let g = Geometry::preset("paper-256g").unwrap();
    let flash = DatalessFlash::with_metadata_blocks(g, 0..4).unwrap();
    let empty = flash.memory_bytes();
    // The per-page and per-block tables of an erased 256 GiB device.
    assert!(empty < 24 << 20, "{empty}");
    let mut f = TimedFlash::new(flash, TimingConfig::for_geometry(&g));
    let data = page(&g, 2);
    let before = f.inner().stored_bytes();
    let block = g.block_on_die(5, 9);
    for p in 0..g.pages_per_block {
        f.program(PageAddr { block, page: p }, &data, &[1; 8])
            .unwrap();
    }
    let per_block = (f.inner().stored_bytes() - before) as u64;
    let projected = empty as u64 + per_block * u64::from(g.total_blocks());
    assert!(
        projected < 3 << 30,
        "a full device would take {projected} bytes"
    );
    f.sync().unwrap();
    assert!(f.now_ns() > 0);
}
