//! The security settings of `cassandra.yaml`: the authenticator and authorizer classes, and the encryption options this server does not implement yet, refused with Cassandra's messages.

use super::*;

/// Refuses security settings that ask for what this server does not implement yet.
pub(super) fn check_security(
    others: &BTreeMap<String, serde_norway::Value>,
) -> Result<(), ConfigError> {
    for (setting, supported) in SECURITY_CLASSES {
        if let Some(value) = others.get(setting) {
            check_class(setting, value, supported)?;
        }
    }
    for (setting, flags) in SECURITY_ENCRYPTION {
        if let Some(value) = others.get(setting) {
            check_encryption_off(setting, value, flags)?;
        }
    }
    Ok(())
}

/// The short class name a class-valued setting names (`PasswordAuthenticator`, its full
/// name, or `{class_name: ...}`); `None` when unset (null: Cassandra's default).
pub(super) fn class_name<'a>(
    setting: &'static str,
    value: &'a serde_norway::Value,
) -> Result<Option<&'a str>, ConfigError> {
    let class = match value {
        serde_norway::Value::Null => return Ok(None),
        serde_norway::Value::String(class) => class.as_str(),
        serde_norway::Value::Mapping(map) => match map.get("class_name") {
            Some(serde_norway::Value::String(class)) => class.as_str(),
            _ => return Err(invalid(setting, value)),
        },
        _ => return Err(invalid(setting, value)),
    };
    Ok(Some(class.strip_prefix(AUTH_PACKAGE).unwrap_or(class)))
}

/// The choice a class-valued setting names among `choices` (short class name, value); the
/// first choice, Cassandra's default, when unset.
pub(super) fn choose<T: Copy>(
    setting: &'static str,
    value: &serde_norway::Value,
    choices: [(&'static str, T); 2],
    supported: &'static str,
) -> Result<T, ConfigError> {
    let Some(class) = class_name(setting, value)? else {
        return Ok(choices[0].1);
    };
    match choices.iter().find(|(name, _)| *name == class) {
        Some((_, chosen)) => Ok(*chosen),
        None => Err(ConfigError::Unsupported {
            setting,
            value: class.to_string(),
            supported,
        }),
    }
}

/// `authenticator`: `AllowAllAuthenticator` or `PasswordAuthenticator`.
pub(super) fn authenticator(value: &serde_norway::Value) -> Result<Authenticator, ConfigError> {
    let choices = [
        ("AllowAllAuthenticator", Authenticator::AllowAll),
        ("PasswordAuthenticator", Authenticator::Password),
    ];
    let supported = "AllowAllAuthenticator or PasswordAuthenticator";
    choose("authenticator", value, choices, supported)
}

/// `authorizer`: `AllowAllAuthorizer` or `CassandraAuthorizer`.
pub(super) fn authorizer(value: &serde_norway::Value) -> Result<Authorizer, ConfigError> {
    let choices = [
        ("AllowAllAuthorizer", Authorizer::AllowAll),
        ("CassandraAuthorizer", Authorizer::Cassandra),
    ];
    choose(
        "authorizer",
        value,
        choices,
        "AllowAllAuthorizer or CassandraAuthorizer",
    )
}

/// A class-valued setting must name `supported`; unset (null) means Cassandra's default,
/// which is `supported`.
pub(super) fn check_class(
    setting: &'static str,
    value: &serde_norway::Value,
    supported: &'static str,
) -> Result<(), ConfigError> {
    let Some(short) = class_name(setting, value)? else {
        return Ok(());
    };
    let class = short;
    if short == supported {
        Ok(())
    } else {
        Err(ConfigError::Unsupported {
            setting,
            value: class.to_string(),
            supported,
        })
    }
}

/// An encryption options map must leave every flag of `flags` false or unset.
pub(super) fn check_encryption_off(
    setting: &'static str,
    value: &serde_norway::Value,
    flags: &[&str],
) -> Result<(), ConfigError> {
    let map = match value {
        serde_norway::Value::Null => return Ok(()),
        serde_norway::Value::Mapping(map) => map,
        _ => return Err(invalid(setting, value)),
    };
    for flag in flags {
        match map.get(*flag) {
            None | Some(serde_norway::Value::Null) | Some(serde_norway::Value::Bool(false)) => {}
            Some(serde_norway::Value::Bool(true)) => {
                return Err(ConfigError::Unsupported {
                    setting,
                    value: format!("{{{flag}: true}}"),
                    supported: "enabled: false",
                })
            }
            Some(_) => return Err(invalid(setting, value)),
        }
    }
    Ok(())
}
