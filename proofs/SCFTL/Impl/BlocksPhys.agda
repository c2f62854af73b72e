{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, blocks: B with physical reads (`Bφ`: B whose read is the
-- read through the physical pages, `rdB`) satisfies the obligations of
-- §4.4, hence Theorem 1 (`theorem1-Bφ′`) and snapshot consistency
-- (`Bφ-snapshot-consistent′`).
--
-- The relations are B's (P's on the P state B carries) with the
-- location invariant of SCFTL.Impl.BlocksRead added: `LocI` in normal
-- states (so `rdB` is P's read, `read-physical`), and in crash states
-- `Lc`: a map recovery recovers to (`RecTo`) whose pages are located,
-- below their write pointers, on physical pages holding exactly P's
-- content (`LocM`).  A crash keeps it: a crashed regular operation
-- (`crash-reg-loc`), a crashed flush (`flush-Lc`, from `FlushMaps` and
-- the pairing of the physical pages' sync status with P's crash point,
-- `PreSync`), a crashed recovery (`rec-Lc`, P's `rec-crash`: the same
-- map); recovery turns it into `LocI` (`loc-recM`).
--
-- `FlushMaps` (`flush-maps`): after a crash at a flush's crash point,
-- any map recovery recovers to is, on the addresses, the stable or the
-- volatile L2P the flush started from: P's crash lemmas name that map
-- (after the SYNC `l2p s`; before it `fl2-crash⁺`, `fi2-crash⁺`,
-- `fiK-crash⁺` of SCFTL.Impl.Flush: `CRm`), and recovery's map is
-- determined by the flash (`rec-det`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.BlocksPhys (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) (zb : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; z≤n)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
  using (RI; AR; CR; CI; RecTo; recto; DOKs; crash-RI; ck-crash; ri-rec; ri-dgm; AR-tOf)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (all-sync)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_
  using (all-sync-IsSyn; fl3-RI; fi4-RI; fi3-rsy; fi3-rec; fi3-dgm; CRm; fl2-crash⁺; fi2-crash⁺; fiK-crash⁺)
open import Data.Unit.Base using (tt)
open import Relation.Nullary using (¬_)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (rec-crash)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (new-RecTo)
open import SCFTL.Impl.Blocks Data d0 amax wmax kmax _≟D_ zb
open import SCFTL.Impl.BlocksRead Data d0 amax wmax kmax _≟D_ zb
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; okS; crashS; Model; UOp; Op; use; flush; recover;
               RegOp; w; rl; es; SnapshotConsistent; obligations⇒SC; new-disk)
  renaming (reg to regop)

------------------------------------------------------------------------
-- B with physical reads

Bφ : Model
Bφ = record { State = Bk ; New = NewB ; read = rdB ; ok = okB ; crash = crashB }

------------------------------------------------------------------------
-- What recovery recovers to

-- recovery's map is determined by the flash (on every address)
rec-det : ∀ {s M M'} → RecTo s M → RecTo s M' → ∀ a → M a ≡ M' a
rec-det (recto b g C pk sl so rs rg mx dm ro) (recto b' g' C' pk' sl' so' rs' rg' mx' dm' ro') a
  with trans (sym pk) pk'
... | refl = trans (sym (mx a)) (mx' a)

LocM-≐ : ∀ {b M M'} → (∀ a → M a ≡ M' a) → LocM b M → LocM b M'
LocM-≐ e lm a p le q = lm a p le (trans (e a) q)

-- the crash-state part: write pointers, and a recovered map located
Lc : Bk → Set
Lc b = (∀ k → wp b k ≤ Z) × Σ Map λ M → RecTo (st b) M × LocM b M

FlushMaps : Set
FlushMaps = ∀ {s m s' M} → RI s → FlPt s m → Img m s' → RecTo s' M →
  (∀ a → a ≤ amax → M a ≡ smap s a) ⊎ (∀ a → a ≤ amax → M a ≡ l2p s a)

------------------------------------------------------------------------
-- Crash points of flush: data pages

corr-sync' : ∀ x y → cur x ≡ cur y → Corr (sync x) y
corr-sync' x (syn c)   e = cong syn e
corr-sync' x (uns o n) e = e

ck-cur : ∀ {u m} → CkPt u m → ∀ p → cur (dat m p) ≡ cur (dat u p)
ck-cur (inj₁ refl) p = refl
ck-cur (inj₂ (inj₁ refl)) p = refl
ck-cur (inj₂ (inj₂ refl)) p = refl

lk-cur : ∀ {s m} M → (m ≡ fi2 M s ⊎ CkPt (fi3 M s) m ⊎ m ≡ fiK M s ⊎ m ≡ fi4 M s) →
  ∀ p → cur (dat m p) ≡ cur (progm (mb s p) (dat s p))
lk-cur M (inj₁ refl) p = refl
lk-cur {s} {m} M (inj₂ (inj₁ ck)) p = ck-cur {fi3 M s} {m} ck p
lk-cur M (inj₂ (inj₂ (inj₁ refl))) p = refl
lk-cur M (inj₂ (inj₂ (inj₂ refl))) p = refl

fl-pt-cur : ∀ {s m} → FlPt s m → ∀ p → cur (dat m p) ≡ cur (progm (mb s p) (dat s p))
fl-pt-cur (inj₁ refl) p = refl
fl-pt-cur (inj₂ (inj₁ refl)) p = refl
fl-pt-cur {s} {m} (inj₂ (inj₂ (inj₁ ck))) p = ck-cur {fl3 s} {m} ck p
fl-pt-cur (inj₂ (inj₂ (inj₂ (inj₁ (L , ip , c))))) p = lk-cur L c p
fl-pt-cur (inj₂ (inj₂ (inj₂ (inj₂ (L , M , op , c))))) p = lk-cur M c p

pre-dat : ∀ {s m} → PreSync s m → ∀ p → dat m p ≡ progm (mb s p) (dat s p)
pre-dat (inj₁ refl) p = refl
pre-dat (inj₂ (M , refl)) p = refl

-- a page live at the flush's start agrees with its physical page at
-- every crash point of the flush
fl-corr : ∀ {b m} y → LocI b → FlPt (st b) m → (y ≡ true → PreSync (st b) m) →
  ∀ p → Live (st b) p →
  Corr (ploc (record b { st = m ; pf = if y then pprog b else psync (pprog b) }) p) (dat m p)
fl-corr {b} {m} true li fp ty p lv =
  subst (Corr (pprog b (proj₁ (loc b p)) (proj₂ (loc b p)))) (sym (pre-dat (ty refl) p))
    (subst (λ z → Corr z (progm (mb (st b) p) (dat (st b) p))) (sym (pprog-here b p (LocI.lhere li p lv)))
      (corr-prog (mb (st b) p) (ploc b p) (dat (st b) p) (LocI.lagr li p lv)))
fl-corr {b} {m} false li fp ty p lv =
  corr-sync' (pprog b (proj₁ (loc b p)) (proj₂ (loc b p))) (dat m p)
    (trans (cong cur (pprog-here b p (LocI.lhere li p lv)))
      (trans (cur-prog (mb (st b) p) (ploc b p) (dat (st b) p)
               (λ e → corr-cur _ _ (LocI.lagr li p lv e)))
             (sym (fl-pt-cur fp p))))

-- after a crash at a crash point m of B, a page located at m, below its
-- write pointer, that agreed at m is located, below its write pointer,
-- at a physical page holding exactly P's content
after : ∀ {m b'} → BImg m b' → ∀ p → here m p ≡ true → InR m p → Corr (ploc m p) (dat (st m) p) →
  here b' p ≡ true × InR b' p × ploc b' p ≡ dat (st b') p
after {m} {b'} img p h0 i0 c with crash-agree {m} {b'} p img h0 c
... | h , q = h , subst (λ l → proj₂ l < wp b' (proj₁ l)) (sym (lce p))
                    (subst (proj₂ (loc m p) <_) (sym (wpe (proj₁ (loc m p)))) i0) , q
  where
    lce : ∀ p → loc b' p ≡ loc m p
    lce = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ img))))))
    wpe : ∀ k → wp b' k ≡ wp m k
    wpe = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ img))))))))

bimg-wp : ∀ {m b'} → BImg m b' → ∀ k → wp b' k ≡ wp m k
bimg-wp img = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ img))))))))

flush-Lc : FlushMaps → ∀ {b b' M} → RI (st b) → LocI b → crashB (use flush) b b' →
  RecTo (st b') M → Lc b'
flush-Lc fm {b} {b'} {M} ri li (m , fp , y , ty , img) rt =
  (λ k → subst (_≤ Z) (sym (bimg-wp {mB} {b'} img k)) (LocI.wpZ li k)) , M , rt , lm
  where
    mB = record b { st = m ; pf = if y then pprog b else psync (pprog b) }
    lm : LocM b' M
    lm a p le e with fm ri fp (img-refines {mB} {b'} img) rt
    ... | inj₁ es' = after {mB} {b'} img p (LocI.lhere li p lv) (LocI.linr li p lv) (fl-corr y li fp ty p lv)
      where lv = a , le , inj₂ (trans (sym (es' a le)) e)
    ... | inj₂ el = after {mB} {b'} img p (LocI.lhere li p lv) (LocI.linr li p lv) (fl-corr y li fp ty p lv)
      where lv = a , le , inj₁ (trans (sym (el a le)) e)

------------------------------------------------------------------------
-- Crash points of recovery: the recovered map stays located

rec-Lc : ∀ {b b'} → Lc b → CI (st b) → crashB recover b b' → Lc b'
rec-Lc {b} {b'} (wz , M , rt , lm) (M0 , X , rt0 , dk0) (c , g , C , pk , m , ck , img) =
  (λ k → subst (_≤ Z) (sym (bimg-wp {mB} {b'} img k)) (wz k)) ,
  M0 , proj₁ (rec-crash rt0 dk0 pk ck (img-refines {mB} {b'} img)) , lm0
  where
    mB = record b { st = m ; pf = psync (pf b) }
    lm0 : LocM b' M0
    lm0 a p le e with lm a p le (trans (rec-det rt rt0 a) e)
    ... | h , i , q = after {mB} {b'} img p h i
                        (corr-sync' (ploc b p) (dat m p) (trans (cong cur q) (sym (ck-cur {rec0 c g C (st b)} {m} ck p))))

------------------------------------------------------------------------
-- The obligations of §4.4 for Bφ

ARφ CRφ : Bk → State → Set
ARφ b t = AR (st b) t × LocI b
CRφ b t = CR (st b) t × Lc b

RIφ CIφ : Bk → Set
RIφ b = RIB b × LocI b
CIφ b = CI (st b) × Lc b

module FBφ = Sp.ForwardSimulation Bφ S
module OB = FB.Obligations obligationsB

new-Lc : ∀ {b} → NewB b → Lc b
new-Lc {b} (np , _ , wz , _) =
  (λ k → subst (_≤ Z) (sym (wz k)) z≤n) , unmapped , new-RecTo np , (λ a p le ())

crash-Lc : FlushMaps → ∀ u {b b'} → RI (st b) → LocI b → crashB (use u) b b' → Lc b'
crash-Lc fm (regop x) {b} {b'} ri li c = crash-reg-loc x {b} {b'} ri li c
crash-Lc fm flush {b} {b'} ri li c with B-crashB flush {b} {b'} ri c
... | M , X , rt , dk = flush-Lc fm {b} {b'} {M} ri li c rt

Lc-rec : ∀ {b b'} → Lc b → okB recover b b' → LocI b'
Lc-rec {b} {b'} (wz , M , rt , lm) x = loc-recM {b} {b'} {M} wz rt lm x

AR⇒≈φ : ∀ {b t} → ARφ b t → Sp.Correspondence._≈_ Bφ S b t
AR⇒≈φ {b} {t} (ar , li) a le = trans (read-physical li a le) (OB.AR⇒≈ {b} {t} ar a le)

A-okφ : ∀ u {b t b'} → ARφ b t → RIφ b → okB (use u) b b' → Σ State λ t' → okS (use u) t t' × ARφ b' t'
A-okφ u {b} {t} {b'} (ar , li) (ri , li') x with OB.A-ok u {b} {t} {b'} ar ri x
... | t' , o , ar' = t' , o , ar' , loc-ok u {b} {b'} (proj₁ ri) li x

A-crashφ : FlushMaps → ∀ u {b t b'} → ARφ b t → RIφ b → crashB (use u) b b' →
  Σ State λ t' → crashS (use u) t t' × CRφ b' t'
A-crashφ fm u {b} {t} {b'} (ar , li) (ri , li') x with OB.A-crash u {b} {t} {b'} ar ri x
... | t' , o , cr' = t' , o , cr' , crash-Lc fm u {b} {b'} (proj₁ ri) li x

A-recφ : ∀ {b t b'} → CRφ b t → CIφ b → okB recover b b' → Σ State λ t' → okS recover t t' × ARφ b' t'
A-recφ {b} {t} {b'} (cr , lc) (ci , _) x with OB.A-rec {b} {t} {b'} cr ci x
... | t' , o , ar' = t' , o , ar' , Lc-rec {b} {b'} lc x

A-recᶜφ : ∀ {b t b'} → CRφ b t → CIφ b → crashB recover b b' → Σ State λ t' → crashS recover t t' × CRφ b' t'
A-recᶜφ {b} {t} {b'} (cr , lc) (ci , _) x with OB.A-recᶜ {b} {t} {b'} cr ci x
... | t' , o , cr' = t' , o , cr' , rec-Lc {b} {b'} lc ci x

obligationsφ : FlushMaps → FBφ.Obligations
obligationsφ fm = record
  { AR = ARφ ; CR = CRφ ; RI = RIφ ; CI = CIφ
  ; AR⇒≈    = λ {b} {t} → AR⇒≈φ {b} {t}
  ; init-CR = λ {b} {t} n nt → OB.init-CR {b} {t} n nt , new-Lc {b} n
  ; init-CI = λ {b} n → OB.init-CI {b} n , new-Lc {b} n
  ; A-ok    = A-okφ
  ; A-crash = A-crashφ fm
  ; A-rec   = λ {b} {t} {b'} → A-recφ {b} {t} {b'}
  ; A-recᶜ  = λ {b} {t} {b'} → A-recᶜφ {b} {t} {b'}
  ; B-ok    = λ u {b} {b'} ri x → OB.B-ok u {b} {b'} (proj₁ ri) x , loc-ok u {b} {b'} (proj₁ (proj₁ ri)) (proj₂ ri) x
  ; B-crash = λ u {b} {b'} ri x → OB.B-crash u {b} {b'} (proj₁ ri) x , crash-Lc fm u {b} {b'} (proj₁ (proj₁ ri)) (proj₂ ri) x
  ; B-rec   = λ {b} {b'} ci x → OB.B-rec {b} {b'} (proj₁ ci) x , Lc-rec {b} {b'} (proj₂ ci) x
  ; B-recᶜ  = λ {b} {b'} ci x → OB.B-recᶜ {b} {b'} (proj₁ ci) x , rec-Lc {b} {b'} (proj₂ ci) (proj₁ ci) x
  }

-- Theorem 1 for B with physical reads, and its snapshot consistency,
-- given FlushMaps
theorem1-Bφ : FlushMaps → Sp.Correspondence.BehaviourallyCorrect Bφ S
theorem1-Bφ fm = FBφ.theorem1 (obligationsφ fm) new-disk

Bφ-snapshot-consistent : FlushMaps → SnapshotConsistent Bφ
Bφ-snapshot-consistent fm = obligations⇒SC Bφ (obligationsφ fm)

------------------------------------------------------------------------
-- FlushMaps holds.  After the flush's SYNC P's crash lemmas name the
-- map (`l2p s`: `crash-RI`, `ck-crash`); before it (`fl2`, `fi2`) and
-- before the consolidation page's SYNC (`fiK`) their variants
-- `fl2-crash⁺`, `fi2-crash⁺`, `fiK-crash⁺` (SCFTL.Impl.Flush) return
-- it (`CRm`: `smap s` or `l2p s`); recovery's map is determined by the
-- flash (`rec-det`), so every map recovery recovers to is that one.

Maps : St → Map → Set
Maps s M = (∀ a → a ≤ amax → M a ≡ smap s a) ⊎ (∀ a → a ≤ amax → M a ≡ l2p s a)

to-l2p : ∀ {s s' M M'} → (∀ a → M' a ≡ l2p s a) → RecTo s' M' → RecTo s' M → Maps s M
to-l2p e rt' rt = inj₂ (λ a _ → trans (rec-det rt rt' a) (e a))

from-CRm : ∀ {s s' t' M} → RecTo s' M → CRm s s' t' → Maps s M
from-CRm rt (M0 , inj₁ refl , rt0 , _) = inj₁ (λ a _ → rec-det rt rt0 a)
from-CRm rt (M0 , inj₂ refl , rt0 , _) = inj₂ (λ a _ → rec-det rt rt0 a)

lk-maps : ∀ {s m s' M L K} → RI s → LkC s L K →
  (m ≡ fi2 K s ⊎ CkPt (fi3 K s) m ⊎ m ≡ fiK K s ⊎ m ≡ fi4 K s) → Img m s' → RecTo s' M → Maps s M
lk-maps {s} {m} {s'} {M} r ip (inj₁ refl) img rt with fi2-crash⁺ (AR-tOf s) r ip img
... | t' , _ , cm = from-CRm {s} {s'} {t'} {M} rt cm
lk-maps {s} {m} {s'} {M} {K = K} r ip (inj₂ (inj₁ ck)) img rt =
  to-l2p {s} {s'} {M} {l2p s} (λ _ → refl)
    (ck-crash {u = fi3 K s} (RI.C r) (RI.slotL r3) (RI.slotO r3) (all-sync-IsSyn (dr s)) (all-sync (RI.gle r))
              (λ p → tt) (fi3-rsy r) (fi3-rec r ip) (λ _ → refl) (fi3-dgm r ip) ck img) rt
  where r3 = fl3-RI r
lk-maps {s} {m} {s'} {M} r ip (inj₂ (inj₂ (inj₁ refl))) img rt with fiK-crash⁺ (AR-tOf s) r ip img
... | t' , _ , cm = from-CRm {s} {s'} {t'} {M} rt cm
lk-maps {s} {m} {s'} {M} r ip (inj₂ (inj₂ (inj₂ refl))) img rt =
  to-l2p {s} {s'} {M} {l2p s} (λ _ → refl) (crash-RI (fi4-RI r ip) img) rt

flush-maps : FlushMaps
flush-maps {s} {m} {s'} {M} r (inj₁ refl) img rt with fl2-crash⁺ (AR-tOf s) r img
... | t' , _ , cm = from-CRm {s} {s'} {t'} {M} rt cm
flush-maps {s} {m} {s'} {M} r (inj₂ (inj₁ refl)) img rt =
  to-l2p {s} {s'} {M} {l2p s} (λ _ → refl) (crash-RI (fl3-RI r) img) rt
flush-maps {s} {m} {s'} {M} r (inj₂ (inj₂ (inj₁ ck))) img rt =
  to-l2p {s} {s'} {M} {l2p s} (λ _ → refl)
    (ck-crash {u = fl3 s} (RI.C r3) (RI.slotL r3) (RI.slotO r3) (all-sync-IsSyn (dr (fl2 s))) (RI.gle r3)
              (λ p → tt) (RI.rcOK r3) (ri-rec r3) (λ _ → refl) (ri-dgm r3) ck img) rt
  where r3 = fl3-RI r
flush-maps {s} r (inj₂ (inj₂ (inj₂ (inj₁ (L , ip , c))))) img rt = lk-maps r (InP⇒LkC {s} {L} ip) c img rt
flush-maps {s} r (inj₂ (inj₂ (inj₂ (inj₂ (L , K , op , c))))) img rt = lk-maps r (OobP⇒LkC {s} {L} {K} op) c img rt

-- Theorem 1 for B with physical reads, and its snapshot consistency
theorem1-Bφ′ : Sp.Correspondence.BehaviourallyCorrect Bφ S
theorem1-Bφ′ = theorem1-Bφ flush-maps

Bφ-snapshot-consistent′ : SnapshotConsistent Bφ
Bφ-snapshot-consistent′ = Bφ-snapshot-consistent flush-maps
