//! What the model calls used, as the provider reported it, and the footer
//! line that shows it.

use serde::{Deserialize, Serialize};

/// What one model call used, as the provider reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens the call consumed.
    pub input_tokens: u64,
    /// Tokens the answer generated.
    pub output_tokens: u64,
    /// The cost in millionths of a US dollar, when the provider reports one
    /// (some OpenAI-compatible gateways do; neither reference API does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<u64>,
}

/// What every call of a review used, summed over the calls that reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Model calls whose answer reported usage.
    pub reported_calls: u32,
    /// Prompt tokens, summed over the reporting calls (saturating).
    pub input_tokens: u64,
    /// Answer tokens, summed over the reporting calls (saturating).
    pub output_tokens: u64,
    /// Summed over the calls that reported a cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<u64>,
}

impl UsageTotals {
    /// Adds one call's usage.
    pub fn add(&mut self, u: &Usage) {
        self.reported_calls = self.reported_calls.saturating_add(1);
        self.input_tokens = self.input_tokens.saturating_add(u.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(u.output_tokens);
        if let Some(c) = u.cost_micro_usd {
            self.cost_micro_usd = Some(self.cost_micro_usd.unwrap_or(0).saturating_add(c));
        }
    }

    /// The footer line (`model: 1,204 input / 310 output tokens over 3
    /// calls, $0.0042`), when any call reported usage.
    pub fn footer(&self) -> Option<String> {
        if self.reported_calls == 0 {
            return None;
        }
        let mut s = format!(
            "model: {} input / {} output tokens over {} call{}",
            self.input_tokens,
            self.output_tokens,
            self.reported_calls,
            if self.reported_calls == 1 { "" } else { "s" }
        );
        if let Some(c) = self.cost_micro_usd {
            s.push_str(&format!(", ${}.{:06}", c / 1_000_000, c % 1_000_000));
        }
        Some(s)
    }
}
