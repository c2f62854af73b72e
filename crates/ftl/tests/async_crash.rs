//! Async: dropping the FTL without a flush. `MemFlash` applies every
//! command at once, so everything programmed survives; only the merge
//! buffer (at most one page of sectors) is lost, and every sector must hold
//! its flushed value or a later one.

use crate::baseline_common as common;

use common::{decode, pattern};
use flash::{Geometry, MemFlash};
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::{BlockDevice, Lba};

#[test]
fn async_drop_without_flush_keeps_flushed_data_and_loses_at_most_the_buffer() {
    for g in [Geometry::tiny(), Geometry::small()] {
        let mut d =
            AsyncFtl::format(MemFlash::new(g).unwrap(), AsyncConfig::default_for(&g)).unwrap();
        let n = d.num_sectors();
        let ss = d.sector_size();
        let mut s = vec![0u8; ss];
        let mut allowed: Vec<Vec<u32>> = vec![vec![0]; n as usize];
        let mut newest = vec![0u32; n as usize];
        // Three passes over the device (GC runs), flush after the first two.
        let mut ver = 0;
        for pass in 0..3u64 {
            for la in (0..n).map(|i| (i * 7 + pass) % n) {
                ver += 1;
                pattern(la, ver, &mut s);
                d.write(Lba(la), &s).unwrap();
                allowed[la as usize].push(ver);
                newest[la as usize] = ver;
            }
            if pass < 2 {
                d.flush().unwrap();
                for la in 0..n as usize {
                    allowed[la] = vec![newest[la]];
                }
            }
        }
        let mut d = AsyncFtl::open(d.into_flash()).unwrap();
        d.check_invariants().unwrap();
        let mut stale = 0;
        for la in 0..n {
            d.read(Lba(la), &mut s).unwrap();
            let (_, v) = decode(&s).unwrap_or_else(|| panic!("sector {la} holds garbage"));
            assert!(
                allowed[la as usize].contains(&v),
                "sector {la}: version {v} not allowed"
            );
            if v != newest[la as usize] {
                stale += 1;
            }
        }
        assert!(
            stale <= g.sectors_per_page,
            "{stale} sectors lost, more than the merge buffer holds"
        );
    }
}
