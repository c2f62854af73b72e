//! One client connection: the fixed-newstyle handshake, then the
//! transmission phase with simple replies.
//!
//! Rules this file keeps:
//! * No input from the network can panic the server: every length is
//!   checked before it sizes a buffer, every slice index is bounded by a
//!   length checked just before.
//! * A request is read off the socket completely before the device lock is
//!   taken, so a client that stalls or vanishes mid-request never holds the
//!   device and never causes a partial write.
//! * When the client breaks the protocol in a way that loses framing (bad
//!   magic, truncated message) the connection is closed; everything else
//!   gets the protocol's error reply and the connection goes on.

use std::io::{self, Read, Write};
use std::sync::atomic::Ordering;

use ftl::BlockDevice;

use crate::ops::{self, OpError};
use crate::proto::*;
use crate::server::Shared;

/// Longest option payload the server reads into memory; longer ones are
/// skipped and answered with `NBD_REP_ERR_TOO_BIG`.
const MAX_OPTION_BYTES: u32 = 64 * 1024;
/// Longest string (export name) the protocol allows.
const MAX_STRING_BYTES: usize = 4096;
/// Most options one connection may send before the server gives up on it.
const MAX_OPTIONS: u32 = 4096;

/// Why a connection ended.
#[derive(Debug)]
pub enum End {
    /// The client sent `NBD_CMD_DISC` or `NBD_OPT_ABORT`, or closed the
    /// socket between messages.
    Clean(&'static str),
    /// The client broke the protocol; the server closed the connection.
    Protocol(String),
    /// The socket failed or closed in the middle of a message.
    Io(io::Error),
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Clean(why) => write!(f, "{why}"),
            End::Protocol(why) => write!(f, "protocol violation, connection closed: {why}"),
            End::Io(e) => write!(f, "connection lost: {e}"),
        }
    }
}

impl From<io::Error> for End {
    fn from(e: io::Error) -> End {
        End::Io(e)
    }
}

/// Per-connection counters, for the log line at disconnect.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnStats {
    pub reads: u64,
    pub writes: u64,
    pub flushes: u64,
    pub trims: u64,
    pub errors: u64,
    pub epoch_flushes: u64,
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` if the peer closed the
/// connection before sending the first byte.
fn read_message<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("message truncated after {got} of {} bytes", buf.len()),
                ))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Reads and throws away `n` bytes.
fn discard<R: Read>(r: &mut R, n: u64) -> io::Result<()> {
    let copied = io::copy(&mut r.take(n), &mut io::sink())?;
    if copied < n {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("payload truncated after {copied} of {n} bytes"),
        ));
    }
    Ok(())
}

/// Runs one connection to its end.
pub fn serve<D, R, W>(shared: &Shared<D>, mut r: R, mut w: W, peer: &str) -> (End, ConnStats)
where
    D: BlockDevice + Send,
    R: Read,
    W: Write,
{
    let mut stats = ConnStats::default();
    let end = match handshake(shared, &mut r, &mut w, peer) {
        Ok(true) => transmission(shared, &mut r, &mut w, &mut stats),
        Ok(false) => End::Clean("client aborted the negotiation"),
        Err(e) => e,
    };
    let _ = w.flush();
    (end, stats)
}

/// The export's transmission flags.
fn transmission_flags<D: BlockDevice + Send>(shared: &Shared<D>) -> u16 {
    let mut f = TFLAG_HAS_FLAGS
        | TFLAG_SEND_FLUSH
        | TFLAG_SEND_FUA
        | TFLAG_SEND_TRIM
        | TFLAG_SEND_WRITE_ZEROES
        // One device, one lock, no per-connection cache: a flush on any
        // connection covers every connection's completed writes.
        | TFLAG_CAN_MULTI_CONN;
    if shared.config.read_only {
        f |= TFLAG_READ_ONLY;
    }
    f
}

fn name_matches<D: BlockDevice + Send>(shared: &Shared<D>, name: &[u8]) -> bool {
    // The empty name selects the default (and only) export.
    name.is_empty() || name == shared.config.export_name.as_bytes()
}

/// Option haggling. `Ok(true)`: enter transmission; `Ok(false)`: the
/// client aborted.
fn handshake<D, R, W>(shared: &Shared<D>, r: &mut R, w: &mut W, peer: &str) -> Result<bool, End>
where
    D: BlockDevice + Send,
    R: Read,
    W: Write,
{
    let mut hello = Vec::with_capacity(18);
    hello.extend_from_slice(&INIT_MAGIC.to_be_bytes());
    hello.extend_from_slice(&OPT_MAGIC.to_be_bytes());
    hello.extend_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    w.write_all(&hello)?;
    w.flush()?;

    let mut cf = [0u8; 4];
    if !read_message(r, &mut cf)? {
        return Err(End::Clean("client closed before sending its flags"));
    }
    let client_flags = be_u32(&cf);
    let known = CLIENT_FLAG_FIXED_NEWSTYLE | CLIENT_FLAG_NO_ZEROES;
    if client_flags & !known != 0 {
        return Err(End::Protocol(format!(
            "unknown client flags {client_flags:#x}"
        )));
    }
    let no_zeroes = client_flags & CLIENT_FLAG_NO_ZEROES != 0;

    for _ in 0..MAX_OPTIONS {
        let mut hdr = [0u8; OPTION_HEADER_LEN];
        if !read_message(r, &mut hdr)? {
            return Err(End::Clean("client closed during negotiation"));
        }
        if be_u64(&hdr[0..8]) != OPT_MAGIC {
            return Err(End::Protocol("bad option magic".into()));
        }
        let option = be_u32(&hdr[8..12]);
        let len = be_u32(&hdr[12..16]);
        if len > MAX_OPTION_BYTES {
            if option == OPT_EXPORT_NAME {
                return Err(End::Protocol(format!(
                    "NBD_OPT_EXPORT_NAME with a {len}-byte name"
                )));
            }
            discard(r, u64::from(len))?;
            reply(w, option, REP_ERR_TOO_BIG, b"option data too long")?;
            continue;
        }
        let mut data = vec![0u8; len as usize];
        if !data.is_empty() && !read_message(r, &mut data)? {
            return Err(End::Io(io::ErrorKind::UnexpectedEof.into()));
        }
        match option {
            OPT_EXPORT_NAME => {
                if !name_matches(shared, &data) {
                    return Err(End::Protocol(format!(
                        "NBD_OPT_EXPORT_NAME for unknown export {:?}",
                        String::from_utf8_lossy(&data)
                    )));
                }
                let mut b = Vec::with_capacity(134);
                b.extend_from_slice(&shared.size.to_be_bytes());
                b.extend_from_slice(&transmission_flags(shared).to_be_bytes());
                if !no_zeroes {
                    b.extend_from_slice(&[0u8; 124]);
                }
                w.write_all(&b)?;
                w.flush()?;
                shared.log(&format!("{peer}: export chosen with NBD_OPT_EXPORT_NAME"));
                return Ok(true);
            }
            OPT_ABORT => {
                // The client may already have gone; the reply is a courtesy.
                let _ = reply(w, option, REP_ACK, &[]);
                return Ok(false);
            }
            OPT_LIST => {
                if !data.is_empty() {
                    reply(w, option, REP_ERR_INVALID, b"NBD_OPT_LIST takes no data")?;
                    continue;
                }
                let name = shared.config.export_name.as_bytes();
                let mut p = Vec::with_capacity(4 + name.len());
                p.extend_from_slice(&(name.len() as u32).to_be_bytes());
                p.extend_from_slice(name);
                reply(w, option, REP_SERVER, &p)?;
                reply(w, option, REP_ACK, &[])?;
            }
            OPT_INFO | OPT_GO => {
                if info_or_go(shared, w, option, &data)? && option == OPT_GO {
                    shared.log(&format!("{peer}: export chosen with NBD_OPT_GO"));
                    return Ok(true);
                }
            }
            OPT_STARTTLS => reply(w, option, REP_ERR_UNSUP, b"this server does not offer TLS")?,
            OPT_STRUCTURED_REPLY => reply(
                w,
                option,
                REP_ERR_UNSUP,
                b"this server sends simple replies only",
            )?,
            _ => reply(w, option, REP_ERR_UNSUP, b"option not supported by scftl")?,
        }
    }
    Err(End::Protocol(format!(
        "more than {MAX_OPTIONS} options without choosing an export"
    )))
}

fn reply<W: Write>(w: &mut W, option: u32, reply_type: u32, payload: &[u8]) -> io::Result<()> {
    w.write_all(&encode_option_reply(option, reply_type, payload))?;
    w.flush()
}

/// Answers NBD_OPT_INFO or NBD_OPT_GO. Returns whether the export was
/// granted (for GO: transmission starts).
fn info_or_go<D, W>(shared: &Shared<D>, w: &mut W, option: u32, data: &[u8]) -> io::Result<bool>
where
    D: BlockDevice + Send,
    W: Write,
{
    // Layout: u32 name length, name, u16 number of requests, u16 each.
    let parsed = (|| {
        let name_len = be_u32(data.get(0..4)?) as usize;
        let name_end = 4usize.checked_add(name_len)?;
        let name = data.get(4..name_end)?;
        let n = be_u16(data.get(name_end..name_end + 2)?) as usize;
        let reqs_end = name_end + 2 + 2 * n;
        if reqs_end != data.len() {
            return None;
        }
        let requests: Vec<u16> = data[name_end + 2..reqs_end]
            .chunks_exact(2)
            .map(be_u16)
            .collect();
        Some((name, requests))
    })();
    let Some((name, requests)) = parsed else {
        reply(
            w,
            option,
            REP_ERR_INVALID,
            b"malformed NBD_OPT_INFO/NBD_OPT_GO data",
        )?;
        return Ok(false);
    };
    if name.len() > MAX_STRING_BYTES || !name_matches(shared, name) {
        let msg = format!(
            "no export named {:?}; this server exports {:?} (the empty name also selects it)",
            String::from_utf8_lossy(&name[..name.len().min(256)]),
            shared.config.export_name
        );
        reply(w, option, REP_ERR_UNKNOWN, msg.as_bytes())?;
        return Ok(false);
    }
    let mut export = Vec::with_capacity(12);
    export.extend_from_slice(&INFO_EXPORT.to_be_bytes());
    export.extend_from_slice(&shared.size.to_be_bytes());
    export.extend_from_slice(&transmission_flags(shared).to_be_bytes());
    reply(w, option, REP_INFO, &export)?;

    // Block sizes are always sent: they tell the client what we prefer
    // even when it did not ask, which the protocol allows.
    let mut bs = Vec::with_capacity(14);
    bs.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
    bs.extend_from_slice(&shared.config.min_block_size.to_be_bytes());
    bs.extend_from_slice(&(shared.sector_size as u32).to_be_bytes());
    bs.extend_from_slice(&shared.config.max_request_bytes.to_be_bytes());
    reply(w, option, REP_INFO, &bs)?;

    if requests.contains(&INFO_NAME) {
        let mut p = INFO_NAME.to_be_bytes().to_vec();
        p.extend_from_slice(shared.config.export_name.as_bytes());
        reply(w, option, REP_INFO, &p)?;
    }
    if requests.contains(&INFO_DESCRIPTION) && !shared.config.description.is_empty() {
        let mut p = INFO_DESCRIPTION.to_be_bytes().to_vec();
        let d = shared.config.description.as_bytes();
        p.extend_from_slice(&d[..d.len().min(MAX_STRING_BYTES)]);
        reply(w, option, REP_INFO, &p)?;
    }
    reply(w, option, REP_ACK, &[])?;
    Ok(true)
}

/// Sends a simple reply without payload.
fn simple<W: Write>(w: &mut W, error: u32, handle: u64) -> io::Result<()> {
    let mut b = [0u8; SIMPLE_REPLY_LEN];
    encode_simple_reply(&mut b, error, handle);
    w.write_all(&b)?;
    w.flush()
}

/// Flags each command may carry. FUA is accepted on every command (the
/// protocol says a server that offers FUA must accept it anywhere).
fn allowed_flags(command: u16) -> u16 {
    match command {
        CMD_WRITE_ZEROES => CMD_FLAG_FUA | CMD_FLAG_NO_HOLE,
        _ => CMD_FLAG_FUA,
    }
}

fn transmission<D, R, W>(shared: &Shared<D>, r: &mut R, w: &mut W, stats: &mut ConnStats) -> End
where
    D: BlockDevice + Send,
    R: Read,
    W: Write,
{
    match transmission_inner(shared, r, w, stats) {
        Ok(end) | Err(end) => end,
    }
}

fn transmission_inner<D, R, W>(
    shared: &Shared<D>,
    r: &mut R,
    w: &mut W,
    stats: &mut ConnStats,
) -> Result<End, End>
where
    D: BlockDevice + Send,
    R: Read,
    W: Write,
{
    let max = shared.config.max_request_bytes;
    loop {
        let mut hdr = [0u8; REQUEST_LEN];
        if !read_message(r, &mut hdr)? {
            return Ok(End::Clean("client closed the connection"));
        }
        let Some(req) = Request::decode(&hdr) else {
            return Err(End::Protocol("bad request magic".into()));
        };
        // The payload of a write is part of the request: read it before
        // anything else so the stream stays in step whatever the answer.
        let mut payload = Vec::new();
        if req.command == CMD_WRITE {
            if req.length > max {
                discard(r, u64::from(req.length))?;
                stats.errors += 1;
                simple(w, EINVAL, req.handle)?;
                continue;
            }
            payload = vec![0u8; req.length as usize];
            if !payload.is_empty() && !read_message(r, &mut payload)? {
                return Err(End::Io(io::ErrorKind::UnexpectedEof.into()));
            }
        }
        if req.command == CMD_DISC {
            return Ok(End::Clean("client sent NBD_CMD_DISC"));
        }
        match execute(shared, &req, &payload, stats) {
            Ok(Some(data)) => {
                // READ: header and data in one write.
                w.write_all(&data)?;
                w.flush()?;
            }
            Ok(None) => simple(w, 0, req.handle)?,
            Err(e) => {
                stats.errors += 1;
                if shared.config.log_errors {
                    shared.log(&format!(
                        "{} {}+{} failed: {e}",
                        command_name(req.command),
                        req.offset,
                        req.length
                    ));
                }
                simple(w, e.errno, req.handle)?;
            }
        }
    }
}

/// Applies one request to the device. `Ok(Some(bytes))` is a complete READ
/// reply (header and data).
fn execute<D: BlockDevice + Send>(
    shared: &Shared<D>,
    req: &Request,
    payload: &[u8],
    stats: &mut ConnStats,
) -> Result<Option<Vec<u8>>, OpError> {
    let known = matches!(
        req.command,
        CMD_READ | CMD_WRITE | CMD_FLUSH | CMD_TRIM | CMD_WRITE_ZEROES
    );
    if !known {
        return Err(OpError::new(
            EINVAL,
            format!("unknown command {}", req.command),
        ));
    }
    if req.flags & !allowed_flags(req.command) != 0 {
        return Err(OpError::new(
            EINVAL,
            format!("command flags {:#x} not supported here", req.flags),
        ));
    }
    let writes = matches!(req.command, CMD_WRITE | CMD_TRIM | CMD_WRITE_ZEROES);
    if writes && shared.config.read_only {
        return Err(OpError::new(EPERM, "the export is read-only"));
    }
    if req.command != CMD_FLUSH && req.length == 0 {
        return Err(OpError::new(EINVAL, "zero-length request"));
    }
    if req.command == CMD_READ && req.length > shared.config.max_request_bytes {
        return Err(OpError::new(
            EINVAL,
            format!(
                "read of {} bytes exceeds the advertised maximum of {}",
                req.length, shared.config.max_request_bytes
            ),
        ));
    }
    let fua = req.flags & CMD_FLAG_FUA != 0;
    let len = u64::from(req.length);

    let mut dev = shared.lock();
    // Checked under the lock: once shutdown has flushed, nothing changes.
    if shared.stopping.load(Ordering::SeqCst) {
        return Err(OpError::new(ESHUTDOWN, "the server is shutting down"));
    }
    let fx = match req.command {
        CMD_READ => {
            let mut out = vec![0u8; SIMPLE_REPLY_LEN + req.length as usize];
            ops::read_at(&mut *dev, req.offset, &mut out[SIMPLE_REPLY_LEN..])?;
            encode_simple_reply(&mut out, 0, req.handle);
            stats.reads += 1;
            return Ok(Some(out));
        }
        // Nothing can have been written through a read-only export, and
        // its device may sit on a read-only image: nothing to make durable.
        CMD_FLUSH if shared.config.read_only => return Ok(None),
        CMD_FLUSH => {
            ops::flush(&mut *dev)?;
            stats.flushes += 1;
            return Ok(None);
        }
        CMD_WRITE => {
            stats.writes += 1;
            ops::write_at(&mut *dev, req.offset, payload)?
        }
        CMD_TRIM => {
            stats.trims += 1;
            ops::trim_at(&mut *dev, req.offset, len)?
        }
        _ => {
            stats.writes += 1;
            let no_hole = req.flags & CMD_FLAG_NO_HOLE != 0;
            ops::write_zeroes_at(&mut *dev, req.offset, len, no_hole)?
        }
    };
    stats.epoch_flushes += fx.epoch_flushes;
    shared
        .epoch_flushes
        .fetch_add(fx.epoch_flushes, Ordering::Relaxed);
    if fua {
        ops::flush(&mut *dev)?;
        stats.flushes += 1;
    }
    Ok(None)
}
