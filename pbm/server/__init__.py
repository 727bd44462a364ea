"""The server's edges: IMAP and SMTP intake, the outbox sender, the daemon
that runs them, and the command line."""
