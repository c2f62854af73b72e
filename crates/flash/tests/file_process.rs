//! FileFlash across processes: an image written by a process that exits is
//! read back by the next; one killed with SIGKILL mid-way still opens and
//! shows what it wrote; a lock held by another process refuses an open.
//!
//! The child processes are this test binary run again on the ignored test
//! `child_process_role`, with the role and the image path in the
//! environment. Run by hand without that environment, it does nothing.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};

use flash::{FileFlash, Flash, FlashError, Geometry, PageAddr};

const ROLE_VAR: &str = "SCFTL_FLASH_TEST_ROLE";
const IMAGE_VAR: &str = "SCFTL_FLASH_TEST_IMAGE";
/// Pages the "write_and_exit" child programs.
const EXIT_PAGES: u64 = 100;

/// The content of page number `i` (dense index): recognisable and distinct.
fn content(g: &Geometry, i: u64) -> (Vec<u8>, [u8; 8]) {
    let data = (0..g.page_size())
        .map(|k| (k as u64).wrapping_mul(7).wrapping_add(i * 13) as u8)
        .collect();
    (data, i.to_le_bytes())
}

fn spawn_child(role: &str, image: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_process_role",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(ROLE_VAR, role)
        .env(IMAGE_VAR, image)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// Reads the child's stdout until a line starting with `prefix`.
fn wait_for_line(out: &mut BufReader<ChildStdout>, prefix: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = out.read_line(&mut line).unwrap();
        assert!(n > 0, "child exited before printing `{prefix}`");
        if line.starts_with(prefix) {
            return line.trim_end().to_string();
        }
    }
}

/// Opens the image, waiting up to 10 s while it is locked. The parent
/// closed it before spawning this child, but a child another test of this
/// binary forks at that moment holds a copy of the parent's descriptors
/// (and so the image's lock) until it execs; on a loaded machine that
/// window was seen to last long enough to refuse this open.
fn open_when_free(image: &str) -> FileFlash {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match FileFlash::open(image) {
            Err(FlashError::Locked { .. }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            r => return r.unwrap(),
        }
    }
}

/// Not a test: the body of the child processes (see the file comment).
#[test]
#[ignore = "helper run in child processes by the other tests of this file"]
fn child_process_role() {
    let (Ok(role), Ok(image)) = (std::env::var(ROLE_VAR), std::env::var(IMAGE_VAR)) else {
        return;
    };
    let out = std::io::stdout();
    match role.as_str() {
        "write_and_exit" => {
            let mut f = open_when_free(&image);
            let g = *f.geometry();
            for i in 0..EXIT_PAGES {
                let (data, oob) = content(&g, i);
                f.program(g.page_at(i), &data, &oob).unwrap();
            }
            f.nvram_write(0, &EXIT_PAGES.to_le_bytes()).unwrap();
            f.sync().unwrap();
            println!("done");
        }
        "write_until_killed" => {
            let mut f = open_when_free(&image);
            let g = *f.geometry();
            for i in 0..g.total_pages() {
                let (data, oob) = content(&g, i);
                f.program(g.page_at(i), &data, &oob).unwrap();
                // What a frontend does before it acknowledges a request:
                // the image may gather programs, and a killed process
                // loses only what it did not submit.
                f.submit().unwrap();
                f.nvram_write(0, &(i + 1).to_le_bytes()).unwrap();
                let mut o = out.lock();
                writeln!(o, "wrote {i}").unwrap();
                o.flush().unwrap();
            }
            // Device full: wait to be killed.
            let mut s = String::new();
            let _ = std::io::stdin().read_line(&mut s);
        }
        "hold_lock" => {
            let _f = open_when_free(&image);
            println!("locked");
            // Hold the image until the parent closes our stdin.
            let mut s = String::new();
            let _ = std::io::stdin().read_line(&mut s);
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn pages_written_by_a_process_that_exited_are_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let g = Geometry::small();
    drop(FileFlash::create(&path, g, false).unwrap());
    let mut child = spawn_child("write_and_exit", &path);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    wait_for_line(&mut out, "done");
    assert!(child.wait().unwrap().success());

    let mut f = FileFlash::open(&path).unwrap();
    let mut buf = vec![0; g.page_size()];
    let mut oob = [0u8; 8];
    for i in 0..EXIT_PAGES {
        let (data, tag) = content(&g, i);
        f.read(g.page_at(i), 0, &mut buf).unwrap();
        assert!(buf == data, "page {i} differs");
        f.read_oob(g.page_at(i), &mut oob).unwrap();
        assert_eq!(oob, tag, "OOB of page {i}");
    }
    assert!(f.is_erased(g.page_at(EXIT_PAGES)).unwrap());
    let mut nv = [0u8; 8];
    f.nvram_read(0, &mut nv).unwrap();
    assert_eq!(u64::from_le_bytes(nv), EXIT_PAGES);
    // The next page in order is programmable after the reopen.
    let (data, tag) = content(&g, EXIT_PAGES);
    f.program(g.page_at(EXIT_PAGES), &data, &tag).unwrap();
}

#[test]
fn an_image_killed_mid_write_reopens_with_everything_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    // 65536 pages of 1 KiB. The child cannot finish before it is killed:
    // once its stdout pipe (64 KiB) is full it blocks, about 6000 pages in,
    // so the kill always lands mid-way and at most a few MiB are written.
    let g = Geometry::new(2, 2, 128, 128, 2, 512, 32).unwrap();
    drop(FileFlash::create(&path, g, false).unwrap());
    let mut child = spawn_child("write_until_killed", &path);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let line = wait_for_line(&mut out, "wrote 300");
    assert_eq!(line, "wrote 300");
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the child was supposed to die by SIGKILL"
    );
    // Lines printed after "wrote 300" and before the kill report more pages.
    let mut reported = 300;
    for l in out.lines() {
        let Ok(l) = l else { break };
        if let Some(n) = l.strip_prefix("wrote ") {
            reported = n.parse().unwrap();
        }
    }

    let mut f = FileFlash::open(&path).unwrap();
    let mut buf = vec![0; g.page_size()];
    let mut programmed = 0u64;
    for i in 0..g.total_pages() {
        let p = g.page_at(i);
        if f.is_erased(p).unwrap() {
            assert!(
                i > reported,
                "page {i} was reported written but reads erased"
            );
            continue;
        }
        programmed += 1;
        // A page marked programmed has its whole content: the state byte is
        // written after the page.
        f.read(p, 0, &mut buf).unwrap();
        assert!(
            buf == content(&g, i).0,
            "page {i} is programmed with wrong data"
        );
    }
    assert!(
        programmed > reported,
        "{programmed} pages programmed, {reported} reported"
    );
    assert!(
        programmed < g.total_pages(),
        "the child finished before the kill"
    );
    eprintln!("killed after {reported} reported, {programmed} programmed pages");
    let mut nv = [0u8; 8];
    f.nvram_read(0, &mut nv).unwrap();
    let nv = u64::from_le_bytes(nv);
    assert!(
        nv > reported && nv <= programmed,
        "nvram says {nv}, {programmed} programmed"
    );
}

#[test]
fn an_image_held_by_another_process_is_locked_until_it_exits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    drop(FileFlash::create(&path, Geometry::tiny(), false).unwrap());
    let before = std::fs::read(&path).unwrap();
    let mut child = spawn_child("hold_lock", &path);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    wait_for_line(&mut out, "locked");
    let e = FileFlash::open(&path).unwrap_err();
    assert!(matches!(e, FlashError::Locked { .. }), "{e}");
    let e = FileFlash::open_read_only(&path).unwrap_err();
    assert!(matches!(e, FlashError::Locked { .. }), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    drop(child.stdin.take()); // EOF: the child lets go and exits
    assert!(child.wait().unwrap().success());
    let mut f = FileFlash::open(&path).unwrap();
    f.program(PageAddr::new(0, 0), &vec![1; f.geometry().page_size()], &[])
        .unwrap();
}
