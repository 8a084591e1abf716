//! The output states of `rate` are complete: rating events in one document equals rating them
//! one document at a time, each fed the previous output's player states (selo and pelo with the
//! running aggregates of new players, the 3.7 mark, titles).

use proptest::prelude::*;
use serde_json::{Value, json};

const TIME_CONTROLS: [(f64, u32); 5] = [(90.0, 30), (60.0, 0), (25.0, 5), (5.0, 3), (2.0, 0)];
const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "+-", "-+", "0-0"];

#[derive(Debug, Clone)]
struct Scenario {
    players: Vec<Value>,
    events: Vec<Value>,
}

fn player(i: usize) -> impl Strategy<Value = Value> {
    let state = prop_oneof![
        Just(Value::Null),
        (1300i64..2400, 0u32..11).prop_map(|(r, g)| json!({"rating": r, "games": g})),
        (1300i64..2400, 11u32..200).prop_map(|(r, g)| json!({"rating": r, "games": g})),
    ];
    let pelo = prop_oneof![
        Just(Value::Null),
        (1300i64..2400, 1u32..50).prop_map(|(r, g)| json!({"rating": r, "games": g}))
    ];
    (state, pelo, any::<bool>()).prop_map(move |(selo, pelo, foreign)| {
        let mut p = json!({"id": format!("p{i}"), "selo": selo, "pelo": pelo});
        if foreign && i.is_multiple_of(4) {
            p["federation"] = json!("SWE");
            p["fide"] = json!([{"list_date": "2024-01-01", "standard": 2000 + 40 * i as i64}]);
        }
        p
    })
}

fn event(k: usize, n: usize) -> impl Strategy<Value = Value> {
    let rounds = proptest::collection::vec(
        (
            Just(()).prop_perturb(move |_, mut rng| {
                let mut order: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    order.swap(i, rng.random_range(0..=i));
                }
                order
            }),
            proptest::collection::vec(0usize..RESULTS.len(), n / 2),
        ),
        1..5,
    );
    (0usize..TIME_CONTROLS.len(), rounds).prop_map(move |(tc, rounds)| {
        let (base, inc) = TIME_CONTROLS[tc];
        let mut games = Vec::new();
        for (r, (order, results)) in rounds.iter().enumerate() {
            for (pair, &res) in order.chunks(2).zip(results) {
                if let [w, b] = pair {
                    games.push(json!({"round": r + 1, "white": format!("p{w}"), "black": format!("p{b}"), "result": RESULTS[res]}));
                }
            }
        }
        let day = format!("2025-03-{:02}", k + 1);
        json!({"id": format!("e{k}"), "start": day, "end": day,
               "time_control": {"base_minutes": base, "increment_seconds": inc}, "games": games})
    })
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (4usize..9, 1usize..5).prop_flat_map(|(n, e)| {
        let players: Vec<_> = (0..n).map(player).collect();
        let events: Vec<_> = (0..e).map(|k| event(k, n)).collect();
        (players, events).prop_map(|(players, events)| Scenario { players, events })
    })
}

fn rate(players: &[Value], events: &[Value]) -> Value {
    let doc = json!({"rules": "ssl", "players": players, "events": events});
    ratedesk::app::import::json::rate(&doc.to_string()).expect("generated input is valid")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn chained_documents_equal_one_document(s in scenario()) {
        let whole = rate(&s.players, &s.events);
        let mut players = s.players.clone();
        let mut rows = Vec::new();
        for e in &s.events {
            let out = rate(&players, std::slice::from_ref(e));
            rows.push(out["events"][0].clone());
            for (p, o) in players.iter_mut().zip(out["players"].as_array().expect("players")) {
                for key in ["selo", "pelo", "titles"] {
                    p[key] = o[key].clone();
                }
            }
        }
        prop_assert_eq!(&Value::Array(rows), &whole["events"]);
        let states: Vec<Value> = players.iter().map(|p| json!([p["selo"], p["pelo"], p["titles"]])).collect();
        let expected: Vec<Value> = whole["players"].as_array().expect("players").iter()
            .map(|p| json!([p["selo"], p["pelo"], p["titles"]])).collect();
        prop_assert_eq!(states, expected);
    }
}
