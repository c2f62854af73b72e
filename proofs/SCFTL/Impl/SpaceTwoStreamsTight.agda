{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the two-stream space machine (SCFTL.Impl.SpaceTwoStreams)
-- under weaker constraints: (3) as for one stream suffices when both
-- streams have an epoch to place (W >= 1 and K*N >= 1).
--
-- SCFTL.Impl.SpaceTwoStreams proves `space-progress-2` with an invariant
-- on sectors, which needs need + S <= K*S, the (t-1)*s of (3)'s slack.
-- Here the invariant counts each stream in whole superblocks (`InvT.sb`:
-- ceil(host's remaining need / S) + ceil(cold's remaining need / S) <=
-- free + erasable, each need beyond its active superblock's room, `hD`,
-- `cD`; `recb`: both streams' epochs, rounded up, and what held
-- committed data at the last commit fit in P), and the flush's step is
-- `commit-sb`: K victims hold two streams of W + K*N sectors when
-- W + K*N + (S - 1) <= K*S (`ceil-sum-K`: two roundings lose at most
-- S - 1 sectors more than one), which (3) with t = 1 gives
-- (need + pad + S - 1 <= K*S).
--
-- Main result: `space-progress-2-one3`: for every configuration that
-- passes the code's constraints with t = 2 except that (3) is taken with
-- t = 1 (`Valid2₃₁`), and has W >= 1 and K*N >= 1, every reachable state
-- of the two-stream machine makes progress (`Progress2`).  So in the
-- model (3)'s two-stream terms ((t-1)*s, and the second stream's padding
-- and abandoned tail) are slack when N >= 1; with N = 0 (or W = 0) a
-- stream has no epoch to place and recovery still opens its superblock
-- (the model opens both at once; the code opens each by its first
-- append), which this invariant does not cover (`NeedsT` asks for
-- both).  The weakenings the proof uses: `NeedsT`, `needsT`,
-- `space-progress-needsT`.
------------------------------------------------------------------------
module SCFTL.Impl.SpaceTwoStreamsTight where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _∸_; _≤_; _<_; z≤n; s≤s; _≤?_)
open import Data.Nat.DivMod using (_/_; /-monoˡ-≤; m≥n⇒m/n>0; m<n⇒m/n≡0; m/n≡1+[m∸n]/n)
open import Data.Nat.Properties
open import Data.List using (List; []; _∷_; _++_; length; sum)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥; ⊥-elim)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive
  using (Star; ε; _◅_)
open import Data.Nat.Solver using (module +-*-Solver)
open +-*-Solver using (solve; _:+_; _:*_; _:=_; con)

open import SCFTL.Impl.Space
  using ( Config; cfg; W; K; U; L; S; P; pad; ppp; D; N; need; epm; _div_
        ; ⌈_/_⌉; slack; NotNeeded; Victim
        ; pos-suc; ceil-ge; div-ge; sum-mid; len-mid; len-swap; sum-dec
        ; victim-bound; two; room-sb; min-split )
open import SCFTL.Impl.SpaceStreams using (ceil-le; ceil-two)
open import SCFTL.Impl.SpaceTwoStreams
  using ( St2; st2; fre; ers; inv; vs; rh; ah; rc; ac; wc; gc; pend; rem; tp; buf; pr; cu
        ; Step2; wrU; wrH; wrC; wrN; gcm; rl; dpg; actH; actC; era; flK; flC; rec
        ; init2; Reach2; FindsH; FindsC; GcFinds; Progress2; SpaceModel2; SpaceProgress2
        ; ceil-mono )

private
  ≤≡ : ∀ {a b d} → a ≤ b → b ≡ d → a ≤ d
  ≤≡ le refl = le

  ≡≤ : ∀ {a b d} → a ≡ b → b ≤ d → a ≤ d
  ≡≤ refl le = le

------------------------------------------------------------------------
-- The constraints: the code's with t = 2, (3) with t = 1

record Valid2₃₁ (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    pad<S : pad c < S c
    c1    : need c ≤ K c * S c
    c2    : U c + 2 + ⌈ need c + 1 * (pad c + S c) / S c ⌉ ≤ P c
    c3    : need c + slack 1 (pad c) (S c) ≤ K c * S c    -- (3) with t = 1
    c4    : 2 * epm c ≤ D c

record NeedsT (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    S≥1   : 1 ≤ S c
    W≥1   : 1 ≤ W c
    KN≥1  : 1 ≤ K c * N c
    c1    : need c + (S c ∸ 1) ≤ K c * S c
    c2    : U c + 2 + ⌈ need c / S c ⌉ ≤ P c
    c4    : suc (epm c) ≤ D c

needsT : ∀ {c} → Valid2₃₁ c → 1 ≤ W c → 1 ≤ K c * N c → NeedsT c
needsT {c} V w1 kn1 = record
  { U≥1 = Valid2₃₁.U≥1 V ; ppp≥1 = Valid2₃₁.ppp≥1 V ; S≥1 = ≤-trans (s≤s z≤n) (Valid2₃₁.pad<S V)
  ; W≥1 = w1 ; KN≥1 = kn1
  ; c1 = ≤-trans (+-monoʳ-≤ (need c) sl) (Valid2₃₁.c3 V)
  ; c2 = ≤-trans (+-monoʳ-≤ (U c + 2) (ceil-mono (S c) (m≤m+n (need c) _))) (Valid2₃₁.c2 V)
  ; c4 = ≤-trans (two _) (Valid2₃₁.c4 V) }
  where
  sl : S c ∸ 1 ≤ slack 1 (pad c) (S c)
  sl = ≤-trans (m≤n+m (S c ∸ 1) (1 * pad c))
         (≤≡ (+-monoʳ-≤ (1 * pad c) (≡≤ (sym (+-identityʳ (S c ∸ 1))) ≤-refl))
             (sym (+-identityʳ _)))

------------------------------------------------------------------------
-- What each stream still needs beyond its active superblock's room: the
-- host stream the epoch's remaining writes (W - wc), the cold stream the
-- remaining victims' sectors and the pending ones ((K - gc)*N + pend).
hD : Config → St2 → ℕ
hD c s = W c ∸ (wc s + rh s)

cD : Config → St2 → ℕ
cD c s = (K c * N c + pend s) ∸ (gc s * N c + rc s)

record InvT (c : Config) (s : St2) : Set where
  field
    cons : suc (suc (fre s + ers s + inv s + length (vs s))) ≡ P c
    i≡g  : inv s ≡ gc s
    sumL : sum (vs s) + ah s + ac s + pend s ≤ L c
    wcW  : wc s ≤ W c
    gcK  : gc s ≤ K c
    -- each stream, rounded up to whole superblocks, fits in the free and
    -- erasable ones
    sb   : ⌈ hD c s / S c ⌉ + ⌈ cD c s / S c ⌉ ≤ fre s + ers s
    prq  : pr s ≡ tp s * ppp c + buf s
    bufp : buf s ≤ ppp c
    prb  : pr s + pend s ≤ wc s + gc s * N c
    remb : suc (epm c) ≤ rem s + tp s
    -- a recovery leaves both streams' epochs, rounded up
    recb : ⌈ W c / S c ⌉ + ⌈ K c * N c / S c ⌉ + cu s ≤ P c

------------------------------------------------------------------------
-- Rounding lemmas

ceil-pos : ∀ x S → 1 ≤ x → 1 ≤ S → 1 ≤ ⌈ x / S ⌉
ceil-pos x (suc s) x1 _ = m≥n⇒m/n>0 (+-monoˡ-≤ s x1)

ceil-zero : ∀ S → 1 ≤ S → ⌈ 0 / S ⌉ ≡ 0
ceil-zero (suc s) _ = m<n⇒m/n≡0 (n<1+n s)

-- Opening a superblock of S sectors for a stream that needs x >= 1 more
-- takes one superblock off what it needs.
ceil-sub : ∀ x S → 1 ≤ x → 1 ≤ S → suc ⌈ x ∸ S / S ⌉ ≤ ⌈ x / S ⌉
ceil-sub x (suc s) x1 S1 with x ≤? suc s
... | yes le = ≤-trans (≡≤ (cong suc (trans (cong (λ z → ⌈ z / suc s ⌉) (m≤n⇒m∸n≡0 le)) (ceil-zero (suc s) S1))) ≤-refl)
                       (ceil-pos x (suc s) x1 S1)
... | no gt = ≤-reflexive (sym (trans (m/n≡1+[m∸n]/n (≤-trans (m≤m+n (suc s) s) (+-monoˡ-≤ s (<⇒≤ (≰⇒> gt)))))
                                  (cong (λ z → suc (z / suc s)) (+-∸-comm s (<⇒≤ (≰⇒> gt))))))

suc-pred : ∀ {y z} → suc y ≤ z → y ≤ z ∸ 1
suc-pred {z = suc z} (s≤s le) = le

ceil-sub0 : ∀ x S → 1 ≤ S → ⌈ x ∸ S / S ⌉ ≤ ⌈ x / S ⌉ ∸ 1
ceil-sub0 zero S S1 = ≡≤ (trans (cong (λ z → ⌈ z / S ⌉) (0∸n≡0 S)) (ceil-zero S S1)) z≤n
ceil-sub0 (suc x) S S1 = suc-pred (ceil-sub (suc x) S (s≤s z≤n) S1)

-- Two streams whose sectors and one rounding loss fit in K superblocks
-- need at most K superblocks.
ceil-sum-K : ∀ a b K S → 1 ≤ S → a + b + (S ∸ 1) ≤ K * S → ⌈ a / S ⌉ + ⌈ b / S ⌉ ≤ K
ceil-sum-K a b K (suc s) _ le = ≤-pred (*-cancelʳ-< (⌈ a / suc s ⌉ + ⌈ b / suc s ⌉) (suc K) h)
  where
  h : (⌈ a / suc s ⌉ + ⌈ b / suc s ⌉) * suc s < suc K * suc s
  h = ≡≤ (cong suc (*-distribʳ-+ (suc s) ⌈ a / suc s ⌉ ⌈ b / suc s ⌉))
        (≤-trans (s≤s (+-mono-≤ (ceil-le a s) (ceil-le b s)))
          (≤-trans (s≤s (≡≤ (solve 3 (λ a b s → a :+ s :+ (b :+ s) := a :+ b :+ s :+ s) refl a b s) (+-monoˡ-≤ s le)))
            (≡≤ (solve 2 (λ K s → con 1 :+ (K :* (con 1 :+ s) :+ s) := (con 1 :+ s) :+ K :* (con 1 :+ s)) refl K s) ≤-refl)))

ceil-two′ : ∀ a b S → 1 ≤ S → ⌈ a / S ⌉ + ⌈ b / S ⌉ ≤ suc ⌈ (a + b) / S ⌉
ceil-two′ a b (suc s) _ = ceil-two s a b

pred-sum : ∀ A B e → 1 ≤ A → 1 ≤ B → A + B ≤ suc (suc e) → (A ∸ 1) + (B ∸ 1) ≤ e
pred-sum (suc A) (suc B) e _ _ le = ≤-pred (≤-pred (≡≤ (cong suc (sym (+-suc A B))) le))

pos∸ : ∀ {w W} → w < W → 1 ≤ W ∸ w
pos∸ {zero} {suc W} _ = s≤s z≤n
pos∸ {suc w} {suc W} (s≤s lt) = pos∸ lt

-- The cold stream's need with a pending sector is positive.
cold-pos : ∀ KN q G → G ≤ KN → 1 ≤ (KN + suc q) ∸ (G + 0)
cold-pos KN q G le =
  ≤-trans (s≤s z≤n)
    (≤≡ (≡≤ (sym (m+n∸m≡n G (suc q))) (∸-monoˡ-≤ G (+-monoˡ-≤ (suc q) le)))
        (cong ((KN + suc q) ∸_) (sym (+-identityʳ G))))

gc-cd : ∀ KN v N G r → v ≤ N → (KN + v) ∸ (N + G + r) ≤ (KN + 0) ∸ (G + r)
gc-cd KN v N G r vN =
  ≤-trans (∸-monoˡ-≤ (N + G + r) (+-monoʳ-≤ KN vN))
    (≤-reflexive (trans (cong₂ _∸_ (+-comm KN N) (+-assoc N G r))
                   (trans ([m+n]∸[m+o]≡n∸o N KN (G + r)) (cong (_∸ (G + r)) (sym (+-identityʳ KN))))))

-- What a fresh epoch with both streams' superblocks opened needs.
fresh-sb : ∀ c e → NeedsT c →
  ⌈ W c / S c ⌉ + ⌈ K c * N c / S c ⌉ ≤ suc (suc e) →
  ⌈ W c ∸ (0 + S c) / S c ⌉ + ⌈ (K c * N c + 0) ∸ (0 * N c + S c) / S c ⌉ ≤ e
fresh-sb c e V le =
  ≤-trans (+-mono-≤ (ceil-sub0 (W c) (S c) S1)
                    (≡≤ (cong (λ z → ⌈ z ∸ S c / S c ⌉) (+-identityʳ (K c * N c))) (ceil-sub0 (K c * N c) (S c) S1)))
          (pred-sum _ _ e (ceil-pos _ _ (NeedsT.W≥1 V) S1) (ceil-pos _ _ (NeedsT.KN≥1 V) S1) le)
  where
  S1 = NeedsT.S≥1 V

init-invT : ∀ {c} → NeedsT c → InvT c (init2 c)
init-invT {c} V = record
  { cons = trans (cong (λ z → suc (suc z)) (trans (+-identityʳ _) (+-identityʳ _))) (sym P≡)
  ; i≡g = refl ; sumL = z≤n ; wcW = z≤n ; gcK = z≤n
  ; sb = fresh-sb c (P c ∸ 2) V (≤≡ AB P≡)
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ (NeedsT.c4 V) (sym (+-identityʳ (D c)))
  ; recb = ≡≤ (+-identityʳ _) AB }
  where
  q = ⌈ need c / S c ⌉
  sq : 2 + suc q ≤ P c
  sq = ≤-trans (≡≤ (solve 1 (λ q → con 3 :+ q := con 1 :+ con 2 :+ q) refl q)
                   (+-monoˡ-≤ q (+-monoˡ-≤ 2 (NeedsT.U≥1 V)))) (NeedsT.c2 V)
  P≡ : P c ≡ suc (suc (P c ∸ 2))
  P≡ = sym (m+[n∸m]≡n (≤-trans (s≤s (s≤s z≤n)) sq))
  AB : ⌈ W c / S c ⌉ + ⌈ K c * N c / S c ⌉ ≤ P c
  AB = ≤-trans (ceil-two′ (W c) (K c * N c) (S c) (NeedsT.S≥1 V)) (≤-trans (n≤1+n _) (≤-trans (n≤1+n _) sq))

------------------------------------------------------------------------
-- The flush: the next epoch's streams, rounded up, outside both active
-- superblocks

commit-sb : ∀ {c f e i xs r a r' a' w g rm t b p u} → NeedsT c →
  InvT c (st2 f e i xs r a r' a' w g 0 rm t b p u) → NotNeeded c g xs →
  ⌈ W c / S c ⌉ + ⌈ K c * N c / S c ⌉ ≤ f + (e + i)
commit-sb {c} {f} {e} {i} V I (inj₁ K≤g) =
  ≤-trans (ceil-sum-K (W c) (K c * N c) (K c) (S c) (NeedsT.S≥1 V) (NeedsT.c1 V))
    (≡≤ (sym iK) (≤-stepsˡ f (m≤n+m i e)))
  where
  iK : i ≡ K c
  iK = trans (InvT.i≡g I) (≤-antisym (InvT.gcK I) K≤g)
commit-sb {c} {f} {e} {i} {xs} V I (inj₂ lt) =
  ≤-trans (ceil-two′ (W c) (K c * N c) (S c) (NeedsT.S≥1 V)) (≤≡ (≤-pred sb′) (+-assoc f e i))
  where
  q = ⌈ need c / S c ⌉
  sb′ : suc (suc q) ≤ suc (f + e + i)
  sb′ = room-sb {a = suc (f + e + i)} {l = length xs} {u = U c} {q = suc (suc q)} {p = P c} lt
          (≡≤ (solve 2 (λ u q → u :+ (con 2 :+ q) := u :+ con 2 :+ q) refl (U c) q) (NeedsT.c2 V))
          (InvT.cons I)

commit-recb : ∀ {c f e i xs r a r' a' w g rm t b p u} → NeedsT c →
  InvT c (st2 f e i xs r a r' a' w g 0 rm t b p u) → NotNeeded c g xs →
  ⌈ W c / S c ⌉ + ⌈ K c * N c / S c ⌉ + suc (suc (length xs)) ≤ P c
commit-recb {c} {f} {e} {i} {xs} V I nn =
  ≤≡ (+-monoˡ-≤ (suc (suc (length xs))) (commit-sb V I nn))
     (trans (solve 4 (λ f e i n → f :+ (e :+ i) :+ (con 2 :+ n) := con 2 :+ (f :+ e :+ i :+ n)) refl f e i (length xs))
            (InvT.cons I))

------------------------------------------------------------------------
-- The invariant is kept by every step

private
  prq-w : ∀ p t k b → p ≡ t * k + b → suc p ≡ t * k + suc b
  prq-w p t k b eq = trans (cong suc eq) (sym (+-suc (t * k) b))

  pot-g : ∀ n v N AR w G → v ≤ N → n + 0 ≤ AR + w + G → n + v ≤ AR + w + (N + G)
  pot-g n v N AR w G vN le =
    ≤-trans (+-mono-≤ (m≤m+n n 0) vN)
      (≤≡ (+-monoˡ-≤ N le) (solve 4 (λ AR w G N → AR :+ w :+ G :+ N := AR :+ w :+ (N :+ G)) refl AR w G N))

  -- a write: the host stream's need is unchanged
  hsb : ∀ c {fe w r C} → ⌈ W c ∸ (w + suc r) / S c ⌉ + C ≤ fe → ⌈ W c ∸ (suc w + r) / S c ⌉ + C ≤ fe
  hsb c {w = w} {r} {C} le = ≡≤ (cong (λ z → ⌈ W c ∸ z / S c ⌉ + C) (sym (+-suc w r))) le

victim-okT : ∀ {c} xs v ys → NeedsT c → U c ≤ length (xs ++ v ∷ ys) →
             sum (xs ++ v ∷ ys) ≤ L c → Victim c xs v ys → v ≤ N c
victim-okT xs v ys V uL sL (inj₁ ok) = ok
victim-okT {c} xs v ys V uL sL (inj₂ (ax , ay)) = victim-bound c xs v ys (NeedsT.U≥1 V) uL sL ax ay

step-invT : ∀ {c s s'} → NeedsT c → InvT c s → Step2 c s s' → InvT c s'
step-invT {c} V I (wrU {f} {e} {i} {xs} {x} {ys} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl) = record
  { cons = trans (cong (λ n → suc (suc (f + e + i + n))) (len-swap xs {x} {suc x} {ys})) (InvT.cons I)
  ; i≡g = InvT.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a a' → z :+ (con 1 :+ a) :+ a' :+ con 0 := (con 1 :+ z) :+ a :+ a' :+ con 0) refl (sum (xs ++ x ∷ ys)) a a')
              (≡≤ (cong (λ n → n + a + a' + 0) (sym (sum-dec xs {x} {ys}))) (InvT.sumL I))
  ; wcW = lt ; gcK = InvT.gcK I
  ; sb = hsb c {w = w} {r = r} (InvT.sb I)
  ; prq = prq-w p t (ppp c) b (InvT.prq I) ; bufp = bl ; prb = s≤s (InvT.prb I) ; remb = InvT.remb I ; recb = InvT.recb I }
step-invT {c} V I (wrH {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl) = record
  { cons = InvT.cons I ; i≡g = InvT.i≡g I ; sumL = InvT.sumL I
  ; wcW = lt ; gcK = InvT.gcK I
  ; sb = hsb c {w = w} {r = r} (InvT.sb I)
  ; prq = prq-w p t (ppp c) b (InvT.prq I) ; bufp = bl ; prb = s≤s (InvT.prb I) ; remb = InvT.remb I ; recb = InvT.recb I }
step-invT {c} V I (wrC {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl) = record
  { cons = InvT.cons I ; i≡g = InvT.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a a' → z :+ (con 1 :+ a) :+ a' :+ con 0 := z :+ a :+ (con 1 :+ a') :+ con 0) refl (sum xs) a a') (InvT.sumL I)
  ; wcW = lt ; gcK = InvT.gcK I
  ; sb = hsb c {w = w} {r = r} (InvT.sb I)
  ; prq = prq-w p t (ppp c) b (InvT.prq I) ; bufp = bl ; prb = s≤s (InvT.prb I) ; remb = InvT.remb I ; recb = InvT.recb I }
step-invT {c} V I (wrN {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} lt bl sl) = record
  { cons = InvT.cons I ; i≡g = InvT.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a a' → z :+ (con 1 :+ a) :+ a' :+ con 0 := con 1 :+ (z :+ a :+ a')) refl (sum xs) a a') sl
  ; wcW = lt ; gcK = InvT.gcK I
  ; sb = hsb c {w = w} {r = r} (InvT.sb I)
  ; prq = prq-w p t (ppp c) b (InvT.prq I) ; bufp = bl ; prb = s≤s (InvT.prb I) ; remb = InvT.remb I ; recb = InvT.recb I }
step-invT {c} V I (gcm {f} {e} {i} {xs} {v} {ys} {r} {a} {r'} {a'} {w} {g} {rm} {t} {b} {p} gk uL vic) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ e :+ (con 1 :+ i) :+ n := f :+ e :+ i :+ (con 1 :+ n)) refl f e i (length (xs ++ ys))))
                 (trans (cong (λ m → suc (suc (f + e + i + m))) (sym (len-mid xs {v} {ys}))) (InvT.cons I))
  ; i≡g = cong suc (InvT.i≡g I)
  ; sumL = ≡≤ (solve 4 (λ z a a' v → z :+ a :+ a' :+ v := v :+ z :+ a :+ a' :+ con 0) refl (sum (xs ++ ys)) a a' v)
              (≡≤ (cong (λ m → m + a + a' + 0) (sym (sum-mid xs {v} {ys}))) (InvT.sumL I))
  ; wcW = InvT.wcW I ; gcK = gk
  ; sb = ≤-trans (+-monoʳ-≤ ⌈ W c ∸ (w + r) / S c ⌉ (ceil-mono (S c) (gc-cd (K c * N c) v (N c) (g * N c) r' vN))) (InvT.sb I)
  ; prq = InvT.prq I ; bufp = InvT.bufp I
  ; prb = pot-g p v (N c) 0 w (g * N c) vN (InvT.prb I)
  ; remb = InvT.remb I ; recb = InvT.recb I }
  where
  vN : v ≤ N c
  vN = victim-okT xs v ys V uL (≤-trans (m≤m+n _ a) (≤-trans (m≤m+n _ a') (≤-trans (m≤m+n _ 0) (InvT.sumL I)))) vic
step-invT {c} V I (rl {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p} bl) = record
  { cons = InvT.cons I ; i≡g = InvT.i≡g I
  ; sumL = ≡≤ (solve 4 (λ z a a' q → z :+ a :+ (con 1 :+ a') :+ q := z :+ a :+ a' :+ (con 1 :+ q)) refl (sum xs) a a' q) (InvT.sumL I)
  ; wcW = InvT.wcW I ; gcK = InvT.gcK I
  ; sb = ≡≤ (cong (λ z → ⌈ W c ∸ (w + r) / S c ⌉ + ⌈ z / S c ⌉) (sym (cong₂ _∸_ (+-suc (K c * N c) q) (+-suc (g * N c) r')))) (InvT.sb I)
  ; prq = prq-w p t (ppp c) b (InvT.prq I) ; bufp = bl
  ; prb = ≡≤ (sym (+-suc p q)) (InvT.prb I) ; remb = InvT.remb I ; recb = InvT.recb I }
step-invT {c} V I (dpg {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {p}) = record
  { cons = InvT.cons I ; i≡g = InvT.i≡g I ; sumL = InvT.sumL I ; wcW = InvT.wcW I ; gcK = InvT.gcK I
  ; sb = InvT.sb I
  ; prq = trans (InvT.prq I) (solve 2 (λ t k → t :* k :+ k := (con 1 :+ t) :* k :+ con 0) refl t (ppp c))
  ; bufp = z≤n ; prb = InvT.prb I
  ; remb = ≤≡ (InvT.remb I) (sym (+-suc rm t)) ; recb = InvT.recb I }
step-invT {c} V I (actH {f} {e} {i} {xs} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p} lt) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ e :+ i :+ (con 1 :+ n) := (con 1 :+ f) :+ e :+ i :+ n) refl f e i (length xs))) (InvT.cons I)
  ; i≡g = InvT.i≡g I
  ; sumL = ≡≤ (solve 4 (λ z a a' q → a :+ z :+ con 0 :+ a' :+ q := z :+ a :+ a' :+ q) refl (sum xs) a a' q) (InvT.sumL I)
  ; wcW = InvT.wcW I ; gcK = InvT.gcK I
  ; sb = ≤-pred (≤-trans (+-monoˡ-≤ C (≡≤ (cong (λ z → suc ⌈ z / S c ⌉) eqx) (ceil-sub x (S c) x1 (NeedsT.S≥1 V)))) (InvT.sb I))
  ; prq = InvT.prq I ; bufp = InvT.bufp I ; prb = InvT.prb I ; remb = InvT.remb I ; recb = InvT.recb I }
  where
  x = W c ∸ (w + 0)
  C = ⌈ (K c * N c + q) ∸ (g * N c + r') / S c ⌉
  eqx : W c ∸ (w + S c) ≡ x ∸ S c
  eqx = trans (sym (∸-+-assoc (W c) w (S c))) (cong (_∸ S c) (cong (W c ∸_) (sym (+-identityʳ w))))
  x1 : 1 ≤ x
  x1 = ≤≡ (pos∸ lt) (cong (W c ∸_) (sym (+-identityʳ w)))
step-invT {c} V I (actC {f} {e} {i} {xs} {r} {a} {a'} {w} {g} {q} {rm} {t} {b} {p}) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ e :+ i :+ (con 1 :+ n) := (con 1 :+ f) :+ e :+ i :+ n) refl f e i (length xs))) (InvT.cons I)
  ; i≡g = InvT.i≡g I
  ; sumL = ≡≤ (solve 4 (λ z a a' q → a' :+ z :+ a :+ con 0 :+ q := z :+ a :+ a' :+ q) refl (sum xs) a a' (suc q)) (InvT.sumL I)
  ; wcW = InvT.wcW I ; gcK = InvT.gcK I
  ; sb = ≤-pred (≡≤ (sym (+-suc H ⌈ (K c * N c + suc q) ∸ (g * N c + S c) / S c ⌉))
                 (≤-trans (+-monoʳ-≤ H (≡≤ (cong (λ z → suc ⌈ z / S c ⌉) eqx) (ceil-sub x (S c) x1 (NeedsT.S≥1 V)))) (InvT.sb I)))
  ; prq = InvT.prq I ; bufp = InvT.bufp I ; prb = InvT.prb I ; remb = InvT.remb I ; recb = InvT.recb I }
  where
  H = ⌈ W c ∸ (w + r) / S c ⌉
  x = (K c * N c + suc q) ∸ (g * N c + 0)
  eqx : (K c * N c + suc q) ∸ (g * N c + S c) ≡ x ∸ S c
  eqx = trans (sym (∸-+-assoc (K c * N c + suc q) (g * N c) (S c)))
              (cong (_∸ S c) (cong ((K c * N c + suc q) ∸_) (sym (+-identityʳ (g * N c)))))
  x1 : 1 ≤ x
  x1 = cold-pos (K c * N c) q (g * N c) (*-monoˡ-≤ (N c) (InvT.gcK I))
step-invT {c} V I (era {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p}) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → (con 1 :+ f) :+ e :+ i :+ n := f :+ (con 1 :+ e) :+ i :+ n) refl f e i (length xs))) (InvT.cons I)
  ; i≡g = InvT.i≡g I ; sumL = InvT.sumL I ; wcW = InvT.wcW I ; gcK = InvT.gcK I
  ; sb = ≤≡ (InvT.sb I) (+-suc f e)
  ; prq = InvT.prq I ; bufp = InvT.bufp I ; prb = InvT.prb I ; remb = InvT.remb I ; recb = InvT.recb I }
step-invT {c} V I (flK {f} {e} {i} {xs} {dh} {r} {a} {dc} {r'} {a'} {w} {g} {rm} {t} {b} {p} nn dhp dcp bb rk) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ (e :+ i) :+ con 0 :+ n := f :+ e :+ i :+ n) refl f e i (length xs))) (InvT.cons I)
  ; i≡g = refl ; sumL = InvT.sumL I ; wcW = z≤n ; gcK = z≤n
  ; sb = ≤-trans (+-mono-≤ (ceil-mono (S c) (m∸n≤m (W c) r))
                           (ceil-mono (S c) (≤-trans (m∸n≤m _ r') (≡≤ (+-identityʳ _) ≤-refl))))
                 (commit-sb V I nn)
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ rk (sym (+-identityʳ rm)) ; recb = commit-recb V I nn }
step-invT {c} V I (flC {f} {e} {i} {xs} {dh} {r} {a} {dc} {r'} {a'} {w} {g} {rm} {t} {b} {p} nn dhp dcp bb) = record
  { cons = trans (cong (λ z → suc (suc z)) (solve 4 (λ f e i n → f :+ (e :+ i) :+ con 0 :+ n := f :+ e :+ i :+ n) refl f e i (length xs))) (InvT.cons I)
  ; i≡g = refl ; sumL = InvT.sumL I ; wcW = z≤n ; gcK = z≤n
  ; sb = ≤-trans (+-mono-≤ (ceil-mono (S c) (m∸n≤m (W c) r))
                           (ceil-mono (S c) (≤-trans (m∸n≤m _ r') (≡≤ (+-identityʳ _) ≤-refl))))
                 (commit-sb V I nn)
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ (NeedsT.c4 V) (sym (+-identityʳ (D c))) ; recb = commit-recb V I nn }
step-invT {c} V I (rec {f} {e} {i} {xs} {r} {a} {r'} {a'} {w} {g} {q} {rm} {t} {b} {p} {u} {e'} {ys} {rm'} eq lu sl reg) = record
  { cons = trans (cong (λ z → suc (suc (z + length ys))) (+-identityʳ e')) eq
  ; i≡g = refl ; sumL = ≡≤ (trans (+-identityʳ _) (trans (+-identityʳ _) (+-identityʳ _))) sl
  ; wcW = z≤n ; gcK = z≤n
  ; sb = fresh-sb c e' V
          (+-cancelʳ-≤ {length ys} AB (suc (suc e'))
            (≤-trans (+-monoʳ-≤ AB lu) (≤≡ (InvT.recb I) (sym eq))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = remb′ reg
  ; recb = ≤-trans (+-monoʳ-≤ AB lu) (InvT.recb I) }
  where
  AB = ⌈ W c / S c ⌉ + ⌈ K c * N c / S c ⌉
  remb′ : (rm' ≡ rm × suc (epm c) ≤ rm) ⊎ rm' ≡ D c → suc (epm c) ≤ rm' + 0
  remb′ (inj₁ (refl , le)) = ≤≡ le (sym (+-identityʳ rm))
  remb′ (inj₂ refl) = ≤≡ (NeedsT.c4 V) (sym (+-identityʳ (D c)))

star-invT : ∀ {c s s'} → NeedsT c → InvT c s → Star (Step2 c) s s' → InvT c s'
star-invT V I ε = I
star-invT V I (x ◅ xs) = star-invT V (step-invT V I x) xs

reach-invT : ∀ {c s} → NeedsT c → Reach2 c s → InvT c s
reach-invT V r = star-invT V (init-invT V) r

------------------------------------------------------------------------
-- Progress

finds-hostT : ∀ c s → NeedsT c → InvT c s → wc s < W c → FindsH c s
finds-hostT c (st2 f e i xs (suc r) a r' a' w g q rm t b p u) V I lt = inj₁ (s≤s z≤n)
finds-hostT c (st2 f e i xs zero a r' a' w g q rm t b p u) V I lt =
  inj₂ (refl , ≤-trans (≤-trans (ceil-pos _ (S c) x1 (NeedsT.S≥1 V)) (m≤m+n _ _)) (InvT.sb I))
  where
  x1 : 1 ≤ W c ∸ (w + 0)
  x1 = ≤≡ (pos∸ lt) (cong (W c ∸_) (sym (+-identityʳ w)))

finds-coldT : ∀ c s → NeedsT c → InvT c s → 1 ≤ pend s → FindsC c s
finds-coldT c (st2 f e i xs r a (suc r') a' w g q rm t b p u) V I p1 = inj₁ (s≤s z≤n)
finds-coldT c (st2 f e i xs r a zero a' w g (suc q) rm t b p u) V I p1 =
  inj₂ (refl , ≤-trans (≤-trans (ceil-pos _ (S c) x1 (NeedsT.S≥1 V)) (m≤n+m _ _)) (InvT.sb I))
  where
  x1 : 1 ≤ (K c * N c + suc q) ∸ (g * N c + 0)
  x1 = cold-pos (K c * N c) q (g * N c) (*-monoˡ-≤ (N c) (InvT.gcK I))

gc-findsT : ∀ {c s} → NeedsT c → InvT c s → U c ≤ length (vs s) → GcFinds c s
gc-findsT {c} {st2 f e i [] r a r' a' w g q rm t b p u} V I uL = ⊥-elim (<⇒≱ (NeedsT.U≥1 V) uL)
gc-findsT {c} {st2 f e i (x ∷ xs) r a r' a' w g q rm t b p u} V I uL with min-split x xs
... | as , v , bs , eq , pa , pb =
  as , v , bs , eq , inj₂ (pa , pb) ,
  victim-bound c as v bs (NeedsT.U≥1 V) (≤≡ uL (cong length eq))
    (≡≤ (cong sum (sym eq)) (≤-trans (m≤m+n _ a) (≤-trans (m≤m+n _ a') (≤-trans (m≤m+n _ q) (InvT.sumL I))))) pa pb

progressT : ∀ {c s} → NeedsT c → InvT c s → Progress2 c s
progressT {c} {s} V I = record
  { write-finds = λ lt _ → finds-hostT c s V I lt
  ; reloc-finds = finds-coldT c s V I
  ; gc-finds = gc-findsT V I
  ; delta-room = +-cancelʳ-≤ 2 (rem s)
      (≡≤ (solve 1 (λ d → con 2 :+ d := con 1 :+ (d :+ con 1)) refl d)
        (≤-trans (InvT.remb I) (+-monoʳ-≤ (rem s) tp≤)))
  }
  where
  y = wc s + gc s * N c
  y≤ : y ≤ need c
  y≤ = +-mono-≤ (InvT.wcW I) (*-monoˡ-≤ (N c) (InvT.gcK I))
  d = need c div ppp c
  tp≤ : tp s ≤ d
  tp≤ = div-ge (tp s) (need c) (ppp c) (NeedsT.ppp≥1 V)
          (≤-trans (m≤m+n _ (buf s)) (≡≤ (sym (InvT.prq I))
            (≤-trans (m≤m+n _ (pend s)) (≤-trans (InvT.prb I) y≤))))


-- **Two streams with (3) as for one**: for every configuration that
-- passes the code's constraints with t = 2 but (3) with t = 1, and in
-- which both streams have an epoch to place, every reachable state of
-- the two-stream machine makes progress.
one3 : SpaceModel2
one3 = record { Ok = λ c → Valid2₃₁ c × 1 ≤ W c × 1 ≤ K c * N c }

space-progress-2-one3 : SpaceProgress2 one3
space-progress-2-one3 c (V , w1 , kn1) r = progressT (needsT V w1 kn1) (reach-invT (needsT V w1 kn1) r)

neededT : SpaceModel2
neededT = record { Ok = NeedsT }

space-progress-needsT : SpaceProgress2 neededT
space-progress-needsT c V r = progressT V (reach-invT V r)
