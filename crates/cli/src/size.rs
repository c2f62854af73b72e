//! Parsing and printing byte sizes: `4GiB`, `512MiB`, `4G`, `65536`.
//! Suffixes are binary (K = 1024) whether or not the `i` is written: a disk
//! size in this tool is always a multiple of its sector size, and binary
//! units are what those are.

/// Parses a size. Accepts a decimal number with an optional suffix
/// `K`/`M`/`G`/`T` (optionally followed by `iB` or `B`), case-insensitive,
/// or a plain number of bytes (optionally followed by `B`). With a unit
/// the number may have a fraction (`1.5GiB`), rounded up to a whole byte;
/// a number of bytes must be whole.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits_end = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(digits_end);
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() || frac.contains('.') || (num.contains('.') && frac.is_empty()) {
        return Err(format!(
            "`{s}` is not a size: write a number of bytes or use a unit, e.g. 4GiB, 1.5GiB, 512MiB, 1048576"
        ));
    }
    let n: u64 = whole
        .parse()
        .map_err(|_| format!("`{s}`: the number is too large"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => {
            return Err(format!(
                "`{s}`: unknown unit `{other}` (use B, KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let unit_bytes = 1u64 << shift;
    let whole_bytes = n
        .checked_mul(unit_bytes)
        .ok_or_else(|| format!("`{s}` does not fit in 64 bits"))?;
    if frac.is_empty() {
        return Ok(whole_bytes);
    }
    if shift == 0 {
        return Err(format!(
            "`{s}`: a number of bytes must be whole (a fraction needs a unit, e.g. 1.5GiB)"
        ));
    }
    // The fraction's bytes: digits * unit / 10^len, rounded up. Digits past
    // the 19th are worth less than a byte of a TiB and are dropped.
    let digits = &frac[..frac.len().min(19)];
    let scale = 10u128.pow(digits.len() as u32);
    let d: u128 = digits.parse().map_err(|_| format!("`{s}` is not a size"))?;
    let frac_bytes = (d * u128::from(unit_bytes)).div_ceil(scale);
    whole_bytes
        .checked_add(frac_bytes as u64)
        .ok_or_else(|| format!("`{s}` does not fit in 64 bits"))
}

/// Prints a size with the largest binary unit that keeps it readable.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[i])
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_plain_bytes() {
        assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("512m").unwrap(), 512 << 20);
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("1048576").unwrap(), 1 << 20);
        assert_eq!(parse_size("8 KiB").unwrap(), 8192);
        assert_eq!(parse_size("2TB").unwrap(), 2 << 40);
        // Fractions with a unit, rounded up to a whole byte.
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("0.25 MiB").unwrap(), 1 << 18);
        assert_eq!(parse_size("1.1KiB").unwrap(), 1127);
        assert_eq!(parse_size("2.000TiB").unwrap(), 2 << 40);
    }

    #[test]
    fn rejects_nonsense_with_a_hint() {
        for bad in [
            "",
            "GiB",
            "-1",
            "4 parsecs",
            "1.5",
            "1.5B",
            ".5GiB",
            "1.GiB",
            "1.2.3GiB",
            "99999999999999999999",
        ] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.contains('`'), "{bad}: {e}");
        }
        assert!(parse_size("20000000TiB").unwrap_err().contains("64 bits"));
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(512), "512 B");
        assert_eq!(human(4 << 30), "4 GiB");
        assert_eq!(human(1536), "1.50 KiB");
    }
}
