//! docs/FORMAT.md §9 (the trace) and the code agree: the header and record
//! tables list exactly the fields the code writes, at the same offsets, and
//! the constants the document quotes are the code's.

use explore::trace::*;

#[test]
fn the_trace_tables_match_the_code() {
    formatdoc::assert_fields("### 9.1", &HEADER_FIELDS);
    formatdoc::assert_fields("### 9.2", &RECORD_FIELDS);
    let end = |f: &[(&str, usize, usize)]| f.last().map(|l| l.1 + l.2).unwrap();
    assert_eq!(end(&HEADER_FIELDS), HEADER_LEN);
    assert_eq!(end(&RECORD_FIELDS), RECORD_LEN);
}

#[test]
fn the_documented_constants_are_the_codes() {
    let magic = formatdoc::field("### 9.1", "magic").meaning;
    assert!(
        magic.contains(std::str::from_utf8(MAGIC).unwrap()),
        "{magic}"
    );
    let version = formatdoc::field("### 9.1", "version").meaning;
    assert!(version.contains(&VERSION.to_string()), "{version}");
    let kind = formatdoc::field("### 9.2", "kind").meaning;
    for (k, name) in [
        (KIND_WRITE, "WRITE"),
        (KIND_TRIM, "TRIM"),
        (KIND_FLUSH, "FLUSH"),
        (KIND_BARRIER, "BARRIER"),
        (KIND_BEGIN, "BEGIN"),
        (KIND_END, "END"),
    ] {
        assert!(
            kind.contains(&format!("{k} {name}")),
            "kind {k} {name}: {kind}"
        );
    }
    let flags = formatdoc::field("### 9.2", "flags").meaning;
    assert!(flags.contains(&format!("{FLAG_ZERO} ZERO")), "{flags}");
}
