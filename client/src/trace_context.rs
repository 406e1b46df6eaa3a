//! W3C Trace Context for Orbit calls: the `traceparent` (and `tracestate`) request headers that
//! make the server's spans part of the caller's trace.
//!
//! A [`TraceContext`] is the caller's side of it: the trace id, the id of the caller's span that
//! the server's spans become children of (the `parent-id` of the W3C `traceparent` header), the
//! sampled flag, and the opaque vendor `tracestate`. Give one in
//! [`ConnectOptions::trace_context`](crate::ConnectOptions::trace_context), or per operation with
//! [`Client::with_trace_context`](crate::Client::with_trace_context), and every call sends it
//! ([`TracePropagation`]). A request that already carries a `traceparent` (set on a
//! `tonic::Request` through [`Client::raw`](crate::Client::raw)) keeps its own.
//!
//! Without one nothing is sent, and a server that exports traces starts a new trace per call.
//! Only version `00` of the header is written; later versions are read as the standard says (the
//! first four fields, when the rest is separated by a dash).
//!
//! ```
//! use orbit_client::trace_context::TraceContext;
//! let caller: TraceContext = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".parse()?;
//! assert_eq!(caller.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
//! // A span of our own in the caller's trace: same trace, new parent id for the server.
//! let ours = caller.child();
//! assert_eq!(ours.trace_id(), caller.trace_id());
//! assert_ne!(ours.parent_id(), caller.parent_id());
//! # Ok::<(), orbit_client::trace_context::TraceContextError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// The `traceparent` header's name (W3C Trace Context).
pub const TRACEPARENT: &str = "traceparent";
/// The `tracestate` header's name (W3C Trace Context).
pub const TRACESTATE: &str = "tracestate";

/// The longest `tracestate` passed on: the standard asks that at least 512 characters be
/// propagated, and lets longer values be cut; this client drops them instead of cutting.
const MAX_TRACESTATE_LEN: usize = 512;

/// Why a `traceparent` value was refused (W3C Trace Context, "traceparent Header" section).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid traceparent `{value}`: {reason}")]
pub struct TraceContextError {
    /// The value given.
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// A caller's trace context, sent as `traceparent` (and `tracestate`) on each call.
#[derive(Clone, PartialEq, Eq)]
pub struct TraceContext {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
    tracestate: Option<String>,
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceContext")
            .field("traceparent", &self.traceparent())
            .field("tracestate", &self.tracestate)
            .finish()
    }
}

/// The W3C `traceparent` form, version `00`.
impl fmt::Display for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{:02x}",
            hex(&self.trace_id),
            hex(&self.parent_id),
            self.flags
        )
    }
}

impl FromStr for TraceContext {
    type Err = TraceContextError;

    /// Parses a `traceparent` value (surrounding whitespace ignored).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let value = text.trim();
        let refuse = |reason| TraceContextError {
            value: text.to_string(),
            reason,
        };
        // version "-" trace-id "-" parent-id "-" trace-flags: 2 + 1 + 32 + 1 + 16 + 1 + 2.
        const LEN_00: usize = 55;
        let bytes = value.as_bytes();
        if bytes.len() < LEN_00 {
            return Err(refuse("shorter than version-traceid-parentid-flags"));
        }
        let version = lower_hex::<1>(&bytes[0..2]).ok_or_else(|| refuse("version is not hex"))?[0];
        if version == 0xff {
            return Err(refuse("version ff is forbidden"));
        }
        // Version 00 is exactly the four fields; a later version may append fields after a dash.
        if (version == 0 && bytes.len() != LEN_00)
            || (bytes.len() > LEN_00 && bytes[LEN_00] != b'-')
        {
            return Err(refuse("unexpected characters after the flags"));
        }
        if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return Err(refuse("fields are not separated by dashes"));
        }
        let trace_id = lower_hex::<16>(&bytes[3..35])
            .ok_or_else(|| refuse("trace-id is not 32 lowercase hex digits"))?;
        let parent_id = lower_hex::<8>(&bytes[36..52])
            .ok_or_else(|| refuse("parent-id is not 16 lowercase hex digits"))?;
        let flags = lower_hex::<1>(&bytes[53..55])
            .ok_or_else(|| refuse("trace-flags is not 2 lowercase hex digits"))?[0];
        Self::from_parts(trace_id, parent_id, flags & SAMPLED != 0).map_err(|e| refuse(e.reason))
    }
}

/// The `sampled` bit of trace-flags.
const SAMPLED: u8 = 0x01;

impl TraceContext {
    /// A new trace: random trace and parent ids, sampled.
    pub fn new_root() -> Self {
        Self {
            trace_id: random_nonzero(),
            parent_id: random_nonzero(),
            flags: SAMPLED,
            tracestate: None,
        }
    }

    /// A context from its ids, e.g. those of a span of the caller's own tracing library.
    ///
    /// # Errors
    /// If either id is all zeros, which the standard reserves for "invalid".
    pub fn from_parts(
        trace_id: [u8; 16],
        parent_id: [u8; 8],
        sampled: bool,
    ) -> Result<Self, TraceContextError> {
        let refuse = |reason| TraceContextError {
            value: format!("00-{}-{}", hex(&trace_id), hex(&parent_id)),
            reason,
        };
        if trace_id == [0; 16] {
            return Err(refuse("trace-id is all zeros"));
        }
        if parent_id == [0; 8] {
            return Err(refuse("parent-id is all zeros"));
        }
        Ok(Self {
            trace_id,
            parent_id,
            flags: if sampled { SAMPLED } else { 0 },
            tracestate: None,
        })
    }

    /// The same context with `tracestate` (vendor data, passed on untouched). A value that an
    /// HTTP header cannot carry, or longer than 512 characters, is left out, as the standard
    /// allows.
    #[must_use]
    pub fn with_tracestate(mut self, tracestate: &str) -> Self {
        let tracestate = tracestate.trim();
        let usable = !tracestate.is_empty()
            && tracestate.len() <= MAX_TRACESTATE_LEN
            && tracestate
                .bytes()
                .all(|b| b == b' ' || b.is_ascii_graphic());
        self.tracestate = usable.then(|| tracestate.to_string());
        self
    }

    /// A new span in the same trace: the same trace id, flags and `tracestate`, a new random
    /// parent id. What a program that received this context sends on for its own work.
    #[must_use]
    pub fn child(&self) -> Self {
        Self {
            parent_id: random_nonzero(),
            ..self.clone()
        }
    }

    /// The trace id.
    pub fn trace_id(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The trace id in lowercase hex, as trace viewers show it.
    pub fn trace_id_hex(&self) -> String {
        hex(&self.trace_id)
    }

    /// The id of the caller's span, the server spans' parent.
    pub fn parent_id(&self) -> [u8; 8] {
        self.parent_id
    }

    /// Whether the caller records this trace (the `sampled` flag).
    pub fn sampled(&self) -> bool {
        self.flags & SAMPLED != 0
    }

    /// The `traceparent` header value (version `00`).
    pub fn traceparent(&self) -> String {
        self.to_string()
    }

    /// The `tracestate` header value, if any.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }
}

/// A tonic interceptor adding `traceparent` (and `tracestate`) to each request that has none; with
/// no context it adds nothing.
#[derive(Debug, Clone, Default)]
pub struct TracePropagation {
    headers: Option<TraceHeaders>,
}

#[derive(Debug, Clone)]
struct TraceHeaders {
    traceparent: MetadataValue<Ascii>,
    tracestate: Option<MetadataValue<Ascii>>,
}

impl TracePropagation {
    /// Sends `context` on every call, or nothing for `None`.
    pub fn new(context: Option<&TraceContext>) -> Self {
        let headers = context.and_then(|context| {
            // Both are visible ASCII by construction.
            let traceparent = MetadataValue::try_from(context.traceparent()).ok()?;
            let tracestate = context
                .tracestate()
                .and_then(|state| MetadataValue::try_from(state).ok());
            Some(TraceHeaders {
                traceparent,
                tracestate,
            })
        });
        Self { headers }
    }
}

impl Interceptor for TracePropagation {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(headers) = &self.headers
            && !request.metadata().contains_key(TRACEPARENT)
        {
            let metadata = request.metadata_mut();
            metadata.insert(TRACEPARENT, headers.traceparent.clone());
            match &headers.tracestate {
                Some(state) => {
                    metadata.insert(TRACESTATE, state.clone());
                }
                // A tracestate without its traceparent would describe another trace.
                None => {
                    metadata.remove(TRACESTATE);
                }
            }
        }
        Ok(request)
    }
}

/// `bytes` (ASCII) as N bytes of lowercase hex digits, or `None`.
fn lower_hex<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    if bytes.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0; N];
    for (byte, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

/// Random bytes, not all zero (an all-zero id is invalid).
fn random_nonzero<const N: usize>() -> [u8; N] {
    loop {
        let bytes: [u8; N] = rand::random();
        if bytes != [0; N] {
            return bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn reads_and_writes_the_standard_example() {
        let context: TraceContext = EXAMPLE.parse().expect("valid");
        assert_eq!(context.traceparent(), EXAMPLE);
        assert_eq!(context.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(
            context.parent_id(),
            [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]
        );
        assert!(context.sampled());
        let unsampled: TraceContext = EXAMPLE.replace("-01", "-00").parse().expect("valid");
        assert!(!unsampled.sampled());
        // Whitespace around the value, as an environment variable may have.
        assert_eq!(
            format!(" {EXAMPLE}\n")
                .parse::<TraceContext>()
                .expect("valid"),
            context
        );
    }

    #[test]
    fn refuses_what_the_standard_calls_invalid() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        ] {
            let err = bad.parse::<TraceContext>().expect_err(bad);
            assert_eq!(err.value, bad);
        }
        // A later version: the four fields are read, what follows a dash is ignored.
        let later: TraceContext = format!("01{}-more", &EXAMPLE[2..]).parse().expect("valid");
        assert_eq!(later.traceparent(), EXAMPLE);
    }

    #[test]
    fn new_traces_and_children_have_fresh_ids() {
        let root = TraceContext::new_root();
        assert!(root.sampled());
        assert_ne!(root.trace_id(), [0; 16]);
        assert_ne!(TraceContext::new_root().trace_id(), root.trace_id());
        let child = root.clone().with_tracestate("vendor=abc").child();
        assert_eq!(child.trace_id(), root.trace_id());
        assert_ne!(child.parent_id(), root.parent_id());
        assert_eq!(child.tracestate(), Some("vendor=abc"));
        assert_eq!(
            child
                .traceparent()
                .parse::<TraceContext>()
                .map(|c| c.parent_id()),
            Ok(child.parent_id())
        );
    }

    #[test]
    fn the_interceptor_adds_the_headers_unless_the_request_has_its_own() {
        let context = EXAMPLE
            .parse::<TraceContext>()
            .expect("valid")
            .with_tracestate("congo=t61rcWkgMzE");
        let mut propagation = TracePropagation::new(Some(&context));
        let request = propagation.call(Request::new(())).expect("intercepted");
        assert_eq!(
            request.metadata().get(TRACEPARENT).map(|v| v.to_str().ok()),
            Some(Some(EXAMPLE))
        );
        assert_eq!(
            request.metadata().get(TRACESTATE).map(|v| v.to_str().ok()),
            Some(Some("congo=t61rcWkgMzE"))
        );

        let own = TraceContext::new_root().traceparent();
        let mut request = Request::new(());
        request
            .metadata_mut()
            .insert(TRACEPARENT, own.parse().expect("ascii"));
        let request = propagation.call(request).expect("intercepted");
        assert_eq!(
            request.metadata().get(TRACEPARENT).map(|v| v.to_str().ok()),
            Some(Some(own.as_str()))
        );
        assert!(request.metadata().get(TRACESTATE).is_none());

        let request = TracePropagation::default()
            .call(Request::new(()))
            .expect("intercepted");
        assert!(request.metadata().is_empty());
    }

    #[test]
    fn unusable_tracestate_is_left_out() {
        let root = TraceContext::new_root();
        assert_eq!(
            root.clone().with_tracestate("a=1\n").tracestate(),
            Some("a=1")
        );
        assert_eq!(
            root.clone().with_tracestate("caf\u{e9}=1").tracestate(),
            None
        );
        assert_eq!(root.with_tracestate(&"a".repeat(513)).tracestate(), None);
    }
}
