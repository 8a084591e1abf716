//! Edits that change several records of the federation at once: merging two records of one
//! player, and keeping as held the awards a correction would take away.

use std::collections::BTreeSet;

use super::checks::Current;
use super::edit::{EditError, err};
use crate::book::{Change, Delta, PlayerRecord, PlayerStatus};
use crate::model::{Game, PlayerIdx, player_u32};
use crate::rules::{Award, Rulebook};

/// Keeping the awards a correction would take away (titles are permanent: SSL 6.1): each is
/// added to its player's held awards in the correction's own change, so one audited entry —
/// and one undo — holds both.
pub(super) fn keep_awards<R: Rulebook>(
    now: &Current<'_, R>,
    awards: &[Award<R::Award>],
    change: &mut Change<R>,
) -> Result<(), EditError> {
    for a in awards {
        now.active(a.player)?;
        match change.players.iter_mut().find(|d| d.key == a.player) {
            Some(Delta {
                after: Some(after), ..
            }) => after.held.push(a.clone()),
            Some(_) => return err("an award of a player the edit removes"),
            None => {
                let before = now.record(a.player);
                let mut after = before.clone();
                after.held.push(a.clone());
                change.players.push(Delta {
                    key: a.player,
                    before: Some(Box::new(before)),
                    after: Some(Box::new(after)),
                });
            }
        }
    }
    Ok(())
}

/// Merging two records of one player: every game of `remove` moves to `keep` (refused where
/// the two met or both played in one round), `keep` takes `remove`'s starting states where he
/// has none and any award he lacks, and `remove` is retired.
pub(super) fn merge<R: Rulebook>(
    now: &Current<'_, R>,
    keep: PlayerIdx,
    remove: PlayerIdx,
    change: &mut Change<R>,
) -> Result<(), EditError> {
    now.active(keep)?;
    now.active(remove)?;
    if keep == remove {
        return err("a player cannot be merged into himself");
    }
    let book = now.book;
    for (e, event) in book
        .events
        .iter()
        .enumerate()
        .filter(|(e, _)| book.live[*e])
    {
        let rounds = |p: PlayerIdx| -> BTreeSet<u32> {
            event
                .games
                .iter()
                .filter(|g| g.white() == p || g.black() == Some(p))
                .map(|g| g.round)
                .collect()
        };
        let both: Vec<u32> = rounds(keep)
            .intersection(&rounds(remove))
            .copied()
            .collect();
        if let Some(r) = both.first() {
            return err(format!(
                "{} and {} both play in {} round {r}: they cannot be one player",
                now.player_name(keep),
                now.player_name(remove),
                event.id
            ));
        }
        if event.participants.contains(&remove) {
            let before = now.event_record(e);
            let mut after = before.clone();
            let mut seen = BTreeSet::new();
            after.event.participants = event
                .participants
                .iter()
                .map(|&p| if p == remove { keep } else { p })
                .filter(|p| seen.insert(*p))
                .collect();
            change.events.push(Delta {
                key: e,
                before: Some(before),
                after: Some(after),
            });
        }
        for g in event
            .games
            .iter()
            .filter(|g| g.white() == remove || g.black() == Some(remove))
        {
            let swap = |p: PlayerIdx| if p == remove { keep } else { p };
            let moved = Game {
                white: player_u32(swap(g.white())),
                black: g.black().map(swap).map(player_u32),
                ..g.clone()
            };
            change.games.push(Delta {
                key: (e, g.round, g.board),
                before: Some(g.clone()),
                after: Some(moved),
            });
        }
    }
    let (kept_before, removed_before) = (now.record(keep), now.record(remove));
    let mut kept = kept_before.clone();
    for (slot, theirs) in kept.seeds.iter_mut().zip(&removed_before.seeds) {
        if slot.is_none() {
            *slot = theirs.clone();
        }
    }
    // His re-entries come along: the kept record's own stands on a day both have.
    for r in &removed_before.info.reentries {
        if !kept.info.reentries.iter().any(|k| k.date == r.date) {
            kept.info.reentries.push(r.clone());
        }
    }
    kept.info.reentries.sort_by_key(|r| r.date);
    for a in &removed_before.held {
        if !kept.held.iter().any(|h| h.award == a.award) {
            kept.held.push(Award {
                player: keep,
                ..a.clone()
            });
        }
    }
    let retired = PlayerRecord {
        status: PlayerStatus::MergedInto(keep),
        ..removed_before.clone()
    };
    change.players.push(Delta {
        key: keep,
        before: Some(Box::new(kept_before)),
        after: Some(Box::new(kept)),
    });
    change.players.push(Delta {
        key: remove,
        before: Some(Box::new(removed_before)),
        after: Some(Box::new(retired)),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::fixture::{book_of, game};
    use crate::book::{Book, placeholder_event};
    use crate::ledger::Ledger;
    use crate::model::Event;
    use crate::rules::ssl::Ssl;

    fn event(id: &str, participants: Vec<PlayerIdx>, games: Vec<Game>) -> Event {
        Event {
            id: id.into(),
            participants,
            games,
            ..placeholder_event()
        }
    }

    /// A book before a merge, after it, and the statuses after it.
    type Merged = (Book<Ssl>, Book<Ssl>, Vec<PlayerStatus>);

    /// The book of four players (the first and the last are two records of Aho, Aino) and
    /// `events`, and the merge of the last record into the first: the book after it.
    fn merged(events: Vec<Event>) -> Result<Merged, EditError> {
        let active = PlayerStatus::Active;
        let (book, status) = book_of(
            &[
                ("FIN1", "Aho, Aino", active),
                ("FIN2", "Berg, Bo", active),
                ("FIN3", "Cajan, Carl", active),
                ("FIN9", "Aho, Aino", active),
            ],
            events,
        );
        let ledger = Ledger::build(&Ssl, &book);
        let now = Current {
            rulebook: &Ssl,
            book: &book,
            status: &status,
            ledger: &ledger,
            today: crate::clock::today(),
        };
        assert!(merge(&now, 0, 0, &mut Change::default()).is_err());
        let mut change = Change::default();
        merge(&now, 0, 3, &mut change)?;
        let (mut after, mut statuses) = (book.clone(), status.clone());
        change.apply(&mut after, &mut statuses);
        Ok((book, after, statuses))
    }

    /// Two records of one player merged: the removed one's games and entries move to the kept
    /// one, and he is retired into him; records that played in one round are refused with the
    /// event and round.
    #[test]
    fn two_records_of_one_player_merge_unless_they_played_in_one_round() {
        let apart = || {
            vec![
                event("e1", vec![0, 1], vec![game(1, 1, 0, Some(1))]),
                event("e2", vec![3, 2], vec![game(1, 1, 3, Some(2))]),
            ]
        };
        let mut together = apart();
        together.push(event(
            "e3",
            vec![0, 3, 1, 2],
            vec![game(2, 1, 0, Some(1)), game(2, 2, 3, Some(2))],
        ));
        assert_eq!(
            merged(together).expect_err("both play in e3 round 2").0,
            "Aho, Aino and Aho, Aino both play in e3 round 2: they cannot be one player"
        );
        let (before, after, statuses) = merged(apart()).expect("merged");
        assert_eq!(after.events[1].games, vec![game(1, 1, 0, Some(2))]);
        assert_eq!(after.events[1].participants, vec![0, 2]);
        assert_eq!(statuses[3], PlayerStatus::MergedInto(0));
        assert_eq!(statuses[0], PlayerStatus::Active);
        assert_eq!(
            after.events[0], before.events[0],
            "an event without him is untouched"
        );
    }
}
