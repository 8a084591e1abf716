//! The Players tab: the search box with its list (only the rows in view are drawn).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};

use super::grid::{Column, Grid, cell};
use super::theme::Theme;
use crate::app::Federation;
use crate::app::workstation::state::{App, Focus, count};

use super::draw::{club_column, query_box};

pub(crate) fn draw_players<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    if let Some(player) = app.players.card {
        return super::card::draw_card(app, theme, frame, area, player);
    }
    let results = &app.players.results;
    let list = List {
        query: &app.players.query,
        typing: app.players.focus == Focus::Search,
        fresh: app.players.fresh,
        lists: app.desk.rulebook().lists(),
        len: results.len(),
        selected: app.players.selected,
    };
    list.draw(frame, theme, area, |i| app.list_row(results[i]));
}

/// The title of the players' search box.
pub(crate) const SEARCH_TITLE: &str = " Search: name (either order), id or FIDE id ";

/// The search box and the list of players under it, whose rows come from the caller (the
/// app's players, or the front page while the database opens).
pub(crate) struct List<'a> {
    pub query: &'a str,
    /// The search box has the focus.
    pub typing: bool,
    /// The query was typed since the box was entered (its next letter replaces it).
    pub fresh: bool,
    /// The rating lists, a column each.
    pub lists: &'a [&'static str],
    pub len: usize,
    pub selected: usize,
}

impl List<'_> {
    pub fn draw(
        &self,
        frame: &mut Frame,
        theme: &Theme,
        area: Rect,
        row: impl Fn(usize) -> Vec<String>,
    ) {
        let [search, list] =
            Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
        query_box(
            frame,
            theme,
            search,
            SEARCH_TITLE,
            self.query,
            self.typing,
            self.fresh,
        );
        let mut columns = vec![
            Column::text("Name", 14, 20),
            Column::figure("Born", 6),
            club_column(),
            Column::whole("Id", 12),
            Column::whole("Fed", 5),
        ];
        columns.extend(
            self.lists
                .iter()
                .enumerate()
                .map(|(i, l)| Column::figure(*l, 14u8.saturating_sub(i as u8))),
        );
        columns.push(Column::whole("Titles", 4));
        let title = if self.query.trim().is_empty() {
            count(self.len, "player", "players")
        } else {
            format!("{} found", count(self.len, "player", "players"))
        };
        let grid = Grid::new(title, columns, self.len, self.selected);
        grid.draw(frame, list, theme, |i| {
            row(i).into_iter().map(cell).collect()
        });
    }
}
