{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the epoch chain is not vacuous — concrete runs evaluated by
-- Agda (Data = Bool, d0 = false, amax = 1, wmax = 2, umax = 3).
--
--   two barriers, then a crash:
--     everything landed                    → the image at the 2nd barrier
--     epoch 2's data page lost             → the image at the 1st barrier
--     epoch 1's committed page lost        → the durable image (epoch 2,
--                                            though intact, is dropped)
--   three unsynced epochs: the 4th barrier cannot skip the SYNC
--   (`forced`), and with it the image is durable (`forced-durable`).
------------------------------------------------------------------------
module SCFTL.Impl.EpochChainExample where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (_×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.EpochChain Bool false 1 2 3 _≟B_

s0 s1 s2 s3 s4 : St
s0 = st (λ _ → false) [] [] 0
s1 = wr 0 true s0
s2 = barU s1                 -- epoch 1: [0 ↦ true]
s3 = wr 1 true s2
s4 = barU s3                 -- epoch 2: [1 ↦ true]

-- the steps are P's
steps : okB (use (reg (op (w 0 true)))) s0 s1 × okB (use (reg barrier)) s1 s2
      × okB (use (reg (op (w 1 true)))) s2 s3 × okB (use (reg barrier)) s3 s4
steps = inj₁ ((z≤n , z≤n) , refl) , inj₁ (s≤s z≤n , refl)
      , inj₁ ((s≤s z≤n , z≤n) , refl) , inj₁ (s≤s (s≤s z≤n) , refl)

e1 e2 : Ep
e1 = commit ((0 , true) ∷ [])
e2 = commit ((1 , true) ∷ [])

-- crash outcomes of s4 (the crash of a later write)
all-landed page2-lost commit1-lost : St
all-landed   = st (base s4) (e1 ∷ e2 ∷ []) [] 0
page2-lost   = st (base s4) (e1 ∷ ep (nothing ∷ []) (just ((1 , true) ∷ [])) ∷ []) [] 0
commit1-lost = st (base s4) (ep (just (0 , true) ∷ []) nothing ∷ e2 ∷ []) [] 0

outcomes : Img s4 all-landed × Img s4 page2-lost × Img s4 commit1-lost
outcomes = (refl , (inj₁ refl ∷ (inj₁ refl ∷ [])) , refl)
         , (refl , (inj₁ refl ∷ (inj₁ refl ∷ [])) , refl)
         , (refl , (inj₂ refl ∷ (inj₁ refl ∷ [])) , refl)

-- what recovery reads (at every address)
recovers-barrier-2 : ∀ a → read (recS all-landed) a ≡ read s3 a
recovers-barrier-2 a = refl

recovers-barrier-1 : ∀ a → read (recS page2-lost) a ≡ read s1 a
recovers-barrier-1 a = refl

recovers-durable : ∀ a → read (recS commit1-lost) a ≡ read s0 a
recovers-durable a = refl

-- ... and they differ where they should
differ : read (recS all-landed) 1 ≡ true × read (recS page2-lost) 1 ≡ false
       × read (recS page2-lost) 0 ≡ true × read (recS commit1-lost) 0 ≡ false
differ = refl , refl , refl , refl

-- MAX_UNSYNCED_EPOCHS: a third barrier is still unsynced, the fourth syncs
s5 s6 : St
s5 = barU s4                 -- epoch 3 (empty)
s6 = syncF s5

third : okB (use (reg barrier)) s4 s5
third = inj₁ (s≤s (s≤s (s≤s z≤n)) , refl)

forced : ¬ (Data.List.Base.length (eps s5) < 3)
forced (s≤s (s≤s (s≤s ())))

forced-durable : okB (use (reg barrier)) s5 s6 × eps s6 ≡ [] × (∀ a → base s6 a ≡ read s3 a)
forced-durable = inj₂ (s≤s (s≤s (s≤s z≤n)) , refl) , refl , λ a → refl

------------------------------------------------------------------------
-- Why every unsynced epoch must be checked: a recovery that checks only
-- the newest committed page (as P's `acc` does, where every older
-- committed page is proven) and applies the older unsynced epochs'
-- pages unchecked returns, from `page1-lost` (epoch 1's data page
-- lost, both committed pages and epoch 2's page landed), an image that
-- is none of the allowed ones: a mix.

recNewest : Arr → List Ep → Arr
recNewest b [] = b
recNewest b (e ∷ []) with chk e
... | just xs = apply b xs
... | nothing = b
recNewest b (e ∷ es@(_ ∷ _)) = recNewest (apply b (secs (pg e))) es   -- taken as proven

page1-lost : St
page1-lost = st (base s4) (ep (nothing ∷ []) (just ((0 , true) ∷ [])) ∷ e2 ∷ []) [] 0

page1-lost-outcome : Img s4 page1-lost
page1-lost-outcome = refl , (inj₁ refl ∷ (inj₁ refl ∷ [])) , refl

open import Data.List.Relation.Unary.Any using (here; there)
open import Relation.Binary.PropositionalEquality using (cong-app)

newest-only-mixes : ¬ (recNewest (base page1-lost) (eps page1-lost) ∈ cands page1-lost)
newest-only-mixes (here e) with cong-app e 1
... | ()
newest-only-mixes (there (here e)) with cong-app e 1
... | ()
newest-only-mixes (there (there (here e))) with cong-app e 0
... | ()

-- P's recovery (every epoch checked, in order) stops at epoch 1
checked-in-order : ∀ a → read (recS page1-lost) a ≡ read s0 a
checked-in-order a = refl
