//! The repository policy (`probity-policy/v1`, issue 20 §2–§3): a strict
//! JSON document at [`POLICY_PATH`] that every server and CI gate reads
//! from the **base it judges against** (the protected ref's tip, the pull
//! request's target), never from the change under judgement. A change to
//! the policy is judged under the old one, and is itself high risk.
//!
//! It declares:
//! - `allowed_signers`: the allowed-signers file (git's own format,
//!   `principal[,principal] [options] key`) as a path in the same tree, so
//!   the keys that may sign are those the protected base names;
//! - `roles`: each role's principals (`"maintainer": ["alice@example.org"]`);
//! - `signatures`: per risk tier, the roles whose signatures every approved
//!   review that authorizes a delivery must carry, each role by a
//!   **different key** (a key holding two roles signs for one), so no
//!   single party satisfies a policy that names two roles;
//! - `high_risk`: path globs and content literals that make a change high
//!   risk (all four lenses), on top of the built-in risk policy;
//! - `transcripts` (`probity-policy/v2` only, D-R103): the tiers at which
//!   every lens result of an approved review that authorizes a delivery
//!   must be a model run of `probity review`, bound to its transcript and
//!   to the prompt the lineage froze (`roles::check_transcripts`), never a
//!   result handed in; each tier named must name signing roles, whose
//!   signatures vouch that the runs happened.
//!
//! Everything here is a function of the document's bytes and explicit
//! inputs; reading the bytes from a commit is the adapters' work.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::{StrictError, from_slice_strict};
use crate::review::risk::{RiskLevel, RiskReason, literal_matcher};
use crate::review::snapshot::ChangedFile;
use crate::snapshot_tools::Glob;

/// Where the policy lives in a tree.
pub const POLICY_PATH: &str = ".probity/policy.json";

/// The directory whose every change a policy rates high
/// (`policy_floor:policy_dir`): the policy, and trust material beside it.
pub const POLICY_DIR: &str = ".probity/";

/// The schema label `probity init --policy` writes; this build reads it
/// and [`POLICY_SCHEMA_V2`].
pub(crate) const POLICY_SCHEMA: &str = "probity-policy/v1";

/// The label of a policy that names `transcripts` (D-R103): v1 and one
/// field more, so the v1 schema's bytes stay as they were.
pub(crate) const POLICY_SCHEMA_V2: &str = "probity-policy/v2";

/// The most bytes a policy document may have.
pub const MAX_POLICY_BYTES: usize = 64 * 1024;

/// The most roles, principals per role, globs and literals a policy holds.
pub(crate) const MAX_POLICY_ITEMS: usize = 64;

/// The longest role name, principal, glob or content literal, in bytes.
pub(crate) const MAX_POLICY_ITEM_BYTES: usize = 256;

/// The policy `probity init --policy` writes: the schema label and every
/// section at its default, which turns nothing on (no role, no required
/// signature, no floor beyond the built-in risk policy): a file to edit
/// and commit to the protected base, not yet a rule.
pub const DEFAULT_POLICY: &str = "{\n  \"schema\": \"probity-policy/v1\",\n  \"signatures\": {\n    \"low\": [],\n    \"medium\": [],\n    \"high\": []\n  },\n  \"high_risk\": {\n    \"paths\": [],\n    \"content\": []\n  }\n}\n";

/// The document as written (`probity schema policy`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyDocument {
    /// Exactly `probity-policy/v1`.
    pub schema: String,
    /// The allowed-signers file, a path in the same tree as the policy
    /// (e.g. `.probity/allowed_signers`). A server's own
    /// `probity.allowedSignersFile` takes precedence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_signers: Option<String>,
    /// Each role's principals, as the allowed-signers file names them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub roles: BTreeMap<String, Vec<String>>,
    /// Per risk tier, the roles that must sign every approved review that
    /// authorizes a delivery, each by a different key.
    #[serde(default)]
    pub signatures: TierRoles,
    /// The roles that must also sign an approved review made after an
    /// authorized act (a recovery of an escalated review,
    /// `escalation_authorized`): the maintainer's signature over that
    /// review's statement binds the successor's lineage, which derives
    /// from the predecessor link (lineage, revision, disposition, reason,
    /// actor, authorization). Free text in `--authorization` never counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorize: Vec<String>,
    /// `probity-policy/v2` only: the tiers (`medium`, `high`) at which
    /// every lens result of an approved review that authorizes a delivery
    /// must come from `probity review` (a model run whose result ends with
    /// the binding to its kept transcript and to the prompt the lineage
    /// froze), not from `lens submit` or `finalize --result`. Each tier
    /// named must name roles in `signatures`: a binding is text anyone can
    /// write, and those roles' signatures vouch that the runs happened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcripts: Vec<RiskLevel>,
    /// What makes a change high risk beyond the built-in risk policy.
    #[serde(default)]
    pub high_risk: HighRisk,
}

/// Per risk tier, the roles that must sign.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TierRoles {
    /// Roles for a low-risk approval.
    #[serde(default)]
    pub low: Vec<String>,
    /// Roles for a medium-risk approval.
    #[serde(default)]
    pub medium: Vec<String>,
    /// Roles for a high-risk approval.
    #[serde(default)]
    pub high: Vec<String>,
}

/// Path globs and content literals that rate a change high.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HighRisk {
    /// Globs over changed paths (`crypto/**`, `*.pem`), as the reviewer
    /// tools' globs read them.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Byte strings (UTF-8) whose presence in a changed file's scanned
    /// content rates the change high (`BEGIN RSA PRIVATE KEY`, `AKIA`).
    #[serde(default)]
    pub content: Vec<String>,
}

/// A parsed, checked policy: only [`RepoPolicy::parse`] makes one.
#[derive(Debug, Clone)]
pub struct RepoPolicy {
    doc: PolicyDocument,
    globs: Vec<Option<Glob>>,
}

/// Why a policy document is refused (`policy_invalid`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// Over [`MAX_POLICY_BYTES`].
    #[error("the policy is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The bound.
        limit: usize,
    },
    /// Not strict JSON of the document's shape.
    #[error("the policy is not a probity-policy/v1 document: {0}")]
    Shape(String),
    /// Another schema label.
    #[error(
        "the policy's schema is `{0}`; this build reads `probity-policy/v1` and `probity-policy/v2`"
    )]
    Schema(String),
    /// A value breaks a rule of the document.
    #[error("the policy's {field}: {why}")]
    Value {
        /// Where (`roles.maintainer`, `high_risk.paths[2]`).
        field: String,
        /// What is wrong.
        why: String,
    },
}

impl PolicyError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        "policy_invalid"
    }
}

fn value(field: impl Into<String>, why: impl Into<String>) -> PolicyError {
    PolicyError::Value {
        field: field.into(),
        why: why.into(),
    }
}

fn check_count<T>(field: &str, items: &[T]) -> Result<(), PolicyError> {
    if items.len() > MAX_POLICY_ITEMS {
        return Err(value(
            field,
            format!(
                "{} entries, over the limit of {MAX_POLICY_ITEMS}",
                items.len()
            ),
        ));
    }
    Ok(())
}

fn check_item(field: &str, item: &str) -> Result<(), PolicyError> {
    if item.is_empty() {
        return Err(value(field, "empty"));
    }
    if item.len() > MAX_POLICY_ITEM_BYTES {
        return Err(value(
            field,
            format!("longer than {MAX_POLICY_ITEM_BYTES} bytes"),
        ));
    }
    if item.chars().any(char::is_control) {
        return Err(value(field, "holds a control character"));
    }
    Ok(())
}

/// A role name: lowercase ASCII letters, digits and `-`, starting with a
/// letter.
fn check_role_name(field: &str, name: &str) -> Result<(), PolicyError> {
    check_item(field, name)?;
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    if !first_ok
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(value(
            field,
            format!(
                "`{name}` is not a role name (lowercase letters, digits and `-`, starting with a letter)"
            ),
        ));
    }
    Ok(())
}

/// A principal as git's allowed-signers format names one: no whitespace,
/// no comma (the list separator), no quote.
fn check_principal(field: &str, p: &str) -> Result<(), PolicyError> {
    check_item(field, p)?;
    if p.chars().any(|c| c.is_whitespace() || c == ',' || c == '"') {
        return Err(value(
            field,
            format!("`{p}` is not a principal (no whitespace, comma or quote)"),
        ));
    }
    Ok(())
}

/// `transcripts`: a v2 field; each tier once, never `low` (no lens runs
/// there), and each vouched for by the tier's signing roles.
fn check_transcript_tiers(doc: &PolicyDocument, v2: bool) -> Result<(), PolicyError> {
    let field = "transcripts";
    if doc.transcripts.is_empty() {
        return Ok(());
    }
    if !v2 {
        return Err(value(
            field,
            format!("is a `{POLICY_SCHEMA_V2}` field: label the document `{POLICY_SCHEMA_V2}`"),
        ));
    }
    check_count(field, &doc.transcripts)?;
    let mut seen = Vec::new();
    for &tier in &doc.transcripts {
        let name = tier.name();
        if seen.contains(&tier) {
            return Err(value(field, format!("names `{name}` twice")));
        }
        seen.push(tier);
        let roles = match tier {
            RiskLevel::Low => {
                return Err(value(
                    field,
                    "names `low`, where no lens runs: name `medium` or `high`",
                ));
            }
            RiskLevel::Medium => &doc.signatures.medium,
            RiskLevel::High => &doc.signatures.high,
        };
        if roles.is_empty() {
            return Err(value(
                field,
                format!(
                    "asks for transcripts at `{name}`, but signatures.{name} names no role to vouch for them: a binding alone is text anyone can write"
                ),
            ));
        }
    }
    Ok(())
}

impl RepoPolicy {
    /// Parses and checks a policy document: strict JSON (no duplicate key,
    /// nothing after it), no unknown field, the one schema label, bounded
    /// lists, role names and principals well formed, every role a tier
    /// names declared with at least one principal, globs valid, and an
    /// `allowed_signers` path that is relative and stays in the tree.
    pub fn parse(bytes: &[u8]) -> Result<Self, PolicyError> {
        if bytes.len() > MAX_POLICY_BYTES {
            return Err(PolicyError::TooLarge {
                size: bytes.len(),
                limit: MAX_POLICY_BYTES,
            });
        }
        let doc: PolicyDocument = from_slice_strict(bytes).map_err(|e| match e {
            StrictError::Text(e) => PolicyError::Shape(e.to_string()),
            StrictError::Shape(e) => PolicyError::Shape(e),
        })?;
        let v2 = match doc.schema.as_str() {
            POLICY_SCHEMA => false,
            POLICY_SCHEMA_V2 => true,
            _ => return Err(PolicyError::Schema(doc.schema)),
        };
        if let Some(path) = &doc.allowed_signers {
            check_item("allowed_signers", path)?;
            crate::review::ids::RepoPath::parse(path).map_err(|e| {
                value(
                    "allowed_signers",
                    format!("`{path}` is not a path in the repository: {e}"),
                )
            })?;
        }
        check_count("roles", &doc.roles.iter().collect::<Vec<_>>())?;
        for (name, principals) in &doc.roles {
            let field = format!("roles.{name}");
            check_role_name("roles", name)?;
            check_count(&field, principals)?;
            if principals.is_empty() {
                return Err(value(field, "no principal holds the role"));
            }
            for p in principals {
                check_principal(&field, p)?;
            }
        }
        for (field, roles) in [
            ("signatures.low", &doc.signatures.low),
            ("signatures.medium", &doc.signatures.medium),
            ("signatures.high", &doc.signatures.high),
            ("authorize", &doc.authorize),
        ] {
            check_count(field, roles)?;
            let mut seen = std::collections::BTreeSet::new();
            for r in roles {
                check_role_name(field, r)?;
                if !doc.roles.contains_key(r) {
                    return Err(value(
                        field,
                        format!("names `{r}`, which `roles` does not declare"),
                    ));
                }
                if !seen.insert(r) {
                    return Err(value(field, format!("names `{r}` twice")));
                }
            }
        }
        check_transcript_tiers(&doc, v2)?;
        check_count("high_risk.paths", &doc.high_risk.paths)?;
        check_count("high_risk.content", &doc.high_risk.content)?;
        let mut globs = Vec::new();
        for (i, g) in doc.high_risk.paths.iter().enumerate() {
            let field = format!("high_risk.paths[{i}]");
            check_item(&field, g)?;
            let glob = Glob::parse(g.as_bytes())
                .map_err(|e| value(&field, format!("`{g}` is not a glob: {e}")))?;
            globs.push(glob);
        }
        for (i, c) in doc.high_risk.content.iter().enumerate() {
            check_item(&format!("high_risk.content[{i}]"), c)?;
        }
        Ok(Self { doc, globs })
    }

    /// The document as written.
    pub fn document(&self) -> &PolicyDocument {
        &self.doc
    }

    /// The allowed-signers path the policy names in its own tree.
    pub fn allowed_signers(&self) -> Option<&str> {
        self.doc.allowed_signers.as_deref()
    }

    /// The roles that must sign an approval of `level`.
    pub fn required_roles(&self, level: RiskLevel) -> &[String] {
        match level {
            RiskLevel::Low => &self.doc.signatures.low,
            RiskLevel::Medium => &self.doc.signatures.medium,
            RiskLevel::High => &self.doc.signatures.high,
        }
    }

    /// The roles that must sign an approved review of tier `level`, with
    /// the `authorize` roles added (once each) when the review follows an
    /// authorized act (`after_authorized_act`).
    pub fn roles_for(&self, level: RiskLevel, after_authorized_act: bool) -> Vec<String> {
        let mut roles = self.required_roles(level).to_vec();
        if after_authorized_act {
            for r in &self.doc.authorize {
                if !roles.contains(r) {
                    roles.push(r.clone());
                }
            }
        }
        roles
    }

    /// Whether the lens results of an approved review of tier `level` must
    /// be model runs bound to their transcripts (`transcripts`, D-R103).
    pub fn transcripts_required(&self, level: RiskLevel) -> bool {
        self.doc.transcripts.contains(&level)
    }

    /// Whether any tier, or an authorized act, asks for a signature.
    pub fn requires_signatures(&self) -> bool {
        !self.doc.authorize.is_empty()
            || [RiskLevel::Low, RiskLevel::Medium, RiskLevel::High]
                .into_iter()
                .any(|l| !self.required_roles(l).is_empty())
    }

    /// The principals holding `role` (empty for an undeclared role).
    pub fn holders(&self, role: &str) -> &[String] {
        self.doc.roles.get(role).map_or(&[], Vec::as_slice)
    }

    /// The floor reasons this policy gives a change (sorted, unique; each
    /// high): `policy_dir` for a path under [`POLICY_DIR`],
    /// `allowed_signers` for the allowed-signers file the policy names,
    /// wherever it is (trust material outside [`POLICY_DIR`] is still
    /// trust material: a key added there fills a role), `path#<i>` for
    /// a changed path matching `high_risk.paths[i]`, `content#<i>` for a
    /// changed file whose scanned content (either side) holds
    /// `high_risk.content[i]`.
    pub fn floor_reasons(&self, changed: &[ChangedFile]) -> Vec<RiskReason> {
        let mut out = Vec::new();
        // One pass per file side over every literal (the automaton's
        // pattern ids are the non-empty literals' indexes: parse refuses an
        // empty one).
        let content = literal_matcher(&self.doc.high_risk.content);
        for f in changed {
            let path = f.path.as_str();
            if path.starts_with(POLICY_DIR) {
                out.push(RiskReason::PolicyFloor("policy_dir".into()));
            }
            if self.doc.allowed_signers.as_deref() == Some(path) {
                out.push(RiskReason::PolicyFloor("allowed_signers".into()));
            }
            for (i, g) in self.globs.iter().enumerate() {
                // `None` is the glob that means everything.
                if g.as_ref().is_none_or(|g| g.matches(path.as_bytes())) {
                    out.push(RiskReason::PolicyFloor(format!("path#{i}")));
                }
            }
            if let Some(m) = &content {
                for side in [f.content.bytes(), f.base_content.bytes()]
                    .into_iter()
                    .flatten()
                {
                    for hit in m.find_overlapping_iter(side) {
                        out.push(RiskReason::PolicyFloor(format!(
                            "content#{}",
                            hit.pattern().as_usize()
                        )));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// One key that verified over a statement, with every principal the
/// allowed-signers file lists for it and under which it verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedKey {
    /// `SHA256:` fingerprint.
    pub keyid: String,
    /// Its principals.
    pub principals: Vec<String>,
}

/// Which role each key signed for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleAssignment {
    /// `(role, keyid)`, in the order the policy names the roles.
    pub signed: Vec<(String, String)>,
}

/// The roles no distinct verified key could fill (`roles_unmet`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {level} review needs signatures of {required:?}, each by a different key; {} cannot be filled by the {keys} key(s) that signed",
    unmet.join(", ")
)]
pub struct RolesUnmet {
    /// The tier.
    pub level: &'static str,
    /// Every role the review needs.
    pub required: Vec<String>,
    /// The roles left unfilled by a maximum assignment.
    pub unmet: Vec<String>,
    /// How many distinct keys verified.
    pub keys: usize,
}

impl RepoPolicy {
    /// Assigns each of `roles` (what [`Self::roles_for`] gives a review of
    /// tier `level`) to a different verified key whose principals include
    /// one of the role's holders (a maximum bipartite matching, so the
    /// answer does not depend on the order keys arrive in). `Ok` with the
    /// assignment when every role is filled; otherwise the roles a maximum
    /// assignment leaves empty.
    pub fn assign_roles(
        &self,
        level: RiskLevel,
        roles: &[String],
        keys: &[VerifiedKey],
    ) -> Result<RoleAssignment, RolesUnmet> {
        // can[r] = the keys that may fill role r.
        let can: Vec<Vec<usize>> = roles
            .iter()
            .map(|r| {
                let holders = self.holders(r);
                keys.iter()
                    .enumerate()
                    .filter(|(_, k)| k.principals.iter().any(|p| holders.contains(p)))
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        let mut owner: Vec<Option<usize>> = vec![None; keys.len()];
        fn augment(
            r: usize,
            can: &[Vec<usize>],
            owner: &mut [Option<usize>],
            seen: &mut [bool],
        ) -> bool {
            for &k in &can[r] {
                if seen[k] {
                    continue;
                }
                seen[k] = true;
                let free = match owner[k] {
                    None => true,
                    Some(other) => augment(other, can, owner, seen),
                };
                if free {
                    owner[k] = Some(r);
                    return true;
                }
            }
            false
        }
        for r in 0..roles.len() {
            let mut seen = vec![false; keys.len()];
            augment(r, &can, &mut owner, &mut seen);
        }
        let mut filled: Vec<Option<usize>> = vec![None; roles.len()];
        for (k, o) in owner.iter().enumerate() {
            if let Some(r) = o {
                filled[*r] = Some(k);
            }
        }
        let unmet: Vec<String> = roles
            .iter()
            .zip(&filled)
            .filter(|(_, k)| k.is_none())
            .map(|(r, _)| r.clone())
            .collect();
        if !unmet.is_empty() {
            return Err(RolesUnmet {
                level: level.name(),
                required: roles.to_vec(),
                unmet,
                keys: keys.len(),
            });
        }
        Ok(RoleAssignment {
            signed: roles
                .iter()
                .zip(filled)
                .filter_map(|(r, k)| k.map(|k| (r.clone(), keys[k].keyid.clone())))
                .collect(),
        })
    }
}

/// A record whose frozen tier is below what the base's policy rates its
/// change (`policy_floor_unmet`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "review {lineage} froze risk `{recorded}`, but the base's policy rates its change high ({}): review it again under the policy",
    reasons.join(", ")
)]
pub struct FloorUnmet {
    /// The lineage.
    pub lineage: String,
    /// The tier it froze.
    pub recorded: &'static str,
    /// The floor reasons, as codes.
    pub reasons: Vec<String>,
}

/// Whether a record's frozen tier meets the floor `policy` gives its change
/// (`changed`: the record's own base → candidate diff).
pub fn check_floor(
    policy: &RepoPolicy,
    lineage: &str,
    recorded: RiskLevel,
    changed: &[ChangedFile],
) -> Result<(), FloorUnmet> {
    let floor = policy.floor_reasons(changed);
    if floor.is_empty() || recorded == RiskLevel::High {
        return Ok(());
    }
    Err(FloorUnmet {
        lineage: lineage.to_string(),
        recorded: recorded.name(),
        reasons: floor.iter().map(ToString::to_string).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::ids::RepoPath;
    use crate::review::snapshot::{CandidateContent, FileMode, LineCount};

    fn policy(json: &str) -> RepoPolicy {
        RepoPolicy::parse(json.as_bytes()).unwrap()
    }

    /// `transcripts` (D-R103): a v2 field, at `medium` or `high` only,
    /// each once, and only beside the tier's signing roles.
    #[test]
    fn transcripts_are_a_v2_field_vouched_for_by_the_tiers_roles() {
        let with = |schema: &str, tiers: &str, medium: &str| {
            format!(
                r#"{{"schema":"{schema}","roles":{{"ci":["ci@example.org"]}},"signatures":{{"medium":[{medium}],"high":["ci"]}},"transcripts":[{tiers}]}}"#
            )
        };
        let p = policy(&with(POLICY_SCHEMA_V2, r#""medium","high""#, r#""ci""#));
        assert!(p.transcripts_required(RiskLevel::Medium));
        assert!(p.transcripts_required(RiskLevel::High));
        assert!(!p.transcripts_required(RiskLevel::Low));
        let p = policy(&with(POLICY_SCHEMA_V2, r#""high""#, ""));
        assert!(!p.transcripts_required(RiskLevel::Medium));
        // A v2 document without the field reads as v1 does.
        assert!(!policy(r#"{"schema":"probity-policy/v2"}"#).transcripts_required(RiskLevel::High));
        for (doc, why) in [
            (
                with(POLICY_SCHEMA, r#""high""#, r#""ci""#),
                "is a `probity-policy/v2` field",
            ),
            (with(POLICY_SCHEMA_V2, r#""low""#, r#""ci""#), "names `low`"),
            (
                with(POLICY_SCHEMA_V2, r#""high","high""#, r#""ci""#),
                "names `high` twice",
            ),
            (
                with(POLICY_SCHEMA_V2, r#""medium""#, ""),
                "signatures.medium names no role",
            ),
            (
                with(POLICY_SCHEMA_V2, r#""extreme""#, r#""ci""#),
                "unknown variant",
            ),
        ] {
            let e = RepoPolicy::parse(doc.as_bytes()).unwrap_err();
            assert!(e.to_string().contains(why), "{doc}: {e}");
            assert_eq!(e.code(), "policy_invalid");
        }
        assert!(matches!(
            RepoPolicy::parse(br#"{"schema":"probity-policy/v3"}"#),
            Err(PolicyError::Schema(_))
        ));
    }

    /// `init --policy`'s file parses, is the document's defaults written
    /// out, and turns nothing on.
    #[test]
    fn the_default_policy_parses_and_turns_nothing_on() {
        let p = policy(DEFAULT_POLICY);
        assert_eq!(
            serde_json::to_string_pretty(p.document()).unwrap() + "\n",
            DEFAULT_POLICY
        );
        assert!(!p.requires_signatures());
        assert!(p.allowed_signers().is_none());
        for level in [RiskLevel::Low, RiskLevel::Medium, RiskLevel::High] {
            assert!(p.required_roles(level).is_empty());
        }
    }

    fn two_roles() -> RepoPolicy {
        policy(
            r#"{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers",
            "roles":{"reviewer":["ci@x","alice@x"],"maintainer":["alice@x"]},
            "signatures":{"medium":["reviewer"],"high":["reviewer","maintainer"]}}"#,
        )
    }

    fn key(id: &str, principals: &[&str]) -> VerifiedKey {
        VerifiedKey {
            keyid: id.into(),
            principals: principals.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn file(path: &str, content: &[u8]) -> ChangedFile {
        ChangedFile {
            path: RepoPath::parse(path).unwrap(),
            old_mode: Some(FileMode::Regular),
            new_mode: Some(FileMode::Regular),
            lines: LineCount::Text {
                added: 1,
                removed: 0,
            },
            text_lines: 1,
            content: CandidateContent::Bytes {
                bytes: content.to_vec(),
                complete: true,
            },
            base_content: CandidateContent::Absent,
        }
    }

    #[test]
    fn a_minimal_policy_asks_for_nothing() {
        let p = policy(r#"{"schema":"probity-policy/v1"}"#);
        assert!(!p.requires_signatures());
        let roles = p.roles_for(RiskLevel::High, true);
        assert!(roles.is_empty());
        assert!(p.assign_roles(RiskLevel::High, &roles, &[]).is_ok());
        assert!(p.floor_reasons(&[file("src/a.rs", b"x")]).is_empty());
    }

    #[test]
    fn bad_documents_are_refused_with_where() {
        let cases: &[(&str, &str)] = &[
            (r#"{"schema":"probity-policy/v9"}"#, "schema"),
            (r#"{"schema":"probity-policy/v1","x":1}"#, "unknown field"),
            (
                r#"{"schema":"probity-policy/v1","schema":"probity-policy/v1"}"#,
                "twice",
            ),
            (
                r#"{"schema":"probity-policy/v1","signatures":{"high":["maintainer"]}}"#,
                "does not declare",
            ),
            (
                r#"{"schema":"probity-policy/v1","roles":{"maintainer":[]}}"#,
                "no principal",
            ),
            (
                r#"{"schema":"probity-policy/v1","roles":{"Maint":["a"]}}"#,
                "not a role name",
            ),
            (
                r#"{"schema":"probity-policy/v1","roles":{"m":["a b"]}}"#,
                "not a principal",
            ),
            (
                r#"{"schema":"probity-policy/v1","allowed_signers":"../keys"}"#,
                "not a path",
            ),
            (
                r#"{"schema":"probity-policy/v1","high_risk":{"paths":["../x"]}}"#,
                "not a glob",
            ),
            (
                r#"{"schema":"probity-policy/v1","high_risk":{"content":[""]}}"#,
                "empty",
            ),
        ];
        for (doc, why) in cases {
            let e = RepoPolicy::parse(doc.as_bytes()).unwrap_err();
            assert_eq!(e.code(), "policy_invalid");
            assert!(e.to_string().contains(why), "{doc}: {e}");
        }
        let big = vec![b' '; MAX_POLICY_BYTES + 1];
        assert!(matches!(
            RepoPolicy::parse(&big),
            Err(PolicyError::TooLarge { .. })
        ));
    }

    #[test]
    fn one_key_cannot_fill_two_roles() {
        let p = two_roles();
        // alice holds both roles, but one key signs for one.
        let high = p.roles_for(RiskLevel::High, false);
        let medium = p.roles_for(RiskLevel::Medium, false);
        let e = p
            .assign_roles(RiskLevel::High, &high, &[key("K1", &["alice@x"])])
            .unwrap_err();
        assert_eq!(e.unmet, vec!["maintainer".to_string()]);
        // The agent's own key is nobody's role.
        let e = p
            .assign_roles(RiskLevel::Medium, &medium, &[key("AGENT", &["agent@x"])])
            .unwrap_err();
        assert_eq!(e.unmet, vec!["reviewer".to_string()]);
        // Two keys: whichever order they come in, the matching fills both.
        for keys in [
            vec![key("K1", &["alice@x"]), key("K2", &["ci@x"])],
            vec![key("K2", &["ci@x"]), key("K1", &["alice@x"])],
        ] {
            let a = p.assign_roles(RiskLevel::High, &high, &keys).unwrap();
            assert_eq!(
                a.signed,
                vec![
                    ("reviewer".to_string(), "K2".to_string()),
                    ("maintainer".to_string(), "K1".to_string())
                ]
            );
        }
        let low = p.roles_for(RiskLevel::Low, false);
        assert!(p.assign_roles(RiskLevel::Low, &low, &[]).is_ok());
    }

    #[test]
    fn an_authorized_act_adds_its_roles_once() {
        let p = policy(
            r#"{"schema":"probity-policy/v1","roles":{"reviewer":["a"],"maintainer":["m"]},
            "signatures":{"medium":["reviewer"],"high":["reviewer","maintainer"]},
            "authorize":["maintainer"]}"#,
        );
        assert!(p.requires_signatures());
        assert_eq!(p.roles_for(RiskLevel::Medium, false), vec!["reviewer"]);
        assert_eq!(
            p.roles_for(RiskLevel::Medium, true),
            vec!["reviewer", "maintainer"]
        );
        assert_eq!(
            p.roles_for(RiskLevel::High, true),
            vec!["reviewer", "maintainer"]
        );
        let e = RepoPolicy::parse(br#"{"schema":"probity-policy/v1","authorize":["maintainer"]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("authorize"), "{e}");
    }

    #[test]
    fn floors_name_their_rule_and_raise_the_tier() {
        let p = policy(
            r#"{"schema":"probity-policy/v1","high_risk":{"paths":["crypto/**"],"content":["AKIA"]}}"#,
        );
        assert_eq!(
            p.floor_reasons(&[
                file("crypto/aes.rs", b"fn f() {}"),
                file("src/cfg.rs", b"key = \"AKIAABCDEFGHIJKLMNOP\""),
                file(".probity/allowed_signers", b"a ssh-ed25519 AAAA"),
                file("src/ok.rs", b"fn g() {}"),
            ])
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
            vec![
                "policy_floor:content#0",
                "policy_floor:path#0",
                "policy_floor:policy_dir"
            ]
        );
        assert!(
            p.floor_reasons(&[file("src/ok.rs", b"fn g() {}")])
                .is_empty()
        );
        let e = check_floor(&p, "L", RiskLevel::Medium, &[file("crypto/a.rs", b"")]).unwrap_err();
        assert_eq!(e.reasons, vec!["policy_floor:path#0".to_string()]);
        assert!(check_floor(&p, "L", RiskLevel::High, &[file("crypto/a.rs", b"")]).is_ok());
        // The reason round-trips through its wire spelling.
        let r: RiskReason = serde_json::from_str("\"policy_floor:path#0\"").unwrap();
        assert!(r.is_high());
    }

    /// The allowed-signers file the policy names is trust material
    /// wherever it is: a change to it is high, outside `.probity/` too.
    #[test]
    fn the_named_allowed_signers_file_is_a_floor_wherever_it_is() {
        let p =
            policy(r#"{"schema":"probity-policy/v1","allowed_signers":"keys/allowed_signers"}"#);
        assert_eq!(
            p.floor_reasons(&[
                file("keys/allowed_signers", b"a ssh-ed25519 AAAA"),
                file("keys/other", b"b"),
            ])
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
            vec!["policy_floor:allowed_signers"]
        );
        let e = check_floor(
            &p,
            "L",
            RiskLevel::Low,
            &[file("keys/allowed_signers", b"")],
        )
        .unwrap_err();
        assert_eq!(e.reasons, vec!["policy_floor:allowed_signers".to_string()]);
    }
}
