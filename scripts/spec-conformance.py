#!/usr/bin/env python3
"""Validates recorded HTTP exchanges against a provider's published API document (OpenAPI 3.0/3.1 or Swagger 2.0).

Usage: spec-conformance.py INPUT.json

INPUT.json (written by the Swift tests, Tests/SharedTestSupport/SpecConformance.swift):
  {"provider": "adyen" | "bridge" | "marqeta" | "lithic",
   "documents": {"<key>": "<path of the document>", ...},
   "basePath": "/bcl/v2",                      # stripped from each exchange's path
   "exchanges": [
     {"name": "...", "document": "<key>", "method": "GET", "path": "/bcl/v2/paymentInstruments/PI1?x=1",
      "status": 200, "request": "<body text or null>", "response": "<body text or null>",
      "checkRequest": true, "checkResponse": true},
     {"name": "...", "document": "<key>", "schema": "NetworkTokenNotificationRequest", "body": "<JSON text>"},
     {"name": "...", "document": "<key>", "schema": "webhooks/card.updated", "body": "<JSON text>"}  # OpenAPI 3.1
   ]}

For every exchange it finds the document's operation (the concrete path matched against the templated paths; a
literal segment beats a parameter), then validates with the `jsonschema` package (Draft 2020-12):
  * the request's query parameters against the operation's declared ones, and its body against the request schema;
  * the response body against the schema the operation declares for that status. An error status (4xx/5xx) for
    which the document declares no schema is checked against the provider's documented error shape
    (ERROR_SHAPES below); a 2xx status the operation does not declare is itself a finding.
The document's schemas are turned into self-contained JSON Schemas: `$ref` resolved, `allOf` merged, OpenAPI's
`nullable` / `x-nullable` and Swagger's boolean `exclusiveMinimum` translated, and every object treated as
`additionalProperties: false` unless the document says otherwise (the union of all `allOf` branches' members is
what is allowed). `readOnly` members are not allowed in requests, `writeOnly` ones not in responses.

A schema that contradicts itself (a member it requires but never defines, which no closed object can satisfy) is a
finding unless EXCEPTIONS names it; an exception that no exchange needed is a finding too, so they stay narrow.

Prints one line per finding ("FINDING ..."), one per operation and status checked ("COVERED ..."), and a summary
("CHECKED n exchanges, r request bodies, s response bodies, f findings"). Exits 1 when there are findings.
"""

import json
import re
import sys

import jsonschema
from jsonschema import Draft202012Validator

# The providers' documented error bodies, for error statuses whose operation declares no schema.
#   adyen:   RestServiceError in BalancePlatformService-v2 (the document's own schema).
#   bridge:  Error in Bridge's OpenAPI (components/schemas/Error).
#   lithic:  error in Lithic's OpenAPI 3.1 document (components/schemas/error: {message, debugging_request_id}), which
#            its shared responses (BadRequest, Unauthorized, NotFound, …) use.
#   marqeta: {error_code, error_message}: Marqeta's "Errors" page (marqeta.com/docs/core-api/errors); its Swagger
#            document declares no body for its error statuses.
ERROR_SHAPES = {
    "adyen": {"document": "service", "ref": "#/components/schemas/RestServiceError"},
    "bridge": {"document": "openapi", "ref": "#/components/schemas/Error"},
    "lithic": {"document": "openapi", "ref": "#/components/schemas/error"},
    "marqeta": {
        "inline": {
            "type": "object",
            "required": ["error_code", "error_message"],
            "properties": {"error_code": {"type": "string"}, "error_message": {"type": "string"}},
        }
    },
}

# Places where a published document contradicts itself, each named by the schema (or member) it concerns. `at` is
# matched against a schema's names: the component it is (`CardPushProvisioningResponse`) or the member path where it
# is used (`CardAccount.freezes[]`, the items of CardAccount's `freezes`).
EXCEPTIONS = {
    "marqeta": [
        {
            # card_transition_request marks `state` readOnly (Swagger 2.0: "MUST NOT be sent as part of the request")
            # and requires it. The state is what a transition asks for (the "Create card transition" page lists it as
            # a required body field): in requests it is required and allowed.
            "at": "card_transition_request",
            "kind": "read-only-but-required",
            "members": ["state"],
        },
    ],
    "bridge": [
        {
            # CardFreeze requires `status` but defines it nowhere; only the freeze and unfreeze answers define it
            # (`freeze_created|freeze_replaced`, `freeze_removed`), so a freeze listed inside a card account has no
            # defined `status` (../shared/providers/bridge.md). There it is not required (and, being undefined, not
            # allowed either). The freeze and unfreeze answers keep requiring it.
            "at": "CardAccount.freezes[]",
            "kind": "required-but-undefined",
            "members": ["status"],
        },
        {
            # The items of CardAccount.freezes are `allOf: [CardFreeze]` beside `properties.initiator.enum: [bridge]`.
            # Read as JSON Schema that is `customer|developer` AND `bridge`: nothing. The description says the
            # initiator is "the customer, the developer, or Bridge": the sibling enum widens CardFreezeInitiator.
            "at": "CardAccount.freezes[].initiator",
            "kind": "enum-union",
        },
        {
            # CardPushProvisioningResponse requires `card_account_id, initiator, reason, created_at, status` (CardFreeze's
            # list, copied) but defines only `wallet_provider`, `apple_pay` and `google_pay`.
            "at": "CardPushProvisioningResponse",
            "kind": "required-but-undefined",
            "members": ["card_account_id", "initiator", "reason", "created_at", "status"],
        },
        {
            # PostCardPushProvisioningInput requires `initiator` but defines no such member.
            "at": "PostCardPushProvisioningInput",
            "kind": "required-but-undefined",
            "members": ["initiator"],
        },
        {
            # The 401 answers (AuthenticationError) use the Error schema, which defines `code`, `message` and `source`,
            # but both of the document's examples (MissingTokenError, InvalidTokenError) carry `location: "header"`
            # and `name: "Api-Key"` at the top level. The simulator answers the examples; those two are allowed there.
            "at": "responses/AuthenticationError",
            "kind": "extra-members",
            "members": {"location": {"type": "string", "enum": ["header"]}, "name": {"type": "string"}},
        },
        {
            # The 500 answers (UnexpectedError) use the Error schema (required `code`, `message`), but the document's
            # only example of them wraps the errors in a list: `{"errors": [{"code", "message"}]}`. The simulator
            # answers the example; there, that is the shape checked (each element an Error).
            "at": "responses/UnexpectedError",
            "kind": "replace-schema",
            "schema": {
                "type": "object",
                "required": ["errors"],
                "properties": {"errors": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Error"}}},
            },
        },
    ],
}

SCALAR_KEYWORDS = (
    "minLength", "maxLength", "pattern", "minimum", "maximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "const",
)
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def pointer(doc, ref):
    if not ref.startswith("#/"):
        raise ValueError("only local references are supported: " + ref)
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[part]
    return node


def component_name(ref):
    for prefix in ("#/components/schemas/", "#/definitions/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return None


class Document:
    """One published document and the schemas built from it."""

    def __init__(self, key, path, provider, findings, exceptions):
        with open(path, encoding="utf-8") as handle:
            self.doc = json.load(handle)
        self.key = key
        self.provider = provider
        self.swagger2 = str(self.doc.get("swagger", "")).startswith("2")
        self.findings = findings
        self.exceptions = exceptions
        self.cache = {}
        self.templates = []
        for template, item in self.doc.get("paths", {}).items():
            self.templates.append((template, template.strip("/").split("/"), item))

    # MARK: Operations

    def operation(self, method, path):
        """(template, operation, path item) for a concrete path, or None."""
        segments = path.strip("/").split("/")
        best = None
        for template, parts, item in self.templates:
            operation = item.get(method.lower())
            if operation is None or len(parts) != len(segments):
                continue
            score = 0
            for part, segment in zip(parts, segments):
                if part == segment:
                    score += 1
                elif "{" in part:
                    regex = "^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(part)) + "$"
                    if not re.match(regex, segment):
                        break
                else:
                    break
            else:
                if best is None or score > best[0]:
                    best = (score, template, operation, item)
        return None if best is None else best[1:]

    def parameters(self, operation, item):
        result = {}
        for parameter in item.get("parameters", []) + operation.get("parameters", []):
            if "$ref" in parameter:
                parameter = pointer(self.doc, parameter["$ref"])
            result[(parameter.get("in"), parameter.get("name"))] = parameter
        return result

    def request_schema(self, operation, item):
        """The request body's schema node, or None when the operation takes no JSON body."""
        if self.swagger2:
            for parameter in self.parameters(operation, item).values():
                if parameter.get("in") == "body":
                    return parameter.get("schema")
            return None
        body = operation.get("requestBody")
        if body is None:
            return None
        if "$ref" in body:
            body = pointer(self.doc, body["$ref"])
        return json_content(body.get("content", {}))

    def response(self, operation, status):
        """(declared, schema node or None, names): whether the operation declares `status`, its schema, and the name
        of the shared response it refers to (`responses/AuthenticationError`), if any."""
        responses = operation.get("responses", {})
        entry = responses.get(str(status)) or responses.get("%dXX" % (status // 100)) or responses.get("%dxx" % (status // 100))
        if entry is None:
            return False, None, ()
        names = ()
        if "$ref" in entry:
            names = ("responses/" + entry["$ref"].rsplit("/", 1)[-1],)
            entry = pointer(self.doc, entry["$ref"])
        if self.swagger2:
            return True, entry.get("schema"), names
        return True, json_content(entry.get("content", {})), names

    # MARK: Schemas

    def validator(self, node, label, mode, aliases=()):
        key = (json.dumps(node, sort_keys=True), label, mode, tuple(aliases))
        if key not in self.cache:
            schema = Builder(self, mode).build(node, label, closed=True, aliases=aliases)
            Draft202012Validator.check_schema(schema)
            self.cache[key] = Draft202012Validator(schema)
        return self.cache[key]


def json_content(content):
    for media, value in content.items():
        if media.split(";")[0].strip() in ("application/json", "*/*") or media.endswith("+json"):
            return value.get("schema")
    return None


class Builder:
    """Turns a document's schema node into a self-contained JSON Schema (Draft 2020-12)."""

    def __init__(self, document, mode):
        self.document = document
        self.doc = document.doc
        self.mode = mode  # "request" or "response"
        self.stack = []

    def exception(self, names, kind):
        for exception in self.document.exceptions:
            if exception["kind"] == kind and exception["at"] in names:
                exception["used"] = True
                return exception
        return None

    def parts(self, node, names):
        """The node's parts with `$ref` and `allOf` expanded; adds the components reached to `names`."""
        result = []
        if not isinstance(node, dict):
            return result
        own = {k: v for k, v in node.items() if k not in ("$ref", "allOf")}
        if own:
            result.append(own)
        if "$ref" in node:
            ref = node["$ref"]
            name = component_name(ref)
            if name:
                names.add(name)
            if ref in self.stack:
                result.append({"x-recursive": ref})
            else:
                self.stack.append(ref)
                result.extend(self.parts(pointer(self.doc, ref), names))
                self.stack.pop()
        for branch in node.get("allOf", []):
            result.extend(self.parts(branch, names))
        return result

    def child_prefix(self, node, label):
        seen = 0
        while isinstance(node, dict) and "$ref" in node and not node.get("allOf") and seen < 20:
            name = component_name(node["$ref"])
            if name:
                label = name
            node = pointer(self.doc, node["$ref"])
            seen += 1
        return label

    def types(self, part):
        value = part.get("type")
        if value is None:
            return None
        types = set(value if isinstance(value, list) else [value])
        if part.get("nullable") is True or part.get("x-nullable") is True:
            types.add("null")
        if "file" in types:
            types.discard("file")
            types.add("string")
        return types

    def excluded(self, definitions):
        """True when a member is not allowed in this direction (readOnly in requests, writeOnly in responses)."""
        flag = "readOnly" if self.mode == "request" else "writeOnly"
        for definition in definitions:
            names = set()
            for part in self.parts(definition, names):
                if part.get(flag) is True:
                    return True
        return False

    def build(self, node, label, closed, aliases=()):
        if node is None or node is True or node == {}:
            return {}
        names = {label, *aliases}
        replacement = self.exception(names, "replace-schema")
        if replacement is not None:
            return self.build(replacement["schema"], label, closed)
        parts = self.parts(node, names)
        prefix = self.child_prefix(node, label)
        schema = {}
        constraints = []

        # Types: every part's type must hold (allOf); OpenAPI 3.0 / Swagger nullability adds null.
        type_sets = [t for t in (self.types(p) for p in parts) if t is not None]
        nullable = any(p.get("nullable") is True or p.get("x-nullable") is True for p in parts)
        if type_sets:
            allowed = set.intersection(*type_sets)
            if nullable:
                allowed.add("null")
            if not allowed:
                self.document.findings.append(("document", "%s: its parts declare no common type (%s)" % (label, type_sets)))
            else:
                schema["type"] = sorted(allowed) if len(allowed) > 1 else next(iter(allowed))

        # Enums: every part's enum must hold, unless an exception says the document meant their union.
        enums = [p["enum"] for p in parts if isinstance(p.get("enum"), list)]
        if enums:
            if len(enums) > 1 and self.exception(names, "enum-union"):
                values = [v for e in enums for v in e]
                constraints.append({"enum": values + ([None] if nullable else [])})
            else:
                for values in enums:
                    constraints.append({"enum": list(values) + ([None] if nullable and None not in values else [])})

        for part in parts:
            if "x-recursive" in part:
                return {}
            scalar = {k: part[k] for k in SCALAR_KEYWORDS if k in part}
            for bound, strict in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
                if isinstance(part.get(strict), bool):
                    if part[strict] and bound in scalar:
                        scalar[strict] = scalar.pop(bound)
                elif strict in part:
                    scalar[strict] = part[strict]
            if scalar:
                constraints.append(scalar)

        # Members: the union over every part (allOf branches included).
        definitions = {}
        required = []
        additional = []
        branches = []
        for part in parts:
            for name, definition in part.get("properties", {}).items():
                definitions.setdefault(name, []).append(definition)
            for name in part.get("required", []):
                if name not in required:
                    required.append(name)
            if "additionalProperties" in part:
                additional.append(part["additionalProperties"])
            for keyword in ("oneOf", "anyOf"):
                if keyword in part:
                    branches.append((keyword, part[keyword]))

        # oneOf / anyOf: each branch self-contained when the node has no members of its own; otherwise the branches
        # are open and their members count among the node's allowed ones (each branch still checks its own).
        branch_members = set()
        for keyword, options in branches:
            built = [self.build(option, "%s<%d>" % (prefix, index), closed=not definitions) for index, option in enumerate(options)]
            constraints.append({keyword: built})
            if definitions:
                for option in options:
                    for option_part in self.parts(option, set()):
                        branch_members.update(option_part.get("properties", {}))

        if definitions:
            properties = {}
            for name, defs in definitions.items():
                if self.excluded(defs):
                    # Not allowed in this direction. One the same schema requires is a contradiction.
                    if name not in required:
                        continue
                    exception = self.exception(names, "read-only-but-required")
                    if exception is None or name not in exception["members"]:
                        self.document.findings.append((
                            "document",
                            "%s both requires `%s` and marks it %s: the document contradicts itself (name it in EXCEPTIONS if so)"
                            % ("/".join(sorted(names)), name, "readOnly" if self.mode == "request" else "writeOnly"),
                        ))
                        continue
                child = defs[0] if len(defs) == 1 else {"allOf": defs}
                properties[name] = self.build(child, "%s.%s" % (prefix, name), closed=True)
            for name in branch_members - set(definitions):
                properties[name] = {}
            extra = self.exception(names, "extra-members")
            if extra is not None:
                for name, member in extra["members"].items():
                    properties.setdefault(name, member)
            schema["properties"] = properties
        is_closed = closed and bool(definitions) and (not additional or any(a is False for a in additional))
        if required:
            kept = []
            undefined = []
            for name in required:
                if name in definitions or name in branch_members:
                    if name in schema.get("properties", {}):
                        kept.append(name)
                    # else: a readOnly member required in a request (or writeOnly in a response) is required
                    # only in the other direction.
                elif is_closed:
                    undefined.append(name)
                else:
                    kept.append(name)
            if undefined:
                exception = self.exception(names, "required-but-undefined")
                unnamed = [n for n in undefined if exception is None or n not in exception["members"]]
                if unnamed:
                    self.document.findings.append((
                        "document",
                        "%s requires %s but defines no such member: the document contradicts itself (name it in EXCEPTIONS if so)"
                        % ("/".join(sorted(names)), ", ".join("`%s`" % n for n in unnamed)),
                    ))
            if kept:
                schema["required"] = kept

        # Items.
        items = [p["items"] for p in parts if "items" in p]
        if items:
            schema["items"] = self.build(items[0] if len(items) == 1 else {"allOf": items}, prefix + "[]", closed=True)

        # additionalProperties: the document's word when it says one; otherwise closed when members are defined.
        if additional:
            if any(a is False for a in additional):
                if closed:
                    schema["additionalProperties"] = False
            elif all(a is True or a == {} for a in additional):
                pass
            else:
                definitions_schema = [a for a in additional if isinstance(a, dict) and a]
                schema["additionalProperties"] = self.build(
                    definitions_schema[0] if len(definitions_schema) == 1 else {"allOf": definitions_schema}, prefix + "{}", closed=True
                )
        elif is_closed:
            schema["additionalProperties"] = False

        if constraints:
            schema["allOf"] = constraints
        return schema


def describe(error):
    path = "$" + "".join("[%d]" % p if isinstance(p, int) else ".%s" % p for p in error.absolute_path)
    validator = error.validator
    if validator == "required":
        missing = re.findall(r"'([^']*)' is a required property", error.message)
        return path, "required member `%s` is missing" % (missing[0] if missing else error.message)
    if validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {}))) if isinstance(error.instance, dict) else []
        return path, "member(s) %s not defined by the document" % ", ".join("`%s`" % e for e in extra)
    if validator == "type":
        return path, "is %s where the document says %s" % (json_type(error.instance), error.validator_value)
    if validator == "enum":
        return path, "%s is not one of the document's values %s" % (short(error.instance), short(error.validator_value, 300))
    if validator in ("oneOf", "anyOf"):
        inner = sorted(error.context, key=lambda e: len(list(e.absolute_path)), reverse=True)
        detail = "; ".join("%s %s" % describe(e) for e in inner[:4])
        return path, "matches no allowed alternative (%s): %s" % (validator, detail)
    return path, short(error.message, 300)


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def short(value, limit=60):
    text = json.dumps(value) if not isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def query_items(query):
    from urllib.parse import unquote_plus

    items = []
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        items.append((unquote_plus(name), unquote_plus(value)))
    return items


def coerce(value, schema):
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
        if kind == "boolean":
            return {"true": True, "false": False}[value]
    except (ValueError, KeyError):
        return value
    return value


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    provider = spec["provider"]
    findings = []  # (exchange name or "document", text)
    exceptions = [dict(e) for e in EXCEPTIONS.get(provider, [])]
    documents = {}
    for key, path in spec["documents"].items():
        document_findings = []
        documents[key] = Document(key, path, provider, document_findings, exceptions)
    base = spec.get("basePath", "").rstrip("/")
    covered = set()
    counts = {"exchanges": 0, "requests": 0, "responses": 0}

    error_shape = ERROR_SHAPES.get(provider)

    def error_validator():
        if error_shape is None:
            return None
        if "inline" in error_shape:
            document = next(iter(documents.values()))
            return document.validator(error_shape["inline"], provider + " error", "response")
        document = documents[error_shape["document"]]
        return document.validator({"$ref": error_shape["ref"]}, component_name(error_shape["ref"]), "response")

    def check(name, where, validator, text):
        if text is None or text.strip() == "":
            findings.append((name, "%s: an empty body where the document declares a JSON schema" % where))
            return
        try:
            value = json.loads(text)
        except ValueError as error:
            findings.append((name, "%s: not JSON (%s)" % (where, error)))
            return
        for error in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path))):
            path, text = describe(error)
            findings.append((name, "%s %s: %s" % (where, path, text)))

    for exchange in spec["exchanges"]:
        counts["exchanges"] += 1
        name = exchange["name"]
        document = documents[exchange["document"]]
        if "schema" in exchange:
            if exchange["schema"].startswith("webhooks/"):
                # An OpenAPI 3.1 `webhooks` entry: the payload its POST request body declares.
                webhook = exchange["schema"][len("webhooks/"):].replace("~", "~0").replace("/", "~1")
                ref = "#/webhooks/%s/post/requestBody/content/application~1json/schema" % webhook
            else:
                ref = ("#/definitions/" if document.swagger2 else "#/components/schemas/") + exchange["schema"]
            check(name, "body (%s)" % exchange["schema"], document.validator({"$ref": ref}, exchange["schema"], "response"), exchange["body"])
            counts["responses"] += 1
            covered.add("SCHEMA %s" % exchange["schema"])
            continue
        method = exchange["method"].upper()
        full = exchange["path"]
        path, _, query = full.partition("?")
        if base and path.startswith(base + "/"):
            path = path[len(base):]
        found = document.operation(method, path)
        if found is None:
            findings.append((name, "%s %s: no such operation in the document" % (method, path)))
            continue
        template, operation, item = found
        status = int(exchange["status"])
        operation_name = "%s %s" % (method, template)
        if exchange.get("checkRequest", True):
            parameters = document.parameters(operation, item)
            sent = query_items(query)
            for key, value in sent:
                parameter = parameters.get(("query", key))
                if parameter is None:
                    findings.append((name, "request query `%s`: not a parameter of %s" % (key, operation_name)))
                    continue
                schema = parameter.get("schema") or {k: v for k, v in parameter.items() if k in ("type", "enum", "minimum", "maximum", "format", "minLength", "maxLength", "pattern")}
                validator = document.validator(schema, "%s query %s" % (operation_name, key), "request")
                for error in validator.iter_errors(coerce(value, schema)):
                    findings.append((name, "request query `%s`: %s" % (key, describe(error)[1])))
            for (location, key), parameter in parameters.items():
                if location == "query" and parameter.get("required") and key not in {k for k, _ in sent}:
                    findings.append((name, "request query `%s`: required by %s but not sent" % (key, operation_name)))
            schema = document.request_schema(operation, item)
            body = exchange.get("request")
            if schema is not None:
                counts["requests"] += 1
                check(name, "request", document.validator(schema, "%s request" % operation_name, "request"), body)
            elif body and body.strip():
                findings.append((name, "request: a body where %s takes none" % operation_name))
        if exchange.get("checkResponse", True):
            declared, schema, aliases = document.response(operation, status)
            text = exchange.get("response")
            if schema is not None:
                counts["responses"] += 1
                check(name, "response %d" % status, document.validator(schema, "%s %d" % (operation_name, status), "response", aliases), text)
            elif status >= 400:
                validator = error_validator()
                if validator is None:
                    findings.append((name, "response %d: no schema in the document and no error shape for %s" % (status, provider)))
                else:
                    counts["responses"] += 1
                    check(name, "response %d (the provider's error shape)" % status, validator, text)
            elif not declared:
                findings.append((name, "response %d: %s declares no such status (it declares %s)" % (status, operation_name, ", ".join(sorted(operation.get("responses", {}))))))
            elif text and text.strip():
                findings.append((name, "response %d: a body where the document declares none" % status))
        covered.add("%s %d" % (operation_name, status))

    for document in documents.values():
        for finding in document.findings:
            if finding not in findings:
                findings.append(finding)
    # A partial run (a few exchanges written by hand) need not use every named exception; a full run must.
    for exception in exceptions:
        if not exception.get("used") and not spec.get("partial"):
            findings.append(("document", "the exception for %s (%s) was not needed by any exchange: remove it or cover it" % (exception["at"], exception["kind"])))

    for entry in sorted(covered):
        print("COVERED %s" % entry)
    for name, text in findings:
        print("FINDING [%s] %s" % (name, text))
    print("CHECKED %d exchanges, %d request bodies, %d response bodies, %d findings" % (counts["exchanges"], counts["requests"], counts["responses"], len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
