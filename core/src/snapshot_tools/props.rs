//! Property tests of the snapshot-tool invariants.

use proptest::prelude::*;
use serde_json::json;

use super::budget::BudgetLimits;
use super::path::{Resolved, SnapshotPath};
use super::raw::RawRead;
use super::shape::shape_read;
use super::tools::{Prepared, Raw, Session};

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just(String::new()),
        Just(".git".to_owned()),
        Just(".GIT".to_owned()),
        Just("-rf".to_owned()),
        "[a-z]{1,3}",
    ]
}

proptest! {
    /// A resolved path has no escaping, empty, `.`, `..`, `.git` or NUL
    /// component, is relative, and resolves to itself.
    #[test]
    fn resolution_is_contained_and_idempotent(segs in prop::collection::vec(segment(), 0..8), lead in any::<bool>()) {
        let mut raw = segs.join("/");
        if lead { raw.insert(0, '/'); }
        if let Ok(Resolved::Path(p)) = SnapshotPath::resolve(raw.as_bytes()) {
            prop_assert!(!p.as_bytes().starts_with(b"/"));
            for c in p.components() {
                prop_assert!(!c.is_empty() && c != b"." && c != b"..");
                prop_assert!(!c.eq_ignore_ascii_case(b".git"));
            }
            prop_assert_eq!(SnapshotPath::resolve(p.as_bytes()), Ok(Resolved::Path(p.clone())));
        }
    }

    /// Paging with the offsets the notes name reconstructs the file (when no
    /// single line is longer than the cap: such a line is cut, and said so).
    #[test]
    fn paging_by_the_continue_offset_reconstructs_text(
        lines in prop::collection::vec("[a-zé ]{0,12}", 1..40),
        cap in 13u64..80,
    ) {
        prop_assume!(lines.iter().all(|l| l.len() < cap as usize));
        let content = lines.join("\n");
        let path = SnapshotPath::parse(b"f.txt").unwrap();
        let mut offset = 1u64;
        let mut rebuilt = String::new();
        for _ in 0..200 {
            let s = shape_read(&path, content.as_bytes(), offset, None, cap);
            prop_assert!(s.payload_bytes <= cap);
            let body_len = s.payload_bytes as usize;
            rebuilt.push_str(&s.text[..body_len]);
            match s.text.rfind("continue with offset=") {
                Some(i) => {
                    let rest = &s.text[i + "continue with offset=".len()..];
                    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    offset = digits.parse().unwrap();
                }
                None => break,
            }
        }
        prop_assert_eq!(rebuilt, content);
    }

    /// Whatever is read, the budget is never exceeded.
    #[test]
    fn the_budget_is_never_exceeded(
        max_calls in 0u32..6,
        max_bytes in 0u64..300,
        cap in 1u64..120,
        files in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..10),
    ) {
        let mut s = Session::new(BudgetLimits { max_calls, max_bytes, result_cap: cap });
        for (i, f) in files.iter().enumerate() {
            let c = match s.prepare("read", &json!({"path": format!("f{i}")})) {
                Prepared::Fetch(t) => s.complete(t, Ok(Raw::Read(RawRead::File(f.clone())))),
                Prepared::Done(c) => c,
            };
            prop_assert!(s.usage().calls_used <= max_calls);
            prop_assert!(s.usage().bytes_used <= max_bytes);
            if c.text.starts_with("budget exhausted") {
                prop_assert!(s.is_exhausted());
            }
        }
    }
}

/// The backtracking matcher the memoized one replaced: the reference.
fn reference_match(t: &str, s: &[u8]) -> bool {
    fn go(t: &[u8], s: &[u8]) -> bool {
        match t {
            [] => s.is_empty(),
            [b'*', b'*', b'/', rest @ ..] => {
                go(rest, s)
                    || s.iter()
                        .enumerate()
                        .any(|(i, b)| *b == b'/' && go(rest, &s[i + 1..]))
            }
            [b'*', b'*', rest @ ..] => (0..=s.len()).any(|i| go(rest, &s[i..])),
            [b'*', rest @ ..] => {
                let mut i = 0;
                loop {
                    if go(rest, &s[i..]) {
                        return true;
                    }
                    if i >= s.len() || s[i] == b'/' {
                        return false;
                    }
                    i += 1;
                }
            }
            [b'?', rest @ ..] => s.first().is_some_and(|b| *b != b'/') && go(rest, &s[1..]),
            [c, rest @ ..] => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(t.as_bytes(), s)
}

proptest! {
    /// The memoized glob matcher agrees with the backtracking one (anchored
    /// globs over `*`, `**`, `**/`, `?` and literals).
    #[test]
    fn glob_matching_agrees_with_backtracking(
        segs in prop::collection::vec("[ab?*]{1,4}", 2..4),
        path in "[ab/]{0,9}",
    ) {
        let glob = segs.join("/");
        prop_assume!(!glob.contains("***") && glob.contains(['*', '?']));
        let parsed = super::path::Glob::parse(glob.as_bytes()).unwrap().unwrap();
        prop_assert_eq!(parsed.matches(path.as_bytes()), reference_match(&glob, path.as_bytes()), "{} {}", glob, path);
    }
}
