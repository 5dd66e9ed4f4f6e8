//! Risk policy v12's reading of `find` (D-R174; red team rounds 20, 21,
//! 25 and 26): whether it runs what it finds, and the name tests that
//! bound what that is.

use super::structural;
use super::tables::{SHELLS, command_after};
use super::{Piece, base_name};

/// Commands that change what they are given in place, check it, or
/// drop it, and print nothing a shell could run nor place a copy a later
/// command could: `find -exec rm -rf {} +`, `find ... | xargs shellcheck`
/// run nothing they find (round 26's 26la6). Printers (`cat`, `echo`),
/// copies (`cp`, `mv`) and archives are not among them: `find -exec cat
/// {} + | sh` runs what it finds.
const RUNS_NOTHING: &[&str] = &[
    "rm",
    "rmdir",
    "chmod",
    "chown",
    "chgrp",
    "touch",
    "wc",
    "stat",
    "du",
    "file",
    "test",
    "[",
    "true",
    "false",
    "shellcheck",
    "shfmt",
    "dos2unix",
    "clang-format",
    "prettier",
    "black",
    "ruff",
    "flake8",
    "pylint",
    "eslint",
];

/// Where `find`'s expression ends: its first action or `xargs`.
fn expression_end(lower: &[String], at: usize) -> usize {
    lower[at + 1..]
        .iter()
        .position(|w| structural::FIND_RUNS.contains(&w.as_str()))
        .map_or(lower.len(), |p| at + 1 + p)
}

/// Whether the `find` at `at` runs what it finds: an action
/// (`-exec`, `-ok`, ...) or an `xargs` after it whose command is not one
/// of [`RUNS_NOTHING`] (a runner, the found file itself, a script).
pub(super) fn runs(pieces: &[Piece], lower: &[String], at: usize) -> bool {
    let end = expression_end(lower, at);
    // Its actions: the first after the expression (an action or the
    // `xargs` its output goes to), and further actions up to the next
    // `find`, `xargs` or command that is no action's word (round 26's
    // 26la6: `find . -exec rm -rf {} + && git ls-files | xargs python3`
    // runs nothing it finds).
    let mut k = end;
    while k < lower.len() && k < end + 24 {
        let w = lower[k].as_str();
        if w == "find" || (k > end && w == "xargs") {
            break;
        }
        if structural::FIND_RUNS.contains(&w) {
            let Some(c) = command_after(pieces, k + 1) else {
                return true;
            };
            if !RUNS_NOTHING.contains(&base_name(&lower[c])) {
                return true;
            }
        }
        k += 1;
    }
    false
}

/// The name tests (globs at any depth below each start point) that bound
/// what the `find` at `at` runs, or none when its walk is not bounded by
/// them: only positive `-name`/`-iname` tests of its expression (not
/// those after its action, round 26's 26fa3), with `-type f` or a shell
/// as the action (a directory a name test matches runs whole: `-exec
/// run-parts {}`, 26fa), each alternative of `-o` having one, no regex
/// and no path test (`*` crosses `/` there: 26fa2). A negated test is
/// left out (it only excludes: round 26's 26la2).
pub(super) fn narrowing(pieces: &[Piece], lower: &[String], at: usize) -> Vec<String> {
    let end = expression_end(lower, at);
    let expression = &lower[(at + 1).min(end)..end];
    let action = command_after(pieces, end + 1).map(|c| base_name(&lower[c]));
    let files = expression
        .windows(2)
        .any(|w| w[0] == "-type" && w[1] == "f")
        || action.is_some_and(|a| SHELLS.contains(&a));
    if !files {
        return Vec::new();
    }
    let mut tests = Vec::new();
    let mut alternative_has_test = false;
    let mut negated = false;
    for (k, w) in expression.iter().enumerate() {
        match w.as_str() {
            "!" | "-not" => negated = true,
            // GNU find's `,`: the action may be on another list, which no
            // name test bounds (red team round 28's 28fc).
            "," => return Vec::new(),
            "-o" | "-or" => {
                if !alternative_has_test {
                    return Vec::new();
                }
                alternative_has_test = false;
                negated = false;
            }
            "-name" | "-iname" if !negated => {
                if let Some(t) = expression.get(k + 1)
                    && t.chars().any(|c| c.is_ascii_alphanumeric())
                {
                    tests.push(t.clone());
                    alternative_has_test = true;
                }
            }
            // A positive test in which `*` may cross `/`, or a regex: no
            // glob says what it selects.
            "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex" | "-iregex"
                if !negated =>
            {
                return Vec::new();
            }
            w if w.starts_with('-') => negated = false,
            _ => {}
        }
    }
    if !alternative_has_test {
        return Vec::new();
    }
    tests
}
