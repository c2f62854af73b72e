//! docs/FORMAT.md §7 must list every file-system structure field by field at
//! the offsets and sizes the code's field tables use (redb's header comment
//! drifted from its design doc; ours cannot).

use formatdoc::{assert_fields, field, section};
use fs::codec::rows;
use fs::dir::{DIRENT_FIELDS, D_HEADER};
use fs::inode::INODE_FIELDS;
use fs::layout::{
    BLOCK_SIZE, FS_VERSION, INODES_PER_BLOCK, INODE_SIZE, MAX_FILE_BLOCKS, MAX_LOG_SLOTS,
    MIN_BLOCKS, MIN_LOG_SLOTS, NDIRECT, PTRS_PER_BLOCK, SB_LEN, SB_MAGIC_VALUE, SUPERBLOCK_FIELDS,
    V1_MAX_FILE_BLOCKS,
};
use fs::logfmt::{LOG_HEADER_FIELDS, LOG_MAGIC_VALUE, L_BLOCKS};

#[test]
fn superblock_table_matches() {
    assert_fields("### 7.2 Superblock", &rows(SUPERBLOCK_FIELDS));
    assert_eq!(SUPERBLOCK_FIELDS.last().unwrap().end(), SB_LEN);
    assert_eq!(&SB_MAGIC_VALUE, b"SCFTLFS\0");
    assert!(field("### 7.2", "magic")
        .meaning
        .contains("`SCFTLFS` followed by a zero byte"));
}

#[test]
fn log_header_table_matches() {
    assert_fields("### 7.3 Log header", &rows(LOG_HEADER_FIELDS));
    let blocks = field("### 7.3", "blocks");
    assert_eq!(blocks.offset_num(), Some(L_BLOCKS));
    assert_eq!(blocks.size, "4 × count");
    assert_eq!(&LOG_MAGIC_VALUE, b"SCFTLLOG");
    assert!(section("### 7.1").contains(&format!("slots {MIN_LOG_SLOTS}..={MAX_LOG_SLOTS}")));
}

#[test]
fn inode_table_matches() {
    assert_fields("### 7.4 Inode", &rows(INODE_FIELDS));
    assert_eq!(INODE_FIELDS.last().unwrap().end(), INODE_SIZE);
    assert!(section("### 7.4").contains(&format!("({INODE_SIZE} bytes)")));
    assert_eq!(field("### 7.4", "direct").size_num(), Some(4 * NDIRECT));
    assert_eq!(MAX_FILE_BLOCKS, 1_074_791_436);
    assert_eq!(V1_MAX_FILE_BLOCKS, 1_049_612);
    assert!(section("### 7.4").contains("1,074,791,436"));
    assert!(section("### 7.4").contains("1,049,612"));
    assert!(section("### 7.2").contains(&format!("version: {FS_VERSION}")));
    assert_eq!(PTRS_PER_BLOCK, 1024);
}

#[test]
fn xattr_header_table_matches() {
    use fs::xattr::{XATTR_HEADER, XATTR_HEADER_FIELDS, XATTR_MAGIC, XATTR_VALUE_MAX};
    assert_fields("### 7.7 Xattr block", &rows(XATTR_HEADER_FIELDS));
    assert_eq!(XATTR_HEADER_FIELDS.last().unwrap().end(), XATTR_HEADER);
    assert_eq!(&XATTR_MAGIC, b"SXA1");
    assert!(field("### 7.7", "magic").meaning.contains("`SXA1`"));
    let s = section("### 7.7");
    assert!(s.contains(&format!("0..{XATTR_VALUE_MAX})")));
    assert!(s.contains(&format!("which start at {XATTR_HEADER}")));
}

#[test]
fn directory_record_table_matches() {
    assert_fields("### 7.5 Directory block", &rows(DIRENT_FIELDS));
    let name = field("### 7.5", "name");
    assert_eq!(name.offset_num(), Some(D_HEADER));
    assert_eq!(name.size, "name_len");
}

#[test]
fn regions_text_matches_the_constants() {
    let s = section("### 7.1");
    assert!(s.contains(&format!("{BLOCK_SIZE}-byte *blocks*")));
    assert!(s.contains(&format!("at least {MIN_BLOCKS} blocks")));
    assert!(s.contains(&format!("`inode_count` / {INODES_PER_BLOCK}")));
    assert!(section("### 7.6").contains("bit `n mod 8` of byte `⌊n / 8⌋`"));
}
