//! TLS for NBD (`NBD_OPT_STARTTLS`, X.509 certificates, rustls): the
//! server's policy ([`Tls`]), loading its certificate and key and,
//! optionally, the CA that client certificates must chain to
//! ([`TlsCreds`]), and the connection's byte stream before and after the
//! upgrade ([`Link`]). There is no PSK: rustls has no external pre-shared
//! keys.
//!
//! Invariants:
//! * With [`Tls::Require`], nothing but `NBD_OPT_STARTTLS` and
//!   `NBD_OPT_ABORT` is answered before TLS is up (`NBD_REP_ERR_TLS_REQD`),
//!   so no export data or export name leaves the server in plaintext.
//! * The upgrade happens only when no plaintext byte is buffered after the
//!   `NBD_OPT_STARTTLS` request: bytes a client (or an attacker on the path)
//!   sent ahead of the TLS handshake would otherwise be read as if they had
//!   come through TLS. Such a connection is closed.
//! * The TLS handshake runs under the handshake deadline of the socket.
//! * With a client CA, a TLS handshake without a client certificate that
//!   chains to it fails, so such a client never reaches the export (under
//!   [`Tls::Require`]; [`Tls::Allow`] still serves plaintext clients).

use std::cell::RefCell;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConnection, StreamOwned};

use crate::limits::Socket;

/// The server's TLS policy.
#[derive(Clone, Debug, Default)]
pub enum Tls {
    /// Plaintext only; `NBD_OPT_STARTTLS` is refused.
    #[default]
    Off,
    /// Clients may upgrade with `NBD_OPT_STARTTLS` or stay in plaintext.
    Allow(TlsCreds),
    /// Clients must upgrade before anything else.
    Require(TlsCreds),
}

impl Tls {
    pub(crate) fn creds(&self) -> Option<&TlsCreds> {
        match self {
            Tls::Off => None,
            Tls::Allow(c) | Tls::Require(c) => Some(c),
        }
    }

    pub(crate) fn required(&self) -> bool {
        matches!(self, Tls::Require(_))
    }
}

/// A certificate chain and its private key, ready to serve TLS.
#[derive(Clone)]
pub struct TlsCreds(Arc<rustls::ServerConfig>);

impl fmt::Debug for TlsCreds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TlsCreds(..)")
    }
}

impl TlsCreds {
    /// Loads a PEM certificate chain (server certificate first) and a PEM
    /// private key (PKCS#8, PKCS#1 or SEC1). With `client_ca` (PEM, one or
    /// more CA certificates), every client must present a certificate
    /// issued by one of them, or its TLS handshake fails. Errors name the
    /// file at fault.
    pub fn from_pem_files(
        cert: &Path,
        key: &Path,
        client_ca: Option<&Path>,
    ) -> io::Result<TlsCreds> {
        let chain = read_certs(cert)?;
        let key_pem =
            std::fs::read(key).map_err(|e| bad(key, "cannot read the private key", &e))?;
        let key_der = PrivateKeyDer::from_pem_slice(&key_pem)
            .map_err(|e| bad(key, "no usable private key", &e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| bad(cert, "TLS setup", &e))?;
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = rustls::RootCertStore::empty();
                for c in read_certs(ca)? {
                    roots
                        .add(c)
                        .map_err(|e| bad(ca, "not a usable CA certificate", &e))?;
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .map_err(|e| bad(ca, "cannot verify clients with it", &e))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(chain, key_der)
            .map_err(|e| bad(key, "does not match the certificate or is unsupported", &e))?;
        Ok(TlsCreds(Arc::new(config)))
    }
}

fn bad(path: &Path, what: &str, e: &dyn fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}: {e}", path.display()),
    )
}

/// Every PEM certificate in `path`; an error if there is none.
fn read_certs(path: &Path) -> io::Result<Vec<CertificateDer<'static>>> {
    let pem = std::fs::read(path).map_err(|e| bad(path, "cannot read the certificate", &e))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(path, "not a PEM certificate", &e))?;
    if certs.is_empty() {
        return Err(bad(
            path,
            "no certificate",
            &"expected a PEM \"CERTIFICATE\" block",
        ));
    }
    Ok(certs)
}

/// The connection's byte stream: the socket, or TLS over it.
pub(crate) enum Link {
    Plain(Socket),
    Tls(Box<StreamOwned<ServerConnection, Socket>>),
    /// Only while upgrading.
    Gone,
}

impl Link {
    pub(crate) fn socket(&mut self) -> Option<&mut Socket> {
        match self {
            Link::Plain(s) => Some(s),
            Link::Tls(t) => Some(&mut t.sock),
            Link::Gone => None,
        }
    }

    /// Whether the client presented a certificate (rustls has verified it
    /// against the client CA before the handshake completed).
    pub(crate) fn has_client_certificate(&self) -> bool {
        match self {
            Link::Tls(t) => t.conn.peer_certificates().is_some_and(|c| !c.is_empty()),
            _ => false,
        }
    }

    pub(crate) fn is_tls(&self) -> bool {
        matches!(self, Link::Tls(_))
    }

    /// Runs the server side of the TLS handshake over the plain socket.
    pub(crate) fn start_tls(&mut self, creds: &TlsCreds) -> io::Result<()> {
        let Link::Plain(_) = self else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "TLS is already on",
            ));
        };
        let Link::Plain(mut sock) = std::mem::replace(self, Link::Gone) else {
            unreachable!("checked just above");
        };
        let mut conn = ServerConnection::new(Arc::clone(&creds.0))
            .map_err(|e| io::Error::other(format!("TLS: {e}")))?;
        while conn.is_handshaking() {
            conn.complete_io(&mut sock)
                .map_err(|e| io::Error::new(e.kind(), format!("TLS handshake failed: {e}")))?;
        }
        *self = Link::Tls(Box::new(StreamOwned::new(conn, sock)));
        Ok(())
    }

    fn gone() -> io::Error {
        io::Error::new(
            io::ErrorKind::NotConnected,
            "connection lost during the TLS upgrade",
        )
    }
}

impl Read for Link {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Link::Plain(s) => s.read(buf),
            Link::Tls(t) => t.read(buf),
            Link::Gone => Err(Link::gone()),
        }
    }
}

impl Write for Link {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Link::Plain(s) => s.write(buf),
            Link::Tls(t) => t.write(buf),
            Link::Gone => Err(Link::gone()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Link::Plain(s) => s.flush(),
            Link::Tls(t) => t.flush(),
            Link::Gone => Err(Link::gone()),
        }
    }
}

/// One half of a [`Link`] shared by the reader and the writer of one
/// connection thread (the protocol never reads and writes at once).
#[derive(Clone)]
pub(crate) struct LinkHandle(pub(crate) Rc<RefCell<Link>>);

impl Read for LinkHandle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.borrow_mut().read(buf)
    }
}

impl Write for LinkHandle {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}
