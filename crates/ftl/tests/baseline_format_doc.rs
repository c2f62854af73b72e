//! docs/FORMAT.md sections 5 and 6 must list every baseline structure field
//! at the offsets the code uses (redb's header comment drifted from its
//! design doc; ours cannot): the tables there are compared with the codec's
//! field tables.

use ftl::codec::rows;
use ftl::logstruct::config::{encoding, CONFIG_LEN};
use ftl::logstruct::nvlog::{self, *};
use ftl::logstruct::oob::{self, *};

#[test]
fn format_doc_matches_baseline_constants() {
    formatdoc::assert_fields("### 5.1 Configuration", &rows(encoding::TABLE));
    assert_eq!(
        formatdoc::section_fields("### 5.1 Configuration").len(),
        encoding::TABLE.len()
    );
    assert_eq!(encoding::STREAMS.end(), CONFIG_LEN);
    assert!(formatdoc::section("### 5.1 Configuration")
        .lines()
        .next()
        .unwrap()
        .contains(&format!("{} bytes", CONFIG_LEN)));

    formatdoc::assert_fields("### 5.2 OOB record", &rows(oob::record::TABLE));
    assert_eq!(
        formatdoc::section_fields("### 5.2 OOB record").len(),
        oob::record::TABLE.len()
    );
    assert_eq!(oob::record::CRC.end(), OOB_RECORD_SIZE);

    formatdoc::assert_fields("### 5.3 Trim record", &rows(oob::trim::TABLE));
    assert_eq!(
        formatdoc::section_fields("### 5.3 Trim record").len(),
        oob::trim::TABLE.len()
    );
    assert_eq!(oob::trim::COUNT.end(), TRIM_RECORD_LEN);

    let h = "### 6.1 Battery-backed log header";
    formatdoc::assert_fields(h, &rows(nvlog::header::TABLE));
    assert_eq!(
        formatdoc::section_fields(h).len(),
        nvlog::header::TABLE.len()
    );
    assert_eq!(nvlog::header::CRC.offset + 8, NV_HEADER_SIZE);

    let h = "### 6.2 Log entry";
    formatdoc::assert_fields(h, &rows(nvlog::entry::TABLE));
    let data = formatdoc::field(h, "data");
    assert_eq!(data.offset_num(), Some(NV_ENTRY_RECORD_SIZE));
    assert_eq!(data.size, "sector_size");
    assert_eq!(
        formatdoc::section_fields(h).len(),
        nvlog::entry::TABLE.len() + 1
    );
    assert_eq!(nvlog::entry::CRC.offset + 4, NV_ENTRY_RECORD_SIZE);

    assert_eq!((LA_TRIM, LA_EMPTY), (0xFFFF_FFFE, 0xFFFF_FFFF));
    assert_eq!(&TRIM_MAGIC.to_le_bytes(), b"TRIM");
    assert!(formatdoc::field("### 5.3 Trim record", "magic")
        .meaning
        .contains("`TRIM`"));
    assert_eq!(&NV_MAGIC, b"SCFTLNVL");
    assert!(
        formatdoc::field("### 6.1 Battery-backed log header", "magic")
            .meaning
            .contains("`SCFTLNVL`")
    );
}
