//! Images of older image formats keep working: version 1 (docs/FORMAT.md
//! §2: each page's OOB area right after its data, pages in dense order)
//! version 2 (OOB areas in their own region, pages in dense order) and
//! version 3 (pages in stripe order, no wear region). An
//! SCFTL image written through `scftl serve` is rewritten by hand into the
//! old layout, from the documented offsets, and then `scftl info` names its
//! format, `scftl serve` reads every chunk back, takes new writes and a
//! flush, and the image keeps its version afterwards. Skips (visibly) when
//! qemu-io is not installed.

mod common;

use std::os::unix::fs::FileExt;
use std::path::Path;

use common::*;
use flash::file::{ImageHeader, ImageLayout, HEADER_SIZE, IMAGE_VERSION};

const CHUNK: u64 = 64 << 10;
const CHUNKS: u64 = 8;

/// Rewrites the current-version image `from` as an image `to` of format
/// `version`: the same header fields, nvram, page states, pages and OOB
/// areas, each page moved from its slot in `from` to its slot in `to`.
fn to_version(from: &Path, to: &Path, version: u32) {
    let src = std::fs::File::open(from).unwrap();
    let mut h = vec![0u8; HEADER_SIZE];
    src.read_exact_at(&mut h, 0).unwrap();
    let len = src.metadata().unwrap().len();
    let hdr = ImageHeader::decode(&h, len, "from").unwrap();
    assert_eq!(hdr.version, IMAGE_VERSION);
    let (g, new) = (hdr.geometry, hdr.layout);
    let old = ImageLayout::compute_version(&g, new.nvram_size, version).unwrap();
    let header = ImageHeader {
        version,
        layout: old,
        ..hdr
    };
    let dst = std::fs::File::create(to).unwrap();
    dst.set_len(old.image_size).unwrap();
    dst.write_all_at(&header.encode()[..], 0).unwrap();
    let mut nvram = vec![0u8; new.nvram_size as usize];
    src.read_exact_at(&mut nvram, new.nvram_offset).unwrap();
    dst.write_all_at(&nvram, old.nvram_offset).unwrap();
    let mut states = vec![0u8; g.total_pages() as usize];
    src.read_exact_at(&mut states, new.state_offset).unwrap();
    let (ps, os) = (g.page_size() as u64, u64::from(g.oob_size));
    let mut data = vec![0u8; ps as usize];
    let mut oob = vec![0u8; os as usize];
    for (slot, &state) in states.iter().enumerate() {
        if state == 0 {
            continue;
        }
        let page = new.page_of_slot(&g, slot as u64);
        let to_slot = old.slot(&g, page);
        src.read_exact_at(&mut data, new.data_offset(slot as u64))
            .unwrap();
        src.read_exact_at(&mut oob, new.oob_at(slot as u64, ps, os))
            .unwrap();
        dst.write_all_at(&data, old.data_offset(to_slot)).unwrap();
        dst.write_all_at(&oob, old.oob_at(to_slot, ps, os)).unwrap();
        dst.write_all_at(&[state], old.state_offset + to_slot)
            .unwrap();
    }
    dst.sync_all().unwrap();
}

fn info(img: &Path) -> String {
    let out = scftl(&["info", img.to_str().unwrap()], img.parent().unwrap());
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes chunks through `scftl serve` into a new image, converts it to
/// format `version`, and serves the old image: `info` shows `described`,
/// every chunk reads back, new writes land and the version stays.
fn an_old_image_is_served_and_keeps_its_version(test: &str, version: u32, described: &str) {
    if !have("qemu-io", test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let new = format(
        dir.path(),
        "new.img",
        &["--size", "16MiB", "--geometry", "small"],
    );
    let text = info(&new);
    assert!(
        text.contains(&format!(
            "image format                        {IMAGE_VERSION} (page data block-aligned, OOB areas in their own region, pages in stripe order"
        )),
        "{text}"
    );
    let mut srv = ServerProc::start(&new, &[]);
    let mut cmds: Vec<String> = (0..CHUNKS)
        .map(|i| format!("write -P {:#x} {} {CHUNK}", 0x40 + i, i * CHUNK))
        .collect();
    cmds.push("flush".into());
    let out = qemu_io_output(&srv.uri(), &cmds);
    assert!(!out.contains("failed"), "{out}");
    assert!(srv.terminate().0.success());

    let img = dir.path().join("old.img");
    to_version(&new, &img, version);
    let text = info(&img);
    let shown = format!("image format                        {version} ({described}");
    assert!(text.contains(&shown), "{text}");
    // Served, it reads every chunk back and takes new writes.
    let mut srv = ServerProc::start(&img, &[]);
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
    // Reopened: the new data is there and the image keeps its version.
    assert!(info(&img).contains(&shown));
    let mut srv = ServerProc::start(&img, &[]);
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

#[test]
fn a_version_1_image_is_served_and_stays_version_1() {
    an_old_image_is_served_and_keeps_its_version(
        "a_version_1_image_is_served_and_stays_version_1",
        1,
        "each page's OOB after its data",
    );
}

#[test]
fn a_version_3_image_is_served_and_stays_version_3() {
    an_old_image_is_served_and_keeps_its_version(
        "a_version_3_image_is_served_and_stays_version_3",
        3,
        "page data block-aligned, OOB areas in their own region, pages in stripe order; erase counts are not kept",
    );
}

#[test]
fn a_version_2_image_is_served_and_stays_version_2() {
    an_old_image_is_served_and_keeps_its_version(
        "a_version_2_image_is_served_and_stays_version_2",
        2,
        "page data block-aligned, OOB areas in their own region, pages in dense order",
    );
}
