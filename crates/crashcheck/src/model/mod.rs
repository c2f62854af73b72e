//! A Rust transcription of the Agda model P of the SCFTL algorithm
//! (proofs/SCFTL/Impl/, issue 17), used as a second, differential oracle
//! (`scftl crashtest --oracle model`).
//!
//! What it is: P's state and step functions (`state`, `steps`), its crash
//! over-approximation and crash points (`crash`), its representation
//! invariant as an executable check (`invariant`), and the oracle that runs
//! P next to the real FTL and compares them (`oracle`). Every function's
//! doc comment names the Agda definition it transcribes (module and name);
//! proofs/README.md, "The SCFTL model P", maps the Agda steps to the Rust
//! FTL's functions, so this module links the two by execution.
//!
//! What it promises: with `ModelMutant::None` each step is its Agda
//! definition (representation choices are listed in `state`); the oracle
//! accepts a real run only if every state the FTL recovers to is one P's
//! crash + recovery allows, and the observable parts of `AR` hold between
//! operations. Each [`ModelMutant`] has a test showing the oracle catches
//! it (tests/model_oracle.rs), so the comparison is not vacuous.
//!
//! What it is not: a model of the Rust code's geometry, block reuse,
//! one-sync digest commit, in-page/OOB commits, epoch barriers or trim
//! records (see `oracle` and proofs/README.md for the list).

pub mod crash;
pub mod invariant;
pub mod oracle;
pub mod refine;
pub mod state;
pub mod steps;

pub use oracle::{ModelOracle, OracleConfig};

/// Seeded bugs in the transcription, to show the differential check fails
/// when the model is wrong (each changes one step; see `steps`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ModelMutant {
    /// The transcription as proven.
    #[default]
    None,
    /// `fl2` programs the committed delta page without the delta buffer's
    /// pairs: the flush does not persist the epoch's last mappings.
    FlushForgetsDeltas,
    /// `rec0` keeps the crashed state's volatile L2P instead of the
    /// recovered one.
    RecoveryKeepsVolatile,
    /// `wr0` does not count the write (`wcnt` stays).
    WriteSkipsCounter,
}

impl ModelMutant {
    pub const ALL: [ModelMutant; 3] = [
        ModelMutant::FlushForgetsDeltas,
        ModelMutant::RecoveryKeepsVolatile,
        ModelMutant::WriteSkipsCounter,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ModelMutant::None => "none",
            ModelMutant::FlushForgetsDeltas => "model-flush-forgets-deltas",
            ModelMutant::RecoveryKeepsVolatile => "model-recovery-keeps-volatile",
            ModelMutant::WriteSkipsCounter => "model-write-skips-counter",
        }
    }

    pub fn parse(s: &str) -> Option<ModelMutant> {
        std::iter::once(ModelMutant::None)
            .chain(ModelMutant::ALL)
            .find(|m| m.name() == s)
    }
}

#[cfg(test)]
mod tests {
    //! The concrete run of `SCFTL.Impl.Example`, executed on the
    //! transcription, and the RI check on good and broken states.

    use super::crash::{self, ImgChoice};
    use super::invariant::check_ri;
    use super::state::{Addr, Val};
    use super::steps;
    use super::ModelMutant::None as M;

    const AMAX: Addr = 7;

    /// `Example.agda`: format, recover, w(0, true), flush, then w(0, false)
    /// programming its merge buffer and a tentative delta page.
    fn example() -> super::state::St {
        let mut s = steps::new_p();
        steps::recover(&mut s, AMAX, M).unwrap();
        check_ri(&s, AMAX).unwrap();
        steps::wr0(&mut s, 0, 1, M);
        check_ri(&s, AMAX).unwrap();
        steps::fl3(&mut s, M);
        check_ri(&s, AMAX).unwrap();
        assert_eq!(s.rd_stable(0), Val::Known(1));
        steps::wr0(&mut s, 0, 2, M);
        steps::opt(&mut s, true, true);
        check_ri(&s, AMAX).unwrap();
        assert_eq!(s.rd(0), Val::Known(2));
        assert_eq!(s.rd_stable(0), Val::Known(1));
        s
    }

    #[test]
    fn crash_with_everything_landed_recovers_the_flushed_value() {
        let s = example();
        // Every unsynced metadata page at its new content.
        let all_new = ImgChoice {
            cp_l: 0,
            cp_o: 0,
            dr: s.dr.iter().map(|m| usize::from(!m.is_syn())).collect(),
        };
        let mut c = crash::img(&s, &all_new);
        steps::recover(&mut c, AMAX, M).unwrap();
        assert_eq!(c.rd(0), Val::Known(1));
        check_ri(&c, AMAX).unwrap();
        // ...and so does every other outcome of this crash point.
        for o in crash::outcomes(&s) {
            let img = crash::recovered_image(&s, &o, M);
            assert_eq!(img.get(&0), Some(&Val::Known(1)));
        }
    }

    #[test]
    fn flush_crash_between_syncs_allows_both_snapshots_never_more() {
        let s = example();
        let pts = crash::flush_points(&s, M);
        // fl2 s: the committed page is the only unsynced metadata page.
        let fl2 = &pts[1];
        let mut seen: Vec<Option<Val>> = crash::outcomes(fl2)
            .iter()
            .map(|o| crash::recovered_image(fl2, o, M).get(&0).copied())
            .collect();
        seen.sort_by_key(|v| format!("{v:?}"));
        seen.dedup();
        assert_eq!(seen, vec![Some(Val::Known(1)), Some(Val::Known(2))]);
        // The mutant that forgets the delta buffer cannot reach version 2
        // from the committed page alone when the pair was not tentative.
        let mut t = steps::new_p();
        steps::recover(&mut t, AMAX, M).unwrap();
        steps::wr0(&mut t, 3, 9, M);
        let mutant = super::ModelMutant::FlushForgetsDeltas;
        let mut u = t.clone();
        steps::fl3(&mut u, mutant);
        let o = crash::outcomes(&u);
        assert_eq!(o.len(), 1);
        assert_eq!(crash::recovered_image(&u, &o[0], mutant).get(&3), None);
        assert!(check_ri(&u, AMAX).unwrap_err().contains("RI.cmX"));
        steps::fl3(&mut t, M);
        let o = crash::outcomes(&t);
        assert_eq!(
            crash::recovered_image(&t, &o[0], M).get(&3),
            Some(&Val::Known(9))
        );
    }

    #[test]
    fn ri_rejects_broken_states() {
        let s = example();
        let mut b = s.clone();
        b.smap.insert(5, 0);
        assert!(check_ri(&b, AMAX).unwrap_err().starts_with("RI."));
        let mut b = s.clone();
        b.ers.insert(*s.l2p.get(&0).unwrap());
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.eOK"));
        let mut b = s.clone();
        b.l2p.insert(6, b.nxt + 3);
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.vm"));
        let mut b = s;
        b.gen += 1;
        assert!(check_ri(&b, AMAX).unwrap_err().contains("RI.slotL"));
    }

    #[test]
    fn gc_relocation_and_erase_keep_ri() {
        let mut s = steps::new_p();
        steps::recover(&mut s, AMAX, M).unwrap();
        for a in 0..4 {
            steps::wr0(&mut s, a, 10 + a as u32, M);
        }
        steps::fl3(&mut s, M);
        steps::wr0(&mut s, 0, 20, M);
        // page 0 is no longer valid, page 1 is
        assert!(!steps::valid(&s, 0, AMAX));
        assert!(steps::valid(&s, 1, AMAX));
        steps::rl_x(&mut s, 0);
        assert!(steps::rl0(&mut s, 1));
        check_ri(&s, AMAX).unwrap();
        assert_eq!(s.rd(1), Val::Known(11));
        steps::fl3(&mut s, M);
        assert!(s.ers.contains(&0) && s.ers.contains(&1));
        steps::es_f(&mut s, 0);
        steps::es_f(&mut s, 1);
        check_ri(&s, AMAX).unwrap();
        // a crash now (erases in flight) recovers the flushed state
        for o in crash::outcomes(&s) {
            let img = crash::recovered_image(&s, &o, M);
            assert_eq!(img.get(&0), Some(&Val::Known(20)));
            assert_eq!(img.get(&1), Some(&Val::Known(11)));
        }
    }
}
