"""The command language: mail Subject lines (and bodies) -> parsed commands.

Pure: no I/O, no database, no clock, standard library only.

>>> from pbm.grammar import parse_command, decode_subject
>>> command = parse_command(decode_subject("Re: TRAX move 101 Alice s3cret b2/#5"))
>>> command.name, command.game, command.args.board, str(command.args.move)
('move', 'trax', 101, 'B2/#5')
>>> command
Command('TRAX move 101 Alice ******** b2/#5')
>>> command.args.userid.key, command.args.password.reveal()
('alice', 's3cret')

The pieces:

- :func:`decode_subject`: RFC 2047 decoding, unfolding, ``Re:``/``Fwd:`` prefixes.
- :func:`parse_command`: one line -> :class:`Command` or :class:`CommandError`.
- :func:`parse_mail_commands`: subject and body -> :class:`MailCommands`
  (``multiple`` bodies, commands in the body, the comment).
- :func:`comment_text`: the body as a comment to relay.
- :data:`REGISTRY` (name -> :class:`CommandSpec`) and :func:`usage`.

Choices where the command language is silent:

- Words after a command are read by position; options (``-x``/``--x``,
  ``=value``, any case) come after the positional words.  Userids and
  passwords may not begin with ``-``, userids not with digits only, nor
  hold ``#``; ``all active inactive next new`` are not userids.
- A parsed command keeps no copy of its password in plain text: ``text`` is
  already masked, the :class:`Password` in ``args`` is the only copy.  Error
  messages in commands that carry a password quote only boards, moves,
  addresses and option names; other words are named by their role.  Words
  a command has no place for (beyond what it takes, in its name's place, on
  a reply's line beside the move) are never quoted either: a password typed
  by habit may be among them.
- "Not given" is ``None`` in the arguments (no defaults from configuration
  are applied here).  Lists of userids and boards lose repeats.
- Subjects and lines are NFC-normalised (passwords too, as RFC 8265 does);
  userids compare by NFKC case-folding.
"""

from .account_commands import (
    SETTINGS,
    AddressesArgs,
    AllShowArgs,
    ChangePasswordArgs,
    CodeArgs,
    HelpArgs,
    LoginArgs,
    MessageArgs,
    NoArgs,
    SetArgs,
    SignupArgs,
    UseridArgs,
    VacationArgs,
)
from .command import Command
from .game_commands import (
    BoardArgs,
    BoardLoginArgs,
    ChallengeArgs,
    GamesArgs,
    LimitArgs,
    MoveArgs,
    NotifyArgs,
    PreviewArgs,
    QueueArgs,
    SeekArgs,
    ShowArgs,
    ShowAsArgs,
    SubscribeArgs,
)
from .mail import (
    MAX_COMMANDS,
    LooseLine,
    MailCommands,
    ReplyBody,
    ReplyLine,
    comment_text,
    is_board_mail_subject,
    parse_mail_commands,
    parse_reply,
)
from .parse import MAX_COMMAND_LENGTH, looks_like_command, parse_command
from .registry import GAMES, PHRASES, REGISTRY, usage
from .spec import CommandError, CommandSpec, Option, Scope, UnreadMove
from .subject import decode_subject
from .tournament_commands import (
    TournamentArgs,
    TournamentCreateArgs,
    TournamentLoginArgs,
    TournamentResultArgs,
    TournamentWithdrawArgs,
)
from .words import BoardRef, Password, TournamentName, UserId, WrittenMove

__all__ = [
    "GAMES",
    "MAX_COMMANDS",
    "MAX_COMMAND_LENGTH",
    "PHRASES",
    "REGISTRY",
    "SETTINGS",
    "AddressesArgs",
    "AllShowArgs",
    "BoardArgs",
    "BoardLoginArgs",
    "BoardRef",
    "ChallengeArgs",
    "ChangePasswordArgs",
    "CodeArgs",
    "Command",
    "CommandError",
    "CommandSpec",
    "GamesArgs",
    "HelpArgs",
    "LimitArgs",
    "LoginArgs",
    "LooseLine",
    "MailCommands",
    "MessageArgs",
    "MoveArgs",
    "NoArgs",
    "NotifyArgs",
    "Option",
    "Password",
    "PreviewArgs",
    "QueueArgs",
    "ReplyBody",
    "ReplyLine",
    "Scope",
    "SeekArgs",
    "SetArgs",
    "ShowArgs",
    "ShowAsArgs",
    "SignupArgs",
    "SubscribeArgs",
    "TournamentArgs",
    "TournamentCreateArgs",
    "TournamentLoginArgs",
    "TournamentName",
    "TournamentResultArgs",
    "TournamentWithdrawArgs",
    "UnreadMove",
    "UserId",
    "UseridArgs",
    "VacationArgs",
    "WrittenMove",
    "comment_text",
    "decode_subject",
    "is_board_mail_subject",
    "looks_like_command",
    "parse_command",
    "parse_mail_commands",
    "parse_reply",
    "usage",
]
