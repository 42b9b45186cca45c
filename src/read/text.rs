//! Bytes and tokens shown in messages, and text input's byte-order mark.

/// `s` quoted for a message, cut after 32 characters with its full length given, so a bad
/// token of megabytes is not echoed whole: `'0x12'`, `'ffffffffff…' (10485760 bytes)`.
pub fn quote(s: &str) -> String {
    const MAX: usize = 32;
    match s.char_indices().nth(MAX) {
        None => format!("'{s}'"),
        Some((cut, _)) => format!("'{}…' ({} bytes)", &s[..cut], s.len()),
    }
}

/// `data` without a leading UTF-8 byte-order mark (which some editors write at the start of
/// text files).
pub fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tokens_are_quoted_cut() {
        assert_eq!(quote("12zz"), "'12zz'");
        let long = "f".repeat(10 << 20);
        let q = quote(&long);
        assert!(q.len() < 80 && q.ends_with("(10485760 bytes)"), "{q}");
    }
}
