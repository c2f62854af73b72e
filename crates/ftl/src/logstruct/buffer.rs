//! The page-sized merge buffer: sectors waiting to be programmed together.
//!
//! Invariants:
//! - slots `0..len` are filled, densely (a removed slot is refilled by the
//!   last one), and `len <= sectors_per_page`;
//! - for each filled slot, `oob[slot]` is the OOB record of its content
//!   (`la` is a logical sector or `LA_TRIM`), with a CRC over the slot's data;
//! - the records of unfilled slots are all `0xFF` (they read as `LA_EMPTY`),
//!   so a partially filled page can be programmed as is.

use super::oob::{decode_record, encode_record, OOB_RECORD_SIZE};

#[derive(Debug)]
pub(crate) struct MergeBuf {
    sector_size: usize,
    slots: usize,
    data: Vec<u8>,
    oob: Vec<u8>,
    las: Vec<u32>,
    seqs: Vec<u64>,
    len: usize,
}

impl MergeBuf {
    pub(crate) fn new(sector_size: usize, slots: usize) -> MergeBuf {
        MergeBuf {
            sector_size,
            slots,
            data: vec![0; sector_size * slots],
            oob: vec![0xFF; OOB_RECORD_SIZE * slots],
            las: vec![0; slots],
            seqs: vec![0; slots],
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn is_full(&self) -> bool {
        self.len == self.slots
    }
    pub(crate) fn la(&self, slot: usize) -> u32 {
        self.las[slot]
    }
    pub(crate) fn seq(&self, slot: usize) -> u64 {
        self.seqs[slot]
    }
    pub(crate) fn sector(&self, slot: usize) -> &[u8] {
        &self.data[slot * self.sector_size..(slot + 1) * self.sector_size]
    }
    pub(crate) fn record(&self, slot: usize) -> &[u8] {
        &self.oob[slot * OOB_RECORD_SIZE..(slot + 1) * OOB_RECORD_SIZE]
    }
    /// The whole page, for programming.
    pub(crate) fn page(&self) -> &[u8] {
        &self.data
    }
    /// The OOB records of all slots, for programming.
    pub(crate) fn oob(&self) -> &[u8] {
        &self.oob
    }

    /// Writes `(la, seq, data)` into `slot` (filled or the next free one).
    pub(crate) fn put(&mut self, slot: usize, la: u32, seq: u64, data: &[u8]) {
        let ss = self.sector_size;
        self.data[slot * ss..(slot + 1) * ss].copy_from_slice(data);
        encode_record(
            &mut self.oob[slot * OOB_RECORD_SIZE..(slot + 1) * OOB_RECORD_SIZE],
            la,
            seq,
            data,
        );
        self.las[slot] = la;
        self.seqs[slot] = seq;
    }

    /// Appends a sector; the caller checks `!is_full()` first.
    pub(crate) fn push(&mut self, la: u32, seq: u64, data: &[u8]) -> usize {
        let slot = self.len;
        self.put(slot, la, seq, data);
        self.len += 1;
        slot
    }

    /// Appends a sector with an existing record (GC relocation: the record,
    /// CRC included, is copied unchanged).
    pub(crate) fn push_with_record(&mut self, record: &[u8], data: &[u8]) -> usize {
        let slot = self.len;
        let ss = self.sector_size;
        self.data[slot * ss..(slot + 1) * ss].copy_from_slice(data);
        self.oob[slot * OOB_RECORD_SIZE..(slot + 1) * OOB_RECORD_SIZE]
            .copy_from_slice(&record[..OOB_RECORD_SIZE]);
        let r = decode_record(record);
        self.las[slot] = r.la;
        self.seqs[slot] = r.seq;
        self.len += 1;
        slot
    }

    /// Removes `slot` by moving the last slot into it. Returns the logical
    /// sector that moved into `slot`, if any moved.
    pub(crate) fn swap_remove(&mut self, slot: usize) -> Option<u32> {
        let last = self.len - 1;
        let ss = self.sector_size;
        let moved = if slot != last {
            self.data.copy_within(last * ss..(last + 1) * ss, slot * ss);
            self.oob.copy_within(
                last * OOB_RECORD_SIZE..(last + 1) * OOB_RECORD_SIZE,
                slot * OOB_RECORD_SIZE,
            );
            self.las[slot] = self.las[last];
            self.seqs[slot] = self.seqs[last];
            Some(self.las[slot])
        } else {
            None
        };
        self.oob[last * OOB_RECORD_SIZE..(last + 1) * OOB_RECORD_SIZE].fill(0xFF);
        self.len = last;
        moved
    }

    /// Empties the buffer (after its page was programmed).
    pub(crate) fn clear(&mut self) {
        self.oob.fill(0xFF);
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logstruct::oob::LA_EMPTY;

    #[test]
    fn swap_remove_keeps_slots_dense_and_unused_records_erased() {
        let mut b = MergeBuf::new(32, 3);
        b.push(1, 10, &[1; 32]);
        b.push(2, 11, &[2; 32]);
        b.push(3, 12, &[3; 32]);
        assert!(b.is_full());
        assert_eq!(b.swap_remove(0), Some(3));
        assert_eq!((b.len(), b.la(0), b.seq(0), b.sector(0)[0]), (2, 3, 12, 3));
        assert!(decode_record(b.record(0)).matches(b.sector(0)));
        assert_eq!(decode_record(b.record(2)).la, LA_EMPTY);
        assert_eq!(b.swap_remove(1), None);
        assert_eq!(b.len(), 1);
        b.clear();
        assert!(b.is_empty() && b.oob().iter().all(|&x| x == 0xFF));
    }
}
