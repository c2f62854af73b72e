//! A RAM block device for this crate's tests, with an optional epoch bound
//! that behaves like SCFTL's: at most `epoch` sector updates between
//! flushes, refused with `EpochFull` beyond that. It also keeps a "durable"
//! copy taken at each flush, so tests can check what a power cut would
//! leave, and the origin (connection) each flush was issued under. Reads
//! are served with shared access too (`read_shared`), as SCFTL's are, and
//! so is block status (`allocation`: an all-zero sector is unmapped).

use ftl::{check_range, check_request, BlockDevice, DeviceStats, FtlError, Lba};

pub struct RamDisk {
    pub sector_size: usize,
    pub data: Vec<u8>,
    pub durable: Vec<u8>,
    pub epoch: Option<u64>,
    pub used: u64,
    pub writes: u64,
    pub flushes: u64,
    pub write_sizes: Vec<u64>,
    pub refuse_next_write: bool,
    /// The last origin set, and the origin of each flush in order.
    pub origin: u64,
    pub flush_origins: Vec<u64>,
}

impl RamDisk {
    pub fn new(sector_size: usize, sectors: u64, epoch: Option<u64>) -> RamDisk {
        let n = sector_size * sectors as usize;
        RamDisk {
            sector_size,
            data: vec![0; n],
            durable: vec![0; n],
            epoch,
            used: 0,
            writes: 0,
            flushes: 0,
            write_sizes: Vec::new(),
            refuse_next_write: false,
            origin: 0,
            flush_origins: Vec::new(),
        }
    }

    fn charge(&mut self, n: u64) -> ftl::Result<()> {
        if let Some(e) = self.epoch {
            let remaining = e - self.used;
            if n > remaining {
                return Err(FtlError::EpochFull {
                    needed: n,
                    remaining,
                });
            }
        }
        self.used += n;
        Ok(())
    }
}

impl BlockDevice for RamDisk {
    fn sector_size(&self) -> usize {
        self.sector_size
    }
    fn num_sectors(&self) -> u64 {
        (self.data.len() / self.sector_size) as u64
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> ftl::Result<()> {
        self.read_shared(lba, buf).expect("RAM reads shared")
    }
    fn read_shared(&self, lba: Lba, buf: &mut [u8]) -> Option<ftl::Result<()>> {
        if let Err(e) = check_request(lba, buf.len(), self.sector_size, self.num_sectors()) {
            return Some(Err(e));
        }
        let at = lba.0 as usize * self.sector_size;
        buf.copy_from_slice(&self.data[at..at + buf.len()]);
        Some(Ok(()))
    }
    /// A sector that reads as all zeros counts as unmapped.
    fn allocation(&self, lba: Lba, count: u64) -> Option<ftl::Result<Vec<(u64, bool)>>> {
        if let Err(e) = check_range(lba, count, self.num_sectors()) {
            return Some(Err(e));
        }
        let ss = self.sector_size;
        let mapped = (lba.0..lba.0 + count).map(|i| {
            let at = i as usize * ss;
            self.data[at..at + ss].iter().any(|&b| b != 0)
        });
        Some(Ok(ftl::mapped_runs(mapped)))
    }
    fn set_origin(&mut self, origin: u64) {
        self.origin = origin;
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> ftl::Result<()> {
        let n = check_request(lba, data.len(), self.sector_size, self.num_sectors())?;
        if std::mem::take(&mut self.refuse_next_write) {
            return Err(FtlError::EpochFull {
                needed: n,
                remaining: 0,
            });
        }
        self.charge(n)?;
        let at = lba.0 as usize * self.sector_size;
        self.data[at..at + data.len()].copy_from_slice(data);
        self.writes += 1;
        self.write_sizes.push(n);
        Ok(())
    }
    fn trim(&mut self, lba: Lba, count: u64) -> ftl::Result<()> {
        check_range(lba, count, self.num_sectors())?;
        self.charge(count)?;
        let at = lba.0 as usize * self.sector_size;
        let len = count as usize * self.sector_size;
        self.data[at..at + len].fill(0);
        Ok(())
    }
    fn flush(&mut self) -> ftl::Result<()> {
        self.durable.copy_from_slice(&self.data);
        self.used = 0;
        self.flushes += 1;
        self.flush_origins.push(self.origin);
        Ok(())
    }
    fn epoch_remaining(&self) -> Option<u64> {
        self.epoch.map(|e| e - self.used)
    }
    fn stats(&self) -> DeviceStats {
        DeviceStats::default()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        Ok(())
    }
}
