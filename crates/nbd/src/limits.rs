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
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Default time a client has from getting its slot to choosing the export
/// (TLS handshake included).
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default most simultaneous clients.
pub const DEFAULT_MAX_CLIENTS: usize = 64;

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
    pub(crate) fn acquire(&self, id: u64, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        let mut st = self.lock();
        st.queue.push_back(id);
        loop {
            if st.queue.front() == Some(&id) && st.active < self.max {
                st.queue.pop_front();
                st.active += 1;
                // The next in the queue may fit too.
                self.changed.notify_all();
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                st.queue.retain(|&q| q != id);
                self.changed.notify_all();
                return false;
            }
            st = self
                .changed
                .wait_timeout(st, deadline - now)
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
        }
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
        let stream = match &self.stream {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
        };
        Ok(Socket {
            stream,
            deadline: self.deadline,
            idle: self.idle,
            applied: None,
            poll_us: Arc::clone(&self.poll_us),
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
        assert!(slots.acquire(1, Duration::ZERO));
        assert!(!slots.acquire(2, Duration::from_millis(20)));
        let s = std::sync::Arc::clone(&slots);
        let waiter = std::thread::spawn(move || s.acquire(3, Duration::from_secs(10)));
        // Let the waiter queue up, then free the slot: the waiter, not a
        // later arrival asking without waiting, gets it.
        while slots.lock().queue.is_empty() {
            std::thread::yield_now();
        }
        slots.release();
        assert!(waiter.join().unwrap());
        assert!(!slots.acquire(4, Duration::ZERO));
        assert_eq!(slots.active(), 1);
    }
}
