//! One connection's byte stream, shared by both phases of the protocol:
//! reading whole messages, skipping payloads, and why a connection ended.
//!
//! Rules the phases keep (see `handshake` and `transmission`):
//! * No input from the network can panic the server: every length is
//!   checked before it sizes a buffer, every slice index is bounded by a
//!   length checked just before.
//! * When the client breaks the protocol in a way that loses framing (bad
//!   magic, truncated message) the connection is closed ([`End::Protocol`],
//!   [`End::Io`]); everything else gets the protocol's error reply and the
//!   connection goes on.

use std::io::{self, Read, Write};

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

/// Reads exactly `buf.len()` bytes; `Ok(false)` if the peer closed the
/// connection before sending the first byte.
pub(crate) fn read_message<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<bool> {
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
pub(crate) fn discard<R: Read>(r: &mut R, n: u64) -> io::Result<()> {
    let copied = io::copy(&mut r.take(n), &mut io::sink())?;
    if copied < n {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("payload truncated after {copied} of {n} bytes"),
        ));
    }
    Ok(())
}

/// Writes `bytes` and flushes them: every message is sent whole, at once.
pub(crate) fn send<W: Write>(w: &mut W, bytes: &[u8]) -> io::Result<()> {
    w.write_all(bytes)?;
    w.flush()
}
