//! The audited link from a successor to its predecessor (R9.2): data the
//! state holds; recovery (`crate::review::recovery`) decides when one may
//! be made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;
use crate::review::ids::{LineageId, NonBlank};

/// Why a successor exists: which final state of the predecessor it follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// The predecessor approved a candidate, and the live candidate changed
    /// inside the paths it reviewed.
    ScopeChanged,
    /// The predecessor was invalidated before any judgment.
    Invalidated,
    /// The predecessor escalated, and a maintainer authorized going on.
    EscalationAuthorized,
}

impl Disposition {
    /// The wire name.
    pub const fn name(self) -> &'static str {
        match self {
            Disposition::ScopeChanged => "scope_changed",
            Disposition::Invalidated => "invalidated",
            Disposition::EscalationAuthorized => "escalation_authorized",
        }
    }
}

/// The audited link from a successor to its predecessor, frozen with the
/// successor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Predecessor {
    /// The predecessor lineage.
    pub lineage_id: LineageId,
    /// The predecessor's exact revision when the successor was created.
    pub revision: Sha256Digest,
    /// Which final state of the predecessor the successor follows.
    pub disposition: Disposition,
    /// Why the successor was made, in the actor's words.
    pub reason: NonBlank,
    /// Who made it.
    pub actor: NonBlank,
    /// The maintainer authorization an escalated predecessor needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<NonBlank>,
}
