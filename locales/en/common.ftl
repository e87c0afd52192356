# Words shared by pages and emails.

# A duration: hours, then duration-minutes (two digits, given as text): "2h 05m".
duration-hours-minutes = { $h }h { $rest }
duration-minutes = { $m }m

# File sizes ($n: a whole number, or a decimal already written the language's way).
size-bytes = { $n } B
size-kb = { $n } KB
size-mb = { $n } MB
