"""The language each player is answered in (issue 31, "Choosing"): chosen
with ``set ... language``, at signup with ``language=LANG``, or, for a new
account with none given, taken from the signup mail's ``Content-Language``
or ``Accept-Language``; English otherwise.  The store tells the composer
each recipient's language (``languages_of``)."""

from __future__ import annotations

import pytest

from pbm.languages import DEFAULT, LANGUAGES, asked_by_mail, from_accept_language, from_content_language

from .conftest import flat, is_error, text_of, to_of

A, B, C = "alice@example.org", "bob@example.org", "carol@example.org"


def language(mail, userid: str) -> str | None:
    user = mail.pipeline.store.find_user(userid)
    assert user is not None
    return user.language


def test_the_languages_and_the_default():
    assert LANGUAGES == ("en", "de", "ja")
    assert DEFAULT == "en"


# --- set ... language ----------------------------------------------------------------


def test_a_player_sets_his_language_and_sees_it_among_his_settings(players):
    (listed,) = players.send(A, "set alice apple")
    assert "language  en (English)" in text_of(listed)
    assert "set alice PASSWORD language de" in text_of(listed)
    (done,) = players.send(A, "set alice apple language DE")
    assert done["Subject"] == "Trax PBM: settings of alice" and not is_error(done)
    # the answer already comes in the language chosen
    assert "alice, deine Einstellung language ist jetzt de (Deutsch)." in flat(done)
    assert "language  de (Deutsch)" in text_of(done)
    assert language(players, "alice") == "de"
    (done,) = players.send(A, "set alice apple language ja")
    assert "language  ja（日本語）" in text_of(done)
    assert "set alice PASSWORD language en" in text_of(done)
    assert language(players, "alice") == "ja"
    players.send(A, "set alice apple language en")
    assert language(players, "alice") == "en"


def test_a_language_the_server_has_not_is_refused_with_the_right_form(players):
    (refused,) = players.send(A, "set alice apple language fr")
    assert is_error(refused)
    text = flat(refused)
    assert "Your command: set ******** ******** language fr" in text
    assert ("fr is not a language of the replies; the languages are en (English), de (German) or "
            "ja (Japanese): write language de, for instance") in text
    assert "The right form: set USERID PASSWORD [SETTING VALUE]" in text
    assert "apple" not in text_of(refused)
    assert language(players, "alice") is None


def test_set_language_without_a_value_names_the_values(players):
    (refused,) = players.send(A, "set alice apple language")
    assert "say what language is to be: en or de or ja" in flat(refused)


def test_a_wrong_password_sets_no_language(players):
    (refused,) = players.send("mallory@example.org", "set alice wrong language de")
    assert is_error(refused)
    assert language(players, "alice") is None


# --- signup ... language=LANG ----------------------------------------------------------


@pytest.mark.parametrize("subject, chosen", [
    ("signup carol cherry language=de", "de"),
    ("signup carol cherry LANGUAGE=JA", "ja"),
    ("signup carol cherry -language=en", "en"),
    ("signup carol cherry carol@example.org language=de carol@work.example.org", "de"),
    ("signup carol cherry carol@example.org carol@work.example.org language=ja", "ja"),
])
def test_signup_takes_a_language_anywhere_after_the_password(mail, subject, chosen):
    (welcome, *confirmations) = mail.send(C, subject)
    assert welcome["Subject"] == "Welcome to Trax PBM, carol"
    assert language(mail, "carol") == chosen
    if "work" in subject:  # the option is no address: only the two addresses are asked
        assert sorted(to_of(m) for m in confirmations) == ["carol@work.example.org"]
        assert mail.pipeline.store.addresses_of(mail.pipeline.store.find_user("carol").id) == [
            C, "carol@work.example.org"]


def test_the_language_given_at_signup_wins_over_the_headers(mail):
    mail.send(C, "signup carol cherry language=de", Content_Language="ja", Accept_Language="ja")
    assert language(mail, "carol") == "de"


@pytest.mark.parametrize("subject, wrong", [
    ("signup carol cherry language=fr", "fr is not a language of the replies"),
    ("signup carol cherry language=", "the language is missing"),
])
def test_signup_with_a_language_the_server_has_not_is_refused(mail, subject, wrong):
    (refused,) = mail.send(C, subject)
    assert is_error(refused)
    text = flat(refused)
    assert wrong in text
    assert "the languages are en (English), de (German) or ja (Japanese): write language=de, for instance" in text
    assert "The right form: signup USERID PASSWORD [ADDRESS ...] [language=en|de|ja]" in text
    assert "cherry" not in text_of(refused)
    assert mail.pipeline.store.find_user("carol") is None


def test_signup_with_the_language_as_two_words_is_shown_the_form(mail):
    (refused,) = mail.send(C, "signup carol cherry language de")
    assert "write the language with an = and no blank, as in language=de" in flat(refused)
    assert mail.pipeline.store.find_user("carol") is None


def test_signup_with_two_languages_is_refused(mail):
    (refused,) = mail.send(C, "signup carol cherry language=de language=ja")
    assert "the option language= is given twice" in flat(refused)
    assert mail.pipeline.store.find_user("carol") is None


def test_the_language_option_is_no_address_and_counts_none(mail):
    addresses = " ".join(f"c{n}@example.org" for n in range(5))
    mail.send(C, f"signup carol cherry {addresses} language=ja")
    user = mail.pipeline.store.find_user("carol")
    assert user is not None and user.language == "ja"
    assert len(mail.pipeline.store.addresses_of(user.id)) == 5


# --- the signup mail's headers -------------------------------------------------------


@pytest.mark.parametrize("headers, chosen", [
    ({"Content_Language": "de"}, "de"),
    ({"Content_Language": "ja-JP"}, "ja"),
    ({"Content_Language": "fr, de"}, "de"),  # the first the server has
    ({"Accept_Language": "ja-JP, en;q=0.5"}, "ja"),
    ({"Accept_Language": "fr, de;q=0.8"}, "de"),
    ({"Accept_Language": "en;q=0.3, de-CH;q=0.9, ja;q=0.7"}, "de"),  # by q-value, not by order
    ({"Accept_Language": "de;q=0.5, ja;q=0.5"}, "de"),  # equal: in the order written
    ({"Accept_Language": "ja;q=0, de;q=0.1"}, "de"),  # q=0: not wanted
    ({"Accept_Language": "EN-gb"}, "en"),
    ({"Content_Language": "ja", "Accept_Language": "de"}, "ja"),  # the mail's own language first
    ({"Content_Language": "fr", "Accept_Language": "de;q=0.4, fr"}, "de"),  # else Accept-Language
])
def test_a_new_account_takes_the_language_its_signup_mail_asks_for(mail, headers, chosen):
    mail.send(C, "signup carol cherry", **headers)
    assert language(mail, "carol") == chosen


@pytest.mark.parametrize("headers", [
    {},
    {"Content_Language": "fr"},
    {"Accept_Language": "fr-FR, it;q=0.8, *;q=0.1"},
    {"Accept_Language": "ja;q=0"},
    {"Accept_Language": "de;q=x, ;;, =="},
])
def test_a_new_account_with_no_language_the_server_has_is_answered_in_english(mail, headers):
    (welcome,) = mail.send(C, "signup carol cherry", **headers)
    assert not is_error(welcome)
    assert language(mail, "carol") is None  # not chosen
    assert mail.pipeline.languages_of([C]) == {C: "en"}
    (listed,) = mail.send(C, "set carol cherry")
    assert "language  en (English)" in text_of(listed)


def test_the_headers_choose_only_at_signup(players):
    players.send(A, "set alice apple pictures off", Content_Language="de", Accept_Language="ja")
    players.send(A, "trax challenge alice bob apple", Accept_Language="de")
    assert language(players, "alice") is None


def test_the_headers_choose_for_a_signup_among_several_commands(mail):
    mail.send(C, "multiple", "signup carol cherry\nset carol cherry pictures off\n", Accept_Language="ja")
    assert language(mail, "carol") == "ja"


# --- what the composer is told ------------------------------------------------------


def test_languages_of_maps_each_address_to_its_accounts_language(players):
    players.send(C, "signup carol cherry carol@example.org Carol@Work.Example.org language=ja")
    players.send(A, "set alice apple language de")
    players.send("dave@example.org", "signup dave date language=de")
    players.send("dave@example.org", "delete dave date")
    store = players.pipeline.store
    asked = [A.upper(), B, C, "carol@work.example.org", "nobody@example.org", "dave@example.org"]
    expected = {"alice@example.org": "de", B: "en", C: "ja", "carol@work.example.org": "ja",
                "nobody@example.org": "en", "dave@example.org": "en"}
    assert store.languages_of(asked) == expected
    assert players.pipeline.languages_of(asked) == expected
    assert store.languages_of([]) == {}


def test_an_address_two_accounts_share_reads_the_older_accounts_language(mail):
    mail.send(A, "signup alice apple")  # chose none: it does not speak for the address
    mail.send(A, "signup alice2 apple language=ja")
    mail.send(A, "signup alice3 apple language=de")
    assert mail.pipeline.store.languages_of([A]) == {A: "ja"}


# --- the headers, read ---------------------------------------------------------------


def test_accept_language_is_read_by_q_value():
    assert from_accept_language("ja-JP, en;q=0.5") == "ja"
    assert from_accept_language("fr, de;q=0.8") == "de"
    assert from_accept_language("fr;q=1.0, en;q=0.2, de;q=0.9") == "de"
    assert from_accept_language(" de ; q = 0.7 , ja ; q=0.8") == "ja"
    assert from_accept_language("de;q=2") is None  # no q-value at all
    assert from_accept_language("*") is None
    assert from_accept_language("") is None
    assert from_accept_language("fr, " * 1000 + "de") is None  # read no further than a real list goes


def test_content_language_is_a_list_read_in_order():
    assert from_content_language("en-US, de") == "en"
    assert from_content_language("x-klingon, ja") == "ja"
    assert from_content_language("") is None


def test_content_language_before_accept_language():
    assert asked_by_mail("de", "ja") == "de"
    assert asked_by_mail("fr", "ja") == "ja"
    assert asked_by_mail("", "") is None


# --- a newcomer with no account ----------------------------------------------------------


@pytest.mark.parametrize(("headers", "spoken"), [
    ({"Content_Language": "de"}, "Befehle"),
    ({"Accept_Language": "ja-JP, en;q=0.5"}, "コマンド"),
])
def test_help_to_a_newcomer_comes_in_the_language_his_mail_asks_for(mail, headers, spoken):
    (help_mail,) = mail.send(C, "help", **headers)
    assert spoken in text_of(help_mail)
    assert help_mail["Subject"] == "Trax PBM help"  # the old server's subject


def test_the_mail_of_a_player_with_an_account_does_not_choose_his_language(players):
    (listed,) = players.send(A, "help", Content_Language="de")
    assert "Befehle" not in text_of(listed)


def test_an_error_to_a_newcomer_comes_in_the_language_his_mail_asks_for(mail):
    (error,) = mail.send(C, "trax move", Content_Language="de")
    assert "Dein Befehl:" in text_of(error)
    (error,) = mail.send("x@example.org", "trax move")
    assert "Your command:" in text_of(error)
