//! Regression: the async FTL's `info` showed free + used + erasable greater
//! than its segments, because recovery's `Dirty` segments (in the free queue,
//! but not yet erased) were counted both as free and as erasable.
//!
//! For every FTL, after a seeded overwrite workload that makes GC run, and
//! again after reopening (recovery rebuilds the states), the four block
//! counts of `DeviceStats` must sum to the FTL's data blocks: SCFTL's data
//! superblocks, the baselines' and OPTR's data segments. Replay a failure with the
//! seed it prints (`BLOCK_COUNTS_SEED=<seed>`).

use flash::{Geometry, MemFlash};
use ftl::async_ftl::AsyncConfig;
use ftl::logstruct::Layout;
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{AnyFtl, BlockDevice, DeviceStats, FormatOptions, FtlKind, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The number of data blocks an FTL of `kind` has on `g` with its default
/// configuration.
fn data_blocks(kind: FtlKind, g: &Geometry) -> u64 {
    match kind {
        FtlKind::Scftl => {
            let cfg = ScftlConfig::default_for(g);
            let metadata_superblocks =
                Scftl::<MemFlash>::metadata_blocks(g, &cfg).len() as u64 / u64::from(g.dies());
            u64::from(g.blocks_per_die) - metadata_superblocks
        }
        FtlKind::Optr => {
            let cfg = ftl::optr::OptrConfig::default_for(g);
            u64::from(cfg.plan(g).unwrap().data_segments)
        }
        FtlKind::Async | FtlKind::Sync => {
            let cfg = AsyncConfig::default_for(g);
            u64::from(Layout::new(g, cfg.stripe_dies).unwrap().data_segments())
        }
    }
}

fn assert_partition(st: &DeviceStats, total: u64, ctx: &str) {
    let sum = st.free_blocks + st.used_blocks + st.invalid_blocks + st.erasable_blocks;
    assert_eq!(
        sum, total,
        "{ctx}: {} free + {} used + {} invalid + {} erasable != {total} data blocks",
        st.free_blocks, st.used_blocks, st.invalid_blocks, st.erasable_blocks
    );
}

#[test]
fn block_counts_sum_to_the_data_blocks_after_gc_and_recovery() {
    let seed: u64 = std::env::var("BLOCK_COUNTS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(18);
    let g = Geometry::small();
    for kind in FtlKind::ALL {
        let ctx = format!("{kind} (BLOCK_COUNTS_SEED={seed})");
        let total = data_blocks(kind, &g);
        let mut dev =
            AnyFtl::format(MemFlash::new(g).unwrap(), kind, &FormatOptions::default()).unwrap();
        assert_partition(&dev.stats(), total, &format!("{ctx} after format"));
        let ss = dev.sector_size();
        let n = dev.num_sectors();
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut buf = vec![0u8; ss];
        // Four passes' worth of single-sector overwrites over a device whose
        // logical space is most of its raw space forces GC on every FTL; a
        // bounded FTL flushes within its epoch budget.
        for i in 0..4 * n {
            if dev.epoch_remaining() == Some(0) {
                dev.flush().unwrap();
            }
            rng.fill(&mut buf[..]);
            dev.write(Lba(rng.gen_range(0..n)), &buf).unwrap();
            if i % 1024 == 0 {
                assert_partition(&dev.stats(), total, &format!("{ctx} at write {i}"));
            }
        }
        dev.flush().unwrap();
        let st = dev.stats();
        assert!(st.gc_blocks_reclaimed > 0, "{ctx}: the workload ran no GC");
        assert_partition(&st, total, &format!("{ctx} after the workload"));
        let dev = AnyFtl::open(dev.into_flash()).unwrap();
        assert_partition(&dev.stats(), total, &format!("{ctx} after recovery"));
    }
}
