//! Editing from the workstation: forms, entering players, pairing, merging, confirming titles.
//! Every change goes through the desk's edits; anything that moves a rating or a title is shown
//! before it is made.

use crate::app::Federation;
use crate::model::PlayerIdx;

use super::action::Action;
use super::forms::{FEDERATION, FormKind, FormState, parse_pairing};
use super::state::{App, PickFor, PickState, Popup, Tab};
use crate::app::Edit;

impl<R: Federation> App<R> {
    /// A form for a new or the selected player (Players tab) or event (Tournaments tab).
    pub(super) fn open_form(&mut self, new: bool) {
        let book = self.desk.book();
        let form = match (self.tab, new) {
            (Tab::Players, true) => {
                Some(FormState::new_player_named(None, "", &self.next_free_id()))
            }
            (Tab::Players, false) => {
                let p = self
                    .players
                    .card
                    .or_else(|| self.players.results.get(self.players.selected).copied());
                p.map(|p| FormState::player(FormKind::EditPlayer(p), &book.players[p], None))
            }
            (Tab::Tournaments, true) => Some(FormState::event(FormKind::NewEvent, None)),
            (Tab::Tournaments, false) => {
                let e = self.tournaments.open.or_else(|| {
                    self.tournaments
                        .list
                        .get(self.tournaments.selected)
                        .copied()
                });
                e.map(|e| FormState::event(FormKind::EditEvent(e), Some(&book.events[e])))
            }
            (Tab::Titles, _) => None,
        };
        match form {
            Some(form) => self.popup = Some(Popup::Form(self.for_rulebook(form))),
            None => self.warn("nothing selected to edit"),
        }
    }

    /// A form as the rulebook needs it: a player without a federation belongs to the home
    /// federation; an event rated by period says when its results were received.
    pub(super) fn for_rulebook(&self, mut form: FormState) -> FormState {
        let rulebook = self.desk.rulebook();
        let book = self.desk.book();
        match form.kind {
            FormKind::NewPlayer { .. } => form.set(FEDERATION, rulebook.home_federation()),
            FormKind::EditPlayer(p) if book.players[p].federation.is_none() => {
                form.set(FEDERATION, rulebook.home_federation())
            }
            FormKind::ImportTrf if rulebook.keeps_game_receipt() => form
                .fields
                .push((super::forms::IMPORT_RECEIVED, String::new())),
            FormKind::NewEvent if rulebook.by_period() => form = form.with_received(None),
            FormKind::EditEvent(e) if rulebook.by_period() => {
                form = form.with_received(book.events.get(e))
            }
            _ => {}
        }
        form
    }

    /// Turns a filled form into its edit; a wrong field keeps the form open with the reason.
    pub(super) fn submit(&mut self, form: FormState) {
        if form.kind == FormKind::ImportTrf {
            return self.plan_import(form);
        }
        if let FormKind::RoundReceived { shown, .. } = form.kind
            && form.round_received_value() == Ok(shown)
        {
            return self.say("the round's receipt day is as it was: nothing changed");
        }
        if form.kind == FormKind::SelectionDate {
            match form.selection_date_value() {
                Ok(date) => {
                    self.select_as_of(date);
                    self.say(format!("selection lists on {date}"));
                }
                Err(message) => {
                    self.warn(message);
                    self.popup = Some(Popup::Form(form));
                }
            }
            return;
        }
        let edit = match &form.kind {
            FormKind::NewPlayer { .. } | FormKind::EditPlayer(_) => {
                form.to_player().and_then(|(mut info, rating)| {
                    // A player of the home federation is kept without one, as he was.
                    let had_none = match form.kind {
                        FormKind::EditPlayer(p) => self.desk.book().players[p].federation.is_none(),
                        _ => true,
                    };
                    if had_none
                        && info.federation.as_deref()
                            == Some(self.desk.rulebook().home_federation())
                    {
                        info.federation = None;
                    }
                    match form.kind {
                        FormKind::EditPlayer(player) => {
                            // The form does not show his FIDE and national lists, nor his
                            // re-entries: they stay.
                            let stored = &self.desk.book().players[player];
                            let info = crate::model::PlayerInfo {
                                fide: stored.fide.clone(),
                                national: stored.national.clone(),
                                reentries: stored.reentries.clone(),
                                ..info
                            };
                            Ok(Edit::UpdatePlayer { player, info })
                        }
                        _ => {
                            let lists = self.desk.rulebook().lists().len();
                            let mut seeds = vec![None; lists];
                            if let Some((r, g)) = rating {
                                let value = serde_json::json!({"rating": r, "games": g});
                                seeds[0] = self
                                    .desk
                                    .rulebook()
                                    .state_from_json(0, &value, "the form")
                                    .map_err(|e| e.to_string())?;
                            }
                            Ok(Edit::AddPlayer {
                                info,
                                seeds,
                                held: Vec::new(),
                            })
                        }
                    }
                })
            }
            FormKind::NewEvent => form.to_event(None).map(Edit::AddEvent),
            FormKind::EditEvent(e) => form
                .to_event(self.desk.book().events.get(*e))
                .map(|details| Edit::UpdateEvent { event: *e, details }),
            FormKind::RoundReceived { event, round, .. } => {
                form.round_received_value()
                    .map(|received| Edit::SetReceived {
                        event: *event,
                        round: Some(*round),
                        received,
                    })
            }
            FormKind::Reentry(player) => {
                let player = *player;
                form.reentry_value().and_then(|(date, on)| {
                    let info = &self.desk.book().players[player];
                    let entry = match on {
                        None => None,
                        Some((on, Some(rating))) => Some((rating, on)),
                        Some((on, None)) => {
                            let held = info.fide_rating_on(date, crate::model::FideKind::Standard);
                            let rating = held.ok_or_else(|| {
                                format!("no FIDE rating held for {} on {date}: type it", info.id)
                            })?;
                            Some((rating, on))
                        }
                    };
                    Ok(Edit::SetReentry {
                        player,
                        date,
                        entry,
                    })
                })
            }
            FormKind::ImportTrf | FormKind::SelectionDate => unreachable!("handled above"),
        };
        let edit = match edit {
            Ok(edit) => edit,
            Err(message) => {
                self.warn(message);
                self.popup = Some(Popup::Form(form));
                return;
            }
        };
        let before = self.desk.audit().len();
        self.propose(edit, Some(form.clone()));
        if self.desk.audit().len() == before {
            if self.popup.is_none() && self.status.as_ref().is_some_and(|s| s.error) {
                self.popup = Some(Popup::Form(form));
            }
            return;
        }
        match form.kind {
            FormKind::NewPlayer {
                enter_in: Some(event),
            } => {
                let player = self.desk.book().players.len() - 1;
                self.enter(event, player);
            }
            FormKind::NewEvent => {
                let event = self.desk.book().events.len() - 1;
                self.open_event(event);
            }
            _ => {}
        }
    }

    /// Reads the file of the import form and shows what importing it would do; a file that
    /// cannot be read keeps the form open with the reason.
    fn plan_import(&mut self, form: FormState) {
        let (file, given) = match form.import_fields() {
            Ok(fields) => fields,
            Err(message) => {
                self.warn(message);
                self.popup = Some(Popup::Form(form));
                return;
            }
        };
        if file.is_empty() {
            self.warn("give the file to import");
            self.popup = Some(Popup::Form(form));
            return;
        }
        let path = super::paths::expand(&file);
        match crate::app::trf_import::plan(&self.desk, &path, &given) {
            Ok(plan) => {
                self.popup = Some(Popup::Import {
                    plan: Box::new(plan),
                    selected: 0,
                    scroll: 0,
                })
            }
            Err(e) => {
                self.warn(e.to_string());
                self.popup = Some(Popup::Form(form));
            }
        }
    }

    /// Applies an edit at once when it moves no rating and no title; otherwise shows what it
    /// does and asks first.
    pub(super) fn propose(&mut self, edit: Edit<R>, form: Option<FormState>) {
        match self.desk.preview(&edit) {
            Ok(effect)
                if effect.ratings.is_empty()
                    && effect.gained.is_empty()
                    && effect.lost.is_empty() =>
            {
                self.apply(edit);
            }
            Ok(effect) => self.confirm(edit, effect, form),
            Err(e) => self.warn(e.to_string()),
        }
    }

    /// Enters a player in an event (the next start number).
    pub(super) fn enter(&mut self, event: usize, player: PlayerIdx) {
        let mut players = self.desk.book().events[event].participants.clone();
        if players.contains(&player) {
            return self.warn(format!("{} is already entered", self.name(player)));
        }
        players.push(player);
        let number = players.len();
        if self.apply(Edit::SetParticipants { event, players }) {
            let book = self.desk.book();
            self.say(format!(
                "saved: {} entered in {} as number {number}",
                self.name(player),
                book.events[event].id
            ));
        }
    }

    pub(super) fn picked(&mut self, pick: &PickState) {
        let Some(&player) = pick.results.get(pick.selected) else {
            return;
        };
        match pick.purpose {
            PickFor::Participant(event) => self.enter(event, player),
            PickFor::MergeInto(keep) if keep == player => {
                self.warn("a player cannot be merged into himself")
            }
            PickFor::MergeInto(keep) => {
                let edit = Edit::MergePlayers {
                    keep,
                    remove: player,
                };
                match self.desk.preview(&edit) {
                    Ok(effect) => self.confirm(edit, effect, None),
                    Err(e) => self.warn(e.to_string()),
                }
            }
        }
    }

    /// Pairing mode: Enter pairs the keyed start numbers on the round's next board.
    pub(super) fn update_pairing(&mut self, event: usize, text: &str, action: Action) {
        match action {
            Action::Back | Action::Cancel => {
                self.tournaments.pairing = None;
                // Results are keyed from the first board on.
                self.tournaments.board = 0;
                self.say("pairing done: the cursor is on board 1");
            }
            Action::Open | Action::Submit => {
                let round = self.tournaments.round;
                match parse_pairing(text, &self.desk.book().events[event], round) {
                    Ok(game) => {
                        if self.apply(Edit::SetGame { event, game }) {
                            self.tournaments.pairing = Some(String::new());
                            self.tournaments.board =
                                self.boards(event, round).len().saturating_sub(1);
                        }
                    }
                    Err(message) => self.warn(message),
                }
                if self.status.as_ref().is_some_and(|s| s.error) {
                    self.tournaments.pairing = Some(String::new());
                }
            }
            _ => {}
        }
    }

    /// Confirms the selected title when it awaits the rating committee (an audited edit).
    pub(super) fn confirm_title(&mut self) {
        if self.titles_view() != super::state::TitlesView::Holders {
            return self.warn("titles are confirmed in the Titles view");
        }
        let rows = self.title_rows();
        let Some((player, award, confirmed)) = self
            .titles_row(self.titles.selected)
            .and_then(|i| rows.get(i).cloned())
        else {
            return;
        };
        if confirmed {
            return self.warn("that title needs no confirmation, or has it");
        }
        let date = crate::clock::today();
        let edit = Edit::ConfirmAward {
            player,
            award: award.award,
            date,
        };
        // Shown, and made only on Enter: a letter typed on this tab never confirms a title.
        match self.desk.preview(&edit) {
            Ok(effect) => self.confirm(edit, effect, None),
            Err(e) => self.warn(e.to_string()),
        }
    }

    /// Opens the form re-entering the player whose card is open on the list (a rulebook with
    /// re-entries; the effect is shown before anything is stored).
    pub fn start_reentry(&mut self) {
        if !self.desk.rulebook().restarts() {
            return self.warn("this rulebook does not re-enter a player on a rating from a date");
        }
        if let Some(player) = self.players.card {
            self.popup = Some(Popup::Form(FormState::reentry(
                player,
                crate::clock::today(),
            )));
        }
    }

    /// Merges another record into the player whose card is open (with the preview first).
    pub fn start_merge(&mut self) {
        if let Some(keep) = self.players.card {
            let results = self.search.search("");
            self.popup = Some(Popup::Pick(PickState {
                purpose: PickFor::MergeInto(keep),
                query: String::new(),
                results,
                selected: 0,
            }));
        }
    }
}
