//! Work shared out among the machine's cores: the ledger's re-rate and cascade, search.

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
fn helpers() -> &'static rayon::ThreadPool {
    static HELPERS: OnceLock<rayon::ThreadPool> = OnceLock::new();
    HELPERS.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads().saturating_sub(1).max(1))
            .thread_name(|i| format!("ratedesk-core-{i}"))
            .build()
            .expect("the helper threads start")
    })
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
    if threads <= 1 {
        return jobs.iter().map(f).collect();
    }
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
    let mut all = helpers().in_place_scope(|s| {
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
}
