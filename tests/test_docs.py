"""Docs tests: what the code offers is documented, and every reply has its template."""

import re
from pathlib import Path

from pbm.app.compose import TEMPLATES
from pbm.app.handlers import HANDLERS
from pbm.domain import refusals as errors
from pbm.grammar import REGISTRY
from pbm.grammar.spec import Scope

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

# Commands of the language that a later issue brings (none left).
LATER: set[str] = set()


def test_every_command_is_in_the_readme_with_its_usage_line():
    for name, spec in REGISTRY.items():
        line = spec.usage("<game>" if spec.scope is Scope.GAME else None)
        assert f"`{line}`" in README, name


def test_every_command_has_a_handler_except_those_of_later_issues():
    assert set(REGISTRY) - set(HANDLERS) == LATER
    assert set(HANDLERS) <= set(REGISTRY)


def test_every_user_facing_error_has_a_template():
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.PbmError)]
    assert len(classes) > 10
    for cls in classes:
        assert (TEMPLATES / "errors" / f"{cls.template}.txt").is_file(), cls.__name__


def test_every_template_the_code_names_exists():
    named = set()
    for path in (ROOT / "pbm").rglob("*.py"):
        named |= set(re.findall(r'"((?:replies|errors|help)/[a-z0-9/_-]+\.txt)"', path.read_text(encoding="utf-8")))
    assert len(named) > 15
    missing = [n for n in sorted(named) if not (TEMPLATES / n).is_file()]
    assert missing == []
