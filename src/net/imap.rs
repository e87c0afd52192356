//! The IMAP client the help desk fetches mail with (`async-imap` over TCP, TLS by rustls with the webpki
//! roots): where a mailbox is ([`Settings`], from its URL), signing in with a password or an OAuth2 bearer
//! (XOAUTH2), and the few commands fetching needs. Every command is bounded by a timeout, so a server that
//! stops answering costs a failed attempt, not a stuck worker.
use async_imap::types::Fetch;
use async_imap::{Client, Session};
use futures_util::TryStreamExt;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// How long any one command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// How the connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// TLS from the first byte (`imaps://`, port 993).
    Tls,
    /// A plain connection upgraded by `STARTTLS` before signing in (`imap://`, port 143).
    StartTls,
    /// No TLS at all (`imap://…?tls=none`): only for a server on the same host or network.
    None,
}

/// How the service signs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `LOGIN` with the user and the password.
    Password,
    /// `AUTHENTICATE XOAUTH2` with the user and an OAuth2 bearer token (Microsoft 365, Gmail).
    XOAuth2,
}

/// Where a mailbox is and how to reach it, read from its URL (RFC 5092):
/// `imaps://user@host[:port]/Folder`, `imap://user;AUTH=XOAUTH2@host/INBOX`, `imap://user@host/INBOX?tls=none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The server's name (also the name its TLS certificate must carry).
    pub host: String,
    /// The server's port.
    pub port: u16,
    /// TLS, STARTTLS or none.
    pub security: Security,
    /// The user to sign in as.
    pub user: String,
    /// Password or XOAUTH2.
    pub auth: Auth,
    /// The folder mail is fetched from (`INBOX` when the URL names none).
    pub folder: String,
}

impl Settings {
    /// Read a mailbox URL; the error says what is wrong with it, for the administrator.
    pub fn parse(text: &str) -> Result<Settings, String> {
        let url = url::Url::parse(text.trim())
            .map_err(|_| "must be a URL such as imaps://user@mail.example.com/INBOX".to_string())?;
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(|s| s.into_owned())
                .map_err(|_| "is not valid UTF-8 once decoded".to_string())
        };
        let mut security = match url.scheme() {
            "imaps" => Security::Tls,
            "imap" => Security::StartTls,
            _ => return Err("must start with imaps:// or imap://".into()),
        };
        for (key, value) in url.query_pairs() {
            match (key.as_ref(), value.as_ref()) {
                ("tls", "none") if security == Security::StartTls => security = Security::None,
                ("tls", "starttls") if security == Security::StartTls => {}
                _ => {
                    return Err(format!(
                    "does not understand ?{key}={value} (imap:// takes ?tls=none or ?tls=starttls)"
                ))
                }
            }
        }
        if url.password().is_some() {
            return Err("must not carry the password: give it as the secret".into());
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => return Err("must name the mail server".into()),
        };
        let port = url.port().unwrap_or(match security {
            Security::Tls => 993,
            _ => 143,
        });
        let userinfo = decode(url.username())?;
        let (user, auth) = match userinfo.split_once(';') {
            None => (userinfo, Auth::Password),
            Some((user, mechanism)) => match mechanism.to_ascii_uppercase().as_str() {
                "AUTH=XOAUTH2" => (user.to_string(), Auth::XOAuth2),
                "AUTH=*" | "AUTH=PLAIN" | "AUTH=LOGIN" => (user.to_string(), Auth::Password),
                _ => return Err(format!("does not know the sign-in {mechanism:?}")),
            },
        };
        if user.is_empty() {
            return Err("must name the user to sign in as (imaps://user@host/INBOX)".into());
        }
        let folder = decode(url.path().trim_start_matches('/'))?;
        let folder = if folder.is_empty() {
            "INBOX".to_string()
        } else {
            folder
        };
        if [&user, &folder]
            .iter()
            .any(|s| s.chars().any(char::is_control))
        {
            return Err("must not hold control characters".into());
        }
        Ok(Settings {
            host,
            port,
            security,
            user,
            auth,
            folder,
        })
    }
}

/// A byte stream the client runs over: TCP, or TLS over TCP.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send + Debug {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Debug> Io for T {}

type Stream = Box<dyn Io>;

/// A signed-in connection with its folder selected.
#[derive(Debug)]
pub struct Connection {
    session: Session<Stream>,
    idle: bool,
    moves: bool,
    uidplus: bool,
}

/// The SASL XOAUTH2 answer: the user and the bearer token, sent once. A server refusing the token answers
/// with a challenge holding its reasons (JSON: `{"status":"401","schemes":"bearer",…}`), which the client
/// must answer with an empty line to be told the refusal; that challenge is kept for the error.
struct XOAuth2<'a> {
    user: &'a str,
    token: &'a str,
    sent: bool,
    refusal: &'a mut Option<String>,
}

impl async_imap::Authenticator for XOAuth2<'_> {
    type Response = String;
    fn process(&mut self, challenge: &[u8]) -> String {
        if std::mem::replace(&mut self.sent, true) {
            let said: String = String::from_utf8_lossy(challenge)
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect();
            *self.refusal = Some(said);
            return String::new();
        }
        format!("user={}\x01auth=Bearer {}\x01\x01", self.user, self.token)
    }
}

async fn within<T, E: std::fmt::Display>(
    what: &str,
    work: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, String> {
    match tokio::time::timeout(COMMAND_TIMEOUT, work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(format!("{what}: {e}")),
        Err(_) => Err(format!("{what}: no answer within {COMMAND_TIMEOUT:?}")),
    }
}

async fn tls(host: &str, tcp: TcpStream) -> Result<Stream, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from(host.to_string())
        .map_err(|e| format!("{host} cannot be checked by TLS: {e}"))?;
    let stream = within(
        "TLS",
        tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp),
    )
    .await?;
    Ok(Box::new(stream))
}

/// Greet, sign in, learn what the server can do, make sure `folders` exist and select `settings.folder`.
pub async fn connect(
    settings: &Settings,
    secret: &str,
    folders: &[&str],
) -> Result<Connection, String> {
    let tcp = within(
        "connect",
        TcpStream::connect((settings.host.as_str(), settings.port)),
    )
    .await?;
    let stream: Stream = match settings.security {
        Security::Tls => tls(&settings.host, tcp).await?,
        Security::None => Box::new(tcp),
        Security::StartTls => {
            let mut client = Client::new(tcp);
            within("greeting", client.read_response()).await?;
            within(
                "STARTTLS",
                client.run_command_and_check_ok("STARTTLS", None),
            )
            .await?;
            tls(&settings.host, client.into_inner()).await?
        }
    };
    let mut client = Client::new(stream);
    if settings.security != Security::StartTls {
        within("greeting", client.read_response()).await?;
    }
    let signed_in = match settings.auth {
        Auth::Password => {
            tokio::time::timeout(COMMAND_TIMEOUT, client.login(&settings.user, secret)).await
        }
        Auth::XOAuth2 => {
            let mut refusal = None;
            let answer = XOAuth2 {
                user: &settings.user,
                token: secret,
                sent: false,
                refusal: &mut refusal,
            };
            let signed_in =
                tokio::time::timeout(COMMAND_TIMEOUT, client.authenticate("XOAUTH2", answer)).await;
            if let (Ok(Err(_)), Some(said)) = (&signed_in, refusal) {
                return Err(format!("sign-in refused: the server said {said}"));
            }
            signed_in
        }
    };
    let mut session = match signed_in {
        Ok(Ok(session)) => session,
        Ok(Err((e, _))) => return Err(format!("sign-in refused: {e}")),
        Err(_) => return Err("sign-in: no answer".into()),
    };
    let capabilities = within("CAPABILITY", session.capabilities()).await?;
    let mut connection = Connection {
        idle: capabilities.has_str("IDLE"),
        moves: capabilities.has_str("MOVE"),
        uidplus: capabilities.has_str("UIDPLUS"),
        session,
    };
    for folder in folders {
        // Made when missing; a folder that exists answers NO, which is what it should do.
        let _ = within("CREATE", connection.session.create(folder)).await;
    }
    within("SELECT", connection.session.select(&settings.folder)).await?;
    Ok(connection)
}

impl Connection {
    /// The messages waiting in the folder, oldest first: all of them, or only the unseen when taken ones
    /// are flagged rather than moved.
    pub async fn waiting(&mut self, unseen_only: bool) -> Result<Vec<u32>, String> {
        let query = if unseen_only {
            "UNSEEN UNDELETED"
        } else {
            "UNDELETED"
        };
        let found = within("SEARCH", self.session.uid_search(query)).await?;
        let mut uids: Vec<u32> = found.into_iter().collect();
        uids.sort_unstable();
        Ok(uids)
    }

    /// The size in bytes of each of `uids`.
    pub async fn sizes(&mut self, uids: &[u32]) -> Result<HashMap<u32, u32>, String> {
        if uids.is_empty() {
            return Ok(HashMap::new());
        }
        let set = uids
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let session = &mut self.session;
        within("FETCH sizes", async {
            let fetched: Vec<_> = session
                .uid_fetch(&set, "RFC822.SIZE")
                .await?
                .try_collect()
                .await?;
            Ok::<_, async_imap::error::Error>(
                fetched
                    .iter()
                    .filter_map(|f| Some((f.uid?, f.size?)))
                    .collect(),
            )
        })
        .await
    }

    /// The whole message `uid`, without flagging it seen; `None` when it is gone.
    pub async fn message(&mut self, uid: u32) -> Result<Option<Vec<u8>>, String> {
        self.part(uid, "BODY.PEEK[]", Fetch::body).await
    }

    /// The header of message `uid` alone (for one too large to fetch whole), without flagging it seen.
    pub async fn header(&mut self, uid: u32) -> Result<Option<Vec<u8>>, String> {
        self.part(uid, "BODY.PEEK[HEADER]", Fetch::header).await
    }

    /// What `query` fetches of message `uid`, as `pick` finds it in the answer.
    async fn part(
        &mut self,
        uid: u32,
        query: &str,
        pick: fn(&Fetch) -> Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>, String> {
        let session = &mut self.session;
        within("FETCH", async {
            let fetched: Vec<_> = session
                .uid_fetch(uid.to_string(), query)
                .await?
                .try_collect()
                .await?;
            Ok::<_, async_imap::error::Error>(
                fetched
                    .iter()
                    .find(|f| f.uid == Some(uid))
                    .and_then(pick)
                    .map(<[u8]>::to_vec),
            )
        })
        .await
    }

    /// Flag `uid` seen where it is.
    pub async fn flag_seen(&mut self, uid: u32) -> Result<(), String> {
        let session = &mut self.session;
        within("STORE", async {
            let _: Vec<_> = session
                .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Seen)")
                .await?
                .try_collect()
                .await?;
            Ok::<_, async_imap::error::Error>(())
        })
        .await
    }

    /// Move `uid` to `folder`: `MOVE` where the server has it, else copy, flag deleted and expunge.
    pub async fn move_to(&mut self, uid: u32, folder: &str) -> Result<(), String> {
        let set = uid.to_string();
        if self.moves {
            return within("MOVE", self.session.uid_mv(&set, folder)).await;
        }
        within("COPY", self.session.uid_copy(&set, folder)).await?;
        let (session, uidplus) = (&mut self.session, self.uidplus);
        within("expunge", async {
            let _: Vec<_> = session
                .uid_store(&set, "+FLAGS.SILENT (\\Deleted)")
                .await?
                .try_collect()
                .await?;
            if uidplus {
                let _: Vec<_> = session.uid_expunge(&set).await?.try_collect().await?;
            } else {
                let _: Vec<_> = session.expunge().await?.try_collect().await?;
            }
            Ok::<_, async_imap::error::Error>(())
        })
        .await
    }

    /// Wait up to `longest` for new mail: in `IDLE` where the server has it (back as soon as anything
    /// changes), else by sleeping.
    pub async fn wait(self, longest: Duration) -> Result<Connection, String> {
        let Connection {
            session,
            idle,
            moves,
            uidplus,
        } = self;
        let session = if idle {
            let mut handle = session.idle();
            within("IDLE", handle.init()).await?;
            {
                let (heard, _stop) = handle.wait_with_timeout(longest);
                let _ = tokio::time::timeout(longest, heard).await;
            }
            within("DONE", handle.done()).await?
        } else {
            tokio::time::sleep(longest).await;
            let mut session = session;
            within("NOOP", session.noop()).await?;
            session
        };
        // What the server said on its own (new message counts) is read again by the next search.
        while session.unsolicited_responses.try_recv().is_ok() {}
        Ok(Connection {
            session,
            idle,
            moves,
            uidplus,
        })
    }

    /// Sign out, politely; a connection that is gone already is fine.
    pub async fn logout(mut self) {
        let _ = within("LOGOUT", self.session.logout()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mailbox_urls_are_read_as_rfc_5092_says() -> Result<(), String> {
        let s = Settings::parse("imaps://help%40example.com@mail.example.com/Support%20Desk")?;
        assert_eq!(s.host, "mail.example.com");
        assert_eq!(
            (s.port, s.security, s.auth),
            (993, Security::Tls, Auth::Password)
        );
        assert_eq!(s.user, "help@example.com");
        assert_eq!(s.folder, "Support Desk");
        let s = Settings::parse("imap://desk;AUTH=XOAUTH2@outlook.office365.com:1143")?;
        assert_eq!(
            (s.port, s.security, s.auth),
            (1143, Security::StartTls, Auth::XOAuth2)
        );
        assert_eq!((s.user.as_str(), s.folder.as_str()), ("desk", "INBOX"));
        let s = Settings::parse("imap://desk@127.0.0.1:1430/INBOX?tls=none")?;
        assert_eq!(s.security, Security::None);
        for bad in [
            "https://mail.example.com/",
            "imaps://mail.example.com/INBOX",
            "imaps://desk:hunter2@mail.example.com/",
            "imaps://desk@mail.example.com/?tls=none",
            "imap://desk;AUTH=GSSAPI@mail.example.com/",
            "imaps://desk@/INBOX",
            "imaps://desk@mail.example.com/a%0Ab",
            "not a url",
        ] {
            assert!(Settings::parse(bad).is_err(), "{bad}");
        }
        Ok(())
    }
}
