//! The edits the officer (and every importer) makes, checked against the current data and
//! compiled into the record changes the store writes and the audit log keeps.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::book::Book;
use crate::book::{Change, Delta, EventRecord, PlayerRecord, PlayerStatus};
use crate::model::{
    Event, FideEntry, FideKind, Game, GameResult, PlayerIdx, PlayerInfo, player_u32,
};
use crate::rules::{Award, ListId, Rulebook};

pub(crate) use super::checks::Current;
use super::checks::check_records;
use super::merging::{keep_awards, merge};

/// One edit.
#[derive(Clone, Debug)]
pub enum Edit<R: Rulebook> {
    AddPlayer {
        info: PlayerInfo,
        seeds: Vec<Option<R::State>>,
        held: Vec<Award<R::Award>>,
    },
    UpdatePlayer {
        player: PlayerIdx,
        info: PlayerInfo,
    },
    /// A player's state before his first rated unit (e.g. from a national list).
    SetSeed {
        player: PlayerIdx,
        list: ListId,
        state: Option<R::State>,
    },
    /// A new event with its games.
    AddEvent(Event),
    /// New details of an event; its games stay.
    UpdateEvent {
        event: usize,
        details: Event,
    },
    DeleteEvent(usize),
    /// Pairs a board (or changes its pairing or result).
    SetGame {
        event: usize,
        game: Game,
    },
    /// Sets (or, with `None`, clears) the result of a paired board.
    SetResult {
        event: usize,
        round: u32,
        board: u32,
        result: Option<GameResult>,
    },
    /// Corrects the day the results of an event's played boards (or one round's) were received,
    /// where the rulebook rates a game by it ([`Rulebook::keeps_game_receipt`]); `None`: no day
    /// of their own, the event's `received` decides.
    SetReceived {
        event: usize,
        round: Option<u32>,
        received: Option<chrono::NaiveDate>,
    },
    /// Enters a player on the list anew from the start of the period holding `date`, on a FIDE
    /// or national rating (ISL: an Icelander back from a long stay abroad,
    /// [`Rulebook::restarts`]); `None` takes back his re-entry of that day.
    SetReentry {
        player: PlayerIdx,
        date: chrono::NaiveDate,
        entry: Option<(crate::model::Rating, crate::model::Entry)>,
    },
    /// Removes a board.
    ClearGame {
        event: usize,
        round: u32,
        board: u32,
    },
    /// The players entered in an event, in start-number order.
    SetParticipants {
        event: usize,
        players: Vec<PlayerIdx>,
    },
    /// Takes a participant out of an event (entered by mistake): his boards in it go with him,
    /// and the start numbers after his move up one.
    Withdraw {
        event: usize,
        player: PlayerIdx,
    },
    /// The rating committee confirms an award that needs it (SSL 6.3: M).
    ConfirmAward {
        player: PlayerIdx,
        award: R::Award,
        date: chrono::NaiveDate,
    },
    /// Removes a player who has no games.
    DeletePlayer(PlayerIdx),
    /// Moves every game of `remove` to `keep` and retires `remove`.
    MergePlayers {
        keep: PlayerIdx,
        remove: PlayerIdx,
    },
    /// Records awards as held, e.g. titles a correction would otherwise take away (titles are
    /// permanent: SSL 6.1).
    HoldAwards {
        player: PlayerIdx,
        awards: Vec<Award<R::Award>>,
    },
    /// An edit with the awards it would take away recorded as held, in one audited entry: a
    /// correction that keeps the titles it would remove (titles are permanent: SSL 6.1).
    KeepingAwards {
        edit: Box<Edit<R>>,
        awards: Vec<Award<R::Award>>,
    },
    /// One FIDE rating list's ratings (of `kinds`; a per-list file carries one) for the
    /// federation's players, read from `source`.
    FideList {
        list_date: chrono::NaiveDate,
        kinds: Vec<FideKind>,
        entries: Vec<(PlayerIdx, FideEntry)>,
        source: String,
    },
    /// Players and events read from a file; events refer to players by their index in
    /// `players`, which are either new records or existing players.
    Import {
        players: Vec<ImportedPlayer<R>>,
        events: Vec<Event>,
    },
}

/// A player of an import: an existing record, one whose details the file changes, or a new
/// one.
#[derive(Clone, Debug)]
pub enum ImportedPlayer<R: Rulebook> {
    Existing(PlayerIdx),
    /// One of ours with what the file says of him now (the national list's club): his record
    /// changes with the import, audited like any edit of a player.
    Updated {
        player: PlayerIdx,
        info: PlayerInfo,
    },
    New {
        info: PlayerInfo,
        seeds: Vec<Option<R::State>>,
        held: Vec<Award<R::Award>>,
    },
}

/// Changes the record of a player in use by `edit`, and adds it to `change` (refused, and
/// nothing added, where `edit` refuses).
fn edit_record<R: Rulebook>(
    now: &Current<'_, R>,
    change: &mut Change<R>,
    player: PlayerIdx,
    edit: impl FnOnce(&mut PlayerRecord<R>) -> Result<(), EditError>,
) -> Result<(), EditError> {
    now.active(player)?;
    let before = now.record(player);
    let mut after = before.clone();
    edit(&mut after)?;
    change.players.push(Delta {
        key: player,
        before: Some(Box::new(before)),
        after: Some(Box::new(after)),
    });
    Ok(())
}

/// An edit that cannot be made, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EditError(pub String);

pub(super) fn err<T>(message: impl Into<String>) -> Result<T, EditError> {
    Err(EditError(message.into()))
}

impl<R: Rulebook> Edit<R> {
    /// Imports a whole book as new players and events (a document read from a file).
    pub fn import_new(book: Book<R>) -> Self {
        let players = book
            .players
            .into_iter()
            .zip(book.seeds)
            .zip(book.held)
            .map(|((info, seeds), held)| ImportedPlayer::New { info, seeds, held })
            .collect();
        Edit::Import {
            players,
            events: book.events,
        }
    }

    /// `edit` with the awards it would take away (`lost`, from its preview) kept as held, in
    /// one audited entry; `edit` itself when it takes none away.
    pub fn keeping(edit: Edit<R>, lost: Vec<Award<R::Award>>) -> Self {
        if lost.is_empty() {
            edit
        } else {
            Edit::KeepingAwards {
                edit: Box::new(edit),
                awards: lost,
            }
        }
    }

    /// A line for the audit log.
    pub fn describe(&self, book: &Book<R>) -> String {
        let name = |p: &PlayerIdx| {
            book.players
                .get(*p)
                .map_or_else(|| format!("#{p}"), |i| i.id.clone())
        };
        let event = |e: &usize| {
            book.events
                .get(*e)
                .map_or_else(|| format!("#{e}"), |ev| ev.id.clone())
        };
        match self {
            Edit::AddPlayer { info, .. } => format!("add player {}", info.id),
            Edit::UpdatePlayer { player, .. } => format!("edit player {}", name(player)),
            Edit::SetSeed { player, list, .. } => {
                format!("set starting state of {} on list {list}", name(player))
            }
            Edit::AddEvent(ev) => format!("add event {} with {} games", ev.id, ev.games.len()),
            Edit::UpdateEvent { event: e, .. } => format!("edit event {}", event(e)),
            Edit::DeleteEvent(e) => format!("delete event {}", event(e)),
            Edit::SetGame { event: e, game } => format!(
                "pair {} round {} board {}: {} - {} {}",
                event(e),
                game.round,
                game.board,
                name(&game.white()),
                game.black().as_ref().map_or("bye".into(), name),
                game.result.map_or("(no result)".into(), GameResult::code)
            ),
            Edit::SetResult {
                event: e,
                round,
                board,
                result,
            } => {
                format!(
                    "result {} round {round} board {board}: {}",
                    event(e),
                    result.map_or("cleared".into(), GameResult::code)
                )
            }
            Edit::ClearGame {
                event: e,
                round,
                board,
            } => format!("clear {} round {round} board {board}", event(e)),
            Edit::SetReceived {
                event: e,
                round,
                received,
            } => format!(
                "results of {}{} received {}",
                event(e),
                round.map_or(String::new(), |r| format!(" round {r}")),
                received.map_or("as the event's".into(), |d| format!("on {d}"))
            ),
            Edit::SetReentry {
                player,
                date,
                entry,
            } => match entry {
                Some((rating, on)) => format!(
                    "re-enter {} on {date} on {} {rating}",
                    name(player),
                    on.label()
                ),
                None => format!("take back the re-entry of {} on {date}", name(player)),
            },
            Edit::DeletePlayer(p) => format!("delete player {}", name(p)),
            Edit::SetParticipants { event: e, players } => {
                format!("enter {} players in {}", players.len(), event(e))
            }
            Edit::Withdraw { event: e, player } => {
                format!("withdraw {} from {}", name(player), event(e))
            }
            Edit::ConfirmAward { player, date, .. } => {
                format!("confirm the title of {} on {date}", name(player))
            }
            Edit::MergePlayers { keep, remove } => {
                format!("merge player {} into {}", name(remove), name(keep))
            }
            Edit::HoldAwards { player, awards } => {
                format!("keep {} award(s) of {}", awards.len(), name(player))
            }
            Edit::KeepingAwards { edit, awards } => format!(
                "{}; keep {} award(s) it would take away",
                edit.describe(book),
                awards.len()
            ),
            Edit::FideList {
                list_date,
                kinds,
                entries,
                source,
            } => format!(
                "FIDE {} list of {list_date} from {source}: {} players",
                kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join("/"),
                entries.len()
            ),
            Edit::Import { players, events } => format!(
                "import {} players and {} events",
                players.len(),
                events.len()
            ),
        }
    }

    /// Checks the edit against the current data and turns it into record changes.
    pub(crate) fn compile(&self, now: &Current<'_, R>) -> Result<Change<R>, EditError> {
        finished(self.compile_records(now)?)
    }

    /// [`Edit::compile`] of an edit not needed afterwards: an import's new players are moved
    /// into the change rather than copied (a federation's list of 200 000 players is not held
    /// twice while it is checked).
    pub(crate) fn compile_owned(self, now: &Current<'_, R>) -> Result<Change<R>, EditError> {
        match self {
            Edit::Import { players, events } => {
                let mut change = Change::default();
                import(
                    now,
                    players.into_iter().map(Cow::Owned),
                    &events,
                    &mut change,
                )?;
                finished(change)
            }
            edit => edit.compile(now),
        }
    }

    fn compile_records(&self, now: &Current<'_, R>) -> Result<Change<R>, EditError> {
        let book = now.book;
        let mut change = Change::<R>::default();
        let next_player = book.players.len();
        let next_event = book.events.len();
        match self {
            Edit::AddPlayer { info, seeds, held } => {
                let record = PlayerRecord {
                    info: info.clone(),
                    seeds: seeds.clone(),
                    held: held.clone(),
                    confirmed: Vec::new(),
                    status: PlayerStatus::Active,
                };
                change.players.push(Delta {
                    key: next_player,
                    before: None,
                    after: Some(Box::new(record)),
                });
            }
            Edit::UpdatePlayer { player, info } => edit_record(now, &mut change, *player, |r| {
                r.info = info.clone();
                Ok(())
            })?,
            Edit::FideList { kinds, entries, .. } => {
                for (player, entry) in entries {
                    now.active(*player)?;
                    let before = now.record(*player);
                    let mut after = before.clone();
                    crate::store::fide::merge_entry(&mut after.info.fide, entry.clone(), kinds);
                    if after != before {
                        change.players.push(Delta {
                            key: *player,
                            before: Some(Box::new(before)),
                            after: Some(Box::new(after)),
                        });
                    }
                }
            }
            Edit::SetSeed {
                player,
                list,
                state,
            } => edit_record(now, &mut change, *player, |r| {
                match r.seeds.get_mut(*list) {
                    Some(slot) => {
                        *slot = state.clone();
                        Ok(())
                    }
                    None => err(format!("there is no list {list}")),
                }
            })?,
            Edit::AddEvent(event) => {
                now.check_event(event)?;
                now.check_playoff(event, None, &[])?;
                if book.live_event(&event.id).is_some() {
                    return err(format!(
                        "an event with id {} is already in the database",
                        event.id
                    ));
                }
                let participants = if event.participants.is_empty() {
                    event.players_in_games()
                } else {
                    event.participants.clone()
                };
                now.check_participants(event, &participants)?;
                let mut placed = Event {
                    games: Vec::new(),
                    participants,
                    ..event.clone()
                };
                for g in &event.games {
                    now.check_game(&placed, g, None)?;
                    placed.games.push(g.clone());
                }
                change.events.push(Delta {
                    key: next_event,
                    before: None,
                    after: Some(EventRecord {
                        event: Event {
                            games: Vec::new(),
                            ..placed
                        },
                        live: true,
                    }),
                });
                for g in &event.games {
                    change.games.push(Delta {
                        key: (next_event, g.round, g.board),
                        before: None,
                        after: Some(g.clone()),
                    });
                }
            }
            Edit::UpdateEvent { event, details } => {
                let stored = now.live_event(*event)?;
                now.check_event(details)?;
                // A result is never received before its game was played (an undated game is
                // played from the event's start).
                if let Some(g) = stored
                    .games
                    .iter()
                    .find(|g| g.date.is_none() && g.received.is_some_and(|r| r < details.start))
                {
                    return err(format!(
                        "{}: the result of round {}, board {} was received on {}, before the \
                         new start {}: correct the day it was received first",
                        stored.id,
                        g.round,
                        g.board,
                        g.received.unwrap_or(details.start),
                        details.start
                    ));
                }
                now.check_playoff(details, Some(*event), &[])?;
                let before = now.event_record(*event);
                // Details only: the entries and games stay as they are.
                let after = EventRecord {
                    event: Event {
                        games: Vec::new(),
                        participants: before.event.participants.clone(),
                        ..details.clone()
                    },
                    live: true,
                };
                // A new id is carried into the play-offs that name the event (SSL 2.10).
                let renamed = (before.event.id != details.id).then(|| before.event.id.clone());
                change.events.push(Delta {
                    key: *event,
                    before: Some(before),
                    after: Some(after),
                });
                if let Some(old) = renamed {
                    for p in now.live_playoffs_of(&old).filter(|p| p != event) {
                        let before = now.event_record(p);
                        let mut after = before.clone();
                        after.event.playoff_of = Some(details.id.clone());
                        change.events.push(Delta {
                            key: p,
                            before: Some(before),
                            after: Some(after),
                        });
                    }
                }
            }
            Edit::SetParticipants { event, players } => {
                let ev = now.live_event(*event)?;
                now.check_participants(ev, players)?;
                if let Some(g) = ev.games.iter().find(|g| {
                    !players.contains(&g.white())
                        || g.black().is_some_and(|b| !players.contains(&b))
                }) {
                    let p = if players.contains(&g.white()) {
                        g.black().unwrap_or(g.white())
                    } else {
                        g.white()
                    };
                    return err(format!(
                        "{}: {} plays in round {} and must stay entered",
                        ev.id,
                        now.player_name(p),
                        g.round
                    ));
                }
                let before = now.event_record(*event);
                let mut after = before.clone();
                after.event.participants = players.clone();
                change.events.push(Delta {
                    key: *event,
                    before: Some(before),
                    after: Some(after),
                });
            }
            Edit::ConfirmAward {
                player,
                award,
                date,
            } => {
                now.active(*player)?;
                let Some(reached) = now.awards(*player).into_iter().find(|a| &a.award == award)
                else {
                    return err(format!(
                        "{} has not reached that title",
                        now.player_name(*player)
                    ));
                };
                if !now.rulebook.needs_confirmation(award) {
                    return err("that title needs no confirmation");
                }
                if now.book.confirmed[*player]
                    .iter()
                    .any(|a| &a.award == award)
                {
                    return err(format!(
                        "the title of {} is already confirmed",
                        now.player_name(*player)
                    ));
                }
                let before = now.record(*player);
                let mut after = before.clone();
                after.confirmed.push(Award {
                    player: *player,
                    award: award.clone(),
                    date: Some(*date),
                    event: reached.event,
                });
                change.players.push(Delta {
                    key: *player,
                    before: Some(Box::new(before)),
                    after: Some(Box::new(after)),
                });
            }
            Edit::DeleteEvent(event) => {
                let ev = now.live_event(*event)?;
                // SSL 2.10: a play-off names the event it decides; that event stays while it
                // does.
                if let Some(playoff) = now
                    .live_playoffs_of(&ev.id)
                    .next()
                    .map(|p| book.events[p].id.clone())
                {
                    return err(format!(
                        "{} is decided by the play-off {playoff}: delete it, or unlink it, first",
                        ev.id
                    ));
                }
                let before = now.event_record(*event);
                let after = EventRecord {
                    live: false,
                    ..before.clone()
                };
                change.events.push(Delta {
                    key: *event,
                    before: Some(before),
                    after: Some(after),
                });
            }
            Edit::SetGame { event, game } => {
                let ev = now.live_event(*event)?;
                let existing = ev
                    .games
                    .iter()
                    .find(|g| (g.round, g.board) == (game.round, game.board));
                now.check_game(ev, game, existing.map(|g| (g.round, g.board)))?;
                change.games.push(Delta {
                    key: (*event, game.round, game.board),
                    before: existing.cloned(),
                    after: Some(now.stamped(ev, existing, game.clone())),
                });
            }
            Edit::SetResult {
                event,
                round,
                board,
                result,
            } => {
                let existing = now.paired(*event, *round, *board)?;
                let mut after = existing.clone();
                after.result = result.map(|r| r.keyed_on(existing.black().is_none()));
                let after = now.stamped(now.live_event(*event)?, Some(existing), after);
                change.games.push(Delta {
                    key: (*event, *round, *board),
                    before: Some(existing.clone()),
                    after: Some(after),
                });
            }
            Edit::SetReentry {
                player,
                date,
                entry,
            } => edit_record(now, &mut change, *player, |r| {
                now.reentry_set(&mut r.info, *date, *entry)
            })?,
            Edit::SetReceived {
                event,
                round,
                received,
            } => {
                let ev = now.live_event(*event)?;
                for (before, after) in now.received_set(ev, *round, *received)? {
                    change.games.push(Delta {
                        key: (*event, before.round, before.board),
                        before: Some(before),
                        after: Some(after),
                    });
                }
            }
            Edit::Withdraw { event, player } => {
                let ev = now.live_event(*event)?;
                if !ev.participants.contains(player) {
                    return err(format!(
                        "{}: {} is not entered",
                        ev.id,
                        now.player_name(*player)
                    ));
                }
                for g in ev
                    .games
                    .iter()
                    .filter(|g| g.white() == *player || g.black() == Some(*player))
                {
                    change.games.push(Delta {
                        key: (*event, g.round, g.board),
                        before: Some(g.clone()),
                        after: None,
                    });
                }
                let before = now.event_record(*event);
                let mut after = before.clone();
                after.event.participants.retain(|p| p != player);
                change.events.push(Delta {
                    key: *event,
                    before: Some(before),
                    after: Some(after),
                });
            }
            Edit::ClearGame {
                event,
                round,
                board,
            } => {
                let existing = now.paired(*event, *round, *board)?;
                change.games.push(Delta {
                    key: (*event, *round, *board),
                    before: Some(existing.clone()),
                    after: None,
                });
            }
            Edit::DeletePlayer(player) => {
                now.active(*player)?;
                let plays = book
                    .events
                    .iter()
                    .zip(&book.live)
                    .filter(|(_, l)| **l)
                    .find(|(e, _)| {
                        e.games
                            .iter()
                            .any(|g| g.white() == *player || g.black() == Some(*player))
                    });
                if let Some((e, _)) = plays {
                    return err(format!(
                        "{} has games in {}: merge or remove them first",
                        now.player_name(*player),
                        e.id
                    ));
                }
                let before = now.record(*player);
                let after = PlayerRecord {
                    status: PlayerStatus::Deleted,
                    ..before.clone()
                };
                change.players.push(Delta {
                    key: *player,
                    before: Some(Box::new(before)),
                    after: Some(Box::new(after)),
                });
            }
            Edit::MergePlayers { keep, remove } => merge(now, *keep, *remove, &mut change)?,
            Edit::KeepingAwards { edit, awards } => {
                // The awards are kept on the edit's records as it stores them.
                change = without_no_ops(edit.compile_records(now)?);
                keep_awards(now, awards, &mut change)?;
            }
            Edit::HoldAwards { player, awards } => edit_record(now, &mut change, *player, |r| {
                r.held.extend(awards.iter().cloned().map(|a| Award {
                    player: *player,
                    ..a
                }));
                Ok(())
            })?,
            Edit::Import { players, events } => {
                import(now, players.iter().map(Cow::Borrowed), events, &mut change)?;
            }
        }
        Ok(change)
    }
}

/// The change as stored: a record written as it already is changes nothing and is dropped;
/// what is left is checked as the store will keep it.
fn finished<R: Rulebook>(change: Change<R>) -> Result<Change<R>, EditError> {
    let change = without_no_ops(change);
    check_records(&change)?;
    Ok(change)
}

/// The change without the records it writes as they already are.
fn without_no_ops<R: Rulebook>(mut change: Change<R>) -> Change<R> {
    change.players.retain(|d| d.before != d.after);
    change.events.retain(|d| d.before != d.after);
    change.games.retain(|d| d.before != d.after);
    change
}

/// An import's players and events as record changes: the players found in the file (existing
/// records, changed ones, new ones — a new one moved into the change when it comes owned, so
/// that a whole federation's list is not held twice), then its events with their players
/// numbered as stored.
fn import<'a, R: Rulebook + 'a>(
    now: &Current<'_, R>,
    players: impl ExactSizeIterator<Item = Cow<'a, ImportedPlayer<R>>>,
    events: &[Event],
    change: &mut Change<R>,
) -> Result<(), EditError> {
    let book = now.book;
    let next_player = book.players.len();
    let next_event = book.events.len();
    // Room for every record at once: a list of 200 000 players grown by doubling
    // would hold half a spare list of records, and both lists while it grows.
    change.players.reserve_exact(players.len());
    let mut ids = Vec::with_capacity(players.len());
    let mut next = next_player;
    for p in players {
        match p.into_owned() {
            ImportedPlayer::Existing(id) => {
                now.active(id)?;
                ids.push(id);
            }
            ImportedPlayer::Updated { player, info } => {
                now.active(player)?;
                let before = now.record(player);
                if before.info != info {
                    let after = PlayerRecord {
                        info,
                        ..before.clone()
                    };
                    change.players.push(Delta {
                        key: player,
                        before: Some(Box::new(before)),
                        after: Some(Box::new(after)),
                    });
                }
                ids.push(player);
            }
            ImportedPlayer::New { info, seeds, held } => {
                let held = held
                    .into_iter()
                    .map(|a| Award { player: next, ..a })
                    .collect();
                let record = PlayerRecord {
                    info,
                    seeds,
                    held,
                    confirmed: Vec::new(),
                    status: PlayerStatus::Active,
                };
                change.players.push(Delta {
                    key: next,
                    before: None,
                    after: Some(Box::new(record)),
                });
                ids.push(next);
                next += 1;
            }
        }
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (k, event) in events.iter().enumerate() {
        now.check_event(event)?;
        now.check_playoff(event, None, events)?;
        if !seen.insert(&event.id) || book.live_event(&event.id).is_some() {
            return err(format!(
                "an event with id {} is already in the database",
                event.id
            ));
        }
        let e = next_event + k;
        let map = |p: PlayerIdx| {
            ids.get(p)
                .copied()
                .ok_or_else(|| EditError(format!("{}: unknown player #{p}", event.id)))
        };
        let listed = if event.participants.is_empty() {
            event.players_in_games()
        } else {
            event.participants.clone()
        };
        let participants = listed.into_iter().map(map).collect::<Result<Vec<_>, _>>()?;
        change.events.push(Delta {
            key: e,
            before: None,
            after: Some(EventRecord {
                event: Event {
                    games: Vec::new(),
                    participants,
                    ..event.clone()
                },
                live: true,
            }),
        });
        for g in &event.games {
            let game = Game {
                white: player_u32(map(g.white())?),
                black: g.black().map(map).transpose()?.map(player_u32),
                ..g.clone()
            };
            change.games.push(Delta {
                key: (e, g.round, g.board),
                before: None,
                after: Some(game),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::fixture::{book_of, game};
    use crate::book::placeholder_event;
    use crate::ledger::Ledger;
    use crate::rules::ssl::Ssl;

    /// Four players (the fourth deleted) and one event: Aho–Berg on board 1 of round 1 with a
    /// result, Cajan with a bye on board 2, Aho–Cajan paired on board 1 of round 2.
    fn fixture() -> (Book<Ssl>, Vec<PlayerStatus>) {
        let won = |mut g: Game| {
            g.result = Some(GameResult::WHITE_WINS);
            g
        };
        book_of(
            &[
                ("FIN1", "Aho, Aino", PlayerStatus::Active),
                ("FIN2", "Berg, Bo", PlayerStatus::Active),
                ("FIN3", "Cajan, Carl", PlayerStatus::Active),
                ("FIN4", "Dahl, Dan", PlayerStatus::Deleted),
            ],
            vec![Event {
                id: "e1".into(),
                participants: vec![0, 1, 2],
                games: vec![
                    won(game(1, 1, 0, Some(1))),
                    game(1, 2, 2, None),
                    game(2, 1, 0, Some(2)),
                ],
                ..placeholder_event()
            }],
        )
    }

    /// The change an edit compiles to on the fixture, or its refusal.
    fn compiled(edit: Edit<Ssl>) -> Result<Change<Ssl>, EditError> {
        on_fixture(|now| edit.compile(now))
    }

    /// `f` on the fixture as the current data.
    fn on_fixture<T>(f: impl FnOnce(&Current<'_, Ssl>) -> T) -> T {
        let (book, status) = fixture();
        let ledger = Ledger::build(&Ssl, &book);
        f(&Current {
            rulebook: &Ssl,
            book: &book,
            status: &status,
            ledger: &ledger,
            today: crate::clock::today(),
        })
    }

    /// An event as the officer adds one: named and dated.
    fn dated(id: &str, games: Vec<Game>) -> Event {
        let day = chrono::NaiveDate::from_ymd_opt(2025, 3, 1).expect("a date");
        Event {
            id: id.into(),
            name: id.into(),
            start: day,
            end: day,
            games,
            ..placeholder_event()
        }
    }

    fn refused(edit: Edit<Ssl>) -> String {
        compiled(edit).expect_err("refused").0
    }

    #[test]
    fn a_result_changes_its_board_only_and_a_bye_keeps_its_own_form() {
        let change = compiled(Edit::SetResult {
            event: 0,
            round: 2,
            board: 1,
            result: Some(GameResult::DRAW),
        })
        .expect("a result");
        assert!(change.players.is_empty() && change.events.is_empty());
        let [delta] = &change.games[..] else {
            panic!("one board: {:?}", change.games)
        };
        assert_eq!(delta.key, (0, 2, 1));
        assert_eq!(delta.before.as_ref().and_then(|g| g.result), None);
        assert_eq!(
            delta.after.as_ref().and_then(|g| g.result),
            Some(GameResult::DRAW)
        );
        // A half-point bye keyed with a draw's key is 1/2-0, as a bye is everywhere.
        let bye = compiled(Edit::SetResult {
            event: 0,
            round: 1,
            board: 2,
            result: Some(GameResult::DRAW),
        })
        .expect("a bye's result");
        assert_eq!(
            bye.games[0].after.as_ref().and_then(|g| g.result),
            Some(GameResult::unplayed(1, 0))
        );
    }

    #[test]
    fn the_same_result_again_changes_nothing_and_an_empty_board_is_refused_by_its_place() {
        let again = compiled(Edit::SetResult {
            event: 0,
            round: 1,
            board: 1,
            result: Some(GameResult::WHITE_WINS),
        })
        .expect("the same result");
        assert!(again.games.is_empty(), "{:?}", again.games);
        assert_eq!(
            refused(Edit::SetResult {
                event: 0,
                round: 3,
                board: 1,
                result: Some(GameResult::DRAW),
            }),
            "e1, round 3, board 1: no pairing on this board"
        );
    }

    #[test]
    fn a_withdrawn_player_takes_his_boards_and_leaves_the_others_entered() {
        let change = compiled(Edit::Withdraw {
            event: 0,
            player: 2,
        })
        .expect("withdrawn");
        let mut boards: Vec<_> = change.games.iter().map(|d| d.key).collect();
        boards.sort();
        assert_eq!(boards, [(0, 1, 2), (0, 2, 1)]);
        assert!(change.games.iter().all(|d| d.after.is_none()));
        let event = change.events[0].after.as_ref().expect("the event stays");
        assert_eq!(event.event.participants, [0, 1]);
        assert_eq!(
            refused(Edit::Withdraw {
                event: 0,
                player: 3,
            }),
            "e1: Dahl, Dan is not entered"
        );
    }

    #[test]
    fn entries_keep_everyone_who_plays() {
        assert_eq!(
            refused(Edit::SetParticipants {
                event: 0,
                players: vec![0, 2],
            }),
            "e1: Berg, Bo plays in round 1 and must stay entered"
        );
    }

    #[test]
    fn an_event_id_is_kept_once_and_an_edit_of_a_deleted_player_is_refused() {
        let again = refused(Edit::AddEvent(dated("e1", Vec::new())));
        assert_eq!(again, "an event with id e1 is already in the database");
        let deleted = refused(Edit::UpdatePlayer {
            player: 3,
            info: PlayerInfo::default(),
        });
        assert!(deleted.contains("Dahl, Dan"), "{deleted}");
        assert_eq!(
            refused(Edit::SetSeed {
                player: 0,
                list: 5,
                state: None,
            }),
            "there is no list 5"
        );
    }

    #[test]
    fn a_new_event_is_stored_as_its_record_and_its_boards_apart() {
        let change = compiled(Edit::AddEvent(dated("e2", vec![game(1, 1, 1, Some(2))])))
            .expect("a new event");
        let record = change.events[0].after.as_ref().expect("added");
        assert_eq!(change.events[0].key, 1, "the next event number");
        assert!(
            record.event.games.is_empty(),
            "boards are records of their own"
        );
        assert_eq!(record.event.participants, [1, 2], "entered from its games");
        assert_eq!(change.games[0].key, (1, 1, 1));
    }

    /// An import compiled owned (its new players moved into the change, as the desk applies
    /// it) is the change compiled from a borrowed edit (as a preview compiles it): existing
    /// players kept, a changed one updated, new ones numbered on, and its events refer to them
    /// all; a refusal is the same refusal.
    #[test]
    fn an_import_moved_into_its_change_is_the_change_it_compiles_to() {
        let (book, _) = fixture();
        let new = |id: &str| ImportedPlayer::New {
            info: PlayerInfo {
                id: id.into(),
                name: format!("{id}, Uusi"),
                ..PlayerInfo::default()
            },
            seeds: vec![None, None],
            held: Vec::new(),
        };
        let renamed = PlayerInfo {
            name: "Berg, Bodil".into(),
            ..book.players[1].clone()
        };
        let import = |players| Edit::<Ssl>::Import {
            players,
            events: vec![dated(
                "e2",
                vec![game(1, 1, 0, Some(2)), game(1, 2, 1, Some(3))],
            )],
        };
        let players = vec![
            ImportedPlayer::Existing(0),
            ImportedPlayer::Updated {
                player: 1,
                info: renamed,
            },
            new("FIN7"),
            new("FIN8"),
        ];
        let borrowed = compiled(import(players.clone())).expect("compiled");
        let owned = on_fixture(|now| import(players).compile_owned(now)).expect("compiled owned");
        assert_eq!(owned, borrowed);
        assert_eq!(
            owned.players.iter().map(|d| d.key).collect::<Vec<_>>(),
            [1, 4, 5]
        );
        assert_eq!(
            owned.games[1].after.as_ref().map(|g| g.black()),
            Some(Some(5))
        );
        let refused = vec![ImportedPlayer::Existing(3)];
        assert_eq!(
            on_fixture(|now| import(refused.clone()).compile_owned(now)),
            compiled(import(refused))
        );
    }
}
