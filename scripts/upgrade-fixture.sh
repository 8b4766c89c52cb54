#!/usr/bin/env bash
# Writes this build's upgrade fixture: a data directory holding every kind of data the format
# stores, part of it only in an unflushed commit log, and the manifest of its expected
# contents (server/tests/upgrade/: main.rs describes the test, fixture.rs what is written).
#
#   scripts/upgrade-fixture.sh
#
# Run it in the commit that changes the data format (FORMAT_VERSION in storage/src/db.rs) or
# the commit-log version, after adding to fixture.rs whatever the new format stores. It writes
# server/tests/upgrade/data-format-<D>-commitlog-<C>/ (named by the versions the new build
# writes into FORMAT), then runs the upgrade test, which opens every fixture with this build.
# Commit the new directory. Never delete, edit or regenerate an old one: it is what an earlier
# release left on disk, and this and every later build must keep opening it. The script
# refuses to overwrite an existing fixture; UPGRADE_FIXTURE_REPLACE=1 overrides that, only
# for a fixture that was never committed.
#
# Environment: CARGO_TARGET_DIR as for any cargo build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo test -p server --test upgrade -- --ignored --exact generate_fixture --nocapture
cargo test -p server --test upgrade -- --exact every_fixture_opens_replays_and_takes_writes
git status --short server/tests/upgrade
du -sh server/tests/upgrade/data-format-*
