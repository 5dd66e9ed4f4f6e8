//! Golden snapshot tests live in `tests/`.
