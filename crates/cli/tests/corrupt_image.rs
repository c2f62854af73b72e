//! Bit flips in a served image (issue 18, item 3): data written through
//! `scftl serve` with qemu-io, the server stopped, one bit flipped in a data
//! sector's payload, one in a data sector's OOB checksum and one page-state
//! byte cleared (a programmed page that now reads erased), found through
//! the image layout of docs/FORMAT.md §2. Served again, each damaged sector
//! reads as an I/O error (EIO) and every other sector as written. Skips
//! (visibly) when qemu-io is not installed.

mod common;

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

use common::*;

const CHUNK: u64 = 64 << 10;
const CHUNKS: u64 = 16;

/// Fill byte of 64 KiB chunk `i`.
fn fill(i: u64) -> u8 {
    0x40 + i as u8
}

/// The image's layout, from its header (docs/FORMAT.md §2).
type Layout = ImageLayout;

fn layout(f: &std::fs::File) -> Layout {
    let l = ImageLayout::read(f);
    // A new image has format version 4: data pages back to back, OOB
    // areas in their own region (after the wear region, which the header's
    // oob_offset accounts for), every region indexed by slot. The tests
    // below find pages by scanning slots, so the slot order (stripe order)
    // does not matter to them.
    assert_eq!(l.version, 4, "image format version");
    assert_eq!(
        l.page_stride,
        l.sector_size * l.sectors_per_page,
        "page_stride"
    );
    l
}

/// The first programmed slot whose page's sectors all hold chunk `i`'s
/// fill byte.
fn page_of_chunk(f: &std::fs::File, l: &Layout, i: u64) -> u64 {
    let page_size = (l.sector_size * l.sectors_per_page) as usize;
    let mut data = vec![0u8; page_size];
    for p in (0..l.total_pages).filter(|&p| l.programmed(f, p)) {
        f.read_exact_at(&mut data, l.pages_offset + p * l.page_stride)
            .unwrap();
        if data.iter().all(|&b| b == fill(i)) {
            return p;
        }
    }
    panic!("no data page of chunk {i} in the image");
}

/// Reads every sector of chunk `i` alone; returns how many failed with an
/// I/O error (the others must hold the chunk's fill byte).
fn failing_sectors(uri: &str, l: &Layout, i: u64) -> usize {
    let cmds: Vec<String> = (0..CHUNK / l.sector_size)
        .map(|s| {
            format!(
                "read -P {:#x} {} {}",
                fill(i),
                i * CHUNK + s * l.sector_size,
                l.sector_size
            )
        })
        .collect();
    let out = qemu_io_output(uri, &cmds);
    assert!(
        !out.contains("Pattern verification failed"),
        "chunk {i}: wrong data served:\n{out}"
    );
    let failed = out.matches("read failed: Input/output error").count();
    let ok = out.matches("read ").count() - failed;
    assert_eq!(failed + ok, cmds.len(), "chunk {i}:\n{out}");
    failed
}

#[test]
fn damaged_sectors_of_a_served_image_are_eio_and_the_rest_reads_back() {
    if !have(
        "qemu-io",
        "damaged_sectors_of_a_served_image_are_eio_and_the_rest_reads_back",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = format(
        dir.path(),
        "c.img",
        &["--size", "16MiB", "--geometry", "small"],
    );
    let mut srv = ServerProc::start(&img, &[]);
    let mut cmds: Vec<String> = (0..CHUNKS)
        .map(|i| format!("write -P {:#x} {} {CHUNK}", fill(i), i * CHUNK))
        .collect();
    cmds.push("flush".into());
    let out = qemu_io_output(&srv.uri(), &cmds);
    assert!(!out.contains("failed"), "{out}");
    let (status, _) = srv.terminate();
    assert!(status.success(), "server exit {status}");

    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&img)
        .unwrap();
    let l = layout(&f);
    let flip = |off: u64, mask: u8| {
        let mut b = [0u8; 1];
        f.read_exact_at(&mut b, off).unwrap();
        b[0] ^= mask;
        f.write_all_at(&b, off).unwrap();
    };
    // Chunk 3: one bit of the payload of the page's first sector.
    let p = page_of_chunk(&f, &l, 3);
    flip(l.pages_offset + p * l.page_stride + 100, 0x04);
    // Chunk 7: one bit of the OOB checksum of the page's first sector
    // (SCFTL data-page OOB, FORMAT.md §4.7: slot 0's CRC at OOB offset 0).
    let p = page_of_chunk(&f, &l, 7);
    flip(l.oob_offset + p * l.oob_size, 0x80);
    // Chunk 11: the page-state byte 0x01 becomes 0x00, so the whole page
    // reads erased (0xFF) and none of its sectors matches its checksum.
    let p = page_of_chunk(&f, &l, 11);
    flip(l.state_offset + p, 0x01);
    f.sync_all().unwrap();
    drop(f);

    let mut srv = ServerProc::start(&img, &[]);
    let uri = srv.uri();
    for i in 0..CHUNKS {
        let want = match i {
            3 | 7 => 1,
            11 => l.sectors_per_page as usize,
            _ => 0,
        };
        assert_eq!(failing_sectors(&uri, &l, i), want, "chunk {i}");
    }
    // The client sees EIO, and the server logged which sector is damaged.
    let (status, log) = srv.terminate();
    assert!(status.success(), "server exit {status}");
    assert!(
        log.iter()
            .any(|line| line.contains("logical sector") && line.contains("damaged")),
        "no damaged-sector line in the server log: {log:?}"
    );
}
