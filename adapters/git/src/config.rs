//! `probity.keepTrees` read in-process when that is certain to be the
//! answer `git config --type=bool --get` gives, so a `start` runs one git
//! fewer (issue 24, D-R98).
//!
//! git stays the reader of every case this module is not sure of: it
//! answers `None` (and [`crate::Repo::keeps_trees`] runs `git config` as
//! before) when
//!
//! - the run keeps git's configuration from the environment (`-c`,
//!   `GIT_CONFIG_COUNT`: the server gate, [`crate::GitCli::with_receive_config`]);
//!   every other run starts git with every `GIT_*` variable cleared
//!   ([`crate::cmd`]), so no `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`,
//!   `GIT_CONFIG_NOSYSTEM` or `GIT_CONFIG_PARAMETERS` reaches git either;
//! - any file read has an `include` or `includeIf` section (includes,
//!   conditional ones above all, are git's to follow), sets
//!   `extensions.worktreeConfig` (then `config.worktree` is read too), or
//!   is one git would refuse (a syntax error, an unknown escape, a key
//!   before any section, unreadable for another reason than absence);
//! - a system file, at any place git may have been built to read it
//!   (`/etc/gitconfig`, `/usr/local/etc/gitconfig`, `<prefix>/etc/gitconfig`
//!   of the git executable found), mentions `probity` or `include` at all:
//!   which one git reads is compiled into it, so none may matter;
//! - `HOME` is unset, or the value is anything but git's plain spellings
//!   (`true`, `yes`, `on`, `1`, `false`, `no`, `off`, `0`, empty, or no
//!   `=` at all); git answers for the rest (`2`, `1k`, or an error).
//!
//! Otherwise the files are read in git's order (system, `$XDG_CONFIG_HOME`
//! or `~/.config/git/config`, `~/.gitconfig`, the repository's `config`)
//! and the last setting wins, as `git config --get` answers. The tests
//! compare every answer with git's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The key, as git canonicalizes it (section and name lowercased).
const KEY: &str = "probity.keeptrees";

/// Where git reads its configuration from, for one repository.
#[derive(Debug, Clone)]
pub(crate) struct Sources {
    /// Every place a system file may be (see the module): any mention of
    /// `probity` or `include` in one of them gives up.
    pub(crate) system_candidates: Vec<PathBuf>,
    /// The user's files, in git's order (`None`: `HOME` unset, give up).
    pub(crate) global: Option<Vec<PathBuf>>,
    /// The repository's own file (`<common dir>/config`).
    pub(crate) local: PathBuf,
    /// Whether git is started with configuration from the environment.
    pub(crate) env_config: bool,
}

impl Sources {
    /// The sources git started by `exe` with the current environment
    /// reads for the repository whose common directory is `common_dir`.
    pub(crate) fn of(exe: &OsString, common_dir: &Path, env_config: bool) -> Self {
        let mut system_candidates = vec![
            PathBuf::from("/etc/gitconfig"),
            PathBuf::from("/usr/local/etc/gitconfig"),
        ];
        if let Some(prefix) = executable(exe)
            .and_then(|e| std::fs::canonicalize(e).ok())
            .and_then(|e| e.parent()?.parent().map(Path::to_path_buf))
        {
            let p = prefix.join("etc").join("gitconfig");
            if !system_candidates.contains(&p) {
                system_candidates.push(p);
            }
        }
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
        let global = home.map(|home| {
            let home = PathBuf::from(home);
            let xdg = match std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
                Some(x) => PathBuf::from(x).join("git").join("config"),
                None => home.join(".config").join("git").join("config"),
            };
            vec![xdg, home.join(".gitconfig")]
        });
        Self {
            system_candidates,
            global,
            local: common_dir.join("config"),
            env_config,
        }
    }
}

/// The path of `exe` as a `Command` would start it (a name is looked up
/// in `PATH`).
fn executable(exe: &OsString) -> Option<PathBuf> {
    let p = Path::new(exe);
    if p.components().count() > 1 {
        return Some(p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(p))
        .find(|c| std::fs::metadata(c).is_ok_and(|m| m.is_file()))
}

/// `probity.keepTrees` as `git config --type=bool --get` answers it (unset
/// is `false`), or `None` when git must be asked (see the module).
pub(crate) fn keep_trees(src: &Sources) -> Option<bool> {
    let value = picked(src, &[b"probity", b"include"], |k| k == KEY)?.pop();
    match value {
        None => Some(false),
        Some((_, v)) => plain_bool(v.as_deref()),
    }
}

/// Every `core.*` and `attr.*` setting, in git's order (the last one of a
/// key is git's answer), or `None` when git must be asked (see the
/// module; a system file that mentions `core` or `attr` at all gives up).
pub(crate) fn core_settings(src: &Sources) -> Option<Vec<(String, Option<Vec<u8>>)>> {
    picked(src, &[b"core", b"attr", b"include"], |k| {
        k.starts_with("core.") || k.starts_with("attr.")
    })
}

/// The settings whose key `pick` takes from the user's files and the
/// repository's, in git's order; `None` when git must be asked: a system
/// file mentions one of `system_words` (lowercase), or see the module.
fn picked(
    src: &Sources,
    system_words: &[&[u8]],
    pick: impl Fn(&str) -> bool,
) -> Option<Vec<(String, Option<Vec<u8>>)>> {
    if src.env_config {
        return None;
    }
    for candidate in &src.system_candidates {
        let lower = read(candidate)?.to_ascii_lowercase();
        if system_words.iter().any(|w| contains(&lower, w)) {
            return None;
        }
    }
    let mut files: Vec<&Path> = src.global.as_ref()?.iter().map(PathBuf::as_path).collect();
    files.push(&src.local);
    let mut out = Vec::new();
    for file in files {
        let bytes = read(file)?;
        for (key, v) in parse(&bytes)? {
            if key.starts_with("include.")
                || key.starts_with("includeif.")
                || key == "extensions.worktreeconfig"
            {
                return None;
            }
            if pick(&key) {
                out.push((key, v));
            }
        }
    }
    Some(out)
}

/// A file's bytes; empty when it does not exist; `None` when it cannot be
/// read for another reason (git would complain: it is asked).
fn read(path: &Path) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Vec::new()),
        Err(_) => None,
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// git's reading of a boolean for the plain spellings only; `None` (ask
/// git) for the others.
pub(crate) fn plain_bool(v: Option<&[u8]>) -> Option<bool> {
    let Some(v) = v else {
        // A key with no `=`: true.
        return Some(true);
    };
    match v.to_ascii_lowercase().as_slice() {
        b"true" | b"yes" | b"on" | b"1" => Some(true),
        b"false" | b"no" | b"off" | b"0" | b"" => Some(false),
        _ => None,
    }
}

/// Every setting of a configuration file, in order, as git's parser
/// (`config.c`) reads it: `(section[.subsection].key, value)` with the
/// section and key lowercased, `None` for a key with no `=`. `None` for a
/// file git would refuse.
pub(crate) fn parse(bytes: &[u8]) -> Option<Vec<(String, Option<Vec<u8>>)>> {
    // git's `isspace` is space, tab, CR and LF only: a form feed or a
    // vertical tab is read otherwise than here.
    if bytes.iter().any(|b| matches!(b, 0x0b | 0x0c)) {
        return None;
    }
    let mut r = Reader::new(bytes);
    let mut out = Vec::new();
    let mut base: Option<String> = None;
    let mut comment = false;
    loop {
        let Some(c) = r.next() else {
            return Some(out);
        };
        if c == b'\n' {
            comment = false;
            continue;
        }
        if comment || c.is_ascii_whitespace() {
            continue;
        }
        if c == b'#' || c == b';' {
            comment = true;
            continue;
        }
        if c == b'[' {
            base = Some(r.section()?);
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return None;
        }
        // A key before any section: git refuses the file.
        let section = base.as_ref()?;
        let mut name = String::from(char::from(c.to_ascii_lowercase()));
        let mut c = r.next();
        while let Some(k) = c.filter(|k| k.is_ascii_alphanumeric() || *k == b'-') {
            name.push(char::from(k.to_ascii_lowercase()));
            c = r.next();
        }
        while matches!(c, Some(b' ' | b'\t')) {
            c = r.next();
        }
        let value = match c {
            None | Some(b'\n') => None,
            Some(b'=') => Some(r.value()?),
            Some(_) => return None,
        };
        out.push((format!("{section}.{name}"), value));
    }
}

/// git's `get_next_char`: `\r\n` reads as `\n`, and the end of the file as
/// a last `\n`.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    eof: bool,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        // A UTF-8 byte order mark is skipped.
        let at = if bytes.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        Self {
            bytes,
            at,
            eof: false,
        }
    }

    fn next(&mut self) -> Option<u8> {
        if self.eof {
            return None;
        }
        match self.bytes.get(self.at) {
            None => {
                self.eof = true;
                Some(b'\n')
            }
            Some(b'\r') if self.bytes.get(self.at + 1) == Some(&b'\n') => {
                self.at += 2;
                Some(b'\n')
            }
            Some(c) => {
                self.at += 1;
                Some(*c)
            }
        }
    }

    /// After `[`: `name]`, `name.sub]` (lowercased) or `name "sub"]` (the
    /// subsection as written).
    fn section(&mut self) -> Option<String> {
        let mut name = String::new();
        loop {
            let c = self.next()?;
            if self.eof {
                return None;
            }
            if c == b']' {
                return (!name.is_empty()).then_some(name);
            }
            if c.is_ascii_whitespace() {
                let mut c = c;
                while c.is_ascii_whitespace() {
                    if c == b'\n' {
                        return None;
                    }
                    c = self.next()?;
                }
                if c != b'"' {
                    return None;
                }
                let mut sub = Vec::new();
                loop {
                    let c = self.next()?;
                    match c {
                        b'\n' => return None,
                        b'"' => break,
                        b'\\' => match self.next()? {
                            b'\n' => return None,
                            e => sub.push(e),
                        },
                        c => sub.push(c),
                    }
                }
                if self.next()? != b']' || name.is_empty() {
                    return None;
                }
                // A subsection of any bytes: what matters is that it is
                // not the key's (which has none), and that an include's
                // section is recognised by its name.
                return Some(format!("{name}.{}", String::from_utf8_lossy(&sub)));
            }
            if !(c.is_ascii_alphanumeric() || c == b'-' || c == b'.') {
                return None;
            }
            name.push(char::from(c.to_ascii_lowercase()));
        }
    }

    /// After `=`: git's `parse_value`.
    fn value(&mut self) -> Option<Vec<u8>> {
        let mut v = Vec::new();
        let mut quote = false;
        let mut comment = false;
        let mut trim: Option<usize> = None;
        loop {
            let c = self.next()?;
            if c == b'\n' {
                if quote {
                    return None;
                }
                if let Some(t) = trim {
                    v.truncate(t);
                }
                return Some(v);
            }
            if comment {
                continue;
            }
            if c.is_ascii_whitespace() && !quote {
                if trim.is_none() {
                    trim = Some(v.len());
                }
                if !v.is_empty() {
                    v.push(c);
                }
                continue;
            }
            if !quote && (c == b';' || c == b'#') {
                comment = true;
                continue;
            }
            trim = None;
            match c {
                b'\\' => {
                    let e = match self.next()? {
                        b'\n' => continue,
                        b't' => b'\t',
                        b'b' => 0x08,
                        b'n' => b'\n',
                        e @ (b'\\' | b'"') => e,
                        _ => return None,
                    };
                    v.push(e);
                }
                b'"' => quote = !quote,
                c => v.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// git's answer for the same files: `HOME` and `XDG_CONFIG_HOME` at
    /// `home`, no system file, the repository at `repo`.
    fn git_answer(repo: &Path, home: &Path) -> Result<bool, String> {
        let out = Command::new("git")
            .current_dir(repo)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("xdg"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["config", "--type=bool", "--get", "probity.keepTrees"])
            .output()
            .unwrap();
        match out.status.code() {
            Some(0) => Ok(out.stdout.trim_ascii() == b"true"),
            Some(1) => Ok(false),
            _ => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        }
    }

    struct Case {
        _dir: tempfile::TempDir,
        repo: PathBuf,
        home: PathBuf,
    }

    fn case() -> Case {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join("xdg/git")).unwrap();
        let st = Command::new("git")
            .args(["init", "-q"])
            .arg(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &home)
            .status()
            .unwrap();
        assert!(st.success());
        Case {
            _dir: dir,
            repo,
            home,
        }
    }

    fn sources(c: &Case) -> Sources {
        Sources {
            system_candidates: Vec::new(),
            global: Some(vec![
                c.home.join("xdg/git/config"),
                c.home.join(".gitconfig"),
            ]),
            local: c.repo.join(".git/config"),
            env_config: false,
        }
    }

    /// Appends `text` to the repository's own file and compares.
    fn local(text: &str) -> (Option<bool>, Result<bool, String>) {
        let c = case();
        let path = c.repo.join(".git/config");
        let mut cfg = std::fs::read(&path).unwrap();
        cfg.extend_from_slice(text.as_bytes());
        std::fs::write(&path, cfg).unwrap();
        (keep_trees(&sources(&c)), git_answer(&c.repo, &c.home))
    }

    #[test]
    fn every_answer_is_gits_or_none() {
        let cases = [
            "",
            "[probity]\n\tkeepTrees = true\n",
            "[probity]\n\tkeepTrees\n",
            "[probity]\n\tkeepTrees =\n",
            "[probity]\n\tkeepTrees = \"\"\n",
            "[Probity]\n\tKEEPTREES = Yes\n",
            "[probity]\n\tkeepTrees = off # on\n",
            "[probity]\n\tkeepTrees = on ; off\n",
            "[probity]\n\tkeepTrees = \"true\"\n",
            "[probity]\n\tkeepTrees = tr\\\nue\n",
            "[probity]\n\tkeepTrees = \"tr\"ue  \n",
            "[probity]\r\n\tkeepTrees = 1\r\n",
            "[probity] keepTrees = true\n",
            "[probity]\n\tkeepTrees = true\n\tkeepTrees = false\n",
            "[probity]\n\tkeepTrees = false\n[probity]\n\tkeepTrees\n",
            "[probity \"x\"]\n\tkeepTrees = true\n",
            "[probity.x]\n\tkeepTrees = true\n",
            "[probity-x]\n\tkeepTrees = true\n",
            "[other]\n\tkeepTrees = true\n",
            "[other]\n\tv = \"[probity]\\n keepTrees\"\n",
            "[other]\n\tv = a \\\n[probity]\n\tkeepTrees = yes\n",
            "# [probity]\n; keepTrees = true\n",
            "[probity]\n\tkeepTrees = maybe\n",
            "[probity]\n\tkeepTrees = 2\n",
            "[probity]\n\tkeepTrees = 1k\n",
            "[probity]\n\tkeepTrees = \\q\n",
            "[probity]\n\tkeepTrees = \"open\n",
            "[probity\n\tkeepTrees = true\n",
            "[probity]\n\t1keepTrees = true\n",
            "[include]\n\tpath = other\n",
            "[includeIf \"onbranch:main\"]\n\tpath = other\n",
            "[extensions]\n\tworktreeConfig = true\n",
            "[probity]\n\tkeepTrees = true",
        ];
        let mut decided = 0;
        for text in cases {
            let (ours, git) = local(text);
            // None: git decides (a value it reads, or its error).
            if let Some(v) = ours {
                decided += 1;
                assert_eq!(Ok(v), git, "{text:?}");
            }
        }
        // Most plain files are read here, not handed to git.
        assert!(decided >= 23, "{decided}");
        // The ones git must read are handed over.
        for text in [
            "[probity]\n\tkeepTrees = 2\n",
            "[probity]\n\tkeepTrees = maybe\n",
            "[probity\n\tkeepTrees = true\n",
            "[include]\n\tpath = other\n",
            "[includeIf \"onbranch:main\"]\n\tpath = other\n",
            "[extensions]\n\tworktreeConfig = true\n",
        ] {
            assert_eq!(local(text).0, None, "{text:?}");
        }
    }

    #[test]
    fn the_last_file_in_gits_order_wins() {
        for (xdg, global, repo) in [
            ("yes", "", ""),
            ("", "yes", ""),
            ("yes", "no", ""),
            ("no", "yes", ""),
            ("yes", "yes", "false"),
            ("no", "", "true"),
        ] {
            let c = case();
            let set = |path: PathBuf, v: &str| {
                if !v.is_empty() {
                    let mut cfg = std::fs::read(&path).unwrap_or_default();
                    cfg.extend_from_slice(format!("[probity]\n\tkeepTrees = {v}\n").as_bytes());
                    std::fs::write(path, cfg).unwrap();
                }
            };
            set(c.home.join("xdg/git/config"), xdg);
            set(c.home.join(".gitconfig"), global);
            set(c.repo.join(".git/config"), repo);
            let ours = keep_trees(&sources(&c));
            assert!(ours.is_some());
            assert_eq!(ours.map(Ok), Some(git_answer(&c.repo, &c.home)));
        }
    }

    #[test]
    fn a_byte_order_mark_opening_a_file_is_skipped_as_git_does() {
        let c = case();
        std::fs::write(
            c.home.join(".gitconfig"),
            "\u{feff}[probity]\n\tkeepTrees = true\n",
        )
        .unwrap();
        assert_eq!(keep_trees(&sources(&c)), Some(true));
        assert_eq!(git_answer(&c.repo, &c.home), Ok(true));
    }

    #[test]
    fn a_system_file_or_home_it_cannot_rule_out_hands_over_to_git() {
        let c = case();
        let system = c.home.join("gitconfig");
        let mut src = sources(&c);
        src.system_candidates = vec![system.clone()];
        std::fs::write(&system, "[core]\n\tautocrlf = false\n").unwrap();
        assert_eq!(keep_trees(&src), Some(false));
        std::fs::write(&system, "[probity]\n\tkeepTrees = true\n").unwrap();
        assert_eq!(keep_trees(&src), None);
        std::fs::write(&system, "[include]\n\tpath = x\n").unwrap();
        assert_eq!(keep_trees(&src), None);
        // A directory where a file is expected: git's to report.
        std::fs::remove_file(&system).unwrap();
        std::fs::create_dir(&system).unwrap();
        assert_eq!(keep_trees(&src), None);
        let mut src = sources(&c);
        src.global = None;
        assert_eq!(keep_trees(&src), None);
        let mut src = sources(&c);
        src.env_config = true;
        assert_eq!(keep_trees(&src), None);
    }
}
