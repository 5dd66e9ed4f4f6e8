//! The threads of the test's own process, for tests that hold a call
//! leaves none behind.

/// `PF_EXITING` in a task's flags (`include/linux/sched.h`): set as the
/// thread begins to exit, before it lets go of the address space and
/// before its joiner is woken.
const PF_EXITING: u64 = 0x4;

/// The live threads of this process, from `/proc/self/task`: those not yet
/// exiting. A thread joined has begun to exit before its joiner was woken,
/// though its entry may linger an instant, still holding the address space
/// (the kernel wakes the joiner before it lets go: a window a loaded CI
/// machine opened once in some thousands of counts); a thread left running
/// has not. Counted at once, with no pause: a thread still finishing
/// counts. `None` where `/proc` cannot be read.
pub fn live_threads() -> Option<usize> {
    Some(
        std::fs::read_dir("/proc/self/task")
            .ok()?
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("stat")).ok())
            .filter(|stat| flags(stat).is_some_and(|f| f & PF_EXITING == 0))
            .count(),
    )
}

/// The flags of a task's `stat` line (its ninth field), read after the
/// command name's closing parenthesis, which the name itself may contain.
fn flags(stat: &str) -> Option<u64> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_ascii_whitespace().nth(6)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_past_a_name_holding_parentheses() {
        let stat = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194624 95 0 0 0";
        assert_eq!(flags(stat), Some(4_194_624));
        assert_eq!(flags("4242 (short) S 1"), None);
    }
}
