//! Client-to-server TLS (`client_encryption_options`) with rustls and the `ring` provider.
//!
//! [`load`] reads the PEM key material as Cassandra 4.1's `PEMBasedSslContextFactory` does:
//! the keystore holds the private key (PKCS#8, encrypted with `keystore_password` or not;
//! PKCS#1 and SEC1 keys are taken too) and its certificate chain, the truststore the CA
//! certificates client certificates must chain to. Anything missing, unreadable or
//! mismatched stops the start with a message naming the file.
//!
//! [`Tls::accept`] runs per connection, in the connection's task: like Cassandra's
//! `PipelineConfigurator`, it looks at the first byte the client sends. A TLS record starts
//! with 0x16 (handshake; no CQL version byte is 22); anything else is plain text, served in
//! `optional` mode and refused (closed, logged at debug) in `encrypted` mode.

use std::path::PathBuf;
use std::sync::Arc;
use std::{fmt, io};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, SupportedProtocolVersion};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::config::{ClientAuth, ClientEncryption, PemSource, TlsPolicy, TlsVersion};

/// The first byte of a TLS handshake record (a ClientHello).
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

const ENCRYPTED_KEY_BEGIN: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----";
const ENCRYPTED_KEY_END: &str = "-----END ENCRYPTED PRIVATE KEY-----";

/// The server's TLS context and policy, shared by every connection.
pub(crate) struct Tls {
    acceptor: TlsAcceptor,
    policy: TlsPolicy,
}

/// Why the TLS context cannot be built; the server does not start.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A store cannot be read.
    #[error("cannot read client_encryption_options.{setting} {path}: {source}")]
    Read {
        /// `keystore` or `truststore`.
        setting: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A store's content is unusable.
    #[error("client_encryption_options.{setting} {store}: {reason}")]
    Store {
        /// `keystore` or `truststore`.
        setting: &'static str,
        /// The file (or "(inline PEM)").
        store: String,
        /// What is wrong.
        reason: String,
    },
    /// Other settings rustls cannot honour.
    #[error("client_encryption_options: {0}")]
    Settings(String),
}

/// How an accepted connection talks.
pub(crate) enum Stream {
    /// Plain text (optional mode).
    Plain(TcpStream),
    /// TLS, handshake done.
    Tls(Box<TlsStream<TcpStream>>),
}

/// Why a connection was not accepted.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The client closed before sending anything.
    Closed,
    /// Plain text while TLS is required.
    PlainText,
    /// The TLS handshake failed (no or untrusted client certificate, bad protocol, ...).
    Handshake(io::Error),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Closed => f.write_str("the client closed the connection before a handshake"),
            Refused::PlainText => {
                f.write_str("a plain-text client while client_encryption_options requires TLS")
            }
            Refused::Handshake(err) => write!(f, "TLS handshake failed: {err}"),
        }
    }
}

/// Builds the TLS context `options` ask for; `None` when client TLS is off.
///
/// # Errors
/// A store is missing, unreadable or holds no usable key or certificate, the key does not
/// match the certificate, the key is encrypted and the password is missing or wrong, or no
/// configured cipher suite is available.
pub(crate) fn load(options: &ClientEncryption) -> Result<Option<Arc<Tls>>, TlsError> {
    if options.policy == TlsPolicy::Unencrypted {
        return Ok(None);
    }
    let provider = Arc::new(provider(&options.cipher_suites)?);
    let keystore = read_store(&options.keystore, "keystore")?;
    let store_error = |reason: String| TlsError::Store {
        setting: "keystore",
        store: options.keystore.to_string(),
        reason,
    };
    let chain = certificates(&keystore).map_err(store_error)?;
    if chain.is_empty() {
        return Err(store_error(
            "holds no certificate (-----BEGIN CERTIFICATE-----); the keystore must be a PEM \
             file with the private key and its certificate chain"
                .into(),
        ));
    }
    let password = options.keystore_password.as_ref().map(|p| p.0.as_str());
    let key = private_key(&keystore, password).map_err(store_error)?;
    let versions: Vec<&'static SupportedProtocolVersion> = if options.protocols.is_empty() {
        rustls::ALL_VERSIONS.to_vec()
    } else {
        options
            .protocols
            .iter()
            .map(|version| match version {
                TlsVersion::Tls12 => &rustls::version::TLS12,
                TlsVersion::Tls13 => &rustls::version::TLS13,
            })
            .collect()
    };
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&versions)
        .map_err(|err| TlsError::Settings(err.to_string()))?;
    let builder = match options.client_auth {
        ClientAuth::NotRequested => builder.with_no_client_auth(),
        ClientAuth::Optional | ClientAuth::Required => {
            let roots = trust_roots(&options.truststore)?;
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = if options.client_auth == ClientAuth::Optional {
                verifier.allow_unauthenticated()
            } else {
                verifier
            };
            let verifier = verifier.build().map_err(|err| TlsError::Store {
                setting: "truststore",
                store: options.truststore.to_string(),
                reason: err.to_string(),
            })?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let config = builder.with_single_cert(chain, key).map_err(|err| {
        store_error(match err {
            rustls::Error::InconsistentKeys(_) => {
                "the private key does not match the certificate (the first certificate must be \
                 the key's own)"
                    .into()
            }
            other => other.to_string(),
        })
    })?;
    Ok(Some(Arc::new(Tls {
        acceptor: TlsAcceptor::from(Arc::new(config)),
        policy: options.policy,
    })))
}

impl Tls {
    /// Tells TLS from plain text by the first byte and completes the TLS handshake; the
    /// caller bounds the time it takes.
    ///
    /// # Errors
    /// The client left, spoke plain text where TLS is required, or failed the handshake.
    pub(crate) async fn accept(&self, socket: TcpStream) -> Result<Stream, Refused> {
        let mut first = [0u8; 1];
        match socket.peek(&mut first).await {
            Ok(0) => return Err(Refused::Closed),
            Ok(_) => {}
            Err(err) => return Err(Refused::Handshake(err)),
        }
        if first[0] != TLS_HANDSHAKE_RECORD {
            return match self.policy {
                TlsPolicy::Encrypted => Err(Refused::PlainText),
                TlsPolicy::Optional | TlsPolicy::Unencrypted => Ok(Stream::Plain(socket)),
            };
        }
        let stream = self
            .acceptor
            .accept(socket)
            .await
            .map_err(Refused::Handshake)?;
        Ok(Stream::Tls(Box::new(stream)))
    }

    /// The policy this context serves (optional or encrypted).
    pub(crate) fn policy(&self) -> TlsPolicy {
        self.policy
    }
}

/// The `ring` provider, with only the configured cipher suites when some are (by their
/// standard names, as Java names them: `TLS_AES_128_GCM_SHA256`,
/// `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`, ...). Names rustls does not implement (the CBC
/// and RSA key-exchange suites of Cassandra's old defaults) are skipped.
fn provider(cipher_suites: &[String]) -> Result<CryptoProvider, TlsError> {
    let mut provider = rustls::crypto::ring::default_provider();
    if cipher_suites.is_empty() {
        return Ok(provider);
    }
    let offered: Vec<String> = provider.cipher_suites.iter().map(suite_name).collect();
    provider.cipher_suites.retain(|suite| {
        let name = suite_name(suite);
        cipher_suites
            .iter()
            .any(|wanted| wanted.eq_ignore_ascii_case(&name))
    });
    if provider.cipher_suites.is_empty() {
        return Err(TlsError::Settings(format!(
            "none of cipher_suites [{}] is available; this server offers [{}]",
            cipher_suites.join(", "),
            offered.join(", ")
        )));
    }
    Ok(provider)
}

/// A suite's standard name (rustls writes TLS 1.3 suites as `TLS13_...`).
fn suite_name(suite: &rustls::SupportedCipherSuite) -> String {
    let name = format!("{:?}", suite.suite());
    match name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => name,
    }
}

/// A store's PEM text.
fn read_store(source: &PemSource, setting: &'static str) -> Result<String, TlsError> {
    match source {
        PemSource::Inline(text) => Ok(text.clone()),
        PemSource::File(path) => {
            let bytes = std::fs::read(path).map_err(|source| TlsError::Read {
                setting,
                path: path.clone(),
                source,
            })?;
            String::from_utf8(bytes).map_err(|_| TlsError::Store {
                setting,
                store: path.display().to_string(),
                reason: "is not a PEM file (a JKS or PKCS#12 keystore? only PEM is supported, as \
                         with Cassandra's PEMBasedSslContextFactory)"
                    .into(),
            })
        }
    }
}

/// Every certificate in `pem`, in order.
fn certificates(pem: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("invalid PEM: {err}"))
}

/// The private key in `pem`: an encrypted PKCS#8 key decrypted with `password`, or a plain
/// PKCS#8, PKCS#1 or SEC1 key.
fn private_key(pem: &str, password: Option<&str>) -> Result<PrivateKeyDer<'static>, String> {
    if let Some(start) = pem.find(ENCRYPTED_KEY_BEGIN) {
        let end = pem[start..]
            .find(ENCRYPTED_KEY_END)
            .map(|at| start + at + ENCRYPTED_KEY_END.len())
            .ok_or("the encrypted private key has no END line")?;
        let Some(password) = password.filter(|p| !p.is_empty()) else {
            return Err("holds an encrypted private key and keystore_password is not set".into());
        };
        let (_, der) = pkcs8::der::pem::decode_vec(&pem.as_bytes()[start..end])
            .map_err(|err| format!("invalid encrypted private key: {err}"))?;
        let encrypted = pkcs8::EncryptedPrivateKeyInfoRef::try_from(der.as_slice())
            .map_err(|err| format!("invalid encrypted private key: {err}"))?;
        let decrypted = encrypted.decrypt(password).map_err(|err| {
            format!("cannot decrypt the private key with keystore_password ({err})")
        })?;
        return Ok(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
            decrypted.as_bytes().to_vec(),
        )));
    }
    PrivateKeyDer::from_pem_slice(pem.as_bytes()).map_err(|err| match err {
        rustls::pki_types::pem::Error::NoItemsFound => {
            "holds no private key (-----BEGIN PRIVATE KEY----- or -----BEGIN ENCRYPTED PRIVATE \
             KEY-----); the keystore must be a PEM file with the private key and its \
             certificate chain"
                .to_string()
        }
        other => format!("invalid PEM: {other}"),
    })
}

/// The CA certificates client certificates must chain to.
fn trust_roots(source: &PemSource) -> Result<RootCertStore, TlsError> {
    let pem = read_store(source, "truststore")?;
    let store_error = |reason: String| TlsError::Store {
        setting: "truststore",
        store: source.to_string(),
        reason,
    };
    let certificates = certificates(&pem).map_err(store_error)?;
    if certificates.is_empty() {
        return Err(store_error(
            "holds no certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    let mut roots = RootCertStore::empty();
    for certificate in certificates {
        roots
            .add(certificate)
            .map_err(|err| store_error(format!("unusable CA certificate: {err}")))?;
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Secret;
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair,
        KeyUsagePurpose,
    };

    /// A CA, a server certificate and key signed by it, and an unrelated key.
    struct Pki {
        ca: String,
        server_cert: String,
        server_key: KeyPair,
        other_key: KeyPair,
    }

    fn pki() -> Pki {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "test CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let server_key = KeyPair::generate().unwrap();
        let server_cert = CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .signed_by(&server_key, &ca)
            .unwrap();
        Pki {
            ca: ca.pem(),
            server_cert: server_cert.pem(),
            server_key,
            other_key: KeyPair::generate().unwrap(),
        }
    }

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `node.pem` in `dir`: the server's private key followed by its certificate.
    fn node_keystore(dir: &tempfile::TempDir, pki: &Pki) -> PathBuf {
        let pem = format!("{}{}", pki.server_key.serialize_pem(), pki.server_cert);
        write(dir, "node.pem", &pem)
    }

    fn load_err(options: &ClientEncryption) -> String {
        match load(options) {
            Ok(_) => panic!("loaded {options:?}"),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn off_builds_nothing() {
        assert!(load(&ClientEncryption::default()).unwrap().is_none());
    }

    #[test]
    fn keystore_with_key_and_chain_loads() {
        let pki = pki();
        let dir = tempfile::tempdir().unwrap();
        let keystore = node_keystore(&dir, &pki);
        let tls = load(&ClientEncryption::required(&keystore))
            .unwrap()
            .unwrap();
        assert_eq!(tls.policy(), TlsPolicy::Encrypted);
        // Inline, as the PEM factory's `private_key` parameter gives it.
        let inline = ClientEncryption {
            keystore: PemSource::Inline(std::fs::read_to_string(&keystore).unwrap()),
            ..ClientEncryption::required("unused")
        };
        assert!(load(&inline).unwrap().is_some());
    }

    #[test]
    fn missing_or_unusable_keystore_names_the_file() {
        let pki = pki();
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let err = load_err(&ClientEncryption::required(&missing));
        assert!(
            err.starts_with(&format!(
                "cannot read client_encryption_options.keystore {}: ",
                missing.display()
            )),
            "{err}"
        );
        let cert_only = write(&dir, "cert.pem", &pki.server_cert);
        let err = load_err(&ClientEncryption::required(&cert_only));
        assert!(
            err.starts_with(&format!(
                "client_encryption_options.keystore {}: holds no private key",
                cert_only.display()
            )),
            "{err}"
        );
        let key_only = write(&dir, "key.pem", &pki.server_key.serialize_pem());
        let err = load_err(&ClientEncryption::required(&key_only));
        assert!(err.contains("holds no certificate"), "{err}");
        let jks = write(&dir, "keystore.jks", "");
        std::fs::write(&jks, [0xfe, 0xed, 0xfe, 0xed, 0xff, 0x00]).unwrap();
        let err = load_err(&ClientEncryption::required(&jks));
        assert!(err.contains("is not a PEM file"), "{err}");
    }

    #[test]
    fn key_that_does_not_match_the_certificate_is_refused() {
        let pki = pki();
        let dir = tempfile::tempdir().unwrap();
        let keystore = write(
            &dir,
            "node.pem",
            &format!("{}{}", pki.other_key.serialize_pem(), pki.server_cert),
        );
        let err = load_err(&ClientEncryption::required(&keystore));
        assert_eq!(
            err,
            format!(
                "client_encryption_options.keystore {}: the private key does not match the \
                 certificate (the first certificate must be the key's own)",
                keystore.display()
            )
        );
    }

    #[test]
    fn encrypted_pkcs8_key_needs_keystore_password() {
        let pki = pki();
        let der = pki.server_key.serialize_der();
        let info = pkcs8::PrivateKeyInfoRef::try_from(der.as_slice()).unwrap();
        let params = pkcs8::pkcs5::pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(
            2048,
            b"0123456789abcdef",
            [7; 16],
        )
        .unwrap();
        let encrypted = info
            .encrypt_with_params(params, "cassandra")
            .unwrap()
            .to_pem("ENCRYPTED PRIVATE KEY", pkcs8::LineEnding::LF)
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let keystore = write(
            &dir,
            "node.pem",
            &format!("{}{}", encrypted.as_str(), pki.server_cert),
        );
        let mut options = ClientEncryption::required(&keystore);
        assert!(load_err(&options)
            .ends_with("holds an encrypted private key and keystore_password is not set"));
        options.keystore_password = Some(Secret("wrong".into()));
        let err = load_err(&options);
        assert!(
            err.contains("cannot decrypt the private key with keystore_password"),
            "{err}"
        );
        options.keystore_password = Some(Secret("cassandra".into()));
        assert!(load(&options).unwrap().is_some());
    }

    #[test]
    fn client_auth_reads_the_truststore() {
        let pki = pki();
        let dir = tempfile::tempdir().unwrap();
        let keystore = node_keystore(&dir, &pki);
        let mut options = ClientEncryption {
            client_auth: ClientAuth::Required,
            ..ClientEncryption::required(&keystore)
        };
        // Cassandra's default truststore, which does not exist here.
        let err = load_err(&options);
        assert!(
            err.starts_with("cannot read client_encryption_options.truststore conf/.truststore: "),
            "{err}"
        );
        let empty = write(&dir, "empty.pem", "");
        options.truststore = PemSource::File(empty.clone());
        assert_eq!(
            load_err(&options),
            format!(
                "client_encryption_options.truststore {}: holds no certificate \
                 (-----BEGIN CERTIFICATE-----)",
                empty.display()
            )
        );
        options.truststore = PemSource::File(write(&dir, "ca.pem", &pki.ca));
        assert!(load(&options).unwrap().is_some());
        options.client_auth = ClientAuth::Optional;
        assert!(load(&options).unwrap().is_some());
    }

    #[test]
    fn cipher_suites_and_protocols_narrow_the_context() {
        let pki = pki();
        let dir = tempfile::tempdir().unwrap();
        let keystore = node_keystore(&dir, &pki);
        let mut options = ClientEncryption {
            cipher_suites: vec!["TLS_RSA_WITH_AES_128_CBC_SHA".into()],
            ..ClientEncryption::required(&keystore)
        };
        let err = load_err(&options);
        assert!(
            err.starts_with(
                "client_encryption_options: none of cipher_suites [TLS_RSA_WITH_AES_128_CBC_SHA] \
                 is available; this server offers [TLS_AES_256_GCM_SHA384"
            ),
            "{err}"
        );
        options.cipher_suites = vec![
            "TLS_RSA_WITH_AES_128_CBC_SHA".into(),
            "TLS_AES_128_GCM_SHA256".into(),
        ];
        options.protocols = vec![TlsVersion::Tls13];
        assert!(load(&options).unwrap().is_some());
    }
}
