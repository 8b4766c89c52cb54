//! Native protocol v4 frames. Filled in by the frame work.
