from __future__ import annotations

import pytest

from accounts_app.sso_mapping import DEFAULT_ROLE, MappingError, groups_from_claims, parse_mapping

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
            '{"groups": {"x": {"role": "operator", "routes": ["support-chat"]}}}',
            "OIDC_ROLE_MAPPING.groups.x.routes: route scopes apply to API tokens only",
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
