//! Stored rows ↔ protobuf messages, for the batch service and runner.

use orbit_api::v1 as pb;
use prost::Message;
use rand::Rng;
use tonic::Status;

use super::store::{BatchRecord, StoredResult};
use crate::error::ServiceError;
use crate::stream::error_event;

/// A fresh batch id: 128 random bits from the thread's CSPRNG (ChaCha, seeded by the OS), in
/// hexadecimal: unguessable, so knowing one batch's id tells nothing about another's.
pub fn new_batch_id() -> String {
    format!("{:032x}", rand::rng().random::<u128>())
}

/// The batch message of a stored batch.
pub fn batch_to_proto(batch: BatchRecord) -> pb::Batch {
    let unsigned = |n: i64| u64::try_from(n).unwrap_or(0);
    pb::Batch {
        id: batch.id,
        name: batch.name,
        request_id: batch.request_id,
        state: batch.state,
        counts: Some(pb::BatchCounts {
            jobs: unsigned(batch.jobs),
            finished: unsigned(batch.last_sequence),
            ok: unsigned(batch.ok),
            failed: unsigned(batch.failed),
            cancelled: unsigned(batch.cancelled),
        }),
        create_time_unix_ms: batch.create_ms,
        finish_time_unix_ms: batch.finish_ms,
        stored_bytes: unsigned(batch.stored_bytes),
    }
}

/// The event message of a stored result.
///
/// # Errors
/// INTERNAL if the stored bytes are not a `JobEvent` (a damaged store).
pub fn result_to_proto(result: StoredResult) -> Result<pb::BatchEvent, Status> {
    let event = pb::JobEvent::decode(result.event.as_slice()).map_err(|e| {
        ServiceError::Internal(format!("stored result {} is damaged: {e}", result.sequence))
    })?;
    Ok(pb::BatchEvent {
        sequence: u64::try_from(result.sequence).unwrap_or(0),
        position: u64::try_from(result.position).unwrap_or(0),
        event: Some(event),
    })
}

/// The encoded final event of a job of a cancelled batch.
pub fn cancelled_event(job_id: &str) -> Vec<u8> {
    let error = ServiceError::Solve(orbit_worker::SolveError::Cancelled);
    let mut event = error_event(job_id.to_string(), &error);
    if let Some(pb::job_event::Event::Error(e)) = &mut event.event {
        e.message = "the batch was cancelled before this job finished".to_string();
    }
    event.encode_to_vec()
}

/// The page token that follows `batch` in a listing: its creation time and id.
pub fn page_token(batch: &pb::Batch) -> String {
    format!("{}.{}", batch.create_time_unix_ms, batch.id)
}

/// The position a page token names.
///
/// # Errors
/// INVALID_ARGUMENT naming `page_token` if it is not one this server handed out.
pub fn parse_page_token(token: &str) -> Result<Option<(i64, String)>, Status> {
    if token.is_empty() {
        return Ok(None);
    }
    let bad = || {
        Status::from(ServiceError::InvalidRequest {
            field: "page_token".to_string(),
            reason: format!("'{token}' is not a token from ListBatchesResponse.next_page_token"),
        })
    };
    let (time, id) = token.split_once('.').ok_or_else(bad)?;
    let time = time.parse().map_err(|_| bad())?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    Ok(Some((time, id.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_ids_are_128_bit_hex_and_differ() {
        let a = new_batch_id();
        let b = new_batch_id();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn page_tokens_round_trip_and_junk_is_refused() {
        let batch = pb::Batch {
            id: "00ff".into(),
            create_time_unix_ms: 1234,
            ..Default::default()
        };
        assert_eq!(
            parse_page_token(&page_token(&batch)).unwrap(),
            Some((1234, "00ff".to_string()))
        );
        assert_eq!(parse_page_token("").unwrap(), None);
        for junk in ["x", "12", "a.00ff", "12.", "12.zz"] {
            let status = parse_page_token(junk).unwrap_err();
            assert_eq!(status.code(), tonic::Code::InvalidArgument);
            assert!(status.message().starts_with("page_token:"), "{status:?}");
        }
    }

    #[test]
    fn cancelled_events_carry_the_id_and_code() {
        let event = pb::JobEvent::decode(cancelled_event("j7").as_slice()).unwrap();
        assert_eq!(event.id, "j7");
        let Some(pb::job_event::Event::Error(e)) = event.event else {
            panic!("not an error: {event:?}");
        };
        assert_eq!(e.code, tonic::Code::Cancelled as i32);
        assert_eq!(e.code_name, "CANCELLED");
    }
}
