{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, blocks: the block-level model B and its refinement to P.
--
-- B adds to P what the NAND rules and the Rust's superblocks impose
-- (crates/ftl/src/scftl/blocks.rs, gc.rs, datapath.rs; crates/flash):
--   * physical data pages grouped in blocks of Z = suc zb ≥ 1 pages,
--     addressed (block, offset), with their own contents and sync
--     status (`pf`, crash outcome per physical page);
--   * a write pointer per block (`wp`): a block's pages are allocated,
--     hence programmed, in order; a sector is placed only at the write
--     pointer of the open block (`ab`) or of an erased block taken for
--     reuse (`fr`), and only if that physical page is erased
--     (erase-before-program, checked on the physical page);
--   * erase is per block (`berase`): every page of the block located
--     there goes through P's `esF`, each one erasable in P's sense (`ers`)
--     when its turn comes (`EsRun`), the open block is never erased, and
--     the erased block becomes reusable (`fr`, write pointer 0).
-- P's page names stay abstract: each *incarnation* of a physical page
-- (a placement at it, after an erase) is a fresh P page (P's `nxt`),
-- `loc` says where each P page was placed and `own` which incarnation a
-- physical page holds now, so reuse in B is a fresh page in P and a
-- whole-block erase is `esF` of each page located in the block.
--
-- The crash model (`BImg`): the physical pages crash as P's data pages
-- do (`CrashD` per *physical* page), metadata as in P, and each P page
-- takes, if it is located at its physical page and unsynced in P, that
-- physical page's outcome; otherwise (synced, or an older incarnation of
-- a reused page) its durable content.  So an erase of a block followed,
-- before the next SYNC, by a reprogram of the same physical page (what
-- `Blocks::activate_next` does: erase, then program, no sync between),
-- which leaves one physical cell, is a crash outcome P allows for both
-- incarnations (`crash-refines`).  What B keeps across a crash of its
-- block layer (`loc`, `own`, `wp`, `ab`, `fr`) is what the code rebuilds
-- by its scan; a free block whose erase did not survive is caught by the
-- erased-page check at its next program.
--
-- Results: every step of B is a step of P (`ok-refines`, a block erase
-- a run of P's `es` steps), every crash outcome of B one of P
-- (`crash-refines`); hence the obligations of §4.4 for B
-- (`obligationsB`, whose invariant `RIB` adds erase before program,
-- `EBP`, to P's RI), Theorem 1 for B (`theorem1-B`) and snapshot
-- consistency of B (`B-snapshot-consistent`).  Also: the merge buffer is
-- programmed only onto erased physical pages (`program-erased`), and a
-- block erase from a normal state erases no page either L2P maps
-- (`block-erase-safe`).  B's read here is P's (through P's pages);
-- SCFTL.Impl.BlocksRead proves that every page either L2P maps is
-- located at a physical page holding what P says, so the physical read
-- is P's (`read-physical`); see proofs/README.md, "Blocks".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Blocks (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) (zb : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_; _∧_)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Data.Empty using (⊥-elim)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (AR; CR; RI; CI; AR-tOf)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (obligations; gc-erase-safe)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; okS; crashS; Model; UOp; Op; use; flush; recover;
               RegOp; w; rl; es; SnapshotConsistent; obligations⇒SC; new-disk)
  renaming (reg to regop; New to NewS)
open Sp.ForwardSimulation P S using (Obligations; theorem1)
module OP = Obligations obligations

------------------------------------------------------------------------
-- Geometry

-- pages per block
Z : ℕ
Z = suc zb

-- a physical data page: (block, offset), offset < Z
PPg : Set
PPg = ℕ × ℕ

------------------------------------------------------------------------
-- States of B

record Bk : Set where
  field
    st  : St              -- P's state (memory, metadata pages, each P page)
    pf  : ℕ → ℕ → MC      -- physical data pages: block, offset
    loc : ℕ → PPg         -- where each P page (incarnation) was placed
    own : ℕ → ℕ → ℕ       -- the incarnation a physical page holds now
    wp  : ℕ → ℕ           -- per block: next offset to program (in order)
    ab  : ℕ               -- the open (active) block
    fr  : ℕ → Bool        -- erased blocks ready for reuse
open Bk public

-- P page p is located at its physical page (no later incarnation there)
here : Bk → ℕ → Bool
here b p = own b (proj₁ (loc b p)) (proj₂ (loc b p)) ≡ᵇ p

-- physical page (k , o) holds the P page placed there last
isLoc : Bk → ℕ → ℕ → Bool
isLoc b k o = (proj₁ (loc b (own b k o)) ≡ᵇ k) ∧ (proj₂ (loc b (own b k o)) ≡ᵇ o)

------------------------------------------------------------------------
-- Allocation: the next P page (P's nxt) at the write pointer of the open
-- block or of a reusable erased block, which becomes the open block; the
-- physical page there must be erased.

Opens : Bk → ℕ → Set
Opens b k = k ≡ ab b ⊎ fr b k ≡ true

AllocOK : Bk → ℕ → Set
AllocOK b k = Opens b k × wp b k < Z × cur (pf b k (wp b k)) ≡ erased

balloc : ℕ → Bk → Bk
balloc k b = record b
  { ab = k ; fr = fr b [ k ≔ false ]
  ; loc = loc b [ nxt (st b) ≔ (k , wp b k) ]
  ; own = own b [ k ≔ own b k [ wp b k ≔ nxt (st b) ] ]
  ; wp = wp b [ k ≔ suc (wp b k) ] }

------------------------------------------------------------------------
-- Physical commands mirroring P's data-page commands

-- program the merge buffer: each physical page holding a placed sector
pprog : Bk → ℕ → ℕ → MC
pprog b k o = if isLoc b k o then progm (mb (st b) (own b k o)) (pf b k o) else pf b k o

-- SYNC of the physical pages
psync : (ℕ → ℕ → MC) → ℕ → ℕ → MC
psync f k o = sync (f k o)

-- a P step that issues no data-page command
bP : (St → St) → Bk → Bk
bP f b = record b { st = f (st b) }

bprog : Bk → Bk
bprog b = record b { st = progMB (st b) ; pf = pprog b }

bprogIf bT : Bool → Bk → Bk
bprogIf true  b = bprog b
bprogIf false b = b
bT true  b = bP emitT b
bT false b = b

bopt : Bool → Bool → Bk → Bk
bopt f1 f2 b = bT f2 (bprogIf f1 b)

st-bopt : ∀ f1 f2 b → st (bopt f1 f2 b) ≡ opt f1 f2 (st b)
st-bopt true  true  b = refl
st-bopt true  false b = refl
st-bopt false true  b = refl
st-bopt false false b = refl

------------------------------------------------------------------------
-- Whole-block erase

-- the P pages located in block k (offsets below n)
ownersB : Bk → ℕ → ℕ → List ℕ
ownersB b k zero    = []
ownersB b k (suc o) = (if isLoc b k o then own b k o ∷ [] else []) ++ ownersB b k o

owners : Bk → ℕ → List ℕ
owners b k = ownersB b k Z

-- P's erase steps, one per page, each erasable when its turn comes
data EsRun : St → List ℕ → St → Set where
  one : ∀ {s p} → ers s p ≡ true → EsRun s (p ∷ []) (esF p s)
  _∷_ : ∀ {s p ps s'} → ers s p ≡ true → EsRun (esF p s) ps s' → EsRun s (p ∷ ps) s'

-- the block erased (one command), write pointer back to 0, reusable
berase : ℕ → St → Bk → Bk
berase k s' b = record b
  { st = s' ; pf = pf b [ k ≔ (λ o → put erased (pf b k o)) ]
  ; wp = wp b [ k ≔ 0 ] ; fr = fr b [ k ≔ true ] }

------------------------------------------------------------------------
-- Successful operations of B

okB : Op → Bk → Bk → Set
okB (use (regop (w a d))) b b' =
    (InB a (st b) × Σ ℕ λ k → AllocOK b k ×
       Σ Bool λ f1 → Σ Bool λ f2 → b' ≡ bopt f1 f2 (bP (wr0 a d) (balloc k b)))
  ⊎ (¬ InB a (st b) × b' ≡ b)
okB (use (regop rl)) b b' =
    (gcnt (st b) ≤ kmax × Σ ℕ λ p → p < nxt (st b) ×
       ((Valid (st b) p × Σ ℕ λ k → AllocOK b k ×
           Σ Bool λ f1 → Σ Bool λ f2 → b' ≡ bopt f1 f2 (bP (rl0 p) (balloc k b)))
        ⊎ (¬ Valid (st b) p × b' ≡ bP (rlX p) b)))
  ⊎ (¬ gcnt (st b) ≤ kmax × b' ≡ b)
okB (use (regop es)) b b' =
  Σ ℕ λ k → ¬ (k ≡ ab b) × Σ St λ s' → EsRun (st b) (owners b k) s' × b' ≡ berase k s' b
okB (use flush) b b' =
  Σ St λ s' → okP (use flush) (st b) s' × b' ≡ record b { st = s' ; pf = psync (pprog b) }
okB recover b b' =
  Σ St λ s' → okP recover (st b) s' × b' ≡ record b { st = s' ; pf = psync (pf b) }

------------------------------------------------------------------------
-- Crashes of B

settle : MC → MC
settle m = syn (dur m)

-- a P page's outcome: if located (h) and unsynced, its physical page's
-- outcome y; else its durable content
pickC : Bool → MC → MC → MC
pickC true  (syn c)   y = syn c
pickC true  (uns _ _) y = y
pickC false m         y = settle m

-- crash outcome b' of the crash point m
BImg : Bk → Bk → Set
BImg m b' =
    (∀ k o → CrashD (pf m k o) (pf b' k o))
  × CrashC (cpL (st m)) (cpL (st b')) × CrashC (cpO (st m)) (cpO (st b'))
  × CrashL (dr (st m)) (dr (st b')) × (∀ p → CrashC (rcd (st m) p) (rcd (st b') p))
  × (∀ p → dat (st b') p ≡ pickC (here m p) (dat (st m) p) (pf b' (proj₁ (loc m p)) (proj₂ (loc m p))))
  × (∀ p → loc b' p ≡ loc m p) × (∀ k o → own b' k o ≡ own m k o)
  × (∀ k → wp b' k ≡ wp m k) × ab b' ≡ ab m × (∀ k → fr b' k ≡ fr m k)

-- P's crash points before the flush's SYNC (the commit in a delta page,
-- in-page or in the OOB)
PreSync : St → St → Set
PreSync s m = m ≡ fl2 s ⊎ Σ ℕ λ M → m ≡ fi2 M s

-- crash points: the end state of a regular operation; for flush and
-- recovery P's crash points, with the physical pages programmed
-- (y = true: only before the SYNC) or programmed and synced
crashB : Op → Bk → Bk → Set
crashB (use (regop x)) b b' = Σ Bk λ m → okB (use (regop x)) b m × BImg m b'
crashB (use flush) b b' = Σ St λ m → FlPt (st b) m × Σ Bool λ y → (y ≡ true → PreSync (st b) m) ×
  BImg (record b { st = m ; pf = if y then pprog b else psync (pprog b) }) b'
crashB recover b b' = Σ Bool λ c → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL (st b))) (cur (cpO (st b))) ≡ just (c , g , C) ×
  Σ St λ m → CkPt (rec0 c g C (st b)) m × BImg (record b { st = m ; pf = psync (pf b) }) b'

-- new disks: P's, every physical page erased, every block reusable
NewB : Bk → Set
NewB b = NewP (st b) × (∀ k o → pf b k o ≡ syn erased) × (∀ k → wp b k ≡ 0) × (∀ k → fr b k ≡ true)

B : Model
B = record { State = Bk ; New = NewB ; read = λ b → rd (st b) ; ok = okB ; crash = crashB }

-- The crash outcome where every pending command landed (runs use it):
-- physical pages synced, each P page as `BImg` says.
land-D : ∀ x → CrashD x (sync x)
land-D (syn c)   = refl
land-D (uns o n) = n , refl

land-C : ∀ x → CrashC x (sync x)
land-C (syn c)   = refl
land-C (uns o n) = inj₂ (inj₁ refl)

land-L : ∀ xs → CrashL xs (map sync xs)
land-L []       = []
land-L (x ∷ xs) = land-C x ∷ land-L xs

-- the crash outcome with physical pages y and every metadata page landed
bcrash : Bk → (ℕ → ℕ → MC) → Bk
bcrash m y = record m
  { st = record (syncAll (st m))
      { dat = λ p → pickC (here m p) (dat (st m) p) (y (proj₁ (loc m p)) (proj₂ (loc m p))) }
  ; pf = y }

bcrash-img : ∀ m y → (∀ k o → CrashD (pf m k o) (y k o)) → BImg m (bcrash m y)
bcrash-img m y yd = yd , land-C (cpL (st m)) , land-C (cpO (st m))
            , land-L (dr (st m)) , (λ p → land-C (rcd (st m) p)) , (λ p → refl)
            , (λ p → refl) , (λ k o → refl) , (λ k → refl) , refl , (λ k → refl)

bland : Bk → Bk
bland m = bcrash m (psync (pf m))

bland-img : ∀ m → BImg m (bland m)
bland-img m = bcrash-img m (psync (pf m)) (λ k o → land-D (pf m k o))

------------------------------------------------------------------------
-- Refinement: B's steps are P's

crashD-syn : ∀ {m m'} → CrashD m m' → Σ Cell λ c → m' ≡ syn c
crashD-syn {syn c}   refl = c , refl
crashD-syn {uns _ _} e    = e

pick-crash : ∀ h m y → (Σ Cell λ c → y ≡ syn c) → CrashD m (pickC h m y)
pick-crash true  (syn c)   y e = refl
pick-crash true  (uns o n) y e = e
pick-crash false (syn c)   y e = refl
pick-crash false (uns o n) y e = o , refl

-- a crash outcome of B is one of P (the core: one physical cell for
-- every incarnation of a physical page)
img-refines : ∀ {m b'} → BImg m b' → Img (st m) (st b')
img-refines {m} {b'} (pd , c1 , c2 , cl , cr , dt , _) =
  (λ p → subst (CrashD (dat (st m) p)) (sym (dt p))
           (pick-crash (here m p) (dat (st m) p) _ (crashD-syn (pd _ _)))) ,
  c1 , c2 , cl , cr

-- what a B step is in P: the same operation, except a block erase,
-- which is a run of P's gc_es steps
PStep : Op → St → St → Set
PStep (use (regop es)) s s' = Σ (List ℕ) λ ps → EsRun s ps s'
PStep o                s s' = okP o s s'

ok-refines : ∀ o {b b'} → okB o b b' → PStep o (st b) (st b')
ok-refines (use (regop (w a d))) {b} (inj₁ (ib , k , _ , f1 , f2 , refl)) =
  inj₁ (ib , f1 , f2 , st-bopt f1 f2 (bP (wr0 a d) (balloc k b)))
ok-refines (use (regop (w a d))) (inj₂ (nb , refl)) = inj₂ (nb , refl)
ok-refines (use (regop rl)) {b} (inj₁ (g , p , lt , inj₁ (v , k , _ , f1 , f2 , refl))) =
  inj₁ (g , p , lt , inj₁ (v , f1 , f2 , st-bopt f1 f2 (bP (rl0 p) (balloc k b))))
ok-refines (use (regop rl)) (inj₁ (g , p , lt , inj₂ (nv , refl))) = inj₁ (g , p , lt , inj₂ (nv , refl))
ok-refines (use (regop rl)) (inj₂ (ng , refl)) = inj₂ (ng , refl)
ok-refines (use (regop es)) {b} (k , _ , s' , r , refl) = owners b k , r
ok-refines (use flush) (s' , o , refl) = o
ok-refines recover (s' , o , refl) = o

-- P's erase steps before the last one of a block erase (possibly none)
data EsPre : St → St → Set where
  none : ∀ {s} → EsPre s s
  step : ∀ {s p s1} → ers s p ≡ true → EsPre (esF p s) s1 → EsPre s s1

es-last : ∀ {s ps s'} → EsRun s ps s' →
  Σ St λ s1 → EsPre s s1 × Σ ℕ λ p → ers s1 p ≡ true × s' ≡ esF p s1
es-last (one e) = _ , none , _ , e , refl
es-last (e ∷ r) with es-last r
... | s1 , pre , p , e1 , eq = s1 , step e pre , p , e1 , eq

-- what a crashed B step is in P: the same crashed operation, except a
-- crashed block erase: P's gc_es steps, then a crashed gc_es
PCrash : Op → St → St → Set
PCrash (use (regop es)) s s' = Σ St λ s1 → EsPre s s1 × crashP (use (regop es)) s1 s'
PCrash o                s s' = crashP o s s'

crash-refines : ∀ o {b b'} → crashB o b b' → PCrash o (st b) (st b')
crash-refines (use (regop (w a d))) {b} {b'} (m , okm , img) =
  st m , ok-refines (use (regop (w a d))) {b} {m} okm , img-refines {m} {b'} img
crash-refines (use (regop rl)) {b} {b'} (m , okm , img) =
  st m , ok-refines (use (regop rl)) {b} {m} okm , img-refines {m} {b'} img
crash-refines (use (regop es)) {b} {b'} (m , okm , img) with ok-refines (use (regop es)) {b} {m} okm
... | ps , r with es-last r
...   | s1 , pre , p , e1 , eq = s1 , pre , st m , (p , e1 , eq) , img-refines {m} {b'} img
crash-refines (use flush) {b} {b'} (m , fp , y , _ , img) =
  m , fp , img-refines {record b { st = m ; pf = if y then pprog b else psync (pprog b) }} {b'} img
crash-refines recover {b} {b'} (c , g , C , pk , m , ck , img) =
  c , g , C , pk , m , ck , img-refines {record b { st = m ; pf = psync (pf b) }} {b'} img

------------------------------------------------------------------------
-- The obligations of §4.4 for B, from P's (AR, CR, RI, CI of B are P's
-- on the P state B carries)

es-run : ∀ {s t ps s'} → AR s t → RI s → EsRun s ps s' → AR s' t × RI s'
es-run ar ri (one e) with OP.A-ok (regop es) ar ri (_ , e , refl)
... | t1 , refl , ar1 = ar1 , OP.B-ok (regop es) ri (_ , e , refl)
es-run ar ri (e ∷ r) with OP.A-ok (regop es) ar ri (_ , e , refl)
... | t1 , refl , ar1 = es-run ar1 (OP.B-ok (regop es) ri (_ , e , refl)) r

es-pre : ∀ {s t s1} → AR s t → RI s → EsPre s s1 → AR s1 t × RI s1
es-pre ar ri none = ar , ri
es-pre ar ri (step e r) with OP.A-ok (regop es) ar ri (_ , e , refl)
... | t1 , refl , ar1 = es-pre ar1 (OP.B-ok (regop es) ri (_ , e , refl)) r

A-okB : ∀ u {b t b'} → AR (st b) t → RI (st b) → okB (use u) b b' →
  Σ State λ t' → okS (use u) t t' × AR (st b') t'
A-okB (regop (w a d)) {b} {t} {b'} ar ri x = OP.A-ok (regop (w a d)) ar ri (ok-refines (use (regop (w a d))) {b} {b'} x)
A-okB (regop rl)      {b} {t} {b'} ar ri x = OP.A-ok (regop rl) ar ri (ok-refines (use (regop rl)) {b} {b'} x)
A-okB (regop es) {b} {t} {b'} ar ri x with ok-refines (use (regop es)) {b} {b'} x
... | ps , r = t , refl , proj₁ (es-run ar ri r)
A-okB flush           {b} {t} {b'} ar ri x = OP.A-ok flush ar ri (ok-refines (use flush) {b} {b'} x)

B-okB : ∀ u {b b'} → RI (st b) → okB (use u) b b' → RI (st b')
B-okB (regop (w a d)) {b} {b'} ri x = OP.B-ok (regop (w a d)) ri (ok-refines (use (regop (w a d))) {b} {b'} x)
B-okB (regop rl)      {b} {b'} ri x = OP.B-ok (regop rl) ri (ok-refines (use (regop rl)) {b} {b'} x)
B-okB (regop es) {b} {b'} ri x with ok-refines (use (regop es)) {b} {b'} x
... | ps , r = proj₂ (es-run (AR-tOf (st b)) ri r)
B-okB flush           {b} {b'} ri x = OP.B-ok flush ri (ok-refines (use flush) {b} {b'} x)

A-crashB : ∀ u {b t b'} → AR (st b) t → RI (st b) → crashB (use u) b b' →
  Σ State λ t' → crashS (use u) t t' × CR (st b') t'
A-crashB (regop (w a d)) {b} {t} {b'} ar ri x = OP.A-crash (regop (w a d)) ar ri (crash-refines (use (regop (w a d))) {b} {b'} x)
A-crashB (regop rl)      {b} {t} {b'} ar ri x = OP.A-crash (regop rl) ar ri (crash-refines (use (regop rl)) {b} {b'} x)
A-crashB (regop es)      {b} {t} {b'} ar ri x with crash-refines (use (regop es)) {b} {b'} x
... | s1 , pre , c with es-pre ar ri pre
...   | ar1 , ri1 = OP.A-crash (regop es) ar1 ri1 c
A-crashB flush           {b} {t} {b'} ar ri x = OP.A-crash flush ar ri (crash-refines (use flush) {b} {b'} x)

B-crashB : ∀ u {b b'} → RI (st b) → crashB (use u) b b' → CI (st b')
B-crashB (regop (w a d)) {b} {b'} ri x = OP.B-crash (regop (w a d)) ri (crash-refines (use (regop (w a d))) {b} {b'} x)
B-crashB (regop rl)      {b} {b'} ri x = OP.B-crash (regop rl) ri (crash-refines (use (regop rl)) {b} {b'} x)
B-crashB (regop es) {b} {b'} ri x with crash-refines (use (regop es)) {b} {b'} x
... | s1 , pre , c with es-pre (AR-tOf (st b)) ri pre
...   | _ , ri1 = OP.B-crash (regop es) ri1 c
B-crashB flush           {b} {b'} ri x = OP.B-crash flush ri (crash-refines (use flush) {b} {b'} x)

------------------------------------------------------------------------
-- Erase before program, proven: in every normal state of B, each P page
-- in the merge buffer (placed, not yet programmed) that is located at
-- its physical page finds that page erased, so the merge buffer's
-- program (`pprog`) programs only erased physical pages.  Part of B's
-- representation invariant (`RIB`).

EBP : Bk → Set
EBP b = ∀ p → ¬ (mb (st b) p ≡ nothing) → here b p ≡ true →
        cur (pf b (proj₁ (loc b p)) (proj₂ (loc b p))) ≡ erased

≡ᵇ-refl : ∀ n → (n ≡ᵇ n) ≡ true
≡ᵇ-refl zero    = refl
≡ᵇ-refl (suc n) = ≡ᵇ-refl n

≡ᵇ-true : ∀ m n → (m ≡ᵇ n) ≡ true → m ≡ n
≡ᵇ-true zero    zero    e = refl
≡ᵇ-true (suc m) (suc n) e = cong suc (≡ᵇ-true m n e)
≡ᵇ-true zero    (suc n) ()
≡ᵇ-true (suc m) zero    ()

-- a page other than the one allocated stays located only where it was
here-upd : ∀ (ow : ℕ → ℕ → ℕ) k wq n k' o' p → (p ≡ᵇ n) ≡ false →
  (((ow [ k ≔ ow k [ wq ≔ n ] ]) k' o') ≡ᵇ p) ≡ true → (ow k' o' ≡ᵇ p) ≡ true
here-upd ow k wq n k' o' p e h with k' ≡ᵇ k in ek
... | false = h
... | true with o' ≡ᵇ wq
...   | true with ≡ᵇ-true n p h
...     | refl with trans (sym e) (≡ᵇ-refl n)
...       | ()
here-upd ow k wq n k' o' p e h | true | false rewrite ≡ᵇ-true k' k ek = h

place-mb : ∀ {s a d} p → (p ≡ᵇ nxt s) ≡ false → mb (place a d s) p ≡ mb s p
place-mb p e rewrite e = refl

ebp-alloc : ∀ {b k} (f : St → St) → EBP b → AllocOK b k →
  (∀ p → (p ≡ᵇ nxt (st b)) ≡ false → mb (f (st b)) p ≡ mb (st b) p) →
  EBP (bP f (balloc k b))
ebp-alloc {b} {k} f ebp (_ , _ , er) fm p nm h with p ≡ᵇ nxt (st b) in e
... | true  = er
... | false = ebp p (λ eq → nm (trans (fm p e) eq))
                (here-upd (own b) k (wp b k) (nxt (st b)) (proj₁ (loc b p)) (proj₂ (loc b p)) p e h)

ebp-opt : ∀ f1 f2 {b} → EBP b → EBP (bopt f1 f2 b)
ebp-opt true  true  ebp p nm h = ⊥-elim (nm refl)
ebp-opt true  false ebp p nm h = ⊥-elim (nm refl)
ebp-opt false true  ebp = ebp
ebp-opt false false ebp = ebp

es-mb : ∀ {s ps s'} → EsRun s ps s' → ∀ p → mb s' p ≡ mb s p
es-mb (one e) p = refl
es-mb (e ∷ r) p = es-mb r p

ebp-erase : ∀ {b k ps s'} → EBP b → EsRun (st b) ps s' → EBP (berase k s' b)
ebp-erase {b} {k} ebp r p nm h with proj₁ (loc b p) ≡ᵇ k
... | true  = refl
... | false = ebp p (λ eq → nm (trans (es-mb r p) eq)) h

fl-mb : ∀ {s s'} → okP (use flush) s s' → ∀ p → mb s' p ≡ nothing
fl-mb (inj₁ refl) p = refl
fl-mb (inj₂ (inj₁ refl)) p = refl
fl-mb (inj₂ (inj₂ (inj₁ (L , ip , inj₁ refl)))) p = refl
fl-mb (inj₂ (inj₂ (inj₁ (L , ip , inj₂ refl)))) p = refl
fl-mb (inj₂ (inj₂ (inj₂ (L , M , op , inj₁ refl)))) p = refl
fl-mb (inj₂ (inj₂ (inj₂ (L , M , op , inj₂ refl)))) p = refl

rec-mb : ∀ {s s'} → okP recover s s' → ∀ p → mb s' p ≡ nothing
rec-mb (c , g , C , pk , inj₁ refl) p = refl
rec-mb (c , g , C , pk , inj₂ (_ , _ , refl)) p = refl

ebp-ok : ∀ o {b b'} → EBP b → okB o b b' → EBP b'
ebp-ok (use (regop (w a d))) {b} ebp (inj₁ (ib , k , aok , f1 , f2 , refl)) =
  ebp-opt f1 f2 {bP (wr0 a d) (balloc k b)} (ebp-alloc {b} {k} (wr0 a d) ebp aok (λ p e → place-mb {st b} p e))
ebp-ok (use (regop (w a d))) ebp (inj₂ (_ , refl)) = ebp
ebp-ok (use (regop rl)) {b} ebp (inj₁ (g , q , lt , inj₁ (v , k , aok , f1 , f2 , refl))) =
  ebp-opt f1 f2 {bP (rl0 q) (balloc k b)} (ebp-alloc {b} {k} (rl0 q) ebp aok (λ p e → place-mb {st b} p e))
ebp-ok (use (regop rl)) ebp (inj₁ (g , q , lt , inj₂ (_ , refl))) = ebp
ebp-ok (use (regop rl)) ebp (inj₂ (_ , refl)) = ebp
ebp-ok (use (regop es)) {b} ebp (k , _ , s' , r , refl) = ebp-erase {b} {k} ebp r
ebp-ok (use flush) {b} ebp (s' , o , refl) p nm h = ⊥-elim (nm (fl-mb {st b} o p))
ebp-ok recover {b} ebp (s' , o , refl) p nm h = ⊥-elim (nm (rec-mb {st b} o p))

ebp-rec : ∀ {b b'} → okB recover b b' → EBP b'
ebp-rec {b} (s' , o , refl) p nm h = ⊥-elim (nm (rec-mb {st b} o p))

pair-eq : ∀ {x : ℕ × ℕ} {k o} → (proj₁ x ≡ᵇ k) ≡ true → (proj₂ x ≡ᵇ o) ≡ true → x ≡ (k , o)
pair-eq {x₁ , x₂} {k} {o} e1 e2 rewrite ≡ᵇ-true x₁ k e1 | ≡ᵇ-true x₂ o e2 = refl

-- every program of the merge buffer in a normal state is of an erased
-- physical page
program-erased : ∀ {b} → EBP b → ∀ k o → isLoc b k o ≡ true →
  ¬ (mb (st b) (own b k o) ≡ nothing) → cur (pf b k o) ≡ erased
program-erased {b} ebp k o il nm with proj₁ (loc b (own b k o)) ≡ᵇ k in e1 | proj₂ (loc b (own b k o)) ≡ᵇ o in e2
... | true | true = subst (λ x → cur (pf b (proj₁ x) (proj₂ x)) ≡ erased) lk
                      (ebp (own b k o) nm (subst (λ x → (own b (proj₁ x) (proj₂ x) ≡ᵇ own b k o) ≡ true) (sym lk) (≡ᵇ-refl (own b k o))))
  where
    lk : loc b (own b k o) ≡ (k , o)
    lk = pair-eq e1 e2
... | false | _     = ⊥-elim (f≢t il)
  where
    f≢t : ¬ (false ≡ true)
    f≢t ()
... | true  | false = ⊥-elim (f≢t il)
  where
    f≢t : ¬ (false ≡ true)
    f≢t ()

-- B's representation invariant: P's, and erase before program
RIB : Bk → Set
RIB b = RI (st b) × EBP b

module FB = Sp.ForwardSimulation B S

obligationsB : FB.Obligations
obligationsB = record
  { AR = λ b t → AR (st b) t ; CR = λ b t → CR (st b) t
  ; RI = RIB ; CI = λ b → CI (st b)
  ; AR⇒≈    = OP.AR⇒≈
  ; init-CR = λ {b} {t} n nt → OP.init-CR {st b} {t} (proj₁ n) nt
  ; init-CI = λ {b} n → OP.init-CI {st b} (proj₁ n)
  ; A-ok    = λ u {b} {t} {b'} ar ri x → A-okB u {b} {t} {b'} ar (proj₁ ri) x
  ; A-crash = λ u {b} {t} {b'} ar ri x → A-crashB u {b} {t} {b'} ar (proj₁ ri) x
  ; A-rec   = λ {b} {t} {b'} cr ci x → OP.A-rec {st b} {t} {st b'} cr ci (ok-refines recover {b} {b'} x)
  ; A-recᶜ  = λ {b} {t} {b'} cr ci x → OP.A-recᶜ {st b} {t} {st b'} cr ci (crash-refines recover {b} {b'} x)
  ; B-ok    = λ u {b} {b'} ri x → B-okB u {b} {b'} (proj₁ ri) x , ebp-ok (use u) {b} {b'} (proj₂ ri) x
  ; B-crash = λ u {b} {b'} ri x → B-crashB u {b} {b'} (proj₁ ri) x
  ; B-rec   = λ {b} {b'} ci x → OP.B-rec {st b} {st b'} ci (ok-refines recover {b} {b'} x) , ebp-rec {b} {b'} x
  ; B-recᶜ  = λ {b} {b'} ci x → OP.B-recᶜ {st b} {st b'} ci (crash-refines recover {b} {b'} x)
  }

-- Theorem 1 for B: behaviourally correct with respect to S.
theorem1-B : Sp.Correspondence.BehaviourallyCorrect B S
theorem1-B = FB.theorem1 obligationsB new-disk

-- B is snapshot-consistent.
B-snapshot-consistent : SnapshotConsistent B
B-snapshot-consistent = obligations⇒SC B obligationsB

------------------------------------------------------------------------
-- Design property: a whole-block erase from a normal state destroys no
-- live sector.  Every P page located in the erased block (every
-- physical page of it that holds the incarnation placed there last) is
-- mapped by neither the volatile nor the stable L2P (P's gc-erase-safe,
-- page by page along the erase run).

Dead : St → ℕ → Set
Dead s p = (∀ a → a ≤ amax → l2p s a ≢ just p) × (∀ a → a ≤ amax → smap s a ≢ just p)

es-dead : ∀ {s ps s'} → RI s → EsRun s ps s' → All (Dead s) ps
es-dead ri (one {p = p} e) = proj₂ (proj₂ (gc-erase-safe ri (p , e , refl))) ∷ []
es-dead ri (_∷_ {p = p} e r) =
  proj₂ (proj₂ (gc-erase-safe ri (p , e , refl))) ∷ es-dead (OP.B-ok (regop es) ri (p , e , refl)) r

block-erase-safe : ∀ {b b'} → RI (st b) → okB (use (regop es)) b b' →
  Σ ℕ λ k → ¬ (k ≡ ab b) × All (Dead (st b)) (owners b k)
block-erase-safe ri (k , nab , s' , r , refl) = k , nab , es-dead ri r
