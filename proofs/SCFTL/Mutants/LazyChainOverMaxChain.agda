{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 39 (issue 39, the lazy chain as steps of PL): the lazy commit
-- without the chain's room check.  PL (SCFTL.Impl.LazyChainModel)
-- commits lazily only while the chain holds fewer than MAX_CHAIN
-- records (`Lazy`: `length (chainOf s) < kc`; delta.rs `oob_fits`:
-- `backlog_epochs + 1 < MAX_CHAIN`), since recovery's walk follows at
-- most MAX_CHAIN records (`walkG`).  The mutant `Pmut` drops that
-- check: its flush may commit lazily (P's `InP` / `OobP` only) over a
-- full chain; everything else is PL's.  Theorem 1 for PL
-- (SCFTL.Impl.LazyChainTheorem) uses the check (`lazy-room`, `pl-lazy`:
-- the chain's invariant `CInv` bounds its length by kc).
--
-- The run (instance SCFTL.Mutants.Common with MAX_CHAIN = 1), a
-- multi-recovery fragment after format + recovery:
--   w(0,true) to page 0; flush (region commit of epoch 1, link 1);
--   w(0,false) to page 1; lazy flush in page 1 (epoch 2, link 2: the
--   chain's one record); w(0,true) to page 2; lazy flush in page 2
--   (epoch 3, over the full chain: PL refuses it, `pl-refuses`);
--   w(0,false) to page 3; lazy flush in page 3 (epoch 4); w(1,true)
--   crashing at its end, everything landed; recover.
-- SC allows only the image of the last flush: address 0 reads false
-- (`at-last-flush`).  Recovery's walk follows one record (MAX_CHAIN),
-- epoch 2's, and P's recovery on the flash with it on the region
-- follows one more link, to epoch 3's record; epoch 4's is never
-- reached: address 0 reads true (`recovered`).
------------------------------------------------------------------------
module SCFTL.Mutants.LazyChainOverMaxChain where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 1
  using (okPL; crashPL; rec0L; konsS; konsI; Lazy; EraseGuard)

------------------------------------------------------------------------
-- The mutant: PL whose lazy commit does not check the chain's room

LazyM : St → ℕ → Set
LazyM s M = InP s M ⊎ Σ ℕ λ L → OobP s L M

okM : Op → St → St → Set
okM (use (regop x)) s s' = okPL EraseGuard (use (regop x)) s s'
okM (use flush)     s s' = okP (use flush) (konsS s) s' ⊎ (Σ ℕ λ M → LazyM s M × s' ≡ fiL M s)
okM recover         s s' = okPL EraseGuard recover s s'

crashM : Op → St → St → Set
crashM (use (regop x)) s s' = crashPL EraseGuard (use (regop x)) s s'
crashM (use flush)     s s' = Σ St λ m →
  (m ≡ konsI s ⊎ FlPt (konsS s) m ⊎ (Σ ℕ λ M → LazyM s M × (m ≡ fi2 M s ⊎ m ≡ fiL M s))) × Img m s'
crashM recover         s s' = crashPL EraseGuard recover s s'

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 s8 s9 m10 s10 s11 : St
s1  = ck3 (rec0L true 0 unmapped s0)   -- recovery from the new disk
s2  = wr0 0 true s1                    -- w(0,true) to page 0
s3  = fl3 s2                           -- flush: region commit of epoch 1, link 1
s4  = wr0 0 false s3                   -- w(0,false) to page 1
s5  = fiL 1 s4                         -- lazy flush in page 1 (epoch 2, link 2)
s6  = wr0 0 true s5                    -- w(0,true) to page 2
s7  = fiL 2 s6                         -- lazy flush in page 2 (epoch 3), over the full chain
s8  = wr0 0 false s7                   -- w(0,false) to page 3
s9  = fiL 3 s8                         -- lazy flush in page 3 (epoch 4)
m10 = wr0 1 true s9                    -- w(1,true) to page 4
s10 = syncAll m10                      -- crash, everything landed
s11 = ck3 (rec0L true 1 unmapped s10)  -- recovery

lazy1 : InP s4 1
lazy1 = refl , refl , s≤s (s≤s z≤n) , only
  where
    only : ∀ p → 1 ≤ p → p < nxt s4 → Σ Bool λ d → Σ ℕ λ a → mb s4 p ≡ just (d , a)
    only (suc zero)    _ _                   = false , 0 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

lazy2 : InP s6 2
lazy2 = refl , refl , s≤s (s≤s (s≤s z≤n)) , only
  where
    only : ∀ p → 2 ≤ p → p < nxt s6 → Σ Bool λ d → Σ ℕ λ a → mb s6 p ≡ just (d , a)
    only (suc zero)          (s≤s ()) _
    only (suc (suc zero))    _ _                        = true , 0 , refl
    only (suc (suc (suc p))) _ (s≤s (s≤s (s≤s ())))

lazy3 : InP s8 3
lazy3 = refl , refl , s≤s (s≤s (s≤s (s≤s z≤n))) , only
  where
    only : ∀ p → 3 ≤ p → p < nxt s8 → Σ Bool λ d → Σ ℕ λ a → mb s8 p ≡ just (d , a)
    only (suc zero)                (s≤s ()) _
    only (suc (suc zero))          (s≤s (s≤s ())) _
    only (suc (suc (suc zero)))    _ _                             = false , 0 , refl
    only (suc (suc (suc (suc p)))) _ (s≤s (s≤s (s≤s (s≤s ()))))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ (inj₁ refl)

w2 : okM (use (regop (w 0 false))) s3 s4
w2 = inj₁ ((z≤n , z≤n) , false , false , refl)

f2 : okM (use flush) s4 s5
f2 = inj₂ (1 , inj₁ lazy1 , refl)

w3 : okM (use (regop (w 0 true))) s5 s6
w3 = inj₁ ((z≤n , z≤n) , false , false , refl)

f3 : okM (use flush) s6 s7
f3 = inj₂ (2 , inj₁ lazy2 , refl)

w4 : okM (use (regop (w 0 false))) s7 s8
w4 = inj₁ ((z≤n , z≤n) , false , false , refl)

f4 : okM (use flush) s8 s9
f4 = inj₂ (3 , inj₁ lazy3 , refl)

c : crashM (use (regop (w 1 true))) s9 s10
c = m10 , inj₁ (inj₁ ((s≤s z≤n , z≤n) , false , false , refl)) , img-sync m10

r2 : okM recover s10 s11
r2 = true , 1 , unmapped , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ flush ∷ regop (w 0 false) ∷ flush ∷ regop (w 0 true) ∷ flush
                                ∷ regop (w 0 false) ∷ []))
                         [] (regop (w 1 true)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s10} (flushed (w1 ∷ f1 ∷ w2 ∷ f2 ∷ w3 ∷ f3 ∷ w4 ∷ []) f4) [] c [] r2 ∷ done [])

-- the last flush's image, and what recovery shows
at-last-flush : rd s9 0 ≡ false
at-last-flush = refl

recovered : rd s11 0 ≡ true
recovered = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- PL refuses the second lazy flush: the chain (epoch 2's record) is full
pl-refuses : ¬ Lazy s6 2
pl-refuses (s≤s () , _)
