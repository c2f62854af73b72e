//! Flash that wears out and fails (src/wear.rs): erase counts in every
//! storing backend, endurance, factory bad blocks, failed programs and
//! erases as distinct errors that damage nothing else, the image's wear
//! region across reopens, and the failures `CrashFlash` injects.

use flash::{
    BlockHealth, BlockId, BlockWear, CrashFlash, DatalessFlash, FileFlash, Flash, FlashError,
    Geometry, MemFlash, PageAddr, RawFlash, WearModel,
};

fn page(g: &Geometry, seed: u8) -> Vec<u8> {
    (0..g.page_size())
        .map(|i| (i as u8).wrapping_mul(29) ^ seed)
        .collect()
}

fn read_page(f: &mut impl Flash, p: PageAddr) -> Vec<u8> {
    let mut buf = vec![0; f.geometry().page_size()];
    f.read(p, 0, &mut buf).unwrap();
    buf
}

const WORN: WearModel = WearModel {
    endurance: 20,
    factory_bad_per_mille: 0,
    seed: 3,
};

/// Erases `block` until an erase fails; returns how many succeeded.
fn erase_until_failure(f: &mut impl Flash, block: BlockId) -> u32 {
    let mut ok = 0;
    loop {
        match f.erase(block) {
            Ok(()) => ok += 1,
            Err(FlashError::EraseFailed { block: b }) => {
                assert_eq!(b, block.0);
                return ok;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
        assert!(ok < 1000, "the block never wore out");
    }
}

/// What every storing backend must do with the same wear model.
fn wears_out_like_nand(f: &mut impl Flash) {
    let g = *f.geometry();
    let b = BlockId(2);
    assert_eq!(f.block_wear(b).unwrap(), BlockWear::default());
    // A page programmed before the block wears out keeps its content
    // through the failed erase.
    f.program(PageAddr::new(2, 0), &page(&g, 1), &[7; 4])
        .unwrap();
    let lasted = erase_until_failure(f, b);
    let end = WORN.block_endurance(b).unwrap();
    assert_eq!(lasted, end);
    let w = f.block_wear(b).unwrap();
    assert_eq!((w.erases, w.health), (end + 1, BlockHealth::WornOut));
    // Programs and erases of a worn-out block fail, each a distinct error.
    let p = PageAddr::new(2, 1);
    assert!(matches!(
        f.program(p, &page(&g, 2), &[]),
        Err(FlashError::ProgramFailed { block: 2, page: 1 })
    ));
    assert!(f.erase(b).unwrap_err().is_media_failure());
    // The failed program consumed its page: the rules go on from there.
    assert!(matches!(
        f.program(p, &page(&g, 2), &[]),
        Err(FlashError::ProgramNotErased { .. })
    ));
    // Other blocks are untouched.
    assert_eq!(f.block_wear(BlockId(3)).unwrap(), BlockWear::default());
    f.program(PageAddr::new(3, 0), &page(&g, 3), &[]).unwrap();
    assert_eq!(read_page(f, PageAddr::new(3, 0)), page(&g, 3));
    let c = f.counters();
    assert_eq!(c.erases, u64::from(end));
    assert_eq!(c.failed_erases, 2);
    assert_eq!(c.failed_programs, 1);
    assert!(f.block_wear(BlockId(g.total_blocks())).is_err());
}

#[test]
fn ram_backends_count_erases_and_wear_blocks_out() {
    let g = Geometry::tiny();
    let mut m = MemFlash::with_wear(g, 4096, WORN).unwrap();
    wears_out_like_nand(&mut m);
    // The page programmed before the failed erase kept its content (the
    // first successful erases cleared it, so program and check again).
    let mut d =
        DatalessFlash::with_wear(g, vec![true; g.total_blocks() as usize], 4096, WORN).unwrap();
    wears_out_like_nand(&mut d);
}

#[test]
fn a_failed_program_keeps_the_blocks_other_pages() {
    let g = Geometry::tiny();
    let mut f = CrashFlash::new(MemFlash::new(g).unwrap());
    f.program(PageAddr::new(4, 0), &page(&g, 1), &[1, 2])
        .unwrap();
    f.fail_nth_program(2);
    f.program(PageAddr::new(5, 0), &page(&g, 2), &[]).unwrap();
    let err = f
        .program(PageAddr::new(4, 1), &page(&g, 3), &[])
        .unwrap_err();
    assert!(matches!(
        err,
        FlashError::ProgramFailed { block: 4, page: 1 }
    ));
    assert_eq!(read_page(&mut f, PageAddr::new(4, 0)), page(&g, 1));
    assert_ne!(read_page(&mut f, PageAddr::new(4, 1)), page(&g, 3));
    // Later pages of the block still program; the injection is spent.
    f.program(PageAddr::new(4, 2), &page(&g, 4), &[]).unwrap();
    assert_eq!(read_page(&mut f, PageAddr::new(4, 2)), page(&g, 4));
    assert_eq!(f.injected_failures(), (1, 0));
    // The failed program is in flight like any other: a crash may leave
    // the page erased or as it failed, and keeps the synced page.
    assert!(f.in_flight().any(|(p, _)| p == PageAddr::new(4, 1)));
}

#[test]
fn an_injected_erase_failure_wears_the_block_out_and_changes_no_page() {
    let g = Geometry::tiny();
    let mut f = CrashFlash::new(MemFlash::new(g).unwrap());
    f.program(PageAddr::new(6, 0), &page(&g, 9), &[]).unwrap();
    f.erase(BlockId(7)).unwrap();
    f.fail_nth_erase(2);
    f.erase(BlockId(8)).unwrap();
    assert!(matches!(
        f.erase(BlockId(6)),
        Err(FlashError::EraseFailed { block: 6 })
    ));
    assert_eq!(read_page(&mut f, PageAddr::new(6, 0)), page(&g, 9));
    let w = f.block_wear(BlockId(6)).unwrap();
    assert_eq!((w.erases, w.health), (1, BlockHealth::WornOut));
    assert!(matches!(
        f.program(PageAddr::new(6, 1), &page(&g, 1), &[]),
        Err(FlashError::ProgramFailed { .. })
    ));
    assert_eq!(f.injected_failures(), (0, 1));
    assert_eq!(f.block_wear(BlockId(7)).unwrap().erases, 1);
    // A duplicate keeps the wear records.
    let copy = f.duplicate(MemFlash::new(g).unwrap()).unwrap();
    assert_eq!(copy.block_wear(BlockId(6)).unwrap(), w);
}

#[test]
fn an_image_keeps_erase_counts_and_bad_blocks_across_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wear.img");
    let g = Geometry::small();
    let model = WearModel {
        endurance: 30,
        factory_bad_per_mille: 40,
        seed: 11,
    };
    let factory: Vec<u32> = (0..g.total_blocks())
        .filter(|&b| model.is_factory_bad(BlockId(b)))
        .collect();
    assert!(!factory.is_empty());
    let worn = (1..g.total_blocks())
        .find(|b| !factory.contains(b))
        .unwrap();
    let lasted;
    {
        let mut f = FileFlash::create_with_wear(&path, g, 4096, model, false).unwrap();
        assert_eq!(f.header().wear, model);
        for &b in &factory {
            assert_eq!(
                f.block_wear(BlockId(b)).unwrap().health,
                BlockHealth::FactoryBad
            );
            assert!(matches!(
                f.program(PageAddr::new(b, 0), &page(&g, 1), &[]),
                Err(FlashError::ProgramFailed { .. })
            ));
        }
        f.erase(BlockId(0)).unwrap();
        f.erase(BlockId(0)).unwrap();
        lasted = erase_until_failure(&mut f, BlockId(worn));
        f.sync().unwrap();
    }
    let f = FileFlash::open(&path).unwrap();
    assert_eq!(f.header().wear, model);
    assert_eq!(f.block_wear(BlockId(0)).unwrap().erases, 2);
    let w = f.block_wear(BlockId(worn)).unwrap();
    assert_eq!((w.erases, w.health), (lasted + 1, BlockHealth::WornOut));
    for &b in &factory {
        assert_eq!(
            f.block_wear(BlockId(b)).unwrap().health,
            BlockHealth::FactoryBad
        );
    }
    drop(f);
    // A wear record with an unknown health is refused, naming the block.
    {
        use std::os::unix::fs::FileExt;
        let l = FileFlash::read_header(&path).unwrap().layout;
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&0xF000_0000u32.to_le_bytes(), l.wear_offset + 4 * 5)
            .unwrap();
    }
    match FileFlash::open(&path) {
        Err(FlashError::CorruptImage { reason, .. }) => {
            assert!(reason.contains("block 5"), "{reason}")
        }
        other => panic!("expected CorruptImage, got {other:?}"),
    }
}

#[test]
fn a_set_wear_record_is_persisted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.img");
    let g = Geometry::tiny();
    let w = BlockWear {
        erases: 77,
        health: BlockHealth::WornOut,
    };
    {
        let mut f = FileFlash::create(&path, g, false).unwrap();
        f.set_block_wear(BlockId(3), w).unwrap();
    }
    let f = FileFlash::open(&path).unwrap();
    assert_eq!(f.block_wear(BlockId(3)).unwrap(), w);
    assert_eq!(f.block_wear(BlockId(4)).unwrap(), BlockWear::default());
}

#[test]
fn a_block_the_ftl_retires_stays_retired_and_fails_like_a_bad_one() {
    let g = Geometry::tiny();
    let mut m = MemFlash::new(g).unwrap();
    m.program(PageAddr::new(5, 0), &page(&g, 1), &[]).unwrap();
    m.mark_bad(BlockId(5)).unwrap();
    assert_eq!(
        m.block_wear(BlockId(5)).unwrap().health,
        BlockHealth::Retired
    );
    assert_eq!(read_page(&mut m, PageAddr::new(5, 0)), page(&g, 1));
    assert!(m
        .program(PageAddr::new(5, 1), &page(&g, 2), &[])
        .unwrap_err()
        .is_media_failure());
    assert!(m.erase(BlockId(5)).unwrap_err().is_media_failure());
    assert!(m.mark_bad(BlockId(g.total_blocks())).is_err());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("retired.img");
    {
        let mut f = FileFlash::create(&path, g, false).unwrap();
        f.erase(BlockId(6)).unwrap();
        f.mark_bad(BlockId(6)).unwrap();
    }
    let mut f = FileFlash::open(&path).unwrap();
    let w = f.block_wear(BlockId(6)).unwrap();
    assert_eq!((w.erases, w.health), (1, BlockHealth::Retired));
    assert!(f.erase(BlockId(6)).unwrap_err().is_media_failure());
}
