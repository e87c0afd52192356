//! A browser for the single sign-on tests: it follows no redirect by itself, keeps the service's cookies,
//! and answers the provider's authorization form with a subject, as a person would.
use crate::support::helpers::TestApp;
use crate::support::oidc::take_listener;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Mutex;

/// One answer, with its redirect target and cookies.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub location: Option<String>,
    pub set_cookies: Vec<String>,
    pub text: String,
}

impl Answer {
    /// Whether the answer sets the cookie `name` to a value (not clearing it).
    pub fn sets(&self, name: &str) -> bool {
        self.set_cookies
            .iter()
            .any(|c| c.starts_with(&format!("{name}=")) && !c.contains("Max-Age=0"))
    }
}

/// A browser: follows nothing by itself, keeps the service's cookies.
pub struct Browser {
    http: reqwest::Client,
    /// Where the service is served.
    pub base: String,
    jar: Mutex<BTreeMap<String, String>>,
}

/// Serve the app on the socket bound for it; `None` when single sign-on is not configured (no provider).
pub fn browser(app: &TestApp) -> Option<Browser> {
    let public_url = app.state.config.accounts.public_url.clone()?;
    app.state.config.oidc.as_ref()?;
    let listener = take_listener(&public_url)?;
    listener.set_nonblocking(true).unwrap();
    let router = app.router.clone();
    tokio::spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .ok();
    });
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    Some(Browser {
        http,
        base: public_url,
        jar: Mutex::default(),
    })
}

impl Browser {
    /// A fresh browser (no cookies) on the same service.
    pub fn another(&self) -> Browser {
        Browser {
            http: self.http.clone(),
            base: self.base.clone(),
            jar: Mutex::default(),
        }
    }

    async fn send(&self, request: reqwest::RequestBuilder, ours: bool) -> Answer {
        let request = if ours {
            let jar = self.jar.lock().unwrap().clone();
            let cookies: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
            request.header(reqwest::header::COOKIE, cookies.join("; "))
        } else {
            request
        };
        let resp = request.send().await.unwrap();
        let status = resp.status().as_u16();
        let location = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|v| v.to_str().unwrap().to_string());
        let set_cookies: Vec<String> = resp
            .headers()
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect();
        if ours {
            let mut jar = self.jar.lock().unwrap();
            for cookie in &set_cookies {
                let pair = cookie.split(';').next().unwrap();
                let (name, value) = pair.split_once('=').unwrap();
                if cookie.contains("Max-Age=0") {
                    jar.remove(name);
                } else {
                    jar.insert(name.to_string(), value.to_string());
                }
            }
        }
        let text = resp.text().await.unwrap();
        Answer {
            status,
            location,
            set_cookies,
            text,
        }
    }

    /// GET `url` (a path of the service, or a full URL); the service gets this browser's cookies.
    pub async fn get(&self, url: &str) -> Answer {
        let url = if url.starts_with('/') {
            format!("{}{url}", self.base)
        } else {
            url.to_string()
        };
        let ours = url.starts_with(&self.base);
        self.send(self.http.get(&url), ours).await
    }

    /// Whether this browser holds the cookie `name`.
    pub fn holds(&self, name: &str) -> bool {
        self.jar.lock().unwrap().contains_key(name)
    }

    /// Start single sign-on towards `next`: the provider's authorization URL the service redirects to.
    pub async fn start(&self, next: &str) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("next", next)
            .finish();
        let answer = self.get(&format!("/accounts/oidc/login/?{query}")).await;
        assert_eq!(answer.status, 303, "{answer:?}");
        assert!(answer.sets("oidc_flow"), "{answer:?}");
        let flow = answer
            .set_cookies
            .iter()
            .find(|c| c.starts_with("oidc_flow="));
        let flow = flow.unwrap();
        assert!(
            flow.contains("HttpOnly") && flow.contains("Path=/accounts/oidc/"),
            "{flow}"
        );
        let location = answer.location.unwrap();
        let url = url::Url::parse(&location).unwrap();
        let query: BTreeMap<String, String> = url.query_pairs().into_owned().collect();
        assert_eq!(query["code_challenge_method"], "S256", "{location}");
        for secret in ["nonce", "state"] {
            assert!(
                !flow.contains(&query[secret]),
                "the {secret} is sealed, not readable"
            );
        }
        location
    }

    /// Answer the provider's authorization form as `sub`: the callback URL it sends the browser back to.
    pub async fn authorize(&self, authorize_url: &str, sub: &str) -> String {
        let answer = self
            .send(
                self.http
                    .post(authorize_url)
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(format!(
                        "sub={}",
                        url::form_urlencoded::byte_serialize(sub.as_bytes()).collect::<String>()
                    )),
                false,
            )
            .await;
        assert_eq!(answer.status, 302, "{answer:?}");
        answer.location.unwrap()
    }

    /// The whole sign-in as `sub`, towards `next`: the service's answer to the callback.
    pub async fn sign_in(&self, sub: &str, next: &str) -> Answer {
        let authorize = self.start(next).await;
        let callback = self.authorize(&authorize, sub).await;
        self.get(&callback).await
    }
}

/// `url` with the query parameter `name` set to `value`.
pub fn with_param(url: &str, name: &str, value: &str) -> String {
    let mut parsed = url::Url::parse(url).unwrap();
    let pairs: Vec<(String, String)> = parsed
        .query_pairs()
        .into_owned()
        .map(|(k, v)| {
            if k == name {
                (k, value.to_string())
            } else {
                (k, v)
            }
        })
        .collect();
    parsed.query_pairs_mut().clear().extend_pairs(pairs);
    parsed.to_string()
}
