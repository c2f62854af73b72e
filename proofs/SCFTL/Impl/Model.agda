{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- The model P of the SCFTL algorithm (paper §3, crash model of §5.1),
-- as a `Model` over the same operations as the specification S of
-- SCFTL.Spec.  See proofs/README.md, section "The SCFTL model P", for
-- what is abstracted and which Rust function each step stands for.
--
-- Parameters: as for S (Data, d0, amax, wmax) plus kmax, the bound K on
-- GC relocations per epoch, and _≟D_, equality of sector contents: the
-- one-sync commit's digest is checked by recovery by comparing what a
-- page holds with what the epoch wrote there (a CRC, collisions modelled
-- away), and the proof of formula (4) has to decide that comparison.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Model (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                        (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _+_; _∸_; _≤_; _<_; _≡ᵇ_; _≤ᵇ_; _<ᵇ_; _⊔_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; m<m+n; <⇒≤; <-transˡ)
open import Data.Bool.Base using (Bool; true; false; if_then_else_; not; _∨_; _∧_)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; does)
open import Data.Unit.Base using (⊤)
open import Data.Empty using (⊥)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Addr; Model; UOp; Op; use; recover; flush; RegOp; w; rl; es)
  renaming (reg to regop)

------------------------------------------------------------------------
-- Maps

-- An L2P table: logical address ↦ physical page (nothing = unmapped).
Map : Set
Map = Addr → Maybe ℕ

-- f[a ≔ v]
_[_≔_] : {A : Set} → (ℕ → A) → ℕ → A → ℕ → A
(f [ a ≔ v ]) b = if b ≡ᵇ a then v else f b

-- Applying delta pairs (newest first) to a map.
apply : List (Addr × ℕ) → Map → Map
apply []             m = m
apply ((a , p) ∷ ps) m = apply ps m [ a ≔ just p ]

------------------------------------------------------------------------
-- Flash pages

-- The epoch digest a committed delta page carries (one-sync commit,
-- docs/FORMAT.md §4.3): the data pages the epoch leaves in place, each
-- with the sector (data, OOB logical address) it must hold, and the pairs
-- of the epoch's tentative delta pages (newest first), which must be the
-- pages right below the committed one.  Tentative pages carry `ε`.
-- Its last component is the commit's *link* (docs/FORMAT.md §4.8): the
-- page where the next epoch's first data page goes, whose record slot
-- may hold the next epoch's in-page commit record.
Dg : Set
Dg = List (ℕ × Data × Addr) × List (List (Addr × ℕ)) × ℕ

ε : Dg
ε = [] , [] , 0

-- What a page holds.  Every kind of page carries a CRC on the real
-- device; `junk` is any content that fails it (a torn or interrupted
-- program or erase).
data Cell : Set where
  erased junk : Cell
  dcell : Data → Addr → Cell                       -- data sector + OOB logical address
  dlt   : ℕ → ℕ → List (Addr × ℕ) → Bool → Dg → Cell   -- delta page: generation, epoch id, pairs, committed?, digest
  cpt   : ℕ → Map → Cell                           -- full checkpoint: generation, L2P

-- A page with its sync status (the sync map of §5.1): `syn c` is durable;
-- `uns old new` was programmed or erased since the last SYNC (old is the
-- content at the last SYNC; each page changes at most once between syncs).
data MC : Set where
  syn : Cell → MC
  uns : Cell → Cell → MC

cur : MC → Cell
cur (syn c)   = c
cur (uns _ n) = n

dur : MC → Cell
dur (syn c)   = c
dur (uns o _) = o

-- Asynchronous PROGRAM / ERASE of one page, and SYNC of one page.
put : Cell → MC → MC
put c m = uns (dur m) c

sync : MC → MC
sync m = syn (cur m)

-- Crash outcome of a metadata page (checkpoint slot, delta page):
-- durable pages keep their content; an unsynced page ends up old, new or
-- junk.
CrashC : MC → MC → Set
CrashC (syn c)   m' = m' ≡ syn c
CrashC (uns o n) m' = m' ≡ syn o ⊎ m' ≡ syn n ⊎ m' ≡ syn junk

-- Crash outcome of a data page: the paper's over-approximation, an
-- unsynced page may end up with *any* content.
CrashD : MC → MC → Set
CrashD (syn c)   m' = m' ≡ syn c
CrashD (uns _ _) m' = Σ Cell λ c → m' ≡ syn c

data CrashL : List MC → List MC → Set where
  []  : CrashL [] []
  _∷_ : ∀ {m m' ms ms'} → CrashC m m' → CrashL ms ms' → CrashL (m ∷ ms) (m' ∷ ms')

------------------------------------------------------------------------
-- States

record St : Set where
  field
    -- flash (survives a crash, subject to Img below)
    dat   : ℕ → MC          -- data pages, by physical page number
    cpL   : MC              -- checkpoint slot holding the live checkpoint
    cpO   : MC              -- the other (shadow) checkpoint slot
    dr    : List MC         -- delta region, newest page first
    rcd   : ℕ → MC          -- in-page record slot of the flash page starting at data page p (§4.8)
    -- memory (lost on a crash)
    gen   : ℕ                          -- generation of the live checkpoint
    l2p   : Map                        -- volatile L2P
    mb    : ℕ → Maybe (Data × Addr)    -- merge buffer: pages not yet programmed
    dbuf  : List (Addr × ℕ)            -- delta buffer, newest first
    ept   : List (List (Addr × ℕ))     -- pairs of the tentative pages of this epoch, newest first
    ep    : ℕ                          -- the current epoch id (delta.rs: grows at every commit)
    nxt   : ℕ                          -- active pointer: next fresh page
    lnk   : Maybe ℕ                    -- the last commit's link, if the next flush may commit in-page
    inv   : ℕ → Bool                   -- invalid queue (relocated this epoch)
    ers   : ℕ → Bool                   -- erasable queue
    wcnt  : ℕ                          -- write counter (W)
    gcnt  : ℕ                          -- relocation counter (K)
    -- ghost (never read by the algorithm)
    smap  : Map                        -- the stable L2P
open St public

-- A crash: the flash of m after every unsynced page has settled; the
-- memory part of s' is arbitrary.
Img : St → St → Set
Img m s' = (∀ p → CrashD (dat m p) (dat s' p))
         × CrashC (cpL m) (cpL s') × CrashC (cpO m) (cpO s') × CrashL (dr m) (dr s')
         × (∀ p → CrashC (rcd m p) (rcd s' p))

------------------------------------------------------------------------
-- Reads

cellD : Cell → Data
cellD (dcell d _) = d
cellD _           = d0

oob : Cell → Addr
oob (dcell _ a) = a
oob _           = suc amax

-- A page as the FTL sees it: merge buffer first, then flash.
pvm : Maybe (Data × Addr) → Cell → Cell
pvm (just (d , a)) _ = dcell d a
pvm nothing        c = c

pv : St → ℕ → Cell
pv s p = pvm (mb s p) (cur (dat s p))

-- P2L, from the OOB areas (and the merge buffer's)
p2l : St → ℕ → Addr
p2l s p = oob (pv s p)

rdMD : (ℕ → Maybe (Data × Addr)) → (ℕ → MC) → Maybe ℕ → Data
rdMD M D nothing  = d0
rdMD M D (just p) = cellD (pvm (M p) (cur (D p)))

rdm : St → Maybe ℕ → Data
rdm s = rdMD (mb s) (dat s)

rd : St → Addr → Data
rd s a = rdm s (l2p s a)

------------------------------------------------------------------------
-- Step functions.  Each is a sequence of flash commands; the crash
-- points are the states right before a SYNC and at the end.

syncAll : St → St
syncAll s = record s { dat = λ p → sync (dat s p) ; cpL = sync (cpL s)
                     ; cpO = sync (cpO s) ; dr = map sync (dr s) ; rcd = λ p → sync (rcd s p) }

-- Program the merge buffer's pages.
progm : Maybe (Data × Addr) → MC → MC
progm (just (d , a)) m = put (dcell d a) m
progm nothing        m = m

progMB : St → St
progMB s = record s { dat = λ p → progm (mb s p) (dat s p) ; mb = λ _ → nothing }

-- A full delta buffer becomes a tentative delta page.
emitT : St → St
emitT s = record s { dr = uns erased (dlt (gen s) (ep s) (dbuf s) false ε) ∷ dr s ; dbuf = [] ; ept = dbuf s ∷ ept s }

optP optT : Bool → St → St
optP true  = progMB
optP false = λ s → s
optT true  = emitT
optT false = λ s → s

-- What a write/relocation may do afterwards, if the merge buffer and/or
-- delta buffer are full (a geometry question, left nondeterministic).
opt : Bool → Bool → St → St
opt f1 f2 s = optT f2 (optP f1 s)

InB : Addr → St → Set
InB a s = (a ≤ amax) × (wcnt s ≤ wmax)

-- A sector placed at the active pointer: into the merge buffer, L2P
-- remapped, delta pair buffered (shared by write and relocation).
place : Addr → Data → St → St
place a d s = record s
  { mb = mb s [ nxt s ≔ just (d , a) ] ; l2p = l2p s [ a ≔ just (nxt s) ]
  ; dbuf = (a , nxt s) ∷ dbuf s ; nxt = suc (nxt s) }

-- write(a, d)
wr0 : Addr → Data → St → St
wr0 a d s = record (place a d s) { wcnt = suc (wcnt s) }

-- gc_rl on a victim page p holding a valid sector: copy it like a write.
Valid : St → ℕ → Set
Valid s p = (p2l s p ≤ amax) × (l2p s (p2l s p) ≡ just p)

rl0 : ℕ → St → St
rl0 p s = record (place (p2l s p) (cellD (pv s p)) s)
  { inv = inv s [ p ≔ true ] ; gcnt = suc (gcnt s) }

-- gc_rl on a victim with no valid sector: it only becomes invalid.
rlX : ℕ → St → St
rlX p s = record s { inv = inv s [ p ≔ true ] ; gcnt = suc (gcnt s) }

-- gc_es: erase an erasable page.
esF : ℕ → St → St
esF p s = record s { dat = dat s [ p ≔ put erased (dat s p) ] ; ers = ers s [ p ≔ false ] }

-- Full checkpoint (shadow): new L2P into the other slot, SYNC; erase the
-- old slot and the delta region, SYNC; the slots swap roles.
ck1 ck2 ck3 : St → St
ck1 s = record s { cpO = put (cpt (suc (gen s)) (l2p s)) (cpO s) }
ck2 s = let u = syncAll (ck1 s) in
        record u { cpL = put erased (cpL u) ; dr = map (put erased) (dr u) }
ck3 s = let u = syncAll (ck2 s) in
        record u { cpL = cpO u ; cpO = cpL u ; dr = [] ; gen = suc (gen s) ; lnk = nothing }

CkPt : St → St → Set
CkPt s m = m ≡ ck1 s ⊎ m ≡ ck2 s ⊎ m ≡ ck3 s

-- The digest of the epoch ending now (computed before anything is
-- programmed): every pair (a , p) of the epoch (delta buffer and the
-- tentative pages' pairs) that the epoch leaves in place (the volatile L2P
-- still maps a to p), with the sector page p holds in the merge buffer or
-- on flash; and the tentative pages' pairs.  Sectors a later pair of the
-- epoch overrides are left out, as in the Rust: once the epoch is durable
-- GC may erase them, while recovery may still check this digest.
isAt : Maybe ℕ → ℕ → Bool
isAt (just q) p = q ≡ᵇ p
isAt nothing  p = false

digD : St → List (Addr × ℕ) → List (ℕ × Data × Addr)
digD s []             = []
digD s ((a , p) ∷ ps) =
  if (a ≤ᵇ amax) ∧ isAt (l2p s a) p then (p , cellD (pv s p) , a) ∷ digD s ps else digD s ps

dgOf : St → Dg
dgOf s = digD s (dbuf s ++ concat (ept s)) , ept s , nxt s

-- flush, one SYNC (docs/FORMAT.md §4.3): program the merge buffer and the
-- committed delta page (delta buffer + digest), then SYNC (the commit
-- point); then end the epoch (invalid → erasable).  `fl1` (the merge
-- buffer programmed, committed page not yet) is no crash point of its own:
-- `fl2`, where the committed page may still be erased, covers it.
fl1 fl2 fl3 : St → St
fl1 s = progMB s
fl2 s = let u = fl1 s in
        record u { dr = uns erased (dlt (gen s) (ep s) (dbuf s) true (dgOf s)) ∷ dr u }
fl3 s = let u = syncAll (fl2 s) in
        record u { smap = l2p u ; dbuf = [] ; ept = [] ; ers = λ p → ers u p ∨ inv u p
                 ; inv = λ _ → false ; wcnt = 0 ; gcnt = 0 ; ep = suc (ep s) ; lnk = just (nxt s) }

-- In-page commit (docs/FORMAT.md §4.8): a flush whose epoch wrote no
-- tentative page and whose only data page is the merge buffer's, at the
-- place the last commit linked to (L: every page the epoch placed, L up
-- to nxt, is still in the merge buffer, and there is one) commits in that
-- flash page: the merge buffer is programmed with the commit record (the
-- committed delta page's content: pairs, digest, link) in the record
-- slot of page L; one SYNC; no page of the delta region.  Then the
-- epoch's pairs go where recovery reads them before any later region
-- page: either the consolidation page (kind 7: the record's content,
-- whose link continues the chain), appended and synced at once (`fiK`,
-- `fi4`; the Rust writes it lazily, before the next region page), or a
-- full checkpoint (`ck3 (fi3 L s)`).
InP : St → ℕ → Set
InP s L = lnk s ≡ just L × ept s ≡ [] × L < nxt s
        × (∀ p → L ≤ p → p < nxt s → Σ Data λ d → Σ Addr λ a → mb s p ≡ just (d , a))

rec : St → Cell
rec s = dlt (gen s) (ep s) (dbuf s) true (dgOf s)

fi2 fi3 : ℕ → St → St
fi2 L s = let u = fl1 s in record u { rcd = rcd u [ L ≔ put (rec s) (rcd u L) ] }
fi3 L s = let u = syncAll (fi2 L s) in
          record u { smap = l2p u ; dbuf = [] ; ept = [] ; ers = λ p → ers u p ∨ inv u p
                   ; inv = λ _ → false ; wcnt = 0 ; gcnt = 0 ; ep = suc (ep s) ; lnk = nothing }

-- the consolidation page appended (crash point before its SYNC), synced
fiK fi4 : ℕ → St → St
fiK L s = let u = fi3 L s in record u { dr = uns erased (rec s) ∷ dr u ; lnk = just (nxt s) }
fi4 L s = syncAll (fiK L s)

FiPt : St → St → Set
FiPt s m = Σ ℕ λ L → InP s L × (m ≡ fi2 L s ⊎ CkPt (fi3 L s) m ⊎ m ≡ fiK L s ⊎ m ≡ fi4 L s)

-- OOB commit (docs/FORMAT.md §4.9): a flush whose epoch wrote no
-- tentative page and whose data pages run from the last commit's link L
-- to the merge buffer's page (starting at M, L < M): the pages L up to M
-- were programmed by the epoch's writes before the flush (no longer in
-- the merge buffer), the merge buffer holds M up to nxt; the pairs are
-- exactly those pages' sectors in order (`runP`; P has no trim), and the
-- run is at most `omax` = 64 pages (configuration version 9; versions
-- 6 to 8 keep 32, which no proof depends on; P has no superblocks).  It commits
-- with a marker + CRC in the OOB of its last data page, which P models
-- as the commit record in the record slot of page M (the steps of the
-- in-page commit with M for L: `fi2 M`, `fi3 M`, `fiK M`, `fi4 M`): the
-- record's content is the committed delta page's (pairs = the pages'
-- logical-sector records under the record CRC; digest = every sector the
-- epoch leaves in place with its CRC record; link), one SYNC, no region
-- page, the pairs join the consolidation page (or a full checkpoint).
-- Recovery walks from the link to the first page carrying a record of
-- the generation (`seek`, below); see proofs/README.md, "What is
-- abstracted", item 6.
omax : ℕ
omax = 64

-- the pages of the pairs (newest first) are k pages counted down to L:
-- L + k - 1, ..., L + 1, L
runP : ℕ → ℕ → List (Addr × ℕ) → Set
runP L zero    []             = ⊤
runP L zero    (_ ∷ _)        = ⊥
runP L (suc k) []             = ⊥
runP L (suc k) ((a , p) ∷ ps) = p ≡ L + k × runP L k ps

OobP : St → ℕ → ℕ → Set
OobP s L M = lnk s ≡ just L × ept s ≡ [] × L < nxt s × nxt s ≤ L + omax
           × runP L (nxt s ∸ L) (dbuf s)
           × L < M × M < nxt s
           × (∀ p → L ≤ p → p < M → mb s p ≡ nothing)
           × (∀ p → M ≤ p → p < nxt s → Σ Data λ d → Σ Addr λ a → mb s p ≡ just (d , a))

-- what the proofs of both commits use: the link L, the page M whose
-- record slot holds the record (L itself in-page, the run's last page
-- in the OOB), within the walk's reach, below the active pointer
LkC : St → ℕ → ℕ → Set
LkC s L M = lnk s ≡ just L × ept s ≡ [] × L ≤ M × M < nxt s × M < L + omax

InP⇒LkC : ∀ {s L} → InP s L → LkC s L L
InP⇒LkC {L = L} (lk , et , lt , _) = lk , et , ≤-refl , lt , m<m+n L (s≤s z≤n)

OobP⇒LkC : ∀ {s L M} → OobP s L M → LkC s L M
OobP⇒LkC (lk , et , lt , le , _ , lm , mn , _) = lk , et , <⇒≤ lm , mn , <-transˡ mn le

FoPt : St → St → Set
FoPt s m = Σ ℕ λ L → Σ ℕ λ M → OobP s L M × (m ≡ fi2 M s ⊎ CkPt (fi3 M s) m ⊎ m ≡ fiK M s ⊎ m ≡ fi4 M s)

FlPt : St → St → Set
FlPt s m = m ≡ fl2 s ⊎ m ≡ fl3 s ⊎ CkPt (fl3 s) m ⊎ FiPt s m ⊎ FoPt s m

-- Recovery: the committed checkpoint of the highest generation, then the
-- committed delta pages of that generation.
pick : Cell → Cell → Maybe (Bool × ℕ × Map)
pick (cpt g C) (cpt h D) = if h ≤ᵇ g then just (true , g , C) else just (false , h , D)
pick (cpt g C) _         = just (true , g , C)
pick _         (cpt h D) = just (false , h , D)
pick _         _         = nothing

-- Replay of the delta region (oldest page first).  The state is
-- (committed L2P, epoch id of the pending tentative pages, committed L2P
-- + those pending pages).  A tentative page of epoch x extends the
-- pending pages if they are of epoch x, else starts afresh from the
-- committed L2P; a committed page of epoch x activates the pending pages
-- only if they are of its own epoch x (delta.rs: "a committed page
-- activates only pages of its own epoch").
RS : Set
RS = Map × ℕ × Map

rbase : ℕ → RS → Map
rbase x (M , y , T) = if x ≡ᵇ y then T else M

rstep : ℕ → Cell → RS → RS
rstep g (dlt h x ps b _) mt =
  if h ≡ᵇ g then (if b then (apply ps (rbase x mt) , x , apply ps (rbase x mt))
                       else (proj₁ mt , x , apply ps (rbase x mt)))
            else mt
rstep g _ mt = mt

rp : ℕ → List Cell → RS → RS
rp g []       mt = mt
rp g (c ∷ cs) mt = rstep g c (rp g cs mt)

-- the replay's start: the checkpoint's L2P, nothing pending
st0 : Map → RS
st0 C = C , 0 , C

-- Checking a digest against the flash (D: what each data page holds; the
-- region below the committed page).  Exact comparison: CRC collisions are
-- modelled away.
holds : Cell → Data → Addr → Bool
holds (dcell e b) d a = does (e ≟D d) ∧ (b ≡ᵇ a)
holds _           d a = false

eqPs : List (Addr × ℕ) → List (Addr × ℕ) → Bool
eqPs []             []             = true
eqPs ((a , p) ∷ xs) ((b , q) ∷ ys) = (a ≡ᵇ b) ∧ (p ≡ᵇ q) ∧ eqPs xs ys
eqPs _              _              = false

-- a tentative page of generation g and epoch x with exactly these pairs
isT : ℕ → ℕ → List (Addr × ℕ) → Cell → Bool
isT g x ps (dlt h y qs false _) = (h ≡ᵇ g) ∧ (y ≡ᵇ x) ∧ eqPs qs ps
isT g x ps _                    = false

verD : (ℕ → Cell) → List (ℕ × Data × Addr) → Bool
verD D []                  = true
verD D ((p , d , a) ∷ xs)  = holds (D p) d a ∧ verD D xs

verT : ℕ → ℕ → List (List (Addr × ℕ)) → List Cell → Bool
verT g x []         cs       = true
verT g x (ps ∷ pss) []       = false
verT g x (ps ∷ pss) (c ∷ cs) = isT g x ps c ∧ verT g x pss cs

-- a committed page of generation g whose digest verifies
okC : ℕ → (ℕ → Cell) → Cell → List Cell → Bool
okC g D (dlt h x ps true (dd , dt , _)) cs = (h ≡ᵇ g) ∧ verD D dd ∧ verT g x dt cs
okC g D _                           cs = false

-- The part of the region recovery replays: from the newest committed page
-- of generation g whose digest verifies, down.  Pages above it (a crashed
-- epoch's tentative pages; a committed page whose epoch did not fully
-- reach the flash, with its tentative pages) are dropped; committed pages
-- below it are not checked again: they were programmed before a SYNC that
-- returned before it was programmed (the Rust's "proven" epochs).
acc : ℕ → (ℕ → Cell) → List Cell → List Cell
acc g D []       = []
acc g D (c ∷ cs) = if okC g D c cs then c ∷ cs else acc g D cs

slot : Bool → St → MC
slot true  s = cpL s
slot false s = cpO s

-- One more than the largest page mapped by addresses 0..k.
bnd : Maybe ℕ → ℕ
bnd nothing  = 0
bnd (just p) = suc p

hi : Map → ℕ → ℕ
hi m zero    = bnd (m zero)
hi m (suc k) = bnd (m (suc k)) ⊔ hi m k

-- Following the link (docs/FORMAT.md §4.8, §4.9): the newest committed
-- page recovery accepted names page L; recovery walks from L to the
-- first record (`seek` below: L itself for an in-page record, the run's
-- last page for an OOB commit), which holds the next epoch's commit if it
-- parses as a committed record of this generation with the next epoch
-- id and its digest verifies on the data pages (the record's data CRC;
-- for an OOB commit the record CRC over the pages' records and the
-- read-back of the sectors).  An accepted record is replayed as the newest
-- committed page (it is the consolidation page's content).
okR : ℕ → ℕ → (ℕ → Cell) → Cell → Bool
okR g x D (dlt h y ps true (dd , dt , _)) = (h ≡ᵇ g) ∧ (y ≡ᵇ x) ∧ verD D dd
okR g x D _                               = false

lkOf : List Cell → Maybe (ℕ × ℕ)
lkOf (dlt _ x _ true (_ , _ , L) ∷ _) = just (x , L)
lkOf _                                = nothing

-- The walk from the link (docs/FORMAT.md §4.9): the first of the pages
-- L, L + 1, … (at most `omax`) whose record slot holds a record of
-- generation g or newer (a marker; P's record slots are not erased with
-- their pages, so records of older generations are passed over).  An
-- in-page record is found at L itself, an OOB commit's at the run's last
-- page.
stp : ℕ → Cell → Bool
stp g (dlt h _ _ _ _) = g ≤ᵇ h
stp g _               = false

seek : ℕ → ℕ → (ℕ → Cell) → ℕ → Maybe ℕ
seek g zero    R p = nothing
seek g (suc n) R p = if stp g (R p) then just p else seek g n R (suc p)

-- the record at page q, if it is the next commit of the chain
extAt : ℕ → (ℕ → Cell) → (ℕ → Cell) → ℕ → ℕ → List Cell
extAt g R D x q = if okR g (suc x) D (R q) then R q ∷ [] else []

extS : ℕ → (ℕ → Cell) → (ℕ → Cell) → ℕ → Maybe ℕ → List Cell
extS g R D x (just q) = extAt g R D x q
extS g R D x nothing  = []

extM : ℕ → (ℕ → Cell) → (ℕ → Cell) → Maybe (ℕ × ℕ) → List Cell
extM g R D (just (x , L)) = extS g R D x (seek g omax R L)
extM g R D nothing        = []

-- what recovery replays: the linked record, if any, over the accepted region
chn : ℕ → (ℕ → Cell) → (ℕ → Cell) → List Cell → List Cell
chn g R D cs = extM g R D (lkOf cs) ++ cs

rview : ℕ → St → List Cell
rview g s = chn g (λ p → cur (rcd s p)) (λ p → cur (dat s p)) (acc g (λ p → cur (dat s p)) (map cur (dr s)))

recMap : ℕ → Map → St → Map
recMap g C s = proj₁ (rp g (rview g s) (st0 C))

-- Does recovery drop no committed page of generation g (it accepted the
-- newest one, or there is none)?  Only then may it go on without a full
-- checkpoint (mod.rs, `open`: `fell_back` forces one).
isC : ℕ → Cell → Bool
isC g (dlt h _ _ true _) = h ≡ᵇ g
isC g _                  = false

clean : ℕ → (ℕ → Cell) → List Cell → Bool
clean g D []       = true
clean g D (c ∷ cs) = if okC g D c cs then true else (not (isC g c) ∧ clean g D cs)

-- The largest epoch id on the region (recovery resumes above it).
epOf : Cell → ℕ
epOf (dlt _ x _ _ _) = x
epOf _               = 0

topE : List Cell → ℕ
topE []       = 0
topE (c ∷ cs) = epOf c ⊔ topE cs

-- One more than every page a delta page on the region names: recovery
-- allocates past them, so it never reuses a page the crashed run may have
-- programmed (mod.rs: the crashed run's places are never programmed
-- again in the same generation).
hiP : List (Addr × ℕ) → ℕ
hiP []             = 0
hiP ((a , p) ∷ ps) = suc p ⊔ hiP ps

hiR : List Cell → ℕ
hiR (dlt _ _ ps _ _ ∷ cs) = hiP ps ⊔ hiR cs
hiR (_ ∷ cs)              = hiR cs
hiR []                    = 0

-- Does an address 0..k map to page p?
nmd : Map → ℕ → ℕ → Bool
nmd m zero    p = isAt (m zero) p
nmd m (suc k) p = isAt (m (suc k)) p ∨ nmd m k p

-- What a recovery to the map m, allocating from page n on, reclaims:
-- every page below n that m does not name (blocks.rs `rebuild`: every
-- superblock the recovered L2P does not reference is erasable; P's
-- erase unit is the page).  A later recovery reads no such page: the
-- region's newest commit's digest names only pages m maps, and a walk
-- from its link finds no record (`Quiet`), or the full checkpoint
-- empties the region.
reclaim : Map → ℕ → ℕ → Bool
reclaim m n p = (p <ᵇ n) ∧ not (nmd m amax p)

-- The in-memory state rebuilt from the recovered L2P (selective
-- persistence); recovery then either writes a full checkpoint (a new
-- generation) or, if it dropped no committed page (`clean`), goes on in
-- the same region with an epoch id above every id on it.  Recovery
-- first SYNCs what it finds (docs/FORMAT.md §4.3), so what it read (and
-- checked digests against) is durable before it builds on it.  Every
-- page below the next one that the recovered L2P does not name is
-- erasable (`reclaim`: since the thirtieth session; before, the queue was
-- empty and such pages were never reclaimed).
rec0 : Bool → ℕ → Map → St → St
rec0 b g C s = let u = syncAll s in record u
  { cpL = slot b u ; cpO = slot (not b) u ; gen = g
  ; l2p = recMap g C u ; smap = recMap g C u ; mb = λ _ → nothing ; dbuf = [] ; ept = []
  ; nxt = hi (recMap g C u) amax ⊔ hiR (map cur (dr s)) ; inv = λ _ → false
  ; ers = reclaim (recMap g C u) (hi (recMap g C u) amax ⊔ hiR (map cur (dr s)))
  ; wcnt = 0 ; gcnt = 0 ; ep = suc (topE (map cur (dr s))) ; lnk = nothing }

-- A cell that is no record of generation g or newer.
RLt : ℕ → Cell → Set
RLt g (dlt h _ _ _ _) = h < g
RLt g _               = ⊤

-- Recovery keeps the generation only if no record of the generation lies
-- at or past the link of the newest committed page it accepts, where its
-- walk looks (so it applied none, and none it rejected stays where later
-- recoveries look), and no
-- record of the generation lies at or past the pages the region names
-- (where the rebuilt state allocates).  Otherwise P writes a full
-- checkpoint (the Rust writes a consolidation page for records it
-- applied: see proofs/README.md).

-- no record of generation g or newer at page L or past it (where the
-- walk from a link L looks)
Above : ℕ → (ℕ → Cell) → ℕ → Set
Above g R L = ∀ p → L ≤ p → RLt g (R p)

Quiet : ℕ → St → Set
Quiet g s = (∀ x L → lkOf (acc g (λ p → cur (dat s p)) (map cur (dr s))) ≡ just (x , L) → Above g (λ p → cur (rcd s p)) L)
          × (∀ p → hiR (map cur (dr s)) ≤ p → RLt g (cur (rcd s p)))

------------------------------------------------------------------------
-- The model P

okP : Op → St → St → Set
okP (use (regop (w a d))) s s' =
    (InB a s × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ opt f1 f2 (wr0 a d s))
  ⊎ (¬ InB a s × s' ≡ s)
okP (use (regop rl)) s s' =
    (gcnt s ≤ kmax × Σ ℕ λ p → p < nxt s ×
       ((Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ opt f1 f2 (rl0 p s))
        ⊎ (¬ Valid s p × s' ≡ rlX p s)))
  ⊎ (¬ gcnt s ≤ kmax × s' ≡ s)
okP (use (regop es)) s s' = Σ ℕ λ p → ers s p ≡ true × s' ≡ esF p s
okP (use flush) s s' = s' ≡ fl3 s ⊎ s' ≡ ck3 (fl3 s)
                      ⊎ (Σ ℕ λ L → InP s L × (s' ≡ ck3 (fi3 L s) ⊎ s' ≡ fi4 L s))
                      ⊎ (Σ ℕ λ L → Σ ℕ λ M → OobP s L M × (s' ≡ ck3 (fi3 M s) ⊎ s' ≡ fi4 M s))
okP recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3 (rec0 b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0 b g C s)

-- A crashed operation: a crash at one of its crash points.  (Recovery
-- without a full checkpoint issues nothing after its first SYNC; a crash
-- there is covered by the first point of the checkpoint, see
-- SCFTL.Impl.CrashPoints.)
crashP : Op → St → St → Set
crashP (use (regop x)) s s' = Σ St λ m → okP (use (regop x)) s m × Img m s'
crashP (use flush)     s s' = Σ St λ m → FlPt s m × Img m s'
crashP recover         s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt (rec0 b g C s) m × Img m s'

-- New disks: what format leaves on flash (an empty checkpoint of
-- generation 0, an erased shadow slot, an empty delta region); data
-- pages and memory arbitrary.
unmapped : Map
unmapped _ = nothing

NewP : St → Set
NewP s = cpL s ≡ syn (cpt 0 unmapped) × cpO s ≡ syn erased × dr s ≡ [] × (∀ p → rcd s p ≡ syn erased)

P : Model
P = record { State = St ; New = NewP ; read = rd ; ok = okP ; crash = crashP }
