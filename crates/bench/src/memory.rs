//! `memory`: the RAM `scftl serve` really uses, per logical sector.
//!
//! Per (FTL, size): `scftl format --size S --ftl F` makes a sparse image,
//! `scftl serve IMAGE --unix SOCKET` recovers and serves it, and a small
//! NBD client (below; fixed newstyle, `NBD_OPT_EXPORT_NAME`, simple
//! replies) writes `--ios` random 4 KiB blocks with a flush every 256,
//! reads each back and compares it. Then the server's peak resident set
//! (`VmHWM` of /proc/PID/status) is divided by its logical sectors, and the
//! server is stopped with SIGTERM (it flushes and must exit 0).
//!
//! What is measured is the whole process (FTL tables, buffers, the NBD
//! server, the executable and its libraries), which is what a user pays;
//! the fixed part shows in the smallest export. The executable measured is
//! the one `--scftl` names (by default the `release` build next to this
//! one), so the figure is that build's: a build with the `ghost` feature
//! keeps a checker-only copy of the L2P (4 B per logical sector) on top.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::args::MemoryArgs;
use crate::report::{self, fmt_int, fmt_opt, Header, Report, Row, Table};
use crate::stack::progress;
use crate::workload::BResult;

/// NBD protocol constants (the server's own, `nbd::proto`).
use nbd::proto;

/// Block size of the client's requests.
const BLOCK: usize = 4096;

/// The `scftl` executable: `--scftl`, else this process when it is
/// `scftl`, else `scftl` beside it, else the workspace's release build.
pub fn scftl_exe(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    let exe = std::env::current_exe().unwrap_or_default();
    if exe.file_name().is_some_and(|n| n == "scftl") {
        return exe;
    }
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    for _ in 0..3 {
        for cand in [dir.join("scftl"), dir.join("release").join("scftl")] {
            if cand.is_file() {
                return cand;
            }
        }
        dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    PathBuf::from("scftl")
}

/// A running `scftl serve`; dropping it kills the process.
struct Server {
    child: Option<Child>,
    log: std::sync::mpsc::Receiver<String>,
    lines: Vec<String>,
}

impl Server {
    fn start(exe: &Path, image: &Path, sock: &Path) -> BResult<Server> {
        let mut child = Command::new(exe)
            .arg("serve")
            .arg(image)
            .arg("--unix")
            .arg(sock)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {} serve: {e}", exe.display()))?;
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(err) = child.stderr.take() {
            std::thread::spawn(move || {
                use std::io::BufRead;
                for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                    if tx.send(l).is_err() {
                        break;
                    }
                }
            });
        }
        let mut s = Server {
            child: Some(child),
            log: rx,
            lines: Vec::new(),
        };
        s.wait_for("serving export", Duration::from_secs(600))?;
        Ok(s)
    }

    fn wait_for(&mut self, needle: &str, limit: Duration) -> BResult<()> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            match self.log.recv_timeout(Duration::from_millis(100)) {
                Ok(l) => {
                    let hit = l.contains(needle);
                    self.lines.push(l);
                    if hit {
                        return Ok(());
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(_) => {
                    return Err(format!(
                        "scftl serve exited before `{needle}`: {}",
                        self.lines.join(" / ")
                    ))
                }
            }
        }
        Err(format!(
            "scftl serve did not print `{needle}` within {limit:?}"
        ))
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// SIGTERM, then waits for a clean exit (the server flushes first).
    fn stop(mut self) -> BResult<()> {
        let mut child = self.child.take().ok_or("server already stopped")?;
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
                return if st.success() {
                    Ok(())
                } else {
                    Err(format!("scftl serve exited with {st} after SIGTERM"))
                };
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err("scftl serve did not exit within 120 s of SIGTERM".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A minimal NBD client: one export, simple replies, one request at a time.
struct Client {
    s: UnixStream,
    size: u64,
    handle: u64,
}

fn io<T>(r: std::io::Result<T>) -> BResult<T> {
    r.map_err(|e| format!("NBD connection: {e}"))
}

impl Client {
    fn connect(sock: &Path) -> BResult<Client> {
        let mut s = io(UnixStream::connect(sock))?;
        io(s.set_read_timeout(Some(Duration::from_secs(120))))?;
        let mut hello = [0u8; 18];
        io(s.read_exact(&mut hello))?;
        let magic = u64::from_be_bytes(hello[..8].try_into().unwrap_or_default());
        let opt = u64::from_be_bytes(hello[8..16].try_into().unwrap_or_default());
        if magic != proto::INIT_MAGIC || opt != proto::OPT_MAGIC {
            return Err("not a newstyle NBD server".into());
        }
        let flags = u16::from_be_bytes([hello[16], hello[17]]);
        let no_zeroes = flags & proto::FLAG_NO_ZEROES != 0;
        let mut cf = proto::CLIENT_FLAG_FIXED_NEWSTYLE;
        if no_zeroes {
            cf |= proto::CLIENT_FLAG_NO_ZEROES;
        }
        let name = b"scftl";
        let mut m = Vec::new();
        m.extend_from_slice(&cf.to_be_bytes());
        m.extend_from_slice(&proto::OPT_MAGIC.to_be_bytes());
        m.extend_from_slice(&proto::OPT_EXPORT_NAME.to_be_bytes());
        m.extend_from_slice(&(name.len() as u32).to_be_bytes());
        m.extend_from_slice(name);
        io(s.write_all(&m))?;
        let mut info = vec![0u8; if no_zeroes { 10 } else { 134 }];
        io(s.read_exact(&mut info))?;
        let size = u64::from_be_bytes(info[..8].try_into().unwrap_or_default());
        Ok(Client { s, size, handle: 0 })
    }

    fn request(&mut self, kind: u16, offset: u64, len: u32, data: &[u8]) -> BResult<()> {
        self.handle += 1;
        let mut m = Vec::with_capacity(28 + data.len());
        m.extend_from_slice(&proto::REQUEST_MAGIC.to_be_bytes());
        m.extend_from_slice(&0u16.to_be_bytes());
        m.extend_from_slice(&kind.to_be_bytes());
        m.extend_from_slice(&self.handle.to_be_bytes());
        m.extend_from_slice(&offset.to_be_bytes());
        m.extend_from_slice(&len.to_be_bytes());
        m.extend_from_slice(data);
        io(self.s.write_all(&m))?;
        let mut r = [0u8; 16];
        io(self.s.read_exact(&mut r))?;
        let magic = u32::from_be_bytes([r[0], r[1], r[2], r[3]]);
        let err = u32::from_be_bytes([r[4], r[5], r[6], r[7]]);
        let handle = u64::from_be_bytes(r[8..16].try_into().unwrap_or_default());
        if magic != proto::SIMPLE_REPLY_MAGIC || handle != self.handle {
            return Err(format!("bad NBD reply (magic {magic:#x}, handle {handle})"));
        }
        if err != 0 {
            return Err(format!(
                "NBD request {kind} at {offset} failed: error {err}"
            ));
        }
        Ok(())
    }

    fn write(&mut self, offset: u64, data: &[u8]) -> BResult<()> {
        self.request(proto::CMD_WRITE, offset, data.len() as u32, data)
    }

    fn read(&mut self, offset: u64, buf: &mut [u8]) -> BResult<()> {
        self.request(proto::CMD_READ, offset, buf.len() as u32, &[])?;
        io(self.s.read_exact(buf))
    }

    fn flush(&mut self) -> BResult<()> {
        self.request(proto::CMD_FLUSH, 0, 0, &[])
    }

    fn disconnect(mut self) -> BResult<()> {
        self.handle += 1;
        let mut m = Vec::with_capacity(28);
        m.extend_from_slice(&proto::REQUEST_MAGIC.to_be_bytes());
        m.extend_from_slice(&0u16.to_be_bytes());
        m.extend_from_slice(&proto::CMD_DISC.to_be_bytes());
        m.extend_from_slice(&self.handle.to_be_bytes());
        m.extend_from_slice(&[0u8; 12]);
        io(self.s.write_all(&m))
    }
}

/// Seeded random 4 KiB writes (a flush every 256), then every block read
/// back and compared.
fn exercise(c: &mut Client, ios: u64, seed: u64) -> BResult<()> {
    let blocks = c.size / BLOCK as u64;
    if blocks == 0 {
        return Err("the export is smaller than one block".into());
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut written: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut buf = vec![0u8; BLOCK];
    for i in 0..ios {
        let b = rng.gen_range(0..blocks);
        let stamp = (i << 1) | 1;
        fill(&mut buf, b, stamp);
        c.write(b * BLOCK as u64, &buf)?;
        written.insert(b, stamp);
        if (i + 1) % 256 == 0 {
            c.flush()?;
        }
    }
    c.flush()?;
    let mut want = vec![0u8; BLOCK];
    for (&b, &stamp) in &written {
        c.read(b * BLOCK as u64, &mut buf)?;
        fill(&mut want, b, stamp);
        if buf != want {
            return Err(format!("block {b} read back wrong"));
        }
    }
    Ok(())
}

/// The bytes of block `b` as written with `stamp`.
fn fill(buf: &mut [u8], b: u64, stamp: u64) {
    for (i, w) in buf.chunks_exact_mut(16).enumerate() {
        w[..8].copy_from_slice(&b.to_le_bytes());
        w[8..].copy_from_slice(&(stamp ^ i as u64).to_le_bytes());
    }
}

/// `VmHWM` and `VmRSS` of a process, in bytes.
fn rss(pid: u32) -> BResult<(u64, u64)> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let field = |name: &str| -> BResult<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .ok_or_else(|| format!("{path}: no {name}"))
    };
    Ok((field("VmHWM:")?, field("VmRSS:")?))
}

/// What `scftl format --json` said about the image.
struct Formatted {
    geometry: String,
    logical_sectors: u64,
    sector_size: u64,
    raw_bytes: u64,
}

fn format_image(exe: &Path, image: &Path, size: &str, ftl: &str) -> BResult<Formatted> {
    let out = Command::new(exe)
        .arg("format")
        .arg(image)
        .args(["--size", size, "--ftl", ftl, "--force", "--json"])
        .output()
        .map_err(|e| format!("cannot run {} format: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "scftl format --size {size} --ftl {ftl}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("scftl format --json: {e}"))?;
    let num = |k: &str| {
        v[k].as_u64()
            .ok_or_else(|| format!("scftl format --json lacks `{k}`: {v}"))
    };
    let g = &v["geometry"];
    Ok(Formatted {
        geometry: g["preset"].as_str().unwrap_or("?").to_string(),
        logical_sectors: num("logical_sectors")?,
        sector_size: num("sector_size")?,
        raw_bytes: g["raw_bytes"]
            .as_u64()
            .ok_or_else(|| format!("scftl format --json lacks the raw size: {v}"))?,
    })
}

/// Measures one (FTL, size).
fn measure(exe: &Path, dir: &Path, size: &str, ftl: &str, a: &MemoryArgs) -> BResult<Row> {
    let image = dir.join(format!("mem-{ftl}-{size}.img"));
    let sock = dir.join(format!("mem-{ftl}-{size}.sock"));
    let _ = std::fs::remove_file(&sock);
    let f = format_image(exe, &image, size, ftl)?;
    let t0 = Instant::now();
    let server = Server::start(exe, &image, &sock)?;
    let started_s = t0.elapsed().as_secs_f64();
    let mut c = Client::connect(&sock)?;
    exercise(&mut c, a.ios, a.common.seed)?;
    let (hwm, now) = rss(server.pid())?;
    c.disconnect()?;
    server.stop()?;
    let _ = std::fs::remove_file(&image);
    let per = hwm as f64 / f.logical_sectors as f64;
    Ok(Row {
        bench: "memory".into(),
        ftl: ftl.into(),
        geometry: f.geometry,
        seed: a.common.seed,
        writes: Some(a.ios),
        device_gib: Some(f.raw_bytes >> 30),
        logical_gib: Some((f.logical_sectors * f.sector_size) as f64 / f64::from(1u32 << 30)),
        ram_bytes_per_sector: Some(per),
        peak_rss_bytes: Some(hwm),
        rss_bytes: Some(now),
        logical_sectors: Some(f.logical_sectors),
        recovery_wall_ms: Some(started_s * 1e3),
        ram_source: Some("VmHWM of scftl serve after the I/O".into()),
        note: Some(size.to_string()),
        ..Row::default()
    })
}

/// Runs the benchmark, prints the report, writes JSON if asked.
pub fn run(a: &MemoryArgs) -> BResult<Vec<Row>> {
    run_report(a).map(|r| r.rows)
}

/// [`run`], returning the printed report too.
pub fn run_report(a: &MemoryArgs) -> BResult<Report> {
    report::check_outputs(&a.common)?;
    let exe = scftl_exe(a.scftl.as_deref());
    let sizes: Vec<String> = if a.common.quick {
        vec!["64MiB".into(), "128MiB".into()]
    } else {
        a.sizes.clone()
    };
    let tmp;
    let dir = match &a.workdir {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::Builder::new()
                .prefix("scftl-memory-")
                .tempdir_in(std::env::temp_dir())
                .map_err(|e| format!("temporary directory: {e}"))?;
            tmp.path().to_path_buf()
        }
    };
    let mut header = Header::new("memory: peak RSS of `scftl serve` per logical sector");
    header.add("executable", exe.display().to_string());
    header.add(
        "method",
        format!("scftl format --size S --ftl F (sparse image), scftl serve --unix, an NBD client writes {} random 4 KiB blocks (flush every 256) and reads each back; then VmHWM of /proc/PID/status; SIGTERM (must exit 0)", a.ios),
    );
    header.add("seed", a.common.seed.to_string());
    report::add_provenance(&mut header);
    let mut rows = Vec::new();
    for ftl in &a.ftl {
        let name = ftl.kind().name();
        for size in &sizes {
            progress(a.common.silent, format!("memory: {name} {size}"));
            let row = measure(&exe, &dir, size, name, a)?;
            progress(
                a.common.silent,
                format!(
                    "memory: {name} {size}: peak RSS {} MiB, {:.2} B per logical sector",
                    row.peak_rss_bytes.unwrap_or(0) >> 20,
                    row.ram_bytes_per_sector.unwrap_or(0.0)
                ),
            );
            rows.push(row);
        }
    }
    let text = render(&header, &rows);
    crate::output::finish(&a.common, rows, text)
}

/// Bytes in MiB.
fn mib(b: u64) -> f64 {
    b as f64 / f64::from(1u32 << 20)
}

/// The table: one row per (FTL, export size).
pub fn table(rows: &[Row]) -> Table {
    let mut t = Table::new(&[
        "ftl",
        "export",
        "geometry",
        "raw GiB",
        "logical sectors",
        "peak RSS MiB",
        "RSS after I/O MiB",
        "B per logical sector (peak)",
        "start ms",
    ]);
    for r in rows {
        t.push(vec![
            r.ftl.clone(),
            r.note.clone().unwrap_or_default(),
            r.geometry.clone(),
            crate::report::fmt_count(r.device_gib),
            fmt_int(r.logical_sectors.unwrap_or(0) as f64),
            fmt_opt(r.peak_rss_bytes.map(mib), 1),
            fmt_opt(r.rss_bytes.map(mib), 1),
            fmt_opt(r.ram_bytes_per_sector, 2),
            fmt_opt(r.recovery_wall_ms, 0),
        ]);
    }
    t
}

/// Every table of the report.
pub fn tables(rows: &[Row]) -> Vec<Table> {
    vec![table(rows)]
}

/// The text report: the header and the table.
pub fn render(header: &Header, rows: &[Row]) -> String {
    header.render_with(&table(rows))
}
