//! What each screen offers the officer: its main actions with a word or two on each, in the
//! order the hint line shows them. The hint line is generated from this list with the keys of
//! the keymap in force, so a screen's hint cannot name an action it does not take
//! ([`App::acts_here`]) or a key the keymap does not bind.

use super::action::{Action, Context};
use super::state::{App, Pane, Popup, Tab};
use crate::app::Federation;

/// One item of a screen's offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Words without a key (`type to search`).
    Say(&'static str),
    /// An action of the screen and what it does there (`enter open the card`).
    Key(Action, &'static str),
    /// Two actions that go together (`↑/↓ select`).
    Keys(Action, Action, &'static str),
    /// An action bound everywhere, by its global key (`? help`).
    Everywhere(Action, &'static str),
}

impl Offer {
    /// The actions this item names.
    pub fn actions(self) -> impl Iterator<Item = Action> {
        let (a, b) = match self {
            Offer::Say(_) => (None, None),
            Offer::Key(a, _) | Offer::Everywhere(a, _) => (Some(a), None),
            Offer::Keys(a, b, _) => (Some(a), Some(b)),
        };
        a.into_iter().chain(b)
    }
}

impl<R: Federation> App<R> {
    /// The screen in front of the officer and its offer: the context its keys are looked up
    /// in, and its main actions in the order the hint line shows them.
    pub fn offers(&self) -> (Context, Vec<Offer>) {
        use Action as A;
        use Offer::{Everywhere, Key, Keys, Say};
        let context = self.context();
        let help = Everywhere(A::Help, "help");
        let offers = match (self.tab, context) {
            (_, Context::Popup) => match &self.popup {
                Some(Popup::Help { .. }) => vec![
                    Keys(A::Up, A::Down, ""),
                    Keys(A::PageUp, A::PageDown, "scroll"),
                    Say("any other key closes"),
                ],
                Some(Popup::Import { .. }) => vec![
                    Keys(A::Up, A::Down, "player"),
                    Keys(A::PrevView, A::NextView, "choose"),
                    Key(A::Confirm, "import"),
                    Key(A::Cancel, "cancel"),
                ],
                Some(Popup::Confirm(_)) => vec![
                    Key(A::Confirm, "apply"),
                    Key(A::Cancel, "cancel"),
                    Keys(A::Up, A::Down, ""),
                    Keys(A::PageUp, A::PageDown, "movers"),
                ],
                Some(Popup::Undo(u)) => vec![
                    Key(A::Confirm, if u.undo { "undo" } else { "redo" }),
                    Key(A::Cancel, "keep it as it is"),
                ],
                _ => vec![Key(A::Confirm, "choose"), Key(A::Cancel, "cancel")],
            },
            (_, Context::Form) if matches!(self.popup, Some(Popup::Pick(_))) => vec![
                Say("type to search"),
                Keys(A::Up, A::Down, "select"),
                Key(A::Open, "choose"),
                Key(A::NewItem, "new player"),
                Key(A::Back, "cancel"),
            ],
            (Tab::Tournaments, Context::Form) if self.tournaments.pairing.is_some() => vec![
                Say("type start numbers (12 7, or 12 for a bye)"),
                Key(A::Open, "pair"),
                Key(A::Back, "done"),
            ],
            (_, Context::Form) if self.popup.is_some() => vec![
                Key(A::Open, "next"),
                Key(A::Submit, "save"),
                Key(A::Back, "cancel"),
            ],
            (Tab::Players, Context::Form) => vec![
                Say("type to search"),
                Keys(A::Up, A::Down, "select"),
                Key(A::Open, "open the card"),
                Key(A::Back, "clear"),
                help,
            ],
            (Tab::Tournaments, Context::Form) => vec![
                Say("type to filter"),
                Key(A::Open, "open"),
                Key(A::NewItem, "new event"),
                Key(A::ImportFile, "import TRF"),
                help,
            ],
            (_, Context::RoundEntry) if self.tournaments.pane == Pane::Table => vec![
                Keys(A::PrevBoard, A::NextBoard, ""),
                Keys(A::PageUp, A::PageDown, "scroll"),
                Key(A::Open, "card"),
                Key(A::NextPane, "round"),
                Key(A::NextView, "view"),
                Key(A::Back, "back"),
                Key(A::Help, "help"),
            ],
            (_, Context::RoundEntry) => {
                let mut offers = vec![
                    Key(A::WhiteWins, "1-0"),
                    Key(A::BlackWins, "0-1"),
                    Key(A::Draw, "½-½"),
                    Key(A::ForfeitWhite, "+-"),
                    Key(A::ForfeitBlack, "-+"),
                    Key(A::RareResults, "other"),
                    Key(A::NextPane, "table"),
                    Key(A::Pair, "pair"),
                ];
                if self.acts_here(A::ReceivedDate) {
                    offers.push(Key(A::ReceivedDate, "received"));
                }
                offers.extend([
                    Key(A::Undo, "undo"),
                    Key(A::Back, "back"),
                    Key(A::Help, "help"),
                ]);
                offers
            }
            (Tab::Titles, Context::Form) => vec![
                Say("type to filter by name or id"),
                Keys(A::Up, A::Down, "select"),
                Key(A::Open, "the list"),
                Key(A::Back, "clear"),
            ],
            (Tab::Titles, _) => {
                let mut offers = vec![
                    Key(A::Open, "card"),
                    Keys(A::PrevView, A::NextView, "view"),
                    Key(A::Search, "filter"),
                ];
                // Titles are confirmed on the holders' view (of a rulebook that has titles),
                // and the date is chosen on the selection view.
                if self.acts_here(A::ConfirmTitle) {
                    offers.push(Key(A::ConfirmTitle, "confirm"));
                }
                if self.acts_here(A::ChooseDate) {
                    offers.push(Key(A::ChooseDate, "date"));
                }
                offers.extend([Key(A::Undo, "undo"), Key(A::Help, "help")]);
                offers
            }
            _ => {
                // A row of the lists view is a list, not an event.
                let mut offers = Vec::new();
                if self.players.card_view != super::players::CardView::Lists {
                    offers.push(Key(A::Open, "open event"));
                }
                offers.extend([
                    Keys(A::PrevView, A::NextView, "games/events/lists"),
                    Key(A::Search, "search"),
                    Key(A::Back, "back"),
                    Key(A::Merge, "merge"),
                ]);
                if self.acts_here(A::Reenter) {
                    offers.push(Key(A::Reenter, "re-enter"));
                }
                offers.extend([Key(A::Undo, "undo"), Key(A::Help, "help")]);
                offers
            }
        };
        (context, offers)
    }
}
