//! Work split over a few threads: the object reader's loose blobs
//! ([`crate::loose`]) and the work tree's listings ([`crate::worktree`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// At most this many threads work.
const MAX_THREADS: usize = 4;

/// How far past the answer it waits for [`ahead`]'s caller sleeps.
const WINDOW: usize = 7;

/// `part` over `items` cut in consecutive parts, one a thread (up to
/// [`MAX_THREADS`], as many as the machine runs at once, and none with
/// fewer than `per_thread` items), the answers in the order of `items`.
/// A part whose thread cannot be started runs on the calling one; a part
/// whose thread panicked answers `None` for each of its items.
pub(crate) fn map_parts<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    part: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<Option<R>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(MAX_THREADS)
        .min(items.len() / per_thread.max(1))
        .max(1);
    if threads == 1 {
        return part(items).into_iter().map(Some).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let part = &part;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|items| {
                let handle = std::thread::Builder::new()
                    .name("probity-part".into())
                    .spawn_scoped(s, move || part(items));
                (items, handle)
            })
            .collect();
        let mut all = Vec::with_capacity(items.len());
        for (items, handle) in parts {
            match handle {
                Ok(handle) => match handle.join() {
                    Ok(done) => all.extend(done.into_iter().map(Some)),
                    Err(_) => all.extend(items.iter().map(|_| None)),
                },
                Err(_) => all.extend(part(items).into_iter().map(Some)),
            }
        }
        all
    })
}

/// What [`ahead`]'s workers share: the next item to claim (claimed a run
/// of items at a time), and the answers.
struct Board<R> {
    next: AtomicUsize,
    run: usize,
    slots: Mutex<Slots<R>>,
    ready: Condvar,
}

/// Each item's answer until taken, how many workers still run, and the
/// item the caller waits for (only its answer wakes it).
struct Slots<R> {
    answers: Vec<Option<R>>,
    workers: usize,
    wanted: Option<usize>,
}

impl<R> Board<R> {
    /// The slots, even after a worker panicked holding them (a slot is
    /// only ever set whole).
    fn lock(&self) -> MutexGuard<'_, Slots<R>> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Counts a worker out when it ends, a panic included.
struct Leaving<'b, R>(&'b Board<R>);

impl<R> Drop for Leaving<'_, R> {
    fn drop(&mut self) {
        let mut slots = self.0.lock();
        slots.workers -= 1;
        drop(slots);
        self.0.ready.notify_all();
    }
}

/// `f` over `items`, computed ahead in their order on worker threads (as
/// many as the machine runs at once, up to [`MAX_THREADS`], none with
/// fewer than `per_thread` items), while `consume` runs on the calling
/// thread and takes the answers (`take(k)`: item `k`'s, waiting for it;
/// each once, `None` after). An item no worker answers (none could be
/// started, or the one that claimed it panicked) is computed by `take`
/// itself. When `consume` returns, the items not yet claimed are not
/// computed.
pub(crate) fn ahead<T: Sync, R: Send, O>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(&T) -> R + Sync,
    consume: impl FnOnce(&mut dyn FnMut(usize) -> Option<R>) -> O,
) -> O {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(MAX_THREADS)
        .min(items.len() / per_thread.max(1));
    let board = Board {
        next: AtomicUsize::new(0),
        // Runs of items small enough to share the work evenly, large
        // enough that claiming costs little.
        run: (items.len() / (workers.max(1) * 16)).clamp(1, 64),
        slots: Mutex::new(Slots {
            answers: (0..items.len()).map(|_| None).collect(),
            workers: 0,
            wanted: None,
        }),
        ready: Condvar::new(),
    };
    let (board, f) = (&board, &f);
    std::thread::scope(|s| {
        for _ in 0..workers {
            board.lock().workers += 1;
            let started = std::thread::Builder::new()
                .name("probity-ahead".into())
                .spawn_scoped(s, move || {
                    let _leaving = Leaving(board);
                    loop {
                        let from = board.next.fetch_add(board.run, Ordering::Relaxed);
                        if from >= items.len() {
                            return;
                        }
                        for (k, item) in items.iter().enumerate().skip(from).take(board.run) {
                            // A panic ends this worker without an answer
                            // (the caller computes the item), not the scope.
                            let answer =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
                            let Ok(answer) = answer else {
                                return;
                            };
                            let mut slots = board.lock();
                            slots.answers[k] = Some(answer);
                            let wake = slots.wanted == Some(k);
                            drop(slots);
                            if wake {
                                board.ready.notify_all();
                            }
                        }
                    }
                });
            if started.is_err() {
                board.lock().workers -= 1;
            }
        }
        let mut taken = vec![false; items.len()];
        let mut take = |k: usize| -> Option<R> {
            if std::mem::replace(taken.get_mut(k)?, true) {
                return None;
            }
            let mut slots = board.lock();
            loop {
                if let Some(answer) = slots.answers[k].take() {
                    slots.wanted = None;
                    return Some(answer);
                }
                // No worker left (none started, or the one that claimed it
                // ended without answering): computed here.
                if slots.workers == 0 {
                    slots.wanted = None;
                    drop(slots);
                    return Some(f(&items[k]));
                }
                // Woken when a few items on are answered (one wake for a
                // few items, which a worker answers in order), or `k`
                // once they are.
                let window = (k + WINDOW).min(items.len() - 1);
                slots.wanted = Some(match slots.answers[window] {
                    Some(_) => k,
                    None => window,
                });
                slots = board
                    .ready
                    .wait(slots)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        };
        let out = consume(&mut take);
        // The rest is not needed: workers stop at their next claim.
        board.next.store(items.len(), Ordering::Relaxed);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_answer_in_order_and_a_panicked_part_answers_none() {
        let items: Vec<u32> = (0..1000).collect();
        let doubled = map_parts(&items, 10, |p| p.iter().map(|x| x * 2).collect());
        assert_eq!(
            doubled,
            items.iter().map(|x| Some(x * 2)).collect::<Vec<_>>()
        );
        // Few items: one part, on this thread.
        assert_eq!(
            map_parts(&items[..3], 10, |p| p.to_vec()),
            [Some(0), Some(1), Some(2)]
        );
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        if threads > 1 {
            let out = map_parts(&items, 10, |p: &[u32]| {
                assert!(p[0] != 0, "the first part panics");
                p.to_vec()
            });
            assert_eq!(out.len(), items.len());
            assert!(out[0].is_none() && out[999] == Some(999));
        }
    }

    #[test]
    fn answers_ahead_are_taken_in_any_order_once() {
        let items: Vec<u64> = (0..500).collect();
        let got = ahead(
            &items,
            10,
            |x| x * 3,
            |take| {
                let mut got = vec![take(499), take(0)];
                got.extend((1..499).map(&mut *take));
                got.push(take(0));
                got
            },
        );
        assert_eq!(got[0], Some(1497));
        assert_eq!(got[1], Some(0));
        assert_eq!(
            got[2..500].to_vec(),
            (1..499).map(|x| Some(x * 3)).collect::<Vec<_>>()
        );
        assert_eq!(got[500], None, "each answer is taken once");
        assert_eq!(ahead(&items, 10, |x| *x, |take| take(500)), None);
    }

    #[test]
    fn an_item_a_panicked_worker_claimed_is_computed_by_take() {
        let items: Vec<u64> = (0..200).collect();
        let calls = AtomicUsize::new(0);
        let got = ahead(
            &items,
            1,
            |x| {
                // Each worker's first claim panics: some items are never
                // answered ahead.
                let worker = std::thread::current().name() == Some("probity-ahead");
                if worker && calls.fetch_add(1, Ordering::Relaxed) < MAX_THREADS {
                    panic!("a worker ends without answering");
                }
                *x
            },
            |take| (0..200).map(take).collect::<Vec<_>>(),
        );
        assert_eq!(got, items.iter().map(|x| Some(*x)).collect::<Vec<_>>());
    }
}
