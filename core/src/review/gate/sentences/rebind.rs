//! The sentences of the rebinds of a denied publication (`gate/rebind.rs`):
//! a recovery chain, and a squash of reviewed commits.

use super::Row;
use crate::review::gate::{GateStage, NextAction, ReasonCode};
use crate::review::ids::{LineageId, TreeId};

/// One outcome of a rebind, with what its sentence names.
pub(in crate::review::gate) enum RebindSaid<'a> {
    /// The delivery is what the recovery chain's run approved, segment
    /// after segment: an allow.
    RecoveryChain {
        /// The lineages of the run delivered, first to last.
        run: &'a [LineageId],
        /// The base tree of the run's first lineage.
        from: &'a TreeId,
        /// The final candidate tree of its last.
        to: &'a TreeId,
        /// The chain's leaf.
        leaf: &'a LineageId,
    },
    /// The delivery is the composition of approved reviews (a squash of
    /// reviewed commits): an allow.
    Composed {
        /// The approved reviews, first to last.
        run: &'a [LineageId],
        /// The base tree of the first.
        from: &'a TreeId,
        /// The final candidate tree of the last.
        to: &'a TreeId,
    },
}

/// A run of lineages as one sentence names it: `a -> b -> c`.
fn run_named(run: &[LineageId]) -> String {
    run.iter()
        .map(LineageId::as_str)
        .collect::<Vec<_>>()
        .join(" -> ")
}

impl Row for RebindSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::Complete;
        match self {
            RebindSaid::RecoveryChain { .. } | RebindSaid::Composed { .. } => {
                (ReasonCode::ReceiptValid, Complete, NextAction::None)
            }
        }
    }

    fn sentence(&self) -> String {
        match self {
            RebindSaid::RecoveryChain {
                run,
                from,
                to,
                leaf,
            } => format!(
                "the delivery is exactly what the recovery chain {} approved, segment after segment, from base tree {} to {} (each review's base is the previous one's approved candidate; the chain's leaf is {leaf})",
                run_named(run),
                from,
                to
            ),
            RebindSaid::Composed { run, from, to } => format!(
                "the delivery is exactly the composition of the approved reviews {}, from base tree {} to {} (each review's base is the previous one's approved candidate): a squash of reviewed commits",
                run_named(run),
                from,
                to
            ),
        }
    }
}
