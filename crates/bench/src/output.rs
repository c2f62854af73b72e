//! Where a benchmark's report goes, the same for every `scftl bench`
//! command and the same convention as the rest of the CLI: the text table
//! on stdout, or with `--json` the JSON document on stdout instead (nothing
//! else: progress and errors go to stderr), and with `--json-out FILE` the
//! JSON document also written to FILE.

use std::io::Write;

use serde::Serialize;

use crate::args::CommonArgs;
use crate::report::{check_output, write_json, Report, Row};
use crate::workload::BResult;

/// Prints `table`, or `doc` as JSON when `--json` is given, and writes `doc`
/// to `--json-out` when given.
/// The report is printed first, so a file that cannot be written does not
/// lose it.
pub fn emit<T: Serialize + ?Sized>(common: &CommonArgs, table: &str, doc: &T) -> BResult<()> {
    let mut out = std::io::stdout().lock();
    let printed = if common.json {
        let text = serde_json::to_string_pretty(doc).map_err(|e| format!("JSON: {e}"))?;
        writeln!(out, "{text}")
    } else {
        write!(out, "{table}")
    };
    printed
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the report to stdout: {e}"))?;
    match &common.json_out {
        Some(path) => {
            check_output(path, common.allow_dirty)?;
            write_json(path, doc)
        }
        None => Ok(()),
    }
}

/// Stamps the rows with the provenance, prints the report (the text, or
/// the rows as JSON with `--json`) and writes `--json-out` if asked; the
/// caller draws its chart.
pub fn finish(c: &CommonArgs, mut rows: Vec<Row>, text: String) -> BResult<Report> {
    let p = crate::report::provenance();
    for r in &mut rows {
        r.commit = p.describe();
        r.dirty = p.dirty;
    }
    emit(c, &text, &rows)?;
    Ok(Report { rows, text })
}
