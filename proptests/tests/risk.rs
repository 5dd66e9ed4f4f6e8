//! Properties of the built-in risk policies (D-R114, D-R122): whitespace
//! put into content never hides a process spawn from v2, v2 never rates a
//! change lower than v1 and v3 never lower than v2; v4 never lower than
//! v3, v5 never lower than v4, v6 never lower than v5, v7 never lower
//! than v6, v8 never lower than v7, v9 never lower than v8, v10 never
//! lower than v9 and v11 never lower than v10, whatever links,
//! submodules and auto-run configurations the trees hold (D-R131, D-R135,
//! D-R143). And v8 (D-R167) against a plain model of a checkout's path
//! walk: a task file a tree's `.vscode/tasks.json` reaches through any
//! links is high, and so is a link change that moves where it reaches.

use proptest::prelude::*;

use probity_core::review::fixtures;
use probity_core::review::{CandidateContent, FileMode, RunConfig, TreeInputs};
use probity_core::review::{ChangedFile, RepoPath, RiskLevel, RiskPolicy, RiskReason, Symlink};

/// Fragments of spawning calls, imports, document code markers and prose.
const TOKENS: &[&str] = &[
    "Command",
    "::",
    "new",
    "(",
    ")",
    "std",
    "pro",
    "cess",
    "{",
    "}",
    "as",
    "C",
    "use",
    ";",
    "os",
    ".",
    "system",
    "sub",
    "```",
    "~~~",
    ">>>",
    "#",
    "-",
    "|",
    "the",
    "file",
    "code",
    "let",
    "x",
    "=",
    "\"sh\"",
    "exec",
    "spawn",
    "child_process",
    "popen",
    "#!",
    "r#",
    "'",
    "\\",
    "__import__",
    "eval",
    ".. ",
    "testcleanup::",
    "note::",
    ":::",
    "{ipython}",
    "{note}",
    "\n   ",
];

/// The paths a change touches: code, documents, agent instructions and
/// hooks, CI.
const PATHS: &[&str] = &[
    "src/lib.rs",
    "README.md",
    "docs/guide.rst",
    "AGENTS.md",
    "AGENT.md",
    ".claude/commands/deploy.md",
    ".claude/settings.json",
    ".github/prompts/fix.prompt.md",
    ".github/workflows/ci.yml",
    "img/logo.png",
    "notes.txt",
    ".vscode/tasks.json",
    "package.json",
    ".kilocode/rules/r.md",
    "build.rs",
    "Cargo.toml",
    "docs/ai/guide.md",
    "tools/claude/settings.json",
    ".husky",
    "scripts/setup.sh",
    "composer.json",
    "Gemfile",
];

/// Links a v4 change may be reached through (D-R131), one of which each
/// case's trees hold (or none).
const LINKS: &[(&str, &str)] = &[
    ("AGENTS.md", "docs/ai/guide.md"),
    (".claude", "tools/claude"),
    ("src", "docs"),
    ("a", "."),
];

const SPACES: &[&str] = &["", " ", "  ", "\t", "\n", "\r\n", "    "];

/// What is put in anywhere: whitespace as lexers read it (ASCII, the
/// vertical tab, Unicode spaces and marks).
const PUT_IN: &[&str] = &[
    " ", "\t", "\n", "\r\n", "\x0b", "\u{a0}", "\u{200e}", "\u{2028}", "\u{feff}",
];

/// What may stand between two tokens: whitespace or a comment.
const BETWEEN: &[&str] = &["", " ", "\n", "/**/", " /* c */ ", "// c\n", "\u{200f}"];

fn content() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((0..TOKENS.len(), 0..SPACES.len()), 0..24).prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(t, s)| [TOKENS[t], SPACES[s]])
            .collect::<String>()
            .into_bytes()
    })
}

/// `bytes` (UTF-8) with whitespace put in at the given places, each at a
/// character boundary.
fn with_whitespace(bytes: &[u8], inserts: &[(usize, usize)]) -> Vec<u8> {
    let mut out = String::from_utf8(bytes.to_vec()).unwrap();
    for (at, s) in inserts {
        let bounds: Vec<usize> = out
            .char_indices()
            .map(|(i, _)| i)
            .chain([out.len()])
            .collect();
        out.insert_str(bounds[at % bounds.len()], PUT_IN[s % PUT_IN.len()]);
    }
    out.into_bytes()
}

/// A one-line change of `path` to `content` (ASCII: the tokens and
/// whitespace above).
fn file(path: &str, content: &[u8]) -> ChangedFile {
    fixtures::text_change(path, 1, 0, std::str::from_utf8(content).unwrap())
}

/// The link `LINKS[i]`, when one is chosen.
fn links_of(link: Option<usize>) -> Vec<Symlink> {
    link.map(|i| Symlink {
        path: RepoPath::parse(LINKS[i].0).unwrap(),
        target: LINKS[i].1.as_bytes().to_vec(),
    })
    .into_iter()
    .collect()
}

fn rank(l: RiskLevel) -> u8 {
    match l {
        RiskLevel::Low => 0,
        RiskLevel::Medium => 1,
        RiskLevel::High => 2,
    }
}

fn spawns(path: &str, content: &[u8]) -> bool {
    RiskPolicy::v2()
        .classify(&[file(path, content)], 1)
        .reasons()
        .contains(&RiskReason::ProcessSpawn)
}

proptest! {
    /// Whitespace put anywhere into content v2 sees spawning still
    /// spawns, in a document as in code; and a code file's tier never
    /// falls.
    #[test]
    fn whitespace_never_hides_a_spawn(
        bytes in content(),
        inserts in prop::collection::vec((any::<usize>(), any::<usize>()), 0..8),
        p in 0..PATHS.len(),
    ) {
        let spaced = with_whitespace(&bytes, &inserts);
        let path = PATHS[p];
        if spawns(path, &bytes) {
            prop_assert!(spawns(path, &spaced), "{:?}", String::from_utf8_lossy(&spaced));
        }
        let v2 = RiskPolicy::v2();
        let before = v2.classify(&[file("src/lib.rs", &bytes)], 1).level();
        let after = v2.classify(&[file("src/lib.rs", &spaced)], 1).level();
        prop_assert!(rank(after) >= rank(before));
    }

    /// Tokens v2 sees spawning when written together still spawn with
    /// whitespace or comments between them.
    #[test]
    fn comments_between_tokens_never_hide_a_spawn(
        parts in prop::collection::vec((0..TOKENS.len(), 0..BETWEEN.len()), 1..16),
    ) {
        let tight: String = parts.iter().map(|(t, _)| TOKENS[*t]).collect();
        let apart: String = parts
            .iter()
            .flat_map(|(t, b)| [TOKENS[*t], BETWEEN[*b]])
            .collect();
        if spawns("src/lib.rs", tight.as_bytes()) {
            prop_assert!(spawns("src/lib.rs", apart.as_bytes()), "{apart:?}");
        }
    }

    /// A newer policy only adds rules: v2's tier is at least v1's, and
    /// v3's at least v2's, for any change of these paths.
    #[test]
    fn v2_never_rates_a_change_lower_than_v1(
        files in prop::collection::vec((0..PATHS.len(), content()), 1..4),
    ) {
        let files: Vec<ChangedFile> =
            files.iter().map(|(p, c)| file(PATHS[*p], c)).collect();
        let v1 = RiskPolicy::v1().classify(&files, 1).level();
        let v2 = RiskPolicy::v2().classify(&files, 1).level();
        let v3 = RiskPolicy::v3().classify(&files, 1).level();
        prop_assert!(rank(v2) >= rank(v1), "v1 {v1:?}, v2 {v2:?}");
        prop_assert!(rank(v3) >= rank(v2), "v2 {v2:?}, v3 {v3:?}");
    }

    /// v4's tier is at least v3's, whatever links the trees hold, and a
    /// link only ever raises it.
    #[test]
    fn v4_never_rates_a_change_lower_than_v3(
        files in prop::collection::vec((0..PATHS.len(), content()), 1..4),
        link in prop::option::of(0..LINKS.len()),
    ) {
        let files: Vec<ChangedFile> =
            files.iter().map(|(p, c)| file(PATHS[*p], c)).collect();
        let links = links_of(link);
        let v3 = RiskPolicy::v3().classify(&files, 1).level();
        let v4 = RiskPolicy::v4().classify(&files, 1).level();
        let linked = RiskPolicy::v4().classify_linked(&files, 1, &links).level();
        prop_assert!(rank(v4) >= rank(v3), "v3 {v3:?}, v4 {v4:?}");
        prop_assert!(rank(linked) >= rank(v4), "v4 {v4:?}, linked {linked:?}");
    }

    /// v5's tier is at least v4's, with the same links, any file a
    /// submodule, and auto-run configurations in the trees; a
    /// configuration only ever raises it; v6's is at least v5's.
    #[test]
    fn v5_never_rates_a_change_lower_than_v4(
        files in prop::collection::vec((0..PATHS.len(), content(), any::<bool>()), 1..4),
        link in prop::option::of(0..LINKS.len()),
        config in prop::option::of(content()),
    ) {
        let files: Vec<ChangedFile> = files
            .iter()
            .map(|(p, c, gitlink)| {
                let mut f = file(PATHS[*p], c);
                if *gitlink {
                    f.new_mode = Some(FileMode::Gitlink);
                }
                f
            })
            .collect();
        let links = links_of(link);
        // The script the `.envrc` sources, with the same content: what
        // v11 reads in turn (older policies read only the `.envrc`).
        let configs: Vec<RunConfig> = config
            .map(|c| {
                let at = |path: &str, bytes: Vec<u8>| RunConfig {
                    path: RepoPath::parse(path).unwrap(),
                    content: CandidateContent::Bytes { bytes, complete: true },
                };
                [
                    at(".envrc", [b"source_env scripts/setup.sh\n".as_slice(), &c].concat()),
                    at("scripts/setup.sh", c),
                ]
            })
            .into_iter()
            .flatten()
            .collect();
        let v4 = RiskPolicy::v4().classify_linked(&files, 1, &links).level();
        let v5 = RiskPolicy::v5().classify_linked(&files, 1, &links).level();
        let trees = TreeInputs { links: &links, configs: &configs, attributes: &[] };
        let read = RiskPolicy::v5().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v5) >= rank(v4), "v4 {v4:?}, v5 {v5:?}");
        prop_assert!(rank(read) >= rank(v5), "v5 {v5:?}, with configurations {read:?}");
        // v6 (D-R143) only adds the directive rule.
        let v6 = RiskPolicy::v6().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v6) >= rank(read), "v5 {read:?}, v6 {v6:?}");
        // v7 (D-R165) only rates symbolic links as directories.
        let v7 = RiskPolicy::v7().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v7) >= rank(v6), "v6 {v6:?}, v7 {v7:?}");
        // v8 (D-R167) only adds link walks and moved links.
        let v8 = RiskPolicy::v8().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v8) >= rank(v7), "v7 {v7:?}, v8 {v8:?}");
        // v9 (D-R168) only adds folded paths, re-entering targets,
        // references at aliases and checkout transforms.
        let v9 = RiskPolicy::v9().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v9) >= rank(v8), "v8 {v8:?}, v9 {v9:?}");
        // v10 (D-R169) only adds a transform and unread configurations.
        let v10 = RiskPolicy::v10().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v10) >= rank(v9), "v9 {v9:?}, v10 {v10:?}");
        // v11 (D-R170) only follows what the configurations run.
        let v11 = RiskPolicy::v11().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v11) >= rank(v10), "v10 {v10:?}, v11 {v11:?}");
        // v12 (D-R174) only names more (directories, stems, globs, files
        // read in turn); its bound counts held files, not names, which a
        // configuration of at most 24 words never crosses under v11.
        let v12 = RiskPolicy::v12().classify_in(&files, 1, trees).level();
        prop_assert!(rank(v12) >= rank(v11), "v11 {v11:?}, v12 {v12:?}");
    }
}

/// Paths a generated tree's links sit at, and their targets' components.
const LINK_AT: &[&str] = &[".vscode", "a", "b", "a/b", "c", "c/d", "e"];
const TARGET_PARTS: &[&str] = &["a", "b", "c", "d", "e", "x", "..", ".", "vscode"];

/// A tree's links: at most one per path, none below another (a tree
/// cannot hold both), targets of one to three components.
fn tree_links() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(
        (
            0..LINK_AT.len(),
            prop::collection::vec(0..TARGET_PARTS.len(), 1..4),
        ),
        0..5,
    )
    .prop_map(|raw| {
        let mut out: Vec<(String, String)> = Vec::new();
        for (at, parts) in raw {
            let at = LINK_AT[at];
            let clash = out.iter().any(|(p, _)| {
                p == at || at.starts_with(&format!("{p}/")) || p.starts_with(&format!("{at}/"))
            });
            if !clash {
                let target: Vec<&str> = parts.iter().map(|i| TARGET_PARTS[*i]).collect();
                out.push((at.to_string(), target.join("/")));
            }
        }
        out
    })
}

/// Where a checkout of a tree holding `links` finds `path`: each
/// component taken in turn from the root, a link replaced by its target
/// read from the link's directory (the last component too), `..` leaving
/// the directory reached; `None` above the root or after more than eight
/// links (the kernel's loop error).
fn checkout_path(links: &[(String, String)], path: &str) -> Option<String> {
    let mut todo: Vec<String> = path.split('/').rev().map(str::to_string).collect();
    let mut at: Vec<String> = Vec::new();
    let mut hops = 0;
    while let Some(c) = todo.pop() {
        match c.as_str() {
            "" | "." => {}
            ".." => {
                at.pop()?;
            }
            name => {
                at.push(name.to_string());
                let here = at.join("/");
                if let Some((_, target)) = links.iter().find(|(p, _)| *p == here) {
                    hops += 1;
                    if hops > 8 {
                        return None;
                    }
                    at.pop();
                    todo.extend(target.split('/').rev().map(str::to_string));
                }
            }
        }
    }
    Some(at.join("/"))
}

/// Whether a regular file can sit at `path` in a tree holding `links`
/// (no link at it or above it).
fn can_hold(links: &[(String, String)], path: &str) -> bool {
    !links
        .iter()
        .any(|(p, _)| path == p || path.starts_with(&format!("{p}/")))
}

fn symlinks(links: &[(String, String)]) -> Vec<Symlink> {
    links
        .iter()
        .map(|(p, t)| Symlink {
            path: RepoPath::parse(p).unwrap(),
            target: t.as_bytes().to_vec(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        // `PROPTEST_CASES` sets a longer run (`with_cases` would ignore it).
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2048),
        ..ProptestConfig::default()
    })]

    /// A task file wherever a checkout's `.vscode/tasks.json` reaches it
    /// through the tree's links is `auto_run_config` under v8.
    #[test]
    fn v8_rates_a_task_wherever_the_checkout_finds_it(links in tree_links()) {
        let Some(at) = checkout_path(&links, ".vscode/tasks.json") else {
            return Ok(());
        };
        prop_assume!(can_hold(&links, &at) && RepoPath::parse(&at).is_ok());
        let task = file(&at, b"{}");
        for p in [RiskPolicy::v8(), RiskPolicy::v9(), RiskPolicy::v10(), RiskPolicy::v11(), RiskPolicy::v12()] {
            let a = p.classify_linked(std::slice::from_ref(&task), 1, &symlinks(&links));
            prop_assert_eq!(a.level(), RiskLevel::High, "{:?} at {}", links, at);
        }
    }

    /// A change of one link (added, removed or given another target) that
    /// moves where a checkout's `.vscode/tasks.json` is found, onto a task
    /// file both trees hold, is high under v8: the changed link is the
    /// only changed file, and both trees' links are the input.
    #[test]
    fn v8_rates_a_link_change_that_moves_the_task(
        base in tree_links(),
        at in 0..LINK_AT.len(),
        to in prop::option::of(prop::collection::vec(0..TARGET_PARTS.len(), 1..4)),
    ) {
        let at = LINK_AT[at];
        let old = base.iter().find(|(p, _)| p == at).map(|(_, t)| t.clone());
        let new = to.map(|parts| {
            parts.iter().map(|i| TARGET_PARTS[*i]).collect::<Vec<_>>().join("/")
        });
        if old == new {
            return Ok(());
        }
        let mut cand: Vec<(String, String)> =
            base.iter().filter(|(p, _)| p != at).cloned().collect();
        if let Some(t) = &new {
            let clash = cand.iter().any(|(p, _)| {
                at.starts_with(&format!("{p}/")) || p.starts_with(&format!("{at}/"))
            });
            if clash {
                return Ok(());
            }
            cand.push((at.to_string(), t.clone()));
        }
        let Some(task) = checkout_path(&cand, ".vscode/tasks.json") else {
            return Ok(());
        };
        // Only a move onto a file both trees can hold is this property's.
        if checkout_path(&base, ".vscode/tasks.json").as_ref() == Some(&task)
            || !can_hold(&base, &task)
            || !can_hold(&cand, &task)
            || RepoPath::parse(&task).is_err()
        {
            return Ok(());
        }
        let mode = |t: &Option<String>| t.as_ref().map(|_| FileMode::Symlink);
        let mut changed = file(at, new.as_deref().unwrap_or("").as_bytes());
        changed.old_mode = mode(&old);
        changed.new_mode = mode(&new);
        if new.is_none() {
            changed.content = CandidateContent::Absent;
        }
        let both = [symlinks(&base), symlinks(&cand)].concat();
        for p in [RiskPolicy::v8(), RiskPolicy::v9(), RiskPolicy::v10(), RiskPolicy::v11(), RiskPolicy::v12()] {
        let a = p.classify_linked(std::slice::from_ref(&changed), 1, &both);
        prop_assert_eq!(
            a.level(),
            RiskLevel::High,
            "{} {:?} -> {:?}, base {:?}, task at {}",
            at, old, new, base, task
        );
        }
    }

    /// A listed path with letters swapped for ones a case-insensitive file
    /// system folds onto them (`ſ` for `s`, `ı` for `i`, `K` for `k`,
    /// upper case), a trailing dot or space, is rated under v9 and later as the
    /// path itself is.
    #[test]
    fn a_folded_lookalike_is_rated_as_the_path(
        at in 0..LOOKALIKE_OF.len(),
        swaps in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        trail in prop::sample::select(vec!["", ".", " ", ". "]),
    ) {
        let path = LOOKALIKE_OF[at];
        let mut chars: Vec<String> = path.chars().map(String::from).collect();
        for i in &swaps {
            let c = &mut chars[i.index(path.len())];
            *c = match c.as_str() {
                "s" => "ſ".to_string(),
                "i" => "ı".to_string(),
                "k" => "\u{212a}".to_string(),
                other => other.to_ascii_uppercase(),
            };
        }
        let look = format!("{}{trail}", chars.concat());
        let real = RiskPolicy::v11().classify(&[file(path, b"x")], 1);
        let alike = RiskPolicy::v11().classify(&[file(&look, b"x")], 1);
        prop_assert_eq!(alike.level(), real.level(), "{} as {}", look, path);
    }
}

/// Listed paths a look-alike may stand for.
const LOOKALIKE_OF: &[&str] = &[
    ".vscode/tasks.json",
    ".claude/settings.json",
    ".husky/pre-commit",
    ".github/workflows/ci.yml",
    ".pre-commit-config.yaml",
    "AGENTS.md",
    ".envrc",
];

/// The lines of `bytes`, each with its newline (a last line without one
/// is a line).
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|b| *b == b'\n').collect()
}

/// The diff lines of D-R130 counted the plain way: whole lines, the
/// common ones at the start set aside, then the common ones at the end.
fn naive_diff_lines(old: &[u8], new: &[u8]) -> u64 {
    let (a, b) = (split_lines(old), split_lines(new));
    let mut lead = 0;
    while lead < a.len() && lead < b.len() && a[lead] == b[lead] {
        lead += 1;
    }
    let (mut i, mut j) = (a.len(), b.len());
    while i > lead && j > lead && a[i - 1] == b[j - 1] {
        i -= 1;
        j -= 1;
    }
    (i - lead + j - lead) as u64
}

/// Short texts over a few bytes, newlines among them.
fn lines_text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(vec![b'a', b'b', b'\n']), 0..40)
}

proptest! {
    /// Core's diff lines (D-R130) are the plain count of whole lines
    /// between the common first and last lines, whatever the two sides
    /// share (also with common lines put around both).
    #[test]
    fn diff_lines_are_the_naive_count(
        old in lines_text(),
        new in lines_text(),
        head in lines_text(),
        tail in lines_text(),
    ) {
        use probity_core::review::diff_lines;
        prop_assert_eq!(diff_lines(&old, &new), naive_diff_lines(&old, &new));
        prop_assert_eq!(diff_lines(&old, &new), diff_lines(&new, &old));
        prop_assert_eq!(diff_lines(&old, &old), 0);
        // Common whole lines before, common bytes after.
        let mut head = head;
        if head.last().is_some_and(|b| *b != b'\n') {
            head.push(b'\n');
        }
        let wrap = |s: &[u8]| {
            let mut v = head.clone();
            v.extend_from_slice(s);
            if !v.is_empty() && v.last() != Some(&b'\n') {
                v.push(b'\n');
            }
            v.extend_from_slice(&tail);
            v
        };
        let (o, n) = (wrap(&old), wrap(&new));
        prop_assert_eq!(diff_lines(&o, &n), naive_diff_lines(&o, &n));
    }
}
