//! Several `ratedesk`s on one database: while the workstation has a database open, it serves
//! the commands of every other `ratedesk` on it (exports, `log`, `check`, lookups, results,
//! corrections, imports) through a Unix socket in the database folder, as tmux and Neovim
//! serve theirs. The command runs on the workstation's record between two keys, with the
//! same output, messages and exit status as on its own; an edit is on disk before its answer,
//! is audited under the OS user of the process that asked (from the socket's peer
//! credentials, never from what it claims), and shows on the open screen at once.
//!
//! The wire: one request, one answer, each a length-prefixed JSON frame; the answer's
//! standard output follows it as raw bytes.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::reader::{self, Feed, ReadAsked, Reader};
use super::{Command, Failure, ImportKind, OfficersCommand, commands, output};
use crate::app::Federation;
use crate::app::officers::Person;
use crate::app::replica::{AuditEntry, Shipped, Watcher};
use crate::ui::Outside;

use crate::app::database::SERVE_SOCKET as SOCKET;

/// The longest request read: a command line.
const MAX_REQUEST: u64 = 1 << 20;

/// The longest answer head read: a message.
const MAX_ANSWER_HEAD: u64 = 16 << 20;

/// How long a command may wait for the workstation to start it (it runs commands between two
/// keys, one after another); one not started by then is not run.
pub(super) const START_WITHIN: Duration = Duration::from_secs(600);

/// How long the asking process waits for the workstation to take its request: one that does
/// not (a workstation suspended with ctrl-z) runs nothing.
const TAKEN_WITHIN: Duration = Duration::from_secs(5);

/// What another `ratedesk` asks.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Request {
    protocol: u32,
    version: String,
    ask: Ask,
    /// Who the asking process says runs it (`$USER`, the SSH client): kept beside the name
    /// its credentials give, never instead of it.
    says: String,
    /// The command as it was typed (without `--db`), for the workstation's status line.
    shown: String,
}

impl Request {
    /// A request of this process: its version, its protocol, and who it says runs it.
    fn of_this_process(ask: Ask, shown: String) -> Self {
        Self {
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").into(),
            ask,
            says: crate::app::database::audit_user(),
            shown,
        }
    }
}

/// A command to run, or a workstation that follows the record and sends its edits.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Ask {
    Command(Command),
    Copy,
    /// The rulebook of the database (for a workstation that cannot read the folder itself).
    Rules,
}

/// What the holder sends a copy after the record itself (one message): the entries it
/// committed, and the answer to the copy's own edit (after that edit's entries).
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(super) enum Up<R: Federation> {
    Entries(Vec<AuditEntry<R>>),
    Answer(Result<u64, String>),
    Entry(Option<Box<AuditEntry<R>>>),
}

/// [`Up::Entries`] written from borrowed entries (the same bytes).
#[derive(Serialize)]
#[serde(bound = "")]
enum UpRef<'a, R: Federation> {
    Entries(&'a [AuditEntry<R>]),
}

/// What a copy sends the holder: an edit made on it.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(super) enum Down<R: Federation> {
    /// An edit, made on the record as it stood after the entry numbered.
    Commit(Vec<Shipped<R>>, u64),
    /// An audit entry with its records (undo and redo of one stored before the copy).
    Entry(u64),
}

/// Frames waiting to go to one copy: one that falls this far behind is let go (it takes a
/// fresh copy of the record when it connects again).
const COPY_QUEUE: usize = 4096;

/// How long a write to a copy may wait for it to read.
const COPY_WRITE_WITHIN: Duration = Duration::from_secs(30);

/// The longest edit a copy may send (a file's import).
const MAX_SHIPPED: u64 = 1 << 32;

/// One copy's end: its number, the queue of frames its connection writes, and the connection
/// (shut when the copy is let go, so that it knows and takes the record again).
type End = (u64, std::sync::mpsc::SyncSender<Arc<Vec<u8>>>, UnixStream);

/// The copies of the record this process holds, each by the queue of its connection.
#[derive(Clone, Default)]
pub(super) struct Copies {
    ends: Arc<std::sync::Mutex<Vec<End>>>,
}

impl Copies {
    fn ends(&self) -> std::sync::MutexGuard<'_, Vec<End>> {
        self.ends
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Tells every copy of the record each edit the holder stores: the copy for reading in this
/// process, and those of other workstations.
struct Broadcast<R: Federation> {
    copies: Copies,
    feed: Feed<R>,
}

impl<R: Federation> Watcher<R> for Broadcast<R> {
    fn watching(&self) -> bool {
        self.feed.following()
    }

    fn stored(&mut self, entries: &[AuditEntry<R>]) {
        self.feed.committed(entries);
    }

    fn durable(&self) -> bool {
        !self.copies.ends().is_empty()
    }

    fn committed(&mut self, entries: &[AuditEntry<R>]) {
        let Ok(bytes) = serde_json::to_vec(&UpRef::Entries(entries)) else {
            return;
        };
        let frame = Arc::new(bytes);
        // A copy whose queue is full (it stopped reading) is let go.
        self.copies.ends().retain(|(_, end, stream)| {
            let sent = end.try_send(frame.clone()).is_ok();
            if !sent {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
            sent
        });
    }
}

/// The frames that tell the asking process its request is taken, then started.
const TAKEN: &[u8] = b"taken";
const STARTED: &[u8] = b"started";

/// What the two ends speak: a request or answer of another layout is refused by its number.
/// 5: a copy's units carry their rows as stored, in columns since schema 6 (4: as a record of
/// their sequence), which a process of 4 would read as no rows; 6: with their performances and
/// figures in columns too (schema 7), which a process of 5 would read as no rows.
const PROTOCOL: u32 = 6;

/// Where a request is: waiting for the workstation, running there, or given up unrun.
const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const CANCELLED: u8 = 2;

/// The answer's head; its standard output (`stdout` bytes) follows it.
#[derive(Debug, Serialize, Deserialize)]
struct Answer {
    stdout: u64,
    stderr: String,
    code: u8,
}

/// The commands another `ratedesk` may have the open workstation run: those on a database
/// that neither create nor replace it, nor read keys from their own terminal.
pub(super) fn served(command: &Command) -> bool {
    matches!(
        command,
        Command::Import { .. }
            | Command::Export { .. }
            | Command::Backup { .. }
            | Command::Check { .. }
            | Command::Preview { .. }
            | Command::Result { .. }
            | Command::Received { .. }
            | Command::Reenter { .. }
            | Command::Confirm { .. }
            | Command::Undo { .. }
            | Command::Redo { .. }
            | Command::Log { .. }
            | Command::Officers { .. }
    )
}

/// What a served command needs of the process that asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needs {
    /// Anyone the database folder lets reach the socket: it reads.
    Reader,
    /// An officer: it edits.
    Editor,
    /// The owner: it reads or writes files as the owner (an import, a backup), or names
    /// officers.
    Owner,
}

fn needs(command: &Command) -> Needs {
    match command {
        Command::Import { .. }
        | Command::Backup { .. }
        | Command::Check {
            against: Some(_), ..
        } => Needs::Owner,
        Command::Officers {
            what: OfficersCommand::List,
        } => Needs::Reader,
        Command::Officers { .. } => Needs::Owner,
        Command::Result { .. }
        | Command::Received { .. }
        | Command::Reenter { .. }
        | Command::Confirm { .. }
        | Command::Undo { .. }
        | Command::Redo { .. } => Needs::Editor,
        _ => Needs::Reader,
    }
}

/// Serving the database in `dir` while the value lives: the socket is removed when it goes,
/// and the thread of reads stops (after the read under way).
pub(super) struct Serving {
    path: PathBuf,
    /// The thread of reads (a [`Reader`] of the database's rulebook).
    reader: Option<Box<dyn Send>>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        drop(self.reader.take());
    }
}

/// Listens on the database folder's socket for the commands of other `ratedesk`s and hands
/// each to the workstation. The caller holds the database's lock, so a socket left by a
/// process that was killed is replaced. A warning when it cannot listen: the workstation works
/// as before, alone.
pub(super) fn serve<R: Federation>(dir: &Path, outside: Outside<R>) -> Result<Serving, String> {
    let path = dir.join(SOCKET);
    let _ = std::fs::remove_file(&path);
    let shown = path.display().to_string();
    let cannot = move |e: std::io::Error| {
        format!("other commands cannot use the database while it is open here ({shown}: {e})")
    };
    let listener = UnixListener::bind(&path).map_err(&cannot)?;
    // The owner, and the group the folder is open to (`officers add --group`): no one else.
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match crate::app::database::admitted_group(dir) {
            Some(gid) => {
                let group = Some(nix::unistd::Gid::from_raw(gid));
                match nix::unistd::chown(&path, None, group) {
                    Ok(()) => 0o660,
                    Err(_) => 0o600,
                }
            }
            None => 0o600,
        };
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode));
    }
    // Every edit stored here, from now on, is told to the copies of the record.
    let copies = Copies::default();
    let feed = Feed::default();
    let watcher = Broadcast {
        copies: copies.clone(),
        feed: feed.clone(),
    };
    let reader = Reader::start(outside.clone(), feed).map_err(&cannot)?;
    let reads = reader.requests();
    let serving = Serving {
        path,
        reader: Some(Box::new(reader)),
    };
    outside.send(crate::ui::Job {
        asked: String::new(),
        run: Box::new(move |app| app.desk.watch(Box::new(watcher))),
    });
    let spawned = std::thread::Builder::new()
        .name("serve".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else {
                    // Out of file descriptors, say: a moment before the next, not a spin.
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                };
                let (outside, copies, reads) = (outside.clone(), copies.clone(), reads.clone());
                let _ = std::thread::Builder::new()
                    .name("serve-one".into())
                    .spawn(move || answer(stream, &outside, (&copies, &reads)));
            }
        });
    spawned.map(|_| serving).map_err(cannot)
}

/// `ratedesk serve`: the database served in the foreground, with no screen, until SIGTERM or
/// ctrl-c (`stop`); the commands it runs are audited and answered as the workstation's are.
pub(super) fn foreground<R: Federation>(
    dir: &Path,
    rulebook: R,
    stop: Arc<AtomicBool>,
) -> Result<(), Failure> {
    use std::sync::atomic::Ordering;
    let desk = commands::open(dir, rulebook)?;
    let mut app = crate::app::workstation::state::App::new(desk);
    let (outside, jobs) = Outside::headless();
    let serving = serve(dir, outside).map_err(Failure::Other)?;
    println!(
        "ratedesk: serving {} (SIGTERM or ctrl-c stops)",
        dir.display()
    );
    let _ = std::io::stdout().flush();
    while !stop.load(Ordering::SeqCst) {
        match jobs.recv_timeout(Duration::from_millis(100)) {
            Ok(job) => (job.run)(&mut app),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    // No more requests taken; the ones waiting are answered as not run.
    drop(serving);
    drop(jobs);
    if let Some(warning) = app.close()? {
        eprintln!("ratedesk: warning: {}", output::escape_text(&warning));
    }
    Ok(())
}

/// Reads one request, has the workstation run it, and writes the answer.
fn answer<R: Federation>(
    mut stream: UnixStream,
    outside: &Outside<R>,
    (copies, reads): (&Copies, &std::sync::mpsc::Sender<ReadAsked<R>>),
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let refuse = |stream: &mut UnixStream, message: String, code: u8| {
        write_answer(stream, &message, code, &[]);
    };
    let person = match peer(&stream) {
        Ok(person) => person,
        Err(message) => return refuse(&mut stream, message, 1),
    };
    let request: Request = match read_frame(&mut stream, MAX_REQUEST)
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(std::io::Error::other))
    {
        Ok(r) => r,
        Err(e) => {
            return refuse(
                &mut stream,
                format!("a request that cannot be read: {e}"),
                2,
            );
        }
    };
    let version = env!("CARGO_PKG_VERSION");
    if request.version != version || request.protocol != PROTOCOL {
        return refuse(
            &mut stream,
            format!(
                "the database is open in ratedesk {version}, which cannot run a command of ratedesk {}: use the same version",
                request.version
            ),
            1,
        );
    }
    let user = audit_name(&person.name, &request.says);
    let command = match request.ask {
        Ask::Command(command) => command,
        Ask::Copy => return follow_here(stream, outside, (copies, reads), user, person),
        Ask::Rules => return write_answer(&mut stream, "", 0, R::default().code().as_bytes()),
    };
    let needs = needs(&command);
    if needs == Needs::Owner && !person.is_owner() {
        return refuse(
            &mut stream,
            format!(
                "{} reads or writes files as the database's owner, or names its officers: run it as {}",
                request.shown,
                crate::app::database::owner_name()
            ),
            1,
        );
    }
    if !served(&command) {
        return refuse(
            &mut stream,
            "the database is open in the workstation: this command needs it closed".into(),
            1,
        );
    }
    if let Err(message) = files_only(&command) {
        return refuse(&mut stream, message, 2);
    }
    // Taken: the asking process now waits as long as the command takes.
    if write_frame(&mut stream, TAKEN).is_err() {
        return;
    }
    let state = Arc::new(std::sync::atomic::AtomicU8::new(QUEUED));
    let (tx, rx) = std::sync::mpsc::channel();
    let Ok(mut watch) = stream.try_clone() else {
        return refuse(
            &mut stream,
            "the request cannot be followed: nothing was run".into(),
            1,
        );
    };
    let deadline = std::time::Instant::now() + START_WITHIN;
    let mut start = {
        let state = state.clone();
        move || {
            use std::sync::atomic::Ordering::SeqCst;
            if state
                .compare_exchange(QUEUED, RUNNING, SeqCst, SeqCst)
                .is_err()
            {
                return false;
            }
            // Too late (a workstation resumed after a long suspension), or the asking process
            // has gone (ctrl-c): not run.
            if std::time::Instant::now() > deadline || gone(&watch) {
                state.store(CANCELLED, SeqCst);
                return false;
            }
            // Started: the asking process now waits for the answer however long it takes.
            if write_frame(&mut watch, STARTED).is_err() {
                state.store(CANCELLED, SeqCst);
                return false;
            }
            true
        }
    };
    let unrun = "the workstation closed before the command ran: nothing was run; run it again";
    // A long read runs beside the edits, on the copy kept for reading; anything else between
    // two of the workstation's keys.
    let handed = if reader::long_read(&command) {
        let asked = format!("{}: {}", user, request.shown);
        let read = ReadAsked::command(command, asked, Box::new(start), tx);
        reads.send(read).is_ok()
    } else {
        let job: crate::ui::Job<R> = crate::ui::Job {
            asked: format!("{}: {}", user, request.shown),
            run: Box::new(move |app| {
                if !start() {
                    return;
                }
                if needs == Needs::Editor && !app.desk.may_edit(&person) {
                    let _ = tx.send((Vec::new(), crate::app::officers::may_not_edit(&person), 1));
                    return;
                }
                let _ = tx.send(run_here(app, command, user));
            }),
        };
        outside.send(job)
    };
    if !handed {
        return refuse(&mut stream, unrun.into(), 1);
    }
    use std::sync::atomic::Ordering::SeqCst;
    let answer = match rx.recv_timeout(START_WITHIN) {
        Ok(answer) => Some(answer),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            if state
                .compare_exchange(QUEUED, CANCELLED, SeqCst, SeqCst)
                .is_ok()
            {
                return refuse(
                    &mut stream,
                    format!(
                        "the workstation did not get to the command within {} minutes (is it suspended, or busy with a long command?): nothing was run",
                        START_WITHIN.as_secs() / 60
                    ),
                    1,
                );
            }
            // Started meanwhile: its answer, however long it takes.
            rx.recv().ok()
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
    };
    match answer {
        Some((stdout, stderr, code)) => write_answer(&mut stream, &stderr, code, &stdout),
        None if state.load(SeqCst) != RUNNING => refuse(&mut stream, unrun.into(), 1),
        None => refuse(
            &mut stream,
            "the workstation stopped while it ran the command, which may or may not have been stored: see `ratedesk log --last 3`".into(),
            1,
        ),
    }
}

/// A workstation of another process that keeps a copy of the record: sent the record (one
/// message), then every entry stored here; its edits are made here (checked against the
/// record as it is, audited under `user`) and answered after their entries.
fn follow_here<R: Federation>(
    mut stream: UnixStream,
    outside: &Outside<R>,
    (copies, reads): (&Copies, &std::sync::mpsc::Sender<ReadAsked<R>>),
    user: String,
    person: Person,
) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let _ = stream.set_read_timeout(None);
    let _ = stream.set_write_timeout(Some(COPY_WRITE_WITHIN));
    if write_frame(&mut stream, TAKEN).is_err() {
        return;
    }
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Arc<Vec<u8>>>(COPY_QUEUE);
    let (Ok(kept), Ok(shut)) = (stream.try_clone(), stream.try_clone()) else {
        return;
    };
    // Shuts the connection: the copy knows it was let go (or never taken) and takes the
    // record again.
    let let_go = move || {
        let _ = shut.shutdown(std::net::Shutdown::Both);
    };
    let let_go = Arc::new(let_go);
    // The record is written from the copy for reading, beside the officers' edits; then,
    // between two edits, the entries stored since it and the copy's place among those told.
    let read = {
        let (outside, copies, tx, user, let_go) = (
            outside.clone(),
            copies.clone(),
            tx.clone(),
            user.clone(),
            let_go.clone(),
        );
        ReadAsked::<R> {
            asked: format!("{user}: a workstation on a copy"),
            start: Box::new(|| true),
            work: Box::new(move |copy| {
                let written = copy.and_then(|desk| {
                    let at = desk.audit().last().map_or(0, |a| a.seq);
                    desk.snapshot()
                        .map(|bytes| (at, bytes))
                        .map_err(|e| e.to_string())
                });
                let Ok((at, record)) = written else {
                    return let_go();
                };
                let job = crate::ui::Job {
                    asked: String::new(),
                    run: Box::new(move |app| {
                        // A workstation that went while its record was written is not told.
                        if !gone(&kept)
                            && tx.try_send(Arc::new(record)).is_ok()
                            && send_since(&app.desk, at, &tx)
                        {
                            copies.ends().push((id, tx, kept));
                            app.asked_elsewhere(&format!(
                                "{user} opened a workstation on this database"
                            ));
                        } else {
                            let_go();
                        }
                    }),
                };
                outside.send(job);
            }),
        }
    };
    if reads.send(read).is_err() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("serve-copy".into())
        .spawn(move || {
            for frame in rx {
                if write_frame(&mut writer, &frame).is_err() {
                    break;
                }
            }
            let _ = writer.shutdown(std::net::Shutdown::Both);
        });
    // An answer that cannot be queued lets the copy go rather than leave it waiting.
    let answer = {
        let (tx, let_go) = (tx.clone(), let_go.clone());
        move |up: &Up<R>| {
            let sent =
                serde_json::to_vec(up).is_ok_and(|bytes| tx.try_send(Arc::new(bytes)).is_ok());
            if !sent {
                let_go();
            }
        }
    };
    let answer = Arc::new(answer);
    while let Ok(bytes) = read_frame(&mut stream, MAX_SHIPPED) {
        let (shipped, at) = match serde_json::from_slice::<Down<R>>(&bytes) {
            Ok(Down::Commit(shipped, at)) => (shipped, at),
            Ok(Down::Entry(seq)) => {
                let answer = answer.clone();
                let job = crate::ui::Job {
                    asked: String::new(),
                    run: Box::new(move |app| {
                        let entry = app.desk.audit_entry(seq).ok().flatten().map(Box::new);
                        answer(&Up::<R>::Entry(entry));
                    }),
                };
                if !outside.send(job) {
                    break;
                }
                continue;
            }
            Err(_) => break,
        };
        let (answer, user, person) = (answer.clone(), user.clone(), person.clone());
        let job = crate::ui::Job {
            asked: String::new(),
            run: Box::new(move |app| {
                if !app.desk.may_edit(&person) {
                    return answer(&Up::Answer(Err(crate::app::officers::may_not_edit(
                        &person,
                    ))));
                }
                let action = shipped
                    .iter()
                    .map(|s| s.action.as_str())
                    .collect::<Vec<_>>()
                    .join("; ");
                app.desk.acting_for(Some(user.clone()));
                let stored = app.desk.commit_shipped(shipped, at);
                app.desk.acting_for(None);
                // On disk before the answer.
                let stored = stored.and_then(|last| app.desk.settle().map(|()| last));
                let outcome = match stored {
                    Ok(last) => {
                        app.edited_elsewhere(format!("{user}: {action}"));
                        Ok(last)
                    }
                    Err(e) => Err(e.to_string()),
                };
                answer(&Up::Answer(outcome));
            }),
        };
        if !outside.send(job) {
            break;
        }
    }
    copies.ends().retain(|(end, _, _)| *end != id);
}

/// Queues for a copy the entries `desk` stored after entry `at` (on disk first, as every entry
/// a copy is told): whether they were queued.
fn send_since<R: Federation>(
    desk: &crate::app::Desk<R>,
    at: u64,
    queue: &std::sync::mpsc::SyncSender<Arc<Vec<u8>>>,
) -> bool {
    let since: Vec<u64> = desk
        .audit()
        .iter()
        .map(|a| a.seq)
        .filter(|&seq| seq > at)
        .collect();
    if since.is_empty() {
        return true;
    }
    let entries: Option<Vec<AuditEntry<R>>> = since
        .into_iter()
        .map(|seq| desk.audit_entry(seq).ok().flatten())
        .collect();
    let Some(entries) = entries else {
        return false;
    };
    desk.settle().is_ok()
        && serde_json::to_vec(&UpRef::Entries(&entries))
            .is_ok_and(|bytes| queue.try_send(Arc::new(bytes)).is_ok())
}

/// Whether the process at the other end has gone (closed its end).
fn gone(stream: &UnixStream) -> bool {
    use nix::sys::socket::{MsgFlags, recv};
    use std::os::fd::AsRawFd;
    let mut byte = [0u8; 1];
    match recv(
        stream.as_raw_fd(),
        &mut byte,
        MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT,
    ) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e != nix::errno::Errno::EAGAIN,
    }
}

/// The audit's name of an asking process: its OS user as its credentials give it, with what
/// it says of itself (`$USER`, the SSH client) beside it when that says more.
fn audit_name(who: &str, says: &str) -> String {
    let says: String = says.chars().filter(|c| !c.is_control()).take(200).collect();
    match says.strip_prefix(who) {
        Some("") => who.to_string(),
        Some(rest) if rest.starts_with(" (") => format!("{who}{rest}"),
        _ => format!("{who} (says {says})"),
    }
}

/// The files a served command reads are regular files: a pipe, a terminal or a device would
/// have the workstation wait for ever on input that is not its own.
fn files_only(command: &Command) -> Result<(), String> {
    let inputs: Vec<&PathBuf> = match command {
        Command::Import {
            what:
                ImportKind::Json { files, .. }
                | ImportKind::Trf { files, .. }
                | ImportKind::FideList { files, .. },
        } => files.iter().collect(),
        Command::Import {
            what: ImportKind::NationalCsv { file, .. },
        } => vec![file],
        Command::Check {
            against: Some(file),
        } => vec![file],
        _ => Vec::new(),
    };
    for path in inputs {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(format!(
                    "{}: not a file; while the database is open in the workstation, a command reads files only (not a pipe or a device)",
                    path.display()
                ));
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    if let Command::Backup { file } = command
        && std::fs::metadata(file).is_ok_and(|m| !m.is_file())
    {
        return Err(format!("{}: not a file", file.display()));
    }
    Ok(())
}

/// Runs a command on the workstation's record for `user`: its output, its message and its
/// exit status. An edit is on disk before the answer, and the screen says who made it.
fn run_here<R: Federation>(
    app: &mut crate::app::workstation::state::App<R>,
    command: Command,
    user: String,
) -> (Vec<u8>, String, u8) {
    // The newest audit entry, as the desk holds it.
    let head =
        |app: &crate::app::workstation::state::App<R>| app.desk.audit().last().map(|a| a.seq);
    let before = head(app);
    let mut stdout = Vec::new();
    app.desk.acting_for(Some(user.clone()));
    let ran = {
        let mut out = output::Escaping::new(Box::new(&mut stdout) as Box<dyn Write>);
        commands::run_on(
            &mut app.desk,
            command,
            Arc::new(AtomicBool::new(false)),
            &mut out,
            true,
        )
    };
    app.desk.acting_for(None);
    // What it stored is on disk before the answer, whatever the answer. (A read stored
    // nothing: it answers even after an earlier edit's finishing failed.)
    let after = head(app);
    let settled = if before == after {
        Ok(())
    } else {
        app.desk.settle().map_err(Failure::from)
    };
    let ran = ran.and(settled);
    if before != after {
        let first = String::from_utf8_lossy(&stdout)
            .lines()
            .next()
            .unwrap_or("an edit")
            .trim()
            .to_string();
        app.edited_elsewhere(format!("{user}: {first}"));
    }
    let (stderr, code) = match ran {
        Ok(()) => (String::new(), 0),
        Err(failure) => super::said(failure),
    };
    (stdout, stderr, code)
}

/// The OS user of the process at the other end, as its credentials give him. Anyone the
/// database folder and the socket let reach it (the owner, and the group it is open to) reads;
/// who edits is the officers' matter.
fn peer(stream: &UnixStream) -> Result<Person, String> {
    use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
    let cred = getsockopt(stream, PeerCredentials)
        .map_err(|e| format!("the other process cannot be told: {e}"))?;
    Ok(Person::of(cred.uid(), cred.gid()))
}

pub(super) fn write_frame(stream: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    stream.write_all(&(bytes.len() as u64).to_be_bytes())?;
    stream.write_all(bytes)
}

pub(super) fn read_frame(stream: &mut UnixStream, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    stream.read_exact(&mut len)?;
    let len = u64::from_be_bytes(len);
    if len > limit {
        return Err(std::io::Error::other(format!(
            "a frame of {len} bytes (at most {limit})"
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    stream.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(bytes)
}

fn write_answer(stream: &mut UnixStream, stderr: &str, code: u8, stdout: &[u8]) {
    let head = Answer {
        stdout: stdout.len() as u64,
        stderr: stderr.to_string(),
        code,
    };
    if let Ok(bytes) = serde_json::to_vec(&head) {
        let _ = write_frame(stream, &bytes).and_then(|()| stream.write_all(stdout));
    }
}

/// This process's command as it was typed, without `--db` and its folder, on one line of at
/// most 80 characters.
fn typed() -> String {
    let mut words = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--db" {
            args.next();
        } else if !a.starts_with("--db=") {
            words.push(a);
        }
    }
    let line: String = words
        .join(" ")
        .chars()
        .filter(|c| !c.is_control() && !crate::app::is_bidi_control(*c))
        .collect();
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// Paths of a command as this process sees them (the workstation resolves none against its
/// own folder).
fn absolute(command: &mut Command) -> std::io::Result<()> {
    let fix = |p: &mut PathBuf| -> std::io::Result<()> {
        *p = std::path::absolute(&*p)?;
        Ok(())
    };
    match command {
        Command::Import {
            what:
                ImportKind::Json { files, .. }
                | ImportKind::Trf { files, .. }
                | ImportKind::FideList { files, .. },
        } => files.iter_mut().try_for_each(fix),
        Command::Import {
            what: ImportKind::NationalCsv { file, .. },
        }
        | Command::Backup { file } => fix(file),
        Command::Check {
            against: Some(file),
        } => fix(file),
        _ => Ok(()),
    }
}

/// Connects to the process that holds the database in `dir` as a workstation that keeps a
/// copy of the record: the stream, the record next on it (`None`: no process serves
/// the database).
pub(super) fn open_copy(dir: &Path) -> Result<Option<UnixStream>, Failure> {
    let Some(mut stream) = connect_own(dir)? else {
        return Ok(None);
    };
    let request = Request::of_this_process(Ask::Copy, "workstation".into());
    let lost = |e: std::io::Error| {
        Failure::Other(format!(
            "the process that holds the database does not answer ({e}): is its workstation suspended (ctrl-z)?"
        ))
    };
    send_request(&mut stream, &request).map_err(lost)?;
    let first = read_frame(&mut stream, MAX_ANSWER_HEAD).map_err(lost)?;
    if first != TAKEN {
        let head: Answer =
            serde_json::from_slice(&first).map_err(|e| lost(std::io::Error::other(e)))?;
        return Err(Failure::Other(head.stderr));
    }
    let _ = stream.set_read_timeout(None);
    let _ = stream.set_write_timeout(None);
    Ok(Some(stream))
}

/// Writes a request, with the time the serving process has to take it.
fn send_request(stream: &mut UnixStream, request: &Request) -> std::io::Result<()> {
    let _ = stream.set_write_timeout(Some(TAKEN_WITHIN));
    let _ = stream.set_read_timeout(Some(TAKEN_WITHIN));
    write_frame(
        stream,
        &serde_json::to_vec(request).map_err(std::io::Error::other)?,
    )
}

/// The rulebook of the database in `dir` as the process serving it says (`None`: none serves
/// it, or it does not say).
pub(super) fn holder_rules(dir: &Path) -> Option<String> {
    let mut stream = connect_own(dir).ok()??;
    let request = Request::of_this_process(Ask::Rules, "rules".into());
    send_request(&mut stream, &request).ok()?;
    let head: Answer =
        serde_json::from_slice(&read_frame(&mut stream, MAX_ANSWER_HEAD).ok()?).ok()?;
    let mut code = String::new();
    (head.code == 0 && head.stdout <= 64).then_some(())?;
    stream.take(head.stdout).read_to_string(&mut code).ok()?;
    Some(code)
}

/// A connection to the process serving the database in `dir`, if one does and it is this
/// user's (another user's is refused).
fn connect_own(dir: &Path) -> Result<Option<UnixStream>, Failure> {
    let path = dir.join(SOCKET);
    let Ok(stream) = UnixStream::connect(&path) else {
        // None listening (or a socket a killed process left).
        return Ok(None);
    };
    use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
    // Our own user's process, or the folder owner's: no one else's is asked.
    let theirs = getsockopt(&stream, PeerCredentials).map_err(super::other)?;
    let owner = crate::app::database::folder_owner(dir);
    if theirs.uid() != nix::unistd::getuid().as_raw() && Some(theirs.uid()) != owner {
        return Err(Failure::Other(format!(
            "{} is served by a process of another user (uid {}) than the database's owner: not asked",
            path.display(),
            theirs.uid()
        )));
    }
    Ok(Some(stream))
}

/// Has the workstation that holds the database in `dir` run `command`, when one does: its
/// output written here, and its exit status (`None`: no workstation serves the database,
/// and the command opens it itself).
pub(super) fn ask(dir: &Path, command: &Command) -> Result<Option<u8>, Failure> {
    // None listening: the command opens the database, and is told if it is in use. Only a
    // workstation of our own user is asked.
    let Some(mut stream) = connect_own(dir)? else {
        return Ok(None);
    };
    let mut command = command.clone();
    absolute(&mut command)?;
    files_only(&command).map_err(Failure::Input)?;
    let request = Request::of_this_process(Ask::Command(command), typed());
    let lost = |e: std::io::Error| {
        Failure::Other(format!(
            "the workstation that has the database open did not answer ({e}); the command may or may not have run: see `ratedesk log --last 3`"
        ))
    };
    send_request(&mut stream, &request).map_err(lost)?;
    // Taken (or refused at once, with an answer instead).
    let first = read_frame(&mut stream, MAX_ANSWER_HEAD).map_err(|e| {
        Failure::Other(format!(
            "the workstation that has the database open does not answer ({e}): is it suspended (ctrl-z)? nothing was run"
        ))
    })?;
    // Taken: started within the limit or not run; once started, the answer however long
    // the command takes.
    let head = if first == TAKEN {
        let _ = stream.set_read_timeout(Some(START_WITHIN + Duration::from_secs(60)));
        let next = read_frame(&mut stream, MAX_ANSWER_HEAD).map_err(lost)?;
        if next == STARTED {
            let _ = stream.set_read_timeout(None);
            read_frame(&mut stream, MAX_ANSWER_HEAD).map_err(lost)?
        } else {
            next
        }
    } else {
        first
    };
    let head: Answer = serde_json::from_slice(&head).map_err(|e| lost(std::io::Error::other(e)))?;
    // The output as it comes; a reader of ours that goes away (`| head`) is not the
    // workstation's failure.
    let mut stdout = std::io::stdout().lock();
    let mut left = head.stdout;
    let mut chunk = vec![0u8; 1 << 16];
    while left > 0 {
        let want = chunk.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let got = stream.read(&mut chunk[..want]).map_err(lost)?;
        if got == 0 {
            return Err(lost(std::io::ErrorKind::UnexpectedEof.into()));
        }
        stdout.write_all(&chunk[..got])?;
        left -= got as u64;
    }
    stdout.flush()?;
    if !head.stderr.is_empty() {
        eprintln!("ratedesk: {}", output::escape_text(&head.stderr));
    }
    Ok(Some(head.code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_names_the_credentials_user_and_keeps_what_he_says_beside_it() {
        assert_eq!(audit_name("anna", "anna"), "anna");
        assert_eq!(
            audit_name("anna", "anna (ssh from 10.0.0.7)"),
            "anna (ssh from 10.0.0.7)"
        );
        assert_eq!(audit_name("anna", "root"), "anna (says root)");
        assert_eq!(audit_name("anna", "annabel"), "anna (says annabel)");
        assert_eq!(
            audit_name("anna", "anna\n#1 forged"),
            "anna (says anna#1 forged)"
        );
    }

    #[test]
    fn a_served_command_reads_files_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("event.trf");
        std::fs::write(&file, "012 x\n").expect("write");
        let trf = |path: PathBuf| Command::Import {
            what: ImportKind::Trf {
                files: vec![path],
                dry_run: true,
                yes: false,
                time_control: None,
                id: None,
                received: None,
            },
        };
        assert_eq!(files_only(&trf(file)), Ok(()));
        let refused = files_only(&trf(dir.path().to_path_buf())).expect_err("a folder");
        assert!(refused.contains("not a file"), "{refused}");
        assert!(files_only(&trf(dir.path().join("missing.trf"))).is_err());
    }
}
