//! What `probity-filter/6` adds (D-R96): a value assigned to a name that
//! holds a vendor's name (`DATADOG = …`, `sumo_logic: …`, `"sendbird":
//! "…"`), masked when it looks like a random token.
//!
//! About sixty gitleaks rules pair a vendor's name with a value of no shape
//! of its own (40 letters and digits, a UUID): the name is the only sign
//! that the value is a credential. Version 5 masked such a value only when
//! the name also held a secret word (`DATADOG_API_KEY=…`, `secret.env_value`).
//! Version 6 reads the vendor's name as that sign, with a stricter value:
//! a random-looking token (16 bytes or more of `[A-Za-z0-9+/=_-]`, a letter
//! and a digit, and at least 3 bits of entropy per byte), never a
//! reference or a placeholder. So `DATADOG_SITE=datadoghq.eu`,
//! `OKTA_DOMAIN=dev-123456.okta.com`, `HEROKU_APP=my-app` and
//! `SENTRY_DSN_ENABLED=true` are kept.
//!
//! The list is written here from the vendors' own documentation of their
//! credentials; gitleaks' rules are the measure (`docs/secrets.md`), not
//! the source. A long name (`datadog`, `launchdarkly`) counts anywhere in
//! the name, case-insensitively (`myDatadogKey`). A short one (`okta`,
//! `sumo`, `snyk`, `etsy`, `lob`, `jira`, `xray`) counts only as a whole
//! segment of the name (`OKTA_TOKEN`, `lob.key`, `sumo-access`), so
//! `global_id`, `blobs` and `jirafe` are not vendor names.

use std::sync::LazyLock;

use super::*;

/// Vendor names that count anywhere in a name (ASCII letters; the regex is
/// case-insensitive).
const LONG: &[&str] = &[
    "adafruit",
    "adobe",
    "airtable",
    "algolia",
    "asana",
    "atlassian",
    "beamer",
    "bintray",
    "bitbucket",
    "bittrex",
    "cloudflare",
    "codecov",
    "coinbase",
    "confluence",
    "confluent",
    "contentful",
    "datadog",
    "discord",
    "droneci",
    "dropbox",
    "facebook",
    "fastly",
    "finicity",
    "finnhub",
    "flickr",
    "freshbooks",
    "gitter",
    "gocardless",
    "heroku",
    "hubspot",
    "intercom",
    "jfrog",
    "kraken",
    "kucoin",
    "launchdarkly",
    "linear",
    "linkedin",
    "looker",
    "mattermost",
    "messagebird",
    "netlify",
    "newrelic",
    "nytimes",
    "plaid",
    "rapidapi",
    "sendbird",
    "sentry",
    "sonar",
    "squarespace",
    "sumologic",
    "travis",
    "twitch",
    "twitter",
    "zendesk",
];

/// Two-word vendor names written with a separator (`linked_in`,
/// `message-bird`, `new_relic`, `drone_ci`, `private_ai`): the regex
/// alternative and the keyword every match holds.
const SPLIT: &[(&str, &str)] = &[
    (r"linked[_-]in", "linked"),
    (r"message[_-]bird", "bird"),
    (r"new[_-]relic", "relic"),
    (r"drone[_-]ci", "drone"),
    (r"private[_-]?ai", "private"),
];

/// Vendor names that count only as a whole segment of a name.
const SHORT: &[&str] = &["etsy", "jira", "lob", "okta", "snyk", "sumo", "xray"];

/// The keywords of the vendor detector: every match holds one of them in
/// its name (letters only, as `scan::keyword_may_match` requires): each
/// long and short name itself, and the keyword of each two-word name.
pub(super) fn vendor_keywords() -> &'static [&'static str] {
    static KEYWORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut v: Vec<&'static str> = LONG
            .iter()
            .chain(SPLIT.iter().map(|(_, k)| k))
            .chain(SHORT)
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    });
    &KEYWORDS
}

/// The spec name of the vendor pattern (`build_engine` expands it).
pub(super) const VENDOR: &str = "VENDOR";

/// A vendor-named assignment: the name (a run of `[A-Za-z0-9_.-]` holding a
/// vendor's name), an optional closing quote and bracket, an operator
/// (`OPS`: `=`, `:`, `:=`, `=>`, `?=`, ` == `), an optional YAML string tag,
/// then the value, quoted or bare. The same shape as `ENV_SECRET`'s
/// `NAME=value`, so its matches start on the line of a keyword and what
/// follows the name is what `Follow::Env` checks.
const VENDOR_VALUE: &str =
    r#"(?-u:\b)VNAME["']?\]?[ \t]*?OPSYAML_TAG(?:QUOTED|([^\t\n\x0C\r "'][^\t\n\x0C\r ]*))"#;

/// The vendor detector's regex.
pub(super) fn vendor_pattern() -> String {
    let long = LONG
        .iter()
        .copied()
        .chain(SPLIT.iter().map(|(re, _)| *re))
        .collect::<Vec<_>>()
        .join("|");
    let short = SHORT.join("|");
    let name = format!(
        r"(?:[A-Za-z0-9_.-]*?(?i-u:{long})[A-Za-z0-9_.-]*|(?:[A-Za-z0-9_.-]*[_.-])?(?i-u:{short})(?:[_.-][A-Za-z0-9_.-]*)?)"
    );
    VENDOR_VALUE
        .replace("VNAME", &name)
        .replace("QUOTED", QUOTED_VALUE)
        .replace("YAML_TAG", YAML_TAG)
        .replace("OPS", OPS)
}

/// `probity-filter/6`'s secret detectors: version 5's, then the vendor
/// detector (appended, so every earlier detector keeps its priority).
pub(super) fn secret_specs_v6() -> Vec<SecretSpec> {
    let mut v = secret_specs_v5();
    v.push((
        "secret.vendor_value",
        vendor_keywords(),
        VENDOR,
        1,
        Validate::VendorValue,
    ));
    v
}

/// Whether the value `v` of a vendor-named assignment is kept: a reference
/// or placeholder, or anything that does not look like a random token.
pub(super) fn vendor_value_kept(v: &str) -> bool {
    is_reference(v) || !looks_random(v) || !token_entropy_ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyword occurs in every spelling of the name it stands for,
    /// and every name has a keyword: the keyword-line search finds every
    /// match.
    #[test]
    fn every_vendor_name_holds_a_keyword() {
        let spellings: Vec<String> = LONG
            .iter()
            .map(|s| (*s).to_owned())
            .chain(SPLIT.iter().flat_map(|(re, _)| {
                let base = re.replace("[_-]?", "").replace("[_-]", "");
                let under = re.replace("[_-]?", "_").replace("[_-]", "_");
                [base, under]
            }))
            .chain(SHORT.iter().map(|s| (*s).to_owned()))
            .collect();
        for s in &spellings {
            assert!(
                vendor_keywords().iter().any(|k| s.contains(k)),
                "`{s}` holds no keyword"
            );
        }
        for k in vendor_keywords() {
            assert!(k.bytes().all(|c| c.is_ascii_lowercase()), "{k}");
        }
    }
}
