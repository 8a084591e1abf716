//! Work shared out among the machine's cores: the ledger's re-rate and cascade, search.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The machine's cores (asked once: the answer reads the process's cgroup files each time).
pub fn threads() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` of every job, in the jobs' order, worked out on up to `threads` threads (this one among
/// them), each taking the next job not yet taken. One job, or one thread, runs here alone. A
/// panic in a helper is a panic here, as it would have been alone.
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
    let mut all: Vec<(usize, T)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in helpers {
            match h.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
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
