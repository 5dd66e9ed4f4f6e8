//! Note contents under `refs/notes/probity` (`parse_note`, `note_lines`,
//! `note_adding`): what a server or a clone fetches. Beyond not panicking:
//! an accepted note is rebuilt byte for byte from its bundles, and adding
//! nothing to any note keeps every line it had (the notes ref only grows).
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::review::{note_adding, note_lines, note_with, parse_note};

fuzz_target!(|data: &[u8]| {
    if let Ok(bundles) = parse_note(data) {
        let rebuilt = note_with(&bundles, &[]).expect("accepted bundles have bytes");
        assert_eq!(rebuilt, data, "an accepted note is its bundles' layout");
    }
    if let Ok(lines) = note_lines(data) {
        assert!(lines.iter().all(|l| !l.is_empty() && !l.contains(&b'\n')));
        if let Ok(grown) = note_adding(Some(data), &[]) {
            let kept = note_lines(&grown).expect("a note that was read is read again");
            for l in &lines {
                assert!(kept.contains(l), "a line was dropped: {l:?}");
            }
        }
    }
});
