//! Required checks (`probity-checks/v1`, issue 20 §2, D-R69): a strict JSON
//! document at [`CHECKS_PATH`], read like the repository policy from the
//! **base a gate judges against**, never from the change. It names, per
//! path glob, the argv of the check an approval of a change touching those
//! paths must rest on. The server and CI hold each approved review that
//! authorizes a delivery to it through the command evidence document its
//! bundle carries (`probity.review-bundle/v2`): a v2 document, run on the
//! review's final candidate tree (the bundle checks that binding), that
//! exited 0, with exactly the required argv. An approval on opaque
//! evidence (a file), on another command (`-- true`), or with no evidence
//! travelling is refused (`checks_unmet`).
//!
//! What this cannot prove: that the check ran at all. The document is the
//! word of whoever ran it; a `probity-check` role whose signature the
//! policy demands (a CI principal that re-ran it) is what vouches for that.
//! Nor that the check means what it says: it runs the tree under review.
//! The files its argv names are its definition, so a change to one is
//! high ([`RepoChecks::floor_reasons`], D-R178); what they import, and
//! the code they test, can still make it pass.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::{StrictError, from_slice_strict};
use crate::review::evidence::CommandEvidenceDocument;
use crate::snapshot_tools::Glob;

/// Where the required checks live in a tree (beside the policy, so a
/// change to them is `policy_floor:policy_dir` high risk under a policy).
pub const CHECKS_PATH: &str = ".probity/checks.json";

/// The one schema label this build reads.
pub(crate) const CHECKS_SCHEMA: &str = "probity-checks/v1";

/// The most bytes the document may have.
pub const MAX_CHECKS_BYTES: usize = 64 * 1024;

/// The most checks, globs per check and argv items per check.
pub const MAX_CHECK_ITEMS: usize = 64;

/// The longest name, glob or argv item, in bytes.
pub(crate) const MAX_CHECK_ITEM_BYTES: usize = 1024;

/// The document as written (`probity schema checks`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity required checks v1")]
pub struct ChecksDocument {
    /// Exactly `probity-checks/v1`.
    pub schema: String,
    /// The checks, each for the paths its globs match.
    pub checks: Vec<RequiredCheck>,
}

/// One required check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequiredCheck {
    /// A name for people (`tests`), unique in the document.
    pub name: String,
    /// Globs over changed paths (`src/**`, `*.py`), as the reviewer tools'
    /// globs read them.
    pub paths: Vec<String>,
    /// The argument vector `finalize --evidence-cmd -- <argv>` must run,
    /// program first, exactly.
    pub argv: Vec<String>,
}

/// A parsed, checked document: only [`RepoChecks::parse`] makes one.
#[derive(Debug, Clone)]
pub struct RepoChecks {
    doc: ChecksDocument,
    /// Per check, its parsed globs (`None`: the glob that means everything).
    globs: Vec<Vec<Option<Glob>>>,
}

/// The repository paths an argv names as the program it runs (red team
/// rounds 37 and 38): its program, and for an interpreter (a shell,
/// Python, Node, Ruby, Perl, PHP) the script or directory it is given,
/// or a Python module after `-m` (its file, its package directory and
/// each package's `__init__.py`); a shell's `-c` string is read as the
/// commands it runs, each so. An option's `=` value (`--config=ci/x.toml`)
/// is named too. What a command only reads (`grep -q x src/a.rs`) is the
/// code under check, not its program.
fn argv_paths(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    command_paths(argv, &mut out, 0);
    out
}

/// [`argv_paths`] of one command's words, `depth` shell `-c` levels in.
fn command_paths(words: &[String], out: &mut Vec<String>, depth: usize) {
    let mut words = words.iter().skip_while(|w| is_assignment(w));
    let Some(program) = words.next() else {
        return;
    };
    out.extend(argv_path(program));
    let name = program.rsplit('/').next().unwrap_or(program);
    let shell = matches!(name, "sh" | "bash" | "zsh" | "dash" | "ksh");
    let python = name.starts_with("python") || name == "py" || name.starts_with("pypy");
    let interpreter =
        shell || python || matches!(name, "node" | "nodejs" | "ruby" | "perl" | "php");
    let rest: Vec<&String> = words.collect();
    let mut script = false;
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i].as_str();
        i += 1;
        if let Some((_, value)) = w.split_once('=').filter(|_| w.starts_with('-')) {
            out.extend(argv_path(value));
            continue;
        }
        if script {
            continue;
        }
        if shell && w == "-c" && depth < 4 {
            if let Some(script) = rest.get(i) {
                for command in shell_commands(script) {
                    command_paths(&command, out, depth + 1);
                }
            }
            return;
        }
        if python && w.starts_with("-m") {
            let module = match w.strip_prefix("-m") {
                Some("") => rest.get(i).map(|s| s.as_str()),
                glued => glued,
            };
            if let Some(m) = module {
                module_paths(m, out);
            }
            return;
        }
        if w.starts_with('-') {
            continue;
        }
        if interpreter {
            // The script (or a directory Python runs).
            out.extend(argv_path(w));
        }
        script = true;
    }
}

/// Whether `word` is a shell assignment before a command (`A=b cmd`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A Python module's files: `a.b` is `a/b.py`, the directory `a/b`, and
/// `a/__init__.py`.
fn module_paths(module: &str, out: &mut Vec<String>) {
    let dotted: Vec<&str> = module.split('.').filter(|p| !p.is_empty()).collect();
    if dotted.is_empty() || dotted.iter().any(|p| p.contains('/')) {
        return;
    }
    let path = dotted.join("/");
    out.push(format!("{path}.py"));
    out.push(path);
    for k in 1..dotted.len() {
        out.push(format!("{}/__init__.py", dotted[..k].join("/")));
    }
}

/// The commands of a shell string, each as its words: split at unquoted
/// white space, and into commands at unquoted `;`, `&`, `|`, `(`, `)`
/// and new lines; single quotes keep everything, double quotes all but a
/// backslash before `"`, `\`, `$` or a backquote.
fn shell_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = script.chars().peekable();
    let end_word = |word: &mut Option<String>, commands: &mut Vec<Vec<String>>| {
        if let (Some(w), Some(c)) = (word.take(), commands.last_mut()) {
            c.push(w);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' if chars.peek().is_some_and(|n| "\"\\$`".contains(*n)) => {
                            w.extend(chars.next());
                        }
                        q => w.push(q),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            ';' | '&' | '|' | '(' | ')' | '\n' => {
                end_word(&mut word, &mut commands);
                if commands.last().is_some_and(|c| !c.is_empty()) {
                    commands.push(Vec::new());
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut commands),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    end_word(&mut word, &mut commands);
    commands.retain(|c| !c.is_empty());
    commands
}

/// The repository path an argv word names, if it names one, read from
/// the repository's root with `./` and empty components dropped; `None`
/// for an absolute path, one that climbs (`..`), or an option (`-q`). A
/// program on `PATH` (`pytest`) names the root file of that name, which
/// a change rarely holds (and which would then run).
fn argv_path(word: &str) -> Option<String> {
    if word.starts_with('/') || word.starts_with('-') {
        return None;
    }
    let parts: Vec<&str> = word
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.is_empty() || parts.contains(&"..") {
        return None;
    }
    Some(parts.join("/"))
}

/// Why a checks document is refused (`policy_invalid`: it is part of the
/// repository policy).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChecksError {
    /// Over [`MAX_CHECKS_BYTES`].
    #[error("the required checks are {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The bound.
        limit: usize,
    },
    /// Not strict JSON of the document's shape, or another schema label.
    #[error("the required checks are not a probity-checks/v1 document: {0}")]
    Shape(String),
    /// A value breaks a rule of the document.
    #[error("the required checks' {field}: {why}")]
    Value {
        /// Where (`checks[1].argv`).
        field: String,
        /// What is wrong.
        why: String,
    },
}

impl ChecksError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        "policy_invalid"
    }
}

fn value(field: impl Into<String>, why: impl Into<String>) -> ChecksError {
    ChecksError::Value {
        field: field.into(),
        why: why.into(),
    }
}

fn check_list<T>(field: &str, items: &[T]) -> Result<(), ChecksError> {
    if items.is_empty() {
        return Err(value(field, "empty"));
    }
    if items.len() > MAX_CHECK_ITEMS {
        return Err(value(
            field,
            format!(
                "{} entries, over the limit of {MAX_CHECK_ITEMS}",
                items.len()
            ),
        ));
    }
    Ok(())
}

fn check_item(field: &str, item: &str) -> Result<(), ChecksError> {
    if item.is_empty() {
        return Err(value(field, "an empty entry"));
    }
    if item.len() > MAX_CHECK_ITEM_BYTES {
        return Err(value(
            field,
            format!("an entry longer than {MAX_CHECK_ITEM_BYTES} bytes"),
        ));
    }
    if item.chars().any(char::is_control) {
        return Err(value(field, "an entry holds a control character"));
    }
    Ok(())
}

/// An approval that does not rest on the checks its paths require
/// (`checks_unmet`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "review {lineage} changes paths that require the check{} {}: {why}",
    if required.len() == 1 { "" } else { "s" },
    required.join(", ")
)]
pub struct ChecksUnmet {
    /// The approved review.
    pub lineage: String,
    /// Each required check, `name (argv)`.
    pub required: Vec<String>,
    /// What is missing.
    pub why: String,
}

impl ChecksUnmet {
    /// The stable reason code.
    pub fn code(&self) -> &'static str {
        "checks_unmet"
    }
}

impl RepoChecks {
    /// Parses and checks a document: strict JSON (no duplicate key,
    /// nothing after it), no unknown field, the one schema label, 1 to
    /// [`MAX_CHECK_ITEMS`] checks with unique names, each with 1 to
    /// [`MAX_CHECK_ITEMS`] valid globs and a non-empty argv of bounded,
    /// control-free items.
    pub fn parse(bytes: &[u8]) -> Result<Self, ChecksError> {
        if bytes.len() > MAX_CHECKS_BYTES {
            return Err(ChecksError::TooLarge {
                size: bytes.len(),
                limit: MAX_CHECKS_BYTES,
            });
        }
        let doc: ChecksDocument = from_slice_strict(bytes).map_err(|e| match e {
            StrictError::Text(e) => ChecksError::Shape(e.to_string()),
            StrictError::Shape(e) => ChecksError::Shape(e),
        })?;
        if doc.schema != CHECKS_SCHEMA {
            return Err(ChecksError::Shape(format!(
                "its schema is `{}`; this build reads `{CHECKS_SCHEMA}`",
                doc.schema
            )));
        }
        check_list("checks", &doc.checks)?;
        let mut names = std::collections::BTreeSet::new();
        let mut globs = Vec::with_capacity(doc.checks.len());
        for (i, c) in doc.checks.iter().enumerate() {
            check_item(&format!("checks[{i}].name"), &c.name)?;
            if !names.insert(c.name.as_str()) {
                return Err(value(
                    format!("checks[{i}].name"),
                    format!("`{}` names two checks", c.name),
                ));
            }
            let field = format!("checks[{i}].paths");
            check_list(&field, &c.paths)?;
            let mut parsed = Vec::with_capacity(c.paths.len());
            for g in &c.paths {
                check_item(&field, g)?;
                parsed.push(
                    Glob::parse(g.as_bytes())
                        .map_err(|e| value(&field, format!("`{g}` is not a glob: {e}")))?,
                );
            }
            globs.push(parsed);
            let field = format!("checks[{i}].argv");
            check_list(&field, &c.argv)?;
            for a in &c.argv {
                check_item(&field, a)?;
            }
        }
        Ok(Self { doc, globs })
    }

    /// The document as written.
    pub fn document(&self) -> &ChecksDocument {
        &self.doc
    }

    /// The checks a change of `paths` requires: each check one of whose
    /// globs matches one of the paths, in document order.
    pub fn required<'a>(&'a self, paths: &[&str]) -> Vec<&'a RequiredCheck> {
        self.doc
            .checks
            .iter()
            .zip(&self.globs)
            .filter(|(_, globs)| {
                paths.iter().any(|p| {
                    globs
                        .iter()
                        .any(|g| g.as_ref().is_none_or(|g| g.matches(p.as_bytes())))
                })
            })
            .map(|(c, _)| c)
            .collect()
    }

    /// The floor the checks give a change of `paths` (red team rounds 37
    /// and 38): a check's argv names its program and the files it reads
    /// (`python3 scripts/check.py`, `--config=ci/check.toml`, a directory
    /// `python3 scripts` runs, a module `python3 -m scripts.check` runs,
    /// the programs of a shell's `-c` string: `argv_paths`), which sit
    /// in the tree under
    /// review; a change to one of them, or below a directory one names,
    /// decides what its own check says, so it is
    /// `policy_floor:required_check#<i>` for check `i`, high. What those
    /// files import or run in turn is code the check runs, as the code
    /// it tests is: not part of its definition.
    pub fn floor_reasons(&self, paths: &[&str]) -> Vec<crate::review::risk::RiskReason> {
        self.floor_reasons_linked(paths, &[])
    }

    /// [`RepoChecks::floor_reasons`] in trees that hold `links` (both
    /// trees' symbolic links, red team round 38's 38ckl, 38ckf): a named
    /// path is also where the newest risk policy resolves it through them
    /// (a linked `scripts` directory, a linked `scripts/check.py`), and a
    /// change to a link on the way to it (an ancestor of a named path)
    /// moves it. A named path behind an absolute target could be
    /// anywhere: every change floors that check.
    pub fn floor_reasons_linked(
        &self,
        paths: &[&str],
        links: &[crate::review::risk::Symlink],
    ) -> Vec<crate::review::risk::RiskReason> {
        let mut out = Vec::new();
        let under = |a: &str, b: &str| {
            a.len() > b.len() && a.starts_with(b) && a.as_bytes()[b.len()] == b'/'
        };
        for (i, check) in self.doc.checks.iter().enumerate() {
            let named = argv_paths(&check.argv);
            let named = if links.is_empty() || named.is_empty() {
                Some(named)
            } else {
                crate::review::risk::RiskPolicy::newest().real_paths(links, &named)
            };
            let hit = match named {
                None => !paths.is_empty(),
                Some(named) => paths
                    .iter()
                    .any(|p| named.iter().any(|n| p == n || under(p, n) || under(n, p))),
            };
            if hit {
                out.push(crate::review::risk::RiskReason::PolicyFloor(format!(
                    "required_check#{i}"
                )));
            }
        }
        out
    }

    /// Whether an approved review (`lineage`) of a change of `paths` rests
    /// on the checks they require. `evidence`: the command evidence
    /// document its bundle carries for it (bound to its evidence hash and
    /// final candidate tree by the bundle's own checks), `None` when it
    /// took opaque evidence or its bundle carries none. Every required
    /// check must be that one run, exited 0: one approval rests on one
    /// check, so paths that require two different commands need a check
    /// that runs both, declared as one.
    pub fn check_approval(
        &self,
        lineage: &str,
        paths: &[&str],
        evidence: Option<&CommandEvidenceDocument>,
    ) -> Result<(), ChecksUnmet> {
        let required = self.required(paths);
        if required.is_empty() {
            return Ok(());
        }
        let unmet = |why: String| ChecksUnmet {
            lineage: lineage.to_string(),
            required: required
                .iter()
                .map(|c| format!("{} (`{}`)", c.name, c.argv.join(" ")))
                .collect(),
            why,
        };
        let Some(doc) = evidence else {
            return Err(unmet(format!(
                "its approval carries no command evidence (it took a file, or its bundle predates probity.review-bundle/v2): run `probity finalize --lineage {lineage} --evidence-cmd -- {}` on a new review of the change",
                required[0].argv.join(" ")
            )));
        };
        if !doc.passed() {
            return Err(unmet("its check did not pass".into()));
        }
        if let Some(other) = required.iter().find(|c| c.argv != doc.argv) {
            let why = if required.iter().all(|c| c.argv == other.argv) {
                format!(
                    "its approval rests on `{}`, not on `{}`",
                    doc.argv.join(" "),
                    other.argv.join(" ")
                )
            } else {
                "the paths require different commands and one approval rests on one check: declare one check that runs them all".to_string()
            };
            return Err(unmet(why));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::Sha256Digest;
    use crate::review::evidence::COMMAND_EVIDENCE_SCHEMA_V2;
    use crate::review::ids::TreeId;

    const DOC: &str = r#"{"schema":"probity-checks/v1","checks":[
        {"name":"tests","paths":["src/**"],"argv":["cargo","test"]},
        {"name":"docs","paths":["docs/**"],"argv":["mdbook","test"]}]}"#;

    fn run(argv: &[&str], exit: i32) -> CommandEvidenceDocument {
        CommandEvidenceDocument {
            schema: COMMAND_EVIDENCE_SCHEMA_V2.into(),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            exit_code: Some(exit),
            signal: None,
            output_sha256: Sha256Digest::plain(b""),
            output_bytes: 0,
            tree: Some(TreeId::parse("a".repeat(40)).unwrap()),
        }
    }

    /// The floor reasons `c` gives `paths`, as text.
    fn floor_of(c: &RepoChecks, paths: &[&str]) -> Vec<String> {
        c.floor_reasons(paths)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// 37ck1: the files a check's argv names are its definition; what
    /// it tests is not.
    #[test]
    fn a_change_to_what_a_checks_argv_names_is_high() {
        let c = RepoChecks::parse(
            br#"{"schema":"probity-checks/v1","checks":[
            {"name":"unit","paths":["src/**"],"argv":["cargo","test"]},
            {"name":"py","paths":["**"],"argv":["python3","./scripts//check.py","--config=ci/check.toml","-q"]},
            {"name":"out","paths":["**"],"argv":["sh","/etc/x.sh","../up.sh"]}]}"#,
        )
        .unwrap();
        let floor = |paths: &[&str]| floor_of(&c, paths);
        assert_eq!(
            floor(&["scripts/check.py"]),
            ["policy_floor:required_check#1"]
        );
        assert_eq!(floor(&["ci/check.toml"]), ["policy_floor:required_check#1"]);
        for tested in ["src/lib.rs", "scripts/lib.py", "etc/x.sh", "up.sh", "q"] {
            assert!(floor(&[tested]).is_empty(), "{tested}");
        }
        assert_eq!(floor(&["cargo"]), ["policy_floor:required_check#0"]);
        // Round 38: a shell's `-c` string, a directory, a module.
        let c = RepoChecks::parse(
            br#"{"schema":"probity-checks/v1","checks":[
            {"name":"sh","paths":["**"],"argv":["sh","-c","python3 scripts/check.py && echo ok"]},
            {"name":"dir","paths":["**"],"argv":["python3","tools"]},
            {"name":"mod","paths":["**"],"argv":["python3","-m","ci.checks.run"]}]}"#,
        )
        .unwrap();
        let floor = |paths: &[&str]| floor_of(&c, paths);
        assert_eq!(
            floor(&["scripts/check.py"]),
            ["policy_floor:required_check#0"]
        );
        assert_eq!(
            floor(&["tools/__main__.py"]),
            ["policy_floor:required_check#1"]
        );
        for m in [
            "ci/checks/run.py",
            "ci/checks/run/__init__.py",
            "ci/__init__.py",
            "ci/checks/__init__.py",
        ] {
            assert_eq!(floor(&[m]), ["policy_floor:required_check#2"], "{m}");
        }
        for tested in ["src/lib.rs", "toolsx/a.py", "ci/other.py"] {
            assert!(floor(&[tested]).is_empty(), "{tested}");
        }
        // What a command only reads is the code under check, not its
        // program; a shell's commands are read past assignments and
        // quotes.
        let c2 = RepoChecks::parse(
            br#"{"schema":"probity-checks/v1","checks":[
            {"name":"grep","paths":["**"],"argv":["sh","-c","grep -q 'fn more' src/parser.rs"]},
            {"name":"env","paths":["**"],"argv":["bash","-c","A=1 'python3' 'ci/run.py' --x; echo done"]}]}"#,
        )
        .unwrap();
        assert!(c2.floor_reasons(&["src/parser.rs"]).is_empty());
        assert_eq!(c2.floor_reasons(&["ci/run.py"]).len(), 1);
        // Round 38: through the trees' links, and a link on the way.
        let c = RepoChecks::parse(
            br#"{"schema":"probity-checks/v1","checks":[
            {"name":"py","paths":["**"],"argv":["python3","scripts/check.py"]}]}"#,
        )
        .unwrap();
        let link = |path: &str, target: &str| crate::review::risk::Symlink {
            path: crate::review::ids::RepoPath::parse(path).unwrap(),
            target: target.as_bytes().to_vec(),
        };
        let hit = |paths: &[&str], links: &[crate::review::risk::Symlink]| {
            !c.floor_reasons_linked(paths, links).is_empty()
        };
        assert!(hit(&["tools/check.py"], &[link("scripts", "tools")]));
        assert!(hit(
            &["tools/impl.py"],
            &[link("scripts/check.py", "../tools/impl.py")]
        ));
        assert!(hit(&["scripts"], &[]), "a link on the way");
        assert!(hit(
            &["src/a.rs"],
            &[link("scripts", "/proc/self/cwd/tools")]
        ));
        assert!(!hit(&["tools/other.py"], &[link("scripts", "tools")]));
        assert!(!hit(&["tools/check.py"], &[]));
    }

    #[test]
    fn an_approval_rests_on_exactly_the_check_its_paths_require() {
        let c = RepoChecks::parse(DOC.as_bytes()).unwrap();
        let l = "review-0123456789abcdef";
        let tests = run(&["cargo", "test"], 0);
        assert_eq!(c.check_approval(l, &["src/a.rs"], Some(&tests)), Ok(()));
        // Paths no check covers need none.
        assert_eq!(c.check_approval(l, &["README.md"], None), Ok(()));
        // Another command, a failed run, no document, two commands.
        for (paths, evidence) in [
            (&["src/a.rs"][..], Some(run(&["true"], 0))),
            (&["src/a.rs"][..], Some(run(&["cargo", "test"], 1))),
            (&["src/a.rs"][..], None),
            (&["src/a.rs", "docs/x.md"][..], Some(tests.clone())),
        ] {
            let e = c.check_approval(l, paths, evidence.as_ref()).unwrap_err();
            assert_eq!(e.code(), "checks_unmet");
            assert!(e.to_string().contains("tests (`cargo test`)"), "{e}");
        }
    }

    #[test]
    fn a_checks_document_is_strict_and_bounded() {
        for bad in [
            r#"{"schema":"probity-checks/v2","checks":[{"name":"t","paths":["*"],"argv":["x"]}]}"#,
            r#"{"schema":"probity-checks/v1","checks":[]}"#,
            r#"{"schema":"probity-checks/v1","checks":[{"name":"t","paths":[],"argv":["x"]}]}"#,
            r#"{"schema":"probity-checks/v1","checks":[{"name":"t","paths":["*"],"argv":[]}]}"#,
            r#"{"schema":"probity-checks/v1","checks":[{"name":"t","paths":["*"],"argv":["x"],"shell":true}]}"#,
            r#"{"schema":"probity-checks/v1","checks":[{"name":"t","paths":["*"],"argv":["x"]},{"name":"t","paths":["*"],"argv":["y"]}]}"#,
            r#"{"schema":"probity-checks/v1","schema":"probity-checks/v1","checks":[]}"#,
            r#"{"schema":"probity-checks/v1","checks":[{"name":"t","paths":["*"],"argv":["a\nb"]}]}"#,
        ] {
            let e = RepoChecks::parse(bad.as_bytes()).unwrap_err();
            assert_eq!(e.code(), "policy_invalid", "{bad}");
        }
        let big = vec![b' '; MAX_CHECKS_BYTES + 1];
        assert!(matches!(
            RepoChecks::parse(&big),
            Err(ChecksError::TooLarge { .. })
        ));
    }
}
