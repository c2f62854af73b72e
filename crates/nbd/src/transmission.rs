//! The transmission phase: the request loop with simple replies (READ,
//! WRITE with FUA, FLUSH, TRIM, WRITE_ZEROES, DISC).
//!
//! Rules this file keeps:
//! * A request (header and write payload) is read off the socket completely
//!   before the device lock is taken, so a client that stalls or vanishes
//!   mid-request never holds the device and never causes a partial write.
//! * A malformed request (unknown command or flags, zero or oversized
//!   length, a change to a read-only export) gets its error value, and a
//!   log line naming the client, the request and why (unless errors are
//!   not logged), and the connection goes on; a bad request magic closes it.
//! * Nothing changes the device once shutdown has flushed: `stopping` is
//!   checked under the device lock.

use std::io::{self, Read, Write};
use std::sync::atomic::Ordering;

use ftl::BlockDevice;

use crate::conn::{discard, read_message, send, End};
use crate::export::Shared;
use crate::ops::{self, OpError};
use crate::proto::*;

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

/// Sends a simple reply without payload.
fn simple<W: Write>(w: &mut W, error: u32, handle: u64) -> io::Result<()> {
    let mut b = [0u8; SIMPLE_REPLY_LEN];
    encode_simple_reply(&mut b, error, handle);
    send(w, &b)
}

/// Flags each command may carry. FUA is accepted on every command (the
/// protocol says a server that offers FUA must accept it anywhere).
fn allowed_flags(command: u16) -> u16 {
    match command {
        CMD_WRITE_ZEROES => CMD_FLAG_FUA | CMD_FLAG_NO_HOLE,
        _ => CMD_FLAG_FUA,
    }
}

/// Serves requests until the client disconnects or breaks framing. `peer`
/// names the client in log lines.
pub fn run<D, R, W>(
    shared: &Shared<D>,
    r: &mut R,
    w: &mut W,
    stats: &mut ConnStats,
    peer: &str,
) -> End
where
    D: BlockDevice + Send,
    R: Read,
    W: Write,
{
    match request_loop(shared, r, w, stats, peer) {
        Ok(end) | Err(end) => end,
    }
}

fn request_loop<D, R, W>(
    shared: &Shared<D>,
    r: &mut R,
    w: &mut W,
    stats: &mut ConnStats,
    peer: &str,
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
                if shared.config.log_errors {
                    shared.log(&format!(
                        "{peer}: WRITE {}+{} refused (EINVAL): {} bytes exceed the maximum request of {max} bytes",
                        req.offset, req.length, req.length
                    ));
                }
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
                send(w, &data)?;
            }
            Ok(None) => simple(w, 0, req.handle)?,
            Err(e) => {
                stats.errors += 1;
                if shared.config.log_errors {
                    shared.log(&format!(
                        "{peer}: {} {}+{} failed: {e}",
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
