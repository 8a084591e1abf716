//! The workstation with other workstations on the same record: another officer's edit
//! followed and said in the status line, and the record's holder replaced when it goes (this
//! workstation takes the database over, or follows the one that did).

use crate::app::{Desk, Federation};

use super::state::{App, PlayersState, Popup, Tab, TournamentsState};

impl<R: Federation> App<R> {
    /// Follows what other officers stored since last asked (this workstation holds a copy of
    /// the record): each said in the status line as `anna: <what> · <who moved>`, every list
    /// refreshed, the officer's place and typing kept.
    pub fn follow(&mut self) {
        match self.desk.catch_up() {
            Ok(followed) => {
                for f in followed.iter().filter(|f| f.effect.stored) {
                    let said = format!("{}: {}", f.user, self.effect_text(&f.effect));
                    // A refusal just said (an edit crossed by this one) stays in view.
                    let refusal = self.status.clone().filter(|s| s.error);
                    self.edited_elsewhere(said);
                    if let Some(refusal) = refusal {
                        self.status = Some(refusal);
                    }
                }
            }
            Err(e) => self.warn(e.to_string()),
        }
    }

    /// The process holding the database has gone: no edits here until another holds it.
    pub fn holder_lost(&mut self, why: String) {
        self.desk.lost(why.clone());
        self.warn(why);
    }

    /// Works on `desk` from now on (the database itself, taken over, or a new copy of it): the
    /// officer's place and typing kept, every list rebuilt, a preview closed.
    pub fn replace_desk(&mut self, mut desk: Desk<R>, said: String) {
        desk.flush_behind();
        let old = std::mem::replace(&mut self.desk, desk);
        if matches!(self.popup, Some(Popup::Confirm(_) | Popup::Import { .. })) {
            self.popup = None;
        }
        // A database opened again does not read back removed records at the end of its
        // lists: a place on one of them is given up for the first screen.
        let (book, before) = (self.desk.book(), old.book());
        if book.players.len() < before.players.len() || book.events.len() < before.events.len() {
            self.popup = None;
            self.back.clear();
            self.tab = Tab::Players;
            self.players = PlayersState::default();
            self.tournaments = TournamentsState::default();
        }
        drop(old);
        self.rebuilt();
        self.say(said);
    }

    /// Keeps `thing` as long as the workstation is open (serving the database it took over).
    pub fn keep(&mut self, thing: Box<dyn std::any::Any + Send>) {
        self.kept.push(thing);
    }
}
