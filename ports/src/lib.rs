//! Ports (traits) and use-case drivers.
