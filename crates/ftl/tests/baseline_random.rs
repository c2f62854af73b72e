//! Long seeded random operation sequences on both baselines, on a device
//! filled past 90% of its logical space so GC runs all the time, compared
//! step by step with a plain in-memory model, with `check_invariants` after
//! every operation. A failure prints the seed; replay it with
//! `BASELINE_SEED=<seed> cargo test -p ftl --test integration baseline_random::`.

use crate::baseline_common as common;

use common::{pattern, Dev};
use flash::Geometry;
use ftl::{FtlKind, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn check(d: &mut Dev, ctx: &str) {
    if let Err(e) = d.dev().check_invariants() {
        panic!("{ctx}: invariant broken: {e}");
    }
}

fn verify_range(d: &mut Dev, model: &[u32], lba: u64, n: u64, ctx: &str) {
    let ss = d.dev().sector_size();
    let mut buf = vec![0u8; ss * n as usize];
    d.dev().read(Lba(lba), &mut buf).unwrap();
    let mut want = vec![0u8; ss];
    for i in 0..n {
        let la = lba + i;
        pattern(la, model[la as usize], &mut want);
        let got = &buf[i as usize * ss..(i as usize + 1) * ss];
        assert!(
            got == &want[..],
            "{ctx}: sector {la} differs from model version {}",
            model[la as usize]
        );
    }
}

fn run(kind: FtlKind, g: Geometry, seed: u64, ops: usize, reopen_pct: f64) -> ftl::DeviceStats {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut d = Dev::format(kind, g);
    let n = d.dev().num_sectors();
    let ss = d.dev().sector_size();
    let mut model = vec![0u32; n as usize];
    let mut ver = 0u32;
    let ctx = |step: usize, what: &str| format!("{kind} seed {seed} step {step} ({what})");
    // Fill 92% of the logical space.
    let fill = n * 92 / 100;
    let mut lba = 0;
    while lba < fill {
        let k = (fill - lba).min(rng.gen_range(1..=64));
        let mut data = vec![0u8; ss * k as usize];
        for i in 0..k {
            ver += 1;
            model[(lba + i) as usize] = ver;
            pattern(
                lba + i,
                ver,
                &mut data[i as usize * ss..(i as usize + 1) * ss],
            );
        }
        d.dev().write(Lba(lba), &data).unwrap();
        check(&mut d, &ctx(0, "fill"));
        lba += k;
    }
    for step in 1..=ops {
        let r = rng.gen_range(0..100);
        let hot = rng.gen_bool(0.7);
        // Hot writes go to the filled part, so GC keeps finding stale data.
        let span = if hot { fill } else { n };
        let what;
        if r < 55 {
            let k = rng.gen_range(1..=8u64).min(span);
            let lba = rng.gen_range(0..=span - k);
            let mut data = vec![0u8; ss * k as usize];
            for i in 0..k {
                ver += 1;
                model[(lba + i) as usize] = ver;
                pattern(
                    lba + i,
                    ver,
                    &mut data[i as usize * ss..(i as usize + 1) * ss],
                );
            }
            d.dev().write(Lba(lba), &data).unwrap();
            what = "write";
        } else if r < 70 {
            let k = rng.gen_range(1..=16u64).min(n);
            let lba = rng.gen_range(0..=n - k);
            verify_range(&mut d, &model, lba, k, &ctx(step, "read"));
            what = "read";
        } else if r < 78 {
            let k = rng.gen_range(1..=12u64).min(n);
            let lba = rng.gen_range(0..=n - k);
            d.dev().trim(Lba(lba), k).unwrap();
            for la in lba..lba + k {
                model[la as usize] = 0;
            }
            what = "trim";
        } else if r < 90 {
            d.dev().flush().unwrap();
            what = "flush";
        } else if r < 92 && rng.gen_bool(reopen_pct / 2.0) {
            // Clean close: async needs a flush to keep its buffer; sync
            // keeps it in the battery-backed log anyway.
            if kind == FtlKind::Async || rng.gen_bool(0.5) {
                d.dev().flush().unwrap();
            }
            d = d.reopen();
            what = "reopen";
        } else if r < 92 {
            d.dev().flush().unwrap();
            what = "flush";
        } else {
            // Rewrite a whole sector range in one request (GC mid-request).
            let k = rng.gen_range(9..=40u64).min(span);
            let lba = rng.gen_range(0..=span - k);
            let mut data = vec![0u8; ss * k as usize];
            for i in 0..k {
                ver += 1;
                model[(lba + i) as usize] = ver;
                pattern(
                    lba + i,
                    ver,
                    &mut data[i as usize * ss..(i as usize + 1) * ss],
                );
            }
            d.dev().write(Lba(lba), &data).unwrap();
            what = "long write";
        }
        check(&mut d, &ctx(step, what));
    }
    verify_range(&mut d, &model, 0, n, &ctx(ops, "final read"));
    let stats = d.dev().stats();
    if kind == FtlKind::Async {
        d.dev().flush().unwrap();
    }
    let mut d = d.reopen();
    check(&mut d, &ctx(ops, "final reopen"));
    verify_range(&mut d, &model, 0, n, &ctx(ops, "read after final reopen"));
    stats
}

fn seeds(default: &[u64]) -> Vec<u64> {
    match std::env::var("BASELINE_SEED") {
        Ok(s) => vec![s.parse().expect("BASELINE_SEED must be a u64")],
        Err(_) => default.to_vec(),
    }
}

#[test]
fn async_tiny_random_ops_match_model() {
    for seed in seeds(&[1, 2, 3]) {
        run(FtlKind::Async, Geometry::tiny(), seed, 3000, 1.0);
    }
}

#[test]
fn sync_tiny_random_ops_match_model() {
    for seed in seeds(&[11, 12, 13]) {
        run(FtlKind::Sync, Geometry::tiny(), seed, 3000, 1.0);
    }
}

#[test]
fn async_small_random_ops_match_model_and_gc_runs() {
    for seed in seeds(&[21]) {
        let s = run(FtlKind::Async, Geometry::small(), seed, 2500, 0.1);
        assert!(s.gc_blocks_reclaimed > 0, "GC never ran: {s:?}");
    }
}

#[test]
fn sync_small_random_ops_match_model_and_gc_runs() {
    for seed in seeds(&[31]) {
        let s = run(FtlKind::Sync, Geometry::small(), seed, 2500, 0.1);
        assert!(s.gc_blocks_reclaimed > 0, "GC never ran: {s:?}");
    }
}
