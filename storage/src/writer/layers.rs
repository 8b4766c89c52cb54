//! The memtable layers: freezing the active layer and handing it to the flusher, taking
//! the flusher's outcome, and the clean layer a flush leaves behind.

use std::sync::{Arc, RwLock};
use std::time::Instant;

use tracing::{error, trace};

use super::Writer;
use super::REOPEN_PAUSE;
use crate::commitlog::CommitLog;
use crate::memtable;
use crate::memtable::Layers;
use crate::memtable::Mem;

impl Writer {
    /// Freezes the memtable and hands it to the flusher, whose durable commit is the
    /// checkpoint; whether it did (there must be rows, and no flush running).
    pub(super) fn start_flush(&mut self) -> bool {
        let layers = self.memtables.load();
        let empty = memtable::read(&layers.active).is_empty();
        if empty || layers.frozen.is_some() || self.needs_reopen {
            return false;
        }
        let (Some(flusher), Some(db)) = (&self.flusher, &self.db) else {
            return false;
        };
        let position = self.log.as_ref().map_or(0, CommitLog::last_seq);
        let first_kept = self.log.as_mut().map_or(0, CommitLog::rotate);
        let frozen = layers.active.clone();
        let active = Mem::sized_like(&memtable::read(&frozen));
        self.memtables.publish(Layers {
            active: Arc::new(RwLock::new(active)),
            frozen: Some(frozen.clone()),
            clean: None,
        });
        // The last flush's rows go with their layer: memory holds two layers at most.
        let clean = layers.clean.clone();
        drop(layers);
        if let Some(clean) = clean {
            flusher.dispose(clean);
        }
        trace!(position, "memtable frozen");
        flusher.send(
            db.clone(),
            frozen,
            position,
            self.db_path.as_ref().map(|file| file.path.clone()),
        );
        self.flushing = Some(first_kept);
        self.dirty = false;
        self.last_durable = Instant::now();
        true
    }

    /// Takes the flusher's outcome, if it has one (waiting for it when `wait`). Success: the
    /// frozen layer goes, after the views that see its commit. Failure: its rows go back
    /// under the active ones, and the log keeps them.
    pub(super) fn finish_flush(&mut self, wait: bool) {
        let Some(first_kept) = self.flushing else {
            return;
        };
        let Some(outcome) = self.flusher.as_ref().and_then(|f| f.outcome(wait)) else {
            return;
        };
        self.flushing = None;
        let layers = self.memtables.load();
        match outcome {
            Ok(()) => {
                self.views.invalidate();
                // Its rows are now what redb holds for their keys: point lookups go on
                // finding them here until the next flush starts or another commit.
                let clean = layers
                    .frozen
                    .clone()
                    .filter(|frozen| worth_keeping(&memtable::read(frozen)));
                let dropped = layers.frozen.clone().filter(|_| clean.is_none());
                self.memtables.publish(Layers {
                    active: layers.active.clone(),
                    frozen: None,
                    clean,
                });
                drop(layers);
                if let (Some(dropped), Some(flusher)) = (dropped, &self.flusher) {
                    flusher.dispose(dropped);
                }
                if let Some(log) = &mut self.log {
                    log.delete_segments_before(first_kept);
                }
            }
            Err(e) => {
                error!(cause = %e, "memtable flush failed; its rows stay in memory and in the commit log");
                if let Some(frozen) = &layers.frozen {
                    memtable::write(&layers.active).absorb(&memtable::read(frozen));
                }
                self.memtables.publish(Layers {
                    active: layers.active.clone(),
                    frozen: None,
                    clean: None,
                });
                self.dirty = true;
                self.flush_pause_until = Some(Instant::now() + REOPEN_PAUSE);
                self.note_failure(&e);
            }
        }
    }

    /// Drops the clean layer once it and the active one hold more than a layer and a half:
    /// the clean layer is a cache, so it gives way while writes fill the next layer, and
    /// memory stays well within the two layers (`memtable_heap_space`) active and frozen
    /// may hold.
    pub(super) fn trim_clean(&mut self, active_bytes: usize) {
        let layers = self.memtables.load();
        let Some(clean) = layers.clean.clone() else {
            return;
        };
        let budget = self.options.memtable_size + self.options.memtable_size / 2;
        if active_bytes + memtable::read(&clean).bytes() <= budget {
            return;
        }
        self.memtables.publish(Layers {
            active: layers.active.clone(),
            frozen: layers.frozen.clone(),
            clean: None,
        });
        drop(layers);
        if let Some(flusher) = &self.flusher {
            flusher.dispose(clean);
        }
    }

    /// A writer transaction committed (holding the memtable's rows, see [`Writer::begin`]):
    /// new reads get a new view, then the memtable empties.
    pub(super) fn committed(&mut self) {
        self.views.invalidate();
        let old = self.memtables.load();
        let has_rows = !memtable::read(&old.active).is_empty();
        if has_rows || old.clean.is_some() {
            // A clean layer may no longer be what redb holds: it goes too.
            self.memtables.publish(Layers::default());
            let gone = [has_rows.then(|| old.active.clone()), old.clean.clone()];
            drop(old);
            if let Some(flusher) = &self.flusher {
                gone.into_iter()
                    .flatten()
                    .for_each(|layer| flusher.dispose(layer));
            }
        }
    }
}

/// Rows this large on average are not kept in memory once flushed: a point lookup of such a
/// row costs its copy, not the B-tree walk the clean layer saves, and a few of them would
/// hold as much memory as a layer of small rows.
const CLEAN_ROW_MAX_AVERAGE: usize = 16 << 10;

/// Whether a flushed layer is worth keeping as the clean layer (see `memtable`).
fn worth_keeping(layer: &Mem) -> bool {
    layer.bytes() <= layer.rows().saturating_mul(CLEAN_ROW_MAX_AVERAGE)
}
