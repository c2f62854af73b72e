//! Metadata rotation (issue 14; configuration version 7, docs/FORMAT.md
//! §4.5): with wear leveling on (dynamic alone, as `scftl mount` runs,
//! included), full checkpoints move the checkpoint slots and the delta
//! region onto less-worn superblocks, so they no longer wear several times
//! faster than data; `open` finds the moved checkpoint by a
//! scan; an image of configuration version 6 keeps its regions where
//! format put them. (Crash safety of a rotation is the crash checker's:
//! `scftl crashtest --wear-leveling`.)

use crate::common;

use flash::{BlockId, Flash, Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::wear::WearPolicy;
use ftl::{BlockDevice, Lba};

/// A deterministic 80/20 stream: 80% of writes to the first fifth.
struct Skewed(u64);

impl Skewed {
    fn next(&mut self, l: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let hot = l / 5;
        if self.0 % 10 < 8 {
            (self.0 >> 8) % hot
        } else {
            hot + (self.0 >> 8) % (l - hot)
        }
    }
}

fn sector(la: u64, v: u32, ss: usize) -> Vec<u8> {
    let mut b = vec![(la as u8) ^ (v as u8); ss];
    b[..8].copy_from_slice(&la.to_le_bytes());
    b[8..12].copy_from_slice(&v.to_le_bytes());
    b
}

/// Writes `device_writes` times the logical size, 80/20, flushing every
/// 64 writes; returns each sector's version.
fn run(d: &mut Scftl<MemFlash>, device_writes: u64, versions: &mut [u32]) {
    let l = d.num_sectors();
    let ss = d.sector_size();
    let mut pick = Skewed(0x9E37_79B9_7F4A_7C15);
    for i in 0..device_writes * l {
        if d.epoch_remaining() == Some(0) {
            d.flush().unwrap();
        }
        let la = pick.next(l);
        versions[la as usize] += 1;
        d.write(Lba(la), &sector(la, versions[la as usize], ss))
            .unwrap();
        if i % 64 == 63 {
            d.flush().unwrap();
        }
    }
    d.flush().unwrap();
}

fn check(d: &mut Scftl<MemFlash>, versions: &[u32]) {
    let ss = d.sector_size();
    let mut buf = vec![0u8; ss];
    for (la, &v) in versions.iter().enumerate() {
        d.read(Lba(la as u64), &mut buf).unwrap();
        let want = if v == 0 {
            vec![0; ss]
        } else {
            sector(la as u64, v, ss)
        };
        assert!(buf == want, "sector {la} (version {v})");
    }
}

/// The largest erase count of the blocks outside superblock 0 (the label
/// block and the unused blocks beside it), over their average.
fn erase_max_over_avg(f: &MemFlash, g: &Geometry) -> f64 {
    let sb0: Vec<u32> = (0..g.dies()).map(|d| g.block_on_die(d, 0).0).collect();
    let counts: Vec<u64> = (0..g.total_blocks())
        .filter(|b| !sb0.contains(b))
        .map(|b| u64::from(f.block_wear(BlockId(b)).unwrap().erases))
        .collect();
    let avg = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
    *counts.iter().max().unwrap() as f64 / avg
}

/// `small`'s default with delta pages of 64 pairs: each 64-write epoch
/// then takes about two region pages, so the region fills and a full
/// checkpoint comes often enough for six device writes to wear the
/// metadata blocks far ahead of the data (with full-page delta pages, the
/// default, it takes about twice the writes).
fn config(g: &Geometry) -> ScftlConfig {
    let mut c = ScftlConfig::default_for(g);
    c.delta_pairs_per_page = 64;
    c
}

fn formatted(g: Geometry) -> Scftl<MemFlash> {
    Scftl::format(MemFlash::new(g).unwrap(), config(&g)).unwrap()
}

#[test]
fn rotation_spreads_metadata_wear_and_open_finds_the_moved_checkpoint() {
    let g = Geometry::small();
    let initial = Scftl::<MemFlash>::metadata_blocks(&g, &config(&g));
    let mut ratios = Vec::new();
    for policy in [WearPolicy::OFF, WearPolicy::DYNAMIC, WearPolicy::DEFAULT] {
        let mut d = formatted(g);
        d.set_wear_policy(policy);
        let mut versions = vec![0u32; d.num_sectors() as usize];
        run(&mut d, 6, &mut versions);
        let rotations = d.metadata_rotations();
        let now = d.metadata_blocks_now();
        // Any leveling rotates (dynamic alone too: `scftl mount`'s).
        assert_eq!(rotations > 0, policy != WearPolicy::OFF, "{policy:?}");
        assert_eq!(now != initial, rotations > 0);
        d.check_invariants().unwrap();
        let f = d.into_flash();
        ratios.push(erase_max_over_avg(&f, &g));
        // Recovery scans for the newest commit record and takes its map.
        let mut d = Scftl::open(f).unwrap();
        assert_eq!(d.metadata_blocks_now(), now);
        check(&mut d, &versions);
        d.check_invariants().unwrap();
        // And the device keeps working from there.
        d.set_wear_policy(policy);
        run(&mut d, 1, &mut versions);
        let mut d = Scftl::open(d.into_flash()).unwrap();
        check(&mut d, &versions);
    }
    // Without rotation the metadata blocks, erased at every full
    // checkpoint, end up worn far above the average; with it they do not.
    assert!(
        ratios[0] > 2.0,
        "erase max/avg without rotation: {ratios:?}"
    );
    assert!(ratios[1] < 1.5, "erase max/avg with rotation: {ratios:?}");
    assert!(ratios[2] < 1.5, "erase max/avg with rotation: {ratios:?}");
}

#[test]
fn a_version_6_image_keeps_its_metadata_in_place() {
    let g = Geometry::small();
    let d = formatted(g);
    let initial = d.metadata_blocks_now();
    let mut f = d.into_flash();
    assert_eq!(common::relabel_scftl_version(&mut f, 6), 9);
    let mut d = Scftl::open(f).unwrap();
    d.set_wear_policy(WearPolicy::DEFAULT);
    let mut versions = vec![0u32; d.num_sectors() as usize];
    run(&mut d, 4, &mut versions);
    assert_eq!(d.metadata_rotations(), 0);
    assert_eq!(d.metadata_blocks_now(), initial);
    let mut f = d.into_flash();
    assert_eq!(common::relabel_scftl_version(&mut f, 6), 6, "stays 6");
    let mut d = Scftl::open(f).unwrap();
    check(&mut d, &versions);
    d.check_invariants().unwrap();
}
