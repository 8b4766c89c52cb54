//! The graph's adjacency lists. Layer 0, which every node has and every search walks, is one
//! flat array of fixed-size slots (a count, then the links), so reading a node's neighbours
//! is one memory access at a place computed from its number instead of three dependent
//! ones through nested vectors. The upper layers hold few nodes and keep a vector per list.

/// Every node's neighbours on every layer it lives on.
pub(crate) struct Links {
    /// Links a layer-0 list may hold.
    capacity: usize,
    /// Node `i`'s layer-0 slot is `zero[i * (capacity + 1)..(i + 1) * (capacity + 1)]`: its
    /// link count, then its links.
    zero: Vec<u32>,
    /// `upper[i][l - 1]`: node `i`'s neighbours on layer `l >= 1`.
    upper: Vec<Vec<Vec<u32>>>,
}

impl Links {
    /// No nodes; layer-0 lists of at most `capacity` links.
    pub(crate) fn new(capacity: usize) -> Self {
        Links {
            capacity,
            zero: Vec::new(),
            upper: Vec::new(),
        }
    }

    fn stride(&self) -> usize {
        self.capacity + 1
    }

    /// Adds a node living on layers `0..=level`, with no links yet.
    pub(crate) fn add_node(&mut self, level: usize) {
        self.zero.resize(self.zero.len() + self.stride(), 0);
        self.upper.push(vec![Vec::new(); level]);
    }

    /// Nodes added.
    pub(crate) fn len(&self) -> usize {
        self.upper.len()
    }

    /// The top layer `node` lives on.
    pub(crate) fn level(&self, node: u32) -> usize {
        self.upper.get(node as usize).map_or(0, Vec::len)
    }

    /// `node`'s neighbours on `layer` (none for a layer it does not live on).
    pub(crate) fn get(&self, node: u32, layer: usize) -> &[u32] {
        if layer > 0 {
            return self
                .upper
                .get(node as usize)
                .and_then(|l| l.get(layer - 1))
                .map_or(&[], Vec::as_slice);
        }
        let start = node as usize * self.stride();
        let Some(&count) = self.zero.get(start) else {
            return &[];
        };
        let end = start + 1 + (count as usize).min(self.capacity);
        self.zero.get(start + 1..end).unwrap_or(&[])
    }

    /// Reads one word of every cache line of `node`'s layer-0 slot, so that a search that
    /// expands `node` next finds its links in cache (see `Codes::touch`).
    pub(crate) fn touch(&self, node: u32) {
        let start = node as usize * self.stride();
        let mut seen = 0u32;
        let mut offset = 0;
        while offset < self.stride() {
            seen ^= self.zero.get(start + offset).copied().unwrap_or(0);
            offset += 16;
        }
        std::hint::black_box(seen);
    }

    /// Replaces `node`'s list on `layer` (truncated to the layer-0 capacity there).
    pub(crate) fn set(&mut self, node: u32, layer: usize, links: &[u32]) {
        if layer > 0 {
            if let Some(list) = self
                .upper
                .get_mut(node as usize)
                .and_then(|l| l.get_mut(layer - 1))
            {
                list.clear();
                list.extend_from_slice(links);
            }
            return;
        }
        let (start, kept) = (
            node as usize * self.stride(),
            links.len().min(self.capacity),
        );
        if let Some(slot) = self.zero.get_mut(start..start + 1 + kept) {
            slot[0] = kept as u32;
            slot[1..].copy_from_slice(&links[..kept]);
        }
    }

    /// Appends `to` to `node`'s list on `layer`; the list's new length. A full layer-0
    /// list is left as it is (its owner prunes before it fills).
    pub(crate) fn push(&mut self, node: u32, layer: usize, to: u32) -> usize {
        if layer > 0 {
            return match self
                .upper
                .get_mut(node as usize)
                .and_then(|l| l.get_mut(layer - 1))
            {
                Some(list) => {
                    list.push(to);
                    list.len()
                }
                None => 0,
            };
        }
        let (start, capacity) = (node as usize * self.stride(), self.capacity);
        let Some(slot) = self.zero.get_mut(start..start + 1 + capacity) else {
            return 0;
        };
        let count = slot[0] as usize;
        if count < capacity {
            slot[1 + count] = to;
            slot[0] += 1;
        }
        slot[0] as usize
    }

    /// Approximate heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        let upper: usize = self
            .upper
            .iter()
            .map(|l| l.iter().map(|n| n.capacity() * 4 + 24).sum::<usize>() + 24)
            .sum();
        self.zero.capacity() * 4 + upper
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_per_layer_push_set_and_bound() {
        let mut links = Links::new(3);
        links.add_node(0);
        links.add_node(2);
        assert_eq!((links.len(), links.level(0), links.level(1)), (2, 0, 2));
        assert_eq!(links.push(1, 0, 7), 1);
        assert_eq!(links.push(1, 0, 8), 2);
        assert_eq!(links.push(1, 2, 9), 1);
        assert_eq!(links.get(1, 0), &[7, 8]);
        assert_eq!(links.get(1, 2), &[9]);
        assert_eq!(links.get(0, 0), &[] as &[u32]);
        assert_eq!(
            links.get(0, 1),
            &[] as &[u32],
            "a layer node 0 does not live on"
        );
        assert_eq!(links.get(5, 0), &[] as &[u32], "a node that does not exist");
        assert_eq!(links.push(1, 0, 10), 3);
        assert_eq!(
            links.push(1, 0, 11),
            3,
            "a full layer-0 list is left as it is"
        );
        assert_eq!(links.get(1, 0), &[7, 8, 10]);
        links.set(1, 0, &[4, 5, 6, 7, 8]);
        assert_eq!(links.get(1, 0), &[4, 5, 6], "truncated to the capacity");
        links.set(1, 0, &[1]);
        assert_eq!(links.get(1, 0), &[1]);
        assert_eq!(
            links.get(0, 0),
            &[] as &[u32],
            "the neighbour slot is untouched"
        );
        links.set(1, 1, &[2, 3]);
        assert_eq!(links.get(1, 1), &[2, 3]);
    }
}
