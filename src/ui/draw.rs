//! Drawing: reads the app's state and paints one frame. Every colour comes from the theme's
//! roles and every key shown comes from the keymap in force.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, Clear, Paragraph, Row, Sparkline, Table, TableState, Wrap,
};

use super::keymap::Keymap;
use super::theme::{Role, Theme};
use crate::app::forms::FormState;
use crate::app::state::{
    App, EventView, Focus, PickFor, PickState, Popup, RARE_RESULTS, Tab, TitlesView,
};
use crate::app::{Action, Context};
use crate::json::JsonRules;
use crate::model::Rating;
use crate::rules::Performance;

/// Below this the screen says it is too small instead of cutting things off.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

fn hint(keymap: &Keymap, context: Context, action: Action) -> String {
    keymap
        .key_for(context, action)
        .unwrap_or_else(|| "?".into())
}

fn signed(d: i32) -> String {
    if d == 0 {
        "±0".into()
    } else {
        format!("{d:+}")
    }
}

fn rating(r: Option<Rating>) -> String {
    r.map_or_else(|| "–".into(), |r| r.to_string())
}

fn half_points(h: u32) -> String {
    if h.is_multiple_of(2) {
        (h / 2).to_string()
    } else if h == 1 {
        "½".into()
    } else {
        format!("{}½", h / 2)
    }
}

/// A number kept doubled because it may end in .5 (a selection number).
fn doubled(d: Option<i64>) -> String {
    d.map_or_else(
        || "–".into(),
        |d| {
            if d % 2 == 0 {
                (d / 2).to_string()
            } else {
                format!("{}.5", d / 2)
            }
        },
    )
}

fn performance(p: Performance) -> String {
    match p {
        Performance::Finite(x) => format!("{x:.0}"),
        Performance::PlusInfinity => "+∞".into(),
        Performance::MinusInfinity => "−∞".into(),
    }
}

/// Paints the whole screen.
pub fn render<R: JsonRules>(app: &App<R>, theme: &Theme, keymap: &Keymap, frame: &mut Frame) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "The window is {}×{}: ratedesk needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\nEnlarge it, or press {} to quit.",
            area.width,
            area.height,
            hint(keymap, Context::Global, Action::Quit)
        );
        frame.render_widget(
            Paragraph::new(text)
                .style(theme.style(Role::Error))
                .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_tabs(app, theme, frame, tabs);
    match app.tab {
        Tab::Players => draw_players(app, theme, frame, body),
        Tab::Tournaments => draw_tournaments(app, theme, frame, body),
        Tab::Titles => draw_titles(app, theme, frame, body),
    }
    draw_status(app, theme, keymap, frame, status);
    match &app.popup {
        Some(Popup::Help { scroll }) => draw_help(theme, keymap, frame, *scroll),
        Some(Popup::Confirm { effect, .. }) => draw_confirm(app, theme, keymap, frame, effect),
        Some(Popup::Rare { selected }) => draw_rare(theme, frame, *selected),
        Some(Popup::Form(form)) => draw_form(theme, keymap, frame, form),
        Some(Popup::Pick(pick)) => draw_pick(app, theme, keymap, frame, pick),
        None => {}
    }
}

fn draw_tabs<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut spans = vec![Span::styled(" ratedesk ", theme.style(Role::Title))];
    for (i, tab) in Tab::ALL.iter().enumerate() {
        let role = if *tab == app.tab {
            Role::TabActive
        } else {
            Role::Tab
        };
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!(" {} {} ", i + 1, tab.title()),
            theme.style(role),
        ));
    }
    let counts = format!(
        "{} players · {} events ",
        app.desk
            .status()
            .iter()
            .filter(|s| **s == crate::store::PlayerStatus::Active)
            .count(),
        app.desk.book().live.iter().filter(|l| **l).count()
    );
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let pad = (area.width as usize).saturating_sub(used + counts.chars().count());
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(counts, theme.style(Role::Muted)));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_status<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    area: Rect,
) {
    let context = app.context();
    let line = if !app.pending.is_empty() {
        let mut text = format!("{} …", app.pending.join(" "));
        if let crate::ui::keymap::Lookup::Pending(next) = keymap.lookup(context, &app.pending) {
            for (key, action) in next {
                text.push_str(&format!("  {key} {}", action.description()));
            }
        }
        Line::styled(text, theme.style(Role::Highlight))
    } else if let Some(status) = &app.status {
        Line::styled(
            status.text.clone(),
            theme.style(if status.error {
                Role::Error
            } else {
                Role::Status
            }),
        )
    } else {
        let h = |a| hint(keymap, context, a);
        let text = match (app.tab, context) {
            (Tab::Players, Context::Form) => format!(
                "type to search · {} list · {} open · {} help",
                h(Action::Down),
                h(Action::Open),
                hint(keymap, Context::Global, Action::Help)
            ),
            (_, Context::RoundEntry) => format!(
                "{} 1-0 · {} 0-1 · {} ½-½ · {} +- · {} -+ · {} other · {}/{} board · {}/{} round · {} back",
                h(Action::WhiteWins),
                h(Action::BlackWins),
                h(Action::Draw),
                h(Action::ForfeitWhite),
                h(Action::ForfeitBlack),
                h(Action::RareResults),
                h(Action::PrevBoard),
                h(Action::NextBoard),
                h(Action::PrevRound),
                h(Action::NextRound),
                h(Action::Back)
            ),
            (_, Context::Popup) => match app.popup {
                Some(Popup::Help { .. }) => format!(
                    "{}/{} scroll · any other key closes",
                    h(Action::Up),
                    h(Action::Down)
                ),
                _ => format!(
                    "{} choose · {} cancel",
                    h(Action::Confirm),
                    h(Action::Cancel)
                ),
            },
            (Tab::Tournaments, Context::Form) if app.tournaments.pairing.is_some() => {
                format!(
                    "type start numbers (12 7, or 12 for a bye) · {} pair · {} done",
                    h(Action::Open),
                    h(Action::Back)
                )
            }
            (Tab::Tournaments, Context::Form) => format!(
                "type to filter · {} open · {} help",
                h(Action::Open),
                hint(keymap, Context::Global, Action::Help)
            ),
            _ => format!(
                "{} open · {} back · {} undo · {} help · {} quit",
                h(Action::Open),
                h(Action::Back),
                h(Action::Undo),
                h(Action::Help),
                h(Action::Quit)
            ),
        };
        Line::styled(text, theme.style(Role::Muted))
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn block<'a>(theme: &Theme, title: impl Into<Line<'a>>) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.style(Role::Border))
        .title(title)
        .title_style(theme.style(Role::Title))
}

fn draw_players<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    if let Some(player) = app.players.card {
        return draw_card(app, theme, frame, area, player);
    }
    let [search, list] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
    let cursor = if app.players.focus == Focus::Search {
        "▏"
    } else {
        ""
    };
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!("{}{cursor}", app.players.query),
            theme.style(Role::Input),
        ))
        .block(block(theme, " Search: name, id or FIDE id ")),
        search,
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
    let lines = vec![
        Line::from(vec![
            Span::styled(info.name.clone(), theme.style(Role::Title)),
            Span::raw(format!(
                "  {}  {}  born {}",
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
                Cell::from(
                    g.expected
                        .map(|e| format!("{:.2}", e as f64 / 100.0))
                        .unwrap_or_default(),
                ),
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

fn draw_tournaments<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let book = app.desk.book();
    if let Some(event) = app.tournaments.open {
        return draw_event(app, theme, frame, area, event);
    }
    let [search, list] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!("{}▏", app.tournaments.query),
            theme.style(Role::Input),
        ))
        .block(block(theme, " Filter ")),
        search,
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
                .list_of(ev)
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
        .list_of(ev)
        .map_or("unrated", |l| rulebook.lists()[l]);
    let [head, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    let title = format!(
        " {}  {} – {}  {}  {}",
        if ev.name.is_empty() { &ev.id } else { &ev.name },
        ev.start,
        ev.end,
        list,
        if ev.abroad { "abroad" } else { "" }
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

fn draw_titles<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
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

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn draw_help(theme: &Theme, keymap: &Keymap, frame: &mut Frame, scroll: u16) {
    let area = centered(frame.area(), 64, frame.area().height.saturating_sub(4));
    let mut lines = Vec::new();
    let mut section = "";
    let contexts = [
        Context::Global,
        Context::Table,
        Context::Form,
        Context::RoundEntry,
        Context::Popup,
    ];
    for action in Action::ALL {
        let keys: Vec<String> = contexts
            .iter()
            .filter_map(|c| keymap.bindings().get(c))
            .flat_map(|list| {
                list.iter()
                    .filter(|(_, a)| *a == action)
                    .map(|(k, _)| k.join(" "))
            })
            .fold(Vec::new(), |mut v, k| {
                if !v.contains(&k) {
                    v.push(k);
                }
                v
            });
        if keys.is_empty() {
            continue;
        }
        if action.section() != section {
            section = action.section();
            lines.push(Line::styled(section.to_string(), theme.style(Role::Header)));
        }
        lines.push(Line::from(vec![
            Span::styled(
                format!("  {:<18}", keys.join(", ")),
                theme.style(Role::Highlight),
            ),
            Span::raw(action.description()),
        ]));
    }
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(block(theme, " Keys (from the keymap in force) ")),
        area,
    );
}

fn draw_confirm<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    effect: &crate::app::Effect<R::Award>,
) {
    let book = app.desk.book();
    let rulebook = app.desk.rulebook();
    let mut lines = vec![
        Line::styled(effect.action.clone(), theme.style(Role::Title)),
        Line::raw(""),
    ];
    for c in effect.ratings.iter().take(12) {
        let delta = match (c.before, c.after) {
            (Some(b), Some(a)) => signed(a - b),
            _ => String::new(),
        };
        lines.push(Line::raw(format!(
            "  {:<26} {:<4} {:>5} → {:<5} {delta}",
            book.players[c.player].name,
            rulebook.lists()[c.list],
            rating(c.before),
            rating(c.after)
        )));
    }
    if effect.ratings.len() > 12 {
        lines.push(Line::styled(
            format!("  … and {} more", effect.ratings.len() - 12),
            theme.style(Role::Muted),
        ));
    }
    for a in &effect.gained {
        lines.push(Line::styled(
            format!(
                "  + {} {}",
                rulebook.award_code(&a.award),
                book.players[a.player].name
            ),
            theme.style(Role::RatingGain),
        ));
    }
    for a in &effect.lost {
        lines.push(Line::styled(
            format!(
                "  − {} {} (kept: titles are permanent)",
                rulebook.award_code(&a.award),
                book.players[a.player].name
            ),
            theme.style(Role::RatingLoss),
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!(
            "{} apply · {} cancel",
            hint(keymap, Context::Popup, Action::Confirm),
            hint(keymap, Context::Popup, Action::Cancel)
        ),
        theme.style(Role::Muted),
    ));
    let area = centered(frame.area(), 64, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(block(theme, " This correction changes ")),
        area,
    );
}

fn draw_rare(theme: &Theme, frame: &mut Frame, selected: usize) {
    let rows: Vec<Row> = RARE_RESULTS
        .iter()
        .map(|(label, _)| Row::new([Cell::from(*label)]))
        .collect();
    let area = centered(frame.area(), 36, RARE_RESULTS.len() as u16 + 2);
    let table = Table::new(rows, [Constraint::Min(10)])
        .row_highlight_style(theme.style(Role::Selection))
        .block(block(theme, " Other results "));
    frame.render_widget(Clear, area);
    let mut state = TableState::default().with_selected(Some(selected));
    frame.render_stateful_widget(table, area, &mut state);
}

fn draw_form(theme: &Theme, keymap: &Keymap, frame: &mut Frame, form: &FormState) {
    let mut lines: Vec<Line> = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, (label, value))| {
            let focused = i == form.focus;
            let cursor = if focused { "▏" } else { "" };
            Line::from(vec![
                Span::styled(
                    format!("{label:>32} "),
                    theme.style(if focused {
                        Role::Highlight
                    } else {
                        Role::Muted
                    }),
                ),
                Span::styled(
                    format!("{value}{cursor}"),
                    theme.style(if focused { Role::Input } else { Role::Normal }),
                ),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!(
            "{} next field · {} save · {} cancel",
            hint(keymap, Context::Form, Action::Open),
            hint(keymap, Context::Form, Action::Submit),
            hint(keymap, Context::Form, Action::Back)
        ),
        theme.style(Role::Muted),
    ));
    let area = centered(frame.area(), 72, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(block(theme, format!(" {} ", form.title()))),
        area,
    );
}

fn draw_pick<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    pick: &PickState,
) {
    let book = app.desk.book();
    let title = match pick.purpose {
        PickFor::Participant(e) => format!(" Enter a player in {} ", book.events[e].id),
        PickFor::MergeInto(p) => format!(" Merge which record into {}? ", book.players[p].name),
    };
    let area = centered(frame.area(), 70, frame.area().height.saturating_sub(4));
    let [query, list, help] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!("{}▏", pick.query),
            theme.style(Role::Input),
        ))
        .block(block(theme, title)),
        query,
    );
    let rows: Vec<Row> = pick
        .results
        .iter()
        .map(|&p| {
            let info = &book.players[p];
            let ratings: Vec<String> = app
                .ratings(p)
                .into_iter()
                .map(|(_, s)| rating(app.rating_of(s)))
                .collect();
            Row::new(vec![
                Cell::from(info.name.clone()),
                Cell::from(info.id.clone()),
                Cell::from(ratings.join(" ")),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Min(20),
            Constraint::Length(10),
            Constraint::Length(12),
        ],
    )
    .row_highlight_style(theme.style(Role::Selection))
    .block(block(theme, ""));
    let mut state = TableState::default().with_selected(Some(pick.selected));
    frame.render_stateful_widget(table, list, &mut state);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(
                "type to search · {} choose · {} new player · {} cancel",
                hint(keymap, Context::Form, Action::Open),
                hint(keymap, Context::Form, Action::NewItem),
                hint(keymap, Context::Form, Action::Back)
            ),
            theme.style(Role::Muted),
        )),
        help,
    );
}

fn delta_role(delta: Option<i32>) -> Role {
    match delta {
        Some(d) if d > 0 => Role::RatingGain,
        Some(d) if d < 0 => Role::RatingLoss,
        _ => Role::Normal,
    }
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
            let role = match delta {
                Some(d) if d > 0 => Role::RatingGain,
                Some(d) if d < 0 => Role::RatingLoss,
                _ => Role::Normal,
            };
            Row::new(vec![
                Cell::from((rank + 1).to_string()),
                Cell::from(s.start_number.to_string()),
                Cell::from(book.players[s.player].name.clone()),
                Cell::from(half_points(s.points)),
                Cell::from(rating(r.and_then(|r| r.old))),
                Cell::from(r.map(|r| r.new.to_string()).unwrap_or_default()),
                Cell::from(delta.map(signed).unwrap_or_default()).style(theme.style(role)),
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
            let factors: Vec<String> = r.factors.iter().map(|(k, v)| format!("{k} {v}")).collect();
            Row::new(vec![
                Cell::from(s.start_number.to_string()),
                Cell::from(book.players[s.player].name.clone()),
                Cell::from(rating(r.old)),
                Cell::from(r.new.to_string()),
                Cell::from(delta.map(signed).unwrap_or_default())
                    .style(theme.style(delta_role(delta))),
                Cell::from(r.games.to_string()),
                Cell::from(half_points(r.score)),
                Cell::from(
                    r.expected
                        .map(|e| format!("{:.2}", e as f64 / 100.0))
                        .unwrap_or_default(),
                ),
                Cell::from(performance(r.performance)),
                Cell::from(factors.join(" ")),
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
