{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PU's RECOVERY over the unsynced epochs, its
-- normal-state part and its crashed part, at the level of the replay
-- state and of SB's candidates by INDEX.
--
-- PU's recovery (recovery.rs over docs/FORMAT.md §4.3's region) reads
-- the delta region newest page first as
--
--   T ++ lay es pr
--
-- T the open epoch's tentative pages (no committed page above them: they
-- are skipped), es the unsynced committed epochs oldest first (each
-- checked in order with P's `okC`: `accU`), pr the part the last SYNC
-- made durable (the code finds its top by the after-sync flag; here the
-- split is given, `Parse`).  `recRS` is the replay state it ends in.
--
--   Tent, tents-Tent   a tentative delta page; the open epoch's pages are
--   region-layT        every PU state reached by normal operation
--                      (`LayM`, UnsyncedBarrier.lay-ok) parses so, with
--                      T the open epoch's tentative pages (no need for
--                      `ept ≡ []`, unlike rec-prefixU)
--   recU-normal        recovery from such a state ends in the replay
--                      state at the last SYNC or at one barrier of `ues`
--   accU-prefix≤       recovery accepts the first k epochs, k ≤ their
--                      number
--   recU-cand          with ARv (as many unsynced epochs as SB has
--                      pending snapshots): recovery accepts the first k
--                      unsynced epochs and k names one of SB's
--                      candidates `stable ∷ pend` (`nth`, `nth-∈`): the
--                      stable image for k = 0, the k-th pending one else
--   recU-crash-cand    the same after a crash of such a state with no
--                      open tentative page (e.g. right after a barrier's
--                      programs): the epochs as the crash left them,
--                      `crash-recU`
--   Skip, ParseS, tents-skip, recU-crash-open (recU-crash-openL: from the region's crash alone)
--                      a crash of ANY normal PU state, open tentative
--                      pages included: those come back as written,
--                      erased or junk (`Skip`, none committed), the
--                      epochs below as the crash left them, and recovery
--                      skipping the top pages ends at the last SYNC or at
--                      one barrier of `ues`
--   recU-crash-open-cand  the same by index against SB (with ARv)
--   skip-not-ok, acc-skip  no skipped page passes P's `okC`, so P's own
--                      `acc` skips them too: `acc (T ++ cs) ≡ acc cs`
--
-- NOT proven here: that the replay state at the k-th barrier READS SB's
-- k-th candidate (a ghost image per entry of `ues` and `verD` with an
-- invariant for the data pages: SCFTL.Impl.UnsyncedImages and
-- UnsyncedBase prove it), recovery as a step of PU's model, RI,
-- type B, CR, Theorem 1 and SC1B for PU (proofs/README.md, "Epoch
-- barriers", "What is not proven").
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedRecovery (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Empty using (⊥)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take)
open import Data.List.Properties using (++-assoc)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.List.Properties using (map-++-commute)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_
  using (UEp; lay; accU; accB; rsAt; rpE; rp-lay; rec-prefixP)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_
  using (E; ue; tents; CrashEs; CrashR; CrashRs; crash-rec-prefix; []; _∷_)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; st; ues; LayM; ARv; Syn; cur-uns; lay-++; crash-recU; crashEs;
         crashL-++; crashL-syn; crashR; crashRs; crashRs-++)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- Recovery's parse of the region

-- a tentative delta page (not committed): recovery skips it when no
-- committed page lies above it
Tent : Cell → Set
Tent (dlt _ _ _ false _) = ⊤
Tent _                   = ⊥

tents-Tent : ∀ g x pss → All Tent (tents g x pss)
tents-Tent g x []         = []
tents-Tent g x (ps ∷ pss) = tt ∷ tents-Tent g x pss

-- the region cs read as the open epoch's tentative pages T, the unsynced
-- epochs es, the proven part pr
Parse : List Cell → List Cell → List UEp → List Cell → Set
Parse cs T es pr = cs ≡ T ++ lay es pr × All Tent T

-- the replay state recovery ends in: T skipped, es checked in order
recRS : ℕ → (ℕ → Cell) → List UEp → List Cell → RS → RS
recRS g D es pr mt = rp g (accU g D pr es) mt

------------------------------------------------------------------------
-- Normal states

region-layT : ∀ {s es} → LayM s es →
  Σ (List Cell) λ pr → Parse (map cur (dr s)) (tents (gen s) (ep s) (ept s)) (map (ue (gen s)) es) pr
region-layT {s} {es} (prM , e , _) =
  map cur prM ,
  trans (cong (map cur) e)
   (trans (cur-uns (T ++ L) prM)
    (trans (++-assoc T L (map cur prM))
           (cong (T ++_) (lay-++ (map (ue (gen s)) es) [] (map cur prM))))) ,
  tents-Tent (gen s) (ep s) (ept s)
  where
    T = tents (gen s) (ep s) (ept s)
    L = lay (map (ue (gen s)) es) []

recU-normal : ∀ {s es} → LayM s es → ∀ D mt →
  Σ (List Cell) λ pr →
    Parse (map cur (dr s)) (tents (gen s) (ep s) (ept s)) (map (ue (gen s)) es) pr ×
    recRS (gen s) D (map (ue (gen s)) es) pr mt ∈ rsAt (gen s) (map (ue (gen s)) es) (rp (gen s) pr mt)
recU-normal {s} {es} l D mt =
  let R = region-layT {s} {es} l in
  proj₁ R , proj₂ R , rec-prefixP (gen s) D (proj₁ R) (map (ue (gen s)) es) mt

------------------------------------------------------------------------
-- The number of epochs recovery accepts, and SB's candidates by index

accU-prefix≤ : ∀ g D pr (es : List UEp) →
  Σ ℕ λ k → k ≤ length es × accU g D pr es ≡ lay (take k es) pr
accU-prefix≤ g D pr []              = 0 , z≤n , refl
accU-prefix≤ g D pr ((c , ts) ∷ es) = go (okC g D c (ts ++ pr))
  where
    go : ∀ b → Σ ℕ λ k → k ≤ suc (length es) × accB g D pr c ts es b ≡ lay (take k ((c , ts) ∷ es)) pr
    go true with accU-prefix≤ g D (c ∷ ts ++ pr) es
    ... | k , le , e = suc k , s≤s le , e
    go false = 0 , z≤n , refl

-- the k-th of x ∷ xs
nth : ∀ {A : Set} → A → List A → ℕ → A
nth x xs       zero    = x
nth x []       (suc k) = x
nth x (y ∷ ys) (suc k) = nth y ys k

nth-∈ : ∀ {A : Set} (x : A) xs k → k ≤ length xs → nth x xs k ∈ x ∷ xs
nth-∈ x xs       zero    _         = here refl
nth-∈ x (y ∷ ys) (suc k) (s≤s le) = there (nth-∈ y ys k le)

-- SB's k-th candidate: the stable image (k = 0) or the k-th pending one
candAt : SB.State → ℕ → SB.Arr
candAt t k = nth (SB.stable t) (SB.pend t) k

map-length : ∀ {A B : Set} (f : A → B) xs → length (map f xs) ≡ length xs
map-length f []       = refl
map-length f (x ∷ xs) = cong suc (map-length f xs)

-- recovery from a normal PU state accepts the first k unsynced epochs,
-- and k names one of SB's candidates
recU-cand : ∀ {s t} → LayM (st s) (ues s) → ARv s t → ∀ D mt →
  let g = gen (st s) ; es = map (ue g) (ues s) in
  Σ (List Cell) λ pr → Σ ℕ λ k →
    Parse (map cur (dr (st s))) (tents g (ep (st s)) (ept (st s))) es pr ×
    k ≤ length (SB.pend t) ×
    recRS g D es pr mt ≡ rpE g (take k es) (rp g pr mt) ×
    candAt t k ∈ SB.stable t ∷ SB.pend t
recU-cand {s} {t} l av D mt =
  pr , k , p , kle ,
  trans (cong (λ z → rp g z mt) e) (rp-lay g (take k es) pr mt) ,
  nth-∈ (SB.stable t) (SB.pend t) k kle
  where
    R  = region-layT {st s} {ues s} l
    pr = proj₁ R
    p  = proj₂ R
    K  = accU-prefix≤ (gen (st s)) D pr (map (ue (gen (st s))) (ues s))
    k  = proj₁ K
    le = proj₁ (proj₂ K)
    e  = proj₂ (proj₂ K)
    g = gen (st s)
    es = map (ue g) (ues s)
    kle : k ≤ length (SB.pend t)
    kle = subst (k ≤_) (trans (map-length (ue g) (ues s)) (proj₂ (proj₂ av))) le

------------------------------------------------------------------------
-- After a crash (no open tentative page): the epochs as the crash left
-- them, as many as written

crashEs-length : ∀ {g es es'} → CrashEs g es es' → length es' ≡ length es
crashEs-length []         = refl
crashEs-length (_ ∷ ces)  = cong suc (crashEs-length ces)

recU-crash-cand : ∀ {s t s'} → LayM (st s) (ues s) → ept (st s) ≡ [] → ARv s t → Img (st s) s' → ∀ D mt →
  let g = gen (st s) in
  Σ (List Cell) λ pr → Σ (List UEp) λ es' → Σ ℕ λ k →
    CrashEs g (ues s) es' × Parse (map cur (dr s')) [] es' pr ×
    k ≤ length (SB.pend t) ×
    recRS g D es' pr mt ≡ rpE g (take k es') (rp g pr mt) ×
    recRS g D es' pr mt ∈ rsAt g (map (ue g) (ues s)) (rp g pr mt) ×
    candAt t k ∈ SB.stable t ∷ SB.pend t
recU-crash-cand {s} {t} {s'} l z av img D mt =
  pr , es' , k , ces , (e , []) , kle ,
  trans (cong (λ w → rp g w mt) ea) (rp-lay g (take k es') pr mt) ,
  m , nth-∈ (SB.stable t) (SB.pend t) k kle
  where
    R   = crash-recU {st s} {s'} {ues s} l z img D mt
    pr  = proj₁ R
    es' = proj₁ (proj₂ R)
    ces = proj₁ (proj₂ (proj₂ R))
    e   = proj₁ (proj₂ (proj₂ (proj₂ R)))
    m   = proj₂ (proj₂ (proj₂ (proj₂ R)))
    K   = accU-prefix≤ (gen (st s)) D pr es'
    k   = proj₁ K
    le  = proj₁ (proj₂ K)
    ea  = proj₂ (proj₂ K)
    g = gen (st s)
    kle : k ≤ length (SB.pend t)
    kle = subst (k ≤_) (trans (crashEs-length ces) (proj₂ (proj₂ av))) le

------------------------------------------------------------------------
-- After a crash WITH open tentative pages (e.g. in the middle of an
-- epoch, or right after a tentative delta page): each of them as written
-- (tentative), erased or junk, none committed; recovery skips them
-- (`Skip`) and ends at the last SYNC or at one barrier as written

Skip : Cell → Set
Skip c = Tent c ⊎ c ≡ erased ⊎ c ≡ junk

ParseS : List Cell → List Cell → List UEp → List Cell → Set
ParseS cs T es pr = cs ≡ T ++ lay es pr × All Skip T

-- The crash helpers on lists of cells (`crashL-++`, `crashL-syn`,
-- `crashR`, `crashRs`, `crashRs-++`) are SCFTL.Impl.UnsyncedBarrier's.

tents-skip : ∀ g x pss {ys} → CrashRs (tents g x pss) ys → All Skip ys
tents-skip g x []         []               = []
tents-skip g x (ps ∷ pss) (inj₁ refl ∷ cr) = inj₁ tt ∷ tents-skip g x pss cr
tents-skip g x (ps ∷ pss) (inj₂ e ∷ cr)    = inj₂ e ∷ tents-skip g x pss cr

-- (the region's crash is all it reads: `recU-crash-openL`)
recU-crash-openL : ∀ {m s'} es → LayM m es → CrashL (dr m) (dr s') → ∀ D mt →
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' →
    CrashEs (gen m) es es' × ParseS (map cur (dr s')) T es' pr ×
    recRS (gen m) D es' pr mt ∈ rsAt (gen m) (map (ue (gen m)) es) (rp (gen m) pr mt)
recU-crash-openL {m} {s'} es (prM , e , sy) cl D mt =
  map cur prM , T′ , es' , ces ,
  (trans (cong (map cur) d)
    (trans (map-++-commute cur A B)
     (trans (cong₂ _++_ (trans d2 (cong (T′ ++_) la)) (cong (map cur) (crashL-syn sy cb)))
      (trans (++-assoc T′ (lay es' []) (map cur prM))
             (cong (T′ ++_) (lay-++ es' [] (map cur prM)))))) ,
   tents-skip (gen m) (ep m) (ept m) ct) ,
  crash-rec-prefix (gen m) D (map cur prM) es es' mt ces
  where
    -- the crash lemmas' results, by projections (no `with` over this clause)
    X1 = crashL-++ (map (uns erased) (tents (gen m) (ep m) (ept m) ++ lay (map (ue (gen m)) es) []))
                   (subst (λ w → CrashL w (dr s')) e cl)
    A  = proj₁ X1
    B  = proj₁ (proj₂ X1)
    d  = proj₁ (proj₂ (proj₂ X1))
    ca = proj₁ (proj₂ (proj₂ (proj₂ X1)))
    cb = proj₂ (proj₂ (proj₂ (proj₂ X1)))
    X2 = crashRs-++ (tents (gen m) (ep m) (ept m))
                    (crashRs (tents (gen m) (ep m) (ept m) ++ lay (map (ue (gen m)) es) []) ca)
    T′ = proj₁ X2
    d2 = proj₁ (proj₂ (proj₂ X2))
    ct = proj₁ (proj₂ (proj₂ (proj₂ X2)))
    cL = proj₂ (proj₂ (proj₂ (proj₂ X2)))
    X3 = crashEs (gen m) es cL
    es' = proj₁ X3
    ces = proj₁ (proj₂ X3)
    la  = proj₂ (proj₂ X3)

recU-crash-open : ∀ {m s'} es → LayM m es → Img m s' → ∀ D mt →
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' →
    CrashEs (gen m) es es' × ParseS (map cur (dr s')) T es' pr ×
    recRS (gen m) D es' pr mt ∈ rsAt (gen m) (map (ue (gen m)) es) (rp (gen m) pr mt)
recU-crash-open {m} {s'} es l (_ , _ , _ , cl , _) D mt = recU-crash-openL {m} {s'} es l cl D mt

-- and by index: recovery accepts the first k epochs as written, k names
-- one of SB's candidates
recU-crash-open-cand : ∀ {s t s'} → LayM (st s) (ues s) → ARv s t → Img (st s) s' → ∀ D mt →
  let g = gen (st s) in
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    CrashEs g (ues s) es' × ParseS (map cur (dr s')) T es' pr ×
    k ≤ length (SB.pend t) ×
    recRS g D es' pr mt ≡ rpE g (take k es') (rp g pr mt) ×
    recRS g D es' pr mt ∈ rsAt g (map (ue g) (ues s)) (rp g pr mt) ×
    candAt t k ∈ SB.stable t ∷ SB.pend t
recU-crash-open-cand {s} {t} {s'} l av img D mt =
  pr , T , es' , k , ces , p , kle ,
  trans (cong (λ w → rp g w mt) ea) (rp-lay g (take k es') pr mt) ,
  m , nth-∈ (SB.stable t) (SB.pend t) k kle
  where
    R   = recU-crash-open {st s} {s'} (ues s) l img D mt
    pr  = proj₁ R
    T   = proj₁ (proj₂ R)
    es' = proj₁ (proj₂ (proj₂ R))
    ces = proj₁ (proj₂ (proj₂ (proj₂ R)))
    p   = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ R))))
    m   = proj₂ (proj₂ (proj₂ (proj₂ (proj₂ R))))
    K   = accU-prefix≤ (gen (st s)) D pr es'
    k   = proj₁ K
    le  = proj₁ (proj₂ K)
    ea  = proj₂ (proj₂ K)
    g = gen (st s)
    kle : k ≤ length (SB.pend t)
    kle = subst (k ≤_) (trans (crashEs-length ces) (proj₂ (proj₂ av))) le

------------------------------------------------------------------------
-- The skipped pages are what P's own check skips: no `Skip` page passes
-- `okC`, so P's `acc` reads `T ++ cs` as `cs`

skip-not-ok : ∀ g D c cs → Skip c → okC g D c cs ≡ false
skip-not-ok g D erased                  cs _                  = refl
skip-not-ok g D junk                    cs _                  = refl
skip-not-ok g D (dlt h x ps false d)    cs _                  = refl
skip-not-ok g D (dcell _ _)             cs (inj₁ ())
skip-not-ok g D (dcell _ _)             cs (inj₂ (inj₁ ()))
skip-not-ok g D (dcell _ _)             cs (inj₂ (inj₂ ()))
skip-not-ok g D (dlt h x ps true d)     cs (inj₁ ())
skip-not-ok g D (dlt h x ps true d)     cs (inj₂ (inj₁ ()))
skip-not-ok g D (dlt h x ps true d)     cs (inj₂ (inj₂ ()))
skip-not-ok g D (cpt _ _)               cs (inj₁ ())
skip-not-ok g D (cpt _ _)               cs (inj₂ (inj₁ ()))
skip-not-ok g D (cpt _ _)               cs (inj₂ (inj₂ ()))

acc-skip : ∀ g D T cs → All Skip T → acc g D (T ++ cs) ≡ acc g D cs
acc-skip g D []      cs []         = refl
acc-skip g D (c ∷ T) cs (sk ∷ sks) =
  trans (cong (λ b → if b then c ∷ T ++ cs else acc g D (T ++ cs)) (skip-not-ok g D c (T ++ cs) sk))
        (acc-skip g D T cs sks)
