{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Sanity checks that the SCFTL model P is not vacuous: every operation
-- is enabled where it should be, every crash has an outcome, and a
-- concrete run (checked by evaluation) behaves as SCFTL should:
-- format, recover, write(0,true), flush, write(0,false) crashing with
-- every page landed (including its tentative delta page), recover:
-- address 0 reads true again, and the crashed write's page is
-- erasable (recovery reclaims it) while page 0 is not; a flush after write(0,false) crashing right
-- before its SYNC with everything landed: address 0 reads false; the same
-- crash with the committed page landed but the new data page not, or
-- with the tentative delta page torn: the digest fails and recovery shows
-- the old epoch (true); a run with GC relocation and erase showing why
-- the digest names only the sectors the epoch leaves in place; a
-- recovery without a full checkpoint whose leftovers stay inert; and an
-- in-page commit (docs/FORMAT.md §4.8) crashing right before its SYNC:
-- recovery follows the link to the record (false), or the record fails
-- its digest or is missing (true); and an OOB commit of two data pages
-- (docs/FORMAT.md §4.9) crashing right before its SYNC: with the first
-- page lost recovery drops the epoch (the old state), with everything
-- landed it recovers the new state.
------------------------------------------------------------------------
module SCFTL.Impl.Example where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (_≤?_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Relation.Binary.Definitions using (DecidableEquality)
open import Data.List.Base using ([]; _∷_)
import Data.List.Base
import Data.Nat.Base
open import Data.Maybe.Base using (nothing; just)
import Data.Product
open import Data.Bool.Base using (if_then_else_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Nullary using (yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Data.Unit.Base using (tt)
open import Data.Empty using (⊥)
open import Relation.Nullary using (¬_)

------------------------------------------------------------------------
-- For any parameters: operations and crashes are enabled

module Enabled (Data : Set) (d0 : Data) (amax wmax kmax : ℕ) (_≟D_ : DecidableEquality Data) where
  open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
  import SCFTL.Spec Data d0 amax wmax as Sp
  open Sp using (use; flush; recover; w; es) renaming (reg to regop)

  -- every write has an outcome (in bounds: performed; else a no-op)
  write-enabled : ∀ a d s → Σ St (okP (use (regop (w a d))) s)
  write-enabled a d s with a ≤? amax | wcnt s ≤? wmax
  ... | yes p | yes q = _ , inj₁ ((p , q) , false , false , refl)
  ... | no ¬p | _     = s , inj₂ ((λ { (p , _) → ¬p p }) , refl)
  ... | yes _ | no ¬q = s , inj₂ ((λ { (_ , q) → ¬q q }) , refl)

  flush-enabled : ∀ s → Σ St (okP (use flush) s)
  flush-enabled s = fl3 s , inj₁ refl

  erase-enabled : ∀ s p → ers s p ≡ true → Σ St (okP (use (regop es)) s)
  erase-enabled s p e = esF p s , p , e , refl

  -- recovery succeeds from every state satisfying the crash invariant
  recover-enabled : ∀ s → CI s → Σ St (okP recover s)
  recover-enabled s (_ , _ , recto b g C pk _ _ _ _ _ _ _ , _) = _ , b , g , C , pk , inj₁ refl

  -- every state has a crash outcome (all pending programs landed)
  img-exists : ∀ m → Img m (syncAll m)
  img-exists m = (λ p → dd (dat m p)) , cc (cpL m) , cc (cpO m) , cl (dr m) , (λ p → cc (rcd m p))
    where
      open import Data.List.Base using (List; _∷_; map)
      dd : ∀ x → CrashD x (sync x)
      dd (syn c)   = refl
      dd (uns o n) = n , refl
      cc : ∀ x → CrashC x (sync x)
      cc (syn c)   = refl
      cc (uns o n) = inj₂ (inj₁ refl)
      cl : ∀ xs → CrashL xs (map sync xs)
      cl []       = []
      cl (x ∷ xs) = cc x ∷ cl xs

------------------------------------------------------------------------
-- A concrete run: two logical sectors (amax = 1), Bool data

open import SCFTL.Impl.Model Bool false 1 2 0 _≟B_
import SCFTL.Spec Bool false 1 2 as Sp
open Sp using (use; flush; recover; w; rl; es) renaming (reg to regop)

s0 : St
s0 = record
  { dat = λ _ → syn erased ; cpL = syn (cpt 0 unmapped) ; cpO = syn erased ; dr = [] ; rcd = λ _ → syn erased
  ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing ; dbuf = [] ; ept = [] ; nxt = 0
  ; inv = λ _ → false ; ers = λ _ → false ; wcnt = 0 ; gcnt = 0 ; smap = unmapped ; ep = 0 ; lnk = nothing }

new-s0 : NewP s0
new-s0 = refl , refl , refl , (λ p → refl)

s1 s2 s3 s4 s5 s6 : St
s1 = ck3 (rec0 true 0 unmapped s0)
s2 = opt false false (wr0 0 true s1)
s3 = fl3 s2
s4 = opt true true (wr0 0 false s3)   -- merge buffer programmed, tentative page written
s5 = syncAll s4                        -- the crash: every pending program landed
s6 = ck3 (rec0 true 1 unmapped s5)

run1 : okP recover s0 s1
run1 = true , 0 , unmapped , refl , inj₁ refl

run2 : okP (use (regop (w 0 true))) s1 s2
run2 = inj₁ ((z≤n , z≤n) , false , false , refl)

run3 : okP (use flush) s2 s3
run3 = inj₁ refl

run4 : okP (use (regop (w 0 false))) s3 s4
run4 = inj₁ ((z≤n , z≤n) , true , true , refl)

crash4 : crashP (use (regop (w 0 false))) s3 s5
crash4 = s4 , run4 , Enabled.img-exists Bool false 1 2 0 _≟B_ s4

-- recovery takes the checkpoint of generation 1 (written by the first
-- recovery) and replays the committed page of the flush
run6 : okP recover s5 s6
run6 = true , 1 , unmapped , refl , inj₁ refl

reads-new-before-crash : rd s4 0 ≡ false
reads-new-before-crash = refl

reads-flushed-after-crash : rd s6 0 ≡ true
reads-flushed-after-crash = refl

untouched-sector : rd s6 1 ≡ false
untouched-sector = refl

-- Recovery reclaims (`reclaim`): page 1, which the crashed write
-- programmed and the recovered map does not name, is erasable at once;
-- page 0, which it names, is not; GC's erase of page 1 is a step and
-- changes no read.
reclaims-crashed-page : ers s6 1 ≡ true × ers s6 0 ≡ false × nxt s6 ≡ 2
reclaims-crashed-page = refl , refl , refl

run6e : okP (use (regop es)) s6 (esF 1 s6)
run6e = 1 , refl , refl

reads-after-reclaim : rd (esF 1 s6) 0 ≡ true
reads-after-reclaim = refl

-- The flush after s4 crashes right before its (only) SYNC with every
-- page landed: the committed page's digest verifies, the commit
-- activates s4's tentative delta page, and recovery shows the new value.
s8 s9 : St
s8 = syncAll (fl2 s4)
s9 = ck3 (rec0 true 1 unmapped s8)

crash7 : crashP (use flush) s4 s8
crash7 = fl2 s4 , inj₁ refl , Enabled.img-exists Bool false 1 2 0 _≟B_ (fl2 s4)

run9 : okP recover s8 s9
run9 = true , 1 , unmapped , refl , inj₁ refl

reads-committed-after-crash : rd s9 0 ≡ false
reads-committed-after-crash = refl

-- The same crash, but page 1 (where write(0,false) put its sector) did
-- not land (it reads erased): the committed page is there, its digest
-- names page 1, the check fails, and recovery drops the epoch: address 0
-- reads true, the value of the last flush whose commit holds.
s10 s11 : St
s10 = record s8 { dat = λ p → if p Data.Nat.Base.≡ᵇ 1 then syn erased else dat s8 p }
s11 = ck3 (rec0 true 1 unmapped s10)

crash10 : crashP (use flush) s4 s10
crash10 = fl2 s4 , inj₁ refl , dd , cL , cO , cR
  where
    open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
    i = img-exists (fl2 s4)
    dd : ∀ p → CrashD (dat (fl2 s4) p) (dat s10 p)
    dd zero          = Data.Product.proj₁ i zero
    dd (suc zero)    = erased , refl
    dd (suc (suc p)) = Data.Product.proj₁ i (suc (suc p))
    cL = Data.Product.proj₁ (Data.Product.proj₂ i)
    cO = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ i))
    cR = Data.Product.proj₂ (Data.Product.proj₂ (Data.Product.proj₂ i))

-- the committed page did land
commit-landed : Data.List.Base.head (dr s10) ≡ just (syn (dlt 1 2 [] true (dgOf s4)))
commit-landed = refl

-- what its digest names: page 1 holding (false, address 0); no tentative
-- page check fails (the one tentative page landed)
digest-names-page-1 : dgOf s4 ≡ (((1 , false , 0) ∷ []) , (((0 , 1) ∷ []) ∷ []) , 2)
digest-names-page-1 = refl

run11 : okP recover s10 s11
run11 = true , 1 , unmapped , refl , inj₁ refl

reads-old-epoch-after-torn-commit : rd s11 0 ≡ true
reads-old-epoch-after-torn-commit = refl

------------------------------------------------------------------------
-- Why the digest leaves out sectors the epoch itself overrides (finding
-- of issue 39): w(0,true) puts address 0 on page 0, GC relocates it to
-- page 1 (page 0 becomes invalid), flush (page 0 becomes erasable), GC
-- erases page 0, crash with everything landed, recover.  The flush's
-- digest names page 1 only, still verifies, and address 0 reads true.  A
-- digest naming every page the epoch programmed (pages 1 and 0) would
-- fail on this flash, and recovery would lose a flush that completed.

u1 u2 u3 u4 u5 u6 : St
u1 = opt false false (wr0 0 true s1)
u2 = opt false false (rl0 0 u1)
u3 = fl3 u2
u4 = esF 0 u3
u5 = syncAll u4
u6 = ck3 (rec0 true 1 unmapped u5)

runU1 : okP (use (regop (w 0 true))) s1 u1
runU1 = inj₁ ((z≤n , z≤n) , false , false , refl)

runU2 : okP (use (regop rl)) u1 u2
runU2 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))

runU3 : okP (use flush) u2 u3
runU3 = inj₁ refl

runU4 : okP (use (regop es)) u3 u4
runU4 = 0 , refl , refl

crashU4 : crashP (use (regop es)) u3 u5
crashU4 = u4 , runU4 , Enabled.img-exists Bool false 1 2 0 _≟B_ u4

runU6 : okP recover u5 u6
runU6 = true , 1 , unmapped , refl , inj₁ refl

digest-left-in-place : dgOf u2 ≡ (((1 , true , 0) ∷ []) , [] , 2)
digest-left-in-place = refl

reads-durable-epoch : rd u6 0 ≡ true
reads-durable-epoch = refl

all-programmed-digest-would-fail :
  verD (λ p → cur (dat u5 p)) ((1 , true , 0) ∷ (0 , true , 0) ∷ []) ≡ false
all-programmed-digest-would-fail = refl

------------------------------------------------------------------------
-- Why the digest covers the tentative pages (finding of issue 39): the
-- flush after s4 crashes right before its SYNC with the committed page
-- and page 1 landed but s4's tentative delta page torn (junk).  Without
-- the tentative part of the digest the commit would activate the epoch
-- minus that page's pairs; with it the check fails and recovery shows the
-- old epoch.
s12 s13 : St
s12 = record s8 { dr = syn (dlt 1 2 [] true (dgOf s4)) ∷ syn junk ∷ Data.List.Base.drop 2 (dr s8) }
s13 = ck3 (rec0 true 1 unmapped s12)

crash12 : crashP (use flush) s4 s12
crash12 = fl2 s4 , inj₁ refl , Data.Product.proj₁ i , cL , cO ,
          (inj₂ (inj₁ refl) ∷ inj₂ (inj₂ refl) ∷ tl2 (Data.Product.proj₁ cR)) , Data.Product.proj₂ cR
  where
    open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
    i = img-exists (fl2 s4)
    cL = Data.Product.proj₁ (Data.Product.proj₂ i)
    cO = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ i))
    cR = Data.Product.proj₂ (Data.Product.proj₂ (Data.Product.proj₂ i))
    tl2 : ∀ {a b c d xs ys} → CrashL (a ∷ b ∷ xs) (c ∷ d ∷ ys) → CrashL xs ys
    tl2 (_ ∷ _ ∷ r) = r

run13 : okP recover s12 s13
run13 = true , 1 , unmapped , refl , inj₁ refl

reads-old-epoch-after-torn-tentative : rd s13 0 ≡ true
reads-old-epoch-after-torn-tentative = refl

------------------------------------------------------------------------
-- Recovery without a full checkpoint, and epoch ids.  From s5 (the crash
-- of s4: its tentative delta page [0 ↦ 1] of epoch 2 landed, no commit
-- of epoch 2) recovery drops nothing committed (`clean`), so it may keep
-- the region as it is; it resumes with epoch id 3, above every id on the
-- region.  Then w(1,false) and a flush commit epoch 3 in the same region
-- (generation 1), a crash with everything landed, and a recovery: the
-- crashed epoch's tentative page stays inert (a committed page activates
-- only pages of its own epoch), and address 0 still reads true.

v1 v2 v3 v4 v5 v6 : St
v1 = rec0 true 1 unmapped s5           -- no full checkpoint
v2 = opt false false (wr0 1 false v1)
v3 = fl3 v2
v4 = syncAll v3                        -- the crash after the flush
v5 = rec0 true 1 unmapped v4           -- recovery again without a checkpoint
v6 = ck3 (rec0 true 1 unmapped v4)     -- or with one

runV1 : okP recover s5 v1
runV1 = true , 1 , unmapped , refl , inj₂ (refl , ((λ x L e p le → tt) , (λ p le → tt)) , refl)

leftover-on-flash : Data.List.Base.head (dr v1) ≡ just (syn (dlt 1 2 ((0 , 1) ∷ []) false ε))
leftover-on-flash = refl

resumes-above : ep v1 ≡ 3
resumes-above = refl

runV2 : okP (use (regop (w 1 false))) v1 v2
runV2 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

runV3 : okP (use flush) v2 v3
runV3 = inj₁ refl

crashV3 : crashP (use flush) v2 v4
crashV3 = v3 , inj₂ (inj₁ refl) , Enabled.img-exists Bool false 1 2 0 _≟B_ v3

same-generation : gen v3 ≡ 1
same-generation = refl

runV5 : okP recover v4 v5
runV5 = true , 1 , unmapped , refl , inj₂ (refl , ((λ x L e p le → tt) , (λ p le → tt)) , refl)

runV6 : okP recover v4 v6
runV6 = true , 1 , unmapped , refl , inj₁ refl

leftover-inert : rd v5 0 ≡ true
leftover-inert = refl

leftover-inert-ck : rd v6 0 ≡ true
leftover-inert-ck = refl

-- recovery allocates past page 1, which the crashed write programmed and
-- the leftover tentative page names
allocates-past-leftovers : nxt v1 ≡ 2
allocates-past-leftovers = refl

------------------------------------------------------------------------
-- The in-page commit (docs/FORMAT.md §4.8).  After the flush s3 (whose
-- committed page, epoch 1, links to page 1), w(0,false) places its sector
-- at page 1 and leaves it in the merge buffer, with no tentative page:
-- the next flush may commit in that page.  It programs page 1 and, in
-- page 1's record slot, the commit record (pairs [0 ↦ 1], the digest
-- naming page 1); one SYNC; then a full checkpoint (the consolidation
-- page, abstracted).  A crash right before the SYNC:
--   * everything landed: recovery follows the link of the committed page
--     to page 1, the record verifies, address 0 reads false;
--   * the record landed but page 1 did not: the record's digest fails,
--     recovery ends the chain there, address 0 reads true;
--   * the record slot still erased: no record, address 0 reads true.

x1 x2 x3 x4 x5 x6 x7 x8 : St
x1 = opt false false (wr0 0 false s3)   -- page 1, still in the merge buffer
x2 = syncAll (fi2 1 x1)                  -- crash before the SYNC, everything landed
x3 = ck3 (rec0 true 1 unmapped x2)
x4 = record x2 { dat = λ p → if p Data.Nat.Base.≡ᵇ 1 then syn erased else dat x2 p }   -- page 1 lost
x5 = ck3 (rec0 true 1 unmapped x4)
x6 = record x2 { rcd = λ _ → syn erased } -- the record slot not programmed
x7 = rec0 true 1 unmapped x6             -- no record of the generation: no checkpoint needed
x8 = ck3 (fi3 1 x1)                      -- the in-page flush completed

link-of-last-commit : lnk s3 ≡ just 1
link-of-last-commit = refl

in-page-allowed : InP x1 1
in-page-allowed = refl , refl , s≤s (s≤s z≤n) , only
  where
    only : ∀ p → 1 ≤ p → p < nxt x1 → Σ Bool λ d → Σ ℕ λ a → mb x1 p ≡ just (d , a)
    only (suc zero)    _ _                   = false , 0 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

runX1 : okP (use (regop (w 0 false))) s3 x1
runX1 = inj₁ ((z≤n , z≤n) , false , false , refl)

runX8 : okP (use flush) x1 x8
runX8 = inj₂ (inj₂ (inj₁ (1 , in-page-allowed , inj₁ refl)))

reads-after-inpage-flush : rd x8 0 ≡ false
reads-after-inpage-flush = refl

-- no page of the delta region is programmed by the in-page commit
region-untouched : dr (fi2 1 x1) ≡ dr x1
region-untouched = refl

record-in-page-1 : cur (rcd (fi2 1 x1) 1) ≡ dlt 1 2 ((0 , 1) ∷ []) true (((1 , false , 0) ∷ []) , [] , 2)
record-in-page-1 = refl

crashX2 : crashP (use flush) x1 x2
crashX2 = fi2 1 x1 , inj₂ (inj₂ (inj₂ (inj₁ (1 , in-page-allowed , inj₁ refl)))) ,
          Enabled.img-exists Bool false 1 2 0 _≟B_ (fi2 1 x1)

runX3 : okP recover x2 x3
runX3 = true , 1 , unmapped , refl , inj₁ refl

-- recovery followed the link: the record is replayed over the region
follows-link : rview 1 x2 ≡ rec x1 ∷ Data.List.Base.map cur (dr x2)
follows-link = refl

reads-inpage-commit-after-crash : rd x3 0 ≡ false
reads-inpage-commit-after-crash = refl

-- with the record of the generation on flash, recovery must checkpoint
must-checkpoint : ¬ Quiet 1 x2
must-checkpoint (q , _) = absurd (q 1 1 refl 1 (s≤s z≤n))
  where
    absurd : RLt 1 (cur (rcd x2 1)) → ⊥
    absurd (s≤s ())

crashX4 : crashP (use flush) x1 x4
crashX4 = fi2 1 x1 , inj₂ (inj₂ (inj₂ (inj₁ (1 , in-page-allowed , inj₁ refl)))) , dd , cL , cO , cR
  where
    open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
    i = img-exists (fi2 1 x1)
    dd : ∀ p → CrashD (dat (fi2 1 x1) p) (dat x4 p)
    dd zero          = Data.Product.proj₁ i zero
    dd (suc zero)    = erased , refl
    dd (suc (suc p)) = Data.Product.proj₁ i (suc (suc p))
    cL = Data.Product.proj₁ (Data.Product.proj₂ i)
    cO = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ i))
    cR = Data.Product.proj₂ (Data.Product.proj₂ (Data.Product.proj₂ i))

runX5 : okP recover x4 x5
runX5 = true , 1 , unmapped , refl , inj₁ refl

record-fails-its-digest : rview 1 x4 ≡ Data.List.Base.map cur (dr x4)
record-fails-its-digest = refl

reads-old-epoch-after-torn-inpage : rd x5 0 ≡ true
reads-old-epoch-after-torn-inpage = refl

crashX6 : crashP (use flush) x1 x6
crashX6 = fi2 1 x1 , inj₂ (inj₂ (inj₂ (inj₁ (1 , in-page-allowed , inj₁ refl)))) , dd , cL , cO , cR , ci
  where
    open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
    i = img-exists (fi2 1 x1)
    dd = Data.Product.proj₁ i
    cL = Data.Product.proj₁ (Data.Product.proj₂ i)
    cO = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ i))
    cR = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ (Data.Product.proj₂ i)))
    ci : ∀ p → CrashC (rcd (fi2 1 x1) p) (rcd x6 p)
    ci zero          = refl
    ci (suc zero)    = inj₁ refl
    ci (suc (suc p)) = refl

runX7 : okP recover x6 x7
runX7 = true , 1 , unmapped , refl , inj₂ (refl , ((λ x L e p le → tt) , (λ p le → tt)) , refl)

reads-old-epoch-without-record : rd x7 0 ≡ true
reads-old-epoch-without-record = refl

-- The same in-page commit followed by its consolidation page (appended
-- and synced at once), whose link (page 2) lets the next flush commit
-- in-page again: w(1,true) to page 2, a flush committing in page 2,
-- crashing right before its SYNC with everything landed; recovery takes
-- the consolidation page as the newest commit, follows its link to the
-- second record and shows both epochs.  And a crash right before the
-- consolidation page's SYNC with it lost: recovery follows the first
-- commit's link to the first record.

x9 x10 x11 x12 x13 x14 : St
x9  = fi4 1 x1                           -- in-page commit + consolidation page
x10 = opt false false (wr0 1 true x9)    -- page 2, still in the merge buffer
x11 = syncAll (fi2 2 x10)                -- the second in-page commit, crash before its SYNC
x12 = ck3 (rec0 true 1 unmapped x11)
x13 = record (syncAll (fiK 1 x1)) { dr = syn erased ∷ Data.List.Base.drop 1 (dr (syncAll (fiK 1 x1))) }
x14 = ck3 (rec0 true 1 unmapped x13)

runX9 : okP (use flush) x1 x9
runX9 = inj₂ (inj₂ (inj₁ (1 , in-page-allowed , inj₂ refl)))

consolidated : Data.List.Base.head (dr x9) ≡ just (syn (rec x1))
consolidated = refl

chain-link : lnk x9 ≡ just 2
chain-link = refl

runX10 : okP (use (regop (w 1 true))) x9 x10
runX10 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

second-in-page : InP x10 2
second-in-page = refl , refl , s≤s (s≤s (s≤s z≤n)) , only
  where
    only : ∀ p → 2 ≤ p → p < nxt x10 → Σ Bool λ d → Σ ℕ λ a → mb x10 p ≡ just (d , a)
    only (suc (suc zero))    _ _                        = true , 1 , refl
    only (suc (suc (suc p))) _ (s≤s (s≤s (s≤s ())))
    only (suc zero)          (s≤s ()) _
    only zero                () _

crashX11 : crashP (use flush) x10 x11
crashX11 = fi2 2 x10 , inj₂ (inj₂ (inj₂ (inj₁ (2 , second-in-page , inj₁ refl)))) ,
           Enabled.img-exists Bool false 1 2 0 _≟B_ (fi2 2 x10)

runX12 : okP recover x11 x12
runX12 = true , 1 , unmapped , refl , inj₁ refl

follows-consolidated-link : rview 1 x11 ≡ rec x10 ∷ Data.List.Base.map cur (dr x11)
follows-consolidated-link = refl

reads-both-inpage-epochs : rd x12 0 ≡ false × rd x12 1 ≡ true
reads-both-inpage-epochs = refl , refl

crashX13 : crashP (use flush) x1 x13
crashX13 = fiK 1 x1 , inj₂ (inj₂ (inj₂ (inj₁ (1 , in-page-allowed , inj₂ (inj₂ (inj₁ refl)))))) ,
           Data.Product.proj₁ i , cL , cO , (inj₁ refl ∷ tl (Data.Product.proj₁ cR)) , Data.Product.proj₂ cR
  where
    open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
    i = img-exists (fiK 1 x1)
    cL = Data.Product.proj₁ (Data.Product.proj₂ i)
    cO = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ i))
    cR = Data.Product.proj₂ (Data.Product.proj₂ (Data.Product.proj₂ i))
    tl : ∀ {a b xs ys} → CrashL (a ∷ xs) (b ∷ ys) → CrashL xs ys
    tl (_ ∷ r) = r

runX14 : okP recover x13 x14
runX14 = true , 1 , unmapped , refl , inj₁ refl

reads-inpage-without-consolidation : rd x14 0 ≡ false
reads-inpage-without-consolidation = refl

-- After the consolidation page, a recovery may keep the generation: from
-- a crash of w(1,true) (nothing programmed) the link of the newest
-- commit (the consolidation page: page 2) leads to no record, and the
-- first record (page 1) lies below the pages the region names.
x15 x16 : St
x15 = syncAll x10
x16 = rec0 true 1 unmapped x15

crashX15 : crashP (use (regop (w 1 true))) x9 x15
crashX15 = x10 , runX10 , Enabled.img-exists Bool false 1 2 0 _≟B_ x10

quiet-after-consolidation : Quiet 1 x15
quiet-after-consolidation = (λ { _ _ refl zero () ; _ _ refl (suc zero) (s≤s ()) ; _ _ refl (suc (suc p)) _ → tt }) , λ { zero () ; (suc zero) (s≤s ()) ; (suc (suc p)) _ → tt }

runX16 : okP recover x15 x16
runX16 = true , 1 , unmapped , refl , inj₂ (refl , quiet-after-consolidation , refl)

keeps-generation-after-consolidation : gen x16 ≡ 1 × rd x16 0 ≡ false × rd x16 1 ≡ false
keeps-generation-after-consolidation = refl , refl , refl

------------------------------------------------------------------------
-- The OOB commit (docs/FORMAT.md §4.9).  After the flush s3 (link: page
-- 1), w(0,false) places its sector at page 1 and the merge buffer is
-- programmed (page 1 on flash, not yet synced); w(1,true) places its
-- sector at page 2, left in the merge buffer.  The epoch's pages run
-- from the link (1) to the merge buffer's page (2), pairs exactly those
-- pages' sectors in order, no tentative page: the flush commits in the
-- OOB of page 2 (the commit record in page 2's record slot), found by
-- recovery's walk from the link; its digest names both pages.  A crash right before the
-- SYNC:
--   * the record landed but the first page (1) did not: the record's
--     CRC does not match what recovery reads, recovery drops the epoch:
--     address 0 reads true, address 1 false (the old state);
--   * everything landed: address 0 reads false, address 1 true.

y1 y2 y3 y4 y5 y6 y7 : St
y1 = opt true false (wr0 0 false s3)     -- page 1, programmed, not synced
y2 = opt false false (wr0 1 true y1)     -- page 2, still in the merge buffer
y3 = record (syncAll (fi2 2 y2)) { dat = λ p → if p Data.Nat.Base.≡ᵇ 1 then syn junk else dat (syncAll (fi2 2 y2)) p }
y4 = ck3 (rec0 true 1 unmapped y3)
y5 = syncAll (fi2 2 y2)                  -- crash before the SYNC, everything landed
y6 = ck3 (rec0 true 1 unmapped y5)
y7 = fi4 2 y2                            -- the OOB flush completed, with its consolidation page

runY1 : okP (use (regop (w 0 false))) s3 y1
runY1 = inj₁ ((z≤n , z≤n) , true , false , refl)

runY2 : okP (use (regop (w 1 true))) y1 y2
runY2 = inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)

oob-allowed : OobP y2 1 2
oob-allowed = refl , refl , s≤s (s≤s z≤n) , s≤s (s≤s (s≤s z≤n)) , (refl , refl , tt)
            , s≤s (s≤s z≤n) , s≤s (s≤s (s≤s z≤n)) , before , last
  where
    before : ∀ p → 1 ≤ p → p < 2 → mb y2 p ≡ nothing
    before (suc zero)    _ _ = refl
    before (suc (suc p)) _ (s≤s (s≤s ()))
    last : ∀ p → 2 ≤ p → p < nxt y2 → Σ Bool λ d → Σ ℕ λ a → mb y2 p ≡ just (d , a)
    last (suc (suc zero))    _ _                        = true , 1 , refl
    last (suc (suc (suc p))) _ (s≤s (s≤s (s≤s ())))
    last (suc zero)          (s≤s ()) _
    last zero                () _

-- not an in-page commit: page 1 left the merge buffer
not-in-page : ¬ InP y2 1
not-in-page (_ , _ , _ , only) with only 1 (s≤s z≤n) (s≤s (s≤s z≤n))
... | _ , _ , ()

runY7 : okP (use flush) y2 y7
runY7 = inj₂ (inj₂ (inj₂ (1 , 2 , oob-allowed , inj₂ refl)))

reads-after-oob-flush : rd y7 0 ≡ false × rd y7 1 ≡ true
reads-after-oob-flush = refl , refl

-- the record's digest covers both pages of the run
oob-record : cur (rcd (fi2 2 y2) 2)
           ≡ dlt 1 2 ((1 , 2) ∷ (0 , 1) ∷ []) true (((2 , true , 1) ∷ (1 , false , 0) ∷ []) , [] , 3)
oob-record = refl

crashY3 : crashP (use flush) y2 y3
crashY3 = fi2 2 y2 , inj₂ (inj₂ (inj₂ (inj₂ (1 , 2 , oob-allowed , inj₁ refl)))) , dd , cL , cO , cR
  where
    open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
    i = img-exists (fi2 2 y2)
    dd : ∀ p → CrashD (dat (fi2 2 y2) p) (dat y3 p)
    dd zero          = Data.Product.proj₁ i zero
    dd (suc zero)    = junk , refl
    dd (suc (suc p)) = Data.Product.proj₁ i (suc (suc p))
    cL = Data.Product.proj₁ (Data.Product.proj₂ i)
    cO = Data.Product.proj₁ (Data.Product.proj₂ (Data.Product.proj₂ i))
    cR = Data.Product.proj₂ (Data.Product.proj₂ (Data.Product.proj₂ i))

runY4 : okP recover y3 y4
runY4 = true , 1 , unmapped , refl , inj₁ refl

oob-record-fails-its-crc : rview 1 y3 ≡ Data.List.Base.map cur (dr y3)
oob-record-fails-its-crc = refl

reads-old-epoch-after-lost-oob-page : rd y4 0 ≡ true × rd y4 1 ≡ false
reads-old-epoch-after-lost-oob-page = refl , refl

crashY5 : crashP (use flush) y2 y5
crashY5 = fi2 2 y2 , inj₂ (inj₂ (inj₂ (inj₂ (1 , 2 , oob-allowed , inj₁ refl)))) ,
          Enabled.img-exists Bool false 1 2 0 _≟B_ (fi2 2 y2)

runY6 : okP recover y5 y6
runY6 = true , 1 , unmapped , refl , inj₁ refl

reads-oob-commit-after-crash : rd y6 0 ≡ false × rd y6 1 ≡ true
reads-oob-commit-after-crash = refl , refl

-- recovery's walk from the link (page 1, no marker) stops at page 2 and
-- follows the record there
walk-finds-last-page : seek 1 omax (λ p → cur (rcd y5 p)) 1 ≡ just 2
walk-finds-last-page = refl

follows-walk : rview 1 y5 ≡ rec y2 ∷ Data.List.Base.map cur (dr y5)
follows-walk = refl
