//! The command line: argument parsing, the choice of the database's rulebook (`rulebook`, by
//! the one registry [`app::with_federation`]), and for each command one small function (in
//! `commands`) that calls the application and writes what it answers. No use-case lives here.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::app::{self, database};

mod batch;
mod commands;
mod copy;
pub mod output;
mod reader;
mod rulebook;
mod serve;

use rulebook::{OnDatabase, Workstation, with_database, workstation};

/// Exit status for input that was refused.
const BAD_INPUT: u8 = 2;

/// A rating officer's workstation.
#[derive(Parser, Debug)]
#[command(name = "ratedesk", version, about)]
struct Cli {
    /// The database folder (default: $RATEDESK_DB, else the XDG data folder's ratedesk/).
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Open the workstation on a demo federation (built on first use in the data folder).
    #[arg(long)]
    demo: bool,
    /// The demo federation's rulebook: ssl (Finland, the default), isl (Iceland), tsf (Turkey).
    #[arg(long, requires = "demo", value_parser = crate::federations::registry::CODES, value_name = "RULES")]
    rules: Option<String>,
    /// Colours: dark (default), light, high-contrast or mono (also chosen by NO_COLOR).
    #[arg(long, value_name = "NAME")]
    theme: Option<String>,
    /// A keymap file layered over the defaults (default: ~/.config/ratedesk/keymap.toml).
    #[arg(long, value_name = "FILE")]
    keymap: Option<PathBuf>,
    /// A shipped keymap preset layered over the defaults (vim).
    #[arg(long, value_name = "NAME")]
    keymap_preset: Option<String>,
    /// Without a command: open the workstation.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Command {
    /// Create a federation's database with its rulebook, chosen once: ssl (Finland), isl
    /// (Iceland) or tsf (Turkey). Every later command reads it from the database.
    Init {
        #[arg(long, default_value = app::DEFAULT_RULEBOOK, value_parser = crate::federations::registry::CODES)]
        rules: String,
    },
    /// Rate a JSON document of players and events read on stdin; write the results to stdout.
    ///
    /// Pure calculator: no database is read or written. Invalid input is reported on stderr
    /// naming the item, with exit status 2 and nothing on stdout.
    Rate {
        /// Read the document from this file instead of stdin.
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// Indent the output.
        #[arg(long)]
        pretty: bool,
    },
    /// Read players and events into the database (a `rate` document into a folder without one
    /// creates it with the document's rulebook; any other import, a Finnish one).
    Import {
        #[command(subcommand)]
        what: ImportKind,
    },
    /// Write what the database holds.
    Export {
        #[command(subcommand)]
        what: ExportKind,
    },
    /// Write a portable text dump of everything, the audit log included (compressed by zstd
    /// when FILE ends in `.zst`).
    Backup { file: PathBuf },
    /// Load a dump written by `backup`, compressed or not (into an empty database, or with
    /// --force replacing one of the same rulebook).
    Restore {
        file: PathBuf,
        #[arg(long)]
        force: bool,
    },
    /// Re-rate everything from scratch and compare with what is stored.
    Check {
        /// Also check that the history still leads to the audit head a published list (CSV,
        /// text or HTML) carries at its foot: a rewrite since it was published is caught.
        #[arg(long, value_name = "LIST")]
        against: Option<PathBuf>,
    },
    /// Show what setting a result would change, without changing anything.
    Preview {
        /// The event's id.
        event: String,
        round: u32,
        board: u32,
        /// 1-0, 0-1, 1/2-1/2, 0-0, 1/2-0, 0-1/2, +-, -+ or --.
        result: String,
    },
    /// Set a result: shows its effect, stored and flushed. A correction that would take a
    /// title away is refused unless --keep-titles (titles are permanent: the lost ones are
    /// recorded as held, in the same audited edit) or --drop-titles.
    Result {
        event: String,
        round: u32,
        board: u32,
        result: String,
        #[arg(long, conflicts_with = "drop_titles")]
        keep_titles: bool,
        #[arg(long)]
        drop_titles: bool,
    },
    /// Correct the day an event's results (or one round's, with --round) were received, where
    /// the rulebook rates each game by it (ISL: results keyed or imported are stamped with the
    /// day they arrived). Shows its effect, stored and flushed.
    Received {
        /// The event's id.
        event: String,
        /// The day (YYYY-MM-DD), or `none`: no day of their own, the event's received date
        /// decides.
        date: String,
        /// Only this round's results.
        #[arg(long)]
        round: Option<u32>,
    },
    /// Re-enter a player on the list from a date, on his FIDE rating or a national one (ISL: an
    /// Icelander back from a long stay abroad enters as a foreign player does): from the start
    /// of the period holding the date his rating is that one, his games counted from 0. Shows
    /// its effect, stored and flushed; --remove takes a re-entry back.
    #[command(group = clap::ArgGroup::new("on").required(true).args(["fide", "national", "remove"]))]
    Reenter {
        /// The player's id, FIDE id or name.
        player: String,
        /// The day he re-enters (YYYY-MM-DD).
        date: String,
        /// On his FIDE standard rating: the one given, or without a number the one of the
        /// newest FIDE list dated on or before the day that the database holds for him.
        #[arg(long, num_args = 0..=1, value_name = "RATING")]
        fide: Option<Option<i32>>,
        /// On this national rating of the country he comes from.
        #[arg(long, value_name = "RATING")]
        national: Option<i32>,
        /// Take back his re-entry of that day.
        #[arg(long)]
        remove: bool,
    },
    /// Confirm a title that needs the rating committee's confirmation (SSL 6.3: M).
    Confirm {
        /// The player's id, FIDE id or name.
        player: String,
        /// The title (M).
        title: String,
        /// The date of the committee's decision (default: today).
        #[arg(long, value_name = "DATE")]
        date: Option<String>,
    },
    /// Set many results, one `EVENT ROUND BOARD RESULT` a line on stdin; each line is answered
    /// once it is stored and flushed.
    Results,
    /// Undo your own latest edit still in force (itself an audited edit); another officer's
    /// only when named with --of.
    Undo {
        /// Undo this officer's latest edit instead (his OS user's name).
        #[arg(long, value_name = "USER")]
        of: Option<String>,
    },
    /// Apply again your own latest undone edit; another officer's only when named with --of.
    Redo {
        /// Redo this officer's latest undone edit instead.
        #[arg(long, value_name = "USER")]
        of: Option<String>,
    },
    /// Build a generated federation into a new database (deterministic for a seed).
    Demo {
        #[arg(long, default_value_t = 3000)]
        players: usize,
        #[arg(long, default_value_t = 10)]
        years: u32,
        /// The database folder to create.
        #[arg(long, value_name = "DB")]
        out: PathBuf,
        #[arg(long, default_value_t = 2025)]
        seed: u64,
        /// The federation's rulebook: ssl, isl or tsf.
        #[arg(long, default_value = app::DEFAULT_RULEBOOK, value_parser = crate::federations::registry::CODES)]
        rules: String,
    },
    /// Measure every row of the performance table on generated federations (national scale,
    /// then FIDE scale) and print the figures.
    Bench {
        /// One JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// National scale only.
        #[arg(long)]
        quick: bool,
        /// The rulebook whose demo federation is measured: ssl, isl or tsf.
        #[arg(long, default_value = app::DEFAULT_RULEBOOK, value_parser = crate::bench::RULES)]
        rules: String,
        /// The generated federation's registered players (default: national scale, 30 000
        /// players and about a million games over ten years).
        #[arg(long)]
        players: Option<usize>,
        /// The years of games generated (default 10).
        #[arg(long)]
        years: Option<u32>,
        /// Rated games a year (default: the rulebook's federation's shape for the players:
        /// Turkey about 1.5 a registered player, the others about 3.3).
        #[arg(long)]
        games_a_year: Option<usize>,
        /// One phase in a fresh process (used by the run itself).
        #[arg(long, hide = true, value_name = "PHASE")]
        phase: Option<String>,
        /// The FIDE list phase's size.
        #[arg(long, hide = true, default_value_t = crate::bench::FIDE_LIST_LINES)]
        lines: usize,
        #[arg(hide = true)]
        dir: Option<PathBuf>,
    },
    /// Serve the database in the foreground (for a service manager such as systemd): every
    /// other `ratedesk` command on it runs here, as if it held the database, until SIGTERM or
    /// ctrl-c. The workstation serves the database it has open the same way.
    Serve,
    /// Show the audit log.
    Log {
        /// Only the newest N entries.
        #[arg(long, value_name = "N")]
        last: Option<usize>,
        /// Every line of each entry (an import's every record, a cascade's every mover).
        #[arg(long)]
        full: bool,
        /// Only the head of the audit chain: the newest entry's number and hash, as published
        /// lists carry it.
        #[arg(long, conflicts_with_all = ["last", "full"])]
        head: bool,
    },
    /// Who may edit the database beside its owner: OS users, or every member of an OS group.
    /// Anyone else the database folder lets in may look up, not edit. Naming a group also
    /// opens the folder (0710) and the socket of the process that holds the database (0660)
    /// to that group, and to no one else.
    Officers {
        #[command(subcommand)]
        what: OfficersCommand,
    },
}

#[derive(Subcommand, Clone, Debug, serde::Serialize, serde::Deserialize)]
enum OfficersCommand {
    /// The database's owner and the officers named.
    List,
    /// Name an officer (audited): he may edit from now on.
    Add {
        /// An OS user's name (a group's, with --group).
        name: String,
        /// Every member of this OS group.
        #[arg(long)]
        group: bool,
    },
    /// Take an officer back (audited): he may look up, not edit.
    Remove {
        /// An OS user's name (a group's, with --group).
        name: String,
        #[arg(long)]
        group: bool,
    },
}

#[derive(Subcommand, Clone, Debug, serde::Serialize, serde::Deserialize)]
enum ImportKind {
    /// Documents in the `rate` input format, each its own audited import (every file is read
    /// and checked before any is imported).
    Json {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Say what would be imported, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Arbiters' tournament reports (TRF16, TRF26), an event each: shows what would be
    /// created, matched or is ambiguous, and imports with --yes. Every file is checked before
    /// any is imported.
    Trf {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Say what would be imported, change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Import it.
        #[arg(long)]
        yes: bool,
        /// The time control as minutes+seconds (e.g. 90+30), over the file's.
        #[arg(long, value_name = "BASE+INC")]
        time_control: Option<String>,
        /// The event's id (default: the file's name; one file only).
        #[arg(long)]
        id: Option<String>,
        /// The day the results were received (default: today, the day of the import); Iceland
        /// rates each game by it.
        #[arg(long, value_name = "DATE")]
        received: Option<String>,
    },
    /// FIDE rating lists (combined, legacy or per-list TXT, or XML; zipped or not): our
    /// players found by FIDE id get the list's ratings, everyone else is kept as reference.
    FideList {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The list's month (2026-10), when neither the file nor its name says it.
        #[arg(long, value_name = "MONTH")]
        date: Option<String>,
        /// Only this list (standard, rapid or blitz); for a per-list file whose name does not
        /// say which it is.
        #[arg(long, value_name = "LIST")]
        list: Option<String>,
        /// Say what would be imported, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// The federation's national list as CSV, as `export list` writes it (Finland: the selo
    /// service's `Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;…`): players not yet in the
    /// database, with their ratings as starting states, and the clubs of those already there.
    /// Imports with --yes.
    #[command(alias = "selo-csv")]
    NationalCsv {
        file: PathBuf,
        /// Import it.
        #[arg(long)]
        yes: bool,
    },
}

/// How a list or report is written.
#[derive(
    clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize,
)]
enum Format {
    Csv,
    Text,
    Html,
}

impl Format {
    /// The page kind, for the printable formats.
    fn page(self) -> Option<app::publish::PageKind> {
        match self {
            Format::Csv => None,
            Format::Text => Some(app::publish::PageKind::Text),
            Format::Html => Some(app::publish::PageKind::Html),
        }
    }
}

#[derive(Subcommand, Clone, Debug, serde::Serialize, serde::Deserialize)]
enum ExportKind {
    /// Everything needed to re-rate, in the `rate` input format.
    Events {
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
    /// An event as a TRF16 file (for FIDE or another program), or TRF26 with national
    /// ratings.
    Trf {
        /// The event's id.
        event: String,
        /// TRF26, with a national-rating record (the federation's code, the player's rating on
        /// the event's list going into it, his national id) for every home player.
        #[arg(long)]
        trf26: bool,
    },
    /// The national rating list in force on a date: CSV with every list (Finland's as the
    /// selo service writes it), or a printable text or HTML page of one list with ranks and
    /// changes since the previous list. Iceland's lists are dated 1 March, 1 June, 1
    /// September and 1 December, Turkey's the first of each month.
    List {
        #[arg(long, value_enum, default_value = "csv")]
        format: Format,
        /// The list (text and HTML): selo or pelo; standard; standard, rapid or blitz
        /// (default: the first).
        #[arg(long)]
        list: Option<String>,
        /// Any day: the list in force on it (default: today).
        #[arg(long, value_name = "DATE")]
        date: Option<String>,
        /// The previous list's date, for the changes (default: the list before).
        #[arg(long, value_name = "DATE")]
        previous: Option<String>,
    },
    /// An event's rating report: old, new, ±, games, score, expected, performance, factors.
    Report {
        event: String,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// A player's rated games on every list, as CSV.
    History {
        /// The player's id, FIDE id or name.
        player: String,
    },
    /// The stored results, in the `rate` output format.
    Ratings {
        /// Add selection numbers as of this date.
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
}

/// Runs the command line and returns the process exit status.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(BAD_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Some(Command::Rate { input, pretty }) => return rate(input.as_deref(), pretty),
        Some(Command::Bench {
            json,
            quick,
            rules,
            players,
            years,
            games_a_year,
            phase,
            lines,
            dir,
        }) => {
            let asked = crate::bench::Asked {
                players,
                years,
                games_a_year,
            };
            let phase = phase.as_deref();
            run_bench(json, quick, &rules, asked, phase, lines, dir.as_deref())
        }
        Some(command) => with_database(cli.db, command),
        None => workstation(Workstation {
            db: cli.db,
            demo: cli.demo,
            rules: cli.rules,
            theme: cli.theme,
            keymap: cli.keymap,
            preset: cli.keymap_preset,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            let (message, code) = said(failure);
            if !message.is_empty() {
                eprintln!("ratedesk: {}", output::escape_text(&message));
            }
            ExitCode::from(code)
        }
    }
}

/// Why a command failed: bad input (exit 2), the reader of the output gone, anything else
/// (exit 1), or the exit status of a command the open workstation ran, its words already
/// written.
pub(super) enum Failure {
    Input(String),
    Closed,
    Other(String),
    Exit(u8),
}

/// What a failure says and the exit status it gives.
pub(super) fn said(failure: Failure) -> (String, u8) {
    match failure {
        Failure::Input(message) => (message, BAD_INPUT),
        // The reader of our output went away (`ratedesk export list | head`): nothing to say.
        Failure::Closed => (String::new(), 1),
        Failure::Other(message) => (message, 1),
        Failure::Exit(code) => (String::new(), code),
    }
}

impl Failure {
    /// An error that is the input's fault or not, as its type says.
    fn of(input: bool, e: impl std::fmt::Display) -> Self {
        if input {
            Failure::Input(e.to_string())
        } else {
            Failure::Other(e.to_string())
        }
    }
}

impl From<app::DeskError> for Failure {
    fn from(e: app::DeskError) -> Self {
        Failure::of(e.is_input(), e)
    }
}

impl From<app::import::ImportError> for Failure {
    fn from(e: app::import::ImportError) -> Self {
        Failure::of(e.is_input(), e)
    }
}

impl From<app::queries::QueryError> for Failure {
    fn from(e: app::queries::QueryError) -> Self {
        Failure::of(e.is_input(), e)
    }
}

impl From<database::CreateError> for Failure {
    fn from(e: database::CreateError) -> Self {
        Failure::of(e.is_input(), e)
    }
}

impl From<crate::json::InputError> for Failure {
    fn from(e: crate::json::InputError) -> Self {
        Failure::Input(e.to_string())
    }
}

impl From<crate::federations::registry::UnknownRulebook> for Failure {
    fn from(e: crate::federations::registry::UnknownRulebook) -> Self {
        Failure::Input(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::Closed
        } else {
            Failure::Other(e.to_string())
        }
    }
}

pub(super) fn other(e: impl std::fmt::Display) -> Failure {
    Failure::Other(e.to_string())
}

/// The database folder: `--db`, `$RATEDESK_DB`, or `$XDG_DATA_HOME/ratedesk`
/// (`~/.local/share/ratedesk`).
pub fn database_dir(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os("RATEDESK_DB").map(PathBuf::from))
        .unwrap_or_else(|| {
            let data = std::env::var_os("XDG_DATA_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    let home = std::env::var_os("HOME")
                        .map(PathBuf::from)
                        .unwrap_or_else(|| PathBuf::from("."));
                    home.join(".local/share")
                });
            data.join("ratedesk")
        })
}

fn rate(input: Option<&Path>, pretty: bool) -> ExitCode {
    let text = match input {
        Some(path) => app::import::json::read_document(path).map_err(|e| e.to_string()),
        None => app::import::json::read_document_from(std::io::stdin())
            .map_err(|e| format!("stdin: {e}")),
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ratedesk rate: {e}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    match app::import::json::rate(&text) {
        Ok(doc) => {
            let out = if pretty {
                serde_json::to_string_pretty(&doc)
            } else {
                serde_json::to_string(&doc)
            };
            let mut stdout = std::io::stdout().lock();
            match out.map(|s| writeln!(stdout, "{s}")) {
                Ok(Ok(())) => ExitCode::SUCCESS,
                Ok(Err(e)) => {
                    eprintln!("ratedesk rate: writing the output: {e}");
                    ExitCode::FAILURE
                }
                Err(e) => {
                    eprintln!("ratedesk rate: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            eprintln!("ratedesk rate: {e}");
            ExitCode::from(BAD_INPUT)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_bench(
    json: bool,
    quick: bool,
    rules: &str,
    asked: crate::bench::Asked,
    phase: Option<&str>,
    lines: usize,
    dir: Option<&Path>,
) -> Result<(), Failure> {
    let value = match (phase, dir) {
        (Some("fide-list"), _) => crate::bench::fide_list_phase(lines).map_err(other)?,
        (Some("national"), Some(dir)) => crate::bench::national_phase(rules, dir).map_err(other)?,
        (Some("fide"), _) => crate::bench::fide_phase(rules).map_err(other)?,
        (Some("national-csv"), _) => crate::bench::national_csv_phase().map_err(other)?,
        (Some("copies"), Some(dir)) => {
            let code = database::rulebook_of(dir)
                .map_err(other)?
                .ok_or_else(|| Failure::from(database::missing(dir)))?;
            app::with_federation(&code, copy::Bench { dir })??
        }
        (Some(p), _) => return Err(Failure::Input(format!("unknown bench phase '{p}'"))),
        (None, _) => crate::bench::run(rules, quick, asked).map_err(other)?,
    };
    // A phase that failed is in the figures (`PHASE_failed`) beside the others measured, and
    // the command fails once they are written.
    let failed: Vec<String> = value
        .as_object()
        .into_iter()
        .flat_map(|map| map.keys())
        .filter_map(|k| k.strip_suffix("_failed").map(str::to_string))
        .collect();
    let mut out = std::io::stdout().lock();
    if json || phase.is_some() {
        writeln!(out, "{value}")?;
    } else if let serde_json::Value::Object(map) = value {
        for (k, v) in map {
            writeln!(out, "{k:<24} {v}")?;
        }
    }
    if !failed.is_empty() {
        return Err(Failure::Other(format!(
            "the figures above are without the phases that failed: {}",
            failed.join(", ")
        )));
    }
    Ok(())
}
