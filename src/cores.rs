//! Work shared out among the machine's cores: the ledger's re-rate and cascade, search.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The machine's cores (asked once: the answer reads the process's cgroup files each time).
pub fn threads() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Threads kept for the process to help this one, one fewer than the cores: a Turkish cascade
/// rates the events of some three hundred months side by side, and threads started for each
/// month cost their start and the fresh pages of their heaps every time.
/// `None` when the system would not start them: the work is then done on the calling thread.
fn helpers() -> Option<&'static rayon::ThreadPool> {
    static HELPERS: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    HELPERS
        .get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads().saturating_sub(1).max(1))
                .thread_name(|i| format!("ratedesk-core-{i}"))
                .build()
                .ok()
        })
        .as_ref()
}

thread_local! {
    /// This thread, outside the pool, is sharing work out.
    static SHARING: Cell<bool> = const { Cell::new(false) };
}

/// This thread shares work out until dropped (a panic included).
struct Sharing;

impl Sharing {
    fn begin() -> Self {
        SHARING.set(true);
        Sharing
    }
}

impl Drop for Sharing {
    fn drop(&mut self) {
        SHARING.set(false);
    }
}

/// `f` of every job, in the jobs' order, worked out on up to `threads` threads (this one among
/// them, the others [`helpers`]), each taking the next job not yet taken. One job, or one
/// thread, runs here alone. A panic in a helper is a panic here, as it would have been alone.
pub fn map_on_cores<J: Sync, T: Send>(
    jobs: &[J],
    threads: usize,
    f: impl Fn(&J) -> T + Sync,
) -> Vec<T> {
    let threads = threads.min(jobs.len());
    // Called again from a job of its own on a thread outside the pool (a Turkish month's events
    // within a full re-rate's wave), the work stays here: the helpers are busy with the outer
    // jobs, and this thread would wait for one of them to pick up the inner job before going on.
    // A helper called again waits by taking the inner job itself.
    let outside = rayon::current_thread_index().is_none();
    let helpers = match helpers() {
        Some(helpers) if threads > 1 && !(outside && SHARING.get()) => helpers,
        _ => return jobs.iter().map(f).collect(),
    };
    let _sharing = outside.then(Sharing::begin);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(k) else {
                return done;
            };
            done.push((k, f(job)));
        }
    };
    let helped: Vec<Mutex<Vec<(usize, T)>>> = (1..threads).map(|_| Mutex::default()).collect();
    let mut all = helpers.in_place_scope(|s| {
        for slot in &helped {
            let work = &work;
            s.spawn(move |_| *slot.lock().unwrap_or_else(PoisonError::into_inner) = work());
        }
        work()
    });
    for slot in helped {
        all.extend(slot.into_inner().unwrap_or_else(PoisonError::into_inner));
    }
    all.sort_unstable_by_key(|(k, _)| *k);
    all.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_jobs_order_whatever_the_threads() {
        let jobs: Vec<u64> = (0..1000).collect();
        for threads in [1, 2, 7] {
            assert_eq!(
                map_on_cores(&jobs, threads, |&j| j * j),
                jobs.iter().map(|j| j * j).collect::<Vec<_>>()
            );
        }
        assert!(map_on_cores(&[] as &[u64], 4, |&j| j).is_empty());
    }

    #[test]
    fn work_shared_out_within_work_shared_out_comes_back_whole() {
        let outer: Vec<u64> = (0..64).collect();
        let sums = map_on_cores(&outer, 4, |&o| {
            let inner: Vec<u64> = (0..o).collect();
            map_on_cores(&inner, 4, |&i| i * o).iter().sum::<u64>()
        });
        let expected: Vec<u64> = outer.iter().map(|&o| o * o * (o.max(1) - 1) / 2).collect();
        assert_eq!(sums, expected);
        assert!(!SHARING.get(), "done sharing out on this thread");
    }
}
