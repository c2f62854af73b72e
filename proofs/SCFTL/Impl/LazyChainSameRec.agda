{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: PL's crash relation is blind to dead pages on top of the
-- region, so a crash after any single flash command of PL meets
-- Theorem 1's crash obligations (as SCFTL.Impl.CrashPoints'
-- `command-crash-A`/`-B` do for P).
--
-- SCFTL.Impl.LazyChainCommands (`pl-command-crashes-covered`) maps a
-- crash after any command of PL's operations to an outcome of one of
-- PL's crash points up to `SameRec`: dead pages (erased or junk) on top
-- of the region, and the slots' names after recovery's SYNC.  PL's crash
-- relation `CRL` is P's `CR` on the flash with the records the walk
-- finds put on the region (`virt`): there the dead pages sit BELOW the
-- walked records, not on top, so P's dead-prefix lemmas do not apply.
--
--   * `acc-DI`: recovery's scan (`acc`) over a region with dead pages
--     inserted below a prefix of records that carry no tentative-page
--     list (`NT`) accepts the same newest commit, and what it replays
--     differs only by those dead pages, on which replay is the
--     identity (`rp-DI`); the digest check looks at the head only.
--     A record WITH a tentative-page list would check the pages below
--     it, and a dead page in between would flip its acceptance: NT is
--     needed, not a convenience.
--   * `RNT s`: every record slot holds (old and new) only cells with
--     no tentative-page list.  It holds on new disks (`rnt-new`), after
--     every step (`rnt-okPL`) and at every crash point (`rnt-crashPL`)
--     of PL: records are written only by the in-page/OOB commits, whose
--     precondition is an epoch without tentative pages (`ept s ≡ []`,
--     delta.rs `oob_fits`, used by `inpage_fits` too: `epoch_pages ==
--     0`, no tentative delta page of the epoch; the Rust mutant
--     `chain-commit-with-tentative-page` drops it).
--   * `same-CRL`: SameRec x y → CRL y t → CRL x t, given RNT.
--
--   pl-command-crash-A/B, pl-command-crash-recA/recB: the crash
--   obligations of Theorem 1 for PL (`crash-L` with `landed-ok`, and
--   `pl-rec-crash`) hold for a crash after ANY flash command of PL's
--   operations (`CmdCrashL`), not only at PL's crash points.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainSameRec (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                   (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc; _≡ᵇ_; _⊔_)
open import Data.Bool.Base using (Bool; true; false; not; if_then_else_)
open import Data.Empty using (⊥)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst; subst₂)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (All; []; _∷_; PM; Older; PM-cur; PM-sync; PM-dur; crashC-PM; map-cur-++; map-cur-syn; rp-++; DgM; all-++)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RecTo; recto; CR; AR; AR-tOf)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (Dead; padW; swp; swpIf; SwapOK; SameRec; same; same-pad; acc-dead; pick-swap; recTo-swap; PickOf;
         swap-fwd; swap-bwd; withDr; rec0''; recMap-sync; crashL-pad1; crashL-pad2)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow; fol)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Rof; Dof; fiL)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc using (pl-rec-crash)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL; CIL; crash-L)
open import SCFTL.Impl.LazyChainTheorem Data d0 amax wmax kmax _≟D_ kc using (landed-ok)
open import SCFTL.Impl.LazyChainCommands Data d0 amax wmax kmax _≟D_ kc using (CmdCrashL; pl-command-crashes-covered)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; crashS; use; recover; flush; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- Records without a tentative-page list

-- a cell that is no commit checking tentative pages below it
NT : Cell → Set
NT (dlt _ _ _ true (_ , dt , _)) = dt ≡ []
NT _                             = ⊤

-- such a cell's acceptance does not look below it
okC-NT : ∀ g D c l l' → NT c → okC g D c l ≡ okC g D c l'
okC-NT g D (dlt h x ps true (dd , dt , L)) l l' refl = refl
okC-NT g D (dlt h x ps false dg)           l l' _    = refl
okC-NT g D erased                          l l' _    = refl
okC-NT g D junk                            l l' _    = refl
okC-NT g D (dcell _ _)                     l l' _    = refl
okC-NT g D (cpt _ _)                       l l' _    = refl

-- what depends on a list's head only
lkOf-cons : ∀ c l l' → lkOf (c ∷ l) ≡ lkOf (c ∷ l')
lkOf-cons (dlt h x ps true dg) l l' = refl
lkOf-cons (dlt h x ps false dg) l l' = refl
lkOf-cons erased      l l' = refl
lkOf-cons junk        l l' = refl
lkOf-cons (dcell _ _) l l' = refl
lkOf-cons (cpt _ _)   l l' = refl

DgM-cons : ∀ M c l l' → DgM M (c ∷ l) → DgM M (c ∷ l')
DgM-cons M (dlt h x ps true dg) l l' d = d
DgM-cons M (dlt h x ps false dg) l l' d = d
DgM-cons M erased      l l' d = d
DgM-cons M junk        l l' d = d
DgM-cons M (dcell _ _) l l' d = d
DgM-cons M (cpt _ _)   l l' d = d

------------------------------------------------------------------------
-- Dead pages inserted below a prefix of NT cells

data DI : List Cell → List Cell → Set where
  pad : ∀ {ds ys} → All Dead ds → DI ys (ds ++ ys)
  kon : ∀ {c l l'} → NT c → DI l l' → DI (c ∷ l) (c ∷ l')

-- the same head, then DI
data HS : List Cell → List Cell → Set where
  hs-eq  : ∀ {l} → HS l l
  hs-kon : ∀ {c l l'} → DI l l' → HS (c ∷ l) (c ∷ l')

DI-pre : ∀ {vs l l'} → All NT vs → DI l l' → DI (vs ++ l) (vs ++ l')
DI-pre []         d = d
DI-pre (n ∷ ns)   d = kon n (DI-pre ns d)

acc-dead' : ∀ g D ds ys → All Dead ds → acc g D (ds ++ ys) ≡ acc g D ys
acc-dead' g D []                 ys []        = refl
acc-dead' g D (erased ∷ ds)      ys (tt ∷ dd) = acc-dead' g D ds ys dd
acc-dead' g D (junk ∷ ds)        ys (tt ∷ dd) = acc-dead' g D ds ys dd
acc-dead' g D (dcell _ _ ∷ ds)   ys (() ∷ dd)
acc-dead' g D (dlt _ _ _ _ _ ∷ ds) ys (() ∷ dd)
acc-dead' g D (cpt _ _ ∷ ds)     ys (() ∷ dd)

-- `acc-DI`: the scan accepts the same newest commit
acc-DI : ∀ g D {l l'} → DI l l' → HS (acc g D l) (acc g D l')
acc-DI g D (pad {ds} {ys} dd) = subst (λ z → HS (acc g D ys) z) (sym (acc-dead' g D ds ys dd)) hs-eq
acc-DI g D (kon {c} {l} {l'} n d) = go (okC g D c l) (okC g D c l') (okC-NT g D c l l' n)
  where
    go : ∀ b b' → b ≡ b' → HS (if b then c ∷ l else acc g D l) (if b' then c ∷ l' else acc g D l')
    go true  .true  refl = hs-kon d
    go false .false refl = acc-DI g D d

lkOf-HS : ∀ {l l'} → HS l l' → lkOf l ≡ lkOf l'
lkOf-HS hs-eq                    = refl
lkOf-HS (hs-kon {c} {l} {l'} d) = lkOf-cons c l l'

-- replay passes over dead pages
rp-dead : ∀ g ds ys mt → All Dead ds → rp g (ds ++ ys) mt ≡ rp g ys mt
rp-dead g []                 ys mt []        = refl
rp-dead g (erased ∷ ds)      ys mt (tt ∷ dd) = rp-dead g ds ys mt dd
rp-dead g (junk ∷ ds)        ys mt (tt ∷ dd) = rp-dead g ds ys mt dd
rp-dead g (dcell _ _ ∷ ds)   ys mt (() ∷ dd)
rp-dead g (dlt _ _ _ _ _ ∷ ds) ys mt (() ∷ dd)
rp-dead g (cpt _ _ ∷ ds)     ys mt (() ∷ dd)

rp-DI : ∀ g {l l'} → DI l l' → ∀ mt → rp g l mt ≡ rp g l' mt
rp-DI g (pad {ds} {ys} dd) mt = sym (rp-dead g ds ys mt dd)
rp-DI g (kon {c} n d)      mt = cong (rstep g c) (rp-DI g d mt)

rp-HS : ∀ g {l l'} → HS l l' → ∀ mt → rp g l mt ≡ rp g l' mt
rp-HS g hs-eq           mt = refl
rp-HS g (hs-kon {c} d)  mt = cong (rstep g c) (rp-DI g d mt)

-- what recovery replays (the linked record over the accepted part)
rp-chn : ∀ g R D {l l'} → HS l l' → ∀ mt → rp g (chn g R D l) mt ≡ rp g (chn g R D l') mt
rp-chn g R D {l} {l'} h mt =
  trans (rp-++ g (extM g R D (lkOf l)) l mt)
        (trans (cong₂ (λ e z → rp g e z) (cong (extM g R D) (lkOf-HS h)) (rp-HS g h mt))
               (sym (rp-++ g (extM g R D (lkOf l')) l' mt)))

DgM-++ : ∀ M e {l l'} → HS l l' → DgM M (e ++ l') → DgM M (e ++ l)
DgM-++ M []      hs-eq                  d = d
DgM-++ M []      (hs-kon {c} {l} {l'} _) d = DgM-cons M c l' l d
DgM-++ M (c ∷ e) {l} {l'} _             d = DgM-cons M c (e ++ l') (e ++ l) d

DgM-chn : ∀ M g R D {l l'} → HS l l' → DgM M (chn g R D l') → DgM M (chn g R D l)
DgM-chn M g R D {l} {l'} h d =
  DgM-++ M (extM g R D (lkOf l)) h (subst (λ o → DgM M (extM g R D o ++ l')) (sym (lkOf-HS h)) d)

all-mid : ∀ {A : Set} {P : A → Set} xs ys {zs} → All P (xs ++ (ys ++ zs)) → All P (xs ++ zs)
all-mid []       []       a        = a
all-mid []       (y ∷ ys) (_ ∷ a)  = all-mid [] ys a
all-mid (x ∷ xs) ys       (p ∷ a)  = p ∷ all-mid xs ys a

-- the region of the virtually consolidated flash, read
cur-virt-pad : ∀ vs ds ys → map cur (map syn vs ++ (map syn ds ++ ys)) ≡ vs ++ (ds ++ map cur ys)
cur-virt-pad vs ds ys =
  trans (map-cur-++ (map syn vs) (map syn ds ++ ys))
        (cong₂ _++_ (map-cur-syn vs) (trans (map-cur-++ (map syn ds) ys) (cong (_++ map cur ys) (map-cur-syn ds))))

cur-virt : ∀ vs ys → map cur (map syn vs ++ ys) ≡ vs ++ map cur ys
cur-virt vs ys = trans (map-cur-++ (map syn vs) ys) (cong (_++ map cur ys) (map-cur-syn vs))

-- the scan over the virtually consolidated flash, with and without dead
-- pages below the walked records
hs-mid : ∀ vs ds z g → All NT vs → All Dead ds →
  HS (acc g (Dof z) (map cur (map syn vs ++ dr z))) (acc g (Dof z) (map cur (map syn vs ++ (map syn ds ++ dr z))))
hs-mid vs ds z g nv dd =
  subst₂ (λ u v → HS (acc g (Dof z) u) (acc g (Dof z) v)) (sym (cur-virt vs (dr z))) (sym (cur-virt-pad vs ds (dr z)))
         (acc-DI g (Dof z) (DI-pre nv (pad dd)))

recMap-mid : ∀ vs ds z g C → All NT vs → All Dead ds → recMap g C (virt vs z) ≡ recMap g C (virt vs (padW ds z))
recMap-mid vs ds z g C nv dd = cong proj₁ (rp-chn g (Rof z) (Dof z) (hs-mid vs ds z g nv dd) (st0 C))

-- `recTo-mid`: what recovery finds on the virtually consolidated flash
-- with dead pages below the walked records carries over to the flash
-- without them
recTo-mid : ∀ vs ds z → All NT vs → All Dead ds → ∀ {M} → RecTo (virt vs (padW ds z)) M → RecTo (virt vs z) M
recTo-mid vs ds z nv dd (recto b g C pk sl so rs rg mx dm ro) =
  recto b g C pk (sl' b sl) (so' b so) (all-mid (map syn vs) (map syn ds) rs) (all-mid (map syn vs) (map syn ds) rg)
        (λ a → trans (cong (λ f → f a) (recMap-mid vs ds z g C nv dd)) (mx a)) (DgM-chn _ g R D (hs-mid vs ds z g nv dd) dm) ro
  where
    R = Rof z
    D = Dof z
    sl' : ∀ b → slot b (virt vs (padW ds z)) ≡ syn (cpt g C) → slot b (virt vs z) ≡ syn (cpt g C)
    sl' true  e = e
    sl' false e = e
    so' : ∀ b → PM (Older g) (slot (not b) (virt vs (padW ds z))) → PM (Older g) (slot (not b) (virt vs z))
    so' true  o = o
    so' false o = o

------------------------------------------------------------------------
-- The walk finds only record slots' cells

extM-NT : ∀ g R D l → (∀ p → NT (R p)) → All NT (extM g R D l)
extM-NT g R D nothing        nt = []
extM-NT g R D (just (x , L)) nt = ext (seek g omax R L)
  where
    at : ∀ q b → All NT (if b then R q ∷ [] else [])
    at q true  = nt q ∷ []
    at q false = []
    ext : ∀ mq → All NT (extS g R D x mq)
    ext nothing  = []
    ext (just q) = at q (okR g (suc x) D (R q))

walk-NT : ∀ k g R D l → (∀ p → NT (R p)) → All NT (follow k g R D l)
fol-NT  : ∀ k g R D cs → (∀ p → NT (R p)) → All NT cs → All NT (fol k g R D cs)
walk-NT zero    g R D l nt = []
walk-NT (suc k) g R D l nt = fol-NT k g R D (extM g R D l) nt (extM-NT g R D l nt)
fol-NT k g R D []       nt a = []
fol-NT k g R D (c ∷ cs) nt a = all-++ (walk-NT k g R D (lkOf (c ∷ cs)) nt) a

walk-pad : ∀ g ds z → All Dead ds → walkG g (padW ds z) ≡ walkG g z
walk-pad g ds z dd = cong (λ l → follow kc g (Rof z) (Dof z) (lkOf l)) (acc-dead g (Dof z) ds (dr z) dd)

------------------------------------------------------------------------
-- The crash relation carries over

crT : ∀ sw x ds g t → SwapOK sw x → All Dead ds → (∀ p → NT (Rof x p)) →
      CR (virt (walkG g (padW ds (swpIf sw x))) (padW ds (swpIf sw x))) t → CR (virt (walkG g x) x) t
crT false x ds g t ok dd nt (M , rt , dk) =
  M , recTo-mid (walkG g x) ds x (walk-NT kc g (Rof x) (Dof x) _ nt) dd
                (subst (λ v → RecTo (virt v (padW ds x)) M) (walk-pad g ds x dd) rt) , dk
crT true x ds g t ok dd nt (M , rt , dk) =
  M , recTo-swap true (virt (walkG g x) x) ok
        (recTo-mid (walkG g x) ds (swp x) (walk-NT kc g (Rof x) (Dof x) _ nt) dd
                   (subst (λ v → RecTo (virt v (padW ds (swp x))) M) (walk-pad g ds (swp x) dd) rt)) , dk

-- `same-CRL`: PL's crash relation holds of x when it holds of a state
-- SameRec with it, given that x's record slots hold no tentative-page
-- lists
same-CRL : ∀ {x y t} → (∀ p → NT (Rof x p)) → SameRec x y → CRL y t → CRL x t
same-CRL {x} {t = t} nt (same ds dd false ok refl) (b , g , C , pk , cr) = b , g , C , pk , crT false x ds g t ok dd nt cr
same-CRL {x} {t = t} nt (same ds dd true ok@(g₀ , C₀ , e) refl) (b , g , C , pk , cr)
  with trans (sym (pick-swap (cur (cpL x)) (cur (cpO x)) e)) pk
... | refl = false , g , C , e , crT true x ds g t ok dd nt cr

------------------------------------------------------------------------
-- PL's recovery on SameRec states (P's `same-recovery`): the same
-- outcome both ways, and a crash inside it SameRec outcomes

walk-swp : ∀ sw x g → walkG g (swpIf sw x) ≡ walkG g x
walk-swp false x g = refl
walk-swp true  x g = refl

-- PL's rebuilt state with the walked records as a parameter
rec0Lv : List Cell → Bool → ℕ → Map → St → St
rec0Lv vs b g C s = record (rec0 b g C (virt vs s)) { dr = map sync (dr s) }

topE-dead' : ∀ ds ys → All Dead ds → topE (ds ++ ys) ≡ topE ys
topE-dead' []                 ys []        = refl
topE-dead' (erased ∷ ds)      ys (tt ∷ dd) = topE-dead' ds ys dd
topE-dead' (junk ∷ ds)        ys (tt ∷ dd) = topE-dead' ds ys dd
topE-dead' (dcell _ _ ∷ ds)   ys (() ∷ dd)
topE-dead' (dlt _ _ _ _ _ ∷ ds) ys (() ∷ dd)
topE-dead' (cpt _ _ ∷ ds)     ys (() ∷ dd)

topE-mid : ∀ xs ds ys → All Dead ds → topE (xs ++ (ds ++ ys)) ≡ topE (xs ++ ys)
topE-mid []       ds ys dd = topE-dead' ds ys dd
topE-mid (c ∷ xs) ds ys dd = cong (epOf c ⊔_) (topE-mid xs ds ys dd)

hiR-dead' : ∀ ds ys → All Dead ds → hiR (ds ++ ys) ≡ hiR ys
hiR-dead' []                 ys []        = refl
hiR-dead' (erased ∷ ds)      ys (tt ∷ dd) = hiR-dead' ds ys dd
hiR-dead' (junk ∷ ds)        ys (tt ∷ dd) = hiR-dead' ds ys dd
hiR-dead' (dcell _ _ ∷ ds)   ys (() ∷ dd)
hiR-dead' (dlt _ _ _ _ _ ∷ ds) ys (() ∷ dd)
hiR-dead' (cpt _ _ ∷ ds)     ys (() ∷ dd)

hiR-cons : ∀ c {l l'} → hiR l ≡ hiR l' → hiR (c ∷ l) ≡ hiR (c ∷ l')
hiR-cons (dlt _ _ ps _ _) e = cong (hiP ps ⊔_) e
hiR-cons erased           e = e
hiR-cons junk             e = e
hiR-cons (dcell _ _)      e = e
hiR-cons (cpt _ _)        e = e

hiR-mid : ∀ xs ds ys → All Dead ds → hiR (xs ++ (ds ++ ys)) ≡ hiR (xs ++ ys)
hiR-mid []       ds ys dd = hiR-dead' ds ys dd
hiR-mid (c ∷ xs) ds ys dd = hiR-cons c (hiR-mid xs ds ys dd)

wd-rec0'' : ∀ b g M e n z l L → withDr (rec0'' b g M e n (withDr z l)) L ≡ withDr (rec0'' b g M e n z) L
wd-rec0'' true  g M e n z l L = refl
wd-rec0'' false g M e n z l L = refl

-- the rebuilt state from the flash with dead pages below the walked
-- records is the one without them, but for the region it keeps
rec0Lv-pad : ∀ vs b g C ds z → All NT vs → All Dead ds →
  rec0Lv vs b g C (padW ds z) ≡ withDr (rec0Lv vs b g C z) (map sync (map syn ds ++ dr z))
rec0Lv-pad vs b g C ds z nv dd =
  trans (cong₂ (λ M e → withDr (rec0'' b g M (suc e) (hiR (map cur (dr A))) A) L) eM eT)
        (trans (cong (λ n → withDr (rec0'' b g MB (suc eB) n A) L) eH)
               (wd-rec0'' b g MB (suc eB) nB B (dr A) L))
  where
    A = virt vs (padW ds z)
    B = virt vs z
    L = map sync (map syn ds ++ dr z)
    MB = recMap g C (syncAll B)
    eB = topE (map cur (dr B))
    nB = hiR (map cur (dr B))
    eM : recMap g C (syncAll A) ≡ MB
    eM = trans (recMap-sync g C A) (trans (sym (recMap-mid vs ds z g C nv dd)) (sym (recMap-sync g C B)))
    eT : topE (map cur (dr A)) ≡ eB
    eT = trans (cong topE (cur-virt-pad vs ds (dr z)))
               (trans (topE-mid vs ds (map cur (dr z)) dd) (cong topE (sym (cur-virt vs (dr z)))))
    eH : hiR (map cur (dr A)) ≡ nB
    eH = trans (cong hiR (cur-virt-pad vs ds (dr z)))
               (trans (hiR-mid vs ds (map cur (dr z)) dd) (cong hiR (sym (cur-virt vs (dr z)))))

rec0L-pad : ∀ b g C ds z → All Dead ds → All NT (walkG g z) →
  rec0L b g C (padW ds z) ≡ withDr (rec0L b g C z) (map sync (map syn ds ++ dr z))
rec0L-pad b g C ds z dd nv =
  trans (cong (λ v → rec0Lv v b g C (padW ds z)) (walk-pad g ds z dd)) (rec0Lv-pad (walkG g z) b g C ds z nv dd)

-- renaming the slots (P's `swap-fwd`, `swap-bwd`)
rec0L-swf : ∀ sw x → SwapOK sw x → ∀ {b g C} → PickOf x b g C →
  Σ Bool λ b' → PickOf (swpIf sw x) b' g C × rec0L b' g C (swpIf sw x) ≡ rec0L b g C x
rec0L-swf false x _ {b} pk = b , pk , refl
rec0L-swf true  x ok {b} {g} {C} pk with swap-fwd true (virt (walkG g x) x) ok pk
... | b' , pk' , e = b' , pk' , cong (λ r → record r { dr = map sync (dr x) }) e

rec0L-swb : ∀ sw x → SwapOK sw x → ∀ {b' g C} → PickOf (swpIf sw x) b' g C →
  Σ Bool λ b → PickOf x b g C × rec0L b' g C (swpIf sw x) ≡ rec0L b g C x
rec0L-swb false x _ {b'} pk = b' , pk , refl
rec0L-swb true  x ok {b'} {g} {C} pk with swap-bwd true (virt (walkG g x) x) ok pk
... | b , pk' , e = b , pk' , cong (λ r → record r { dr = map sync (dr x) }) e

pl-same-recovery : ∀ {G x y} → (∀ p → NT (Rof x p)) → SameRec x y →
    (∀ {r} → okPL G recover x r → Σ St λ r' → okPL G recover y r' × r' ≡ r)
  × (∀ {r} → okPL G recover y r → Σ St λ r' → okPL G recover x r' × r ≡ r')
  × (∀ {z} → crashPL G recover x z → Σ St λ z'' → crashPL G recover y z'' × SameRec z z'')
pl-same-recovery {G} {x} nt (same ds dd sw ok refl) = fwd , bwd , crs
  where
    x' = swpIf sw x
    nv : ∀ g → All NT (walkG g x')
    nv g = subst (All NT) (sym (walk-swp sw x g)) (walk-NT kc g (Rof x) (Dof x) _ nt)
    fwd : ∀ {r} → okPL G recover x r → Σ St λ r' → okPL G recover (padW ds x') r' × r' ≡ r
    fwd (b , g , C , pk , refl) with rec0L-swf sw x ok pk
    ... | b' , pk' , e =
      ck3 (rec0L b' g C (padW ds x')) , (b' , g , C , pk' , refl) ,
      trans (cong ck3 (rec0L-pad b' g C ds x' dd (nv g))) (cong ck3 e)
    bwd : ∀ {r} → okPL G recover (padW ds x') r → Σ St λ r' → okPL G recover x r' × r ≡ r'
    bwd (b' , g , C , pk' , refl) with rec0L-swb sw x ok pk'
    ... | b , pk , e =
      ck3 (rec0L b g C x) , (b , g , C , pk , refl) ,
      trans (cong ck3 (rec0L-pad b' g C ds x' dd (nv g))) (cong ck3 e)
    crs : ∀ {z} → crashPL G recover x z → Σ St λ z'' → crashPL G recover (padW ds x') z'' × SameRec z z''
    crs {z} (b , g , C , pk , m , ck , img) with rec0L-swf sw x ok pk
    ... | b' , pk' , e = go (subst (λ u → CkPt u m) (sym e) ck) img
      where
        R  = rec0L b' g C x'
        eq = rec0L-pad b' g C ds x' dd (nv g)
        go : CkPt R m → Img m z → Σ St λ z'' → crashPL G recover (padW ds x') z'' × SameRec z z''
        go (inj₁ refl) (d , l , o , r , i) =
          padW ds z , (b' , g , C , pk' , ck1 (rec0L b' g C (padW ds x')) , inj₁ refl ,
                       subst (λ q → Img (ck1 q) (padW ds z)) (sym eq) (d , l , o , crashL-pad1 ds r , i)) ,
          same-pad ds dd
        go (inj₂ (inj₁ refl)) (d , l , o , r , i) =
          padW ds z , (b' , g , C , pk' , ck2 (rec0L b' g C (padW ds x')) , inj₂ (inj₁ refl) ,
                       subst (λ q → Img (ck2 q) (padW ds z)) (sym eq) (d , l , o , crashL-pad2 ds r , i)) ,
          same-pad ds dd
        go (inj₂ (inj₂ refl)) im =
          z , (b' , g , C , pk' , ck3 (rec0L b' g C (padW ds x')) , inj₂ (inj₂ refl) ,
               subst (λ q → Img (ck3 q) z) (sym eq) im) ,
          same [] [] false tt refl

------------------------------------------------------------------------
-- RNT: an invariant of PL (new disks, steps, crash points)

RNT : St → Set
RNT s = ∀ p → PM NT (rcd s p)

nt-of : ∀ {s} → RNT s → ∀ p → NT (Rof s p)
nt-of {s} r p = PM-cur (rcd s p) (r p)

rnt-same : ∀ {x y} → SameRec x y → RNT y → RNT x
rnt-same (same ds dd false ok refl) r = r
rnt-same (same ds dd true  ok refl) r = r

rnt-new : ∀ {s} → NewP s → RNT s
rnt-new {s} n p = subst (PM NT) (sym (proj₂ (proj₂ (proj₂ n)) p)) tt

rnt-sync : ∀ s → RNT s → RNT (syncAll s)
rnt-sync s r p = PM-sync (rcd s p) (r p)

rnt-crash : ∀ {m s'} → RNT m → Img m s' → RNT s'
rnt-crash r (_ , _ , _ , _ , ci) p = crashC-PM tt (ci p) (r p)

-- the commit record of an epoch without tentative pages
rnt-fi2 : ∀ L s → ept s ≡ [] → RNT s → RNT (fi2 L s)
rnt-fi2 L s e r p with p ≡ᵇ L
... | true  = PM-dur (rcd s L) (r L) , e
... | false = r p

rnt-fi3 : ∀ L s → ept s ≡ [] → RNT s → RNT (fi3 L s)
rnt-fi3 L s e r = rnt-sync (fi2 L s) (rnt-fi2 L s e r)

rnt-ck2 : ∀ s → RNT s → RNT (ck2 s)
rnt-ck2 s r = rnt-sync (ck1 s) r

rnt-ck3 : ∀ s → RNT s → RNT (ck3 s)
rnt-ck3 s r = rnt-sync (ck2 s) (rnt-ck2 s r)

rnt-CkPt : ∀ s m → RNT s → CkPt s m → RNT m
rnt-CkPt s m r (inj₁ refl)        = r
rnt-CkPt s m r (inj₂ (inj₁ refl)) = rnt-ck2 s r
rnt-CkPt s m r (inj₂ (inj₂ refl)) = rnt-ck3 s r

rnt-fiPts : ∀ L s m → ept s ≡ [] → RNT s →
  (m ≡ fi2 L s ⊎ CkPt (fi3 L s) m ⊎ m ≡ fiK L s ⊎ m ≡ fi4 L s) → RNT m
rnt-fiPts L s m e r (inj₁ refl)               = rnt-fi2 L s e r
rnt-fiPts L s m e r (inj₂ (inj₁ ck))          = rnt-CkPt (fi3 L s) m (rnt-fi3 L s e r) ck
rnt-fiPts L s m e r (inj₂ (inj₂ (inj₁ refl))) = rnt-fi3 L s e r
rnt-fiPts L s m e r (inj₂ (inj₂ (inj₂ refl))) = rnt-sync (fiK L s) (rnt-fi3 L s e r)

rnt-FlPt : ∀ s m → RNT s → FlPt s m → RNT m
rnt-FlPt s m r (inj₁ refl)                                 = r
rnt-FlPt s m r (inj₂ (inj₁ refl))                          = rnt-sync (fl2 s) r
rnt-FlPt s m r (inj₂ (inj₂ (inj₁ ck)))                     = rnt-CkPt (fl3 s) m (rnt-sync (fl2 s) r) ck
rnt-FlPt s m r (inj₂ (inj₂ (inj₂ (inj₁ (L , ip , pt)))))   = rnt-fiPts L s m (proj₁ (proj₂ ip)) r pt
rnt-FlPt s m r (inj₂ (inj₂ (inj₂ (inj₂ (L , M , op , pt))))) = rnt-fiPts M s m (proj₁ (proj₂ op)) r pt

-- P's flush
rnt-flushP : ∀ s s' → RNT s → okP (use flush) s s' → RNT s'
rnt-flushP s s' r (inj₁ refl)        = rnt-sync (fl2 s) r
rnt-flushP s s' r (inj₂ (inj₁ refl)) = rnt-ck3 (fl3 s) (rnt-sync (fl2 s) r)
rnt-flushP s s' r (inj₂ (inj₂ (inj₁ (L , ip , inj₁ refl)))) = rnt-ck3 (fi3 L s) (rnt-fi3 L s (proj₁ (proj₂ ip)) r)
rnt-flushP s s' r (inj₂ (inj₂ (inj₁ (L , ip , inj₂ refl)))) = rnt-sync (fiK L s) (rnt-fi3 L s (proj₁ (proj₂ ip)) r)
rnt-flushP s s' r (inj₂ (inj₂ (inj₂ (L , M , op , inj₁ refl)))) = rnt-ck3 (fi3 M s) (rnt-fi3 M s (proj₁ (proj₂ op)) r)
rnt-flushP s s' r (inj₂ (inj₂ (inj₂ (L , M , op , inj₂ refl)))) = rnt-sync (fiK M s) (rnt-fi3 M s (proj₁ (proj₂ op)) r)

-- the chain's consolidation page and a write's optional pages
rnt-konsP : ∀ mc s → RNT s → RNT (konsP mc s)
rnt-konsP nothing  s r = r
rnt-konsP (just c) s r = r

rnt-konsX : ∀ mc s → RNT s → RNT (konsX mc s)
rnt-konsX nothing  s r = r
rnt-konsX (just c) s r = rnt-sync (konsP (just c) s) r

rnt-konsS : ∀ s → RNT s → RNT (konsS s)
rnt-konsS s = rnt-konsX (konsPg s) s

rnt-optP : ∀ f1 s → RNT s → RNT (optP f1 s)
rnt-optP true  s r = r
rnt-optP false s r = r

rnt-optL : ∀ f1 f2 s → RNT s → RNT (optL f1 f2 s)
rnt-optL f1 true  s r = rnt-konsS (optP f1 s) (rnt-optP f1 s r)
rnt-optL f1 false s r = rnt-optP f1 s r

rnt-optLK : ∀ f1 f2 s m → RNT s → optLK f1 f2 s m → RNT m
rnt-optLK f1 true  s m r refl = rnt-konsP (konsPg (optP f1 s)) (optP f1 s) (rnt-optP f1 s r)
rnt-optLK f1 false s m r ()

ept-lazy : ∀ {s M} → Lazy s M → ept s ≡ []
ept-lazy (_ , inj₁ ip)       = proj₁ (proj₂ ip)
ept-lazy (_ , inj₂ (L , op)) = proj₁ (proj₂ op)

rnt-rec0L : ∀ b g C s → RNT s → RNT (rec0L b g C s)
rnt-rec0L b g C s r = rnt-sync (virt (walkG g s) s) r

-- every step
rnt-okPL : ∀ G o {s s'} → RNT s → okPL G o s s' → RNT s'
rnt-okPL G (use (regop (w a d))) {s} r (inj₁ (_ , f1 , f2 , refl)) = rnt-optL f1 f2 (wr0 a d s) r
rnt-okPL G (use (regop (w a d))) {s} r (inj₂ (_ , refl)) = r
rnt-okPL G (use (regop rl)) {s} r (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) = rnt-optL f1 f2 (rl0 p s) r
rnt-okPL G (use (regop rl)) {s} r (inj₁ (_ , p , _ , inj₂ (_ , refl))) = r
rnt-okPL G (use (regop rl)) {s} r (inj₂ (_ , refl)) = r
rnt-okPL G (use (regop es)) {s} r (p , _ , _ , refl) = r
rnt-okPL G (use flush) {s} {s'} r (inj₁ st) = rnt-flushP (konsS s) s' (rnt-konsS s r) st
rnt-okPL G (use flush) {s} r (inj₂ (M , lz , refl)) = rnt-fi3 M s (ept-lazy {s} {M} lz) r
rnt-okPL G recover {s} r (b , g , C , _ , refl) = rnt-ck3 (rec0L b g C s) (rnt-rec0L b g C s r)

-- every crash point
rnt-crashPL : ∀ G o {s s'} → RNT s → crashPL G o s s' → RNT s'
rnt-crashPL G (use (regop (w a d))) {s} {s'} r (m , inj₁ ok , img) = rnt-crash {m} {s'} (rnt-okPL G (use (regop (w a d))) {s} {m} r ok) img
rnt-crashPL G (use (regop (w a d))) {s} {s'} r (m , inj₂ (_ , f1 , f2 , k) , img) = rnt-crash {m} {s'} (rnt-optLK f1 f2 (wr0 a d s) m r k) img
rnt-crashPL G (use (regop rl)) {s} {s'} r (m , inj₁ ok , img) = rnt-crash {m} {s'} (rnt-okPL G (use (regop rl)) {s} {m} r ok) img
rnt-crashPL G (use (regop rl)) {s} {s'} r (m , inj₂ (_ , p , _ , _ , f1 , f2 , k) , img) = rnt-crash {m} {s'} (rnt-optLK f1 f2 (rl0 p s) m r k) img
rnt-crashPL G (use (regop es)) {s} {s'} r (m , ok , img) = rnt-crash {m} {s'} (rnt-okPL G (use (regop es)) {s} {m} r ok) img
rnt-crashPL G (use flush) {s} {s'} r (m , inj₁ refl , img) = rnt-crash {m} {s'} (rnt-konsP (konsPg s) s r) img
rnt-crashPL G (use flush) {s} {s'} r (m , inj₂ (inj₁ fp) , img) = rnt-crash {m} {s'} (rnt-FlPt (konsS s) m (rnt-konsS s r) fp) img
rnt-crashPL G (use flush) {s} {s'} r (m , inj₂ (inj₂ (M , lz , inj₁ refl)) , img) = rnt-crash {m} {s'} (rnt-fi2 M s (ept-lazy {s} {M} lz) r) img
rnt-crashPL G (use flush) {s} {s'} r (m , inj₂ (inj₂ (M , lz , inj₂ refl)) , img) = rnt-crash {m} {s'} (rnt-fi3 M s (ept-lazy {s} {M} lz) r) img
rnt-crashPL G recover {s} {s'} r (b , g , C , _ , m , ck , img) = rnt-crash {m} {s'} (rnt-CkPt (rec0L b g C s) m (rnt-rec0L b g C s r) ck) img

------------------------------------------------------------------------
-- The crash obligations of Theorem 1 for PL, for a crash after any
-- flash command (PL's `crash-L`, `pl-rec-crash`; SCFTL.Impl.CrashPoints'
-- `command-crash-A`, `-B`, `-recA`, `-recB` for P)

pl-command-crash-A : ∀ u {s t x s'} → AR s t → RIL s → RNT s → CmdCrashL EraseGuard (use u) s x → Img x s' →
  Σ State λ t' → crashS (use u) t t' × CRL s' t'
pl-command-crash-A u {s} {t} {x} {s'} arr ril rn c img with pl-command-crashes-covered EraseGuard (use u) {s} {x} {s'} c img
... | s'' , cp , sr with crash-L landed-ok u arr ril cp
...   | t' , cs , crl = t' , cs , same-CRL {s'} {s''} {t'} (nt-of {s'} (rnt-same {s'} {s''} sr (rnt-crashPL EraseGuard (use u) {s} {s''} rn cp))) sr crl

pl-command-crash-B : ∀ u {s x s'} → RIL s → RNT s → CmdCrashL EraseGuard (use u) s x → Img x s' → CIL s'
pl-command-crash-B u {s} {x} {s'} ril rn c img with pl-command-crash-A u {s} {_} {x} {s'} (AR-tOf s) ril rn c img
... | t' , _ , crl = t' , crl

pl-command-crash-recA : ∀ {s t x s'} → CRL s t → RNT s → CmdCrashL EraseGuard recover s x → Img x s' →
  Σ State λ t' → crashS recover t t' × CRL s' t'
pl-command-crash-recA {s} {t} {x} {s'} cr rn c img with pl-command-crashes-covered EraseGuard recover {s} {x} {s'} c img
... | s'' , cp , sr with pl-rec-crash {EraseGuard} {s} {t} {s''} cr cp
...   | t' , cs , crl = t' , cs , same-CRL {s'} {s''} {t'} (nt-of {s'} (rnt-same {s'} {s''} sr (rnt-crashPL EraseGuard recover {s} {s''} rn cp))) sr crl

pl-command-crash-recB : ∀ {s x s'} → CIL s → RNT s → CmdCrashL EraseGuard recover s x → Img x s' → CIL s'
pl-command-crash-recB {s} {x} {s'} (t , cr) rn c img with pl-command-crash-recA {s} {t} {x} {s'} cr rn c img
... | t' , _ , crl = t' , crl

------------------------------------------------------------------------
-- RNT on every state an execution of PL reaches from a new disk (any
-- operations, successful or crashed, recovery included)

module FPL = Sp.Fragments PL

rnt-trace : ∀ {s s'} → RNT s → FPL.Trace s s' → RNT s'
rnt-trace r FPL.[] = r
rnt-trace {s} r (FPL.step {t' = m} (Sp.okL o) st tr)    = rnt-trace (rnt-okPL EraseGuard o {s} {m} r st) tr
rnt-trace {s} r (FPL.step {t' = m} (Sp.crashL o) c tr) = rnt-trace (rnt-crashPL EraseGuard o {s} {m} r c) tr

rnt-reach : ∀ {s s'} → NewP s → FPL.Trace s s' → RNT s'
rnt-reach {s} n tr = rnt-trace (rnt-new {s} n) tr
