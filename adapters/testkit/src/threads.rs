//! The threads of the test's own process, for tests that hold a call
//! leaves none behind.

/// The live threads of this process, from `/proc/self/task`: those that
/// still hold the address space. A thread joined has let go of it (the
/// kernel wakes its joiner only then), though its entry may linger an
/// instant; a thread left running has not. `None` where `/proc` cannot be
/// read.
pub fn live_threads() -> Option<usize> {
    Some(
        std::fs::read_dir("/proc/self/task")
            .ok()?
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("status")).ok())
            .filter(|status| status.contains("\nVmRSS:"))
            .count(),
    )
}
