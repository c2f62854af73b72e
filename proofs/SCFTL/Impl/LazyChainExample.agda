{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: concrete runs of the lazy commit `fiL` on
-- P's states (instance SCFTL.Mutants.Common: Bool, addresses 0 and 1,
-- from the formatted disk `s0`), evaluated by Agda:
--
--   * `both-records`: two lazy commits chained (epoch 1 writes address
--     0 to page 0 and commits in page 0's record slot, linking to page
--     1; epoch 2 writes address 1 to page 1 and commits there): the
--     walk from the region's link applies both records;
--   * `crash-first-only`: the second commit crashes right before its
--     SYNC with its record slot junk: recovery applies the first record
--     only (the state after the last SYNC);
--   * `erase-breaks-chain`: the finding of proofs/README.md, "What is
--     abstracted", item 6 (i): epoch 2 relocates page 0 (GC, to page 1)
--     and commits lazily; after its SYNC page 0 is erasable, and its
--     erase (P's `esF`, landed) makes epoch 1's record fail its digest:
--     the walk stops there and recovery loses both epochs although
--     epoch 2 was SYNC'd (address 0 unmapped; the stable image maps it
--     to page 1, holding true).  P with the lazy chain needs a guard on
--     the erase of pages a chain record names (the code: a chain stays
--     in the active superblock, never a GC victim).
--   * `kons-landed`, `torn-kons-loses-chain`: the next flush commits in
--     the region with the consolidation page below its committed page,
--     one SYNC (`flK2`, `flK3`).  Both landed: the chain's epochs and the
--     new one.  The committed page landed and the consolidation page
--     torn: recovery from the region (the newest commit that verifies,
--     then the chain from *its* link) loses the chain's epochs (address
--     0 unmapped), which neither the last flush's image nor the crashed
--     flush's allows.  The code recovers this crash by following, during
--     its scan, the chain of a region commit whose next page of the
--     generation is neither a consolidation page nor of the next epoch
--     id (recovery.rs); P with the consolidation step needs that rule
--     (or a commit whose check covers the consolidation page).
------------------------------------------------------------------------
module SCFTL.Impl.LazyChainExample where

open import Data.Nat.Base using (ℕ; zero; suc)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map; length)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (_×_; _,_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChain Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_

-- the first flush: an empty epoch 0 committed in the region, link 0
s1 : St
s1 = fl3 s0

-- epoch 1: address 0 to page 0, the lazy commit in page 0 (link 1)
s2 s3 : St
s2 = wr0 0 true s1
s3 = fiL 0 s2

-- epoch 2: address 1 to page 1, the lazy commit in page 1 (link 2)
s4 s5 : St
s4 = wr0 1 true s3
s5 = fiL 1 s4

-- recovery's L2P with the chain walk (K = 32), generation 0, from the
-- empty checkpoint
recL : St → Map
recL s = recMapL 32 0 unmapped s

wlk : St → List Cell
wlk s = chnL 32 0 (Rof s) (Dof s) (acc 0 (Dof s) (map cur (dr s)))

both-records : length (wlk s5) ≡ 3
both-records = refl

both-records-map : recL s5 0 ≡ just 0 × recL s5 1 ≡ just 1
both-records-map = refl , refl

-- the second commit crashed before its SYNC: everything landed but its
-- record slot, which is junk
c5 : St
c5 = let u = syncAll (fi2 1 s4) in record u { rcd = rcd u [ 1 ≔ syn junk ] }

crash-first-only : recL c5 0 ≡ just 0 × recL c5 1 ≡ nothing
crash-first-only = refl , refl

-- the finding: epoch 2 relocates page 0 to page 1 and commits lazily;
-- page 0, erasable after that SYNC, is erased, and the erase lands
e4 e5 e6 : St
e4 = rl0 0 s3
e5 = fiL 1 e4
e6 = syncAll (esF 0 e5)

epoch2-durable : smap e5 0 ≡ just 1 × rd e5 0 ≡ true
epoch2-durable = refl , refl

page0-erasable : ers e5 0 ≡ true
page0-erasable = refl

erase-breaks-chain : length (wlk e6) ≡ 1 × recL e6 0 ≡ nothing
erase-breaks-chain = refl , refl

-- the next flush after the chain: epoch 3 writes address 1 to page 2
-- and commits in the region with the consolidation page of the backlog
-- (epoch ids 1 and 2; the chain's last link is 2)
s6 : St
s6 = wr0 1 false s5

bk : List Cell
bk = Rof s5 1 ∷ Rof s5 0 ∷ []

kons-landed : recL (flK3 2 2 bk s6) 0 ≡ just 0 × recL (flK3 2 2 bk s6) 1 ≡ just 2
kons-landed = refl , refl

-- the crash before the SYNC: everything landed but the consolidation page
tornK : List MC → List MC
tornK (a ∷ b ∷ r) = a ∷ syn junk ∷ r
tornK r           = r

ck : St
ck = let u = syncAll (flK2 2 2 bk s6) in record u { dr = tornK (dr u) }

torn-kons-loses-chain : recL ck 0 ≡ nothing × recL ck 1 ≡ just 2
torn-kons-loses-chain = refl , refl

-- both images SC allows map address 0 (the last flush's and the crashed
-- flush's)
before-crash : l2p s5 0 ≡ just 0 × l2p s6 0 ≡ just 0
before-crash = refl , refl

-- With the code's scan rule (`recMapM`: a region commit's chain is
-- followed during the scan unless the page above it is of a later epoch
-- of the generation), the same crash recovers the crashed flush's image
-- (the chain's epochs and epoch 3), and the other runs recover as before.
recM : St → Map
recM s = recMapM 32 0 unmapped s

torn-kons-scan-rule : recM ck 0 ≡ just 0 × recM ck 1 ≡ just 2
torn-kons-scan-rule = refl , refl

kons-landed-scan-rule : recM (flK3 2 2 bk s6) 0 ≡ just 0 × recM (flK3 2 2 bk s6) 1 ≡ just 2
kons-landed-scan-rule = refl , refl

both-records-scan-rule : recM s5 0 ≡ just 0 × recM s5 1 ≡ just 1
both-records-scan-rule = refl , refl

crash-first-only-scan-rule : recM c5 0 ≡ just 0 × recM c5 1 ≡ nothing
crash-first-only-scan-rule = refl , refl

-- the consolidation page landed, the committed page torn: the chain's
-- epochs (the last flush's image), from the consolidation page alone
ctc : St
ctc = let u = syncAll (flK2 2 2 bk s6) in record u { dr = tornC (dr u) }
  where
    tornC : List MC → List MC
    tornC (a ∷ r) = syn junk ∷ r
    tornC r       = r

torn-commit-scan-rule : recM ctc 0 ≡ just 0 × recM ctc 1 ≡ just 1
torn-commit-scan-rule = refl , refl

torn-commit : recL ctc 0 ≡ just 0 × recL ctc 1 ≡ just 1
torn-commit = refl , refl
