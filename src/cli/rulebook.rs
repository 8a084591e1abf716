//! Which rulebook a command runs with — the one the database keeps; for a new database the one
//! `init` or `demo` names, a `rate` document's or a backup's — turned by the registry
//! ([`app::with_federation`]) into a call of a generic function: the workstation's, or
//! `commands::run_with`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{Command, Failure, ImportKind, batch, commands, database_dir, other};
use crate::app::workstation::state::Loaded;
use crate::app::{self, Federation, WithFederation, database};

/// The workstation as asked for on the command line.
pub(super) struct Workstation {
    pub db: Option<PathBuf>,
    pub demo: bool,
    pub rules: Option<String>,
    pub theme: Option<String>,
    pub keymap: Option<PathBuf>,
    pub preset: Option<String>,
}

/// Opens the TUI on the database's rulebook (a demo federation's on request; the default folder
/// without a database gets a Finnish one, a `--db` folder without one is refused). A broken keymap stops here, before the alternate screen,
/// naming the file, the key and the clash; a broken theme only warns.
pub(super) fn workstation(asked: Workstation) -> Result<(), Failure> {
    let (dir, code) = if asked.demo {
        let code = asked
            .rules
            .clone()
            .unwrap_or_else(|| app::DEFAULT_RULEBOOK.into());
        // The default rulebook's demo keeps the folder it always had.
        let name = if code == app::DEFAULT_RULEBOOK {
            "ratedesk-demo".to_string()
        } else {
            format!("ratedesk-demo-{code}")
        };
        // `--db PATH --demo`: the demo is built there (or opened, once built).
        let dir = asked
            .db
            .clone()
            .unwrap_or_else(|| database_dir(None).with_file_name(name));
        if let Some(held) = database::rulebook_of(&dir).map_err(other)?
            && held != code
        {
            return Err(Failure::Input(format!(
                "{} holds a database of the {held} rulebook: the {code} demo is not built over \
                 it (open it without --demo, or give --db a new folder)",
                dir.display()
            )));
        }
        (dir, code)
    } else {
        let dir = database_dir(asked.db.clone());
        // Another user's database, closed to us but served by its owner's process: the
        // rulebook as that process says.
        let code = match database::rulebook_of(&dir)
            .or_else(|refused| super::serve::holder_rules(&dir).map(Some).ok_or(refused))
            .map_err(other)?
        {
            Some(code) => code,
            // A folder named with --db that holds no database is a mistyped path, not a
            // request for an empty one: `init` creates one.
            None if asked.db.is_some() => return Err(database::missing(&dir).into()),
            None => app::DEFAULT_RULEBOOK.into(),
        };
        (dir, code)
    };
    app::with_federation(&code, OpenWorkstation { asked, dir })?
}

struct OpenWorkstation {
    asked: Workstation,
    dir: PathBuf,
}

impl WithFederation for OpenWorkstation {
    type Output = Result<(), Failure>;

    fn with<R: Federation>(self, rulebook: R) -> Self::Output {
        use crate::ui::{keymap::Keymap, theme::Theme};
        let asked = self.asked;
        let user = asked.keymap.or_else(Keymap::user_file);
        let keymap = Keymap::load(asked.preset.as_deref(), user.as_deref())
            .map_err(|e| Failure::Input(e.to_string()))?;
        let (theme, warning) = Theme::choose(
            asked.theme.as_deref(),
            std::env::var_os("NO_COLOR").is_some(),
        );
        if let Some(w) = warning {
            eprintln!("ratedesk: {w}");
        }
        {
            use std::io::IsTerminal;
            if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
                return Err(Failure::Other(
                    "the workstation needs a terminal (its input or output is not one): run it \
                     in a terminal, or use a command (`ratedesk --help` lists them)"
                        .into(),
                ));
            }
        }
        let (dir, demo) = (self.dir, asked.demo);
        let params = database::DemoParams::demo();
        // A demo federation is generated before its folder is made (a rulebook without one
        // leaves nothing), and built before the workstation opens, saying so.
        if demo && !database::exists(&dir) {
            let federation = database::demo_of(&rulebook, &params)?;
            eprintln!(
                "ratedesk: building the demo federation in {} …",
                dir.display()
            );
            let mut desk = commands::open(&dir, rulebook.clone())?;
            database::import_demo(&mut desk, federation)?;
            desk.close()?;
        }
        // Taken here, so that a database another process holds is said before the screen
        // changes; the database itself opens behind the first frame.
        let theme = theme.for_terminal(crate::ui::theme::Capabilities::from_env());
        let lock = match app::Desk::<R>::lock(&dir) {
            Ok(lock) => lock,
            // Held by another process that serves it (or another user's database, held by its
            // owner's process): a workstation on a copy of its record.
            Err(refused) => match super::serve::open_copy(&dir)? {
                Some(stream) => return copy_workstation(stream, dir, rulebook, keymap, theme),
                None => return Err(refused.into()),
            },
        };
        let (at, rules) = (dir.clone(), rulebook.clone());
        let load = move || {
            let mut loaded = Loaded::open_locked(&at, rules, lock)?;
            if demo && loaded.desk.book().players.is_empty() {
                // A new revision: the search index is made again, of the players imported.
                let federation = database::demo_of(loaded.desk.rulebook(), &params)?;
                database::import_demo(&mut loaded.desk, federation)?;
            }
            Ok::<_, Failure>(loaded)
        };
        let served = dir.clone();
        crate::ui::run(&dir, rulebook, load, keymap, theme, move |outside| {
            super::serve::serve(&served, outside)
        })
    }
}

/// The workstation on a copy of the record of the process that holds the database (`stream`
/// is connected to it): every edit made there shows here, and this one's are made there.
fn copy_workstation<R: Federation>(
    stream: std::os::unix::net::UnixStream,
    dir: PathBuf,
    rulebook: R,
    keymap: crate::ui::keymap::Keymap,
    theme: crate::ui::theme::Theme,
) -> Result<(), Failure> {
    let wake: super::copy::Wake<R> = Arc::default();
    let (at, rules, woken) = (dir.clone(), rulebook.clone(), wake.clone());
    let load = move || super::copy::copy_from(stream, at, rules, woken).map(Loaded::from);
    crate::ui::run(&dir, rulebook, load, keymap, theme, move |outside| {
        // What arrived while the copy was taken is followed once it is open.
        outside.send(crate::ui::Job {
            asked: String::new(),
            run: Box::new(crate::app::workstation::state::App::follow),
        });
        *wake
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(outside);
        Ok::<_, String>(())
    })
}

/// A command on a database, with what was read to choose its rulebook.
pub(super) struct OnDatabase {
    pub dir: PathBuf,
    pub command: Command,
    /// A backup's lines, opened to know its rulebook (`restore`).
    pub backup: Option<Box<dyn std::io::BufRead + Send>>,
    pub stop: Arc<AtomicBool>,
}

impl WithFederation for OnDatabase {
    type Output = Result<(), Failure>;

    fn with<R: Federation>(self, rulebook: R) -> Self::Output {
        commands::run_with(rulebook, self)
    }
}

/// Chooses the rulebook a command works with — the one the database keeps; for a new
/// database the one `init` or `demo` names, a `rate` document's or a backup's — and runs it.
pub(super) fn with_database(db: Option<PathBuf>, command: Command) -> Result<(), Failure> {
    let dir = match &command {
        Command::Demo { out, .. } => out.clone(),
        _ => database_dir(db),
    };
    // The database open in a workstation: it runs the command.
    if super::serve::served(&command) {
        match super::serve::ask(&dir, &command)? {
            Some(0) => return Ok(()),
            Some(code) => return Err(Failure::Exit(code)),
            None => {}
        }
    }
    let stop = batch::defer_signals()?;
    let mut backup = None;
    let stored = match &command {
        Command::Restore { force: true, .. } => database::rulebook_to_replace(&dir),
        _ => database::rulebook_of(&dir),
    }
    .map_err(other)?;
    let code = match (&command, stored) {
        (Command::Init { rules } | Command::Demo { rules, .. }, stored) => {
            if let Some(stored) = stored {
                return Err(database::CreateError::Exists {
                    path: dir,
                    rules: stored,
                }
                .into());
            }
            rules.clone()
        }
        (Command::Restore { file, .. }, stored) => {
            let opened = app::restore::open_backup(file)?;
            let code = opened.rules.ok_or_else(|| {
                Failure::Input(format!("{}: not a ratedesk backup", file.display()))
            })?;
            if let Some(stored) = stored.filter(|s| *s != code) {
                return Err(Failure::Input(format!(
                    "{} is a backup of a '{code}' database, but the database at {} keeps the '{stored}' rulebook; restore it into another folder",
                    file.display(),
                    dir.display()
                )));
            }
            backup = Some(opened.lines);
            code
        }
        (_, Some(stored)) => stored,
        (
            Command::Import {
                what: ImportKind::Json { files, .. },
            },
            None,
        ) => match files.first() {
            Some(first) => app::import::json::rules_of(first)?,
            None => app::DEFAULT_RULEBOOK.into(),
        },
        (Command::Import { .. }, None) => app::DEFAULT_RULEBOOK.into(),
        // Only an import creates a database; any other command on a folder without one is a
        // mistyped --db, not a request for an empty database.
        (_, None) => return Err(database::missing(&dir).into()),
    };
    // An import into a folder that holds nothing yet creates the database; when it is
    // refused before anything was stored, nothing is left behind (no empty database fixed to
    // a rulebook).
    let creating = matches!(command, Command::Import { .. }) && !holds_anything(&dir);
    let done = app::with_federation(
        &code,
        OnDatabase {
            dir: dir.clone(),
            command,
            backup,
            stop,
        },
    )?;
    if done.is_err() && creating {
        database::remove_if_empty(&dir, &code);
    }
    done
}

/// Whether a folder exists with anything in it.
fn holds_anything(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}
