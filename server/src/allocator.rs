//! The server binary's memory allocator: jemalloc, with background threads that hand freed
//! pages back to the system a second after they were last used. glibc's malloc kept a burst's
//! memory (15 MB values, pipelined writes) with the process long after it was freed: it
//! raises its mmap threshold once large blocks are freed, so later ones come from heaps it
//! rarely trims.

use tikv_jemalloc_ctl::{Access, AsName};
use tracing::warn;

/// jemalloc with `background_thread:true` (the crate feature), so decay runs on its own
/// thread rather than only when a thread next allocates.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// How long freed pages stay with the process before they are returned (jemalloc's default
/// is 10 s): long enough to be reused under steady load, short enough that a burst's memory
/// is back with the system within seconds.
const DECAY_MS: isize = 1_000;

/// The arenas' decay settings: the default for arenas made later (one per thread, lazily)
/// and arena 0's, which exists already.
const DECAY_SETTINGS: [&[u8]; 4] = [
    b"arenas.dirty_decay_ms\0",
    b"arenas.muzzy_decay_ms\0",
    b"arena.0.dirty_decay_ms\0",
    b"arena.0.muzzy_decay_ms\0",
];

/// Sets the decay time on every arena; called once at start, before the runtime's threads.
pub(crate) fn return_memory_promptly() {
    for setting in DECAY_SETTINGS {
        if let Err(err) = setting.name().write(DECAY_MS) {
            warn!(setting = %String::from_utf8_lossy(setting), cause = %err, "cannot set jemalloc's decay");
        }
    }
}
