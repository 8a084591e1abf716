//! A workstation on a database another process holds (another officer's workstation, or
//! `ratedesk serve`): it takes a copy of the record through the database folder's socket,
//! follows every edit stored there within a frame, and sends its own edits to be made there
//! ([`crate::app::replica`]). When the holder goes (closed, or killed), the first workstation
//! to take the lock holds the database from then on and the others follow it: nothing
//! acknowledged is lost, since every edit is on disk before its answer.

use std::collections::VecDeque;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use super::Failure;
use super::serve::{self, Down, Up};
use crate::app::replica::{AuditEntry, Link, LinkError, Shipped};
use crate::app::workstation::state::App;
use crate::app::{Desk, Federation};
use crate::ui::{Job, Outside};

/// The longest copy of a record read.
const MAX_DUMP: u64 = 1 << 40;

/// The longest frame of entries read (a whole federation's import).
const MAX_ENTRIES: u64 = 1 << 36;

/// How long an edit waits for the holder's answer (it runs edits between its own keys, one
/// command at a time).
const ANSWER_WITHIN: Duration = Duration::from_secs(120);

/// How long a workstation whose holder went tries to take the database over or join the one
/// that did.
const REJOIN_WITHIN: Duration = Duration::from_secs(60);

/// The workstation's loop, once it runs: where what arrives is handed to be followed.
pub(super) type Wake<R> = Arc<Mutex<Option<Outside<R>>>>;

/// Has the workstation do `run` between two keys (nothing when it has closed).
fn tell<R: Federation>(wake: &Wake<R>, run: impl FnOnce(&mut App<R>) + Send + 'static) {
    let _ = told(wake, run);
}

/// [`tell`]; `false` when the workstation has closed.
fn told<R: Federation>(wake: &Wake<R>, run: impl FnOnce(&mut App<R>) + Send + 'static) -> bool {
    let outside = wake.lock().unwrap_or_else(PoisonError::into_inner).clone();
    outside.is_none_or(|outside| {
        outside.send(Job {
            asked: String::new(),
            run: Box::new(run),
        })
    })
}

/// What the holder answers a copy's request.
enum Reply<R: Federation> {
    Committed(Result<u64, String>),
    Entry(Option<Box<AuditEntry<R>>>),
}

/// A copy's end of the socket.
struct SocketLink<R: Federation> {
    stream: UnixStream,
    replies: Mutex<mpsc::Receiver<Reply<R>>>,
    arrived: Arc<Mutex<VecDeque<AuditEntry<R>>>>,
}

impl<R: Federation> SocketLink<R> {
    /// Sends a request and waits for its reply.
    fn ask(&self, request: &Down<R>) -> Result<Reply<R>, LinkError> {
        let bytes = serde_json::to_vec(request)
            .map_err(|e| LinkError::Refused(format!("the request cannot be sent: {e}")))?;
        serve::write_frame(&mut &self.stream, &bytes)
            .map_err(|e| LinkError::Lost(e.to_string()))?;
        let replies = self.replies.lock().unwrap_or_else(PoisonError::into_inner);
        let lost = match replies.recv_timeout(ANSWER_WITHIN) {
            Ok(reply) => return Ok(reply),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                format!("{} s without an answer", ANSWER_WITHIN.as_secs())
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => "the connection closed".into(),
        };
        // A late answer must not be taken for the next request's: the connection goes, and
        // the workstation takes the record again.
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        Err(LinkError::Lost(lost))
    }
}

impl<R: Federation> Link<R> for SocketLink<R> {
    fn commit(&self, changes: Vec<Shipped<R>>, at: u64) -> Result<u64, LinkError> {
        match self.ask(&Down::Commit(changes, at))? {
            Reply::Committed(Ok(last)) => Ok(last),
            Reply::Committed(Err(why)) => Err(LinkError::Refused(why)),
            Reply::Entry(_) => Err(LinkError::Lost("an answer out of turn".into())),
        }
    }

    fn arrived(&self) -> Vec<AuditEntry<R>> {
        self.arrived
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect()
    }

    fn entry(&self, seq: u64) -> Result<Option<AuditEntry<R>>, LinkError> {
        match self.ask(&Down::Entry(seq))? {
            Reply::Entry(entry) => Ok(entry.map(|e| *e)),
            Reply::Committed(_) => Err(LinkError::Lost("an answer out of turn".into())),
        }
    }
}

/// A copy of the record from `stream` (just connected by [`serve::open_copy`]), followed from
/// then on: what arrives is handed to the workstation through `wake`.
pub(super) fn copy_from<R: Federation>(
    mut stream: UnixStream,
    dir: PathBuf,
    rulebook: R,
    wake: Wake<R>,
) -> Result<Desk<R>, Failure> {
    let lost = |e: std::io::Error| {
        Failure::Other(format!(
            "the copy of the record could not be read from the process that holds it: {e}"
        ))
    };
    let copy = serve::read_frame(&mut stream, MAX_DUMP).map_err(lost)?;
    let (answers_in, replies) = mpsc::channel();
    let arrived = Arc::new(Mutex::new(VecDeque::new()));
    let reader = stream.try_clone()?;
    let link = SocketLink {
        stream,
        replies: Mutex::new(replies),
        arrived: arrived.clone(),
    };
    let desk = Desk::replica(rulebook.clone(), &copy, Box::new(link))?;
    drop(copy);
    std::thread::Builder::new()
        .name("copy".into())
        .spawn(move || {
            follow(reader, &arrived, &answers_in, &wake);
            // An edit waiting for its answer is told at once.
            drop(answers_in);
            take_over(&dir, rulebook, wake);
        })?;
    Ok(desk)
}

/// Reads what the holder sends until it goes: entries to follow, answers to this copy's edits.
fn follow<R: Federation>(
    mut stream: UnixStream,
    arrived: &Mutex<VecDeque<AuditEntry<R>>>,
    answers: &mpsc::Sender<Reply<R>>,
    wake: &Wake<R>,
) {
    while let Ok(bytes) = serve::read_frame(&mut stream, MAX_ENTRIES) {
        match serde_json::from_slice::<Up<R>>(&bytes) {
            Ok(Up::Entries(entries)) => {
                arrived
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend(entries);
                tell(wake, App::follow);
            }
            Ok(Up::Answer(answer)) => {
                let _ = answers.send(Reply::Committed(answer));
            }
            Ok(Up::Entry(entry)) => {
                let _ = answers.send(Reply::Entry(entry));
            }
            Err(_) => break,
        }
    }
}

/// The holder has gone: this workstation takes the database over (the first to take its lock),
/// or follows the one that did.
fn take_over<R: Federation>(dir: &Path, rulebook: R, wake: Wake<R>) {
    let open = told(&wake, |app: &mut App<R>| {
        app.holder_lost(
            "the database's holder stopped: taking it over, or following the new one…".into(),
        );
    });
    // A workstation closed meanwhile takes nothing over.
    if !open {
        return;
    }
    let deadline = Instant::now() + REJOIN_WITHIN;
    loop {
        match Desk::<R>::lock(dir) {
            Ok(lock) => {
                match Desk::open_locked(dir, rulebook.clone(), lock) {
                    Ok(desk) => {
                        tell(&wake, move |app: &mut App<R>| {
                            app.replace_desk(
                                desk,
                                "the database's holder stopped: this workstation holds it now (nothing lost)"
                                    .into(),
                            );
                        });
                        let outside = wake.lock().unwrap_or_else(PoisonError::into_inner).clone();
                        if let Some(outside) = outside {
                            match serve::serve(dir, outside) {
                                Ok(serving) => tell(&wake, move |app: &mut App<R>| {
                                    app.keep(Box::new(serving));
                                }),
                                Err(warning) => tell(&wake, move |app: &mut App<R>| {
                                    app.warn(warning);
                                }),
                            }
                        }
                    }
                    Err(e) => {
                        let said = format!("the database could not be taken over: {e}");
                        tell(&wake, move |app: &mut App<R>| app.holder_lost(said));
                    }
                }
                return;
            }
            Err(e) if !e.is_locked() => {
                let said = format!("the database could not be taken over: {e}");
                tell(&wake, move |app: &mut App<R>| app.holder_lost(said));
                return;
            }
            Err(_) => {}
        }
        // Another process holds it: followed once it serves it.
        if let Ok(Some(stream)) = serve::open_copy(dir) {
            match copy_from(stream, dir.to_path_buf(), rulebook.clone(), wake.clone()) {
                Ok(desk) => {
                    tell(&wake, move |app: &mut App<R>| {
                        app.replace_desk(
                            desk,
                            "the database's holder stopped: following the one that holds it now"
                                .into(),
                        );
                    });
                    return;
                }
                Err(failure) => {
                    let (said, _) = super::said(failure);
                    tell(&wake, move |app: &mut App<R>| app.holder_lost(said));
                }
            }
        }
        if Instant::now() > deadline {
            tell(&wake, |app: &mut App<R>| {
                app.holder_lost(
                    "no process holds the database: close this workstation and open it again"
                        .into(),
                );
            });
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `ratedesk bench --phase copies DIR`: several officers on the database in `dir`, held by
/// `ratedesk serve` in another process (the one serving it, or one started here when none
/// does). A result keyed at one workstation, timed until another workstation has followed it
/// and drawn its frame (p50 / p99); then `writers` workstations keying results at once, each on
/// boards of its own (edits a second, p50 / p99 of an edit).
pub(super) fn bench<R: Federation>(
    dir: &Path,
    rulebook: R,
    writers: usize,
) -> Result<serde_json::Value, Failure> {
    if serve::holder_rules(dir).is_some() {
        return officers(dir, &rulebook, writers);
    }
    let exe = std::env::current_exe()?;
    let holder = crate::bench::serve_in_child(&exe, dir)?;
    let figures = officers(dir, &rulebook, writers);
    crate::bench::stop_serving(holder)?;
    figures
}

/// A workstation on a copy of the record, with the loop's jobs to run by hand.
type Officer<R> = (App<R>, mpsc::Receiver<Job<R>>);

fn officer<R: Federation>(dir: &Path, rulebook: &R) -> Result<Officer<R>, Failure> {
    let stream = serve::open_copy(dir)?
        .ok_or_else(|| Failure::Other("the database is not served".into()))?;
    let (outside, jobs) = Outside::headless();
    let wake: Wake<R> = Arc::new(Mutex::new(Some(outside)));
    let desk = copy_from(stream, dir.to_path_buf(), rulebook.clone(), wake)?;
    Ok((App::new(desk), jobs))
}

/// Boards of the newest events with a played result, `per` of them for each of `officers`.
fn boards<R: Federation>(app: &App<R>, officers: usize, per: usize) -> Vec<Vec<(usize, u32, u32)>> {
    let book = app.desk.book();
    let all: Vec<(usize, u32, u32)> = (0..book.events.len())
        .rev()
        .filter(|&e| book.live[e])
        .flat_map(|e| {
            book.events[e]
                .games
                .iter()
                .filter(|g| g.black().is_some() && g.result.is_some_and(|r| r.played))
                .map(move |g| (e, g.round, g.board))
        })
        .take(officers * per)
        .collect();
    all.chunks(per).map(<[_]>::to_vec).collect()
}

/// The next of the three results after the one a board holds.
fn next_result<R: Federation>(
    app: &App<R>,
    (e, round, board): (usize, u32, u32),
) -> crate::app::Edit<R> {
    use crate::model::GameResult;
    let now = app.desk.book().events[e]
        .games
        .iter()
        .find(|g| (g.round, g.board) == (round, board))
        .and_then(|g| g.result);
    let result = match now {
        Some(GameResult::WHITE_WINS) => GameResult::BLACK_WINS,
        Some(GameResult::BLACK_WINS) => GameResult::DRAW,
        _ => GameResult::WHITE_WINS,
    };
    crate::app::Edit::SetResult {
        event: e,
        round,
        board,
        result: Some(result),
    }
}

fn run_jobs<R: Federation>((app, jobs): &mut Officer<R>) {
    while let Ok(job) = jobs.try_recv() {
        (job.run)(app);
    }
}

fn officers<R: Federation>(
    dir: &Path,
    rulebook: &R,
    writers: usize,
) -> Result<serde_json::Value, Failure> {
    let fail = |e: anyhow::Error| Failure::Other(e.to_string());
    let started = Instant::now();
    let mut keying = officer(dir, rulebook)?;
    let copy_open = started.elapsed();
    let mut watching = officer(dir, rulebook)?;
    let mut screen = crate::bench::keyed::Screen::new().map_err(fail)?;
    let mut shown = Vec::new();
    for &board in boards(&keying.0, 1, 40).concat().iter() {
        let edit = next_result(&keying.0, board);
        let t = Instant::now();
        keying.0.desk.apply(edit)?;
        // The other workstation's loop wakes for it, follows it and draws.
        let job = watching
            .1
            .recv_timeout(Duration::from_secs(10))
            .map_err(|e| Failure::Other(format!("the other workstation was not told: {e}")))?;
        (job.run)(&mut watching.0);
        run_jobs(&mut watching);
        screen.draw(&watching.0).map_err(fail)?;
        shown.push(t.elapsed());
        run_jobs(&mut keying);
    }
    drop(watching);
    let reads = edits_while_reading(dir, &mut keying)?;
    drop(keying);
    // Several at once, each on boards of its own.
    let mut all: Vec<Officer<R>> = (0..writers)
        .map(|_| officer(dir, rulebook))
        .collect::<Result<_, _>>()?;
    let mine = boards(&all[0].0, writers, 25);
    let t = Instant::now();
    let threads: Vec<_> = all
        .drain(..)
        .zip(mine)
        .map(|(mut officer, boards)| {
            std::thread::spawn(move || -> Result<Vec<Duration>, String> {
                let mut times = Vec::new();
                for board in boards {
                    run_jobs(&mut officer);
                    let edit = next_result(&officer.0, board);
                    let t = Instant::now();
                    officer.0.desk.apply(edit).map_err(|e| e.to_string())?;
                    times.push(t.elapsed());
                }
                Ok(times)
            })
        })
        .collect();
    let mut each = Vec::new();
    for thread in threads {
        let times = thread
            .join()
            .map_err(|_| Failure::Other("a keying workstation panicked".into()))?
            .map_err(Failure::Other)?;
        each.extend(times);
    }
    let wall = t.elapsed();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mut figures = serde_json::json!({
        "copy_open_ms": (ms(copy_open) * 10.0).round() / 10.0,
        "other_frame_p50_ms": crate::bench::percentile(&shown, 50.0),
        "other_frame_p99_ms": crate::bench::percentile(&shown, 99.0),
        "writers": writers,
        "writers_edits_per_s": (each.len() as f64 / wall.as_secs_f64()).round(),
        "writers_edit_p50_ms": crate::bench::percentile(&each, 50.0),
        "writers_edit_p99_ms": crate::bench::percentile(&each, 99.0),
    });
    if let (serde_json::Value::Object(f), serde_json::Value::Object(r)) = (&mut figures, reads) {
        f.extend(r);
    }
    Ok(figures)
}

/// A workstation's edits (from the key to its answer, followed here) with nothing else going
/// on, then while another process reads the whole record without a pause — `export ratings`,
/// `check`, `backup` in turn — p50 / p99 of each, with how long those reads took.
fn edits_while_reading<R: Federation>(
    dir: &Path,
    keying: &mut Officer<R>,
) -> Result<serde_json::Value, Failure> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    const EDITS: usize = 40;
    // Two rounds of the reads, at least, are keyed through.
    const READS: usize = 6;
    let exe = std::env::current_exe()?;
    let boards = boards(&keying.0, 1, 2 * EDITS + 2000).concat();
    let read = AtomicUsize::new(0);
    let mut key = |boards: &[(usize, u32, u32)], until: usize| -> Result<Vec<Duration>, Failure> {
        let mut times = Vec::new();
        for &board in boards {
            if times.len() >= EDITS && read.load(Ordering::SeqCst) >= until {
                break;
            }
            run_jobs(keying);
            let edit = next_result(&keying.0, board);
            let t = Instant::now();
            keying.0.desk.apply(edit)?;
            times.push(t.elapsed());
            // A pause between keys, as an officer's.
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(times)
    };
    let quiet = key(&boards[..EDITS], 0)?;
    let reading = AtomicBool::new(true);
    let backup = tempfile::NamedTempFile::new()?;
    let (during, reads) = std::thread::scope(|s| {
        let reader = s.spawn(|| -> Result<Vec<(&str, Duration)>, String> {
            let mut reads = Vec::new();
            while reading.load(Ordering::SeqCst) {
                for (name, args) in [
                    ("export", &["export", "ratings"][..]),
                    ("check", &["check"]),
                    ("backup", &["backup", &backup.path().to_string_lossy()]),
                ] {
                    let t = Instant::now();
                    let out = std::process::Command::new(&exe)
                        .arg("--db")
                        .arg(dir)
                        .args(args)
                        .stdout(std::process::Stdio::null())
                        .output()
                        .map_err(|e| e.to_string())?;
                    if !out.status.success() {
                        return Err(format!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
                    }
                    reads.push((name, t.elapsed()));
                    read.fetch_add(1, Ordering::SeqCst);
                }
            }
            Ok(reads)
        });
        // The reads under way before the first key.
        std::thread::sleep(Duration::from_millis(300));
        let during = key(&boards[EDITS..], READS);
        reading.store(false, Ordering::SeqCst);
        let reads = reader
            .join()
            .map_err(|_| Failure::Other("the reading process panicked".into()))
            .and_then(|r| r.map_err(Failure::Other));
        (during, reads)
    });
    let (during, reads) = (during?, reads?);
    let longest = |name: &str| {
        let times: Vec<Duration> = reads
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .collect();
        crate::bench::percentile(&times, 100.0)
    };
    Ok(serde_json::json!({
        "edit_quiet_p50_ms": crate::bench::percentile(&quiet, 50.0),
        "edit_quiet_p99_ms": crate::bench::percentile(&quiet, 99.0),
        "edit_while_reading_p50_ms": crate::bench::percentile(&during, 50.0),
        "edit_while_reading_p99_ms": crate::bench::percentile(&during, 99.0),
        "reads_while_editing": reads.len(),
        "read_export_max_ms": longest("export"),
        "read_check_max_ms": longest("check"),
        "read_backup_max_ms": longest("backup"),
    }))
}

/// [`bench`] under the database's own rulebook.
pub(super) struct Bench<'a> {
    pub dir: &'a Path,
}

impl crate::app::WithFederation for Bench<'_> {
    type Output = Result<serde_json::Value, Failure>;

    fn with<F: Federation>(self, rulebook: F) -> Self::Output {
        bench(self.dir, rulebook, 8)
    }
}
