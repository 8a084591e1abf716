//! A unit's rows held in shared runs. A unit rated again keeps most of what it published: the
//! rows of the events and players nothing reached are taken whole, as stretches of the rows
//! they were published in, and only the rows rated anew are new. So a unit of thousands of rows
//! rated again for two players costs its two players' rows, not a copy of every row.

use std::sync::Arc;

use super::{PlayerIdx, PlayerRating};

/// A stretch of rows shared with the result it was first published in.
pub struct Run<D> {
    rows: Arc<Vec<PlayerRating<D>>>,
    start: usize,
    end: usize,
}

impl<D> Clone for Run<D> {
    fn clone(&self) -> Self {
        Self {
            rows: Arc::clone(&self.rows),
            start: self.start,
            end: self.end,
        }
    }
}

impl<D> Run<D> {
    /// Rows of their own.
    pub fn new(rows: Vec<PlayerRating<D>>) -> Self {
        let end = rows.len();
        Self {
            rows: Arc::new(rows),
            start: 0,
            end,
        }
    }

    /// A stretch of this run (`range` within it), sharing its rows.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Self {
        assert!(
            range.start <= range.end && range.end <= self.len(),
            "a stretch {range:?} of a run of {} rows",
            self.len()
        );
        Self {
            rows: Arc::clone(&self.rows),
            start: self.start + range.start,
            end: self.start + range.end,
        }
    }

    /// `next` follows this run in the same rows: the two are one stretch.
    fn joins(&self, next: &Self) -> bool {
        Arc::ptr_eq(&self.rows, &next.rows) && self.end == next.start
    }
}

impl<D> std::ops::Deref for Run<D> {
    type Target = [PlayerRating<D>];

    fn deref(&self) -> &[PlayerRating<D>] {
        &self.rows[self.start..self.end]
    }
}

impl<D: std::fmt::Debug> std::fmt::Debug for Run<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A unit's rows as a rulebook gives them, in order: runs kept from what it published, and rows
/// rated now.
pub struct Rows<D> {
    /// Done runs, in order; the rows pushed since follow them.
    runs: Vec<Run<D>>,
    open: Vec<PlayerRating<D>>,
    /// Rows in the done runs.
    done: usize,
}

impl<D> Default for Rows<D> {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            open: Vec::new(),
            done: 0,
        }
    }
}

impl<D> From<Vec<PlayerRating<D>>> for Rows<D> {
    fn from(rows: Vec<PlayerRating<D>>) -> Self {
        Self {
            runs: Vec::new(),
            open: rows,
            done: 0,
        }
    }
}

impl<D> Rows<D> {
    /// A row rated now.
    pub fn push(&mut self, row: PlayerRating<D>) {
        self.open.push(row);
    }

    /// Room for at least `n` more rows rated now.
    pub fn reserve(&mut self, n: usize) {
        self.open.reserve(n);
    }

    /// Room for `n` more rows rated now (exactly: a unit keeps its rows as rated).
    pub fn reserve_exact(&mut self, n: usize) {
        self.open.reserve_exact(n);
    }

    /// A run kept whole, after the rows so far (joined to the last one when it follows it in
    /// the same rows).
    pub fn keep(&mut self, run: Run<D>) {
        if run.is_empty() {
            return;
        }
        self.close();
        self.done += run.len();
        match self.runs.last_mut() {
            Some(last) if last.joins(&run) => last.end = run.end,
            _ => self.runs.push(run),
        }
    }

    /// The rows pushed so far become a run of their own.
    fn close(&mut self) {
        if self.open.is_empty() {
            return;
        }
        let mut open = std::mem::take(&mut self.open);
        open.shrink_to_fit();
        self.done += open.len();
        self.runs.push(Run::new(open));
    }

    pub fn len(&self) -> usize {
        self.done + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &PlayerRating<D>> {
        self.runs.iter().flat_map(|r| r.iter()).chain(&self.open)
    }

    /// Every row in runs.
    pub fn into_runs(mut self) -> Vec<Run<D>> {
        self.close();
        self.runs
    }
}

/// The fewest rows a unit's runs hold on average: below it (a unit rated again for one player
/// after another, its runs cut finer each time), they are copied into one run, so that walking
/// a unit's rows stays a walk over rows, not over runs.
const ROWS_A_RUN: usize = 16;

impl<D: Clone> Rows<D> {
    /// Every row in runs, copied into one run when they became too short, or when the rows they
    /// keep alive are more than twice those they hold (a month rated again in most of its events
    /// keeps the whole of what it published for the one event it kept; the next update may do
    /// the same to the rows rated now).
    pub fn into_compact_runs(mut self) -> Vec<Run<D>> {
        self.close();
        let too_short = self.runs.len() * ROWS_A_RUN > self.done;
        if self.runs.len() > 1 && (too_short || self.held() > 2 * self.done) {
            let all: Vec<PlayerRating<D>> =
                self.runs.iter().flat_map(|r| r.iter().cloned()).collect();
            return vec![Run::new(all)];
        }
        self.runs
    }

    /// The rows of every vector the runs share, each vector counted once.
    fn held(&self) -> usize {
        let mut vectors: Vec<(*const Vec<PlayerRating<D>>, usize)> = self
            .runs
            .iter()
            .map(|r| (Arc::as_ptr(&r.rows), r.rows.len()))
            .collect();
        vectors.sort_unstable_by_key(|&(at, _)| at);
        vectors.dedup_by_key(|&mut (at, _)| at);
        vectors.iter().map(|&(_, len)| len).sum()
    }
}

impl<D: Clone> Rows<D> {
    /// Every row, owned (those of kept runs copied).
    pub fn into_vec(self) -> Vec<PlayerRating<D>> {
        if self.runs.is_empty() {
            return self.open;
        }
        let mut all = Vec::with_capacity(self.len());
        all.extend(self.runs.iter().flat_map(|r| r.iter().cloned()));
        all.extend(self.open);
        all
    }
}

impl<D> Extend<PlayerRating<D>> for Rows<D> {
    fn extend<I: IntoIterator<Item = PlayerRating<D>>>(&mut self, rows: I) {
        self.open.extend(rows);
    }
}

#[cfg(test)]
impl<D> std::ops::Index<usize> for Rows<D> {
    type Output = PlayerRating<D>;

    fn index(&self, i: usize) -> &PlayerRating<D> {
        self.iter().nth(i).expect("a row within the unit's rows")
    }
}

/// Walks a unit's published rows, of a rulebook that publishes them in the order of the
/// players' indices, keeping stretches of them whole.
pub struct Cursor<'a, D> {
    runs: &'a [Run<D>],
    /// The run at hand, and the place in it.
    run: usize,
    at: usize,
}

impl<'a, D> Cursor<'a, D> {
    pub fn new(runs: &'a [Run<D>]) -> Self {
        let mut cursor = Self {
            runs,
            run: 0,
            at: 0,
        };
        cursor.settle();
        cursor
    }

    /// Steps over spent runs.
    fn settle(&mut self) {
        while self.runs.get(self.run).is_some_and(|r| self.at >= r.len()) {
            self.run += 1;
            self.at = 0;
        }
    }

    /// The next row.
    #[cfg(test)]
    pub fn peek(&self) -> Option<&'a PlayerRating<D>> {
        self.runs.get(self.run).and_then(|r| r.get(self.at))
    }

    /// Keeps in `out` the rows of the players below `player`, of rows published in the order
    /// of the players' indices: where they end is found by halving each run, not row by row.
    pub fn keep_below(&mut self, player: PlayerIdx, out: &mut Rows<D>) {
        self.sorted_stretch(player, |run| out.keep(run));
    }

    /// Steps over the rows of the players below `player`, of rows in player order.
    pub fn skip_below(&mut self, player: PlayerIdx) {
        self.sorted_stretch(player, |_| {});
    }

    /// The rows from here of the players below `player`, of rows in player order, handed on run
    /// by run.
    fn sorted_stretch(&mut self, player: PlayerIdx, mut each: impl FnMut(Run<D>)) {
        while let Some(run) = self.runs.get(self.run) {
            let from = self.at;
            // A run wholly below is kept whole on its last row alone (a unit rated again many
            // times holds hundreds of runs).
            let len = if run.last().is_some_and(|r| r.player < player) {
                run.len() - from
            } else {
                run[from..].partition_point(|r| r.player < player)
            };
            if len > 0 {
                each(run.slice(from..from + len));
            }
            self.at = from + len;
            if self.at < run.len() {
                return;
            }
            self.settle();
        }
    }
}

/// A plain row of a player in an event, for tests.
#[cfg(test)]
pub(crate) fn a_row(player: usize, event: usize) -> PlayerRating {
    PlayerRating {
        player,
        event,
        old: None,
        new: 1500,
        established: false,
        games: 1,
        score: 1,
        expected: None,
        performance: None,
        factors: crate::rules::Factors::default(),
        lines: Default::default(),
        detail: (),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(player: usize, event: usize) -> PlayerRating {
        a_row(player, event)
    }

    fn players<'a>(rows: impl Iterator<Item = &'a PlayerRating>) -> Vec<usize> {
        rows.map(|r| r.player).collect()
    }

    #[test]
    fn kept_stretches_of_one_run_join_and_rows_rated_now_follow_in_order() {
        let published = Run::new((0..6).map(|p| row(p, 0)).collect());
        let mut rows = Rows::default();
        rows.keep(published.slice(0..2));
        rows.keep(published.slice(2..3));
        rows.push(row(10, 1));
        rows.keep(published.slice(4..6));
        rows.keep(published.slice(6..6));
        assert_eq!(players(rows.iter()), [0, 1, 2, 10, 4, 5]);
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[3].player, 10);
        let runs = rows.into_runs();
        assert_eq!(runs.len(), 3, "0..3 joined, the new row, 4..6");
        assert!(
            Arc::ptr_eq(&runs[0].rows, &published.rows),
            "shared, not copied"
        );
    }

    #[test]
    fn rows_in_player_order_are_kept_and_skipped_below_a_player_across_runs() {
        // Players 0, 2, 2, 5 in one run, 5, 7, 9 in the next (a player's rows may span two).
        let first = Run::new([0, 2, 2, 5].iter().map(|&p| row(p, 0)).collect());
        let second = Run::new([5, 7, 9].iter().map(|&p| row(p, 0)).collect());
        let runs = [first, second];
        let mut cursor = Cursor::new(&runs);
        let mut out = Rows::default();
        cursor.keep_below(2, &mut out);
        cursor.skip_below(3);
        cursor.keep_below(7, &mut out);
        cursor.skip_below(8);
        cursor.keep_below(8, &mut out);
        out.push(row(8, 1));
        cursor.keep_below(PlayerIdx::MAX, &mut out);
        assert_eq!(players(out.iter()), [0, 5, 5, 8, 9]);
        assert!(cursor.peek().is_none(), "every row walked");
        let mut none = Rows::default();
        Cursor::new(&runs).keep_below(0, &mut none);
        assert_eq!(none.len(), 0);
    }

    #[test]
    fn runs_cut_too_fine_are_joined_into_one() {
        let published = Run::new((0..64).map(|p| row(p, 0)).collect());
        let mut fine = Rows::default();
        let mut coarse = Rows::default();
        for p in (0..64).step_by(2) {
            fine.keep(published.slice(p..p + 1));
            fine.push(row(100 + p, 1));
        }
        coarse.keep(published.slice(0..32));
        coarse.push(row(100, 1));
        coarse.keep(published.slice(33..64));
        let joined = fine.into_compact_runs();
        assert_eq!(joined.len(), 1, "64 runs of one row each");
        assert_eq!(joined[0].len(), 64);
        assert_eq!(joined[0][1].player, 100);
        assert_eq!(
            coarse.into_compact_runs().len(),
            3,
            "21 rows a run on average"
        );
    }

    #[test]
    fn runs_that_keep_a_large_vector_alive_for_few_rows_are_copied_out_of_it() {
        let published = Run::new((0..100).map(|p| row(p, 0)).collect());
        let mut mostly_new = Rows::default();
        mostly_new.keep(published.slice(0..20));
        mostly_new.extend((0..20).map(|p| row(200 + p, 1)));
        let runs = mostly_new.into_compact_runs();
        assert_eq!(runs.len(), 1, "40 rows holding 120 alive");
        assert!(!Arc::ptr_eq(&runs[0].rows, &published.rows));
        let mut mostly_kept = Rows::default();
        mostly_kept.keep(published.slice(0..60));
        mostly_kept.extend((0..20).map(|p| row(200 + p, 1)));
        assert_eq!(
            mostly_kept.into_compact_runs().len(),
            2,
            "80 rows holding 120 alive"
        );
    }

    #[test]
    #[should_panic(expected = "a stretch 2..7 of a run of 6 rows")]
    fn a_stretch_past_its_run_is_refused() {
        Run::new((0..6).map(|p| row(p, 0)).collect()).slice(2..7);
    }

    #[test]
    fn a_cursor_keeps_and_skips_across_runs() {
        let a = Run::new([1, 2, 3].map(|p| row(p, 0)).to_vec());
        let b = Run::new([4, 6, 7].map(|p| row(p, 0)).to_vec());
        let runs = [a, Run::new(Vec::new()), b];
        let mut cursor = Cursor::new(&runs);
        let mut out = Rows::default();
        cursor.keep_below(5, &mut out);
        assert_eq!(cursor.peek().map(|r| r.player), Some(6));
        cursor.skip_below(7);
        cursor.keep_below(8, &mut out);
        assert!(cursor.peek().is_none());
        assert_eq!(players(out.iter()), [1, 2, 3, 4, 7]);
        assert_eq!(out.into_vec().len(), 5);
    }
}
