//! The player card: who he is (id, federation, birth year, FIDE id, titles with the event that
//! gave each), his ratings on every list with a chart of each, and his rated games — or rated
//! events — newest first, scrolling.

use chrono::Datelike;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::chart::draw_chart;
use super::grid::{Column, Grid, GridCell, cell};
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::state::{App, CardView, count};
use crate::model::FideKind;

use super::draw::{block, delta_role, doubled, expected, half_points, performance, rating, signed};

pub(crate) fn draw_card<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    player: usize,
) {
    let lists = app.desk.rulebook().lists();
    let chart_height = ((area.height.saturating_sub(5)) / 3).clamp(6, 12);
    let [head, charts, table] = Layout::vertical([
        Constraint::Length(5),
        Constraint::Length(chart_height),
        Constraint::Min(4),
    ])
    .areas(area);
    draw_head(app, theme, frame, head, player);
    let parts = Layout::horizontal(vec![Constraint::Ratio(1, lists.len() as u32); lists.len()])
        .split(charts);
    for (list, part) in parts.iter().enumerate() {
        let points = app.rating_points(player, list);
        draw_chart(frame, *part, theme, lists[list], &points);
    }
    match app.players.card_view {
        CardView::Games => draw_games(app, theme, frame, table, player),
        CardView::Events => draw_events(app, theme, frame, table, player),
    }
}

fn draw_head<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    player: usize,
) {
    let book = app.desk.book();
    let info = &book.players[player];
    let rulebook = app.desk.rulebook();
    let awards = app.desk.ledger().awards(book, player);
    let codes: Vec<&str> = awards
        .iter()
        .map(|a| rulebook.award_code(&a.award))
        .collect();
    let mut first = vec![
        Span::styled(info.name.clone(), theme.style(Role::Title)),
        Span::raw(format!(
            "  {}  {}",
            info.id,
            info.federation.clone().unwrap_or_else(|| "FIN".into())
        )),
    ];
    if let Some(born) = info.born {
        first.push(Span::raw(format!("  born {}", born.year())));
    }
    if let Some(id) = info.fide_id {
        first.push(Span::raw(format!("  FIDE {id}")));
    }
    if !codes.is_empty() {
        first.push(Span::styled(
            format!("  {}", codes.join(" ")),
            theme.style(Role::Highlight),
        ));
    }
    // Last on the line, and only whole: nothing before it is ever pushed out by it.
    if let Some(club) = &info.club {
        let club = Span::raw(format!("  club {club}"));
        let used: usize = first.iter().map(Span::width).sum();
        if used + club.width() <= usize::from(area.width.saturating_sub(2)) {
            first.push(club);
        }
    }
    let mut ratings = Vec::new();
    for (list, state) in app.ratings(player) {
        ratings.push(Span::styled(
            format!("{} ", rulebook.lists()[list]),
            theme.style(Role::Header),
        ));
        let summary = state.map_or_else(|| "unrated".into(), |s| rulebook.state_summary(list, s));
        ratings.push(Span::raw(format!("{summary}   ")));
    }
    // Each tempo's newest FIDE rating, from the newest list that has that tempo (a list without
    // it says nothing about it), its month shown when older than the newest list's.
    if let Some(last) = info.fide.iter().map(|e| e.list_date).max() {
        let r = |k| match info.fide_rating_dated_on(last, k) {
            Some((d, r)) if d < last => format!("{r} ({})", d.format("%Y-%m")),
            other => rating(other.map(|(_, r)| r)),
        };
        ratings.push(Span::styled("FIDE ", theme.style(Role::Header)));
        ratings.push(Span::raw(format!(
            "{}/{}/{} ({})",
            r(FideKind::Standard),
            r(FideKind::Rapid),
            r(FideKind::Blitz),
            last.format("%Y-%m")
        )));
    }
    let titles: Vec<String> = awards
        .iter()
        .map(|a| {
            let confirmed = !rulebook.needs_confirmation(&a.award)
                || book.confirmed[player].iter().any(|c| c.award == a.award);
            let event = a
                .event
                .as_deref()
                .and_then(|id| book.live_event(id).map(|e| &book.events[e]))
                .map(|e| e.title());
            format!(
                "{} {}{}{}",
                rulebook.award_code(&a.award),
                a.date
                    .map(|d| d.to_string())
                    .unwrap_or_else(|| "held".into()),
                event.map(|e| format!(" in {e}")).unwrap_or_default(),
                if confirmed {
                    ""
                } else {
                    " (awaiting confirmation)"
                }
            )
        })
        .collect();
    let selection = app
        .card_selection(player)
        .map(|numbers| doubled(numbers.number_doubled));
    let mut third = vec![
        Span::styled("titles ", theme.style(Role::Header)),
        Span::raw(if titles.is_empty() {
            "–".into()
        } else {
            titles.join(", ")
        }),
    ];
    if let Some(s) = selection {
        third.push(Span::styled("   selection ", theme.style(Role::Header)));
        third.push(Span::raw(s));
    }
    let lines: Vec<Line> = [first, ratings, third]
        .into_iter()
        .map(|spans| {
            Line::from(
                spans
                    .into_iter()
                    .map(|s| Span::styled(theme.text(s.content.into_owned()), s.style))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(block(theme, " Player card ")),
        area,
    );
}

fn draw_games<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    player: usize,
) {
    let book = app.desk.book();
    let lists = app.desk.rulebook().lists();
    let games = app.game_rows(player);
    let columns = vec![
        Column::whole("Date", 13),
        Column::text("Event", 8, 5),
        Column::figure("Rd", 3),
        Column::whole("C", 4),
        Column::text("Opponent", 10, 20),
        Column::figure("Opp", 12),
        Column::figure("Res", 15),
        Column::figure("Exp%", 7),
        Column::figure("±", 10),
        Column::figure("Rating", 11),
        Column::whole("List", 2),
    ];
    let title = format!(
        "{} · newest first · ←→ events",
        count(games.len(), "rated game", "rated games")
    );
    let grid = Grid::new(title, columns, games.len(), app.players.card_row);
    grid.draw(frame, area, theme, |i| {
        let g = &games[i];
        let ev = &book.events[g.event];
        let result = match g.halves {
            2 => "1",
            1 => "½",
            _ => "0",
        };
        let row: Vec<GridCell> = vec![
            cell(g.date.to_string()),
            cell(ev.title().to_string()),
            cell(g.round.to_string()),
            cell(match g.white {
                Some(true) => "w",
                Some(false) => "b",
                None => "",
            }),
            cell(book.players[g.opponent].name.clone()),
            cell(g.opponent_rating.to_string()),
            cell(result),
            cell(g.expected.map(|e| e.to_string()).unwrap_or_default()),
            (
                g.change.map(signed).unwrap_or_default(),
                delta_role(g.change),
            ),
            cell(g.rating_after.to_string()),
            cell(lists[g.list]),
        ];
        row
    });
}

fn draw_events<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    player: usize,
) {
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let mut history = app.history(player);
    history.reverse();
    let columns = vec![
        Column::whole("Date", 13),
        Column::text("Event", 10, 20),
        Column::whole("List", 5),
        Column::figure("Old", 12),
        Column::figure("New", 14),
        Column::figure("±", 13),
        Column::figure("N", 11),
        Column::figure("W", 10),
        Column::figure("We", 8),
        Column::figure("Perf", 7),
    ];
    let title = format!(
        "{} · newest first · ←→ games",
        count(history.len(), "rated event", "rated events")
    );
    let grid = Grid::new(title, columns, history.len(), app.players.card_row);
    grid.draw(frame, area, theme, |i| {
        let r = &history[i];
        let ev = &book.events[r.event];
        let g = &r.rating;
        let delta = g.old.map(|o| g.new - o);
        vec![
            cell(ev.end.to_string()),
            cell(ev.title().to_string()),
            cell(rulebook.lists()[r.list]),
            cell(rating(g.old)),
            cell(g.new.to_string()),
            (delta.map(signed).unwrap_or_default(), delta_role(delta)),
            cell(g.games.to_string()),
            cell(half_points(g.score)),
            cell(expected(g.expected)),
            cell(performance(g.performance)),
        ]
    });
}
