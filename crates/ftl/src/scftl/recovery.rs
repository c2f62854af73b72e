//! Recovery, part 1: reconstructing the stable L2P from flash, read-only.
//!
//! Steps: load the committed full checkpoint with the highest generation;
//! scan the whole delta region in order; collect every epoch whose
//! committed page is on flash (a committed page activates the earlier pages
//! *of its own epoch*; tentative pages of a crashed epoch are skipped, and
//! since later epochs get larger ids they never activate them). Pages of
//! another generation (left by an interrupted erase of the region), torn
//! pages and misplaced pages are ignored.
//!
//! Which epochs are durable: a flush syncs once, after its committed page,
//! and an ordered flush not at all, so the pages of the last epochs may have
//! reached the media only in part. A delta page flagged
//! [`format::KIND_AFTER_SYNC`] was programmed after a sync returned, so it
//! proves every epoch before its own durable. The epochs after the
//! last proven one are *verified*: every sector they mapped is read back,
//! its CRC checked against its OOB record and chained into the epoch digest,
//! which must equal the one in the committed page (docs/FORMAT.md §4.3).
//! They are applied in order up to the first that fails; that one and all
//! after it are dropped (`fell_back`), and `open` then starts a new
//! generation so they can never be taken for live epochs again.
//!
//! The same function serves `open` and `check_invariants` (which compares
//! its result with the ghost copy of the stable L2P), so it never writes.
//! Rebuilding P2L, valid counts and queues from the result lives in
//! `mod.rs` (selective persistence: only the L2P is primary data).

use flash::Flash;

use crate::device::{FtlError, Result};
use crate::mutant::Mutant;

use super::checkpoint;
use super::features::Features;
use super::format::{self, data_crc, data_oob, DATA_OOB_LEN};
use super::layout::{Address, La, Layout, MetaMap, Psa, Sb};
use super::map::L2p;

/// Most epochs one chain of in-page commits holds: a flush commits in a
/// delta page (with a consolidation page) at least every this many
/// epochs, which bounds what recovery reads to follow the chain.
pub(crate) const MAX_CHAIN: u32 = 128;

/// What the flash says the stable state is.
pub(crate) struct Reconstructed {
    pub l2p: L2p,
    /// Slot of the committed checkpoint used.
    pub slot: usize,
    /// The metadata map its commit record names (the initial map before
    /// configuration version 7).
    pub map: MetaMap,
    pub gen: u64,
    /// Smallest epoch id larger than every id seen on flash.
    pub next_epoch: u64,
    /// One past the last programmed page of the delta region.
    pub delta_wp: u32,
    /// The region holds programmed pages but none of the current
    /// generation: erase it before appending (an erase was interrupted).
    pub delta_needs_erase: bool,
    /// Digest of the last epoch applied in this generation (0: none).
    pub chain: u32,
    /// A committed epoch failed its verification and was dropped, with
    /// every epoch after it.
    pub fell_back: bool,
    /// Epochs applied because they verified (nothing on flash proves them
    /// durable): every later recovery verifies them again, reading their
    /// sectors — also those a later epoch overrode, which the FTL may erase
    /// once it runs (see `open`).
    pub verified: u32,
    /// The data superblocks those epochs' pairs point into.
    pub verified_sbs: Vec<Sb>,
    /// Pairs of the epochs recovered from in-page records after the last
    /// consolidation page, in order, and how many epochs they are.
    pub tail: Vec<(La, Psa)>,
    pub tail_epochs: u32,
    pub tail_last_epoch: u64,
    /// Pages of the generation follow that tail in the region (its
    /// consolidation page was lost), so appending it would misorder it.
    pub tail_out_of_order: bool,
    /// The superblock holding the records of that tail (a chain never
    /// leaves its superblock), if the tail is not empty: until a region
    /// page holds the tail, erasing it loses the tail and the proof it
    /// gives the epochs before it (see `open`).
    pub tail_sb: Option<Sb>,
    /// Where recovery's walk along that chain ended: the link after its
    /// last applied record, or the last commit's own link (`None`: no
    /// commit with a link, nothing walked). A commit record found there
    /// that the walk did not apply makes `open` write a full checkpoint
    /// ([`record_in_window`]).
    pub chain_end: Option<Psa>,
}

/// An epoch committed in a data page: by an in-page record (docs/FORMAT.md
/// §4.8) or an OOB commit (§4.9).
struct InPage {
    id: u64,
    pairs: Vec<(La, Psa)>,
    /// The digest an in-page record carries; `None` for an OOB commit,
    /// whose digest follows from `crcs` and the previous epoch's.
    digest: Option<u32>,
    /// OOB commits: the CRC record of each pair's sector, in pair order.
    crcs: Vec<u32>,
}

/// Which pairs of an epoch it leaves in place: the last pair of each
/// logical sector, when mapped (the sectors its digest covers, §4.3).
fn live_pairs(pairs: &[(La, Psa)]) -> Vec<bool> {
    let mut seen = std::collections::HashSet::with_capacity(pairs.len());
    let mut live = vec![false; pairs.len()];
    for (i, &(la, pa)) in pairs.iter().enumerate().rev() {
        live[i] = seen.insert(la) && pa.is_mapped();
    }
    live
}

impl InPage {
    /// [`live_pairs`] of this epoch.
    fn live(&self) -> Vec<bool> {
        live_pairs(&self.pairs)
    }

    /// The epoch's digest (§4.3) after `prev`, the previous epoch's.
    fn digest_after(&self, prev: u32) -> u32 {
        self.digest.unwrap_or_else(|| {
            let mut d = format::digest_start(prev, self.id);
            for (&crc, live) in self.crcs.iter().zip(self.live()) {
                if live {
                    d = format::digest_sector(d, crc);
                }
            }
            d
        })
    }
}

/// A committed epoch not yet known to be durable.
struct Epoch {
    id: u64,
    pairs: Vec<(La, Psa)>,
    /// The digest its committed page carries.
    digest: u32,
    /// Every one of its pages was found.
    complete: bool,
    /// Region index of its committed page (for messages).
    commit_idx: u32,
    /// A consolidation page: epochs already durable, applied as found.
    trusted: bool,
}

fn check_pa(layout: &Layout, la: La, pa: Psa, logical: usize) -> Result<()> {
    if la.index() >= logical || (pa.is_mapped() && !layout.is_data_psa(pa)) {
        return Err(FtlError::Corrupt(format!(
            "metadata maps logical sector {la} to physical sector {pa}, which is out of range"
        )));
    }
    Ok(())
}

/// Reconstructs the stable L2P. Honours the recovery mutants
/// (`HonourTentativeDeltas`, `SkipCrcCheck`, `RecoveryReusesCrashedEpoch`).
/// With [`Features::oob_logical_numbers`] the image's data pages carry
/// logical sector records (docs/FORMAT.md §4.7), which every sector
/// recovery reads back to verify must carry intact too. With
/// [`Features::movable_metadata`] the newest checkpoint is found by a scan
/// of every superblock, since the metadata regions rotate
/// ([`checkpoint::load_newest`]).
pub(crate) fn reconstruct<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    logical: usize,
    mutant: Mutant,
    page: &mut [u8],
    features: Features,
) -> Result<Reconstructed> {
    let check = mutant != Mutant::SkipCrcCheck;
    let mut l2p = L2p::unmapped(logical);
    let scan_for_map = features.movable_metadata;
    let (rec, map) =
        checkpoint::load_newest(flash, layout, check, l2p.as_mut_slice(), page, scan_for_map)?;
    // Everything below reads the regions where the checkpoint says they are.
    let mut found = layout.clone();
    found.set_meta(map.clone());
    let layout = &found;
    for (la, pa) in l2p.iter() {
        check_pa(layout, la, pa, logical)?;
    }
    let mut scan = Scan {
        layout,
        logical,
        mutant,
        check,
        la_records: features.oob_logical_numbers,
        oob_run_max: features.max_oob_epoch_pages(),
        gen: rec.gen,
        // In-page and OOB commits exist only where the OOB has room for
        // their marker.
        inpage: layout.geometry.oob_size as usize
            >= layout.spp as usize * DATA_OOB_LEN + format::INPAGE_MARKER_LEN,
        l2p,
        next_epoch: rec.next_epoch,
        last_programmed: None,
        current_gen_seen: false,
        pending: Vec::new(),
        pending_epoch: None,
        seen_in_epoch: 0,
        unproven: Vec::new(),
        chain: 0,
        last_link: None,
        tail_out_of_order: false,
        chain_buf: vec![0u8; layout.page_size],
    };
    scan.region(flash, page)?;
    let (tail, tail_sb) = scan.tail(flash, page)?;
    let v = scan.verify_unproven(flash, page)?;
    Ok(Reconstructed {
        l2p: scan.l2p,
        slot: rec.slot,
        map,
        gen: rec.gen,
        next_epoch: scan.next_epoch,
        delta_wp: scan.last_programmed.map_or(0, |i| i + 1),
        delta_needs_erase: scan.last_programmed.is_some() && !scan.current_gen_seen,
        chain: scan.chain,
        fell_back: v.fell_back,
        verified: v.verified,
        verified_sbs: v.sbs,
        tail: tail.pairs,
        tail_epochs: tail.epochs,
        tail_last_epoch: tail.last_epoch,
        tail_out_of_order: scan.tail_out_of_order,
        tail_sb,
        chain_end: tail.end,
    })
}

/// What verifying the unproven epochs found.
struct Verified {
    /// An epoch failed its check; it and every later one were dropped.
    fell_back: bool,
    /// Epochs verified by reading their sectors back.
    verified: u32,
    /// The superblocks those sectors are in.
    sbs: Vec<Sb>,
}

/// The state of [`reconstruct`]'s scan of the delta region, and what it
/// needs to know of the image.
struct Scan<'a> {
    layout: &'a Layout,
    logical: usize,
    mutant: Mutant,
    check: bool,
    /// Data pages carry logical sector records ([`Features`]).
    la_records: bool,
    /// How far an OOB commit's run may reach from its link
    /// (`Features::max_oob_epoch_pages`).
    oob_run_max: u32,
    /// The generation of the checkpoint the scan builds on.
    gen: u64,
    /// The OOB has room for in-page and OOB commit markers.
    inpage: bool,
    l2p: L2p,
    next_epoch: u64,
    last_programmed: Option<u32>,
    current_gen_seen: bool,
    /// Pairs of the epoch being read, before its committed page.
    pending: Vec<(La, Psa)>,
    pending_epoch: Option<u64>,
    seen_in_epoch: u32,
    /// Committed epochs not yet proven durable, in order.
    unproven: Vec<Epoch>,
    /// The digest of the last epoch applied.
    chain: u32,
    /// The last committed page's epoch and link, while no page of the
    /// generation has followed it.
    last_link: Option<(u64, Psa)>,
    tail_out_of_order: bool,
    chain_buf: Vec<u8>,
}

impl Scan<'_> {
    /// Reads every programmed page of the delta region, in order.
    fn region<F: Flash + ?Sized>(&mut self, flash: &mut F, page: &mut [u8]) -> Result<()> {
        let layout = self.layout;
        let ss = layout.geometry.sector_size as usize;
        let read_len = format::delta_crc_len(layout.delta_pairs_per_page).div_ceil(ss) * ss;
        let dies = layout.dies;
        let mut stripe = Vec::with_capacity(dies as usize);
        for idx in 0..layout.delta_pages() {
            let addr = layout.delta_page(idx);
            if idx % dies == 0 {
                // Region pages are die-interleaved: the next `dies` pages
                // are one per die, so the dies sense them in parallel and
                // each probe (and read) below finds its page in the die's
                // register.
                stripe.clear();
                stripe.extend(
                    (idx..(idx + dies).min(layout.delta_pages())).map(|k| layout.delta_page(k)),
                );
                flash.prefetch(&stripe)?;
            }
            // Most of the region is erased at most times: sensing a page is
            // much cheaper than transferring and checking it.
            if flash.probe_erased(addr)? {
                continue;
            }
            // Only the sectors that can hold the header and pairs are read.
            let page = &mut page[..read_len];
            flash.read(addr, 0, page)?;
            self.last_programmed = Some(idx);
            self.page(flash, idx, page)?;
        }
        Ok(())
    }

    /// One programmed page of the region, at index `idx`.
    fn page<F: Flash + ?Sized>(&mut self, flash: &mut F, idx: u32, page: &[u8]) -> Result<()> {
        let ppp = self.layout.delta_pairs_per_page;
        let check_crc = self.check && self.mutant != Mutant::DeltaScanSkipsCrc;
        let Some(h) = format::parse(page, check_crc) else {
            return Ok(()); // torn or garbage
        };
        if self.check {
            if h.gen > self.gen {
                return Err(FtlError::Corrupt(format!(
                    "delta page {idx} belongs to generation {}, newer than the newest committed full checkpoint ({})",
                    h.gen, self.gen
                )));
            }
            if h.gen != self.gen || h.index != idx || h.count > ppp {
                return Ok(()); // stale generation or misplaced
            }
        }
        let kind = format::base_kind(h.kind);
        let consolidated = kind == format::KIND_CONSOLIDATED;
        if kind != format::KIND_TENTATIVE && !format::is_commit_kind(kind) && !consolidated {
            return Ok(());
        }
        self.current_gen_seen = true;
        if format::is_commit_kind(kind)
            || consolidated
            || self.mutant != Mutant::RecoveryReusesCrashedEpoch
        {
            self.next_epoch = self.next_epoch.max(h.epoch.saturating_add(1));
        }
        if let Some((epoch, link)) = self.last_link.take() {
            // A consolidation page holds the epochs committed in-page after
            // the last committed page, and a page of the next epoch id
            // shows there are none. Otherwise the consolidation page was
            // lost in a crash while later pages landed: the chain must be
            // applied here, before them.
            if !consolidated && h.epoch != epoch.wrapping_add(1) {
                let mut buf = std::mem::take(&mut self.chain_buf);
                let mut t = Tail::default();
                let applied = self.follow_and_apply(flash, epoch, link, &mut buf, &mut t);
                self.chain_buf = buf;
                applied?;
                self.tail_out_of_order |= t.epochs > 0;
            }
        }
        // A page programmed after a sync proves every earlier epoch durable.
        if h.kind & format::KIND_AFTER_SYNC != 0 {
            self.prove_before(h.epoch)?;
        }
        let count = h.count.min(ppp) as usize;
        let mut pairs = Vec::with_capacity(count);
        for k in 0..count {
            let (la, pa) = format::get_pair(page, k);
            check_pa(self.layout, la, pa, self.logical)?;
            pairs.push((la, pa));
        }
        if consolidated {
            // The epochs committed in-page before this page, all durable:
            // applied in place (again, if their chain was followed).
            self.unproven.push(Epoch {
                id: h.epoch,
                pairs,
                digest: h.aux2,
                complete: true,
                commit_idx: idx,
                trusted: true,
            });
            return Ok(());
        }
        if self.pending_epoch != Some(h.epoch) {
            self.pending.clear();
            self.pending_epoch = Some(h.epoch);
            self.seen_in_epoch = 0;
        }
        self.seen_in_epoch += 1;
        self.pending.extend(pairs);
        if format::is_commit_kind(kind) {
            self.unproven.push(Epoch {
                id: h.epoch,
                pairs: std::mem::take(&mut self.pending),
                digest: h.aux2,
                complete: h.aux + 1 == self.seen_in_epoch,
                commit_idx: idx,
                trusted: false,
            });
            // Only the last commit's chain can hold epochs no page of the
            // region holds (a consolidation page follows every other one).
            self.last_link = format::commit_link(page, h.count, format::crc_len_of(page))
                .filter(|_| self.inpage)
                .map(|link| (h.epoch, link));
        } else if self.mutant == Mutant::HonourTentativeDeltas {
            for &(la, pa) in &self.pending {
                self.l2p[la] = pa;
            }
            self.pending.clear();
        }
        Ok(())
    }

    /// Applies, in order, every unproven epoch older than `epoch`: a page
    /// of `epoch` programmed after a sync proves them durable.
    fn prove_before(&mut self, epoch: u64) -> Result<()> {
        let Some(last) = self.unproven.iter().rposition(|e| e.id < epoch) else {
            return Ok(());
        };
        for e in self.unproven.drain(..=last) {
            if self.check && !e.complete {
                return Err(FtlError::Corrupt(format!(
                    "committed delta page {} closes epoch {}, which a later sync made durable, but some of its pages are unreadable",
                    e.commit_idx, e.id
                )));
            }
            for &(la, pa) in &e.pairs {
                self.l2p[la] = pa;
            }
            self.chain = e.digest;
        }
        Ok(())
    }

    /// Follows the chain of in-page commits from the commit of `epoch`
    /// whose link is `link`, and applies it into `tail`.
    fn follow_and_apply<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        epoch: u64,
        link: Psa,
        buf: &mut [u8],
        tail: &mut Tail,
    ) -> Result<Psa> {
        let (chained, end) = follow_chain(
            flash,
            self.layout,
            self.gen,
            epoch,
            link,
            self.logical,
            self.mutant,
            buf,
            self.la_records,
            self.oob_run_max,
        )?;
        apply_chain(
            chained,
            self.check,
            &mut self.l2p,
            &mut self.unproven,
            &mut self.chain,
            &mut self.next_epoch,
            tail,
        )?;
        Ok(end)
    }

    /// The chain of in-page commits after the last committed delta page,
    /// and the superblock it ends in (when it held any epoch).
    fn tail<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        page: &mut [u8],
    ) -> Result<(Tail, Option<Sb>)> {
        let mut tail = Tail::default();
        let Some((epoch, link)) = self.last_link else {
            return Ok((tail, None));
        };
        tail.end = Some(self.follow_and_apply(flash, epoch, link, page, &mut tail)?);
        let sb = (tail.epochs > 0).then(|| self.layout.sb_of(link));
        Ok((tail, sb))
    }

    /// The epochs nothing proves durable: verified in order, applied up to
    /// the first that fails.
    fn verify_unproven<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        page: &mut [u8],
    ) -> Result<Verified> {
        let trust = !self.check || self.mutant == Mutant::AcceptEpochDigestMismatch;
        let mut v = Verified {
            fell_back: false,
            verified: 0,
            sbs: Vec::new(),
        };
        for e in std::mem::take(&mut self.unproven) {
            let ok = trust
                || e.trusted
                || (e.complete
                    && verify_epoch(flash, self.layout, &e, self.chain, page, self.la_records)?);
            if !ok {
                v.fell_back = true;
                break;
            }
            v.verified += u32::from(!e.trusted);
            if !e.trusted {
                for &(_, pa) in &e.pairs {
                    if pa.is_mapped() {
                        let sb = self.layout.sb_of(pa);
                        if !v.sbs.contains(&sb) {
                            v.sbs.push(sb);
                        }
                    }
                }
            }
            for &(la, pa) in &e.pairs {
                self.l2p[la] = pa;
            }
            self.chain = e.digest;
        }
        Ok(v)
    }
}

/// Epochs applied from in-page records.
#[derive(Default)]
struct Tail {
    pairs: Vec<(La, Psa)>,
    epochs: u32,
    last_epoch: u64,
    /// Where the walk ended: the link after the last applied record, or
    /// the last commit's own link.
    end: Option<Psa>,
}

/// Applies the in-page epochs of a chain, in order. Each valid record was
/// programmed after everything before it was durable, so every epoch still
/// waiting for proof is proven and applied first.
fn apply_chain(
    chained: Vec<InPage>,
    check: bool,
    l2p: &mut L2p,
    unproven: &mut Vec<Epoch>,
    chain: &mut u32,
    next_epoch: &mut u64,
    tail: &mut Tail,
) -> Result<()> {
    for e in chained {
        for u in unproven.drain(..) {
            if check && !u.complete {
                return Err(FtlError::Corrupt(format!(
                    "committed delta page {} closes epoch {}, which a later in-page commit made durable, but some of its pages are unreadable",
                    u.commit_idx, u.id
                )));
            }
            for &(la, pa) in &u.pairs {
                l2p[la] = pa;
            }
            *chain = u.digest;
        }
        for &(la, pa) in &e.pairs {
            l2p[la] = pa;
        }
        *chain = e.digest_after(*chain);
        *next_epoch = (*next_epoch).max(e.id.saturating_add(1));
        tail.pairs.extend_from_slice(&e.pairs);
        tail.epochs += 1;
        tail.last_epoch = e.id;
    }
    Ok(())
}

/// Follows the chain of in-page and OOB commits from a commit of epoch
/// `epoch` whose link is `link` (docs/FORMAT.md §4.8, §4.9). At each link:
/// a page whose OOB carries the in-page marker and whose last sector holds
/// a valid record of this generation and the next epoch id, with its data
/// CRC matching the page, is the next commit; otherwise the pages from the
/// link on, up to one whose OOB carries the OOB commit marker with the CRC
/// of this generation, the next epoch id and those pages' records, are the
/// next commit ([`oob_epoch`]). The commit's own link continues the chain.
/// The first link that fails any check ends it, leaving the commits before
/// it in force. A chain's last OOB commit is then read back
/// ([`oob_epoch_intact`]) and dropped if any of its sectors is not intact:
/// every earlier commit is proven by the later record that follows it.
/// Reads one OOB per link (per page for OOB commits), plus the record's
/// page, plus the sectors of the last OOB commit. Returns the commits and
/// the link where the walk ended (after the last one kept).
#[allow(clippy::too_many_arguments)]
fn follow_chain<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    gen: u64,
    mut epoch: u64,
    mut link: Psa,
    logical: usize,
    mutant: Mutant,
    page: &mut [u8],
    la_records: bool,
    oob_run_max: u32,
) -> Result<(Vec<InPage>, Psa)> {
    let spp = layout.spp as usize;
    let marker = spp * DATA_OOB_LEN;
    let v5_len = format::data_oob_len_v5(layout.spp);
    let oob_len = v5_len.min(layout.geometry.oob_size as usize);
    let mut oob = vec![0xFF; oob_len];
    let mut found = Vec::new();
    // The link each found commit was followed from.
    let mut from = Vec::new();
    // A chain stays inside one superblock (a link never leaves it) and
    // holds at most MAX_CHAIN epochs.
    for _ in 0..layout.pages_per_sb.min(MAX_CHAIN) {
        if !link.is_mapped() || !layout.is_data_psa(link) {
            break;
        }
        let (addr, slot) = layout.locate(link);
        if slot != 0 {
            break;
        }
        // The link's page and the pages after it (an OOB commit's run)
        // are one per die: sensed together, each read below finds its
        // page in its die's register.
        prefetch_stripe(flash, layout, link)?;
        // An erased page reads as 0xFF: no marker.
        flash.read_oob(addr, &mut oob)?;
        if format::inpage_marker::MAGIC.at(marker).bytes(&oob) != format::INPAGE_MAGIC {
            if oob_len < v5_len {
                break; // no logical sector records: no OOB commits
            }
            match oob_epoch(
                flash,
                layout,
                gen,
                epoch + 1,
                link,
                logical,
                mutant,
                &mut oob,
                oob_run_max,
            )? {
                Some((e, next)) => {
                    epoch = e.id;
                    from.push(link);
                    link = next;
                    found.push(e);
                    continue;
                }
                None => break,
            }
        }
        let Some((e, next)) = inpage_epoch(
            flash,
            layout,
            gen,
            epoch,
            addr,
            logical,
            mutant,
            page,
            &oob,
            la_records && oob_len >= v5_len,
        )?
        else {
            break;
        };
        epoch = e.id;
        from.push(link);
        link = next;
        found.push(e);
    }
    if let Some(last) = found.last() {
        if last.digest.is_none()
            && mutant != Mutant::AcceptOobCommitWithTornData
            && !oob_epoch_intact(flash, layout, last, page)?
        {
            found.pop();
            link = from.pop().unwrap_or(link);
        }
    }
    Ok((found, link))
}

/// Whether a commit record lies where the walk from `link` looks: the
/// in-page or OOB commit marker in the OOB of the link's page or of a
/// page after it in its superblock, within an OOB commit's longest run
/// (`oob_run_max` pages). Any marker counts, whether or not its record
/// would verify: recovery must not go on in this generation past a
/// record that a later walk from the same link would find again (the
/// proofs' `Quiet`, proofs/SCFTL/Impl/Model.agda; see
/// `Scftl::record_past_chain`).
pub(crate) fn record_in_window<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    link: Psa,
    oob_run_max: u32,
) -> Result<bool> {
    if !link.is_mapped() || !layout.is_data_psa(link) {
        return Ok(false);
    }
    let spp = layout.spp;
    let marker = spp as usize * DATA_OOB_LEN;
    let oob_len = marker + format::INPAGE_MARKER_LEN;
    if oob_len > layout.geometry.oob_size as usize {
        return Ok(false); // no room for a marker: no records
    }
    let mut oob = vec![0xFF; oob_len];
    let sb = layout.sb_of(link);
    for k in 0..oob_run_max.max(1) {
        let Some(p) = link.0.checked_add(k * spp).map(Psa) else {
            break;
        };
        if layout.sb_of(p) != sb || !layout.is_data_psa(p) {
            break;
        }
        flash.read_oob(layout.locate(p).0, &mut oob)?;
        let magic = format::inpage_marker::MAGIC.at(marker).bytes(&oob);
        if magic == format::INPAGE_MAGIC || magic == format::OOB_COMMIT_MAGIC {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Asks the flash to sense the page of `from` and the pages after it in its
/// superblock, one stripe (a page per die) at most: a chain's next link
/// and an OOB commit's run lie there (consecutive pages of a superblock
/// are on consecutive dies), so their reads cost about one sensing instead
/// of one each. A hint only (`Flash::prefetch`): nothing read changes.
fn prefetch_stripe<F: Flash + ?Sized>(flash: &mut F, layout: &Layout, from: Psa) -> Result<()> {
    let spp = layout.spp;
    let sb = layout.sb_of(from);
    let pages: Vec<flash::PageAddr> = (0..layout.dies)
        .map_while(|k| from.0.checked_add(k * spp).map(Psa))
        .take_while(|&p| layout.sb_of(p) == sb && layout.is_data_psa(p))
        .map(|p| layout.locate(p).0)
        .collect();
    flash.prefetch(&pages)?;
    Ok(())
}

/// The in-page commit in page `addr` (whose OOB is `oob` and carries the
/// in-page marker) if it is the next one of the chain after
/// epoch `epoch`: its epoch and the link it continues with; `None` where
/// any check fails (the chain ends there). `check_la_records`: the page's
/// logical sector records must name the sectors the record maps into it.
#[allow(clippy::too_many_arguments)]
fn inpage_epoch<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    gen: u64,
    epoch: u64,
    addr: flash::PageAddr,
    logical: usize,
    mutant: Mutant,
    page: &mut [u8],
    oob: &[u8],
    check_la_records: bool,
) -> Result<Option<(InPage, Psa)>> {
    let spp = layout.spp as usize;
    let ss = layout.sector_size;
    let marker = spp * DATA_OOB_LEN;
    let page = &mut page[..spp * ss];
    let (data, record) = page.split_at_mut((spp - 1) * ss);
    flash.read(addr, spp as u32 - 1, record)?;
    let Some(h) = format::parse(record, true) else {
        return Ok(None); // torn
    };
    let count = h.count;
    let fill = h.aux as usize;
    let crc_len = format::crc_len_of(record);
    if format::base_kind(h.kind) != format::KIND_INPAGE
        || ((h.gen != gen || h.epoch != epoch.wrapping_add(1))
            && mutant != Mutant::AcceptStaleInpageRecord)
        || count > format::inpage_capacity(ss)
        || crc_len != format::inpage_record_len(count)
        || !(1..spp).contains(&fill)
        || format::inpage_marker::RECORD_CRC.at(marker).get_u32(oob)
            != format::header::CRC.get_u32(record)
    {
        return Ok(None);
    }
    let off = format::delta_crc_len(count);
    let word = |o: usize| u32::from_le_bytes(record[o..o + 4].try_into().unwrap());
    let next = Psa(word(off));
    let stored = word(off + format::LINK_LEN);
    let data = &mut data[..fill * ss];
    flash.read(addr, 0, data)?;
    let oob_records = if mutant == Mutant::InpageCrcOmitsOob {
        &[][..]
    } else {
        &oob[..fill * DATA_OOB_LEN]
    };
    let computed = format::inpage_data_crc(data, oob_records);
    if stored != computed && mutant != Mutant::AcceptCommitWithBadDataCrc {
        return Ok(None);
    }
    let mut pairs = Vec::with_capacity(count as usize);
    for k in 0..count as usize {
        let (la, pa) = format::get_pair(record, k);
        check_pa(layout, la, pa, logical)?;
        pairs.push((la, pa));
    }
    // The data CRC does not cover the page's logical sector records: a
    // page torn below them fails here (else GC could not trust them).
    if check_la_records {
        let torn = pairs.iter().any(|&(la, pa)| {
            pa.is_mapped() && layout.locate(pa).0 == addr && {
                let at = format::data_la_offset(layout.spp, layout.locate(pa).1);
                oob[at..at + format::DATA_LA_LEN] != la.0.to_le_bytes()
            }
        });
        if torn {
            return Ok(None);
        }
    }
    Ok(Some((
        InPage {
            id: h.epoch,
            pairs,
            digest: Some(h.aux2),
            crcs: Vec::new(),
        },
        next,
    )))
}

/// Walks the data pages of an epoch committed in the OOB of its last page
/// (docs/FORMAT.md §4.9), from `link` (whose OOB is already in `oob`): each
/// page before the last must be full (a logical sector record in every
/// slot) and carry no marker; the last carries the OOB commit marker, its
/// data slots first and padding after; and the marker's CRC must be that of
/// generation `gen`, epoch `id` and the pages' records. Returns the epoch
/// (its pairs rebuilt from the records) and its link, or `None` if any
/// check fails. The pages stay in `link`'s superblock.
#[allow(clippy::too_many_arguments)]
fn oob_epoch<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    gen: u64,
    id: u64,
    link: Psa,
    logical: usize,
    mutant: Mutant,
    oob: &mut [u8],
    oob_run_max: u32,
) -> Result<Option<(InPage, Psa)>> {
    let spp = layout.spp;
    let marker = spp as usize * DATA_OOB_LEN;
    let skip_missing = mutant == Mutant::OobCommitPastMissingPage;
    let sb = layout.sb_of(link);
    let mut records = Vec::new();
    let mut pairs = Vec::new();
    let mut crcs = Vec::new();
    for k in 0..oob_run_max {
        let first = Psa(link.0 + k * spp);
        if k > 0 {
            if layout.sb_of(first) != sb {
                return Ok(None);
            }
            if k % layout.dies == 0 {
                prefetch_stripe(flash, layout, first)?;
            }
            flash.read_oob(layout.locate(first).0, oob)?;
        }
        let magic = format::inpage_marker::MAGIC.at(marker).bytes(oob);
        let last = magic == format::OOB_COMMIT_MAGIC;
        if !last && magic != [flash::ERASED_BYTE; 4] {
            return Ok(None);
        }
        let mut fill = 0;
        for slot in 0..spp {
            let at = format::data_la_offset(spp, slot);
            let la = La(u32::from_le_bytes(oob[at..at + 4].try_into().unwrap()));
            if la == La::NONE {
                continue;
            }
            if fill != slot {
                return Ok(None); // a data slot after padding
            }
            fill += 1;
        }
        if fill < spp && !last {
            if skip_missing {
                continue;
            }
            return Ok(None); // an erased or torn page before the record
        }
        if fill == 0 {
            return Ok(None);
        }
        if last && skip_missing {
            records.clear();
        }
        format::push_page_records(&mut records, spp, oob);
        for slot in 0..fill {
            let at = format::data_la_offset(spp, slot);
            let la = La(u32::from_le_bytes(oob[at..at + 4].try_into().unwrap()));
            let crc = data_oob::CRC.at(slot as usize * DATA_OOB_LEN).get_u32(oob);
            pairs.push((la, Psa(first.0 + slot)));
            crcs.push(crc);
        }
        if !last {
            continue;
        }
        let stored = format::inpage_marker::RECORD_CRC.at(marker).get_u32(oob);
        if stored != format::oob_commit_crc(gen, id, &records, spp) {
            return Ok(None);
        }
        for &(la, pa) in &pairs {
            check_pa(layout, la, pa, logical)?;
        }
        let next = Psa(first.0 + spp);
        let next = if layout.sb_of(next) == sb {
            next
        } else {
            Psa::UNMAPPED
        };
        let e = InPage {
            id,
            pairs,
            digest: None,
            crcs,
        };
        return Ok(Some((e, next)));
    }
    Ok(None)
}

/// Whether every sector an OOB-committed epoch leaves mapped reads back
/// with the CRC its OOB record holds (the records are intact — the commit's
/// CRC covers them — but a power cut may have lost a page's data while its
/// OOB landed).
fn oob_epoch_intact<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    e: &InPage,
    page: &mut [u8],
) -> Result<bool> {
    let ss = layout.sector_size;
    for ((&(la, pa), &crc), live) in e.pairs.iter().zip(&e.crcs).zip(e.live()) {
        if !live {
            continue;
        }
        let (addr, slot) = layout.locate(pa);
        let data = &mut page[..ss];
        flash.read(addr, slot, data)?;
        if data_crc(la, data) != crc {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether every sector epoch `e` leaves mapped (its last pair for each
/// logical sector, when mapped) reads back with the CRC its OOB record
/// holds (and, with `la_records`, the logical sector record naming it), and those CRCs chain from `prev` (the digest of the epoch applied
/// before it) to the digest of its committed page. A sector that is
/// missing, torn or stale fails one of the two checks (a stale copy of the
/// same logical sector with the same data is the same content). Sectors a
/// later pair of the epoch overrides are not read: once the epoch is
/// durable, the FTL may erase them.
fn verify_epoch<F: Flash + ?Sized>(
    flash: &mut F,
    layout: &Layout,
    e: &Epoch,
    prev: u32,
    page: &mut [u8],
    la_records: bool,
) -> Result<bool> {
    let ss = layout.sector_size;
    let mut oob = vec![0xFF; format::data_oob_len_v5(layout.spp)];
    let mut digest = format::digest_start(prev, e.id);
    let live = live_pairs(&e.pairs);
    for (&(la, pa), _) in e.pairs.iter().zip(&live).filter(|(_, &l)| l) {
        let (addr, slot) = layout.locate(pa);
        let data = &mut page[..ss];
        flash.read(addr, slot, data)?;
        let crc = data_crc(la, data);
        let rec = slot as usize * DATA_OOB_LEN;
        let at = format::data_la_offset(layout.spp, slot);
        let end = if la_records {
            at + format::DATA_LA_LEN
        } else {
            rec + DATA_OOB_LEN
        };
        flash.read_oob(addr, &mut oob[..end])?;
        if data_oob::CRC.at(rec).get_u32(&oob) != crc
            || (la_records && oob[at..end] != la.0.to_le_bytes())
        {
            return Ok(false);
        }
        digest = format::digest_sector(digest, crc);
    }
    Ok(digest == e.digest)
}
