//! The file-system crash checker's runs: a workload on `Fs` over `AnyFtl`
//! over `SharedFlash<CrashFlash<MemFlash>>`, once without a power cut (the
//! reference run: every outcome and every tree against the model, then a
//! clean unmount, fsck and remount) and once per cut point: power is cut at
//! that flash command, the post-crash device is produced under a seeded
//! crash policy, the FTL recovers, the file system mounts in the same mode
//! (in one cut point of four the power is cut again inside that mount, and
//! the device crashes, recovers and mounts once more), fsck must be clean
//! and the tree must be one the mode promises.
//!
//! What each mode promises (with `done` calls completed when power went):
//! - `log` and `xlog`: the state after `done` calls, or after `done + 1`
//!   (the interrupted call applied), or the interrupted call cut between
//!   its steps (a long write or truncate commits block by block);
//! - `group`: the state after some prefix of at least the calls up to the
//!   last completed fsync/fdatasync/sync and at most `done` calls, or one
//!   of those calls cut between its steps.
//!
//! A call that returns success although power went during it counts as
//! completed: it claimed to be done.
//!
//! In `group` mode the device is wrapped in [`Forcing`] (unless
//! `Setup::forced_flushes` is off): at seeded points inside calls its epoch
//! looks full, so the file system flushes between two steps of one call and
//! the cut points after that flush see part of the call durable (`force.rs`
//! says why a real device can be in that state).

use std::collections::HashMap;
use std::sync::Arc;

use flash::{CrashFlash, CrashPolicy, Geometry, MemFlash, SharedFlash};
use fs::{
    mkfs, CommitMode, FixedClock, Fs, FsError, FsMutant, MkfsOptions, MountError, MountOptions,
    Owner, SetAttr, ROOT_INO,
};
use ftl::{AnyFtl, FormatOptions, FtlKind};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::force::Forcing;
use super::gen::{bytes, Call, Workload};
use super::model::{first_difference, Outcome, State, Target};

/// The flash stack under the FTL (the same as the block-level checker's).
pub type Flash = crate::target::Dev;
/// The device the file system runs on: the FTL, wrapped so that `group`
/// mode's epoch can look full inside a call (`force.rs`).
pub type Device = Forcing<AnyFtl<Flash>>;

const ROOT: u64 = ROOT_INO as u64;
const OWNER: Owner = Owner::new(1000, 1000);
/// Inode times and the superblock's: fixed, so runs are reproducible.
const TIME_NS: i64 = 1_700_000_000_000_000_000;

/// What to build: the FTL, its flash, the mode and an optional seeded bug.
#[derive(Clone, Debug)]
pub struct Setup {
    pub mode: CommitMode,
    pub kind: FtlKind,
    pub geometry: Geometry,
    /// SCFTL's epoch bound W (default: the FTL's own).
    pub write_bound: Option<u32>,
    pub mutant: Option<FsMutant>,
    /// `group`: make the device's epoch look full at seeded points inside
    /// calls, so the file system flushes between their steps (`force.rs`).
    /// Ignored in `log` and `xlog`.
    pub forced_flushes: bool,
    /// Wear leveling: [`fs::WEAR_POLICY`], as `scftl mount` runs (SCFTL
    /// then rotates its metadata), set after the format and after every
    /// recovery; `false`: the library's FIFO default.
    pub wear_leveling: bool,
}

impl Setup {
    /// The seed of the forced flushes in a campaign of `seed`, `None` when
    /// nothing is forced.
    pub fn force_seed(&self, seed: u64) -> Option<u64> {
        (self.forced_flushes && self.mode == CommitMode::Group).then_some(seed ^ 0xF04C_EDF1)
    }

    /// Sets the wear policy `wear_leveling` asks for on a device just
    /// formatted or recovered.
    fn level(&self, dev: &mut dyn ftl::BlockDevice) -> Result<(), String> {
        if !self.wear_leveling {
            return Ok(());
        }
        dev.set_wear_policy(fs::WEAR_POLICY)
            .map_err(|e| format!("setting the {} FTL's wear policy failed: {e}", self.kind))
    }

    fn mount_raw(&self, dev: Device) -> Result<Fs<Device>, Box<MountError<Device>>> {
        let mut o = MountOptions::new(self.mode);
        o.idle_flush = None;
        o.clock = Arc::new(FixedClock(TIME_NS));
        match self.mutant {
            Some(m) => Fs::mount_with_mutant(dev, o, m),
            None => Fs::mount(dev, o),
        }
        .map_err(Box::new)
    }

    fn mount(&self, dev: Device) -> Result<Fs<Device>, String> {
        self.mount_raw(dev).map_err(|e| e.error.to_string())
    }

    /// A fresh device with an empty file system, mounted, forcing flushes
    /// for a campaign of `seed` as [`Self::force_seed`] says.
    pub fn start(&self, seed: u64) -> Result<(Fs<Device>, Flash), String> {
        let mem = MemFlash::new(self.geometry).map_err(|e| e.to_string())?;
        let flash = SharedFlash::new(CrashFlash::new(mem).into());
        let fo = FormatOptions {
            write_bound: self.write_bound,
            ..Default::default()
        };
        let mut dev = AnyFtl::format(flash.clone(), self.kind, &fo)
            .map_err(|e| format!("formatting the {} FTL failed: {e}", self.kind))?;
        self.level(&mut dev)?;
        let mo = MkfsOptions {
            time_ns: Some(TIME_NS),
            ..Default::default()
        };
        mkfs(&mut dev, &mo).map_err(|e| format!("mkfs failed: {e}"))?;
        let dev = Forcing::new(dev, self.force_seed(seed));
        Ok((self.mount(dev)?, flash))
    }
}

/// What a call did on the file system.
#[derive(Debug)]
pub enum Done {
    Fs(FsError),
    /// A result the model cannot produce (a short write).
    Odd(String),
}

/// The workload's open handles on the file system: handle → inode.
pub type Handles = HashMap<u32, u64>;

fn resolve(fs: &mut Fs<Device>, path: &[Vec<u8>]) -> fs::Result<u64> {
    let mut ino = ROOT;
    for c in path {
        ino = fs.lookup(ino, c)?.ino;
    }
    Ok(ino)
}

fn parent<'p>(fs: &mut Fs<Device>, path: &'p [Vec<u8>]) -> fs::Result<(u64, &'p [u8])> {
    let (name, dir) = path
        .split_last()
        .ok_or_else(|| FsError::Invalid("the root has no parent".into()))?;
    Ok((resolve(fs, dir)?, name))
}

fn handle(h: &Handles, n: u32) -> Result<u64, Done> {
    h.get(&n)
        .copied()
        .ok_or_else(|| Done::Odd(format!("handle #{n} is not open")))
}

/// Runs one call on the file system.
pub fn exec(fs: &mut Fs<Device>, h: &mut Handles, call: &Call) -> Result<(), Done> {
    let f = |e: FsError| Done::Fs(e);
    match call {
        Call::Create { path, handle } => {
            let (d, n) = parent(fs, path).map_err(f)?;
            let a = fs.create(d, n, 0o100644, OWNER).map_err(f)?;
            h.insert(*handle, a.ino);
        }
        Call::Mkdir { path } => {
            let (d, n) = parent(fs, path).map_err(f)?;
            fs.mkdir(d, n, 0o755, OWNER).map_err(f)?;
        }
        Call::Symlink { path, target } => {
            let (d, n) = parent(fs, path).map_err(f)?;
            fs.symlink(d, n, target, OWNER).map_err(f)?;
        }
        Call::Write {
            target,
            off,
            len,
            fill,
        } => {
            let ino = match target {
                Target::Path(p) => resolve(fs, p).map_err(f)?,
                Target::Handle(n) => handle(h, *n)?,
            };
            let wrote = fs.write(ino, *off, &bytes(*fill, *off, *len)).map_err(f)?;
            if wrote != *len {
                return Err(Done::Odd(format!("a short write: {wrote} of {len} bytes")));
            }
        }
        Call::Fallocate {
            target,
            mode,
            off,
            len,
        } => {
            let ino = match target {
                Target::Path(p) => resolve(fs, p).map_err(f)?,
                Target::Handle(n) => handle(h, *n)?,
            };
            fs.fallocate(ino, *off, *len, *mode).map_err(f)?;
        }
        Call::Truncate { path, size } => {
            let ino = resolve(fs, path).map_err(f)?;
            let set = SetAttr {
                size: Some(*size),
                ..Default::default()
            };
            fs.setattr(ino, &set).map_err(f)?;
        }
        Call::Rename { from, to } => {
            let (sp, sn) = parent(fs, from).map_err(f)?;
            let (dp, dn) = parent(fs, to).map_err(f)?;
            fs.rename(sp, sn, dp, dn, 0).map_err(f)?;
        }
        Call::Exchange { a, b } => {
            let (sp, sn) = parent(fs, a).map_err(f)?;
            let (dp, dn) = parent(fs, b).map_err(f)?;
            fs.rename(sp, sn, dp, dn, fs::RENAME_EXCHANGE).map_err(f)?;
        }
        Call::Unlink { path } => {
            let (d, n) = parent(fs, path).map_err(f)?;
            fs.unlink(d, n).map_err(f)?;
        }
        Call::Link { from, to } => {
            let ino = resolve(fs, from).map_err(f)?;
            let (d, n) = parent(fs, to).map_err(f)?;
            fs.link(ino, d, n).map_err(f)?;
        }
        Call::Rmdir { path } => {
            let (d, n) = parent(fs, path).map_err(f)?;
            fs.rmdir(d, n).map_err(f)?;
        }
        Call::Open { path, handle } => {
            let ino = resolve(fs, path).map_err(f)?;
            fs.open(ino).map_err(f)?;
            h.insert(*handle, ino);
        }
        Call::Release { handle: n } => {
            let ino = handle(h, *n)?;
            h.remove(n);
            fs.release(ino).map_err(f)?;
        }
        Call::Fsync { path, datasync } => {
            let ino = resolve(fs, path).map_err(f)?;
            fs.fsync(ino, *datasync).map_err(f)?;
        }
        Call::Sync => fs.sync().map_err(f)?,
        Call::SetXattr {
            path,
            name,
            len,
            fill,
            flags,
        } => {
            let ino = resolve(fs, path).map_err(f)?;
            fs.setxattr(ino, name, &bytes(*fill, 0, *len), *flags)
                .map_err(f)?;
        }
        Call::RemoveXattr { path, name } => {
            let ino = resolve(fs, path).map_err(f)?;
            fs.removexattr(ino, name).map_err(f)?;
        }
    }
    Ok(())
}

/// How a result differs from the model's outcome, if it does.
pub fn mismatch(got: &Result<(), Done>, want: &Outcome) -> Option<String> {
    let says = |w: &Outcome| match w {
        Ok(()) => "success".to_string(),
        Err(e) => format!("errno {e}"),
    };
    match (got, want) {
        (Ok(()), Ok(())) => None,
        (Err(Done::Fs(e)), Err(n)) if e.errno() == *n => None,
        (Ok(()), w) => Some(format!("succeeded, the model expects {}", says(w))),
        (Err(Done::Fs(e)), w) => Some(format!(
            "failed with `{e}` (errno {}), the model expects {}",
            e.errno(),
            says(w)
        )),
        (Err(Done::Odd(m)), _) => Some(m.clone()),
    }
}

/// The whole tree of a mounted file system in comparable form.
pub fn tree(fs: &mut Fs<Device>) -> Result<State, String> {
    super::model::observe(fs)
}

/// What one run without a power cut found.
pub struct Reference {
    /// Flash commands the workload took (after mount).
    pub commands: u64,
    /// Group mode's flushes because the epoch was full (forced ones
    /// included).
    pub epoch_flushes: u64,
    /// Flushes inside calls that only the checker's forcing caused
    /// (`force.rs`), and forced points where the epoch was full anyway.
    pub forced_flushes: u64,
    pub forced_full_anyway: u64,
    /// Steps committed and calls completed (a long call is several steps).
    pub steps: u64,
    /// SCFTL's metadata rotations (with `wear_leveling`).
    pub meta_rotations: u64,
}

/// Runs the workload without a power cut: every outcome and every tree
/// must be the model's, and a clean unmount, fsck and mount keep the last.
pub fn reference(s: &Setup, w: &Workload, seed: u64) -> Result<Reference, String> {
    let (mut fs, flash) = s.start(seed)?;
    let c0 = flash.with(|f| f.commands_issued());
    let mut h = Handles::new();
    for (i, p) in w.calls.iter().enumerate() {
        fs.device().begin_call(i as u64);
        let r = exec(&mut fs, &mut h, &p.call);
        if let Some(m) = mismatch(&r, &p.expect) {
            return Err(format!("call {i} `{}` without a power cut {m}", p.call));
        }
        let got = tree(&mut fs).map_err(|e| format!("after call {i} `{}`: {e}", p.call))?;
        if let Some(d) = first_difference(&w.states[i + 1], &got) {
            return Err(format!(
                "after call {i} `{}` (no power cut) the tree differs from the model: {d}",
                p.call
            ));
        }
    }
    fs.device().end_calls();
    let commands = flash.with(|f| f.commands_issued()) - c0;
    let st = fs.stats();
    let forced_flushes = fs.device().forced_flushes();
    let forced_full_anyway = fs.device().full_anyway();
    let meta_rotations = ftl::BlockDevice::stats(fs.device()).wear.meta_rotations;
    let dev = fs
        .unmount()
        .map_err(|e| format!("unmount failed: {}", e.error))?;
    let mut fs = s.mount(dev).map_err(|e| format!("remount failed: {e}"))?;
    let rep = fs.fsck().map_err(|e| format!("fsck failed: {e}"))?;
    if !rep.is_clean() {
        return Err(format!("fsck after a clean unmount: {}", one_line(&rep)));
    }
    let got = tree(&mut fs)?;
    if let Some(d) = first_difference(&w.states[w.calls.len()], &got) {
        return Err(format!("after unmount and mount the tree differs: {d}"));
    }
    Ok(Reference {
        commands,
        epoch_flushes: st.epoch_flushes,
        forced_flushes,
        forced_full_anyway,
        steps: st.steps,
        meta_rotations,
    })
}

/// A report on one line: its first three lines and its last (the
/// summary), so a wrecked image does not print thousands of problems.
fn one_line(x: &impl std::fmt::Display) -> String {
    let s = x.to_string();
    let lines: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.len() <= 4 {
        return lines.join("; ");
    }
    format!(
        "{}; ... {} more lines; {}",
        lines[..3].join("; "),
        lines.len() - 4,
        lines[lines.len() - 1]
    )
}

/// The crash policy and garbage generator of cut point `k`: a function of
/// (seed, k, the policy asked for) only, so one cut replays alone
/// (`--cut-at`). `None` draws the policy.
pub fn cut_rng(seed: u64, k: u64, policy: Option<CrashPolicy>) -> (CrashPolicy, Pcg64) {
    let salt = policy.map_or(0, |p| {
        1 + CrashPolicy::ALL
            .iter()
            .position(|&q| q == p)
            .unwrap_or_default() as u64
    });
    let mut rng = Pcg64::seed_from_u64(
        seed ^ k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.rotate_left(56),
    );
    let policy = policy.unwrap_or_else(|| draw_policy(&mut rng));
    (policy, rng)
}

/// Random 70%, each of the others 10% (as the block-level explorer).
fn draw_policy(rng: &mut Pcg64) -> CrashPolicy {
    match rng.gen_range(0..10) {
        0..=6 => CrashPolicy::Random,
        7 => CrashPolicy::AllGarbage,
        8 => CrashPolicy::AllApplied,
        _ => CrashPolicy::NoneApplied,
    }
}

/// One in this many cut points also cuts the power inside the mount that
/// recovers (log replay, freeing orphans), at one of its first
/// `MOUNT_CUT_WITHIN` commands.
const MOUNT_CUT_ONE_IN: u32 = 4;
const MOUNT_CUT_WITHIN: u64 = 24;

/// What one cut point found.
pub struct CutResult {
    pub policy: CrashPolicy,
    /// Calls completed before the power went.
    pub done: usize,
    /// Calls whose outcome was checked (completed ones).
    pub calls_checked: u64,
    /// The tree matched a call cut between its steps.
    pub partial: bool,
    /// Power cuts inside the recovering mount (then crash, recover and
    /// mount again).
    pub mount_cuts: u64,
    /// The violation, if any.
    pub violation: Option<String>,
}

/// A state a mode allows after a crash.
#[derive(Clone, Copy, Debug)]
enum Allowed {
    /// The tree after the first k calls.
    After(usize),
    /// Call k cut between its steps (over the tree after k calls).
    Part(usize),
}

/// The states `mode` allows after `done` completed calls, the power
/// having gone during call `at` (`at == done`, or `at + 1 == done` when
/// that call returned success anyway and so counts as completed).
fn allowed(mode: CommitMode, w: &Workload, done: usize, at: usize) -> Vec<Allowed> {
    match mode {
        CommitMode::Log | CommitMode::Xlog => {
            let mut v = vec![Allowed::After(done)];
            if at == done {
                v.extend([Allowed::After(done + 1), Allowed::Part(done)]);
            }
            v
        }
        CommitMode::Group => {
            let synced = (1..=done)
                .rev()
                .find(|&j| w.calls[j - 1].call.is_sync() && w.calls[j - 1].expect.is_ok())
                .unwrap_or(0);
            let mut v: Vec<Allowed> = (synced..=done).map(Allowed::After).collect();
            // The interrupted call whole, as in the other modes: a call
            // split into steps can have its visible change durable before
            // it returns, when a flush falls between its steps after that
            // change (a rename or unlink whose victim's blocks are freed in
            // later steps: the tree is the call's, the rest is an orphan the
            // mount frees).
            if at == done {
                v.push(Allowed::After(done + 1));
            }
            v.extend((synced..=at).map(Allowed::Part));
            v
        }
    }
}

fn describe(a: &[Allowed], w: &Workload) -> String {
    let afters: Vec<usize> = a
        .iter()
        .filter_map(|x| match x {
            Allowed::After(k) => Some(*k),
            Allowed::Part(_) => None,
        })
        .collect();
    let parts = a
        .iter()
        .filter(|x| matches!(x, Allowed::Part(k) if !w.calls[*k].partial.contents.is_empty()))
        .count();
    let (lo, hi) = (afters[0], afters[afters.len() - 1]);
    let mut s = if lo == hi {
        format!("the tree after {lo} calls")
    } else {
        format!("the tree after {lo}..={hi} calls")
    };
    if parts > 0 {
        s += &format!(" or one of {parts} long calls cut between two of its steps");
    }
    s
}

/// Cuts power at workload command `k` (0 = the first command after mount)
/// and checks what recovery leaves, under `policy` (`None`: one drawn from
/// (seed, k)).
pub fn cut(
    s: &Setup,
    w: &Workload,
    seed: u64,
    k: u64,
    policy: Option<CrashPolicy>,
) -> Result<CutResult, String> {
    let (policy, mut rng) = cut_rng(seed, k, policy);
    let mut res = CutResult {
        policy,
        done: 0,
        calls_checked: 0,
        partial: false,
        mount_cuts: 0,
        violation: None,
    };
    let (mut fs, flash) = s.start(seed)?;
    flash.with(|f| f.set_crash_at(k));
    let mut h = Handles::new();
    let mut interrupted = None;
    for (i, p) in w.calls.iter().enumerate() {
        fs.device().begin_call(i as u64);
        let r = exec(&mut fs, &mut h, &p.call);
        if flash.with(|f| f.is_powered_off()) {
            interrupted = Some(i);
            if r.is_ok() && p.expect.is_ok() {
                res.done += 1; // it claimed to be done
            }
            break;
        }
        res.calls_checked += 1;
        if let Some(m) = mismatch(&r, &p.expect) {
            res.violation = Some(format!("call {i} `{}` {m} (before the power cut)", p.call));
            return Ok(res);
        }
        res.done += 1;
    }
    let Some(at) = interrupted else {
        res.violation = Some(format!(
            "the power cut at command {k} never came: the run took fewer commands than the reference run"
        ));
        return Ok(res);
    };
    let done = res.done;
    drop(fs.into_device());
    if let Err(e) = flash.with(|f| f.crash(policy, &mut rng)) {
        return Err(format!("producing the post-crash device failed: {e}"));
    }
    let during = format!("power cut during call {at} `{}`", w.calls[at].call);
    let mut mount_cut = rng
        .gen_ratio(1, MOUNT_CUT_ONE_IN)
        .then(|| rng.gen_range(0..MOUNT_CUT_WITHIN));
    let mut fs = loop {
        // The recovering mount runs on the device as it is: nothing forced.
        let dev = match AnyFtl::open(flash.clone()) {
            Ok(mut d) => {
                s.level(&mut d)?;
                Forcing::new(d, None)
            }
            Err(e) => {
                res.violation = Some(format!("{during}: FTL recovery failed: {e}"));
                return Ok(res);
            }
        };
        if let Some(n) = mount_cut.take() {
            flash.with(|f| f.set_crash_at(n));
        }
        let mounted = s.mount_raw(dev);
        if !flash.with(|f| f.is_powered_off()) {
            flash.with(|f| f.disarm());
            match mounted {
                Ok(fs) => break fs,
                Err(e) => {
                    res.violation = Some(format!(
                        "{during}: mount after the crash failed: {}",
                        e.error
                    ));
                    return Ok(res);
                }
            }
        }
        // The power went inside the recovering mount: crash again.
        res.mount_cuts += 1;
        match mounted {
            Ok(fs) => drop(fs.into_device()),
            Err(e) => drop(e.device),
        }
        let policy = draw_policy(&mut rng);
        if let Err(e) = flash.with(|f| f.crash(policy, &mut rng)) {
            return Err(format!("producing the post-crash device failed: {e}"));
        }
    };
    let during = if res.mount_cuts > 0 {
        format!("{during}, then inside the recovering mount")
    } else {
        during
    };
    match fs.fsck() {
        Ok(rep) if rep.is_clean() => {}
        Ok(rep) => {
            res.violation = Some(format!("{during}: fsck is not clean: {}", one_line(&rep)));
            return Ok(res);
        }
        Err(e) => {
            res.violation = Some(format!("{during}: fsck failed: {e}"));
            return Ok(res);
        }
    }
    let got = match tree(&mut fs) {
        Ok(t) => t,
        Err(e) => {
            res.violation = Some(format!("{during}: {e}"));
            return Ok(res);
        }
    };
    let ok = allowed(s.mode, w, done, at);
    for a in &ok {
        match *a {
            Allowed::After(j) if w.states[j] == got => return Ok(res),
            Allowed::Part(j) if w.calls[j].partial.matches(&w.states[j], &got) => {
                res.partial = true;
                return Ok(res);
            }
            _ => {}
        }
    }
    let equal: Vec<usize> = (0..w.states.len())
        .filter(|&j| w.states[j] == got)
        .collect();
    let nearest = ok
        .iter()
        .filter_map(|a| match a {
            Allowed::After(j) => Some(*j),
            Allowed::Part(_) => None,
        })
        .min_by_key(|&j| distance(&w.states[j], &got))
        .unwrap_or(done);
    let seen = if equal.is_empty() {
        "it equals no prefix of the workload".to_string()
    } else {
        format!("it equals the tree after {equal:?} calls")
    };
    res.violation = Some(format!(
        "{during} ({done} completed): {} promises {}, but {seen}; against the tree after {nearest} calls: {}",
        s.mode,
        describe(&ok, w),
        first_difference(&w.states[nearest], &got).unwrap_or_default()
    ));
    Ok(res)
}

fn distance(a: &State, b: &State) -> usize {
    let diff = a.iter().filter(|(k, v)| b.get(*k) != Some(*v)).count();
    diff + b.keys().filter(|k| !a.contains_key(*k)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::gen::{Planned, Workload};
    use crate::fs::model::Partial;

    fn w(calls: Vec<Call>) -> Workload {
        let n = calls.len();
        Workload {
            calls: calls
                .into_iter()
                .map(|call| Planned {
                    call,
                    expect: Ok(()),
                    kind: "x",
                    partial: Partial::default(),
                })
                .collect(),
            states: vec![State::new(); n + 1],
            tally: Default::default(),
        }
    }

    #[test]
    fn group_allows_prefixes_from_the_last_sync_on() {
        let mk = |n: &str| Call::Mkdir {
            path: vec![n.as_bytes().to_vec()],
        };
        let wl = w(vec![mk("a"), Call::Sync, mk("b"), mk("c")]);
        let afters = |v: Vec<Allowed>| -> Vec<usize> {
            v.into_iter()
                .filter_map(|a| match a {
                    Allowed::After(k) => Some(k),
                    Allowed::Part(_) => None,
                })
                .collect()
        };
        // From the last completed sync (after call 1) to the interrupted
        // call whole.
        assert_eq!(afters(allowed(CommitMode::Group, &wl, 3, 3)), vec![2, 3, 4]);
        assert_eq!(afters(allowed(CommitMode::Group, &wl, 1, 1)), vec![0, 1, 2]);
        assert_eq!(afters(allowed(CommitMode::Group, &wl, 2, 1)), vec![2]);
        assert_eq!(afters(allowed(CommitMode::Log, &wl, 3, 3)), vec![3, 4]);
        // A call that returned success during the cut must be durable.
        assert_eq!(afters(allowed(CommitMode::Xlog, &wl, 4, 3)), vec![4]);
    }
}
