//! docs/FORMAT.md section 2 and the code must agree: the document's header
//! table lists exactly the fields of `HEADER_FIELDS`, in order, with the same
//! offsets and sizes, and the constants it quotes are the code's.

use flash::file::{HEADER_FIELDS, HEADER_SIZE, IMAGE_MAGIC, IMAGE_VERSION};

const SECTION_2: &str = "## 2. Image file (FileFlash)";

#[test]
fn every_documented_header_field_matches_its_constant() {
    let rows = formatdoc::section_fields(SECTION_2);
    assert!(
        rows.len() >= 10,
        "found only {} header rows in section 2",
        rows.len()
    );
    let code: Vec<(&str, usize, usize)> = HEADER_FIELDS
        .iter()
        .map(|f| (f.name, f.offset, f.size))
        .collect();
    formatdoc::assert_fields(SECTION_2, &code);
}

#[test]
fn documented_constants_match_the_code() {
    let meaning = |field: &str| formatdoc::field(SECTION_2, field).meaning;
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
