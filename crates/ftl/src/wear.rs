//! Wear leveling: which erased (or erasable) block an FTL fills next, and
//! when the data of a young block moves so that the block takes its share
//! of erases. This file owns the policy every FTL uses; each FTL applies it
//! to its own allocation unit (SCFTL superblocks, the baselines' segments).
//!
//! As the SCFTL paper's §6.1 adds unverified optimisations safely, the
//! policy is *unverified* and its choices pass a *validator*: a dynamic
//! choice must name a block that is in the FTL's free (or erasable) queue —
//! exactly the blocks the verified FIFO choice could take — else the FIFO
//! choice is used and [`WearStats::rejected`] counts it. A static move only
//! rewrites live data under the FTL's own rules (for SCFTL: relocations
//! charged to the epoch's write budget), so it never changes what a read or
//! a crash returns.
//!
//! - Dynamic: allocate the least-worn candidate (its most-worn erase
//!   block's erase count, from [`flash::Flash::block_wear`]); among equals,
//!   the one FIFO would take first. SCFTL also requires a candidate to be
//!   *settled* (`scftl/wear.rs`).
//! - Static: when the most-worn data block has more than `static_spread`
//!   erases above the least-worn block holding data, that block's data
//!   moves out (cold data sits in blocks that are never erased), so the
//!   young block joins the rotation.
//!
//! The library default is [`WearPolicy::OFF`] (FIFO, the verified choice,
//! which every seeded mutant's seed was found with); callers turn leveling
//! on with `BlockDevice::set_wear_policy` ([`default_for`] is the most each
//! FTL supports), as `scftl serve`, `scftl bench wear` and `scftl
//! crashtest --wear-leveling` do; `scftl mount` (and `crashtest --fs
//! --wear-leveling`) sets [`WearPolicy::DYNAMIC`].

use std::collections::VecDeque;

use flash::{BlockId, Flash};

/// How an FTL levels wear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WearPolicy {
    /// Allocate the least-worn free block instead of the oldest.
    pub dynamic: bool,
    /// Move the data of the least-worn block holding data when the
    /// most-worn block has more than this many erases above it; `None`
    /// turns static leveling off.
    pub static_spread: Option<u32>,
}

impl WearPolicy {
    /// FIFO allocation, no data moves.
    pub const OFF: WearPolicy = WearPolicy {
        dynamic: false,
        static_spread: None,
    };
    /// Dynamic and static leveling, data moving at a spread of 2 erases
    /// (`scftl bench wear`: data-block max/avg 1.16 → 1.04 under 80/20 at
    /// an unchanged WAF; 4 reached only 1.10).
    pub const DEFAULT: WearPolicy = WearPolicy {
        dynamic: true,
        static_spread: Some(DEFAULT_STATIC_SPREAD),
    };
    /// Dynamic leveling only: allocation takes the least-worn free block
    /// and no data moves for wear, so a caller's write budget is all its
    /// own (`scftl mount`: the file system's group commit sizes its
    /// groups by the epoch). SCFTL still rotates its metadata regions
    /// (`scftl/wear.rs`), which moves no data either.
    pub const DYNAMIC: WearPolicy = WearPolicy {
        dynamic: true,
        static_spread: None,
    };

    /// Whether any leveling is on.
    pub fn is_on(&self) -> bool {
        self.dynamic || self.static_spread.is_some()
    }
}

impl Default for WearPolicy {
    fn default() -> Self {
        WearPolicy::OFF
    }
}

/// Refuses a policy with static leveling for an FTL (`name`) that levels
/// wear dynamically only.
pub fn dynamic_only(policy: WearPolicy, name: &str) -> crate::Result<()> {
    if policy.static_spread.is_some() {
        return Err(crate::FtlError::BadArgument(format!(
            "the {name} FTL levels wear dynamically only (it moves no data for wear); ask for no static spread"
        )));
    }
    Ok(())
}

/// The most a `kind` of FTL supports of [`WearPolicy::DEFAULT`]: all of it
/// for SCFTL, dynamic leveling for the others.
pub fn default_for(kind: crate::FtlKind) -> WearPolicy {
    match kind {
        crate::FtlKind::Scftl => WearPolicy::DEFAULT,
        _ => WearPolicy::DYNAMIC,
    }
}

/// Static leveling's default spread (erases between the most-worn data
/// block and the least-worn one holding data).
pub const DEFAULT_STATIC_SPREAD: u32 = 2;

/// What wear leveling did since the device was opened or formatted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WearStats {
    /// Allocations that took the policy's (validated) choice.
    pub dynamic_choices: u64,
    /// Choices the validator rejected (the FIFO choice was used instead).
    pub rejected: u64,
    /// Blocks static leveling started to empty.
    pub static_moves: u64,
    /// Sectors static leveling moved.
    pub static_sectors: u64,
    /// Full checkpoints that moved the metadata regions onto less-worn
    /// blocks (SCFTL).
    pub meta_rotations: u64,
    /// Full checkpoints that moved a metadata superblock off a bad erase
    /// block (SCFTL: a program or erase of the metadata failed).
    pub meta_repairs: u64,
}

/// Takes the next block to fill out of `queue`: `choice` if the validator
/// accepts it (it is in `queue`), else the front (FIFO), counting the
/// rejection. `None` only when `queue` is empty.
pub fn take_validated<T: Copy + PartialEq>(
    queue: &mut VecDeque<T>,
    choice: Option<T>,
    stats: &mut WearStats,
) -> Option<T> {
    take_validated_where(queue, choice, stats, |_| true)
}

/// [`take_validated`] whose FIFO fallback is the oldest block `eligible`
/// accepts (SCFTL: one the erase hold does not keep); `None` when there is
/// none. `choice` is the caller's to check against `eligible`.
pub fn take_validated_where<T: Copy + PartialEq>(
    queue: &mut VecDeque<T>,
    choice: Option<T>,
    stats: &mut WearStats,
    eligible: impl Fn(T) -> bool,
) -> Option<T> {
    if let Some(c) = choice {
        if let Some(i) = queue.iter().position(|&x| x == c) {
            stats.dynamic_choices += 1;
            return queue.remove(i);
        }
        stats.rejected += 1;
    }
    let i = queue.iter().position(|&x| eligible(x))?;
    queue.remove(i)
}

/// The least-worn of `items` by `wear`; the first among equals.
pub fn least_worn<T: Copy>(
    items: impl IntoIterator<Item = T>,
    mut wear: impl FnMut(T) -> u64,
) -> Option<T> {
    let mut best: Option<(T, u64)> = None;
    for x in items {
        let w = wear(x);
        if best.is_none_or(|(_, bw)| w < bw) {
            best = Some((x, w));
        }
    }
    best.map(|(x, _)| x)
}

/// The wear of a stripe of erase blocks (an SCFTL superblock, a baseline
/// segment), which are erased together: the most-worn one's erase count
/// (a block whose record cannot be read counts 0).
pub fn stripe_wear<F: Flash + ?Sized>(flash: &F, blocks: impl IntoIterator<Item = BlockId>) -> u64 {
    blocks
        .into_iter()
        .map(|b| flash.block_wear(b).map_or(0, |w| u64::from(w.erases)))
        .max()
        .unwrap_or(0)
}

/// Static leveling's candidate: among `(block, wear)` of the blocks holding
/// data, the least worn, if `max_wear` (the most-worn data block's)
/// exceeds it by more than `spread` erases.
pub fn static_candidate<T: Copy>(
    holding: impl IntoIterator<Item = (T, u64)>,
    max_wear: u64,
    spread: u32,
) -> Option<T> {
    let (t, w) = holding
        .into_iter()
        .fold(None::<(T, u64)>, |best, (t, w)| match best {
            Some((_, bw)) if bw <= w => best,
            _ => Some((t, w)),
        })?;
    (max_wear > w + u64::from(spread)).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validator_takes_a_queued_choice_and_rejects_any_other() {
        let mut q: VecDeque<u32> = [5, 7, 9].into_iter().collect();
        let mut st = WearStats::default();
        assert_eq!(take_validated(&mut q, Some(7), &mut st), Some(7));
        assert_eq!(q, [5, 9]);
        // Not in the queue (e.g. a buggy policy names a used block): FIFO.
        assert_eq!(take_validated(&mut q, Some(42), &mut st), Some(5));
        assert_eq!(take_validated(&mut q, None, &mut st), Some(9));
        assert_eq!(take_validated(&mut q, Some(9), &mut st), None);
        assert_eq!((st.dynamic_choices, st.rejected), (1, 2));
    }

    #[test]
    fn least_worn_prefers_the_first_among_equals() {
        let wear = [3u64, 1, 4, 1, 5];
        assert_eq!(least_worn(0..5usize, |i| wear[i]), Some(1));
        assert_eq!(least_worn(std::iter::empty::<usize>(), |_| 0), None);
    }

    #[test]
    fn static_candidate_needs_more_than_the_spread() {
        let holding = [(1u32, 40u64), (2, 20), (3, 30)];
        assert_eq!(static_candidate(holding, 24, 4), None);
        assert_eq!(static_candidate(holding, 25, 4), Some(2));
        assert_eq!(static_candidate([], 100, 4), None::<u32>);
    }
}
