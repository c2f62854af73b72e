//! The arithmetic of TimedFlash's discrete-event model, checked against
//! times computed by hand from the configuration (see the formulas in each
//! test). No wall-clock time is involved anywhere.

use std::num::NonZeroUsize;

use flash::timed::{TimingStats, DEFAULT_QUEUE_DEPTH};
use flash::{
    BlockId, Flash, FlashError, Geometry, MemFlash, PageAddr, PageImage, RawFlash, TimedFlash,
    TimingConfig,
};

const R: u64 = 40_000;
const P: u64 = 200_000;
const E: u64 = 2_000_000;
const X: u64 = 20_000;

fn config(queue_depth: usize) -> TimingConfig {
    TimingConfig {
        read_ns: R,
        program_ns: P,
        erase_ns: E,
        channel_xfer_ns_per_page: X,
        queue_depth: NonZeroUsize::new(queue_depth).unwrap(),
        host_op_ns: 0,
    }
}

/// 16 KiB pages (4 x 4 KiB sectors); `channels` x `dies_per_channel` dies of
/// 8 blocks each.
fn geometry(channels: u32, dies_per_channel: u32) -> Geometry {
    Geometry::new(channels, dies_per_channel, 8, 16, 4, 4096, 128).unwrap()
}

fn timed(g: Geometry, queue_depth: usize) -> TimedFlash<MemFlash> {
    TimedFlash::new(MemFlash::new(g).unwrap(), config(queue_depth))
}

/// Programs page `page` of the first block of die `die`.
fn program_on_die(f: &mut TimedFlash<MemFlash>, die: u32, page: u32) {
    let g = *f.geometry();
    let block = g.block_on_die(die, 0);
    f.program(
        PageAddr { block, page },
        &vec![die as u8; g.page_size()],
        &[],
    )
    .unwrap();
}

#[test]
fn defaults_are_the_femu_like_model() {
    let c = TimingConfig::default();
    assert_eq!(
        (
            c.read_ns,
            c.program_ns,
            c.erase_ns,
            c.channel_xfer_ns_per_page,
            c.host_op_ns
        ),
        (40_000, 200_000, 2_000_000, 20_000, 0)
    );
    assert_eq!(c.queue_depth, DEFAULT_QUEUE_DEPTH);
    assert_eq!(c.queue_depth.get(), 64);
    // Transfer time scales with the page size from 20 µs per 16 KiB.
    assert_eq!(
        TimingConfig::for_geometry(&Geometry::paper()).channel_xfer_ns_per_page,
        20_000
    );
    assert_eq!(
        TimingConfig::for_geometry(&Geometry::tiny()).channel_xfer_ns_per_page,
        1_250
    );
    assert_eq!(c.xfer_ns(4096, 16384), 5_000);
    assert_eq!(c.xfer_ns(128, 16384), 157); // 156.25 rounded up
}

#[test]
fn striped_programs_on_idle_dies_take_n_over_d_program_times_plus_one_transfer() {
    // One die per channel: no channel contention. Die d receives k programs;
    // its transfers run back to back on its channel, and the j-th program
    // starts at X + j*P (since P >= X), so the die is done at X + k*P.
    let g = geometry(4, 1);
    let mut f = timed(g, 64);
    let k = 8;
    for i in 0..4 * k {
        program_on_die(&mut f, i % 4, i / 4);
    }
    assert_eq!(f.now_ns(), 0, "programs are asynchronous");
    assert_eq!(f.queued(), 32);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), X + u64::from(k) * P);
    assert_eq!(f.busy_ns_per_die(), &[u64::from(k) * P; 4]);
    assert_eq!(f.busy_ns_per_channel(), &[u64::from(k) * X; 4]);
    assert_eq!(f.queued(), 0);
    let s = f.stats();
    assert_eq!(s.sync_wait_ns, X + u64::from(k) * P);
    assert_eq!((s.stall_ns, s.read_wait_ns), (0, 0));
    assert_eq!(f.counters().programs, 32);
}

#[test]
fn dies_sharing_a_channel_queue_their_transfers() {
    // One channel, two dies, programs alternating between them. Transfer i
    // ends at (i+1)*X. Die 0 is done at X + k*P, die 1 at 2X + k*P (its first
    // transfer waits for die 0's; later ones hide behind programs as P >= 2X).
    let g = geometry(1, 2);
    let mut f = timed(g, 64);
    let k = 5;
    for i in 0..2 * k {
        program_on_die(&mut f, i % 2, i / 2);
    }
    f.sync().unwrap();
    assert_eq!(f.now_ns(), 2 * X + u64::from(k) * P);
    assert_eq!(f.busy_ns_per_channel(), &[2 * u64::from(k) * X]);
}

#[test]
fn sync_waits_for_the_slowest_die() {
    let g = geometry(4, 1);
    let mut f = timed(g, 64);
    program_on_die(&mut f, 0, 0);
    for page in 0..3 {
        program_on_die(&mut f, 1, page);
    }
    f.erase(g.block_on_die(2, 1)).unwrap();
    f.sync().unwrap();
    // Die 0: X + P; die 1: X + 3P; die 2: E (the slowest).
    assert_eq!(f.now_ns(), E);
    assert_eq!(f.busy_ns_per_die(), &[P, 3 * P, E, 0]);
    // A sync with nothing outstanding costs nothing.
    f.sync().unwrap();
    assert_eq!(f.now_ns(), E);
}

#[test]
fn a_full_queue_stalls_the_host_until_the_earliest_command_completes() {
    // Queue depth 4, every program to die 0. Program j completes at
    // c_j = X + (j+1)*P. The 5th waits for c_0, the 6th for c_1.
    let g = geometry(4, 1);
    let mut f = timed(g, 4);
    for page in 0..4 {
        program_on_die(&mut f, 0, page);
    }
    assert_eq!((f.now_ns(), f.stall_ns()), (0, 0));
    program_on_die(&mut f, 0, 4);
    assert_eq!(f.now_ns(), X + P);
    assert_eq!(f.stall_ns(), X + P);
    program_on_die(&mut f, 0, 5);
    assert_eq!(f.now_ns(), X + 2 * P);
    assert_eq!(f.stall_ns(), X + 2 * P);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), X + 6 * P);
    assert_eq!(f.stats().sync_wait_ns, 4 * P);

    // The same commands with a deep queue never stall and end at the same time.
    let mut deep = timed(g, 64);
    for page in 0..6 {
        program_on_die(&mut deep, 0, page);
    }
    assert_eq!((deep.now_ns(), deep.stall_ns()), (0, 0));
    deep.sync().unwrap();
    assert_eq!(deep.now_ns(), X + 6 * P);
}

#[test]
fn reads_make_the_host_wait_for_the_die_and_the_transfer() {
    let g = geometry(2, 1);
    let mut f = timed(g, 64);
    let ps = g.page_size();
    let mut page = vec![0; ps];
    let mut sector = vec![0; g.sector_size as usize];
    let mut oob = vec![0; 128];
    // Idle die: read time plus a full-page transfer.
    f.read(PageAddr::new(0, 0), 0, &mut page).unwrap();
    let mut t = R + X;
    assert_eq!(f.now_ns(), t);
    // One sector of four from another page: sensing plus a quarter of the
    // transfer.
    f.read(PageAddr::new(0, 1), 2, &mut sector).unwrap();
    t += R + X / 4;
    assert_eq!(f.now_ns(), t);
    // The page is still in the die's register: its OOB, 128 bytes, costs
    // only ceil(20000 * 128 / 16384) = 157 ns of transfer.
    f.read_oob(PageAddr::new(0, 1), &mut oob).unwrap();
    t += 157;
    assert_eq!(f.now_ns(), t);
    // Another page senses again.
    f.read_oob(PageAddr::new(0, 0), &mut oob).unwrap();
    t += R + 157;
    assert_eq!(f.now_ns(), t);
    assert_eq!(f.stats().read_wait_ns, t);

    // A read queued behind a program on the same die waits for it:
    // program transfer [t, t+X], program [t+X, t+X+P], read sense
    // [t+X+P, t+X+P+R], read transfer after that.
    program_on_die(&mut f, 0, 0);
    f.read(PageAddr::new(0, 0), 0, &mut page).unwrap();
    assert_eq!(f.now_ns(), t + X + P + R + X);
    assert!(
        page.iter().all(|&b| b == 0),
        "the read sees the programmed data"
    );
    // A read on another die does not wait for that die's neighbours.
    let t = f.now_ns();
    program_on_die(&mut f, 0, 1);
    f.read(PageAddr::new(g.block_on_die(1, 0).0, 0), 0, &mut page)
        .unwrap();
    assert_eq!(f.now_ns(), t + R + X);
}

#[test]
fn erases_are_asynchronous_and_delay_later_commands_on_their_die() {
    let g = geometry(2, 1);
    let mut f = timed(g, 64);
    f.erase(BlockId(0)).unwrap();
    assert_eq!(f.now_ns(), 0);
    // The program's transfer overlaps the erase; the die programs after it.
    program_on_die(&mut f, 0, 0);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), E + P);
    assert_eq!(f.busy_ns_per_die(), &[E + P, 0]);
    assert_eq!(f.counters().erases, 1);
}

#[test]
fn host_time_is_charged_per_command_and_on_demand() {
    let g = geometry(1, 1);
    let mut c = config(64);
    c.host_op_ns = 1_000;
    let mut f = TimedFlash::new(MemFlash::new(g).unwrap(), c);
    program_on_die(&mut f, 0, 0); // issued at 1000, done at 1000 + X + P
    assert_eq!(f.now_ns(), 1_000);
    f.advance_host(5_000);
    assert_eq!(f.now_ns(), 6_000);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), 1_000 + X + P);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), 2_000 + X + P, "sync itself costs host time");
}

#[test]
fn refused_commands_cost_no_time() {
    let g = geometry(1, 1);
    let mut f = timed(g, 64);
    program_on_die(&mut f, 0, 3);
    let before: TimingStats = f.stats();
    let busy = f.busy_ns_per_die().to_vec();
    let e = f
        .program(PageAddr::new(0, 1), &vec![0; g.page_size()], &[])
        .unwrap_err();
    assert!(matches!(e, FlashError::ProgramOutOfOrder { .. }), "{e}");
    assert!(f.erase(BlockId(999)).is_err());
    assert!(f.read(PageAddr::new(0, 99), 0, &mut [0; 16]).is_err());
    assert_eq!(f.stats(), before);
    assert_eq!(f.busy_ns_per_die(), busy.as_slice());
}

#[test]
fn data_and_raw_access_pass_through_unchanged() {
    let g = Geometry::tiny();
    let mut f = TimedFlash::new(MemFlash::new(g).unwrap(), TimingConfig::for_geometry(&g));
    let data = vec![0xA5; g.page_size()];
    f.program(PageAddr::new(1, 0), &data, &[7]).unwrap();
    let mut back = vec![0; g.page_size()];
    f.read(PageAddr::new(1, 0), 0, &mut back).unwrap();
    assert_eq!(back, data);
    f.nvram_write(3, &[1, 2]).unwrap();
    let mut nv = [0; 2];
    f.nvram_read(3, &mut nv).unwrap();
    assert_eq!(nv, [1, 2]);
    assert_eq!(f.nvram_size(), f.inner().nvram_size());
    let img = f.page_image(PageAddr::new(1, 0)).unwrap();
    let PageImage::Programmed { data: d, oob } = &img else {
        panic!("expected a programmed page, got {img:?}");
    };
    assert_eq!(&d[..], &data[..]);
    assert_eq!(oob[0], 7);
    let t = f.now_ns();
    f.set_page_image(PageAddr::new(1, 0), PageImage::Erased)
        .unwrap();
    assert_eq!(f.now_ns(), t, "raw access costs no time");
    assert!(f.inner().is_erased(PageAddr::new(1, 0)).unwrap());
    assert_eq!(f.counters(), f.inner().counters());
    let inner = f.into_inner();
    assert_eq!(inner.counters().programs, 1);
}

#[test]
fn absurd_latencies_saturate_instead_of_panicking() {
    let g = geometry(1, 1);
    let c = TimingConfig {
        read_ns: u64::MAX,
        program_ns: u64::MAX,
        erase_ns: u64::MAX,
        channel_xfer_ns_per_page: u64::MAX,
        queue_depth: NonZeroUsize::new(1).unwrap(),
        host_op_ns: u64::MAX,
    };
    let mut f = TimedFlash::new(MemFlash::new(g).unwrap(), c);
    for page in 0..3 {
        program_on_die(&mut f, 0, page);
    }
    f.erase(BlockId(1)).unwrap();
    let mut buf = vec![0; g.page_size()];
    f.read(PageAddr::new(0, 0), 0, &mut buf).unwrap();
    f.advance_host(u64::MAX);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), u64::MAX);
}

#[test]
fn a_read_right_after_a_probe_only_transfers() {
    let g = geometry(2, 1);
    let mut f = timed(g, 64);
    let ps = g.page_size();
    let p = PageAddr::new(0, 0);
    // An erased page: the probe costs one sensing, no transfer.
    assert!(f.probe_erased(p).unwrap());
    assert_eq!(f.now_ns(), R);
    f.program(p, &vec![1; ps], &[]).unwrap();
    f.sync().unwrap();
    let t = f.now_ns();
    assert!(!f.probe_erased(p).unwrap());
    assert_eq!(f.now_ns(), t + R);
    // The page is in the die's register: the read only transfers it.
    let mut page = vec![0; ps];
    f.read(p, 0, &mut page).unwrap();
    assert_eq!(f.now_ns(), t + R + X);
    // It stays there until the die programs or erases.
    f.read(p, 0, &mut page).unwrap();
    assert_eq!(f.now_ns(), t + R + 2 * X);
    f.erase(BlockId(1)).unwrap();
    f.sync().unwrap();
    let t = f.now_ns();
    f.read(p, 0, &mut page).unwrap();
    assert_eq!(
        f.now_ns(),
        t + R + X,
        "an erase on the die cleared the register"
    );
}

#[test]
fn prefetch_senses_pages_on_all_dies_in_parallel() {
    let g = geometry(2, 1);
    let mut f = timed(g, 64);
    let ps = g.page_size();
    let dies = g.dies();
    // One page on every die, programmed and synced.
    let pages: Vec<PageAddr> = (0..dies)
        .map(|d| PageAddr::new(d * g.blocks_per_die, 0))
        .collect();
    for &p in &pages {
        f.program(p, &vec![7; ps], &[]).unwrap();
    }
    f.sync().unwrap();
    let t = f.now_ns();
    f.prefetch(&pages).unwrap();
    assert_eq!(f.now_ns(), t, "a prefetch does not make the host wait");
    let mut buf = vec![0; ps];
    for &p in &pages {
        f.read(p, 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 7));
    }
    // All dies sensed at once; the host then waits for each transfer in
    // turn (reads are synchronous): one sensing instead of one per die.
    assert_eq!(f.now_ns(), t + R + u64::from(dies) * X);
    assert!(f.prefetch(&[PageAddr::new(0, 999)]).is_err());
}

#[test]
fn a_read_with_oob_is_one_command_sensed_once() {
    let g = geometry(2, 1);
    let mut f = timed(g, 64);
    let ss = g.sector_size as usize;
    let mut data = vec![0; 2 * ss];
    let mut oob = vec![0; 128];
    // Sensing, then one transfer of two sectors plus 128 bytes of spare:
    // ceil(20000 * (8192 + 128) / 16384) = 10157 ns.
    f.read_with_oob(PageAddr::new(0, 0), 1, &mut data, &mut oob)
        .unwrap();
    assert_eq!(f.now_ns(), R + 10_157);
    assert_eq!(f.counters().reads, 1, "one command, counted once");
    assert_eq!(f.counters().bytes_read, (2 * ss + 128) as u64);
    assert!(data.iter().chain(oob.iter()).all(|&b| b == 0xFF));
}

#[test]
fn a_read_for_copy_delays_the_program_that_carries_it_not_the_host() {
    let g = geometry(2, 1);
    let mut f = timed(g, 64);
    let ps = g.page_size();
    let mut data = vec![0; ps];
    let mut oob = vec![0; 128];
    // Die 0 is busy programming until X + P; a read for copy of one of its
    // pages senses after that and arrives at X + P + R + transfer.
    program_on_die(&mut f, 0, 0);
    let src = PageAddr::new(0, 0);
    f.read_for_copy(src, 0, &mut data, &mut oob).unwrap();
    assert_eq!(f.now_ns(), 0, "the host does not wait for a read for copy");
    assert_eq!(f.stats().read_wait_ns, 0);
    assert_eq!(f.stats().copy_reads, 1);
    assert!(
        data.iter().all(|&b| b == 0),
        "the data is the programmed page"
    );
    let arrived = X + P + R + X + 157;
    // A program on the idle die 1 that carries none of it starts at once.
    let t_free = f.stats().idle_at_ns;
    assert_eq!(t_free, arrived);
    program_on_die(&mut f, 1, 0);
    assert_eq!(
        f.stats().idle_at_ns,
        arrived,
        "die 1 done at X + P < arrived"
    );
    // One that carries it starts its transfer only when the data arrived.
    let dst = PageAddr {
        block: g.block_on_die(1, 0),
        page: 1,
    };
    f.copy_into(src, dst);
    program_on_die(&mut f, 1, 1);
    assert_eq!(f.stats().idle_at_ns, arrived + X + P);
    assert_eq!(f.now_ns(), 0);
    // Only that program waited: the next one does not wait again.
    program_on_die(&mut f, 1, 2);
    assert_eq!(f.stats().idle_at_ns, arrived + X + P + P);
    f.sync().unwrap();
    assert_eq!(f.now_ns(), arrived + X + P + P);
}
