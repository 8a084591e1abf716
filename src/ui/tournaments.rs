//! The Tournaments tab: the event list, and an event's standings, rating report, crosstable
//! and round entry.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::theme::{Role, Theme};
use crate::app::state::{App, EventView};
use crate::json::JsonRules;

use super::draw::{
    block, delta_role, expected, half_points, performance, query_box, rating, signed,
};

pub(crate) fn draw_tournaments<R: JsonRules>(
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
        " Filter ",
        &app.tournaments.query,
        true,
    );
    let rows: Vec<Row> = app
        .tournaments
        .list
        .iter()
        .map(|&e| {
            let ev = &book.events[e];
            let list = app
                .desk
                .rulebook()
                .list_in(ev, &book.events)
                .map_or("unrated", |l| app.desk.rulebook().lists()[l]);
            Row::new(vec![
                Cell::from(ev.end.to_string()),
                Cell::from(if ev.name.is_empty() {
                    ev.id.clone()
                } else {
                    ev.name.clone()
                }),
                Cell::from(list),
                Cell::from(ev.participants.len().to_string()),
                Cell::from(ev.games.len().to_string()),
            ])
        })
        .collect();
    let header =
        Row::new(["Ends", "Event", "List", "Pl.", "Games"]).style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(10),
        Constraint::Min(20),
        Constraint::Length(7),
        Constraint::Length(4),
        Constraint::Length(5),
    ];
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(
            theme,
            format!(" {} events, newest first ", app.tournaments.list.len()),
        ));
    let mut state = TableState::default().with_selected(Some(app.tournaments.selected));
    frame.render_stateful_widget(table, list, &mut state);
}

fn draw_event<R: JsonRules>(
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
    let title = format!(
        " {}  {} – {}  {}  {}{}",
        if ev.name.is_empty() { &ev.id } else { &ev.name },
        ev.start,
        ev.end,
        list,
        if ev.abroad { "abroad  " } else { "" },
        ev.playoff_of
            .as_deref()
            .map(|d| format!("play-off of {d}"))
            .unwrap_or_default()
    );
    frame.render_widget(
        Paragraph::new(Line::styled(title, theme.style(Role::Title))),
        head,
    );
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);

    match app.tournaments.view {
        EventView::Standings => draw_standings(app, theme, frame, left, event),
        EventView::Report => draw_report(app, theme, frame, left, event),
        EventView::Crosstable => draw_crosstable(app, theme, frame, left, event),
    }

    let round = app.tournaments.round;
    let boards = app.boards(event, round);
    let start_no = |p: usize| {
        ev.participants
            .iter()
            .position(|&q| q == p)
            .map_or(0, |i| i + 1)
    };
    let rows: Vec<Row> = boards
        .iter()
        .map(|&g| {
            let game = &ev.games[g];
            let black = game.black.map_or("bye".to_string(), |b| {
                format!("{} {}", start_no(b), book.players[b].name)
            });
            Row::new(vec![
                Cell::from(game.board.to_string()),
                Cell::from(format!(
                    "{} {}",
                    start_no(game.white),
                    book.players[game.white].name
                )),
                Cell::from(
                    game.result
                        .map_or(String::new(), |r| r.code().replace("1/2", "½")),
                ),
                Cell::from(black),
            ])
        })
        .collect();
    let header = Row::new(["Bd", "White", "Result", "Black"]).style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(3),
        Constraint::Min(10),
        Constraint::Length(7),
        Constraint::Min(10),
    ];
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(
            theme,
            match &app.tournaments.pairing {
                Some(text) => format!(" Round {round}: pair {text}▏ "),
                None => format!(" Round {round} of {} ", app.rounds(event)),
            },
        ));
    let mut state = TableState::default().with_selected(Some(app.tournaments.board));
    frame.render_stateful_widget(table, right, &mut state);
}

fn draw_standings<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
) {
    let book = app.desk.book();
    let standings = app.standings(event);
    let rows: Vec<Row> = standings
        .iter()
        .enumerate()
        .map(|(rank, s)| {
            let r = s.rating.as_ref();
            let delta = r.and_then(|r| r.old.map(|o| r.new - o));
            Row::new(vec![
                Cell::from((rank + 1).to_string()),
                Cell::from(s.start_number.to_string()),
                Cell::from(book.players[s.player].name.clone()),
                Cell::from(half_points(s.points)),
                Cell::from(rating(r.and_then(|r| r.old))),
                Cell::from(r.map(|r| r.new.to_string()).unwrap_or_default()),
                Cell::from(delta.map(signed).unwrap_or_default())
                    .style(theme.style(delta_role(delta))),
            ])
        })
        .collect();
    let header =
        Row::new(["#", "No", "Name", "Pts", "Old", "New", "±"]).style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(3),
        Constraint::Length(3),
        Constraint::Min(12),
        Constraint::Length(4),
        Constraint::Length(5),
        Constraint::Length(5),
        Constraint::Length(4),
    ];
    frame.render_widget(
        Table::new(rows, widths)
            .header(header)
            .block(block(theme, " Standings ")),
        area,
    );
}

/// The per-event rating report: every rated player with the figures of his calculation.
fn draw_report<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
) {
    let book = app.desk.book();
    let rows: Vec<Row> = app
        .standings(event)
        .iter()
        .filter_map(|s| s.rating.as_ref().map(|r| (s, r)))
        .map(|(s, r)| {
            let delta = r.old.map(|o| r.new - o);
            let factors = r.factors.describe();
            Row::new(vec![
                Cell::from(s.start_number.to_string()),
                Cell::from(book.players[s.player].name.clone()),
                Cell::from(rating(r.old)),
                Cell::from(r.new.to_string()),
                Cell::from(delta.map(signed).unwrap_or_default())
                    .style(theme.style(delta_role(delta))),
                Cell::from(r.games.to_string()),
                Cell::from(half_points(r.score)),
                Cell::from(expected(r.expected)),
                Cell::from(performance(r.performance)),
                Cell::from(factors),
            ])
        })
        .collect();
    let header = Row::new([
        "No", "Name", "Old", "New", "±", "N", "W", "We", "Perf", "Factors",
    ])
    .style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(3),
        Constraint::Min(10),
        Constraint::Length(5),
        Constraint::Length(5),
        Constraint::Length(4),
        Constraint::Length(2),
        Constraint::Length(3),
        Constraint::Length(5),
        Constraint::Length(5),
        Constraint::Length(14),
    ];
    frame.render_widget(
        Table::new(rows, widths)
            .header(header)
            .block(block(theme, " Rating report ")),
        area,
    );
}

/// The crosstable: each round's opponent (start number), colour and score.
fn draw_crosstable<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    event: usize,
) {
    let book = app.desk.book();
    let ev = &book.events[event];
    let rounds = app.rounds(event);
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
    let rows: Vec<Row> = app
        .standings(event)
        .iter()
        .map(|s| {
            let mut cells = vec![
                Cell::from(s.start_number.to_string()),
                Cell::from(book.players[s.player].name.clone()),
                Cell::from(half_points(s.points)),
            ];
            for round in 1..=rounds {
                let game = ev.games.iter().find(|g| {
                    g.round == round && (g.white == s.player || g.black == Some(s.player))
                });
                let cell = game.map_or_else(String::new, |g| {
                    let white = g.white == s.player;
                    let opponent = if white { g.black } else { Some(g.white) };
                    let score = g.result.map_or(String::new(), |r| {
                        symbol(
                            if white {
                                r.white_halves
                            } else {
                                r.black_halves
                            },
                            r.played,
                        )
                        .to_string()
                    });
                    match opponent {
                        Some(o) => {
                            format!("{}{}{score}", start_no(o), if white { "w" } else { "b" })
                        }
                        None => format!("bye{score}"),
                    }
                });
                cells.push(Cell::from(cell));
            }
            Row::new(cells)
        })
        .collect();
    let mut header = vec!["No".to_string(), "Name".into(), "Pts".into()];
    header.extend((1..=rounds).map(|r| format!("R{r}")));
    let mut widths = vec![
        Constraint::Length(3),
        Constraint::Min(10),
        Constraint::Length(4),
    ];
    widths.extend((1..=rounds).map(|_| Constraint::Length(5)));
    frame.render_widget(
        Table::new(rows, widths)
            .header(Row::new(header).style(theme.style(Role::Header)))
            .block(block(theme, " Crosstable ")),
        area,
    );
}
