{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space in P's state: the delta region's room and the W/K
-- bounds proven of P's own fields (the region `dr`, the epoch's
-- tentative pages `ept`, the delta buffer `dbuf`, the counters `wcnt`
-- and `gcnt`), not of counts linked to P by name (SCFTL.Impl.Space).
--
-- P leaves the region unbounded: a write may emit a tentative page with
-- any number of pairs (`opt`: "a geometry question, left
-- nondeterministic"), and a flush may commit in the region however full
-- it is.  PS is P with the code's two rules on the region (delta.rs,
-- flush.rs `after_commit`, mod.rs `open`):
--
--   * `Tent`: a write or relocation emits at most one tentative page,
--     and only a full one (`ppp` pairs: the delta buffer is programmed
--     when it fills), and leaves the buffer under a page;
--   * `Room`: after a flush or a recovery at least epoch_pages_max + 1
--     region pages remain (`epm`, with the code's formula: W + K*N pairs
--     at `ppp` a page, plus the commit page; the one more is for the
--     consolidation page the code writes lazily), else the flush
--     (recovery) writes a full checkpoint, which empties the region;
--     after an in-page or OOB commit, whose consolidation page P writes
--     at once (`fi4`) and the code later, inside the pages it reserved,
--     the same rule leaves epoch_pages_max in P's state (`Kons`,
--     `RoomK`).
--
-- P's own steps are PS's steps where they follow the rules; every
-- other field of P is untouched.  Results:
--
--   `RInv`  : the invariant of every state after a step (the space
--             half of PS's RI): wcnt <= W, gcnt <= K, the epoch's
--             tentative pages full, the buffer under a page, the
--             epoch's pairs at most wcnt + gcnt (`prs`), and the region
--             with room for the rest of the epoch
--             (`length dr + epm <= D + length ept`);
--   `room`  : in every such state a region page is free for the next
--             page (tentative, commit or consolidation: Space's
--             `delta-room`, here of P's `dr`; Space's two pages count
--             the code's lazy consolidation page, which P writes at the
--             commit);
--   `crash-room` : every crash point of every operation from such a
--             state, and so every crash image, has the region within its
--             D pages; a recovery's crash points keep it there;
--   `obligationsPS`, `theorem1-PS`, `PS-snapshot-consistent` : the
--             §4.4 obligations of PS (P's, with RI and CI extended by
--             the space invariants), Theorem 1 and snapshot consistency;
--   `lift`  : the rules refuse no operation: from every state of RInv
--             (any state, for a recovery), for every step of P there is
--             a step of PS with the same operation (a write or a
--             relocation with the same sector, victim and branch, the
--             tentative page emitted exactly when the buffer fills; a
--             flush or a recovery ending in a full checkpoint when the
--             region lacks room) — given the code's constraint (4) in
--             the form the count-level proof needs, epm + 1 <= D
--             (`c4`, as Space's `Needs.c4`);
--   `epm-code` : the bound is Space's `epm` for the configuration with
--             W = wmax + 1, K = kmax + 1 and N = 1 (P's erase unit is a
--             page: a victim holds at most one sector);
--   `Run`, `region-room`, `region-fits` : along every run from format's
--             recovery (steps; crashes of a step or of a recovery, each
--             followed by a recovery) a region page stays free in every
--             state, and the region never holds more than D pages
--             (`RegionFits Room`).  Mutant 45
--             (SCFTL.Mutants.RegionCommitPageOnly): the rule after a
--             flush asking only that the commit page fit (`PolW` takes
--             the rule as a parameter) overflows the region.
--
-- Not here: the data superblocks (free / erasable / used counts, the U
-- threshold and the victim bound: P has no blocks; BlocksOver's blocks
-- are unbounded), and PX's steps beyond P's (barriers, the lazy chain's
-- commits and consolidation pages): see proofs/README.md, "Space in P's
-- state".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRegion (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) (pp D : ℕ) where

open import Data.Nat.Base using (zero; suc; _+_; _*_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; map; length; sum)
open import Data.List.Properties using (length-map)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)
open import Data.Nat.Solver using (module +-*-Solver)
open +-*-Solver using (solve; _:+_; _:=_)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (obligations)
import SCFTL.Impl.Space as Sc
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Addr; S; use; flush; recover; Op; w; rl; es; SnapshotConsistent; obligations⇒SC; new-disk)
  renaming (reg to regop)

------------------------------------------------------------------------
-- The bounds, as the code computes them

-- delta_pairs_per_page (at least one)
ppp : ℕ
ppp = suc pp

-- P's write guard `InB` (wcnt <= wmax) is wc < W; its relocation guard
-- (gcnt <= kmax) is gc < K; a victim page holds at most one sector
cP : Sc.Config
cP = Sc.cfg (suc wmax) (suc kmax) 1 1 1 1 0 ppp D

W K need epm : ℕ
W = Sc.W cP
K = Sc.K cP
need = Sc.need cP          -- W + K*N, N = 1
epm = Sc.epm cP            -- epoch_pages_max = need / ppp + 1

epm-code : epm ≡ Sc.need cP Sc.div ppp + 1
epm-code = refl

N≡1 : Sc.N cP ≡ 1
N≡1 = refl

need≡ : need ≡ W + K
need≡ = cong (W +_) (*-identityʳ K)

------------------------------------------------------------------------
-- The rules

drL : St → ℕ
drL x = length (dr x)

-- the epoch's pairs: the tentative pages' and the buffer's
prs : St → ℕ
prs x = sum (map length (ept x)) + length (dbuf x)

Full : List (Addr × ℕ) → Set
Full ps = length ps ≡ ppp

-- a write or relocation: at most one tentative page, a full one; the
-- buffer under a page
Tent : St → St → Set
Tent s s' = (ept s' ≡ ept s ⊎ Σ (List (Addr × ℕ)) λ ps → ept s' ≡ ps ∷ ept s × Full ps)
          × length (dbuf s') < ppp

-- after a flush or a recovery: room for a whole epoch and its commit
-- page, and the consolidation page the code writes lazily (`after_commit`
-- takes a full checkpoint when fewer than epoch_pages_max + 1 remain)
Room : St → Set
Room x = drL x + suc epm ≤ D

-- after an in-page or OOB commit P writes the consolidation page at once
-- (`fi4`), where the code writes it lazily, before the next region page,
-- inside the epoch_pages_max + 1 pages its `after_commit` asks for: in
-- P's state that rule leaves epoch_pages_max pages
Kons : St → St → Set
Kons s s' = Σ ℕ λ L → (InP s L × s' ≡ fi4 L s) ⊎ (Σ ℕ λ M → OobP s L M × s' ≡ fi4 M s)

RoomK : St → Set
RoomK x = drL x + epm ≤ D

-- the rules, with the one after a flush or recovery given (`R`: the
-- code's is `Room`; mutant 45, SCFTL.Mutants.RegionCommitPageOnly,
-- checks only that the commit page fits)
PolW : (St → Set) → Op → St → St → Set
PolW R (use (regop (w a d))) s s' = Tent s s'
PolW R (use (regop rl))      s s' = Tent s s'
PolW R (use (regop es))      s s' = ⊤
PolW R (use flush)           s s' = R s' ⊎ (Kons s s' × RoomK s')
PolW R recover               s s' = R s'

okPSw : (St → Set) → Op → St → St → Set
okPSw R o s s' = okP o s s' × PolW R o s s'

Pol : Op → St → St → Set
Pol = PolW Room

okPS : Op → St → St → Set
okPS = okPSw Room

PS : Sp.Model
PS = record { State = St ; New = NewP ; read = rd ; ok = okPS ; crash = crashP }

------------------------------------------------------------------------
-- The invariant

record RInv (x : St) : Set where
  field
    wB : wcnt x ≤ W
    gB : gcnt x ≤ K
    fB : All Full (ept x)
    bB : length (dbuf x) < ppp
    pB : prs x ≤ wcnt x + gcnt x
    rB : drL x + epm ≤ D + length (ept x)

------------------------------------------------------------------------
-- Arithmetic

private
  ≤≡ : ∀ {a b c} → a ≤ b → b ≡ c → a ≤ c
  ≤≡ le refl = le

  ≡≤ : ∀ {a b c} → a ≡ b → b ≤ c → a ≤ c
  ≡≤ refl le = le

full-sum : ∀ {ts} → All Full ts → sum (map length ts) ≡ length ts * ppp
full-sum [] = refl
full-sum (f ∷ fs) = cong₂ _+_ f (full-sum fs)

-- the epoch's tentative pages: at most need / ppp = epm - 1
tp-bound : ∀ {x} → RInv x → length (ept x) ≤ need Sc.div ppp
tp-bound {x} I = Sc.div-ge (length (ept x)) need ppp (s≤s z≤n)
  (≡≤ (sym (full-sum (RInv.fB I)))
    (≤-trans (m≤m+n _ (length (dbuf x)))
      (≤-trans (RInv.pB I) (≤≡ (+-mono-≤ (RInv.wB I) (RInv.gB I)) (sym need≡)))))

-- **The room theorem**: a free page in the region for the next page
-- (a tentative page, or the commit or consolidation page: P writes the
-- latter at the commit)
room : ∀ {x} → RInv x → suc (drL x) ≤ D
room {x} I = +-cancelʳ-≤ {n} (suc (drL x)) D
  (≤-trans (≡≤ eq (RInv.rB I)) (+-monoʳ-≤ D (tp-bound I)))
  where
  n = need Sc.div ppp
  eq : suc (drL x) + n ≡ drL x + epm
  eq = trans (sym (+-suc (drL x) n)) (cong (drL x +_) (+-comm 1 n))

------------------------------------------------------------------------
-- How P's steps move the fields

-- the region's length under SYNC, the checkpoint and the commits
len-sync : ∀ x → drL (syncAll x) ≡ drL x
len-sync x = length-map sync (dr x)

len-ck1 : ∀ x → drL (ck1 x) ≡ drL x
len-ck1 x = refl

len-ck2 : ∀ x → drL (ck2 x) ≡ drL x
len-ck2 x = trans (length-map (put erased) (dr (syncAll (ck1 x)))) (len-sync (ck1 x))

len-fl3 : ∀ s → drL (fl3 s) ≡ suc (drL s)
len-fl3 s = len-sync (fl2 s)

len-fi3 : ∀ L s → drL (fi3 L s) ≡ drL s
len-fi3 L s = len-sync (fi2 L s)

len-fi4 : ∀ L s → drL (fi4 L s) ≡ suc (drL s)
len-fi4 L s = trans (len-sync (fiK L s)) (cong suc (len-fi3 L s))

len-rec0 : ∀ b g C s → drL (rec0 b g C s) ≡ drL s
len-rec0 b g C s = len-sync s

-- a crash image keeps the region's length
len-img : ∀ {m s'} → Img m s' → drL s' ≡ drL m
len-img (_ , _ , _ , cl , _) = go cl
  where
  go : ∀ {ms ms'} → CrashL ms ms' → length ms' ≡ length ms
  go [] = refl
  go (_ ∷ c) = cong suc (go c)

-- the after-write options: the fields P's space rules speak of
opt-wcnt : ∀ f1 f2 x → wcnt (opt f1 f2 x) ≡ wcnt x
opt-wcnt false false x = refl
opt-wcnt false true  x = refl
opt-wcnt true  false x = refl
opt-wcnt true  true  x = refl

opt-gcnt : ∀ f1 f2 x → gcnt (opt f1 f2 x) ≡ gcnt x
opt-gcnt false false x = refl
opt-gcnt false true  x = refl
opt-gcnt true  false x = refl
opt-gcnt true  true  x = refl

-- an emitted page moves the buffer's pairs to the tentative pages
emit-prs : ∀ y → prs (emitT y) ≡ prs y
emit-prs y = trans (+-identityʳ _) (+-comm (length (dbuf y)) _)

opt-prs : ∀ f1 f2 x → prs (opt f1 f2 x) ≡ prs x
opt-prs false false x = refl
opt-prs true  false x = refl
opt-prs false true  x = emit-prs x
opt-prs true  true  x = emit-prs (progMB x)

-- the region and the tentative pages grow together
opt-bal : ∀ f1 f2 x → drL (opt f1 f2 x) + length (ept x) ≡ drL x + length (ept (opt f1 f2 x))
opt-bal false false x = refl
opt-bal true  false x = refl
opt-bal false true  x = sym (+-suc (drL x) (length (ept x)))
opt-bal true  true  x = sym (+-suc (drL x) (length (ept x)))

-- the options take no page of P's
opt-nxt : ∀ f1 f2 x → nxt (opt f1 f2 x) ≡ nxt x
opt-nxt false false x = refl
opt-nxt true  false x = refl
opt-nxt false true  x = refl
opt-nxt true  true  x = refl

opt-len : ∀ f1 f2 x → drL (opt f1 f2 x) ≤ suc (drL x)
opt-len false false x = n≤1+n _
opt-len true  false x = n≤1+n _
opt-len false true  x = ≤-refl
opt-len true  true  x = ≤-refl

------------------------------------------------------------------------
-- Preservation

private
  shift : ∀ a b c d e n → a + e ≡ c + b → c + d ≤ n + e → a + d ≤ n + b
  shift a b c d e n eq le = +-cancelʳ-≤ {e} (a + d) (n + b)
    (≡≤ (trans (solve 3 (λ a d e → (a :+ d) :+ e := (a :+ e) :+ d) refl a d e)
          (trans (cong (_+ d) eq) (solve 3 (λ c b d → (c :+ b) :+ d := (c :+ d) :+ b) refl c b d)))
      (≤≡ (+-monoˡ-≤ b le) (solve 3 (λ n e b → (n :+ e) :+ b := (n :+ b) :+ e) refl n e b)))

  -- a placing step: one pair more, one counter up
  placed : ∀ {s x'} → RInv s → Tent s x' → prs x' ≡ suc (prs s) →
           drL x' + length (ept s) ≡ drL s + length (ept x') →
           wcnt x' ≤ W → gcnt x' ≤ K → suc (wcnt s + gcnt s) ≤ wcnt x' + gcnt x' → RInv x'
  placed {s} {x'} I (te , bl) pe bal wb gb cnt = record
    { wB = wb ; gB = gb ; fB = fb te ; bB = bl
    ; pB = ≤-trans (≡≤ pe (s≤s (RInv.pB I))) cnt
    ; rB = shift (drL x') (length (ept x')) (drL s) epm (length (ept s)) D bal (RInv.rB I) }
    where
    fb : (ept x' ≡ ept s ⊎ Σ (List (Addr × ℕ)) λ ps → ept x' ≡ ps ∷ ept s × Full ps) → All Full (ept x')
    fb (inj₁ e) = subst (All Full) (sym e) (RInv.fB I)
    fb (inj₂ (ps , e , f)) = subst (All Full) (sym e) (f ∷ RInv.fB I)

room-k : ∀ {x} → Room x → RoomK x
room-k {x} = ≤-trans (+-monoʳ-≤ (drL x) (n≤1+n epm))

-- after a flush or a recovery: a new epoch
Fresh : St → Set
Fresh x = wcnt x ≡ 0 × gcnt x ≡ 0 × dbuf x ≡ [] × ept x ≡ []

fresh-inv : ∀ {x} → Fresh x → RoomK x → RInv x
fresh-inv {x} (w0 , g0 , b0 , e0) rm = record
  { wB = subst (_≤ W) (sym w0) z≤n
  ; gB = subst (_≤ K) (sym g0) z≤n
  ; fB = subst (All Full) (sym e0) []
  ; bB = subst (λ b → length b < ppp) (sym b0) (s≤s z≤n)
  ; pB = ≡≤ (trans (cong (λ e → sum (map length e) + length (dbuf x)) e0) (cong length b0)) z≤n
  ; rB = ≤≡ rm (sym (trans (cong (λ e → D + length e) e0) (+-identityʳ D))) }

flush-fresh : ∀ {s s'} → okP (use flush) s s' → Fresh s'
flush-fresh (inj₁ refl) = refl , refl , refl , refl
flush-fresh (inj₂ (inj₁ refl)) = refl , refl , refl , refl
flush-fresh (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = refl , refl , refl , refl
flush-fresh (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = refl , refl , refl , refl
flush-fresh (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = refl , refl , refl , refl
flush-fresh (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = refl , refl , refl , refl

rec-fresh : ∀ {s s'} → okP recover s s' → Fresh s'
rec-fresh (b , g , C , _ , inj₁ refl) = refl , refl , refl , refl
rec-fresh (b , g , C , _ , inj₂ (_ , _ , refl)) = refl , refl , refl , refl

private
  same : ∀ {s x} → wcnt x ≡ wcnt s → gcnt x ≡ gcnt s → ept x ≡ ept s → dbuf x ≡ dbuf s → drL x ≡ drL s →
         RInv s → RInv x
  same {s} {x} refl refl refl refl eq I = record
    { wB = RInv.wB I ; gB = RInv.gB I ; fB = RInv.fB I ; bB = RInv.bB I ; pB = RInv.pB I
    ; rB = ≡≤ (cong (_+ epm) eq) (RInv.rB I) }

  wr-inv : ∀ {a d s s'} → RInv s → okPS (use (regop (w a d))) s s' → RInv s'
  wr-inv {a} {d} {s} I (inj₁ ((_ , wl) , f1 , f2 , refl) , tn) =
    placed I tn (trans (opt-prs f1 f2 (wr0 a d s)) (+-suc _ (length (dbuf s))))
      (opt-bal f1 f2 (wr0 a d s))
      (≡≤ (opt-wcnt f1 f2 (wr0 a d s)) (s≤s wl))
      (≡≤ (opt-gcnt f1 f2 (wr0 a d s)) (RInv.gB I))
      (≤-reflexive (sym (cong₂ _+_ (opt-wcnt f1 f2 (wr0 a d s)) (opt-gcnt f1 f2 (wr0 a d s)))))
  wr-inv I (inj₂ (_ , refl) , _) = I

  rl-inv : ∀ {s s'} → RInv s → okPS (use (regop rl)) s s' → RInv s'
  rl-inv {s} I (inj₁ (gl , p , _ , inj₁ (_ , f1 , f2 , refl)) , tn) =
    placed I tn (trans (opt-prs f1 f2 (rl0 p s)) (+-suc _ (length (dbuf s))))
      (opt-bal f1 f2 (rl0 p s))
      (≡≤ (opt-wcnt f1 f2 (rl0 p s)) (RInv.wB I))
      (≡≤ (opt-gcnt f1 f2 (rl0 p s)) (s≤s gl))
      (≤-reflexive (trans (sym (+-suc (wcnt s) (gcnt s)))
        (sym (cong₂ _+_ (opt-wcnt f1 f2 (rl0 p s)) (opt-gcnt f1 f2 (rl0 p s))))))
  rl-inv {s} I (inj₁ (gl , p , _ , inj₂ (_ , refl)) , _) = record
    { wB = RInv.wB I ; gB = s≤s gl ; fB = RInv.fB I ; bB = RInv.bB I
    ; pB = ≤-trans (RInv.pB I) (≤≡ (n≤1+n _) (sym (+-suc (wcnt s) (gcnt s))))
    ; rB = RInv.rB I }
  rl-inv I (inj₂ (_ , refl) , _) = I

-- every step of PS keeps the invariant
ok-inv : ∀ u {s s'} → RInv s → okPS (use u) s s' → RInv s'
ok-inv (regop (w a d)) I k = wr-inv I k
ok-inv (regop rl) I k = rl-inv I k
ok-inv (regop es) I ((p , _ , refl) , _) = same refl refl refl refl refl I
ok-inv flush {s} {s'} I (k , inj₁ rm) = fresh-inv {s'} (flush-fresh {s} {s'} k) (room-k {s'} rm)
ok-inv flush {s} {s'} I (k , inj₂ (_ , rm)) = fresh-inv {s'} (flush-fresh {s} {s'} k) rm

-- a recovery, from any state, starts an epoch with room
rec-inv : ∀ {s s'} → okPS recover s s' → RInv s'
rec-inv {s} {s'} (k , rm) = fresh-inv {s'} (rec-fresh {s} {s'} k) (room-k {s'} rm)

------------------------------------------------------------------------
-- Crash points: at most one region page more than the state before

ck-len : ∀ {x m} → CkPt x m → drL m ≤ drL x
ck-len {x} (inj₁ refl) = ≤-refl
ck-len {x} (inj₂ (inj₁ refl)) = ≤-reflexive (len-ck2 x)
ck-len {x} (inj₂ (inj₂ refl)) = z≤n

reg-len : ∀ o {s m} → okP (use (regop o)) s m → drL m ≤ suc (drL s)
reg-len (w a d) {s} (inj₁ (_ , f1 , f2 , refl)) = opt-len f1 f2 (wr0 a d s)
reg-len (w a d) (inj₂ (_ , refl)) = n≤1+n _
reg-len rl {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) = opt-len f1 f2 (rl0 p s)
reg-len rl (inj₁ (_ , p , _ , inj₂ (_ , refl))) = n≤1+n _
reg-len rl (inj₂ (_ , refl)) = n≤1+n _
reg-len es (p , _ , refl) = n≤1+n _

private
  fi-len : ∀ {L s m} → (m ≡ fi2 L s ⊎ CkPt (fi3 L s) m ⊎ m ≡ fiK L s ⊎ m ≡ fi4 L s) → drL m ≤ suc (drL s)
  fi-len (inj₁ refl) = n≤1+n _
  fi-len {L} {s} {m} (inj₂ (inj₁ ck)) = ≤-trans (ck-len {fi3 L s} {m} ck) (≤-trans (≤-reflexive (len-fi3 L s)) (n≤1+n _))
  fi-len {L} {s} (inj₂ (inj₂ (inj₁ refl))) = s≤s (≤-reflexive (len-fi3 L s))
  fi-len {L} {s} (inj₂ (inj₂ (inj₂ refl))) = ≤-reflexive (len-fi4 L s)

fl-len : ∀ {s m} → FlPt s m → drL m ≤ suc (drL s)
fl-len (inj₁ refl) = ≤-refl
fl-len {s} (inj₂ (inj₁ refl)) = ≤-reflexive (len-fl3 s)
fl-len {s} {m} (inj₂ (inj₂ (inj₁ ck))) = ≤-trans (ck-len {fl3 s} {m} ck) (≤-reflexive (len-fl3 s))
fl-len (inj₂ (inj₂ (inj₂ (inj₁ (L , _ , pt))))) = fi-len pt
fl-len (inj₂ (inj₂ (inj₂ (inj₂ (L , M , _ , pt))))) = fi-len pt

-- **The region never overflows**: every crash image of every operation
-- from a state of the invariant has the region within its D pages
crash-room : ∀ u {s s'} → RInv s → crashP (use u) s s' → drL s' ≤ D
crash-room (regop o) {s} {s'} I (m , k , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (reg-len o {s} {m} k) (room I))
crash-room flush {s} {s'} I (m , pt , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (fl-len {s} {m} pt) (room I))

-- and a recovery's crash keeps it there
recᶜ-room : ∀ {s s'} → drL s ≤ D → crashP recover s s' → drL s' ≤ D
recᶜ-room {s} {s'} le (b , g , C , _ , m , ck , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (ck-len {rec0 b g C s} {m} ck) (≡≤ (len-rec0 b g C s) le))

new-len : ∀ {s} → NewP s → drL s ≤ D
new-len (_ , _ , e , _) = ≡≤ (cong length e) z≤n

------------------------------------------------------------------------
-- The obligations, Theorem 1 and snapshot consistency for PS

private
  module O = Sp.ForwardSimulation.Obligations obligations

open Sp.ForwardSimulation PS S using () renaming (Obligations to ObligationsPS; theorem1 to theorem1PS)

obligationsPS : ObligationsPS
obligationsPS = record
  { AR = O.AR ; CR = O.CR
  ; RI = λ s → O.RI s × RInv s
  ; CI = λ s → O.CI s × drL s ≤ D
  ; AR⇒≈ = O.AR⇒≈
  ; init-CR = λ {s} {t} → O.init-CR {s} {t}
  ; init-CI = λ {s} n → O.init-CI {s} n , new-len {s} n
  ; A-ok = λ u ar ri k → O.A-ok u ar (proj₁ ri) (proj₁ k)
  ; A-crash = λ u ar ri c → O.A-crash u ar (proj₁ ri) c
  ; A-rec = λ {s} {t} {s'} cr ci k → O.A-rec {s} {t} {s'} cr (proj₁ ci) (proj₁ k)
  ; A-recᶜ = λ {s} {t} {s'} cr ci c → O.A-recᶜ {s} {t} {s'} cr (proj₁ ci) c
  ; B-ok = λ u ri k → O.B-ok u (proj₁ ri) (proj₁ k) , ok-inv u (proj₂ ri) k
  ; B-crash = λ u ri c → O.B-crash u (proj₁ ri) c , crash-room u (proj₂ ri) c
  ; B-rec = λ {s} {s'} ci k → O.B-rec {s} {s'} (proj₁ ci) (proj₁ k) , rec-inv {s} {s'} k
  ; B-recᶜ = λ {s} {s'} ci c → O.B-recᶜ {s} {s'} (proj₁ ci) c , recᶜ-room {s} {s'} (proj₂ ci) c
  }

theorem1-PS : Sp.Correspondence.BehaviourallyCorrect PS S
theorem1-PS = theorem1PS obligationsPS new-disk

PS-snapshot-consistent : SnapshotConsistent PS
PS-snapshot-consistent = obligations⇒SC PS obligationsPS

------------------------------------------------------------------------
-- The rules refuse no operation

-- a write or relocation that places one sector (`y`: P's state after
-- `wr0` or `rl0`, before its options): the tentative page emitted
-- exactly when the buffer fills
private
  emit-tent : ∀ f1 {s y} → ept y ≡ ept s → length (dbuf y) ≡ ppp → Tent s (opt f1 true y)
  emit-tent false {y = y} e l = inj₂ (dbuf y , cong (dbuf y ∷_) e , l) , s≤s z≤n
  emit-tent true  {y = y} e l = inj₂ (dbuf y , cong (dbuf y ∷_) e , l) , s≤s z≤n

  keep-tent : ∀ f1 {s y} → ept y ≡ ept s → length (dbuf y) < ppp → Tent s (opt f1 false y)
  keep-tent false e l = inj₁ e , l
  keep-tent true  e l = inj₁ e , l

  -- the choice for a placing step whose buffer had room for one more
  place-tent : ∀ f1 {s y} → ept y ≡ ept s → length (dbuf y) ≤ ppp →
               Σ Bool λ f2 → Tent s (opt f1 f2 y)
  place-tent f1 {s} {y} e l with length (dbuf y) ≟ ppp
  ... | yes eq = true , emit-tent f1 {s} {y} e eq
  ... | no ne  = false , keep-tent f1 {s} {y} e (≤∧≢⇒< l ne)

  idle-tent : ∀ {s} → RInv s → Tent s s
  idle-tent I = inj₁ refl , RInv.bB I

module _ (c4 : suc epm ≤ D) where

  -- a full checkpoint leaves the whole region (the code's constraint (4)
  -- in the form the count-level proof needs: Space's `Needs.c4`)
  ck-room : ∀ x → Room (ck3 x)
  ck-room x = c4

  -- for every step of P from a state of the invariant (a recovery: from
  -- any state) there is a step of PS with the same operation: the same
  -- branch, sector and victim for a write or a relocation; the step itself
  -- for a flush or a recovery where it leaves room, else the same flush or
  -- recovery ending in a full checkpoint
  lift : ∀ u {s s'} → RInv s → okP (use u) s s' → Σ St λ s'' → okPS (use u) s s''
  lift (regop (w a d)) {s} I (inj₁ (ib , f1 , f2 , refl)) with place-tent f1 {s} {wr0 a d s} refl (RInv.bB I)
  ... | f2' , t = opt f1 f2' (wr0 a d s) , inj₁ (ib , f1 , f2' , refl) , t
  lift (regop (w a d)) {s} I (inj₂ (nb , refl)) = s , inj₂ (nb , refl) , idle-tent I
  lift (regop rl) {s} I (inj₁ (gl , p , lt , inj₁ (v , f1 , f2 , refl))) with place-tent f1 {s} {rl0 p s} refl (RInv.bB I)
  ... | f2' , t = opt f1 f2' (rl0 p s) , inj₁ (gl , p , lt , inj₁ (v , f1 , f2' , refl)) , t
  lift (regop rl) {s} I (inj₁ (gl , p , lt , inj₂ (nv , refl))) =
    rlX p s , inj₁ (gl , p , lt , inj₂ (nv , refl)) , inj₁ refl , RInv.bB I
  lift (regop rl) {s} I (inj₂ (ng , refl)) = s , inj₂ (ng , refl) , idle-tent I
  lift (regop es) I k = _ , k , tt
  lift flush {s} {s'} I k with drL s' + suc epm ≤? D
  ... | yes r = s' , k , inj₁ r
  ... | no _  = ck3 (fl3 s) , inj₂ (inj₁ refl) , inj₁ (ck-room (fl3 s))

  -- a write or relocation lifted takes the same next page (the block
  -- layer's placement reads only `nxt`: SCFTL.Impl.SpaceRegionBlocks)
  lift-nxt-w : ∀ a d {s s'} (I : RInv s) (k : okP (use (regop (w a d))) s s') →
               nxt (proj₁ (lift (regop (w a d)) I k)) ≡ nxt s'
  lift-nxt-w a d {s} I (inj₁ (ib , f1 , f2 , refl)) with place-tent f1 {s} {wr0 a d s} refl (RInv.bB I)
  ... | f2' , t = trans (opt-nxt f1 f2' (wr0 a d s)) (sym (opt-nxt f1 f2 (wr0 a d s)))
  lift-nxt-w a d I (inj₂ (nb , refl)) = refl

  lift-nxt-rl : ∀ {s s'} (I : RInv s) (k : okP (use (regop rl)) s s') →
                nxt (proj₁ (lift (regop rl) I k)) ≡ nxt s'
  lift-nxt-rl {s} I (inj₁ (gl , p , lt , inj₁ (v , f1 , f2 , refl))) with place-tent f1 {s} {rl0 p s} refl (RInv.bB I)
  ... | f2' , t = trans (opt-nxt f1 f2' (rl0 p s)) (sym (opt-nxt f1 f2 (rl0 p s)))
  lift-nxt-rl I (inj₁ (gl , p , lt , inj₂ (nv , refl))) = refl
  lift-nxt-rl I (inj₂ (ng , refl)) = refl

  lift-rec : ∀ {s s'} → okP recover s s' → Σ St λ s'' → okPS recover s s''
  lift-rec {s} {s'} k with drL s' + suc epm ≤? D
  ... | yes r = s' , k , r
  lift-rec {s} (b , g , C , pk , _) | no _ = ck3 (rec0 b g C s) , (b , g , C , pk , inj₁ refl) , ck-room (rec0 b g C s)

------------------------------------------------------------------------
-- The region never overflows, along every run

-- a run after format's recovery: steps, crashes (of a step or of a
-- recovery) each followed by a recovery
data Run (R : St → Set) : St → St → Set where
  done : ∀ {s} → Run R s s
  step : ∀ u {s s1 s'} → okPSw R (use u) s s1 → Run R s1 s' → Run R s s'
  crash : ∀ {s z s1 s'} → ((Σ _ λ u → crashP (use u) s z) ⊎ crashP recover s z) →
          okPSw R recover z s1 → Run R s1 s' → Run R s s'

-- every state a run reaches holds at most D region pages
RegionFits : (St → Set) → Set
RegionFits R = ∀ {s0 s1 s} → NewP s0 → okPSw R recover s0 s1 → Run R s1 s → drL s ≤ D

run-inv : ∀ {s s'} → RInv s → Run Room s s' → RInv s'
run-inv I done = I
run-inv I (step u k r) = run-inv (ok-inv u I k) r
run-inv I (crash {z = z} {s1 = s1} _ k r) = run-inv (rec-inv {z} {s1} k) r

-- the code's rules: a page to spare in every state of every run
region-room : ∀ {s0 s1 s} → NewP s0 → okPS recover s0 s1 → Run Room s1 s → suc (drL s) ≤ D
region-room {s0} {s1} _ k r = room (run-inv (rec-inv {s0} {s1} k) r)

region-fits : RegionFits Room
region-fits {s0} {s1} {s} n k r = ≤-trans (n≤1+n _) (region-room {s0} {s1} {s} n k r)
