"""schemathesis hooks for scripts/schemathesis.

`map_case` makes a generated request meet a rule that no schema can state (consent is not recorded in the future)
without making an invalid part valid, so negative cases stay negative. `filter_failure` guards against a defect of
schemathesis itself, and drops nothing its own validator does not confirm.
"""
from datetime import datetime, timezone
from urllib.parse import unquote

import schemathesis


@schemathesis.hook
def map_case(context, case):
    # Consent cannot be recorded in the future (a minute of clock skew is allowed): a rule about the clock at the
    # moment the request arrives, which JSON Schema has no way to express (`format: date-time` bounds the text, not
    # the time). A generated date-time later than now is moved to now; anything that is not a date-time is left
    # alone. Accepting any future time instead would let an app record consent that was never given yet.
    body = case.body
    consent = body.get("consent") if isinstance(body, dict) else None
    if isinstance(consent, dict) and isinstance(consent.get("recordedAt"), str):
        try:
            recorded = datetime.fromisoformat(consent["recordedAt"].replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return case
        if recorded.tzinfo is not None and recorded > datetime.now(timezone.utc):
            consent["recordedAt"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return case


@schemathesis.hook
def filter_failure(context, failure, case, response):
    # Not a rule of the API: a defect of schemathesis 4.32.5. Its stateful phase sometimes sends, as a schema-valid
    # case, a path parameter that breaks the parameter's own pattern (seen: tokenId "|Î<º" against
    # ^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,127}$), and then reports the server's documented 400 as "schema-valid request
    # rejected". Such a failure is dropped only after schemathesis' own validator confirms, against the document,
    # that the path parameters it sent are not valid; every other failure stands.
    if type(failure).__name__ != "RejectedPositiveData" or not case.path_parameters:
        return True
    sent = {name: unquote(value) if isinstance(value, str) else value for name, value in case.path_parameters.items()}
    return case.operation.path_parameters.get_strict_validator().is_valid(sent)
