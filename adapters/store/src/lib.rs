//! Store adapter.
