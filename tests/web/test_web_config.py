"""The ``[web]`` section: off by default, its keys checked."""

from __future__ import annotations

import pytest

from pbm.config import BASE_URL_MAX_LENGTH, ConfigError, load_config

from .conftest import write_config


def test_the_web_view_is_off_by_default_on_localhost(tmp_path):
    web = load_config(None).web
    assert (web.enabled, web.host, web.port, web.base_url) == (False, "127.0.0.1", 8080, None)


def test_the_keys_are_read(tmp_path):
    config = load_config(write_config(tmp_path, '[web]\nenabled = true\nhost = "0.0.0.0"\nport = 8888\n'
                                                'base_url = "https://trax.example.org/"\n'))
    assert config.web.enabled and config.web.host == "0.0.0.0" and config.web.port == 8888
    assert config.web.base_url == "https://trax.example.org"  # without the trailing slash


@pytest.mark.parametrize(("line", "says"), [
    ('base_url = "trax.example.org"', "must be an http:// or https:// URL"),
    ('base_url = "ftp://trax.example.org"', "must be an http:// or https:// URL"),
    ('base_url = "https://trax.example.org/a b"', "must be an http:// or https:// URL"),
    ('base_url = "https://trax.example.org/?x=<b>"', "must be an http:// or https:// URL"),
    ('base_url = "https://' + "x" * 40 + '.org"', f"must be at most {BASE_URL_MAX_LENGTH} characters"),
    ("base_url = 3", "must be a URL (a string), got 3"),
    ("port = 0", "port must be between 1 and 65535"),
    ('enabled = "yes"', "enabled must be true or false"),
    ('prot = 80', "unknown key 'prot'; did you mean 'port'?"),
])
def test_bad_values_are_refused_with_the_key_named(tmp_path, line, says):
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, f"[web]\n{line}\n"))
    assert "[web]" in str(info.value) and says in str(info.value)
