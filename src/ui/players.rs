//! The Players tab: search and the player card.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Sparkline, Table, TableState};

use super::theme::{Role, Theme};
use crate::app::state::{App, Focus};
use crate::json::JsonRules;
use crate::model::FideKind;

use super::draw::{block, doubled, expected, half_points, performance, query_box, rating, signed};

pub(crate) fn draw_players<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    if let Some(player) = app.players.card {
        return draw_card(app, theme, frame, area, player);
    }
    let [search, list] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
    let focused = app.players.focus == Focus::Search;
    query_box(
        frame,
        theme,
        search,
        " Search: name, id or FIDE id ",
        &app.players.query,
        focused,
    );
    let book = app.desk.book();
    let lists = app.desk.rulebook().lists();
    let mut header = vec![Cell::from("Name"), Cell::from("Id"), Cell::from("Fed")];
    header.extend(lists.iter().map(|l| Cell::from(*l)));
    header.push(Cell::from("Titles"));
    let rows: Vec<Row> = app
        .players
        .results
        .iter()
        .map(|&p| {
            let info = &book.players[p];
            let mut cells = vec![
                Cell::from(info.name.clone()),
                Cell::from(info.id.clone()),
                Cell::from(info.federation.clone().unwrap_or_else(|| "FIN".into())),
            ];
            cells.extend(
                app.ratings(p)
                    .into_iter()
                    .map(|(_, s)| Cell::from(rating(app.rating_of(s)))),
            );
            let titles: Vec<&str> = app
                .desk
                .ledger()
                .awards(book, p)
                .iter()
                .map(|a| app.desk.rulebook().award_code(&a.award))
                .collect();
            cells.push(Cell::from(titles.join(" ")));
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Min(24),
        Constraint::Length(10),
        Constraint::Length(4),
    ];
    widths.extend(lists.iter().map(|_| Constraint::Length(6)));
    widths.push(Constraint::Length(8));
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.style(Role::Header)))
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(
            theme,
            format!(" {} players ", app.players.results.len()),
        ));
    let mut state = TableState::default().with_selected(
        (app.players.focus != Focus::Search || !app.players.query.is_empty())
            .then_some(app.players.selected),
    );
    frame.render_stateful_widget(table, list, &mut state);
}

fn draw_card<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    player: usize,
) {
    let book = app.desk.book();
    let info = &book.players[player];
    let rulebook = app.desk.rulebook();
    let history = app.history(player);
    let [head, chart, table] = Layout::vertical([
        Constraint::Length(5),
        Constraint::Length(5),
        Constraint::Min(4),
    ])
    .areas(area);

    let mut ratings = Vec::new();
    for (list, state) in app.ratings(player) {
        ratings.push(Span::styled(
            format!("{} ", rulebook.lists()[list]),
            theme.style(Role::Header),
        ));
        let summary = state.map_or_else(|| "unrated".into(), |s| rulebook.state_summary(list, s));
        ratings.push(Span::raw(format!("{summary}   ")));
    }
    let selection = app
        .card_selection(player)
        .map(|numbers| doubled(numbers.number_doubled));
    let awards = app.desk.ledger().awards(book, player);
    let titles: Vec<String> = awards
        .iter()
        .map(|a| {
            let confirmed = !rulebook.needs_confirmation(&a.award)
                || book.confirmed[player].iter().any(|c| c.award == a.award);
            format!(
                "{} {}{}",
                rulebook.award_code(&a.award),
                a.date.map(|d| d.to_string()).unwrap_or_default(),
                if confirmed {
                    ""
                } else {
                    " (awaiting confirmation)"
                }
            )
        })
        .collect();
    // FIDE: the id, and each tempo's newest rating — from the newest list that has that tempo
    // (a list without it says nothing about it), its month shown when older than the newest
    // list's — with the newest list's month.
    let newest = info.fide.iter().map(|e| e.list_date).max();
    let fide = match (info.fide_id, newest) {
        (None, None) => String::new(),
        (id, newest) => {
            let figures = newest.map(|last| {
                let r = |k| match info.fide_rating_dated_on(last, k) {
                    Some((d, r)) if d < last => format!("{r} ({})", d.format("%Y-%m")),
                    other => rating(other.map(|(_, r)| r)),
                };
                format!(
                    "{}/{}/{} ({})",
                    r(FideKind::Standard),
                    r(FideKind::Rapid),
                    r(FideKind::Blitz),
                    last.format("%Y-%m")
                )
            });
            let parts: Vec<String> = id
                .map(|f| f.to_string())
                .into_iter()
                .chain(figures)
                .collect();
            format!("  FIDE {}", parts.join(": "))
        }
    };
    let lines = vec![
        Line::from(vec![
            Span::styled(info.name.clone(), theme.style(Role::Title)),
            Span::raw(format!(
                "  {}  {}  born {}{fide}",
                info.id,
                info.federation.clone().unwrap_or_else(|| "FIN".into()),
                info.born
                    .map(|d| d.to_string())
                    .unwrap_or_else(|| "–".into())
            )),
        ]),
        Line::from(ratings),
        Line::from(vec![
            Span::styled("titles ", theme.style(Role::Header)),
            Span::raw(if titles.is_empty() {
                "–".into()
            } else {
                titles.join(", ")
            }),
            Span::styled(
                if selection.is_some() {
                    "   selection "
                } else {
                    ""
                },
                theme.style(Role::Header),
            ),
            Span::raw(selection.unwrap_or_default()),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines).block(block(theme, " Player ")), head);

    let points: Vec<u64> = history
        .iter()
        .filter(|r| r.list == 0)
        .flat_map(|r| r.rating.after_game())
        .map(|r| r.max(0) as u64)
        .collect();
    let floor = points.iter().min().copied().unwrap_or(0).saturating_sub(20);
    let data: Vec<u64> = points.iter().map(|p| p - floor).collect();
    let label = match (points.iter().min(), points.iter().max()) {
        (Some(lo), Some(hi)) => format!(" {} over time: {lo}–{hi} ", rulebook.lists()[0]),
        _ => format!(" {}: no games ", rulebook.lists()[0]),
    };
    frame.render_widget(
        Sparkline::default()
            .data(&data)
            .style(theme.style(Role::RatingGain))
            .block(block(theme, label)),
        chart,
    );

    let rows: Vec<Row> = history
        .iter()
        .map(|r| {
            let ev = &book.events[r.event];
            let g = &r.rating;
            let delta = g.old.map(|o| g.new - o);
            let change_role = match delta {
                Some(d) if d > 0 => Role::RatingGain,
                Some(d) if d < 0 => Role::RatingLoss,
                _ => Role::Normal,
            };
            Row::new(vec![
                Cell::from(ev.end.to_string()),
                Cell::from(if ev.name.is_empty() {
                    ev.id.clone()
                } else {
                    ev.name.clone()
                }),
                Cell::from(rulebook.lists()[r.list]),
                Cell::from(format!("{}→{}", rating(g.old), g.new)),
                Cell::from(delta.map(signed).unwrap_or_default()).style(theme.style(change_role)),
                Cell::from(g.games.to_string()),
                Cell::from(half_points(g.score)),
                Cell::from(expected(g.expected)),
                Cell::from(performance(g.performance)),
            ])
        })
        .collect();
    let header = Row::new([
        "Date",
        "Event",
        "List",
        "Old→New",
        "±",
        "N",
        "W",
        "We",
        "Perf",
    ])
    .style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(10),
        Constraint::Min(16),
        Constraint::Length(4),
        Constraint::Length(9),
        Constraint::Length(4),
        Constraint::Length(2),
        Constraint::Length(4),
        Constraint::Length(5),
        Constraint::Length(5),
    ];
    let table_widget = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(theme, format!(" {} rated events ", history.len())));
    let mut state = TableState::default().with_selected(Some(app.players.card_row));
    frame.render_stateful_widget(table_widget, table, &mut state);
}
