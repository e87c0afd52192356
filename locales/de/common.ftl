# Wörter, die Seiten und E-Mails teilen.

# Eine Dauer: Stunden, dann duration-minutes (zweistellig, als Text): "2 Std. 05 Min.".
duration-hours-minutes = { $h } Std. { $rest }
duration-minutes = { $m } Min.

# Dateigrößen ($n: eine ganze Zahl oder eine schon passend geschriebene Dezimalzahl).
size-bytes = { $n } B
size-kb = { $n } KB
size-mb = { $n } MB
