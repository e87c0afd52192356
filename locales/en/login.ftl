login-title = Sign in
login-with = Sign in with { $provider }
login-password-note = Password sign-in is reserved for the emergency administrator account.
login-username = Username
login-password = Password
login-submit = Sign in

# What the sign-in form says when it is sent back.
login-error-expired = The form expired or was not sent by this site. Please try again.
login-error-missing = Enter your username and password.
login-error-too-many = Too many failed sign-in attempts. Try again in { $minutes ->
        [one] { $minutes } minute
       *[other] { $minutes } minutes
    }.
