//! Images of image format version 1 (docs/FORMAT.md §2: each page's OOB
//! area right after its data) keep working: an SCFTL image written through
//! `scftl serve` is rewritten by hand into the version-1 layout, from the
//! documented offsets, and then `scftl info` names its format, `scftl
//! serve` reads every chunk back, takes new writes and a flush, and the
//! image is still version 1 afterwards. Skips (visibly) when qemu-io is not
//! installed.

mod common;

use std::os::unix::fs::FileExt;
use std::path::Path;

use common::*;
use flash::file::{ImageHeader, ImageLayout, HEADER_SIZE};

const CHUNK: u64 = 64 << 10;
const CHUNKS: u64 = 8;

/// Rewrites the version-2 image `from` as a version-1 image `to`: the same
/// header fields, nvram, page states and pages, with each OOB area moved
/// next to its page's data.
fn to_version_1(from: &Path, to: &Path) {
    let src = std::fs::File::open(from).unwrap();
    let mut h = vec![0u8; HEADER_SIZE];
    src.read_exact_at(&mut h, 0).unwrap();
    let len = src.metadata().unwrap().len();
    let hdr = ImageHeader::decode(&h, len, "from").unwrap();
    assert_eq!(hdr.version, 2);
    let (g, l2) = (hdr.geometry, hdr.layout);
    let l1 = ImageLayout::compute_version(&g, l2.nvram_size, 1).unwrap();
    let old = ImageHeader {
        version: 1,
        layout: l1,
        ..hdr
    };
    let dst = std::fs::File::create(to).unwrap();
    dst.set_len(l1.image_size).unwrap();
    dst.write_all_at(&old.encode()[..], 0).unwrap();
    let mut nvram = vec![0u8; l2.nvram_size as usize];
    src.read_exact_at(&mut nvram, l2.nvram_offset).unwrap();
    dst.write_all_at(&nvram, l1.nvram_offset).unwrap();
    let mut states = vec![0u8; g.total_pages() as usize];
    src.read_exact_at(&mut states, l2.state_offset).unwrap();
    dst.write_all_at(&states, l1.state_offset).unwrap();
    let (ps, os) = (g.page_size() as u64, u64::from(g.oob_size));
    let mut page = vec![0u8; (ps + os) as usize];
    for (i, &state) in states.iter().enumerate() {
        if state == 0 {
            continue;
        }
        let i = i as u64;
        src.read_exact_at(&mut page[..ps as usize], l2.pages_offset + i * ps)
            .unwrap();
        src.read_exact_at(&mut page[ps as usize..], l2.oob_offset + i * os)
            .unwrap();
        dst.write_all_at(&page, l1.pages_offset + i * (ps + os))
            .unwrap();
    }
    dst.sync_all().unwrap();
}

fn info(img: &Path) -> String {
    let out = scftl(&["info", img.to_str().unwrap()], img.parent().unwrap());
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_version_1_image_is_served_and_stays_version_1() {
    if !have("qemu-io", "a_version_1_image_is_served_and_stays_version_1") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img2 = format(
        dir.path(),
        "new.img",
        &["--size", "16MiB", "--geometry", "small"],
    );
    assert!(info(&img2).contains("image format                        2 (page data block-aligned"));
    let mut srv = ServerProc::start(&img2, &[]);
    let mut cmds: Vec<String> = (0..CHUNKS)
        .map(|i| format!("write -P {:#x} {} {CHUNK}", 0x40 + i, i * CHUNK))
        .collect();
    cmds.push("flush".into());
    let out = qemu_io_output(&srv.uri(), &cmds);
    assert!(!out.contains("failed"), "{out}");
    assert!(srv.terminate().0.success());

    let img1 = dir.path().join("old.img");
    to_version_1(&img2, &img1);
    let text = info(&img1);
    assert!(
        text.contains("image format                        1 (each page's OOB after its data"),
        "{text}"
    );
    // Served, it reads every chunk back and takes new writes.
    let mut srv = ServerProc::start(&img1, &[]);
    let mut cmds: Vec<String> = (0..CHUNKS)
        .map(|i| format!("read -P {:#x} {} {CHUNK}", 0x40 + i, i * CHUNK))
        .collect();
    cmds.push(format!("write -P 0x77 {} {CHUNK}", 2 * CHUNK));
    cmds.push("flush".into());
    let out = qemu_io_output(&srv.uri(), &cmds);
    assert!(
        !out.contains("failed") && !out.contains("Pattern verification"),
        "{out}"
    );
    assert!(srv.terminate().0.success());
    // Reopened: the new data is there and the image is still version 1.
    assert!(info(&img1).contains("image format                        1 ("));
    let mut srv = ServerProc::start(&img1, &[]);
    let cmds: Vec<String> = (0..CHUNKS)
        .map(|i| {
            let p = if i == 2 { 0x77 } else { 0x40 + i };
            format!("read -P {p:#x} {} {CHUNK}", i * CHUNK)
        })
        .collect();
    let out = qemu_io_output(&srv.uri(), &cmds);
    assert!(
        !out.contains("failed") && !out.contains("Pattern verification"),
        "{out}"
    );
    assert!(srv.terminate().0.success());
}
