"""schemathesis hooks for scripts/schemathesis: rules about generated requests that a schema cannot state.

Each hook makes a generated request meet one such rule without making an invalid part valid, so negative cases
stay negative.
"""
from datetime import datetime, timezone

import schemathesis

SCA_PAIR = ("X-SCA-Event-Id", "X-SCA-Wallet-Operation-Id")


@schemathesis.hook
def map_case(context, case):
    # The two SCA headers come from one solved challenge: both or neither. The server refuses one alone with 400,
    # and a header parameter's schema cannot say that it depends on another, so a lone one gets a valid partner.
    headers = case.headers
    if headers:
        present = [name for name in SCA_PAIR if name in headers]
        if len(present) == 1:
            missing = SCA_PAIR[1] if present[0] == SCA_PAIR[0] else SCA_PAIR[0]
            headers[missing] = "sca-1"
    # Consent cannot be recorded in the future (a minute of clock skew is allowed), a rule about the clock: a
    # generated date-time later than now is moved to now. Anything that is not a date-time is left alone.
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
