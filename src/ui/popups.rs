//! Popups: help, the correction preview, rare results, forms and the player picker.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Clear, Paragraph, Row, Table, TableState, Wrap};

use super::grid::{Column, Grid, cell};
use crate::app::workstation::state::{Plan, count};

use super::keymap::Keymap;
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::workstation::action::{Action, Context};
use crate::app::workstation::forms::FormState;
use crate::app::workstation::state::{App, PickFor, PickState, RARE_RESULTS};

use super::draw::{
    birth_year, block, centered, club, club_column, field_tail, hint, name_born_club, query_box,
    rating, signed,
};

/// The keys of one context table, in file order, each once.
fn context_lines<'a>(
    theme: &Theme,
    keymap: &Keymap,
    context: Context,
    offered: impl Fn(Action) -> bool,
) -> Vec<Line<'a>> {
    let mut actions: Vec<(Action, Vec<String>)> = Vec::new();
    for (keys, action) in keymap.bindings().get(&context).into_iter().flatten() {
        if !offered(*action) {
            continue;
        }
        let key = keys.join(" ");
        match actions.iter_mut().find(|(a, _)| a == action) {
            Some((_, k)) => k.push(key),
            None => actions.push((*action, vec![key])),
        }
    }
    actions
        .into_iter()
        .map(|(action, keys)| {
            Line::from(vec![
                Span::styled(
                    format!("  {:<18}", keys.join(", ")),
                    theme.style(Role::Highlight),
                ),
                Span::raw(action.description()),
            ])
        })
        .collect()
}

/// The help: the keys of the screen in front of the officer first, then every key by section.
pub(crate) fn draw_help<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    scroll: u16,
) {
    let area = centered(frame.area(), 72, frame.area().height.saturating_sub(2));
    let here = app.screen_context();
    // A rulebook without titles has no title to confirm.
    let titles = app.desk.rulebook().awards_titles();
    let offered = |a: Action| titles || a != Action::ConfirmTitle;
    let screen = match (here, app.tab) {
        (Context::RoundEntry, _)
            if app.tournaments.pane == crate::app::workstation::state::Pane::Table =>
        {
            "an open event, its table in focus"
        }
        (Context::RoundEntry, _) => "an open event (round entry)",
        (Context::Form, crate::app::workstation::state::Tab::Players) => "the player search",
        (Context::Form, crate::app::workstation::state::Tab::Titles) => {
            &format!("the filter of the {} tab", app.desk.rulebook().third_tab())
        }
        (Context::Form, _) => "the event list",
        (_, crate::app::workstation::state::Tab::Titles) => {
            &format!("the {} tab", app.desk.rulebook().third_tab())
        }
        _ => "the player card",
    };
    let mut lines = vec![Line::styled(
        format!("On this screen — {screen}"),
        theme.style(Role::Header),
    )];
    lines.extend(context_lines(theme, keymap, here, |a| {
        offered(a) && app.acts_here(a)
    }));
    lines.push(Line::styled("Everywhere", theme.style(Role::Header)));
    lines.extend(context_lines(theme, keymap, Context::Global, offered));
    lines.push(Line::raw(""));
    lines.push(Line::styled("All keys", theme.style(Role::Title)));
    let contexts = [
        Context::Global,
        Context::Table,
        Context::Form,
        Context::RoundEntry,
        Context::Popup,
    ];
    // Each section once, in the order sections first come in the list of actions.
    let mut sections: Vec<&str> = Vec::new();
    for &action in Action::ALL {
        if !sections.contains(&action.section()) {
            sections.push(action.section());
        }
    }
    for section in sections {
        let mut header = Some(section);
        for action in Action::ALL
            .iter()
            .copied()
            .filter(|&a| offered(a) && a.section() == section)
        {
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
            if let Some(section) = header.take() {
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
    }
    let visible = area.height.saturating_sub(2);
    let total = lines.len() as u16;
    let scroll = scroll.min(total.saturating_sub(visible));
    let title = format!(
        " Keys (from the keymap in force) · {} ",
        super::grid::position(usize::from(scroll), usize::from(total))
    );
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(block(theme, title)),
        area,
    );
}

/// An edit before it is made: what it changes, then every rating it moves (the edit's own
/// players first, then the largest moves) in a list that scrolls, with the count; titles gained
/// and kept; the keys.
pub(crate) fn draw_confirm<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    preview: &crate::app::workstation::confirming::Preview<R>,
) {
    let rulebook = app.desk.rulebook();
    let effect = &preview.effect;
    let width = frame.area().width.saturating_sub(4).min(76);
    let inner = width.saturating_sub(2);
    let mut head = vec![Line::styled(
        super::grid::cut(&effect.action, inner, theme.ellipsis()),
        theme.style(Role::Title),
    )];
    for line in &preview.what {
        head.push(Line::raw(super::grid::cut(line, inner, theme.ellipsis())));
    }
    let moved = effect.ratings.len();
    if moved > 0 {
        let order = if preview.own > 0 {
            "the edit's own players first, then the largest moves"
        } else {
            "the largest moves first"
        };
        head.push(Line::styled(
            format!("{} — {order}", count(moved, "rating moves", "ratings move")),
            theme.style(Role::Header),
        ));
    }
    let mut tail: Vec<Line> = Vec::new();
    for a in &effect.gained {
        tail.push(Line::styled(
            format!(
                "  + {} {}",
                rulebook.award_code(&a.award),
                app.name(a.player)
            ),
            theme.style(Role::RatingGain),
        ));
    }
    for a in &effect.lost {
        tail.push(Line::styled(
            format!(
                "  − {} {} (kept: titles are permanent)",
                rulebook.award_code(&a.award),
                app.name(a.player)
            ),
            theme.style(Role::RatingLoss),
        ));
    }
    let h = |a| hint(keymap, Context::Popup, a);
    let scrolls = if moved > 1 {
        format!(
            " · {}/{} {}/{} scroll",
            h(Action::Up),
            h(Action::Down),
            h(Action::PageUp),
            h(Action::PageDown)
        )
    } else {
        String::new()
    };
    tail.push(Line::styled(
        format!(
            "{} apply · {} cancel{scrolls}",
            hint(keymap, Context::Popup, Action::Confirm),
            hint(keymap, Context::Popup, Action::Cancel)
        ),
        theme.style(Role::Muted),
    ));
    // The movers take the rows left between the head and the tail.
    let fixed = head.len() + tail.len() + 2;
    let room = usize::from(frame.area().height.saturating_sub(2))
        .saturating_sub(fixed)
        .max(1);
    let shown = moved.min(room);
    // The cursor in view: the list moves with it.
    let first = preview
        .cursor
        .saturating_sub(shown.saturating_sub(1))
        .min(moved.saturating_sub(shown));
    let name_width = usize::from(inner).saturating_sub(30).clamp(10, 30) as u16;
    let mut lines = head;
    for (i, c) in preview.movers().enumerate().skip(first).take(shown) {
        let (delta, role) = match (c.before, c.after) {
            (Some(b), Some(a)) if a > b => (signed(a - b), Role::RatingGain),
            (Some(b), Some(a)) if a < b => (signed(a - b), Role::RatingLoss),
            (Some(b), Some(a)) => (signed(a - b), Role::Muted),
            _ => ("new".to_string(), Role::Muted),
        };
        let mut line = Line::from(vec![
            Span::raw(format!(
                "  {:<w$} {:<4} {:>5} → {:<5} ",
                super::grid::cut(&app.name(c.player), name_width, theme.ellipsis()),
                rulebook.lists()[c.list],
                rating(c.before),
                rating(c.after),
                w = usize::from(name_width)
            )),
            Span::styled(delta, theme.style(role)),
        ]);
        if i == preview.cursor && moved > 1 {
            line = line.style(theme.style(Role::Selection));
        }
        lines.push(line);
    }
    lines.extend(tail);
    let title = if moved > shown {
        format!(
            " This edit changes · movers {}–{} of {moved} ",
            first + 1,
            first + shown
        )
    } else {
        " This edit changes ".to_string()
    };
    let area = centered(frame.area(), width, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block(theme, title)), area);
}

/// An undo or redo before it is taken: the entry, who made it and when, what changes back.
pub(crate) fn draw_undo<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    preview: &crate::app::workstation::undoing::UndoPreview,
) {
    // Over an open event the preview takes the table's side, so the board it is about stays
    // in view in the round; elsewhere the middle of the screen. Long lines wrap.
    let [_, body, _] = super::draw::screen_areas(frame.area());
    let over_event = app.tab == crate::app::workstation::state::Tab::Tournaments
        && app.tournaments.open.is_some();
    let (x, width) = if over_event {
        let [left, _] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(body);
        (left.x, left.width)
    } else {
        let width = frame.area().width.saturating_sub(4).min(76);
        (frame.area().x + (frame.area().width - width) / 2, width)
    };
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let verb = if preview.undo { "Undo" } else { "Redo" };
    let mut lines = vec![
        Line::styled(preview.action.clone(), theme.style(Role::Title)),
        Line::styled(preview.made.clone(), theme.style(Role::Muted)),
        Line::raw(""),
    ];
    lines.extend(preview.lines.iter().map(|l| Line::raw(l.clone())));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!(
            "{} {} · {} keep it as it is",
            hint(keymap, Context::Popup, Action::Confirm),
            verb.to_lowercase(),
            hint(keymap, Context::Popup, Action::Cancel)
        ),
        theme.style(Role::Muted),
    ));
    // Rows as wrapped at this width; the list is cut (and says so) only when the body is full.
    let rows = |l: &Line| {
        use unicode_width::UnicodeWidthStr;
        let w: usize = l.spans.iter().map(|s| s.content.width()).sum();
        w.div_ceil(inner).max(1)
    };
    let room = usize::from(body.height.saturating_sub(2));
    let mut used: usize = lines.iter().map(rows).sum();
    if used > room {
        let keys = lines.pop();
        while used + 1 > room && lines.len() > 3 {
            let gone = lines.pop().map_or(0, |l| rows(&l));
            used -= gone;
        }
        lines.push(Line::styled(
            "… (more than the window shows)".to_string(),
            theme.style(Role::Muted),
        ));
        lines.extend(keys);
        used = lines.iter().map(rows).sum();
    }
    let height = (used as u16 + 2).min(body.height);
    let area = Rect {
        x,
        y: body.y + (body.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(theme, format!(" {verb} this edit? "))),
        area,
    );
}

/// The keys of a popup that asks: `enter import · esc cancel`.
fn keys_line<'a>(theme: &Theme, keymap: &Keymap, what: &str) -> Line<'a> {
    Line::styled(
        format!(
            "{} {what} · {} cancel",
            hint(keymap, Context::Popup, Action::Confirm),
            hint(keymap, Context::Popup, Action::Cancel)
        ),
        theme.style(Role::Muted),
    )
}

/// A file's import before it is made: the file and counts, a choice for each ambiguous player
/// (the selected one is changed with ←/→), the matches by name and the warnings, then the keys.
pub(crate) fn draw_import<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    plan: &Plan<R>,
    selected: usize,
    scroll: u16,
) {
    let book = app.desk.book();
    let width = frame.area().width.saturating_sub(4).min(100);
    let mut lines: Vec<Line> = Vec::new();
    for (i, l) in plan.head.iter().enumerate() {
        lines.push(if i == 0 {
            Line::styled(l.clone(), theme.style(Role::Title))
        } else {
            Line::raw(l.clone())
        });
    }
    let mut selected_line = 0;
    for (i, c) in plan.choices.iter().enumerate() {
        let candidates = c
            .candidates
            .iter()
            .map(|&p| format!("{} {}", name_born_club(app, p), book.players[p].id))
            .collect::<Vec<_>>()
            .join(", ");
        let chosen = match c.chosen {
            None if !c.decided => format!("to choose (←/→): {candidates} or a new record"),
            Some(k) => {
                let p = c.candidates[k];
                format!(
                    "is {} {} (choice {} of {})",
                    name_born_club(app, p),
                    book.players[p].id,
                    k + 1,
                    c.candidates.len() + 1
                )
            }
            None => format!(
                "a new record (choice {} of {}; ←/→ for {candidates})",
                c.candidates.len() + 1,
                c.candidates.len() + 1,
            ),
        };
        let text = format!(
            "{} ? {} {}: {chosen}",
            if i == selected { ">" } else { " " },
            c.start_number,
            app.desk.rulebook().name_order().write(&c.name)
        );
        if i == selected {
            selected_line = lines.len();
        }
        lines.push(Line::styled(
            text,
            theme.style(if i == selected {
                Role::Selection
            } else {
                Role::Highlight
            }),
        ));
    }
    for n in &plan.notes {
        lines.push(if n.trim_start().starts_with('!') {
            Line::styled(n.clone(), theme.style(Role::Error))
        } else {
            Line::raw(n.clone())
        });
    }
    lines.push(Line::raw(""));
    lines.push(keys_line(theme, keymap, "import"));
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| {
            let style = l.style;
            Line::styled(theme.text(l.to_string()), style)
        })
        .collect();
    // Long lines wrap: count the rows they take inside the borders.
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let height = (rows as u16 + 2).min(frame.area().height.saturating_sub(2));
    let visible = height.saturating_sub(2);
    // The selected choice stays in view.
    let scroll = scroll
        .max((selected_line as u16).saturating_sub(visible.saturating_sub(3)))
        .min((rows as u16).saturating_sub(visible));
    let area = centered(frame.area(), width, height);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .block(block(theme, " Import ")),
        area,
    );
}

pub(crate) fn draw_rare(theme: &Theme, frame: &mut Frame, selected: usize) {
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

pub(crate) fn draw_form(theme: &Theme, keymap: &Keymap, frame: &mut Frame, form: &FormState) {
    let mut lines: Vec<Line> = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, (label, value))| {
            let focused = i == form.focus;
            let shown = field_tail(theme, value, 72 - 2 - 33, focused);
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
                    shown,
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

pub(crate) fn draw_pick<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    pick: &PickState,
) {
    let book = app.desk.book();
    let title = match pick.purpose {
        PickFor::Participant(e) => format!(" Enter a player in {} ", book.events[e].id),
        PickFor::MergeInto(p) => format!(" Merge which record into {}? ", app.name(p)),
    };
    let area = centered(frame.area(), 76, frame.area().height.saturating_sub(4));
    let [query, list, help] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Clear, area);
    query_box(frame, theme, query, title, &pick.query, true, false);
    let mut columns = vec![
        Column::text("Name", 12, 20),
        Column::figure("Born", 8),
        club_column(),
        Column::whole("Id", 12),
        Column::whole("Fed", 5),
    ];
    let lists = app.desk.rulebook().lists();
    columns.extend(
        lists
            .iter()
            .enumerate()
            .map(|(i, l)| Column::figure(*l, 14u8.saturating_sub(i as u8))),
    );
    let grid = Grid::new(
        count(pick.results.len(), "player", "players"),
        columns,
        pick.results.len(),
        pick.selected,
    );
    grid.draw(frame, list, theme, |i| {
        let p = pick.results[i];
        let info = &book.players[p];
        let mut cells = vec![
            cell(app.name(p).into_owned()),
            cell(birth_year(info)),
            cell(club(info)),
            cell(info.id.clone()),
            cell(
                info.federation
                    .clone()
                    .unwrap_or_else(|| app.desk.rulebook().home_federation().into()),
            ),
        ];
        cells.extend(
            app.ratings(p)
                .into_iter()
                .map(|(_, s)| cell(rating(app.rating_of(s.as_deref())))),
        );
        cells
    });
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
