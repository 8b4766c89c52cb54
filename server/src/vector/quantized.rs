//! 8-bit copies of the graph's vectors for the query traversal: a search is bound by memory
//! latency (each distance reads a vector at a random place), and a code of `dim` bytes is a
//! quarter of the `f32` vector's cache lines. Each vector is scaled by its own largest
//! magnitude; distances from codes only steer the beam, which is then re-ranked exactly.

/// The codes of every node, in node order.
#[derive(Default)]
pub(crate) struct Codes {
    dim: usize,
    /// Node `i`'s code is `codes[i * dim..(i + 1) * dim]`.
    codes: Vec<i8>,
    /// Per node: the value one code step stands for, and the squared norm of the decoded
    /// vector (for the euclidean distance). Side by side, so a distance waits for one more
    /// cache line, not two, and [`Codes::touch`] loads it with the code.
    meta: Vec<[f32; 2]>,
}

/// A vector in the codes' form, for distances to stored codes.
pub(crate) struct Coded {
    code: Vec<i8>,
    scale: f32,
    norm: f32,
}

impl Codes {
    /// Codes for `dim`-dimensional vectors.
    pub(crate) fn new(dim: usize) -> Self {
        Codes {
            dim,
            ..Codes::default()
        }
    }

    /// Appends the code of the next node's vector.
    pub(crate) fn push(&mut self, vector: &[f32]) {
        let coded = encode(vector);
        self.codes.extend_from_slice(&coded.code);
        self.meta.push([coded.scale, coded.norm]);
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.codes.capacity() + self.meta.capacity() * 8
    }

    /// The dot product of `query` and node `node`'s decoded vector, and that vector's squared
    /// norm.
    pub(crate) fn dot(&self, query: &Coded, node: u32) -> (f32, f32) {
        let i = node as usize;
        let code = self
            .codes
            .get(i * self.dim..(i + 1) * self.dim)
            .unwrap_or(&[]);
        let integer = integer_dot(&query.code, code);
        let [scale, norm] = self.meta.get(i).copied().unwrap_or([0.0; 2]);
        (integer as f32 * query.scale * scale, norm)
    }
}

impl Codes {
    /// Reads one byte of every cache line of the codes of `nodes`, and their scale and norm:
    /// independent loads the CPU overlaps, so the distances computed next find them in cache
    /// instead of each waiting for memory in turn (a safe stand-in for a prefetch). The loop
    /// is kept short so that many loads fit in the CPU's window at once.
    pub(crate) fn touch(&self, nodes: &[u32]) {
        let (mut seen, mut meta) = (0u8, 0u32);
        let last = self.dim.saturating_sub(1);
        for &n in nodes {
            let start = n as usize * self.dim;
            let mut offset = 0;
            while offset < self.dim {
                seen ^= self.codes.get(start + offset).map_or(0, |&b| b as u8);
                offset += 64;
            }
            seen ^= self.codes.get(start + last).map_or(0, |&b| b as u8);
            meta ^= self.meta.get(n as usize).map_or(0, |m| m[0].to_bits());
        }
        std::hint::black_box((seen, meta));
    }
}

impl Coded {
    /// The squared norm of the decoded query.
    pub(crate) fn norm(&self) -> f32 {
        self.norm
    }
}

/// `a . b` over codes. A product of two codes fits an `i16` (|c| <= 127), which SSE2
/// multiplies eight at a time; summing them in sixteen `i32` lanes keeps the loop free of
/// the widening shuffles a plain `i32` product costs (half the time per distance).
fn integer_dot(a: &[i8], b: &[i8]) -> i32 {
    let mut lanes = [0i32; 16];
    let (chunks_a, chunks_b) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for ((lane, &x), &y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += i32::from(i16::from(x) * i16::from(y));
        }
    }
    lanes.iter().sum::<i32>() + tail
}

/// `vector` as codes: each element divided by `max |x| / 127` and rounded.
pub(crate) fn encode(vector: &[f32]) -> Coded {
    let largest = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    let code: Vec<i8> = vector
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    let steps: i32 = code.iter().map(|&c| i32::from(c) * i32::from(c)).sum();
    Coded {
        code,
        scale,
        norm: steps as f32 * scale * scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_dot_products_are_close_to_exact_ones() {
        let a = [0.5f32, -1.0, 0.25, 2.0];
        let b = [1.0f32, 0.5, -0.75, 0.125];
        let mut codes = Codes::new(4);
        codes.push(&b);
        let (dot, norm) = codes.dot(&encode(&a), 0);
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot - exact).abs() < 0.02, "{dot} vs {exact}");
        assert!((norm - b.iter().map(|x| x * x).sum::<f32>()).abs() < 0.02);
        assert_eq!(encode(&[0.0, 0.0]).norm(), 0.0);
    }

    #[test]
    fn integer_dot_matches_the_plain_sum_at_every_length() {
        for len in [0, 1, 15, 16, 17, 128, 131] {
            let a: Vec<i8> = (0..len).map(|i| ((i * 37) % 255) as u8 as i8).collect();
            let b: Vec<i8> = (0..len).map(|i| ((i * 91 + 5) % 255) as u8 as i8).collect();
            let (a, b): (Vec<i8>, Vec<i8>) = (
                a.iter().map(|&x| x.max(-127)).collect(),
                b.iter().map(|&x| x.max(-127)).collect(),
            );
            let plain: i32 = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| i32::from(x) * i32::from(y))
                .sum();
            assert_eq!(integer_dot(&a, &b), plain, "length {len}");
        }
        assert_eq!(integer_dot(&[-127; 32], &[-127; 32]), 32 * 127 * 127);
    }
}
