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

use super::{Command, Failure, ImportKind, commands, output};
use crate::app::Federation;
use crate::ui::Outside;

use crate::app::database::SERVE_SOCKET as SOCKET;

/// The longest request read: a command line.
const MAX_REQUEST: u64 = 1 << 20;

/// How long a command may wait for the workstation (which runs it between two keys, after
/// the commands before it).
const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// What another `ratedesk` asks.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    version: String,
    command: Command,
}

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
            | Command::Confirm { .. }
            | Command::Undo
            | Command::Redo
            | Command::Log { .. }
    )
}

/// Serving the database in `dir` while the value lives: the socket is removed when it goes.
pub(super) struct Serving {
    path: PathBuf,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Listens on the database folder's socket for the commands of other `ratedesk`s and hands
/// each to the workstation. The caller holds the database's lock, so a socket left by a
/// process that was killed is replaced. `None` (and a warning) when it cannot listen: the
/// workstation works as before, alone.
pub(super) fn serve<R: Federation>(dir: &Path, outside: Outside<R>) -> Option<Serving> {
    let path = dir.join(SOCKET);
    let _ = std::fs::remove_file(&path);
    let listener = match UnixListener::bind(&path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "ratedesk: warning: other commands cannot use the database while it is open here ({}: {e})",
                path.display()
            );
            return None;
        }
    };
    // Only the owner: the folder admits no one else either.
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
    }
    let serving = Serving { path };
    let spawned = std::thread::Builder::new()
        .name("serve".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let outside = outside.clone();
                let _ = std::thread::Builder::new()
                    .name("serve-one".into())
                    .spawn(move || answer(stream, &outside));
            }
        });
    spawned.ok().map(|_| serving)
}

/// Reads one request, has the workstation run it, and writes the answer.
fn answer<R: Federation>(mut stream: UnixStream, outside: &Outside<R>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let refuse = |stream: &mut UnixStream, message: String, code: u8| {
        write_answer(stream, &message, code, &[]);
    };
    let who = match peer(&stream) {
        Ok(who) => who,
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
    if request.version != version {
        return refuse(
            &mut stream,
            format!(
                "the database is open in ratedesk {version}, which cannot run a command of ratedesk {}: use the same version",
                request.version
            ),
            1,
        );
    }
    if !served(&request.command) {
        return refuse(
            &mut stream,
            "the database is open in the workstation: this command needs it closed".into(),
            1,
        );
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let user = who.clone();
    let job: crate::ui::Job<R> = Box::new(move |app| {
        let _ = tx.send(run_here(app, request.command, user));
    });
    if !outside.send(job) {
        return refuse(
            &mut stream,
            "the workstation closed before the command ran: run it again".into(),
            1,
        );
    }
    match rx.recv_timeout(ANSWER_WITHIN) {
        Ok((stdout, stderr, code)) => write_answer(&mut stream, &stderr, code, &stdout),
        Err(_) => refuse(
            &mut stream,
            "the workstation closed before the command ran: run it again".into(),
            1,
        ),
    }
}

/// Runs a command on the workstation's record for `user`: its output, its message and its
/// exit status. An edit is on disk before the answer, and the screen says who made it.
fn run_here<R: Federation>(
    app: &mut crate::app::workstation::state::App<R>,
    command: Command,
    user: String,
) -> (Vec<u8>, String, u8) {
    let head = |app: &crate::app::workstation::state::App<R>| app.desk.head().ok().flatten();
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
        )
    };
    app.desk.acting_for(None);
    let ran = ran.and_then(|()| app.desk.settle().map_err(Failure::from));
    let after = head(app);
    if before.map(|h| h.0) != after.map(|h| h.0) {
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

/// The OS user of the process at the other end (its name, else its uid), if it is this
/// process's user: the folder and the socket admit no one else.
fn peer(stream: &UnixStream) -> Result<String, String> {
    use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
    let cred = getsockopt(stream, PeerCredentials)
        .map_err(|e| format!("the other process cannot be told: {e}"))?;
    let uid = nix::unistd::Uid::from_raw(cred.uid());
    let name = |uid: nix::unistd::Uid| {
        nix::unistd::User::from_uid(uid)
            .ok()
            .flatten()
            .map_or_else(|| format!("uid {uid}"), |u| u.name)
    };
    let me = nix::unistd::getuid();
    if uid != me {
        return Err(format!(
            "the database is open by {}; {} may not use it meanwhile",
            name(me),
            name(uid)
        ));
    }
    Ok(name(uid))
}

fn write_frame(stream: &mut UnixStream, bytes: &[u8]) -> std::io::Result<()> {
    stream.write_all(&(bytes.len() as u64).to_be_bytes())?;
    stream.write_all(bytes)
}

fn read_frame(stream: &mut UnixStream, limit: u64) -> std::io::Result<Vec<u8>> {
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

/// Has the workstation that holds the database in `dir` run `command`, when one does: its
/// output written here, and its exit status (`None`: no workstation serves the database,
/// and the command opens it itself).
pub(super) fn ask(dir: &Path, command: &Command) -> Result<Option<u8>, Failure> {
    let path = dir.join(SOCKET);
    let Ok(mut stream) = UnixStream::connect(&path) else {
        // None listening (or a socket a killed process left): the command opens the
        // database, and is told if it is in use.
        return Ok(None);
    };
    let mut command = command.clone();
    absolute(&mut command)?;
    let request = Request {
        version: env!("CARGO_PKG_VERSION").into(),
        command,
    };
    let lost = |e: std::io::Error| {
        Failure::Other(format!(
            "the workstation that has the database open did not answer ({e}); the command may or may not have run: see `ratedesk log --last 3`"
        ))
    };
    write_frame(
        &mut stream,
        &serde_json::to_vec(&request).map_err(super::other)?,
    )
    .map_err(lost)?;
    let head: Answer = serde_json::from_slice(&read_frame(&mut stream, MAX_REQUEST).map_err(lost)?)
        .map_err(|e| lost(std::io::Error::other(e)))?;
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
