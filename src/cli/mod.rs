//! The command line: argument parsing and the subcommands' input and output.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::app::{Desk, Edit, Effect};
use crate::json::{self, InputError};
use crate::model::GameResult;
use crate::rules::ssl::Ssl;
use crate::store::{Store, StoreError};

mod batch;
mod files;
pub mod output;

/// Exit status for input that was refused.
const BAD_INPUT: u8 = 2;

/// A rating officer's workstation.
#[derive(Parser, Debug)]
#[command(name = "ratedesk", version, about)]
struct Cli {
    /// The database folder (default: $RATEDESK_DB, else the XDG data folder's ratedesk/).
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Open the workstation on the demo federation (built on first use in the data folder).
    #[arg(long)]
    demo: bool,
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

#[derive(Subcommand, Debug)]
enum Command {
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
    /// Read players and events into the database.
    Import {
        #[command(subcommand)]
        what: ImportKind,
    },
    /// Write what the database holds.
    Export {
        #[command(subcommand)]
        what: ExportKind,
    },
    /// Write a portable text dump of everything, the audit log included.
    Backup { file: PathBuf },
    /// Load a dump written by `backup` (into an empty database, or with --force replacing it).
    Restore {
        file: PathBuf,
        #[arg(long)]
        force: bool,
    },
    /// Re-rate everything from scratch and compare with what is stored.
    Check,
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
    /// recorded as held) or --drop-titles.
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
    /// Confirm a title that needs the rating committee's confirmation (SSL 6.3: M).
    Confirm {
        /// The player's id.
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
    /// Undo the latest edit (itself an audited edit).
    Undo,
    /// Apply again the latest undone edit.
    Redo,
    /// Build a generated federation into a database (deterministic for a seed).
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
        /// One phase in a fresh process (used by the run itself).
        #[arg(long, hide = true, value_name = "PHASE")]
        phase: Option<String>,
        /// The FIDE list phase's size.
        #[arg(long, hide = true, default_value_t = crate::bench::FIDE_LIST_LINES)]
        lines: usize,
        #[arg(hide = true)]
        dir: Option<PathBuf>,
    },
    /// Show the audit log.
    Log {
        /// Only the newest N entries.
        #[arg(long, value_name = "N")]
        last: Option<usize>,
    },
}

#[derive(Subcommand, Debug)]
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
    /// The selo service's national list (`Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;…`):
    /// players not yet in the database, with their ratings as starting states, and the clubs
    /// of those already there. Imports with --yes.
    SeloCsv {
        file: PathBuf,
        /// Import it.
        #[arg(long)]
        yes: bool,
    },
}

/// How a list or report is written.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Csv,
    Text,
    Html,
}

impl Format {
    /// The page kind, for the printable formats.
    fn page(self) -> Option<crate::export::format::PageKind> {
        match self {
            Format::Csv => None,
            Format::Text => Some(crate::export::format::PageKind::Text),
            Format::Html => Some(crate::export::format::PageKind::Html),
        }
    }
}

#[derive(Subcommand, Debug)]
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
        /// TRF26, with a national-rating record (selo or pelo) for every Finn.
        #[arg(long)]
        trf26: bool,
    },
    /// The national rating list on a date: CSV as the selo service writes it (both lists), or
    /// a printable text or HTML page of one list with ranks and changes.
    List {
        #[arg(long, value_enum, default_value = "csv")]
        format: Format,
        /// selo or pelo (text and HTML).
        #[arg(long, default_value = "selo")]
        list: String,
        /// The list's date (default: today).
        #[arg(long, value_name = "DATE")]
        date: Option<String>,
        /// The previous list's date, for the change column (default: three months earlier).
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
            phase,
            lines,
            dir,
        }) => run_bench(json, quick, phase.as_deref(), lines, dir.as_deref()),
        Some(command) => with_database(cli.db, command),
        None => workstation(cli.db, cli.demo, cli.theme, cli.keymap, cli.keymap_preset),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(message)) => {
            eprintln!("ratedesk: {}", output::escape_text(&message));
            ExitCode::from(BAD_INPUT)
        }
        // The reader of our output went away (EPIPE, `ratedesk export list | head`): nothing
        // to say about it.
        Err(Failure::Other(message)) if message.ends_with("(os error 32)") => ExitCode::FAILURE,
        Err(Failure::Other(message)) => {
            eprintln!("ratedesk: {}", output::escape_text(&message));
            ExitCode::FAILURE
        }
    }
}

/// Why a command failed: bad input (exit 2) or anything else (exit 1).
pub(super) enum Failure {
    Input(String),
    Other(String),
}

impl From<crate::app::DeskError> for Failure {
    fn from(e: crate::app::DeskError) -> Self {
        match e {
            crate::app::DeskError::Edit(e) => Failure::Input(e.to_string()),
            other => Failure::Other(other.to_string()),
        }
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e.to_string())
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Other(e.to_string())
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

/// Opens the TUI. A broken keymap stops here, before the alternate screen, naming the file,
/// the key and the clash; a broken theme only warns.
fn workstation(
    db: Option<PathBuf>,
    demo: bool,
    theme: Option<String>,
    keymap: Option<PathBuf>,
    preset: Option<String>,
) -> Result<(), Failure> {
    use crate::ui::{keymap::Keymap, theme::Theme};
    let user = keymap.or_else(Keymap::user_file);
    let keymap = Keymap::load(preset.as_deref(), user.as_deref())
        .map_err(|e| Failure::Input(e.to_string()))?;
    let (theme, warning) = Theme::choose(theme.as_deref(), std::env::var_os("NO_COLOR").is_some());
    if let Some(w) = warning {
        eprintln!("ratedesk: {w}");
    }
    let dir = if demo {
        database_dir(None).with_file_name("ratedesk-demo")
    } else {
        database_dir(db)
    };
    let mut desk = open(&dir)?;
    if demo && desk.book().players.is_empty() {
        eprintln!(
            "ratedesk: building the demo federation in {} …",
            dir.display()
        );
        let (book, years) = crate::demo::generate(&crate::demo::Params::demo());
        desk.import_in_parts(book, &years)?;
    }
    let theme = theme.for_terminal(crate::ui::theme::Capabilities::from_env());
    crate::ui::run(desk, keymap, theme).map_err(other)
}

pub(super) fn open(dir: &Path) -> Result<Desk<Ssl>, Failure> {
    let desk = match Store::rules_in(dir).as_deref() {
        None | Some("ssl") => Desk::open(dir, Ssl)?,
        Some(other) => return Err(Failure::Other(json::unsupported(other).to_string())),
    };
    for w in desk.warnings() {
        eprintln!("ratedesk: warning: {}", output::escape_text(w));
    }
    Ok(desk)
}

fn with_database(db: Option<PathBuf>, command: Command) -> Result<(), Failure> {
    let stop = batch::defer_signals()?;
    if let Command::Demo {
        players,
        years,
        out,
        seed,
    } = &command
    {
        if Store::rules_in(out).is_some() {
            return Err(Failure::Input(format!(
                "{} already holds a database",
                out.display()
            )));
        }
        let params = crate::demo::Params {
            players: *players,
            years: *years,
            seed: *seed,
            ..crate::demo::Params::demo()
        };
        let started = std::time::Instant::now();
        let (book, parts) = crate::demo::generate(&params);
        let games: usize = book.events.iter().map(|e| e.games.len()).sum();
        let events = book.events.len();
        let mut desk = open(out)?;
        desk.import_in_parts(book, &parts)?;
        desk.close()?;
        println!(
            "{}: {players} players, {events} events, {games} games over {years} years, built in {:.1?}",
            out.display(),
            started.elapsed()
        );
        return Ok(());
    }
    let dir = database_dir(db);
    if let Command::Restore { file, force } = &command {
        return batch::restore(&dir, file, *force);
    }
    // Only an import creates a database; any other command on a folder without one is a
    // mistyped --db, not a request for an empty database.
    if !matches!(command, Command::Import { .. }) && !Store::exists(&dir) {
        return Err(StoreError::Missing { path: dir }.into());
    }
    let mut desk = open(&dir)?;
    let imports = matches!(
        &command,
        Command::Import {
            what: ImportKind::Json { dry_run: false, .. }
                | ImportKind::Trf {
                    dry_run: false,
                    yes: true,
                    ..
                }
                | ImportKind::FideList { dry_run: false, .. }
                | ImportKind::SeloCsv { yes: true, .. }
        }
    );
    if imports {
        desk.backup_before(crate::store::backup::Occasion::BeforeImport)?;
    }
    let mut out = output::Escaping::new(std::io::stdout().lock());
    match command {
        Command::Rate { .. } | Command::Demo { .. } | Command::Bench { .. } => {
            unreachable!("handled before the database opens")
        }
        Command::Import {
            what: ImportKind::Json { files, dry_run },
        } => {
            files::import_json(&mut desk, &files, dry_run, &mut out)?;
        }
        Command::Import {
            what:
                ImportKind::Trf {
                    files,
                    dry_run,
                    yes,
                    time_control,
                    id,
                },
        } => import_trf(
            &mut desk,
            &files,
            dry_run || !yes,
            time_control.as_deref(),
            id,
            &mut out,
        )?,
        Command::Import {
            what:
                ImportKind::FideList {
                    files,
                    date,
                    list,
                    dry_run,
                },
        } => {
            let date = date.as_deref().map(files::parse_list_date).transpose()?;
            let kind = list.as_deref().map(files::parse_kind).transpose()?;
            files::import_fide_lists(&mut desk, &files, date, kind, dry_run, &mut out)?;
        }
        Command::Import {
            what: ImportKind::SeloCsv { file, yes },
        } => files::import_selo_csv(&mut desk, &file, !yes, &mut out)?,
        Command::Export {
            what: ExportKind::Trf { event, trf26 },
        } => {
            let e = live_event(&desk, &event)?;
            let options = crate::export::trf::Options {
                trf26,
                federation: crate::model::FINLAND.into(),
                national: if trf26 {
                    files::national_ratings(&desk, e)
                } else {
                    Vec::new()
                },
            };
            let book = desk.book();
            let text = crate::export::trf::write_with(&book.events[e], &book.players, &options);
            write!(out, "{text}").map_err(other)?;
        }
        Command::Export {
            what:
                ExportKind::List {
                    format,
                    list,
                    date,
                    previous,
                },
        } => {
            use crate::export::list;
            let date = match date {
                Some(d) => json::parse_date("--date", &d)?,
                None => chrono::Local::now().date_naive(),
            };
            let previous = match previous {
                Some(d) => json::parse_date("--previous", &d)?,
                None => date
                    .checked_sub_months(chrono::Months::new(3))
                    .unwrap_or(date),
            };
            let id = match list.to_ascii_lowercase().as_str() {
                "selo" => crate::rules::ssl::SELO,
                "pelo" => crate::rules::ssl::PELO,
                other => {
                    return Err(Failure::Input(format!(
                        "--list '{other}' is not selo or pelo"
                    )));
                }
            };
            let active = desk.active_players();
            let (book, ledger) = (desk.book(), desk.ledger());
            let text = match format.page() {
                None => list::write_csv(book, ledger, &active, date),
                Some(kind) => {
                    let l = list::national_list(book, ledger, &active, id, date, previous);
                    list::page(book, &l).render(kind)
                }
            };
            write!(out, "{text}").map_err(other)?;
        }
        Command::Export {
            what: ExportKind::Report { event, format },
        } => {
            let e = live_event(&desk, &event)?;
            let Some(kind) = format.page() else {
                return Err(Failure::Input(
                    "a rating report is written as text or html".into(),
                ));
            };
            let text = crate::export::report::page(desk.rulebook(), desk.book(), desk.ledger(), e)
                .render(kind);
            write!(out, "{text}").map_err(other)?;
        }
        Command::Export {
            what: ExportKind::History { player },
        } => {
            let p = files::find_player(&desk, &player)?;
            let text =
                crate::export::history::write_csv(desk.rulebook(), desk.book(), desk.ledger(), p);
            write!(out, "{text}").map_err(other)?;
        }
        Command::Export { what } => {
            let (doc, as_of) = match what {
                ExportKind::Events { as_of } => (true, as_of),
                ExportKind::Ratings { as_of } => (false, as_of),
                ExportKind::Trf { .. }
                | ExportKind::List { .. }
                | ExportKind::Report { .. }
                | ExportKind::History { .. } => unreachable!("handled above"),
            };
            let as_of = as_of
                .map(|d| crate::json::parse_date("--as-of", &d))
                .transpose()?;
            let active = desk.active_players();
            let value = if doc {
                json::write_input(desk.rulebook(), desk.book(), as_of, &active)
            } else {
                json::write_results(desk.rulebook(), desk.book(), desk.ledger(), as_of, &active)
            };
            writeln!(out, "{value}").map_err(other)?;
        }
        Command::Backup { file } => {
            crate::store::backup::write_to(&file, &desk.backup_text()?)
                .map_err(|e| other(format!("{}: {e}", file.display())))?;
            writeln!(out, "backup written to {}", file.display()).map_err(other)?;
        }
        Command::Restore { .. } => unreachable!("handled before the database opens"),
        Command::Check => {
            let mut differences = desk.check();
            differences.extend(desk.check_chain()?);
            if differences.is_empty() {
                let units = desk.ledger().units().len();
                writeln!(
                    out,
                    "ok: {units} rated units agree with a fresh calculation; the audit log's chain holds ({} entries)",
                    desk.audit().len()
                )
                .map_err(other)?;
            } else {
                for d in &differences {
                    writeln!(out, "{d}").map_err(other)?;
                }
                return Err(Failure::Other(format!(
                    "{} problem(s) found",
                    differences.len()
                )));
            }
        }
        Command::Preview {
            event,
            round,
            board,
            result,
        } => {
            let edit = result_edit(&desk, &event, round, board, &result)?;
            let effect = desk.preview(&edit)?;
            write_effect(&desk, &effect, "would change", &mut out).map_err(other)?;
        }
        Command::Result {
            event,
            round,
            board,
            result,
            keep_titles,
            drop_titles,
        } => {
            let edit = result_edit(&desk, &event, round, board, &result)?;
            let preview = desk.preview(&edit)?;
            if !preview.lost.is_empty() && !keep_titles && !drop_titles {
                write_effect(&desk, &preview, "would change", &mut out).map_err(other)?;
                return Err(Failure::Input(
                    "this correction would take a title away: add --keep-titles to keep it (titles are permanent) or --drop-titles".into(),
                ));
            }
            let effect = desk.apply(edit)?;
            write_effect(&desk, &effect, "changed", &mut out).map_err(other)?;
            if keep_titles {
                let mut by_player: std::collections::BTreeMap<usize, Vec<_>> = Default::default();
                for a in effect.lost {
                    by_player.entry(a.player).or_default().push(a);
                }
                for (player, awards) in by_player {
                    let kept = desk.apply(Edit::HoldAwards { player, awards })?;
                    writeln!(out, "{}", kept.action).map_err(other)?;
                }
            }
        }
        Command::Confirm {
            player,
            title,
            date,
        } => {
            let code = player;
            let player = desk
                .store()
                .player_by_code(&code)?
                .ok_or_else(|| Failure::Input(format!("there is no player '{code}'")))?;
            let award = crate::rules::ssl::Title::parse(&title)
                .ok_or_else(|| Failure::Input(format!("unknown title '{title}'")))?;
            let date = match date {
                Some(d) => crate::json::parse_date("--date", &d)?,
                None => chrono::Local::now().date_naive(),
            };
            let effect = desk.apply(Edit::ConfirmAward {
                player,
                award,
                date,
            })?;
            writeln!(out, "{}", effect.action).map_err(other)?;
        }
        Command::Results => batch::results_batch(&mut desk, stop, &mut out)?,
        Command::Undo => match desk.undo()? {
            Some(effect) => write_effect(&desk, &effect, "changed", &mut out).map_err(other)?,
            None => writeln!(out, "nothing to undo").map_err(other)?,
        },
        Command::Redo => match desk.redo()? {
            Some(effect) => write_effect(&desk, &effect, "changed", &mut out).map_err(other)?,
            None => writeln!(out, "nothing to redo").map_err(other)?,
        },
        Command::Log { last } => {
            for line in desk.log_lines(last)? {
                writeln!(out, "{line}").map_err(other)?;
            }
        }
    }
    desk.close()?;
    Ok(())
}

pub(super) fn result_edit(
    desk: &Desk<Ssl>,
    event: &str,
    round: u32,
    board: u32,
    result: &str,
) -> Result<Edit<Ssl>, Failure> {
    let book = desk.book();
    let e = book
        .live_event(event)
        .ok_or_else(|| Failure::Input(format!("there is no event '{event}'")))?;
    let result = GameResult::parse(result)
        .ok_or_else(|| Failure::Input(format!("bad result code '{result}'")))?;
    Ok(Edit::SetResult {
        event: e,
        round,
        board,
        result: Some(result),
    })
}

fn write_effect(
    desk: &Desk<Ssl>,
    effect: &Effect<crate::rules::ssl::Title>,
    verb: &str,
    out: &mut impl Write,
) -> std::io::Result<()> {
    use crate::rules::Rulebook;
    let book = desk.book();
    let lists = desk.rulebook().lists();
    if !effect.stored {
        return writeln!(out, "{}: nothing to change; nothing stored", effect.action);
    }
    writeln!(
        out,
        "{}: {} rating(s) {verb} ({} unit(s) re-rated)",
        effect.action,
        effect.ratings.len(),
        effect.units_rated
    )?;
    for c in &effect.ratings {
        let info = &book.players[c.player];
        let show = |r: Option<i32>| r.map_or("-".to_string(), |r| r.to_string());
        let delta = match (c.before, c.after) {
            (Some(b), Some(a)) => format!(" ({:+})", a - b),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {:<28} {:<4} {:>5} -> {:<5}{delta}",
            label(info),
            lists[c.list],
            show(c.before),
            show(c.after)
        )?;
    }
    for (sign, awards) in [("+", &effect.gained), ("-", &effect.lost)] {
        for a in awards {
            writeln!(
                out,
                "  {sign} title {} {} ({})",
                a.award.code(),
                label(&book.players[a.player]),
                a.event.as_deref().unwrap_or("held")
            )?;
        }
    }
    if !effect.lost.is_empty() {
        writeln!(
            out,
            "  titles are permanent: a title this correction takes away must be kept by the rating officer"
        )?;
    }
    Ok(())
}

/// The live event with this id.
fn live_event(desk: &Desk<Ssl>, id: &str) -> Result<usize, Failure> {
    desk.book()
        .live_event(id)
        .ok_or_else(|| Failure::Input(format!("there is no event '{id}'")))
}

fn label(info: &crate::model::PlayerInfo) -> String {
    if info.name.is_empty() {
        info.id.clone()
    } else {
        format!("{} ({})", info.name, info.id)
    }
}

fn rate(input: Option<&Path>, pretty: bool) -> ExitCode {
    let text = match input {
        Some(path) => crate::import::read_capped_text(path, crate::import::DOCUMENT_LIMIT)
            .map_err(|e| format!("{}: {e}", path.display())),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .take(crate::import::DOCUMENT_LIMIT)
                .read_to_string(&mut s)
                .map(|_| s)
                .map_err(|e| format!("stdin: {e}"))
        }
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ratedesk rate: {e}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    match crate::json::rate(&text) {
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

fn run_bench(
    json: bool,
    quick: bool,
    phase: Option<&str>,
    lines: usize,
    dir: Option<&Path>,
) -> Result<(), Failure> {
    let value = match (phase, dir) {
        (Some("fide-list"), _) => crate::bench::fide_list_phase(lines).map_err(other)?,
        (Some("national"), Some(dir)) => crate::bench::national_phase(dir).map_err(other)?,
        (Some("fide"), _) => crate::bench::fide_phase().map_err(other)?,
        (Some(p), _) => return Err(Failure::Input(format!("unknown bench phase '{p}'"))),
        (None, _) => crate::bench::run(quick).map_err(other)?,
    };
    let mut out = std::io::stdout().lock();
    if json || phase.is_some() {
        writeln!(out, "{value}").map_err(other)?;
    } else if let serde_json::Value::Object(map) = value {
        for (k, v) in map {
            writeln!(out, "{k:<24} {v}").map_err(other)?;
        }
    }
    Ok(())
}

fn import_trf(
    desk: &mut Desk<Ssl>,
    files: &[PathBuf],
    dry_run: bool,
    time_control: Option<&str>,
    id: Option<String>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    use crate::app::trf_import::{PlanError, plan};
    if id.is_some() && files.len() > 1 {
        return Err(Failure::Input(
            "--id names one event: give it with one file".into(),
        ));
    }
    let failure = |e: PlanError| match e {
        PlanError::Input(m) => Failure::Input(m),
        PlanError::Store(e) => Failure::from(e),
    };
    // Every file is read and checked before any is imported.
    for file in files {
        plan(desk, file, time_control, id.clone()).map_err(failure)?;
    }
    for file in files {
        // Planned again against what the files before it brought in.
        let plan = plan(desk, file, time_control, id.clone()).map_err(failure)?;
        for line in &plan.lines {
            writeln!(out, "{line}").map_err(other)?;
        }
        if dry_run {
            writeln!(out, "  nothing imported (add --yes to import)").map_err(other)?;
            continue;
        }
        let effect = desk.apply_noted(plan.edit, Some(format!("from {}", file.display())))?;
        writeln!(
            out,
            "  imported; {} rating(s) changed",
            effect.ratings.len()
        )
        .map_err(other)?;
    }
    Ok(())
}
