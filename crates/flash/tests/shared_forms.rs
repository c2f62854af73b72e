//! The shared-access commands (`Flash::read_shared`, `Flash::sync_shared`):
//! the backends answer them with what the exclusive forms give, a layer
//! that changes reads answers "not here" so it cannot be bypassed, and the
//! layers that pass reads through unchanged forward them.

use flash::{
    CrashFlash, Flash, Geometry, MemFlash, OverlayFlash, PageAddr, TimedFlash, TimingConfig,
};

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
    let shared = f.read_shared(page, 1, &mut d2, &mut o2)?;
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
    mem.read_shared(page, 0, &mut buf, &mut [])
        .unwrap()
        .unwrap();
    assert_eq!(mem.counters().reads, before + 1, "a shared read is counted");
    // Out of range: an error, not a panic.
    let bad = PageAddr::new(g.total_blocks(), 0);
    assert!(mem.read_shared(bad, 0, &mut buf, &mut []).unwrap().is_err());
    assert!(mem.sync_shared().unwrap().is_ok());

    let dir = tempfile::tempdir().unwrap();
    let mut file = flash::FileFlash::create(dir.path().join("i.img"), g, false).unwrap();
    file.program(page, &data, &oob).unwrap();
    // The program is gathered: read from memory, and no shared sync yet.
    both_ways(&mut file, page).expect("an image reads shared");
    assert!(
        file.sync_shared().is_none(),
        "a gathered program needs submit first"
    );
    file.submit().unwrap();
    both_ways(&mut file, page).expect("an image reads shared");
    let syncs = file.counters().syncs;
    file.sync_shared().expect("an image syncs shared").unwrap();
    assert_eq!(file.counters().syncs, syncs + 1);
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
    assert!(timed.sync_shared().is_none());

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
    assert!(
        crash.sync_shared().is_none(),
        "a sync settles the in-flight set"
    );
    crash.cut_power();
    let mut buf = vec![0u8; g.sector_size as usize];
    let r = crash.read_shared(page, 0, &mut buf, &mut []).unwrap();
    assert!(
        r.unwrap_err().is_power_loss(),
        "no reads with the power off"
    );
}
