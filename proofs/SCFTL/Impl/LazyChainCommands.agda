{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: PL's crash points are sufficient (as SCFTL.Impl.CrashPoints
-- proves for P's).
--
-- `CmdCrashL G o s x`: x is the state right after some flash command of
-- PL's operation o from s (any subset of a batch's commands, in any
-- order, none included):
--
--   * a write or relocation: P's batch (the merge buffer's pages, the
--     tentative page) where no chain is open; with a chain and a
--     tentative page, the merge buffer's pages and the consolidation page
--     (one batch), its SYNC, then the tentative page (`OptCmd`);
--   * PL's guarded erase: P's;
--   * a flush: the consolidation page (its batch), then any command of
--     P's flush from the consolidated state (P's `CmdCrash`); or the lazy
--     commit's batch (P's in-page/OOB commit's: the merge buffer's pages
--     and the record, `IssFi`) and its end;
--   * recovery: right after its first SYNC, or inside its full
--     checkpoint.
--
--   pl-command-crashes-covered : CmdCrashL G o s x → Img x s' →
--                                Σ s'' (crashPL G o s s'' × SameRec s' s'')
--
-- every crash outcome after such a command is, up to dead pages on top
-- of the region (and the slots' names after recovery's SYNC), an outcome
-- of a crash at one of PL's crash points (`crashPL`), by CrashPoints'
-- `Mid` route (`via`).  That PL's recovery and crash relation do the same
-- on SameRec states (P's `same-recovery`), and so Theorem 1's crash
-- obligations after any command: SCFTL.Impl.LazyChainSameRec.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCommands (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                    (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (_≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (IsSyn)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (crashC-eq)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Op; use; recover; flush; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- The commands

-- a write's or relocation's optional pages from u (after wr0 / rl0)
OptK : Bool → St → Maybe Cell → St → Set
OptK f1 u nothing  x = DRun (IssW f1 u) u (apW true u) x
OptK f1 u (just k) x = DRun (IssW f1 u) u (just k) x ⊎ DRun (λ _ → ⊥) (konsS (optP f1 u)) (apW true (konsS (optP f1 u))) x

OptCmd : Bool → Bool → St → St → Set
OptCmd f1 false u x = DRun (IssW f1 u) u nothing x
OptCmd f1 true  u x = OptK f1 u (konsPg (optP f1 u)) x

CmdCrashL : (St → ℕ → Set) → Op → St → St → Set
CmdCrashL G (use (regop (w a d))) s x =
    (InB a s × Σ Bool λ f1 → Σ Bool λ f2 → OptCmd f1 f2 (wr0 a d s) x)
  ⊎ (¬ InB a s × x ≡ s)
CmdCrashL G (use (regop rl)) s x =
    (gcnt s ≤ kmax × Σ ℕ λ p → p < nxt s ×
       ((Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → OptCmd f1 f2 (rl0 p s) x)
        ⊎ (¬ Valid s p × x ≡ rlX p s)))
  ⊎ (¬ gcnt s ≤ kmax × x ≡ s)
CmdCrashL G (use (regop es)) s x = Σ ℕ λ p → ers s p ≡ true × G s p × DRun (IssE p) s nothing x
CmdCrashL G (use flush) s x =
    DRun (λ _ → ⊥) s (konsPg s) x
  ⊎ CmdCrash (use flush) (konsS s) x
  ⊎ (Σ ℕ λ M → Lazy s M × IsSyn (rcd s M) × (DRun (IssFi M s) s nothing x ⊎ x ≡ fiL M s))
CmdCrashL G recover s x = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) × (x ≡ syncAll s ⊎ CkCmd (rec0L b g C s) x)

------------------------------------------------------------------------
-- Each such state is Mid of one of PL's crash points

private
  false≢true : false ≡ true → ⊥
  false≢true ()

  -- the merge buffer's pages (if f1) and an append ap: Mid of optP f1 u
  -- with ap on its region
  optP-ap : ∀ f1 u ap {x} → DRun (IssW f1 u) u ap x → Mid x (record (optP f1 u) { dr = withAp ap (dr u) })
  optP-ap true  u ap r = data-mid {IssW true u} {u} {record (progMB u) { dr = withAp ap (dr u) }} {ap}
                           (λ k i → goodMB u _ (λ p → refl) k (proj₂ i)) (dle-MB u) refl refl refl
                           (λ q → CLe-refl (rcd u q)) r
  optP-ap false u ap r = data-mid {IssW false u} {u} {record u { dr = withAp ap (dr u) }} {ap}
                           (λ k i → ⊥-elim (false≢true (proj₁ i))) (λ p → DLe-refl (dat u p)) refl refl refl
                           (λ q → CLe-refl (rcd u q)) r

  -- no append: Mid of optP f1 u itself
  optP-mid : ∀ f1 u {x} → DRun (IssW f1 u) u nothing x → Mid x (optP f1 u)
  optP-mid true  u r = optP-ap true u nothing r
  optP-mid false u r = optP-ap false u nothing r

  -- the tentative page after the consolidation page's SYNC
  tent-mid : ∀ v {x} → DRun (λ _ → ⊥) v (apW true v) x → Mid x (emitT v)
  tent-mid v r = data-mid {λ _ → ⊥} {v} {emitT v} {apW true v} (λ k ()) (λ p → DLe-refl (dat v p))
                          refl refl refl (λ p → CLe-refl (rcd v p)) r

  -- the consolidation page alone (a flush's first batch)
  kons-mid : ∀ s {x} → DRun (λ _ → ⊥) s (konsPg s) x → Mid x (konsI s)
  kons-mid s r = go (konsPg s) r
    where
      go : ∀ mc {x} → DRun (λ _ → ⊥) s mc x → Mid x (konsP mc s)
      go nothing  r = data-mid {λ _ → ⊥} {s} {s} {nothing} (λ k ()) (λ p → DLe-refl (dat s p))
                               refl refl refl (λ p → CLe-refl (rcd s p)) r
      go (just c) r = data-mid {λ _ → ⊥} {s} {konsP (just c) s} {just c} (λ k ()) (λ p → DLe-refl (dat s p))
                               refl refl refl (λ p → CLe-refl (rcd s p)) r

-- a write's or relocation's command states: the crash point before the
-- consolidation page's SYNC, or the step's end
opt-cover : ∀ f1 f2 u {x} → OptCmd f1 f2 u x →
            Σ St λ m → (m ≡ optL f1 f2 u ⊎ optLK f1 f2 u m) × Mid x m
opt-cover f1 false u r = optP f1 u , inj₁ refl , optP-mid f1 u r
opt-cover f1 true u {x} r = go (konsPg (optP f1 u)) refl r
  where
    go : ∀ mc → konsPg (optP f1 u) ≡ mc → OptK f1 u mc x →
         Σ St λ m → (m ≡ optL f1 true u ⊎ optLK f1 true u m) × Mid x m
    go nothing e r′ =
      emitT (optP f1 u) ,
      inj₁ (cong (λ mc → emitT (konsX mc (optP f1 u))) (sym e)) ,
      optT-mid f1 r′
      where
        optT-mid : ∀ f1 → DRun (IssW f1 u) u (apW true u) x → Mid x (emitT (optP f1 u))
        optT-mid true  r″ = wr-mid true true u r″
        optT-mid false r″ = wr-mid false true u r″
    go (just k) e (inj₁ r′) =
      konsP (just k) (optP f1 u) ,
      inj₂ (cong (λ mc → konsP mc (optP f1 u)) (sym e)) ,
      subst (Mid x) (dr-eq f1) (optP-ap f1 u (just k) r′)
      where
        dr-eq : ∀ f1 → record (optP f1 u) { dr = withAp (just k) (dr u) } ≡ konsP (just k) (optP f1 u)
        dr-eq true  = refl
        dr-eq false = refl
    go (just k) e (inj₂ r′) = emitT (konsS (optP f1 u)) , inj₁ refl , tent-mid (konsS (optP f1 u)) r′

------------------------------------------------------------------------
-- The theorem

pl-command-crashes-covered : ∀ G o {s x s'} → CmdCrashL G o s x → Img x s' →
  Σ St λ s'' → crashPL G o s s'' × SameRec s' s''
-- write
pl-command-crashes-covered G (use (regop (w a d))) {s} {x} {s'} (inj₁ (ib , f1 , f2 , r)) img =
  let (m , pt , mid) = opt-cover f1 f2 (wr0 a d s) r
      (s'' , img' , sr) = via x m s' mid img in
  s'' , (m , pick-pt pt , img') , sr
  where
    pick-pt : ∀ {m} → (m ≡ optL f1 f2 (wr0 a d s) ⊎ optLK f1 f2 (wr0 a d s) m) →
              okPL G (use (regop (w a d))) s m ⊎ (InB a s × Σ Bool λ f1′ → Σ Bool λ f2′ → optLK f1′ f2′ (wr0 a d s) m)
    pick-pt (inj₁ e) = inj₁ (inj₁ (ib , f1 , f2 , e))
    pick-pt (inj₂ k) = inj₂ (ib , f1 , f2 , k)
pl-command-crashes-covered G (use (regop (w a d))) {s} {x} {s'} (inj₂ (nb , refl)) img =
  let (s'' , img' , sr) = via x s s' (Mid-refl s) img in
  s'' , (s , inj₁ (inj₂ (nb , refl)) , img') , sr
-- relocation
pl-command-crashes-covered G (use (regop rl)) {s} {x} {s'} (inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , r))) img =
  let (m , pt , mid) = opt-cover f1 f2 (rl0 p s) r
      (s'' , img' , sr) = via x m s' mid img in
  s'' , (m , pick-pt pt , img') , sr
  where
    pick-pt : ∀ {m} → (m ≡ optL f1 f2 (rl0 p s) ⊎ optLK f1 f2 (rl0 p s) m) →
              okPL G (use (regop rl)) s m
              ⊎ (gcnt s ≤ kmax × Σ ℕ λ p′ → p′ < nxt s × Valid s p′ × Σ Bool λ f1′ → Σ Bool λ f2′ → optLK f1′ f2′ (rl0 p′ s) m)
    pick-pt (inj₁ e) = inj₁ (inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , e)))
    pick-pt (inj₂ k) = inj₂ (gk , p , lt , v , f1 , f2 , k)
pl-command-crashes-covered G (use (regop rl)) {s} {x} {s'} (inj₁ (gk , p , lt , inj₂ (nv , refl))) img =
  let (s'' , img' , sr) = via x (rlX p s) s' (Mid-refl (rlX p s)) img in
  s'' , (rlX p s , inj₁ (inj₁ (gk , p , lt , inj₂ (nv , refl))) , img') , sr
pl-command-crashes-covered G (use (regop rl)) {s} {x} {s'} (inj₂ (ng , refl)) img =
  let (s'' , img' , sr) = via x s s' (Mid-refl s) img in
  s'' , (s , inj₁ (inj₂ (ng , refl)) , img') , sr
-- guarded erase
pl-command-crashes-covered G (use (regop es)) {s} {x} {s'} (p , ep , gd , r) img =
  let (s'' , img' , sr) = via x (esF p s) s' (es-mid p s r) img in
  s'' , (esF p s , (p , ep , gd , refl) , img') , sr
-- flush: the consolidation page, then P's flush from the consolidated state
pl-command-crashes-covered G (use flush) {s} {x} {s'} (inj₁ r) img =
  let (s'' , img' , sr) = via x (konsI s) s' (kons-mid s r) img in
  s'' , (konsI s , inj₁ refl , img') , sr
pl-command-crashes-covered G (use flush) {s} {x} {s'} (inj₂ (inj₁ c)) img =
  let (s'' , (m , fp , img') , sr) = command-crashes-covered (use flush) {konsS s} {x} {s'} c img in
  s'' , (m , inj₂ (inj₁ fp) , img') , sr
-- the lazy commit: its batch before the SYNC, and its end
pl-command-crashes-covered G (use flush) {s} {x} {s'} (inj₂ (inj₂ (M , lz , sy , inj₁ r))) img =
  let (s'' , img' , sr) = via x (fi2 M s) s' (fi-mid M s sy r) img in
  s'' , (fi2 M s , inj₂ (inj₂ (M , lz , inj₁ refl)) , img') , sr
pl-command-crashes-covered G (use flush) {s} {x} {s'} (inj₂ (inj₂ (M , lz , sy , inj₂ refl))) img =
  let (s'' , img' , sr) = via x (fiL M s) s' (Mid-refl (fiL M s)) img in
  s'' , (fiL M s , inj₂ (inj₂ (M , lz , inj₂ refl)) , img') , sr
-- recovery: inside its full checkpoint
pl-command-crashes-covered G recover {s} {x} {s'} (b , g , C , pk , inj₂ ck) img =
  let (m , cp , mid) = ck-mid (rec0L b g C s) (rec-synO b g C (virt (walkG g s) s)) ck
      (s'' , img' , sr) = via x m s' mid img in
  s'' , (b , g , C , pk , m , cp , img') , sr
-- recovery: right after its first SYNC
pl-command-crashes-covered G recover {s} {x} {s'} (true , g , C , pk , inj₁ refl) img =
  let (s'' , img' , sr) =
        via (syncAll s) (ck1 (rec0L true g C s)) s'
            ((λ p → DLe-refl (sync (dat s p))) , inj₁ refl , inj₂ (inj₁ refl) , pw (Pw-refl (map sync (dr s))) ,
             (λ p → CLe-refl (sync (rcd s p)))) img in
  s'' , (true , g , C , pk , ck1 (rec0L true g C s) , inj₁ refl , img') , sr
pl-command-crashes-covered G recover {s} {x} {s'} (false , g , C , pk , inj₁ refl) img@(d , l , o , r , i) =
  let (ds , dd , img') =
        mid-crash {swp (syncAll s)} {ck1 (rec0L false g C s)} {swp s'}
          ((λ p → DLe-refl (sync (dat s p))) , inj₁ refl , inj₂ (inj₁ refl) , pw (Pw-refl (map sync (dr s))) ,
           (λ p → CLe-refl (sync (rcd s p))))
          (d , o , l , r , i) in
  padW ds (swp s') , (false , g , C , pk , ck1 (rec0L false g C s) , inj₁ refl , img') ,
  same ds dd true (g , C , trans (cong₂ (λ a c → pick (cur a) (cur c)) (crashC-eq refl l) (crashC-eq refl o)) pk) refl
