//! The `probity-filter/4` pipeline as it was before the fast paths
//! (commit ea43130): every detector's regex over the whole text, the
//! keyword prefilter run for each stage, a copy between stages. The tests
//! check that the pipeline emits exactly what this reference emits.

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use super::super::{
    CredentialRegistry, Engine, FilterError, FilterStatus, FilterSummary, Filtered, Findings,
    IBAN_START, MASK_PREFIX, Owner, Span, Validate, capture_refused, card_windows, engine,
    escape_len, floor_char_boundary, hidden_containers, iban_at, needs_strip, removed_class,
    whole_match_kept,
};

/// CRLF and lone CR become LF (D5: normalization, not modification).
pub(super) fn normalize_line_endings(s: &str) -> String {
    if !s.contains('\r') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\r' {
            if it.peek() == Some(&'\n') {
                it.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// Removes terminal escape sequences, NUL, controls, floor classes,
/// U+2028/U+2029 and other `Cf` characters, recording each.
fn strip_unsafe(s: &str, f: &mut Findings) -> String {
    if !needs_strip(s) {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let (mut i, mut run) = (0, 0);
    while i < b.len() {
        let byte = b[i];
        if (0x20..0x7F).contains(&byte) || byte == b'\t' || byte == b'\n' {
            i += 1;
            continue;
        }
        if byte == 0x1B {
            out.push_str(&s[run..i]);
            i += 1 + escape_len(&b[i + 1..]);
            run = i;
            f.add("unicode.terminal_escape", 1);
            continue;
        }
        // `i` is on a char boundary: it only advances by whole chars.
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        if let Some(code) = removed_class(c) {
            out.push_str(&s[run..i]);
            f.add(code, 1);
            i += c.len_utf8();
            run = i;
        } else {
            i += c.len_utf8();
        }
    }
    out.push_str(&s[run..]);
    out
}

/// Unicode safety: strip, then NFKC (reported), to a fixed point.
fn unicode_safety(s: &str, f: &mut Findings) -> Result<String, FilterError> {
    let mut cur = strip_unsafe(s, f);
    for _ in 0..4 {
        if cur.is_ascii() {
            return Ok(cur);
        }
        let quick = unicode_normalization::is_nfkc_quick(cur.chars());
        if quick == unicode_normalization::IsNormalized::Yes {
            return Ok(cur);
        }
        let n: String = cur.nfkc().collect();
        if n == cur {
            return Ok(cur);
        }
        f.add("unicode.nfkc", 1);
        cur = strip_unsafe(&n, f);
    }
    Err(FilterError::UnicodeNotConverged)
}

/// Which detectors the keyword prefilter lets through for this text.
struct Triggered {
    secrets: Vec<bool>,
    injections: Vec<bool>,
    hidden: bool,
}

fn triggered(e: &Engine, s: &str) -> Triggered {
    let total = e.secrets.len() + e.injections.len() + 1;
    let mut seen = 0;
    let mut t = Triggered {
        secrets: e.secrets.iter().map(|d| d.keywords.is_empty()).collect(),
        injections: e.injections.iter().map(|d| d.keywords.is_empty()).collect(),
        hidden: false,
    };
    seen += t.secrets.iter().filter(|x| **x).count();
    for m in e.prefilter.find_overlapping_iter(s) {
        let slot = match e.owners[m.pattern().as_usize()] {
            Owner::Secret(i) => &mut t.secrets[i],
            Owner::Injection(usize::MAX) => &mut t.hidden,
            Owner::Injection(i) => &mut t.injections[i],
        };
        if !*slot {
            *slot = true;
            seen += 1;
            if seen == total {
                break;
            }
        }
    }
    t
}

fn secret_spans(e: &Engine, creds: &CredentialRegistry, s: &str) -> Vec<Span> {
    let t = triggered(e, s);
    let mut spans = Vec::new();
    for (p, d) in e.secrets.iter().enumerate() {
        if !t.secrets[p] {
            continue;
        }
        if d.group == 0 {
            for m in d.re.find_iter(s) {
                if matches!(d.validate, Validate::Luhn) {
                    for (a, b) in card_windows(m.as_str()) {
                        spans.push(Span {
                            start: m.start() + a,
                            end: m.start() + b,
                            priority: p,
                            code: d.code,
                        });
                    }
                    continue;
                }
                if whole_match_kept(d.validate, m.as_str()) {
                    spans.push(Span {
                        start: m.start(),
                        end: m.end(),
                        priority: p,
                        code: d.code,
                    });
                }
            }
        } else {
            for c in d.re.captures_iter(s) {
                let Some(m) = (d.group..c.len()).find_map(|g| c.get(g)) else {
                    continue;
                };
                if m.is_empty() || capture_refused(e, d.validate, s, &c, m) {
                    continue;
                }
                spans.push(Span {
                    start: m.start(),
                    end: m.end(),
                    priority: p,
                    code: d.code,
                });
            }
        }
    }
    let iban_priority = e.secrets.len();
    let iban_start = Regex::new(IBAN_START).expect("IBAN_START compiles");
    for m in iban_start.find_iter(s) {
        if let Some(end) = iban_at(s, m.start()) {
            spans.push(Span {
                start: m.start(),
                end,
                priority: iban_priority,
                code: "pii.iban",
            });
        }
    }
    if let Some(ac) = &creds.automaton {
        for m in ac.find_iter(s) {
            spans.push(Span {
                start: m.start(),
                end: m.end(),
                priority: 0,
                code: "secret.registered_credential",
            });
        }
    }
    // Registered credentials first on ties: they are exact.
    spans.sort_by(|a, b| {
        (
            a.start,
            std::cmp::Reverse(a.end),
            a.code != "secret.registered_credential",
            a.priority,
        )
            .cmp(&(
                b.start,
                std::cmp::Reverse(b.end),
                b.code != "secret.registered_credential",
                b.priority,
            ))
    });
    spans
}

/// Redacts every floor secret; overlapping matches merge into one mask named
/// by the first match, so no part of any matched secret survives.
fn redact(e: &Engine, creds: &CredentialRegistry, s: &str, f: &mut Findings) -> String {
    let spans = secret_spans(e, creds, s);
    if spans.is_empty() {
        return s.to_owned();
    }
    let mut merged: Vec<(usize, usize, &'static str)> = Vec::new();
    for sp in spans {
        match merged.last_mut() {
            Some(last) if sp.start < last.1 => last.1 = last.1.max(sp.end),
            _ => merged.push((sp.start, sp.end, sp.code)),
        }
    }
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    for (start, end, code) in merged {
        out.push_str(&s[pos..start]);
        out.push_str(MASK_PREFIX);
        out.push_str(code);
        out.push(']');
        f.add(code, 1);
        pos = end;
    }
    out.push_str(&s[pos..]);
    out
}

/// Injection floor: counts matches per category.
fn scan_injection(e: &Engine, s: &str, f: &mut Findings) {
    let t = triggered(e, s);
    for (i, d) in e.injections.iter().enumerate() {
        if t.injections[i] {
            f.add(d.code, d.re.find_iter(s).count() as u64);
        }
    }
    if t.hidden {
        let mut n = 0;
        for inner in hidden_containers(e, s) {
            let mut sub = Findings::default();
            for d in &e.injections {
                sub.add(d.code, d.re.find_iter(inner).count() as u64);
            }
            if !sub.is_empty() || e.hidden_instruction.is_match(inner) {
                n += 1;
            }
        }
        f.add("injection.hidden_html", n);
    }
}

/// The redaction and injection stages over an already Unicode-safe value.
fn secure(
    creds: &CredentialRegistry,
    safe: &str,
    f: &mut Findings,
) -> Result<(String, bool), FilterError> {
    let e = engine()?;
    let red = redact(e, creds, safe, f);
    let mut inj = Findings::default();
    scan_injection(e, &red, &mut inj);
    let rejected = !inj.is_empty();
    f.merge(&inj);
    Ok((red, rejected))
}

/// Cuts `s` before the first secret the detectors still see (a secret
/// created by the bound itself); returns whether anything was cut.
fn cut_new_secrets(creds: &CredentialRegistry, s: &mut String) -> Result<bool, FilterError> {
    let e = engine()?;
    let mut cut = false;
    while let Some(first) = secret_spans(e, creds, s).first() {
        let mut at = first.start;
        while at > 0 && !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
        cut = true;
    }
    Ok(cut)
}

fn rejected_with(findings: Findings) -> Filtered {
    Filtered {
        text: String::new(),
        summary: FilterSummary {
            status: FilterStatus::Rejected,
            findings,
        },
    }
}

/// Canonical trailing-LF form of a body: no trailing LF when empty (a body
/// of only line feeds is empty), otherwise exactly one.
pub(super) fn canonical_trailing_lf(s: &str) -> String {
    let t = s.trim_end_matches('\n');
    if t.is_empty() {
        String::new()
    } else {
        format!("{t}\n")
    }
}

/// Filters a record body or log: bounded to `max_bytes` including the one
/// trailing LF.
pub(super) fn filter_text(
    creds: &CredentialRegistry,
    source: &str,
    max_bytes: u64,
) -> Result<Filtered, FilterError> {
    let mut f = Findings::default();
    let normalized = canonical_trailing_lf(&normalize_line_endings(source));
    let safe = unicode_safety(&normalized, &mut f)?;
    let (red, is_rejected) = secure(creds, &safe, &mut f)?;
    if is_rejected {
        return Ok(rejected_with(f));
    }
    let body = red.trim_end_matches('\n');
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let (mut text, truncated) = if body.is_empty() {
        (String::new(), false)
    } else if body.len() < max {
        (format!("{body}\n"), false)
    } else {
        let cut = floor_char_boundary(body, max.saturating_sub(1));
        (body[..cut].to_owned(), true)
    };
    if truncated {
        cut_new_secrets(creds, &mut text)?;
        let t = text.trim_end_matches('\n').len();
        text.truncate(t);
        text.push('\n');
        if let Some(rejection) = rescan(&text, &mut f)? {
            return Ok(rejection);
        }
    }
    Ok(finish(text, &normalized, truncated, f))
}

/// The injection re-scan of bytes the bound changed: `Some(rejected)` when
/// the emitted bytes now carry an injection finding.
fn rescan(text: &str, f: &mut Findings) -> Result<Option<Filtered>, FilterError> {
    let mut again = Findings::default();
    scan_injection(engine()?, text, &mut again);
    if again.is_empty() {
        return Ok(None);
    }
    f.merge(&again);
    Ok(Some(rejected_with(std::mem::take(f))))
}

/// The outcome of a filter run that emits bytes.
fn finish(text: String, normalized: &str, truncated: bool, findings: Findings) -> Filtered {
    let status = if truncated {
        FilterStatus::Truncated
    } else if text != normalized {
        FilterStatus::Modified
    } else {
        FilterStatus::Unchanged
    };
    Filtered {
        text,
        summary: FilterSummary { status, findings },
    }
}

/// Filters a source-derived display string (title, label, login, check or
/// agent name): bounded at a code-point boundary, no LF added. An empty
/// result is returned as empty text (callers treat it as absent).
pub(super) fn filter_display(
    creds: &CredentialRegistry,
    source: &str,
    max_bytes: u64,
) -> Result<Filtered, FilterError> {
    let mut f = Findings::default();
    let normalized = normalize_line_endings(source);
    let safe = unicode_safety(&normalized, &mut f)?;
    let (red, is_rejected) = secure(creds, &safe, &mut f)?;
    if is_rejected {
        return Ok(rejected_with(f));
    }
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut text = red;
    let truncated = text.len() > max;
    if truncated {
        let cut = floor_char_boundary(&text, max);
        text.truncate(cut);
        cut_new_secrets(creds, &mut text)?;
        if let Some(rejection) = rescan(&text, &mut f)? {
            return Ok(rejection);
        }
    }
    Ok(finish(text, &normalized, truncated, f))
}
