//! kill -9 of `scftl mount` (and, in some rounds, of the writer it serves
//! first) at seeded random instants during a write-heavy workload, many
//! times in a row on one image. After each kill: the dead FUSE mount is
//! removed, `scftl fsck` must be clean, the remount must succeed, and every
//! file whose fsync completed before the kill must read back exactly.
//!
//! The writer (a Python child on the mount) replaces files through a
//! temporary file (write, fsync, rename over, fsync the directory) or
//! deletes them, and appends `begin`/`done` lines to a log kept *outside*
//! the mount: `done` is written only after the last fsync returned. A file
//! must therefore hold what its last `done` says, or — only for the one
//! operation in flight at the kill — what its `begin` says. That holds in
//! every mode (`group` promises the last fsync'ed state or later; `log` and
//! `xlog` every completed call). Replay a failure with `SCFTL_SEED=N`.

mod common;
mod mounted;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mounted::{fsck_clean, fuse_available, image, Mounted};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Files the writer works on: `w/f0` .. `w/f{FILES - 1}`.
const FILES: usize = 12;

/// The writer: `python3 -c WRITER DIR LOG ROUND SEED`. Content of an
/// operation is its tag `ROUND:SEQ:` repeated to its length, so the test
/// can rebuild it from the log line alone.
const WRITER: &str = r#"
import os, random, sys
d, log, rnd, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
FILES = 12
rng = random.Random(seed)
lf = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
def note(s):
    os.write(lf, (s + "\n").encode())
def content(seq, n):
    tag = ("%d:%d:" % (rnd, seq)).encode()
    return (tag * (n // len(tag) + 1))[:n]
dfd = os.open(d, os.O_RDONLY)
seq = 0
while True:
    seq += 1
    k = rng.randrange(FILES)
    name = os.path.join(d, "f%d" % k)
    r = rng.random()
    if r < 0.15:
        note("begin %d del" % k)
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
        os.fsync(dfd)
        note("done %d del" % k)
    elif r < 0.3:
        # Unsynced noise: changes that no fsync covers.
        with open(os.path.join(d, "noise"), "ab") as f:
            f.write(content(seq, rng.randrange(1, 20000)))
    else:
        n = rng.choice([0, rng.randrange(1, 5000), rng.randrange(5000, 300000)])
        tmp = os.path.join(d, "tmp.%d" % seq)
        note("begin %d %d %d %d" % (k, rnd, seq, n))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        data = content(seq, n)
        off = 0
        while off < n:
            off += os.write(fd, data[off:off + 65536])
        os.fsync(fd)
        os.close(fd)
        os.rename(tmp, name)
        os.fsync(dfd)
        note("done %d %d %d %d" % (k, rnd, seq, n))
"#;

/// What a file should hold: absent, or the content of operation
/// `(round, seq)` of length `len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Absent,
    Content { round: u64, seq: u64, len: usize },
}

impl Expect {
    fn parse(words: &[&str]) -> Option<Expect> {
        match words {
            ["del"] => Some(Expect::Absent),
            [r, s, n] => Some(Expect::Content {
                round: r.parse().ok()?,
                seq: s.parse().ok()?,
                len: n.parse().ok()?,
            }),
            _ => None,
        }
    }

    fn bytes(self) -> Option<Vec<u8>> {
        match self {
            Expect::Absent => None,
            Expect::Content { round, seq, len } => {
                let tag = format!("{round}:{seq}:").into_bytes();
                Some(tag.iter().copied().cycle().take(len).collect())
            }
        }
    }
}

/// Reads the round's log: the `done` state per file (applied onto
/// `state`), the operation in flight if any, and the number completed. A
/// torn last line (the writer killed while logging) is ignored.
fn apply_log(log: &Path, state: &mut HashMap<usize, Expect>) -> (Option<(usize, Expect)>, u64) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut pending = None;
    let mut done = 0;
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    for line in complete.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (Some(&verb), Some(k)) = (w.first(), w.get(1).and_then(|k| k.parse::<usize>().ok()))
        else {
            panic!("bad log line `{line}`");
        };
        let e = Expect::parse(&w[2..]).unwrap_or_else(|| panic!("bad log line `{line}`"));
        match verb {
            "begin" => pending = Some((k, e)),
            "done" => {
                assert_eq!(pending, Some((k, e)), "log out of order at `{line}`");
                state.insert(k, e);
                pending = None;
                done += 1;
            }
            _ => panic!("bad log line `{line}`"),
        }
    }
    (pending, done)
}

/// Checks every file against `state` (or the in-flight operation, which
/// then becomes the state).
fn verify(
    dir: &Path,
    state: &mut HashMap<usize, Expect>,
    pending: Option<(usize, Expect)>,
    why: &str,
) {
    for k in 0..FILES {
        let actual = match std::fs::read(dir.join(format!("f{k}"))) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => panic!("{why}: read f{k}: {e}"),
        };
        let want = state.get(&k).copied().unwrap_or(Expect::Absent);
        if actual == want.bytes() {
            continue;
        }
        match pending {
            Some((pk, pe)) if pk == k && actual == pe.bytes() => {
                state.insert(k, pe);
            }
            _ => panic!(
                "{why}: f{k} lost fsync'ed data: want {want:?} (or in flight {pending:?}), found {}",
                match &actual {
                    None => "no file".to_string(),
                    Some(b) => format!(
                        "{} bytes starting {:?}",
                        b.len(),
                        String::from_utf8_lossy(&b[..b.len().min(24)])
                    ),
                }
            ),
        }
    }
}

/// Waits (up to a minute) until the writer has logged one completed,
/// fsync'ed operation.
fn wait_for_first_done(log: &Path, why: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .any(|l| l.starts_with("done "))
    {
        assert!(
            Instant::now() < deadline,
            "{why}: the writer completed no operation within 60 s on the mount"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn kill9(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn kill_rounds(mode: &str, rounds: u64) {
    let test = &format!("kill9_{mode}");
    if !fuse_available(test) || !common::have("python3", test) {
        return;
    }
    let seed: u64 = match std::env::var("SCFTL_SEED") {
        Ok(s) => s.parse().expect("SCFTL_SEED is a u64"),
        Err(_) => 0x5c_f7_1a_00 + rounds,
    };
    eprintln!(
        "{test}: seed {seed} (replay: SCFTL_SEED={seed} cargo test -p scftl --test fuse_kill {test})"
    );
    let mut rng = Pcg64::seed_from_u64(seed);
    let started = Instant::now();
    let dir = mounted::scratch_dir();
    let d = dir.path();
    image(d, "fs.img", if mode == "log" { "async" } else { "scftl" });
    std::fs::create_dir(d.join("mnt")).unwrap();
    let img = d.join("fs.img");
    let mnt = d.join("mnt");
    let w = mnt.join("w");
    let mut state: HashMap<usize, Expect> = HashMap::new();
    let mut pending = None;
    let mut completed = 0;
    for round in 0..rounds {
        let why = format!("seed {seed} round {round}");
        let mut m = Mounted::start(&img, &mnt, mode);
        if round == 0 {
            std::fs::create_dir(&w).unwrap();
        } else {
            verify(&w, &mut state, pending, &why);
        }
        let log = d.join(format!("log.{round}"));
        let mut writer = Command::new("python3")
            .args(["-c", WRITER])
            .arg(&w)
            .arg(&log)
            .arg(round.to_string())
            .arg(rng.gen::<u32>().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn python3");
        // Kill at a random instant after the writer's first completed
        // operation, so a slow start on a loaded machine cannot make a
        // round check nothing.
        wait_for_first_done(&log, &why);
        std::thread::sleep(Duration::from_millis(rng.gen_range(0..500)));
        let writer_first = rng.gen_bool(0.3);
        if writer_first {
            kill9(&mut writer);
            std::thread::sleep(Duration::from_millis(rng.gen_range(0..60)));
        }
        kill9(&mut m.child);
        kill9(&mut writer);
        // Dropping removes the dead mount (fusermount3 -u -z).
        drop(m);
        let (p, n) = apply_log(&log, &mut state);
        pending = p;
        completed += n;
        eprintln!(
            "{why}: killed {}after {n} fsync'ed operations",
            if writer_first {
                "the writer, then the mount, "
            } else {
                "the mount "
            }
        );
        fsck_clean(d, "fs.img");
    }
    let m = Mounted::start(&img, &mnt, mode);
    verify(&w, &mut state, pending, &format!("seed {seed} final"));
    m.unmount();
    fsck_clean(d, "fs.img");
    assert!(
        completed >= rounds,
        "seed {seed}: only {completed} operations completed in {rounds} rounds; the test proves little"
    );
    eprintln!(
        "{test}: {rounds} kills, {completed} fsync'ed operations checked, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn kill9_group() {
    kill_rounds("group", 20);
}

#[test]
fn kill9_xlog() {
    kill_rounds("xlog", 4);
}

#[test]
fn kill9_log() {
    kill_rounds("log", 4);
}
