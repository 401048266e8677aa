"""Stateless document endpoints: validate, import from an engine command line, and the
published JSON Schema."""

from __future__ import annotations

import shlex
from typing import Any

import yaml
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions
from contracts_app.api.serializers import ImportResultSerializer, ImportSerializer, ValidateResultSerializer
from contracts_app.api.uploads import read_document
from contracts_app.document import (
    ENGINES,
    contract_json_schema,
    document_digest,
    import_command,
    validate_document,
    validation_warnings,
)
from kernel.errors import DomainError, FieldError


class ValidateApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Validate a contract document")
    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT, "application/yaml": OpenApiTypes.STR},
        responses=ValidateResultSerializer,
        description="Validate a contract document without storing it. Invalid → 400 problem+json "
        "listing every error as {path, message}.",
    )
    def post(self, request: Request) -> Response:
        document, fmt = read_document(request)
        contract = validate_document(document)
        return Response(
            {
                "valid": True,
                "route": contract.route,
                "digest": document_digest(contract),
                "format": fmt,
                "warnings": [w.as_dict() for w in validation_warnings(contract)],
            }
        )


class ImportApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Import an engine command as a contract")
    @extend_schema(request=ImportSerializer, responses=ImportResultSerializer)
    def post(self, request: Request) -> Response:
        data = ImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        engine = data.validated_data["engine"]
        if engine not in ENGINES:
            raise DomainError(
                "Unknown engine.", errors=[FieldError("engine", f"must be one of: {', '.join(ENGINES)}")]
            )
        command = data.validated_data["command"]
        # Python (a pasted generate() call) is not split as a shell would split it.
        argv = (
            [command] if engine == "transformers" and isinstance(command, str) and command else _argv(command)
        )
        # A string goes in as pasted: the importer joins `\`-continued lines, unwraps
        # `docker run`, and reads a Transformers generate() call as Python.
        files = data.validated_data.get("files") or None
        result = import_command(engine, command if isinstance(command, str) else argv, files=files)
        return Response(
            {
                "engine": engine,
                "document": result.document,
                "yaml": yaml.safe_dump(result.document, sort_keys=False),
                "unresolved": [item.as_dict() for item in result.unresolved],
            }
        )


def _argv(command: Any) -> list[str]:
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise DomainError(
                "The command cannot be split.", errors=[FieldError("command", str(exc))]
            ) from None
    elif isinstance(command, list) and all(isinstance(arg, str) for arg in command):
        argv = command
    else:
        raise DomainError(
            "The command is invalid.",
            errors=[FieldError("command", "must be a string or a list of strings")],
        )
    if not argv:
        raise DomainError("The command is empty.", errors=[FieldError("command", "must not be empty")])
    return argv


class ContractSchemaApi(APIView):
    """The contract format's JSON Schema at a stable URL (editors and pipelines fetch it)."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    @extend_schema(summary="The contract document's JSON Schema")
    @extend_schema(responses={(200, "application/schema+json"): OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        return Response(contract_json_schema(), content_type="application/schema+json")
