//! Several officers on one record: workstations that keep a copy of the record and send their
//! edits to the process that holds the database. Whatever the order the officers' edits come
//! in, and however far behind each copy is when its officer keys one, every copy, the holder
//! and the database on disk end with the same record, the audit log's, and its ratings equal a
//! from-scratch calculation (the ledger invariant with several officers). An edit made on a
//! record that changed meanwhile is refused and shows what it holds now.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use ratedesk::app::reading::Making;
use ratedesk::app::replica::{AuditEntry, Link, LinkError, Shipped, Watcher};
use ratedesk::app::{Desk, DeskError, Edit};
use ratedesk::model::GameResult;
use ratedesk::rules::ssl::Ssl;

use crate::ledger_invariant::{apply, assert_invariant, op, setup, way};

type Queue = Arc<Mutex<VecDeque<AuditEntry<Ssl>>>>;

/// The holder's side: every committed entry queued for every copy.
struct Everyone {
    queues: Arc<Mutex<Vec<Queue>>>,
}

impl Watcher<Ssl> for Everyone {
    fn watching(&self) -> bool {
        false
    }

    fn stored(&mut self, _: &[AuditEntry<Ssl>]) {}

    fn durable(&self) -> bool {
        true
    }

    fn committed(&mut self, entries: &[AuditEntry<Ssl>]) {
        for queue in self.queues.lock().expect("queues").iter() {
            queue.lock().expect("queue").extend(entries.iter().cloned());
        }
    }
}

/// A copy's side, straight to the holder (the socket's framing is the only thing left out).
struct Direct {
    holder: Arc<Mutex<Desk<Ssl>>>,
    arrived: Queue,
    user: String,
}

impl Link<Ssl> for Direct {
    fn commit(&self, changes: Vec<Shipped<Ssl>>, at: u64) -> Result<u64, LinkError> {
        let stored = {
            let mut holder = self.holder.lock().expect("holder");
            holder.acting_for(Some(self.user.clone()));
            let stored = holder.commit_shipped(changes, at);
            holder.acting_for(None);
            stored
        };
        // The answer takes a moment to come back, as through a socket: other officers'
        // edits may be stored, and arrive here, before it.
        std::thread::sleep(std::time::Duration::from_millis(1));
        stored.map_err(|e| LinkError::Refused(e.to_string()))
    }

    fn arrived(&self) -> Vec<AuditEntry<Ssl>> {
        self.arrived.lock().expect("queue").drain(..).collect()
    }

    fn entry(&self, seq: u64) -> Result<Option<AuditEntry<Ssl>>, LinkError> {
        let holder = self.holder.lock().expect("holder");
        holder
            .audit_entry(seq)
            .map_err(|e| LinkError::Lost(e.to_string()))
    }
}

/// A database held by one desk, and `copies` workstations on copies of it.
struct Office {
    holder: Arc<Mutex<Desk<Ssl>>>,
    copies: Vec<Desk<Ssl>>,
    _dir: tempfile::TempDir,
}

fn office(copies: usize) -> Office {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = setup(dir.path());
    let queues: Arc<Mutex<Vec<Queue>>> = Arc::default();
    desk.watch(Box::new(Everyone {
        queues: queues.clone(),
    }));
    let holder = Arc::new(Mutex::new(desk));
    let copies = (0..copies)
        .map(|k| {
            // Its place among those told, and the dump, taken between two edits.
            let arrived: Queue = Arc::default();
            queues.lock().expect("queues").push(arrived.clone());
            let copy = holder.lock().expect("holder").snapshot().expect("a copy");
            let link = Direct {
                holder: holder.clone(),
                arrived,
                user: format!("officer{k}"),
            };
            Desk::replica(Ssl, &copy, Box::new(link)).expect("a copy")
        })
        .collect();
    Office {
        holder,
        copies,
        _dir: dir,
    }
}

/// The copy's record is the holder's: players, events, games, ratings and the audit log.
fn assert_same(copy: &Desk<Ssl>, holder: &Desk<Ssl>) -> Result<(), TestCaseError> {
    prop_assert_eq!(format!("{:?}", copy.book()), format!("{:?}", holder.book()));
    prop_assert_eq!(copy.status(), holder.status());
    prop_assert_eq!(copy.audit(), holder.audit());
    prop_assert!(copy.ledger().units() == holder.ledger().units());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Edits of the holder's officer and of two others on copies, in any order, each copy
    /// following the others' edits only now and then (so that some of its edits are made on
    /// a record that changed meanwhile).
    #[test]
    fn every_copy_and_the_database_end_with_the_record_the_audit_log_gives(
        ops in proptest::collection::vec((0..3usize, op(8), way(), any::<bool>()), 1..16)
    ) {
        let mut office = office(2);
        let mut counter = 0;
        for (who, op, way, follow) in &ops {
            match who {
                0 => apply(&mut office.holder.lock().expect("holder"), op, *way, &mut counter),
                k => {
                    let copy = &mut office.copies[k - 1];
                    if *follow {
                        copy.catch_up().expect("follow");
                    }
                    apply(copy, op, *way, &mut counter);
                }
            }
        }
        for copy in &mut office.copies {
            copy.catch_up().expect("follow");
        }
        {
            let holder = office.holder.lock().expect("holder");
            assert_invariant(&holder)?;
            for copy in &office.copies {
                assert_same(copy, &holder)?;
                assert_invariant(copy)?;
            }
            prop_assert_eq!(holder.check_chain().expect("chain"), Vec::<String>::new());
        }
        // What the holder stored is what the database holds when opened again.
        let Office { holder, copies, _dir } = office;
        drop(copies);
        let holder = Arc::try_unwrap(holder).ok().expect("the only holder").into_inner().expect("holder");
        let rows = format!("{:?}", holder.ledger().units());
        let live = |desk: &Desk<Ssl>| format!("{:?}", desk.book().events.iter().zip(&desk.book().live).filter(|(_, l)| **l).collect::<Vec<_>>());
        let (events, players) = (live(&holder), format!("{:?}", holder.book().players));
        holder.close().expect("close");
        // (A deleted event at the end of the list is not read back as a slot.)
        let reopened = Desk::open(_dir.path(), Ssl).expect("reopen");
        prop_assert_eq!(live(&reopened), events);
        prop_assert_eq!(format!("{:?}", reopened.book().players), players);
        prop_assert_eq!(format!("{:?}", reopened.ledger().units()), rows);
        assert_invariant(&reopened)?;
    }
}

/// Two officers on one game: the second keys it on a copy that has not yet shown the first's
/// result. His edit is refused with the result the board holds now, nothing is stored, and his
/// copy then shows it; the same key again is stored.
#[test]
fn an_edit_on_a_result_another_officer_changed_meanwhile_is_refused_with_the_new_value() {
    let mut office = office(2);
    let (event, round, board) = {
        let holder = office.holder.lock().expect("holder");
        let g = &holder.book().events[0].games[0];
        (0, g.round, g.board)
    };
    let result = |r: GameResult| Edit::SetResult {
        event,
        round,
        board,
        result: Some(r),
    };
    office.copies[0]
        .apply(result(GameResult::WHITE_WINS))
        .expect("the first officer's result");
    let refused = office.copies[1]
        .apply(result(GameResult::BLACK_WINS))
        .expect_err("made on the record as it was");
    let said = refused.to_string();
    assert!(matches!(refused, DeskError::Edit(_)), "{said}");
    assert!(
        said.contains(&format!(
            "not stored, changed meanwhile: round {round} board {board} of s0 is now 1-0"
        )),
        "{said}"
    );
    let holder_log = office.holder.lock().expect("holder").audit().to_vec();
    assert_eq!(holder_log.last().map(|a| a.user.as_str()), Some("officer0"));
    // The refused copy follows what it was refused for: the board shows 1-0 there now.
    let shown = |copy: &Desk<Ssl>| {
        copy.book().events[0]
            .games
            .iter()
            .find(|g| (g.round, g.board) == (round, board))
            .and_then(|g| g.result)
    };
    assert_eq!(shown(&office.copies[1]), Some(GameResult::WHITE_WINS));
    assert_eq!(office.copies[1].audit(), holder_log.as_slice());
    // Keyed again on the record as it is now: stored, under his name, on every copy.
    office.copies[1]
        .apply(result(GameResult::BLACK_WINS))
        .expect("keyed again");
    office.copies[0].catch_up().expect("follow");
    let holder = office.holder.lock().expect("holder");
    assert_eq!(
        holder.audit().last().map(|a| a.user.as_str()),
        Some("officer1")
    );
    for copy in &office.copies {
        assert_eq!(shown(copy), Some(GameResult::BLACK_WINS));
        assert_eq!(copy.audit(), holder.audit());
        assert!(copy.ledger().units() == holder.ledger().units());
    }
}

/// What a workstation shows of an event — its standings, computed once and kept until the
/// record changes — follows another officer's result as soon as the copy follows it.
#[test]
fn a_workstation_shows_the_standings_another_officers_result_gives() {
    let mut office = office(2);
    let mut app = ratedesk::app::workstation::state::App::new(office.copies.remove(0));
    let (round, board, white) = {
        let g = &app.desk.book().events[0].games[0];
        (g.round, g.board, g.white())
    };
    let points = |app: &ratedesk::app::workstation::state::App<Ssl>| {
        app.standings(0)
            .iter()
            .find(|s| s.player == white)
            .map(|s| s.points)
    };
    let wins = |r: GameResult| Edit::SetResult {
        event: 0,
        round,
        board,
        result: Some(r),
    };
    // Shown once (and kept), then the other officer makes it a win for white, then a loss.
    let before = points(&app);
    office.copies[0]
        .apply(wins(GameResult::BLACK_WINS))
        .expect("the other officer's result");
    app.desk.catch_up().expect("follow");
    let lost = points(&app);
    office.copies[0]
        .apply(wins(GameResult::WHITE_WINS))
        .expect("corrected");
    app.desk.catch_up().expect("follow");
    let won = points(&app);
    assert_eq!(
        won.zip(lost).map(|(w, l)| w - l),
        Some(2),
        "white's points follow the result (before: {before:?}, lost: {lost:?}, won: {won:?})"
    );
    let holder = office.holder.lock().expect("holder");
    let expected = ratedesk::app::queries::standings(holder.book(), holder.ledger(), 0);
    let shown: Vec<(usize, u32)> = app
        .standings(0)
        .iter()
        .map(|s| (s.player, s.points))
        .collect();
    let wanted: Vec<(usize, u32)> = expected.iter().map(|s| (s.player, s.points)).collect();
    assert_eq!(shown, wanted);
}

/// A copy finds the federation's players as the holder does — by code, FIDE id and name —
/// for its imports and its commands: from its record, not from a store of its own (which holds
/// no players).
#[test]
fn a_copy_finds_the_players_of_the_record_it_holds() {
    let office = office(1);
    let holder = office.holder.lock().expect("holder");
    let copy = &office.copies[0];
    for p in [0, holder.book().players.len() - 1] {
        let info = &holder.book().players[p];
        let mut keys = vec![info.id.clone()];
        keys.extend(info.fide_id.map(|f| f.to_string()));
        for key in keys {
            let found = ratedesk::app::queries::find_player(copy, &key)
                .unwrap_or_else(|e| panic!("{key}: {e}"));
            assert_eq!(found, p, "{key}");
            assert_eq!(
                ratedesk::app::queries::find_player(&holder, &key).expect("the holder's"),
                p
            );
        }
    }
}

/// Four officers keying at once, each in a thread of his own, on boards some of which they
/// share: every edit is stored or refused as made on a changed record, and at the end every
/// copy holds the holder's record, whose ratings equal a from-scratch calculation.
#[test]
fn four_officers_keying_at_once_leave_one_record() {
    let office = office(4);
    let games: Vec<(usize, u32, u32)> = {
        let holder = office.holder.lock().expect("holder");
        (0..holder.book().events.len())
            .flat_map(|e| {
                holder.book().events[e]
                    .games
                    .iter()
                    .map(move |g| (e, g.round, g.board))
            })
            .collect()
    };
    let results = [
        GameResult::WHITE_WINS,
        GameResult::BLACK_WINS,
        GameResult::DRAW,
    ];
    let Office {
        holder,
        copies,
        _dir,
    } = office;
    let threads: Vec<_> = copies
        .into_iter()
        .enumerate()
        .map(|(k, mut copy)| {
            let games = games.clone();
            std::thread::spawn(move || {
                let (mut stored, mut refused) = (0, 0);
                let mut seed = 7 + k as u64;
                for _ in 0..30 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let (event, round, board) = games[(seed >> 33) as usize % games.len()];
                    let result = results[(seed >> 20) as usize % 3];
                    match copy.apply(Edit::SetResult {
                        event,
                        round,
                        board,
                        result: Some(result),
                    }) {
                        Ok(_) => stored += 1,
                        Err(DeskError::Edit(e)) => {
                            assert!(e.to_string().contains("changed meanwhile"), "{e}");
                            refused += 1;
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
                (copy, stored, refused)
            })
        })
        .collect();
    let mut copies = Vec::new();
    let mut stored = 0;
    for thread in threads {
        let (copy, s, _) = thread.join().expect("an officer's thread");
        copies.push(copy);
        stored += s;
    }
    assert!(stored > 30, "most edits are stored: {stored}");
    let holder = holder.lock().expect("holder");
    assert_invariant(&holder).expect("the holder's ratings");
    for copy in &mut copies {
        copy.catch_up().expect("follow");
        assert_same(copy, &holder).expect("the copy is the holder's record");
    }
}

/// Edits that cross without writing the same record: one officer deletes an event while
/// another keys a result in it; one corrects a player's record (his birthday) while another
/// keys a result of his. The second is refused, naming what changed, and nothing of it is
/// stored; two results on other boards of one event do not cross.
#[test]
fn an_edit_crossed_by_another_officers_edit_on_a_record_it_relies_on_is_refused() {
    let mut office = office(2);
    let (round, board, white) = {
        let holder = office.holder.lock().expect("holder");
        let g = &holder.book().events[1].games[0];
        (g.round, g.board, g.white())
    };
    // Other boards of one event, by two officers: both stored.
    let other = {
        let holder = office.holder.lock().expect("holder");
        let g = &holder.book().events[0].games[1];
        (g.round, g.board)
    };
    office.copies[0]
        .apply(Edit::SetResult {
            event: 0,
            round: 1,
            board: 1,
            result: Some(GameResult::WHITE_WINS),
        })
        .expect("one board");
    office.copies[1]
        .apply(Edit::SetResult {
            event: 0,
            round: other.0,
            board: other.1,
            result: Some(GameResult::BLACK_WINS),
        })
        .expect("another board of the same event, made without following the first");
    // The event deleted by one, a result keyed in it by the other.
    office.copies[0].catch_up().expect("follow");
    office.copies[1].catch_up().expect("follow");
    office.copies[0]
        .apply(Edit::DeleteEvent(1))
        .expect("the event deleted");
    let before = office.holder.lock().expect("holder").audit().len();
    let refused = office.copies[1]
        .apply(Edit::SetResult {
            event: 1,
            round,
            board,
            result: Some(GameResult::BLACK_WINS),
        })
        .expect_err("its event was deleted meanwhile");
    assert!(
        refused
            .to_string()
            .contains("changed meanwhile: event s1 (#"),
        "{refused}"
    );
    assert_eq!(office.holder.lock().expect("holder").audit().len(), before);
    // A player's record corrected by one, a result of his keyed by the other.
    office.copies[0].catch_up().expect("follow");
    office.copies[1].catch_up().expect("follow");
    let (round, board, info) = {
        let holder = office.holder.lock().expect("holder");
        let g = holder.book().events[2]
            .games
            .iter()
            .find(|g| g.white() == white || g.black() == Some(white))
            .expect("a game of his");
        (g.round, g.board, holder.book().players[white].clone())
    };
    office.copies[0]
        .apply(Edit::UpdatePlayer {
            player: white,
            info: ratedesk::model::PlayerInfo {
                born: chrono::NaiveDate::from_ymd_opt(1990, 5, 1),
                ..info
            },
        })
        .expect("corrected");
    let refused = office.copies[1]
        .apply(Edit::SetResult {
            event: 2,
            round,
            board,
            result: Some(GameResult::WHITE_WINS),
        })
        .expect_err("his record changed meanwhile");
    assert!(
        refused.to_string().contains("changed meanwhile"),
        "{refused}"
    );
    let holder = office.holder.lock().expect("holder");
    assert_invariant(&holder).expect("the holder's ratings");
    for copy in &mut office.copies {
        copy.catch_up().expect("follow");
        assert_same(copy, &holder).expect("the copy is the holder's record");
    }
}

/// A play-off names the event it decides (SSL 2.10), which stays while it does: an officer's
/// undo of the event, or its deletion, made on a copy that has not yet shown another officer's
/// play-off of it, is refused, nothing is stored, and the message names the play-off's link;
/// so is the redo of a play-off whose event another officer deleted meanwhile, naming the
/// deletion; a second play-off, and a result in the event, are stored; every copy ends with the
/// holder's record, rated as from scratch.
#[test]
fn an_event_a_play_off_added_meanwhile_decides_is_neither_undone_nor_deleted() {
    let mut office = office(2);
    for (k, copy) in office.copies.iter_mut().enumerate() {
        copy.acting_for(Some(format!("officer{k}")));
    }
    let event = |id: &str, d, of| crate::playoffs::event(id, d, 90, of);
    let holder_log = |office: &Office| office.holder.lock().expect("holder").audit().len();
    // The event by one officer, its play-off by the other (who has followed the first).
    office.copies[0]
        .apply(Edit::AddEvent(event("cup", 1, None)))
        .expect("the event");
    office.copies[1].catch_up().expect("follow");
    office.copies[1]
        .apply(Edit::AddEvent(event("cup-playoff", 2, Some("cup"))))
        .expect("its play-off");
    // The first, not following, undoes his newest edit: the event.
    let before = holder_log(&office);
    let shown = office.copies[0]
        .next_undo(true)
        .expect("next")
        .expect("an edit to undo");
    assert!(shown.action.contains("cup"), "{}", shown.action);
    let refused = office.copies[0]
        .undo()
        .expect_err("a play-off decides it now");
    assert!(
        refused
            .to_string()
            .contains("changed meanwhile: a play-off of event cup (#"),
        "{refused}"
    );
    assert_eq!(holder_log(&office), before);
    // Another event, its play-off, and the event deleted on the first's copy as it stood:
    // refused the same way (his copy did not know of the play-off, the holder does).
    office.copies[0]
        .apply(Edit::AddEvent(event("league", 5, None)))
        .expect("the event");
    office.copies[1].catch_up().expect("follow");
    office.copies[1]
        .apply(Edit::AddEvent(event("league-playoff", 6, Some("league"))))
        .expect("its play-off");
    let before = holder_log(&office);
    let league = office.copies[0]
        .book()
        .live_event("league")
        .expect("the event on the copy");
    let refused = office.copies[0]
        .apply(Edit::DeleteEvent(league))
        .expect_err("a play-off decides it now");
    assert!(
        refused
            .to_string()
            .contains("changed meanwhile: a play-off of event league (#"),
        "{refused}"
    );
    assert_eq!(holder_log(&office), before);
    // A play-off made and undone by one officer, its event deleted by the other, the play-off
    // redone by the first on his copy as it stood: refused, naming the deletion.
    office.copies[1].catch_up().expect("follow");
    office.copies[1]
        .apply(Edit::AddEvent(event("open", 7, None)))
        .expect("the event");
    office.copies[0].catch_up().expect("follow");
    office.copies[0]
        .apply(Edit::AddEvent(event("open-playoff", 8, Some("open"))))
        .expect("its play-off");
    office.copies[0]
        .undo()
        .expect("undo")
        .expect("the play-off undone");
    office.copies[1].catch_up().expect("follow");
    let open = office.copies[1]
        .book()
        .live_event("open")
        .expect("the event on the copy");
    office.copies[1]
        .apply(Edit::DeleteEvent(open))
        .expect("no play-off decides it now");
    let before = holder_log(&office);
    let refused = office.copies[0]
        .redo()
        .expect_err("its event was deleted meanwhile");
    assert!(
        refused
            .to_string()
            .contains("event open, deleted or renamed (#"),
        "{refused}"
    );
    assert!(refused.to_string().contains(", officer1)"), "{refused}");
    assert_eq!(holder_log(&office), before);
    // A second play-off of the event, and a result keyed in the first meanwhile: stored.
    office.copies[0]
        .apply(Edit::AddEvent(event("cup-playoff-2", 3, Some("cup"))))
        .expect("a second play-off");
    let cup = office.copies[1]
        .book()
        .live_event("cup")
        .expect("the event on the copy");
    office.copies[1]
        .apply(Edit::SetResult {
            event: cup,
            round: 1,
            board: 1,
            result: Some(GameResult::DRAW),
        })
        .expect("a result in the event, made without following the second play-off");
    let holder = office.holder.lock().expect("holder");
    assert_invariant(&holder).expect("the holder's ratings");
    for copy in &mut office.copies {
        copy.catch_up().expect("follow");
        assert_same(copy, &holder).expect("the copy is the holder's record");
        assert_invariant(copy).expect("the copy's ratings");
    }
}

fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn id(flag: &str) -> String {
    let out = std::process::Command::new("id")
        .arg(flag)
        .output()
        .expect("id");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The owner names officers — a user, a group — each an audited entry that undo passes over;
/// naming a group opens the folder to it alone (0710) and taking it back closes it (0700); a
/// name that is no user of the machine is refused; a backup keeps them through a restore.
#[test]
fn the_owner_names_officers_audited_kept_by_a_backup_and_passed_over_by_undo() {
    use crate::common::{ok, ratedesk};
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("db");
    ok(&ratedesk(
        &db,
        &[
            "demo",
            "--players",
            "20",
            "--years",
            "1",
            "--out",
            db.to_str().expect("path"),
        ],
    ));
    let (me, group) = (id("-un"), id("-gn"));
    let list = ok(&ratedesk(&db, &["officers", "list"]));
    assert_eq!(list.trim(), format!("{me} (the owner)"));
    let added = ok(&ratedesk(&db, &["officers", "add", &me]));
    assert!(
        added.contains(&format!("{me} may edit from now on")),
        "{added}"
    );
    let again = ok(&ratedesk(&db, &["officers", "add", &me]));
    assert!(again.contains("may edit already"), "{again}");
    ok(&ratedesk(&db, &["officers", "add", "--group", &group]));
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("folder").permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o710, "the folder opened to the group alone");
    let list = ok(&ratedesk(&db, &["officers", "list"]));
    assert!(
        list.contains(&format!("\n{me}\n")) && list.contains(&format!("group {group}")),
        "{list}"
    );
    let log = ok(&ratedesk(&db, &["log", "--last", "1"]));
    assert!(
        log.contains(&format!("officers: group {group} may edit")),
        "{log}"
    );
    let unknown = ratedesk(&db, &["officers", "add", "no-such-user-of-this-machine"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", said(&unknown));
    assert!(
        said(&unknown).contains("there is no user named"),
        "{}",
        said(&unknown)
    );
    // Undo takes the edit before them, never an officer's naming: here a result keyed
    // before the group was named.
    let events: serde_json::Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    let event = &events["events"][0];
    let game = event["games"]
        .as_array()
        .and_then(|g| g.iter().find(|g| !g["black"].is_null()))
        .expect("a game");
    let (ev, round, board) = (
        event["id"].as_str().expect("id").to_string(),
        game["round"].to_string(),
        game["board"].to_string(),
    );
    let mut keyed = ratedesk(
        &db,
        &["result", &ev, &round, &board, "1-0", "--keep-titles"],
    );
    if said(&keyed).contains("nothing to change") {
        keyed = ratedesk(
            &db,
            &["result", &ev, &round, &board, "0-1", "--keep-titles"],
        );
    }
    ok(&keyed);
    ok(&ratedesk(&db, &["officers", "add", "root"]));
    let undone = ok(&ratedesk(&db, &["undo"]));
    assert!(
        undone.starts_with(&format!("undo: result {ev}")),
        "{undone}"
    );
    // Through a backup and a restore into another folder.
    let file = tmp.path().join("backup.txt");
    ok(&ratedesk(&db, &["backup", file.to_str().expect("path")]));
    let restored = tmp.path().join("restored");
    ok(&ratedesk(
        &restored,
        &["restore", file.to_str().expect("path")],
    ));
    assert_eq!(
        ok(&ratedesk(&restored, &["officers", "list"])),
        ok(&ratedesk(&db, &["officers", "list"]))
    );
    let removed = ok(&ratedesk(&db, &["officers", "remove", "--group", &group]));
    assert!(removed.contains("may look up, no longer edit"), "{removed}");
    assert_eq!(mode(&db), 0o700, "closed to everyone but the owner again");
    let check = ok(&ratedesk(&db, &["check"]));
    assert!(check.starts_with("ok"), "{check}");
}

/// Undo takes the officer's own newest edit, passing over another officer's newer one; an
/// own edit another officer has changed since is not undone over his change; with none of his
/// own left, what undo would take is another's, and says whose.
#[test]
fn undo_takes_the_officers_own_newest_edit_and_never_over_anothers_change() {
    let mut office = office(2);
    for (k, copy) in office.copies.iter_mut().enumerate() {
        copy.acting_for(Some(format!("officer{k}")));
    }
    let boards: Vec<(u32, u32)> = {
        let holder = office.holder.lock().expect("holder");
        holder.book().events[0]
            .games
            .iter()
            .filter(|g| g.round == 1)
            .map(|g| (g.round, g.board))
            .collect()
    };
    let key = |copy: &mut Desk<Ssl>, (round, board): (u32, u32), result| {
        copy.apply(Edit::SetResult {
            event: 0,
            round,
            board,
            result: Some(result),
        })
        .expect("stored");
    };
    let result_of = |desk: &Desk<Ssl>, (round, board): (u32, u32)| {
        desk.book().events[0]
            .games
            .iter()
            .find(|g| (g.round, g.board) == (round, board))
            .and_then(|g| g.result)
    };
    key(&mut office.copies[0], boards[0], GameResult::WHITE_WINS);
    office.copies[1].catch_up().expect("follow");
    key(&mut office.copies[1], boards[1], GameResult::BLACK_WINS);
    office.copies[0].catch_up().expect("follow");
    // officer0's undo takes his own result, not officer1's newer one.
    let undone = office.copies[0].undo().expect("undo").expect("his edit");
    assert!(
        undone.action.starts_with("undo: result s0 round 1 board 1"),
        "{}",
        undone.action
    );
    {
        let holder = office.holder.lock().expect("holder");
        assert_eq!(result_of(&holder, boards[0]), Some(GameResult::DRAW));
        assert_eq!(result_of(&holder, boards[1]), Some(GameResult::BLACK_WINS));
    }
    // With none of his own left, undo would take officer1's, and says whose it is.
    let next = office.copies[0]
        .next_undo(true)
        .expect("next")
        .expect("an edit");
    assert_eq!(ratedesk::app::os_name(&next.user), "officer1");
    assert!(
        office.copies[0]
            .next_undo_of(true, Some("officer0"))
            .expect("next")
            .is_none()
    );
    // officer0 keys board 3; officer1 corrects it; officer0's undo is refused, naming him.
    key(&mut office.copies[0], boards[2], GameResult::WHITE_WINS);
    office.copies[1].catch_up().expect("follow");
    key(&mut office.copies[1], boards[2], GameResult::BLACK_WINS);
    office.copies[0].catch_up().expect("follow");
    let refused = office.copies[0]
        .undo()
        .expect_err("over officer1's correction");
    assert!(
        refused
            .to_string()
            .contains("would overwrite round 1 board 3 of s0"),
        "{refused}"
    );
    assert!(refused.to_string().contains(", officer1)"), "{refused}");
    let holder = office.holder.lock().expect("holder");
    assert_eq!(result_of(&holder, boards[2]), Some(GameResult::BLACK_WINS));
    assert_invariant(&holder).expect("the holder's ratings");
}

/// The holder's side for a copy kept for reading in its own process: every committed
/// transaction sent to it at once (it need not be on disk first).
struct ToReader(std::sync::mpsc::Sender<Vec<AuditEntry<Ssl>>>);

impl Watcher<Ssl> for ToReader {
    fn watching(&self) -> bool {
        true
    }

    fn stored(&mut self, entries: &[AuditEntry<Ssl>]) {
        let _ = self.0.send(entries.to_vec());
    }

    fn durable(&self) -> bool {
        false
    }

    fn committed(&mut self, _: &[AuditEntry<Ssl>]) {}
}

/// The dump `backup` writes of a desk's record.
fn dump(desk: &Desk<Ssl>) -> String {
    let mut text = Vec::new();
    desk.write_backup_into(&mut text).expect("dump");
    String::from_utf8(text).expect("utf-8")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A copy kept for reading beside the desk that edits reads the record as it stood when it
    /// last caught up, however far the edits have gone since: its dump is the one the desk
    /// would have written then (the audit log up to there, not beyond), `check` passes on it
    /// (the results on disk compared with its record once brought to where they were written
    /// from), and caught up it holds the desk's record, the audit log's.
    #[test]
    fn a_copy_for_reading_reads_the_record_as_it_stood_while_edits_go_on(
        making in proptest::collection::vec((op(8), way()), 0..12),
        ops in proptest::collection::vec((op(8), way(), any::<bool>()), 1..16),
        behind in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut holder = setup(dir.path());
        if behind {
            // As in the workstation: the flush and the results written behind the screen.
            holder.flush_behind();
        }
        let mut counter = 0;
        // Made a player, then an event, at a time, with edits between the parts (each record
        // copied before or after the edits that change it).
        let (feed, incoming) = std::sync::mpsc::channel();
        holder.watch(Box::new(ToReader(feed)));
        let mut parts = Making::in_parts_of(1, 0);
        let mut between = making.iter();
        while !holder.copy_part(&mut parts) {
            if let Some((op, way)) = between.next() {
                apply(&mut holder, op, *way, &mut counter);
            }
        }
        if let Some((op, way)) = between.next() {
            apply(&mut holder, op, *way, &mut counter);
        }
        let made = holder.made(parts).expect("made");
        holder.settle_all().expect("settled");
        let mut then = dump(&holder);
        // Edits after the last part, before the copy is a desk: followed later.
        for (op, way) in between {
            apply(&mut holder, op, *way, &mut counter);
        }
        let mut reader = made.into_desk(incoming);
        prop_assert_eq!(dump(&reader), then.clone());
        // An officer named (kept beside the chain): the copy lists him, and its dump has him.
        let anna = ratedesk::model::Officer { name: "anna".into(), group: false };
        holder.name_officer(anna.clone(), true).expect("anna named");
        reader.read_on().expect("follow");
        prop_assert_eq!(reader.officers().to_vec(), vec![anna]);
        holder.settle_all().expect("settled");
        then = dump(&holder);
        prop_assert_eq!(dump(&reader), then.clone());
        for (op, way, catch_up) in &ops {
            if *catch_up {
                reader.read_on().expect("follow");
                holder.settle_all().expect("settled");
                then = dump(&holder);
                assert_same(&reader, &holder)?;
            }
            apply(&mut holder, op, *way, &mut counter);
        }
        prop_assert_eq!(dump(&reader), then);
        let checked = ratedesk::app::queries::check(&mut reader).expect("check");
        prop_assert_eq!(checked.problems, Vec::<String>::new());
        // A result keyed on the copy is refused as a copy's (the edits may have undone every
        // event: then there is no board to key).
        let book = reader.book();
        let board = (0..book.events.len())
            .filter(|&e| book.live[e])
            .find_map(|e| book.events[e].games.first().map(|g| (e, g.clone())));
        if let Some((event, g)) = board {
            let other = match g.result {
                Some(GameResult::WHITE_WINS) => GameResult::BLACK_WINS,
                _ => GameResult::WHITE_WINS,
            };
            let edit = Edit::SetResult { event, round: g.round, board: g.board, result: Some(other) };
            let refused = reader.apply(edit).expect_err("a copy for reading stores nothing");
            prop_assert!(refused.to_string().contains("kept for reading stores nothing"), "{refused}");
        }
        reader.read_on().expect("follow");
        holder.settle_all().expect("settled");
        assert_same(&reader, &holder)?;
        prop_assert_eq!(dump(&reader), dump(&holder));
        assert_invariant(&reader)?;
    }
}
