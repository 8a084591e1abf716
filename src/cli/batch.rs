//! The command line's long-running and whole-database commands: `results` (a batch of results
//! on stdin, stopped cleanly between two lines by a signal) and `restore`.

use std::io::{Read, Write};
use std::path::Path;

use super::{Failure, other, output};
use crate::app::{Desk, DeskError, Federation, queries};

/// How long a command may take to finish cleanly after a terminating signal.
const GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// SIGTERM, SIGHUP (an SSH connection dropping) and SIGINT: the first lets the command finish
/// its edit, flush and exit cleanly. After SIGTERM or SIGINT — someone asking it to stop — that
/// is within [`GRACE`]: a command still running then (a disk that stopped answering) ends as a
/// kill would, which loses nothing acknowledged; after a dropped connection a long import is
/// let finish. A second signal ends the process at once.
pub(super) fn defer_signals() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, Failure> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use std::sync::atomic::Ordering;
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [SIGTERM, SIGHUP, SIGINT] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, flag.clone()).map_err(other)?;
        signal_hook::flag::register(signal, flag.clone()).map_err(other)?;
    }
    for signal in [SIGTERM, SIGINT] {
        signal_hook::flag::register(signal, asked.clone()).map_err(other)?;
    }
    let watched = asked;
    std::thread::Builder::new()
        .name("grace".into())
        .spawn(move || {
            while !watched.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            std::thread::sleep(GRACE);
            eprintln!(
                "ratedesk: not done {} s after the signal: stopped as a kill would (every acknowledged edit is on disk; the database is checked when it opens)",
                GRACE.as_secs()
            );
            std::process::exit(1);
        })
        .map_err(other)?;
    Ok(flag)
}

/// What the batch loop waits for: a line, the end of input, or a signal.
enum Input {
    /// A line's bytes (without its end), or `None` for a line over [`MAX_LINE`] bytes.
    Line(Option<Vec<u8>>),
    End,
    Signal,
}

/// The longest line `results` reads: a result line is a few dozen bytes.
const MAX_LINE: u64 = 4096;

/// Lines of stdin and the first terminating signal on one channel, so the loop ends cleanly
/// between two edits. Lines are read as bytes (text that is not UTF-8 is refused line by line,
/// not taken for the end of input) and never longer than [`MAX_LINE`].
fn input_channel(
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::sync::mpsc::Receiver<Input> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = tx.clone();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut line = Vec::new();
            match (&mut stdin).take(MAX_LINE + 1).read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let ended = line.last() == Some(&b'\n');
            if ended {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
            }
            let too_long = !ended && line.len() as u64 > MAX_LINE;
            if too_long {
                // The rest of the line is skipped.
                let mut rest = Vec::new();
                while !rest.ends_with(b"\n") {
                    rest.clear();
                    match (&mut stdin).take(MAX_LINE).read_until(b'\n', &mut rest) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            }
            if lines
                .send(Input::Line((!too_long).then_some(line)))
                .is_err()
            {
                break;
            }
        }
        let _ = lines.send(Input::End);
    });
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        let _ = tx.send(Input::Signal);
    } else if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT]) {
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                let _ = tx.send(Input::Signal);
            }
        });
    }
    rx
}

/// `ratedesk results`: one result a line, each answered once stored and flushed (`ok SEQ …`)
/// or refused (`line N: why`). Stops between two lines on a signal, and at once when the
/// database cannot be written; exits non-zero when any line was refused.
pub(super) fn results_batch<R: Federation>(
    desk: &mut Desk<R>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    use std::sync::atomic::Ordering;
    let input = input_channel(stop.clone());
    let (mut n, mut refused) = (0usize, 0usize);
    loop {
        // Lines already read wait in the channel: a signal is seen before the next of them.
        if stop.load(Ordering::SeqCst) {
            return Err(Failure::Other(format!(
                "stopped by a signal after line {n}; no later line was applied"
            )));
        }
        let bytes = match input.recv() {
            Ok(Input::Line(bytes)) => bytes,
            Ok(Input::Signal) => continue,
            Ok(Input::End) | Err(_) => break,
        };
        n += 1;
        let outcome = match bytes.map(String::from_utf8) {
            None => Err(Failure::Input(format!(
                "longer than {MAX_LINE} bytes; refused"
            ))),
            Some(Err(_)) => Err(Failure::Input("not UTF-8 text; refused".into())),
            Some(Ok(line)) => {
                let fields: Vec<&str> = line.split_whitespace().collect();
                if fields.is_empty() {
                    continue;
                }
                match fields.as_slice() {
                    [event, round, board, result] => match (round.parse(), board.parse()) {
                        (Ok(round), Ok(board)) => {
                            queries::result_edit(desk, event, round, board, result)
                                .map_err(Failure::from)
                                .and_then(|edit| desk.apply(edit).map_err(Failure::from))
                                .map(|effect| (effect.stored, line.clone()))
                        }
                        _ => Err(Failure::Input("round and board are numbers".into())),
                    },
                    _ => Err(Failure::Input("expected EVENT ROUND BOARD RESULT".into())),
                }
            }
        };
        match outcome {
            Ok((true, line)) => {
                let seq = desk.audit().last().map_or(0, |a| a.seq);
                writeln!(out, "ok {seq} {}", output::escape_line(&line)).map_err(other)?;
            }
            Ok((false, line)) => {
                writeln!(out, "unchanged {}", output::escape_line(&line)).map_err(other)?;
            }
            Err(Failure::Input(m)) => {
                refused += 1;
                writeln!(out, "line {n}: {}", output::escape_line(&m)).map_err(other)?;
            }
            Err(e @ (Failure::Closed | Failure::Exit(_))) => return Err(e),
            Err(Failure::Other(m)) => {
                writeln!(out, "line {n}: {}", output::escape_line(&m)).map_err(other)?;
                out.flush().map_err(other)?;
                return Err(Failure::Other(format!(
                    "stopped at line {n}, no later line was applied: {m}"
                )));
            }
        }
        out.flush().map_err(other)?;
    }
    if refused > 0 {
        return Err(Failure::Input(format!("{refused} of {n} line(s) refused")));
    }
    Ok(())
}

/// `ratedesk restore FILE`: atomic, under the lock from start to end (see `app::restore`);
/// `lines` are the file's, opened to know its rulebook.
pub(super) fn restore<R: Federation>(
    dir: &Path,
    rulebook: R,
    (file, lines): (&Path, impl std::io::BufRead),
    force: bool,
) -> Result<(), Failure> {
    // Each step said on a terminal as it starts, with the time it has taken so far.
    let steps = indicatif::ProgressBar::with_draw_target(
        None,
        indicatif::ProgressDrawTarget::stderr_with_hz(4),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        steps.set_style(style);
    }
    steps.enable_steady_tick(std::time::Duration::from_millis(250));
    let mut step = |what: &'static str| steps.set_message(what);
    let restoring = crate::app::restore::restore(dir, rulebook, (file, lines), force, &mut step);
    let (desk, restored) = restoring.map_err(|e| {
        steps.finish_and_clear();
        match e {
            DeskError::Backup(m) => Failure::Input(m),
            other => Failure::from(other),
        }
    })?;
    // What was done is said first; then the restored record's automatic backup is taken (a
    // failure to finish, a full disk, comes after what was done, and before anything else).
    let said = steps.suspend(|| -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        if let Some(aside) = &restored.set_aside {
            let _ = writeln!(
                std::io::stderr(),
                "ratedesk: the damaged database was moved to {}",
                aside.display()
            );
        }
        writeln!(out, "restored {} into {}", file.display(), dir.display())?;
        if let Some(replaced) = &restored.replaced {
            writeln!(out, "  replaced {replaced}")?;
        }
        out.flush()
    });
    step("writing its automatic backup");
    let backed_up = desk.back_up_now().map(|_| ());
    let closed = desk.close();
    steps.finish_and_clear();
    backed_up.and(closed).map_err(|e| DeskError::Restored {
        file: file.display().to_string(),
        cause: e.cause(),
    })?;
    said?;
    Ok(())
}
