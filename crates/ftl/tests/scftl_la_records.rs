//! Logical sector records in the data OOB (docs/FORMAT.md §4.7,
//! configuration version 5): every data sector a version-5 image programs
//! names its logical sector in its page's OOB, and GC relocates by them;
//! images of configuration version 4 still open, keep their version, get no
//! records, and relocate correctly through the P2L they keep.

use crate::common;

use flash::{Flash, Geometry, MemFlash, PageAddr, PageImage, RawFlash};
use ftl::scftl::format::{data_la_offset, data_oob_len_v5};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{label, BlockDevice, Lba};

fn pattern(la: u64, ver: u32, ss: usize) -> Vec<u8> {
    let mut v = vec![(la as u8) ^ (ver as u8).wrapping_mul(7) | 1; ss];
    v[..8].copy_from_slice(&la.to_le_bytes());
    v[8..12].copy_from_slice(&ver.to_le_bytes());
    v
}

/// Writes `rounds` passes of seeded random overwrites (flushing when the
/// epoch is full and every 50 writes), checking invariants at each flush;
/// returns the model of versions.
fn churn(d: &mut Scftl<MemFlash>, model: &mut [u32], rounds: u32) {
    let ss = d.sector_size();
    let n = model.len() as u64;
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for ver in 2..2 + rounds {
        for i in 0..n {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let la = (rng >> 33) % n;
            if d.epoch_remaining() == Some(0) || i % 50 == 0 {
                d.flush().unwrap();
                d.check_invariants().unwrap();
            }
            d.write(Lba(la), &pattern(la, ver, ss)).unwrap();
            model[la as usize] = ver;
        }
    }
    d.flush().unwrap();
    d.check_invariants().unwrap();
}

fn fill(d: &mut Scftl<MemFlash>) -> Vec<u32> {
    let ss = d.sector_size();
    let n = d.num_sectors();
    for la in 0..n {
        if d.epoch_remaining() == Some(0) {
            d.flush().unwrap();
        }
        d.write(Lba(la), &pattern(la, 1, ss)).unwrap();
    }
    d.flush().unwrap();
    vec![1; n as usize]
}

fn check(d: &mut Scftl<MemFlash>, model: &[u32]) {
    let ss = d.sector_size();
    let mut buf = vec![0u8; ss];
    for (la, &ver) in model.iter().enumerate() {
        d.read(Lba(la as u64), &mut buf).unwrap();
        assert!(buf == pattern(la as u64, ver, ss), "sector {la} v{ver}");
    }
}

/// Every programmed data page's slots, as (slot data, OOB record bytes).
fn data_page_records(flash: &mut MemFlash, ss: usize) -> Vec<(Vec<u8>, [u8; 4])> {
    let g = *flash.geometry();
    let spp = g.sectors_per_page;
    let mut out = Vec::new();
    for b in 0..g.total_blocks() {
        for p in 0..g.pages_per_block {
            if let PageImage::Programmed { data, oob } =
                flash.page_image(PageAddr::new(b, p)).unwrap()
            {
                for slot in 0..spp {
                    let at = data_la_offset(spp, slot);
                    let rec: [u8; 4] = oob[at..at + 4].try_into().unwrap();
                    out.push((
                        data[slot as usize * ss..(slot as usize + 1) * ss].to_vec(),
                        rec,
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn version_5_data_sectors_name_their_logical_sector_and_gc_relocates_by_them() {
    let g = Geometry::tiny();
    assert!(g.oob_size as usize >= data_oob_len_v5(g.sectors_per_page));
    let mut d = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let ss = d.sector_size();
    let mut model = fill(&mut d);
    churn(&mut d, &mut model, 6);
    let st = d.stats();
    assert!(st.gc_sectors_relocated > 0, "GC ran: {st:?}");
    assert_eq!(st.gc_la_searches, 0, "healthy flash needs no search");
    check(&mut d, &model);
    let mut flash = d.into_flash();
    // Every slot holding one of our patterns names its logical sector.
    let mut named = 0;
    for (data, rec) in data_page_records(&mut flash, ss) {
        let la = u64::from_le_bytes(data[..8].try_into().unwrap());
        if data == pattern(la, u32::from_le_bytes(data[8..12].try_into().unwrap()), ss) {
            assert_eq!(
                rec,
                (la as u32).to_le_bytes(),
                "record of a copy of sector {la}"
            );
            named += 1;
        }
    }
    assert!(named as u64 >= model.len() as u64);
    let mut d = Scftl::open(flash).unwrap();
    check(&mut d, &model);
    d.check_invariants().unwrap();
}

#[test]
fn version_4_images_open_keep_their_version_and_gc_without_records() {
    let g = Geometry::tiny();
    let d = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
    let mut flash = d.into_flash();
    assert_eq!(
        common::relabel_scftl_version(&mut flash, 4),
        ftl::scftl::config::CONFIG_VERSION
    );
    let mut d = Scftl::open(flash).unwrap();
    let ss = d.sector_size();
    let mut model = fill(&mut d);
    churn(&mut d, &mut model, 6);
    assert!(d.stats().gc_sectors_relocated > 0);
    check(&mut d, &model);
    let mut flash = d.into_flash();
    let (_, config) = label::read_label(&mut flash).unwrap();
    assert_eq!(config[..4], 4u32.to_le_bytes(), "the image stays version 4");
    for (_, rec) in data_page_records(&mut flash, ss) {
        assert_eq!(
            rec, [0xFF; 4],
            "no logical sector record in a version-4 image"
        );
    }
    let mut d = Scftl::open(flash).unwrap();
    check(&mut d, &model);
    d.check_invariants().unwrap();
}
