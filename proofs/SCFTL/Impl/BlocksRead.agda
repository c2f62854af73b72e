{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, blocks: B reads its physical pages.
--
-- SCFTL.Impl.Blocks proves that B refines P, but B's read is P's read
-- (through P's page names).  Here the location map of B (`loc`, `own`,
-- `wp`) is proven to place every live P page on a physical page that
-- holds what P says it holds, so a read through the physical page (the
-- code's: L2P entry → physical address → flash) returns P's read.
--
--   Live s p   : some L2P (volatile `l2p` or stable `smap`) maps p
--   Corr x y   : physical page x holds what P's page y holds: the same
--                cell, and durable if y is (if y is unsynced, x has y's
--                current content, synced or not)
--   LocI b     : (i) every write pointer within the block; every live
--                P page (ii) is located at its physical page (`here`:
--                the physical page's last incarnation is it) (iii) below
--                its block's write pointer, and (iv) if not in the merge
--                buffer, `Corr` with its physical page
--
-- Results:
--   loc-ok      : every successful operation of B but recovery keeps
--                 LocI (from RIB: P's RI and erase before program);
--                 allocation (`balloc`), the merge buffer's program,
--                 whole-block erase (`berase`: a block with a live page
--                 is never erased, by P's two-phase GC) and flush
--   loc-rec     : recovery gives LocI provided every page the recovered
--                 L2P maps is located, below its write pointer, with its
--                 physical page's current cell (`RecLoc`); see below
--   read-physical  : LocI b → rdB b a ≡ rd (st b) a (the physical read
--                    is P's read), `stable-physical` (the same for the
--                    stable L2P)
--   live-distinct  : no two live P pages share a physical page
--   crash-agree    : after a crash of B (`BImg`), a P page that was
--                    located and `Corr` has its physical page hold
--                    exactly what the page holds in P after the crash
--   crash-reg      : so, after a crashed regular operation (write,
--                    relocation, block erase) from a LocI state, every
--                    page live and out of the merge buffer at the crash
--                    point is located at a physical page holding exactly
--                    P's (durable) content for it
--
-- The crash side for a crashed flush and a crashed recovery, and the
-- obligations of §4.4 for B with these physical reads, are in
-- SCFTL.Impl.BlocksPhys (given what P's crash lemmas before a SYNC
-- compute but do not export); see proofs/README.md, "Blocks".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.BlocksRead (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) (zb : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; n≤1+n; ≤∧≢⇒<; <-transˡ) renaming (_≟_ to _≟ℕ_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_; _∧_)
open import Data.List.Base using (List; []; _∷_; _++_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.All.Properties using (++⁻ˡ; ++⁻ʳ)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; rdS; RecTo; recto; crash-RI)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (recMap-syncAll)
open import SCFTL.Impl.Blocks Data d0 amax wmax kmax _≟D_ zb
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Op; use; flush; recover; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- Small lemmas on maps and booleans

just-inj : ∀ {A : Set} {x y : A} → just x ≡ just y → x ≡ y
just-inj refl = refl

upd-self : ∀ {A : Set} (f : ℕ → A) x v → (f [ x ≔ v ]) x ≡ v
upd-self f x v rewrite ≡ᵇ-refl x = refl

upd-ne : ∀ {A : Set} (f : ℕ → A) x y v → ¬ (x ≡ y) → (f [ y ≔ v ]) x ≡ f x
upd-ne f x y v ne with x ≡ᵇ y in e
... | true  = ⊥-elim (ne (≡ᵇ-true x y e))
... | false = refl

<⇒≢ : ∀ {m n} → m < n → ¬ (m ≡ n)
<⇒≢ {suc m} (s≤s lt) refl = <⇒≢ lt refl

if-true : ∀ {A : Set} {c} {x y : A} → c ≡ true → (if c then x else y) ≡ x
if-true refl = refl

pred≤ : ∀ {m n} → suc m ≤ suc n → m ≤ n
pred≤ (s≤s le) = le

------------------------------------------------------------------------
-- Physical pages against P's pages

-- physical page x holds what P's page y holds
Corr : MC → MC → Set
Corr x (syn c)   = x ≡ syn c
Corr x (uns o n) = cur x ≡ n

corr-cur : ∀ x y → Corr x y → cur x ≡ cur y
corr-cur x (syn c)   e = cong cur e
corr-cur x (uns o n) e = e

corr-sync : ∀ x y → cur x ≡ cur y → Corr (sync x) (sync y)
corr-sync x y e = cong syn e

corr-prog : ∀ md x y → (md ≡ nothing → Corr x y) → Corr (progm md x) (progm md y)
corr-prog nothing        x y c = c refl
corr-prog (just (d , a)) x y c = refl

cur-prog : ∀ md x y → (md ≡ nothing → cur x ≡ cur y) → cur (progm md x) ≡ cur (progm md y)
cur-prog nothing        x y c = c refl
cur-prog (just (d , a)) x y c = refl

-- some L2P (volatile or stable) maps p
Live : St → ℕ → Set
Live s p = Σ ℕ λ a → a ≤ amax × (l2p s a ≡ just p ⊎ smap s a ≡ just p)

-- p lies below its block's write pointer
InR : Bk → ℕ → Set
InR b p = proj₂ (loc b p) < wp b (proj₁ (loc b p))

-- the physical page where P page p is located
ploc : Bk → ℕ → MC
ploc b p = pf b (proj₁ (loc b p)) (proj₂ (loc b p))

record LocI (b : Bk) : Set where
  field
    wpZ   : ∀ k → wp b k ≤ Z
    lhere : ∀ p → Live (st b) p → here b p ≡ true
    linr  : ∀ p → Live (st b) p → InR b p
    lagr  : ∀ p → Live (st b) p → mb (st b) p ≡ nothing → Corr (ploc b p) (dat (st b) p)
open LocI

live-lt : ∀ {s p} → RI s → Live s p → p < nxt s
live-lt ri (a , le , inj₁ e) = proj₁ (RI.vOK ri a _ le e)
live-lt ri (a , le , inj₂ e) = proj₁ (RI.sOK ri a _ le e)

here-own : ∀ b p → here b p ≡ true → own b (proj₁ (loc b p)) (proj₂ (loc b p)) ≡ p
here-own b p h = ≡ᵇ-true _ _ h

------------------------------------------------------------------------
-- Physical reads

rdPh : Bk → Maybe ℕ → Data
rdPh b nothing  = d0
rdPh b (just p) = cellD (pvm (mb (st b) p) (cur (ploc b p)))

-- B's read: the volatile L2P entry, the merge buffer or the physical page
rdB : Bk → ℕ → Data
rdB b a = rdPh b (l2p (st b) a)

read-physical : ∀ {b} → LocI b → ∀ a → a ≤ amax → rdB b a ≡ rd (st b) a
read-physical {b} li a le with l2p (st b) a in e
... | nothing = refl
... | just p with mb (st b) p in em
...   | just (d , x) = refl
...   | nothing = cong cellD (corr-cur _ _ (lagr li p (a , le , inj₁ e) em))

-- the stable L2P read through the physical pages: what P's stable read is
stable-physical : ∀ {b} → LocI b → RI (st b) → ∀ a → a ≤ amax →
  rdPh b (smap (st b) a) ≡ rdS (st b) (smap (st b) a)
stable-physical {b} li ri a le with smap (st b) a in e
... | nothing = refl
... | just p with RI.sOK ri a p le e
...   | _ , em , _ rewrite em = cong cellD (corr-cur _ _ (lagr li p (a , le , inj₂ e) em))

-- no two live P pages share a physical page
live-distinct : ∀ {b p q} → LocI b → Live (st b) p → Live (st b) q → loc b p ≡ loc b q → p ≡ q
live-distinct {b} {p} {q} li lp lq e =
  trans (sym (here-own b p (lhere li p lp)))
        (trans (cong (λ x → own b (proj₁ x) (proj₂ x)) e) (here-own b q (lhere li q lq)))

------------------------------------------------------------------------
-- Allocation

live-place : ∀ {s s'} x → (∀ a → l2p s' a ≡ (l2p s [ x ≔ just (nxt s) ]) a) →
  (∀ a → smap s' a ≡ smap s a) → ∀ p → Live s' p → p ≡ nxt s ⊎ Live s p
live-place {s} {s'} x el esm p (a , le , inj₁ e) = go (a ≡ᵇ x) (trans (sym (el a)) e)
  where
    go : ∀ c → (if c then just (nxt s) else l2p s a) ≡ just p → p ≡ nxt s ⊎ Live s p
    go true  e' = inj₁ (sym (just-inj e'))
    go false e' = inj₂ (a , le , inj₁ e')
live-place {s} {s'} x el esm p (a , le , inj₂ e) = inj₂ (a , le , inj₂ (trans (sym (esm a)) e))

own-keep : ∀ (ow : ℕ → ℕ → ℕ) k v n kp op → (kp ≡ k → op < v) →
  (ow [ k ≔ ow k [ v ≔ n ] ]) kp op ≡ ow kp op
own-keep ow k v n kp op h with kp ≡ᵇ k in e
... | false = refl
... | true with ≡ᵇ-true kp k e
...   | refl = upd-ne (ow kp) op v n (<⇒≢ (h refl))

wp-grow : ∀ (f : ℕ → ℕ) k kp → f kp ≤ (f [ k ≔ suc (f k) ]) kp
wp-grow f k kp with kp ≡ᵇ k in e
... | false = ≤-refl
... | true rewrite ≡ᵇ-true kp k e = n≤1+n (f k)

loc-alloc : ∀ {b k} (f : St → St) (x : ℕ) → RI (st b) → LocI b → AllocOK b k →
  (∀ a → l2p (f (st b)) a ≡ (l2p (st b) [ x ≔ just (nxt (st b)) ]) a) →
  (∀ a → smap (f (st b)) a ≡ smap (st b) a) →
  ¬ (mb (f (st b)) (nxt (st b)) ≡ nothing) →
  (∀ p → ¬ (p ≡ nxt (st b)) → mb (f (st b)) p ≡ mb (st b) p) →
  (∀ p → dat (f (st b)) p ≡ dat (st b) p) →
  LocI (bP f (balloc k b))
loc-alloc {b} {k} f x ri li (_ , wz , _) el esm mn emb edat = record
  { wpZ = wpZ' ; lhere = lhere' ; linr = linr' ; lagr = lagr' }
  where
    n = nxt (st b)
    b' = bP f (balloc k b)
    eLn : loc b' n ≡ (k , wp b k)
    eLn = upd-self (loc b) n (k , wp b k)
    own-n : own b' k (wp b k) ≡ n
    own-n = trans (cong (λ g → g (wp b k)) (upd-self (own b) k (own b k [ wp b k ≔ n ])))
                  (upd-self (own b k) (wp b k) n)
    eLp : ∀ p → Live (st b) p → loc b' p ≡ loc b p
    eLp p lv = upd-ne (loc b) p n _ (<⇒≢ (live-lt ri lv))
    own-p : ∀ p → Live (st b) p →
      own b' (proj₁ (loc b p)) (proj₂ (loc b p)) ≡ own b (proj₁ (loc b p)) (proj₂ (loc b p))
    own-p p lv = own-keep (own b) k (wp b k) n (proj₁ (loc b p)) (proj₂ (loc b p))
                   (λ e → subst (λ k' → proj₂ (loc b p) < wp b k') e (linr li p lv))
    wpZ' : ∀ k' → wp b' k' ≤ Z
    wpZ' k' with k' ≡ᵇ k
    ... | true  = wz
    ... | false = wpZ li k'
    lhere' : ∀ p → Live (st b') p → here b' p ≡ true
    lhere' p lv with live-place {st b} {f (st b)} x el esm p lv
    ... | inj₁ refl = trans (cong (λ y → own b' (proj₁ y) (proj₂ y) ≡ᵇ n) eLn)
                            (trans (cong (_≡ᵇ n) own-n) (≡ᵇ-refl n))
    ... | inj₂ lv0 = trans (cong (λ y → own b' (proj₁ y) (proj₂ y) ≡ᵇ p) (eLp p lv0))
                           (trans (cong (_≡ᵇ p) (own-p p lv0)) (lhere li p lv0))
    linr' : ∀ p → Live (st b') p → InR b' p
    linr' p lv with live-place {st b} {f (st b)} x el esm p lv
    ... | inj₁ refl = subst (λ y → proj₂ y < wp b' (proj₁ y)) (sym eLn)
                        (subst (wp b k <_) (sym (upd-self (wp b) k (suc (wp b k)))) ≤-refl)
    ... | inj₂ lv0 = subst (λ y → proj₂ y < wp b' (proj₁ y)) (sym (eLp p lv0))
                       (<-transˡ (linr li p lv0) (wp-grow (wp b) k (proj₁ (loc b p))))
    lagr' : ∀ p → Live (st b') p → mb (st b') p ≡ nothing → Corr (ploc b' p) (dat (st b') p)
    lagr' p lv e with live-place {st b} {f (st b)} x el esm p lv
    ... | inj₁ refl = ⊥-elim (mn e)
    ... | inj₂ lv0 =
      subst (λ y → Corr y (dat (f (st b)) p)) (sym (cong (λ y → pf b (proj₁ y) (proj₂ y)) (eLp p lv0)))
        (subst (Corr (ploc b p)) (sym (edat p))
          (lagr li p lv0 (trans (sym (emb p (<⇒≢ (live-lt ri lv0)))) e)))

------------------------------------------------------------------------
-- The merge buffer's program and the delta page

isLoc-here : ∀ b p → here b p ≡ true → isLoc b (proj₁ (loc b p)) (proj₂ (loc b p)) ≡ true
isLoc-here b p h =
  subst (λ q → ((proj₁ (loc b q) ≡ᵇ proj₁ (loc b p)) ∧ (proj₂ (loc b q) ≡ᵇ proj₂ (loc b p))) ≡ true)
        (sym (here-own b p h))
        (cong₂ _∧_ (≡ᵇ-refl (proj₁ (loc b p))) (≡ᵇ-refl (proj₂ (loc b p))))

pprog-here : ∀ b p → here b p ≡ true → ploc (bprog b) p ≡ progm (mb (st b) p) (ploc b p)
pprog-here b p h = trans (if-true (isLoc-here b p h))
                         (cong (λ q → progm (mb (st b) q) (ploc b p)) (here-own b p h))

loc-prog : ∀ {b} → LocI b → LocI (bprog b)
loc-prog {b} li = record
  { wpZ = wpZ li ; lhere = lhere li ; linr = linr li
  ; lagr = λ p lv _ → subst (λ y → Corr y (progm (mb (st b) p) (dat (st b) p)))
                        (sym (pprog-here b p (lhere li p lv)))
                        (corr-prog (mb (st b) p) (ploc b p) (dat (st b) p) (lagr li p lv)) }

loc-T : ∀ {b} → LocI b → LocI (bP emitT b)
loc-T li = record { wpZ = wpZ li ; lhere = lhere li ; linr = linr li ; lagr = lagr li }

loc-opt : ∀ f1 f2 {b} → LocI b → LocI (bopt f1 f2 b)
loc-opt true  true  li = loc-T (loc-prog li)
loc-opt true  false li = loc-prog li
loc-opt false true  li = loc-T li
loc-opt false false li = li

-- an unsuccessful relocation: only the invalid queue and counter change
loc-rlX : ∀ {b} q → LocI b → LocI (bP (rlX q) b)
loc-rlX q li = record { wpZ = wpZ li ; lhere = lhere li ; linr = linr li ; lagr = lagr li }

------------------------------------------------------------------------
-- Whole-block erase

all-owners : ∀ {Q : ℕ → Set} b k n → All Q (ownersB b k n) →
  ∀ o → o < n → isLoc b k o ≡ true → Q (own b k o)
all-owners {Q} b k (suc n) al o lt il with o ≟ℕ n
... | yes refl = hd (subst (λ c → All Q (if c then own b k o ∷ [] else [])) il
                           (++⁻ˡ (if isLoc b k o then own b k o ∷ [] else []) al))
  where
    hd : ∀ {x} → All Q (x ∷ []) → Q x
    hd (px ∷ _) = px
... | no ne = all-owners b k n (++⁻ʳ (if isLoc b k n then own b k n ∷ [] else []) al) o
                (≤∧≢⇒< (pred≤ lt) ne) il

es-live : ∀ {s ps s' p} → EsRun s ps s' → Live s' p → Live s p
es-live (one e) lv = lv
es-live (e ∷ r) lv = es-live r lv

es-dat : ∀ {s ps s' p} → RI s → EsRun s ps s' → Live s' p → dat s' p ≡ dat s p
es-dat {s} {p = p} ri (one {p = q} e) lv = upd-ne (dat s) p q _ (ne lv)
  where
    ne : Live s p → ¬ (p ≡ q)
    ne (a , le , inj₁ el) refl = proj₁ (proj₂ (RI.eOK ri q e)) a le el
    ne (a , le , inj₂ es') refl = proj₂ (proj₂ (RI.eOK ri q e)) a le es'
es-dat {s} {p = p} ri (_∷_ {p = q} e r) lv =
  trans (es-dat (OP.B-ok (regop es) ri (q , e , refl)) r lv) (upd-ne (dat s) p q _ (ne (es-live r lv)))
  where
    ne : Live s p → ¬ (p ≡ q)
    ne (a , le , inj₁ el) refl = proj₁ (proj₂ (RI.eOK ri q e)) a le el
    ne (a , le , inj₂ es') refl = proj₂ (proj₂ (RI.eOK ri q e)) a le es'

-- a live page is in no block erased from a state with RI
live-not-erased : ∀ {b k s' p} → RI (st b) → LocI b → EsRun (st b) (owners b k) s' →
  Live (st b) p → ¬ (proj₁ (loc b p) ≡ k)
live-not-erased {b} {k} {s'} {p} ri li r lv e = dead-live d lv
  where
    kp = proj₁ (loc b p)
    op = proj₂ (loc b p)
    il : isLoc b k op ≡ true
    il = subst (λ k' → isLoc b k' op ≡ true) e (isLoc-here b p (lhere li p lv))
    lt : op < Z
    lt = <-transˡ (subst (λ k' → op < wp b k') e (linr li p lv)) (wpZ li k)
    own≡ : own b k op ≡ p
    own≡ = subst (λ k' → own b k' op ≡ p) e (here-own b p (lhere li p lv))
    d : Dead (st b) p
    d = subst (Dead (st b)) own≡ (all-owners b k Z (es-dead ri r) op lt il)
    dead-live : Dead (st b) p → Live (st b) p → ⊥
    dead-live (d1 , d2) (a , le , inj₁ el) = d1 a le el
    dead-live (d1 , d2) (a , le , inj₂ es') = d2 a le es'

loc-erase : ∀ {b k s'} → RI (st b) → LocI b → EsRun (st b) (owners b k) s' → LocI (berase k s' b)
loc-erase {b} {k} {s'} ri li r = record { wpZ = wpZ' ; lhere = lhere' ; linr = linr' ; lagr = lagr' }
  where
    b' = berase k s' b
    wpZ' : ∀ k' → wp b' k' ≤ Z
    wpZ' k' with k' ≡ᵇ k
    ... | true  = z≤n
    ... | false = wpZ li k'
    lhere' : ∀ p → Live s' p → here b' p ≡ true
    lhere' p lv = lhere li p (es-live r lv)
    linr' : ∀ p → Live s' p → InR b' p
    linr' p lv = subst (proj₂ (loc b p) <_)
                   (sym (upd-ne (wp b) (proj₁ (loc b p)) k 0 (live-not-erased ri li r (es-live r lv))))
                   (linr li p (es-live r lv))
    lagr' : ∀ p → Live s' p → mb s' p ≡ nothing → Corr (ploc b' p) (dat s' p)
    lagr' p lv e =
      subst (λ y → Corr y (dat s' p))
        (sym (cong (λ g → g (proj₂ (loc b p)))
               (upd-ne (pf b) (proj₁ (loc b p)) k _ (live-not-erased ri li r (es-live r lv)))))
        (subst (Corr (ploc b p)) (sym (es-dat ri r lv))
          (lagr li p (es-live r lv) (trans (sym (es-mb r p)) e)))

------------------------------------------------------------------------
-- Flush

fl-facts : ∀ {s s'} → okP (use flush) s s' →
  (∀ a → l2p s' a ≡ l2p s a) × (∀ a → smap s' a ≡ l2p s a) ×
  (∀ p → dat s' p ≡ sync (progm (mb s p) (dat s p)))
fl-facts (inj₁ refl) = (λ a → refl) , (λ a → refl) , (λ p → refl)
fl-facts (inj₂ (inj₁ refl)) = (λ a → refl) , (λ a → refl) , (λ p → refl)
fl-facts (inj₂ (inj₂ (inj₁ (L , ip , inj₁ refl)))) = (λ a → refl) , (λ a → refl) , (λ p → refl)
fl-facts (inj₂ (inj₂ (inj₁ (L , ip , inj₂ refl)))) = (λ a → refl) , (λ a → refl) , (λ p → refl)
fl-facts (inj₂ (inj₂ (inj₂ (L , M , op , inj₁ refl)))) = (λ a → refl) , (λ a → refl) , (λ p → refl)
fl-facts (inj₂ (inj₂ (inj₂ (L , M , op , inj₂ refl)))) = (λ a → refl) , (λ a → refl) , (λ p → refl)

loc-flush : ∀ {b s'} → LocI b → okP (use flush) (st b) s' →
  LocI (record b { st = s' ; pf = psync (pprog b) })
loc-flush {b} {s'} li o = record { wpZ = wpZ li ; lhere = λ p lv → lhere li p (back p lv)
  ; linr = λ p lv → linr li p (back p lv) ; lagr = lagr' }
  where
    fx = fl-facts {st b} {s'} o
    back : ∀ p → Live s' p → Live (st b) p
    back p (a , le , inj₁ e) = a , le , inj₁ (trans (sym (proj₁ fx a)) e)
    back p (a , le , inj₂ e) = a , le , inj₁ (trans (sym (proj₁ (proj₂ fx) a)) e)
    lagr' : ∀ p → Live s' p → mb s' p ≡ nothing →
      Corr (psync (pprog b) (proj₁ (loc b p)) (proj₂ (loc b p))) (dat s' p)
    lagr' p lv _ = subst (Corr (psync (pprog b) (proj₁ (loc b p)) (proj₂ (loc b p)))) (sym (proj₂ (proj₂ fx) p))
      (corr-sync (ploc (bprog b) p) (progm (mb (st b) p) (dat (st b) p)) (trans (cong cur (pprog-here b p (lhere li p (back p lv))))
        (cur-prog (mb (st b) p) (ploc b p) (dat (st b) p)
          (λ e → corr-cur _ _ (lagr li p (back p lv) e)))))

------------------------------------------------------------------------
-- Every successful operation but recovery keeps LocI

loc-ok : ∀ u {b b'} → RI (st b) → LocI b → okB (use u) b b' → LocI b'
loc-ok (regop (w a d)) {b} ri li (inj₁ (ib , k , aok , f1 , f2 , refl)) =
  loc-opt f1 f2 (loc-alloc {b} {k} (wr0 a d) a ri li aok (λ _ → refl) (λ _ → refl)
    (λ e → nj (trans (sym (upd-self (mb (st b)) (nxt (st b)) (just (d , a)))) e))
    (λ p ne → upd-ne (mb (st b)) p (nxt (st b)) _ ne) (λ _ → refl))
  where
    nj : ∀ {x : Data × ℕ} → ¬ (just x ≡ nothing)
    nj ()
loc-ok (regop (w a d)) ri li (inj₂ (_ , refl)) = li
loc-ok (regop rl) {b} ri li (inj₁ (g , q , lt , inj₁ (v , k , aok , f1 , f2 , refl))) =
  loc-opt f1 f2 (loc-alloc {b} {k} (rl0 q) (p2l (st b) q) ri li aok (λ _ → refl) (λ _ → refl)
    (λ e → nj (trans (sym (upd-self (mb (st b)) (nxt (st b)) _)) e))
    (λ p ne → upd-ne (mb (st b)) p (nxt (st b)) _ ne) (λ _ → refl))
  where
    nj : ∀ {x : Data × ℕ} → ¬ (just x ≡ nothing)
    nj ()
loc-ok (regop rl) ri li (inj₁ (g , q , lt , inj₂ (_ , refl))) = loc-rlX q li
loc-ok (regop rl) ri li (inj₂ (_ , refl)) = li
loc-ok (regop es) {b} ri li (k , _ , s' , r , refl) = loc-erase {b} {k} {s'} ri li r
loc-ok flush {b} ri li (s' , o , refl) = loc-flush {b} {s'} li o

------------------------------------------------------------------------
-- Recovery

rec-dat : ∀ {s s'} → okP recover s s' → ∀ p → dat s' p ≡ sync (dat s p)
rec-dat (c , g , C , pk , inj₁ refl) p = refl
rec-dat (c , g , C , pk , inj₂ (_ , _ , refl)) p = refl

-- what recovery needs of the crashed state: the pages the recovered L2P
-- maps are located, below their write pointer, and their physical pages
-- hold their current cell
RecLoc : Bk → St → Set
RecLoc b s' = ∀ p → Live s' p →
  here b p ≡ true × InR b p × cur (ploc b p) ≡ cur (dat (st b) p)

loc-rec : ∀ {b b'} → (∀ k → wp b k ≤ Z) → okB recover b b' → RecLoc b (st b') → LocI b'
loc-rec {b} wz (s' , o , refl) rcl = record
  { wpZ = wz ; lhere = λ p lv → proj₁ (rcl p lv) ; linr = λ p lv → proj₁ (proj₂ (rcl p lv))
  ; lagr = λ p lv _ → subst (Corr (sync (ploc b p))) (sym (rec-dat {st b} o p))
                        (corr-sync (ploc b p) (dat (st b) p) (proj₂ (proj₂ (rcl p lv)))) }

------------------------------------------------------------------------
-- Crashes

-- after a crash, a page that was located and agreed with its physical
-- page is still located there, and the physical page holds exactly
-- what the page holds in P
crash-agree : ∀ {m b'} p → BImg m b' → here m p ≡ true → Corr (ploc m p) (dat (st m) p) →
  here b' p ≡ true × ploc b' p ≡ dat (st b') p
crash-agree {m} {b'} p (pd , _ , _ , _ , _ , dt , lc , ow , _) hm c = hr , phys
  where
    hr : here b' p ≡ true
    hr = trans (cong (λ l → own b' (proj₁ l) (proj₂ l) ≡ᵇ p) (lc p))
               (trans (cong (_≡ᵇ p) (ow (proj₁ (loc m p)) (proj₂ (loc m p)))) hm)
    y = pf b' (proj₁ (loc m p)) (proj₂ (loc m p))
    core : ∀ x → Corr (ploc m p) x → CrashD (ploc m p) y → y ≡ pickC true x y
    core (syn c) e cd = subst (λ z → CrashD z y) e cd
    core (uns o n) _ cd = refl
    phys : ploc b' p ≡ dat (st b') p
    phys = trans (cong (λ l → pf b' (proj₁ l) (proj₂ l)) (lc p))
             (trans (core (dat (st m) p) c (pd (proj₁ (loc m p)) (proj₂ (loc m p))))
               (sym (subst (λ h → dat (st b') p ≡ pickC h (dat (st m) p) y) hm (dt p))))

-- a crashed regular operation (write, relocation, block erase) from a
-- LocI state: every page live and out of the merge buffer at its crash
-- point is located, after the crash, at a physical page that holds
-- exactly P's content for it
crash-reg : ∀ x {b b'} → RI (st b) → LocI b → crashB (use (regop x)) b b' →
  Σ Bk λ m → okB (use (regop x)) b m ×
    (∀ p → Live (st m) p → mb (st m) p ≡ nothing → here b' p ≡ true × ploc b' p ≡ dat (st b') p)
crash-reg x {b} {b'} ri li (m , okm , img) =
  m , okm , λ p lv e → crash-agree {m} {b'} p img (lhere lm p lv) (lagr lm p lv e)
  where
    lm : LocI m
    lm = loc-ok (regop x) {b} {m} ri li okm

------------------------------------------------------------------------
-- A crashed regular operation, then recovery: the recovered L2P's pages
-- are located and read physically as in P

-- the recovered map's pages are located, below their write pointers,
-- on physical pages that hold exactly what P's pages hold
LocM : Bk → Map → Set
LocM b M = ∀ a p → a ≤ amax → M a ≡ just p → here b p ≡ true × InR b p × ploc b p ≡ dat (st b) p

-- recovery installs the map it recovers to (volatile and stable)
rec-map : ∀ {s M s'} → RecTo s M → okP recover s s' → ∀ a → l2p s' a ≡ M a × smap s' a ≡ M a
rec-map {s} (recto b g C pk₀ sl so rs rg mx dm ro) (b' , g' , C' , pk , inj₁ refl) a with trans (sym pk₀) pk
... | refl = e , e
  where e = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)
rec-map {s} (recto b g C pk₀ sl so rs rg mx dm ro) (b' , g' , C' , pk , inj₂ (_ , _ , refl)) a with trans (sym pk₀) pk
... | refl = e , e
  where e = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)

loc-recM : ∀ {b b' M} → (∀ k → wp b k ≤ Z) → RecTo (st b) M → LocM b M → okB recover b b' → LocI b'
loc-recM {b} {b'} {M} wz rt lm (s' , o , refl) = loc-rec {b} wz (s' , o , refl) rcl
  where
    via : ∀ p a → a ≤ amax → M a ≡ just p → here b p ≡ true × InR b p × cur (ploc b p) ≡ cur (dat (st b) p)
    via p a le e with lm a p le e
    ... | h , i , q = h , i , cong cur q
    rcl : RecLoc b s'
    rcl p (a , le , inj₁ e) = via p a le (trans (sym (proj₁ (rec-map rt o a))) e)
    rcl p (a , le , inj₂ e) = via p a le (trans (sym (proj₂ (rec-map rt o a))) e)

-- a crashed regular operation (write, relocation, block erase) from a
-- normal state of B with LocI: recovery recovers to a map (P's stable
-- L2P at the crash point) whose pages are located on physical pages
-- holding exactly P's content
crash-reg-loc : ∀ x {b b'} → RI (st b) → LocI b → crashB (use (regop x)) b b' →
  (∀ k → wp b' k ≤ Z) × Σ Map λ M → RecTo (st b') M × LocM b' M
crash-reg-loc x {b} {b'} ri li (m , okm , img) =
  (λ k → subst (_≤ Z) (sym (wpe k)) (wpZ lm k)) ,
  smap (st m) , crash-RI {st m} {st b'} rim (img-refines {m} {b'} img) , lmM
  where
    lm : LocI m
    lm = loc-ok (regop x) {b} {m} ri li okm
    rim : RI (st m)
    rim = B-okB (regop x) {b} {m} ri okm
    lce : ∀ p → loc b' p ≡ loc m p
    lce = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ img))))))
    wpe : ∀ k → wp b' k ≡ wp m k
    wpe = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ img))))))))
    lmM : LocM b' (smap (st m))
    lmM a p le e with RI.sOK rim a p le e
    ... | _ , em , _ with crash-agree {m} {b'} p img (lhere lm p (a , le , inj₂ e)) (lagr lm p (a , le , inj₂ e) em)
    ...   | h , q = h , subst (λ l → proj₂ l < wp b' (proj₁ l)) (sym (lce p))
                          (subst (proj₂ (loc m p) <_) (sym (wpe (proj₁ (loc m p)))) (linr lm p (a , le , inj₂ e))) , q

-- hence: after a crashed regular operation and a recovery, B's location
-- invariant holds again, and B's physical read is P's read
crash-reg-then-rec : ∀ x {b b' b''} → RI (st b) → LocI b → crashB (use (regop x)) b b' →
  okB recover b' b'' → LocI b'' × (∀ a → a ≤ amax → rdB b'' a ≡ rd (st b'') a)
crash-reg-then-rec x {b} {b'} {b''} ri li c r with crash-reg-loc x {b} {b'} ri li c
... | wz , M , rt , lmM = li'' , read-physical li''
  where
    li'' : LocI b''
    li'' = loc-recM {b'} {b''} {M} wz rt lmM r

------------------------------------------------------------------------
-- A crash in the middle of a block erase (the erase command torn: each
-- page of the block old, erased, or junk) is a crash outcome of B's
-- erase step: every physical page of the erased block is unsynced, so
-- it may end with any content.

torn-erase : ∀ {b k s'} → okB (use (regop es)) b (berase k s' b) →
  ∀ (y : ℕ → Cell) → crashB (use (regop es)) b
    (bcrash (berase k s' b) (λ k' o → if k' ≡ᵇ k then syn (y o) else sync (pf (berase k s' b) k' o)))
torn-erase {b} {k} {s'} ok y = berase k s' b , ok , bcrash-img m yy cd
  where
    m = berase k s' b
    yy : ℕ → ℕ → MC
    yy k' o = if k' ≡ᵇ k then syn (y o) else sync (pf m k' o)
    cd : ∀ k' o → CrashD (pf m k' o) (yy k' o)
    cd k' o with k' ≡ᵇ k
    ... | true  = y o , refl
    ... | false = land-D (pf b k' o)
