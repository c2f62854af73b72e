//! `scftl serve --tls` with real TLS clients: nbdinfo (libnbd, GnuTLS)
//! and qemu-io / nbdcopy writing and reading data over `nbds://`. The CA
//! and the server certificate are made here with rcgen, so no certificate
//! tool is needed. Each test skips (visibly) only when its client is
//! missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::*;
use rand::{RngCore, SeedableRng};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

const MIN: Duration = Duration::from_secs(60);

/// Paths of a throwaway PKI: `client_dir` holds `ca-cert.pem` (what libnbd's
/// `tls-certificates` and qemu's `tls-creds-x509` read), `cert`/`key` are
/// the server's, issued by that CA for 127.0.0.1 and localhost.
struct Pki {
    client_dir: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    /// The CA certificate alone (for --tls-client-ca).
    ca: PathBuf,
    /// Like `client_dir`, plus `client-cert.pem` and `client-key.pem`
    /// issued by the CA.
    client_auth_dir: PathBuf,
}

fn make_pki(root: &Path) -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "scftl test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).unwrap();

    let key = KeyPair::generate().unwrap();
    let mut p =
        CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    p.distinguished_name.push(DnType::CommonName, "localhost");
    p.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let cert = p.signed_by(&key, &ca_cert, &ca_key).unwrap();

    let client_key = KeyPair::generate().unwrap();
    let mut c = CertificateParams::new(Vec::<String>::new()).unwrap();
    c.distinguished_name
        .push(DnType::CommonName, "scftl test client");
    c.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    c.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let client_cert = c.signed_by(&client_key, &ca_cert, &ca_key).unwrap();

    let client_dir = root.join("client");
    let client_auth_dir = root.join("client-auth");
    for d in [&client_dir, &client_auth_dir] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("ca-cert.pem"), ca_cert.pem()).unwrap();
    }
    std::fs::write(client_auth_dir.join("client-cert.pem"), client_cert.pem()).unwrap();
    std::fs::write(
        client_auth_dir.join("client-key.pem"),
        client_key.serialize_pem(),
    )
    .unwrap();
    let (cert_path, key_path) = (root.join("server-cert.pem"), root.join("server-key.pem"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    let ca = root.join("ca-cert.pem");
    std::fs::write(&ca, ca_cert.pem()).unwrap();
    Pki {
        client_dir,
        cert: cert_path,
        key: key_path,
        ca,
        client_auth_dir,
    }
}

fn tls_server(img: &Path, pki: &Pki, mode: &str) -> ServerProc {
    ServerProc::start(
        img,
        &[
            "--tls",
            mode,
            "--tls-cert",
            pki.cert.to_str().unwrap(),
            "--tls-key",
            pki.key.to_str().unwrap(),
        ],
    )
}

fn nbds_uri(srv: &ServerProc, pki: &Pki) -> String {
    format!(
        "nbds://127.0.0.1:{}/?tls-certificates={}",
        srv.port,
        pki.client_dir.display()
    )
}

/// nbdinfo connects over TLS and sees the export; in plaintext it is
/// refused when TLS is required, and still served when TLS is allowed.
#[test]
fn nbdinfo_over_tls() {
    if !have("nbdinfo", "nbdinfo_over_tls") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki(dir.path());
    let img = format(
        dir.path(),
        "t.img",
        &["--size", "8MiB", "--geometry", "small"],
    );
    {
        let srv = tls_server(&img, &pki, "require");
        let out = run_ok(
            Command::new("nbdinfo").args(["--json", &nbds_uri(&srv, &pki)]),
            MIN,
        );
        let v: serde_json::Value = serde_json::from_str(&out).expect("nbdinfo JSON");
        assert_eq!(v["TLS"], true, "{out}");
        assert_eq!(v["exports"][0]["export-size"], 8u64 << 20);

        let plain = run_with_deadline(
            Command::new("nbdinfo")
                .arg(srv.uri())
                .env("LIBNBD_DEBUG", "1"),
            MIN,
        );
        assert!(
            !plain.status.success(),
            "a plaintext client was served although TLS is required"
        );
        // The refusal carries its reason: libnbd shows the server's message
        // in its debug output, qemu prints it as "server reported".
        let said = String::from_utf8_lossy(&plain.stderr);
        assert!(said.contains("this server requires TLS"), "{said}");
        if have("qemu-io", "nbdinfo_over_tls (qemu part)") {
            let q = qemu_io_output(&srv.uri(), &["read 0 4k"]);
            assert!(q.contains("this server requires TLS"), "{q}");
        }
        // And the server's log says why it turned the client away.
        let log = srv.drain_log(Duration::from_secs(2));
        assert!(
            log.iter()
                .any(|l| l.contains("a plaintext client, and this server requires TLS")),
            "{log:#?}"
        );
        // A client that trusts another CA refuses this server's certificate.
        let other = make_pki(&dir.path().join("other"));
        let untrusted = run_with_deadline(
            Command::new("nbdinfo").arg(format!(
                "nbds://127.0.0.1:{}/?tls-certificates={}",
                srv.port,
                other.client_dir.display()
            )),
            MIN,
        );
        assert!(
            !untrusted.status.success(),
            "a client trusting another CA accepted the certificate"
        );
    }
    {
        let srv = tls_server(&img, &pki, "allow");
        let out = run_ok(
            Command::new("nbdinfo").args(["--json", &nbds_uri(&srv, &pki)]),
            MIN,
        );
        assert!(out.contains("\"TLS\": true"), "{out}");
        let out = run_ok(Command::new("nbdinfo").args(["--json", &srv.uri()]), MIN);
        assert!(out.contains("\"TLS\": false"), "{out}");
    }
}

/// With --tls-client-ca, only a client holding a certificate from that CA
/// gets in.
#[test]
fn client_certificates_are_required_with_a_client_ca() {
    if !have(
        "nbdinfo",
        "client_certificates_are_required_with_a_client_ca",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki(dir.path());
    let img = format(
        dir.path(),
        "a.img",
        &["--size", "8MiB", "--geometry", "small"],
    );
    let mut srv = ServerProc::start(
        &img,
        &[
            "--tls",
            "require",
            "--tls-cert",
            pki.cert.to_str().unwrap(),
            "--tls-key",
            pki.key.to_str().unwrap(),
            "--tls-client-ca",
            pki.ca.to_str().unwrap(),
        ],
    );
    let with = format!(
        "nbds://127.0.0.1:{}/?tls-certificates={}",
        srv.port,
        pki.client_auth_dir.display()
    );
    let out = run_ok(Command::new("nbdinfo").args(["--json", &with]), MIN);
    assert!(out.contains("\"TLS\": true"), "{out}");
    let without = run_with_deadline(Command::new("nbdinfo").arg(nbds_uri(&srv, &pki)), MIN);
    assert!(
        !without.status.success(),
        "a client without a certificate was served"
    );
    // A certificate from another CA is refused as well.
    let other = make_pki(&dir.path().join("other"));
    let foreign = run_with_deadline(
        Command::new("nbdinfo").arg(format!(
            "nbds://127.0.0.1:{}/?tls-certificates={}",
            srv.port,
            // Trusts our server's CA, presents the other CA's client cert.
            {
                let d = dir.path().join("foreign");
                std::fs::create_dir_all(&d).unwrap();
                std::fs::copy(pki.client_dir.join("ca-cert.pem"), d.join("ca-cert.pem")).unwrap();
                for f in ["client-cert.pem", "client-key.pem"] {
                    std::fs::copy(other.client_auth_dir.join(f), d.join(f)).unwrap();
                }
                d.display().to_string()
            }
        )),
        MIN,
    );
    assert!(
        !foreign.status.success(),
        "a client certificate from another CA was accepted"
    );
    let (_, log) = srv.terminate();
    let verified = log
        .iter()
        .filter(|l| l.contains("TLS started (client certificate verified)"))
        .count();
    assert_eq!(verified, 1, "{log:?}");
}

/// qemu-io writes and verifies patterns through `tls-creds-x509`, and the
/// data is on the image after a clean stop (read back in plaintext).
#[test]
fn qemu_io_writes_and_reads_over_tls() {
    if !have("qemu-io", "qemu_io_writes_and_reads_over_tls") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki(dir.path());
    let img = format(
        dir.path(),
        "q.img",
        &["--size", "16MiB", "--geometry", "small"],
    );
    let mut srv = tls_server(&img, &pki, "require");
    let opts = format!(
        "driver=raw,file.driver=nbd,file.host=127.0.0.1,file.port={},file.export=scftl,file.tls-creds=tls0",
        srv.port
    );
    let creds = format!(
        "tls-creds-x509,id=tls0,endpoint=client,dir={}",
        pki.client_dir.display()
    );
    let out = run_ok(
        Command::new("qemu-io").args([
            "--object",
            &creds,
            "--image-opts",
            &opts,
            "-c",
            "write -P 0xa5 0 1M",
            "-c",
            "write -P 0x3c 4097 5000",
            "-c",
            "read -P 0xa5 0 4097",
            "-c",
            "read -P 0x3c 4097 5000",
            "-c",
            "flush",
        ]),
        MIN,
    );
    assert!(
        !out.contains("fail") && !out.contains("error"),
        "qemu-io over TLS: {out}"
    );
    assert!(out.contains("wrote 1048576/1048576"), "{out}");
    let (status, log) = srv.terminate();
    assert!(status.success(), "server exit {status}");
    assert!(
        log.iter().any(|l| l.contains("flushed")),
        "no final flush: {log:?}"
    );
    let srv = ServerProc::start(&img, &[]);
    let out = run_ok(
        Command::new("qemu-io").args([
            "-f",
            "raw",
            &srv.uri(),
            "-c",
            "read -P 0xa5 0 4097",
            "-c",
            "read -P 0x3c 4097 5000",
            "-c",
            "read -P 0xa5 9097 1000",
        ]),
        MIN,
    );
    assert!(!out.contains("fail"), "{out}");
}

/// nbdcopy copies random data onto the export and back over TLS, intact.
#[test]
fn nbdcopy_round_trip_over_tls() {
    if !have("nbdcopy", "nbdcopy_round_trip_over_tls") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki(dir.path());
    let img = format(
        dir.path(),
        "c.img",
        &["--size", "4MiB", "--geometry", "small"],
    );
    // The export is exactly the size asked for at format time.
    let size = 4u64 << 20;
    let mut data = vec![0u8; size as usize];
    rand_pcg::Pcg64::seed_from_u64(18).fill_bytes(&mut data);
    let src = dir.path().join("src.bin");
    let back = dir.path().join("back.bin");
    std::fs::write(&src, &data).unwrap();

    let srv = tls_server(&img, &pki, "require");
    let uri = nbds_uri(&srv, &pki);
    run_ok(
        Command::new("nbdcopy").args([src.to_str().unwrap(), &uri]),
        MIN,
    );
    run_ok(
        Command::new("nbdcopy").args([&uri, back.to_str().unwrap()]),
        MIN,
    );
    assert!(
        std::fs::read(&back).unwrap() == data,
        "data read back over TLS differs"
    );
}
