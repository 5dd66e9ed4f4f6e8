//! JSON Schema 2020-12 of every role and authority document (R1.4),
//! generated from the Rust types that parse them.

use schemars::{JsonSchema, Schema, generate::SchemaSettings};
use serde_json::{Value, json};

use crate::review::bundle::Bundle;
use crate::review::finding::{RefuterResult, ReviewerResult, ValidatorResult};
use crate::review::receipt::Receipt;
use crate::review::state::StateRecord;

/// The documents `probity schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaDoc {
    /// A lens's result, `{findings, evidence}` (R3.1): `reviewer-result/v1`.
    Reviewer,
    /// The refuter's one batch of outcomes over the admitted inferential
    /// findings (R3.3): `refuter-batch/v1`.
    Refuter,
    /// The targeted validator's answer on a correction (R3.4):
    /// `validator-result/v1`.
    Validator,
    /// The fourteen-field receipt of a terminal lineage (R7.5):
    /// `review-receipt/v1`.
    Receipt,
    /// The stored `{schema, revision, state}` record (R7.2):
    /// `review-state-record/v1`.
    State,
    /// The transport bundle of records and receipts (R11.1):
    /// `review-bundle/v2`, which reads v1 (v2 without `evidence`, D-R69).
    Bundle,
    /// The repository policy read from the protected base
    /// (`.probity/policy.json`): `probity-policy/v1`.
    Policy,
    /// The repository policy with `transcripts` (D-R103):
    /// `probity-policy/v2`, which is v1 and that one field.
    PolicyV2,
    /// The required checks read from the protected base
    /// (`.probity/checks.json`): `probity-checks/v1`.
    Checks,
    /// The state record's schema, second revision (D-R128): as
    /// [`SchemaDoc::State`], its `RiskReason` accepting every reason a
    /// built-in policy gives (v2's and v3's) and `policy_floor:<rule>`.
    StateR2,
    /// The bundle's schema, second revision (D-R128): as
    /// [`SchemaDoc::Bundle`], with [`SchemaDoc::StateR2`]'s `RiskReason`.
    BundleR2,
    /// The state record's schema, third revision (D-R132): as
    /// [`SchemaDoc::StateR2`], its `EscalationReason` accepting
    /// `risk_raised_by_correction`.
    StateR3,
    /// The bundle's schema, third revision (D-R132): as
    /// [`SchemaDoc::BundleR2`], with [`SchemaDoc::StateR3`]'s
    /// `EscalationReason`.
    BundleR3,
}

/// The escalation reasons the third revisions added (D-R132): the first
/// and second revisions, pinned by golden/, list every other one.
const ESCALATION_REASONS_R3: [&str; 1] = ["risk_raised_by_correction"];

/// The `RiskReason` pattern of the second schema revisions: every code
/// [`crate::review::RiskReason`] parses. `adjacent_tokens:` splits at its
/// first `+`; a `policy_floor:` rule holds no character Rust reads as
/// whitespace (`char::is_whitespace`).
pub const RISK_REASON_PATTERN_R2: &str = "^(path_token:.+|adjacent_tokens:[^+]+\\+.+|shell_source|ci_config|executable_bit_change|process_spawn|unscanned_content|large_change|agent_hooks|auto_run_config|policy_floor:[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+|docs_only|code_change|agent_instructions|doc_code_block)$";

impl SchemaDoc {
    /// Every document kind, for tests and listings.
    pub const ALL: [SchemaDoc; 13] = [
        SchemaDoc::Reviewer,
        SchemaDoc::Refuter,
        SchemaDoc::Validator,
        SchemaDoc::Receipt,
        SchemaDoc::State,
        SchemaDoc::Bundle,
        SchemaDoc::Policy,
        SchemaDoc::PolicyV2,
        SchemaDoc::Checks,
        SchemaDoc::StateR2,
        SchemaDoc::BundleR2,
        SchemaDoc::StateR3,
        SchemaDoc::BundleR3,
    ];

    /// The name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            SchemaDoc::Reviewer => "reviewer",
            SchemaDoc::Refuter => "refuter",
            SchemaDoc::Validator => "validator",
            SchemaDoc::Receipt => "receipt",
            SchemaDoc::State => "state",
            SchemaDoc::Bundle => "bundle",
            SchemaDoc::Policy => "policy",
            SchemaDoc::PolicyV2 => "policy-v2",
            SchemaDoc::Checks => "checks",
            SchemaDoc::StateR2 => "state-r2",
            SchemaDoc::BundleR2 => "bundle-r2",
            SchemaDoc::StateR3 => "state-r3",
            SchemaDoc::BundleR3 => "bundle-r3",
        }
    }

    /// The versioned `$id` of the schema.
    pub const fn id(self) -> &'static str {
        match self {
            SchemaDoc::Reviewer => "https://probity.dev/schemas/reviewer-result/v1",
            SchemaDoc::Refuter => "https://probity.dev/schemas/refuter-batch/v1",
            SchemaDoc::Validator => "https://probity.dev/schemas/validator-result/v1",
            SchemaDoc::Receipt => "https://probity.dev/schemas/review-receipt/v1",
            SchemaDoc::State => "https://probity.dev/schemas/review-state-record/v1",
            SchemaDoc::Bundle => "https://probity.dev/schemas/review-bundle/v2",
            SchemaDoc::Policy => "https://probity.dev/schemas/probity-policy/v1",
            SchemaDoc::PolicyV2 => "https://probity.dev/schemas/probity-policy/v2",
            SchemaDoc::Checks => "https://probity.dev/schemas/probity-checks/v1",
            SchemaDoc::StateR2 => "https://probity.dev/schemas/review-state-record/v1/r2",
            SchemaDoc::BundleR2 => "https://probity.dev/schemas/review-bundle/v2/r2",
            SchemaDoc::StateR3 => "https://probity.dev/schemas/review-state-record/v1/r3",
            SchemaDoc::BundleR3 => "https://probity.dev/schemas/review-bundle/v2/r3",
        }
    }

    /// The schema as a JSON value.
    pub fn schema(self) -> Value {
        let mut schema = match self {
            SchemaDoc::Reviewer => generate::<ReviewerResult>(),
            SchemaDoc::Refuter => generate::<RefuterResult>(),
            SchemaDoc::Validator => generate::<ValidatorResult>(),
            SchemaDoc::Receipt => generate::<Receipt>(),
            SchemaDoc::State | SchemaDoc::StateR2 | SchemaDoc::StateR3 => generate::<StateRecord>(),
            SchemaDoc::Bundle | SchemaDoc::BundleR2 | SchemaDoc::BundleR3 => generate::<Bundle>(),
            SchemaDoc::Policy | SchemaDoc::PolicyV2 => {
                generate::<crate::review::policy::PolicyDocument>()
            }
            SchemaDoc::Checks => generate::<crate::review::checks::ChecksDocument>(),
        };
        if let Some(obj) = schema.as_object_mut() {
            obj.insert("$id".into(), json!(self.id()));
        }
        match self {
            SchemaDoc::Reviewer => add_reviewer_rules(&mut schema),
            SchemaDoc::Refuter => {
                set(&mut schema, "/properties/outcomes", "minItems", json!(1));
                // One outcome per finding is a parser rule JSON Schema cannot
                // state for a key inside array items; say so in the schema.
                set(
                    &mut schema,
                    "/properties/outcomes",
                    "description",
                    json!(
                        "One outcome per finding awaiting the refuter; a finding_id may appear only once (checked by the parser)."
                    ),
                );
                set(
                    &mut schema,
                    "/properties/outcomes",
                    "uniqueItems",
                    json!(true),
                );
                set(
                    &mut schema,
                    "/$defs/RefuterOutcome/properties/evidence",
                    "minItems",
                    json!(1),
                );
            }
            SchemaDoc::Validator => {
                set(
                    &mut schema,
                    "/$defs/ValidatorCheck/properties/evidence",
                    "minItems",
                    json!(1),
                );
            }
            SchemaDoc::Receipt => {}
            SchemaDoc::State => without_r3_escalations(&mut schema),
            SchemaDoc::Policy => {
                set(
                    &mut schema,
                    "/properties/schema",
                    "const",
                    json!(crate::review::policy::POLICY_SCHEMA),
                );
                // v1 has no `transcripts`: the v2 field, and the risk tier
                // only it names, are left out (v1's bytes as they were).
                remove(&mut schema, "/properties", "transcripts");
                remove(&mut schema, "/$defs", "RiskLevel");
            }
            SchemaDoc::PolicyV2 => {
                set(
                    &mut schema,
                    "/properties/schema",
                    "const",
                    json!(crate::review::policy::POLICY_SCHEMA_V2),
                );
            }
            SchemaDoc::Checks => {
                set(
                    &mut schema,
                    "/properties/schema",
                    "const",
                    json!(crate::review::checks::CHECKS_SCHEMA),
                );
            }
            SchemaDoc::StateR2 => {
                set_risk_reason_r2(&mut schema);
                without_r3_escalations(&mut schema);
            }
            SchemaDoc::StateR3 => set_risk_reason_r2(&mut schema),
            SchemaDoc::Bundle | SchemaDoc::BundleR2 | SchemaDoc::BundleR3 => {
                if self != SchemaDoc::Bundle {
                    set_risk_reason_r2(&mut schema);
                }
                if self != SchemaDoc::BundleR3 {
                    without_r3_escalations(&mut schema);
                }
                set(&mut schema, "/properties/records", "minItems", json!(1));
                set(
                    &mut schema,
                    "/properties/records",
                    "maxItems",
                    json!(crate::review::bundle::MAX_RECORDS),
                );
            }
        }
        schema
    }
}

/// The second revision's `RiskReason` (D-R128); the first revision's
/// pattern, which golden/ pins, listed v1's reasons only.
fn set_risk_reason_r2(schema: &mut Value) {
    set(
        schema,
        "/$defs/RiskReason",
        "pattern",
        json!(RISK_REASON_PATTERN_R2),
    );
}

/// The first and second revisions' `EscalationReason`: without the
/// reasons the third added (their bytes are pinned).
fn without_r3_escalations(schema: &mut Value) {
    if let Some(one_of) = schema
        .pointer_mut("/$defs/EscalationReason/oneOf")
        .and_then(Value::as_array_mut)
    {
        one_of.retain(|v| {
            v.get("const")
                .and_then(Value::as_str)
                .is_none_or(|c| !ESCALATION_REASONS_R3.contains(&c))
        });
    }
}

fn generate<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12();
    let schema: Schema = settings.into_generator().into_root_schema_for::<T>();
    schema.to_value()
}

fn remove(schema: &mut Value, pointer: &str, key: &str) {
    if let Some(obj) = schema.pointer_mut(pointer).and_then(Value::as_object_mut) {
        obj.remove(key);
    }
}

fn set(schema: &mut Value, pointer: &str, key: &str, value: Value) {
    if let Some(obj) = schema.pointer_mut(pointer).and_then(Value::as_object_mut) {
        obj.insert(key.into(), value);
    }
}

/// Rules the derive cannot express: at least one evidence entry, and severe
/// findings carry an evidence class, a causal disposition and a proof ref.
fn add_reviewer_rules(schema: &mut Value) {
    if let Some(ev) = schema
        .pointer_mut("/properties/evidence")
        .and_then(Value::as_object_mut)
    {
        ev.insert("minItems".into(), json!(1));
    }
    set(
        schema,
        "/properties/findings",
        "maxItems",
        json!(crate::review::finding::MAX_FINDINGS),
    );
    if let Some(finding) = schema
        .pointer_mut("/$defs/ReviewerFinding")
        .and_then(Value::as_object_mut)
    {
        finding.insert(
            "if".into(),
            json!({"properties": {"severity": {"enum": ["BLOCKER", "CRITICAL"]}}, "required": ["severity"]}),
        );
        finding.insert(
            "then".into(),
            json!({
                "required": ["evidence_class", "causal_disposition", "proof_refs"],
                "properties": {
                    "proof_refs": {"minItems": 1},
                    "evidence_class": {"$ref": "#/$defs/EvidenceClass"},
                    "causal_disposition": {"$ref": "#/$defs/CausalDisposition"}
                }
            }),
        );
    }
}
