//! `probity-filter/4` pins one Unicode version (issue 23 §7): the NFKC
//! tables (`unicode-normalization`'s, checked by
//! `filter::tests::nfkc_tables_are_pinned`) and the `Cf` table of
//! `filter/unicode.rs` are named by the same version wherever the filter's
//! sources and docs/context.md name one (they once said 16.0 for one and
//! 18.0.0 for the other).

use std::path::Path;

use probity_core::context::NFKC_UNICODE_VERSION;

/// Every `Unicode <digits and dots>` in `text`.
fn versions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("Unicode ") {
        let after = &rest[at + "Unicode ".len()..];
        let v: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let v = v.trim_end_matches('.').to_string();
        if v.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            out.push(v);
        }
        rest = after;
    }
    out
}

#[test]
fn the_filter_names_one_unicode_version() {
    let (a, b, c) = NFKC_UNICODE_VERSION;
    let pinned = format!("{a}.{b}.{c}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for file in [
        "src/context/filter/mod.rs",
        "src/context/filter/unicode.rs",
        "../docs/context.md",
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for v in versions(&text) {
            seen += 1;
            assert_eq!(
                v, pinned,
                "{file} names Unicode {v}, the filter pins {pinned}"
            );
        }
    }
    assert!(
        seen >= 2,
        "the Cf table and the NFKC tables each name their version"
    );
}
