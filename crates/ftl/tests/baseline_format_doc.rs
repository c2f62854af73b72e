//! docs/FORMAT.md sections 5 and 6 must list every baseline structure field
//! at the offsets the code uses (redb's header comment drifted from its
//! design doc; ours cannot).

use ftl::logstruct::config::*;
use ftl::logstruct::nvlog::*;
use ftl::logstruct::oob::*;

/// The table rows `(offset, size, field)` of the section titled `title`.
fn rows(title: &str) -> Vec<(String, String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md");
    let doc = std::fs::read_to_string(path).expect("docs/FORMAT.md");
    let start = doc
        .find(title)
        .unwrap_or_else(|| panic!("FORMAT.md lacks `{title}`"));
    let rest = &doc[start + title.len()..];
    let end = rest
        .find("\n###")
        .or_else(|| rest.find("\n## "))
        .unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| offset"))
        .map(|l| {
            let c: Vec<&str> = l.split('|').map(str::trim).collect();
            (c[1].to_string(), c[2].to_string(), c[3].to_string())
        })
        .collect()
}

fn expect(title: &str, want: &[(usize, &str, &str)]) {
    let got = rows(title);
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|&(o, s, f)| (o.to_string(), s.to_string(), f.to_string()))
        .collect();
    assert_eq!(got, want, "FORMAT.md `{title}` disagrees with the code");
}

#[test]
fn format_doc_matches_baseline_constants() {
    expect(
        "### 5.1 Configuration",
        &[
            (CFG_OFF_VERSION, "4", "version"),
            (CFG_OFF_LOGICAL_SECTORS, "8", "logical_sectors"),
            (CFG_OFF_STRIPE_DIES, "4", "stripe_dies"),
            (CFG_OFF_GC_LOW, "4", "gc_low_free_segments"),
            (CFG_OFF_GC_HIGH, "4", "gc_high_free_segments"),
        ],
    );
    assert_eq!(CFG_OFF_GC_HIGH + 4, CONFIG_LEN);
    expect(
        "### 5.2 OOB record",
        &[
            (OOB_OFF_LA, "4", "la"),
            (OOB_OFF_SEQ, "8", "seq"),
            (OOB_OFF_CRC, "4", "crc"),
        ],
    );
    assert_eq!(OOB_OFF_CRC + 4, OOB_RECORD_SIZE);
    expect(
        "### 5.3 Trim record",
        &[
            (TRIM_OFF_MAGIC, "4", "magic"),
            (TRIM_OFF_RESERVED, "4", "reserved"),
            (TRIM_OFF_START, "8", "start"),
            (TRIM_OFF_COUNT, "8", "count"),
        ],
    );
    assert_eq!(TRIM_OFF_COUNT + 8, TRIM_RECORD_LEN);
    expect(
        "### 6.1 Battery-backed log header",
        &[
            (NV_HDR_OFF_MAGIC, "8", "magic"),
            (NV_HDR_OFF_VERSION, "4", "version"),
            (NV_HDR_OFF_RESERVED, "4", "reserved"),
            (NV_HDR_OFF_GENERATION, "8", "generation"),
            (NV_HDR_OFF_CRC, "4", "crc"),
        ],
    );
    assert_eq!(NV_HDR_OFF_CRC + 8, NV_HEADER_SIZE);
    expect(
        "### 6.2 Log entry",
        &[
            (NV_ENT_OFF_GENERATION, "8", "generation"),
            (NV_ENT_OFF_INDEX, "4", "index"),
            (NV_ENT_OFF_LA, "4", "la"),
            (NV_ENT_OFF_SEQ, "8", "seq"),
            (NV_ENT_OFF_RESERVED, "4", "reserved"),
            (NV_ENT_OFF_CRC, "4", "crc"),
            (NV_ENTRY_RECORD_SIZE, "sector_size", "data"),
        ],
    );
    assert_eq!(NV_ENT_OFF_CRC + 4, NV_ENTRY_RECORD_SIZE);
    assert_eq!((LA_TRIM, LA_EMPTY), (0xFFFF_FFFE, 0xFFFF_FFFF));
    assert_eq!(&TRIM_MAGIC.to_le_bytes(), b"TRIM");
    assert_eq!(&NV_MAGIC, b"SCFTLNVL");
}
