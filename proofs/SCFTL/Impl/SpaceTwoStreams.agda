{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the space accounting with two write streams (config.rs
-- `gc_streams` = 2, hot/cold separation; streams.rs, gc.rs, datapath.rs
-- `open_active`), as a state machine, and its progress theorem.
--
-- SCFTL.Impl.Space models one write stream (t = 1); SCFTL.Impl.
-- SpaceStreams states the constraints for t streams and proves, on
-- counts only, what they give.  This module runs two streams:
--
--   * two active superblocks, each with its room and valid count: the
--     host stream's (`rh`, `ah`), which takes every host write, and the
--     cold stream's (`rc`, `ac`), which takes every GC relocation
--     (gc.rs `gc_one`: `with_cold_stream(relocate)`);
--   * a write's old copy in a used superblock (`wrU`), in the host
--     active one (`wrH`), in the cold active one (`wrC`), or none
--     (`wrN`), with no GC guard (the code's timing: a sector whose page
--     opening retires a superblock goes before the GC this makes due;
--     the invariant needs no guard); GC (`gcm`) and its victim as in
--     SCFTL.Impl.Space (greedy or any with at most N valid sectors: the
--     cost-benefit choice behind the N validator, gc.rs `pick_victim`);
--     a relocation (`rl`) into the cold stream;
--   * each stream retires its full active superblock and opens a free one
--     on its own, when it has a sector to place (`actH`: a host write is
--     wanted, `actC`: a relocation is pending; datapath.rs `open_active`,
--     per stream);
--   * the flush (`flK`, `flC`), only when GC is not needed (flush.rs
--     runs `gc_if_needed` first), pads both streams' pages (at most
--     sectors_per_page - 1 sectors each, streams.rs: the flush pads and
--     programs both merge buffers), victims erasable only then (2PGC);
--   * a crash and recovery (`rec`) abandons both active superblocks
--     (recovery knows nothing of streams, streams.rs): used are the
--     superblocks the recovered L2P references (at most those that held
--     committed data at the last commit, the ghost `cu`: the used ones
--     and both active ones), every other one erasable, and one superblock
--     is opened for each stream;
--   * the delta region as in SCFTL.Impl.Space (tentative pages, commit
--     page, the consolidation page's reserve, the forced full checkpoint).
--
-- The constraints are the code's with t = 2 (`Valid2`, exactly as
-- config.rs `Space::broken` computes them: (2) is
-- u + t + ceil((need + (t-1)*(pad + s))/s) <= p, (3) is
-- need + slack(t, pad, s) <= k*s).
--
-- Main results:
--   `step-inv2`, `reach-inv2`: the invariant `Inv2` holds in every state
--   reachable from format, crashes and recoveries included; its core,
--   `pot`, is SCFTL.Impl.Space's with one superblock more:
--   need + S + pend <= (free + erasable)*S + rh + rc + wc + gc*N (the
--   rooms of both active superblocks count, and the superblock more pays
--   for the stream whose active superblock is full while the other's is
--   not);
--   **`space-progress-2`**: for every configuration that passes the
--   code's constraints with t = 2, in every reachable state a wanted host
--   write finds a page in the host stream, a pending relocation one in
--   the cold stream (`FindsH`, `FindsC`: room in that stream's active
--   superblock, or a free or erasable superblock to open: `finds-host`,
--   `finds-cold`), a needed GC finds a victim with at most N valid
--   sectors (`gc-finds`), and the delta region has room for the next
--   page and the consolidation page.
--
-- What the proof needs (a finding, machine-checked: `Needs2`, `needs2`,
-- `space-progress-needs2`): (1) as need + S <= K*S (the (t-1)*s of (3)'s
-- slack: K victims cover the next epoch's sectors plus a superblock),
-- (2) as u + 2 + ceil(need/s) <= p (one superblock more than one
-- stream: the code's (2) gives it twice, by its `+ t` and by the
-- (t-1)*(pad + s) inside its ceiling; either suffices here), (4) as
-- epoch_pages_max + 1 <= delta_pages; nothing of (3)'s padding and
-- abandoned-tail terms (as for one stream: a crash abandons the rooms,
-- which the flush's bound never counted; the padding fills a page the
-- active superblock holds).  The invariant's superblock more is coarse:
-- with W >= 1 and K*N >= 1, (3) as for one stream suffices
-- (SCFTL.Impl.SpaceTwoStreamsTight, `space-progress-2-one3`, counting
-- each stream in whole superblocks).  Mutant 30
-- (SCFTL.Mutants.SpaceSecondStreamNotReserved) drops both of (2)'s
-- two-stream terms and gets stuck: a relocation finds no page.
-- `valid2⇒validT`: `Valid2` implies SCFTL.Impl.SpaceStreams's `ValidT 2`.
--
-- Not modelled (beyond SCFTL.Impl.Space's list): wear moves and
-- evacuations into the cold stream (wear.rs), the §6.1 validator's
-- min-room rule (invariants.rs; the invariant here is a different one),
-- the in-page/OOB commits being refused when the cold stream programmed
-- a page (no region page is modelled for them anyway), which superblocks
-- the recovered L2P references (any within `cu`), the flush's padding
-- amount (any d <= pad per stream, not the page remainder), recovery
-- opening both streams' superblocks at once (the code opens each by its
-- first append).
------------------------------------------------------------------------
module SCFTL.Impl.SpaceTwoStreams where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _∸_; _≤_; _<_; z≤n; s≤s; _≤?_)
open import Data.Nat.DivMod using (_/_; /-monoˡ-≤)
open import Data.Nat.Properties
open import Data.List using (List; []; _∷_; _++_; length; sum)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥; ⊥-elim)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Nullary.Decidable using (True; toWitness)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive
  using (Star; ε; _◅_)
open import Data.Nat.Solver using (module +-*-Solver)
open +-*-Solver using (solve; _:+_; _:*_; _:=_; con)

open import SCFTL.Impl.Space
  using ( Config; cfg; W; K; U; L; S; P; pad; ppp; D; N; need; epm; _div_
        ; ⌈_/_⌉; slack; NotNeeded; Victim
        ; pos-suc; ceil-ge; div-ge; sum-mid; len-mid; len-swap; sum-dec
        ; victim-bound; pos-mul; two; room-sb; min-split )
open import SCFTL.Impl.SpaceStreams using (ValidT)

private
  ≤≡ : ∀ {a b d} → a ≤ b → b ≡ d → a ≤ d
  ≤≡ le refl = le

  ≡≤ : ∀ {a b d} → a ≡ b → b ≤ d → a ≤ d
  ≡≤ refl le = le

------------------------------------------------------------------------
-- The code's constraints with t = 2, and what the proof needs

-- config.rs `Space::broken` with t = 2.
record Valid2 (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    pad<S : pad c < S c
    c1    : need c ≤ K c * S c                                  -- (1)
    c2    : U c + 2 + ⌈ need c + 1 * (pad c + S c) / S c ⌉ ≤ P c
                            -- (2) u + t + ceil((need + (t-1)*(pad + s))/s) <= p
    c3    : need c + slack 2 (pad c) (S c) ≤ K c * S c          -- (3)
    c4    : 2 * epm c ≤ D c                                     -- (4)

record Needs2 (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    S≥1   : 1 ≤ S c
    c1    : need c + S c ≤ K c * S c
    c2    : U c + 2 + ⌈ need c / S c ⌉ ≤ P c
    c4    : suc (epm c) ≤ D c

ceil-mono : ∀ {a b} s → a ≤ b → ⌈ a / s ⌉ ≤ ⌈ b / s ⌉
ceil-mono zero le = +-monoˡ-≤ 0 le
ceil-mono {a} {b} (suc s) le = /-monoˡ-≤ (+-monoˡ-≤ s le)

needs2 : ∀ {c} → Valid2 c → Needs2 c
needs2 {c} V = record
  { U≥1 = Valid2.U≥1 V ; ppp≥1 = Valid2.ppp≥1 V ; S≥1 = S1
  ; c1 = ≤-trans (+-monoʳ-≤ (need c) sl) (Valid2.c3 V)
  ; c2 = ≤-trans (+-monoʳ-≤ (U c + 2) (ceil-mono (S c) (m≤m+n (need c) _))) (Valid2.c2 V)
  ; c4 = ≤-trans (two _) (Valid2.c4 V) }
  where
  S1 : 1 ≤ S c
  S1 = ≤-trans (s≤s z≤n) (Valid2.pad<S V)
  sl : S c ≤ slack 2 (pad c) (S c)
  sl = ≤≡ (m≤n+m (S c) (2 * pad c + 2 * (S c ∸ 1)))
          (cong (2 * pad c + 2 * (S c ∸ 1) +_) (sym (+-identityʳ (S c))))

-- The code's constraints with t = 2 imply SCFTL.Impl.SpaceStreams's
-- `ValidT 2` (whose (2) leaves out the (t-1)*(pad + s) inside the
-- ceiling), so its count-level lemmas (`streams-fit`, `actives-fit`,
-- `two-streams-room`) apply to every configuration `Valid2` accepts.
valid2⇒validT : ∀ {c} → Valid2 c → ValidT 2 c
valid2⇒validT {c} V = record
  { U≥1 = Valid2.U≥1 V ; ppp≥1 = Valid2.ppp≥1 V ; pad<S = Valid2.pad<S V
  ; c1 = Valid2.c1 V ; c2 = Needs2.c2 (needs2 V) ; c3 = Valid2.c3 V ; c4 = Valid2.c4 V }

------------------------------------------------------------------------
-- State and steps

record St2 : Set where
  constructor st2
  field
    fre ers inv : ℕ
    vs          : List ℕ
    rh ah       : ℕ   -- the host stream's active superblock: room, valid
    rc ac       : ℕ   -- the cold stream's active superblock: room, valid
    wc gc pend  : ℕ
    rem tp buf pr : ℕ
    cu          : ℕ   -- ghost: superblocks holding committed data at the
                      -- last commit (used ones and both active ones)
open St2 public

avail2 : Config → St2 → ℕ
avail2 c s = (fre s + ers s) * S c + rh s + rc s

data Step2 (c : Config) : St2 → St2 → Set where
  -- host writes, into the host stream.  No guard on GC: the code runs
  -- GC before each sector (datapath.rs `gc_if_needed`), but opening the
  -- page (`actH`) may then make GC due and the sector goes first; the
  -- invariant needs no guard, so the model allows a write at any point.
  wrU : ∀ {f e i xs x ys r a r' a' w g rm t b p u} →
        w < W c → b < ppp c →
        Step2 c (st2 f e i (xs ++ suc x ∷ ys) (suc r) a r' a' w g 0 rm t b p u)
                (st2 f e i (xs ++ x ∷ ys) r (suc a) r' a' (suc w) g 0 rm t (suc b) (suc p) u)
  wrH : ∀ {f e i xs r a r' a' w g rm t b p u} →
        w < W c → b < ppp c →
        Step2 c (st2 f e i xs (suc r) (suc a) r' a' w g 0 rm t b p u)
                (st2 f e i xs r (suc a) r' a' (suc w) g 0 rm t (suc b) (suc p) u)
  wrC : ∀ {f e i xs r a r' a' w g rm t b p u} →
        w < W c → b < ppp c →
        Step2 c (st2 f e i xs (suc r) a r' (suc a') w g 0 rm t b p u)
                (st2 f e i xs r (suc a) r' a' (suc w) g 0 rm t (suc b) (suc p) u)
  wrN : ∀ {f e i xs r a r' a' w g rm t b p u} →
        w < W c → b < ppp c → sum xs + a + a' < L c →
        Step2 c (st2 f e i xs (suc r) a r' a' w g 0 rm t b p u)
                (st2 f e i xs r (suc a) r' a' (suc w) g 0 rm t (suc b) (suc p) u)
  -- GC: a victim, its sectors relocated one by one into the cold stream
  gcm : ∀ {f e i xs v ys r a r' a' w g rm t b p u} →
        g < K c → U c ≤ length (xs ++ v ∷ ys) → Victim c xs v ys →
        Step2 c (st2 f e i (xs ++ v ∷ ys) r a r' a' w g 0 rm t b p u)
                (st2 f e (suc i) (xs ++ ys) r a r' a' w (suc g) v rm t b p u)
  rl  : ∀ {f e i xs r a r' a' w g q rm t b p u} →
        b < ppp c →
        Step2 c (st2 f e i xs r a (suc r') a' w g (suc q) rm t b p u)
                (st2 f e i xs r a r' (suc a') w g q rm t (suc b) (suc p) u)
  dpg : ∀ {f e i xs r a r' a' w g q rm t p u} →
        Step2 c (st2 f e i xs r a r' a' w g q (suc rm) t (ppp c) p u)
                (st2 f e i xs r a r' a' w g q rm (suc t) 0 p u)
  -- each stream retires its full active superblock and opens a free one
  -- when it has a sector to place (datapath.rs `open_active`, called by
  -- the append that needs room)
  actH : ∀ {f e i xs a r' a' w g q rm t b p u} → w < W c →
        Step2 c (st2 (suc f) e i xs 0 a r' a' w g q rm t b p u)
                (st2 f e i (a ∷ xs) (S c) 0 r' a' w g q rm t b p u)
  actC : ∀ {f e i xs r a a' w g q rm t b p u} →
        Step2 c (st2 (suc f) e i xs r a 0 a' w g (suc q) rm t b p u)
                (st2 f e i (a' ∷ xs) r a (S c) 0 w g (suc q) rm t b p u)
  era : ∀ {f e i xs r a r' a' w g q rm t b p u} →
        Step2 c (st2 f (suc e) i xs r a r' a' w g q rm t b p u)
                (st2 (suc f) e i xs r a r' a' w g q rm t b p u)
  -- the flush pads both streams' pages
  flK : ∀ {f e i xs dh r a dc r' a' w g rm t b p u} →
        NotNeeded c g xs → dh ≤ pad c → dc ≤ pad c → b ≤ ppp c → suc (epm c) ≤ rm →
        Step2 c (st2 f e i xs (dh + r) a (dc + r') a' w g 0 (suc rm) t b p u)
                (st2 f (e + i) 0 xs r a r' a' 0 0 0 rm 0 0 0 (suc (suc (length xs))))
  flC : ∀ {f e i xs dh r a dc r' a' w g rm t b p u} →
        NotNeeded c g xs → dh ≤ pad c → dc ≤ pad c → b ≤ ppp c →
        Step2 c (st2 f e i xs (dh + r) a (dc + r') a' w g 0 (suc rm) t b p u)
                (st2 f (e + i) 0 xs r a r' a' 0 0 0 (D c) 0 0 0 (suc (suc (length xs))))
  -- crash and recovery: both active superblocks abandoned, one opened for
  -- each stream
  rec : ∀ {f e i xs r a r' a' w g q rm t b p u e' ys rm'} →
        suc (suc (e' + length ys)) ≡ P c → length ys ≤ u → sum ys ≤ L c →
        (rm' ≡ rm × suc (epm c) ≤ rm) ⊎ rm' ≡ D c →
        Step2 c (st2 f e i xs r a r' a' w g q rm t b p u)
                (st2 0 e' 0 ys (S c) 0 (S c) 0 0 0 0 rm' 0 0 0 (length ys))

-- After format: both streams' superblocks open, every other one erasable.
init2 : Config → St2
init2 c = st2 0 (P c ∸ 2) 0 [] (S c) 0 (S c) 0 0 0 0 (D c) 0 0 0 0

Reach2 : Config → St2 → Set
Reach2 c s = Star (Step2 c) (init2 c) s

------------------------------------------------------------------------
-- What progress means, per stream

FindsH : Config → St2 → Set
FindsH c s = 1 ≤ rh s ⊎ (rh s ≡ 0 × 1 ≤ fre s + ers s)

FindsC : Config → St2 → Set
FindsC c s = 1 ≤ rc s ⊎ (rc s ≡ 0 × 1 ≤ fre s + ers s)

GcFinds : Config → St2 → Set
GcFinds c s = Σ (List ℕ) λ as → Σ ℕ λ v → Σ (List ℕ) λ bs →
              (vs s ≡ as ++ v ∷ bs) × Victim c as v bs × v ≤ N c

record Progress2 (c : Config) (s : St2) : Set where
  field
    write-finds : wc s < W c → pend s ≡ 0 → FindsH c s
    reloc-finds : 1 ≤ pend s → FindsC c s
    gc-finds    : U c ≤ length (vs s) → GcFinds c s
    delta-room  : 2 ≤ rem s

record SpaceModel2 : Set₁ where
  field
    Ok : Config → Set

SpaceProgress2 : SpaceModel2 → Set
SpaceProgress2 M = ∀ c → SpaceModel2.Ok M c → ∀ {s} → Reach2 c s → Progress2 c s

code2 : SpaceModel2
code2 = record { Ok = Valid2 }

------------------------------------------------------------------------
-- The invariant

record Inv2 (c : Config) (s : St2) : Set where
  field
    cons : suc (suc (fre s + ers s + inv s + length (vs s))) ≡ P c
    i≡g  : inv s ≡ gc s
    sumL : sum (vs s) + ah s + ac s + pend s ≤ L c
    wcW  : wc s ≤ W c
    gcK  : gc s ≤ K c
    rhS  : rh s ≤ S c
    rcS  : rc s ≤ S c
    pot  : need c + S c + pend s ≤ avail2 c s + wc s + gc s * N c
    prq  : pr s ≡ tp s * ppp c + buf s
    bufp : buf s ≤ ppp c
    prb  : pr s + pend s ≤ wc s + gc s * N c
    remb : suc (epm c) ≤ rem s + tp s
    recb : need c + S c + cu s * S c ≤ P c * S c

init-inv2 : ∀ {c} → Needs2 c → Inv2 c (init2 c)
init-inv2 {c} V = record
  { cons = trans (cong (λ z → suc (suc z)) (trans (+-identityʳ _) (+-identityʳ _))) (sym P≡)
  ; i≡g = refl ; sumL = z≤n ; wcW = z≤n ; gcK = z≤n ; rhS = ≤-refl ; rcS = ≤-refl
  ; pot = ≡≤ (+-identityʳ _)
            (≤≡ (≤-trans base (≤-trans (m≤m+n _ (S c)) (m≤m+n _ (S c))))
                (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ (Needs2.c4 V) (sym (+-identityʳ (D c)))
  ; recb = ≡≤ (+-identityʳ _)
             (≤≡ (≤-trans base (≤-trans (m≤m+n _ (S c)) (m≤m+n _ (S c))))
                 (trans (solve 2 (λ m s → m :* s :+ s :+ s := (con 2 :+ m) :* s) refl (P c ∸ 2) (S c))
                        (cong (_* S c) (sym P≡)))) }
  where
  q = ⌈ need c / S c ⌉
  sq : 2 + suc q ≤ P c
  sq = ≤-trans (≡≤ (solve 1 (λ q → con 3 :+ q := con 1 :+ con 2 :+ q) refl q)
                   (+-monoˡ-≤ q (+-monoˡ-≤ 2 (Needs2.U≥1 V)))) (Needs2.c2 V)
  P≡ : P c ≡ suc (suc (P c ∸ 2))
  P≡ = sym (m+[n∸m]≡n (≤-trans (s≤s (s≤s z≤n)) sq))
  sq' : suc q ≤ P c ∸ 2
  sq' = +-cancelˡ-≤ 2 (≤≡ sq P≡)
  base : need c + S c ≤ (0 + (P c ∸ 2)) * S c
  base = ≤-trans (+-monoˡ-≤ (S c) (ceil-ge (need c) (S c) (Needs2.S≥1 V)))
           (≡≤ (+-comm (q * S c) (S c)) (*-monoˡ-≤ (S c) sq'))

------------------------------------------------------------------------
-- The flush: the next epoch's bound, outside both active superblocks

commit-space2 : ∀ {c f e i xs dh r a dc r' a' w g rm t b p u} → Needs2 c →
  Inv2 c (st2 f e i xs (dh + r) a (dc + r') a' w g 0 rm t b p u) → NotNeeded c g xs →
  need c + S c ≤ (f + (e + i)) * S c
commit-space2 {c} {f} {e} {i} V I (inj₁ K≤g) =
  ≤-trans (Needs2.c1 V)
    (≡≤ (cong (_* S c) (sym (trans (Inv2.i≡g I) (≤-antisym (Inv2.gcK I) K≤g))))
        (*-monoˡ-≤ (S c) (≤-stepsˡ f (m≤n+m i e))))
commit-space2 {c} {f} {e} {i} {xs} V I (inj₂ lt) =
  ≤-trans (+-monoˡ-≤ (S c) (ceil-ge (need c) (S c) (Needs2.S≥1 V)))
    (≤-trans (≡≤ (+-comm (q * S c) (S c)) (*-monoˡ-≤ (S c) (≤-pred sb))) (≡≤ (cong (_* S c) (+-assoc f e i)) ≤-refl))
  where
  q = ⌈ need c / S c ⌉
  sb : suc (suc q) ≤ suc (f + e + i)
  sb = room-sb {a = suc (f + e + i)} {l = length xs} {u = U c} {q = suc (suc q)} {p = P c} lt
         (≡≤ (solve 2 (λ u q → u :+ (con 2 :+ q) := u :+ con 2 :+ q) refl (U c) q) (Needs2.c2 V))
         (Inv2.cons I)

commit-recb2 : ∀ {c f e i xs dh r a dc r' a' w g rm t b p u} → Needs2 c →
  Inv2 c (st2 f e i xs (dh + r) a (dc + r') a' w g 0 rm t b p u) → NotNeeded c g xs →
  need c + S c + suc (suc (length xs)) * S c ≤ P c * S c
commit-recb2 {c} {f} {e} {i} {xs} {dh} {r} {a} {dc} {r'} V I nn =
  ≤≡ (+-monoˡ-≤ (suc (suc (length xs)) * S c) (commit-space2 {dh = dh} {r = r} {dc = dc} {r' = r'} V I nn))
     (trans (solve 5 (λ f e i n s → (f :+ (e :+ i)) :* s :+ (con 2 :+ n) :* s := (con 2 :+ (f :+ e :+ i :+ n)) :* s)
                     refl f e i (length xs) (S c))
            (cong (_* S c) (Inv2.cons I)))

------------------------------------------------------------------------
-- The invariant is kept by every step

private
  pot-w : ∀ n A r rc w G → n ≤ A + suc r + rc + w + G → n ≤ A + r + rc + suc w + G
  pot-w n A r rc w G le = ≤≡ le (solve 5 (λ A r rc w G → A :+ (con 1 :+ r) :+ rc :+ w :+ G := A :+ r :+ rc :+ (con 1 :+ w) :+ G) refl A r rc w G)

  pot-g : ∀ n v N AR w G → v ≤ N → n + 0 ≤ AR + w + G → n + v ≤ AR + w + (N + G)
  pot-g n v N AR w G vN le =
    ≤-trans (+-mono-≤ (m≤m+n n 0) vN)
      (≤≡ (+-monoˡ-≤ N le) (solve 4 (λ AR w G N → AR :+ w :+ G :+ N := AR :+ w :+ (N :+ G)) refl AR w G N))

  pot-r : ∀ n q A rh r w G → n + suc q ≤ A + rh + suc r + w + G → n + q ≤ A + rh + r + w + G
  pot-r n q A rh r w G le =
    ≤-pred (≡≤ (sym (+-suc n q))
      (≤≡ le (solve 5 (λ A rh r w G → A :+ rh :+ (con 1 :+ r) :+ w :+ G := con 1 :+ (A :+ rh :+ r :+ w :+ G)) refl A rh r w G)))

  prq-w : ∀ p t k b → p ≡ t * k + b → suc p ≡ t * k + suc b
  prq-w p t k b eq = trans (cong suc eq) (sym (+-suc (t * k) b))

  n≤s : ∀ {n m} → suc n ≤ m → n ≤ m
  n≤s {n} le = ≤-trans (n≤1+n n) le

victim-ok2 : ∀ {c} xs v ys → Needs2 c → U c ≤ length (xs ++ v ∷ ys) →
             sum (xs ++ v ∷ ys) ≤ L c → Victim c xs v ys → v ≤ N c
victim-ok2 xs v ys V uL sL (inj₁ ok) = ok
victim-ok2 {c} xs v ys V uL sL (inj₂ (ax , ay)) = victim-bound c xs v ys (Needs2.U≥1 V) uL sL ax ay

step-inv2 : ∀ {c s s'} → Needs2 c → Inv2 c s → Step2 c s s' → Inv2 c s'
step-inv2 {c} V I (wrU {f} {e} {i} {xs} {x} {ys} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl) = record
  { cons = trans (cong (λ n → suc (suc (f + e + i + n))) (len-swap xs {x} {suc x} {ys})) (Inv2.cons I)
  ; i≡g = Inv2.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a a' → z :+ (con 1 :+ a) :+ a' :+ con 0 := (con 1 :+ z) :+ a :+ a' :+ con 0) refl (sum (xs ++ x ∷ ys)) a a')
              (≡≤ (cong (λ n → n + a + a' + 0) (sym (sum-dec xs {x} {ys}))) (Inv2.sumL I))
  ; wcW = lt ; gcK = Inv2.gcK I ; rhS = n≤s (Inv2.rhS I) ; rcS = Inv2.rcS I
  ; pot = pot-w _ ((f + e) * S c) r r' w (g * N c) (Inv2.pot I)
  ; prq = prq-w p t (ppp c) b (Inv2.prq I) ; bufp = bl ; prb = s≤s (Inv2.prb I) ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (wrH {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl) = record
  { cons = Inv2.cons I ; i≡g = Inv2.i≡g I ; sumL = Inv2.sumL I
  ; wcW = lt ; gcK = Inv2.gcK I ; rhS = n≤s (Inv2.rhS I) ; rcS = Inv2.rcS I
  ; pot = pot-w _ ((f + e) * S c) r r' w (g * N c) (Inv2.pot I)
  ; prq = prq-w p t (ppp c) b (Inv2.prq I) ; bufp = bl ; prb = s≤s (Inv2.prb I) ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (wrC {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl) = record
  { cons = Inv2.cons I ; i≡g = Inv2.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a a' → z :+ (con 1 :+ a) :+ a' :+ con 0 := z :+ a :+ (con 1 :+ a') :+ con 0) refl (sum xs) a a') (Inv2.sumL I)
  ; wcW = lt ; gcK = Inv2.gcK I ; rhS = n≤s (Inv2.rhS I) ; rcS = Inv2.rcS I
  ; pot = pot-w _ ((f + e) * S c) r r' w (g * N c) (Inv2.pot I)
  ; prq = prq-w p t (ppp c) b (Inv2.prq I) ; bufp = bl ; prb = s≤s (Inv2.prb I) ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (wrN {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl sl) = record
  { cons = Inv2.cons I ; i≡g = Inv2.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a a' → z :+ (con 1 :+ a) :+ a' :+ con 0 := con 1 :+ (z :+ a :+ a')) refl (sum xs) a a') sl
  ; wcW = lt ; gcK = Inv2.gcK I ; rhS = n≤s (Inv2.rhS I) ; rcS = Inv2.rcS I
  ; pot = pot-w _ ((f + e) * S c) r r' w (g * N c) (Inv2.pot I)
  ; prq = prq-w p t (ppp c) b (Inv2.prq I) ; bufp = bl ; prb = s≤s (Inv2.prb I) ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (gcm {f} {e} {i} {xs} {v} {ys} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} gk uL vic) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ e :+ (con 1 :+ i) :+ n := f :+ e :+ i :+ (con 1 :+ n)) refl f e i (length (xs ++ ys))))
                 (trans (cong (λ m → suc (suc (f + e + i + m))) (sym (len-mid xs {v} {ys}))) (Inv2.cons I))
  ; i≡g = cong suc (Inv2.i≡g I)
  ; sumL = ≡≤ (solve 4 (λ z a a' v → z :+ a :+ a' :+ v := v :+ z :+ a :+ a' :+ con 0) refl (sum (xs ++ ys)) a a' v)
              (≡≤ (cong (λ m → m + a + a' + 0) (sym (sum-mid xs {v} {ys}))) (Inv2.sumL I))
  ; wcW = Inv2.wcW I ; gcK = gk ; rhS = Inv2.rhS I ; rcS = Inv2.rcS I
  ; pot = pot-g (need c + S c) v (N c) ((f + e) * S c + r + r') w (g * N c) vN (Inv2.pot I)
  ; prq = Inv2.prq I ; bufp = Inv2.bufp I
  ; prb = pot-g p v (N c) 0 w (g * N c) vN (Inv2.prb I)
  ; remb = Inv2.remb I ; recb = Inv2.recb I }
  where
  vN : v ≤ N c
  vN = victim-ok2 xs v ys V uL (≤-trans (m≤m+n _ a) (≤-trans (m≤m+n _ a') (≤-trans (m≤m+n _ 0) (Inv2.sumL I)))) vic
step-inv2 {c} V I (rl {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p} bl) = record
  { cons = Inv2.cons I ; i≡g = Inv2.i≡g I
  ; sumL = ≡≤ (solve 4 (λ z a a' q → z :+ a :+ (con 1 :+ a') :+ q := z :+ a :+ a' :+ (con 1 :+ q)) refl (sum xs) a a' q) (Inv2.sumL I)
  ; wcW = Inv2.wcW I ; gcK = Inv2.gcK I ; rhS = Inv2.rhS I ; rcS = n≤s (Inv2.rcS I)
  ; pot = pot-r (need c + S c) q ((f + e) * S c) r r' w (g * N c) (Inv2.pot I)
  ; prq = prq-w p t (ppp c) b (Inv2.prq I) ; bufp = bl
  ; prb = ≡≤ (sym (+-suc p q)) (Inv2.prb I) ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (dpg {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {p}) = record
  { cons = Inv2.cons I ; i≡g = Inv2.i≡g I ; sumL = Inv2.sumL I ; wcW = Inv2.wcW I ; gcK = Inv2.gcK I
  ; rhS = Inv2.rhS I ; rcS = Inv2.rcS I
  ; pot = Inv2.pot I
  ; prq = trans (Inv2.prq I) (solve 2 (λ t k → t :* k :+ k := (con 1 :+ t) :* k :+ con 0) refl t (ppp c))
  ; bufp = z≤n ; prb = Inv2.prb I
  ; remb = ≤≡ (Inv2.remb I) (sym (+-suc rm t)) ; recb = Inv2.recb I }
step-inv2 {c} V I (actH {f} {e} {i} {xs} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p} _) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ e :+ i :+ (con 1 :+ n) := (con 1 :+ f) :+ e :+ i :+ n) refl f e i (length xs))) (Inv2.cons I)
  ; i≡g = Inv2.i≡g I
  ; sumL = ≡≤ (solve 4 (λ z a a' q → a :+ z :+ con 0 :+ a' :+ q := z :+ a :+ a' :+ q) refl (sum xs) a a' q) (Inv2.sumL I)
  ; wcW = Inv2.wcW I ; gcK = Inv2.gcK I ; rhS = ≤-refl ; rcS = Inv2.rcS I
  ; pot = ≤≡ (Inv2.pot I) (solve 6 (λ f e s r' w G → (con 1 :+ f :+ e) :* s :+ con 0 :+ r' :+ w :+ G := (f :+ e) :* s :+ s :+ r' :+ w :+ G) refl f e (S c) r' w (g * N c))
  ; prq = Inv2.prq I ; bufp = Inv2.bufp I ; prb = Inv2.prb I ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (actC {f} {e} {i} {xs} {r} {a} {a'} {w} {g} {q} {rm} {t} {b} {p}) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ e :+ i :+ (con 1 :+ n) := (con 1 :+ f) :+ e :+ i :+ n) refl f e i (length xs))) (Inv2.cons I)
  ; i≡g = Inv2.i≡g I
  ; sumL = ≡≤ (solve 4 (λ z a a' q → a' :+ z :+ a :+ con 0 :+ q := z :+ a :+ a' :+ q) refl (sum xs) a a' (suc q)) (Inv2.sumL I)
  ; wcW = Inv2.wcW I ; gcK = Inv2.gcK I ; rhS = Inv2.rhS I ; rcS = ≤-refl
  ; pot = ≤≡ (Inv2.pot I) (solve 6 (λ f e s r w G → (con 1 :+ f :+ e) :* s :+ r :+ con 0 :+ w :+ G := (f :+ e) :* s :+ r :+ s :+ w :+ G) refl f e (S c) r w (g * N c))
  ; prq = Inv2.prq I ; bufp = Inv2.bufp I ; prb = Inv2.prb I ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (era {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p}) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → (con 1 :+ f) :+ e :+ i :+ n := f :+ (con 1 :+ e) :+ i :+ n) refl f e i (length xs))) (Inv2.cons I)
  ; i≡g = Inv2.i≡g I ; sumL = Inv2.sumL I ; wcW = Inv2.wcW I ; gcK = Inv2.gcK I
  ; rhS = Inv2.rhS I ; rcS = Inv2.rcS I
  ; pot = ≤≡ (Inv2.pot I) (solve 7 (λ f e s r r' w G → (f :+ (con 1 :+ e)) :* s :+ r :+ r' :+ w :+ G := (con 1 :+ f :+ e) :* s :+ r :+ r' :+ w :+ G) refl f e (S c) r r' w (g * N c))
  ; prq = Inv2.prq I ; bufp = Inv2.bufp I ; prb = Inv2.prb I ; remb = Inv2.remb I ; recb = Inv2.recb I }
step-inv2 {c} V I (flK {f} {e} {i} {xs} {dh} {r} {a} {dc} {r'} {a'} {w} {g} {rm} {t} {b} {p} nn dhp dcp bb rk) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ (e :+ i) :+ con 0 :+ n := f :+ e :+ i :+ n) refl f e i (length xs))) (Inv2.cons I)
  ; i≡g = refl ; sumL = Inv2.sumL I ; wcW = z≤n ; gcK = z≤n
  ; rhS = ≤-trans (m≤n+m r dh) (Inv2.rhS I) ; rcS = ≤-trans (m≤n+m r' dc) (Inv2.rcS I)
  ; pot = ≡≤ (+-identityʳ _)
            (≤≡ (≤-trans (commit-space2 {dh = dh} {r = r} {dc = dc} {r' = r'} V I nn) (≤-trans (m≤m+n _ r) (m≤m+n _ r')))
                (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ rk (sym (+-identityʳ rm)) ; recb = commit-recb2 {dh = dh} {r = r} {dc = dc} {r' = r'} V I nn }
step-inv2 {c} V I (flC {f} {e} {i} {xs} {dh} {r} {a} {dc} {r'} {a'} {w} {g} {rm} {t} {b} {p} nn dhp dcp bb) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ (e :+ i) :+ con 0 :+ n := f :+ e :+ i :+ n) refl f e i (length xs))) (Inv2.cons I)
  ; i≡g = refl ; sumL = Inv2.sumL I ; wcW = z≤n ; gcK = z≤n
  ; rhS = ≤-trans (m≤n+m r dh) (Inv2.rhS I) ; rcS = ≤-trans (m≤n+m r' dc) (Inv2.rcS I)
  ; pot = ≡≤ (+-identityʳ _)
            (≤≡ (≤-trans (commit-space2 {dh = dh} {r = r} {dc = dc} {r' = r'} V I nn) (≤-trans (m≤m+n _ r) (m≤m+n _ r')))
                (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ (Needs2.c4 V) (sym (+-identityʳ (D c))) ; recb = commit-recb2 {dh = dh} {r = r} {dc = dc} {r' = r'} V I nn }
step-inv2 {c} V I (rec {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p} {u} {e'} {ys} {rm'} eq lu sl reg) = record
  { cons = trans (cong (λ z → suc (suc (z + length ys))) (+-identityʳ e')) eq
  ; i≡g = refl ; sumL = ≡≤ (trans (+-identityʳ _) (trans (+-identityʳ _) (+-identityʳ _))) sl
  ; wcW = z≤n ; gcK = z≤n ; rhS = ≤-refl ; rcS = ≤-refl
  ; pot = ≡≤ (+-identityʳ _)
            (≤≡ (+-cancelʳ-≤ (need c + S c) (e' * S c + S c + S c)
                  (≤-trans (+-monoʳ-≤ (need c + S c) (*-monoˡ-≤ (S c) lu))
                    (≤≡ (Inv2.recb I)
                      (trans (cong (_* S c) (sym eq))
                        (solve 3 (λ e n s → (con 2 :+ (e :+ n)) :* s := e :* s :+ s :+ s :+ n :* s) refl e' (length ys) (S c))))))
                (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = remb′ reg
  ; recb = ≤-trans (+-monoʳ-≤ (need c + S c) (*-monoˡ-≤ (S c) lu)) (Inv2.recb I) }
  where
  remb′ : (rm' ≡ rm × suc (epm c) ≤ rm) ⊎ rm' ≡ D c → suc (epm c) ≤ rm' + 0
  remb′ (inj₁ (refl , le)) = ≤≡ le (sym (+-identityʳ rm))
  remb′ (inj₂ refl) = ≤≡ (Needs2.c4 V) (sym (+-identityʳ (D c)))

star-inv2 : ∀ {c s s'} → Needs2 c → Inv2 c s → Star (Step2 c) s s' → Inv2 c s'
star-inv2 V I ε = I
star-inv2 V I (x ◅ xs) = star-inv2 V (step-inv2 V I x) xs

reach-inv2 : ∀ {c s} → Needs2 c → Reach2 c s → Inv2 c s
reach-inv2 V r = star-inv2 V (init-inv2 V) r

------------------------------------------------------------------------
-- Progress

-- A stream whose active superblock is full: the others' sectors exceed
-- the other stream's room, so a superblock is free or erasable.
pos2 : ∀ A r y n s → y < n → r ≤ s → n + s ≤ A + r + y → 1 ≤ A
pos2 zero r y n s lt rs le = ⊥-elim (<⇒≱ h le)
  where
  h : r + y < n + s
  h = ≡≤ (sym (+-suc r y)) (≤≡ (+-mono-≤ rs lt) (+-comm s n))
pos2 (suc A) r y n s lt rs le = s≤s z≤n

finds-host : ∀ c s → Inv2 c s → wc s < W c → FindsH c s
finds-host c (st2 f e i xs (suc r) a r' a' w g q rm t b p u) I lt = inj₁ (s≤s z≤n)
finds-host c (st2 f e i xs zero a r' a' w g q rm t b p u) I lt =
  inj₂ (refl , pos-mul (f + e) (S c) (pos2 ((f + e) * S c) r' (w + g * N c) (need c) (S c) y<n (Inv2.rcS I) le))
  where
  y<n : w + g * N c < need c
  y<n = +-mono-<-≤ lt (*-monoˡ-≤ (N c) (Inv2.gcK I))
  le : need c + S c ≤ (f + e) * S c + r' + (w + g * N c)
  le = ≤-trans (m≤m+n _ q)
         (≤≡ (Inv2.pot I) (solve 4 (λ A r' w G → A :+ con 0 :+ r' :+ w :+ G := A :+ r' :+ (w :+ G)) refl ((f + e) * S c) r' w (g * N c)))

finds-cold : ∀ c s → Inv2 c s → 1 ≤ pend s → FindsC c s
finds-cold c (st2 f e i xs r a (suc r') a' w g q rm t b p u) I p1 = inj₁ (s≤s z≤n)
finds-cold c (st2 f e i xs r a zero a' w g q rm t b p u) I p1 =
  inj₂ (refl , pos-mul (f + e) (S c) (pos2 ((f + e) * S c) r (w + g * N c) (need c + q) (S c) y<n (Inv2.rhS I) le))
  where
  y≤ : w + g * N c ≤ need c
  y≤ = +-mono-≤ (Inv2.wcW I) (*-monoˡ-≤ (N c) (Inv2.gcK I))
  y<n : w + g * N c < need c + q
  y<n = <-transʳ y≤ (≡≤ (+-comm 1 (need c)) (+-monoʳ-≤ (need c) p1))
  le : need c + q + S c ≤ (f + e) * S c + r + (w + g * N c)
  le = ≡≤ (solve 3 (λ n q s → n :+ q :+ s := n :+ s :+ q) refl (need c) q (S c))
         (≤≡ (Inv2.pot I) (solve 4 (λ A r w G → A :+ r :+ con 0 :+ w :+ G := A :+ r :+ (w :+ G)) refl ((f + e) * S c) r w (g * N c)))

gc-finds2 : ∀ {c s} → Needs2 c → Inv2 c s → U c ≤ length (vs s) → GcFinds c s
gc-finds2 {c} {st2 f e i [] r a r' a' w g q rm t b p u} V I uL = ⊥-elim (<⇒≱ (Needs2.U≥1 V) uL)
gc-finds2 {c} {st2 f e i (x ∷ xs) r a r' a' w g q rm t b p u} V I uL with min-split x xs
... | as , v , bs , eq , pa , pb =
  as , v , bs , eq , inj₂ (pa , pb) ,
  victim-bound c as v bs (Needs2.U≥1 V) (≤≡ uL (cong length eq))
    (≡≤ (cong sum (sym eq)) (≤-trans (m≤m+n _ a) (≤-trans (m≤m+n _ a') (≤-trans (m≤m+n _ q) (Inv2.sumL I))))) pa pb

progress2 : ∀ {c s} → Needs2 c → Inv2 c s → Progress2 c s
progress2 {c} {s} V I = record
  { write-finds = λ lt _ → finds-host c s I lt
  ; reloc-finds = finds-cold c s I
  ; gc-finds = gc-finds2 V I
  ; delta-room = +-cancelʳ-≤ 2 (rem s)
      (≡≤ (solve 1 (λ d → con 2 :+ d := con 1 :+ (d :+ con 1)) refl d)
        (≤-trans (Inv2.remb I) (+-monoʳ-≤ (rem s) tp≤)))
  }
  where
  y = wc s + gc s * N c
  y≤ : y ≤ need c
  y≤ = +-mono-≤ (Inv2.wcW I) (*-monoˡ-≤ (N c) (Inv2.gcK I))
  d = need c div ppp c
  tp≤ : tp s ≤ d
  tp≤ = div-ge (tp s) (need c) (ppp c) (Needs2.ppp≥1 V)
          (≤-trans (m≤m+n _ (buf s)) (≡≤ (sym (Inv2.prq I))
            (≤-trans (m≤m+n _ (pend s)) (≤-trans (Inv2.prb I) y≤))))

-- **The space theorem for two streams**: for every configuration that
-- passes the code's constraints with t = 2, every state an execution
-- reaches from format (crashes and recoveries included) finds a page for
-- a wanted host write in the host stream and for a pending relocation in
-- the cold stream, a victim for a needed GC, and room in the delta
-- region.
space-progress-2 : SpaceProgress2 code2
space-progress-2 c V r = progress2 (needs2 V) (reach-inv2 (needs2 V) r)

needed2 : SpaceModel2
needed2 = record { Ok = Needs2 }

space-progress-needs2 : SpaceProgress2 needed2
space-progress-needs2 c V r = progress2 V (reach-inv2 V r)

-- A found page is reached by at most an erase and an activation.
finds-host-page : ∀ c s → wc s < W c → FindsH c s →
                  Σ St2 (λ s' → Star (Step2 c) s s' × S c ≡ rh s') ⊎ 1 ≤ rh s
finds-host-page c s lt (inj₁ r1) = inj₂ r1
finds-host-page c (st2 (suc f) e i xs .0 a r' a' w g q rm t b p u) lt (inj₂ (refl , _)) = inj₁ (_ , actH lt ◅ ε , refl)
finds-host-page c (st2 zero (suc e) i xs .0 a r' a' w g q rm t b p u) lt (inj₂ (refl , _)) = inj₁ (_ , era ◅ actH lt ◅ ε , refl)
finds-host-page c (st2 zero zero i xs .0 a r' a' w g q rm t b p u) lt (inj₂ (refl , ()))

finds-cold-page : ∀ c s → 1 ≤ pend s → FindsC c s →
                  Σ St2 (λ s' → Star (Step2 c) s s' × S c ≡ rc s') ⊎ 1 ≤ rc s
finds-cold-page c s p1 (inj₁ r1) = inj₂ r1
finds-cold-page c (st2 f e i xs r a .0 a' w g zero rm t b p u) () (inj₂ (refl , _))
finds-cold-page c (st2 (suc f) e i xs r a .0 a' w g (suc q) rm t b p u) p1 (inj₂ (refl , _)) = inj₁ (_ , actC ◅ ε , refl)
finds-cold-page c (st2 zero (suc e) i xs r a .0 a' w g (suc q) rm t b p u) p1 (inj₂ (refl , _)) = inj₁ (_ , era ◅ actC ◅ ε , refl)
finds-cold-page c (st2 zero zero i xs r a .0 a' w g (suc q) rm t b p u) p1 (inj₂ (refl , ()))

------------------------------------------------------------------------
-- Not vacuous: a configuration the code's constraints accept with t = 2
-- (N = 1): W = 2, K = 5, U = 2, L = 2, S = 3, P = 8, no padding, one pair
-- per delta page, D = 16 (need = 7 <= 15; 2 + 2 + ceil(10/3) <= 8;
-- 7 + slack(2, 0, 3) = 14 <= 15; 2 * 8 <= 16).

private
  lit : ∀ {m n} {w : True (m ≤? n)} → m ≤ n
  lit {w = w} = toWitness w

example2 : Config
example2 = cfg 2 5 2 2 3 8 0 1 16

example2-valid : Valid2 example2
example2-valid = record
  { U≥1 = lit ; ppp≥1 = lit ; pad<S = lit ; c1 = lit ; c2 = lit ; c3 = lit ; c4 = lit }

-- A run: a host write, commit, crash and recovery (both active
-- superblocks abandoned, the one with the committed sector used), an
-- overwrite of it, the full checkpoint, the host stream's superblock
-- filled and retired (used = 2 = U), GC taking it (one valid sector) and
-- relocating that sector into the cold stream, a host write over the
-- relocated copy (in the cold active superblock), commit.
example2-end : St2
example2-end = st2 0 5 0 (0 ∷ []) 2 1 2 0 0 0 0 12 0 0 0 3

example2-run : Reach2 example2 example2-end
example2-run =
    wrN lit lit lit
  ◅ dpg
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) z≤n z≤n z≤n lit
  ◅ rec {e' = 5} {ys = 1 ∷ []} refl lit lit (inj₁ (refl , lit))
  ◅ wrU {xs = []} {x = 0} {ys = []} lit lit
  ◅ dpg
  ◅ wrH lit lit
  ◅ dpg
  ◅ flC {dh = 0} {dc = 0} (inj₂ lit) z≤n z≤n z≤n
  ◅ wrH lit lit
  ◅ dpg
  ◅ era
  ◅ actH lit
  ◅ gcm {xs = []} {v = 1} {ys = 0 ∷ []} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ dpg
  ◅ wrC lit lit
  ◅ dpg
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) z≤n z≤n z≤n lit
  ◅ ε

-- There the next epoch's first write finds a page in the host stream.
example2-finds : FindsH example2 example2-end
example2-finds = Progress2.write-finds (space-progress-2 example2 example2-valid example2-run) lit refl
