//! `scftl serve`: recover an image (or make a fresh RAM device) and export
//! it over NBD until a signal, optionally under a real-time latency model.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;

use nbd::{Listener, Server, ServerConfig, DEFAULT_LISTEN};

use crate::error::CliError;
use crate::image::{self, FormatRequest, MemoryArgs, OpenOptions};
use crate::size::human;
use crate::timing::{self, TimingArg};

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
    /// Do not log connections.
    #[arg(long)]
    pub quiet: bool,
    /// Test hook: sleep this long at each internal durability step of a
    /// flush, so a test can kill the server in the middle of one.
    #[arg(long, hide = true, default_value_t = 0)]
    pub debug_slow_sync_ms: u64,
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

pub fn run(a: &ServeArgs) -> Result<(), CliError> {
    if a.export_name.len() > 4096 {
        return Err(CliError::usage("--export-name: at most 4096 bytes"));
    }
    let opened = if a.memory.memory {
        let opened = image::create_memory(&a.memory.request(), &a.timing)?;
        let s = &opened.summary;
        eprintln!(
            "scftl: formatted a RAM device: {} {} disk on {} geometry (nothing is saved)",
            human(s.logical_bytes()),
            s.kind,
            crate::preset_name(&s.geometry)
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

    let listener = match &a.unix {
        Some(p) => Listener::unix(p),
        None => Listener::tcp(&a.listen),
    }
    .map_err(|e| CliError::runtime(e.to_string()))?;
    let listener = Arc::new(listener);

    let config = ServerConfig {
        export_name: a.export_name.clone(),
        description: format!(
            "scftl {} disk {}, timing {}",
            s.kind,
            s.path.display(),
            a.timing.name()
        ),
        read_only: a.read_only,
        log: !a.quiet,
        log_errors: !a.quiet,
        ..ServerConfig::default()
    };
    // Format and recovery ran untimed; the model applies from here on.
    opened.pacing.start();
    let pacing = opened.pacing.clone();
    let server = Server::new(opened.device, config);

    let (tx, rx) = mpsc::channel::<&'static str>();
    let sig_tx = tx.clone();
    ctrlc::set_handler(move || {
        let _ = sig_tx.send("signal");
    })
    .map_err(|e| CliError::runtime(format!("cannot install the signal handler: {e}")))?;

    let (srv, l) = (server.clone(), Arc::clone(&listener));
    std::thread::Builder::new()
        .name("nbd-accept".into())
        .spawn(move || {
            if let Err(e) = srv.serve(&l) {
                eprintln!("scftl: accept loop failed: {e}");
            }
            let _ = tx.send("listener closed");
        })
        .map_err(|e| CliError::runtime(format!("cannot start the server thread: {e}")))?;

    eprintln!(
        "scftl: serving export '{}' on {} ({}); Ctrl-C to stop",
        a.export_name,
        listener.describe(),
        if a.read_only {
            "read-only"
        } else {
            "read-write"
        }
    );

    let why = rx.recv().unwrap_or("channel closed");
    eprintln!("scftl: stopping ({why}): flushing");
    server.shutdown(Some(&listener)).map_err(|e| {
        CliError::runtime(format!(
            "final flush failed: {e}; data since the last successful flush may be lost"
        ))
    })?;
    if let Some(r) = pacing.report() {
        eprintln!("scftl: timing: {r}");
    }
    eprintln!("scftl: flushed, bye");
    Ok(())
}
