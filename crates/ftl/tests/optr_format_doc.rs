//! docs/FORMAT.md §8 lists every OPTR structure field at the offsets the
//! code uses: the tables there are compared with the codec's field tables,
//! so the document cannot drift from the code.

use ftl::codec::rows;
use ftl::optr::checkpoint::{
    self, incremental, seal, summary, ENTRIES_OFFSET, INCREMENTAL_MAGIC, SEAL_MAGIC, SUMMARY_MAGIC,
};
use ftl::optr::clue::{clue, CLUE_SIZE};
use ftl::optr::config::{encoding, CONFIG_LEN, CONFIG_LEN_V1, CONFIG_VERSION};

fn table(heading: &str, want: &[(&str, usize, usize)]) {
    formatdoc::assert_fields(heading, want);
    assert_eq!(
        formatdoc::section_fields(heading).len(),
        want.len(),
        "{heading}"
    );
}

fn magic_is(heading: &str, magic: &[u8]) {
    let m = formatdoc::field(heading, "magic");
    let text = format!("`{}`", std::str::from_utf8(magic).unwrap());
    assert!(m.meaning.contains(&text), "{heading}: {}", m.meaning);
}

#[test]
fn configuration_table_matches_the_codec() {
    let h = "### 8.1 Configuration";
    table(h, &rows(encoding::TABLE));
    assert!(formatdoc::section(h)
        .lines()
        .next()
        .unwrap()
        .contains(&format!("{CONFIG_LEN} bytes")));
    let v = formatdoc::field(h, "version");
    assert!(v
        .meaning
        .starts_with(&format!("configuration version, {CONFIG_VERSION}")));
    assert!(v.meaning.contains(&format!("first {CONFIG_LEN_V1} bytes")));
}

#[test]
fn clue_table_matches_the_codec() {
    let h = "### 8.2 OOB clue";
    table(h, &rows(clue::TABLE));
    assert_eq!(clue::CRC.end(), CLUE_SIZE);
    assert!(formatdoc::section(h)
        .lines()
        .next()
        .unwrap()
        .contains(&format!("{CLUE_SIZE} bytes per sector")));
}

#[test]
fn checkpoint_tables_match_the_codec() {
    let h = "### 8.4 Checkpoint slot and seal page";
    table(h, &rows(seal::TABLE));
    magic_is(h, &SEAL_MAGIC);
    let h = "### 8.5 Summary page";
    table(h, &rows(summary::TABLE));
    magic_is(h, &SUMMARY_MAGIC);
    let h = "### 8.7 Incremental checkpoint pages";
    table(h, &rows(incremental::TABLE));
    magic_is(h, &INCREMENTAL_MAGIC);
    assert_eq!(incremental::CRC.end(), ENTRIES_OFFSET);
    assert!(formatdoc::section(h).contains(&format!(
        "followed by `count` entries of {} bytes",
        checkpoint::ENTRY_SIZE
    )));
}
