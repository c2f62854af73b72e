{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward the data superblocks in the one model: the steps of
-- the block layer over PX (BXone; BXφ has the same steps) are Space's
-- steps on its data half (SCFTL.Impl.SpaceData's `StepD`).
--
-- The abstraction (`Abs c G X bl d`) of a state of BXone with a ghost
-- `G` (`Gh`: which blocks are used, erasable, this epoch's victims, and
-- the victim GC is moving — blocks.rs's states, which a data-superblock
-- layer keeps) to Space's data half: the used blocks' valid counts
-- (below P, highest first: SCFTL.Impl.SpaceUsed's `usedL` of
-- SCFTL.Impl.SpaceValid's `vc`), the open block's count and room (Z
-- minus its write pointer: S = Z, one sector per page), P's write
-- counter, the free blocks (BlocksOver's `fr`), the erasable ones and
-- this epoch's victims counted, the pending sectors (the current
-- victim's count); the classes disjoint, the open block in none.
--
--   `sim-w`    : a write that stays in the open block (the allocation
--                policy: the open block while it has room), from a state
--                whose mapped pages lie in the open block or a used one
--                (`OldIn`), with no victim pending and GC not needed
--                (Space's guards: the GC-timing policy), is `wrU` over a
--                used block's sector, `wrA` over the open block's, `wrN`
--                for a new logical sector; a refused write changes
--                nothing (`core-w` on counts, `kept`);
--   `sim-act`  : a write that opens a free block, when the open one is
--                full, is Space's activation (`activate`: `act`, the
--                retired block used, its count inserted at its place; the
--                new block is erased and empty, `FrWp`, `vc-empty`) and
--                then its write;
--   `sim-fl`   : a flush, every commit path, is Space's flush (no
--                padding; P's write counter 0 after it, `wc-flush`),
--                this epoch's victims erasable after it (2PGC);
--                `sim-barrier`: an epoch barrier too (`wc-barrier`; the
--                model erases its victims once a SYNC makes it durable);
--   `sim-era`  : the erase of an erasable block below P is Space's
--                `era` (it held no valid sector, `vc-erase`);
--   `sim-gcm`  : GC's choice of a used victim with at most N valid
--                sectors (a choice of the code, no step of the model) is
--                Space's `gcm`, its count pending;
--   `sim-rl`   : a relocation of one of the current victim's valid
--                sectors into the open block is Space's `rl`; one of a
--                page with no valid sector (P's `rlX`) changes nothing
--                (`core-rl`); `sim-rl-act`: one that opens a free block
--                when the open one is full is `act` and then `rl`;
--   `sim-done` : a victim with nothing pending stops being the current
--                one (a ghost step);
--   `sim-sy`   : a SYNC keeps the abstraction.
--
-- So every operation of the block layer but recovery is simulated.
-- `frwp-new`, `frwp-ok`: `FrWp` (free blocks are at write pointer 0)
-- holds on a new disk and after every step of the block layer.
--
-- The configuration's L is the logical sectors (amax + 1), W is P's
-- write bound (wmax + 1), S is Z.  The layer that keeps the ghost under
-- the code's policies, and space progress from these lemmas, are
-- SCFTL.Impl.SpaceLayer; still to do (proofs/README.md, "Not done"): a
-- recovery that reclaims, so that the layer goes on after a crash.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceSim (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; _∷_; _++_; sum; length)
open import Data.List.Properties using (length-++)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-trans; ≤-reflexive; +-suc; +-comm; <-irrefl; m≤n+m; +-identityʳ)
  renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; wcnt; nxt; _[_≔_])
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; module OPX; Place)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX; wc-flush; wc-barrier; wc-sy; lt-nxt)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; loc; wp; ab; fr; balloc; berase; forget; forget-frwp; NewBL; upd-self; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb
  using (vc; inBlk; vc-w; vc-rl; vc-flush; vc-barrier; vc-sy; vc-erase; vc-sum; vc-empty; Moves; Unmoved)
open import SCFTL.Impl.SpaceUsed
  using (b2n; tot; tot-ext; tot-0; tot-+; tot-upd; tot-≥; b2n-eq; b2n-ne; ≡ᵇ-T; ≡ᵇ-self; ≡ᵇ-false; usedL; used-same; used-sum; used-insert; used-remove;
         tot-flip; tot-pos; wrU-shape; wrA-shape; wrN-shape; MoveEq)
open import SCFTL.Impl.SpaceData using (StD; sd; StepD; ReachD; FindsD; ProgressD; data-progress; wrU; wrA; wrN; act; fl; era; gcm; rl; freD; ersD; invD; vsD; roomD; vaD; wcD; gcD; pendD; cuD)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

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

  -- r + w ≡ 0 + w  gives  r ≡ 0
  +-cancelʳ0 : ∀ r w → r + w ≡ w → r ≡ 0
  +-cancelʳ0 zero    w _ = refl
  +-cancelʳ0 (suc r) w e = ⊥-elim (<-irrefl (sym e) (s≤s (m≤n+m w r)))

  -- the list after inserting one element is one longer
  len-ins : ∀ (xs ys : List ℕ) (a : ℕ) {zs : List ℕ} → length zs ≡ length (xs ++ ys) → ∀ {l : List ℕ} → l ≡ zs →
            length (xs ++ a ∷ ys) ≡ suc (length l)
  len-ins xs ys a ez refl =
    trans (length-++ xs {a ∷ ys}) (trans (+-suc (length xs) (length ys)) (cong suc (trans (sym (length-++ xs {ys})) (sym ez))))

  -- Space's activation from equalities
  actE : ∀ {c d f xs ys} → freD d ≡ suc f → vsD d ≡ xs ++ ys → roomD d ≡ 0 →
         StepD c d (sd f (ersD d) (invD d) (xs ++ vaD d ∷ ys) (Sp.S c) 0 (wcD d) (gcD d) (pendD d) (cuD d))
  actE {d = sd _ e i _ _ a w g q u} refl refl refl = act

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

-- two small absurdities, shared with SCFTL.Impl.SpaceLayer
f≢t : false ≡ true → ⊥
f≢t ()

nothing≢just : ∀ {k : ℕ} → nothing ≢ just k
nothing≢just ()

------------------------------------------------------------------------
-- The ghost and the abstraction

-- the classes a data-superblock layer keeps beside the block bookkeeping
-- (blocks.rs's states): used, erasable (victims of committed epochs),
-- this epoch's victims, and the victim whose valid sectors GC is moving
record Gh : Set where
  constructor gh
  field
    us es vi : ℕ → Bool
    cv       : Maybe ℕ
    gn       : ℕ          -- GC victims taken this epoch (gc.rs's count, K's bound)
open Gh public

-- Space's `pend`: the valid sectors the current victim still holds
pendOf : XS → BL → Maybe ℕ → ℕ
pendOf X bl nothing  = 0
pendOf X bl (just k) = vc X bl k

record Abs (c : Sp.Config) (G : Gh) (X : XS) (bl : BL) (d : StD) : Set where
  field
    vsA   : vsD d ≡ usedL (us G) (vc X bl) (Sp.P c)
    vaA   : vaD d ≡ vc X bl (ab bl)
    roomA : roomD d + wp bl (ab bl) ≡ Sp.S c
    wcA   : wcD d ≡ wcnt (stX X)
    abU   : us G (ab bl) ≡ false
    abP   : ab bl < Sp.P c
    frA   : freD d ≡ tot (λ k → b2n (fr bl k)) (Sp.P c)   -- free: erased, ready
    abF   : fr bl (ab bl) ≡ false
    frU   : ∀ k → fr bl k ≡ true → us G k ≡ false
    erA   : ersD d ≡ tot (λ k → b2n (es G k)) (Sp.P c)
    invA  : invD d ≡ tot (λ k → b2n (vi G k)) (Sp.P c)
    pdA   : pendD d ≡ pendOf X bl (cv G)
    gcA   : gcD d ≡ gn G
    -- the classes are disjoint
    abE   : es G (ab bl) ≡ false
    abV   : vi G (ab bl) ≡ false
    frE   : ∀ k → fr bl k ≡ true → es G k ≡ false
    frV   : ∀ k → fr bl k ≡ true → vi G k ≡ false
    usE   : ∀ k → us G k ≡ true → es G k ≡ false
    usV   : ∀ k → us G k ≡ true → vi G k ≡ false
    esV   : ∀ k → es G k ≡ true → vi G k ≡ false
    cvV   : ∀ k → cv G ≡ just k → vi G k ≡ true       -- the current victim is one

-- every mapped page lies in the open block or in a used block below P
OldIn : Sp.Config → (ℕ → Bool) → XS → BL → Set
OldIn c us X bl = ∀ b q → b ≤ amax → l2p (stX X) b ≡ just q →
                  proj₁ (loc bl q) ≡ ab bl ⊎ (us (proj₁ (loc bl q)) ≡ true × proj₁ (loc bl q) < Sp.P c)

------------------------------------------------------------------------
-- A write into the open block, on counts: the core of both lemmas

-- a state after a write into the open block: the same open block, one
-- page further, the same free blocks
record After (bl bl' : BL) : Set where
  field
    abS : ab bl' ≡ ab bl
    wpS : wp bl' (ab bl) ≡ suc (wp bl (ab bl))
    frS : ∀ k → fr bl' k ≡ fr bl k

core-w : ∀ {c G X X' bl bl' d b} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax →
         Abs c G X bl d → OldIn c (us G) X bl → cv G ≡ nothing → Sp.NotNeeded c (gcD d) (vsD d) →
         b ≤ amax → MoveEq (vc X bl) (vc X' bl') (λ k → inBlk (loc bl) k (l2p (stX X) b)) (ab bl) →
         wp bl (ab bl) < Sp.S c → After bl bl' →
         wcnt (stX X') ≡ suc (wcnt (stX X)) → wcnt (stX X) ≤ wmax →
         Σ StD λ d' → StepD c d d' × Abs c G X' bl' d'
core-w {c} {G} {X} {X'} {bl} {bl'} {d} {b} eL eW I old nocv nn le mv wlt A wc wb = step (l2p (stX X) b) refl mv
  where
  kn = ab bl
  v v' : ℕ → ℕ
  v  = vc X bl
  v' = vc X' bl'
  p0 : pendD d ≡ 0
  p0 = trans (Abs.pdA I) (cong (pendOf X bl) nocv)
  un : us G kn ≡ false
  un = Abs.abU I
  rs : Σ ℕ λ r' → roomD d ≡ suc r'
  rs = room-suc (roomD d) (wp bl kn) (Sp.S c) (Abs.roomA I) wlt
  r' = proj₁ rs
  wW : wcD d < Sp.W c
  wW = subst (wcD d <_) (sym eW) (subst (λ w → w < suc wmax) (sym (Abs.wcA I)) (s≤s wb))
  ab≡ : ab bl' ≡ kn
  ab≡ = After.abS A
  va≡ : vaD d ≡ v kn
  va≡ = Abs.vaA I
  v'ab : ∀ {n} → v' kn ≡ n → v' (ab bl') ≡ n
  v'ab e = trans (cong v' ab≡) e
  -- the abstraction after a write step: Space's write moves only the
  -- list, the open block's count and room, and the write counter
  mk : ∀ {d'} → vsD d' ≡ usedL (us G) v' (Sp.P c) → vaD d' ≡ v' kn → roomD d' ≡ r' → wcD d' ≡ suc (wcD d) →
       freD d' ≡ freD d → ersD d' ≡ ersD d → invD d' ≡ invD d → pendD d' ≡ 0 → gcD d' ≡ gcD d → Abs c G X' bl' d'
  mk {d'} eV eA eR eW′ eF eE eI eP eG = record
    { vsA = eV ; vaA = trans eA (sym (cong v' ab≡))
    ; roomA = trans (cong (λ z → z + wp bl' (ab bl')) eR)
                (trans (cong (λ k → r' + wp bl' k) ab≡) (trans (cong (r' +_) (After.wpS A)) (trans (+-suc r' (wp bl kn))
                  (trans (cong (λ z → z + wp bl kn) (sym (proj₂ rs))) (Abs.roomA I)))))
    ; wcA = trans eW′ (trans (cong suc (Abs.wcA I)) (sym wc))
    ; abU = trans (cong (us G) ab≡) un
    ; abP = subst (_< Sp.P c) (sym ab≡) (Abs.abP I)
    ; frA = trans eF (trans (Abs.frA I) (tot-ext _ _ (Sp.P c) (λ k _ → cong b2n (sym (After.frS A k)))))
    ; abF = trans (After.frS A (ab bl')) (trans (cong (fr bl) ab≡) (Abs.abF I))
    ; frU = λ k e → Abs.frU I k (trans (sym (After.frS A k)) e)
    ; erA = trans eE (Abs.erA I) ; invA = trans eI (Abs.invA I)
    ; pdA = trans eP (sym (cong (pendOf X' bl') nocv)) ; gcA = trans eG (Abs.gcA I)
    ; abE = trans (cong (es G) ab≡) (Abs.abE I) ; abV = trans (cong (vi G) ab≡) (Abs.abV I)
    ; frE = λ k e → Abs.frE I k (trans (sym (After.frS A k)) e)
    ; frV = λ k e → Abs.frV I k (trans (sym (After.frS A k)) e)
    ; usE = Abs.usE I ; usV = Abs.usV I ; esV = Abs.esV I ; cvV = Abs.cvV I }

  step : ∀ m → l2p (stX X) b ≡ m → MoveEq v v' (λ k → inBlk (loc bl) k m) kn →
         Σ StD λ d' → StepD c d d' × Abs c G X' bl' d'
  -- a new logical sector: wrN
  step nothing e mvm =
    _ , wrN′ {c} {d} {r'} (proj₂ rs) p0 wW nn sl ,
    mk (trans (Abs.vsA I) (sym (proj₁ sh))) (trans (cong suc va≡) (sym (proj₂ sh))) refl refl refl refl refl refl refl
    where
    sh = wrN-shape (us G) v v' kn (Sp.P c) mvm un
    within : sum (usedL (us G) v' (Sp.P c)) + v' kn ≤ suc amax
    within = ≤-trans (used-sum (us G) v' (Sp.P c) kn (Abs.abP I) un) (vc-sum X' bl' (Sp.P c))
    sl : sum (vsD d) + vaD d < Sp.L c
    sl = subst (sum (vsD d) + vaD d <_) (sym eL)
           (subst (_≤ suc amax)
             (trans (cong₂′ (λ x y → sum x + y) (proj₁ sh) (proj₂ sh))
                    (trans (+-suc (sum (usedL (us G) v (Sp.P c))) (v kn))
                           (cong suc (cong₂′ (λ x y → sum x + y) (sym (Abs.vsA I)) (sym va≡)))))
             within)
  -- over a sector of a block
  step (just q) e mvm with old b q le e
  -- ... of the open block: wrA
  ... | inj₁ e0 =
    _ , wrA′ {c} {d} {proj₁ ps} {r'} (proj₂ ps) (proj₂ rs) p0 wW nn ,
    mk (trans (Abs.vsA I) (sym (used-same (us G) v v' (Sp.P c) (λ j _ _ → same j))))
       (trans (sym (proj₂ ps)) (trans va≡ (sym (same kn)))) refl refl refl refl refl refl refl
    where
    same : ∀ j → v' j ≡ v j
    same = wrA-shape v v' kn (subst (λ k0 → MoveEq v v' (k0 ≡ᵇ_) kn) e0 mvm)
    ps : Σ ℕ λ a' → vaD d ≡ suc a'
    ps = pos-suc (subst (1 ≤_) (sym (trans va≡ (cong v (sym e0)))) (vc-pos X bl b q le e))
  -- ... of a used block: wrU
  ... | inj₂ (u0 , k0<) with wrU-shape (us G) v v' (proj₁ (loc bl q)) kn (Sp.P c) mvm k0< u0 un
  ...   | (xs , x , ys , e1 , e2) , up =
    _ , wrU′ {c} {d} {xs} {x} {ys} {r'} (trans (Abs.vsA I) e1) (proj₂ rs) p0 wW nn ,
    mk (sym e2) (trans (cong suc va≡) (sym up)) refl refl refl refl refl refl refl

------------------------------------------------------------------------
-- A write that stays in the open block

-- the bookkeeping after an allocation in the open block: the same free
-- blocks (the open one is not free)
after-open : ∀ bl n → fr bl (ab bl) ≡ false → After bl (balloc (ab bl) n bl)
after-open bl n abF = record
  { abS = refl ; wpS = upd-self (wp bl) (ab bl) _
  ; frS = λ k → fr-keep k }
  where
  fr-keep : ∀ k → (fr bl [ ab bl ≔ false ]) k ≡ fr bl k
  fr-keep k with k ≟ℕ ab bl
  ... | yes refl = trans (upd-self (fr bl) k false) (sym abF)
  ... | no ne    = upd-ne (fr bl) k (ab bl) false ne

-- the abstraction where the block layer's bookkeeping and every count
-- are kept (a refused step, a relocation of a page holding no valid
-- sector, a flush)
kept : ∀ {c G X X' bl d} → Abs c G X bl d → (∀ k → vc X' bl k ≡ vc X bl k) → wcnt (stX X') ≡ wcnt (stX X) →
       Abs c G X' bl d
kept {c} {G} {X} {X'} {bl} {d} I keep wc = record
  { vsA = trans (Abs.vsA I) (sym (used-same (us G) (vc X bl) (vc X' bl) (Sp.P c) (λ j _ _ → keep j)))
  ; vaA = trans (Abs.vaA I) (sym (keep (ab bl)))
  ; roomA = Abs.roomA I ; wcA = trans (Abs.wcA I) (sym wc)
  ; abU = Abs.abU I ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I ; frU = Abs.frU I
  ; erA = Abs.erA I ; invA = Abs.invA I ; pdA = trans (Abs.pdA I) (pend-keep (cv G)) ; gcA = Abs.gcA I
  ; abE = Abs.abE I ; abV = Abs.abV I ; frE = Abs.frE I ; frV = Abs.frV I
  ; usE = Abs.usE I ; usV = Abs.usV I ; esV = Abs.esV I ; cvV = Abs.cvV I }
  where
  pend-keep : ∀ m → pendOf X bl m ≡ pendOf X' bl m
  pend-keep nothing  = refl
  pend-keep (just k) = sym (keep k)

sim-w : ∀ {c G X X' bl bl' d a dd} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
        OPX.RI X → Abs c G X bl d → OldIn c (us G) X bl → cv G ≡ nothing → Sp.NotNeeded c (gcD d) (vsD d) →
        SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl') →
        ab bl' ≡ ab bl →
        (Σ StD λ d' → StepD c d d' × Abs c G X' bl' d') ⊎ Abs c G X' bl' d
sim-w {c} {G} {X} {X'} {bl} {bl'} {d} {a} {dd} eL eW eS r I old nocv nn o stay with vc-w a dd {X} {X'} r o
... | inj₁ (refl , wc , keep) = inj₂ (kept {c} {G} {X} {X'} I keep wc)
... | inj₂ ((b , le , _ , kn , refl , _ , wlt , mv) , wc , wb) with stay
...   | refl = inj₁ (core-w eL eW I old nocv nn le mv (subst (wp bl kn <_) (sym eS) wlt) (after-open bl (nxt (stX X)) (Abs.abF I)) wc wb)

------------------------------------------------------------------------
-- A write that opens a free block: Space's activation, then its write

-- free blocks are erased: at write pointer 0 (blocks.rs: a free
-- superblock is erased; BlocksOver: `berase` sets the write pointer to 0
-- and the block free, an allocation takes it off the free ones)
FrWp : BL → Set
FrWp bl = ∀ k → fr bl k ≡ true → wp bl k ≡ 0

-- Space's activation: the open block, full, becomes used (its count in
-- the list at its place), a free block below P becomes the open one,
-- empty (it is erased: `FrWp`, `vc-empty`)
Opened : BL → ℕ → BL
Opened bl kn = record bl { ab = kn ; fr = fr bl [ kn ≔ false ] }

activate : ∀ {c G X bl d kn} → LocX X bl → FrWp bl → Abs c G X bl d →
           fr bl kn ≡ true → kn < Sp.P c → wp bl (ab bl) ≡ Sp.S c →
           Σ StD λ d1 → StepD c d d1 × Abs c (record G { us = us G [ ab bl ≔ true ] }) X (Opened bl kn) d1
             × length (vsD d1) ≡ suc (length (vsD d)) × gcD d1 ≡ gcD d
activate {c} {G} {X} {bl} {d} {kn} lx fw I frk kP full = d1 , act′ , I1 , len1 , refl
  where
  k0 = ab bl
  us' = us G [ k0 ≔ true ]
  G' : Gh
  G' = record G { us = us' }
  notK0 : ∀ {k} → fr bl k ≡ true → k ≢ k0
  notK0 frk' refl = f≢t (trans (sym (Abs.abF I)) frk')
  kn≢ : kn ≢ k0
  kn≢ = notK0 frk
  -- the open block is full: no room
  room0 : roomD d ≡ 0
  room0 = +-cancelʳ0 (roomD d) (wp bl k0) (trans (Abs.roomA I) (sym full))
  -- kn is free: one fewer after
  fr' : ℕ → Bool
  fr' = fr bl [ kn ≔ false ]
  tg : ℕ
  tg = tot (λ k → b2n (fr' k)) (Sp.P c)
  frsplit : freD d ≡ suc tg
  frsplit = trans (Abs.frA I) (tot-flip (fr bl) fr' kn (Sp.P c) kP frk (upd-self (fr bl) kn false)
                                 (λ j _ jn → upd-ne (fr bl) j kn false jn))
  -- the used list with the retired block in it
  ins = used-insert (us G) us' (vc X bl) k0 (Sp.P c) (Abs.abP I) (Abs.abU I) (upd-self (us G) k0 true)
          (λ j jn → upd-ne (us G) j k0 true jn)
  xs = proj₁ ins
  ys = proj₁ (proj₂ ins)
  d1 : StD
  d1 = sd tg (ersD d) (invD d) (xs ++ vaD d ∷ ys) (Sp.S c) 0 (wcD d) (gcD d) (pendD d) (cuD d)
  act′ : StepD c d d1
  act′ = actE {c} {d} frsplit (trans (Abs.vsA I) (proj₁ (proj₂ (proj₂ ins)))) room0
  len1 : length (vsD d1) ≡ suc (length (vsD d))
  len1 = len-ins xs ys (vaD d) (cong length (proj₁ (proj₂ (proj₂ ins)))) (Abs.vsA I)
  bl1 = Opened bl kn
  wp0 : wp bl kn ≡ 0
  wp0 = fw kn frk
  I1 : Abs c G' X bl1 d1
  I1 = record
    { vsA = trans (cong (λ z → xs ++ z ∷ ys) (Abs.vaA I)) (sym (proj₂ (proj₂ (proj₂ ins))))
    ; vaA = sym (vc-empty {X} {bl} {kn} lx wp0)
    ; roomA = trans (cong (Sp.S c +_) wp0) (+-identityʳ (Sp.S c))
    ; wcA = Abs.wcA I
    ; abU = trans (upd-ne (us G) kn k0 true kn≢) (Abs.frU I kn frk)
    ; abP = kP
    ; frA = refl
    ; abF = upd-self (fr bl) kn false
    ; frU = frU1
    ; erA = Abs.erA I ; invA = Abs.invA I ; pdA = trans (Abs.pdA I) (pend-op (cv G)) ; gcA = Abs.gcA I
    ; abE = Abs.frE I kn frk ; abV = Abs.frV I kn frk
    ; frE = λ k e → Abs.frE I k (fr-of k e) ; frV = λ k e → Abs.frV I k (fr-of k e)
    ; usE = usE1 ; usV = usV1 ; esV = Abs.esV I ; cvV = Abs.cvV I }
    where
    pend-op : ∀ m → pendOf X bl m ≡ pendOf X bl1 m
    pend-op nothing  = refl
    pend-op (just j) = refl
    fr-of : ∀ k → fr' k ≡ true → fr bl k ≡ true
    fr-of k e with k ≟ℕ kn
    ... | yes refl = ⊥-elim (f≢t (trans (sym (upd-self (fr bl) k false)) e))
    ... | no kn'   = trans (sym (upd-ne (fr bl) k kn false kn')) e
    frU1 : ∀ k → fr' k ≡ true → us' k ≡ false
    frU1 k e = trans (upd-ne (us G) k k0 true (notK0 (fr-of k e))) (Abs.frU I k (fr-of k e))
    usE1 : ∀ k → us' k ≡ true → es G k ≡ false
    usE1 k e with k ≟ℕ k0
    ... | yes refl = Abs.abE I
    ... | no ne    = Abs.usE I k (trans (sym (upd-ne (us G) k k0 true ne)) e)
    usV1 : ∀ k → us' k ≡ true → vi G k ≡ false
    usV1 k e with k ≟ℕ k0
    ... | yes refl = Abs.abV I
    ... | no ne    = Abs.usV I k (trans (sym (upd-ne (us G) k k0 true ne)) e)

-- mapped pages in the retired block now lie in a used one
old-act : ∀ {c us X bl kn} → ab bl < Sp.P c → OldIn c us X bl → OldIn c (us [ ab bl ≔ true ]) X (Opened bl kn)
old-act {c} {us} {X} {bl} {kn} abP old b' q le' e with old b' q le' e
... | inj₁ e0 = inj₂ (trans (cong (us [ ab bl ≔ true ]) e0) (upd-self us (ab bl) true) , subst (_< Sp.P c) (sym e0) abP)
... | inj₂ (u , lt) with proj₁ (loc bl q) ≟ℕ ab bl
...   | yes e0 = inj₂ (trans (cong (us [ ab bl ≔ true ]) e0) (upd-self us (ab bl) true) , lt)
...   | no ne  = inj₂ (trans (upd-ne us _ (ab bl) true ne) u , lt)

-- the allocation's bookkeeping after the activation: a write into the
-- open block of `Opened`
after-opened : ∀ bl kn n → After (Opened bl kn) (balloc kn n bl)
after-opened bl kn n = record { abS = refl ; wpS = upd-self (wp bl) kn _ ; frS = λ k → refl }

sim-act : ∀ {c G X X' bl bl' d a dd} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
          OPX.RI X → LocX X bl → FrWp bl → Abs c G X bl d → OldIn c (us G) X bl → cv G ≡ nothing →
          Sp.K c ≤ gcD d ⊎ suc (length (vsD d)) < Sp.U c →
          SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl') →
          ab bl' ≢ ab bl → ab bl' < Sp.P c → wp bl (ab bl) ≡ Z →
          Σ StD λ d' → Star (StepD c) d d' × Abs c (record G { us = us G [ ab bl ≔ true ] }) X' bl' d'
sim-act {c} {G} {X} {X'} {bl} {bl'} {d} {a} {dd} eL eW eS r lx fw I old nocv nn o moved kP full with vc-w a dd {X} {X'} r o
... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
... | inj₂ ((b , le , _ , kn , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
... | inj₂ ((b , le , _ , kn , refl , inj₂ frk , wlt , mv) , wc , wb)
  with activate {c} {G} {X} {bl} {d} {kn} lx fw I frk kP (trans full (sym eS))
...   | d1 , st1 , I1 , len1 , g1 =
  _ , st1 ◅ proj₁ (proj₂ W2) ◅ ε , proj₂ (proj₂ W2)
  where
  nn1 : Sp.NotNeeded c (gcD d1) (vsD d1)
  nn1 = nnOf nn
    where
    nnOf : Sp.K c ≤ gcD d ⊎ suc (length (vsD d)) < Sp.U c → Sp.NotNeeded c (gcD d1) (vsD d1)
    nnOf (inj₁ kg) = inj₁ (subst (Sp.K c ≤_) (sym g1) kg)
    nnOf (inj₂ lt) = inj₂ (subst (_< Sp.U c) (sym len1) lt)
  W2 = core-w {c} {record G { us = us G [ ab bl ≔ true ] }} {X} {X'} {Opened bl kn} {balloc kn (nxt (stX X)) bl} {d1} {b}
         eL eW I1 (old-act {c} {us G} {X} {bl} {kn} (Abs.abP I) old) nocv nn1 le mv
         (subst (wp bl kn <_) (sym eS) wlt) (after-opened bl kn (nxt (stX X))) wc wb

------------------------------------------------------------------------
-- A flush: Space's flush, with no padding (one sector per page: P pads
-- nothing); every count, the bookkeeping and the open block are kept,
-- P's write counter is 0 after it (every commit path, `wc-flush`), and
-- this epoch's victims become erasable (2PGC)

private
  flE : ∀ {c d} → pendD d ≡ 0 → Sp.NotNeeded c (gcD d) (vsD d) →
        StepD c d (sd (freD d) (ersD d + invD d) 0 (vsD d) (roomD d) (vaD d) 0 0 0 (suc (length (vsD d))))
  flE {d = sd f e i xs r a w g _ u} refl nn = fl {d = 0} nn z≤n

  b2n-∨ : ∀ x y → (x ≡ true → y ≡ false) → b2n (x ∨ y) ≡ b2n x + b2n y
  b2n-∨ true  y h = cong (λ z → 1 + b2n z) (sym (h refl))
  b2n-∨ false y h = refl

  ∨-false : ∀ {x y} → x ≡ false → y ≡ false → (x ∨ y) ≡ false
  ∨-false refl refl = refl

-- the end of an epoch, on counts: every count and the bookkeeping kept,
-- P's write counter 0
sim-end : ∀ {c G X X' bl d} → Abs c G X bl d → cv G ≡ nothing → Sp.NotNeeded c (gcD d) (vsD d) →
          (∀ k → vc X' bl k ≡ vc X bl k) → wcnt (stX X') ≡ 0 →
          Σ StD λ d' → StepD c d d' ×
            Abs c (record G { es = λ k → es G k ∨ vi G k ; vi = λ _ → false ; gn = 0 }) X' bl d'
sim-end {c} {G} {X} {X'} {bl} {d} I nocv nn keep wc0 = _ , flE {c} {d} p0 nn , record
  { vsA = trans (Abs.vsA I) (sym (used-same (us G) (vc X bl) (vc X' bl) (Sp.P c) (λ j _ _ → keep j)))
  ; vaA = trans (Abs.vaA I) (sym (keep (ab bl)))
  ; roomA = Abs.roomA I
  ; wcA = sym wc0
  ; abU = Abs.abU I ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I ; frU = Abs.frU I
  ; erA = trans (cong₂′ _+_ (Abs.erA I) (Abs.invA I))
            (sym (trans (tot-ext _ _ (Sp.P c) (λ k _ → b2n-∨ (es G k) (vi G k) (Abs.esV I k)))
                        (tot-+ (λ k → b2n (es G k)) (λ k → b2n (vi G k)) (Sp.P c))))
  ; invA = sym (tot-0 (Sp.P c))
  ; pdA = sym (cong (pendOf X' bl) nocv) ; gcA = refl
  ; abE = ∨-false (Abs.abE I) (Abs.abV I) ; abV = refl
  ; frE = λ k e → ∨-false (Abs.frE I k e) (Abs.frV I k e) ; frV = λ k e → refl
  ; usE = λ k e → ∨-false (Abs.usE I k e) (Abs.usV I k e) ; usV = λ k e → refl ; esV = λ k e → refl
  ; cvV = λ k e → ⊥-elim (nothing≢just (trans (sym nocv) e)) }
  where
  p0 : pendD d ≡ 0
  p0 = trans (Abs.pdA I) (cong (pendOf X bl) nocv)

-- a flush, every commit path (P's write counter 0 after each, `wc-flush`)
sim-fl : ∀ {c G X X' bl bl' d} → Abs c G X bl d → cv G ≡ nothing → Sp.NotNeeded c (gcD d) (vsD d) →
         SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl') →
         Σ StD λ d' → StepD c d d' ×
           Abs c (record G { es = λ k → es G k ∨ vi G k ; vi = λ _ → false ; gn = 0 }) X' bl' d'
sim-fl {c} {G} {X} {X'} {bl} {.bl} {d} I nocv nn (o , refl) =
  sim-end I nocv nn (vc-flush {X} {X'} {bl} {bl} (o , refl)) (wc-flush {X} {X'} o)

-- an epoch barrier, durable or not: it ends the epoch as a flush does
-- (`wc-barrier`); its victims are erasable on Space's side at once,
-- while the model erases them only once the barrier is synced (PU's
-- `GcI`), which a SYNC (a flush, the sync behind) makes so
sim-barrier : ∀ {c G X X' bl bl' d} → Abs c G X bl d → cv G ≡ nothing → Sp.NotNeeded c (gcD d) (vsD d) →
              SB.Model.ok BXone (SB.use (SB.reg SB.barrier)) (X , bl) (X' , bl') →
              Σ StD λ d' → StepD c d d' ×
                Abs c (record G { es = λ k → es G k ∨ vi G k ; vi = λ _ → false ; gn = 0 }) X' bl' d'
sim-barrier {c} {G} {X} {X'} {bl} {.bl} {d} I nocv nn (o , refl) =
  sim-end I nocv nn (vc-barrier {X} {X'} {bl} {bl} (o , refl)) (wc-barrier {X} {X'} o)

------------------------------------------------------------------------
-- An erase of an erasable block: Space's erase (erasable to free); the
-- erased block held no valid sector (`vc-erase`), every count is kept

private
  eraE : ∀ {c d e} → ersD d ≡ suc e →
         StepD c d (sd (suc (freD d)) e (invD d) (vsD d) (roomD d) (vaD d) (wcD d) (gcD d) (pendD d) (cuD d))
  eraE {d = sd f _ i xs r a w g q u} refl = era

-- a boolean that is true is not false
t→¬f : ∀ {x} → x ≡ true → x ≡ false → ∀ {A : Set} → A
t→¬f refl ()

sim-era : ∀ {c G X X' bl bl' d} → OPX.RI X → LocX X bl → Abs c G X bl d →
          (o : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , bl')) →
          es G (proj₁ o) ≡ true → proj₁ o < Sp.P c →
          Σ StD λ d' → StepD c d d' × Abs c (record G { es = es G [ proj₁ o ≔ false ] }) X' bl' d'
sim-era {c} {G} {X} {X'} {bl} {.(berase k bl)} {d} r lx I (k , rn , refl) esk kP = _ , eraE {c} {d} ersplit , record
  { vsA = trans (Abs.vsA I) (sym (used-same (us G) (vc X bl) (vc X' (berase k bl)) (Sp.P c) (λ j _ _ → keep j)))
  ; vaA = trans (Abs.vaA I) (sym (keep (ab bl)))
  ; roomA = trans (cong (λ z → roomD d + z) (upd-ne (wp bl) (ab bl) k 0 ab≢)) (Abs.roomA I)
  ; wcA = trans (Abs.wcA I) (sym wc)
  ; abU = Abs.abU I ; abP = Abs.abP I
  ; frA = trans (cong suc (Abs.frA I))
            (sym (tot-flip fr' (fr bl) k (Sp.P c) kP (upd-self (fr bl) k true) frk0
                   (λ j _ jk → sym (upd-ne (fr bl) j k true jk))))
  ; abF = trans (upd-ne (fr bl) (ab bl) k true ab≢) (Abs.abF I)
  ; frU = λ j e → frU' j e
  ; erA = refl
  ; invA = Abs.invA I
  ; pdA = trans (Abs.pdA I) (pend-keep (cv G)) ; gcA = Abs.gcA I
  ; abE = trans (upd-ne (es G) (ab bl) k false ab≢) (Abs.abE I)
  ; abV = Abs.abV I
  ; frE = frE' ; frV = frV'
  ; usE = usE' ; usV = Abs.usV I
  ; esV = λ j e → Abs.esV I j (es-of j e)
  ; cvV = Abs.cvV I }
  where
  V = vc-erase {X} {X'} {bl} {berase k bl} r lx (k , rn , refl)
  keep : ∀ j → vc X' (berase k bl) j ≡ vc X bl j
  keep = proj₁ (proj₂ (proj₂ (proj₂ V)))
  wc : wcnt (stX X') ≡ wcnt (stX X)
  wc = proj₂ (proj₂ (proj₂ (proj₂ V)))
  -- the layer erases an erasable block, and the open block is not one
  ab≢ : ab bl ≢ k
  ab≢ e = t→¬f esk (subst (λ z → es G z ≡ false) e (Abs.abE I))
  es' : ℕ → Bool
  es' = es G [ k ≔ false ]
  fr' : ℕ → Bool
  fr' = fr bl [ k ≔ true ]
  -- an erasable block is not free, not used, not a victim
  frk0 : fr bl k ≡ false
  frk0 with fr bl k in e
  ... | true  = t→¬f esk (Abs.frE I k e)
  ... | false = refl
  usk0 : us G k ≡ false
  usk0 with us G k in e
  ... | true  = t→¬f esk (Abs.usE I k e)
  ... | false = refl
  ersplit : ersD d ≡ suc (tot (λ j → b2n (es' j)) (Sp.P c))
  ersplit = trans (Abs.erA I) (tot-flip (es G) es' k (Sp.P c) kP esk (upd-self (es G) k false)
                                 (λ j _ jk → upd-ne (es G) j k false jk))
  es-of : ∀ j → es' j ≡ true → es G j ≡ true
  es-of j e with j ≟ℕ k
  ... | yes refl = t→¬f e (upd-self (es G) j false)
  ... | no jk    = trans (sym (upd-ne (es G) j k false jk)) e
  pend-keep : ∀ m → pendOf X bl m ≡ pendOf X' (berase k bl) m
  pend-keep nothing  = refl
  pend-keep (just j) = sym (keep j)
  frU' : ∀ j → fr' j ≡ true → us G j ≡ false
  frU' j e with j ≟ℕ k
  ... | yes refl = usk0
  ... | no jk    = Abs.frU I j (trans (sym (upd-ne (fr bl) j k true jk)) e)
  frE' : ∀ j → fr' j ≡ true → es' j ≡ false
  frE' j e with j ≟ℕ k
  ... | yes refl = upd-self (es G) j false
  ... | no jk    = trans (upd-ne (es G) j k false jk) (Abs.frE I j (trans (sym (upd-ne (fr bl) j k true jk)) e))
  frV' : ∀ j → fr' j ≡ true → vi G j ≡ false
  frV' j e with j ≟ℕ k
  ... | yes refl = Abs.esV I j esk
  ... | no jk    = Abs.frV I j (trans (sym (upd-ne (fr bl) j k true jk)) e)
  usE' : ∀ j → us G j ≡ true → es' j ≡ false
  usE' j e with j ≟ℕ k
  ... | yes refl = upd-self (es G) j false
  ... | no jk    = trans (upd-ne (es G) j k false jk) (Abs.usE I j e)

------------------------------------------------------------------------
-- GC takes a victim: a choice of the code (gc.rs `pick_victim`), no step
-- of the model; Space's `gcm` on the abstraction, the block moved from
-- the used ones to this epoch's victims, its valid sectors pending

private
  gcmE : ∀ {c d xs v ys} → vsD d ≡ xs ++ v ∷ ys → pendD d ≡ 0 → gcD d < Sp.K c →
         Sp.U c ≤ length (xs ++ v ∷ ys) → Sp.Victim c xs v ys →
         StepD c d (sd (freD d) (ersD d) (suc (invD d)) (xs ++ ys) (roomD d) (vaD d) (wcD d) (suc (gcD d)) v (cuD d))
  gcmE {d = sd f e i _ r a w g _ u} refl refl gk uL vic = gcm gk uL vic

sim-gcm : ∀ {c G X bl d k} → Abs c G X bl d → cv G ≡ nothing → us G k ≡ true → k < Sp.P c →
          gcD d < Sp.K c → Sp.U c ≤ length (vsD d) → vc X bl k ≤ Sp.N c →
          Σ StD λ d' → StepD c d d' ×
            Abs c (record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) }) X bl d'
sim-gcm {c} {G} {X} {bl} {d} {k} I nocv usk kP gk uL vN =
  _ , gcmE {c} {d} {xs} {vc X bl k} {ys} (trans (Abs.vsA I) e1) p0 gk (subst (λ l → Sp.U c ≤ length l) (trans (Abs.vsA I) e1) uL) (inj₁ vN) ,
  record
  { vsA = sym e2 ; vaA = Abs.vaA I ; roomA = Abs.roomA I ; wcA = Abs.wcA I
  ; abU = trans (upd-ne (us G) (ab bl) k false ab≢) (Abs.abU I) ; abP = Abs.abP I
  ; frA = Abs.frA I ; abF = Abs.abF I
  ; frU = λ j e → us'-false j (Abs.frU I j e)
  ; erA = Abs.erA I
  ; invA = trans (cong suc (Abs.invA I))
             (sym (tot-flip vi' (vi G) k (Sp.P c) kP (upd-self (vi G) k true) (Abs.usV I k usk)
                    (λ j _ jk → sym (upd-ne (vi G) j k true jk))))
  ; pdA = refl ; gcA = cong suc (Abs.gcA I)
  ; abE = Abs.abE I ; abV = trans (upd-ne (vi G) (ab bl) k true ab≢) (Abs.abV I)
  ; frE = Abs.frE I ; frV = frV'
  ; usE = λ j e → Abs.usE I j (us-of j e) ; usV = usV'
  ; esV = esV' ; cvV = cvV' }
  where
  us' vi' : ℕ → Bool
  us' = us G [ k ≔ false ]
  vi' = vi G [ k ≔ true ]
  p0 : pendD d ≡ 0
  p0 = trans (Abs.pdA I) (cong (pendOf X bl) nocv)
  rm = used-remove (us G) us' (vc X bl) k (Sp.P c) kP usk (upd-self (us G) k false) (λ j jk → upd-ne (us G) j k false jk)
  xs = proj₁ rm
  ys = proj₁ (proj₂ rm)
  e1 = proj₁ (proj₂ (proj₂ rm))
  e2 = proj₂ (proj₂ (proj₂ rm))
  ab≢ : ab bl ≢ k
  ab≢ e = t→¬f usk (trans (cong (us G) (sym e)) (Abs.abU I))
  us'-false : ∀ j → us G j ≡ false → us' j ≡ false
  us'-false j e with j ≟ℕ k
  ... | yes refl = upd-self (us G) j false
  ... | no jk    = trans (upd-ne (us G) j k false jk) e
  us-of : ∀ j → us' j ≡ true → us G j ≡ true
  us-of j e with j ≟ℕ k
  ... | yes refl = t→¬f e (upd-self (us G) j false)
  ... | no jk    = trans (sym (upd-ne (us G) j k false jk)) e
  frV' : ∀ j → fr bl j ≡ true → vi' j ≡ false
  frV' j e with j ≟ℕ k
  ... | yes refl = t→¬f usk (Abs.frU I j e)
  ... | no jk    = trans (upd-ne (vi G) j k true jk) (Abs.frV I j e)
  usV' : ∀ j → us' j ≡ true → vi' j ≡ false
  usV' j e with j ≟ℕ k
  ... | yes refl = t→¬f e (upd-self (us G) j false)
  ... | no jk    = trans (upd-ne (vi G) j k true jk) (Abs.usV I j (trans (sym (upd-ne (us G) j k false jk)) e))
  esV' : ∀ j → es G j ≡ true → vi' j ≡ false
  esV' j e with j ≟ℕ k
  ... | yes refl = t→¬f e (Abs.usE I j usk)
  ... | no jk    = trans (upd-ne (vi G) j k true jk) (Abs.esV I j e)
  cvV' : ∀ j → just k ≡ just j → vi' j ≡ true
  cvV' .k refl = upd-self (vi G) k true

------------------------------------------------------------------------
-- A relocation of one of the current victim's valid sectors into the
-- open block: Space's `rl` (one pending sector fewer, one more in the
-- open block); a relocation of a page with no valid sector (P's `rlX`)
-- or a refused one changes nothing

private
  rlE : ∀ {c d q r} → roomD d ≡ suc r → pendD d ≡ suc q →
        StepD c d (sd (freD d) (ersD d) (invD d) (vsD d) r (suc (vaD d)) (wcD d) (gcD d) q (cuD d))
  rlE {d = sd f e i xs _ a w g _ u} refl refl = rl

  -- a count that a move does not touch
  untouched : ∀ {v v' : ℕ → ℕ} {old : ℕ → Bool} {kn j} → MoveEq v v' old kn → old j ≡ false → kn ≢ j → v' j ≡ v j
  untouched {v} {v'} {old} {kn} {j} mv oj nj =
    trans (sym (+-identityʳ (v' j)))
      (trans (cong (λ z → v' j + b2n z) (sym oj))
        (trans (mv j) (trans (cong (v j +_) (b2n-ne kn j nj)) (+-identityʳ (v j)))))

-- only the current victim's pages move
FromVictim : ℕ → XS → BL → XS → Set
FromVictim k X bl X' = ∀ b → b ≤ amax → l2p (stX X') b ≢ l2p (stX X) b →
                       Σ ℕ λ q → l2p (stX X) b ≡ just q × proj₁ (loc bl q) ≡ k

-- on counts: a relocation into the open block
core-rl : ∀ {c G X X' bl bl' d k b} → OPX.RI X → Abs c G X bl d → cv G ≡ just k → FromVictim k X bl X' →
          b ≤ amax → l2p (stX X') b ≡ just (nxt (stX X)) →
          MoveEq (vc X bl) (vc X' bl') (λ j → inBlk (loc bl) j (l2p (stX X) b)) (ab bl) →
          wp bl (ab bl) < Sp.S c → After bl bl' → wcnt (stX X') ≡ wcnt (stX X) →
          Σ StD λ d' → StepD c d d' × Abs c G X' bl' d'
core-rl {c} {G} {X} {X'} {bl} {bl'} {d} {k} {b} r I cvk pol le eb mv wlt A wc
  with pol b le (λ e → <-irrefl refl (lt-nxt {X} r b (nxt (stX X)) le (trans (sym e) eb)))
... | q , eq , qk = _ , rlE {c} {d} {v' k} {r'} (proj₂ rs) pend , record
  { vsA = trans (Abs.vsA I) (sym (used-same (us G) v v' (Sp.P c) (λ j _ uj → other j (usV≢ j uj) (us≢ j uj))))
  ; vaA = trans (cong suc (Abs.vaA I)) (sym (trans (cong v' ab≡) atKn))
  ; roomA = trans (cong (λ z → r' + wp bl' z) ab≡) (trans (cong (r' +_) (After.wpS A)) (trans (+-suc r' (wp bl kn))
              (trans (cong (λ z → z + wp bl kn) (sym (proj₂ rs))) (Abs.roomA I))))
  ; wcA = trans (Abs.wcA I) (sym wc)
  ; abU = trans (cong (us G) ab≡) (Abs.abU I)
  ; abP = subst (_< Sp.P c) (sym ab≡) (Abs.abP I)
  ; frA = trans (Abs.frA I) (tot-ext _ _ (Sp.P c) (λ j _ → cong b2n (sym (After.frS A j))))
  ; abF = trans (After.frS A (ab bl')) (trans (cong (fr bl) ab≡) (Abs.abF I))
  ; frU = λ j e → Abs.frU I j (trans (sym (After.frS A j)) e)
  ; erA = Abs.erA I ; invA = Abs.invA I
  ; pdA = cong (pendOf X' bl') (sym cvk) ; gcA = Abs.gcA I
  ; abE = trans (cong (es G) ab≡) (Abs.abE I) ; abV = trans (cong (vi G) ab≡) (Abs.abV I)
  ; frE = λ j e → Abs.frE I j (trans (sym (After.frS A j)) e)
  ; frV = λ j e → Abs.frV I j (trans (sym (After.frS A j)) e)
  ; usE = Abs.usE I ; usV = Abs.usV I ; esV = Abs.esV I ; cvV = Abs.cvV I }
  where
  kn = ab bl
  ab≡ : ab bl' ≡ kn
  ab≡ = After.abS A
  v v' : ℕ → ℕ
  v  = vc X bl
  v' = vc X' bl'
  -- the page moved from the victim k, which is not the open block
  k≢kn : k ≢ kn
  k≢kn e = t→¬f (Abs.cvV I k cvk) (trans (cong (vi G) e) (Abs.abV I))
  mvk′ : MoveEq v v' (k ≡ᵇ_) kn
  mvk′ = subst (λ k0 → MoveEq v v' (k0 ≡ᵇ_) kn) qk (subst (λ m → MoveEq v v' (λ j → inBlk (loc bl) j m) kn) eq mv)
  other : ∀ j → k ≢ j → kn ≢ j → v' j ≡ v j
  other j kj nj = untouched {v} {v'} {k ≡ᵇ_} {kn} {j} mvk′ (≡ᵇ-false kj) nj
  usV≢ : ∀ j → us G j ≡ true → k ≢ j
  usV≢ j uj refl = t→¬f (Abs.cvV I k cvk) (Abs.usV I k uj)
  us≢ : ∀ j → us G j ≡ true → kn ≢ j
  us≢ j uj refl = t→¬f uj (Abs.abU I)
  atK : v k ≡ suc (v' k)
  atK = sym (trans (sym (+-comm (v' k) 1))
                   (trans (cong (λ z → v' k + b2n z) (sym (≡ᵇ-self k)))
                     (trans (mvk′ k) (trans (cong (v k +_) (b2n-ne kn k (λ e → k≢kn (sym e)))) (+-identityʳ (v k))))))
  atKn : v' kn ≡ suc (v kn)
  atKn = trans (sym (+-identityʳ (v' kn)))
           (trans (cong (λ z → v' kn + b2n z) (sym (≡ᵇ-false k≢kn)))
             (trans (mvk′ kn) (trans (cong (λ z → v kn + b2n z) (≡ᵇ-self kn)) (+-comm (v kn) 1))))
  pend : pendD d ≡ suc (v' k)
  pend = trans (Abs.pdA I) (trans (cong (pendOf X bl) cvk) atK)
  rs : Σ ℕ λ r' → roomD d ≡ suc r'
  rs = room-suc (roomD d) (wp bl kn) (Sp.S c) (Abs.roomA I) wlt
  r' = proj₁ rs

sim-rl : ∀ {c G X X' bl bl' d k} → Sp.S c ≡ Z → OPX.RI X → Abs c G X bl d → cv G ≡ just k →
         SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl') →
         ab bl' ≡ ab bl → FromVictim k X bl X' →
         (Σ StD λ d' → StepD c d d' × Abs c G X' bl' d') ⊎ Abs c G X' bl' d
sim-rl {c} {G} {X} {X'} {bl} {bl'} {d} {k} eS r I cvk o stay pol with vc-rl {X} {X'} r o
... | inj₁ (refl , wc , keep) = inj₂ (kept {c} {G} {X} {X'} I keep wc)
... | inj₂ ((b , le , eb , kn , refl , _ , wlt , mv) , wc) with stay
...   | refl = inj₁ (core-rl r I cvk pol le eb mv (subst (wp bl kn <_) (sym eS) wlt) (after-open bl (nxt (stX X)) (Abs.abF I)) wc)

-- a relocation that opens a free block when the open one is full:
-- Space's activation, then its relocation
sim-rl-act : ∀ {c G X X' bl bl' d k} → Sp.S c ≡ Z →
             OPX.RI X → LocX X bl → FrWp bl → Abs c G X bl d → cv G ≡ just k →
             SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl') →
             ab bl' ≢ ab bl → ab bl' < Sp.P c → wp bl (ab bl) ≡ Z → FromVictim k X bl X' →
             Σ StD λ d' → Star (StepD c) d d' × Abs c (record G { us = us G [ ab bl ≔ true ] }) X' bl' d'
sim-rl-act {c} {G} {X} {X'} {bl} {bl'} {d} {k} eS r lx fw I cvk o moved kP full pol with vc-rl {X} {X'} r o
... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
... | inj₂ ((b , le , _ , kn , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
... | inj₂ ((b , le , eb , kn , refl , inj₂ frk , wlt , mv) , wc)
  with activate {c} {G} {X} {bl} {d} {kn} lx fw I frk kP (trans full (sym eS))
...   | d1 , st1 , I1 , _ , _ =
  _ , st1 ◅ proj₁ (proj₂ W2) ◅ ε , proj₂ (proj₂ W2)
  where
  W2 = core-rl {c} {record G { us = us G [ ab bl ≔ true ] }} {X} {X'} {Opened bl kn} {balloc kn (nxt (stX X)) bl} {d1} {k} {b}
         r I1 cvk pol le eb mv (subst (wp bl kn <_) (sym eS) wlt) (after-opened bl kn (nxt (stX X))) wc

------------------------------------------------------------------------
-- GC done with a victim: once none of its valid sectors is pending, it
-- stays among this epoch's victims and is no longer the current one (a
-- ghost step; Space stays where it is)

sim-done : ∀ {c G X bl d k} → Abs c G X bl d → cv G ≡ just k → pendD d ≡ 0 →
           Abs c (record G { cv = nothing }) X bl d
sim-done {c} {G} {X} {bl} {d} {k} I cvk p0 = record
  { vsA = Abs.vsA I ; vaA = Abs.vaA I ; roomA = Abs.roomA I ; wcA = Abs.wcA I
  ; abU = Abs.abU I ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I ; frU = Abs.frU I
  ; erA = Abs.erA I ; invA = Abs.invA I ; pdA = p0 ; gcA = Abs.gcA I
  ; abE = Abs.abE I ; abV = Abs.abV I ; frE = Abs.frE I ; frV = Abs.frV I
  ; usE = Abs.usE I ; usV = Abs.usV I ; esV = Abs.esV I
  ; cvV = λ j e → ⊥-elim (nothing≢just e) }

------------------------------------------------------------------------
-- A SYNC (full or partial, the sync behind's): the abstraction kept —
-- every count, the bookkeeping and P's write counter (`wc-sy`)

sim-sy : ∀ {c G X X' bl bl' d} → Abs c G X bl d →
         SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.sy))) (X , bl) (X' , bl') → Abs c G X' bl' d
sim-sy {c} {G} {X} {X'} {bl} {.bl} {d} I (o , refl) =
  kept {c} {G} {X} {X'} I (vc-sy {X} {X'} {bl} {bl} (o , refl)) (wc-sy {X} {X'} o)

------------------------------------------------------------------------
-- `FrWp` is an invariant of the block layer: free blocks are at write
-- pointer 0 on a new disk and after every step (an allocation takes its
-- block off the free ones, a block erase puts its block back at 0, a
-- recovery frees a block only at write pointer 0, `forget-frwp`)

private
  frwp-alloc : ∀ {bl} k n → FrWp bl → FrWp (balloc k n bl)
  frwp-alloc {bl} k n fw j e with j ≟ℕ k
  ... | yes refl = ⊥-elim (f≢t (trans (sym (upd-self (fr bl) j false)) e))
  ... | no jk    = trans (upd-ne (wp bl) j k _ jk) (fw j (trans (sym (upd-ne (fr bl) j k false jk)) e))

  frwp-place : ∀ {X X' bl bl'} → FrWp bl → Place X X' bl bl' → FrWp bl'
  frwp-place {X} {X'} {bl} fw (inj₁ (_ , k , _ , refl)) = frwp-alloc {bl} k (nxt (stX X)) fw
  frwp-place fw (inj₂ (_ , refl)) = fw

frwp-erase : ∀ {bl} k → FrWp bl → FrWp (berase k bl)
frwp-erase {bl} k fw j e with j ≟ℕ k
... | yes refl = upd-self (wp bl) j 0
... | no jk    = trans (upd-ne (wp bl) j k 0 jk) (fw j (trans (sym (upd-ne (fr bl) j k true jk)) e))

frwp-new : ∀ {bl} → NewBL bl → FrWp bl
frwp-new (_ , wz , _) k _ = wz k

frwp-ok : ∀ o {X X' bl bl'} → FrWp bl → SB.Model.ok BXone o (X , bl) (X' , bl') → FrWp bl'
frwp-ok (SB.use (SB.reg (SB.op (SB.w a d)))) {X} {X'} fw (_ , pl) = frwp-place {X} {X'} fw pl
frwp-ok (SB.use (SB.reg (SB.op SB.rl))) {X} {X'} fw (_ , pl) = frwp-place {X} {X'} fw pl
frwp-ok (SB.use (SB.reg (SB.op SB.es))) {bl = bl} fw (k , _ , refl) = frwp-erase {bl} k fw
frwp-ok (SB.use (SB.reg (SB.op SB.sy))) fw (_ , refl) = fw
frwp-ok (SB.use (SB.reg SB.barrier)) fw (_ , refl) = fw
frwp-ok (SB.use SB.flush) fw (_ , refl) = fw
frwp-ok SB.recover {X' = X'} {bl} fw (_ , refl) j = forget-frwp {bl} (nxt (stX X')) j (fw j)

-- ... and every crash of an operation: a block allocated, a block erased
frwp-crash : ∀ u {X X' bl bl'} → FrWp bl → SB.Model.crash BXone (SB.use u) (X , bl) (X' , bl') → FrWp bl'
frwp-crash (SB.reg (SB.op (SB.w a d))) fw (_ , inj₁ refl) = fw
frwp-crash (SB.reg (SB.op (SB.w a d))) {X} {bl = bl} fw (_ , inj₂ (k , _ , refl)) = frwp-alloc {bl} k (nxt (stX X)) fw
frwp-crash (SB.reg (SB.op SB.rl)) fw (_ , inj₁ refl) = fw
frwp-crash (SB.reg (SB.op SB.rl)) {X} {bl = bl} fw (_ , inj₂ (k , _ , refl)) = frwp-alloc {bl} k (nxt (stX X)) fw
frwp-crash (SB.reg (SB.op SB.es)) {bl = bl} fw (k , _ , _ , refl) = frwp-erase {bl} k fw
frwp-crash (SB.reg (SB.op SB.sy)) fw (_ , refl) = fw
frwp-crash (SB.reg SB.barrier) fw (_ , refl) = fw
frwp-crash SB.flush fw (_ , refl) = fw

------------------------------------------------------------------------
-- What Space's progress says of the model: a page Space finds is one
-- the block layer has — room in the open block, or a free or erasable
-- block below P (which the layer opens, after erasing it)

BlockFor : Sp.Config → Gh → BL → Set
BlockFor c G bl = wp bl (ab bl) < Sp.S c ⊎ Σ ℕ λ k → k < Sp.P c × (fr bl k ≡ true ⊎ es G k ≡ true)

abs-finds : ∀ {c G X bl d} → Abs c G X bl d → FindsD c d → BlockFor c G bl
abs-finds {c} {G} {X} {bl} {d} I (inj₁ r1) = inj₁ (room-lt r1 (Abs.roomA I))
  where
  room-lt : ∀ {r w z} → 1 ≤ r → r + w ≡ z → w < z
  room-lt {suc r} {w} (s≤s _) refl = s≤s (m≤n+m w r)
abs-finds {c} {G} {X} {bl} {d} I (inj₂ (_ , fe)) with freD d | Abs.frA I | ersD d | Abs.erA I
... | zero  | ef | e | ee = inj₂ (k , lt , inj₂ ek)
  where
  w = tot-pos (es G) (Sp.P c) (subst (1 ≤_) ee fe)
  k = proj₁ w
  lt = proj₁ (proj₂ w)
  ek = proj₂ (proj₂ w)
... | suc f | ef | e | ee = inj₂ (k , lt , inj₁ fk)
  where
  w = tot-pos (fr bl) (Sp.P c) (subst (1 ≤_) ef (s≤s z≤n))
  k = proj₁ w
  lt = proj₁ (proj₂ w)
  fk = proj₂ (proj₂ w)

-- so, for a state the abstraction maps to one Space's data half reaches
-- under the code's constraints: a wanted write (W not used up, no victim
-- pending) finds a block
block-for-write : ∀ {c G X bl d} → Sp.Valid c → ReachD c d → Abs c G X bl d →
                  wcD d < Sp.W c → pendD d ≡ 0 → BlockFor c G bl
block-for-write {c} V r I wl p0 = abs-finds I (ProgressD.write-finds (data-progress c V r) wl p0)

-- ... and a pending relocation too
block-for-reloc : ∀ {c G X bl d} → Sp.Valid c → ReachD c d → Abs c G X bl d →
                  1 ≤ pendD d → BlockFor c G bl
block-for-reloc {c} V r I p1 = abs-finds I (ProgressD.reloc-finds (data-progress c V r) p1)
