//! Hot/cold separation (issue 14; configuration version 8, docs/FORMAT.md
//! §4.6, `scftl/streams.rs`): with two write streams, GC relocations fill
//! their own active superblock, never the host's; the device keeps its
//! contract across reopens; one-stream configurations are unchanged.
//! (Crash safety is the crash checker's: `scftl crashtest --hot-cold`.)

use flash::PageAddr;
use flash::{Flash, Geometry, MemFlash};
use ftl::scftl::format::{data_la_offset, data_oob_len_v5};
use ftl::scftl::{Sb, Scftl, ScftlConfig};
use ftl::{BlockDevice, Lba};

fn sector(la: u64, v: u32, ss: usize) -> Vec<u8> {
    let mut b = vec![(la as u8) ^ (v as u8); ss];
    b[..8].copy_from_slice(&la.to_le_bytes());
    b[8..12].copy_from_slice(&v.to_le_bytes());
    b
}

fn check_all(d: &mut Scftl<MemFlash>, model: &[u32]) {
    let ss = d.sector_size();
    let mut buf = vec![0u8; ss];
    for (la, &v) in model.iter().enumerate() {
        d.read(Lba(la as u64), &mut buf).unwrap();
        let want = if v == 0 {
            vec![0u8; ss]
        } else {
            sector(la as u64, v, ss)
        };
        assert!(buf == want, "sector {la}: version {v} expected");
    }
}

/// The sectors in the programmed pages of `sb`: each one's logical sector
/// record and the version its data carries (`sector`). (A superblock is
/// erase block `sb` of every die; its page `j` is page `j / dies` of die
/// `j % dies`, docs/FORMAT.md §4.1.)
fn sectors_in(flash: &mut MemFlash, sb: Sb) -> Vec<(u32, u32)> {
    let g = *flash.geometry();
    let dies = g.dies();
    let ss = g.sector_size as usize;
    let mut oob = vec![0u8; data_oob_len_v5(g.sectors_per_page)];
    let mut data = vec![0u8; ss];
    let mut out = Vec::new();
    for j in 0..dies * g.pages_per_block {
        let page = PageAddr {
            block: g.block_on_die(j % dies, sb.0),
            page: j / dies,
        };
        if flash.probe_erased(page).unwrap() {
            break;
        }
        flash.read_oob(page, &mut oob).unwrap();
        for slot in 0..g.sectors_per_page {
            let at = data_la_offset(g.sectors_per_page, slot);
            let la = u32::from_le_bytes(oob[at..at + 4].try_into().unwrap());
            if la != u32::MAX {
                flash.read(page, slot, &mut data).unwrap();
                let v = u32::from_le_bytes(data[8..12].try_into().unwrap());
                out.push((la, v));
            }
        }
    }
    out
}

/// Fills every sector, trims seven of every eight of all but the first
/// `hot` (so GC has cold sectors left to relocate too), then writes only
/// hot sectors, one per write and a flush every 16, for `4 * L` writes.
/// Every write's data carries its index among all writes (its version).
/// When the host stream moves to another superblock, the one it leaves
/// (intact then) is read back and `closed` gets the index of the write that
/// opened it and its sectors: a sector older than that was not written by
/// the host there, GC relocated it. Returns the device, its model and how
/// many superblocks `closed` saw.
fn fill_then_hot(
    cfg: &ScftlConfig,
    hot: u64,
    mut closed: impl FnMut(u32, &[(u32, u32)]),
) -> (Scftl<MemFlash>, Vec<u32>, u32) {
    let g = Geometry::small();
    let mut d = Scftl::format(MemFlash::new(g).unwrap(), cfg.clone()).unwrap();
    let l = cfg.logical_sectors;
    let ss = d.sector_size();
    let mut model = vec![0u32; l as usize];
    let mut t = 0u32;
    for la in 0..l {
        t += 1;
        d.write(Lba(la), &sector(la, t, ss)).unwrap();
        model[la as usize] = t;
        if (la + 1) % 16 == 0 {
            d.flush().unwrap();
        }
    }
    d.flush().unwrap();
    for (k, la) in (hot..l)
        .filter(|la| !(la - hot).is_multiple_of(8))
        .enumerate()
    {
        d.trim(Lba(la), 1).unwrap();
        model[la as usize] = 0;
        if k % 16 == 15 {
            d.flush().unwrap();
        }
    }
    d.flush().unwrap();
    let start = d.stats().gc_sectors_relocated;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    // The host's superblock and the write that opened it (the fill's
    // last one is not looked at).
    let mut host = (d.stream_superblocks().0, None);
    let mut seen = 0;
    for i in 1..=4 * l {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let la = x % hot;
        t += 1;
        d.write(Lba(la), &sector(la, t, ss)).unwrap();
        model[la as usize] = t;
        let now = d.stream_superblocks().0;
        if now != host.0 {
            if let (Some(sb), Some(opened)) = host {
                closed(opened, &sectors_in(d.flash_mut(), sb));
                seen += 1;
            }
            host = (now, Some(t));
        }
        if i.is_multiple_of(16) {
            d.flush().unwrap();
            d.check_invariants().unwrap();
        }
    }
    assert!(
        d.stats().gc_sectors_relocated > start,
        "GC never ran: {:?}",
        d.stats()
    );
    d.flush().unwrap();
    (d, model, seen)
}

#[test]
fn relocations_never_share_the_host_stream_superblock() {
    let g = Geometry::small();
    let cfg = ScftlConfig::with_gc_streams(&g, 2).unwrap();
    assert_eq!(cfg.gc_streams, 2);
    cfg.validate(&g).unwrap();
    let hot = cfg.logical_sectors / 8;
    let (d, model, seen) = fill_then_hot(&cfg, hot, |opened, sectors| {
        assert!(!sectors.is_empty());
        let old: Vec<_> = sectors.iter().filter(|&&(_, v)| v < opened).collect();
        assert!(
            old.is_empty(),
            "sectors written before write {opened} opened the host superblock (relocated) in it: {old:?}"
        );
    });
    assert!(seen >= 4, "only {seen} host superblocks filled");
    // The cold stream's superblock holds relocated sectors, cold ones
    // (from the fill) among them.
    let (host, cold) = d.stream_superblocks();
    assert_ne!(host, cold);
    let mut flash = d.into_flash();
    let cold_sectors = sectors_in(&mut flash, cold.unwrap());
    assert!(
        cold_sectors.iter().any(|&(la, _)| u64::from(la) >= hot),
        "no cold sector in the cold stream's superblock: {cold_sectors:?}"
    );
    let mut d = Scftl::open(flash).unwrap();
    check_all(&mut d, &model);
    d.check_invariants().unwrap();
}

#[test]
fn one_stream_mixes_relocations_into_the_host_superblock() {
    // The control: the same workload with one stream puts relocated
    // sectors next to host writes (what the test above rules out).
    let g = Geometry::small();
    let cfg = ScftlConfig::with_gc_streams(&g, 2).unwrap();
    let one = ScftlConfig {
        gc_streams: 1,
        ..cfg.clone()
    };
    one.validate(&g).unwrap();
    let hot = one.logical_sectors / 8;
    let mut mixed = 0;
    let (d, model, _) = fill_then_hot(&one, hot, |opened, sectors| {
        mixed += u32::from(sectors.iter().any(|&(_, v)| v < opened));
    });
    assert!(mixed > 0, "no host superblock took a relocated sector");
    let (host, cold) = d.stream_superblocks();
    assert_eq!(host, cold, "one stream");
    let mut d = Scftl::open(d.into_flash()).unwrap();
    check_all(&mut d, &model);
}

#[test]
fn two_streams_keep_data_across_reopens_and_trims() {
    let g = Geometry::small();
    let cfg = ScftlConfig::with_gc_streams(&g, 2).unwrap();
    let mut d = Scftl::format(MemFlash::new(g).unwrap(), cfg.clone()).unwrap();
    let l = cfg.logical_sectors;
    let ss = d.sector_size();
    let mut model = vec![0u32; l as usize];
    let mut x = 7u64;
    let mut relocated = 0;
    for round in 0..40 {
        for i in 0..500u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let la = if i % 5 == 0 { x % l } else { x % (l / 5) };
            if i % 37 == 0 {
                d.trim(Lba(la), 1).unwrap();
                model[la as usize] = 0;
            } else {
                let v = model[la as usize] + 1 + round;
                d.write(Lba(la), &sector(la, v, ss)).unwrap();
                model[la as usize] = v;
            }
            if i % 50 == 49 {
                d.flush().unwrap();
            }
            // Reads see sectors still in either merge buffer.
            if i % 23 == 0 {
                let mut buf = vec![0u8; ss];
                d.read(Lba(la), &mut buf).unwrap();
                let v = model[la as usize];
                let want = if v == 0 {
                    vec![0; ss]
                } else {
                    sector(la, v, ss)
                };
                assert!(buf == want, "sector {la} before the flush");
            }
        }
        d.flush().unwrap();
        d.check_invariants().unwrap();
        if round % 10 == 9 {
            relocated += d.stats().gc_sectors_relocated;
            d = Scftl::open(d.into_flash()).unwrap();
            check_all(&mut d, &model);
            d.check_invariants().unwrap();
        }
    }
    assert!(relocated > 0, "GC never ran");
}

#[test]
fn presets_that_afford_two_streams_get_them_by_default() {
    for (name, want) in [("tiny", 1), ("small", 1), ("medium", 2), ("paper", 2)] {
        let g = Geometry::preset(name).unwrap();
        let c = ScftlConfig::default_for(&g);
        assert_eq!(c.gc_streams, want, "{name}: {c:?}");
        c.validate(&g).unwrap();
        let two = ScftlConfig::with_gc_streams(&g, 2).unwrap();
        assert_eq!(two.gc_streams, 2);
        two.validate(&g).unwrap();
        assert!(two.logical_sectors <= c.logical_sectors);
    }
}
