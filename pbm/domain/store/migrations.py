"""Numbered schema migrations.

A migration, once released, never changes: a later change to the schema is a
new migration appended to :data:`MIGRATIONS`.  ``Store.migrate`` applies the
ones a database has not seen yet, each in its own transaction, and records
them in ``schema_migrations``.  Migrations are SQL scripts: the schema holds
what sqlite-utils' table API cannot say (board numbers from 101 with
AUTOINCREMENT, indexes on expressions and partial indexes), and a script
says exactly what a database that ran it looks like.
"""

from __future__ import annotations

INITIAL = """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            userid TEXT NOT NULL,                         -- as the player typed it
            key TEXT NOT NULL UNIQUE,                     -- case-folded, for look-ups
            password_hash TEXT NOT NULL,
            signed_off INTEGER NOT NULL DEFAULT 0,
            deleted_at TEXT,                              -- deleted accounts keep their userid
            created_at TEXT NOT NULL
        );
        CREATE TABLE addresses (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            address TEXT NOT NULL,
            PRIMARY KEY (user_id, address)
        );
        -- per player and game type: challenges accepted?, cap of active games, seeking
        CREATE TABLE preferences (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            accepting INTEGER NOT NULL DEFAULT 1,
            game_limit INTEGER,
            seeking INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, game)
        );
        CREATE TABLE boards (
            number INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL,
            white_id INTEGER NOT NULL REFERENCES users(id),
            black_id INTEGER NOT NULL REFERENCES users(id),
            status TEXT NOT NULL DEFAULT 'active',          -- active | finished
            winner TEXT,                                    -- white | black | NULL
            reason TEXT,            -- loop line draw agreed resign cancelled forfeit
            moves TEXT NOT NULL DEFAULT '',                 -- canonical, blank separated
            rated INTEGER NOT NULL DEFAULT 1,
            nag_days INTEGER NOT NULL,
            forfeit_days INTEGER NOT NULL,
            total_days INTEGER,
            pending_kind TEXT,                              -- draw | undo
            pending_by INTEGER,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX boards_white ON boards(white_id, status);
        CREATE INDEX boards_black ON boards(black_id, status);
        CREATE TABLE moves (
            board INTEGER NOT NULL REFERENCES boards(number),
            ply INTEGER NOT NULL,
            move TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            auto INTEGER NOT NULL DEFAULT 0,
            played_at TEXT NOT NULL,
            PRIMARY KEY (board, ply)
        );
        -- a player's queued line on a board: move1 [reply1 move2 ...]
        CREATE TABLE queued (
            board INTEGER NOT NULL REFERENCES boards(number),
            user_id INTEGER NOT NULL,
            line TEXT NOT NULL,
            PRIMARY KEY (board, user_id)
        );
        -- a submitted move waiting for confirm
        CREATE TABLE submitted (
            board INTEGER NOT NULL REFERENCES boards(number),
            user_id INTEGER NOT NULL,
            move TEXT NOT NULL,
            ply INTEGER NOT NULL,
            PRIMARY KEY (board, user_id)
        );
        -- observers: board = NULL means every future board of that game type
        CREATE TABLE watchers (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            board INTEGER,
            kind TEXT NOT NULL                              -- subscribe | notify
        );
        CREATE UNIQUE INDEX watchers_unique ON watchers(user_id, game, IFNULL(board, 0), kind);
        CREATE TABLE handled (
            message_key TEXT PRIMARY KEY,                   -- Message-ID, or a hash of the bytes
            sender TEXT,
            summary TEXT,                                   -- commands, passwords masked
            outcome TEXT NOT NULL,
            handled_at TEXT NOT NULL
        );
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            message_key TEXT,                               -- the mail it answers
            recipient TEXT NOT NULL,
            message BLOB NOT NULL,                          -- RFC 5322 bytes
            created_at TEXT NOT NULL,
            sent_at TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at TEXT,
            last_error TEXT
        );
        CREATE INDEX outbox_unsent ON outbox(sent_at, id);
        -- board numbers start at 101
        INSERT INTO sqlite_sequence (name, seq) VALUES ('boards', 100);
"""

# Mail that crashed the pipeline when it came over SMTP (IMAP mail goes to a
# failed folder instead): kept whole for the operator to look at and retry.
FAILED_MAIL = """
        CREATE TABLE failed_mail (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,                           -- smtp | imap | cli
            raw BLOB NOT NULL,
            error TEXT NOT NULL,
            failed_at TEXT NOT NULL,
            retried_at TEXT
        );
        -- replies the relay refused for good (a 5xx for that message): kept, not retried
        ALTER TABLE outbox ADD COLUMN refused_at TEXT;
"""

# Clocks and ratings (issue 5).
CLOCKS_AND_RATINGS = """
        ALTER TABLE boards ADD COLUMN tournament TEXT;      -- NULL: an ordinary board
        ALTER TABLE boards ADD COLUMN turn_since TEXT;      -- when the player to move got the turn
        ALTER TABLE boards ADD COLUMN nags INTEGER NOT NULL DEFAULT 0;  -- reminders since then
        ALTER TABLE boards ADD COLUMN finished_at TEXT;
        -- ratings before and after a rated game (NULL when it was not rated)
        ALTER TABLE boards ADD COLUMN white_before REAL;
        ALTER TABLE boards ADD COLUMN white_after REAL;
        ALTER TABLE boards ADD COLUMN black_before REAL;
        ALTER TABLE boards ADD COLUMN black_after REAL;
        CREATE INDEX boards_status ON boards(status, game);
        -- one row per player and game type, once they finished a rated game
        CREATE TABLE ratings (
            user_id INTEGER NOT NULL REFERENCES users(id),
            game TEXT NOT NULL,
            rating REAL NOT NULL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            last_game_at TEXT,
            PRIMARY KEY (user_id, game)
        );
        -- leave: [starts_at, ends_at); "vacation off" moves ends_at to that moment
        CREATE TABLE vacations (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id),
            starts_at TEXT NOT NULL,
            ends_at TEXT NOT NULL
        );
        CREATE INDEX vacations_user ON vacations(user_id, starts_at);
        UPDATE boards SET turn_since = COALESCE(
            (SELECT MAX(played_at) FROM moves WHERE moves.board = boards.number), created_at);
        UPDATE boards SET finished_at = updated_at WHERE status = 'finished';
"""

# Tournaments (issue 6).
TOURNAMENTS = """
        ALTER TABLE boards ADD COLUMN label TEXT;           -- a tournament board's name (ETC26-A3)
        CREATE UNIQUE INDEX boards_label ON boards(lower(label)) WHERE label IS NOT NULL;
        CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,                             -- as the director typed it
            key TEXT NOT NULL UNIQUE,                       -- case-folded
            game TEXT NOT NULL,
            director_id INTEGER NOT NULL REFERENCES users(id),
            format TEXT NOT NULL,               -- roundrobin double swiss knockout pools
            rounds INTEGER,                                 -- swiss
            pool_size INTEGER,                              -- pools
            advance INTEGER,                                -- pools: how many reach the final
            nag_days REAL NOT NULL,
            forfeit_days REAL NOT NULL,
            rated INTEGER NOT NULL DEFAULT 1,
            max_players INTEGER,
            start_date TEXT,                                -- YYYY-MM-DD: started by the clock work
            status TEXT NOT NULL DEFAULT 'open',            -- open | running | finished
            stage TEXT,                                     -- pools: pools | final
            round INTEGER NOT NULL DEFAULT 0,               -- swiss, knockout: the round in play
            round_started_at TEXT,
            reported_round INTEGER,            -- knockout: the last round reported late to the director
            created_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT
        );
        CREATE TABLE entrants (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            user_id INTEGER NOT NULL REFERENCES users(id),
            seed INTEGER,                                   -- 1 = highest rated at the start
            pool TEXT,                                      -- pools: A, B, ...
            joined_at TEXT NOT NULL,
            withdrawn_at TEXT,
            PRIMARY KEY (tournament_id, user_id)
        );
        -- one game of the event (a board), or a bye (black_id NULL)
        CREATE TABLE pairings (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            stage TEXT NOT NULL,                            -- main | pool letter | final
            round INTEGER NOT NULL,
            white_id INTEGER NOT NULL REFERENCES users(id),
            black_id INTEGER REFERENCES users(id),
            board INTEGER REFERENCES boards(number),
            result REAL,                                    -- white's score, once decided
            decided_by TEXT                                 -- play | director | bye
        );
        CREATE INDEX pairings_tournament ON pairings(tournament_id, stage, round);
        CREATE INDEX pairings_board ON pairings(board);
"""

# Account security and abuse limits (issue 7).
SECURITY = """
        ALTER TABLE users ADD COLUMN failed_logins INTEGER NOT NULL DEFAULT 0;  -- wrong passwords in a row
        ALTER TABLE users ADD COLUMN locked_until TEXT;     -- after too many wrong passwords
        ALTER TABLE users ADD COLUMN operator_locked INTEGER NOT NULL DEFAULT 0;  -- pbm user lock
        -- an address other than the sender's receives game mail only once it confirmed
        ALTER TABLE addresses ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1;
        -- one-time codes: password resets and address confirmations (only a hash is kept)
        CREATE TABLE codes (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id),
            kind TEXT NOT NULL,                             -- reset | confirm
            address TEXT,                                   -- confirm: the address asked about
            code_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            used_at TEXT
        );
        CREATE INDEX codes_user ON codes(user_id, kind);
        -- mails answered per sender per day, and whether the "no more today" notice went out
        CREATE TABLE sender_days (
            sender TEXT NOT NULL,                           -- lower case
            day TEXT NOT NULL,                              -- YYYY-MM-DD, UTC
            mails INTEGER NOT NULL DEFAULT 0,
            noticed INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (sender, day)
        );
        CREATE TABLE broadcasts (
            user_id INTEGER NOT NULL REFERENCES users(id),
            sent_at TEXT NOT NULL
        );
"""

# Wrong passwords counted by where they come from (issue 15): a stranger's
# guesses slow the stranger down and never lock the owner out.  The per-userid
# columns users.failed_logins and users.locked_until are no longer read.
THROTTLES = """
        CREATE TABLE login_failures (
            sender TEXT NOT NULL,                           -- lower case
            user_id INTEGER NOT NULL REFERENCES users(id),
            failures INTEGER NOT NULL DEFAULT 0,            -- in a row, from this sender for this user
            blocked_until TEXT,                             -- no password from it is checked before then
            noticed_at TEXT,                                -- when the owner was last told of a block
            PRIMARY KEY (sender, user_id)
        );
        CREATE INDEX login_failures_user ON login_failures(user_id);
        ALTER TABLE sender_days ADD COLUMN failed_logins INTEGER NOT NULL DEFAULT 0;
        UPDATE users SET failed_logins = 0, locked_until = NULL;
        -- what is counted per day for a cap: invitations to a player, confirmations
        -- to an address, signups and broadcasts from a sender ...
        CREATE TABLE daily_counts (
            kind TEXT NOT NULL,
            key TEXT NOT NULL,                              -- lower case
            day TEXT NOT NULL,                              -- YYYY-MM-DD, UTC
            n INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (kind, key, day)
        );
        CREATE INDEX boards_created ON boards(created_at);
"""

# A player's own settings (issue 16): board pictures in mail, on by default.
SETTINGS = """
        ALTER TABLE users ADD COLUMN pictures INTEGER NOT NULL DEFAULT 1;
"""

# Every variant of the 2017 rules (issue 18): a board's own rules and, for
# LuckyTrax, the tile drawn for each turn.
VARIANT_RULES = """
        ALTER TABLE boards ADD COLUMN ending TEXT;          -- limited types: draw | lastloses; NULL: the type's
        ALTER TABLE boards ADD COLUMN points INTEGER;       -- pointtrax: the winning score; NULL: the default
        ALTER TABLE boards ADD COLUMN draws TEXT NOT NULL DEFAULT '';  -- luckytrax: the face drawn per turn
        ALTER TABLE tournaments ADD COLUMN ending TEXT;     -- the rules of the event's boards
        ALTER TABLE tournaments ADD COLUMN points INTEGER;
"""

# Play by pressing Reply (issue 19): reply tokens, the daily digest, bounces
# that stop a clock.
REPLIES = """
        -- a token in the Message-ID of a board mail (or a digest) to a player: a reply to that mail
        -- from one of the player's addresses is a command without a password
        CREATE TABLE reply_tokens (
            id INTEGER PRIMARY KEY,
            token_hash TEXT NOT NULL UNIQUE,                -- sha256 of the token; the token is never stored
            user_id INTEGER NOT NULL REFERENCES users(id),
            board INTEGER REFERENCES boards(number),        -- NULL: a digest (its boards below)
            ply INTEGER,                                    -- the board's move count when the mail was made
            created_at TEXT NOT NULL,
            used_at TEXT,
            used_for TEXT                                   -- the move it played
        );
        CREATE TABLE digest_boards (
            token_id INTEGER NOT NULL REFERENCES reply_tokens(id) ON DELETE CASCADE,
            board INTEGER NOT NULL REFERENCES boards(number),
            ply INTEGER NOT NULL,
            used_for TEXT,
            PRIMARY KEY (token_id, board)
        );
        ALTER TABLE users ADD COLUMN digest_hour INTEGER;   -- NULL: no digest; else the hour (UTC) of the daily mail
        ALTER TABLE users ADD COLUMN digest_sent TEXT;      -- the day (YYYY-MM-DD) the last digest went
        ALTER TABLE outbox ADD COLUMN message_id TEXT;      -- ours, to match delivery reports
        CREATE INDEX outbox_message_id ON outbox(message_id);
        CREATE TABLE bounces (
            id INTEGER PRIMARY KEY,
            address TEXT NOT NULL,                          -- lower case: the recipient the report names
            user_id INTEGER REFERENCES users(id),
            message_id TEXT,                                -- of our mail that bounced
            action TEXT NOT NULL,                           -- failed | delayed | delivered | relayed | expanded
            status TEXT,                                    -- e.g. 5.1.1
            reported_at TEXT NOT NULL
        );
        CREATE INDEX bounces_address ON bounces(address);
        -- a player's clock stops while mail to them bounces
        CREATE TABLE mail_holds (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id),
            address TEXT NOT NULL,
            starts_at TEXT NOT NULL,
            ends_at TEXT                                    -- NULL: still bouncing
        );
        CREATE INDEX mail_holds_user ON mail_holds(user_id);
"""

# Look-ups that every mail makes, by index (issue 20): addresses by their
# lower-case form (who wrote, whose hold ends), a board's observers, the
# holds still open.  (reply_tokens.token_hash is now the hash of the
# token's secret part, found by the row id the token carries; the column
# keeps its UNIQUE index, as released.)
SPEED = """
        CREATE INDEX addresses_lower ON addresses(lower(address));
        CREATE INDEX watchers_board ON watchers(game, board);
        CREATE INDEX mail_holds_open ON mail_holds(user_id) WHERE ends_at IS NULL;
"""

# The computer opponent (issue 21).  Its account is an ordinary user marked
# ``computer`` (no address, a password nobody knows).  A board against it
# keeps the level it plays at.  Whenever a board comes to need something of
# the computer (its turn, or an offer of its opponent to answer), a trigger
# queues a job for it in the same transaction as the change that caused it,
# so no path that changes a board can forget to, and a crash or restart
# loses nothing: the daemon's searcher works through the jobs not done.
# The ply of a board is the number of blank-separated words in ``moves``.
COMPUTER = """
        ALTER TABLE users ADD COLUMN computer INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE boards ADD COLUMN level INTEGER;        -- against the computer: the level it plays at
        CREATE TABLE computer_jobs (
            id INTEGER PRIMARY KEY,
            board INTEGER NOT NULL REFERENCES boards(number),
            ply INTEGER NOT NULL,                           -- the board's move count when queued
            pending TEXT NOT NULL DEFAULT '',               -- '': a move to make; draw | undo: an offer to answer
            queued_at TEXT NOT NULL,
            started_at TEXT,                                -- the last time a search began
            attempts INTEGER NOT NULL DEFAULT 0,
            done_at TEXT,
            outcome TEXT                                    -- the move played, the answer, or why nothing was
        );
        -- one open job per need (a take-back can bring a board back to a move count done before)
        CREATE UNIQUE INDEX computer_jobs_open ON computer_jobs(board, ply, pending) WHERE done_at IS NULL;
        CREATE TRIGGER computer_turn_new AFTER INSERT ON boards
        WHEN NEW.status = 'active' AND NEW.moves = ''
        BEGIN
            INSERT OR IGNORE INTO computer_jobs (board, ply, queued_at)
            SELECT NEW.number, 0, NEW.updated_at FROM users WHERE id = NEW.white_id AND computer = 1;
        END;
        CREATE TRIGGER computer_turn AFTER UPDATE OF moves ON boards
        WHEN NEW.status = 'active' AND NEW.moves IS NOT OLD.moves
        BEGIN
            INSERT OR IGNORE INTO computer_jobs (board, ply, queued_at)
            SELECT NEW.number, ply, NEW.updated_at
            FROM (SELECT CASE WHEN NEW.moves = '' THEN 0
                              ELSE length(NEW.moves) - length(replace(NEW.moves, ' ', '')) + 1 END AS ply)
            JOIN users ON users.id = CASE WHEN ply % 2 = 0 THEN NEW.white_id ELSE NEW.black_id END
            WHERE users.computer = 1;
        END;
        CREATE TRIGGER computer_offer AFTER UPDATE OF pending_kind ON boards
        WHEN NEW.status = 'active' AND NEW.pending_kind IS NOT NULL AND NEW.pending_kind IS NOT OLD.pending_kind
        BEGIN
            INSERT OR IGNORE INTO computer_jobs (board, ply, pending, queued_at)
            SELECT NEW.number, CASE WHEN NEW.moves = '' THEN 0
                                    ELSE length(NEW.moves) - length(replace(NEW.moves, ' ', '')) + 1 END,
                   NEW.pending_kind, NEW.updated_at
            FROM users
            WHERE users.computer = 1 AND users.id IN (NEW.white_id, NEW.black_id) AND users.id != NEW.pending_by;
        END;
        CREATE TRIGGER computer_game_over AFTER UPDATE OF status ON boards
        WHEN NEW.status != 'active'
        BEGIN
            UPDATE computer_jobs SET done_at = NEW.updated_at, outcome = 'game over'
            WHERE board = NEW.number AND done_at IS NULL;
        END;
        -- results against the computer, rated apart from the ratings between people
        CREATE TABLE computer_ratings (
            user_id INTEGER NOT NULL REFERENCES users(id),
            game TEXT NOT NULL,
            rating REAL NOT NULL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, game)
        );
"""

# Trust no From (issue 28).  A board from a challenge waits for the consent
# of the player challenged (his first move or an accept) before it is rated
# and his clock runs; boards made before were agreed to.  A player may take
# every challenge at once (``open_challenges``).  A hold on a clock for a
# bounce ends by itself after a bounded time.  Sent replies keep no bytes:
# the tokens and codes they carried were in them (replies are now queued
# with seals in their place, and sent rows are deleted after a while).
TRUST = """
        ALTER TABLE boards ADD COLUMN challenged_id INTEGER REFERENCES users(id);  -- NULL: nobody to consent
        ALTER TABLE boards ADD COLUMN accepted_at TEXT;     -- NULL: the challenged player has not consented yet
        UPDATE boards SET accepted_at = created_at;
        CREATE INDEX boards_open_challenges ON boards(challenged_id) WHERE accepted_at IS NULL;
        ALTER TABLE users ADD COLUMN open_challenges INTEGER NOT NULL DEFAULT 0;  -- 1: takes challenges at once
        UPDATE mail_holds SET ends_at = strftime('%Y-%m-%dT%H:%M:%S+00:00', starts_at, '+7 days')
            WHERE ends_at IS NULL;
        CREATE INDEX mail_holds_ends ON mail_holds(ends_at);
        UPDATE outbox SET message = x'', message_id = NULL WHERE sent_at IS NOT NULL OR refused_at IS NOT NULL;
        CREATE INDEX outbox_sent ON outbox(sent_at) WHERE sent_at IS NOT NULL;
"""

# A game against the computer is rated apart (issue 30): the person's rating
# against it before and after the game, kept on the board for its end mail
# (the columns of ratings between people stay empty, as before).
RATED_APART = """
        ALTER TABLE boards ADD COLUMN apart_before REAL;
        ALTER TABLE boards ADD COLUMN apart_after REAL;
"""

# Replies in the player's language (issue 31): the language an account is
# answered in, a code of pbm.languages.LANGUAGES; NULL: not chosen (English).
LANGUAGE = """
        ALTER TABLE users ADD COLUMN language TEXT;  -- NULL: not chosen, English
"""

# Hints and analyses (issue 32): a hint given on a board, one per turn (the
# move it named, so that asking again repeats it); and the analyses of
# finished games asked for by mail, queued for the computer's workers like
# its moves, each answered to the address that asked (in the language it
# asked in when it has no account).
COACHING = """
        CREATE TABLE hints (
            board INTEGER NOT NULL REFERENCES boards(number),
            ply INTEGER NOT NULL,
            move TEXT NOT NULL,
            reason TEXT,
            cells TEXT NOT NULL DEFAULT '',
            given_at TEXT NOT NULL,
            PRIMARY KEY (board, ply)
        );
        CREATE TABLE analyses (
            id INTEGER PRIMARY KEY,
            board INTEGER NOT NULL REFERENCES boards(number),
            address TEXT NOT NULL,       -- lowercased: where the analysis goes
            requester TEXT NOT NULL,     -- who is served in turns: u<user id>, or the address
            language TEXT,               -- the language asked for, when the address has no account
            queued_at TEXT NOT NULL,
            started_at TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            done_at TEXT,
            outcome TEXT
        );
        CREATE UNIQUE INDEX analyses_open ON analyses(board, address) WHERE done_at IS NULL;
        CREATE INDEX analyses_waiting ON analyses(id) WHERE done_at IS NULL;
        CREATE INDEX analyses_asked ON analyses(address, queued_at);
"""


# The tables a process keeps in memory between mails (accounts, addresses,
# leave, login failures, observers: read on every mail, written rarely):
# every write to them, by any connection, counts the generation up, so a
# cache that saw another number knows it is stale (connection.py).
KEPT_TABLES = ("users", "addresses", "vacations", "mail_holds", "login_failures", "watchers")
GENERATION = "CREATE TABLE generation (n INTEGER NOT NULL);\nINSERT INTO generation (n) VALUES (0);\n" + "\n".join(
    f"CREATE TRIGGER generation_{table}_{change.lower()} AFTER {change} ON {table}\n"
    "    BEGIN UPDATE generation SET n = n + 1; END;"
    for table in KEPT_TABLES for change in ("INSERT", "UPDATE", "DELETE"))

# (number, description, SQL script); applied in order, each in one transaction.
MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "initial schema", INITIAL),
    (2, "failed mail, refused replies", FAILED_MAIL),
    (3, "clocks and ratings", CLOCKS_AND_RATINGS),
    (4, "tournaments", TOURNAMENTS),
    (5, "account security and limits", SECURITY),
    (6, "wrong passwords counted by sender, daily caps", THROTTLES),
    (7, "players' settings", SETTINGS),
    (8, "variant rules and lucky draws", VARIANT_RULES),
    (9, "reply tokens, digests and bounces", REPLIES),
    (10, "indexes for the look-ups of every mail", SPEED),
    (11, "the computer opponent", COMPUTER),
    (12, "consent to games, bounded holds, no secrets in sent mail", TRUST),
    (13, "a game against the computer keeps its rating change", RATED_APART),
    (14, "the language each player is answered in", LANGUAGE),
    (15, "hints, and analyses of finished games", COACHING),
    (16, "a generation count of the tables kept in memory", GENERATION),
]
