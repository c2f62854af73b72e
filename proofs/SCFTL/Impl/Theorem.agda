{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 17: the SCFTL model P implements the specification S.
-- The obligations of §4.4 (ForwardSimulation.Obligations) instantiated
-- for P, hence Theorem 1 (behavioural correctness of P w.r.t. S) and,
-- with Lemma 1 and Theorem 2, snapshot consistency of P.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Theorem (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; ⟨_,_,_⟩; volatile; stable; okS; crashS; UOp; use; flush; recover;
               RegOp; w; rl; es; SnapshotConsistent;
               theorem1-S; obligations⇒SC; new-disk)
  renaming (reg to regop; New to NewS)

------------------------------------------------------------------------
-- Regular operations, all at once

reg-sim : ∀ x {s t s'} → AR s t → RI s → okP (use (regop x)) s s' →
  Σ State λ t' → okS (use (regop x)) t t' × AR s' t' × RI s'
reg-sim (w a d) = write-sim a d
reg-sim rl      = rl-sim
reg-sim es      = es-sim

reg-stable : ∀ x {t t'} → okS (use (regop x)) t t' → stable t' ≡ stable t
reg-stable (w a d) (inj₁ (_ , _ , e , _)) = e
reg-stable (w a d) (inj₂ (_ , e))         = cong stable e
reg-stable rl      e                      = cong stable e
reg-stable es      e                      = cong stable e

reg-crashS : ∀ x t → crashS (use (regop x)) t t
reg-crashS (w a d) t = refl
reg-crashS rl      t = refl
reg-crashS es      t = refl

-- a crashed regular operation: a crash from its end state, which is
-- normal (RI) and keeps the stable L2P's contents
reg-crash : ∀ x {s t s'} → AR s t → RI s → crashP (use (regop x)) s s' →
  Σ State λ t' → crashS (use (regop x)) t t' × CR s' t'
reg-crash x {t = t} arr r (m , okm , img) with reg-sim x arr r okm
... | t'' , st , ar'' , r'' =
  t , reg-crashS x t , smap m , crash-RI r'' img ,
  dok-crash (proj₁ img) (ri-dok r'' (λ a le → trans (AR.stb ar'' a le) (cong (λ f → f a) (reg-stable x st))))

use-sim : ∀ u {s t s'} → AR s t → RI s → okP (use u) s s' →
  Σ State λ t' → okS (use u) t t' × AR s' t' × RI s'
use-sim (regop x) = reg-sim x
use-sim flush     = flush-sim

use-crash : ∀ u {s t s'} → AR s t → RI s → crashP (use u) s s' →
  Σ State λ t' → crashS (use u) t t' × CR s' t'
use-crash (regop x) = reg-crash x
use-crash flush     = flush-crash

------------------------------------------------------------------------
-- Recovery

rec-A : ∀ {s t s'} → CR s t → okP recover s s' → Σ State λ t' → okS recover t t' × AR s' t'
rec-A {t = t} (M , rt , dk) st =
  ⟨ stable t , stable t , 0 ⟩ , (refl , refl , refl) , proj₁ (recover-sim rt dk st)

rec-B : ∀ {s s'} → CI s → okP recover s s' → RI s'
rec-B (M , X , rt , dk) st = proj₂ (recover-sim rt dk st)

recᶜ-A : ∀ {s t s'} → CR s t → crashP recover s s' → Σ State λ t' → crashS recover t t' × CR s' t'
recᶜ-A {t = t} (M , rt , dk) (b , g , C , pk , m , ck , img) = t , refl , M , rec-crash rt dk pk ck img

recᶜ-B : ∀ {s s'} → CI s → crashP recover s s' → CI s'
recᶜ-B (M , X , rt , dk) (b , g , C , pk , m , ck , img) = M , X , rec-crash rt dk pk ck img

------------------------------------------------------------------------
-- Format / new disks

new-RecTo : ∀ {s} → NewP s → RecTo s unmapped
new-RecTo {s} (e1 , e2 , e3 , e4) =
  recto true 0 unmapped (pick-slot true s 0 unmapped e1 so) e1 so
        (subst (All IsSyn) (sym e3) []) (subst (All (PM (GenLe 0))) (sym e3) [])
        (λ a → cong (λ l → proj₁ (rp 0 (chn 0 R D (acc 0 D (map cur l))) (st0 unmapped)) a) e3)
        (subst (λ l → DgM unmapped (chn 0 R D (acc 0 D (map cur l)))) (sym e3) tt)
        (λ p → subst (λ m → RLt 1 (cur m)) (sym (e4 p)) tt)
  where
    so = subst (PM (Older 0)) (sym e2) tt
    D = λ p → cur (dat s p)
    R = λ p → cur (rcd s p)

init-CR' : ∀ {s t} → NewP s → NewS t → CR s t
init-CR' n en = unmapped , new-RecTo n , λ a le → cong (λ f → f a) en

init-CI' : ∀ {s} → NewP s → CI s
init-CI' n = unmapped , (λ _ → d0) , new-RecTo n , λ a le → refl

------------------------------------------------------------------------
-- The obligations, Theorem 1 and snapshot consistency for P

open Sp.ForwardSimulation P S using (Obligations; theorem1)

A-ok' : ∀ u {s t s'} → AR s t → RI s → okP (use u) s s' →
  Σ State λ t' → okS (use u) t t' × AR s' t'
A-ok' u arr r st with use-sim u arr r st
... | t' , st' , ar' , _ = t' , st' , ar'

B-ok' : ∀ u {s s'} → RI s → okP (use u) s s' → RI s'
B-ok' u {s} r st = proj₂ (proj₂ (proj₂ (use-sim u (AR-tOf s) r st)))

B-crash' : ∀ u {s s'} → RI s → crashP (use u) s s' → CI s'
B-crash' u {s} r c with use-crash u (AR-tOf s) r c
... | t' , _ , cr = CR⇒CI {t = t'} cr

AR⇒≈' : ∀ {s t} → AR s t → Sp.Correspondence._≈_ P S s t
AR⇒≈' x = AR.vol x

A-rec' : ∀ {s t s'} → CR s t → CI s → okP recover s s' → Σ State λ t' → okS recover t t' × AR s' t'
A-rec' {t = t} cr _ r = rec-A {t = t} cr r

A-recᶜ' : ∀ {s t s'} → CR s t → CI s → crashP recover s s' → Σ State λ t' → crashS recover t t' × CR s' t'
A-recᶜ' {t = t} cr _ r = recᶜ-A {t = t} cr r

obligations : Obligations
obligations = record
  { AR = AR ; CR = CR ; RI = RI ; CI = CI
  ; AR⇒≈    = AR⇒≈'
  ; init-CR = λ {s} {t} → init-CR' {s} {t}
  ; init-CI = λ {s} → init-CI' {s}
  ; A-ok    = A-ok'
  ; A-crash = λ u {s} {t} {s'} → use-crash u {s} {t} {s'}
  ; A-rec   = λ {s} {t} {s'} → A-rec' {s} {t} {s'}
  ; A-recᶜ  = λ {s} {t} {s'} → A-recᶜ' {s} {t} {s'}
  ; B-ok    = B-ok'
  ; B-crash = B-crash'
  ; B-rec   = rec-B
  ; B-recᶜ  = recᶜ-B
  }

-- Theorem 1: P is behaviourally correct with respect to S.
theorem1-P : Sp.Correspondence.BehaviourallyCorrect P S
theorem1-P = theorem1 obligations new-disk

-- §4 end to end: P is snapshot-consistent.
P-snapshot-consistent : SnapshotConsistent P
P-snapshot-consistent = obligations⇒SC P obligations

------------------------------------------------------------------------
-- Design properties the proof rests on, stated on their own

-- gc_es only erases a page that neither the volatile nor the stable L2P
-- maps (and the stable L2P is what recovery computes, `ri-rec`).
gc-erase-safe : ∀ {s s'} → RI s → okP (use (regop es)) s s' →
  Σ ℕ λ p → s' ≡ esF p s × (∀ a → a ≤ amax → l2p s a ≢ just p)
                         × (∀ a → a ≤ amax → smap s a ≢ just p)
gc-erase-safe r (p , ep , refl) = p , refl , proj₁ (proj₂ (RI.eOK r p ep)) , proj₂ (proj₂ (RI.eOK r p ep))

-- the stable L2P of a normal state is what recovery would compute from
-- the flash as it is now, and from any crash outcome of it
stable-is-recovered : ∀ {s} (r : RI s) → recMap (gen s) (RI.C r) s ≐ smap s
stable-is-recovered = ri-rec

stable-survives-crash : ∀ {s s'} → RI s → Img s s' → RecTo s' (smap s)
stable-survives-crash = crash-RI

-- recovery rebuilds the state from the flash alone (the memory of the
-- crashed state, including the ghost, plays no part)
private
  flashOnly : Bool → ℕ → Map → (ℕ → MC) → MC → MC → List MC → (ℕ → MC) → St
  flashOnly b g C d l o r i = rec0 b g C (record
    { dat = d ; cpL = l ; cpO = o ; dr = r ; rcd = i ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing
    ; dbuf = [] ; ept = [] ; nxt = 0 ; inv = λ _ → false ; ers = λ _ → false ; wcnt = 0 ; gcnt = 0
    ; smap = unmapped ; ep = 0 ; lnk = nothing })

  viaFlash : ∀ b g C s → rec0 b g C s ≡ flashOnly b g C (dat s) (cpL s) (cpO s) (dr s) (rcd s)
  viaFlash true  g C s = refl
  viaFlash false g C s = refl

-- (with or without the full checkpoint: `rec0` is the same, `ck3` of it too)
recover-flash-only : ∀ b g C {s₁ s₂} → dat s₁ ≡ dat s₂ → cpL s₁ ≡ cpL s₂ → cpO s₁ ≡ cpO s₂ →
  dr s₁ ≡ dr s₂ → rcd s₁ ≡ rcd s₂ → rec0 b g C s₁ ≡ rec0 b g C s₂
recover-flash-only b g C {s₁} {s₂} e1 e2 e3 e4 e5 =
  trans (viaFlash b g C s₁)
    (trans (go e1 e2 e3 e4 e5) (sym (viaFlash b g C s₂)))
  where
    go : dat s₁ ≡ dat s₂ → cpL s₁ ≡ cpL s₂ → cpO s₁ ≡ cpO s₂ → dr s₁ ≡ dr s₂ → rcd s₁ ≡ rcd s₂ →
         flashOnly b g C (dat s₁) (cpL s₁) (cpO s₁) (dr s₁) (rcd s₁) ≡ flashOnly b g C (dat s₂) (cpL s₂) (cpO s₂) (dr s₂) (rcd s₂)
    go e1 e2 e3 e4 e5 rewrite e1 | e2 | e3 | e4 | e5 = refl
