//! Tickets: every read in `read`, changes in `write`, permissions in `rules`, and the counters of live
//! tickets that list totals read in `counters`.
pub mod bulk;
pub mod counters;
pub mod read;
pub mod rules;
pub mod write;

pub use read::{
    get, get_by_number, get_including_archived, get_many, AssigneeFilter, Joined, People,
    TicketFilter, TicketOrder, TicketPage, TicketQuery, TicketReads, TicketSort,
};
pub use write::{
    archive, change_status, change_status_noting, create, create_along, merge, merge_many,
    merged_into, preview, restore, split, update, Along, MergeTarget, Merged, MergedInto,
    MergedMany, NewTicket, SplitOff, TicketPatch, KEY_FIELD,
};
