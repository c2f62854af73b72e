{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, blocks in the one model: the block layer over ANY model of
-- SB's operations whose states hold a P state, and so over PX
-- (SCFTL.Impl.OneModelBlocks).
--
-- SCFTL.Impl.Blocks puts the NAND rules on P alone (B refines P).  The
-- model the code runs is PX (SCFTL.Impl.OneModel: barriers, SYNCs, the
-- in-page/OOB commits, the lazy chain), whose steps reach P's pages
-- through P's own functions (`wr0`, `rl0`, `progMB`, `esF`).  Here the
-- block layer is a functor: `Over M stOf` adds to a model M (with
-- `stOf` reading P's state out of M's) the superblock bookkeeping of
-- crates/ftl/src/scftl/blocks.rs and datapath.rs:
--
--   * physical pages (block k, offset o < Z = suc zb); the P page a
--     physical page holds now (`own k o`: the incarnation placed there
--     last, `nothing` where no sector was placed since format) and where
--     each P page was placed (`loc p`); a write pointer per block (`wp`),
--     the open block (`ab`), the erased blocks ready for reuse (`fr`);
--   * a physical page's content IS its last incarnation's page in P
--     (`cell`; erased where nothing was placed, and while the
--     incarnation waits in P's merge buffer, placed but not programmed:
--     `phys`): one cell per physical page, so an old incarnation and the
--     new one never disagree about what the flash holds;
--   * a write or relocation of M that places a sector (P's `nxt` grows
--     by one) places it at the write pointer of the open block or of a
--     block taken from `fr`, below Z, on a physical page whose content
--     is erased (erase before program, in-order programming: `AllocOK`;
--     P's page taken on no physical page yet); a block taken at write
--     pointer 0 is erased first (`act`: the code erases an erasable
--     superblock when it activates it, and after recovery every
--     unreferenced superblock is erasable), so a block whose erase a
--     crash cut or lost is taken again (twenty-second session);
--   * recovery forgets the placements of P's pages from P's next page on
--     (`forget`): P's recovery restarts its next page past what the
--     recovered map and the region name, so it takes the numbers of the
--     crashed run's later pages again (the code's scan finds those
--     physical pages as garbage); and it frees every block, the open
--     one included, that is left with no page placed below its write
--     pointer (`vacant`, `freeVacant`; thirty-first session): write
--     pointer 0 and reusable, erased when taken (`act`) — `rebuild` makes
--     such a superblock erasable, `activate_next` erases it;
--   * an erase is per block (`berase`): any block — the open one too
--     since the thirty-first session: after a crash the code opens no
--     block and may erase the old active superblock and take it again;
--     the layer above erases only blocks it holds erasable, never the
--     open one —, all of whose pages placed since its last erase are erased
--     one after the other by M's own erase step (`EsRunM`: each one an
--     erase M allows from where the run is, P's `esF` of that page; so
--     PX's guards, the lazy chain's and the unsynced epochs' included,
--     hold for every page of the block); the write pointer goes back to
--     0 and the block is reusable;
--   * a crash of a block erase: of a block erase M allows whole (the
--     complete run `EsRunM` exists: the code issues the one erase command
--     only for a block every page of which it may erase), M's erase
--     steps for some of the block's pages, then a crashed erase step of
--     M (the command lands whole or not at all; M's crash of the last
--     page's erase allows every page erased since the last SYNC to come
--     back or not, so both); every other crash is M's, the bookkeeping
--     kept (what the code rebuilds by its scan), after a crashed write or
--     relocation with or without its allocation.  (Until the twenty-first
--     session the crash of a block erase did not ask for the complete
--     run: a block holding a live page could lose its write pointer in a
--     crash whose erase steps had taken only its erasable pages, which
--     made `RecoveredLocated` of SCFTL.Impl.OneModelBlocksPhys false.)
--
-- Results:
--   obligationsBX : the §4.4 obligations of `Over M stOf` against SB from
--                   M's (AR, CR on M's part; RI, CI M's and `OwnLoc`:
--                   each physical page's incarnation was placed there)
--   theorem1-BX, BX-snapshot-consistent : Theorem 1 and SC1B for it
--   cell-crash    : after a crash in P's sense (each data page a `CrashD`
--                   outcome), each physical page's content is a `CrashD`
--                   outcome of its content at the crash point
--   cover         : conversely, every outcome of the physical pages
--                   (`CrashD` per physical page) is the physical pages of
--                   a crash outcome in P's sense (`relabel`: located
--                   pages take their physical page's outcome, older
--                   incarnations their durable content); so the per-page
--                   crash model P (and PX) uses is the physical one, page
--                   for page, for every outcome the flash can produce
-- See proofs/README.md, "Blocks in the one model".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.BlocksOver (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (zb : ℕ) where

open import Data.Nat.Base using (zero; suc; _<_; _≤_; _≡ᵇ_; _<ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (<ᵇ⇒<; <⇒<ᵇ; <-irrefl; ≤-pred; ≤∧≢⇒<)
open import Data.Nat.Properties using (≡ᵇ⇒≡) renaming (_≟_ to _≟ℕ_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_; T)
open import Data.Unit.Base using (tt)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; null)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; MC; syn; uns; cur; dur; dat; mb; nxt; esF; erased; CrashD; _[_≔_])
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (≡ᵇ-refl) renaming (≡ᵇ-false to ≡ᵇ-ne)

------------------------------------------------------------------------
-- Small lemmas on updates

upd-self : ∀ {A : Set} (f : ℕ → A) x v → (f [ x ≔ v ]) x ≡ v
upd-self f x v rewrite ≡ᵇ-refl x = refl

upd-ne : ∀ {A : Set} (f : ℕ → A) x y v → ¬ (x ≡ y) → (f [ y ≔ v ]) x ≡ f x
upd-ne f x y v ne rewrite ≡ᵇ-ne x y ne = refl

just-inj : ∀ {x y : ℕ} → just x ≡ just y → x ≡ y
just-inj refl = refl

------------------------------------------------------------------------
-- Geometry and bookkeeping

-- pages per block
Z : ℕ
Z = suc zb

-- a physical page: (block, offset)
PPg : Set
PPg = ℕ × ℕ

record BL : Set where
  field
    loc : ℕ → PPg            -- where each P page (incarnation) was placed
    own : ℕ → ℕ → Maybe ℕ    -- the incarnation a physical page holds now
    wp  : ℕ → ℕ              -- per block: next offset to program (in order)
    ab  : ℕ                  -- the open (active) block
    fr  : ℕ → Bool           -- erased blocks ready for reuse
open BL public

-- a physical page's content as P's pages say: its last incarnation's
-- page, erased where no sector was placed since format
cellOf : (ℕ → MC) → Maybe ℕ → MC
cellOf d nothing  = syn erased
cellOf d (just q) = d q

-- an incarnation waiting in the merge buffer (placed, not yet
-- programmed) is an erased physical page, whatever P's page holds (P
-- may take a page number again after a crash: recovery restarts its
-- next page past what the recovered map and the region name)
inMB : ∀ {A : Set} → Maybe A → MC → MC
inMB nothing  m = m
inMB (just _) m = syn erased

phys : St → ℕ → MC
phys s q = inMB (mb s q) (dat s q)

-- a physical page's content: its last incarnation's, erased where no
-- sector was placed since format or while the incarnation waits in the
-- merge buffer
cell : St → BL → ℕ → ℕ → MC
cell s bl k o = cellOf (phys s) (own bl k o)

-- every physical page's incarnation was placed there
OwnLoc : BL → Set
OwnLoc bl = ∀ k o q → own bl k o ≡ just q → loc bl q ≡ (k , o)

-- no physical page holds P page n yet
Fresh : BL → ℕ → Set
Fresh bl n = ∀ k o → own bl k o ≡ just n → ⊥

Opens : BL → ℕ → Set
Opens bl k = k ≡ ab bl ⊎ fr bl k ≡ true

-- a block's physical pages once it is taken for writing: a block taken
-- at write pointer 0 is erased first, so its pages hold nothing
-- (blocks.rs `activate_next` erases an erasable superblock when it
-- activates it, and after recovery every unreferenced superblock is
-- erasable: a crash may have cut its erase, or lost it, which leaves the
-- pages of its old incarnations; erasing a block that is erased already
-- changes none of its pages); a block taken further on keeps its pages
actB : ℕ → (ℕ → Maybe ℕ) → ℕ → Maybe ℕ
actB zero    f o = nothing
actB (suc _) f o = f o

act : BL → ℕ → ℕ → Maybe ℕ
act bl k = actB (wp bl k) (own bl k)

actB-just : ∀ w f o {q} → actB w f o ≡ just q → f o ≡ just q
actB-just zero    f o ()
actB-just (suc _) f o e = e

-- below the write pointer the activation changes nothing
actB-below : ∀ w f o → o < w → actB w f o ≡ f o
actB-below (suc _) f o _ = refl

-- allocation of P page n (P's `nxt`) in block k: the open block or a
-- reusable one, below the end of the block, on an erased physical page
-- once the block is taken (erase before program: `act`); P's page n is
-- on no physical page yet (its placements from before a crash that lost
-- it are forgotten by recovery, `forget`); the page goes into P's merge
-- buffer, so the physical page reads erased until P programs it
AllocOK : St → BL → ℕ → Set
AllocOK s bl k = Opens bl k × wp bl k < Z × cur (cellOf (phys s) (act bl k (wp bl k))) ≡ erased × Fresh bl (nxt s)

balloc : ℕ → ℕ → BL → BL
balloc k n bl = record bl
  { ab = k ; fr = fr bl [ k ≔ false ]
  ; loc = loc bl [ n ≔ (k , wp bl k) ]
  ; own = own bl [ k ≔ act bl k [ wp bl k ≔ just n ] ]
  ; wp = wp bl [ k ≔ suc (wp bl k) ] }

-- what an allocation leaves of the other physical pages: those of other
-- blocks and those below the block's write pointer as they were
own-balloc-ne : ∀ bl k n kp op → ¬ (kp ≡ k × op ≡ wp bl k) → (kp ≡ k → op < wp bl k) →
                own (balloc k n bl) kp op ≡ own bl kp op
own-balloc-ne bl k n kp op ne lt with kp ≟ℕ k
... | no n1    = cong (λ f → f op) (upd-ne (own bl) kp k _ n1)
... | yes refl = trans (cong (λ f → f op) (upd-self (own bl) kp _))
                       (trans (upd-ne (act bl kp) op (wp bl kp) (just n) (λ e → ne (refl , e)))
                              (actB-below (wp bl kp) (own bl kp) op (lt refl)))

-- every physical page an allocation leaves holding an incarnation: the
-- page placed, or one that held it before
own-balloc : ∀ bl k n kp op q → own (balloc k n bl) kp op ≡ just q → q ≡ n ⊎ own bl kp op ≡ just q
own-balloc bl k n kp op q e with kp ≟ℕ k
... | no ne = inj₂ (trans (sym (cong (λ f → f op) (upd-ne (own bl) kp k _ ne))) e)
... | yes refl with op ≟ℕ wp bl kp
...   | yes refl = inj₁ (sym (just-inj (trans (sym (trans (cong (λ f → f (wp bl kp)) (upd-self (own bl) kp _))
                                                          (upd-self (act bl kp) (wp bl kp) (just n)))) e)))
...   | no ne = inj₂ (actB-just (wp bl kp) (own bl kp) op
                        (trans (sym (trans (cong (λ f → f op) (upd-self (own bl) kp _))
                                           (upd-ne (act bl kp) op (wp bl kp) (just n) ne))) e))

-- the P pages placed in block k at offsets below n
consM : Maybe ℕ → List ℕ → List ℕ
consM nothing  xs = xs
consM (just q) xs = q ∷ xs

ownersB : BL → ℕ → ℕ → List ℕ
ownersB bl k zero    = []
ownersB bl k (suc o) = consM (own bl k o) (ownersB bl k o)

-- the pages a block erase erases: those placed since the block's last
-- erase (below its write pointer)
owners : BL → ℕ → List ℕ
owners bl k = ownersB bl k (wp bl k)

berase : ℕ → BL → BL
berase k bl = record bl { wp = wp bl [ k ≔ 0 ] ; fr = fr bl [ k ≔ true ] }

-- recovery forgets the placements of P pages from P's next page on:
-- P takes their numbers again (the code's scan finds those physical
-- pages as garbage of the crashed run)
below : ℕ → Maybe ℕ → Maybe ℕ
below n nothing  = nothing
below n (just q) = if q <ᵇ n then just q else nothing

forgetO : ℕ → BL → BL
forgetO n bl = record bl { own = λ k o → below n (own bl k o) }

-- a block with no page placed below its write pointer (once recovery
-- has forgotten the crashed run's placements): vacant; recovery frees it
-- (write pointer 0, reusable), as the code's rebuild makes every
-- superblock the recovered map does not reference erasable and
-- activation erases it (blocks.rs `rebuild`, `activate_next`) — the open
-- block too: the code opens no block at recovery, and may activate the
-- old one again, erased, which the open block taken at write pointer 0
-- is (`act`).  A block erase is its owners' erases (`EsRunM`), so
-- without this a block all of whose placements a crash cut was never
-- reused (thirty-first session; proofs/README.md, "Not done", item 1)
vacant : BL → ℕ → Bool
vacant bl k = null (owners bl k)

freeVacant : BL → BL
freeVacant bl = record bl
  { wp = λ k → if vacant bl k then 0 else wp bl k
  ; fr = λ k → if vacant bl k then true else fr bl k }

forget : ℕ → BL → BL
forget n bl = freeVacant (forgetO n bl)

NewBL : BL → Set
NewBL bl = (∀ k o → own bl k o ≡ nothing) × (∀ k → wp bl k ≡ 0) × (∀ k → fr bl k ≡ true)

ownloc-new : ∀ {bl} → NewBL bl → OwnLoc bl
ownloc-new {bl} (ow , _) k o q e with trans (sym (ow k o)) e
... | ()

ownloc-balloc : ∀ {bl k n} → OwnLoc bl → Fresh bl n → OwnLoc (balloc k n bl)
ownloc-balloc {bl} {k} {n} ol fresh k' o' q e with own-balloc bl k n k' o' q e
... | inj₂ e0 = trans (upd-ne (loc bl) q n _ q≢n) (ol k' o' q e0)
  where
    q≢n : ¬ (q ≡ n)
    q≢n refl = fresh k' o' e0
... | inj₁ refl with k' ≟ℕ k
...   | no k'≢k = ⊥-elim (fresh k' o' (trans (sym (cong (λ f → f o') (upd-ne (own bl) k' k _ k'≢k))) e))
...   | yes refl with o' ≟ℕ wp bl k
...     | yes refl = upd-self (loc bl) q _
...     | no o'≢ = ⊥-elim (fresh k o' (actB-just (wp bl k) (own bl k) o'
                          (trans (sym (trans (cong (λ f → f o') (upd-self (own bl) k _))
                                             (upd-ne (act bl k) o' (wp bl k) (just q) o'≢))) e)))

private
  nothing≢just : ∀ {a : ℕ} → nothing ≡ just a → ⊥
  nothing≢just ()

  below-just : ∀ n m q → below n m ≡ just q → m ≡ just q × q < n
  below-just n nothing  q ()
  below-just n (just r) q e with r <ᵇ n in lt
  ... | true  = cong just (just-inj e) , subst (_< n) (just-inj e) (<ᵇ⇒< r n (subst T (sym lt) tt))
  ... | false = ⊥-elim (nothing≢just e)

forget-below : ∀ {bl} n k o q → own (forget n bl) k o ≡ just q → q < n
forget-below {bl} n k o q e = proj₂ (below-just n (own bl k o) q e)

ownloc-forget : ∀ {bl} n → OwnLoc bl → OwnLoc (forget n bl)
ownloc-forget {bl} n ol k o q e = ol k o q (proj₁ (below-just n (own bl k o) q e))

-- after it, P's page numbers from its next page on are on no physical page
forget-fresh : ∀ {bl} n m → n ≤ m → Fresh (forget n bl) m
forget-fresh {bl} n m le k o e = <-irrefl refl (≤-<-trans le (proj₂ (below-just n (own bl k o) m e)))
  where
    ≤-<-trans : ∀ {a b c} → a ≤ b → b < c → a < c
    ≤-<-trans z≤n (s≤s _) = s≤s z≤n
    ≤-<-trans (s≤s x) (s≤s y) = s≤s (≤-<-trans x y)

-- what recovery's freeing leaves of a block's write pointer and of its
-- reusable flag: a vacant block at 0 and reusable, every other as it was
private
  null-[] : ∀ {A : Set} (xs : List A) → null xs ≡ true → xs ≡ []
  null-[] []      _ = refl
  null-[] (_ ∷ _) ()

  ownersB-null : ∀ bl k w o q → o < w → own bl k o ≡ just q → null (ownersB bl k w) ≡ false
  ownersB-null bl k (suc w) o q lt e with own bl k w in e'
  ... | just _  = refl
  ... | nothing with o ≟ℕ w
  ...   | yes refl = ⊥-elim (nothing≢just (trans (sym e') e))
  ...   | no ne = ownersB-null bl k w o q (≤∧≢⇒< (≤-pred lt) ne) e

  -- the freeing moves no placement
  ownersB-fv : ∀ bl k w → ownersB (freeVacant bl) k w ≡ ownersB bl k w
  ownersB-fv bl k zero    = refl
  ownersB-fv bl k (suc w) = cong (consM (own bl k w)) (ownersB-fv bl k w)

  below-keep : ∀ n m q → m ≡ just q → q < n → below n m ≡ just q
  below-keep n (just r) q refl lt' with r <ᵇ n in e'
  ... | true  = refl
  ... | false = ⊥-elim (subst T e' (<⇒<ᵇ lt'))

forget-wp0 : ∀ {bl} n k → wp bl k ≡ 0 → wp (forget n bl) k ≡ 0
forget-wp0 {bl} n k e with vacant (forgetO n bl) k
... | true  = refl
... | false = e

forget-fr : ∀ {bl} n k → fr bl k ≡ true → fr (forget n bl) k ≡ true
forget-fr {bl} n k e with vacant (forgetO n bl) k
... | true  = refl
... | false = e

-- free blocks stay at write pointer 0
forget-frwp : ∀ {bl} n k → (fr bl k ≡ true → wp bl k ≡ 0) → fr (forget n bl) k ≡ true → wp (forget n bl) k ≡ 0
forget-frwp {bl} n k fw with vacant (forgetO n bl) k
... | true  = λ _ → refl
... | false = fw

-- a block's erase erases the pages it erased before the freeing: none
-- for a vacant block
forget-owners : ∀ {bl} n k → owners (forget n bl) k ≡ owners (forgetO n bl) k
forget-owners {bl} n k with null (owners (forgetO n bl) k) in e
... | true  = sym (null-[] (owners (forgetO n bl) k) e)
... | false = ownersB-fv (forgetO n bl) k (wp bl k)

-- a block that recovery leaves with no page placed below its write
-- pointer is free and at write pointer 0
forget-vacant : ∀ {bl} n k → owners (forgetO n bl) k ≡ [] →
                wp (forget n bl) k ≡ 0 × fr (forget n bl) k ≡ true
forget-vacant {bl} n k e rewrite e = refl , refl

-- a block holding a page below P's next page below its write pointer
-- keeps its write pointer
forget-kept : ∀ {bl} n k o q → o < wp bl k → own bl k o ≡ just q → q < n → wp (forget n bl) k ≡ wp bl k
forget-kept {bl} n k o q lt e qn
  rewrite ownersB-null (forgetO n bl) k (wp bl k) o q lt (below-keep n (own bl k o) q e qn) = refl

------------------------------------------------------------------------
-- The physical pages across a crash

-- located: P page p is its physical page's incarnation
hereM : Maybe ℕ → ℕ → Bool
hereM nothing  p = false
hereM (just q) p = q ≡ᵇ p

here : BL → ℕ → Bool
here bl p = hereM (own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) p

-- after a crash in P's sense (each data page a `CrashD` outcome) to a
-- state with an empty merge buffer (as recovery leaves it), each
-- physical page whose incarnation was out of the merge buffer at the
-- crash point has a crash outcome of its content there (one whose
-- incarnation waited in the merge buffer was erased: it is read again
-- only once another incarnation is placed there after a block erase)
cell-crash : ∀ {x s'} bl → (∀ p → CrashD (dat x p) (dat s' p)) → (∀ p → mb s' p ≡ nothing) →
             ∀ k o → (∀ q → own bl k o ≡ just q → mb x q ≡ nothing) → CrashD (cell x bl k o) (cell s' bl k o)
cell-crash {x} {s'} bl dd me k o nm with own bl k o in e
... | nothing = refl
... | just q rewrite nm q refl | me q = dd q

-- the P pages' outcome for physical outcome y: a located page its
-- physical page's, any other (an older incarnation) its durable content
relabel : (ℕ → MC) → BL → (ℕ → ℕ → MC) → ℕ → MC
relabel d bl y p = if here bl p then y (proj₁ (loc bl p)) (proj₂ (loc bl p)) else syn (dur (d p))

-- any page may settle on its durable content
settle-crash : ∀ m → CrashD m (syn (dur m))
settle-crash (syn c)   = refl
settle-crash (uns o n) = o , refl

private
  hereM-eq : ∀ m p → hereM m p ≡ true → m ≡ just p
  hereM-eq nothing  p ()
  hereM-eq (just q) p h = cong just (≡ᵇ⇒≡ q p (subst T (sym h) tt))

  here-of : ∀ bl q k o → own bl k o ≡ just q → loc bl q ≡ (k , o) → here bl q ≡ true
  here-of bl q k o e l rewrite l | e = ≡ᵇ-refl q

  if-true : ∀ {A : Set} {c} (x y : A) → c ≡ true → (if c then x else y) ≡ x
  if-true x y refl = refl

  if-false : ∀ {A : Set} {c} (x y : A) → c ≡ false → (if c then x else y) ≡ y
  if-false x y refl = refl

-- a located page's physical page holds its content once programmed
-- (out of the merge buffer), and is erased before
here-cell : ∀ s bl p → here bl p ≡ true → mb s p ≡ nothing → cell s bl (proj₁ (loc bl p)) (proj₂ (loc bl p)) ≡ dat s p
here-cell s bl p h e =
  trans (cong (cellOf (phys s)) (hereM-eq (own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) p h))
        (cong (λ m → inMB m (dat s p)) e)

here-mb : ∀ s bl p {x} → here bl p ≡ true → mb s p ≡ just x → cell s bl (proj₁ (loc bl p)) (proj₂ (loc bl p)) ≡ syn erased
here-mb s bl p h e =
  trans (cong (cellOf (phys s)) (hereM-eq (own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) p h))
        (cong (λ m → inMB m (dat s p)) e)

-- recovery's forgetting keeps every located page below P's next page
here-forget : ∀ bl n p → here bl p ≡ true → p < n → here (forget n bl) p ≡ true
here-forget bl n p h lt rewrite hereM-eq (own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) p h with p <ᵇ n in e
... | true  = ≡ᵇ-refl p
... | false = ⊥-elim (subst T e (<⇒<ᵇ lt))

-- a located page is its physical page's incarnation
here-own : ∀ bl p → here bl p ≡ true → own bl (proj₁ (loc bl p)) (proj₂ (loc bl p)) ≡ just p
here-own bl p h = hereM-eq (own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) p h

-- and keeps the write pointer of its block above it: the block holds it
inr-forget : ∀ bl n p → here bl p ≡ true → proj₂ (loc bl p) < wp bl (proj₁ (loc bl p)) → p < n →
             proj₂ (loc bl p) < wp (forget n bl) (proj₁ (loc bl p))
inr-forget bl n p h lt pn =
  subst (proj₂ (loc bl p) <_) (sym (forget-kept {bl} n (proj₁ (loc bl p)) (proj₂ (loc bl p)) p lt (here-own bl p h) pn)) lt

-- a page placed at (k , o) is located there
here-at : ∀ bl q k o → own bl k o ≡ just q → loc bl q ≡ (k , o) → here bl q ≡ true
here-at = here-of

-- every outcome of the physical pages is the physical pages of a crash
-- outcome of P's data pages
cover : ∀ {x} bl (y : ℕ → ℕ → MC) → OwnLoc bl → (∀ k o → CrashD (cellOf (dat x) (own bl k o)) (y k o)) →
        (∀ p → CrashD (dat x p) (relabel (dat x) bl y p))
      × (∀ k o → cellOf (relabel (dat x) bl y) (own bl k o) ≡ y k o)
cover {x} bl y ol yc = per-page , per-cell
  where
    per-page : ∀ p → CrashD (dat x p) (relabel (dat x) bl y p)
    per-page p with here bl p in h
    ... | false = settle-crash (dat x p)
    ... | true  = subst (λ m → CrashD m (y (proj₁ (loc bl p)) (proj₂ (loc bl p))))
                        (cong (cellOf (dat x)) (hereM-eq (own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) p h))
                        (yc (proj₁ (loc bl p)) (proj₂ (loc bl p)))
    per-cell : ∀ k o → cellOf (relabel (dat x) bl y) (own bl k o) ≡ y k o
    per-cell k o with own bl k o in eq
    ... | nothing = sym (subst (λ m → CrashD (cellOf (dat x) m) (y k o)) eq (yc k o))
    ... | just q  = trans (if-true _ _ (here-of bl q k o eq lq)) (cong₂ y (cong proj₁ lq) (cong proj₂ lq))
      where
        lq : loc bl q ≡ (k , o)
        lq = ol k o q eq

------------------------------------------------------------------------
-- The block layer over a model M of SB's operations; `stOf` reads P's
-- state out of M's

module Over (M : SB.Model) (stOf : SB.Model.State M → St) where
  private
    module M = SB.Model M

  esOp : SB.Op
  esOp = SB.use (SB.reg (SB.op SB.es))

  -- M's erase step, erasing P page p
  EsM : M.State → ℕ → M.State → Set
  EsM X p X' = M.ok esOp X X' × stOf X' ≡ esF p (stOf X)

  -- a block erase: M's erase steps, one per page of the block
  data EsRunM : M.State → List ℕ → M.State → Set where
    one : ∀ {X p X'} → EsM X p X' → EsRunM X (p ∷ []) X'
    _∷_ : ∀ {X p ps X1 X'} → EsM X p X1 → EsRunM X1 ps X' → EsRunM X (p ∷ ps) X'

  -- a crashed block erase: M's erase steps, then a crashed one
  data EsCrashM : M.State → List ℕ → M.State → Set where
    one : ∀ {X p X'} → M.crash esOp X X' → EsCrashM X (p ∷ []) X'
    _∷_ : ∀ {X p ps X1 X'} → EsM X p X1 → EsCrashM X1 ps X' → EsCrashM X (p ∷ ps) X'

  -- a write's or relocation's bookkeeping: where M placed a sector (P's
  -- next page taken), at an allocation the block rules allow
  Alloc : St → BL → BL → Set
  Alloc s bl bl' = Σ ℕ λ k → AllocOK s bl k × bl' ≡ balloc k (nxt s) bl

  Place : M.State → M.State → BL → BL → Set
  Place X X' bl bl' =
      (nxt (stOf X') ≡ suc (nxt (stOf X)) × Alloc (stOf X) bl bl')
    ⊎ (nxt (stOf X') ≡ nxt (stOf X) × bl' ≡ bl)

  XB : Set
  XB = M.State × BL

  okBX : SB.Op → XB → XB → Set
  okBX (SB.use (SB.reg (SB.op (SB.w a d)))) (X , bl) (X' , bl') =
    M.ok (SB.use (SB.reg (SB.op (SB.w a d)))) X X' × Place X X' bl bl'
  okBX (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl') =
    M.ok (SB.use (SB.reg (SB.op SB.rl))) X X' × Place X X' bl bl'
  okBX (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , bl') =
    Σ ℕ λ k → EsRunM X (owners bl k) X' × bl' ≡ berase k bl
  okBX (SB.use (SB.reg (SB.op SB.sy))) (X , bl) (X' , bl') = M.ok (SB.use (SB.reg (SB.op SB.sy))) X X' × bl' ≡ bl
  okBX (SB.use (SB.reg SB.barrier)) (X , bl) (X' , bl') = M.ok (SB.use (SB.reg SB.barrier)) X X' × bl' ≡ bl
  okBX (SB.use SB.flush) (X , bl) (X' , bl') = M.ok (SB.use SB.flush) X X' × bl' ≡ bl
  okBX SB.recover (X , bl) (X' , bl') = M.ok SB.recover X X' × bl' ≡ forget (nxt (stOf X')) bl

  crashBX : SB.Op → XB → XB → Set
  crashBX (SB.use (SB.reg (SB.op (SB.w a d)))) (X , bl) (X' , bl') =
    M.crash (SB.use (SB.reg (SB.op (SB.w a d)))) X X' × (bl' ≡ bl ⊎ Alloc (stOf X) bl bl')
  crashBX (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl') =
    M.crash (SB.use (SB.reg (SB.op SB.rl))) X X' × (bl' ≡ bl ⊎ Alloc (stOf X) bl bl')
  crashBX (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , bl') =
    Σ ℕ λ k → (Σ M.State λ X'' → EsRunM X (owners bl k) X'') ×
              EsCrashM X (owners bl k) X' × bl' ≡ berase k bl
  crashBX (SB.use (SB.reg (SB.op SB.sy))) (X , bl) (X' , bl') = M.crash (SB.use (SB.reg (SB.op SB.sy))) X X' × bl' ≡ bl
  crashBX (SB.use (SB.reg SB.barrier)) (X , bl) (X' , bl') = M.crash (SB.use (SB.reg SB.barrier)) X X' × bl' ≡ bl
  crashBX (SB.use SB.flush) (X , bl) (X' , bl') = M.crash (SB.use SB.flush) X X' × bl' ≡ bl
  crashBX SB.recover (X , bl) (X' , bl') = M.crash SB.recover X X' × bl' ≡ bl

  NewBX : XB → Set
  -- a new disk: M's, no sector placed, every block reusable, every page
  -- erased (what format leaves)
  NewBX (X , bl) = M.New X × NewBL bl × (∀ p → dat (stOf X) p ≡ syn erased)

  BX : SB.Model
  BX = record { State = XB ; New = NewBX ; read = λ Y → M.read (proj₁ Y) ; ok = okBX ; crash = crashBX }

  -- not vacuous: on a new disk, a step of M that places a sector has
  -- its allocation (block 0 is reusable, its first page erased)
  new-place : ∀ {X X' bl} → NewBL bl →
              nxt (stOf X') ≡ suc (nxt (stOf X)) → Σ BL λ bl' → Place X X' bl bl'
  new-place {X} {X'} {bl} (ow , wz , fz) e =
    balloc 0 (nxt (stOf X)) bl , inj₁ (e , 0 , (inj₂ (fz 0) , wp<Z , erased0 , fresh) , refl)
    where
      wp<Z : wp bl 0 < Z
      wp<Z rewrite wz 0 = s≤s z≤n
      erased0 : cur (cellOf (phys (stOf X)) (act bl 0 (wp bl 0))) ≡ erased
      erased0 rewrite wz 0 = refl
      fresh : Fresh bl (nxt (stOf X))
      fresh k o e' with trans (sym (ow k o)) e'
      ... | ()

  -- a step of M that takes P's next page or none is placed wherever
  -- the block rules find that page (SCFTL.Impl.OneModelBlocks `bx-w`,
  -- SCFTL.Impl.OneModelHoldBlocks `bx-wh`)
  grow-place : ∀ {X X' bl} → nxt (stOf X') ≡ suc (nxt (stOf X)) ⊎ nxt (stOf X') ≡ nxt (stOf X) →
               (nxt (stOf X') ≡ suc (nxt (stOf X)) → Σ ℕ λ k → AllocOK (stOf X) bl k) →
               Σ BL λ bl' → Place X X' bl bl'
  grow-place {X} {X'} {bl} (inj₁ e) al =
    balloc (proj₁ (al e)) (nxt (stOf X)) bl , inj₁ (e , proj₁ (al e) , proj₂ (al e) , refl)
  grow-place {bl = bl} (inj₂ e) al = bl , inj₂ (e , refl)

  ----------------------------------------------------------------------
  -- The obligations of §4.4 for BX from M's

  module _ (O : SB.ForwardSimulation.Obligations M SB.SB) where
    private
      module O = SB.ForwardSimulation.Obligations O

    RIB CIB : XB → Set
    RIB (X , bl) = O.RI X × OwnLoc bl
    CIB (X , bl) = O.CI X × OwnLoc bl

    private
      -- M's erase steps keep SB's state and M's invariants
      run-A : ∀ {X ps X' t} → O.AR X t → O.RI X → EsRunM X ps X' → O.AR X' t × O.RI X'
      run-A ar ri (one (e , _)) with O.A-ok (SB.reg (SB.op SB.es)) ar ri e
      ... | t1 , refl , ar1 = ar1 , O.B-ok (SB.reg (SB.op SB.es)) ri e
      run-A ar ri ((e , _) ∷ r) with O.A-ok (SB.reg (SB.op SB.es)) ar ri e
      ... | t1 , refl , ar1 = run-A ar1 (O.B-ok (SB.reg (SB.op SB.es)) ri e) r

      run-B : ∀ {X ps X'} → O.RI X → EsRunM X ps X' → O.RI X'
      run-B ri (one (e , _)) = O.B-ok (SB.reg (SB.op SB.es)) ri e
      run-B ri ((e , _) ∷ r) = run-B (O.B-ok (SB.reg (SB.op SB.es)) ri e) r

      crash-A : ∀ {X ps X' t} → O.AR X t → O.RI X → EsCrashM X ps X' →
                Σ SB.State λ t' → SB.crashSB esOp t t' × O.CR X' t'
      crash-A ar ri (one c) = O.A-crash (SB.reg (SB.op SB.es)) ar ri c
      crash-A ar ri ((e , _) ∷ r) with O.A-ok (SB.reg (SB.op SB.es)) ar ri e
      ... | t1 , refl , ar1 = crash-A ar1 (O.B-ok (SB.reg (SB.op SB.es)) ri e) r

      crash-B : ∀ {X ps X'} → O.RI X → EsCrashM X ps X' → O.CI X'
      crash-B ri (one c) = O.B-crash (SB.reg (SB.op SB.es)) ri c
      crash-B ri ((e , _) ∷ r) = crash-B (O.B-ok (SB.reg (SB.op SB.es)) ri e) r

      place-ol : ∀ {s bl bl'} → OwnLoc bl → Alloc s bl bl' → OwnLoc bl'
      place-ol {s} {bl} ol (k , (_ , _ , _ , fresh) , refl) = ownloc-balloc {bl} {k} {nxt s} ol fresh

      Place-ol : ∀ {X X' bl bl'} → OwnLoc bl → Place X X' bl bl' → OwnLoc bl'
      Place-ol {X} {X'} {bl} ol (inj₁ (_ , a)) = place-ol {stOf X} {bl} ol a
      Place-ol ol (inj₂ (_ , refl)) = ol

      cPlace-ol : ∀ {s bl bl'} → OwnLoc bl → (bl' ≡ bl ⊎ Alloc s bl bl') → OwnLoc bl'
      cPlace-ol ol (inj₁ refl) = ol
      cPlace-ol {s} {bl} ol (inj₂ a) = place-ol {s} {bl} ol a

    A-okB : ∀ u {Y t Y'} → O.AR (proj₁ Y) t → RIB Y → okBX (SB.use u) Y Y' →
            Σ SB.State λ t' → SB.okSB (SB.use u) t t' × O.AR (proj₁ Y') t'
    A-okB (SB.reg (SB.op (SB.w a d))) ar (ri , _) (o , _) = O.A-ok _ ar ri o
    A-okB (SB.reg (SB.op SB.rl)) ar (ri , _) (o , _) = O.A-ok _ ar ri o
    A-okB (SB.reg (SB.op SB.es)) {t = t} ar (ri , _) (k , r , _) = t , refl , proj₁ (run-A ar ri r)
    A-okB (SB.reg (SB.op SB.sy)) ar (ri , _) (o , _) = O.A-ok _ ar ri o
    A-okB (SB.reg SB.barrier) ar (ri , _) (o , _) = O.A-ok _ ar ri o
    A-okB SB.flush ar (ri , _) (o , _) = O.A-ok _ ar ri o

    B-okB : ∀ u {Y Y'} → RIB Y → okBX (SB.use u) Y Y' → RIB Y'
    B-okB (SB.reg (SB.op (SB.w a d))) (ri , ol) (o , pl) = O.B-ok _ ri o , Place-ol ol pl
    B-okB (SB.reg (SB.op SB.rl)) (ri , ol) (o , pl) = O.B-ok _ ri o , Place-ol ol pl
    B-okB (SB.reg (SB.op SB.es)) (ri , ol) (k , r , refl) = run-B ri r , ol
    B-okB (SB.reg (SB.op SB.sy)) (ri , ol) (o , refl) = O.B-ok _ ri o , ol
    B-okB (SB.reg SB.barrier) (ri , ol) (o , refl) = O.B-ok _ ri o , ol
    B-okB SB.flush (ri , ol) (o , refl) = O.B-ok _ ri o , ol

    A-crashB : ∀ u {Y t Y'} → O.AR (proj₁ Y) t → RIB Y → crashBX (SB.use u) Y Y' →
               Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × O.CR (proj₁ Y') t'
    A-crashB (SB.reg (SB.op (SB.w a d))) ar (ri , _) (c , _) = O.A-crash _ ar ri c
    A-crashB (SB.reg (SB.op SB.rl)) ar (ri , _) (c , _) = O.A-crash _ ar ri c
    A-crashB (SB.reg (SB.op SB.es)) ar (ri , _) (k , _ , r , _) = crash-A ar ri r
    A-crashB (SB.reg (SB.op SB.sy)) ar (ri , _) (c , _) = O.A-crash _ ar ri c
    A-crashB (SB.reg SB.barrier) ar (ri , _) (c , _) = O.A-crash _ ar ri c
    A-crashB SB.flush ar (ri , _) (c , _) = O.A-crash _ ar ri c

    B-crashB : ∀ u {Y Y'} → RIB Y → crashBX (SB.use u) Y Y' → CIB Y'
    B-crashB (SB.reg (SB.op (SB.w a d))) {X , bl} (ri , ol) (c , pl) = O.B-crash _ ri c , cPlace-ol {stOf X} {bl} ol pl
    B-crashB (SB.reg (SB.op SB.rl)) {X , bl} (ri , ol) (c , pl) = O.B-crash _ ri c , cPlace-ol {stOf X} {bl} ol pl
    B-crashB (SB.reg (SB.op SB.es)) (ri , ol) (k , _ , r , refl) = crash-B ri r , ol
    B-crashB (SB.reg (SB.op SB.sy)) (ri , ol) (c , refl) = O.B-crash _ ri c , ol
    B-crashB (SB.reg SB.barrier) (ri , ol) (c , refl) = O.B-crash _ ri c , ol
    B-crashB SB.flush (ri , ol) (c , refl) = O.B-crash _ ri c , ol

    obligationsBX : SB.ForwardSimulation.Obligations BX SB.SB
    obligationsBX = record
      { AR = λ Y t → O.AR (proj₁ Y) t ; CR = λ Y t → O.CR (proj₁ Y) t ; RI = RIB ; CI = CIB
      ; AR⇒≈ = O.AR⇒≈
      ; init-CR = λ n nt → O.init-CR (proj₁ n) nt
      ; init-CI = λ {Y} n → O.init-CI (proj₁ n) , ownloc-new {proj₂ Y} (proj₁ (proj₂ n))
      ; A-ok = A-okB ; A-crash = A-crashB
      ; A-rec = λ cr ci o → O.A-rec cr (proj₁ ci) (proj₁ o)
      ; A-recᶜ = λ cr ci c → O.A-recᶜ cr (proj₁ ci) (proj₁ c)
      ; B-ok = B-okB ; B-crash = B-crashB
      ; B-rec = λ { {_ , bl} {X' , _} (ci , ol) (o , refl) → O.B-rec ci o , ownloc-forget {bl} (nxt (stOf X')) ol }
      ; B-recᶜ = λ { (ci , ol) (c , refl) → O.B-recᶜ ci c , ol }
      }

    -- Theorem 1 and SC1B for the block layer over M
    theorem1-BX : SB.CorrespondenceB.BehaviourallyCorrect BX SB.SB
    theorem1-BX = SB.theorem1-SB BX obligationsBX

    BX-snapshot-consistent : SB.SnapshotConsistentB BX
    BX-snapshot-consistent = SB.obligations⇒SCB BX obligationsBX
