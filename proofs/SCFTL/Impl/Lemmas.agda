{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Generic lemmas about the model P: map updates, delta replay, crash
-- images of pages and of the delta region, checkpoint choice, the
-- fresh-page bound computed by recovery.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Lemmas (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; s≤s; z≤n; _≡ᵇ_; _≤ᵇ_; _<ᵇ_; _⊔_)
open import Data.Nat.Properties
  using (≤ᵇ⇒≤; ≤⇒≤ᵇ; <ᵇ⇒<; <⇒≤; 1+n≰n; ≤-trans; ≤-refl; n≤0⇒n≡0; m≤n⇒m<n∨m≡n; m≤m⊔n; m≤n⊔m; ≤-step
        ; <⇒≱; _<?_; ≮⇒≥; _≟_; ≤-reflexive; +-identityʳ; +-suc; ≤∧≢⇒<)
open import Data.Bool.Base using (Bool; true; false; T; if_then_else_; _∧_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; does; yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Spec Data d0 amax wmax using (Addr)

------------------------------------------------------------------------
-- Booleans and updates

≡ᵇ-refl : ∀ n → (n ≡ᵇ n) ≡ true
≡ᵇ-refl zero    = refl
≡ᵇ-refl (suc n) = ≡ᵇ-refl n

≡ᵇ-false : ∀ m n → m ≢ n → (m ≡ᵇ n) ≡ false
≡ᵇ-false zero    zero    ne = ⊥-elim (ne refl)
≡ᵇ-false zero    (suc n) _  = refl
≡ᵇ-false (suc m) zero    _  = refl
≡ᵇ-false (suc m) (suc n) ne = ≡ᵇ-false m n (λ e → ne (cong suc e))

T⇒≡ : ∀ b → T b → b ≡ true
T⇒≡ true _ = refl

¬T⇒≡ : ∀ b → ¬ T b → b ≡ false
¬T⇒≡ true  n = ⊥-elim (n tt)
¬T⇒≡ false _ = refl

upd-here : ∀ {A : Set} (f : ℕ → A) a v → (f [ a ≔ v ]) a ≡ v
upd-here f a v rewrite ≡ᵇ-refl a = refl

upd-other : ∀ {A : Set} (f : ℕ → A) {a b} v → b ≢ a → (f [ a ≔ v ]) b ≡ f b
upd-other f {a} {b} v ne rewrite ≡ᵇ-false b a ne = refl

<⇒≢ : ∀ {m n} → m < n → m ≢ n
<⇒≢ lt refl = 1+n≰n lt

-- pointwise equality of maps
infix 4 _≐_
_≐_ : Map → Map → Set
f ≐ g = ∀ a → f a ≡ g a

≐-upd : ∀ {f g} a v → f ≐ g → (f [ a ≔ v ]) ≐ (g [ a ≔ v ])
≐-upd {f} {g} a v e b with b ≡ᵇ a
... | true  = refl
... | false = e b

------------------------------------------------------------------------
-- Lists

data All {A : Set} (P : A → Set) : List A → Set where
  []  : All P []
  _∷_ : ∀ {x xs} → P x → All P xs → All P (x ∷ xs)

all-++ : ∀ {A : Set} {P : A → Set} {xs ys} → All P xs → All P ys → All P (xs ++ ys)
all-++ []       q = q
all-++ (p ∷ ps) q = p ∷ all-++ ps q

map-cur-syn : ∀ xs → map cur (map syn xs) ≡ xs
map-cur-syn []       = refl
map-cur-syn (x ∷ xs) = cong (x ∷_) (map-cur-syn xs)

map-cur-++ : ∀ xs ys → map cur (xs ++ ys) ≡ map cur xs ++ map cur ys
map-cur-++ []       ys = refl
map-cur-++ (x ∷ xs) ys = cong (cur x ∷_) (map-cur-++ xs ys)

map-cur-sync : ∀ xs → map cur (map sync xs) ≡ map cur xs
map-cur-sync []       = refl
map-cur-sync (x ∷ xs) = cong (cur x ∷_) (map-cur-sync xs)

map-sync-sync : ∀ xs → map sync (map sync xs) ≡ map syn (map cur xs)
map-sync-sync []       = refl
map-sync-sync (x ∷ xs) = cong (syn (cur x) ∷_) (map-sync-sync xs)

------------------------------------------------------------------------
-- Properties of pages and their crash outcomes

-- a property of every content a page may show after a crash
PM : (Cell → Set) → MC → Set
PM P (syn c)   = P c
PM P (uns o n) = P o × P n

PM-cur : ∀ {P} m → PM P m → P (cur m)
PM-cur (syn c)   p       = p
PM-cur (uns o n) (_ , p) = p

PM-sync : ∀ {P} m → PM P m → PM P (sync m)
PM-sync m p = PM-cur m p

PM-dur : ∀ {P} m → PM P m → P (dur m)
PM-dur (syn c)   p       = p
PM-dur (uns o n) (p , _) = p

all-cur : ∀ {P} {ms} → All (PM P) ms → All P (map cur ms)
all-cur {ms = []}     []       = []
all-cur {ms = m ∷ ms} (p ∷ ps) = PM-cur m p ∷ all-cur ps

all-sync : ∀ {P} {ms} → All (PM P) ms → All (PM P) (map sync ms)
all-sync {ms = []}     []       = []
all-sync {ms = m ∷ ms} (p ∷ ps) = PM-sync m p ∷ all-sync ps

all-put : ∀ {P} c {ms} → P c → All (PM P) ms → All (PM P) (map (put c) ms)
all-put c {[]}     pc []       = []
all-put c {m ∷ ms} pc (p ∷ ps) = (PM-dur m p , pc) ∷ all-put c pc ps

IsSyn : MC → Set
IsSyn (syn _)   = ⊤
IsSyn (uns _ _) = ⊥

all-map-syn : ∀ cs → All IsSyn (map syn cs)
all-map-syn []       = []
all-map-syn (c ∷ cs) = tt ∷ all-map-syn cs

all-syn-eq : ∀ {ms} → All IsSyn ms → ms ≡ map syn (map cur ms)
all-syn-eq {[]}         []       = refl
all-syn-eq {syn c ∷ ms} (_ ∷ ps) = cong (syn c ∷_) (all-syn-eq ps)

crashC-PM : ∀ {P m m'} → P junk → CrashC m m' → PM P m → PM P m'
crashC-PM {m = syn c}   _  refl p = p
crashC-PM {m = uns o n} _  (inj₁ refl)        (po , _) = po
crashC-PM {m = uns o n} _  (inj₂ (inj₁ refl)) (_ , pn) = pn
crashC-PM {m = uns o n} pj (inj₂ (inj₂ refl)) _        = pj

crashL-PM : ∀ {P xs ys} → P junk → CrashL xs ys → All (PM P) xs → All (PM P) ys
crashL-PM pj []       []       = []
crashL-PM pj (c ∷ cs) (p ∷ ps) = crashC-PM pj c p ∷ crashL-PM pj cs ps

crashC-syn : ∀ {m m'} → CrashC m m' → IsSyn m'
crashC-syn {syn c}   refl               = tt
crashC-syn {uns o n} (inj₁ refl)        = tt
crashC-syn {uns o n} (inj₂ (inj₁ refl)) = tt
crashC-syn {uns o n} (inj₂ (inj₂ refl)) = tt

crashL-syn : ∀ {xs ys} → CrashL xs ys → All IsSyn ys
crashL-syn []       = []
crashL-syn (c ∷ cs) = crashC-syn c ∷ crashL-syn cs

crashL-id : ∀ {xs ys} → All IsSyn xs → CrashL xs ys → ys ≡ xs
crashL-id []       []                  = refl
crashL-id {syn c ∷ xs} (_ ∷ ps) (refl ∷ cs) = cong (syn c ∷_) (crashL-id ps cs)

crashL-++ : ∀ xs {ys zs} → CrashL (xs ++ ys) zs →
  Σ (List MC) λ xs' → Σ (List MC) λ ys' → zs ≡ xs' ++ ys' × CrashL xs xs' × CrashL ys ys'
crashL-++ []       cs       = [] , _ , refl , [] , cs
crashL-++ (x ∷ xs) (c ∷ cs) with crashL-++ xs cs
... | xs' , ys' , refl , cx , cy = _ ∷ xs' , ys' , refl , c ∷ cx , cy

crashD-syn : ∀ {c m'} → CrashD (syn c) m' → m' ≡ syn c
crashD-syn e = e

------------------------------------------------------------------------
-- Delta pages: replay

-- does not commit anything in generation g
NC : ℕ → Cell → Set
NC g (dlt h _ ps b _) = (h ≡ᵇ g) ≡ false ⊎ b ≡ false
NC g _            = ⊤

-- written in generation ≤ g
GenLe : ℕ → Cell → Set
GenLe g (dlt h _ _ _ _) = h ≤ g
GenLe g _           = ⊤

GenLe-step : ∀ {g} c → GenLe g c → GenLe (suc g) c
GenLe-step erased       _  = tt
GenLe-step junk         _  = tt
GenLe-step (dcell _ _)  _  = tt
GenLe-step (dlt _ _ _ _ _) le = ≤-step le
GenLe-step (cpt _ _)    _  = tt

PM-GenLe-step : ∀ {g} m → PM (GenLe g) m → PM (GenLe (suc g)) m
PM-GenLe-step (syn c)   p        = GenLe-step c p
PM-GenLe-step (uns o n) (p , q)  = GenLe-step o p , GenLe-step n q

all-GenLe-step : ∀ {g ms} → All (PM (GenLe g)) ms → All (PM (GenLe (suc g))) ms
all-GenLe-step {ms = []}     []       = []
all-GenLe-step {ms = m ∷ ms} (p ∷ ps) = PM-GenLe-step m p ∷ all-GenLe-step ps

rp-++ : ∀ g xs ys mt → rp g (xs ++ ys) mt ≡ rp g xs (rp g ys mt)
rp-++ g []       ys mt = refl
rp-++ g (x ∷ xs) ys mt = cong (rstep g x) (rp-++ g xs ys mt)

nc-fst : ∀ g c mt → NC g c → proj₁ (rstep g c mt) ≡ proj₁ mt
nc-fst g erased      mt _ = refl
nc-fst g junk        mt _ = refl
nc-fst g (dcell _ _) mt _ = refl
nc-fst g (cpt _ _)   mt _ = refl
nc-fst g (dlt h x ps b _) mt (inj₁ e) rewrite e = refl
nc-fst g (dlt h x ps .false _) mt (inj₂ refl) with h ≡ᵇ g
... | true  = refl
... | false = refl

rp-nc : ∀ g xs mt → All (NC g) xs → proj₁ (rp g xs mt) ≡ proj₁ mt
rp-nc g []       mt []       = refl
rp-nc g (x ∷ xs) mt (p ∷ ps) = trans (nc-fst g x (rp g xs mt) p) (rp-nc g xs mt ps)

gl-skip : ∀ g c mt → GenLe g c → rstep (suc g) c mt ≡ mt
gl-skip g erased      mt _ = refl
gl-skip g junk        mt _ = refl
gl-skip g (dcell _ _) mt _ = refl
gl-skip g (cpt _ _)   mt _ = refl
gl-skip g (dlt h x ps b _) mt le rewrite ≡ᵇ-false h (suc g) (λ { refl → 1+n≰n le }) = refl

rp-skip : ∀ g xs mt → All (GenLe g) xs → rp (suc g) xs mt ≡ mt
rp-skip g []       mt []       = refl
rp-skip g (x ∷ xs) mt (p ∷ ps) rewrite rp-skip g xs mt ps = gl-skip g x mt p

rstep-commit : ∀ g x ps {dg} mt → rstep g (dlt g x ps true dg) mt ≡ (apply ps (rbase x mt) , x , apply ps (rbase x mt))
rstep-commit g x ps mt rewrite ≡ᵇ-refl g = refl

rstep-tent : ∀ g x ps {dg} mt → rstep g (dlt g x ps false dg) mt ≡ (proj₁ mt , x , apply ps (rbase x mt))
rstep-tent g x ps mt rewrite ≡ᵇ-refl g = refl

------------------------------------------------------------------------
-- Checkpoint choice

-- an older checkpoint than generation g, or no checkpoint at all
Older : ℕ → Cell → Set
Older g (cpt h _) = suc h ≤ g
Older g _         = ⊤

Older-step : ∀ {g} c → Older g c → Older (suc g) c
Older-step erased      _  = tt
Older-step junk        _  = tt
Older-step (dcell _ _) _  = tt
Older-step (dlt _ _ _ _ _) _ = tt
Older-step (cpt _ _)   le = ≤-step le

pick-first : ∀ g C c → Older g c → pick (cpt g C) c ≡ just (true , g , C)
pick-first g C erased      _ = refl
pick-first g C junk        _ = refl
pick-first g C (dcell _ _) _ = refl
pick-first g C (dlt _ _ _ _ _) _ = refl
pick-first g C (cpt h D)   lt rewrite T⇒≡ (h ≤ᵇ g) (≤⇒≤ᵇ (<⇒≤ lt)) = refl

pick-second : ∀ h D c → Older h c → pick c (cpt h D) ≡ just (false , h , D)
pick-second h D erased      _ = refl
pick-second h D junk        _ = refl
pick-second h D (dcell _ _) _ = refl
pick-second h D (dlt _ _ _ _ _) _ = refl
pick-second h D (cpt g C)   lt
  rewrite ¬T⇒≡ (h ≤ᵇ g) (λ t → 1+n≰n (≤-trans lt (≤ᵇ⇒≤ h g t))) = refl

pick-slot : ∀ b s g C → slot b s ≡ syn (cpt g C) → PM (Older g) (slot (Data.Bool.Base.not b) s) →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C)
pick-slot true  s g C e o rewrite e = pick-first g C (cur (cpO s)) (PM-cur (cpO s) o)
pick-slot false s g C e o rewrite e = pick-second g C (cur (cpL s)) (PM-cur (cpL s) o)

------------------------------------------------------------------------
-- The fresh-page bound of recovery

hi-bound : ∀ m k a p → a ≤ k → m a ≡ just p → p < hi m k
hi-bound m zero a p le e with n≤0⇒n≡0 le
... | refl rewrite e = ≤-refl
hi-bound m (suc k) a p le e with m≤n⇒m<n∨m≡n le
... | inj₂ refl rewrite e = m≤m⊔n (suc p) (hi m k)
... | inj₁ (s≤s lt) = ≤-trans (hi-bound m k a p lt e) (m≤n⊔m (bnd (m (suc k))) (hi m k))

------------------------------------------------------------------------
-- What recovery reclaims (`reclaim`): pages below the next one that the
-- recovered map does not name

private
  t≢f : true ≡ false → ⊥
  t≢f ()

  isAt-false : ∀ mp p → isAt mp p ≡ false → mp ≢ just p
  isAt-false (just q) .q f refl = t≢f (trans (sym (≡ᵇ-refl q)) f)
  isAt-false nothing p f ()

  ∨-false : ∀ x y → (x Data.Bool.Base.∨ y) ≡ false → x ≡ false × y ≡ false
  ∨-false false y e = refl , e

nmd-false : ∀ m k p → nmd m k p ≡ false → ∀ a → a ≤ k → m a ≢ just p
nmd-false m zero p f a le with n≤0⇒n≡0 le
... | refl = isAt-false (m zero) p f
nmd-false m (suc k) p f a le with ∨-false (isAt (m (suc k)) p) (nmd m k p) f | m≤n⇒m<n∨m≡n le
... | f1 , _  | inj₂ refl = isAt-false (m (suc k)) p f1
... | _ , f2  | inj₁ (s≤s lt) = nmd-false m k p f2 a lt

reclaim-ok : ∀ m n p → reclaim m n p ≡ true → p < n × (∀ a → a ≤ amax → m a ≢ just p)
reclaim-ok m n p e with p <ᵇ n in lt | nmd m amax p in nm
... | true | false = <ᵇ⇒< p n (subst T (sym lt) tt) , nmd-false m amax p nm

------------------------------------------------------------------------
-- Booleans of the digest check

∧-true : ∀ x y → (x ∧ y) ≡ true → x ≡ true × y ≡ true
∧-true true y e = refl , e

≡ᵇ-sound : ∀ m n → (m ≡ᵇ n) ≡ true → m ≡ n
≡ᵇ-sound zero    zero    _ = refl
≡ᵇ-sound (suc m) (suc n) e = cong suc (≡ᵇ-sound m n e)

does-refl : ∀ d → does (d ≟D d) ≡ true
does-refl d with d ≟D d
... | yes _ = refl
... | no ne = ⊥-elim (ne refl)

does-sound : ∀ d e → does (d ≟D e) ≡ true → d ≡ e
does-sound d e x with d ≟D e
... | yes q = q

holds-refl : ∀ d a → holds (dcell d a) d a ≡ true
holds-refl d a rewrite does-refl d | ≡ᵇ-refl a = refl

holds-sound : ∀ c d a → holds c d a ≡ true → c ≡ dcell d a
holds-sound (dcell e b) d a x with ∧-true (does (e ≟D d)) (b ≡ᵇ a) x
... | x1 , x2 = cong₂ dcell (does-sound e d x1) (≡ᵇ-sound b a x2)

eqPs-refl : ∀ ps → eqPs ps ps ≡ true
eqPs-refl []             = refl
eqPs-refl ((a , p) ∷ ps) rewrite ≡ᵇ-refl a | ≡ᵇ-refl p = eqPs-refl ps

eqPs-sound : ∀ xs ys → eqPs xs ys ≡ true → xs ≡ ys
eqPs-sound []             []             _ = refl
eqPs-sound ((a , p) ∷ xs) ((b , q) ∷ ys) e with ∧-true (a ≡ᵇ b) _ e
... | e1 , e' with ∧-true (p ≡ᵇ q) _ e'
...   | e2 , e3 = cong₂ _∷_ (cong₂ _,_ (≡ᵇ-sound a b e1) (≡ᵇ-sound p q e2)) (eqPs-sound xs ys e3)

isT-refl : ∀ g x ps dg → isT g x ps (dlt g x ps false dg) ≡ true
isT-refl g x ps dg rewrite ≡ᵇ-refl g | ≡ᵇ-refl x = eqPs-refl ps

------------------------------------------------------------------------
-- The part of the region recovery accepts

okC-nc : ∀ g D c cs → NC g c → okC g D c cs ≡ false
okC-nc g D erased      cs _ = refl
okC-nc g D junk        cs _ = refl
okC-nc g D (dcell _ _) cs _ = refl
okC-nc g D (cpt _ _)   cs _ = refl
okC-nc g D (dlt h x ps false dg) cs _ = refl
okC-nc g D (dlt h x ps true (dd , dt , _)) cs (inj₁ e) rewrite e = refl
okC-nc g D (dlt h x ps true (dd , dt , _)) cs (inj₂ ())

acc-nc : ∀ g D xs ys → All (NC g) xs → acc g D (xs ++ ys) ≡ acc g D ys
acc-nc g D []       ys []       = refl
acc-nc g D (x ∷ xs) ys (p ∷ ps) rewrite okC-nc g D x (xs ++ ys) p = acc-nc g D xs ys ps

okC-gen : ∀ g D c cs → GenLe g c → okC (suc g) D c cs ≡ false
okC-gen g D erased      cs _ = refl
okC-gen g D junk        cs _ = refl
okC-gen g D (dcell _ _) cs _ = refl
okC-gen g D (cpt _ _)   cs _ = refl
okC-gen g D (dlt h x ps false dg) cs _ = refl
okC-gen g D (dlt h x ps true (dd , dt , _)) cs le
  rewrite ≡ᵇ-false h (suc g) (λ { refl → 1+n≰n le }) = refl

acc-gen : ∀ g D xs → All (GenLe g) xs → acc (suc g) D xs ≡ []
acc-gen g D []       []       = refl
acc-gen g D (x ∷ xs) (p ∷ ps) rewrite okC-gen g D x xs p = acc-gen g D xs ps

verD-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ dd → verD D dd ≡ verD D' dd
verD-ext e []                 = refl
verD-ext e ((p , d , a) ∷ xs) = cong₂ (λ c v → holds c d a ∧ v) (e p) (verD-ext e xs)

okC-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ g c cs → okC g D c cs ≡ okC g D' c cs
okC-ext e g erased      cs = refl
okC-ext e g junk        cs = refl
okC-ext e g (dcell _ _) cs = refl
okC-ext e g (cpt _ _)   cs = refl
okC-ext e g (dlt h x ps false dg) cs = refl
okC-ext e g (dlt h x ps true (dd , dt , _)) cs = cong (λ v → (h ≡ᵇ g) ∧ v ∧ verT g x dt cs) (verD-ext e dd)

acc-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ g cs → acc g D cs ≡ acc g D' cs
acc-ext e g []       = refl
acc-ext {D} {D'} e g (c ∷ cs) rewrite okC-ext e g c cs with okC g D' c cs
... | true  = refl
... | false = acc-ext e g cs

-- The committed pages of a normal state: empty, or headed by a committed
-- page of generation g whose digest names durable pages the stable L2P
-- maps (so GC never erases them) and the tentative pages right below it.
Ent : Map → (ℕ → MC) → ℕ × Data × Addr → Set
Ent sm D (p , d , a) = a ≤ amax × sm a ≡ just p × D p ≡ syn (dcell d a)

CmV : ℕ → Map → (ℕ → MC) → List Cell → Set
CmV g sm D []       = ⊤
CmV g sm D (c ∷ cs) = (isC g c ≡ false × CmV g sm D cs) ⊎ (Σ ℕ λ x → Σ (List (Addr × ℕ)) λ ps → Σ Dg λ dg →
  c ≡ dlt g x ps true dg × All (Ent sm D) (proj₁ dg) × verT g x (proj₁ (proj₂ dg)) cs ≡ true)

isC-NC : ∀ g c → isC g c ≡ false → NC g c
isC-NC g erased      _ = tt
isC-NC g junk        _ = tt
isC-NC g (dcell _ _) _ = tt
isC-NC g (cpt _ _)   _ = tt
isC-NC g (dlt h x ps false dg) _ = inj₂ refl
isC-NC g (dlt h x ps true dg)  e = inj₁ e

verD-ent : ∀ {sm D} (D' : ℕ → Cell) → (∀ p c → D p ≡ syn c → D' p ≡ c) →
  ∀ dd → All (Ent sm D) dd → verD D' dd ≡ true
verD-ent D' f []                 []                 = refl
verD-ent D' f ((p , d , a) ∷ xs) ((_ , _ , e) ∷ es) rewrite f p _ e | holds-refl d a = verD-ent D' f xs es

-- recovery's replay of the committed part is that of the whole committed
-- part (the non-committing pages on top, a recovered crash's leftovers,
-- change nothing committed)
acc-cmv : ∀ {g sm D} (D' : ℕ → Cell) → (∀ p c → D p ≡ syn c → D' p ≡ c) →
  ∀ cs R → CmV g sm D cs → proj₁ (rp g (acc g D' cs) R) ≡ proj₁ (rp g cs R)
acc-cmv D' f []       R _ = refl
acc-cmv {g} D' f (c ∷ cs) R (inj₁ (nc , cv))
  rewrite okC-nc g D' c cs (isC-NC g c nc) =
  trans (acc-cmv D' f cs R cv) (sym (nc-fst g c (rp g cs R) (isC-NC g c nc)))
acc-cmv {g} D' f (c ∷ cs) R (inj₂ (x , ps , (dd , dt , L) , refl , es , vt)) =
  cong (λ l → proj₁ (rp g l R)) acc1
  where
    acc1 : acc g D' (dlt g x ps true (dd , dt , L) ∷ cs) ≡ dlt g x ps true (dd , dt , L) ∷ cs
    acc1 rewrite ≡ᵇ-refl g | verD-ent D' f dd es | vt = refl

cmv-mono : ∀ {g sm D D'} → (∀ p d a → a ≤ amax → sm a ≡ just p → D p ≡ syn (dcell d a) → D' p ≡ syn (dcell d a)) →
  ∀ cs → CmV g sm D cs → CmV g sm D' cs
cmv-mono f []       _ = tt
cmv-mono f (c ∷ cs) (inj₁ (nc , cv)) = inj₁ (nc , cmv-mono f cs cv)
cmv-mono {sm = sm} {D} {D'} f (c ∷ cs) (inj₂ (x , ps , (dd , dt , L) , e , es , vt)) = inj₂ (x , ps , (dd , dt , L) , e , go dd es , vt)
  where
    go : ∀ xs → All (Ent sm D) xs → All (Ent sm D') xs
    go []                 []                    = []
    go ((p , d , a) ∷ xs) ((le , sm' , de) ∷ ys) = (le , sm' , f p d a le sm' de) ∷ go xs ys

------------------------------------------------------------------------
-- Maps: concatenated pair lists, and where a mapping comes from

apply-++ : ∀ xs ys m → apply (xs ++ ys) m ≡ apply xs (apply ys m)
apply-++ []             ys m = refl
apply-++ ((a , p) ∷ xs) ys m = cong (λ f → f [ a ≔ just p ]) (apply-++ xs ys m)

data _∈_ {A : Set} (x : A) : List A → Set where
  here  : ∀ {xs} → x ∈ (x ∷ xs)
  there : ∀ {y xs} → x ∈ xs → x ∈ (y ∷ xs)

∈-++ˡ : ∀ {A : Set} {x : A} {xs} ys → x ∈ xs → x ∈ (xs ++ ys)
∈-++ˡ ys here      = here
∈-++ˡ ys (there i) = there (∈-++ˡ ys i)

∈-++ʳ : ∀ {A : Set} {x : A} xs {ys} → x ∈ ys → x ∈ (xs ++ ys)
∈-++ʳ []       i = i
∈-++ʳ (y ∷ xs) i = there (∈-++ʳ xs i)

apply-src : ∀ ps m a p → apply ps m a ≡ just p → (a , p) ∈ ps ⊎ m a ≡ just p
apply-src []             m a p e = inj₂ e
apply-src ((b , q) ∷ ps) m a p e with Data.Nat.Properties._≟_ a b
... | yes refl with trans (sym (upd-here (apply ps m) a (just q))) e
...   | refl = inj₁ here
apply-src ((b , q) ∷ ps) m a p e | no ne
  with apply-src ps m a p (trans (sym (upd-other (apply ps m) (just q) ne)) e)
... | inj₁ i = inj₁ (there i)
... | inj₂ x = inj₂ x

------------------------------------------------------------------------
-- Epoch ids

-- the pending epoch of a replay state
pend : RS → ℕ
pend mt = proj₁ (proj₂ mt)

rbase-other : ∀ x mt → pend mt ≢ x → rbase x mt ≡ proj₁ mt
rbase-other x (M , y , T) ne rewrite ≡ᵇ-false x y (λ e → ne (sym e)) = refl

rbase-same : ∀ x M T → rbase x (M , x , T) ≡ T
rbase-same x M T rewrite ≡ᵇ-refl x = refl

-- the pending epoch after a replay is 0 or an epoch id on the region
pend-step : ∀ g c mt → pend (rstep g c mt) ≡ pend mt ⊎ pend (rstep g c mt) ≡ epOf c
pend-step g erased      mt = inj₁ refl
pend-step g junk        mt = inj₁ refl
pend-step g (dcell _ _) mt = inj₁ refl
pend-step g (cpt _ _)   mt = inj₁ refl
pend-step g (dlt h x ps b dg) mt with h ≡ᵇ g
... | false = inj₁ refl
... | true with b
...   | true  = inj₂ refl
...   | false = inj₂ refl

pend-top : ∀ g cs C → pend (rp g cs (st0 C)) ≤ topE cs
pend-top g []       C = z≤n
pend-top g (c ∷ cs) C with pend-step g c (rp g cs (st0 C))
... | inj₁ e rewrite e = ≤-trans (pend-top g cs C) (m≤n⊔m (epOf c) (topE cs))
... | inj₂ e rewrite e = m≤m⊔n (epOf c) (topE cs)

-- a recovery that drops no committed page replays the whole region
acc-clean : ∀ g D cs R → clean g D cs ≡ true → proj₁ (rp g (acc g D cs) R) ≡ proj₁ (rp g cs R)
acc-clean g D []       R _ = refl
acc-clean g D (c ∷ cs) R e with okC g D c cs
... | true  = refl
... | false with isC g c in ic
...   | true  = ⊥-elim (bool-absurd e)
  where bool-absurd : false ≡ true → ⊥
        bool-absurd ()
...   | false = trans (acc-clean g D cs R e) (sym (nc-fst g c (rp g cs R) (isC-NC g c ic)))

-- the digest entries of the newest accepted committed page name pages M maps
EntM : Map → ℕ × Data × Addr → Set
EntM M (p , d , a) = a ≤ amax × M a ≡ just p

DgM : Map → List Cell → Set
DgM M (dlt _ _ _ true (dd , _) ∷ _) = All (EntM M) dd
DgM M _                             = ⊤

EntM-of : ∀ {sm D} → ∀ dd → All (Ent sm D) dd → All (EntM sm) dd
EntM-of []                 []                   = []
EntM-of ((p , d , a) ∷ xs) ((le , e , _) ∷ es) = (le , e) ∷ EntM-of xs es

-- what recovery accepts of a committed part names only pages sm maps
cmv-dgm : ∀ {g sm D} (D' : ℕ → Cell) → (∀ p c → D p ≡ syn c → D' p ≡ c) →
  ∀ cs → CmV g sm D cs → DgM sm (acc g D' cs)
cmv-dgm D' f []       _ = tt
cmv-dgm {g} D' f (c ∷ cs) (inj₁ (nc , cv))
  rewrite okC-nc g D' c cs (isC-NC g c nc) = cmv-dgm D' f cs cv
cmv-dgm {g} {sm} D' f (c ∷ cs) (inj₂ (x , ps , (dd , dt , _) , refl , es , vt))
  rewrite ≡ᵇ-refl g | verD-ent D' f dd es | vt = EntM-of dd es

DgM-≐ : ∀ {M M'} → M ≐ M' → ∀ cs → DgM M cs → DgM M' cs
DgM-≐ {M} {M'} e [] d = tt
DgM-≐ {M} {M'} e (erased ∷ cs) d = tt
DgM-≐ {M} {M'} e (junk ∷ cs) d = tt
DgM-≐ {M} {M'} e (dcell _ _ ∷ cs) d = tt
DgM-≐ {M} {M'} e (cpt _ _ ∷ cs) d = tt
DgM-≐ {M} {M'} e (dlt _ _ _ false _ ∷ cs) d = tt
DgM-≐ {M} {M'} e (dlt _ _ _ true (dd , _) ∷ cs) d = go dd d
  where
    go : ∀ xs → All (EntM M) xs → All (EntM M') xs
    go [] [] = []
    go ((p , x , a) ∷ xs) ((le , q) ∷ qs) = (le , trans (sym (e a)) q) ∷ go xs qs

------------------------------------------------------------------------
-- In-page records (docs/FORMAT.md §4.8): following the link

RLt-step : ∀ {g} c → RLt g c → RLt (suc g) c
RLt-step erased          _  = tt
RLt-step junk            _  = tt
RLt-step (dcell _ _)     _  = tt
RLt-step (dlt _ _ _ _ _) lt = ≤-step lt
RLt-step (cpt _ _)       _  = tt

-- a record slot holding nothing of generation g never commits there
okR-lt : ∀ g x D c → RLt g c → okR g x D c ≡ false
okR-lt g x D erased          _  = refl
okR-lt g x D junk            _  = refl
okR-lt g x D (dcell _ _)     _  = refl
okR-lt g x D (cpt _ _)       _  = refl
okR-lt g x D (dlt h y ps false _) _ = refl
okR-lt g x D (dlt h y ps true (dd , dt , _)) lt rewrite ≡ᵇ-false h g (λ { refl → Data.Nat.Properties.n≮n h lt }) = refl

-- the walk
stp-lt : ∀ g c → RLt g c → stp g c ≡ false
stp-lt g erased      _ = refl
stp-lt g junk        _ = refl
stp-lt g (dcell _ _) _ = refl
stp-lt g (cpt _ _)   _ = refl
stp-lt g (dlt h _ _ _ _) lt with g ≤ᵇ h in e
... | false = refl
... | true  = ⊥-elim (<⇒≱ lt (≤ᵇ⇒≤ g h (subst T (sym e) tt)))
  where open import Relation.Binary.PropositionalEquality using (subst)

stp-false : ∀ g c → stp g c ≡ false → RLt g c
stp-false g erased      _ = tt
stp-false g junk        _ = tt
stp-false g (dcell _ _) _ = tt
stp-false g (cpt _ _)   _ = tt
stp-false g (dlt h _ _ _ _) e with h <? g
... | yes lt = lt
... | no nl  = ⊥-elim (subst T e (≤⇒≤ᵇ (≮⇒≥ nl)))
  where open import Relation.Binary.PropositionalEquality using (subst)

-- the walk finds nothing where nothing of the generation lies from p on
seek-none : ∀ g n R p → Above g R p → seek g n R p ≡ nothing
seek-none g zero    R p f = refl
seek-none g (suc n) R p f rewrite stp-lt g (R p) (f p ≤-refl) =
  seek-none g n R (suc p) (λ q le → f q (<⇒≤ le))

-- the walk finds page M where nothing of the generation lies from p on but at M
seek-at : ∀ g n R p M → p ≤ M → M < p + n → (∀ q → p ≤ q → q ≢ M → RLt g (R q)) →
  stp g (R M) ≡ true → seek g n R p ≡ just M
seek-at g zero    R p M le lt f e = ⊥-elim (<⇒≱ lt (≤-trans (≤-reflexive (+-identityʳ p)) le))
seek-at g (suc n) R p M le lt f e with p ≟ M
... | yes refl rewrite e = refl
... | no ne rewrite stp-lt g (R p) (f p ≤-refl ne) =
  seek-at g n R (suc p) M (≤∧≢⇒< le ne) (≤-trans lt (≤-reflexive (+-suc p n)))
          (λ q le' ne' → f q (<⇒≤ le') ne') e

seek-ext : ∀ {R R'} → (∀ p → R p ≡ R' p) → ∀ g n p → seek g n R p ≡ seek g n R' p
seek-ext er g zero    p = refl
seek-ext {R} {R'} er g (suc n) p rewrite er p with stp g (R' p)
... | true  = refl
... | false = seek-ext er g n (suc p)

-- following link L leads to the record slot of page M, if nothing of the
-- generation lies from L on but at M, within the walk's reach
above-but : ∀ g R L M → RLt g (R M) → (∀ q → L ≤ q → q ≢ M → RLt g (R q)) → Above g R L
above-but g R L M lm f q le with q ≟ M
... | yes refl = lm
... | no ne    = f q le ne

ext-at : ∀ g R D x L M → L ≤ M → M < L + omax → (∀ q → L ≤ q → q ≢ M → RLt g (R q)) →
  extM g R D (just (x , L)) ≡ extAt g R D x M
ext-at g R D x L M le lt f with stp g (R M) in e
... | true rewrite seek-at g omax R L M le lt f e = refl
... | false rewrite seek-none g omax R L (above-but g R L M (stp-false g (R M) e) f)
                  | okR-lt g (suc x) D (R M) (stp-false g (R M) e) = refl

extM-none : ∀ g R D → (∀ p → RLt g (R p)) → ∀ m → extM g R D m ≡ []
extM-none g R D f nothing        = refl
extM-none g R D f (just (x , L)) rewrite seek-none g omax R L (λ p _ → f p) = refl

chn-none : ∀ g R D → (∀ p → RLt g (R p)) → ∀ cs → chn g R D cs ≡ cs
chn-none g R D f cs = cong (_++ cs) (extM-none g R D f (lkOf cs))

okR-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ g x c → okR g x D c ≡ okR g x D' c
okR-ext e g x erased          = refl
okR-ext e g x junk            = refl
okR-ext e g x (dcell _ _)     = refl
okR-ext e g x (cpt _ _)       = refl
okR-ext e g x (dlt h y ps false _) = refl
okR-ext e g x (dlt h y ps true (dd , dt , _)) = cong (λ v → (h ≡ᵇ g) ∧ (y ≡ᵇ x) ∧ v) (verD-ext e dd)

extM-ext : ∀ {R R' D D'} → (∀ p → R p ≡ R' p) → (∀ p → D p ≡ D' p) → ∀ g m → extM g R D m ≡ extM g R' D' m
extM-ext er ed g nothing = refl
extM-ext {R} {R'} {D} {D'} er ed g (just (x , L))
  rewrite seek-ext er g omax L with seek g omax R' L
... | nothing = refl
... | just q rewrite er q | okR-ext ed g (suc x) (R' q) = refl

chn-ext : ∀ {R R' D D'} → (∀ p → R p ≡ R' p) → (∀ p → D p ≡ D' p) → ∀ g cs → chn g R D cs ≡ chn g R' D' cs
chn-ext er ed g cs = cong (_++ cs) (extM-ext er ed g (lkOf cs))

-- the link of the newest committed page of generation g in a list
lkTop : ℕ → List Cell → Maybe (ℕ × ℕ)
lkTop g []       = nothing
lkTop g (c ∷ cs) = if isC g c then lkOf (c ∷ cs) else lkTop g cs

-- what recovery accepts of a committed part starts at its newest committed page
acc-lk : ∀ {g sm D} (D' : ℕ → Cell) → (∀ p c → D p ≡ syn c → D' p ≡ c) →
  ∀ cs → CmV g sm D cs → lkOf (acc g D' cs) ≡ lkTop g cs
acc-lk D' f [] _ = refl
acc-lk {g} D' f (c ∷ cs) (inj₁ (nc , cv)) rewrite okC-nc g D' c cs (isC-NC g c nc) | nc = acc-lk D' f cs cv
acc-lk {g} D' f (c ∷ cs) (inj₂ (x , ps , (dd , dt , L) , refl , es , vt))
  rewrite ≡ᵇ-refl g | verD-ent D' f dd es | vt = refl

-- nothing of the generation at or past the link: nothing is added
chn-quiet : ∀ g R D cs → (∀ x L → lkOf cs ≡ just (x , L) → Above g R L) → chn g R D cs ≡ cs
chn-quiet g R D cs f with lkOf cs
... | nothing      = refl
... | just (x , L) rewrite seek-none g omax R L (f x L refl) = refl
