login-title = Anmelden
login-with = Anmelden mit { $provider }
login-password-note = Die Anmeldung mit Passwort ist dem Notfall-Administratorkonto vorbehalten.
login-username = Benutzername
login-password = Passwort
login-submit = Anmelden

# Was das Anmeldeformular sagt, wenn es zurückkommt.
login-error-expired = Das Formular ist abgelaufen oder wurde nicht von dieser Website gesendet. Bitte versuchen Sie es erneut.
login-error-missing = Geben Sie Ihren Benutzernamen und Ihr Passwort ein.
login-error-too-many = Zu viele fehlgeschlagene Anmeldeversuche. Versuchen Sie es in { $minutes ->
        [one] { $minutes } Minute
       *[other] { $minutes } Minuten
    } erneut.
