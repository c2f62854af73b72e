//! The workloads: sequential fill, random 4 KiB overwrites with a flush
//! every WI writes, and read-back verification.
//!
//! Every written sector starts with an 8-byte tag, `lba` (u32 LE) then a
//! write version (u32 LE), so the benchmark can check what it reads back,
//! and so `DatalessFlash` (which keeps only those first bytes of data
//! sectors) still lets it check. The model of what each sector should hold
//! is one `u32` version per logical sector.
//!
//! Epoch bound: before each write the writer asks `epoch_remaining()`; if the
//! request does not fit, it flushes first (a *forced* flush, counted
//! separately). With WI no larger than SCFTL's write bound W this never
//! happens in the random-write phase.

use std::time::Instant;

use ftl::{BlockDevice, FtlError, Lba};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::probe::Probe;

/// Result type of the harness: errors are reported as text.
pub type BResult<T> = Result<T, String>;

/// Bytes of the per-sector tag.
pub const TAG_LEN: usize = 8;

/// Encodes the tag of `lba` at `version`.
pub fn tag_bytes(lba: u64, version: u32) -> [u8; TAG_LEN] {
    let mut t = [0u8; TAG_LEN];
    t[..4].copy_from_slice(&(lba as u32).to_le_bytes());
    t[4..].copy_from_slice(&version.to_le_bytes());
    t
}

/// What one measured random-write phase observed.
#[derive(Clone, Debug, Default)]
pub struct PhaseRecord {
    /// Writes issued in the phase.
    pub writes: u64,
    /// Simulated ns the phase took.
    pub sim_ns: u64,
    /// Wall-clock ns the phase took.
    pub wall_ns: u64,
    /// Simulated latency of every flush (explicit and forced).
    pub flush_lat_ns: Vec<u64>,
    /// Flushes the writer had to insert because the epoch was full.
    pub forced_flushes: u64,
    /// Host time charged to requests (`host_request_ns` each).
    pub host_ns: u64,
    /// (simulated ns since phase start, writes done), sampled at each flush
    /// and every [`SAMPLE_EVERY`] writes.
    pub samples: Vec<(u64, u64)>,
}

/// Progress samples are taken at least this often (writes).
pub const SAMPLE_EVERY: u64 = 256;

impl PhaseRecord {
    /// Average and maximum flush latency in µs (0 when there was no flush).
    pub fn flush_lat_us(&self) -> (f64, f64) {
        if self.flush_lat_ns.is_empty() {
            return (0.0, 0.0);
        }
        let sum: u128 = self.flush_lat_ns.iter().map(|&x| u128::from(x)).sum();
        let avg = sum as f64 / self.flush_lat_ns.len() as f64 / 1e3;
        let max = *self.flush_lat_ns.iter().max().unwrap_or(&0) as f64 / 1e3;
        (avg, max)
    }

    /// Throughput over simulated time in `buckets` equal buckets:
    /// (bucket end in s, kIOPS in that bucket).
    pub fn timeline(&self, buckets: usize) -> Vec<(f64, f64)> {
        if self.sim_ns == 0 || buckets == 0 {
            return Vec::new();
        }
        let width = (self.sim_ns as f64 / buckets as f64).max(1.0);
        // Writes done by simulated time `t`, interpolated linearly between
        // samples (buffered writes take no device time, so the raw samples
        // bunch up at the instants the device is waited for).
        let done_at = |t: f64| -> f64 {
            let idx = self.samples.partition_point(|&(st, _)| (st as f64) <= t);
            if idx == 0 {
                return 0.0;
            }
            let (ta, wa) = self.samples[idx - 1];
            match self.samples.get(idx) {
                Some(&(tb, wb)) if tb > ta => {
                    wa as f64 + (wb - wa) as f64 * (t - ta as f64) / (tb - ta) as f64
                }
                _ => wa as f64,
            }
        };
        (0..buckets)
            .map(|b| {
                let t0 = b as f64 * width;
                let t1 = t0 + width;
                let w = (done_at(t1) - done_at(t0)).max(0.0);
                (t1 / 1e9, w / (width / 1e9) / 1e3)
            })
            .collect()
    }
}

/// Drives a block device and remembers what each sector should hold.
pub struct Writer<'a> {
    pub dev: Box<dyn BlockDevice>,
    pub probe: &'a dyn Probe,
    rng: Pcg64,
    versions: Vec<u32>,
    next_version: u32,
    buf: Vec<u8>,
    sector_size: usize,
    /// Host time charged per user request (write or flush).
    pub host_request_ns: u64,
    /// Flushes inserted because a request did not fit the epoch.
    pub forced_flushes: u64,
    /// Host time charged so far (`host_request_ns` per request).
    pub host_charged_ns: u64,
}

impl<'a> Writer<'a> {
    pub fn new(dev: Box<dyn BlockDevice>, probe: &'a dyn Probe, seed: u64) -> Writer<'a> {
        let sectors = dev.num_sectors() as usize;
        let sector_size = dev.sector_size();
        Writer {
            dev,
            probe,
            rng: Pcg64::seed_from_u64(seed),
            versions: vec![0; sectors],
            next_version: 1,
            buf: Vec::new(),
            sector_size,
            host_request_ns: 0,
            forced_flushes: 0,
            host_charged_ns: 0,
        }
    }

    /// Replaces the device (e.g. with the one recovery returned), keeping
    /// the model; returns the old one.
    pub fn replace_device(&mut self, dev: Box<dyn BlockDevice>) -> Box<dyn BlockDevice> {
        std::mem::replace(&mut self.dev, dev)
    }

    /// Number of logical sectors.
    pub fn num_sectors(&self) -> u64 {
        self.versions.len() as u64
    }

    /// Charges one request's host time.
    fn charge_host(&mut self) {
        self.probe.advance_host(self.host_request_ns);
        self.host_charged_ns += self.host_request_ns;
    }

    /// Flushes; returns the simulated latency.
    pub fn flush(&mut self) -> BResult<u64> {
        self.charge_host();
        let t0 = self.probe.now_ns();
        self.dev.flush().map_err(|e| format!("flush: {e}"))?;
        let lat = self.probe.now_ns() - t0;
        Ok(lat)
    }

    /// Writes `count` sectors at `lba` with fresh tags, flushing first if the
    /// request does not fit the epoch.
    pub fn write(&mut self, lba: u64, count: u64) -> BResult<()> {
        if let Some(rem) = self.dev.epoch_remaining() {
            if rem < count {
                self.forced_flushes += 1;
                self.flush()?;
            }
        }
        let ss = self.sector_size;
        let len = count as usize * ss;
        if self.buf.len() < len {
            self.buf.resize(len, 0);
        }
        let v0 = self.next_version;
        for i in 0..count {
            let t = tag_bytes(lba + i, v0.wrapping_add(i as u32));
            let off = i as usize * ss;
            self.buf[off..off + TAG_LEN].copy_from_slice(&t);
        }
        self.charge_host();
        match self.dev.write(Lba(lba), &self.buf[..len]) {
            Ok(()) => {}
            Err(FtlError::EpochFull { .. }) => {
                // The bound counts something we could not see (e.g. GC);
                // flush and retry once.
                self.forced_flushes += 1;
                self.flush()?;
                self.dev
                    .write(Lba(lba), &self.buf[..len])
                    .map_err(|e| format!("write {lba}+{count} after a forced flush: {e}"))?;
            }
            Err(e) => return Err(format!("write {lba}+{count}: {e}")),
        }
        for i in 0..count {
            self.versions[(lba + i) as usize] = v0.wrapping_add(i as u32);
        }
        self.next_version = v0.wrapping_add(count as u32);
        if self.next_version == 0 {
            self.next_version = 1;
        }
        Ok(())
    }

    /// Writes the whole logical space once, in order, `chunk` sectors per
    /// request, flushing at least every `flush_every` sectors; ends with a
    /// flush.
    pub fn sequential_fill(&mut self, chunk: u64, flush_every: u64) -> BResult<()> {
        let n = self.num_sectors();
        let mut since_flush = 0;
        let mut lba = 0;
        while lba < n {
            let c = chunk.min(n - lba).min(flush_every.max(1));
            if since_flush + c > flush_every {
                self.flush()?;
                since_flush = 0;
            }
            self.write(lba, c)?;
            since_flush += c;
            lba += c;
        }
        self.flush()?;
        Ok(())
    }

    /// `count` random single-sector writes with a flush after every `wi`.
    pub fn random_writes(&mut self, count: u64, wi: u64) -> BResult<()> {
        let n = self.num_sectors();
        for i in 0..count {
            let lba = self.rng.gen_range(0..n);
            self.write(lba, 1)?;
            if (i + 1) % wi == 0 {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Like [`Writer::random_writes`], recording latencies and progress.
    /// `count` should be a multiple of `wi` so the phase ends with a flush
    /// and all its flash work is accounted for.
    pub fn measured_random_writes(&mut self, count: u64, wi: u64) -> BResult<PhaseRecord> {
        self.measured_random_writes_threads(count, wi, 1)
    }

    /// The concurrent variant: `threads` closed-loop host threads, each
    /// issuing single-sector random writes with a flush after every `wi` of
    /// its own, `count` writes in all, in front of one serial device (the
    /// FTL is single-threaded behind a queue, SCFTL paper §6.2). A thread
    /// issues its next request the moment its previous one completes, and
    /// the device serves requests in issue order (ties: the lower thread
    /// first), so a request waits for the ones queued before it; a flush's
    /// latency includes that wait. What concurrency buys a serial device is
    /// that flushes queued behind one another coalesce: a flush that finds
    /// nothing new since the one before it only waits for durability.
    /// Every thread keeps issuing until `count` writes are done (a thread
    /// that fell behind does not finish alone at the end, which would
    /// measure fewer threads than asked); then each thread with unflushed
    /// writes flushes, so the phase ends with a flush. With `threads = 1`
    /// this is the sequential workload.
    pub fn measured_random_writes_threads(
        &mut self,
        count: u64,
        wi: u64,
        threads: u64,
    ) -> BResult<PhaseRecord> {
        let threads = threads.max(1);
        let n = self.num_sectors();
        let total = count;
        let t0 = self.probe.now_ns();
        let wall0 = Instant::now();
        let forced0 = self.forced_flushes;
        let host0 = self.host_charged_ns;
        let mut samples = Vec::with_capacity((total / wi.min(SAMPLE_EVERY)) as usize + 2);
        samples.push((0, 0));
        let mut flush_lat_ns = Vec::with_capacity((total / wi) as usize + threads as usize);
        // Per thread: when its next request was issued (simulated ns) and
        // how many of its writes no flush of its own has covered yet.
        let mut ready = vec![t0; threads as usize];
        let mut unflushed = vec![0u64; threads as usize];
        let mut done = 0u64;
        loop {
            let more = done < total;
            let next = (0..threads as usize)
                .filter(|&t| more || unflushed[t] > 0)
                .min_by_key(|&t| (ready[t], t));
            let Some(t) = next else { break };
            if unflushed[t] == wi || (!more && unflushed[t] > 0) {
                let queued = self.probe.now_ns().saturating_sub(ready[t]);
                let lat = self.flush()?;
                flush_lat_ns.push(queued + lat);
                unflushed[t] = 0;
                samples.push((self.probe.now_ns() - t0, done));
            } else {
                let lba = self.rng.gen_range(0..n);
                self.write(lba, 1)?;
                unflushed[t] += 1;
                done += 1;
                if unflushed[t] < wi && done % SAMPLE_EVERY == 0 {
                    samples.push((self.probe.now_ns() - t0, done));
                }
            }
            ready[t] = self.probe.now_ns();
        }
        Ok(PhaseRecord {
            writes: total,
            sim_ns: self.probe.now_ns() - t0,
            wall_ns: wall0.elapsed().as_nanos() as u64,
            flush_lat_ns,
            forced_flushes: self.forced_flushes - forced0,
            host_ns: self.host_charged_ns - host0,
            samples,
        })
    }

    /// Reads `samples` random sectors (plus sector 0 and the last one) and
    /// checks their tags against the model. Sectors never written must read
    /// as zeros.
    pub fn verify(&mut self, samples: u64) -> BResult<()> {
        let n = self.num_sectors();
        let ss = self.sector_size;
        let mut buf = vec![0u8; ss];
        let mut check = |w: &mut Self, lba: u64| -> BResult<()> {
            w.dev
                .read(Lba(lba), &mut buf)
                .map_err(|e| format!("verify read {lba}: {e}"))?;
            let v = w.versions[lba as usize];
            let want = if v == 0 {
                [0u8; TAG_LEN]
            } else {
                tag_bytes(lba, v)
            };
            if buf[..TAG_LEN] != want {
                return Err(format!(
                    "verify: sector {lba} holds tag {:02x?}, expected {:02x?} (version {v})",
                    &buf[..TAG_LEN],
                    want
                ));
            }
            Ok(())
        };
        if n == 0 {
            return Ok(());
        }
        check(self, 0)?;
        check(self, n - 1)?;
        let mut rng = Pcg64::seed_from_u64(0x5eed ^ n);
        for _ in 0..samples {
            let lba = rng.gen_range(0..n);
            check(self, lba)?;
        }
        Ok(())
    }
}
