//! The Titles tab: holders, players within reach, and the selection lists.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::theme::{Role, Theme};
use crate::app::state::{App, TitlesView};
use crate::json::JsonRules;
use crate::model::Rating;

use super::draw::{block, doubled, rating};

pub(crate) fn draw_titles<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    let [views, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    let mut spans = vec![];
    for view in TitlesView::ALL {
        let role = if view == app.titles.view {
            Role::TabActive
        } else {
            Role::Tab
        };
        let label = match (view, app.titles.as_of) {
            (TitlesView::Selection, Some(d)) => format!(" Selection on {d} "),
            _ => format!(" {} ", view.title()),
        };
        spans.push(Span::styled(label, theme.style(role)));
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), views);
    match app.titles.view {
        TitlesView::Holders => draw_holders(app, theme, frame, body),
        TitlesView::Reach => draw_reach(app, theme, frame, body),
        TitlesView::Selection => draw_selection(app, theme, frame, body),
    }
}

fn draw_holders<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let rows: Vec<Row> = app
        .title_rows()
        .into_iter()
        .map(|(p, a, confirmed)| {
            let status = if confirmed {
                Cell::from("")
            } else {
                Cell::from("awaiting confirmation").style(theme.style(Role::Highlight))
            };
            Row::new(vec![
                Cell::from(rulebook.award_code(&a.award)),
                Cell::from(book.players[p].name.clone()),
                Cell::from(a.date.map(|d| d.to_string()).unwrap_or_default()),
                Cell::from(a.event.clone().unwrap_or_else(|| "held".into())),
                status,
            ])
        })
        .collect();
    let header =
        Row::new(["Title", "Player", "Date", "Event", ""]).style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(5),
        Constraint::Min(20),
        Constraint::Length(10),
        Constraint::Min(12),
        Constraint::Length(21),
    ];
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(theme, " Titles by rank, newest first "));
    let mut state = TableState::default().with_selected(Some(app.titles.selected));
    frame.render_stateful_widget(table, area, &mut state);
}

fn draw_reach<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let rows: Vec<Row> = app
        .reach_rows()
        .into_iter()
        .map(|(p, r)| {
            let short = r.needed_games.saturating_sub(r.games);
            Row::new(vec![
                Cell::from(rulebook.award_code(&r.award)),
                Cell::from(book.players[p].name.clone()),
                Cell::from(r.rating.to_string()),
                Cell::from(format!("{:+}", r.rating - r.needed_rating)),
                Cell::from(format!("{}/{}", r.games, r.needed_games)),
                Cell::from(if short > 0 {
                    format!("{short} games short")
                } else {
                    String::new()
                }),
            ])
        })
        .collect();
    let header = Row::new(["Next", "Player", "Rating", "To go", "Games", ""])
        .style(theme.style(Role::Header));
    let widths = [
        Constraint::Length(5),
        Constraint::Min(20),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(7),
        Constraint::Length(16),
    ];
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(
            theme,
            " Within 50 points of the next title, or games short ",
        ));
    let mut state = TableState::default().with_selected(Some(app.titles.selected));
    frame.render_stateful_widget(table, area, &mut state);
}

fn draw_selection<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let [open, women] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let names: Vec<&str> = app
        .titles
        .selection
        .first()
        .map(|(_, s)| s.factors.iter().map(|(n, _)| *n).collect())
        .unwrap_or_default();
    let run = |r: &Option<crate::rules::RunBounds>| {
        r.map(|((e1, r1), (e2, r2))| {
            format!(
                "{} r{r1} – {} r{r2}",
                book.events[e1].id, book.events[e2].id
            )
        })
        .unwrap_or_default()
    };
    let rows: Vec<Row> = app
        .titles
        .selection
        .iter()
        .enumerate()
        .map(|(i, (p, s))| {
            let mut cells = vec![
                Cell::from((i + 1).to_string()),
                Cell::from(book.players[*p].name.clone()),
                Cell::from(doubled(s.number_doubled)),
            ];
            cells.extend(s.factors.iter().map(|(_, f)| Cell::from(rating(*f))));
            cells.push(Cell::from(run(&s.best_run)));
            Row::new(cells)
        })
        .collect();
    let mut header = vec!["#", "Player", "Number"];
    header.extend(names.iter().copied());
    header.push("Best run");
    let mut widths = vec![
        Constraint::Length(3),
        Constraint::Min(18),
        Constraint::Length(7),
    ];
    widths.extend(
        names
            .iter()
            .map(|n| Constraint::Length(n.chars().count().clamp(6, 18) as u16)),
    );
    widths.push(Constraint::Min(10));
    let table = Table::new(rows, widths.clone())
        .header(Row::new(header).style(theme.style(Role::Header)))
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(theme, " Open selection list "));
    let mut state = TableState::default().with_selected(Some(app.titles.selected));
    frame.render_stateful_widget(table, open, &mut state);

    let mut womens: Vec<(usize, Rating)> = app
        .titles
        .selection
        .iter()
        .filter(|(p, _)| book.players[*p].sex == Some(crate::model::Sex::Female))
        .filter_map(|(p, s)| s.womens.map(|w| (*p, w)))
        .collect();
    womens.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rows: Vec<Row> = womens
        .iter()
        .enumerate()
        .map(|(i, (p, w))| {
            Row::new(vec![
                Cell::from((i + 1).to_string()),
                Cell::from(book.players[*p].name.clone()),
                Cell::from(w.to_string()),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(3),
            Constraint::Min(18),
            Constraint::Length(7),
        ],
    )
    .header(Row::new(["#", "Player", "Number"]).style(theme.style(Role::Header)))
    .block(block(theme, " Women's selection list "));
    frame.render_widget(table, women);
}
