//! The forge invariant of docs/ARCHITECTURE.md ("forge keeps HTTP inside
//! its crate: a timeout on every request, every body bounded before it is
//! parsed, ... the token sent only as a header to the API base"), as a
//! lint over this crate's shipped source: the behavioural tests
//! (`a_stalled_reply_times_out_in_bounded_time`,
//! `responses_are_bounded_before_parsing`,
//! `a_redirect_to_another_host_never_carries_the_token`, one per forge)
//! show that the shared client does so; this scan holds that no request
//! leaves the crate any other way.
//!
//! - `ureq` is named in `src/http.rs` only, which builds one agent, with a
//!   global timeout, no credential on a redirect and https only for an
//!   https base, and nothing else makes an agent or a request;
//! - the agent sends (`.get(`, `.post(`) only in `Client::once`;
//! - every body is read through a bound (`.limit(` or `.take(`) in the
//!   statement that reads it, and JSON is parsed only from the bounded
//!   bytes (`serde_json::from_slice(&resp.body)` in `http.rs`), never from
//!   a reader;
//! - the token is exposed only in `Client::once`, as the `Bearer` value of
//!   the `Authorization` header, and the crate touches no file.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(probity_testkit::sources::rust_files(dir).unwrap());
}

/// `text` without its comments and without its unit tests (a trailing
/// `#[cfg(test)] mod tests`), string and character literals kept.
fn shipped_code(text: &str) -> String {
    let cut = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    let c: Vec<char> = text[..cut].chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                out.push('"');
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        out.push(c[i]);
                        i += 1;
                    }
                    out.push(c[i]);
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            '\'' if c.get(i + 2) == Some(&'\'') => {
                out.extend(&c[i..i + 3]);
                i += 3;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// (file relative to `src/`, shipped code) for every source of the crate.
fn crate_code() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() >= 6, "found too few sources: {files:?}");
    files
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy();
            let text = std::fs::read_to_string(p).unwrap();
            (rel.replace('\\', "/"), shipped_code(&text))
        })
        .collect()
}

/// The name of the function each line of `code` is in (the last `fn NAME`
/// opened above it), by line.
fn enclosing_fns(code: &str) -> Vec<(String, &str)> {
    let mut current = String::from("<module>");
    code.lines()
        .map(|line| {
            if let Some(at) = line.find("fn ") {
                let name: String = line[at + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let starts = at == 0 || !line.as_bytes()[at - 1].is_ascii_alphanumeric();
                if starts && !name.is_empty() {
                    current = name;
                }
            }
            (current.clone(), line)
        })
        .collect()
}

/// The statement of `code` that contains byte offset `at`: from the
/// previous `;`, `{` or `}` to the next `;`.
fn statement_at(code: &str, at: usize) -> &str {
    let start = code[..at].rfind([';', '{', '}']).map_or(0, |s| s + 1);
    let end = code[at..].find(';').map_or(code.len(), |e| at + e);
    &code[start..end]
}

/// What breaks the invariant in the crate's `(file, code)` pairs.
fn breaches(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, code) in files {
        let http = file == "http.rs";
        for (function, line) in enclosing_fns(code) {
            let at = |what: &str| format!("{file} in fn {function}: {what}: {}", line.trim());
            if !http && line.contains("ureq") {
                out.push(at("`ureq` outside http.rs"));
            }
            for file_api in ["std::fs", "File::", "OpenOptions", "fs::write"] {
                if line.contains(file_api) {
                    out.push(at("a file API in the forge crate"));
                }
            }
            if line.contains(".expose()") && !(http && function == "once") {
                out.push(at("the token exposed outside Client::once"));
            }
            if line.contains(".expose()") && !line.contains("format!(\"Bearer {}\"") {
                out.push(at("the token exposed other than as a Bearer value"));
            }
            if line.contains("serde_json::from_reader") {
                out.push(at("JSON parsed from a reader, not from bounded bytes"));
            }
            let parses =
                line.contains("serde_json::from_slice") || line.contains("serde_json::from_str");
            if parses && !(http && line.contains("serde_json::from_slice(&resp.body)")) {
                out.push(at("JSON parsed from something other than a bounded body"));
            }
            let sends = ["agent.get(", "agent.post(", "ureq::get(", "ureq::post("];
            if sends.iter().any(|s| line.contains(s)) && function != "once" {
                out.push(at("a request sent outside Client::once"));
            }
            if line.trim_start().starts_with(".agent") && function != "once" {
                out.push(at("the agent used outside Client::once"));
            }
            for other in [
                "Agent::new",
                "Agent::config_builder",
                "ureq::config::Config::builder",
            ] {
                if line.contains(other)
                    && !(http && function == "new" && other == "Agent::config_builder")
                {
                    out.push(at("an agent made outside Client::new"));
                }
            }
            for unbounded in [
                "read_to_string()",
                "into_reader()",
                "read_json",
                "into_body()",
            ] {
                if line.contains(unbounded) {
                    out.push(at("a body read without a bound"));
                }
            }
        }
        for (at, _) in code.match_indices("body_mut()") {
            let stmt = statement_at(code, at);
            if !(stmt.contains(".limit(") || stmt.contains(".take(")) {
                out.push(format!(
                    "{file}: a body read without a bound: {}",
                    stmt.trim()
                ));
            }
        }
        for (at, _) in code.match_indices("Authorization") {
            let stmt = statement_at(code, at);
            if !stmt.contains(".header(\"Authorization\", a)") {
                out.push(format!(
                    "{file}: the Authorization header set otherwise: {}",
                    stmt.trim()
                ));
            }
        }
    }
    out
}

#[test]
fn every_request_is_the_shared_clients_bounded_timed_and_header_only_for_the_token() {
    let files = crate_code();
    let found = breaches(&files);
    assert!(
        found.is_empty(),
        "HTTP outside the shared client's guarantees:\n{}",
        found.join("\n")
    );
    // The one agent: a global timeout, no credential on a redirect, https
    // only for an https base.
    let (_, http) = files.iter().find(|(f, _)| f == "http.rs").unwrap();
    let agents: Vec<usize> = http
        .match_indices("Agent::config_builder()")
        .map(|(at, _)| at)
        .collect();
    assert_eq!(agents.len(), 1, "one agent configuration in http.rs");
    let config = statement_at(http, agents[0]);
    for setting in [
        ".timeout_global(Some(limits.timeout))",
        ".redirect_auth_headers(ureq::config::RedirectAuthHeaders::Never)",
        ".https_only(base.starts_with(\"https://\"))",
    ] {
        assert!(
            config.contains(setting),
            "the agent lacks {setting}: {config}"
        );
    }
    // Each request is sent, and each body read, in Client::once.
    let fns = enclosing_fns(http);
    let in_once = |needle: &str| {
        fns.iter()
            .filter(|(_, line)| line.contains(needle))
            .map(|(f, _)| f.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(in_once(".call()"), ["once"], "a GET is sent in once only");
    assert_eq!(
        in_once(".send(bytes)"),
        ["once"],
        "a POST is sent in once only"
    );
    assert_eq!(
        in_once(".expose()"),
        ["once"],
        "the token is read in once only"
    );
}

#[test]
fn the_scan_reports_planted_breaches_and_ignores_comments_and_unit_tests() {
    let planted = "\
fn fetch(c: &Client) {
    // ureq::get(url) in a comment is no request
    let r = ureq::get(&format!(\"{}?token={}\", url, t.expose()));
    let v = serde_json::from_reader(r.body_mut().as_reader());
    std::fs::write(\"t\", t.expose());
}
#[cfg(test)]
mod tests {
    fn t() { ureq::get(\"x\"); }
}
";
    let files = vec![("github/mod.rs".to_string(), shipped_code(planted))];
    let found = breaches(&files).join("\n");
    for want in [
        "`ureq` outside http.rs",
        "the token exposed outside Client::once",
        "the token exposed other than as a Bearer value",
        "JSON parsed from a reader",
        "a request sent outside Client::once",
        "a body read without a bound",
        "a file API in the forge crate",
    ] {
        assert!(found.contains(want), "missed {want}:\n{found}");
    }
    assert!(!found.contains("in a comment"), "{found}");
    assert!(!found.contains("fn t"), "a unit test was scanned: {found}");
    // A comment line with `https://` in a string is kept whole.
    assert_eq!(
        shipped_code("let u = \"https://x\"; // c\n"),
        "let u = \"https://x\"; \n"
    );
}
