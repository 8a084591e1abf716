//! Writing behind the screen: the workstation asks for an edit's flush and draws the frame
//! that shows the edit while the disk catches up, and the frame reaches the terminal only once
//! [`Behind::settle_to`] has seen the flush done. So what the officer sees acknowledged is on
//! disk, and the render and the flush overlap instead of following each other. The results an
//! edit derived (re-rated units, which a database whose stored results lag behind its audit log
//! rates again when it opens) are written after that flush, still behind the screen.
//!
//! One thread, started at the first request and stopped with the store, runs the jobs in the
//! order asked. A failure is kept: every later settle reports it (the desk stops taking edits).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

use super::StoreError;

/// A write or flush of the store, run once on the thread.
pub(super) type Job = Box<dyn FnOnce() -> Result<(), StoreError> + Send>;

/// A job's place in the order asked: settling to it waits for it and every job before it.
pub type Ticket = u64;

/// The thread, the jobs asked and answered so far, and a failure once one failed.
pub(super) struct Behind {
    /// The database's folder, which a failure names.
    path: PathBuf,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    worker: Option<Worker>,
    /// Jobs asked of the thread, and of those the ones whose answer was read.
    asked: Ticket,
    answered: Ticket,
    failed: Option<StoreError>,
    /// A job ran past the deadline: the thread may never come back, and is not waited for.
    stuck: bool,
}

/// How long a write or flush may take before the disk is taken for stuck (sled waits for ever
/// on a disk that filled up under it): far longer than a national federation's largest flush.
const DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// The deadline, shortened in the tests of debug builds by `RATEDESK_TEST_FLUSH_DEADLINE_MS`.
fn deadline() -> std::time::Duration {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("RATEDESK_TEST_FLUSH_DEADLINE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    DEADLINE
}

struct Worker {
    ask: Sender<Job>,
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

    /// Asks for `job` and returns at once with its ticket. Without a thread (none could be
    /// started) it runs here and now.
    pub fn ask(&self, job: Job) -> Result<Ticket, StoreError> {
        let Ok(mut inner) = self.inner.lock() else {
            return job().map(|()| 0);
        };
        if inner.worker.is_none() {
            inner.worker = Worker::start();
        }
        let job = match &inner.worker {
            Some(w) => match w.ask.send(job) {
                Ok(()) => {
                    inner.asked += 1;
                    return Ok(inner.asked);
                }
                Err(unsent) => unsent.0,
            },
            None => job,
        };
        // The thread is gone: jobs it was asked for and never answered are failures.
        if inner.asked > inner.answered && inner.failed.is_none() {
            inner.failed = Some(self.stopped());
        }
        inner.answered = inner.asked;
        inner.worker = None;
        job().map(|()| inner.asked)
    }

    /// Waits for every job asked so far; the first failure of any job, now and on every later
    /// call.
    pub fn settle(&self) -> Result<(), StoreError> {
        self.settle_to(Ticket::MAX)
    }

    /// Waits for the job of `ticket` and every job asked before it; the first failure of any
    /// job answered so far (later ones too), now and on every later call.
    pub fn settle_to(&self, ticket: Ticket) -> Result<(), StoreError> {
        use std::sync::mpsc::RecvTimeoutError;
        let Ok(mut inner) = self.inner.lock() else {
            return Err(self.stopped());
        };
        let limit = deadline();
        while !inner.stuck && inner.answered < inner.asked.min(ticket) {
            let answer = match &inner.worker {
                Some(w) => match w.answers.recv_timeout(limit) {
                    Ok(answer) => answer,
                    Err(RecvTimeoutError::Disconnected) => Err(self.stopped()),
                    Err(RecvTimeoutError::Timeout) => {
                        inner.stuck = true;
                        if inner.failed.is_none() {
                            inner.failed = Some(StoreError::Stuck {
                                path: self.path.clone(),
                                seconds: limit.as_secs_f64(),
                            });
                        }
                        break;
                    }
                },
                None => Err(self.stopped()),
            };
            inner.note(answer);
        }
        // Jobs after the ticket already answered: a failure among them is reported now too, not
        // only when something waits for them.
        while inner.answered < inner.asked {
            let Some(answer) = inner
                .worker
                .as_ref()
                .and_then(|w| w.answers.try_recv().ok())
            else {
                break;
            };
            inner.note(answer);
        }
        match &inner.failed {
            Some(e) => Err(self.again(e)),
            None => Ok(()),
        }
    }
}

impl Inner {
    /// A job's answer read: the first failure is kept.
    fn note(&mut self, answer: Result<(), StoreError>) {
        self.answered += 1;
        if let Err(e) = answer
            && self.failed.is_none()
        {
            self.failed = Some(e);
        }
    }
}

impl Worker {
    fn start() -> Option<Self> {
        let (ask, asked) = channel::<Job>();
        let (answer, answers) = channel();
        let thread = std::thread::Builder::new()
            .name("behind".into())
            .spawn(move || {
                for job in asked {
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
    /// Lets the jobs asked finish, then stops the thread (before the store's handles go) —
    /// unless one ran past the deadline: a thread stuck in a write is left behind, never
    /// waited for.
    fn drop(&mut self) {
        let inner = match self.inner.get_mut() {
            Ok(inner) => inner,
            Err(poisoned) => poisoned.into_inner(),
        };
        let stuck = inner.stuck;
        if let Some(Worker { ask, thread, .. }) = inner.worker.take() {
            drop(ask);
            if !stuck {
                let _ = thread.join();
            }
        }
    }
}

impl Behind {
    /// Whether a job ran past the deadline, or failed: what the store holds may not be what
    /// was asked, and sled must not be left to flush it when the store closes.
    pub fn failed(&self) -> bool {
        self.inner
            .lock()
            .map_or(true, |inner| inner.stuck || inner.failed.is_some())
    }

    /// Forgets a failure the caller has dealt with (a full disk met while opening, where the
    /// database can still be read): the next write tries the disk again. A job stuck past the
    /// deadline is never forgotten.
    pub fn forgive(&self) {
        if let Ok(mut inner) = self.inner.lock()
            && !inner.stuck
        {
            inner.failed = None;
        }
    }

    /// The thread ended without answering (it panicked).
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
            StoreError::Stuck { path, seconds } => StoreError::Stuck {
                path: path.clone(),
                seconds: *seconds,
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
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Jobs that take 5 ms each and count themselves; from the `fail_from`th on they fail.
    fn counting(fail_from: usize) -> (impl Fn() -> Job, Arc<AtomicUsize>) {
        let done = Arc::new(AtomicUsize::new(0));
        let seen = done.clone();
        let job = move || -> Job {
            let seen = seen.clone();
            Box::new(move || {
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
            })
        };
        (job, done)
    }

    #[test]
    fn settle_returns_once_every_job_asked_is_done() {
        let (job, done) = counting(usize::MAX);
        let behind = Behind::new("/db".into());
        for _ in 0..3 {
            behind.ask(job()).expect("asked");
        }
        behind.settle().expect("flushed");
        assert_eq!(done.load(Ordering::SeqCst), 3);
        behind.settle().expect("nothing pending");
    }

    #[test]
    fn settling_to_a_ticket_waits_for_it_and_the_jobs_before_it_only() {
        let done = Arc::new(AtomicUsize::new(0));
        let behind = Behind::new("/db".into());
        let first = behind.ask(Box::new(|| Ok(()))).expect("asked");
        let (go, wait) = channel::<()>();
        let seen = done.clone();
        let second = behind
            .ask(Box::new(move || {
                let _ = wait.recv();
                seen.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }))
            .expect("asked");
        assert!(second > first);
        behind.settle_to(first).expect("the first is done");
        assert_eq!(done.load(Ordering::SeqCst), 0, "the second still waits");
        go.send(()).expect("the second is waiting");
        behind.settle_to(second).expect("the second is done");
        assert_eq!(done.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_full_disk_forgiven_is_tried_again_but_a_stuck_job_never_is() {
        let behind = Behind::new("/db".into());
        let full = || -> Job {
            Box::new(|| {
                Err(StoreError::NoSpace {
                    path: "/db".into(),
                    detail: String::new(),
                })
            })
        };
        behind.ask(full()).expect("asked");
        assert!(behind.settle().is_err());
        behind.forgive();
        assert!(!behind.failed());
        behind.ask(Box::new(|| Ok(()))).expect("asked");
        behind.settle().expect("space was freed");
        // Past the deadline: stuck for good.
        let (_hold, wait) = channel::<()>();
        let ticket = behind
            .ask(Box::new(move || {
                let _ = wait.recv();
                Ok(())
            }))
            .expect("asked");
        behind.inner.lock().expect("lock").stuck = true;
        behind.forgive();
        assert!(behind.failed());
        let _ = ticket;
    }

    #[test]
    fn a_failed_job_is_reported_by_every_later_settle() {
        let (job, _) = counting(2);
        let behind = Behind::new("/db".into());
        let first = behind.ask(job()).expect("asked");
        behind.settle().expect("the first job succeeds");
        behind.ask(job()).expect("asked");
        for _ in 0..2 {
            assert!(matches!(behind.settle(), Err(StoreError::NoSpace { .. })));
        }
        assert!(behind.settle_to(first).is_err(), "and to an earlier ticket");
    }

    #[test]
    fn a_later_job_that_failed_is_reported_when_settling_to_an_earlier_one() {
        let behind = Behind::new("/db".into());
        let first = behind.ask(Box::new(|| Ok(()))).expect("asked");
        behind
            .ask(Box::new(|| {
                Err(StoreError::NoSpace {
                    path: "/db".into(),
                    detail: String::new(),
                })
            }))
            .expect("asked");
        // Without waiting for the second job, settling to the first sees its failure once it
        // is answered.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match behind.settle_to(first) {
                Err(StoreError::NoSpace { .. }) => break,
                Err(other) => panic!("{other}"),
                Ok(()) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Ok(()) => panic!("the failure of the second job was never reported"),
            }
        }
    }

    #[test]
    fn a_thread_that_dies_is_a_failure_not_a_success() {
        let behind = Behind::new("/db".into());
        behind
            .ask(Box::new(|| panic!("sled panicked")))
            .expect("asked");
        assert!(matches!(behind.settle(), Err(StoreError::Io { .. })));
        assert!(behind.settle().is_err(), "reported again");
    }

    #[test]
    fn dropping_waits_for_the_jobs_asked() {
        let (job, done) = counting(usize::MAX);
        let behind = Behind::new("/db".into());
        behind.ask(job()).expect("asked");
        behind.ask(job()).expect("asked");
        drop(behind);
        assert_eq!(done.load(Ordering::SeqCst), 2);
    }
}
