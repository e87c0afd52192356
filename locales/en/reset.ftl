# Forgotten passwords (/accounts/password-reset/).
reset-title = Reset your password
reset-new-password = New password
reset-set-password = Set password
reset-email = Your email address
reset-send-link = Email me a link
reset-back = Back to sign-in
reset-expired = The form expired or was not sent by this site. Please try again.
reset-link-sent = If an account has this address, a link to reset its password is on its way. It works once, for a limited time.
