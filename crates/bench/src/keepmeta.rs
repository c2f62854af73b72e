//! `KeepMetaFlash`: DatalessFlash for FTLs that put metadata in data
//! blocks. DatalessFlash keeps only an 8-byte tag per sector of a data
//! block, which is all a benchmark's own sectors hold (tag, then zeros);
//! OPTR also writes coalescing-record sectors, trim records and segment
//! summary pages into its data segments, and its recovery must read them
//! back whole. This wrapper keeps, beside the inner device, a full copy of
//! every programmed page that has a sector the tag-only model would not
//! return unchanged, and serves reads of such pages from the copy.
//!
//! Invariants: every command still goes to the inner device first, so
//! the NAND rules, counters and (under `TimedFlash`) timing are the inner
//! device's; a kept page is dropped when its block is erased; the kept
//! copies are exactly the pages whose data differs from what the inner
//! device returns.

use std::collections::HashMap;

use flash::dataless::TAG_BYTES;
use flash::{BlockId, DatalessFlash, Flash, Geometry, PageAddr, ProgramCmd, ReadCmd, Result};

/// DatalessFlash that also keeps whole pages the tag-only model would
/// corrupt.
pub struct KeepMetaFlash {
    inner: DatalessFlash,
    /// (block, page) → page data, for pages the inner device cannot return.
    kept: HashMap<(u32, u32), Box<[u8]>>,
}

impl KeepMetaFlash {
    pub fn new(inner: DatalessFlash) -> KeepMetaFlash {
        KeepMetaFlash {
            inner,
            kept: HashMap::new(),
        }
    }

    /// Pages kept whole (for the report).
    pub fn kept_pages(&self) -> usize {
        self.kept.len()
    }

    /// Whether reading back `data` from a tag-only page would change it:
    /// some sector has a non-zero byte after its tag.
    fn needs_keeping(&self, data: &[u8]) -> bool {
        let ss = self.inner.geometry().sector_size as usize;
        data.chunks(ss)
            .any(|s| s[TAG_BYTES..].iter().any(|&b| b != 0))
    }

    /// Overwrites the sectors of `data` (starting at `first_sector`) with
    /// the kept copy of `page`, if there is one.
    fn patch(&self, page: PageAddr, first_sector: u32, data: &mut [u8]) {
        if let Some(k) = self.kept.get(&(page.block.0, page.page)) {
            let ss = self.inner.geometry().sector_size as usize;
            let off = first_sector as usize * ss;
            data.copy_from_slice(&k[off..off + data.len()]);
        }
    }
}

/// Commands reach the tag-only device in the form they came in; this
/// layer only patches the data of reads and keeps copies of programs.
impl flash::Layer for KeepMetaFlash {
    flash::layer_below!(inner: DatalessFlash);
    fn geometry(&self) -> &Geometry {
        self.inner.geometry()
    }
    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        let mut cmd = cmd;
        let page = cmd.page();
        let answer = cmd.issue(&mut self.inner)?;
        if let Some((first_sector, data)) = cmd.data_mut() {
            self.patch(page, first_sector, data);
        }
        Ok(answer)
    }
    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        let outcome = cmd.issue(&mut self.inner);
        let done = cmd.done(&outcome);
        let ss = self.inner.geometry().sector_size as usize;
        for (page, data, _) in cmd.each(self.inner.geometry())?.take(done) {
            // A page whose sectors are all erased bytes (padding) reads back
            // as tags of 0xFF followed by zeros; nobody checks those.
            let padding = data.chunks(ss).all(|s| s.iter().all(|&b| b == 0xFF));
            if !padding && self.needs_keeping(data) {
                self.kept.insert((page.block.0, page.page), data.into());
            }
        }
        outcome
    }
    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.inner.erase(block)?;
        let ppb = self.inner.geometry().pages_per_block;
        for p in 0..ppb {
            self.kept.remove(&(block.0, p));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_pages_read_back_whole_and_go_with_their_erase() {
        let g = Geometry::small();
        let mut f = KeepMetaFlash::new(
            DatalessFlash::new(g, vec![false; g.total_blocks() as usize]).unwrap(),
        );
        let ps = g.page_size();
        let mut meta = vec![0u8; ps];
        meta[100] = 7;
        let mut tagged = vec![0u8; ps];
        tagged[..TAG_BYTES].copy_from_slice(&[1; TAG_BYTES]);
        let (a, b) = (PageAddr::new(0, 0), PageAddr::new(0, 1));
        f.program(a, &meta, &[]).unwrap();
        f.program(b, &tagged, &[]).unwrap();
        let mut out = vec![0u8; ps];
        f.read(a, 0, &mut out).unwrap();
        assert_eq!(out, meta);
        f.read(b, 0, &mut out).unwrap();
        assert_eq!(out, tagged);
        assert_eq!(f.kept_pages(), 1);
        f.erase(BlockId(0)).unwrap();
        assert_eq!(f.kept_pages(), 0);
    }

    /// The layer's forwarding (crates/flash/tests/layers.rs lists it): a
    /// multi-page program keeps its metadata pages as single programs do,
    /// and a read with OOB is one read command on the device below.
    #[test]
    fn a_multi_page_program_is_kept_and_a_read_with_oob_is_one_command() {
        let g = Geometry::small();
        let mut f = KeepMetaFlash::new(
            DatalessFlash::new(g, vec![false; g.total_blocks() as usize]).unwrap(),
        );
        let ps = g.page_size();
        let mut data = vec![0u8; 2 * ps];
        data[100] = 7;
        data[ps..ps + TAG_BYTES].copy_from_slice(&[1; TAG_BYTES]);
        let pages = [PageAddr::new(0, 0), PageAddr::new(0, 1)];
        f.program_many(&pages, &data, &[]).unwrap();
        assert_eq!(f.kept_pages(), 1);
        let before = f.counters();
        let mut out = vec![0u8; ps];
        let mut oob = [0u8; 4];
        f.read_with_oob(pages[0], 0, &mut out, &mut oob).unwrap();
        assert_eq!(out, data[..ps]);
        f.read_with_oob(pages[1], 0, &mut out, &mut oob).unwrap();
        assert_eq!(out, data[ps..]);
        assert_eq!(f.counters().since(&before).reads, 2);
    }
}
