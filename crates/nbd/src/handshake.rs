//! The fixed-newstyle handshake: the greeting, the client's flags, then
//! option haggling until the client picks the export (`NBD_OPT_GO` or
//! `NBD_OPT_EXPORT_NAME`) or gives up (`NBD_OPT_ABORT`). Also answered:
//! `NBD_OPT_INFO`, `NBD_OPT_LIST`, `NBD_OPT_STARTTLS` (see [`crate::tls`]
//! for the policy), `NBD_OPT_STRUCTURED_REPLY` and the metadata context
//! options (`base:allocation` only); every other option gets
//! `NBD_REP_ERR_UNSUP`. Option
//! payloads are bounded (longer ones are skipped and refused) and so is the
//! number of options per connection. Also here: [`refuse`], the short
//! handshake that tells a client over `--max-clients` why it is turned away.

use std::io::{self, BufReader, Read, Write};

use ftl::BlockDevice;

use crate::conn::{discard, read_message, send, End};
use crate::export::Shared;
use crate::proto::*;
use crate::tls::LinkHandle;

/// Longest option payload the server reads into memory; longer ones are
/// skipped and answered with `NBD_REP_ERR_TOO_BIG`.
const MAX_OPTION_BYTES: u32 = 64 * 1024;
/// Longest string (export name) the protocol allows.
const MAX_STRING_BYTES: usize = 4096;
/// Most options one connection may send before the server gives up on it.
const MAX_OPTIONS: u32 = 4096;

/// The greeting and the client's flags; returns whether the client asked
/// for no zero padding.
fn greet<R: Read, W: Write>(r: &mut R, w: &mut W) -> Result<bool, End> {
    send(w, &encode_greeting(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))?;
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
    Ok(client_flags & CLIENT_FLAG_NO_ZEROES != 0)
}

/// Reads one option header; `None` if the client closed between options.
fn option_header<R: Read>(r: &mut R) -> Result<Option<OptionHeader>, End> {
    let mut hdr = [0u8; OPTION_HEADER_LEN];
    if !read_message(r, &mut hdr)? {
        return Ok(None);
    }
    match OptionHeader::decode(&hdr) {
        Some(h) => Ok(Some(h)),
        None => Err(End::Protocol("bad option magic".into())),
    }
}

/// What the client and the server agreed on for the transmission phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Negotiated {
    /// `NBD_OPT_STRUCTURED_REPLY`: READs (and errors) are answered with
    /// structured reply chunks.
    pub structured: bool,
    /// `base:allocation` was selected (`NBD_OPT_SET_META_CONTEXT`):
    /// `NBD_CMD_BLOCK_STATUS` is answered.
    pub allocation: bool,
}

/// The whole handshake. `Ok(Some(n))`: the client chose the export with
/// `n` agreed, enter transmission; `Ok(None)`: the client aborted. `r`
/// reads through the same link `w` writes to; `NBD_OPT_STARTTLS` upgrades
/// that link in place (and, as the protocol says, forgets what was agreed
/// before it).
pub(crate) fn negotiate<D>(
    shared: &Shared<D>,
    r: &mut BufReader<LinkHandle>,
    w: &mut LinkHandle,
    peer: &str,
) -> Result<Option<Negotiated>, End>
where
    D: BlockDevice + Send + Sync,
{
    let no_zeroes = greet(r, w)?;
    let tls = &shared.config.tls;
    // Set once a plaintext client is told TLS is required: its leaving
    // is then logged as that refusal, not as a plain abort.
    let mut told_tls_required = false;
    let mut agreed = Negotiated::default();
    const TLS_REFUSED: &str = "refused: a plaintext client, and this server requires TLS \
        (it was answered NBD_REP_ERR_TLS_REQD and gave up; connect with nbds://)";

    for _ in 0..MAX_OPTIONS {
        let Some(OptionHeader {
            option,
            length: len,
        }) = option_header(r)?
        else {
            if told_tls_required {
                return Err(End::Clean(TLS_REFUSED));
            }
            return Err(End::Clean("client closed during negotiation"));
        };
        let secure = w.0.borrow().is_tls();
        if tls.required() && !secure && !matches!(option, OPT_STARTTLS | OPT_ABORT) {
            if option == OPT_EXPORT_NAME {
                // This option has no error reply: closing is all we can do.
                return Err(End::Protocol(
                    "NBD_OPT_EXPORT_NAME before NBD_OPT_STARTTLS; this server requires TLS".into(),
                ));
            }
            discard(r, u64::from(len))?;
            told_tls_required = true;
            reply(
                w,
                option,
                REP_ERR_TLS_REQD,
                b"this server requires TLS: send NBD_OPT_STARTTLS first (an nbds:// URI)",
            )?;
            continue;
        }
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
                if !shared.name_matches(&data) {
                    return Err(End::Protocol(format!(
                        "NBD_OPT_EXPORT_NAME for unknown export {:?}",
                        String::from_utf8_lossy(&data)
                    )));
                }
                let flags = shared.transmission_flags();
                send(w, &encode_export_name_reply(shared.size, flags, no_zeroes))?;
                shared.log(&format!("{peer}: export chosen with NBD_OPT_EXPORT_NAME"));
                return Ok(Some(agreed));
            }
            OPT_ABORT => {
                // The client may already have gone; the reply is a courtesy.
                let _ = reply(w, option, REP_ACK, &[]);
                if told_tls_required {
                    return Err(End::Clean(TLS_REFUSED));
                }
                return Ok(None);
            }
            OPT_LIST => {
                if !data.is_empty() {
                    reply(w, option, REP_ERR_INVALID, b"NBD_OPT_LIST takes no data")?;
                    continue;
                }
                let entry = encode_server_entry(shared.config.export_name.as_bytes());
                reply(w, option, REP_SERVER, &entry)?;
                reply(w, option, REP_ACK, &[])?;
            }
            OPT_INFO | OPT_GO => {
                if info_or_go(shared, w, option, &data)? && option == OPT_GO {
                    shared.log(&format!("{peer}: export chosen with NBD_OPT_GO"));
                    return Ok(Some(agreed));
                }
            }
            OPT_STARTTLS => {
                start_tls(shared, r, w, &data, peer)?;
                // Options agreed in plaintext do not carry over (the
                // client must negotiate them again through TLS).
                if !secure && w.0.borrow().is_tls() {
                    agreed = Negotiated::default();
                }
            }
            OPT_STRUCTURED_REPLY if !data.is_empty() => reply(
                w,
                option,
                REP_ERR_INVALID,
                b"NBD_OPT_STRUCTURED_REPLY takes no data",
            )?,
            OPT_STRUCTURED_REPLY => {
                agreed.structured = true;
                reply(w, option, REP_ACK, &[])?;
            }
            OPT_LIST_META_CONTEXT | OPT_SET_META_CONTEXT => {
                meta_context(shared, w, option, &data, &mut agreed)?;
            }
            _ => reply(w, option, REP_ERR_UNSUP, b"option not supported by scftl")?,
        }
    }
    Err(End::Protocol(format!(
        "more than {MAX_OPTIONS} options without choosing an export"
    )))
}

/// Answers `NBD_OPT_STARTTLS`: refuses it when TLS is off, already on or
/// the request carries data; else acknowledges it and runs the TLS
/// handshake. A failed TLS handshake ends the connection.
fn start_tls<D>(
    shared: &Shared<D>,
    r: &mut BufReader<LinkHandle>,
    w: &mut LinkHandle,
    data: &[u8],
    peer: &str,
) -> Result<(), End>
where
    D: BlockDevice + Send + Sync,
{
    let Some(creds) = shared.config.tls.creds() else {
        let why = format!(
            "TLS is off on this server{}",
            crate::export::Hints::suffix(&shared.config.hints.tls)
        );
        reply(w, OPT_STARTTLS, REP_ERR_UNSUP, why.as_bytes())?;
        return Ok(());
    };
    if w.0.borrow().is_tls() {
        reply(w, OPT_STARTTLS, REP_ERR_INVALID, b"TLS is already on")?;
        return Ok(());
    }
    if !data.is_empty() {
        reply(
            w,
            OPT_STARTTLS,
            REP_ERR_INVALID,
            b"NBD_OPT_STARTTLS takes no data",
        )?;
        return Ok(());
    }
    // Plaintext the client sent ahead of our reply must not be read as if
    // it had come through TLS (see the tls module).
    if !r.buffer().is_empty() {
        return Err(End::Protocol(
            "data sent after NBD_OPT_STARTTLS before the server's reply".into(),
        ));
    }
    reply(w, OPT_STARTTLS, REP_ACK, &[])?;
    w.0.borrow_mut().start_tls(creds)?;
    let verified = w.0.borrow().has_client_certificate();
    shared.log(&format!(
        "{peer}: TLS started{}",
        if verified {
            " (client certificate verified)"
        } else {
            ""
        }
    ));
    Ok(())
}

/// Answers `NBD_OPT_LIST_META_CONTEXT` and `NBD_OPT_SET_META_CONTEXT`. The
/// one context is `base:allocation`: listed for no query, for `base:` and
/// for itself; selected by itself. Queries of other namespaces, and other
/// leaf names of `base:`, are ignored, as the protocol asks. SET replaces
/// the selection even when it fails, and needs structured replies first.
fn meta_context<D, W>(
    shared: &Shared<D>,
    w: &mut W,
    option: u32,
    data: &[u8],
    agreed: &mut Negotiated,
) -> io::Result<()>
where
    D: BlockDevice + Send + Sync,
    W: Write,
{
    let set = option == OPT_SET_META_CONTEXT;
    if set {
        agreed.allocation = false;
        if !agreed.structured {
            return reply(
                w,
                option,
                REP_ERR_INVALID,
                b"NBD_OPT_SET_META_CONTEXT needs NBD_OPT_STRUCTURED_REPLY first",
            );
        }
    }
    let Some((name, queries)) = decode_meta_request(data) else {
        return reply(
            w,
            option,
            REP_ERR_INVALID,
            b"malformed NBD_OPT_LIST_META_CONTEXT/NBD_OPT_SET_META_CONTEXT data",
        );
    };
    if name.len() > MAX_STRING_BYTES || !shared.name_matches(name) {
        let msg = format!(
            "no export named {:?}; this server exports {:?}",
            String::from_utf8_lossy(&name[..name.len().min(256)]),
            shared.config.export_name
        );
        return reply(w, option, REP_ERR_UNKNOWN, msg.as_bytes());
    }
    let exact = META_BASE_ALLOCATION.as_bytes();
    let matches = if set {
        queries.contains(&exact)
    } else {
        queries.is_empty() || queries.iter().any(|q| *q == exact || *q == b"base:")
    };
    if matches {
        // Listing reports id 0 (reserved there); selecting gives the id
        // block status replies carry.
        let id = if set { META_ALLOCATION_ID } else { 0 };
        reply(
            w,
            option,
            REP_META_CONTEXT,
            &encode_meta_context(id, META_BASE_ALLOCATION),
        )?;
        agreed.allocation = set;
    }
    reply(w, option, REP_ACK, &[])
}

/// Most options [`refuse`] answers before it closes the connection.
const MAX_REFUSED_OPTIONS: u32 = 16;

/// The handshake of a client that is turned away: every option but
/// `NBD_OPT_ABORT` gets `NBD_REP_ERR_POLICY` with `why`, which clients print,
/// until the client gives up. `NBD_OPT_EXPORT_NAME` has no error reply, so
/// it is answered by closing.
pub(crate) fn refuse<R: Read, W: Write>(r: &mut R, w: &mut W, why: &str) -> End {
    let run = |r: &mut R, w: &mut W| -> Result<End, End> {
        greet(r, w)?;
        for _ in 0..MAX_REFUSED_OPTIONS {
            let Some(h) = option_header(r)? else {
                return Ok(End::Clean("refused client closed"));
            };
            if h.length > MAX_OPTION_BYTES {
                return Err(End::Protocol(format!("{}-byte option", h.length)));
            }
            discard(r, u64::from(h.length))?;
            match h.option {
                OPT_ABORT => {
                    let _ = reply(w, h.option, REP_ACK, &[]);
                    return Ok(End::Clean("refused client aborted"));
                }
                OPT_EXPORT_NAME => {
                    return Ok(End::Clean("refused client sent NBD_OPT_EXPORT_NAME"))
                }
                _ => reply(w, h.option, REP_ERR_POLICY, why.as_bytes())?,
            }
        }
        Ok(End::Clean("refused client kept sending options"))
    };
    match run(r, w) {
        Ok(end) | Err(end) => end,
    }
}

/// Sends one option reply.
fn reply<W: Write>(w: &mut W, option: u32, reply_type: u32, payload: &[u8]) -> io::Result<()> {
    send(w, &encode_option_reply(option, reply_type, payload))
}

/// Answers NBD_OPT_INFO or NBD_OPT_GO. Returns whether the export was
/// granted (for GO: transmission starts).
fn info_or_go<D, W>(shared: &Shared<D>, w: &mut W, option: u32, data: &[u8]) -> io::Result<bool>
where
    D: BlockDevice + Send + Sync,
    W: Write,
{
    let Some((name, requests)) = decode_info_request(data) else {
        reply(
            w,
            option,
            REP_ERR_INVALID,
            b"malformed NBD_OPT_INFO/NBD_OPT_GO data",
        )?;
        return Ok(false);
    };
    if name.len() > MAX_STRING_BYTES || !shared.name_matches(name) {
        let msg = format!(
            "no export named {:?}; this server exports {:?} (the empty name also selects it)",
            String::from_utf8_lossy(&name[..name.len().min(256)]),
            shared.config.export_name
        );
        reply(w, option, REP_ERR_UNKNOWN, msg.as_bytes())?;
        return Ok(false);
    }
    let export = encode_info_export(shared.size, shared.transmission_flags());
    reply(w, option, REP_INFO, &export)?;

    // Block sizes are always sent: they tell the client what we prefer
    // even when it did not ask, which the protocol allows.
    let sizes = encode_info_block_size(
        shared.config.min_block_size,
        shared.sector_size as u32,
        shared.config.max_request_bytes,
    );
    reply(w, option, REP_INFO, &sizes)?;

    if requests.contains(&INFO_NAME) {
        let name = encode_info_string(INFO_NAME, shared.config.export_name.as_bytes());
        reply(w, option, REP_INFO, &name)?;
    }
    if requests.contains(&INFO_DESCRIPTION) && !shared.config.description.is_empty() {
        let d = shared.config.description.as_bytes();
        let description = encode_info_string(INFO_DESCRIPTION, &d[..d.len().min(MAX_STRING_BYTES)]);
        reply(w, option, REP_INFO, &description)?;
    }
    reply(w, option, REP_ACK, &[])?;
    Ok(true)
}
