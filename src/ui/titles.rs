//! The third tab, as the rulebook names it: for Finland, title holders with the event of each
//! title, players within reach, and the open and women's selection lists of players who can
//! represent Finland, on a chosen date; for Iceland, the 2400 mark and the way to an initial
//! rating; for Turkey, the way to a first UKD and the k bands' edges.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::grid::{Column, Grid, cell};
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::workstation::state::{App, TitlesView, count};

use super::draw::{birth_year, doubled, half_points, rating};

pub(crate) fn draw_titles<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    let [views, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    let mut spans = vec![];
    let rulebook = app.desk.rulebook();
    let shown = app.titles_view();
    // With a filter the line names the view shown and the filter (a narrow window keeps both).
    let filtered = app.titles.filtering || !app.titles.filter.is_empty();
    for &view in rulebook
        .views()
        .iter()
        .filter(|&&v| !filtered || v == shown)
    {
        let role = if view == shown {
            Role::TabActive
        } else {
            Role::Tab
        };
        spans.push(Span::styled(
            format!(" {} ", rulebook.view_title(view)),
            theme.style(role),
        ));
        spans.push(Span::raw(" "));
    }
    if let Some(d) = app.titles.as_of.filter(|_| !filtered) {
        spans.push(Span::styled(
            format!("lists on {}", d.format("%-d.%-m.%Y")),
            theme.style(Role::Muted),
        ));
    }
    if filtered {
        let cursor = if app.titles.filtering {
            theme.cursor()
        } else {
            ""
        };
        spans.push(Span::styled(
            format!("  filter: {}{cursor}", app.titles.filter),
            theme.style(if app.titles.filtering {
                Role::Highlight
            } else {
                Role::Muted
            }),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), views);
    match shown {
        TitlesView::Holders => draw_holders(app, theme, frame, body),
        TitlesView::Reach => draw_reach(app, theme, frame, body),
        TitlesView::Selection => draw_selection(app, theme, frame, body),
        TitlesView::Women => draw_women(app, theme, frame, body),
        TitlesView::Mark => draw_mark(app, theme, frame, body),
        TitlesView::FirstRating => draw_first_rating(app, theme, frame, body),
        TitlesView::Bands => draw_bands(app, theme, frame, body),
    }
}

/// A selection list's title, or while the lists are worked out (between keys) how far it is.
fn selection_title<R: Federation>(app: &App<R>, list: &str, rows: usize) -> String {
    match app.selection_under_way() {
        Some((done, players)) => {
            format!("Working out the selection lists: {done} of {players} players…")
        }
        None => format!(
            "{list} · {} who can represent {}",
            count(rows, "player", "players"),
            app.desk.rulebook().country()
        ),
    }
}

/// The list's name, shown only when the rulebook has several.
fn list_name<R: Federation>(app: &App<R>, list: usize) -> &'static str {
    let lists = app.desk.rulebook().lists();
    if lists.len() > 1 { lists[list] } else { "" }
}

fn draw_mark<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rows = app.mark_rows();
    let mark = rows.first().map_or(2400, |r| r.standing.mark);
    let columns = vec![
        Column::figure("#", 16),
        Column::text("Player", 12, 20),
        Column::figure("Born", 6),
        Column::figure("Rating", 18),
        Column::figure("Points to go", 14),
        Column::figure("K", 17),
        Column::whole("", 8),
    ];
    let reached = rows.iter().filter(|r| r.standing.reached).count();
    let title = format!(
        "{reached} reached {mark} · {} within {} of it · {}",
        count(rows.len() - reached, "player", "players"),
        crate::app::workstation::state::NEAR_MARK,
        app.desk.rulebook().view_note(TitlesView::Mark)
    );
    let shown = app.titles_shown(rows.iter().map(|r| r.player));
    let grid = Grid::new(title, columns, shown.len(), app.titles.selected);
    grid.draw(frame, area, theme, |row| {
        let i = shown[row];
        let r = &rows[i];
        let info = &book.players[r.player];
        let s = r.standing;
        vec![
            cell((i + 1).to_string()),
            cell(app.name(r.player).into_owned()),
            cell(birth_year(info)),
            cell(s.rating.to_string()),
            // Points to go only for those who have not reached it.
            cell(if s.reached || s.rating >= s.mark {
                String::new()
            } else {
                (s.mark - s.rating).to_string()
            }),
            cell(r.factor.map(|k| k.to_string()).unwrap_or_default()),
            if s.reached {
                ("reached".into(), Role::Highlight)
            } else {
                cell("")
            },
        ]
    });
}

fn draw_first_rating<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rows = app.first_rating_rows();
    let points = rows.iter().any(|r| r.progress.score.is_some());
    let archive = rows.iter().any(|r| !r.progress.archive.is_empty());
    let mut columns = vec![
        Column::text("Player", 12, 20),
        Column::figure("Born", 6),
        Column::whole("List", 12),
        Column::figure("Games", 18),
    ];
    if points {
        columns.push(Column::figure("Points", 17));
    }
    columns.push(Column::figure("Gives", 15));
    if archive {
        columns.push(Column::whole("Performances", 4));
    }
    let title = format!(
        "{} on the way · {}",
        count(rows.len(), "player", "players"),
        app.desk.rulebook().view_note(TitlesView::FirstRating)
    );
    let shown = app.titles_shown(rows.iter().map(|r| r.player));
    let grid = Grid::new(title, columns, shown.len(), app.titles.selected);
    grid.draw(frame, area, theme, |row| {
        let i = shown[row];
        let r = &rows[i];
        let p = &r.progress;
        let info = &book.players[r.player];
        let mut cells = vec![
            cell(app.name(r.player).into_owned()),
            cell(birth_year(info)),
            cell(list_name(app, r.list)),
            cell(format!("{}/{}", p.games, p.needed_games)),
        ];
        if points {
            cells.push(cell(
                p.score.map_or(String::new(), |(have, _)| half_points(have)),
            ));
        }
        cells.push(cell(p.rating.map(|r| r.to_string()).unwrap_or_default()));
        if archive {
            let perfs: Vec<String> = p
                .archive
                .iter()
                .map(|(perf, games, _)| format!("{perf}×{games}"))
                .collect();
            cells.push(cell(perfs.join(" ")));
        }
        cells
    });
}

fn draw_bands<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rows = app.band_rows();
    let columns = vec![
        Column::text("Player", 12, 20),
        Column::figure("Born", 6),
        Column::whole("List", 16),
        Column::figure("UKD", 18),
        Column::figure("k", 17),
        Column::figure("Edge", 15),
        Column::figure("From edge", 14),
        Column::figure("k across", 13),
    ];
    let title = format!(
        "{} within {} of a band edge · {}",
        count(rows.len(), "rating", "ratings"),
        crate::app::workstation::state::NEAR_EDGE,
        app.desk.rulebook().view_note(TitlesView::Bands)
    );
    let shown = app.titles_shown(rows.iter().map(|r| r.player));
    let grid = Grid::new(title, columns, shown.len(), app.titles.selected);
    grid.draw(frame, area, theme, |row| {
        let i = shown[row];
        let r = &rows[i];
        let info = &book.players[r.player];
        let from_edge = r.rating - r.edge;
        vec![
            cell(app.name(r.player).into_owned()),
            cell(birth_year(info)),
            cell(list_name(app, r.list)),
            cell(r.rating.to_string()),
            cell(r.factor.to_string()),
            cell(r.edge.to_string()),
            cell(if from_edge > 0 {
                format!("+{from_edge}")
            } else {
                from_edge.to_string()
            }),
            cell(r.across.to_string()),
        ]
    });
}

fn draw_holders<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let rows = app.title_rows();
    let columns = vec![
        Column::whole("Title", 15),
        Column::text("Player", 12, 20),
        Column::figure("Born", 5),
        Column::whole("Date", 12),
        Column::text("Event", 8, 10),
        Column::whole("", 14),
    ];
    let title = format!(
        "{}, highest first, newest first",
        count(rows.len(), "title", "titles")
    );
    let shown = app.titles_shown(rows.iter().map(|r| r.0));
    let grid = Grid::new(title, columns, shown.len(), app.titles.selected);
    grid.draw(frame, area, theme, |row| {
        let (p, a, confirmed) = &rows[shown[row]];
        let event = a.event.as_deref().map_or_else(
            || "held".to_string(),
            |id| {
                book.live_event(id)
                    .map(|e| &book.events[e])
                    .filter(|e| !e.name.is_empty())
                    .map_or_else(|| id.to_string(), |e| e.name.clone())
            },
        );
        vec![
            cell(rulebook.award_code(&a.award)),
            cell(app.name(*p).into_owned()),
            cell(birth_year(&book.players[*p])),
            cell(a.date.map(|d| d.to_string()).unwrap_or_default()),
            cell(event),
            if *confirmed {
                cell("")
            } else {
                ("awaiting confirmation".into(), Role::Highlight)
            },
        ]
    });
}

fn draw_reach<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let rows = app.reach_rows();
    let columns = vec![
        Column::whole("Next", 15),
        Column::text("Player", 12, 20),
        Column::figure("Born", 5),
        Column::figure("Rating", 14),
        Column::figure("To go", 13),
        Column::figure("Games", 12),
        Column::whole("", 6),
    ];
    let shown = app.titles_shown(rows.iter().map(|r| r.0));
    let grid = Grid::new(
        "Within 50 points of the next title, or games short",
        columns,
        shown.len(),
        app.titles.selected,
    );
    grid.draw(frame, area, theme, |row| {
        let (p, r) = &rows[shown[row]];
        let short = r.needed_games.saturating_sub(r.games);
        vec![
            cell(rulebook.award_code(&r.award)),
            cell(app.name(*p).into_owned()),
            cell(birth_year(&book.players[*p])),
            cell(r.rating.to_string()),
            cell(format!("{:+}", r.rating - r.needed_rating)),
            cell(format!("{}/{}", r.games, r.needed_games)),
            cell(if short > 0 {
                format!("{short} games short")
            } else {
                String::new()
            }),
        ]
    });
}

fn draw_selection<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rows = &app.titles.selection;
    let names: Vec<&str> = rows
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
    let mut columns = vec![
        Column::figure("#", 16),
        Column::text("Player", 12, 20),
        Column::figure("Born", 6),
        Column::figure("Number", 18),
    ];
    columns.extend(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| Column::figure(*n, 14u8.saturating_sub(i as u8))),
    );
    columns.push(Column::whole("Best run", 2));
    let title = selection_title(app, "Open selection list", rows.len());
    let shown = app.titles_shown(rows.iter().map(|r| r.0));
    let grid = Grid::new(title, columns, shown.len(), app.titles.selected);
    grid.draw(frame, area, theme, |row| {
        let i = shown[row];
        let (p, s) = &rows[i];
        let mut cells = vec![
            cell((i + 1).to_string()),
            cell(app.name(*p).into_owned()),
            cell(birth_year(&book.players[*p])),
            cell(doubled(s.number_doubled)),
        ];
        cells.extend(s.factors.iter().map(|(_, f)| cell(rating(*f))));
        cells.push(cell(run(&s.best_run)));
        cells
    });
}

fn draw_women<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    let rows = &app.titles.women;
    let columns = vec![
        Column::figure("#", 16),
        Column::text("Player", 12, 20),
        Column::figure("Born", 6),
        Column::figure("Number", 18),
    ];
    let title = selection_title(app, "Women's selection list", rows.len());
    let shown = app.titles_shown(rows.iter().map(|r| r.0));
    let grid = Grid::new(title, columns, shown.len(), app.titles.selected);
    grid.draw(frame, area, theme, |row| {
        let i = shown[row];
        let (p, w) = &rows[i];
        vec![
            cell((i + 1).to_string()),
            cell(app.name(*p).into_owned()),
            cell(birth_year(&book.players[*p])),
            cell(w.to_string()),
        ]
    });
}
