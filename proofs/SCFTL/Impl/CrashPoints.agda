{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: P's crash points are sufficient.
--
-- P models a crashed operation as a crash at one of its crash points
-- (right before each SYNC and at the end of the operation; `crashP`).
-- Here the step functions are broken down into the flash commands they
-- issue (`Cmd`: program or erase one data page, one checkpoint slot or
-- one delta-region page, append a page on top of the delta region; SYNC
-- is `syncAll`); `CmdCrash o s x` says that x is the state right after
-- some command of operation o from s: for each batch of commands between
-- two SYNCs, any subset of its commands, issued in any order, repeated
-- or not (the append at most once), including none (the state before
-- the operation, or right after a SYNC).  The top result,
--
--   command-crashes-covered : CmdCrash o s x → Img x s' →
--                             Σ s'' (crashP o s s'' × SameRec s' s'')
--
-- says that every crash outcome s' of such an x recovers as an outcome
-- s'' of a crash at one of P's crash points of o does.  (A crash DURING
-- a command is a crash after it: the page being written ends up old, new
-- or junk, which Img already allows.)
--
-- `SameRec s' s''`: s'' is s' with some dead (erased or junk) pages on
-- top of its delta region (pages the operation had not appended yet,
-- shown erased), and, for a crash inside recovery right after its first
-- SYNC, with the two checkpoint slots named the other way round.
-- `same-recovery`: this changes nothing recovery does: successful
-- recovery reaches the very same state (both ways), a crash inside
-- recovery gives SameRec outcomes again, and what recovery finds (RecTo)
-- carries over.  Hence `command-crash-A`, `command-crash-B`,
-- `command-crash-recA`, `command-crash-recB`: the crash obligations of
-- Theorem 1 (A-crash, B-crash, A-recᶜ, B-recᶜ) hold for a crash after
-- any flash command, not only at P's crash points.
--
-- The route: `Mid x m` (every page of x is as at the start of the batch
-- or as in m, i.e. its crash outcomes are among m's; the region is m's
-- less some pages appended since the SYNC) and the core lemma
-- `mid-crash`; every state inside a batch is `Mid` of the crash point
-- ending it (`batch-mid`, `data-mid`) because a batch changes each page
-- at most once and `put c (put c m) = put c m`.  `es-all`, `ck1-all`,
-- `ck2-all`, `wr-all`, `fl2-all` check that the batches are faithful:
-- issuing all their commands yields exactly the crash point's flash.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.CrashPoints (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; _≤ᵇ_; _⊔_)
open import Data.Nat.Properties using (_≟_; ≤⇒≤ᵇ; ≤ᵇ⇒≤; <⇒≤; ≰⇒>)
open import Data.Bool.Base using (Bool; true; false; not; T; if_then_else_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Op; use; recover; flush; w; rl; es; State; crashS) renaming (reg to regop)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (use-crash; B-crash'; recᶜ-A; recᶜ-B)

------------------------------------------------------------------------
-- Flash commands

-- program / erase the i-th page of a region (0 = newest)
putAt : ℕ → Cell → List MC → List MC
putAt i       c []       = []
putAt zero    c (m ∷ ms) = put c m ∷ ms
putAt (suc i) c (m ∷ ms) = m ∷ putAt i c ms

data Cmd : Set where
  pgD     : ℕ → Cell → Cmd   -- program data page p (erase: `erased`)
  pgL pgO : Cell → Cmd       -- program / erase the live / the other checkpoint slot
  pgR     : ℕ → Cell → Cmd   -- program / erase the i-th delta-region page
  apR     : Cell → Cmd       -- program a fresh delta-region page on top
  pgI     : ℕ → Cell → Cmd   -- program the in-page record slot of data page p (§4.8)

-- A command changes one page (memory is left alone: a crash forgets it).
run : Cmd → St → St
run (pgD p c) s = record s { dat = dat s [ p ≔ put c (dat s p) ] }
run (pgL c)   s = record s { cpL = put c (cpL s) }
run (pgO c)   s = record s { cpO = put c (cpO s) }
run (pgR i c) s = record s { dr = putAt i c (dr s) }
run (apR c)   s = record s { dr = uns erased c ∷ dr s }
run (pgI p c) s = record s { rcd = rcd s [ p ≔ put c (rcd s p) ] }

runs : List Cmd → St → St
runs []       s = s
runs (k ∷ ks) s = runs ks (run k s)

------------------------------------------------------------------------
-- Mid x m: every crash outcome of x's pages is one of m's

-- data pages (CrashD)
DLe : MC → MC → Set
DLe x (syn c)   = x ≡ syn c
DLe x (uns _ _) = ⊤

-- metadata pages (CrashC): as in m, or synced to m's old or new content
CLe : MC → MC → Set
CLe x y = x ≡ y ⊎ x ≡ syn (dur y) ⊎ x ≡ syn (cur y)

data Pw : List MC → List MC → Set where
  []  : Pw [] []
  _∷_ : ∀ {x y xs ys} → CLe x y → Pw xs ys → Pw (x ∷ xs) (y ∷ ys)

-- the region: m's region less some fresh pages on top (not yet appended)
data RLe : List MC → List MC → Set where
  pw  : ∀ {xs ys} → Pw xs ys → RLe xs ys
  new : ∀ {xs ys} c → RLe xs ys → RLe xs (uns erased c ∷ ys)

Mid : St → St → Set
Mid x m = (∀ p → DLe (dat x p) (dat m p)) × CLe (cpL x) (cpL m) × CLe (cpO x) (cpO m)
        × RLe (dr x) (dr m) × (∀ p → CLe (rcd x p) (rcd m p))

DLe-refl : ∀ x → DLe x x
DLe-refl (syn c)   = refl
DLe-refl (uns _ _) = tt

CLe-refl : ∀ x → CLe x x
CLe-refl x = inj₁ refl

Pw-refl : ∀ xs → Pw xs xs
Pw-refl []       = []
Pw-refl (x ∷ xs) = CLe-refl x ∷ Pw-refl xs

Mid-refl : ∀ m → Mid m m
Mid-refl m = (λ p → DLe-refl (dat m p)) , CLe-refl (cpL m) , CLe-refl (cpO m) , pw (Pw-refl (dr m)) , (λ p → CLe-refl (rcd m p))

-- a crash right after a SYNC is one right before it
Pw-sync : ∀ xs → Pw (map sync xs) xs
Pw-sync []              = []
Pw-sync (syn c ∷ xs)    = inj₁ refl ∷ Pw-sync xs
Pw-sync (uns o n ∷ xs)  = inj₂ (inj₂ refl) ∷ Pw-sync xs

DLe-sync : ∀ x → DLe (sync x) x
DLe-sync (syn c)   = refl
DLe-sync (uns _ _) = tt

CLe-sync : ∀ x → CLe (sync x) x
CLe-sync (syn c)   = inj₁ refl
CLe-sync (uns o n) = inj₂ (inj₂ refl)

Mid-sync : ∀ m → Mid (syncAll m) m
Mid-sync m = (λ p → DLe-sync (dat m p)) , CLe-sync (cpL m) , CLe-sync (cpO m) , pw (Pw-sync (dr m)) , (λ p → CLe-sync (rcd m p))

------------------------------------------------------------------------
-- The core lemma

Dead : Cell → Set
Dead erased = ⊤
Dead junk   = ⊤
Dead _      = ⊥

-- dead pages on top of the region
padW : List Cell → St → St
padW ds s = record s { dr = map syn ds ++ dr s }

dle-crash : ∀ x y {z} → DLe x y → CrashD x z → CrashD y z
dle-crash x         (syn c)   refl e    = e
dle-crash (syn c)   (uns _ _) _    refl = c , refl
dle-crash (uns _ _) (uns _ _) _    e    = e

cle-crash : ∀ x y {z} → CLe x y → CrashC x z → CrashC y z
cle-crash x y         (inj₁ refl)        e = e
cle-crash _ (syn c)   (inj₂ (inj₁ refl)) e = e
cle-crash _ (uns o n) (inj₂ (inj₁ refl)) e = inj₁ e
cle-crash _ (syn c)   (inj₂ (inj₂ refl)) e = e
cle-crash _ (uns o n) (inj₂ (inj₂ refl)) e = inj₂ (inj₁ e)

pw-crash : ∀ {xs ys zs} → Pw xs ys → CrashL xs zs → CrashL ys zs
pw-crash []       []       = []
pw-crash (l ∷ ls) (c ∷ cs) = cle-crash _ _ l c ∷ pw-crash ls cs

rle-crash : ∀ {xs ys zs} → RLe xs ys → CrashL xs zs →
  Σ (List Cell) λ ds → All Dead ds × CrashL ys (map syn ds ++ zs)
rle-crash (pw l)    cs = [] , [] , pw-crash l cs
rle-crash (new c l) cs with rle-crash l cs
... | ds , dd , cs' = erased ∷ ds , tt ∷ dd , inj₁ refl ∷ cs'

-- A crash of an intermediate state x is a crash of m, up to dead pages
-- on top of the region.
mid-crash : ∀ {x m s'} → Mid x m → Img x s' →
  Σ (List Cell) λ ds → All Dead ds × Img m (padW ds s')
mid-crash (d , l , o , r , i) (cd , cl , co , cr , ci) with rle-crash r cr
... | ds , dd , cr' =
  ds , dd , (λ p → dle-crash _ _ (d p) (cd p)) , cle-crash _ _ l cl , cle-crash _ _ o co , cr' ,
  (λ p → cle-crash _ _ (i p) (ci p))

------------------------------------------------------------------------
-- A batch of commands between two SYNCs

-- A command that agrees with the batch's net effect u ⇝ m: it puts on a
-- page exactly what the batch leaves there.  (The append is dealt with
-- apart: it is issued at most once.)
Good : St → St → Cmd → Set
Good u m (pgD p c) = dat m p ≡ put c (dat u p)
Good u m (pgL c)   = cpL m ≡ put c (cpL u)
Good u m (pgO c)   = cpO m ≡ put c (cpO u)
Good u m (pgR i c) = dr m ≡ map (put c) (dr u)
Good u m (apR c)   = ⊥
Good u m (pgI p c) = rcd m p ≡ put c (rcd u p)

-- data commands only (data pages and their record slots)
GoodD : St → St → Cmd → Set
GoodD u m (pgD p c) = dat m p ≡ put c (dat u p)
GoodD u m (pgI p c) = rcd m p ≡ put c (rcd u p)
GoodD u m _         = ⊥

Either : MC → MC → MC → Set
Either a x b = x ≡ a ⊎ x ≡ b

data PwE : List MC → List MC → List MC → Set where
  []  : PwE [] [] []
  _∷_ : ∀ {a x b as xs bs} → Either a x b → PwE as xs bs → PwE (a ∷ as) (x ∷ xs) (b ∷ bs)

-- every page of x as at the start u of the batch or as at its end m
Btw : St → St → St → Set
Btw u x m = (∀ p → Either (dat u p) (dat x p) (dat m p))
          × Either (cpL u) (cpL x) (cpL m) × Either (cpO u) (cpO x) (cpO m) × PwE (dr u) (dr x) (dr m)
          × (∀ p → Either (rcd u p) (rcd x p) (rcd m p))

-- the key fact: a page changes at most once in a batch (put is idempotent)
either-put : ∀ {a x b c} → Either a x b → b ≡ put c a → Either a (put c x) b
either-put (inj₁ refl) refl = inj₂ refl
either-put (inj₂ refl) refl = inj₂ refl

upd-either' : ∀ {U X M : ℕ → MC} p c → M p ≡ put c (U p) →
  (∀ q → Either (U q) (X q) (M q)) →
  ∀ q → Either (U q) ((X [ p ≔ put c (X p) ]) q) (M q)
upd-either' {X = X} p c g h q with q ≟ p
... | yes refl rewrite upd-here X p (put c (X p)) = either-put (h p) g
... | no ne    rewrite upd-other X (put c (X p)) ne = h q

upd-either : ∀ {u x m} p c → dat m p ≡ put c (dat u p) →
  (∀ q → Either (dat u q) (dat x q) (dat m q)) →
  ∀ q → Either (dat u q) ((dat x [ p ≔ put c (dat x p) ]) q) (dat m q)
upd-either {u} {x} {m} = upd-either' {dat u} {dat x} {dat m}

pwe-putAt : ∀ {c} i {us xs} → PwE us xs (map (put c) us) → PwE us (putAt i c xs) (map (put c) us)
pwe-putAt i       {[]}     []       = []
pwe-putAt zero    {u ∷ us} (e ∷ qs) = either-put e refl ∷ qs
pwe-putAt (suc i) {u ∷ us} (e ∷ qs) = e ∷ pwe-putAt i qs

btw-run : ∀ {u m x} k → Good u m k → Btw u x m → Btw u (run k x) m
btw-run {u} {m} {x} (pgD p c) g (d , l , o , r , i) = upd-either {u} {x} {m} p c g d , l , o , r , i
btw-run (pgL c)   g (d , l , o , r , i) = d , either-put l g , o , r , i
btw-run (pgO c)   g (d , l , o , r , i) = d , l , either-put o g , r , i
btw-run {u} {m} {x} (pgR j c) g (d , l , o , r , i) =
  d , l , o , subst (PwE (dr u) (putAt j c (dr x))) (sym g)
                (pwe-putAt j (subst (PwE (dr u) (dr x)) g r)) , i
btw-run (apR c) ()
btw-run {u} {m} {x} (pgI p c) g (d , l , o , r , i) = d , l , o , r , upd-either' {rcd u} {rcd x} {rcd m} p c g i

btw-runs : ∀ {u m x} cs → All (Good u m) cs → Btw u x m → Btw u (runs cs x) m
btw-runs []       []       b = b
btw-runs (k ∷ ks) (g ∷ gs) b = btw-runs ks gs (btw-run k g b)

pwe-start : ∀ {us ms} → Pw us ms → PwE us us ms
pwe-start []       = []
pwe-start (_ ∷ ps) = inj₁ refl ∷ pwe-start ps

pwe-pw : ∀ {us xs ms} → PwE us xs ms → Pw us ms → Pw xs ms
pwe-pw []                 []       = []
pwe-pw (inj₁ refl ∷ qs)   (l ∷ ls) = l ∷ pwe-pw qs ls
pwe-pw {_ ∷ _} {_ ∷ _} {m ∷ _} (inj₂ refl ∷ qs) (l ∷ ls) = CLe-refl m ∷ pwe-pw qs ls

dle-either : ∀ {a x b} → Either a x b → DLe a b → DLe x b
dle-either (inj₁ refl) d = d
dle-either {b = b} (inj₂ refl) d = DLe-refl b

cle-either : ∀ {a x b} → Either a x b → CLe a b → CLe x b
cle-either (inj₁ refl) d = d
cle-either {b = b} (inj₂ refl) d = CLe-refl b

-- A batch u ⇝ m whose pages each change from their state in u to their
-- state in m (m's are `Mid`-above u's): every state after some of its
-- commands, in any order, is Mid of m.
batch-mid : ∀ {u m} → (∀ p → DLe (dat u p) (dat m p)) → CLe (cpL u) (cpL m) → CLe (cpO u) (cpO m) →
  Pw (dr u) (dr m) → (∀ p → CLe (rcd u p) (rcd m p)) → ∀ cs → All (Good u m) cs → Mid (runs cs u) m
batch-mid {u} {m} dd dl dO dr' di cs gs
  with btw-runs {x = u} cs gs ((λ p → inj₁ refl) , inj₁ refl , inj₁ refl , pwe-start dr' , (λ p → inj₁ refl))
... | d , l , o , r , i = (λ p → dle-either (d p) (dd p)) , cle-either l dl , cle-either o dO , pw (pwe-pw r dr') ,
                          (λ p → cle-either (i p) (di p))

------------------------------------------------------------------------
-- A batch of data commands with at most one append (write, relocation,
-- gc erase, flush before its SYNC)

withAp : Maybe Cell → List MC → List MC
withAp nothing  r = r
withAp (just c) r = uns erased c ∷ r

-- the states after some of the batch's commands (those satisfying I)
data DRun (I : Cmd → Set) (u : St) : Maybe Cell → St → Set where
  before : ∀ {ap} cs → All I cs → DRun I u ap (runs cs u)
  after  : ∀ {c} cs₁ cs₂ → All I cs₁ → All I cs₂ → DRun I u (just c) (runs cs₂ (run (apR c) (runs cs₁ u)))

runsD : ∀ {u m x} cs → All (GoodD u m) cs → (∀ p → Either (dat u p) (dat x p) (dat m p)) →
  (∀ p → Either (rcd u p) (rcd x p) (rcd m p)) →
  (∀ p → Either (dat u p) (dat (runs cs x) p) (dat m p))
  × cpL (runs cs x) ≡ cpL x × cpO (runs cs x) ≡ cpO x × dr (runs cs x) ≡ dr x
  × (∀ p → Either (rcd u p) (rcd (runs cs x) p) (rcd m p))
runsD []             []       h i = h , refl , refl , refl , i
runsD {u} {m} {x} (pgD p c ∷ ks) (g ∷ gs) h i = runsD ks gs (upd-either {u} {x} {m} p c g h) i
runsD {u} {m} {x} (pgI p c ∷ ks) (g ∷ gs) h i = runsD ks gs h (upd-either' {rcd u} {rcd x} {rcd m} p c g i)
runsD (pgL _ ∷ ks)   (() ∷ _) h i
runsD (pgO _ ∷ ks)   (() ∷ _) h i
runsD (pgR _ _ ∷ ks) (() ∷ _) h i
runsD (apR _ ∷ ks)   (() ∷ _) h i

all-map : ∀ {A : Set} {P Q : A → Set} → (∀ x → P x → Q x) → ∀ {xs} → All P xs → All Q xs
all-map f []       = []
all-map f (p ∷ ps) = f _ p ∷ all-map f ps

data-mid : ∀ {I u m ap x} → (∀ k → I k → GoodD u m k) → (∀ p → DLe (dat u p) (dat m p)) →
  cpL m ≡ cpL u → cpO m ≡ cpO u → dr m ≡ withAp ap (dr u) → (∀ p → CLe (rcd u p) (rcd m p)) →
  DRun I u ap x → Mid x m
data-mid {u = u} {m} {ap} gd dd el eo er di (before cs is)
  with runsD {x = u} cs (all-map gd is) (λ p → inj₁ refl) (λ p → inj₁ refl)
... | d , l , o , r , i =
  (λ p → dle-either (d p) (dd p)) , inj₁ (trans l (sym el)) , inj₁ (trans o (sym eo)) ,
  subst (RLe (dr (runs cs u))) (sym er) (go ap) , (λ p → cle-either (i p) (di p))
  where
    go : ∀ ap → RLe (dr (runs cs u)) (withAp ap (dr u))
    go nothing  = pw (subst (λ z → Pw z (dr u)) (sym r) (Pw-refl (dr u)))
    go (just c) = new c (pw (subst (λ z → Pw z (dr u)) (sym r) (Pw-refl (dr u))))
data-mid {u = u} {m} gd dd el eo er di (after {c} cs₁ cs₂ is₁ is₂)
  with runsD {x = u} cs₁ (all-map gd is₁) (λ p → inj₁ refl) (λ p → inj₁ refl)
... | d₁ , l₁ , o₁ , r₁ , i₁ with runsD {x = run (apR c) (runs cs₁ u)} cs₂ (all-map gd is₂) d₁ i₁
... | d , l , o , r , i =
  (λ p → dle-either (d p) (dd p)) , inj₁ (trans l (trans l₁ (sym el))) , inj₁ (trans o (trans o₁ (sym eo))) ,
  subst (RLe _) (sym er) (pw (subst (λ z → Pw z (uns erased c ∷ dr u)) (sym (trans r (cong (uns erased c ∷_) r₁)))
                                    (Pw-refl (uns erased c ∷ dr u)))) ,
  (λ p → cle-either (i p) (di p))

------------------------------------------------------------------------
-- The commands each operation issues, and the states right after each

-- programming the merge buffer: one data page per buffered sector
IssMB : St → Cmd → Set
IssMB u k = Σ ℕ λ p → Σ Data λ d → Σ ℕ λ a → mb u p ≡ just (d , a) × k ≡ pgD p (dcell d a)

-- a write / relocation programs the merge buffer only if it is full (f1)
IssW : Bool → St → Cmd → Set
IssW f1 u k = f1 ≡ true × IssMB u k

-- and appends a tentative delta page only if the delta buffer is full (f2)
apW : Bool → St → Maybe Cell
apW true  u = just (dlt (gen u) (ep u) (dbuf u) false ε)
apW false u = nothing

-- gc_es: one erase
IssE : ℕ → Cmd → Set
IssE p k = k ≡ pgD p erased

-- a full checkpoint from u: program the new checkpoint into the other
-- slot; SYNC; erase the old slot and the region pages; SYNC.
IssCk1 : St → Cmd → Set
IssCk1 u k = k ≡ pgO (cpt (suc (gen u)) (l2p u))

IssCk2 : Cmd → Set
IssCk2 k = k ≡ pgL erased ⊎ Σ ℕ λ i → k ≡ pgR i erased

data CkCmd (u : St) : St → Set where
  ck-new   : ∀ cs → All (IssCk1 u) cs → CkCmd u (runs cs u)
  ck-erase : ∀ cs → All IssCk2 cs → CkCmd u (runs cs (syncAll (ck1 u)))   -- cs = []: right after SYNC 1
  ck-end   : CkCmd u (syncAll (ck2 u))                                     -- right after SYNC 2

-- flush's committed delta page
cmt : St → Cell
cmt s = dlt (gen s) (ep s) (dbuf s) true (dgOf s)

-- an in-page or OOB commit's one batch: the merge buffer's pages and the
-- commit record in the record slot of page M (the page at the link, or
-- the OOB run's last page)
IssFi : ℕ → St → Cmd → Set
IssFi M u k = IssMB u k ⊎ k ≡ pgI M (rec u)

-- a commit in the record slot of page M (in-page or OOB)
LkCmd : ℕ → St → St → Set
LkCmd M s x = IsSyn (rcd s M) ×
  (DRun (IssFi M s) s nothing x ⊎ CkCmd (fi3 M s) x ⊎ DRun (λ _ → ⊥) (fi3 M s) (just (rec s)) x ⊎ x ≡ fi4 M s)

-- The states right after a flash command of operation o from s (for
-- recovery: right after its first SYNC, or inside its full checkpoint).
-- With no command of a batch issued yet, they include the state before
-- the operation and the states right after each SYNC.
CmdCrash : Op → St → St → Set
CmdCrash (use (regop (w a d))) s x =
    (InB a s × Σ Bool λ f1 → Σ Bool λ f2 →
       DRun (IssW f1 (wr0 a d s)) (wr0 a d s) (apW f2 (wr0 a d s)) x)
  ⊎ (¬ InB a s × x ≡ s)
CmdCrash (use (regop rl)) s x =
    (gcnt s ≤ kmax × Σ ℕ λ p → p < nxt s ×
       ((Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → DRun (IssW f1 (rl0 p s)) (rl0 p s) (apW f2 (rl0 p s)) x)
        ⊎ (¬ Valid s p × x ≡ rlX p s)))
  ⊎ (¬ gcnt s ≤ kmax × x ≡ s)
CmdCrash (use (regop es)) s x = Σ ℕ λ p → ers s p ≡ true × DRun (IssE p) s nothing x
CmdCrash (use flush) s x = DRun (IssMB s) s (just (cmt s)) x ⊎ x ≡ fl3 s ⊎ CkCmd (fl3 s) x
  -- in-page commit (from a state whose record slot at the link is
  -- durable, as in every normal state: RI.rcOK): before its SYNC, then
  -- right after it and inside the full checkpoint, or the consolidation
  -- page appended (the only command of its batch) and synced
  ⊎ (Σ ℕ λ L → InP s L × LkCmd L s x)
  -- OOB commit (the same commands: the merge buffer's pages and the
  -- marker, P's record in the record slot of the run's last page M; the
  -- run's earlier pages were programmed by the epoch's writes)
  ⊎ (Σ ℕ λ L → Σ ℕ λ M → OobP s L M × LkCmd M s x)
CmdCrash recover s x = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) × (x ≡ syncAll s ⊎ CkCmd (rec0 b g C s) x)

------------------------------------------------------------------------
-- Each such state is Mid of a crash point

goodMB : ∀ u m → (∀ p → dat m p ≡ progm (mb u p) (dat u p)) → ∀ k → IssMB u k → GoodD u m k
goodMB u m e .(pgD p (dcell d a)) (p , d , a , em , refl) = trans (e p) (cong (λ z → progm z (dat u p)) em)

dle-MB : ∀ u p → DLe (dat u p) (progm (mb u p) (dat u p))
dle-MB u p with mb u p
... | just (d , a) = tt
... | nothing      = DLe-refl (dat u p)

wr-mid : ∀ f1 f2 u {x} → DRun (IssW f1 u) u (apW f2 u) x → Mid x (opt f1 f2 u)
wr-mid f1 f2 u r = data-mid {IssW f1 u} {u} {opt f1 f2 u} {apW f2 u} (gd f1 f2) (dd f1 f2) (el f1 f2) (eo f1 f2) (er f1 f2) (ei f1 f2) r
  where
    false≢true : false ≡ true → ⊥
    false≢true ()
    gd : ∀ f1 f2 k → IssW f1 u k → GoodD u (opt f1 f2 u) k
    gd true  true  k i = goodMB u _ (λ p → refl) k (proj₂ i)
    gd true  false k i = goodMB u _ (λ p → refl) k (proj₂ i)
    gd false f2    k i = ⊥-elim (false≢true (proj₁ i))
    dd : ∀ f1 f2 p → DLe (dat u p) (dat (opt f1 f2 u) p)
    dd true  true  = dle-MB u
    dd true  false = dle-MB u
    dd false true  p = DLe-refl (dat u p)
    dd false false p = DLe-refl (dat u p)
    el : ∀ f1 f2 → cpL (opt f1 f2 u) ≡ cpL u
    el true  true  = refl
    el true  false = refl
    el false true  = refl
    el false false = refl
    eo : ∀ f1 f2 → cpO (opt f1 f2 u) ≡ cpO u
    eo true  true  = refl
    eo true  false = refl
    eo false true  = refl
    eo false false = refl
    er : ∀ f1 f2 → dr (opt f1 f2 u) ≡ withAp (apW f2 u) (dr u)
    er true  true  = refl
    er true  false = refl
    er false true  = refl
    er false false = refl
    ei : ∀ f1 f2 p → CLe (rcd u p) (rcd (opt f1 f2 u) p)
    ei true  true  p = CLe-refl (rcd u p)
    ei true  false p = CLe-refl (rcd u p)
    ei false true  p = CLe-refl (rcd u p)
    ei false false p = CLe-refl (rcd u p)

es-mid : ∀ p s {x} → DRun (IssE p) s nothing x → Mid x (esF p s)
es-mid p s r = data-mid {IssE p} {s} {esF p s} {nothing} gd dd refl refl refl (λ q → CLe-refl (rcd s q)) r
  where
    gd : ∀ k → IssE p k → GoodD s (esF p s) k
    gd .(pgD p erased) refl = upd-here (dat s) p (put erased (dat s p))
    dd : ∀ q → DLe (dat s q) (dat (esF p s) q)
    dd q with q ≡ᵇ p
    ... | true  = tt
    ... | false = DLe-refl (dat s q)

fl-mid : ∀ s {x} → DRun (IssMB s) s (just (cmt s)) x → Mid x (fl2 s)
fl-mid s r = data-mid {IssMB s} {s} {fl2 s} {just (cmt s)} (goodMB s (fl2 s) (λ p → refl)) (dle-MB s) refl refl refl
                      (λ q → CLe-refl (rcd s q)) r

cle-put : ∀ m c a → m ≡ syn a → CLe m (put c m)
cle-put m c a refl = inj₂ (inj₁ refl)

syn-of : ∀ m → IsSyn m → m ≡ syn (cur m)
syn-of (syn c) _ = refl

fk-mid : ∀ L s {x} → DRun (λ _ → ⊥) (fi3 L s) (just (rec s)) x → Mid x (fiK L s)
fk-mid L s r = data-mid {λ _ → ⊥} {fi3 L s} {fiK L s} {just (rec s)} (λ k ()) (λ p → DLe-refl (dat (fi3 L s) p))
                        refl refl refl (λ p → CLe-refl (rcd (fi3 L s) p)) r

fi-mid : ∀ L s {x} → IsSyn (rcd s L) → DRun (IssFi L s) s nothing x → Mid x (fi2 L s)
fi-mid L s sy r = data-mid {IssFi L s} {s} {fi2 L s} {nothing} gd (dle-MB s) refl refl refl di r
  where
    gd : ∀ k → IssFi L s k → GoodD s (fi2 L s) k
    gd k (inj₁ i) = goodMB s (fi2 L s) (λ p → refl) k i
    gd .(pgI L (rec s)) (inj₂ refl) = upd-here (rcd s) L (put (rec s) (rcd s L))
    di : ∀ p → CLe (rcd s p) (rcd (fi2 L s) p)
    di p with p ≟ L
    ... | yes refl = subst (CLe (rcd s p)) (sym (upd-here (rcd s) p (put (rec s) (rcd s p))))
                           (cle-put (rcd s p) (rec s) _ (syn-of (rcd s p) sy))
    ... | no ne    = subst (CLe (rcd s p)) (sym (upd-other (rcd s) (put (rec s) (rcd s L)) ne)) (CLe-refl (rcd s p))

pw-erase : ∀ xs → Pw (map sync xs) (map (put erased) (map sync xs))
pw-erase []       = []
pw-erase (x ∷ xs) = inj₂ (inj₁ refl) ∷ pw-erase xs

ck-mid : ∀ u {x} → (Σ Cell λ a → cpO u ≡ syn a) → CkCmd u x → Σ St λ m → CkPt u m × Mid x m
ck-mid u (a , ea) (ck-new cs is) =
  ck1 u , inj₁ refl ,
  batch-mid {u} {ck1 u} (λ p → DLe-refl (dat u p)) (CLe-refl (cpL u)) (cle-put (cpO u) _ a ea) (Pw-refl (dr u))
            (λ p → CLe-refl (rcd u p)) cs
            (all-map gd is)
  where
    gd : ∀ k → IssCk1 u k → Good u (ck1 u) k
    gd .(pgO (cpt (suc (gen u)) (l2p u))) refl = refl
ck-mid u _ (ck-erase cs is) =
  ck2 u , inj₂ (inj₁ refl) ,
  batch-mid (λ p → DLe-refl (dat u' p)) (inj₂ (inj₁ refl)) (CLe-refl (cpO u')) (pw-erase (dr (ck1 u)))
            (λ p → CLe-refl (rcd u' p)) cs
            (all-map gd is)
  where
    u' = syncAll (ck1 u)
    gd : ∀ k → IssCk2 k → Good u' (ck2 u) k
    gd .(pgL erased)   (inj₁ refl)       = refl
    gd .(pgR i erased) (inj₂ (i , refl)) = refl
ck-mid u _ ck-end = ck2 u , inj₂ (inj₁ refl) , Mid-sync (ck2 u)

------------------------------------------------------------------------
-- Recovering the same

swp : St → St
swp s = record s { cpL = cpO s ; cpO = cpL s }

swpIf : Bool → St → St
swpIf false s = s
swpIf true  s = swp s

-- naming the slots the other way round is harmless when the checkpoint
-- recovery picks is in the slot named "other" (recovery renames them so)
SwapOK : Bool → St → Set
SwapOK false x = ⊤
SwapOK true  x = Σ ℕ λ g → Σ Map λ C → pick (cur (cpL x)) (cur (cpO x)) ≡ just (false , g , C)

-- y is x with dead pages on top of the region (and maybe the slots renamed)
record SameRec (x y : St) : Set where
  constructor same
  field
    ds   : List Cell
    dead : All Dead ds
    sw   : Bool
    swOK : SwapOK sw x
    eq   : y ≡ padW ds (swpIf sw x)

same-pad : ∀ {x} ds → All Dead ds → SameRec x (padW ds x)
same-pad ds dd = same ds dd false tt refl

-- the slot swap

pick-swap : ∀ a c {g C} → pick a c ≡ just (false , g , C) → pick c a ≡ just (true , g , C)
pick-swap (cpt g' C') (cpt h D) e with h ≤ᵇ g' in eq
... | true  with e
...   | ()
pick-swap (cpt g' C') (cpt h D) refl | false
  rewrite T⇒≡ (g' ≤ᵇ h) (≤⇒≤ᵇ {g'} {h} (<⇒≤ (≰⇒> (λ le → subst T eq (≤⇒≤ᵇ {h} {g'} le))))) = refl
pick-swap erased        (cpt h D) refl = refl
pick-swap junk          (cpt h D) refl = refl
pick-swap (dcell _ _)   (cpt h D) refl = refl
pick-swap (dlt _ _ _ _ _) (cpt h D) refl = refl
pick-swap (cpt _ _)     erased        ()
pick-swap (cpt _ _)     junk          ()
pick-swap (cpt _ _)     (dcell _ _)   ()
pick-swap (cpt _ _)     (dlt _ _ _ _ _) ()
pick-swap erased        erased        ()
pick-swap erased        junk          ()
pick-swap erased        (dcell _ _)   ()
pick-swap erased        (dlt _ _ _ _ _) ()
pick-swap junk          erased        ()
pick-swap junk          junk          ()
pick-swap junk          (dcell _ _)   ()
pick-swap junk          (dlt _ _ _ _ _) ()
pick-swap (dcell _ _)   erased        ()
pick-swap (dcell _ _)   junk          ()
pick-swap (dcell _ _)   (dcell _ _)   ()
pick-swap (dcell _ _)   (dlt _ _ _ _ _) ()
pick-swap (dlt _ _ _ _ _) erased        ()
pick-swap (dlt _ _ _ _ _) junk          ()
pick-swap (dlt _ _ _ _ _) (dcell _ _)   ()
pick-swap (dlt _ _ _ _ _) (dlt _ _ _ _ _) ()

PickOf : St → Bool → ℕ → Map → Set
PickOf x b g C = pick (cur (cpL x)) (cur (cpO x)) ≡ just (b , g , C)

-- recovery from x and from x with its slots renamed starts the same
swap-fwd : ∀ sw x → SwapOK sw x → ∀ {b g C} → PickOf x b g C →
  Σ Bool λ b' → PickOf (swpIf sw x) b' g C × rec0 b' g C (swpIf sw x) ≡ rec0 b g C x
swap-fwd false x _ {b} pk = b , pk , refl
swap-fwd true  x (g₀ , C₀ , e) pk with trans (sym e) pk
... | refl = true , pick-swap (cur (cpL x)) (cur (cpO x)) e , refl

swap-bwd : ∀ sw x → SwapOK sw x → ∀ {b' g C} → PickOf (swpIf sw x) b' g C →
  Σ Bool λ b → PickOf x b g C × rec0 b' g C (swpIf sw x) ≡ rec0 b g C x
swap-bwd false x _ {b'} pk = b' , pk , refl
swap-bwd true  x (g₀ , C₀ , e) pk with trans (sym (pick-swap (cur (cpL x)) (cur (cpO x)) e)) pk
... | refl = false , e , refl

recTo-swap : ∀ sw x → SwapOK sw x → ∀ {M} → RecTo (swpIf sw x) M → RecTo x M
recTo-swap false x _ r = r
recTo-swap true  x (g₀ , C₀ , e) (recto b g C pk sl so rs rg mx dm ro) with trans (sym (pick-swap (cur (cpL x)) (cur (cpO x)) e)) pk
... | refl = recto false g C e sl so rs rg mx dm ro

-- dead pages on top of the region

acc-dead : ∀ g D ds ys → All Dead ds → acc g D (map cur (map syn ds ++ ys)) ≡ acc g D (map cur ys)
acc-dead g D []                  ys []        = refl
acc-dead g D (erased ∷ ds)       ys (tt ∷ dd) = acc-dead g D ds ys dd
acc-dead g D (junk ∷ ds)         ys (tt ∷ dd) = acc-dead g D ds ys dd
acc-dead g D (dcell _ _ ∷ ds)    ys (() ∷ dd)
acc-dead g D (dlt _ _ _ _ _ ∷ ds)  ys (() ∷ dd)
acc-dead g D (cpt _ _ ∷ ds)      ys (() ∷ dd)

rview-pad : ∀ g ds x → All Dead ds → rview g (padW ds x) ≡ rview g x
rview-pad g ds x dd = cong (chn g (λ p → cur (rcd x p)) (λ p → cur (dat x p))) (acc-dead g (λ p → cur (dat x p)) ds (dr x) dd)

recMap-pad : ∀ g C ds x → All Dead ds → recMap g C (padW ds x) ≡ recMap g C x
recMap-pad g C ds x dd = cong (λ l → proj₁ (rp g l (st0 C))) (rview-pad g ds x dd)

recMap-sync : ∀ g C y → recMap g C (syncAll y) ≡ recMap g C y
recMap-sync g C y = cong (λ l → proj₁ (rp g (chn g (λ p → cur (rcd y p)) (λ p → cur (dat y p)) (acc g (λ p → cur (dat y p)) l)) (st0 C)))
                         (map-cur-sync (dr y))

recMap-sync-pad : ∀ g C ds x → All Dead ds → recMap g C (syncAll (padW ds x)) ≡ recMap g C (syncAll x)
recMap-sync-pad g C ds x dd =
  trans (recMap-sync g C (padW ds x)) (trans (recMap-pad g C ds x dd) (sym (recMap-sync g C x)))

-- rec0 with the recovered L2P as a parameter
rec0' : Bool → ℕ → Map → St → St
rec0' b g M s = let u = syncAll s in record u
  { cpL = slot b u ; cpO = slot (not b) u ; gen = g
  ; l2p = M ; smap = M ; mb = λ _ → nothing ; dbuf = [] ; ept = []
  ; nxt = hi M amax ⊔ hiR (map cur (dr s)) ; inv = λ _ → false ; ers = reclaim M (hi M amax ⊔ hiR (map cur (dr s)))
  ; wcnt = 0 ; gcnt = 0 ; ep = suc (topE (map cur (dr s))) ; lnk = nothing }

-- dead pages carry no epoch id
topE-dead : ∀ ds ys → All Dead ds → topE (map cur (map syn ds ++ ys)) ≡ topE (map cur ys)
topE-dead []            ys []        = refl
topE-dead (erased ∷ ds) ys (tt ∷ dd) = topE-dead ds ys dd
topE-dead (junk ∷ ds)   ys (tt ∷ dd) = topE-dead ds ys dd

-- nor pages
hiR-dead : ∀ ds ys → All Dead ds → hiR (map cur (map syn ds ++ ys)) ≡ hiR (map cur ys)
hiR-dead []            ys []        = refl
hiR-dead (erased ∷ ds) ys (tt ∷ dd) = hiR-dead ds ys dd
hiR-dead (junk ∷ ds)   ys (tt ∷ dd) = hiR-dead ds ys dd

-- rec0' with the new epoch id and the region's page bound as parameters too
rec0'' : Bool → ℕ → Map → ℕ → ℕ → St → St
rec0'' b g M e n s = let u = syncAll s in record u
  { cpL = slot b u ; cpO = slot (not b) u ; gen = g
  ; l2p = M ; smap = M ; mb = λ _ → nothing ; dbuf = [] ; ept = []
  ; nxt = hi M amax ⊔ n ; inv = λ _ → false ; ers = reclaim M (hi M amax ⊔ n)
  ; wcnt = 0 ; gcnt = 0 ; ep = e ; lnk = nothing }

ck3-pad'' : ∀ b g M e n ds x → ck3 (rec0'' b g M e n (padW ds x)) ≡ ck3 (rec0'' b g M e n x)
ck3-pad'' true  g M e n ds x = refl
ck3-pad'' false g M e n ds x = refl

ck3-pad' : ∀ b g M ds x → All Dead ds → ck3 (rec0' b g M (padW ds x)) ≡ ck3 (rec0' b g M x)
ck3-pad' b g M ds x dd =
  trans (cong₂ (λ e n → ck3 (rec0'' b g M (suc e) n (padW ds x))) (topE-dead ds (dr x) dd) (hiR-dead ds (dr x) dd))
        (ck3-pad'' b g M _ _ ds x)

-- without the checkpoint, the dead pages stay on top of the region
map-sync-pad : ∀ ds ys → map sync (map syn ds ++ ys) ≡ map syn ds ++ map sync ys
map-sync-pad []       ys = refl
map-sync-pad (d ∷ ds) ys = cong (syn d ∷_) (map-sync-pad ds ys)

withDr : St → List MC → St
withDr s l = record s { dr = l }

rec0''-pad : ∀ b g M e n ds x → rec0'' b g M e n (padW ds x) ≡ withDr (rec0'' b g M e n x) (map sync (map syn ds ++ dr x))
rec0''-pad true  g M e n ds x = refl
rec0''-pad false g M e n ds x = refl

rec0-pad : ∀ b g C ds x → All Dead ds → rec0 b g C (padW ds x) ≡ padW ds (rec0 b g C x)
rec0-pad b g C ds x dd =
  trans (cong₂ (λ M e → rec0'' b g M (suc e) (hiR (map cur (map syn ds ++ dr x))) (padW ds x))
               (recMap-sync-pad g C ds x dd) (topE-dead ds (dr x) dd))
  (trans (cong (λ n → rec0'' b g _ _ n (padW ds x)) (hiR-dead ds (dr x) dd))
  (trans (rec0''-pad b g _ _ _ ds x) (cong (withDr (rec0'' b g _ _ _ x)) (map-sync-pad ds (dr x)))))

clean-dead : ∀ g D ds ys → All Dead ds → clean g D (map cur (map syn ds ++ ys)) ≡ clean g D (map cur ys)
clean-dead g D []            ys []        = refl
clean-dead g D (erased ∷ ds) ys (tt ∷ dd) = clean-dead g D ds ys dd
clean-dead g D (junk ∷ ds)   ys (tt ∷ dd) = clean-dead g D ds ys dd

quiet-swp : ∀ sw x g → Quiet g x → Quiet g (swpIf sw x)
quiet-swp false x g q = q
quiet-swp true  x g q = q

quiet-swp' : ∀ sw x g → Quiet g (swpIf sw x) → Quiet g x
quiet-swp' false x g q = q
quiet-swp' true  x g q = q

quiet-pad : ∀ ds x g → All Dead ds → Quiet g x → Quiet g (padW ds x)
quiet-pad ds x g dd (q1 , q2) =
  (λ a L e → q1 a L (trans (cong lkOf (sym (acc-dead g (λ p → cur (dat x p)) ds (dr x) dd))) e)) ,
  (λ p le → q2 p (subst (_≤ p) (hiR-dead ds (dr x) dd) le))

quiet-pad' : ∀ ds x g → All Dead ds → Quiet g (padW ds x) → Quiet g x
quiet-pad' ds x g dd (q1 , q2) =
  (λ a L e → q1 a L (trans (cong lkOf (acc-dead g (λ p → cur (dat x p)) ds (dr x) dd)) e)) ,
  (λ p le → q2 p (subst (_≤ p) (sym (hiR-dead ds (dr x) dd)) le))

clean-swp : ∀ sw x g → clean g (λ p → cur (dat (swpIf sw x) p)) (map cur (dr (swpIf sw x)))
                     ≡ clean g (λ p → cur (dat x p)) (map cur (dr x))
clean-swp false x g = refl
clean-swp true  x g = refl

rec-pad : ∀ b g C ds x → All Dead ds → ck3 (rec0 b g C (padW ds x)) ≡ ck3 (rec0 b g C x)
rec-pad b g C ds x dd =
  trans (cong (λ M → ck3 (rec0' b g M (padW ds x))) (recMap-sync-pad g C ds x dd)) (ck3-pad' b g _ ds x dd)

img-pad : ∀ {m m'' z} ds → (∀ p → dat m'' p ≡ dat m p) → cpL m'' ≡ cpL m → cpO m'' ≡ cpO m →
  (∀ {zs} → CrashL (dr m) zs → CrashL (dr m'') (map syn ds ++ zs)) → (∀ p → rcd m'' p ≡ rcd m p) →
  Img m z → Img m'' (padW ds z)
img-pad {z = z} ds ed el eo er ei (cd , cl , co , cr , ci) =
  (λ p → subst (λ q → CrashD q (dat z p)) (sym (ed p)) (cd p)) ,
  subst (λ q → CrashC q (cpL z)) (sym el) cl , subst (λ q → CrashC q (cpO z)) (sym eo) co , er cr ,
  (λ p → subst (λ q → CrashC q (rcd z p)) (sym (ei p)) (ci p))

crashL-pad1 : ∀ ds {xs zs} → CrashL (map sync xs) zs → CrashL (map sync (map syn ds ++ xs)) (map syn ds ++ zs)
crashL-pad1 []       c = c
crashL-pad1 (d ∷ ds) c = refl ∷ crashL-pad1 ds c

crashL-pad2 : ∀ ds {xs zs} → CrashL (map (put erased) (map sync (map sync xs))) zs →
  CrashL (map (put erased) (map sync (map sync (map syn ds ++ xs)))) (map syn ds ++ zs)
crashL-pad2 []       c = c
crashL-pad2 (d ∷ ds) c = inj₁ refl ∷ crashL-pad2 ds c

-- a crash inside recovery from x with dead pages on top
pad-crashrec : ∀ ds x → All Dead ds → ∀ z → crashP recover x z →
  Σ St λ z'' → crashP recover (padW ds x) z'' × SameRec z z''
pad-crashrec ds x dd z (b , g , C , pk , m , inj₁ refl , img) =
  padW ds z , (b , g , C , pk , ck1 (rec0 b g C (padW ds x)) , inj₁ refl , img-pad {ck1 (rec0 b g C x)} {ck1 (rec0 b g C (padW ds x))} {z} ds (λ p → refl) (el b) (eo b) (crashL-pad1 ds) (λ p → refl) img) , same-pad ds dd
  where
    eM = recMap-sync-pad g C ds x dd
    el : ∀ b → cpL (ck1 (rec0 b g C (padW ds x))) ≡ cpL (ck1 (rec0 b g C x))
    el true  = refl
    el false = refl
    eo : ∀ b → cpO (ck1 (rec0 b g C (padW ds x))) ≡ cpO (ck1 (rec0 b g C x))
    eo true  = cong (λ M → put (cpt (suc g) M) (sync (cpO x))) eM
    eo false = cong (λ M → put (cpt (suc g) M) (sync (cpL x))) eM
pad-crashrec ds x dd z (b , g , C , pk , m , inj₂ (inj₁ refl) , img) =
  padW ds z , (b , g , C , pk , ck2 (rec0 b g C (padW ds x)) , inj₂ (inj₁ refl) , img-pad {ck2 (rec0 b g C x)} {ck2 (rec0 b g C (padW ds x))} {z} ds (λ p → refl) (el b) (eo b) (crashL-pad2 ds) (λ p → refl) img) , same-pad ds dd
  where
    eM = recMap-sync-pad g C ds x dd
    el : ∀ b → cpL (ck2 (rec0 b g C (padW ds x))) ≡ cpL (ck2 (rec0 b g C x))
    el true  = refl
    el false = refl
    eo : ∀ b → cpO (ck2 (rec0 b g C (padW ds x))) ≡ cpO (ck2 (rec0 b g C x))
    eo true  = cong (λ M → sync (put (cpt (suc g) M) (sync (cpO x)))) eM
    eo false = cong (λ M → sync (put (cpt (suc g) M) (sync (cpL x)))) eM
pad-crashrec ds x dd z (b , g , C , pk , m , inj₂ (inj₂ refl) , img) =
  z , (b , g , C , pk , ck3 (rec0 b g C (padW ds x)) , inj₂ (inj₂ refl) , subst (λ q → Img q z) (sym (rec-pad b g C ds x dd)) img) ,
  same [] [] false tt refl

all-drop : ∀ {A : Set} {P : A → Set} xs {ys} → All P (xs ++ ys) → All P ys
all-drop []       ps       = ps
all-drop (x ∷ xs) (_ ∷ ps) = all-drop xs ps

recTo-pad : ∀ ds x → All Dead ds → ∀ {M} → RecTo (padW ds x) M → RecTo x M
recTo-pad ds x dd (recto b g C pk sl so rs rg mx dm ro) =
  recto b g C pk (sl' b sl) (so' b so) (all-drop (map syn ds) rs) (all-drop (map syn ds) rg)
        (λ a → trans (cong (λ f → f a) (sym (recMap-pad g C ds x dd))) (mx a))
        (subst (DgM _) (rview-pad g ds x dd) dm) ro
  where
    sl' : ∀ b → slot b (padW ds x) ≡ syn (cpt g C) → slot b x ≡ syn (cpt g C)
    sl' true  e = e
    sl' false e = e
    so' : ∀ b → PM (Older g) (slot (not b) (padW ds x)) → PM (Older g) (slot (not b) x)
    so' true  o = o
    so' false o = o

-- SameRec changes nothing recovery does: a successful recovery reaches
-- the very same state (both ways; without a full checkpoint, the same
-- state with the dead pages still on top of the region), a crash inside
-- recovery gives SameRec outcomes, and what recovery finds (RecTo)
-- carries over.
same-recovery : ∀ {x y} → (sr : SameRec x y) →
    (∀ {r} → okP recover x r → Σ St λ r' → okP recover y r' × (r' ≡ r ⊎ r' ≡ padW (SameRec.ds sr) r))
  × (∀ {r} → okP recover y r → Σ St λ r' → okP recover x r' × (r ≡ r' ⊎ r ≡ padW (SameRec.ds sr) r'))
  × (∀ {z} → crashP recover x z → Σ St λ z'' → crashP recover y z'' × SameRec z z'')
  × (∀ {M} → RecTo y M → RecTo x M)
same-recovery {x} (same ds dd sw ok refl) = fwd , bwd , crs , rto
  where
    x' = swpIf sw x
    fwd : ∀ {r} → okP recover x r → Σ St λ r' → okP recover (padW ds x') r' × (r' ≡ r ⊎ r' ≡ padW ds r)
    fwd (b , g , C , pk , inj₁ refl) with swap-fwd sw x ok pk
    ... | b' , pk' , e = _ , (b' , g , C , pk' , inj₁ refl) , inj₁ (trans (rec-pad b' g C ds x' dd) (cong ck3 e))
    fwd (b , g , C , pk , inj₂ (cl , nr , refl)) with swap-fwd sw x ok pk
    ... | b' , pk' , e = _ , (b' , g , C , pk' , inj₂ (trans (clean-dead g _ ds (dr x') dd) (trans (clean-swp sw x g) cl) ,
                                                         quiet-pad ds x' g dd (quiet-swp sw x g nr) , refl)) ,
                         inj₂ (trans (rec0-pad b' g C ds x' dd) (cong (padW ds) e))
    bwd : ∀ {r} → okP recover (padW ds x') r → Σ St λ r' → okP recover x r' × (r ≡ r' ⊎ r ≡ padW ds r')
    bwd (b' , g , C , pk' , inj₁ refl) with swap-bwd sw x ok pk'
    ... | b , pk , e = _ , (b , g , C , pk , inj₁ refl) , inj₁ (trans (rec-pad b' g C ds x' dd) (cong ck3 e))
    bwd (b' , g , C , pk' , inj₂ (cl , nr , refl)) with swap-bwd sw x ok pk'
    ... | b , pk , e = _ , (b , g , C , pk , inj₂ (trans (sym (clean-swp sw x g)) (trans (sym (clean-dead g _ ds (dr x') dd)) cl) ,
                                                  quiet-swp' sw x g (quiet-pad' ds x' g dd nr) , refl)) ,
                       inj₂ (trans (rec0-pad b' g C ds x' dd) (cong (padW ds) e))
    crs : ∀ {z} → crashP recover x z → Σ St λ z'' → crashP recover (padW ds x') z'' × SameRec z z''
    crs {z} (b , g , C , pk , m , ck , img) with swap-fwd sw x ok pk
    ... | b' , pk' , e =
      pad-crashrec ds x' dd z (b' , g , C , pk' , m , subst (λ u → CkPt u m) (sym e) ck , img)
    rto : ∀ {M} → RecTo (padW ds x') M → RecTo x M
    rto r = recTo-swap sw x ok (recTo-pad ds x' dd r)

-- the crash invariant of the main theorem carries over
same-CR : ∀ {x y t} → SameRec x y → CR y t → CR x t
same-CR sr@(same ds dd false ok refl) (M , rt , dk) = M , proj₂ (proj₂ (proj₂ (same-recovery sr))) rt , dk
same-CR sr@(same ds dd true  ok refl) (M , rt , dk) = M , proj₂ (proj₂ (proj₂ (same-recovery sr))) rt , dk

same-CI : ∀ {x y} → SameRec x y → CI y → CI x
same-CI sr@(same ds dd false ok refl) (M , X , rt , dk) = M , X , proj₂ (proj₂ (proj₂ (same-recovery sr))) rt , dk
same-CI sr@(same ds dd true  ok refl) (M , X , rt , dk) = M , X , proj₂ (proj₂ (proj₂ (same-recovery sr))) rt , dk

------------------------------------------------------------------------
-- The result

via : ∀ x m s' → Mid x m → Img x s' → Σ St λ s'' → Img m s'' × SameRec s' s''
via x m s' mid img with mid-crash {x} {m} {s'} mid img
... | ds , dd , img' = padW ds s' , img' , same-pad ds dd

-- the slots of recovery's checkpoint are synced when it starts
rec-synO : ∀ b g C s → Σ Cell λ a → cpO (rec0 b g C s) ≡ syn a
rec-synO true  g C s = cur (cpO s) , refl
rec-synO false g C s = cur (cpL s) , refl

-- A crash right after any flash command of any operation o from s
-- (CmdCrash o s x, then a crash of x) yields a state s' that recovers as
-- a crash at one of P's crash points of o does (crashP o s s'').
-- a commit in the record slot of the link L: before its SYNC, after it
-- (inside the full checkpoint), the consolidation page before and after
-- its SYNC
lk-covered : ∀ L s {x s'} → LkCmd L s x → Img x s' →
  Σ St λ s'' → (Σ St λ m → (m ≡ fi2 L s ⊎ CkPt (fi3 L s) m ⊎ m ≡ fiK L s ⊎ m ≡ fi4 L s) × Img m s'') × SameRec s' s''
-- before its SYNC, and after it (inside the full checkpoint)
lk-covered L s {x} {s'} (sy , inj₁ r) img
  with via x (fi2 L s) s' (fi-mid L s sy r) img
... | s'' , img' , sr = s'' , (fi2 L s , (inj₁ refl) , img') , sr
lk-covered L s {x} {s'} (sy , inj₂ (inj₁ ck)) img
  with ck-mid (fi3 L s) (cur (cpO s) , refl) ck
... | m , cp , mid with via x m s' mid img
...   | s'' , img' , sr = s'' , (m , (inj₂ (inj₁ cp)) , img') , sr
-- the consolidation page, before and after its SYNC
lk-covered L s {x} {s'} (sy , inj₂ (inj₂ (inj₁ r))) img
  with via x (fiK L s) s' (fk-mid L s r) img
... | s'' , img' , sr = s'' , (fiK L s , (inj₂ (inj₂ (inj₁ refl))) , img') , sr
lk-covered L s {x} {s'} (sy , inj₂ (inj₂ (inj₂ refl))) img
  with via x (fi4 L s) s' (Mid-refl (fi4 L s)) img
... | s'' , img' , sr = s'' , (fi4 L s , (inj₂ (inj₂ (inj₂ refl))) , img') , sr

command-crashes-covered : ∀ o {s x s'} → CmdCrash o s x → Img x s' →
  Σ St λ s'' → crashP o s s'' × SameRec s' s''
-- write
command-crashes-covered (use (regop (w a d))) {s} {x} {s'} (inj₁ (ib , f1 , f2 , r)) img
  with via x (opt f1 f2 (wr0 a d s)) s' (wr-mid f1 f2 (wr0 a d s) r) img
... | s'' , img' , sr = s'' , (opt f1 f2 (wr0 a d s) , inj₁ (ib , f1 , f2 , refl) , img') , sr
command-crashes-covered (use (regop (w a d))) {s} {x} {s'} (inj₂ (nb , refl)) img
  with via x s s' (Mid-refl s) img
... | s'' , img' , sr = s'' , (s , inj₂ (nb , refl) , img') , sr
-- gc relocation
command-crashes-covered (use (regop rl)) {s} {x} {s'} (inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , r))) img
  with via x (opt f1 f2 (rl0 p s)) s' (wr-mid f1 f2 (rl0 p s) r) img
... | s'' , img' , sr = s'' , (opt f1 f2 (rl0 p s) , inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , refl)) , img') , sr
command-crashes-covered (use (regop rl)) {s} {x} {s'} (inj₁ (gk , p , lt , inj₂ (nv , refl))) img
  with via x (rlX p s) s' (Mid-refl (rlX p s)) img
... | s'' , img' , sr = s'' , (rlX p s , inj₁ (gk , p , lt , inj₂ (nv , refl)) , img') , sr
command-crashes-covered (use (regop rl)) {s} {x} {s'} (inj₂ (ng , refl)) img
  with via x s s' (Mid-refl s) img
... | s'' , img' , sr = s'' , (s , inj₂ (ng , refl) , img') , sr
-- gc erase
command-crashes-covered (use (regop es)) {s} {x} {s'} (p , ep , r) img
  with via x (esF p s) s' (es-mid p s r) img
... | s'' , img' , sr = s'' , (esF p s , (p , ep , refl) , img') , sr
-- flush: before its SYNC, right after it (the end of a flush without
-- full checkpoint), and inside the full checkpoint
command-crashes-covered (use flush) {s} {x} {s'} (inj₁ r) img
  with via x (fl2 s) s' (fl-mid s r) img
... | s'' , img' , sr = s'' , (fl2 s , inj₁ refl , img') , sr
command-crashes-covered (use flush) {s} {x} {s'} (inj₂ (inj₁ refl)) img
  with via x (fl3 s) s' (Mid-refl (fl3 s)) img
... | s'' , img' , sr = s'' , (fl3 s , inj₂ (inj₁ refl) , img') , sr
command-crashes-covered (use flush) {s} {x} {s'} (inj₂ (inj₂ (inj₁ ck))) img
  with ck-mid (fl3 s) (cur (cpO (fl2 s)) , refl) ck
... | m , cp , mid with via x m s' mid img
...   | s'' , img' , sr = s'' , (m , inj₂ (inj₂ (inj₁ cp)) , img') , sr
-- in-page and OOB commits
command-crashes-covered (use flush) {s} {x} {s'} (inj₂ (inj₂ (inj₂ (inj₁ (L , ip , lc))))) img
  with lk-covered L s lc img
... | s'' , (m , c , img') , sr = s'' , (m , inj₂ (inj₂ (inj₂ (inj₁ (L , ip , c)))) , img') , sr
command-crashes-covered (use flush) {s} {x} {s'} (inj₂ (inj₂ (inj₂ (inj₂ (L , M , ip , lc))))) img
  with lk-covered M s lc img
... | s'' , (m , c , img') , sr = s'' , (m , inj₂ (inj₂ (inj₂ (inj₂ (L , M , ip , c)))) , img') , sr
-- recovery: inside its full checkpoint
command-crashes-covered recover {s} {x} {s'} (b , g , C , pk , inj₂ ck) img
  with ck-mid (rec0 b g C s) (rec-synO b g C s) ck
... | m , cp , mid with via x m s' mid img
...   | s'' , img' , sr = s'' , (b , g , C , pk , m , cp , img') , sr
-- recovery: right after its first SYNC (nothing programmed yet)
command-crashes-covered recover {s} {x} {s'} (true , g , C , pk , inj₁ refl) img
  with via (syncAll s) (ck1 (rec0 true g C s)) s'
           ((λ p → DLe-refl (sync (dat s p))) , inj₁ refl , inj₂ (inj₁ refl) , pw (Pw-refl (map sync (dr s))) ,
            (λ p → CLe-refl (sync (rcd s p)))) img
... | s'' , img' , sr = s'' , (true , g , C , pk , ck1 (rec0 true g C s) , inj₁ refl , img') , sr
command-crashes-covered recover {s} {s' = s'} (false , g , C , pk , inj₁ refl) img@(d , l , o , r , i)
  with mid-crash {swp (syncAll s)} {ck1 (rec0 false g C s)} {swp s'}
         ((λ p → DLe-refl (sync (dat s p))) , inj₁ refl , inj₂ (inj₁ refl) , pw (Pw-refl (map sync (dr s))) ,
          (λ p → CLe-refl (sync (rcd s p))))
         (d , o , l , r , i)
... | ds , dd , img' =
  padW ds (swp s') , (false , g , C , pk , ck1 (rec0 false g C s) , inj₁ refl , img') ,
  same ds dd true (g , C , trans (cong₂ (λ a c → pick (cur a) (cur c)) (crashC-eq refl l) (crashC-eq refl o)) pk) refl

-- Hence the crash obligations of Theorem 1 (SCFTL.Impl.Theorem: A-crash,
-- B-crash, A-recᶜ, B-recᶜ) hold for a crash after any flash command.
command-crash-A : ∀ u {s t x s'} → AR s t → RI s → CmdCrash (use u) s x → Img x s' →
  Σ State λ t' → crashS (use u) t t' × CR s' t'
command-crash-A u {s} {t} {x} {s'} ar₀ ri c img with command-crashes-covered (use u) {s} {x} {s'} c img
... | s'' , cp , sr with use-crash u {s} {t} {s''} ar₀ ri cp
...   | t' , cs , cr = t' , cs , same-CR {s'} {s''} {t'} sr cr

command-crash-B : ∀ u {s x s'} → RI s → CmdCrash (use u) s x → Img x s' → CI s'
command-crash-B u {s} {x} {s'} ri c img with command-crashes-covered (use u) {s} {x} {s'} c img
... | s'' , cp , sr = same-CI sr (B-crash' u {s} {s''} ri cp)

command-crash-recA : ∀ {s t x s'} → CR s t → CmdCrash recover s x → Img x s' →
  Σ State λ t' → crashS recover t t' × CR s' t'
command-crash-recA {s} {t} {x} {s'} cr c img with command-crashes-covered recover {s} {x} {s'} c img
... | s'' , cp , sr with recᶜ-A {s} {t} {s''} cr cp
...   | t' , cs , cr' = t' , cs , same-CR {s'} {s''} {t'} sr cr'

command-crash-recB : ∀ {s x s'} → CI s → CmdCrash recover s x → Img x s' → CI s'
command-crash-recB {s} {x} {s'} ci c img with command-crashes-covered recover {s} {x} {s'} c img
... | s'' , cp , sr = same-CI sr (recᶜ-B {s} {s''} ci cp)

------------------------------------------------------------------------
-- Faithfulness: issuing all of a batch's commands reaches the flash of
-- the crash point (so the batches above are what the steps are made of)

SameFlash : St → St → Set
SameFlash x m = (∀ p → dat x p ≡ dat m p) × cpL x ≡ cpL m × cpO x ≡ cpO m × dr x ≡ dr m
              × (∀ p → rcd x p ≡ rcd m p)

either-same : ∀ {a x} → Either a x a → x ≡ a
either-same (inj₁ e) = e
either-same (inj₂ e) = e

es-all : ∀ p s → All (IssE p) (pgD p erased ∷ []) × SameFlash (runs (pgD p erased ∷ []) s) (esF p s)
es-all p s = refl ∷ [] , (λ q → refl) , refl , refl , refl , (λ q → refl)

ck1-all : ∀ u → let k = pgO (cpt (suc (gen u)) (l2p u)) in
  All (IssCk1 u) (k ∷ []) × SameFlash (runs (k ∷ []) u) (ck1 u)
ck1-all u = refl ∷ [] , (λ q → refl) , refl , refl , refl , (λ q → refl)

-- erasing the region: every index, newest first
ix : ℕ → List ℕ
ix zero    = []
ix (suc n) = 0 ∷ map suc (ix n)

putsAt : List ℕ → Cell → List MC → List MC
putsAt []       c xs = xs
putsAt (i ∷ is) c xs = putsAt is c (putAt i c xs)

putsAt-suc : ∀ is c y zs → putsAt (map suc is) c (y ∷ zs) ≡ y ∷ putsAt is c zs
putsAt-suc []       c y zs = refl
putsAt-suc (i ∷ is) c y zs = putsAt-suc is c y (putAt i c zs)

putsAt-all : ∀ c xs → putsAt (ix (length xs)) c xs ≡ map (put c) xs
putsAt-all c []       = refl
putsAt-all c (x ∷ xs) = trans (putsAt-suc (ix (length xs)) c (put c x) xs)
                              (cong (put c x ∷_) (putsAt-all c xs))

runs-pgR : ∀ c is s → let y = runs (map (λ i → pgR i c) is) s in
  dat y ≡ dat s × cpL y ≡ cpL s × cpO y ≡ cpO s × dr y ≡ putsAt is c (dr s) × rcd y ≡ rcd s
runs-pgR c []       s = refl , refl , refl , refl , refl
runs-pgR c (i ∷ is) s = runs-pgR c is (run (pgR i c) s)

ck2-all : ∀ u → let u' = syncAll (ck1 u)
                    cs = pgL erased ∷ map (λ i → pgR i erased) (ix (length (dr u'))) in
  All IssCk2 cs × SameFlash (runs cs u') (ck2 u)
ck2-all u with runs-pgR erased (ix (length (dr (syncAll (ck1 u)))))
                        (run (pgL erased) (syncAll (ck1 u)))
... | ed , el , eo , er , ei =
  inj₁ refl ∷ iss (ix (length (dr (syncAll (ck1 u))))) ,
  (λ q → cong (λ f → f q) ed) , el , eo , trans er (putsAt-all erased (dr (syncAll (ck1 u)))) , (λ q → cong (λ f → f q) ei)
  where
    iss : ∀ is → All IssCk2 (map (λ i → pgR i erased) is)
    iss []       = []
    iss (i ∷ is) = inj₂ (i , refl) ∷ iss is

-- programming the merge buffer, given a list of pages holding every
-- buffered one (in any order, repetitions allowed)
mbC : ℕ → Maybe (Data × ℕ) → List Cmd → List Cmd
mbC p (just (d , a)) r = pgD p (dcell d a) ∷ r
mbC p nothing        r = r

mbCmds : St → List ℕ → List Cmd
mbCmds u []       = []
mbCmds u (p ∷ ps) = mbC p (mb u p) (mbCmds u ps)

mbCmds-iss : ∀ u ps → All (IssMB u) (mbCmds u ps)
mbCmds-iss u []       = []
mbCmds-iss u (p ∷ ps) = go (mb u p) refl
  where
    go : ∀ mp → mb u p ≡ mp → All (IssMB u) (mbC p mp (mbCmds u ps))
    go (just (d , a)) e = (p , d , a , e , refl) ∷ mbCmds-iss u ps
    go nothing        e = mbCmds-iss u ps

mb-all : ∀ u ps → (∀ q → mb u q ≡ nothing ⊎ q ∈ ps) →
  ∀ q → dat (runs (mbCmds u ps) u) q ≡ progm (mb u q) (dat u q)
mb-all u ps cov q = go ps u (λ r → inj₁ refl) (cov' q (cov q))
  where
    Tg : ℕ → MC
    Tg r = progm (mb u r) (dat u r)
    Inv : St → Set
    Inv x = ∀ r → Either (dat u r) (dat x r) (Tg r)
    -- the page q ends as Tg q: it is not buffered, still to be programmed, or done
    Todo : List ℕ → St → Set
    Todo ps x = mb u q ≡ nothing ⊎ q ∈ ps ⊎ dat x q ≡ Tg q
    cov' : ∀ r → mb u r ≡ nothing ⊎ r ∈ ps → mb u r ≡ nothing ⊎ r ∈ ps ⊎ dat u r ≡ Tg r
    cov' r (inj₁ e) = inj₁ e
    cov' r (inj₂ i) = inj₂ (inj₁ i)
    fin : ∀ x → Inv x → Todo [] x → dat x q ≡ Tg q
    fin x iv (inj₁ e) with iv q
    ... | inj₁ d rewrite e = d
    ... | inj₂ d = d
    fin x iv (inj₂ (inj₁ ()))
    fin x iv (inj₂ (inj₂ d)) = d
    go : ∀ ps x → Inv x → Todo ps x → dat (runs (mbCmds u ps) x) q ≡ Tg q
    go []       x iv td = fin x iv td
    go (p ∷ ps) x iv td = step (mb u p) refl
      where
        step : ∀ mp → mb u p ≡ mp → dat (runs (mbC p mp (mbCmds u ps)) x) q ≡ Tg q
        step nothing  e = go ps x iv (td' td)
          where
            td' : Todo (p ∷ ps) x → Todo ps x
            td' (inj₁ n)             = inj₁ n
            td' (inj₂ (inj₁ here))   = inj₁ e
            td' (inj₂ (inj₁ (there i))) = inj₂ (inj₁ i)
            td' (inj₂ (inj₂ d))      = inj₂ (inj₂ d)
        step (just (d , a)) e = go ps x1 (upd-either {u} {x} {progMB u} p c g iv) (td' td)
          where
            c = dcell d a
            x1 = run (pgD p c) x
            g : dat (progMB u) p ≡ put c (dat u p)
            g = cong (λ z → progm z (dat u p)) e
            tp : dat x1 p ≡ Tg p
            tp = trans (upd-here (dat x) p (put c (dat x p))) (h (iv p))
              where
                h : Either (dat u p) (dat x p) (Tg p) → put c (dat x p) ≡ Tg p
                h (inj₁ e1) = trans (cong (put c) e1) (sym g)
                h (inj₂ e2) = trans (cong (put c) e2) (trans (cong (put c) g) (sym g))
            td' : Todo (p ∷ ps) x → Todo ps x1
            td' (inj₁ n)             = inj₁ n
            td' (inj₂ (inj₁ here))   = inj₂ (inj₂ tp)
            td' (inj₂ (inj₁ (there i))) = inj₂ (inj₁ i)
            td' (inj₂ (inj₂ h)) with q ≟ p
            ... | yes refl = inj₂ (inj₂ tp)
            ... | no ne    = inj₂ (inj₂ (trans (upd-other (dat x) (put c (dat x p)) ne) h))

-- flush before its SYNC: the merge buffer, then the committed page
fl2-all : ∀ s ps → (∀ q → mb s q ≡ nothing ⊎ q ∈ ps) →
  All (IssMB s) (mbCmds s ps) × SameFlash (run (apR (cmt s)) (runs (mbCmds s ps) s)) (fl2 s)
fl2-all s ps cov with runsD {s} {progMB s} {s} (mbCmds s ps)
                               (all-map (goodMB s (progMB s) (λ p → refl)) (mbCmds-iss s ps)) (λ p → inj₁ refl) (λ p → inj₁ refl)
... | _ , el , eo , er , ei =
  mbCmds-iss s ps , mb-all s ps cov , el , eo , cong (uns erased (cmt s) ∷_) er , (λ q → either-same (ei q))

apRun : Maybe Cell → St → St
apRun nothing  x = x
apRun (just c) x = run (apR c) x

-- a write / relocation: the merge buffer if full, then the tentative page
-- if the delta buffer is full
wr-all : ∀ f1 f2 u ps → (∀ q → mb u q ≡ nothing ⊎ q ∈ ps) →
  Σ (List Cmd) λ cs → All (IssW f1 u) cs × SameFlash (apRun (apW f2 u) (runs cs u)) (opt f1 f2 u)
wr-all false true  u ps cov = [] , [] , (λ q → refl) , refl , refl , refl , (λ q → refl)
wr-all false false u ps cov = [] , [] , (λ q → refl) , refl , refl , refl , (λ q → refl)
wr-all true  f2    u ps cov with runsD {u} {progMB u} {u} (mbCmds u ps)
                                   (all-map (goodMB u (progMB u) (λ p → refl)) (mbCmds-iss u ps)) (λ p → inj₁ refl) (λ p → inj₁ refl)
... | _ , el , eo , er , ei = mbCmds u ps , all-map (λ k i → refl , i) (mbCmds-iss u ps) , fin f2
  where
    fin : ∀ f2 → SameFlash (apRun (apW f2 u) (runs (mbCmds u ps) u)) (opt true f2 u)
    fin true  = mb-all u ps cov , el , eo , cong (uns erased (dlt (gen u) (ep u) (dbuf u) false ε) ∷_) er , (λ q → either-same (ei q))
    fin false = mb-all u ps cov , el , eo , er , (λ q → either-same (ei q))

-- an in-page commit before its SYNC: the merge buffer, then the record
runs-++ : ∀ xs ys s → runs (xs ++ ys) s ≡ runs ys (runs xs s)
runs-++ []       ys s = refl
runs-++ (x ∷ xs) ys s = runs-++ xs ys (run x s)

all-++' : ∀ {A : Set} {P : A → Set} {xs ys} → All P xs → All P ys → All P (xs ++ ys)
all-++' []       qs = qs
all-++' (p ∷ ps) qs = p ∷ all-++' ps qs

upd-pt : ∀ {f g : ℕ → MC} → (∀ q → f q ≡ g q) → ∀ L c q → (f [ L ≔ put c (f L) ]) q ≡ (g [ L ≔ put c (g L) ]) q
upd-pt e L c q with q ≡ᵇ L
... | true  = cong (put c) (e L)
... | false = e q

fi2-all : ∀ L s ps → (∀ q → mb s q ≡ nothing ⊎ q ∈ ps) → let cs = mbCmds s ps ++ pgI L (rec s) ∷ [] in
  All (IssFi L s) cs × SameFlash (runs cs s) (fi2 L s)
fi2-all L s ps cov with runsD {s} {progMB s} {s} (mbCmds s ps)
                               (all-map (goodMB s (progMB s) (λ p → refl)) (mbCmds-iss s ps)) (λ p → inj₁ refl) (λ p → inj₁ refl)
... | _ , el , eo , er , ei
  rewrite runs-++ (mbCmds s ps) (pgI L (rec s) ∷ []) s =
  all-++' (all-map (λ k i → inj₁ i) (mbCmds-iss s ps)) (inj₂ refl ∷ []) ,
  mb-all s ps cov , el , eo , er , upd-pt (λ q → either-same (ei q)) L (rec s)

-- the consolidation page: its one command
fiK-all : ∀ L s → SameFlash (run (apR (rec s)) (fi3 L s)) (fiK L s)
fiK-all L s = (λ q → refl) , refl , refl , refl , (λ q → refl)
