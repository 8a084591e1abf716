//! Keys in popups: the help, the correction preview, rare results, forms, the player picker and
//! the import preview with its choices for ambiguous players.

use std::collections::BTreeMap;

use crate::app::Federation;

use super::action::Action;
use super::forms::{FormKind, FormState};
use super::state::{App, PickFor, Popup, RARE_RESULTS, is_move, step};
use crate::app::Edit;

impl<R: Federation> App<R> {
    pub(super) fn update_popup(&mut self, action: Action) {
        let Some(popup) = self.popup.take() else {
            return;
        };
        let page = self.page();
        match popup {
            Popup::Form(mut form) => match action {
                Action::Back | Action::Cancel => self.say("not saved"),
                Action::Up | Action::PrevTab => {
                    form.focus = form.focus.saturating_sub(1);
                    self.popup = Some(Popup::Form(form));
                }
                Action::NextTab if form.is_path(form.focus) => {
                    if let Some(listed) = form.complete_path() {
                        self.say(listed);
                    }
                    self.popup = Some(Popup::Form(form));
                }
                Action::Down | Action::NextTab => {
                    form.focus = (form.focus + 1).min(form.fields.len() - 1);
                    self.popup = Some(Popup::Form(form));
                }
                Action::Top | Action::Bottom => {
                    form.focus = if action == Action::Top {
                        0
                    } else {
                        form.fields.len() - 1
                    };
                    self.popup = Some(Popup::Form(form));
                }
                Action::Open if form.focus + 1 < form.fields.len() => {
                    form.focus += 1;
                    self.popup = Some(Popup::Form(form));
                }
                Action::Open | Action::Submit | Action::Confirm => self.submit(form),
                _ => self.popup = Some(Popup::Form(form)),
            },
            Popup::Pick(mut pick) => match action {
                Action::Back | Action::Cancel => {}
                a if is_move(a) => {
                    pick.selected = step(pick.selected, pick.results.len(), a, page);
                    self.popup = Some(Popup::Pick(pick));
                }
                Action::Open | Action::Confirm | Action::Submit => self.picked(&pick),
                Action::NewItem => {
                    let enter_in = match pick.purpose {
                        PickFor::Participant(e) => Some(e),
                        PickFor::MergeInto(_) => None,
                    };
                    let id = self.next_free_id();
                    let form = FormState::new_player_named(enter_in, &pick.query, &id);
                    self.popup = Some(Popup::Form(self.for_rulebook(form)));
                }
                _ => self.popup = Some(Popup::Pick(pick)),
            },
            Popup::Help { scroll } => {
                let scroll = match action {
                    Action::Up => Some(scroll.saturating_sub(1)),
                    Action::Down => Some(scroll.saturating_add(1)),
                    Action::PageUp => Some(scroll.saturating_sub(page as u16)),
                    Action::PageDown => Some(scroll.saturating_add(page as u16)),
                    Action::Top => Some(0),
                    Action::Bottom => Some(u16::MAX),
                    Action::Quit => {
                        self.quit = true;
                        None
                    }
                    // Any other key closes the help.
                    _ => None,
                };
                if let Some(scroll) = scroll {
                    self.popup = Some(Popup::Help { scroll });
                }
            }
            Popup::Confirm(mut preview) => match action {
                Action::Confirm => {
                    let super::confirming::Preview { edit, effect, .. } = *preview;
                    let keyed = match &*edit {
                        Edit::SetResult {
                            event,
                            round,
                            board,
                            ..
                        } => Some((*event, *round, *board)),
                        _ => None,
                    };
                    let result_keyed = keyed.is_some();
                    // Titles are permanent: one a correction takes away is kept as held, in
                    // the same audited edit.
                    let stored = self.apply(Edit::keeping(*edit, effect.lost));
                    if let Some((event, round, board)) = keyed.filter(|_| stored) {
                        self.tell_period(event, round, board);
                    }
                    if stored
                        && result_keyed
                        && let Some(event) = self.tournaments.open
                    {
                        let boards = self.boards(event, self.tournaments.round).len();
                        self.tournaments.board =
                            (self.tournaments.board + 1).min(boards.saturating_sub(1));
                    }
                }
                Action::Cancel | Action::Back => match preview.form.take() {
                    // Back to the form, with what was typed.
                    Some(form) => {
                        self.popup = Some(Popup::Form(form));
                        self.say("not saved yet: the form as you left it");
                    }
                    None => self.say("not changed"),
                },
                _ => {
                    preview.cursor = step(preview.cursor, preview.order.len(), action, page);
                    self.popup = Some(Popup::Confirm(preview));
                }
            },
            Popup::Undo(preview) => match action {
                Action::Confirm => self.take_undo(&preview),
                Action::Cancel | Action::Back => self.keep_undo(&preview),
                _ => self.popup = Some(Popup::Undo(preview)),
            },
            Popup::Import {
                mut plan,
                mut selected,
                mut scroll,
            } => match action {
                Action::Confirm if plan.open_choices() > 0 => {
                    self.warn(format!(
                        "not imported yet: choose who each ambiguous player is (←/→, a record \
                         or a new one) — {} still open",
                        plan.open_choices()
                    ));
                    self.popup = Some(Popup::Import {
                        plan,
                        selected,
                        scroll,
                    });
                }
                Action::Confirm => {
                    let edit = plan.chosen_edit();
                    if self.apply(edit) {
                        if let Err(e) =
                            crate::app::import::trf::store_titles(&self.desk, plan.titles.clone())
                        {
                            self.warn(format!("imported, but its FIDE titles were not kept: {e}"));
                        }
                        let event = self.desk.book().events.len() - 1;
                        self.open_event(event);
                    }
                }
                Action::Cancel | Action::Back => self.say("not imported"),
                _ => {
                    match action {
                        Action::Up => selected = selected.saturating_sub(1),
                        Action::Down => {
                            selected = (selected + 1).min(plan.choices.len().saturating_sub(1))
                        }
                        Action::NextView => plan.cycle(selected, true),
                        Action::PrevView => plan.cycle(selected, false),
                        Action::PageDown => scroll = scroll.saturating_add(page as u16),
                        Action::PageUp => scroll = scroll.saturating_sub(page as u16),
                        _ => {}
                    }
                    self.popup = Some(Popup::Import {
                        plan,
                        selected,
                        scroll,
                    });
                }
            },
            Popup::Rare { selected } => match action {
                Action::Up | Action::Down => {
                    self.popup = Some(Popup::Rare {
                        selected: step(selected, RARE_RESULTS.len(), action, 1),
                    })
                }
                Action::Confirm | Action::Open => self.set_result(Some(RARE_RESULTS[selected].1)),
                _ => {}
            },
        }
    }

    /// The next free national id: one past the highest number among ids with the most used
    /// prefix (`FIN10473` → `FIN10474`).
    pub fn next_free_id(&self) -> String {
        let mut prefixes: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
        for info in &self.desk.book().players {
            let digits = info.id.len()
                - info
                    .id
                    .chars()
                    .rev()
                    .take_while(char::is_ascii_digit)
                    .count();
            let (prefix, number) = info.id.split_at(digits);
            if let Ok(n) = number.parse::<u64>() {
                let slot = prefixes.entry(prefix).or_default();
                slot.0 += 1;
                slot.1 = slot.1.max(n);
            }
        }
        match prefixes.into_iter().max_by_key(|(_, (count, _))| *count) {
            Some((prefix, (_, highest))) => format!("{prefix}{}", highest + 1),
            None => format!("{}1", self.desk.rulebook().home_federation()),
        }
    }
}

impl FormState {
    /// Whether the field is a path (Tab completes it).
    pub fn is_path(&self, field: usize) -> bool {
        self.kind == FormKind::ImportTrf && field == 0
    }

    /// Completes the path in the focused field as a shell does: `~` expanded, the common part
    /// of the matching names added (a folder gets its `/`). Returns the candidates to list
    /// when more than one remains.
    pub fn complete_path(&mut self) -> Option<String> {
        let (_, value) = self.fields.get_mut(self.focus)?;
        let (completed, candidates) = super::paths::complete(value);
        *value = completed;
        (candidates.len() > 1).then(|| {
            let shown: Vec<&str> = candidates.iter().take(8).map(String::as_str).collect();
            let more = candidates.len().saturating_sub(8);
            if more > 0 {
                format!("{} … and {more} more", shown.join("  "))
            } else {
                shown.join("  ")
            }
        })
    }
}
