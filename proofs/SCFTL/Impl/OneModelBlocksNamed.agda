{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the lemma SCFTL.Impl.OneModelBlocksPhys leaves about blocks
-- over PX (`RecoveredLocated`) reduced to a lemma about PX alone.
--
-- The maps a crash of a normal state X of PX may recover to are its
-- volatile L2P, its stable L2P and each unsynced epoch's map (`mapAt`
-- over `ues`, j = 0 the stable one).  A page one of them names for an
-- address is `Named X`.  Here:
--
--   named-ok      every page a normal state names is below P's next page
--                 and not erasable (PUSBic's `GcI`, `SmI` and ghost maps
--                 `GhL`; in the chain phase P's `RI`, `vOK`/`sOK`/`eOK`)
--   px-named      every operation of PX but recovery names no page its
--                 state before did not, but P's next page (a write's or
--                 relocation's): writes and relocations map only that page
--                 anew; an erase changes no map; a SYNC makes a prefix of
--                 the unsynced epochs stable (`mapAt-++`); a barrier adds
--                 the volatile L2P as the last epoch's map (`VM`: PU's
--                 ghost invariant; P's `vm` after the consolidation page
--                 in the chain phase); a flush makes the volatile L2P the
--                 stable one and drops the epochs
--   LocN, locN-ok every page a normal state of BXone names is located
--                 below its block's write pointer, kept by every operation
--                 but recovery (`old-stays`, `new-here`; a block erase
--                 takes only erasable pages, `run-ers`, and no named page
--                 is erasable)
--   rec-maps, rec-named
--                 after every recovery of PX (either phase) the stable
--                 L2P is the volatile one and no epoch is unsynced, so a
--                 recovered state names exactly what its L2P maps
--   NoSec, nosec-crash, nosec-rec
--                 a new disk holds no sector, nor does any crashed
--                 recovery of it (recovery and its checkpoint program no
--                 data page: `ck-mid`, `mid-crash` for the checkpoint's
--                 commands), so recovery from such a state names only
--                 located pages (OneModelBlocksPhys's `secloc-rec`)
--   RecoveredNamed  the lemma of PX alone that remains: recovery after a
--                 crash of a reachable normal state X0 (and any crashed
--                 recoveries after it) names only pages X0 named.  It is
--                 what the refinement oracle checks at run time after
--                 every recovery (the L2P SCFTL rebuilds is one a commit
--                 left).  SCFTL.Impl.OneModelRecMaps proves it
--                 (`recovered-named-all`).
--   recovered-located : RecoveredNamed → RecoveredLocated, by the crash
--                 side: a crash keeps every page X0 named located (a
--                 crashed write's allocation moves no page below P's next
--                 one; a crashed block erase takes only erasable pages:
--                 the crash relation asks for the complete run, so every
--                 page of the block is erasable where the erase began)
--   theorem1-BXφ′, BXφ-snapshot-consistent′ : Theorem 1 and SC1B for
--                 BXone with the physical read, given RecoveredNamed
--   FreshAbove, reach-fresh, bx-w-live, bx-rl-live
--                 allocation stays possible after any crash: every placed
--                 P page is below P's next page in every normal state of
--                 every run (recovery forgets the placements of the pages
--                 whose numbers P takes again), so P's next page is on no
--                 physical page and BXone takes every write and
--                 relocation of PX wherever a block offers an erased
--                 physical page at its write pointer
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelBlocksNamed (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                      (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; length; concat)
open import Data.List.Properties using (++-identityʳ)
open import Data.List.Relation.Unary.Any using (Any) renaming (here to hd; there to tl)
open import Data.List.Relation.Unary.All using (All; []; _∷_) renaming (map to all-map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (suc; _+_; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (<-irrefl; ≤-refl; <-trans; n<1+n; <-transˡ) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; Map; nxt; l2p; smap; dbuf; ept; ers; esF; okP; opt; optP; wr0; rl0; apply; _[_≔_];
         dat; syn; sync; cur; erased; CrashD; CkPt)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (st; ues; ⟪_,_⟫; GcI; module GcI; epE)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; su; ⟦_,_⟧; gh)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (mapAt; lastMap; eM; mapAt-≐; mapAt-len; mapAt-nil; mapAt-snoc; mapAt-ok; GhAll)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (mapAt-++)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX; crashX)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_ using (ck-mid; mid-crash; rec-synO)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (okPL; EraseGuard; optL; konsS; konsPg; konsS-maps; smap-opt; smap-optL)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; konsU)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; BXone; obligationsBXone; module OPX; px-es-safe; ril-of; EsRunM; EsCrashM; EsM; one; _∷_; Place; Alloc;
         bx-w; bx-rl; konsS-nxt)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LocX; InR; NewPg; Keep; shape-w; shape-rl; old-stays; new-here; owners-mem; _∈_; same-pg)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; loc; own; wp; here; balloc; berase; owners; upd-self; upd-ne; here-own; forget; here-forget; inr-forget; forget-fr; forget-wp0;
         forget-below; Fresh; Opens; Z; cell; cellOf; phys; act; own-balloc; fr)
open import SCFTL.Impl.OneModelBlocksPhys Data d0 amax wmax kmax umax _≟D_ kc zb
  using (BXφ; ReachN; ReachC; first; after; step; crashed; crashed-new; crashed-rec;
         RecoveredLocated; theorem1-BXφ; BXφ-snapshot-consistent; SecLoc; secloc-rec)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
import SCFTL.Spec Data d0 amax wmax as Sp

private
  module PXm = SB.Model PX
  module M   = SB.Model BXone
  module OB  = SB.ForwardSimulation.Obligations obligationsBXone

------------------------------------------------------------------------
-- The pages a normal state names

uesX : XS → List E
uesX X = ues (su (proj₂ X))

-- address a of some map of X (volatile, stable, an unsynced epoch's)
-- holds page p
Ent : XS → ℕ → ℕ → Set
Ent X a p = l2p (stX X) a ≡ just p ⊎ Σ ℕ λ j → mapAt (smap (stX X)) (uesX X) j a ≡ just p

Named : XS → ℕ → Set
Named X p = Σ ℕ λ a → a ≤ amax × Ent X a p

Okp : St → ℕ → Set
Okp s p = p < nxt s × (ers s p ≡ true → ⊥)

private
  ri-ok : ∀ {s} → RI s → ∀ {es : List E} → es ≡ [] → ∀ a p → a ≤ amax →
          (l2p s a ≡ just p ⊎ Σ ℕ λ j → mapAt (smap s) es j a ≡ just p) → Okp s p
  ri-ok r refl a p le (inj₁ m) = proj₁ (RI.vOK r a p le m) , λ ep → proj₁ (proj₂ (RI.eOK r p ep)) a le m
  ri-ok {s} r refl a p le (inj₂ (j , m)) =
    proj₁ (RI.sOK r a p le m′) , λ ep → proj₂ (proj₂ (RI.eOK r p ep)) a le m′
    where m′ = trans (sym (cong (λ f → f a) (mapAt-nil (smap s) j))) m

  ril-ok : ∀ {s} → RIL s → ∀ {es : List E} → es ≡ [] → ∀ a p → a ≤ amax →
           (l2p s a ≡ just p ⊎ Σ ℕ λ j → mapAt (smap s) es j a ≡ just p) → Okp s p
  ril-ok (inj₁ r) = ri-ok r
  ril-ok (inj₂ (_ , r , _)) = ri-ok r

-- every page a normal state names is below P's next page, not erasable
named-ok : ∀ {X} → OPX.RI X → ∀ p → Named X p → Okp (stX X) p
named-ok {false , S} (t , ar , _) p (a , le , inj₁ m) =
  GcI.blw gc a p le m , λ ep → proj₂ (GcI.ersI gc p ep) a le m
  where
    gc : GcI (st (su S))
    gc = proj₁ (proj₁ (proj₂ (proj₁ (ivX {S} {t} ar))))
named-ok {false , S} (t , ar , _) p (a , le , inj₂ (j , m)) = proj₁ o , proj₂ (proj₂ o)
  where
    gall : GhAll (su S) t
    gall = proj₁ (proj₂ (proj₁ (ivX {S} {t} ar)))
    o = mapAt-ok (st (su S)) (smap (st (su S))) (ues (su S)) (SB.pend t) (proj₁ (proj₂ gall))
                 (proj₁ (proj₁ (proj₂ (proj₂ gall)))) j a p le m
named-ok {true , S} (e , ril) p (a , le , x) = ril-ok ril e a p le x

------------------------------------------------------------------------
-- How PX's operations change the named pages

NSub NNew : XS → XS → Set
NSub X X' = ∀ p → Named X' p → Named X p
NNew X X' = ∀ p → Named X' p → Named X p ⊎ p ≡ nxt (stX X)

sub-trans : ∀ {X Y Z} → NSub X Y → NSub Y Z → NSub X Z
sub-trans f g p x = f p (g p x)

-- The maps themselves (thirty-fourth session; SCFTL.Impl.SpaceRecFit
-- counts the blocks each names): every map of X' (its stable L2P, an
-- unsynced epoch's) is one of X's or X's volatile L2P
MapsOf : XS → XS → Set
MapsOf X X' = ∀ j → (Σ ℕ λ j' → ∀ a → mapAt (smap (stX X')) (uesX X') j a ≡ mapAt (smap (stX X)) (uesX X) j' a)
                  ⊎ (∀ a → mapAt (smap (stX X')) (uesX X') j a ≡ l2p (stX X) a)

-- ... and the volatile L2P kept: an erase, a SYNC, a barrier, a flush
MS : XS → XS → Set
MS X X' = (∀ a → l2p (stX X') a ≡ l2p (stX X) a) × MapsOf X X'

-- every map of X' one of X's: a write, a relocation, an erase, a SYNC
Kept : XS → XS → Set
Kept X X' = ∀ j → Σ ℕ λ j' → ∀ a → mapAt (smap (stX X')) (uesX X') j a ≡ mapAt (smap (stX X)) (uesX X) j' a

-- ... with the volatile L2P kept: an erase, a SYNC
MK : XS → XS → Set
MK X X' = (∀ a → l2p (stX X') a ≡ l2p (stX X) a) × Kept X X'

mk-ms : ∀ {X X'} → MK X X' → MS X X'
mk-ms (kl , k) = kl , λ j → inj₁ (k j)

mk-trans : ∀ {X Y Z} → MK X Y → MK Y Z → MK X Z
mk-trans (kl1 , k1) (kl2 , k2) =
  (λ a → trans (kl2 a) (kl1 a)) , λ j → proj₁ (k1 (proj₁ (k2 j))) , λ a → trans (proj₂ (k2 j) a) (proj₂ (k1 (proj₁ (k2 j))) a)

-- the pages named then are named before
nsub-of : ∀ {X X'} → MS X X' → NSub X X'
nsub-of (kl , mo) p (a , le , inj₁ m) = a , le , inj₁ (trans (sym (kl a)) m)
nsub-of (kl , mo) p (a , le , inj₂ (j , m)) with mo j
... | inj₁ (j' , e) = a , le , inj₂ (j' , trans (sym (e a)) m)
... | inj₂ e        = a , le , inj₁ (trans (sym (e a)) m)

ms-trans : ∀ {X Y Z} → MS X Y → MS Y Z → MS X Z
ms-trans {X} {Y} {Z} (kl1 , m1) (kl2 , m2) = (λ a → trans (kl2 a) (kl1 a)) , go
  where
  go : MapsOf X Z
  go j with m2 j
  ... | inj₂ e = inj₂ (λ a → trans (e a) (kl1 a))
  ... | inj₁ (j' , e) with m1 j'
  ...   | inj₁ (j'' , e') = inj₁ (j'' , λ a → trans (e a) (e' a))
  ...   | inj₂ e'         = inj₂ (λ a → trans (e a) (e' a))

private
  -- the stable L2P kept, the epochs `es`
  at-keep : ∀ {X X'} es → (∀ a → smap (stX X') a ≡ smap (stX X) a) → uesX X' ≡ es →
            ∀ j a → mapAt (smap (stX X')) (uesX X') j a ≡ mapAt (smap (stX X)) es j a
  at-keep {X} {X'} es ks eu j a = trans (cong (λ z → mapAt (smap (stX X')) z j a) eu) (mapAt-≐ ks es j a)

-- a barrier: the new epoch's map is the volatile L2P (`vm`)
ms-barrier : ∀ {X X'} e → (∀ a → l2p (stX X') a ≡ l2p (stX X) a) → (∀ a → smap (stX X') a ≡ smap (stX X) a) →
             uesX X' ≡ uesX X ++ e ∷ [] → (∀ a → l2p (stX X) a ≡ eM e (lastMap (smap (stX X)) (uesX X)) a) →
             MS X X'
ms-barrier {X} {X'} e kl ks eu vm = kl , mo
  where
  mo : MapsOf X X'
  mo j with mapAt-snoc (smap (stX X)) (uesX X) e j
  ... | inj₁ q = inj₁ (j , λ a → trans (at-keep {X} {X'} (uesX X ++ e ∷ []) ks eu j a) (cong (λ f → f a) q))
  ... | inj₂ q = inj₂ (λ a → trans (at-keep {X} {X'} (uesX X ++ e ∷ []) ks eu j a) (trans (cong (λ f → f a) q) (sym (vm a))))

sub-barrier : ∀ {X X'} e → (∀ a → l2p (stX X') a ≡ l2p (stX X) a) → (∀ a → smap (stX X') a ≡ smap (stX X) a) →
              uesX X' ≡ uesX X ++ e ∷ [] → (∀ a → l2p (stX X) a ≡ eM e (lastMap (smap (stX X)) (uesX X)) a) →
              NSub X X'
sub-barrier {X} {X'} e kl ks eu vm = nsub-of {X} {X'} (ms-barrier {X} {X'} e kl ks eu vm)

-- every map kept
ms-keep : ∀ {X X'} → (∀ a → l2p (stX X') a ≡ l2p (stX X) a) → (∀ a → smap (stX X') a ≡ smap (stX X) a) →
          uesX X' ≡ uesX X → MK X X'
ms-keep {X} {X'} kl ks eu = kl , λ j → j , at-keep {X} {X'} (uesX X) ks eu j

sub-keep : ∀ {X X'} → (∀ a → l2p (stX X') a ≡ l2p (stX X) a) → (∀ a → smap (stX X') a ≡ smap (stX X) a) →
           uesX X' ≡ uesX X → NSub X X'
sub-keep {X} {X'} kl ks eu = nsub-of {X} {X'} (mk-ms {X} {X'} (ms-keep {X} {X'} kl ks eu))

private
  -- the volatile L2P made stable, the epochs dropped
  ms-flush : ∀ {X X'} → (∀ a → l2p (stX X') a ≡ l2p (stX X) a) → (∀ a → smap (stX X') a ≡ l2p (stX X) a) →
             uesX X' ≡ [] → MS X X'
  ms-flush {X} {X'} kl ks eu = kl , λ j → inj₂ (λ a →
    trans (cong (λ z → mapAt (smap (stX X')) z j a) eu) (trans (cong (λ f → f a) (mapAt-nil (smap (stX X')) j)) (ks a)))

  -- a prefix xs of the epochs made stable, ys left
  ms-sync : ∀ {X X'} xs ys → uesX X ≡ xs ++ ys → (∀ a → l2p (stX X') a ≡ l2p (stX X) a) →
            (∀ a → smap (stX X') a ≡ lastMap (smap (stX X)) xs a) → uesX X' ≡ ys → MK X X'
  ms-sync {X} {X'} xs ys ex kl ks eu = kl , λ j → length xs + j , λ a →
    trans (trans (cong (λ z → mapAt (smap (stX X')) z j a) eu) (mapAt-≐ ks ys j a))
          (sym (trans (cong (λ z → mapAt (smap (stX X)) z (length xs + j) a) ex)
                      (cong (λ f → f a) (mapAt-++ (smap (stX X)) xs ys j))))

  -- one more epoch, whose map is the volatile L2P

  -- P's next page mapped anew
  new-keep : ∀ {X X'} → (NewPg (stX X) (stX X') ⊎ Keep (stX X) (stX X')) → (∀ a → smap (stX X') a ≡ smap (stX X) a) →
             uesX X' ≡ uesX X → NNew X X'
  new-keep {X} {X'} (inj₂ k) ks eu p x = inj₁ (sub-keep {X} {X'} k ks eu p x)
  new-keep (inj₁ (_ , mp)) ks eu p (a , le , inj₁ m) with mp a p m
  ... | inj₁ m0 = inj₁ (a , le , inj₁ m0)
  ... | inj₂ e  = inj₂ e
  new-keep {X} {X'} (inj₁ _) ks eu p (a , le , inj₂ (j , m)) = inj₁ (a , le , inj₂ (j , trans (sym (at-keep {X} {X'} (uesX X) ks eu j a)) m))

------------------------------------------------------------------------
-- P's steps and the stable L2P (the consolidation page and the optional
-- pages keep the maps: `konsS-maps`, `smap-opt`, `smap-optL` in
-- SCFTL.Impl.LazyChainModel)

-- the volatile L2P after the consolidation page reads as P's vm says
-- (these three are public: SCFTL.Impl.SpaceQueued reads the maps after a
-- barrier and a flush with them too)
kons-vm : ∀ s → (∀ a → l2p s a ≡ apply (dbuf s) (apply (concat (ept s)) (smap s)) a) →
          ∀ a → l2p (konsS s) a ≡ eM (epE (konsS s)) (lastMap (smap (konsS s)) []) a
kons-vm s vm with konsPg s
... | nothing = vm
... | just c  = vm

ril-vm : ∀ {s} → RIL s → ∀ a → l2p s a ≡ apply (dbuf s) (apply (concat (ept s)) (smap s)) a
ril-vm (inj₁ r) = RI.vm r
ril-vm (inj₂ (_ , r , _)) = RI.vm r

-- P's flush, every commit path: the volatile L2P kept and made stable
flushP-maps : ∀ {s s'} → okP (Sp.use Sp.flush) s s' → (∀ a → l2p s' a ≡ l2p s a) × (∀ a → smap s' a ≡ l2p s a)
flushP-maps (inj₁ refl) = (λ a → refl) , (λ a → refl)
flushP-maps (inj₂ (inj₁ refl)) = (λ a → refl) , (λ a → refl)
flushP-maps (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = (λ a → refl) , (λ a → refl)
flushP-maps (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = (λ a → refl) , (λ a → refl)
flushP-maps (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = (λ a → refl) , (λ a → refl)
flushP-maps (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = (λ a → refl) , (λ a → refl)

------------------------------------------------------------------------
-- Every operation of PX but recovery

SmU : XS → XS → Set
SmU X X' = (∀ a → smap (stX X') a ≡ smap (stX X) a) × uesX X' ≡ uesX X

-- writes and relocations keep the stable L2P and the epochs
maps-smu : ∀ {X X'} → SmU X X' → Kept X X'
maps-smu {X} {X'} (ks , eu) j = j , at-keep {X} {X'} (uesX X) ks eu j

sm-w : ∀ a d {X X'} → PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) X X' → SmU X X'
sm-w a d {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , f1 , f2 , e) , ue) , _))) =
  (λ c → trans (cong (λ z → smap z c) e) (cong (λ f → f c) (smap-opt f1 f2 (wr0 a d (st (su S)))))) , ue
sm-w a d {false , S} (inj₁ (refl , S0 , refl , ((inj₂ (_ , e) , ue) , _))) = (λ c → cong (λ z → smap z c) e) , ue
sm-w a d {true , S} (inj₁ (refl , S0 , () , _))
sm-w a d {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , f1 , f2 , refl))) = smap-optL f1 f2 (wr0 a d (st (su S))) , sym eu
sm-w a d {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (_ , refl))) = (λ c → refl) , sym eu

sm-rl : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.rl))) X X' → SmU X X'
sm-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , e)) , ue) , _))) =
  (λ c → trans (cong (λ z → smap z c) e) (cong (λ f → f c) (smap-opt f1 f2 (rl0 q (st (su S)))))) , ue
sm-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , q , _ , inj₂ (_ , e)) , ue) , _))) = (λ c → cong (λ z → smap z c) e) , ue
sm-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₂ (_ , e) , ue) , _))) = (λ c → cong (λ z → smap z c) e) , ue
sm-rl {true , S} (inj₁ (refl , S0 , () , _))
sm-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , refl)))) = smap-optL f1 f2 (rl0 q (st (su S))) , sym eu
sm-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , q , _ , inj₂ (_ , refl)))) = (λ c → refl) , sym eu
sm-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (_ , refl))) = (λ c → refl) , sym eu

-- an erase changes no map
maps-es : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.es))) X X' → MK X X'
maps-es {false , S} {X'} (inj₁ (refl , .S , refl , (((p , ep , e) , ue) , _))) =
  ms-keep {false , S} {X'} (λ a → cong (λ z → l2p z a) e) (λ a → cong (λ z → smap z a) e) ue
maps-es {true , S} (inj₁ (_ , _ , () , _))
maps-es {b , S} {X'} (inj₂ (refl , eu , s' , refl , (p , ep , _ , refl))) = ms-keep {b , S} {X'} (λ a → refl) (λ a → refl) (sym eu)

named-es : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.es))) X X' → NSub X X'
named-es {X} {X'} o = nsub-of {X} {X'} (mk-ms {X} {X'} (maps-es {X} {X'} o))

-- ... nor does a block erase, P's erase steps
es-run-mk : ∀ {X ps X'} → EsRunM X ps X' → MK X X'
es-run-mk {X} (one {X' = X'} st) = maps-es {X} {X'} (proj₁ st)
es-run-mk {X} (_∷_ {X1 = X1} {X' = X'} st rn) = mk-trans {X} {X1} {X'} (maps-es {X} {X1} (proj₁ st)) (es-run-mk rn)

-- a SYNC makes the epochs, or a prefix of them, stable
maps-sy : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → MK X X'
maps-sy {false , S} {X'} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) =
  ms-sync {false , S} {X'} (ues (su S)) [] (sym (++-identityʳ (ues (su S))))
    (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
maps-sy {false , S} {X'} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , ex , _ , _ , e , _))) =
  ms-sync {false , S} {X'} xs ys ex (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
maps-sy {true , S} (inj₁ (refl , S0 , () , _))
maps-sy (inj₂ (refl , _ , s' , _ , ()))

named-sy : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → NSub X X'
named-sy {X} {X'} o = nsub-of {X} {X'} (mk-ms {X} {X'} (maps-sy {X} {X'} o))

private
  -- PUSBic's barrier: one more epoch, the volatile L2P its map, or the
  -- forced flush
  bar-PU : ∀ {S S'} → (∀ a → l2p (st (su S)) a ≡ eM (epE (st (su S))) (lastMap (smap (st (su S))) (ues (su S))) a) →
           okX (SB.use (SB.reg SB.barrier)) S S' → MS (false , S) (false , S')
  bar-PU {S} {S'} vm (inj₁ (_ , e) , _) =
    ms-barrier {false , S} {false , S'} (epE (st (su S))) (λ a → cong (λ z → l2p (st z) a) e)
      (λ a → cong (λ z → smap (st z) a) e) (cong ues e) vm
  bar-PU {S} {S'} vm (inj₂ (inj₁ e) , _) =
    ms-flush {false , S} {false , S'} (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
  bar-PU {S} {S'} vm (inj₂ (inj₂ e) , _) =
    ms-flush {false , S} {false , S'} (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)

maps-barrier : ∀ {X X'} → OPX.RI X → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → MS X X'
maps-barrier {false , S} {.false , S'} (t , ar , _) (inj₁ (refl , .S , refl , o)) = bar-PU {S} {S'} vm o
  where
    gall : GhAll (su S) t
    gall = proj₁ (proj₂ (proj₁ (ivX {S} {t} ar)))
    vm = proj₂ (proj₁ (proj₂ (proj₂ gall)))
maps-barrier {true , S} {.false , S'} (eu , ril) (inj₁ (refl , _ , refl , o)) =
  ms-trans {true , S} {false , konsU S} {false , S'}
    (mk-ms {true , S} {false , konsU S} (ms-keep {true , S} {false , konsU S} (proj₁ (konsS-maps (st (su S)))) (proj₂ (konsS-maps (st (su S)))) (sym eu)))
    (bar-PU {konsU S} {S'} (kons-vm (st (su S)) (ril-vm ril)) o)
maps-barrier _ (inj₂ (refl , _ , s' , _ , ()))

named-barrier : ∀ {X X'} → OPX.RI X → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → NSub X X'
named-barrier {X} {X'} r o = nsub-of {X} {X'} (maps-barrier {X} {X'} r o)

-- a flush makes the volatile L2P stable and drops the epochs
maps-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → MS X X'
maps-flush {false , S} {X'} (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) =
  ms-flush {false , S} {X'} (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
maps-flush {false , S} {X'} (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) =
  ms-flush {false , S} {X'} (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
maps-flush {false , S} {X'} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) =
  ms-flush {false , S} {X'} (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
maps-flush {false , S} {X'} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) =
  ms-flush {false , S} {X'} (λ a → cong (λ z → l2p (st z) a) e) (λ a → cong (λ z → smap (st z) a) e) (cong ues e)
maps-flush {true , S} (inj₁ (_ , _ , () , _))
maps-flush {b , S} {X'} (inj₂ (refl , eu , s' , refl , inj₁ o)) =
  ms-flush {b , S} {X'} (λ a → trans (proj₁ (flushP-maps o) a) (proj₁ (konsS-maps (st (su S))) a))
                         (λ a → trans (proj₂ (flushP-maps o) a) (proj₁ (konsS-maps (st (su S))) a)) refl
maps-flush {b , S} {X'} (inj₂ (refl , eu , s' , refl , inj₂ (M , _ , refl))) =
  ms-flush {b , S} {X'} (λ a → refl) (λ a → refl) refl

named-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → NSub X X'
named-flush {X} {X'} o = nsub-of {X} {X'} (maps-flush {X} {X'} o)

px-named : ∀ u {X X'} → OPX.RI X → PXm.ok (SB.use u) X X' → NNew X X'
px-named (SB.reg (SB.op (SB.w a d))) {X} {X'} _ o =
  new-keep {X} {X'} (shape-w a d {X} {X'} o) (proj₁ (sm-w a d {X} {X'} o)) (proj₂ (sm-w a d {X} {X'} o))
px-named (SB.reg (SB.op SB.rl)) {X} {X'} _ o =
  new-keep {X} {X'} (shape-rl {X} {X'} o) (proj₁ (sm-rl {X} {X'} o)) (proj₂ (sm-rl {X} {X'} o))
px-named (SB.reg (SB.op SB.es)) {X} {X'} _ o p x = inj₁ (named-es {X} {X'} o p x)
px-named (SB.reg (SB.op SB.sy)) {X} {X'} _ o p x = inj₁ (named-sy {X} {X'} o p x)
px-named (SB.reg SB.barrier) {X} {X'} r o p x = inj₁ (named-barrier {X} {X'} r o p x)
px-named SB.flush {X} {X'} _ o p x = inj₁ (named-flush {X} {X'} o p x)

------------------------------------------------------------------------
-- Blocks: every page a normal state names is located

Located : BL → ℕ → Set
Located bl p = here bl p ≡ true × InR bl p

LocN : XS → BL → Set
LocN X bl = ∀ p → Named X p → Located bl p

locN⇒locX : ∀ {X bl} → LocN X bl → LocX X bl
locN⇒locX ln a p le m = ln p (a , le , inj₁ m)

private
  t≢f : true ≢ false
  t≢f ()

  ers-esF : ∀ {s q r} → ers (esF q s) r ≡ true → ers s r ≡ true
  ers-esF {s} {q} {r} e with r ≟ℕ q
  ... | yes refl = ⊥-elim (t≢f (trans (sym e) (upd-self (ers s) r false)))
  ... | no ne    = trans (sym (upd-ne (ers s) r q false ne)) e

  -- the page an erase step of a block erase erases was erasable
  step-ers : ∀ {X q X1} → OPX.RI X → EsM X q X1 → ers (stX X) q ≡ true
  step-ers {X} {q} r (o , eq) with px-es-safe {X} r o
  ... | p' , e' , _ , ep = subst (λ z → ers (stX X) z ≡ true) (sym (same-pg {stX X} eq e' ep)) ep

  -- every page of a block erase is erasable where it begins
  run-ers : ∀ {X ps X'} → OPX.RI X → EsRunM X ps X' → All (λ q → ers (stX X) q ≡ true) ps
  run-ers {X} r (one st) = step-ers {X} r st ∷ []
  run-ers {X} r (_∷_ {X1 = X1} st rn) =
    step-ers {X} r st ∷ all-map back (run-ers {X1} (OPX.B-ok (SB.reg (SB.op SB.es)) r (proj₁ st)) rn)
    where
      back : ∀ {q} → ers (stX X1) q ≡ true → ers (stX X) q ≡ true
      back {q} e = ers-esF {stX X} (subst (λ z → ers z q ≡ true) (proj₂ st) e)

  -- and names no page its start did not
  run-sub : ∀ {X ps X'} → EsRunM X ps X' → NSub X X'
  run-sub {X} {ps} {X'} rn = nsub-of {X} {X'} (mk-ms {X} {X'} (es-run-mk rn))

  all∈ : ∀ {P : ℕ → Set} {p ps} → All P ps → p ∈ ps → P p
  all∈ (x ∷ _)  (hd refl) = x
  all∈ (_ ∷ xs) (tl i)    = all∈ xs i

  -- no page a state names is in a block it may erase
  off-block : ∀ {X X' bl k} → OPX.RI X → EsRunM X (owners bl k) X' → ∀ p → Named X p → ¬ (p ∈ owners bl k)
  off-block {X} r rn p x i = proj₂ (named-ok {X} r p x) (all∈ (run-ers {X} r rn) i)

  -- a located page a block erase does not take stays below the pointer
  inr-berase : ∀ bl k p → here bl p ≡ true → InR bl p → ¬ (p ∈ owners bl k) → InR (berase k bl) p
  inr-berase bl k p h ir nm with proj₁ (loc bl p) ≟ℕ k
  ... | no ne = subst (proj₂ (loc bl p) <_) (sym (upd-ne (wp bl) (proj₁ (loc bl p)) k 0 ne)) ir
  ... | yes e = ⊥-elim (nm (owners-mem bl k (wp bl k) (proj₂ (loc bl p)) p
                              (subst (λ z → proj₂ (loc bl p) < wp bl z) e ir)
                              (subst (λ z → own bl z (proj₂ (loc bl p)) ≡ just p) e (here-own bl p h))))

  -- an allocation moves no named page (all below P's next one)
  alloc-keeps : ∀ {X bl k} → OPX.RI X → LocN X bl → LocN X (balloc k (nxt (stX X)) bl)
  alloc-keeps {X} {bl} {k} r ln p x =
    old-stays bl k (nxt (stX X)) p (proj₁ (ln p x)) (proj₂ (ln p x)) (λ e → <-irrefl e (proj₁ (named-ok {X} r p x)))

  locN-place : ∀ {X X' bl bl'} → OPX.RI X → OPX.RI X' → LocN X bl → NNew X X' → Place X X' bl bl' → LocN X' bl'
  locN-place {X} {X'} {bl} r r' ln nn (inj₁ (_ , k , aok , refl)) p x with nn p x
  ... | inj₁ x0   = alloc-keeps {X} {bl} {k} r ln p x0
  ... | inj₂ refl = new-here bl k (nxt (stX X))
  locN-place {X} {X'} r r' ln nn (inj₂ (e , refl)) p x with nn p x
  ... | inj₁ x0   = ln p x0
  ... | inj₂ refl = ⊥-elim (<-irrefl (sym e) (proj₁ (named-ok {X'} r' p x)))

-- every operation of BXone but recovery keeps every named page located
locN-ok : ∀ u {X X' bl bl'} → OPX.RI X → LocN X bl → M.ok (SB.use u) (X , bl) (X' , bl') → LocN X' bl'
locN-ok (SB.reg (SB.op (SB.w a d))) {X} {X'} r ln (o , pl) =
  locN-place {X} {X'} r (OPX.B-ok _ r o) ln (px-named _ {X} {X'} r o) pl
locN-ok (SB.reg (SB.op SB.rl)) {X} {X'} r ln (o , pl) =
  locN-place {X} {X'} r (OPX.B-ok _ r o) ln (px-named _ {X} {X'} r o) pl
locN-ok (SB.reg (SB.op SB.es)) {X} {X'} {bl} r ln (k , rn , refl) p x =
  proj₁ L , inr-berase bl k p (proj₁ L) (proj₂ L) (off-block {X} {_} {bl} {k} r rn p x0)
  where
    x0 = run-sub rn p x
    L  = ln p x0
locN-ok (SB.reg (SB.op SB.sy)) {X} {X'} r ln (o , refl) p x = ln p (named-sy {X} {X'} o p x)
locN-ok (SB.reg SB.barrier) {X} {X'} r ln (o , refl) p x = ln p (named-barrier {X} {X'} r o p x)
locN-ok SB.flush {X} {X'} r ln (o , refl) p x = ln p (named-flush {X} {X'} o p x)

------------------------------------------------------------------------
-- The lemma of PX alone that remains

-- C is a crash state whose last normal state was X0 (a cut operation,
-- then any crashed recoveries)
data Orig (X0 : XS) : XS → Set where
  cut   : ∀ u {C} → PXm.crash (SB.use u) X0 C → Orig X0 C
  again : ∀ {C C'} → Orig X0 C → PXm.crash SB.recover C C' → Orig X0 C'

-- a new disk, then any crashed recoveries
data OrigNew : XS → Set where
  fresh     : ∀ {C} → PXm.New C → OrigNew C
  again-new : ∀ {C C'} → OrigNew C → PXm.crash SB.recover C C' → OrigNew C'

-- the normal states of PX a run from a new disk reaches
data ReachNX : XS → Set where
  firstX : ∀ {C X} → OrigNew C → PXm.ok SB.recover C X → ReachNX X
  afterX : ∀ {X0 C X} → ReachNX X0 → Orig X0 C → PXm.ok SB.recover C X → ReachNX X
  stepX  : ∀ u {X X'} → ReachNX X → PXm.ok (SB.use u) X X' → ReachNX X'

-- recovery names only pages the last normal state named
RecoveredNamed : Set
RecoveredNamed = ∀ {X0 C X} → ReachNX X0 → Orig X0 C → PXm.ok SB.recover C X → ∀ p → Named X p → Named X0 p

------------------------------------------------------------------------
-- Recovery: the stable L2P is the volatile one, no epoch unsynced

rec-maps : ∀ {X X'} → PXm.ok SB.recover X X' → (∀ a → smap (stX X') a ≡ l2p (stX X') a) × uesX X' ≡ []
rec-maps {false , S} (refl , inj₁ ((b , g , C , _ , T , es' , _ , _ , e) , ue , _)) =
  (λ a → trans (cong (λ z → smap z a) e) (sym (cong (λ z → l2p z a) e))) , ue
rec-maps {false , S} (refl , inj₂ ((b , g , C , _ , T , es' , _ , _ , _ , _ , e) , ue , _)) =
  (λ a → trans (cong (λ z → smap z a) e) (sym (cong (λ z → l2p z a) e))) , ue
rec-maps {true , S} (refl , _ , s' , refl , (b , g , C , _ , e')) =
  (λ a → trans (cong (λ z → smap z a) e') (sym (cong (λ z → l2p z a) e'))) , refl

-- so a recovered state names exactly what its L2P maps
rec-named : ∀ {X X'} → PXm.ok SB.recover X X' → ∀ p → Named X' p → Σ ℕ λ a → a ≤ amax × l2p (stX X') a ≡ just p
rec-named o p (a , le , inj₁ m) = a , le , m
rec-named {X} {X'} o p (a , le , inj₂ (j , m)) =
  a , le , trans (sym (proj₁ (rec-maps {X} {X'} o) a))
                 (trans (sym (cong (λ f → f a) (mapAt-nil (smap (stX X')) j)))
                        (subst (λ es → mapAt (smap (stX X')) es j a ≡ just p) (proj₂ (rec-maps {X} {X'} o)) m))

------------------------------------------------------------------------
-- A new disk and its crashed recoveries hold no sector

NoSec : XS → Set
NoSec C = proj₁ C ≡ false × (∀ p → dat (stX C) p ≡ syn erased)

private
  sync-e : ∀ {m} → m ≡ syn erased → sync m ≡ syn erased
  sync-e refl = refl

  crash-e : ∀ {m m'} → m ≡ syn erased → CrashD m m' → m' ≡ syn erased
  crash-e refl c = c

  ckpt-e : ∀ {u m} → (∀ p → dat u p ≡ syn erased) → CkPt u m → ∀ p → dat m p ≡ syn erased
  ckpt-e e (inj₁ refl) p = e p
  ckpt-e e (inj₂ (inj₁ refl)) p = sync-e (e p)
  ckpt-e e (inj₂ (inj₂ refl)) p = sync-e (sync-e (e p))

  -- recovery programs no data page, at any of its crash points
  rec-crash-e : ∀ {S S'} → crashX SB.recover S S' → (∀ p → dat (st (su S)) p ≡ syn erased) →
                ∀ p → dat (st (su S')) p ≡ syn erased
  rec-crash-e {S} {S'} (inj₁ ((b , g , C , pk , T , es' , ps , sh , inj₁ (x , c , img , _)) , _)) e p =
    crash-e (ckpt-e {u} (λ q → sync-e (e q)) (proj₁ (proj₂ M)) p) (proj₁ (proj₂ (proj₂ I)) p)
    where
      u = recR b g C (proj₂ (gh S)) es' (st (su S))
      M = ck-mid u (rec-synO b g C (st (su S))) c
      I = mid-crash {x} {proj₁ M} {st (su S')} (proj₂ (proj₂ M)) img
  rec-crash-e (inj₁ ((b , g , C , pk , T , es' , ps , sh , inj₂ (img , _)) , _)) e p =
    crash-e (sync-e (sync-e (sync-e (e p)))) (proj₁ img p)
  rec-crash-e (inj₂ ((b , g , C , pk , T , es' , ps , sh , cl , q , img , _) , _)) e p =
    crash-e (sync-e (e p)) (proj₁ img p)

nosec-crash : ∀ {C C'} → NoSec C → PXm.crash SB.recover C C' → NoSec C'
nosec-crash {false , S} (refl , e) (refl , c) = refl , rec-crash-e {S} c e

-- recovery from such a state names only located pages
nosec-rec : ∀ {Y Y'} → OB.CI Y → NoSec (proj₁ Y) → M.ok SB.recover Y Y' → LocN (proj₁ Y') (proj₂ Y')
nosec-rec {Y} {Y'} ci (_ , ne) o p x with rec-named {proj₁ Y} {proj₁ Y'} (proj₁ o) p x
... | a , le , m = secloc-rec {Y} {Y'} ci sl o a p le m
  where
    sl : SecLoc Y
    sl q (d , b , e) with trans (sym (cong cur (ne q))) e
    ... | ()

------------------------------------------------------------------------
-- The crash side

-- a crash state of BXone: every page its last normal state named is
-- located in its bookkeeping, or it comes from a new disk (and holds
-- no sector)
CrashLoc : M.State → Set
CrashLoc (C , bl) = (Σ XS λ X0 → ReachNX X0 × Orig X0 C × LocN X0 bl) ⊎ (OrigNew C × NoSec C)

private
  run-reach : ∀ {X ps X'} → ReachNX X → EsRunM X ps X' → ReachNX X'
  run-reach rx (one st)  = stepX (SB.reg (SB.op SB.es)) rx (proj₁ st)
  run-reach rx (st ∷ rn) = run-reach (stepX (SB.reg (SB.op SB.es)) rx (proj₁ st)) rn

  -- the erase step a crashed block erase was cut in
  crash-prefix : ∀ {X ps C} → ReachNX X → EsCrashM X ps C → Σ XS λ Xi → ReachNX Xi × Orig Xi C × NSub X Xi
  crash-prefix {X} rx (one c) = X , rx , cut (SB.reg (SB.op SB.es)) c , (λ p x → x)
  crash-prefix {X} rx (_∷_ {X1 = X1} st cr) with crash-prefix (stepX (SB.reg (SB.op SB.es)) rx (proj₁ st)) cr
  ... | Xi , ri , og , ns = Xi , ri , og , sub-trans {X} {X1} {Xi} (named-es {X} {X1} (proj₁ st)) ns

  bx-reach : ∀ u {X X' bl bl'} → ReachNX X → M.ok (SB.use u) (X , bl) (X' , bl') → ReachNX X'
  bx-reach (SB.reg (SB.op (SB.w a d))) rx (o , _) = stepX _ rx o
  bx-reach (SB.reg (SB.op SB.rl)) rx (o , _) = stepX _ rx o
  bx-reach (SB.reg (SB.op SB.es)) rx (_ , rn , _) = run-reach rx rn
  bx-reach (SB.reg (SB.op SB.sy)) rx (o , _) = stepX _ rx o
  bx-reach (SB.reg SB.barrier) rx (o , _) = stepX _ rx o
  bx-reach SB.flush rx (o , _) = stepX _ rx o

-- a crash of a normal operation keeps every page named before it located
crash-loc : ∀ u {X C bl bl'} → OPX.RI X → LocN X bl → ReachNX X → M.crash (SB.use u) (X , bl) (C , bl') → CrashLoc (C , bl')
crash-loc (SB.reg (SB.op (SB.w a d))) {X} r ln rx (c , inj₁ refl) = inj₁ (X , rx , cut _ c , ln)
crash-loc (SB.reg (SB.op (SB.w a d))) {X} {bl = bl} r ln rx (c , inj₂ (k , _ , refl)) =
  inj₁ (X , rx , cut _ c , alloc-keeps {X} {bl} {k} r ln)
crash-loc (SB.reg (SB.op SB.rl)) {X} r ln rx (c , inj₁ refl) = inj₁ (X , rx , cut _ c , ln)
crash-loc (SB.reg (SB.op SB.rl)) {X} {bl = bl} r ln rx (c , inj₂ (k , _ , refl)) =
  inj₁ (X , rx , cut _ c , alloc-keeps {X} {bl} {k} r ln)
crash-loc (SB.reg (SB.op SB.es)) {X} {C} {bl} r ln rx (k , (X'' , full) , cr , refl) with crash-prefix rx cr
... | Xi , ri , og , ns = inj₁ (Xi , ri , og , λ p x →
        let x0 = ns p x
            L  = ln p x0
        in proj₁ L , inr-berase bl k p (proj₁ L) (proj₂ L) (off-block {X} {_} {bl} {k} r full p x0))
crash-loc (SB.reg (SB.op SB.sy)) {X} r ln rx (c , refl) = inj₁ (X , rx , cut _ c , ln)
crash-loc (SB.reg SB.barrier) {X} r ln rx (c , refl) = inj₁ (X , rx , cut _ c , ln)
crash-loc SB.flush {X} r ln rx (c , refl) = inj₁ (X , rx , cut _ c , ln)

------------------------------------------------------------------------
-- RecoveredNamed gives RecoveredLocated, hence Theorem 1 and SC1B for
-- BXone with the physical read

module _ (rn : RecoveredNamed) where

  reachN-inv : ∀ {Y} → ReachN Y → OB.RI Y × LocN (proj₁ Y) (proj₂ Y) × ReachNX (proj₁ Y)
  reachC-inv : ∀ {Y} → ReachC Y → OB.CI Y × CrashLoc Y

  reachN-inv (first {Y} {Y'} n o) =
    OB.B-rec {Y} {Y'} (OB.init-CI {Y} n) o ,
    nosec-rec {Y} {Y'} (OB.init-CI {Y} n) (proj₁ (proj₁ n) , proj₂ (proj₂ n)) o ,
    firstX (fresh (proj₁ n)) (proj₁ o)
  reachN-inv (after {Y} {Y'} r o) with reachC-inv r
  ... | ci , inj₁ (X0 , rx , og , ln) =
    ri' , (λ p x → subst (λ b → Located b p) (sym (proj₂ o)) (forgets p x (ln p (rn rx og (proj₁ o) p x)))) ,
    afterX rx og (proj₁ o)
    where
      ri' = OB.B-rec {Y} {Y'} ci o
      -- recovery forgets no page it names (all below P's next page)
      forgets : ∀ p → Named (proj₁ Y') p → Located (proj₂ Y) p → Located (forget (nxt (stX (proj₁ Y'))) (proj₂ Y)) p
      forgets p x L = here-forget (proj₂ Y) (nxt (stX (proj₁ Y'))) p (proj₁ L) lt ,
                      inr-forget (proj₂ Y) (nxt (stX (proj₁ Y'))) p (proj₁ L) (proj₂ L) lt
        where
          lt = proj₁ (named-ok {proj₁ Y'} (proj₁ ri') p x)
  ... | ci , inj₂ (on , ns) = OB.B-rec {Y} {Y'} ci o , nosec-rec {Y} {Y'} ci ns o , firstX on (proj₁ o)
  reachN-inv (step u {Y} {Y'} r o) with reachN-inv r
  ... | ri , ln , rx =
    OB.B-ok u {Y} {Y'} ri o ,
    locN-ok u {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} (proj₁ ri) ln o ,
    bx-reach u {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} rx o

  reachC-inv (crashed u {Y} {Y'} r c) with reachN-inv r
  ... | ri , ln , rx =
    OB.B-crash u {Y} {Y'} ri c , crash-loc u {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} (proj₁ ri) ln rx c
  reachC-inv (crashed-new {Y} {Y'} n c) =
    OB.B-recᶜ {Y} {Y'} (OB.init-CI {Y} n) c ,
    inj₂ (again-new (fresh (proj₁ n)) (proj₁ c) ,
          nosec-crash {proj₁ Y} {proj₁ Y'} (proj₁ (proj₁ n) , proj₂ (proj₂ n)) (proj₁ c))
  reachC-inv (crashed-rec {Y} {Y'} r c) with reachC-inv r
  ... | ci , inj₁ (X0 , rx , og , ln) =
    OB.B-recᶜ {Y} {Y'} ci c , inj₁ (X0 , rx , again og (proj₁ c) , subst (LocN X0) (sym (proj₂ c)) ln)
  ... | ci , inj₂ (on , ns) =
    OB.B-recᶜ {Y} {Y'} ci c , inj₂ (again-new on (proj₁ c) , nosec-crash {proj₁ Y} {proj₁ Y'} ns (proj₁ c))

  recovered-located : RecoveredLocated
  recovered-located {Y} {Y'} r o = locN⇒locX {proj₁ Y'} {proj₂ Y'} (proj₁ (proj₂ (reachN-inv (after r o))))

  theorem1-BXφ′ : SB.CorrespondenceB.BehaviourallyCorrect BXφ SB.SB
  theorem1-BXφ′ = theorem1-BXφ recovered-located

  BXφ-snapshot-consistent′ : SB.SnapshotConsistentB BXφ
  BXφ-snapshot-consistent′ = BXφ-snapshot-consistent recovered-located

------------------------------------------------------------------------
-- Allocation stays possible: every placed P page is below P's next
-- page, so P's next page is on no physical page (`Fresh`), in every
-- normal state of every run, recoveries included (recovery forgets the
-- placements of the pages whose numbers P takes again)

FreshAbove : XS → BL → Set
FreshAbove X bl = ∀ k o q → own bl k o ≡ just q → q < nxt (stX X)

fresh-next : ∀ {X bl} → FreshAbove X bl → Fresh bl (nxt (stX X))
fresh-next fa k o e = <-irrefl refl (fa k o _ e)

private
  flushP-nxt : ∀ {s s'} → okP (Sp.use Sp.flush) s s' → nxt s' ≡ nxt s
  flushP-nxt (inj₁ refl) = refl
  flushP-nxt (inj₂ (inj₁ refl)) = refl
  flushP-nxt (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = refl
  flushP-nxt (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = refl
  flushP-nxt (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = refl
  flushP-nxt (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = refl

  nxt-sy : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → nxt (stX X') ≡ nxt (stX X)
  nxt-sy {false , S} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) = cong (λ z → nxt (st z)) e
  nxt-sy {false , S} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , _ , _ , _ , e , _))) = cong (λ z → nxt (st z)) e
  nxt-sy {true , S} (inj₁ (refl , S0 , () , _))
  nxt-sy (inj₂ (refl , _ , s' , _ , ()))

  bar-nxt : ∀ {S S'} → okX (SB.use (SB.reg SB.barrier)) S S' → nxt (st (su S')) ≡ nxt (st (su S))
  bar-nxt (inj₁ (_ , e) , _) = cong (λ z → nxt (st z)) e
  bar-nxt (inj₂ (inj₁ e) , _) = cong (λ z → nxt (st z)) e
  bar-nxt (inj₂ (inj₂ e) , _) = cong (λ z → nxt (st z)) e

  nxt-barrier : ∀ {X X'} → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → nxt (stX X') ≡ nxt (stX X)
  nxt-barrier {false , S} {.false , S'} (inj₁ (refl , .S , refl , o)) = bar-nxt {S} {S'} o
  nxt-barrier {true , S} {.false , S'} (inj₁ (refl , _ , refl , o)) = trans (bar-nxt {konsU S} {S'} o) (konsS-nxt (st (su S)))
  nxt-barrier (inj₂ (refl , _ , s' , _ , ()))

  nxt-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → nxt (stX X') ≡ nxt (stX X)
  nxt-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) = cong (λ z → nxt (st z)) e
  nxt-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) = cong (λ z → nxt (st z)) e
  nxt-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) = cong (λ z → nxt (st z)) e
  nxt-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) = cong (λ z → nxt (st z)) e
  nxt-flush {true , S} (inj₁ (_ , _ , () , _))
  nxt-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₁ o)) = trans (flushP-nxt o) (konsS-nxt (st (su S)))
  nxt-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (M , _ , refl))) = refl

  run-nxt : ∀ {X ps X'} → EsRunM X ps X' → nxt (stX X') ≡ nxt (stX X)
  run-nxt (one (_ , e))  = cong nxt e
  run-nxt {X} (_∷_ (_ , e) rn) = trans (run-nxt rn) (cong nxt e)

  fresh-place : ∀ {X X' bl bl'} → FreshAbove X bl → Place X X' bl bl' → FreshAbove X' bl'
  fresh-place {X} {X'} {bl} fa (inj₁ (en , k , _ , refl)) k' o' q e with own-balloc bl k (nxt (stX X)) k' o' q e
  ... | inj₁ refl = subst (nxt (stX X) <_) (sym en) (n<1+n (nxt (stX X)))
  ... | inj₂ e0   = subst (q <_) (sym en) (<-trans (fa k' o' q e0) (n<1+n (nxt (stX X))))
  fresh-place {X} {X'} fa (inj₂ (e , refl)) k' o' q x = subst (q <_) (sym e) (fa k' o' q x)

  fresh-keep : ∀ {X X' bl} → FreshAbove X bl → nxt (stX X') ≡ nxt (stX X) → FreshAbove X' bl
  fresh-keep fa e k o q x = subst (q <_) (sym e) (fa k o q x)

-- every operation of BXone keeps it, recovery makes it
fresh-ok : ∀ u {X X' bl bl'} → FreshAbove X bl → M.ok (SB.use u) (X , bl) (X' , bl') → FreshAbove X' bl'
fresh-ok (SB.reg (SB.op (SB.w a d))) {X} {X'} fa (o , pl) = fresh-place {X} {X'} fa pl
fresh-ok (SB.reg (SB.op SB.rl)) {X} {X'} fa (o , pl) = fresh-place {X} {X'} fa pl
fresh-ok (SB.reg (SB.op SB.es)) {X} {X'} {bl} fa (k , rn , refl) = fresh-keep {X} {X'} {berase k bl} fa (run-nxt rn)
fresh-ok (SB.reg (SB.op SB.sy)) {X} {X'} {bl} fa (o , refl) = fresh-keep {X} {X'} {bl} fa (nxt-sy {X} {X'} o)
fresh-ok (SB.reg SB.barrier) {X} {X'} {bl} fa (o , refl) = fresh-keep {X} {X'} {bl} fa (nxt-barrier {X} {X'} o)
fresh-ok SB.flush {X} {X'} {bl} fa (o , refl) = fresh-keep {X} {X'} {bl} fa (nxt-flush {X} {X'} o)

fresh-rec : ∀ {X X' bl bl'} → M.ok SB.recover (X , bl) (X' , bl') → FreshAbove X' bl'
fresh-rec {X} {X'} {bl} (o , refl) = forget-below {bl} (nxt (stX X'))

-- in every normal state of every run
reach-fresh : ∀ {Y} → ReachN Y → FreshAbove (proj₁ Y) (proj₂ Y)
reach-fresh (first {Y} {Y'} n o) = fresh-rec {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} o
reach-fresh (after {Y} {Y'} r o) = fresh-rec {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} o
reach-fresh (step u {Y} {Y'} r o) = fresh-ok u {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} (reach-fresh r) o

-- so, in every normal state of every run (after any crashes), BXone
-- takes every write and relocation of PX wherever a block offers an
-- erased physical page at its write pointer once taken (a block taken at
-- write pointer 0 is erased first, `act`)
Offers : XS → BL → ℕ → Set
Offers X bl k = Opens bl k × wp bl k < Z × cur (cellOf (phys (stX X)) (act bl k (wp bl k))) ≡ erased

-- every open or reusable block at write pointer 0 offers its first page
offers-empty : ∀ X bl k → Opens bl k → wp bl k ≡ 0 → Offers X bl k
offers-empty X bl k op e = op , subst (_< Z) (sym e) (s≤s z≤n) , er
  where
    er : cur (cellOf (phys (stX X)) (act bl k (wp bl k))) ≡ erased
    er rewrite e = refl

-- a crash of a block erase, then recovery, leaves the block offering its
-- first page, whatever the crash kept of the block's old pages: P's
-- erase steps may all be lost (P's crash of an erase not yet SYNCed), so
-- the block's physical pages may hold their old incarnations again; the
-- block is erased when it is taken (blocks.rs: after recovery every
-- unreferenced superblock is erasable, and `activate_next` erases an
-- erasable superblock first).  Until the twenty-second session BX's
-- allocation asked the page at the write pointer to be erased without
-- that erase, so such a block could neither take a page (its page 0 held
-- an old sector) nor be erased again (it had no page below its write
-- pointer): BXone lost the block for good.
erase-crash-offers : ∀ {X bl C bl' X'' bl''} (c : M.crash (SB.use (SB.reg (SB.op SB.es))) (X , bl) (C , bl')) →
                     M.ok SB.recover (C , bl') (X'' , bl'') → Offers X'' bl'' (proj₁ c)
erase-crash-offers {X} {bl} {X'' = X''} (k , _ , _ , refl) (_ , refl) =
  offers-empty X'' (forget (nxt (stX X'')) (berase k bl)) k
    (inj₂ (forget-fr {berase k bl} (nxt (stX X'')) k (upd-self (fr bl) k true)))
    (forget-wp0 {berase k bl} (nxt (stX X'')) k (upd-self (wp bl) k 0))

bx-w-live : ∀ a d {Y X'} → ReachN Y → PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) (proj₁ Y) X' →
            (nxt (stX X') ≡ suc (nxt (stX (proj₁ Y))) → Σ ℕ λ k → Offers (proj₁ Y) (proj₂ Y) k) →
            Σ BL λ bl' → M.ok (SB.use (SB.reg (SB.op (SB.w a d)))) Y (X' , bl')
bx-w-live a d {Y} {X'} r o av =
  bx-w a d {proj₁ Y} {X'} {proj₂ Y} o
    (λ e → proj₁ (av e) , proj₁ (proj₂ (av e)) , proj₁ (proj₂ (proj₂ (av e))) , proj₂ (proj₂ (proj₂ (av e))) ,
           fresh-next {proj₁ Y} {proj₂ Y} (reach-fresh r))

bx-rl-live : ∀ {Y X'} → ReachN Y → PXm.ok (SB.use (SB.reg (SB.op SB.rl))) (proj₁ Y) X' →
             (nxt (stX X') ≡ suc (nxt (stX (proj₁ Y))) → Σ ℕ λ k → Offers (proj₁ Y) (proj₂ Y) k) →
             Σ BL λ bl' → M.ok (SB.use (SB.reg (SB.op SB.rl))) Y (X' , bl')
bx-rl-live {Y} {X'} r o av =
  bx-rl {proj₁ Y} {X'} {proj₂ Y} o
    (λ e → proj₁ (av e) , proj₁ (proj₂ (av e)) , proj₁ (proj₂ (proj₂ (av e))) , proj₂ (proj₂ (proj₂ (av e))) ,
           fresh-next {proj₁ Y} {proj₂ Y} (reach-fresh r))
