//! The `--timing` option of `serve` and `mount`: which latency model the
//! device runs under in real time (`flash::RealTime`).
//!
//! - `none`: no model; the device answers as fast as the host runs.
//! - `paper`: `flash::TimingConfig::for_geometry` — the FEMU-like model the
//!   simulated benchmarks (`scftl bench randwr`, `boot`) use by default.
//! - a path to a JSON object: the `paper` model with the fields it names
//!   replaced (see [`FIELDS`]). The file is read and checked when the command
//!   line is parsed, so a bad file is a usage error before anything opens.
//!
//! Invariants: a parsed file holds only known fields, each an integer in its
//! range; latencies are capped at [`MAX_LATENCY_NS`] so a typo cannot make a
//! server sleep for years.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use flash::{Geometry, TimingConfig};
use serde_json::Value;

/// The fields a timing file may set, with what each means.
pub const FIELDS: &[(&str, &str)] = &[
    ("read_ns", "page read, array to register"),
    ("program_ns", "page program"),
    ("erase_ns", "block erase"),
    (
        "channel_xfer_ns_per_page",
        "channel transfer of one whole page",
    ),
    ("queue_depth", "commands in flight before the host waits"),
    ("host_op_ns", "extra host time per flash command"),
];

/// Largest latency a timing file may give (10 s).
pub const MAX_LATENCY_NS: u64 = 10_000_000_000;

/// Largest queue depth a timing file may give.
pub const MAX_QUEUE_DEPTH: u64 = 1 << 16;

/// A `--timing` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimingArg {
    None,
    Paper,
    /// A JSON file: (field, value) pairs over the `paper` model.
    File {
        path: PathBuf,
        fields: Vec<(&'static str, u64)>,
    },
}

impl TimingArg {
    /// The model on geometry `g`; `None` for no model.
    pub fn config(&self, g: &Geometry) -> Option<TimingConfig> {
        let paper = TimingConfig::for_geometry(g);
        match self {
            TimingArg::None => None,
            TimingArg::Paper => Some(paper),
            TimingArg::File { fields, .. } => {
                let mut c = paper;
                for &(name, v) in fields {
                    match name {
                        "read_ns" => c.read_ns = v,
                        "program_ns" => c.program_ns = v,
                        "erase_ns" => c.erase_ns = v,
                        "channel_xfer_ns_per_page" => c.channel_xfer_ns_per_page = v,
                        // Checked at parse time to be in 1..=MAX_QUEUE_DEPTH.
                        "queue_depth" => {
                            c.queue_depth = NonZeroUsize::new(v as usize).unwrap_or(c.queue_depth)
                        }
                        "host_op_ns" => c.host_op_ns = v,
                        // `parse_fields` admits only the names in FIELDS.
                        _ => {}
                    }
                }
                Some(c)
            }
        }
    }

    /// One line naming the model and its values on `g`, for logs.
    pub fn describe(&self, g: &Geometry) -> String {
        match (self, self.config(g)) {
            (_, None) => "none (the device answers as fast as the host runs)".to_string(),
            (TimingArg::File { path, .. }, Some(c)) => {
                format!(
                    "{} (paper model with changes), real time: {c}",
                    path.display()
                )
            }
            (_, Some(c)) => format!("paper (FEMU-like), real time: {c}"),
        }
    }

    /// The model's name for short labels: `none`, `paper` or the file.
    pub fn name(&self) -> String {
        match self {
            TimingArg::None => "none".into(),
            TimingArg::Paper => "paper".into(),
            TimingArg::File { path, .. } => path.display().to_string(),
        }
    }
}

/// clap value parser of `--timing`.
pub fn parse(s: &str) -> Result<TimingArg, String> {
    match s {
        "none" => Ok(TimingArg::None),
        "paper" => Ok(TimingArg::Paper),
        _ => {
            let path = PathBuf::from(s);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                format!("expected `paper`, `none` or a JSON file; cannot read {s}: {e}")
            })?;
            let fields = parse_fields(&text).map_err(|e| format!("{s}: {e}"))?;
            Ok(TimingArg::File { path, fields })
        }
    }
}

/// The fields of a timing file, checked.
fn parse_fields(text: &str) -> Result<Vec<(&'static str, u64)>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(map) = v else {
        return Err(format!(
            "expected a JSON object of timing fields ({})",
            names()
        ));
    };
    let mut fields = Vec::with_capacity(map.len());
    for (key, value) in &map {
        let Some(&(name, _)) = FIELDS.iter().find(|(n, _)| n == key) else {
            return Err(format!("unknown field `{key}`; the fields are {}", names()));
        };
        let (lo, hi) = if name == "queue_depth" {
            (1, MAX_QUEUE_DEPTH)
        } else {
            (0, MAX_LATENCY_NS)
        };
        match value.as_u64() {
            Some(x) if (lo..=hi).contains(&x) => fields.push((name, x)),
            _ => {
                return Err(format!(
                    "field `{name}`: {value} is not an integer from {lo} to {hi}"
                ))
            }
        }
    }
    Ok(fields)
}

fn names() -> String {
    FIELDS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_overrides_only_the_fields_it_names() {
        let g = Geometry::medium();
        let f = parse_fields(r#"{"read_ns": 5000000, "queue_depth": 2}"#).unwrap();
        let c = TimingArg::File {
            path: "t.json".into(),
            fields: f,
        }
        .config(&g)
        .unwrap();
        let paper = TimingConfig::for_geometry(&g);
        assert_eq!(c.read_ns, 5_000_000);
        assert_eq!(c.queue_depth.get(), 2);
        assert_eq!(c.program_ns, paper.program_ns);
        assert_eq!(c.channel_xfer_ns_per_page, paper.channel_xfer_ns_per_page);
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let cases = [
            ("{", "not valid JSON"),
            ("[1]", "expected a JSON object"),
            (r#"{"read_us": 1}"#, "unknown field `read_us`"),
            (r#"{"read_ns": -1}"#, "field `read_ns`"),
            (r#"{"read_ns": 1.5}"#, "field `read_ns`"),
            (r#"{"read_ns": "40"}"#, "field `read_ns`"),
            (r#"{"queue_depth": 0}"#, "from 1 to"),
            (r#"{"erase_ns": 99999999999}"#, "from 0 to 10000000000"),
        ];
        for (text, want) in cases {
            let e = parse_fields(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn paper_is_the_benchmarks_model() {
        let g = Geometry::paper();
        assert_eq!(
            TimingArg::Paper.config(&g),
            Some(TimingConfig::for_geometry(&g))
        );
        assert_eq!(TimingArg::None.config(&g), None);
    }
}
