//! Files an auto-run configuration runs by reference (v5, D-R135): a
//! `folderOpen` task's script, a pre-commit hook's entry, what an
//! `.envrc` sources. The configurations are an input (their bytes as the
//! base and candidate trees hold them, read by the ports layer at the
//! paths the policy names); a changed file one of them names is rated
//! `auto_run_config` at its own path. Pure, and conservative: a name is
//! taken wherever the format may run it, never only where a tool surely
//! does.

use crate::review::ids::RepoPath;
use crate::review::snapshot::CandidateContent;
use crate::snapshot_tools::Glob;

/// A configuration file of a tree whose references the policy reads
/// (`auto_run_reference_configs`): its path and its content (the first
/// bytes, `complete: false` when it is longer than was read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunConfig {
    /// Where the configuration is in the tree (`.vscode/tasks.json`).
    pub path: RepoPath,
    /// Its bytes as the tree holds them.
    pub content: CandidateContent,
}

/// One step of what the ports read for a policy's following
/// ([`super::RiskPolicy::reference_step`]): directories to list, then
/// (when none is left to list) files to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReferenceStep {
    /// Directories whose own files to list (v12), each not yet listed.
    pub list: Vec<String>,
    /// Directories to list with every file below them (v12).
    pub list_below: Vec<String>,
    /// Listings by name: the files below a directory that a glob matches
    /// (v12, red team round 27).
    pub list_matching: Vec<Matching>,
    /// Files to read, when no directory is left to list.
    pub read: Vec<String>,
}

/// What an adapter finds at a directory of a tree that risk policy v12
/// asks to list ([`super::RiskPolicy::reference_step`], D-R174).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    /// No directory there (absent, a file, or a link out of the tree).
    NotADirectory,
    /// The paths, from the root as asked, of the files (and links) below
    /// it, its subdirectories' too.
    Files(Vec<String>),
    /// More files than the bound, or an adapter that cannot list: any
    /// file may be there.
    Unknown,
}

impl Listed {
    /// The most directories one listing reads of a tree (a walk below a
    /// directory, a listing by name); past them the answer is
    /// [`Listed::Unknown`] (any file may be there).
    pub const MAX_TREES: usize = 8192;

    /// Two trees' answers for one directory as one: unknown when either
    /// is, the files of both, else no directory.
    pub fn with(self, other: Listed) -> Listed {
        match (self, other) {
            (Listed::Unknown, _) | (_, Listed::Unknown) => Listed::Unknown,
            (Listed::Files(mut a), Listed::Files(b)) => {
                a.extend(b);
                a.sort();
                a.dedup();
                Listed::Files(a)
            }
            (Listed::Files(a), Listed::NotADirectory)
            | (Listed::NotADirectory, Listed::Files(a)) => Listed::Files(a),
            (Listed::NotADirectory, Listed::NotADirectory) => Listed::NotADirectory,
        }
    }

    /// Every tree's answer for one directory as one ([`Listed::with`]; no
    /// answer: no directory).
    pub fn of_trees(answers: impl IntoIterator<Item = Listed>) -> Listed {
        answers
            .into_iter()
            .fold(Listed::NotADirectory, Listed::with)
    }

    /// The files listed (none when not a directory or unknown).
    pub fn files(&self) -> &[String] {
        match self {
            Listed::Files(f) => f,
            Listed::NotADirectory | Listed::Unknown => &[],
        }
    }

    /// The configuration that marks `dir` listed among the configurations
    /// (read beside the files listed): bytes not read whole when unknown
    /// (then every changed file may be one run there); else absent when
    /// its own files were listed, and empty bytes read whole when every
    /// file below it was (`below`), so that a later recursive walk of a
    /// directory listed for its own files asks again (red team round
    /// 22's 22b).
    pub fn marker(&self, dir: RepoPath, below: bool) -> RunConfig {
        RunConfig {
            path: dir,
            content: match self {
                Listed::Unknown => CandidateContent::Bytes {
                    bytes: Vec::new(),
                    complete: false,
                },
                Listed::NotADirectory | Listed::Files(_) if below => CandidateContent::Bytes {
                    bytes: Vec::new(),
                    complete: true,
                },
                Listed::NotADirectory | Listed::Files(_) => CandidateContent::Absent,
            },
        }
    }
}

/// A listing by name (v12, red team round 27's 27fa, 27na, 27ua): the
/// files below a directory (the root too) whose path, lowercased, a glob
/// matches (`find . -name '*_test.sh'`, a test runner's discovery, `npm
/// --workspaces`' `package.json`). Counted by its matches only, so a walk
/// from the root is bounded by what it finds, not by every file of the
/// tree; and by [`Listed::MAX_TREES`] directories read. The ports list
/// it in both trees ([`Matching::keeps`] decides each file), read the
/// files found into the configurations, and add [`Matching::marker`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    dir: String,
    pattern: String,
    glob: Glob,
    /// The glob over a file's name alone, when the listing's name has no
    /// `/` and no `**` (`test_*.py`): below `dir`, what the whole glob
    /// keeps (a property test holds the two equal).
    name: Option<Glob>,
}

impl Matching {
    /// The files below `dir` (empty: the root) whose name, or path below
    /// a directory, `name` matches (a glob over one name, `*_test.sh`,
    /// `run_checks`; or over a name and what is below it, `__tests__/**`);
    /// `None` when no glob can say it.
    pub fn new(dir: &str, name: &str) -> Option<Self> {
        let tail = name.trim_start_matches("./").to_ascii_lowercase();
        let pattern = match dir {
            "" => format!("**/{tail}"),
            d => format!("{}/**/{tail}", d.to_ascii_lowercase()),
        };
        // A pattern is also the marker's path: a repository path.
        RepoPath::parse(pattern.as_str()).ok()?;
        let glob = Glob::parse(pattern.as_bytes()).ok()??;
        // A `**` inside a name crosses directories in the whole glob
        // (`?**?` keeps `x/a`): then only the whole path tells.
        let name = match tail.contains('/') || tail.contains("**") {
            true => None,
            false => Glob::parse(tail.as_bytes()).ok()?,
        };
        Some(Self {
            dir: dir.to_string(),
            pattern,
            glob,
            name,
        })
    }

    /// The directory listed, from the root (empty: the root itself).
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The glob over whole paths, lowercased; also the path of the
    /// listing's marker.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether the listing takes the file at `path` (from the root).
    pub fn keeps(&self, path: &str) -> bool {
        self.glob.matches(path.to_ascii_lowercase().as_bytes())
    }

    /// Whether the listing takes a file below its directory whose name,
    /// lowercased, is `name`, when the name alone tells ([`Matching::keeps`]
    /// of its path otherwise: `None`). A walk below the directory asks
    /// this of every file it meets.
    pub fn keeps_name(&self, name: &[u8]) -> Option<bool> {
        Some(self.name.as_ref()?.matches(name))
    }

    /// The configuration that marks the listing done, at the pattern's
    /// path: bytes not read whole when unknown (then every changed file
    /// may be one run there), else empty bytes read whole.
    pub fn marker(&self, listed: &Listed) -> Option<RunConfig> {
        Some(RunConfig {
            path: RepoPath::parse(self.pattern.as_str()).ok()?,
            content: CandidateContent::Bytes {
                bytes: Vec::new(),
                complete: !matches!(listed, Listed::Unknown),
            },
        })
    }
}

/// The repository paths the configurations name, normalised (lexically
/// resolved from the root, ASCII-lowercased): files, named exactly, and
/// directories, naming every file below them; and whether one could not
/// be read whole (then no changed file can be shown unnamed).
#[derive(Debug, Default)]
pub(super) struct References {
    pub(super) paths: Vec<String>,
    pub(super) dirs: Vec<String>,
    /// Paths named at any depth (v11: a tail after a variable, a file a
    /// tool loads from every directory): the path itself, or any path
    /// ending in `/` and it.
    pub(super) suffixes: Vec<String>,
    /// Paths that name what is below them and their stem too (v12,
    /// D-R174: `tools/hooks` names `tools/hooks/a`, `tools/json` names
    /// `tools/json.py`), sorted.
    pub(super) below: Vec<String>,
    /// Globs over paths, each also naming what is below a directory it
    /// matches (v12: `tools/*.mk`, `**/test_*.py`), lowercased.
    pub(super) globs: Vec<(String, Glob)>,
    /// Directories Python puts first on `sys.path` (v12, red team rounds
    /// 32 and 33): a file there that shadows a standard-library module,
    /// or package metadata, is named ([`References::shadows`]).
    pub(super) shadowing: Vec<String>,
    pub(super) unread: bool,
}

impl References {
    /// The references of `configs` that the policy reads (`names`, the
    /// configuration paths it lists; others are ignored).
    pub(super) fn of(configs: &[RunConfig], names: &[String]) -> Self {
        let mut out = References::default();
        for c in configs {
            let path = c.path.as_str();
            if !names.iter().any(|n| n == path) {
                continue;
            }
            let CandidateContent::Bytes { bytes, complete } = &c.content else {
                continue;
            };
            if !*complete {
                out.unread = true;
                continue;
            }
            let text = String::from_utf8_lossy(bytes);
            let (words, dirs) = match file_kind(path) {
                // VS Code runs tasks on Windows too: `.\\scripts\\x.ps1`
                // names `scripts/x.ps1` (a JSON string's backslash is
                // a path separator there, never a shell escape).
                Kind::Tasks => (
                    json_strings(&text)
                        .into_iter()
                        .map(|w| w.replace('\\', "/"))
                        .collect(),
                    Vec::new(),
                ),
                Kind::PreCommit => (yaml_values(&text, &["entry", "args"]), Vec::new()),
                Kind::Envrc => envrc_words(&text),
            };
            for w in words {
                for piece in w.split(is_separator) {
                    // A word written as a directory (`tools/`) names what
                    // is below it; any other names one file: a task's
                    // `cwd`, a `PYTHONPATH=src` or a label `test` runs
                    // nothing below it by itself.
                    let list = if piece.ends_with('/') {
                        &mut out.dirs
                    } else {
                        &mut out.paths
                    };
                    if let Some(p) = normalise(piece) {
                        list.push(p);
                    }
                }
            }
            out.dirs.extend(dirs.iter().filter_map(|d| normalise(d)));
        }
        for list in [&mut out.paths, &mut out.dirs] {
            list.sort();
            list.dedup();
        }
        out
    }

    /// Adds the glob `pattern` (v12), lowercased; one a glob cannot be
    /// (above the root, inside `.git`) names nothing.
    pub(super) fn add_glob(&mut self, pattern: &str) {
        let lower = pattern.to_ascii_lowercase();
        if let Ok(Some(glob)) = Glob::parse(lower.as_bytes()) {
            self.globs.push((lower, glob));
        }
    }

    /// Takes the configurations as not read whole (v10: one sits behind a
    /// link the trees cannot resolve).
    pub(super) fn mark_unread(&mut self) {
        self.unread = true;
    }

    /// Whether a configuration names `path`, or a directory it names holds
    /// it, or one could not be read whole.
    pub(super) fn names(&self, path: &str) -> bool {
        if self.unread {
            return true;
        }
        let lower = path.to_ascii_lowercase();
        self.paths.binary_search(&lower).is_ok()
            || self.suffixes.iter().any(|t| {
                lower.ends_with(t.as_str())
                    && (lower.len() == t.len()
                        || lower.as_bytes()[lower.len() - t.len() - 1] == b'/')
            })
            || self.dirs.iter().any(|r| {
                lower.len() > r.len()
                    && lower.starts_with(r.as_str())
                    && lower.as_bytes()[r.len()] == b'/'
            })
            || self.below_names(&lower)
            || self.shadows(&lower)
            || (!self.globs.is_empty()
                && prefixes(&lower)
                    .any(|p| self.globs.iter().any(|(_, g)| g.matches(p.as_bytes()))))
    }

    /// Whether `lower` is, in a directory of [`References::shadowing`], a
    /// file Python imports for a standard-library module (`NAME.*`,
    /// `NAME/__init__.*`), or package metadata (`*.dist-info/`,
    /// `*.egg-info/`).
    fn shadows(&self, lower: &str) -> bool {
        self.shadowing.iter().any(|d| {
            let rest = match d.as_str() {
                "" => Some(lower),
                d => lower.strip_prefix(d).and_then(|r| r.strip_prefix('/')),
            };
            let Some(rest) = rest else {
                return false;
            };
            let (first, below) = match rest.split_once('/') {
                Some((first, below)) => (first, Some(below)),
                None => (rest, None),
            };
            match below {
                None => importable(first).is_some_and(super::follow::stdlib::is_stdlib),
                Some(below) => {
                    (super::follow::stdlib::is_stdlib(first)
                        && importable(below) == Some("__init__"))
                        || first.ends_with(".dist-info")
                        || first.ends_with(".egg-info")
                }
            }
        })
    }

    /// Whether `lower` is below one of [`References::below`], or its stem
    /// (the last component without its last extension) is one.
    fn below_names(&self, lower: &str) -> bool {
        let has = |p: &str| self.below.binary_search_by(|b| b.as_str().cmp(p)).is_ok();
        if self.below.is_empty() {
            return false;
        }
        let name_at = lower.rfind('/').map_or(0, |i| i + 1);
        let stem = lower[name_at..]
            .rfind('.')
            .filter(|d| *d > 0)
            .map(|d| &lower[..name_at + d]);
        prefixes(lower).any(has) || stem.is_some_and(has)
    }
}

/// The module a file named `name` (lowercased) is, if Python imports it
/// (red team round 34's 34lf: `logging.yaml` is no module): `NAME.py`,
/// `NAME.pyc`, `NAME.pyw`, and an extension module, `NAME.so` or
/// `NAME.pyd` with or without a tag (`NAME.cpython-311-x86_64-linux-gnu.so`,
/// `NAME.abi3.so`, `NAME.cp311-win_amd64.pyd`).
fn importable(name: &str) -> Option<&str> {
    let (module, rest) = name.split_once('.')?;
    let extension = match rest.rsplit_once('.') {
        None => rest,
        Some((_, ext @ ("so" | "pyd"))) => ext,
        Some(_) => return None,
    };
    matches!(extension, "py" | "pyc" | "pyw" | "pyd" | "so").then_some(module)
}

/// `path` and each of its directories (`a/b/c`, `a/b`, `a`).
fn prefixes(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(path.match_indices('/').map(move |(i, _)| &path[..i]))
}

impl References {
    /// Sorts and dedups every list ([`References::names`] searches
    /// `paths` and `below` by bisection).
    pub(super) fn sorted(mut self) -> Self {
        for list in [
            &mut self.paths,
            &mut self.dirs,
            &mut self.suffixes,
            &mut self.below,
            &mut self.shadowing,
        ] {
            list.sort();
            list.dedup();
        }
        self.globs.sort_by(|a, b| a.0.cmp(&b.0));
        self.globs.dedup_by(|a, b| a.0 == b.0);
        self
    }
}

enum Kind {
    Tasks,
    PreCommit,
    Envrc,
}

fn file_kind(path: &str) -> Kind {
    if path.ends_with(".json") {
        Kind::Tasks
    } else if path.ends_with(".yaml") || path.ends_with(".yml") {
        Kind::PreCommit
    } else {
        Kind::Envrc
    }
}

/// Bytes at which a word is cut into the paths it may name: whitespace,
/// shell operators, `=` (`--file=x`), `:` (`path:./x`), `#` (a flake's
/// attribute), `,`, brackets, and `${...}`'s braces and `$` (a variable
/// such as `${workspaceFolder}` leaves a path starting `/`, read from the
/// root).
pub(super) fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ';' | '&'
                | '|'
                | '('
                | ')'
                | '<'
                | '>'
                | '='
                | ':'
                | '#'
                | ','
                | '['
                | ']'
                | '{'
                | '}'
                | '$'
                | '"'
                | '\''
                | '`'
                | '\\'
                | '^'
                | '*'
                | '?'
        )
}

/// A word as a repository path: leading `/` taken from the root, `.` and
/// empty components skipped, `..` a step up; `None` for the root itself,
/// a path climbing above it, or one that is not a path (empty).
pub(super) fn normalise(word: &str) -> Option<String> {
    normalise_cased(word).map(|p| p.to_ascii_lowercase())
}

/// [`normalise`] with the letters' case kept (a path to read from a tree).
pub(super) fn normalise_cased(word: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in word.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

/// Every string of a JSON or JSONC document (VS Code's `tasks.json`:
/// comments and trailing commas allowed), escapes decoded: a task runs
/// its `command` and `args`, in its `options.cwd`, with its
/// `options.env`, so any string may name what runs (a label or a problem
/// matcher names no changed file). A string left open ends the document.
pub(super) fn json_strings(text: &str) -> Vec<String> {
    json_tokens(text).into_iter().map(|(s, _)| s).collect()
}

/// [`json_strings`]' strings, each with whether it is a key (a `:`
/// follows it, past whitespace and comments).
pub(super) fn json_tokens(text: &str) -> Vec<(String, bool)> {
    json_events(text)
        .into_iter()
        .filter_map(|e| match e {
            JsonEvent::Str(s, key) => Some((s, key)),
            JsonEvent::Open | JsonEvent::Close => None,
        })
        .collect()
}

/// What [`json_events`] reads: a string (and whether it is a key), or an
/// object opened or closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum JsonEvent {
    Str(String, bool),
    Open,
    Close,
}

/// A JSONC document's strings, escapes decoded, and its objects' braces,
/// in order; comments skipped (between a key and its `:` too: red team
/// round 19's 02a).
pub(super) fn json_events(text: &str) -> Vec<JsonEvent> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if matches!(chars.peek(), Some('/' | '*')) => skip_comment(&mut chars),
            '{' => out.push(JsonEvent::Open),
            '}' => out.push(JsonEvent::Close),
            '"' => {
                let mut s = String::new();
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('u') => {
                                let hex: String = chars.by_ref().take(4).collect();
                                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                                    Some(e) => s.push(e),
                                    // A surrogate or a bad escape: a separator.
                                    None => s.push(' '),
                                }
                            }
                            Some('n' | 't' | 'r' | 'b' | 'f') => s.push(' '),
                            Some(e) => s.push(e),
                            None => break,
                        },
                        other => s.push(other),
                    }
                }
                // Past whitespace and comments, without taking them.
                let mut look = chars.clone();
                loop {
                    while look.next_if(|d| d.is_whitespace()).is_some() {}
                    let mut two = look.clone();
                    if two.next() == Some('/') && matches!(two.peek(), Some('/' | '*')) {
                        look.next();
                        skip_comment(&mut look);
                    } else {
                        break;
                    }
                }
                let key = look.peek() == Some(&':');
                out.push(JsonEvent::Str(s, key));
            }
            _ => {}
        }
    }
    out
}

/// Skips a comment whose `/` was taken and whose second character (`/`
/// or `*`) is next.
fn skip_comment(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('/') => {
            for d in chars.by_ref() {
                if d == '\n' {
                    break;
                }
            }
        }
        Some('*') => {
            let mut star = false;
            for d in chars.by_ref() {
                if star && d == '/' {
                    break;
                }
                star = d == '*';
            }
        }
        _ => {}
    }
}

/// The values of `keys` in a YAML document read line by line (a
/// pre-commit hook's `entry` and `args`): the rest of a line after `key:`
/// (block or flow style, the key quoted or not), and the lines indented
/// deeper that follow it (a block scalar, a block sequence). YAML's
/// double-quoted escapes (`\x2f`, `\u002f`) are decoded; quotes are
/// separators.
pub(super) fn yaml_values(text: &str, keys: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    // A complex key (`? entry`): its value is the `:` line after it (red
    // team round 19's 05p2).
    let mut complex = false;
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches([' ', '-', '\t']).len();
        let content = line.trim();
        if let Some(depth) = open {
            if content.is_empty() || indent > depth {
                out.push(yaml_unescape(content));
                continue;
            }
            open = None;
        }
        let bare: String = line
            .chars()
            .filter(|c| !matches!(c, '"' | '\'' | ' ' | '\t'))
            .collect();
        let lower = bare.to_ascii_lowercase();
        let mut found = complex && lower.trim_start_matches('-').starts_with(':');
        complex = false;
        for k in keys {
            let want = format!("{k}:");
            for (i, _) in lower.match_indices(&want) {
                let before = lower[..i].chars().last();
                if before.is_none_or(|b| matches!(b, '-' | '{' | ',' | '?')) {
                    found = true;
                }
            }
            if lower.trim_start_matches('-') == format!("?{k}") {
                complex = true;
            }
        }
        if found {
            // The line whole (its key among its words names no file) and
            // what is indented under it.
            out.push(yaml_unescape(content));
            open = Some(indent);
        }
    }
    with_aliases(text, out)
}

/// `values` with each alias (`*cmd`) followed by the line its anchor
/// (`&cmd`) stands on, and what is indented under it (round 19's 05p3:
/// `entry: *cmd` runs what `defaults: &cmd run-parts tools/hooks` says).
fn with_aliases(text: &str, mut values: Vec<String>) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut anchors: Vec<(String, String)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        for (at, _) in line.match_indices('&') {
            let name: String = line[at + 1..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ']' | '}' | ':'))
                .collect();
            if name.is_empty() {
                continue;
            }
            let indent = line.len() - line.trim_start_matches([' ', '-', '\t']).len();
            let mut body = vec![yaml_unescape(line.trim())];
            for next in &lines[i + 1..] {
                let deeper = next.len() - next.trim_start_matches([' ', '-', '\t']).len() > indent;
                if next.trim().is_empty() || deeper {
                    body.push(yaml_unescape(next.trim()));
                } else {
                    break;
                }
            }
            anchors.push((name, body.join(" ")));
        }
    }
    if anchors.is_empty() {
        return values;
    }
    let mut extra = Vec::new();
    for v in &values {
        for (name, body) in &anchors {
            let alias = format!("*{name}");
            if v.match_indices(&alias).any(|(at, _)| {
                v[at + alias.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
            }) {
                extra.push(body.clone());
            }
        }
    }
    values.extend(extra);
    values
}

/// YAML double-quoted escapes decoded (`\xXX`, `\uXXXX`, `\UXXXXXXXX`,
/// `\/`); anything else kept.
fn yaml_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let width = match chars.next() {
            Some('x') => 2,
            Some('u') => 4,
            Some('U') => 8,
            Some(other) => {
                out.push(other);
                continue;
            }
            None => break,
        };
        let hex: String = chars.by_ref().take(width).collect();
        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
            Some(d) => out.push(d),
            None => out.push(' '),
        }
    }
    out
}

/// A shell source's lines with their comments left out: a line that is a
/// comment, and what follows ` #` on a line.
pub(super) fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|l| l.split(" #").next().unwrap_or(l))
        .filter(|l| !l.trim_start().starts_with('#'))
}

/// An `.envrc`'s words, and the directories it names: it is a shell
/// script direnv runs on entering the directory, so any word may name a
/// file it runs (`source_env`, `source`, `dotenv`, `watch_file`,
/// `./scripts/x.sh`, `bash tools/x`). Quotes and backslashes are removed
/// as the shell removes them (`"scri"pts/x.sh` is `scripts/x.sh`),
/// `${...}` cut out; and the files a command names by default: `dotenv`
/// and `dotenv_if_exists` without an argument `.env`, `use nix` without
/// one `shell.nix` and `default.nix`, `use flake` without one
/// `flake.nix`, `source_env DIR` its `DIR/.envrc`. The directories: what
/// `PATH_add`, `path_add` and `load_prefix` put on `PATH` (a `git` there
/// runs in place of git's), every file below them.
pub(super) fn envrc_words(text: &str) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut dirs = Vec::new();
    for code in code_lines(text) {
        let joined: String = code
            .chars()
            .filter(|c| !matches!(c, '"' | '\'' | '\\'))
            .collect();
        for command in joined.split([';', '&', '|']) {
            let words: Vec<&str> = command.split_whitespace().collect();
            match words.as_slice() {
                ["dotenv" | "dotenv_if_exists"] => out.push(".env".to_string()),
                ["use", "nix"] => {
                    out.push("shell.nix".to_string());
                    out.push("default.nix".to_string());
                }
                ["use", "flake"] => out.push("flake.nix".to_string()),
                ["PATH_add" | "path_add", added @ ..] => {
                    dirs.extend(added.iter().map(|d| d.to_string()));
                }
                ["load_prefix", prefix, ..] => dirs.push(format!("{prefix}/bin")),
                ["source_env" | "source_env_if_exists", target, ..] => {
                    out.push(format!("{target}/.envrc"));
                }
                ["use", "flake", target, ..] => {
                    let dir = target.trim_start_matches("path:");
                    let dir = dir.split('#').next().unwrap_or(dir);
                    out.push(format!("{dir}/flake.nix"));
                    out.push(format!("{dir}/flake.lock"));
                }
                _ => {}
            }
            out.extend(words.iter().map(|w| w.to_string()));
        }
    }
    (out, dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::review::fixtures::run_config as config;

    fn names() -> Vec<String> {
        vec![
            ".vscode/tasks.json".into(),
            ".pre-commit-config.yaml".into(),
            ".envrc".into(),
        ]
    }

    #[test]
    fn a_folder_open_task_names_its_script_and_its_arguments() {
        let tasks = r#"{
          // JSONC: a comment and a trailing comma
          "version": "2.0.0",
          "tasks": [
            {"label": "setup", "type": "shell", "command": "./scripts/setup.sh",
             "runOptions": {"runOn": "folderOpen"},},
            {"label": "x", "command": "python", "args": ["tools\u002fgen.py", "--out=build/out.txt"]},
            {"label": "y", "command": "./run.sh", "options": {"cwd": "${workspaceFolder}/ci"}},
          ],
        }"#;
        let r = References::of(&[config(".vscode/tasks.json", tasks)], &names());
        assert!(r.names("scripts/setup.sh"));
        assert!(r.names("Scripts/Setup.sh"));
        assert!(r.names("tools/gen.py"));
        assert!(r.names("build/out.txt"));
        assert!(r.names("run.sh"));
        // A Windows path (`.\scripts\build.ps1` once the JSON string is
        // decoded) names the same file.
        let windows = r#"{"tasks":[{"command":"powershell","args":[".\\scripts\\build.ps1"]}]}"#;
        let w = References::of(&[config(".vscode/tasks.json", windows)], &names());
        assert!(w.names("scripts/build.ps1"));
        // A working directory, a label: no file below them is named.
        assert!(!r.names("ci/run.sh"));
        assert!(!r.names("x/y.rs"));
        assert!(!r.names("src/main.rs"));
        assert!(!r.names("scripts/setup.sh.bak"));
        // Another configuration's path is not read.
        let other = References::of(&[config("pkg/.vscode/tasks.json", tasks)], &names());
        assert!(!other.names("scripts/setup.sh"));
    }

    #[test]
    fn a_pre_commit_hook_names_its_entry_and_args() {
        let yaml = "repos:\n- repo: local\n  hooks:\n  - id: lint\n    name: lint README.md\n    entry: ./scripts/lint.sh\n    language: script\n  - id: gen\n    \"entry\": python\n    args: [\"tools\\x2fgen.py\", --fast]\n  - {id: z, entry: hooks/z.py}\n  - id: block\n    entry: >\n      bash\n      hooks/long.sh\n    files: ^docs/\n    exclude: README.md\n";
        let r = References::of(&[config(".pre-commit-config.yaml", yaml)], &names());
        for p in [
            "scripts/lint.sh",
            "tools/gen.py",
            "hooks/z.py",
            "hooks/long.sh",
        ] {
            assert!(r.names(p), "{p}");
        }
        assert!(!r.names("README.md"), "a file pattern runs nothing");
        assert!(!r.names("docs/a.md"));
    }

    /// Red team round 19's 05p2 and 05p3: YAML's complex key and an
    /// alias, which pre-commit's PyYAML reads as a plain `entry:`.
    #[test]
    fn a_pre_commit_entry_behind_a_complex_key_or_an_alias_is_read() {
        let complex = "repos:\n- repo: local\n  hooks:\n  - id: a\n    ? entry\n    : run-parts tools/hooks\n    language: script\n";
        let alias = "x-defaults: &cmd run-parts tools/more\nrepos:\n- repo: local\n  hooks:\n  - id: a\n    entry: *cmd\n    language: script\n";
        for (yaml, dir) in [(complex, "tools/hooks"), (alias, "tools/more")] {
            let words = yaml_values(yaml, &["entry", "args"]);
            assert!(
                words
                    .iter()
                    .any(|w| w.contains(&format!("run-parts {dir}"))),
                "{words:?}"
            );
        }
        // An alias nothing anchors, and an anchor no value uses, add nothing.
        let plain = "a: &unused run-parts tools/x\nentry: ./run.sh\n";
        assert_eq!(yaml_values(plain, &["entry"]), ["entry: ./run.sh"]);
    }

    #[test]
    fn an_envrc_names_what_it_sources_and_runs() {
        let envrc = "# comment naming secret/x.sh\nsource_env \"scri\"pts/env.sh\nsource_env up\nsource_up\ndotenv\nuse flake ./nix#dev\nwatch_file tools/w.txt\nPATH_add bin\nexport PYTHONPATH=src\n./setup/run.sh && echo ok # tail comment other.sh\n";
        let r = References::of(&[config(".envrc", envrc)], &names());
        for p in [
            "scripts/env.sh",
            ".env",
            "nix/flake.nix",
            "tools/w.txt",
            "bin/tool",
            "up/.envrc",
            "setup/run.sh",
        ] {
            assert!(r.names(p), "{p}");
        }
        assert!(!r.names("secret/x.sh"));
        assert!(!r.names("other.sh"));
        // A variable's value names no directory's files.
        assert!(!r.names("src/lib.rs"));
        assert!(!r.names("tools/other.txt"));
    }

    #[test]
    fn a_configuration_longer_than_was_read_names_everything() {
        let mut c = config(".envrc", "true\n");
        c.content = CandidateContent::Bytes {
            bytes: b"true\n".to_vec(),
            complete: false,
        };
        assert!(References::of(&[c], &names()).names("src/lib.rs"));
    }

    #[test]
    fn a_reference_climbing_out_or_naming_the_root_names_nothing() {
        let r = References::of(
            &[config(".envrc", "source ../x.sh\ncd .\nsource /\n")],
            &names(),
        );
        assert!(!r.names("x.sh"));
        assert!(!r.names("a/b.sh"));
    }
}
