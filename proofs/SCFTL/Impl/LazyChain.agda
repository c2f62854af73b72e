{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy consolidation page: a chain of in-page/OOB commit
-- records before one consolidation page (docs/FORMAT.md §4.8–4.9,
-- crates/ftl/src/scftl/flush.rs `note_chain_commit`, delta.rs
-- `backlog`, recovery.rs `follow_chain`, `apply_chain`, `MAX_CHAIN`).
--
-- P (SCFTL.Impl.Model) writes the consolidation page right after each
-- in-page/OOB commit's SYNC, so its recovery follows one link (`extM`,
-- `chn`).  The code writes it lazily: each record's link continues the
-- chain, up to MAX_CHAIN records, and recovery follows the chain from the
-- newest accepted region page's link, applying each record of the
-- generation with the next epoch id whose digest verifies, in order,
-- stopping at the first that fails.  This module models that walk on
-- P's own cells (`seek`, `okR`, `lkOf`, `extM`) and proves, for the
-- chain as written (`LayP`: each record found by the walk from the
-- previous record's link, with the next epoch id, nothing of the
-- generation past the last link):
--
--   * `follow-lay`: recovery's walk returns the longest prefix of the
--     chain whose records verify (`pre`), for any data pages and any
--     bound K (`pre-prefix`: a prefix `take j`);
--   * `crash-last`, `crash-chain`: a crash while the next record is
--     being written (its record slot old, junk or new, the rest of the
--     chain durable) recovers the chain up to the last SYNC'd record or
--     up to the crashed one, nothing else;
--   * `kons-replay`, `chain-kons`: the consolidation page holding every
--     backlog record's pairs (newest first) replays to the same L2P as
--     the chain of records;
--   * `follow-one`, `chnL-one`: with K = 1 the walk is P's `extM`/`chn`.
--
-- Not a step of P: P's flush still writes the consolidation page at
-- once (`fiK`, `fi4`); no Theorem 1 for the lazy protocol.  See
-- proofs/README.md, "What is abstracted", item 6 (i).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChain (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                            (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; _≡ᵇ_; _≤ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; ≤-trans; <⇒≤; <-transˡ; <-transʳ; ≤-reflexive; <-irrefl; n≤1+n)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.List.Base using (List; []; _∷_; _++_; take; length)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; cong₂)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (seek-none; seek-at; okR-lt; stp-lt; upd-here; upd-other; apply-++; rp-++)
open import SCFTL.Spec Data d0 amax wmax using (Addr)

------------------------------------------------------------------------
-- Recovery's walk along the chain (recovery.rs `follow_chain`)

-- `follow k g R D l`: from link l (epoch id of the commit that made it,
-- page), at most k records (MAX_CHAIN): the walk `seek` to the next
-- record slot holding a record of the generation, which is taken if it
-- is the next epoch's committed record whose digest verifies (`extM`,
-- P's one step), and the walk goes on from *its* link; the first that
-- fails ends the chain.  Newest first, as the region is.
follow : ℕ → ℕ → (ℕ → Cell) → (ℕ → Cell) → Maybe (ℕ × ℕ) → List Cell
fol    : ℕ → ℕ → (ℕ → Cell) → (ℕ → Cell) → List Cell → List Cell
follow zero    g R D l = []
follow (suc k) g R D l = fol k g R D (extM g R D l)
fol k g R D []       = []
fol k g R D (c ∷ cs) = follow k g R D (lkOf (c ∷ cs)) ++ (c ∷ cs)

-- what recovery replays: the chain's records over the accepted region
chnL : ℕ → ℕ → (ℕ → Cell) → (ℕ → Cell) → List Cell → List Cell
chnL k g R D cs = follow k g R D (lkOf cs) ++ cs

++-[] : ∀ (xs : List Cell) → xs ++ [] ≡ xs
++-[] []       = refl
++-[] (x ∷ xs) = cong (x ∷_) (++-[] xs)

-- one link (K = 1) is P's walk
follow-one : ∀ g R D l → follow 1 g R D l ≡ extM g R D l
follow-one g R D l with extM g R D l
... | []     = refl
... | c ∷ cs = refl

chnL-one : ∀ g R D cs → chnL 1 g R D cs ≡ chn g R D cs
chnL-one g R D cs = cong (_++ cs) (follow-one g R D (lkOf cs))

------------------------------------------------------------------------
-- The chain as written

-- a committed record of generation g, epoch id y, with link L
rc : ℕ → ℕ → List (Addr × ℕ) → List (ℕ × Data × Addr) → List (List (Addr × ℕ)) → ℕ → Cell
rc g y ps dd dt L = dlt g y ps true (dd , dt , L)

-- `LayP g R x L rs y E`: following link L of epoch x, the records rs
-- (oldest first) lie where the walk finds them, each with the next
-- epoch id and its own page below its link; the last has epoch id y and
-- link E (rs = []: y = x, E = L).
data LayP (g : ℕ) (R : ℕ → Cell) : ℕ → ℕ → List Cell → ℕ → ℕ → Set where
  end  : ∀ {x L} → LayP g R x L [] x L
  rec∷ : ∀ {x L q ps dd dt L' rs y E} →
         seek g omax R L ≡ just q → R q ≡ rc g (suc x) ps dd dt L' → q < L' →
         LayP g R (suc x) L' rs y E →
         LayP g R x L (rc g (suc x) ps dd dt L' ∷ rs) y E

-- the longest prefix of the chain (at most k records) whose records
-- verify, each with the next epoch id
pre : ℕ → (ℕ → Cell) → ℕ → ℕ → List Cell → List Cell
pre g D zero    x rs       = []
pre g D (suc k) x []       = []
pre g D (suc k) x (c ∷ rs) = if okR g (suc x) D c then c ∷ pre g D k (suc x) rs else []

-- reverse (newest first)
rv : List Cell → List Cell
rv []       = []
rv (c ∷ cs) = rv cs ++ (c ∷ [])

pre-prefix : ∀ g D k x rs → Σ ℕ λ j → pre g D k x rs ≡ take j rs
pre-prefix g D zero    x rs       = 0 , refl
pre-prefix g D (suc k) x []       = 0 , refl
pre-prefix g D (suc k) x (c ∷ rs) with okR g (suc x) D c
... | false = 0 , refl
... | true  = let (j , e) = pre-prefix g D k (suc x) rs in suc j , cong (c ∷_) e

-- The walk returns the verified prefix, for any data pages and any bound.
-- (the walk's step over a laid-out record, stated once: `ext-rec`; the
-- accepted / rejected cases by `fl-step`, without `rewrite` or `with`
-- over the walk)
ext-rec : ∀ g R D x L q (C : Cell) → seek g omax R L ≡ just q → R q ≡ C →
          extM g R D (just (x , L)) ≡ (if okR g (suc x) D C then C ∷ [] else [])
ext-rec g R D x L q C sk eq =
  trans (cong (extS g R D x) sk) (cong (λ c → if okR g (suc x) D c then c ∷ [] else []) eq)

follow-lay : ∀ {g R x L rs y E} k D → LayP g R x L rs y E → Above g R E →
             follow k g R D (just (x , L)) ≡ rv (pre g D k x rs)
fl-step : ∀ {g R x L' rs y E ps dd dt} k D → LayP g R (suc x) L' rs y E → Above g R E → (b : Bool) →
          fol k g R D (if b then rc g (suc x) ps dd dt L' ∷ [] else []) ≡
            rv (if b then rc g (suc x) ps dd dt L' ∷ pre g D k (suc x) rs else [])
follow-lay zero    D _ ab = refl
follow-lay {g} {R} {x} {L} (suc k) D end ab =
  cong (λ m → fol k g R D (extS g R D x m)) (seek-none g omax R L ab)
follow-lay {g} {R} {x} {L} (suc k) D (rec∷ {q = q} {ps} {dd} {dt} {L'} sk eq lt lay) ab =
  trans (cong (fol k g R D) (ext-rec g R D x L q (rc g (suc x) ps dd dt L') sk eq))
        (fl-step {ps = ps} {dd} {dt} k D lay ab (okR g (suc x) D (rc g (suc x) ps dd dt L')))
fl-step k D lay ab false = refl
fl-step {g} {R} {x} {L'} {ps = ps} {dd} {dt} k D lay ab true =
  cong (_++ (rc g (suc x) ps dd dt L' ∷ [])) (follow-lay k D lay ab)

------------------------------------------------------------------------
-- Every record verifies: the whole chain (within the bound)

data Ver (g : ℕ) (D : ℕ → Cell) : ℕ → List Cell → Set where
  []  : ∀ {x} → Ver g D x []
  _∷_ : ∀ {x c rs} → okR g (suc x) D c ≡ true → Ver g D (suc x) rs → Ver g D x (c ∷ rs)

pre-all : ∀ g D k x rs → Ver g D x rs → length rs ≤ k → pre g D k x rs ≡ rs
pre-all g D zero    x []       v        le = refl
pre-all g D (suc k) x []       v        le = refl
pre-all g D (suc k) x (c ∷ rs) (o ∷ v) (s≤s le) rewrite o = cong (c ∷_) (pre-all g D k (suc x) rs v le)

-- with the chain verified, one record more: it is taken or not
pre-snoc : ∀ g D k x rs c → Ver g D x rs → length rs < k →
           pre g D k x (rs ++ c ∷ []) ≡ rs ⊎ pre g D k x (rs ++ c ∷ []) ≡ rs ++ c ∷ []
pre-snoc g D (suc k) x [] c [] le with okR g (suc x) D c
... | false = inj₁ refl
... | true  = inj₂ (cong (c ∷_) (pre0 k))
  where pre0 : ∀ k → pre g D k (suc x) [] ≡ []
        pre0 zero    = refl
        pre0 (suc k) = refl
pre-snoc g D (suc k) x (r ∷ rs) c (o ∷ v) (s≤s le) rewrite o with pre-snoc g D k (suc x) rs c v le
... | inj₁ e = inj₁ (cong (r ∷_) e)
... | inj₂ e = inj₂ (cong (r ∷_) e)

------------------------------------------------------------------------
-- A crash while the next record is written

seek-step : ∀ g n R p → stp g (R p) ≡ false → seek g (suc n) R p ≡ seek g n R (suc p)
seek-step g n R p e rewrite e = refl

seek-ge : ∀ g n R p {q} → seek g n R p ≡ just q → p ≤ q
seek-ge g zero    R p ()
seek-ge g (suc n) R p {q} e with stp g (R p) in es
... | true  = ≤-reflexive (just-inj e)
  where just-inj : ∀ {a b : ℕ} → just a ≡ just b → a ≡ b
        just-inj refl = refl
... | false = <⇒≤ (seek-ge g n R (suc p) e)

-- the walk reads only the pages up to the one it finds
seek-agree : ∀ g n R R' p q → seek g n R p ≡ just q →
             (∀ r → p ≤ r → r ≤ q → R r ≡ R' r) → seek g n R' p ≡ just q
seek-agree g zero    R R' p q () f
seek-agree g (suc n) R R' p q e f with stp g (R p) in es
... | true with e
...   | refl rewrite sym (f p ≤-refl ≤-refl) | es = refl
seek-agree g (suc n) R R' p q e f | false rewrite sym (f p ≤-refl (<⇒≤ (seek-ge g n R (suc p) e))) | es =
  seek-agree g n R R' (suc p) q e (λ r le le' → f r (<⇒≤ le) le')

lay-le : ∀ {g R x L rs y E} → LayP g R x L rs y E → L ≤ E
lay-le end                 = ≤-refl
lay-le {g} {R} (rec∷ {L = L} sk eq lt lay) = ≤-trans (<⇒≤ (<-transʳ (seek-ge g omax R L sk) lt)) (lay-le lay)

-- the chain's layout depends only on the pages below its last link
lay-agree : ∀ {g R R' x L rs y E} → LayP g R x L rs y E → (∀ p → p < E → R p ≡ R' p) → LayP g R' x L rs y E
lay-agree end f = end
lay-agree {g} {R} {R'} (rec∷ {L = L} {q = q} sk eq lt lay) f =
  rec∷ (seek-agree g omax R R' L q sk (λ r _ le → f r (<-transʳ le (<-transˡ lt (lay-le lay)))))
       (trans (sym (f q (<-transˡ lt (lay-le lay)))) eq) lt (lay-agree lay f)

lay-snoc : ∀ {g R x L rs y E q ps dd dt L'} → LayP g R x L rs y E →
           seek g omax R E ≡ just q → R q ≡ rc g (suc y) ps dd dt L' → q < L' →
           LayP g R x L (rs ++ rc g (suc y) ps dd dt L' ∷ []) (suc y) L'
lay-snoc end sk eq lt = rec∷ sk eq lt end
lay-snoc (rec∷ sk₀ eq₀ lt₀ lay) sk eq lt = rec∷ sk₀ eq₀ lt₀ (lay-snoc lay sk eq lt)

≤ᵇ-refl : ∀ n → (n ≤ᵇ n) ≡ true
≤ᵇ-refl n = T-≡ (Data.Nat.Properties.≤⇒≤ᵇ (≤-refl {n}))
  where T-≡ : ∀ {b} → Data.Bool.Base.T b → b ≡ true
        T-≡ {true} _ = refl

-- `crash-last`: the chain rs is durable (nothing of the generation past
-- its last link E: `Above`), the next record c is being written into
-- the record slot of page q (E ≤ q < E + omax, q below c's link); R' is
-- the record slots afterwards: as before but at q, which a crash leaves
-- old (no record of the generation: `RLt`), junk (also `RLt`) or c.
-- Recovery's walk then returns the verified prefix of rs or of rs
-- followed by c.  Without a crash (R' q = c), the chain is rs followed
-- by c, nothing past c's link (`lay-new`): the lazy commit's step.
module _ {g : ℕ} {R : ℕ → Cell} {x L : ℕ} {rs : List Cell} {y E q : ℕ}
         {ps : List (Addr × ℕ)} {dd : List (ℕ × Data × Addr)} {dt : List (List (Addr × ℕ))} {L' : ℕ}
         (lay : LayP g R x L rs y E) (ab : Above g R E) (le : E ≤ q) (lt : q < E + omax) (ql : q < L')
         {R' : ℕ → Cell} (oth : ∀ p → p ≢ q → R' p ≡ R p) where

  c : Cell
  c = rc g (suc y) ps dd dt L'

  private
    below : ∀ p → p < E → R p ≡ R' p
    below p pe = sym (oth p (λ { refl → <-irrefl refl (<-transˡ pe le) }))

  lay-old : RLt g (R' q) → LayP g R' x L rs y E × Above g R' E
  lay-old old = lay-agree lay below , ab'
    where
      ab' : Above g R' E
      ab' p ep with p Data.Nat.Properties.≟ q
      ... | Relation.Nullary.yes refl = old
      ... | Relation.Nullary.no ne rewrite oth p ne = ab p ep

  lay-new : R' q ≡ c → LayP g R' x L (rs ++ c ∷ []) (suc y) L' × Above g R' L'
  lay-new new = lay-snoc (lay-agree lay below) sk new ql , ab'
    where
      sk : seek g omax R' E ≡ just q
      sk = seek-at g omax R' E q le lt
             (λ p ep ne → Relation.Binary.PropositionalEquality.subst (RLt g) (sym (oth p ne)) (ab p ep))
             (trans (cong (stp g) new) (≤ᵇ-refl g))
      ab' : Above g R' L'
      ab' p lp = Relation.Binary.PropositionalEquality.subst (RLt g)
                   (sym (oth p (λ { refl → <-irrefl refl (≤-trans ql lp) })))
                   (ab p (≤-trans le (≤-trans (n≤1+n q) (≤-trans ql lp))))

  crash-last : ∀ k D → RLt g (R' q) ⊎ R' q ≡ c →
               follow k g R' D (just (x , L)) ≡ rv (pre g D k x rs)
             ⊎ follow k g R' D (just (x , L)) ≡ rv (pre g D k x (rs ++ c ∷ []))
  crash-last k D (inj₁ old) = let (l , a) = lay-old old in inj₁ (follow-lay k D l a)
  crash-last k D (inj₂ new) = let (l , a) = lay-new new in inj₂ (follow-lay k D l a)

  -- with every durable record verifying (they were SYNC'd before the
  -- next one was written) and the chain below the bound K: recovery
  -- takes exactly the records up to the last SYNC, or the crashed one too
  crash-chain : ∀ k D → RLt g (R' q) ⊎ R' q ≡ c → Ver g D x rs → length rs < k →
                follow k g R' D (just (x , L)) ≡ rv rs
              ⊎ follow k g R' D (just (x , L)) ≡ rv (rs ++ c ∷ [])
  crash-chain k D o v lk with crash-last k D o
  ... | inj₁ e = inj₁ (trans e (cong rv (pre-all g D k x rs v (<⇒≤ lk))))
  ... | inj₂ e with pre-snoc g D k x rs c v lk
  ...   | inj₁ e' = inj₁ (trans e (cong rv e'))
  ...   | inj₂ e' = inj₂ (trans e (cong rv e'))

------------------------------------------------------------------------
-- The consolidation page (kind 7): every backlog record's pairs

-- committed records of generation g
data Recs (g : ℕ) : List Cell → Set where
  []  : Recs g []
  _∷_ : ∀ {y ps dg cs} → ⊤ → Recs g cs → Recs g (dlt g y ps true dg ∷ cs)

pairsOf : Cell → List (Addr × ℕ)
pairsOf (dlt _ _ ps _ _) = ps
pairsOf _                = []

-- the pairs of a backlog, newest first (delta.rs: the consolidation
-- page holds every backlog record's pairs)
cpairs : List Cell → List (Addr × ℕ)
cpairs []       = []
cpairs (c ∷ cs) = pairsOf c ++ cpairs cs

-- the consolidation page for a backlog: one committed page
kons : ℕ → ℕ → Dg → List Cell → Cell
kons g y dg cs = dlt g y (cpairs cs) true dg

eqb-refl : ∀ n → (n ≡ᵇ n) ≡ true
eqb-refl zero    = refl
eqb-refl (suc n) = eqb-refl n

-- a committed record of the generation over a state with nothing pending
rstep-c : ∀ g y ps dg M w → rstep g (dlt g y ps true dg) (M , w , M) ≡ (apply ps M , y , apply ps M)
rstep-c g y ps dg M w rewrite eqb-refl g with y ≡ᵇ w
... | true  = refl
... | false = refl

-- replaying committed records of the generation over a state with
-- nothing pending (the replay's state after a committed page, or st0)
rp-recs : ∀ {g cs} M z → Recs g cs →
          Σ ℕ λ w → rp g cs (M , z , M) ≡ (apply (cpairs cs) M , w , apply (cpairs cs) M)
rp-recs M z [] = z , refl
rp-recs {g} M z (_∷_ {y} {ps} {dg} {cs} _ r) with rp-recs M z r
... | w , e rewrite e | rstep-c g y ps dg (apply (cpairs cs) M) w =
  y , cong (λ m → m , y , m) (sym (apply-++ ps (cpairs cs) M))

-- the consolidation page replays to the same committed L2P as the
-- backlog's records, on any region whose replay ends with nothing pending
kons-replay : ∀ g y dg cs base st M z → Recs g cs → rp g base st ≡ (M , z , M) →
              proj₁ (rp g (kons g y dg cs ∷ base) st) ≡ proj₁ (rp g (cs ++ base) st)
kons-replay g y dg cs base st M z r e with rp-recs M z r
... | w , e' rewrite rp-++ g cs base st | e | e' | rstep-c g y (cpairs cs) dg M z = refl

------------------------------------------------------------------------
-- The lazy chain's two mechanisms, abstractly: recovery's walk along the
-- chain and the pairs of the consolidation page for a backlog.  The
-- mutants of this layer (issue 39; proofs/check.sh,
-- MUTANTS_OF_LAZY_CHAIN) change one of them and refute `ChainSound`.

record ChainModel : Set where
  field
    walk : ℕ → ℕ → (ℕ → Cell) → (ℕ → Cell) → Maybe (ℕ × ℕ) → List Cell
    kp   : List Cell → List (Addr × ℕ)

open ChainModel public

-- what the proofs above give the code: for every chain as written and
-- any data pages, the walk returns a prefix of the chain (newest first);
-- the consolidation page of a backlog replays as its records do
ChainSound : ChainModel → Set
ChainSound m =
    (∀ {g R x L rs y E} k D → LayP g R x L rs y E → Above g R E →
       Σ ℕ λ j → walk m k g R D (just (x , L)) ≡ rv (take j rs))
  × (∀ {g cs} y dg M z → Recs g cs →
       proj₁ (rstep g (dlt g y (kp m cs) true dg) (M , z , M)) ≡ proj₁ (rp g cs (M , z , M)))

code : ChainModel
code = record { walk = follow ; kp = cpairs }

chain-sound : ChainSound code
chain-sound = (λ {g} {R} {x} {L} {rs} k D lay ab →
                 let (j , e) = pre-prefix g D k x rs in j , trans (follow-lay k D lay ab) (cong rv e))
            , kons-ok
  where
    kons-ok : ∀ {g cs} y dg M z → Recs g cs →
              proj₁ (rstep g (dlt g y (cpairs cs) true dg) (M , z , M)) ≡ proj₁ (rp g cs (M , z , M))
    kons-ok {g} {cs} y dg M z r with rp-recs M z r
    ... | w , e rewrite e | rstep-c g y (cpairs cs) dg M z = refl

------------------------------------------------------------------------
-- Recovery's L2P: the region's last commit, then a prefix of the chain

lay-recs : ∀ {g R x L rs y E} → LayP g R x L rs y E → Recs g rs
lay-recs end              = []
lay-recs (rec∷ _ _ _ lay) = tt ∷ lay-recs lay

recs-pre : ∀ {g} D k x rs → Recs g rs → Recs g (pre g D k x rs)
recs-pre D zero    x rs       r       = []
recs-pre D (suc k) x []       r       = []
recs-pre {g} D (suc k) x (c ∷ rs) (t ∷ r) with okR g (suc x) D c
... | false = []
... | true  = t ∷ recs-pre D k (suc x) rs r

recs-++ : ∀ {g xs ys} → Recs g xs → Recs g ys → Recs g (xs ++ ys)
recs-++ []      r = r
recs-++ (t ∷ q) r = t ∷ recs-++ q r

recs-rv : ∀ {g xs} → Recs g xs → Recs g (rv xs)
recs-rv []      = []
recs-rv (t ∷ r) = recs-++ (recs-rv r) (t ∷ [])

-- the replay of the accepted region ends with nothing pending
acc-top : ∀ g D cs C → Σ Map λ M → Σ ℕ λ z → rp g (acc g D cs) (st0 C) ≡ (M , z , M)
acc-top g D []       C = C , 0 , refl
acc-top g D (c ∷ cs) C with okC g D c cs in e
... | false = acc-top g D cs C
... | true  = top c e
  where
    top : ∀ c → okC g D c cs ≡ true → Σ Map λ M → Σ ℕ λ z → rp g (c ∷ cs) (st0 C) ≡ (M , z , M)
    top (dlt h x ps true (dd , dt , L)) e' with h ≡ᵇ g
    ... | true  = _ , x , refl
    ... | false with e'
    ...   | ()
    top (dlt h x ps false dg) ()
    top erased ()
    top junk ()
    top (dcell _ _) ()
    top (cpt _ _) ()

-- `chain-replay`: recovery's replay with the chain (`chnL`) ends in the
-- region's L2P M with the pairs of a verified prefix of the chain on top
chain-replay : ∀ {g R x L rs y E} k D cs st M z → LayP g R x L rs y E → Above g R E →
               lkOf cs ≡ just (x , L) → rp g cs st ≡ (M , z , M) →
               proj₁ (rp g (chnL k g R D cs) st) ≡ apply (cpairs (rv (pre g D k x rs))) M
chain-replay {g} {R} {x} {L} {rs} k D cs st M z lay ab lk e
  with rp-recs M z (recs-rv (recs-pre D k x rs (lay-recs lay)))
... | w , e' rewrite lk | rp-++ g (follow k g R D (just (x , L))) cs st | e
                   | follow-lay k D lay ab | e' = refl

-- the same, as a prefix `take j`: recovery's L2P is the state after
-- some prefix of the chain (and after the region's last commit)
chain-prefix : ∀ {g R x L rs y E} k D cs st M z → LayP g R x L rs y E → Above g R E →
               lkOf cs ≡ just (x , L) → rp g cs st ≡ (M , z , M) →
               Σ ℕ λ j → proj₁ (rp g (chnL k g R D cs) st) ≡ apply (cpairs (rv (take j rs))) M
chain-prefix {g} {R} {x} {L} {rs} k D cs st M z lay ab lk e with pre-prefix g D k x rs
... | j , ej = j , trans (chain-replay k D cs st M z lay ab lk e) (cong (λ t → apply (cpairs (rv t)) M) ej)

-- `kons-chain`: once the consolidation page of the whole backlog is on
-- the region (programmed before the next region page), the region alone
-- replays to what recovery's walk over the chain gave (every record
-- verifying, the chain within the bound K)
kons-chain : ∀ {g R x L rs y E} k D cs st M z y' dg → LayP g R x L rs y E → Above g R E →
             lkOf cs ≡ just (x , L) → rp g cs st ≡ (M , z , M) → Ver g D x rs → length rs ≤ k →
             proj₁ (rp g (kons g y' dg (rv rs) ∷ cs) st) ≡ proj₁ (rp g (chnL k g R D cs) st)
kons-chain {g} {R} {x} {L} {rs} k D cs st M z y' dg lay ab lk e v le
  rewrite kons-replay g y' dg (rv rs) cs st M z (recs-rv (lay-recs lay)) e
        | chain-replay k D cs st M z lay ab lk e | pre-all g D k x rs v le
        | rp-++ g (rv rs) cs st | e with rp-recs M z (recs-rv (lay-recs lay))
... | w , e' rewrite e' = refl
