//! The long reads other `ratedesk`s ask of the process that holds a database — exports, the
//! whole `log`, `check`, backups — run on a copy of the record kept for reading
//! ([`crate::app::reading`]), on a thread of their own: a long export or `check` never holds
//! the officers' keys, nor their edits, and reads the record as it stood when it began. A
//! second workstation's copy of the record is written from it too.
//!
//! The copy is made on the first long read, a part at a time between two edits, and follows
//! every edit from then on; it is let go after [`IDLE`] without a read (its memory is the
//! record's again).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::{Command, commands, output};
use crate::app::reading::Making;
use crate::app::replica::AuditEntry;
use crate::app::workstation::state::App;
use crate::app::{Desk, Federation};
use crate::ui::Outside;

/// How long the copy for reading is kept without a read.
const IDLE: Duration = Duration::from_secs(120);

/// How often a waiting reader looks whether the holder is closing.
const POLL: Duration = Duration::from_millis(100);

/// The reads that take long (the whole record, or the whole audit log): run on the copy for
/// reading. Those of a moment — the audit chain's head, the newest entries, an edit's preview,
/// the officers — are answered between two keys, as edits are, without a copy.
pub(super) fn long_read(command: &Command) -> bool {
    matches!(
        command,
        Command::Export { .. }
            | Command::Log {
                head: false,
                last: None,
                ..
            }
            | Command::Check { .. }
            | Command::Backup { .. }
    )
}

/// Where the committed transactions go: the copy for reading's end, while there is one.
type To<R> = Option<Sender<Vec<AuditEntry<R>>>>;

/// What the holder's watcher sends the copy for reading: every committed transaction.
pub(super) struct Feed<R: Federation> {
    to: Arc<Mutex<To<R>>>,
}

impl<R: Federation> Clone for Feed<R> {
    fn clone(&self) -> Self {
        Self {
            to: self.to.clone(),
        }
    }
}

impl<R: Federation> Default for Feed<R> {
    fn default() -> Self {
        Self { to: Arc::default() }
    }
}

impl<R: Federation> Feed<R> {
    fn to(&self) -> std::sync::MutexGuard<'_, To<R>> {
        self.to.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a copy for reading follows the edits.
    pub(super) fn following(&self) -> bool {
        self.to().is_some()
    }

    /// Sends a stored transaction to the copy for reading (let go when it has gone).
    pub(super) fn committed(&self, entries: &[AuditEntry<R>]) {
        let mut to = self.to();
        if to
            .as_ref()
            .is_some_and(|s| s.send(entries.to_vec()).is_err())
        {
            *to = None;
        }
    }
}

/// A read to run: who asked for what (`anna: export ratings`), whether it may start now (the
/// asking process still waits, and is told it started), and the work, given the copy for
/// reading brought up to the newest edit (or why there is none), which answers for itself.
pub(super) struct ReadAsked<R: Federation> {
    pub asked: String,
    pub start: Box<dyn FnOnce() -> bool + Send>,
    pub work: Work<R>,
}

/// What a read does with the copy for reading.
pub(super) type Work<R> = Box<dyn FnOnce(Result<&mut Desk<R>, String>) + Send>;

impl<R: Federation> ReadAsked<R> {
    /// A command, answered on `answer` with its output, message and exit status.
    pub(super) fn command(
        command: Command,
        asked: String,
        start: Box<dyn FnOnce() -> bool + Send>,
        answer: Sender<(Vec<u8>, String, u8)>,
    ) -> Self {
        Self {
            asked,
            start,
            work: Box::new(move |copy| {
                let _ = answer.send(match copy {
                    Ok(desk) => run(desk, command),
                    Err(message) => (Vec::new(), message, 1),
                });
            }),
        }
    }
}

/// The thread that runs reads, while the database is served.
pub(super) struct Reader<R: Federation> {
    requests: Sender<ReadAsked<R>>,
    closing: Arc<AtomicBool>,
    /// The read under way, if one is.
    running: Arc<Mutex<Option<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<R: Federation> Reader<R> {
    /// Starts the thread; the copy for reading is made on the first read, by a job `outside`
    /// runs between two edits, and told every edit through `feed`.
    pub(super) fn start(outside: Outside<R>, feed: Feed<R>) -> std::io::Result<Self> {
        let (requests, incoming) = mpsc::channel();
        let closing = Arc::new(AtomicBool::new(false));
        let running = Arc::default();
        let thread = std::thread::Builder::new().name("read".into()).spawn({
            let (closing, running) = (closing.clone(), Arc::clone(&running));
            move || reads(&incoming, &outside, &feed, (&closing, &running))
        })?;
        Ok(Self {
            requests,
            closing,
            running,
            thread: Some(thread),
        })
    }

    /// The handle to give reads to.
    pub(super) fn requests(&self) -> Sender<ReadAsked<R>> {
        self.requests.clone()
    }
}

impl<R: Federation> Drop for Reader<R> {
    /// The read under way ends first (the copy goes before the database it shares closes);
    /// those waiting are answered as not run.
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Some(asked) = &*self.running.lock().unwrap_or_else(PoisonError::into_inner) {
            eprintln!(
                "ratedesk: closing once the read under way ends ({})",
                output::escape_text(asked)
            );
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn reads<R: Federation>(
    incoming: &Receiver<ReadAsked<R>>,
    outside: &Outside<R>,
    feed: &Feed<R>,
    (closing, running): (&AtomicBool, &Mutex<Option<String>>),
) {
    let mut copy: Option<Desk<R>> = None;
    let mut idle = Duration::ZERO;
    while !closing.load(Ordering::SeqCst) {
        let read = match incoming.recv_timeout(POLL) {
            Ok(read) => read,
            Err(RecvTimeoutError::Timeout) => {
                idle += POLL;
                if idle >= IDLE && copy.take().is_some() {
                    *feed.to() = None;
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        idle = Duration::ZERO;
        // The copy first, while the read may still be given up (the asking process told the
        // workstation did not get to it, as for a command between two keys).
        let ready = current(&mut copy, outside, feed, closing);
        if !(read.start)() {
            continue;
        }
        *running.lock().unwrap_or_else(PoisonError::into_inner) = Some(read.asked);
        (read.work)(ready);
        *running.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
    // Nothing more is sent to a copy that has gone.
    *feed.to() = None;
}

/// The copy for reading, brought up to the newest edit: the one kept, or a new one.
fn current<'a, R: Federation>(
    copy: &'a mut Option<Desk<R>>,
    outside: &Outside<R>,
    feed: &Feed<R>,
    closing: &AtomicBool,
) -> Result<&'a mut Desk<R>, String> {
    let kept = copy.as_mut().is_some_and(|desk| desk.read_on().is_ok());
    if !kept {
        // The old copy goes before the new one is made.
        *copy = None;
        *copy = Some(take(outside, feed, closing)?);
    }
    copy.as_mut()
        .ok_or_else(|| "the record could not be read".to_string())
}

/// A new copy for reading, made by the holder a part at a time between two edits (each part
/// a few milliseconds of its time), then finished here.
fn take<R: Federation>(
    outside: &Outside<R>,
    feed: &Feed<R>,
    closing: &AtomicBool,
) -> Result<Desk<R>, String> {
    let (entries, incoming) = mpsc::channel();
    let feed = feed.clone();
    // From the first part on, every edit stored is sent to the copy.
    let (mut making, mut done) = on_holder(outside, closing, move |app| {
        *feed.to() = Some(entries);
        let mut making = Making::default();
        let done = app.desk.copy_part(&mut making);
        (making, done)
    })?;
    while !done {
        (making, done) = on_holder(outside, closing, move |app| {
            let done = app.desk.copy_part(&mut making);
            (making, done)
        })?;
    }
    let made = on_holder(outside, closing, move |app| app.desk.made(making))?
        .map_err(|e| format!("the record could not be read: {e}"))?;
    Ok(made.into_desk(incoming))
}

/// What `work` gives, done by the holder between two edits.
fn on_holder<R: Federation, T: Send + 'static>(
    outside: &Outside<R>,
    closing: &AtomicBool,
    work: impl FnOnce(&mut App<R>) -> T + Send + 'static,
) -> Result<T, String> {
    let closed = || {
        "the workstation closed before the command ran: nothing was run; run it again".to_string()
    };
    let (tx, rx) = mpsc::channel();
    let job = crate::ui::Job {
        asked: String::new(),
        run: Box::new(move |app| {
            let _ = tx.send(work(app));
        }),
    };
    if !outside.send(job) {
        return Err(closed());
    }
    // A workstation suspended (ctrl-z) does no job: the read is given up as a command
    // between two keys is.
    let until = std::time::Instant::now() + super::serve::START_WITHIN;
    loop {
        match rx.recv_timeout(POLL) {
            Ok(done) => return Ok(done),
            Err(RecvTimeoutError::Timeout) if closing.load(Ordering::SeqCst) => {
                return Err(closed());
            }
            Err(RecvTimeoutError::Timeout) if std::time::Instant::now() > until => {
                return Err(format!(
                    "the workstation did not get to the command within {} minutes (is it suspended?): nothing was run",
                    super::serve::START_WITHIN.as_secs() / 60
                ));
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err(closed()),
        }
    }
}

/// Runs a read on the copy: its output, its message and its exit status.
fn run<R: Federation>(desk: &mut Desk<R>, command: Command) -> (Vec<u8>, String, u8) {
    let mut stdout = Vec::new();
    let ran = {
        let mut out = output::Escaping::new(Box::new(&mut stdout) as Box<dyn std::io::Write>);
        commands::run_on(
            desk,
            command,
            Arc::new(AtomicBool::new(false)),
            &mut out,
            true,
        )
    };
    let (stderr, code) = match ran {
        Ok(()) => (String::new(), 0),
        Err(failure) => super::said(failure),
    };
    (stdout, stderr, code)
}
