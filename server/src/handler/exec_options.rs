//! The executor's options of a QUERY or EXECUTE, read off the message's parameters.

use cql::frame::request::QueryParameters;

use crate::executor::ExecOptions;

impl ExecOptions {
    /// The options `params` ask for, sharing its paging state: a page size of zero or less
    /// means no paging, as the protocol says.
    pub(crate) fn from_request(params: &QueryParameters) -> ExecOptions {
        ExecOptions {
            consistency: params.consistency,
            serial_consistency: params.serial_consistency,
            page_size: params
                .page_size
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0),
            paging_state: params.paging_state.clone(),
            skip_metadata: params.skip_metadata,
            timestamp: params.default_timestamp,
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn page_size(sent: Option<i32>) -> Option<usize> {
        let params = QueryParameters {
            page_size: sent,
            ..QueryParameters::default()
        };
        ExecOptions::from_request(&params).page_size
    }

    #[test]
    fn only_a_positive_page_size_pages() {
        assert_eq!(page_size(None), None);
        assert_eq!(page_size(Some(0)), None);
        assert_eq!(page_size(Some(-1)), None);
        assert_eq!(page_size(Some(i32::MIN)), None);
        assert_eq!(page_size(Some(1)), Some(1));
        assert_eq!(page_size(Some(5000)), Some(5000));
    }

    #[test]
    fn the_other_parameters_are_taken_as_sent() {
        let params = QueryParameters {
            consistency: 0x0006,
            serial_consistency: Some(0x0009),
            paging_state: Some(Bytes::from_static(b"state")),
            skip_metadata: true,
            default_timestamp: Some(-7),
            ..QueryParameters::default()
        };
        let options = ExecOptions::from_request(&params);
        assert_eq!(options.consistency, 0x0006);
        assert_eq!(options.serial_consistency, Some(0x0009));
        assert_eq!(options.paging_state.as_deref(), Some(&b"state"[..]));
        assert!(options.skip_metadata);
        assert_eq!(options.timestamp, Some(-7));
    }
}
