from __future__ import annotations

import json
from typing import Any

import pytest

from accounts_app.sso_mapping import DEFAULT_ROLE, Access, MappingError, groups_from_claims, parse_mapping

MAPPING = {
    "groups": {
        "ml-platform-admins": {"role": "admin"},
        "chat-team": {"role": "operator"},
        "release-managers": {"role": "approver"},
    }
}


def test_a_mapped_group_gives_its_role() -> None:
    assert parse_mapping(MAPPING).role_for(["chat-team"]) == "operator"


def test_several_groups_give_the_highest_role() -> None:
    mapping = parse_mapping(MAPPING)
    assert mapping.role_for(["chat-team", "release-managers", "unmapped"]) == "approver"
    assert mapping.role_for(["ml-platform-admins", "chat-team"]) == "admin"


def test_no_mapped_group_is_a_viewer() -> None:
    assert DEFAULT_ROLE == "viewer"
    assert parse_mapping(MAPPING).role_for(["someone-elses-team"]) == "viewer"
    assert parse_mapping(MAPPING).role_for([]) == "viewer"
    assert parse_mapping("").role_for(["chat-team"]) == "viewer"


def test_json_text_is_read_like_a_dict() -> None:
    text = '{"groups": {"chat-team": {"role": "operator"}}}'
    assert parse_mapping(text).groups == {"chat-team": "operator"}


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("{not json", "is not JSON"),
        ("[]", "must be an object"),
        ('{"teams": {}}', "unknown keys ['teams']"),
        ('{"groups": []}', "OIDC_ROLE_MAPPING.groups: must be an object"),
        ('{"groups": {"x": "admin"}}', "OIDC_ROLE_MAPPING.groups.x: must be an object"),
        ('{"groups": {"x": {"role": "root"}}}', "OIDC_ROLE_MAPPING.groups.x.role: 'root' is not one of"),
        ('{"groups": {"x": {"role": "admin", "colour": 1}}}', "unknown keys ['colour']"),
        (
            '{"groups": {"x": {"role": "operator", "routes": "support-chat"}}}',
            "groups.x.routes: must be a non-empty list",
        ),
        (
            '{"groups": {"x": {"role": "operator", "routes": []}}}',
            "groups.x.routes: must be a non-empty list",
        ),
        (
            '{"groups": {"x": {"role": "operator", "routes": null}}}',
            "groups.x.routes: must be a non-empty list",
        ),
        (
            '{"groups": {"x": {"role": "operator", "routes": [1]}}}',
            "groups.x.routes[0]: 1 is not a route slug",
        ),
        (
            '{"groups": {"x": {"role": "operator", "routes": ["ok", {"a": 1}]}}}',
            "groups.x.routes[1]: {'a': 1} is not",
        ),
        (
            '{"groups": {"x": {"role": "operator", "routes": ["Chat Team"]}}}',
            "groups.x.routes[0]: 'Chat Team' is not",
        ),
        (
            '{"groups": {"x": {"role": "operator", "routes": ["a\\u0000b"]}}}',
            "groups.x.routes[0]: 'a\\x00b' is not",
        ),
        (f'{{"groups": {{"x": {{"role": "operator", "routes": ["{"r" * 65}"]}}}}}}', "groups.x.routes[0]:"),
        (
            json.dumps({"groups": {"x": {"role": "operator", "routes": ["r"] * 501}}}),
            "501 routes; at most 500",
        ),
    ],
)
def test_it_rejects_a_malformed_mapping_naming_the_path(raw: str, says: str) -> None:
    with pytest.raises(MappingError, match=None) as caught:
        parse_mapping(raw)
    assert says in str(caught.value)


def test_groups_claim_shapes() -> None:
    assert groups_from_claims({"groups": ["a", "b"]}, "groups") == ["a", "b"]
    assert groups_from_claims({"groups": "a"}, "groups") == ["a"]
    assert groups_from_claims({"groups": ["a", 3, None]}, "groups") == ["a"]
    assert groups_from_claims({"groups": {"a": 1}}, "groups") == []
    assert groups_from_claims({}, "groups") == []
    assert groups_from_claims({"roles": ["a"]}, "roles") == ["a"]


SCOPED = parse_mapping(
    {
        "groups": {
            "ml-platform-admins": {"role": "admin"},
            "chat-team": {"role": "operator", "routes": ["support-chat", "chat-eval"]},
            "summaries-team": {"role": "operator", "routes": ["contract-summaries"]},
            "summaries-readers": {"role": "viewer", "routes": ["contract-summaries"]},
            "everyone": {"role": "viewer"},
        }
    }
)


def test_a_scoped_group_gives_its_routes_and_groups_of_one_role_add_up() -> None:
    assert SCOPED.access_for(["chat-team"]) == Access("operator", ("chat-eval", "support-chat"))
    both = SCOPED.access_for(["chat-team", "summaries-team"])
    assert both == Access("operator", ("chat-eval", "contract-summaries", "support-chat"))


def test_an_unscoped_group_of_the_role_gives_every_route() -> None:
    assert SCOPED.access_for(["ml-platform-admins", "chat-team"]) == Access("admin", ())
    assert SCOPED.access_for(["everyone", "summaries-readers"]) == Access("viewer", ())


def test_a_lower_roles_routes_are_not_added_to_a_higher_role() -> None:
    # Operator of support-chat and viewer of contract-summaries: one role per user, so
    # operator over the first only, never operator over both.
    assert SCOPED.access_for(["chat-team", "summaries-readers"]) == Access(
        "operator", ("chat-eval", "support-chat")
    )


def test_no_mapped_group_is_a_viewer_of_every_route() -> None:
    assert SCOPED.access_for(["unrelated"]) == Access("viewer", ())
    assert SCOPED.access_for([]) == Access("viewer", ())


def test_the_check_framework_reports_a_malformed_mapping(settings: Any) -> None:
    from accounts_app.sso import check_role_mapping

    settings.OIDC_ROLE_MAPPING = '{"groups": {"x": {"role": "operator", "routes": ["Bad Slug"]}}}'
    errors = check_role_mapping()
    assert [e.id for e in errors] == ["accounts.E001"]
    assert "OIDC_ROLE_MAPPING.groups.x.routes[0]: 'Bad Slug' is not a route slug" in errors[0].msg
    settings.OIDC_ROLE_MAPPING = '{"groups": {"x": {"role": "operator", "routes": ["support-chat"]}}}'
    assert check_role_mapping() == []
