{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy consolidation page on P's states: the lazy in-page
-- / OOB commit `fiL` (P's `fi3`, the record in the record slot of page
-- M and one SYNC, whose link continues the chain: `lnk := just (nxt s)`,
-- no consolidation page yet), and recovery's walk along the chain
-- (SCFTL.Impl.LazyChain's `follow`, `chnL`) on P's record slots and
-- data pages:
--
--   * `fiL-lay`: the step appends its record to the chain as written
--     (`LayP`), nothing of the generation past its link;
--   * `fi2-crash-walk`: a crash right before its SYNC (P's `fi2` point,
--     every other record slot durable, `RI.rcOK`) leaves a flash whose
--     walk returns the verified prefix of the chain before the step or
--     of the chain with the step's record, for any data pages;
--   * `fi2-crash-rec`: with the durable records verifying, recovery's
--     L2P (`recMapL`: the accepted region, then the chain) is the one
--     after the last SYNC'd record or after the crashed one;
--   * `fiL-rec`: without a crash, recovery's L2P after any number of
--     lazy commits is the one after a prefix of the chain
--     (`chain-prefix`), all of it when every record verifies;
--   * `fiL-AR`: P's abstraction relation after the step, with S's
--     flush (as P's `fi3-AR`); `fiL-rec1`: the first record of a chain
--     is recovered by P's own one-link recovery (`fi3-rec`);
--   * `crash-between`: a crash between records (record slots and the
--     pages the chain names durable) recovers the whole chain;
--     `wr0-recL`, `emitT-recL`: later writes and tentative pages leave
--     recovery's view of the chain as it is;
--   * the erase guard the chain needs (SCFTL.Impl.LazyChainUnguarded):
--     `AvoidAll`, `ver-erase`, `erase-ver`: erasing a page no chain
--     record names keeps every record verifying;
--   * the consolidation page with the region commit that ends the
--     chain (`flK2`, `flK3`, one SYNC) and its replay (`flK-replay`);
--     the code's scan rule for chains inside the region (`rpA`,
--     `recMapM`), evaluated in SCFTL.Impl.LazyChainExample, and its
--     replay for a torn consolidation page under a landed commit
--     (`scan-torn-kons`) and for both landed (`scan-kons`).
--
-- Not proven here: an invariant (RI) for states with an unconsolidated
-- chain, so neither `Ver` (the durable records verify) nor full type A
-- of `fiL`, nor type B; every crash outcome of `flK2` (its torn
-- consolidation page needs the scan rule: `scan-torn-kons`); `fiL` and `flK3`
-- as steps of P; Theorem 1 for P with the lazy chain.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainP (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                             (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_)
open import Data.Nat.Properties using (<⇒≤)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Data.Bool.Base using (true; false)
open import Relation.Nullary using (yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (upd-here; upd-other; okR-ext; All; Ent; verD-ent)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_
open import SCFTL.Spec Data d0 amax wmax using (Addr)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (AR; RI; ar)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (fi3-AR; fi3-rec; tF; digD-ent)
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_ using (cur-progm)

-- the record slots and data pages as recovery reads them
Rof Dof : St → ℕ → Cell
Rof s p = cur (rcd s p)
Dof s p = cur (dat s p)

-- The lazy commit (in-page: M = L, the link; OOB: M the run's last
-- page): P's `fi3 M` (merge buffer and record in M's slot, one SYNC, the
-- epoch ended), whose link continues the chain to the next page, where
-- the next epoch's first page and record go; the consolidation page is
-- left for later (delta.rs: the record joins the backlog).
fiL : ℕ → St → St
fiL M s = record (fi3 M s) { lnk = just (nxt s) }

-- recovery's L2P with the chain: the accepted region, then the chain
-- from its newest commit's link, at most k records (MAX_CHAIN)
recMapL : ℕ → ℕ → Map → St → Map
recMapL k g C s = proj₁ (rp g (chnL k g (Rof s) (Dof s) (acc g (Dof s) (map cur (dr s)))) (st0 C))

-- Type A's abstraction relation for the lazy commit: the read image,
-- the stable image and the counter are P's `fi3`'s (the link is not
-- read), so after it P's AR holds with S's flush.
fiL-AR : ∀ {s t M} → AR s t → AR (fiL M s) (tF t)
fiL-AR {s} {t} {M} arr = let x = fi3-AR {s} {t} {M} arr in ar (AR.vol x) (AR.stb x) (AR.cnt x)

-- The first record of a chain (the lazy commit right after a region
-- commit, from a state with P's invariant RI): P's recovery, one link,
-- recovers the flush's L2P (P's `fi3-rec`; the link is not read).
fiL-rec1 : ∀ {s L M} (r : RI s) → LkC s L M → ∀ a → recMap (gen s) (RI.C r) (fiL M s) a ≡ l2p s a
fiL-rec1 {s} {L} {M} r ip = fi3-rec {s} {L} {M} r ip

cur-sync : ∀ m → cur (sync m) ≡ cur m
cur-sync (syn c)   = refl
cur-sync (uns o n) = refl

fiL-at : ∀ M s → Rof (fiL M s) M ≡ rec s
fiL-at M s = cong (λ m → cur (sync m)) (upd-here (rcd s) M (put (rec s) (rcd s M)))

fiL-other : ∀ M s p → p ≢ M → Rof (fiL M s) p ≡ Rof s p
fiL-other M s p ne = trans (cong (λ m → cur (sync m)) (upd-other (rcd s) (put (rec s) (rcd s M)) ne))
                           (cur-sync (rcd s p))

-- the step's record with the next epoch id of the chain
rec-y : ∀ s {y} → ep s ≡ suc y →
        rec s ≡ rc (gen s) (suc y) (dbuf s) (digD s (dbuf s Data.List.Base.++ Data.List.Base.concat (ept s))) (ept s) (nxt s)
rec-y s e = cong (λ z → dlt (gen s) z (dbuf s) true (dgOf s)) e

-- `fiL-lay`: the lazy commit with its record in page M (E ≤ M < E +
-- omax, M < nxt: P's `LkC`, E the chain's last link) appends the record
-- to the chain; nothing of the generation past its link
fiL-lay : ∀ {s x L rs y E M} → E ≤ M → M < E + omax → M < nxt s → ep s ≡ suc y →
          LayP (gen s) (Rof s) x L rs y E → Above (gen s) (Rof s) E →
          LayP (gen s) (Rof (fiL M s)) x L (rs ++ rec s ∷ []) (suc y) (nxt s) × Above (gen s) (Rof (fiL M s)) (nxt s)
fiL-lay {s} {x} {L} {rs} {y} {E} {M} le lt mn ey lay ab =
  subst (λ c → LayP (gen s) (Rof (fiL M s)) x L (rs ++ c ∷ []) (suc y) (nxt s) × Above (gen s) (Rof (fiL M s)) (nxt s))
        (sym (rec-y s ey))
        (lay-new lay ab le lt mn {R' = Rof (fiL M s)} (fiL-other M s) (trans (fiL-at M s) (rec-y s ey)))

-- the outcome of the crashed record slot, and the others unchanged
module _ {s s' : St} {M : ℕ} (dS : ∀ p → rcd s p ≡ syn (cur (rcd s p)))
         (cr : ∀ p → CrashC (rcd (fi2 M s) p) (rcd s' p)) where

  crash-oth : ∀ p → p ≢ M → Rof s' p ≡ Rof s p
  crash-oth p ne = cong cur (subst (λ m → CrashC m (rcd s' p)) (dS p)
                     (subst (λ m → CrashC m (rcd s' p)) (upd-other (rcd s) (put (rec s) (rcd s M)) ne) (cr p)))

  crash-at : Rof s' M ≡ Rof s M ⊎ Rof s' M ≡ rec s ⊎ Rof s' M ≡ junk
  crash-at with subst (λ m → CrashC m (rcd s' M)) (upd-here (rcd s) M (put (rec s) (rcd s M))) (cr M)
  ... | inj₁ e        = inj₁ (trans (cong cur e) (cong dur (dS M)))
  ... | inj₂ (inj₁ e) = inj₂ (inj₁ (cong cur e))
  ... | inj₂ (inj₂ e) = inj₂ (inj₂ (cong cur e))

  -- the chain before the step: its last link E, the record page M
  module _ {x L : ℕ} {rs : List Cell} {y E : ℕ} (le : E ≤ M) (lt : M < E + omax) (mn : M < nxt s)
           (ey : ep s ≡ suc y) (lay : LayP (gen s) (Rof s) x L rs y E) (ab : Above (gen s) (Rof s) E) where

    -- the crashed flash holds the chain before the step or the chain
    -- with the step's record
    crash-lay : (LayP (gen s) (Rof s') x L rs y E × Above (gen s) (Rof s') E)
              ⊎ (LayP (gen s) (Rof s') x L (rs ++ rec s ∷ []) (suc y) (nxt s) × Above (gen s) (Rof s') (nxt s))
    crash-lay with crash-at
    ... | inj₁ e = inj₁ (lay-old {ps = []} {dd = []} {dt = []} lay ab le lt mn crash-oth
                           (subst (RLt (gen s)) (sym e) (ab M le)))
    ... | inj₂ (inj₁ e) =
      inj₂ (subst (λ c → LayP (gen s) (Rof s') x L (rs ++ c ∷ []) (suc y) (nxt s) × Above (gen s) (Rof s') (nxt s))
                  (sym (rec-y s ey)) (lay-new lay ab le lt mn crash-oth (trans e (rec-y s ey))))
    ... | inj₂ (inj₂ e) = inj₁ (lay-old {ps = []} {dd = []} {dt = []} lay ab le lt mn crash-oth
                                  (subst (RLt (gen s)) (sym e) tt))

    -- `fi2-crash-walk`: recovery's walk on the crashed flash, any data pages
    fi2-crash-walk : ∀ k → follow k (gen s) (Rof s') (Dof s') (just (x , L)) ≡ rv (pre (gen s) (Dof s') k x rs)
                         ⊎ follow k (gen s) (Rof s') (Dof s') (just (x , L)) ≡ rv (pre (gen s) (Dof s') k x (rs ++ rec s ∷ []))
    fi2-crash-walk k with crash-lay
    ... | inj₁ (l , a) = inj₁ (follow-lay k (Dof s') l a)
    ... | inj₂ (l , a) = inj₂ (follow-lay k (Dof s') l a)

    -- `fi2-crash-rec`: with the durable records verifying on the crashed
    -- data pages and the chain below the bound, recovery's L2P is the
    -- region's (M0) with the records up to the last SYNC, or with the
    -- crashed record too: the state after the last SYNC or the flush's
    fi2-crash-rec : ∀ k C M0 z → rp (gen s) (acc (gen s) (Dof s') (map cur (dr s'))) (st0 C) ≡ (M0 , z , M0) →
                    lkOf (acc (gen s) (Dof s') (map cur (dr s'))) ≡ just (x , L) →
                    Ver (gen s) (Dof s') x rs → length rs < k →
                    recMapL k (gen s) C s' ≡ apply (cpairs (rv rs)) M0
                  ⊎ recMapL k (gen s) C s' ≡ apply (cpairs (rv (rs ++ rec s ∷ []))) M0
    fi2-crash-rec k C M0 z e lk v lk< with crash-lay
    ... | inj₁ (l , a) =
      inj₁ (trans (chain-replay k (Dof s') _ (st0 C) M0 z l a lk e)
                  (cong (λ t → apply (cpairs (rv t)) M0) (pre-all (gen s) (Dof s') k x rs v (<⇒≤ lk<))))
    ... | inj₂ (l , a) with pre-snoc (gen s) (Dof s') k x rs (rec s) v lk<
    ...   | inj₁ e' = inj₁ (trans (chain-replay k (Dof s') _ (st0 C) M0 z l a lk e)
                                  (cong (λ t → apply (cpairs (rv t)) M0) e'))
    ...   | inj₂ e' = inj₂ (trans (chain-replay k (Dof s') _ (st0 C) M0 z l a lk e)
                                  (cong (λ t → apply (cpairs (rv t)) M0) e'))

-- `fiL-rec`: after the lazy commit (no crash), recovery's L2P is the
-- region's with a prefix of the chain, the step's record included
fiL-rec : ∀ {s x L rs y E M} → E ≤ M → M < E + omax → M < nxt s → ep s ≡ suc y →
          LayP (gen s) (Rof s) x L rs y E → Above (gen s) (Rof s) E →
          ∀ k C M0 z → let u = fiL M s in
          rp (gen s) (acc (gen s) (Dof u) (map cur (dr u))) (st0 C) ≡ (M0 , z , M0) →
          lkOf (acc (gen s) (Dof u) (map cur (dr u))) ≡ just (x , L) →
          Σ ℕ λ j → recMapL k (gen s) C u ≡ apply (cpairs (rv (take j (rs ++ rec s ∷ [])))) M0
fiL-rec {s} {M = M} le lt mn ey lay ab k C M0 z e lk with fiL-lay {s} {M = M} le lt mn ey lay ab
... | l , a = chain-prefix k (Dof (fiL M s)) _ (st0 C) M0 z l a lk e

-- the same with every record verifying, the chain within the bound:
-- the whole chain
fiL-rec-all : ∀ {s x L rs y E M} → E ≤ M → M < E + omax → M < nxt s → ep s ≡ suc y →
              LayP (gen s) (Rof s) x L rs y E → Above (gen s) (Rof s) E →
              ∀ k C M0 z → let u = fiL M s in
              rp (gen s) (acc (gen s) (Dof u) (map cur (dr u))) (st0 C) ≡ (M0 , z , M0) →
              lkOf (acc (gen s) (Dof u) (map cur (dr u))) ≡ just (x , L) →
              Ver (gen s) (Dof u) x (rs ++ rec s ∷ []) → length (rs ++ rec s ∷ []) ≤ k →
              recMapL k (gen s) C u ≡ apply (cpairs (rv (rs ++ rec s ∷ []))) M0
fiL-rec-all {s} {x} {rs = rs} {M = M} le lt mn ey lay ab k C M0 z e lk v lek with fiL-lay {s} {M = M} le lt mn ey lay ab
... | l , a = trans (chain-replay k (Dof (fiL M s)) _ (st0 C) M0 z l a lk e)
                    (cong (λ t → apply (cpairs (rv t)) M0) (pre-all (gen s) (Dof (fiL M s)) k x (rs ++ rec s ∷ []) v lek))

------------------------------------------------------------------------
-- The guard the lazy chain needs on GC's erase (the finding of
-- SCFTL.Impl.LazyChainUnguarded): erase no page a record of the chain
-- names.  With it, an erase (and any crash outcome of the erased page)
-- keeps every record of the chain verifying.

-- the data entries of a record's digest
digOf : Cell → List (ℕ × Data × Addr)
digOf (dlt _ _ _ _ (dd , _ , _)) = dd
digOf _                          = []

-- no entry names page p
data Avoid (p : ℕ) : List (ℕ × Data × Addr) → Set where
  []  : Avoid p []
  _∷_ : ∀ {q d a dd} → q ≢ p → Avoid p dd → Avoid p ((q , d , a) ∷ dd)

-- no record of the chain names page p
data AvoidAll (p : ℕ) : List Cell → Set where
  []  : AvoidAll p []
  _∷_ : ∀ {c cs} → Avoid p (digOf c) → AvoidAll p cs → AvoidAll p (c ∷ cs)

verD-avoid : ∀ D p c dd → Avoid p dd → verD (D [ p ≔ c ]) dd ≡ verD D dd
verD-avoid D p c []                  []        = refl
verD-avoid D p c ((q , d , a) ∷ dd) (ne ∷ av) rewrite upd-other D c ne | verD-avoid D p c dd av = refl

okR-avoid : ∀ g x D p c' c → Avoid p (digOf c) → okR g x (D [ p ≔ c' ]) c ≡ okR g x D c
okR-avoid g x D p c' (dlt h y ps true (dd , dt , L)) av rewrite verD-avoid D p c' dd av = refl
okR-avoid g x D p c' (dlt h y ps false _) av = refl
okR-avoid g x D p c' erased      av = refl
okR-avoid g x D p c' junk        av = refl
okR-avoid g x D p c' (dcell _ _) av = refl
okR-avoid g x D p c' (cpt _ _)   av = refl

ver-ext : ∀ {g D D' x rs} → (∀ p → D p ≡ D' p) → Ver g D x rs → Ver g D' x rs
ver-ext e []      = []
ver-ext {g} {D} {D'} {x} {c ∷ _} e (o ∷ v) = trans (sym (okR-ext e g (suc x) c)) o ∷ ver-ext e v

-- `ver-erase`: page p changed to anything (erased, or whatever a crash
-- leaves of an unsynced erase): every record that avoids it still verifies
ver-erase : ∀ {g D x rs} p c → AvoidAll p rs → Ver g D x rs → Ver g (D [ p ≔ c ]) x rs
ver-erase p c []         []      = []
ver-erase {g} {D} {x} {r ∷ _} p c (av ∷ avs) (o ∷ v) = trans (okR-avoid g (suc x) D p c r av) o ∷ ver-erase p c avs v

-- on P's states: page p of the data pages replaced by any content (the
-- guarded erase `esF p` landed, not landed, or torn), the others as they
-- are: the chain keeps verifying
erase-ver : ∀ {g x rs} s p c' → AvoidAll p rs → Ver g (Dof s) x rs →
            Ver g (λ q → cur ((dat s [ p ≔ syn c' ]) q)) x rs
erase-ver {g} {x} {rs} s p c' avs v = ver-ext pt (ver-erase p c' avs v)
  where
    pt : ∀ q → (Dof s [ p ≔ c' ]) q ≡ cur ((dat s [ p ≔ syn c' ]) q)
    pt q with q Data.Nat.Properties.≟ p
    ... | yes refl rewrite upd-here (Dof s) q c' | upd-here (dat s) q (syn c') = refl
    ... | no ne rewrite upd-other (Dof s) c' ne | upd-other (dat s) (syn c') ne = refl

------------------------------------------------------------------------
-- The consolidation page as the code writes it: before the next region
-- page, with the region commit that ends the chain, one SYNC (delta.rs:
-- the backlog's page programmed before the committed page).  Only for a
-- flush whose epoch wrote no tentative page (otherwise the consolidation
-- page goes before the epoch's first tentative page: not modelled).
-- `flK2 y E bk s`: the merge buffer, the consolidation page of the
-- backlog bk (newest first; epoch id y of the chain's last record, no
-- data entries, link E: the chain's last link), then the committed page,
-- programmed; `flK3`: the SYNC and the end of the epoch, as P's `fl3`.
konsOf : St → ℕ → ℕ → List Cell → Cell
konsOf s y E bk = kons (gen s) y ([] , [] , E) bk

cmtOf : St → Cell
cmtOf s = dlt (gen s) (ep s) (dbuf s) true (dgOf s)

flK2 flK3 : ℕ → ℕ → List Cell → St → St
flK2 y E bk s = let u = fl1 s in
  record u { dr = uns erased (cmtOf s) ∷ uns erased (konsOf s y E bk) ∷ dr u }
flK3 y E bk s = let u = syncAll (flK2 y E bk s) in
  record u { smap = l2p u ; dbuf = [] ; ept = [] ; ers = λ p → ers u p Data.Bool.Base.∨ inv u p
           ; inv = λ _ → false ; wcnt = 0 ; gcnt = 0 ; ep = suc (ep s) ; lnk = just (nxt s) }

-- `flK-replay`: with both pages on the region, its replay is the
-- region's, then the backlog's pairs, then the epoch's: what the walk
-- over the chain and then the commit give (`kons-chain`)
flK-replay : ∀ s y E bk cs st M z → Recs (gen s) bk → rp (gen s) cs st ≡ (M , z , M) →
             proj₁ (rp (gen s) (cmtOf s ∷ konsOf s y E bk ∷ cs) st) ≡ apply (dbuf s) (apply (cpairs bk) M)
flK-replay s y E bk cs st M z r e with rp-recs M z r
... | w , e' rewrite e | rstep-c (gen s) y (cpairs bk) ([] , [] , E) M z
                   | rstep-c (gen s) (ep s) (dbuf s) (dgOf s) (apply (cpairs bk) M) y = refl

------------------------------------------------------------------------
-- A crash between records: after the chain's last SYNC, while later
-- operations run (writes, tentative pages, GC, programs of the merge
-- buffer), no record slot changes and no page a chain record names is
-- programmed or erased (the erase guard).  From any crash outcome of
-- such a state recovery's walk returns the whole chain: the state at
-- the last SYNC.

-- every page the data entries name is durable
data DurDig (D : ℕ → MC) : List (ℕ × Data × Addr) → Set where
  []  : DurDig D []
  _∷_ : ∀ {q d a dd} → D q ≡ syn (cur (D q)) → DurDig D dd → DurDig D ((q , d , a) ∷ dd)

data DurAll (D : ℕ → MC) : List Cell → Set where
  []  : DurAll D []
  _∷_ : ∀ {c cs} → DurDig D (digOf c) → DurAll D cs → DurAll D (c ∷ cs)

cur-dur : ∀ m m' → CrashD m m' → m ≡ syn (cur m) → cur m' ≡ cur m
cur-dur (syn c)   m' e  _ = cong cur e
cur-dur (uns o n) m' _  ()

verD-dur : ∀ (D D' : ℕ → MC) → (∀ p → CrashD (D p) (D' p)) → ∀ dd → DurDig D dd →
           verD (λ p → cur (D' p)) dd ≡ verD (λ p → cur (D p)) dd
verD-dur D D' cr []                 []       = refl
verD-dur D D' cr ((q , d , a) ∷ dd) (e ∷ du) rewrite verD-dur D D' cr dd du | cur-dur (D q) (D' q) (cr q) e = refl

okR-dur : ∀ (D D' : ℕ → MC) → (∀ p → CrashD (D p) (D' p)) → ∀ g x c → DurDig D (digOf c) →
          okR g x (λ p → cur (D' p)) c ≡ okR g x (λ p → cur (D p)) c
okR-dur D D' cr g x (dlt h y ps true (dd , dt , L)) du rewrite verD-dur D D' cr dd du = refl
okR-dur D D' cr g x (dlt h y ps false _) du = refl
okR-dur D D' cr g x erased      du = refl
okR-dur D D' cr g x junk        du = refl
okR-dur D D' cr g x (dcell _ _) du = refl
okR-dur D D' cr g x (cpt _ _)   du = refl

ver-crash : ∀ {g x rs} (D D' : ℕ → MC) → (∀ p → CrashD (D p) (D' p)) → DurAll D rs →
            Ver g (λ p → cur (D p)) x rs → Ver g (λ p → cur (D' p)) x rs
ver-crash D D' cr []         []      = []
ver-crash {g} {x} {c ∷ _} D D' cr (du ∷ dus) (o ∷ v) = trans (okR-dur D D' cr g (suc x) c du) o ∷ ver-crash D D' cr dus v

-- durable record slots come back as they are
rof-crash : ∀ {s s'} → (∀ p → rcd s p ≡ syn (cur (rcd s p))) → (∀ p → CrashC (rcd s p) (rcd s' p)) →
            ∀ p → Rof s p ≡ Rof s' p
rof-crash {s} {s'} du cr p with rcd s p | cr p | du p
... | syn c   | e | _  = sym (cong cur e)
... | uns o n | _ | ()

-- `crash-between`: a crash of a state whose record slots are durable
-- and whose chain's named pages are durable: recovery's walk returns the
-- whole chain (every record verifying, within the bound)
crash-between : ∀ {s s' g x L rs y E} k → Img s s' →
                (∀ p → rcd s p ≡ syn (cur (rcd s p))) → DurAll (dat s) rs →
                LayP g (Rof s) x L rs y E → Above g (Rof s) E → Ver g (Dof s) x rs → length rs ≤ k →
                follow k g (Rof s') (Dof s') (just (x , L)) ≡ rv rs
crash-between {s} {s'} {g} {x} {L} {rs} {y} {E} k (crD , _ , _ , _ , crR) du dd lay ab v le =
  trans (follow-lay k (Dof s') (lay-agree lay (λ p _ → eq p)) ab')
        (cong rv (pre-all g (Dof s') k x rs (ver-crash (dat s) (dat s') crD dd v) le))
  where
    eq : ∀ p → Rof s p ≡ Rof s' p
    eq = rof-crash {s} {s'} du crR
    ab' : Above g (Rof s') E
    ab' p le' = subst (RLt g) (eq p) (ab p le')

-- Later writes and tentative delta pages leave recovery's view of the
-- chain as it is (no record slot, no data page, the accepted region's
-- commit unchanged: a tentative page is never accepted)
wr0-recL : ∀ k g C a d s → recMapL k g C (wr0 a d s) ≡ recMapL k g C s
wr0-recL k g C a d s = refl

emitT-recL : ∀ k g C s → recMapL k g C (emitT s) ≡ recMapL k g C s
emitT-recL k g C s = refl

------------------------------------------------------------------------
-- The code's scan rule for chains inside the region (recovery.rs: a
-- committed page's chain is followed during the scan when the next page
-- of the generation is neither a consolidation page nor of the next
-- epoch id).  On P's cells: at a committed page of epoch x below the
-- newest accepted one, the chain from its link is replayed right after
-- it unless the page above it is a page of the generation with an epoch
-- id above x (the next epoch's tentative or committed page, or a
-- consolidation page, whose epoch id is its last record's).  Defined
-- here and evaluated in SCFTL.Impl.LazyChainExample (it recovers the
-- torn consolidation page's crash); not proven in general.

laterP : ℕ → ℕ → Cell → Data.Bool.Base.Bool
laterP g x (dlt h y _ _ _) = (h Data.Nat.Base.≡ᵇ g) Data.Bool.Base.∧ (x Data.Nat.Base.<ᵇ y)
laterP g x _               = false

followsAt : ℕ → Maybe Cell → Cell → Data.Bool.Base.Bool
followsAt g nothing  c = false
followsAt g (just a) c = isC g c Data.Bool.Base.∧ Data.Bool.Base.not (laterP g (epOf c) a)

-- replay (newest first) with the mid-region chains; `ab`: the page above
rpA : ℕ → ℕ → (ℕ → Cell) → (ℕ → Cell) → Maybe Cell → List Cell → RS → RS
rpA k g R D ab []       st = st
rpA k g R D ab (c ∷ cs) st =
  let st' = rstep g c (rpA k g R D (just c) cs st) in
  Data.Bool.Base.if followsAt g ab c then rp g (follow k g R D (lkOf (c ∷ []))) st' else st'

-- recovery's L2P with the scan rule and the newest commit's chain
recMapM : ℕ → ℕ → Map → St → Map
recMapM k g C s = let cs = acc g (Dof s) (map cur (dr s)) in
  proj₁ (rp g (follow k g (Rof s) (Dof s) (lkOf cs)) (rpA k g (Rof s) (Dof s) nothing cs (st0 C)))

-- `scan-torn-kons`: the region as the crash of `flK2` can leave it, the
-- committed page of the new epoch (accepted) over a torn consolidation
-- page over the previous region commit `cp` (whose chain the code's scan
-- rule then follows) and a region without chains inside (`base`): the
-- replay is the region's L2P, then a verified prefix of the chain, then
-- the new epoch's pairs.  With every record verifying (`Ver`) and the
-- chain within the bound, the prefix is the whole chain: the crashed
-- flush's image.
scan-torn-kons : ∀ {g R x L rs y E} k D xc ps dg cp base st M z →
                 isC g cp ≡ true → lkOf (cp ∷ []) ≡ just (x , L) →
                 rpA k g R D (just cp) base st ≡ rp g base st → rstep g cp (rp g base st) ≡ (M , z , M) →
                 LayP g R x L rs y E → Above g R E →
                 proj₁ (rpA k g R D nothing (dlt g xc ps true dg ∷ junk ∷ cp ∷ base) st)
                   ≡ apply ps (apply (cpairs (rv (pre g D k x rs))) M)
scan-torn-kons {g} {R} {x} {L} {rs} k D xc ps dg cp base st M z ic lk eb e lay ab
  with rp-recs M z (recs-rv (recs-pre D k x rs (lay-recs lay)))
... | w , e' rewrite ic | lk | eb | e | follow-lay k D lay ab | e'
                   | rstep-c g xc ps dg (apply (cpairs (rv (pre g D k x rs))) M) w = refl

-- a page the scan rule does not follow a chain from: one replay step
-- (stated once; `scan-kons` uses it instead of `rewrite` over the replay)
rpA-skip : ∀ k g R D ab c cs st → followsAt g ab c ≡ false →
           rpA k g R D ab (c ∷ cs) st ≡ rstep g c (rpA k g R D (just c) cs st)
rpA-skip k g R D ab c cs st e =
  cong (λ b → Data.Bool.Base.if b then rp g (follow k g R D (lkOf (c ∷ []))) (rstep g c (rpA k g R D (just c) cs st))
                                  else rstep g c (rpA k g R D (just c) cs st)) e

-- `scan-kons`: both pages landed (the consolidation page's epoch id y
-- above the previous commit's, below the new commit's): the scan rule
-- follows no chain inside the region, so the replay is P's (`flK-replay`)
scan-kons : ∀ {g R D} k xc ps dg y ps' dg' cp base st →
            isC g cp ≡ true → (epOf cp Data.Nat.Base.<ᵇ y) ≡ true → (y Data.Nat.Base.<ᵇ xc) ≡ true →
            rpA k g R D (just cp) base st ≡ rp g base st →
            rpA k g R D nothing (dlt g xc ps true dg ∷ dlt g y ps' true dg' ∷ cp ∷ base) st
              ≡ rp g (dlt g xc ps true dg ∷ dlt g y ps' true dg' ∷ cp ∷ base) st
scan-kons {g} {R} {D} k xc ps dg y ps' dg' cp base st ic l1 l2 eb =
  trans (rpA-skip k g R D nothing (dlt g xc ps true dg) (dlt g y ps' true dg' ∷ cp ∷ base) st refl)
        (cong (rstep g (dlt g xc ps true dg))
              (trans (rpA-skip k g R D (just (dlt g xc ps true dg)) (dlt g y ps' true dg') (cp ∷ base) st
                               (cong₂ (λ a b → a Data.Bool.Base.∧ Data.Bool.Base.not (a Data.Bool.Base.∧ b)) (eqb-refl g) l2))
                     (cong (rstep g (dlt g y ps' true dg'))
                           (trans (rpA-skip k g R D (just (dlt g y ps' true dg')) cp base st
                                            (cong₂ (λ a b → a Data.Bool.Base.∧ Data.Bool.Base.not b) ic
                                                   (cong₂ Data.Bool.Base._∧_ (eqb-refl g) l1)))
                                  (cong (rstep g cp) eb)))))

------------------------------------------------------------------------
-- The lazy commit keeps the chain verifying and durable: from `VOK`
-- (RI's `vOK`) before the step, its own record verifies after its SYNC and the pages
-- it names are durable; the older records keep verifying, and name
-- durable pages, if the pages they name are not in the merge buffer
-- (`FixAll`).

-- what the proofs use of P's RI: every page the volatile L2P maps holds
-- a sector of that address (RI's `vOK`; about data pages only, so it
-- can hold with a chain on the record slots, where RI's `rcL` cannot)
VOK : St → Set
VOK s = ∀ a p → a ≤ amax → l2p s a ≡ just p → Σ Data λ d → pv s p ≡ dcell d a

vok-RI : ∀ {s} → RI s → VOK s
vok-RI r a p le e = proj₂ (RI.vOK r a p le e)

-- after the step's SYNC every page the volatile L2P maps holds its sector durably
fiL-ent : ∀ {s M} → VOK s → ∀ a p → a ≤ amax → l2p s a ≡ just p → dat (fiL M s) p ≡ syn (dcell (cellD (pv s p)) a)
fiL-ent {s} v a p le e with v a p le e
... | d , ed = cong syn (trans (cur-progm (mb s p) (dat s p)) (trans ed (cong (λ x → dcell x a) (sym (cong cellD ed)))))

-- the step's record verifies on the data pages after its SYNC
fiL-ver-new : ∀ {s M} → VOK s → verD (Dof (fiL M s)) (digD s (dbuf s ++ Data.List.Base.concat (ept s))) ≡ true
fiL-ver-new {s} {M} v =
  verD-ent (Dof (fiL M s)) (λ p c e → cong cur e) _ (digD-ent s (dat (fiL M s)) (fiL-ent {s} {M} v) (dbuf s ++ Data.List.Base.concat (ept s)))

fiL-ok-new : ∀ {s M} → VOK s → okR (gen s) (ep s) (Dof (fiL M s)) (rec s) ≡ true
fiL-ok-new {s} {M} v rewrite eqb-refl (gen s) | eqb-refl (ep s) | fiL-ver-new {s} {M} v = refl

-- ... and the pages it names are durable
ent-dur : ∀ {sm D} dd → All (Ent sm D) dd → DurDig D dd
ent-dur []                 All.[]              = []
ent-dur ((p , d , a) ∷ dd) ((_ , _ , e) All.∷ es) = trans e (cong (λ m → syn (cur m)) (sym e)) ∷ ent-dur dd es

fiL-dur-new : ∀ {s M} → VOK s → DurDig (dat (fiL M s)) (digOf (rec s))
fiL-dur-new {s} {M} v = ent-dur _ (digD-ent s (dat (fiL M s)) (fiL-ent {s} {M} v) (dbuf s ++ Data.List.Base.concat (ept s)))

-- the older records: the pages they name not in the merge buffer (the
-- step's SYNC makes every page durable)
data FixDig (s : St) : List (ℕ × Data × Addr) → Set where
  []  : FixDig s []
  _∷_ : ∀ {q d a dd} → mb s q ≡ nothing → FixDig s dd → FixDig s ((q , d , a) ∷ dd)

data FixAll (s : St) : List Cell → Set where
  []  : FixAll s []
  _∷_ : ∀ {c cs} → FixDig s (digOf c) → FixAll s cs → FixAll s (c ∷ cs)

fix-cur : ∀ {s q} → mb s q ≡ nothing → cur (progm (mb s q) (dat s q)) ≡ cur (dat s q)
fix-cur {s} {q} m rewrite m = refl

verD-fix : ∀ {s M} dd → FixDig s dd → verD (Dof (fiL M s)) dd ≡ verD (Dof s) dd
verD-fix []                 []       = refl
verD-fix {s} {M} ((q , d , a) ∷ dd) (f ∷ fs) rewrite verD-fix {s} {M} dd fs | fix-cur {s} {q} f = refl

okR-fix : ∀ {s M} g x c → FixDig s (digOf c) → okR g x (Dof (fiL M s)) c ≡ okR g x (Dof s) c
okR-fix {s} {M} g x (dlt h y ps true (dd , dt , L)) f rewrite verD-fix {s} {M} dd f = refl
okR-fix g x (dlt h y ps false _) f = refl
okR-fix g x erased      f = refl
okR-fix g x junk        f = refl
okR-fix g x (dcell _ _) f = refl
okR-fix g x (cpt _ _)   f = refl

dur-fix : ∀ {s M} dd → FixDig s dd → DurDig (dat (fiL M s)) dd
dur-fix []                 []       = []
dur-fix {s} {M} ((q , d , a) ∷ dd) (f ∷ fs) = refl ∷ dur-fix {s} {M} dd fs

-- the chain's epochs end at y: one record more with epoch id suc y
ver-snoc : ∀ {g R D x L rs y E c} → LayP g R x L rs y E → Ver g D x rs → okR g (suc y) D c ≡ true →
           Ver g D x (rs ++ c ∷ [])
ver-snoc end              []      o = o ∷ []
ver-snoc (rec∷ _ _ _ lay) (o' ∷ v) o = o' ∷ ver-snoc lay v o

durall-snoc : ∀ {D rs c} → DurAll D rs → DurDig D (digOf c) → DurAll D (rs ++ c ∷ [])
durall-snoc []         d = d ∷ []
durall-snoc (d' ∷ ds)  d = d' ∷ durall-snoc ds d

-- `fiL-ver`: after the lazy commit (`VOK` before it, the step's epoch
-- id the next of the chain), every record of the extended chain
-- verifies and names only durable pages
fiL-ver : ∀ {s M x L rs y E} → VOK s → ep s ≡ suc y → LayP (gen s) (Rof s) x L rs y E →
          FixAll s rs → Ver (gen s) (Dof s) x rs →
          Ver (gen s) (Dof (fiL M s)) x (rs ++ rec s ∷ []) × DurAll (dat (fiL M s)) (rs ++ rec s ∷ [])
fiL-ver {s} {M} {x} {L} {rs} {y} r ey lay fx v =
  ver-snoc lay (old fx v) (subst (λ e → okR (gen s) e (Dof (fiL M s)) (rec s) ≡ true) ey (fiL-ok-new {s} {M} r))
  , durall-snoc (oldD fx) (fiL-dur-new {s} {M} r)
  where
    old : ∀ {x rs} → FixAll s rs → Ver (gen s) (Dof s) x rs → Ver (gen s) (Dof (fiL M s)) x rs
    old []       []      = []
    old {x} {c ∷ _} (f ∷ fs) (o ∷ v') = trans (okR-fix {s} {M} (gen s) (suc x) c f) o ∷ old fs v'
    oldD : ∀ {rs} → FixAll s rs → DurAll (dat (fiL M s)) rs
    oldD []       = []
    oldD {c ∷ _} (f ∷ fs) = dur-fix {s} {M} (digOf c) f ∷ oldD fs

-- `VOK` goes on across the lazy commit (its data pages programmed and synced)
vok-fiL : ∀ {s M} → VOK s → VOK (fiL M s)
vok-fiL {s} {M} v a p le e with v a p le e
... | d , ed = d , trans (cur-progm (mb s p) (dat s p)) ed

-- the older records across the step (top level, for the crash below)
ver-old : ∀ {s M g x rs} → FixAll s rs → Ver g (Dof s) x rs → Ver g (Dof (fiL M s)) x rs
ver-old []       []      = []
ver-old {s} {M} {g} {x} {c ∷ _} (f ∷ fs) (o ∷ v) = trans (okR-fix {s} {M} g (suc x) c f) o ∷ ver-old {s} {M} fs v

-- right before the step's SYNC the pages the older records name are as
-- they were (not in the merge buffer): durable
dur-fi2 : ∀ {s M} dd → FixDig s dd → DurDig (dat s) dd → DurDig (dat (fi2 M s)) dd
dur-fi2 []                 []       []       = []
dur-fi2 {s} {M} ((q , d , a) ∷ dd) (m ∷ fs) (e ∷ ds) =
  subst (λ x → progm x (dat s q) ≡ syn (cur (progm x (dat s q)))) (sym m) e ∷ dur-fi2 {s} {M} dd fs ds

durall-fi2 : ∀ {s M rs} → FixAll s rs → DurAll (dat s) rs → DurAll (dat (fi2 M s)) rs
durall-fi2 []       []       = []
durall-fi2 {s} {M} {c ∷ _} (f ∷ fs) (d ∷ ds) = dur-fi2 {s} {M} (digOf c) f d ∷ durall-fi2 {s} {M} fs ds

-- `fi2-crash-full`: the crash right before the lazy commit's SYNC with
-- the chain before it durable and verifying (its named pages durable
-- and not in the merge buffer): recovery's L2P is the region's with the
-- whole chain, or with the chain and the crashed record (`fi2-crash-rec`
-- without its `Ver` hypothesis on the crashed data pages)
fi2-crash-full : ∀ {s s' M x L rs y E} → (∀ p → rcd s p ≡ syn (cur (rcd s p))) → Img (fi2 M s) s' →
                 E ≤ M → M < E + omax → M < nxt s → ep s ≡ suc y →
                 LayP (gen s) (Rof s) x L rs y E → Above (gen s) (Rof s) E →
                 FixAll s rs → DurAll (dat s) rs → Ver (gen s) (Dof s) x rs →
                 ∀ k C M0 z → rp (gen s) (acc (gen s) (Dof s') (map cur (dr s'))) (st0 C) ≡ (M0 , z , M0) →
                 lkOf (acc (gen s) (Dof s') (map cur (dr s'))) ≡ just (x , L) → length rs < k →
                 recMapL k (gen s) C s' ≡ apply (cpairs (rv rs)) M0
               ⊎ recMapL k (gen s) C s' ≡ apply (cpairs (rv (rs ++ rec s ∷ []))) M0
fi2-crash-full {s} {s'} {M} dS img@(crD , _ , _ , _ , crR) le lt mn ey lay ab fx du v k C M0 z e lk lk< =
  fi2-crash-rec {s} {s'} {M} dS crR le lt mn ey lay ab k C M0 z e lk
    (ver-crash (dat (fi2 M s)) (dat s') crD (durall-fi2 {s} {M} fx du) (ver-old {s} {M} fx v)) lk<
