#!/usr/bin/env bash
# What the mail benchmark needs: Dovecot (the test command installs it too)
# and Postfix's smtp-sink. Postfix is installed with no configuration and is
# never left running as a mail server: only its smtp-sink program is used.
set -euo pipefail
need=()
command -v dovecot >/dev/null || need+=(dovecot-imapd dovecot-lmtpd)
command -v smtp-sink >/dev/null || [ -x /usr/sbin/smtp-sink ] || need+=(postfix)
if [ ${#need[@]} -gt 0 ]; then
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# in case the package started it: no mail server stays up
postfix stop >/dev/null 2>&1 || true
systemctl disable --now postfix >/dev/null 2>&1 || true
echo "ready: $(command -v dovecot) and $(command -v smtp-sink || echo /usr/sbin/smtp-sink)"
