//! docs/FORMAT.md §3 (device label) and §4 (SCFTL) list every on-flash
//! field with its offset and size; these tests compare those tables with
//! the codec's field tables and the codes the code uses, so the document
//! cannot drift from the code.

use flash::{Flash, Geometry, MemFlash, PageAddr};
use ftl::codec::rows;
use ftl::label::{self, fields as lf};
use ftl::scftl::config::{encoding, CONFIG_LEN};
use ftl::scftl::format::{self as f, commit_record, data_oob, header, l2p_entry, pair};
use ftl::FtlKind;

#[test]
fn label_table_matches_the_codec() {
    let h = "## 3. Device label";
    formatdoc::assert_fields(h, &rows(lf::TABLE));
    let config = formatdoc::field(h, "config");
    assert_eq!(config.offset_num(), Some(label::CONFIG_OFFSET));
    assert_eq!(config.size, "config_len");
    let crc = formatdoc::field(h, "crc");
    assert_eq!(crc.offset, format!("{} + config_len", label::CONFIG_OFFSET));
    assert_eq!(crc.size_num(), Some(label::crc_field(0).size));
    assert_eq!(label::crc_field(36).offset, label::CONFIG_OFFSET + 36);
    let magic = formatdoc::field(h, "magic");
    assert!(magic.meaning.contains(&format!(
        "`{}`",
        std::str::from_utf8(&label::LABEL_MAGIC).unwrap()
    )));
    let version = formatdoc::field(h, "version");
    assert!(version
        .meaning
        .ends_with(&format!(", {}", label::LABEL_VERSION)));
}

#[test]
fn label_kind_codes_match_ftl_kind() {
    let kind = formatdoc::field("## 3. Device label", "kind");
    let listed: Vec<&str> = kind.meaning.split(',').map(str::trim).collect();
    let want: Vec<String> = FtlKind::ALL
        .iter()
        .map(|k| format!("{} = {}", k.code(), k.name()))
        .collect();
    assert_eq!(listed, want, "§3 kind codes (left: document)");
}

/// A label written by the code, read back at the document's offsets.
#[test]
fn written_label_sits_at_the_documented_offsets() {
    let mut flash = MemFlash::new(Geometry::tiny()).unwrap();
    let config = [9u8, 8, 7, 6, 5];
    label::write_label(&mut flash, FtlKind::Sync, &config).unwrap();
    let mut page = vec![0u8; flash.geometry().page_size()];
    flash.read(PageAddr::new(0, 0), 0, &mut page).unwrap();
    let h = "## 3. Device label";
    let at = |name: &str| {
        let fd = formatdoc::field(h, name);
        let (o, s) = (fd.offset_num().unwrap(), fd.size_num().unwrap());
        page[o..o + s].to_vec()
    };
    assert_eq!(at("magic"), label::LABEL_MAGIC);
    assert_eq!(at("version"), label::LABEL_VERSION.to_le_bytes());
    assert_eq!(at("kind"), FtlKind::Sync.code().to_le_bytes());
    assert_eq!(at("config_len"), (config.len() as u32).to_le_bytes());
    let c = label::CONFIG_OFFSET;
    assert_eq!(page[c..c + config.len()], config);
    let crc = crc32c::crc32c(&page[..c + config.len()]);
    assert_eq!(
        page[c + config.len()..c + config.len() + 4],
        crc.to_le_bytes()
    );
    assert!(page[c + config.len() + 4..].iter().all(|&b| b == 0));
}

#[test]
fn header_table_matches_the_codec() {
    let h = "### 4.2";
    formatdoc::assert_fields(h, &rows(header::TABLE));
    let crc_len = formatdoc::field(h, "crc_len");
    assert_eq!(
        crc_len.offset_num().unwrap() + crc_len.size_num().unwrap(),
        f::HEADER_LEN
    );
    assert_eq!(f::META_MAGIC, *b"SCFM");
    assert!(formatdoc::field(h, "magic").meaning.contains("`SCFM`"));
    assert_eq!(
        formatdoc::field(h, "version").meaning,
        f::META_VERSION.to_string()
    );
    assert_eq!(
        (f::OFF_MAGIC, f::OFF_KIND),
        (header::MAGIC.offset, header::KIND.offset)
    );
}

#[test]
fn header_kind_codes_match_the_constants() {
    let kind = formatdoc::field("### 4.2", "kind");
    let listed: Vec<&str> = kind.meaning.split(',').map(str::trim).collect();
    let want: Vec<String> = [
        (f::KIND_TENTATIVE, "tentative delta"),
        (f::KIND_COMMITTED, "committed delta"),
        (f::KIND_L2P, "L2P page"),
        (f::KIND_COMMIT_RECORD, "commit record"),
        (f::KIND_ORDERED, "ordered delta"),
        (f::KIND_INPAGE, "in-page record"),
        (f::KIND_CONSOLIDATED, "consolidation delta"),
    ]
    .iter()
    .map(|(code, name)| format!("{code} {name}"))
    .collect();
    assert_eq!(listed, want, "§4.2 kind codes (left: document)");
    // The payload sections name the kinds they describe.
    let heading = |prefix: &str| formatdoc::section(prefix).lines().next().unwrap();
    assert!(heading("### 4.3").ends_with(&format!(
        "(kinds {}, {} and {})",
        f::KIND_TENTATIVE,
        f::KIND_COMMITTED,
        f::KIND_ORDERED
    )));
    assert!(heading("### 4.4").ends_with(&format!("(kind {})", f::KIND_L2P)));
    assert!(heading("### 4.5").ends_with(&format!("(kind {})", f::KIND_COMMIT_RECORD)));
    assert!(heading("### 4.8").ends_with(&format!(
        "(kinds {} and {})",
        f::KIND_INPAGE,
        f::KIND_CONSOLIDATED
    )));
}

#[test]
fn payload_tables_match_the_codec() {
    formatdoc::assert_fields("### 4.3", &rows(pair::TABLE));
    assert_eq!(f::PAIR_LEN, 8);
    formatdoc::assert_fields("### 4.4", &rows(l2p_entry::TABLE));
    assert_eq!(f::L2P_ENTRY_LEN, 4);
    formatdoc::assert_fields("### 4.5", &rows(commit_record::TABLE));
    assert_eq!(commit_record::L2P_CRC.offset, f::HEADER_LEN);
    formatdoc::assert_fields("### 4.7", &rows(data_oob::TABLE));
    assert_eq!(f::DATA_OOB_LEN, 4);
    // The logical sector records: offset `4s + 8 + 4i`, 4 bytes each.
    let la = formatdoc::field("### 4.7", "la");
    assert_eq!(la.offset, "`4s + 8 + 4i`");
    assert_eq!(la.size_num(), Some(f::DATA_LA_LEN));
    for (s, i) in [(1, 0), (2, 1), (4, 3), (8, 5)] {
        assert_eq!(f::data_la_offset(s, i), 4 * s as usize + 8 + 4 * i as usize);
    }
    assert_eq!(f::data_oob_len_v5(4), 40);
    assert!(formatdoc::section("### 4.7").contains("`8 s + 8` bytes of OOB"));
    formatdoc::assert_fields("### 4.8", &rows(f::inpage_marker::TABLE));
    assert_eq!(f::INPAGE_MAGIC, *b"SCFI");
    assert_eq!(f::INPAGE_MARKER_LEN, 8);
    assert_eq!(f::inpage_record_len(0), f::HEADER_LEN + 8);
}

#[test]
fn config_table_matches_the_codec_and_encoding() {
    let h = "### 4.6";
    formatdoc::assert_fields(h, &rows(encoding::TABLE));
    assert!(formatdoc::field(h, "version")
        .meaning
        .starts_with(&ftl::scftl::config::CONFIG_VERSION.to_string()));
    assert!(formatdoc::section(h).contains(&format!("Total {} bytes", CONFIG_LEN)));
    let c = ftl::scftl::ScftlConfig::default_for(&flash::Geometry::small());
    let b = c.encode();
    assert_eq!(b.len(), CONFIG_LEN);
    let w = formatdoc::field(h, "write_bound").offset_num().unwrap();
    assert_eq!(
        u32::from_le_bytes(b[w..w + 4].try_into().unwrap()),
        c.write_bound
    );
    let l = formatdoc::field(h, "logical_sectors").offset_num().unwrap();
    assert_eq!(
        u64::from_le_bytes(b[l..l + 8].try_into().unwrap()),
        c.logical_sectors
    );
}
