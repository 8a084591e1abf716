//! A TRF file as an event of ours: dates from its headers, the time control from 222 or 122
//! (or the officer's `--time-control`), games from the player records (each game is written
//! twice, once by each player), byes and forfeits with their points, never rated.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::trf::{TrfError, TrfFile, TrfPlayer};
use crate::model::{
    AddedTime, Event, FideEntry, Game, GameResult, PlayerIdx, PlayerInfo, Sex, TimeControl,
    player_u32,
};

fn err(line: usize, message: impl Into<String>) -> TrfError {
    TrfError {
        line,
        column: 5,
        message: message.into(),
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A date as arbiters' programs write it: `2024/12/01`, `24/09/2010`, `25.02.2011`,
/// `28. 07. 2005`, `2024-08-01`, `Jun 26, 2020`, and two-digit years read as YY.MM.DD.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let lower = text.to_ascii_lowercase();
    let month_name = MONTHS
        .iter()
        .position(|m| lower.contains(m))
        .map(|m| m as u32 + 1);
    let numbers: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .collect();
    let n = |s: &str| s.parse::<u32>().ok();
    let full_year = |y: u32| if y < 100 { 2000 + y as i32 } else { y as i32 };
    let (y, m, d) = match (month_name, numbers.as_slice()) {
        (Some(m), [d, y]) => (full_year(n(y)?), m, n(d)?),
        (None, [a, b, c]) if a.len() == 4 => (full_year(n(a)?), n(b)?, n(c)?),
        (None, [a, b, c]) if c.len() == 4 => (full_year(n(c)?), n(b)?, n(a)?),
        (None, [a, b, c]) => (full_year(n(a)?), n(b)?, n(c)?),
        _ => return None,
    };
    NaiveDate::from_ymd_opt(y, m, d)
}

/// The rounds' dates from `132`: round 1 at columns 92–99, each further round 10 columns on,
/// written `YY/MM/DD` (some programs write `YY.MM.DD`, one `YY.DD.MM`). A date is read the way
/// that puts it within the event; a blank, unreadable or outside date is unknown (`None`).
pub fn round_dates(file: &TrfFile, start: NaiveDate, end: NaiveDate) -> Vec<Option<NaiveDate>> {
    let Some(line) = file.headers.get("132").and_then(|v| v.first()) else {
        return Vec::new();
    };
    // The value starts at column 5; round 1's date at column 92.
    let chars: Vec<char> = line.chars().collect();
    let mut dates = Vec::new();
    let mut at = 87;
    while at < chars.len() {
        let cell: String = chars[at..(at + 10).min(chars.len())].iter().collect();
        dates.push(round_date(cell.trim(), start, end));
        at += 10;
    }
    while dates.last() == Some(&None) {
        dates.pop();
    }
    dates
}

fn round_date(cell: &str, start: NaiveDate, end: NaiveDate) -> Option<NaiveDate> {
    let parts: Vec<i32> = cell
        .split(['/', '.', '-'])
        .map(|p| p.trim().parse().ok())
        .collect::<Option<Vec<i32>>>()?;
    let [a, b, c] = parts.as_slice() else {
        return None;
    };
    let year = |y: i32| if y < 100 { 2000 + y } else { y };
    let date = |y: i32, m: i32, d: i32| {
        NaiveDate::from_ymd_opt(year(y), u32::try_from(m).ok()?, u32::try_from(d).ok()?)
    };
    [date(*a, *b, *c), date(*a, *c, *b), date(*c, *b, *a)]
        .into_iter()
        .flatten()
        .find(|d| (start..=end).contains(d))
}

/// `90+30`: base minutes and increment seconds, as the officer writes it.
pub fn parse_base_increment(text: &str) -> Option<TimeControl> {
    let (base, inc) = text.trim().split_once('+').unwrap_or((text.trim(), "0"));
    let minutes: f64 = base
        .trim()
        .parse()
        .ok()
        .filter(|m: &f64| *m >= 0.0 && *m <= 24.0 * 60.0)?;
    let increment: u32 = inc.trim().parse().ok()?;
    Some(TimeControl {
        base_seconds: (minutes * 60.0).round() as u32,
        increment_seconds: increment,
        added: Vec::new(),
    })
}

/// TRF26's encoded time control (record 222): periods `moves/seconds+increment` separated by
/// `:`, the last without a move count: `40/6000+30:20/3000+30:1500+30`.
pub fn parse_222(text: &str) -> Option<TimeControl> {
    let mut tc = TimeControl {
        base_seconds: 0,
        increment_seconds: 0,
        added: Vec::new(),
    };
    let mut moves_so_far = 0u32;
    for (i, period) in text.trim().split(':').enumerate() {
        let (moves, rest) = match period.split_once('/') {
            Some((m, r)) => (Some(m.trim().parse::<u32>().ok()?), r),
            None => (None, period),
        };
        let (seconds, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let seconds: u32 = seconds.trim().parse().ok()?;
        let inc: u32 = inc.trim().parse().ok()?;
        if i == 0 {
            tc.base_seconds = seconds;
            tc.increment_seconds = inc;
        } else {
            tc.added.push(AddedTime {
                after_move: moves_so_far,
                seconds,
            });
        }
        moves_so_far += moves.unwrap_or(0);
    }
    Some(tc)
}

/// The free text of record 122, read where it is unambiguous: `90 minutes + 30 seconds per move`,
/// `1:30 + 10 from move 1`, `All moves in 90 minutes, plus 10 seconds per move`, `40/120, 60`
/// (120 minutes for 40 moves, then 60 more), `120`.
pub fn parse_122(text: &str) -> Option<TimeControl> {
    let lower = text.to_ascii_lowercase();
    // h:mm → minutes.
    let mut normalised = String::new();
    for token in lower.split_whitespace() {
        match token.split_once(':') {
            Some((h, m))
                if h.parse::<u32>().is_ok() && m.trim_end_matches(',').parse::<u32>().is_ok() =>
            {
                let minutes =
                    h.parse::<u32>().ok()? * 60 + m.trim_end_matches(',').parse::<u32>().ok()?;
                normalised.push_str(&format!("{minutes} "));
            }
            _ => {
                normalised.push_str(token);
                normalised.push(' ');
            }
        }
    }
    let numbers: Vec<u32> = normalised
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    if numbers.is_empty() {
        return None;
    }
    if let Some((moves, rest)) = normalised.split_once('/') {
        let moves: u32 = moves
            .split(|c: char| !c.is_ascii_digit())
            .rfind(|s| !s.is_empty())?
            .parse()
            .ok()?;
        let after: Vec<u32> = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse().ok())
            .collect();
        let base = *after.first()?;
        let added = after
            .get(1)
            .map(|&m| {
                vec![AddedTime {
                    after_move: moves,
                    seconds: m * 60,
                }]
            })
            .unwrap_or_default();
        return Some(TimeControl {
            base_seconds: base * 60,
            increment_seconds: 0,
            added,
        });
    }
    let base = numbers[0];
    let increment = numbers
        .get(1)
        .copied()
        .filter(|_| {
            normalised.contains('+') || normalised.contains("sec") || normalised.contains("plus")
        })
        .unwrap_or(0);
    Some(TimeControl {
        base_seconds: base * 60,
        increment_seconds: increment,
        added: Vec::new(),
    })
}

/// A player of a file as a player of ours: "Surname,First" spaced, the federation when it is
/// a FIDE code other than `home` (the database's own federation: its players have none), the
/// FIDE id, a full birth date, the sex, and his FIDE rating as a list entry on the event's start
/// (for SSL 3.7 and 3.9, TSF B.1.d).
pub fn player_info(
    p: &TrfPlayer,
    event_id: &str,
    start: Option<NaiveDate>,
    home: &str,
) -> PlayerInfo {
    let name = p.name.replacen(',', ", ", 1).replace(",  ", ", ");
    let federation = Some(p.federation.clone())
        .filter(|f| f.len() == 3 && f.chars().all(|c| c.is_ascii_uppercase()) && f != home);
    let fide = match (p.fide_id, p.rating, start) {
        (Some(_), Some(r), Some(date)) => {
            vec![FideEntry {
                list_date: date,
                standard: Some(r as i32),
                rapid: None,
                blitz: None,
            }]
        }
        _ => Vec::new(),
    };
    PlayerInfo {
        reentries: Vec::new(),
        id: p.fide_id.map_or_else(
            || format!("{event_id}-{}", p.start_number),
            |f| format!("FIDE{f}"),
        ),
        name,
        federation,
        // TRF16 and TRF26 have no club column (some files keep club codes where the federation
        // goes, which cannot be told from FIDE's codes by their look).
        club: None,
        fide_id: p.fide_id,
        born: parse_date(&p.born).filter(|&d| p.born.len() >= 8 && crate::model::plausible_date(d)),
        sex: match p.sex.map(|c| c.to_ascii_lowercase()) {
            Some('f' | 'w') => Some(Sex::Female),
            Some('m') => Some(Sex::Male),
            _ => None,
        },
        fide,
        national: Vec::new(),
    }
}

/// The event a file describes. `players` maps each start number to the player it is (matched
/// or created); `time_control` overrides the file's.
pub fn to_event(
    file: &TrfFile,
    id: &str,
    players: &BTreeMap<u32, PlayerIdx>,
    time_control: Option<TimeControl>,
) -> Result<Event, TrfError> {
    let start = file.header("042").and_then(parse_date).ok_or_else(|| {
        err(
            file.header_line("042"),
            format!(
                "the start date (042) '{}' is not a date",
                file.header("042").unwrap_or("")
            ),
        )
    })?;
    let end = file
        .header("052")
        .and_then(parse_date)
        .unwrap_or(start)
        .max(start);
    let time_control = match time_control {
        Some(tc) => Some(tc),
        None => file
            .header("222")
            .and_then(parse_222)
            .or_else(|| file.header("122").and_then(parse_122)),
    };
    let Some(time_control) = time_control else {
        return Err(err(
            file.header_line(if file.header("122").is_some() {
                "122"
            } else {
                "222"
            }),
            format!(
                "the time control '{}' cannot be read: give it with --time-control BASE+INC (e.g. 90+30)",
                file.header("122").unwrap_or("")
            ),
        ));
    };
    // Each game is written by both players: keep each side's own points and whether it was
    // played, and make one game of the two.
    struct Pairing {
        round: u32,
        white: PlayerIdx,
        black: PlayerIdx,
        white_halves: Option<u8>,
        black_halves: Option<u8>,
        played: bool,
    }
    let mut games: BTreeMap<(u32, PlayerIdx, PlayerIdx), Pairing> = BTreeMap::new();
    let mut byes: Vec<Game> = Vec::new();
    for p in &file.players {
        let Some(&me) = players.get(&p.start_number) else {
            continue;
        };
        // What blank rounds are worth comes from the points column: half a point each when
        // that is what it adds up to (requested byes), otherwise whole points first.
        let mut blank_points = p.blank_points().unwrap_or(0);
        let half_each = blank_points as usize == p.blank_rounds();
        for (i, r) in p.rounds.iter().enumerate() {
            let round = i as u32 + 1;
            let Some(opponent) = r.opponent else {
                let halves = match r.result {
                    'H' | 'h' | '=' => 1,
                    'F' | 'f' | 'U' | 'u' | '+' | '1' => 2,
                    ' ' if blank_points == 0 => continue,
                    ' ' => {
                        let take = if half_each { 1 } else { blank_points.min(2) };
                        blank_points -= take;
                        take as u8
                    }
                    _ => 0,
                };
                byes.push(Game {
                    round,
                    board: 0,
                    white: player_u32(me),
                    black: None,
                    result: Some(GameResult::unplayed(halves, 0)),
                    date: None,
                    received: None,
                });
                continue;
            };
            let Some(&other) = players.get(&opponent) else {
                return Err(TrfError {
                    line: p.line,
                    column: 92 + 10 * i,
                    message: format!("round {round}: no player {opponent}"),
                });
            };
            // A side written `b` is black; otherwise the lower-numbered record decides.
            let (white, black) = match r.colour {
                'b' => (other, me),
                'w' => (me, other),
                _ if p.start_number < opponent => (me, other),
                _ => (other, me),
            };
            let entry = games
                .entry((round, white.min(black), white.max(black)))
                .or_insert(Pairing {
                    round,
                    white,
                    black,
                    white_halves: None,
                    black_halves: None,
                    played: true,
                });
            let mine = Some(r.halves() as u8);
            if entry.white == me {
                entry.white_halves = mine;
            } else {
                entry.black_halves = mine;
            }
            entry.played &= matches!(r.result, '1' | '0' | '=');
        }
    }
    let games = games.into_values().map(|g| {
        let w = g
            .white_halves
            .unwrap_or_else(|| 2 - g.black_halves.unwrap_or(1).min(2));
        let b = g
            .black_halves
            .unwrap_or_else(|| 2 - g.white_halves.unwrap_or(1).min(2));
        // Forfeits and games not to be rated keep their points but are never rated (2.9).
        let result = if g.played {
            GameResult::played(w, b)
        } else {
            GameResult::unplayed(w, b)
        };
        Game {
            round: g.round,
            board: 0,
            white: player_u32(g.white),
            black: Some(player_u32(g.black)),
            result: Some(result),
            date: None,
            received: None,
        }
    });
    let mut all: Vec<Game> = games.chain(byes).collect();
    let dates = round_dates(file, start, end);
    for g in &mut all {
        g.date = g
            .round
            .checked_sub(1)
            .and_then(|i| dates.get(i as usize).copied().flatten());
    }
    all.sort_by_key(|g| (g.round, g.black().is_none(), g.white()));
    let mut board = BTreeMap::<u32, u32>::new();
    for g in &mut all {
        let b = board.entry(g.round).or_insert(0);
        *b += 1;
        g.board = *b;
    }
    let mut participants: Vec<(u32, PlayerIdx)> = players.iter().map(|(&n, &p)| (n, p)).collect();
    participants.sort();
    Ok(Event {
        id: id.to_string(),
        name: file.header("012").unwrap_or(id).to_string(),
        start,
        end,
        time_control: Some(time_control),
        abroad: false,
        official_representation: false,
        age_limit: None,
        playoff_of: None,
        received: None,
        pairing: file.header("092").unwrap_or("").to_string(),
        participants: participants.into_iter().map(|(_, p)| p).collect(),
        games: all,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn round_dates_from_132_in_the_samples_formats() {
        let file = |value: &str| TrfFile {
            headers: [("132".to_string(), vec![format!("{:87}{value}", "")])].into(),
            ..TrfFile::default()
        };
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day);
        let (start, end) = (
            d(2011, 2, 25).expect("a date"),
            d(2011, 2, 27).expect("a date"),
        );
        // YY.DD.MM (Bunratty), with a blank round and an unreadable one.
        let f = file("11.25.02  11.26.02            xx.yy.zz  11.27.02  ");
        assert_eq!(
            round_dates(&f, start, end),
            vec![d(2011, 2, 25), d(2011, 2, 26), None, None, d(2011, 2, 27)]
        );
        let (start, end) = (
            d(2024, 12, 1).expect("a date"),
            d(2024, 12, 14).expect("a date"),
        );
        let f = file("24/12/01  24/12/02  25/01/01");
        assert_eq!(
            round_dates(&f, start, end),
            vec![d(2024, 12, 1), d(2024, 12, 2)],
            "a date outside the event is unknown"
        );
        assert_eq!(round_dates(&TrfFile::default(), start, end), Vec::new());
    }

    #[test]
    fn dates_in_the_samples_formats() {
        assert_eq!(parse_date("2024/12/01"), date(2024, 12, 1));
        assert_eq!(parse_date("24/09/2010"), date(2010, 9, 24));
        assert_eq!(parse_date("25.02.2011"), date(2011, 2, 25));
        assert_eq!(parse_date("28. 07. 2005"), date(2005, 7, 28));
        assert_eq!(parse_date("2024-08-01"), date(2024, 8, 1));
        assert_eq!(parse_date("Jun 26, 2020"), date(2020, 6, 26));
        assert_eq!(parse_date("10.09.13"), date(2010, 9, 13));
        assert_eq!(parse_date(""), None);
        assert_eq!(parse_date("2025/02/30"), None);
    }

    #[test]
    fn time_controls_in_the_samples_words() {
        let m = |tc: Option<TimeControl>| tc.map(|t| t.seconds_for_60_moves() / 60);
        assert_eq!(m(parse_122("90 minutes + 30 seconds per move")), Some(120));
        assert_eq!(m(parse_122("1:30 + 10 from move 1")), Some(100));
        assert_eq!(
            m(parse_122(
                "All moves in 90 minutes, plus 10 seconds per move"
            )),
            Some(100)
        );
        assert_eq!(m(parse_122("40/120, 60")), Some(180));
        assert_eq!(m(parse_122("120")), Some(120));
        assert_eq!(parse_122("moves/time, increment"), None);
        assert_eq!(
            m(parse_222("40/6000+30:20/3000+30:1500+30")),
            Some(100 + 30 + 50)
        );
        assert_eq!(m(parse_base_increment("90+30")), Some(120));
        assert_eq!(m(parse_base_increment("5")), Some(5));
    }

    #[test]
    fn a_header_error_names_the_header_line() {
        let text = format!(
            "012 Kevät\n022 Helsinki\n042 the first of May\n{}\n",
            "001    1    g Vasquez,Rodrigo                   2558 CHI     3400042 1969.12.06  6.0    4"
        );
        let file = crate::import::trf::parse(text.as_bytes()).expect("parse");
        let e = to_event(&file, "x", &BTreeMap::new(), None).expect_err("no start date");
        assert_eq!((e.line, e.column), (3, 5), "{e}");
    }

    #[test]
    fn an_absurd_time_control_is_not_read() {
        assert_eq!(parse_base_increment("99999999+0"), None);
        assert!(parse_base_increment("1440+30").is_some());
    }
}
