#!/bin/sh
# Install what the IMAP tests need: Debian's Dovecot (IMAP server). Safe to run again: it does nothing when
# the dovecot binary is already there. The tests start their own Dovecot with a throwaway configuration;
# the system's Dovecot service is not used.
set -eu
if [ -x /usr/sbin/dovecot ] && [ -e /usr/lib/dovecot/imap ]; then
    echo "dovecot already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends dovecot-imapd
# The package starts a system Dovecot on ports 143 and 993 where an init system runs; the tests need none.
$SUDO service dovecot stop >/dev/null 2>&1 || true
/usr/sbin/dovecot --version
