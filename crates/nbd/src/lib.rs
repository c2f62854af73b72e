//! An NBD (Network Block Device) server for any scftl [`ftl::BlockDevice`].
//!
//! What it is: the server side of the NBD protocol's fixed-newstyle
//! handshake (NBD_OPT_GO, NBD_OPT_INFO, NBD_OPT_EXPORT_NAME, NBD_OPT_LIST,
//! NBD_OPT_ABORT, NBD_OPT_STARTTLS, NBD_OPT_STRUCTURED_REPLY and the
//! metadata context options for `base:allocation`; every other option is
//! answered NBD_REP_ERR_UNSUP) and its transmission phase with simple or
//! structured replies (READ, WRITE with FUA, FLUSH, TRIM, WRITE_ZEROES,
//! DISC, BLOCK_STATUS), so the Linux kernel's `nbd-client`, qemu, libnbd's
//! tools and fio can use an FTL as a disk, and copies skip its unmapped
//! sectors. Std threads, one per client; the device is an
//! [`ftl::SharedDevice`] (reads in parallel, changes one at a time, a
//! flush's sync with no lock held). Client slots, the handshake deadline
//! and the idle timeout
//! ([`limits`]) keep idle connections from locking clients out; TLS is
//! optional or required ([`tls`]).
//!
//! What it promises: no byte sequence from a client panics the server,
//! changes the device beyond what a valid request asks, or disturbs other
//! clients; a malformed request gets the protocol's error value, or the
//! connection is closed when framing is lost. A flush or FUA is answered
//! only after the device's `flush` returned. Any alignment is served
//! (read-modify-write, see [`ops`]). A write that does not fit the FTL's
//! epoch is preceded by an epoch barrier, and one larger than an epoch is
//! split at epoch boundaries with barriers between the pieces (see [`ops`]
//! for what that means after a power cut).
//!
//! What it must never do: know which FTL it serves, or touch the flash
//! underneath.

pub mod conn;
pub mod export;
pub mod handshake;
pub mod limits;
pub mod ops;
pub mod proto;
pub mod server;
#[cfg(test)]
mod testdev;
#[cfg(test)]
mod tests;
pub mod tls;
pub mod transmission;

pub use export::{Hints, ServerConfig, DEFAULT_MAX_REQUEST_BYTES};
pub use limits::{
    DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_CLIENTS, DEFAULT_MAX_PER_ADDRESS, DEFAULT_RECLAIM_IDLE,
};
pub use server::{Listener, Server, DEFAULT_LISTEN};
pub use tls::{Tls, TlsCreds};
