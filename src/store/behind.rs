//! Flushing behind the screen: the workstation asks for an edit's flush and draws the frame
//! that shows the edit while the disk catches up, and the frame reaches the terminal only once
//! [`Behind::settle`] has seen the flush done. So what the officer sees acknowledged is on
//! disk, and the render and the flush overlap instead of following each other.
//!
//! One thread, started at the first request and stopped with the store, flushes in the order
//! asked. A failure is kept: every later settle reports it (the desk stops taking edits).

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::StoreError;

/// A flush of the whole store, as [`super::Store::flush`] does it.
pub(super) type Job = Arc<dyn Fn() -> Result<(), StoreError> + Send + Sync>;

/// The flushing thread, the flushes asked and not yet seen done, and a failure once one failed.
pub(super) struct Behind {
    /// The database's folder, which a failure names.
    path: PathBuf,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    worker: Option<Worker>,
    asked: usize,
    failed: Option<StoreError>,
}

struct Worker {
    ask: Sender<()>,
    answers: Receiver<Result<(), StoreError>>,
    thread: JoinHandle<()>,
}

impl Behind {
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// Asks for a flush by `job` and returns at once. Without a thread (none could be
    /// started) it flushes here and now.
    pub fn ask(&self, job: &Job) -> Result<(), StoreError> {
        let Ok(mut inner) = self.inner.lock() else {
            return job();
        };
        if inner.worker.is_none() {
            inner.worker = Worker::start(job.clone());
        }
        let sent = inner
            .worker
            .as_ref()
            .is_some_and(|w| w.ask.send(()).is_ok());
        if sent {
            inner.asked += 1;
            Ok(())
        } else {
            // The thread is gone: flushes it was asked for and never answered are failures.
            if inner.asked > 0 && inner.failed.is_none() {
                inner.failed = Some(self.stopped());
            }
            inner.asked = 0;
            inner.worker = None;
            job()
        }
    }

    /// Waits for every flush asked so far; the first failure of any of them, now and on every
    /// later call.
    pub fn settle(&self) -> Result<(), StoreError> {
        let Ok(mut inner) = self.inner.lock() else {
            return Err(self.stopped());
        };
        while inner.asked > 0 {
            let answer = match &inner.worker {
                Some(w) => w.answers.recv().unwrap_or_else(|_| Err(self.stopped())),
                None => Err(self.stopped()),
            };
            inner.asked -= 1;
            if let Err(e) = answer
                && inner.failed.is_none()
            {
                inner.failed = Some(e);
            }
        }
        match &inner.failed {
            Some(e) => Err(self.again(e)),
            None => Ok(()),
        }
    }
}

impl Worker {
    fn start(job: Job) -> Option<Self> {
        let (ask, asked) = channel::<()>();
        let (answer, answers) = channel();
        let thread = std::thread::Builder::new()
            .name("flush".into())
            .spawn(move || {
                for () in asked {
                    if answer.send(job()).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Self {
            ask,
            answers,
            thread,
        })
    }
}

impl Drop for Behind {
    /// Lets the flushes asked finish, then stops the thread (before the store's handles go).
    fn drop(&mut self) {
        let worker = match self.inner.get_mut() {
            Ok(inner) => inner.worker.take(),
            Err(poisoned) => poisoned.into_inner().worker.take(),
        };
        if let Some(Worker { ask, thread, .. }) = worker {
            drop(ask);
            let _ = thread.join();
        }
    }
}

impl Behind {
    /// The flushing thread ended without answering (it panicked).
    fn stopped(&self) -> StoreError {
        StoreError::Io {
            path: self.path.clone(),
            detail: "the thread that writes it to disk stopped".into(),
        }
    }

    /// A failure reported again: a full disk stays a full disk, anything else keeps its words.
    fn again(&self, e: &StoreError) -> StoreError {
        match e {
            StoreError::NoSpace { path, detail } => StoreError::NoSpace {
                path: path.clone(),
                detail: detail.clone(),
            },
            StoreError::Io { path, detail } => StoreError::Io {
                path: path.clone(),
                detail: detail.clone(),
            },
            other => StoreError::Io {
                path: self.path.clone(),
                detail: other.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn counting(fail_from: usize) -> (Job, Arc<AtomicUsize>) {
        let done = Arc::new(AtomicUsize::new(0));
        let seen = done.clone();
        let job: Job = Arc::new(move || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            let n = seen.fetch_add(1, Ordering::SeqCst) + 1;
            if n >= fail_from {
                Err(StoreError::NoSpace {
                    path: "/db".into(),
                    detail: String::new(),
                })
            } else {
                Ok(())
            }
        });
        (job, done)
    }

    #[test]
    fn settle_returns_once_every_flush_asked_is_done() {
        let (job, done) = counting(usize::MAX);
        let behind = Behind::new("/db".into());
        for _ in 0..3 {
            behind.ask(&job).expect("asked");
        }
        behind.settle().expect("flushed");
        assert_eq!(done.load(Ordering::SeqCst), 3);
        behind.settle().expect("nothing pending");
    }

    #[test]
    fn a_failed_flush_is_reported_by_every_later_settle() {
        let (job, _) = counting(2);
        let behind = Behind::new("/db".into());
        behind.ask(&job).expect("asked");
        behind.settle().expect("the first flush succeeds");
        behind.ask(&job).expect("asked");
        for _ in 0..2 {
            assert!(matches!(behind.settle(), Err(StoreError::NoSpace { .. })));
        }
    }

    #[test]
    fn a_flushing_thread_that_dies_is_a_failure_not_a_success() {
        let job: Job = Arc::new(|| panic!("sled panicked"));
        let behind = Behind::new("/db".into());
        behind.ask(&job).expect("asked");
        assert!(matches!(behind.settle(), Err(StoreError::Io { .. })));
        assert!(behind.settle().is_err(), "reported again");
    }

    #[test]
    fn dropping_waits_for_the_flushes_asked() {
        let (job, done) = counting(usize::MAX);
        let behind = Behind::new("/db".into());
        behind.ask(&job).expect("asked");
        behind.ask(&job).expect("asked");
        drop(behind);
        assert_eq!(done.load(Ordering::SeqCst), 2);
    }
}
