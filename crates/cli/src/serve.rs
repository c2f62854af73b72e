//! `scftl serve`: recover an image (or make a fresh RAM device) and export
//! it over NBD until a signal, optionally under a real-time latency model.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nbd::{Listener, Server, ServerConfig, Tls, TlsCreds, DEFAULT_LISTEN};

use crate::error::CliError;
use crate::image::{self, FormatRequest, MemoryArgs, OpenOptions};
use crate::powercut::{self, CutFlash};
use crate::size::human;
use crate::stats;
use crate::timing::{self, TimingArg};
use rand::SeedableRng;

/// Image served when none is named.
pub const DEFAULT_IMAGE: &str = "scftl.img";

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Image to serve. Default: ./scftl.img, created (medium geometry, scftl
    /// FTL) if it does not exist.
    #[arg(conflicts_with = "memory")]
    pub image: Option<PathBuf>,
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Latency model the device runs under, in real time: `none`, `paper`
    /// (the FEMU-like model of the simulated benchmarks: read 40 µs,
    /// program 200 µs, erase 2 ms) or a JSON file of fields that replace
    /// paper's (docs/USAGE.md lists them).
    #[arg(long, default_value = "none", value_name = "MODEL", value_parser = timing::parse)]
    pub timing: TimingArg,
    /// TCP address to listen on (port 0 picks a free port and prints it).
    #[arg(long, default_value = DEFAULT_LISTEN, value_name = "ADDR")]
    pub listen: String,
    /// Listen on a Unix socket instead of TCP.
    #[arg(long, value_name = "PATH", conflicts_with = "listen")]
    pub unix: Option<PathBuf>,
    /// Export read-only: writes, trims and write-zeroes fail with EPERM and
    /// the image file is never written (recovery runs in memory).
    #[arg(long, conflicts_with = "memory")]
    pub read_only: bool,
    /// Export name offered to clients (the empty name also selects it).
    #[arg(long, default_value = "scftl", value_name = "NAME")]
    pub export_name: String,
    /// Most clients served at once, handshaking or transferring. A client
    /// over it waits up to twice the handshake timeout for a slot, then
    /// gets an NBD error saying the server is busy.
    #[arg(long, default_value_t = nbd::DEFAULT_MAX_CLIENTS as u32, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_clients: u32,
    /// Time a client has from getting its slot to choosing the export, TLS
    /// included (e.g. `10`, `10s`, `500ms`, `2m`; `off` for no limit, which
    /// lets idle connections hold every slot).
    #[arg(long, default_value = "10s", value_name = "TIME", value_parser = parse_timeout)]
    pub handshake_timeout: Timeout,
    /// Close an established connection after this long without a request,
    /// even when no other client needs its slot (`off`: never; same units
    /// as --handshake-timeout). Off by default: qemu and nbd-client keep a
    /// quiet disk connected for as long as it is attached.
    #[arg(long, default_value = "off", value_name = "TIME", value_parser = parse_timeout)]
    pub idle_timeout: Timeout,
    /// The idle timeout that is on by default: a connection with no request
    /// in flight that has been silent this long is closed when a client is
    /// waiting for its slot (or its address's share), so idle clients
    /// cannot lock others out; while slots are free it is never disturbed
    /// (`off`: never).
    #[arg(long, default_value = "30s", value_name = "TIME", value_parser = parse_timeout)]
    pub reclaim_idle: Timeout,
    /// Most connections one IP address may have open or waiting at once
    /// (default 32, capped at --max-clients); one over it is refused with a
    /// message, unless an idle connection of that address can be
    /// reclaimed. Unix-socket clients are not counted, and loopback
    /// clients only when this option is given (they all share one
    /// address).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_clients_per_address: Option<u32>,
    /// Microseconds a connection polls its socket for the next request
    /// after answering one, before it sleeps in the kernel: saves a
    /// cross-CPU wake-up per request while a client keeps the server busy,
    /// for CPU time meanwhile (at most one poller per CPU but one); 0
    /// sleeps at once.
    #[arg(long, default_value_t = 50, value_name = "US")]
    pub poll_us: u64,
    /// Wear leveling: `on` (the most the FTL supports: dynamic and static
    /// for scftl, dynamic for the others; docs/USAGE.md "Wear leveling")
    /// or `off` (FIFO allocation, no data moved for wear).
    #[arg(long, value_enum, default_value_t = OnOff::On, value_name = "ON|OFF")]
    pub wear_leveling: OnOff,
    /// TLS (NBD_OPT_STARTTLS): `off`, `allow` (clients choose) or `require`
    /// (nothing but STARTTLS before TLS). `allow` and `require` need
    /// --tls-cert and --tls-key.
    #[arg(long, value_enum, default_value_t = TlsMode::Off, value_name = "MODE")]
    pub tls: TlsMode,
    /// PEM certificate chain, server certificate first.
    #[arg(long, value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of the certificate (PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE")]
    pub tls_key: Option<PathBuf>,
    /// Require a client certificate issued by a CA in this PEM file (needs
    /// --tls require): the only client authentication the server has.
    #[arg(long, value_name = "FILE")]
    pub tls_client_ca: Option<PathBuf>,
    /// Read the image through a shared memory mapping instead of with a
    /// system call per page run: about half the CPU per byte for large
    /// reads of scattered sectors (docs/BENCHMARKS.md). The price: an I/O
    /// error of the file system holding the image ends the server (the
    /// kernel's SIGBUS) instead of failing the one request, and the pages
    /// read count in its resident memory (shared page cache). Writes and
    /// the image's durability are unchanged.
    #[arg(long, conflicts_with = "memory")]
    pub mmap_reads: bool,
    /// Do not log connections.
    #[arg(long)]
    pub quiet: bool,
    /// Test hook: sleep this long at each internal durability step of a
    /// flush, so a test can kill the server in the middle of one.
    #[arg(long, hide = true, default_value_t = 0)]
    pub debug_slow_sync_ms: u64,
    /// Testing aid (--memory only): on SIGUSR2, simulate a power cut of the
    /// flash. Every client is disconnected, each program or erase not yet
    /// synced is lost, applied or torn at random (from --seed), the FTL is
    /// recovered from the flash as after a reboot, and the server serves
    /// new connections on the same address. Off: no cost.
    #[arg(long, requires = "memory")]
    pub power_cut_signal: bool,
    /// Record every write, trim, flush and internal epoch barrier that
    /// reaches the device, with the connection it came from, to TRACE (a
    /// new file; docs/FORMAT.md §9). The trace starts with the device's
    /// current content, and is synced at each flush before the flush is
    /// acknowledged. `scftl explore TRACE` checks a program's crash
    /// recovery at every crash state of it.
    #[arg(long, value_name = "TRACE", conflicts_with = "power_cut_signal")]
    pub record: Option<PathBuf>,
    /// --power-cut-signal: seed of the power cuts' random outcomes
    /// (default 1).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// What wakes the main thread of `serve`.
enum Event {
    /// Ctrl-C, SIGTERM or SIGHUP: flush and exit.
    Stop,
    /// The accept loop of server generation `n` returned.
    ListenerClosed(u64),
    /// SIGUSR2 under --power-cut-signal.
    PowerCut,
}

type Device = Box<dyn ftl::BlockDevice + Send + Sync>;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TlsMode {
    Off,
    Allow,
    Require,
}

/// A timeout option: `None` means no limit.
#[derive(Clone, Copy, Debug)]
pub struct Timeout(pub Option<Duration>);

/// Parses `off`, `0`, or a number with an optional unit `ms`, `s` (the
/// default) or `m`.
fn parse_timeout(text: &str) -> Result<Timeout, String> {
    let t = text.trim();
    if t == "off" || t == "0" {
        return Ok(Timeout(None));
    }
    let (num, scale_ms) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60e3)
    } else {
        (t, 1e3)
    };
    let bad = || format!("{text:?} is not a time: use e.g. 10, 10s, 500ms, 2m or off");
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    if !v.is_finite() || v < 0.0 || v * scale_ms > 86_400e3 * 7.0 {
        return Err(bad());
    }
    let ms = (v * scale_ms).round() as u64;
    Ok(Timeout(if ms == 0 {
        None
    } else {
        Some(Duration::from_millis(ms))
    }))
}

/// Checks the TLS options and loads the credentials, before any image is
/// touched.
fn tls_setup(a: &ServeArgs) -> Result<Tls, CliError> {
    let files = (&a.tls_cert, &a.tls_key);
    if a.tls == TlsMode::Off {
        if files.0.is_some() || files.1.is_some() || a.tls_client_ca.is_some() {
            return Err(CliError::usage(
                "--tls-cert/--tls-key/--tls-client-ca given but --tls is off; add --tls require (or allow)",
            ));
        }
        return Ok(Tls::Off);
    }
    if a.tls == TlsMode::Allow && a.tls_client_ca.is_some() {
        return Err(CliError::usage(
            "--tls-client-ca needs --tls require: with allow, plaintext clients would skip the certificate check",
        ));
    }
    let (Some(cert), Some(key)) = files else {
        return Err(CliError::usage(
            "--tls allow|require needs both --tls-cert FILE and --tls-key FILE",
        ));
    };
    let creds = TlsCreds::from_pem_files(cert, key, a.tls_client_ca.as_deref()).map_err(|e| {
        CliError::usage(format!(
            "{e}; check --tls-cert, --tls-key and --tls-client-ca"
        ))
    })?;
    Ok(match a.tls {
        TlsMode::Allow => Tls::Allow(creds),
        _ => Tls::Require(creds),
    })
}

/// Whether `addr` (a --listen value) can be reached from other hosts.
fn listens_beyond_loopback(addr: &str) -> bool {
    use std::net::ToSocketAddrs;
    match addr.to_socket_addrs() {
        Ok(mut addrs) => addrs.any(|a| !a.ip().is_loopback()),
        Err(_) => false,
    }
}

/// Rejects a --listen value that names no socket address, before the image
/// is opened, so a typo costs no recovery and is reported as a usage error
/// rather than as a port already in use.
fn check_listen(addr: &str) -> Result<(), CliError> {
    use std::net::ToSocketAddrs;
    match addr.to_socket_addrs().map(|mut addrs| addrs.next()) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(CliError::usage(format!(
            "--listen {addr:?}: resolves to no address; expected HOST:PORT, e.g. 127.0.0.1:10809"
        ))),
        Err(e) => Err(CliError::usage(format!(
            "--listen {addr:?}: {e}; expected HOST:PORT, e.g. 127.0.0.1:10809 or [::1]:10809"
        ))),
    }
}

fn default_image() -> Result<PathBuf, CliError> {
    let path = Path::new(DEFAULT_IMAGE).to_path_buf();
    if !path.exists() {
        let req = FormatRequest {
            geometry: Some("medium".into()),
            kind: Some(ftl::FtlKind::Scftl),
            ..FormatRequest::default()
        };
        let s = image::format(&path, &req)?;
        eprintln!(
            "scftl: created {} ({} {} disk, medium geometry)",
            path.display(),
            human(s.logical_bytes()),
            s.kind
        );
    }
    Ok(path)
}

/// Has glibc's allocator keep one arena for every thread of the server
/// (`mallopt(M_ARENA_MAX, 1)`), unless `MALLOC_ARENA_MAX` or a
/// `glibc.malloc.arena_max` tunable chose otherwise. By default each
/// thread that allocates while another holds the arena gets an arena of
/// its own (up to eight per core), and each keeps what its thread freed:
/// connection threads, the detached writes' and the page-cache copies'
/// buffers then left the server's peak resident set at 24–36 MiB instead
/// of 19 (a 2 GiB export; docs/BENCHMARKS.md, "The server's resident
/// set"). The hot paths allocate no large buffer per request (WRITE
/// payloads and READ replies reuse a buffer per connection, gathers come
/// from a pool), and small blocks come from each thread's own cache, so
/// the one arena's lock is rarely taken.
fn one_allocator_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tuned = std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("arena_max"));
        if std::env::var_os("MALLOC_ARENA_MAX").is_none() && !tuned {
            // SAFETY: mallopt sets one parameter of glibc's allocator and
            // has no other precondition; the call comes before the server
            // starts a thread.
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
        }
    }
}

pub fn run(a: &ServeArgs) -> Result<(), CliError> {
    one_allocator_arena();
    if a.export_name.len() > 4096 {
        return Err(CliError::usage("--export-name: at most 4096 bytes"));
    }
    if a.unix.is_none() {
        check_listen(&a.listen)?;
    }
    // Checked here as well as by clap: `requires` counts a flag's default
    // as given.
    if a.power_cut_signal && !a.memory.memory {
        return Err(CliError::usage(
            "--power-cut-signal needs --memory: only a RAM device has the power-cut model",
        ));
    }
    if a.seed.is_some() && !a.power_cut_signal {
        return Err(CliError::usage(
            "--seed applies only with --power-cut-signal: it seeds the simulated power cuts",
        ));
    }
    a.memory.check_applies()?;
    let tls = tls_setup(a)?;
    // Bound before the image is opened: a busy address is reported at
    // once, not after a recovery (and a checkpoint write) it then wastes.
    let listener = match &a.unix {
        Some(p) => Listener::unix(p).map_err(|e| format!("{e}; choose another --unix path")),
        None => Listener::tcp(&a.listen).map_err(|e| format!("{e}; pick another with --listen")),
    }
    .map_err(CliError::runtime)?;
    let listener = Arc::new(listener);
    let mut cut_flash = None;
    let opened = if a.memory.memory {
        let opened = if a.power_cut_signal {
            image::create_memory_on(&a.memory.request(), &a.timing, |mem| {
                let f = CutFlash::new(mem);
                cut_flash = Some(f.clone());
                Box::new(f)
            })?
        } else {
            image::create_memory(&a.memory.request(), &a.timing)?
        };
        let s = &opened.summary;
        eprintln!(
            "scftl: formatted a RAM device: {} {} disk on {} of flash, geometry {} (nothing is saved)",
            human(s.logical_bytes()),
            s.kind,
            human(s.geometry.raw_bytes()),
            crate::sizing::describe(&s.geometry)
        );
        opened
    } else {
        let path = match &a.image {
            Some(p) => p.clone(),
            None => default_image()?,
        };
        let o = OpenOptions {
            read_only: a.read_only,
            slow_sync_ms: a.debug_slow_sync_ms,
            timing: a.timing.clone(),
            allow_live: false,
            mmap_reads: a.mmap_reads,
        };
        let opened = image::open_with(&path, &o)?;
        eprintln!(
            "scftl: recovered {} in {:.1} ms ({}, {} FTL)",
            human(opened.summary.logical_bytes()),
            opened.recovery.as_secs_f64() * 1e3,
            path.display(),
            opened.summary.kind
        );
        opened
    };
    eprintln!("scftl: timing: {}", opened.timing);
    let s = opened.summary.clone();
    if a.unix.is_none() && listens_beyond_loopback(&a.listen) {
        match a.tls {
            TlsMode::Off => eprintln!(
                "scftl: WARNING: listening on {} without TLS: anyone who can reach this address can read and overwrite the disk, and the traffic is in plaintext; use --tls require or listen on 127.0.0.1",
                a.listen
            ),
            TlsMode::Allow => eprintln!(
                "scftl: WARNING: listening on {} with --tls allow: clients may still connect in plaintext; use --tls require",
                a.listen
            ),
            TlsMode::Require => {}
        }
    }

    let config = ServerConfig {
        export_name: a.export_name.clone(),
        description: format!(
            "{}: {} disk, {} FTL, timing {}",
            s.path.display(),
            human(s.logical_bytes()),
            s.kind,
            a.timing.name()
        ),
        read_only: a.read_only,
        log: !a.quiet,
        log_errors: !a.quiet,
        max_clients: a.max_clients as usize,
        handshake_timeout: a.handshake_timeout.0,
        idle_timeout: a.idle_timeout.0,
        reclaim_idle: a.reclaim_idle.0,
        max_per_address: a
            .max_clients_per_address
            .map_or(nbd::DEFAULT_MAX_PER_ADDRESS, |n| n as usize),
        per_address_loopback: a.max_clients_per_address.is_some(),
        poll: Some(std::time::Duration::from_micros(a.poll_us)).filter(|d| !d.is_zero()),
        tls,
        hints: nbd::Hints {
            max_clients: "scftl serve --max-clients".into(),
            tls: "scftl serve --tls allow|require".into(),
            max_per_address: "scftl serve --max-clients-per-address".into(),
        },
        ..ServerConfig::default()
    };
    // Format and recovery ran untimed; the model applies from here on.
    opened.pacing.start();
    let mut pacing = opened.pacing.clone();
    let mut opened = opened;
    level_wear(&mut opened, a)?;
    let (device, closer) = crate::explorecmd::recording(opened.device, a.record.as_deref())?;
    let mut server = Server::new(device, config.clone());
    // The server SIGUSR1 reports on: replaced by each power cut.
    let current = Arc::new(Mutex::new(server.clone()));

    let (tx, rx) = mpsc::channel::<Event>();
    let sig_tx = tx.clone();
    ctrlc::set_handler(move || {
        let _ = sig_tx.send(Event::Stop);
    })
    .map_err(|e| CliError::runtime(format!("cannot install the signal handler: {e}")))?;
    let cur = Arc::clone(&current);
    let report = move || print_stats(&lock(&cur));
    stats::on_sigusr1(report)?;
    if cut_flash.is_some() {
        let cut_tx = tx.clone();
        powercut::on_sigusr2(move || {
            let _ = cut_tx.send(Event::PowerCut);
        })?;
    }
    let mut generation = 0;
    let mut accept = spawn_accept(&server, &listener, generation, tx.clone())?;

    eprintln!(
        "scftl: serving export '{}' on {} ({}, TLS {}); Ctrl-C to stop",
        a.export_name,
        listener.describe(),
        if a.read_only {
            "read-only"
        } else {
            "read-write"
        },
        match a.tls {
            TlsMode::Off => "off",
            TlsMode::Allow => "allowed",
            TlsMode::Require => "required",
        }
    );

    let show = |t: Timeout| match t.0 {
        Some(d) => format!("{} s", d.as_secs_f64()),
        None => "off".into(),
    };
    eprintln!(
        "scftl: limits: {} clients ({}), handshake timeout {}, idle slots reclaimed after {}, idle timeout {}, poll {} µs",
        a.max_clients,
        match a.max_clients_per_address {
            Some(n) => format!("{} per address", n.min(a.max_clients)),
            None => format!(
                "{} per remote address",
                (nbd::DEFAULT_MAX_PER_ADDRESS as u32).min(a.max_clients)
            ),
        },
        show(a.handshake_timeout),
        show(a.reclaim_idle),
        show(a.idle_timeout),
        a.poll_us
    );
    if let (TlsMode::Allow | TlsMode::Require, Some(addr)) = (a.tls, listener.tcp_addr()) {
        eprintln!(
            "scftl: TLS clients connect with nbds://{addr}/ (libnbd: add ?tls-certificates=DIR, a directory holding ca-cert.pem)"
        );
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(a.seed.unwrap_or(1));
    let why = loop {
        match rx.recv() {
            Err(_) => break "channel closed",
            Ok(Event::Stop) => break "signal",
            Ok(Event::ListenerClosed(g)) if g == generation => break "listener closed",
            // An earlier server's accept loop, ended by a power cut.
            Ok(Event::ListenerClosed(_)) => {}
            Ok(Event::PowerCut) => {
                let Some(f) = &cut_flash else { continue };
                let mut opened = power_cut(&server, &listener, accept, f, &a.timing, &mut rng)?;
                level_wear(&mut opened, a)?;
                opened.pacing.start();
                pacing = opened.pacing.clone();
                server = Server::new(opened.device, config.clone());
                *lock(&current) = server.clone();
                generation += 1;
                accept = spawn_accept(&server, &listener, generation, tx.clone())?;
            }
        }
    };
    eprintln!("scftl: stopping ({why}): flushing");
    server.shutdown(Some(&listener)).map_err(|e| {
        CliError::runtime(format!(
            "final flush failed: {e}; data since the last successful flush may be lost"
        ))
    })?;
    // The accept thread still holds the listener, so its drop may never
    // run before exit; remove the socket file here.
    listener.remove_socket_file();
    if let Some(c) = closer {
        c.finish()
            .map_err(|e| CliError::runtime(format!("closing the trace: {e}")))?;
    }
    if let Some(r) = pacing.report() {
        eprintln!("scftl: timing: {r}");
    }
    print_stats(&server);
    eprintln!("scftl: flushed, bye");
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `server`'s accept loop on its own thread; `Event::ListenerClosed`
/// tagged `generation` says when it returned.
fn spawn_accept(
    server: &Server<Device>,
    listener: &Arc<Listener>,
    generation: u64,
    tx: mpsc::Sender<Event>,
) -> Result<std::thread::JoinHandle<()>, CliError> {
    let (srv, l) = (server.clone(), Arc::clone(listener));
    std::thread::Builder::new()
        .name("nbd-accept".into())
        .spawn(move || {
            if let Err(e) = srv.serve(&l) {
                eprintln!("scftl: accept loop failed: {e}");
            }
            let _ = tx.send(Event::ListenerClosed(generation));
        })
        .map_err(|e| CliError::runtime(format!("cannot start the server thread: {e}")))
}

/// Cuts power under `server` and recovers: the flash is switched off first,
/// so the request running now (if any) fails part-way as it would on a
/// power loss; `shutdown` then waits for it under the device lock and
/// makes every later request on the old connections fail with ESHUTDOWN
/// (its flush fails too, since the power is off: nothing becomes durable).
/// The accept loop `accept` ends, and is waited for: a connection made
/// after the cut must reach the next server's loop, never this one (two
/// loops blocked in `accept` on one listener take connections in any
/// order). The in-flight pages are settled at random and the FTL is
/// recovered from the flash.
fn power_cut(
    server: &Server<Device>,
    listener: &Listener,
    accept: std::thread::JoinHandle<()>,
    flash: &CutFlash,
    timing: &crate::timing::TimingArg,
    rng: &mut dyn rand::RngCore,
) -> Result<image::Opened, CliError> {
    flash.power_off();
    let _ = server.shutdown(Some(listener));
    // shutdown's wake-up connection ends the loop; should it be lost (a
    // full backlog), wake it again.
    let mut waited = 0;
    while !accept.is_finished() {
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
        if waited % 100 == 0 {
            listener.wake_accept();
        }
    }
    let _ = accept.join();
    let commands = flash.commands_in_flight();
    let report = flash
        .power_on(rng)
        .map_err(|e| CliError::runtime(format!("power cut: the crash model failed: {e}")))?;
    let opened = image::reopen_memory(Box::new(flash.clone()), timing)
        .map_err(|e| CliError::runtime(format!("power cut: recovery failed: {e}")))?;
    eprintln!(
        "scftl: power cut: {commands} commands in flight ({} pages: {} lost, {} partly applied, {} applied, {} torn), recovered in {:.1} ms",
        report.pages,
        report.old,
        report.intermediate,
        report.applied,
        report.torn,
        opened.recovery.as_secs_f64() * 1e3
    );
    Ok(opened)
}

/// Prints the device's counters, plus the flushes the server issued itself
/// because an epoch was full (they are among `flushes`), the syncs its
/// background thread ran behind them (among `flash_syncs`) and the
/// superblocks SCFTL erased ahead after those syncs (among
/// `blocks_erased`), the requests whose pages were written to the image
/// after the lock was released (detached writes), and the changes whose
/// reply waited for a flush's sync to end (held returns).
fn print_stats<D: ftl::BlockDevice + Send + Sync + 'static>(server: &Server<D>) {
    let (flushes, behind) = (server.epoch_flushes(), server.syncs_behind());
    let (detached, held) = (server.detached_writes(), server.held_returns());
    server.with_device(|d| {
        let extra = format!(
            "epoch_flushes={flushes} syncs_behind={behind} erased_ahead={} \
             detached_writes={detached} held_returns={held}",
            d.stats().erased_ahead
        );
        stats::print(&*d, &extra)
    });
}

/// `--wear-leveling`: on or off.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}

/// Sets the device's wear policy as `--wear-leveling` asks (a read-only
/// export writes nothing, so it levels nothing).
fn level_wear(opened: &mut image::Opened, a: &ServeArgs) -> Result<(), CliError> {
    if a.wear_leveling == OnOff::Off || a.read_only {
        return Ok(());
    }
    let policy = ftl::wear::default_for(opened.summary.kind);
    opened
        .device
        .set_wear_policy(policy)
        .map_err(|e| CliError::runtime(format!("--wear-leveling on: {e}")))
}
