{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: a SYNC that proves only the OLDEST unsynced
-- epochs, as a step of PU — the sync behind barriers as the code runs
-- it.
--
-- The code's sync behind (`SharedDevice::sync_behind`, flush.rs
-- `sync_behind_ticket`) and a detached flush take a ticket and start a
-- SYNC; the device goes on ending epochs by barriers while it runs.
-- When it returns, `note_ticket_sync` counts as synced only the epochs
-- ended before the ticket (`unsynced_epochs := min(unsynced_epochs,
-- epochs ended since the ticket)`): the SYNC made durable what was
-- programmed when it started, not what came after.  PUS
-- (`SCFTL.Impl.UnsyncedSync`) has the SYNC as one atomic step that
-- lands everything; here it lands a prefix.
--
-- The step (`syB xs ys l r`, the unsynced epochs split as xs ++ ys, xs
-- the ones the SYNC proves):
--   * the data pages `l` names durable (`landD`), under two guards
--     (`Land`): every page the new stable L2P names is among them or
--     durable already, and every one of them lies below the link of
--     xs's last epoch — the active pointer at the barrier that ended it,
--     so programmed before that barrier and before the ticket (the model
--     lands no page the SYNC may not have covered);
--   * the region pages of xs's epochs durable (`landR` past the open
--     epoch's tentative pages and ys's pages, which stay unsynced);
--   * the stable L2P is xs's last map (`lastMap (smap s) xs`), the
--     remaining epochs ys unsynced, the link the state's (xs's last
--     epoch's when ys is empty, as `syU`);
--   * invalid pages that neither the new stable L2P nor any of ys's
--     maps names may be released (`RelB`: the code releases at its next
--     full SYNC; no release, `r = λ _ → false`, always qualifies).
-- SB's `sy` makes the oldest k pending images durable (k = length xs).
--
--   OobA          (SCFTL.Impl.UnsyncedImages) OobU for every prefix of
--                 the epochs: each of their maps names pages that carry
--                 their address, which SyI asks of the new stable L2P;
--                 kept by every step of PU (`oobA-ok`)
--   syncB-Inv     type A against SB's `sy` with k = length xs, every
--                 invariant of PU's normal operation kept (ARU, GcI,
--                 SmI, GhU, DgL, SyI, BI, SlO), and GenR and OobA
--   syncB-crash   a crash right after it recovers, with the new state's
--                 ghost, to a candidate of SB after it
--   PUSB          PUS with this step beside the full SYNC: Theorem 1
--                 (`theorem1-PUSB`) and SC1B (`PUSB-snapshot-consistent`)
--   syncB-total   not vacuous: from every state whose stable L2P's pages
--                 are durable, the SYNC that proves nothing new can step
--
-- Left out: the partial SYNC followed at once by an in-page/OOB commit
-- (PUSi's commit follows the full SYNC), and the crash points of every
-- flash command (PUSc) for this step (it has one command, the SYNC:
-- before it and after it, as here).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedSyncBehind (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _+_)
open import Data.Nat.Properties using (suc-injective)
open import Data.Bool.Base using (Bool; true; false; not; _∧_; _∨_)
open import Data.Empty using (⊥)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take; drop)
open import Data.List.Properties using (++-assoc; map-++-commute)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.All.Properties using (++⁺)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (_≐_; GenLe)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; ue; tents)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; ARv; ARs; GcI; SmI; Syn; lay-++)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (Ok; GhD; GhL; DgL; SyI; VM; eM; lastMap; mapAt; Fresh; OobA; oobA⇒U; oobA-nil; oobA-ok; last-ok)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi; fid)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (Inv)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (GenR)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (RecG; ghostN; crash-normal-G; SU; ⟦_,_⟧; su; gh; okPU; crashPU; NewPU; okM⇒okU; obligationsU; ARP; CRP)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_
  using (landR; landR-eq; rp-laid; rf-sync; rpE-last; lastMap-≐; lastLnk; last-reads; ∨-split; ∧-fst; all-syn; cur-landR;
         syS; Rel; tS; sy-SB; sy-all; sync-Inv; sync-GenR; okS; crashS)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The step

-- a data page landed by the SYNC, or left as it is
landD : Bool → MC → MC
landD true  m = sync m
landD false m = m

-- the link after it: with no epoch left unsynced, the last proven
-- epoch's (as `syU`), else the state's
lnkB : List E → List E → Maybe ℕ → Maybe ℕ
lnkB xs []      k = lastLnk xs k
lnkB xs (_ ∷ _) k = k

-- the SYNC on P's state that proves the epochs xs below the epochs ys,
-- landing the data pages l names and releasing the pages r names
syB : List E → List E → (ℕ → Bool) → (ℕ → Bool) → St → St
syB xs ys l r s = record s
  { dat  = λ p → landD (l p) (dat s p)
  ; dr   = landR (length (tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) ys) [])) (dr s)
  ; smap = lastMap (smap s) xs
  ; ers  = λ p → ers s p ∨ r p
  ; inv  = λ p → inv s p ∧ not (r p)
  ; lnk  = lnkB xs ys (lnk s)
  }

-- ... on PU's state: ys stay unsynced
syBU : List E → List E → (ℕ → Bool) → (ℕ → Bool) → StU → StU
syBU xs ys l r s = ⟪ syB xs ys l r (st s) , ys ⟫

-- the guards on the pages it lands: at least the new stable L2P's (or
-- they are durable already), at most pages below the link of xs's last
-- epoch (written before the barrier that ended it)
Land : St → List E → (ℕ → Bool) → Set
Land s xs l = (∀ a p → a ≤ amax → lastMap (smap s) xs a ≡ just p → l p ≡ true ⊎ Syn (dat s p))
            × (∀ p → l p ≡ true → Σ ℕ λ L → lastLnk xs nothing ≡ just L × p < L)

-- and on the pages it releases: invalid, and named by none of the maps
-- a crash after it may recover (the new stable L2P and ys's)
RelB : St → List E → List E → (ℕ → Bool) → Set
RelB s xs ys r = ∀ p → r p ≡ true → inv s p ≡ true × (∀ j a → a ≤ amax → mapAt (lastMap (smap s) xs) ys j a ≢ just p)

-- SB after it: the oldest k images durable, the last of them stable
tB : ℕ → SB.State → SB.State
tB k t = SB.⟨ SB.volatile t , SB.lastA (SB.stable t) (take k (SB.pend t)) , drop k (SB.pend t) , SB.wcnt t ⟩

syB-SB : ∀ k t → SB.okSB (SB.use (SB.reg (SB.op SB.sy))) t (tB k t)
syB-SB k t = k , refl , refl , refl , refl

------------------------------------------------------------------------
-- Lists split at the proven epochs

lastMap-++ : ∀ M xs ys → lastMap M (xs ++ ys) ≡ lastMap (lastMap M xs) ys
lastMap-++ M []       ys = refl
lastMap-++ M (x ∷ xs) ys = lastMap-++ (eM x M) xs ys

mapAt-++ : ∀ M xs ys j → mapAt M (xs ++ ys) (length xs + j) ≡ mapAt (lastMap M xs) ys j
mapAt-++ M []       ys j = refl
mapAt-++ M (x ∷ xs) ys j = mapAt-++ (eM x M) xs ys j

GhL-split : ∀ {s} M xs ys Ps → GhL s M (xs ++ ys) Ps →
            GhL s M xs (take (length xs) Ps) × GhL s (lastMap M xs) ys (drop (length xs) Ps)
GhL-split M []       ys Ps       g       = tt , g
GhL-split M (x ∷ xs) ys (X ∷ Ps) (d , g) = (d , proj₁ (GhL-split (eM x M) xs ys Ps g)) , proj₂ (GhL-split (eM x M) xs ys Ps g)
GhL-split M (x ∷ xs) ys []       ()

DgL-split : ∀ M xs ys Ps → DgL M (xs ++ ys) Ps → DgL (lastMap M xs) ys (drop (length xs) Ps)
DgL-split M []       ys Ps       d       = d
DgL-split M (x ∷ xs) ys (X ∷ Ps) (_ , d) = DgL-split (eM x M) xs ys Ps d
DgL-split M (x ∷ xs) ys []       ()

len-drop : ∀ {A B : Set} (xs ys : List A) (Ps : List B) → length (xs ++ ys) ≡ length Ps → length ys ≡ length (drop (length xs) Ps)
len-drop []       ys Ps       e = e
len-drop (x ∷ xs) ys []       ()
len-drop (x ∷ xs) ys (P ∷ Ps) e = len-drop xs ys Ps (suc-injective e)

lay-app : ∀ as bs pr → lay (as ++ bs) pr ≡ lay bs (lay as pr)
lay-app []              bs pr = refl
lay-app ((c , ts) ∷ as) bs pr = lay-app as bs (c ∷ ts ++ pr)

fresh-split : ∀ xs ys y R → rbase (fid (xs ++ ys) y) R ≡ proj₁ R → Fresh xs R
fresh-split []      ys y R h = tt
fresh-split (x ∷ _) ys y R h = h

------------------------------------------------------------------------
-- Pages: the SYNC changes no page's current content

cur-landD : ∀ b m → cur (landD b m) ≡ cur m
cur-landD true  m = refl
cur-landD false m = refl

landD-true : ∀ b m → b ≡ true → landD b m ≡ syn (cur m)
landD-true .true m refl = refl

landD-syn : ∀ b m c → m ≡ syn c → landD b m ≡ syn c
landD-syn true  .(syn c) c refl = refl
landD-syn false .(syn c) c refl = refl

private
  rdMD-land : ∀ M (D : ℕ → MC) (l : ℕ → Bool) mp → rdMD M (λ p → landD (l p) (D p)) mp ≡ rdMD M D mp
  rdMD-land M D l nothing  = refl
  rdMD-land M D l (just p) = cong (λ c → cellD (pvm (M p) c)) (cur-landD (l p) (D p))

  rdD-land : ∀ (D : ℕ → MC) (l : ℕ → Bool) mp → rdD (λ p → landD (l p) (D p)) mp ≡ rdD D mp
  rdD-land D l nothing  = refl
  rdD-land D l (just p) = cong cellD (cur-landD (l p) (D p))

-- the remaining epochs' maps read what they read, on pages still Ok
-- (none of them released)
GhD-land : ∀ {u xs ys l r M X} → (∀ a p → a ≤ amax → M a ≡ just p → r p ≡ true → ⊥) →
           GhD u M X → GhD (syB xs ys l r u) M X
GhD-land {u} {xs} {ys} {l} {r} {M} {X} h g a le =
  trans (rdD-land (dat u) l (M a)) (proj₁ (g a le)) , ok
  where
    ok : ∀ p → M a ≡ just p → Ok (syB xs ys l r u) p
    ok p e with proj₂ (g a le) p e
    ... | lt , mbn , ne = lt , mbn , λ x → no (∨-split (ers u p) (r p) x)
      where
        no : ers u p ≡ true ⊎ r p ≡ true → ⊥
        no (inj₁ y) = ne y
        no (inj₂ y) = h a p le e y

GhL-land : ∀ {u xs ys l r} M es Xs → (∀ j a p → a ≤ amax → mapAt M es (suc j) a ≡ just p → r p ≡ true → ⊥) →
           GhL u M es Xs → GhL (syB xs ys l r u) M es Xs
GhL-land M []       []       h _       = tt
GhL-land {u} {xs} {ys} {l} {r} M (e ∷ es) (X ∷ Xs) h (d , g) =
  GhD-land {u} {xs} {ys} {l} {r} (λ a p le q → h zero a p le q) d ,
  GhL-land {u} {xs} {ys} {l} {r} (eM e M) es Xs (λ j → h (suc j)) g
GhL-land M []       (_ ∷ _)  h ()
GhL-land M (_ ∷ _)  []       h ()

------------------------------------------------------------------------
-- The region after it: xs's pages durable below ys's

rf-part : ∀ g y xs ys prM C →
          rbase (fid (xs ++ ys) y) (rp g (map cur prM) (st0 C)) ≡ proj₁ (rp g (map cur prM) (st0 C)) →
          rbase (fid ys y) (rp g (map cur (map syn (lay (map (ue g) xs) []) ++ prM)) (st0 C))
            ≡ proj₁ (rp g (map cur (map syn (lay (map (ue g) xs) []) ++ prM)) (st0 C))
rf-part g y []       ys prM C rf = rf
rf-part g y (x ∷ xs) ys prM C rf = rf-sync g (fid ys y) (x ∷ xs) prM C rf

bi-part : ∀ {u xs ys l r} → BI u (xs ++ ys) → BI (syB xs ys l r u) ys
bi-part {u} {xs} {ys} {l} {r} (bi C prM slt dre sy rx rf) =
  bi C prM′ slt dre′ (++⁺ (all-syn LX) sy) rx′ (rf-part g (ep u) xs ys prM C rf)
  where
    g  = gen u
    T  = tents g (ep u) (ept u)
    LX = lay (map (ue g) xs) []
    LY = lay (map (ue g) ys) []
    prM′ = map syn LX ++ prM
    R = rp g (map cur prM) (st0 C)

    split : lay (map (ue g) (xs ++ ys)) [] ≡ LY ++ LX
    split = trans (cong (λ z → lay z []) (map-++-commute (ue g) xs ys))
             (trans (lay-app (map (ue g) xs) (map (ue g) ys) [])
                    (sym (lay-++ (map (ue g) ys) [] LX)))

    dre′ : landR (length (T ++ LY)) (dr u) ≡ map (uns erased) (T ++ LY) ++ prM′
    dre′ = trans (cong (landR (length (T ++ LY)))
                   (trans dre (cong (λ z → map (uns erased) (T ++ z) ++ prM) split)))
            (trans (cong (λ z → landR (length (T ++ LY)) (map (uns erased) z ++ prM)) (sym (++-assoc T LY LX)))
                   (landR-eq (T ++ LY) LX prM sy))

    rx′ : proj₁ (rp g (map cur prM′) (st0 C)) ≐ lastMap (smap u) xs
    rx′ a = trans (cong (λ z → proj₁ z a) (rp-laid g xs prM C))
             (trans (cong (λ M → M a) (rpE-last g xs R (fresh-split xs ys (ep u) R rf)))
                    (lastMap-≐ rx xs a))

------------------------------------------------------------------------
-- Type A against SB's `sy` (k = length xs), every invariant kept

syncB-Inv : ∀ {u t xs ys l r} → Inv ⟪ u , xs ++ ys ⟫ t → Land u xs l → RelB u xs ys r → OobA ⟪ u , xs ++ ys ⟫ →
            Inv (syBU xs ys l r ⟪ u , xs ++ ys ⟫) (tB (length xs) t)
syncB-Inv {u} {t} {xs} {ys} {l} {r} ((av , sa) , (g , sm , (gl , vm) , dl , sy) , b , so) ld rel ob =
  (arv , ars) , (gci , smi , (ghl , vm′) , DgL-split (smap u) xs ys (SB.pend t) dl , syi) ,
  bi-part {u} {xs} {ys} {l} {r} b , so
  where
    s′ = syB xs ys l r u
    M′ = lastMap (smap u) xs
    k  = length xs
    G  = GhL-split {u} (smap u) xs ys (SB.pend t) gl

    arv : ARv (syBU xs ys l r ⟪ u , xs ++ ys ⟫) (tB k t)
    arv = (λ a le → trans (rdMD-land (mb u) (dat u) l (l2p u a)) (proj₁ av a le)) , proj₁ (proj₂ av) ,
          len-drop xs ys (SB.pend t) (proj₂ (proj₂ av))

    ars : ARs (syBU xs ys l r ⟪ u , xs ++ ys ⟫) (tB k t)
    ars a le = trans (rdD-land (dat u) l (M′ a))
                     (last-reads u (smap u) xs (take k (SB.pend t)) (SB.stable t) sa (proj₁ G) a le)

    gci : GcI s′
    gci = record
      { blw  = GcI.blw g
      ; oobI = λ b p le e → trans (cong (λ c → oob (pvm (mb u p) c)) (cur-landD (l p) (dat u p))) (GcI.oobI g b p le e)
      ; ersI = λ p e → ers′ p (∨-split (ers u p) (r p) e)
      ; invI = λ p e → GcI.invI g p (∧-fst (inv u p) (not (r p)) e)
      }
      where
        ers′ : ∀ p → ers u p ≡ true ⊎ r p ≡ true → Σ (p < nxt u) λ _ → ∀ b → b ≤ amax → l2p u b ≢ just p
        ers′ p (inj₁ e) = GcI.ersI g p e
        ers′ p (inj₂ e) = GcI.invI g p (proj₁ (rel p e))

    smi : SmI s′
    smi a p le q with last-ok u (smap u) xs (take k (SB.pend t)) sm (proj₁ G) a p le q
    ... | lt , mbn , ne = lt , mbn , λ e → no (∨-split (ers u p) (r p) e)
      where
        no : ers u p ≡ true ⊎ r p ≡ true → ⊥
        no (inj₁ x) = ne x
        no (inj₂ y) = proj₂ (rel p y) zero a le q

    ghl : GhL s′ M′ ys (drop k (SB.pend t))
    ghl = GhL-land {u} {xs} {ys} {l} {r} M′ ys (drop k (SB.pend t))
            (λ j a p le q e → proj₂ (rel p e) (suc j) a le q) (proj₂ G)

    vm′ : VM s′ ys
    vm′ b′ = trans (vm b′) (cong (λ M → apply (dbuf u) (apply (Data.List.Base.concat (ept u)) M) b′) (lastMap-++ (smap u) xs ys))

    oobp : ∀ a p → a ≤ amax → M′ a ≡ just p → oob (cur (dat u p)) ≡ a
    oobp a p le q = ob (k + zero) a p le (trans (cong (λ f → f a) (mapAt-++ (smap u) xs ys zero)) q)

    syi : SyI s′
    syi a p le q with proj₁ ld a p le q
    ... | inj₁ lp      = cur (dat u p) , landD-true (l p) (dat u p) lp , oobp a p le q
    ... | inj₂ (c , e) = c , landD-syn (l p) (dat u p) c e , trans (cong (λ m → oob (cur m)) (sym e)) (oobp a p le q)

syncB-GenR : ∀ {u xs ys l r} → GenR u → GenR (syB xs ys l r u)
syncB-GenR {u} {xs} {ys} gr =
  subst (All (GenLe (gen u)))
        (sym (cur-landR (length (tents (gen u) (ep u) (ept u) ++ lay (map (ue (gen u)) ys) [])) (dr u))) gr

syncB-OobA : ∀ {u xs ys l r} → OobA ⟪ u , xs ++ ys ⟫ → OobA (syBU xs ys l r ⟪ u , xs ++ ys ⟫)
syncB-OobA {u} {xs} {ys} {l} {r} ob j a p le q =
  trans (cong oob (cur-landD (l p) (dat u p)))
        (ob (length xs + j) a p le (trans (cong (λ f → f a) (mapAt-++ (smap u) xs ys j)) q))

-- a crash right after it: recovery, with the new state's ghost (ys
-- unsynced over the durable part with xs's pages), reads a candidate of
-- SB after it
syncB-crash : ∀ {u t xs ys l r s''} → Inv ⟪ u , xs ++ ys ⟫ t → GenR u → Land u xs l → RelB u xs ys r →
              OobA ⟪ u , xs ++ ys ⟫ → Img (syB xs ys l r u) s'' →
              RecG s'' (ghostN (syBU xs ys l r ⟪ u , xs ++ ys ⟫)) (tB (length xs) t)
syncB-crash {u} {t} {xs} {ys} {l} {r} {s''} iv gr ld rel ob img =
  crash-normal-G {syBU xs ys l r ⟪ u , xs ++ ys ⟫} {tB (length xs) t} {s''}
    (syncB-Inv {u} {t} {xs} {ys} {l} {r} iv ld rel ob) (syncB-GenR {u} {xs} {ys} {l} {r} gr) img

------------------------------------------------------------------------
-- PUSB: PUS with the SYNC that proves a prefix of the epochs
--
-- SB's `sy` is PUS's full SYNC (`syS`) or this one; a crash in it is a
-- crash before it (PUS's first case) or after it.  AR: PUM's with OobA.

PartSy : SU → SU → Set
PartSy S S' = Σ (List E) λ xs → Σ (List E) λ ys → Σ (ℕ → Bool) λ l → Σ (ℕ → Bool) λ r →
  ues (su S) ≡ xs ++ ys × Land (st (su S)) xs l × RelB (st (su S)) xs ys r ×
  su S' ≡ syBU xs ys l r (su S) × gh S' ≡ ghostN (su S')

PartSyᶜ : SU → SU → Set
PartSyᶜ S S' = Σ (List E) λ xs → Σ (List E) λ ys → Σ (ℕ → Bool) λ l → Σ (ℕ → Bool) λ r →
  ues (su S) ≡ xs ++ ys × Land (st (su S)) xs l × RelB (st (su S)) xs ys r ×
  Img (syB xs ys l r (st (su S))) (st (su S')) × gh S' ≡ ghostN (syBU xs ys l r (su S))

okB : SB.Op → SU → SU → Set
okB (SB.use (SB.reg (SB.op SB.sy))) S S' = okS (SB.use (SB.reg (SB.op SB.sy))) S S' ⊎ PartSy S S'
okB o = okS o

crashB : SB.Op → SU → SU → Set
crashB (SB.use (SB.reg (SB.op SB.sy))) S S' = crashS (SB.use (SB.reg (SB.op SB.sy))) S S' ⊎ (PartSyᶜ S S' × ues (su S') ≡ [])
crashB o = crashS o

PUSB : SB.Model
PUSB = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okB ; crash = crashB }

-- not vacuous: with the stable L2P's pages durable, the SYNC that proves
-- no epoch (the ticket's epochs all ended after it started) steps
syncB-total : ∀ S → SyI (st (su S)) → Σ SU λ S' → okB (SB.use (SB.reg (SB.op SB.sy))) S S'
syncB-total S sy =
  ⟦ syBU [] (ues (su S)) (λ _ → false) (λ _ → false) (su S) ,
    ghostN (syBU [] (ues (su S)) (λ _ → false) (λ _ → false) (su S)) ⟧ ,
  inj₂ ([] , ues (su S) , (λ _ → false) , (λ _ → false) , refl ,
        ((λ a p le q → inj₂ (proj₁ (sy a p le q) , proj₁ (proj₂ (sy a p le q)))) , (λ p ())) ,
        (λ p ()) , refl , refl)

open SB.ForwardSimulation PUSB SB.SB using () renaming (Obligations to ObligationsB)

ARB : SU → SB.State → Set
ARB S t = ARP S t × OobA (su S)

private
  module OU = SB.ForwardSimulation.Obligations obligationsU

  lift-ok : ∀ u {S t S'} → ARB S t → okPU (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARB S' t'
  lift-ok u {S} {t} {S'} (iv , ob) o =
    let A = OU.A-ok u {S} {t} {S'} iv tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-ok u {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU u {su S} {su S'} (proj₁ o)) ob

  AB-ok : ∀ u {S t S'} → ARB S t → ⊤ → okB (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARB S' t'
  AB-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar _ o = lift-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar o
  AB-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar _ o = lift-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar o
  AB-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar _ o = lift-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar o
  AB-ok (SB.reg SB.barrier) {S} {t} {S'} ar _ o = lift-ok (SB.reg SB.barrier) {S} {t} {S'} ar o
  AB-ok SB.flush {S} {t} {S'} ar _ o = lift-ok SB.flush {S} {t} {S'} ar o
  AB-ok (SB.reg (SB.op SB.sy)) {S} {t} {⟦ .(syS r (su S)) , g ⟧} ((iv , gr) , ob) _ (inj₁ (r , rel , refl , _)) =
    tS t , sy-SB t , (iv′ , sync-GenR {su S} {r} gr) ,
    oobA-nil (syS r (su S)) refl (proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ iv′))))))
    where iv′ = sync-Inv {su S} {t} {r} iv rel (oobA⇒U (su S) ob)
  AB-ok (SB.reg (SB.op SB.sy)) {⟦ ⟪ u , .(xs ++ ys) ⟫ , g0 ⟧} {t} {⟦ .(syBU xs ys l r ⟪ u , xs ++ ys ⟫) , g ⟧}
        ((iv , gr) , ob) _ (inj₂ (xs , ys , l , r , refl , ld , rel , refl , _)) =
    tB (length xs) t , syB-SB (length xs) t ,
    (syncB-Inv {u} {t} {xs} {ys} {l} {r} iv ld rel ob , syncB-GenR {u} {xs} {ys} {l} {r} gr) ,
    syncB-OobA {u} {xs} {ys} {l} {r} ob

  AB-crash : ∀ u {S t S'} → ARB S t → ⊤ → crashB (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
  AB-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} iv tt c
  AB-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} iv tt c
  AB-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} iv tt c
  AB-crash (SB.reg SB.barrier) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg SB.barrier) {S} {t} {S'} iv tt c
  AB-crash SB.flush {S} {t} {S'} (iv , _) _ c = OU.A-crash SB.flush {S} {t} {S'} iv tt c
  AB-crash (SB.reg (SB.op SB.sy)) {S} {t} {⟦ s' , .(ghostN (su S)) ⟧} ((iv , gr) , ob) _ (inj₁ (inj₁ (img , refl) , _)) =
    t , inj₁ (refl , refl) , crash-normal-G {su S} {t} {st s'} iv gr img
  AB-crash (SB.reg (SB.op SB.sy)) {S} {t} {⟦ s' , .(ghostN (syS r (su S))) ⟧} ((iv , gr) , ob) _ (inj₁ (inj₂ (r , rel , img , refl) , _)) =
    tS t , inj₂ (length (SB.pend t) , sy-all t) ,
    crash-normal-G {syS r (su S)} {tS t} {st s'} (sync-Inv {su S} {t} {r} iv rel (oobA⇒U (su S) ob)) (sync-GenR {su S} {r} gr) img
  AB-crash (SB.reg (SB.op SB.sy)) {⟦ ⟪ u , .(xs ++ ys) ⟫ , g0 ⟧} {t} {⟦ s' , .(ghostN (syBU xs ys l r ⟪ u , xs ++ ys ⟫)) ⟧}
           ((iv , gr) , ob) _ (inj₂ ((xs , ys , l , r , refl , ld , rel , img , refl) , _)) =
    tB (length xs) t , inj₂ (length xs , refl , refl) ,
    syncB-crash {u} {t} {xs} {ys} {l} {r} {st s'} iv gr ld rel ob img

  AB-rec : ∀ {S t S'} → CRP S t → ⊤ → okB SB.recover S S' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARB S' t'
  AB-rec {S} {t} {S'} cr _ o@(_ , eu , _) =
    let A = OU.A-rec {S} {t} {S'} cr tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-nil (su S') eu (proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ (proj₂ (proj₂ A)))))))))

obligationsB : ObligationsB
obligationsB = record
  { AR = ARB ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} ar → OU.AR⇒≈ {S} {t} (proj₁ ar)
  ; init-CR = λ {S} {t} n n′ → OU.init-CR {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = AB-ok ; A-crash = AB-crash ; A-rec = λ {S} {t} {S'} → AB-rec {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → OU.A-recᶜ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 for PU with the full SYNC and the SYNC that proves the
-- oldest epochs, against SB, and snapshot consistency with barriers
theorem1-PUSB : SB.CorrespondenceB.BehaviourallyCorrect PUSB SB.SB
theorem1-PUSB = SB.theorem1-SB PUSB obligationsB

PUSB-snapshot-consistent : SB.SnapshotConsistentB PUSB
PUSB-snapshot-consistent = SB.obligations⇒SCB PUSB obligationsB
