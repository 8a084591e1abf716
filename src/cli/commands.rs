//! One small function per command on a database, generic over the rulebook the database keeps
//! ([`run_with`] is what the registry calls): each parses what is left of its arguments, calls
//! the application and writes what it answers.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Command, ExportKind, Failure, ImportKind, OfficersCommand, OnDatabase, batch, output};
use crate::app::import::{fide_list, json, national_csv, trf};
use crate::app::publish::{self, ListFormat, ListRequest};
use crate::app::queries;
use crate::app::{Desk, Edit, Effect, Federation, database};
use crate::json::parse_date;

/// Where a command writes: standard output, or the answer to another `ratedesk` whose command
/// the open workstation runs.
pub(super) type Out<'a> = output::Escaping<Box<dyn Write + 'a>>;

/// Runs a command on the database of `rulebook`.
pub(super) fn run_with<R: Federation>(rulebook: R, on: OnDatabase) -> Result<(), Failure> {
    let OnDatabase {
        dir,
        command,
        backup,
        stop,
    } = on;
    match command {
        Command::Init { .. } => return init(&dir, rulebook),
        Command::Demo {
            players,
            years,
            seed,
            ..
        } => return demo(&dir, rulebook, players, years, seed),
        Command::Restore { file, force } => {
            let lines = backup.ok_or_else(|| {
                Failure::Input(format!("{}: not a ratedesk backup", file.display()))
            })?;
            return batch::restore(&dir, rulebook, (&file, lines), force);
        }
        Command::Serve => return super::serve::foreground(&dir, rulebook, stop),
        _ => {}
    }
    let mut desk = open(&dir, rulebook)?;
    let mut out = output::Escaping::new(Box::new(std::io::stdout().lock()) as Box<dyn Write>);
    run_on(&mut desk, command, stop, &mut out, false)?;
    drop(out);
    desk.close()?;
    Ok(())
}

/// Runs a command on an open database: this process's, or the open workstation's for another
/// `ratedesk` (the commands it serves).
pub(super) fn run_on<R: Federation>(
    desk: &mut Desk<R>,
    command: Command,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    out: &mut Out<'_>,
    served: bool,
) -> Result<(), Failure> {
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
                | ImportKind::NationalCsv { yes: true, .. }
        }
    );
    if imports {
        desk.backup_before(crate::app::BackupOccasion::BeforeImport)?;
    }
    match command {
        Command::Import { what } => import(desk, what, out, served)?,
        Command::Export { what } => export(desk, what, out)?,
        Command::Backup { file } => backup_to(desk, &file, out)?,
        Command::Check { against } => check(desk, against.as_deref(), out)?,
        Command::Preview {
            event,
            round,
            board,
            result,
        } => {
            let edit = queries::result_edit(desk, &event, round, board, &result)?;
            let effect = desk.preview(&edit)?;
            write_effect(desk, &effect, "would change", out)?;
        }
        Command::Result {
            event,
            round,
            board,
            result,
            keep_titles,
            drop_titles,
        } => set_result(
            desk,
            (&event, round, board, &result),
            (keep_titles, drop_titles),
            out,
        )?,
        Command::Received { event, date, round } => {
            let received = match date.as_str() {
                "none" => None,
                d => Some(parse_date("DATE", d)?),
            };
            let edit = queries::received_edit(desk, &event, round, received)?;
            let effect = desk.apply(edit)?;
            write_effect(desk, &effect, "changed", out)?;
        }
        Command::Reenter {
            player,
            date,
            fide,
            national,
            remove: _,
        } => {
            let date = parse_date("DATE", &date)?;
            let on = match (fide, national) {
                (Some(rating), _) => Some(queries::ReentryOn::Fide(rating)),
                (None, Some(rating)) => Some(queries::ReentryOn::National(rating)),
                (None, None) => None,
            };
            let edit = queries::reentry_edit(desk, &player, date, on)?;
            let effect = desk.apply(edit)?;
            write_effect(desk, &effect, "changed", out)?;
        }
        Command::Confirm {
            player,
            title,
            date,
        } => {
            let date = match date {
                Some(d) => parse_date("--date", &d)?,
                None => crate::clock::today(),
            };
            let edit = queries::confirm_edit(desk, &player, &title, date)?;
            writeln!(out, "{}", desk.apply(edit)?.action)?;
        }
        Command::Results => batch::results_batch(desk, stop, out)?,
        Command::Undo { of } => undo(desk, true, of.as_deref(), out)?,
        Command::Redo { of } => undo(desk, false, of.as_deref(), out)?,
        Command::Log { head: true, .. } => {
            let head = desk.head().map_err(crate::app::DeskError::from)?;
            writeln!(out, "{}", crate::app::head_line(head))?;
        }
        Command::Log { last, full, .. } => {
            for line in desk.log_lines(last, full)? {
                writeln!(out, "{line}")?;
            }
        }
        Command::Officers { what } => officers(desk, what, out)?,
        Command::Init { .. }
        | Command::Demo { .. }
        | Command::Restore { .. }
        | Command::Serve
        | Command::Rate { .. }
        | Command::Bench { .. } => unreachable!("handled before the database opens"),
    }
    Ok(())
}

/// Opens the database of `rulebook` in `dir` and says what went wrong without stopping it.
pub(super) fn open<R: Federation>(dir: &Path, rulebook: R) -> Result<Desk<R>, Failure> {
    let desk = Desk::open(dir, rulebook)?;
    for w in desk.warnings() {
        eprintln!("ratedesk: warning: {}", output::escape_text(w));
    }
    Ok(desk)
}

/// `ratedesk init --rules CODE`.
fn init<R: Federation>(dir: &Path, rulebook: R) -> Result<(), Failure> {
    let (adjective, code) = (rulebook.adjective(), rulebook.code());
    database::create(dir, rulebook)?.close()?;
    println!(
        "{}: a new database of the {adjective} rulebook ('{code}')",
        dir.display()
    );
    Ok(())
}

/// `ratedesk demo --out DB`.
fn demo<R: Federation>(
    out: &Path,
    rulebook: R,
    players: usize,
    years: u32,
    seed: u64,
) -> Result<(), Failure> {
    let params = database::DemoParams {
        players,
        years,
        seed,
        ..database::DemoParams::demo()
    };
    let started = std::time::Instant::now();
    let federation = database::demo_of(&rulebook, &params)?;
    let mut desk = database::create(out, rulebook)?;
    let built = database::import_demo(&mut desk, federation)?;
    desk.close()?;
    println!(
        "{}: {} players, {} events, {} games over {years} years, built in {:.1?}",
        out.display(),
        built.players,
        built.events,
        built.games,
        started.elapsed()
    );
    Ok(())
}

fn import<R: Federation>(
    desk: &mut Desk<R>,
    what: ImportKind,
    out: &mut Out<'_>,
    served: bool,
) -> Result<(), Failure> {
    match what {
        ImportKind::Json { files, dry_run } => {
            let plan = json::plan(desk, &files)?;
            for note in &plan.notes {
                writeln!(out, "{note}")?;
            }
            if dry_run {
                writeln!(out, "dry run: nothing imported")?;
            } else {
                let units = json::apply(desk, plan)?;
                writeln!(out, "imported as one edit; {units} units rated")?;
            }
        }
        ImportKind::Trf {
            files,
            dry_run,
            yes,
            time_control,
            id,
            received,
        } => {
            let given = trf::Given {
                time_control,
                id,
                received: received.map(|d| parse_date("--received", &d)).transpose()?,
            };
            import_trf(desk, &files, dry_run || !yes, &given, out)?
        }
        ImportKind::FideList {
            files,
            date,
            list,
            dry_run,
        } => {
            let options = fide_list::Options {
                date: date
                    .as_deref()
                    .map(fide_list::parse_list_date)
                    .transpose()?,
                kind: list.as_deref().map(fide_list::parse_kind).transpose()?,
                dry_run,
            };
            import_fide_lists(desk, &files, &options, out, served)?;
        }
        ImportKind::NationalCsv { file, yes } => {
            let plan = national_csv::plan(desk, &file)?;
            if yes {
                let summary = plan.summary.clone();
                national_csv::apply(desk, plan)?;
                writeln!(out, "{summary}; imported")?;
            } else {
                writeln!(
                    out,
                    "{}; nothing imported (add --yes to import)",
                    plan.summary
                )?;
            }
        }
    }
    Ok(())
}

/// `ratedesk import trf FILE…`: every file planned (read and checked) before any is imported;
/// each planned again against what the files before it brought in.
fn import_trf<R: Federation>(
    desk: &mut Desk<R>,
    files: &[PathBuf],
    dry_run: bool,
    given: &trf::Given,
    out: &mut Out<'_>,
) -> Result<(), Failure> {
    if given.id.is_some() && files.len() > 1 {
        return Err(Failure::Input(
            "--id names one event: give it with one file".into(),
        ));
    }
    for file in files {
        trf::plan(desk, file, given)?;
    }
    for file in files {
        let mut plan = trf::plan(desk, file, given)?;
        for line in &plan.lines {
            writeln!(out, "{line}")?;
        }
        if dry_run {
            writeln!(out, "  nothing imported (add --yes to import)")?;
            continue;
        }
        let titles = std::mem::take(&mut plan.titles);
        let effect = desk.apply_noted(plan.edit, Some(format!("from {}", file.display())))?;
        writeln!(
            out,
            "  imported; {} rating(s) changed",
            effect.ratings.len()
        )?;
        // Reference data for the cards: the import stands without it.
        if let Err(e) = trf::store_titles(desk, titles) {
            writeln!(out, "  its FIDE titles were not kept for the cards: {e}")?;
        }
    }
    Ok(())
}

/// A progress bar on stderr (drawn only on a terminal), when it is shown at all.
struct Bar(Option<indicatif::ProgressBar>, bool);

impl fide_list::Progress for Bar {
    fn start(&mut self, file: &Path, what: &str, total: u64) {
        if !self.1 {
            return;
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr_with_hz(4),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {elapsed} (eta {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(format!("{what} {}", file.display()));
        self.0 = Some(bar);
    }

    fn at(&mut self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(bytes);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.0.take() {
            bar.finish_and_clear();
        }
    }
}

/// `ratedesk import fide-list FILE…`.
fn import_fide_lists<R: Federation>(
    desk: &mut Desk<R>,
    files: &[PathBuf],
    options: &fide_list::Options,
    out: &mut Out<'_>,
    served: bool,
) -> Result<(), Failure> {
    // Served for another `ratedesk`, stderr is the open workstation's screen: no bar.
    let mut bar = Bar(None, !served);
    let planned = fide_list::plan(desk, files, options, &mut bar)?;
    for list in &planned {
        let names: Vec<&str> = list.kinds.iter().map(|k| k.name()).collect();
        writeln!(
            out,
            "{}: FIDE {} list of {}, {} players ({} rated); {} of ours by FIDE id, {} kept as reference",
            list.file.display(),
            names.join("/"),
            list.list_date,
            list.total,
            list.rated,
            list.ours(),
            list.total - list.ours() as u64
        )?;
    }
    if options.dry_run {
        writeln!(out, "  nothing imported (dry run)")?;
        return Ok(());
    }
    let done = fide_list::apply(desk, &planned, &mut bar)?;
    writeln!(
        out,
        "  imported in {:.1?}: {} new reference players ({} held); {} of our players' ratings changed, {} units re-rated",
        done.elapsed, done.added, done.held, done.ratings, done.units
    )?;
    Ok(())
}

fn export<R: Federation>(
    desk: &Desk<R>,
    what: ExportKind,
    out: &mut Out<'_>,
) -> Result<(), Failure> {
    let date = |flag: &str, d: Option<String>| d.map(|d| parse_date(flag, &d)).transpose();
    let text = match what {
        ExportKind::Events { as_of } => {
            format!(
                "{}\n",
                publish::events_document(desk, date("--as-of", as_of)?)
            )
        }
        ExportKind::Ratings { as_of } => {
            publish::ratings_document(desk, date("--as-of", as_of)?).write_to(out)?;
            writeln!(out)?;
            return Ok(());
        }
        ExportKind::Trf { event, trf26 } => publish::trf(desk, &event, trf26)?,
        ExportKind::List {
            format,
            list,
            date: on,
            previous,
        } => {
            let request = ListRequest {
                list,
                date: date("--date", on)?,
                previous: date("--previous", previous)?,
            };
            let format = format.page().map_or(ListFormat::Csv, ListFormat::Page);
            publish::national_list(desk, &request, format)?
        }
        ExportKind::Report { event, format } => {
            let Some(kind) = format.page() else {
                return Err(Failure::Input(
                    "a rating report is written as text or html".into(),
                ));
            };
            publish::report(desk, &event, kind)?
        }
        ExportKind::History { player } => publish::history(desk, &player)?,
    };
    write!(out, "{text}")?;
    Ok(())
}

/// `ratedesk backup FILE`.
fn backup_to<R: Federation>(desk: &Desk<R>, file: &Path, out: &mut Out<'_>) -> Result<(), Failure> {
    desk.write_backup(file)?;
    writeln!(out, "backup written to {}", file.display())?;
    Ok(())
}

/// `ratedesk check [--against LIST]`.
fn check<R: Federation>(
    desk: &mut Desk<R>,
    against: Option<&Path>,
    out: &mut Out<'_>,
) -> Result<(), Failure> {
    let mut checked = queries::check(desk)?;
    if let Some(list) = against {
        let problems = desk.check_against_file(list).map_err(|e| match e {
            crate::app::HeadError::Store(e) => Failure::from(crate::app::DeskError::from(e)),
            input => Failure::Input(format!("{}: {input}", list.display())),
        })?;
        checked.problems.extend(
            problems
                .into_iter()
                .map(|p| format!("{}: {p}", list.display())),
        );
    }
    if checked.problems.is_empty() {
        writeln!(
            out,
            "ok: {} rated units agree with a fresh calculation; the audit log's chain holds ({} entries)",
            checked.units, checked.entries
        )?;
        if let Some(list) = against {
            writeln!(
                out,
                "ok: the history still leads through the head {} was published with",
                list.display()
            )?;
        }
        return Ok(());
    }
    for d in &checked.problems {
        writeln!(out, "{d}")?;
    }
    Err(Failure::Other(format!(
        "{} problem(s) found",
        checked.problems.len()
    )))
}

/// `ratedesk result …`: a correction that would take a title away is refused unless the
/// officer says what becomes of it; kept titles go with the correction in one audited edit.
fn set_result<R: Federation>(
    desk: &mut Desk<R>,
    (event, round, board, result): (&str, u32, u32, &str),
    (keep_titles, drop_titles): (bool, bool),
    out: &mut Out<'_>,
) -> Result<(), Failure> {
    let edit = queries::result_edit(desk, event, round, board, result)?;
    let preview = desk.preview(&edit)?;
    if !preview.lost.is_empty() && !keep_titles && !drop_titles {
        write_effect(desk, &preview, "would change", out)?;
        return Err(Failure::Input(
            "this correction would take a title away: add --keep-titles to keep it (titles are permanent) or --drop-titles".into(),
        ));
    }
    let kept = if keep_titles {
        preview.lost
    } else {
        Vec::new()
    };
    let effect = desk.apply(Edit::keeping(edit, kept.clone()))?;
    write_effect(desk, &effect, "changed", out)?;
    for a in &kept {
        writeln!(
            out,
            "  kept title {} {} (held)",
            desk.rulebook().award_code(&a.award),
            label(&desk.book().players[a.player])
        )?;
    }
    Ok(())
}

fn write_effect<R: Federation>(
    desk: &Desk<R>,
    effect: &Effect<R::Award>,
    verb: &str,
    out: &mut impl Write,
) -> std::io::Result<()> {
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
            (Some(b), Some(a)) => format!(" ({})", crate::figures::signed(a - b)),
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
                desk.rulebook().award_code(&a.award),
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

pub(super) fn label(info: &crate::model::PlayerInfo) -> String {
    if info.name.is_empty() {
        info.id.clone()
    } else {
        format!("{} ({})", info.name, info.id)
    }
}

/// `ratedesk officers …`: who may edit, and the owner naming them.
fn officers<R: Federation>(
    desk: &mut Desk<R>,
    what: OfficersCommand,
    out: &mut Out<'_>,
) -> Result<(), Failure> {
    let (name, group, editor) = match what {
        OfficersCommand::List => {
            writeln!(out, "{} (the owner)", database::owner_name())?;
            for officer in desk.officers() {
                writeln!(out, "{officer}")?;
            }
            return Ok(());
        }
        OfficersCommand::Add { name, group } => (name, group, true),
        OfficersCommand::Remove { name, group } => (name, group, false),
    };
    let officer = database::officer(&name, group).map_err(Failure::Input)?;
    let shown = officer.to_string();
    if desk.name_officer(officer, editor)? {
        writeln!(
            out,
            "{shown} {}",
            if editor {
                "may edit from now on"
            } else {
                "may look up, no longer edit"
            }
        )?;
        if group {
            let remaining: Vec<&str> = desk
                .officers()
                .iter()
                .filter(|o| o.group)
                .map(|o| o.name.as_str())
                .collect();
            if let Some(warning) = database::admit_group(desk.folder(), remaining.first().copied())
            {
                writeln!(out, "warning: {warning}")?;
            }
        }
    } else {
        writeln!(
            out,
            "{shown} {} already",
            if editor { "may edit" } else { "may not edit" }
        )?;
    }
    Ok(())
}

/// `undo` / `redo [--of USER]`: the officer's own newest edit (undone edit); another's only
/// when he is named.
fn undo<R: Federation>(
    desk: &mut Desk<R>,
    undo: bool,
    of: Option<&str>,
    out: &mut Out<'_>,
) -> Result<(), Failure> {
    let what = if undo { "undo" } else { "redo" };
    let Some(entry) = desk.next_undo_of(undo, of)? else {
        match of {
            Some(name) => writeln!(out, "nothing of {name}'s to {what}")?,
            None => writeln!(out, "nothing to {what}")?,
        }
        return Ok(());
    };
    let author = crate::app::os_name(&entry.user).to_string();
    if of.is_none() && author != desk.me() {
        return Err(Failure::Input(format!(
            "your edits are all {}; the newest is {author}'s (#{} {}): `ratedesk {what} --of {author}` takes it",
            if undo { "undone" } else { "in force" },
            entry.seq,
            crate::app::audit_log_line(&entry.action),
        )));
    }
    match desk.undo_entry(undo, entry.seq)? {
        Some(effect) => write_effect(desk, &effect, "changed", out)?,
        None => writeln!(out, "nothing to {what}")?,
    }
    Ok(())
}
