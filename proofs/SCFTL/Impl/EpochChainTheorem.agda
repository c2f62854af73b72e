{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: Theorem 1 for the epoch chain PB against the spec with
-- barriers SB, by the forward simulation of §4.4 (SCFTL.Simulation over
-- the operations RB):
--
--   obligations          : ForwardSimulation.Obligations PB SB
--   theorem1-PB          : Correspondence.BehaviourallyCorrect PB SB
--   PB-snapshot-consistent′ : SnapshotConsistentB PB   (via theorem2-SB)
--
-- AR(s,t): PB reads what SB's volatile array holds (every address);
-- every image a recovery of s may return (`cands`) is, up to pointwise
-- equality, SB's stable image or one of its pending snapshots; the
-- write counters agree; PB has as many unsynced epochs as SB pending
-- snapshots (so a barrier syncs in both or in neither:
-- MAX_UNSYNCED_EPOCHS).  CR(s,t): the `cands` part alone.  RI, CI: ⊤
-- (PB's structure needs no invariant: `cands` moves as the contract
-- says from every state).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.EpochChainTheorem
  (Data : Set) (d0 : Data) (amax wmax umax : ℕ) (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; _≡ᵇ_)
open import Data.Bool.Base using (true; false)
open import Data.List.Base using (List; []; _∷_; _++_; length)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong-app; subst)

open import SCFTL.Impl.EpochChain Data d0 amax wmax umax _≟D_
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open SB using (⟨_,_,_,_⟩; volatile; stable; pend; wcnt; SB; obligations⇒SCB;
               module ForwardSimulation; module Correspondence; ∈-++ˡ; ∈-++⁻)

------------------------------------------------------------------------
-- Lists of images, up to pointwise equality

_≗_ : Arr → Arr → Set
f ≗ g = ∀ a → f a ≡ g a

infix 4 _⊑_
_⊑_ : List Arr → List Arr → Set
xs ⊑ ys = ∀ {x} → x ∈ xs → Σ Arr λ y → y ∈ ys × x ≗ y

⊆⊑ : ∀ {xs ys zs} → xs ⊆ ys → ys ⊑ zs → xs ⊑ zs
⊆⊑ s t m = t (s m)

⊑-one : ∀ {x y} → x ≗ y → x ∷ [] ⊑ y ∷ []
⊑-one {y = y} e (here refl) = y , here refl , e

⊑-snoc : ∀ {xs ys x y} → xs ⊑ ys → x ≗ y → xs ++ x ∷ [] ⊑ ys ++ y ∷ []
⊑-snoc {xs} {ys} {y = y} s e m with ∈-++⁻ xs m
... | inj₁ m′ with s m′
...   | z , mz , ez = z , ∈-++ˡ ys mz , ez
⊑-snoc {xs} {ys} {y = y} s e m | inj₂ (here refl) = y , ∈-++ʳ ys (here refl) , e

------------------------------------------------------------------------
-- A write changes the read as SB's write does

apply-snoc : ∀ b ds a d → apply b (ds ++ (a , d) ∷ []) ≡ (apply b ds) [ a ↦ d ]
apply-snoc b [] a d = refl
apply-snoc b ((a′ , d′) ∷ ds) a d = apply-snoc (b [ a′ ↦ d′ ]) ds a d

------------------------------------------------------------------------
-- The relations

record AR (s : St) (t : SB.State) : Set where
  field
    vol : read s ≗ volatile t
    cnd : cands s ⊑ stable t ∷ pend t
    cnt : wc s ≡ wcnt t
    len : length (eps s) ≡ length (pend t)

CR : St → SB.State → Set
CR s t = cands s ⊑ stable t ∷ pend t

private
  T : St → Set
  T _ = ⊤

  -- the SB state a PB state s is in after a SYNC that made image v durable
  synced : ∀ {x v} → x ≗ v → SB.State
  synced {v = v} _ = ⟨ v , v , [] , 0 ⟩

open ForwardSimulation PB SB
open Correspondence PB SB

private
  A-ok′ : ∀ u {s t s′} → AR s t → T s → okB (use u) s s′ →
    Σ SB.State λ t′ → SB.okSB (use u) t t′ × AR s′ t′
  -- write, in bounds
  A-ok′ (reg (op (w a d))) {s} {t} ar _ (inj₁ ((la , lw) , refl)) =
    ⟨ volatile t [ a ↦ d ] , stable t , pend t , suc (wcnt t) ⟩ ,
    inj₁ ((la , subst (_≤ wmax) (AR.cnt ar) lw) , refl , refl , refl , refl) ,
    record { vol = vol′ ; cnd = AR.cnd ar ; cnt = cong suc (AR.cnt ar) ; len = AR.len ar }
    where
      L = lastI (base s) (eps s)
      vol′ : read (wr a d s) ≗ (volatile t [ a ↦ d ])
      vol′ b rewrite apply-snoc L (opn s) a d with b ≡ᵇ a
      ... | true  = refl
      ... | false = AR.vol ar b
  -- write, out of bounds
  A-ok′ (reg (op (w a d))) {s} {t} ar _ (inj₂ (nib , refl)) =
    t , inj₂ ((λ { (la , lw) → nib (la , subst (_≤ wmax) (sym (AR.cnt ar)) lw) }) , refl) , ar
  A-ok′ (reg (op rl)) {t = t} ar _ refl = t , refl , ar
  A-ok′ (reg (op esOp)) {t = t} ar _ refl = t , refl , ar
  A-ok′ (reg (op sy)) ar _ ()
  -- barrier without SYNC
  A-ok′ (reg barrier) {s} {t} ar _ (inj₁ (lt , refl)) =
    ⟨ volatile t , stable t , pend t ++ volatile t ∷ [] , 0 ⟩ ,
    (refl , refl , inj₁ (subst (_< umax) (AR.len ar) lt , refl , refl)) ,
    record { vol = λ b → trans (cong-app (lastI-snoc (base s) (eps s) (opn s)) b) (AR.vol ar b)
           ; cnd = ⊆⊑ (barU-⊆ s) (⊑-snoc (AR.cnd ar) (AR.vol ar))
           ; cnt = refl
           ; len = trans (lengthE (eps s) (commit (opn s)))
                     (trans (cong suc (AR.len ar)) (sym (SB.length-snoc (pend t) (volatile t)))) }
  -- barrier with SYNC (MAX_UNSYNCED_EPOCHS)
  A-ok′ (reg barrier) {s} {t} ar _ (inj₂ (ge , refl)) =
    ⟨ volatile t , volatile t , [] , 0 ⟩ ,
    (refl , refl , inj₂ (refl , refl)) ,
    record { vol = AR.vol ar ; cnd = ⊑-one (AR.vol ar) ; cnt = refl ; len = refl }
  A-ok′ flush {s} {t} ar _ refl =
    ⟨ volatile t , volatile t , [] , 0 ⟩ , (refl , refl , refl , refl) ,
    record { vol = AR.vol ar ; cnd = ⊑-one (AR.vol ar) ; cnt = refl ; len = refl }

  -- SB's crashed flush / barrier that left the image pending or durable
  fb-crash : ∀ {s t s′} → AR s t →
    crashB (use flush) s s′ → Σ SB.State λ t′ → SB._─fbᶜ→_ t t′ × CR s′ t′
  fb-crash {s} {t} {s′} ar (inj₁ i) =
    ⟨ volatile t , stable t , pend t ++ volatile t ∷ [] , 0 ⟩ , inj₁ (refl , refl) ,
    ⊆⊑ (⊆-trans (Img-⊆ {barU s} {s′} i) (barU-⊆ s)) (⊑-snoc (AR.cnd ar) (AR.vol ar))
  fb-crash {s} {t} {s′} ar (inj₂ i) =
    ⟨ volatile t , volatile t , [] , 0 ⟩ , inj₂ (refl , refl) ,
    ⊆⊑ (Img-⊆ {syncF s} {s′} i) (⊑-one (AR.vol ar))

  A-crash′ : ∀ u {s t s′} → AR s t → T s → crashB (use u) s s′ →
    Σ SB.State λ t′ → SB.crashSB (use u) t t′ × CR s′ t′
  A-crash′ (reg (op x)) {s} {t} {s′} ar _ i =
    t , still x , ⊆⊑ (Img-⊆ {s} {s′} i) (AR.cnd ar)
    where
      still : ∀ x {t} → SB.crashSB (use (reg (op x))) t t
      still (w a d) = refl , refl
      still rl      = refl , refl
      still esOp    = refl , refl
      still sy      = inj₁ (refl , refl)
  A-crash′ (reg barrier) {s} {t} {s′} ar _ (inj₁ i) = fb-crash {s} {t} {s′} ar (inj₁ i)
  A-crash′ (reg barrier) {s} {t} {s′} ar _ (inj₂ (_ , i)) = fb-crash {s} {t} {s′} ar (inj₂ i)
  A-crash′ flush {s} {t} {s′} ar _ c = fb-crash {s} {t} {s′} ar c

  A-rec′ : ∀ {s t s′} → CR s t → T s → okB recover s s′ →
    Σ SB.State λ t′ → SB.okSB recover t t′ × AR s′ t′
  A-rec′ {s} {t} cr _ refl with cr (rec-prefix (base s) (eps s))
  ... | y , my , e =
    ⟨ y , y , [] , 0 ⟩ , (y , my , refl , refl , refl , refl) ,
    record { vol = e ; cnd = ⊑-one e ; cnt = refl ; len = refl }

  A-recᶜ′ : ∀ {s t s′} → CR s t → T s → crashB recover s s′ →
    Σ SB.State λ t′ → SB.crashSB recover t t′ × CR s′ t′
  A-recᶜ′ {s} {t} {s′} cr _ (inj₁ i) = t , inj₁ (refl , refl) , ⊆⊑ (Img-⊆ {s} {s′} i) cr
  A-recᶜ′ {s} {t} {s′} cr _ (inj₂ i) with cr (rec-prefix (base s) (eps s))
  ... | y , my , e =
    ⟨ y , y , [] , 0 ⟩ , inj₂ (y , my , refl , refl) ,
    ⊆⊑ (Img-⊆ {recS s} {s′} i) (⊑-one e)

  init-CR′ : ∀ {s t} → NewB s → SB.New t → CR s t
  init-CR′ {st b .[] o c} {t} (refl , refl) (e1 , e2) (here refl) =
    stable t , here refl , λ a → sym (cong-app e1 a)

obligations : Obligations
obligations = record
  { AR = AR ; CR = CR ; RI = T ; CI = T
  ; AR⇒≈ = λ ar a _ → AR.vol ar a
  ; init-CR = λ {s} {t} → init-CR′ {s} {t}
  ; init-CI = λ _ → tt
  ; A-ok = λ u {s} {t} {s′} → A-ok′ u {s} {t} {s′}
  ; A-crash = λ u {s} {t} {s′} → A-crash′ u {s} {t} {s′}
  ; A-rec = λ {s} {t} {s′} → A-rec′ {s} {t} {s′}
  ; A-recᶜ = λ {s} {t} {s′} → A-recᶜ′ {s} {t} {s′}
  ; B-ok = λ _ _ _ → tt
  ; B-crash = λ _ _ _ → tt
  ; B-rec = λ _ _ → tt
  ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 for the epoch chain (w.r.t. the spec with barriers).
theorem1-PB : BehaviourallyCorrect
theorem1-PB = theorem1 obligations SB.new-disk

-- Snapshot consistency with barriers again, now through Theorems 1 and 2.
PB-snapshot-consistent′ : SB.SnapshotConsistentB PB
PB-snapshot-consistent′ = obligations⇒SCB PB obligations
