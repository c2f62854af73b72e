//! Every flash layer over a probe device: which form of each command
//! reaches the device beneath. A multi-page `program_many` and a
//! `read_with_oob` must arrive as ONE command unless the layer overrides
//! its hook on purpose (and says why in the layer's code); the table in
//! `forms_that_reach_the_device_below` is the list of those purposes.
//!
//! The last test scans the workspace's sources so that a new wrapper
//! cannot skip this: every `impl Flash for` outside the backends is an
//! error, and every `Layer` implementation must be named here.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use flash::{
    BlockId, BlockWear, Clock, CrashFlash, Flash, FlashCounters, Geometry, ImageCrashFlash,
    MemFlash, OverlayFlash, PageAddr, PageImage, RawFlash, RealTime, Result, SharedFlash,
    TimedFlash, TimingConfig,
};

/// A command as the probe saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Read,
    ReadOob,
    ReadWithOob,
    ReadForCopy,
    ProbeErased,
    Prefetch(usize),
    CopyInto,
    Program,
    ProgramMany(usize),
    Erase,
    Sync,
    Submit,
    NvramWrite,
    MarkBad,
}

/// A RAM device that logs every command it is given, in the form given.
struct Probe {
    mem: MemFlash,
    log: Arc<Mutex<Vec<Seen>>>,
}

impl Probe {
    fn new() -> (Probe, Arc<Mutex<Vec<Seen>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let probe = Probe {
            mem: MemFlash::new(Geometry::tiny()).unwrap(),
            log: Arc::clone(&log),
        };
        (probe, log)
    }
    fn saw(&self, s: Seen) {
        self.log.lock().unwrap().push(s);
    }
}

impl Flash for Probe {
    fn geometry(&self) -> &Geometry {
        self.mem.geometry()
    }
    fn read(&mut self, page: PageAddr, first: u32, data: &mut [u8]) -> Result<()> {
        self.saw(Seen::Read);
        self.mem.read(page, first, data)
    }
    fn read_oob(&mut self, page: PageAddr, oob: &mut [u8]) -> Result<()> {
        self.saw(Seen::ReadOob);
        self.mem.read_oob(page, oob)
    }
    fn read_with_oob(
        &mut self,
        page: PageAddr,
        first: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.saw(Seen::ReadWithOob);
        self.mem.read_with_oob(page, first, data, oob)
    }
    fn read_for_copy(
        &mut self,
        page: PageAddr,
        first: u32,
        data: &mut [u8],
        oob: &mut [u8],
    ) -> Result<()> {
        self.saw(Seen::ReadForCopy);
        self.mem.read_for_copy(page, first, data, oob)
    }
    fn copy_into(&mut self, from: PageAddr, to: PageAddr) {
        self.saw(Seen::CopyInto);
        self.mem.copy_into(from, to)
    }
    fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        self.saw(Seen::ProbeErased);
        self.mem.probe_erased(page)
    }
    fn prefetch(&mut self, pages: &[PageAddr]) -> Result<()> {
        self.saw(Seen::Prefetch(pages.len()));
        self.mem.prefetch(pages)
    }
    fn program(&mut self, page: PageAddr, data: &[u8], oob: &[u8]) -> Result<()> {
        self.saw(Seen::Program);
        self.mem.program(page, data, oob)
    }
    fn program_many(&mut self, pages: &[PageAddr], data: &[u8], oob: &[u8]) -> Result<()> {
        self.saw(Seen::ProgramMany(pages.len()));
        self.mem.program_many(pages, data, oob)
    }
    fn erase(&mut self, block: BlockId) -> Result<()> {
        self.saw(Seen::Erase);
        self.mem.erase(block)
    }
    fn sync(&mut self) -> Result<()> {
        self.saw(Seen::Sync);
        self.mem.sync()
    }
    fn submit(&mut self) -> Result<()> {
        self.saw(Seen::Submit);
        self.mem.submit()
    }
    fn nvram_size(&self) -> usize {
        self.mem.nvram_size()
    }
    fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.mem.nvram_read(offset, buf)
    }
    fn nvram_write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.saw(Seen::NvramWrite);
        self.mem.nvram_write(offset, data)
    }
    fn counters(&self) -> FlashCounters {
        self.mem.counters()
    }
    fn lost_programs_can_return(&self) -> bool {
        self.mem.lost_programs_can_return()
    }
    fn block_wear(&self, block: BlockId) -> Result<BlockWear> {
        self.mem.block_wear(block)
    }
    fn mark_bad(&mut self, block: BlockId) -> Result<()> {
        self.saw(Seen::MarkBad);
        self.mem.mark_bad(block)
    }
}

impl RawFlash for Probe {
    fn page_image(&self, page: PageAddr) -> Result<PageImage> {
        self.mem.page_image(page)
    }
    fn set_page_image(&mut self, page: PageAddr, image: PageImage) -> Result<()> {
        self.mem.set_page_image(page, image)
    }
    fn set_block_wear(&mut self, block: BlockId, wear: BlockWear) -> Result<()> {
        self.mem.set_block_wear(block, wear)
    }
}

/// A clock that never makes anyone wait: a sleep jumps to its deadline.
struct Instant0(u64);

impl Clock for Instant0 {
    fn now_ns(&self) -> u64 {
        self.0
    }
    fn sleep_until_ns(&mut self, t_ns: u64) {
        self.0 = self.0.max(t_ns);
    }
}

/// What reaches the device below when a layer is given each command form
/// once, in order: a three-page `program_many` of block 1, a
/// `read_with_oob`, a `read_for_copy`, a `prefetch` of two pages, a
/// `copy_into`, an erase, a sync, a submit, a battery-backed write and a
/// bad-block mark.
fn drive(f: &mut dyn Flash) {
    let g = *f.geometry();
    let ps = g.page_size();
    let pages = [
        PageAddr::new(1, 0),
        PageAddr::new(1, 1),
        PageAddr::new(1, 2),
    ];
    let data: Vec<u8> = (0..3 * ps).map(|i| (i % 251) as u8).collect();
    let oob = [7u8; 3 * 4];
    f.program_many(&pages, &data, &oob).unwrap();
    let mut d = vec![0u8; ps];
    let mut o = [0u8; 4];
    f.read_with_oob(pages[1], 0, &mut d, &mut o).unwrap();
    assert_eq!(d, data[ps..2 * ps], "read_with_oob returns the page");
    assert_eq!(o, [7; 4]);
    f.read_for_copy(pages[2], 0, &mut d, &mut o).unwrap();
    assert_eq!(d, data[2 * ps..]);
    f.prefetch(&pages[..2]).unwrap();
    f.copy_into(pages[2], PageAddr::new(2, 0));
    f.erase(BlockId(3)).unwrap();
    f.sync().unwrap();
    f.submit().unwrap();
    f.nvram_write(0, &[1, 2, 3]).unwrap();
    f.mark_bad(BlockId(5)).unwrap();
}

fn all_forms() -> Vec<Seen> {
    vec![
        Seen::ProgramMany(3),
        Seen::ReadWithOob,
        Seen::ReadForCopy,
        Seen::Prefetch(2),
        Seen::CopyInto,
        Seen::Erase,
        Seen::Sync,
        Seen::Submit,
        Seen::NvramWrite,
        Seen::MarkBad,
    ]
}

/// `all_forms` with the `from` entry replaced by `to` (deliberate changes).
fn but(mut forms: Vec<Seen>, changes: &[(Seen, &[Seen])]) -> Vec<Seen> {
    for (from, to) in changes {
        let i = forms
            .iter()
            .position(|s| s == from)
            .expect("change of a form in the list");
        forms.splice(i..=i, to.iter().cloned());
    }
    forms
}

#[test]
fn forms_that_reach_the_device_below() {
    let timing = TimingConfig::for_geometry(&Geometry::tiny());
    let mut erase_after_capture = vec![Seen::Read; Geometry::tiny().pages_per_block as usize];
    erase_after_capture.push(Seen::Erase);
    type Case = (&'static str, Box<dyn FnOnce() -> Vec<Seen>>, Vec<Seen>);
    let cases: Vec<Case> = vec![
        (
            "Box",
            Box::new(|| {
                let (p, log) = Probe::new();
                drive(&mut Box::new(p));
                let seen = log.lock().unwrap().clone();
                seen
            }),
            all_forms(),
        ),
        (
            "SharedFlash",
            Box::new(|| {
                let (p, log) = Probe::new();
                drive(&mut SharedFlash::new(p));
                let seen = log.lock().unwrap().clone();
                seen
            }),
            all_forms(),
        ),
        (
            // Timing is this layer's business: the device below gets a read
            // for copy as a plain read with OOB, and no hints.
            "TimedFlash",
            Box::new(move || {
                let (p, log) = Probe::new();
                drive(&mut TimedFlash::new(p, timing));
                let seen = log.lock().unwrap().clone();
                seen
            }),
            but(
                all_forms(),
                &[
                    (Seen::ReadForCopy, &[Seen::ReadWithOob]),
                    (Seen::Prefetch(2), &[]),
                    (Seen::CopyInto, &[]),
                ],
            ),
        ),
        (
            "RealTime",
            Box::new(move || {
                let (p, log) = Probe::new();
                drive(&mut RealTime::new(p, timing, Instant0(0)));
                let seen = log.lock().unwrap().clone();
                seen
            }),
            but(
                all_forms(),
                &[
                    (Seen::ReadForCopy, &[Seen::ReadWithOob]),
                    (Seen::Prefetch(2), &[]),
                    (Seen::CopyInto, &[]),
                ],
            ),
        ),
        (
            // Every page of a multi-page program is a crash point.
            "CrashFlash",
            Box::new(|| {
                let (p, log) = Probe::new();
                drive(&mut CrashFlash::new(p));
                let seen = log.lock().unwrap().clone();
                seen
            }),
            but(
                all_forms(),
                &[
                    (
                        Seen::ProgramMany(3),
                        &[Seen::Program, Seen::Program, Seen::Program],
                    ),
                    // Before an erase, the crash layer reads each page of
                    // the block (to restore it after a cut); it subtracts
                    // those reads from the counters it reports.
                    (Seen::Erase, &erase_after_capture),
                ],
            ),
        ),
        (
            // Every change stays in RAM; reads of pages it does not hold go
            // below unchanged.
            "OverlayFlash",
            Box::new(|| {
                let (mut p, log) = Probe::new();
                // The pages the overlay will read must be on the device.
                let ps = p.geometry().page_size();
                let data: Vec<u8> = (0..3 * ps).map(|i| (i % 251) as u8).collect();
                let pages = [
                    PageAddr::new(1, 0),
                    PageAddr::new(1, 1),
                    PageAddr::new(1, 2),
                ];
                p.mem.program_many(&pages, &data, &[7u8; 12]).unwrap();
                let mut o = OverlayFlash::new(p);
                // Reads of a page the overlay does not hold.
                let mut d = vec![0u8; ps];
                let mut oob = [0u8; 4];
                o.read_with_oob(pages[1], 0, &mut d, &mut oob).unwrap();
                assert_eq!(d, data[ps..2 * ps]);
                o.read_for_copy(pages[2], 0, &mut d, &mut oob).unwrap();
                o.prefetch(&pages[..2]).unwrap();
                o.copy_into(pages[2], PageAddr::new(2, 0));
                // Changes.
                o.program_many(
                    &[PageAddr::new(2, 0), PageAddr::new(2, 1)],
                    &vec![1; 2 * ps],
                    &[],
                )
                .unwrap();
                o.erase(BlockId(3)).unwrap();
                o.sync().unwrap();
                o.submit().unwrap();
                o.nvram_write(0, &[1]).unwrap();
                o.mark_bad(BlockId(5)).unwrap();
                let seen = log.lock().unwrap().clone();
                seen
            }),
            vec![
                Seen::ReadWithOob,
                Seen::ReadForCopy,
                Seen::Prefetch(2),
                Seen::CopyInto,
            ],
        ),
    ];
    for (name, run, want) in cases {
        let seen = run();
        assert_eq!(seen, want, "{name}: the commands that reached the device");
    }
}

/// The image crash layer sits on its own image backend: a read with OOB is
/// one read command there (not a data read and an OOB read).
#[test]
fn image_crash_layer_passes_a_read_with_oob_as_one_read() {
    let g = Geometry::tiny();
    let mut f = ImageCrashFlash::new(g).unwrap();
    let ps = g.page_size();
    f.program_many(
        &[PageAddr::new(1, 0), PageAddr::new(1, 1)],
        &vec![3; 2 * ps],
        &[9; 8],
    )
    .unwrap();
    let before = f.counters();
    let mut d = vec![0u8; ps];
    let mut o = [0u8; 4];
    f.read_with_oob(PageAddr::new(1, 1), 0, &mut d, &mut o)
        .unwrap();
    assert_eq!(o, [9; 4]);
    assert_eq!(f.counters().since(&before).reads, 1);
    f.read_for_copy(PageAddr::new(1, 0), 0, &mut d, &mut o)
        .unwrap();
    assert_eq!(f.counters().since(&before).reads, 2);
}

/// A layer that intercepts programs sees the pages of a multi-page program
/// too: the timing model charges each page of a run as it charges single
/// programs.
#[test]
fn timing_charges_a_multi_page_program_as_its_single_programs() {
    let g = Geometry::tiny();
    let timing = TimingConfig::for_geometry(&g);
    let ps = g.page_size();
    let pages: Vec<PageAddr> = (0..4).map(|p| PageAddr::new(1, p)).collect();
    let data = vec![5u8; 4 * ps];
    let mut one = TimedFlash::new(MemFlash::new(g).unwrap(), timing);
    for (i, &p) in pages.iter().enumerate() {
        one.program(p, &data[i * ps..(i + 1) * ps], &[]).unwrap();
    }
    one.sync().unwrap();
    let mut many = TimedFlash::new(MemFlash::new(g).unwrap(), timing);
    many.program_many(&pages, &data, &[]).unwrap();
    many.sync().unwrap();
    assert!(one.now_ns() > 0);
    assert_eq!(one.now_ns(), many.now_ns());
    assert_eq!(one.busy_ns_per_die(), many.busy_ns_per_die());
}

/// Types that implement `Flash` directly: the backends (and this file's
/// probe). Everything else that wraps a device is a `Layer`.
const BACKENDS: &[&str] = &["FileFlash", "$ty", "L", "Probe"];

/// Every `Layer` in the workspace, and where its forwarding is checked.
const LAYERS: &[(&str, &str)] = &[
    ("Box", "this file"),
    ("SharedFlash", "this file"),
    ("TimedFlash", "this file"),
    ("RealTime", "this file"),
    ("CrashFlash", "this file"),
    ("OverlayFlash", "this file"),
    ("ImageCrashFlash", "this file"),
    (
        "CutFlash",
        "crates/cli/src/powercut.rs, crates/ftl/tests/baseline_crash.rs",
    ),
    ("SlowSync", "crates/cli/src/image.rs"),
    ("KeepMetaFlash", "crates/bench/src/keepmeta.rs"),
    ("Backend", "crates/crashcheck/src/target.rs"),
    ("Harness", "crates/crashcheck/src/concurrent.rs"),
    ("GatedSync", "crates/ftl/tests/shared_device.rs"),
    ("NoDetach", "crates/ftl/examples/shared_image_writes.rs"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The type name after `for` in an impl line: `impl<F> X for Name<F> {`.
fn implemented_for(line: &str) -> Option<String> {
    let rest = line.split(" for ").nth(1)?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    Some(name)
}

#[test]
fn every_wrapper_is_a_layer_named_here() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&crates, &mut files);
    let mut layers = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.lines().map(str::trim_start) {
            if !line.starts_with("impl") {
                continue;
            }
            let head = line.split(" for ").next().unwrap_or("");
            let is_flash = head.ends_with(" Flash") || head.ends_with("::Flash");
            let is_layer = head.ends_with(" Layer") || head.ends_with("::Layer");
            let Some(name) = implemented_for(line) else {
                continue;
            };
            if is_flash {
                assert!(
                    BACKENDS.contains(&name.as_str()),
                    "{}: `{line}` implements Flash directly; a type that wraps a device \
                     implements flash::Layer (crates/flash/src/layer.rs)",
                    f.display()
                );
            }
            if is_layer {
                assert!(
                    LAYERS.iter().any(|(n, _)| *n == name),
                    "{}: the layer {name} is not in tests/layers.rs: say where its \
                     forwarding is checked",
                    f.display()
                );
                layers.push(name);
            }
        }
    }
    for (name, _) in LAYERS {
        assert!(
            layers.iter().any(|l| l == name),
            "{name} is listed as a layer but no `impl Layer for {name}` was found"
        );
    }
}
