//! The Players tab: the search box with its list (only the rows in view are drawn).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};

use super::grid::{Column, Grid, cell};
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::state::{App, Focus, count};

use super::draw::{birth_year, club, club_column, query_box, rating};

pub(crate) fn draw_players<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    if let Some(player) = app.players.card {
        return super::card::draw_card(app, theme, frame, area, player);
    }
    let [search, list] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
    query_box(
        frame,
        theme,
        search,
        " Search: name (either order), id or FIDE id ",
        &app.players.query,
        app.players.focus == Focus::Search,
        app.players.fresh,
    );
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let lists = rulebook.lists();
    let mut columns = vec![
        Column::text("Name", 14, 20),
        Column::figure("Born", 6),
        club_column(),
        Column::whole("Id", 12),
        Column::whole("Fed", 5),
    ];
    columns.extend(
        lists
            .iter()
            .enumerate()
            .map(|(i, l)| Column::figure(*l, 14u8.saturating_sub(i as u8))),
    );
    columns.push(Column::whole("Titles", 4));
    let results = &app.players.results;
    let title = if app.players.query.trim().is_empty() {
        count(results.len(), "player", "players")
    } else {
        format!("{} found", count(results.len(), "player", "players"))
    };
    let grid = Grid::new(title, columns, results.len(), app.players.selected);
    grid.draw(frame, list, theme, |i| {
        let p = results[i];
        let info = &book.players[p];
        let mut cells = vec![
            cell(info.name.clone()),
            cell(birth_year(info)),
            cell(club(info)),
            cell(info.id.clone()),
            cell(
                info.federation
                    .clone()
                    .unwrap_or_else(|| rulebook.home_federation().into()),
            ),
        ];
        cells.extend(
            app.ratings(p)
                .into_iter()
                .map(|(_, s)| cell(rating(app.rating_of(s)))),
        );
        let titles: Vec<&str> = app
            .desk
            .ledger()
            .awards(book, p)
            .iter()
            .map(|a| rulebook.award_code(&a.award))
            .collect();
        cells.push((titles.join(" "), Role::Normal));
        cells
    });
}
