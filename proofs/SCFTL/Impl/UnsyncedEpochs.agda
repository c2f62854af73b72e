{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P, first step: recovery over SEVERAL unsynced
-- committed epochs, on P's own delta region (P's `Cell`s, P's digest
-- check `okC`, P's replay `rp`).
--
-- With epoch barriers (docs/FORMAT.md §4.3; flush.rs `epoch_barrier`)
-- the delta region holds, above the part a SYNC made durable (the
-- "proven" epochs: a later page carries the after-sync flag), the
-- committed pages of kind 5 of the barrier epochs since the last SYNC,
-- each with its tentative pages below it, oldest epoch lowest.  Recovery
-- (recovery.rs) must check EVERY such epoch, in order, and stop at the
-- first that fails, dropping it and every later one — not only the
-- newest committed page, as P's `acc` does (sound in P, where everything
-- below the newest committed page was synced before it was programmed).
--
--   lay         the region as a barrier run leaves it: the unsynced epochs
--               (oldest first; each its committed page and its tentative
--               pages, newest first) on top of the proven part
--   accU        recovery's check: each unsynced epoch with P's `okC`
--               (generation, digest `verD`, tentative pages `verT`), in
--               order; the first failure ends it
--   accU-prefix the accepted region is the proven part and a PREFIX of the
--               unsynced epochs (P's counterpart of PB's `rec-prefix`)
--   accU-stop   an epoch that fails hides every later one, verified or not
--   accU-all    if every epoch verifies, the whole region is accepted
--   rp-lay      the replay of a laid-out region is the proven part's,
--               then each epoch's, in order
--   rec-prefixP the replay state recovery ends in is the one at the
--               proven part or at one of the barriers (`rsAt`): never a
--               mix of epochs
--   accU-one    with one unsynced epoch (a flush's commit: P today),
--               `accU` is P's `acc` — the check generalises P's recovery
--   accU-agrees when every epoch verifies, `accU` and P's `acc` accept
--               the same region
--   accU-ok, okC-sound, verD-sound
--               every accepted epoch passed `okC` at its place: a
--               committed page of the generation whose digest's data
--               entries all hold on the data pages
--
-- This is the recovery side only; P has no barrier step yet (see
-- proofs/README.md, "Epoch barriers", "What is not proven").  The
-- concrete run `SCFTL.Impl.UnsyncedEpochsExample` shows P's newest-only
-- `acc` returning a mix on a barrier region, where `accU` does not.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedEpochs (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc)
import Data.Nat.Base
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
import Data.Bool.Base
open import Data.List.Base using (List; []; _∷_; _++_; take)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Product using (Σ; _×_; _,_; proj₁)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_

------------------------------------------------------------------------
-- The region with unsynced barrier epochs

-- an unsynced epoch on the region: its committed page (kind 5) and its
-- tentative pages (newest first, right below it)
UEp : Set
UEp = Cell × List Cell

-- the region (newest page first) with the epochs (oldest first) on top
-- of the proven part pr
lay : List UEp → List Cell → List Cell
lay []              pr = pr
lay ((c , ts) ∷ es) pr = lay es (c ∷ ts ++ pr)

------------------------------------------------------------------------
-- Recovery's check: each unsynced epoch in order, stop at the first
-- failure.  `pr` is what is accepted so far (the proven part, then every
-- epoch that verified); each committed page is checked exactly as P's
-- `acc` checks it at its place in the region (`okC` with the pages below).

accU : ℕ → (ℕ → Cell) → List Cell → List UEp → List Cell
accB : ℕ → (ℕ → Cell) → List Cell → Cell → List Cell → List UEp → Bool → List Cell
accU g D pr []              = pr
accU g D pr ((c , ts) ∷ es) = accB g D pr c ts es (okC g D c (ts ++ pr))
accB g D pr c ts es true    = accU g D (c ∷ ts ++ pr) es
accB g D pr c ts es false   = pr      -- first failure: it and every later epoch dropped

-- the accepted region is the proven part and a prefix of the epochs
accU-prefix : ∀ g D pr es → Σ ℕ λ k → accU g D pr es ≡ lay (take k es) pr
accU-prefix g D pr []              = 0 , refl
accU-prefix g D pr ((c , ts) ∷ es) = go (okC g D c (ts ++ pr))
  where
    go : ∀ b → Σ ℕ λ k → accB g D pr c ts es b ≡ lay (take k ((c , ts) ∷ es)) pr
    go true  with accU-prefix g D (c ∷ ts ++ pr) es
    ... | k , e = suc k , e
    go false = 0 , refl

-- a failing epoch hides every later one
accU-stop : ∀ g D pr c ts → okC g D c (ts ++ pr) ≡ false →
            ∀ es → accU g D pr ((c , ts) ∷ es) ≡ pr
accU-stop g D pr c ts e es = cong (accB g D pr c ts es) e

-- every epoch verifies (each at its place)
AllOk : ℕ → (ℕ → Cell) → List Cell → List UEp → Set
AllOk g D pr []              = ⊤
AllOk g D pr ((c , ts) ∷ es) = okC g D c (ts ++ pr) ≡ true × AllOk g D (c ∷ ts ++ pr) es

accU-all : ∀ g D pr es → AllOk g D pr es → accU g D pr es ≡ lay es pr
accU-all g D pr []              _        = refl
accU-all g D pr ((c , ts) ∷ es) (e , ok) =
  trans (cong (accB g D pr c ts es) e) (accU-all g D (c ∷ ts ++ pr) es ok)

------------------------------------------------------------------------
-- Replay: the region's replay is the proven part's, then each epoch's

rp-++ : ∀ g xs ys mt → rp g (xs ++ ys) mt ≡ rp g xs (rp g ys mt)
rp-++ g []       ys mt = refl
rp-++ g (x ∷ xs) ys mt = cong (rstep g x) (rp-++ g xs ys mt)

-- the epochs replayed in order (oldest first)
rpE : ℕ → List UEp → RS → RS
rpE g []              mt = mt
rpE g ((c , ts) ∷ es) mt = rpE g es (rp g (c ∷ ts) mt)

rp-lay : ∀ g es pr mt → rp g (lay es pr) mt ≡ rpE g es (rp g pr mt)
rp-lay g []              pr mt = refl
rp-lay g ((c , ts) ∷ es) pr mt =
  trans (rp-lay g es (c ∷ ts ++ pr) mt)
        (cong (rpE g es) (cong (rstep g c) (rp-++ g ts pr mt)))

-- the replay states at the proven part and at each barrier, in order:
-- the images a crash may return (SB's `stable ∷ pend`)
rsAt : ℕ → List UEp → RS → List RS
rsAt g []              mt = mt ∷ []
rsAt g ((c , ts) ∷ es) mt = mt ∷ rsAt g es (rp g (c ∷ ts) mt)

rpE-take : ∀ g k es mt → rpE g (take k es) mt ∈ rsAt g es mt
rpE-take g zero    []                mt = here refl
rpE-take g zero    (_ ∷ _)           mt = here refl
rpE-take g (suc k) []                mt = here refl
rpE-take g (suc k) ((c , ts) ∷ es)   mt = there (rpE-take g k es (rp g (c ∷ ts) mt))

-- recovery ends in the state at the proven part or at one barrier
rec-prefixP : ∀ g D pr es mt → rp g (accU g D pr es) mt ∈ rsAt g es (rp g pr mt)
rec-prefixP g D pr es mt with accU-prefix g D pr es
... | k , e = subst (λ r → rp g r mt ∈ rsAt g es (rp g pr mt)) (sym e)
                    (subst (λ x → x ∈ rsAt g es (rp g pr mt)) (sym (rp-lay g (take k es) pr mt))
                           (rpE-take g k es (rp g pr mt)))

-- in particular the recovered (committed) L2P is one of theirs
rec-mapP : ∀ g D pr es mt →
           Any (λ r → proj₁ (rp g (accU g D pr es) mt) ≡ proj₁ r) (rsAt g es (rp g pr mt))
rec-mapP g D pr es mt = go (rec-prefixP g D pr es mt)
  where
    go : ∀ {x rs} → x ∈ rs → Any (λ r → proj₁ x ≡ proj₁ r) rs
    go (here e)  = here (cong proj₁ e)
    go (there a) = there (go a)

------------------------------------------------------------------------
-- With one unsynced epoch, `accU` is P's `acc`

-- a page that is no committed page (a tentative delta page, say)
NotC : ℕ → (ℕ → Cell) → Cell → Set
NotC g D t = ∀ cs → okC g D t cs ≡ false

acc-false : ∀ g D c cs → okC g D c cs ≡ false → acc g D (c ∷ cs) ≡ acc g D cs
acc-false g D c cs e = cong (λ b → if b then c ∷ cs else acc g D cs) e

acc-skip : ∀ g D ts pr → All (NotC g D) ts → acc g D (ts ++ pr) ≡ acc g D pr
acc-skip g D []       pr []         = refl
acc-skip g D (t ∷ ts) pr (nt ∷ nts) =
  trans (acc-false g D t (ts ++ pr) (nt (ts ++ pr))) (acc-skip g D ts pr nts)

accU-one : ∀ g D pr c ts → acc g D pr ≡ pr → All (NotC g D) ts →
           accU g D pr ((c , ts) ∷ []) ≡ acc g D (lay ((c , ts) ∷ []) pr)
accU-one g D pr c ts ok nts = go (okC g D c (ts ++ pr)) refl
  where
    sel : Bool → List Cell
    sel b = if b then c ∷ ts ++ pr else acc g D (ts ++ pr)
    go : ∀ b → okC g D c (ts ++ pr) ≡ b →
         accU g D pr ((c , ts) ∷ []) ≡ acc g D (c ∷ ts ++ pr)
    go true  e = trans (cong (accB g D pr c ts []) e) (sym (cong sel e))
    go false e = trans (cong (accB g D pr c ts []) e)
                       (sym (trans (cong sel e) (trans (acc-skip g D ts pr nts) ok)))

------------------------------------------------------------------------
-- What an accepted epoch guarantees about the data pages: every epoch
-- accU accepts passed okC at its place, so each data entry of its digest
-- holds on the data pages D (`verD-sound`)

accU-ok : ∀ g D pr es → Σ ℕ λ k → accU g D pr es ≡ lay (take k es) pr × AllOk g D pr (take k es)
accU-ok g D pr []              = 0 , refl , tt
accU-ok g D pr ((c , ts) ∷ es) = go (okC g D c (ts ++ pr)) refl
  where
    go : ∀ b → okC g D c (ts ++ pr) ≡ b →
         Σ ℕ λ k → accB g D pr c ts es b ≡ lay (take k ((c , ts) ∷ es)) pr × AllOk g D pr (take k ((c , ts) ∷ es))
    go true e with accU-ok g D (c ∷ ts ++ pr) es
    ... | k , r , ok = suc k , r , e , ok
    go false _ = 0 , refl , tt

∧-fst : ∀ a b → (a Data.Bool.Base.∧ b) ≡ true → a ≡ true
∧-fst true  b e = refl
∧-fst false b ()

∧-snd : ∀ a b → (a Data.Bool.Base.∧ b) ≡ true → b ≡ true
∧-snd true  b e = e
∧-snd false b ()

-- a digest that verifies: every page it names holds its sector
verD-sound : ∀ D dd → verD D dd ≡ true → All (λ { (p , d , a) → holds (D p) d a ≡ true }) dd
verD-sound D []                 v = []
verD-sound D ((p , d , a) ∷ xs) v = ∧-fst (holds (D p) d a) _ v ∷ verD-sound D xs (∧-snd (holds (D p) d a) _ v)

-- a committed page that passes okC: of generation g, its digest verifies
okC-sound : ∀ g D c cs → okC g D c cs ≡ true →
            Σ ℕ λ h → Σ ℕ λ x → Σ (List (ℕ × ℕ)) λ ps → Σ (List (ℕ × Data × ℕ)) λ dd →
            Σ (List (List (ℕ × ℕ))) λ dt → Σ ℕ λ L →
            c ≡ dlt h x ps true (dd , dt , L) × All (λ { (p , d , a) → holds (D p) d a ≡ true }) dd
okC-sound g D (dlt h x ps true (dd , dt , L)) cs v =
  h , x , ps , dd , dt , L , refl , verD-sound D dd (∧-fst (verD D dd) _ (∧-snd (h Data.Nat.Base.≡ᵇ g) _ v))
okC-sound g D (dlt h x ps false _) cs ()
okC-sound g D erased cs ()
okC-sound g D junk cs ()
okC-sound g D (dcell _ _) cs ()
okC-sound g D (cpt _ _) cs ()

------------------------------------------------------------------------
-- When every unsynced epoch verifies (nothing lost), P's `acc` accepts
-- the same region: the in-order check changes recovery only on a crash
-- that loses part of an epoch below the newest one that verifies.

acc-lay : ∀ g D pr c ts es → AllOk g D pr ((c , ts) ∷ es) →
          acc g D (lay ((c , ts) ∷ es) pr) ≡ lay ((c , ts) ∷ es) pr
acc-lay g D pr c ts []                 (e , _)  = cong (λ b → if b then c ∷ ts ++ pr else acc g D (ts ++ pr)) e
acc-lay g D pr c ts ((c2 , ts2) ∷ es) (_ , ok) = acc-lay g D (c ∷ ts ++ pr) c2 ts2 es ok

accU-agrees : ∀ g D pr c ts es → AllOk g D pr ((c , ts) ∷ es) →
              accU g D pr ((c , ts) ∷ es) ≡ acc g D (lay ((c , ts) ∷ es) pr)
accU-agrees g D pr c ts es ok = trans (accU-all g D pr ((c , ts) ∷ es) ok) (sym (acc-lay g D pr c ts es ok))
