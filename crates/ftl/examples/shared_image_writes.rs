//! In-process scaling of `SharedDevice` writes on an image, without NBD or
//! fio: `threads` threads write random 4 KiB sectors (each flushing every
//! 256 of its writes, an epoch barrier when an epoch is full, as `scftl
//! serve` does) into SCFTL on a `medium` image for `secs` seconds, or,
//! with `size_kib` above 4, random aligned requests of that size (whole
//! pages, which SCFTL programs with one `program_many` from the request's
//! buffer; a flush every 8 MiB a thread wrote), with
//! detached writes (the pages a write fills are copied into the page cache
//! after the lock is released) and with them off (copied under the lock),
//! alternately, `reps` times. On a machine with fewer cores than threads
//! the figure says little about the lock; the ratio of the two modes at
//! equal threads is what it is for.
//!
//! Run: `CARGO_TARGET_DIR=target-scftl cargo run --profile bench-fast -p ftl --features examples --example shared_image_writes [dir] [secs] [reps] [threads,...] [size_kib]`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use flash::{FileFlash, Flash, Geometry};
use ftl::{AnyFtl, BlockDevice, FormatOptions, FtlError, FtlKind, Lba, SharedDevice};
use rand::{Rng, SeedableRng};

/// The image with detached writes hidden: `submit` writes at once.
struct NoDetach {
    inner: FileFlash,
}

impl flash::Layer for NoDetach {
    flash::layer_below!(inner: FileFlash);
    fn geometry(&self) -> &Geometry {
        self.inner.geometry()
    }
    fn read_shared(&self, reads: &mut [flash::PageRead<'_>]) -> Option<flash::Result<()>> {
        self.inner.read_shared(reads)
    }
    fn start_sync(&mut self) -> Option<flash::Result<flash::SyncTicket>> {
        self.inner.start_sync()
    }
}

fn run<F: Flash + Send + Sync + 'static>(
    dev: AnyFtl<F>,
    threads: u64,
    secs: f64,
    size: usize,
) -> (AnyFtl<F>, f64, u64) {
    let shared = Arc::new(SharedDevice::new(dev));
    let ss = 4096usize;
    let per = (size / ss) as u64;
    let flush_every = if per == 1 {
        256
    } else {
        (8 << 20) / size as u64
    }
    .max(1);
    let slots = shared.exclusive(|d| d.num_sectors()) / per;
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (shared, stop, done) = (Arc::clone(&shared), Arc::clone(&stop), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut rng = rand_pcg::Pcg64::seed_from_u64(t + 1);
                let data = vec![t as u8 + 1; size];
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let lba = rng.gen_range(0..slots) * per;
                    shared
                        .change(|d| match d.write(Lba(lba), &data) {
                            Err(FtlError::EpochFull { .. }) => {
                                d.epoch_barrier()?;
                                d.write(Lba(lba), &data)
                            }
                            r => r,
                        })
                        .unwrap();
                    n += 1;
                    if n.is_multiple_of(flush_every) {
                        shared.flush(shared.returned(), |_| true).unwrap().unwrap();
                    }
                }
                done.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let detached = shared.shared_counts().detached_writes;
    let shared = Arc::into_inner(shared).unwrap();
    let iops = done.load(Ordering::Relaxed) as f64 / elapsed;
    (shared.into_inner(), iops, detached)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "/var/tmp".into());
    let secs: f64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(5.0);
    let reps: u32 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(3);
    let threads: Vec<u64> = args
        .next()
        .unwrap_or_else(|| "1,2".into())
        .split(',')
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let size_kib: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(4);
    if size_kib < 4 || !size_kib.is_multiple_of(4) {
        return Err(format!("size_kib must be a multiple of 4, not {size_kib}").into());
    }
    let path = std::path::Path::new(&dir).join(format!("shared-writes-{}.img", std::process::id()));
    let g = Geometry::medium();
    let image = FileFlash::create(&path, g, true)?;
    let mut dev = AnyFtl::format(image, FtlKind::Scftl, &FormatOptions::default())?;
    // One sequential pass, so that the random writes run with GC.
    let chunk = vec![7u8; 256 * 4096];
    let n = dev.num_sectors();
    let mut lba = 0;
    while lba + 256 <= n {
        match dev.write(Lba(lba), &chunk) {
            Err(FtlError::EpochFull { .. }) => dev.flush()?,
            r => {
                r?;
                lba += 256;
            }
        }
    }
    dev.flush()?;
    drop(dev);
    for rep in 1..=reps {
        for &t in &threads {
            // Each rep swaps which mode runs first.
            let order = if rep % 2 == 1 {
                [true, false]
            } else {
                [false, true]
            };
            for detached in order {
                // A fresh open per run: detached writes, once on, stay on.
                let f = FileFlash::open(&path)?;
                // One instantiation of the FTL for both modes.
                let f: Box<dyn Flash + Send + Sync> = if detached {
                    Box::new(f)
                } else {
                    Box::new(NoDetach { inner: f })
                };
                let (_, iops, runs) = run(AnyFtl::open(f)?, t, secs, size_kib << 10);
                println!(
                    "rep {rep} threads {t} {:8} {iops:>9.0} writes/s of {size_kib} KiB, {:>7.1} MB/s (detached writes run: {runs})",
                    if detached { "detached" } else { "inline" },
                    iops * (size_kib << 10) as f64 / 1e6
                );
            }
        }
    }
    std::fs::remove_file(&path)?;
    Ok(())
}
