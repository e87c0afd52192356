//! How much of a batched list to read: all of it, or the first entries of each parent, cut in the SQL
//! (`ROW_NUMBER() OVER (PARTITION BY parent ORDER BY …)`, SQLite ≥ 3.25 and PostgreSQL), so a parent with
//! a hundred thousand children costs no more than one with a hundred.
use sea_orm::sea_query::{
    Alias, ColumnRef, Expr, ExprTrait, Order, Query, SelectStatement, WindowStatement,
};
use sea_orm::{QueryFilter, QuerySelect, QueryTrait};

/// How many entries of each parent's list a batched read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// Every entry.
    All,
    /// The first entries of each parent, in the list's order.
    First(u64),
}

/// Which rows a per-parent cut counts, and in what order.
pub struct Rank {
    /// Columns naming one row (the primary key, or a link's two ids).
    pub key: Vec<ColumnRef>,
    /// The column naming the row's parent.
    pub parent: ColumnRef,
    /// The list's order; it must end with columns that tell any two rows apart.
    pub order: Vec<(ColumnRef, Order)>,
}

const RANK: &str = "per_parent_rank";
const KEY: &str = "per_parent_key";

impl Take {
    /// `select` (one list, already in its order) cut to its first rows for [`Take::First`].
    pub fn limit<S: QuerySelect>(self, select: S) -> S {
        match self {
            Take::All => select,
            Take::First(n) => select.limit(n),
        }
    }

    /// `select` restricted, for [`Take::First`], to the rows among the first of their parent in
    /// `rank.order`. `narrow` turns a copy of `select` into the rows that count (the joins and filters
    /// that decide what the list shows, when `select` alone returns more than that), so a row the list
    /// would leave out never takes a place. The same statement as before: the cut is a sub-select.
    pub fn per_parent<S>(self, select: S, rank: Rank, narrow: impl FnOnce(S) -> S) -> S
    where
        S: QueryFilter + QueryTrait<QueryStatement = SelectStatement> + Clone,
    {
        let Take::First(n) = self else {
            return select;
        };
        let mut ranked = narrow(select.clone()).into_query();
        ranked.clear_selects();
        ranked.clear_order_by();
        for (i, column) in rank.key.iter().enumerate() {
            ranked.expr_as(Expr::col(column.clone()), Alias::new(format!("{KEY}{i}")));
        }
        let mut window = WindowStatement::partition_by(rank.parent);
        for (column, order) in rank.order {
            window.order_by(column, order);
        }
        ranked.expr_window_as(Expr::cust("ROW_NUMBER()"), window, Alias::new(RANK));
        let mut first = Query::select();
        for i in 0..rank.key.len() {
            first.column(Alias::new(format!("{KEY}{i}")));
        }
        // An integer, written into the SQL like the page sizes (`PageRequest::statement`).
        first
            .from_subquery(ranked, Alias::new("per_parent"))
            .and_where(Expr::col(Alias::new(RANK)).lte(Expr::cust(n.to_string())));
        let key = match rank.key.as_slice() {
            [one] => Expr::col(one.clone()),
            many => Expr::tuple(many.iter().map(|c| Expr::col(c.clone()))),
        };
        select.filter(key.in_subquery(first))
    }
}
