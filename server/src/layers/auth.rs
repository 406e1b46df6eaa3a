//! Bearer-token authentication (`--auth-token-file`).
//!
//! Every call must carry `authorization: Bearer <token>` with the server's token, except
//! `grpc.health.v1.Health`: Kubernetes' native gRPC probes cannot send headers, and health says
//! nothing about the jobs. Reflection needs the token like the Orbit service: it is open only to
//! callers who may use the API anyway (grpcurl's `-H` sends the header on reflection calls too).
//! The check is an allow-list of open services, so a service added later is protected by default.
//!
//! A call without the header, with another scheme, or with a wrong token gets UNAUTHENTICATED
//! before it reaches any handler. Tokens are compared in constant time (`subtle`), so response
//! timing does not reveal how much of a guess was right.

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use subtle::ConstantTimeEq;
use tonic::Status;
use tower::{Layer, Service};

use crate::error::ServiceError;

/// gRPC path prefixes (`/package.Service/`) callable without the token.
const OPEN_SERVICES: &[&str] = &["/grpc.health.v1.Health/"];

/// Why the token could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum AuthTokenError {
    /// The file could not be read.
    #[error("cannot read --auth-token-file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The token is empty or has characters an HTTP header cannot carry.
    #[error("--auth-token-file {}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
}

/// The token calls must present. Its `Debug` output does not show it.
#[derive(Clone)]
pub struct BearerToken(Vec<u8>);

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

impl BearerToken {
    /// The file's content with surrounding whitespace (e.g. a final newline) removed.
    ///
    /// # Errors
    /// [`AuthTokenError`] if the file cannot be read, or the token is empty or holds characters
    /// other than visible ASCII (a header value could not carry them).
    pub fn from_file(path: &Path) -> Result<Self, AuthTokenError> {
        let text = std::fs::read_to_string(path).map_err(|source| AuthTokenError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::new(text.trim()).map_err(|reason| AuthTokenError::Invalid {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// A token given directly.
    ///
    /// # Errors
    /// Why the token cannot be used: empty, or not all visible ASCII.
    pub fn new(token: &str) -> Result<Self, String> {
        if token.is_empty() {
            return Err("the token is empty".into());
        }
        if let Some(bad) = token.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(format!(
                "the token may hold only visible ASCII characters, not {bad:?}"
            ));
        }
        Ok(Self(token.as_bytes().to_vec()))
    }

    /// Whether an `authorization` header value presents this token.
    fn admits(&self, authorization: &[u8]) -> bool {
        // The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces follow it.
        const SCHEME: &[u8] = b"bearer ";
        if authorization.len() < SCHEME.len()
            || !authorization[..SCHEME.len()].eq_ignore_ascii_case(SCHEME)
        {
            return false;
        }
        let presented = authorization[SCHEME.len()..].trim_ascii_start();
        // `ct_eq` on slices of different lengths is false at once: the length is not secret.
        self.0.as_slice().ct_eq(presented).into()
    }
}

/// The layer: with no token, calls pass untouched.
#[derive(Debug, Clone, Default)]
pub struct AuthLayer {
    token: Option<Arc<BearerToken>>,
}

impl AuthLayer {
    /// Requires `token` on every call but health checks; `None` turns the check off.
    pub fn new(token: Option<BearerToken>) -> Self {
        Self {
            token: token.map(Arc::new),
        }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Auth {
            inner,
            token: self.token.clone(),
        }
    }
}

/// The service the layer produces.
#[derive(Debug, Clone)]
pub struct Auth<S> {
    inner: S,
    token: Option<Arc<BearerToken>>,
}

impl<S> Auth<S> {
    /// `Err(UNAUTHENTICATED)` if the call needs the token and does not present it.
    fn check<B>(&self, request: &http::Request<B>) -> Result<(), Status> {
        let Some(token) = &self.token else {
            return Ok(());
        };
        let path = request.uri().path();
        if OPEN_SERVICES.iter().any(|open| path.starts_with(open)) {
            return Ok(());
        }
        match request.headers().get(http::header::AUTHORIZATION) {
            None => Err(ServiceError::Unauthenticated { token_sent: false }.into()),
            Some(value) if token.admits(value.as_bytes()) => Ok(()),
            Some(_) => Err(ServiceError::Unauthenticated { token_sent: true }.into()),
        }
    }
}

impl<S, ReqBody, ResBody> Service<http::Request<ReqBody>> for Auth<S>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    ResBody: Default + Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<ReqBody>) -> Self::Future {
        match self.check(&request) {
            Ok(()) => Box::pin(self.inner.call(request)),
            Err(status) => {
                tracing::debug!(
                    path = request.uri().path(),
                    reason = status.message(),
                    "call refused"
                );
                Box::pin(std::future::ready(Ok(status.into_http())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_only_the_token_under_the_bearer_scheme() {
        let token = BearerToken::new("s3cr3t-t0ken").expect("valid token");
        assert!(token.admits(b"Bearer s3cr3t-t0ken"));
        assert!(token.admits(b"bearer s3cr3t-t0ken"));
        assert!(token.admits(b"BEARER   s3cr3t-t0ken"));
        assert!(!token.admits(b"Bearer s3cr3t-t0kem"));
        assert!(!token.admits(b"Bearer s3cr3t-t0ken2"));
        assert!(!token.admits(b"Bearer s3cr3t"));
        assert!(!token.admits(b"Bearer "));
        assert!(!token.admits(b"Basic s3cr3t-t0ken"));
        assert!(!token.admits(b"s3cr3t-t0ken"));
        assert!(!token.admits(b""));
    }

    #[test]
    fn refuses_empty_or_unsendable_tokens() {
        assert!(BearerToken::new("").is_err());
        assert!(BearerToken::new("two words").is_err());
        assert!(BearerToken::new("caf\u{e9}").is_err());
        assert!(BearerToken::new("A-Za-z0-9._~+/=").is_ok());
    }

    #[test]
    fn reads_the_trimmed_file_and_names_it_on_errors() {
        let dir = std::env::temp_dir().join(format!("orbit-auth-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let good = dir.join("token");
        std::fs::write(&good, "  abc123\n").expect("write token");
        let token = BearerToken::from_file(&good).expect("token loads");
        assert!(token.admits(b"Bearer abc123"));
        assert_eq!(format!("{token:?}"), "BearerToken(<redacted>)");

        let empty = dir.join("empty");
        std::fs::write(&empty, "\n \n").expect("write empty");
        let err = BearerToken::from_file(&empty).expect_err("empty refused");
        assert!(err.to_string().contains("empty"), "{err}");
        assert!(err.to_string().contains("--auth-token-file"), "{err}");

        let missing = dir.join("missing");
        let err = BearerToken::from_file(&missing).expect_err("missing refused");
        assert!(
            err.to_string().starts_with("cannot read --auth-token-file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
