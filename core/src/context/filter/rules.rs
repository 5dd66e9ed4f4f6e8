//! The detectors: secret and injection patterns (data), the compiled
//! engine and its keyword prefilter.

use std::sync::OnceLock;

use regex::Regex;

use super::*;

/// RE2 `\s`, written explicitly.
pub(super) const WS: &str = r"[\t\n\x0C\r ]";
/// Not RE2 `\s`, as a class body.
pub(super) const NWS: &str = r"\t\n\x0C\r ";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Validate {
    None,
    Ssn,
    Luhn,
    NotMask,
    /// A bare 40-character secret (an AWS secret access key with no name):
    /// mixed case, digits, and the character spread of random base64, so
    /// hex digests and identifiers stay.
    HighEntropy40,
    /// `probity-filter/5`'s secret-named and JSON values: `NotMask`, and
    /// the near-misses of `named_value_kept` are kept (D-R74).
    NamedValue,
    /// `probity-filter/5`'s URL passwords: `NotMask`, and a port followed
    /// by a path (`http://host:80/u/@me`) is not a password (D-R74).
    UrlPassword,
    /// `probity-filter/5`'s token families: not a placeholder (Shannon
    /// entropy of the match at least 3 bits per byte).
    Token,
    /// `curl -u user:password`: `NotMask`, and a password that is empty, a
    /// reference or a placeholder is kept.
    CurlUser,
    /// `probity-filter/6`'s vendor-named values: `NotMask`, and only a
    /// random-looking token that is no reference is masked
    /// (`vendors::vendor_value_kept`).
    VendorValue,
    /// A `.netrc` password: `NotMask`, and a value ending in sentence
    /// punctuation is prose (`password combination.`).
    Netrc,
}

pub(super) struct SecretDetector {
    pub(super) code: &'static str,
    pub(super) keywords: &'static [&'static str],
    pub(super) re: Regex,
    /// Capture group holding the secret (0 = whole match).
    pub(super) group: usize,
    pub(super) validate: Validate,
    /// How the matches of `re` are found (all strategies give exactly the
    /// matches of `re` over the whole text).
    pub(super) search: Search,
    /// For `Search::KeywordLines`: what must follow a keyword occurrence
    /// that lies in a match (see `scan::keyword_may_match`).
    pub(super) follow: Follow,
}

/// What follows the secret name (or the `://`) in every match of a
/// keyword-line detector; a keyword occurrence without it is in no match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Follow {
    /// Not a keyword-line detector.
    Any,
    /// `ENV`: the name's run of `[A-Za-z0-9_.-]`, an optional quote, an
    /// optional `]`, blanks, then `:`, `=` or `?`.
    Env,
    /// `JSON`: the name's run of `[A-Za-z0-9_. -]`, a quote, blanks, `:`.
    Json,
    /// `URL_PASSWORD`: after `://`, bytes other than whitespace, `/` and
    /// `:`, then `:`, then an `@` before the next whitespace, at least one
    /// byte after that `:`.
    Url,
}

impl Follow {
    fn for_pattern(pattern: &str) -> Follow {
        match pattern {
            "ENV" | VENDOR => Follow::Env,
            "JSON" => Follow::Json,
            URL_PASSWORD => Follow::Url,
            _ => Follow::Any,
        }
    }
}

/// How a secret detector's matches are found. Each strategy other than
/// `Regex` is proven for one exact pattern (`Search::for_pattern`); see
/// `scan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Search {
    /// The regex over the whole text.
    Regex,
    /// `AWS_SECRET_KEY`: maximal runs of `[A-Za-z0-9/+]`, 40 or longer.
    Base64Runs,
    /// `SSN`, `DOTTED_CARD`, `CARD_RUN`: line windows at the digit scan's
    /// candidates.
    SsnLines,
    DottedCardLines,
    CardLines,
    /// `SSN_DOTTED`, `SLASHED_CARD` (`probity-filter/5`): line windows at
    /// the digit scan's candidates.
    SsnDotLines,
    SlashedCardLines,
    /// `DISCORD_BOT`: line windows at `dot_token_runs` (every match's
    /// third part is one).
    DotTokenLines,
    /// `ENV`, `JSON`, `URL_PASSWORD`: line windows at the detector's own
    /// keywords (every match holds one of them on the line where it
    /// starts: the secret name, or `://`; only a triple-quoted value runs
    /// over lines).
    KeywordLines,
}

impl Search {
    fn for_pattern(pattern: &str) -> Search {
        match pattern {
            AWS_SECRET_KEY => Search::Base64Runs,
            SSN => Search::SsnLines,
            DOTTED_CARD => Search::DottedCardLines,
            CARD_RUN => Search::CardLines,
            SSN_DOTTED => Search::SsnDotLines,
            SLASHED_CARD => Search::SlashedCardLines,
            DISCORD_BOT => Search::DotTokenLines,
            "ENV" | "JSON" | VENDOR | URL_PASSWORD => Search::KeywordLines,
            _ => Search::Regex,
        }
    }
}

/// The start of an IBAN: found by `digit_scan` (exactly this pattern's
/// matches). No boundary before the country code (`xDE89…`, `IBAN_DE89…`).
#[cfg(test)]
pub(super) const IBAN_START: &str = r"[A-Za-z]{2}[0-9]{2}";

/// Patterns with a search strategy of their own (see `Search`).
pub(super) const AWS_SECRET_KEY: &str = r"[A-Za-z0-9/+]{40,}";
pub(super) const SSN: &str =
    r"(?-u:\b)(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{3} [0-9]{2} [0-9]{4})(?-u:\b)";
pub(super) const DOTTED_CARD: &str = r"(?-u:\b)[0-9]{4}\.[0-9]{4}\.[0-9]{4}\.[0-9]{1,7}(?-u:\b)";
pub(super) const CARD_RUN: &str = r"[0-9](?:[ -]?[0-9]){12,}";
pub(super) const URL_PASSWORD: &str =
    r"[A-Za-z][A-Za-z0-9+.-]*://[^\t\n\x0C\r /:]*:([^\t\n\x0C\r ]+)@";

pub(super) struct InjectionDetector {
    pub(super) code: &'static str,
    pub(super) keywords: &'static [&'static str],
    pub(super) re: Regex,
    /// When every match of `re` begins with one of a few literals (ASCII
    /// case-insensitive; see `injection_starts`): `re` anchored at the start
    /// of a haystack (`\A(?:re)`), and anchored one character after it
    /// (`\A(?s:.)(?:re)`, so look-behind sees the character before a
    /// candidate start). See `injection::count_matches`.
    pub(super) anchored: Option<(Regex, Regex)>,
}

pub(super) struct Engine {
    pub(super) secrets: Vec<SecretDetector>,
    pub(super) injections: Vec<InjectionDetector>,
    /// The opening of a hidden container (`<!--` or a hiding tag); its end
    /// is found by hand (`hidden_containers`).
    pub(super) hidden_open: Regex,
    /// The same opening ending at the tag's first `>` (anchored to a slice
    /// that ends there), for a `hidden_open` match that ran past it.
    pub(super) hidden_open_first_gt: Regex,
    pub(super) hidden_instruction: Regex,
    /// Prefilter: keyword automaton; pattern i belongs to `owners[i]`. The
    /// pipeline walks `keywords` (the same automaton as a flat table); the
    /// tests compare the two.
    #[cfg(test)]
    pub(super) prefilter: AhoCorasick,
    pub(super) owners: Vec<Owner>,
    /// The length in bytes of the longest keyword or start literal.
    pub(super) max_keyword_len: usize,
    /// The keywords of `prefilter` (same indices, same owners), then the
    /// start literals of the injection detectors (`start_owners`), as one
    /// flat automaton: what `triggered` walks.
    pub(super) keywords: KeywordDfa,
    /// Pattern `prefilter_len + k` of `keywords` is a start literal of
    /// injection detector `start_owners[k]`.
    pub(super) start_owners: Vec<usize>,
    pub(super) prefilter_len: usize,
    /// For each match state `k` of `keywords`: the bits (`Engine::bit`) of
    /// the owners of its patterns and of the detectors its start literals
    /// belong to.
    pub(super) state_bits: Vec<u128>,
    /// The byte classes of the scans.
    pub(super) classes: Classes,
}

#[derive(Clone, Copy)]
pub(super) enum Owner {
    Secret(usize),
    Injection(usize),
}

pub(super) fn compile(detector: &str, pattern: &str) -> Result<Regex, FilterError> {
    Regex::new(pattern).map_err(|e| FilterError::DetectorUnavailable {
        detector: detector.to_owned(),
        reason: e.to_string(),
    })
}

pub(super) fn expand(p: &str) -> String {
    p.replace("{WS}", WS).replace("{NWS}", NWS)
}

pub(super) type SecretSpec = (
    &'static str,
    &'static [&'static str],
    &'static str,
    usize,
    Validate,
);

/// A name containing a secret word anywhere.
pub(super) const SECRET_NAME: &str = r"[A-Za-z0-9_.-]*(?i-u:secret|token|passwd|password|passphrase|pwd|api[_-]?key|access[_-]?key|private[_-]?key|signing[_-]?key|credentials?|client[_-]?secret)[A-Za-z0-9_.-]*";
/// A compound name with a whole `pass` or `auth` segment (`DB_PASS`,
/// `smtp.pass`, `pass-file`, `registry_auth`); `passive`, `compass`, `bypass`,
/// `author`, `oauth` have no such segment.
pub(super) const SEGMENT_NAME: &str = r"(?:[A-Za-z0-9_.-]*[_.-](?i-u:pass|auth)(?:[_.-][A-Za-z0-9_.-]*)?|(?i-u:pass|auth)[_.-][A-Za-z0-9_.-]*)";

pub(super) fn injection_specs() -> Vec<(&'static str, &'static [&'static str], &'static str)> {
    vec![
        (
            "injection.instruction_override",
            &["ignore", "disregard", "forget", "override", "bypass"],
            r"(?i:(?-u:\b)(?:ignore|disregard|forget|override|bypass)(?:{WS}+(?:all|any|the|your|my|these|those|of|previous|prior|above|earlier|preceding|foregoing|system|developer|original|initial|safety))+{WS}+(?:instructions?|prompts?|rules|directions|guidelines|directives|guardrails|constraints|context|messages?)(?-u:\b)|(?-u:\b)(?:ignore|disregard|forget){WS}+(?:everything|all){WS}+(?:above|before|previously|you{WS}+(?:were|have{WS}+been){WS}+told))",
        ),
        (
            "injection.system_prompt",
            &["system", "im_start", "<<sys"],
            r"(?i:(?-u:\b)(?:new|updated|replacement|real|true|actual|revised|secret|hidden)(?:{WS}+(?:the|your))?{WS}+system{WS}+(?:prompt|message|instructions?)(?-u:\b)|(?-u:\b)(?:replace|override|overwrite|change|reset)(?:{WS}+(?:the|your))?{WS}+system{WS}+(?:prompt|message|instructions?)(?-u:\b)|<\|?im_start\|?>{WS}*system|<</?sys>>|</?system(?:[-_ ]prompt)?>|(?-u:\b)system{WS}+prompt{WS}*:)",
        ),
        (
            "injection.unrestricted_role",
            &[
                "you are now",
                "act as",
                "pretend",
                "roleplay",
                "mode",
                "do anything now",
            ],
            r"(?i:(?-u:\b)(?:you{WS}+are{WS}+now|act{WS}+as|pretend{WS}+(?:to{WS}+be|you{WS}+are)|roleplay{WS}+as|from{WS}+now{WS}+on{WS}+you{WS}+are)(?:{WS}+(?:an?|the))?{WS}+(?:unrestricted|unfiltered|uncensored|jailbroken|dan|evil|unlimited|unaligned|developer{WS}+mode)(?-u:\b)|(?-u:\b)(?:dan|developer|god|jailbreak){WS}+mode{WS}+(?:enabled|activated|on)(?-u:\b)|(?-u:\b)do{WS}+anything{WS}+now(?-u:\b))",
        ),
        (
            "injection.concealment",
            &[
                "tell",
                "inform",
                "mention",
                "reveal",
                "without",
                "secret from",
                "hide",
            ],
            r"(?i:(?-u:\b)(?:do{WS}+not|don't|dont|never)(?:{WS}+(?:ever|tell|inform|mention|reveal|show|let|notify|alert|disclose))+(?:{WS}+(?:this|it|anything))?(?:{WS}+to)?(?:{WS}+the)?{WS}+(?:user|users|human|humans|maintainers?|reviewers?|operators?|owner)(?-u:\b)|(?-u:\b)without{WS}+(?:telling|informing|notifying|alerting)(?:{WS}+the)?{WS}+(?:user|users|human|maintainers?|reviewers?|operators?)(?-u:\b)|(?-u:\b)(?:keep|hide){WS}+(?:this|it){WS}+(?:a{WS}+)?(?:secret{WS}+)?from(?:{WS}+the)?{WS}+(?:user|users|human|maintainers?|reviewers?)(?-u:\b))",
        ),
        (
            "injection.exfiltration",
            &[
                "ssh",
                "id_rsa",
                "id_ed25519",
                "credentials",
                "netrc",
                "npmrc",
                "pypirc",
                "git-credentials",
                "kube",
                "shadow",
                "environment",
                "env var",
                "printenv",
                "process.env",
                "environ",
                "token",
                "secret",
            ],
            r"(?i:(?-u:\b)(?:send|upload|post|exfiltrate|leak|email|transmit|forward|cat|print|dump|reveal|show|output|echo|read|copy|paste|share|include|attach)(?:{WS}+(?:me|us|the|all|your|out|of|contents|content))*{WS}+(?:~/\.ssh|\.ssh/|id_rsa|id_ed25519|~?/?\.aws/credentials|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker/config\.json|\.kube/config|/etc/shadow|environment{WS}+variables|env{WS}+vars|printenv|process\.env|os\.environ|(?:github|gitlab|ci|api|access){WS}*_?tokens?|secrets(?-u:\b)|api{WS}+keys|credentials(?-u:\b))|(?-u:\b)(?:curl|wget)(?-u:\b)[^\n]{0,200}\$\{?[A-Za-z_]*(?:token|secret|key|password|passwd)|(?-u:\b)(?:curl|wget)(?-u:\b)[^\n]{0,200}\$\({WS}*(?:env|printenv|cat{WS}+[^)]*(?:\.ssh|credentials|\.netrc|\.env)))",
        ),
        (
            "injection.translate_execute",
            &[
                "translate",
                "decode",
                "decipher",
                "deobfuscate",
                "rot13",
                "base64",
                "unscramble",
            ],
            r"(?i:(?-u:\b)(?:translate|decode|decipher|deobfuscate|unscramble|rot13|base64[- ]?decode)(?-u:\b)[^\n]{0,120}?(?-u:\b)(?:and|then)(?:{WS}+then)?{WS}+(?:execute|run|follow|obey|perform|carry{WS}+out|act{WS}+on|do)(?:{WS}+(?:the|its|all))?{WS}+(?:result|resulting|instructions?|it|them|output|decoded|translated|commands?|text|message|content)(?-u:\b))",
        ),
    ]
}

/// Literals every match of an injection detector begins with (ASCII case
/// insensitively), or none. Each list is read off the pattern's top-level
/// alternatives in `injection_specs`: every alternative opens with
/// `(?-u:\b)` and a group of words, and each word begins with one of these.
/// The patterns are Unicode case-insensitive, so a literal may also be
/// spelled with U+017F or U+212A for `s` or `k` (`poſt`); the ASCII search
/// misses those, so `injection::count_matches` leaves a text holding either
/// to the regex. (No match begins with one: `(?-u:\b)` needs an ASCII word
/// byte there.)
pub(super) fn injection_starts(code: &str) -> &'static [&'static str] {
    match code {
        "injection.instruction_override" => {
            &["ignore", "disregard", "forget", "override", "bypass"]
        }
        "injection.exfiltration" => &[
            "send",
            "upload",
            "post",
            "exfiltrate",
            "leak",
            "email",
            "transmit",
            "forward",
            "cat",
            "print",
            "dump",
            "reveal",
            "show",
            "output",
            "echo",
            "read",
            "copy",
            "paste",
            "share",
            "include",
            "attach",
            "curl",
            "wget",
        ],
        "injection.translate_execute" => &[
            "translate",
            "decode",
            "decipher",
            "deobfuscate",
            "unscramble",
            "rot13",
            "base64",
        ],
        _ => &[],
    }
}

/// A quoted value: triple-quoted (to the closing triple quote or the end of
/// the value, lines included), then single or double quotes (escapes
/// included; the closing quote is optional so an unterminated value is
/// masked to the end of the line).
pub(super) const QUOTED_VALUE: &str = r##""""((?s:.+?))(?:"""|\z)|'''((?s:.+?))(?:'''|\z)|"((?:[^"\\\n]|\\[^\n]?)+)"?|'((?:[^'\\\n]|\\[^\n]?)+)'?"##;
/// A JSON (or Python-literal) key naming a secret: a secret word anywhere
/// (spaces allowed inside the quoted key: `"DB Password"`), a `pass`/`auth`
/// segment, or exactly `pass`/`auth`; its string or number value.
pub(super) const JSON_SECRET: &str =
    r#"["'](?:JNAME|SEGMENT|(?i-u:pass|auth))["'][ \t]*:[ \t]*(?:QUOTED|(-?[0-9][0-9A-Za-z.+-]*))"#;
/// Assignment operators with the blanks after them: `:=`, `=>`, `?=`, `:`,
/// `=`, and the comparisons ` == `/` === ` (`OPS_EQ` without `:`). `:=` and
/// `=>` need a blank after them (a comparison one on each side): glued
/// to the value (`NAME=>abc`, `NAME:=abc`) they are `=`/`:` and the value
/// starts with `>`/`=`, so no byte of such a value is left unmasked.
pub(super) const OPS: &str = r"(?:(?::=|=>)[ \t]+|[ \t]===?[ \t]+|\?=[ \t]*|[:=][ \t]*)";
pub(super) const OPS_EQ: &str = r"(?:(?::=|=>)[ \t]+|[ \t]===?[ \t]+|\?=[ \t]*|=[ \t]*)";
/// A YAML core string tag before a value (`password: !!str hunter2`). Only
/// `!!str` and `!!binary`: a value such as `!abc` is not taken for a tag.
pub(super) const YAML_TAG: &str = r"(?:!!(?:str|binary)[ \t]+)?";
/// `NAME=value` / `NAME: value` / `NAME := value` / `NAME => value` /
/// `NAME ?= value`, the name optionally closed by a quote and/or a bracket
/// (`$config['db_password'] = …`, `'password' => …`; a quoted name followed
/// by a bare `:` is the JSON detector's). The bare names `pass`/`auth` count
/// with `=`-style operators in any case but with `:` only in lower case, so
/// test-runner lines such as `--- PASS: TestName` are not secrets. A bare
/// value runs to whitespace.
pub(super) const ENV_SECRET: &str = r#"(?-u:\b)(?:(?:NAME|SEGMENT)(?:[ \t]*?OPS|["']?\][ \t]*?OPS|["'][ \t]*?OPS_EQ)|(?i-u:pass|auth)(?:["']?\]|["'])?[ \t]*?OPS_EQ|(?:pass|auth)[ \t]*:[ \t]*)YAML_TAG(?:QUOTED|([^\t\n\x0C\r "'][^\t\n\x0C\r ]*))"#;
/// An Authorization header, also written as code (`headers["Authorization"]
/// = …`, `setRequestHeader('Authorization', …)`): the whole quoted header
/// value, or the scheme and its credential made of quoted and bare pieces up
/// to whitespace (`Bearer 'abc'def`), or a Digest header to the end of the
/// line, or a bare credential of at least 8 bytes. A comma separates the
/// name from its value only after a quoted name.
pub(super) const AUTHORIZATION: &str = r#"(?i-u:(?:proxy-)?authorization)(?:["']?\]?[ \t]*(?:=>|[:=])|["'][ \t]*,)[ \t]*(?:["']?((?i-u:digest)[ \t]+[^\n]+)|"(SCHEME[ \t]+(?:[^"\\\n]|\\[^\n]?)*)"?|'(SCHEME[ \t]+(?:[^'\\\n]|\\[^\n]?)*)'?|(SCHEME[ \t]+(?:"(?:[^"\\\n]|\\[^\n]?)*"?|'(?:[^'\\\n]|\\[^\n]?)*'?|[^\t\n\x0C\r "']+)+)|["']?([^\t\n\x0C\r "']{8,}))"#;
pub(super) const AUTH_SCHEME: &str = r"(?i-u:bearer|basic|token|bot|apikey|negotiate|ntlm)";

pub(super) fn build_engine(version: FilterVersion) -> Result<Engine, FilterError> {
    let mut secrets = Vec::new();
    let mut keywords: Vec<String> = Vec::new();
    let mut owners = Vec::new();
    let specs = match version {
        FilterVersion::V4 => secret_specs(),
        FilterVersion::V5 => secret_specs_v5(),
        FilterVersion::V6 => secret_specs_v6(),
    };
    for (i, (code, kws, spec, group, validate)) in specs.into_iter().enumerate() {
        let pat = match spec {
            "JSON" => JSON_SECRET
                .replace("QUOTED", QUOTED_VALUE)
                .replace("SEGMENT", SEGMENT_NAME)
                .replace(
                    "JNAME",
                    &SECRET_NAME.replace("[A-Za-z0-9_.-]", "[A-Za-z0-9_. -]"),
                ),
            "ENV" => ENV_SECRET
                .replace("QUOTED", QUOTED_VALUE)
                .replace("YAML_TAG", YAML_TAG)
                .replace("SEGMENT", SEGMENT_NAME)
                .replace("NAME", SECRET_NAME)
                .replace("OPS_EQ", OPS_EQ)
                .replace("OPS", OPS),
            "AUTH" => AUTHORIZATION.replace("SCHEME", AUTH_SCHEME),
            VENDOR => vendor_pattern(),
            p => expand(p),
        };
        secrets.push(SecretDetector {
            code,
            keywords: kws,
            re: compile(code, &pat)?,
            group,
            validate,
            search: Search::for_pattern(spec),
            follow: Follow::for_pattern(spec),
        });
        for k in kws {
            keywords.push((*k).to_owned());
            owners.push(Owner::Secret(i));
        }
    }
    let mut injections = Vec::new();
    for (i, (code, kws, pat)) in injection_specs().into_iter().enumerate() {
        let pat = expand(pat);
        let anchored = if injection_starts(code).is_empty() {
            None
        } else {
            Some((
                compile(code, &format!(r"\A(?:{pat})"))?,
                compile(code, &format!(r"\A(?s:.)(?:{pat})"))?,
            ))
        };
        injections.push(InjectionDetector {
            code,
            keywords: kws,
            re: compile(code, &pat)?,
            anchored,
        });
        for k in kws {
            keywords.push((*k).to_owned());
            owners.push(Owner::Injection(i));
        }
    }
    for k in ["<!--", "display", "hidden", "opacity", "font-size"] {
        keywords.push(k.to_owned());
        owners.push(Owner::Injection(usize::MAX));
    }
    if secrets.len() + 2 * injections.len() + 1 > 128 {
        return Err(FilterError::DetectorUnavailable {
            detector: "prefilter".into(),
            reason: "more detectors than bits".into(),
        });
    }
    let prefilter_len = keywords.len();
    let mut all = keywords.clone();
    let mut start_owners = Vec::new();
    for (i, d) in injections.iter().enumerate() {
        for k in injection_starts(d.code) {
            all.push((*k).to_owned());
            start_owners.push(i);
        }
    }
    let max_keyword_len = all.iter().map(String::len).max().unwrap_or(0);
    let keywords_dfa =
        KeywordDfa::new(&all).map_err(|reason| FilterError::DetectorUnavailable {
            detector: "prefilter".into(),
            reason,
        })?;
    let (s_len, i_len) = (secrets.len(), injections.len());
    let state_bits = (0..keywords_dfa.match_states())
        .map(|k| {
            keywords_dfa
                .patterns(k)
                .iter()
                .fold(0u128, |bits, &(p, _)| {
                    let p = p as usize;
                    let bit = match owners.get(p) {
                        Some(&o) => owner_bit(s_len, i_len, o),
                        None => {
                            let d = p
                                .checked_sub(prefilter_len)
                                .and_then(|k| start_owners.get(k));
                            s_len + i_len + 1 + d.copied().unwrap_or(0)
                        }
                    };
                    bits | (1u128 << bit)
                })
        })
        .collect();
    #[cfg(test)]
    let prefilter = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .match_kind(MatchKind::Standard)
        .build(&keywords)
        .map_err(|e| FilterError::DetectorUnavailable {
            detector: "prefilter".into(),
            reason: e.to_string(),
        })?;
    Ok(Engine {
        secrets,
        injections,
        hidden_open: compile(
            "injection.hidden_html",
            r#"(?is:<!--|<([a-z][a-z0-9]*)(?-u:\b)[^>]*(?:display[ \t]*:[ \t]*none|visibility[ \t]*:[ \t]*hidden|font-size[ \t]*:[ \t]*0(?:px|em|rem|pt)?[ \t]*[;"']|opacity[ \t]*:[ \t]*0(?:\.0+)?[ \t]*[;"']|[ \t]hidden(?:[ \t>=]|$))[^>]*>)"#,
        )?,
        hidden_open_first_gt: compile(
            "injection.hidden_html",
            r#"\A(?is:<[a-z][a-z0-9]*(?-u:\b)[^>]*(?:display[ \t]*:[ \t]*none|visibility[ \t]*:[ \t]*hidden|font-size[ \t]*:[ \t]*0(?:px|em|rem|pt)?[ \t]*[;"']|opacity[ \t]*:[ \t]*0(?:\.0+)?[ \t]*[;"']|[ \t]hidden[ \t=])[^>]*>)\z"#,
        )?,
        hidden_instruction: compile(
            "injection.hidden_html",
            &expand(
                r"(?i:(?-u:\b)(?:you|assistant|ai|agent|llm|model|bot|claude|gpt|copilot)(?-u:\b)[^\n<]{0,40}?(?-u:\b)(?:must|should|shall|need{WS}+to|are{WS}+required{WS}+to|will{WS}+now|have{WS}+to)(?-u:\b)|(?-u:\b)(?:instructions?|directive|note|attention)(?:{WS}+(?:to|for)(?:{WS}+the)?{WS}+(?:ai|llm|assistant|agent|model|bot))?{WS}*:|(?-u:\b)(?:ai|llm|assistant|agent|model)(?-u:\b){WS}*:)",
            ),
        )?,
        #[cfg(test)]
        prefilter,
        owners,
        max_keyword_len,
        keywords: keywords_dfa,
        start_owners,
        prefilter_len,
        state_bits,
        classes: Classes::new(),
    })
}

/// The engine of the current filter version.
#[cfg(test)]
pub(super) fn engine() -> Result<&'static Engine, FilterError> {
    engine_for(FilterVersion::CURRENT)
}

/// The engine of filter version `version`, built once.
pub(super) fn engine_for(version: FilterVersion) -> Result<&'static Engine, FilterError> {
    static V4: OnceLock<Result<Engine, FilterError>> = OnceLock::new();
    static V5: OnceLock<Result<Engine, FilterError>> = OnceLock::new();
    static V6: OnceLock<Result<Engine, FilterError>> = OnceLock::new();
    let cell = match version {
        FilterVersion::V4 => &V4,
        FilterVersion::V5 => &V5,
        FilterVersion::V6 => &V6,
    };
    cell.get_or_init(|| build_engine(version))
        .as_ref()
        .map_err(Clone::clone)
}

/// The bit of a prefilter owner in `Engine::state_bits`: secret detectors
/// from 0, then injection detectors, then the hidden-container keywords;
/// after those, one bit per injection detector for its start literals.
fn owner_bit(secrets: usize, injections: usize, o: Owner) -> usize {
    match o {
        Owner::Secret(i) => i,
        Owner::Injection(usize::MAX) => secrets + injections,
        Owner::Injection(i) => secrets + i,
    }
}

impl Engine {
    fn start_bit(&self, d: usize) -> u128 {
        1u128 << (self.secrets.len() + self.injections.len() + 1 + d)
    }

    /// The owner of pattern `p` of `keywords`, if it is a keyword.
    fn owner(&self, p: usize) -> Option<Owner> {
        self.owners.get(p).copied()
    }

    /// The injection detector of pattern `p` of `keywords`, if it is a
    /// start literal.
    fn start_owner(&self, p: usize) -> Option<usize> {
        p.checked_sub(self.prefilter_len)
            .and_then(|k| self.start_owners.get(k))
            .copied()
    }
}

/// Which detectors the keyword prefilter lets through for this text, and
/// where the keywords occur.
#[derive(Clone)]
pub(super) struct Triggered {
    pub(super) secrets: Vec<bool>,
    pub(super) injections: Vec<bool>,
    pub(super) hidden: bool,
    /// A fresh pass: every match event of the walk over the text, (end,
    /// match state of `Engine::keywords`), in order of end.
    events: Vec<(usize, u32)>,
    /// After `triggered_after`: the occurrences of start literals in the
    /// new text, (pattern, start, end), in order, without repeats (what the
    /// injection stage reads; `events` is then empty).
    starts: Vec<(usize, usize, usize)>,
}

impl Triggered {
    fn none(e: &Engine) -> Triggered {
        Triggered {
            secrets: e.secrets.iter().map(|d| d.keywords.is_empty()).collect(),
            injections: e.injections.iter().map(|d| d.keywords.is_empty()).collect(),
            hidden: false,
            events: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// Marks the owners whose bits are set.
    fn mark_bits(&mut self, bits: u128) {
        let (s, i) = (self.secrets.len(), self.injections.len());
        for (k, slot) in self.secrets.iter_mut().enumerate() {
            *slot |= bits >> k & 1 == 1;
        }
        for (k, slot) in self.injections.iter_mut().enumerate() {
            *slot |= bits >> (s + k) & 1 == 1;
        }
        self.hidden |= bits >> (s + i) & 1 == 1;
    }

    /// Start positions of the keywords of secret detector `d`, in order.
    #[cfg(test)]
    pub(super) fn secret_keyword_starts(&self, e: &Engine, d: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .secret_keyword_hits(e, d)
            .into_iter()
            .map(|(a, _)| a)
            .collect();
        v.dedup();
        v
    }

    /// The occurrences `(start, end)` of the keywords of secret detector
    /// `d` in a freshly scanned text, in order.
    pub(super) fn secret_keyword_hits(&self, e: &Engine, d: usize) -> Vec<(usize, usize)> {
        let bit = 1u128 << d;
        let mut v: Vec<(usize, usize)> = Vec::with_capacity(16);
        for &(end, k) in &self.events {
            if e.state_bits.get(k as usize).is_some_and(|b| b & bit != 0) {
                for &(p, len) in e.keywords.patterns(k as usize) {
                    if matches!(e.owner(p as usize), Some(Owner::Secret(i)) if i == d) {
                        v.push((end - len as usize, end));
                    }
                }
            }
        }
        v.sort_unstable();
        v
    }

    /// Start positions of the start literals of injection detector `d`, in
    /// order, without repeats.
    pub(super) fn injection_starts(&self, e: &Engine, d: usize) -> Vec<usize> {
        let bit = e.start_bit(d);
        let mut v: Vec<usize> = Vec::new();
        for &(end, k) in &self.events {
            if e.state_bits.get(k as usize).is_some_and(|b| b & bit != 0) {
                for &(p, len) in e.keywords.patterns(k as usize) {
                    if e.start_owner(p as usize) == Some(d) {
                        v.push(end - len as usize);
                    }
                }
            }
        }
        v.extend(
            self.starts
                .iter()
                .filter(|&&(p, _, _)| e.start_owner(p) == Some(d))
                .map(|&(_, a, _)| a),
        );
        v.sort_unstable();
        v.dedup();
        v
    }
}

pub(super) fn triggered(e: &Engine, s: &str) -> Triggered {
    let mut t = Triggered::none(e);
    let mut bits = 0u128;
    // Prose holds an event every few dozen bytes: room for one every 32
    // bytes saves most texts a reallocation.
    let mut events = Vec::with_capacity(s.len() / 32 + 8);
    e.keywords.each_event(s.as_bytes(), |k, end| {
        bits |= e.state_bits.get(k).copied().unwrap_or(0);
        events.push((end, k as u32));
    });
    t.mark_bits(bits);
    t.events = events;
    t
}

/// A replacement the redaction made: `source` bytes of the text it read
/// became `output` bytes of the text it wrote.
pub(super) struct Edit {
    pub(super) source: (usize, usize),
    pub(super) output: (usize, usize),
}

/// `triggered(e, out)` for a text `out` made from the text `before` was
/// computed on by the replacements `edits` (in order, not overlapping):
/// the keywords wholly inside unchanged bytes are those of `before`; any
/// other keyword of `out` overlaps a replacement, so it lies within the
/// longest keyword's length of one, where `out` is searched again. Of the
/// positions, only the start literals' are kept (`Triggered::starts`).
pub(super) fn triggered_after(
    e: &Engine,
    before: &Triggered,
    out: &str,
    edits: &[Edit],
) -> Triggered {
    let mut t = Triggered::none(e);
    let mut bits = 0u128;
    let mut starts: Vec<(usize, usize, usize)> = Vec::new();
    let start_bits = (0..e.injections.len()).fold(0u128, |b, d| b | e.start_bit(d));
    // Where a byte at `x` of `before`, after the first `j` edits and
    // before the next, is in `out`: it keeps its distance from the end of
    // edit `j - 1`.
    let moved = |j: usize, x: usize| match j.checked_sub(1).and_then(|j| edits.get(j)) {
        Some(ed) => ed.output.1 + (x - ed.source.1),
        None => x,
    };
    // Keywords of `before` that touch no replaced byte: for a keyword at
    // `a..z`, the first edit ending after `a` begins at or after `z`.
    // `k`: the first edit ending after `end - max_keyword_len`, a bound
    // below every start of an event's patterns.
    let mut k = 0;
    for &(end, st) in &before.events {
        let floor = end.saturating_sub(e.max_keyword_len);
        while edits.get(k).is_some_and(|ed| ed.source.1 <= floor) {
            k += 1;
        }
        let Some(&state) = e.state_bits.get(st as usize) else {
            continue;
        };
        let all_clear = edits.get(k).is_none_or(|ed| end <= ed.source.0);
        if all_clear && state & start_bits == 0 {
            bits |= state;
            continue;
        }
        for &(p, len) in e.keywords.patterns(st as usize) {
            let (p, a) = (p as usize, end - len as usize);
            let mut j = k;
            while edits.get(j).is_some_and(|ed| ed.source.1 <= a) {
                j += 1;
            }
            if edits.get(j).is_some_and(|ed| end > ed.source.0) {
                continue;
            }
            match e.owner(p) {
                Some(o) => bits |= 1u128 << owner_bit(e.secrets.len(), e.injections.len(), o),
                None => {
                    let at = moved(j, a);
                    starts.push((p, at, at + len as usize));
                }
            }
        }
    }
    let reach = e.max_keyword_len.saturating_sub(1);
    let bytes = out.as_bytes();
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for ed in edits {
        let w = (
            ed.output.0.saturating_sub(reach),
            (ed.output.1 + reach).min(bytes.len()),
        );
        match windows.last_mut() {
            Some(last) if w.0 <= last.1 => last.1 = last.1.max(w.1),
            _ => windows.push(w),
        }
    }
    // Every occurrence in a window either overlaps a replacement or lies
    // in unchanged bytes (then it was kept above): duplicates go below.
    for (a, b) in windows {
        e.keywords
            .each_match(&bytes[a..b], |p, x, z| match e.owner(p) {
                Some(o) => bits |= 1u128 << owner_bit(e.secrets.len(), e.injections.len(), o),
                None => starts.push((p, a + x, a + z)),
            });
    }
    t.mark_bits(bits);
    starts.sort_unstable_by_key(|&(p, a, z)| (a, z, p));
    starts.dedup();
    t.starts = starts;
    t
}
