//! OOB commits (docs/FORMAT.md §4.9, configuration version 6): a durable
//! flush whose epoch's data pages run from the last commit's link commits
//! in the OOB of its last page — also when that page is full — instead of
//! programming a committed delta page; the commits survive a reopen; a
//! torn last epoch (data lost below intact OOB records) is dropped whole;
//! epochs with a trim commit in the region; an image of configuration
//! version 5 opens, keeps its version and gets no OOB commits; and runs of
//! 33 to 64 pages commit in the OOB from version 9 on, not in version 8.

use crate::common;

use common::Cuttable;
use flash::{
    CrashFlash, Flash, Geometry, ImageCrashFlash, MemFlash, PageAddr, PageImage, RawFlash,
    SharedFlash,
};
use ftl::scftl::format::OOB_COMMIT_MAGIC;
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{label, BlockDevice, FtlError, Lba, Mutant};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Sector `la` at version `ver`: every byte depends on both.
fn pattern(la: u64, ver: u32, ss: usize) -> Vec<u8> {
    let mut v = vec![(la as u8) ^ (ver as u8).wrapping_mul(13) | 1; ss];
    v[..8].copy_from_slice(&la.to_le_bytes());
    v[8..12].copy_from_slice(&ver.to_le_bytes());
    v
}

/// A `small` device whose delta pages (and so the backlog of epochs
/// committed in data pages, which one consolidation page holds) take as
/// many pairs as a page can, so every epoch below fits the backlog. (That
/// is `small`'s default too; set here so the test does not depend on it.)
fn fresh() -> Scftl<MemFlash> {
    let g = Geometry::small();
    let mut c = ScftlConfig::default_for(&g);
    c.delta_pairs_per_page = ftl::scftl::format::pairs_per_page(g.page_size()) as u32;
    Scftl::format(MemFlash::new(g).unwrap(), c).unwrap()
}

/// Logical sectors the epochs write (spread, so no two epochs' sectors sit
/// in one page by accident of order).
const SPAN: u64 = 61;

/// Runs `epochs` epochs of `per_epoch` single-sector writes each (at
/// scattered logical sectors, every sector written at a new version), each
/// ended by a durable flush, checking the invariants (with the `ghost`
/// feature: that recovery would rebuild the flushed state) after each.
fn epochs(d: &mut Scftl<MemFlash>, model: &mut [u32], epochs: u32, per_epoch: u64, ver0: u32) {
    let ss = d.sector_size();
    let mut la = u64::from(ver0) * 7;
    for e in 0..epochs {
        for _ in 0..per_epoch {
            la = (la + 17) % SPAN;
            let ver = ver0 + e;
            d.write(Lba(la), &pattern(la, ver, ss)).unwrap();
            model[la as usize] = ver;
        }
        d.flush().unwrap();
        d.check_invariants().unwrap();
    }
}

fn check(d: &mut Scftl<MemFlash>, model: &[u32]) {
    let ss = d.sector_size();
    let mut buf = vec![0u8; ss];
    for (la, &ver) in model.iter().enumerate() {
        d.read(Lba(la as u64), &mut buf).unwrap();
        let want = if ver == 0 {
            vec![0u8; ss]
        } else {
            pattern(la as u64, ver, ss)
        };
        assert!(buf == want, "sector {la}: expected version {ver}");
    }
}

/// The data pages whose OOB carries the OOB commit marker.
fn marked_pages(flash: &MemFlash) -> Vec<PageAddr> {
    let g = *flash.geometry();
    let at = 4 * g.sectors_per_page as usize;
    let mut out = Vec::new();
    for b in 0..g.total_blocks() {
        for p in 0..g.pages_per_block {
            let addr = PageAddr::new(b, p);
            if let PageImage::Programmed { oob, .. } = flash.page_image(addr).unwrap() {
                if oob[at..at + 4] == OOB_COMMIT_MAGIC {
                    out.push(addr);
                }
            }
        }
    }
    out
}

#[test]
fn page_sized_and_multi_page_epochs_commit_in_the_oob_and_survive_reopen() {
    let mut d = fresh();
    let spp = u64::from(Geometry::small().sectors_per_page);
    let mut model = vec![0u32; SPAN as usize];
    let before = d.stats();
    // One full page per epoch: the full merge buffer is held back for the
    // flush, which commits in its OOB.
    epochs(&mut d, &mut model, 10, spp, 1);
    let st = d.stats();
    // The first flush after format has no link yet and commits in the
    // region; the other nine in the OOB of their page.
    assert_eq!(
        st.meta_pages_written - before.meta_pages_written,
        1,
        "{st:?}"
    );
    assert_eq!(st.data_page_commits, 9, "{st:?}");
    // Epochs of two full pages and one sector more, then of two pages.
    epochs(&mut d, &mut model, 6, 2 * spp + 1, 20);
    epochs(&mut d, &mut model, 6, 2 * spp, 40);
    let st2 = d.stats();
    assert_eq!(st2.data_page_commits, 9 + 12, "{st2:?}");
    assert_eq!(st2.meta_pages_written, st.meta_pages_written, "{st2:?}");
    check(&mut d, &model);
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check(&mut d, &model);
    d.check_invariants().unwrap();
    // `open` consolidated the chain into the region; more epochs on top of
    // that, and another reopen.
    epochs(&mut d, &mut model, 30, spp, 60);
    assert!(d.stats().data_page_commits >= 29, "{:?}", d.stats());
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check(&mut d, &model);
    d.check_invariants().unwrap();
}

/// Four epochs of two pages, then a fifth whose first page loses one
/// sector's data while its OOB stays intact — what a power cut leaves when
/// the page's data write was lost but its OOB write landed (the image
/// backend writes them separately). Returns the flash, the model before
/// the fifth epoch, and the damaged sector.
fn lost_data_below_the_records() -> (MemFlash, Vec<u32>, u64) {
    let mut d = fresh();
    let ss = d.sector_size();
    let spp = u64::from(Geometry::small().sectors_per_page);
    let mut model = vec![0u32; SPAN as usize];
    epochs(&mut d, &mut model, 4, 2 * spp, 1);
    let kept = model.clone();
    // The last epoch: two pages, committed in the OOB of the second.
    epochs(&mut d, &mut model, 1, 2 * spp, 9);
    assert!(d.stats().data_page_commits >= 4, "{:?}", d.stats());
    let mut flash = d.into_flash();
    let la = model.iter().position(|&v| v == 9).unwrap() as u64;
    let want = pattern(la, 9, ss);
    let g = *flash.geometry();
    let mut hit = None;
    for b in 0..g.total_blocks() {
        for p in 0..g.pages_per_block {
            let addr = PageAddr::new(b, p);
            if let PageImage::Programmed { data, oob } = flash.page_image(addr).unwrap() {
                if let Some(slot) = data.chunks_exact(ss).position(|s| s == want.as_slice()) {
                    hit = Some((addr, slot, data, oob));
                }
            }
        }
    }
    let (addr, slot, mut data, oob) = hit.expect("the sector is on flash");
    assert!(
        !marked_pages(&flash).contains(&addr),
        "the damaged page is not the record's page"
    );
    data[slot * ss + 100] ^= 0x40;
    flash
        .set_page_image(addr, PageImage::Programmed { data, oob })
        .unwrap();
    (flash, kept, la)
}

#[test]
fn a_last_epoch_with_lost_data_below_its_records_is_dropped_whole() {
    let (flash, kept, _) = lost_data_below_the_records();
    let mut d = Scftl::open(flash).unwrap();
    // The whole epoch is gone — no sector of it, not only the damaged one.
    check(&mut d, &kept);
    d.check_invariants().unwrap();
    // And the device goes on.
    let mut model = kept;
    epochs(
        &mut d,
        &mut model,
        3,
        u64::from(Geometry::small().sectors_per_page),
        30,
    );
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check(&mut d, &model);
}

#[test]
fn without_the_read_back_the_damaged_epoch_would_be_applied() {
    // The check above is not vacuous: the mutant that skips reading the
    // last OOB commit back applies the epoch, damaged sector and all.
    let (flash, _, la) = lost_data_below_the_records();
    let mut d = Scftl::open_with_mutant(flash, Mutant::AcceptOobCommitWithTornData).unwrap();
    let mut buf = vec![0u8; d.sector_size()];
    let e = d.read(Lba(la), &mut buf).unwrap_err();
    assert!(matches!(e, FtlError::DamagedSector { .. }), "{e}");
}

#[test]
fn epochs_with_a_trim_commit_in_the_region() {
    let mut d = fresh();
    let spp = u64::from(Geometry::small().sectors_per_page);
    let mut model = vec![0u32; SPAN as usize];
    epochs(&mut d, &mut model, 2, spp, 1);
    let st = d.stats();
    let ss = d.sector_size();
    // A full page and a trim: no padding slot for an in-page record, and
    // no data page names the trim.
    for e in 0..3u32 {
        for la in 3..3 + spp {
            d.write(Lba(la), &pattern(la, 10 + e, ss)).unwrap();
            model[la as usize] = 10 + e;
        }
        // (A trim of an unmapped sector records nothing; this one is mapped.)
        d.trim(Lba(3), 1).unwrap();
        model[3] = 0;
        d.flush().unwrap();
        d.check_invariants().unwrap();
    }
    let st2 = d.stats();
    assert_eq!(st2.data_page_commits, st.data_page_commits, "{st2:?}");
    // Three committed delta pages, and before the first one the
    // consolidation page of the OOB-committed epoch before them.
    assert_eq!(st2.meta_pages_written, st.meta_pages_written + 4, "{st2:?}");
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check(&mut d, &model);
}

#[test]
fn version_5_images_open_keep_their_version_and_get_no_oob_commits() {
    let mut d = fresh();
    let spp = u64::from(Geometry::small().sectors_per_page);
    let mut model = vec![0u32; SPAN as usize];
    epochs(&mut d, &mut model, 1, spp, 1);
    let mut flash = d.into_flash();
    assert_eq!(common::relabel_scftl_version(&mut flash, 5), 9);
    let mut d = Scftl::open(flash).unwrap();
    let before = d.stats().meta_pages_written;
    epochs(&mut d, &mut model, 6, spp, 2);
    let st = d.stats();
    assert_eq!(st.data_page_commits, 0, "{st:?}");
    assert_eq!(
        st.meta_pages_written - before,
        6,
        "one delta page per flush"
    );
    let mut flash = d.into_flash();
    assert!(marked_pages(&flash).is_empty());
    let (_, config) = label::read_label(&mut flash).unwrap();
    assert_eq!(config[..4], 5u32.to_le_bytes(), "the image stays version 5");
    let mut d = Scftl::open(flash).unwrap();
    check(&mut d, &model);
    d.check_invariants().unwrap();
}

/// Runs `n` epochs of `pages` whole pages each, every sector of an epoch
/// distinct (so its pairs are exactly the run's sectors), starting at
/// logical sector `base`; returns the OOB commits they made.
fn long_epochs(d: &mut Scftl<MemFlash>, model: &mut [u32], n: u32, pages: u64, ver0: u32) -> u64 {
    let ss = d.sector_size();
    let spp = u64::from(Geometry::small().sectors_per_page);
    let before = d.stats().data_page_commits;
    for e in 0..n {
        let ver = ver0 + e;
        for k in 0..pages * spp {
            // A stride coprime to the model's length: a permutation.
            let la = (u64::from(ver) * 31 + k * 7) % model.len() as u64;
            d.write(Lba(la), &pattern(la, ver, ss)).unwrap();
            model[la as usize] = ver;
        }
        d.flush().unwrap();
        d.check_invariants().unwrap();
    }
    d.stats().data_page_commits - before
}

#[test]
fn runs_of_33_to_64_pages_commit_in_the_oob_from_version_9_on_only() {
    let spp = u64::from(Geometry::small().sectors_per_page);
    // Long enough for one epoch of 64 distinct pages.
    let len = 64 * spp as usize + 3;
    let w = u64::from(fresh().config().write_bound);
    assert!(w >= 64 * spp, "W = {w} holds a 64-page epoch");
    for relabel in [None, Some(8)] {
        let mut d = fresh();
        let mut model = vec![0u32; len];
        // The first flush has no link yet and commits in the region.
        long_epochs(&mut d, &mut model, 1, 1, 1);
        if let Some(v) = relabel {
            let mut flash = d.into_flash();
            assert_eq!(common::relabel_scftl_version(&mut flash, v), 9);
            d = Scftl::open(flash).unwrap();
            // `open` committed in the region; one more epoch sets the link.
            long_epochs(&mut d, &mut model, 1, 1, 2);
        }
        let meta = d.stats().meta_pages_written;
        // A superblock of `small` holds 128 pages, so a run that would
        // cross its end commits in the region: of 8 epochs of 40 pages
        // and 4 of 64, at most 5 do.
        let oob =
            long_epochs(&mut d, &mut model, 8, 40, 10) + long_epochs(&mut d, &mut model, 4, 64, 30);
        let metas = d.stats().meta_pages_written - meta;
        match relabel {
            None => {
                assert!(oob >= 7, "{oob} OOB commits in 12 epochs: {:?}", d.stats());
                assert!(metas < 12, "{metas} metadata pages in 12 epochs");
            }
            Some(_) => {
                assert_eq!(oob, 0, "version 8 walks 32 pages only: {:?}", d.stats());
                assert!(metas >= 12, "one delta page per flush at least: {metas}");
            }
        }
        check(&mut d, &model);
        // A crash inside a long run: 50 pages written, no flush.
        let flushed = model.clone();
        let ss = d.sector_size();
        for k in 0..50 * spp {
            let la = (k * 7) % len as u64;
            d.write(Lba(la), &pattern(la, 99, ss)).unwrap();
        }
        let mut d = Scftl::open(d.into_flash()).unwrap();
        check(&mut d, &flushed);
        d.check_invariants().unwrap();
        let (_, config) = label::read_label(d.flash_mut()).unwrap();
        let want = relabel.unwrap_or(9);
        assert_eq!(
            config[..4],
            want.to_le_bytes(),
            "the image keeps its version"
        );
    }
}

/// A power cut at every flash command of a 64-page epoch and its flush
/// (an OOB commit of version 9's longest run), on one crash model: the
/// device recovers the state before the epoch or, once the flush began,
/// the state after it — after it whenever the flush returned — and every
/// sector reads. Returns how many cut points it tried.
fn cut_through_a_64_page_oob_commit<F: Cuttable>() -> u64 {
    let g = Geometry::small();
    let spp = u64::from(g.sectors_per_page);
    let pages = 64;
    let len = pages * spp as usize + 3;
    let mut c = ScftlConfig::default_for(&g);
    c.delta_pairs_per_page = ftl::scftl::format::pairs_per_page(g.page_size()) as u32;
    for k in 0.. {
        let mut rng = Pcg64::seed_from_u64(k);
        let flash = SharedFlash::new(F::fresh(g));
        let mut d = Scftl::format(flash.clone(), c.clone()).unwrap();
        let ss = d.sector_size();
        let mut before = vec![0u32; len];
        // A 64-page epoch that commits in the region and leaves the link in
        // the middle of a superblock (128 pages), so the next 64 pages fit.
        let write_epoch = |d: &mut Scftl<SharedFlash<F>>, model: &mut [u32], ver: u32| {
            for i in 0..pages as u64 * spp {
                let la = (u64::from(ver) * 31 + i * 7) % len as u64;
                d.write(Lba(la), &pattern(la, ver, ss))?;
                model[la as usize] = ver;
            }
            Ok::<(), FtlError>(())
        };
        write_epoch(&mut d, &mut before, 1).unwrap();
        d.flush().unwrap();
        assert_eq!(d.stats().data_page_commits, 0, "no link yet");
        let mut after = before.clone();
        flash.with(|f| f.arm(k));
        let mut flush_began = false;
        let r = write_epoch(&mut d, &mut after, 2).and_then(|()| {
            flush_began = true;
            d.flush()
        });
        let done = r.is_ok();
        if let Err(e) = r {
            assert!(
                matches!(&e, FtlError::Flash(fe) if fe.is_power_loss()),
                "cut {k}: {e}"
            );
        } else {
            assert_eq!(
                d.stats().data_page_commits,
                1,
                "the epoch commits in the OOB"
            );
        }
        drop(d);
        flash.with(|f| f.cut(&mut rng));
        let mut d =
            Scftl::open(flash.clone()).unwrap_or_else(|e| panic!("cut {k}: recovery failed: {e}"));
        let mut got = vec![0u32; len];
        let mut buf = vec![0u8; ss];
        for (la, got) in got.iter_mut().enumerate() {
            d.read(Lba(la as u64), &mut buf)
                .unwrap_or_else(|e| panic!("cut {k}: sector {la}: {e}"));
            *got = (0..=2)
                .find(|&v| {
                    if v == 0 {
                        buf.iter().all(|&b| b == 0)
                    } else {
                        buf == pattern(la as u64, v, ss)
                    }
                })
                .unwrap_or_else(|| panic!("cut {k}: sector {la} holds data never written"));
        }
        if done {
            assert!(
                got == after,
                "cut {k}: the flush returned, but its epoch is not all there"
            );
        } else if flush_began {
            assert!(
                got == before || got == after,
                "cut {k}: a mix of the epoch and the state before it"
            );
        } else {
            assert!(
                got == before,
                "cut {k}: unflushed writes survived a cut before the flush"
            );
        }
        d.check_invariants().unwrap();
        if done {
            return k;
        }
    }
    unreachable!()
}

#[test]
fn a_power_cut_anywhere_in_a_64_page_oob_commit_keeps_a_whole_state_nand_model() {
    assert!(cut_through_a_64_page_oob_commit::<CrashFlash<MemFlash>>() > 64);
}

#[test]
fn a_power_cut_anywhere_in_a_64_page_oob_commit_keeps_a_whole_state_image_model() {
    assert!(cut_through_a_64_page_oob_commit::<ImageCrashFlash>() > 64);
}
