//! Reads docs/FORMAT.md for the document tests.
//!
//! Every on-flash and on-disk structure is documented in docs/FORMAT.md as a
//! markdown table `| offset | size | field | meaning |`. Each crate's tests
//! compare those tables with the constants its code uses, so the document
//! cannot drift from the code. This crate is the one parser they share: it
//! finds a section by its heading and returns the rows of its field tables.
//! It is a dev-dependency only and never reaches a binary.

/// The whole of docs/FORMAT.md.
pub fn document() -> &'static str {
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md"))
}

/// The text of the section whose heading starts with `heading` (for example
/// `"## 3. Device label"` or `"### 4.2"`), up to the next heading of the same
/// or a higher level. Panics with a clear message when there is none, which
/// is what a document test wants.
pub fn section(heading: &str) -> &'static str {
    let doc = document();
    let level = heading.chars().take_while(|&c| c == '#').count();
    assert!(level > 0, "`{heading}` is not a markdown heading");
    let start = doc
        .lines()
        .scan(0usize, |pos, line| {
            let at = *pos;
            *pos += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| line.starts_with(heading))
        .map(|(at, _)| at)
        .unwrap_or_else(|| panic!("docs/FORMAT.md has no heading starting with `{heading}`"));
    let body_start = start + doc[start..].find('\n').map_or(doc.len() - start, |n| n + 1);
    let mut pos = body_start;
    for line in doc[body_start..].lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            break;
        }
        pos += line.len() + 1;
    }
    &doc[start..pos.min(doc.len())]
}

/// One row of a field table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The offset cell as written: a number, or an expression such as
    /// `20 + config_len`.
    pub offset: String,
    /// The size cell as written.
    pub size: String,
    /// The field name (backquotes removed).
    pub name: String,
    /// The meaning cell.
    pub meaning: String,
}

impl Field {
    /// The offset as a number, when the document gives one.
    pub fn offset_num(&self) -> Option<usize> {
        self.offset.parse().ok()
    }
    /// The size as a number, when the document gives one.
    pub fn size_num(&self) -> Option<usize> {
        self.size.parse().ok()
    }
}

/// Every row of the tables headed `| offset | size | field | meaning |` in
/// `text`, in order. Rows of other tables are skipped.
pub fn fields(text: &str) -> Vec<Field> {
    let mut out = Vec::new();
    let mut in_field_table = false;
    for line in text.lines() {
        let line = line.trim();
        let Some(inner) = line.strip_prefix('|') else {
            in_field_table = false;
            continue;
        };
        let cells: Vec<&str> = inner
            .trim_end_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.first() == Some(&"offset") {
            in_field_table = cells.len() >= 4 && cells[1] == "size" && cells[2] == "field";
            continue;
        }
        if !in_field_table
            || cells
                .iter()
                .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        if cells.len() < 4 {
            continue;
        }
        out.push(Field {
            offset: cells[0].to_string(),
            size: cells[1].to_string(),
            name: cells[2].trim_matches('`').to_string(),
            meaning: cells[3..].join("|"),
        });
    }
    out
}

/// The fields of the section whose heading starts with `heading`.
pub fn section_fields(heading: &str) -> Vec<Field> {
    fields(section(heading))
}

/// The field named `name` in the section whose heading starts with
/// `heading`; panics unless there is exactly one.
pub fn field(heading: &str, name: &str) -> Field {
    let hits: Vec<Field> = section_fields(heading)
        .into_iter()
        .filter(|f| f.name == name)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "docs/FORMAT.md `{heading}` should list field `{name}` exactly once: {hits:?}"
    );
    hits.into_iter().next().unwrap()
}

/// Checks that the numeric rows of a section's field tables are exactly
/// `want` (name, offset, size), in order; panics with both lists otherwise.
pub fn assert_fields(heading: &str, want: &[(&str, usize, usize)]) {
    let got: Vec<(String, usize, usize)> = section_fields(heading)
        .iter()
        .filter_map(|f| Some((f.name.clone(), f.offset_num()?, f.size_num()?)))
        .collect();
    let want: Vec<(String, usize, usize)> = want
        .iter()
        .map(|&(n, o, s)| (n.to_string(), o, s))
        .collect();
    assert_eq!(
        got, want,
        "docs/FORMAT.md `{heading}` disagrees with the code (left: document, right: code)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# t\n\n## 1. A\n\n| offset | size | field | meaning |\n|---|---|---|---|\n| 0 | 4 | `magic` | M |\n| 4 | n | data | d |\n\n| superblocks | region |\n|---|---|\n| 0 | x |\n\n### 1.1 B\n\n| offset | size | field | meaning |\n|---|---|---|---|\n| 8 | 2 | kind | a | b |\n\n## 2. C\n";

    #[test]
    fn parses_only_field_tables() {
        let f = fields(DOC);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].name, "magic");
        assert_eq!(f[0].offset_num(), Some(0));
        assert_eq!(f[1].size_num(), None);
        assert_eq!(f[2].meaning, "a|b");
    }

    #[test]
    fn sections_end_at_same_or_higher_heading() {
        let s = section("## 3. Device label");
        assert!(s.contains("config_len"));
        assert!(!s.contains("## 4."));
        let sub = section("### 4.2");
        assert!(sub.contains("crc_len"));
        assert!(!sub.contains("### 4.3"));
        let whole4 = section("## 4. SCFTL");
        assert!(whole4.contains("### 4.6"));
        assert!(!whole4.contains("## 5."));
    }
}
