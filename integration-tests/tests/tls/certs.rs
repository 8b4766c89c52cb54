//! A throw-away PKI written to a temporary directory: a CA, the server's keystore (key and
//! chain in one PEM file, as Cassandra's PEM keystore holds them), a client certificate the
//! CA signed, and one from a CA the server does not trust.

use std::path::PathBuf;
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

pub(crate) struct Pki {
    pub(crate) dir: tempfile::TempDir,
    /// The server's private key followed by its certificate.
    pub(crate) keystore: PathBuf,
    /// The CA certificate: the server's truststore and the clients' trust anchor.
    pub(crate) ca: PathBuf,
    pub(crate) client_cert: PathBuf,
    pub(crate) client_key: PathBuf,
    /// A certificate and key from a CA the server does not trust.
    pub(crate) rogue_cert: PathBuf,
    pub(crate) rogue_key: PathBuf,
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("CA key")).expect("CA")
}

/// A key and a certificate for `names`, signed by `issuer`.
fn leaf(issuer: &CertifiedIssuer<'static, KeyPair>, names: &[&str], cn: &str) -> (String, String) {
    let key = KeyPair::generate().expect("key");
    let mut params =
        CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .expect("params");
    params.distinguished_name.push(DnType::CommonName, cn);
    let cert = params.signed_by(&key, issuer).expect("certificate");
    (cert.pem(), key.serialize_pem())
}

impl Pki {
    pub(crate) fn new() -> Pki {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).expect("write PEM");
            path
        };
        let ca_issuer = ca("test CA");
        let (server_cert, server_key) = leaf(&ca_issuer, &["localhost", "127.0.0.1"], "server");
        let (client_cert, client_key) = leaf(&ca_issuer, &[], "client");
        let rogue_issuer = ca("rogue CA");
        let (rogue_cert, rogue_key) = leaf(&rogue_issuer, &[], "rogue");
        Pki {
            keystore: write("keystore.pem", &format!("{server_key}{server_cert}")),
            ca: write("ca.pem", &ca_issuer.pem()),
            client_cert: write("client-cert.pem", &client_cert),
            client_key: write("client-key.pem", &client_key),
            rogue_cert: write("rogue-cert.pem", &rogue_cert),
            rogue_key: write("rogue-key.pem", &rogue_key),
            dir,
        }
    }

    fn roots(&self) -> rustls::RootCertStore {
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(&self.ca).expect("CA file") {
            roots.add(cert.expect("CA PEM")).expect("CA certificate");
        }
        roots
    }

    fn builder(
        &self,
    ) -> rustls::ConfigBuilder<rustls::ClientConfig, rustls::client::WantsClientCert> {
        // Both providers are compiled into the tests (the driver's rustls asks for aws-lc),
        // so the provider is named rather than taken from the process default.
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(self.roots())
    }

    /// A client that trusts the CA and presents no certificate.
    pub(crate) fn client(&self) -> Arc<rustls::ClientConfig> {
        Arc::new(self.builder().with_no_client_auth())
    }

    /// A client that trusts the CA and presents the CA-signed client certificate.
    pub(crate) fn client_with_certificate(&self) -> Arc<rustls::ClientConfig> {
        self.client_presenting(&self.client_cert, &self.client_key)
    }

    /// A client presenting a certificate from a CA the server does not trust.
    pub(crate) fn rogue_client(&self) -> Arc<rustls::ClientConfig> {
        self.client_presenting(&self.rogue_cert, &self.rogue_key)
    }

    fn client_presenting(&self, cert: &PathBuf, key: &PathBuf) -> Arc<rustls::ClientConfig> {
        let chain = CertificateDer::pem_file_iter(cert)
            .expect("cert file")
            .collect::<Result<Vec<_>, _>>()
            .expect("cert PEM");
        let key = PrivateKeyDer::from_pem_file(key).expect("key PEM");
        Arc::new(
            self.builder()
                .with_client_auth_cert(chain, key)
                .expect("client certificate"),
        )
    }
}
