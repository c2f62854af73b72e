//! Per-operation CPU cost of the flash backends, and the simulated device
//! time TimedFlash reports for the same work.
//!
//! Run: `cargo run --release -p flash --example flash_ops [-- PRESET [PAGES]]`
//! (defaults: `paper`, 65536 pages). The workload is fixed (no randomness):
//! program PAGES pages striped over all dies, read every one back as 4 KiB
//! sector reads plus an OOB read, then erase the blocks used. Each backend
//! gets the same commands; the table prints wall-clock operations per second
//! (machine-dependent) and, for TimedFlash, the simulated time.

use std::time::Instant;

use flash::{
    DatalessFlash, FileFlash, Flash, Geometry, MemFlash, PageAddr, TimedFlash, TimingConfig,
};

struct Row {
    name: String,
    ops: u64,
    secs: f64,
    simulated_ns: Option<u64>,
}

/// The i-th page of a die-striped order: page `i / dies` of consecutive
/// blocks on die `i % dies`.
fn striped(g: &Geometry, i: u64) -> PageAddr {
    let dies = u64::from(g.dies());
    let die = (i % dies) as u32;
    let n = i / dies;
    let ppb = u64::from(g.pages_per_block);
    let block = g.block_on_die(die, (n / ppb) as u32);
    PageAddr {
        block,
        page: (n % ppb) as u32,
    }
}

/// Runs the workload; returns the number of flash commands issued.
fn workload(f: &mut impl Flash, pages: u64) -> u64 {
    let g = *f.geometry();
    let data = vec![0x5Au8; g.page_size()];
    let oob = [7u8; 16];
    let mut sector = vec![0u8; g.sector_size as usize];
    let mut oob_buf = [0u8; 16];
    let mut ops = 0;
    for i in 0..pages {
        f.program(striped(&g, i), &data, &oob).expect("program");
        ops += 1;
    }
    f.sync().expect("sync");
    for i in 0..pages {
        let p = striped(&g, i);
        for s in 0..g.sectors_per_page {
            f.read(p, s, &mut sector).expect("read");
        }
        f.read_oob(p, &mut oob_buf).expect("read_oob");
        ops += u64::from(g.sectors_per_page) + 1;
    }
    // Erase every block the programs used, die by die.
    let per_die = pages.div_ceil(u64::from(g.dies()));
    let blocks_per_die = per_die.div_ceil(u64::from(g.pages_per_block)) as u32;
    for die in 0..g.dies() {
        for index in 0..blocks_per_die {
            f.erase(g.block_on_die(die, index)).expect("erase");
            ops += 1;
        }
    }
    f.sync().expect("sync");
    ops + 2
}

fn measure<F: Flash>(name: &str, mut f: F, pages: u64, sim: impl Fn(&F) -> Option<u64>) -> Row {
    let t = Instant::now();
    let ops = workload(&mut f, pages);
    Row {
        name: name.to_string(),
        ops,
        secs: t.elapsed().as_secs_f64(),
        simulated_ns: sim(&f),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let preset = args.next().unwrap_or_else(|| "paper".into());
    let g = match Geometry::preset(&preset) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let pages: u64 = match args.next().map(|s| s.parse()) {
        None => 65536,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("error: PAGES must be a number: {e}");
            std::process::exit(2);
        }
    };
    let pages = pages.min(g.total_pages());
    let timing = TimingConfig::for_geometry(&g);
    println!("geometry: {preset}: {g}");
    println!("timing:   {timing:?}");
    println!("workload: {pages} striped page programs, sector reads of each, erases\n");

    let meta = 0..4;
    let mut rows = vec![
        measure("MemFlash", MemFlash::new(g).unwrap(), pages, |_| None),
        measure(
            "DatalessFlash",
            DatalessFlash::with_metadata_blocks(g, meta.clone()).unwrap(),
            pages,
            |_| None,
        ),
        measure(
            "TimedFlash<MemFlash>",
            TimedFlash::new(MemFlash::new(g).unwrap(), timing),
            pages,
            |f| Some(f.now_ns()),
        ),
        measure(
            "TimedFlash<DatalessFlash>",
            TimedFlash::new(
                DatalessFlash::with_metadata_blocks(g, meta).unwrap(),
                timing,
            ),
            pages,
            |f| Some(f.now_ns()),
        ),
    ];
    let dir = std::env::temp_dir().join(format!("flash_ops_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let img = dir.join("bench.img");
    match FileFlash::create(&img, g, true) {
        Ok(f) => rows.push(measure("FileFlash (page cache)", f, pages, |_| None)),
        Err(e) => eprintln!("FileFlash skipped: {e}"),
    }
    let _ = std::fs::remove_dir_all(&dir);

    println!(
        "{:<28} {:>10} {:>9} {:>12} {:>14}",
        "backend", "commands", "seconds", "commands/s", "simulated ms"
    );
    for r in &rows {
        println!(
            "{:<28} {:>10} {:>9.3} {:>12.0} {:>14}",
            r.name,
            r.ops,
            r.secs,
            r.ops as f64 / r.secs,
            r.simulated_ns
                .map_or("-".to_string(), |ns| format!("{:.1}", ns as f64 / 1e6)),
        );
    }
    let bytes = pages * g.page_size() as u64;
    if let Some(ns) = rows[2].simulated_ns {
        println!(
            "\nsimulated: {} MiB programmed, read back and erased in {:.1} ms",
            bytes >> 20,
            ns as f64 / 1e6
        );
    }
}
