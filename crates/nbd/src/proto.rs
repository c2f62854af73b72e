//! Wire constants of the NBD protocol and the encoders/decoders for the
//! handful of fixed-size messages this server exchanges.
//!
//! Everything on the wire is big-endian ("network byte order"). Encoding is
//! explicit (`to_be_bytes`), never a cast of a struct.

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

// Option reply types.
pub const REP_ACK: u32 = 1;
pub const REP_SERVER: u32 = 2;
pub const REP_INFO: u32 = 3;
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
pub const REP_ERR_POLICY: u32 = (1 << 31) + 2;
pub const REP_ERR_INVALID: u32 = (1 << 31) + 3;
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

// Command flags.
pub const CMD_FLAG_FUA: u16 = 1 << 0;
pub const CMD_FLAG_NO_HOLE: u16 = 1 << 1;

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

/// Writes a simple reply header into the first 16 bytes of `out`.
pub fn encode_simple_reply(out: &mut [u8], error: u32, handle: u64) {
    out[0..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    out[4..8].copy_from_slice(&error.to_be_bytes());
    out[8..16].copy_from_slice(&handle.to_be_bytes());
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
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
