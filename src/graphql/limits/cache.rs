//! The documents [`Checked`] keeps, one per distinct query text: parsed (within the [`bounds`]) and
//! priced, or refused; and how a request finds its own.
use super::*;

/// Bytes of a parsed document per byte of its text: a kept tree is tens of times its text, most for
/// deeply nested selections; this bound is above what was measured (docs/operations.md).
const TREE_BYTES_PER_TEXT_BYTE: usize = 64;

/// What a refused document costs in memory: its text as the key, the entry (with its error).
pub(super) fn refused_weight(query: &str) -> u32 {
    u32::try_from(query.len().saturating_add(ENTRY_BYTES)).unwrap_or(u32::MAX)
}

/// What a kept document costs in memory: its tree, its text as the key, the entry.
pub(super) fn document_weight(query: &str) -> u32 {
    let bytes = query
        .len()
        .saturating_mul(TREE_BYTES_PER_TEXT_BYTE + 1)
        .saturating_add(ENTRY_BYTES);
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// A parsed document and the prices of its operations that do not depend on variables.
pub struct Parsed {
    document: ExecutableDocument,
    prices: Vec<(Option<Name>, Price)>,
}

/// What became of a document's text.
pub enum Document {
    /// Within the bounds, parsed and priced.
    Parsed(Parsed),
    /// Over a bound, or not parsable: the error answers every request that sends it.
    Refused(ServerError),
}

/// The kept document of a request, from [`Checked::parse`] to [`Checked::execute`].
struct Kept(Arc<Document>);

/// The kept document of `request`, once [`Checked::parse`] has run.
pub(super) fn kept(request: &Request) -> Option<Arc<Document>> {
    request
        .data
        .get(&TypeId::of::<Kept>())
        .and_then(|kept| kept.downcast_ref::<Kept>())
        .map(|kept| kept.0.clone())
}

/// What a refused document leaves in its request: nothing to walk.
fn nothing() -> ExecutableDocument {
    ExecutableDocument {
        operations: DocumentOperations::Multiple(HashMap::new()),
        fragments: HashMap::new(),
    }
}

impl Checked {
    /// Give `request` its query when it names a persisted one ([`allow_list::Persisted`]), and its document:
    /// each distinct query text is bounded, parsed and priced once, and the verdict kept. A refused
    /// document leaves its request an empty one, so nothing walks it; [`Checked::execute`] answers with
    /// the refusal.
    pub fn parse(&self, request: &mut Request) -> ServerResult<()> {
        self.persisted.resolve(request, self.trusted.as_deref())?;
        if let Err(refusal) = bounds::long(&request.query, &self.limits) {
            request.set_parsed_query(nothing());
            request
                .data
                .insert(Kept(Arc::new(Document::Refused(refusal))));
            return Ok(());
        }
        let document = match self.documents.get(&request.query) {
            Some(document) => {
                match document.as_ref() {
                    Document::Parsed(parsed) => request.set_parsed_query(parsed.document.clone()),
                    Document::Refused(_) => request.set_parsed_query(nothing()),
                }
                document
            }
            None => self.bound(request),
        };
        request.data.insert(Kept(document));
        Ok(())
    }

    /// Bound, parse and price a document not seen before, and remember what became of it.
    fn bound(&self, request: &mut Request) -> Arc<Document> {
        let document = match bounds::scan(&request.query, &self.limits) {
            Err(refusal) => Document::Refused(refusal),
            Ok(_) => match request.parsed_query() {
                Err(error) => Document::Refused(error),
                Ok(document) => match bounds::measure(document, &self.limits) {
                    Err(refusal) => Document::Refused(refusal),
                    Ok(_) => Document::Parsed(Parsed {
                        document: document.clone(),
                        prices: self.model.price_document(document),
                    }),
                },
            },
        };
        if let Document::Refused(_) = document {
            request.set_parsed_query(nothing());
        }
        let document = Arc::new(document);
        self.documents
            .insert(request.query.clone(), document.clone());
        document
    }

    /// The price of the operation `request` runs (`None`: its document does not parse or names no
    /// operation; the executor reports that).
    pub(super) fn price(&self, request: &mut Request) -> Option<Price> {
        let kept = kept(request);
        let operation_name = request.operation_name.clone();
        let variables = std::mem::take(&mut request.variables);
        let price = match request.parsed_query() {
            Ok(document) => {
                cost::operation(document, operation_name.as_deref()).map(|(name, operation)| {
                    let known = match kept.as_deref() {
                        Some(Document::Parsed(parsed)) => parsed
                            .prices
                            .iter()
                            .find(|(n, _)| n.as_ref() == name)
                            .map(|(_, price)| *price),
                        _ => None,
                    };
                    known.unwrap_or_else(|| self.model.price(document, &operation.node, &variables))
                })
            }
            Err(_) => None,
        };
        request.variables = variables;
        price
    }
}
