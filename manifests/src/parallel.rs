//! Independent per-item work on every core, with results in item order whatever thread did which item.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The fewest items worth a thread of their own, per kind of work (measured with hack/bench-manifests.sh):
/// parsing and walking a source file.
pub const MIN_FILES_TO_PARSE: usize = 4;
/// Reading a file: a source file, or an existing output file to compare with what would be written.
pub const MIN_FILES_TO_READ: usize = 8;
/// Building and printing a CRD.
pub const MIN_CRDS_TO_BUILD: usize = 2;

/// How many threads [`map_indexed`] uses for `count` items: one per core, but only as many as give each
/// at least `min_per_thread` items (starting a thread costs about as much as a small item).
pub fn threads_for(count: usize, min_per_thread: usize) -> usize {
    cores().min(count / min_per_thread.max(1)).max(1)
}

#[cfg(not(test))]
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(test)]
std::thread_local! {
    /// Tests pretend to have this many cores, so the split is exercised on any machine.
    static CORES: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn cores() -> usize {
    CORES
        .get()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Runs `f` as if the machine had `n` cores (on this thread, where the split is decided).
#[cfg(test)]
pub fn with_cores<R>(n: usize, f: impl FnOnce() -> R) -> R {
    CORES.set(Some(n));
    let result = f();
    CORES.set(None);
    result
}

/// Calls `work(&mut state, i)` for each `i` in `0..count` on [`threads_for`] threads and returns the
/// results in order of `i`. Each thread makes its own `state` with `new_state` (caches that need not be
/// `Send`); items are handed out one at a time, since their sizes differ.
pub fn map_indexed<S, R: Send>(
    count: usize,
    min_per_thread: usize,
    new_state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> R + Sync,
) -> Vec<R> {
    let threads = threads_for(count, min_per_thread);
    if threads == 1 {
        let mut state = new_state();
        return (0..count).map(|i| work(&mut state, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut state = new_state();
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            break mine;
                        }
                        mine.push((i, work(&mut state, i)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::map_indexed;

    #[test]
    fn results_come_in_item_order_with_per_thread_state() {
        let out = map_indexed(
            100,
            1,
            || 0usize,
            |seen, i| {
                *seen += 1;
                (i * i, *seen)
            },
        );
        assert_eq!(
            out.iter().map(|(sq, _)| *sq).collect::<Vec<_>>(),
            (0..100).map(|i| i * i).collect::<Vec<_>>()
        );
        // Every item was counted by exactly one thread's state.
        assert!(out.iter().all(|(_, seen)| (1..=100).contains(seen)));
    }
}
