//! Client-to-server TLS (`client_encryption_options`): the scylla driver over rustls, plain
//! clients refused or served as the policy says, client certificates, and the real Python
//! clients (the DataStax driver with an `ssl_context`, `cqlsh --ssl`). Certificates are made
//! by the tests (rcgen), never committed. Its own test binary, so its pytest run never
//! overlaps the plain one (the venv is created by the first run that needs it).

mod certs;
mod driver;
mod python;
