//! `client_encryption_options`: client-to-server TLS as Cassandra 5.0 configures it, read into
//! [`ClientEncryption`]. Only the settings are read here; `crate::transport::tls` loads the PEM files
//! when the server starts.
//!
//! As in Cassandra's `EncryptionOptions.applyConfig`, the policy is `optional` when
//! `optional: true`, else `encrypted` when `enabled: true`, else unencrypted; with `optional`
//! unset and a keystore present (the file exists, or the PEM factory's inline `private_key`
//! is set), a disabled section still accepts TLS on the side (`optional = !enabled`).

use std::fmt;
use std::path::PathBuf;

use serde_norway::{Mapping, Value};

use super::{known, ConfigError};

/// The section's name in `cassandra.yaml`.
pub(super) const SECTION: &str = "client_encryption_options";

/// Whether client connections are encrypted (Cassandra's `TlsEncryptionPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TlsPolicy {
    /// Plain text only; a TLS client gets the protocol error for version 22.
    #[default]
    Unencrypted,
    /// TLS and plain text on the same port, told apart by the first byte.
    Optional,
    /// TLS only; a plain-text client is disconnected.
    Encrypted,
}

/// Whether clients must present a certificate (`require_client_auth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientAuth {
    /// No certificate is asked for (`false`, Cassandra's default).
    #[default]
    NotRequested,
    /// A certificate is asked for and checked if presented (`optional`, Cassandra 5.0).
    Optional,
    /// A certificate signed by the truststore is required (`true`).
    Required,
}

/// PEM text: a file (`keystore`, `truststore`) or given inline in the file
/// (`ssl_context_factory.parameters.private_key` / `trusted_certificates`).
#[derive(Clone, PartialEq, Eq)]
pub enum PemSource {
    /// A PEM file, relative to the working directory as in Cassandra.
    File(PathBuf),
    /// PEM text from the configuration itself.
    Inline(String),
}

impl PemSource {
    /// Whether there is something to read: the file exists, or the text is not empty (what
    /// Cassandra's `hasKeystore` asks).
    pub fn is_present(&self) -> bool {
        match self {
            PemSource::File(path) => path.exists(),
            PemSource::Inline(text) => !text.trim().is_empty(),
        }
    }
}

impl fmt::Display for PemSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PemSource::File(path) => write!(f, "{}", path.display()),
            PemSource::Inline(_) => f.write_str("(inline PEM)"),
        }
    }
}

impl fmt::Debug for PemSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// A password, never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"****\"")
    }
}

/// A TLS version this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsVersion {
    /// TLSv1.2.
    Tls12,
    /// TLSv1.3.
    Tls13,
}

/// Client-to-server TLS settings (`client_encryption_options`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientEncryption {
    /// Unencrypted, optional or encrypted.
    pub policy: TlsPolicy,
    /// The private key and its certificate chain (PEM; Cassandra 4.1's
    /// `PEMBasedSslContextFactory`). Cassandra's default is `conf/.keystore`.
    pub keystore: PemSource,
    /// The password of an encrypted (PKCS#8) private key.
    pub keystore_password: Option<Secret>,
    /// CA certificates that client certificates must chain to (PEM); read only when client
    /// certificates are asked for. Cassandra's default is `conf/.truststore`.
    pub truststore: PemSource,
    /// Whether clients must present a certificate.
    pub client_auth: ClientAuth,
    /// The TLS versions accepted (`protocol`/`accepted_protocols`); empty: TLSv1.2 and 1.3.
    pub protocols: Vec<TlsVersion>,
    /// Cipher suites allowed, by their standard (Java) names; empty: rustls's defaults.
    pub cipher_suites: Vec<String>,
}

impl Default for ClientEncryption {
    fn default() -> Self {
        ClientEncryption {
            policy: TlsPolicy::Unencrypted,
            keystore: PemSource::File(PathBuf::from("conf/.keystore")),
            keystore_password: None,
            truststore: PemSource::File(PathBuf::from("conf/.truststore")),
            client_auth: ClientAuth::NotRequested,
            protocols: Vec::new(),
            cipher_suites: Vec::new(),
        }
    }
}

impl ClientEncryption {
    /// TLS with a keystore file, required of every client.
    pub fn required(keystore: impl Into<PathBuf>) -> ClientEncryption {
        ClientEncryption {
            policy: TlsPolicy::Encrypted,
            keystore: PemSource::File(keystore.into()),
            ..ClientEncryption::default()
        }
    }

    /// The policy as the startup line shows it: `off`, `on` or `optional`.
    pub fn policy_name(&self) -> &'static str {
        match self.policy {
            TlsPolicy::Unencrypted => "off",
            TlsPolicy::Optional => "optional",
            TlsPolicy::Encrypted => "on",
        }
    }

    /// Whether client certificates are asked for, as the startup line shows it.
    pub fn client_auth_name(&self) -> &'static str {
        match (self.policy, self.client_auth) {
            (TlsPolicy::Unencrypted, _) | (_, ClientAuth::NotRequested) => "not requested",
            (_, ClientAuth::Optional) => "optional",
            (_, ClientAuth::Required) => "required",
        }
    }
}

/// The class names of Cassandra's `ssl_context_factory` this server stands in for; both read
/// PEM here (the default one reads JKS in Cassandra, which this server cannot).
const FACTORIES: [&str; 2] = ["PEMBasedSslContextFactory", "DefaultSslContextFactory"];
const SECURITY_PACKAGE: &str = "org.apache.cassandra.security.";

/// Reads the section; returns the settings and the keys accepted without acting on them
/// (as `client_encryption_options.<key>`).
///
/// # Errors
/// A key that is no Cassandra setting of the section, a value of the wrong kind, a context
/// factory or protocol this server cannot honour, or Cassandra's conflicts between inline and
/// file key material.
pub(super) fn parse(value: &Value) -> Result<(ClientEncryption, Vec<String>), ConfigError> {
    let map = match value {
        Value::Null => return Ok((ClientEncryption::default(), Vec::new())),
        Value::Mapping(map) => map,
        _ => return Err(super::invalid(SECTION, value)),
    };
    let keys = section_keys(map, value)?;
    let mut ignored: Vec<String> = keys
        .iter()
        .filter(|key| known::CLIENT_ENCRYPTION_IGNORED.contains(key))
        .filter(|key| !matches!(map.get(**key), Some(Value::Null)))
        .map(|key| format!("{SECTION}.{key}"))
        .collect();

    let mut options = ClientEncryption::default();
    let enabled = flag(map, "enabled")?.unwrap_or(false);
    let optional = flag(map, "optional")?;
    if let Some(keystore) = string(map, "keystore")? {
        options.keystore = PemSource::File(PathBuf::from(keystore));
    }
    if let Some(truststore) = string(map, "truststore")? {
        options.truststore = PemSource::File(PathBuf::from(truststore));
    }
    options.keystore_password = string(map, "keystore_password")?.map(Secret);
    options.client_auth = client_auth(map.get("require_client_auth"))?;
    options.protocols = accepted_protocols(
        string(map, "protocol")?,
        string_list(map, "accepted_protocols")?,
    )?;
    options.cipher_suites = string_list(map, "cipher_suites")?.unwrap_or_default();
    if let Some(factory) = map.get("ssl_context_factory") {
        apply_factory(&mut options, factory, &mut ignored)?;
    }
    options.policy = policy(enabled, optional, &options);
    ignored.sort();
    Ok((options, ignored))
}

/// The section's keys, each a string and a Cassandra setting of the section.
fn section_keys<'m>(map: &'m Mapping, value: &Value) -> Result<Vec<&'m str>, ConfigError> {
    let mut keys = Vec::new();
    for key in map.keys() {
        let Some(key) = key.as_str() else {
            return Err(super::invalid(SECTION, value));
        };
        keys.push(key);
    }
    let unknown: Vec<String> = keys
        .iter()
        .filter(|key| known::CLIENT_ENCRYPTION_OPTIONS.binary_search(key).is_err())
        .map(|key| key.to_string())
        .collect();
    if !unknown.is_empty() {
        return Err(ConfigError::UnknownProperties(unknown));
    }
    Ok(keys)
}

/// `require_client_auth`: a boolean, or `true`, `false` or `optional` as text.
fn client_auth(value: Option<&Value>) -> Result<ClientAuth, ConfigError> {
    Ok(match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => ClientAuth::NotRequested,
        Some(Value::Bool(true)) => ClientAuth::Required,
        Some(Value::String(text)) => match text.to_ascii_lowercase().as_str() {
            "false" => ClientAuth::NotRequested,
            "true" => ClientAuth::Required,
            "optional" => ClientAuth::Optional,
            _ => return Err(option_value("require_client_auth", text.clone())),
        },
        Some(other) => return Err(option_value("require_client_auth", show(other))),
    })
}

/// The policy `enabled` and `optional` ask for (see the module's documentation).
fn policy(enabled: bool, optional: Option<bool>, options: &ClientEncryption) -> TlsPolicy {
    match optional {
        Some(true) => TlsPolicy::Optional,
        Some(false) if enabled => TlsPolicy::Encrypted,
        Some(false) => TlsPolicy::Unencrypted,
        None if enabled => TlsPolicy::Encrypted,
        // Cassandra: "If someone is asking for an _insecure_ connection and not explicitly
        // telling us to refuse encrypted connections AND they have a keystore file, we assume
        // they would like to be able to transition to encrypted connections in the future."
        None if options.keystore.is_present() => TlsPolicy::Optional,
        None => TlsPolicy::Unencrypted,
    }
}

/// The setting `ssl_context_factory` is named by in errors and ignored keys.
const FACTORY_SETTING: &str = "client_encryption_options.ssl_context_factory";

/// The parameters of the PEM factory this server reads.
const PEM_PARAMETERS: [&str; 3] = [
    "private_key",
    "private_key_password",
    "trusted_certificates",
];

/// `ssl_context_factory`: a class name or `{class_name, parameters}`. Cassandra's PEM factory
/// takes `private_key`, `private_key_password` and `trusted_certificates` inline.
fn apply_factory(
    options: &mut ClientEncryption,
    factory: &Value,
    ignored: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let Some((class, parameters)) = factory_class(factory)? else {
        return Ok(());
    };
    let parameters = match parameters {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Mapping(map)) => map,
        Some(other) => return Err(super::invalid(FACTORY_SETTING, other)),
    };
    check_parameter_keys(class, parameters, ignored)?;
    inline_private_key(options, parameters)?;
    inline_key_password(options, parameters)?;
    inline_certificates(options, parameters)
}

/// The factory's class, one this server stands in for, and its parameters; `None` when the
/// setting is null.
fn factory_class(factory: &Value) -> Result<Option<(&str, Option<&Value>)>, ConfigError> {
    let (class, parameters) = match factory {
        Value::Null => return Ok(None),
        Value::String(class) => (class.as_str(), None),
        Value::Mapping(map) => match map.get("class_name") {
            Some(Value::String(class)) => (class.as_str(), map.get("parameters")),
            _ => return Err(super::invalid(FACTORY_SETTING, factory)),
        },
        _ => return Err(super::invalid(FACTORY_SETTING, factory)),
    };
    let short = class.strip_prefix(SECURITY_PACKAGE).unwrap_or(class);
    if !FACTORIES.contains(&short) {
        return Err(ConfigError::Unsupported {
            setting: FACTORY_SETTING,
            value: class.to_string(),
            supported: "PEMBasedSslContextFactory",
        });
    }
    Ok(Some((class, parameters)))
}

/// Refuses parameters that are settings of the section (Cassandra's
/// `EncryptionOptions.prepareSslContextFactoryParameterizedKeys`); notes those other than
/// the PEM ones as ignored.
fn check_parameter_keys(
    class: &str,
    parameters: &Mapping,
    ignored: &mut Vec<String>,
) -> Result<(), ConfigError> {
    for key in parameters.keys() {
        let key = key.as_str().unwrap_or_default();
        if known::CLIENT_ENCRYPTION_OPTIONS.contains(&key.to_ascii_lowercase().as_str()) {
            return Err(ConfigError::Invalid(format!(
                "SslContextFactory {class} should configure '{key}' as encryption_options \
                 instead of parameterized keys"
            )));
        }
        if !PEM_PARAMETERS.contains(&key) {
            ignored.push(format!("{FACTORY_SETTING}.parameters.{key}"));
        }
    }
    Ok(())
}

/// `private_key`: the keystore inline, unless a keystore file is given too.
fn inline_private_key(
    options: &mut ClientEncryption,
    parameters: &Mapping,
) -> Result<(), ConfigError> {
    if let Some(Value::String(key)) = parameters.get("private_key") {
        if !key.trim().is_empty() {
            if options.keystore.is_present() {
                return Err(ConfigError::Invalid(
                    "Configuration must specify value for either keystore or private_key, not \
                     both for PEMBasedSSlContextFactory"
                        .into(),
                ));
            }
            options.keystore = PemSource::Inline(key.clone());
        }
    }
    Ok(())
}

/// `private_key_password`: the keystore's password, unless `keystore_password` differs.
fn inline_key_password(
    options: &mut ClientEncryption,
    parameters: &Mapping,
) -> Result<(), ConfigError> {
    if let Some(Value::String(password)) = parameters.get("private_key_password") {
        if !password.is_empty() {
            match &options.keystore_password {
                Some(Secret(given)) if !given.is_empty() && given != password => {
                    return Err(ConfigError::Invalid(
                        "'keystore_password' and 'key_password' both configurations are given \
                         and the values do not match"
                            .into(),
                    ))
                }
                _ => options.keystore_password = Some(Secret(password.clone())),
            }
        }
    }
    Ok(())
}

/// `trusted_certificates`: the truststore inline, unless a truststore file is given too.
fn inline_certificates(
    options: &mut ClientEncryption,
    parameters: &Mapping,
) -> Result<(), ConfigError> {
    if let Some(Value::String(certificates)) = parameters.get("trusted_certificates") {
        if !certificates.trim().is_empty() {
            if options.truststore.is_present() {
                return Err(ConfigError::Invalid(
                    "Configuration must specify value for either truststore or \
                     trusted_certificates, not both for PEMBasedSSlContextFactory"
                        .into(),
                ));
            }
            options.truststore = PemSource::Inline(certificates.clone());
        }
    }
    Ok(())
}

/// Cassandra's `AbstractSslContextFactory.getAcceptedProtocols` (`protocol` joins
/// `accepted_protocols` unless it is the generic `TLS`), kept to the versions rustls speaks.
///
/// # Errors
/// An unknown protocol name, or only versions older than TLSv1.2.
fn accepted_protocols(
    protocol: Option<String>,
    accepted: Option<Vec<String>>,
) -> Result<Vec<TlsVersion>, ConfigError> {
    let specific = protocol.filter(|p| !p.eq_ignore_ascii_case("TLS"));
    let names = match (accepted, specific) {
        (None, None) => return Ok(Vec::new()),
        (None, Some(protocol)) => vec![protocol],
        (Some(mut list), Some(protocol)) => {
            if !list.iter().any(|p| p.eq_ignore_ascii_case(&protocol)) {
                list.push(protocol);
            }
            list
        }
        (Some(list), None) => list,
    };
    let mut versions = Vec::new();
    for name in &names {
        let version = match name.to_ascii_uppercase().as_str() {
            "TLS" => {
                versions.extend([TlsVersion::Tls13, TlsVersion::Tls12]);
                continue;
            }
            "TLSV1.3" => TlsVersion::Tls13,
            "TLSV1.2" => TlsVersion::Tls12,
            "TLSV1.1" | "TLSV1" | "SSLV3" | "SSLV2HELLO" => continue,
            _ => return Err(option_value("accepted_protocols", name.clone())),
        };
        versions.push(version);
    }
    if versions.is_empty() {
        return Err(ConfigError::Unsupported {
            setting: "client_encryption_options.accepted_protocols",
            value: names.join(", "),
            supported: "TLSv1.2 and TLSv1.3",
        });
    }
    versions.dedup();
    Ok(versions)
}

fn option_value(key: &str, value: String) -> ConfigError {
    ConfigError::Invalid(format!("invalid value for {SECTION}.{key}: {value}"))
}

fn show(value: &Value) -> String {
    serde_norway::to_string(value)
        .unwrap_or_default()
        .trim()
        .replace('\n', " ")
}

fn flag(map: &Mapping, key: &str) -> Result<Option<bool>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(value)) => Ok(Some(*value)),
        Some(other) => Err(option_value(key, show(other))),
    }
}

fn string(map: &Mapping, key: &str) -> Result<Option<String>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(value @ (Value::Number(_) | Value::Bool(_))) => Ok(Some(show(value))),
        Some(other) => Err(option_value(key, show(other))),
    }
}

fn string_list(map: &Mapping, key: &str) -> Result<Option<Vec<String>>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => Ok(text.clone()),
                other => Err(option_value(key, show(other))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        // A single name, or Cassandra's comma-separated form.
        Some(Value::String(text)) => Ok(Some(
            text.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        )),
        Some(other) => Err(option_value(key, show(other))),
    }
}
