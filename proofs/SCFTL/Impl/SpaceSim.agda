{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward the data superblocks in the one model: a write of the
-- block layer over PX is one of Space's writes on the data half.
--
-- The abstraction (`Abs`) of a state of BXone, given which blocks are
-- used (`us`, a ghost the data-superblock layer will keep), to Space's
-- data half (SCFTL.Impl.SpaceData's `StD`): the used blocks' valid
-- counts (below P, highest first: SCFTL.Impl.SpaceUsed's `usedL` of
-- SCFTL.Impl.SpaceValid's `vc`), the open block's count, its room (Z
-- minus its write pointer: S = Z, one sector per page), P's write
-- counter; the open block is not used and lies below P.
--
--   **`sim-w`** : from a state so abstracted, where every mapped page
--                 lies in the open block or a used block below P
--                 (`OldIn`), with no victim pending and GC not needed
--                 (Space's guards on a write: the GC-timing policy), a
--                 write of BXone that stays in the open block (the
--                 allocation policy: the open block while it has room)
--                 is a step of `StepD` — `wrU` over a used block's
--                 sector, `wrA` over the open block's, `wrN` for a new
--                 logical sector — to a state abstracted by the write's
--                 result; a refused write leaves the abstraction as it
--                 was.  The configuration's L is the logical sectors
--                 (amax + 1), W is P's write bound (wmax + 1), S is Z.
--
-- Still to do (proofs/README.md, "Not done"): the classes of every block
-- (free, used, victims, erasable) kept by every step, activation, GC by
-- superblock, erase, flush and a recovery that reclaims.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceSim (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥-elim)
open import Data.List.Base using (List; _∷_; _++_; sum)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-trans; ≤-reflexive; +-suc; <-irrefl)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; wcnt; nxt)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; module OPX)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; loc; wp; ab; balloc; upd-self)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb
  using (vc; inBlk; vc-w; vc-sum; Moves; Unmoved)
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-≥; b2n-eq; usedL; used-same; used-sum; wrU-shape; wrA-shape; wrN-shape; MoveEq)
open import SCFTL.Impl.SpaceData using (StD; sd; StepD; wrU; wrA; wrN; freD; ersD; invD; vsD; roomD; vaD; wcD; gcD; pendD; cuD)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The abstraction

record Abs (c : Sp.Config) (us : ℕ → Bool) (X : XS) (bl : BL) (d : StD) : Set where
  field
    vsA   : vsD d ≡ usedL us (vc X bl) (Sp.P c)
    vaA   : vaD d ≡ vc X bl (ab bl)
    roomA : roomD d + wp bl (ab bl) ≡ Sp.S c
    wcA   : wcD d ≡ wcnt (stX X)
    abU   : us (ab bl) ≡ false
    abP   : ab bl < Sp.P c

-- every mapped page lies in the open block or in a used block below P
OldIn : Sp.Config → (ℕ → Bool) → XS → BL → Set
OldIn c us X bl = ∀ b q → b ≤ amax → l2p (stX X) b ≡ just q →
                  proj₁ (loc bl q) ≡ ab bl ⊎ (us (proj₁ (loc bl q)) ≡ true × proj₁ (loc bl q) < Sp.P c)

------------------------------------------------------------------------
-- Space's writes from equalities

private
  wrU′ : ∀ {c d xs x ys r} → vsD d ≡ xs ++ suc x ∷ ys → roomD d ≡ suc r → pendD d ≡ 0 →
         wcD d < Sp.W c → Sp.NotNeeded c (gcD d) (vsD d) →
         StepD c d (sd (freD d) (ersD d) (invD d) (xs ++ x ∷ ys) r (suc (vaD d)) (suc (wcD d)) (gcD d) 0 (cuD d))
  wrU′ {d = sd f e i _ _ a w g _ u} refl refl refl lt nn = wrU lt nn

  wrA′ : ∀ {c d a r} → vaD d ≡ suc a → roomD d ≡ suc r → pendD d ≡ 0 →
         wcD d < Sp.W c → Sp.NotNeeded c (gcD d) (vsD d) →
         StepD c d (sd (freD d) (ersD d) (invD d) (vsD d) r (suc a) (suc (wcD d)) (gcD d) 0 (cuD d))
  wrA′ {d = sd f e i xs _ _ w g _ u} refl refl refl lt nn = wrA lt nn

  wrN′ : ∀ {c d r} → roomD d ≡ suc r → pendD d ≡ 0 →
         wcD d < Sp.W c → Sp.NotNeeded c (gcD d) (vsD d) → sum (vsD d) + vaD d < Sp.L c →
         StepD c d (sd (freD d) (ersD d) (invD d) (vsD d) r (suc (vaD d)) (suc (wcD d)) (gcD d) 0 (cuD d))
  wrN′ {d = sd f e i xs _ a w g _ u} refl refl lt nn sl = wrN lt nn sl

  cong₂′ : ∀ {A B C : Set} (f : A → B → C) {x x' y y'} → x ≡ x' → y ≡ y' → f x y ≡ f x' y'
  cong₂′ f refl refl = refl

  pos-suc : ∀ {n} → 1 ≤ n → Σ ℕ λ m → n ≡ suc m
  pos-suc {suc m} _ = m , refl

  -- the open block has room: its write pointer is below Z = S
  room-suc : ∀ r w z → r + w ≡ z → w < z → Σ ℕ λ r' → r ≡ suc r'
  room-suc zero    w z refl lt = ⊥-elim (<-irrefl refl lt)
  room-suc (suc r) w z _    _  = r , refl

  -- the address's own count: it maps into that block
  vc-pos : ∀ X bl b q → b ≤ amax → l2p (stX X) b ≡ just q → 1 ≤ vc X bl (proj₁ (loc bl q))
  vc-pos X bl b q le e =
    ≤-trans (≤-reflexive (sym (trans (cong (λ m → b2n (inBlk (loc bl) (proj₁ (loc bl q)) m)) e) (b2n-eq (proj₁ (loc bl q))))))
            (tot-≥ (λ a → b2n (inBlk (loc bl) (proj₁ (loc bl q)) (l2p (stX X) a))) (suc amax) b (s≤s le))

------------------------------------------------------------------------
-- A write

sim-w : ∀ {c us X X' bl bl' d a dd} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
        OPX.RI X → Abs c us X bl d → OldIn c us X bl → pendD d ≡ 0 → Sp.NotNeeded c (gcD d) (vsD d) →
        SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl') →
        ab bl' ≡ ab bl →
        (Σ StD λ d' → StepD c d d' × Abs c us X' bl' d') ⊎ Abs c us X' bl' d
sim-w {c} {us} {X} {X'} {bl} {bl'} {d} {a} {dd} eL eW eS r I old p0 nn o stay with vc-w a dd {X} {X'} r o
... | inj₁ (refl , wc , keep) = inj₂ record
  { vsA = trans (Abs.vsA I) (sym (used-same us (vc X bl) (vc X' bl) (Sp.P c) (λ j _ _ → keep j)))
  ; vaA = trans (Abs.vaA I) (sym (keep (ab bl)))
  ; roomA = Abs.roomA I
  ; wcA = trans (Abs.wcA I) (sym wc)
  ; abU = Abs.abU I ; abP = Abs.abP I }
... | inj₂ ((b , le , kn , refl , wlt , mv) , wc , wb) = inj₁ (step (l2p (stX X) b) refl mv)
  where
  k≡ : kn ≡ ab bl
  k≡ = stay
  v v' : ℕ → ℕ
  v  = vc X bl
  v' = vc X' bl'
  un : us kn ≡ false
  un = subst (λ k → us k ≡ false) (sym k≡) (Abs.abU I)
  wlt′ : wp bl (ab bl) < Sp.S c
  wlt′ = subst (λ k → wp bl k < Sp.S c) k≡ (subst (wp bl kn <_) (sym eS) wlt)
  rs : Σ ℕ λ r' → roomD d ≡ suc r'
  rs = room-suc (roomD d) (wp bl (ab bl)) (Sp.S c) (Abs.roomA I) wlt′
  r' = proj₁ rs
  wW : wcD d < Sp.W c
  wW = subst (wcD d <_) (sym eW) (subst (λ w → w < suc wmax) (sym (Abs.wcA I)) (s≤s wb))
  -- after: the open block is kn, one page further
  wp' : wp bl' kn ≡ suc (wp bl kn)
  wp' = upd-self (wp bl) kn _
  roomA' : r' + wp bl' kn ≡ Sp.S c
  roomA' = trans (cong (r' +_) wp') (trans (+-suc r' (wp bl kn))
             (trans (cong (λ z → z + wp bl kn) (sym (proj₂ rs)))
               (subst (λ k → roomD d + wp bl k ≡ Sp.S c) (sym k≡) (Abs.roomA I))))
  abU' : us kn ≡ false
  abU' = un
  abP' : kn < Sp.P c
  abP' = subst (_< Sp.P c) (sym k≡) (Abs.abP I)
  wcA' : suc (wcD d) ≡ wcnt (stX X')
  wcA' = trans (cong suc (Abs.wcA I)) (sym wc)

  va≡ : vaD d ≡ v kn
  va≡ = trans (Abs.vaA I) (cong v (sym k≡))

  step : ∀ m → l2p (stX X) b ≡ m → MoveEq v v' (λ k → inBlk (loc bl) k m) kn →
         Σ StD λ d' → StepD c d d' × Abs c us X' bl' d'
  -- a new logical sector: wrN
  step nothing e mvm = _ , wrN′ {c} {d} {r'} (proj₂ rs) p0 wW nn sl , record
    { vsA = trans (Abs.vsA I) (sym (proj₁ sh)) ; vaA = trans (cong suc va≡) (sym (proj₂ sh))
    ; roomA = roomA' ; wcA = wcA' ; abU = abU' ; abP = abP' }
    where
    sh = wrN-shape us v v' kn (Sp.P c) mvm un
    within : sum (usedL us v' (Sp.P c)) + v' kn ≤ suc amax
    within = ≤-trans (used-sum us v' (Sp.P c) kn abP' un) (vc-sum X' bl' (Sp.P c))
    sl : sum (vsD d) + vaD d < Sp.L c
    sl = subst (sum (vsD d) + vaD d <_) (sym eL)
           (subst (_≤ suc amax)
             (trans (cong₂′ (λ x y → sum x + y) (proj₁ sh) (proj₂ sh))
                    (trans (+-suc (sum (usedL us v (Sp.P c))) (v kn))
                           (cong suc (cong₂′ (λ x y → sum x + y) (sym (Abs.vsA I)) (sym va≡)))))
             within)
  -- over a sector of a block
  step (just q) e mvm with old b q le e
  -- ... of the open block: wrA
  ... | inj₁ e0 = _ , wrA′ {c} {d} {proj₁ ps} {r'} (proj₂ ps) (proj₂ rs) p0 wW nn , record
    { vsA = trans (Abs.vsA I) (sym (used-same us v v' (Sp.P c) (λ j _ _ → same j)))
    ; vaA = trans (sym (proj₂ ps)) (trans va≡ (sym (same kn)))
    ; roomA = roomA' ; wcA = wcA' ; abU = abU' ; abP = abP' }
    where
    k0≡ : proj₁ (loc bl q) ≡ kn
    k0≡ = trans e0 (sym k≡)
    same : ∀ j → v' j ≡ v j
    same = wrA-shape v v' kn (subst (λ k0 → MoveEq v v' (k0 ≡ᵇ_) kn) k0≡ mvm)
    ps : Σ ℕ λ a' → vaD d ≡ suc a'
    ps = pos-suc (subst (1 ≤_) (sym (trans (Abs.vaA I) (cong v (sym e0)))) (vc-pos X bl b q le e))
  -- ... of a used block: wrU
  ... | inj₂ (u0 , k0<) with wrU-shape us v v' (proj₁ (loc bl q)) kn (Sp.P c) mvm k0< u0 un
  ...   | (xs , x , ys , e1 , e2) , up = _ , wrU′ {c} {d} {xs} {x} {ys} {r'} (trans (Abs.vsA I) e1) (proj₂ rs) p0 wW nn , record
    { vsA = sym e2 ; vaA = trans (cong suc va≡) (sym up)
    ; roomA = roomA' ; wcA = wcA' ; abU = abU' ; abP = abP' }
