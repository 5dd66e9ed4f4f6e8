//! `start` says what it froze (issue 22 §5): every path by name up to a
//! screenful, an intended untracked file marked, the rest counted; `--json`
//! lists them all.

mod support;

use std::process::Command;

use support::*;

fn start_text(cwd: &std::path::Path) -> String {
    let out = output_ok(
        Command::new(env!("CARGO_BIN_EXE_probity"))
            .arg("--cwd")
            .arg(cwd)
            .arg("start"),
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn start_names_the_paths_it_froze_and_a_stray_file_among_them() {
    let f = parser_base();
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    // A stray file the agent left behind joins the candidate: it is named.
    f.write("notes-to-self.txt", "todo\n").unwrap();
    let text = start_text(f.root());
    assert!(text.contains("  paths:\n"), "{text}");
    assert!(text.contains("    src/parser.rs\n"), "{text}");
    assert!(
        text.contains("    notes-to-self.txt (new, untracked)\n"),
        "{text}"
    );
}

#[test]
fn past_a_screenful_the_rest_are_counted_and_json_lists_them_all() {
    let f = parser_base();
    for i in 0..25 {
        f.write(&format!("docs/page{i:02}.md"), "# page\n").unwrap();
    }
    let text = start_text(f.root());
    let named = text
        .lines()
        .filter(|l| l.starts_with("    docs/page"))
        .count();
    assert_eq!(named, 20, "{text}");
    assert!(text.contains("    +5 more"), "{text}");
    probity_ok(f.root(), &["status"]);
    let again = probity(f.root(), &["start"]);
    assert_eq!(
        again.json["paths"].as_array().unwrap().len(),
        25,
        "{}",
        again.stdout
    );
}
