//! The budget of calls and bytes (S3).
//!
//! Calls are counted before they run; bytes are counted as returned, after
//! the per-result cap. A call past the budget gets exactly
//! [`Budget::exhausted_sentence`] and no content.

use serde::{Deserialize, Serialize};

/// Default `reviewSnapshotMaxCalls`.
pub(crate) const DEFAULT_MAX_CALLS: u32 = 12;
/// Default `reviewSnapshotMaxBytes`.
pub(crate) const DEFAULT_MAX_BYTES: u64 = 200_000;
/// Default per-result cap (80 KiB), the declared-context per-file cap.
pub(crate) const DEFAULT_RESULT_CAP: u64 = 80 * 1024;

/// How much a session may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetLimits {
    /// The most tool calls a session may run (`reviewSnapshotMaxCalls`, S3.1);
    /// 0 means no tool may run at all.
    pub max_calls: u32,
    /// The most payload bytes all results together may carry
    /// (`reviewSnapshotMaxBytes`, S3.1).
    pub max_bytes: u64,
    /// The most payload bytes one result may carry.
    pub result_cap: u64,
}

impl Default for BudgetLimits {
    fn default() -> Self {
        Self {
            max_calls: DEFAULT_MAX_CALLS,
            max_bytes: DEFAULT_MAX_BYTES,
            result_cap: DEFAULT_RESULT_CAP,
        }
    }
}

/// What has been used so far. Persisted by `--budget-file`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetUsage {
    /// Calls counted so far, each before it ran, including those that then
    /// failed (S3.2).
    pub calls_used: u32,
    /// Payload bytes returned so far, after each result's cap; never more
    /// than `max_bytes`.
    pub bytes_used: u64,
}

/// A running budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    limits: BudgetLimits,
    usage: BudgetUsage,
}

/// Permission to run one call, carrying how many payload bytes it may return.
#[derive(Debug, PartialEq, Eq)]
pub struct CallPermit {
    allowance: u64,
}

impl CallPermit {
    /// The payload bytes this call may return: the per-result cap or what is
    /// left of the budget, whichever is smaller.
    pub fn allowance(&self) -> u64 {
        self.allowance
    }
}

/// The call was refused: the budget is spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted(pub BudgetUsage);

impl Budget {
    /// A fresh budget under `limits`, nothing used yet.
    pub fn new(limits: BudgetLimits) -> Self {
        Self::resume(limits, BudgetUsage::default())
    }

    /// Continues a budget from recorded usage.
    pub fn resume(limits: BudgetLimits, usage: BudgetUsage) -> Self {
        Self { limits, usage }
    }

    /// The limits this budget runs under.
    pub fn limits(&self) -> BudgetLimits {
        self.limits
    }

    /// The calls and bytes used so far (what `--budget-file` persists).
    pub fn usage(&self) -> BudgetUsage {
        self.usage
    }

    /// No further call can run.
    pub fn is_exhausted(&self) -> bool {
        self.usage.calls_used >= self.limits.max_calls
            || self.usage.bytes_used >= self.limits.max_bytes
    }

    /// Counts a call before it runs, or refuses it.
    pub fn begin_call(&mut self) -> Result<CallPermit, Exhausted> {
        if self.is_exhausted() {
            return Err(Exhausted(self.usage));
        }
        self.usage.calls_used += 1;
        let left = self.limits.max_bytes - self.usage.bytes_used;
        Ok(CallPermit {
            allowance: left.min(self.limits.result_cap),
        })
    }

    /// Counts the payload bytes a call returned (never more than its
    /// allowance).
    pub fn charge(&mut self, permit: CallPermit, bytes: u64) {
        self.usage.bytes_used += bytes.min(permit.allowance);
    }

    /// The exact sentence a call past the budget returns.
    pub fn exhausted_sentence(usage: BudgetUsage) -> String {
        format!(
            "budget exhausted: {} calls / {} bytes used; answer from what you have",
            usage.calls_used, usage.bytes_used
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A budget of `max_calls` calls, `max_bytes` bytes, `result_cap` bytes
    /// a call.
    fn budget(max_calls: u32, max_bytes: u64, result_cap: u64) -> Budget {
        Budget::new(BudgetLimits {
            max_calls,
            max_bytes,
            result_cap,
        })
    }

    #[test]
    fn calls_are_counted_before_they_run() {
        let mut b = budget(2, 100, 50);
        let p = b.begin_call().unwrap();
        assert_eq!(b.usage().calls_used, 1);
        b.charge(p, 10);
        let _p2 = b.begin_call().unwrap();
        let err = b.begin_call().unwrap_err();
        assert_eq!(
            Budget::exhausted_sentence(err.0),
            "budget exhausted: 2 calls / 10 bytes used; answer from what you have"
        );
    }

    #[test]
    fn bytes_end_the_budget_and_cap_the_allowance() {
        let mut b = budget(10, 70, 50);
        let p = b.begin_call().unwrap();
        assert_eq!(p.allowance(), 50);
        b.charge(p, 50);
        let p = b.begin_call().unwrap();
        assert_eq!(p.allowance(), 20);
        b.charge(p, 999);
        assert_eq!(b.usage().bytes_used, 70);
        assert!(b.is_exhausted());
        assert_eq!(
            b.begin_call(),
            Err(Exhausted(BudgetUsage {
                calls_used: 2,
                bytes_used: 70
            }))
        );
    }

    #[test]
    fn zero_calls_means_no_tools() {
        let mut b = Budget::new(BudgetLimits {
            max_calls: 0,
            ..BudgetLimits::default()
        });
        assert!(b.begin_call().is_err());
    }
}
