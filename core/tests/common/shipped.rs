//! The shipped code of a Rust source file, for the architecture lints:
//! comments, string and character literals' contents, and every item
//! attributed `#[cfg(test)]` (with its other attributes) blanked to spaces.
//! Newlines stay, so a byte's line is its line in the file. Only the
//! attributed item goes: code after a `#[cfg(test)] mod tests;` or a
//! `#[cfg(test)] use …;` is still read (a file is not cut at its first
//! `#[cfg(test)]`).

/// `src` with non-shipped bytes replaced by spaces (newlines kept).
pub fn shipped_code(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"#[cfg(test)]") {
            let end = item_end(b, i + b"#[cfg(test)]".len());
            blank(&mut out, i, end);
            i = end;
            continue;
        }
        match skip_literal(b, i) {
            Some((end, keep_delims)) => {
                if keep_delims {
                    // A string: blank its contents, keep the quotes.
                    blank(&mut out, i + 1, end.saturating_sub(1));
                } else {
                    blank(&mut out, i, end);
                }
                i = end;
            }
            None => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn blank(out: &mut [u8], from: usize, to: usize) {
    let to = to.min(out.len());
    for c in &mut out[from.min(to)..to] {
        if *c != b'\n' {
            *c = b' ';
        }
    }
}

/// A comment or literal starting at `i`: its end, and whether it is a
/// string (`true`: keep its delimiters) or a comment / char literal.
fn skip_literal(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let rest = &b[i..];
    if rest.starts_with(b"//") {
        let end = rest
            .iter()
            .position(|c| *c == b'\n')
            .map_or(b.len(), |p| i + p);
        return Some((end, false));
    }
    if rest.starts_with(b"/*") {
        let (mut depth, mut j) = (1, i + 2);
        while j < b.len() && depth > 0 {
            if b[j..].starts_with(b"/*") {
                depth += 1;
                j += 2;
            } else if b[j..].starts_with(b"*/") {
                depth -= 1;
                j += 2;
            } else {
                j += 1;
            }
        }
        return Some((j, false));
    }
    let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    // Raw strings: r"…", r#"…"#, br"…".
    let raw_at = if rest.starts_with(b"br") {
        Some(i + 2)
    } else if rest.starts_with(b"r") {
        Some(i + 1)
    } else {
        None
    };
    if let Some(mut j) = raw_at.filter(|_| !ident_before) {
        let mut hashes = 0;
        while j < b.len() && b[j] == b'#' {
            hashes += 1;
            j += 1;
        }
        if j < b.len() && b[j] == b'"' {
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let mut k = j + 1;
            while k < b.len() && !b[k..].starts_with(&close) {
                k += 1;
            }
            return Some(((k + close.len()).min(b.len()), true));
        }
    }
    if rest.starts_with(b"\"") || (rest.starts_with(b"b\"") && !ident_before) {
        let mut k = i + if rest[0] == b'b' { 2 } else { 1 };
        while k < b.len() && b[k] != b'"' {
            k += if b[k] == b'\\' { 2 } else { 1 };
        }
        return Some(((k + 1).min(b.len()), true));
    }
    if rest.starts_with(b"'") {
        // A char literal ('x', '\n', '\u{1F600}'), not a lifetime ('a).
        if rest.get(1) == Some(&b'\\') {
            let k = rest[2..].iter().position(|c| *c == b'\'')? + i + 3;
            return Some((k, false));
        }
        let ch = std::str::from_utf8(&rest[1..rest.len().min(6)])
            .ok()
            .or_else(|| std::str::from_utf8(&rest[1..rest.len().min(5)]).ok())
            .or_else(|| std::str::from_utf8(&rest[1..rest.len().min(4)]).ok())
            .or_else(|| std::str::from_utf8(&rest[1..rest.len().min(3)]).ok())?
            .chars()
            .next()?;
        let after = 1 + ch.len_utf8();
        if rest.get(after) == Some(&b'\'') {
            return Some((i + after + 1, false));
        }
    }
    None
}

/// The end of the item that starts at (or after whitespace, comments and
/// more attributes from) `i`: past its `;` at depth 0, or past the `}`
/// that closes its first top-level brace.
fn item_end(b: &[u8], mut i: usize) -> usize {
    let mut depth: i32 = 0;
    let mut braced = false;
    while i < b.len() {
        if let Some((end, _)) = skip_literal(b, i) {
            i = end;
            continue;
        }
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' => {
                depth += 1;
                braced = true;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 && braced {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::shipped_code;

    #[test]
    fn only_the_attributed_item_comments_and_literals_go() {
        let src = "use a::b;\n#[cfg(test)]\nmod tests;\nfn f() { let s = \"crate::x\"; let c = '{'; }\n// crate::y\n#[cfg(test)]\n#[allow(x)]\nmod t {\n fn g() { \"}\"; }\n}\nuse crate::z;\n";
        let out = shipped_code(src);
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("use a::b;"));
        assert!(!out.contains("mod tests"));
        assert!(!out.contains("crate::x"));
        assert!(!out.contains("crate::y"));
        assert!(!out.contains("fn g"));
        assert!(out.contains("use crate::z;"));
        assert_eq!(out.lines().nth(10), Some("use crate::z;"));
        assert!(out.contains("fn f() {"));
    }
}
