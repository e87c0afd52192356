//! Property tests (proptest) over the REST input parsers: whatever a client sends, the answer is a value or
//! a 400 that names a field, never a panic or a 500; what is accepted is within bounds and survives the
//! round trip through the `next`/`previous` links.
use super::body::{new_ticket, ticket_patch};
use super::query::ListParams;
use crate::error::AppError;
use crate::rest::fields::{id_value, Fields};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Query-string pieces that reach every branch of the parser, with random text mixed in.
fn query_string() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("page".to_string()),
        Just("limit".to_string()),
        Just("q".to_string()),
        Just("status".to_string()),
        Just("priority".to_string()),
        Just("assigned".to_string()),
        "[a-z%&=+]{0,6}",
    ];
    let value = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("open,closed".to_string()),
        Just("me".to_string()),
        Just("NONE".to_string()),
        Just("%FF%00%20".to_string()),
        "\\PC{0,12}",
    ];
    proptest::collection::vec((key, value), 0..8).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,10}".prop_map(Value::String),
        Just(Value::String("2024-02-30".into())),
        Just(Value::String("2024-02-29".into())),
        Just(Value::String(" 42 ".into())),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("id|[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A request body with the ticket fields (and others) set to anything.
fn body() -> impl Strategy<Value = Map<String, Value>> {
    let key = prop_oneof![
        Just("title"),
        Just("description"),
        Just("priority"),
        Just("status"),
        Just("assigned_to"),
        Just("project"),
        Just("due_date"),
        Just("category"),
        Just("unknown"),
    ];
    proptest::collection::vec((key, json_value()), 0..8)
        .prop_map(|pairs| pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// The only acceptable failure: a validation error naming at least one field, or a clear message.
fn is_client_error(err: &AppError) -> bool {
    matches!(
        err,
        AppError::Validation { .. } | AppError::InvalidTransition { .. }
    ) && err.status().is_client_error()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn list_queries_parse_within_bounds_and_round_trip(raw in query_string()) {
        match ListParams::parse(Some(&raw)) {
            Err(err) => prop_assert!(is_client_error(&err), "{err:?}"),
            Ok(params) => {
                prop_assert!((1..=100).contains(&params.limit));
                prop_assert!(params.page >= 1);
                let page = params.page_request();
                prop_assert!(i64::try_from(page.offset).is_ok(), "offset {}", page.offset);
                // The link for this very page reads back as the same request.
                let link = params.link(params.page);
                let query = link.split_once('?').map(|(_, q)| q).unwrap_or_default();
                let again = ListParams::parse(Some(query));
                prop_assert!(again.is_ok(), "{link}: {again:?}");
                if let Ok(again) = again {
                    prop_assert_eq!((again.page, again.limit), (params.page, params.limit));
                    prop_assert_eq!(format!("{:?}", again.filter), format!("{:?}", params.filter));
                    prop_assert_eq!(again.link(again.page), link);
                }
                let _ = (params.next(u64::MAX), params.previous());
            }
        }
    }

    #[test]
    fn ticket_bodies_are_values_or_field_errors(body in body()) {
        if let Err(err) = new_ticket(&body) {
            prop_assert!(is_client_error(&err), "{err:?}");
        }
        if let Err(err) = ticket_patch(&body) {
            prop_assert!(is_client_error(&err), "{err:?}");
        }
    }

    #[test]
    fn field_accessors_never_fail_badly(body in body(), key in "title|due_date|project|x") {
        let f = Fields(&body);
        for err in [
            f.string(&key).err(),
            f.string_not_null(&key).err(),
            f.nullable_id(&key).err(),
            f.nullable_date(&key).err(),
        ].into_iter().flatten() {
            prop_assert!(is_client_error(&err), "{err:?}");
            // The field is named, so the client knows what to fix.
            let details = err.details();
            prop_assert!(details.get(key.as_str()).is_some(), "{details}");
        }
    }

    #[test]
    fn ids_are_positive_32_bit_integers(n in any::<i64>(), spaces in " {0,2}") {
        let from_number = id_value("id", &Value::from(n));
        let from_string = id_value("id", &Value::String(format!("{spaces}{n}{spaces}")));
        let valid = n > 0 && n <= i64::from(i32::MAX);
        for parsed in [from_number, from_string] {
            match parsed {
                Ok(id) => prop_assert!(valid && i64::from(id) == n),
                Err(err) => prop_assert!(!valid && is_client_error(&err)),
            }
        }
    }
}
