//! Snapshot trees under `context verify`: a directory anyone may have
//! written, checked against the retained index digest. The input encodes a
//! tree: entries separated by a 0xFF byte, each `path LF bytes`. The
//! retained digest is the index's own (the fuzzer controls the index as a
//! tree's author would, so the checks behind the root digest are reached).
//! Beyond not panicking: a verified tree holds exactly bytes of the
//! observed tree, `index.json` included, under the retained digest; and
//! one digest away, nothing verifies.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use probity_core::context::HexDigest;
use probity_core::context::observe;

fuzz_target!(|data: &[u8]| {
    let mut files = BTreeMap::new();
    for entry in data.split(|b| *b == 0xFF) {
        let (path, bytes) = match entry.iter().position(|b| *b == b'\n') {
            Some(i) => (&entry[..i], &entry[i + 1..]),
            None => (entry, &[][..]),
        };
        let Ok(path) = std::str::from_utf8(path) else {
            return;
        };
        // Only what a directory walk can observe: `/`-separated non-empty
        // components, never `.`, `..` or NUL.
        if path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == ".." || c.contains('\0'))
        {
            return;
        }
        files.insert(path.to_owned(), bytes.to_vec());
    }
    // A path is a file or a directory, never both.
    if files.keys().any(|p| {
        files.keys().any(|q| {
            q.len() > p.len() && q.starts_with(p.as_str()) && q.as_bytes()[p.len()] == b'/'
        })
    }) {
        return;
    }
    let index = files.get("index.json").map_or(&[][..], Vec::as_slice);
    let retained = HexDigest::of(index);
    let observed = observe(&files);
    if let Ok(verified) = probity_ports::context::verify(&observed, &retained) {
        assert_eq!(verified.index_digest(), retained);
        for (path, bytes) in verified.files() {
            assert_eq!(
                files.get(path),
                Some(bytes),
                "{path} is not the observed bytes"
            );
        }
        assert!(verified.files().contains_key("index.json"));
        let other = HexDigest::of(&[index, b" "].concat());
        assert!(probity_ports::context::verify(&observed, &other).is_err());
    }
});
