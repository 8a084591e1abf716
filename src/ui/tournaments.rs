//! The Tournaments tab: the event list, and an open event — its head line, the round being
//! keyed on the right and the table pane (standings, report, crosstable) on the left; the pane
//! with the focus has the bright border.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::grid::{Column, Grid, cell};
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::workstation::state::{App, EventView, Pane, count};
use crate::app::workstation::views::result_label;

use super::draw::query_box;

pub(crate) fn draw_tournaments<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    let book = app.desk.book();
    if let Some(event) = app.tournaments.open {
        return draw_event(app, theme, frame, area, event);
    }
    let [search, list] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
    query_box(
        frame,
        theme,
        search,
        " Filter: event name or id ",
        &app.tournaments.query,
        true,
        false,
    );
    let events = &app.tournaments.list;
    let columns = vec![
        Column::whole("Ends", 13),
        Column::text("Event", 12, 20),
        Column::whole("List", 5),
        Column::figure("Players", 8),
        Column::figure("Games", 7),
    ];
    let title = format!("{}, newest first", count(events.len(), "event", "events"));
    let grid = Grid::new(title, columns, events.len(), app.tournaments.selected);
    grid.draw(frame, list, theme, |i| {
        let ev = &book.events[events[i]];
        let list = app
            .desk
            .rulebook()
            .list_in(ev, &book.events)
            .map_or("unrated", |l| app.desk.rulebook().lists()[l]);
        vec![
            cell(ev.end.to_string()),
            cell(ev.title().to_string()),
            cell(list),
            cell(ev.participants.len().to_string()),
            cell(ev.games.len().to_string()),
        ]
    });
}

fn draw_event<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
) {
    let book = app.desk.book();
    let ev = &book.events[event];
    let rulebook = app.desk.rulebook();
    let list = rulebook
        .list_in(ev, &book.events)
        .map_or("unrated", |l| rulebook.lists()[l]);
    let [head, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    // The period (and a late receipt) before the dates: it is what a period rulebook's
    // figures depend on.
    // Each item in the forms it may take, the fullest first.
    let mut items: Vec<Vec<String>> = vec![vec![ev.title().to_string()]];
    // An event the rulebook will not rate says why first: nothing it keys moves a rating.
    if let Some(why) = rulebook.not_rated(ev) {
        items.push(vec![format!("not rated: {why}")]);
    }
    // A league's round being keyed: its match (or how many are played in it).
    let matches = crate::app::queries::round_matches(book, event, app.tournaments.round);
    match matches.len() {
        0 => {}
        1 => items.push(vec![format!(
            "round {}: {}",
            app.tournaments.round, matches[0]
        )]),
        n => items.push(vec![format!(
            "round {}: {n} matches",
            app.tournaments.round
        )]),
    }
    items.extend(period_items(app, event));
    // An event rated by an older rule of the rulebook says which (SSL before 2011).
    let list = match rulebook.rule_of(ev) {
        Some((rule, false)) => format!("{list}, {rule}"),
        _ => list.to_string(),
    };
    items.extend([
        vec![format!("{} – {}", ev.start, ev.end)],
        vec![list],
        vec![time_control(ev)],
        vec![count(ev.participants.len(), "player", "players")],
    ]);
    if ev.abroad {
        items.push(vec!["abroad".into()]);
    }

    if let Some(d) = &ev.playoff_of {
        items.push(vec![format!("play-off of {d}")]);
    }
    frame.render_widget(
        Paragraph::new(Line::styled(
            theme.text(fit_whole(&items, usize::from(head.width))),
            theme.style(Role::Title),
        )),
        head,
    );
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);
    let table_focus = app.tournaments.pane == Pane::Table;
    match app.tournaments.view {
        EventView::Standings => {
            super::standings::draw_standings(app, theme, frame, left, event, table_focus)
        }
        EventView::Report => {
            super::standings::draw_report(app, theme, frame, left, event, table_focus)
        }
        EventView::Crosstable => {
            super::standings::draw_crosstable(app, theme, frame, left, event, table_focus)
        }
    }
    draw_round(app, theme, frame, right, event, !table_focus);
}

/// What the head says of the periods of an event rated by period: the period each part falls
/// into (by the rounds, when it has two), and when the results came late, the date received
/// and the period they would have been in (shorter, "(late)" alone, where that does not fit).
fn period_items<R: Federation>(app: &App<R>, event: usize) -> Vec<Vec<String>> {
    let mut periods = app.event_periods(event);
    // The period of the round being keyed first.
    let round = app.tournaments.round;
    periods.sort_by_key(|p| !p.rounds.contains(&round));
    let split = periods.len() > 1;
    let mut items = Vec::new();
    for p in &periods {
        let rounds = match (split, p.rounds.first(), p.rounds.last()) {
            (true, Some(a), Some(b)) if a == b => format!("round {a} "),
            (true, Some(a), Some(b)) => format!("rounds {a}–{b} "),
            _ => String::new(),
        };
        let late = match (p.late, p.received) {
            (Some(_), Some(received)) => format!(" (late: received {received})"),
            (Some(late), None) => format!(" (late for {})", late.published),
            (None, _) => String::new(),
        };
        let mut forms = vec![format!("{rounds}period {}{late}", p.dates.published)];
        if p.late.is_some() {
            forms.push(format!("{rounds}period {} (late)", p.dates.published));
        }
        items.push(forms);
    }
    items
}

/// An event's time control as officers write it: `90+30` (minutes, then seconds a move), or
/// `90/40+30+30` with a period added after a move; a time in seconds where it is not whole
/// minutes (`45s+5`).
fn time_control(ev: &crate::model::Event) -> String {
    let minutes = |s: u32| {
        if s.is_multiple_of(60) {
            (s / 60).to_string()
        } else {
            format!("{s}s")
        }
    };
    match &ev.time_control {
        // Not recorded: a standard game of at least 90 minutes (the model's reading).
        None => "90+ min".into(),
        Some(tc) => {
            let mut text = minutes(tc.base_seconds);
            for added in &tc.added {
                text.push_str(&format!("/{}+{}", added.after_move, minutes(added.seconds)));
            }
            format!("{text}+{}", tc.increment_seconds)
        }
    }
}

/// Items two spaces apart, in order, each whole in the fullest of its forms that fits, or left
/// out (and the next tried).
fn fit_whole(items: &[Vec<String>], width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let mut line = String::new();
    for forms in items {
        if let Some(next) = forms
            .iter()
            .map(|form| format!(" {form} "))
            .find(|next| line.width() + next.width() <= width)
        {
            line.push_str(&next);
        }
    }
    line
}

/// The round being keyed: one row per board, the cursor on the board the next key sets.
fn draw_round<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
    focused: bool,
) {
    let book = app.desk.book();
    let ev = &book.events[event];
    let round = app.tournaments.round;
    let rounds = app.rounds(event);
    let boards = app.boards(event, round);
    let start_no = |p: usize| {
        ev.participants
            .iter()
            .position(|&q| q == p)
            .map_or(0, |i| i + 1)
    };
    let title = match &app.tournaments.pairing {
        Some(text) => format!("Round {round}: pair {text}{}", theme.cursor()),
        None if rounds == 0 => format!("Round {round} · not paired yet"),
        None if round > rounds => format!("Round {round} · to pair"),
        None => format!("Round {round} of {rounds}"),
    };
    let columns = vec![
        Column::figure("Bd", 12),
        Column::text("White", 8, 20),
        Column::whole("Res", 19),
        Column::text("Black", 8, 18),
    ];
    let mut grid = Grid::new(title, columns, boards.len(), app.tournaments.board);
    grid.focused = focused;
    grid.active = focused;
    grid.mark = app.tournaments.mark.and_then(|m| {
        boards
            .iter()
            .position(|&g| ev.games[g].white() == m || ev.games[g].black() == Some(m))
    });
    grid.draw(frame, area, theme, |i| {
        let game = &ev.games[boards[i]];
        let black = game.black().map_or("bye".to_string(), |b| {
            format!("{} {}", start_no(b), app.name(b))
        });
        vec![
            cell(game.board.to_string()),
            cell(format!(
                "{} {}",
                start_no(game.white()),
                app.name(game.white())
            )),
            cell(
                game.result
                    .map_or(String::new(), |r| result_label(r, game.black().is_none())),
            ),
            cell(black),
        ]
    });
}
