{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: a concrete run of PUSi (the SYNC outside a
-- commit, then an in-page commit; SCFTL.Impl.UnsyncedSyncInPage),
-- evaluated: the steps are not vacuous, and the code's sequence — a
-- barrier, a write, a flush that SYNCs first and commits in the record
-- slot at the barrier's link — recovers the flushed image.
--
-- From format and recovery (two sectors, Bool data):
--   w(0,true) to page 0; barrier (epoch 1, no SYNC, `flB`: page 0
--   programmed, its committed page's link is page 1); w(1,true) to page
--   1 (merge buffer); the SYNC (`sy`: epoch 1 durable, the link restored,
--   nothing released); the flush as P's in-page commit at page 1 (`fi4`:
--   the record in page 1's slot, then the consolidation page); w(0,false)
--   to page 2, crashing at its end, everything on flash landed; recovery
--   accepts the whole region and goes on without a full checkpoint
--   (`recR`, `no-checkpoint`), reading (true,true), the flushed image
--   (`recovers-flushed`).
-- Without the SYNC the barrier leaves no link (`no-link`), so the flush
-- could not commit in page 1's slot.  A second run: the SYNC releases a
-- victim GC freed before the barrier (`rel`: the guard allows it), GC
-- erases it, and a crash recovers the barrier's image
-- (`recovers-barrier`).
------------------------------------------------------------------------
module SCFTL.Impl.UnsyncedSyncExample where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Unit.Base using (tt)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫; flB; epE)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedRecCrash Bool false A W K 3 _≟B_ using (recR)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (SU; ⟦_,_⟧; ghostN; NewPU)
open import SCFTL.Impl.UnsyncedSync Bool false A W K 3 _≟B_ using (syU; no-release; Rel)
open import SCFTL.Impl.UnsyncedImages Bool false A W K 3 _≟B_ using (lastMap)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (st; ues)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (su)
open import SCFTL.Impl.UnsyncedSyncInPage Bool false A W K 3 _≟B_ using (okSi; crashSi)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; barrier; flush; w; sy; rl; es)

s1 s2 s3 s4 s5 s6 s7 : St
s1 = recU true 0 unmapped [] [] s0            -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                            -- w(0,true) to page 0
s3 = flB s2                                   -- barrier: epoch 1, no SYNC
s4 = wr0 1 true s3                            -- w(1,true) to page 1 (merge buffer)
s5 = syU (epE s2 ∷ []) (λ _ → false) s4       -- the SYNC: epoch 1 durable
s6 = fi4 1 s5                                 -- in-page commit at page 1
s7 = wr0 0 false s6                           -- w(0,false) to page 2, crashing at its end

S0 S1 S2 S3 S4 S5 S6 : SU
S0 = ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
S1 = ⟦ ⟪ s1 , [] ⟫ , ghostN ⟪ s1 , [] ⟫ ⟧
S2 = ⟦ ⟪ s2 , [] ⟫ , ghostN ⟪ s2 , [] ⟫ ⟧
S3 = ⟦ ⟪ s3 , epE s2 ∷ [] ⟫ , ghostN ⟪ s3 , epE s2 ∷ [] ⟫ ⟧
S4 = ⟦ ⟪ s4 , epE s2 ∷ [] ⟫ , ghostN ⟪ s4 , epE s2 ∷ [] ⟫ ⟧
S5 = ⟦ ⟪ s5 , [] ⟫ , ghostN ⟪ s5 , [] ⟫ ⟧
S6 = ⟦ ⟪ s6 , [] ⟫ , ghostN ⟪ s6 , [] ⟫ ⟧

new : NewPU S0
new = new-s0 , refl , refl

r1 : okSi SB.recover S0 S1
r1 = inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)

w1 : okSi (use (reg (op (w 0 true)))) S1 S2
w1 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

b1 : okSi (use (reg barrier)) S2 S3
b1 = inj₁ (s≤s z≤n , refl) , refl

w2 : okSi (use (reg (op (w 1 true)))) S3 S4
w2 = (inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , refl) , refl

y1 : okSi (use (reg (op sy))) S4 S5
y1 = (λ _ → false) , no-release ⟪ s4 , epE s2 ∷ [] ⟫ , refl , refl

-- the barrier leaves no link; the SYNC restores its committed page's
no-link : lnk s4 ≡ nothing × lnk s5 ≡ just 1
no-link = refl , refl

-- P's guard of the in-page commit at page 1 holds after the SYNC
inP : InP s5 1
inP = refl , refl , s≤s (s≤s z≤n) , mbL
  where
    mbL : ∀ p → 1 ≤ p → p < nxt s5 → Σ Bool λ d → Σ ℕ λ a → mb s5 p ≡ just (d , a)
    mbL (suc zero)    _ _                 = true , 1 , refl
    mbL (suc (suc p)) _ (s≤s (s≤s ()))
  -- (p = 0 is below the link)
    mbL zero          () _

f1 : okSi (use flush) S5 S6
f1 = inj₂ ((refl , 1 , inj₁ (1 , inP , refl) , inj₁ refl) , refl)

------------------------------------------------------------------------
-- A crash at the end of w(0,false), everything on flash landed, and
-- recovery (no epoch unsynced: the whole region as durable part), which
-- accepts everything and goes on without a full checkpoint (`recR`)

s8 s9 : St
s8 = syncAll s7
s9 = recR true 1 unmapped (map cur (dr s6)) [] s8

S8 S9 : SU
S8 = ⟦ ⟪ s8 , [] ⟫ , ghostN ⟪ s7 , [] ⟫ ⟧
S9 = ⟦ ⟪ s9 , [] ⟫ , ghostN ⟪ s9 , [] ⟫ ⟧

c1 : crashSi (use (reg (op (w 0 false)))) S6 S8
c1 = (⟪ s7 , [] ⟫ , (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , img-sync s7 , refl) , refl

-- Quiet: the record in page 1's slot lies below the newest commit's
-- link (page 2, the consolidation page's) and below the region's
-- highest page
q8 : Quiet 1 s8
q8 = (λ { x L refl → above }) , below
  where
    above : Above 1 (λ p → cur (rcd s8 p)) 2
    above (suc (suc p)) _ = tt
    above zero          ()
    above (suc zero)    (s≤s ())
    below : ∀ p → hiR (map cur (dr s8)) ≤ p → RLt 1 (cur (rcd s8 p))
    below (suc (suc p)) _ = tt
    below zero          ()
    below (suc zero)    (s≤s ())

r2 : okSi SB.recover S8 S9
r2 = inj₂ ((true , 1 , unmapped , refl , [] , [] , (refl , []) , refl , refl , q8 , refl) , refl , refl)

-- no checkpoint: the region stays, the generation too
no-checkpoint : gen s9 ≡ 1 × map cur (dr s9) ≡ map cur (dr s6)
no-checkpoint = refl , refl

-- the flushed image: epoch 1 from the barrier's committed page, epoch 2
-- from the consolidation page
recovers-flushed : rd s9 0 ≡ true × rd s9 1 ≡ true
recovers-flushed = refl , refl

-- the flush committed in page 1's record slot (and its consolidation
-- page is on the region, above the barrier's committed page)
record-in-page : cur (rcd s6 1) ≡ rec s5 × map cur (dr s6) ≡ rec s5 ∷ map cur (dr s3)
record-in-page = refl , refl

------------------------------------------------------------------------
-- A second run: the SYNC releases a victim GC freed before the barrier
-- (the guard `Rel` allows it: the barrier's map, the new stable L2P, no
-- longer names it), GC erases it, and a crash recovers the barrier's
-- image, which the SYNC made stable.
--   w(0,true) to page 0; flush (epoch 1 durable: 0 ↦ 0); w(0,false) to
--   page 1; gc_rl of page 0 (no valid sector: invalid); barrier (epoch 2:
--   0 ↦ 1, page 0 still invalid, not erasable); the SYNC releasing page
--   0; gc_es of page 0; w(1,true) crashing at its end, everything landed;
--   recovery: (false,false), the barrier's image.

u1 u2 u3 u4 u5 u6 u7 u8 u9 : St
u1 = wr0 0 true s1                               -- w(0,true) to page 0
u2 = fl3 u1                                      -- flush: epoch 1 durable
u3 = wr0 0 false u2                              -- w(0,false) to page 1
u4 = rlX 0 u3                                    -- gc_rl: page 0 invalid
u5 = flB u4                                      -- barrier: epoch 2, no SYNC
u6 = syU (epE u4 ∷ []) (inv u5) u5               -- the SYNC, releasing page 0
u7 = esF 0 u6                                    -- gc_es: page 0 erased
u8 = wr0 1 true u7                               -- w(1,true), crashing at its end
u9 = syncAll u8

U1 U2 U3 U4 U5 U6 U7 U9 U10 : SU
U1 = ⟦ ⟪ u1 , [] ⟫ , ghostN ⟪ u1 , [] ⟫ ⟧
U2 = ⟦ ⟪ u2 , [] ⟫ , ghostN ⟪ u2 , [] ⟫ ⟧
U3 = ⟦ ⟪ u3 , [] ⟫ , ghostN ⟪ u3 , [] ⟫ ⟧
U4 = ⟦ ⟪ u4 , [] ⟫ , ghostN ⟪ u4 , [] ⟫ ⟧
U5 = ⟦ ⟪ u5 , epE u4 ∷ [] ⟫ , ghostN ⟪ u5 , epE u4 ∷ [] ⟫ ⟧
U6 = ⟦ ⟪ u6 , [] ⟫ , ghostN ⟪ u6 , [] ⟫ ⟧
U7 = ⟦ ⟪ u7 , [] ⟫ , ghostN ⟪ u7 , [] ⟫ ⟧
U9 = ⟦ ⟪ u9 , [] ⟫ , ghostN ⟪ u8 , [] ⟫ ⟧
U10 = ⟦ ⟪ u10 , [] ⟫ , ghostN ⟪ u10 , [] ⟫ ⟧
  where u10 = recR true 1 unmapped (map cur (dr u8)) [] u9

v1 : okSi (use (reg (op (w 0 true)))) S1 U1
v1 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

v2 : okSi (use flush) U1 U2
v2 = inj₁ (inj₁ refl , refl)

v3 : okSi (use (reg (op (w 0 false)))) U2 U3
v3 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

v4 : okSi (use (reg (op rl))) U3 U4
v4 = (inj₁ (z≤n , 0 , s≤s z≤n , inj₂ ((λ { (_ , ()) }) , refl)) , refl) , refl

v5 : okSi (use (reg barrier)) U4 U5
v5 = inj₁ (s≤s z≤n , refl) , refl

-- the guard: page 0 is invalid and the barrier's map does not name it
rel : Rel ⟪ u5 , epE u4 ∷ [] ⟫ (inv u5)
rel zero e = refl , nm
  where
    nm : ∀ a → a ≤ A → lastMap (smap u5) (epE u4 ∷ []) a ≢ just 0
    nm zero          _                ()
    nm (suc zero)    _                ()
    nm (suc (suc a)) (s≤s ())
rel (suc p) ()

v6 : okSi (use (reg (op sy))) U5 U6
v6 = inv u5 , rel , refl , refl

released : ers u6 0 ≡ true × inv u6 0 ≡ false
released = refl , refl

v7 : okSi (use (reg (op es))) U6 U7
v7 = ((0 , refl , refl) , refl) , refl

v8 : crashSi (use (reg (op (w 1 true)))) U7 U9
v8 = (⟪ u8 , [] ⟫ , (inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , refl) , img-sync u8 , refl) , refl

-- Quiet: no record anywhere
q9 : Quiet 1 u9
q9 = (λ x L e p _ → tt) , (λ p _ → tt)

v9 : okSi SB.recover U9 U10
v9 = inj₂ ((true , 1 , unmapped , refl , [] , [] , (refl , []) , refl , refl , q9 , refl) , refl , refl)

-- the barrier's image (0 ↦ false, 1 never written), which the SYNC made
-- stable; page 0, erased, is read by nothing
recovers-barrier : rd (st (su U10)) 0 ≡ false × rd (st (su U10)) 1 ≡ false
recovers-barrier = refl , refl
