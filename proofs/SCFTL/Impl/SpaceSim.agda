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
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; _∷_; _++_; sum; length)
open import Data.List.Properties using (length-++)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-trans; ≤-reflexive; +-suc; +-comm; <-irrefl; suc-injective)
  renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; wcnt; nxt; _[_≔_])
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; module OPX)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX; wc-flush)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; loc; wp; ab; fr; balloc; upd-self; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb
  using (vc; inBlk; vc-w; vc-flush; vc-sum; vc-empty; Moves; Unmoved)
open import SCFTL.Impl.SpaceUsed
  using (b2n; tot; tot-ext; tot-upd; tot-≥; b2n-eq; usedL; used-same; used-sum; used-insert; wrU-shape; wrA-shape; wrN-shape; MoveEq)
open import SCFTL.Impl.SpaceData using (StD; sd; StepD; wrU; wrA; wrN; act; fl; freD; ersD; invD; vsD; roomD; vaD; wcD; gcD; pendD; cuD)
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
    frA   : freD d ≡ tot (λ k → b2n (fr bl k)) (Sp.P c)   -- free: erased, ready
    abF   : fr bl (ab bl) ≡ false
    frU   : ∀ k → fr bl k ≡ true → us k ≡ false

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

  f≢t : false ≡ true → ⊥
  f≢t ()

  +-identityʳ′ : ∀ n → n + 0 ≡ n
  +-identityʳ′ zero    = refl
  +-identityʳ′ (suc n) = cong suc (+-identityʳ′ n)

  -- r + w ≡ 0 + w  gives  r ≡ 0
  +-cancelʳ0 : ∀ r w → r + w ≡ w → r ≡ 0
  +-cancelʳ0 zero    w _ = refl
  +-cancelʳ0 (suc r) w e = ⊥-elim (<-irrefl (sym e) (s≤s (m≤n+m′ w r)))
    where
    m≤n+m′ : ∀ m n → m ≤ n + m
    m≤n+m′ m zero    = ≤-refl′ m
      where
      ≤-refl′ : ∀ m → m ≤ m
      ≤-refl′ zero    = z≤n
      ≤-refl′ (suc m) = s≤s (≤-refl′ m)
    m≤n+m′ m (suc n) = ≤-step′ (m≤n+m′ m n)
      where
      ≤-step′ : ∀ {a b} → a ≤ b → a ≤ suc b
      ≤-step′ z≤n     = z≤n
      ≤-step′ (s≤s l) = s≤s (≤-step′ l)

  -- the list after inserting one element is one longer
  len-ins : ∀ (xs ys : List ℕ) (a : ℕ) {zs : List ℕ} → length zs ≡ length (xs ++ ys) → ∀ {l : List ℕ} → l ≡ zs →
            length (xs ++ a ∷ ys) ≡ suc (length l)
  len-ins xs ys a ez refl =
    trans (length-++ xs {a ∷ ys}) (trans (+-suc (length xs) (length ys)) (cong suc (trans (sym (length-++ xs {ys})) (sym ez))))

  -- Space's activation from equalities
  actE : ∀ {c d f xs ys} → freD d ≡ suc f → vsD d ≡ xs ++ ys → roomD d ≡ 0 → pendD d ≡ 0 →
         StepD c d (sd f (ersD d) (invD d) (xs ++ vaD d ∷ ys) (Sp.S c) 0 (wcD d) (gcD d) 0 (cuD d))
  actE {d = sd _ e i _ _ a w g _ u} refl refl refl refl = act

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
-- A write into the open block, on counts: the core of both lemmas

-- a state after a write into the open block: the same open block, one
-- page further, the same free blocks
record After (bl bl' : BL) : Set where
  field
    abS : ab bl' ≡ ab bl
    wpS : wp bl' (ab bl) ≡ suc (wp bl (ab bl))
    frS : ∀ k → fr bl' k ≡ fr bl k

core-w : ∀ {c us X X' bl bl' d b} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax →
         Abs c us X bl d → OldIn c us X bl → pendD d ≡ 0 → Sp.NotNeeded c (gcD d) (vsD d) →
         b ≤ amax → MoveEq (vc X bl) (vc X' bl') (λ k → inBlk (loc bl) k (l2p (stX X) b)) (ab bl) →
         wp bl (ab bl) < Sp.S c → After bl bl' →
         wcnt (stX X') ≡ suc (wcnt (stX X)) → wcnt (stX X) ≤ wmax →
         Σ StD λ d' → StepD c d d' × Abs c us X' bl' d'
core-w {c} {us} {X} {X'} {bl} {bl'} {d} {b} eL eW I old p0 nn le mv wlt A wc wb = step (l2p (stX X) b) refl mv
  where
  kn = ab bl
  v v' : ℕ → ℕ
  v  = vc X bl
  v' = vc X' bl'
  un : us kn ≡ false
  un = Abs.abU I
  rs : Σ ℕ λ r' → roomD d ≡ suc r'
  rs = room-suc (roomD d) (wp bl kn) (Sp.S c) (Abs.roomA I) wlt
  r' = proj₁ rs
  wW : wcD d < Sp.W c
  wW = subst (wcD d <_) (sym eW) (subst (λ w → w < suc wmax) (sym (Abs.wcA I)) (s≤s wb))
  ab≡ : ab bl' ≡ kn
  ab≡ = After.abS A
  -- the abstraction after, but for the open block's count
  roomA' : r' + wp bl' (ab bl') ≡ Sp.S c
  roomA' = trans (cong (λ k → r' + wp bl' k) ab≡) (trans (cong (r' +_) (After.wpS A)) (trans (+-suc r' (wp bl kn))
             (trans (cong (λ z → z + wp bl kn) (sym (proj₂ rs))) (Abs.roomA I))))
  wcA' : suc (wcD d) ≡ wcnt (stX X')
  wcA' = trans (cong suc (Abs.wcA I)) (sym wc)
  abU' : us (ab bl') ≡ false
  abU' = trans (cong us ab≡) un
  abP' : ab bl' < Sp.P c
  abP' = subst (_< Sp.P c) (sym ab≡) (Abs.abP I)
  frA' : freD d ≡ tot (λ k → b2n (fr bl' k)) (Sp.P c)
  frA' = trans (Abs.frA I) (tot-ext _ _ (Sp.P c) (λ k _ → cong b2n (sym (After.frS A k))))
  abF' : fr bl' (ab bl') ≡ false
  abF' = trans (After.frS A (ab bl')) (trans (cong (fr bl) ab≡) (Abs.abF I))
  frU' : ∀ k → fr bl' k ≡ true → us k ≡ false
  frU' k e = Abs.frU I k (trans (sym (After.frS A k)) e)
  va≡ : vaD d ≡ v kn
  va≡ = Abs.vaA I
  v'ab : ∀ {n} → v' kn ≡ n → v' (ab bl') ≡ n
  v'ab e = trans (cong v' ab≡) e

  step : ∀ m → l2p (stX X) b ≡ m → MoveEq v v' (λ k → inBlk (loc bl) k m) kn →
         Σ StD λ d' → StepD c d d' × Abs c us X' bl' d'
  -- a new logical sector: wrN
  step nothing e mvm = _ , wrN′ {c} {d} {r'} (proj₂ rs) p0 wW nn sl , record
    { vsA = trans (Abs.vsA I) (sym (proj₁ sh)) ; vaA = sym (v'ab (trans (proj₂ sh) (cong suc (sym va≡))))
    ; roomA = roomA' ; wcA = wcA' ; abU = abU' ; abP = abP' ; frA = frA' ; abF = abF' ; frU = frU' }
    where
    sh = wrN-shape us v v' kn (Sp.P c) mvm un
    within : sum (usedL us v' (Sp.P c)) + v' kn ≤ suc amax
    within = ≤-trans (used-sum us v' (Sp.P c) kn (Abs.abP I) un) (vc-sum X' bl' (Sp.P c))
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
    ; vaA = sym (v'ab (trans (same kn) (trans (sym va≡) (proj₂ ps))))
    ; roomA = roomA' ; wcA = wcA' ; abU = abU' ; abP = abP' ; frA = frA' ; abF = abF' ; frU = frU' }
    where
    same : ∀ j → v' j ≡ v j
    same = wrA-shape v v' kn (subst (λ k0 → MoveEq v v' (k0 ≡ᵇ_) kn) e0 mvm)
    ps : Σ ℕ λ a' → vaD d ≡ suc a'
    ps = pos-suc (subst (1 ≤_) (sym (trans va≡ (cong v (sym e0)))) (vc-pos X bl b q le e))
  -- ... of a used block: wrU
  ... | inj₂ (u0 , k0<) with wrU-shape us v v' (proj₁ (loc bl q)) kn (Sp.P c) mvm k0< u0 un
  ...   | (xs , x , ys , e1 , e2) , up = _ , wrU′ {c} {d} {xs} {x} {ys} {r'} (trans (Abs.vsA I) e1) (proj₂ rs) p0 wW nn , record
    { vsA = sym e2 ; vaA = sym (v'ab (trans up (cong suc (sym va≡))))
    ; roomA = roomA' ; wcA = wcA' ; abU = abU' ; abP = abP' ; frA = frA' ; abF = abF' ; frU = frU' }

------------------------------------------------------------------------
-- A write that stays in the open block

-- the bookkeeping after an allocation in the open block: the same free
-- blocks (the open one is not free)
private
  after-open : ∀ bl n → fr bl (ab bl) ≡ false → After bl (balloc (ab bl) n bl)
  after-open bl n abF = record
    { abS = refl ; wpS = upd-self (wp bl) (ab bl) _
    ; frS = λ k → fr-keep k }
    where
    fr-keep : ∀ k → (fr bl [ ab bl ≔ false ]) k ≡ fr bl k
    fr-keep k with k ≟ℕ ab bl
    ... | yes refl = trans (upd-self (fr bl) k false) (sym abF)
    ... | no ne    = upd-ne (fr bl) k (ab bl) false ne

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
  ; abU = Abs.abU I ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I ; frU = Abs.frU I }
... | inj₂ ((b , le , kn , refl , _ , wlt , mv) , wc , wb) with stay
...   | refl = inj₁ (core-w eL eW I old p0 nn le mv (subst (wp bl kn <_) (sym eS) wlt) (after-open bl (nxt (stX X)) (Abs.abF I)) wc wb)

------------------------------------------------------------------------
-- A write that opens a free block: Space's activation, then its write

-- free blocks are erased: at write pointer 0 (blocks.rs: a free
-- superblock is erased; BlocksOver: `berase` sets the write pointer to 0
-- and the block free, an allocation takes it off the free ones)
FrWp : BL → Set
FrWp bl = ∀ k → fr bl k ≡ true → wp bl k ≡ 0

sim-act : ∀ {c us X X' bl bl' d a dd} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
          OPX.RI X → LocX X bl → FrWp bl → Abs c us X bl d → OldIn c us X bl → pendD d ≡ 0 →
          Sp.K c ≤ gcD d ⊎ suc (length (vsD d)) < Sp.U c →
          SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl') →
          ab bl' ≢ ab bl → ab bl' < Sp.P c → wp bl (ab bl) ≡ Z →
          Σ StD λ d' → Star (StepD c) d d' × Abs c (us [ ab bl ≔ true ]) X' bl' d'
sim-act {c} {us} {X} {X'} {bl} {bl'} {d} {a} {dd} eL eW eS r lx fw I old p0 nn o moved kP full with vc-w a dd {X} {X'} r o
... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
... | inj₂ ((b , le , kn , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
... | inj₂ ((b , le , kn , refl , inj₂ frk , wlt , mv) , wc , wb) =
  _ , act′ ◅ proj₁ (proj₂ W2) ◅ ε , proj₂ (proj₂ W2)
  where
  k0 = ab bl
  us' = us [ k0 ≔ true ]
  kn≢ : kn ≢ k0
  kn≢ = moved
  -- the open block is full: no room
  room0 : roomD d ≡ 0
  room0 = +-cancelʳ0 (roomD d) (wp bl k0) (trans (Abs.roomA I) (trans eS (sym full)))
  -- kn is free: one fewer after
  fr' : ℕ → _
  fr' = fr bl [ kn ≔ false ]
  tf tg : ℕ
  tf = tot (λ k → b2n (fr bl k)) (Sp.P c)
  tg = tot (λ k → b2n (fr' k)) (Sp.P c)
  tu : tg + b2n (fr bl kn) ≡ tf + b2n (fr' kn)
  tu = tot-upd (λ k → b2n (fr bl k)) (λ k → b2n (fr' k)) kn (Sp.P c) kP
         (λ j _ jn → cong b2n (sym (upd-ne (fr bl) j kn false jn)))
  frsplit : freD d ≡ suc tg
  frsplit = trans (Abs.frA I) (trans (sym (+-identityʳ′ tf))
              (trans (cong (λ z → tf + b2n z) (sym (upd-self (fr bl) kn false)))
                (trans (sym tu) (trans (cong (λ z → tg + b2n z) frk) (+-comm tg 1)))))
  -- the used list with the retired block in it
  ins = used-insert us us' (vc X bl) k0 (Sp.P c) (Abs.abP I) (Abs.abU I) (upd-self us k0 true)
          (λ j jn → upd-ne us j k0 true jn)
  xs = proj₁ ins
  ys = proj₁ (proj₂ ins)
  -- Space's activation, from equalities
  d1 : StD
  d1 = sd (tot (λ k → b2n (fr' k)) (Sp.P c)) (ersD d) (invD d) (xs ++ vaD d ∷ ys) (Sp.S c) 0 (wcD d) (gcD d) 0 (cuD d)
  act′ : StepD c d d1
  act′ = actE {c} {d} frsplit (trans (Abs.vsA I) (proj₁ (proj₂ (proj₂ ins)))) room0 p0
  -- the state between: kn open, not free, nothing on it yet
  bl1 : BL
  bl1 = record bl { ab = kn ; fr = fr' }
  wp0 : wp bl kn ≡ 0
  wp0 = fw kn frk
  I1 : Abs c us' X bl1 d1
  I1 = record
    { vsA = trans (cong (λ z → xs ++ z ∷ ys) (Abs.vaA I)) (sym (proj₂ (proj₂ (proj₂ ins))))
    ; vaA = sym (vc-empty {X} {bl} {kn} lx wp0)
    ; roomA = trans (cong (Sp.S c +_) wp0) (+-identityʳ′ (Sp.S c))
    ; wcA = Abs.wcA I
    ; abU = trans (upd-ne us kn k0 true kn≢) (Abs.frU I kn frk)
    ; abP = kP
    ; frA = refl
    ; abF = upd-self (fr bl) kn false
    ; frU = frU1 }
    where
    frU1 : ∀ k → fr' k ≡ true → us' k ≡ false
    frU1 k e with k ≟ℕ kn
    ... | yes refl = ⊥-elim (f≢t (trans (sym (upd-self (fr bl) k false)) e))
    ... | no kn'   = trans (upd-ne us k k0 true k≢k0) (Abs.frU I k frk')
      where
      frk' : fr bl k ≡ true
      frk' = trans (sym (upd-ne (fr bl) k kn false kn')) e
      k≢k0 : k ≢ k0
      k≢k0 refl = f≢t (trans (sym (Abs.abF I)) frk')
  old1 : OldIn c us' X bl1
  old1 b' q le' e with old b' q le' e
  ... | inj₁ e0 = inj₂ (trans (cong us' e0) (upd-self us k0 true) , subst (_< Sp.P c) (sym e0) (Abs.abP I))
  ... | inj₂ (u , lt) with proj₁ (loc bl q) ≟ℕ k0
  ...   | yes e0 = inj₂ (trans (cong us' e0) (upd-self us k0 true) , lt)
  ...   | no ne  = inj₂ (trans (upd-ne us _ k0 true ne) u , lt)
  nn1 : Sp.NotNeeded c (gcD d1) (vsD d1)
  nn1 = nnOf nn
    where
    nnOf : Sp.K c ≤ gcD d ⊎ suc (length (vsD d)) < Sp.U c → Sp.NotNeeded c (gcD d1) (vsD d1)
    nnOf (inj₁ kg) = inj₁ kg
    nnOf (inj₂ lt) = inj₂ (subst (_< Sp.U c) (sym (len-ins xs ys (vaD d) (cong length (proj₁ (proj₂ (proj₂ ins)))) (Abs.vsA I))) lt)
  A1 : After bl1 (balloc kn (nxt (stX X)) bl)
  A1 = record { abS = refl ; wpS = upd-self (wp bl) kn _ ; frS = λ k → refl }
  W2 = core-w {c} {us'} {X} {X'} {bl1} {balloc kn (nxt (stX X)) bl} {d1} {b} eL eW I1 old1 refl nn1 le mv
         (subst (wp bl kn <_) (sym eS) wlt) A1 wc wb

------------------------------------------------------------------------
-- A flush: Space's flush, with no padding (one sector per page: P pads
-- nothing); every count, the bookkeeping and the open block are kept,
-- P's write counter is 0 after it (every commit path, `wc-flush`)

private
  flE : ∀ {c d} → pendD d ≡ 0 → Sp.NotNeeded c (gcD d) (vsD d) →
        StepD c d (sd (freD d) (ersD d + invD d) 0 (vsD d) (roomD d) (vaD d) 0 0 0 (suc (length (vsD d))))
  flE {d = sd f e i xs r a w g _ u} refl nn = fl {d = 0} nn z≤n

sim-fl : ∀ {c us X X' bl bl' d} → Abs c us X bl d → pendD d ≡ 0 → Sp.NotNeeded c (gcD d) (vsD d) →
         SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl') →
         Σ StD λ d' → StepD c d d' × Abs c us X' bl' d'
sim-fl {c} {us} {X} {X'} {bl} {.bl} {d} I p0 nn (o , refl) = _ , flE {c} {d} p0 nn , record
  { vsA = trans (Abs.vsA I) (sym (used-same us (vc X bl) (vc X' bl) (Sp.P c) (λ j _ _ → keep j)))
  ; vaA = trans (Abs.vaA I) (sym (keep (ab bl)))
  ; roomA = Abs.roomA I
  ; wcA = sym (wc-flush {X} {X'} o)
  ; abU = Abs.abU I ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I ; frU = Abs.frU I }
  where
  keep = vc-flush {X} {X'} {bl} {bl} (o , refl)
