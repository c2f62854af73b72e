{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Per-operation correctness (types A and B) of flush in the SCFTL
-- model, successful and crashed, including the full (shadow) checkpoint
-- a flush may end with.  The crashed flush is formula (4) of the paper,
-- partitioned by crash point; the flush is the one-sync commit of
-- docs/FORMAT.md §4.3, so the core is a crash right before its SYNC
-- (`fl2-crash`): the epoch's committed page landed and its digest
-- verifies, or recovery falls back to the previous committed page.
-- The in-page commit (docs/FORMAT.md §4.8) and the OOB commit (§4.9)
-- are the other ways a flush may commit: their core is `fi2-crash` (the
-- record in the record slot of page M — the data page at the last
-- commit's link L, or the OOB run's last page — landed and its digest
-- verifies, so recovery following the link walks to it, `ext-at`, and
-- replays it; or the link leads nowhere) and `fi3-rec` (after its SYNC
-- the record is durable and followed).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Flush (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≤ᵇ_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; ≤ᵇ⇒≤; _≟_)
open import Relation.Nullary using (yes; no)
open import Data.Bool.Base using (Bool; true; false; _∨_; _∧_; T; if_then_else_)
open import Data.Unit.Base using (tt)
open import Data.Empty using (⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Addr; State; ⟨_,_,_⟩; volatile; stable; okS; crashS; use; flush)

∨-true : ∀ x y → (x ∨ y) ≡ true → x ≡ true ⊎ y ≡ true
∨-true true  y _ = inj₁ refl
∨-true false y e = inj₂ e

all-sync-IsSyn : ∀ xs → All IsSyn (map sync xs)
all-sync-IsSyn []       = []
all-sync-IsSyn (x ∷ xs) = tt ∷ all-sync-IsSyn xs

crashL-cons : ∀ {x xs ys} → CrashL (x ∷ xs) ys →
  Σ MC λ h → Σ (List MC) λ rest → ys ≡ h ∷ rest × CrashC x h × CrashL xs rest
crashL-cons (c ∷ cs) = _ , _ , refl , c , cs

lkTop-hd : ∀ g x ps dd dt L cs → lkTop g (dlt g x ps true (dd , dt , L) ∷ cs) ≡ just (x , L)
lkTop-hd g x ps dd dt L cs rewrite ≡ᵇ-refl g = refl

just-snd : ∀ {a b c d : ℕ} → just (a , b) ≡ just (c , d) → b ≡ d
just-snd refl = refl

------------------------------------------------------------------------
-- Lists of tentative pages, and the digest

T≡ : ∀ {b} → b ≡ true → T b
T≡ refl = _

map-sync-syn : ∀ xs → map sync xs ≡ map syn (map cur xs)
map-sync-syn []       = refl
map-sync-syn (x ∷ xs) = cong (syn (cur x) ∷_) (map-sync-syn xs)

-- a tentative page of generation g and epoch e, as emitT writes it
Tp : ℕ → ℕ → List (Addr × ℕ) → Cell
Tp g e ps = dlt g e ps false ε

map-cur-T : ∀ g e pss → map cur (map (λ ps → uns erased (Tp g e ps)) pss) ≡ map (Tp g e) pss
map-cur-T g e []         = refl
map-cur-T g e (ps ∷ pss) = cong (Tp g e ps ∷_) (map-cur-T g e pss)

verT-T : ∀ g e pss cs → verT g e pss (map (Tp g e) pss ++ cs) ≡ true
verT-T g e []         cs = refl
verT-T g e (ps ∷ pss) cs rewrite isT-refl g e ps ε = verT-T g e pss cs

-- replaying an epoch's tentative pages over a replay state with nothing
-- pending in that epoch only applies their pairs to the committed L2P
rp-T : ∀ g e pss R → pend R ≢ e → rbase e (rp g (map (Tp g e) pss) R) ≡ apply (concat pss) (proj₁ R)
rp-T g e []         R ne = rbase-other e R ne
rp-T g e (ps ∷ pss) R ne =
  trans (cong (rbase e) (rstep-tent g e ps {ε} (rp g (map (Tp g e) pss) R)))
  (trans (rbase-same e _ _)
  (trans (cong (apply ps) (rp-T g e pss R ne)) (sym (apply-++ ps (concat pss) (proj₁ R)))))

apply-cong : ∀ ps {m m'} → m ≐ m' → apply ps m ≐ apply ps m'
apply-cong []             e = e
apply-cong ((a , p) ∷ ps) e = ≐-upd a (just p) (apply-cong ps e)

isAt-sound : ∀ mp p → isAt mp p ≡ true → mp ≡ just p
isAt-sound (just q) p e = cong just (≡ᵇ-sound q p e)

isAt-refl : ∀ p → isAt (just p) p ≡ true
isAt-refl p = ≡ᵇ-refl p

-- every entry of the digest: a data page the volatile L2P maps, with the
-- sector it holds
digD-ent : ∀ s (D : ℕ → MC) → (∀ a p → a ≤ amax → l2p s a ≡ just p → D p ≡ syn (dcell (cellD (pv s p)) a)) →
  ∀ ps → All (Ent (l2p s) D) (digD s ps)
digD-ent s D f []             = []
digD-ent s D f ((a , p) ∷ ps) with (a ≤ᵇ amax) ∧ isAt (l2p s a) p in e
... | true  = let (e1 , e2) = ∧-true (a ≤ᵇ amax) _ e
                  le = ≤ᵇ⇒≤ a amax (T≡ e1)
                  lm = isAt-sound (l2p s a) p e2 in
              (le , lm , f a p le lm) ∷ digD-ent s D f ps
... | false = digD-ent s D f ps

digD-entM : ∀ s ps → All (EntM (l2p s)) (digD s ps)
digD-entM s []             = []
digD-entM s ((a , p) ∷ ps) with (a ≤ᵇ amax) ∧ isAt (l2p s a) p in e
... | true  = let (e1 , e2) = ∧-true (a ≤ᵇ amax) _ e in
              (≤ᵇ⇒≤ a amax (T≡ e1) , isAt-sound (l2p s a) p e2) ∷ digD-entM s ps
... | false = digD-entM s ps

≤⇒≤ᵇ' : ∀ m n → m ≤ n → (m ≤ᵇ n) ≡ true
≤⇒≤ᵇ' m n le = T⇒≡ (m ≤ᵇ n) (Data.Nat.Properties.≤⇒≤ᵇ le)

-- a pair the epoch leaves in place is in the digest
digD-mem : ∀ s a p ps → (a , p) ∈ ps → a ≤ amax → l2p s a ≡ just p → (p , cellD (pv s p) , a) ∈ digD s ps
digD-mem s a p ((b , q) ∷ ps) here le lm rewrite ≤⇒≤ᵇ' a amax le | lm | isAt-refl p = here
digD-mem s a p ((b , q) ∷ ps) (there i) le lm with (b ≤ᵇ amax) ∧ isAt (l2p s b) q
... | true  = there (digD-mem s a p ps i le lm)
... | false = digD-mem s a p ps i le lm

verD-mem : ∀ D dd p d a → verD D dd ≡ true → (p , d , a) ∈ dd → holds (D p) d a ≡ true
verD-mem D ((q , e , b) ∷ dd) p d a v here      = proj₁ (∧-true (holds (D q) e b) _ v)
verD-mem D ((q , e , b) ∷ dd) p d a v (there i) = verD-mem D dd p d a (proj₂ (∧-true (holds (D q) e b) _ v)) i

crashD-syn' : ∀ {m m'} → CrashD m m' → m' ≡ syn (cur m')
crashD-syn' {syn c}   refl      = refl
crashD-syn' {uns o n} (c , refl) = refl

------------------------------------------------------------------------
-- The end of the commit (after the SYNC)

-- The epoch's committed page over its tentative pages activates exactly
-- the volatile L2P: nothing below is pending in this epoch (cmP).
fresh-epoch : ∀ {s} (r : RI s) → ∀ a →
  apply (dbuf s) (rbase (ep s) (rp (gen s) (map cur (RI.tents r) ++ RI.comm r) (st0 (RI.C r)))) a ≡ l2p s a
fresh-epoch {s} r a =
  trans (cong (λ x → apply (dbuf s) (rbase (ep s) x) a) (rp-++ g (map cur tents) comm (st0 C)))
  (trans (cong (λ l → apply (dbuf s) (rbase (ep s) (rp g l (rp g comm (st0 C)))) a) tcur)
  (trans (cong (λ x → apply (dbuf s) x a) (rp-T g (ep s) (ept s) (rp g comm (st0 C)) (<⇒≢ cmP)))
  (trans (apply-cong (dbuf s) (apply-cong (concat (ept s)) cmX) a) (sym (vm a)))))
  where
    open RI r
    g = gen s
    tcur : map cur tents ≡ map (Tp g (ep s)) (ept s)
    tcur = trans (cong (map cur) tEq) (map-cur-T g (ep s) (ept s))

-- after the commit's SYNC every page the volatile L2P maps holds its sector durably
fl3-ent : ∀ {s} → RI s → ∀ a p → a ≤ amax → l2p s a ≡ just p → dat (fl3 s) p ≡ syn (dcell (cellD (pv s p)) a)
fl3-ent {s} r a p le e with RI.vOK r a p le e
... | _ , d , ed = cong syn (trans (cur-progm (mb s p) (dat s p)) (trans ed (cong (λ x → dcell x a) (sym (cong cellD ed)))))

fl3-RI : ∀ {s} → RI s → RI (fl3 s)
fl3-RI {s} r = record
  { C = C ; tents = [] ; comm = comm'
  ; slotL = cong sync slotL
  ; slotO = PM-sync {P = Older (gen s)} (cpO s) slotO
  ; regEq = cong (syn (dlt g (ep s) (dbuf s) true (dgOf s)) ∷_)
      (trans (map-sync-syn (dr s)) (cong (map syn)
        (trans (cong (map cur) regEq)
          (trans (map-cur-++ tents (map syn comm)) (cong (map cur tents ++_) (map-cur-syn comm))))))
  ; tNC = [] ; gle = ≤-refl ∷ all-sync gle
  ; cmX = λ a → trans (cong (λ x → proj₁ x a) (rstep-commit g (ep s) (dbuf s) {dgOf s} R')) (new a)
  ; cmP = subst (λ x → pend x < suc (ep s)) (sym (rstep-commit g (ep s) (dbuf s) {dgOf s} R')) ≤-refl
  ; vm = λ a → refl
  ; vOK = λ a p le e → let (lt , d , ed) = vOK a p le e in
            lt , d , trans (cur-progm (mb s p) (dat s p)) ed
  ; sOK = λ a p le e → let (lt , d , ed) = vOK a p le e in
            lt , refl , d , cong syn (trans (cur-progm (mb s p) (dat s p)) ed)
  ; iOK = λ p ()
  ; eOK = eOK'
  ; tEq = refl
  ; cmV = inj₂ (ep s , dbuf s , dgOf s , refl , digD-ent s (dat (fl3 s)) ent (dbuf s ++ concat (ept s)) ,
          subst (λ l → verT g (ep s) (ept s) (l ++ comm) ≡ true) (sym tcur) (verT-T g (ep s) (ept s) comm))
  ; rcOK = rc-sync {rcd s} rcOK
  ; lkOK = λ { L refl → ep s , dbuf s , digD s (dbuf s ++ concat (ept s)) , ept s , (map cur tents ++ comm) , refl , refl }
  ; rcN = rcN
  ; rcL = λ x L e p le → rcN p (subst (_≤ p)
                          (sym (just-snd (trans (sym (lkTop-hd g (ep s) (dbuf s) (digD s (dbuf s ++ concat (ept s))) (ept s) (nxt s)
                                                     (map cur tents ++ comm))) e))) le) }
  where
    open RI r
    g = gen s
    comm' = dlt g (ep s) (dbuf s) true (dgOf s) ∷ (map cur tents ++ comm)
    R' = rp g (map cur tents ++ comm) (st0 C)
    tcur : map cur tents ≡ map (Tp g (ep s)) (ept s)
    tcur = trans (cong (map cur) tEq) (map-cur-T g (ep s) (ept s))
    new : ∀ a → apply (dbuf s) (rbase (ep s) R') a ≡ l2p s a
    new = fresh-epoch r
    ent = fl3-ent r
    eOK' : ∀ p → (ers s p ∨ inv s p) ≡ true → p < nxt s × (∀ a → a ≤ amax → l2p s a ≢ just p)
                                              × (∀ a → a ≤ amax → l2p s a ≢ just p)
    eOK' p e with ∨-true (ers s p) (inv s p) e
    ... | inj₁ e1 = let (lt , nl , _) = eOK p e1 in lt , nl , nl
    ... | inj₂ e2 = let (lt , nl) = iOK p e2 in lt , nl , nl

rdm-fl3 : ∀ s mp → rdm (fl3 s) mp ≡ rdm s mp
rdm-fl3 s nothing  = refl
rdm-fl3 s (just p) = cong cellD (cur-progm (mb s p) (dat s p))

rdD-fl3 : ∀ s mp → rdD (dat (fl3 s)) mp ≡ rdm s mp
rdD-fl3 s nothing  = refl
rdD-fl3 s (just p) = cong cellD (cur-progm (mb s p) (dat s p))

tF : State → State
tF t = ⟨ volatile t , volatile t , 0 ⟩

fl3-AR : ∀ {s t} → AR s t → AR (fl3 s) (tF t)
fl3-AR {s} (ar v st c) =
  ar (λ a le → trans (rdm-fl3 s (l2p s a)) (v a le))
     (λ a le → trans (rdD-fl3 s (l2p s a)) (v a le)) refl

------------------------------------------------------------------------
-- The full checkpoint (also used by recovery)

ck3-RI : ∀ {u}
  → (∀ a p → a ≤ amax → l2p u a ≡ just p → p < nxt u × Σ Data λ d → pv u p ≡ dcell d a)
  → (∀ a p → a ≤ amax → smap u a ≡ just p →
       p < nxt u × mb u p ≡ nothing × Σ Data λ d → dat u p ≡ syn (dcell d a))
  → (∀ p → inv u p ≡ true → p < nxt u × (∀ a → a ≤ amax → l2p u a ≢ just p))
  → (∀ p → ers u p ≡ true → p < nxt u × (∀ a → a ≤ amax → l2p u a ≢ just p)
                                      × (∀ a → a ≤ amax → smap u a ≢ just p))
  → smap u ≐ l2p u → dbuf u ≡ [] → ept u ≡ [] → 0 < ep u
  → (∀ p → Σ Cell λ c → rcd u p ≡ syn c × RLt (suc (gen u)) c) → RI (ck3 u)
ck3-RI {u} vOK sOK iOK eOK sm db et e0 rsy = record
  { C = l2p u ; tents = [] ; comm = []
  ; slotL = refl ; slotO = tt ; regEq = refl ; tNC = [] ; gle = []
  ; cmX = λ a → sym (sm a) ; cmP = e0
  ; vm = λ a → trans (sym (sm a)) (cong₂ (λ d e → apply d (apply (concat e) (smap u)) a) (sym db) (sym et))
  ; vOK = vOK
  ; sOK = λ a p le e → let (lt , mbn , d , dd) = sOK a p le e in
            lt , mbn , d , cong (λ m → sync (sync m)) dd
  ; iOK = iOK ; eOK = eOK
  ; tEq = cong (map (λ ps → uns erased (dlt (suc (gen u)) (ep u) ps false ε))) (sym et)
  ; cmV = tt
  ; rcOK = rc-step {ck3 u} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy))
  ; lkOK = λ L ()
  ; rcN = λ p _ → rc-cur {ck3 u} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy)) p
  ; rcL = λ x L () }

rdm-ck3 : ∀ u mp → rdm (ck3 u) mp ≡ rdm u mp
rdm-ck3 u nothing  = refl
rdm-ck3 u (just p) = refl

rdS-ck3 : ∀ u mp → rdS (ck3 u) mp ≡ rdS u mp
rdS-ck3 u nothing  = refl
rdS-ck3 u (just p) = refl

ck3-AR : ∀ {u t} → AR u t → AR (ck3 u) t
ck3-AR {u} (ar v st c) =
  ar (λ a le → trans (rdm-ck3 u (l2p u a)) (v a le))
     (λ a le → trans (rdS-ck3 u (smap u a)) (st a le)) c

fl3-ck-RI : ∀ {s} → RI s → RI (ck3 (fl3 s))
fl3-ck-RI {s} r = ck3-RI {u = fl3 s} vOK sOK iOK eOK (λ _ → refl) refl refl (s≤s z≤n) rcOK
  where open RI (fl3-RI r)

-- A crash before the commit's SYNC (the merge buffer programmed): if the
-- epoch's digest verifies on the outcome, the volatile L2P's pages hold
-- what the volatile image reads, durably.
crash-new : ∀ {s t s'} → AR s t → (r : RI s) → (∀ p → CrashD (dat (progMB s) p) (dat s' p)) →
  verD (λ p → cur (dat s' p)) (digD s (dbuf s ++ concat (ept s))) ≡ true → DOKs (dat s') (l2p s) (volatile t)
crash-new {s} {t} {s'} arr r cD = dNew
  where
    open RI r
    D' = λ p → cur (dat s' p)
    -- where the volatile L2P's pages come from: this epoch's pairs or the stable L2P
    src : ∀ a p → l2p s a ≡ just p → (a , p) ∈ (dbuf s ++ concat (ept s)) ⊎ smap s a ≡ just p
    src a p e = apply-src (dbuf s ++ concat (ept s)) (smap s) a p (trans (sym chain) e)
      where
        chain : l2p s a ≡ apply (dbuf s ++ concat (ept s)) (smap s) a
        chain = trans (vm a) (sym (cong (λ f → f a) (apply-++ (dbuf s) (concat (ept s)) (smap s))))
    vol : ∀ a p → a ≤ amax → l2p s a ≡ just p → volatile t a ≡ cellD (pv s p)
    vol a p le e = trans (sym (AR.vol arr a le)) (cong (rdm s) e)
    dNew : verD D' (digD s (dbuf s ++ concat (ept s))) ≡ true → DOKs (dat s') (l2p s) (volatile t)
    dNew v a le = go' (l2p s a) refl
      where
        go' : ∀ mp → l2p s a ≡ mp → DOK (dat s') mp a (volatile t a)
        go' nothing  e = trans (sym (AR.vol arr a le)) (cong (rdm s) e)
        go' (just p) e with src a p e
        ... | inj₁ i = trans (crashD-syn' (cD p))
                         (cong syn (trans (holds-sound (D' p) _ a
                                             (verD-mem D' _ p _ a v (digD-mem s a p _ i le e)))
                                          (cong (λ x → dcell x a) (sym (vol a p le e)))))
        ... | inj₂ sm with sOK a p le sm
        ...   | _ , mbn , d , dd =
          trans (crashD-eq (trans (cong (λ x → progm x (dat s p)) mbn) dd) (cD p))
                (cong (λ x → syn (dcell x a))
                  (sym (trans (vol a p le e)
                     (trans (cong (λ m → cellD (pvm m (cur (dat s p)))) mbn) (cong (λ m → cellD (cur m)) dd)))))

------------------------------------------------------------------------
-- The in-page commit (docs/FORMAT.md §4.8): the epoch's commit record in
-- the record slot of its data page at the last commit's link, one SYNC,
-- then (abstracting the consolidation page) a full checkpoint.

false≢true : false ≡ true → Data.Empty.⊥
false≢true ()

-- a normal state's committed part headed by a commit is accepted whole
acc-hd' : ∀ {g sm DD} (D' : ℕ → Cell) → (∀ p c → DD p ≡ syn c → D' p ≡ c) →
  ∀ c cs → isC g c ≡ true → CmV g sm DD (c ∷ cs) → acc g D' (c ∷ cs) ≡ c ∷ cs
acc-hd' D' f c cs ic (inj₁ (nc , _)) = ⊥-elim (false≢true (trans (sym nc) ic))
acc-hd' {g} D' f .(dlt g x ps true (dd , dt , L)) cs ic (inj₂ (x , ps , (dd , dt , L) , refl , es , vt))
  rewrite ≡ᵇ-refl g | verD-ent D' f dd es | vt = refl

acc-hd : ∀ {g sm DD} (D' : ℕ → Cell) → (∀ p c → DD p ≡ syn c → D' p ≡ c) →
  ∀ x ps dd dt L cs → CmV g sm DD (dlt g x ps true (dd , dt , L) ∷ cs) →
  acc g D' (dlt g x ps true (dd , dt , L) ∷ cs) ≡ dlt g x ps true (dd , dt , L) ∷ cs
acc-hd {g} D' f x ps dd dt L cs = acc-hd' D' f (dlt g x ps true (dd , dt , L)) cs (≡ᵇ-refl g)

-- the region of a state that may commit in-page: its committed part only
InP-tnil : ∀ {s L M} (r : RI s) → LkC s L M → RI.tents r ≡ []
InP-tnil {s} r (_ , et , _) = trans (RI.tEq r) (cong (map (λ ps → uns erased (dlt (gen s) (ep s) ps false ε))) et)

InP-dr : ∀ {s L M} (r : RI s) → LkC s L M → dr s ≡ map syn (RI.comm r)
InP-dr {s} r ip = trans (RI.regEq r) (cong (_++ map syn (RI.comm r)) (InP-tnil r ip))

-- the commit activates exactly the volatile L2P (no tentative page)
fresh-ip : ∀ {s L M} (r : RI s) → LkC s L M → ∀ a →
  proj₁ (rstep (gen s) (rec s) (rp (gen s) (RI.comm r) (st0 (RI.C r)))) a ≡ l2p s a
fresh-ip {s} r ip a =
  trans (cong (λ x → proj₁ x a) (rstep-commit (gen s) (ep s) (dbuf s) {dgOf s} (rp (gen s) (RI.comm r) (st0 (RI.C r)))))
  (trans (cong (λ l → apply (dbuf s) (rbase (ep s) (rp (gen s) (map cur l ++ RI.comm r) (st0 (RI.C r)))) a)
               (sym (InP-tnil r ip)))
         (fresh-epoch r a))

extF : ∀ g R D x M → okR g (suc x) D (R M) ≡ false → extAt g R D x M ≡ []
extF g R D x M e rewrite e = refl

extT : ∀ g R D x M → okR g (suc x) D (R M) ≡ true → extAt g R D x M ≡ R M ∷ []
extT g R D x M e rewrite e = refl

-- A crash right before the in-page commit's SYNC.  The record landed and
-- its digest verifies ⇒ recovery follows the link to it and yields the
-- volatile L2P; otherwise (record slot old, junk, or a page it covers
-- did not land) the stable one.
-- CR with the map named (issue 39, blocks: B with physical reads needs
-- it): the crash recovers to the stable or the volatile L2P of s
CRm : St → St → State → Set
CRm s s' t' = Σ Map λ M → (M ≡ smap s ⊎ M ≡ l2p s) × RecTo s' M × DOKs (dat s') M (stable t')

CRm⇒CR : ∀ {s s' t'} → CRm s s' t' → CR s' t'
CRm⇒CR (M , _ , rt , dk) = M , rt , dk

fi2-crash⁺ : ∀ {s t s' L M} → AR s t → (r : RI s) → LkC s L M → Img (fi2 M s) s' →
  Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
fi2-crash⁺ {s} {t} {s'} {L} {M} arr r ip@(lk , et , lm , mn , mo) (cD , cL , cO , cR , cI) with RI.lkOK r L lk
... | x , ps , dd , dt , cs , ceq , sx = go cIL'
  where
    open RI r
    g = gen s
    D' = λ p → cur (dat s' p)
    R' = λ p → cur (rcd s' p)
    drEq : dr s' ≡ map syn comm
    drEq = crashL-id (all-map-syn comm) (subst (λ l → CrashL l (dr s')) (InP-dr r ip) cR)
    view : map cur (dr s') ≡ comm
    view = trans (cong (map cur) drEq) (map-cur-syn comm)
    sl' = crashC-eq slotL cL
    so' = crashC-PM {P = Older g} tt cO slotO
    rs = crashL-syn cR
    rg = crashL-PM tt cR gle
    pk = pick-slot true s' g C sl' so'
    r1 = progMB-RI r
    fD : ∀ p c → dat (progMB s) p ≡ syn c → D' p ≡ c
    fD p c e = cong cur (crashD-eq e (cD p))
    cv : CmV g (smap s) (dat (progMB s)) (dlt g x ps true (dd , dt , L) ∷ cs)
    cv = subst (CmV g (smap s) (dat (progMB s))) ceq (RI.cmV r1)
    accC : acc g D' comm ≡ comm
    accC = trans (cong (acc g D') ceq) (trans (acc-hd D' fD x ps dd dt L cs cv) (sym ceq))
    -- the record slots: nothing of the generation from the link on
    abv : Above g (λ p → cur (rcd s p)) L
    abv = rcL x L (trans (cong (lkTop g) ceq) (lkTop-hd g x ps dd dt L cs))
    oth : ∀ q → L ≤ q → q ≢ M → RLt g (R' q)
    oth q le ne with rcOK q
    ... | c , e , _ rewrite crashC-eq (trans (upd-other (rcd s) (put (rec s) (rcd s M)) ne) e) (cI q) =
      subst (RLt g) (cong cur e) (abv q le)
    rv : rview g s' ≡ extAt g R' D' x M ++ comm
    rv = trans (cong (λ l → chn g R' D' (acc g D' l)) view)
         (trans (cong (chn g R' D') accC) (trans (cong (λ l → extM g R' D' (lkOf l) ++ comm) ceq)
                (cong (_++ comm) (ext-at g R' D' x L M lm mo oth))))
    c0 = proj₁ (rcOK M)
    e0 = proj₁ (proj₂ (rcOK M))
    lt1 = proj₂ (proj₂ (rcOK M))
    lt0 : RLt g c0
    lt0 = subst (RLt g) (cong cur e0) (abv M lm)
    cIL : CrashC (put (rec s) (rcd s M)) (rcd s' M)
    cIL = subst (λ z → CrashC z (rcd s' M)) (upd-here (rcd s) M (put (rec s) (rcd s M))) (cI M)
    cIL' : CrashC (uns c0 (rec s)) (rcd s' M)
    cIL' = subst (λ z → CrashC (put (rec s) z) (rcd s' M)) e0 cIL
    ro : ∀ p → RLt (suc g) (cur (rcd s' p))
    ro p with p ≟ M
    ... | yes refl = go' cIL'
      where
        go' : CrashC (uns c0 (rec s)) (rcd s' p) → RLt (suc g) (cur (rcd s' p))
        go' (inj₁ e)        rewrite e = lt1
        go' (inj₂ (inj₁ e)) rewrite e = ≤-refl
        go' (inj₂ (inj₂ e)) rewrite e = tt
    ... | no ne with rcOK p
    ...   | c , e , lt rewrite crashC-eq (trans (upd-other (rcd s) (put (rec s) (rcd s M)) ne) e) (cI p) = lt
    dOld : DOKs (dat s') (smap s) (stable t)
    dOld = dok-crash cD (ri-dok r1 (AR.stb (progMB-AR r arr)))
    old : extAt g R' D' x M ≡ [] → Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
    old e = t , inj₂ refl , smap s , inj₁ refl , recto true g C pk sl' so' rs rg mxO dmO ro , dOld
      where
        rvO : rview g s' ≡ comm
        rvO = trans rv (cong (_++ comm) e)
        mxO : recMap g C s' ≐ smap s
        mxO a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) rvO) (cmX a)
        dmO : DgM (smap s) (rview g s')
        dmO = subst (DgM (smap s)) (sym rvO) (subst (DgM (smap s)) accC (cmv-dgm D' fD comm (RI.cmV r1)))
    new : R' M ≡ rec s → verD D' (digD s (dbuf s ++ concat (ept s))) ≡ true →
      Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
    new eR vd = tF t , inj₁ refl , l2p s , inj₂ refl , recto true g C pk sl' so' rs rg mxN dmN ro , crash-new {s} {t} {s'} arr r cD vd
      where
        okT : okR g (suc x) D' (R' M) ≡ true
        okT rewrite eR | ≡ᵇ-refl g | sym sx | ≡ᵇ-refl (suc x) = vd
        rvN : rview g s' ≡ rec s ∷ comm
        rvN = trans rv (trans (cong (_++ comm) (extT g R' D' x M okT)) (cong (λ c → c ∷ comm) eR))
        mxN : recMap g C s' ≐ l2p s
        mxN a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) rvN) (fresh-ip r ip a)
        dmN : DgM (l2p s) (rview g s')
        dmN = subst (DgM (l2p s)) (sym rvN) (digD-entM s (dbuf s ++ concat (ept s)))
    go : CrashC (uns c0 (rec s)) (rcd s' M) → Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
    go (inj₁ e) = old (extF g R' D' x M (trans (cong (λ m → okR g (suc x) D' (cur m)) e) (okR-lt g (suc x) D' c0 lt0)))
    go (inj₂ (inj₂ e)) = old (extF g R' D' x M (cong (λ m → okR g (suc x) D' (cur m)) e))
    go (inj₂ (inj₁ e)) with verD D' (digD s (dbuf s ++ concat (ept s))) in v
    ... | true  = new (cong cur e) v
    ... | false = old (extF g R' D' x M okF)
      where
        okF : okR g (suc x) D' (R' M) ≡ false
        okF rewrite e | ≡ᵇ-refl g | sym sx | ≡ᵇ-refl (suc x) = v

fi2-crash : ∀ {s t s' L M} → AR s t → (r : RI s) → LkC s L M → Img (fi2 M s) s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
fi2-crash {s} {t} {s'} arr r ip img with fi2-crash⁺ arr r ip img
... | t' , c , cm = t' , c , CRm⇒CR {s} {s'} {t'} cm

-- after the in-page commit's SYNC: the record is durable and verifies,
-- recovery yields the volatile L2P
fi3-view : ∀ {s L M} (r : RI s) → LkC s L M → rview (gen s) (fi3 M s) ≡ rec s ∷ RI.comm r
fi3-view {s} {L} {M} r ip@(lk , _ , lm , mn , mo) with RI.lkOK r L lk
... | x , ps , dd , dt , cs , ceq , sx = trans rv (trans (cong (_++ comm) (extT g R3 D3 x M okT)) (cong (_∷ comm) eR))
  where
    open RI r
    g = gen s
    D3 = λ p → cur (dat (fi3 M s) p)
    R3 = λ p → cur (rcd (fi3 M s) p)
    f3 : ∀ p c → dat (progMB s) p ≡ syn c → D3 p ≡ c
    f3 p c e = cong cur e
    view : map cur (dr (fi3 M s)) ≡ comm
    view = trans (map-cur-sync (dr s)) (trans (cong (map cur) (InP-dr r ip)) (map-cur-syn comm))
    cv : CmV g (smap s) (dat (progMB s)) (dlt g x ps true (dd , dt , L) ∷ cs)
    cv = subst (CmV g (smap s) (dat (progMB s))) ceq (RI.cmV (progMB-RI r))
    accC : acc g D3 comm ≡ comm
    accC = trans (cong (acc g D3) ceq) (trans (acc-hd D3 f3 x ps dd dt L cs cv) (sym ceq))
    abv : Above g (λ p → cur (rcd s p)) L
    abv = rcL x L (trans (cong (lkTop g) ceq) (lkTop-hd g x ps dd dt L cs))
    oth : ∀ q → L ≤ q → q ≢ M → RLt g (R3 q)
    oth q le ne = subst (RLt g) (sym (cong cur (upd-other (rcd s) (put (rec s) (rcd s M)) ne))) (abv q le)
    rv : rview g (fi3 M s) ≡ extAt g R3 D3 x M ++ comm
    rv = trans (cong (λ l → chn g R3 D3 (acc g D3 l)) view)
         (trans (cong (chn g R3 D3) accC) (trans (cong (λ l → extM g R3 D3 (lkOf l) ++ comm) ceq)
                (cong (_++ comm) (ext-at g R3 D3 x L M lm mo oth))))
    eR : R3 M ≡ rec s
    eR = cong (λ m → cur (sync m)) (upd-here (rcd s) M (put (rec s) (rcd s M)))
    vd : verD D3 (digD s (dbuf s ++ concat (ept s))) ≡ true
    vd = verD-ent D3 (λ p c e → cong cur e) _ (digD-ent s (dat (fl3 s)) (fl3-ent r) (dbuf s ++ concat (ept s)))
    okT : okR g (suc x) D3 (R3 M) ≡ true
    okT rewrite eR | ≡ᵇ-refl g | sym sx | ≡ᵇ-refl (suc x) = vd

fi3-rec : ∀ {s L M} (r : RI s) → LkC s L M → recMap (gen s) (RI.C r) (fi3 M s) ≐ l2p s
fi3-rec {s} r ip a =
  trans (cong (λ l → proj₁ (rp (gen s) l (st0 (RI.C r))) a) (fi3-view r ip)) (fresh-ip r ip a)

fi3-dgm : ∀ {s L M} (r : RI s) → LkC s L M → DgM (l2p s) (rview (gen s) (fi3 M s))
fi3-dgm {s} r ip = subst (DgM (l2p s)) (sym (fi3-view r ip)) (digD-entM s (dbuf s ++ concat (ept s)))

-- the record slots after it: durable, nothing newer than this generation
fi3-rsy : ∀ {s M} → RI s → ∀ p → Σ Cell λ c → rcd (fi3 M s) p ≡ syn c × RLt (suc (gen s)) c
fi3-rsy {s} {M} r p with p ≟ M
... | yes refl = rec s , cong sync (upd-here (rcd s) p (put (rec s) (rcd s p))) , ≤-refl
... | no ne with RI.rcOK r p
...   | c , e , lt = c , cong sync (trans (upd-other (rcd s) (put (rec s) (rcd s M)) ne) e) , lt

fi3-AR : ∀ {s t M} → AR s t → AR (fi3 M s) (tF t)
fi3-AR arr = let x = fl3-AR arr in ar (AR.vol x) (AR.stb x) (AR.cnt x)

fi3-ck-RI : ∀ {s L M} → RI s → LkC s L M → RI (ck3 (fi3 M s))
fi3-ck-RI {s} {L} {M} r ip = ck3-RI {u = fi3 M s} vOK sOK iOK eOK (λ _ → refl) refl refl (s≤s z≤n) (fi3-rsy r)
  where open RI (fl3-RI r)

-- The consolidation page appended and synced at once (`fiK`, `fi4`)

map-sync-syn' : ∀ cs → map sync (map syn cs) ≡ map syn cs
map-sync-syn' []       = refl
map-sync-syn' (c ∷ cs) = cong (syn c ∷_) (map-sync-syn' cs)

crashL-ss : ∀ xs → CrashL (map sync (map sync xs)) (map sync xs)
crashL-ss []       = []
crashL-ss (x ∷ xs) = refl ∷ crashL-ss xs

fi4-RI : ∀ {s L M} → (r : RI s) → LkC s L M → RI (fi4 M s)
fi4-RI {s} {L} {M} r ip@(lk , et , _ , lt , _) = record
  { C = C ; tents = [] ; comm = rec s ∷ comm
  ; slotL = cong (λ m → sync (sync m)) slotL
  ; slotO = PM-sync {P = Older g} (sync (cpO s)) (PM-sync {P = Older g} (cpO s) slotO)
  ; regEq = cong (syn (rec s) ∷_) (trans (cong (λ l → map sync (map sync l)) (InP-dr r ip))
                                     (trans (cong (map sync) (map-sync-syn' comm)) (map-sync-syn' comm)))
  ; tNC = [] ; gle = ≤-refl ∷ all-sync (all-sync gle)
  ; cmX = fresh-ip r ip
  ; cmP = subst (λ x → pend x < suc (ep s)) (sym (rstep-commit g (ep s) (dbuf s) {dgOf s} (rp g comm (st0 C)))) ≤-refl
  ; vm = λ a → refl
  ; vOK = RI.vOK r3 ; sOK = RI.sOK r3 ; iOK = λ p () ; eOK = RI.eOK r3
  ; tEq = refl
  ; cmV = inj₂ (ep s , dbuf s , dgOf s , refl , digD-ent s (dat (fl3 s)) (fl3-ent r) (dbuf s ++ concat (ept s)) ,
                subst (λ l → verT g (ep s) l comm ≡ true) (sym et) refl)
  ; rcOK = fi3-rsy r
  ; lkOK = λ { L' refl → ep s , dbuf s , digD s (dbuf s ++ concat (ept s)) , ept s , comm , refl , refl }
  ; rcN = rcN'
  ; rcL = λ x L' e p le → rcN' p (subst (_≤ p)
             (sym (just-snd (trans (sym (lkTop-hd g (ep s) (dbuf s) (digD s (dbuf s ++ concat (ept s))) (ept s) (nxt s) comm)) e)))
             le) }
  where
    open RI r
    g = gen s
    r3 = fl3-RI r
    rcN' : ∀ p → nxt s ≤ p → RLt g (cur (rcd (fi4 M s) p))
    rcN' p le = subst (RLt g) (sym (cong cur (upd-other (rcd s) (put (rec s) (rcd s M)) ne))) (rcN p le)
      where
        ne : p ≢ M
        ne refl = Data.Nat.Properties.n≮n M (Data.Nat.Properties.≤-trans lt le)

fi4-AR : ∀ {s t M} → AR s t → AR (fi4 M s) (tF t)
fi4-AR arr = let x = fl3-AR arr in ar (AR.vol x) (AR.stb x) (AR.cnt x)

-- a dead page on top of the region changes nothing recovery replays
rview-dead : ∀ g s' u c → (c ≡ erased ⊎ c ≡ junk) → map cur (dr s') ≡ c ∷ map cur (dr u) →
  (∀ p → cur (dat s' p) ≡ cur (dat u p)) → (∀ p → cur (rcd s' p) ≡ cur (rcd u p)) → rview g s' ≡ rview g u
rview-dead g s' u c dc ev d r =
  trans (chn-ext {λ p → cur (rcd s' p)} {λ p → cur (rcd u p)} {λ p → cur (dat s' p)} {λ p → cur (dat u p)} r d g
                 (acc g (λ p → cur (dat s' p)) (map cur (dr s'))))
        (cong (chn g (λ p → cur (rcd u p)) (λ p → cur (dat u p)))
              (trans (acc-ext d g (map cur (dr s'))) (trans (cong (acc g (λ p → cur (dat u p))) ev) (skip dc))))
  where
    skip : (c ≡ erased ⊎ c ≡ junk) → acc g (λ p → cur (dat u p)) (c ∷ map cur (dr u)) ≡ acc g (λ p → cur (dat u p)) (map cur (dr u))
    skip (inj₁ refl) = refl
    skip (inj₂ refl) = refl

-- A crash right before the consolidation page's SYNC: it landed (a crash
-- of the state after it) or not (recovery follows the link of the last
-- commit to the durable record); either way the volatile L2P.
fiK-crash⁺ : ∀ {s t s' L M} → AR s t → (r : RI s) → LkC s L M → Img (fiK M s) s' →
  Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
fiK-crash⁺ {s} {t} {s'} {L} {M} arr r ip img@(cD , cL , cO , cR , cI) with crashL-cons cR
... | h , rest , drEq , c0 , cR' = tF t , inj₁ refl , l2p s , inj₂ refl , go c0 , dok
  where
    open RI r
    g = gen s
    r4 = fi4-RI r ip
    dok : DOKs (dat s') (l2p s) (volatile t)
    dok = dok-crash cD (ri-dok r4 (AR.stb (fi4-AR {s} {t} {M} arr)))
    restEq : rest ≡ map sync (dr s)
    restEq = crashL-id (all-sync-IsSyn (dr s)) cR'
    landed : h ≡ syn (rec s) → RecTo s' (l2p s)
    landed e = crash-RI r4 (cD , cL , cO , cR4 , cI)
      where
        cR4 : CrashL (dr (fi4 M s)) (dr s')
        cR4 = subst (CrashL (dr (fi4 M s))) (sym (trans drEq (cong₂ _∷_ e restEq))) (refl ∷ crashL-ss (dr s))
    lost : (cur h ≡ erased ⊎ cur h ≡ junk) → RecTo s' (l2p s)
    lost dh = recto true g C pk sl' so' rs rg mx dm ro
      where
        sl' = crashC-eq (cong sync slotL) cL
        so' = crashC-PM {P = Older g} tt cO (PM-sync {P = Older g} (cpO s) slotO)
        pk = pick-slot true s' g C sl' so'
        rs = crashL-syn cR
        rg = crashL-PM tt cR ((tt , ≤-refl) ∷ all-sync gle)
        rv : rview g s' ≡ rec s ∷ comm
        rv = trans (rview-dead g s' (fi3 M s) (cur h) dh (cong (map cur) (trans drEq (cong (h ∷_) restEq)))
                               (λ p → cong cur (cD p)) (λ p → cong cur (cI p)))
                   (fi3-view r ip)
        mx : recMap g C s' ≐ l2p s
        mx a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) rv) (fresh-ip r ip a)
        dm : DgM (l2p s) (rview g s')
        dm = subst (DgM (l2p s)) (sym rv) (digD-entM s (dbuf s ++ concat (ept s)))
        ro = rc-cur {s'} (rc-crash {fiK M s} {s'} (fi3-rsy r) cI)
    go : CrashC (uns erased (rec s)) h → RecTo s' (l2p s)
    go (inj₁ e)        = lost (inj₁ (cong cur e))
    go (inj₂ (inj₁ e)) = landed e
    go (inj₂ (inj₂ e)) = lost (inj₂ (cong cur e))

fiK-crash : ∀ {s t s' L M} → AR s t → (r : RI s) → LkC s L M → Img (fiK M s) s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
fiK-crash {s} {t} {s'} arr r ip img with fiK-crash⁺ arr r ip img
... | t' , c , cm = t' , c , CRm⇒CR {s} {s'} {t'} cm

------------------------------------------------------------------------
-- Successful flush

-- both commits in the link's record slot (in-page and OOB)
lk-sim : ∀ {s t s' L M} → AR s t → RI s → LkC s L M → (s' ≡ ck3 (fi3 M s) ⊎ s' ≡ fi4 M s) →
  Σ State λ t' → okS (use flush) t t' × AR s' t' × RI s'
lk-sim {t = t} arr r ip (inj₁ refl) =
  tF t , (refl , refl , refl) , ck3-AR (fi3-AR arr) , fi3-ck-RI r ip
lk-sim {t = t} arr r ip (inj₂ refl) =
  tF t , (refl , refl , refl) , fi4-AR arr , fi4-RI r ip

flush-sim : ∀ {s t s'} → AR s t → RI s → okP (use flush) s s' →
  Σ State λ t' → okS (use flush) t t' × AR s' t' × RI s'
flush-sim {t = t} arr r (inj₁ refl) = tF t , (refl , refl , refl) , fl3-AR arr , fl3-RI r
flush-sim {t = t} arr r (inj₂ (inj₁ refl)) =
  tF t , (refl , refl , refl) , ck3-AR (fl3-AR arr) , fl3-ck-RI r
flush-sim {s} {t = t} arr r (inj₂ (inj₂ (inj₁ (L , ip , c)))) = lk-sim {L = L} {M = L} arr r (InP⇒LkC {s} {L} ip) c
flush-sim {s} {t = t} arr r (inj₂ (inj₂ (inj₂ (L , M , ip , c)))) = lk-sim {L = L} {M = M} arr r (OobP⇒LkC {s} {L} {M} ip) c

------------------------------------------------------------------------
-- Crashed flush

-- The tentative pages' part of a digest that verifies: they all landed.
verT-crash : ∀ g e pss {xs'} cs → CrashL (map (λ ps → uns erased (Tp g e ps)) pss) xs' →
  verT g e pss (map cur xs' ++ cs) ≡ true → map cur xs' ≡ map (Tp g e) pss
verT-crash g e []         cs []       _ = refl
verT-crash g e (ps ∷ pss) cs (inj₁ refl ∷ cx) ()
verT-crash g e (ps ∷ pss) cs (inj₂ (inj₂ refl) ∷ cx) ()
verT-crash g e (ps ∷ pss) {_ ∷ xs'} cs (inj₂ (inj₁ refl) ∷ cx) v
  rewrite isT-refl g e ps ε = cong (Tp g e ps ∷_) (verT-crash g e pss cs cx v)

-- The core of the one-sync commit: a crash right before the SYNC.  The
-- committed page landed and every page its digest covers holds what the
-- epoch wrote ⇒ recovery yields the volatile L2P (stable' = volatile);
-- otherwise it yields the stable one (stable' = stable).
fl2-crash⁺ : ∀ {s t s'} → AR s t → (r : RI s) → Img (fl2 s) s' →
  Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
fl2-crash⁺ {s} {t} {s'} arr r (cD , cL , cO , cR , cI) with crashL-cons cR
... | h , rest , drEq , c0 , cR' with crashL-++ (RI.tents r) (subst (λ l → CrashL l rest) (RI.regEq r) cR')
...   | xs' , ys' , restEq , cx , cy = go c0
  where
    open RI r
    g = gen s
    D' = λ p → cur (dat s' p)
    sl' = crashC-eq slotL cL
    so' = crashC-PM {P = Older g} tt cO slotO
    rs = crashL-syn cR
    rg = crashL-PM tt cR ((tt , ≤-refl) ∷ gle)
    pk = pick-slot true s' g C sl' so'
    L' = map cur xs' ++ comm
    rc' = rc-crash {fl2 s} {s'} rcOK cI
    ro = rc-cur {s'} rc'
    R' = λ p → cur (rcd s' p)
    rcs : ∀ p → cur (rcd s' p) ≡ cur (rcd s p)
    rcs = rcur-crash {fl2 s} {s'} rcOK cI
    rq : ∀ cs → acc g D' (map cur (dr s')) ≡ cs → (∀ x L → lkOf cs ≡ just (x , L) → Above g R' L) →
      rview g s' ≡ acc g D' (map cur (dr s'))
    rq cs e q = chn-quiet g R' D' _ (λ x L e' → q x L (trans (cong lkOf (sym e)) e'))
    ys≡ : ys' ≡ map syn comm
    ys≡ = crashL-id (all-map-syn comm) cy
    view : map cur (dr s') ≡ cur h ∷ L'
    view = trans (cong (map cur) (trans drEq (cong (h ∷_) (trans restEq (cong (xs' ++_) ys≡)))))
                 (cong (cur h ∷_) (trans (map-cur-++ xs' (map syn comm)) (cong (map cur xs' ++_) (map-cur-syn comm))))
    r1 = progMB-RI r
    fD : ∀ p c → dat (progMB s) p ≡ syn c → D' p ≡ c
    fD p c e = cong cur (crashD-eq e (cD p))
    accNC : acc g D' L' ≡ acc g D' comm
    accNC = acc-nc g D' (map cur xs') comm (all-cur (crashL-PM tt cx tNC))
    recOld : acc g D' (map cur (dr s')) ≡ acc g D' L' → recMap g C s' ≐ smap s
    qOld : ∀ x L → lkOf (acc g D' comm) ≡ just (x , L) → Above g R' L
    qOld x L e p le = subst (RLt g) (sym (rcs p)) (rcL x L (trans (sym (acc-lk D' fD comm (RI.cmV r1))) e) p le)
    rnO : acc g D' (map cur (dr s')) ≡ acc g D' L' → rview g s' ≡ acc g D' (map cur (dr s'))
    rnO e = rq (acc g D' comm) (trans e accNC) qOld
    recOld e a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) (trans (rnO e) (trans e accNC)))
                       (trans (cong (λ f → f a) (acc-cmv D' fD comm (st0 C) (RI.cmV r1))) (cmX a))
    dmOld : acc g D' (map cur (dr s')) ≡ acc g D' L' → DgM (smap s) (rview g s')
    dmOld e = subst (DgM (smap s)) (sym (trans (rnO e) (trans e accNC))) (cmv-dgm D' fD comm (RI.cmV r1))
    dOld : DOKs (dat s') (smap s) (stable t)
    dOld = dok-crash cD (ri-dok r1 (AR.stb (progMB-AR r arr)))
    old : acc g D' (map cur (dr s')) ≡ acc g D' L' → Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
    old e = t , inj₂ refl , smap s , inj₁ refl , recto true g C pk sl' so' rs rg (recOld e) (dmOld e) ro , dOld
    -- the commit verified
    tcur : map cur tents ≡ map (Tp g (ep s)) (ept s)
    tcur = trans (cong (map cur) tEq) (map-cur-T g (ep s) (ept s))
    dNew = crash-new {s} {t} {s'} arr r cD
    newC : ∀ dg → dg ≡ dgOf s → h ≡ syn (dlt g (ep s) (dbuf s) true dg) →
      verD D' (proj₁ dg) ∧ verT g (ep s) (proj₁ (proj₂ dg)) L' ≡ true → Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
    newC .(dgOf s) refl refl v with ∧-true (verD D' (proj₁ (dgOf s))) _ v
    ... | vd , vt = tF t , inj₁ refl , l2p s , inj₂ refl , recto true g C pk sl' so' rs rg mx dm ro , dNew vd
      where
        xs≡ : map cur xs' ≡ map (Tp g (ep s)) (ept s)
        xs≡ = verT-crash g (ep s) (ept s) comm (subst (λ l → CrashL l xs') tEq cx) vt
        accN : acc g D' (map cur (dr s')) ≡ cur h ∷ L'
        accN rewrite view | ≡ᵇ-refl g | v = refl
        mx : recMap g C s' ≐ l2p s
        rnN : rview g s' ≡ acc g D' (map cur (dr s'))
        rnN = rq (cur h ∷ L') accN
                 (λ x L e p le → subst (RLt g) (sym (rcs p))
                              (rcN p (subst (_≤ p) (sym (just-snd e)) le)))
        mx a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) (trans rnN accN))
          (trans (cong (λ x → proj₁ x a) (rstep-commit g (ep s) (dbuf s) {dgOf s} (rp g L' (st0 C))))
          (trans (cong (λ l → apply (dbuf s) (rbase (ep s) (rp g (l ++ comm) (st0 C))) a) (trans xs≡ (sym tcur)))
                 (fresh-epoch r a)))
        dm : DgM (l2p s) (rview g s')
        dm = subst (DgM (l2p s)) (sym (trans rnN accN)) (digD-entM s (dbuf s ++ concat (ept s)))
    go : CrashC (uns erased (dlt g (ep s) (dbuf s) true (dgOf s))) h → Σ State λ t' → crashS (use flush) t t' × CRm s s' t'
    go (inj₁ refl) = old (cong (acc g D') view)
    go (inj₂ (inj₂ refl)) = old (cong (acc g D') view)
    go (inj₂ (inj₁ refl)) with verD D' (proj₁ (dgOf s)) ∧ verT g (ep s) (ept s) L' in v
    ... | true  = newC (dgOf s) refl refl v
    ... | false = old accF
      where
        accF : acc g D' (map cur (dr s')) ≡ acc g D' L'
        accF rewrite view | ≡ᵇ-refl g | v = refl

-- both commits in the link's record slot (in-page and OOB)
fl2-crash : ∀ {s t s'} → AR s t → (r : RI s) → Img (fl2 s) s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
fl2-crash {s} {t} {s'} arr r img with fl2-crash⁺ arr r img
... | t' , c , cm = t' , c , CRm⇒CR {s} {s'} {t'} cm

lk-crash : ∀ {s t s' m} L M → AR s t → (r : RI s) → LkC s L M →
  (m ≡ fi2 M s ⊎ CkPt (fi3 M s) m ⊎ m ≡ fiK M s ⊎ m ≡ fi4 M s) → Img m s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
-- the commit: before its SYNC
lk-crash L M arr r ip (inj₁ refl) img = fi2-crash arr r ip img
-- the commit: during the full checkpoint after it
lk-crash {s} {t} L M arr r ip (inj₂ (inj₁ ck)) img =
  tF t , inj₁ refl , l2p s ,
  ck-crash {u = fi3 M s} (RI.C r) (RI.slotL r3) (RI.slotO r3) (all-sync-IsSyn (dr s)) (all-sync (RI.gle r))
           (λ p → tt) (fi3-rsy r) (fi3-rec r ip) (λ _ → refl) (fi3-dgm r ip) ck img ,
  dok-crash (proj₁ img) (dok-ck {u = fi3 M s} (ri-dok r3 (AR.stb (fl3-AR arr))) ck)
  where r3 = fl3-RI r
-- the commit: before the consolidation page's SYNC, and after it
lk-crash L M arr r ip (inj₂ (inj₂ (inj₁ refl))) img = fiK-crash arr r ip img
lk-crash {s} {t} L M arr r ip (inj₂ (inj₂ (inj₂ refl))) img =
  tF t , inj₁ refl , l2p s , crash-RI (fi4-RI r ip) img ,
  dok-crash (proj₁ img) (ri-dok (fi4-RI r ip) (AR.stb (fi4-AR {s} {t} {M} arr)))

flush-crash : ∀ {s t s'} → AR s t → RI s → crashP (use flush) s s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
-- before the SYNC
flush-crash arr r (m , inj₁ refl , img) = fl2-crash arr r img
-- after the commit
flush-crash {s} {t} arr r (m , inj₂ (inj₁ refl) , img) =
  tF t , inj₁ refl , l2p s , crash-RI (fl3-RI r) img ,
  dok-crash (proj₁ img) (ri-dok (fl3-RI r) (AR.stb (fl3-AR arr)))
-- during the full checkpoint
flush-crash {s} {t} arr r (m , inj₂ (inj₂ (inj₁ ck)) , img) =
  tF t , inj₁ refl , l2p s ,
  ck-crash {u = fl3 s} (RI.C r3) (RI.slotL r3) (RI.slotO r3) (all-sync-IsSyn (dr (fl2 s))) (RI.gle r3)
           (λ p → tt) (RI.rcOK r3) (ri-rec r3) (λ _ → refl) (ri-dgm r3) ck img ,
  dok-crash (proj₁ img) (dok-ck {u = fl3 s} (ri-dok r3 (AR.stb (fl3-AR arr))) ck)
  where r3 = fl3-RI r
-- in-page and OOB commits
flush-crash {s} arr r (m , inj₂ (inj₂ (inj₂ (inj₁ (L , ip , c)))) , img) = lk-crash L L arr r (InP⇒LkC {s} {L} ip) c img
flush-crash {s} arr r (m , inj₂ (inj₂ (inj₂ (inj₂ (L , M , ip , c)))) , img) = lk-crash L M arr r (OobP⇒LkC {s} {L} {M} ip) c img
