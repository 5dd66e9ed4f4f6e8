//! The secret detectors as data: each family's name, keywords, pattern and
//! validator (split out of `rules.rs`, which compiles them into the
//! engine).

use super::*;

/// The keywords of a key that names a secret (a JSON key, an environment
/// variable): what the value detectors are prefiltered on.
const SECRET_KEY_WORDS: &[&str] = &[
    "secret",
    "token",
    "pass",
    "pwd",
    "auth",
    "key",
    "credential",
];

/// Every secret detector, in the order the engine compiles them.
pub(super) fn secret_specs() -> Vec<SecretSpec> {
    vec![
        (
            "secret.private_key",
            &["private key"],
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            0,
            Validate::None,
        ),
        (
            "secret.anthropic",
            &["sk-ant-"],
            r"sk-ant-[A-Za-z0-9_-]{20,}",
            0,
            Validate::None,
        ),
        (
            "secret.openai",
            &["sk-"],
            r"(?-u:\b)sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
            0,
            Validate::None,
        ),
        (
            "secret.github",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            r"(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
            0,
            Validate::None,
        ),
        (
            "secret.gitlab",
            &[
                "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glagent-", "gloas-",
                "glsoat-", "glffct-", "glft-",
            ],
            r"(?:glpat|gldt|glrt|glptt|glcbt|glimt|glagent|gloas|glsoat|glffct|glft)-[A-Za-z0-9_-]{20,}",
            0,
            Validate::None,
        ),
        (
            "secret.slack",
            &["xox", "xapp-", "hooks.slack.com"],
            r"(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{10,})",
            0,
            Validate::None,
        ),
        (
            "secret.google",
            &["aiza", "ya29.", "gocspx-"],
            r"(?:AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,})",
            0,
            Validate::None,
        ),
        (
            "secret.aws",
            &["akia", "asia", "abia", "acca"],
            // No boundary on either side (`x_AKIA...`, `...EXAMPLE_x`); the
            // mask takes the whole uppercase-alphanumeric run.
            r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16,}",
            0,
            Validate::None,
        ),
        (
            "secret.stripe",
            &["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
            r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})",
            0,
            Validate::None,
        ),
        (
            "secret.sendgrid",
            &["sg."],
            r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
            0,
            Validate::None,
        ),
        (
            "secret.huggingface",
            &["hf_", "api_org_"],
            r"(?-u:\b)(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,})",
            0,
            Validate::None,
        ),
        (
            "secret.npm",
            &["npm_"],
            r"(?-u:\b)npm_[A-Za-z0-9]{36,}",
            0,
            Validate::None,
        ),
        (
            "secret.pypi",
            &["pypi-"],
            r"pypi-[A-Za-z0-9_-]{50,}",
            0,
            Validate::None,
        ),
        (
            "secret.vault",
            &["hvs.", "hvb.", "hvr."],
            r"(?-u:\b)(?:hvs|hvb|hvr)\.[A-Za-z0-9_-]{24,}",
            0,
            Validate::None,
        ),
        (
            "secret.age",
            &["age-secret-key-1"],
            r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
            0,
            Validate::None,
        ),
        (
            "secret.authorization_header",
            &["authorization"],
            // See `AUTHORIZATION`.
            "AUTH",
            1,
            Validate::NotMask,
        ),
        (
            "secret.json_value",
            SECRET_KEY_WORDS,
            // JSON string and number values whose key names a secret.
            "JSON",
            1,
            Validate::NotMask,
        ),
        (
            "secret.env_value",
            SECRET_KEY_WORDS,
            "ENV",
            1,
            Validate::NotMask,
        ),
        (
            "secret.url_password",
            &["://"],
            // The user may be empty or contain `@`; the password runs from
            // the first `:` after `://` to the last `@` before whitespace.
            URL_PASSWORD,
            1,
            Validate::NotMask,
        ),
        (
            "secret.jwt",
            &["eyj"],
            // A bare JSON Web Token: base64url header and payload that both
            // open a JSON object (`{"` is `eyJ`), and a signature.
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            0,
            Validate::None,
        ),
        (
            "secret.twilio",
            &["sk"],
            r"(?-u:\b)SK[0-9a-fA-F]{32}(?-u:\b)",
            0,
            Validate::None,
        ),
        (
            "secret.azure_storage",
            &["accountkey"],
            r"(?i-u:AccountKey)=([A-Za-z0-9+/]{40,}={0,2})",
            1,
            Validate::NotMask,
        ),
        (
            "secret.telegram",
            &[":aa"],
            r"(?-u:\b)[0-9]{8,10}:AA[0-9A-Za-z_-]{33}",
            0,
            Validate::None,
        ),
        (
            "secret.shopify",
            &["shpat_", "shpca_", "shppa_", "shpss_"],
            r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
            0,
            Validate::None,
        ),
        (
            "secret.digitalocean",
            &["dop_v1_", "doo_v1_", "dor_v1_"],
            r"do[opr]_v1_[a-f0-9]{64}",
            0,
            Validate::None,
        ),
        (
            "secret.aws_secret_key",
            &[],
            // Exactly 40 base64 characters standing alone; kept unless
            // `high_entropy_40` says random (see `Validate::HighEntropy40`).
            // A maximal run (no capture group: the DFA alone finds it);
            // only a run of exactly 40 can be a key.
            AWS_SECRET_KEY,
            0,
            Validate::HighEntropy40,
        ),
        (
            "pii.ssn",
            &[],
            // Dashes or single spaces, the same in both places.
            SSN,
            0,
            Validate::Ssn,
        ),
        (
            "pii.ssn",
            &["ssn", "social"],
            // Nine bare digits only when named: a bare nine-digit number is
            // far more often an id than an SSN.
            r"(?i-u:ssn|social[ _-]?security(?:[ _-]?(?:no|num(?:ber)?|#))?)[^0-9\n]{0,16}(?-u:\b)([0-9]{9})(?-u:\b)",
            1,
            Validate::Ssn,
        ),
        (
            "pii.payment_card",
            &[],
            // Four groups of digits separated by dots (`4111.1111.1111.1111`).
            DOTTED_CARD,
            0,
            Validate::Luhn,
        ),
        (
            // A maximal run of 13 or more digits with single separators; the
            // Luhn-valid windows of whole groups are redacted (`card_windows`).
            "pii.payment_card",
            &[],
            // No boundary: `id4111…`, `cc_4111…`, `4111…x` (the Luhn window
            // check limits false positives).
            CARD_RUN,
            0,
            Validate::Luhn,
        ),
    ]
}
