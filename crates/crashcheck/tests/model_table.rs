//! The step table of proofs/README.md ("The model P in Rust": Agda
//! definition ↔ Rust function, issue 39 deliverable 5) is complete and
//! names only things that exist: every Agda name in its left column is
//! defined in proofs/SCFTL/Impl/, and every public function of the
//! transcription's state, steps, crash and invariant modules is in its
//! right column (or on the short list of representation helpers below,
//! which stand for no Agda definition). A step added on either side
//! without its row fails here.

use std::collections::BTreeSet;
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// The rows of the table under the heading "### The model P in Rust".
fn table_rows() -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(repo().join("proofs/README.md")).expect("proofs/README.md");
    let start = readme
        .find("### The model P in Rust")
        .expect("proofs/README.md has the section \"The model P in Rust\"");
    let rest = &readme[start..];
    let end = rest[4..].find("\n#").map_or(rest.len(), |i| i + 4);
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Agda"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() >= 3).then(|| (cells[1].to_string(), cells[2].to_string()))
        })
        .collect()
}

/// The words between backticks of `s`; a code span of several words or
/// `A.b` gives its identifiers.
fn code_names(s: &str) -> Vec<String> {
    s.split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|span| {
            span.split(|c: char| c.is_whitespace() || c == '.' || c == '/' || c == ':' || c == ',')
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Names the Agda sources declare: every name before the `:` of a
/// signature at the start of a line (several names may share one), and
/// the names of `data` and `record` declarations.
fn agda_names() -> BTreeSet<String> {
    let dir = repo().join("proofs/SCFTL/Impl");
    let mut names = BTreeSet::new();
    for e in std::fs::read_dir(&dir).expect("proofs/SCFTL/Impl") {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("agda") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let l = line.trim_start();
            if l.starts_with("--") {
                continue;
            }
            let l = l
                .strip_prefix("data ")
                .or_else(|| l.strip_prefix("record "))
                .unwrap_or(l);
            if let Some((before, _)) = l.split_once(" :") {
                for w in before.split_whitespace() {
                    names.insert(w.to_string());
                }
            }
        }
    }
    names
}

#[test]
fn every_agda_name_in_the_step_table_is_defined() {
    let rows = table_rows();
    assert!(rows.len() >= 10, "the table has {} rows", rows.len());
    let defined = agda_names();
    let missing: Vec<String> = rows
        .iter()
        .flat_map(|(agda, _)| code_names(agda))
        // `okP recover`: the operation `recover` of `okP`.
        .filter(|n| n != "recover" && !defined.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "the step table names Agda definitions proofs/SCFTL/Impl does not declare: {missing:?}"
    );
}

#[test]
fn every_transcribed_function_has_its_row() {
    // Representation helpers: no Agda definition stands behind them
    // (`state.rs` explains each).
    const HELPERS: [&str; 7] = [
        "cur_cell", "page", "set_page", "is_syn", "cell_d", "oob", "rec0_l2p",
    ];
    let rows = table_rows();
    let rust: BTreeSet<String> = rows.iter().flat_map(|(_, r)| code_names(r)).collect();
    let rust_words: BTreeSet<String> = rust
        .iter()
        .flat_map(|w| w.split("::").map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut missing = Vec::new();
    for file in [
        "state.rs",
        "steps.rs",
        "crash.rs",
        "invariant.rs",
        "lazy.rs",
        "unsynced.rs",
    ] {
        let src =
            std::fs::read_to_string(repo().join("crates/crashcheck/src/model").join(file)).unwrap();
        for l in src.lines() {
            if let Some(rest) = l.trim_start().strip_prefix("pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !HELPERS.contains(&name.as_str()) && !rust_words.contains(&name) {
                    missing.push(format!("{file}: {name}"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "functions of crashcheck::model without a row in proofs/README.md's step table: {missing:?}"
    );
}
