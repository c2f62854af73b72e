//! Connection limits that cannot be turned into a lock-out: client slots
//! handed out first come, first served ([`Slots`]), and a socket that
//! enforces the handshake deadline and the idle timeout ([`Socket`]).
//!
//! Invariants:
//! * At most `max_clients` connections hold a slot; a slot is held from the
//!   start of the handshake to the end of the connection.
//! * A connection that finds every slot taken waits in a FIFO queue, at
//!   most twice the handshake timeout; then it is refused with an NBD error
//!   reply (see `handshake::refuse`). Slots held by connections that never
//!   finish their handshake are freed by the handshake timeout, so a
//!   waiting client gets in within about one handshake timeout of arriving
//!   (the second one is slack, so it is not refused in a tie).
//! * Every read and write on a [`Socket`] is bounded: by what is left of
//!   the handshake deadline during the handshake (whatever the client sends,
//!   byte by byte), by the idle timeout afterwards if one is set.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Default time a client has from getting its slot to choosing the export
/// (TLS handshake included).
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default most simultaneous clients.
pub const DEFAULT_MAX_CLIENTS: usize = 64;

/// How often a client first in the queue for a slot looks for an idle
/// connection to reclaim.
const RECLAIM_CHECK: Duration = Duration::from_millis(200);

/// The client slots.
pub(crate) struct Slots {
    max: usize,
    state: Mutex<SlotState>,
    changed: Condvar,
}

struct SlotState {
    active: usize,
    /// Connections waiting for a slot, oldest first.
    queue: VecDeque<u64>,
}

impl Slots {
    pub(crate) fn new(max: usize) -> Slots {
        Slots {
            max,
            state: Mutex::new(SlotState {
                active: 0,
                queue: VecDeque::new(),
            }),
            changed: Condvar::new(),
        }
    }

    /// Connections holding a slot now.
    pub(crate) fn active(&self) -> usize {
        self.lock().active
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a slot for connection `id`, waiting at most `wait` behind the
    /// connections that asked earlier. Returns whether a slot was taken;
    /// the caller then owes one [`Slots::release`].
    ///
    /// While it is first in the queue and every slot is taken, it calls
    /// `reclaim` now and then (every [`RECLAIM_CHECK`]): a chance to close
    /// an idle connection whose slot it then takes.
    pub(crate) fn acquire(&self, id: u64, wait: Duration, reclaim: &dyn Fn()) -> bool {
        let deadline = Instant::now() + wait;
        let mut st = self.lock();
        st.queue.push_back(id);
        loop {
            if st.queue.front() == Some(&id) {
                if st.active < self.max {
                    st.queue.pop_front();
                    st.active += 1;
                    // The next in the queue may fit too.
                    self.changed.notify_all();
                    return true;
                }
                reclaim();
            }
            let now = Instant::now();
            if now >= deadline {
                st.queue.retain(|&q| q != id);
                self.changed.notify_all();
                return false;
            }
            st = self
                .changed
                .wait_timeout(st, (deadline - now).min(RECLAIM_CHECK))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    pub(crate) fn release(&self) {
        let mut st = self.lock();
        st.active = st.active.saturating_sub(1);
        self.changed.notify_all();
    }
}

/// Default time a connection with nothing in flight may sit silent before
/// its slot is given to a client waiting for one
/// ([`ServerConfig::reclaim_idle`](crate::ServerConfig::reclaim_idle)).
pub const DEFAULT_RECLAIM_IDLE: Duration = Duration::from_secs(30);
/// Default most connections from one IP address, waiting or served.
pub const DEFAULT_MAX_PER_ADDRESS: usize = 32;

/// Milliseconds since the first call in this process (the clock of
/// [`Conn::last`]).
fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// What the server knows of one live connection: its address (for the
/// per-address limit), when it last received a byte or finished a request,
/// and how to close it when its slot is reclaimed.
pub(crate) struct Conn {
    /// The connection's number (`client #id` in the log).
    pub(crate) id: u64,
    ip: Option<std::net::IpAddr>,
    /// Past its handshake and holding a slot: only such connections are
    /// reclaimed (handshakes are bounded by their own deadline).
    transferring: AtomicBool,
    /// `now_ms()` of the last byte received or request finished.
    last: AtomicU64,
    /// Requests being answered now.
    in_flight: AtomicUsize,
    /// Set when its slot was reclaimed (it is closing).
    reclaimed: AtomicBool,
    /// A handle on the socket, to shut it down.
    closer: Mutex<Option<Stream>>,
}

impl Conn {
    /// Notes activity (a byte received, a request finished).
    fn touch(&self) {
        self.last.store(now_ms(), Ordering::Relaxed);
    }

    /// Counts a request as being answered until the guard drops.
    pub(crate) fn begin(self: &Arc<Conn>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(self))
    }

    /// The export was chosen: the connection may be reclaimed when idle.
    pub(crate) fn start_transfer(&self, sock: &Socket) {
        *self.closer.lock().unwrap_or_else(|p| p.into_inner()) = sock.stream.try_clone().ok();
        self.touch();
        self.transferring.store(true, Ordering::Release);
    }

    /// Whether its slot was reclaimed for a waiting client.
    pub(crate) fn was_reclaimed(&self) -> bool {
        self.reclaimed.load(Ordering::Acquire)
    }

    /// Silent for this long, with nothing in flight; `None` if busy.
    fn idle_for(&self, now: u64) -> Option<Duration> {
        let busy = self.in_flight.load(Ordering::Acquire) > 0
            || !self.transferring.load(Ordering::Acquire)
            || self.reclaimed.load(Ordering::Acquire);
        (!busy)
            .then(|| Duration::from_millis(now.saturating_sub(self.last.load(Ordering::Relaxed))))
    }
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("ip", &self.ip)
            .field("in_flight", &self.in_flight)
            .field("reclaimed", &self.reclaimed)
            .finish_non_exhaustive()
    }
}

/// A request being answered (see [`Conn::begin`]).
pub(crate) struct InFlight(Arc<Conn>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The live connections, by id: the per-address limit counts them, and an
/// idle one is closed when its slot is needed.
///
/// Invariant: a connection is closed for idleness only while another
/// waits for its slot (or for its address's share), only after
/// `reclaim_idle` with no request in flight and no byte received, and at most
/// one reclaimed connection is closing at a time; a quiet client on a
/// server with free slots is never disturbed.
#[derive(Default)]
pub(crate) struct Registry {
    conns: Mutex<std::collections::HashMap<u64, Arc<Conn>>>,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers connection `id` from `ip` unless `ip` already has
    /// `per_address` live connections (those closing for a reclaim aside);
    /// `Err(n)` gives that count.
    pub(crate) fn register(
        &self,
        id: u64,
        ip: Option<std::net::IpAddr>,
        per_address: usize,
    ) -> Result<Arc<Conn>, usize> {
        let mut m = self.lock();
        if let Some(ip) = ip {
            let n = m
                .values()
                .filter(|c| c.ip == Some(ip) && !c.reclaimed.load(Ordering::Acquire))
                .count();
            if n >= per_address {
                return Err(n);
            }
        }
        let c = Arc::new(Conn {
            id,
            ip,
            transferring: AtomicBool::new(false),
            last: AtomicU64::new(now_ms()),
            in_flight: AtomicUsize::new(0),
            reclaimed: AtomicBool::new(false),
            closer: Mutex::new(None),
        });
        m.insert(id, Arc::clone(&c));
        Ok(c)
    }

    pub(crate) fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Closes the connection idle longest, if one (from `ip`, when given)
    /// has been idle at least `min_idle` and no reclaimed connection is
    /// still closing. Returns its id and idle time.
    pub(crate) fn reclaim_idle(
        &self,
        min_idle: Duration,
        ip: Option<std::net::IpAddr>,
    ) -> Option<(u64, Duration)> {
        let m = self.lock();
        if m.values().any(|c| c.reclaimed.load(Ordering::Acquire)) {
            return None;
        }
        let now = now_ms();
        let (&id, c, idle) = m
            .iter()
            .filter(|(_, c)| ip.is_none() || c.ip == ip)
            .filter_map(|(id, c)| Some((id, c, c.idle_for(now)?)))
            .filter(|(_, _, idle)| *idle >= min_idle)
            .max_by_key(|(_, _, idle)| *idle)?;
        c.reclaimed.store(true, Ordering::Release);
        if let Some(s) = c.closer.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            s.shutdown_both();
        }
        Some((id, idle))
    }
}

/// An accepted TCP or Unix socket whose reads and writes time out.
pub(crate) struct Socket {
    stream: Stream,
    /// End of the handshake; `None` once the export is chosen.
    deadline: Option<Instant>,
    /// Longest wait for one read or write after the handshake.
    idle: Option<Duration>,
    /// The timeout last given to the kernel, to skip repeating the syscall.
    applied: Option<Option<Duration>>,
    /// Microseconds each read polls before it blocks (0: it blocks at
    /// once), shared by every handle on the socket (`set_poll`).
    poll_us: Arc<AtomicU64>,
    /// The connection's record, told of every byte read.
    conn: Option<Arc<Conn>>,
}

/// Readers polling their sockets now, and the most allowed at once.
static POLLERS: AtomicUsize = AtomicUsize::new(0);

/// Connections past their handshake, in this process.
static TRANSFERRING: AtomicUsize = AtomicUsize::new(0);

/// Counts a connection as transferring while it lives: with more such
/// connections than may poll, none polls (their spinning would take the
/// CPUs the requests need; a busy server does not wait for wake-ups).
pub(crate) struct Transferring(());

impl Transferring {
    pub(crate) fn start() -> Transferring {
        TRANSFERRING.fetch_add(1, Ordering::AcqRel);
        Transferring(())
    }
}

impl Drop for Transferring {
    fn drop(&mut self) {
        TRANSFERRING.fetch_sub(1, Ordering::AcqRel);
    }
}

fn max_pollers() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get().saturating_sub(1))
            .max(1)
    })
}

pub(crate) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
        })
    }

    /// Makes every read and write on the socket, now blocked or later, end.
    fn shutdown_both(&self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Both),
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl Socket {
    pub(crate) fn new(
        stream: Stream,
        handshake: Option<Duration>,
        idle: Option<Duration>,
    ) -> Socket {
        Socket {
            stream,
            deadline: handshake.map(|t| Instant::now() + t),
            idle,
            applied: None,
            poll_us: Arc::new(AtomicU64::new(0)),
            conn: None,
        }
    }

    /// Tells `conn` of every byte this socket (and its clones) reads.
    pub(crate) fn track(&mut self, conn: &Arc<Conn>) {
        self.conn = Some(Arc::clone(conn));
    }

    /// Makes reads (through any handle on this socket) poll for `poll`
    /// before they block, or stop polling (`None`).
    pub(crate) fn set_poll(&self, poll: Option<Duration>) {
        let us = poll.map_or(0, |d| d.as_micros().min(u128::from(u64::MAX)) as u64);
        self.poll_us.store(us, Ordering::Relaxed);
    }

    /// The handshake is over: from now on only the idle timeout applies.
    pub(crate) fn end_handshake(&mut self) {
        self.deadline = None;
    }

    /// A second handle on the same socket (for a writer thread beside the
    /// reader), with the same timeouts.
    pub(crate) fn try_clone(&self) -> io::Result<Socket> {
        Ok(Socket {
            stream: self.stream.try_clone()?,
            deadline: self.deadline,
            idle: self.idle,
            applied: None,
            poll_us: Arc::clone(&self.poll_us),
            conn: self.conn.clone(),
        })
    }

    /// Makes every read, now blocked or later, return end of file.
    pub(crate) fn shutdown_read(&self) {
        let _ = match &self.stream {
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Read),
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Read),
        };
    }

    /// Sets the kernel timeouts for the next read or write; an error if the
    /// handshake deadline has passed.
    fn arm(&mut self) -> io::Result<()> {
        let timeout = match self.deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(timed_out(
                        "handshake not finished within the handshake timeout",
                    ));
                }
                // The kernel rounds to its clock tick; never ask for zero,
                // which would mean "no timeout".
                Some(left.max(Duration::from_millis(1)))
            }
            None => self.idle,
        };
        if self.applied != Some(timeout) {
            match &self.stream {
                Stream::Tcp(s) => {
                    s.set_read_timeout(timeout)?;
                    s.set_write_timeout(timeout)?;
                }
                Stream::Unix(s) => {
                    s.set_read_timeout(timeout)?;
                    s.set_write_timeout(timeout)?;
                }
            }
            self.applied = Some(timeout);
        }
        Ok(())
    }

    /// Turns the kernel's "would block" of an expired timeout into an
    /// error that says which timeout.
    fn explain(&self, e: io::Error) -> io::Error {
        if !matches!(
            e.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
        ) {
            return e;
        }
        match (self.deadline, self.idle) {
            (Some(_), _) => timed_out("handshake not finished within the handshake timeout"),
            (None, Some(t)) => timed_out(&format!("idle for {} s (idle timeout)", t.as_secs_f64())),
            (None, None) => e,
        }
    }
}

impl Socket {
    /// Polls the socket (without blocking) until it is readable, fails, or
    /// `poll` has passed, unless the most pollers allowed are polling or
    /// more connections are transferring than may poll
    /// (`ServerConfig::poll`); the read that follows then finds its bytes
    /// without a wake-up.
    fn poll_readable(&self, poll: Duration) {
        use std::os::fd::AsRawFd;
        if TRANSFERRING.load(Ordering::Acquire) > max_pollers() {
            return;
        }
        let taken = POLLERS.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < max_pollers()).then_some(n + 1)
        });
        if taken.is_err() {
            return;
        }
        let fd = match &self.stream {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        };
        let start = Instant::now();
        loop {
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd on a descriptor this socket owns, a zero
            // timeout: the kernel only writes `revents`.
            let r = unsafe { libc::poll(&mut p, 1, 0) };
            if r != 0 || start.elapsed() >= poll {
                break;
            }
            std::hint::spin_loop();
        }
        POLLERS.fetch_sub(1, Ordering::AcqRel);
    }
}

fn timed_out(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, msg.to_string())
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm()?;
        let poll = self.poll_us.load(Ordering::Relaxed);
        if poll > 0 && self.deadline.is_none() {
            self.poll_readable(Duration::from_micros(poll));
        }
        let r = match &mut self.stream {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        };
        if let (Ok(1..), Some(c)) = (&r, &self.conn) {
            c.touch();
        }
        r.map_err(|e| self.explain(e))
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.arm()?;
        let r = match &mut self.stream {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        };
        // (A reply ends a request, and the request's `InFlight` guard
        // notes that; only reads need to tell the connection's record.)
        r.map_err(|e| self.explain(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_handed_out_in_arrival_order() {
        let slots = std::sync::Arc::new(Slots::new(1));
        assert!(slots.acquire(1, Duration::ZERO, &|| {}));
        assert!(!slots.acquire(2, Duration::from_millis(20), &|| {}));
        let s = std::sync::Arc::clone(&slots);
        let waiter = std::thread::spawn(move || s.acquire(3, Duration::from_secs(10), &|| {}));
        // Let the waiter queue up, then free the slot: the waiter, not a
        // later arrival asking without waiting, gets it.
        while slots.lock().queue.is_empty() {
            std::thread::yield_now();
        }
        slots.release();
        assert!(waiter.join().unwrap());
        assert!(!slots.acquire(4, Duration::ZERO, &|| {}));
        assert_eq!(slots.active(), 1);
    }
}
