//! `Session`: the state of one connection that requests read and change: the protocol
//! version, whether STARTUP happened, the current keyspace, the negotiated compression and
//! registered event types.
//! Guarded by a `std` mutex that is never held across an `.await`, but for what every request
//! reads (the protocol version, the handshake's outcome), which are atomics.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cql::frame::{Compression, ProtocolVersion};
use tokio::sync::watch;

use super::tls_session::TlsSession;

/// Per-connection state.
#[derive(Debug)]
pub(crate) struct Session {
    /// The client's address.
    pub peer: SocketAddr,
    /// The address the client connected to; reported as `rpc_address` in `system.local`.
    pub local: SocketAddr,
    state: Mutex<SessionState>,
    /// The protocol version the first message chose (its number; 0 until then).
    protocol: AtomicU8,
    /// Set to `true` when the connection ends, so background tasks (event forwarding) stop.
    closed: watch::Sender<bool>,
    /// Requests received (`system_views.clients.request_count`).
    requests: AtomicU64,
    /// The TLS handshake's outcome; unset on a plain-text connection.
    tls: OnceLock<TlsSession>,
    /// The handshake's outcome, read by every request: [`STARTED`], [`AUTHENTICATING`] and
    /// the negotiated compression ([`LZ4`] or [`SNAPPY`]). Atomic, so a request reads it
    /// without taking the state's lock.
    handshake: AtomicU8,
    /// The driver STARTUP named, shared with the query log's entries (set once).
    driver: OnceLock<Arc<Driver>>,
}

/// The driver a client named in STARTUP (`DRIVER_NAME`, `DRIVER_VERSION`).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Driver {
    /// `DRIVER_NAME`, if sent.
    pub name: Option<String>,
    /// `DRIVER_VERSION`, if sent.
    pub version: Option<String>,
}

impl Driver {
    /// The driver named by STARTUP's `options` (keys in any case).
    fn of(options: &[(String, String)]) -> Driver {
        let option = |key: &str| {
            options
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.clone())
        };
        Driver {
            name: option("DRIVER_NAME"),
            version: option("DRIVER_VERSION"),
        }
    }
}

/// [`Session::handshake`]: STARTUP has completed.
const STARTED: u8 = 0x01;
/// [`Session::handshake`]: STARTUP was answered with AUTHENTICATE and AUTH_RESPONSE has not
/// succeeded yet.
const AUTHENTICATING: u8 = 0x02;
/// [`Session::handshake`]: lz4 body compression.
const LZ4: u8 = 0x04;
/// [`Session::handshake`]: snappy body compression.
const SNAPPY: u8 = 0x08;

#[derive(Debug, Default)]
struct SessionState {
    keyspace: Option<String>,
    registered: Vec<String>,
    throw_on_overload: bool,
    /// The role logged in with PasswordAuthenticator; `None` for an anonymous client.
    user: Option<String>,
    /// The options STARTUP carried (driver name and version, ...).
    startup_options: Vec<(String, String)>,
}

impl Session {
    /// A fresh session for a new connection.
    pub(crate) fn new(peer: SocketAddr, local: SocketAddr) -> Session {
        let (closed, _) = watch::channel(false);
        Session {
            peer,
            local,
            state: Mutex::new(SessionState::default()),
            protocol: AtomicU8::new(0),
            closed,
            requests: AtomicU64::new(0),
            tls: OnceLock::new(),
            handshake: AtomicU8::new(0),
            driver: OnceLock::new(),
        }
    }

    /// The connection's protocol version: the first message's (v4 before any message).
    pub(crate) fn protocol(&self) -> ProtocolVersion {
        ProtocolVersion::from_request_byte(self.protocol.load(Ordering::Relaxed))
            .unwrap_or(ProtocolVersion::V4)
    }

    /// The version the first message chose, if one came yet.
    pub(crate) fn chosen_protocol(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::from_request_byte(self.protocol.load(Ordering::Relaxed))
    }

    /// Fixes the connection's protocol version (the first message's).
    pub(crate) fn choose_protocol(&self, version: ProtocolVersion) {
        self.protocol
            .store(version.request_byte(), Ordering::Relaxed);
    }

    /// The compression of frame bodies: the negotiated one before v5; none in v5, where
    /// segments are compressed instead.
    pub(crate) fn envelope_compression(&self) -> Option<Compression> {
        if self.protocol().is_v5() {
            None
        } else {
            self.compression()
        }
    }

    /// Whether v5 segments are lz4-compressed.
    pub(crate) fn segments_compressed(&self) -> bool {
        self.compression() == Some(Compression::Lz4)
    }

    fn state(&self) -> MutexGuard<'_, SessionState> {
        // A poisoned lock only means another handler panicked mid-update of plain data;
        // the state is still usable.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether STARTUP has completed.
    pub(crate) fn is_started(&self) -> bool {
        self.handshake.load(Ordering::Acquire) & STARTED != 0
    }

    /// Marks STARTUP done with the negotiated compression.
    pub(crate) fn start(&self, compression: Option<Compression>) {
        let compression = match compression {
            Some(Compression::Lz4) => LZ4,
            Some(Compression::Snappy) => SNAPPY,
            None => 0,
        };
        // A later STARTUP replaces the compression the first one chose.
        let _ = self
            .handshake
            .fetch_update(Ordering::Release, Ordering::Relaxed, |handshake| {
                Some(handshake & !(LZ4 | SNAPPY) | STARTED | compression)
            });
    }

    /// Records STARTUP's `THROW_ON_OVERLOAD`: past the in-flight limits this client wants an
    /// OVERLOADED error instead of backpressure.
    pub(crate) fn set_throw_on_overload(&self, throw: bool) {
        self.state().throw_on_overload = throw;
    }

    /// Whether the client asked for OVERLOADED errors instead of backpressure.
    pub(crate) fn throw_on_overload(&self) -> bool {
        self.state().throw_on_overload
    }

    /// Marks STARTUP answered with AUTHENTICATE: only AUTH_RESPONSE may follow until it
    /// succeeds.
    pub(crate) fn await_authentication(&self) {
        self.handshake.fetch_or(AUTHENTICATING, Ordering::Release);
    }

    /// Whether the connection waits for a successful AUTH_RESPONSE.
    pub(crate) fn is_authenticating(&self) -> bool {
        self.handshake.load(Ordering::Acquire) & AUTHENTICATING != 0
    }

    /// The SASL exchange succeeded: the connection acts as `role` from now on.
    pub(crate) fn log_in(&self, role: String) {
        self.state().user = Some(role);
        self.handshake.fetch_and(!AUTHENTICATING, Ordering::Release);
    }

    /// Counts a request received.
    pub(crate) fn count_request(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
    }

    /// Requests received so far.
    pub(crate) fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Marks the connection as running over TLS, with the handshake's outcome.
    pub(crate) fn mark_encrypted(&self, tls: TlsSession) {
        // A connection's handshake happens once; a second call changes nothing.
        let _ = self.tls.set(tls);
    }

    /// Whether the connection runs over TLS.
    pub(crate) fn is_encrypted(&self) -> bool {
        self.tls.get().is_some()
    }

    /// The TLS handshake's outcome, on a TLS connection.
    pub(crate) fn tls(&self) -> Option<&TlsSession> {
        self.tls.get()
    }

    /// Keeps the options STARTUP carried.
    pub(crate) fn set_startup_options(&self, options: Vec<(String, String)>) {
        // A second STARTUP is refused before it gets here: the first names the driver.
        let _ = self.driver.set(Arc::new(Driver::of(&options)));
        self.state().startup_options = options;
    }

    /// The driver STARTUP named; `None` before STARTUP.
    pub(crate) fn driver(&self) -> Option<Arc<Driver>> {
        self.driver.get().cloned()
    }

    /// The options STARTUP carried.
    pub(crate) fn startup_options(&self) -> Vec<(String, String)> {
        self.state().startup_options.clone()
    }

    /// The role this connection logged in as; `None` when anonymous.
    pub(crate) fn user(&self) -> Option<String> {
        self.state().user.clone()
    }

    /// The negotiated body compression, if any.
    pub(crate) fn compression(&self) -> Option<Compression> {
        let handshake = self.handshake.load(Ordering::Acquire);
        if handshake & LZ4 != 0 {
            Some(Compression::Lz4)
        } else if handshake & SNAPPY != 0 {
            Some(Compression::Snappy)
        } else {
            None
        }
    }

    /// The keyspace set by `USE`.
    pub(crate) fn keyspace(&self) -> Option<String> {
        self.state().keyspace.clone()
    }

    /// Sets the current keyspace.
    pub(crate) fn set_keyspace(&self, keyspace: String) {
        self.state().keyspace = Some(keyspace);
    }

    /// Records REGISTERed event types; returns whether this is the first registration.
    pub(crate) fn register(&self, events: &[String]) -> bool {
        let mut state = self.state();
        let first = state.registered.is_empty();
        for event in events {
            if !state.registered.contains(event) {
                state.registered.push(event.clone());
            }
        }
        first && !state.registered.is_empty()
    }

    /// Whether the connection registered for `event_type`.
    pub(crate) fn is_registered(&self, event_type: &str) -> bool {
        self.state().registered.iter().any(|e| e == event_type)
    }

    /// Signals that the connection has ended.
    pub(crate) fn close(&self) {
        let _ = self.closed.send(true);
    }

    /// A receiver that changes when the connection ends.
    pub(crate) fn closed_signal(&self) -> watch::Receiver<bool> {
        self.closed.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        let addr: SocketAddr = "127.0.0.1:9042".parse().expect("an address");
        Session::new(addr, addr)
    }

    #[test]
    fn the_handshake_flags_follow_startup_and_authentication() {
        for compression in [None, Some(Compression::Lz4), Some(Compression::Snappy)] {
            let session = session();
            assert!(!session.is_started() && !session.is_authenticating());
            assert_eq!(session.compression(), None);
            session.start(compression);
            session.await_authentication();
            assert!(session.is_started() && session.is_authenticating());
            session.log_in("cassandra".to_string());
            assert!(session.is_started() && !session.is_authenticating());
            assert_eq!(session.user().as_deref(), Some("cassandra"));
            assert_eq!(session.compression(), compression);
            assert_eq!(
                session.segments_compressed(),
                compression == Some(Compression::Lz4)
            );
            // Another STARTUP replaces the compression, and keeps the login.
            session.start(Some(Compression::Snappy));
            assert_eq!(session.compression(), Some(Compression::Snappy));
            session.start(None);
            assert_eq!(session.compression(), None);
            assert!(session.is_started() && !session.is_authenticating());
        }
    }

    #[test]
    fn startup_names_the_driver_once() {
        let session = session();
        assert_eq!(session.driver(), None);
        session.set_startup_options(vec![
            ("CQL_VERSION".into(), "3.0.0".into()),
            ("driver_name".into(), "ScyllaDB Rust Driver".into()),
            ("DRIVER_VERSION".into(), "1.2.0".into()),
        ]);
        let named = Driver {
            name: Some("ScyllaDB Rust Driver".into()),
            version: Some("1.2.0".into()),
        };
        assert_eq!(session.driver().as_deref(), Some(&named));
        session.set_startup_options(Vec::new());
        assert_eq!(session.driver().as_deref(), Some(&named));
        assert_eq!(Driver::of(&[]), Driver::default());
    }
}
