//! Long seeded random operation sequences on SCFTL, compared step by step
//! with a plain in-memory model of the snapshot-consistent disk (paper
//! Fig. 4: volatile and stable arrays), with `check_invariants` after every
//! operation. The device is first filled to 100% of its logical space and
//! kept above 90%, so GC runs constantly. A failure prints the seed; replay
//! one with `SCFTL_SEED=<seed> cargo test -p ftl --test integration scftl_random::`.

use flash::{Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FtlError, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Content of a sector written with `tag` (0 = never written: zeros).
fn sector_bytes(tag: u64, ss: usize, out: &mut [u8]) {
    if tag == 0 {
        out[..ss].fill(0);
        return;
    }
    for (i, chunk) in out[..ss].chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&(tag.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64).to_le_bytes());
    }
}

struct Model {
    volatile: Vec<u64>,
    stable: Vec<u64>,
    next_tag: u64,
}

struct Run {
    dev: Option<Scftl<MemFlash>>,
    model: Model,
    ss: usize,
    rng: Pcg64,
    ops: u64,
    /// Sectors relocated by GC over every open of the run.
    gc_relocated: u64,
}

impl Run {
    fn dev(&mut self) -> &mut Scftl<MemFlash> {
        self.dev.as_mut().expect("device present")
    }

    fn check(&mut self, what: &str) {
        let ops = self.ops;
        if let Err(e) = self.dev().check_invariants() {
            panic!("invariant broken after op {ops} ({what}): {e}");
        }
    }

    fn write(&mut self, lba: u64, n: u64) {
        let ss = self.ss;
        let mut data = vec![0u8; n as usize * ss];
        let mut tags = Vec::new();
        for i in 0..n as usize {
            self.model.next_tag += 1;
            tags.push(self.model.next_tag);
            sector_bytes(self.model.next_tag, ss, &mut data[i * ss..]);
        }
        let remaining = self.dev().epoch_remaining().unwrap();
        match self.dev().write(Lba(lba), &data) {
            Ok(()) => {
                assert!(
                    n <= remaining,
                    "write of {n} accepted with {remaining} left"
                );
                for (i, t) in tags.into_iter().enumerate() {
                    self.model.volatile[lba as usize + i] = t;
                }
            }
            Err(FtlError::EpochFull {
                needed,
                remaining: r,
            }) => {
                assert_eq!((needed, r), (n, remaining));
                assert_eq!(self.dev().epoch_remaining(), Some(remaining));
                self.flush();
            }
            Err(e) => panic!("write {lba}+{n} failed: {e}"),
        }
    }

    fn trim(&mut self, lba: u64, n: u64) {
        let remaining = self.dev().epoch_remaining().unwrap();
        match self.dev().trim(Lba(lba), n) {
            Ok(()) => {
                assert!(n <= remaining);
                for t in &mut self.model.volatile[lba as usize..(lba + n) as usize] {
                    *t = 0;
                }
            }
            Err(FtlError::EpochFull { .. }) => {
                assert!(n > remaining);
                self.flush();
            }
            Err(e) => panic!("trim {lba}+{n} failed: {e}"),
        }
    }

    fn flush(&mut self) {
        self.dev().flush().expect("flush");
        self.model.stable.clone_from(&self.model.volatile);
        assert_eq!(
            self.dev().epoch_remaining(),
            Some(u64::from(self.dev().config().write_bound))
        );
    }

    fn read_check(&mut self, lba: u64, n: u64) {
        let ss = self.ss;
        let mut buf = vec![0u8; n as usize * ss];
        self.dev().read(Lba(lba), &mut buf).expect("read");
        let mut want = vec![0u8; ss];
        for i in 0..n as usize {
            let tag = self.model.volatile[lba as usize + i];
            sector_bytes(tag, ss, &mut want);
            assert!(
                buf[i * ss..(i + 1) * ss] == want[..],
                "sector {} reads wrong data after op {} (expected tag {tag})",
                lba as usize + i,
                self.ops
            );
        }
    }

    /// Drops the FTL without flushing (MemFlash keeps every command) and
    /// opens the flash: must come back to the last flushed contents.
    fn reopen(&mut self) {
        self.gc_relocated += self.dev().stats().gc_sectors_relocated;
        let flash = self.dev.take().unwrap().into_flash();
        self.dev = Some(Scftl::open(flash).expect("open after drop"));
        self.model.volatile.clone_from(&self.model.stable);
        self.check("reopen");
        let n = self.model.volatile.len() as u64;
        self.read_check(0, n);
    }
}

fn run(g: Geometry, seed: u64, ops: u64) {
    let cfg = ScftlConfig::default_for(&g);
    let l = cfg.logical_sectors;
    let dev = Scftl::format(MemFlash::new(g).unwrap(), cfg).unwrap();
    let ss = dev.sector_size();
    let mut r = Run {
        dev: Some(dev),
        model: Model {
            volatile: vec![0; l as usize],
            stable: vec![0; l as usize],
            next_tag: 0,
        },
        ss,
        rng: Pcg64::seed_from_u64(seed),
        ops: 0,
        gc_relocated: 0,
    };
    // Fill every sector once.
    let mut lba = 0;
    while lba < l {
        let n = (l - lba).min(4);
        let before = r.model.volatile[lba as usize];
        r.write(lba, n);
        if r.model.volatile[lba as usize] != before {
            lba += n;
        }
        // Every operation on tiny; every 16th while filling larger devices
        // (each check re-reads the whole delta region).
        if l < 1024 || lba % 64 == 0 {
            r.check("fill");
        }
    }
    r.flush();
    for op in 0..ops {
        r.ops = op;
        let mapped = r.model.volatile.iter().filter(|&&t| t != 0).count() as u64;
        let choice = r.rng.gen_range(0..100);
        let what = match choice {
            0..=54 => {
                let n = r.rng.gen_range(1..=4u64).min(l);
                let lba = r.rng.gen_range(0..=l - n);
                r.write(lba, n);
                "write"
            }
            55..=61 if mapped * 10 > l * 9 + 30 => {
                let n = r.rng.gen_range(1..=3u64).min(l);
                let lba = r.rng.gen_range(0..=l - n);
                r.trim(lba, n);
                "trim"
            }
            62..=69 => {
                r.flush();
                "flush"
            }
            70..=94 => {
                let n = r.rng.gen_range(1..=8u64).min(l);
                let lba = r.rng.gen_range(0..=l - n);
                r.read_check(lba, n);
                "read"
            }
            95..=96 => {
                r.flush();
                r.reopen();
                "flush+reopen"
            }
            _ => {
                r.reopen();
                "drop+reopen"
            }
        };
        r.check(what);
    }
    r.flush();
    r.reopen();
    assert!(r.gc_relocated > 0, "GC never relocated a sector");
}

fn seeds(default: &[u64]) -> Vec<u64> {
    match std::env::var("SCFTL_SEED") {
        Ok(s) => vec![s.parse().expect("SCFTL_SEED must be a u64")],
        Err(_) => default.to_vec(),
    }
}

fn run_seeded(g: Geometry, name: &str, seed: u64, ops: u64) {
    let r = std::panic::catch_unwind(|| run(g, seed, ops));
    if let Err(e) = r {
        eprintln!(
            "FAILED: geometry {name} seed {seed}; replay: SCFTL_SEED={seed} cargo test -p ftl --test integration scftl_random::"
        );
        std::panic::resume_unwind(e);
    }
}

#[test]
fn tiny_random_ops_match_the_model() {
    for seed in seeds(&[1, 2, 3, 4, 5, 6]) {
        run_seeded(Geometry::tiny(), "tiny", seed, 3000);
    }
}

#[test]
fn small_random_ops_match_the_model() {
    for seed in seeds(&[11]) {
        run_seeded(Geometry::small(), "small", seed, 1200);
    }
}
