//! An answer's next step as the MCP surface says it (issue 22 §5, D-R89):
//! the tool of `probity mcp --authority` to call and its arguments, where a
//! tool does the step, and otherwise the plain statement that no MCP tool
//! does it with the command a person runs.
//!
//! Derived from the same decisions as the command line's sentences (a
//! lineage's [`NextInput`] and final stage, a gate's [`NextAction`], a
//! refused transition): the CLI renders each as a command
//! ([`ReviewState::next_sentence_recovering`], a gate's `message`), the MCP
//! surface as a [`NextTool`]. Only the rendering differs.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::review::gate::{Decision, GateDecision, GateStage, NextAction};
use crate::review::ids::LineageId;
use crate::review::lens::Lens;
use crate::review::recovery::recover_command;
use crate::review::state::{Escalation, NextInput, PERSON_VALUES, ReviewState, Stage, StateRecord};

/// Where a next step is said: the command line names commands, the MCP
/// surface names tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Surface {
    /// `probity ...`: text and `--json`.
    #[default]
    Cli,
    /// `probity mcp --authority`: each answer also carries `next_tool`.
    Mcp,
}

/// The names of the lifecycle tools `probity mcp --authority` serves, in
/// the order it lists them: every [`NextTool::name`] is one of them.
pub mod tool {
    /// Freeze the live candidate (or a commit, a range).
    pub const START: &str = "start";
    /// A lineage's state and next input.
    pub const STATUS: &str = "status";
    /// One lens's prepared context.
    pub const LENS_CONTEXT: &str = "lens_context";
    /// Keep one lens's result.
    pub const LENS_SUBMIT: &str = "lens_submit";
    /// Results and evidence into authority.
    pub const FINALIZE: &str = "finalize";
    /// A gate's decision.
    pub const VALIDATE: &str = "validate";
    /// Every tool, in the order listed.
    pub const ALL: [&str; 6] = [START, STATUS, LENS_CONTEXT, LENS_SUBMIT, FINALIZE, VALIDATE];
}

/// An argument the caller supplies: a document it produced, a check's
/// argv, a value only it knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fill {
    /// The argument's name in the tool's input schema.
    pub argument: &'static str,
    /// What goes there.
    pub what: &'static str,
}

/// A next step on the MCP surface: a tool call, or none (`name` null),
/// with a sentence that names the tool and its arguments, or says that no
/// MCP tool does the step and names the command a person runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NextTool {
    /// The tool to call ([`tool::ALL`]); `None`: no MCP tool does this.
    pub name: Option<&'static str>,
    /// The arguments the answer knows, filled in.
    pub arguments: BTreeMap<&'static str, Value>,
    /// The arguments the caller adds (empty: call it as is).
    pub fill: Vec<Fill>,
    /// The step for people and agents.
    pub message: String,
}

/// The check's argv, which Probity runs (a server that runs checks).
const EVIDENCE_CMD: Fill = Fill {
    argument: "evidence_cmd",
    what: "the independent check's program and arguments, which Probity runs; or give its output as `evidence` instead",
};

/// Why [`EVIDENCE_CMD`] is filled.
const RUN_CHECK: &str = "run the independent check through Probity";

/// The check's output, which the harness produced (a server that runs no
/// command).
const EVIDENCE_TEXT: Fill = Fill {
    argument: "evidence",
    what: "the independent check's output, from a check the harness ran on the frozen candidate; this server runs no command",
};

/// Why [`EVIDENCE_TEXT`] is filled.
const GIVE_CHECK: &str = "give the independent check's output";

/// Who runs the independent check a review's `finalize` asks for, on the
/// MCP surface (D-R123): `probity mcp --authority` runs the argv an agent
/// gives (`evidence_cmd`) only when its operator allowed it
/// (`--allow-evidence-cmd`); otherwise the check is the harness's, and its
/// output is the `evidence` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Checks {
    /// The harness runs the check; the server runs no command.
    #[default]
    ByHarness,
    /// The server runs the argv an agent gives as `evidence_cmd`.
    ByServer,
}

/// The words every step no tool does starts with.
pub(crate) const NO_TOOL: &str = "no MCP tool does this";

impl NextTool {
    fn call(
        name: &'static str,
        arguments: BTreeMap<&'static str, Value>,
        fill: Vec<Fill>,
        why: &str,
    ) -> Self {
        let args = if arguments.is_empty() {
            "no arguments".to_string()
        } else {
            Value::Object(
                arguments
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), v.clone()))
                    .collect(),
            )
            .to_string()
        };
        let filled = if fill.is_empty() {
            String::new()
        } else {
            format!(
                ", adding {}",
                fill.iter()
                    .map(|f| format!("`{}` ({})", f.argument, f.what))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        };
        NextTool {
            name: Some(name),
            message: format!("{why}: call `{name}` with {args}{filled}"),
            arguments,
            fill,
        }
    }

    /// This step as a server whose checks are run by `checks` says it: a
    /// step that fills `evidence_cmd` fills `evidence` instead when the
    /// server runs no command ([`Checks::ByHarness`]), so the step it
    /// names is one its tools take.
    pub fn for_checks(self, checks: Checks) -> Self {
        if checks == Checks::ByServer || !self.fill.contains(&EVIDENCE_CMD) {
            return self;
        }
        match self.name {
            Some(name) => NextTool::call(name, self.arguments, vec![EVIDENCE_TEXT], GIVE_CHECK),
            None => self,
        }
    }

    /// A step no tool does: `person` says what a person does, naming the
    /// command they run.
    fn person(person: String) -> Self {
        NextTool {
            name: None,
            arguments: BTreeMap::new(),
            fill: Vec::new(),
            message: format!("{NO_TOOL}; {person}"),
        }
    }

    /// This call, its sentence followed by what no tool does.
    fn and_person(mut self, person: &str) -> Self {
        self.message = format!("{}; {NO_TOOL} for the rest: {person}", self.message);
        self
    }

    /// `status` of `lineage` with its next transition: what names the
    /// next input of a lineage in review.
    pub fn status(lineage: &LineageId, why: &str) -> Self {
        Self::call(
            tool::STATUS,
            args([
                ("lineage", lineage.to_string().into()),
                ("next_transition", true.into()),
            ]),
            Vec::new(),
            why,
        )
    }

    /// `lens_submit` for one lens of `lineage`, echoing the binding token
    /// the context gave: the step after `lens_context`.
    pub fn lens_submit(lineage: &LineageId, lens: Lens, token: Option<&str>) -> Self {
        let mut a = lineage_lens_args(lineage, lens.name());
        if let Some(t) = token {
            a.insert("binding", t.into());
        }
        Self::call(
            tool::LENS_SUBMIT,
            a,
            vec![Fill {
                argument: "result",
                what: "your strict reviewer result for this lens, in the answer's `schema`",
            }],
            "judge the context as this lens, then keep your result",
        )
    }
}

fn args<const N: usize>(pairs: [(&'static str, Value); N]) -> BTreeMap<&'static str, Value> {
    pairs.into_iter().collect()
}

fn lineage_arg(lineage: &LineageId) -> BTreeMap<&'static str, Value> {
    args([("lineage", lineage.to_string().into())])
}

/// The arguments naming `lineage` and one of its lenses.
fn lineage_lens_args(lineage: &LineageId, lens: &str) -> BTreeMap<&'static str, Value> {
    args([
        ("lineage", lineage.to_string().into()),
        ("lens", lens.into()),
    ])
}

impl NextInput {
    /// [`NextInput::sentence`] on the MCP surface: the tool call that
    /// gives this input. `lenses` are the selected lenses and `kept` the
    /// ones whose results `lens submit` kept: running lenses starts with
    /// the context of the first lens not kept. `None` for a final review.
    pub fn tool(self, lineage: &LineageId, lenses: &[Lens], kept: &[Lens]) -> Option<NextTool> {
        let finalize = |fill: Vec<Fill>, why: &str| {
            NextTool::call(tool::FINALIZE, lineage_arg(lineage), fill, why)
        };
        Some(match self {
            NextInput::RunLenses => match lenses.iter().find(|l| !kept.contains(l)) {
                Some(lens) => NextTool::call(
                    tool::LENS_CONTEXT,
                    lineage_lens_args(lineage, lens.name()),
                    Vec::new(),
                    &format!(
                        "run each selected lens once ({}), starting with `{}`: its context, schema and binding come from the tool",
                        lenses
                            .iter()
                            .map(|l| l.name())
                            .collect::<Vec<_>>()
                            .join(", "),
                        lens.name()
                    ),
                ),
                None => finalize(Vec::new(), "every selected lens result is kept"),
            },
            NextInput::Finalize => finalize(Vec::new(), "every selected lens result is kept"),
            NextInput::ProvideRefuter => finalize(
                vec![Fill {
                    argument: "refuter",
                    what: "the refuter's single batch over the inferential severe findings",
                }],
                "run the refuter once over the inferential severe findings",
            ),
            NextInput::ForecastCorrection => finalize(
                vec![Fill {
                    argument: "correction_lines",
                    what: "the forecast size of the correction in changed lines, before editing",
                }],
                "before editing, forecast the correction size",
            ),
            NextInput::ProvideValidation => finalize(
                vec![Fill {
                    argument: "validation",
                    what: "the targeted validator's result, once the admitted findings are fixed inside the genesis paths",
                }],
                "fix the admitted findings inside the genesis paths and run the targeted validator",
            ),
            NextInput::ProvideEvidence => finalize(vec![EVIDENCE_CMD], RUN_CHECK),
            NextInput::None => return None,
        })
    }
}

impl ReviewState {
    /// [`ReviewState::next_sentence_recovering`] on the MCP surface, from
    /// the same stage and next input: `recover` is the exact `probity
    /// recover` command of a final state (no MCP tool records a successor:
    /// a person runs it), `kept` the lenses whose results are kept.
    pub fn next_tool_recovering(&self, recover: Option<&str>, kept: &[Lens]) -> Option<NextTool> {
        let lineage = &self.lineage_id;
        let recover = recover.map_or_else(
            || {
                format!(
                    "the `probity recover` command that `status` with {{\"lineage\":\"{lineage}\"}} prints with this lineage's revision"
                )
            },
            |cmd| format!("`{cmd}` ({PERSON_VALUES})"),
        );
        Some(match &self.stage {
            Stage::Approved { .. } => NextTool::call(
                tool::VALIDATE,
                args([("gate", "pre-commit".into())]),
                Vec::new(),
                "deliver exactly the reviewed candidate; check it first at the gate (`pre-push` with the remote for a push)",
            )
            .and_person(
                "a person commits the candidate if it is not committed yet and pushes with `probity push <remote>` (it also publishes the review for a server-side gate)",
            ),
            Stage::Escalated {
                reason: Escalation::EvidenceFailed { .. },
                ..
            } => NextTool::person(format!(
                "the independent check failed, so this review escalated: a person decides how it goes on (fix the candidate, or leave it if the failure is not the change's), then, with their authorization, runs {recover}, which reviews the live candidate as the audited successor"
            )),
            Stage::Escalated {
                reason: Escalation::RiskRaisedByCorrection,
                ..
            } => NextTool::person(format!(
                "the correction made the change a higher risk tier than its review ran at, so no approval covers it: a person decides, and with their authorization runs {recover}, which reviews the corrected candidate at its own tier as the audited successor"
            )),
            Stage::Escalated { .. } => NextTool::person(format!(
                "a person decides: with their authorization, they run {recover}, which reviews the live candidate as the audited successor"
            )),
            Stage::Invalidated { .. } => NextTool::call(
                tool::START,
                BTreeMap::new(),
                Vec::new(),
                "review the candidate again",
            )
            .and_person(&format!(
                "recording the successor of this lineage instead is a person's {recover}"
            )),
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Validating { .. } => {
                return self.next_action_kept(kept).tool(
                    lineage,
                    &self.frozen.selected_lenses,
                    kept,
                );
            }
        })
    }
}

/// [`crate::review::recovery::next_sentence_kept`] on the MCP surface: a
/// superseded lineage's next step is its leaf's (`status` of the leaf);
/// otherwise the record's, with a final state's recover command filled in.
pub fn record_next_tool(
    record: &StateRecord,
    kept: &[Lens],
    superseded_by: Option<&LineageId>,
) -> Option<NextTool> {
    if let Some(leaf) = superseded_by {
        return Some(NextTool::status(
            leaf,
            &format!(
                "{} is history, superseded by {leaf}: the leaf names the next step",
                record.state.lineage_id
            ),
        ));
    }
    record
        .state
        .next_tool_recovering(recover_command(record).as_deref(), kept)
}

/// A review of the live candidate: `start`, then the lenses its answer
/// names (the gate's `start_review`, a status with no lineage).
pub fn start_review() -> NextTool {
    NextTool::call(
        tool::START,
        BTreeMap::new(),
        Vec::new(),
        "review the live candidate: start it, then run the lenses its answer names",
    )
}

/// A review of committed work as committed: `start` of `commit`.
pub fn start_commit(commit: &str) -> NextTool {
    NextTool::call(
        tool::START,
        args([("commit", commit.into())]),
        Vec::new(),
        "review the committed change as committed (a stack: `range` BASE..TIP instead)",
    )
}

/// A lens run again under the binding its lineage prepared: its context
/// gives the binding and token to submit with.
pub fn lens_again(lineage: &LineageId, lens: &str) -> NextTool {
    NextTool::call(
        tool::LENS_CONTEXT,
        lineage_lens_args(lineage, lens),
        Vec::new(),
        "the result was prepared for another lineage, candidate or lens: run the lens again from its context, and submit with the binding it gives",
    )
}

/// A refused input whose lineage the refusal does not name: `status` of
/// the default lineage (the one that froze the live candidate) names the
/// next input; give `lineage` for another.
pub fn refused_input_default() -> NextTool {
    NextTool::call(
        tool::STATUS,
        args([("next_transition", true.into())]),
        Vec::new(),
        "this input is not legal now; the status of the live candidate's lineage names the next one (add `lineage` for another)",
    )
}

/// A call whose arguments its tool refused (not the ones its input schema
/// declares): the same tool again, with the arguments its schema declares.
/// `None` for a name that is not a tool's.
pub fn call_again(name: &str) -> Option<NextTool> {
    let name = tool::ALL.into_iter().find(|t| *t == name)?;
    let mut again = NextTool::call(
        name,
        BTreeMap::new(),
        Vec::new(),
        "the arguments were refused and nothing ran",
    );
    again.message = format!(
        "the arguments were refused and nothing ran: call `{name}` again with the arguments its input schema declares (tools/list)"
    );
    Some(again)
}

/// A refusal whose step no tool is named for (a document to fix, a
/// repository to repair, a person's decision): `name` null, and the
/// error's own next step, whose commands are the command line's.
pub fn unnamed(next_action: &str) -> NextTool {
    NextTool {
        name: None,
        arguments: BTreeMap::new(),
        fill: Vec::new(),
        message: format!(
            "no MCP tool is named for this step: follow the error's `next_action` (its commands are the command line's): {next_action}"
        ),
    }
}

/// `finalize` with the independent check's output (`evidence`), of
/// `lineage` when known: the step for an agent that gave `evidence_cmd` to
/// a server that runs no command (D-R123).
pub fn give_check_output(lineage: Option<&LineageId>) -> NextTool {
    NextTool::call(
        tool::FINALIZE,
        lineage.map(lineage_arg).unwrap_or_default(),
        vec![EVIDENCE_TEXT],
        GIVE_CHECK,
    )
}

/// A refused lifecycle input (the wrong stage, a different retry, a stale
/// revision) on the MCP surface: `status` of the lineage names the input
/// it takes now.
pub fn refused_input(lineage: &LineageId) -> NextTool {
    NextTool::status(
        lineage,
        "this input is not legal now; the lineage's next input is named by its status",
    )
}

impl GateDecision {
    /// The gate's next step ([`NextAction`]) on the MCP surface; `None` for
    /// an allow. The decision's `message` stays the command line's.
    pub fn next_tool(&self) -> Option<NextTool> {
        if self.decision == Decision::Allow {
            return None;
        }
        let lineage = self.lineage_id.as_ref();
        let status_of = |why: &str| match lineage {
            Some(l) => NextTool::status(l, why),
            None => NextTool::call(tool::STATUS, BTreeMap::new(), Vec::new(), why),
        };
        let named = lineage.map_or_else(String::new, |l| format!(" {l}"));
        Some(match self.next_action {
            NextAction::None => return None,
            NextAction::StartReview => start_review(),
            NextAction::Finalize => status_of(&format!(
                "finish the open review{named}; its status names the next input"
            )),
            NextAction::HumanDecision => NextTool::person(format!(
                "a person decides whether review{named} goes on and, with their authorization, runs the `probity recover` command the gate's message names (`status` of the lineage prints it too)"
            )),
            NextAction::Recover => NextTool::person(format!(
                "a person records the successor with the `probity recover` command the gate's message names (`status` of{named} prints it with the revision)"
            )),
            NextAction::Repair => match (self.stage, lineage) {
                // An approved lineage whose receipt file differs from the
                // one its state derives (the authority stage; discovery's
                // inconsistencies are a repair ceremony's): finalize
                // rewrites it.
                (GateStage::Authority, Some(l)) => {
                    NextTool::call(
                        tool::FINALIZE,
                        lineage_arg(l),
                        Vec::new(),
                        "the receipt file differs from the receipt the state derives: finalize rewrites it",
                    )
                }
                _ => NextTool::person(
                    "the authority is inconsistent: a person runs a repair ceremony (`probity repair`, docs/review-authority.md R9.4)"
                        .into(),
                ),
            },
            NextAction::StartCommitReview => self.commit_review(),
            NextAction::Squash => NextTool::person(
                "a person squashes the delivered range into one commit of the reviewed candidate (`git rebase -i`, as the gate's message says), then the gate is run again"
                    .into(),
            ),
            NextAction::CheckRange => NextTool::person(
                "a person checks what is being delivered (the refs and range the gate's message names, with `git log`), then the gate is run again (`validate`)"
                    .into(),
            ),
            NextAction::CommitApproved => NextTool::person(
                "a person commits the approved slice on its own first (`git add` its reviewed paths, `git commit`), then the new work is reviewed with the `start` tool"
                    .into(),
            ),
            NextAction::Retry => NextTool::call(
                tool::VALIDATE,
                args([("gate", self.gate.name().into())]),
                vec![],
                "what the gate read changed while it decided: run it again with the same arguments as this call",
            ),
        })
    }

    /// `start` of the committed work a publication gate denied: the one
    /// unreviewed commit when the gate names one, otherwise the range its
    /// message names, for the caller to give.
    fn commit_review(&self) -> NextTool {
        let denied = self
            .deliveries
            .iter()
            .find(|d| d.decision == Decision::Deny);
        let one = denied.and_then(|d| {
            if d.stack.is_empty() {
                (d.commits == 1).then(|| d.tip.to_string())
            } else {
                let mut unreviewed = d.stack.iter().filter(|c| c.decision == Decision::Deny);
                match (unreviewed.next(), unreviewed.next()) {
                    (Some(c), None) => Some(c.commit.to_string()),
                    _ => None,
                }
            }
        });
        let why = "review the committed work as committed, then run the lenses its answer names";
        match one {
            Some(commit) => NextTool::call(
                tool::START,
                args([("commit", commit.into())]),
                Vec::new(),
                why,
            ),
            None => NextTool::call(
                tool::START,
                BTreeMap::new(),
                vec![Fill {
                    argument: "range",
                    what: "OLD..TIP, the unreviewed commits the gate's message names",
                }],
                why,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures;

    const INPUTS: [NextInput; 7] = [
        NextInput::RunLenses,
        NextInput::Finalize,
        NextInput::ProvideRefuter,
        NextInput::ForecastCorrection,
        NextInput::ProvideValidation,
        NextInput::ProvideEvidence,
        NextInput::None,
    ];

    /// Each next input names on the MCP surface the tool that does what
    /// the command line's sentence names, and only listed tools.
    #[test]
    fn each_next_input_names_the_tool_of_its_command() {
        let l = LineageId::parse("review-0123456789abcdef").unwrap();
        let lenses = [Lens::Risk, Lens::Reliability];
        for input in INPUTS {
            let sentence = input.sentence(&l, &lenses);
            let Some(t) = input.tool(&l, &lenses, &[]) else {
                assert_eq!(input, NextInput::None);
                assert!(!sentence.contains("`probity"), "{sentence}");
                continue;
            };
            let name = t.name.unwrap();
            assert!(tool::ALL.contains(&name), "{t:?}");
            assert!(t.message.contains(&format!("`{name}`")), "{t:?}");
            assert_eq!(t.arguments["lineage"], l.to_string(), "{t:?}");
            let command = match name {
                tool::LENS_CONTEXT => "`probity lens submit",
                tool::FINALIZE => "`probity finalize",
                other => panic!("{input:?} names {other}"),
            };
            assert!(sentence.contains(command), "{input:?}: {sentence}");
            // What the CLI's sentence asks a person for (F, N, ARGV) is
            // an argument to fill; the lineage is filled in.
            let asks =
                sentence.contains(" F`") || sentence.contains(" N`") || sentence.contains("ARGV");
            assert_eq!(
                asks && input != NextInput::RunLenses,
                !t.fill.is_empty(),
                "{input:?}: {t:?}"
            );
        }
    }

    /// Running lenses starts with the first lens whose result is not kept;
    /// with every result kept, finalize is next (the state's own rule).
    #[test]
    fn lenses_run_in_order_until_every_result_is_kept() {
        let s = fixtures::start(&fixtures::parser_observation(), Lens::Risk).unwrap();
        let lenses = s.frozen().selected_lenses.clone();
        assert!(!lenses.is_empty());
        let first = s.next_tool_recovering(None, &[]).unwrap();
        assert_eq!(first.name, Some(tool::LENS_CONTEXT));
        assert_eq!(first.arguments["lens"], lenses[0].name());
        if let [one, second, ..] = lenses.as_slice() {
            let t = s.next_tool_recovering(None, &[*one]).unwrap();
            assert_eq!(t.arguments["lens"], second.name());
        }
        let done = s.next_tool_recovering(None, &lenses).unwrap();
        assert_eq!(done.name, Some(tool::FINALIZE));
        assert_eq!(
            s.next_action_kept(&lenses),
            NextInput::Finalize,
            "the same decision"
        );
    }

    /// A server that runs no command (D-R123) asks for the check's output
    /// where one that runs checks asks for its argv; every other step is
    /// the same on both.
    #[test]
    fn a_server_that_runs_no_command_asks_for_the_checks_output() {
        let l = LineageId::parse("review-0123456789abcdef").unwrap();
        let lenses = [Lens::Risk];
        for input in INPUTS {
            let Some(t) = input.tool(&l, &lenses, &[]) else {
                continue;
            };
            let served = t.clone().for_checks(Checks::ByServer);
            assert_eq!(served, t, "{input:?}: a server that runs checks");
            let harness = t.clone().for_checks(Checks::ByHarness);
            if input == NextInput::ProvideEvidence {
                assert_eq!(harness.name, Some(tool::FINALIZE));
                assert_eq!(harness.arguments, t.arguments);
                let filled: Vec<&str> = harness.fill.iter().map(|f| f.argument).collect();
                assert_eq!(filled, ["evidence"], "{harness:?}");
                assert!(!harness.message.contains("evidence_cmd"), "{harness:?}");
                assert!(harness.message.contains("`evidence`"), "{harness:?}");
            } else {
                assert_eq!(harness, t, "{input:?}");
            }
        }
    }

    /// A step no tool does says so and names the command a person runs.
    #[test]
    fn a_persons_step_says_no_tool_does_it() {
        let t = NextTool::person("a person runs `probity recover ...`".into());
        assert_eq!(t.name, None);
        assert!(t.message.starts_with(NO_TOOL), "{t:?}");
        assert!(call_again("no_such_tool").is_none());
        let again = call_again(tool::FINALIZE).unwrap();
        assert_eq!(again.name, Some(tool::FINALIZE));
    }
}
