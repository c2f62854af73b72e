{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P, third step: the unsynced epochs' region pages
-- after a CRASH.  The epochs a run of barriers wrote (each as P writes an
-- epoch: its tentative pages `dlt g x ps false ε`, newest first, and its
-- committed page `dlt g x ps true (dd , pss , L)` whose digest lists
-- exactly those tentative pages' pairs) are on the region unsynced; a
-- crash leaves each such page as written, erased (its old content: the
-- region's pages are fresh) or junk (P's `CrashC` of `uns erased c`).
-- Whatever the crash left, and whatever the data pages hold:
--
--   crash-prefix      recovery's in-order check (`accU`) replays the
--                     proven part and a PREFIX of the epochs AS WRITTEN
--                     (`rpE` of `take k` of them): a page it accepts is
--                     the page the run wrote, or replays as it
--   crash-rec-prefix  so it ends in the replay state (the committed L2P)
--                     at the proven part or at one barrier of the run
--                     (`rsAt` of the epochs as written): never a mix
--
-- This is the L2P level of formula (4) for a crashed barrier: which of
-- SB's candidates the recovered map is.  That the pages it maps hold the
-- data (the `verD` part, the invariants) is not proven here.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedEpochsCrash (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                      (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≡ᵇ_)
open import Data.Bool.Base using (Bool; true; false; _∧_)
open import Data.List.Base using (List; []; _∷_; _++_; take; map)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_

------------------------------------------------------------------------
-- Epochs as P writes them

-- an epoch: its id, the committed page's pairs, the digest's data
-- entries, the tentative pages' pairs (newest first), the link
E : Set
E = ℕ × List (ℕ × ℕ) × List (ℕ × Data × ℕ) × List (List (ℕ × ℕ)) × ℕ

tents : ℕ → ℕ → List (List (ℕ × ℕ)) → List Cell
tents g x []         = []
tents g x (ps ∷ pss) = dlt g x ps false ε ∷ tents g x pss

ue : ℕ → E → UEp
ue g (x , ps , dd , pss , L) = dlt g x ps true (dd , pss , L) , tents g x pss

-- a region page after a crash: as written, erased (old) or junk
CrashR : Cell → Cell → Set
CrashR c c' = c' ≡ c ⊎ c' ≡ erased ⊎ c' ≡ junk

data CrashRs : List Cell → List Cell → Set where
  []  : CrashRs [] []
  _∷_ : ∀ {c c' cs cs'} → CrashR c c' → CrashRs cs cs' → CrashRs (c ∷ cs) (c' ∷ cs')

-- the epochs after a crash
data CrashEs (g : ℕ) : List E → List UEp → Set where
  []  : CrashEs g [] []
  _∷_ : ∀ {e es c' ts' es'} →
        CrashR (proj₁ (ue g e)) c' × CrashRs (proj₂ (ue g e)) ts' →
        CrashEs g es es' → CrashEs g (e ∷ es) ((c' , ts') ∷ es')

------------------------------------------------------------------------
-- An accepted epoch replays as written

∧-r : ∀ a b → a ∧ b ≡ true → b ≡ true
∧-r true  b e = e
∧-r false b ()

contra : ∀ {A : Set} → false ≡ true → A
contra ()

-- tentative pages that pass verT are the pages written
verT-tents : ∀ g x pss ts' rest → CrashRs (tents g x pss) ts' →
             verT g x pss (ts' ++ rest) ≡ true →
             ∀ st → rp g ts' st ≡ rp g (tents g x pss) st
verT-tents g x []         []         rest []         v st = refl
verT-tents g x (ps ∷ pss) (t' ∷ ts') rest (cr ∷ crs) v st with cr
... | inj₁ refl = cong (rstep g t') (verT-tents g x pss ts' rest crs (∧-r (isT g x ps t') (verT g x pss (ts' ++ rest)) v) st)
... | inj₂ (inj₁ refl) = contra v
... | inj₂ (inj₂ refl) = contra v

-- a committed page that passes okC is the page written, with its tentative pages
acc-epoch : ∀ g D e c' ts' rest → CrashR (proj₁ (ue g e)) c' →
            CrashRs (proj₂ (ue g e)) ts' →
            okC g D c' (ts' ++ rest) ≡ true →
            ∀ st → rp g (c' ∷ ts') st ≡ rp g (proj₁ (ue g e) ∷ proj₂ (ue g e)) st
acc-epoch g D (x , ps , dd , pss , L) c' ts' rest (inj₁ refl) crs ok st =
  cong (rstep g c')
       (verT-tents g x pss ts' rest crs
          (∧-r (verD D dd) _ (∧-r (g ≡ᵇ g) _ ok)) st)
acc-epoch g D (x , ps , dd , pss , L) c' ts' rest (inj₂ (inj₁ refl)) crs () st
acc-epoch g D (x , ps , dd , pss , L) c' ts' rest (inj₂ (inj₂ refl)) crs () st

------------------------------------------------------------------------
-- Recovery after a crash replays a prefix of the epochs as written

crash-go : ∀ g D es es' pr pr' → CrashEs g es es' →
           (∀ mt → rp g pr' mt ≡ rp g pr mt) →
           ∀ mt → Σ ℕ λ k → rp g (accU g D pr' es') mt ≡ rpE g (take k (map (ue g) es)) (rp g pr mt)
crash-go g D [] [] pr pr' [] h mt = 0 , h mt
crash-go g D (e ∷ es) ((c' , ts') ∷ es') pr pr' ((cr , crs) ∷ ces) h mt =
  go (okC g D c' (ts' ++ pr')) refl
  where
    c  = proj₁ (ue g e)
    ts = proj₂ (ue g e)
    go : ∀ b → okC g D c' (ts' ++ pr') ≡ b →
         Σ ℕ λ k → rp g (accB g D pr' c' ts' es' b) mt ≡ rpE g (take k (map (ue g) (e ∷ es))) (rp g pr mt)
    go false _ = 0 , h mt
    go true  e′ with crash-go g D es es' (c ∷ ts ++ pr) (c' ∷ ts' ++ pr') ces h′ mt
      where
        h′ : ∀ mt′ → rp g (c' ∷ ts' ++ pr') mt′ ≡ rp g (c ∷ ts ++ pr) mt′
        h′ mt′ = trans (rp-++ g (c' ∷ ts') pr' mt′)
                 (trans (acc-epoch g D e c' ts' pr' cr crs e′ (rp g pr' mt′))
                 (trans (cong (rp g (c ∷ ts)) (h mt′))
                        (sym (rp-++ g (c ∷ ts) pr mt′))))
    ... | k , r = suc k , trans r (cong (rpE g (take k (map (ue g) es))) (rp-++ g (c ∷ ts) pr mt))

crash-prefix : ∀ g D pr es es' mt → CrashEs g es es' →
               Σ ℕ λ k → rp g (accU g D pr es') mt ≡ rpE g (take k (map (ue g) es)) (rp g pr mt)
crash-prefix g D pr es es' mt ces = crash-go g D es es' pr pr ces (λ _ → refl) mt

crash-rec-prefix : ∀ g D pr es es' mt → CrashEs g es es' →
                   rp g (accU g D pr es') mt ∈ rsAt g (map (ue g) es) (rp g pr mt)
crash-rec-prefix g D pr es es' mt ces with crash-prefix g D pr es es' mt ces
... | k , e = subst (λ r → r ∈ rsAt g (map (ue g) es) (rp g pr mt)) (sym e)
                    (rpE-take g k (map (ue g) es) (rp g pr mt))
