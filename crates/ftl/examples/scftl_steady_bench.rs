//! SCFTL CPU cost in steady state: the device is filled, then overwritten
//! at random until GC runs all the time, then `measure` random 4 KiB writes
//! with a flush every 2048 are timed (wall clock and this process's CPU
//! time, which other load on the machine does not inflate). MemFlash, so
//! no device latency: this is the FTL's own cost plus the copies into the
//! RAM flash.
//!
//! Run: `CARGO_TARGET_DIR=target-scftl cargo run --profile bench-fast -p ftl --features examples --example scftl_steady_bench [geometry] [measure] [seed]`
//! (`--release` keeps debug assertions, hence the validators and the ghost
//! copy of the stable L2P; `bench-fast` drops them.)

use std::time::Instant;

use flash::{Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const FLUSH_EVERY: u64 = 2048;

/// User + system CPU seconds of this process (Linux), if readable.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let geo = args.next().unwrap_or_else(|| "medium".into());
    let measure: u64 = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let seed: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(7);
    let g = Geometry::preset(&geo)?;
    let cfg = ScftlConfig::default_for(&g);
    println!("geometry: {geo}: {g}");
    println!("config:   {cfg:?}");
    let mut dev = Scftl::format(MemFlash::new(g)?, cfg)?;
    let l = dev.num_sectors();
    let ss = dev.sector_size();
    let mut buf = vec![0u8; ss];
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut n = 0u64;
    let mut write = |dev: &mut Scftl<MemFlash>, lba: u64| -> Result<(), ftl::FtlError> {
        buf[..8].copy_from_slice(&lba.to_le_bytes());
        dev.write(Lba(lba), &buf)?;
        n += 1;
        if n.is_multiple_of(FLUSH_EVERY) || dev.epoch_remaining() == Some(0) {
            dev.flush()?;
        }
        Ok(())
    };
    for lba in 0..l {
        write(&mut dev, lba)?;
    }
    for _ in 0..2 * l {
        let lba = rng.gen_range(0..l);
        write(&mut dev, lba)?;
    }
    let before = dev.stats();
    let (t, c) = (Instant::now(), cpu_seconds());
    for _ in 0..measure {
        let lba = rng.gen_range(0..l);
        write(&mut dev, lba)?;
    }
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(c).map(|(a, b)| a - b);
    let st = dev.stats();
    let reloc = st.gc_sectors_relocated - before.gc_sectors_relocated;
    println!(
        "steady state: {measure} random writes, flush every {FLUSH_EVERY}: wall {wall:.3} s = {:.0} writes/s; CPU {} ",
        measure as f64 / wall,
        cpu.map_or("n/a".to_string(), |c| format!("{c:.2} s = {:.0} writes/s", measure as f64 / c))
    );
    println!(
        "GC: {reloc} sectors relocated ({:.2} per user write), {} victims; {} full checkpoints",
        reloc as f64 / measure as f64,
        st.gc_blocks_reclaimed - before.gc_blocks_reclaimed,
        st.full_checkpoints - before.full_checkpoints
    );
    println!(
        "RAM for L2P + P2L: {:.1} bytes per logical sector",
        (l as f64 * 4.0 + g.total_sectors() as f64 * 4.0) / l as f64
    );
    Ok(())
}
