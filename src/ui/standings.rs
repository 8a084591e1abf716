//! An open event's table pane: the standings (with each entrant's rating going in, before any
//! result), the rating report and the crosstable. Each scrolls with its cursor, and the player
//! the event was opened for is marked.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::grid::{Column, Grid, GridCell, cell};
use super::theme::Theme;
use crate::app::Federation;
use crate::app::workstation::state::{App, Standing};

use super::draw::{delta_role, expected, half_points, performance, rating, signed};
use crate::app::workstation::period::hundredths;

/// A grid over the standings' rows with the event's cursor and mark.
fn grid_for<R: Federation>(
    app: &App<R>,
    title: String,
    columns: Vec<Column>,
    rows: &[Standing],
    focused: bool,
) -> Grid {
    let mut grid = Grid::new(title, columns, rows.len(), app.tournaments.row);
    grid.focused = focused;
    grid.active = focused;
    grid.mark = app
        .tournaments
        .mark
        .and_then(|m| rows.iter().position(|s| s.player == m));
    grid
}

pub(crate) fn draw_standings<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
    focused: bool,
) {
    if app.desk.rulebook().by_period() {
        return draw_period_standings(app, theme, frame, area, event, focused);
    }
    let book = app.desk.book();
    let standings = app.standings(event);
    let columns = vec![
        Column::figure("#", 12),
        Column::figure("No", 13),
        Column::text("Name", 8, 20),
        Column::figure("Born", 2),
        Column::figure("Pts", 15),
        Column::figure("Old", 14),
        Column::figure("New", 13),
        Column::figure("±", 12),
    ];
    let grid = grid_for(app, "Standings".into(), columns, &standings, focused);
    grid.draw(frame, area, theme, |i| {
        let s = &standings[i];
        let r = s.rating.as_ref();
        let delta = r.and_then(|r| r.old.map(|o| r.new - o));
        vec![
            cell((i + 1).to_string()),
            cell(s.start_number.to_string()),
            cell(app.name(s.player).into_owned()),
            cell(super::draw::birth_year(&book.players[s.player])),
            cell(half_points(s.points)),
            cell(rating(s.entry)),
            cell(r.map(|r| r.new.to_string()).unwrap_or_default()),
            (delta.map(signed).unwrap_or_default(), delta_role(delta)),
        ]
    });
}

/// The standings of an event rated by period, with the period's running totals: the rating
/// each entrant counts with, this event's change, the changes of all his events in the period
/// so far, and the rating the period's list will publish — for the period of the round being
/// keyed (an event over a list date has two).
fn draw_period_standings<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
    focused: bool,
) {
    let book = app.desk.book();
    let standings = app.standings(event);
    let period = app.round_period(event, app.tournaments.round);
    let entries = period
        .as_ref()
        .map(|p| app.period_entries(event, p))
        .unwrap_or_default();
    let columns = vec![
        Column::figure("#", 12),
        Column::figure("No", 13),
        Column::text("Name", 8, 20),
        Column::figure("Born", 2),
        Column::figure("Pts", 15),
        Column::figure("Old", 14),
        // Old + Σ± = New: when one of the two changes must go, this event's goes first, so that
        // what stays on a narrow screen still adds up.
        Column::figure("±", 9),
        Column::figure("Σ±", 10),
        Column::figure("New", 13),
    ];
    let title = match &period {
        Some(p) => format!(
            "Standings · period {} · rated with the list of {}",
            p.dates.published, p.dates.rated_with
        ),
        None => "Standings".into(),
    };
    let grid = grid_for(app, title, columns, &standings, focused);
    let change = |c: Option<i64>| match c {
        Some(c) => (hundredths(c), delta_role(Some(c.signum() as i32))),
        None => cell(""),
    };
    grid.draw(frame, area, theme, |i| {
        let s = &standings[i];
        let e = entries.get(&s.player);
        vec![
            cell((i + 1).to_string()),
            cell(s.start_number.to_string()),
            cell(app.name(s.player).into_owned()),
            cell(super::draw::birth_year(&book.players[s.player])),
            cell(half_points(s.points)),
            cell(rating(e.and_then(|e| e.old).or(s.entry))),
            change(e.and_then(|e| e.event_change)),
            change(e.and_then(|e| e.period_change)),
            cell(
                e.and_then(|e| e.new)
                    .map(|r| r.to_string())
                    .unwrap_or_default(),
            ),
        ]
    });
}

/// The per-event rating report: every rated player with the figures of his calculation.
pub(crate) fn draw_report<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
    focused: bool,
) {
    let rated: Vec<Standing> = app
        .standings(event)
        .iter()
        .filter(|s| s.rating.is_some())
        .cloned()
        .collect();
    // By period, a row's new rating is the period's (see the standings): the report gives
    // the row's own exact change instead.
    let by_period = app.desk.rulebook().by_period();
    let entries = app
        .round_period(event, app.tournaments.round)
        .filter(|_| by_period)
        .map(|p| app.period_entries(event, &p))
        .unwrap_or_default();
    let mut columns = vec![
        Column::figure("No", 8),
        Column::text("Name", 12, 20),
        Column::figure("Old", 13),
    ];
    if by_period {
        columns.push(Column::figure("±", 14));
    } else {
        columns.push(Column::figure("New", 15));
        columns.push(Column::figure("±", 14));
    }
    columns.extend([
        Column::figure("N", 10),
        Column::figure("W", 11),
        Column::figure("We", 9),
        Column::figure("Perf", 12),
        Column::whole("Factors", 1),
    ]);
    let grid = grid_for(app, "Rating report".into(), columns, &rated, focused);
    grid.draw(frame, area, theme, |i| {
        let s = &rated[i];
        let Some(r) = s.rating.as_ref() else {
            return Vec::new();
        };
        let mut cells = vec![
            cell(s.start_number.to_string()),
            cell(app.name(s.player).into_owned()),
            cell(rating(r.old)),
        ];
        if by_period {
            cells.push(match entries.get(&s.player).and_then(|e| e.event_change) {
                Some(c) => (hundredths(c), delta_role(Some(c.signum() as i32))),
                None => cell(""),
            });
        } else {
            let delta = r.old.map(|o| r.new - o);
            cells.push(cell(r.new.to_string()));
            cells.push((delta.map(signed).unwrap_or_default(), delta_role(delta)));
        }
        cells.extend([
            cell(r.games.to_string()),
            cell(half_points(r.score)),
            cell(expected(r.expected)),
            cell(performance(r.performance())),
            cell(r.factors.describe(app.desk.rulebook().factor_names())),
        ]);
        cells
    });
}

/// The crosstable: each round's opponent (start number), colour and score. When not every
/// round fits, the rounds nearest the round being keyed are shown.
pub(crate) fn draw_crosstable<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
    focused: bool,
) {
    let book = app.desk.book();
    let ev = &book.events[event];
    let rounds = app.rounds(event);
    let current = app.tournaments.round.min(rounds.max(1));
    let start_no = |p: usize| {
        ev.participants
            .iter()
            .position(|&q| q == p)
            .map_or(0, |i| i + 1)
    };
    let symbol = |halves: u8, played: bool| match (halves, played) {
        (2, true) => "1",
        (1, _) => "½",
        (0, true) => "0",
        (2, false) => "+",
        _ => "-",
    };
    let standings = app.standings(event);
    let mut columns = vec![
        Column::figure("No", 120),
        Column::text("Name", 8, 200),
        Column::figure("Pts", 150),
    ];
    columns.extend((1..=rounds).map(|r| {
        // Rounds up to the current one are kept first, the nearest longest.
        let keep = if r <= current {
            100u32.saturating_sub(current - r)
        } else {
            50u32.saturating_sub(r - current)
        };
        Column::whole(format!("R{r}"), keep.clamp(1, 110) as u8)
    }));
    let grid = grid_for(
        app,
        format!("Crosstable · {}", count_rounds(rounds)),
        columns,
        &standings,
        focused,
    );
    grid.draw(frame, area, theme, |i| {
        let s = &standings[i];
        let mut cells: Vec<GridCell> = vec![
            cell(s.start_number.to_string()),
            cell(app.name(s.player).into_owned()),
            cell(half_points(s.points)),
        ];
        for round in 1..=rounds {
            let game = ev.games.iter().find(|g| {
                g.round == round && (g.white() == s.player || g.black() == Some(s.player))
            });
            let text = game.map_or_else(String::new, |g| {
                let white = g.white() == s.player;
                let opponent = if white { g.black() } else { Some(g.white()) };
                let score = g.result.map_or(String::new(), |r| {
                    let halves = if white {
                        r.white_halves
                    } else {
                        r.black_halves
                    };
                    symbol(halves, r.played).to_string()
                });
                match opponent {
                    Some(o) => format!("{}{}{score}", start_no(o), if white { "w" } else { "b" }),
                    None => format!("bye{score}"),
                }
            });
            cells.push(cell(text));
        }
        cells
    });
}

fn count_rounds(rounds: u32) -> String {
    crate::figures::count(rounds as usize, "round", "rounds")
}
