//! The demo logins: a small team and two requesters.

/// A demo login: who they are and what they may do.
pub(super) struct DemoUser {
    pub(super) username: &'static str,
    pub(super) full_name: &'static str,
    pub(super) groups: &'static [&'static str],
    pub(super) staff: bool,
    pub(super) superuser: bool,
    pub(super) role: &'static str,
}

/// The demo team and requesters.
pub(super) const USERS: &[DemoUser] = &[
    DemoUser {
        username: "admin",
        full_name: "Ada Admin",
        groups: &["Administrators"],
        staff: true,
        superuser: true,
        role: "administrator",
    },
    DemoUser {
        username: "alice",
        full_name: "Alice Agent",
        groups: &["Agents"],
        staff: false,
        superuser: false,
        role: "agent",
    },
    DemoUser {
        username: "bob",
        full_name: "Bob Builder",
        groups: &["Agents", "Network Team"],
        staff: true,
        superuser: false,
        role: "agent (staff)",
    },
    DemoUser {
        username: "nina",
        full_name: "Nina Network",
        groups: &["Network Team"],
        staff: false,
        superuser: false,
        role: "network team (not an agent)",
    },
    DemoUser {
        username: "carol",
        full_name: "Carol Customer",
        groups: &[],
        staff: false,
        superuser: false,
        role: "requester",
    },
    DemoUser {
        username: "dave",
        full_name: "Dave Requester",
        groups: &[],
        staff: false,
        superuser: false,
        role: "requester",
    },
];

/// Password of every demo user: `<username>-demo`.
pub(super) fn demo_password(username: &str) -> String {
    format!("{username}-demo")
}
