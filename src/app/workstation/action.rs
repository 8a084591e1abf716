//! The action vocabulary: everything a key can ask for. Keymap files name these actions in
//! snake_case, and the help popup is generated from [`Action::description`] and
//! [`Action::section`], so the two cannot drift.

use serde::Deserialize;

/// How keys are read where the officer is: in `Form` printable keys go to the field being
/// typed (only Tab, Enter, Esc and Ctrl/Alt chords reach the keymap); elsewhere every key goes
/// to the keymap. Specific contexts fall back to `Global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray)]
pub enum Context {
    Global,
    Table,
    Form,
    RoundEntry,
    Popup,
}

impl Context {
    pub const ALL: &'static [Context] = <Context as strum::VariantArray>::VARIANTS;

    /// The table name in keymap files.
    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "global",
            Context::Table => "table",
            Context::Form => "form",
            Context::RoundEntry => "round_entry",
            Context::Popup => "popup",
        }
    }
}

/// One thing the officer can do with a key.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Help,
    TabPlayers,
    TabTournaments,
    TabTitles,
    NextTab,
    PrevTab,
    Undo,
    Redo,
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Search,
    WhiteWins,
    BlackWins,
    Draw,
    ForfeitWhite,
    ForfeitBlack,
    ClearResult,
    RareResults,
    NextBoard,
    PrevBoard,
    NextRound,
    PrevRound,
    Confirm,
    Cancel,
    Submit,
    NewItem,
    EditItem,
    Pair,
    AddParticipant,
    Merge,
    ConfirmTitle,
    NextView,
    PrevView,
    ImportFile,
    Suspend,
    NextPane,
    ChooseDate,
    ClearField,
    DeleteWord,
    Withdraw,
    ReceivedDate,
    Reenter,
}

impl Action {
    /// Every action, in the order the help lists them.
    pub const ALL: &'static [Action] = <Action as strum::VariantArray>::VARIANTS;

    /// What the action does, for the help popup.
    pub fn description(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "show the keys in force",
            Action::TabPlayers => "Players tab",
            Action::TabTournaments => "Tournaments tab",
            Action::TabTitles => "Titles tab",
            Action::NextTab => "next tab",
            Action::PrevTab => "previous tab",
            Action::Undo => "undo the latest edit",
            Action::Redo => "redo the latest undone edit",
            Action::Back => "back / close",
            Action::Up => "move up",
            Action::Down => "move down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "first row",
            Action::Bottom => "last row",
            Action::Open => "open the selected row",
            Action::Search => "search",
            Action::WhiteWins => "white wins (1-0)",
            Action::BlackWins => "black wins (0-1)",
            Action::Draw => "draw (½-½)",
            Action::ForfeitWhite => "forfeit win for white (+-)",
            Action::ForfeitBlack => "forfeit win for black (-+)",
            Action::ClearResult => "clear the result",
            Action::RareResults => "other results (0-0, ½-0, 0-½, --)",
            Action::NextBoard => "next board",
            Action::PrevBoard => "previous board",
            Action::NextRound => "next round",
            Action::PrevRound => "previous round",
            Action::Confirm => "confirm",
            Action::Cancel => "cancel",
            Action::Submit => "save the form",
            Action::NewItem => "new player / new event",
            Action::EditItem => "edit the selected player / event",
            Action::Pair => "pair boards by start numbers (12 7)",
            Action::AddParticipant => "enter a player in the event",
            Action::Merge => "merge another record into this player",
            Action::ConfirmTitle => "confirm the selected title",
            Action::NextView => "next view (games/events, report, selection lists…)",
            Action::PrevView => "previous view",
            Action::ImportFile => "import an arbiter's TRF file as an event",
            Action::Suspend => "suspend to the shell (fg resumes)",
            Action::NextPane => "switch between the round and the table",
            Action::ChooseDate => "choose the selection lists' date",
            Action::ClearField => "clear the text typed (as in a shell)",
            Action::DeleteWord => "delete the last word typed",
            Action::Withdraw => "withdraw the selected participant (shown first)",
            Action::ReceivedDate => {
                "correct the day the round's results were received (shown first)"
            }
            Action::Reenter => "re-enter the player on the list from a date (shown first)",
        }
    }

    /// The help popup's section.
    pub fn section(self) -> &'static str {
        match self {
            Action::Quit
            | Action::Help
            | Action::TabPlayers
            | Action::TabTournaments
            | Action::TabTitles
            | Action::NextTab
            | Action::PrevTab
            | Action::Undo
            | Action::Redo
            | Action::Suspend
            | Action::Back => "General",
            Action::NextView | Action::PrevView | Action::NextPane | Action::ChooseDate => "Lists",
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::Open
            | Action::Search => "Lists",
            Action::WhiteWins
            | Action::BlackWins
            | Action::Draw
            | Action::ForfeitWhite
            | Action::ForfeitBlack
            | Action::ClearResult
            | Action::RareResults
            | Action::NextBoard
            | Action::PrevBoard
            | Action::NextRound
            | Action::PrevRound => "Round entry",
            Action::Confirm
            | Action::Cancel
            | Action::Submit
            | Action::ClearField
            | Action::DeleteWord => "Popups and forms",
            Action::NewItem
            | Action::EditItem
            | Action::Pair
            | Action::AddParticipant
            | Action::Withdraw
            | Action::ReceivedDate
            | Action::Reenter
            | Action::Merge
            | Action::ConfirmTitle
            | Action::ImportFile => "Editing",
        }
    }

    /// Whether the action changes the stored record the moment its key is pressed (the other
    /// actions that lead to an edit open a form, a picker or a confirmation first, which shows
    /// what will change and needs Enter).
    pub fn changes_record(self) -> bool {
        self.is_result_key()
            || matches!(
                self,
                Action::Undo | Action::Redo | Action::Confirm | Action::Submit
            )
    }

    /// The result keys of round entry: the one place a plain key may change the record, since
    /// the board under the cursor shows the result at once.
    pub fn is_result_key(self) -> bool {
        matches!(
            self,
            Action::WhiteWins
                | Action::BlackWins
                | Action::Draw
                | Action::ForfeitWhite
                | Action::ForfeitBlack
                | Action::ClearResult
        )
    }

    /// Whether `self` may be bound to `key` (a keymap name, the first key of a chord) in
    /// `context`: an action that changes the record is never a plain letter, digit or sign,
    /// nor alt with one (a terminal sends Esc and a quick next key as alt-key), except the
    /// result keys of round entry. `Err` says why not.
    pub fn may_be_bound(self, context: Context, key: &str) -> Result<(), String> {
        // Enter in a popup or a form sets a rare result, enters the player picked or saves.
        let changes = self.changes_record()
            || (self == Action::Open
                && matches!(context, Context::Popup | Context::Form | Context::Global));
        let alt = key.starts_with("alt-");
        let typed = key.chars().count() == 1 || key == "space";
        if !changes || !(typed || alt) {
            return Ok(());
        }
        if context == Context::RoundEntry && self.is_result_key() && !alt {
            return Ok(());
        }
        Err(format!(
            "{} changes the record here, so it takes a control chord or a dedicated key \
             (enter, delete, f1…f12), never a letter, digit or sign typed as text, nor an alt \
             key (a terminal sends Esc and a quick next key as alt-key)",
            self.name()
        ))
    }

    /// The snake_case name used in keymap files.
    pub fn name(self) -> String {
        let debug = format!("{self:?}");
        let mut out = String::new();
        for (i, c) in debug.chars().enumerate() {
            if c.is_uppercase() {
                if i > 0 {
                    out.push('_');
                }
                out.extend(c.to_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde() {
        for &action in Action::ALL {
            let parsed: Action =
                serde_json::from_value(serde_json::json!(action.name())).expect("name");
            assert_eq!(parsed, action);
        }
    }
}
