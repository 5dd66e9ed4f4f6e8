//! The conversation: the tool calls a model makes, the messages in order,
//! why the model stopped, and what the model is asked and answers.

use serde::{Deserialize, Serialize};

use super::Usage;

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call, echoed back in the matching
    /// [`Message::Tool`]'s `tool_call_id`.
    pub id: String,
    /// The tool the model asked for, as sent; an unknown name gets an error
    /// result and the loop goes on.
    pub name: String,
    /// The arguments as the model sent them (JSON text).
    pub arguments: String,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// The frame the conversation runs under (the reviewer frame or a
    /// role's prompt); always the first message.
    System {
        /// The frame's text.
        content: String,
    },
    /// What the driver says: the review prompt, then a length-retry or
    /// repair turn.
    User {
        /// The prompt's text.
        content: String,
    },
    /// One model answer.
    Assistant {
        /// The answer's text; `None` when a tool-use answer carried none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// The tool calls the answer made, in order; empty for a final
        /// answer.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// One tool result, in the order of the calls.
    Tool {
        /// The [`ToolCall::id`] this answers.
        tool_call_id: String,
        /// The result text the reviewer reads (content and notes, or the
        /// error).
        content: String,
    },
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer (`stop`, `end_turn`, `stop_sequence`,
    /// or no reason given).
    EndTurn,
    /// The answer ends in tool calls.
    ToolUse,
    /// The answer was cut by the output-token limit (`length`,
    /// `max_tokens`): the one length retry applies.
    Length,
    /// Any other reason, as the provider spelled it (`refusal`).
    Other(String),
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelResponse {
    /// The answer's text, when it has any.
    pub text: Option<String>,
    /// The tool calls, in order; non-empty means another tool round,
    /// whatever `stop` says.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub stop: StopReason,
    /// Token use (and cost) when the provider reports it.
    pub usage: Option<Usage>,
}

/// What to ask the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRequest {
    /// The whole conversation so far, frame first.
    pub messages: Vec<Message>,
    /// Offer the three tools (false once the budget is spent).
    pub offer_tools: bool,
}
