//! OPTR without power cuts: data survives a clean reopen, a request larger
//! than the maximum is refused and changes nothing, mutants of other FTLs
//! are refused, and a device filled to its logical size never refuses a
//! write for lack of space.

use flash::{Geometry, MemFlash};
use ftl::optr::{Optr, OptrConfig};
use ftl::{BlockDevice, FtlError, Lba, Mutant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[test]
fn data_survives_reopen_and_oversized_requests_are_refused() {
    let g = Geometry::small();
    let cfg = OptrConfig::default_for(&g);
    let mut d = Optr::format(MemFlash::new(g).unwrap(), cfg).unwrap();
    let ss = d.sector_size();
    let max = d.max_request_sectors();
    assert_eq!(BlockDevice::max_request_sectors(&d), Some(max));
    assert_eq!(d.epoch_remaining(), None);
    d.write(Lba(0), &vec![7u8; ss * 3]).unwrap();
    let e = d
        .write(Lba(0), &vec![9u8; ss * (max as usize + 1)])
        .unwrap_err();
    assert!(matches!(e, FtlError::BadArgument(_)), "{e}");
    assert!(e.to_string().contains("maximum request"), "{e}");
    d.trim(Lba(1), 1).unwrap();
    d.flush().unwrap();
    d.check_invariants().unwrap();
    let mut d = Optr::open(d.into_flash()).unwrap();
    d.check_invariants().unwrap();
    let mut buf = vec![0u8; ss * 3];
    d.read(Lba(0), &mut buf).unwrap();
    assert!(buf[..ss].iter().all(|&b| b == 7));
    assert!(buf[ss..2 * ss].iter().all(|&b| b == 0));
    assert!(buf[2 * ss..].iter().all(|&b| b == 7));
    assert_eq!(d.stats().valid_sectors, 2);
}

#[test]
fn mutants_of_other_ftls_are_refused() {
    let g = Geometry::tiny();
    let r = Optr::format_with_mutant(
        MemFlash::new(g).unwrap(),
        OptrConfig::default_for(&g),
        Mutant::SkipSyncBeforeCommit,
    );
    assert!(matches!(r, Err(FtlError::BadArgument(_))));
}

/// Random overwrites, trims, flushes and clean reopens on `cfg`, checked
/// against a model; every request must succeed.
fn never_out_of_space(g: Geometry, cfg: OptrConfig, seed: u64, requests: u32) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut d = Optr::format(MemFlash::new(g).unwrap(), cfg).unwrap();
    let ss = d.sector_size();
    let n = d.num_sectors();
    let max = d.max_request_sectors().min(n);
    let mut model = vec![0u8; n as usize];
    for i in 0..requests {
        let len = rng.gen_range(1..=max.min(8));
        let lba = rng.gen_range(0..=n - len);
        let at = |d: &Optr<MemFlash>| format!("seed {seed}, request {i}, {:?}", d.stats());
        match rng.gen_range(0..100) {
            0..=84 => {
                let tag = rng.gen_range(1..=255u8);
                d.write(Lba(lba), &vec![tag; ss * len as usize])
                    .unwrap_or_else(|e| panic!("write {lba}+{len}: {e} ({})", at(&d)));
                model[lba as usize..(lba + len) as usize].fill(tag);
            }
            85..=89 => {
                d.trim(Lba(lba), len)
                    .unwrap_or_else(|e| panic!("trim {lba}+{len}: {e} ({})", at(&d)));
                model[lba as usize..(lba + len) as usize].fill(0);
            }
            90..=98 => d.flush().unwrap(),
            _ => {
                d.flush().unwrap();
                d = Optr::open(d.into_flash()).unwrap();
            }
        }
    }
    d.check_invariants().unwrap();
    let mut buf = vec![0u8; ss];
    for (lpn, &tag) in model.iter().enumerate() {
        d.read(Lba(lpn as u64), &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == tag), "sector {lpn}");
    }
}

/// Regression (issue 12): on tiny, GC stopped after two batches of at most
/// two victims and the next write failed with "only 6 free segments after
/// GC, 7 needed". GC now runs until the headroom is free.
#[test]
fn a_full_device_never_refuses_a_write_for_space() {
    let g = Geometry::tiny();
    let mut full = OptrConfig::default_for(&g);
    full.logical_sectors = full.plan(&g).unwrap().max_logical_sectors();
    for seed in 0..3 {
        never_out_of_space(g, OptrConfig::default_for(&g), seed, 20_000);
        never_out_of_space(g, full.clone(), seed, 20_000);
    }
}
