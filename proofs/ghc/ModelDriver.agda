{-# OPTIONS --guardedness #-}
------------------------------------------------------------------------
-- Issue 39, deliverable 5: the proven model P, compiled.
--
-- This program runs the step functions of P (SCFTL.Impl.Model, the very
-- definitions Theorem 1 is proven about, instantiated at Data = ℕ,
-- d0 = 0, amax = 7) on a script of steps and prints P's whole state
-- after each one.  The crash checker's hand transcription of P
-- (crates/crashcheck/src/model) runs the same script and prints the same
-- dump; `crates/crashcheck/tests/agda_model.rs` compares the two line
-- by line, so a transcription that drifts from the proven functions is
-- caught.
--
-- Not --safe (it does IO) and so outside SCFTL/ and Everything.agda:
-- it only imports the --safe model and calls its functions; it adds
-- nothing that a proof depends on.  Built by proofs/ghc/build.sh with
-- Agda's GHC backend.
--
-- Input: the file `model-script.txt` in the working directory.  Its
-- first line is `pages N` (the dump shows data pages, record slots, the
-- merge buffer and the queues for pages 0 .. N-1); then one step per
-- line:
--   w a d f1 f2   opt f1 f2 (wr0 a d s)        (f1, f2: 0 or 1)
--   rl p f1 f2    opt f1 f2 (rl0 p s)
--   rlx p         rlX p s
--   es p          esF p s
--   fl            fl3 s
--   flck          ck3 (fl3 s)
--   fi L          fi4 L s                      (in-page / OOB commit)
--   fick L        ck3 (fi3 L s)
--   b             flB s  (PU's epoch barrier without SYNC; the epoch
--                 joins PU's unsynced epochs `ues`, which every flush
--                 and recovery empties)
--   sy p ...      syU ues r s, r releasing the pages listed (PU's SYNC
--                 outside a commit, SCFTL.Impl.UnsyncedSync), ues := []
--   syb k p ...   syB xs ys l (λ _ → false) s, xs the oldest k unsynced
--                 epochs and ys the rest, l landing the data pages listed
--                 (PUSB's SYNC that proves only the oldest epochs, SCFTL.
--                 Impl.UnsyncedSyncBehind; no release), ues := ys
--   recu t n1 … nk   PU's recovery `recU b g C pr es' s` (SCFTL.Impl.
--                 UnsyncedRecStep) with the split of the crashed region
--                 the ghost names: t open tentative pages on top, then k
--                 unsynced epochs with n1 … nk tentative pages (oldest
--                 first), each under its committed page, over `pr`
-- and PL's (SCFTL.Impl.LazyChainModel, the lazy chain, KC = 3):
--   wl a d f1 f2  optL f1 f2 (wr0 a d s)       (the consolidation page
--   rll p f1 f2   optL f1 f2 (rl0 p s)          before a tentative page)
--   kfl           fl3 (konsS s)   kflck   ck3 (fl3 (konsS s))
--   kfi L         fi4 L (konsS s)
--   fil M         fiL M s         (the lazy commit)
--   recl          ck3 (rec0L b g C s)          (recovery walking the chain)
-- and the one model PX's phase switch (SCFTL.Impl.OneModel):
--   kb            flB (konsS s)  (a barrier from the chain phase: PL's
--                 consolidation page first, then PU's barrier, `Pre true`)
--   crash new     every unsynced page lands on its new content
--   crash old     every unsynced page keeps its old content
--   crash mix D   each unsynced page as the digit D names for it says
--                 (0 old, 1 new, 2 junk: see `crashMix`)
--                 (two of `Img`'s outcomes; memory is left as it was:
--                 recovery overwrites all of it)
--   rec           ck3 (rec0 b g C s), (b , g , C) = pick of the slots
--   recc          rec0 b g C s (recovery without a checkpoint)
-- The guards (InB, Valid, erasable, InP/OobP, clean/Quiet) are the
-- script writer's to respect: this program applies the functions.
-- Output: one line per step, `<step>|<dump>`, or `<step>|error ...`.
------------------------------------------------------------------------
module ModelDriver where

open import Data.Nat using (ℕ; zero; suc; _+_; _∸_; _≟_; _≤ᵇ_; _<ᵇ_; _≡ᵇ_; ⌊_/2⌋)
open import Data.Nat.Show using (readMaybe) renaming (show to showℕ)
open import Data.Bool using (Bool; true; false; if_then_else_)
open import Data.List using (List; []; _∷_; map; upTo; reverse; foldr)
open import Data.Maybe using (Maybe; just; nothing)
open import Data.Product using (_×_; _,_)
open import Data.String using (String; _++_; lines; words)
import Data.String
import Data.Char
import Data.List
open import Function using (_∘_)
open import IO

AMAX : ℕ
AMAX = 7

open import SCFTL.Impl.Model ℕ 0 AMAX 1000000 1000000 _≟_
open import SCFTL.Impl.UnsyncedBarrier ℕ 0 AMAX 1000000 1000000 1000000 _≟_ using (flB; epE)
open import SCFTL.Impl.UnsyncedEpochsCrash ℕ 0 AMAX 1000000 1000000 _≟_ using (E)
open import SCFTL.Impl.UnsyncedSync ℕ 0 AMAX 1000000 1000000 1000000 _≟_ using (syU)
open import SCFTL.Impl.UnsyncedSyncBehind ℕ 0 AMAX 1000000 1000000 1000000 _≟_ using (syB)
open import SCFTL.Impl.UnsyncedRecStep ℕ 0 AMAX 1000000 1000000 1000000 _≟_ using (recU)
open import SCFTL.Impl.UnsyncedEpochs ℕ 0 AMAX 1000000 1000000 _≟_ using (UEp)
open import SCFTL.Impl.LazyChainP ℕ 0 AMAX 1000000 1000000 _≟_ using (fiL)

-- PL's chain holds at most KC records (the code's MAX_CHAIN)
KC : ℕ
KC = 3

open import SCFTL.Impl.LazyChainModel ℕ 0 AMAX 1000000 1000000 _≟_ KC using (optL; konsS; rec0L)
open import SCFTL.Impl.Decide ℕ 0 AMAX 1000000 1000000 _≟_ using (InP?; OobP?; Valid?)
open import SCFTL.Impl.Decide ℕ 0 AMAX 1000000 1000000 _≟_ using (module PL)
open PL KC using (EraseGuard?; Room?)
open import Relation.Nullary using (Dec; does)
open import Data.List using (filter)

------------------------------------------------------------------------
-- Printing

-- Text's own concatenation (linear; `_++_` nested over a list copies
-- the rest of the line at every item)
postulate cat : List String → String
{-# COMPILE GHC cat = Data.Text.concat #-}

sep : List String → String
sep xs = cat (Data.List.intersperse " " xs)

showB : Bool → String
showB true  = "1"
showB false = "0"

showMaybe : Maybe ℕ → String
showMaybe nothing  = "-"
showMaybe (just n) = showℕ n

addrs : List ℕ
addrs = upTo (suc AMAX)

showMap : Map → String
showMap m = sep (map (showMaybe ∘ m) addrs)

showPair : ℕ × ℕ → String
showPair (a , p) = showℕ a ++ ":" ++ showℕ p

showPairs : List (ℕ × ℕ) → String
showPairs ps = "[" ++ sep (map showPair ps) ++ "]"

-- the digest's data entries, in ascending order (their order carries no
-- meaning: `verD` is a conjunction; the transcription keeps another)
Tri : Set
Tri = ℕ × ℕ × ℕ

triLe : Tri → Tri → Bool
triLe (p , d , a) (q , e , b) =
  if p <ᵇ q then true else if q <ᵇ p then false else
  if d <ᵇ e then true else if e <ᵇ d then false else a ≤ᵇ b

insert : Tri → List Tri → List Tri
insert x []       = x ∷ []
insert x (y ∷ ys) = if triLe x y then x ∷ y ∷ ys else y ∷ insert x ys

sortT : List Tri → List Tri
sortT = foldr insert []

showTri : Tri → String
showTri (p , d , a) = showℕ p ++ "/" ++ showℕ d ++ "/" ++ showℕ a

showDg : Dg → String
showDg (ds , ts , l) =
  "{" ++ sep (map showTri (sortT ds)) ++ ";" ++ sep (map showPairs ts) ++ ";" ++ showℕ l ++ "}"

showCell : Cell → String
showCell erased          = "E"
showCell junk            = "J"
showCell (dcell d a)     = "D" ++ showℕ d ++ "," ++ showℕ a
showCell (dlt g x ps c dg) =
  "L" ++ showℕ g ++ "," ++ showℕ x ++ "," ++ showPairs ps ++ "," ++ showB c ++ "," ++ showDg dg
showCell (cpt g m)       = "C" ++ showℕ g ++ "(" ++ showMap m ++ ")"

showMC : MC → String
showMC (syn c)   = "s" ++ showCell c
showMC (uns o n) = "u" ++ showCell o ++ "/" ++ showCell n

-- a record slot is shown only if it holds a delta record of the live
-- generation or newer (the transcription forgets older ones: they are
-- inert, see state.rs `drop_older_records`)
live : ℕ → MC → Bool
live g m with cur m
... | dlt h _ _ _ _ = g ≤ᵇ h
... | _             = false

showRcd : St → ℕ → String
showRcd s p = if live (gen s) (rcd s p) then showMC (rcd s p) else "-"

showMB : Maybe (ℕ × ℕ) → String
showMB nothing        = "-"
showMB (just (d , a)) = showℕ d ++ "," ++ showℕ a

-- the guards (SCFTL.Impl.Decide): which steps P and PL allow next —
-- an in-page commit at the link, OOB commits of the run from the link
-- (their record page M; at most omax pages from the link), the valid GC
-- victims, room in PL's chain, PL's erase guard on each erasable page,
-- and whether recovery from the slot `pick` chooses is `clean`
showD : ∀ {P : Set} → Dec P → String
showD d = showB (does d)

guards : ℕ → St → String
guards n s =
  "inp=" ++ inp (lnk s) ++ " oob=[" ++ oobs (lnk s) ++ "] valid=" ++ sep (map (showD ∘ Valid? s) ps) ++
  " room=" ++ showD (Room? s) ++ " eg=" ++ sep (map eg ps) ++ " clean=" ++ cl (pick (cur (cpL s)) (cur (cpO s)))
  where
    ps = upTo n
    inp : Maybe ℕ → String
    inp nothing  = "-"
    inp (just L) = showD (InP? s L)
    oobs : Maybe ℕ → String
    oobs nothing  = ""
    oobs (just L) = sep (map showℕ (filter (λ M → OobP? s L M) (map (λ i → suc (L + i)) (upTo omax))))
    eg : ℕ → String
    eg p = if ers s p then showD (EraseGuard? s p) else "-"
    cl : Maybe (Bool × ℕ × Map) → String
    cl nothing            = "-"
    cl (just (_ , g , _)) = showB (clean g (λ p → cur (dat s p)) (map cur (dr s)))

dump : ℕ → St → String
dump n s =
  "gen=" ++ showℕ (gen s) ++ " ep=" ++ showℕ (ep s) ++ " nxt=" ++ showℕ (nxt s) ++
  " lnk=" ++ showMaybe (lnk s) ++ " wcnt=" ++ showℕ (wcnt s) ++ " gcnt=" ++ showℕ (gcnt s) ++
  " | rd " ++ sep (map (showℕ ∘ rd s) addrs) ++
  " | l2p " ++ showMap (l2p s) ++ " | smap " ++ showMap (smap s) ++
  " | cpL " ++ showMC (cpL s) ++ " | cpO " ++ showMC (cpO s) ++
  " | dr " ++ sep (map showMC (dr s)) ++
  " | dbuf " ++ showPairs (dbuf s) ++ " | ept " ++ sep (map showPairs (ept s)) ++
  " | dat " ++ sep (map (showMC ∘ dat s) ps) ++
  " | rcd " ++ sep (map (showRcd s) ps) ++
  " | mb " ++ sep (map (showMB ∘ mb s) ps) ++
  " | inv " ++ sep (map (showB ∘ inv s) ps) ++ " | ers " ++ sep (map (showB ∘ ers s) ps) ++
  " | " ++ guards n s
  where ps = upTo n

------------------------------------------------------------------------
-- Tabulating the state
--
-- P's state holds functions (the flash by page, the maps by address),
-- and each step wraps the one before: after k steps a look-up runs
-- through up to k closures, and the dump and the guards look up every
-- page at every step.  After each step the driver puts each function
-- field behind a balanced tree of its values on the pages (addresses)
-- the dump shows, falling back to the function itself past them.  The
-- state is extensionally the same (`tab n f p` is `f p` for every p),
-- so every step function sees the values it would have seen; only the
-- time to compute them changes (a script of 400 steps over 198 pages:
-- 5.0 s before, 2.3 s with this and `cat`).

data Tab (A : Set) : Set where
  tip  : Tab A
  node : Tab A → ℕ → A → Tab A → Tab A

-- the tree of f lo … f (lo + k - 1); the first argument is fuel (the
-- depth: 64 is never reached)
build : ∀ {A : Set} → ℕ → (ℕ → A) → ℕ → ℕ → Tab A
build zero    f lo k       = tip
build (suc d) f lo zero    = tip
build (suc d) f lo (suc k) =
  node (build d f lo h) (lo + h) (f (lo + h)) (build d f (suc (lo + h)) (k ∸ h))
  where h = ⌊ suc k /2⌋

look : ∀ {A : Set} → Tab A → (ℕ → A) → ℕ → A
look tip            f p = f p
look (node l i x r) f p = if p <ᵇ i then look l f p else if i <ᵇ p then look r f p else x

-- a function's values on 0 … n-1 computed once (the tree is one thunk,
-- shared by every call of the closure this returns)
tab : ∀ {A : Set} → ℕ → (ℕ → A) → ℕ → A
tab n f = look (build 64 f 0 n) f

-- N: the dump's n pages and the pages past them that the guards look
-- at (an OOB run of up to omax pages from the link; beyond N, `look`
-- falls back to the function, which is correct, only slower)
norm : ℕ → St → St
norm n s = record s
  { dat = tab N (dat s) ; rcd = tab N (rcd s) ; mb = tab N (mb s)
  ; inv = tab N (inv s) ; ers = tab N (ers s)
  ; l2p = tab (suc AMAX) (l2p s) ; smap = tab (suc AMAX) (smap s) }
  where N = n + omax + omax

------------------------------------------------------------------------
-- Crash outcomes

-- Each unsynced page as its digit says (0: old, 1: new,
-- 2: junk — an outcome of `CrashC`, and of `CrashD`, which allows any
-- content).  The digits name, in this order: cpL, cpO, the region's
-- pages (newest first), then data page p and record slot p at 2 + |dr|
-- + 2p and 2 + |dr| + 2p + 1; past the digits, `rest` (so with no
-- digits, every unsynced page new or every one old).
choose : ℕ → MC → MC
choose _       (syn c)   = syn c
choose zero    (uns o _) = syn o
choose (suc zero) (uns _ n) = syn n
choose _       (uns _ _) = syn junk

at : ℕ → List ℕ → ℕ → ℕ
at rest []       _       = rest
at rest (x ∷ _)  zero    = x
at rest (_ ∷ xs) (suc i) = at rest xs i

crashMix : ℕ → List ℕ → St → St
crashMix rest ds s = record s
  { cpL = choose (at rest ds 0) (cpL s) ; cpO = choose (at rest ds 1) (cpO s) ; dr = go 2 (dr s)
  ; dat = λ p → choose (at rest ds (D + (p + p))) (dat s p)
  ; rcd = λ p → choose (at rest ds (suc (D + (p + p)))) (rcd s p) }
  where
    D = 2 + Data.List.length (dr s)
    go : ℕ → List MC → List MC
    go i []       = []
    go i (m ∷ ms) = choose (at rest ds i) m ∷ go (suc i) ms

digits : String → Maybe (List ℕ)
digits = mapM ∘ Data.List.map dig ∘ Data.String.toList
  where
    dig : Data.Char.Char → Maybe ℕ
    dig '0' = just 0
    dig '1' = just 1
    dig '2' = just 2
    dig _   = nothing
    mapM : List (Maybe ℕ) → Maybe (List ℕ)
    mapM []             = just []
    mapM (nothing ∷ _)  = nothing
    mapM (just x ∷ xs) with mapM xs
    ... | just ys = just (x ∷ ys)
    ... | nothing = nothing

------------------------------------------------------------------------
-- Steps

num : String → Maybe ℕ
num = readMaybe 10

flag : String → Maybe Bool
flag "0" = just false
flag "1" = just true
flag _   = nothing

data Res : Set where
  ok  : St → Res
  bad : String → Res

step : St → List String → Res
step s ("w" ∷ a ∷ d ∷ f1 ∷ f2 ∷ []) with num a | num d | flag f1 | flag f2
... | just a′ | just d′ | just x | just y = ok (opt x y (wr0 a′ d′ s))
... | _ | _ | _ | _ = bad "malformed w"
step s ("rl" ∷ p ∷ f1 ∷ f2 ∷ []) with num p | flag f1 | flag f2
... | just p′ | just x | just y = ok (opt x y (rl0 p′ s))
... | _ | _ | _ = bad "malformed rl"
step s ("rlx" ∷ p ∷ []) with num p
... | just p′ = ok (rlX p′ s)
... | nothing = bad "malformed rlx"
step s ("es" ∷ p ∷ []) with num p
... | just p′ = ok (esF p′ s)
... | nothing = bad "malformed es"
step s ("fl" ∷ [])   = ok (fl3 s)
step s ("kfl" ∷ [])   = ok (fl3 (konsS s))
step s ("kflck" ∷ []) = ok (ck3 (fl3 (konsS s)))
step s ("kfi" ∷ l ∷ []) with num l
... | just l′ = ok (fi4 l′ (konsS s))
... | nothing = bad "malformed kfi"
step s ("fil" ∷ m ∷ []) with num m
... | just m′ = ok (fiL m′ s)
... | nothing = bad "malformed fil"
step s ("wl" ∷ a ∷ d ∷ f1 ∷ f2 ∷ []) with num a | num d | flag f1 | flag f2
... | just a′ | just d′ | just x | just y = ok (optL x y (wr0 a′ d′ s))
... | _ | _ | _ | _ = bad "malformed wl"
step s ("rll" ∷ p ∷ f1 ∷ f2 ∷ []) with num p | flag f1 | flag f2
... | just p′ | just x | just y = ok (optL x y (rl0 p′ s))
... | _ | _ | _ = bad "malformed rll"
step s ("recl" ∷ []) with pick (cur (cpL s)) (cur (cpO s))
... | just (b , g , C) = ok (ck3 (rec0L b g C s))
... | nothing         = bad "no committed checkpoint"
step s ("b" ∷ [])    = ok (flB s)
step s ("kb" ∷ [])   = ok (flB (konsS s))
step s ("flck" ∷ []) = ok (ck3 (fl3 s))
step s ("fi" ∷ l ∷ []) with num l
... | just l′ = ok (fi4 l′ s)
... | nothing = bad "malformed fi"
step s ("fick" ∷ l ∷ []) with num l
... | just l′ = ok (ck3 (fi3 l′ s))
... | nothing = bad "malformed fick"
step s ("crash" ∷ "new" ∷ []) = ok (crashMix 1 [] s)
step s ("crash" ∷ "old" ∷ []) = ok (crashMix 0 [] s)
step s ("crash" ∷ "mix" ∷ ds ∷ []) with digits ds
... | just d  = ok (crashMix 1 d s)
... | nothing = bad "malformed crash mix"
step s ("rec" ∷ []) with pick (cur (cpL s)) (cur (cpO s))
... | just (b , g , C) = ok (ck3 (rec0 b g C s))
... | nothing         = bad "no committed checkpoint"
step s ("recc" ∷ []) with pick (cur (cpL s)) (cur (cpO s))
... | just (b , g , C) = ok (rec0 b g C s)
... | nothing         = bad "no committed checkpoint"
step s _ = bad "unknown step"

-- a new disk as `scftl format` leaves it (NewP): an empty checkpoint of
-- generation 0, an erased shadow slot, an empty region, every page and
-- record slot erased; NewP leaves memory arbitrary, and this is what
-- `rec0` builds from that flash (epoch id `suc (topE [])` = 1), as the
-- transcription's `new_p` does
new : St
new = record
  { dat = λ _ → syn erased ; cpL = syn (cpt 0 unmapped) ; cpO = syn erased ; dr = []
  ; rcd = λ _ → syn erased ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing ; dbuf = []
  ; ept = [] ; ep = 1 ; nxt = 0 ; lnk = nothing ; inv = λ _ → false ; ers = λ _ → false
  ; wcnt = 0 ; gcnt = 0 ; smap = unmapped }

-- PU's unsynced epochs after a step: a barrier adds its epoch, every
-- flush and recovery (and PU's SYNC) ends them all, the other steps
-- keep them
uesAfter : St → List String → List E → List E
uesAfter s ("b" ∷ [])  es = es Data.List.++ (epE s ∷ [])
uesAfter s ("kb" ∷ []) es = es Data.List.++ (epE (konsS s) ∷ [])
uesAfter s ("w" ∷ _)   es = es
uesAfter s ("rl" ∷ _)  es = es
uesAfter s ("rlx" ∷ _) es = es
uesAfter s ("es" ∷ _)  es = es
uesAfter s ("wl" ∷ _)  es = es
uesAfter s ("rll" ∷ _) es = es
uesAfter s ("crash" ∷ _) es = es
uesAfter s _           es = []

nums : List String → Maybe (List ℕ)
nums []       = just []
nums (x ∷ xs) with num x | nums xs
... | just n | just ns = just (n ∷ ns)
... | _      | _       = nothing

member : ℕ → List ℕ → Bool
member p []       = false
member p (q ∷ qs) = if p ≡ᵇ q then true else member p qs

-- the ghost's split of the region (newest page first): t pages on top,
-- then the epochs, newest first (`ns` oldest first), each its committed
-- page over its tentative pages, then the proven part
splitU : ℕ → List ℕ → List Cell → Maybe (List Cell × List UEp)
splitU t ns cs = go (Data.List.reverse ns) (Data.List.drop t cs) []
  where
    go : List ℕ → List Cell → List UEp → Maybe (List Cell × List UEp)
    go []       rest acc = just (rest , acc)
    go (n ∷ ms) (c ∷ rest) acc = go ms (Data.List.drop n rest) ((c , Data.List.take n rest) ∷ acc)
    go (n ∷ ms) []         acc = nothing

recuStep : ℕ → List ℕ → St → Res
recuStep t ns s with pick (cur (cpL s)) (cur (cpO s)) | splitU t ns (map cur (dr s))
... | just (b , g , C) | just (pr , es′) = ok (recU b g C pr es′ s)
... | nothing          | _               = bad "no committed checkpoint"
... | _                | nothing         = bad "the split does not fit the region"

-- one step's line, then the rest of the script from the step's state
-- (tabulated once here: an argument, so the dump and every later step
-- share it)
mutual
  emit : ℕ → String → St → List E → List String → List String
  emit n l s es ls = (l ++ "|" ++ dump n s) ∷ runAll n s es ls

  runAll : ℕ → St → List E → List String → List String
  runAll n s es []       = []
  runAll n s es (l ∷ ls) with words l
  ... | "sy" ∷ ps with nums ps
  ...   | just rs = emit n l (norm n (syU es (λ p → member p rs) s)) [] ls
  ...   | nothing = (l ++ "|error malformed sy") ∷ []
  runAll n s es (l ∷ ls) | "recu" ∷ t ∷ ps with num t | nums ps
  ...   | just t′ | just ns with recuStep t′ ns s
  ...     | ok s′ = emit n l (norm n s′) [] ls
  ...     | bad e = (l ++ "|error " ++ e) ∷ []
  runAll n s es (l ∷ ls) | "recu" ∷ t ∷ ps | _ | _ = (l ++ "|error malformed recu") ∷ []
  runAll n s es (l ∷ ls) | "syb" ∷ k ∷ ps with num k | nums ps
  ...   | just k′ | just qs =
    emit n l (norm n (syB (Data.List.take k′ es) (Data.List.drop k′ es) (λ p → member p qs) (λ _ → false) s))
      (Data.List.drop k′ es) ls
  ...   | _ | _ = (l ++ "|error malformed syb") ∷ []
  runAll n s es (l ∷ ls) | w with step s w
  ... | ok s′  = emit n l (norm n s′) (uesAfter s w es) ls
  ... | bad e  = (l ++ "|error " ++ e) ∷ []

program : String → List String
program txt with lines txt
... | h ∷ ls with words h
...   | "pages" ∷ n ∷ [] with num n
...     | just n′ = runAll n′ (norm n′ new) [] ls
...     | nothing = "error: malformed pages line" ∷ []
program txt | h ∷ ls | _ = "error: the first line must be `pages N`" ∷ []
program txt | []         = "error: empty script" ∷ []

main : Main
main = run (readFiniteFile "model-script.txt" >>= λ txt → IO.List.mapM′ putStrLn (program txt))
