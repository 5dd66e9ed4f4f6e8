//! Bounded reviewer tools over a frozen snapshot (spec S1–S6).
