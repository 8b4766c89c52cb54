//! A connection's two deadlines: the end of its handshake, and its idle timeout.

use std::time::Duration;

/// The connection's two deadlines: STARTUP must complete within the handshake timeout, and
/// a connection with no traffic for `native_transport_idle_timeout` is closed (zero: never).
pub(super) struct Timers {
    /// When STARTUP (and any SASL exchange) must have completed.
    pub(super) handshake: std::pin::Pin<Box<tokio::time::Sleep>>,
    /// The idle timeout and when it expires, unless traffic moves it.
    pub(super) idle: Option<(Duration, std::pin::Pin<Box<tokio::time::Sleep>>)>,
}

impl Timers {
    /// Both deadlines, from now, as `config` sets them.
    pub(super) fn new(config: &crate::config::Config) -> Timers {
        let idle = (!config.idle_timeout.is_zero()).then(|| {
            (
                config.idle_timeout,
                Box::pin(tokio::time::sleep(config.idle_timeout)),
            )
        });
        Timers {
            handshake: Box::pin(tokio::time::sleep(config.handshake_timeout)),
            idle,
        }
    }

    /// Completes at the idle deadline; never when there is none.
    pub(super) async fn idle(
        idle: &mut Option<(Duration, std::pin::Pin<Box<tokio::time::Sleep>>)>,
    ) {
        match idle {
            Some((_, sleep)) => sleep.as_mut().await,
            None => std::future::pending().await,
        }
    }

    /// Something happened on the connection: the idle deadline moves.
    pub(super) fn active(&mut self) {
        if let Some((timeout, sleep)) = &mut self.idle {
            sleep.as_mut().reset(tokio::time::Instant::now() + *timeout);
        }
    }
}
