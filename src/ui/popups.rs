//! Popups: help, the correction preview, rare results, forms and the player picker.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Clear, Paragraph, Row, Table, TableState, Wrap};

use super::keymap::Keymap;
use super::theme::{Role, Theme};
use crate::app::forms::FormState;
use crate::app::state::{App, PickFor, PickState, RARE_RESULTS};
use crate::app::{Action, Context};
use crate::json::JsonRules;

use super::draw::{block, centered, hint, query_box, rating, signed};

pub(crate) fn draw_help(theme: &Theme, keymap: &Keymap, frame: &mut Frame, scroll: u16) {
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

pub(crate) fn draw_confirm<R: JsonRules>(
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
    lines.push(keys_line(theme, keymap, "apply"));
    let area = centered(frame.area(), 64, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(block(theme, " This correction changes ")),
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

/// A file's import before it is made: the plan's lines, then the keys.
pub(crate) fn draw_import(theme: &Theme, keymap: &Keymap, frame: &mut Frame, plan: &[String]) {
    let width = frame.area().width.saturating_sub(4).min(100);
    let mut lines: Vec<Line> = plan
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                Line::styled(l.clone(), theme.style(Role::Title))
            } else if l.trim_start().starts_with('?') {
                Line::styled(l.clone(), theme.style(Role::Highlight))
            } else {
                Line::raw(l.clone())
            }
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(keys_line(theme, keymap, "import"));
    // Long lines wrap: count the rows they take inside the borders.
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let height = (rows as u16 + 2).min(frame.area().height.saturating_sub(2));
    let area = centered(frame.area(), width, height);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
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

pub(crate) fn draw_pick<R: JsonRules>(
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
    query_box(frame, theme, query, title, &pick.query, true);
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
