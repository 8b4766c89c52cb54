//! Walking the cartesian product of several sorted lists one combination at a time, as an
//! odometer turns: the last list moves fastest. Each list may be walked forwards or backwards.
//! IN restrictions on several key columns multiply; this lets a read visit their combinations
//! in order without ever holding them all.

/// A position in the product of lists of the given sizes.
#[derive(Debug, Clone)]
pub(crate) struct Odometer {
    sizes: Vec<usize>,
    backward: Vec<bool>,
    /// Steps taken on each list in its walking direction.
    steps: Vec<usize>,
    done: bool,
}

impl Odometer {
    /// The first combination; done at once when any list is empty.
    pub(crate) fn new(sizes: Vec<usize>, backward: Vec<bool>) -> Odometer {
        let done = sizes.contains(&0);
        let steps = vec![0; sizes.len()];
        Odometer {
            sizes,
            backward,
            steps,
            done,
        }
    }

    /// The combination whose list indexes are `indexes` (one per list, each in range).
    pub(crate) fn at(sizes: Vec<usize>, backward: Vec<bool>, indexes: &[usize]) -> Odometer {
        let mut odometer = Odometer::new(sizes, backward);
        if odometer.done || indexes.len() != odometer.sizes.len() {
            odometer.done = true;
            return odometer;
        }
        for (d, &index) in indexes.iter().enumerate() {
            if index >= odometer.sizes[d] {
                odometer.done = true;
                return odometer;
            }
            odometer.steps[d] = if odometer.backward[d] {
                odometer.sizes[d] - 1 - index
            } else {
                index
            };
        }
        odometer
    }

    /// Whether every combination has been passed.
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// The index into list `d` of the current combination.
    pub(crate) fn index(&self, d: usize) -> usize {
        if self.backward[d] {
            self.sizes[d] - 1 - self.steps[d]
        } else {
            self.steps[d]
        }
    }

    /// How many combinations there are in all (saturating).
    pub(crate) fn total(sizes: &[usize]) -> u64 {
        sizes
            .iter()
            .fold(1u64, |n, &size| n.saturating_mul(size as u64))
    }

    /// Moves to the next combination; returns the most significant list that moved (0 when
    /// the walk ended).
    pub(crate) fn advance(&mut self) -> usize {
        match self.sizes.len() {
            0 => {
                self.done = true;
                0
            }
            n => self.advance_at(n - 1),
        }
    }

    /// Moves list `d` one step and every later list back to its start: skips the rest of
    /// the combinations sharing lists `..=d`. Returns the most significant list that moved.
    pub(crate) fn advance_at(&mut self, d: usize) -> usize {
        for later in d + 1..self.sizes.len() {
            self.steps[later] = 0;
        }
        let mut d = d;
        loop {
            self.steps[d] += 1;
            if self.steps[d] < self.sizes[d] {
                return d;
            }
            self.steps[d] = 0;
            if d == 0 {
                self.done = true;
                return 0;
            }
            d -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(mut odometer: Odometer) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        while !odometer.done() {
            out.push(
                (0..odometer.sizes.len())
                    .map(|d| odometer.index(d))
                    .collect(),
            );
            odometer.advance();
        }
        out
    }

    #[test]
    fn walks_the_product_with_the_last_list_fastest() {
        let all = walk(Odometer::new(vec![2, 3], vec![false, false]));
        assert_eq!(
            all,
            vec![
                vec![0, 0],
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 1],
                vec![1, 2]
            ]
        );
        assert_eq!(Odometer::total(&[2, 3]), 6);
    }

    #[test]
    fn backward_lists_and_starting_positions() {
        let all = walk(Odometer::new(vec![2, 2], vec![false, true]));
        assert_eq!(all, vec![vec![0, 1], vec![0, 0], vec![1, 1], vec![1, 0]]);
        let rest = walk(Odometer::at(vec![2, 2], vec![false, true], &[1, 1]));
        assert_eq!(rest, vec![vec![1, 1], vec![1, 0]]);
        assert!(Odometer::at(vec![2], vec![false], &[2]).done());
    }

    #[test]
    fn empty_lists_and_skips() {
        assert!(Odometer::new(vec![3, 0], vec![false, false]).done());
        let mut odometer = Odometer::new(vec![2, 3], vec![false, false]);
        assert_eq!(odometer.advance_at(0), 0);
        assert_eq!((odometer.index(0), odometer.index(1)), (1, 0));
        odometer.advance_at(0);
        assert!(odometer.done());
        let mut none = Odometer::new(vec![], vec![]);
        assert!(!none.done());
        none.advance();
        assert!(none.done());
    }
}
