//! TLS for the gRPC port (rustls, through tonic): the certificate chain and private key from PEM
//! files, checked here so a wrong file is reported by name before the server starts.

use std::path::{Path, PathBuf};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tonic::transport::{Identity, ServerTlsConfig};

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    /// Only one of the two files was given.
    #[error("--tls-cert and --tls-key go together: {given} was given without {missing}")]
    Unpaired {
        given: &'static str,
        missing: &'static str,
    },
    /// A file could not be read.
    #[error("cannot read {flag} {}: {source}", path.display())]
    Read {
        flag: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file holds no usable PEM section of the expected type.
    #[error("{flag} {}: no PEM {expected} in it ({reason})", path.display())]
    NotPem {
        flag: &'static str,
        path: PathBuf,
        expected: &'static str,
        reason: String,
    },
}

/// The TLS settings for `--tls-cert`/`--tls-key`: `None` when neither is given (plaintext).
///
/// # Errors
/// [`TlsSetupError`] if only one is given, a file cannot be read, or it holds no certificate /
/// private key in PEM form.
pub fn server_tls_config(
    cert: Option<&Path>,
    key: Option<&Path>,
) -> Result<Option<ServerTlsConfig>, TlsSetupError> {
    let (cert, key) = match (cert, key) {
        (None, None) => return Ok(None),
        (Some(_), None) => {
            return Err(TlsSetupError::Unpaired {
                given: "--tls-cert",
                missing: "--tls-key",
            });
        }
        (None, Some(_)) => {
            return Err(TlsSetupError::Unpaired {
                given: "--tls-key",
                missing: "--tls-cert",
            });
        }
        (Some(cert), Some(key)) => (cert, key),
    };
    let cert_pem = read("--tls-cert", cert)?;
    let key_pem = read("--tls-key", key)?;
    let not_pem = |flag, path: &Path, expected, reason: String| TlsSetupError::NotPem {
        flag,
        path: path.to_path_buf(),
        expected,
        reason,
    };
    let first_cert = CertificateDer::pem_slice_iter(&cert_pem).next();
    match first_cert {
        Some(Ok(_)) => {}
        Some(Err(e)) => return Err(not_pem("--tls-cert", cert, "certificate", e.to_string())),
        None => {
            return Err(not_pem(
                "--tls-cert",
                cert,
                "certificate",
                "no BEGIN CERTIFICATE section".into(),
            ));
        }
    }
    PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| not_pem("--tls-key", key, "private key", e.to_string()))?;
    Ok(Some(
        ServerTlsConfig::new().identity(Identity::from_pem(cert_pem, key_pem)),
    ))
}

fn read(flag: &'static str, path: &Path) -> Result<Vec<u8>, TlsSetupError> {
    std::fs::read(path).map_err(|source| TlsSetupError::Read {
        flag,
        path: path.to_path_buf(),
        source,
    })
}
