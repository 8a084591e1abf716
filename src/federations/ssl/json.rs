//! The Finnish rulebook's part of the JSON format: selo and pelo states (with the running
//! aggregates of new players), titles, and selection numbers.

use serde_json::{Map, Value, json};

use crate::json::input::{count, halves, object, published_rating, whole};
use crate::json::{InputError, JsonRules, Results};
use crate::model::PlayerIdx;
use crate::rules::ssl::selection::selection;
use crate::rules::ssl::{History, Rule, SELO, Ssl, SslState, Title};

impl JsonRules for Ssl {
    /// The rule the event is rated by, an unrated one too (`2023` or `before-2011`: by its
    /// start, see `rules::ssl::era`).
    fn event_fields(&self, event: &crate::model::Event, row: &mut Map<String, Value>) {
        row.insert("rule".into(), json!(Rule::of(event).code()));
    }

    /// Rule 3.1 before 2011 (seed 001: the new player's formula "kunnes selokelpoisten pelien
    /// määrä on vähintään 10"): a player who comes with 10 or more earlier selo games is
    /// established in an event rated by the rule before 2011, and an established player needs
    /// a rating — one without is refused when such an event is the first he plays on selo.
    fn validate(&self, book: &crate::book::Book<Self>) -> Result<(), InputError> {
        use crate::rules::Rulebook;
        let unrated_with_games = |p: PlayerIdx| {
            book.seeds
                .get(p)
                .and_then(|s| s.get(SELO))
                .and_then(Option::as_ref)
                .is_some_and(|s| {
                    s.rating.is_none()
                        && !s.elo_corrected
                        && s.games >= Rule::Before2011.established_from()
                })
        };
        let mut seen = vec![false; book.players.len()];
        for e in crate::ledger::event_order(&book.events) {
            let event = &book.events[e];
            if !book.live[e] || self.list_in(event, &book.events) != Some(SELO) {
                continue;
            }
            for g in event.games.iter().filter(|g| g.is_rated_game()) {
                for p in std::iter::once(g.white()).chain(g.black()) {
                    if std::mem::replace(&mut seen[p], true) || !unrated_with_games(p) {
                        continue;
                    }
                    let games = book.seeds[p][SELO].as_ref().map_or(0, |s| s.games);
                    if Rule::of(event) == Rule::Before2011
                        && games < Rule::Current.established_from()
                    {
                        return Err(InputError::new(
                            format!("player '{}'", book.players[p].id),
                            format!(
                                "{games} earlier selo games and no rating: in event '{}', rated by the rule before 2011, he is established from 10 games and needs a rating",
                                event.id
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn state_from_json(
        &self,
        list: usize,
        value: &Value,
        item: &str,
    ) -> Result<Option<SslState>, InputError> {
        let Some(obj) = object(item, value)? else {
            return Ok(None);
        };
        let field = |name: &str| obj.get(name).filter(|v| !v.is_null());
        let rating = published_rating(item, obj)?;
        let games = field("games")
            .map(|v| count(item, "games", v))
            .transpose()?
            .unwrap_or(0);
        let normal_games = field("normal_games")
            .map(|v| count(item, "normal_games", v))
            .transpose()?;
        if normal_games.is_some_and(|n| n > games) {
            return Err(InputError::new(item, "normal_games exceeds games"));
        }
        let history = match (field("opponents_sum"), field("score")) {
            (None, None) => None,
            (Some(sum), Some(score)) if list == SELO => {
                let opponents_sum = whole(item, "opponents_sum", sum)?;
                let halves = halves(item, "score", score)?;
                if halves > 2 * games || opponents_sum < 0 {
                    return Err(InputError::new(
                        item,
                        format!(
                            "score {score} or opponents_sum {opponents_sum} does not fit {games} games"
                        ),
                    ));
                }
                Some(History {
                    opponents_sum,
                    score: halves,
                })
            }
            (Some(_), Some(_)) => {
                return Err(InputError::new(
                    item,
                    "opponents_sum and score belong to selo only",
                ));
            }
            _ => {
                return Err(InputError::new(
                    item,
                    "opponents_sum and score must be given together",
                ));
            }
        };
        if games > 0 && rating.is_none() && history.is_none() {
            return Err(InputError::new(
                item,
                format!("{games} earlier games need a rating"),
            ));
        }
        let elo_corrected = obj
            .get("elo_corrected")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut state = SslState {
            rating,
            games,
            normal_games: normal_games.unwrap_or(games),
            history,
            elo_corrected,
        };
        if list == SELO && state.selo_established() {
            state.history = None;
        }
        Ok(Some(state))
    }

    fn state_to_json(&self, list: usize, state: &SslState) -> Value {
        let mut obj = Map::new();
        obj.insert("rating".into(), json!(state.rating));
        obj.insert("games".into(), json!(state.games));
        if list == SELO {
            obj.insert("normal_games".into(), json!(state.normal_games));
            if !state.selo_established() && state.games > 0 {
                let h = state.new_player_history();
                obj.insert("opponents_sum".into(), json!(h.opponents_sum));
                obj.insert("score".into(), json!(f64::from(h.score) / 2.0));
            }
            if state.elo_corrected {
                obj.insert("elo_corrected".into(), json!(true));
            }
        }
        Value::Object(obj)
    }

    fn award_from_json(&self, code: &str) -> Option<Title> {
        Title::parse(code)
    }

    fn award_code(&self, award: &Title) -> &'static str {
        award.code()
    }

    fn player_extras(
        &self,
        results: &Results<'_, Self>,
        player: PlayerIdx,
        out: &mut Map<String, Value>,
    ) {
        let Some(as_of) = results.as_of else { return };
        let (book, events) = (results.book, &results.book.events);
        let history = results.ledger.history(player, SELO);
        let initial = book.seeds[player][SELO].as_ref();
        let s = selection(as_of, &book.players[player], initial, &history, events);
        let valintaluku = s.valintaluku_doubled.map(|d| {
            if d % 2 == 0 {
                json!(d / 2)
            } else {
                json!(d as f64 / 2.0)
            }
        });
        let mut obj = Map::new();
        obj.insert("huippuselo".into(), json!(s.huippuselo));
        obj.insert("huippuelo".into(), json!(s.huippuelo));
        obj.insert("huippusuoritusluku".into(), json!(s.huippusuoritusluku));
        obj.insert("valintaluku".into(), valintaluku.unwrap_or(Value::Null));
        if book.players[player].sex == Some(crate::model::Sex::Female) {
            obj.insert("womens_valintaluku".into(), json!(s.womens_valintaluku));
        }
        if let Some(((e1, r1), (e2, r2))) = s.best_run {
            obj.insert(
                "best_run".into(),
                json!({"from": {"event": events[e1].id, "round": r1}, "to": {"event": events[e2].id, "round": r2}}),
            );
        }
        out.insert("selection".into(), Value::Object(obj));
    }
}
