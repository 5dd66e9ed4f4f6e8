//! The non-blank rule agrees with an ECMA-262 regex engine's `\S` (the
//! published schemas' `"pattern": "\\S"`) on every code point of the Basic
//! Multilingual Plane and a sample above it. Node.js is the engine; the
//! machine image this project builds on ships it, and a missing `node` is
//! a failure, not a skip.

use std::process::Command;

use probity_core::review::NonBlank;

#[path = "common/run.rs"]
mod run;

#[test]
fn non_blank_agrees_with_ecma_262_on_every_bmp_code_point() {
    let script = r#"
        const out = [];
        for (let cp = 0; cp <= 0x10ffff; cp++) {
            if (cp >= 0xd800 && cp <= 0xdfff) continue;
            if (cp > 0xffff && cp % 4099 !== 0) continue;
            if (!/\S/u.test(String.fromCodePoint(cp))) out.push(cp);
        }
        console.log(out.join(","));
    "#;
    let out = run::stdout_of(
        Command::new("node").arg("-e").arg(script),
        "node (the ECMA-262 engine, which must be installed)",
    );
    let ecma_blank: Vec<u32> = String::from_utf8_lossy(&out)
        .trim()
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(ecma_blank.contains(&0xfeff) && !ecma_blank.contains(&0x85));
    let mut checked = 0;
    for cp in (0..=0x10ffffu32).filter(|cp| *cp <= 0xffff || cp % 4099 == 0) {
        let Some(c) = char::from_u32(cp) else {
            continue;
        };
        let blank_here = NonBlank::parse(c.to_string()).is_err();
        assert_eq!(
            blank_here,
            ecma_blank.contains(&cp),
            "U+{cp:04X}: NonBlank and ECMA-262 \\S disagree"
        );
        checked += 1;
    }
    assert!(checked > 60_000);
}
