//! The detector set of `probity-filter/5` (D-R73, D-R74): the
//! `probity-filter/4` set, with the secret-named values, JSON values and
//! URL passwords narrowed by the near-miss rules of `Validate::NamedValue`
//! and `Validate::UrlPassword`, then the families measured against gitleaks'
//! rules and detect-secrets' plugins (`docs/secrets.md`). The rules are
//! written here from each provider's documented token shape; the peers are
//! the measure, not the source.
//!
//! Every new detector is appended: the detectors of `probity-filter/4` keep
//! their positions (a detector's position is its priority when two masks
//! start at the same byte).

use super::*;

/// An SSN written with dots (`AAA.GG.SSSS`), validated like the others.
pub(super) const SSN_DOTTED: &str = r"(?-u:\b)[0-9]{3}\.[0-9]{2}\.[0-9]{4}(?-u:\b)";
/// A card number written as four slash-separated groups
/// (`4111/1111/1111/1111`), Luhn-checked like the dotted form.
pub(super) const SLASHED_CARD: &str = r"(?-u:\b)[0-9]{4}/[0-9]{4}/[0-9]{4}/[0-9]{1,7}(?-u:\b)";
/// A Discord bot token: the base64 of the bot's user id (24 to 26
/// characters; `M`, `N` or `O` first for older ids, any for newer ones), a
/// six-character timestamp and an HMAC, dot-separated.
pub(super) const DISCORD_BOT: &str =
    r"(?-u:\b)[A-Za-z0-9_-]{24,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?-u:\b)";
/// A `.netrc` password: a line that is `password <value>` (indented or
/// not), optionally after `machine <host>` (or `default`) and
/// `login`/`account` pairs and before further netrc tokens; or, anywhere on
/// a line, `machine <host>` (or `default`), `login`/`account` pairs, then
/// `password <value>`. Prose such as `login with password reset` is kept:
/// the one-line form needs `machine` or `default` first.
pub(super) const NETRC: &str = r"(?m:^)[ \t]*(?:(?:machine[ \t]+[^\t\n\x0C\r ]+|default)[ \t]+)?(?:(?:login|account)[ \t]+[^\t\n\x0C\r ]+[ \t]+)*password[ \t]+([^\t\n\x0C\r ]+)(?:[ \t]+(?:machine|login|account|macdef|default)[ \t][^\n]*)?[ \t]*(?m:$)|(?-u:\b)(?:machine[ \t]+[^\t\n\x0C\r ]+|default)(?:[ \t]+(?:login|account)[ \t]+[^\t\n\x0C\r ]+)*[ \t]+password[ \t]+([^\t\n\x0C\r ]+)";

/// `probity-filter/5`'s secret detectors.
pub(super) fn secret_specs_v5() -> Vec<SecretSpec> {
    let mut v: Vec<SecretSpec> = secret_specs()
        .into_iter()
        .map(|(code, kws, pat, group, validate)| {
            let validate = match code {
                "secret.env_value" | "secret.json_value" => Validate::NamedValue,
                "secret.url_password" => Validate::UrlPassword,
                _ => validate,
            };
            (code, kws, pat, group, validate)
        })
        .collect();
    v.extend(new_families());
    v
}

/// A token family's match must not be a placeholder (`ico-XXXX…`,
/// `glc_xxxx…`, `GR1348941` then `123123…`).
const TOKEN: Validate = Validate::Token;

fn new_families() -> Vec<SecretSpec> {
    vec![
        // --- the ten families an outside corpus saw leak (issue 23)
        ("pii.ssn", &[], SSN_DOTTED, 0, Validate::Ssn),
        ("pii.payment_card", &[], SLASHED_CARD, 0, Validate::Luhn),
        (
            "secret.square",
            &["tp-", "sp-", "eaa"],
            r"(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|(?-u:\b)EAAA[A-Za-z0-9_+=-]{60,})",
            0,
            TOKEN,
        ),
        ("secret.discord", &[], DISCORD_BOT, 0, TOKEN),
        (
            "secret.discord",
            &["hoo"],
            r"(?i-u:discord(?:app)?\.com/api/webhooks/)[0-9]{5,}/[A-Za-z0-9_-]{40,}",
            0,
            TOKEN,
        ),
        (
            "secret.newrelic",
            &["nra", "nrj", "nri"],
            r"(?-u:\b)(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_-]{32}|NRAA-[a-f0-9]{27})",
            0,
            TOKEN,
        ),
        (
            // The license key: 36 hex digits then `NRAL` (a suffix literal
            // the regex searches for, so it has a detector of its own).
            "secret.newrelic",
            &["nral"],
            r"(?-u:\b)[a-f0-9]{36}NRAL(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.databricks",
            &["dapi"],
            r"(?-u:\b)dapi[a-f0-9]{32}(?:-[0-9])?",
            0,
            TOKEN,
        ),
        (
            "secret.postman",
            &["pma"],
            r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}",
            0,
            TOKEN,
        ),
        (
            "secret.doppler",
            &["dp."],
            r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}",
            0,
            TOKEN,
        ),
        ("secret.netrc", &["password"], NETRC, 1, Validate::Netrc),
        (
            // An unsigned JSON Web Token (`alg: none`): header and payload
            // both opening a JSON object, then a dot and nothing, or only
            // those two parts. Version 4 masks the signed form.
            "secret.jwt",
            &["eyj"],
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?",
            0,
            TOKEN,
        ),
        (
            "secret.azure_sas",
            &["sig"],
            r"[?&;](?i-u:sig)=([A-Za-z0-9%+/=_-]{30,})",
            1,
            Validate::NotMask,
        ),
        // --- other families either peer detects
        (
            "secret.azure_ad",
            &["~"],
            r"(?-u:\b)[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
            0,
            TOKEN,
        ),
        (
            "secret.aws",
            &["a3t", "bsk"],
            r"(?:A3T[A-Z0-9]{17,}|(?-u:\b)ABSK[A-Za-z0-9+/]{109,269}={0,2})",
            0,
            TOKEN,
        ),
        (
            "secret.gitlab",
            &["gr1", "_gi"],
            r"(?:GR1348941[A-Za-z0-9_-]{20,}|_gitlab_session=[0-9a-z]{32})",
            0,
            TOKEN,
        ),
        (
            "secret.mailchimp",
            &["-us"],
            r"(?-u:\b)[0-9a-f]{32}-us[0-9]{1,2}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.mailgun",
            &["key-"],
            r"(?-u:\b)(?:pub)?key-[0-9a-f]{32}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.sendinblue",
            &["xke"],
            r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",
            0,
            TOKEN,
        ),
        (
            "secret.artifactory",
            &["akc", "cmv"],
            r"(?-u:\b)(?:AKCp[A-Za-z0-9]{10,}|cmVmd[A-Za-z0-9]{59})(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.atlassian",
            &["tt3"],
            r"(?-u:\b)ATATT3[A-Za-z0-9_=-]{150,}",
            0,
            TOKEN,
        ),
        (
            "secret.alibaba",
            &["ltai"],
            r"(?-u:\b)LTAI[A-Za-z0-9]{20}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.clojars",
            &["oja"],
            r"(?i-u:CLOJARS_)[a-z0-9]{60}",
            0,
            TOKEN,
        ),
        (
            "secret.dynatrace",
            &["dt"],
            r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
            0,
            TOKEN,
        ),
        (
            "secret.easypost",
            &["eza", "ezt"],
            r"(?-u:\b)EZ[AT]K[A-Za-z0-9]{54}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.duffel",
            &["duf"],
            r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
            0,
            TOKEN,
        ),
        (
            "secret.flutterwave",
            &["flw"],
            r"FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?",
            0,
            TOKEN,
        ),
        (
            "secret.frameio",
            &["fio"],
            r"fio-u-[A-Za-z0-9_=-]{64}",
            0,
            TOKEN,
        ),
        (
            "secret.grafana",
            &["glc", "gls", "eyj"],
            r"(?-u:\b)(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{70,}={0,2})",
            0,
            TOKEN,
        ),
        (
            "secret.linear",
            &["_ap"],
            r"lin_api_[A-Za-z0-9]{40}",
            0,
            TOKEN,
        ),
        (
            "secret.notion",
            &["ntn"],
            r"(?-u:\b)ntn_[0-9]{11}[A-Za-z0-9]{35}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.planetscale",
            &["psc"],
            r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
            0,
            TOKEN,
        ),
        (
            "secret.prefect",
            &["pnu"],
            r"(?-u:\b)pnu_[A-Za-z0-9]{36}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.pulumi",
            &["ul-"],
            r"(?-u:\b)pul-[a-f0-9]{40}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.readme",
            &["rdm"],
            r"(?-u:\b)rdme_[a-z0-9]{70}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.rubygems",
            &["yge"],
            r"(?-u:\b)rubygems_[a-f0-9]{48}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.scalingo",
            &["tk-"],
            r"(?-u:\b)tk-us-[A-Za-z0-9_-]{48}",
            0,
            TOKEN,
        ),
        (
            "secret.sentry",
            &["snt"],
            r"(?-u:\b)(?:sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/=_]{50,})",
            0,
            TOKEN,
        ),
        (
            "secret.shippo",
            &["po_"],
            r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
            0,
            TOKEN,
        ),
        (
            "secret.perplexity",
            &["lx-"],
            r"(?-u:\b)pplx-[A-Za-z0-9]{48}",
            0,
            TOKEN,
        ),
        (
            "secret.infracost",
            &["ico-"],
            // Not after a dot: `video_box.ico-<hex>.png` is a file name.
            r"(?:\A|[^A-Za-z0-9_.-])(ico-[A-Za-z0-9]{32})(?-u:\b)",
            1,
            Validate::Token,
        ),
        (
            "secret.openshift",
            &["~"],
            r"sha256~[A-Za-z0-9_-]{43}",
            0,
            TOKEN,
        ),
        (
            "secret.heroku",
            &["hrk"],
            r"(?-u:\b)HRKU-AA[0-9A-Za-z_-]{58}",
            0,
            TOKEN,
        ),
        (
            "secret.flyio",
            &["fo1"],
            r"(?-u:\b)fo1_[A-Za-z0-9_-]{43}",
            0,
            TOKEN,
        ),
        (
            "secret.onepassword",
            &["a3-", "_ey"],
            r"(?-u:\b)(?:A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}|ops_eyJ[A-Za-z0-9+/]{250,}={0,3})",
            0,
            TOKEN,
        ),
        (
            "secret.terraform",
            &["sv1"],
            r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
            0,
            TOKEN,
        ),
        (
            "secret.octopus",
            &["api-"],
            r"(?-u:\b)API-[A-Z0-9]{26}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.facebook",
            &["eaa"],
            r"(?-u:\b)EAA[CM][A-Za-z0-9]{100,}",
            0,
            TOKEN,
        ),
        (
            "secret.microsoft_teams",
            &["hoo"],
            r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{60,}",
            0,
            TOKEN,
        ),
        (
            "secret.curl_user",
            &["curl"],
            r#"(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]+)(?:"([^"\n]*:[^"\n]*)"|'([^'\n]*:[^'\n]*)'|([^\t\n\x0C\r "':]*:[^\t\n\x0C\r ]+))"#,
            1,
            Validate::CurlUser,
        ),
        (
            "secret.sidekiq",
            &["s__"],
            r#"(?i-u:BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM)[ \t]*[:=][ \t]*["']?([a-f0-9]{8}:[a-f0-9]{8})"#,
            1,
            Validate::NotMask,
        ),
        (
            "secret.softlayer",
            &["ftl"],
            r"(?i-u:api\.softlayer\.com/soap/v3(?:\.1)?/)([A-Za-z0-9]{64})",
            1,
            Validate::NotMask,
        ),
        (
            "secret.nuget",
            &["<ad"],
            r#"(?i-u:<add[ \t]+key=["'](?:ClearText)?Password["'][ \t]+value=["'])([^"'\n]+)"#,
            1,
            Validate::NotMask,
        ),
        (
            "secret.settlemint",
            &["sm_"],
            r"(?-u:\b)sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.maxmind",
            &["_mm"],
            r"(?-u:\b)[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.clickhouse",
            &["4b1"],
            r"(?-u:\b)4b1d[A-Za-z0-9]{38}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.sourcegraph",
            &["sgp"],
            r"(?-u:\b)sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}(?-u:\b)",
            0,
            TOKEN,
        ),
        (
            "secret.typeform",
            &["tfp"],
            r"(?-u:\b)tfp_[A-Za-z0-9_.=-]{59}",
            0,
            TOKEN,
        ),
        (
            "secret.mapbox",
            &["k.e"],
            r"(?-u:\b)sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}",
            0,
            TOKEN,
        ),
        (
            "secret.yandex",
            &["aqv", "t1."],
            r"(?-u:\b)(?:AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2})",
            0,
            TOKEN,
        ),
        (
            "secret.plaid",
            &["ss-"],
            r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            0,
            TOKEN,
        ),
        (
            "secret.dropbox",
            &["sl."],
            r"(?-u:\b)sl\.[A-Za-z0-9_=-]{130,}",
            0,
            TOKEN,
        ),
        (
            "secret.twitter",
            &["aaa"],
            r"A{22}[A-Za-z0-9%]{80,100}",
            0,
            TOKEN,
        ),
    ]
}
