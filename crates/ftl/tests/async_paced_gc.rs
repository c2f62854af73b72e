//! The async FTL's paced GC (crates/ftl/src/logstruct/gc.rs): no host write
//! waits for a whole victim, as every write that starts the sync FTL's
//! burst GC does, and a flush fills what it would pad with victim sectors.
//! Data is checked against a model throughout, with `check_invariants`
//! (which also checks the pacing state) every few operations.

use crate::baseline_common as common;

use common::{pattern, Dev};
use flash::Geometry;
use ftl::{FtlKind, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// What a run of single-sector random writes measured.
#[derive(Debug)]
struct Run {
    writes: u64,
    /// Most flash commands (reads, programs, erases) one write (with its
    /// flush, if it had one) issued.
    max_commands_per_write: u64,
    programs: u64,
    relocated: u64,
    reclaimed: u64,
    burst_victims: u64,
}

fn counters(d: &mut Dev) -> flash::FlashCounters {
    d.dev().stats().flash
}

/// Fills 92% of the logical space, then writes `segments` segments' worth
/// of random single sectors with a flush after every `wi` writes.
fn run(kind: FtlKind, wi: u64, segments: u64, seed: u64) -> Run {
    let g = Geometry::small();
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut d = Dev::format(kind, g);
    let n = d.dev().num_sectors();
    let ss = d.dev().sector_size();
    let mut model = vec![0u32; n as usize];
    let mut buf = vec![0u8; ss];
    let fill = n * 92 / 100;
    for la in 0..fill {
        model[la as usize] = 1;
        pattern(la, 1, &mut buf);
        d.dev().write(Lba(la), &buf).unwrap();
    }
    d.dev().flush().unwrap();
    let s0 = d.dev().stats();
    let c0 = counters(&mut d);
    let per_segment = u64::from(g.sectors_per_page * g.pages_per_block) * u64::from(g.dies());
    let writes = segments * per_segment;
    let mut max = 0;
    for i in 0..writes {
        let la = rng.gen_range(0..fill);
        model[la as usize] += 1;
        pattern(la, model[la as usize], &mut buf);
        let before = counters(&mut d);
        d.dev().write(Lba(la), &buf).unwrap();
        if (i + 1) % wi == 0 {
            d.dev().flush().unwrap();
        }
        let after = counters(&mut d);
        let cmds = (after.reads - before.reads)
            + (after.programs - before.programs)
            + (after.erases - before.erases);
        max = max.max(cmds);
        if i % 997 == 0 {
            if let Err(e) = d.dev().check_invariants() {
                panic!("{kind} WI {wi} write {i}: invariant broken: {e}");
            }
        }
    }
    let s1 = d.dev().stats();
    let c1 = counters(&mut d);
    for la in (0..fill).step_by(7) {
        d.dev().read(Lba(la), &mut buf).unwrap();
        let mut want = vec![0u8; ss];
        pattern(la, model[la as usize], &mut want);
        assert!(
            buf == want,
            "{kind} WI {wi}: sector {la} differs from the model"
        );
    }
    Run {
        writes,
        max_commands_per_write: max,
        programs: c1.programs - c0.programs,
        relocated: s1.gc_sectors_relocated - s0.gc_sectors_relocated,
        reclaimed: s1.gc_blocks_reclaimed - s0.gc_blocks_reclaimed,
        burst_victims: s1.gc_burst_victims - s0.gc_burst_victims,
    }
}

#[test]
fn no_async_write_waits_for_a_whole_victim_while_sync_writes_do() {
    let g = Geometry::small();
    let pages_per_segment = u64::from(g.pages_per_block) * u64::from(g.dies());
    let a = run(FtlKind::Async, 16, 12, 1);
    let s = run(FtlKind::Sync, 16, 12, 1);
    eprintln!("async {a:?}\nsync  {s:?}");
    assert!(
        a.reclaimed >= 8 && s.reclaimed >= 8,
        "GC hardly ran: {a:?} {s:?}"
    );
    assert_eq!(a.burst_victims, 0, "paced GC fell behind: {a:?}");
    assert_eq!(s.burst_victims, s.reclaimed, "sync GC is burst GC: {s:?}");
    // A batch is an eighth of a segment: its reads, the relocated pages'
    // programs, the read-ahead and a released victim's erases stay under
    // one segment's pages of commands, which one sync burst exceeds.
    assert!(
        a.max_commands_per_write < pages_per_segment,
        "an async write issued {} flash commands (segment: {pages_per_segment} pages): {a:?}",
        a.max_commands_per_write
    );
    assert!(
        s.max_commands_per_write >= pages_per_segment,
        "the sync FTL's burst was expected to show: {s:?}"
    );
}

#[test]
fn a_flush_fills_its_padding_with_victim_sectors() {
    // WI = 1: every flush programs a page holding one new sector; without
    // the fill, every relocated sector would need a page slot of its own
    // (relocated / 4 more pages).
    let a = run(FtlKind::Async, 1, 6, 2);
    eprintln!("async WI 1 {a:?}");
    assert!(a.reclaimed >= 4, "GC hardly ran: {a:?}");
    assert!(
        a.relocated >= a.writes / 4,
        "too little relocation to tell: {a:?}"
    );
    let spp = u64::from(Geometry::small().sectors_per_page);
    let unfilled = a.writes + a.relocated / spp;
    assert!(
        a.programs * 10 < unfilled * 9,
        "{} pages programmed, {unfilled} without any fill: {a:?}",
        a.programs
    );
}
