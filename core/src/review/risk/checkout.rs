//! What a checkout writes where git's tree says otherwise (v9, D-R168):
//! the path a case-insensitive file system opens for a tree's path, and
//! the `.gitattributes` rules that make a checkout write other bytes than
//! git stores. Pure: the attribute files are an input, read from the
//! trees by the ports layer.

use unicode_normalization::UnicodeNormalization;

use super::refs::RunConfig;
use super::{RiskPolicy, RiskReason};
use crate::review::snapshot::{CandidateContent, ChangedFile};

/// What a checkout writes for the changed file `f` where the tree says
/// otherwise, under a policy that reads it (v9): the path a
/// case-insensitive file system opens, when it differs from `f`'s (rated
/// there too); `unscanned_content` pushed onto
/// `reasons` for a path that may be a short name, a file an attribute may
/// transform, or a `.gitattributes` naming a transform.
pub(super) fn seen(
    policy: &RiskPolicy,
    transforms: &Transforms<'_>,
    f: &ChangedFile,
    reasons: &mut Vec<RiskReason>,
) -> Option<String> {
    let path = f.path.as_str();
    let folded = if policy.paths_folded {
        let folded = folded(path);
        if folded.is_none() {
            reasons.push(RiskReason::UnscannedContent);
        }
        // Some rules compare case-sensitively (the CI paths, as a forge
        // reads them): a checkout on a folding file system writes
        // `.Github/workflows` into `.github/workflows`.
        folded.filter(|p| p != path)
    } else {
        None
    };
    if !policy.checkout_transforms.is_empty() {
        let name = folded.as_deref().unwrap_or(path);
        let name = name.rsplit_once('/').map_or(name, |(_, n)| n);
        let attributes = name.eq_ignore_ascii_case(".gitattributes")
            && [&f.content, &f.base_content]
                .into_iter()
                .any(|c| names_transform(c, &policy.checkout_transforms));
        if attributes || transforms.may_apply(path) {
            reasons.push(RiskReason::UnscannedContent);
        }
    }
    folded
}

/// Code points HFS+ ignores in a name (as git's `is_hfs_dotgit` lists
/// them): `.vs\u{200c}code` is `.vscode` there.
fn hfs_ignorable(c: char) -> bool {
    matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

/// One character as a case-insensitive file system compares it: its
/// lower case, or, where that is not ASCII but its upper case is, that
/// ASCII text lower-cased: `ſ` upper-cases to `S` and `ı` to `I` (NTFS's
/// upcase table and the case folding of APFS and ext4 agree), and under
/// full case folding (ext4's casefold) `ß` is `ss`, `ﬁ` is `fi` (red team
/// round 15).
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    let lower: String = c.to_lowercase().collect();
    if lower.is_ascii() {
        out.push_str(&lower);
        return;
    }
    let upper: String = c.to_uppercase().collect();
    if upper.is_ascii() {
        out.push_str(&upper.to_ascii_lowercase());
    } else {
        out.push_str(&lower);
    }
}

/// `path` as a case-insensitive file system may open it: each component
/// canonically composed (APFS and HFS+ ignore the normalization form),
/// HFS+'s ignorable code points dropped, case-folded ([`fold_char`]),
/// and, as Windows does, a trailing `::$DATA` stream name, dots and
/// spaces dropped (`.vscode.` is `.vscode`). `None` where a component
/// may be a Windows 8.3 short name (`VSCODE~1` can be `.vscode`): then
/// no rule can be ruled out.
pub(super) fn folded(path: &str) -> Option<String> {
    let mut out = String::with_capacity(path.len());
    for (i, component) in path.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        let start = out.len();
        if component.is_ascii() {
            // Composed already, nothing ignorable: its lower case.
            out.extend(component.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            for c in component.nfc().filter(|c| !hfs_ignorable(*c)) {
                fold_char(c, &mut out);
            }
        }
        let mut name = out[start..].to_string();
        if let Some(stream) = name.len().checked_sub(7)
            && name.is_char_boundary(stream)
            && name[stream..].eq_ignore_ascii_case("::$data")
        {
            name.truncate(stream);
        }
        let kept = name.trim_end_matches(['.', ' ']).len();
        // A name of only dots and spaces stays what it is (`..`, `.`).
        if kept > 0 {
            name.truncate(kept);
        }
        if short_name(&name) {
            return None;
        }
        out.truncate(start);
        out.push_str(&name);
    }
    Some(out)
}

/// Whether `name` has the shape of a Windows 8.3 short name: at most six
/// characters, `~`, digits, then at most a dot and three characters.
fn short_name(name: &str) -> bool {
    let base = name.split_once('.').map_or(name, |(b, _)| b);
    let Some((stem, digits)) = base.rsplit_once('~') else {
        return false;
    };
    !stem.is_empty()
        && stem.chars().count() <= 6
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The `.gitattributes` files of both trees in the directories that hold
/// a changed file (the root and each parent), read for the attributes
/// that make a checkout write other bytes than git stores
/// (`checkout_transforms`: `working-tree-encoding` re-encodes text,
/// `filter` runs a driver).
pub(super) struct Transforms<'a> {
    /// Each file that sets a transform: its directory (`""`: the root),
    /// its lines.
    files: Vec<(&'a str, Vec<Rule<'a>>)>,
}

/// One line of an attributes file that sets a transform: its pattern,
/// or `None` where every path may match (a quoted pattern, one with a
/// bracket expression or an escape, whose reading by git's wildmatch is
/// not repeated here, or a macro that sets one).
struct Rule<'a> {
    pattern: Option<&'a str>,
}

/// Whether `text` names one of `names` as an attribute set on a line:
/// `name`, `name=value`, never `-name` or `!name`, compared ASCII
/// case-insensitively.
fn sets(tokens: &str, names: &[String]) -> bool {
    tokens.split_ascii_whitespace().any(|t| {
        let attr = t.split('=').next().unwrap_or(t);
        names.iter().any(|n| attr.eq_ignore_ascii_case(n))
    })
}

/// Whether a `.gitattributes` file's content names a transform anywhere.
pub(super) fn names_transform(content: &CandidateContent, names: &[String]) -> bool {
    match content {
        CandidateContent::Absent => false,
        CandidateContent::Bytes { bytes, complete } => {
            !*complete || {
                let text = String::from_utf8_lossy(bytes).to_ascii_lowercase();
                names.iter().any(|n| text.contains(&n.to_ascii_lowercase()))
            }
        }
    }
}

impl<'a> Transforms<'a> {
    /// The rules of `files` (attribute files, any order) setting one of
    /// `names`.
    pub(super) fn of(files: &'a [RunConfig], names: &[String]) -> Self {
        let mut out = Vec::new();
        for f in files {
            let path = f.path.as_str();
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            let (bytes, complete) = match &f.content {
                CandidateContent::Bytes { bytes, complete } => (bytes.as_slice(), *complete),
                CandidateContent::Absent => continue,
            };
            let Ok(text) = std::str::from_utf8(bytes) else {
                // Not read as text: every path below may be transformed.
                out.push((dir, vec![Rule { pattern: None }]));
                continue;
            };
            let mut rules = Vec::new();
            if !complete {
                rules.push(Rule { pattern: None });
            }
            for line in text.lines() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (pattern, tokens) = line
                    .split_once(|c: char| c.is_ascii_whitespace())
                    .unwrap_or((line, ""));
                if !sets(tokens, names) {
                    continue;
                }
                // Red team round 15: a bracket expression's end depends on
                // classes (`[[:alpha:]]`), negation and escapes (`[!]]`,
                // `[\]u]`); such a pattern may match anything.
                if pattern.starts_with("[attr]")
                    || pattern.starts_with('"')
                    || pattern.contains(['[', '\\'])
                {
                    rules.push(Rule { pattern: None });
                } else if !pattern.starts_with('!') && !pattern.ends_with('/') {
                    // git ignores a negated pattern and one naming a
                    // directory in an attributes file.
                    rules.push(Rule {
                        pattern: Some(pattern),
                    });
                }
            }
            if !rules.is_empty() {
                out.push((dir, rules));
            }
        }
        Self { files: out }
    }

    /// Whether a transform may apply to `path` (a repository path).
    pub(super) fn may_apply(&self, path: &str) -> bool {
        self.files.iter().any(|(dir, rules)| {
            let rel = match *dir {
                "" => path,
                d => match path.strip_prefix(d).and_then(|r| r.strip_prefix('/')) {
                    Some(r) => r,
                    None => return false,
                },
            };
            rules.iter().any(|r| match r.pattern {
                None => true,
                Some(p) => pattern_may_match(p, rel),
            })
        })
    }
}

/// Whether the attributes pattern `p` may match `rel` (the path below the
/// attributes file's directory), erring towards a match: without a slash
/// it is matched against the last component, with one against the whole
/// path (a leading slash dropped); `*` and `?` do not cross a slash, `**`
/// does (a pattern with a bracket expression or an escape never gets
/// here); ASCII case is ignored (a case-insensitive checkout's
/// `core.ignorecase`).
fn pattern_may_match(p: &str, rel: &str) -> bool {
    let (p, subject) = if p.contains('/') {
        (p.strip_prefix('/').unwrap_or(p), rel)
    } else {
        (p, rel.rsplit_once('/').map_or(rel, |(_, name)| name))
    };
    glob(
        p.to_ascii_lowercase().as_bytes(),
        subject.to_ascii_lowercase().as_bytes(),
    )
}

/// The glob of [`pattern_may_match`], bounded: at most one backtrack
/// point per star, so quadratic at worst in the lengths.
fn glob(p: &[u8], s: &[u8]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(b'*') if p.get(1) == Some(&b'*') => {
            let rest = &p[2..];
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            (0..=s.len()).any(|i| glob(rest, &s[i..]))
        }
        Some(b'*') => {
            let rest = &p[1..];
            let stop = s.iter().position(|b| *b == b'/').unwrap_or(s.len());
            (0..=stop).any(|i| glob(rest, &s[i..]))
        }
        Some(b'?') => matches!(s.first(), Some(c) if *c != b'/') && glob(&p[1..], &s[1..]),
        Some(c) => s.first() == Some(c) && glob(&p[1..], &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::ids::RepoPath;

    #[test]
    fn a_path_is_read_as_a_folding_file_system_reads_it() {
        for (path, seen) in [
            (".vſcode/tasks.json", ".vscode/tasks.json"),
            (".VSCODE/Tasks.JSON", ".vscode/tasks.json"),
            (".pre-commıt-config.yaml", ".pre-commit-config.yaml"),
            (".vscode./tasks.json ", ".vscode/tasks.json"),
            (".vscode/tasks.json::$DATA", ".vscode/tasks.json"),
            (".vs\u{200c}code/tasks.json", ".vscode/tasks.json"),
            ("\u{212a}ey/x", "key/x"),
            ("caf\u{65}\u{301}/x", "caf\u{e9}/x"),
            (".pre-commit-conﬁg.yaml", ".pre-commit-config.yaml"),
            ("paßword.rs", "password.rs"),
            ("ruﬆ-toolchain.toml", "rust-toolchain.toml"),
            ("a/../b", "a/../b"),
        ] {
            assert_eq!(folded(path).as_deref(), Some(seen), "{path}");
        }
        // An 8.3 short name may stand for any name.
        assert_eq!(folded("VSCODE~1/tasks.json"), None);
        assert_eq!(folded("PROGRA~12.TXT"), None);
        assert!(folded("a~b/x").is_some() && folded("backup~/x").is_some());
    }

    /// The ASCII shortcut (a component composed already, nothing
    /// ignorable, each letter its lower case) folds as the general path
    /// does, for every printable ASCII byte and a few shapes around it.
    #[test]
    fn an_ascii_component_folds_as_the_general_path_folds_it() {
        let general = |component: &str| {
            let mut out = String::new();
            for c in component.nfc().filter(|c| !hfs_ignorable(*c)) {
                let lower: String = c.to_lowercase().collect();
                out.push_str(&lower);
            }
            out
        };
        let every: String = (0x20u8..0x7f)
            .map(char::from)
            .filter(|c| *c != '/')
            .collect();
        for component in [
            every.as_str(),
            "Makefile",
            ".VSCODE",
            "a.B.c",
            "X::$DATA",
            "Tools. ",
        ] {
            let shortcut: String = component.chars().map(|c| c.to_ascii_lowercase()).collect();
            assert_eq!(shortcut, general(component), "{component}");
            let mut one = String::new();
            for c in component.chars() {
                fold_char(c, &mut one);
            }
            assert_eq!(one, shortcut, "{component}");
        }
    }

    fn attrs(path: &str, text: &str) -> RunConfig {
        RunConfig {
            path: RepoPath::parse(path).unwrap(),
            content: CandidateContent::Bytes {
                bytes: text.as_bytes().to_vec(),
                complete: true,
            },
        }
    }

    #[test]
    fn a_transform_applies_where_its_pattern_may_match() {
        let names = ["working-tree-encoding".to_string(), "filter".to_string()];
        let files = [
            attrs(
                ".gitattributes",
                "# comment\n*.rc working-tree-encoding=UTF-16LE\nsrc/*.py working-tree-encoding=UTF-16LE\n*.txt -filter\n*.md text\n",
            ),
            attrs("lib/.gitattributes", "deep/** filter=crypt\n"),
            attrs(
                "etc/.gitattributes",
                "[attr]enc working-tree-encoding=UTF-16\n",
            ),
            // Git's wildmatch reads these brackets otherwise than a plain
            // glob would: each may match anything (round 15).
            attrs(
                "w/.gitattributes",
                "x/*.[[:alpha:]]y filter=a\nr[!]]n filter=a\n",
            ),
        ];
        let t = Transforms::of(&files, &names);
        for (path, applies) in [
            ("a/b/x.rc", true),
            ("X.RC", true),
            ("src/run.py", true),
            ("src/sub/run.py", false),
            ("other/src/run.py", false),
            ("notes.txt", false),
            ("README.md", false),
            ("lib/deep/a/b.rs", true),
            ("lib/other.rs", false),
            ("deep/a.rs", false),
            ("etc/anything", true),
            ("w/any/thing.rs", true),
        ] {
            assert_eq!(t.may_apply(path), applies, "{path}");
        }
        assert!(names_transform(&files[0].content, &names));
        assert!(!names_transform(&attrs("x", "*.md text\n").content, &names));
    }

    #[test]
    fn the_glob_errs_towards_a_match() {
        assert!(glob(b"**/x", b"a/b/x") && glob(b"**/x", b"x"));
        assert!(glob(b"a/**/b", b"a/q/r/b"));
        assert!(!glob(b"a*", b"ab/c"));
        assert!(glob(b"a?c", b"abc") && !glob(b"a?c", b"a/c"));
    }
}
