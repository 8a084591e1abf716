//! The player card: who he is (id, federation, birth year, FIDE id, titles with the event that
//! gave each), his ratings on every list as the rulebook states them (Finland: selo and pelo;
//! Iceland: the rating with K and games, or the way to an initial rating; Turkey: three UKD,
//! or the archive toward a first one) with a chart of each, and his rated games — or rated
//! events — newest first, scrolling. The head's items are whole or not shown: they wrap to
//! the next line rather than being cut.

use chrono::Datelike;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::chart::draw_chart;
use super::grid::{Column, Grid, GridCell, cell};
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::workstation::period::hundredths;
use crate::app::workstation::state::{App, CardView, GameChange, count};
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
    let lines = head_lines(app, theme, player, area.width.saturating_sub(2));
    // The head takes what it needs, up to a third of the card.
    let head_height = (lines.len() as u16 + 2).min((area.height / 3).max(5));
    let chart_height = ((area.height.saturating_sub(head_height)) / 3).clamp(6, 12);
    let [head, charts, table] = Layout::vertical([
        Constraint::Length(head_height),
        Constraint::Length(chart_height),
        Constraint::Min(4),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(lines).block(block(theme, " Player card ")),
        head,
    );
    let parts = Layout::horizontal(vec![Constraint::Ratio(1, lists.len() as u32); lists.len()])
        .split(charts);
    for (list, part) in parts.iter().enumerate() {
        let points = app.rating_points(player, list);
        draw_chart(frame, *part, theme, lists[list], &points);
    }
    match app.players.card_view {
        CardView::Games => draw_games(app, theme, frame, table, player),
        CardView::Events => draw_events(app, theme, frame, table, player),
        CardView::Lists => draw_lists(app, theme, frame, table, player),
    }
}

/// The head's lines in `width` cells: who he is, then his lists (and FIDE), then titles and
/// selection (a rulebook with titles) and the archive of a player on his way to a first rating.
fn head_lines<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    player: usize,
    width: u16,
) -> Vec<Line<'static>> {
    let book = app.desk.book();
    let info = &book.players[player];
    let rulebook = app.desk.rulebook();
    let awards = app.desk.ledger().awards(book, player);
    let codes: Vec<&str> = awards
        .iter()
        .map(|a| rulebook.award_code(&a.award))
        .collect();
    let mut first = vec![
        Span::styled(app.name(player).into_owned(), theme.style(Role::Title)),
        Span::raw(format!(
            "  {}  {}",
            info.id,
            info.federation
                .clone()
                .unwrap_or_else(|| rulebook.home_federation().into())
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
        if used + club.width() <= usize::from(width) {
            first.push(club);
        }
    }
    let on = app.as_of();
    let mut ratings: Vec<Item> = Vec::new();
    let mut archives: Vec<Item> = Vec::new();
    // His place on each list in force today (the lists view has the lists before).
    let places = app.list_places(player);
    let today = app.places_date();
    for (list, state) in app.ratings(player) {
        let state = state.as_deref();
        let name = rulebook.lists()[list];
        ratings.push(vec![
            Span::styled(format!("{name} "), theme.style(Role::Header)),
            Span::raw(rulebook.card_summary(list, state, info, on)),
        ]);
        let progress = state.and_then(|s| rulebook.progress(list, s));
        if let Some(p) = progress.filter(|p| !p.archive.is_empty()) {
            let performances: Vec<String> = p
                .archive
                .iter()
                .map(|(perf, games, event)| {
                    // The event by its title while it is in the book, else by its id.
                    let title = event
                        .as_deref()
                        .map(|id| book.live_event(id).map_or(id, |e| book.events[e].title()));
                    match title {
                        Some(t) => format!("{perf} ({games} in {t})"),
                        None => format!("{perf} ({games})"),
                    }
                })
                .collect();
            archives.push(vec![
                Span::styled(format!("{name} archive "), theme.style(Role::Header)),
                Span::raw(performances.join(", ")),
            ]);
        }
    }
    // FIDE's titles first, from the newest list or TRF that gave them.
    let titles = app
        .fide_title(player)
        .map(|t| format!("{} ", t.codes()))
        .filter(|t| t.len() > 1)
        .unwrap_or_default();
    // Each tempo's newest FIDE rating, from the newest list that has that tempo (a list without
    // it says nothing about it), its month shown when older than the newest list's.
    let last = info.fide.iter().map(|e| e.list_date).max();
    if let Some(last) = last {
        let r = |k| match info.fide_rating_dated_on(last, k) {
            Some((d, r)) if d < last => format!("{r} ({})", d.format("%Y-%m")),
            other => rating(other.map(|(_, r)| r)),
        };
        ratings.push(vec![
            Span::styled("FIDE ", theme.style(Role::Header)),
            Span::raw(format!(
                "{titles}{}/{}/{} ({})",
                r(FideKind::Standard),
                r(FideKind::Rapid),
                r(FideKind::Blitz),
                last.format("%Y-%m")
            )),
        ]);
    } else if !titles.is_empty() {
        ratings.push(vec![
            Span::styled("FIDE ", theme.style(Role::Header)),
            Span::raw(titles.trim_end().to_string()),
        ]);
    }
    // A player (re-)entered by the officer on a rating from elsewhere (ISL: back from a long
    // stay abroad, or a foreigner on a national rating) says when and on what; a foreign player
    // who entered the list on his FIDE or national rating held says where.
    if let Some(last) = info.reentries.last() {
        let before = match info.reentries.len() - 1 {
            0 => String::new(),
            n => format!(" ({n} before)"),
        };
        let word = if info.plays_for(rulebook.home_federation()) {
            "re-entered "
        } else {
            "entered "
        };
        ratings.push(vec![
            Span::styled(word, theme.style(Role::Header)),
            Span::raw(format!(
                "{} on {} {}{before}",
                last.date,
                last.on.label(),
                last.rating
            )),
        ]);
    } else if let Some(row) = app
        .history(player)
        .into_iter()
        .find(|r| r.entered.is_some())
    {
        let how = row.entered.unwrap_or_default();
        let rated = row.rating.old.map(|r| format!(" {r}")).unwrap_or_default();
        ratings.push(vec![
            Span::styled("entered ", theme.style(Role::Header)),
            Span::raw(format!(
                "on{rated}, {how}, in {}",
                book.events[row.event].title()
            )),
        ]);
    }
    let mut third: Vec<Item> = Vec::new();
    let today: Vec<String> = places
        .iter()
        .filter(|p| Some(p.date) == today)
        .map(|p| format!("{} {}/{}", rulebook.lists()[p.list], p.place, p.of))
        .collect();
    if !today.is_empty() {
        third.push(vec![
            Span::styled("place ", theme.style(Role::Header)),
            Span::raw(today.join(" · ")),
        ]);
    }
    if rulebook.awards_titles() {
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
        third.push(vec![
            Span::styled("titles ", theme.style(Role::Header)),
            Span::raw(if titles.is_empty() {
                "–".into()
            } else {
                titles.join(", ")
            }),
        ]);
    }
    if let Some(numbers) = app.card_selection(player) {
        third.push(vec![
            Span::styled("selection ", theme.style(Role::Header)),
            Span::raw(doubled(numbers.number_doubled)),
        ]);
    }
    let mut lines = vec![styled_line(theme, first)];
    for items in [ratings, third, archives] {
        lines.extend(pack(theme, items, usize::from(width)));
    }
    lines
}

/// One item of the card's head: a label and its figures, shown whole or not at all.
type Item = Vec<Span<'static>>;

/// A line of spans with the theme's text (ASCII where the terminal needs it).
fn styled_line(theme: &Theme, spans: Vec<Span<'static>>) -> Line<'static> {
    Line::from(
        spans
            .into_iter()
            .map(|s| Span::styled(theme.text(s.content.into_owned()), s.style))
            .collect::<Vec<_>>(),
    )
}

/// Items laid out on lines of `width` cells, three spaces apart: an item that does not fit
/// on a line starts the next one, so none is cut in the middle of a figure. An item wider
/// than a whole line is shortened at its last whole word that fits, with an ellipsis.
fn pack(theme: &Theme, items: Vec<Item>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthStr;
    const GAP: &str = "   ";
    let mut lines = Vec::new();
    let mut line: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for item in items {
        let item = shorten(theme, item, width);
        let w: usize = item.iter().map(|s| s.content.width()).sum();
        if !line.is_empty() && used + GAP.len() + w > width {
            lines.push(styled_line(theme, std::mem::take(&mut line)));
            used = 0;
        }
        if !line.is_empty() {
            line.push(Span::raw(GAP));
            used += GAP.len();
        }
        line.extend(item);
        used += w;
    }
    if !line.is_empty() {
        lines.push(styled_line(theme, line));
    }
    lines
}

/// An item cut to `width` at a word boundary, with an ellipsis (a figure is never split).
fn shorten(theme: &Theme, item: Item, width: usize) -> Item {
    use unicode_width::UnicodeWidthStr;
    let total: usize = item.iter().map(|s| s.content.width()).sum();
    if total <= width {
        return item;
    }
    let ellipsis = theme.ellipsis();
    let room = width.saturating_sub(ellipsis.width());
    let mut out = Vec::new();
    let mut used = 0;
    for span in item {
        let text = span.content.to_string();
        if used + text.width() <= room {
            used += text.width();
            out.push(span);
            continue;
        }
        let mut kept = String::new();
        for word in text.split_inclusive(' ') {
            if used + kept.width() + word.trim_end().width() > room {
                break;
            }
            kept.push_str(word);
        }
        out.push(Span::styled(
            format!("{}{ellipsis}", kept.trim_end()),
            span.style,
        ));
        break;
    }
    out
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
            cell(app.name(g.opponent).into_owned()),
            cell(g.opponent_rating.to_string()),
            cell(result),
            cell(g.expected.map(|e| e.to_string()).unwrap_or_default()),
            match g.change {
                Some(GameChange::Points(d)) => (signed(d), delta_role(Some(d))),
                Some(GameChange::Exact(c)) => (hundredths(c), delta_role(Some(c.signum() as i32))),
                None => cell(""),
            },
            cell(if g.rating_shown {
                g.rating_after.to_string()
            } else {
                String::new()
            }),
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
    let by_period = rulebook.by_period();
    let mut history = app.history(player);
    history.reverse();
    let mut columns = vec![
        Column::whole("Date", 13),
        Column::text("Event", 10, 20),
        Column::whole("List", 5),
    ];
    if by_period {
        // The period's list publishes the new rating: each row carries its exact change.
        columns.extend([
            Column::whole("Period", 15),
            Column::figure("Old", 12),
            Column::figure("±", 14),
        ]);
    } else {
        columns.extend([
            Column::figure("Old", 12),
            Column::figure("New", 14),
            Column::figure("±", 13),
        ]);
    }
    columns.extend([
        Column::figure("N", 11),
        Column::figure("W", 10),
        Column::figure("We", 8),
        Column::figure("Perf", 7),
    ]);
    let title = format!(
        "{} · newest first · ←→ lists",
        count(history.len(), "rated event", "rated events")
    );
    let grid = Grid::new(title, columns, history.len(), app.players.card_row);
    grid.draw(frame, area, theme, |i| {
        let r = &history[i];
        let ev = &book.events[r.event];
        let g = &r.rating;
        let mut cells = vec![
            cell(ev.end.to_string()),
            cell(ev.title().to_string()),
            cell(rulebook.lists()[r.list]),
        ];
        if by_period {
            cells.extend([
                cell(
                    r.period
                        .map(|p| p.published.to_string())
                        .unwrap_or_default(),
                ),
                cell(rating(g.old)),
                match r.change {
                    Some(c) => (hundredths(c), delta_role(Some(c.signum() as i32))),
                    None => cell(""),
                },
            ]);
        } else {
            let delta = g.old.map(|o| g.new - o);
            cells.extend([
                cell(rating(g.old)),
                cell(g.new.to_string()),
                (delta.map(signed).unwrap_or_default(), delta_role(delta)),
            ]);
        }
        cells.extend([
            cell(g.games.to_string()),
            cell(half_points(g.score)),
            cell(expected(g.expected)),
            cell(performance(g.performance())),
        ]);
        cells
    });
}

/// His place and rating on each national list of the newest list dates, a row per date.
fn draw_lists<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    player: usize,
) {
    let rulebook = app.desk.rulebook();
    let places = app.list_places(player);
    let dates = app.place_dates(player);
    let mut columns = vec![Column::whole("List of", 13)];
    for name in rulebook.lists() {
        columns.push(Column::figure(*name, 12));
        columns.push(Column::figure("place", 11));
    }
    let title = format!(
        "{} · newest first · ←→ games",
        count(
            dates.len(),
            "national list with a place",
            "national lists with a place"
        )
    );
    let grid = Grid::new(title, columns, dates.len(), app.players.card_row);
    grid.draw(frame, area, theme, |i| {
        let date = dates[i];
        let mut cells = vec![cell(date.to_string())];
        for list in 0..rulebook.lists().len() {
            match places.iter().find(|p| p.date == date && p.list == list) {
                Some(p) => cells.extend([
                    cell(p.rating.to_string()),
                    cell(format!("{}/{}", p.place, p.of)),
                ]),
                None => cells.extend([cell("–"), cell("")]),
            }
        }
        cells
    });
}
