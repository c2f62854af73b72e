{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the block layer over the one model with the erase hold.
-- BXh is SCFTL.Impl.BlocksOver's layer over PXh (SCFTL.Impl.
-- OneModelHold: PX whose chain-phase erase is the code's hold, with the
-- way out), so a block erase is a run of PXh's erase steps, one per page
-- placed in the block since its last erase.  In the chain phase each of
-- them erases a page the hold leaves free, or is the way out where the
-- chain has nothing to consolidate: a block is erased only when no page
-- of it is held.  That is the hold over the block layer, the rule the
-- code's superblock hold (scftl/mod.rs `erase_bound`, `hold_from`) must
-- cover and the refinement oracle checks of every erase (`PlGuard`).
--
--   obligationsBXh, theorem1-BXh, BXh-snapshot-consistent :
--                 Theorem 1 against SB and SC1B for BXh
--   esh-page    : an erase step of a block erase erases its own page,
--                 an erasable one no L2P entry names; from the chain
--                 phase it stays in the chain phase and either the page
--                 is free in the hold and the hold is kept, or the step
--                 is the way out with nothing to consolidate and nothing
--                 is held after it
--   block-erase-safeh : a block erase of BXh keeps the L2P and the
--                 content of every page it maps
--   run-hold    : a block erase from the chain phase erases only pages
--                 free in the hold at its start and keeps the hold, or
--                 ends with nothing held (a way out released it)
--   hold-es, hold-run, hold-block : not vacuous: from the chain phase a
--                 block whose pages are distinct, erasable and free in
--                 the hold is erased by a step of BXh (the code's erase
--                 of a superblock it does not hold)
--   bx-wh, bx-rlh : every write and relocation of PXh is a step of BXh
--                 wherever the block rules find its page
--   release, release-erase : the code's way out in BXh: the
--                 consolidation page synced, nothing held, then the
--                 block erase
--
-- The way out as the code runs it (`release_hold`: the consolidation
-- page, synced, then the erase) is, in BXh, two steps: PXh's SYNC of the
-- chain phase that writes and syncs the consolidation page, after which
-- nothing is held (`release`), then a block erase of any block whose
-- pages are distinct and erasable (`release-erase`).  The fused form,
-- PXh's erase step that consolidates first, is never a page of a block
-- erase where a chain waits: BlocksOver's erase step asks that the
-- model's step change only the erased page, and the consolidation page
-- adds a page to the delta region (`out-empty`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelHoldBlocks (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Nat.Base using (suc; _≤_)
open import Data.Nat.Properties using (_≟_; 1+n≢n)
open import Data.List.Base using (List; []; _∷_; length; map)
open import Data.List.Properties using (length-map)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
import Data.List.Relation.Unary.All as All
open import Data.List.Relation.Unary.AllPairs using (AllPairs; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥-elim)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; l2p; dat; dr; esF; ers; sync; nxt)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (upd-here; upd-other)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS; konsPg)
open import SCFTL.Impl.LazyChainHold Data d0 amax wmax kmax _≟D_ kc using (Hold; none)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (RIQ; lzS)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh)
open import SCFTL.Impl.OneModelHold Data d0 amax wmax kmax umax _≟D_ kc
  using (XH; PXh; Ih; obligationsPXh; toPX-ok)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; px-es-safe; ril-eOK; grow-w; grow-rl; Grow)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

-- P's state inside PXh's
stXh : XH → St
stXh x = stX (proj₁ x)

open Over PXh stXh public

BXh : SB.Model
BXh = BX

obligationsBXh : SB.ForwardSimulation.Obligations BXh SB.SB
obligationsBXh = obligationsBX obligationsPXh

-- Theorem 1: every behaviour of the block layer over the one model with
-- the hold as its chain-phase erase rule is one of SB's
theorem1-BXh : SB.CorrespondenceB.BehaviourallyCorrect BXh SB.SB
theorem1-BXh = theorem1-BX obligationsPXh

BXh-snapshot-consistent : SB.SnapshotConsistentB BXh
BXh-snapshot-consistent = BX-snapshot-consistent obligationsPXh

------------------------------------------------------------------------
-- A block erase of BXh, page by page

private
  module OXh = SB.ForwardSimulation.Obligations obligationsPXh

  just≢nothing : ∀ {A : Set} {c : A} → just c ≢ nothing
  just≢nothing ()

  nothing≢just : ∀ {A : Set} {c : A} → nothing ≢ just c
  nothing≢just ()

  true≢false : true ≢ false
  true≢false ()

  -- with nothing to consolidate the consolidation step changes nothing
  kons-nothing : ∀ s → konsPg s ≡ nothing → konsS s ≡ s
  kons-nothing s e with konsPg s
  ... | nothing = refl
  ... | just c  = ⊥-elim (just≢nothing e)

  -- a consolidation page adds a page to the delta region
  kons-just : ∀ s c → konsPg s ≡ just c → length (dr (konsS s)) ≡ suc (length (dr s))
  kons-just s c e with konsPg s
  ... | nothing = ⊥-elim (nothing≢just e)
  ... | just c' = cong suc (length-map sync (dr s))

  -- so the way out changes only its erased page only where there is
  -- nothing to consolidate
  out-empty : ∀ s {p q} → esF q (konsS s) ≡ esF p s → konsPg s ≡ nothing
  out-empty s {p} {q} e = go (konsPg s) refl
    where
      go : ∀ m → konsPg s ≡ m → konsPg s ≡ nothing
      go nothing  k = k
      go (just c) k = ⊥-elim (1+n≢n (sym (trans (sym (cong (λ t → length (dr t)) e)) (kons-just s c k))))

  -- two erases that leave the same state erased the same erasable page
  same-page : ∀ s {p q} → esF q s ≡ esF p s → ers s q ≡ true → p ≡ q
  same-page s {p} {q} e eq with p ≟ q
  ... | yes pq = pq
  ... | no pq  = ⊥-elim (true≢false (sym
        (trans (sym (upd-here (ers s) q false))
        (trans (cong (λ t → ers t q) e)
        (trans (upd-other (ers s) false (λ qp → pq (sym qp))) eq)))))

-- an erase step of a block erase (BlocksOver's `EsM`: PXh's erase step
-- that changes only page p)
esh-page : ∀ {x p x'} → RIQ (proj₁ x) → Ih x → EsM x p x' →
           ers (stXh x) p ≡ true × (∀ a → a ≤ amax → l2p (stXh x) a ≢ just p)
         × (proj₁ (proj₁ x) ≡ true →
              proj₁ (proj₁ x') ≡ true
            × ((proj₂ x p ≡ false × proj₂ x' ≡ proj₂ x) ⊎ (konsPg (stXh x) ≡ nothing × proj₂ x' ≡ none)))
-- PUSBic's erase (never from the chain phase)
esh-page {(b , S) , H} {p} {(.false , S') , H'} r ih (inj₁ (refl , o1 , hH) , e)
  with px-es-safe {b , S} {false , S'} r
         (toPX-ok (SB.reg (SB.op SB.es)) {(b , S) , H} {(false , S') , H'} r ih (inj₁ (refl , o1 , hH)))
... | q , e' , free , eq with same-page (stX (b , S)) (trans (sym e') e) eq
...   | refl = eq , free , λ { refl → ⊥-elim (proj₁ (proj₂ o1)) }
-- the chain phase's erase: a page the hold leaves free
esh-page {(b , S) , H} {p} {(.true , S') , .H} r ih
         (inj₂ (inj₁ (refl , ue , s' , eS , (q , eq , hq , es' , refl))) , e)
  with px-es-safe {b , S} {true , S'} r
         (toPX-ok (SB.reg (SB.op SB.es)) {(b , S) , H} {(true , S') , H}
                  r ih (inj₂ (refl , ue , s' , eS , (q , eq , hq , es' , refl))))
... | q' , e' , free , eq' with same-page (stX (b , S)) (trans (sym e') e) eq'
...   | refl with same-page (stX (b , S)) (trans (sym es') (trans (sym (cong (λ Z → stX (true , Z)) eS)) e')) eq
...     | refl = eq' , free , λ _ → refl , inj₁ (hq , refl)
-- PUSBic's phase has no way out
esh-page {(false , S) , H} r ih (inj₂ (inj₂ ()) , e)
-- the way out: only with nothing to consolidate
esh-page {(true , S) , H} {p} {(.true , S') , .none} (_ , r) ih
         (inj₂ (inj₂ (refl , ue , s' , refl , q , eq , refl , refl)) , e)
  with out-empty (stX (true , S)) e
... | kn with kons-nothing (stX (true , S)) kn
...   | ke with same-page (stX (true , S)) (trans (cong (esF q) (sym ke)) e) (subst (λ t → ers t q ≡ true) ke eq)
...     | refl = ers-q , ril-eOK r ers-q , λ _ → refl , inj₂ (kn , refl)
  where
    ers-q = subst (λ t → ers t q ≡ true) ke eq

-- a block erase keeps the L2P and the content of every page it maps
private
  run-safeh : ∀ {x ps x'} → RIQ (proj₁ x) → Ih x → EsRunM x ps x' →
              (∀ a → l2p (stXh x') a ≡ l2p (stXh x) a)
            × (∀ a q → a ≤ amax → l2p (stXh x) a ≡ just q → dat (stXh x') q ≡ dat (stXh x) q)
  run-safeh {x} r ih (one {p = p} (o , e)) with esh-page {x} r ih (o , e)
  ... | _ , free , _ =
    (λ a → cong (λ z → l2p z a) e) ,
    (λ a q le m → trans (cong (λ z → dat z q) e) (upd-ne (dat (stXh x)) q p _ (λ { refl → free a le m })))
  run-safeh {x} r ih (_∷_ {p = p} (o , e) rn)
    with esh-page {x} r ih (o , e) | OXh.B-ok (SB.reg (SB.op SB.es)) {x} (r , ih) o
  ... | _ , free , _ | r1 , ih1 with run-safeh r1 ih1 rn
  ...   | keepL , keepD =
    (λ a → trans (keepL a) (cong (λ z → l2p z a) e)) ,
    (λ a q le m → trans (keepD a q le (trans (cong (λ z → l2p z a) e) m))
                        (trans (cong (λ z → dat z q) e) (upd-ne (dat (stXh x)) q p _ (λ { refl → free a le m }))))

block-erase-safeh : ∀ {Y Y'} → RIQ (proj₁ (proj₁ Y)) → Ih (proj₁ Y) →
                    SB.Model.ok BXh (SB.use (SB.reg (SB.op SB.es))) Y Y' →
                    (∀ a → l2p (stXh (proj₁ Y')) a ≡ l2p (stXh (proj₁ Y)) a)
                  × (∀ a q → a ≤ amax → l2p (stXh (proj₁ Y)) a ≡ just q →
                       dat (stXh (proj₁ Y')) q ≡ dat (stXh (proj₁ Y)) q)
block-erase-safeh r ih (k , rn , _) = run-safeh r ih rn

-- the hold over the block layer: a block erase from the chain phase
-- erases only pages free in the hold at its start and keeps the hold,
-- or ends with nothing held
run-hold : ∀ {x ps x'} → RIQ (proj₁ x) → Ih x → proj₁ (proj₁ x) ≡ true → EsRunM x ps x' →
           (All (λ p → proj₂ x p ≡ false) ps × proj₂ x' ≡ proj₂ x) ⊎ proj₂ x' ≡ none
run-hold {x} r ih c (one s) with proj₂ (proj₂ (esh-page {x} r ih s)) c
... | _ , inj₁ (h , k) = inj₁ (h ∷ [] , k)
... | _ , inj₂ (_ , n) = inj₂ n
run-hold {x} r ih c (_∷_ {ps = ps} s rn)
  with proj₂ (proj₂ (esh-page {x} r ih s)) c | OXh.B-ok (SB.reg (SB.op SB.es)) {x} (r , ih) (proj₁ s)
... | c1 , inj₁ (h , k) | r1 , ih1 with run-hold r1 ih1 c1 rn
...   | inj₁ (al , k1) = inj₁ (h ∷ subst (λ H → All (λ p → H p ≡ false) ps) k al , trans k1 k)
...   | inj₂ n = inj₂ n
run-hold {x} r ih c (_∷_ s rn) | c1 , inj₂ (_ , n) | r1 , ih1 with run-hold r1 ih1 c1 rn
...   | inj₁ (_ , k1) = inj₂ (trans k1 n)
...   | inj₂ n1 = inj₂ n1

------------------------------------------------------------------------
-- Not vacuous: from the chain phase, a block whose pages are erasable
-- and free in the hold is erased by a step of BXh (the code's erase of a
-- superblock it does not hold), and every write and relocation of PXh
-- is a step of BXh wherever the block rules find its page

-- one page: PXh's chain-phase erase, changing only that page
hold-es : ∀ {S H p} → ues (su S) ≡ [] → ers (st (su S)) p ≡ true → H p ≡ false →
          EsM ((true , S) , H) p ((true , lzS (esF p (st (su S))) (gh S)) , H)
hold-es ue e h = inj₂ (inj₁ (refl , ue , _ , refl , (_ , e , h , refl , refl))) , refl

-- a run of them over distinct pages
hold-run : ∀ {S H} p ps → ues (su S) ≡ [] → AllPairs (λ q r → q ≢ r) (p ∷ ps) →
           All (λ q → ers (st (su S)) q ≡ true × H q ≡ false) (p ∷ ps) →
           Σ XH λ x' → EsRunM ((true , S) , H) (p ∷ ps) x'
hold-run p [] ue _ ((e , h) ∷ []) = _ , one (hold-es ue e h)
hold-run {S} {H} p (q ∷ qs) ue (ne ∷ u) ((e , h) ∷ rest)
  with hold-run {lzS (esF p (st (su S))) (gh S)} {H} q qs refl u
         (All.zipWith (λ (n , e , h) → trans (upd-other (ers (st (su S))) false (λ qp → n (sym qp))) e , h) (ne , rest))
... | x' , rn = x' , (hold-es ue e h ∷ rn)

-- so a block erase of BXh
hold-block : ∀ {S H bl k p ps} → owners bl k ≡ p ∷ ps → ues (su S) ≡ [] →
             AllPairs (λ q r → q ≢ r) (p ∷ ps) →
             All (λ q → ers (st (su S)) q ≡ true × H q ≡ false) (p ∷ ps) →
             Σ XH λ x' → SB.Model.ok BXh (SB.use (SB.reg (SB.op SB.es))) (((true , S) , H) , bl) (x' , berase k bl)
hold-block {S} {H} {bl} {k} {p} {ps} eo ue u al with hold-run {S} {H} p ps ue u al
... | x' , rn = x' , k , subst (λ l → EsRunM ((true , S) , H) l x') (sym eo) rn , refl

private
  -- PXh's writes and relocations are PX's (no way out among them)
  stay-w : ∀ a d {x x'} → RIQ (proj₁ x) → Ih x → SB.Model.ok PXh (SB.use (SB.reg (SB.op (SB.w a d)))) x x' →
           Grow (stXh x) (stXh x')
  stay-w a d {x} {x'} r ih (inj₁ o) = grow-w a d {proj₁ x} {proj₁ x'} (toPX-ok _ {x} {x'} r ih (inj₁ o))
  stay-w a d {x} {x'} r ih (inj₂ (inj₁ o)) = grow-w a d {proj₁ x} {proj₁ x'} (toPX-ok _ {x} {x'} r ih (inj₂ o))
  stay-w a d {(true , S) , H} r ih (inj₂ (inj₂ ()))
  stay-w a d {(false , S) , H} r ih (inj₂ (inj₂ ()))

  stay-rl : ∀ {x x'} → RIQ (proj₁ x) → Ih x → SB.Model.ok PXh (SB.use (SB.reg (SB.op SB.rl))) x x' →
            Grow (stXh x) (stXh x')
  stay-rl {x} {x'} r ih (inj₁ o) = grow-rl {proj₁ x} {proj₁ x'} (toPX-ok _ {x} {x'} r ih (inj₁ o))
  stay-rl {x} {x'} r ih (inj₂ (inj₁ o)) = grow-rl {proj₁ x} {proj₁ x'} (toPX-ok _ {x} {x'} r ih (inj₂ o))
  stay-rl {(true , S) , H} r ih (inj₂ (inj₂ ()))
  stay-rl {(false , S) , H} r ih (inj₂ (inj₂ ()))

bx-wh : ∀ a d {x x' bl} → RIQ (proj₁ x) → Ih x → SB.Model.ok PXh (SB.use (SB.reg (SB.op (SB.w a d)))) x x' →
        (nxt (stXh x') ≡ suc (nxt (stXh x)) → Σ ℕ λ k → AllocOK (stXh x) bl k) →
        Σ BL λ bl' → SB.Model.ok BXh (SB.use (SB.reg (SB.op (SB.w a d)))) (x , bl) (x' , bl')
bx-wh a d {x} {x'} {bl} r ih o al = proj₁ P , o , proj₂ P
  where P = grow-place {x} {x'} {bl} (stay-w a d {x} {x'} r ih o) al

bx-rlh : ∀ {x x' bl} → RIQ (proj₁ x) → Ih x → SB.Model.ok PXh (SB.use (SB.reg (SB.op SB.rl))) x x' →
         (nxt (stXh x') ≡ suc (nxt (stXh x)) → Σ ℕ λ k → AllocOK (stXh x) bl k) →
         Σ BL λ bl' → SB.Model.ok BXh (SB.use (SB.reg (SB.op SB.rl))) (x , bl) (x' , bl')
bx-rlh {x} {x'} {bl} r ih o al = proj₁ P , o , proj₂ P
  where P = grow-place {x} {x'} {bl} (stay-rl {x} {x'} r ih o) al

-- the code's way out (`release_hold`) in BXh: the chain's consolidation
-- page, synced, as a SYNC of the chain phase, after which nothing is
-- held...
release : ∀ {S H bl} → ues (su S) ≡ [] →
          SB.Model.ok BXh (SB.use (SB.reg (SB.op SB.sy))) (((true , S) , H) , bl)
                      (((true , lzS (konsS (st (su S))) (gh S)) , none) , bl)
release ue = inj₂ (inj₂ (refl , ue , refl , refl)) , refl

-- ...then the erase of any block whose pages are distinct and erasable
release-erase : ∀ {S bl k p ps} → owners bl k ≡ p ∷ ps → AllPairs (λ q r → q ≢ r) (p ∷ ps) →
                All (λ q → ers (konsS (st (su S))) q ≡ true) (p ∷ ps) →
                Σ XH λ x' → SB.Model.ok BXh (SB.use (SB.reg (SB.op SB.es)))
                                        (((true , lzS (konsS (st (su S))) (gh S)) , none) , bl) (x' , berase k bl)
release-erase {S} {bl} {k} {p} {ps} eo u al =
  hold-block {lzS (konsS (st (su S))) (gh S)} {none} {bl} {k} {p} {ps} eo refl u (All.map (_, refl) al)
