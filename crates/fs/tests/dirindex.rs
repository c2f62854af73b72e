//! The in-memory directory index (crates/fs/src/dirindex.rs) on a large
//! directory, in every (FTL, mode) pair: lookups touch a constant number
//! of metadata blocks however long the directory, and creates, unlinks
//! and renames keep the index and the blocks in step, across a failed call
//! (which drops the index) and a remount (which rebuilds it).

use crate::common;

use std::collections::BTreeSet;

use common::*;
use fs::{errno, Fs, Owner, ROOT_INO};

const ROOT: u64 = ROOT_INO as u64;
const U: Owner = Owner::new(7, 7);

/// A name of 40 bytes: 85 entries per directory block.
fn name(i: usize) -> Vec<u8> {
    format!("entry-{i:06}-padding-padding-padding-pad").into_bytes()
}

fn names_of(fs: &mut Fs<Dev>, dir: u64) -> BTreeSet<Vec<u8>> {
    fs.readdir_all(dir)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .filter(|n| n != b"." && n != b"..")
        .collect()
}

/// Metadata blocks read (through the cache) by `f`.
fn meta_reads(fs: &mut Fs<Dev>, f: impl FnOnce(&mut Fs<Dev>)) -> u64 {
    let before = fs.stats();
    f(fs);
    let after = fs.stats();
    (after.cache_hits + after.cache_misses) - (before.cache_hits + before.cache_misses)
}

#[test]
fn a_large_directory_stays_indexed_and_consistent() {
    const N: usize = 1700; // 20 directory blocks
    for cfg in CONFIGS {
        let mut fs = fresh(cfg);
        let d = fs.mkdir(ROOT, b"big", 0o755, U).unwrap().ino;
        let mut want = BTreeSet::new();
        for i in 0..N {
            let a = fs.create(d, &name(i), 0o100644, U).unwrap();
            fs.release(a.ino).unwrap();
            want.insert(name(i));
        }
        assert!(fs.getattr(d).unwrap().size >= 20 * 4096, "{cfg}");
        // A lookup of the last name reads a handful of blocks, not the
        // directory's twenty.
        let n = meta_reads(&mut fs, |fs| {
            fs.lookup(d, &name(N - 1)).unwrap();
        });
        assert!(n <= 10, "{cfg}: a lookup read {n} metadata blocks");
        let n = meta_reads(&mut fs, |fs| {
            assert_eq!(fs.lookup(d, b"absent").unwrap_err().errno(), errno::ENOENT);
        });
        assert!(n <= 6, "{cfg}: a failed lookup read {n} metadata blocks");

        // Unlink every third entry, rename some within and out of the
        // directory, create new ones into the freed room.
        for i in (0..N).step_by(3) {
            fs.unlink(d, &name(i)).unwrap();
            want.remove(&name(i));
        }
        for i in (1..N).step_by(50).filter(|i| i % 3 != 0) {
            fs.rename(d, &name(i), d, &name(N + i), 0).unwrap();
            want.remove(&name(i));
            want.insert(name(N + i));
        }
        fs.rename(d, &name(2), ROOT, b"moved", 0).unwrap();
        want.remove(&name(2));
        for i in (0..N).step_by(3).take(300) {
            let a = fs.create(d, &name(2 * N + i), 0o100644, U).unwrap();
            fs.release(a.ino).unwrap();
            want.insert(name(2 * N + i));
        }
        // A call that fails its checks (EEXIST) keeps the indexes; lookups
        // still work.
        assert_eq!(
            fs.create(d, &name(4), 0o100644, U).unwrap_err().errno(),
            errno::EEXIST
        );
        for n in want.iter().step_by(97) {
            fs.lookup(d, n).unwrap_or_else(|e| panic!("{cfg}: {e}"));
        }
        assert_eq!(names_of(&mut fs, d), want, "{cfg}");
        assert_clean(&mut fs);

        let mut fs = remount(fs);
        for n in want.iter().step_by(89) {
            fs.lookup(d, n)
                .unwrap_or_else(|e| panic!("{cfg}: after remount: {e}"));
        }
        for i in (0..N).step_by(3).take(10) {
            assert_eq!(
                fs.lookup(d, &name(i)).unwrap_err().errno(),
                errno::ENOENT,
                "{cfg}"
            );
        }
        assert_eq!(names_of(&mut fs, d), want, "{cfg}");
        fs.lookup(ROOT, b"moved").unwrap();
    }
}
