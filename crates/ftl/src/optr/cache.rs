//! The DRAM write-back cache of OPTR (paper §3.2): whole sectors keyed by
//! logical sector, each tagged dirty, with the wid and size of the request
//! that last wrote it, evicted least recently used first.
//!
//! Invariants (the first two checked by [`Cache::check`], the third by
//! `Optr::check_invariants`):
//! - at most `capacity` entries;
//! - `order` and `entries` hold the same sectors, each entry's `tick`
//!   being its key in `order`;
//! - `dirty` holds exactly the dirty entries, keyed by their `tick` (so a
//!   flush finds them without walking the whole cache);
//! - an entry's wid is below the FTL's next wid.
//!
//! A clean entry's data equals what the flash mapping (or the staging
//! page) holds: it became clean when exactly that data was staged.

use std::collections::{BTreeMap, HashMap};

/// One cached sector.
#[derive(Clone, Debug)]
pub struct Entry {
    pub data: Box<[u8]>,
    pub dirty: bool,
    pub wid: u64,
    pub size: u16,
    tick: u64,
}

/// An LRU cache of sectors.
#[derive(Debug)]
pub struct Cache {
    capacity: usize,
    entries: HashMap<u32, Entry>,
    /// Use order: tick → logical sector.
    order: BTreeMap<u64, u32>,
    /// The dirty entries of `order`.
    dirty: BTreeMap<u64, u32>,
    next_tick: u64,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache {
            capacity: capacity.max(1),
            entries: HashMap::new(),
            order: BTreeMap::new(),
            dirty: BTreeMap::new(),
            next_tick: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.entries.len() >= self.capacity
    }

    pub fn get(&self, lpn: u32) -> Option<&Entry> {
        self.entries.get(&lpn)
    }

    pub fn contains(&self, lpn: u32) -> bool {
        self.entries.contains_key(&lpn)
    }

    /// Stores `data` as the dirty value of `lpn` from request `wid` of
    /// `size` sectors; returns the previous entry's (dirty, wid, size) if
    /// there was one. The caller evicts first when the cache is full and
    /// `lpn` is new.
    pub fn put(&mut self, lpn: u32, data: &[u8], wid: u64, size: u16) -> Option<(bool, u64, u16)> {
        let tick = self.next_tick;
        self.next_tick += 1;
        self.order.insert(tick, lpn);
        self.dirty.insert(tick, lpn);
        match self.entries.get_mut(&lpn) {
            Some(e) => {
                let old = (e.dirty, e.wid, e.size);
                self.order.remove(&e.tick);
                self.dirty.remove(&e.tick);
                e.data.copy_from_slice(data);
                e.dirty = true;
                e.wid = wid;
                e.size = size;
                e.tick = tick;
                Some(old)
            }
            None => {
                let e = Entry {
                    data: data.into(),
                    dirty: true,
                    wid,
                    size,
                    tick,
                };
                self.entries.insert(lpn, e);
                None
            }
        }
    }

    /// Removes and returns the least recently used entry.
    pub fn pop_lru(&mut self) -> Option<(u32, Entry)> {
        let (tick, lpn) = self.order.pop_first()?;
        self.dirty.remove(&tick);
        self.entries.remove(&lpn).map(|e| (lpn, e))
    }

    pub fn remove(&mut self, lpn: u32) -> Option<Entry> {
        let e = self.entries.remove(&lpn)?;
        self.order.remove(&e.tick);
        self.dirty.remove(&e.tick);
        Some(e)
    }

    /// The dirty sectors, least recently used first.
    pub fn dirty_lpns(&self) -> Vec<u32> {
        self.dirty.values().copied().collect()
    }

    pub fn mark_clean(&mut self, lpn: u32) {
        if let Some(e) = self.entries.get_mut(&lpn) {
            e.dirty = false;
            self.dirty.remove(&e.tick);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, &Entry)> {
        self.entries.iter().map(|(&l, e)| (l, e))
    }

    /// Checks the structural invariants at the top of this file.
    pub fn check(&self) -> Result<(), String> {
        if self.entries.len() > self.capacity {
            return Err(format!(
                "cache holds {} entries, capacity {}",
                self.entries.len(),
                self.capacity
            ));
        }
        if self.order.len() != self.entries.len() {
            return Err("cache order and entries differ in size".into());
        }
        for (t, l) in &self.order {
            let Some(e) = self.entries.get(l).filter(|e| e.tick == *t) else {
                return Err(format!("cache order names sector {l} at a stale tick"));
            };
            if e.dirty != (self.dirty.get(t) == Some(l)) {
                return Err(format!(
                    "cache sector {l} is {} but the dirty index says otherwise",
                    if e.dirty { "dirty" } else { "clean" }
                ));
            }
        }
        if self.entries.values().filter(|e| e.dirty).count() != self.dirty.len() {
            return Err("the cache's dirty index names sectors that are not dirty".into());
        }
        Ok(())
    }
}
