//! A FIDE combined rating list written as FIDE publishes it, for measuring imports at full
//! size.

use super::Rng;
use super::finland::{FIRST_F, FIRST_M, LAST};

/// Writes a FIDE combined rating list (`players_list_foa.txt`: the header line and `players`
/// fixed-width lines of 162 characters, CRLF) as FIDE publishes it, for measuring imports at
/// full size. FIDE ids count from `first_id`; about a third of the players are unrated, some
/// inactive, federations and titles vary. Names are ASCII, as FIDE writes them.
pub fn write_fide_list(
    out: &mut impl std::io::Write,
    players: usize,
    first_id: u64,
    seed: u64,
) -> std::io::Result<()> {
    const FEDS: [&str; 8] = ["FIN", "SWE", "NOR", "GER", "IND", "USA", "ESP", "FID"];
    const TITLES: [&str; 6] = ["GM", "IM", "FM", "CM", "WGM", "WFM"];
    // FIDE transliterates: Järvinen → Jarvinen.
    let ascii = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                'ä' | 'å' => 'a',
                'Ä' | 'Å' => 'A',
                'ö' => 'o',
                'Ö' => 'O',
                c => c,
            })
            .collect()
    };
    let mut rng = Rng::new(seed);
    out.write_all(b"ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag\r\n")?;
    let mut line = String::with_capacity(170);
    for k in 0..players {
        line.clear();
        let female = rng.below(4) == 0;
        let first = if female {
            FIRST_F[rng.below(FIRST_F.len())]
        } else {
            FIRST_M[rng.below(FIRST_M.len())]
        };
        let name = format!("{}, {}", LAST[rng.below(LAST.len())], first);
        let rating = |rng: &mut Rng| {
            if rng.below(3) == 0 {
                (String::new(), String::new(), String::new())
            } else {
                (
                    (1000 + rng.below(1800)).to_string(),
                    rng.below(12).to_string(),
                    ["40", "20", "10"][rng.below(3)].to_string(),
                )
            }
        };
        let (sr, sg, sk) = rating(&mut rng);
        let (rr, rg, rk) = rating(&mut rng);
        let (br, bg, bk) = rating(&mut rng);
        let title = if rng.below(50) == 0 {
            TITLES[rng.below(TITLES.len())]
        } else {
            ""
        };
        let flag = match (rng.below(5) == 0, female) {
            (true, true) => "wi",
            (true, false) => "i",
            (false, true) => "w",
            (false, false) => "",
        };
        use std::fmt::Write as _;
        let _ = write!(
            line,
            "{:<15}{:<61}{:<4}{:<4}{:<5}{:<5}{:<15}{:<4}{:<6}{:<4}{:<3}{:<6}{:<4}{:<3}{:<6}{:<4}{:<3}{:<6}{:<4}\r\n",
            first_id + k as u64,
            ascii(&name),
            FEDS[rng.below(FEDS.len())],
            if female { "F" } else { "M" },
            title,
            "",
            "",
            "",
            sr,
            sg,
            sk,
            rr,
            rg,
            rk,
            br,
            bg,
            bk,
            1940 + rng.below(70),
            flag,
        );
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}
