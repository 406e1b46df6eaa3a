//! The client half of bearer-token authentication: a tonic interceptor adding
//! `authorization: Bearer <token>` to every call (a server started with `--auth-token-file`
//! answers UNAUTHENTICATED without it).

use std::fmt;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// Adds the `authorization` header to each request; with no token it adds nothing.
#[derive(Clone, Default)]
pub struct BearerAuth {
    header: Option<MetadataValue<Ascii>>,
}

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = if self.header.is_some() {
            "Some(<redacted>)"
        } else {
            "None"
        };
        write!(f, "BearerAuth {{ header: {shown} }}")
    }
}

impl BearerAuth {
    /// An interceptor sending `token`, or nothing for `None`.
    ///
    /// # Errors
    /// Why `token` cannot be sent: empty, or not all visible ASCII.
    pub fn new(token: Option<&str>) -> Result<Self, String> {
        let Some(token) = token else {
            return Ok(Self::default());
        };
        if token.is_empty() {
            return Err("the token is empty".into());
        }
        if let Some(bad) = token.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(format!(
                "the token may hold only visible ASCII characters, not {bad:?}"
            ));
        }
        let mut header = MetadataValue::try_from(format!("Bearer {token}"))
            .map_err(|e| format!("the token cannot be a header value: {e}"))?;
        // Keeps it out of debug output of the request.
        header.set_sensitive(true);
        Ok(Self {
            header: Some(header),
        })
    }
}

impl Interceptor for BearerAuth {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(header) = &self.header {
            request
                .metadata_mut()
                .insert("authorization", header.clone());
        }
        Ok(request)
    }
}
