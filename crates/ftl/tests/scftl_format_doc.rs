//! docs/FORMAT.md §4 lists every SCFTL on-flash field with its offset and
//! size; this test parses those tables and compares them with the
//! constants the code uses, so the document cannot drift from the code.

use ftl::scftl::format as f;

/// (subsection title prefix, field) -> (offset, size), from the doc tables.
fn doc_fields() -> Vec<(String, String, usize, usize)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md");
    let doc = std::fs::read_to_string(path).expect("docs/FORMAT.md");
    let start = doc.find("## 4. SCFTL").expect("section 4");
    let end = doc[start + 3..]
        .find("\n## ")
        .map_or(doc.len(), |e| start + 3 + e);
    let mut sub = String::new();
    let mut out = Vec::new();
    for line in doc[start..end].lines() {
        if let Some(t) = line.strip_prefix("### ") {
            sub = t.to_string();
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 {
            continue;
        }
        if let (Ok(o), Ok(s)) = (cells[1].parse::<usize>(), cells[2].parse::<usize>()) {
            out.push((sub.clone(), cells[3].to_string(), o, s));
        }
    }
    out
}

fn lookup(fields: &[(String, String, usize, usize)], sub: &str, field: &str) -> (usize, usize) {
    let hits: Vec<_> = fields
        .iter()
        .filter(|(s, f, _, _)| s.starts_with(sub) && f == field)
        .collect();
    assert_eq!(hits.len(), 1, "field `{field}` in `{sub}`: {hits:?}");
    (hits[0].2, hits[0].3)
}

#[test]
fn header_table_matches_constants() {
    let d = doc_fields();
    let h = "4.2";
    for (name, off, size) in [
        ("magic", f::OFF_MAGIC, 4),
        ("version", f::OFF_VERSION, 2),
        ("kind", f::OFF_KIND, 2),
        ("gen", f::OFF_GEN, 8),
        ("epoch", f::OFF_EPOCH, 8),
        ("index", f::OFF_INDEX, 4),
        ("count", f::OFF_COUNT, 4),
        ("aux", f::OFF_AUX, 4),
        ("aux2", f::OFF_AUX2, 4),
        ("crc", f::OFF_CRC, 4),
        ("crc_len", f::OFF_CRC_LEN, 4),
    ] {
        assert_eq!(lookup(&d, h, name), (off, size), "header field {name}");
    }
    let (o, s) = lookup(&d, h, "crc_len");
    assert_eq!(o + s, f::HEADER_LEN);
    assert_eq!(f::META_MAGIC, *b"SCFM");
}

#[test]
fn payload_tables_match_constants() {
    let d = doc_fields();
    assert_eq!(lookup(&d, "4.3", "la"), (f::OFF_PAIR_LA, 4));
    assert_eq!(lookup(&d, "4.3", "pa"), (f::OFF_PAIR_PA, 4));
    assert_eq!(f::PAIR_LEN, 8);
    assert_eq!(lookup(&d, "4.4", "pa"), (0, f::L2P_ENTRY_LEN));
    assert_eq!(lookup(&d, "4.5", "l2p_crc"), (f::OFF_CR_L2P_CRC, 4));
    assert_eq!(lookup(&d, "4.5", "slot"), (f::OFF_CR_SLOT, 4));
}

#[test]
fn config_table_matches_constants_and_encoding() {
    let d = doc_fields();
    let h = "4.6";
    for (name, off, size) in [
        ("version", f::CFG_OFF_VERSION, 4),
        ("logical_sectors", f::CFG_OFF_LOGICAL, 8),
        ("write_bound", f::CFG_OFF_W, 4),
        ("gc_bound", f::CFG_OFF_K, 4),
        ("gc_threshold", f::CFG_OFF_U, 4),
        ("checkpoint_slot_superblocks", f::CFG_OFF_SLOT_SBS, 4),
        ("delta_region_superblocks", f::CFG_OFF_DELTA_SBS, 4),
        ("delta_pairs_per_page", f::CFG_OFF_DELTA_PAIRS, 4),
    ] {
        assert_eq!(lookup(&d, h, name), (off, size), "config field {name}");
    }
    let c = ftl::scftl::ScftlConfig::default_for(&flash::Geometry::small());
    let b = c.encode();
    assert_eq!(b.len(), f::CFG_LEN);
    assert_eq!(
        u32::from_le_bytes(b[f::CFG_OFF_W..f::CFG_OFF_W + 4].try_into().unwrap()),
        c.write_bound
    );
    assert_eq!(
        u64::from_le_bytes(
            b[f::CFG_OFF_LOGICAL..f::CFG_OFF_LOGICAL + 8]
                .try_into()
                .unwrap()
        ),
        c.logical_sectors
    );
}
