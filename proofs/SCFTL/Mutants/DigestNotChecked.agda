{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 2 of P (issue 39): recovery accepts a committed page WITHOUT
-- CHECKING ITS DIGEST.
--
-- P's flush is the one-SYNC commit: the merge buffer and the committed
-- delta page are programmed, then one SYNC.  Nothing orders the two
-- programs, so a crash right before the SYNC may leave the committed
-- page on flash while a data page of its epoch is not; the digest the
-- page carries is what lets recovery notice.  (This replaces the old
-- mutant 2, "commit without the SYNC before it": with the one-SYNC
-- protocol there is no such SYNC, and the digest check is the step
-- recovery must not skip.)
--
-- The one change: recovery takes the newest committed page of the
-- checkpoint's generation as it is (`okC′`: generation only), without
-- comparing its digest with the flash (P's `okC` also requires `verD`
-- on the data pages and `verT` on the tentative pages).
--
-- Counterexample (one-recovery fragment, k = 0, right after the
-- recovery from the new disk):
--   w(0,true); w(1,true) (pages 0 and 1, both in the merge buffer);
--   flush, crashing right before its one SYNC with the committed page
--   and page 0 landed and page 1 still erased; recover.
-- SC allows the image before the flush (0,1 = false,false) or at the
-- flush (true,true); the mutant reads the mixed image (true,false).
------------------------------------------------------------------------
module SCFTL.Mutants.DigestNotChecked where

open import Data.Nat.Base using (ℕ; zero; suc; _≡ᵇ_; z≤n; s≤s; _⊔_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

okC′ : ℕ → (ℕ → Cell) → Cell → List Cell → Bool
okC′ g D (dlt h _ ps true _) cs = h ≡ᵇ g      -- MUTATED (P: ∧ verD D dd ∧ verT g dt cs)
okC′ g D _                 cs = false

acc′ : ℕ → (ℕ → Cell) → List Cell → List Cell
acc′ g D []       = []
acc′ g D (c ∷ cs) = if okC′ g D c cs then c ∷ cs else acc′ g D cs

recMap′ : ℕ → Map → St → Map
recMap′ g C s = proj₁ (rp g (chn g (λ p → cur (rcd s p)) (λ p → cur (dat s p))
                               (acc′ g (λ p → cur (dat s p)) (map cur (dr s)))) (st0 C))

-- P's rec0 (SYNC, then rebuild) with the mutated recovered L2P
rec0′ : Bool → ℕ → Map → St → St
rec0′ b g C s = record (rec0 b g C s)
  { l2p = recMap′ g C (syncAll s) ; smap = recMap′ g C (syncAll s)
  ; nxt = hi (recMap′ g C (syncAll s)) A ⊔ hiR (map cur (dr s)) }

okM crashM : Op → St → St → Set
okM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3 (rec0′ b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0′ b g C s)
okM o = okP o
crashM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt (rec0′ b g C s) m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 m3 s4 s5 : St
s1 = ck3 (rec0′ true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true) to page 0 (merge buffer)
s3 = wr0 1 true s2                    -- w(1,true) to page 1 (merge buffer)
m3 = fl2 s3                           -- crash point right before the one SYNC:
                                      --   pages 0, 1 and the commit unsynced
s4 = record (syncAll m3)              -- crash: page 1 did not land
       { dat = dat (syncAll m3) [ 1 ≔ syn erased ] }
s5 = ck3 (rec0′ true 1 unmapped s4)   -- recovery (mutant)

img4 : Img m3 s4
img4 = dd , land-C (cpL m3) , land-C (cpO m3) , land-L (dr m3) , (λ p → land-C (rcd m3 p))
  where
    dd : ∀ p → CrashD (dat m3 p) (dat s4 p)
    dd zero          = land-D (dat m3 0)
    dd (suc zero)    = erased , refl
    dd (suc (suc p)) = land-D (dat m3 (suc (suc p)))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

w2 : okM (use (regop (w 1 true))) s2 s3
w2 = inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)

c3 : crashM (use flush) s3 s4
c3 = m3 , inj₁ refl , img4

r2 : okM recover s4 s5
r2 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (w 0 true ∷ w 1 true ∷ []) flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1 (onerec {t3c = s4} no-flush (w1 ∷ w2 ∷ []) c3 [] r2 ∷ done [])

-- before the flush: (false,false); at the flush: (true,true);
-- recovered: (true,false)
before : rd s1 0 ≡ false × rd s1 1 ≡ false
before = refl , refl

at-flush : rd s3 0 ≡ true × rd s3 1 ≡ true
at-flush = refl , refl

recovered : rd s5 0 ≡ true × rd s5 1 ≡ false
recovered = refl , refl

-- The committed page did land, and its digest names both data pages.
commit-landed : dr s4 ≡ syn (dlt 1 1 ((1 , 1) ∷ (0 , 0) ∷ [])
                              true (((1 , true , 1) ∷ (0 , true , 0) ∷ []) , [] , 2))
                      ∷ []
commit-landed = refl

-- P checks the digest, finds page 1 erased, drops the committed page and
-- recovers the image before the flush.
P-digest-fails : okC 1 (λ p → cur (dat s4 p)) (cur (syn (dlt 1 1 ((1 , 1) ∷ (0 , 0) ∷ [])
                   true (((1 , true , 1) ∷ (0 , true , 0) ∷ []) , [] , 2)))) [] ≡ false
P-digest-fails = refl

P-recovers-before : rd (ck3 (rec0 true 1 unmapped s4)) 0 ≡ false
                  × rd (ck3 (rec0 true 1 unmapped s4)) 1 ≡ false
P-recovers-before = refl , refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 0 z≤n
... | ()
violation (inj₂ sc , _) with sc 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
