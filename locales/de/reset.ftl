# Vergessene Passwörter (/accounts/password-reset/).
reset-title = Passwort zurücksetzen
reset-new-password = Neues Passwort
reset-set-password = Passwort festlegen
reset-email = Ihre E-Mail-Adresse
reset-send-link = Link per E-Mail senden
reset-back = Zurück zur Anmeldung
reset-expired = Das Formular ist abgelaufen oder wurde nicht von dieser Website gesendet. Bitte versuchen Sie es erneut.
reset-link-sent = Wenn ein Konto diese Adresse hat, ist ein Link zum Zurücksetzen des Passworts unterwegs. Er funktioniert einmal und nur für begrenzte Zeit.
