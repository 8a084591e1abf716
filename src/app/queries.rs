//! What the officer asks of the database, for every rulebook and every front end: a player
//! named by id, FIDE id or name (by the one player matcher), an event named by id, an event's
//! standings, the national ratings going into an event (TRF26), the rows of an event's rating
//! report, a check of everything stored — and the edits named the same way on the command line
//! (a result by event, round and board; a title to confirm).

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::import::matcher::{Found, Incoming, Matcher};
use super::{Desk, DeskError, Edit, Federation};
use crate::book::Book;
use crate::export::report::ReportRow;
use crate::ledger::Ledger;
use crate::model::{Entry, FideKind, GameResult, PlayerIdx, Rating};
use crate::rules::{PlayerRating, Rulebook};
use crate::store::StoreError;

/// Why a query has no answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("no player has the id, FIDE id or name '{0}'")]
    NoPlayer(String),
    #[error("'{name}' is the name of {} players; give an id: {}", ids.len(), ids.join(", "))]
    SeveralPlayers { name: String, ids: Vec<String> },
    #[error("there is no event '{0}'")]
    NoEvent(String),
    #[error("bad result code '{0}'")]
    BadResult(String),
    #[error("--list '{given}' is not one of the rulebook's lists ({lists})")]
    NoList { given: String, lists: String },
    #[error("unknown title '{0}'")]
    NoTitle(String),
    #[error("the {0} rulebook has no titles")]
    NoTitles(&'static str),
    #[error(
        "{id} has no FIDE standard rating of a list dated on or before {date} in the database; \
         give it: --fide RATING"
    )]
    NoFideRating { id: String, date: NaiveDate },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl QueryError {
    /// Whether the question was wrong (a name that is nobody's), not the database.
    pub fn is_input(&self) -> bool {
        !matches!(self, QueryError::Store(_))
    }
}

/// A player named on the command line: by id, FIDE id, or a name only one player in use has.
pub fn find_player<R: Federation>(desk: &Desk<R>, key: &str) -> Result<PlayerIdx, QueryError> {
    let matcher = Matcher::new(desk);
    let incoming = Incoming {
        id: Some(key.to_string()),
        fide_id: key.parse().ok(),
        name: Some((key.to_string(), None)),
    };
    match matcher.find(&incoming) {
        Found::Ours(p, _) => Ok(p),
        Found::Ambiguous(many) => Err(QueryError::SeveralPlayers {
            name: key.to_string(),
            ids: many
                .iter()
                .map(|&p| desk.book().players[p].id.clone())
                .collect(),
        }),
        Found::Earlier(_) | Found::New => Err(QueryError::NoPlayer(key.to_string())),
    }
}

/// A player's FIDE titles as the newest FIDE list or TRF gave them (`None`: no FIDE id, or
/// none given).
pub fn fide_title<R: Federation>(
    desk: &Desk<R>,
    player: PlayerIdx,
) -> Result<Option<crate::store::fide::FideTitle>, StoreError> {
    match desk.book().players.get(player).and_then(|p| p.fide_id) {
        Some(id) => desk.store().fide_title(id),
        None => Ok(None),
    }
}

/// The matches of a league or other team event's round, as its games pair the players'
/// clubs (a league's teams are its clubs' teams): `HSK – SSt`, the club of the first board's
/// white player first. Empty for an event that is not a team event, and for a round with a
/// game whose player has no club (the match cannot be told then).
pub fn round_matches<R: Rulebook>(book: &Book<R>, event: usize, round: u32) -> Vec<String> {
    let ev = &book.events[event];
    if !ev.is_team_event() {
        return Vec::new();
    }
    let mut games: Vec<&crate::model::Game> = ev
        .games
        .iter()
        .filter(|g| g.round == round && g.black().is_some())
        .collect();
    games.sort_by_key(|g| g.board);
    let club = |p: PlayerIdx| book.players.get(p).and_then(|i| i.club.as_deref());
    let mut matches: Vec<(&str, &str)> = Vec::new();
    for g in games {
        let (Some(white), Some(black)) = (club(g.white()), g.black().and_then(club)) else {
            return Vec::new();
        };
        let known = matches
            .iter()
            .any(|&(a, b)| (a, b) == (white, black) || (a, b) == (black, white));
        if !known {
            matches.push((white, black));
        }
    }
    matches
        .into_iter()
        .map(|(a, b)| format!("{a} – {b}"))
        .collect()
}

/// One national list on one of its dates, ranked as the list ranks it: a player's place is
/// one more than the number rated above him (ties share a place). Kept for a card's places on
/// twelve dates of every list: 8 bytes a listed player, and a few for each distinct rating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListRanks {
    pub list: crate::rules::ListId,
    pub date: NaiveDate,
    /// Each rating the list gives, highest first, with how many players it lists above it.
    above: Vec<(Rating, u32)>,
    /// How many players it lists.
    listed: usize,
    /// The listed players with their ratings, by player (a card's player found by halving).
    by_player: Vec<(u32, Rating)>,
}

impl ListRanks {
    /// The list `list` of `date` ranked, from its players and their ratings in player order.
    fn new(
        list: crate::rules::ListId,
        date: NaiveDate,
        by_player: Vec<(PlayerIdx, Rating)>,
    ) -> Self {
        let mut ratings: Vec<Rating> = by_player.iter().map(|&(_, r)| r).collect();
        ratings.sort_unstable_by(|a, b| b.cmp(a));
        let mut above: Vec<(Rating, u32)> = Vec::new();
        for (at, &r) in ratings.iter().enumerate() {
            if above.last().is_none_or(|&(last, _)| last != r) {
                above.push((
                    r,
                    u32::try_from(at).expect("a list of fewer than 2³² players"),
                ));
            }
        }
        above.shrink_to_fit();
        ListRanks {
            list,
            date,
            above,
            listed: ratings.len(),
            by_player: by_player
                .into_iter()
                .map(|(p, r)| (crate::model::player_u32(p), r))
                .collect(),
        }
    }

    /// A player's place on the list, how many it lists and his rating on it; `None`: he is
    /// not on it.
    pub fn place_of(&self, player: PlayerIdx) -> Option<ListPlace> {
        let player = u32::try_from(player).ok()?;
        let at = self
            .by_player
            .binary_search_by_key(&player, |&(p, _)| p)
            .ok()?;
        let rating = self.by_player[at].1;
        let same = self.above.partition_point(|&(r, _)| r > rating);
        let above = self.above.get(same).map_or(0, |&(_, above)| above as usize);
        Some(ListPlace {
            list: self.list,
            date: self.date,
            place: above + 1,
            of: self.listed,
            rating,
        })
    }
}

/// A player's place on one national list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListPlace {
    pub list: crate::rules::ListId,
    pub date: NaiveDate,
    pub place: usize,
    pub of: usize,
    pub rating: Rating,
}

/// The national lists of the `count` newest list dates up to `today` (the list in force today
/// and those before it, as `export list` dates them), each ranked.
pub fn list_ranks<R: Federation>(desk: &Desk<R>, today: NaiveDate, count: usize) -> Vec<ListRanks> {
    let rulebook = desk.rulebook();
    let (book, ledger) = (desk.book(), desk.ledger());
    let active = desk.active_players();
    let mut dates = vec![rulebook.list_date(today)];
    while dates.len() < count {
        let before = rulebook.previous_list_date(dates[dates.len() - 1]);
        if before >= dates[dates.len() - 1] {
            break;
        }
        dates.push(before);
    }
    let lists = rulebook.lists().len();
    let listings: Vec<crate::export::list::Listing<'_, R>> = dates
        .iter()
        .map(|&date| crate::export::list::Listing::new(rulebook, book, ledger, &active, date))
        .collect();
    // Each player is looked up on every date in turn while his lane and seed are at hand (a
    // look-up a date over a million players missed the cache three or four times each), on
    // every core, a block of players at a time.
    const BLOCK: usize = 4096;
    let players = book.players.len();
    let blocks: Vec<std::ops::Range<PlayerIdx>> = (0..players)
        .step_by(BLOCK)
        .map(|start| start..(start + BLOCK).min(players))
        .collect();
    // At `date × lists + list`, as the lists come out: by date, newest first, then by list.
    let mut ranked: Vec<Option<ListRanks>> = vec![None; dates.len() * lists];
    for list in 0..lists {
        let listed = crate::cores::map_on_cores(&blocks, crate::cores::threads(), |block| {
            // Per date, the block's players listed, with their ratings.
            let mut on_dates: Vec<Vec<(PlayerIdx, Rating)>> = vec![Vec::new(); listings.len()];
            for p in block.clone() {
                for (listing, on_date) in listings.iter().zip(&mut on_dates) {
                    if let Some(r) = listing.listed(p, list).and_then(|s| rulebook.rating_of(&s)) {
                        on_date.push((p, r));
                    }
                }
            }
            on_dates
        });
        for (d, &date) in dates.iter().enumerate() {
            // By player as they come (blocks and players in order); the ratings highest first.
            let by_player: Vec<(PlayerIdx, Rating)> = listed
                .iter()
                .flat_map(|block| block[d].iter().copied())
                .collect();
            ranked[d * lists + list] = Some(ListRanks::new(list, date, by_player));
        }
    }
    ranked.into_iter().flatten().collect()
}

/// The live event with this id.
pub fn find_event<R: Federation>(desk: &Desk<R>, id: &str) -> Result<usize, QueryError> {
    desk.book()
        .live_event(id)
        .ok_or_else(|| QueryError::NoEvent(id.to_string()))
}

/// One row of an event's standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub start_number: usize,
    pub player: usize,
    /// Half points, unplayed games included.
    pub points: u32,
    /// The rating going into the event, known before any result is keyed.
    pub entry: Option<crate::model::Rating>,
    pub rating: Option<crate::rules::PlayerRating>,
}

/// An event's standings: participants by points (unplayed games included), then rating.
pub fn standings<R: Rulebook>(book: &Book<R>, ledger: &Ledger<R>, event: usize) -> Vec<Standing> {
    let ev = &book.events[event];
    let ratings: BTreeMap<PlayerIdx, &PlayerRating<R::Detail>> = ledger
        .event_ratings(event)
        .into_iter()
        .map(|r| (r.player, r))
        .collect();
    // Points in one pass over the games (unplayed ones included).
    let mut points: BTreeMap<PlayerIdx, u32> = BTreeMap::new();
    for g in &ev.games {
        if let Some(r) = g.result {
            *points.entry(g.white()).or_default() += u32::from(r.white_halves);
            if let Some(b) = g.black() {
                *points.entry(b).or_default() += u32::from(r.black_halves);
            }
        }
    }
    let mut rows: Vec<Standing> = ev
        .participants
        .iter()
        .enumerate()
        .map(|(i, &p)| Standing {
            start_number: i + 1,
            player: p,
            points: points.get(&p).copied().unwrap_or(0),
            entry: None,
            rating: ratings.get(&p).map(|r| r.common()),
        })
        .collect();
    rows.sort_by(|a, b| {
        let rating = |s: &Standing| s.rating.as_ref().and_then(|r| r.old).unwrap_or(0);
        b.points.cmp(&a.points).then(rating(b).cmp(&rating(a)))
    });
    rows
}

/// The rated players of an event's rating report, in the order of its standings.
pub fn report_rows<R: Rulebook>(
    book: &Book<R>,
    ledger: &Ledger<R>,
    event: usize,
) -> Vec<ReportRow> {
    standings(book, ledger, event)
        .into_iter()
        .enumerate()
        .filter_map(|(i, s)| {
            s.rating.map(|rating| ReportRow {
                rank: i + 1,
                start_number: s.start_number,
                rating,
            })
        })
        .collect()
}

/// The national ratings going into an event, for TRF26's national-rating records: each home
/// player's rating on the event's list (the rulebook's first list for an unrated event) after
/// the units published before the event began.
pub fn national_ratings<R: Federation>(desk: &Desk<R>, event: usize) -> Vec<(PlayerIdx, Rating)> {
    let (rulebook, book) = (desk.rulebook(), desk.book());
    let ev = &book.events[event];
    let list = rulebook.list_in(ev, &book.events).unwrap_or(0);
    let Some(before) = ev.start.pred_opt() else {
        return Vec::new();
    };
    let home = rulebook.home_federation();
    ev.participants
        .iter()
        .filter(|&&p| book.players[p].plays_for(home))
        .filter_map(|&p| {
            desk.ledger()
                .state_on(rulebook, book, p, list, before)
                .and_then(|s| rulebook.rating_of(&s))
                .map(|r| (p, r))
        })
        .collect()
}

/// The edit that sets a result named by event id, round, board and result code (`1-0`, `+-`,
/// `1/2-1/2` …).
pub fn result_edit<R: Federation>(
    desk: &Desk<R>,
    event: &str,
    round: u32,
    board: u32,
    result: &str,
) -> Result<Edit<R>, QueryError> {
    let e = find_event(desk, event)?;
    let result = GameResult::parse(result).ok_or_else(|| QueryError::BadResult(result.into()))?;
    Ok(Edit::SetResult {
        event: e,
        round,
        board,
        result: Some(result),
    })
}

/// The edit that corrects the day the results of an event (or of one round) were received,
/// named by event id; `None`: the event's receipt date decides.
pub fn received_edit<R: Federation>(
    desk: &Desk<R>,
    event: &str,
    round: Option<u32>,
    received: Option<NaiveDate>,
) -> Result<Edit<R>, QueryError> {
    Ok(Edit::SetReceived {
        event: find_event(desk, event)?,
        round,
        received,
    })
}

/// How a player re-enters the list: on his FIDE rating (`None`: the one the database holds for
/// him on the day, from imported FIDE lists) or on a national rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReentryOn {
    Fide(Option<Rating>),
    National(Rating),
}

/// The edit that re-enters a player named on the command line on `date` (`None`: takes back
/// his re-entry of that day).
pub fn reentry_edit<R: Federation>(
    desk: &Desk<R>,
    player: &str,
    date: NaiveDate,
    on: Option<ReentryOn>,
) -> Result<Edit<R>, QueryError> {
    let p = find_player(desk, player)?;
    let info = &desk.book().players[p];
    let entry = match on {
        None => None,
        Some(ReentryOn::National(r)) => Some((r, Entry::National)),
        Some(ReentryOn::Fide(Some(r))) => Some((r, Entry::Fide)),
        Some(ReentryOn::Fide(None)) => {
            let r = info
                .fide_rating_on(date, FideKind::Standard)
                .ok_or_else(|| QueryError::NoFideRating {
                    id: info.id.clone(),
                    date,
                })?;
            Some((r, Entry::Fide))
        }
    };
    Ok(Edit::SetReentry {
        player: p,
        date,
        entry,
    })
}

/// The edit that confirms a player's title (SSL 6.3: M) on `date`.
pub fn confirm_edit<R: Federation>(
    desk: &Desk<R>,
    player: &str,
    title: &str,
    date: NaiveDate,
) -> Result<Edit<R>, QueryError> {
    let rulebook = desk.rulebook();
    if !rulebook.awards_titles() {
        return Err(QueryError::NoTitles(rulebook.adjective()));
    }
    let player = find_player(desk, player)?;
    let award = rulebook
        .award_from_json(title)
        .ok_or_else(|| QueryError::NoTitle(title.into()))?;
    Ok(Edit::ConfirmAward {
        player,
        award,
        date,
    })
}

/// What `check` found: every difference between the stored results and a fresh calculation,
/// and every break in the audit log's chain.
pub struct Checked {
    pub problems: Vec<String>,
    /// Rating units compared.
    pub units: usize,
    /// Audit entries whose chain was verified.
    pub entries: usize,
}

/// Re-rates everything from scratch, compares it with what is stored, and verifies the audit
/// log's chain. The fresh calculation and the log's replay read the record alone, each of them
/// on a core of its own (neither keeps the other's cores busy throughout); what they find is
/// listed in that order, after the results on disk are compared.
pub fn check<R: Federation>(desk: &mut Desk<R>) -> Result<Checked, DeskError> {
    let stored = desk.check_stored()?;
    let desk = &*desk;
    let (rulebook, book, ledger) = (desk.rulebook(), desk.book(), desk.ledger());
    let (fresh, chain) = std::thread::scope(|s| {
        let fresh = s.spawn(|| super::fresh_differences(rulebook, book, ledger));
        let chain = desk.check_chain();
        (fresh.join(), chain)
    });
    let fresh = fresh.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let mut problems = fresh;
    problems.extend(stored);
    problems.extend(chain?);
    Ok(Checked {
        problems,
        units: desk.ledger().units().len(),
        entries: desk.audit().len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Places as the list ranks them: one more than the number rated above, ties sharing a
    /// place, the next place after a tie skipping as many as tied; players not listed have none.
    #[test]
    fn a_list_ranks_ties_at_one_place_and_counts_everyone_above() {
        let date = NaiveDate::from_ymd_opt(2025, 12, 1).expect("a date");
        // Players 0..=6 and 9 listed (7 and 8 not), in player order.
        let ratings = [1800, 2100, 1950, 2100, 1500, 1950, 1950, 0, 0, 2400];
        let by_player: Vec<(PlayerIdx, Rating)> = ratings
            .iter()
            .enumerate()
            .filter(|&(p, _)| p != 7 && p != 8)
            .map(|(p, &r)| (p, r))
            .collect();
        let ranks = ListRanks::new(1, date, by_player);
        let place = |p| ranks.place_of(p).map(|at| (at.place, at.of, at.rating));
        assert_eq!(place(9), Some((1, 8, 2400)));
        assert_eq!(place(1), Some((2, 8, 2100)));
        assert_eq!(place(3), Some((2, 8, 2100)));
        for p in [2, 5, 6] {
            assert_eq!(place(p), Some((4, 8, 1950)), "{p}");
        }
        assert_eq!(place(0), Some((7, 8, 1800)));
        assert_eq!(place(4), Some((8, 8, 1500)));
        for p in [7, 8, 10, usize::MAX] {
            assert_eq!(place(p), None, "{p}");
        }
    }
}
