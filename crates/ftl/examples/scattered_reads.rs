//! The floor under a 1 MiB read of scattered sectors: what the host's page
//! cache charges for 256 positioned 4 KiB reads of random pages, against
//! one 1 MiB read, with no FTL at all. After random writes, the sectors of
//! a logical 1 MiB range lie in 256 different flash pages, so SCFTL's image
//! backend reads them with 256 `pread`s (`FileFlash::read_shared`), while
//! nbdkit's file plugin reads one contiguous 1 MiB; this program measures
//! that difference alone (docs/BENCHMARKS.md, "What 256 scattered reads
//! cost the host").
//!
//! It writes a file of `mib` MiB in `dir`, reads it once so that it sits in
//! the page cache, then, `rounds` times, times `iters` requests of each kind
//! (the same random offsets for every kind in a round):
//! - `one`: one 1 MiB `pread` at a random 1 MiB-aligned offset;
//! - `contiguous`: 256 `pread`s of 4 KiB, consecutive pages, into
//!   consecutive 4 KiB pieces of a 1 MiB buffer (what the system call count
//!   alone costs);
//! - `scattered`: 256 `pread`s of 4 KiB at random pages, into consecutive
//!   pieces of the 1 MiB buffer (SCFTL's read of scattered sectors);
//! - `scattered-one-buffer`: the same reads, all into one 4 KiB buffer (what
//!   fio's 4 KiB random reads measure: a destination that stays in cache).
//!
//! Run: `cargo run --release -p ftl --features examples --example scattered_reads [dir] [mib] [rounds] [iters] [offset]`
//! (defaults: `/var/tmp`, 1024, 3, 1000, 32: how many bytes into a page
//! the 1 MiB buffer starts). The file is removed at the end.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const SECTOR: usize = 4096;
const PER_REQUEST: usize = 256;
const REQUEST: usize = SECTOR * PER_REQUEST;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "/var/tmp".into());
    let number = |a: Option<String>, d: u64, what: &str| -> u64 {
        a.map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("{what}: not a number: {s}"))
        })
        .unwrap_or(d)
    };
    let mib = number(args.next(), 1024, "mib").max(2);
    let rounds = number(args.next(), 3, "rounds");
    let iters = number(args.next(), 1000, "iters").max(1) as usize;
    let offset = number(args.next(), 32, "offset") as usize % SECTOR;

    let path =
        std::path::Path::new(&dir).join(format!("scattered-reads-{}.dat", std::process::id()));
    let result = run(&path, mib, rounds, iters, offset);
    let _ = std::fs::remove_file(&path);
    result
}

fn run(
    path: &std::path::Path,
    mib: u64,
    rounds: u64,
    iters: usize,
    offset: usize,
) -> std::io::Result<()> {
    {
        let mut f = File::create(path)?;
        let mut block = vec![0u8; REQUEST];
        let mut rng = Pcg64::seed_from_u64(1);
        for _ in 0..mib {
            for b in block.chunks_exact_mut(8) {
                b.copy_from_slice(&rng.gen::<u64>().to_le_bytes());
            }
            f.write_all(&block)?;
        }
    }
    let f = OpenOptions::new().read(true).open(path)?;
    let pages = mib * (REQUEST / SECTOR) as u64;
    // The 1 MiB buffer starts `offset` bytes into a page: by default 32,
    // where `scftl serve`'s read replies put their data (a 16-byte reply
    // header after the allocator's 16-byte chunk header). Where it starts
    // matters on the 2-core VM: with the data 8 or 16 bytes into a page,
    // the kernel's copy out of the page cache took about six times as long
    // (docs/BENCHMARKS.md).
    let mut backing = vec![0u8; REQUEST + 2 * SECTOR];
    let skip = (SECTOR - backing.as_ptr() as usize % SECTOR) % SECTOR + offset;
    let buf = &mut backing[skip..skip + REQUEST];
    for i in 0..mib {
        f.read_exact_at(buf, i * REQUEST as u64)?;
    }
    println!(
        "{mib} MiB file in the page cache, {iters} requests of 1 MiB per kind and round, \
         the buffer {offset} bytes into a page"
    );
    println!(
        "{:>5} {:>22} {:>12} {:>10}",
        "round", "kind", "us/request", "MB/s"
    );
    let mut rng = Pcg64::seed_from_u64(2);
    for round in 0..rounds {
        let starts: Vec<u64> = (0..iters).map(|_| rng.gen_range(0..mib)).collect();
        let scattered: Vec<u64> = (0..iters * PER_REQUEST)
            .map(|_| rng.gen_range(0..pages))
            .collect();
        let mut small = vec![0u8; SECTOR];
        let time = |kind: &str, f: &mut dyn FnMut() -> std::io::Result<()>| {
            let t = Instant::now();
            f()?;
            let per = t.elapsed().as_secs_f64() / iters as f64;
            println!(
                "{round:>5} {kind:>22} {:>12.0} {:>10.0}",
                per * 1e6,
                REQUEST as f64 / per / 1e6
            );
            Ok::<f64, std::io::Error>(per)
        };
        let one = time("one", &mut || {
            for &s in &starts {
                f.read_exact_at(buf, s * REQUEST as u64)?;
            }
            Ok(())
        })?;
        time("contiguous", &mut || {
            for &s in &starts {
                for (k, piece) in buf.chunks_exact_mut(SECTOR).enumerate() {
                    f.read_exact_at(piece, s * REQUEST as u64 + (k * SECTOR) as u64)?;
                }
            }
            Ok(())
        })?;
        let scat = time("scattered", &mut || {
            for req in scattered.chunks_exact(PER_REQUEST) {
                for (piece, &p) in buf.chunks_exact_mut(SECTOR).zip(req) {
                    f.read_exact_at(piece, p * SECTOR as u64)?;
                }
            }
            Ok(())
        })?;
        time("scattered-one-buffer", &mut || {
            for req in scattered.chunks_exact(PER_REQUEST) {
                for &p in req {
                    f.read_exact_at(&mut small, p * SECTOR as u64)?;
                }
            }
            Ok(())
        })?;
        println!("{round:>5} {:>22} {:>12.2}", "scattered/one", scat / one);
    }
    Ok(())
}
