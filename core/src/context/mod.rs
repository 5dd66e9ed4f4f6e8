//! Entity-context-snapshot v1 (see `docs/` and the spec page).
