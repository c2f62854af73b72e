{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, blocks: B is not vacuous.  A concrete run of the block-level
-- model B (SCFTL.Impl.Blocks), evaluated by Agda, in which a block is
-- erased whole through B's guards and reused, and in which an erase and
-- a reprogram of the same physical page happen between two SYNCs (what
-- `Blocks::activate_next` followed by a program does), then a crash.
--
-- Instance: SCFTL.Mutants.Common's (Data = Bool, two sectors, wmax = 2,
-- kmax = 0), blocks of Z = 2 pages.  Every step below is a step of B
-- (`okB`), checked by Agda; the physical pages are (block, offset).
--
--   format + recovery;
--   w(0,true)  → P page 0 at (0,0);  w(1,true) → P page 1 at (0,1);  flush;
--   gc_rl victim 1 → P page 2 at (1,0) (block 1 opened);  flush;
--   gc_rl victim 0 → P page 3 at (1,1);  flush   (block 0: both erasable);
--   gc_es: block 0 erased whole (P: esF 1, esF 0);
--   w(0,false) → P page 4 at (0,0): block 1 is full, block 0 reused,
--     and the merge buffer programmed: physical page (0,0) was erased and
--     is reprogrammed, no SYNC between;
--   crash: (a) everything landed; (b) the erase and the program both
--     lost: (0,0) shows its old sector (address 0, true) again;
--   recover: both read the last flush's image (true, true).
------------------------------------------------------------------------
module SCFTL.Impl.BlocksExample where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s; _≡ᵇ_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_; _∧_)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common hiding (land-D; land-C; land-L)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import SCFTL.Impl.Blocks Bool false A W K _≟B_ 1   -- blocks of Z = 2 pages

-- format: P's new disk, every physical page erased, every block
-- reusable, no P page located anywhere (offset 2 is past every block)
b0 : Bk
b0 = record { st = s0 ; pf = λ _ _ → syn erased ; loc = λ _ → (0 , 2) ; own = λ _ _ → 0
            ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

new-b0 : NewB b0
new-b0 = new-s0 , (λ k o → refl) , (λ k → refl) , (λ k → refl)

b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 : Bk
b1  = record b0 { st = ck3 (rec0 true 0 unmapped s0) ; pf = psync (pf b0) }
b2  = bopt false false (bP (wr0 0 true) (balloc 0 b1))
b3  = bopt false false (bP (wr0 1 true) (balloc 0 b2))
b4  = record b3 { st = fl3 (st b3) ; pf = psync (pprog b3) }
b5  = bopt false false (bP (rl0 1) (balloc 1 b4))
b6  = record b5 { st = fl3 (st b5) ; pf = psync (pprog b5) }
b7  = bopt false false (bP (rl0 0) (balloc 1 b6))
b8  = record b7 { st = fl3 (st b7) ; pf = psync (pprog b7) }
b9  = berase 0 (esF 0 (esF 1 (st b8))) b8
b10 = bopt true false (bP (wr0 0 false) (balloc 0 b9))

r1 : okB recover b0 b1
r1 = _ , (true , 0 , unmapped , refl , inj₁ refl) , refl

w1 : okB (use (regop (w 0 true))) b1 b2
w1 = inj₁ ((z≤n , z≤n) , 0 , (inj₁ refl , s≤s z≤n , refl) , false , false , refl)

w2 : okB (use (regop (w 1 true))) b2 b3
w2 = inj₁ ((s≤s z≤n , s≤s z≤n) , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl) , false , false , refl)

f1 : okB (use flush) b3 b4
f1 = _ , inj₁ refl , refl

g1 : okB (use (regop rl)) b4 b5
g1 = inj₁ (z≤n , 1 , s≤s (s≤s z≤n) , inj₁ ((s≤s z≤n , refl) , 1 , (inj₂ refl , s≤s z≤n , refl) , false , false , refl))

f2 : okB (use flush) b5 b6
f2 = _ , inj₁ refl , refl

g2 : okB (use (regop rl)) b6 b7
g2 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , 1 , (inj₁ refl , s≤s (s≤s z≤n) , refl) , false , false , refl))

f3 : okB (use flush) b7 b8
f3 = _ , inj₁ refl , refl

-- block 0 holds P pages 1 and 0, both erasable: B erases it whole
block-0-pages : owners b8 0 ≡ 1 ∷ 0 ∷ []
block-0-pages = refl

e1 : okB (use (regop es)) b8 b9
e1 = 0 , (λ ()) , _ , (refl ∷ one refl) , refl

-- block 1 is full; the erased block 0 is reused (write pointer 0, the
-- physical page erased), and the merge buffer programmed
w3 : okB (use (regop (w 0 false))) b9 b10
w3 = inj₁ ((z≤n , z≤n) , 0 , (inj₂ refl , s≤s z≤n , refl) , true , false , refl)

reuses-block-0 : (ab b10 ≡ 0) × (loc b10 4 ≡ (0 , 0)) × (own b10 0 0 ≡ 4)
reuses-block-0 = refl , refl , refl

-- P page 4 is a fresh page of P at the physical page of P page 0
same-physical-page : loc b10 0 ≡ loc b10 4
same-physical-page = refl

-- erase and program of (0,0) since the last SYNC: one unsynced cell
erased-and-reprogrammed : pf b10 0 0 ≡ uns (dcell true 0) (dcell false 0)
erased-and-reprogrammed = refl

reads-before-crash : rd (st b10) 0 ≡ false × rd (st b10) 1 ≡ true
reads-before-crash = refl , refl

------------------------------------------------------------------------
-- Crashes and recoveries

-- (a) everything landed
c1 : crashB (use (regop (w 0 false))) b9 (bland b10)
c1 = b10 , w3 , bland-img b10

-- (b) the erase and the program of (0,0) both lost: the old sector shows
lost : ℕ → ℕ → MC
lost k o = if (k ≡ᵇ 0) ∧ (o ≡ᵇ 0) then syn (dcell true 0) else sync (pf b10 k o)

lost-D : ∀ k o → CrashD (pf b10 k o) (lost k o)
lost-D zero    zero    = dcell true 0 , refl
lost-D zero    (suc o) = land-D (pf b10 0 (suc o))
lost-D (suc k) o       = land-D (pf b10 (suc k) o)

c2 : crashB (use (regop (w 0 false))) b9 (bcrash b10 lost)
c2 = b10 , w3 , bcrash-img b10 lost lost-D

-- in P: page 4 (unsynced) takes the physical outcome, page 0 (an older
-- incarnation, its erase unsynced) its durable content: both hold the
-- old sector, outcomes P allows for both
incarnations : dat (st (bcrash b10 lost)) 4 ≡ syn (dcell true 0)
             × dat (st (bcrash b10 lost)) 0 ≡ syn (dcell true 0)
incarnations = refl , refl

ra : okB recover (bland b10) _
ra = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

rb : okB recover (bcrash b10 lost) _
rb = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

-- both recover the last flush's image: (true, true)
recovered-a : rd (ck3 (rec0 true 1 unmapped (st (bland b10)))) 0 ≡ true
            × rd (ck3 (rec0 true 1 unmapped (st (bland b10)))) 1 ≡ true
recovered-a = refl , refl

recovered-b : rd (ck3 (rec0 true 1 unmapped (st (bcrash b10 lost)))) 0 ≡ true
            × rd (ck3 (rec0 true 1 unmapped (st (bcrash b10 lost)))) 1 ≡ true
recovered-b = refl , refl

------------------------------------------------------------------------
-- Physical reads (SCFTL.Impl.BlocksRead): the read through the physical
-- page where B's location map places each mapped P page

open import SCFTL.Impl.BlocksRead Bool false A W K _≟B_ 1 using (rdB)

-- before the crash: address 0 at page 4 = (0,0), reprogrammed; address
-- 1 at page 2 = (1,0)
physical-before-crash : rdB b10 0 ≡ false × rdB b10 1 ≡ true
physical-before-crash = refl , refl

ba bb : Bk
ba = record (bland b10) { st = ck3 (rec0 true 1 unmapped (st (bland b10))) ; pf = psync (pf (bland b10)) }
bb = record (bcrash b10 lost) { st = ck3 (rec0 true 1 unmapped (st (bcrash b10 lost))) ; pf = psync (pf (bcrash b10 lost)) }

ra′ : okB recover (bland b10) ba
ra′ = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

rb′ : okB recover (bcrash b10 lost) bb
rb′ = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

-- after either crash and recovery the physical reads are the last
-- flush's image (addresses 0, 1 at pages 3 = (1,1) and 2 = (1,0)), as
-- P's reads are
physical-recovered : rdB ba 0 ≡ true × rdB ba 1 ≡ true × rdB bb 0 ≡ true × rdB bb 1 ≡ true
physical-recovered = refl , refl , refl , refl
