//! The transmission phase: the request loop (READ, WRITE with FUA, FLUSH,
//! TRIM, WRITE_ZEROES, DISC, and BLOCK_STATUS where `base:allocation` was
//! selected), with simple replies, or structured ones where the client
//! negotiated them: then a READ is one `NBD_REPLY_TYPE_OFFSET_DATA` chunk,
//! an error one `NBD_REPLY_TYPE_ERROR` chunk with the message the log gets,
//! and other successful replies stay simple (the protocol allows it for
//! replies without payload).
//!
//! Rules this file keeps:
//! * A request (header and write payload) is read off the socket completely
//!   before the device lock is taken, so a client that stalls or vanishes
//!   mid-request never holds the device and never causes a partial write.
//! * Requests are applied and answered in the order they arrived. On plain
//!   sockets a reader thread reads ahead (at most `PIPELINE_DEPTH` requests
//!   and `PIPELINE_BYTES` of payload) while the connection's thread applies
//!   the current request and sends its reply ([`run_pipelined`]); when
//!   nothing is waiting to be answered and no further request is buffered
//!   (a client with one request in flight), the reader answers the request
//!   itself, which saves waking the other thread per request; over TLS one
//!   thread does both in turn ([`run`]).
//! * The idle timeout counts only time with no request outstanding: a
//!   client waiting for a slow reply is not idle.
//! * A malformed request (unknown command or flags, zero or oversized
//!   length, a change to a read-only export) gets its error value, and a
//!   log line naming the client, the request and why (unless errors are
//!   not logged), and the connection goes on; a bad request magic closes it.
//! * Nothing changes the device once shutdown has flushed: `stopping` is
//!   checked under the device lock.

use std::io::{self, Read, Write};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Condvar, Mutex, MutexGuard};

use ftl::BlockDevice;

use crate::conn::{discard, read_message, send, End};
use crate::export::Shared;
use crate::handshake::Negotiated;
use crate::ops::{self, OpError};
use crate::proto::*;

/// Per-connection counters, for the log line at disconnect.
#[derive(Clone, Debug, Default)]
pub struct ConnStats {
    pub reads: u64,
    pub writes: u64,
    pub flushes: u64,
    pub trims: u64,
    pub block_status: u64,
    pub errors: u64,
    pub epoch_flushes: u64,
    /// The connection's record: each request counts as in flight while it
    /// is answered (an idle-slot reclaim never takes it then).
    pub(crate) conn: Option<std::sync::Arc<crate::limits::Conn>>,
}

/// The client a connection serves: its name in log lines and what it
/// negotiated.
#[derive(Clone, Copy, Debug)]
pub struct Client<'a> {
    pub peer: &'a str,
    pub agreed: Negotiated,
}

/// Sends a simple reply without payload.
fn simple<W: Write>(w: &mut W, error: u32, handle: u64) -> io::Result<()> {
    let mut b = [0u8; SIMPLE_REPLY_LEN];
    encode_simple_reply(&mut b, error, handle);
    send(w, &b)
}

/// Sends an error reply: structured (with `message`) where structured
/// replies were negotiated, which a READ's error must be, else simple.
fn error_reply<W: Write>(
    w: &mut W,
    agreed: Negotiated,
    errno: u32,
    handle: u64,
    message: &str,
) -> io::Result<()> {
    if agreed.structured {
        send(w, &encode_structured_error(errno, handle, message))
    } else {
        simple(w, errno, handle)
    }
}

/// Where a structured READ reply starts in its buffer: 4 bytes of padding
/// put the data (after the 20-byte chunk header and the 8-byte offset) 32
/// bytes into the buffer, 16-byte aligned as a simple reply's data is.
/// (The kernel's copy from the page cache into a buffer 8 or 16 bytes into
/// a page was measured about six times slower: docs/BENCHMARKS.md, "What
/// 256 scattered reads cost the host".)
const STRUCTURED_READ_PAD: usize = 4;
/// The structured READ reply's bytes before the data.
const STRUCTURED_READ_HEAD: usize = STRUCTURED_READ_PAD + STRUCTURED_REPLY_LEN + 8;

/// Flags each command may carry. FUA is accepted on every command (the
/// protocol says a server that offers FUA must accept it anywhere). DF
/// only with structured replies (a READ is always one chunk anyway).
fn allowed_flags(command: u16, agreed: Negotiated) -> u16 {
    match command {
        CMD_WRITE_ZEROES => CMD_FLAG_FUA | CMD_FLAG_NO_HOLE,
        CMD_READ if agreed.structured => CMD_FLAG_FUA | CMD_FLAG_DF,
        CMD_BLOCK_STATUS => CMD_FLAG_FUA | CMD_FLAG_REQ_ONE,
        _ => CMD_FLAG_FUA,
    }
}

/// One request as read off the socket, in arrival order.
enum Incoming {
    /// A whole request: header and, for WRITE, its payload (for READ, the
    /// buffer its reply will be built in).
    Request(Request, Vec<u8>),
    /// A WRITE whose payload exceeded the limit; the payload was skipped.
    Oversized(Request),
    /// The connection is over (after the requests before it are answered).
    End(End),
}

impl Incoming {
    /// Bytes of WRITE payload it holds (what the reader may hold ahead is
    /// bounded by [`PIPELINE_BYTES`]); a READ's reply buffer is none.
    fn payload_bytes(&self) -> usize {
        match self {
            Incoming::Request(req, p) if req.command == CMD_WRITE => p.len(),
            _ => 0,
        }
    }
}

/// Reads the next request. `busy` says whether earlier requests are still
/// being answered: an idle timeout that expires before the first byte of
/// the header is then not idleness (the client is waiting for a reply),
/// and the read is retried. A WRITE payload is received into the buffer
/// in `spare` (one an answered request gave back), if there is one.
fn next_request<R: Read>(
    r: &mut R,
    max: u32,
    busy: &dyn Fn() -> bool,
    spare: &mut Option<Vec<u8>>,
) -> Incoming {
    match read_request(r, max, busy, spare) {
        Ok(i) => i,
        Err(e) => Incoming::End(e),
    }
}

fn read_request<R: Read>(
    r: &mut R,
    max: u32,
    busy: &dyn Fn() -> bool,
    spare: &mut Option<Vec<u8>>,
) -> Result<Incoming, End> {
    let mut hdr = [0u8; REQUEST_LEN];
    let mut got = 0;
    while got < hdr.len() {
        match r.read(&mut hdr[got..]) {
            Ok(0) if got == 0 => {
                return Ok(Incoming::End(End::Clean("client closed the connection")))
            }
            Ok(0) => {
                return Err(End::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("request truncated after {got} of {REQUEST_LEN} bytes"),
                )))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if got == 0 && e.kind() == io::ErrorKind::TimedOut && busy() => {}
            Err(e) => return Err(End::Io(e)),
        }
    }
    let Some(req) = Request::decode(&hdr) else {
        return Err(End::Protocol("bad request magic".into()));
    };
    // The payload of a write is part of the request: read it before
    // anything else so the stream stays in step whatever the answer.
    let mut payload = Vec::new();
    if req.command == CMD_READ {
        // A READ's reply (header and data) is built in a reused buffer: it
        // holds the reply once answered and then serves a later request,
        // so a stream of reads allocates no reply buffer each (and freed
        // large replies do not pile up in the allocator's per-thread
        // arenas). Its old bytes stay until the read overwrites them
        // (`execute`), so only bytes it never held are zeroed; they are not
        // payload ([`Incoming::payload_bytes`]).
        payload = spare.take().unwrap_or_default();
    }
    if req.command == CMD_WRITE {
        if req.length > max {
            discard(r, u64::from(req.length))?;
            return Ok(Incoming::Oversized(req));
        }
        // A reused buffer is shortened or grown to the payload's length;
        // only bytes it never held are zeroed first, so a stream of equal
        // writes receives each payload without clearing the buffer.
        payload = spare.take().unwrap_or_default();
        payload.resize(req.length as usize, 0);
        if !payload.is_empty() && !read_message(r, &mut payload)? {
            return Err(End::Io(io::ErrorKind::UnexpectedEof.into()));
        }
    }
    if req.command == CMD_DISC {
        return Ok(Incoming::End(End::Clean("client sent NBD_CMD_DISC")));
    }
    Ok(Incoming::Request(req, payload))
}

/// Answers one request: applies it and sends the reply. `peer` names the
/// client in log lines. Gives back a WRITE's payload buffer for reuse.
fn answer<D, W>(
    shared: &Shared<D>,
    client: Client<'_>,
    w: &mut W,
    inc: Incoming,
    stats: &mut ConnStats,
) -> Result<Option<Vec<u8>>, End>
where
    D: BlockDevice + Send + Sync,
    W: Write,
{
    let Client { peer, agreed } = client;
    let (req, mut payload) = match inc {
        Incoming::End(e) => return Err(e),
        Incoming::Oversized(req) => {
            stats.errors += 1;
            if shared.config.log_errors {
                shared.log(&format!(
                    "{peer}: WRITE {}+{} refused (EINVAL): {} bytes exceed the maximum request of {} bytes",
                    req.offset, req.length, req.length, shared.config.max_request_bytes
                ));
            }
            let why = format!(
                "{} bytes exceed the maximum request of {} bytes",
                req.length, shared.config.max_request_bytes
            );
            error_reply(w, agreed, EINVAL, req.handle, &why)?;
            return Ok(None);
        }
        Incoming::Request(req, payload) => (req, payload),
    };
    let _in_flight = stats.conn.as_ref().map(|c| c.begin());
    match execute(shared, agreed, &req, &mut payload, stats) {
        // READ, BLOCK_STATUS: the whole reply in one write.
        Ok(Some(from)) => send(w, &payload[from..])?,
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
            error_reply(w, agreed, e.errno, req.handle, &e.message)?;
        }
    }
    Ok((payload.capacity() > 0).then_some(payload))
}

/// Serves requests one after the other on one thread until the client
/// disconnects or breaks framing (used where the reading and writing
/// halves of the link cannot be separated, e.g. TLS). `peer` names the
/// client in log lines.
pub fn run<D, R, W>(
    shared: &Shared<D>,
    client: Client<'_>,
    r: &mut R,
    w: &mut W,
    stats: &mut ConnStats,
) -> End
where
    D: BlockDevice + Send + Sync,
    R: Read,
    W: Write,
{
    let max = shared.config.max_request_bytes;
    let mut spare = None;
    loop {
        let inc = next_request(r, max, &|| false, &mut spare);
        match answer(shared, client, w, inc, stats) {
            Ok(buf) => spare = spare.or(buf),
            Err(end) => return end,
        }
    }
}

/// Bytes of WRITE payload the reader may hold ahead of the request being
/// answered (one payload larger than this is still read, alone).
const PIPELINE_BYTES: usize = 8 << 20;

/// Requests the reader may hold ahead of the request being answered.
const PIPELINE_DEPTH: usize = 16;

/// Serves requests with reading overlapped: a reader thread reads the next
/// requests (and their payloads) off `r` while this thread applies the
/// current one and writes its reply to `w`. Replies go out in request
/// order. A request read while none is waiting to be answered and with no
/// further bytes in `r`'s buffer (one request in flight) is answered by the
/// reader itself: handing it over would cost a thread wake-up per request
/// and overlap nothing. `stop_reading` must make a read blocked on `r`
/// return (e.g. shut the socket's read side down); it is called when
/// answering ends first. `set_polling(true)` is called after the reader
/// answered a request itself, `set_polling(false)` when it queues one: a
/// client with one request in flight (iodepth 1) sends its next request,
/// and the next part of a payload, soon, and reads that poll for them
/// (`ServerConfig::poll`) spare the reader a wake-up each; with requests
/// queued the reader never polls.
pub fn run_pipelined<D, R, W>(
    shared: &Shared<D>,
    client: Client<'_>,
    mut r: io::BufReader<R>,
    w: &mut W,
    stats: &mut ConnStats,
    stop_reading: impl FnOnce(),
    set_polling: impl Fn(bool) + Send + Sync,
) -> End
where
    D: BlockDevice + Send + Sync,
    R: Read + Send,
    W: Write + Send,
{
    let max = shared.config.max_request_bytes;
    // Requests read but not yet answered, and their payload bytes.
    let queued = Mutex::new((0usize, 0usize));
    let room = Condvar::new();
    let (tx, rx) = mpsc::sync_channel::<Incoming>(PIPELINE_DEPTH);
    // Answered WRITE payload buffers go back to the reader, which receives
    // the next payloads into them: a stream of writes then allocates and
    // clears no buffer per request. At most one buffer per request in
    // flight is ever out.
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    // The reply side and the counters, used by whichever thread answers.
    let out = Mutex::new((w, stats));
    // Answers one request on whichever thread holds the reply side.
    let answer_locked = |inc: Incoming| {
        let mut o = lock(&out);
        let (w, stats) = &mut *o;
        answer(shared, client, *w, inc, stats)
    };
    std::thread::scope(|scope| {
        let (queued, room, answer_locked, set_polling) =
            (&queued, &room, &answer_locked, &set_polling);
        scope.spawn(move || {
            let busy = || lock(queued).0 > 0;
            let mut spare = None;
            loop {
                // Wait for room before reading more: the reader never holds
                // more than PIPELINE_BYTES of payload ahead (or one request).
                {
                    let mut q = lock(queued);
                    while q.0 > 0 && q.1 >= PIPELINE_BYTES {
                        q = room.wait(q).unwrap_or_else(|p| p.into_inner());
                    }
                }
                if spare.is_none() {
                    spare = back_rx.try_recv().ok();
                }
                let inc = next_request(&mut r, max, &busy, &mut spare);
                let last = matches!(inc, Incoming::End(_));
                let bytes = inc.payload_bytes();
                let inline = {
                    let mut q = lock(queued);
                    let inline = !last && q.0 == 0 && r.buffer().is_empty();
                    q.0 += 1;
                    q.1 += bytes;
                    inline
                };
                if inline {
                    // Nothing is queued or being answered, and only this
                    // thread adds requests: answering here keeps the order.
                    let result = answer_locked(inc);
                    *lock(queued) = (0, 0);
                    match result {
                        Ok(buf) => spare = spare.or(buf),
                        Err(end) => {
                            // The answering side ends the connection.
                            let _ = tx.send(Incoming::End(end));
                            return;
                        }
                    }
                    set_polling(true);
                    continue;
                }
                set_polling(false);
                if tx.send(inc).is_err() || last {
                    return;
                }
            }
        });
        let end = loop {
            let inc = rx
                .recv()
                .unwrap_or(Incoming::End(End::Clean("reader stopped")));
            let bytes = inc.payload_bytes();
            let result = answer_locked(inc);
            {
                let mut q = lock(queued);
                q.0 = q.0.saturating_sub(1);
                q.1 = q.1.saturating_sub(bytes);
            }
            room.notify_one();
            match result {
                Ok(Some(buf)) => {
                    // The reader has gone only when answering ends too.
                    let _ = back_tx.send(buf);
                }
                Ok(None) => {}
                Err(end) => break end,
            }
        };
        // The reader may be blocked on the socket, or waiting for room.
        drop(rx);
        stop_reading();
        *lock(queued) = (0, 0);
        room.notify_one();
        end
    })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Applies one request to the device. `payload` holds a WRITE's payload;
/// for a READ or BLOCK_STATUS it is the buffer the reply is built in, and
/// `Ok(Some(from))` says `payload[from..]` now holds the complete reply.
/// `Ok(None)`: the reply is a simple one without payload.
fn execute<D: BlockDevice + Send + Sync>(
    shared: &Shared<D>,
    agreed: Negotiated,
    req: &Request,
    payload: &mut Vec<u8>,
    stats: &mut ConnStats,
) -> Result<Option<usize>, OpError> {
    let known = matches!(
        req.command,
        CMD_READ | CMD_WRITE | CMD_FLUSH | CMD_TRIM | CMD_WRITE_ZEROES | CMD_BLOCK_STATUS
    );
    if !known {
        return Err(OpError::new(
            EINVAL,
            format!("unknown command {}", req.command),
        ));
    }
    if req.command == CMD_BLOCK_STATUS && !agreed.allocation {
        return Err(OpError::new(
            EINVAL,
            "BLOCK_STATUS without a metadata context (select base:allocation with NBD_OPT_SET_META_CONTEXT first)",
        ));
    }
    if req.flags & !allowed_flags(req.command, agreed) != 0 {
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
    // Every change whose reply was sent before this request arrived.
    let must_cover = shared.device.returned();
    let stopped = || OpError::new(ESHUTDOWN, "the server is shutting down");
    // Checked under the exclusive lock before every change and flush: once
    // shutdown has flushed, nothing changes. Reads change nothing.
    let open = || !shared.stopping.load(Ordering::SeqCst);
    // A recording device (`serve --record`) notes which connection each
    // change and flush comes from.
    let origin = stats.conn.as_ref().map(|c| c.id);
    let flush = |must_cover: u64| {
        let gate = |d: &mut D| {
            if let Some(id) = origin {
                d.set_origin(id);
            }
            open()
        };
        match shared.device.flush(must_cover, gate) {
            None => Err(stopped()),
            Some(r) => r.map(drop).map_err(|e| ops::ftl_err("flush", e)),
        }
    };
    let fx = match req.command {
        CMD_READ => {
            if !open() {
                return Err(stopped());
            }
            // Only bytes the buffer never held are zeroed; the read
            // overwrites every data byte or fails the request.
            let out = payload;
            let head = if agreed.structured {
                STRUCTURED_READ_HEAD
            } else {
                SIMPLE_REPLY_LEN
            };
            out.resize(head + req.length as usize, 0);
            let (size, ss) = (shared.size, shared.sector_size);
            ops::read_with(size, ss, req.offset, &mut out[head..], |lba, buf| {
                shared.device.read(lba, buf)
            })?;
            stats.reads += 1;
            if !agreed.structured {
                encode_simple_reply(out, 0, req.handle);
                return Ok(Some(0));
            }
            let at = STRUCTURED_READ_PAD;
            encode_structured_reply(
                &mut out[at..],
                REPLY_FLAG_DONE,
                REPLY_TYPE_OFFSET_DATA,
                req.handle,
                8 + req.length,
            );
            let off = at + STRUCTURED_REPLY_LEN;
            out[off..off + 8].copy_from_slice(&req.offset.to_be_bytes());
            return Ok(Some(at));
        }
        CMD_BLOCK_STATUS => {
            if !open() {
                return Err(stopped());
            }
            let req_one = req.flags & CMD_FLAG_REQ_ONE != 0;
            let (size, ss) = (shared.size, shared.sector_size);
            let extents = ops::block_status(size, ss, req.offset, len, req_one, |lba, n| {
                shared.device.allocation(lba, n)
            })?;
            stats.block_status += 1;
            let out = payload;
            out.clear();
            out.resize(STRUCTURED_REPLY_LEN + 4 + 8 * extents.len(), 0);
            let length = (out.len() - STRUCTURED_REPLY_LEN) as u32;
            encode_structured_reply(
                out,
                REPLY_FLAG_DONE,
                REPLY_TYPE_BLOCK_STATUS,
                req.handle,
                length,
            );
            out[20..24].copy_from_slice(&META_ALLOCATION_ID.to_be_bytes());
            for (d, (l, f)) in out[24..].chunks_exact_mut(8).zip(extents) {
                d[..4].copy_from_slice(&l.to_be_bytes());
                d[4..].copy_from_slice(&f.to_be_bytes());
            }
            return Ok(Some(0));
        }
        // Nothing can have been written through a read-only export, and
        // its device may sit on a read-only image: nothing to make durable.
        CMD_FLUSH if shared.config.read_only => return Ok(None),
        CMD_FLUSH => {
            stats.flushes += 1;
            // Another connection's flush, completed while this one waited,
            // may already cover everything it must (`SharedDevice::flush`).
            flush(must_cover)?;
            return Ok(None);
        }
        _ => shared.device.change(|dev| {
            if !open() {
                return Err(stopped());
            }
            if let Some(id) = origin {
                dev.set_origin(id);
            }
            match req.command {
                CMD_WRITE => {
                    stats.writes += 1;
                    ops::write_at(dev, req.offset, payload)
                }
                CMD_TRIM => {
                    stats.trims += 1;
                    ops::trim_at(dev, req.offset, len)
                }
                _ => {
                    stats.writes += 1;
                    let no_hole = req.flags & CMD_FLAG_NO_HOLE != 0;
                    ops::write_zeroes_at(dev, req.offset, len, no_hole)
                }
            }
        })?,
    };
    stats.epoch_flushes += fx.epoch_flushes;
    shared
        .epoch_flushes
        .fetch_add(fx.epoch_flushes, Ordering::Relaxed);
    if fx.epoch_flushes > 0 {
        shared.want_sync_behind();
    }
    if fua {
        // This write is among the changes counted now.
        flush(shared.device.returned())?;
        stats.flushes += 1;
    }
    Ok(None)
}
