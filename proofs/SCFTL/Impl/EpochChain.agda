{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the EPOCH CHAIN of SCFTL — epoch barriers (docs/FORMAT.md
-- §4.3, flush.rs `epoch_barrier`/`flush_begin`), MAX_UNSYNCED_EPOCHS
-- and recovery over several unsynced epochs (recovery.rs) — as a model
-- PB over SB's operations, and its snapshot consistency with barriers:
--
--   PB-snapshot-consistent : SnapshotConsistentB PB      (SC1B, any fragment)
--   rec-prefix             : recovery returns one image of `imgs`, i.e.
--                            the durable image with a PREFIX of the
--                            unsynced epochs applied, never a mix
--
-- The model (one layer of P, not P itself: see proofs/README.md):
--   flash, durable: `base`, the image the last SYNC left (checkpoint and
--     every synced epoch; such epochs are "proven", a later page carries
--     the after-sync flag, so recovery applies them without a check);
--   flash, unsynced: `eps`, the committed barrier epochs since the last
--     SYNC, oldest first, each its data pages as the flash holds them
--     (`pg`, `nothing` = erased or junk) and its committed delta page of
--     kind 5 (`cm`: the digest, the sectors the epoch's pages must hold;
--     `nothing` = not programmed or junk);
--   memory: the open epoch's writes `opn` and the write counter `wc`.
--   read = the durable image, every committed epoch, then the open one.
-- Steps: a write adds to the open epoch (bound W as in S); a barrier
-- with fewer than umax unsynced epochs commits the open epoch (its pages
-- and its committed page, NO SYNC: `barU`); with umax unsynced it syncs
-- and is durable (kind 2, `syncF`); a flush commits and syncs (`syncF`);
-- recovery (`recS`) checks the unsynced epochs ONE BY ONE, IN ORDER
-- (`chk`: committed page present, every page holding what its digest
-- says, `okPg`), applies each that verifies, and stops at the first that
-- fails, dropping it and every later one; then writes a full checkpoint
-- (the recovered image is durable, nothing unsynced).
-- Crash (`Img`, §5.1 as in P): a durable page keeps its content; an
-- unsynced data page may hold ANY content or none; an unsynced committed
-- page is old (absent), new or junk; memory is lost.  A crashed barrier
-- or flush crashes right before its SYNC (every page of every unsynced
-- epoch, its own included, unsettled) or, if it syncs, after it.
--
-- Why one-by-one checking is enough here (the code chains each epoch's
-- digest to the previous applied epoch's): an unsynced epoch can only be
-- applied after every earlier one was, so the applied set is a prefix;
-- and the unsynced epochs on flash are exactly the epochs committed
-- since the last SYNC, in order — in the code by epoch ids that are
-- never reused (mutant 10) and the region's generation (mutant 4), which
-- this model takes as given.  The chain additionally rejects an epoch
-- whose predecessor on flash is not the one it was written after; that
-- situation has no counterpart in this model.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.EpochChain
  (Data : Set) (d0 : Data) (amax wmax umax : ℕ) (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (_≟_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.List.Base using (List; []; _∷_; _++_; length; map)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import Data.Empty using (⊥)
open SB public
  using ( Addr; InA; Arr; _[_↦_]; RegOp; w; rl; sy; RB; op; barrier
        ; Model; UOp; Op; use; recover; flush; reg
        ; BarrierContract; lemma1B; SnapshotConsistentB; no-mixed-epochsB
        ; _∈_; _⊆_; ⊆-refl; ⊆-trans; ∈-++ʳ; length-snoc )
  renaming (es to esOp)

------------------------------------------------------------------------
-- Flash and memory

Sec : Set
Sec = Addr × Data     -- a data page: its sector and (OOB) logical address

record Ep : Set where
  constructor ep
  field
    pg : List (Maybe Sec)     -- its data pages on flash (nothing: erased / junk)
    cm : Maybe (List Sec)     -- its committed page (kind 5): the digest
open Ep public

record St : Set where
  constructor st
  field
    base : Arr        -- flash, durable: the image at the last SYNC
    eps  : List Ep    -- flash, unsynced: committed barrier epochs, oldest first
    opn  : List Sec   -- memory: the open epoch's writes, oldest first
    wc   : ℕ          -- memory: updates of the open epoch (W)
open St public

apply : Arr → List Sec → Arr
apply b [] = b
apply b ((a , d) ∷ ds) = apply (b [ a ↦ d ]) ds

-- the epoch a barrier commits: its pages and its committed page
commit : List Sec → Ep
commit ds = ep (map just ds) (just ds)

-- the image after every committed epoch (as the memory knows it)
lastI  : Arr → List Ep → Arr
lastIM : Arr → Maybe (List Sec) → List Ep → Arr
lastI b [] = b
lastI b (e ∷ es) = lastIM b (cm e) es
lastIM b nothing   es = lastI b es    -- (no such epoch in a normal state)
lastIM b (just dg) es = lastI (apply b dg) es

-- a barrier leaves the read as it is
lastI-snoc : ∀ b es ds → lastI b (es ++ commit ds ∷ []) ≡ apply (lastI b es) ds
lastI-snoc b [] ds = refl
lastI-snoc b (e ∷ es) ds = more (cm e)
  where
    more : ∀ c → lastIM b c (es ++ commit ds ∷ []) ≡ apply (lastIM b c es) ds
    more nothing   = lastI-snoc b es ds
    more (just dg) = lastI-snoc (apply b dg) es ds

read : St → Addr → Data
read s = apply (lastI (base s) (eps s)) (opn s)

NewB : St → Set
NewB s = base s ≡ (λ _ → d0) × eps s ≡ []

------------------------------------------------------------------------
-- Recovery: check each unsynced epoch in order, stop at the first failure

-- the pages hold exactly the digest's sectors (decided)
okPg : List (Maybe Sec) → List Sec → Bool
okPg [] [] = true
okPg (just (a , d) ∷ ps) ((a′ , d′) ∷ ds) with a ≟ a′ | d ≟D d′
... | yes _ | yes _ = okPg ps ds
... | _     | _     = false
okPg _ _ = false

-- the sectors found on flash
secs : List (Maybe Sec) → List Sec
secs [] = []
secs (just x ∷ ps) = x ∷ secs ps
secs (nothing ∷ ps) = secs ps

-- an epoch verifies: what recovery applies of it
chkM : List (Maybe Sec) → Maybe (List Sec) → Maybe (List Sec)
chkM ps nothing   = nothing
chkM ps (just dg) = if okPg ps dg then just (secs ps) else nothing

chk : Ep → Maybe (List Sec)
chk e = chkM (pg e) (cm e)

recImg : Arr → List Ep → Arr
recM   : Arr → Maybe (List Sec) → List Ep → Arr
recImg b [] = b
recImg b (e ∷ es) = recM b (chk e) es
recM b nothing   es = b                       -- first failure: drop it and every later one
recM b (just xs) es = recImg (apply b xs) es

------------------------------------------------------------------------
-- Steps

InB : Addr → St → Set
InB a s = (a ≤ amax) × (wc s ≤ wmax)

wr : Addr → Data → St → St
wr a d s = record s { opn = opn s ++ (a , d) ∷ [] ; wc = suc (wc s) }

-- barrier without SYNC: the open epoch's pages and its committed page
barU : St → St
barU s = record s { eps = eps s ++ commit (opn s) ∷ [] ; opn = [] ; wc = 0 }

-- durable flush (or a barrier with umax unsynced epochs): SYNC
syncF : St → St
syncF s = st (read s) [] [] 0

-- recovery: SYNC, check, apply, full checkpoint
recS : St → St
recS s = st (recImg (base s) (eps s)) [] [] 0

okB : Op → St → St → Set
okB (use (reg (op (w a d)))) s s′ = (InB a s × s′ ≡ wr a d s) ⊎ (¬ InB a s × s′ ≡ s)
okB (use (reg (op rl))) s s′ = s′ ≡ s
okB (use (reg (op esOp))) s s′ = s′ ≡ s
okB (use (reg (op sy))) s s′ = ⊥   -- PB issues no SYNC outside a commit
okB (use (reg barrier)) s s′ =
    (length (eps s) < umax × s′ ≡ barU s)
  ⊎ (umax ≤ length (eps s) × s′ ≡ syncF s)
okB (use flush) s s′ = s′ ≡ syncF s
okB recover s s′ = s′ ≡ recS s

------------------------------------------------------------------------
-- Crash outcomes

-- an unsynced committed page: old (absent), new, or junk (both: nothing
-- a CRC accepts); its data pages: anything
data EpsImg : List Ep → List Ep → Set where
  []  : EpsImg [] []
  _∷_ : ∀ {e e′ es es′} → (cm e′ ≡ cm e ⊎ cm e′ ≡ nothing) →
        EpsImg es es′ → EpsImg (e ∷ es) (e′ ∷ es′)

Img : St → St → Set
Img m s′ = base s′ ≡ base m × EpsImg (eps m) (eps s′) × opn s′ ≡ []

crashB : Op → St → St → Set
crashB (use (reg (op _))) s s′ = Img s s′
crashB (use (reg barrier)) s s′ =
  Img (barU s) s′ ⊎ (umax ≤ length (eps s) × Img (syncF s) s′)
crashB (use flush) s s′ = Img (barU s) s′ ⊎ Img (syncF s) s′
crashB recover s s′ = Img s s′ ⊎ Img (recS s) s′

PB : Model
PB = record { State = St ; New = NewB ; read = read ; ok = okB ; crash = crashB }

new-disk : Σ St NewB
new-disk = st (λ _ → d0) [] [] 0 , refl , refl

------------------------------------------------------------------------
-- The images recovery may return: the durable image with a prefix of
-- the epochs whose committed page is there applied

imgs  : Arr → List Ep → List Arr
imgsM : Arr → Maybe (List Sec) → List Ep → List Arr
imgs b [] = b ∷ []
imgs b (e ∷ es) = b ∷ imgsM b (cm e) es
imgsM b nothing   es = []
imgsM b (just dg) es = imgs (apply b dg) es

cands : St → List Arr
cands s = imgs (base s) (eps s)

private
  cons-⊆ : ∀ {x xs ys} → xs ⊆ ys → x ∷ xs ⊆ x ∷ ys
  cons-⊆ s (here e) = here e
  cons-⊆ s (there m) = there (s m)

  false≢true : false ≡ true → ∀ {A : Set} → A
  false≢true ()

okPg-sound : ∀ ps ds → okPg ps ds ≡ true → secs ps ≡ ds
okPg-sound [] [] _ = refl
okPg-sound (just (a , d) ∷ ps) ((a′ , d′) ∷ ds) e with a ≟ a′ | d ≟D d′
... | yes refl | yes refl = cong ((a , d) ∷_) (okPg-sound ps ds e)
... | yes _    | no _     = false≢true e
... | no _     | yes _    = false≢true e
... | no _     | no _     = false≢true e
okPg-sound [] (_ ∷ _) ()
okPg-sound (nothing ∷ _) _ ()
okPg-sound (just _ ∷ _) [] ()

chkM-sound : ∀ ps c {xs} → chkM ps c ≡ just xs → c ≡ just xs
chkM-sound ps (just dg) e with okPg ps dg in ok
chkM-sound ps (just dg) refl | true = cong just (sym (okPg-sound ps dg ok))

-- recovery returns one of the images: a prefix, never a mix
rec-prefix : ∀ b es → recImg b es ∈ imgs b es
rec-prefix b [] = here refl
rec-prefix b (e ∷ es) with chk e in ok
... | nothing = here refl
... | just xs rewrite chkM-sound (pg e) (cm e) ok = there (rec-prefix (apply b xs) es)

-- a crash only loses images (a committed page lost cuts the list)
img-⊆ : ∀ {es es′} → EpsImg es es′ → ∀ b → imgs b es′ ⊆ imgs b es
img-⊆ [] b m = m
img-⊆ {e ∷ es} {e′ ∷ es′} (inj₁ c ∷ ei) b m rewrite c = cons-⊆ (more (cm e)) m
  where
    more : ∀ c → imgsM b c es′ ⊆ imgsM b c es
    more nothing ()
    more (just dg) m′ = img-⊆ ei (apply b dg) m′
img-⊆ {e ∷ es} {e′ ∷ es′} (inj₂ c ∷ ei) b m rewrite c with m
... | here x = here x

Img-⊆ : ∀ {m s′} → Img m s′ → cands s′ ⊆ cands m
Img-⊆ {m} {s′} (eb , ei , _) x rewrite eb = img-⊆ ei (base m) x

-- a barrier without SYNC adds exactly the image at the barrier
snoc-⊆ : ∀ b es ds → imgs b (es ++ commit ds ∷ []) ⊆ imgs b es ++ apply (lastI b es) ds ∷ []
snoc-⊆ b [] ds m = m
snoc-⊆ b (e ∷ es) ds = cons-⊆ (more (cm e))
  where
    more : ∀ c → imgsM b c (es ++ commit ds ∷ []) ⊆ imgsM b c es ++ apply (lastIM b c es) ds ∷ []
    more nothing ()
    more (just dg) = snoc-⊆ (apply b dg) es ds

barU-⊆ : ∀ s → cands (barU s) ⊆ cands s ++ read s ∷ []
barU-⊆ s = snoc-⊆ (base s) (eps s) (opn s)

syncF-⊆ : ∀ s X → cands (syncF s) ⊆ X ++ read s ∷ []
syncF-⊆ s X m = ∈-++ʳ X m

------------------------------------------------------------------------
-- PB meets the barrier contract: snapshot consistency with barriers

contract : BarrierContract PB
contract = record
  { cands       = cands
  ; reg-ok      = λ x {t} {t′} → reg-ok x {t} {t′}
  ; reg-crash   = λ x {t} {t′} → Img-⊆ {t} {t′}
  ; bar-ok      = λ {t} {t′} → bar-ok {t} {t′}
  ; bar-crash   = λ {t} {t′} → bar-crash {t} {t′}
  ; flush-ok    = λ {t} {t′} → flush-ok {t} {t′}
  ; flush-crash = λ {t} {t′} → flush-crash {t} {t′}
  ; rec-ok      = λ {t} {t′} → rec-ok {t} {t′}
  ; rec-crash   = λ {t} {t′} → rec-crash {t} {t′}
  }
  where
    reg-ok : ∀ x {t t′} → okB (use (reg (op x))) t t′ → cands t′ ⊆ cands t
    reg-ok (w a d) (inj₁ (_ , refl)) = ⊆-refl
    reg-ok (w a d) (inj₂ (_ , refl)) = ⊆-refl
    reg-ok rl refl = ⊆-refl
    reg-ok esOp refl = ⊆-refl
    reg-ok sy ()

    bar-ok : ∀ {t t′} → okB (use (reg barrier)) t t′ → cands t′ ⊆ cands t ++ read t ∷ []
    bar-ok {t} (inj₁ (_ , refl)) = barU-⊆ t
    bar-ok {t} (inj₂ (_ , refl)) = syncF-⊆ t (cands t)

    bar-crash : ∀ {t t′} → crashB (use (reg barrier)) t t′ → cands t′ ⊆ cands t ++ read t ∷ []
    bar-crash {t} {t′} (inj₁ i) = ⊆-trans (Img-⊆ {barU t} {t′} i) (barU-⊆ t)
    bar-crash {t} {t′} (inj₂ (_ , i)) = ⊆-trans (Img-⊆ {syncF t} {t′} i) (syncF-⊆ t (cands t))

    flush-ok : ∀ {t t′} → okB (use flush) t t′ → cands t′ ⊆ read t ∷ []
    flush-ok {t} refl = syncF-⊆ t []

    flush-crash : ∀ {t t′} → crashB (use flush) t t′ → cands t′ ⊆ cands t ++ read t ∷ []
    flush-crash {t} {t′} (inj₁ i) = ⊆-trans (Img-⊆ {barU t} {t′} i) (barU-⊆ t)
    flush-crash {t} {t′} (inj₂ i) = ⊆-trans (Img-⊆ {syncF t} {t′} i) (syncF-⊆ t (cands t))

    rec-ok : ∀ {t t′} → okB recover t t′ → read t′ ∈ cands t × cands t′ ⊆ read t′ ∷ []
    rec-ok {t} refl = rec-prefix (base t) (eps t) , ⊆-refl

    rec-crash : ∀ {t t′} → crashB recover t t′ → cands t′ ⊆ cands t
    rec-crash {t} {t′} (inj₁ i) = Img-⊆ {t} {t′} i
    rec-crash {t} {t′} (inj₂ i) m with Img-⊆ {recS t} {t′} i m
    ... | here refl = rec-prefix (base t) (eps t)

-- Snapshot consistency with barriers: every crash recovers the image at
-- the last completed flush or at one of the barriers after it (or, for
-- a crashed flush or barrier, its own), never a mix.
PB-snapshot-consistent : SnapshotConsistentB PB
PB-snapshot-consistent = lemma1B contract

-- On any execution of PB (nested crashes included), a successful
-- recovery returns one whole image: one the start state could recover,
-- or the image at some flush or barrier attempt.
no-mixed-epochs-PB = no-mixed-epochsB contract

------------------------------------------------------------------------
-- MAX_UNSYNCED_EPOCHS: no step leaves more than umax unsynced epochs.

lengthE : ∀ (xs : List Ep) x → length (xs ++ x ∷ []) ≡ suc (length xs)
lengthE [] x = refl
lengthE (_ ∷ xs) x = cong suc (lengthE xs x)

eps-bound-ok : ∀ o {s s′} → length (eps s) ≤ umax → okB o s s′ → length (eps s′) ≤ umax
eps-bound-ok (use (reg (op (w a d)))) b (inj₁ (_ , refl)) = b
eps-bound-ok (use (reg (op (w a d)))) b (inj₂ (_ , refl)) = b
eps-bound-ok (use (reg (op rl))) b refl = b
eps-bound-ok (use (reg (op esOp))) b refl = b
eps-bound-ok (use (reg (op sy))) b ()
eps-bound-ok (use (reg barrier)) {s} b (inj₁ (lt , refl))
  rewrite lengthE (eps s) (commit (opn s)) = lt
eps-bound-ok (use (reg barrier)) b (inj₂ (_ , refl)) = z≤n
eps-bound-ok (use flush) b refl = z≤n
eps-bound-ok recover b refl = z≤n
