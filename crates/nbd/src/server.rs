//! The server: one shared device behind a mutex, a listener (TCP or Unix
//! socket), and one thread per client.
//!
//! Requests from all clients are applied to the device one at a time, in
//! the order their connections take the lock. Shutdown takes the lock,
//! flushes, and marks the server as stopping while still holding it, so no
//! request changes the device after the final flush.

use std::cell::RefCell;
use std::io;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use ftl::BlockDevice;

use crate::conn::End;
use crate::export::{ServerConfig, Shared};
use crate::handshake;
use crate::limits::{self, Socket, DEFAULT_HANDSHAKE_TIMEOUT};
use crate::tls::{Link, LinkHandle};
use crate::transmission::{self, ConnStats};

/// Default TCP address: the IANA NBD port on loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:10809";
/// Where the server listens.
pub enum Listener {
    Tcp(TcpListener),
    /// The socket, its path, and the (device, inode) of the socket file this
    /// listener created, so that only that file is ever removed.
    Unix(UnixListener, PathBuf, (u64, u64)),
}

impl Listener {
    /// Binds a TCP address such as `127.0.0.1:10809` (port 0 picks one).
    pub fn tcp(addr: &str) -> io::Result<Listener> {
        TcpListener::bind(addr).map(Listener::Tcp).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot listen on {addr}: {e} (is another server using the port?)"),
            )
        })
    }

    /// Binds a Unix socket, replacing a stale socket file left by a
    /// previous run (but never a regular file).
    pub fn unix(path: &Path) -> io::Result<Listener> {
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            use std::os::unix::fs::FileTypeExt;
            if !meta.file_type().is_socket() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists and is not a socket", path.display()),
                ));
            }
            if UnixStream::connect(path).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!(
                        "{} is in use by a running server; stop it or choose another path",
                        path.display()
                    ),
                ));
            }
            std::fs::remove_file(path)?;
        }
        let l = UnixListener::bind(path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot listen on {}: {e}", path.display()),
            )
        })?;
        let id = socket_id(path)?;
        Ok(Listener::Unix(l, path.to_path_buf(), id))
    }

    /// Removes the Unix socket file, if the path still names the socket this
    /// listener created (another server may have replaced it since). TCP
    /// listeners have nothing to remove. Also done on drop.
    pub fn remove_socket_file(&self) {
        if let Listener::Unix(_, p, id) = self {
            if socket_id(p).ok() == Some(*id) {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    /// A description of the address for logs, e.g. `nbd://127.0.0.1:10809`.
    pub fn describe(&self) -> String {
        match self {
            Listener::Tcp(l) => match l.local_addr() {
                Ok(a) => format!("nbd://{a}"),
                Err(_) => "nbd://(unknown)".into(),
            },
            Listener::Unix(_, p, _) => format!("nbd+unix:///?socket={}", p.display()),
        }
    }

    /// Makes a throwaway connection to this listener, which wakes an accept
    /// loop blocked on it (used to end [`Server::serve`]).
    pub fn wake_accept(&self) {
        match self {
            Listener::Tcp(t) => {
                if let Ok(a) = t.local_addr() {
                    let _ = TcpStream::connect(a);
                }
            }
            Listener::Unix(_, p, _) => {
                let _ = UnixStream::connect(p);
            }
        }
    }

    /// The bound TCP address, if TCP.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        match self {
            Listener::Tcp(l) => l.local_addr().ok(),
            Listener::Unix(..) => None,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.remove_socket_file();
    }
}

/// The (device, inode) pair naming the file at `path`, without following a
/// symbolic link.
fn socket_id(path: &Path) -> io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// An NBD server for one device.
pub struct Server<D> {
    shared: Arc<Shared<D>>,
}

impl<D> Clone for Server<D> {
    fn clone(&self) -> Self {
        Server {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<D: BlockDevice + Send + Sync + 'static> Server<D> {
    pub fn new(device: D, config: ServerConfig) -> Server<D> {
        let shared = Arc::new(Shared::new(device, config));
        if !shared.config.read_only {
            if let Err(e) = Shared::start_syncer(&shared) {
                // Only slower: the first erase after a barrier syncs.
                shared.log(&format!("cannot start the sync-behind thread: {e}"));
            }
        }
        Server { shared }
    }

    /// Export size in bytes.
    pub fn size(&self) -> u64 {
        self.shared.size
    }

    /// Flushes the server issued on its own because an epoch was full.
    pub fn epoch_flushes(&self) -> u64 {
        self.shared.epoch_flushes.load(Ordering::Relaxed)
    }

    /// Syncs the background thread ran behind epoch barriers
    /// (`ftl::SharedDevice::sync_behind`).
    pub fn syncs_behind(&self) -> u64 {
        self.shared.device.shared_counts().syncs_behind
    }

    /// Requests whose filled pages were written to the image after the
    /// device's lock was released (`ftl::SharedDevice`, detached writes).
    pub fn detached_writes(&self) -> u64 {
        self.shared.device.shared_counts().detached_writes
    }

    /// Changes whose return waited for a flush's sync to end
    /// (`ftl::SharedDevice`, held returns).
    pub fn held_returns(&self) -> u64 {
        self.shared.device.shared_counts().held_returns
    }

    /// Clients holding a slot now (handshaking or transferring).
    pub fn clients(&self) -> usize {
        self.shared.slots.active()
    }

    /// Runs `f` on the device (between requests).
    pub fn with_device<R>(&self, f: impl FnOnce(&mut D) -> R) -> R {
        self.shared.device.exclusive(f)
    }

    /// Accepts clients until [`Server::shutdown`] is called, one thread per
    /// client. Returns when the listener is closed by shutdown.
    pub fn serve(&self, listener: &Listener) -> io::Result<()> {
        loop {
            let accepted = match listener {
                Listener::Tcp(l) => l.accept().map(|(s, a)| Stream::Tcp(s, a)),
                Listener::Unix(l, _, _) => l.accept().map(|(s, _)| Stream::Unix(s)),
            };
            if self.shared.stopping.load(Ordering::SeqCst) {
                return Ok(());
            }
            match accepted {
                Ok(stream) => self.spawn_client(stream),
                // Transient accept failures (a client that reset before we
                // accepted, out of file descriptors) must not end the server.
                Err(e) => {
                    self.shared.log(&format!("accept failed: {e}"));
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
        }
    }

    fn spawn_client(&self, stream: Stream) {
        let peer = stream.peer();
        let id = self.shared.connections.fetch_add(1, Ordering::Relaxed) + 1;
        let label = format!("client #{id} ({peer})");
        let config = &self.shared.config;
        // Threads beyond those holding a slot are clients waiting for one or
        // being refused; bounding them bounds the server's threads and
        // memory whatever the number of connections.
        let limit = config.max_clients.saturating_mul(2).max(1);
        let n = self.shared.threads.fetch_add(1, Ordering::SeqCst) + 1;
        if n > limit {
            self.shared.threads.fetch_sub(1, Ordering::SeqCst);
            self.shared.log(&format!(
                "{label}: dropped without a reply: {} connections are open or waiting (twice the client limit)",
                n - 1
            ));
            return;
        }
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name(format!("nbd-client-{id}"))
            .spawn(move || {
                client_thread(&shared, stream, id, &label);
                shared.threads.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            self.shared.threads.fetch_sub(1, Ordering::SeqCst);
            self.shared
                .log(&format!("cannot start a thread for a client: {e}"));
        }
    }

    /// Stops the server: takes the device lock, flushes (unless the export
    /// is read-only), and marks the
    /// server as stopping, so every later request is answered ESHUTDOWN and
    /// the device does not change after this flush. Wakes the accept loop
    /// of `listener` so [`Server::serve`] returns.
    pub fn shutdown(&self, listener: Option<&Listener>) -> ftl::Result<()> {
        let result = self.shared.device.exclusive(|dev| {
            self.shared.stopping.store(true, Ordering::SeqCst);
            if self.shared.config.read_only {
                Ok(())
            } else {
                dev.flush()
            }
        });
        if let Some(l) = listener {
            l.wake_accept();
        }
        result
    }
}

/// One connection's thread: wait for a slot (or refuse the client), then
/// serve it to its end.
fn client_thread<D>(shared: &Shared<D>, stream: Stream, id: u64, label: &str)
where
    D: BlockDevice + Send + Sync,
{
    let config = &shared.config;
    let ip = stream.ip();
    let limit = match ip {
        Some(a) if a.is_loopback() && !config.per_address_loopback => usize::MAX,
        _ => config.max_per_address,
    };
    let registered = shared.conns.register(id, ip, limit).or_else(|n| {
        // An idle connection from the same address may give way.
        let t = config.reclaim_idle.ok_or(n)?;
        let (victim, idle) = shared.conns.reclaim_idle(t, ip).ok_or(n)?;
        log_reclaim(shared, victim, idle, label);
        shared.conns.register(id, ip, limit)
    });
    let conn = match registered {
        Ok(c) => c,
        Err(n) => {
            let why = format!(
                "too many connections from {}: {n}, the most one address may open{}; close \
                 some and try again",
                ip.map_or_else(String::new, |a| a.to_string()),
                crate::export::Hints::suffix(&config.hints.max_per_address)
            );
            let end = refuse(shared, stream, &why);
            shared.log(&format!(
                "{label}: refused, {n} connections from its address already ({end})"
            ));
            return;
        }
    };
    // Unregisters the connection however this thread ends.
    struct Registered<'a, D: BlockDevice + Send + Sync>(&'a Shared<D>, u64);
    impl<D: BlockDevice + Send + Sync> Drop for Registered<'_, D> {
        fn drop(&mut self) {
            self.0.conns.remove(self.1);
        }
    }
    let _registered = Registered(shared, id);
    // Slots held by connections still in their handshake free up within
    // one handshake timeout of this arrival; the second one is slack for
    // the server to notice and close them. With idle reclaim on, a client
    // waits at least a second, for an idle connection to be closed.
    let mut wait = config
        .handshake_timeout
        .map_or(Duration::ZERO, |t| t.saturating_mul(2));
    if config.reclaim_idle.is_some() {
        wait = wait.max(Duration::from_secs(1));
    }
    let reclaim = || {
        if let Some(t) = config.reclaim_idle {
            if let Some((victim, idle)) = shared.conns.reclaim_idle(t, None) {
                log_reclaim(shared, victim, idle, label);
            }
        }
    };
    if !shared.slots.acquire(id, wait, &reclaim) {
        let why = format!(
            "server busy: all {} client slots are in use{}; try again later",
            config.max_clients,
            crate::export::Hints::suffix(&config.hints.max_clients)
        );
        let end = refuse(shared, stream, &why);
        shared.log(&format!(
            "{label}: refused, all {} client slots busy ({end})",
            config.max_clients
        ));
        return;
    }
    shared.log(&format!("{label}: connected"));
    let mut sock = Socket::new(
        stream.into_inner(),
        config.handshake_timeout,
        config.idle_timeout,
    );
    sock.track(&conn);
    let (end, stats) = serve_connection(shared, sock, label, &conn);
    shared.slots.release();
    let end = if conn.was_reclaimed() {
        // Its end (the shut-down socket read as closed) says nothing more.
        "closed by the server while idle: its slot went to a waiting client".to_string()
    } else {
        end.to_string()
    };
    let status = match stats.block_status {
        0 => String::new(),
        n => format!(", {n} block status queries"),
    };
    shared.log(&format!(
        "{label}: disconnected ({end}); {} reads, {} writes, {} trims, {} flushes, {} epoch flushes, {} errors{status}",
        stats.reads, stats.writes, stats.trims, stats.flushes, stats.epoch_flushes, stats.errors
    ));
}

/// Logs that connection `victim`, idle for `idle`, is being closed so
/// `label` can have its slot.
fn log_reclaim<D: BlockDevice + Send + Sync>(
    shared: &Shared<D>,
    victim: u64,
    idle: Duration,
    label: &str,
) {
    shared.log(&format!(
        "client #{victim}: closing it, idle for {:.1} s while {label} waits for a slot",
        idle.as_secs_f64()
    ));
}

/// Turns a client away: its options get `NBD_REP_ERR_POLICY` with `why`
/// (see `handshake::refuse`), within the handshake timeout.
fn refuse<D: BlockDevice + Send + Sync>(shared: &Shared<D>, stream: Stream, why: &str) -> End {
    let bound = shared
        .config
        .handshake_timeout
        .unwrap_or(DEFAULT_HANDSHAKE_TIMEOUT);
    let sock = Socket::new(stream.into_inner(), Some(bound), None);
    let mut w = LinkHandle(Rc::new(RefCell::new(Link::Plain(sock))));
    handshake::refuse(&mut w.clone(), &mut w, why)
}

/// Runs one connection to its end: the handshake, then transmission if
/// the client chose the export.
fn serve_connection<D>(
    shared: &Shared<D>,
    sock: Socket,
    peer: &str,
    conn: &Arc<limits::Conn>,
) -> (End, ConnStats)
where
    D: BlockDevice + Send + Sync,
{
    const BUF: usize = 256 * 1024;
    let link = LinkHandle(Rc::new(RefCell::new(Link::Plain(sock))));
    let mut r = io::BufReader::with_capacity(BUF, link.clone());
    let mut w = link;
    let mut stats = ConnStats {
        conn: Some(Arc::clone(conn)),
        ..ConnStats::default()
    };
    let end = match handshake::negotiate(shared, &mut r, &mut w, peer) {
        Ok(Some(agreed)) => {
            let client = transmission::Client { peer, agreed };
            if let Some(s) = w.0.borrow_mut().socket() {
                s.end_handshake();
                conn.start_transfer(s);
            }
            match split_plain(r, &w) {
                // Plain sockets: a reader thread reads ahead while this one
                // answers.
                Ok((reader, mut writer)) => {
                    let _counted = crate::limits::Transferring::start();
                    let stopper = writer.try_clone();
                    let stop = move || {
                        if let Ok(s) = stopper {
                            s.shutdown_read();
                        }
                    };
                    let poller = shared
                        .config
                        .poll
                        .and_then(|d| Some((writer.try_clone().ok()?, d)));
                    let set_polling = move |on: bool| {
                        if let Some((s, d)) = &poller {
                            s.set_poll(on.then_some(*d));
                        }
                    };
                    let end = transmission::run_pipelined(
                        shared,
                        client,
                        reader,
                        &mut writer,
                        &mut stats,
                        stop,
                        set_polling,
                    );
                    let _ = writer.flush();
                    return (end, stats);
                }
                Err(back) => {
                    r = back;
                    transmission::run(shared, client, &mut r, &mut w, &mut stats)
                }
            }
        }
        Ok(None) => End::Clean("client aborted the negotiation"),
        Err(e) => e,
    };
    let _ = w.flush();
    (end, stats)
}

/// The bytes the handshake's reader buffered past the export choice (the
/// first requests of a client that does not wait for the reply), then the
/// socket.
type PlainReader = io::BufReader<io::Chain<io::Cursor<Vec<u8>>, Socket>>;

/// Splits a plain (non-TLS) link after the handshake into a reader that
/// keeps what `r` had buffered and a writer on a clone of the socket; a TLS
/// link (one state machine for both directions) is given back unchanged.
fn split_plain(
    r: io::BufReader<LinkHandle>,
    link: &LinkHandle,
) -> Result<(PlainReader, Socket), io::BufReader<LinkHandle>> {
    const BUF: usize = 256 * 1024;
    // Taken out in a statement of its own: a borrow in the match's
    // scrutinee would last through the arms, which put the link back.
    let taken = std::mem::replace(&mut *link.0.borrow_mut(), Link::Gone);
    let sock = match taken {
        Link::Plain(sock) => sock,
        other => {
            *link.0.borrow_mut() = other;
            return Err(r);
        }
    };
    let writer = match sock.try_clone() {
        Ok(w) => w,
        Err(_) => {
            *link.0.borrow_mut() = Link::Plain(sock);
            return Err(r);
        }
    };
    let buffered = r.buffer().to_vec();
    let reader = io::BufReader::with_capacity(BUF, io::Cursor::new(buffered).chain(sock));
    Ok((reader, writer))
}

/// An accepted connection.
enum Stream {
    Tcp(TcpStream, SocketAddr),
    Unix(UnixStream),
}

impl Stream {
    fn peer(&self) -> String {
        match self {
            Stream::Tcp(_, a) => a.to_string(),
            Stream::Unix(_) => "unix socket".into(),
        }
    }

    /// The client's IP address (none on a Unix socket).
    fn ip(&self) -> Option<std::net::IpAddr> {
        match self {
            Stream::Tcp(_, a) => Some(a.ip()),
            Stream::Unix(_) => None,
        }
    }

    fn into_inner(self) -> limits::Stream {
        match self {
            Stream::Tcp(s, _) => {
                // Replies are written whole; do not let Nagle delay them.
                let _ = s.set_nodelay(true);
                send_buffer_for_replies(&s);
                limits::Stream::Tcp(s)
            }
            Stream::Unix(s) => {
                send_buffer_for_replies(&s);
                limits::Stream::Unix(s)
            }
        }
    }
}

/// Asks the kernel for a 4 MiB send buffer (it caps the request at
/// `net.core.wmem_max`), so that a 1 MiB READ reply is queued whole: with
/// the default (about 200 KiB on Linux) the connection's thread sends it in
/// steps, each waiting for the client to drain the one before, a wake-up
/// of each side per step (1 MiB reads over a Unix socket 9–20 % faster,
/// docs/BENCHMARKS.md "Checksums in RAM"). The kernel holds those bytes
/// only while the client has not read them. On TCP an explicit size also
/// turns off the send buffer's autotuning, whose usual ceiling is 4 MiB.
/// A refusal changes nothing but speed, so it is not reported.
fn send_buffer_for_replies(s: &impl std::os::fd::AsRawFd) {
    let want: libc::c_int = 4 << 20;
    // SAFETY: setsockopt on a socket this process owns, with a pointer to
    // a c_int that lives across the call and its size.
    unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&want as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}
