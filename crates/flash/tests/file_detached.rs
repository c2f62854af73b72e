//! Detached writes of an image's gathered programs (`Flash::detach_submits`,
//! `flash::file` `detached.rs`), and of its whole-page runs
//! (`program_many`): a submitted run is read from memory until
//! its detached write puts it in the file; a sync, an erase, a raw page
//! image and dropping the device write the runs no one wrote; a write that
//! runs after the device wrote the run writes nothing again.

use std::os::unix::fs::FileExt;
use std::path::Path;

use flash::{FileFlash, Flash, Geometry, PageAddr, PageImage, PageRead, RawFlash};

fn page(g: &Geometry, seed: u8) -> Vec<u8> {
    (0..g.page_size())
        .map(|i| (i as u8).wrapping_mul(13) ^ seed)
        .collect()
}

/// The data bytes the file itself holds for `p` (not what a read answers).
fn file_bytes(path: &Path, f: &FileFlash, p: PageAddr) -> Vec<u8> {
    let h = f.header();
    let at = h.layout.data_offset(h.layout.slot(&h.geometry, p));
    let mut buf = vec![0u8; h.geometry.page_size()];
    std::fs::File::open(path)
        .unwrap()
        .read_exact_at(&mut buf, at)
        .unwrap();
    buf
}

fn shared_read(f: &FileFlash, p: PageAddr) -> (Vec<u8>, Vec<u8>) {
    let g = *f.geometry();
    let mut data = vec![0u8; g.page_size()];
    let mut oob = vec![0u8; 4];
    f.read_shared(&mut [PageRead {
        page: p,
        first_sector: 0,
        data: &mut data,
        oob: &mut oob,
    }])
    .unwrap()
    .unwrap();
    (data, oob)
}

/// The `i`-th page of the run of consecutive slots from page 0 of block
/// 2 (page 0 of block 2 and of the same block of the next dies: the
/// programs a gather holds together).
fn run_page(f: &FileFlash, i: u32) -> PageAddr {
    let h = f.header();
    let first = h.layout.slot(&h.geometry, PageAddr::new(2, 0));
    h.layout.page_of_slot(&h.geometry, first + u64::from(i))
}

/// A device with detached writes on and `n` pages from page 0 of block 2
/// on programmed and submitted (one run, not yet written).
fn device_with_run(path: &Path, n: u32) -> FileFlash {
    let g = Geometry::tiny();
    let mut f = FileFlash::create(path, g, false).unwrap();
    assert!(f.detach_submits(), "a writable image detaches its writes");
    for i in 0..n {
        let p = run_page(&f, i);
        f.program(p, &page(&g, i as u8), &[i as u8, 7, 7, 7])
            .unwrap();
    }
    f.submit().unwrap();
    f
}

#[test]
fn a_submitted_run_is_read_from_memory_until_its_detached_write_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let mut f = device_with_run(&path, 3);
    let g = *f.geometry();
    for i in 0..3 {
        let p = run_page(&f, i);
        assert_ne!(
            file_bytes(&path, &f, p),
            page(&g, i as u8),
            "not written yet"
        );
        let (data, oob) = shared_read(&f, p);
        assert_eq!(data, page(&g, i as u8));
        assert_eq!(oob, [i as u8, 7, 7, 7]);
        let mut buf = vec![0u8; g.page_size()];
        f.read(p, 0, &mut buf).unwrap();
        assert_eq!(buf, page(&g, i as u8));
        assert!(matches!(
            f.page_image(p).unwrap(),
            PageImage::Programmed { .. }
        ));
    }
    let write = f.take_detached().expect("the submitted run");
    assert!(f.take_detached().is_none(), "taken once");
    // The write runs on another thread, with no access to the device.
    std::thread::spawn(move || write.run())
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(f.detached_runs_written(), 1);
    for i in 0..3 {
        let p = run_page(&f, i);
        assert_eq!(file_bytes(&path, &f, p), page(&g, i as u8), "in the file");
        assert_eq!(shared_read(&f, p).0, page(&g, i as u8));
    }
    drop(f);
    let mut f = FileFlash::open(&path).unwrap();
    let mut buf = vec![0u8; g.page_size()];
    f.read(run_page(&f, 2), 0, &mut buf).unwrap();
    assert_eq!(buf, page(&g, 2));
}

/// Whole-page runs (`program_many`, SCFTL's direct writes of whole-page
/// requests), which the image writes straight from the caller's buffers
/// when detached writes are off, are copied and handed over too, after the
/// gather before them, while another run is held (threads writing side by
/// side); with none held they are written at once.
#[test]
fn a_whole_page_run_is_handed_over_as_a_copy_while_another_run_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let g = Geometry::tiny();
    let mut f = FileFlash::create(&path, g, false).unwrap();
    assert!(f.detach_submits());
    // Another writer's run, held.
    let other = PageAddr::new(4, 0);
    f.program(other, &page(&g, 30), &[30]).unwrap();
    f.submit().unwrap();
    let others_write = f.take_detached().expect("the other run");
    let lone = PageAddr::new(5, 0);
    f.program(lone, &page(&g, 40), &[40]).unwrap();
    let pages: Vec<PageAddr> = (0..3).map(|i| run_page(&f, i)).collect();
    let mut data: Vec<u8> = (0..3).flat_map(|i| page(&g, 50 + i)).collect();
    let oob = [50u8, 1, 51, 1, 52, 1];
    f.program_many(&pages, &data, &oob).unwrap();
    // The caller's buffer is its own again: the device kept a copy.
    data.fill(0);
    for (i, &p) in pages.iter().enumerate() {
        assert_ne!(
            file_bytes(&path, &f, p),
            page(&g, 50 + i as u8),
            "not written yet"
        );
        let (d, o) = shared_read(&f, p);
        assert_eq!(d, page(&g, 50 + i as u8));
        assert_eq!(o[..2], [50 + i as u8, 1]);
    }
    assert_ne!(
        file_bytes(&path, &f, lone),
        page(&g, 40),
        "the gather was handed over too"
    );
    assert_eq!(shared_read(&f, lone).0, page(&g, 40));
    let write = f.take_detached().expect("both runs");
    std::thread::spawn(move || write.run())
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(
        f.detached_runs_written(),
        2,
        "the gather's run and the whole-page run"
    );
    assert_eq!(file_bytes(&path, &f, lone), page(&g, 40));
    for (i, &p) in pages.iter().enumerate() {
        assert_eq!(file_bytes(&path, &f, p), page(&g, 50 + i as u8));
    }
    others_write.run().unwrap();
    assert_eq!(file_bytes(&path, &f, other), page(&g, 30));
    // No run held now: the next whole-page run is written at once.
    let later: Vec<PageAddr> = (3..5).map(|i| run_page(&f, i)).collect();
    let data: Vec<u8> = (0..2).flat_map(|i| page(&g, 60 + i)).collect();
    f.program_many(&later, &data, &[60, 61]).unwrap();
    assert_eq!(
        file_bytes(&path, &f, later[1]),
        page(&g, 61),
        "written at once"
    );
    assert!(f.take_detached().is_none());
    drop(f);
    let mut f = FileFlash::open(&path).unwrap();
    let mut buf = vec![0u8; g.page_size()];
    f.read(pages[2], 0, &mut buf).unwrap();
    assert_eq!(buf, page(&g, 52));
}

#[test]
fn a_sync_writes_the_runs_no_one_wrote_and_a_late_write_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let mut f = device_with_run(&path, 2);
    let g = *f.geometry();
    let late = f.take_detached().expect("the submitted run");
    f.sync().unwrap();
    assert_eq!(file_bytes(&path, &f, run_page(&f, 1)), page(&g, 1));
    late.run().unwrap();
    assert_eq!(f.detached_runs_written(), 0, "the sync wrote it");
    // The same through the detached sync.
    let p = run_page(&f, 2);
    f.program(p, &page(&g, 9), &[1]).unwrap();
    f.submit().unwrap();
    assert_ne!(file_bytes(&path, &f, p), page(&g, 9));
    let ticket = f.start_sync().unwrap().unwrap();
    assert_eq!(file_bytes(&path, &f, p), page(&g, 9));
    drop(ticket);
    assert!(f.take_detached().is_none(), "the sync took the run's write");
}

#[test]
fn an_erase_a_page_image_and_a_drop_write_the_runs_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let g = Geometry::tiny();
    // An erase of the run's first block: the run is written, then the
    // block erased; the run's other pages stay programmed.
    let mut f = device_with_run(&path, 2);
    let (p0, p1) = (run_page(&f, 0), run_page(&f, 1));
    assert_ne!(file_bytes(&path, &f, p1), page(&g, 1));
    f.erase(p0.block).unwrap();
    assert!(f.take_detached().is_none());
    assert!(f.is_erased(p0).unwrap());
    assert_eq!(file_bytes(&path, &f, p1), page(&g, 1));
    f.program(p0, &page(&g, 5), &[5]).unwrap();
    f.submit().unwrap();
    assert_ne!(file_bytes(&path, &f, p0), page(&g, 5));
    // A raw page image of another page writes the run first.
    f.set_page_image(PageAddr::new(3, 0), PageImage::Erased)
        .unwrap();
    assert_eq!(file_bytes(&path, &f, p0), page(&g, 5));
    // Dropping the device writes what is left, even with its write unrun.
    let p2 = run_page(&f, 2);
    f.program(p2, &page(&g, 6), &[6]).unwrap();
    f.submit().unwrap();
    assert_ne!(file_bytes(&path, &f, p2), page(&g, 6));
    let unrun = f.take_detached().unwrap();
    drop(f);
    drop(unrun);
    let mut f = FileFlash::open(&path).unwrap();
    let mut buf = vec![0u8; g.page_size()];
    for (p, seed) in [(p0, 5), (p1, 1), (p2, 6)] {
        f.read(p, 0, &mut buf).unwrap();
        assert_eq!(buf, page(&g, seed), "{p:?}");
    }
}

#[test]
fn without_detached_writes_a_submit_writes_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let g = Geometry::tiny();
    let mut f = FileFlash::create(&path, g, false).unwrap();
    f.program(PageAddr::new(1, 0), &page(&g, 3), &[3]).unwrap();
    f.submit().unwrap();
    assert_eq!(file_bytes(&path, &f, PageAddr::new(1, 0)), page(&g, 3));
    assert!(f.take_detached().is_none());
    drop(f);
    let mut ro = FileFlash::open_read_only(&path).unwrap();
    assert!(!ro.detach_submits(), "a read-only image writes nothing");
}

#[test]
fn a_boxed_image_detaches_as_the_server_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let g = Geometry::tiny();
    let image = FileFlash::create(&path, g, false).unwrap();
    let p = PageAddr::new(2, 0);
    let mut b: Box<dyn Flash + Send + Sync> = Box::new(image);
    assert!(b.detach_submits());
    b.program(p, &page(&g, 4), &[4]).unwrap();
    b.submit().unwrap();
    let write = b.take_detached().expect("forwarded through the box");
    write.run().unwrap();
    let mut buf = vec![0u8; g.page_size()];
    b.read(p, 0, &mut buf).unwrap();
    assert_eq!(buf, page(&g, 4));
}
