//! CSV answers: one field's quoting, shared by every report that answers CSV.

/// One CSV field, quoted when it must be, and never read as a formula by a spreadsheet.
pub fn cell(value: &str) -> String {
    let value = if value.starts_with(['=', '+', '-', '@']) {
        format!("'{value}")
    } else {
        value.to_string()
    };
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// A CSV answer.
pub fn response(body: String) -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [(axum::http::header::CONTENT_TYPE, "text/csv; charset=utf-8")],
        body,
    )
        .into_response()
}
