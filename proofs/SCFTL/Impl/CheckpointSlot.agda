{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the full checkpoint's slot as the code writes it — several
-- L2P pages and a commit record (docs/FORMAT.md §4.4, §4.5;
-- crates/ftl/src/scftl/checkpoint.rs `write`, `read_l2p`,
-- `load_newest`) — and the proof that P's one-cell slot (`cpO`, `ck1`,
-- `CrashC`) is a sound abstraction of it; plus metadata rotation.
--
-- The slot.  n+1 L2P pages (`l2pP gen index entries`) and one commit
-- record (`recP gen binds`), each a metadata page with P's crash
-- outcomes (old / new / junk).  What the record's CRC-of-CRCs binds is
-- modelled as the exact entries of every page (no collisions, as P's
-- digests); each page's own CRC, kind, generation and index as the
-- page being exactly `l2pP g i (ch i)`.  How the L2P is cut into pages
-- is a parameter (`split`, `join`, `join-split`).
--
-- The code's protocol (checkpoint.rs `write`): erase the slot's pages
-- and its record, SYNC; program the L2P pages, SYNC; program the record,
-- SYNC (commit point).  `Reach g C s0 ph s`: s is the slot after any
-- prefix of any run of that protocol — erases and page programs in any
-- order and any subset, each SYNC only once its batch is complete.
--
-- The parse (`Valid`): a slot counts only if its record is valid, and
-- every page it names is an L2P page of the record's generation with
-- the index and the entries the record binds (`read_l2p`).
--
-- `refines`: every crash outcome of every reachable slot parses to what
-- one of P's crash outcomes of the single cell `uns c0 (cpt g C)` (ck1)
-- abstracts: the cell before (c0), the new checkpoint, or junk (no
-- checkpoint in the slot) — so P's one-cell slot, and P's theorems,
-- cover the code's slot.  `refines-one-sync`: the same holds without the
-- SYNC between the pages and the record (a finding: the parse, which
-- verifies every page, makes that SYNC unnecessary for consistency).
-- `Sound`: the proof uses only that the parse rejects an erased or junk
-- record or page, depends on contents only, and accepts the complete new
-- slot; so the weakest such parse (`ValidMin`: no generation or index
-- on the pages, nothing bound by the record's CRC) refines too
-- (`refines-min`, `refines-min-one-sync`), and so does every parse in
-- between (`refines-between`).  `code-ck1-crash`, `pick-code`: the link
-- to P's `ck1` crash point and to P's `pick`.
--
-- Rotation (`Newest`, `newest-rotation`, `rotated-pick`): recovery's
-- rule is "among all places that hold a committed checkpoint, the one
-- of the highest generation" (`load_newest` with `scan`); it depends
-- only on which checkpoints are found, not where, so a slot that moves
-- to another place is the same cell for P; and P's `pick` over its two
-- slots is that rule on two places.
--
-- `SlotModel`, `SlotAbstraction`: both results in one statement, which
-- a mutant of the slot (SCFTL/Mutants/CheckpointPagesUnverified, mutant
-- 18) refutes for its parse; a rule that reads fixed places fails
-- rotation invariance (CheckpointSlotExample, `fixed-places-not-invariant`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ; _≤_)
open import Data.Fin.Base using (Fin)
open import Data.Maybe.Base using (Maybe)
open import Relation.Binary.Definitions using (DecidableEquality)
open import Relation.Binary.PropositionalEquality using (_≡_)

module SCFTL.Impl.CheckpointSlot
  (Data : Set) (d0 : Data) (amax wmax kmax : ℕ) (_≟D_ : DecidableEquality Data)
  -- geometry of a checkpoint: n+1 L2P pages of entries Ch
  (n : ℕ) (Ch : Set)
  (split : (ℕ → Maybe ℕ) → Fin (ℕ.suc n) → Ch)
  (join  : (Fin (ℕ.suc n) → Ch) → ℕ → Maybe ℕ)
  (join-split : ∀ C a → a ≤ amax → join (split C) a ≡ C a)
  where

open import Data.Nat.Base using (zero; suc; _≤ᵇ_)
open import Data.Nat.Properties using (≤-refl; ≤ᵇ⇒≤; ≤⇒≤ᵇ; ≰⇒≥)
open import Data.Fin.Base using () renaming (zero to fz; suc to fs)
open import Data.Fin.Properties using () renaming (_≟_ to _≟F_)
open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Data.Empty using (⊥; ⊥-elim)
open import Relation.Nullary using (¬_; Dec; yes; no)
open import Relation.Binary.PropositionalEquality using (refl; sym; trans; cong; subst)

import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ as P
open P using (Map)

Fn : Set
Fn = Fin (suc n)

------------------------------------------------------------------------
-- Pages of a slot

data MCell : Set where
  erased junk : MCell
  l2pP : ℕ → Fn → Ch → MCell            -- L2P page (kind 3): generation, index, entries
  recP : ℕ → (Fn → Ch) → MCell          -- commit record (kind 4): generation, what its CRC binds

-- A page with its sync status, as P's `MC`.
data Pg : Set where
  syn : MCell → Pg
  uns : MCell → MCell → Pg

cur dur : Pg → MCell
cur (syn c)   = c
cur (uns _ m) = m
dur (syn c)   = c
dur (uns o _) = o

put : MCell → Pg → Pg
put c m = uns (dur m) c

sync : Pg → Pg
sync m = syn (cur m)

-- Crash outcome of a metadata page: P's `CrashC`.
CrashM : Pg → MCell → Set
CrashM (syn c)   c' = c' ≡ c
CrashM (uns o m) c' = c' ≡ o ⊎ c' ≡ m ⊎ c' ≡ junk

record Slot : Set where
  constructor slot
  field
    pg : Fn → Pg        -- L2P pages 0 .. n
    rc : Pg             -- the commit record (slot page n+1)
open Slot

-- What a slot holds after a crash.
record Img : Set where
  constructor img
  field
    ip : Fn → MCell
    ir : MCell
open Img

CrashS : Slot → Img → Set
CrashS s o = (∀ i → CrashM (pg s i) (ip o i)) × CrashM (rc s) (ir o)

-- A durable slot holding an image.
durS : Img → Slot
durS o = slot (λ i → syn (ip o i)) (syn (ir o))

------------------------------------------------------------------------
-- The checkpoint's flash commands on the slot

data Cmd : Set where
  erP : Fn → Cmd        -- erase L2P page i
  erR : Cmd             -- erase the record
  prP : Fn → Cmd        -- program L2P page i of the new checkpoint
  prR : Cmd             -- program the commit record
  SYNC : Cmd

sel : {A B : Set} → Dec B → A → A → A
sel (yes _) a b = a
sel (no _)  a b = b

upd : (Fn → Pg) → Fn → Pg → Fn → Pg
upd f i x j = sel (j ≟F i) x (f j)

newPg : ℕ → Map → Fn → MCell
newPg g C i = l2pP g i (split C i)

newRc : ℕ → Map → MCell
newRc g C = recP g (split C)

-- g: the new checkpoint's generation, C: its L2P.
exec : ℕ → Map → Cmd → Slot → Slot
exec g C (erP i) s = record s { pg = upd (pg s) i (put erased (pg s i)) }
exec g C erR     s = record s { rc = put erased (rc s) }
exec g C (prP i) s = record s { pg = upd (pg s) i (put (newPg g C i) (pg s i)) }
exec g C prR     s = record s { rc = put (newRc g C) (rc s) }
exec g C SYNC    s = slot (λ i → sync (pg s i)) (sync (rc s))

data Phase : Set where
  erasing programming recording done : Phase

-- Every prefix of every run of the code's protocol from slot s0
-- (checkpoint.rs `write`): erases of the slot's pages and record in any
-- order; their SYNC once all are erased; programs of the L2P pages in
-- any order; their SYNC once all are programmed; the record; its SYNC.
data Reach (g : ℕ) (C : Map) (s0 : Slot) : Phase → Slot → Set where
  start  : Reach g C s0 erasing s0
  e-pg   : ∀ {s} i → Reach g C s0 erasing s → Reach g C s0 erasing (exec g C (erP i) s)
  e-rc   : ∀ {s} → Reach g C s0 erasing s → Reach g C s0 erasing (exec g C erR s)
  e-sync : ∀ {s} → Reach g C s0 erasing s
         → (∀ i → cur (pg s i) ≡ erased) → cur (rc s) ≡ erased
         → Reach g C s0 programming (exec g C SYNC s)
  p-pg   : ∀ {s} i → Reach g C s0 programming s → Reach g C s0 programming (exec g C (prP i) s)
  p-sync : ∀ {s} → Reach g C s0 programming s
         → (∀ i → cur (pg s i) ≡ newPg g C i)
         → Reach g C s0 recording (exec g C SYNC s)
  r-rc   : ∀ {s} → Reach g C s0 recording s → Reach g C s0 recording (exec g C prR s)
  r-sync : ∀ {s} → Reach g C s0 recording s → cur (rc s) ≡ newRc g C
         → Reach g C s0 done (exec g C SYNC s)

------------------------------------------------------------------------
-- Recovery's parse of a slot (checkpoint.rs `read_commit_at`, `read_l2p`)

-- The slot holds a committed checkpoint of generation g whose L2P reads
-- as C (on every address a ≤ amax).
Valid : Img → ℕ → Map → Set
Valid o g C = Σ (Fn → Ch) λ ch → ir o ≡ recP g ch × (∀ i → ip o i ≡ l2pP g i (ch i))
                               × (∀ a → a ≤ amax → join ch a ≡ C a)

-- The statements, for any parse V.
-- A cell that holds no checkpoint.
NotCpt : P.Cell → Set
NotCpt c = ∀ g C → ¬ c ≡ P.cpt g C

module Statement (V : Img → ℕ → Map → Set) where

  NoParse : Img → Set
  NoParse o = ∀ g C → ¬ V o g C

  -- The slot's image stands for P's cell c: the checkpoint it parses
  -- to, or, when it parses to none, any cell that holds no checkpoint
  -- (erased, junk: P's `pick` treats them alike).
  Abs : Img → P.Cell → Set
  Abs o c = (Σ ℕ λ g → Σ Map λ C → c ≡ P.cpt g C × V o g C) ⊎ (NotCpt c × NoParse o)

  -- Every crash outcome of every prefix of the protocol, from a durable
  -- slot that stands for c0, stands for a crash outcome of P's one cell
  -- `uns c0 (cpt g C)` (P's `ck1` on the shadow slot).
  Refines : Set
  Refines = ∀ {o0 c0 g C ph s o} → Abs o0 c0 → Reach g C (durS o0) ph s → CrashS s o
          → Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × Abs o c

open Statement

------------------------------------------------------------------------
-- Phase invariants

OldOrErasing : Pg → MCell → Set
OldOrErasing m c = m ≡ syn c ⊎ m ≡ uns c erased

ErasedOrNew : Pg → MCell → Set
ErasedOrNew m c = m ≡ syn erased ⊎ m ≡ uns erased c

Inv : ℕ → Map → Img → Phase → Slot → Set
Inv g C o0 erasing     s = (∀ i → OldOrErasing (pg s i) (ip o0 i)) × OldOrErasing (rc s) (ir o0)
Inv g C o0 programming s = (∀ i → ErasedOrNew (pg s i) (newPg g C i)) × rc s ≡ syn erased
Inv g C o0 recording   s = (∀ i → pg s i ≡ syn (newPg g C i)) × ErasedOrNew (rc s) (newRc g C)
Inv g C o0 done        s = (∀ i → pg s i ≡ syn (newPg g C i)) × rc s ≡ syn (newRc g C)

upd-all : (Q : Fn → Pg → Set) (f : Fn → Pg) (i : Fn) (x : Pg)
        → (∀ j → Q j (f j)) → Q i x → ∀ j → Q j (upd f i x j)
upd-all Q f i x hf hx j with j ≟F i
... | yes refl = hx
... | no _     = hf j

erase-OE : ∀ {m c} → OldOrErasing m c → OldOrErasing (put erased m) c
erase-OE (inj₁ refl) = inj₂ refl
erase-OE (inj₂ refl) = inj₂ refl

prog-EN : ∀ {m c} → ErasedOrNew m c → ErasedOrNew (put c m) c
prog-EN (inj₁ refl) = inj₂ refl
prog-EN (inj₂ refl) = inj₂ refl

reach-inv : ∀ {g C o0 ph s} → Reach g C (durS o0) ph s → Inv g C o0 ph s
reach-inv start = (λ i → inj₁ refl) , inj₁ refl
reach-inv {o0 = o0} (e-pg i r) with reach-inv r
... | hp , hr = upd-all (λ j m → OldOrErasing m (ip o0 j)) _ i _ hp (erase-OE (hp i)) , hr
reach-inv (e-rc r) with reach-inv r
... | hp , hr = hp , erase-OE hr
reach-inv (e-sync r ep er) = (λ i → inj₁ (cong syn (ep i))) , cong syn er
reach-inv {g} {C} (p-pg i r) with reach-inv r
... | hp , hr = upd-all (λ j m → ErasedOrNew m (newPg g C j)) _ i _ hp (prog-EN (hp i)) , hr
reach-inv (p-sync r ep) with reach-inv r
... | hp , hr = (λ i → cong syn (ep i)) , inj₁ (cong sync hr)
reach-inv (r-rc r) with reach-inv r
... | hp , hr = hp , prog-EN hr
reach-inv (r-sync r er) with reach-inv r
... | hp , hr = (λ i → cong sync (hp i)) , cong syn er

------------------------------------------------------------------------
-- Crash outcomes of each phase, and the parse

-- All pages old, or one that is not.
all-or-one : ∀ {m} {A B : Fin m → Set} → (∀ i → A i ⊎ B i) → (∀ i → A i) ⊎ Σ (Fin m) B
all-or-one {zero}  f = inj₁ (λ ())
all-or-one {suc m} f with f fz | all-or-one (λ i → f (fs i))
... | inj₂ b | _            = inj₂ (fz , b)
... | inj₁ a | inj₂ (i , b) = inj₂ (fs i , b)
... | inj₁ a | inj₁ as      = inj₁ λ { fz → a ; (fs i) → as i }

Bad : MCell → Set
Bad c = c ≡ erased ⊎ c ≡ junk

private
  e≢p : ∀ {g i c} → erased ≡ l2pP g i c → ⊥
  e≢p ()
  j≢p : ∀ {g i c} → junk ≡ l2pP g i c → ⊥
  j≢p ()
  e≢r : ∀ {g ch} → erased ≡ recP g ch → ⊥
  e≢r ()
  j≢r : ∀ {g ch} → junk ≡ recP g ch → ⊥
  j≢r ()

-- A page that is erased or junk is no L2P page; a record likewise.
bad-page : ∀ {o g C} i → Bad (ip o i) → ¬ Valid o g C
bad-page i (inj₁ x) (ch , er , ep , _) = e≢p (trans (sym x) (ep i))
bad-page i (inj₂ x) (ch , er , ep , _) = j≢p (trans (sym x) (ep i))

bad-rec : ∀ {o g C} → Bad (ir o) → ¬ Valid o g C
bad-rec (inj₁ x) (ch , er , _) = e≢r (trans (sym x) er)
bad-rec (inj₂ x) (ch , er , _) = j≢r (trans (sym x) er)

_≐_ : Img → Img → Set
o ≐ o' = (∀ i → ip o i ≡ ip o' i) × ir o ≡ ir o'

Valid-≐ : ∀ {o o' g C} → o ≐ o' → Valid o g C → Valid o' g C
Valid-≐ (ep , er) (ch , r , p , j) = ch , trans (sym er) r , (λ i → trans (sym (ep i)) (p i)) , j

≐-sym : ∀ {o o'} → o ≐ o' → o' ≐ o
≐-sym (ep , er) = (λ i → sym (ep i)) , sym er

------------------------------------------------------------------------
-- Finding: the SYNC between the L2P pages and the record is not needed
-- for the abstraction.  The same protocol with the pages and the
-- record programmed in one batch (any order), then one SYNC.

data Reach1 (g : ℕ) (C : Map) (s0 : Slot) : Phase → Slot → Set where
  start  : Reach1 g C s0 erasing s0
  e-pg   : ∀ {s} i → Reach1 g C s0 erasing s → Reach1 g C s0 erasing (exec g C (erP i) s)
  e-rc   : ∀ {s} → Reach1 g C s0 erasing s → Reach1 g C s0 erasing (exec g C erR s)
  e-sync : ∀ {s} → Reach1 g C s0 erasing s
         → (∀ i → cur (pg s i) ≡ erased) → cur (rc s) ≡ erased
         → Reach1 g C s0 programming (exec g C SYNC s)
  p-pg   : ∀ {s} i → Reach1 g C s0 programming s → Reach1 g C s0 programming (exec g C (prP i) s)
  p-rc   : ∀ {s} → Reach1 g C s0 programming s → Reach1 g C s0 programming (exec g C prR s)
  p-sync : ∀ {s} → Reach1 g C s0 programming s
         → (∀ i → cur (pg s i) ≡ newPg g C i) → cur (rc s) ≡ newRc g C
         → Reach1 g C s0 done (exec g C SYNC s)

Inv1 : ℕ → Map → Img → Phase → Slot → Set
Inv1 g C o0 programming s = (∀ i → ErasedOrNew (pg s i) (newPg g C i)) × ErasedOrNew (rc s) (newRc g C)
Inv1 g C o0 ph          s = Inv g C o0 ph s

reach1-inv : ∀ {g C o0 ph s} → Reach1 g C (durS o0) ph s → Inv1 g C o0 ph s
reach1-inv start = (λ i → inj₁ refl) , inj₁ refl
reach1-inv {o0 = o0} (e-pg i r) with reach1-inv r
... | hp , hr = upd-all (λ j m → OldOrErasing m (ip o0 j)) _ i _ hp (erase-OE (hp i)) , hr
reach1-inv (e-rc r) with reach1-inv r
... | hp , hr = hp , erase-OE hr
reach1-inv (e-sync r ep er) = (λ i → inj₁ (cong syn (ep i))) , inj₁ (cong syn er)
reach1-inv {g} {C} (p-pg i r) with reach1-inv r
... | hp , hr = upd-all (λ j m → ErasedOrNew m (newPg g C j)) _ i _ hp (prog-EN (hp i)) , hr
reach1-inv (p-rc r) with reach1-inv r
... | hp , hr = hp , prog-EN hr
reach1-inv (p-sync r ep er) = (λ i → cong syn (ep i)) , cong syn er


------------------------------------------------------------------------
-- The proof, for any parse with the four properties it uses: a record
-- or a page that is erased or junk is rejected (`V-rec`, `V-page`: the
-- CRCs), the parse depends only on the pages' contents (`V-resp`), and
-- the complete new slot is accepted (`V-new`).

module Sound (V : Img → ℕ → Map → Set)
  (V-rec  : ∀ {o g C} → Bad (ir o) → ¬ V o g C)
  (V-page : ∀ {o g C} i → Bad (ip o i) → ¬ V o g C)
  (V-resp : ∀ {o o' g C} → o ≐ o' → V o g C → V o' g C)
  (V-new  : ∀ {g C o} → (∀ i → ip o i ≡ newPg g C i) → ir o ≡ newRc g C → V o g C)
  where

  Abs-≐ : ∀ {o o' c} → o ≐ o' → Abs V o c → Abs V o' c
  Abs-≐ e (inj₁ (g , C , ec , v)) = inj₁ (g , C , ec , V-resp e v)
  Abs-≐ e (inj₂ (ec , np))        = inj₂ (ec , λ g C v → np g C (V-resp (≐-sym e) v))

  Out : P.Cell → ℕ → Map → Img → Set
  Out c0 g C o = Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × Abs V o c

  junk-out : ∀ {c0 g C o} → NoParse V o → Out c0 g C o
  junk-out np = P.junk , inj₂ (inj₂ refl) , inj₂ ((λ g C ()) , np)

  new-out : ∀ {c0 g C o} → V o g C → Out c0 g C o
  new-out {g = g} {C} v = P.cpt g C , inj₂ (inj₁ refl) , inj₁ (g , C , refl , v)

  -- An erasing page's outcome: old, or bad.
  oe-out : ∀ {m c c'} → OldOrErasing m c → CrashM m c' → c' ≡ c ⊎ Bad c'
  oe-out (inj₁ refl) e               = inj₁ e
  oe-out (inj₂ refl) (inj₁ e)        = inj₁ e
  oe-out (inj₂ refl) (inj₂ (inj₁ e)) = inj₂ (inj₁ e)
  oe-out (inj₂ refl) (inj₂ (inj₂ e)) = inj₂ (inj₂ e)

  -- A page being programmed over an erased one: new, or bad.
  en-out : ∀ {m c c'} → ErasedOrNew m c → CrashM m c' → c' ≡ c ⊎ Bad c'
  en-out (inj₁ refl) e               = inj₂ (inj₁ e)
  en-out (inj₂ refl) (inj₁ e)        = inj₂ (inj₁ e)
  en-out (inj₂ refl) (inj₂ (inj₁ e)) = inj₁ e
  en-out (inj₂ refl) (inj₂ (inj₂ e)) = inj₂ (inj₂ e)

  -- The erase phase: the slot as it was, or no checkpoint in it.
  erasing-out : ∀ {o0 c0 g C s o} → Abs V o0 c0 → Inv g C o0 erasing s → CrashS s o → Out c0 g C o
  erasing-out a0 (hp , hr) (cp , cr) with oe-out hr cr | all-or-one (λ i → oe-out (hp i) (cp i))
  ... | inj₂ b | _            = junk-out λ g' C' → V-rec b
  ... | inj₁ _ | inj₂ (i , b) = junk-out λ g' C' → V-page i b
  ... | inj₁ e | inj₁ es      = _ , inj₁ refl , Abs-≐ ((λ i → sym (es i)) , sym e) a0

  -- Pages durable and new: the record decides.
  pages-new-out : ∀ {c0 g C s o} → (∀ i → pg s i ≡ syn (newPg g C i)) → ErasedOrNew (rc s) (newRc g C)
                → CrashS s o → Out c0 g C o
  pages-new-out {s = s} {o} hp hr (cp , cr) with en-out hr cr
  ... | inj₂ b = junk-out λ g' C' → V-rec b
  ... | inj₁ e = new-out (V-new (λ i → subst (λ m → CrashM m (ip o i)) (hp i) (cp i)) e)

  done-out : ∀ {c0 g C s o} → (∀ i → pg s i ≡ syn (newPg g C i)) → rc s ≡ syn (newRc g C)
           → CrashS s o → Out c0 g C o
  done-out {o = o} hp hr (cp , cr) =
    new-out (V-new (λ i → subst (λ m → CrashM m (ip o i)) (hp i) (cp i))
                       (subst (λ m → CrashM m (ir o)) hr cr))

  refines : Refines V
  refines {o0} {c0} {g} {C} {ph} {s} {o} a0 r cs = go ph (reach-inv r)
    where
    go : ∀ ph → Inv g C o0 ph s → Out c0 g C o
    go erasing     i        = erasing-out a0 i cs
    go programming (hp , hr) = junk-out λ g' C' → V-rec (inj₁ (subst (λ m → CrashM m (ir o)) hr (proj₂ cs)))
    go recording   (hp , hr) = pages-new-out hp hr cs
    go done        (hp , hr) = done-out hp hr cs

  refines-one-sync : ∀ {o0 c0 g C ph s o} → Abs V o0 c0 → Reach1 g C (durS o0) ph s → CrashS s o
                   → Out c0 g C o
  refines-one-sync {o0} {c0} {g} {C} {ph} {s} {o} a0 r (cp , cr) = go ph (reach1-inv r)
    where
    go : ∀ ph → Inv1 g C o0 ph s → Out c0 g C o
    go erasing i = erasing-out a0 i (cp , cr)
    go programming (hp , hr) with en-out hr cr | all-or-one (λ i → en-out (hp i) (cp i))
    ... | inj₂ b | _            = junk-out λ g' C' → V-rec b
    ... | inj₁ _ | inj₂ (i , b) = junk-out λ g' C' → V-page i b
    ... | inj₁ e | inj₁ es      = new-out (V-new es e)
    go recording (hp , hr) = pages-new-out hp hr (cp , cr)
    go done      (hp , hr) = done-out hp hr (cp , cr)


-- The code's parse has them.
new-valid : ∀ {g C o} → (∀ i → ip o i ≡ newPg g C i) → ir o ≡ newRc g C → Valid o g C
new-valid {C = C} ep er = split C , er , ep , join-split C

module SV = Sound Valid (λ {o} {g} {C} → bad-rec {o} {g} {C}) (λ {o} {g} {C} → bad-page {o} {g} {C}) Valid-≐ new-valid
open SV public using (Out; junk-out; new-out; oe-out; en-out)

refines : Refines Valid
refines = SV.refines

refines-one-sync : ∀ {o0 c0 g C ph s o} → Abs Valid o0 c0 → Reach1 g C (durS o0) ph s → CrashS s o
                 → Out c0 g C o
refines-one-sync = SV.refines-one-sync

------------------------------------------------------------------------
-- What the proof needs of the parse is only that: the weakest parse
-- with the four properties — a record of generation g (binding
-- anything), every page some L2P page (any generation, any index), the
-- L2P their entries — refines as well.  So the pages' generation and
-- index checks and the record's CRC over the pages (checkpoint.rs
-- `read_l2p`: `l2p_crc`) are not needed for P's crash outcomes; they
-- guard against what P's crash model excludes (a page programmed
-- without its erase, a page that passes its CRC with content nobody
-- wrote there).  A record whose CRC leaves out a page lies between
-- the two parses and has the four properties too.
ValidMin : Img → ℕ → Map → Set
ValidMin o g C = Σ (Fn → Ch) λ ch → (Σ (Fn → Ch) λ b → ir o ≡ recP g b)
               × (∀ i → Σ ℕ λ h → Σ Fn λ j → ip o i ≡ l2pP h j (ch i))
               × (∀ a → a ≤ amax → join ch a ≡ C a)

private
  vr : ∀ {o g C} → Bad (ir o) → ¬ ValidMin o g C
  vr (inj₁ x) (_ , (_ , r) , _) = e≢r (trans (sym x) r)
  vr (inj₂ x) (_ , (_ , r) , _) = j≢r (trans (sym x) r)
  vp : ∀ {o g C} i → Bad (ip o i) → ¬ ValidMin o g C
  vp i (inj₁ x) (_ , _ , p , _) = e≢p (trans (sym x) (proj₂ (proj₂ (p i))))
  vp i (inj₂ x) (_ , _ , p , _) = j≢p (trans (sym x) (proj₂ (proj₂ (p i))))
  vs : ∀ {o o' g C} → o ≐ o' → ValidMin o g C → ValidMin o' g C
  vs (ep , er) (ch , (b , r) , p , j) =
    ch , (b , trans (sym er) r) , (λ i → proj₁ (p i) , proj₁ (proj₂ (p i)) , trans (sym (ep i)) (proj₂ (proj₂ (p i)))) , j
  vn : ∀ {g C o} → (∀ i → ip o i ≡ newPg g C i) → ir o ≡ newRc g C → ValidMin o g C
  vn {g} {C} ep er = split C , (split C , er) , (λ i → g , i , ep i) , join-split C

refines-min : Refines ValidMin
refines-min = Sound.refines ValidMin vr vp vs vn

-- … even with pages and record in one batch: none of the three (the
-- SYNC before the record, the pages' generation and index, the
-- record's CRC over the pages) is needed for P's crash outcomes.
refines-min-one-sync : ∀ {o0 c0 g C ph s o} → Abs ValidMin o0 c0 → Reach1 g C (durS o0) ph s → CrashS s o
                     → Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × Abs ValidMin o c
refines-min-one-sync = Sound.refines-one-sync ValidMin vr vp vs vn


-- After the final SYNC the slot is durable and parses to the new
-- checkpoint (and, by `refines`, to nothing else).
done-valid : ∀ {g C o0 s} → Reach g C (durS o0) done s
           → (∀ i → pg s i ≡ syn (newPg g C i)) × rc s ≡ syn (newRc g C)
             × Valid (img (λ i → cur (pg s i)) (cur (rc s))) g C
done-valid r with reach-inv r
... | hp , hr = hp , hr , new-valid (λ i → cong cur (hp i)) (cong cur hr)

------------------------------------------------------------------------
-- Metadata rotation: where recovery finds the slots

-- The device's places (superblocks), each standing for P's cell of the
-- checkpoint whose commit record lies there (a record counts only at
-- the place its own map puts it, and is parsed by `Valid` under that
-- map).  Recovery's rule (checkpoint.rs `load_newest`, with `scan`):
-- a committed checkpoint of the highest generation, wherever it lies.
Newest : (ℕ → P.Cell) → ℕ → Map → Set
Newest f g C = (Σ ℕ λ q → f q ≡ P.cpt g C) × (∀ q h D → f q ≡ P.cpt h D → h ≤ g)

-- Two devices that hold the same checkpoints, possibly in other places.
SameCands : (ℕ → P.Cell) → (ℕ → P.Cell) → Set
SameCands f f' = (∀ q h D → f q ≡ P.cpt h D → Σ ℕ λ q' → f' q' ≡ P.cpt h D)
               × (∀ q' h D → f' q' ≡ P.cpt h D → Σ ℕ λ q → f q ≡ P.cpt h D)

RotationInvariant : ((ℕ → P.Cell) → ℕ → Map → Set) → Set
RotationInvariant R = ∀ f f' g C → SameCands f f' → R f g C → R f' g C

newest-rotation : RotationInvariant Newest
newest-rotation f f' g C (fw , bw) ((q , e) , top) =
  fw q g C e , λ q' h D e' → top (proj₁ (bw q' h D e')) h D (proj₂ (bw q' h D e'))

-- P's two slots as places 0 and 1 (nothing elsewhere).
two : P.Cell → P.Cell → ℕ → P.Cell
two c1 c2 zero          = c1
two c1 c2 (suc zero)    = c2
two c1 c2 (suc (suc _)) = P.junk

two-top : ∀ {c1 c2 g} → (∀ h D → c1 ≡ P.cpt h D → h ≤ g) → (∀ h D → c2 ≡ P.cpt h D → h ≤ g)
        → ∀ q h D → two c1 c2 q ≡ P.cpt h D → h ≤ g
two-top t1 t2 zero          = t1
two-top t1 t2 (suc zero)    = t2
two-top t1 t2 (suc (suc q)) h D ()

-- P's `pick` chooses by that rule on its two places.
pick-newest : ∀ c1 c2 {b g C} → P.pick c1 c2 ≡ just (b , g , C) → Newest (two c1 c2) g C
pick-newest (P.cpt g C) (P.cpt h D) e with h ≤ᵇ g in le
pick-newest (P.cpt g C) (P.cpt h D) refl | true =
  (0 , refl) , two-top (λ { _ _ refl → ≤-refl }) (λ { _ _ refl → ≤ᵇ⇒≤ h g (subst T (sym le) tt) })
pick-newest (P.cpt g C) (P.cpt h D) refl | false =
  (1 , refl) , two-top (λ { _ _ refl → ≰⇒≥ (λ h≤g → subst T le (≤⇒≤ᵇ h≤g)) }) (λ { _ _ refl → ≤-refl })
pick-newest (P.cpt g C) P.erased refl = (0 , refl) , two-top (λ { _ _ refl → ≤-refl }) (λ _ _ ())
pick-newest (P.cpt g C) P.junk refl = (0 , refl) , two-top (λ { _ _ refl → ≤-refl }) (λ _ _ ())
pick-newest (P.cpt g C) (P.dcell _ _) refl = (0 , refl) , two-top (λ { _ _ refl → ≤-refl }) (λ _ _ ())
pick-newest (P.cpt g C) (P.dlt _ _ _ _ _) refl = (0 , refl) , two-top (λ { _ _ refl → ≤-refl }) (λ _ _ ())
pick-newest P.erased (P.cpt h D) refl = (1 , refl) , two-top (λ _ _ ()) (λ { _ _ refl → ≤-refl })
pick-newest P.junk (P.cpt h D) refl = (1 , refl) , two-top (λ _ _ ()) (λ { _ _ refl → ≤-refl })
pick-newest (P.dcell _ _) (P.cpt h D) refl = (1 , refl) , two-top (λ _ _ ()) (λ { _ _ refl → ≤-refl })
pick-newest (P.dlt _ _ _ _ _) (P.cpt h D) refl = (1 , refl) , two-top (λ _ _ ()) (λ { _ _ refl → ≤-refl })
pick-newest P.erased P.erased ()
pick-newest P.erased P.junk ()
pick-newest P.erased (P.dcell _ _) ()
pick-newest P.erased (P.dlt _ _ _ _ _) ()
pick-newest P.junk P.erased ()
pick-newest P.junk P.junk ()
pick-newest P.junk (P.dcell _ _) ()
pick-newest P.junk (P.dlt _ _ _ _ _) ()
pick-newest (P.dcell _ _) P.erased ()
pick-newest (P.dcell _ _) P.junk ()
pick-newest (P.dcell _ _) (P.dcell _ _) ()
pick-newest (P.dcell _ _) (P.dlt _ _ _ _ _) ()
pick-newest (P.dlt _ _ _ _ _) P.erased ()
pick-newest (P.dlt _ _ _ _ _) P.junk ()
pick-newest (P.dlt _ _ _ _ _) (P.dcell _ _) ()
pick-newest (P.dlt _ _ _ _ _) (P.dlt _ _ _ _ _) ()

-- So after any rotation that keeps recovery's rule (the checkpoints P's
-- two slots hold, now at any places), recovery finds what P's `pick` does.
rotated-pick : ∀ c1 c2 {b g C} f → P.pick c1 c2 ≡ just (b , g , C) → SameCands (two c1 c2) f → Newest f g C
rotated-pick c1 c2 {g = g} {C} f e same = newest-rotation (two c1 c2) f g C same (pick-newest c1 c2 e)

------------------------------------------------------------------------
-- Both results in one statement, for a parse V and a rule R

record SlotModel : Set₁ where
  field
    Parse : Img → ℕ → Map → Set
    Find  : (ℕ → P.Cell) → ℕ → Map → Set

SlotAbstraction : SlotModel → Set
SlotAbstraction M = Refines (SlotModel.Parse M) × RotationInvariant (SlotModel.Find M)

-- The code's parse and rule.
Pslot : SlotModel
Pslot = record { Parse = Valid ; Find = Newest }

slot-abstraction : SlotAbstraction Pslot
slot-abstraction = refines , newest-rotation

------------------------------------------------------------------------
-- The link to P's full checkpoint: `ck1` programs exactly the one cell
-- `uns (dur (cpO s)) (cpt (suc (gen s)) (l2p s))` into the shadow slot,
-- whose crash outcomes (`CrashC`, at `ck1`'s and `ck2`'s crash points:
-- `CkPt`) are what `refines` abstracts the code's slot to.  So every
-- crash outcome of every prefix of the code's checkpoint write into the
-- shadow slot, which before it stood for P's shadow cell, stands for a
-- crash outcome of P's shadow cell after `ck1`.
ck1-shadow : ∀ s → P.St.cpO (P.ck1 s) ≡ P.uns (P.dur (P.St.cpO s)) (P.cpt (suc (P.St.gen s)) (P.St.l2p s))
ck1-shadow s = refl

refines-ck1 : ∀ (s : P.St) {o0 ph sl o} → Abs Valid o0 (P.dur (P.St.cpO s))
            → Reach (suc (P.St.gen s)) (P.St.l2p s) (durS o0) ph sl → CrashS sl o
            → Σ P.Cell λ c → P.CrashC (P.St.cpO (P.ck1 s)) (P.syn c) × Abs Valid o c
refines-ck1 s a0 r cs = refines a0 r cs

-- With the rest of the flash at any crash outcome of P's `ck1` crash
-- point (a point of `CkPt`, so of P's crashed flush and crashed
-- recovery), the code's slot, read as the cell it stands for, gives a
-- crash outcome of that same point: P's crash model covers every crash
-- of the code's multi-page checkpoint write.
img-ck1-slot : ∀ s s' c → P.Img (P.ck1 s) s' → P.CrashC (P.St.cpO (P.ck1 s)) (P.syn c)
             → P.Img (P.ck1 s) (record s' { cpO = P.syn c })
img-ck1-slot s s' c (d , l , _ , r , k) e = d , l , e , r , k

code-ck1-crash : ∀ (s s' : P.St) {o0 ph sl o} → P.Img (P.ck1 s) s'
               → Abs Valid o0 (P.dur (P.St.cpO s))
               → Reach (suc (P.St.gen s)) (P.St.l2p s) (durS o0) ph sl → CrashS sl o
               → Σ P.Cell λ c → P.Img (P.ck1 s) (record s' { cpO = P.syn c }) × Abs Valid o c
code-ck1-crash s s' im a0 r cs with refines-ck1 s a0 r cs
... | c , e , a = c , img-ck1-slot s s' c im e , a

-- Configuration 7 does not erase the old slot after the commit point
-- (P's `ck2` does, as versions 3–6): the next checkpoint then starts
-- from a shadow holding the older checkpoint (`c0 = cpt h D`, h ≤ the
-- live generation) instead of an erased one, and `refines` gives its
-- crash outcomes as old / new / none.  For P's `pick` the older
-- checkpoint is the same as an erased shadow:
pick-older : ∀ g C h D → h ≤ g → P.pick (P.cpt g C) (P.cpt h D) ≡ P.pick (P.cpt g C) P.erased
pick-older g C h D le with h ≤ᵇ g in e
... | true  = refl
... | false = ⊥-elim (subst T e (≤⇒≤ᵇ le))

------------------------------------------------------------------------
-- Recovery's choice transfers: the code's rule on the two slots'
-- images picks what P's `pick` picks on the cells they stand for.

-- The code's rule (`load_newest`) on two slots: a committed checkpoint
-- of the highest generation (its L2P as `Valid` reads it: on every
-- address a ≤ amax).
CodeNewest : Img → Img → ℕ → Map → Set
CodeNewest o1 o2 g C = (Valid o1 g C ⊎ Valid o2 g C)
                     × (∀ h D → Valid o1 h D ⊎ Valid o2 h D → h ≤ g)

private
  recGen : MCell → ℕ
  recGen (recP g _) = g
  recGen _          = 0

-- A slot's record fixes its generation.
Valid-gen : ∀ {o h D g C} → Valid o h D → Valid o g C → h ≡ g
Valid-gen (_ , r , _) (_ , r' , _) = cong recGen (trans (sym r) r')

private
  cpt-inj : ∀ {g C h D} → P.cpt g C ≡ P.cpt h D → g ≡ h × C ≡ D
  cpt-inj refl = refl , refl

  -- A place holding P's checkpoint (g, C), stood for by an image: the
  -- image parses to it, and any parse of it has its generation.
  at : ∀ {o c g C} → Abs Valid o c → c ≡ P.cpt g C → Valid o g C
  at (inj₁ (g' , C' , e' , v)) e with cpt-inj (trans (sym e') e)
  ... | refl , refl = v
  at (inj₂ (nc , _)) e = ⊥-elim (nc _ _ e)

  bound : ∀ {o c g} → Abs Valid o c → (∀ h D → c ≡ P.cpt h D → h ≤ g) → ∀ h D → Valid o h D → h ≤ g
  bound (inj₁ (g' , C' , e' , v')) top h D v = subst (λ x → x ≤ _) (sym (Valid-gen v v')) (top g' C' e')
  bound (inj₂ (_ , np)) top h D v = ⊥-elim (np h D v)

pick-code : ∀ {o1 o2 c1 c2 b g C} → Abs Valid o1 c1 → Abs Valid o2 c2
          → P.pick c1 c2 ≡ just (b , g , C) → CodeNewest o1 o2 g C
pick-code {c1 = c1} {c2} a1 a2 e with pick-newest c1 c2 e
... | (zero , e1) , top          = inj₁ (at a1 e1) , both
  where both = λ h D → λ { (inj₁ v) → bound a1 (top 0) h D v ; (inj₂ v) → bound a2 (top 1) h D v }
... | (suc zero , e2) , top      = inj₂ (at a2 e2) , both
  where both = λ h D → λ { (inj₁ v) → bound a1 (top 0) h D v ; (inj₂ v) → bound a2 (top 1) h D v }
... | (suc (suc q) , ()) , top

------------------------------------------------------------------------
-- Every parse between the weakest one and the code's (e.g. a record
-- whose CRC leaves out one page, or pages checked without their
-- generation) refines P's cell, with or without the SYNC before the
-- record.
refines-between : (V : Img → ℕ → Map → Set)
                → (∀ {o g C} → V o g C → ValidMin o g C) → (∀ {o g C} → Valid o g C → V o g C)
                → (∀ {o o' g C} → o ≐ o' → V o g C → V o' g C)
                → Refines V
refines-between V lo hi rs =
  Sound.refines V (λ b v → vr b (lo v)) (λ i b v → vp i b (lo v)) rs (λ ep er → hi (new-valid ep er))

refines-between-one-sync : (V : Img → ℕ → Map → Set)
  → (∀ {o g C} → V o g C → ValidMin o g C) → (∀ {o g C} → Valid o g C → V o g C)
  → (∀ {o o' g C} → o ≐ o' → V o g C → V o' g C)
  → ∀ {o0 c0 g C ph s o} → Abs V o0 c0 → Reach1 g C (durS o0) ph s → CrashS s o
  → Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × Abs V o c
refines-between-one-sync V lo hi rs =
  Sound.refines-one-sync V (λ b v → vr b (lo v)) (λ i b v → vp i b (lo v)) rs (λ ep er → hi (new-valid ep er))

------------------------------------------------------------------------
-- Configuration 7 after the commit point: it erases the delta region
-- (the superblocks it keeps) and syncs, but not the old slot.  Every
-- crash outcome of P's `ck2` point with the old slot's erase not landed
-- is one (and every crash there, and the state after its SYNC, has
-- the flash of such an outcome).
v7-keeps-old-slot : ∀ s s' → P.Img (P.ck2 s) s'
  → P.Img (P.ck2 s) (record s' { cpL = P.syn (P.dur (P.St.cpL (P.ck2 s))) })
v7-keeps-old-slot s s' (d , _ , o , r , k) = d , inj₁ refl , o , r , k
