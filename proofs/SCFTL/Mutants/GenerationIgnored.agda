{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 4 of P (issue 39): the GENERATION IGNORED by recovery.
--
-- The one change: recovery does not compare a delta page's generation
-- with the chosen checkpoint's, neither when it looks for the newest
-- committed page whose digest verifies (`okC`, and `isT` for the
-- tentative pages the digest lists) nor when it replays (`rstep`), so
-- pages of an older generation that a full checkpoint's erase of the
-- delta region did not reach are applied on top of the newer
-- checkpoint.  (Removing only `rstep`'s comparison changes nothing in
-- the one-SYNC P: the replayed part starts at a committed page `okC`
-- accepted, which is of the checkpoint's generation, and no page of an
-- older generation lies below it, since pages are appended only after
-- format or a full checkpoint emptied the region.)
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (commit c1: 0 ↦ 0); w(0,false) to page 1;
--   flush (commit c2: 0 ↦ 1); flush with a full checkpoint, crashing
--   after the checkpoint's first SYNC (new checkpoint, generation 2,
--   durable; old slot and delta region being erased) with the erases of
--   the old slot and of c2 (and of the last flush's empty commit)
--   landed and c1's not; recover.
-- SC allows only (address 0 =) false, the image at the last two
-- flushes; the mutant accepts c1 (generation 1; its digest still holds:
-- page 0 keeps address 0's first sector) and replays it over the
-- generation-2 checkpoint: address 0 reads true.
------------------------------------------------------------------------
module SCFTL.Mutants.GenerationIgnored where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≡ᵇ_; _⊔_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_; _∧_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant: P's recovery (SCFTL.Impl.Model: isT, verT, okC, acc,
-- rstep, rp, recMap, rec0) with every comparison of a delta page's
-- generation with the checkpoint's removed.

isT′ : ℕ → List (ℕ × ℕ) → Cell → Bool
isT′ x ps (dlt h y qs false _) = (y ≡ᵇ x) ∧ eqPs qs ps   -- MUTATED (P: (h ≡ᵇ g) ∧ …)
isT′ x ps _                    = false

verT′ : ℕ → List (List (ℕ × ℕ)) → List Cell → Bool
verT′ x []         cs       = true
verT′ x (ps ∷ pss) []       = false
verT′ x (ps ∷ pss) (c ∷ cs) = isT′ x ps c ∧ verT′ x pss cs

okC′ : (ℕ → Cell) → Cell → List Cell → Bool
okC′ D (dlt h x ps true (dd , dt , _)) cs =           -- MUTATED (P: (h ≡ᵇ g) ∧ …)
  verD D dd ∧ verT′ x dt cs
okC′ D _                           cs = false

acc′ : (ℕ → Cell) → List Cell → List Cell
acc′ D []       = []
acc′ D (c ∷ cs) = if okC′ D c cs then c ∷ cs else acc′ D cs

rstep′ : Cell → RS → RS
rstep′ (dlt h x ps b _) mt =                      -- MUTATED (P: only if h ≡ᵇ g)
  (if b then (apply ps (rbase x mt) , x , apply ps (rbase x mt))
        else (proj₁ mt , x , apply ps (rbase x mt)))
rstep′ _ mt = mt

rp′ : List Cell → RS → RS
rp′ []       mt = mt
rp′ (c ∷ cs) mt = rstep′ c (rp′ cs mt)

recMap′ : ℕ → Map → St → Map
recMap′ g C s = proj₁ (rp′ (chn g (λ p → cur (rcd s p)) (λ p → cur (dat s p))
                               (acc′ (λ p → cur (dat s p)) (map cur (dr s)))) (st0 C))

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

s1 s2 s3 s4 s5 m5 s6 s7 : St
s1 = ck3 (rec0′ true 0 unmapped s0)   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3 s2                           -- flush: commit c1 = [0 ↦ 0]
s4 = wr0 0 false s3                   -- w(0,false) to page 1
s5 = fl3 s4                           -- flush: commit c2 = [0 ↦ 1]
m5 = ck2 (fl3 s5)                     -- flush + checkpoint (generation 2), second SYNC point
s6 = record (syncAll m5)              -- crash: c1's erase did not land
       { dr = syn erased ∷ syn erased ∷ syn (dlt 1 1 ((0 , 0) ∷ []) true (dgOf s2)) ∷ [] }
s7 = ck3 (rec0′ false 2 (l2p s5) s6)  -- recovery: the generation-2 checkpoint

img6 : Img m5 s6
img6 = (λ p → land-D (dat m5 p)) , land-C (cpL m5) , land-C (cpO m5)
     , (inj₂ (inj₁ refl) ∷ inj₂ (inj₁ refl) ∷ inj₁ refl ∷ []) , (λ p → land-C (rcd m5 p))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

w2 : okM (use (regop (w 0 false))) s3 s4
w2 = inj₁ ((z≤n , z≤n) , false , false , refl)

f2 : okM (use flush) s4 s5
f2 = inj₁ refl

c5 : crashM (use flush) s5 s6
c5 = m5 , inj₂ (inj₂ (inj₁ (inj₂ (inj₁ refl)))) , img6

r2 : okM recover s6 s7
r2 = false , 2 , l2p s5 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ flush ∷ regop (w 0 false) ∷ [])) [] flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s6} (flushed (w1 ∷ f1 ∷ w2 ∷ []) f2) [] c5 [] r2 ∷ done [])

flushed-read : rd s4 0 ≡ false × rd s5 0 ≡ false
flushed-read = refl , refl

recovered-read : rd s7 0 ≡ true
recovered-read = refl

-- P accepts no page of generation 1 and recovers the checkpoint.
P-accepts-nothing : acc 2 (λ p → cur (dat s6 p)) (map cur (dr s6)) ≡ []
P-accepts-nothing = refl

P-recovers-checkpoint : rd (ck3 (rec0 false 2 (l2p s5) s6)) 0 ≡ false
P-recovers-checkpoint = refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 0 z≤n
... | ()
violation (inj₂ sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
