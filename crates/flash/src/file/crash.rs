//! The image backend's own power-cut model (docs/FORMAT.md §2, "Host power
//! cut"): [`MemImage`], an image file kept in memory that records every
//! write since the last `fdatasync`, and [`ImageCrashFlash`], a
//! [`FileFlash`] over it that cuts power on command and turns the recorded
//! writes into a post-crash file.
//!
//! What a cut leaves: the file is cut into 512-byte sectors; each sector
//! written since the last sync ends up, independently of every other sector,
//! with its content before the first such write or after any one of them.
//! So a multi-sector write may be torn at sector boundaries, writes may
//! persist out of order across sectors, and a write may be lost — the page
//! bytes, page-state bytes and nvram bytes of `FileFlash` alike. A sector
//! never holds bytes no write put there (512-byte sector atomicity, the
//! disk's promise). After the cut the `FileFlash` is opened again from the
//! post-crash bytes, as a new process would.
//!
//! Which commands count, arming and the policies follow
//! [`crate::CrashFlash`]: program, erase, sync and nvram writes are the
//! crash points; an armed cut fails the n-th command and everything after
//! it until [`ImageCrashFlash::crash`]. The policies map to sectors: `Random`
//! and `AllGarbage` pick each sector's version uniformly (garbage is not in
//! this model), `AllApplied` keeps the newest, `NoneApplied` the oldest.
//!
//! Invariants:
//! - for every tracked sector, `history[s]` holds its content before the
//!   first unsynced write and after each unsynced write but the last (the
//!   last is in `bytes`); `sync_data` clears `history`;
//! - power is a `crate::crash::PowerSwitch`, as in `CrashFlash`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::rc::Rc;

use rand::{Rng, RngCore};

use super::{FileFlash, ImageIo, ImageLayout};
use crate::crash::{CommandLog, CrashPolicy, CrashReport, Injection, LoggedCommand, PowerSwitch};
use crate::mem::default_nvram_size;
use crate::{
    BlockId, Flash, FlashError, Geometry, PageAddr, PageImage, ProgramCmd, RawFlash, ReadCmd,
    Result,
};

/// The unit of atomicity of the modelled disk.
pub const IMAGE_SECTOR_BYTES: usize = 512;

/// How an in-memory image is named in messages.
const SHOWN: &str = "(image crash model)";

struct MemFile {
    bytes: Vec<u8>,
    /// Sector index → its versions before the newest (see the invariants).
    history: BTreeMap<u64, Vec<Box<[u8]>>>,
}

/// An image file in memory that remembers the writes a power cut may undo.
/// Clones share the file.
#[derive(Clone)]
pub struct MemImage(Rc<RefCell<MemFile>>);

impl MemImage {
    /// A file of `len` zero bytes (a sparse, fully erased image).
    pub fn zeroed(len: usize) -> MemImage {
        MemImage(Rc::new(RefCell::new(MemFile {
            bytes: vec![0; len],
            history: BTreeMap::new(),
        })))
    }

    /// Sectors written since the last sync.
    pub fn sectors_in_flight(&self) -> usize {
        self.0.borrow().history.len()
    }

    /// Versions each in-flight sector may end up with, in sector order.
    fn choices(&self) -> Vec<usize> {
        self.0
            .borrow()
            .history
            .values()
            .map(|v| v.len() + 1)
            .collect()
    }

    /// Rewrites every in-flight sector `s` (in sector order) with its
    /// version `pick[s]` (the last is its current content) and forgets the
    /// history.
    fn settle_with(&self, pick: &[usize], report: &mut CrashReport) {
        let mut f = self.0.borrow_mut();
        let history = std::mem::take(&mut f.history);
        for ((sector, versions), &k) in history.into_iter().zip(pick) {
            report.pages += 1;
            if k >= versions.len() {
                report.applied += 1;
                continue;
            }
            if k == 0 {
                report.old += 1;
            } else {
                report.intermediate += 1;
            }
            let at = sector as usize * IMAGE_SECTOR_BYTES;
            let v = &versions[k];
            f.bytes[at..at + v.len()].copy_from_slice(v);
        }
    }
}

impl ImageIo for MemImage {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let f = self.0.borrow();
        let at = usize::try_from(offset).map_err(|_| io::ErrorKind::UnexpectedEof)?;
        let src = f
            .bytes
            .get(at..at.saturating_add(buf.len()))
            .ok_or(io::ErrorKind::UnexpectedEof)?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let mut f = self.0.borrow_mut();
        let at = usize::try_from(offset).map_err(|_| io::ErrorKind::InvalidInput)?;
        let end = at.saturating_add(buf.len());
        if end > f.bytes.len() {
            // The image never grows after creation.
            return Err(io::ErrorKind::InvalidInput.into());
        }
        let first = at / IMAGE_SECTOR_BYTES;
        let last = end.div_ceil(IMAGE_SECTOR_BYTES);
        for s in first..last {
            let lo = s * IMAGE_SECTOR_BYTES;
            let hi = (lo + IMAGE_SECTOR_BYTES).min(f.bytes.len());
            let before: Box<[u8]> = f.bytes[lo..hi].into();
            f.history.entry(s as u64).or_default().push(before);
        }
        f.bytes[at..end].copy_from_slice(buf);
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        self.0.borrow_mut().history.clear();
        Ok(())
    }

    fn byte_len(&self) -> io::Result<u64> {
        Ok(self.0.borrow().bytes.len() as u64)
    }
}

/// A [`FileFlash`] image in memory under the host power-cut model (see the
/// file documentation).
pub struct ImageCrashFlash {
    file: MemImage,
    flash: FileFlash<MemImage>,
    power: PowerSwitch,
    /// Injected media failures still to come (as in `CrashFlash`).
    inject: Injection,
    /// The opt-in command log (as in `CrashFlash`).
    log: CommandLog,
}

impl ImageCrashFlash {
    /// A fresh, fully erased image of `geometry` with the default nvram.
    pub fn new(geometry: Geometry) -> Result<ImageCrashFlash> {
        let nvram = default_nvram_size(&geometry);
        let layout = ImageLayout::compute(&geometry, nvram as u64).ok_or_else(|| {
            FlashError::BadGeometry {
                field: "blocks_per_die",
                reason: "the image would be larger than 2^64 bytes".into(),
            }
        })?;
        let len = usize::try_from(layout.image_size).map_err(|_| FlashError::BadGeometry {
            field: "blocks_per_die",
            reason: "the image does not fit in memory".into(),
        })?;
        let file = MemImage::zeroed(len);
        let flash = FileFlash::create_on(file.clone(), SHOWN, geometry, nvram)?;
        Ok(ImageCrashFlash {
            file,
            flash,
            power: PowerSwitch::default(),
            inject: Injection::default(),
            log: CommandLog::default(),
        })
    }

    /// Turns the command log on or off (`CrashFlash::log_commands`).
    pub fn log_commands(&mut self, on: bool) {
        self.log.set(on);
    }

    /// The commands logged since the last call (`CrashFlash::take_commands`).
    pub fn take_commands(&mut self) -> Option<Vec<LoggedCommand>> {
        self.log.take()
    }

    /// The image backend as it is now.
    pub fn inner_mut(&mut self) -> &mut FileFlash<MemImage> {
        &mut self.flash
    }

    /// Arms a power cut, as [`crate::CrashFlash::set_crash_at`].
    pub fn set_crash_at(&mut self, n: u64) {
        self.power.arm(n);
    }

    /// Arms a cut right after an erase, as
    /// [`crate::CrashFlash::set_crash_after_erase`].
    pub fn set_crash_after_erase(&mut self, n: u64) {
        self.power.arm_after_erases(n);
    }

    /// Erase commands admitted so far.
    pub fn erases_issued(&self) -> u64 {
        self.power.erases()
    }

    /// Disarms a pending power cut.
    pub fn disarm(&mut self) {
        self.power.disarm();
    }

    /// Cuts power now, between two commands (as an armed cut does when it
    /// fires), as [`crate::CrashFlash::cut_power`].
    pub fn cut_power(&mut self) {
        self.power.cut();
    }

    /// Counted commands left before an armed cut fires, if one is armed.
    pub fn crash_pending(&self) -> Option<u64> {
        self.power.pending()
    }

    /// True after an armed power cut fired and before [`Self::crash`].
    pub fn is_powered_off(&self) -> bool {
        self.power.is_off()
    }

    /// Counted commands let through since creation.
    pub fn commands_issued(&self) -> u64 {
        self.power.commands()
    }

    /// Makes the `n`-th next program fail, as
    /// [`crate::CrashFlash::fail_nth_program`]: the page is consumed and
    /// reads as zeros (written to the image like any program, so a host
    /// power cut before the next sync may still undo it); `n = 0` disarms.
    pub fn fail_nth_program(&mut self, n: u64) {
        self.inject.program_in = (n > 0).then_some(n);
    }

    /// Makes the next `count` programs fail (a run of failures).
    pub fn fail_program_run(&mut self, count: u64) {
        self.inject.program_run = count;
    }

    /// Makes the `n`-th next erase fail, as
    /// [`crate::CrashFlash::fail_nth_erase`]: no page changes and the
    /// block's wear record says worn out (an image write, so like any
    /// unsynced write a host power cut may undo it); `n = 0` disarms.
    pub fn fail_nth_erase(&mut self, n: u64) {
        self.inject.erase_in = (n > 0).then_some(n);
    }

    /// Injected program and erase failures so far.
    pub fn injected_failures(&self) -> (u64, u64) {
        (self.inject.programs_failed, self.inject.erases_failed)
    }

    /// Crashes produced so far.
    pub fn crashes(&self) -> u64 {
        self.power.crashes()
    }

    /// Writes the programs the backend gathered into the modelled file, as
    /// unsynced writes a cut may undo. Every question about what a cut
    /// leaves starts with it: gathered programs were accepted, so their
    /// writes are in flight like every other unsynced write. (An I/O error
    /// cannot happen on the in-memory file; it would show at the next
    /// command.)
    fn submit_gathered(&mut self) {
        let _ = self.flash.submit();
    }

    /// File sectors written since the last sync (gathered programs
    /// included).
    pub fn sectors_in_flight(&mut self) -> usize {
        self.submit_gathered();
        self.file.sectors_in_flight()
    }

    /// Number of distinct post-crash files (the product of each in-flight
    /// sector's versions, gathered programs included), saturating at
    /// `u64::MAX`.
    pub fn outcome_count(&mut self) -> u64 {
        self.submit_gathered();
        self.file
            .choices()
            .iter()
            .fold(1u64, |acc, &c| acc.saturating_mul(c as u64))
    }

    /// Produces the post-crash image `policy` picks and reopens it.
    pub fn crash(&mut self, policy: CrashPolicy, rng: &mut dyn RngCore) -> Result<CrashReport> {
        self.submit_gathered();
        let pick: Vec<usize> = self
            .file
            .choices()
            .into_iter()
            .map(|c| match policy {
                CrashPolicy::AllApplied => c - 1,
                CrashPolicy::NoneApplied => 0,
                CrashPolicy::Random | CrashPolicy::AllGarbage => rng.gen_range(0..c),
            })
            .collect();
        self.crash_with(&pick)
    }

    /// Produces post-crash file number `index` (`0..outcome_count()`, a
    /// mixed-radix number whose first digit is the first sector's version).
    pub fn apply_outcome(&mut self, mut index: u64, _rng: &mut dyn RngCore) -> Result<CrashReport> {
        self.submit_gathered();
        let pick: Vec<usize> = self
            .file
            .choices()
            .into_iter()
            .map(|c| {
                let d = (index % c as u64) as usize;
                index /= c as u64;
                d
            })
            .collect();
        self.crash_with(&pick)
    }

    fn crash_with(&mut self, pick: &[usize]) -> Result<CrashReport> {
        let mut report = CrashReport {
            fired: self.power.is_off(),
            ..CrashReport::default()
        };
        self.file.settle_with(pick, &mut report);
        // A new process opens what the disk holds now.
        self.flash = FileFlash::open_on(self.file.clone(), SHOWN)?;
        self.power.restore();
        Ok(report)
    }

    fn begin_command(&mut self) -> Result<()> {
        self.power.begin_command()
    }

    fn check_power(&self) -> Result<()> {
        self.power.check()
    }
}

impl ImageCrashFlash {
    /// Programs one page: one counted command (a crash point).
    fn program_one(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        self.begin_command()?;
        self.log.program(self.power.commands(), page);
        self.flash.program(page, data, oob)?;
        if self.inject.program_fails() {
            let g = *self.flash.geometry();
            let d = vec![0u8; g.page_size()].into_boxed_slice();
            let o = vec![0u8; g.oob_size as usize].into_boxed_slice();
            self.flash
                .set_page_image(page, PageImage::Programmed { data: d, oob: o })?;
            return Err(FlashError::ProgramFailed {
                block: page.block.0,
                page: page.page,
            });
        }
        Ok(())
    }
    /// Each page is one counted command (a crash point), as with single
    /// programs. A run the armed cut falls inside is programmed page by
    /// page, so the cut fires at the same page; a whole run is handed to
    /// the backend's own `program_many`, which writes it at once. (If the
    /// backend refuses a page of the run — an FTL bug — the pages after it
    /// were counted all the same.)
    fn program_run(&mut self, pages: &[PageAddr], data: &[u8], oob: &[u8]) -> Result<()> {
        let n = pages.len() as u64;
        if self.power.is_off()
            || self.power.pending().is_some_and(|left| left < n)
            || self.inject.program_armed_within(n)
        {
            return crate::program_each(self, pages, data, oob);
        }
        for &page in pages {
            self.begin_command()?;
            self.log.program(self.power.commands(), page);
        }
        self.flash.program_many(pages, data, oob)
    }
}

impl crate::Layer for ImageCrashFlash {
    crate::layer_below!(flash: FileFlash<MemImage>);
    fn geometry(&self) -> &Geometry {
        self.flash.geometry()
    }
    /// Reads are no crash points; with the power off they fail.
    fn read(&mut self, cmd: ReadCmd<'_>) -> Result<bool> {
        self.check_power()?;
        let mut cmd = cmd;
        cmd.issue(&mut self.flash)
    }
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.check_power()?;
        self.flash.prefetch(pages)
    }
    fn program(&mut self, cmd: ProgramCmd<'_>) -> Result<()> {
        match cmd {
            ProgramCmd::One { page, data, oob } => self.program_one(page, data, oob),
            ProgramCmd::Many { pages, data, oob } => self.program_run(pages, data, oob),
        }
    }
    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.begin_command()?;
        self.power.erase_admitted();
        self.log.push(LoggedCommand::Erase {
            seq: self.power.commands(),
            block,
        });
        if self.inject.erase_fails() {
            self.flash.geometry().check_block(block)?;
            let mut wear = self.flash.block_wear(block)?;
            wear.erases = wear.erases.saturating_add(1);
            wear.health = crate::BlockHealth::WornOut;
            self.flash.set_block_wear(block, wear)?;
            return Err(FlashError::EraseFailed { block: block.0 });
        }
        self.flash.erase(block)
    }
    fn sync(&mut self) -> Result<()> {
        self.begin_command()?;
        self.flash.sync()?;
        let seq = self.power.commands();
        self.log.push(LoggedCommand::Sync { seq, through: seq });
        Ok(())
    }
    /// Not a flash command (no crash point): the gathered programs reach
    /// the modelled file, where a later cut may still undo them.
    fn submit(&mut self) -> Result<()> {
        self.check_power()?;
        self.flash.submit()
    }
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check_power()?;
        self.flash.nvram_read(offset, buf)
    }
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.begin_command()?;
        self.flash.nvram_write(offset, data)
    }
}

impl RawFlash for ImageCrashFlash {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.flash.page_image(page)
    }
    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.flash.set_page_image(page, image)
    }
    fn set_block_wear(&mut self, block: BlockId, wear: crate::BlockWear) -> Result<()> {
        self.flash.set_block_wear(block, wear)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn page(g: &Geometry, byte: u8) -> (Vec<u8>, Vec<u8>) {
        (vec![byte; g.page_size()], vec![byte; g.oob_size as usize])
    }

    #[test]
    fn synced_writes_survive_and_unsynced_ones_may_be_lost_or_torn() {
        let g = Geometry::tiny();
        let mut f = ImageCrashFlash::new(g).unwrap();
        let (d, o) = page(&g, 0x11);
        f.program(PageAddr::new(1, 0), &d, &o).unwrap();
        f.sync().unwrap();
        assert_eq!(f.sectors_in_flight(), 0);
        let (d2, o2) = page(&g, 0x22);
        f.program(PageAddr::new(1, 1), &d2, &o2).unwrap();
        // The page's data (1 KiB, block-aligned: 2 sectors), its OOB area
        // (one sector of the OOB region) and its state byte.
        assert_eq!(f.sectors_in_flight(), 4);
        assert_eq!(f.outcome_count(), 16);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        let mut seen = std::collections::HashSet::new();
        for i in 0..f.outcome_count() {
            let mut c = ImageCrashFlash::new(g).unwrap();
            c.program(PageAddr::new(1, 0), &d, &o).unwrap();
            c.sync().unwrap();
            c.program(PageAddr::new(1, 1), &d2, &o2).unwrap();
            c.apply_outcome(i, &mut rng).unwrap();
            // The synced page is intact in every outcome.
            let mut buf = vec![0u8; g.page_size()];
            c.read(PageAddr::new(1, 0), 0, &mut buf).unwrap();
            assert_eq!(buf, d);
            c.read(PageAddr::new(1, 1), 0, &mut buf).unwrap();
            seen.insert(buf);
        }
        // Erased, complete, and torn mixes of zeros (the sparse file's old
        // bytes) and new data all occur.
        assert!(seen.contains(&vec![0xFF; g.page_size()]));
        assert!(seen.contains(&d2));
        assert!(seen.len() > 3, "{}", seen.len());
        let _ = f.crash(CrashPolicy::NoneApplied, &mut rng).unwrap();
        assert!(f.probe_erased(PageAddr::new(1, 1)).unwrap());
    }

    /// The image model's torn OOB: with a 40-byte OOB (the checker's
    /// `tiny-oob40`), some pages' OOB areas straddle two 512-byte sectors
    /// of the OOB region, and a cut can keep the first part of such an area
    /// and lose the rest (with the presets' sizes, which divide 512, an OOB
    /// area tears only as a whole, apart from the page's data).
    #[test]
    fn an_oob_area_across_two_sectors_can_tear_inside() {
        let g = Geometry {
            oob_size: 40,
            ..Geometry::tiny()
        };
        let nvram = default_nvram_size(&g) as u64;
        let layout = ImageLayout::compute(&g, nvram).unwrap();
        let oob = u64::from(g.oob_size);
        let ss = IMAGE_SECTOR_BYTES as u64;
        // A page whose OOB area crosses a sector boundary, and where.
        let (page, split) = (0..g.total_pages())
            .map(|i| g.page_at(i))
            .find_map(|p| {
                let at = layout.oob_at(layout.slot(&g, p), g.page_size() as u64, oob);
                let boundary = at.next_multiple_of(ss);
                (boundary > at && boundary < at + oob).then_some((p, (boundary - at) as usize))
            })
            .expect("40 does not divide 512: some OOB area straddles");
        let d = vec![0x5A; g.page_size()];
        let o: Vec<u8> = (1..=40).collect();
        let mut f = ImageCrashFlash::new(g).unwrap();
        f.program(page, &d, &o).unwrap();
        // Two data sectors, two OOB sectors, the state byte's sector.
        assert_eq!(f.sectors_in_flight(), 5);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        let mut torn_inside = false;
        for i in 0..f.outcome_count() {
            let mut c = ImageCrashFlash::new(g).unwrap();
            c.program(page, &d, &o).unwrap();
            c.apply_outcome(i, &mut rng).unwrap();
            let mut got = vec![0u8; 40];
            if c.probe_erased(page).unwrap() {
                continue;
            }
            c.read_oob(page, &mut got).unwrap();
            let mut data = vec![0u8; g.page_size()];
            c.read(page, 0, &mut data).unwrap();
            if data == d && got[..split] == o[..split] && got[split..] != o[split..] {
                torn_inside = true;
            }
        }
        assert!(
            torn_inside,
            "no outcome keeps the data and the OOB up to byte {split} only"
        );
    }

    #[test]
    fn a_cut_inside_a_run_of_programs_fires_at_the_same_page() {
        let g = Geometry::tiny();
        // Two rows of superblock 3: consecutive slots, at least 4 pages.
        let run: Vec<PageAddr> = (0..2)
            .flat_map(|p| (0..g.dies()).map(move |d| PageAddr::new(d * g.blocks_per_die + 3, p)))
            .collect();
        assert!(run.len() >= 4);
        let data: Vec<u8> = (0..run.len())
            .flat_map(|i| page(&g, 0x40 + i as u8).0)
            .collect();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        // Armed two commands ahead: the first two pages are programmed,
        // the third fires the cut.
        let mut f = ImageCrashFlash::new(g).unwrap();
        f.set_crash_at(2);
        assert!(f
            .program_many(&run, &data, &[])
            .unwrap_err()
            .is_power_loss());
        assert_eq!(f.commands_issued(), 2);
        f.crash(CrashPolicy::AllApplied, &mut rng).unwrap();
        let mut buf = vec![0u8; g.page_size()];
        for (i, &p) in run.iter().enumerate() {
            f.read(p, 0, &mut buf).unwrap();
            if i < 2 {
                assert_eq!(buf, page(&g, 0x40 + i as u8).0, "{p}");
            } else {
                assert!(f.probe_erased(p).unwrap(), "{p}");
            }
        }
        // Unarmed, the whole run counts one command per page and is in
        // flight until a sync.
        let mut f = ImageCrashFlash::new(g).unwrap();
        f.program_many(&run, &data, &[]).unwrap();
        assert_eq!(f.commands_issued(), run.len() as u64);
        assert!(f.sectors_in_flight() > 0);
        f.crash(CrashPolicy::NoneApplied, &mut rng).unwrap();
        assert!(f.probe_erased(run[0]).unwrap());
    }

    #[test]
    fn injected_failures_consume_the_page_or_wear_out_the_block() {
        let g = Geometry::tiny();
        let mut f = ImageCrashFlash::new(g).unwrap();
        let (d, o) = page(&g, 0x44);
        f.fail_nth_program(2);
        f.program(PageAddr::new(3, 0), &d, &o).unwrap();
        let e = f.program(PageAddr::new(3, 1), &d, &o).unwrap_err();
        assert!(e.is_media_failure(), "{e}");
        // The failed page is consumed (reads as zeros, not erased), the
        // block's other page keeps its data, and the next program works.
        let mut buf = vec![0u8; g.page_size()];
        f.read(PageAddr::new(3, 1), 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0));
        assert!(!f.probe_erased(PageAddr::new(3, 1)).unwrap());
        f.read(PageAddr::new(3, 0), 0, &mut buf).unwrap();
        assert_eq!(buf, d);
        f.program(PageAddr::new(3, 2), &d, &o).unwrap();
        // A run of programs with an armed failure inside fails at that page.
        f.fail_nth_program(1);
        let run = [PageAddr::new(3, 3), PageAddr::new(3, 4)];
        let two: Vec<u8> = [d.clone(), d.clone()].concat();
        assert!(f
            .program_many(&run, &two, &[])
            .unwrap_err()
            .is_media_failure());
        f.fail_nth_erase(1);
        assert!(f.erase(BlockId(3)).unwrap_err().is_media_failure());
        assert!(f.block_wear(BlockId(3)).unwrap().is_bad());
        assert_eq!(f.injected_failures(), (2, 1));
    }

    #[test]
    fn an_armed_cut_fails_the_command_and_everything_after_it() {
        let g = Geometry::tiny();
        let mut f = ImageCrashFlash::new(g).unwrap();
        let (d, o) = page(&g, 0x33);
        f.set_crash_at(1);
        f.program(PageAddr::new(2, 0), &d, &o).unwrap();
        assert!(f.sync().unwrap_err().is_power_loss());
        assert!(f.is_powered_off());
        let mut buf = vec![0u8; g.page_size()];
        assert!(f.read(PageAddr::new(2, 0), 0, &mut buf).is_err());
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2);
        let r = f.crash(CrashPolicy::AllApplied, &mut rng).unwrap();
        assert!(r.fired);
        f.read(PageAddr::new(2, 0), 0, &mut buf).unwrap();
        assert_eq!(buf, d);
    }
}
