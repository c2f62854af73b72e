{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: PL's own steps (SCFTL.Impl.LazyChainModel)
-- and the chain's invariant `CInv` (SCFTL.Impl.LazyChainInv).
--
-- With `RL s x L` (recovery accepts the region's newest commit, epoch
-- x, link L: what P's RI gives of the region):
--
--   * `cinv-chainOf`: PL's backlog `chainOf s` (the records the walk
--     applies, from the flash) is the whole chain of the invariant;
--   * PL's steps that write no region page keep `CInv`: `pl-es` (the
--     erase PL's guard allows), `pl-wr`, `pl-rl` (a write or relocation,
--     unless it writes a tentative page, which goes after the
--     consolidation page), `pl-lazy` (the lazy commit, given P's `vOK`:
--     the chain with one record more);
--   * `pl-crash`: any crash outcome of a state with `CInv` whose region
--     still yields the newest commit: recovery's L2P (`recMapL`) is the
--     region's with the whole chain's pairs on top; `pl-fi2-crash`: at
--     the lazy commit's crash point, with or without the crashed record;
--   * the consolidation step (`kS`, PL's `konsS` for a nonempty chain:
--     `konsS-kS`): the consolidation page is accepted as the region's
--     newest commit (`kS-RL`), the chain afterwards is empty
--     (`kS-chainOf`, `kS-cinv`: `CInv` with no record, from the chain's
--     last link), and recovery's L2P is unchanged (`kS-recL`: the page
--     replays as the chain did).
--
-- Not proven: `RL` and P's RI across these steps (P's RI fails with a
-- chain), so no type A/B as obligations and no Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainSteps (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-reflexive; m<m+n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Properties using (++-assoc; ++-identityʳ)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Data.Empty using (⊥-elim)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (rp-++; map-cur-sync)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (use; flush; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- The region's newest commit recovery accepts: epoch x, link L

RLg : ℕ → St → ℕ → ℕ → Set
RLg g s x L = lkOf (acc g (Dof s) (map cur (dr s))) ≡ just (x , L)

RL : St → ℕ → ℕ → Set
RL s = RLg (gen s) s

pre-nil : ∀ g D k x → pre g D k x [] ≡ []
pre-nil g D zero    x = refl
pre-nil g D (suc k) x = refl

-- `cinv-chainOf`: PL's backlog is the invariant's whole chain
cinv-chainOf : ∀ {s x L rs y E} → CInv kc s x L rs y E → RL s x L → chainOf s ≡ rv rs
cinv-chainOf {s} {x} {L} {rs} ci hr =
  trans (cong (follow kc (gen s) (Rof s) (Dof s)) hr)
        (trans (follow-lay kc (Dof s) (ch-lay ci) (ch-abv ci))
               (cong rv (pre-all (gen s) (Dof s) kc x rs (ch-ver ci) (ch-bnd ci))))

avoid-++ : ∀ {p} xs ys → AvoidAll p (xs ++ ys) → AvoidAll p xs × AvoidAll p ys
avoid-++ []       ys a        = [] , a
avoid-++ (x ∷ xs) ys (a ∷ as) with avoid-++ xs ys as
... | l , r = (a ∷ l) , r

avoid-rv : ∀ {p} rs → AvoidAll p (rv rs) → AvoidAll p rs
avoid-rv []       a = []
avoid-rv (c ∷ cs) a with avoid-++ (rv cs) (c ∷ []) a
... | l , (ac ∷ []) = ac ∷ avoid-rv cs l

length-rv : ∀ rs → length (rv rs) ≡ length rs
length-rv []       = refl
length-rv (c ∷ cs) = trans (length-snoc (rv cs) c) (cong suc (length-rv cs))

------------------------------------------------------------------------
-- PL's steps that write no region page keep the invariant

-- `pl-es`: the erase PL's guard allows
pl-es : ∀ {s s' x L rs y E} → CInv kc s x L rs y E → RL s x L →
        okPL EraseGuard (use (regop es)) s s' → CInv kc s' x L rs y E
pl-es {rs = rs} ci hr (p , _ , (g , _) , refl) = cinv-esF p (avoid-rv rs (subst (AvoidAll p) (cinv-chainOf ci hr) g)) ci

-- `pl-wr`: a write keeps it, or writes a tentative page after the
-- consolidation page
pl-wr : ∀ {G s s' a d x L rs y E} → CInv kc s x L rs y E → okPL G (use (regop (w a d))) s s' →
        CInv kc s' x L rs y E ⊎ (Σ Bool λ f1 → s' ≡ emitT (konsS (optP f1 (wr0 a d s))))
pl-wr {a = a} {d} ci (inj₁ (_ , f1 , false , refl)) = inj₁ (cinv-optP f1 (cinv-wr0 a d ci))
pl-wr ci (inj₁ (_ , f1 , true , refl))  = inj₂ (f1 , refl)
pl-wr ci (inj₂ (_ , refl))              = inj₁ ci

-- `pl-rl`: a relocation: the same
pl-rl : ∀ {G s s' x L rs y E} → CInv kc s x L rs y E → okPL G (use (regop rl)) s s' →
        CInv kc s' x L rs y E ⊎ (Σ ℕ λ p → Σ Bool λ f1 → s' ≡ emitT (konsS (optP f1 (rl0 p s))))
pl-rl ci (inj₁ (_ , p , _ , inj₁ (_ , f1 , false , refl))) = inj₁ (cinv-optP f1 (cinv-rl0 p ci))
pl-rl ci (inj₁ (_ , p , _ , inj₁ (_ , f1 , true , refl)))  = inj₂ (p , f1 , refl)
pl-rl ci (inj₁ (_ , p , _ , inj₂ (_ , refl)))              = inj₁ (cinv-rlX p ci)
pl-rl ci (inj₂ (_ , refl))                                 = inj₁ ci

just-inj : ∀ {A : Set} {a b : A} → just a ≡ just b → a ≡ b
just-inj refl = refl

-- where the lazy commit PL allows puts its record: at the chain's last
-- link (in-page) or within the OOB run from it, below the active pointer
lazy-pos : ∀ {s M x L rs y E} → CInv kc s x L rs y E → Lazy s M → E ≤ M × M < E + omax × M < nxt s
lazy-pos {s} {M} ci (_ , inj₁ (lk , _ , lt , _)) with just-inj (trans (sym (ch-lnE ci)) lk)
... | refl = ≤-reflexive refl , m<m+n M (s≤s z≤n) , lt
lazy-pos {s} {M} ci (_ , inj₂ (L' , op)) with OobP⇒LkC {s} {L'} {M} op
... | lk , _ , le , mn , lt with just-inj (trans (sym (ch-lnE ci)) lk)
...   | refl = le , lt , mn

lazy-room : ∀ {s M x L rs y E} → CInv kc s x L rs y E → RL s x L → Lazy s M → length rs < kc
lazy-room {rs = rs} ci hr lz = subst (λ n → n < kc) (trans (cong length (cinv-chainOf ci hr)) (length-rv rs)) (proj₁ lz)

-- `pl-lazy`: the lazy commit PL allows (room in the chain; in-page at
-- the link, or OOB from it), given P's `vOK`: one record more
pl-lazy : ∀ {s M x L rs y E} → VOKn s → CInv kc s x L rs y E → RL s x L → Lazy s M →
          CInv kc (fiL M s) x L (rs ++ rec s ∷ []) (suc y) (nxt s)
pl-lazy vo ci hr lz with lazy-pos ci lz
... | le , lt , mn = cinv-fiL vo le lt mn (lazy-room ci hr lz) ci

------------------------------------------------------------------------
-- Crashes: recovery's L2P is the region's with the whole chain

-- the chain (newest first) replayed over a region whose replay ends
-- with nothing pending
chain-over : ∀ g cs st M z rs → Recs g rs → rp g cs st ≡ (M , z , M) →
             proj₁ (rp g (rv rs ++ cs) st) ≡ apply (cpairs (rv rs)) M
chain-over g cs st M z rs r e with rp-recs M z (recs-rv r)
... | w' , e' = trans (cong proj₁ (rp-++ g (rv rs) cs st))
                      (trans (cong (λ t → proj₁ (rp g (rv rs) t)) e) (cong proj₁ e'))

-- the accepted region of a flash and its replay's end
AccTop : ℕ → Map → St → Map → ℕ → Set
AccTop g C s M0 z = rp g (acc g (Dof s) (map cur (dr s))) (st0 C) ≡ (M0 , z , M0)

acc-top′ : ∀ g C s → Σ Map λ M0 → Σ ℕ λ z → AccTop g C s M0 z
acc-top′ g C s = acc-top g (Dof s) (map cur (dr s)) C

-- `pl-crash`: a crash of a state with `CInv` whose crashed region still
-- yields the newest commit: recovery's L2P is the region's (M0) with
-- every record's pairs on top
pl-crash : ∀ {s s' x L rs y E} C → CInv kc s x L rs y E → Img s s' → RLg (gen s) s' x L →
           ∀ M0 z → AccTop (gen s) C s' M0 z → recMapL kc (gen s) C s' ≡ apply (cpairs (rv rs)) M0
pl-crash {s} {s'} {x} {L} {rs} C ci img hr' M0 z e =
  trans (cong (λ l → proj₁ (rp (gen s) (l ++ acc (gen s) (Dof s') (map cur (dr s'))) (st0 C)))
              (trans (cong (follow kc (gen s) (Rof s') (Dof s')) hr') (cinv-crash {kc} {s} {s'} ci img)))
        (chain-over (gen s) _ (st0 C) M0 z rs (lay-recs (ch-lay ci)) e)

-- `pl-fi2-crash`: the lazy commit's crash point (before its SYNC): the
-- region's L2P with the whole chain, or with the chain and the crashed
-- record
pl-fi2-crash : ∀ {s s' M x L rs y E} C → CInv kc s x L rs y E → RL s x L → Lazy s M →
               Img (fi2 M s) s' → RLg (gen s) s' x L →
               ∀ M0 z → AccTop (gen s) C s' M0 z →
               recMapL kc (gen s) C s' ≡ apply (cpairs (rv rs)) M0
             ⊎ recMapL kc (gen s) C s' ≡ apply (cpairs (rv (rs ++ rec s ∷ []))) M0
pl-fi2-crash {s} {s'} {M} {x} {L} {rs} {y} {E} C ci hr lz img hr' M0 z e with lazy-pos ci lz
... | le , lt , mn = go (cinv-fi2-crash {kc} {s} {s'} {x} {L} {rs} {y} {E} {M} le lt mn (lazy-room ci hr lz) ci img)
  where
    F = follow kc (gen s) (Rof s') (Dof s') (just (x , L))
    cs' = acc (gen s) (Dof s') (map cur (dr s'))
    at : ∀ {l} → F ≡ l → recMapL kc (gen s) C s' ≡ proj₁ (rp (gen s) (l ++ cs') (st0 C))
    at e' = cong (λ l → proj₁ (rp (gen s) (l ++ cs') (st0 C))) (trans (cong (follow kc (gen s) (Rof s') (Dof s')) hr') e')
    go : F ≡ rv rs ⊎ F ≡ rv (rs ++ rec s ∷ []) →
         recMapL kc (gen s) C s' ≡ apply (cpairs (rv rs)) M0
       ⊎ recMapL kc (gen s) C s' ≡ apply (cpairs (rv (rs ++ rec s ∷ []))) M0
    go (inj₁ e') = inj₁ (trans (at e') (chain-over (gen s) cs' (st0 C) M0 z rs (lay-recs (ch-lay ci)) e))
    go (inj₂ e') = inj₂ (trans (at e') (chain-over (gen s) cs' (st0 C) M0 z (rs ++ rec s ∷ [])
                                           (recs-++ (lay-recs (ch-lay ci)) (_ ∷ [])) e))

------------------------------------------------------------------------
-- The consolidation step: PL's `konsS` for a nonempty chain

-- the newest record of a chain as written carries its last epoch id and link
lay-last : ∀ {g R x L rs y E} → LayP g R x L rs y E → rs ≢ [] → ∀ zs → lkOf (rv rs ++ zs) ≡ just (y , E)
lay-last end ne zs = ⊥-elim (ne refl)
lay-last (rec∷ _ _ _ end) ne zs = refl
lay-last (rec∷ {rs = r ∷ rs'} _ _ _ lay@(rec∷ _ _ _ _)) ne zs =
  trans (cong lkOf (++-assoc (rv (r ∷ rs')) (_ ∷ []) zs)) (lay-last lay (λ ()) _)

konsFor-just : ∀ g cs y E → lkOf cs ≡ just (y , E) → konsFor g cs ≡ just (kons g y ([] , [] , E) cs)
konsFor-just g cs y E e rewrite e = refl

-- the consolidation page of the invariant's chain, and the state after
-- it is programmed and synced
konsOfCh : ℕ → ℕ → ℕ → List Cell → Cell
konsOfCh g y E rs = kons g y ([] , [] , E) (rv rs)

kS : St → Cell → St
kS s K = syncAll (record s { dr = uns erased K ∷ dr s })

-- `konsS-kS`: PL's step is that
konsS-kS : ∀ {s x L rs y E} → CInv kc s x L rs y E → RL s x L → rs ≢ [] →
           konsS s ≡ kS s (konsOfCh (gen s) y E rs)
konsS-kS {s} {rs = rs} {y} {E} ci hr ne =
  cong (λ m → konsX m s)
       (trans (cong (konsFor (gen s)) (cinv-chainOf ci hr))
              (konsFor-just (gen s) (rv rs) y E (trans (cong lkOf (sym (++-identityʳ (rv rs)))) (lay-last (ch-lay ci) ne []))))

okC-kons : ∀ g y E cs' D cs → okC g D (kons g y ([] , [] , E) cs') cs ≡ true
okC-kons g y E cs' D cs rewrite eqb-refl g = refl

acc-kons : ∀ g y E cs' D cs → acc g D (kons g y ([] , [] , E) cs' ∷ cs) ≡ kons g y ([] , [] , E) cs' ∷ cs
acc-kons g y E cs' D cs rewrite okC-kons g y E cs' D cs = refl

-- the region after the step: the consolidation page on top, accepted
kS-acc : ∀ s y E cs' → let K = kons (gen s) y ([] , [] , E) cs' in
         acc (gen s) (Dof (kS s K)) (map cur (dr (kS s K))) ≡ K ∷ map cur (dr s)
kS-acc s y E cs' = trans (cong (acc (gen s) (Dof s) ∘ (kons (gen s) y ([] , [] , E) cs' ∷_)) (map-cur-sync (dr s)))
                         (acc-kons (gen s) y E cs' (Dof s) (map cur (dr s)))
  where open import Function.Base using (_∘_)

-- `kS-RL`: the consolidation page is the region's newest commit
kS-RL : ∀ s y E cs' → RL (kS s (kons (gen s) y ([] , [] , E) cs')) y E
kS-RL s y E cs' = cong lkOf (kS-acc s y E cs')

-- `kS-chainOf`: nothing is left of the chain
kS-chainOf : ∀ {s x L rs y E} → CInv kc s x L rs y E → ∀ cs' → chainOf (kS s (kons (gen s) y ([] , [] , E) cs')) ≡ []
kS-chainOf {s} {y = y} {E} ci cs' =
  trans (cong (follow kc (gen s) (Rof s) (Dof s)) (kS-RL s y E cs'))
        (trans (follow-lay kc (Dof s) end (ch-abv ci)) (cong rv (pre-nil (gen s) (Dof s) kc y)))

-- `kS-cinv`: the invariant with an empty chain from the chain's last link
kS-cinv : ∀ {s x L rs y E} → CInv kc s x L rs y E → ∀ K → CInv kc (kS s K) y E [] y E
kS-cinv ci K = cinv end (ch-abv ci) [] [] [] [] (λ p → refl) z≤n (ch-lnE ci) (ch-epY ci) (ch-enx ci)

-- `kS-recL`: recovery's L2P is unchanged: the consolidation page
-- replays as the chain did (the region accepted as a whole: no
-- tentative page above its newest commit, as when the chain began)
kS-recL : ∀ {s x L rs y E} C → CInv kc s x L rs y E → RL s x L →
          acc (gen s) (Dof s) (map cur (dr s)) ≡ map cur (dr s) →
          recMapL kc (gen s) C (kS s (konsOfCh (gen s) y E rs)) ≡ recMapL kc (gen s) C s
kS-recL {s} {x} {L} {rs} {y} {E} C ci hr ra with acc-top (gen s) (Dof s) (map cur (dr s)) C
... | M , z , e =
  trans (cong (λ l → proj₁ (rp g (chnL kc g (Rof s) (Dof s) l) (st0 C))) (kS-acc s y E (rv rs)))
        (trans (cong (λ l → proj₁ (rp g (l ++ K ∷ cs) (st0 C)))
                     (trans (cong (follow kc g (Rof s) (Dof s)) (refl {x = just (y , E)}))
                            (trans (follow-lay kc (Dof s) end (ch-abv ci)) (cong rv (pre-nil g (Dof s) kc y)))))
               (trans (kons-chain kc (Dof s) cs (st0 C) M z y ([] , [] , E) (ch-lay ci) (ch-abv ci)
                                  (trans (cong lkOf (sym ra)) hr) (subst (λ l → rp g l (st0 C) ≡ (M , z , M)) ra e)
                                  (ch-ver ci) (ch-bnd ci))
                      (cong (λ l → proj₁ (rp g (chnL kc g (Rof s) (Dof s) l) (st0 C))) (sym ra))))
  where
    g = gen s
    cs = map cur (dr s)
    K = konsOfCh g y E rs
