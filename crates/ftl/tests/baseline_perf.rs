//! Throughput probe (not a timing assertion): random 4 KiB writes on
//! MemFlash with the `small` geometry, device filled first so GC runs.
//! Run: `cargo test --release -p ftl --test integration baseline_perf:: -- --ignored --nocapture`.

use flash::{Geometry, MemFlash};
use ftl::async_ftl::{AsyncConfig, AsyncFtl};
use ftl::sync_ftl::{SyncConfig, SyncFtl};
use ftl::{BlockDevice, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn probe(name: &str, d: &mut dyn BlockDevice, writes: u64) {
    let n = d.num_sectors();
    let s = vec![0x5Au8; d.sector_size()];
    let t = std::time::Instant::now();
    for la in 0..n {
        d.write(Lba(la), &s).unwrap();
    }
    let fill = t.elapsed().as_secs_f64();
    println!(
        "{name}: fill of {n} sequential 4 KiB writes (no GC) in {fill:.3} s = {:.0} writes/s",
        n as f64 / fill
    );
    let mut rng = Pcg64::seed_from_u64(7);
    let t = std::time::Instant::now();
    for _ in 0..writes {
        d.write(Lba(rng.gen_range(0..n)), &s).unwrap();
    }
    d.flush().unwrap();
    let secs = t.elapsed().as_secs_f64();
    let st = d.stats();
    println!(
        "{name}: {writes} random 4 KiB writes in {secs:.3} s = {:.0} writes/s; GC relocated {} sectors ({:.2} per write)",
        writes as f64 / secs,
        st.gc_sectors_relocated,
        st.gc_sectors_relocated as f64 / st.user_sectors_written as f64
    );
    assert_eq!(st.user_sectors_written, n + writes);
}

#[test]
#[ignore]
fn baseline_write_throughput() {
    let g = Geometry::small();
    let mut a = AsyncFtl::format(MemFlash::new(g).unwrap(), AsyncConfig::default_for(&g)).unwrap();
    probe("async", &mut a, 300_000);
    let mut s = SyncFtl::format(MemFlash::new(g).unwrap(), SyncConfig::default_for(&g)).unwrap();
    probe("sync", &mut s, 300_000);
}
