{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward the data superblocks in the one model: Space's data
-- half on its own.
--
-- `SCFTL.Impl.Space` steps the data superblocks and the delta region
-- together: a write needs room in the delta buffer (`b < ppp`), a full
-- buffer becomes a tentative page (`dpg`), a flush continues the region
-- (`flK`) or starts a fresh one (`flC`).  The region is proven over the
-- one model already (SCFTL.Impl.SpaceRegion* over P, PU, PL, PX and the
-- block layer BXφ).  What a simulation of the data superblocks needs is
-- a target without the region, so that it never has to produce region
-- counters that agree with the code's.  This module gives it:
--
--   `StD`, `StepD` : Space's state without the region's fields (rem, tp,
--                    buf, pr) and its steps without `dpg` and the
--                    region's guards: writes (`wrU`, `wrA`, `wrN`), GC
--                    (`gcm`), relocation (`rl`), activation (`act`), erase
--                    (`era`), one flush (`fl`), recovery (`rec`);
--   `liftD`        : every step of StepD from the data half of a state of
--                    Space's invariant is a run of Space's steps from that
--                    state, ending in a state with the step's data half:
--                    a write or relocation after a tentative page when
--                    the delta buffer is full (`dpg`: the region has two
--                    pages in every such state, Space's `progress`), a
--                    flush as `flC` (a full checkpoint: no region guard),
--                    a recovery with a fresh region;
--   `reachD-lift`  : so every state StepD reaches from format is the data
--                    half of a state Space reaches;
--   **`data-progress`**, `data-victim` : Space's theorem for StepD:
--                    under the code's constraints a wanted write and a
--                    pending relocation find a page in every reachable
--                    state, and a needed GC a victim with at most N valid
--                    sectors.
--
-- So a simulation of the data superblocks of the one model (valid counts
-- per block: SCFTL.Impl.SpaceValid) may target StepD and never look at
-- the region (proofs/README.md, "Not done").
------------------------------------------------------------------------
module SCFTL.Impl.SpaceData where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _∸_; _≤_; _<_; z≤n; s≤s; _≤?_)
open import Data.Nat.Properties using (≤-trans; m≤n⇒m<n∨m≡n)
open import Data.List using (List; []; _∷_; _++_; length; sum)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.List.Relation.Unary.All using ([]; _∷_)
open import Data.Sum using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Relation.Nullary.Decidable using (True; toWitness)

open import SCFTL.Impl.Space

------------------------------------------------------------------------
-- The data half

record StD : Set where
  constructor sd
  field
    freD ersD invD : ℕ
    vsD            : List ℕ
    roomD vaD      : ℕ
    wcD gcD pendD  : ℕ
    cuD            : ℕ
open StD public

dataOf : St → StD
dataOf s = sd (fre s) (ers s) (inv s) (vs s) (room s) (va s) (wc s) (gc s) (pend s) (cu s)

data StepD (c : Config) : StD → StD → Set where
  wrU : ∀ {f e i xs x ys r a w g u} →
        w < W c → NotNeeded c g (xs ++ suc x ∷ ys) →
        StepD c (sd f e i (xs ++ suc x ∷ ys) (suc r) a w g 0 u)
                (sd f e i (xs ++ x ∷ ys) r (suc a) (suc w) g 0 u)
  wrA : ∀ {f e i xs r a w g u} →
        w < W c → NotNeeded c g xs →
        StepD c (sd f e i xs (suc r) (suc a) w g 0 u)
                (sd f e i xs r (suc a) (suc w) g 0 u)
  wrN : ∀ {f e i xs r a w g u} →
        w < W c → NotNeeded c g xs → sum xs + a < L c →
        StepD c (sd f e i xs (suc r) a w g 0 u)
                (sd f e i xs r (suc a) (suc w) g 0 u)
  gcm : ∀ {f e i xs v ys r a w g u} →
        g < K c → U c ≤ length (xs ++ v ∷ ys) → Victim c xs v ys →
        StepD c (sd f e i (xs ++ v ∷ ys) r a w g 0 u)
                (sd f e (suc i) (xs ++ ys) r a w (suc g) v u)
  rl  : ∀ {f e i xs r a w g q u} →
        StepD c (sd f e i xs (suc r) a w g (suc q) u)
                (sd f e i xs r (suc a) w g q u)
  act : ∀ {f e i xs ys a w g q u} →
        StepD c (sd (suc f) e i (xs ++ ys) 0 a w g q u)
                (sd f e i (xs ++ a ∷ ys) (S c) 0 w g q u)
  era : ∀ {f e i xs r a w g q u} →
        StepD c (sd f (suc e) i xs r a w g q u)
                (sd (suc f) e i xs r a w g q u)
  fl  : ∀ {f e i xs d r a w g u} →
        NotNeeded c g xs → d ≤ pad c →
        StepD c (sd f e i xs (d + r) a w g 0 u)
                (sd f (e + i) 0 xs r a 0 0 0 (suc (length xs)))
  rec : ∀ {f e i xs r a w g q u e' ys} →
        suc (e' + length ys) ≡ P c → need c + length ys * S c ≤ P c * S c → sum ys ≤ L c →
        StepD c (sd f e i xs r a w g q u)
                (sd 0 e' 0 ys (S c) 0 0 0 0 (length ys))

initD : Config → StD
initD c = dataOf (init c)

ReachD : Config → StD → Set
ReachD c d = Star (StepD c) (initD c) d

------------------------------------------------------------------------
-- Every step of the data half is a run of Space's

private
  -- room in the delta buffer: a tentative page first when it is full
  -- (the region has two pages in every state of the invariant)
  bufRoom : ∀ {c f e i xs r a w g q rm t b p u} → Needs c →
            Inv c (st f e i xs r a w g q rm t b p u) →
            Σ ℕ λ rm' → Σ ℕ λ t' → Σ ℕ λ b' → b' < ppp c ×
            Star (Step c) (st f e i xs r a w g q rm t b p u) (st f e i xs r a w g q rm' t' b' p u)
  bufRoom {c} {f} {e} {i} {xs} {r} {a} {w} {g} {q} {rm} {t} {b} {p} {u} V I
    with m≤n⇒m<n∨m≡n (Inv.bufp I)
  ... | inj₁ lt = rm , t , b , lt , ε
  ... | inj₂ refl with rm | Progress.delta-room (progress V I)
  ...   | suc rm' | _ = rm' , suc t , 0 , Needs.ppp≥1 V , dpg ◅ ε

  -- the region has a page for the flush's commit page
  remPos : ∀ {c s} → Needs c → Inv c s → Σ ℕ λ rm' → rem s ≡ suc rm'
  remPos {c} {s} V I with rem s | Progress.delta-room (progress V I)
  ... | suc rm' | _ = rm' , refl

liftD : ∀ {c s d'} → Needs c → Inv c s → StepD c (dataOf s) d' →
        Σ St λ s' → Star (Step c) s s' × dataOf s' ≡ d'
liftD {c} {st f e i .(xs ++ suc x ∷ ys) .(suc r) a w g .0 rm t b p u} V I (wrU {xs = xs} {x} {ys} {r} lt nn)
  with bufRoom V I
... | rm' , t' , b' , bl , run = _ , run ◅◅ (wrU lt nn bl ◅ ε) , refl
liftD {c} {st f e i xs .(suc r) .(suc a) w g .0 rm t b p u} V I (wrA {r = r} {a} lt nn)
  with bufRoom V I
... | rm' , t' , b' , bl , run = _ , run ◅◅ (wrA lt nn bl ◅ ε) , refl
liftD {c} {st f e i xs .(suc r) a w g .0 rm t b p u} V I (wrN {r = r} lt nn sl)
  with bufRoom V I
... | rm' , t' , b' , bl , run = _ , run ◅◅ (wrN lt nn bl sl ◅ ε) , refl
liftD {c} {st f e i .(xs ++ v ∷ ys) r a w g .0 rm t b p u} V I (gcm {xs = xs} {v} {ys} gk uL vic) =
  _ , gcm gk uL vic ◅ ε , refl
liftD {c} {st f e i xs .(suc r) a w g .(suc q) rm t b p u} V I (rl {r = r} {q = q})
  with bufRoom V I
... | rm' , t' , b' , bl , run = _ , run ◅◅ (rl bl ◅ ε) , refl
liftD {c} {st .(suc f) e i .(xs ++ ys) .0 a w g q rm t b p u} V I (act {f = f} {xs = xs} {ys}) = _ , act {xs = xs} {ys} ◅ ε , refl
liftD {c} {st f .(suc e) i xs r a w g q rm t b p u} V I (era {e = e}) = _ , era ◅ ε , refl
liftD {c} {st f e i xs .(d + r) a w g .0 rm t b p u} V I (fl {d = d} {r} nn dp) with remPos {c} {st f e i xs (d + r) a w g 0 rm t b p u} V I
... | rm' , refl = _ , flC nn dp (Inv.bufp I) ◅ ε , refl
liftD {c} {st f e i xs r a w g q rm t b p u} V I (rec eq lu sl) =
  _ , rec {rm' = D c} eq lu sl (inj₂ refl) ◅ ε , refl

-- every state the data half reaches is the data half of one Space reaches
reachD-lift : ∀ {c d} → Needs c → ReachD c d → Σ St λ s → Reach c s × dataOf s ≡ d
reachD-lift {c} V r = go ε r
  where
  go : ∀ {s d} → Reach c s → Star (StepD c) (dataOf s) d → Σ St λ s' → Reach c s' × dataOf s' ≡ d
  go {s} rs ε = s , rs , refl
  go {s} rs (x ◅ xs) with liftD V (reach-inv V rs) x
  ... | s1 , run , refl = go (rs ◅◅ run) xs

------------------------------------------------------------------------
-- Space's theorem for the data half

FindsD : Config → StD → Set
FindsD c d = 1 ≤ roomD d ⊎ (roomD d ≡ 0 × 1 ≤ freD d + ersD d)

record ProgressD (c : Config) (d : StD) : Set where
  field
    write-finds : wcD d < W c → pendD d ≡ 0 → FindsD c d
    reloc-finds : 1 ≤ pendD d → FindsD c d

-- **Space's theorem for the data half**: under the code's constraints,
-- every state StepD reaches from format finds a page for a wanted write
-- and for a pending relocation
data-progress : ∀ c → Valid c → ∀ {d} → ReachD c d → ProgressD c d
data-progress c V r with reachD-lift (needs V) r
... | s , rs , refl = record
  { write-finds = Progress.write-finds P′
  ; reloc-finds = Progress.reloc-finds P′ }
  where P′ = space-progress c V rs

-- ... and a needed GC a victim with at most N valid sectors
data-victim : ∀ c → Valid c → ∀ {d} → ReachD c d → U c ≤ length (vsD d) →
              Σ (List ℕ) λ as → Σ ℕ λ v → Σ (List ℕ) λ bs →
              (vsD d ≡ as ++ v ∷ bs) × Victim c as v bs × v ≤ N c
data-victim c V r uL with reachD-lift (needs V) r
... | st f e i xs r' a w g q rm t b p u , rs , refl =
  gc-victim {c} {f} {e} {i} {xs} {r'} {a} {w} {g} {q} {rm} {t} {b} {p} {u} (needs V) (reach-inv (needs V) rs) uL

------------------------------------------------------------------------
-- Not vacuous: Space's example configuration (N = 1), a run of the data
-- half — writes, a commit, a crash and recovery (the open superblock with
-- the two committed sectors stays used), an overwrite of a used
-- superblock's sector, a commit, an erase, an activation, GC of the
-- greedy victim with one valid sector and its relocation — and there a
-- wanted write finds a page.

private
  lit : ∀ {m n} {w : True (m ≤? n)} → m ≤ n
  lit {w = w} = toWitness w

exampleD-end : StD
exampleD-end = dataOf example-end   -- Space's example run ends there too

exampleD-run : ReachD example exampleD-end
exampleD-run =
    wrN (s≤s z≤n) (inj₂ (s≤s z≤n)) (s≤s z≤n)
  ◅ wrN (s≤s (s≤s z≤n)) (inj₂ (s≤s z≤n)) (s≤s (s≤s z≤n))
  ◅ fl {d = 0} (inj₂ (s≤s z≤n)) z≤n
  ◅ rec {e' = 3} {ys = 2 ∷ []} refl lit (s≤s (s≤s z≤n))
  ◅ wrU {xs = []} {x = 1} {ys = []} (s≤s z≤n) (inj₂ (s≤s (s≤s z≤n)))
  ◅ wrA (s≤s (s≤s z≤n)) (inj₂ (s≤s (s≤s z≤n)))
  ◅ fl {d = 0} (inj₂ (s≤s (s≤s z≤n))) z≤n
  ◅ wrA (s≤s z≤n) (inj₂ (s≤s (s≤s z≤n)))
  ◅ era
  ◅ act {xs = []}
  ◅ gcm {xs = []} {v = 1} {ys = 1 ∷ []} (s≤s z≤n) (s≤s (s≤s z≤n)) (inj₂ ([] , (s≤s z≤n ∷ [])))
  ◅ rl
  ◅ ε

exampleD-finds : FindsD example exampleD-end
exampleD-finds = ProgressD.write-finds (data-progress example example-valid exampleD-run) (s≤s (s≤s z≤n)) refl
