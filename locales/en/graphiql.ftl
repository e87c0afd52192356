# The GraphiQL page (/graphql in a browser). "Signed in as <name>: queries run as you." and "Not signed in:
# <sign in>, or put <code> in the Headers tab below." are split around the name, the link and the code.
graphiql-signed-in-as = Signed in as
graphiql-run-as-you = : queries run as you.
graphiql-back = Back to the queue
graphiql-not-signed-in = Not signed in:
graphiql-sign-in = sign in
graphiql-or-put = , or put
graphiql-api-token = API token
graphiql-in-headers-tab = in the Headers tab below.
graphiql-loading = Loading…
