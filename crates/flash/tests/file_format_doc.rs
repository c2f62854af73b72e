//! docs/FORMAT.md section 2 and the code must agree: every header field in
//! the document's table has the offset and size of the constant of the same
//! name, and every constant is in the table.

use flash::file::{HEADER_FIELDS, HEADER_SIZE, IMAGE_MAGIC, IMAGE_VERSION};

const FORMAT_MD: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md"));

/// The text of section 2, up to the next `## ` heading.
fn section_2() -> &'static str {
    let start = FORMAT_MD
        .find("## 2. Image file (FileFlash)")
        .expect("docs/FORMAT.md has no section 2 heading");
    let body = &FORMAT_MD[start + 3..];
    let end = body.find("\n## ").unwrap_or(body.len());
    &body[..end]
}

/// Rows `| offset | size | field | meaning |` whose offset is a number.
fn header_rows() -> Vec<(usize, usize, String, String)> {
    section_2()
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .strip_prefix('|')?
                .split('|')
                .map(str::trim)
                .collect();
            if cells.len() < 4 {
                return None;
            }
            let offset = cells[0].parse().ok()?;
            let size = cells[1]
                .parse()
                .unwrap_or_else(|_| panic!("row `{l}`: size `{}` is not a number", cells[1]));
            Some((offset, size, cells[2].to_string(), cells[3].to_string()))
        })
        .collect()
}

#[test]
fn every_documented_header_field_matches_its_constant() {
    let rows = header_rows();
    assert!(
        rows.len() >= 10,
        "found only {} header rows in section 2",
        rows.len()
    );
    for (offset, size, name, _) in &rows {
        let f = HEADER_FIELDS
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("FORMAT.md field `{name}` has no constant in file.rs"));
        assert_eq!(
            (f.offset, f.size),
            (*offset, *size),
            "field `{name}`: code says offset {} size {}, FORMAT.md says offset {offset} size {size}",
            f.offset,
            f.size
        );
    }
    for f in HEADER_FIELDS {
        assert!(
            rows.iter().any(|(_, _, name, _)| name == f.name),
            "constant for field `{}` is not documented in FORMAT.md section 2",
            f.name
        );
    }
}

#[test]
fn documented_constants_match_the_code() {
    let rows = header_rows();
    let meaning = |field: &str| {
        rows.iter()
            .find(|r| r.2 == field)
            .map(|r| r.3.clone())
            .unwrap_or_default()
    };
    let magic = std::str::from_utf8(&IMAGE_MAGIC).unwrap();
    assert!(meaning("magic").contains(magic), "magic is {magic}");
    assert!(meaning("version").contains(&IMAGE_VERSION.to_string()));
    assert!(meaning("header_size").contains(&HEADER_SIZE.to_string()));
    let crc = meaning("header_crc");
    assert!(
        crc.contains("CRC32C") && crc.contains(&(HEADER_SIZE - 4).to_string()),
        "{crc}"
    );
}
