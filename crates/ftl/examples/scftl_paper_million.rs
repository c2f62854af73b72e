//! A million random 4 KiB writes on the `paper` geometry (8 GiB raw, 4 GiB
//! logical), a flush every 2048 writes, then reopen (recovery) and read
//! everything back. Sector content is derived from (lba, version) so the
//! reference costs 4 bytes per sector. MemFlash allocates lazily: expect
//! about 4 GiB of RAM.
//!
//! Run: `CARGO_TARGET_DIR=target-scftl cargo run --release -p ftl --features examples --example scftl_paper_million [writes] [seed]`

use std::time::Instant;

use flash::{Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const FLUSH_EVERY: u64 = 2048;

fn fill(buf: &mut [u8], lba: u64, version: u32) {
    buf[..8].copy_from_slice(&lba.to_le_bytes());
    buf[8..12].copy_from_slice(&version.to_le_bytes());
    buf[12..16].copy_from_slice(&(!version).to_le_bytes());
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let writes: u64 = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let seed: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(42);
    let g = Geometry::paper();
    let cfg = ScftlConfig::default_for(&g);
    println!("geometry: {g}");
    println!("config:   {cfg:?}");
    println!("workload: {writes} random 4 KiB writes, flush every {FLUSH_EVERY}, seed {seed}");
    let t = Instant::now();
    let mut dev = Scftl::format(MemFlash::new(g)?, cfg)?;
    println!("format:   {:.3} s", t.elapsed().as_secs_f64());
    let l = dev.num_sectors();
    let ss = dev.sector_size();
    let mut versions = vec![0u32; l as usize];
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut buf = vec![0u8; ss];
    let t = Instant::now();
    for i in 0..writes {
        let lba = rng.gen_range(0..l);
        let v = versions[lba as usize] + 1;
        fill(&mut buf, lba, v);
        dev.write(Lba(lba), &buf)?;
        versions[lba as usize] = v;
        if (i + 1).is_multiple_of(FLUSH_EVERY) {
            dev.flush()?;
        }
    }
    dev.flush()?;
    let write_s = t.elapsed().as_secs_f64();
    let st = dev.stats();
    println!(
        "writes:   {write_s:.3} s, {:.0} writes/s; {} flushes, {} full checkpoints, {} sectors relocated by GC, {} metadata pages",
        writes as f64 / write_s,
        st.flushes,
        st.full_checkpoints,
        st.gc_sectors_relocated,
        st.meta_pages_written
    );
    let flash = dev.into_flash();
    let t = Instant::now();
    let mut dev = Scftl::open(flash)?;
    println!("reopen:   {:.3} s (recovery)", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut want = vec![0u8; ss];
    let mut mismatches = 0u64;
    for lba in 0..l {
        dev.read(Lba(lba), &mut buf)?;
        let v = versions[lba as usize];
        want.fill(0);
        if v > 0 {
            fill(&mut want, lba, v);
        }
        if buf != want {
            mismatches += 1;
            if mismatches <= 5 {
                eprintln!("MISMATCH at lba {lba} (expected version {v})");
            }
        }
    }
    println!(
        "readback: {:.3} s, {l} sectors, {mismatches} mismatches",
        t.elapsed().as_secs_f64()
    );
    if mismatches > 0 {
        return Err(format!("{mismatches} sectors read back wrong").into());
    }
    println!("OK");
    Ok(())
}
