//! The sentences of the gate's decisions, in tables (issue 25 §8). Each
//! table names the outcomes of one deciding module, one row per outcome,
//! and holds everything a row renders: the machine reason, the stage, the
//! next legal move and the words for people. The deciding functions only
//! pick a row and fill in what it names, so each reason's words live here
//! and nowhere else.

use super::{Decision, Gate, GateDecision, GateStage, NextAction, ReasonCode};
use crate::review::ids::{LineageId, RepoPath};

mod advice;
mod first;
mod pre_pr;
mod push;
mod rebind;
mod recheck;
mod release;
mod stack;
mod target;

pub(super) use advice::AdviceSaid;
pub(super) use first::{FirstSaid, HistoryOffered};
pub(crate) use pre_pr::PrePrSaid;
pub(super) use push::PushSaid;
pub(super) use rebind::RebindSaid;
pub(super) use recheck::RecheckSaid;
pub(crate) use release::ReleaseSaid;
pub(super) use stack::{CommitSaid, Place, StackSaid};
pub(super) use target::{Said, non_utf8_named, superseded_note};

/// The refs a delivery's sentence names, as one list.
fn refs_named(refs: &[String]) -> String {
    refs.join(", ")
}

/// A row of a sentence table: one outcome of a gate decision.
pub(crate) trait Row {
    /// The machine reason, the stage and the next legal move of this
    /// outcome.
    fn row(&self) -> (ReasonCode, GateStage, NextAction);
    /// The sentence for people.
    fn sentence(&self) -> String;
}

/// A denial at `gate`: the row `said` of a sentence table, naming
/// `lineage` and `differing`.
pub(crate) fn deny(
    gate: Gate,
    lineage: Option<&LineageId>,
    differing: &[RepoPath],
    said: &impl Row,
) -> GateDecision {
    let (reason_code, stage, next) = said.row();
    GateDecision::deny(
        gate,
        reason_code,
        stage,
        lineage.cloned(),
        differing.to_vec(),
        next,
        said.sentence(),
    )
}

/// An allow at `gate`: the row `said` of a sentence table, naming
/// `lineage` (the proof, if any, is the caller's to add).
pub(super) fn allow(gate: Gate, lineage: Option<&LineageId>, said: &impl Row) -> GateDecision {
    let (reason_code, stage, next_action) = said.row();
    GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code,
        stage,
        lineage_id: lineage.cloned(),
        differing_paths: Vec::new(),
        next_action,
        message: said.sentence(),
        deliveries: Vec::new(),
        proof: None,
    }
}

#[cfg(test)]
mod tests {
    /// The shipped code of each module that decides at a gate (its inline
    /// test module, if any, cut off).
    const DECIDING: [(&str, &str); 9] = [
        ("target.rs", include_str!("../target.rs")),
        ("push.rs", include_str!("../push.rs")),
        ("stack.rs", include_str!("../stack.rs")),
        ("rebind.rs", include_str!("../rebind.rs")),
        ("first.rs", include_str!("../first.rs")),
        ("recheck.rs", include_str!("../recheck.rs")),
        ("advice.rs", include_str!("../advice.rs")),
        ("../release.rs", include_str!("../../release.rs")),
        ("../pre_pr.rs", include_str!("../../pre_pr.rs")),
    ];

    /// The ways a decision's words were written inline before the tables:
    /// building a denial by hand, or writing a message.
    const INLINE: [&str; 6] = [
        "GateDecision::deny(",
        "GateDecision::boundary(",
        "message: format!",
        "message: \"",
        "message = format!",
        "message = \"",
    ];

    /// The lines of `source` that write a decision's words inline.
    fn inline_words(source: &str) -> Vec<String> {
        let shipped = source
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or(source);
        shipped
            .lines()
            .enumerate()
            .filter(|(_, line)| INLINE.iter().any(|p| line.contains(p)))
            .map(|(i, line)| format!("{}: {}", i + 1, line.trim()))
            .collect()
    }

    #[test]
    fn deciding_modules_only_pick_a_row_of_a_sentence_table() {
        for (file, source) in DECIDING {
            assert_eq!(
                inline_words(source),
                Vec::<String>::new(),
                "gate/{file} writes a decision's words itself: give them a row in gate/sentences/"
            );
        }
    }

    #[test]
    fn an_inline_sentence_is_found() {
        let before = "fn f() -> GateDecision {\n    d.message = format!(\"{x} is not a commit\");\n    GateDecision::deny(gate, r, s, None, Vec::new(), n, m)\n}\n#[cfg(test)]\nmod tests {\n    GateDecision::deny(a);\n}\n";
        assert_eq!(
            inline_words(before),
            vec![
                "2: d.message = format!(\"{x} is not a commit\");".to_string(),
                "3: GateDecision::deny(gate, r, s, None, Vec::new(), n, m)".to_string(),
            ]
        );
    }
}
