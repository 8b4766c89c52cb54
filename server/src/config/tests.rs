//! Unit tests of `config`.

use super::yaml::YamlSettings;
use super::*;
use std::path::Path;

#[test]
fn yaml_uses_cassandra_names() {
    let yaml = "cluster_name: Prod\nnative_transport_port: 9142\ncommitlog_sync: batch\n\
                commitlog_sync_period: 2s\nnative_transport_max_frame_size: 8MiB\n\
                data_file_directories:\n  - /tmp/x\n";
    let settings: YamlSettings = serde_norway::from_str(yaml).unwrap();
    let mut config = Config::default();
    config.apply(settings).unwrap();
    assert_eq!(config.cluster_name, "Prod");
    assert_eq!(config.port, 9142);
    assert_eq!(config.commitlog_sync, SyncMode::Batch);
    assert_eq!(config.commitlog_sync_period, Duration::from_secs(2));
    assert_eq!(config.max_frame_size, 8 * 1024 * 1024);
    assert_eq!(config.data_dir, Some(PathBuf::from("/tmp/x")));
}

#[test]
fn memtable_heap_space_sizes_the_memtable_the_store_flushes_at_half() {
    assert_eq!(
        Config::default().store_options().unwrap().memtable_size,
        32 << 20
    );
    for yaml in [
        "memtable_heap_space: 32MiB\n",
        "memtable_heap_space_in_mb: 32\n",
    ] {
        let settings: YamlSettings = serde_norway::from_str(yaml).unwrap();
        let mut config = Config::default();
        config.apply(settings).unwrap();
        assert_eq!(config.memtable_heap_space, 32 << 20);
        assert_eq!(config.store_options().unwrap().memtable_size, 16 << 20);
    }
    let settings: YamlSettings = serde_norway::from_str("memtable_heap_space: 0MiB\n").unwrap();
    let mut config = Config::default();
    config.apply(settings).unwrap();
    assert_eq!(config.store_options().unwrap().memtable_size, 1 << 20);
}

#[test]
fn write_guardrails_take_cassandra_sizes() {
    let yaml = "column_value_size_warn_threshold: 1KiB\ncollection_size_fail_threshold: 2MiB\n\
                items_per_collection_warn_threshold: 100\n";
    let settings: YamlSettings = serde_norway::from_str(yaml).unwrap();
    let mut config = Config::default();
    config.apply(settings).unwrap();
    assert_eq!(
        config.column_value_size,
        Threshold {
            warn: 1024,
            fail: -1
        }
    );
    assert_eq!(
        config.collection_size,
        Threshold {
            warn: -1,
            fail: 2 << 20
        }
    );
    assert_eq!(config.items_per_collection.warn, 100);
    let bad = "column_value_size_fail_threshold: lots\n";
    let settings: YamlSettings = serde_norway::from_str(bad).unwrap();
    assert!(Config::default().apply(settings).is_err());
}

/// Applies `yaml` over the defaults as a file would be.
fn apply_text(yaml: &str) -> Result<Vec<String>, ConfigError> {
    Config::default().apply_yaml_text(yaml, Path::new("cassandra.yaml"))
}

#[test]
fn read_thresholds_take_cassandras_tombstone_names_and_our_filtering_names() {
    assert_eq!(Config::default().read_thresholds, ReadThresholds::default());
    let yaml = "tombstone_warn_threshold: 10\ntombstone_failure_threshold: -1\n\
                filtering_examined_warn_ratio: 5\nfiltering_examined_warn_min_rows: 20\n";
    let mut config = Config::default();
    let ignored = config
        .apply_yaml_text(yaml, Path::new("cassandra.yaml"))
        .expect("applied");
    assert!(ignored.is_empty(), "{ignored:?}");
    assert_eq!(
        config.read_thresholds,
        ReadThresholds {
            tombstone_warn: 10,
            tombstone_failure: -1,
            filtering_ratio: 5,
            filtering_min_rows: 20,
        }
    );
}

#[test]
fn known_settings_are_sorted_and_unique() {
    let settings = known::CASSANDRA_SETTINGS;
    assert!(settings.windows(2).all(|pair| pair[0] < pair[1]));
}

#[test]
fn unknown_key_is_refused_with_cassandras_message() {
    let err = apply_text("native_transport_prot: 19144\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid yaml. Please remove properties [native_transport_prot] from your cassandra.yaml"
    );
}

#[test]
fn every_unknown_key_is_named() {
    let yaml = "cluster_name: Prod\nzz_typo: 1\nnative_transport_prot: 19144\nnum_tokens: 16\n";
    let err = apply_text(yaml).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid yaml. Please remove properties [native_transport_prot, zz_typo] from your cassandra.yaml"
    );
}

#[test]
fn cassandra_settings_not_acted_on_are_accepted_and_reported() {
    let yaml = "num_tokens: 16\nhints_directory: /var/lib/cassandra/hints\n\
                concurrent_reads: 32\nendpoint_snitch: SimpleSnitch\n\
                max_hint_window_in_ms: 10800000\nnative_transport_port: 9142\n\
                seed_provider:\n  - class_name: org.apache.cassandra.locator.SimpleSeedProvider\n\
                \x20   parameters:\n      - seeds: \"127.0.0.1:7000\"\n";
    let mut config = Config::default();
    let ignored = config
        .apply_yaml_text(yaml, Path::new("cassandra.yaml"))
        .unwrap();
    assert_eq!(
        ignored,
        [
            "concurrent_reads",
            "endpoint_snitch",
            "hints_directory",
            "max_hint_window_in_ms",
            "num_tokens",
            "seed_provider"
        ]
    );
    assert_eq!(config.port, 9142);
}

#[test]
fn empty_file_sets_nothing() {
    assert_eq!(apply_text("").unwrap(), Vec::<String>::new());
    assert_eq!(
        apply_text("# only a comment\n").unwrap(),
        Vec::<String>::new()
    );
}

#[test]
fn password_authenticator_is_taken_and_others_refused() {
    for yaml in [
        "authenticator: PasswordAuthenticator\n",
        "authenticator: org.apache.cassandra.auth.PasswordAuthenticator\n",
        "authenticator:\n  class_name: PasswordAuthenticator\n",
    ] {
        let mut config = Config::default();
        config
            .apply_yaml_text(yaml, Path::new("c.yaml"))
            .unwrap_or_else(|e| panic!("{yaml}: {e}"));
        assert_eq!(config.authenticator, Authenticator::Password, "{yaml}");
    }
    let err = apply_text("authenticator: com.example.LdapAuthenticator\n").unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Unsupported {
                setting: "authenticator",
                ..
            }
        ),
        "{err:?}"
    );
    let mut config = Config::default();
    config
        .apply_yaml_text(
            "authenticator: PasswordAuthenticator\nauthorizer: CassandraAuthorizer\n",
            Path::new("c.yaml"),
        )
        .expect("PasswordAuthenticator with CassandraAuthorizer");
    assert_eq!(config.authorizer, Authorizer::Cassandra);
    let err = apply_text("authorizer: CassandraAuthorizer\n").unwrap_err();
    assert!(
        err.to_string()
            .contains("AllowAllAuthenticator can't be used with CassandraAuthorizer"),
        "{err}"
    );
    assert!(matches!(
        err,
        ConfigError::Unsupported {
            setting: "authorizer",
            ..
        }
    ));
}

#[test]
fn security_settings_that_mean_off_are_accepted() {
    let yaml = "authenticator:\n  class_name: AllowAllAuthenticator\n\
                authorizer: org.apache.cassandra.auth.AllowAllAuthorizer\n\
                role_manager:\n  class_name: CassandraRoleManager\n  parameters: {}\n\
                network_authorizer: AllowAllNetworkAuthorizer\n\
                cidr_authorizer:\n  class_name: AllowAllCIDRAuthorizer\n\
                transparent_data_encryption_options:\n  enabled: false\n";
    assert_eq!(apply_text(yaml).unwrap(), Vec::<String>::new());
}

#[test]
fn client_encryption_enabled_reads_the_pem_settings() {
    let yaml = "client_encryption_options:\n  enabled: true\n  keystore: conf/node.pem\n\
                \x20 keystore_password: secret\n  require_client_auth: true\n\
                \x20 truststore: conf/ca.pem\n  truststore_password: cassandra\n\
                \x20 store_type: JKS\n  algorithm: SunX509\n  protocol: TLS\n\
                num_tokens: 16\n";
    let mut config = Config::default();
    let ignored = config
        .apply_yaml_text(yaml, Path::new("cassandra.yaml"))
        .unwrap();
    assert_eq!(
        ignored,
        [
            "client_encryption_options.algorithm",
            "client_encryption_options.store_type",
            "client_encryption_options.truststore_password",
            "num_tokens"
        ]
    );
    let tls = &config.client_encryption;
    assert_eq!(tls.policy, TlsPolicy::Encrypted);
    assert_eq!(tls.policy_name(), "on");
    assert_eq!(
        tls.keystore,
        PemSource::File(PathBuf::from("conf/node.pem"))
    );
    assert_eq!(tls.keystore_password, Some(Secret("secret".into())));
    assert_eq!(
        tls.truststore,
        PemSource::File(PathBuf::from("conf/ca.pem"))
    );
    assert_eq!(tls.client_auth, ClientAuth::Required);
    assert_eq!(tls.client_auth_name(), "required");
    // `protocol: TLS` is Cassandra's "any version": rustls's defaults.
    assert_eq!(tls.protocols, []);
    // The password never shows in the configuration's Debug output.
    assert!(!format!("{config:?}").contains("secret"));
}

/// The client encryption settings `yaml` asks for.
fn encryption(yaml: &str) -> Result<ClientEncryption, ConfigError> {
    let mut config = Config::default();
    config.apply_yaml_text(yaml, Path::new("cassandra.yaml"))?;
    Ok(config.client_encryption)
}

#[test]
fn client_encryption_policy_follows_cassandra() {
    let policy = |yaml: &str| encryption(yaml).unwrap().policy;
    assert_eq!(policy(""), TlsPolicy::Unencrypted);
    assert_eq!(
        policy("client_encryption_options: {enabled: false, keystore: /nonexistent.pem}\n"),
        TlsPolicy::Unencrypted
    );
    assert_eq!(
        policy("client_encryption_options: {optional: true, keystore: k.pem}\n"),
        TlsPolicy::Optional
    );
    assert_eq!(
        policy("client_encryption_options: {enabled: true, optional: true}\n"),
        TlsPolicy::Optional
    );
    assert_eq!(
        policy("client_encryption_options: {enabled: true, optional: false}\n"),
        TlsPolicy::Encrypted
    );
    // Disabled, `optional` unset and a keystore that exists: Cassandra accepts TLS on the
    // side, to let clients move to it.
    let keystore = tempfile::NamedTempFile::new().unwrap();
    let yaml = format!(
        "client_encryption_options:\n  enabled: false\n  keystore: {}\n",
        keystore.path().display()
    );
    let options = encryption(&yaml).unwrap();
    assert_eq!(options.policy, TlsPolicy::Optional);
    assert_eq!(options.policy_name(), "optional");
    assert_eq!(options.client_auth_name(), "not requested");
    let explicit = format!("{yaml}  optional: false\n");
    assert_eq!(
        encryption(&explicit).unwrap().policy,
        TlsPolicy::Unencrypted
    );
}

#[test]
fn client_auth_and_protocols() {
    let auth = |value: &str| {
        encryption(&format!(
            "client_encryption_options: {{enabled: true, require_client_auth: {value}}}\n"
        ))
        .map(|options| options.client_auth)
    };
    assert_eq!(auth("false").unwrap(), ClientAuth::NotRequested);
    assert_eq!(auth("true").unwrap(), ClientAuth::Required);
    assert_eq!(auth("\"true\"").unwrap(), ClientAuth::Required);
    assert_eq!(auth("optional").unwrap(), ClientAuth::Optional);
    assert_eq!(
        auth("sometimes").unwrap_err().to_string(),
        "invalid value for client_encryption_options.require_client_auth: sometimes"
    );
    let protocols = |settings: &str| {
        encryption(&format!(
            "client_encryption_options: {{enabled: true, {settings}}}\n"
        ))
        .map(|options| options.protocols)
    };
    assert_eq!(protocols("protocol: TLS").unwrap(), []);
    assert_eq!(protocols("protocol: TLSv1.2").unwrap(), [TlsVersion::Tls12]);
    assert_eq!(
        protocols("accepted_protocols: [TLSv1.1, TLSv1.3], protocol: TLSv1.2").unwrap(),
        [TlsVersion::Tls13, TlsVersion::Tls12]
    );
    assert_eq!(
        protocols("accepted_protocols: [TLSv1, TLSv1.1]")
            .unwrap_err()
            .to_string(),
        "client_encryption_options.accepted_protocols: TLSv1, TLSv1.1 is not supported yet \
         (this server runs with TLSv1.2 and TLSv1.3 only); refusing to start without the \
         security it asks for"
    );
    assert!(protocols("protocol: TLSv9").is_err());
    let suites = encryption(
        "client_encryption_options: {enabled: true, cipher_suites: [TLS_AES_128_GCM_SHA256]}\n",
    )
    .unwrap()
    .cipher_suites;
    assert_eq!(suites, ["TLS_AES_128_GCM_SHA256"]);
}

#[test]
fn client_encryption_typos_and_bad_values_are_refused() {
    assert_eq!(
        encryption("client_encryption_options: {enabled: true, keystroe: k.pem}\n")
            .unwrap_err()
            .to_string(),
        "Invalid yaml. Please remove properties [keystroe] from your cassandra.yaml"
    );
    assert_eq!(
        encryption("client_encryption_options: {enabled: maybe}\n")
            .unwrap_err()
            .to_string(),
        "invalid value for client_encryption_options.enabled: maybe"
    );
    assert!(matches!(
        encryption("client_encryption_options: yes\n"),
        Err(ConfigError::Value { .. })
    ));
}

#[test]
fn pem_context_factory_takes_inline_material() {
    let yaml = "client_encryption_options:\n  enabled: true\n  keystore: /nonexistent.pem\n\
                \x20 ssl_context_factory:\n\
                \x20   class_name: org.apache.cassandra.security.PEMBasedSslContextFactory\n\
                \x20   parameters:\n\
                \x20     private_key: \"-----BEGIN PRIVATE KEY-----\"\n\
                \x20     private_key_password: pw\n\
                \x20     trusted_certificates: \"-----BEGIN CERTIFICATE-----\"\n";
    let options = encryption(yaml).unwrap();
    assert_eq!(
        options.keystore,
        PemSource::Inline("-----BEGIN PRIVATE KEY-----".into())
    );
    assert_eq!(options.keystore_password, Some(Secret("pw".into())));
    assert_eq!(
        options.truststore,
        PemSource::Inline("-----BEGIN CERTIFICATE-----".into())
    );
    let mismatch = yaml.replace(
        "  enabled: true\n",
        "  enabled: true\n  keystore_password: other\n",
    );
    assert_eq!(
        encryption(&mismatch).unwrap_err().to_string(),
        "'keystore_password' and 'key_password' both configurations are given and the \
         values do not match"
    );
    let parameterized = "client_encryption_options:\n  enabled: true\n\
                         \x20 ssl_context_factory:\n    class_name: PEMBasedSslContextFactory\n\
                         \x20   parameters: {keystore: k.pem}\n";
    assert_eq!(
        encryption(parameterized).unwrap_err().to_string(),
        "SslContextFactory PEMBasedSslContextFactory should configure 'keystore' as \
         encryption_options instead of parameterized keys"
    );
    let other = "client_encryption_options:\n  enabled: true\n\
                 \x20 ssl_context_factory: {class_name: com.example.KmsSslContextFactory}\n";
    assert!(matches!(
        encryption(other),
        Err(ConfigError::Unsupported {
            setting: "client_encryption_options.ssl_context_factory",
            ..
        })
    ));
}

#[test]
fn client_encryption_disabled_is_accepted() {
    let yaml = "client_encryption_options:\n  enabled: false\n  keystore: conf/.keystore\n";
    assert_eq!(apply_text(yaml).unwrap(), Vec::<String>::new());
    assert!(matches!(
        apply_text("client_encryption_options: yes\n"),
        Err(ConfigError::Value { .. })
    ));
}

#[test]
fn bad_values_are_reported() {
    let settings: YamlSettings = serde_norway::from_str("commitlog_sync: sometimes").unwrap();
    assert!(Config::default().apply(settings).is_err());
    assert_eq!(parse_duration("10000ms"), Some(Duration::from_secs(10)));
    assert_eq!(parse_size("16MiB"), Some(16 << 20));
}

#[test]
fn in_memory_drops_the_data_directory_and_refuses_one_beside_it() {
    let on_disk = || Config {
        data_dir: Some(PathBuf::from("data")),
        ..Config::default()
    };
    let path = Path::new("cassandra.yaml");
    let mut config = on_disk();
    assert_eq!(
        config.apply_yaml_text("in_memory: true\n", path).unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(config.data_dir, None);
    let mut config = on_disk();
    config.apply_yaml_text("in_memory: false\n", path).unwrap();
    assert_eq!(config.data_dir, Some(PathBuf::from("data")));
    let both = "in_memory: true\ndata_file_directories:\n  - /tmp/x\n";
    let err = on_disk().apply_yaml_text(both, path).unwrap_err();
    assert_eq!(
        err.to_string(),
        "in_memory: true keeps no data; remove data_file_directories"
    );
}

#[test]
fn metrics_address_is_a_host_and_port() {
    let mut config = Config::default();
    let path = Path::new("cassandra.yaml");
    config
        .apply_yaml_text("metrics_address: 127.0.0.1:9180\n", path)
        .unwrap();
    assert_eq!(config.http_address, Some("127.0.0.1:9180".parse().unwrap()));
    let err = config
        .apply_yaml_text("metrics_address: localhost\n", path)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value for metrics_address: localhost"
    );
}

#[test]
fn asking_for_user_defined_functions_is_remembered_not_ignored() {
    for (yaml, requested) in [
        ("user_defined_functions_enabled: true\n", true),
        ("enable_user_defined_functions: true\n", true),
        ("user_defined_functions_enabled: false\n", false),
        ("num_tokens: 16\n", false),
    ] {
        let mut config = Config::default();
        let ignored = config
            .apply_yaml_text(yaml, Path::new("cassandra.yaml"))
            .unwrap();
        assert_eq!(config.user_defined_functions_requested, requested, "{yaml}");
        assert!(
            ignored.iter().all(|name| !name.contains("user_defined")),
            "{yaml}: {ignored:?}"
        );
    }
}

#[test]
fn strict_consistency_is_ours_and_off_by_default() {
    assert!(!Config::default().strict_consistency);
    let mut config = Config::default();
    let ignored = config
        .apply_yaml_text("strict_consistency: true\n", Path::new("cassandra.yaml"))
        .expect("applied");
    assert!(ignored.is_empty(), "{ignored:?}");
    assert!(config.strict_consistency);
    let mut config = Config::default();
    config
        .apply_yaml_text("strict_consistency: false\n", Path::new("cassandra.yaml"))
        .expect("applied");
    assert!(!config.strict_consistency);
    assert!(apply_text("strict_consistency: sometimes\n").is_err());
}
