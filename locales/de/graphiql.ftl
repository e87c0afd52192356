# Die GraphiQL-Seite (/graphql im Browser). „Angemeldet als <Name>: …“ und „Nicht angemeldet: <Anmelden>, oder
# setzen Sie <Code> … ein.“ sind um den Namen, den Link und den Code herum geteilt.
graphiql-signed-in-as = Angemeldet als
graphiql-run-as-you = : Abfragen laufen unter Ihrem Konto.
graphiql-back = Zurück zur Ticketliste
graphiql-not-signed-in = Nicht angemeldet:
graphiql-sign-in = melden Sie sich an
graphiql-or-put = , oder setzen Sie
graphiql-api-token = API-Token
graphiql-in-headers-tab = unten im Tab „Headers“ ein.
graphiql-loading = Wird geladen…
