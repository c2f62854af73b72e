{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: the layer's start is
-- the first recovery of a new disk.
--
-- SCFTL.Impl.SpaceLayer proves space progress for every state its layer
-- reaches from a state of `Start` (nothing mapped, P's write counter 0,
-- every block free at write pointer 0, the open block below P).  Here:
--
--   `new-rec`   : the one model's recovery of a new disk (either of
--                 PUSBic's recoveries: with the full checkpoint, `RecOk`,
--                 or without it, `RecC`) maps nothing and counts no write
--                 — the slot it picks is format's empty map, the region
--                 holds no epoch, the durable part is empty;
--   `new-start` : so the block layer's recovery of a new disk leaves a
--                 state of `Start` (its invariant from the obligations'
--                 `init-CI` and `B-rec`; `forget` keeps every block free
--                 and at write pointer 0), given a new disk whose open
--                 block is a data block (below P);
--   **`space-progress-one`** : for every configuration that passes the
--                 code's constraints (`Valid`) with the one model's
--                 geometry (L = amax + 1, W = wmax + 1, S = Z), every
--                 state the layer reaches, under the code's policies and
--                 without a crash, from the first recovery of a new disk
--                 finds room for a wanted write (and `layer-reloc`,
--                 `layer-victim` hold there too, through `layer-inv`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceLayerStart (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (ℕ; suc; _<_)
open import Relation.Nullary using (¬_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; cong₂)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (Map; Cell; l2p; wcnt; gcnt; nxt; cpL; cpO; dr; pick; cur; unmapped)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; NewX; okPX)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; obligationsBXone)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb using (BL; ab; wp; fr; Z; forget-fr; forget-wp0)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb using (Gh; cv; gn; BlockFor)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; LStepT; Start; G0; layer-inv; layer-write; Unclassed; usedOf; gc-live)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

module OBX = SB.ForwardSimulation.Obligations obligationsBXone

------------------------------------------------------------------------
-- The first recovery of a new disk

private
  -- a region with an epoch in it is not empty
  lay-ne : ∀ (es : List UEp) x (pr : List Cell) → lay es (x ∷ pr) ≢ []
  lay-ne []              x pr ()
  lay-ne ((c , ts) ∷ es) x pr e = lay-ne es c (ts ++ x ∷ pr) e

  -- an empty region parses to no epoch
  parse-none : ∀ (T : List Cell) (es : List UEp) → [] ≡ T ++ lay es [] → es ≡ []
  parse-none []      []              _ = refl
  parse-none []      ((c , ts) ∷ es) e = ⊥-elim (lay-ne es c (ts ++ []) (sym e))
  parse-none (_ ∷ _) es ()

  -- the slot format leaves: its map is the empty one
  pick-new : ∀ {b : Bool} {g : ℕ} {C : Map} → _≡_ {A = Maybe (Bool × ℕ × Map)} (just (true , 0 , unmapped)) (just (b , g , C)) →
             C ≡ unmapped
  pick-new refl = refl

  -- the recovered map from format's empty map, no epoch, no durable part
  recM-empty : ∀ g C (pr : List Cell) (es : List UEp) s → pr ≡ [] → es ≡ [] → C ≡ unmapped →
               ∀ a → recM g C pr es s a ≡ nothing
  recM-empty g .unmapped .[] .[] s refl refl refl a = refl

new-rec : ∀ {X X'} → NewX X → okPX SB.recover X X' → (∀ b → l2p (stX X') b ≡ nothing) × wcnt (stX X') ≡ 0
new-rec {false , S} {.false , S'} (refl , (cL , cO , d0r , _) , _ , gh0) (refl , inj₁ ((b , g , C , pk , T , es' , p , _ , e) , _)) =
  (λ a → trans (cong (λ z → l2p z a) e) (recM-empty g C (proj₂ (gh S)) es' (st (su S)) (cong proj₂ gh0) es0 C0 a)) ,
  cong wcnt e
  where
  C0 : C ≡ unmapped
  C0 = pick-new (trans (sym (cong₂ (λ x y → pick (cur x) (cur y)) cL cO)) pk)
  es0 : es' ≡ []
  es0 = parse-none T es' (trans (sym (cong (map cur) d0r)) (trans (proj₁ p) (cong (λ pr → T ++ lay es' pr) (cong proj₂ gh0))))
new-rec {false , S} {.false , S'} (refl , (cL , cO , d0r , _) , _ , gh0) (refl , inj₂ ((b , g , C , pk , T , es' , p , _ , _ , _ , e) , _)) =
  (λ a → trans (cong (λ z → l2p z a) e) (recM-empty g C (proj₂ (gh S)) es' (st (su S)) (cong proj₂ gh0) es0 C0 a)) ,
  cong wcnt e
  where
  C0 : C ≡ unmapped
  C0 = pick-new (trans (sym (cong₂ (λ x y → pick (cur x) (cur y)) cL cO)) pk)
  es0 : es' ≡ []
  es0 = parse-none T es' (trans (sym (cong (map cur) d0r)) (trans (proj₁ p) (cong (λ pr → T ++ lay es' pr) (cong proj₂ gh0))))

-- ... and counts no relocation
new-gc0 : ∀ {X X'} → NewX X → okPX SB.recover X X' → gcnt (stX X') ≡ 0
new-gc0 {false , S} {.false , S'} (refl , _) (refl , inj₁ ((_ , _ , _ , _ , _ , _ , _ , _ , e) , _)) = cong gcnt e
new-gc0 {false , S} {.false , S'} (refl , _) (refl , inj₂ ((_ , _ , _ , _ , _ , _ , _ , _ , _ , _ , e) , _)) = cong gcnt e

-- the block layer's recovery of a new disk leaves the layer's start
new-start : ∀ {c X bl X' bl'} → SB.Model.New BXone (X , bl) → SB.Model.ok BXone SB.recover (X , bl) (X' , bl') →
            ab bl < Sp.P c → Start c X' bl'
new-start {c} {X} {bl} {X'} (nx , nbl , nd) (o , refl) abP = record
  { ri = OBX.B-rec {X , bl} (OBX.init-CI {X , bl} (nx , nbl , nd)) (o , refl)
  ; empty = λ b _ → proj₁ (new-rec nx o) b
  ; wc0 = proj₂ (new-rec nx o)
  ; gc0 = new-gc0 nx o
  ; allFr = λ j → forget-fr {bl} (nxt (stX X')) j (proj₂ (proj₂ nbl) j)
  ; allWp = λ j → forget-wp0 {bl} (nxt (stX X')) j (proj₁ (proj₂ nbl) j)
  ; abP = abP }

------------------------------------------------------------------------
-- Space progress for the one model, without a crash after the first
-- recovery of a new disk

space-progress-one : ∀ {c X0 bl0 X1 bl1 G X bl} → Sp.Valid c →
                     Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                     SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                     Star (LStep c) (G0 , X1 , bl1) (G , X , bl) →
                     cv G ≡ nothing → wcnt (stX X) < Sp.W c → BlockFor c G bl
space-progress-one V eL eW eS new r abP run nocv wl =
  layer-write V eS (layer-inv eL eW eS (new-start new r abP) run) nocv wl

------------------------------------------------------------------------
-- What a mutant of the layer must break (proofs/README.md, "Mutants
-- that must fail", mutant 48): the layer with a configuration and a GC
-- timing, and space progress from the first recovery of a new disk

record LayerPolicy : Set₁ where
  field
    cfg    : Sp.Config
    timing : ℕ → List ℕ → Set
open LayerPolicy public

LayerProgress : LayerPolicy → Set
LayerProgress Q =
  ∀ {X0 bl0 X1 bl1 G X bl} →
  SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P (cfg Q) →
  Star (LStepT (cfg Q) (timing Q)) (G0 , X1 , bl1) (G , X , bl) →
  cv G ≡ nothing → wcnt (stX X) < Sp.W (cfg Q) → BlockFor (cfg Q) G bl

-- the code's policy has it, for every configuration passing the
-- constraints with the one model's geometry
code-policy : Sp.Config → LayerPolicy
code-policy c = record { cfg = c ; timing = Sp.NotNeeded c }

layer-progress : ∀ c → Sp.Valid c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                 LayerProgress (code-policy c)
layer-progress c V eL eW eS = space-progress-one V eL eW eS

------------------------------------------------------------------------
-- What mutant 52 must break: GC is live (SpaceLayer's `gc-live`) — a
-- layer, with a configuration and its steps, takes a victim in two
-- ghost steps from every state it reaches from the first recovery of a
-- new disk where the code's write would need GC before it opens a block
-- and a free block below P is there

record GcPolicy : Set₁ where
  field
    gcfg : Sp.Config
    step : LS → LS → Set
open GcPolicy public

GcLive : GcPolicy → Set
GcLive Q =
  ∀ {X0 bl0 X1 bl1 G X bl kn} →
  SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P (gcfg Q) →
  Star (step Q) (G0 , X1 , bl1) (G , X , bl) →
  wp bl (ab bl) ≡ Z → Unclassed G (ab bl) → fr bl kn ≡ true → kn < Sp.P (gcfg Q) →
  cv G ≡ nothing → gn G < Sp.K (gcfg Q) → ¬ Sp.NotNeeded (gcfg Q) (gn G) (0 ∷ usedOf (gcfg Q) G X bl) →
  Σ Gh λ G1 → Σ Gh λ G2 → Σ ℕ λ k →
    step Q (G , X , bl) (G1 , X , bl) × step Q (G1 , X , bl) (G2 , X , bl) × cv G2 ≡ just k

-- the code's layer has it, for every configuration passing the
-- constraints with the one model's geometry
code-gc-live : ∀ c → Sp.Valid c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
               GcLive (record { gcfg = c ; step = LStep c })
code-gc-live c V eL eW eS new r abP run =
  gc-live V eL eW eS (layer-inv eL eW eS (new-start new r abP) run)
