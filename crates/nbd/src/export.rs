//! What the server exports and the state every connection shares: the
//! configuration ([`ServerConfig`]), and [`Shared`] — the one device behind
//! one readers-writer lock ([`ftl::SharedDevice`]: reads run in parallel,
//! changes one at a time, a flush's sync with no lock held), its size,
//! the stopping flag and the counters.
//!
//! Invariants: the device is reached only through `Shared::device`;
//! `stopping` is set only while the exclusive lock is held (by shutdown,
//! after its flush) and every change and flush checks it under that lock,
//! so nothing changes the device after the final flush.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use ftl::{BlockDevice, SharedDevice};

use crate::limits::{
    Registry, Slots, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_CLIENTS, DEFAULT_MAX_PER_ADDRESS,
    DEFAULT_RECLAIM_IDLE,
};
use crate::ops;
use crate::proto::{
    TFLAG_CAN_MULTI_CONN, TFLAG_HAS_FLAGS, TFLAG_READ_ONLY, TFLAG_SEND_FLUSH, TFLAG_SEND_FUA,
    TFLAG_SEND_TRIM, TFLAG_SEND_WRITE_ZEROES,
};
use crate::tls::Tls;

/// Default largest request payload accepted and advertised (32 MiB).
pub const DEFAULT_MAX_REQUEST_BYTES: u32 = 32 << 20;

/// How long a reader polls for the next request by default
/// ([`ServerConfig::poll`]).
pub const DEFAULT_POLL: Duration = Duration::from_micros(50);

/// What the server exports and how.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Export name offered by NBD_OPT_LIST; clients may also use "".
    pub export_name: String,
    /// Shown to clients that ask for NBD_INFO_DESCRIPTION.
    pub description: String,
    /// Refuse writes, trims and write-zeroes with EPERM, and say so in the
    /// transmission flags.
    pub read_only: bool,
    /// Largest READ or WRITE payload accepted; advertised as the maximum
    /// block size.
    pub max_request_bytes: u32,
    /// Smallest block size advertised. Any alignment is served (by
    /// read-modify-write), so 1 is honest; 512 suits clients that dislike 1.
    pub min_block_size: u32,
    /// Most clients served at once (handshaking or transferring). A
    /// connection beyond it waits up to twice the handshake timeout for a slot,
    /// then gets an `NBD_REP_ERR_POLICY` reply saying the server is busy.
    pub max_clients: usize,
    /// Time from getting a slot to choosing the export, TLS included;
    /// `None`: no limit (then a client over `max_clients` is refused at
    /// once, and idle connections can hold every slot).
    pub handshake_timeout: Option<Duration>,
    /// Longest wait for a request (or for the socket) once the export is
    /// chosen, whether or not anyone else needs the slot; `None`: an
    /// established client may stay idle forever (see `reclaim_idle`).
    pub idle_timeout: Option<Duration>,
    /// An established connection with no request in flight that has been
    /// silent this long is closed when a client is waiting for its slot
    /// (or for its address's share): idle clients cannot lock others out,
    /// and a quiet client is left alone while slots are free. `None`:
    /// never.
    pub reclaim_idle: Option<Duration>,
    /// Most connections from one IP address at once, waiting or served (a
    /// connection over it is refused with `NBD_REP_ERR_POLICY`, unless an
    /// idle one from that address can be reclaimed). Unix-socket clients
    /// have no address and are not counted; loopback clients only with
    /// `per_address_loopback`.
    pub max_per_address: usize,
    /// Apply `max_per_address` to loopback clients too. Off by default:
    /// every client on this host shares one loopback address, so the
    /// limit would let one local program lock the others out (the idle
    /// reclaim and the handshake timeout guard them instead).
    pub per_address_loopback: bool,
    /// Once a connection's reader answered a request itself (one request in
    /// flight), each of its socket reads polls this long before it blocks
    /// in the kernel (`None`: it blocks at once). At iodepth 1 a client's
    /// next request (and the next part of a payload) usually arrives within
    /// tens of microseconds, and waking a blocked thread on another CPU
    /// costs about as much; polling saves that wake-up for CPU time while a
    /// client keeps the server busy, and nothing when it is idle. At most
    /// `available_parallelism() - 1` readers (at least one) poll at a time,
    /// and none while more connections transfer than that, so polling never
    /// takes the CPUs a busy server needs.
    pub poll: Option<Duration>,
    /// `NBD_OPT_STARTTLS` policy and credentials.
    pub tls: Tls,
    /// Log connections to stderr.
    pub log: bool,
    /// Also log each failed request.
    pub log_errors: bool,
    /// How the program running the server names its settings, for the
    /// messages clients get (this library names concepts only).
    pub hints: Hints,
}

/// Where a client-visible refusal can say which setting to change: text
/// the program running the server supplies (the `scftl` command passes its
/// flags), added in parentheses; empty: nothing is added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// The setting of the most clients served at once.
    pub max_clients: String,
    /// The setting that turns TLS on.
    pub tls: String,
    /// The setting of the most connections per address.
    pub max_per_address: String,
}

impl Hints {
    /// ` (HINT)`, or nothing for an empty hint.
    pub fn suffix(hint: &str) -> String {
        if hint.is_empty() {
            String::new()
        } else {
            format!(" ({hint})")
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            export_name: "scftl".into(),
            description: String::new(),
            read_only: false,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            min_block_size: 1,
            max_clients: DEFAULT_MAX_CLIENTS,
            handshake_timeout: Some(DEFAULT_HANDSHAKE_TIMEOUT),
            idle_timeout: None,
            reclaim_idle: Some(DEFAULT_RECLAIM_IDLE),
            max_per_address: DEFAULT_MAX_PER_ADDRESS,
            per_address_loopback: false,
            poll: Some(DEFAULT_POLL),
            tls: Tls::Off,
            log: true,
            log_errors: true,
            hints: Hints::default(),
        }
    }
}

/// State every connection thread shares.
pub struct Shared<D> {
    pub(crate) device: SharedDevice<D>,
    pub(crate) config: ServerConfig,
    pub(crate) size: u64,
    pub(crate) sector_size: usize,
    pub(crate) stopping: AtomicBool,
    pub(crate) epoch_flushes: AtomicU64,
    /// Client slots (see `limits`).
    pub(crate) slots: Slots,
    /// Live connections: per-address counts, idle reclaim (see `limits`).
    pub(crate) conns: Registry,
    /// Connection threads running now (serving, waiting for a slot or
    /// being refused), and connections ever accepted.
    pub(crate) threads: AtomicUsize,
    pub(crate) connections: AtomicU64,
    /// Wakes the sync-behind thread (see [`Shared::start_syncer`]).
    behind: Arc<BehindSignal>,
}

/// An epoch barrier ended an epoch since the sync-behind thread last
/// looked. The thread waits on this alone, holding the export only
/// weakly, so dropping the last `Server` drops the device on the
/// dropping thread (an image's lock is released at once).
#[derive(Default)]
struct BehindSignal {
    wanted: Mutex<bool>,
    cv: Condvar,
}

impl<D: BlockDevice + Send + Sync> Shared<D> {
    pub(crate) fn new(device: D, mut config: ServerConfig) -> Shared<D> {
        // A device that keeps each request atomic only up to a size (optr)
        // is sent no larger request: the advertised maximum says so.
        if let Some(sectors) = device.max_request_sectors() {
            let bytes = sectors.saturating_mul(device.sector_size() as u64);
            let bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
            config.max_request_bytes = config.max_request_bytes.min(bytes);
        }
        Shared {
            size: ops::size_bytes(&device),
            sector_size: device.sector_size(),
            device: SharedDevice::new(device),
            slots: Slots::new(config.max_clients),
            conns: Registry::default(),
            config,
            stopping: AtomicBool::new(false),
            epoch_flushes: AtomicU64::new(0),
            threads: AtomicUsize::new(0),
            connections: AtomicU64::new(0),
            behind: Arc::default(),
        }
    }

    /// Starts the export's syncer thread: after each epoch barrier a
    /// request ran ([`Shared::want_sync_behind`]) it makes the ended epochs
    /// durable with no lock held during the sync
    /// ([`SharedDevice::sync_behind`]), so that the erase that follows a
    /// barrier finds nothing to sync and writers do not wait for the
    /// host's write-back. It holds the export only weakly, and ends within
    /// a poll interval of the server's shutdown or drop.
    pub(crate) fn start_syncer(shared: &Arc<Shared<D>>) -> std::io::Result<()>
    where
        D: 'static,
    {
        let weak: Weak<Shared<D>> = Arc::downgrade(shared);
        let signal = Arc::clone(&shared.behind);
        std::thread::Builder::new()
            .name("nbd-sync-behind".into())
            .spawn(move || Shared::syncer(&weak, &signal))
            .map(|_| ())
    }

    fn syncer(weak: &Weak<Shared<D>>, signal: &BehindSignal) {
        const POLL: Duration = Duration::from_millis(200);
        loop {
            let wanted = {
                let mut w = signal.wanted.lock().unwrap_or_else(|e| e.into_inner());
                if !*w {
                    w = signal
                        .cv
                        .wait_timeout(w, POLL)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                std::mem::take(&mut *w)
            };
            // The export is held only while a sync behind runs.
            let Some(shared) = weak.upgrade() else {
                return;
            };
            if shared.stopping.load(Ordering::SeqCst) {
                return;
            }
            if wanted {
                let stopping = &shared.stopping;
                if let Err(e) = shared
                    .device
                    .sync_behind(|_| !stopping.load(Ordering::SeqCst))
                {
                    shared.log(&format!("sync behind an epoch barrier failed: {e}"));
                }
            }
        }
    }

    /// A request ended an epoch with a barrier: wakes the syncer.
    pub(crate) fn want_sync_behind(&self) {
        *self.behind.wanted.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.behind.cv.notify_one();
    }

    pub(crate) fn log(&self, msg: &str) {
        if self.config.log {
            eprintln!("scftl nbd: {msg}");
        }
    }

    /// The export's transmission flags.
    pub(crate) fn transmission_flags(&self) -> u16 {
        let mut f = TFLAG_HAS_FLAGS
            | TFLAG_SEND_FLUSH
            | TFLAG_SEND_FUA
            | TFLAG_SEND_TRIM
            | TFLAG_SEND_WRITE_ZEROES
            // One device, no per-connection cache: a flush on any connection
            // covers every connection's completed writes.
            | TFLAG_CAN_MULTI_CONN;
        if self.config.read_only {
            f |= TFLAG_READ_ONLY;
        }
        f
    }

    /// Whether a client's export name selects this export.
    pub(crate) fn name_matches(&self, name: &[u8]) -> bool {
        // The empty name selects the default (and only) export.
        name.is_empty() || name == self.config.export_name.as_bytes()
    }
}
