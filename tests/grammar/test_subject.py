"""From a raw Subject header to the command line: encoded words, folding,
blanks and reply/forward prefixes."""

import base64

import pytest

from pbm.grammar import decode_subject, parse_command


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("trax show 101", "trax show 101"),
        ("=?utf-8?q?trax_show_101?=", "trax show 101"),
        ("=?UTF-8?Q?trax_show_101?=", "trax show 101"),
        (
            "=?iso-8859-1?b?" + base64.b64encode("trax show 101".encode("latin-1")).decode() + "?=",
            "trax show 101",
        ),
        ("=?iso-8859-1?q?signup_J=F6rg_s=E9cret?=", "signup Jörg sécret"),
        (
            "=?utf-8?b?" + base64.b64encode("signup Jörg sécret".encode()).decode() + "?=",
            "signup Jörg sécret",
        ),
        ("=?windows-1252?q?trax_chat_101_alice_pw_=93hi=94?=", "trax chat 101 alice pw “hi”"),
        ("trax =?utf-8?q?show?= 101", "trax show 101"),
        ("=?utf-8?q?trax?= =?utf-8?q?_show_101?=", "trax show 101"),  # blanks between encoded words vanish
        ("=?utf-8?q?trax?=\r\n =?utf-8?q?_show?=\r\n 101", "trax show 101"),  # folded
        ("trax show\r\n\t101", "trax show 101"),
        ("=?utf-8*en?q?trax_show_101?=", "trax show 101"),  # RFC 2231 language tag
    ],
)
def test_encoded_words_are_decoded_and_lines_unfolded(raw, expected):
    assert decode_subject(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "=?utf-8?b?broken===?=",
        "=?utf-8?b?////?=",
        "=?x-unknown-charset?q?trax_show_101?=",
        "=?utf-8?q?unterminated",
        "=?utf-8?z?trax?=",
        "=?" * 500,
        "=?utf-8?q?=FF=FE?=",
        "\udcff\udcfe trax",  # undecodable bytes, as surrogateescape leaves them
        "\x00\x01\x1b[31m trax",
    ],
)
def test_broken_encodings_never_raise_and_give_printable_text(raw):
    text = decode_subject(raw)
    assert isinstance(text, str)
    assert text.isprintable()
    assert text == text.strip() and "  " not in text


def test_an_unknown_charset_still_gives_the_ascii_words():
    assert decode_subject("=?x-unknown?q?trax_show_101?=") == "trax show 101"


@pytest.mark.parametrize(
    "raw",
    [
        "Re: trax show 101",
        "RE: trax show 101",
        "re:trax show 101",
        "Re : trax show 101",
        "Fwd: trax show 101",
        "FW: trax show 101",
        "Fw: trax show 101",
        "AW: trax show 101",
        "WG: trax show 101",
        "SV: trax show 101",
        "Antw: trax show 101",
        "Réf: trax show 101",
        "RÉF : trax show 101",
        "TR: trax show 101",
        "Re[2]: trax show 101",
        "Re(3): trax show 101",
        "Re^4: trax show 101",
        "Re：trax show 101",
        "[trax-list] trax show 101",
        "Re: Fwd: AW: [pbm] RE[2]: trax show 101",
        "trax show 101 (fwd)",
        "=?utf-8?q?R=C3=A9f=3A?= trax show 101",
        "  \t Re:   trax    show\t101  ",
    ],
)
def test_reply_and_forward_prefixes_are_stripped_however_many(raw):
    assert decode_subject(raw) == "trax show 101"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Rex: trax show 101", "Rex: trax show 101"),  # not a prefix
        ("Re", "Re"),
        ("Re:", ""),
        ("Are: you there", "Are: you there"),
        ("trax Re: show", "trax Re: show"),  # only at the front
    ],
)
def test_only_real_prefixes_at_the_front_are_stripped(raw, expected):
    assert decode_subject(raw) == expected


def test_case_is_kept_for_the_passwords_sake():
    assert decode_subject("Re: TRAX Move 101 Alice S3cReT B2/") == "TRAX Move 101 Alice S3cReT B2/"


def test_an_encoded_password_with_non_ascii_letters_arrives_intact():
    raw = "=?utf-8?q?trax_resign_101_alice_p=C3=A4ssw=C3=B6rd?="
    assert parse_command(decode_subject(raw)).args.password.reveal() == "pässwörd"


def test_decomposed_letters_are_composed():
    assert decode_subject("signup jo\u0308rg pw") == "signup j\u00f6rg pw"


def test_a_subject_that_is_not_text_gives_empty_text():
    assert decode_subject(None) == ""  # type: ignore[arg-type]


def test_an_enormous_subject_is_cut_before_decoding():
    assert len(decode_subject("x " * 100_000)) < 10_000
