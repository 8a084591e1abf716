//! Forms the officer fills in — a player, an event — and the line where pairings are keyed as
//! start numbers. Each turns its text into a checked edit, or says which field is wrong.

use chrono::NaiveDate;

use crate::model::{Event, Game, PlayerIdx, PlayerInfo, Sex, TimeControl, player_u32};

/// What a form creates or changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormKind {
    /// A new player; entered in the event at once when one is given.
    NewPlayer {
        enter_in: Option<usize>,
    },
    EditPlayer(PlayerIdx),
    NewEvent,
    EditEvent(usize),
    /// An arbiter's TRF file to import as a new event.
    ImportTrf,
    /// The date of the selection lists.
    SelectionDate,
    /// The day a round's results were received (a rulebook rating a game by its own), and
    /// what the form showed when it opened (submitted unchanged, it changes nothing).
    RoundReceived {
        event: usize,
        round: u32,
        shown: Option<NaiveDate>,
    },
    /// A player entered on the list anew from a day (a rulebook with re-entries), or his
    /// re-entry of a day taken back.
    Reentry(PlayerIdx),
}

/// What the re-entry form asks for, typed: the day and, on what rating, or `None` to take the
/// day's re-entry back. The rating `None`: his FIDE rating the database holds for that day.
pub type ReentryTyped = (NaiveDate, Option<(crate::model::Entry, Option<i32>)>);

/// A form: labelled text fields, one in focus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormState {
    pub kind: FormKind,
    pub fields: Vec<(&'static str, String)>,
    pub focus: usize,
}

/// The event form's field for the event a play-off decides (SSL 2.10).
pub const PLAYOFF_OF: &str = "Play-off of (event id)";

/// The event form's field for the day the results reached the federation (a rulebook that
/// rates by period rates late results in the period of receipt).
pub const RECEIVED: &str = "Results received (empty: at the end)";

/// The player form's field for his federation.
pub const FEDERATION: &str = "Federation";

const IMPORT_FILE: &str = "File (path of a .trf / .txt)";
const IMPORT_TIME_CONTROL: &str = "Time control (empty: the file's)";
const IMPORT_ID: &str = "Event id (empty: the file's name)";
/// The import form's field for the day the results were received (a rulebook rating a game
/// by its own receipt date).
pub const IMPORT_RECEIVED: &str = "Results received (empty: today)";
const SELECTION_DATE: &str = "Date (27.2.2026 or 2026-02-27)";
const ROUND_RECEIVED: &str = "Received (empty: the event's date)";
const REENTRY_DATE: &str = "Re-enters on (from that period's start)";
const REENTRY_ON: &str = "On (fide, national; none: take back)";
const REENTRY_RATING: &str = "Rating (empty: the FIDE rating held)";
/// The player form's club (empty: none).
const CLUB: &str = "Club";

impl FormState {
    pub fn title(&self) -> &'static str {
        match self.kind {
            FormKind::NewPlayer { .. } => "New player",
            FormKind::EditPlayer(_) => "Edit player",
            FormKind::NewEvent => "New event",
            FormKind::EditEvent(_) => "Edit event",
            FormKind::ImportTrf => "Import a TRF file",
            FormKind::SelectionDate => "Selection lists on",
            FormKind::RoundReceived { .. } => "Round's results received",
            FormKind::Reentry(_) => "Re-enter on the list",
        }
    }

    /// The form re-entering a player on the list from a day (today unless changed), on his
    /// FIDE rating unless a national one is chosen.
    pub fn reentry(player: PlayerIdx, today: NaiveDate) -> Self {
        Self {
            kind: FormKind::Reentry(player),
            fields: vec![
                (REENTRY_DATE, today.format("%-d.%-m.%Y").to_string()),
                (REENTRY_ON, "fide".into()),
                (REENTRY_RATING, String::new()),
            ],
            focus: 0,
        }
    }

    /// The re-entry typed: the day, and on what (`None`: that day's re-entry taken back).
    pub fn reentry_value(&self) -> Result<ReentryTyped, String> {
        let date = self
            .date(REENTRY_DATE)?
            .ok_or_else(|| format!("{REENTRY_DATE}: give the day he re-enters"))?;
        let rating = match self.value(REENTRY_RATING) {
            "" => None,
            text => Some(
                text.parse::<i32>()
                    .map_err(|_| format!("{REENTRY_RATING}: '{text}' is not a rating"))?,
            ),
        };
        let on = match self.value(REENTRY_ON).to_lowercase().as_str() {
            "fide" | "f" => crate::model::Entry::Fide,
            "national" | "n" => crate::model::Entry::National,
            "none" | "-" => return Ok((date, None)),
            other => {
                return Err(format!(
                    "{REENTRY_ON}: '{other}' is not fide, national or none"
                ));
            }
        };
        if on == crate::model::Entry::National && rating.is_none() {
            return Err(format!("{REENTRY_RATING}: give the national rating"));
        }
        Ok((date, Some((on, rating))))
    }

    /// The form correcting the day a round's results were received, showing the day they
    /// have now (`None`: none of their own, or not one day for all).
    pub fn round_received(event: usize, round: u32, now: Option<NaiveDate>) -> Self {
        Self {
            kind: FormKind::RoundReceived {
                event,
                round,
                shown: now,
            },
            fields: vec![(
                ROUND_RECEIVED,
                now.map_or(String::new(), |d| d.format("%-d.%-m.%Y").to_string()),
            )],
            focus: 0,
        }
    }

    /// The receipt day typed (`None`: empty, the event's date decides).
    pub fn round_received_value(&self) -> Result<Option<NaiveDate>, String> {
        self.date(ROUND_RECEIVED)
    }

    /// The form asking for a TRF file to import.
    pub fn import_trf() -> Self {
        Self {
            kind: FormKind::ImportTrf,
            fields: vec![
                (IMPORT_FILE, String::new()),
                (IMPORT_TIME_CONTROL, String::new()),
                (IMPORT_ID, String::new()),
            ],
            focus: 0,
        }
    }

    /// The form asking for the selection lists' date.
    pub fn selection_date(date: NaiveDate) -> Self {
        Self {
            kind: FormKind::SelectionDate,
            fields: vec![(SELECTION_DATE, date.format("%-d.%-m.%Y").to_string())],
            focus: 0,
        }
    }

    /// The selection date typed.
    pub fn selection_date_value(&self) -> Result<NaiveDate, String> {
        self.date(SELECTION_DATE)?
            .ok_or_else(|| "give the date of the selection lists".into())
    }

    /// The import form's answers: the file, and what the officer gives over it (the time
    /// control, the event id, the day the results were received; empty: the file's, today).
    pub fn import_fields(&self) -> Result<(String, crate::app::trf_import::Given), String> {
        let given = |label| Some(self.value(label).to_string()).filter(|v| !v.is_empty());
        Ok((
            self.value(IMPORT_FILE).to_string(),
            crate::app::trf_import::Given {
                time_control: given(IMPORT_TIME_CONTROL),
                id: given(IMPORT_ID),
                received: self.date(IMPORT_RECEIVED)?,
            },
        ))
    }

    fn value(&self, label: &str) -> &str {
        self.fields
            .iter()
            .find(|(l, _)| *l == label)
            .map_or("", |(_, v)| v.trim())
    }

    /// The form of a new player.
    pub fn new_player(enter_in: Option<usize>) -> Self {
        Self::player(
            FormKind::NewPlayer { enter_in },
            &PlayerInfo::default(),
            None,
        )
    }

    /// The form of a new player from a search: the name as typed (each word capitalised) and
    /// the next free id proposed.
    pub fn new_player_named(enter_in: Option<usize>, typed: &str, id: &str) -> Self {
        let name = typed
            .split_whitespace()
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join(" ");
        let info = PlayerInfo {
            name,
            id: id.to_string(),
            ..PlayerInfo::default()
        };
        Self::player(FormKind::NewPlayer { enter_in }, &info, None)
    }

    /// The form of a player, filled with what is known of him (a player without a recorded
    /// federation with none: the workstation writes in its home federation, `for_rulebook`).
    pub fn player(kind: FormKind, info: &PlayerInfo, rating: Option<(i32, u32)>) -> Self {
        let selo_fields = matches!(kind, FormKind::NewPlayer { .. });
        let mut fields = vec![
            ("Name (Surname, First)", info.name.clone()),
            ("Id", info.id.clone()),
            (FEDERATION, info.federation.clone().unwrap_or_default()),
            (CLUB, info.club.clone().unwrap_or_default()),
            (
                "FIDE id",
                info.fide_id.map(|f| f.to_string()).unwrap_or_default(),
            ),
            (
                "Born (YYYY-MM-DD)",
                info.born.map(|d| d.to_string()).unwrap_or_default(),
            ),
            (
                "Sex (f/m)",
                info.sex
                    .map(|s| if s == Sex::Female { "f" } else { "m" }.to_string())
                    .unwrap_or_default(),
            ),
        ];
        if selo_fields {
            fields.push((
                "Rating (empty: none)",
                rating.map(|(r, _)| r.to_string()).unwrap_or_default(),
            ));
            fields.push((
                "Rated games so far",
                rating.map(|(_, g)| g.to_string()).unwrap_or_default(),
            ));
        }
        Self {
            kind,
            fields,
            focus: 0,
        }
    }

    /// The form of an event.
    pub fn event(kind: FormKind, event: Option<&Event>) -> Self {
        let tc = event.and_then(|e| e.time_control.as_ref());
        let fields = vec![
            ("Name", event.map(|e| e.name.clone()).unwrap_or_default()),
            ("Id", event.map(|e| e.id.clone()).unwrap_or_default()),
            (
                "Start (YYYY-MM-DD)",
                event.map(|e| e.start.to_string()).unwrap_or_default(),
            ),
            (
                "End (YYYY-MM-DD)",
                event.map(|e| e.end.to_string()).unwrap_or_default(),
            ),
            (
                "Time control (90+30)",
                tc.map_or_else(
                    || "90+30".into(),
                    |t| format!("{}+{}", t.base_seconds / 60, t.increment_seconds),
                ),
            ),
            (
                "Abroad (y/n)",
                if event.is_some_and(|e| e.abroad) {
                    "y".into()
                } else {
                    "n".into()
                },
            ),
            (
                "Age limit (empty: none)",
                event
                    .and_then(|e| e.age_limit)
                    .map(|a| a.to_string())
                    .unwrap_or_default(),
            ),
            (
                "Pairing (swiss, round_robin, …)",
                event.map_or_else(|| "swiss".into(), |e| e.pairing.clone()),
            ),
            (
                PLAYOFF_OF,
                event.and_then(|e| e.playoff_of.clone()).unwrap_or_default(),
            ),
        ];
        Self {
            kind,
            fields,
            focus: 0,
        }
    }

    /// The event form with the day its results were received (for a rulebook that rates by
    /// period).
    pub fn with_received(mut self, event: Option<&Event>) -> Self {
        let received = event
            .and_then(|e| e.received)
            .map(|d| d.to_string())
            .unwrap_or_default();
        self.fields.push((RECEIVED, received));
        self
    }

    /// Sets a field's text, if the form has that field.
    pub fn set(&mut self, label: &str, text: &str) {
        if let Some((_, value)) = self.fields.iter_mut().find(|(l, _)| *l == label) {
            *value = text.to_string();
        }
    }

    fn date(&self, label: &str) -> Result<Option<NaiveDate>, String> {
        let text = self.value(label);
        if text.is_empty() {
            return Ok(None);
        }
        parse_date(text)
            .map(Some)
            .ok_or_else(|| format!("{label}: '{text}' is not a date"))
    }

    /// The player the form describes, with his rating and rated games before his first rated
    /// event on the main list.
    pub fn to_player(&self) -> Result<(PlayerInfo, Option<(i32, u32)>), String> {
        let name = self.value("Name (Surname, First)");
        let id = self.value("Id");
        if name.is_empty() || id.is_empty() {
            return Err("a player needs a name and an id".into());
        }
        let fide_id = match self.value("FIDE id") {
            "" => None,
            f => Some(
                f.parse::<u64>()
                    .map_err(|_| format!("FIDE id: '{f}' is not a number"))?,
            ),
        };
        let sex = match self.value("Sex (f/m)").to_ascii_lowercase().as_str() {
            "" => None,
            "f" | "n" | "w" => Some(Sex::Female),
            "m" => Some(Sex::Male),
            other => return Err(format!("Sex: '{other}' is not f or m")),
        };
        let federation = self.value(FEDERATION).to_ascii_uppercase();
        let info = PlayerInfo {
            reentries: Vec::new(),
            id: id.to_string(),
            name: name.to_string(),
            federation: (!federation.is_empty()).then_some(federation),
            club: Some(self.value(CLUB).to_string()).filter(|c| !c.is_empty()),
            fide_id,
            born: self.date("Born (YYYY-MM-DD)")?,
            sex,
            fide: Vec::new(),
            national: Vec::new(),
        };
        let rating = match self.value("Rating (empty: none)") {
            "" => None,
            r => {
                let rating = r
                    .parse::<i32>()
                    .ok()
                    .filter(|r| (0..=4000).contains(r))
                    .ok_or(format!("Rating: '{r}' is not a rating"))?;
                let games = match self.value("Rated games so far") {
                    "" => 0,
                    g => g
                        .parse::<u32>()
                        .map_err(|_| format!("Rated games: '{g}' is not a count"))?,
                };
                Some((rating, games))
            }
        };
        Ok((info, rating))
    }

    /// The event the form describes (without participants and games). `editing`: the event
    /// as it stands, whose details the form does not show (an SSL assignment, the day the
    /// results were received, time added after a move while base and increment stay) are
    /// kept.
    pub fn to_event(&self, editing: Option<&Event>) -> Result<Event, String> {
        let name = self.value("Name");
        let id = match self.value("Id") {
            "" => crate::model::fold_name(name).replace(' ', "-"),
            id => id.to_string(),
        };
        if id.is_empty() {
            return Err("an event needs a name or an id".into());
        }
        let start = self
            .date("Start (YYYY-MM-DD)")?
            .ok_or("Start: a date is needed")?;
        let end = self.date("End (YYYY-MM-DD)")?.unwrap_or(start);
        if start > end {
            return Err(format!("the event starts {start} after it ends {end}"));
        }
        let tc = self.value("Time control (90+30)");
        let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
        let minutes = base
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|m| *m >= 0.0 && m.is_finite());
        let increment = inc.trim().parse::<u32>().ok();
        let (Some(minutes), Some(increment)) = (minutes, increment) else {
            return Err(format!("Time control: '{tc}' is not minutes+seconds"));
        };
        let age_limit = match self.value("Age limit (empty: none)") {
            "" => None,
            a => Some(
                a.parse::<u32>()
                    .map_err(|_| format!("Age limit: '{a}' is not an age"))?,
            ),
        };
        let playoff_of = Some(self.value(PLAYOFF_OF).to_string()).filter(|v| !v.is_empty());
        // A form with the field says when the results came (empty: at the end); one without
        // keeps what the event had.
        let received = if self.fields.iter().any(|(l, _)| *l == RECEIVED) {
            self.date(RECEIVED)?
        } else {
            editing.and_then(|e| e.received)
        };
        if let Some(r) = received.filter(|r| *r < end) {
            return Err(format!("{RECEIVED}: {r} is before the event ends {end}"));
        }
        if playoff_of.as_deref() == Some(id.as_str()) {
            return Err(format!("{PLAYOFF_OF}: a play-off cannot decide itself"));
        }
        let base_seconds = (minutes * 60.0).round() as u32;
        let added = editing
            .and_then(|e| e.time_control.as_ref())
            .filter(|t| (t.base_seconds, t.increment_seconds) == (base_seconds, increment))
            .map(|t| t.added.clone())
            .unwrap_or_default();
        Ok(Event {
            id,
            name: name.to_string(),
            start,
            end,
            time_control: Some(TimeControl {
                base_seconds,
                increment_seconds: increment,
                added,
            }),
            abroad: matches!(
                self.value("Abroad (y/n)").to_ascii_lowercase().as_str(),
                "y" | "yes" | "k" | "kyllä"
            ),
            official_representation: editing.is_some_and(|e| e.official_representation),
            age_limit,
            playoff_of,
            received,
            pairing: self.value("Pairing (swiss, round_robin, …)").to_string(),
            participants: Vec::new(),
            games: Vec::new(),
        })
    }
}

/// A date as the officer types it: `27.2.2026` (day.month.year, as Finns write it) or ISO
/// `2026-02-27`.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(text, "%d.%m.%Y"))
        .ok()
}

/// Reads a pairing keyed as start numbers: `12 7` (12 white, 7 black) or `12` alone (a bye).
/// The board is the round's next free one; the result comes later.
pub fn parse_pairing(text: &str, event: &Event, round: u32) -> Result<Game, String> {
    let numbers: Vec<&str> = text.split_whitespace().collect();
    let player = |s: &str| -> Result<PlayerIdx, String> {
        let n: usize = s
            .parse()
            .map_err(|_| format!("'{s}' is not a start number"))?;
        event.by_start_number(n).ok_or_else(|| {
            format!(
                "there is no start number {n} (1–{})",
                event.participants.len()
            )
        })
    };
    let (white, black) = match numbers.as_slice() {
        [w] => (player(w)?, None),
        [w, b] => (player(w)?, Some(player(b)?)),
        _ => return Err("key the start numbers of white and black, e.g. 12 7".into()),
    };
    let board = event
        .games
        .iter()
        .filter(|g| g.round == round)
        .map(|g| g.board)
        .max()
        .unwrap_or(0)
        + 1;
    let result = black
        .is_none()
        .then(|| crate::model::GameResult::unplayed(2, 0));
    Ok(Game {
        round,
        board,
        white: player_u32(white),
        black: black.map(player_u32),
        result,
        date: None,
        received: None,
    })
}
