//! `check_invariants` for OPTR: the mapping, the staging page, the cache
//! and the valid counts agree (the invariants listed in `mod.rs`).

use flash::Flash;

use super::Optr;
use crate::logstruct::{Ppa, SegState};
use crate::UNMAPPED;

impl<F: Flash> Optr<F> {
    pub(super) fn check(&mut self) -> Result<(), String> {
        self.cache.check()?;
        self.segs.check_transitions()?;
        let mut valid = vec![0u32; self.layout.segments as usize];
        let mut mapped = 0u64;
        for lpn in 0..self.logical as u32 {
            let loc = self.l2p[lpn as usize];
            let cached = self.cache.get(lpn);
            if loc != UNMAPPED || cached.is_some() {
                mapped += 1;
            }
            if let Some(e) = cached {
                if e.wid >= self.next_wid {
                    return Err(format!(
                        "cached sector {lpn} carries wid {} >= next wid {}",
                        e.wid, self.next_wid
                    ));
                }
            }
            if loc == UNMAPPED {
                continue;
            }
            if let Some(slot) = self.stage_slot(loc) {
                if self.stage.get(slot).map(|s| s.clue.lpn) != Some(lpn) {
                    return Err(format!(
                        "sector {lpn} maps to staging slot {slot}, which holds something else"
                    ));
                }
                continue;
            }
            if self.p2l[loc as usize] != lpn {
                return Err(format!(
                    "sector {lpn} maps to physical sector {loc}, whose reverse entry is {}",
                    self.p2l[loc as usize]
                ));
            }
            let seg = self.layout.seg_of(Ppa(loc));
            match self.segs.state(seg) {
                SegState::Used | SegState::Active => {}
                st => {
                    return Err(format!(
                        "sector {lpn} maps into segment {} in state {st:?}",
                        seg.0
                    ))
                }
            }
            valid[seg.0 as usize] += 1;
        }
        if valid != self.segs.valid {
            let s = (0..valid.len())
                .find(|&i| valid[i] != self.segs.valid[i])
                .unwrap_or(0);
            return Err(format!(
                "segment {s}: valid count {} but {} sectors map into it",
                self.segs.valid[s], valid[s]
            ));
        }
        if mapped != self.mapped {
            return Err(format!(
                "{} sectors counted mapped, {mapped} are",
                self.mapped
            ));
        }
        let free = (self.plan.first_data_segment..self.layout.segments)
            .filter(|&s| {
                matches!(
                    self.segs.states()[s as usize],
                    SegState::Free | SegState::Dirty
                )
            })
            .count();
        if free != self.segs.free.len() {
            return Err(format!(
                "{free} free segments but {} queued",
                self.segs.free.len()
            ));
        }
        self.check_checkpoint_diff()?;
        if self
            .records
            .iter()
            .any(|r| r.x >= r.y || r.y >= self.next_wid)
        {
            return Err("a buffered coalescing record is out of order".into());
        }
        Ok(())
    }

    /// Every L2P entry that differs from the latest checkpoint's is marked
    /// changed (`ghost` feature; a no-op without it).
    fn check_checkpoint_diff(&self) -> Result<(), String> {
        for lpn in 0..self.ckpt_ghost.len() {
            let changed = self.ckpt_dirty[lpn / 64] & (1 << (lpn % 64)) != 0;
            if !changed && self.l2p[lpn] != self.ckpt_ghost[lpn] {
                return Err(format!(
                    "sector {lpn} maps to {} but the latest checkpoint recorded {} and it is not marked changed",
                    self.l2p[lpn], self.ckpt_ghost[lpn]
                ));
            }
        }
        let marked: u64 = self
            .ckpt_dirty
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum();
        if marked != self.ckpt_dirty_list.len() as u64 {
            return Err(format!(
                "{marked} sectors marked changed since the checkpoint, {} listed",
                self.ckpt_dirty_list.len()
            ));
        }
        Ok(())
    }
}
