//! The shared-access read (`Flash::read_shared`) and the detached sync
//! (`Flash::start_sync`, `Flash::finish_sync`): the backends answer them
//! with what the exclusive forms give, a layer that changes reads or syncs
//! answers "not here" so it cannot be bypassed, and the layers that pass
//! them through unchanged forward them.

use flash::{
    CrashFlash, CrashPolicy, Flash, Geometry, MemFlash, OverlayFlash, PageAddr, PageRead,
    TimedFlash, TimingConfig,
};

/// One shared read of sectors of `page` from `first_sector` into `data` and
/// of its OOB prefix into `oob`.
fn read_one<F: Flash + ?Sized>(
    f: &F,
    page: PageAddr,
    first_sector: u32,
    data: &mut [u8],
    oob: &mut [u8],
) -> Option<flash::Result<()>> {
    f.read_shared(&mut [PageRead {
        page,
        first_sector,
        data,
        oob,
    }])
}

fn page_bytes(g: &Geometry, seed: u8) -> (Vec<u8>, Vec<u8>) {
    let data = (0..g.page_size()).map(|i| (i as u8) ^ seed).collect();
    let oob = (0..g.oob_size as usize)
        .map(|i| (i as u8) ^ seed ^ 0x33)
        .collect();
    (data, oob)
}

/// Reads sector 1 of `page` and a 10-byte OOB prefix both ways; returns
/// the shared answer's bytes when there is one.
fn both_ways<F: Flash>(f: &mut F, page: PageAddr) -> Option<(Vec<u8>, Vec<u8>)> {
    let ss = f.geometry().sector_size as usize;
    let (mut d1, mut o1) = (vec![0u8; ss], vec![0u8; 10]);
    f.read_with_oob(page, 1, &mut d1, &mut o1).unwrap();
    let (mut d2, mut o2) = (vec![0u8; ss], vec![0u8; 10]);
    let shared = read_one(f, page, 1, &mut d2, &mut o2)?;
    shared.unwrap();
    assert_eq!((&d1, &o1), (&d2, &o2), "the shared read differs");
    Some((d2, o2))
}

#[test]
fn backends_read_shared_as_they_read_exclusively() {
    let g = Geometry::tiny();
    let (data, oob) = page_bytes(&g, 7);
    let page = PageAddr::new(3, 0);
    let mut mem = MemFlash::new(g).unwrap();
    mem.program(page, &data, &oob).unwrap();
    let (d, _) = both_ways(&mut mem, page).expect("RAM reads shared");
    assert_eq!(d, data[g.sector_size as usize..2 * g.sector_size as usize]);
    // An erased page reads as erased either way.
    both_ways(&mut mem, PageAddr::new(3, 1)).expect("RAM reads shared");
    let before = mem.counters().reads;
    let mut buf = vec![0u8; g.sector_size as usize];
    read_one(&mem, page, 0, &mut buf, &mut []).unwrap().unwrap();
    assert_eq!(mem.counters().reads, before + 1, "a shared read is counted");
    // Out of range: an error, not a panic.
    let bad = PageAddr::new(g.total_blocks(), 0);
    assert!(read_one(&mem, bad, 0, &mut buf, &mut []).unwrap().is_err());
    let syncs = mem.counters().syncs;
    let mut t = mem.start_sync().expect("RAM syncs detached").unwrap();
    t.wait().unwrap();
    mem.finish_sync(&t).unwrap();
    assert_eq!(
        mem.counters().syncs,
        syncs + 1,
        "a detached sync is counted"
    );

    let dir = tempfile::tempdir().unwrap();
    let mut file = flash::FileFlash::create(dir.path().join("i.img"), g, false).unwrap();
    file.program(page, &data, &oob).unwrap();
    // The program is gathered: read from memory.
    both_ways(&mut file, page).expect("an image reads shared");
    let syncs = file.counters().syncs;
    // Starting a sync writes the gather out; the wait needs no device.
    let mut t = file.start_sync().expect("an image syncs detached").unwrap();
    both_ways(&mut file, page).expect("an image reads shared");
    let waiter = std::thread::spawn(move || {
        t.wait().unwrap();
        t
    });
    let t = waiter.join().unwrap();
    file.finish_sync(&t).unwrap();
    assert_eq!(file.counters().syncs, syncs + 1);
    drop(file);
    let mut back = flash::FileFlash::open(dir.path().join("i.img")).unwrap();
    let (mut d, mut o) = (vec![0u8; g.page_size()], vec![0u8; g.oob_size as usize]);
    back.read_with_oob(page, 0, &mut d, &mut o).unwrap();
    assert_eq!((d, o), (data, oob), "the program reached the file");
}

#[test]
fn a_detached_sync_makes_durable_exactly_the_commands_before_it() {
    let g = Geometry::tiny();
    let (a, a_oob) = page_bytes(&g, 1);
    let (b, b_oob) = page_bytes(&g, 2);
    let (pa, pb) = (PageAddr::new(4, 0), PageAddr::new(5, 0));
    let mut rng = rand_pcg::Pcg64::new(1, 1);
    let mut crash = CrashFlash::new(MemFlash::new(g).unwrap());
    crash.program(pa, &a, &a_oob).unwrap();
    let mut t = crash
        .start_sync()
        .expect("a crash layer syncs detached")
        .unwrap();
    // Issued while the sync runs: not covered by it.
    crash.program(pb, &b, &b_oob).unwrap();
    t.wait().unwrap();
    assert_eq!(
        crash.in_flight_pages(),
        2,
        "nothing is durable before finish"
    );
    crash.finish_sync(&t).unwrap();
    assert_eq!(
        crash.in_flight_pages(),
        1,
        "only the later program is in flight"
    );
    crash.cut_power();
    crash.crash(CrashPolicy::NoneApplied, &mut rng).unwrap();
    let (mut d, mut o) = (vec![0u8; g.page_size()], vec![0u8; g.oob_size as usize]);
    crash.read_with_oob(pa, 0, &mut d, &mut o).unwrap();
    assert_eq!(
        (&d, &o),
        (&a, &a_oob),
        "the program before the sync survives"
    );
    assert!(
        crash.probe_erased(pb).unwrap(),
        "the later program was lost"
    );

    // A power cut before finish_sync: the sync never completed.
    let mut crash = CrashFlash::new(MemFlash::new(g).unwrap());
    crash.program(pa, &a, &a_oob).unwrap();
    let t = crash.start_sync().unwrap().unwrap();
    crash.cut_power();
    assert!(crash.finish_sync(&t).unwrap_err().is_power_loss());
    crash.crash(CrashPolicy::NoneApplied, &mut rng).unwrap();
    assert!(
        crash.probe_erased(pa).unwrap(),
        "an unfinished sync made nothing durable"
    );
}

#[test]
fn layers_that_change_reads_answer_not_here_and_pass_through_layers_forward() {
    let g = Geometry::tiny();
    let (data, oob) = page_bytes(&g, 9);
    let page = PageAddr::new(2, 0);
    let mut mem = MemFlash::new(g).unwrap();
    mem.program(page, &data, &oob).unwrap();

    let mut timed = TimedFlash::new(mem, TimingConfig::for_geometry(&g));
    assert!(
        both_ways(&mut timed, page).is_none(),
        "timed reads are timed"
    );
    assert!(timed.start_sync().is_none(), "timed syncs are timed");

    let mut overlay = OverlayFlash::new(timed.into_inner());
    assert!(both_ways(&mut overlay, page).is_none());

    let mut boxed: Box<dyn Flash> = Box::new(MemFlash::new(g).unwrap());
    boxed.program(page, &data, &oob).unwrap();
    assert!(
        both_ways(&mut boxed, page).is_some(),
        "a box changes nothing"
    );

    let mut crash = CrashFlash::new(MemFlash::new(g).unwrap());
    crash.program(page, &data, &oob).unwrap();
    assert!(
        both_ways(&mut crash, page).is_some(),
        "reads are no crash points"
    );
    crash.cut_power();
    let mut buf = vec![0u8; g.sector_size as usize];
    let r = read_one(&crash, page, 0, &mut buf, &mut []).unwrap();
    assert!(
        r.unwrap_err().is_power_loss(),
        "no reads with the power off"
    );
}

/// A `tiny` image (in a temporary directory, returned to keep it) whose
/// slots `slots` hold `page_bytes(slot + 1)`, programmed and submitted.
fn tiny_image_with_slots(
    slots: impl IntoIterator<Item = u64>,
) -> (
    tempfile::TempDir,
    flash::FileFlash,
    flash::file::ImageLayout,
) {
    let g = Geometry::tiny();
    let layout = flash::file::ImageLayout::compute(&g, 4096).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut f = flash::FileFlash::create(dir.path().join("t.img"), g, false).unwrap();
    for s in slots {
        let (data, oob) = page_bytes(&g, s as u8 + 1);
        f.program(layout.page_of_slot(&g, s), &data, &oob).unwrap();
    }
    f.submit().unwrap();
    (dir, f, layout)
}

/// A batch of shared reads on an image: entries whose bytes follow one
/// another in the file are read together (one vectored read per extent),
/// and every entry gets exactly what its own `read_with_oob` gives —
/// across erased and gathered pages, partial pages and OOB prefixes of any
/// length — and is counted as one read.
#[test]
fn an_image_reads_a_batch_as_each_of_its_commands() {
    let g = Geometry::tiny();
    let ss = g.sector_size as usize;
    // Slots 0–5 programmed and submitted except slot 3 (erased); slot 6
    // programmed and still gathered.
    let (_dir, mut f, layout) = tiny_image_with_slots([0, 1, 2, 4, 5]);
    let slot = |s: u64| layout.page_of_slot(&g, s);
    let (data, oob) = page_bytes(&g, 7);
    f.program(slot(6), &data, &oob).unwrap();

    // (slot, first sector, sectors, OOB prefix bytes)
    let shape: [(u64, u32, usize, usize); 8] = [
        (0, 1, 1, 10),
        (1, 0, 2, 32),
        (2, 0, 2, 0),
        (3, 0, 2, 16),
        (4, 0, 1, 5),
        (5, 0, 2, 32),
        (6, 0, 2, 8),
        (2, 1, 1, 3),
    ];
    let mut want = Vec::new();
    for &(s, first, n, o) in &shape {
        let (mut d, mut b) = (vec![0u8; n * ss], vec![0u8; o]);
        f.read_with_oob(slot(s), first, &mut d, &mut b).unwrap();
        want.push((d, b));
    }
    let mut bufs: Vec<(Vec<u8>, Vec<u8>)> = shape
        .iter()
        .map(|&(_, _, n, o)| (vec![0x5Au8; n * ss], vec![0x5Au8; o]))
        .collect();
    let before = f.counters().reads;
    let mut reads: Vec<PageRead<'_>> = shape
        .iter()
        .zip(bufs.iter_mut())
        .map(|(&(s, first, _, _), (d, o))| PageRead {
            page: slot(s),
            first_sector: first,
            data: d,
            oob: o,
        })
        .collect();
    f.read_shared(&mut reads).unwrap().unwrap();
    drop(reads);
    assert_eq!(f.counters().reads, before + shape.len() as u64);
    for (k, (got, want)) in bufs.iter().zip(&want).enumerate() {
        assert_eq!(got, want, "entry {k} ({:?}) differs", shape[k]);
    }
    // Spot checks against what was programmed: the extent of slots 0–2
    // returned slot 1's bytes, the erased slot reads erased.
    assert_eq!(bufs[1].0, page_bytes(&g, 2).0);
    assert_eq!(bufs[1].1, page_bytes(&g, 2).1);
    assert!(bufs[3].0.iter().chain(&bufs[3].1).all(|&b| b == 0xFF));

    // One bad entry: an error for the batch, not a panic.
    let mut d = vec![0u8; ss];
    let mut bad = [
        PageRead {
            page: slot(0),
            first_sector: 0,
            data: &mut vec![0u8; ss],
            oob: &mut [],
        },
        PageRead {
            page: slot(1),
            first_sector: 2,
            data: &mut d,
            oob: &mut [],
        },
    ];
    assert!(f.read_shared(&mut bad).unwrap().is_err());
}

/// An extent of an image whose commands want no OOB after (or before)
/// one that wants some — a reader that knows some pages' checksums, as
/// SCFTL's shared reads do — gets each command its own bytes: the data
/// of all, the OOB prefix of those that asked (`scftl bench nbd` found the
/// commands after the last OOB reader sliced past the OOB buffer, a panic
/// that dropped the client's connection).
#[test]
fn an_image_extent_mixes_commands_with_and_without_oob() {
    let g = Geometry::tiny();
    let ss = g.sector_size as usize;
    let (_dir, f, layout) = tiny_image_with_slots(0..4);
    let slot = |s: u64| layout.page_of_slot(&g, s);
    let spp = g.sectors_per_page as usize;
    // (OOB prefix bytes of slots 0–3), each a whole-page data read.
    for oobs in [[4usize, 0, 0, 0], [0, 0, 0, 6], [0, 3, 0, 0], [0, 0, 0, 0]] {
        let mut bufs: Vec<(Vec<u8>, Vec<u8>)> = oobs
            .iter()
            .map(|&o| (vec![0x5Au8; spp * ss], vec![0x5Au8; o]))
            .collect();
        let mut reads: Vec<PageRead<'_>> = bufs
            .iter_mut()
            .enumerate()
            .map(|(s, (d, o))| PageRead {
                page: slot(s as u64),
                first_sector: 0,
                data: d,
                oob: o,
            })
            .collect();
        f.read_shared(&mut reads).unwrap().unwrap();
        drop(reads);
        for (s, (d, o)) in bufs.iter().enumerate() {
            let (data, oob) = page_bytes(&g, s as u8 + 1);
            assert_eq!(*d, data, "{oobs:?}: data of slot {s}");
            assert_eq!(o[..], oob[..o.len()], "{oobs:?}: OOB of slot {s}");
        }
    }
}

/// `ImageIo::read_exact_vectored_at` on a real file fills its parts with
/// the bytes `read_exact_at` gives for their concatenation, also with more
/// parts than one `preadv` takes, and fails at the end of the file.
#[test]
fn a_files_vectored_read_fills_its_parts_in_order() {
    use flash::file::ImageIo;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.bin");
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let sizes: Vec<usize> = (0..1500).map(|i| [0, 1, 17, 64, 100][i % 5]).collect();
    let mut parts: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![0u8; n]).collect();
    let mut refs: Vec<&mut [u8]> = parts.iter_mut().map(|p| p.as_mut_slice()).collect();
    file.read_exact_vectored_at(&mut refs, 333).unwrap();
    let total: usize = sizes.iter().sum();
    assert_eq!(parts.concat(), bytes[333..333 + total]);

    let mut tail = [vec![0u8; 10], vec![0u8; 10]];
    let mut refs: Vec<&mut [u8]> = tail.iter_mut().map(|p| p.as_mut_slice()).collect();
    let e = file
        .read_exact_vectored_at(&mut refs, bytes.len() as u64 - 15)
        .unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
}
