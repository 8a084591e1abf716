//! An event as a TRF file: the header records the importer reads (012, 042, 052, 062, 092,
//! 122, 132, 222) and one `001` record per participant in start-number order, by the fixed
//! columns of TRF16. TRF26 adds the round count (142) and a national-rating record per player
//! (the federation's code in place of `001`, the national rating where `001` has FIDE's, and
//! the national id). Importing what this writes and writing it again gives the same text.

use std::fmt::Write;

use crate::model::{Event, GameResult, PlayerIdx, PlayerInfo, Rating};

/// What to write beyond TRF16.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Write TRF26: 142 and the national-rating records.
    pub trf26: bool,
    /// The home federation's code (`FIN`, `ISL`, `TUR`): written for the players without a
    /// recorded federation (they belong to it) and as the code of the national-rating records.
    pub federation: String,
    /// Each player's national rating going into the event (selo or pelo, by the event's list).
    pub national: Vec<(PlayerIdx, Rating)>,
}

fn date(d: chrono::NaiveDate) -> String {
    d.format("%Y/%m/%d").to_string()
}

fn points(halves: u32) -> String {
    format!("{}.{}", halves / 2, if halves % 2 == 1 { 5 } else { 0 })
}

/// The TRF code of one side's result.
fn code(result: GameResult, halves: u8, bye: bool) -> char {
    match (bye, result.played, halves) {
        (true, _, 2) => 'F',
        (true, _, 1) => 'H',
        (true, _, _) => 'Z',
        (false, true, 2) => '1',
        (false, true, 1) => '=',
        (false, true, _) => '0',
        (false, false, 2) => '+',
        (false, false, 1) => 'D',
        (false, false, _) => '-',
    }
}

/// The event's TRF16 text. `players` is the whole player table (events refer to it by index).
pub fn write(event: &Event, players: &[PlayerInfo]) -> String {
    write_with(event, players, &Options::default())
}

/// The event's TRF16 or TRF26 text.
pub fn write_with(event: &Event, players: &[PlayerInfo], options: &Options) -> String {
    let mut out = String::new();
    let n = event.participants.len();
    let start_no = |p: usize| {
        event
            .participants
            .iter()
            .position(|&q| q == p)
            .map_or(0, |i| i + 1)
    };
    let rounds = event.games.iter().map(|g| g.round).max().unwrap_or(0);
    let mut halves = vec![0u32; n];
    for g in &event.games {
        let Some(r) = g.result else { continue };
        if let Some(i) = start_no(g.white()).checked_sub(1) {
            halves[i] += u32::from(r.white_halves);
        }
        if let Some(i) = g.black().map(start_no).and_then(|s| s.checked_sub(1)) {
            halves[i] += u32::from(r.black_halves);
        }
    }
    // Ranked by points, then Buchholz (the opponents' points), then start number.
    let mut buchholz = vec![0u32; n];
    for g in &event.games {
        let (Some(_), Some(b)) = (g.result, g.black()) else {
            continue;
        };
        let (Some(w), Some(b)) = (
            start_no(g.white()).checked_sub(1),
            start_no(b).checked_sub(1),
        ) else {
            continue;
        };
        buchholz[w] += halves[b];
        buchholz[b] += halves[w];
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        (halves[b], buchholz[b])
            .cmp(&(halves[a], buchholz[a]))
            .then(a.cmp(&b))
    });
    let mut rank = vec![0usize; n];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r + 1;
    }
    let _ = writeln!(out, "012 {}", event.title());
    let _ = writeln!(out, "042 {}", date(event.start));
    let _ = writeln!(out, "052 {}", date(event.end));
    let _ = writeln!(out, "062 {n}");
    let _ = writeln!(out, "092 {}", event.pairing);
    // 132: each round's date (of its first dated game), round 1 at column 92.
    let dates: Vec<Option<chrono::NaiveDate>> = (1..=rounds)
        .map(|r| {
            event
                .games
                .iter()
                .filter(|g| g.round == r)
                .find_map(|g| g.date)
        })
        .collect();
    if dates.iter().any(Option::is_some) {
        let cells: String = dates
            .iter()
            .map(|d| {
                let cell = d.map(|d| d.format("%y/%m/%d").to_string());
                format!("{:<10}", cell.unwrap_or_default())
            })
            .collect();
        let _ = writeln!(out, "{}", format!("132 {:87}{cells}", "").trim_end());
    }
    if options.trf26 {
        let _ = writeln!(out, "142 {rounds}");
    }
    if let Some(tc) = &event.time_control {
        let _ = writeln!(out, "122 {}+{}", tc.base_seconds / 60, tc.increment_seconds);
        let mut encoded = format!("{}+{}", tc.base_seconds, tc.increment_seconds);
        if !tc.added.is_empty() {
            // TRF26's 222: moves/seconds+increment per period, the last without a move count.
            let mut periods = Vec::new();
            let mut previous = 0;
            let mut base = tc.base_seconds;
            for a in &tc.added {
                periods.push(format!(
                    "{}/{}+{}",
                    a.after_move - previous,
                    base,
                    tc.increment_seconds
                ));
                previous = a.after_move;
                base = a.seconds;
            }
            periods.push(format!("{base}+{}", tc.increment_seconds));
            encoded = periods.join(":");
        }
        let _ = writeln!(out, "222 {encoded}");
    }
    for (i, &p) in event.participants.iter().enumerate() {
        let info = &players[p];
        let sex = match info.sex {
            Some(crate::model::Sex::Female) => 'f',
            Some(crate::model::Sex::Male) => 'm',
            None => ' ',
        };
        // The FIDE standard rating at the start: the newest list that has one.
        let rating = info
            .fide_rating_on(event.start, crate::model::FideKind::Standard)
            .unwrap_or(0);
        let federation = info.federation.as_deref().unwrap_or(&options.federation);
        let mut line = format!(
            "001 {:>4} {sex}{:>3} {:<33} {:>4} {:<3} {:>11} {:<10} {:>4} {:>4}",
            i + 1,
            "",
            column_text(&info.name, 33),
            rating,
            federation,
            info.fide_id.map(|f| f.to_string()).unwrap_or_default(),
            info.born.map(date).unwrap_or_default(),
            points(halves[i]),
            rank[i],
        );
        for round in 1..=rounds {
            let game = event
                .games
                .iter()
                .find(|g| g.round == round && (g.white() == p || g.black() == Some(p)));
            let block = match game.and_then(|g| g.result.map(|r| (g, r))) {
                None => "          ".to_string(),
                Some((g, r)) => match g.black() {
                    None => format!("  0000 - {}", code(r, r.white_halves, true)),
                    Some(b) => {
                        let white = g.white() == p;
                        let (opponent, colour, mine) = if white {
                            (start_no(b), 'w', r.white_halves)
                        } else {
                            (start_no(g.white()), 'b', r.black_halves)
                        };
                        format!("  {opponent:>4} {colour} {}", code(r, mine, false))
                    }
                },
            };
            line.push_str(&block);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if options.trf26 {
        for (i, &p) in event.participants.iter().enumerate() {
            let Some(&(_, rating)) = options.national.iter().find(|(q, _)| *q == p) else {
                continue;
            };
            let info = &players[p];
            let id = Some(info.id.as_str()).filter(|id| id.chars().count() <= 11);
            let line = format!(
                "{:<3} {:>4} {:>4} {:<33} {:>4} {:<3} {:>11} {:<10}",
                options.federation,
                i + 1,
                "",
                column_text(&info.name, 33),
                rating,
                "",
                id.unwrap_or(""),
                info.born.map(date).unwrap_or_default(),
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

/// A text for a fixed-width column: `width` characters at most, a control or bidirectional
/// control character as `?` (escaped, it would take six columns and shift every one after it).
fn column_text(text: &str, width: usize) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || crate::model::is_bidi_control(c) {
                '?'
            } else {
                c
            }
        })
        .take(width)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::column_text;

    #[test]
    fn a_name_keeps_its_column_whatever_it_holds() {
        assert_eq!(column_text("Evil\u{1b}[2J, Aino", 33), "Evil?[2J, Aino");
        assert_eq!(column_text("Aho\u{202e}, Aino", 33), "Aho?, Aino");
        assert_eq!(column_text(&"Å".repeat(40), 33).chars().count(), 33);
    }
}
