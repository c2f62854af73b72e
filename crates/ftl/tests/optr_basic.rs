//! OPTR without power cuts: data survives a clean reopen, a request larger
//! than the maximum is refused and changes nothing, and mutants of other
//! FTLs are refused.

use flash::{Geometry, MemFlash};
use ftl::optr::{Optr, OptrConfig};
use ftl::{BlockDevice, FtlError, Lba, Mutant};

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
