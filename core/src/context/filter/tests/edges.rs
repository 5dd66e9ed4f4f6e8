//! Redaction edge cases each filter version added.

use super::*;
use regex::Regex;

/// `input` becomes exactly `expected` (plus the trailing LF), with
/// `n` findings of `code`.
fn exact(input: &str, expected: &str, code: &str, n: u64) {
    let out = body(input);
    assert_eq!(out.text, format!("{expected}\n"), "{input}");
    assert_eq!(out.summary.findings.count(code), n, "{input}");
    let want = if n == 0 {
        FilterStatus::Unchanged
    } else {
        FilterStatus::Modified
    };
    assert_eq!(out.summary.status, want, "{input}");
}

const CARD: &str = "[REDACTED:pii.payment_card]";

#[test]
fn cards_next_to_other_digit_groups_are_redacted() {
    // Audit reproductions: the whole digit run is too long or fails
    // Luhn, but a window of whole groups is a card.
    exact(
        "card 4111 1111 1111 1111 12/25",
        &format!("card {CARD} 12/25"),
        "pii.payment_card",
        1,
    );
    exact(
        "card 4111111111111111 2025",
        &format!("card {CARD} 2025"),
        "pii.payment_card",
        1,
    );
    exact(
        "qty 2 4111111111111111",
        &format!("qty 2 {CARD}"),
        "pii.payment_card",
        1,
    );
    exact(
        "card 4111 1111 1111 1111 0 end",
        &format!("card {CARD} 0 end"),
        "pii.payment_card",
        1,
    );
    exact(
        "ref 7 5555-5555-5555-4444 99",
        &format!("ref 7 {CARD} 99"),
        "pii.payment_card",
        1,
    );
    // Two cards in one run: each window is masked.
    exact(
        "4111111111111111 5555555555554444",
        &format!("{CARD} {CARD}"),
        "pii.payment_card",
        2,
    );
    // Overlapping valid windows merge into one mask: with all zeros
    // every window is Luhn-valid.
    exact(
        "x 4111 1111 1111 1111 4111 1111 1111 1111 y",
        &format!("x {CARD} y"),
        "pii.payment_card",
        1,
    );
    let zeros = vec!["0"; 100_000].join(" ");
    exact(
        &format!("a {zeros} b"),
        &format!("a {CARD} b"),
        "pii.payment_card",
        1,
    );
    // A window is made of whole groups only, and a run of fewer than 13
    // digits or with no Luhn-valid window is kept.
    for s in [
        "build 41111111111111110",
        "at 2026-11-29 12 00 00",
        "ids 1234 5678 9012",
    ] {
        exact(s, s, "pii.payment_card", 0);
    }
}

const URL_PW: &str = "[REDACTED:secret.url_password]";

#[test]
fn url_passwords_are_fully_redacted() {
    exact(
        "redis://:s3cr3tP4ss@cache:6379/0",
        &format!("redis://:{URL_PW}@cache:6379/0"),
        "secret.url_password",
        1,
    );
    exact(
        "postgres://app:pa/ssword@db",
        &format!("postgres://app:{URL_PW}@db"),
        "secret.url_password",
        1,
    );
    exact(
        "postgres://app:p@ss-w0rd@db",
        &format!("postgres://app:{URL_PW}@db"),
        "secret.url_password",
        1,
    );
    exact(
        "use mysql://me@corp.example:pw:1@x@db/x now",
        &format!("use mysql://me@corp.example:{URL_PW}@db/x now"),
        "secret.url_password",
        1,
    );
    // No boundary is needed before the scheme.
    exact(
        "x_postgres://app:pa55word@db",
        &format!("x_postgres://app:{URL_PW}@db"),
        "secret.url_password",
        1,
    );
    for s in [
        "see http://localhost:3000/a/b ok",
        "https://example.com/a@b",
        "postgres://app:@db",
        "git@github.com:org/repo.git",
    ] {
        exact(s, s, "secret.url_password", 0);
    }
}

#[test]
fn quoted_escaped_and_numeric_values_are_redacted() {
    let auth = "[REDACTED:secret.authorization_header]";
    exact(
        r#"Authorization: Bearer "eyJhbGciOiJIUzI1NiJ9.e30.sig" next"#,
        &format!("Authorization: {auth} next"),
        "secret.authorization_header",
        1,
    );
    exact(
        r#"Authorization: Basic 'dXNlcjpw\'YXNz'"#,
        &format!("Authorization: {auth}"),
        "secret.authorization_header",
        1,
    );
    exact(
        r#""Authorization": "Bearer abc.def""#,
        &format!(r#""Authorization": "{auth}""#),
        "secret.authorization_header",
        1,
    );
    let env = "[REDACTED:secret.env_value]";
    exact(
        r#"PASSWORD="abc\"defghi" next"#,
        &format!(r#"PASSWORD="{env}" next"#),
        "secret.env_value",
        1,
    );
    exact(
        r#"PASSWORD='abc\'defghi'"#,
        &format!("PASSWORD='{env}'"),
        "secret.env_value",
        1,
    );
    // An unterminated quoted value is masked to the end of the line.
    exact(
        "PASSWORD=\"abc def\nnext",
        &format!("PASSWORD=\"{env}\nnext"),
        "secret.env_value",
        1,
    );
    // A bare value runs to whitespace: no part after `,` or `;` leaks.
    exact(
        "token=abc,def;ghi next",
        &format!("token={env} next"),
        "secret.env_value",
        1,
    );
    let json = "[REDACTED:secret.json_value]";
    exact(
        r#"{"password": 123456789}"#,
        &format!(r#"{{"password": {json}}}"#),
        "secret.json_value",
        1,
    );
    exact(
        r#"{"api_key":-1.5e3,"x":1}"#,
        &format!(r#"{{"api_key":{json},"x":1}}"#),
        "secret.json_value",
        1,
    );
    exact(
        r#"{"secret": "a\"b\\"}"#,
        &format!(r#"{{"secret": "{json}"}}"#),
        "secret.json_value",
        1,
    );
    exact(
        "{'password': 'hunter2'}",
        &format!("{{'password': '{json}'}}"),
        "secret.json_value",
        1,
    );
}

#[test]
fn pass_and_auth_segments_name_secrets() {
    let env = "[REDACTED:secret.env_value]";
    for (name, sep) in [
        ("DB_PASS", "="),
        ("db.pass", ": "),
        ("SMTP_PASS_FILE", "="),
        ("pass-phrase", "="),
        ("REGISTRY_AUTH", "="),
        ("auth_basic", ": "),
        ("PASS", "="),
        ("Auth", "="),
        ("pass", ": "),
        ("auth", ": "),
        ("MY_PWD", "="),
    ] {
        exact(
            &format!("{name}{sep}hunter2hunter2"),
            &format!("{name}{sep}{env}"),
            "secret.env_value",
            1,
        );
    }
    let json = "[REDACTED:secret.json_value]";
    exact(
        r#"{"auths": {"r.example": {"auth": "dXNlcjpwYXNz"}}}"#,
        &format!(r#"{{"auths": {{"r.example": {{"auth": "{json}"}}}}}}"#),
        "secret.json_value",
        1,
    );
    exact(
        r#"{"db_pass": "x"}"#,
        &format!(r#"{{"db_pass": "{json}"}}"#),
        "secret.json_value",
        1,
    );
    // Harmless words and test-runner output are not secret names.
    for s in [
        "passive=1 compass=2 bypass=3 passed=4 oauth=5",
        "author: Alice",
        "authority=x authentication: on",
        r#"{"author": "Alice", "passive": "yes"}"#,
        "--- PASS: TestFoo (0.00s)",
        "PASS: tests/unit.sh",
        "Auth: see the docs",
    ] {
        let out = body(s);
        assert_eq!(out.text, format!("{s}\n"), "{s}");
        assert!(out.summary.findings.is_empty(), "{s}");
    }
}

#[test]
fn aws_keys_need_no_boundary() {
    let aws = "[REDACTED:secret.aws]";
    exact(
        "x_AKIAIOSFODNN7EXAMPLE",
        &format!("x_{aws}"),
        "secret.aws",
        1,
    );
    exact(
        "keyAKIAIOSFODNN7EXAMPLE_tail",
        &format!("key{aws}_tail"),
        "secret.aws",
        1,
    );
    exact(
        "id=ASIAIOSFODNN7EXAMPLEXYZ.",
        &format!("id={aws}."),
        "secret.aws",
        1,
    );
    exact("AKIAshort AKIA123", "AKIAshort AKIA123", "secret.aws", 0);
}

#[test]
fn ibans_are_redacted_in_any_case() {
    let iban = "[REDACTED:pii.iban]";
    exact(
        "pay de89 3704 0044 0532 0130 00 today",
        &format!("pay {iban} today"),
        "pii.iban",
        1,
    );
    exact(
        "iban gb82west12345698765432",
        &format!("iban {iban}"),
        "pii.iban",
        1,
    );
    exact(
        "iban Gb82WeSt12345698765432.",
        &format!("iban {iban}."),
        "pii.iban",
        1,
    );
    exact(
        "de88 3704 0044 0532 0130 00",
        "de88 3704 0044 0532 0130 00",
        "pii.iban",
        0,
    );
}
// ------------------------------------------------ probity-filter/3

#[test]
fn secret_named_values_take_every_operator() {
    let env = "[REDACTED:secret.env_value]";
    let json = "[REDACTED:secret.json_value]";
    let cases: &[(&str, String, &str)] = &[
        (
            r#"password := "hunter2xyz""#,
            format!(r#"password := "{env}""#),
            "secret.env_value",
        ),
        (
            "password => 'hunter2xyz'",
            format!("password => '{env}'"),
            "secret.env_value",
        ),
        (
            "DB_PASSWORD ?= hunter2xyz",
            format!("DB_PASSWORD ?= {env}"),
            "secret.env_value",
        ),
        (
            "password: !!str hunter2xyz",
            format!("password: !!str {env}"),
            "secret.env_value",
        ),
        (
            r#"password = """hunter2xyz""""#,
            format!(r#"password = """{env}""""#),
            "secret.env_value",
        ),
        (
            "password = '''hunter2\nxyz''' next",
            format!("password = '''{env}''' next"),
            "secret.env_value",
        ),
        (
            "'password' => 'hunter2xyz'",
            format!("'password' => '{env}'"),
            "secret.env_value",
        ),
        (
            "$config['db_password'] = 'x'",
            format!("$config['db_password'] = '{env}'"),
            "secret.env_value",
        ),
        (
            r#"ENV["API_KEY"] := abc123xyz"#,
            format!(r#"ENV["API_KEY"] := {env}"#),
            "secret.env_value",
        ),
        (
            r#"{"DB Password": "hunter2xyz"}"#,
            format!(r#"{{"DB Password": "{json}"}}"#),
            "secret.json_value",
        ),
        (
            "GPG_PASSPHRASE=hunter2xyz",
            format!("GPG_PASSPHRASE={env}"),
            "secret.env_value",
        ),
        (
            "passphrase: hunter2xyz",
            format!("passphrase: {env}"),
            "secret.env_value",
        ),
        (
            "SIGNING_KEY=hunter2xyz",
            format!("SIGNING_KEY={env}"),
            "secret.env_value",
        ),
        // `=>` and `:=` glued to the value are `=` and `:`: the value
        // starts with `>` or `=` and is masked whole.
        (
            "DB_PASS=>hunter2xyz next",
            format!("DB_PASS={env} next"),
            "secret.env_value",
        ),
        (
            r#"password:="hunter2xyz""#,
            format!("password:{env}"),
            "secret.env_value",
        ),
        (
            r#"if password == "hunter2xyz":"#,
            format!(r#"if password == "{env}":"#),
            "secret.env_value",
        ),
        // The bare name `pass` with an `=`-style operator counts in any
        // case, as `PASS=` did in v2.
        (
            "PASS => hunter2xyz",
            format!("PASS => {env}"),
            "secret.env_value",
        ),
    ];
    for (input, expected, code) in cases {
        exact(input, expected, code, 1);
    }
    // Ordinary words and prose are not secret names.
    for s in [
        "Enter your passphrase when prompted.",
        "the signing key is rotated yearly",
        "compass => north, bypass := 1",
        "--- PASS: TestFoo (0.00s)",
        r#"{"author name": "Alice"}"#,
    ] {
        exact(s, s, "secret.env_value", 0);
    }
}

#[test]
fn authorization_written_as_code_is_redacted() {
    let auth = "[REDACTED:secret.authorization_header]";
    exact(
        r#"headers["Authorization"] = "Bearer abcdefghijk123""#,
        &format!(r#"headers["Authorization"] = "{auth}""#),
        "secret.authorization_header",
        1,
    );
    exact(
        "xhr.setRequestHeader('Authorization', 'Bearer abcdefghijk123');",
        &format!("xhr.setRequestHeader('Authorization', '{auth}');"),
        "secret.authorization_header",
        1,
    );
    exact(
        "Authorization: Bearer 'abc'def next",
        &format!("Authorization: {auth} next"),
        "secret.authorization_header",
        1,
    );
    exact(
        r#"{:authorization => "Basic dXNlcjpwYXNz"}"#,
        &format!(r#"{{:authorization => "{auth}"}}"#),
        "secret.authorization_header",
        1,
    );
    // A quoted header value is masked whole, to its closing quote.
    exact(
        r#"h = {"Authorization": "Bearer abc def"}"#,
        &format!(r#"h = {{"Authorization": "{auth}"}}"#),
        "secret.authorization_header",
        1,
    );
    // A comma after an unquoted name is prose.
    exact(
        "Authorization, authentication and accounting",
        "Authorization, authentication and accounting",
        "secret.authorization_header",
        0,
    );
}

#[test]
fn cards_and_ibans_touching_letters_are_redacted() {
    exact(
        "id4111111111111111 cc_4111111111111111 4111111111111111_ card 4111111111111111x",
        &format!("id{CARD} cc_{CARD} {CARD}_ card {CARD}x"),
        "pii.payment_card",
        4,
    );
    let iban = "[REDACTED:pii.iban]";
    exact(
        "xDE89370400440532013000 IBAN_DE89370400440532013000 DE89370400440532013000x",
        &format!("x{iban} IBAN_{iban} {iban}x"),
        "pii.iban",
        3,
    );
    // Luhn-invalid digit runs inside words are kept.
    exact(
        "build4111111111111112x",
        "build4111111111111112x",
        "pii.payment_card",
        0,
    );
}

#[test]
fn truncation_keeps_an_existing_authorization_mask() {
    let src = format!(
        "Authorization: Bearer abcdefghijklmnop\n{}",
        "x".repeat(200)
    );
    let out = filter_text(&no_creds(), &src, 100).unwrap();
    let want = format!(
        "Authorization: [REDACTED:secret.authorization_header]\n{}\n",
        "x".repeat(45)
    );
    assert_eq!(out.text, want);
    assert_eq!(out.summary.status, FilterStatus::Truncated);
    // A mask the bound cuts is its own text, not a new secret.
    let out = filter_text(&no_creds(), &src, 30).unwrap();
    assert_eq!(out.text, "Authorization: [REDACTED:secr\n");
    let out = filter_text(&no_creds(), "PASSWORD=hunter2xyz tail", 20).unwrap();
    assert_eq!(out.text, "PASSWORD=[REDACTED:\n");
}

#[test]
fn a_literal_mask_prefix_does_not_shield_a_secret() {
    let env = "[REDACTED:secret.env_value]";
    exact(
        "PASSWORD=[REDACTED:x]hunter2xyz",
        &format!("PASSWORD={env}"),
        "secret.env_value",
        1,
    );
    exact(
        "PASSWORD=[REDACTED:x]",
        &format!("PASSWORD={env}"),
        "secret.env_value",
        1,
    );
    exact(
        "Authorization: [REDACTED:secret.env_value]hunter2xyz",
        "Authorization: [REDACTED:secret.authorization_header]",
        "secret.authorization_header",
        1,
    );
    // Exactly one whole mask of this filter is kept (idempotence).
    exact(
        &format!("PASSWORD={env}"),
        &format!("PASSWORD={env}"),
        "secret.env_value",
        0,
    );
    exact(
        "Authorization: [REDACTED:secret.authorization_header]",
        "Authorization: [REDACTED:secret.authorization_header]",
        "secret.authorization_header",
        0,
    );
}

/// The `probity-filter/2` container regex with a content limit of `n`.
fn v2_hidden_regex(n: usize) -> Regex {
    let p = r#"(?is:<!--(.*?)(?:-->|\z)|<([a-z][a-z0-9]*)(?-u:\b)[^>]*(?:display[ \t]*:[ \t]*none|visibility[ \t]*:[ \t]*hidden|font-size[ \t]*:[ \t]*0(?:px|em|rem|pt)?[ \t]*[;"']|opacity[ \t]*:[ \t]*0(?:\.0+)?[ \t]*[;"']|[ \t]hidden(?:[ \t>=]|$))[^>]*>(.{0,LIMIT}?)(?:</|\z))"#;
    Regex::new(&p.replace("LIMIT", &n.to_string())).unwrap()
}

fn v2_containers(re: &Regex, s: &str) -> Vec<String> {
    re.captures_iter(s)
        .map(|c| {
            c.get(1)
                .or_else(|| c.get(3))
                .map_or("", |m| m.as_str())
                .to_owned()
        })
        .collect()
}

#[test]
fn hidden_containers_are_those_of_the_v2_regex() {
    let e = engine().unwrap();
    let parts = [
        "<a hidden>",
        "<div style=\"display:none\">",
        "<span style='opacity:0;'>",
        "<p hidden=1>",
        "<!--",
        "-->",
        "</",
        "</a>",
        "<",
        ">",
        "x",
        "yy",
        "é",
        "中",
        "😀",
        "\n",
        " ",
        "you must",
        "<b>",
        "hidden",
        "<ahidden>",
        "<a hidden",
    ];
    // A fixed linear congruential sequence: deterministic and varied.
    let mut next = lcg(0x9E37_79B9_7F4A_7C15);
    for limit in [0usize, 1, 3, 7] {
        let re = v2_hidden_regex(limit);
        for _ in 0..3000 {
            let n = next(14);
            let s: String = (0..n).map(|_| parts[next(parts.len())]).collect();
            let got: Vec<String> = hidden_containers_within(e, &s, limit)
                .into_iter()
                .map(str::to_owned)
                .collect();
            assert_eq!(got, v2_containers(&re, &s), "limit {limit}: {s:?}");
        }
    }
    // The real limit, at its edge, in ASCII and in multi-byte text.
    let re = v2_hidden_regex(HIDDEN_CONTENT_CHARS);
    for (fill, n) in [
        ("x", 4000),
        ("x", 4001),
        ("é", 4000),
        ("é", 4001),
        ("😀", 4001),
    ] {
        for tail in ["</a> you must", " you must", ""] {
            let s = format!("<a hidden>{}{tail}<!-- note: x -->", fill.repeat(n));
            let got: Vec<String> = hidden_containers(e, &s)
                .into_iter()
                .map(str::to_owned)
                .collect();
            assert_eq!(got, v2_containers(&re, &s), "{fill} x {n} {tail:?}");
        }
    }
}

#[test]
fn hidden_html_scan_finds_one_container_in_a_run_of_tags() {
    // Speed is a benchmark matter (core has no clock); this pins the
    // behaviour on the input the v2 regex was slow on.
    let e = engine().unwrap();
    let s = "<a hidden>".repeat(64 * 1024 / 10);
    // Only the first tag within 4000 characters of the end opens a
    // container (to the end of the text).
    assert_eq!(hidden_containers(e, &s).len(), 1);
    let mut f = Findings::default();
    scan_injection(e, &s, &mut f);
    assert!(f.is_empty());
}
