//! The NBD wire format: every constant, and the encoder or decoder of every
//! message this server exchanges — the greeting, option headers and
//! replies, the `NBD_INFO_*` payloads, the export-name reply, request
//! headers and simple replies. The handshake and transmission code only
//! decide what to send; the bytes are laid out here.
//!
//! Everything on the wire is big-endian ("network byte order"). Encoding is
//! explicit (`to_be_bytes`), never a cast of a struct. Decoders take
//! untrusted bytes and return `None` instead of panicking.

/// `NBDMAGIC`: first eight bytes the server sends.
pub const INIT_MAGIC: u64 = 0x4e42_444d_4147_4943;
/// `IHAVEOPT`: newstyle negotiation magic, sent by the server after
/// [`INIT_MAGIC`] and by the client before each option.
pub const OPT_MAGIC: u64 = 0x4948_4156_454f_5054;
/// Magic that starts every option reply.
pub const OPT_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// Magic that starts every transmission request.
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// Magic that starts every simple reply.
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

// Handshake flags (server → client, 16 bits).
pub const FLAG_FIXED_NEWSTYLE: u16 = 1 << 0;
pub const FLAG_NO_ZEROES: u16 = 1 << 1;

// Client flags (client → server, 32 bits).
pub const CLIENT_FLAG_FIXED_NEWSTYLE: u32 = 1 << 0;
pub const CLIENT_FLAG_NO_ZEROES: u32 = 1 << 1;

// Transmission flags (16 bits).
pub const TFLAG_HAS_FLAGS: u16 = 1 << 0;
pub const TFLAG_READ_ONLY: u16 = 1 << 1;
pub const TFLAG_SEND_FLUSH: u16 = 1 << 2;
pub const TFLAG_SEND_FUA: u16 = 1 << 3;
pub const TFLAG_SEND_TRIM: u16 = 1 << 5;
pub const TFLAG_SEND_WRITE_ZEROES: u16 = 1 << 6;
pub const TFLAG_CAN_MULTI_CONN: u16 = 1 << 8;

// Options.
pub const OPT_EXPORT_NAME: u32 = 1;
pub const OPT_ABORT: u32 = 2;
pub const OPT_LIST: u32 = 3;
pub const OPT_STARTTLS: u32 = 5;
pub const OPT_INFO: u32 = 6;
pub const OPT_GO: u32 = 7;
pub const OPT_STRUCTURED_REPLY: u32 = 8;
pub const OPT_LIST_META_CONTEXT: u32 = 9;
pub const OPT_SET_META_CONTEXT: u32 = 10;

// Option reply types.
pub const REP_ACK: u32 = 1;
pub const REP_SERVER: u32 = 2;
pub const REP_INFO: u32 = 3;
pub const REP_META_CONTEXT: u32 = 4;
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
pub const REP_ERR_POLICY: u32 = (1 << 31) + 2;
pub const REP_ERR_INVALID: u32 = (1 << 31) + 3;
pub const REP_ERR_TLS_REQD: u32 = (1 << 31) + 5;
pub const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;
pub const REP_ERR_TOO_BIG: u32 = (1 << 31) + 9;

// Information types of NBD_REP_INFO.
pub const INFO_EXPORT: u16 = 0;
pub const INFO_NAME: u16 = 1;
pub const INFO_DESCRIPTION: u16 = 2;
pub const INFO_BLOCK_SIZE: u16 = 3;

// Commands.
pub const CMD_READ: u16 = 0;
pub const CMD_WRITE: u16 = 1;
pub const CMD_DISC: u16 = 2;
pub const CMD_FLUSH: u16 = 3;
pub const CMD_TRIM: u16 = 4;
pub const CMD_WRITE_ZEROES: u16 = 6;
pub const CMD_BLOCK_STATUS: u16 = 7;

// Command flags.
pub const CMD_FLAG_FUA: u16 = 1 << 0;
pub const CMD_FLAG_NO_HOLE: u16 = 1 << 1;
/// READ: reply in one content chunk (structured replies only).
pub const CMD_FLAG_DF: u16 = 1 << 2;
/// BLOCK_STATUS: exactly one extent, no longer than the request.
pub const CMD_FLAG_REQ_ONE: u16 = 1 << 3;

/// Structured replies (`NBD_OPT_STRUCTURED_REPLY`): each chunk's header is
/// magic, flags, type, handle and payload length.
pub const STRUCTURED_REPLY_MAGIC: u32 = 0x668e_33ef;
/// Length of a structured reply chunk's header.
pub const STRUCTURED_REPLY_LEN: usize = 20;
/// The chunk is the reply's last.
pub const REPLY_FLAG_DONE: u16 = 1 << 0;
/// Payload: the offset (64 bits), then the data.
pub const REPLY_TYPE_OFFSET_DATA: u16 = 1;
/// Payload: the context id, then (length, flags) descriptors, 32 bits each.
pub const REPLY_TYPE_BLOCK_STATUS: u16 = 5;
/// Payload: the error (32 bits), a message's length (16 bits), the message.
pub const REPLY_TYPE_ERROR: u16 = (1 << 15) + 1;

/// The one metadata context this server offers: which extents hold data.
pub const META_BASE_ALLOCATION: &str = "base:allocation";
/// Its context id (transient, per connection; clients treat it as opaque).
pub const META_ALLOCATION_ID: u32 = 1;
/// `base:allocation` flags: the extent is not allocated, and reads as zeros.
pub const STATE_HOLE: u32 = 1 << 0;
pub const STATE_ZERO: u32 = 1 << 1;

// Error values of simple replies.
pub const EPERM: u32 = 1;
pub const EIO: u32 = 5;
pub const ENOMEM: u32 = 12;
pub const EINVAL: u32 = 22;
pub const ENOSPC: u32 = 28;
pub const EOVERFLOW: u32 = 75;
pub const ESHUTDOWN: u32 = 108;

/// Length of a transmission request header.
pub const REQUEST_LEN: usize = 28;
/// Length of a simple reply header.
pub const SIMPLE_REPLY_LEN: usize = 16;
/// Length of an option request header (magic, option, length).
pub const OPTION_HEADER_LEN: usize = 16;

/// A decoded transmission request header (the payload of a write follows it
/// on the wire and is read separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub flags: u16,
    pub command: u16,
    pub handle: u64,
    pub offset: u64,
    pub length: u32,
}

impl Request {
    /// Decodes a header; `None` if the magic is wrong.
    pub fn decode(bytes: &[u8; REQUEST_LEN]) -> Option<Request> {
        if be_u32(&bytes[0..4]) != REQUEST_MAGIC {
            return None;
        }
        Some(Request {
            flags: be_u16(&bytes[4..6]),
            command: be_u16(&bytes[6..8]),
            handle: be_u64(&bytes[8..16]),
            offset: be_u64(&bytes[16..24]),
            length: be_u32(&bytes[24..28]),
        })
    }

    /// Encodes a header (used by tests and by clients).
    pub fn encode(&self) -> [u8; REQUEST_LEN] {
        let mut b = [0u8; REQUEST_LEN];
        b[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
        b[4..6].copy_from_slice(&self.flags.to_be_bytes());
        b[6..8].copy_from_slice(&self.command.to_be_bytes());
        b[8..16].copy_from_slice(&self.handle.to_be_bytes());
        b[16..24].copy_from_slice(&self.offset.to_be_bytes());
        b[24..28].copy_from_slice(&self.length.to_be_bytes());
        b
    }
}

/// The server's greeting: `NBDMAGIC`, `IHAVEOPT` and the handshake flags.
pub fn encode_greeting(handshake_flags: u16) -> [u8; 18] {
    let mut b = [0u8; 18];
    b[0..8].copy_from_slice(&INIT_MAGIC.to_be_bytes());
    b[8..16].copy_from_slice(&OPT_MAGIC.to_be_bytes());
    b[16..18].copy_from_slice(&handshake_flags.to_be_bytes());
    b
}

/// A decoded option request header (its payload follows on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionHeader {
    pub option: u32,
    /// Length of the payload that follows.
    pub length: u32,
}

impl OptionHeader {
    /// Decodes a header; `None` if the magic is wrong.
    pub fn decode(bytes: &[u8; OPTION_HEADER_LEN]) -> Option<OptionHeader> {
        if be_u64(&bytes[0..8]) != OPT_MAGIC {
            return None;
        }
        Some(OptionHeader {
            option: be_u32(&bytes[8..12]),
            length: be_u32(&bytes[12..16]),
        })
    }
}

/// The reply that ends a handshake by `NBD_OPT_EXPORT_NAME`: export size,
/// transmission flags, and 124 zero bytes unless the client asked for
/// none (`NBD_FLAG_C_NO_ZEROES`).
pub fn encode_export_name_reply(size: u64, transmission_flags: u16, no_zeroes: bool) -> Vec<u8> {
    let mut b = Vec::with_capacity(134);
    b.extend_from_slice(&size.to_be_bytes());
    b.extend_from_slice(&transmission_flags.to_be_bytes());
    if !no_zeroes {
        b.extend_from_slice(&[0u8; 124]);
    }
    b
}

/// Payload of an `NBD_REP_SERVER` reply to `NBD_OPT_LIST`: the export name
/// with its length in front.
pub fn encode_server_entry(name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(4 + name.len());
    // Names come from the server's configuration and are short.
    p.extend_from_slice(&(name.len() as u32).to_be_bytes());
    p.extend_from_slice(name);
    p
}

/// The data of `NBD_OPT_INFO` / `NBD_OPT_GO`: the export name and the
/// information types the client asked for. `None` if the lengths inside do
/// not add up to the data's length.
pub fn decode_info_request(data: &[u8]) -> Option<(&[u8], Vec<u16>)> {
    // Layout: u32 name length, name, u16 number of requests, u16 each.
    let name_len = be_u32(data.get(0..4)?) as usize;
    let name_end = 4usize.checked_add(name_len)?;
    let name = data.get(4..name_end)?;
    let n = be_u16(data.get(name_end..name_end + 2)?) as usize;
    let reqs_end = name_end + 2 + 2 * n;
    if reqs_end != data.len() {
        return None;
    }
    let requests = data[name_end + 2..reqs_end]
        .chunks_exact(2)
        .map(be_u16)
        .collect();
    Some((name, requests))
}

/// `NBD_INFO_EXPORT` payload: export size and transmission flags.
pub fn encode_info_export(size: u64, transmission_flags: u16) -> Vec<u8> {
    let mut p = Vec::with_capacity(12);
    p.extend_from_slice(&INFO_EXPORT.to_be_bytes());
    p.extend_from_slice(&size.to_be_bytes());
    p.extend_from_slice(&transmission_flags.to_be_bytes());
    p
}

/// `NBD_INFO_BLOCK_SIZE` payload: minimum, preferred and maximum block
/// sizes in bytes.
pub fn encode_info_block_size(minimum: u32, preferred: u32, maximum: u32) -> Vec<u8> {
    let mut p = Vec::with_capacity(14);
    p.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
    p.extend_from_slice(&minimum.to_be_bytes());
    p.extend_from_slice(&preferred.to_be_bytes());
    p.extend_from_slice(&maximum.to_be_bytes());
    p
}

/// `NBD_INFO_NAME` or `NBD_INFO_DESCRIPTION` payload: the type, then the
/// string without a length (the reply's length frames it).
pub fn encode_info_string(info_type: u16, text: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(2 + text.len());
    p.extend_from_slice(&info_type.to_be_bytes());
    p.extend_from_slice(text);
    p
}

/// Writes a simple reply header into the first 16 bytes of `out`.
pub fn encode_simple_reply(out: &mut [u8], error: u32, handle: u64) {
    out[0..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    out[4..8].copy_from_slice(&error.to_be_bytes());
    out[8..16].copy_from_slice(&handle.to_be_bytes());
}

/// Writes a structured reply chunk's header into the first 20 bytes of
/// `out`.
pub fn encode_structured_reply(
    out: &mut [u8],
    flags: u16,
    reply_type: u16,
    handle: u64,
    length: u32,
) {
    out[0..4].copy_from_slice(&STRUCTURED_REPLY_MAGIC.to_be_bytes());
    out[4..6].copy_from_slice(&flags.to_be_bytes());
    out[6..8].copy_from_slice(&reply_type.to_be_bytes());
    out[8..16].copy_from_slice(&handle.to_be_bytes());
    out[16..20].copy_from_slice(&length.to_be_bytes());
}

/// A complete structured error reply (the reply's only and last chunk):
/// the error value and a message for a human (cut to 4096 bytes, at a
/// character boundary).
pub fn encode_structured_error(error: u32, handle: u64, message: &str) -> Vec<u8> {
    let mut cut = message.len().min(4096);
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    let msg = &message.as_bytes()[..cut];
    let mut b = vec![0u8; STRUCTURED_REPLY_LEN + 6 + msg.len()];
    encode_structured_reply(
        &mut b,
        REPLY_FLAG_DONE,
        REPLY_TYPE_ERROR,
        handle,
        (6 + msg.len()) as u32,
    );
    b[20..24].copy_from_slice(&error.to_be_bytes());
    b[24..26].copy_from_slice(&(msg.len() as u16).to_be_bytes());
    b[26..].copy_from_slice(msg);
    b
}

/// The data of `NBD_OPT_LIST_META_CONTEXT` and `NBD_OPT_SET_META_CONTEXT`:
/// the export name and the queries; `None` if malformed (a length that
/// runs past the data, or bytes left over).
pub fn decode_meta_request(data: &[u8]) -> Option<(&[u8], Vec<&[u8]>)> {
    fn take<'a>(data: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
        let s = data.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(s)
    }
    let mut at = 0;
    let name_len = be_u32(take(data, &mut at, 4)?) as usize;
    let name = take(data, &mut at, name_len)?;
    let count = be_u32(take(data, &mut at, 4)?);
    let mut queries = Vec::new();
    for _ in 0..count {
        let len = be_u32(take(data, &mut at, 4)?) as usize;
        queries.push(take(data, &mut at, len)?);
    }
    (at == data.len()).then_some((name, queries))
}

/// `NBD_REP_META_CONTEXT` payload: the context id, then its name.
pub fn encode_meta_context(id: u32, name: &str) -> Vec<u8> {
    let mut p = Vec::with_capacity(4 + name.len());
    p.extend_from_slice(&id.to_be_bytes());
    p.extend_from_slice(name.as_bytes());
    p
}

/// An option reply: header plus payload, ready to send.
pub fn encode_option_reply(option: u32, reply_type: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(20 + payload.len());
    b.extend_from_slice(&OPT_REPLY_MAGIC.to_be_bytes());
    b.extend_from_slice(&option.to_be_bytes());
    b.extend_from_slice(&reply_type.to_be_bytes());
    // Payloads are built by this crate and are at most a few KiB.
    b.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    b.extend_from_slice(payload);
    b
}

pub fn be_u16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

pub fn be_u32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

pub fn be_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[0..8]);
    u64::from_be_bytes(a)
}

/// Human-readable name of a command, for logs.
pub fn command_name(command: u16) -> &'static str {
    match command {
        CMD_READ => "READ",
        CMD_WRITE => "WRITE",
        CMD_DISC => "DISC",
        CMD_FLUSH => "FLUSH",
        CMD_TRIM => "TRIM",
        CMD_WRITE_ZEROES => "WRITE_ZEROES",
        CMD_BLOCK_STATUS => "BLOCK_STATUS",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_requests_decode_and_malformed_ones_do_not() {
        let mut d = Vec::new();
        d.extend_from_slice(&3u32.to_be_bytes());
        d.extend_from_slice(b"exp");
        d.extend_from_slice(&2u32.to_be_bytes());
        for q in [&b"base:allocation"[..], b"x-other:"] {
            d.extend_from_slice(&(q.len() as u32).to_be_bytes());
            d.extend_from_slice(q);
        }
        let (name, queries) = decode_meta_request(&d).unwrap();
        assert_eq!(name, b"exp");
        assert_eq!(queries, vec![&b"base:allocation"[..], b"x-other:"]);
        // Cut anywhere, or with a byte too many: malformed.
        for cut in 0..d.len() {
            assert!(decode_meta_request(&d[..cut]).is_none(), "cut at {cut}");
        }
        d.push(0);
        assert!(decode_meta_request(&d).is_none());
        // A query count far past the data.
        let mut big = 0u32.to_be_bytes().to_vec();
        big.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(decode_meta_request(&big).is_none());
    }

    #[test]
    fn structured_errors_carry_their_message_cut_to_4096_bytes() {
        let e = encode_structured_error(EINVAL, 7, "bad");
        assert_eq!(be_u32(&e[0..4]), STRUCTURED_REPLY_MAGIC);
        assert_eq!(be_u16(&e[4..6]), REPLY_FLAG_DONE);
        assert_eq!(be_u16(&e[6..8]), REPLY_TYPE_ERROR);
        assert_eq!(be_u64(&e[8..16]), 7);
        assert_eq!(be_u32(&e[16..20]) as usize, e.len() - STRUCTURED_REPLY_LEN);
        assert_eq!(be_u32(&e[20..24]), EINVAL);
        assert_eq!(&e[26..], b"bad");
        let long = "é".repeat(3000);
        let e = encode_structured_error(EIO, 1, &long);
        let n = be_u16(&e[24..26]) as usize;
        assert!(n <= 4096 && n.is_multiple_of(2), "{n}");
        assert!(std::str::from_utf8(&e[26..]).is_ok());
    }

    #[test]
    fn magics_spell_their_ascii_names() {
        assert_eq!(&INIT_MAGIC.to_be_bytes(), b"NBDMAGIC");
        assert_eq!(&OPT_MAGIC.to_be_bytes(), b"IHAVEOPT");
    }

    #[test]
    fn request_round_trips_and_rejects_bad_magic() {
        let r = Request {
            flags: CMD_FLAG_FUA,
            command: CMD_WRITE,
            handle: 0x0102_0304_0506_0708,
            offset: 1 << 40,
            length: 4096,
        };
        let mut b = r.encode();
        assert_eq!(Request::decode(&b), Some(r));
        b[0] ^= 1;
        assert_eq!(Request::decode(&b), None);
    }

    #[test]
    fn greeting_and_export_name_reply_layout() {
        let g = encode_greeting(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
        assert_eq!(&g[0..16], b"NBDMAGICIHAVEOPT");
        assert_eq!(be_u16(&g[16..18]), 3);
        let with = encode_export_name_reply(1 << 30, TFLAG_HAS_FLAGS, false);
        assert_eq!(with.len(), 134);
        assert_eq!(be_u64(&with[0..8]), 1 << 30);
        assert_eq!(be_u16(&with[8..10]), TFLAG_HAS_FLAGS);
        assert!(with[10..].iter().all(|&b| b == 0));
        assert_eq!(encode_export_name_reply(1, 0, true).len(), 10);
    }

    #[test]
    fn option_header_decodes_and_rejects_bad_magic() {
        let mut h = [0u8; OPTION_HEADER_LEN];
        h[0..8].copy_from_slice(&OPT_MAGIC.to_be_bytes());
        h[8..12].copy_from_slice(&OPT_GO.to_be_bytes());
        h[12..16].copy_from_slice(&7u32.to_be_bytes());
        let want = OptionHeader {
            option: OPT_GO,
            length: 7,
        };
        assert_eq!(OptionHeader::decode(&h), Some(want));
        h[7] ^= 1;
        assert_eq!(OptionHeader::decode(&h), None);
    }

    #[test]
    fn info_request_decodes_and_rejects_inconsistent_lengths() {
        let mut d = 2u32.to_be_bytes().to_vec();
        d.extend_from_slice(b"ab");
        d.extend_from_slice(&2u16.to_be_bytes());
        d.extend_from_slice(&INFO_NAME.to_be_bytes());
        d.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
        let (name, requests) = decode_info_request(&d).unwrap();
        assert_eq!(name, b"ab");
        assert_eq!(requests, vec![INFO_NAME, INFO_BLOCK_SIZE]);
        for bad in [&d[..d.len() - 1], &d[..3], &[0xff; 8][..]] {
            assert_eq!(decode_info_request(bad), None);
        }
        let mut long = d.clone();
        long.push(0);
        assert_eq!(decode_info_request(&long), None);
    }

    #[test]
    fn info_payload_layouts() {
        let e = encode_info_export(4096, TFLAG_SEND_FLUSH);
        assert_eq!(e.len(), 12);
        assert_eq!(be_u16(&e[0..2]), INFO_EXPORT);
        assert_eq!(be_u64(&e[2..10]), 4096);
        assert_eq!(be_u16(&e[10..12]), TFLAG_SEND_FLUSH);
        let b = encode_info_block_size(1, 4096, 32 << 20);
        assert_eq!(b.len(), 14);
        assert_eq!(be_u16(&b[0..2]), INFO_BLOCK_SIZE);
        assert_eq!(
            [be_u32(&b[2..6]), be_u32(&b[6..10]), be_u32(&b[10..14])],
            [1, 4096, 32 << 20]
        );
        assert_eq!(encode_info_string(INFO_NAME, b"x"), vec![0, 1, b'x']);
        assert_eq!(encode_server_entry(b"xy"), vec![0, 0, 0, 2, b'x', b'y']);
    }

    #[test]
    fn option_reply_layout() {
        let b = encode_option_reply(OPT_GO, REP_ACK, &[9, 8]);
        assert_eq!(b.len(), 22);
        assert_eq!(be_u64(&b[0..8]), OPT_REPLY_MAGIC);
        assert_eq!(be_u32(&b[8..12]), OPT_GO);
        assert_eq!(be_u32(&b[12..16]), REP_ACK);
        assert_eq!(be_u32(&b[16..20]), 2);
        assert_eq!(&b[20..], &[9, 8]);
    }
}
