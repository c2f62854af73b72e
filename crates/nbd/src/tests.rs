//! Protocol tests with raw byte sequences over real TCP sockets.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use rand::{Rng, SeedableRng};

use crate::proto::*;
use crate::testdev::RamDisk;
use crate::{Listener, Server, ServerConfig};

const SS: usize = 512;

struct Running {
    server: Server<RamDisk>,
    listener: Arc<Listener>,
    addr: SocketAddr,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    fn start(dev: RamDisk, config: ServerConfig) -> Running {
        let listener = Arc::new(Listener::tcp("127.0.0.1:0").unwrap());
        let addr = listener.tcp_addr().unwrap();
        let server = Server::new(dev, config);
        let (s, l) = (server.clone(), Arc::clone(&listener));
        let thread = std::thread::spawn(move || s.serve(&l).unwrap());
        Running {
            server,
            listener,
            addr,
            thread: Some(thread),
        }
    }

    fn quiet(dev: RamDisk) -> Running {
        Running::start(dev, quiet_config())
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        // Bounds every test in time: a missing reply fails, never hangs.
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.server.shutdown(Some(&self.listener));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn quiet_config() -> ServerConfig {
    ServerConfig {
        log: false,
        log_errors: false,
        ..ServerConfig::default()
    }
}

fn read_n(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    s.read_exact(&mut b).unwrap();
    b
}

/// Reads the server greeting and sends client flags.
fn greet(s: &mut TcpStream, client_flags: u32) {
    let g = read_n(s, 18);
    assert_eq!(be_u64(&g[0..8]), INIT_MAGIC);
    assert_eq!(be_u64(&g[8..16]), OPT_MAGIC);
    assert_eq!(be_u16(&g[16..18]), FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
    s.write_all(&client_flags.to_be_bytes()).unwrap();
}

fn send_option(s: &mut TcpStream, option: u32, data: &[u8]) {
    let mut b = OPT_MAGIC.to_be_bytes().to_vec();
    b.extend_from_slice(&option.to_be_bytes());
    b.extend_from_slice(&(data.len() as u32).to_be_bytes());
    b.extend_from_slice(data);
    s.write_all(&b).unwrap();
}

/// Reads one option reply: (option, type, payload).
fn option_reply(s: &mut TcpStream) -> (u32, u32, Vec<u8>) {
    let h = read_n(s, 20);
    assert_eq!(be_u64(&h[0..8]), OPT_REPLY_MAGIC);
    let len = be_u32(&h[16..20]) as usize;
    (be_u32(&h[8..12]), be_u32(&h[12..16]), read_n(s, len))
}

fn go_data(name: &str, requests: &[u16]) -> Vec<u8> {
    let mut d = (name.len() as u32).to_be_bytes().to_vec();
    d.extend_from_slice(name.as_bytes());
    d.extend_from_slice(&(requests.len() as u16).to_be_bytes());
    for r in requests {
        d.extend_from_slice(&r.to_be_bytes());
    }
    d
}

/// Full handshake with NBD_OPT_GO; returns (size, transmission flags,
/// block sizes).
fn go(s: &mut TcpStream) -> (u64, u16, [u32; 3]) {
    greet(s, CLIENT_FLAG_FIXED_NEWSTYLE | CLIENT_FLAG_NO_ZEROES);
    go_after_greeting(s)
}

/// NBD_OPT_GO after the greeting (and any options); as [`go`].
fn go_after_greeting(s: &mut TcpStream) -> (u64, u16, [u32; 3]) {
    send_option(s, OPT_GO, &go_data("", &[INFO_BLOCK_SIZE]));
    let (mut size, mut flags, mut bs) = (0, 0, [0; 3]);
    loop {
        let (opt, ty, p) = option_reply(s);
        assert_eq!(opt, OPT_GO);
        match ty {
            REP_INFO if be_u16(&p) == INFO_EXPORT => {
                size = be_u64(&p[2..10]);
                flags = be_u16(&p[10..12]);
            }
            REP_INFO if be_u16(&p) == INFO_BLOCK_SIZE => {
                bs = [be_u32(&p[2..6]), be_u32(&p[6..10]), be_u32(&p[10..14])];
            }
            REP_INFO => {}
            REP_ACK => return (size, flags, bs),
            other => panic!("unexpected reply type {other:#x}"),
        }
    }
}

fn request(s: &mut TcpStream, command: u16, flags: u16, handle: u64, offset: u64, length: u32) {
    let r = Request {
        flags,
        command,
        handle,
        offset,
        length,
    };
    s.write_all(&r.encode()).unwrap();
}

/// Reads a simple reply header: (error, handle).
fn simple_reply(s: &mut TcpStream) -> (u32, u64) {
    let h = read_n(s, 16);
    assert_eq!(be_u32(&h[0..4]), SIMPLE_REPLY_MAGIC);
    (be_u32(&h[4..8]), be_u64(&h[8..16]))
}

fn write(s: &mut TcpStream, offset: u64, data: &[u8], flags: u16) -> u32 {
    request(s, CMD_WRITE, flags, 7, offset, data.len() as u32);
    s.write_all(data).unwrap();
    let (err, h) = simple_reply(s);
    assert_eq!(h, 7);
    err
}

fn read(s: &mut TcpStream, offset: u64, len: u32) -> Result<Vec<u8>, u32> {
    request(s, CMD_READ, 0, 9, offset, len);
    let (err, h) = simple_reply(s);
    assert_eq!(h, 9);
    if err != 0 {
        return Err(err);
    }
    Ok(read_n(s, len as usize))
}

fn command(s: &mut TcpStream, cmd: u16, flags: u16, offset: u64, len: u32) -> u32 {
    request(s, cmd, flags, 11, offset, len);
    let (err, h) = simple_reply(s);
    assert_eq!(h, 11);
    err
}

/// True if the server closed the connection (EOF or reset).
fn closed(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0) | Err(_))
}

#[test]
fn go_reports_size_flags_and_block_sizes() {
    let r = Running::quiet(RamDisk::new(SS, 64, None));
    let mut s = r.connect();
    let (size, flags, bs) = go(&mut s);
    assert_eq!(size, 64 * SS as u64);
    for f in [
        TFLAG_HAS_FLAGS,
        TFLAG_SEND_FLUSH,
        TFLAG_SEND_FUA,
        TFLAG_SEND_TRIM,
        TFLAG_SEND_WRITE_ZEROES,
    ] {
        assert_ne!(flags & f, 0, "flag {f:#x} missing from {flags:#x}");
    }
    assert_eq!(flags & TFLAG_READ_ONLY, 0);
    assert_eq!(bs, [1, SS as u32, 32 << 20]);
    assert_eq!(write(&mut s, 0, &[0xab; 2048], 0), 0);
    assert_eq!(read(&mut s, 0, 2048).unwrap(), vec![0xab; 2048]);
    request(&mut s, CMD_DISC, 0, 1, 0, 0);
    assert!(closed(&mut s));
}

#[test]
fn export_name_handshake_with_and_without_zero_padding() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    for (flags, tail) in [(CLIENT_FLAG_FIXED_NEWSTYLE, 124), (3, 0)] {
        let mut s = r.connect();
        greet(&mut s, flags);
        send_option(&mut s, OPT_EXPORT_NAME, b"scftl");
        let b = read_n(&mut s, 10 + tail);
        assert_eq!(be_u64(&b[0..8]), 8 * SS as u64);
        assert!(b[10..].iter().all(|&x| x == 0));
        assert_eq!(write(&mut s, 512, &[1; 512], 0), 0);
        assert_eq!(read(&mut s, 512, 512).unwrap(), vec![1; 512]);
    }
    // An unknown export name ends the session (the protocol has no error
    // reply for NBD_OPT_EXPORT_NAME).
    let mut s = r.connect();
    greet(&mut s, 1);
    send_option(&mut s, OPT_EXPORT_NAME, b"nope");
    assert!(closed(&mut s));
}

#[test]
fn options_list_info_unsupported_and_abort() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    let mut s = r.connect();
    greet(&mut s, 1);
    send_option(&mut s, OPT_LIST, &[]);
    let (_, ty, p) = option_reply(&mut s);
    assert_eq!(ty, REP_SERVER);
    assert_eq!(&p[4..], b"scftl");
    assert_eq!(option_reply(&mut s).1, REP_ACK);
    send_option(&mut s, OPT_LIST, &[1]);
    assert_eq!(option_reply(&mut s).1, REP_ERR_INVALID);
    for opt in [OPT_STARTTLS, 11, 999] {
        send_option(&mut s, opt, &[]);
        let (o, ty, msg) = option_reply(&mut s);
        assert_eq!((o, ty), (opt, REP_ERR_UNSUP));
        assert!(!msg.is_empty());
    }
    send_option(&mut s, OPT_INFO, &go_data("other", &[]));
    assert_eq!(option_reply(&mut s).1, REP_ERR_UNKNOWN);
    // Name length pointing past the data.
    send_option(&mut s, OPT_INFO, &[0, 0, 0, 200, b'a']);
    assert_eq!(option_reply(&mut s).1, REP_ERR_INVALID);
    // Request count not matching the data.
    let mut bad = go_data("", &[1]);
    bad.push(0);
    send_option(&mut s, OPT_GO, &bad);
    assert_eq!(option_reply(&mut s).1, REP_ERR_INVALID);
    // Oversized option data is skipped and refused.
    send_option(&mut s, OPT_INFO, &vec![0u8; 70_000]);
    assert_eq!(option_reply(&mut s).1, REP_ERR_TOO_BIG);
    // INFO succeeds and does not end negotiation.
    send_option(&mut s, OPT_INFO, &go_data("scftl", &[INFO_NAME]));
    let mut types = Vec::new();
    loop {
        let (_, ty, p) = option_reply(&mut s);
        if ty == REP_ACK {
            break;
        }
        types.push(be_u16(&p));
    }
    assert_eq!(types, vec![INFO_EXPORT, INFO_BLOCK_SIZE, INFO_NAME]);
    send_option(&mut s, OPT_ABORT, &[]);
    assert_eq!(option_reply(&mut s).1, REP_ACK);
    assert!(closed(&mut s));
}

/// `NBD_OPT_LIST_META_CONTEXT`/`NBD_OPT_SET_META_CONTEXT` data.
fn meta_data(name: &str, queries: &[&str]) -> Vec<u8> {
    let mut d = (name.len() as u32).to_be_bytes().to_vec();
    d.extend_from_slice(name.as_bytes());
    d.extend_from_slice(&(queries.len() as u32).to_be_bytes());
    for q in queries {
        d.extend_from_slice(&(q.len() as u32).to_be_bytes());
        d.extend_from_slice(q.as_bytes());
    }
    d
}

/// The replies to a metadata context option: the contexts (id, name) it
/// named, and the final reply type.
fn meta_replies(s: &mut TcpStream, option: u32) -> (Vec<(u32, String)>, u32) {
    let mut found = Vec::new();
    loop {
        let (o, ty, p) = option_reply(s);
        assert_eq!(o, option);
        if ty != REP_META_CONTEXT {
            return (found, ty);
        }
        found.push((be_u32(&p), String::from_utf8(p[4..].to_vec()).unwrap()));
    }
}

/// Reads one structured reply chunk: (flags, type, handle, payload).
fn chunk(s: &mut TcpStream) -> (u16, u16, u64, Vec<u8>) {
    let h = read_n(s, STRUCTURED_REPLY_LEN);
    assert_eq!(be_u32(&h[0..4]), STRUCTURED_REPLY_MAGIC);
    let len = be_u32(&h[16..20]) as usize;
    (
        be_u16(&h[4..6]),
        be_u16(&h[6..8]),
        be_u64(&h[8..16]),
        read_n(s, len),
    )
}

/// A structured error chunk's (error, message).
fn chunk_error(p: &[u8]) -> (u32, String) {
    let n = be_u16(&p[4..6]) as usize;
    (
        be_u32(&p[0..4]),
        String::from_utf8(p[6..6 + n].to_vec()).unwrap(),
    )
}

/// BLOCK_STATUS's one chunk: the context id and the (length, flags)
/// descriptors.
fn block_status(s: &mut TcpStream, flags: u16, offset: u64, len: u32) -> (u32, Vec<(u32, u32)>) {
    request(s, CMD_BLOCK_STATUS, flags, 21, offset, len);
    let (f, ty, h, p) = chunk(s);
    assert_eq!((f, ty, h), (REPLY_FLAG_DONE, REPLY_TYPE_BLOCK_STATUS, 21));
    let d = p[4..]
        .chunks_exact(8)
        .map(|c| (be_u32(&c[..4]), be_u32(&c[4..])))
        .collect();
    (be_u32(&p), d)
}

#[test]
fn structured_replies_and_base_allocation_block_status() {
    let r = Running::quiet(RamDisk::new(SS, 16, None));
    let mut s = r.connect();
    greet(&mut s, CLIENT_FLAG_FIXED_NEWSTYLE | CLIENT_FLAG_NO_ZEROES);
    // Selecting a context needs structured replies first.
    send_option(
        &mut s,
        OPT_SET_META_CONTEXT,
        &meta_data("", &["base:allocation"]),
    );
    assert_eq!(option_reply(&mut s).1, REP_ERR_INVALID);
    send_option(&mut s, OPT_STRUCTURED_REPLY, &[1]);
    assert_eq!(option_reply(&mut s).1, REP_ERR_INVALID);
    send_option(&mut s, OPT_STRUCTURED_REPLY, &[]);
    assert_eq!(option_reply(&mut s).1, REP_ACK);
    // Listing: everything for no query and for `base:`, nothing for other
    // namespaces; the id is reserved (0) there.
    let all = vec![(0, META_BASE_ALLOCATION.to_string())];
    for (queries, want) in [
        (&[][..], all.clone()),
        (&["base:"][..], all.clone()),
        (&["x-other:", "base:nothing"][..], vec![]),
    ] {
        send_option(&mut s, OPT_LIST_META_CONTEXT, &meta_data("scftl", queries));
        assert_eq!(meta_replies(&mut s, OPT_LIST_META_CONTEXT), (want, REP_ACK));
    }
    // Another export's contexts, malformed data: errors (a failed SET
    // selects nothing).
    send_option(
        &mut s,
        OPT_SET_META_CONTEXT,
        &meta_data("other", &["base:allocation"]),
    );
    assert_eq!(option_reply(&mut s).1, REP_ERR_UNKNOWN);
    send_option(&mut s, OPT_SET_META_CONTEXT, &[0, 0, 0, 9, 1]);
    assert_eq!(option_reply(&mut s).1, REP_ERR_INVALID);
    send_option(
        &mut s,
        OPT_SET_META_CONTEXT,
        &meta_data("", &["x-other:", "base:allocation"]),
    );
    assert_eq!(
        meta_replies(&mut s, OPT_SET_META_CONTEXT),
        (
            vec![(META_ALLOCATION_ID, META_BASE_ALLOCATION.to_string())],
            REP_ACK
        )
    );
    go_after_greeting(&mut s);

    // Sectors 2 and 3 written, 8 written with zeros (reads as zeros: a
    // hole on this device), the rest never.
    assert_eq!(write(&mut s, 2 * SS as u64, &[7u8; 2 * SS], 0), 0);
    let dev_len = 16 * SS as u32;
    let (id, d) = block_status(&mut s, 0, 0, dev_len);
    assert_eq!(id, META_ALLOCATION_ID);
    let hole = STATE_HOLE | STATE_ZERO;
    let ss = SS as u32;
    assert_eq!(d, vec![(2 * ss, hole), (2 * ss, 0), (12 * ss, hole)]);
    // Unaligned, within one run; and one extent only.
    assert_eq!(
        block_status(&mut s, 0, 2 * SS as u64 + 1, 10).1,
        vec![(10, 0)]
    );
    assert_eq!(
        block_status(&mut s, CMD_FLAG_REQ_ONE, SS as u64, dev_len - ss).1,
        vec![(ss, hole)]
    );
    // A READ: one data chunk with its offset.
    request(&mut s, CMD_READ, CMD_FLAG_DF, 5, 2 * SS as u64 + 3, 100);
    let (f, ty, h, p) = chunk(&mut s);
    assert_eq!((f, ty, h), (REPLY_FLAG_DONE, REPLY_TYPE_OFFSET_DATA, 5));
    assert_eq!(be_u64(&p), 2 * SS as u64 + 3);
    assert_eq!(&p[8..], &[7u8; 100][..]);
    // Errors are structured, with the message the log gets: a READ past
    // the end, a status past the end, an unknown flag.
    for (cmd, flags, off) in [
        (CMD_READ, 0, u64::from(dev_len)),
        (CMD_BLOCK_STATUS, 0, u64::from(dev_len)),
        (CMD_READ, CMD_FLAG_REQ_ONE, 0),
    ] {
        request(&mut s, cmd, flags, 6, off, 512);
        let (f, ty, h, p) = chunk(&mut s);
        assert_eq!((f, ty, h), (REPLY_FLAG_DONE, REPLY_TYPE_ERROR, 6));
        let (e, msg) = chunk_error(&p);
        assert_eq!(e, EINVAL, "{msg}");
        assert!(!msg.is_empty(), "{cmd} {flags:#x}");
    }
    // Replies without payload stay simple.
    assert_eq!(command(&mut s, CMD_FLUSH, 0, 0, 0), 0);
    // And the data is what a simple client reads.
    let mut c = r.connect();
    go(&mut c);
    assert_eq!(
        read(&mut c, 2 * SS as u64, SS as u32).unwrap(),
        vec![7u8; SS]
    );
    // Without a selected context, BLOCK_STATUS is refused.
    assert_eq!(command(&mut c, CMD_BLOCK_STATUS, 0, 0, 512), EINVAL);
}

#[test]
fn unknown_client_flags_and_bad_option_magic_close_only_that_connection() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    let mut good = r.connect();
    go(&mut good);
    assert_eq!(write(&mut good, 0, &[5; 512], 0), 0);

    let mut s = r.connect();
    greet(&mut s, 1 << 7);
    assert!(closed(&mut s));

    let mut s = r.connect();
    greet(&mut s, 1);
    s.write_all(b"NOTMAGIC\0\0\0\x07\0\0\0\0").unwrap();
    assert!(closed(&mut s));

    assert_eq!(read(&mut good, 0, 512).unwrap(), vec![5; 512]);
}

#[test]
fn request_errors_follow_the_protocol_and_keep_the_connection() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    let mut s = r.connect();
    let (size, _, _) = go(&mut s);
    assert_eq!(write(&mut s, 0, &[3; 512], 0), 0);
    // Out of range: ENOSPC for writes, EINVAL for reads and trims.
    assert_eq!(write(&mut s, size - 100, &[1; 512], 0), ENOSPC);
    assert_eq!(read(&mut s, size, 1), Err(EINVAL));
    assert_eq!(read(&mut s, u64::MAX, 512), Err(EINVAL));
    assert_eq!(command(&mut s, CMD_TRIM, 0, size - 1, 2), EINVAL);
    assert_eq!(
        command(&mut s, CMD_WRITE_ZEROES, 0, u64::MAX - 1, 4),
        ENOSPC
    );
    // Unknown command and unknown flags.
    assert_eq!(command(&mut s, 42, 0, 0, 0), EINVAL);
    assert_eq!(command(&mut s, CMD_READ, 1 << 9, 0, 512), EINVAL);
    assert_eq!(command(&mut s, CMD_TRIM, CMD_FLAG_NO_HOLE, 0, 512), EINVAL);
    // Zero-length and oversized requests.
    assert_eq!(read(&mut s, 0, 0), Err(EINVAL));
    assert_eq!(read(&mut s, 0, (32 << 20) + 1), Err(EINVAL));
    // An oversized write's payload is consumed, then refused.
    let big = vec![0xee; (32 << 20) + 512];
    assert_eq!(write(&mut s, 0, &big, 0), EINVAL);
    // Nothing above changed the data, and the connection still works.
    assert_eq!(read(&mut s, 0, 512).unwrap(), vec![3; 512]);
    assert_eq!(r.server.with_device(|d| d.writes), 1);
}

#[test]
fn bad_request_magic_closes_and_truncated_write_changes_nothing() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    let mut other = r.connect();
    go(&mut other);
    assert_eq!(write(&mut other, 0, &[4; 1024], 0), 0);

    let mut s = r.connect();
    go(&mut s);
    let mut req = Request {
        flags: 0,
        command: CMD_WRITE,
        handle: 1,
        offset: 0,
        length: 512,
    }
    .encode();
    req[3] ^= 0xff;
    s.write_all(&req).unwrap();
    assert!(closed(&mut s));

    // A client that vanishes in the middle of a write payload.
    let mut s = r.connect();
    go(&mut s);
    request(&mut s, CMD_WRITE, 0, 1, 0, 1024);
    s.write_all(&[9; 700]).unwrap();
    drop(s);
    // A client that vanishes in the middle of a request header.
    let mut s = r.connect();
    go(&mut s);
    s.write_all(&req[..13]).unwrap();
    drop(s);

    // The other client still works and sees its data untouched.
    assert_eq!(read(&mut other, 0, 1024).unwrap(), vec![4; 1024]);
    assert_eq!(command(&mut other, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(r.server.with_device(|d| d.writes), 1);
}

#[test]
fn read_only_export_refuses_changes_with_eperm() {
    let cfg = ServerConfig {
        read_only: true,
        ..quiet_config()
    };
    let r = Running::start(RamDisk::new(SS, 8, None), cfg);
    let mut s = r.connect();
    let (_, flags, _) = go(&mut s);
    assert_ne!(flags & TFLAG_READ_ONLY, 0);
    assert_eq!(write(&mut s, 0, &[1; 512], 0), EPERM);
    assert_eq!(command(&mut s, CMD_TRIM, 0, 0, 512), EPERM);
    assert_eq!(command(&mut s, CMD_WRITE_ZEROES, 0, 0, 512), EPERM);
    assert_eq!(read(&mut s, 0, 512).unwrap(), vec![0; 512]);
    assert_eq!(command(&mut s, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(r.server.with_device(|d| d.writes), 0);
}

#[test]
fn writes_larger_than_an_epoch_are_split_and_fua_is_durable() {
    // An epoch of 4 sectors; a 10-sector write needs three pieces.
    let r = Running::quiet(RamDisk::new(SS, 64, Some(4)));
    let mut s = r.connect();
    go(&mut s);
    let data: Vec<u8> = (0..10 * SS).map(|i| (i / SS) as u8 + 1).collect();
    assert_eq!(write(&mut s, 0, &data, 0), 0);
    assert!(
        r.server.epoch_flushes() >= 2,
        "{}",
        r.server.epoch_flushes()
    );
    assert_eq!(read(&mut s, 0, data.len() as u32).unwrap(), data);
    // A trim of the whole device is far more than one epoch too.
    assert_eq!(command(&mut s, CMD_TRIM, 0, 0, 64 * SS as u32), 0);
    assert_eq!(read(&mut s, 0, 4096).unwrap(), vec![0; 4096]);
    // FUA: the write is in the durable copy when the reply arrives.
    assert_eq!(write(&mut s, 1024, &[0x5a; 512], CMD_FLAG_FUA), 0);
    let durable = r.server.with_device(|d| d.durable[1024..1536].to_vec());
    assert_eq!(durable, vec![0x5a; 512]);
    // Unaligned write through the protocol.
    assert_eq!(write(&mut s, 1000, &[0x77; 100], 0), 0);
    let back = read(&mut s, 990, 120).unwrap();
    assert_eq!(&back[..10], &[0; 10]);
    assert_eq!(&back[10..110], &[0x77; 100]);
    assert_eq!(&back[110..], &[0x5a; 10]);
}

#[test]
fn several_clients_interleave_safely() {
    let r = Running::quiet(RamDisk::new(SS, 256, Some(16)));
    let threads: Vec<_> = (0..4u8)
        .map(|c| {
            let mut s = r.connect();
            std::thread::spawn(move || {
                go(&mut s);
                let base = u64::from(c) * 64 * SS as u64;
                for i in 0..32u64 {
                    let buf = vec![c * 50 + i as u8; SS * 2];
                    assert_eq!(write(&mut s, base + i * 2 * SS as u64, &buf, 0), 0);
                    if i % 8 == 7 {
                        assert_eq!(command(&mut s, CMD_FLUSH, 0, 0, 0), 0);
                    }
                }
                for i in 0..32u64 {
                    let got = read(&mut s, base + i * 2 * SS as u64, 2 * SS as u32).unwrap();
                    assert!(got.iter().all(|&b| b == c * 50 + i as u8));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn each_flush_is_issued_under_its_connections_origin() {
    let r = Running::quiet(RamDisk::new(SS, 64, None));
    // Connections are numbered from 1 in the order they were accepted.
    let (mut s1, mut s2) = (r.connect(), r.connect());
    go(&mut s1);
    go(&mut s2);
    let sector = vec![7u8; SS];
    assert_eq!(write(&mut s1, 0, &sector, 0), 0);
    assert_eq!(write(&mut s2, SS as u64, &sector, 0), 0);
    // The last change came from 2; this flush is 1's.
    assert_eq!(command(&mut s1, CMD_FLUSH, 0, 0, 0), 0);
    // Covered by 1's flush: answered without one.
    assert_eq!(command(&mut s2, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(write(&mut s1, 2 * SS as u64, &sector, 0), 0);
    assert_eq!(command(&mut s2, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(read(&mut s2, 0, 3 * SS as u32).unwrap(), vec![7u8; 3 * SS]);
    let origins = r.server.with_device(|d| d.flush_origins.clone());
    assert_eq!(origins, vec![1, 2]);
}

#[test]
fn random_garbage_never_panics_or_damages_the_device() {
    let r = Running::quiet(RamDisk::new(SS, 16, Some(8)));
    let mut good = r.connect();
    go(&mut good);
    assert_eq!(write(&mut good, 0, &[0x42; 4096], 0), 0);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5eed);
    for round in 0..60 {
        let mut s = r.connect();
        let junk: Vec<u8> = (0..rng.gen_range(1..400)).map(|_| rng.gen()).collect();
        match round % 3 {
            // Garbage as client flags / options.
            0 => {
                let _ = read_n(&mut s, 18);
                let _ = s.write_all(&junk);
            }
            // Valid option header, garbage option body.
            1 => {
                greet(&mut s, 1);
                let mut b = OPT_MAGIC.to_be_bytes().to_vec();
                b.extend_from_slice(&rng.gen_range(0u32..16).to_be_bytes());
                b.extend_from_slice(&(junk.len() as u32).to_be_bytes());
                b.extend_from_slice(&junk);
                let _ = s.write_all(&b);
            }
            // Garbage in the transmission phase.
            _ => {
                go(&mut s);
                let _ = s.write_all(&junk);
            }
        }
        drop(s);
    }
    // The device holds what the good client wrote (garbage never carried a
    // valid request magic, so nothing else was written).
    assert_eq!(read(&mut good, 0, 4096).unwrap(), vec![0x42; 4096]);
    assert_eq!(r.server.with_device(|d| d.writes), 1);
}

#[test]
fn shutdown_flushes_and_then_refuses_requests() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    let mut s = r.connect();
    go(&mut s);
    assert_eq!(write(&mut s, 0, &[8; 512], 0), 0);
    r.server.shutdown(Some(&r.listener)).unwrap();
    assert_eq!(
        r.server.with_device(|d| d.durable[..512].to_vec()),
        vec![8; 512]
    );
    assert_eq!(write(&mut s, 0, &[9; 512], 0), ESHUTDOWN);
    assert_eq!(r.server.with_device(|d| d.data[0]), 8);
}

fn limited(max_clients: usize, handshake_ms: u64, idle_ms: Option<u64>) -> ServerConfig {
    ServerConfig {
        max_clients,
        handshake_timeout: Some(Duration::from_millis(handshake_ms)),
        idle_timeout: idle_ms.map(Duration::from_millis),
        // Slot tests see the slots alone (reclaim_idle_hands_an_idle_slot_on
        // tests reclaiming).
        reclaim_idle: None,
        hints: crate::export::Hints {
            max_clients: "--max-clients".into(),
            tls: String::new(),
            max_per_address: "--per-address".into(),
        },
        ..quiet_config()
    }
}

/// Whether the server closed `s` (EOF, or a reset) within `within`.
fn closed_by_server(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let mut b = [0u8; 64];
    loop {
        match s.read(&mut b) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

#[test]
fn idle_connections_cannot_lock_clients_out() {
    let r = Running::start(RamDisk::new(SS, 8, None), limited(4, 400, None));
    // Four connections that never say anything hold every slot...
    let mut idle: Vec<TcpStream> = (0..4).map(|_| r.connect()).collect();
    let t0 = std::time::Instant::now();
    // ...yet a real client queued behind them gets in once the handshake
    // timeout has closed them.
    let mut s = r.connect();
    go(&mut s);
    let waited = t0.elapsed();
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
    assert_eq!(write(&mut s, 0, &[5; 512], 0), 0);
    for c in &mut idle {
        assert!(closed_by_server(c, Duration::from_secs(5)));
    }
    // A slot is given back just after its socket is closed.
    let t = std::time::Instant::now();
    while r.server.clients() != 1 && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(r.server.clients(), 1);
}

#[test]
fn a_slow_handshake_is_cut_at_the_deadline_not_per_byte() {
    let r = Running::start(RamDisk::new(SS, 8, None), limited(4, 500, None));
    let mut s = r.connect();
    greet(&mut s, 1);
    // One byte of an option every 100 ms never finishes within 500 ms.
    let t0 = std::time::Instant::now();
    for b in OPT_MAGIC.to_be_bytes() {
        if s.write_all(&[b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(closed_by_server(&mut s, Duration::from_secs(5)));
    assert!(t0.elapsed() < Duration::from_secs(3));
}

/// Connects, asks for the export with NBD_OPT_GO and expects a refusal
/// (`NBD_REP_ERR_POLICY`); returns the connection and the message.
fn go_refused(r: &Running) -> (TcpStream, String) {
    let mut s = r.connect();
    greet(&mut s, 1);
    send_option(&mut s, OPT_GO, &go_data("", &[]));
    let (opt, ty, msg) = option_reply(&mut s);
    assert_eq!((opt, ty), (OPT_GO, REP_ERR_POLICY));
    (s, String::from_utf8(msg).unwrap())
}

#[test]
fn a_client_over_max_clients_gets_a_printable_error() {
    let r = Running::start(RamDisk::new(SS, 8, None), limited(1, 300, None));
    let mut first = r.connect();
    go(&mut first);
    let (mut s, msg) = go_refused(&r);
    assert!(
        msg.contains("server busy") && msg.contains("--max-clients"),
        "{msg}"
    );
    send_option(&mut s, OPT_ABORT, &[]);
    assert_eq!(option_reply(&mut s).1, REP_ACK);
    // The established client was not disturbed.
    assert_eq!(write(&mut first, 0, &[6; 512], 0), 0);
}

#[test]
fn reclaim_idle_hands_an_idle_slot_on_and_spares_a_busy_one() {
    let cfg = ServerConfig {
        reclaim_idle: Some(Duration::from_millis(300)),
        ..limited(2, 5000, None)
    };
    let r = Running::start(RamDisk::new(SS, 8, None), cfg);
    // Two established clients hold both slots; the first goes quiet, the
    // second keeps sending requests.
    let mut quiet = r.connect();
    go(&mut quiet);
    assert_eq!(write(&mut quiet, 0, &[3; 512], 0), 0);
    let mut busy = r.connect();
    go(&mut busy);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let worker = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                assert_eq!(write(&mut busy, 512, &[4; 512], 0), 0);
                std::thread::sleep(Duration::from_millis(20));
            }
            busy
        })
    };
    // A third client waits for a slot: the quiet one is closed for it
    // (after it has been idle 300 ms), never the busy one.
    let t0 = std::time::Instant::now();
    let mut third = r.connect();
    go(&mut third);
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    assert!(closed_by_server(&mut quiet, Duration::from_secs(5)));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut busy = worker.join().unwrap();
    assert_eq!(read(&mut busy, 0, 512).unwrap(), vec![3; 512]);
    assert_eq!(read(&mut third, 512, 512).unwrap(), vec![4; 512]);
}

#[test]
fn one_address_is_held_to_its_share_with_a_printable_error() {
    let cfg = ServerConfig {
        max_per_address: 1,
        per_address_loopback: true,
        reclaim_idle: None,
        ..limited(4, 5000, None)
    };
    let r = Running::start(RamDisk::new(SS, 8, None), cfg);
    let mut first = r.connect();
    go(&mut first);
    let (_s, msg) = go_refused(&r);
    assert!(
        msg.contains("too many connections from 127.0.0.1") && msg.contains("--per-address"),
        "{msg}"
    );
    // Once the first leaves, the address may connect again.
    drop(first);
    let t = std::time::Instant::now();
    loop {
        let mut again = r.connect();
        greet(&mut again, 1);
        send_option(&mut again, OPT_GO, &go_data("", &[]));
        if option_reply(&mut again).1 != REP_ERR_POLICY {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "still refused");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn idle_timeout_closes_a_silent_established_client() {
    let r = Running::start(RamDisk::new(SS, 8, None), limited(2, 5000, Some(300)));
    let mut s = r.connect();
    go(&mut s);
    assert_eq!(write(&mut s, 0, &[7; 512], 0), 0);
    assert!(closed_by_server(&mut s, Duration::from_secs(5)));
    // Its slot is free again.
    let mut t = r.connect();
    go(&mut t);
    assert_eq!(read(&mut t, 0, 512).unwrap(), vec![7; 512]);
}

#[test]
fn a_polling_reader_answers_after_long_gaps_and_keeps_the_idle_timeout() {
    // Polls of 20 ms, gaps of 80 ms: every request after a gap is read by
    // a reader that gave up polling and blocked; the idle timeout still
    // closes the connection afterwards.
    let cfg = ServerConfig {
        poll: Some(Duration::from_millis(20)),
        ..limited(2, 5000, Some(400))
    };
    let r = Running::start(RamDisk::new(SS, 8, None), cfg);
    let mut s = r.connect();
    go(&mut s);
    for i in 0..3u8 {
        assert_eq!(write(&mut s, u64::from(i) * 512, &[i + 1; 512], 0), 0);
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(
            read(&mut s, u64::from(i) * 512, 512).unwrap(),
            vec![i + 1; 512]
        );
    }
    assert!(closed_by_server(&mut s, Duration::from_secs(5)));
    // With polling off, the same exchange works.
    let cfg = ServerConfig {
        poll: None,
        ..quiet_config()
    };
    let r = Running::start(RamDisk::new(SS, 8, None), cfg);
    let mut s = r.connect();
    go(&mut s);
    assert_eq!(write(&mut s, 0, &[9; 512], 0), 0);
    assert_eq!(read(&mut s, 0, 512).unwrap(), vec![9; 512]);
}

/// A throwaway CA-less self-signed certificate for "localhost", written to
/// `dir`; returns the credentials and the certificate (DER) to trust.
fn test_creds(dir: &std::path::Path) -> (crate::TlsCreds, Vec<u8>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".into()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let (c, k) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&c, cert.pem()).unwrap();
    std::fs::write(&k, key.serialize_pem()).unwrap();
    (
        crate::TlsCreds::from_pem_files(&c, &k, None).unwrap(),
        cert.der().to_vec(),
    )
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nbd-tls-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn tls_require_refuses_everything_but_starttls_and_abort() {
    let dir = temp_dir("require");
    let (creds, _) = test_creds(&dir);
    let config = ServerConfig {
        tls: crate::Tls::Require(creds),
        ..quiet_config()
    };
    let r = Running::start(RamDisk::new(SS, 8, None), config);
    let mut s = r.connect();
    greet(&mut s, 1);
    for opt in [OPT_LIST, OPT_INFO, OPT_GO, OPT_STRUCTURED_REPLY] {
        send_option(&mut s, opt, &go_data("", &[]));
        let (o, ty, msg) = option_reply(&mut s);
        assert_eq!((o, ty), (opt, REP_ERR_TLS_REQD));
        assert!(String::from_utf8_lossy(&msg).contains("requires TLS"));
    }
    send_option(&mut s, OPT_ABORT, &[]);
    assert_eq!(option_reply(&mut s).1, REP_ACK);
    // NBD_OPT_EXPORT_NAME has no error reply: the server closes.
    let mut s = r.connect();
    greet(&mut s, 1);
    send_option(&mut s, OPT_EXPORT_NAME, b"");
    assert!(closed_by_server(&mut s, Duration::from_secs(5)));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn starttls_then_go_serves_data_over_tls() {
    let dir = temp_dir("go");
    let (creds, der) = test_creds(&dir);
    let config = ServerConfig {
        tls: crate::Tls::Require(creds),
        ..quiet_config()
    };
    let r = Running::start(RamDisk::new(SS, 8, None), config);
    let mut s = r.connect();
    greet(&mut s, 1);
    send_option(&mut s, OPT_STARTTLS, &[]);
    assert_eq!(option_reply(&mut s), (OPT_STARTTLS, REP_ACK, vec![]));

    let mut roots = rustls::RootCertStore::empty();
    roots.add(der.into()).unwrap();
    let client = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let conn =
        rustls::ClientConnection::new(Arc::new(client), "localhost".try_into().unwrap()).unwrap();
    let mut t = rustls::StreamOwned::new(conn, s);
    // GO over TLS, then a write and a read back.
    let mut opt = OPT_MAGIC.to_be_bytes().to_vec();
    let data = go_data("", &[]);
    opt.extend_from_slice(&OPT_GO.to_be_bytes());
    opt.extend_from_slice(&(data.len() as u32).to_be_bytes());
    opt.extend_from_slice(&data);
    t.write_all(&opt).unwrap();
    loop {
        let mut h = [0u8; 20];
        t.read_exact(&mut h).unwrap();
        let mut p = vec![0u8; be_u32(&h[16..20]) as usize];
        t.read_exact(&mut p).unwrap();
        match be_u32(&h[12..16]) {
            REP_ACK => break,
            REP_INFO => {}
            other => panic!("reply {other:#x}"),
        }
    }
    let req = |command, handle, length| {
        Request {
            flags: 0,
            command,
            handle,
            offset: 0,
            length,
        }
        .encode()
    };
    t.write_all(&req(CMD_WRITE, 1, 512)).unwrap();
    t.write_all(&[0x5a; 512]).unwrap();
    let mut rep = [0u8; SIMPLE_REPLY_LEN];
    t.read_exact(&mut rep).unwrap();
    assert_eq!(be_u32(&rep[4..8]), 0);
    t.write_all(&req(CMD_READ, 2, 512)).unwrap();
    t.read_exact(&mut rep).unwrap();
    assert_eq!(be_u32(&rep[4..8]), 0);
    let mut back = vec![0u8; 512];
    t.read_exact(&mut back).unwrap();
    assert_eq!(back, vec![0x5a; 512]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plaintext_sent_behind_starttls_is_never_read_as_tls() {
    let dir = temp_dir("inject");
    let (creds, _) = test_creds(&dir);
    let config = ServerConfig {
        tls: crate::Tls::Require(creds),
        ..quiet_config()
    };
    let r = Running::start(RamDisk::new(SS, 8, None), config);
    let mut s = r.connect();
    greet(&mut s, 1);
    // STARTTLS and, in the same segment, a plaintext GO an attacker on the
    // path could have appended: the connection must end, not serve it.
    let mut b = OPT_MAGIC.to_be_bytes().to_vec();
    b.extend_from_slice(&OPT_STARTTLS.to_be_bytes());
    b.extend_from_slice(&0u32.to_be_bytes());
    let go = go_data("", &[]);
    b.extend_from_slice(&OPT_MAGIC.to_be_bytes());
    b.extend_from_slice(&OPT_GO.to_be_bytes());
    b.extend_from_slice(&(go.len() as u32).to_be_bytes());
    b.extend_from_slice(&go);
    s.write_all(&b).unwrap();
    assert!(closed_by_server(&mut s, Duration::from_secs(5)));
    // Nothing was written and no client is being served.
    assert_eq!(r.server.with_device(|d| d.writes), 0);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn pipelined_requests_are_answered_in_order_with_sequential_semantics() {
    let r = Running::quiet(RamDisk::new(SS, 64, None));
    let mut s = r.connect();
    go(&mut s);
    // Everything is sent before any reply is read: 16 writes, a flush,
    // then 16 reads of what the writes wrote (and a read of one sector
    // rewritten in between), in one burst.
    let mut burst = Vec::new();
    for i in 0..16u64 {
        let req = Request {
            flags: 0,
            command: CMD_WRITE,
            handle: 100 + i,
            offset: i * SS as u64,
            length: SS as u32,
        };
        burst.extend_from_slice(&req.encode());
        burst.extend(std::iter::repeat_n(i as u8 + 1, SS));
    }
    let flush = Request {
        flags: 0,
        command: CMD_FLUSH,
        handle: 200,
        offset: 0,
        length: 0,
    };
    burst.extend_from_slice(&flush.encode());
    for i in 0..16u64 {
        let req = Request {
            flags: 0,
            command: CMD_READ,
            handle: 300 + i,
            offset: i * SS as u64,
            length: SS as u32,
        };
        burst.extend_from_slice(&req.encode());
        if i == 3 {
            // Overwrite sector 5 before its read: the read must see this.
            let w = Request {
                flags: 0,
                command: CMD_WRITE,
                handle: 400,
                offset: 5 * SS as u64,
                length: SS as u32,
            };
            burst.extend_from_slice(&w.encode());
            burst.extend(std::iter::repeat_n(0xEE, SS));
        }
    }
    s.write_all(&burst).unwrap();
    for i in 0..16u64 {
        assert_eq!(simple_reply(&mut s), (0, 100 + i));
    }
    assert_eq!(simple_reply(&mut s), (0, 200));
    for i in 0..16u64 {
        assert_eq!(simple_reply(&mut s), (0, 300 + i));
        let data = read_n(&mut s, SS);
        let want = if i == 5 { 0xEE } else { i as u8 + 1 };
        assert!(data.iter().all(|&b| b == want), "sector {i}");
        if i == 3 {
            assert_eq!(simple_reply(&mut s), (0, 400));
        }
    }
    assert_eq!(r.server.with_device(|d| d.flushes), 1);
}

#[test]
fn idle_timeout_spares_a_client_waiting_for_a_slow_reply() {
    let r = Running::start(RamDisk::new(SS, 8, None), limited(2, 5000, Some(300)));
    let mut s = r.connect();
    go(&mut s);
    // Another thread holds the device for three idle timeouts while the
    // client waits for its read: that wait is not idleness.
    let server = r.server.clone();
    let (held_tx, held_rx) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        server.with_device(|_| {
            held_tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(900));
        })
    });
    held_rx.recv().unwrap();
    assert_eq!(read(&mut s, 0, 512).unwrap(), vec![0; 512]);
    holder.join().unwrap();
    // Still connected, and still served.
    assert_eq!(write(&mut s, 0, &[3; 512], 0), 0);
    assert_eq!(read(&mut s, 0, 512).unwrap(), vec![3; 512]);
    // Silence after that is idleness again.
    assert!(closed_by_server(&mut s, Duration::from_secs(5)));
}

#[test]
fn a_flush_with_nothing_new_to_cover_does_not_flush_again() {
    let r = Running::quiet(RamDisk::new(SS, 8, None));
    let mut a = r.connect();
    let mut b = r.connect();
    go(&mut a);
    go(&mut b);
    assert_eq!(write(&mut a, 0, &[1; SS], 0), 0);
    assert_eq!(command(&mut a, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(r.server.with_device(|d| d.flushes), 1);
    // Nothing changed since: b's flush is already covered.
    assert_eq!(command(&mut b, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(r.server.with_device(|d| d.flushes), 1);
    // A write on b must be covered by a's next flush (multi-conn).
    assert_eq!(write(&mut b, SS as u64, &[2; SS], 0), 0);
    assert_eq!(command(&mut a, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(r.server.with_device(|d| d.flushes), 2);
    assert_eq!(
        r.server.with_device(|d| d.durable[SS..2 * SS].to_vec()),
        vec![2; SS]
    );
    // FUA makes its write durable and counts as a flush.
    assert_eq!(write(&mut a, 0, &[3; SS], CMD_FLAG_FUA), 0);
    assert_eq!(command(&mut b, CMD_FLUSH, 0, 0, 0), 0);
    assert_eq!(r.server.with_device(|d| d.flushes), 3);
}

#[test]
fn the_sync_behind_thread_holds_the_export_only_while_it_syncs() {
    // The thread waits on its signal, not on the export: dropping the
    // last handle drops the device at once (an image's lock is released
    // then), and the thread ends at its next wake-up.
    let shared = Arc::new(crate::export::Shared::new(
        RamDisk::new(SS, 8, None),
        quiet_config(),
    ));
    crate::export::Shared::start_syncer(&shared).unwrap();
    shared.want_sync_behind();
    std::thread::sleep(Duration::from_millis(50));
    let weak = Arc::downgrade(&shared);
    drop(shared);
    let t0 = std::time::Instant::now();
    while weak.upgrade().is_some() {
        assert!(
            t0.elapsed() < Duration::from_millis(50),
            "the sync-behind thread keeps the export alive"
        );
        std::thread::yield_now();
    }
}

#[test]
fn reads_of_every_size_reuse_reply_buffers_without_stale_bytes() {
    // READ replies are built in a buffer reused by later requests of the
    // connection (WRITE payloads too): a shorter read after a longer one,
    // an unaligned read, a refused read and writes in between must each
    // return exactly the device's bytes, one by one and in one burst.
    let sectors = 64u64;
    let size = sectors as usize * SS;
    let r = Running::quiet(RamDisk::new(SS, sectors, None));
    let mut model: Vec<u8> = (0..size).map(|i| (i * 7 + i / SS) as u8).collect();
    let mut s = r.connect();
    go(&mut s);
    assert_eq!(write(&mut s, 0, &model, 0), 0);
    // (offset, length, a write of 0xA5 instead of a read) of each step.
    let steps: [(u64, u32, bool); 9] = [
        (0, size as u32, false),
        (3 * SS as u64, SS as u32, true),
        (1000, 100, false),
        (512, 4096, false),
        (size as u64 - 1, 1, false),
        (size as u64, 512, false), // past the end: refused
        (7, 3 * SS as u32, false),
        (20 * SS as u64 + 3, 700, true),
        (0, size as u32, false),
    ];
    let expect = |model: &mut Vec<u8>, (off, len, is_write): (u64, u32, bool)| {
        let (o, n) = (off as usize, len as usize);
        if is_write {
            model[o..o + n].fill(0xA5);
            None
        } else if o + n > model.len() {
            Some(Err(EINVAL))
        } else {
            Some(Ok(model[o..o + n].to_vec()))
        }
    };
    for &step in &steps {
        let (off, len, _) = step;
        match expect(&mut model, step) {
            None => assert_eq!(write(&mut s, off, &vec![0xA5; len as usize], 0), 0),
            Some(want) => assert_eq!(read(&mut s, off, len), want, "read {off}+{len}"),
        }
    }
    // The same steps in one burst (answered off the reader's thread),
    // writing 0x5A this time.
    let mut burst = Vec::new();
    for (i, &(off, len, is_write)) in steps.iter().enumerate() {
        let req = Request {
            flags: 0,
            command: if is_write { CMD_WRITE } else { CMD_READ },
            handle: 500 + i as u64,
            offset: off,
            length: len,
        };
        burst.extend_from_slice(&req.encode());
        if is_write {
            burst.extend(std::iter::repeat_n(0x5A, len as usize));
        }
    }
    s.write_all(&burst).unwrap();
    for (i, &step) in steps.iter().enumerate() {
        let (off, len, is_write) = step;
        let want = if is_write {
            model[off as usize..(off + u64::from(len)) as usize].fill(0x5A);
            None
        } else {
            expect(&mut model, step)
        };
        let (err, h) = simple_reply(&mut s);
        assert_eq!(h, 500 + i as u64);
        match want {
            None => assert_eq!(err, 0),
            Some(Err(e)) => assert_eq!(err, e, "read {off}+{len}"),
            Some(Ok(bytes)) => {
                assert_eq!(err, 0);
                assert_eq!(
                    read_n(&mut s, len as usize),
                    bytes,
                    "burst read {off}+{len}"
                );
            }
        }
    }
}
