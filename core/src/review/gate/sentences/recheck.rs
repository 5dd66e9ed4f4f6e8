//! The sentences of the final recheck (`gate/recheck.rs`, R8.7): what
//! moved, and the denial it makes of an allow.

use std::fmt;

use super::Row;
use crate::review::gate::{GateStage, Moved, NextAction, ReasonCode};

/// One outcome of the final recheck, with what its sentence names.
pub(in crate::review::gate) enum RecheckSaid<'a> {
    /// What the gate read changed while it decided: a denial of the allow.
    AuthorityChanged {
        /// What moved.
        moved: &'a [Moved],
    },
}

impl Row for RecheckSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::Complete;
        use NextAction::Retry;
        match self {
            RecheckSaid::AuthorityChanged { .. } => (ReasonCode::AuthorityChanged, Complete, Retry),
        }
    }

    fn sentence(&self) -> String {
        match self {
            RecheckSaid::AuthorityChanged { moved } => {
                let what = moved
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ");
                format!(
                    "the gate would have allowed, but while it decided {what}: nothing is answered from a mix of old and new reads; run the gate again"
                )
            }
        }
    }
}

impl fmt::Display for Moved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Moved::Record(l) => write!(f, "the record of {l} changed"),
            Moved::Successor(l) => write!(f, "a recovery of {l} started or landed"),
            Moved::Receipt(l) => write!(f, "the receipt file of {l} changed"),
            Moved::Target => write!(f, "the live target changed"),
            Moved::Revision(r) => write!(f, "`{r}` now names another commit"),
            Moved::Index(what) => write!(f, "the store's index entry for {what} changed"),
        }
    }
}
