//! Validators of structured matches: SSNs, random 40-character keys,
//! payment cards (Luhn windows of whole groups) and IBANs.

pub(super) fn ssn_valid(m: &str) -> bool {
    let digits: String = m.chars().filter(char::is_ascii_digit).collect();
    if digits.len() != 9 || m.len() - digits.len() > 2 {
        return false;
    }
    let p = [&digits[..3], &digits[3..5], &digits[5..]];
    let area = p[0];
    !(area == "000" || area == "666" || area.starts_with('9') || p[1] == "00" || p[2] == "0000")
}

/// Whether a 40-character base64 run looks random (an AWS secret access
/// key): at least two upper- and two lowercase letters and a digit, not a
/// hex digest, no run of seven lowercase letters (a word inside an
/// identifier), and a character spread over 4.4 bits per character
/// (Shannon entropy; random base64 of this length is about 4.9, long
/// identifiers 4.2–4.45). About 4% of random keys fail these rules and
/// pass unmasked unless they are named (`aws_secret_access_key=...`).
pub(super) fn high_entropy_40(m: &str) -> bool {
    let b = m.as_bytes();
    if b.len() != 40 {
        return false;
    }
    let count = |f: fn(&u8) -> bool| b.iter().filter(|c| f(c)).count();
    let (upper, lower, digit) = (
        count(u8::is_ascii_uppercase),
        count(u8::is_ascii_lowercase),
        count(u8::is_ascii_digit),
    );
    if upper < 2 || lower < 2 || digit < 1 || b.iter().all(u8::is_ascii_hexdigit) {
        return false;
    }
    let mut run = 0;
    for c in b {
        run = if c.is_ascii_lowercase() { run + 1 } else { 0 };
        if run >= 7 {
            return false;
        }
    }
    let mut freq = [0u32; 256];
    for c in b {
        freq[usize::from(*c)] += 1;
    }
    let n = b.len() as f64;
    let entropy: f64 = freq
        .iter()
        .filter(|f| **f > 0)
        .map(|f| {
            let p = f64::from(*f) / n;
            -p * p.log2()
        })
        .sum();
    entropy > 4.4
}

/// 13–19 digits (separators ignored) with a valid Luhn check digit.
pub(super) fn luhn_card(m: &str) -> bool {
    let (mut n, mut sum) = (0u32, 0u32);
    for c in m.bytes().rev().filter(u8::is_ascii_digit) {
        let d = u32::from(c - b'0');
        sum += if n % 2 == 1 {
            let x = d * 2;
            if x > 9 { x - 9 } else { x }
        } else {
            d
        };
        n += 1;
        if n > 19 {
            return false;
        }
    }
    (13..=19).contains(&n) && sum.is_multiple_of(10)
}

/// The payment cards of one maximal digit run (single space or dash
/// separators): every window of whole separator-delimited groups with 13–19
/// digits that is Luhn-valid, as byte ranges of `run`. A card next to other
/// digit groups (`4111 1111 1111 1111 12/25`, `qty 2 4111111111111111`) is
/// found even though the whole run is longer or fails Luhn. Overlapping
/// windows are merged here (they would be merged into one mask anyway), so a
/// long run yields at most one range per group, whatever its digits.
pub(super) fn card_windows(run: &str) -> Vec<(usize, usize)> {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (i, b) in run.bytes().enumerate() {
        if b == b' ' || b == b'-' || b == b'.' || b == b'/' {
            groups.push((start, i));
            start = i + 1;
        }
    }
    groups.push((start, run.len()));
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, &(first, _)) in groups.iter().enumerate() {
        let mut digits = 0;
        for &(g_start, g_end) in &groups[i..] {
            digits += g_end - g_start;
            if digits > 19 {
                break;
            }
            if digits >= 13 && run.get(first..g_end).is_some_and(luhn_card) {
                // Starts never decrease and, for one start, ends increase.
                match out.last_mut() {
                    Some(last) if first < last.1 => last.1 = last.1.max(g_end),
                    _ => out.push((first, g_end)),
                }
            }
        }
    }
    out
}

/// IBAN lengths by country (ISO 13616 registry).
pub(super) const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BI", 27),
    ("BR", 29),
    ("BY", 28),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DJ", 27),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FK", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IQ", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LC", 32),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("LY", 25),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MN", 20),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NI", 28),
    ("NL", 18),
    ("NO", 15),
    ("OM", 23),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("RU", 33),
    ("SA", 24),
    ("SC", 31),
    ("SD", 18),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("SO", 23),
    ("ST", 25),
    ("SV", 28),
    ("TL", 23),
    ("TN", 24),
    ("UA", 29),
    ("VA", 22),
    ("VG", 24),
    ("XK", 20),
    ("YE", 30),
];

/// An IBAN starting at byte `start`: its end if the country length,
/// alphabet (single spaces allowed between characters; letters in either
/// case) and mod-97 hold.
pub(super) fn iban_at(s: &str, start: usize) -> Option<usize> {
    let b = s.as_bytes();
    let cc = [
        b.get(start)?.to_ascii_uppercase(),
        b.get(start + 1)?.to_ascii_uppercase(),
    ];
    // `IBAN_LENGTHS` is sorted by country code.
    let k = IBAN_LENGTHS
        .binary_search_by(|(c, _)| c.as_bytes().cmp(&cc[..]))
        .ok()?;
    let len = IBAN_LENGTHS[k].1;
    let mut chars = Vec::with_capacity(len);
    let mut i = start;
    while chars.len() < len {
        let c = *b.get(i)?;
        if c.is_ascii_alphanumeric() {
            chars.push(c.to_ascii_uppercase());
            i += 1;
        } else if c == b' '
            && !chars.is_empty()
            && b.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric())
        {
            i += 1;
        } else {
            return None;
        }
    }
    let mut rem: u32 = 0;
    for &c in chars[4..].iter().chain(chars[..4].iter()) {
        let v = if c.is_ascii_digit() {
            u32::from(c - b'0')
        } else {
            u32::from(c - b'A') + 10
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    (rem == 1).then_some(i)
}

/// Shannon entropy of `m`'s bytes, in bits per byte.
fn entropy(m: &str) -> f64 {
    let mut freq = [0u32; 256];
    for c in m.bytes() {
        freq[usize::from(c)] += 1;
    }
    let n = m.len() as f64;
    freq.iter()
        .filter(|f| **f > 0)
        .map(|f| {
            let p = f64::from(*f) / n;
            -p * p.log2()
        })
        .sum()
}

/// `probity-filter/5`: a token family's match is not a placeholder: its
/// bytes spread over at least 3 bits each (`ico-XXXX…` and
/// `sgp_5555555dAAAAA…` do not; random tokens of 16 bytes or more have
/// about 4 or more).
pub(super) fn token_entropy_ok(m: &str) -> bool {
    entropy(m) >= 3.0
}

/// `probity-filter/5`: the `user:password` of `curl -u` is kept when the
/// password is empty, a reference (`$PASS`, `${{ … }}`, `$(cat f)`,
/// `{{ … }}`), a placeholder (`<password>`, `[PASSWORD]`) or a
/// placeholder word (`password`, `pass`, `token`, `secret`, `test`,
/// `xxx`, `yyy`).
pub(super) fn curl_user_kept(m: &str) -> bool {
    let Some((_, pass)) = m.split_once(':') else {
        return false;
    };
    const WORDS: &[&str] = &[
        "password", "pass", "passwd", "token", "secret", "test", "xxx", "yyy", "pwd",
    ];
    pass.is_empty()
        || pass.starts_with(['$', '<', '[', '{'])
        || WORDS.contains(&pass.to_ascii_lowercase().trim_end_matches(['>', ']']))
}

/// `probity-filter/5`: a URL "password" that is a port followed by a path
/// (`http://host:80/u/@me`: the `@` belongs to the path). A port is 1–5
/// digits; userinfo cannot hold a `/` unencoded (RFC 3986).
pub(super) fn url_port_not_password(value: &str) -> bool {
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    (1..=5).contains(&digits) && value.as_bytes().get(digits) == Some(&b'/')
}

/// Whether a value looks like a random token: 16 bytes or more of the token
/// alphabet `[A-Za-z0-9+/=_-]`, with a letter and a digit.
pub(super) fn looks_random(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() >= 16
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"+/=_-".contains(c))
        && b.iter().any(u8::is_ascii_alphabetic)
        && b.iter().any(u8::is_ascii_digit)
}

/// A value that refers to a secret kept elsewhere instead of holding one:
/// a template or variable (`${DB_PASSWORD}`, `${{ secrets.X }}`,
/// `{{ .Values.token }}`, `$(cat file)`, `$TOKEN`, `$env:TOKEN`,
/// `%(password)s`), a placeholder (`<your-token>`). A bare `$name` counts
/// only in the environment's upper case (`$DB_PASS`): `$ecretP4ss` may be
/// a password that starts with `$`.
pub(super) fn is_reference(v: &str) -> bool {
    let ident = |s: &str| {
        let mut it = s.bytes();
        it.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            && it.all(|c| c.is_ascii_alphanumeric() || c == b'_')
    };
    let env_name = |s: &str| {
        let mut it = s.bytes();
        it.next()
            .is_some_and(|c| c.is_ascii_uppercase() || c == b'_')
            && it.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
    };
    v.starts_with("${")
        || v.starts_with("{{")
        || v.starts_with("{%")
        || v.starts_with("$(")
        || v.strip_prefix('$').is_some_and(env_name)
        || v.strip_prefix("$env:").is_some_and(env_name)
        || v.strip_prefix("%(")
            .and_then(|r| r.strip_suffix(")s"))
            .is_some_and(ident)
        || (v.len() > 2
            && v.starts_with('<')
            && v.ends_with('>')
            && !v[1..v.len() - 1].contains(['<', '>']))
}

/// The literals an unquoted value after a secret name may be and still be
/// code, not a secret (`token = None`): the filter keeps them (D-R74).
pub const CODE_LITERALS: &[&str] = &[
    "None",
    "none",
    "null",
    "NULL",
    "Null",
    "nil",
    "undefined",
    "true",
    "false",
    "True",
    "False",
    "TRUE",
    "FALSE",
];

/// An unquoted value that is code, not a secret: a literal (`None`, `null`,
/// `nil`, `undefined`, `true`, `false`), an environment lookup
/// (`process.env.TOKEN`), or an identifier chain called or indexed with
/// nothing or one quoted string, or indexed with one identifier chain
/// (`getpass()`, `os.environ["TOKEN"]`, `config.get('token')`,
/// `settings[key]`). Any other argument (`f(a,b)`, `ab(cd)`, `abc(def`) is
/// not taken for code.
fn is_code(v: &str) -> bool {
    let v = v.trim_end_matches([',', ';']);
    if CODE_LITERALS.contains(&v) {
        return true;
    }
    if let Some(rest) = v.strip_prefix("process.env.") {
        return chain_len(rest) == rest.len() && !rest.is_empty();
    }
    let n = chain_len(v);
    if n == 0 {
        return false;
    }
    let (index, close) = match v.as_bytes().get(n) {
        Some(b'(') => (false, ')'),
        Some(b'[') => (true, ']'),
        _ => return false,
    };
    let Some(arg) = v[n + 1..].strip_suffix(close) else {
        return false;
    };
    let quoted = |q: char| {
        arg.len() >= 2
            && arg.starts_with(q)
            && arg.ends_with(q)
            && !arg[1..arg.len() - 1].contains([q, '\\'])
    };
    arg.is_empty() || quoted('"') || quoted('\'') || (index && chain_len(arg) == arg.len())
}

/// The length of the identifier chain (`a.b_c.d1`) `s` starts with; 0 when
/// it starts with none.
fn chain_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    let mut end = 0;
    loop {
        if !b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return end;
        }
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            i += 1;
        }
        end = i;
        if b.get(i) != Some(&b'.') {
            return end;
        }
        i += 1;
    }
}

/// Name segments that make a secret-named value a setting about the
/// secret, not the secret, and the value each kind of setting holds:
/// sizes and counts hold a number (`max_tokens: 4096`,
/// `password_min_length=12`, `token_ttl=3600s`); locations hold a path or
/// URL (`password_file: /run/secrets/db`, `token_url: https://…`);
/// descriptors hold a short word (`secret_name: prod-db`,
/// `token_type=bearer`, `tokenizer=gpt2`).
const SIZE_WORDS: &[&str] = &[
    "max", "min", "len", "length", "count", "size", "limit", "ttl", "timeout", "expiry", "expires",
    "lifetime", "age", "tokens",
];
const LOCATION_WORDS: &[&str] = &["file", "path", "dir", "url", "uri", "endpoint"];
const DESCRIPTOR_WORDS: &[&str] = &[
    "name",
    "type",
    "header",
    "field",
    "param",
    "policy",
    "prompt",
    "label",
    "hint",
    "format",
    "method",
    "mode",
    "version",
    "provider",
    "kind",
    "tokenizer",
    "tokenize",
];

/// A count: 1 to 6 digits, optionally one unit letter (`30s`, `1h`).
fn is_count(v: &str) -> bool {
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    (1..=6).contains(&digits)
        && match &v.as_bytes()[digits..] {
            [] => true,
            [u] => b"smhdw".contains(u),
            _ => false,
        }
}

/// `probity-filter/5` (D-R74): whether the value `v` of a secret-named
/// assignment or JSON key (`whole` is the detector's match up to the value:
/// the name and operator; `quoted` says whether `v` was quoted) is a
/// near-miss the filter keeps: a reference or placeholder; unquoted code;
/// or a setting about the secret holding what such a setting holds and
/// nothing that looks like a random token.
pub(super) fn named_value_kept(whole: &str, v: &str, quoted: bool) -> bool {
    if is_reference(v) || (!quoted && is_code(v)) {
        return true;
    }
    if looks_random(v) {
        return false;
    }
    let name: String = whole
        .trim_start_matches(['"', '\''])
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || b"_.- ".contains(c))
        .map(|c| char::from(c.to_ascii_lowercase()))
        .collect();
    let has = |words: &[&str]| {
        name.split(['_', '.', '-', ' '])
            .any(|seg| words.contains(&seg))
    };
    (has(SIZE_WORDS) && is_count(v))
        || (has(LOCATION_WORDS) && v.contains(['/', '\\']))
        || (has(DESCRIPTOR_WORDS)
            && v.len() <= 32
            && (v.len() <= 6 || !v.bytes().any(|c| c.is_ascii_digit())))
}
