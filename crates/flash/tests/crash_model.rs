//! The power-loss fault layer against an independent model of the crash
//! rules (DESIGN.md §3): every post-crash page must hold its image before the
//! in-flight commands, after some prefix of them, or torn garbage — and every
//! one of those classes must actually be produced.

use std::collections::{HashMap, HashSet};

use flash::{
    BlockId, CrashFlash, CrashPolicy, Flash, FlashError, Geometry, MemFlash, PageAddr, PageImage,
    PageOutcome, RawFlash,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn dev() -> CrashFlash<MemFlash> {
    CrashFlash::new(MemFlash::new(Geometry::tiny()).unwrap())
}

fn page(g: &Geometry, byte: u8) -> Vec<u8> {
    vec![byte; g.page_size()]
}

fn image(g: &Geometry, byte: u8, oob: &[u8]) -> PageImage {
    let mut o = vec![0xFF; g.oob_size as usize];
    o[..oob.len()].copy_from_slice(oob);
    PageImage::Programmed {
        data: page(g, byte).into(),
        oob: o.into(),
    }
}

#[test]
fn power_loss_fails_the_command_without_effect_and_every_later_command() {
    let mut f = dev();
    let g = *f.geometry();
    f.nvram_write(0, &[1, 2, 3]).unwrap();
    f.set_crash_at(1);
    assert_eq!(f.crash_pending(), Some(1));
    f.program(PageAddr::new(1, 0), &page(&g, 1), &[]).unwrap();
    let e = f
        .program(PageAddr::new(1, 1), &page(&g, 2), &[])
        .unwrap_err();
    assert!(e.is_power_loss(), "{e}");
    assert!(f.is_powered_off());
    let mut buf = page(&g, 0);
    assert!(f
        .read(PageAddr::new(1, 0), 0, &mut buf)
        .unwrap_err()
        .is_power_loss());
    assert!(f
        .read_oob(PageAddr::new(1, 0), &mut [0; 4])
        .unwrap_err()
        .is_power_loss());
    assert!(f.erase(BlockId(3)).unwrap_err().is_power_loss());
    assert!(f.sync().unwrap_err().is_power_loss());
    assert!(f.nvram_write(0, &[9]).unwrap_err().is_power_loss());
    assert!(f.nvram_read(0, &mut [0]).unwrap_err().is_power_loss());
    // Arming while powered off is ignored; the device stays dead.
    f.set_crash_at(100);
    assert!(f.sync().unwrap_err().is_power_loss());
    // The cut program never happened: AllApplied keeps only the first.
    let mut rng = Pcg64::seed_from_u64(1);
    let r = f.crash(CrashPolicy::AllApplied, &mut rng).unwrap();
    assert!(r.fired);
    assert_eq!(r.pages, 1);
    assert!(!f.is_powered_off());
    assert_eq!(f.in_flight_pages(), 0);
    assert_eq!(
        f.inner().page_image(PageAddr::new(1, 1)).unwrap(),
        PageImage::Erased
    );
    assert_eq!(
        f.inner().page_image(PageAddr::new(1, 0)).unwrap(),
        image(&g, 1, &[])
    );
    // The battery-backed buffer survives, and the later cut write is absent.
    let mut nv = [0; 3];
    f.nvram_read(0, &mut nv).unwrap();
    assert_eq!(nv, [1, 2, 3]);
    // The device works again, with no power cut armed.
    f.program(PageAddr::new(1, 1), &page(&g, 3), &[]).unwrap();
    f.sync().unwrap();
}

#[test]
fn crash_at_zero_cuts_the_next_counted_command_and_reads_do_not_count() {
    let mut f = dev();
    let g = *f.geometry();
    f.set_crash_at(0);
    let mut buf = page(&g, 0);
    f.read(PageAddr::new(2, 0), 0, &mut buf).unwrap();
    f.read_oob(PageAddr::new(2, 0), &mut [0; 8]).unwrap();
    f.nvram_read(0, &mut [0; 2]).unwrap();
    assert_eq!(f.commands_issued(), 0);
    assert!(f.sync().unwrap_err().is_power_loss());
    assert_eq!(f.commands_issued(), 0);
    f.crash(CrashPolicy::Random, &mut Pcg64::seed_from_u64(0))
        .unwrap();
    // program, erase, sync and nvram writes are the counted commands.
    f.program(PageAddr::new(2, 0), &page(&g, 1), &[]).unwrap();
    f.erase(BlockId(3)).unwrap();
    f.nvram_write(0, &[1]).unwrap();
    f.sync().unwrap();
    assert_eq!(f.commands_issued(), 4);
    // A command the backend refuses still counts, and changes nothing.
    let e = f
        .program(PageAddr::new(2, 0), &page(&g, 2), &[])
        .unwrap_err();
    assert!(matches!(e, FlashError::ProgramNotErased { .. }));
    assert_eq!(f.commands_issued(), 5);
    assert_eq!(f.in_flight_pages(), 0);
}

#[test]
fn sync_clears_the_in_flight_set() {
    let mut f = dev();
    let g = *f.geometry();
    f.program(PageAddr::new(1, 0), &page(&g, 1), &[]).unwrap();
    f.erase(BlockId(2)).unwrap();
    assert_eq!(f.in_flight_pages(), 1 + g.pages_per_block as usize);
    let counts: Vec<usize> = f.in_flight().map(|(_, n)| n).collect();
    assert!(counts.iter().all(|&n| n == 1));
    assert_eq!(f.outcome_count(), 3u64.pow(1 + g.pages_per_block));
    f.sync().unwrap();
    assert_eq!(f.in_flight_pages(), 0);
    assert_eq!(f.outcome_count(), 1);
    // After a sync, even the harshest crash changes nothing.
    let before = f.inner().page_image(PageAddr::new(1, 0)).unwrap();
    let r = f
        .crash(CrashPolicy::AllGarbage, &mut Pcg64::seed_from_u64(3))
        .unwrap();
    assert_eq!(r.pages, 0);
    assert_eq!(f.inner().page_image(PageAddr::new(1, 0)).unwrap(), before);
}

/// The scenario enumerated below: block 1 holds synced data in pages 0..3;
/// in flight are an erase of block 1, programs of its pages 0 and 1, a
/// program of page 0 of block 2, and an nvram write.
fn scenario() -> (CrashFlash<MemFlash>, HashMap<PageAddr, Vec<PageImage>>) {
    let mut f = dev();
    let g = *f.geometry();
    for p in 0..3 {
        f.program(PageAddr::new(1, p), &page(&g, 10 + p as u8), &[p as u8])
            .unwrap();
    }
    f.sync().unwrap();
    // Shrink block 1's history by leaving pages 3.. erased; they still count.
    f.erase(BlockId(1)).unwrap();
    f.program(PageAddr::new(1, 0), &page(&g, 20), &[7]).unwrap();
    f.program(PageAddr::new(1, 1), &page(&g, 21), &[]).unwrap();
    f.program(PageAddr::new(2, 0), &page(&g, 30), &[]).unwrap();
    f.nvram_write(4, &[5, 5]).unwrap();
    // The independent model of each touched page's allowed images.
    let mut allowed = HashMap::new();
    for p in 0..g.pages_per_block {
        let old = if p < 3 {
            image(&g, 10 + p as u8, &[p as u8])
        } else {
            PageImage::Erased
        };
        let mut h = vec![old, PageImage::Erased];
        if p == 0 {
            h.push(image(&g, 20, &[7]));
        }
        if p == 1 {
            h.push(image(&g, 21, &[]));
        }
        allowed.insert(PageAddr::new(1, p), h);
    }
    allowed.insert(
        PageAddr::new(2, 0),
        vec![PageImage::Erased, image(&g, 30, &[])],
    );
    (f, allowed)
}

#[test]
fn every_enumerated_outcome_is_in_the_model_and_all_combinations_occur() {
    let (f, allowed) = scenario();
    let g = *f.geometry();
    let n = f.outcome_count();
    let expected: u64 = allowed.values().map(|h| h.len() as u64 + 1).product();
    assert_eq!(n, expected);
    let mut seen = HashSet::new();
    for i in 0..n {
        let (mut f, _) = scenario();
        let decoded = f.decode_outcome(i);
        let touched: Vec<PageAddr> = f.in_flight().map(|(p, _)| p).collect();
        assert!(seen.insert(decoded.clone()), "outcome {i} repeats");
        let mut rng = Pcg64::seed_from_u64(i);
        f.apply_outcome(i, &mut rng).unwrap();
        for (p, o) in touched.iter().zip(&decoded) {
            let got = f.inner().page_image(*p).unwrap();
            let hist = &allowed[p];
            match *o {
                PageOutcome::Image(k) => assert_eq!(got, hist[k], "outcome {i}, {p}"),
                PageOutcome::Torn => {
                    assert!(
                        matches!(got, PageImage::Programmed { .. }),
                        "outcome {i}: torn {p} must need an erase"
                    );
                }
            }
        }
        // Pages outside the in-flight set are untouched.
        for b in 0..g.total_blocks() {
            for p in 0..g.pages_per_block {
                let a = PageAddr::new(b, p);
                if !allowed.contains_key(&a) {
                    assert_eq!(f.inner().page_image(a).unwrap(), PageImage::Erased);
                }
            }
        }
        let mut nv = [0; 2];
        f.nvram_read(4, &mut nv).unwrap();
        assert_eq!(nv, [5, 5], "the battery-backed buffer is never harmed");
    }
    assert_eq!(seen.len() as u64, n);
}

#[test]
fn torn_pages_must_be_erased_before_reuse() {
    let (mut f, _) = scenario();
    let g = *f.geometry();
    f.crash(CrashPolicy::AllGarbage, &mut Pcg64::seed_from_u64(9))
        .unwrap();
    let e = f
        .program(PageAddr::new(2, 0), &page(&g, 1), &[])
        .unwrap_err();
    assert!(matches!(e, FlashError::ProgramNotErased { .. }), "{e}");
    f.erase(BlockId(2)).unwrap();
    f.program(PageAddr::new(2, 0), &page(&g, 1), &[]).unwrap();
}

#[test]
fn fixed_policies_do_what_they_say() {
    for policy in [
        CrashPolicy::AllApplied,
        CrashPolicy::NoneApplied,
        CrashPolicy::AllGarbage,
    ] {
        let (mut f, allowed) = scenario();
        let touched: Vec<PageAddr> = f.in_flight().map(|(p, _)| p).collect();
        let r = f.crash(policy, &mut Pcg64::seed_from_u64(5)).unwrap();
        assert_eq!(r.pages, touched.len());
        for p in &touched {
            let got = f.inner().page_image(*p).unwrap();
            let hist = &allowed[p];
            match policy {
                CrashPolicy::AllApplied => assert_eq!(&got, hist.last().unwrap()),
                CrashPolicy::NoneApplied => assert_eq!(got, hist[0]),
                _ => assert!(!hist.contains(&got), "{p} should be garbage"),
            }
        }
        match policy {
            CrashPolicy::AllApplied => assert_eq!(r.applied, r.pages),
            CrashPolicy::NoneApplied => assert_eq!(r.old, r.pages),
            _ => assert_eq!(r.torn, r.pages),
        }
    }
}

#[test]
fn random_policy_reaches_every_outcome_class_and_is_deterministic() {
    let mut totals = flash::CrashReport::default();
    for seed in 0..40 {
        let (mut f, _) = scenario();
        let r = f
            .crash(CrashPolicy::Random, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        totals.old += r.old;
        totals.intermediate += r.intermediate;
        totals.applied += r.applied;
        totals.torn += r.torn;
    }
    assert!(totals.old > 0, "{totals:?}");
    assert!(totals.intermediate > 0, "{totals:?}");
    assert!(totals.applied > 0, "{totals:?}");
    assert!(totals.torn > 0, "{totals:?}");
    let snapshot = |seed| {
        let (mut f, _) = scenario();
        let touched: Vec<PageAddr> = f.in_flight().map(|(p, _)| p).collect();
        f.crash(CrashPolicy::Random, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        touched
            .iter()
            .map(|p| f.inner().page_image(*p).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(snapshot(77), snapshot(77));
}

/// An independent model of a device under random commands: the durable
/// images (as of the last sync) and, per page touched since, the list of
/// images after each command.
struct Shadow {
    g: Geometry,
    durable: HashMap<PageAddr, PageImage>,
    history: HashMap<PageAddr, Vec<PageImage>>,
    next: HashMap<u32, u32>,
}

impl Shadow {
    fn current(&self, p: PageAddr) -> PageImage {
        self.history
            .get(&p)
            .and_then(|h| h.last().cloned())
            .or_else(|| self.durable.get(&p).cloned())
            .unwrap_or(PageImage::Erased)
    }
    fn push(&mut self, p: PageAddr, img: PageImage) {
        let cur = self.current(p);
        self.history.entry(p).or_insert_with(|| vec![cur]).push(img);
    }
    fn sync(&mut self) {
        for (p, h) in self.history.drain() {
            self.durable.insert(p, h.last().unwrap().clone());
        }
    }
}

#[test]
fn random_command_streams_never_leave_the_model_and_never_panic() {
    let g = Geometry::tiny();
    for seed in 0..60u64 {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut f = CrashFlash::new(MemFlash::new(g).unwrap());
        let mut s = Shadow {
            g,
            durable: HashMap::new(),
            history: HashMap::new(),
            next: HashMap::new(),
        };
        for _round in 0..6 {
            let steps = rng.gen_range(1..40);
            f.set_crash_at(rng.gen_range(0..steps + 5));
            for _ in 0..steps {
                let b = rng.gen_range(0..4u32);
                let r = match rng.gen_range(0..10) {
                    0..=5 => {
                        let p = *s.next.get(&b).unwrap_or(&0);
                        if p >= s.g.pages_per_block {
                            continue;
                        }
                        let byte = rng.gen();
                        let a = PageAddr::new(b, p);
                        let res = f.program(a, &page(&g, byte), &[byte]);
                        if res.is_ok() {
                            s.push(a, image(&g, byte, &[byte]));
                            s.next.insert(b, p + 1);
                        }
                        res
                    }
                    6 | 7 => {
                        let res = f.erase(BlockId(b));
                        if res.is_ok() {
                            for p in 0..g.pages_per_block {
                                s.push(PageAddr::new(b, p), PageImage::Erased);
                            }
                            s.next.insert(b, 0);
                        }
                        res
                    }
                    _ => {
                        let res = f.sync();
                        if res.is_ok() {
                            s.sync();
                        }
                        res
                    }
                };
                if let Err(e) = r {
                    assert!(e.is_power_loss(), "seed {seed}: {e}");
                    assert!(f.is_powered_off());
                }
            }
            let policy = CrashPolicy::ALL[rng.gen_range(0..4)];
            f.crash(policy, &mut rng).unwrap();
            // Check every page of the blocks used against the model.
            for b in 0..4 {
                let mut highest = None;
                for p in 0..g.pages_per_block {
                    let a = PageAddr::new(b, p);
                    let got = f.inner().page_image(a).unwrap();
                    match s.history.get(&a) {
                        None => assert_eq!(got, s.current(a), "seed {seed}: {a} changed"),
                        Some(h) => assert!(
                            h.contains(&got) || matches!(got, PageImage::Programmed { .. }),
                            "seed {seed}: {a} outside the model"
                        ),
                    }
                    if matches!(got, PageImage::Programmed { .. }) {
                        highest = Some(p);
                    }
                    s.durable.insert(a, got);
                }
                s.next.insert(b, highest.map_or(0, |p| p + 1));
            }
            s.history.clear();
        }
    }
}

#[test]
fn crash_on_a_large_lazily_allocated_device_rewrites_only_touched_pages() {
    // The paper geometry (8 GiB raw) allocates lazily; the crash must only
    // visit the two pages in flight (a walk over the device would allocate).
    let mut f = CrashFlash::new(MemFlash::new(Geometry::paper()).unwrap());
    let g = *f.geometry();
    f.program(PageAddr::new(4000, 0), &page(&g, 1), &[])
        .unwrap();
    f.sync().unwrap();
    f.program(PageAddr::new(4000, 1), &page(&g, 2), &[])
        .unwrap();
    f.program(PageAddr::new(17, 0), &page(&g, 3), &[]).unwrap();
    assert_eq!(f.in_flight_pages(), 2);
    let r = f
        .crash(CrashPolicy::NoneApplied, &mut Pcg64::seed_from_u64(0))
        .unwrap();
    assert_eq!((r.pages, r.old), (2, 2));
    assert_eq!(
        f.inner().page_image(PageAddr::new(4000, 0)).unwrap(),
        image(&g, 1, &[])
    );
    assert_eq!(
        f.inner().page_image(PageAddr::new(4000, 1)).unwrap(),
        PageImage::Erased
    );
    assert_eq!(
        f.inner().page_image(PageAddr::new(17, 0)).unwrap(),
        PageImage::Erased
    );
    // Block 4000 is programmable again from page 1.
    f.program(PageAddr::new(4000, 1), &page(&g, 4), &[])
        .unwrap();
}

#[test]
fn the_layer_hides_its_own_reads_from_the_counters() {
    let mut f = dev();
    let g = *f.geometry();
    f.program(PageAddr::new(1, 0), &page(&g, 1), &[1]).unwrap();
    f.sync().unwrap();
    let before = f.counters();
    // Recording the erase reads the programmed page's old image.
    f.erase(BlockId(1)).unwrap();
    let after = f.counters();
    assert_eq!(after.reads, before.reads);
    assert_eq!(after.bytes_read, before.bytes_read);
    assert_eq!(after.erases, before.erases + 1);
    // And the recorded old image is exact.
    f.crash(CrashPolicy::NoneApplied, &mut Pcg64::seed_from_u64(0))
        .unwrap();
    assert_eq!(
        f.inner().page_image(PageAddr::new(1, 0)).unwrap(),
        image(&g, 1, &[1])
    );
}

/// The crash checker deduplicates crash states by `page_digest`:
/// `MemFlash`'s in-place digest must equal the default (hash of the copied
/// image) and tell apart pages that differ in one data or OOB byte.
#[test]
fn page_digest_in_place_matches_the_image_and_sees_one_byte() {
    let g = Geometry::tiny();
    let mut m = MemFlash::new(g).unwrap();
    let (a, b, c) = (
        PageAddr::new(0, 0),
        PageAddr::new(0, 1),
        PageAddr::new(0, 2),
    );
    assert_eq!(m.page_digest(a).unwrap(), None);
    m.set_page_image(a, image(&g, 7, &[1, 2])).unwrap();
    m.set_page_image(b, image(&g, 7, &[1, 3])).unwrap();
    let mut d = page(&g, 7);
    d[g.page_size() - 1] = 8;
    m.set_page_image(
        c,
        PageImage::Programmed {
            data: d.into(),
            oob: vec![0xFF; g.oob_size as usize].into(),
        },
    )
    .unwrap();
    let mut seen = HashSet::new();
    for p in [a, b, c] {
        let got = m.page_digest(p).unwrap().expect("programmed");
        let PageImage::Programmed { data, oob } = m.page_image(p).unwrap() else {
            panic!("{p:?} reads erased");
        };
        assert_eq!(got, flash::page_digest(&data, &oob), "{p:?}");
        assert!(seen.insert(got), "{p:?} collides");
    }
    assert!(m.page_digest(PageAddr::new(99, 0)).is_err());
    // The digests are cached until a page's bytes change: a reprogram
    // after an erase, a raw image, and a fork's copy all see the new bytes.
    let before = m.page_digest(a).unwrap().unwrap();
    m.erase(a.block).unwrap();
    assert_eq!(m.page_digest(a).unwrap(), None);
    m.program(a, &page(&g, 9), &[5]).unwrap();
    let after = m.page_digest(a).unwrap().unwrap();
    assert_ne!(after, before);
    let now = |m: &MemFlash, p: PageAddr| match m.page_image(p).unwrap() {
        PageImage::Programmed { data, oob } => flash::page_digest(&data, &oob),
        PageImage::Erased => panic!("{p:?} reads erased"),
    };
    assert_eq!(after, now(&m, a));
    m.set_page_image(a, image(&g, 3, &[1])).unwrap();
    assert_eq!(m.page_digest(a).unwrap(), Some(now(&m, a)));
    assert_ne!(m.page_digest(a).unwrap(), Some(after));
    let mut fork = m.fork_copy();
    assert_eq!(fork.page_digest(a).unwrap(), m.page_digest(a).unwrap());
    fork.set_page_image(a, image(&g, 4, &[1])).unwrap();
    assert_eq!(fork.page_digest(a).unwrap(), Some(now(&fork, a)));
    assert_ne!(fork.page_digest(a).unwrap(), m.page_digest(a).unwrap());
}

/// Exhaustive checking forks crash states with `fork_copy`: it must give
/// the device `duplicate` onto a fresh `MemFlash` gives — pages, wear
/// records, battery-backed buffer, zero counters, the next programmable
/// page of every block, and the in-flight set (the same crash outcome).
#[test]
fn fork_copy_is_the_duplicate_onto_a_fresh_device() {
    let mut f = dev();
    let g = *f.geometry();
    for b in 0..4 {
        for p in 0..(b + 1) {
            f.program(
                PageAddr::new(b, p),
                &page(&g, (b * 8 + p) as u8),
                &[b as u8, p as u8],
            )
            .unwrap();
        }
    }
    f.sync().unwrap();
    f.erase(BlockId(2)).unwrap();
    f.mark_bad(BlockId(5)).unwrap();
    f.nvram_write(3, &[4, 5, 6]).unwrap();
    // In flight at the fork: a program and an erase after the last sync.
    f.program(PageAddr::new(3, 4), &page(&g, 77), &[]).unwrap();
    f.erase(BlockId(1)).unwrap();
    f.cut_power();
    let nv = f.nvram_size();
    let mut dup = f.duplicate(MemFlash::with_nvram(g, nv).unwrap()).unwrap();
    let mut fork = f.fork_copy();
    let same = |a: &CrashFlash<MemFlash>, b: &CrashFlash<MemFlash>, when: &str| {
        for i in 0..g.total_pages() {
            let p = g.page_at(i);
            assert_eq!(
                a.inner().page_image(p).unwrap(),
                b.inner().page_image(p).unwrap(),
                "{when}: {p:?}"
            );
        }
        for b2 in 0..g.total_blocks() {
            let blk = BlockId(b2);
            assert_eq!(
                a.inner().block_wear(blk).unwrap(),
                b.inner().block_wear(blk).unwrap(),
                "{when}: {blk:?}"
            );
        }
        assert_eq!(a.inner().counters(), b.inner().counters(), "{when}");
        assert_eq!(a.in_flight_pages(), b.in_flight_pages(), "{when}");
    };
    same(&dup, &fork, "forked");
    assert_eq!(fork.inner().counters(), flash::FlashCounters::default());
    let mut rng1 = Pcg64::seed_from_u64(9);
    let mut rng2 = Pcg64::seed_from_u64(9);
    dup.crash(CrashPolicy::Random, &mut rng1).unwrap();
    fork.crash(CrashPolicy::Random, &mut rng2).unwrap();
    same(&dup, &fork, "crashed");
    let (mut a, mut b) = (vec![0; nv], vec![0; nv]);
    dup.nvram_read(0, &mut a).unwrap();
    fork.nvram_read(0, &mut b).unwrap();
    assert_eq!(a, b);
    assert_eq!(&b[3..6], &[4, 5, 6]);
    // Each block's next programmable page: the page after its highest
    // programmed one on both (and no earlier page).
    for b2 in 0..4u32 {
        let next = (0..g.pages_per_block)
            .rposition(|p| {
                dup.inner().page_image(PageAddr::new(b2, p)).unwrap() != PageImage::Erased
            })
            .map_or(0, |p| p as u32 + 1);
        if next > 0 && next < g.pages_per_block {
            let early = PageAddr::new(b2, 0);
            assert!(dup.inner_mut().program(early, &page(&g, 1), &[]).is_err());
            assert!(fork.inner_mut().program(early, &page(&g, 1), &[]).is_err());
        }
        if next < g.pages_per_block {
            let at = PageAddr::new(b2, next);
            assert!(
                dup.inner_mut().program(at, &page(&g, 2), &[]).is_ok(),
                "{at:?}"
            );
            assert!(
                fork.inner_mut().program(at, &page(&g, 2), &[]).is_ok(),
                "{at:?}"
            );
        }
    }
}

/// A fork shares its block buffers with the device it was made from until
/// one side writes a block (copy on write): programs, erases and page
/// images on either side after the fork leave every page of the other as
/// it was, also through a fork of a fork and after the device reuses an
/// erased block's buffer.
#[test]
fn a_fork_and_its_device_do_not_see_each_others_writes() {
    let g = Geometry::tiny();
    let mut m = MemFlash::new(g).unwrap();
    for (b, p, byte) in [(0, 0, 1), (0, 1, 2), (1, 0, 3), (2, 0, 4)] {
        m.program(PageAddr::new(b, p), &page(&g, byte), &[byte])
            .unwrap();
    }
    let pages = |m: &MemFlash| -> Vec<PageImage> {
        (0..g.total_pages())
            .map(|i| m.page_image(g.page_at(i)).unwrap())
            .collect()
    };
    let at_fork = pages(&m);
    let mut fork = m.fork_copy();
    // The device writes: a program into a shared block, an erase of a
    // shared block and a reprogram of it, a page image.
    m.program(PageAddr::new(0, 2), &page(&g, 9), &[9]).unwrap();
    m.erase(BlockId(1)).unwrap();
    m.program(PageAddr::new(1, 0), &page(&g, 10), &[10])
        .unwrap();
    m.set_page_image(PageAddr::new(2, 1), image(&g, 11, &[11]))
        .unwrap();
    assert_eq!(
        pages(&fork),
        at_fork,
        "the device's writes reached its fork"
    );
    assert_ne!(pages(&m), at_fork);
    // The fork writes, and forks again.
    let device_now = pages(&m);
    fork.program(PageAddr::new(0, 2), &page(&g, 12), &[12])
        .unwrap();
    fork.erase(BlockId(2)).unwrap();
    let fork_now = pages(&fork);
    let mut second = fork.fork_copy();
    second
        .program(PageAddr::new(0, 3), &page(&g, 13), &[13])
        .unwrap();
    assert_eq!(pages(&m), device_now, "a fork's writes reached the device");
    assert_eq!(pages(&fork), fork_now, "a fork's fork wrote into it");
    assert_eq!(
        fork.page_image(PageAddr::new(0, 2)).unwrap(),
        image(&g, 12, &[12])
    );
    assert_eq!(
        m.page_image(PageAddr::new(0, 2)).unwrap(),
        image(&g, 9, &[9])
    );
}
