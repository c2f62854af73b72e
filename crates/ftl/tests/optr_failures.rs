//! OPTR on flash that fails (issue 14). A program or erase the flash fails
//! at any point of a workload must never lose flushed data: the device
//! goes on (the data is written elsewhere) or turns read-only with
//! `FtlError::WornOut`, and after a reopen every sector reads as its value
//! at the last completed flush or one written since.

use flash::{CrashFlash, Geometry, MemFlash};
use ftl::optr::{Optr, OptrConfig};
use ftl::{BlockDevice, FtlError, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

type Dev = Optr<CrashFlash<MemFlash>>;

fn sector(la: u64, v: u32, ss: usize) -> Vec<u8> {
    let mut b = vec![0u8; ss];
    if v != 0 {
        b[..8].copy_from_slice(&la.to_le_bytes());
        b[8..12].copy_from_slice(&v.to_le_bytes());
        for (i, x) in b[12..].iter_mut().enumerate() {
            *x = (la as u8) ^ (v as u8) ^ i as u8;
        }
    }
    b
}

/// The version sector `la` holds (0: zeros), or `None` for other data.
fn version_of(la: u64, b: &[u8]) -> Option<u32> {
    if b.iter().all(|&x| x == 0) {
        return Some(0);
    }
    let v = u32::from_le_bytes(b[8..12].try_into().unwrap());
    (b == sector(la, v, b.len()).as_slice()).then_some(v)
}

/// What happened in one run.
#[derive(Debug)]
struct Outcome {
    /// The error that stopped the workload, if any.
    stopped_by: Option<String>,
    failures_injected: (u64, u64),
}

/// Random writes, trims and flushes on `g` with the `nth` next program (or
/// erase) failing; stops at the first error, then reopens and checks that
/// every sector holds its value at the last completed flush or a later one
/// written since. Returns an error naming the lost sector.
fn run(g: Geometry, seed: u64, nth: u64, erase: bool, requests: u32) -> Result<Outcome, String> {
    run_on(MemFlash::new(g).unwrap(), seed, nth, erase, requests)
}

fn run_on(
    mem: MemFlash,
    seed: u64,
    nth: u64,
    erase: bool,
    requests: u32,
) -> Result<Outcome, String> {
    let g = *flash::Flash::geometry(&mem);
    let cfg = OptrConfig::default_for(&g);
    let mut d: Dev = Optr::format(CrashFlash::new(mem), cfg).unwrap();
    if nth == 0 {
    } else if erase {
        d.flash_mut().fail_nth_erase(nth);
    } else {
        d.flash_mut().fail_nth_program(nth);
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let ss = d.sector_size();
    let n = d.num_sectors();
    // Per sector: the value at the last completed flush, and every value
    // written since (a crash or reopen may keep any of them).
    let mut flushed = vec![0u32; n as usize];
    let mut since: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    let mut version = 1u32;
    let mut stopped_by = None;
    let mut worn_out = false;
    for _ in 0..requests {
        let len = rng.gen_range(1..=4u64.min(n));
        let lba = rng.gen_range(0..=n - len);
        let r = match rng.gen_range(0..100) {
            0..=79 => {
                let mut buf = Vec::new();
                for la in lba..lba + len {
                    buf.extend(sector(la, version, ss));
                }
                let r = d.write(Lba(lba), &buf);
                for la in lba..lba + len {
                    since[la as usize].push(version);
                }
                version += 1;
                r
            }
            80..=84 => {
                let r = d.trim(Lba(lba), len);
                for la in lba..lba + len {
                    since[la as usize].push(0);
                }
                r
            }
            _ => {
                let r = d.flush();
                if r.is_ok() {
                    for (la, s) in since.iter_mut().enumerate() {
                        if let Some(&v) = s.last() {
                            flushed[la] = v;
                        }
                        s.clear();
                    }
                }
                r
            }
        };
        if let Err(e) = r {
            worn_out = matches!(e, FtlError::WornOut(_));
            stopped_by = Some(e.to_string());
            break;
        }
    }
    let failures_injected = d.flash_mut().injected_failures();
    // A device that went read-only still serves reads of flushed data.
    if worn_out {
        let mut buf = vec![0u8; ss];
        for la in 0..n {
            d.read(Lba(la), &mut buf)
                .map_err(|e| format!("read-only device: read {la}: {e}"))?;
            let v = version_of(la, &buf);
            let ok = v.is_some_and(|v| v == flushed[la as usize] || since[la as usize].contains(&v));
            if !ok {
                return Err(format!(
                    "read-only device: sector {la} reads {v:?}, flushed {}",
                    flushed[la as usize]
                ));
            }
        }
    }
    let mut d: Dev = Optr::open(d.into_flash()).map_err(|e| format!("reopen: {e}"))?;
    let mut buf = vec![0u8; ss];
    for la in 0..n {
        d.read(Lba(la), &mut buf)
            .map_err(|e| format!("after reopen: read {la}: {e}"))?;
        let v = version_of(la, &buf);
        let ok = v.is_some_and(|v| v == flushed[la as usize] || since[la as usize].contains(&v));
        if !ok {
            return Err(format!(
                "after reopen (workload stopped by {stopped_by:?}): sector {la} reads version {v:?}, flushed {} (written since: {:?})",
                flushed[la as usize], since[la as usize]
            ));
        }
    }
    d.check_invariants()?;
    Ok(Outcome {
        stopped_by,
        failures_injected,
    })
}

#[test]
fn sweep() {
    let g = Geometry::tiny();
    let mut bad = Vec::new();
    for erase in [false, true] {
        for nth in 1..400u64 {
            match run(g, 7, nth, erase, 3000) {
                Ok(o) => {
                    if nth % 50 == 0 {
                        eprintln!("{erase} {nth}: {o:?}");
                    }
                }
                Err(e) => bad.push(format!("erase {erase} nth {nth}: {e}")),
            }
        }
    }
    for b in bad.iter().filter(|b| b.contains("erase false")).take(15).chain(bad.iter().filter(|b| b.contains("erase true")).take(3)) {
        eprintln!("{b}");
    }
    assert!(bad.is_empty(), "{} runs lost flushed data", bad.len());
}

#[test]
fn worn() {
    let g = Geometry::small();
    let mut bad = Vec::new();
    for seed in 0..20u64 {
        let model = flash::WearModel {
            endurance: 6,
            factory_bad_per_mille: 0,
            seed,
        };
        let mem = MemFlash::with_wear(g, flash::mem::default_nvram_size(&g), model).unwrap();
        match run_on(mem, seed, 0, false, 1_000_000) {
            Ok(o) => eprintln!("seed {seed}: {o:?}"),
            Err(e) => bad.push(format!("seed {seed}: {e}")),
        }
    }
    for b in &bad {
        eprintln!("{b}");
    }
    assert!(bad.is_empty());
}
