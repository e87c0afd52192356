//! Trusted documents (docs/graphql.md): Apollo's Automatic Persisted Queries, and the allow-list mode
//! (`DESKGRAPH_GRAPHQL_TRUSTED_DOCUMENTS`) in which only registered documents run.
//!
//! APQ: a request may carry `extensions.persistedQuery = {version: 1, sha256Hash}`. With its query, the
//! hash is checked and the query remembered (in a cache bounded in bytes); without, the remembered query
//! runs, or the request is answered `PersistedQueryNotFound` and the client sends it again with its text.
//! In allow-list mode the registered documents are the only ones a hash finds, and nothing new is
//! remembered.
use async_graphql::{Request, ServerError, ServerResult, Value};
use moka::sync::Cache;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;

/// Estimated bytes of memory the remembered APQ documents may hold ([`entry_weight`]).
const PERSISTED_BYTES: u64 = 8 << 20;
/// Bytes of one entry besides its text and hash: the cache's own bookkeeping and the two strings' headers,
/// so that many tiny documents cannot hold many times the bound.
const ENTRY_BYTES: usize = 256;

/// What a remembered document costs in memory: kept as text (never parsed here), its hash, the entry.
fn entry_weight(hash: &str, query: &str) -> u32 {
    let bytes = hash
        .len()
        .saturating_add(query.len())
        .saturating_add(ENTRY_BYTES);
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// The SHA-256 of `text`, in lowercase hex (as APQ sends it).
pub fn hash(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The registered documents of allow-list mode, by hash.
#[derive(Debug, Default)]
pub struct Registry {
    documents: HashMap<String, String>,
}

impl Registry {
    /// Read every `.graphql` file at `path` (a file, or a folder read recursively); each must parse.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let mut registry = Registry::default();
        registry.add(path)?;
        if registry.documents.is_empty() {
            anyhow::bail!(
                "DESKGRAPH_GRAPHQL_TRUSTED_DOCUMENTS: no .graphql document in {}",
                path.display()
            );
        }
        Ok(registry)
    }

    fn add(&mut self, path: &Path) -> anyhow::Result<()> {
        use anyhow::Context;
        if path.is_dir() {
            let mut entries = std::fs::read_dir(path)
                .with_context(|| format!("reading {}", path.display()))?
                .collect::<Result<Vec<_>, _>>()?;
            entries.sort_by_key(|e| e.path());
            for entry in entries {
                let path = entry.path();
                if path.is_dir() || path.extension().is_some_and(|e| e == "graphql") {
                    self.add(&path)?;
                }
            }
            return Ok(());
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading trusted document {}", path.display()))?;
        // The parser recurses once per bracket: a file nested too deep would take the start down.
        let unlimited = crate::config::GraphqlLimits {
            max_tokens: usize::MAX,
            ..Default::default()
        };
        if let Err(refusal) = crate::graphql::limits::bounds::scan(&text, &unlimited) {
            anyhow::bail!("trusted document {}: {}", path.display(), refusal.message);
        }
        async_graphql::parser::parse_query(&text)
            .with_context(|| format!("trusted document {} does not parse", path.display()))?;
        self.documents.insert(hash(&text), text);
        Ok(())
    }

    /// How many documents are registered.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Refuse `request` unless its text is a registered document.
    pub fn check(&self, request: &Request) -> ServerResult<()> {
        if self.documents.contains_key(&hash(&request.query)) {
            return Ok(());
        }
        Err(error(
            "only registered documents run on this server (allow-list mode)",
            "DOCUMENT_NOT_ALLOWED",
        ))
    }
}

/// Remembered APQ documents.
#[derive(Clone)]
pub struct Persisted {
    cache: Cache<String, String>,
}

impl Default for Persisted {
    fn default() -> Self {
        Persisted {
            cache: Cache::builder()
                .weigher(|hash: &String, query: &String| entry_weight(hash, query))
                .max_capacity(PERSISTED_BYTES)
                .build(),
        }
    }
}

impl Persisted {
    /// Apply the APQ extension of `request`, if any: fill in its query from the hash, or remember its
    /// query under the hash. `registry`: the allow-list, which replaces the remembered documents.
    pub fn resolve(&self, request: &mut Request, registry: Option<&Registry>) -> ServerResult<()> {
        let Some(persisted) = request.extensions.0.get("persistedQuery") else {
            return Ok(());
        };
        let Value::Object(persisted) = persisted else {
            return Err(error(
                "extensions.persistedQuery must be an object",
                "BAD_USER_INPUT",
            ));
        };
        if persisted.get("version") != Some(&Value::from(1)) {
            return Err(error(
                "Unsupported persisted query version",
                "PERSISTED_QUERY_NOT_SUPPORTED",
            ));
        }
        let Some(Value::String(sha)) = persisted.get("sha256Hash") else {
            return Err(error(
                "extensions.persistedQuery.sha256Hash must be a string",
                "BAD_USER_INPUT",
            ));
        };
        let sha = sha.to_ascii_lowercase();
        if request.query.is_empty() {
            let known = match registry {
                Some(registry) => registry.documents.get(&sha).cloned(),
                None => self.cache.get(&sha),
            };
            return match known {
                Some(query) => {
                    request.query = query;
                    Ok(())
                }
                None => Err(error("PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND")),
            };
        }
        if hash(&request.query) != sha {
            return Err(error("provided sha does not match query", "BAD_USER_INPUT"));
        }
        if registry.is_none() {
            self.cache.insert(sha, request.query.clone());
        }
        Ok(())
    }
}

fn error(message: &str, code: &str) -> ServerError {
    crate::graphql::limits::refusal(message.to_string(), code, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_documents_weigh_their_entry_too() {
        let query = "{__typename}";
        let weight = entry_weight(&hash(query), query);
        assert_eq!(weight as usize, 64 + query.len() + ENTRY_BYTES);
        // The bound holds at most this many of the smallest entries.
        assert!(PERSISTED_BYTES / u64::from(weight) < 32_000);
    }

    #[test]
    fn hashes_are_apollo_hex() {
        assert_eq!(
            hash("{__typename}"),
            "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"
        );
    }
}
