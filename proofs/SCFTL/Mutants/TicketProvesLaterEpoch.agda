{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 41 (issue 39), of the SYNC that proves only the oldest epochs
-- (PUSB, SCFTL.Impl.UnsyncedSyncBehind: the code's sync behind and
-- detached flush, whose ticket proves the epochs ended before it
-- started): the ticket's SYNC COUNTS ONE EPOCH MORE AS PROVEN than it
-- covered — the first epoch ended after the ticket leaves the unsynced
-- epochs, and the durable part (the ghost's split, the code's
-- after-sync flag) moves above its pages, which the SYNC never landed.
-- The Rust's `Mutant::TicketProvesLaterEpochs` (`note_ticket_sync`
-- setting the after-sync flag for a ticket older than the last barrier).
--
-- The model: PUSB with its SYNC step MUTATED (`syBM`: `syB xs (y ∷ ys)`,
-- which lands xs's pages only, but with y counted as proven: ys
-- unsynced, the stable L2P y's map); its other steps, crashes and
-- recovery are PUSB's.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; w(1,true) to page 1; barrier (epoch 1, no
--   SYNC); the ticket's SYNC, taken before the barrier (it proves no
--   epoch, xs = []), MUTATED to count epoch 1 as proven; a crash right
--   after it with data page 1 lost (junk) and everything else landed;
--   recover.
-- SC1B (a crashed SYNC, one barrier since the last flush) allows t2 =
-- (false,false) and the barrier's image (true,true).  Recovery takes
-- epoch 1's committed page for part of the durable part and replays it
-- unchecked: sector 0 on page 0 (true), sector 1 on the lost page 1
-- (false): (true,false), a mix.  PUSB's step keeps epoch 1 unsynced
-- (`pusb-keeps`), and its recovery checks epoch 1's digest, which page 1
-- fails (`pusb-stops`): (false,false).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.TicketProvesLaterEpoch where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; land-D; land-C; land-L)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.UnsyncedEpochs Bool false A W K _≟B_ using (accU)
open import SCFTL.Impl.UnsyncedEpochsCrash Bool false A W K _≟B_ using (E; ue)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedImages Bool false A W K 3 _≟B_ using (lastMap)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_
  using (SU; ⟦_,_⟧; su; gh; ghostN; NewPU)
open import SCFTL.Impl.UnsyncedSyncBehind Bool false A W K 3 _≟B_
  using (syB; syBU; Land; RelB; okB; crashB)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; w; sy)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- MUTATED: PUSB's step is `syBU xs (y ∷ ys) l r s` (y stays unsynced)
syBM : List E → E → List E → (ℕ → Bool) → (ℕ → Bool) → StU → StU
syBM xs y ys l r s =
  ⟪ record (syB xs (y ∷ ys) l r (st s)) { smap = lastMap (smap (st s)) (xs ++ y ∷ []) } , ys ⟫

PartM : SU → SU → Set
PartM S S' = Σ (List E) λ xs → Σ E λ y → Σ (List E) λ ys → Σ (ℕ → Bool) λ l → Σ (ℕ → Bool) λ r →
  ues (su S) ≡ xs ++ y ∷ ys × Land (st (su S)) xs l × RelB (st (su S)) xs (y ∷ ys) r ×
  su S' ≡ syBM xs y ys l r (su S) × gh S' ≡ ghostN (su S')

PartMᶜ : SU → SU → Set
PartMᶜ S S' = Σ (List E) λ xs → Σ E λ y → Σ (List E) λ ys → Σ (ℕ → Bool) λ l → Σ (ℕ → Bool) λ r →
  ues (su S) ≡ xs ++ y ∷ ys × Land (st (su S)) xs l × RelB (st (su S)) xs (y ∷ ys) r ×
  Img (st (syBM xs y ys l r (su S))) (st (su S')) × gh S' ≡ ghostN (syBM xs y ys l r (su S))

okMut crashMut : Op → SU → SU → Set
okMut (use (reg (op sy))) S S' = PartM S S'
okMut o S S' = okB o S S'
crashMut (use (reg (op sy))) S S' = PartMᶜ S S' × ues (su S') ≡ []
crashMut o S S' = crashB o S S'

Pmut : Model
Pmut = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okMut ; crash = crashMut }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = wr0 1 true s2                   -- w(1,true) to page 1
s4 = flB s3                          -- barrier: epoch 1, no SYNC

e₁ : E
e₁ = epE s3

none : ℕ → Bool
none _ = false

-- the mutated SYNC: a ticket that proves no epoch, counting epoch 1
U5 : StU
U5 = syBM [] e₁ [] none none ⟪ s4 , e₁ ∷ [] ⟫

m5 : St
m5 = st U5

-- the crash right after it: data page 1 lost (junk), everything else landed
lose1 : (ℕ → MC) → ℕ → MC
lose1 D (suc zero) = syn junk
lose1 D p          = sync (D p)

s5 s6 : St
s5 = record (syncAll m5) { dat = lose1 (dat m5) }

-- epoch 1's committed page
c₁ : Cell
c₁ = proj₁ (ue 1 e₁)

s6 = recU true 1 unmapped (c₁ ∷ []) [] s5   -- recovery: the ghost's durable part holds c₁

crD : ∀ p → CrashD (dat m5 p) (dat s5 p)
crD zero          = land-D (dat m5 0)
crD (suc zero)    = junk , refl
crD (suc (suc p)) = land-D (dat m5 (suc (suc p)))

img5 : Img m5 s5
img5 = crD , land-C (cpL m5) , land-C (cpO m5) , land-L (dr m5) , (λ p → land-C (rcd m5 p))

S0 S1 S2 S3 S4 S5 S6 : SU
S0 = ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
S1 = ⟦ ⟪ s1 , [] ⟫ , ghostN ⟪ s1 , [] ⟫ ⟧
S2 = ⟦ ⟪ s2 , [] ⟫ , ghostN ⟪ s2 , [] ⟫ ⟧
S3 = ⟦ ⟪ s3 , [] ⟫ , ghostN ⟪ s3 , [] ⟫ ⟧
S4 = ⟦ ⟪ s4 , e₁ ∷ [] ⟫ , ghostN ⟪ s4 , e₁ ∷ [] ⟫ ⟧
S5 = ⟦ ⟪ s5 , [] ⟫ , ghostN U5 ⟧
S6 = ⟦ ⟪ s6 , [] ⟫ , ghostN ⟪ s6 , [] ⟫ ⟧

open FragmentsB Pmut

r1 : okMut SB.recover S0 S1
r1 = (true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl

w1 : okMut (use (reg (op (w 0 true)))) S1 S2
w1 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

w2 : okMut (use (reg (op (w 1 true)))) S2 S3
w2 = (inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl) , refl) , refl

b1 : okMut (use (reg barrier)) S3 S4
b1 = inj₁ (s≤s z≤n , refl) , refl

c1 : crashMut (use (reg (op sy))) S4 S5
c1 = ([] , e₁ , [] , none , none , refl , ((λ a p le q → inj₂ (unmapped-none a p q)) , (λ p ())) ,
      (λ p ()) , img5 , refl) , refl
  where
    -- the stable L2P maps nothing: the Land guard's first part is vacuous
    unmapped-none : ∀ a p → lastMap (smap s4) [] a ≡ just p → Σ Cell λ c → dat s4 p ≡ syn c
    unmapped-none a p ()

r2 : okMut SB.recover S5 S6
r2 = (true , 1 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (op (w 0 true) ∷ op (w 1 true) ∷ barrier ∷ []) (reg (op sy)) 0 ∷ []) []

F : MultiRec shape S0
F = multirec (new-s0 , refl , refl) [] r1
      (onerec {t3c = S5} {t3r = S5} no-flush (w1 ∷ w2 ∷ b1 ∷ []) c1 [] r2
       ∷ done [])

recovered : rd s6 0 ≡ true × rd s6 1 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 0 z≤n
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- PUSB on the same run: the ticket proves no epoch, so epoch 1 stays
-- unsynced, and recovery checks it: page 1 fails its digest, nothing is
-- accepted above the durable part

pusb-keeps : ues (syBU [] (e₁ ∷ []) none none ⟪ s4 , e₁ ∷ [] ⟫) ≡ e₁ ∷ []
pusb-keeps = refl

pusb-stops : accU 1 (λ p → cur (dat s5 p)) [] ((c₁ , []) ∷ []) ≡ []
pusb-stops = refl
