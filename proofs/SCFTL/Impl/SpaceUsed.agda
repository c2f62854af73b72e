{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward the data superblocks in the one model: finite sums,
-- the list of the used superblocks' valid counts, and the shapes of
-- Space's three writes on it.
--
-- Space (and its data half, SCFTL.Impl.SpaceData) keeps the valid counts
-- of the used superblocks as a list `vs`; a write over a sector of a used
-- superblock takes one off its element (`wrU`: `xs ++ suc x ∷ ys` becomes
-- `xs ++ x ∷ ys`), one over a sector of the open superblock changes no
-- count (`wrA`), one of a new logical sector none of the list (`wrN`,
-- with `sum vs + va < L`).  A model whose counts are a function per block
-- (SCFTL.Impl.SpaceValid: `vc`, from the L2P) gives the list as the
-- counts of the blocks a predicate calls used, highest block first
-- (`usedL`).  Here, for counts that move as a write moves them
-- (`MoveEq`: block k0's loses one, block kn's gains one, every other
-- count kept):
--
--   `wrU-shape` : with k0 used and kn not, the list before and after is
--                 `xs ++ suc x ∷ ys` and `xs ++ x ∷ ys`, and kn's count
--                 grows by one;
--   `wrA-shape` : with k0 = kn, no count changes;
--   `wrN-shape` : with no k0, the list is kept and kn's count grows;
--   `used-sum`  : the list's sum and an unused block's count are within
--                 the counts of all blocks (`tot`), so Space's
--                 `sum vs + va < L` follows from SpaceValid's `vc-sum`.
------------------------------------------------------------------------
module SCFTL.Impl.SpaceUsed where

open import Data.Bool.Base using (Bool; true; false; T; if_then_else_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; sum; length)
open import Data.Nat.Base using (ℕ; zero; suc; _+_; _≤_; _<_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties
  using (≤-refl; ≤-trans; <-irrefl; n<1+n; ≤-step; ≤∧≢⇒<; +-assoc; +-comm; +-mono-≤; +-monoʳ-≤; ≤-reflexive;
         m≤n+m; m≤m+n; ≤-pred; ≡ᵇ⇒≡; ≡⇒≡ᵇ; +-cancelˡ-≡; suc-injective; +-identityʳ)
  renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Unit.Base using (tt)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

------------------------------------------------------------------------
-- Finite sums

b2n : Bool → ℕ
b2n true  = 1
b2n false = 0

-- tot h n = h 0 + ... + h (n - 1)
tot : (ℕ → ℕ) → ℕ → ℕ
tot h zero    = 0
tot h (suc n) = h n + tot h n

tot-ext : ∀ f g n → (∀ a → a < n → f a ≡ g a) → tot f n ≡ tot g n
tot-ext f g zero    h = refl
tot-ext f g (suc n) h = cong₂ _+_ (h n (n<1+n n)) (tot-ext f g n (λ a lt → h a (≤-step lt)))

tot-0 : ∀ n → tot (λ _ → 0) n ≡ 0
tot-0 zero    = refl
tot-0 (suc n) = tot-0 n

tot-+ : ∀ f g n → tot (λ a → f a + g a) n ≡ tot f n + tot g n
tot-+ f g zero    = refl
tot-+ f g (suc n) =
  trans (cong (f n + g n +_) (tot-+ f g n)) (swap4 (f n) (g n) (tot f n) (tot g n))
  where
  swap4 : ∀ a b c d → a + b + (c + d) ≡ a + c + (b + d)
  swap4 a b c d =
    trans (+-assoc a b (c + d))
      (trans (cong (a +_) (trans (sym (+-assoc b c d)) (trans (cong (_+ d) (+-comm b c)) (+-assoc c b d))))
        (sym (+-assoc a c (b + d))))

tot-mono : ∀ f g n → (∀ a → a < n → f a ≤ g a) → tot f n ≤ tot g n
tot-mono f g zero    h = z≤n
tot-mono f g (suc n) h = +-mono-≤ (h n (n<1+n n)) (tot-mono f g n (λ a lt → h a (≤-step lt)))

-- one term is within the sum
tot-≥ : ∀ f n a → a < n → f a ≤ tot f n
tot-≥ f (suc n) a lt with a ≟ℕ n
... | yes refl = m≤m+n (f a) (tot f a)
... | no ne    = ≤-trans (tot-≥ f n a (≤∧≢⇒< (≤-pred lt) ne)) (m≤n+m (tot f n) (f n))

tot-1 : ∀ n → tot (λ _ → 1) n ≡ n
tot-1 zero    = refl
tot-1 (suc n) = cong suc (tot-1 n)

-- the order of a double sum does not matter
tot-swap : ∀ (G : ℕ → ℕ → ℕ) B n → tot (λ k → tot (G k) n) B ≡ tot (λ a → tot (λ k → G k a) B) n
tot-swap G zero    n = sym (tot-0 n)
tot-swap G (suc B) n =
  trans (cong (tot (G B) n +_) (tot-swap G B n)) (sym (tot-+ (G B) (λ a → tot (λ k → G k a) B) n))

-- One term changed: with f and g equal but at x < n,
-- tot g n + f x = tot f n + g x.
tot-upd : ∀ f g x n → x < n → (∀ a → a < n → a ≢ x → f a ≡ g a) → tot g n + f x ≡ tot f n + g x
tot-upd f g x (suc n) lt h with x ≟ℕ n
... | yes refl =
  trans (+-assoc (g x) (tot g x) (f x))
    (trans (cong (g x +_) (trans (cong (_+ f x) (sym rest)) (+-comm (tot f x) (f x))))
      (trans (sym (+-assoc (g x) (f x) (tot f x)))
        (trans (cong (_+ tot f x) (+-comm (g x) (f x))) (trans (+-assoc (f x) (g x) (tot f x))
          (trans (cong (f x +_) (+-comm (g x) (tot f x))) (sym (+-assoc (f x) (tot f x) (g x))))))))
  where
  rest : tot f x ≡ tot g x
  rest = tot-ext f g x (λ a a<x → h a (≤-step a<x) (λ e → <-irrefl e a<x))
... | no x≢n =
  trans (+-assoc (g n) (tot g n) (f x))
    (trans (cong (g n +_) (tot-upd f g x n x<n (λ a a<n → h a (≤-step a<n))))
      (trans (sym (+-assoc (g n) (tot f n) (g x))) (cong (λ z → z + tot f n + g x) (sym (h n (n<1+n n) (λ e → x≢n (sym e)))))))
  where
  x<n : x < n
  x<n = ≤∧≢⇒< (pred≤ lt) x≢n
    where
    pred≤ : ∀ {a b} → suc a ≤ suc b → a ≤ b
    pred≤ (s≤s le) = le


------------------------------------------------------------------------
-- Booleans as 0 and 1

private
  plus0 : ∀ x → x + 0 ≡ x
  plus0 = +-identityʳ

  plus1 : ∀ x → x + 1 ≡ suc x
  plus1 x = +-comm x 1

≡ᵇ-T : ∀ {j k} → (j ≡ᵇ k) ≡ true → j ≡ k
≡ᵇ-T {j} {k} e = ≡ᵇ⇒≡ j k (subst T (sym e) tt)

-- _≡ᵇ_ on equal and on different numbers
≡ᵇ-self : ∀ n → (n ≡ᵇ n) ≡ true
≡ᵇ-self zero    = refl
≡ᵇ-self (suc n) = ≡ᵇ-self n

≡ᵇ-false : ∀ {m n} → m ≢ n → (m ≡ᵇ n) ≡ false
≡ᵇ-false {m} {n} ne with m ≡ᵇ n in e
... | true  = ⊥-elim (ne (≡ᵇ-T e))
... | false = refl

b2n-ne : ∀ j k → j ≢ k → b2n (j ≡ᵇ k) ≡ 0
b2n-ne j k ne with j ≡ᵇ k in e
... | false = refl
... | true  = ⊥-elim (ne (≡ᵇ-T e))

b2n-eq : ∀ j → b2n (j ≡ᵇ j) ≡ 1
b2n-eq j with j ≡ᵇ j in e
... | true  = refl
... | false = ⊥-elim (subst T e (≡⇒≡ᵇ j j refl))

private
  cancel-b : ∀ x y b → x + b2n b ≡ y + b2n b → x ≡ y
  cancel-b x y false e = trans (sym (plus0 x)) (trans e (plus0 y))
  cancel-b x y true  e = suc-injective (trans (sym (plus1 x)) (trans e (plus1 y)))

------------------------------------------------------------------------
-- The used blocks' counts

consIf : Bool → ℕ → List ℕ → List ℕ
consIf true  x l = x ∷ l
consIf false x l = l

-- the counts of the blocks below n that `us` calls used, highest first
usedL : (ℕ → Bool) → (ℕ → ℕ) → ℕ → List ℕ
usedL us v zero    = []
usedL us v (suc n) = consIf (us n) (v n) (usedL us v n)

used-same : ∀ us v v' n → (∀ j → j < n → us j ≡ true → v' j ≡ v j) → usedL us v' n ≡ usedL us v n
used-same us v v' zero    h = refl
used-same us v v' (suc n) h with us n in e
... | true  = cong₂ _∷_ (h n (n<1+n n) e) (used-same us v v' n (λ j lt u → h j (≤-step lt) u))
... | false = used-same us v v' n (λ j lt u → h j (≤-step lt) u)

-- the list has one count per block `us` calls used (thirty-fourth
-- session), so how many does not depend on the counts
used-count : ∀ us (v : ℕ → ℕ) n → length (usedL us v n) ≡ tot (λ k → b2n (us k)) n
used-count us v zero    = refl
used-count us v (suc n) with us n
... | true  = cong suc (used-count us v n)
... | false = used-count us v n

used-len : ∀ us (v v' : ℕ → ℕ) n → length (usedL us v n) ≡ length (usedL us v' n)
used-len us v v' n = trans (used-count us v n) (sym (used-count us v' n))

private
  pred≤ : ∀ {a b} → suc a ≤ suc b → a ≤ b
  pred≤ (s≤s le) = le

-- one used block's count down by one, the other used blocks' kept
used-move : ∀ us v v' k n → k < n → us k ≡ true → v k ≡ suc (v' k) →
            (∀ j → j < n → j ≢ k → us j ≡ true → v' j ≡ v j) →
            Σ (List ℕ) λ xs → Σ ℕ λ x → Σ (List ℕ) λ ys →
            (usedL us v n ≡ xs ++ suc x ∷ ys) × (usedL us v' n ≡ xs ++ x ∷ ys)
used-move us v v' k (suc n) lt uk vk h with k ≟ℕ n
... | yes refl rewrite uk | vk =
  [] , v' k , usedL us v k , refl ,
  cong (v' k ∷_) (used-same us v v' k (λ j j<k u → h j (≤-step j<k) (λ e → <-irrefl e j<k) u))
... | no ne with used-move us v v' k n (≤∧≢⇒< (pred≤ lt) ne) uk vk (λ j l jk u → h j (≤-step l) jk u)
...   | xs , x , ys , e1 , e2 with us n in e
...     | true  = v n ∷ xs , x , ys , cong (v n ∷_) e1 ,
                  cong₂ _∷_ (h n (n<1+n n) (λ x → ne (sym x)) e) e2
...     | false = xs , x , ys , e1 , e2

used-sum-le : ∀ us v n → sum (usedL us v n) ≤ tot v n
used-sum-le us v zero    = z≤n
used-sum-le us v (suc n) with us n
... | true  = +-monoʳ-≤ (v n) (used-sum-le us v n)
... | false = ≤-trans (used-sum-le us v n) (m≤n+m (tot v n) (v n))

-- the used blocks' counts and an unused block's are within all counts
used-sum : ∀ us v n ab → ab < n → us ab ≡ false → sum (usedL us v n) + v ab ≤ tot v n
used-sum us v (suc n) ab lt ua with ab ≟ℕ n
... | yes refl rewrite ua =
  ≤-trans (≤-reflexive (+-comm (sum (usedL us v ab)) (v ab))) (+-monoʳ-≤ (v ab) (used-sum-le us v ab))
... | no ne with us n
...   | true  = ≤-trans (≤-reflexive (+-assoc (v n) (sum (usedL us v n)) (v ab)))
                        (+-monoʳ-≤ (v n) (used-sum us v n ab (≤∧≢⇒< (pred≤ lt) ne) ua))
...   | false = ≤-trans (used-sum us v n ab (≤∧≢⇒< (pred≤ lt) ne) ua) (m≤n+m (tot v n) (v n))

------------------------------------------------------------------------
-- A write's counts, and Space's three writes

-- the counts after a write: block k0's (if `old` names one) loses one,
-- block kn's gains one, every other count is kept
MoveEq : (ℕ → ℕ) → (ℕ → ℕ) → (ℕ → Bool) → ℕ → Set
MoveEq v v' old kn = ∀ j → v' j + b2n (old j) ≡ v j + b2n (kn ≡ᵇ j)

-- over a sector of a used block, written into block kn (not used)
wrU-shape : ∀ us v v' k0 kn n → MoveEq v v' (k0 ≡ᵇ_) kn → k0 < n → us k0 ≡ true → us kn ≡ false →
            (Σ (List ℕ) λ xs → Σ ℕ λ x → Σ (List ℕ) λ ys →
              (usedL us v n ≡ xs ++ suc x ∷ ys) × (usedL us v' n ≡ xs ++ x ∷ ys))
            × v' kn ≡ suc (v kn)
wrU-shape us v v' k0 kn n mv lt u0 un =
  used-move us v v' k0 n lt u0 down kept , up
  where
  k0≢kn : k0 ≢ kn
  k0≢kn refl with trans (sym u0) un
  ... | ()
  down : v k0 ≡ suc (v' k0)
  down = sym (trans (sym (plus1 (v' k0)))
                    (trans (cong (v' k0 +_) (sym (b2n-eq k0)))
                           (trans (mv k0) (trans (cong (v k0 +_) (b2n-ne kn k0 (λ e → k0≢kn (sym e)))) (plus0 (v k0))))))
  kept : ∀ j → j < n → j ≢ k0 → us j ≡ true → v' j ≡ v j
  kept j _ jk uj = trans (sym (plus0 (v' j)))
                     (trans (cong (v' j +_) (sym (b2n-ne k0 j (λ e → jk (sym e)))))
                       (trans (mv j) (trans (cong (v j +_) (b2n-ne kn j jn)) (plus0 (v j)))))
    where
    jn : kn ≢ j
    jn refl with trans (sym uj) un
    ... | ()
  up : v' kn ≡ suc (v kn)
  up = trans (sym (plus0 (v' kn)))
         (trans (cong (v' kn +_) (sym (b2n-ne k0 kn k0≢kn)))
           (trans (mv kn) (trans (cong (v kn +_) (b2n-eq kn)) (plus1 (v kn)))))

-- over a sector of block kn itself: no count changes
wrA-shape : ∀ v v' kn → MoveEq v v' (kn ≡ᵇ_) kn → ∀ j → v' j ≡ v j
wrA-shape v v' kn mv j = cancel-b (v' j) (v j) (kn ≡ᵇ j) (mv j)

-- of a new logical sector: the used counts kept, block kn's grows
wrN-shape : ∀ us v v' kn n → MoveEq v v' (λ _ → false) kn → us kn ≡ false →
            usedL us v' n ≡ usedL us v n × v' kn ≡ suc (v kn)
wrN-shape us v v' kn n mv un =
  used-same us v v' n (λ j _ uj → trans (sym (plus0 (v' j))) (trans (mv j) (trans (cong (v j +_) (b2n-ne kn j (jn j uj))) (plus0 (v j))))) ,
  trans (sym (plus0 (v' kn))) (trans (mv kn) (trans (cong (v kn +_) (b2n-eq kn)) (plus1 (v kn))))
  where
  jn : ∀ j → us j ≡ true → kn ≢ j
  jn j uj refl with trans (sym uj) un
  ... | ()

------------------------------------------------------------------------
-- A block joining or leaving the used ones

used-ext : ∀ us us' v n → (∀ j → j < n → us' j ≡ us j) → usedL us' v n ≡ usedL us v n
used-ext us us' v zero    h = refl
used-ext us us' v (suc n) h rewrite h n (n<1+n n) = cong (consIf (us n) (v n)) (used-ext us us' v n (λ j lt → h j (≤-step lt)))

-- block k becomes used: its count enters the list at its place (Space's
-- `act`, which may put it anywhere)
used-insert : ∀ us us' v k n → k < n → us k ≡ false → us' k ≡ true → (∀ j → j ≢ k → us' j ≡ us j) →
              Σ (List ℕ) λ xs → Σ (List ℕ) λ ys → (usedL us v n ≡ xs ++ ys) × (usedL us' v n ≡ xs ++ v k ∷ ys)
used-insert us us' v k (suc n) lt uk uk' h with k ≟ℕ n
... | yes refl rewrite uk | uk' =
  [] , usedL us v k , refl , cong (v k ∷_) (used-ext us us' v k (λ j j<k → h j (λ e → <-irrefl e j<k)))
... | no ne with used-insert us us' v k n (≤∧≢⇒< (pred≤ lt) ne) uk uk' h
...   | xs , ys , e1 , e2 rewrite h n (λ e → ne (sym e)) with us n
...     | true  = v n ∷ xs , ys , cong (v n ∷_) e1 , cong (v n ∷_) e2
...     | false = xs , ys , e1 , e2

-- block k leaves the used ones (a GC victim): its count leaves the list
used-remove : ∀ us us' v k n → k < n → us k ≡ true → us' k ≡ false → (∀ j → j ≢ k → us' j ≡ us j) →
              Σ (List ℕ) λ xs → Σ (List ℕ) λ ys → (usedL us v n ≡ xs ++ v k ∷ ys) × (usedL us' v n ≡ xs ++ ys)
used-remove us us' v k n lt uk uk' h with used-insert us' us v k n lt uk' uk (λ j ne → sym (h j ne))
... | xs , ys , e1 , e2 = xs , ys , e2 , e1

-- one element leaves a set (f to g at k): its count is one less
tot-flip : ∀ (f g : ℕ → Bool) k n → k < n → f k ≡ true → g k ≡ false →
           (∀ j → j < n → j ≢ k → g j ≡ f j) →
           tot (λ j → b2n (f j)) n ≡ suc (tot (λ j → b2n (g j)) n)
tot-flip f g k n lt fk gk h =
  trans (sym (plus0 (tot F n)))
    (trans (cong (λ z → tot F n + b2n z) (sym gk))
      (trans (sym (tot-upd F G k n lt (λ j jl jk → cong b2n (sym (h j jl jk)))))
        (trans (cong (λ z → tot G n + b2n z) fk) (plus1 (tot G n)))))
  where
  F G : ℕ → ℕ
  F j = b2n (f j)
  G j = b2n (g j)

-- a positive count has a witness
tot-pos : ∀ (f : ℕ → Bool) n → 1 ≤ tot (λ j → b2n (f j)) n → Σ ℕ λ k → k < n × f k ≡ true
tot-pos f (suc n) le with f n in e
... | true  = n , n<1+n n , e
... | false with tot-pos f n le
...   | k , lt , fk = k , ≤-step lt , fk
