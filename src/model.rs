//! The federation's domain: players, events, games and results as every layer sees them.
//!
//! Plain data with no rating arithmetic (that is `rules/`) and no storage or terminal concerns.
//! Players are referred to by their index in the ledger's player table (`PlayerIdx`), so the
//! rating engine never compares strings in its inner loops.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// Index of a player in the table the ledger was given.
pub type PlayerIdx = usize;

/// A rating on any list: a whole number once published.
pub type Rating = i32;

/// What a game result gives each side, in half points, and whether the game was played.
///
/// A result gives each side 0, ½ or 1 with a total of at most 1. Only played games are rated
/// (SSL 2.9); forfeits, double forfeits and byes are stored and shown, never rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    pub white_halves: u8,
    pub black_halves: u8,
    pub played: bool,
}

impl GameResult {
    pub const WHITE_WINS: Self = Self::played(2, 0);
    pub const BLACK_WINS: Self = Self::played(0, 2);
    pub const DRAW: Self = Self::played(1, 1);

    pub const fn played(white_halves: u8, black_halves: u8) -> Self {
        Self {
            white_halves,
            black_halves,
            played: true,
        }
    }

    pub const fn unplayed(white_halves: u8, black_halves: u8) -> Self {
        Self {
            white_halves,
            black_halves,
            played: false,
        }
    }

    /// Parses the codes of the `rate` contract and of the round-entry screen:
    /// `1-0`, `0-1`, `1/2-1/2` (`½-½`), `0-0`, `1/2-0`, `0-1/2` for played games and
    /// `+-`, `-+`, `--` for games decided without play.
    pub fn parse(code: &str) -> Option<Self> {
        let code = code.trim();
        match code {
            "+-" => return Some(Self::unplayed(2, 0)),
            "-+" => return Some(Self::unplayed(0, 2)),
            "--" => return Some(Self::unplayed(0, 0)),
            _ => {}
        }
        let (white, black) = code.split_once('-')?;
        let side = |s: &str| match s {
            "1" => Some(2u8),
            "0" => Some(0),
            "1/2" | "½" => Some(1),
            _ => None,
        };
        let (w, b) = (side(white)?, side(black)?);
        (w + b <= 2).then_some(Self::played(w, b))
    }

    /// A result keyed on a board (the workstation's keys, the command line's `result`): on a
    /// bye only the player's own score counts — `=` is a half-point bye, `1/2-0` as every file
    /// writes it — and a bye is never a played game.
    pub fn keyed_on(self, bye: bool) -> Self {
        if bye {
            Self::unplayed(self.white_halves, 0)
        } else {
            self
        }
    }

    /// The result as a bye carries it: a bye is never a played game, whatever its code.
    pub fn on_board(self, bye: bool) -> Self {
        if bye {
            Self {
                played: false,
                ..self
            }
        } else {
            self
        }
    }

    /// The contract's code for this result (the inverse of [`GameResult::parse`], with
    /// [`GameResult::on_board`] for a bye): `1-0`, `0-1`, `1/2-1/2`, `0-0`, `1/2-0`, `0-1/2`
    /// for played games, `+-`, `-+`, `--` for unplayed ones of whole points. `+` and `-` say a
    /// whole point or none, so an unplayed result with a half point (a half-point bye) is
    /// written with its figures, `1/2-0` or `0-1/2`: the contract's bye code, which keeps the
    /// half point wherever the result is written and read again.
    pub fn code(self) -> String {
        if !self.played && self.white_halves != 1 && self.black_halves != 1 {
            let side = |h: u8| if h > 0 { '+' } else { '-' };
            return format!("{}{}", side(self.white_halves), side(self.black_halves));
        }
        let side = |h: u8| match h {
            2 => "1",
            1 => "1/2",
            _ => "0",
        };
        format!("{}-{}", side(self.white_halves), side(self.black_halves))
    }
}

/// Time added after a given move (e.g. 30 minutes after move 40).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedTime {
    pub after_move: u32,
    pub seconds: u32,
}

/// A time control: base time, increment per move and time added after given moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    pub base_seconds: u32,
    pub increment_seconds: u32,
    pub added: Vec<AddedTime>,
}

impl TimeControl {
    /// Seconds a player has for his first 60 moves: the base, 60 increments and every period
    /// added after a move before the 60th (SSL 2.8; the same reckoning in ISL and TSF).
    pub fn seconds_for_60_moves(&self) -> u64 {
        let added: u64 = self
            .added
            .iter()
            .filter(|a| a.after_move < 60)
            .map(|a| u64::from(a.seconds))
            .sum();
        u64::from(self.base_seconds) + 60 * u64::from(self.increment_seconds) + added
    }
}

/// One game of an event. `black` is `None` for a bye.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Game {
    pub round: u32,
    /// The board within the round (1-based): with the round, the game's key in its event.
    pub board: u32,
    /// The players' indices, kept in 32 bits: a federation's record holds millions of games
    /// ([`Game::white`], [`Game::black`]; [`player_u32`] for a game written).
    pub white: u32,
    pub black: Option<u32>,
    /// `None`: paired, no result yet (never rated).
    pub result: Option<GameResult>,
    /// The day the game was actually played, when it differs from the schedule (SSL 2.12).
    #[serde(with = "day::option")]
    pub date: Option<NaiveDate>,
    /// The day the federation received this game's result, when it is its own (rounds
    /// reported as they are played; ISL rates a game by it); `None`: the event's `received`.
    #[serde(default, with = "day::option")]
    pub received: Option<NaiveDate>,
}

/// An audit entry is hashed as its JSON, so the JSON of a game stored before games kept their
/// own receipt date must stay what it was: without one it has no `received` key. Binary
/// records (bincode, which reads fields by position) always carry the field.
impl Serialize for Game {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Day<'a>(&'a Option<NaiveDate>);
        impl Serialize for Day<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                day::option::serialize(self.0, s)
            }
        }
        let received = self.received.is_some() || !s.is_human_readable();
        let mut st = s.serialize_struct("Game", 6 + usize::from(received))?;
        st.serialize_field("round", &self.round)?;
        st.serialize_field("board", &self.board)?;
        st.serialize_field("white", &self.white())?;
        st.serialize_field("black", &self.black())?;
        st.serialize_field("result", &self.result)?;
        st.serialize_field("date", &Day(&self.date))?;
        if received {
            st.serialize_field("received", &Day(&self.received))?;
        }
        st.end()
    }
}

/// Why a game cannot stand beside the other games of its round: the one check of a game's
/// place, for a `rate` document and for the workstation alike (two players, one game a player
/// a round — a bye counts —, a board once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clash {
    /// White and black are the same player.
    AgainstHimself(PlayerIdx),
    /// The player has another game in the round.
    TwoGames(PlayerIdx),
    /// Another game of the round has the board.
    BoardTaken,
}

impl Clash {
    /// The clash of `game` with `others`, the other games of its round (a game being replaced
    /// left out), if it has one.
    pub fn of<'a>(game: &Game, others: impl IntoIterator<Item = &'a Game>) -> Option<Clash> {
        if game.black() == Some(game.white()) {
            return Some(Clash::AgainstHimself(game.white()));
        }
        for other in others {
            debug_assert_eq!(other.round, game.round, "games of one round");
            let plays = |p: PlayerIdx| other.white() == p || other.black() == Some(p);
            if let Some(p) = std::iter::once(game.white())
                .chain(game.black())
                .find(|&p| plays(p))
            {
                return Some(Clash::TwoGames(p));
            }
            if other.board == game.board {
                return Some(Clash::BoardTaken);
            }
        }
        None
    }

    /// What it says of `game`, its players named by `name`: `… plays against himself`,
    /// `… has two games in round 3`, `board 2 of round 3 is taken twice`.
    pub fn describe(&self, game: &Game, name: impl Fn(PlayerIdx) -> String) -> String {
        match *self {
            Clash::AgainstHimself(p) => format!("{} plays against himself", name(p)),
            Clash::TwoGames(p) => format!("{} has two games in round {}", name(p), game.round),
            Clash::BoardTaken => format!(
                "board {} of round {} is taken twice",
                game.board, game.round
            ),
        }
    }
}

/// A player's index as a game keeps it. Indices come from the record's players, which are
/// fewer than 2³² by far (a federation of millions); one that is not is a bug, not an input.
pub fn player_u32(p: PlayerIdx) -> u32 {
    u32::try_from(p).expect("a player index fits in 32 bits")
}

impl Game {
    /// The white player's index.
    pub fn white(&self) -> PlayerIdx {
        self.white as PlayerIdx
    }

    /// The black player's index (`None`: a bye).
    pub fn black(&self) -> Option<PlayerIdx> {
        self.black.map(|b| b as PlayerIdx)
    }

    /// A game that is rated: both players present and both made a move (SSL 2.9).
    pub fn is_rated_game(&self) -> bool {
        self.black().is_some() && self.result.is_some_and(|r| r.played)
    }
}

/// An event: a tournament, or one league game when it is its own rating event (SSL 2.11).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub id: String,
    pub name: String,
    #[serde(with = "day")]
    pub start: NaiveDate,
    #[serde(with = "day")]
    pub end: NaiveDate,
    /// `None`: a standard game of at least 90 minutes.
    pub time_control: Option<TimeControl>,
    pub abroad: bool,
    /// A Finn without a selo plays this event abroad on an SSL assignment (SSL 2.2).
    pub official_representation: bool,
    /// The highest age the players may reach in the event's year (SSL 3.6).
    pub age_limit: Option<u32>,
    /// For a play-off, the id of the event whose winner or placing it decides (SSL 2.10).
    pub playoff_of: Option<String>,
    pub pairing: String,
    /// The day the federation received the results (ISL and TSF rate by it); `None`: with
    /// the event's end.
    #[serde(with = "day::option")]
    pub received: Option<NaiveDate>,
    /// The players entered, in start-number order (start number = position + 1).
    pub participants: Vec<PlayerIdx>,
    pub games: Vec<Game>,
}

/// The pairing of a league or other team event.
pub const TEAM_PAIRING: &str = "team";

/// Seconds for 60 moves of an event without a recorded time control: a standard game of
/// 90 minutes.
const STANDARD_SECONDS: u64 = 90 * 60;

impl Event {
    /// An event of these days with nothing else said of it: no name, a standard game (no time
    /// control recorded), at home, no age limit, no play-off, the default pairing, received
    /// with its end, no players and no games. The other fields are set on it, or given with
    /// struct update syntax: `Event { games, ..Event::new("e1", start, end) }`.
    pub fn new(id: impl Into<String>, start: NaiveDate, end: NaiveDate) -> Event {
        Event {
            id: id.into(),
            name: String::new(),
            start,
            end,
            time_control: None,
            abroad: false,
            official_representation: false,
            age_limit: None,
            playoff_of: None,
            pairing: String::new(),
            received: None,
            participants: Vec::new(),
            games: Vec::new(),
        }
    }

    /// The name the officer knows the event by: its name, or its id when it has none.
    pub fn title(&self) -> &str {
        if self.name.is_empty() {
            &self.id
        } else {
            &self.name
        }
    }

    /// Seconds a player has for the first 60 moves of the event's games (SSL 2.8, ISL "Kröfur
    /// um tímamörk", TSF A.2 reckon alike); an event without a recorded time control is a
    /// standard game.
    pub fn seconds_for_60_moves(&self) -> u64 {
        self.time_control
            .as_ref()
            .map_or(STANDARD_SECONDS, TimeControl::seconds_for_60_moves)
    }

    /// The players of the games, in order of first appearance: the participants of an event
    /// given without a list of them.
    pub fn players_in_games(&self) -> Vec<PlayerIdx> {
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for g in &self.games {
            for p in std::iter::once(g.white()).chain(g.black()) {
                if seen.insert(p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Whether it is a league or other team event (`pairing` `team`): its players play for
    /// teams, match by match.
    pub fn is_team_event(&self) -> bool {
        self.pairing == TEAM_PAIRING
    }

    /// The player with a start number (1-based).
    pub fn by_start_number(&self, number: usize) -> Option<PlayerIdx> {
        number
            .checked_sub(1)
            .and_then(|i| self.participants.get(i))
            .copied()
    }
}

/// A FIDE rating list entry for one player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FideEntry {
    #[serde(with = "day")]
    pub list_date: NaiveDate,
    pub standard: Option<Rating>,
    pub rapid: Option<Rating>,
    pub blitz: Option<Rating>,
}

impl FideEntry {
    pub fn rating(&self, kind: FideKind) -> Option<Rating> {
        match kind {
            FideKind::Standard => self.standard,
            FideKind::Rapid => self.rapid,
            FideKind::Blitz => self.blitz,
        }
    }

    pub fn rating_mut(&mut self, kind: FideKind) -> &mut Option<Rating> {
        match kind {
            FideKind::Standard => &mut self.standard,
            FideKind::Rapid => &mut self.rapid,
            FideKind::Blitz => &mut self.blitz,
        }
    }
}

/// FIDE's three rating lists.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::VariantArray,
)]
pub enum FideKind {
    Standard,
    Rapid,
    Blitz,
}

impl FideKind {
    pub const ALL: &'static [FideKind] = <FideKind as strum::VariantArray>::VARIANTS;

    pub fn name(self) -> &'static str {
        match self {
            FideKind::Standard => "standard",
            FideKind::Rapid => "rapid",
            FideKind::Blitz => "blitz",
        }
    }

    /// The kind a file name speaks of (`standard_rating_list.txt`, `rapid_sep26frl.zip`).
    pub fn from_file_name(name: &str) -> Option<FideKind> {
        let name = name.to_ascii_lowercase();
        FideKind::ALL
            .iter()
            .copied()
            .find(|k| name.contains(k.name()) || (*k == FideKind::Standard && name.contains("std")))
    }
}

/// A foreign national rating (SSL 3.9).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NationalEntry {
    pub federation: String,
    pub standard: Option<Rating>,
    pub rapid: Option<Rating>,
    /// The federation's rating system is accepted as comparable to ours.
    pub comparable: bool,
}

/// The sex recorded for a player (selection lists for women, SSL 5.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sex {
    Female,
    Male,
}

/// What the rating engine needs to know of a player besides his rating state, and what the
/// officer tells players apart by (birth year, club).
///
/// Serialised by hand (see its `Serialize`): a human-readable form (JSON: backups, audit hashes)
/// leaves out an absent club and an empty list of re-entries, binary records always carry them.
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
pub struct PlayerInfo {
    pub id: String,
    pub name: String,
    pub federation: Option<String>,
    /// The club he plays for (the selo list's `Seura`); never used in rating.
    #[serde(default)]
    pub club: Option<String>,
    pub fide_id: Option<u64>,
    #[serde(with = "day::option")]
    pub born: Option<NaiveDate>,
    pub sex: Option<Sex>,
    /// FIDE rating list entries, oldest first.
    pub fide: Vec<FideEntry>,
    pub national: Vec<NationalEntry>,
    /// The days he entered the federation's list anew, oldest first (ISL: an Icelander coming
    /// home after a long stay abroad).
    #[serde(default)]
    pub reentries: Vec<Reentry>,
}

/// What a player entered a list on: his FIDE rating, or the national rating of his country.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Entry {
    /// His FIDE standard rating.
    Fide,
    /// The national rating of his country.
    National,
}

impl Entry {
    /// The name the `rate` document and the command line give it.
    pub fn code(self) -> &'static str {
        match self {
            Entry::Fide => "fide",
            Entry::National => "national",
        }
    }

    /// The rating it names, for a sentence: "his FIDE rating".
    pub fn rating_name(self) -> &'static str {
        match self {
            Entry::Fide => "his FIDE rating",
            Entry::National => "his national rating",
        }
    }

    /// The rating it names, before a figure: "FIDE rating 2050".
    pub fn label(self) -> &'static str {
        match self {
            Entry::Fide => "FIDE rating",
            Entry::National => "national rating",
        }
    }
}

/// A player entered the list anew on a day, on a rating the officer took from FIDE's list or
/// from a national one: his state from then on starts from it (ISL "Íslendingur sem kemur
/// erlendis frá eftir langdvöl kemur inn á íslenska skákstigalistann á FIDE stigum eða
/// landstigum").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reentry {
    #[serde(with = "day")]
    pub date: NaiveDate,
    pub rating: Rating,
    pub on: Entry,
}

/// An audit entry is hashed as its JSON (`store::records::AuditEntry::hash`), so the JSON of a
/// player stored before clubs (or re-entries) were kept must stay what it was: without a club it
/// has no `club` key, without a re-entry no `reentries`. Binary records (bincode, which reads
/// fields by position) always carry both.
impl Serialize for PlayerInfo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Born<'a>(&'a Option<NaiveDate>);
        impl Serialize for Born<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                day::option::serialize(self.0, s)
            }
        }
        let binary = !s.is_human_readable();
        let club = self.club.is_some() || binary;
        let reentries = !self.reentries.is_empty() || binary;
        let mut st =
            s.serialize_struct("PlayerInfo", 8 + usize::from(club) + usize::from(reentries))?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("federation", &self.federation)?;
        if club {
            st.serialize_field("club", &self.club)?;
        } else {
            st.skip_field("club")?;
        }
        st.serialize_field("fide_id", &self.fide_id)?;
        st.serialize_field("born", &Born(&self.born))?;
        st.serialize_field("sex", &self.sex)?;
        st.serialize_field("fide", &self.fide)?;
        st.serialize_field("national", &self.national)?;
        if reentries {
            st.serialize_field("reentries", &self.reentries)?;
        } else {
            st.skip_field("reentries")?;
        }
        st.end()
    }
}

impl PlayerInfo {
    /// Whether the player represents `federation` (a FIDE code), asked with the database's
    /// home federation (`Rulebook::home_federation`): a player without a recorded federation
    /// belongs to it.
    pub fn plays_for(&self, federation: &str) -> bool {
        self.federation
            .as_deref()
            .is_none_or(|f| f.eq_ignore_ascii_case(federation))
    }

    /// The newest FIDE list entry published on or before `date`. Not a player's rating of a
    /// tempo: an entry may lack it (see [`PlayerInfo::fide_rating_on`]).
    pub fn fide_on(&self, date: NaiveDate) -> Option<&FideEntry> {
        self.fide
            .iter()
            .filter(|e| e.list_date <= date)
            .max_by_key(|e| e.list_date)
    }

    /// The FIDE rating of one tempo on a date: the newest entry published on or before `date`
    /// that has a rating of that tempo. An entry without it (a rapid-only list, a month in
    /// which only another list was imported) says nothing about that tempo.
    pub fn fide_rating_on(&self, date: NaiveDate, kind: FideKind) -> Option<Rating> {
        self.fide_rating_dated_on(date, kind).map(|(_, r)| r)
    }

    /// [`PlayerInfo::fide_rating_on`] with the date of the list that gave the rating.
    pub fn fide_rating_dated_on(
        &self,
        date: NaiveDate,
        kind: FideKind,
    ) -> Option<(NaiveDate, Rating)> {
        self.fide
            .iter()
            .filter(|e| e.list_date <= date)
            .filter_map(|e| e.rating(kind).map(|r| (e.list_date, r)))
            .max_by_key(|(d, _)| *d)
    }
}

/// The published ratings any way in accepts: a whole number from 0 to 4000 (FIDE's highest
/// ever is under 2900; a 9999 is a typing error or a program's placeholder).
pub const RATINGS: std::ops::RangeInclusive<i64> = 0..=4000;

/// The highest round number an event may have: far beyond any real event (a double round
/// robin of 50 players has 98 rounds), and low enough that a date typed as a round (20251019)
/// is refused before it makes a crosstable or a TRF of millions of columns.
pub const MAX_ROUND: u32 = 999;

/// The highest board number of a round: beyond any real round (an open of 20 000 players has
/// 10 000 boards).
pub const MAX_BOARD: u32 = 99_999;

/// The years a date of the record may fall in: chess ratings begin after 1850, and a year
/// beyond 2100 (or 0000, or 9999) is a typing error.
pub const YEARS: std::ops::RangeInclusive<i32> = 1850..=2100;

/// Whether a date falls in [`YEARS`].
pub fn plausible_date(date: NaiveDate) -> bool {
    use chrono::Datelike;
    YEARS.contains(&date.year())
}

/// Characters that reorder the text around them on a screen (bidirectional overrides and
/// isolates, marks): in a name they can make a list show what it does not hold.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// How a federation writes a player's name on its screens and in its messages. A name is
/// stored as TRF files and FIDE lists write it, `Surname, First`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameOrder {
    /// As stored: `Virtanen, Aino` (Finland's selo list, Turkey's ÜKD list).
    SurnameFirst,
    /// First name first, as Icelanders write names and sort their list: `Jón Guðmundsson`.
    GivenFirst,
}

impl NameOrder {
    /// A stored name as the federation writes it. A name without both parts (no comma, or
    /// nothing on one side of it) is written as stored.
    pub fn write(self, stored: &str) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        match self {
            Self::SurnameFirst => Cow::Borrowed(stored),
            Self::GivenFirst => match stored.split_once(',') {
                Some((surname, given))
                    if !surname.trim().is_empty() && !given.trim().is_empty() =>
                {
                    // Written by hand: drawn for every row on screen at every frame.
                    let (given, surname) = (given.trim(), surname.trim());
                    let mut name = String::with_capacity(given.len() + 1 + surname.len());
                    name.push_str(given);
                    name.push(' ');
                    name.push_str(surname);
                    Cow::Owned(name)
                }
                _ => Cow::Borrowed(stored),
            },
        }
    }
}

/// A name folded for search and indexes: lowercase, with the accents of Nordic, Icelandic,
/// Turkish and common European letters removed (`Järvinen` → `jarvinen`, `Åberg` → `aberg`,
/// `Þórhallsdóttir` → `thorhallsdottir`, `Ağrı` → `agri`). Letters that are spelt out in
/// ASCII fold to their spelling (þ → th, æ → ae, ß → ss), so a name typed on a keyboard
/// without them is found too.
pub fn fold_name(name: &str) -> String {
    let mut folded = String::with_capacity(name.len());
    fold_name_into(name, &mut folded);
    folded
}

/// [`fold_name`], written at the end of `folded` (an index of many names folds them into one
/// text).
pub fn fold_name_into(name: &str, folded: &mut String) {
    for c in name.chars() {
        // ASCII folds to its lowercase (most of most names).
        if c.is_ascii() {
            folded.push(c.to_ascii_lowercase());
            continue;
        }
        // Turkish İ lowercases to i with a combining dot: fold it before lowercasing.
        if c == 'İ' {
            folded.push('i');
            continue;
        }
        for c in c.to_lowercase() {
            match fold_letter(c) {
                Fold::One(c) => folded.push(c),
                Fold::Two(s) => folded.push_str(s),
                Fold::Drop => {}
            }
        }
    }
}

/// What one lowercase letter folds to.
enum Fold {
    One(char),
    Two(&'static str),
    Drop,
}

fn fold_letter(c: char) -> Fold {
    Fold::One(match c {
        'ä' | 'å' | 'á' | 'à' | 'â' | 'ã' | 'ą' => 'a',
        'ö' | 'ø' | 'ó' | 'ò' | 'ô' | 'õ' | 'ő' => 'o',
        'é' | 'è' | 'ê' | 'ë' | 'ę' | 'ě' => 'e',
        'ü' | 'ú' | 'ù' | 'û' | 'ű' | 'ů' => 'u',
        'í' | 'ì' | 'î' | 'ï' | 'ı' => 'i',
        'š' | 'ś' | 'ş' => 's',
        'ž' | 'ź' | 'ż' => 'z',
        'č' | 'ć' | 'ç' => 'c',
        'ñ' | 'ń' | 'ň' => 'n',
        'ý' | 'ÿ' => 'y',
        'ğ' => 'g',
        'ř' => 'r',
        'ł' => 'l',
        'đ' | 'ď' | 'ð' => 'd',
        'ť' => 't',
        'þ' => return Fold::Two("th"),
        'æ' => return Fold::Two("ae"),
        'ß' => return Fold::Two("ss"),
        // A combining dot above (from a decomposed İ or ı̇).
        '\u{307}' => return Fold::Drop,
        other => other,
    })
}

/// Dates as `YYYY-MM-DD` in human-readable formats (JSON, backups) and as days since
/// 1970-01-01 in binary records (3 bytes instead of 11).
pub mod day {
    use chrono::NaiveDate;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    const EPOCH: NaiveDate = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a valid date");

    pub fn serialize<S: Serializer>(date: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            match iso(date) {
                Some(text) => s.serialize_str(
                    std::str::from_utf8(&text).map_err(<S::Error as serde::ser::Error>::custom)?,
                ),
                None => s.collect_str(&date.format("%Y-%m-%d")),
            }
        } else {
            s.serialize_i32(
                (*date - EPOCH)
                    .num_days()
                    .clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
            )
        }
    }

    /// `YYYY-MM-DD`, as chrono's `%Y-%m-%d` writes a year of four digits, without parsing the
    /// format at every date (a backup writes tens of millions); `None` for the years chrono
    /// writes with a sign.
    fn iso(date: &NaiveDate) -> Option<[u8; 10]> {
        use chrono::Datelike;
        let year = u32::try_from(date.year()).ok().filter(|&y| y <= 9999)?;
        let digit = |v: u32| b'0' + (v % 10) as u8;
        let (month, day) = (date.month(), date.day());
        Some([
            digit(year / 1000),
            digit(year / 100),
            digit(year / 10),
            digit(year),
            b'-',
            digit(month / 10),
            digit(month),
            b'-',
            digit(day / 10),
            digit(day),
        ])
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDate, D::Error> {
        if d.is_human_readable() {
            let text = String::deserialize(d)?;
            NaiveDate::parse_from_str(&text, "%Y-%m-%d").map_err(D::Error::custom)
        } else {
            let days = i32::deserialize(d)?;
            EPOCH
                .checked_add_signed(chrono::TimeDelta::days(i64::from(days)))
                .ok_or_else(|| D::Error::custom("day out of range"))
        }
    }

    pub mod option {
        use chrono::NaiveDate;
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        #[derive(Serialize, Deserialize)]
        struct Day(#[serde(with = "super")] NaiveDate);

        pub fn serialize<S: Serializer>(date: &Option<NaiveDate>, s: S) -> Result<S::Ok, S::Error> {
            date.map(Day).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDate>, D::Error> {
            Ok(Option::<Day>::deserialize(d)?.map(|Day(date)| date))
        }
    }
}

/// The dates unit tests of every layer build their data from (the integration tests have
/// theirs in `tests/it/common`).
#[cfg(test)]
pub mod fixture {
    use chrono::NaiveDate;

    /// A date written as the files write it: `2025-03-01`.
    pub fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("a test date as YYYY-MM-DD")
    }

    /// A date by its year, month and day.
    pub fn ymd(year: i32, month: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(year, month, day).expect("a test date that exists")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's JSON (backups, audit hashes) has no `received` key when the game has no receipt
    /// date of its own: an entry written before games kept one hashes as it did.
    #[test]
    fn a_games_json_carries_its_receipt_date_only_when_it_has_one() {
        let mut game = Game {
            round: 1,
            board: 2,
            white: 0,
            black: Some(1),
            result: Some(GameResult::DRAW),
            date: None,
            received: None,
        };
        let json = serde_json::to_string(&game).expect("json");
        assert_eq!(
            json,
            r#"{"round":1,"board":2,"white":0,"black":1,"result":{"white_halves":1,"black_halves":1,"played":true},"date":null}"#
        );
        assert_eq!(serde_json::from_str::<Game>(&json).expect("read"), game);
        game.received = Some(fixture::day("2025-03-03"));
        let json = serde_json::to_string(&game).expect("json");
        assert!(
            json.ends_with(r#""date":null,"received":"2025-03-03"}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Game>(&json).expect("read"), game);
    }

    /// A day is written as chrono's `%Y-%m-%d` writes it (an audit entry hashes as its JSON):
    /// at the edges of four-digit years, months and days, and with a sign outside them.
    #[test]
    fn a_day_is_written_as_chrono_writes_it() {
        #[derive(Serialize, Deserialize)]
        struct Day(#[serde(with = "day")] NaiveDate);
        let days = [
            (0, 1, 1),
            (9, 9, 9),
            (999, 12, 31),
            (1000, 1, 10),
            (1970, 1, 1),
            (2024, 2, 29),
            (2025, 10, 20),
            (9999, 12, 31),
            (10000, 1, 1),
            (-1, 6, 15),
            (-2000, 11, 30),
        ];
        for (y, m, d) in days {
            let date = NaiveDate::from_ymd_opt(y, m, d).expect("a valid date");
            let json = serde_json::to_string(&Day(date)).expect("json");
            assert_eq!(json, format!("\"{}\"", date.format("%Y-%m-%d")), "{date:?}");
            let read: Day = serde_json::from_str(&json).expect("read back");
            assert_eq!(read.0, date);
        }
    }

    /// A game's place in its round, checked once for a document and for the workstation: two
    /// players, one game a player a round (a bye counts), a board once.
    #[test]
    fn a_game_clashes_with_its_round_as_the_rules_say() {
        let game = |board, white, black| Game {
            round: 3,
            board,
            white,
            black,
            result: None,
            date: None,
            received: None,
        };
        let round = [game(1, 0, Some(1)), game(2, 2, None)];
        let name = |p: PlayerIdx| format!("player {p}");
        assert_eq!(Clash::of(&game(3, 4, Some(5)), &round), None);
        assert_eq!(
            Clash::of(&game(3, 4, Some(4)), &round),
            Some(Clash::AgainstHimself(4))
        );
        assert_eq!(
            Clash::of(&game(3, 4, Some(1)), &round),
            Some(Clash::TwoGames(1))
        );
        // A bye is a game of the round.
        assert_eq!(
            Clash::of(&game(3, 2, Some(4)), &round),
            Some(Clash::TwoGames(2))
        );
        assert_eq!(
            Clash::of(&game(2, 4, Some(5)), &round),
            Some(Clash::BoardTaken)
        );
        let g = game(2, 4, Some(1));
        assert_eq!(
            Clash::of(&g, &round)
                .map(|c| c.describe(&g, name))
                .as_deref(),
            Some("player 1 has two games in round 3")
        );
        assert_eq!(
            Clash::BoardTaken.describe(&g, name),
            "board 2 of round 3 is taken twice"
        );
        assert_eq!(
            Clash::AgainstHimself(4).describe(&g, name),
            "player 4 plays against himself"
        );
    }

    #[test]
    fn a_name_is_written_in_the_federations_order() {
        let given = NameOrder::GivenFirst;
        assert_eq!(given.write("Guðmundsson, Jón"), "Jón Guðmundsson");
        assert_eq!(given.write(" Carlsen ,  Magnus "), "Magnus Carlsen");
        // Without both parts it stays as it is.
        for stored in ["Hannes", "Hannes, ", ", Hannes", ""] {
            assert_eq!(given.write(stored), stored);
        }
        assert_eq!(
            NameOrder::SurnameFirst.write("Virtanen, Aino"),
            "Virtanen, Aino"
        );
    }

    #[test]
    fn a_fide_rating_is_the_newest_entry_with_that_tempo() {
        let d = |m| NaiveDate::from_ymd_opt(2025, m, 1).expect("date");
        let entry = |m, standard, rapid| FideEntry {
            list_date: d(m),
            standard,
            rapid,
            blitz: None,
        };
        let info = PlayerInfo {
            fide: vec![
                entry(1, Some(2110), Some(2050)),
                entry(3, None, Some(2080)),
                entry(6, Some(2120), None),
            ],
            ..PlayerInfo::default()
        };
        assert_eq!(info.fide_rating_on(d(4), FideKind::Standard), Some(2110));
        assert_eq!(info.fide_rating_on(d(4), FideKind::Rapid), Some(2080));
        assert_eq!(info.fide_rating_on(d(6), FideKind::Standard), Some(2120));
        assert_eq!(info.fide_rating_on(d(6), FideKind::Rapid), Some(2080));
        assert_eq!(info.fide_rating_on(d(6), FideKind::Blitz), None);
        assert_eq!(
            info.fide_rating_on(d(1) - chrono::Days::new(1), FideKind::Standard),
            None
        );
    }

    /// A game as kept before its players were narrowed to 32 bits: the same fields, the players
    /// as `usize`, every field written (as a binary record writes a game).
    #[derive(Serialize)]
    struct WideGame {
        round: u32,
        board: u32,
        white: usize,
        black: Option<usize>,
        result: Option<GameResult>,
        #[serde(with = "day::option")]
        date: Option<NaiveDate>,
        #[serde(with = "day::option")]
        received: Option<NaiveDate>,
    }

    /// A record's bytes as the store writes them (bincode's standard configuration).
    fn binary<T: Serialize>(value: &T) -> Vec<u8> {
        bincode::serde::encode_to_vec(value, bincode::config::standard()).expect("encodes")
    }

    #[test]
    fn a_game_is_stored_and_written_as_before_its_players_were_narrowed() {
        let day = |d| NaiveDate::from_ymd_opt(2025, 3, d);
        let players = [
            (0, None),
            (1, Some(0)),
            (250, Some(251)),
            (65_535, Some(65_536)),
            (999_999, Some(1_000_000)),
            (u32::MAX, Some(u32::MAX - 1)),
        ];
        for (white, black) in players {
            for received in [None, day(9)] {
                let game = Game {
                    round: 3,
                    board: 12,
                    white,
                    black,
                    result: Some(GameResult::DRAW),
                    date: day(2),
                    received,
                };
                let wide = WideGame {
                    round: 3,
                    board: 12,
                    white: white as usize,
                    black: black.map(|b| b as usize),
                    result: Some(GameResult::DRAW),
                    date: day(2),
                    received,
                };
                let (stored, wide_stored) = (binary(&game), binary(&wide));
                assert_eq!(stored, wide_stored, "{white} {black:?} {received:?}");
                // JSON leaves out a receipt date the game does not have (the test above).
                if received.is_some() {
                    assert_eq!(
                        serde_json::to_string(&game).expect("json"),
                        serde_json::to_string(&wide).expect("json")
                    );
                }
                let back: Game =
                    bincode::serde::decode_from_slice(&wide_stored, bincode::config::standard())
                        .expect("decodes")
                        .0;
                assert_eq!(back, game);
                assert_eq!(back.white(), white as PlayerIdx);
                assert_eq!(back.black(), black.map(|b| b as PlayerIdx));
            }
        }
        // 32 bytes, not the 48 of two `usize` players: a federation holds millions of games.
        assert_eq!(std::mem::size_of::<Game>(), 32);
    }

    #[test]
    fn ascii_folds_as_the_general_path_folds_it() {
        // The fast path for ASCII must give what lowercasing and the letter table give.
        for c in (0..128u8).map(char::from) {
            let general: String = c
                .to_lowercase()
                .flat_map(|l| match fold_letter(l) {
                    Fold::One(f) => vec![f],
                    Fold::Two(s) => s.chars().collect(),
                    Fold::Drop => vec![],
                })
                .collect();
            assert_eq!(fold_name(&c.to_string()), general, "{c:?}");
        }
    }

    #[test]
    fn names_fold_accents_and_case() {
        assert_eq!(fold_name("Järvinen, Väinö"), "jarvinen, vaino");
        assert_eq!(fold_name("Åberg"), "aberg");
        assert_eq!(fold_name("Söderström"), "soderstrom");
    }

    #[test]
    fn icelandic_letters_fold_to_their_spelling() {
        assert_eq!(fold_name("Þórhallsdóttir, Þóra"), "thorhallsdottir, thora");
        assert_eq!(fold_name("Guðmundsson"), "gudmundsson");
        assert_eq!(fold_name("ÐÆÞ"), "daeth");
        assert_eq!(fold_name("Ægir Ýr Ösp"), "aegir yr osp");
        assert_eq!(
            fold_name("Sæþór Úlfur Ísak Árni Éla"),
            "saethor ulfur isak arni ela"
        );
    }

    #[test]
    fn turkish_letters_fold_and_dotted_capital_i_is_one_letter() {
        assert_eq!(fold_name("İstanbul"), "istanbul");
        assert_eq!(fold_name("İ").chars().count(), 1);
        assert_eq!(fold_name("Işık, Ağrı"), "isik, agri");
        assert_eq!(
            fold_name("Şahin Çelik Göğüş Ümit Öztürk"),
            "sahin celik gogus umit ozturk"
        );
        assert_eq!(fold_name("ĞŞÇIİÖÜ"), "gsciiou");
        // A decomposed dotted i (i + U+0307) folds to plain i.
        assert_eq!(fold_name("i\u{307}nce"), "ince");
    }

    #[test]
    fn result_codes_round_trip() {
        for code in [
            "1-0", "0-1", "1/2-1/2", "0-0", "1/2-0", "0-1/2", "+-", "-+", "--",
        ] {
            let r = GameResult::parse(code).expect(code);
            assert_eq!(r.code(), code);
        }
        assert_eq!(GameResult::parse("½-½"), Some(GameResult::DRAW));
    }

    /// SSL 2.9 and the contract's bye codes: an unplayed half point (a `0000 - H` bye of a TRF
    /// file) is written `1/2-0` (`0-1/2`), never `+-`, and reads back as the same half point
    /// on a bye.
    #[test]
    fn rule_2_9_an_unplayed_half_point_keeps_its_half() {
        for (result, code) in [
            (GameResult::unplayed(1, 0), "1/2-0"),
            (GameResult::unplayed(0, 1), "0-1/2"),
            (GameResult::unplayed(2, 0), "+-"),
            (GameResult::unplayed(0, 2), "-+"),
            (GameResult::unplayed(0, 0), "--"),
        ] {
            assert_eq!(result.code(), code);
            let back = GameResult::parse(code).map(|r| r.on_board(true));
            assert_eq!(back, Some(result), "{code} read back on a bye");
        }
        assert_eq!(GameResult::unplayed(1, 1).code(), "1/2-1/2");
        assert_eq!(GameResult::parse("½-0"), Some(GameResult::played(1, 0)));
    }

    #[test]
    fn bad_result_codes_are_refused() {
        for code in [
            "1-1", "2-0", "1/2-1", "", "draw", "1:0", "-", "+", "0.5-0.5",
        ] {
            assert_eq!(GameResult::parse(code), None, "{code}");
        }
    }

    #[test]
    fn rule_2_9_only_games_where_both_moved_are_rated() {
        let game = |black, result| Game {
            round: 1,
            board: 1,
            white: 0,
            black,
            result,
            date: None,
            received: None,
        };
        assert!(game(Some(1), Some(GameResult::DRAW)).is_rated_game());
        assert!(
            game(Some(1), Some(GameResult::played(0, 0))).is_rated_game(),
            "0-0 was played"
        );
        for code in ["+-", "-+", "--"] {
            let r = GameResult::parse(code).expect(code);
            assert!(!game(Some(1), Some(r)).is_rated_game(), "{code}");
        }
        assert!(
            !game(None, Some(GameResult::WHITE_WINS)).is_rated_game(),
            "a bye"
        );
        assert!(!game(Some(1), None).is_rated_game(), "no result yet");
    }

    #[test]
    fn minutes_for_60_moves_count_periods_before_the_60th_move() {
        let tc = TimeControl {
            base_seconds: 90 * 60,
            increment_seconds: 30,
            added: vec![
                AddedTime {
                    after_move: 40,
                    seconds: 30 * 60,
                },
                AddedTime {
                    after_move: 60,
                    seconds: 15 * 60,
                },
            ],
        };
        assert_eq!(tc.seconds_for_60_moves(), (90 + 30 + 30) * 60);
    }
}

/// Someone who may edit a database beside its owner: an OS user, or every member of an OS
/// group.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Officer {
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub group: bool,
}

impl std::fmt::Display for Officer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.group {
            write!(f, "group {}", self.name)
        } else {
            f.write_str(&self.name)
        }
    }
}
